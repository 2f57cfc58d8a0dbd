/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the feed's state and calls (feed.c has the theory).
 *
 * Included by dm-l2arc.h before struct l2arc_c, which embeds a struct
 * l2arc_feed as its member feed.
 */
#ifndef DM_L2ARC_FEED_H
#define DM_L2ARC_FEED_H

#include <linux/bio.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

/* Hours that l2_write_bytes_24h sums (one bucket an hour). */
#define L2ARC_WEAR_HOURS		24

/* Seconds that l2_write_rate averages over (one bucket a second). */
#define L2ARC_RATE_SECS			10

/* The feed scans two lists, T2 then T1. */
#define L2ARC_FEED_LISTS		2

struct arc_hdr;
struct l2arc_buf;
struct l2arc_c;

/**
 * struct l2arc_feed - what fills the cache device: the feed's worker and
 * window, the hand-off queue, the wear cap and the write-rate buckets
 * @cursor: where the feed's scan of T2 and T1 goes on at the next
 *	feed: a pinned header, or NULL for the LRU end; under
 *	arc.lock, changed by feeds (feed.mutex)
 * @work: the feed
 * @wq: its workqueue
 * @mutex: serialises feeds (timer, message); outside arc.lock
 * @active: the feed runs (between resume and postsuspend); set
 *	and cleared under arc.lock; a feed by message tests it
 *	under @mutex (l2arc_feed_now())
 * @kicked: a hand-off asked for the feed early (l2arc_feed_kick()),
 *	and no feed has started since; under arc.lock
 * @armed: @work is queued for @due (false while it runs);
 *	under arc.lock
 * @due: jiffies when @work runs next, while @armed
 * @last: jiffies when the last timer or hand-off feed started (a
 *	feed by message is not one), while @last_valid; under
 *	arc.lock
 * @last_valid: such a feed ran since the resume
 * @win_open: a feed window is open (a feed ran since the resume); the
 *	feeds of one window share its budget (l2arc_feed_locked())
 * @win_start: jiffies when it opened
 * @win_used: bytes its feeds wrote (a failed batch's too)
 * @win_busy: a feed in it wrote more than half its budget
 * @win_spent: less than one block of its budget is left
 * @handoff_head: the hand-off queue: buffers of evicted blocks waiting
 *	for the feed, oldest first, linked by handoff_next; under
 *	arc.lock
 * @handoff_tail: its newest buffer
 * @handoff_nr: its length, in blocks
 * @dwpd_tokens: bytes the wear cap (l2arc_dwpd_limit) lets the feed write
 *	now; under @mutex
 * @dwpd_at: jiffies of the last feed (the cap's tokens accrue from there)
 * @rate_bytes: bytes written to the cache device per second (by the
 *	second in @rate_sec), for l2_write_rate
 * @rate_sec: the second (ktime_get_seconds()) of each bucket
 * @wear_bytes: bytes written to the cache device per hour (by the hour
 *	number in @wear_hour), for l2_write_bytes_24h
 * @wear_hour: the hour (ktime_get_seconds() / 3600) of each bucket
 * @bs: bio_set of the feed's writes
 * @bs_ready: @bs is initialised
 *
 * Locking: @dwpd_tokens and @dwpd_at are changed by feeds only (@mutex);
 * the buckets and the @win_* fields under arc.lock (changed by feeds
 * only).  Set up by l2arc_feed_init(), torn down by l2arc_feed_exit().
 */
struct l2arc_feed {
	struct arc_hdr *cursor[L2ARC_FEED_LISTS];
	struct delayed_work work;
	struct workqueue_struct *wq;
	struct mutex mutex;	/* serialises feeds */
	bool active;
	bool kicked;
	bool armed;
	unsigned long due;
	unsigned long last;
	bool last_valid;
	bool win_open;
	unsigned long win_start;
	u64 win_used;
	bool win_busy;
	bool win_spent;
	struct l2arc_buf *handoff_head;
	struct l2arc_buf *handoff_tail;
	u64 handoff_nr;
	u64 dwpd_tokens;
	unsigned long dwpd_at;
	u64 rate_bytes[L2ARC_RATE_SECS];
	u64 rate_sec[L2ARC_RATE_SECS];
	u64 wear_bytes[L2ARC_WEAR_HOURS];
	u64 wear_hour[L2ARC_WEAR_HOURS];
	struct bio_set bs;
	bool bs_ready;
};

/* feed.c */
bool l2arc_handoff(struct l2arc_c *lc, struct arc_hdr *hdr,
		   struct l2arc_buf *buf);
void l2arc_handoff_drop(struct l2arc_c *lc);
unsigned long l2arc_handoff_shrink(struct l2arc_c *lc, unsigned long nr_pages);
int l2arc_feed_now(struct l2arc_c *lc);
u64 l2arc_dwpd_cap(struct l2arc_c *lc);
u64 l2arc_wear_24h(struct l2arc_c *lc);
u64 l2arc_write_rate(struct l2arc_c *lc);
void l2arc_feed_start(struct l2arc_c *lc);
void l2arc_feed_stop(struct l2arc_c *lc);
int l2arc_feed_init(struct l2arc_c *lc, char **error);
void l2arc_feed_exit(struct l2arc_c *lc);

#endif /* DM_L2ARC_FEED_H */

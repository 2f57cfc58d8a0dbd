// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the feed -- what fills the cache device: the scan of the
 * lists, the batch write at the write hand, the hand-off queue, the wear
 * cap and the feed's worker.
 *
 * Theory of operation
 * ===================
 *
 * The cache device is a ring of slots, one block each.  The feed (a
 * self-rescheduling delayed work on the device's own WQ_MEM_RECLAIM
 * workqueue, in the shape of OpenZFS's l2arc_feed_thread) takes blocks of
 * the ARC that are not on the cache device yet -- it scans T2 (MFU) and
 * then T1 (MRU), at most l2arc_headroom times its budget headers of each,
 * from where the previous feed stopped (a pinned cursor per list, as
 * OpenZFS's markers do since its pull request 18093) round from the LRU
 * end -- and writes them at the write hand in large sequential writes (up
 * to BIO_MAX_VECS pages a bio), straight from the ARC's pages, no copy.
 * Before it writes a region it evicts the L2 copies that the region holds
 * (nothing on the first lap).  A batch never wraps: when it does not fit
 * before the end of the ring the hand goes back to slot 0.
 *
 * Wear cap: once the cache device has been full (l2_laps > 0), a feed
 * writes no more than l2arc_dwpd_limit percent of one drive write per day
 * lets accrue since the previous feed (l2arc_dwpd_budget()).
 *
 * Hand-off at eviction: a block that the ARC evicts for room before any
 * feed took it would be lost to the cache device; instead its buffer goes
 * to the device's hand-off queue (l2arc_handoff(), from arc_ops.evict_data,
 * at most l2arc_handoff_max bytes; beyond that it is freed and counted in
 * l2_evict_missed), its header pinned and marked L2ARC_F_L2_WRITING so
 * that the directory keeps it as a ghost or L2-only header without
 * changing the paper's lists.  A feed writes the queue first, oldest
 * first, then scans.  A hand-off that fills half the queue brings the
 * next feed forward, with l2arc_feed_again only (l2arc_feed_kick()).
 * A queued header also has L2ARC_F_HANDOFF until a feed pops it: while
 * it has it, nothing else marks it L2ARC_F_L2_WRITING (so a popped entry
 * whose header still has that mark is live), and a feed's entry owns the
 * mark only while the header is not queued again (l2arc_owns()): a write
 * clears the mark, and a later hand-off of the new data sets it and
 * L2ARC_F_HANDOFF, so an older copy in flight is never validated.
 *
 * Budget per feed window: l2arc_write_max, plus l2arc_write_boost while
 * the ARC is cold ("warm" = the ARC has been full and evicted a block, not
 * "under memory pressure" as in OpenZFS), shared by the feeds of the
 * window (l2arc_win_enter()): a window opens with a feed when none is
 * open or it has ended, and with every feed by message; it lasts
 * l2arc_feed_secs, or l2arc_feed_min_ms once a feed in it wrote more than
 * half its budget and l2arc_feed_again is set.  One feed never writes
 * more than a quarter of the cache device; the scan takes no more than
 * the ARC's c (it writes only resident blocks; the cap keeps
 * l2arc_feed_again meaningful when write_max >> c).  The timer's next feed
 * comes at the window's end, or sooner when a hand-off asks for it (with
 * l2arc_feed_again); no timer or hand-off feed comes sooner than
 * l2arc_feed_min_ms after the previous one (a feed by message is neither).
 * Every value is read at every feed (the device's own, or the module
 * parameter's), so changes apply at the next feed.
 *
 * Eligible blocks: resident, fully read, not on L2, not being written to
 * L2, not prefetch blocks (read ahead, not yet demanded) while
 * l2arc_noprefetch is 1, and not T1's while l2arc_mfuonly is 1.  A
 * prefetch block already on L2 is still read from L2.
 *
 * Bulk work under arc.lock -- the scan of the lists, evicting a region,
 * validating a batch -- lets others in every L2ARC_LOCK_BATCH entries
 * (lock.c); a scan keeps its place across the gap with a pinned header
 * (l2arc_walk_resume()).
 *
 * The feed is the top of the L2ARC: it calls persistence (persist.c: the
 * rebuild's work item, queued at the feed's start, which the first feed
 * runs itself if it takes feed.mutex first, and the log after each
 * batch) and the cache device (l2.c: the region at the write hand, slot
 * eviction), never the other way round.  The device's other files reach it through
 * l2arc_handoff() (arc_ops.evict_data in io.c) and the start/stop/now
 * calls of target.c.
 *
 * Locking: the feed's state (struct l2arc_feed) is under arc.lock, except
 * feed.mutex, which serialises feeds (timer and message) and the
 * persistence calls of suspend and resume, and is taken outside arc.lock.
 */

#define DM_MSG_PREFIX "l2arc feed"

#include <linux/bio.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "dm-l2arc.h"

/**
 * struct l2arc_wentry - one block of a feed's batch
 * @hdr: its header, pinned for the write
 * @buf: its ARC buffer, referenced for the write
 * @slot: where it goes
 * @cksum: crc32c of its data
 * @handoff: it came from the hand-off queue (the block had been evicted)
 */
struct l2arc_wentry {
	struct arc_hdr *hdr;
	struct l2arc_buf *buf;
	u32 slot;
	u32 cksum;
	bool handoff;
};

/**
 * struct l2arc_wbatch - the bios of one feed in flight
 * @pending: bios not yet completed, plus one for the submitter
 * @done: completed when @pending drops to 0
 * @error: set when any bio failed
 */
struct l2arc_wbatch {
	atomic_t pending;
	struct completion done;
	blk_status_t error;
};

static bool l2arc_eligible(struct arc_hdr *hdr, bool noprefetch)
{
	if (hdr->flags & (ARC_F_IO_IN_PROGRESS | ARC_F_L2 | L2ARC_F_L2_WRITING |
			  L2ARC_F_HANDOFF))
		return false;
	if (!hdr->data)
		return false;
	return !(noprefetch && (hdr->flags & ARC_F_PREFETCH));
}

/*
 * Mark resident @hdr as on its way to the cache device: pinned, its L2
 * size class from its state now; locked.
 */
static void l2arc_mark_writing(struct l2arc_c *lc, struct arc_hdr *hdr)
{
	l2arc_assert_locked(lc);
	arc_hdr_pin(lc->arc, hdr);
	hdr->flags &= ~(L2ARC_F_CLASS_PREFETCH | L2ARC_F_CLASS_MFU);
	if (hdr->flags & ARC_F_PREFETCH)
		hdr->flags |= L2ARC_F_CLASS_PREFETCH;
	else if (hdr->state == ARC_MFU)
		hdr->flags |= L2ARC_F_CLASS_MFU;
	hdr->flags |= L2ARC_F_L2_WRITING;
}

/* Take @hdr into the batch: pinned, its buffer referenced, marked; locked. */
static void l2arc_take(struct l2arc_c *lc, struct l2arc_wentry *w,
		       struct arc_hdr *hdr)
{
	l2arc_assert_locked(lc);
	w->hdr = hdr;
	w->buf = l2arc_hdr_buf(hdr);
	w->handoff = false;
	l2arc_buf_get(w->buf);
	l2arc_mark_writing(lc, hdr);
}

/* l2arc_feed_min_ms, in jiffies */
static unsigned long l2arc_feed_min(struct l2arc_c *lc)
{
	return msecs_to_jiffies(l2arc_dev_param(&lc->tun, L2ARC_P_FEED_MIN_MS));
}

/*
 * The hand-off queue is half full: bring the next feed forward, with
 * l2arc_feed_again only, and never to less than l2arc_feed_min_ms after
 * the last timer or hand-off feed; it writes what its feed window has
 * left (not at all when less than a block: it waits for the window's end).
 * With l2arc_feed_again 0 the timer alone feeds, and the queue drops what
 * it cannot hold.  Locked.
 */
static void l2arc_feed_kick(struct l2arc_c *lc)
{
	unsigned long now = jiffies, at = now;

	l2arc_assert_locked(lc);
	/* a spent window waits for its end, where the timer is */
	if (!l2arc_dev_param(&lc->tun, L2ARC_P_FEED_AGAIN) || lc->feed.win_spent)
		return;
	lc->feed.kicked = true;
	if (lc->feed.last_valid &&
	    time_before(now, lc->feed.last + l2arc_feed_min(lc)))
		at = lc->feed.last + l2arc_feed_min(lc);
	if (lc->feed.armed && !time_before(at, lc->feed.due))
		return;
	lc->feed.armed = true;
	lc->feed.due = at;
	mod_delayed_work(lc->feed.wq, &lc->feed.work, at - now);
}

/**
 * l2arc_handoff() - offer a block that the ARC evicts for room to the feed
 * @lc: the device
 * @hdr: the block's header, leaving T1 or T2 (its state still says which)
 * @buf: its data, with the ARC's reference
 *
 * Called by arc_ops.evict_data for a block the feed could write (not on
 * the cache device, not a prefetch block while l2arc_noprefetch is 1, not
 * a T1 block while l2arc_mfuonly is 1: l2arc_evict_eligible()); a
 * block being written there already is left to that write.  While the
 * feed runs and the device's hand-off queue holds less than
 * l2arc_handoff_max bytes, the buffer (and the ARC's reference) goes to
 * the queue's tail and @hdr is pinned and marked %L2ARC_F_L2_WRITING, so
 * that the directory keeps it (as a ghost or an L2-only header) until
 * the feed has written the block; the ARC's lists change exactly as they
 * would have.  When the queue is full the block is
 * freed as before and counted in l2_evict_missed.  A hand-off that takes
 * the queue to half its bound or more brings the next feed forward, with
 * l2arc_feed_again only, to l2arc_feed_min_ms after the last timer or
 * hand-off feed at the soonest (l2arc_feed_kick()).
 *
 * Context: arc.lock held (from arc_ops.evict_data); does not sleep.
 * Return: true if the queue took @buf, false if the caller frees it.
 */
bool l2arc_handoff(struct l2arc_c *lc, struct arc_hdr *hdr,
		   struct l2arc_buf *buf)
{
	u64 bytes = l2arc_block_bytes(lc), max;

	l2arc_assert_locked(lc);
	if (!lc->feed.active || READ_ONCE(lc->l2.failed) ||
	    (hdr->flags & L2ARC_F_L2_WRITING))
		return false;
	max = l2arc_param(L2ARC_P_HANDOFF_MAX);
	/* an older hand-off of the block, made stale by a write, still queued */
	if ((hdr->flags & L2ARC_F_HANDOFF) ||
	    (lc->feed.handoff_nr + 1) * bytes > max) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_EVICT_MISSED);
		return false;
	}
	l2arc_mark_writing(lc, hdr);
	hdr->flags |= L2ARC_F_HANDOFF;
	buf->handoff_hdr = hdr;
	buf->handoff_next = NULL;
	if (lc->feed.handoff_tail)
		lc->feed.handoff_tail->handoff_next = buf;
	else
		lc->feed.handoff_head = buf;
	lc->feed.handoff_tail = buf;
	lc->feed.handoff_nr++;
	l2arc_stat_inc(lc, L2ARC_STAT_L2_HANDOFFS);
	if (!lc->feed.kicked && lc->feed.handoff_nr * bytes * 2 >= max)
		l2arc_feed_kick(lc);
	return true;
}

/*
 * Take the oldest buffer off the hand-off queue, or NULL; locked.  Its
 * header loses %L2ARC_F_HANDOFF: while it had it, no feed and no other
 * hand-off could mark it %L2ARC_F_L2_WRITING, so the flag, if still set,
 * is this hand-off's (a write clears it).
 */
static struct l2arc_buf *l2arc_handoff_pop(struct l2arc_c *lc)
{
	struct l2arc_buf *buf = lc->feed.handoff_head;

	l2arc_assert_locked(lc);
	if (!buf)
		return NULL;
	lc->feed.handoff_head = buf->handoff_next;
	if (!lc->feed.handoff_head)
		lc->feed.handoff_tail = NULL;
	lc->feed.handoff_nr--;
	buf->handoff_hdr->flags &= ~L2ARC_F_HANDOFF;
	return buf;
}

/*
 * Is the batch entry @w still the one that marked its header
 * %L2ARC_F_L2_WRITING?  Not once a write cleared the flag, nor once a
 * later hand-off (after such a write) marked it again: that one holds
 * %L2ARC_F_HANDOFF until the next feed.  @w->slot must have been given
 * (l2arc_assign()) unless @assigning.  Locked.
 */
static bool l2arc_owns(struct l2arc_wentry *w, bool assigning)
{
	struct arc_hdr *hdr = w->hdr;

	return (hdr->flags & L2ARC_F_L2_WRITING) &&
	       !(hdr->flags & L2ARC_F_HANDOFF) &&
	       (assigning || hdr->l2_slot == w->slot);
}

/*
 * An L2-only header kept only for a copy that will not come (no copy, no
 * write of one under way) leaves the directory; locked.
 */
static void l2arc_drop_uncopied(struct l2arc_c *lc, struct arc_hdr *hdr)
{
	l2arc_assert_locked(lc);
	if (hdr->state == ARC_L2ONLY &&
	    !(hdr->flags & (ARC_F_L2 | L2ARC_F_L2_WRITING)))
		arc_hdr_clear_l2(lc->arc, hdr);
}

/*
 * A queued block will not be written: unmark and unpin its header and
 * free the buffer; locked.
 */
static void l2arc_handoff_forget(struct l2arc_c *lc, struct l2arc_buf *buf)
{
	struct arc_hdr *hdr = buf->handoff_hdr;

	l2arc_assert_locked(lc);
	hdr->flags &= ~L2ARC_F_L2_WRITING;
	l2arc_drop_uncopied(lc, hdr);
	arc_hdr_unpin(lc->arc, hdr);
	l2arc_buf_put(lc, buf);
}

/*
 * Free up to @max of the oldest queued blocks unwritten, counting them in
 * l2_evict_missed if @missed.  Takes arc.lock itself.  Returns the blocks.
 */
static unsigned long l2arc_handoff_free(struct l2arc_c *lc,
					unsigned long max, bool missed)
{
	unsigned long n = 0;
	struct l2arc_hold h;
	struct l2arc_buf *buf;

	if (!READ_ONCE(lc->feed.handoff_head))
		return 0;
	l2arc_bulk_lock(lc, &h);
	while (n < max && (buf = l2arc_handoff_pop(lc))) {
		l2arc_handoff_forget(lc, buf);
		if (missed)
			l2arc_stat_inc(lc, L2ARC_STAT_L2_EVICT_MISSED);
		n++;
		l2arc_bulk_yield(lc, &h);
	}
	l2arc_bulk_unlock(lc, &h);
	return n;
}

/**
 * l2arc_handoff_drop() - empty the hand-off queue without writing it
 * @lc: the device, its directory set up
 *
 * In the dtr, and by the feed of a degraded device.
 *
 * Context: process context; takes arc.lock.
 */
void l2arc_handoff_drop(struct l2arc_c *lc)
{
	l2arc_handoff_free(lc, ULONG_MAX, false);
}

/**
 * l2arc_handoff_shrink() - give hand-off queue memory back (shrinker)
 * @lc: the device
 * @nr_pages: pages asked for
 *
 * Frees the oldest queued blocks unwritten, enough for @nr_pages, each
 * counted in l2_evict_missed.  Their pages go through the pool, which the
 * caller empties.
 *
 * Context: process context (reclaim); takes arc.lock.
 * Return: blocks freed.
 */
unsigned long l2arc_handoff_shrink(struct l2arc_c *lc, unsigned long nr_pages)
{
	return l2arc_handoff_free(lc, DIV_ROUND_UP(nr_pages, lc->block_pages),
				  true);
}

/*
 * Take up to @n blocks from the hand-off queue into the batch, oldest
 * first; a block written to (or otherwise dropped) since its hand-off has
 * lost %L2ARC_F_L2_WRITING and is freed instead.  Takes arc.lock itself.
 */
static unsigned int l2arc_collect_handoff(struct l2arc_c *lc,
					  struct l2arc_wentry *w,
					  unsigned int n)
{
	struct l2arc_hold h;
	struct l2arc_buf *buf;
	unsigned int got = 0;

	l2arc_bulk_lock(lc, &h);
	while (got < n && (buf = l2arc_handoff_pop(lc))) {
		struct arc_hdr *hdr = buf->handoff_hdr;

		if (!(hdr->flags & L2ARC_F_L2_WRITING) ||
		    hdr->state == ARC_DEAD) {
			l2arc_handoff_forget(lc, buf);
		} else {
			w[got].hdr = hdr;
			w[got].buf = buf;
			w[got].handoff = true;
			got++;
		}
		l2arc_bulk_yield(lc, &h);
	}
	l2arc_bulk_unlock(lc, &h);
	return got;
}

/* The lists the feed scans, in order, with their cursors' indexes. */
static const struct {
	enum arc_list_id id;
	u8 state;
} l2arc_feed_lists[L2ARC_FEED_LISTS] = {
	{ ARC_T2, ARC_MFU }, { ARC_T1, ARC_MRU },
};

/*
 * Where the scan of list @i starts: its cursor when it is still on the
 * list, else the LRU end; arc.lock held.
 */
static struct arc_hdr *l2arc_scan_start(struct l2arc_c *lc, unsigned int i)
{
	struct list_head *head = &lc->arc->lists[l2arc_feed_lists[i].id];
	struct arc_hdr *hdr = lc->feed.cursor[i];

	l2arc_assert_locked(lc);
	lc->feed.cursor[i] = NULL;
	if (hdr)
		hdr = l2arc_walk_resume(lc->arc, hdr, l2arc_feed_lists[i].state,
					NULL);
	return hdr ?: list_first_entry_or_null(head, struct arc_hdr, list);
}

/*
 * Pick up to @n eligible blocks, scanning T2 then (unless @mfuonly) T1 at
 * most @depth headers each (U64_MAX: whole lists, from the LRU ends), and
 * take them
 * (l2arc_take()).  A scan with a depth starts where the previous feed's
 * stopped (a pinned cursor per list) and goes on from the LRU end when it
 * reaches the MRU end, so that a steady ARC whose LRU ends are already on
 * the cache device is still fed in full.  Takes arc.lock itself, letting
 * others in every L2ARC_LOCK_BATCH headers.
 */
static unsigned int l2arc_collect(struct l2arc_c *lc, struct l2arc_wentry *w,
				  unsigned int n, u64 depth, bool noprefetch,
				  bool mfuonly)
{
	struct list_head *head;
	struct arc_hdr *hdr;
	struct l2arc_hold h;
	unsigned int i, got = 0, restarts;
	bool wrapped;
	u64 scanned;

	l2arc_bulk_lock(lc, &h);
	for (i = 0; i < L2ARC_FEED_LISTS; i++) {
		if (mfuonly && l2arc_feed_lists[i].id == ARC_T1) {
			l2arc_scan_start(lc, i);	/* its cursor's pin goes */
			continue;
		}
		head = &lc->arc->lists[l2arc_feed_lists[i].id];
		scanned = 0;
		restarts = 0;
		hdr = l2arc_scan_start(lc, i);
		/* from the LRU end already: no wrap needed */
		wrapped = hdr == list_first_entry_or_null(head, struct arc_hdr,
							  list);
		while (hdr && got < n && scanned < depth) {
			scanned++;
			if (l2arc_eligible(hdr, noprefetch))
				l2arc_take(lc, &w[got++], hdr);
			hdr = list_is_last(&hdr->list, head) ? NULL :
			      list_next_entry(hdr, list);
			if (!hdr && !wrapped) {	/* the MRU end: go round */
				wrapped = true;
				hdr = list_first_entry_or_null(head,
							       struct arc_hdr,
							       list);
			}
			if (!hdr || restarts >= L2ARC_SCAN_RESTARTS ||
			    !l2arc_bulk_due(&h))
				continue;
			arc_hdr_pin(lc->arc, hdr);
			l2arc_bulk_relax(lc, &h);
			hdr = l2arc_walk_resume(lc->arc, hdr,
						l2arc_feed_lists[i].state,
						NULL);
			if (!hdr) {	/* it moved: from the LRU end again */
				restarts++;
				hdr = list_first_entry_or_null(head,
							       struct arc_hdr,
							       list);
			}
		}
		/* the next feed goes on from here */
		if (hdr && depth != U64_MAX) {
			arc_hdr_pin(lc->arc, hdr);
			lc->feed.cursor[i] = hdr;
		}
	}
	l2arc_bulk_unlock(lc, &h);
	return got;
}

/* Forget the scan cursors (feed stopped, or the device going away). */
static void l2arc_scan_reset(struct l2arc_c *lc)
{
	unsigned int i;

	/* set by feeds only, so none on a target that never resumed */
	for (i = 0; i < L2ARC_FEED_LISTS; i++) {
		if (!lc->feed.cursor[i])
			continue;
		l2arc_lock(lc);
		arc_hdr_unpin(lc->arc, lc->feed.cursor[i]);
		lc->feed.cursor[i] = NULL;
		l2arc_unlock(lc);
	}
}

/*
 * Evict the region's copies and give the batch its slots; the region is
 * then closed again (no header points into it with %ARC_F_L2 any more).
 */
static void l2arc_assign(struct l2arc_c *lc, struct l2arc_wentry *w,
			 unsigned int n, u64 start)
{
	struct l2arc_hold h;
	unsigned int i;

	l2arc_bulk_lock(lc, &h);
	for (i = 0; i < n; i++) {
		l2arc_evict_slot(lc, start + i);
		l2arc_bulk_yield(lc, &h);
	}
	for (i = 0; i < n; i++) {
		w[i].slot = start + i;
		/* a block written to since it was taken is written, not kept */
		if (l2arc_owns(&w[i], true)) {
			w[i].hdr->l2_slot = w[i].slot;
			l2arc_slot(&lc->l2.ix, w[i].slot)->word =
				l2arc_key_block(w[i].hdr->oblock) | L2ARC_SLOT_HDR;
		}
		l2arc_bulk_yield(lc, &h);
	}
	lc->l2.hand = start + n;
	lc->l2.region_start = 0;
	lc->l2.region_end = 0;
	l2arc_bulk_unlock(lc, &h);
}

static void l2arc_write_endio(struct bio *bio)
{
	struct l2arc_wbatch *b = bio->bi_private;

	if (bio->bi_status)
		b->error = bio->bi_status;
	bio_put(bio);
	if (atomic_dec_and_test(&b->pending))
		complete(&b->done);
}

/*
 * Write the batch, consecutive slots, BIO_MAX_VECS pages a bio; wait.
 * Return: the number of bios sent.
 */
static unsigned int l2arc_write_batch(struct l2arc_c *lc,
				      struct l2arc_wentry *w, unsigned int n,
				      struct l2arc_wbatch *b)
{
	unsigned int per_bio = BIO_MAX_VECS / lc->block_pages, i = 0, sent = 0;
	struct blk_plug plug;

	atomic_set(&b->pending, 1);
	init_completion(&b->done);
	b->error = BLK_STS_OK;

	blk_start_plug(&plug);
	while (i < n) {
		unsigned int nr = min_t(unsigned int, n - i, per_bio);
		struct bio *bio;
		unsigned int j;

		bio = bio_alloc_bioset(lc->cache->bdev, nr * lc->block_pages,
				       REQ_OP_WRITE, GFP_NOIO, &lc->feed.bs);
		bio->bi_iter.bi_sector = l2arc_slot_sector(lc, w[i].slot);
		for (j = 0; j < nr; j++)
			l2arc_buf_add_to_bio(bio, w[i + j].buf);
		bio->bi_end_io = l2arc_write_endio;
		bio->bi_private = b;
		atomic_inc(&b->pending);
		submit_bio(bio);
		i += nr;
		sent++;
	}
	blk_finish_plug(&plug);

	if (!atomic_dec_and_test(&b->pending))
		wait_for_completion_io(&b->done);
	return sent;
}

/*
 * The writes are done: validate what is still valid, unpin the batch.
 * Takes arc.lock itself (in batches).
 */
static void l2arc_finish_batch(struct l2arc_c *lc, struct l2arc_wentry *w,
			       unsigned int n, bool ok)
{
	struct l2arc_hold h;
	unsigned int i;

	l2arc_bulk_lock(lc, &h);
	for (i = 0; i < n; i++) {
		struct arc_hdr *hdr = w[i].hdr;
		bool resident = hdr->state == ARC_MRU || hdr->state == ARC_MFU;
		bool gone = hdr->state == ARC_MRU_GHOST ||
			    hdr->state == ARC_MFU_GHOST ||
			    hdr->state == ARC_L2ONLY;
		/*
		 * Still this entry's claim: no write to the block since it
		 * was taken (a write clears the flag), so the copy is the
		 * block's data; a resident block taken by the scan must
		 * still hold that buffer, a handed-off one may have been
		 * read in again since.
		 */
		bool owns = l2arc_owns(&w[i], false);
		bool valid = ok && owns &&
			     (gone || (resident &&
				       (w[i].handoff || hdr->data == w[i].buf)));

		if (owns)
			hdr->flags &= ~L2ARC_F_L2_WRITING;
		if (valid) {
			l2arc_slot(&lc->l2.ix, w[i].slot)->cksum = w[i].cksum;
			arc_hdr_set_l2(lc->arc, hdr);
			l2arc_log_dirty(lc, w[i].slot);
			lc->l2.blocks++;
			lc->l2.class_blocks[l2arc_class(hdr)]++;
		} else {
			if (l2arc_slot_is(lc, w[i].slot, hdr))
				l2arc_slot(&lc->l2.ix, w[i].slot)->word = 0;
			l2arc_drop_uncopied(lc, hdr);
		}
		arc_hdr_unpin(lc->arc, hdr);
		l2arc_bulk_yield(lc, &h);
	}
	l2arc_bulk_unlock(lc, &h);
	for (i = 0; i < n; i++)
		l2arc_buf_put(lc, w[i].buf);
}

/**
 * l2arc_dwpd_cap() - the wear cap of the device's feed
 * @lc: the device
 *
 * l2arc_dwpd_limit percent of one cache device write per day:
 * size x limit / 100 / 86400 (a 1 TB device at 100 %: 11.57 MB/s).
 *
 * Context: any.
 * Return: bytes/s, 0 for no cap (l2arc_dwpd_limit 0, or no cache device).
 */
u64 l2arc_dwpd_cap(struct l2arc_c *lc)
{
	u64 size = lc->persist.dev_blocks * l2arc_block_bytes(lc);

	return mul_u64_u64_div_u64(size, l2arc_dev_param(&lc->tun,
							 L2ARC_P_DWPD_LIMIT),
				   100 * 86400);
}

/*
 * Time buckets: @bytes[i] counts period @period[i] (seconds or hours),
 * bucket i taking the periods that are i modulo @n.  Add @v to period
 * @now's bucket (restarting it if it held an older period).
 */
static void l2arc_buckets_add(u64 *bytes, u64 *period, unsigned int n,
			      u64 now, u64 v)
{
	unsigned int i = now % n;

	if (period[i] != now) {
		period[i] = now;
		bytes[i] = 0;
	}
	bytes[i] += v;
}

/* The sum of the buckets of period @now and the @n - 1 before it. */
static u64 l2arc_buckets_sum(const u64 *bytes, const u64 *period,
			     unsigned int n, u64 now)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (period[i] + n > now)
			sum += bytes[i];
	return sum;
}

/**
 * l2arc_wear_24h() - bytes written to the cache device in the last 24 hours
 * @lc: the device
 *
 * The sum of the hourly buckets of this hour and the 23 before it.
 *
 * Context: arc.lock held.
 * Return: bytes.
 */
u64 l2arc_wear_24h(struct l2arc_c *lc)
{
	l2arc_assert_locked(lc);
	return l2arc_buckets_sum(lc->feed.wear_bytes, lc->feed.wear_hour,
				 L2ARC_WEAR_HOURS,
				 div_u64(ktime_get_seconds(), 3600));
}

/**
 * l2arc_write_rate() - the feed's write rate now
 * @lc: the device
 *
 * Bytes written in this second and the L2ARC_RATE_SECS - 1 before it,
 * divided by L2ARC_RATE_SECS.
 *
 * Context: arc.lock held.
 * Return: bytes/s.
 */
u64 l2arc_write_rate(struct l2arc_c *lc)
{
	l2arc_assert_locked(lc);
	return div_u64(l2arc_buckets_sum(lc->feed.rate_bytes, lc->feed.rate_sec,
					 L2ARC_RATE_SECS, ktime_get_seconds()),
		       L2ARC_RATE_SECS);
}

/*
 * Account @wrote bytes of a feed in the per-second and hourly buckets;
 * arc.lock held (with l2_write_bytes, so that l2_write_bytes_24h agrees
 * with it in one reading).
 */
static void l2arc_wear_add(struct l2arc_c *lc, u64 wrote)
{
	u64 sec = ktime_get_seconds();

	l2arc_assert_locked(lc);
	l2arc_buckets_add(lc->feed.wear_bytes, lc->feed.wear_hour, L2ARC_WEAR_HOURS,
			  div_u64(sec, 3600), wrote);
	l2arc_buckets_add(lc->feed.rate_bytes, lc->feed.rate_sec, L2ARC_RATE_SECS, sec,
			  wrote);
}

/*
 * The wear cap on this feed's budget: none while the cache device has not
 * been full yet (its first fill, as OpenZFS), else the bytes the cap has
 * let accrue since the last feed (a token bucket that holds at most one
 * l2arc_feed_secs of the cap, and at least one block).  Under feed.mutex.
 * Return: the most this feed may write, bytes (U64_MAX: no cap).
 */
static u64 l2arc_dwpd_budget(struct l2arc_c *lc)
{
	u64 cap = l2arc_dwpd_cap(lc), most;
	unsigned long now = jiffies;
	unsigned int ms = jiffies_to_msecs(now - lc->feed.dwpd_at);

	lockdep_assert_held(&lc->feed.mutex);
	lc->feed.dwpd_at = now;
	if (!cap || !READ_ONCE(lc->l2.laps)) {
		lc->feed.dwpd_tokens = 0;
		return U64_MAX;
	}
	most = max_t(u64, cap * l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS),
		     l2arc_block_bytes(lc));
	lc->feed.dwpd_tokens = min(most, lc->feed.dwpd_tokens +
			      mul_u64_u64_div_u64(cap, ms, 1000));
	return lc->feed.dwpd_tokens;
}

/*
 * When the current feed window ends: l2arc_feed_secs after it opened, or
 * l2arc_feed_min_ms when l2arc_feed_again is set and a feed in it wrote
 * more than half its budget; never sooner than l2arc_feed_min_ms.  Locked.
 */
static unsigned long l2arc_win_end(struct l2arc_c *lc)
{
	unsigned long len = l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS) * HZ;

	l2arc_assert_locked(lc);
	if (lc->feed.win_busy && l2arc_dev_param(&lc->tun, L2ARC_P_FEED_AGAIN))
		len = 0;
	return lc->feed.win_start + max(len, l2arc_feed_min(lc));
}

/*
 * A feed starts: a feed by message always opens a new feed window, any
 * other feed only when none is open or the open one has ended.  Locked.
 */
static void l2arc_win_enter(struct l2arc_c *lc, bool message)
{
	unsigned long now = jiffies;

	l2arc_assert_locked(lc);
	if (!message && lc->feed.win_open && time_before(now, l2arc_win_end(lc)))
		return;
	lc->feed.win_open = true;
	lc->feed.win_start = now;
	lc->feed.win_used = 0;
	lc->feed.win_busy = false;
	lc->feed.win_spent = false;
}

/*
 * When the timer's next feed is due: at the end of the feed window, never
 * sooner than l2arc_feed_min_ms after the last timer or hand-off feed
 * started, never in the past.  Locked.
 */
static unsigned long l2arc_feed_next(struct l2arc_c *lc)
{
	unsigned long now = jiffies, next;

	l2arc_assert_locked(lc);
	next = lc->feed.win_open ? l2arc_win_end(lc) :
	       now + l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS) * HZ;
	if (lc->feed.last_valid &&
	    time_before(next, lc->feed.last + l2arc_feed_min(lc)))
		next = lc->feed.last + l2arc_feed_min(lc);
	return time_before(next, now) ? now : next;
}

/**
 * struct l2arc_feed_plan - what one feed may write and scan
 * @win_max: the window's budget, bytes (at least one block)
 * @budget: what the scan may write, bytes (capped at c blocks)
 * @n_max: blocks it may write (the hand-off queue may take them all)
 * @scan_max: blocks the scan of the lists may take, >= 1
 * @depth: headers the scan may look at per list (l2arc_headroom)
 * @noprefetch: l2arc_noprefetch
 * @mfuonly: l2arc_mfuonly: the scan skips T1
 */
struct l2arc_feed_plan {
	u64 win_max;
	u64 budget;
	unsigned int n_max;
	unsigned int scan_max;
	u64 depth;
	bool noprefetch;
	bool mfuonly;
};

/*
 * This feed's share of its window's budget, capped by a quarter of the
 * cache device and by the wear cap.  Returns false when that is not one
 * block (the window spent, or the wear cap).
 */
static bool l2arc_feed_plan(struct l2arc_c *lc, bool message,
			    struct l2arc_feed_plan *p)
{
	unsigned int bytes = l2arc_block_bytes(lc);
	u64 budget, headroom;

	p->win_max = l2arc_dev_param(&lc->tun, L2ARC_P_WRITE_MAX);
	if (!arc_is_warm(lc->arc))
		p->win_max += l2arc_dev_param(&lc->tun, L2ARC_P_WRITE_BOOST);
	/* at least one block (OpenZFS rounds up to one buffer) */
	p->win_max = max_t(u64, p->win_max, bytes);
	l2arc_lock(lc);
	l2arc_win_enter(lc, message);
	budget = p->win_max - min(p->win_max, lc->feed.win_used);
	l2arc_unlock(lc);
	/*
	 * Never more than a quarter of the cache device (as OpenZFS).  The
	 * scan of the lists takes no more than the ARC holds either: it
	 * writes only resident blocks, and with its budget capped at c,
	 * "wrote more than half its budget" (l2arc_feed_again) still means
	 * a busy feed when write_max is far larger than the ARC.  The
	 * hand-off queue, taken first, may use the whole budget.
	 */
	budget = min_t(u64, budget, (lc->l2.nr_slots / 4) * bytes);
	budget = min(budget, l2arc_dwpd_budget(lc));
	if (budget < bytes)
		return false;
	p->n_max = div_u64(budget, bytes);
	budget = min_t(u64, budget, arc_c(lc->arc) * bytes);
	p->budget = budget;	/* "busy": wrote more than half of this */
	p->scan_max = max_t(u64, 1, div_u64(budget, bytes));
	headroom = l2arc_dev_param(&lc->tun, L2ARC_P_HEADROOM);
	p->depth = headroom ? (u64)p->scan_max * headroom : U64_MAX;
	p->noprefetch = l2arc_dev_param(&lc->tun, L2ARC_P_NOPREFETCH);
	p->mfuonly = l2arc_dev_param(&lc->tun, L2ARC_P_MFUONLY);
	return true;
}

/*
 * Count a written batch of @n blocks in @sent bios: the statistics, the
 * wear, the window.  Returns the bytes written (0 when the batch failed).
 */
static u64 l2arc_feed_account(struct l2arc_c *lc, struct l2arc_feed_plan *p,
			      unsigned int n, unsigned int sent, bool ok)
{
	unsigned int bytes = l2arc_block_bytes(lc);
	u64 wrote = 0;

	l2arc_lock(lc);
	l2arc_stat_add(lc, L2ARC_STAT_L2_WRITES_SENT, sent);
	if (ok) {
		l2arc_stat_add(lc, L2ARC_STAT_L2_WRITES_DONE, sent);
		l2arc_stat_add(lc, L2ARC_STAT_L2_WRITE_BYTES, (u64)n * bytes);
		wrote = (u64)n * bytes;
	} else {
		l2arc_stat_add(lc, L2ARC_STAT_L2_WRITES_ERROR, sent);
		l2arc_l2_error(lc);
	}
	/* a failed batch wore the device too, and used the window */
	l2arc_wear_add(lc, (u64)n * bytes);
	lc->feed.win_used += (u64)n * bytes;
	lc->feed.win_busy |= wrote > p->budget / 2;
	lc->feed.win_spent = lc->feed.win_used + bytes > p->win_max;
	l2arc_unlock(lc);
	lc->feed.dwpd_tokens -= min(lc->feed.dwpd_tokens, (u64)n * bytes);
	return wrote;
}

/*
 * One feed: write the ARC's tails to the cache device.  @message: a feed
 * by message (else the timer's, or a hand-off's).  The feeds of one feed
 * window (l2arc_win_enter()) share its budget, l2arc_write_max (plus
 * l2arc_write_boost while the ARC is cold): this feed writes what the
 * window's earlier feeds left of it.  Returns when the feed's writes are
 * done.  feed.mutex held; process context.
 * Return: bytes written to the cache device (0 when nothing was eligible,
 * there is no usable cache device, or L2 header memory is over its bound).
 */
static u64 l2arc_feed_locked(struct l2arc_c *lc, bool message)
{
	struct l2arc_wentry *w = NULL;
	struct l2arc_feed_plan p;
	unsigned int sent, i, noio, n = 0;
	struct l2arc_wbatch b;
	u64 start, wrote = 0;

	lockdep_assert_held(&lc->feed.mutex);
	if (!lc->cache)
		goto out;
	/* the first feed after a load reads the log back first */
	l2arc_rebuild_run(lc);
	if (READ_ONCE(lc->l2.failed)) {
		l2arc_handoff_drop(lc);
		if (!lc->l2.dropped)
			l2arc_l2_drop_all(lc);
		goto out;
	}
	if (!l2arc_feed_plan(lc, message, &p))
		goto out;

	/* the batch may be large: vmalloc may serve it, but no I/O */
	noio = memalloc_noio_save();
	w = kvmalloc_array(p.n_max, sizeof(*w), GFP_KERNEL | __GFP_NOWARN);
	memalloc_noio_restore(noio);

	l2arc_lock(lc);
	if (!w || l2arc_meta_over(lc)) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_ABORT_LOWMEM);
		l2arc_unlock(lc);
		goto out;
	}
	l2arc_stat_inc(lc, L2ARC_STAT_L2_FEEDS);
	lc->feed.kicked = false;
	if (!message) {
		lc->feed.last = jiffies;
		lc->feed.last_valid = true;
	}
	l2arc_unlock(lc);

	n = l2arc_collect_handoff(lc, w, p.n_max);
	if (n < p.scan_max)
		n += l2arc_collect(lc, w + n, p.scan_max - n, p.depth,
				   p.noprefetch, p.mfuonly);
	if (!n)
		goto out;
	start = l2arc_region_claim(lc, n);
	l2arc_assign(lc, w, n, start);

	for (i = 0; i < n; i++) {
		w[i].cksum = l2arc_buf_cksum(w[i].buf);
		cond_resched();
	}
	sent = l2arc_write_batch(lc, w, n, &b);

	l2arc_finish_batch(lc, w, n, b.error == BLK_STS_OK);
	wrote = l2arc_feed_account(lc, &p, n, sent, b.error == BLK_STS_OK);
	/* the log blocks that describe the batch, and any others changed */
	if (b.error == BLK_STS_OK)
		l2arc_log_write_dirty(lc);
out:
	kvfree(w);
	return wrote;
}

/**
 * l2arc_feed_now() - one feed, run by the l2arc_feed message
 * @lc: the device
 *
 * Runs the feed only while the device is resumed, tested under
 * feed.mutex: l2arc_feed_stop() clears feed.active before it takes
 * feed.mutex, and a postsuspend marks the cache device clean only after
 * that, so no feed by message writes to a device whose header says
 * clean.  Returns when the feed's writes are done.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EBUSY when the device is suspended (or not resumed yet).
 */
int l2arc_feed_now(struct l2arc_c *lc)
{
	int r = -EBUSY;

	mutex_lock(&lc->feed.mutex);
	if (READ_ONCE(lc->feed.active)) {
		l2arc_feed_locked(lc, true);
		r = 0;
	}
	mutex_unlock(&lc->feed.mutex);
	return r;
}

static void l2arc_feed_worker(struct work_struct *work)
{
	struct l2arc_c *lc = container_of(to_delayed_work(work),
					  struct l2arc_c, feed.work);
	unsigned long next, now;

	l2arc_lock(lc);
	lc->feed.armed = false;
	l2arc_unlock(lc);
	/* runs only while the feed is active: l2arc_feed_stop() cancels it */
	mutex_lock(&lc->feed.mutex);
	l2arc_feed_locked(lc, false);
	mutex_unlock(&lc->feed.mutex);
	l2arc_lock(lc);
	next = l2arc_feed_next(lc);
	now = jiffies;
	/* not if a hand-off queued it again while this feed ran */
	if (queue_delayed_work(lc->feed.wq, &lc->feed.work,
			       time_after(next, now) ? next - now : 0)) {
		lc->feed.armed = true;
		lc->feed.due = next;
	}
	l2arc_unlock(lc);
}

/**
 * l2arc_feed_start() - (re)start the feed, at resume
 * @lc: the device
 */
void l2arc_feed_start(struct l2arc_c *lc)
{
	/* at once when the log is still to be read back (a rebuild) */
	unsigned long delay = READ_ONCE(lc->persist.rebuilding) ? 0 :
		l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS) * HZ;

	if (!lc->cache)
		return;
	/* the rebuild first; whichever takes feed.mutex first runs it */
	l2arc_rebuild_start(lc, lc->feed.wq);
	lc->feed.dwpd_at = jiffies;
	l2arc_lock(lc);
	WRITE_ONCE(lc->feed.active, true);
	lc->feed.kicked = false;
	lc->feed.last_valid = false;
	lc->feed.win_open = false;
	lc->feed.win_spent = false;
	lc->feed.armed = true;
	lc->feed.due = jiffies + delay;
	queue_delayed_work(lc->feed.wq, &lc->feed.work, delay);
	l2arc_unlock(lc);
}

/**
 * l2arc_feed_stop() - stop the feed and wait for a running one, at
 * postsuspend and in the dtr
 * @lc: the device
 *
 * Context: process context, may sleep.
 */
void l2arc_feed_stop(struct l2arc_c *lc)
{
	if (!lc->feed.wq)
		return;
	if (lc->feed.active) {	/* no hand-off queues it any more */
		l2arc_lock(lc);
		WRITE_ONCE(lc->feed.active, false);
		l2arc_unlock(lc);
	}
	cancel_delayed_work_sync(&lc->feed.work);
	l2arc_rebuild_stop(lc);
	mutex_lock(&lc->feed.mutex);	/* wait for a feed run by message */
	l2arc_scan_reset(lc);
	mutex_unlock(&lc->feed.mutex);
}

/**
 * l2arc_feed_init() - set up the L2ARC of a table with a cache device, in
 * the ctr: the checks, the persistent layout, the slot table, the feed's
 * bio set and workqueue
 * @lc: the device, with its cache device open
 * @error: set on failure
 *
 * Return: 0, -EINVAL or -ENOMEM (l2arc_l2_check(), l2arc_persist_init()).
 */
int l2arc_feed_init(struct l2arc_c *lc, char **error)
{
	u64 slots;
	int r;

	r = l2arc_l2_check(lc, &slots, error);
	if (r)
		return r;
	r = l2arc_persist_init(lc, slots, error);
	if (r)
		return r;
	r = l2arc_l2_init(lc, error);
	if (r)
		return r;
	if (bioset_init(&lc->feed.bs, BIO_POOL_SIZE, 0, BIOSET_NEED_BVECS)) {
		*error = "Cannot allocate the feed's bio set";
		return -ENOMEM;
	}
	lc->feed.bs_ready = true;
	lc->feed.wq = alloc_workqueue("dm-l2arc-feed-%s", WQ_MEM_RECLAIM, 1,
				      lc->name);
	if (!lc->feed.wq) {
		*error = "Cannot allocate the feed's workqueue";
		return -ENOMEM;
	}
	INIT_DELAYED_WORK(&lc->feed.work, l2arc_feed_worker);
	return 0;
}

/**
 * l2arc_feed_exit() - tear down what l2arc_feed_init() set up, in the dtr,
 * after the directory is gone
 * @lc: the device (may be half set up)
 */
void l2arc_feed_exit(struct l2arc_c *lc)
{
	if (lc->feed.wq)
		destroy_workqueue(lc->feed.wq);
	lc->feed.wq = NULL;
	if (lc->feed.bs_ready)
		bioset_exit(&lc->feed.bs);
	lc->feed.bs_ready = false;
	l2arc_l2_exit(lc);
	l2arc_persist_exit(lc);
}

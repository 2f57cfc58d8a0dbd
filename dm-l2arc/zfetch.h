/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: read-ahead's streams (zfetch.c has the theory).
 */
#ifndef DM_L2ARC_ZFETCH_H
#define DM_L2ARC_ZFETCH_H

#include <linux/spinlock.h>
#include <linux/types.h>

/* Streams the prefetcher follows at once, per device. */
#define L2ARC_ZFETCH_STREAMS		8

/**
 * struct l2arc_stream - one sequential read stream
 * @next: the block a continuing stream reads next
 * @pf_end: first block not yet read ahead
 * @distance: current read-ahead distance, blocks
 * @last_used: jiffies of the last access (never 0 once used); the oldest
 *	stream is reused
 */
struct l2arc_stream {
	u64 next;
	u64 pf_end;
	u64 distance;
	unsigned long last_used;
};

/**
 * struct l2arc_zfetch - the streams a device's read-ahead follows
 * @lock: protects @streams; a leaf lock, taken by l2arc_zfetch_access()
 *	alone (as ZFS's zf_lock), never with arc.lock held or inside it
 * @streams: %L2ARC_ZFETCH_STREAMS streams, zeroed at the ctr
 */
struct l2arc_zfetch {
	spinlock_t lock;	/* protects @streams */
	struct l2arc_stream streams[L2ARC_ZFETCH_STREAMS];
};

void l2arc_zfetch_init(struct l2arc_zfetch *zf);
bool l2arc_zfetch_access(struct l2arc_zfetch *zf, u64 first, u64 last,
			 u64 max_dist, u64 nr_blocks, u64 *from, u64 *to);

#endif /* DM_L2ARC_ZFETCH_H */

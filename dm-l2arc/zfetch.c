// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: read-ahead (zfetch) -- which blocks to read ahead of a
 * sequential stream of demand reads.
 *
 * Theory of operation
 * ===================
 *
 * As ZFS's dmu_zfetch.c: the device follows up to L2ARC_ZFETCH_STREAMS
 * streams.  A demand read of blocks [first, last] that continues a stream
 * (the stream's next block is first) sets the stream's read-ahead
 * distance to twice what it was, or twice the read's length if that is
 * more, up to a maximum the caller gives (zfetch_max_distance and an
 * eighth of c, io.c), and asks for the blocks up to that distance past
 * last that were not read ahead yet.  A read that continues no stream
 * starts a new one in the place of the least recently used stream; the
 * next sequential read confirms it.  Read-ahead itself (the fills, their
 * prefetch flag, l2arc_noprefetch) is the bio path's (io.c): this file
 * only decides the range, and calls nothing.  The streams have a lock of
 * their own, so a read's stream check does not wait for the device lock.
 */

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/typecheck.h>

#include "zfetch.h"

/**
 * l2arc_zfetch_init() - a device's streams, none followed yet
 * @zf: the streams, zeroed (the ctr's kvzalloc())
 *
 * Context: the ctr, before any read.
 */
void l2arc_zfetch_init(struct l2arc_zfetch *zf)
{
	spin_lock_init(&zf->lock);
}

/**
 * l2arc_zfetch_access() - follow a demand read; what to read ahead of it
 * @zf: the device's streams
 * @first: the read's first block
 * @last: the read's last block, >= @first
 * @max_dist: the longest read-ahead distance, blocks, >= 1
 * @nr_blocks: blocks of the device (no read-ahead past its end)
 * @from: set to the first block to read ahead
 * @to: set to the block after the last one to read ahead
 *
 * Takes @zf->lock (BHs off) for the streams; the device lock is not
 * needed, so a read's stream check does not wait behind the ARC.
 *
 * Context: process or softirq context; does not sleep.
 * Return: true when [*@from, *@to) is a range to read ahead.
 */
bool l2arc_zfetch_access(struct l2arc_zfetch *zf, u64 first, u64 last,
			 u64 max_dist, u64 nr_blocks, u64 *from, u64 *to)
{
	struct l2arc_stream *s, *oldest = &zf->streams[0];
	u64 nr = last - first + 1;
	bool ahead;
	int i;

	*from = 0;
	*to = 0;
	spin_lock_bh(&zf->lock);
	for (i = 0; i < L2ARC_ZFETCH_STREAMS; i++) {
		s = &zf->streams[i];
		if (s->next == first && s->last_used)
			break;
		if (time_before(s->last_used, oldest->last_used))
			oldest = s;
	}
	if (i == L2ARC_ZFETCH_STREAMS) {
		/* a new stream: confirmed by the next sequential read */
		s = oldest;
		s->next = last + 1;
		s->pf_end = last + 1;
		s->distance = 0;
	} else {
		s->next = last + 1;
		s->distance = min(max_dist, max(2 * s->distance, 2 * nr));
		*from = max(s->pf_end, last + 1);
		*to = min(last + 1 + s->distance, nr_blocks);
		if (*to > s->pf_end)
			s->pf_end = *to;
	}
	s->last_used = jiffies | 1;
	ahead = *from < *to;
	spin_unlock_bh(&zf->lock);
	return ahead;
}

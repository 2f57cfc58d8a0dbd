// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the device-mapper target "l2arc".
 *
 * Table line (see table.c and Documentation/dm-l2arc.rst):
 *
 *   <start> <length> l2arc <origin_dev> <cache_dev|-> <block_size>
 *                          [<#features> <feature>...]
 *
 * Where a bio goes (l2arc_map()):
 *  - a read is served from the ARC when the block is resident (a hit: the
 *    data is copied out, no device I/O), joins the read already in flight
 *    for the block (an iohit), or starts one (a miss): the whole block is
 *    read from the cache device or the origin into a new ARC buffer (a
 *    "fill"), the directory having taken the access in mapping order, and
 *    the reader gets its part when the fill completes;
 *  - a read of a block that a write in flight covers goes around the ARC
 *    to the origin (reads_around_writes), see "Never stale" below;
 *  - a write, discard or write-zeroes goes through to the origin; the
 *    cached copies of its blocks are dropped before it is issued;
 *  - anything else (flushes) is remapped to the origin unchanged.
 *
 * Never stale.  A read issued after a write completed returns the written
 * data.  Every write (and discard, write-zeroes) is entered in an interval
 * tree of writes in flight (struct l2arc_wrange, in the bio's per-bio
 * data) before its blocks' cached copies are dropped, and leaves it when
 * it completes (l2arc_end_io()).  A fill is hung on a header only when no
 * write of its block is in flight; a write that starts later takes the
 * fill off its header (it installs nothing and serves only the reads that
 * were already waiting, issued before the write completed).  So a fill
 * that reads can join is one that no write overlapped, and a read that
 * overlaps a write in flight goes to the origin: it may see the old or the
 * new data, as a read racing a write may.  Read-ahead skips such blocks.
 * The tree is exact per block: a write never disturbs another block's
 * fill or L2 copy.
 *
 * A read fails only if the origin fails the sectors it asked for: when a
 * fill fails, each waiting read is sent to the origin for its own range.
 *
 * Fill completions run on the device's workqueue, because the directory's
 * lock is BH-safe only (arc.h) and bio completions may run in hard IRQ
 * context.  Lock order: arc.lock, then wr_lock (taken with interrupts
 * off, also alone from write completions).  Bulk work under arc.lock (a
 * large discard's invalidation, the shrinker, the feed's scans) drops the
 * lock every L2ARC_LOCK_BATCH entries (l2arc_bulk_yield()).
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/interval_tree_generic.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "dm-l2arc.h"

#define L2ARC_VERSION_MAJOR	0
#define L2ARC_VERSION_MINOR	3
#define L2ARC_VERSION_PATCH	0

/* After a shrink, c does not grow for this long (as ZFS's arc_grow_retry). */
#define L2ARC_GROW_RETRY	(5 * HZ)

/**
 * struct l2arc_io - per-bio data
 * @wr: the write's entry in the tree of writes in flight
 * @tracked: @wr is in the tree (a write, discard or write-zeroes with
 *           data); false for every other bio
 */
struct l2arc_io {
	struct l2arc_wrange wr;
	bool tracked;
};

/* ---- Writes in flight ---- */

#define L2ARC_WR_START(w)	((w)->start)
#define L2ARC_WR_LAST(w)	((w)->last)

INTERVAL_TREE_DEFINE(struct l2arc_wrange, rb, u64, subtree_last,
		     L2ARC_WR_START, L2ARC_WR_LAST, static __maybe_unused,
		     l2arc_wr)

/* A write to blocks [first, last] is about to be issued; arc.lock held. */
static void l2arc_wr_enter(struct l2arc_c *lc, struct l2arc_wrange *wr)
{
	unsigned long flags;

	spin_lock_irqsave(&lc->wr_lock, flags);
	l2arc_wr_insert(wr, &lc->wr_tree);
	atomic_inc(&lc->wr_count);
	spin_unlock_irqrestore(&lc->wr_lock, flags);
}

/* The write has completed.  Any context. */
static void l2arc_wr_exit(struct l2arc_c *lc, struct l2arc_wrange *wr)
{
	unsigned long flags;

	spin_lock_irqsave(&lc->wr_lock, flags);
	l2arc_wr_remove(wr, &lc->wr_tree);
	atomic_dec(&lc->wr_count);
	spin_unlock_irqrestore(&lc->wr_lock, flags);
}

/*
 * Is a write to any of blocks [first, last] in flight?  arc.lock held:
 * every write entered before this call is seen (entries are made under
 * arc.lock); one that completes meanwhile may still be.
 */
static bool l2arc_wr_overlaps(struct l2arc_c *lc, u64 first, u64 last)
{
	unsigned long flags;
	bool found;

	if (!atomic_read(&lc->wr_count))
		return false;
	spin_lock_irqsave(&lc->wr_lock, flags);
	found = l2arc_wr_iter_first(&lc->wr_tree, first, last);
	spin_unlock_irqrestore(&lc->wr_lock, flags);
	return found;
}

/* ---- Bulk work under arc.lock ---- */

/**
 * l2arc_bulk_lock() - take arc.lock for bulk work
 * @lc: the device
 * @h: the hold, for l2arc_bulk_yield() and l2arc_bulk_unlock()
 *
 * Context: process context; returns with arc.lock held (BHs off).
 */
void l2arc_bulk_lock(struct l2arc_c *lc, struct l2arc_hold *h)
	__acquires(&lc->arc.lock)
{
	spin_lock_bh(&lc->arc.lock);
	h->t0 = ktime_get_ns();
	h->n = 0;
}

/**
 * l2arc_bulk_unlock() - end a bulk hold, recording its length
 * @lc: the device
 * @h: the hold
 *
 * The longest hold is the lock_hold_max_us row.
 *
 * Context: arc.lock held by l2arc_bulk_lock(); returns with it released.
 */
void l2arc_bulk_unlock(struct l2arc_c *lc, struct l2arc_hold *h)
	__releases(&lc->arc.lock)
{
	u64 held = ktime_get_ns() - h->t0;

	if (held > lc->stats[L2ARC_STAT_LOCK_HOLD_MAX_NS])
		lc->stats[L2ARC_STAT_LOCK_HOLD_MAX_NS] = held;
	spin_unlock_bh(&lc->arc.lock);
}

/**
 * l2arc_bulk_due() - count one entry of bulk work
 * @h: the hold
 *
 * Return: true when the hold has handled %L2ARC_LOCK_BATCH entries and
 * should let others in (l2arc_bulk_relax()).
 */
bool l2arc_bulk_due(struct l2arc_hold *h)
{
	return ++h->n >= L2ARC_LOCK_BATCH;
}

/**
 * l2arc_bulk_relax() - drop arc.lock, reschedule, take it again
 * @lc: the device
 * @h: the hold
 *
 * Anything not pinned may change or go meanwhile.
 *
 * Context: arc.lock held by l2arc_bulk_lock(); may sleep.
 */
void l2arc_bulk_relax(struct l2arc_c *lc, struct l2arc_hold *h)
	__must_hold(&lc->arc.lock)
{
	l2arc_bulk_unlock(lc, h);
	cond_resched();
	l2arc_bulk_lock(lc, h);
}

/**
 * l2arc_bulk_yield() - count one entry; let others in every
 * %L2ARC_LOCK_BATCH entries
 * @lc: the device
 * @h: the hold
 *
 * Context: arc.lock held by l2arc_bulk_lock(); may sleep.
 * Return: true if the lock was dropped (and taken again).
 */
bool l2arc_bulk_yield(struct l2arc_c *lc, struct l2arc_hold *h)
	__must_hold(&lc->arc.lock)
{
	if (!l2arc_bulk_due(h))
		return false;
	l2arc_bulk_relax(lc, h);
	return true;
}

/**
 * l2arc_walk_resume() - where a list walk goes on after a lock drop
 * @arc: the directory
 * @next: the header the walk would visit next, pinned before the drop
 * @state: the state of the list walked (%ARC_MRU .. %ARC_L2ONLY)
 *
 * Drops the pin.
 *
 * Context: arc.lock held.
 * Return: @next if it is still on that list, else NULL (the caller starts
 * that list again from its LRU end).
 */
struct arc_hdr *l2arc_walk_resume(struct arc *arc, struct arc_hdr *next,
				  u8 state)
{
	struct arc_hdr *hdr = next->state == state ? next : NULL;

	/* still on the list: not dead, so the unpin does not free it */
	arc_hdr_unpin(arc, next);
	return hdr;
}

/* ---- Buffers and fills ---- */

/* arc_ops.evict_data: @hdr leaves T1/T2; arc.lock held. */
static void l2arc_evict_data(struct arc *arc, struct arc_hdr *hdr, void *data)
{
	struct l2arc_c *lc = arc->private;
	u64 bytes = (u64)lc->block_sectors << SECTOR_SHIFT;

	if (hdr->flags & ARC_F_IO_IN_PROGRESS) {
		/* data is a fill: it keeps its buffer and will not install */
		hdr->flags &= ~ARC_F_IO_IN_PROGRESS;
		return;
	}
	if (hdr->flags & ARC_F_L2) {
		lc->stats[L2ARC_STAT_EVICT_L2_CACHED] += bytes;
	} else if (lc->cache && !((hdr->flags & ARC_F_PREFETCH) &&
				  l2arc_dev_param(&lc->tun,
						  L2ARC_P_NOPREFETCH))) {
		lc->stats[L2ARC_STAT_EVICT_L2_ELIGIBLE] += bytes;
	} else {
		lc->stats[L2ARC_STAT_EVICT_L2_INELIGIBLE] += bytes;
	}
	l2arc_buf_put(lc, data);
}

static const struct arc_ops l2arc_arc_ops = {
	.evict_data = l2arc_evict_data,
	.l2_drop = l2arc_l2_drop,
};

static void l2arc_fill_free(struct l2arc_fill *f)
{
	if (f->buf)
		l2arc_buf_put(f->lc, f->buf);
	kfree(f);
}

/*
 * Allocate a fill and its buffer (order-0 pages, the pool's first) without
 * sleeping; NULL when short.
 */
static struct l2arc_fill *l2arc_fill_alloc(struct l2arc_c *lc)
{
	gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;
	struct l2arc_fill *f;

	f = kzalloc(struct_size(f, bvecs, lc->block_pages), gfp);
	if (!f)
		return NULL;
	f->lc = lc;
	INIT_LIST_HEAD(&f->l2_node);
	f->buf = l2arc_buf_alloc(lc, gfp);
	if (!f->buf) {
		l2arc_fill_free(f);
		return NULL;
	}
	return f;
}

/* Copy the part of a block that @bio wants out of its buffer. */
static void l2arc_copy_to_bio(struct l2arc_c *lc, struct bio *bio,
			      struct l2arc_buf *buf)
{
	sector_t off = dm_target_offset(lc->ti, bio->bi_iter.bi_sector) &
		       (lc->block_sectors - 1);

	l2arc_buf_to_bio(buf, off << SECTOR_SHIFT, bio);
}

static void l2arc_remap(struct l2arc_c *lc, struct bio *bio)
{
	bio_set_dev(bio, lc->origin->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = dm_target_offset(lc->ti,
							  bio->bi_iter.bi_sector);
}

static void l2arc_fill_submit(struct l2arc_c *lc, struct l2arc_fill *f);

/*
 * A read of a cache device copy failed its checksum or its I/O: drop the
 * copy, count it, and read the block from the origin instead.  The read
 * never fails because of the cache device.  The write hand never
 * overwrites a slot under a read (l2.c), so a mismatch is the device's.
 */
static void l2arc_fill_retry_origin(struct l2arc_c *lc, struct l2arc_fill *f)
{
	struct arc_hdr *hdr = f->hdr;

	spin_lock_bh(&lc->arc.lock);
	lc->stats[f->status ? L2ARC_STAT_L2_IO_ERROR :
			      L2ARC_STAT_L2_CKSUM_BAD]++;
	l2arc_l2_error(lc);
	if ((hdr->flags & ARC_F_L2) && hdr->l2_slot == f->l2_slot)
		arc_hdr_clear_l2(&lc->arc, hdr);
	spin_unlock_bh(&lc->arc.lock);

	f->from_l2 = false;
	f->status = BLK_STS_OK;
	bio_uninit(&f->bio);
	l2arc_fill_submit(lc, f);
}

static void l2arc_fill_done(struct work_struct *work)
{
	struct l2arc_fill *f = container_of(work, struct l2arc_fill, work);
	struct l2arc_c *lc = f->lc;
	struct arc_hdr *hdr = f->hdr;
	struct bio_list waiters;
	bool retry = false;
	struct bio *bio;

	if (f->from_l2) {
		retry = f->status || l2arc_buf_cksum(f->buf) != f->l2_cksum;
		spin_lock_bh(&lc->arc.lock);
		l2arc_l2_read_done(lc, f);
		if (!retry)
			lc->stats[L2ARC_STAT_L2_READ_BYTES] +=
				(u64)lc->block_sectors << SECTOR_SHIFT;
		spin_unlock_bh(&lc->arc.lock);
		if (retry) {
			l2arc_fill_retry_origin(lc, f);
			return;
		}
	}

	spin_lock_bh(&lc->arc.lock);
	if (f->status)
		lc->stats[L2ARC_STAT_ORIGIN_READ_ERRORS]++;
	if (hdr->data == f && (hdr->flags & ARC_F_IO_IN_PROGRESS)) {
		if (!f->status) {
			hdr->flags &= ~ARC_F_IO_IN_PROGRESS;
			l2arc_buf_get(f->buf);
			arc_hdr_set_data(&lc->arc, hdr, f->buf);
		} else {
			arc_invalidate(&lc->arc, hdr);
		}
	} else if (f->detached) {
		lc->stats[L2ARC_STAT_FILL_DISCARDED]++;
	}
	arc_hdr_unpin(&lc->arc, hdr);
	waiters = f->waiters;
	bio_list_init(&f->waiters);
	spin_unlock_bh(&lc->arc.lock);

	while ((bio = bio_list_pop(&waiters))) {
		if (f->status) {
			/* the block failed: read this bio's own sectors */
			l2arc_remap(lc, bio);
			dm_submit_bio_remap(bio, NULL);
			continue;
		}
		l2arc_copy_to_bio(lc, bio, f->buf);
		bio_endio(bio);
	}

	bio_uninit(&f->bio);
	l2arc_fill_free(f);
	if (atomic_dec_and_test(&lc->fills_inflight))
		wake_up(&lc->fills_wait);
}

static void l2arc_fill_endio(struct bio *bio)
{
	struct l2arc_fill *f = bio->bi_private;

	f->status = bio->bi_status;
	queue_work(f->lc->wq, &f->work);
}

/*
 * Hang fill @f on @hdr, which arc_access() just made resident without
 * data, reading from the cache device when it holds the block and may be
 * read there; arc.lock held, and no write of the block in flight.
 */
static void l2arc_fill_attach(struct l2arc_c *lc, struct l2arc_fill *f,
			      struct arc_hdr *hdr)
{
	if (hdr->flags & ARC_F_L2) {
		f->l2_slot = hdr->l2_slot;
		f->l2_cksum = lc->l2_cksum[f->l2_slot];
		f->from_l2 = l2arc_l2_readable(lc, f->l2_slot);
		if (f->from_l2)
			list_add_tail(&f->l2_node, &lc->l2_reads);
	}
	if (lc->cache) {
		if (f->from_l2) {
			lc->stats[L2ARC_STAT_L2_HITS]++;
		} else {
			lc->stats[L2ARC_STAT_L2_MISSES]++;
			if (hdr->flags & L2ARC_F_L2_WRITING)
				lc->stats[L2ARC_STAT_L2_RW_CLASH]++;
		}
	}
	f->hdr = hdr;
	f->oblock = from_oblock(hdr->oblock);
	bio_list_init(&f->waiters);
	hdr->flags |= ARC_F_IO_IN_PROGRESS;
	arc_hdr_set_data(&lc->arc, hdr, f);
	arc_hdr_pin(&lc->arc, hdr);
	atomic_inc(&lc->fills_inflight);
}

/* Issue the read of an attached fill; process context. */
static void l2arc_fill_submit(struct l2arc_c *lc, struct l2arc_fill *f)
{
	unsigned int nr = lc->block_pages;

	INIT_WORK(&f->work, l2arc_fill_done);
	if (f->from_l2) {
		bio_init(&f->bio, lc->cache->bdev, f->bvecs, nr, REQ_OP_READ);
		f->bio.bi_iter.bi_sector = (sector_t)f->l2_slot << lc->block_shift;
	} else {
		bio_init(&f->bio, lc->origin->bdev, f->bvecs, nr, REQ_OP_READ);
		f->bio.bi_iter.bi_sector = f->oblock << lc->block_shift;
	}
	l2arc_buf_add_to_bio(&f->bio, f->buf);
	f->bio.bi_end_io = l2arc_fill_endio;
	f->bio.bi_private = f;
	submit_bio_noacct(&f->bio);
}

/* ---- Reads ---- */

/* A read goes around the ARC, or a read-ahead is skipped, for lack of memory. */
static void l2arc_throttled(struct l2arc_c *lc)
{
	lc->stats[L2ARC_STAT_MEMORY_THROTTLE]++;
	WRITE_ONCE(lc->throttle_at, jiffies | 1);
}

/* c grows back towards c_max, one block a miss, once pressure is over. */
static void l2arc_grow(struct l2arc_c *lc)
{
	u64 c = arc_c(&lc->arc);

	if (c < lc->c_max &&
	    time_after(jiffies, lc->last_shrink + L2ARC_GROW_RETRY))
		arc_set_c(&lc->arc, c + 1);
}

/* Count one access's result; arc.lock held. */
static void l2arc_count(struct l2arc_c *lc, int result, bool iohit,
			bool prefetch)
{
	u64 *s = lc->stats;

	switch (result) {
	case ARC_HIT_MRU:
	case ARC_HIT_MFU:
		s[result == ARC_HIT_MRU ? L2ARC_STAT_MRU_HITS :
					  L2ARC_STAT_MFU_HITS]++;
		if (iohit) {
			s[L2ARC_STAT_IOHITS]++;
			s[prefetch ? L2ARC_STAT_PREFETCH_DATA_IOHITS :
				     L2ARC_STAT_DEMAND_DATA_IOHITS]++;
		} else {
			s[L2ARC_STAT_HITS]++;
			s[prefetch ? L2ARC_STAT_PREFETCH_DATA_HITS :
				     L2ARC_STAT_DEMAND_DATA_HITS]++;
		}
		return;
	case ARC_GHOST_MRU:
		s[L2ARC_STAT_MRU_GHOST_HITS]++;
		break;
	case ARC_GHOST_MFU:
		s[L2ARC_STAT_MFU_GHOST_HITS]++;
		break;
	}
	s[L2ARC_STAT_MISSES]++;
	s[prefetch ? L2ARC_STAT_PREFETCH_DATA_MISSES :
		     L2ARC_STAT_DEMAND_DATA_MISSES]++;
}

static void l2arc_note_hash_max(struct l2arc_c *lc)
{
	u64 n = arc_nr_hashed(&lc->arc);

	if (n > lc->stats[L2ARC_STAT_HASH_ELEMENTS_MAX])
		lc->stats[L2ARC_STAT_HASH_ELEMENTS_MAX] = n;
}

/*
 * Look @block up.  Returns with arc.lock held, always: the block's header
 * when it is resident (nothing allocated), or NULL with a fill and a spare
 * header ready in *@f and *@spare for a miss (allocated without sleeping,
 * outside the lock), or ERR_PTR(-ENOMEM) when memory is short (the memory
 * throttle counted; whatever was allocated stays in *@f and *@spare).
 */
static struct arc_hdr *l2arc_lookup_prepare(struct l2arc_c *lc, u64 block,
					    struct l2arc_fill **f,
					    struct arc_hdr **spare)
	__acquires(&lc->arc.lock)
{
	struct arc_hdr *hdr;

	spin_lock_bh(&lc->arc.lock);
	for (;;) {
		hdr = arc_lookup(&lc->arc, to_oblock(block));
		if (hdr && (hdr->state == ARC_MRU || hdr->state == ARC_MFU))
			return hdr;
		if (*f && *spare)
			return NULL;
		spin_unlock_bh(&lc->arc.lock);
		if (!*f)
			*f = l2arc_fill_alloc(lc);
		if (!*spare)
			*spare = arc_hdr_alloc(GFP_NOWAIT | __GFP_NOWARN);
		spin_lock_bh(&lc->arc.lock);
		if (!*f || !*spare) {
			l2arc_throttled(lc);
			return ERR_PTR(-ENOMEM);
		}
	}
}

/*
 * One read-ahead of @block into the ARC, without a waiter.  Skipped when
 * memory is short.  Returns the fill to submit, or NULL.
 */
static struct l2arc_fill *l2arc_prefetch_block(struct l2arc_c *lc, u64 block)
{
	struct l2arc_fill *f = NULL;
	struct arc_hdr *spare = NULL, *hdr;
	int r;

	hdr = l2arc_lookup_prepare(lc, block, &f, &spare);
	if (IS_ERR(hdr))
		goto out_unlock;
	if (l2arc_wr_overlaps(lc, block, block)) {
		/* a write is in flight: read it ahead later, if at all */
		lc->stats[L2ARC_STAT_READS_AROUND_WRITES]++;
		goto out_unlock;
	}
	if (hdr) {
		/* resident: a prefetch access changes nothing */
		l2arc_count(lc, ARC_HIT_MRU + (hdr->state == ARC_MFU),
			    hdr->flags & ARC_F_IO_IN_PROGRESS, true);
		goto out_unlock;
	}

	r = arc_access(&lc->arc, to_oblock(block), ARC_ACCESS_PREFETCH,
		       &spare, &hdr);
	if (r < 0)
		goto out_unlock;
	l2arc_count(lc, r, false, true);
	lc->stats[L2ARC_STAT_PREDICTIVE_PREFETCH]++;
	l2arc_fill_attach(lc, f, hdr);
	l2arc_note_hash_max(lc);
	spin_unlock_bh(&lc->arc.lock);
	if (spare)
		arc_hdr_free(spare);
	return f;

out_unlock:
	spin_unlock_bh(&lc->arc.lock);
	if (f)
		l2arc_fill_free(f);
	if (spare)
		arc_hdr_free(spare);
	return NULL;
}

/*
 * zfetch: follow sequential streams of demand reads and read ahead of
 * them, the distance doubling while the stream holds, up to
 * zfetch_max_distance (as ZFS's dmu_zfetch does) and an eighth of c.
 * Called after a demand read of @block.
 */
static void l2arc_zfetch(struct l2arc_c *lc, u64 block)
{
	u64 max_dist, from = 0, to = 0, b;
	struct l2arc_stream *s, *oldest = &lc->streams[0];
	int i;

	if (lc->table.prefetch_disable ||
	    l2arc_param(L2ARC_P_PREFETCH_DISABLE))
		return;
	/*
	 * At most zfetch_max_distance, and at most an eighth of the ARC: a
	 * longer read-ahead would push its own blocks out of a small ARC
	 * before they are demanded.
	 */
	max_dist = l2arc_param(L2ARC_P_ZFETCH_MAX_DISTANCE) >>
		   (lc->block_shift + SECTOR_SHIFT);
	max_dist = clamp_t(u64, max_dist, 1,
			   max_t(u64, 1, READ_ONCE(lc->arc.c) / 8));

	spin_lock_bh(&lc->arc.lock);
	for (i = 0; i < L2ARC_ZFETCH_STREAMS; i++) {
		s = &lc->streams[i];
		if (s->next == block && s->last_used)
			break;
		if (time_before(s->last_used, oldest->last_used))
			oldest = s;
	}
	if (i == L2ARC_ZFETCH_STREAMS) {
		/* a new stream: confirmed by the next sequential read */
		s = oldest;
		s->next = block + 1;
		s->pf_end = block + 1;
		s->distance = 0;
	} else {
		s->next = block + 1;
		s->distance = min(max_dist, s->distance ? 2 * s->distance : 2);
		from = max(s->pf_end, block + 1);
		to = min(block + 1 + s->distance, lc->nr_blocks);
		if (to > s->pf_end)
			s->pf_end = to;
	}
	s->last_used = jiffies | 1;
	spin_unlock_bh(&lc->arc.lock);

	for (b = from; b < to; b++) {
		struct l2arc_fill *f = l2arc_prefetch_block(lc, b);

		if (f)
			l2arc_fill_submit(lc, f);
	}
}

/*
 * A read of (part of) one block.  The directory takes the access in
 * mapping order; a hit completes here, a miss when its fill does.
 */
static int l2arc_map_read(struct l2arc_c *lc, struct bio *bio)
{
	u64 block = dm_target_offset(lc->ti, bio->bi_iter.bi_sector) >>
		    lc->block_shift;
	struct l2arc_fill *f = NULL, *started = NULL;
	struct arc_hdr *spare = NULL, *hdr;
	struct l2arc_buf *buf = NULL;
	bool was_prefetch;
	int r;

	hdr = l2arc_lookup_prepare(lc, block, &f, &spare);
	if (IS_ERR(hdr)) {
		spin_unlock_bh(&lc->arc.lock);
		goto uncached;
	}
	if (l2arc_wr_overlaps(lc, block, block)) {
		/*
		 * A write of the block is in flight: no fill may start (its
		 * data could be older than the write and be handed to reads
		 * issued after the write completed), and the cached copy is
		 * being dropped.  Read around the ARC.
		 */
		lc->stats[L2ARC_STAT_READS_AROUND_WRITES]++;
		spin_unlock_bh(&lc->arc.lock);
		goto uncached;
	}
	was_prefetch = hdr && (hdr->flags & ARC_F_PREFETCH);
	r = arc_access(&lc->arc, to_oblock(block), 0, &spare, &hdr);
	if (r < 0) {
		l2arc_throttled(lc);
		spin_unlock_bh(&lc->arc.lock);
		goto uncached;
	}
	if (r == ARC_HIT_MRU || r == ARC_HIT_MFU) {
		bool iohit = hdr->flags & ARC_F_IO_IN_PROGRESS;

		l2arc_count(lc, r, iohit, false);
		if (was_prefetch)
			lc->stats[L2ARC_STAT_DEMAND_HIT_PREDICTIVE_PREFETCH]++;
		if (iohit) {
			bio_list_add(&((struct l2arc_fill *)hdr->data)->waiters,
				     bio);
		} else {
			buf = hdr->data;
			l2arc_buf_get(buf);
		}
	} else {
		l2arc_count(lc, r, false, false);
		l2arc_grow(lc);
		l2arc_fill_attach(lc, f, hdr);
		bio_list_add(&f->waiters, bio);
		l2arc_note_hash_max(lc);
		started = f;
		f = NULL;
	}
	spin_unlock_bh(&lc->arc.lock);

	if (f)
		l2arc_fill_free(f);
	if (spare)
		arc_hdr_free(spare);
	if (buf) {
		l2arc_copy_to_bio(lc, bio, buf);
		l2arc_buf_put(lc, buf);
		bio_endio(bio);
	}
	if (started)
		l2arc_fill_submit(lc, started);
	l2arc_zfetch(lc, block);
	return DM_MAPIO_SUBMITTED;

uncached:
	/* No memory for a buffer, or a write in flight (counted). */
	if (f)
		l2arc_fill_free(f);
	if (spare)
		arc_hdr_free(spare);
	return DM_MAPIO_REMAPPED;
}

/* ---- Writes ---- */

/*
 * Drop the cached copies (ARC, L2, a feed write in flight) of one block,
 * detaching a fill in flight; arc.lock held.  Returns 1 when it was
 * resident.
 */
static unsigned int l2arc_invalidate_hdr(struct l2arc_c *lc,
					 struct arc_hdr *hdr)
{
	unsigned int resident = hdr->state == ARC_MRU || hdr->state == ARC_MFU;

	if (resident && (hdr->flags & ARC_F_IO_IN_PROGRESS))
		((struct l2arc_fill *)hdr->data)->detached = true;
	if (hdr->flags & ARC_F_L2)
		lc->stats[L2ARC_STAT_L2_WRITE_INVALIDATES]++;
	hdr->flags &= ~L2ARC_F_L2_WRITING;
	arc_invalidate(&lc->arc, hdr);
	return resident;
}

/* The lists a range invalidation walks, in the order headers move. */
static const struct {
	enum arc_list_id id;
	u8 state;
} l2arc_walk_order[] = {
	{ ARC_T1, ARC_MRU }, { ARC_T2, ARC_MFU },
	{ ARC_B1, ARC_MRU_GHOST }, { ARC_B2, ARC_MFU_GHOST },
	{ ARC_LIST_L2ONLY, ARC_L2ONLY },
};

/*
 * Drop every cached copy of blocks [first, first + nr); arc.lock held by
 * l2arc_bulk_lock(), dropped every L2ARC_LOCK_BATCH headers.  The range is
 * in the tree of writes in flight already, so no header of it can be
 * created, accessed or filled meanwhile: its headers only move forwards
 * (T1 -> B1, T2 -> B2, any -> L2-only or out), which is the order the
 * lists are walked in.  Returns the resident blocks dropped.
 */
static u64 l2arc_invalidate_range(struct l2arc_c *lc, struct l2arc_hold *h,
				  u64 first, u64 nr)
{
	struct arc *arc = &lc->arc;
	struct arc_hdr *hdr, *next;
	struct list_head *head;
	u64 b, dropped = 0;
	unsigned int i, restarts;

	if (nr <= arc_nr_hashed(arc)) {
		for (b = first; b < first + nr; b++) {
			hdr = arc_lookup(arc, to_oblock(b));
			if (hdr)
				dropped += l2arc_invalidate_hdr(lc, hdr);
			l2arc_bulk_yield(lc, h);
		}
		return dropped;
	}
	/* a range larger than the directory: walk its lists */
	for (i = 0; i < ARRAY_SIZE(l2arc_walk_order); i++) {
		head = &arc->lists[l2arc_walk_order[i].id];
		restarts = 0;
		hdr = list_first_entry_or_null(head, struct arc_hdr, list);
		while (hdr) {
			next = list_is_last(&hdr->list, head) ? NULL :
			       list_next_entry(hdr, list);
			b = from_oblock(hdr->oblock);
			if (b >= first && b - first < nr)
				dropped += l2arc_invalidate_hdr(lc, hdr);
			hdr = next;
			if (!hdr || restarts >= L2ARC_SCAN_RESTARTS ||
			    !l2arc_bulk_due(h))
				continue;
			arc_hdr_pin(arc, hdr);
			l2arc_bulk_relax(lc, h);
			hdr = l2arc_walk_resume(arc, hdr,
						l2arc_walk_order[i].state);
			if (!hdr) {
				restarts++;
				hdr = list_first_entry_or_null(head,
							       struct arc_hdr,
							       list);
			}
		}
	}
	return dropped;
}

/*
 * A write, discard or write-zeroes is about to go to the origin: enter it
 * in the tree of writes in flight, then drop its blocks' cached copies.
 */
static void l2arc_write_begin(struct l2arc_c *lc, struct bio *bio,
			      struct l2arc_io *io)
{
	sector_t start = dm_target_offset(lc->ti, bio->bi_iter.bi_sector);
	sector_t end = start + bio_sectors(bio) - 1;
	struct l2arc_hold h;
	u64 dropped, nr;

	io->wr.start = start >> lc->block_shift;
	io->wr.last = end >> lc->block_shift;
	nr = io->wr.last - io->wr.start + 1;

	l2arc_bulk_lock(lc, &h);
	l2arc_wr_enter(lc, &io->wr);
	io->tracked = true;
	dropped = l2arc_invalidate_range(lc, &h, io->wr.start, nr);
	lc->stats[L2ARC_STAT_WRITES] += nr;
	lc->stats[L2ARC_STAT_WRITE_INVALIDATES] += dropped;
	l2arc_bulk_unlock(lc, &h);
}

/* ---- The map function ---- */

static int l2arc_map(struct dm_target *ti, struct bio *bio)
{
	struct l2arc_c *lc = ti->private;
	struct l2arc_io *io = dm_per_bio_data(bio, sizeof(*io));
	int r;

	io->tracked = false;
	if (bio_op(bio) == REQ_OP_READ && bio_sectors(bio)) {
		r = l2arc_map_read(lc, bio);
		if (r != DM_MAPIO_REMAPPED)
			return r;
	} else if (op_is_write(bio_op(bio)) && bio_sectors(bio)) {
		l2arc_write_begin(lc, bio, io);
	}
	l2arc_remap(lc, bio);
	return DM_MAPIO_REMAPPED;
}

static int l2arc_end_io(struct dm_target *ti, struct bio *bio,
			blk_status_t *error)
{
	struct l2arc_c *lc = ti->private;
	struct l2arc_io *io = dm_per_bio_data(bio, sizeof(*io));

	if (io->tracked) {
		l2arc_wr_exit(lc, &io->wr);
		io->tracked = false;
	}
	return DM_ENDIO_DONE;
}

/* ---- Shrinker ---- */

static unsigned long l2arc_shrink_count(struct shrinker *s,
					struct shrink_control *sc)
{
	struct l2arc_c *lc = l2arc_shrinker_private(s);
	u64 resident = arc_list_size(&lc->arc, ARC_T1) +
		       arc_list_size(&lc->arc, ARC_T2);

	if (resident > lc->c_min)
		return l2arc_pool_pages(&lc->pool) +
		       (resident - lc->c_min) * lc->block_pages;
	/* the ARC is at arc_min: L2-only headers may go, a page's worth each */
	return arc_list_size(&lc->arc, ARC_LIST_L2ONLY) /
	       (PAGE_SIZE / sizeof(struct arc_hdr));
}

/*
 * With the ARC at arc_min, drop the oldest L2-only headers (their cache
 * device copies become unreachable), a page's worth per object asked for,
 * so that L2 metadata never drives the machine out of memory; arc.lock
 * held by l2arc_bulk_lock().  Returns the objects (pages) freed.
 */
static unsigned long l2arc_shrink_l2only(struct l2arc_c *lc,
					 struct l2arc_hold *h,
					 unsigned long nr_pages)
{
	unsigned long per_page = PAGE_SIZE / sizeof(struct arc_hdr);
	unsigned long want = nr_pages * per_page, n = 0;
	struct list_head *l2only = &lc->arc.lists[ARC_LIST_L2ONLY];

	while (n < want && !list_empty(l2only)) {
		arc_hdr_clear_l2(&lc->arc, list_first_entry(l2only,
							    struct arc_hdr,
							    list));
		n++;
		lc->stats[L2ARC_STAT_L2_HDR_DROPPED]++;
		l2arc_bulk_yield(lc, h);
	}
	return DIV_ROUND_UP(n, per_page);
}

static u64 l2arc_resident(struct l2arc_c *lc)
{
	return arc_list_size(&lc->arc, ARC_T1) + arc_list_size(&lc->arc, ARC_T2);
}

/*
 * Give memory back: first the pool's free pages; then c shrinks by the
 * blocks still asked for, never below c_min, and the directory trims its
 * lists to the paper's invariants for the new c, at most L2ARC_LOCK_BATCH
 * blocks of c per lock hold (the evicted buffers' pages pass through the
 * pool, which is emptied again).  Returns pages freed.
 */
static unsigned long l2arc_shrink_scan(struct shrinker *s,
				       struct shrink_control *sc)
{
	struct l2arc_c *lc = l2arc_shrinker_private(s);
	u64 want, target, c, before, blocks = 0;
	struct l2arc_hold h;
	unsigned long freed;

	freed = l2arc_pool_shrink(&lc->pool, sc->nr_to_scan);
	if (freed >= sc->nr_to_scan)
		return freed;
	want = max_t(u64, 1, (sc->nr_to_scan - freed) / lc->block_pages);
	l2arc_bulk_lock(lc, &h);
	c = min(arc_c(&lc->arc), l2arc_resident(lc));
	target = c > lc->c_min + want ? c - want : lc->c_min;
	while (arc_c(&lc->arc) > target) {
		c = arc_c(&lc->arc);
		before = l2arc_resident(lc);
		arc_set_c(&lc->arc, c - min_t(u64, c - target,
					      L2ARC_LOCK_BATCH));
		blocks += before - l2arc_resident(lc);
		if (arc_c(&lc->arc) > target)
			l2arc_bulk_relax(lc, &h);
	}
	lc->stats[L2ARC_STAT_SHRINKS] += blocks;
	lc->last_shrink = jiffies;
	if (!blocks && !freed && arc_c(&lc->arc) <= lc->c_min)
		freed = l2arc_shrink_l2only(lc, &h, sc->nr_to_scan);
	l2arc_bulk_unlock(lc, &h);
	freed += l2arc_pool_shrink(&lc->pool, ULONG_MAX);

	return freed ? freed : SHRINK_STOP;
}

/* ---- Constructor and destructor ---- */

/* Copes with a half-built target: every member may still be unset. */
static void l2arc_dtr(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;

	if (!lc)
		return;
	l2arc_stats_unregister(lc);
	l2arc_feed_stop(lc);
	wait_event(lc->fills_wait, !atomic_read(&lc->fills_inflight));
	l2arc_shrinker_unregister(&lc->shrinker);
	if (lc->wq)
		destroy_workqueue(lc->wq);
	if (lc->arc_ready)
		arc_exit(&lc->arc);
	l2arc_pool_exit(&lc->pool);
	l2arc_l2_exit(lc);
	if (lc->cache)
		dm_put_device(ti, lc->cache);
	if (lc->origin)
		dm_put_device(ti, lc->origin);
	l2arc_table_free(&lc->table);
	kfree(lc);
	ti->private = NULL;
}

static int l2arc_get_devices(struct l2arc_c *lc, struct dm_target *ti)
{
	struct l2arc_table *t = &lc->table;
	int r;

	r = dm_get_device(ti, t->origin_path, dm_table_get_mode(ti->table),
			  &lc->origin);
	if (r) {
		ti->error = "Origin device lookup failed";
		return r;
	}
	if (t->cache_path) {
		/*
		 * Read-write whatever the table's mode: the cache device is
		 * the target's own, written by the feed also under a
		 * read-only table.
		 */
		r = dm_get_device(ti, t->cache_path,
				  dm_table_get_mode(ti->table) | L2ARC_OPEN_WRITE,
				  &lc->cache);
		if (r) {
			ti->error = "Cache device lookup failed";
			return r;
		}
		if (bdev_read_only(lc->cache->bdev)) {
			ti->error = "Cache device is read-only";
			return -EROFS;
		}
		if (lc->cache->bdev == lc->origin->bdev) {
			ti->error = "Origin and cache device are the same";
			return -EINVAL;
		}
		if (bdev_nr_sectors(lc->cache->bdev) <
		    (sector_t)L2ARC_CACHE_MIN_BLOCKS * t->block_sectors) {
			ti->error = "Cache device is smaller than 16 blocks";
			return -EINVAL;
		}
	}

	if (ti->len > bdev_nr_sectors(lc->origin->bdev)) {
		ti->error = "Length exceeds the origin device";
		return -EINVAL;
	}
	if (ti->len & (t->block_sectors - 1)) {
		ti->error = "Length is not a multiple of the block size";
		return -EINVAL;
	}
	return 0;
}

/* Size the ARC: c_max from arc_max (the table's or the module's). */
static void l2arc_size_arc(struct l2arc_c *lc)
{
	u64 bytes = lc->table.arc_max_set ? lc->table.arc_max :
					    l2arc_param(L2ARC_P_ARC_MAX);
	unsigned int shift = lc->block_shift + SECTOR_SHIFT;

	lc->c_max = clamp_t(u64, bytes >> shift, L2ARC_ARC_MIN_BLOCKS,
			    ARC_C_MAX);
	lc->c_min = clamp_t(u64, l2arc_param(L2ARC_P_ARC_MIN) >> shift,
			    L2ARC_ARC_MIN_BLOCKS, lc->c_max);
}

/*
 * Construct an l2arc target.  Every failure sets a specific ti->error and
 * unwinds through l2arc_dtr().
 */
static int l2arc_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct mapped_device *md = dm_table_get_md(ti->table);
	struct l2arc_c *lc;
	int r;

	lc = kvzalloc(sizeof(*lc), GFP_KERNEL);
	if (!lc) {
		ti->error = "Cannot allocate l2arc context";
		return -ENOMEM;
	}
	lc->ti = ti;
	ti->private = lc;
	INIT_LIST_HEAD(&lc->stats_node);
	init_waitqueue_head(&lc->fills_wait);
	mutex_init(&lc->feed_mutex);
	spin_lock_init(&lc->wr_lock);
	lc->wr_tree = RB_ROOT_CACHED;
	l2arc_pool_init(&lc->pool, 1);
	INIT_LIST_HEAD(&lc->l2_reads);
	init_waitqueue_head(&lc->l2_read_wait);
	/* unique among the targets of one table (a concatenation) */
	if (ti->begin)
		snprintf(lc->name, sizeof(lc->name), "%.23s+%llu",
			 dm_disk(md)->disk_name, (unsigned long long)ti->begin);
	else
		strscpy(lc->name, dm_disk(md)->disk_name, sizeof(lc->name));
	lc->crtime = ktime_get_ns();

	r = l2arc_parse_table(&lc->table, argc, argv, &ti->error);
	if (r)
		goto bad;
	lc->block_sectors = lc->table.block_sectors;
	lc->block_shift = ilog2(lc->block_sectors);
	lc->block_pages = (lc->block_sectors << SECTOR_SHIFT) >> PAGE_SHIFT;
	l2arc_pool_init(&lc->pool, lc->block_pages);
	lc->tun = lc->table.tun;

	r = l2arc_get_devices(lc, ti);
	if (r)
		goto bad;
	lc->nr_blocks = ti->len >> lc->block_shift;
	if (lc->cache) {
		r = l2arc_l2_init(lc, &ti->error);
		if (r)
			goto bad;
	}

	l2arc_size_arc(lc);
	r = arc_init(&lc->arc, lc->c_max, &l2arc_arc_ops, lc);
	if (r) {
		ti->error = "Cannot set up the ARC directory";
		goto bad;
	}
	lc->arc_ready = true;

	lc->wq = alloc_workqueue("dm-l2arc-%s", WQ_MEM_RECLAIM, 0, lc->name);
	if (!lc->wq) {
		ti->error = "Cannot allocate workqueue";
		r = -ENOMEM;
		goto bad;
	}
	r = l2arc_shrinker_register(&lc->shrinker, l2arc_shrink_count,
				    l2arc_shrink_scan, lc, lc->name);
	if (r) {
		ti->error = "Cannot register shrinker";
		goto bad;
	}

	r = dm_set_target_max_io_len(ti, lc->block_sectors);
	if (r)
		goto bad;
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct l2arc_io);
	return 0;

bad:
	l2arc_dtr(ti);
	return r;
}

/* ---- Suspend and resume ---- */

/*
 * The device is suspended (user I/O has drained): stop the feed, and wait
 * for read-aheads, which have no waiting bio, so device-mapper does not
 * wait for them; a suspended device then has no I/O in flight.  Nothing
 * is stopped before (presuspend): a suspend that is interrupted leaves the
 * device as it was, feed included.
 */
static void l2arc_postsuspend(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;

	l2arc_feed_stop(lc);
	wait_event(lc->fills_wait, !atomic_read(&lc->fills_inflight));
	l2arc_stats_unregister(lc);
}

/* The /proc entry belongs to the table that is live; the feed restarts. */
static void l2arc_resume(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;

	l2arc_stats_register(lc);
	l2arc_feed_start(lc);
}

/* ---- Status, messages, devices and limits ---- */

/* A throttled read makes the status say "throttled" for this long. */
#define L2ARC_THROTTLE_SHOWN	(10 * HZ)

/*
 * The health word of the status line: "degraded" once the cache device is
 * dropped, "throttled" while reads go around the ARC for lack of memory
 * (one in the last 10 s), both joined by a comma, else "ok".
 */
static const char *l2arc_health(struct l2arc_c *lc)
{
	unsigned long at = READ_ONCE(lc->throttle_at);
	bool throttled = at && time_before(jiffies, at + L2ARC_THROTTLE_SHOWN);

	if (READ_ONCE(lc->l2_failed))
		return throttled ? "degraded,throttled" : "degraded";
	return throttled ? "throttled" : "ok";
}

static void l2arc_emit_info(struct l2arc_c *lc, char *result,
			    unsigned int maxlen, unsigned int *szp)
{
	unsigned int shift = lc->block_shift + SECTOR_SHIFT, sz = *szp;
	u64 v[L2ARC_STAT_NR];
	u64 t1, t2, b1, b2, p, c, l2_blocks;
	int id;

	spin_lock_bh(&lc->arc.lock);
	memcpy(v, lc->stats, sizeof(v));
	t1 = arc_list_size(&lc->arc, ARC_T1);
	t2 = arc_list_size(&lc->arc, ARC_T2);
	b1 = arc_list_size(&lc->arc, ARC_B1);
	b2 = arc_list_size(&lc->arc, ARC_B2);
	p = arc_p_blocks(&lc->arc);
	c = arc_c(&lc->arc);
	l2_blocks = lc->l2_blocks;
	spin_unlock_bh(&lc->arc.lock);

	DMEMIT("%u %llu/%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
	       lc->block_sectors, t1 + t2, lc->c_max, p, c, t1, t2, b1, b2,
	       v[L2ARC_STAT_HITS], v[L2ARC_STAT_MISSES],
	       v[L2ARC_STAT_MRU_GHOST_HITS], v[L2ARC_STAT_MFU_GHOST_HITS]);
	DMEMIT(" %llu/%llu %llu %llu %llu %llu %llu %llu",
	       l2_blocks, lc->l2_nr_slots, v[L2ARC_STAT_L2_HITS],
	       v[L2ARC_STAT_L2_MISSES], v[L2ARC_STAT_L2_WRITE_BYTES],
	       v[L2ARC_STAT_L2_CKSUM_BAD], v[L2ARC_STAT_L2_IO_ERROR],
	       v[L2ARC_STAT_L2_WRITES_ERROR]);
	DMEMIT(" %u arc_max %llu arc_min %llu prefetch_disable %u zfetch_max_distance %llu",
	       2 * (4 + L2ARC_NR_DEV_PARAMS), lc->c_max << shift,
	       lc->c_min << shift,
	       lc->table.prefetch_disable ||
	       l2arc_param(L2ARC_P_PREFETCH_DISABLE),
	       l2arc_param(L2ARC_P_ZFETCH_MAX_DISTANCE));
	for (id = L2ARC_P_DEV_FIRST; id <= L2ARC_P_DEV_LAST; id++)
		DMEMIT(" %s %llu", l2arc_param_name(id),
		       l2arc_dev_param(&lc->tun, id));
	DMEMIT(" %s", l2arc_health(lc));
	*szp = sz;
}

/*
 * INFO: see Documentation/dm-l2arc.rst, "Status".
 * TABLE: <origin maj:min> <cache maj:min|-> <block_size> [<features>]
 */
static void l2arc_status(struct dm_target *ti, status_type_t type,
			 unsigned int status_flags, char *result,
			 unsigned int maxlen)
{
	struct l2arc_c *lc = ti->private;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		l2arc_emit_info(lc, result, maxlen, &sz);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %s %u", lc->origin->name,
		       lc->cache ? lc->cache->name : "-", lc->block_sectors);
		if (lc->table.features)
			DMEMIT(" %s", lc->table.features);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",origin_device=%s,cache_device=%s,block_size=%u,arc_max=%llu;",
		       lc->origin->name, lc->cache ? lc->cache->name : "-",
		       lc->block_sectors,
		       lc->c_max << (lc->block_shift + SECTOR_SHIFT));
		break;
	}
}

/* "<tunable> <value>" or "<tunable> default": a device's own value. */
static int l2arc_message_tunable(struct l2arc_c *lc, const char *name,
				 const char *value)
{
	int id = l2arc_dev_param_lookup(name);
	unsigned int i;
	u64 v;

	if (id < 0)
		return -ENOENT;
	i = id - L2ARC_P_DEV_FIRST;
	if (!strcmp(value, "default")) {
		clear_bit(i, &lc->tun.set);
		return 0;
	}
	if (l2arc_param_parse(id, value, &v)) {
		DMERR_LIMIT("%s: invalid value for %s: %s", lc->name, name,
			    value);
		return -EINVAL;
	}
	WRITE_ONCE(lc->tun.val[i], v);
	set_bit(i, &lc->tun.set);
	return 0;
}

/* verify walks at most this many headers and slots (one lock hold). */
#define L2ARC_VERIFY_MAX	BIT(22)

/* Report one disagreement found by verify. */
static void l2arc_verify_bad(struct l2arc_c *lc, unsigned int *bad,
			     const char *what, u64 counted, u64 counter)
{
	if ((*bad)++ < 8)
		DMERR("%s: verify: %s: counted %llu, counter says %llu",
		      lc->name, what, counted, counter);
}

/* Check one header's fields against its list; arc.lock held. */
static void l2arc_verify_hdr(struct l2arc_c *lc, struct arc_hdr *hdr,
			     enum arc_list_id id, u64 *l2, u64 *cls,
			     unsigned int *bad)
{
	bool resident = id == ARC_T1 || id == ARC_T2;

	if (hdr->state - ARC_MRU != id)
		l2arc_verify_bad(lc, bad, "header state", hdr->state, id);
	if (resident != !!hdr->data)
		l2arc_verify_bad(lc, bad, "data on a resident header (only)",
				 !!hdr->data, resident);
	if (!resident && (hdr->flags & ARC_F_IO_IN_PROGRESS))
		l2arc_verify_bad(lc, bad, "fill on a non-resident header", 1, 0);
	if (id == ARC_LIST_L2ONLY && !(hdr->flags & ARC_F_L2))
		l2arc_verify_bad(lc, bad, "L2-only header without L2 copy", 0, 1);
	if (!(hdr->flags & ARC_F_L2))
		return;
	(*l2)++;
	if (hdr->flags & L2ARC_F_CLASS_PREFETCH)
		cls[L2ARC_CLASS_PREFETCH]++;
	else if (hdr->flags & L2ARC_F_CLASS_MFU)
		cls[L2ARC_CLASS_MFU]++;
	else
		cls[L2ARC_CLASS_MRU]++;
	if (hdr->l2_slot >= lc->l2_nr_slots || lc->l2_rmap[hdr->l2_slot] != hdr)
		l2arc_verify_bad(lc, bad, "L2 copy not in the slot map",
				 hdr->l2_slot, lc->l2_nr_slots);
}

/*
 * "verify": count the directory's lists, the L2 copies and the slot map
 * and compare them with the counters behind arcstats and status.  Holds
 * arc.lock for the whole walk, so refused above L2ARC_VERIFY_MAX entries.
 * Return: 1 with "<counts>" in @result, -EIO after logging each
 * disagreement (at most 8), -E2BIG for a device too large to walk.
 */
static int l2arc_verify(struct l2arc_c *lc, char *result, unsigned int maxlen)
{
	u64 n[ARC_NR_LISTS] = {}, cls[L2ARC_NR_CLASSES] = {}, l2 = 0, map = 0;
	struct arc *arc = &lc->arc;
	unsigned int sz = 0, bad = 0, id, i;
	struct arc_hdr *hdr;
	u64 s;

	if ((u64)arc_nr_hashed(arc) + lc->l2_nr_slots > L2ARC_VERIFY_MAX) {
		DMERR_LIMIT("%s: verify: more than %lu headers and slots",
			    lc->name, L2ARC_VERIFY_MAX);
		return -E2BIG;
	}
	spin_lock_bh(&arc->lock);
	for (id = ARC_T1; id <= ARC_LIST_L2ONLY; id++) {
		list_for_each_entry(hdr, &arc->lists[id], list) {
			n[id]++;
			l2arc_verify_hdr(lc, hdr, id, &l2, cls, &bad);
		}
		if (n[id] != arc_list_size(arc, id))
			l2arc_verify_bad(lc, &bad, "list length", n[id],
					 arc_list_size(arc, id));
	}
	for (s = 0; s < lc->l2_nr_slots; s++) {
		hdr = lc->l2_rmap[s];
		if (hdr && (hdr->flags & ARC_F_L2) && hdr->l2_slot == s)
			map++;
	}
	if (n[ARC_T1] + n[ARC_T2] + n[ARC_B1] + n[ARC_B2] +
	    n[ARC_LIST_L2ONLY] != arc_nr_hashed(arc))
		l2arc_verify_bad(lc, &bad, "headers hashed",
				 n[ARC_T1] + n[ARC_T2] + n[ARC_B1] + n[ARC_B2] +
				 n[ARC_LIST_L2ONLY], arc_nr_hashed(arc));
	if (l2 != lc->l2_blocks)
		l2arc_verify_bad(lc, &bad, "headers with an L2 copy", l2,
				 lc->l2_blocks);
	if (map != lc->l2_blocks)
		l2arc_verify_bad(lc, &bad, "slots holding a copy", map,
				 lc->l2_blocks);
	for (i = 0; i < L2ARC_NR_CLASSES; i++)
		if (cls[i] != lc->l2_class_blocks[i])
			l2arc_verify_bad(lc, &bad, "L2 copies of a class",
					 cls[i], lc->l2_class_blocks[i]);
	spin_unlock_bh(&arc->lock);

	if (bad)
		return -EIO;
	DMEMIT("t1 %llu t2 %llu b1 %llu b2 %llu l2only %llu l2 %llu",
	       n[ARC_T1], n[ARC_T2], n[ARC_B1], n[ARC_B2], n[ARC_LIST_L2ONLY],
	       l2);
	return 1;
}

/*
 * Messages:
 *   verify                     recount the directory and the slot map and
 *                              compare with the counters (prints the
 *                              counts; fails with EIO on a disagreement)
 *   clear_stats                zero the counters (not the cache), and the
 *                              error count towards l2arc_max_errors
 *   l2arc_feed                 run one feed now; return when it is written
 *   <tunable> <value|default>  set or drop this device's own value
 */
static int l2arc_message(struct dm_target *ti, unsigned int argc,
			 char **argv, char *result, unsigned int maxlen)
{
	struct l2arc_c *lc = ti->private;
	u64 budget;
	int r;

	if (argc == 1 && !strcmp(argv[0], "clear_stats")) {
		spin_lock_bh(&lc->arc.lock);
		memset(lc->stats, 0, sizeof(lc->stats));
		lc->deleted_base = arc_evicted(&lc->arc);
		lc->l2_errors = 0;	/* counts towards l2arc_max_errors anew */
		spin_unlock_bh(&lc->arc.lock);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "verify"))
		return l2arc_verify(lc, result, maxlen);
	if (argc == 1 && !strcmp(argv[0], "l2arc_feed")) {
		if (!lc->cache) {
			DMERR_LIMIT("%s: l2arc_feed: no cache device", lc->name);
			return -EINVAL;
		}
		if (!READ_ONCE(lc->feed_active)) {
			DMERR_LIMIT("%s: l2arc_feed: device is suspended",
				    lc->name);
			return -EBUSY;
		}
		l2arc_feed_once(lc, &budget);
		return 0;
	}
	if (argc == 2) {
		r = l2arc_message_tunable(lc, argv[0], argv[1]);
		if (r != -ENOENT)
			return r;
	}
	DMERR_LIMIT("%s: unrecognised message %s", lc->name,
		    argc ? argv[0] : "(none)");
	return -EINVAL;
}

/*
 * Only the origin: it holds the truth, so its limits (and flush, FUA and
 * discard support) are the device's.  The cache device is read and written
 * by the target alone, in whole blocks.
 */
static int l2arc_iterate_devices(struct dm_target *ti,
				 iterate_devices_callout_fn fn, void *data)
{
	struct l2arc_c *lc = ti->private;

	return fn(ti, lc->origin, 0, ti->len, data);
}

/* Prefer I/O in whole blocks: the ARC caches nothing smaller. */
static void l2arc_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct l2arc_c *lc = ti->private;
	unsigned int block_bytes = lc->block_sectors << SECTOR_SHIFT;

	if (limits->io_opt < block_bytes || limits->io_opt % block_bytes)
		limits->io_opt = block_bytes;
}

static struct target_type l2arc_target = {
	.name = "l2arc",
	.version = {L2ARC_VERSION_MAJOR, L2ARC_VERSION_MINOR,
		    L2ARC_VERSION_PATCH},
	.module = THIS_MODULE,
	.ctr = l2arc_ctr,
	.dtr = l2arc_dtr,
	.map = l2arc_map,
	.end_io = l2arc_end_io,
	.postsuspend = l2arc_postsuspend,
	.resume = l2arc_resume,
	.status = l2arc_status,
	.message = l2arc_message,
	.iterate_devices = l2arc_iterate_devices,
	.io_hints = l2arc_io_hints,
};

static int __init dm_l2arc_init(void)
{
	int r;

	r = arc_module_init();
	if (r)
		return r;
	r = l2arc_stats_init();
	if (r)
		goto bad_stats;
	r = dm_register_target(&l2arc_target);
	if (r) {
		DMERR("register failed %d", r);
		goto bad_register;
	}
	return 0;

bad_register:
	l2arc_stats_exit();
bad_stats:
	arc_module_exit();
	return r;
}

static void __exit dm_l2arc_exit(void)
{
	dm_unregister_target(&l2arc_target);
	l2arc_stats_exit();
	arc_module_exit();
}

module_init(dm_l2arc_init);
module_exit(dm_l2arc_exit);

MODULE_DESCRIPTION(DM_NAME " l2arc target: ZFS-style ARC and L2ARC cache");
MODULE_AUTHOR("The dm-l2arc developers");
MODULE_LICENSE("GPL");

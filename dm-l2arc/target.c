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
 *    data is copied out, no device I/O), joins the origin read already in
 *    flight for the block (an iohit), or starts one (a miss): the whole
 *    block is read from the origin into a new ARC buffer (a "fill"), the
 *    directory having taken the access in mapping order, and the reader
 *    gets its part when the fill completes;
 *  - a write, discard or write-zeroes goes through to the origin; the
 *    cached copies of its blocks are dropped before it is issued, and a
 *    fill that overlapped it is not installed (struct l2arc_wbucket);
 *  - anything else (flushes) is remapped to the origin unchanged.
 *
 * Fill completions run on the device's workqueue, because the directory's
 * lock is BH-safe only (arc.h) and bio completions may run in hard IRQ
 * context.  Lock order: arc.lock is the only lock of the I/O path; the
 * write buckets are lock-free atomics.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
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
 * @first: first block of a tracked write
 * @nr: number of blocks of a tracked write; 0 for any other bio
 */
struct l2arc_io {
	u64 first;
	u64 nr;
};

static struct kmem_cache *l2arc_fill_cache;

/* ---- Write tracking ---- */

static struct l2arc_wbucket *l2arc_wb(struct l2arc_c *lc, u64 block)
{
	return &lc->wb[block & (L2ARC_WBUCKETS - 1)];
}

/* A write to blocks [first, first + nr) is about to be issued. */
static void l2arc_wb_enter(struct l2arc_c *lc, u64 first, u64 nr)
{
	u64 i, n = min_t(u64, nr, L2ARC_WBUCKETS);

	for (i = 0; i < n; i++) {
		struct l2arc_wbucket *wb = l2arc_wb(lc, first + i);

		atomic_inc(&wb->inflight);
		atomic_inc_return(&wb->gen);	/* full barrier */
	}
}

/* The write has completed.  May run in hard IRQ context. */
static void l2arc_wb_exit(struct l2arc_c *lc, u64 first, u64 nr)
{
	u64 i, n = min_t(u64, nr, L2ARC_WBUCKETS);

	for (i = 0; i < n; i++) {
		struct l2arc_wbucket *wb = l2arc_wb(lc, first + i);

		atomic_inc_return(&wb->gen);	/* full barrier */
		atomic_dec(&wb->inflight);
	}
}

/* May a fill of @block issued at bucket generation @wgen install? */
static bool l2arc_wb_clean(struct l2arc_c *lc, u64 block, int wgen)
{
	struct l2arc_wbucket *wb = l2arc_wb(lc, block);

	return !atomic_read(&wb->inflight) && atomic_read(&wb->gen) == wgen;
}

/* ---- Buffers and fills ---- */

/* arc_ops.evict_data: @hdr leaves T1/T2; arc.lock held. */
static void l2arc_evict_data(struct arc *arc, struct arc_hdr *hdr, void *data)
{
	struct l2arc_c *lc = arc->private;
	u64 bytes = (u64)lc->block_sectors << SECTOR_SHIFT;

	if (hdr->flags & ARC_F_IO_IN_PROGRESS) {
		/* data is a fill: it keeps its page and will not install */
		struct l2arc_fill *f = data;

		hdr->flags &= ~ARC_F_IO_IN_PROGRESS;
		if (hdr->flags & ARC_F_L2)
			hdr->l2_cksum = f->l2_cksum;
		return;
	}
	/* hdr->data is NULL now: its place keeps the L2 copy's checksum */
	if (hdr->flags & ARC_F_L2) {
		hdr->l2_cksum = page_private((struct page *)data);
		lc->stats[L2ARC_STAT_EVICT_L2_CACHED] += bytes;
	} else if (lc->cache && !((hdr->flags & ARC_F_PREFETCH) &&
				  l2arc_dev_param(&lc->tun,
						  L2ARC_P_NOPREFETCH))) {
		lc->stats[L2ARC_STAT_EVICT_L2_ELIGIBLE] += bytes;
	} else {
		lc->stats[L2ARC_STAT_EVICT_L2_INELIGIBLE] += bytes;
	}
	put_page(data);
}

static const struct arc_ops l2arc_arc_ops = {
	.evict_data = l2arc_evict_data,
	.l2_drop = l2arc_l2_drop,
};

static void l2arc_fill_free(struct l2arc_fill *f)
{
	if (f->page)
		__free_pages(f->page, f->lc->block_order);
	kmem_cache_free(l2arc_fill_cache, f);
}

/* Allocate a fill and its buffer without sleeping; NULL when short. */
static struct l2arc_fill *l2arc_fill_alloc(struct l2arc_c *lc)
{
	gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;
	struct l2arc_fill *f;

	f = kmem_cache_zalloc(l2arc_fill_cache, gfp);
	if (!f)
		return NULL;
	f->lc = lc;
	f->page = alloc_pages(gfp | __GFP_COMP, lc->block_order);
	if (!f->page) {
		l2arc_fill_free(f);
		return NULL;
	}
	return f;
}

/* Copy the part of a block that @bio wants out of @page. */
static void l2arc_copy_to_bio(struct l2arc_c *lc, struct bio *bio,
			      struct page *page)
{
	sector_t off = dm_target_offset(lc->ti, bio->bi_iter.bi_sector) &
		       (lc->block_sectors - 1);
	char *src = page_address(page) + (off << SECTOR_SHIFT);
	struct bvec_iter iter;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, iter) {
		memcpy_to_bvec(&bv, src);
		src += bv.bv_len;
	}
}

static void l2arc_fill_submit(struct l2arc_c *lc, struct l2arc_fill *f);

/*
 * A read of a cache device copy failed its checksum or its I/O: drop the
 * copy, count it, and read the block from the origin instead.  The read
 * never fails because of the cache device.
 */
static void l2arc_fill_retry_origin(struct l2arc_c *lc, struct l2arc_fill *f)
{
	struct arc_hdr *hdr = f->hdr;

	spin_lock_bh(&lc->arc.lock);
	if (!f->l2_clash) {
		lc->stats[f->status ? L2ARC_STAT_L2_IO_ERROR :
				      L2ARC_STAT_L2_CKSUM_BAD]++;
		l2arc_l2_error(lc);
	}
	if ((hdr->flags & ARC_F_L2) && hdr->l2_slot == f->l2_slot &&
	    hdr->state != ARC_DEAD)
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
	struct bio *bio;

	if (f->from_l2 && (f->status || l2arc_cksum(lc, f->page) != f->l2_cksum)) {
		l2arc_fill_retry_origin(lc, f);
		return;
	}

	spin_lock_bh(&lc->arc.lock);
	if (f->from_l2)
		lc->stats[L2ARC_STAT_L2_READ_BYTES] +=
			(u64)lc->block_sectors << SECTOR_SHIFT;
	if (hdr->data == f && (hdr->flags & ARC_F_IO_IN_PROGRESS)) {
		if (!f->status && l2arc_wb_clean(lc, f->oblock, f->wgen)) {
			hdr->flags &= ~ARC_F_IO_IN_PROGRESS;
			get_page(f->page);
			if (hdr->flags & ARC_F_L2)
				set_page_private(f->page, f->l2_cksum);
			arc_hdr_set_data(&lc->arc, hdr, f->page);
		} else {
			lc->stats[f->status ? L2ARC_STAT_ORIGIN_READ_ERRORS :
					      L2ARC_STAT_FILL_DISCARDED]++;
			arc_invalidate(&lc->arc, hdr);
		}
	}
	arc_hdr_unpin(&lc->arc, hdr);
	waiters = f->waiters;
	bio_list_init(&f->waiters);
	spin_unlock_bh(&lc->arc.lock);

	while ((bio = bio_list_pop(&waiters))) {
		if (f->status)
			bio->bi_status = f->status;
		else
			l2arc_copy_to_bio(lc, bio, f->page);
		bio_endio(bio);
	}

	bio_uninit(&f->bio);
	put_page(f->page);
	f->page = NULL;
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
 * data, reading from the cache device when it holds the block; arc.lock
 * held.
 */
static void l2arc_fill_attach(struct l2arc_c *lc, struct l2arc_fill *f,
			      struct arc_hdr *hdr)
{
	/* the copy's checksum shares its place with hdr->data: read it now */
	if (hdr->flags & ARC_F_L2) {
		f->l2_slot = hdr->l2_slot;
		f->l2_cksum = hdr->l2_cksum;
		f->from_l2 = !READ_ONCE(lc->l2_failed);
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
	f->wgen = atomic_read(&l2arc_wb(lc, f->oblock)->gen);
	bio_list_init(&f->waiters);
	hdr->flags |= ARC_F_IO_IN_PROGRESS;
	arc_hdr_set_data(&lc->arc, hdr, f);
	arc_hdr_pin(&lc->arc, hdr);
	atomic_inc(&lc->fills_inflight);
}

/* Issue the read of an attached fill; process context. */
static void l2arc_fill_submit(struct l2arc_c *lc, struct l2arc_fill *f)
{
	unsigned int bytes = lc->block_sectors << SECTOR_SHIFT;

	INIT_WORK(&f->work, l2arc_fill_done);
	if (f->from_l2) {
		bio_init(&f->bio, lc->cache->bdev, &f->bvec, 1, REQ_OP_READ);
		f->bio.bi_iter.bi_sector = (sector_t)f->l2_slot << lc->block_shift;
	} else {
		bio_init(&f->bio, lc->origin->bdev, &f->bvec, 1, REQ_OP_READ);
		f->bio.bi_iter.bi_sector = f->oblock << lc->block_shift;
	}
	__bio_add_page(&f->bio, f->page, bytes, 0);
	f->bio.bi_end_io = l2arc_fill_endio;
	f->bio.bi_private = f;
	submit_bio_noacct(&f->bio);
}

/* ---- Reads ---- */

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
			lc->stats[L2ARC_STAT_MEMORY_THROTTLE]++;
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
	struct page *page = NULL;
	bool was_prefetch;
	int r;

	hdr = l2arc_lookup_prepare(lc, block, &f, &spare);
	if (IS_ERR(hdr)) {
		spin_unlock_bh(&lc->arc.lock);
		goto uncached;
	}
	was_prefetch = hdr && (hdr->flags & ARC_F_PREFETCH);
	r = arc_access(&lc->arc, to_oblock(block), 0, &spare, &hdr);
	if (r < 0) {
		lc->stats[L2ARC_STAT_MEMORY_THROTTLE]++;
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
			page = hdr->data;
			get_page(page);
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
	if (page) {
		l2arc_copy_to_bio(lc, bio, page);
		put_page(page);
		bio_endio(bio);
	}
	if (started)
		l2arc_fill_submit(lc, started);
	l2arc_zfetch(lc, block);
	return DM_MAPIO_SUBMITTED;

uncached:
	/* No memory for a buffer (counted): read around the ARC. */
	if (f)
		l2arc_fill_free(f);
	if (spare)
		arc_hdr_free(spare);
	return DM_MAPIO_REMAPPED;
}

/* ---- Writes ---- */

/*
 * Drop the cached copies (ARC, L2, a feed write in flight) of one block;
 * arc.lock held.  Returns 1 when it was resident.
 */
static unsigned int l2arc_invalidate_hdr(struct arc *arc, struct arc_hdr *hdr)
{
	unsigned int resident = hdr->state == ARC_MRU || hdr->state == ARC_MFU;

	hdr->flags &= ~L2ARC_F_L2_WRITING;
	arc_invalidate(arc, hdr);
	return resident;
}

/* Drop every cached copy of blocks [first, first + nr); arc.lock held. */
static void l2arc_invalidate_range(struct l2arc_c *lc, u64 first, u64 nr)
{
	struct arc *arc = &lc->arc;
	struct arc_hdr *hdr, *tmp;
	u64 b, dropped = 0;
	int l;

	if (nr <= arc_nr_hashed(arc)) {
		for (b = first; b < first + nr; b++) {
			hdr = arc_lookup(arc, to_oblock(b));
			if (hdr)
				dropped += l2arc_invalidate_hdr(arc, hdr);
		}
	} else {
		/* a range larger than the directory: walk its lists */
		for (l = ARC_T1; l <= ARC_LIST_L2ONLY; l++) {
			list_for_each_entry_safe(hdr, tmp, &arc->lists[l],
						 list) {
				b = from_oblock(hdr->oblock);
				if (b >= first && b - first < nr)
					dropped += l2arc_invalidate_hdr(arc,
									hdr);
			}
		}
	}
	lc->stats[L2ARC_STAT_WRITES] += nr;
	lc->stats[L2ARC_STAT_WRITE_INVALIDATES] += dropped;
}

/* A write, discard or write-zeroes is about to go to the origin. */
static void l2arc_write_begin(struct l2arc_c *lc, struct bio *bio,
			      struct l2arc_io *io)
{
	sector_t start = dm_target_offset(lc->ti, bio->bi_iter.bi_sector);
	sector_t end = start + bio_sectors(bio) - 1;

	io->first = start >> lc->block_shift;
	io->nr = (end >> lc->block_shift) - io->first + 1;
	l2arc_wb_enter(lc, io->first, io->nr);

	spin_lock_bh(&lc->arc.lock);
	l2arc_invalidate_range(lc, io->first, io->nr);
	spin_unlock_bh(&lc->arc.lock);
}

/* ---- The map function ---- */

static void l2arc_remap(struct l2arc_c *lc, struct bio *bio)
{
	bio_set_dev(bio, lc->origin->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = dm_target_offset(lc->ti,
							  bio->bi_iter.bi_sector);
}

static int l2arc_map(struct dm_target *ti, struct bio *bio)
{
	struct l2arc_c *lc = ti->private;
	struct l2arc_io *io = dm_per_bio_data(bio, sizeof(*io));
	int r;

	io->nr = 0;
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

	if (io->nr) {
		l2arc_wb_exit(lc, io->first, io->nr);
		io->nr = 0;
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
		return (resident - lc->c_min) << lc->block_order;
	/* the ARC is at arc_min: L2-only headers may go, a page's worth each */
	return arc_list_size(&lc->arc, ARC_LIST_L2ONLY) /
	       (PAGE_SIZE / sizeof(struct arc_hdr));
}

/*
 * With the ARC at arc_min, drop the oldest L2-only headers (their cache
 * device copies become unreachable), a page's worth per object asked for,
 * so that L2 metadata never drives the machine out of memory; arc.lock
 * held.  Returns the objects (pages) freed.
 */
static unsigned long l2arc_shrink_l2only(struct l2arc_c *lc,
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
	}
	lc->stats[L2ARC_STAT_L2_HDR_DROPPED] += n;
	return DIV_ROUND_UP(n, per_page);
}

/*
 * Give memory back: c shrinks by the blocks asked for, never below c_min,
 * and the directory trims its lists to the paper's invariants for the new
 * c.  Returns pages freed.
 */
static unsigned long l2arc_shrink_scan(struct shrinker *s,
				       struct shrink_control *sc)
{
	struct l2arc_c *lc = l2arc_shrinker_private(s);
	u64 want = max_t(u64, 1, sc->nr_to_scan >> lc->block_order);
	u64 before, after, c;
	unsigned long freed;

	spin_lock_bh(&lc->arc.lock);
	before = arc_list_size(&lc->arc, ARC_T1) +
		 arc_list_size(&lc->arc, ARC_T2);
	c = min(arc_c(&lc->arc), before);
	c = c > lc->c_min + want ? c - want : lc->c_min;
	if (c < arc_c(&lc->arc))
		arc_set_c(&lc->arc, c);
	after = arc_list_size(&lc->arc, ARC_T1) +
		arc_list_size(&lc->arc, ARC_T2);
	lc->stats[L2ARC_STAT_SHRINKS] += before - after;
	lc->last_shrink = jiffies;
	freed = (before - after) << lc->block_order;
	if (!freed && arc_c(&lc->arc) <= lc->c_min)
		freed = l2arc_shrink_l2only(lc, sc->nr_to_scan);
	spin_unlock_bh(&lc->arc.lock);

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
		r = dm_get_device(ti, t->cache_path,
				  dm_table_get_mode(ti->table), &lc->cache);
		if (r) {
			ti->error = "Cache device lookup failed";
			return r;
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
	strscpy(lc->name, dm_disk(md)->disk_name, sizeof(lc->name));
	lc->crtime = ktime_get_ns();

	r = l2arc_parse_table(&lc->table, argc, argv, &ti->error);
	if (r)
		goto bad;
	lc->block_sectors = lc->table.block_sectors;
	lc->block_shift = ilog2(lc->block_sectors);
	lc->block_order = lc->block_shift - (PAGE_SHIFT - SECTOR_SHIFT);
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

/* The feed stops before the device suspends. */
static void l2arc_presuspend(struct dm_target *ti)
{
	l2arc_feed_stop(ti->private);
}

/*
 * Read-aheads have no waiting bio, so device-mapper does not wait for
 * them: wait here, so that a suspended device has no I/O in flight.
 */
static void l2arc_postsuspend(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;

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
	DMEMIT(" %s", READ_ONCE(lc->l2_failed) ? "degraded" : "ok");
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

/*
 * Messages:
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
	.presuspend = l2arc_presuspend,
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

	l2arc_fill_cache = KMEM_CACHE(l2arc_fill, 0);
	if (!l2arc_fill_cache)
		return -ENOMEM;
	r = arc_module_init();
	if (r)
		goto bad_arc;
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
bad_arc:
	kmem_cache_destroy(l2arc_fill_cache);
	return r;
}

static void __exit dm_l2arc_exit(void)
{
	dm_unregister_target(&l2arc_target);
	l2arc_stats_exit();
	arc_module_exit();
	kmem_cache_destroy(l2arc_fill_cache);
}

module_init(dm_l2arc_init);
module_exit(dm_l2arc_exit);

MODULE_DESCRIPTION(DM_NAME " l2arc target: ZFS-style ARC and L2ARC cache");
MODULE_AUTHOR("The dm-l2arc developers");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the bio path -- map, reads in runs, fills, read-ahead
 * (zfetch.c decides its range), writes.
 *
 * Theory of operation
 * ===================
 *
 * A bio is taken whole, whatever its size (device-mapper cuts it only
 * where the origin's limits say, and l2arc_map_read() takes at most
 * L2ARC_MAP_MAX_BLOCKS blocks of a read, or L2ARC_MAP_SHORT beyond those
 * served without the lock when memory for more is short, leaving the
 * rest to device-mapper's dm_accept_partial_bio()).
 *
 * Reads.  A read's blocks that are resident with their data, from its
 * first block on, take no lock: l2arc_map_hits() finds them under RCU,
 * copies from their buffers and logs the ARC's accesses (hitlog.c).
 * From the first block that is not, the read makes one pass over the
 * rest of its blocks under one hold of arc.lock, which takes each block's
 * access in the ARC, in mapping order, and sorts the block:
 *  - hit: resident with its data; the bio's part is copied out after the
 *    lock is dropped (the buffer referenced meanwhile);
 *  - iohit: its fill is in flight; the bio waits for it (struct
 *    l2arc_wait, one per block waited for);
 *  - miss: a fill is started: a new ARC buffer (order-0 pages, buf.c),
 *    read from the cache device when it holds a valid copy that may be
 *    read, else from the origin.  Consecutive misses that read the origin
 *    become one run (struct l2arc_run: one bio for up to
 *    L2ARC_RUN_MAX_BLOCKS blocks, straight into the new buffers' pages);
 *    consecutive L2 hits whose slots are consecutive become one run on
 *    the cache device.  An origin run reads over a few resident blocks
 *    (up to L2ARC_RUN_BRIDGE_BYTES) between misses rather than end, into
 *    buffers whose data is thrown away (fill_run_bridged).  Runs of one
 *    bio are issued under one plug, so that the block layer merges them
 *    into requests as large as the device takes.
 * The bio completes when its last part does, with the first error of any.
 * A block of a bio that a write in flight covers is not cached: the bio,
 * from its first block not served without the lock, goes around the ARC
 * to the origin (reads_around_writes counts those blocks), see "Never
 * stale" in target.c.  When memory is short the rest of the bio from the
 * block that could not get it goes around the ARC (memory_throttle_count).
 *
 * Completion.  A run's completion verifies the crc32c of each block it
 * read from the cache device, installs the buffers in the ARC and copies
 * each waiting bio's part, in the context the bio completes in when that
 * context may take arc.lock (process or softirq context, as dm-verity
 * verifies in a tasklet when it may): no workqueue hop on the common
 * path.  From hard interrupt context, and for any run with an error or a
 * checksum mismatch, it runs on the device's workqueue (one hop per run,
 * never per block; unbound, as dm-verity's, so that runs completing on
 * one CPU are checked on several): a bad L2 block is read again from the
 * origin, and when an origin read fails each waiting bio reads its own
 * sectors of the block from the origin (a read fails only where the
 * origin fails it).
 *
 * L2 hits are installed in the ARC like origin reads (as OpenZFS does):
 * the access has already been taken by the ARC's rules (a ghost hit
 * adapts p), and the block is then resident for the next reader.
 *
 * Writes, discards and write-zeroes are taken whole: one entry in the
 * tree of writes in flight, one invalidation of their range (write.c),
 * one bio to the origin in the shape the writer gave it (FUA and PREFLUSH
 * kept).
 */
#define DM_MSG_PREFIX "l2arc io"

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "dm-l2arc.h"
#include "whatif.h"

/* After a shrink, c does not grow for this long (as ZFS's arc_grow_retry). */
#define L2ARC_GROW_RETRY	(5 * HZ)

/*
 * A read map takes at most this many blocks (the rest of a larger bio is
 * mapped again by device-mapper), so that one hold of arc.lock stays
 * short.
 */
#define L2ARC_MAP_MAX_BLOCKS	256

/*
 * A map takes at most this many blocks after those it served without
 * the lock when the array of the other blocks' waits (56 bytes each on
 * x86-64: 14 KiB for 256 blocks, an order-2 allocation) cannot be had:
 * as many as fit in one page (73).
 */
#define L2ARC_MAP_SHORT		(PAGE_SIZE / sizeof(struct l2arc_wait))

/*
 * Blocks of one run: its bio holds their pages, at most BIO_MAX_VECS (1
 * MiB); when memory for that many fills is short, a run of
 * L2ARC_RUN_SHORT blocks.
 */
#define L2ARC_RUN_MAX_BLOCKS	BIO_MAX_VECS
#define L2ARC_RUN_SHORT		32

/*
 * An origin run reads over at most this many bytes of resident blocks
 * between two misses rather than end there: a disk pays a seek and a
 * request for a second run (4 ms, 600 KiB at 150 MB/s) and reads 256 KiB
 * in under 2 ms.  Blocks larger than this are never read over.
 */
#define L2ARC_RUN_BRIDGE_BYTES	(256 * 1024)

/* ---- ARC buffers ---- */

/*
 * May the feed write @hdr, leaving T1/T2 without a copy on @lc's cache
 * device: not a prefetch block with l2arc_noprefetch, not a T1 block with
 * l2arc_mfuonly (its state still says where it was).
 */
static bool l2arc_evict_eligible(struct l2arc_c *lc, const struct arc_hdr *hdr)
{
	if (!lc->cache)
		return false;
	if ((hdr->flags & ARC_F_PREFETCH) &&
	    l2arc_dev_param(&lc->tun, L2ARC_P_NOPREFETCH))
		return false;
	return !(hdr->state == ARC_MRU &&
		 l2arc_dev_param(&lc->tun, L2ARC_P_MFUONLY));
}

/*
 * arc_ops.evict_data: @hdr leaves T1/T2; arc.lock held.  A block evicted
 * for room that the feed could write goes to the feed's hand-off queue
 * (l2arc_handoff()) instead of being freed.
 */
static void l2arc_evict_data(struct arc *arc, struct arc_hdr *hdr, void *data,
			     enum arc_evict_reason why)
{
	struct l2arc_c *lc;
	u64 bytes;

	lockdep_assert_held(&arc->lock);
	if (hdr->flags & ARC_F_IO_IN_PROGRESS) {
		/* data is a fill: it keeps its buffer and will not install */
		hdr->flags &= ~ARC_F_IO_IN_PROGRESS;
		return;
	}
	/* a pool's ARC holds several devices' buffers */
	lc = ((struct l2arc_buf *)data)->owner;
	bytes = l2arc_block_bytes(lc);
	lc->arc_blocks--;
	if (hdr->flags & ARC_F_PREFETCH)
		l2arc_stat_inc(lc, L2ARC_STAT_PREFETCH_EVICTED_UNUSED);
	if (hdr->flags & ARC_F_L2) {
		l2arc_stat_add(lc, L2ARC_STAT_EVICT_L2_CACHED, bytes);
	} else if (l2arc_evict_eligible(lc, hdr)) {
		l2arc_stat_add(lc, L2ARC_STAT_EVICT_L2_ELIGIBLE, bytes);
		if (why == ARC_EVICT_ROOM && l2arc_handoff(lc, hdr, data))
			return;
	} else {
		l2arc_stat_add(lc, L2ARC_STAT_EVICT_L2_INELIGIBLE, bytes);
	}
	l2arc_buf_put(lc, data);
}

const struct arc_ops l2arc_arc_ops = {
	.evict_data = l2arc_evict_data,
	.l2_drop = l2arc_l2_drop,
	.l2_compact = l2arc_l2_compact,
	.l2_claim = l2arc_l2_claim,
};

/*
 * arc_ops.evict_ok of a pool's ARC: a member at its floor (its arc_min,
 * &l2arc_c.c_min) keeps its blocks; arc.lock held.
 */
static bool l2arc_pool_evict_ok(struct arc *arc, const struct arc_hdr *hdr)
{
	struct l2arc_pool *pool = container_of(arc, struct l2arc_pool, arc);
	struct l2arc_c *lc;

	if (!pool->floor_sum)
		return true;
	lc = pool->by_id[l2arc_key_id(hdr->oblock)];
	return !lc || !lc->c_min || lc->arc_blocks > lc->c_min;
}

/* A pool's ARC: its members have no cache device (pool.c). */
const struct arc_ops l2arc_pool_arc_ops = {
	.evict_data = l2arc_evict_data,
	.evict_ok = l2arc_pool_evict_ok,
};

/* ---- Per-bio state and completion of reads ---- */

static struct bio *l2arc_io_bio(struct l2arc_io *io)
{
	return dm_bio_from_per_bio_data(io, sizeof(*io));
}

/* Note the first error of a read's parts; any context. */
static void l2arc_io_error(struct l2arc_io *io, blk_status_t status)
{
	cmpxchg(&io->status, BLK_STS_OK, status);
}

/* One part of a read is done; the last completes the bio.  Any context. */
static void l2arc_io_put(struct l2arc_io *io)
{
	struct bio *bio;

	if (!atomic_dec_and_test(&io->pending))
		return;
	bio = l2arc_io_bio(io);
	if (io->status)
		bio->bi_status = io->status;
	if (io->waits != &io->wait1)
		kfree(io->waits);
	io->waits = NULL;
	bio_endio(bio);
}

static void l2arc_around_endio(struct bio *clone)
{
	struct l2arc_io *io = clone->bi_private;

	if (clone->bi_status)
		l2arc_io_error(io, clone->bi_status);
	bio_put(clone);
	l2arc_io_put(io);
}

/*
 * Read sectors [@off, @off + @len) of the read @io (relative to its start)
 * from the origin, around the ARC, into the bio's own pages; a part of
 * @io.  @gfp: %GFP_NOIO where it may sleep (the bio set's reserve then
 * guarantees progress), else %GFP_NOWAIT (returns false when short).
 */
static bool l2arc_read_around(struct l2arc_c *lc, struct l2arc_io *io,
			      sector_t off, sector_t len, gfp_t gfp)
{
	struct bio *bio = l2arc_io_bio(io), *clone;

	clone = bio_alloc_clone(lc->origin->bdev, bio, gfp, &lc->iop.bs);
	if (!clone)
		return false;
	bio_trim(clone, off, len);
	clone->bi_iter.bi_sector = dm_target_offset(lc->ti,
						    bio->bi_iter.bi_sector) + off;
	clone->bi_end_io = l2arc_around_endio;
	clone->bi_private = io;
	atomic_inc(&io->pending);
	submit_bio_noacct(clone);
	return true;
}

/*
 * The sectors of @block that the read @io wants, [*s, *e), relative to the
 * target; also returns the read's first sector.
 */
static sector_t l2arc_io_part(struct l2arc_c *lc, struct l2arc_io *io,
			      u64 block, sector_t *s, sector_t *e)
{
	struct bio *bio = l2arc_io_bio(io);
	sector_t bstart = dm_target_offset(lc->ti, bio->bi_iter.bi_sector);
	sector_t kstart = block << lc->block_shift;

	*s = max(bstart, kstart);
	*e = min(bstart + bio_sectors(bio), kstart + lc->block_sectors);
	return bstart;
}

/*
 * Copy @block's part of the read @io from the block's buffer @buf to @it,
 * where that part starts in the bio.  Returns the part's length, bytes.
 */
static unsigned int l2arc_copy_part(struct l2arc_c *lc, struct l2arc_io *io,
				    u64 block, struct l2arc_buf *buf,
				    struct bvec_iter it)
{
	sector_t s, e;

	l2arc_io_part(lc, io, block, &s, &e);
	l2arc_buf_copy_to_bio(buf,
			      (s - (block << lc->block_shift)) << SECTOR_SHIFT,
			      l2arc_io_bio(io), it, (e - s) << SECTOR_SHIFT);
	return (e - s) << SECTOR_SHIFT;
}

/* Copy the waiting block's part of its read from the block's buffer @buf. */
static void l2arc_deliver(struct l2arc_c *lc, struct l2arc_wait *w,
			  struct l2arc_buf *buf)
{
	l2arc_copy_part(lc, w->io, w->block, buf, w->iter);
}

/* Read @block's part of the read @io from the origin; may sleep. */
static void l2arc_deliver_around(struct l2arc_c *lc, struct l2arc_io *io,
				 u64 block)
{
	sector_t s, e, bstart = l2arc_io_part(lc, io, block, &s, &e);

	l2arc_read_around(lc, io, s - bstart, e - s, GFP_NOIO);
}

/* ---- Fills, in runs ---- */

static void l2arc_run_submit(struct l2arc_c *lc, struct l2arc_run *run);

static void l2arc_run_free(struct l2arc_run *run)
{
	struct l2arc_c *lc = run->lc;
	unsigned int i;
	unsigned long flags;

	if (!list_empty(&run->l2_node)) {	/* never read */
		l2arc_lock(lc);
		l2arc_l2_read_done(lc, run);
		l2arc_unlock(lc);
	}
	for (i = 0; i < run->nr; i++)
		if (run->f[i].buf)
			l2arc_buf_put(lc, run->f[i].buf);
	if (run->bio)
		bio_put(run->bio);
	kfree(run);
	/*
	 * Under the wait queue's lock, so that the destructor, once it has
	 * seen no fill in flight and taken that lock, knows this wake-up is
	 * over before it frees the device.
	 */
	spin_lock_irqsave(&lc->iop.fills_wait.lock, flags);
	if (atomic_dec_and_test(&lc->iop.fills_inflight))
		wake_up_locked(&lc->iop.fills_wait);
	spin_unlock_irqrestore(&lc->iop.fills_wait.lock, flags);
}

/*
 * Check the blocks a run read from the cache device against their
 * crc32c.  Returns true when every block is good.
 */
static bool l2arc_run_check(struct l2arc_run *run)
{
	bool good = !run->status;
	unsigned int i;

	for (i = 0; i < run->nr; i++) {
		struct l2arc_fill *f = &run->f[i];

		f->bad = run->status ||
			 l2arc_buf_cksum(f->buf) != f->l2_cksum;
		good &= !f->bad;
	}
	run->checked = true;
	return good;
}

/*
 * A run that read the cache device is over: take its fills off the list
 * of L2 reads (the write hand may have their slots now) and count.  When
 * a block failed its checksum or the read failed, drop the bad copies,
 * count each as a cache device error (but a checksum mismatch of an
 * unverified rebuilt copy, f->l2_unverified), and read the whole run again from
 * the origin (its blocks are consecutive there too).  Returns true when
 * the run was sent again.  May sleep.
 */
static bool l2arc_run_l2_done(struct l2arc_c *lc, struct l2arc_run *run)
{
	u64 bytes = l2arc_block_bytes(lc);
	bool retry = false;
	unsigned int i;

	l2arc_lock(lc);
	for (i = 0; i < run->nr; i++) {
		struct l2arc_fill *f = &run->f[i];
		struct arc_hdr *hdr = f->hdr;
		bool own = (hdr->flags & ARC_F_L2) &&
			   hdr->l2_slot == run->l2_slot + i;

		if (!f->bad) {
			l2arc_stat_add(lc, L2ARC_STAT_L2_READ_BYTES, bytes);
			if (own)	/* a rebuilt copy read good: verified */
				l2arc_slot(&lc->l2.ix, hdr->l2_slot)->word &=
					~L2ARC_SLOT_UNVERIFIED;
			continue;
		}
		retry = true;
		l2arc_stat_inc(lc, run->status ? L2ARC_STAT_L2_IO_ERROR :
					       L2ARC_STAT_L2_CKSUM_BAD);
		/*
		 * a rebuilt copy never read good may be a slot written after
		 * its log block (a feed, a crash): void it, no device error
		 */
		if (run->status || !f->l2_unverified)
			l2arc_l2_error(lc);
		if (own)
			arc_hdr_clear_l2(lc->arc, hdr);
	}
	l2arc_l2_read_done(lc, run);
	l2arc_unlock(lc);
	if (!retry)
		return false;
	run->from_l2 = false;
	run->status = BLK_STS_OK;
	run->checked = false;
	l2arc_run_submit(lc, run);
	return true;
}

/*
 * The run's read is over (and checked good, if it read the cache
 * device): install each block's buffer where its fill is still attached,
 * and give every waiting read its part.  A run with an error is finished
 * on the workqueue only: its readers then read their own sectors from the
 * origin, which may sleep.
 */
static void l2arc_run_done(struct l2arc_c *lc, struct l2arc_run *run)
{
	struct l2arc_wait *w, *next;
	blk_status_t status = run->status;
	unsigned int i;

	l2arc_lock(lc);
	for (i = 0; i < run->nr; i++) {
		struct l2arc_fill *f = &run->f[i];
		struct arc_hdr *hdr = f->hdr;

		if (!hdr)	/* read over: nobody waits for it */
			continue;
		if (status)
			l2arc_stat_inc(lc, L2ARC_STAT_ORIGIN_READ_ERRORS);
		if (hdr->data == l2arc_fill_data(f) &&
		    (hdr->flags & ARC_F_IO_IN_PROGRESS)) {
			if (!status) {
				hdr->flags &= ~ARC_F_IO_IN_PROGRESS;
				l2arc_buf_get(f->buf);
				arc_hdr_set_data(lc->arc, hdr, f->buf);
				lc->arc_blocks++;
			} else {
				arc_invalidate(lc->arc, hdr);
				l2arc_whatif_invalidate(lc->whatif,
							l2arc_key_block(hdr->oblock),
							1);
			}
		} else if (f->detached) {
			l2arc_stat_inc(lc, L2ARC_STAT_FILL_DISCARDED);
		}
		arc_hdr_unpin(lc->arc, hdr);
	}
	l2arc_unlock(lc);

	/*
	 * No read joins a fill any more: each is installed, dropped or was
	 * detached (a read joins only while the header's data is the fill).
	 */
	for (i = 0; i < run->nr; i++) {
		for (w = run->f[i].waiters; w; w = next) {
			next = w->next;
			if (status)	/* this read's own sectors, from the origin */
				l2arc_deliver_around(lc, w->io, w->block);
			else
				l2arc_deliver(lc, w, run->f[i].buf);
			l2arc_io_put(w->io);
		}
	}
	l2arc_run_free(run);
}

/* The workqueue side of a run's completion: errors, hard IRQ context. */
static void l2arc_run_work(struct work_struct *work)
{
	struct l2arc_run *run = container_of(work, struct l2arc_run, work);
	struct l2arc_c *lc = run->lc;

	if (run->from_l2) {
		if (!run->checked)
			l2arc_run_check(run);
		if (l2arc_run_l2_done(lc, run))
			return;
	}
	l2arc_run_done(lc, run);
}

/*
 * A run's bio completed.  Finish it here when this context may take
 * arc.lock and nothing failed (no workqueue hop on the common path), else
 * on the device's workqueue.
 */
static void l2arc_run_endio(struct bio *bio)
{
	struct l2arc_run *run = bio->bi_private;
	struct l2arc_c *lc = run->lc;

	run->status = bio->bi_status;
	if (!run->status && lc->cache)
		l2arc_note_read(lc, run);
	if (run->status || in_hardirq() || irqs_disabled())
		goto hop;
	if (run->from_l2) {
		if (!l2arc_run_check(run))
			goto hop;
		if (l2arc_run_l2_done(lc, run))
			return;	/* not reached: the run was good */
	}
	l2arc_run_done(lc, run);
	return;
hop:
	atomic64_inc(&lc->iop.runs_deferred);
	queue_work(lc->iop.wq, &run->work);
}

/* Issue a run's read: one bio for all its blocks.  May sleep. */
static void l2arc_run_submit(struct l2arc_c *lc, struct l2arc_run *run)
{
	struct block_device *bdev = run->from_l2 ? lc->cache->bdev :
						   lc->origin->bdev;
	struct bio *bio;
	unsigned int i;

	if (run->bio)
		bio_put(run->bio);
	bio = bio_alloc_bioset(bdev, run->nr * lc->block_pages, REQ_OP_READ,
			       GFP_NOIO, &lc->iop.bs);
	if (run->from_l2)
		bio->bi_iter.bi_sector = l2arc_slot_sector(lc, run->l2_slot);
	else
		bio->bi_iter.bi_sector = run->oblock << lc->block_shift;
	for (i = 0; i < run->nr; i++)
		l2arc_buf_add_to_bio(bio, run->f[i].buf);
	bio->bi_end_io = l2arc_run_endio;
	bio->bi_private = run;
	run->bio = bio;
	run->start_ns = ktime_get_ns();
	submit_bio_noacct(bio);
}

/* Submit every run of a map, in order, and forget the list. */
static void l2arc_runs_submit(struct l2arc_c *lc, struct l2arc_run *runs)
{
	struct l2arc_run *run, *next;
	struct blk_plug plug;

	blk_start_plug(&plug);
	for (run = runs; run; run = next) {
		next = run->next;
		run->next = NULL;
		if (run->nr)
			l2arc_run_submit(lc, run);
		else
			l2arc_run_free(run);	/* its block was not taken */
	}
	blk_finish_plug(&plug);
}

/*
 * Hang the fill @f (in a run) on @hdr, which arc_access() just made
 * resident without data; arc.lock held, and no write of the block in
 * flight.  @from_l2: the run reads the cache device.
 */
static void l2arc_fill_attach(struct l2arc_c *lc, struct l2arc_fill *f,
			      struct arc_hdr *hdr, struct l2arc_buf *buf,
			      bool from_l2)
{
	l2arc_assert_locked(lc);
	f->hdr = hdr;
	f->buf = buf;
	f->waiters = NULL;
	if (from_l2) {
		const struct l2arc_slot *sl = l2arc_slot(&lc->l2.ix,
							 hdr->l2_slot);

		f->l2_cksum = sl->cksum;
		f->l2_unverified = sl->word & L2ARC_SLOT_UNVERIFIED;
	}
	if (lc->cache) {
		if (from_l2) {
			l2arc_stat_inc(lc, L2ARC_STAT_L2_HITS);
		} else {
			l2arc_stat_inc(lc, L2ARC_STAT_L2_MISSES);
			if (hdr->flags & L2ARC_F_L2_WRITING)
				l2arc_stat_inc(lc, L2ARC_STAT_L2_RW_CLASH);
		}
	}
	buf->oblock = l2arc_key_block(hdr->oblock);
	hdr->flags |= ARC_F_IO_IN_PROGRESS;
	arc_hdr_set_data(lc->arc, hdr, l2arc_fill_data(f));
	arc_hdr_pin(lc->arc, hdr);
}

/* ---- Mapping reads ---- */

/*
 * A read goes around the ARC, or a read-ahead is skipped, for lack of
 * memory.  Any context, with or without arc.lock.
 */
static void l2arc_throttled(struct l2arc_c *lc)
{
	l2arc_stat_inc(lc, L2ARC_STAT_MEMORY_THROTTLE);
	WRITE_ONCE(lc->iop.throttle_at, jiffies | 1);
}

/*
 * Is the machine short of memory (MemAvailable below arc_sys_free)?  Looked
 * at once a second at most; arc.lock held.
 */
static bool l2arc_memory_short(struct l2arc_c *lc)
{
	l2arc_assert_locked(lc);
	if (time_after(jiffies, lc->iop.mem_checked + HZ) || !lc->iop.mem_checked) {
		lc->iop.mem_checked = jiffies | 1;
		lc->iop.mem_short = ((u64)si_mem_available() << PAGE_SHIFT) <
				l2arc_sys_free();
	}
	return lc->iop.mem_short;
}

/*
 * c grows back towards c_max, one block a miss, once pressure is over: no
 * shrink for L2ARC_GROW_RETRY and MemAvailable at least arc_sys_free.
 */
static void l2arc_grow(struct l2arc_c *lc)
{
	unsigned long last = lc->pool ? READ_ONCE(lc->pool->last_shrink) :
					lc->last_shrink;
	u64 c = arc_c(lc->arc);

	if (c < lc->c_max && time_after(jiffies, last + L2ARC_GROW_RETRY) &&
	    !l2arc_memory_short(lc))
		arc_set_c(lc->arc, c + 1);
}

static void l2arc_note_hash_max(struct l2arc_c *lc)
{
	u64 n = arc_nr_hashed(lc->arc);

	l2arc_assert_locked(lc);
	if (n > lc->gauge[L2ARC_GAUGE_HASH_ELEMENTS_MAX])
		lc->gauge[L2ARC_GAUGE_HASH_ELEMENTS_MAX] = n;
}

/* Can the block @b (its copy at @slot, or the origin) join @run? */
static bool l2arc_run_takes(struct l2arc_run *run, u64 b, bool from_l2,
			    u32 slot)
{
	if (!run || run->nr == run->max || run->from_l2 != from_l2)
		return false;
	return b == run->oblock + run->nr &&
	       (!from_l2 || slot == run->l2_slot + run->nr);
}

/*
 * How many resident blocks from @b on (up to L2ARC_RUN_BRIDGE_BYTES) the
 * origin run @run, which would take block @b next, should read over: the
 * number of them when the first block after them that is not resident
 * is a miss that the same run will read from the origin (within
 * [@b, @last], with room for it in the run), else 0.  The blocks read
 * over keep their ARC copies and accesses; their new data is thrown away
 * (it may be older than the ARC's copy, and is never used).  arc.lock
 * held.
 */
static unsigned int l2arc_run_bridge(struct l2arc_c *lc, struct l2arc_run *run,
				     u64 b, u64 last, bool prefetch)
{
	unsigned int room, n;

	if (!run || run->from_l2 || b != run->oblock + run->nr)
		return 0;
	/* room for the blocks read over and for the miss after them */
	room = min_t(unsigned int, run->max - run->nr,
		     ((L2ARC_RUN_BRIDGE_BYTES >> SECTOR_SHIFT) >>
		      lc->block_shift) + 1);
	for (n = 0; n < room && b + n <= last; n++) {
		struct arc_hdr *hdr = arc_lookup(lc->arc, l2arc_key(lc, b + n));

		if (hdr && (hdr->state == ARC_MRU || hdr->state == ARC_MFU))
			continue;
		if (!n || (hdr && (hdr->flags & ARC_F_L2)) ||
		    (!hdr && l2arc_l2_find(lc, b + n) != L2ARC_SLOT_NONE))
			return 0;	/* not resident at all, or on L2 */
		if (prefetch && l2arc_wr_overlaps(lc, b + n, b + n))
			return 0;	/* read-ahead will skip it */
		return n;
	}
	return 0;
}

/*
 * Let the origin run @run read over the resident block @b: a fill with
 * no header and a buffer of its own; arc.lock held.  Returns false when
 * there is no memory for it (the run then ends before @b).
 */
static bool l2arc_run_read_over(struct l2arc_c *lc, struct l2arc_run *run,
				u64 b)
{
	struct l2arc_buf *buf;

	l2arc_assert_locked(lc);
	if (!run || run->from_l2 || b != run->oblock + run->nr ||
	    run->nr == run->max)
		return false;
	buf = l2arc_buf_alloc(lc, GFP_NOWAIT | __GFP_NOWARN);
	if (!buf)
		return false;
	run->f[run->nr++].buf = buf;
	l2arc_stat_inc(lc, L2ARC_STAT_FILL_RUN_BRIDGED);
	return true;
}

/*
 * The map stops before the block after @run's last fill: drop the blocks
 * read over at the run's end, which no miss follows; arc.lock held.
 */
static void l2arc_run_trim(struct l2arc_c *lc, struct l2arc_run *run)
{
	l2arc_assert_locked(lc);
	while (run && !run->from_l2 && run->nr && !run->f[run->nr - 1].hdr) {
		l2arc_buf_put(lc, run->f[--run->nr].buf);
		run->f[run->nr].buf = NULL;
		l2arc_stat_add(lc, L2ARC_STAT_FILL_RUN_BRIDGED, -1);
	}
}

/*
 * A new run for at most @max blocks from block @b (slot @slot when
 * @from_l2: it is then on the list of L2 reads), put at the end of
 * *@tail; arc.lock held.
 */
static struct l2arc_run *l2arc_run_new(struct l2arc_c *lc, unsigned int max,
				       u64 b, bool from_l2, u32 slot,
				       struct l2arc_run ***tail)
{
	gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;
	struct l2arc_run *run;

	l2arc_assert_locked(lc);
	run = kzalloc(struct_size(run, f, max), gfp);
	if (!run && max > L2ARC_RUN_SHORT) {
		/* a shorter run rather than none on a fragmented machine */
		max = L2ARC_RUN_SHORT;
		run = kzalloc(struct_size(run, f, max), gfp);
	}
	if (!run)
		return NULL;
	INIT_WORK(&run->work, l2arc_run_work);
	INIT_LIST_HEAD(&run->l2_node);
	run->lc = lc;
	run->max = max;
	run->oblock = b;
	run->from_l2 = from_l2;
	if (from_l2) {
		run->l2_slot = slot;
		list_add_tail(&run->l2_node, &lc->l2.reads);
	}
	atomic_inc(&lc->iop.fills_inflight);
	**tail = run;
	*tail = &run->next;
	l2arc_stat_inc(lc, from_l2 ? L2ARC_STAT_L2_READ_RUNS :
				     L2ARC_STAT_FILL_RUNS);
	return run;
}

/**
 * struct l2arc_map - one pass of l2arc_map_blocks() over a read's blocks
 * @lc: the device
 * @io: the demand read (its waits set by l2arc_map_parts()), or NULL for
 *	read-ahead
 * @run: the run the last miss joined, or NULL
 * @tail: where the next new run is linked (the end of the caller's list)
 * @max_run: blocks a run may take, at most L2ARC_RUN_MAX_BLOCKS
 * @bridge: resident blocks the origin run still reads over
 * @last: the last block of the pass
 * @prefetch: read-ahead (@io is NULL)
 */
struct l2arc_map {
	struct l2arc_c *lc;
	struct l2arc_io *io;
	struct l2arc_run *run;
	struct l2arc_run **tail;
	unsigned int max_run;
	unsigned int bridge;
	u64 last;
	bool prefetch;
};

/**
 * struct l2arc_miss - what a miss needs before its access is taken
 * @buf: the new ARC buffer
 * @spare: a new header, when the block had none
 * @slot: the slot of its L2 copy (0 when it reads the origin)
 * @from_l2: it reads the cache device
 */
struct l2arc_miss {
	struct l2arc_buf *buf;
	struct arc_hdr *spare;
	u32 slot;
	bool from_l2;
};

/*
 * The waits of the demand read @io for blocks [@from, @last] (its waits
 * are indexed from @from): which part of the bio each block is, in one
 * walk of the bio from @it, where block @from's part starts.  Before
 * arc.lock is taken: nothing here is shared.
 */
static void l2arc_map_parts(struct l2arc_c *lc, struct l2arc_io *io,
			    u64 from, u64 last, struct bvec_iter it)
{
	struct bio *bio = l2arc_io_bio(io);
	u64 b;

	for (b = from; b <= last; b++) {
		struct l2arc_wait *w = &io->waits[b - from];
		sector_t s, e;

		l2arc_io_part(lc, io, b, &s, &e);
		w->io = io;
		w->block = b;
		w->iter = it;
		bio_advance_iter(bio, &it, (e - s) << SECTOR_SHIFT);
	}
}

/*
 * Step "skip": a resident block may be read over by the origin run (a
 * few between misses); read-ahead leaves a resident block alone and skips
 * a block being written.  Returns true when the block is done with.
 */
static bool l2arc_map_skip(struct l2arc_map *m, u64 b, struct arc_hdr *hdr,
			   bool resident)
{
	struct l2arc_c *lc = m->lc;

	if (resident) {
		if (!m->bridge)
			m->bridge = l2arc_run_bridge(lc, m->run, b, m->last,
						     m->prefetch);
		if (m->bridge && l2arc_run_read_over(lc, m->run, b))
			m->bridge--;
		else
			m->bridge = 0;
	}
	if (!m->prefetch)
		return false;
	if (resident) {
		/* a read-ahead of a resident block changes nothing */
		l2arc_count_access(lc, ARC_HIT_MRU + (hdr->state == ARC_MFU),
				   hdr->flags & ARC_F_IO_IN_PROGRESS, true);
		return true;
	}
	if (l2arc_wr_overlaps(lc, b, b)) {
		/* a write is in flight: read ahead later, if at all */
		l2arc_stat_inc(lc, L2ARC_STAT_READS_AROUND_WRITES);
		return true;
	}
	return false;
}

/*
 * Step "miss", before the access: a buffer, a header if none (which takes
 * the block's indexed L2 copy, if any), a place in a run.  Returns false,
 * with nothing left allocated, when memory is short.
 */
static bool l2arc_map_miss_prep(struct l2arc_map *m, u64 b,
				struct arc_hdr *hdr, struct l2arc_miss *x)
{
	struct l2arc_c *lc = m->lc;
	gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;

	x->slot = L2ARC_SLOT_NONE;
	if (hdr && (hdr->flags & ARC_F_L2))
		x->slot = hdr->l2_slot;
	else if (!hdr)
		x->slot = l2arc_l2_find(lc, b);
	x->from_l2 = x->slot != L2ARC_SLOT_NONE &&
		     l2arc_l2_readable(lc, x->slot);
	if (!x->from_l2)
		x->slot = 0;
	x->buf = l2arc_buf_alloc(lc, gfp);
	if (!hdr)
		x->spare = arc_hdr_alloc(gfp);
	if (x->buf && (hdr || x->spare) &&
	    !l2arc_run_takes(m->run, b, x->from_l2, x->slot))
		m->run = l2arc_run_new(lc, min_t(u64, m->max_run,
						 m->last - b + 1),
				       b, x->from_l2, x->slot, &m->tail);
	if (x->buf && (hdr || x->spare) && m->run)
		return true;
	if (x->buf)
		l2arc_buf_put(lc, x->buf);
	arc_hdr_free(x->spare);
	return false;
}

/* Step "hit" or "iohit": the read takes the buffer or waits for its fill. */
static void l2arc_map_hit(struct l2arc_map *m, struct l2arc_wait *w,
			  struct arc_hdr *hdr, int r, bool was_prefetch)
{
	struct l2arc_c *lc = m->lc;
	bool iohit = hdr->flags & ARC_F_IO_IN_PROGRESS;
	struct l2arc_fill *f;

	l2arc_count_access(lc, r, iohit, false);
	if (was_prefetch)
		l2arc_stat_inc(lc, L2ARC_STAT_DEMAND_HIT_PREDICTIVE_PREFETCH);
	if (iohit) {
		f = l2arc_hdr_fill(hdr);
		w->next = f->waiters;
		f->waiters = w;
		atomic_inc(&m->io->pending);
	} else {
		w->hit = l2arc_hdr_buf(hdr);
		l2arc_buf_get(w->hit);
	}
}

/* Step "miss", after the access: the fill joins the run. */
static void l2arc_map_miss(struct l2arc_map *m, struct l2arc_wait *w,
			   struct arc_hdr *hdr, struct l2arc_miss *x, int r)
{
	struct l2arc_c *lc = m->lc;
	struct l2arc_fill *f;

	l2arc_count_access(lc, r, false, m->prefetch);
	if (m->prefetch)
		l2arc_stat_inc(lc, L2ARC_STAT_PREDICTIVE_PREFETCH);
	else
		l2arc_grow(lc);
	f = &m->run->f[m->run->nr++];
	l2arc_fill_attach(lc, f, hdr, x->buf, x->from_l2);
	l2arc_stat_inc(lc, x->from_l2 ? L2ARC_STAT_L2_READ_RUN_BLOCKS :
					L2ARC_STAT_FILL_RUN_BLOCKS);
	if (w) {
		w->next = NULL;
		f->waiters = w;
		atomic_inc(&m->io->pending);
	}
}

/*
 * Take the accesses of blocks [@first, @last] in order and sort them
 * (see the theory of operation): for the demand read @io, or for
 * read-ahead when @io is NULL (resident blocks are then left alone).
 * Each block is classified -- skip, hit, iohit or miss -- and handled by
 * that case's step.  Buffers, headers and runs are allocated here without
 * sleeping.  Runs to submit are added to *@runs.  A demand read's waits
 * are indexed from @first (l2arc_map_waits()).  arc.lock held; for a
 * demand read, no write of these blocks in flight (read-ahead skips the
 * blocks being written).  Returns the first block not handled (@last + 1
 * when all were; memory was short for that one).
 */
static u64 l2arc_map_blocks(struct l2arc_c *lc, u64 first, u64 last,
			    struct l2arc_io *io, struct l2arc_run **runs)
{
	struct l2arc_map m = {
		.lc = lc, .io = io, .tail = runs, .last = last,
		.prefetch = !io,
		.max_run = min_t(unsigned int, L2ARC_RUN_MAX_BLOCKS,
				 BIO_MAX_VECS / lc->block_pages),
	};
	u64 b;

	l2arc_assert_locked(lc);
	while (*m.tail)
		m.tail = &(*m.tail)->next;
	for (b = first; b <= last; b++) {
		struct l2arc_wait *w = io ? &io->waits[b - first] : NULL;
		struct arc_hdr *hdr = arc_lookup(lc->arc, l2arc_key(lc, b));
		bool resident = hdr && (hdr->state == ARC_MRU ||
					hdr->state == ARC_MFU);
		struct l2arc_miss x = {};
		bool was_prefetch;
		int r;

		if (l2arc_map_skip(&m, b, hdr, resident))
			continue;
		if (!resident && !l2arc_map_miss_prep(&m, b, hdr, &x))
			goto short_of_memory;
		was_prefetch = hdr && (hdr->flags & ARC_F_PREFETCH);
		if (hdr) {
			/* the lookup above found it: no second lookup */
			r = arc_access_hdr(lc->arc, hdr, m.prefetch ?
					   ARC_ACCESS_PREFETCH : 0);
		} else {
			/* none: a new header, without a second lookup */
			r = arc_insert(lc->arc, l2arc_key(lc, b),
				       m.prefetch ? ARC_ACCESS_PREFETCH : 0,
				       &x.spare, &hdr);
			arc_hdr_free(x.spare);	/* NULL once arc_insert took it */
		}
		if (r < 0 || WARN_ON_ONCE(resident != (r == ARC_HIT_MRU ||
						       r == ARC_HIT_MFU))) {
			/* r < 0: no memory for the directory's table */
			if (x.buf)
				l2arc_buf_put(lc, x.buf);
			goto short_of_memory;
		}
		if (resident)
			l2arc_map_hit(&m, w, hdr, r, was_prefetch);
		else
			l2arc_map_miss(&m, w, hdr, &x, r);
		if (!m.prefetch && l2arc_whatif_sampled(lc->whatif, b))
			l2arc_whatif_read(lc->whatif, b, resident ? WHATIF_HIT :
					  x.from_l2 ? WHATIF_L2_HIT :
					  WHATIF_MISS);
	}
	l2arc_note_hash_max(lc);
	return b;

short_of_memory:
	l2arc_throttled(lc);
	l2arc_run_trim(lc, m.run);
	return b;
}

/* Read-ahead of blocks [@first, @last] into the ARC, without a reader. */
static void l2arc_prefetch_range(struct l2arc_c *lc, u64 first, u64 last)
{
	struct l2arc_run *runs = NULL;

	l2arc_lock(lc);
	l2arc_map_blocks(lc, first, last, NULL, &runs);
	l2arc_unlock(lc);
	l2arc_runs_submit(lc, runs);
}

/*
 * Read ahead of a demand read of blocks [@first, @last] when it continues
 * a sequential stream (zfetch.c decides how far), unless read-ahead is
 * off (prefetch_disable, or the table's feature).
 */
static void l2arc_zfetch(struct l2arc_c *lc, u64 first, u64 last)
{
	u64 max_dist, from, to;
	bool ahead;

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
			   max_t(u64, 1, READ_ONCE(lc->arc->c) / 8));

	ahead = l2arc_zfetch_access(&lc->zf, first, last, max_dist,
				    lc->nr_blocks, &from, &to);
	if (ahead)
		l2arc_prefetch_range(lc, from, to - 1);
}

/*
 * Cut the read @bio (starting at sector @start of the target) after block
 * @last: the rest comes back as a bio of its own (dm_accept_partial_bio(),
 * which may follow copies into the part kept).
 */
static void l2arc_map_cut(struct l2arc_c *lc, struct bio *bio,
			  sector_t start, u64 last)
{
	dm_accept_partial_bio(bio, ((last + 1) << lc->block_shift) - start);
}

/*
 * The blocks of the read @bio (starting at sector @start of the target)
 * that one map takes: from its first, at most L2ARC_MAP_MAX_BLOCKS; the
 * rest of a longer bio comes back as a bio of its own
 * (dm_accept_partial_bio()).  Returns the last block taken.
 */
static u64 l2arc_map_span(struct l2arc_c *lc, struct bio *bio,
			  sector_t start)
{
	u64 first = start >> lc->block_shift;
	u64 last = (start + bio_sectors(bio) - 1) >> lc->block_shift;

	if (last - first >= L2ARC_MAP_MAX_BLOCKS) {
		last = first + L2ARC_MAP_MAX_BLOCKS - 1;
		l2arc_map_cut(lc, bio, start, last);
	}
	return last;
}

/*
 * The waits of the read @io's blocks [@from, *@last], the ones not served
 * without the lock, indexed from @from: one per block (@io's own one for
 * a single block), or L2ARC_MAP_SHORT when memory for more is short; the
 * bio is then cut after those (l2arc_map_cut()) and *@last set to the
 * last block kept.
 * Returns false when there is no memory for any (@io's waits NULL).
 */
static bool l2arc_map_waits(struct l2arc_c *lc, struct bio *bio,
			    struct l2arc_io *io, sector_t start, u64 from,
			    u64 *last)
{
	unsigned int nr = *last - from + 1;

	io->waits = &io->wait1;
	if (nr > 1) {
		io->waits = kmalloc_array(nr, sizeof(*io->waits),
					  GFP_NOWAIT | __GFP_NOWARN);
		if (!io->waits && nr > L2ARC_MAP_SHORT) {
			/* a shorter map rather than none when fragmented */
			nr = L2ARC_MAP_SHORT;
			io->waits = kmalloc_array(nr, sizeof(*io->waits),
						  GFP_NOWAIT | __GFP_NOWARN);
		}
	}
	if (!io->waits) {
		l2arc_throttled(lc);
		return false;
	}
	if (*last - from >= nr) {
		/* the rest comes back as a bio of its own */
		*last = from + nr - 1;
		l2arc_map_cut(lc, bio, start, *last);
	}
	memset(io->waits, 0, nr * sizeof(*io->waits));
	return true;
}

/*
 * Serve the read @io from block @first on without arc.lock, for as long
 * as each block is resident in the ARC with its data read: each block's
 * buffer is taken under RCU, its part copied into the bio at *@it (which
 * then follows the copy) and let go, and the ARC's accesses of the blocks
 * served are logged for the next holder of the lock (hitlog.c), with the
 * headers found, a record for every %L2ARC_HITREC_BLOCKS blocks; when this
 * CPU's log has no room, they are taken under the lock now.  Returns the
 * first block not served: @first when none was (a block not resident,
 * not read yet, or no log), @last + 1 when all were.
 *
 * Never stale: a buffer hung on a header holds its block's data as of the
 * latest write that has completed.  A write drops the buffer from its
 * header (under arc.lock, l2arc_write_begin()) before the write is sent
 * to the origin, and no fill that started before the write installs
 * after it.  So a read that finds the buffer still hung either started
 * before that write completed (and may return the data before it, as a
 * disk may for overlapping I/O) or there was no such write.  A buffer
 * found through a header that was freed and reused meanwhile, by this
 * device or another (SLAB_TYPESAFE_BY_RCU, one cache for all, arc.c), is
 * told apart by its device and block number, read after the reference is
 * taken; a buffer freed meanwhile refuses the reference (its memory is
 * freed after a grace period).  The what-if's miniature directories,
 * which share the header cache, hang only tagged pointers (whatif.c).
 */
static u64 l2arc_map_hits(struct l2arc_c *lc, struct l2arc_io *io,
			  u64 first, u64 last, struct bvec_iter *it)
{
	struct bio *bio = l2arc_io_bio(io);
	struct l2arc_hitread hr;
	u64 b;

	if (!READ_ONCE(lc->arc_ready) || !lc->hitlog.cpu)
		return first;
	l2arc_hitread_start(lc, &hr, first);
	for (b = first; b <= last; b++) {
		struct l2arc_buf *buf = NULL;
		struct arc_hdr *hdr;

		rcu_read_lock();
		hdr = arc_lookup_rcu(lc->arc, l2arc_key(lc, b));
		if (hdr)
			buf = l2arc_hdr_buf_rcu(hdr);
		if (buf && !l2arc_buf_tryget(buf))
			buf = NULL;
		rcu_read_unlock();
		if (!buf)
			break;
		if (READ_ONCE(buf->owner) != lc ||
		    READ_ONCE(buf->oblock) != b) {
			l2arc_buf_put(lc, buf);
			break;
		}
		bio_advance_iter(bio, it,
				 l2arc_copy_part(lc, io, b, buf, *it));
		l2arc_buf_put(lc, buf);
		l2arc_hitread_found(lc, &hr, hdr);
	}
	l2arc_hitread_end(lc, &hr);
	return b;
}

/*
 * A read of any size: see the theory of operation.  The waits are
 * allocated only for the blocks not served without the lock: a read whose
 * blocks are all resident allocates nothing.  Returns
 * %DM_MAPIO_REMAPPED when the whole bio goes around the ARC (no block was
 * served without the lock, and a write in flight or no memory stopped the
 * first one), else %DM_MAPIO_SUBMITTED.
 */
static int l2arc_map_read(struct l2arc_c *lc, struct bio *bio,
			  struct l2arc_io *io)
{
	sector_t start = dm_target_offset(lc->ti, bio->bi_iter.bi_sector);
	u64 first = start >> lc->block_shift, last, from, b, done;
	struct l2arc_run *runs = NULL;
	struct bvec_iter it;

	last = l2arc_map_span(lc, bio, start);
	it = bio->bi_iter;	/* after dm_accept_partial_bio() */
	atomic_set(&io->pending, 1);	/* the map's own */
	io->status = BLK_STS_OK;
	/* blocks [first, from) are served: copied, their accesses logged */
	from = l2arc_map_hits(lc, io, first, last, &it);
	done = from;
	if (from > last)
		goto out;
	if (!l2arc_map_waits(lc, bio, io, start, from, &last)) {
		if (from == first)
			return DM_MAPIO_REMAPPED;	/* nothing taken */
		goto rest;
	}
	l2arc_map_parts(lc, io, from, last, it);

	/*
	 * A write of one of the blocks in flight: no fill may start (its
	 * data could be older than the write and be handed to reads issued
	 * after the write completed), and the cached copy is being dropped.
	 * The rest of the read goes around the ARC.
	 */
	l2arc_lock(lc);
	if (l2arc_wr_overlaps(lc, from, last))
		l2arc_stat_add(lc, L2ARC_STAT_READS_AROUND_WRITES,
			       last - from + 1);
	else
		done = l2arc_map_blocks(lc, from, last, io, &runs);
	l2arc_unlock(lc);
	if (done == first && !runs)
		goto around;	/* nothing taken: the whole bio goes */

	/* hits: copy now */
	for (b = from; b < done; b++) {
		struct l2arc_wait *w = &io->waits[b - from];

		if (!w->hit)
			continue;
		l2arc_deliver(lc, w, w->hit);
		l2arc_buf_put(lc, w->hit);
		w->hit = NULL;
	}
	l2arc_runs_submit(lc, runs);
rest:
	if (done <= last) {
		/*
		 * A write in flight, or no memory, from block @done on: the
		 * rest around the ARC (all of it when that is the first,
		 * partial block).
		 */
		sector_t off = max_t(sector_t, done << lc->block_shift, start) -
			       start;

		l2arc_read_around(lc, io, off, bio_sectors(bio) - off,
				  GFP_NOIO);
	}
out:
	l2arc_stat_inc(lc, L2ARC_STAT_READ_BIOS);
	/* only the blocks the ARC took count for their stream (maybe none) */
	if (done > first)
		l2arc_zfetch(lc, first, done - 1);
	l2arc_io_put(io);
	return DM_MAPIO_SUBMITTED;

around:
	l2arc_stat_inc(lc, L2ARC_STAT_READ_BIOS);
	if (io->waits != &io->wait1)
		kfree(io->waits);
	io->waits = NULL;
	return DM_MAPIO_REMAPPED;
}

/* ---- Set-up ---- */

/**
 * l2arc_iopath_init() - set up the bio path's locks and lists, at the
 * start of the ctr
 * @lc: the device, zeroed
 */
void l2arc_iopath_init(struct l2arc_c *lc)
{
	spin_lock_init(&lc->iop.wr_lock);
	lc->iop.wr_tree = RB_ROOT_CACHED;
	init_waitqueue_head(&lc->iop.fills_wait);
}

/**
 * l2arc_iopath_alloc() - allocate the bio path's workqueue and bio set
 * @lc: the device, its name set
 * @error: set on failure
 *
 * Context: process context (the ctr).
 * Return: 0 or -ENOMEM.
 */
int l2arc_iopath_alloc(struct l2arc_c *lc, char **error)
{
	/* unbound, as dm-verity's: a run's checks need not wait for its CPU */
	lc->iop.wq = alloc_workqueue("dm-l2arc-%s",
				     WQ_MEM_RECLAIM | WQ_UNBOUND, 0, lc->name);
	if (!lc->iop.wq) {
		*error = "Cannot allocate workqueue";
		return -ENOMEM;
	}
	if (bioset_init(&lc->iop.bs, BIO_POOL_SIZE, 0,
			BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER)) {
		*error = "Cannot allocate bio set";
		return -ENOMEM;
	}
	lc->iop.bs_ready = true;
	return 0;
}

/**
 * l2arc_iopath_drain() - wait for every run in flight (read-aheads, which
 * no bio waits for, included)
 * @lc: the device, taking no new I/O (suspended, or being destroyed)
 *
 * Context: process context, may sleep.
 */
void l2arc_iopath_drain(struct l2arc_c *lc)
{
	wait_event(lc->iop.fills_wait, !atomic_read(&lc->iop.fills_inflight));
	/* the last fill's wake-up holds this lock until it is done */
	spin_lock_irq(&lc->iop.fills_wait.lock);
	spin_unlock_irq(&lc->iop.fills_wait.lock);
}

/**
 * l2arc_iopath_exit() - free what l2arc_iopath_alloc() allocated, in the
 * dtr, after l2arc_iopath_drain()
 * @lc: the device (may be half set up)
 */
void l2arc_iopath_exit(struct l2arc_c *lc)
{
	if (lc->iop.wq)
		destroy_workqueue(lc->iop.wq);
	lc->iop.wq = NULL;
	if (lc->iop.bs_ready)
		bioset_exit(&lc->iop.bs);
	lc->iop.bs_ready = false;
}

/* ---- The map function ---- */

static void l2arc_remap(struct l2arc_c *lc, struct bio *bio)
{
	bio_set_dev(bio, lc->origin->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = dm_target_offset(lc->ti,
							  bio->bi_iter.bi_sector);
}

/**
 * l2arc_map() - the target's map method: where a bio goes
 * @ti: the target
 * @bio: any bio
 *
 * See the theory of operation above.
 *
 * Context: process context (device-mapper's submission); may sleep for a
 * bio from the device's bio set (the set's reserve guarantees progress).
 * Return: %DM_MAPIO_SUBMITTED for a read the ARC handles, else
 * %DM_MAPIO_REMAPPED (the bio goes to the origin).
 */
int l2arc_map(struct dm_target *ti, struct bio *bio)
{
	struct l2arc_c *lc = ti->private;
	struct l2arc_io *io = dm_per_bio_data(bio, sizeof(*io));
	int r;

	io->tracked = false;
	io->waits = NULL;
	if (bio_op(bio) == REQ_OP_READ && bio_sectors(bio)) {
		r = l2arc_map_read(lc, bio, io);
		if (r != DM_MAPIO_REMAPPED)
			return r;
	} else if (op_is_write(bio_op(bio)) && bio_sectors(bio)) {
		l2arc_write_begin(lc, bio, io);
	}
	l2arc_remap(lc, bio);
	return DM_MAPIO_REMAPPED;
}

/**
 * l2arc_end_io() - the target's end_io method: a write leaves the tree of
 * writes in flight
 * @ti: the target
 * @bio: the bio that completed
 * @error: its status (unchanged)
 *
 * Context: any, hard interrupt context included.
 * Return: %DM_ENDIO_DONE.
 */
int l2arc_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct l2arc_c *lc = ti->private;
	struct l2arc_io *io = dm_per_bio_data(bio, sizeof(*io));

	if (io->tracked) {
		l2arc_wr_exit(lc, &io->wr);
		io->tracked = false;
		if (*error == BLK_STS_OK)
			l2arc_watch_done(lc, io->wr_sectors);
	}
	return DM_ENDIO_DONE;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the L2ARC -- the cache device and the feed that fills it.
 *
 * Theory of operation
 * ===================
 *
 * The cache device is a ring of slots, one block each.  The feed (a
 * self-rescheduling delayed work on the device's own WQ_MEM_RECLAIM
 * workqueue, in the shape of OpenZFS's l2arc_feed_thread) takes blocks
 * that are about to fall out of the ARC -- it scans T2 (MFU) and then T1
 * (MRU) from their LRU ends, at most l2arc_headroom times its budget deep
 * -- and writes them at the write hand in large sequential writes (up to
 * BIO_MAX_VECS blocks a bio), straight from the ARC's pages, with no copy.
 * Before it writes a region it evicts the L2 copies that the region holds
 * (nothing on the first lap).  A batch never wraps: when it does not fit
 * before the end of the ring the hand goes back to slot 0.
 *
 * Budget per feed: l2arc_write_max, plus l2arc_write_boost while the ARC
 * is cold ("warm" = the ARC has been full and evicted a block, not "under
 * memory pressure" as in OpenZFS), never more than a quarter of the cache
 * device nor more than the ARC's c (a feed writes only resident blocks;
 * the cap keeps l2arc_feed_again meaningful when write_max >> c).  The
 * next feed comes after l2arc_feed_secs, or after l2arc_feed_min_ms when
 * l2arc_feed_again is set and this feed wrote more than half its budget.
 * Every value is read at every feed (the device's own, or the module
 * parameter's), so changes apply at the next feed.
 *
 * Eligible blocks: resident, fully read, not on L2, not being written to
 * L2, and not prefetch blocks (read ahead, not yet demanded) while
 * l2arc_noprefetch is 1.  A prefetch block already on L2 is still read
 * from L2.
 *
 * Where an L2 copy's facts live (struct arc_hdr stays 48 bytes):
 *  - the slot: hdr->l2_slot; the slot's header: l2_rmap[slot];
 *  - the crc32c of the copy: while the block is resident, in the private
 *    field of its ARC page (set_page_private); otherwise in hdr->l2_cksum,
 *    which shares its place with hdr->data (l2arc_evict_data() moves it);
 *    while a fill reads the block, in the fill.
 *
 * Never stale: a write (or discard) to a block drops its L2 copy through
 * arc_invalidate() (which calls l2arc_l2_drop()) before the write is
 * issued, and clears L2ARC_F_L2_WRITING, so that a feed write in flight for
 * the block is not validated when it completes.  A read of an L2 copy
 * checks its crc32c; a mismatch or an I/O error drops the copy and the
 * read goes to the origin.  After l2arc_max_errors such errors the device
 * stops using its cache device ("degraded" in status) until a reload.
 *
 * Locking: everything here is under arc.lock, except feed_mutex, which
 * serialises feeds (timer and message) and is taken outside arc.lock.
 */
#include <linux/bio.h>
#include <linux/crc32c.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dm-l2arc.h"

/* Bytes of L2-only headers of all devices together (l2arc_meta_percent). */
static atomic64_t l2arc_l2only_bytes = ATOMIC64_INIT(0);

/**
 * struct l2arc_wentry - one block of a feed's batch
 * @hdr: its header, pinned for the write
 * @page: its ARC page, referenced for the write
 * @slot: where it goes
 * @cksum: crc32c of its data
 */
struct l2arc_wentry {
	struct arc_hdr *hdr;
	struct page *page;
	u32 slot;
	u32 cksum;
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

/**
 * l2arc_cksum() - the checksum of a block's data
 * @lc: the device
 * @page: the block's (compound) page
 *
 * Return: crc32c of the block, seed ~0.
 */
u32 l2arc_cksum(struct l2arc_c *lc, struct page *page)
{
	return crc32c(~0U, page_address(page), lc->block_sectors << SECTOR_SHIFT);
}

static unsigned int l2arc_block_bytes(struct l2arc_c *lc)
{
	return lc->block_sectors << SECTOR_SHIFT;
}

/* Which L2 size class a block is counted in (l2_{prefetch,mru,mfu}_asize) */
static unsigned int l2arc_class(struct arc_hdr *hdr)
{
	if (hdr->flags & L2ARC_F_CLASS_PREFETCH)
		return L2ARC_CLASS_PREFETCH;
	if (hdr->flags & L2ARC_F_CLASS_MFU)
		return L2ARC_CLASS_MFU;
	return L2ARC_CLASS_MRU;
}

/**
 * l2arc_l2_drop() - arc_ops.l2_drop: a block's L2 copy is gone
 * @arc: the device's directory
 * @hdr: the header, whose %ARC_F_L2 was just cleared
 *
 * Context: arc.lock held.
 */
void l2arc_l2_drop(struct arc *arc, struct arc_hdr *hdr)
{
	struct l2arc_c *lc = arc->private;

	if (hdr->l2_slot < lc->l2_nr_slots &&
	    lc->l2_rmap[hdr->l2_slot] == hdr)
		lc->l2_rmap[hdr->l2_slot] = NULL;
	lc->l2_blocks--;
	lc->l2_class_blocks[l2arc_class(hdr)]--;
	hdr->flags &= ~(L2ARC_F_CLASS_PREFETCH | L2ARC_F_CLASS_MFU);
}

/**
 * l2arc_l2_error() - count a cache device error; degrade after too many
 * @lc: the device
 *
 * Context: arc.lock held.
 */
void l2arc_l2_error(struct l2arc_c *lc)
{
	lc->l2_errors++;
	if (lc->l2_failed ||
	    lc->l2_errors < l2arc_dev_param(&lc->tun, L2ARC_P_MAX_ERRORS))
		return;
	WRITE_ONCE(lc->l2_failed, true);
	DMERR("%s: %llu cache device errors: cache device dropped, running from ARC and origin",
	      lc->name, lc->l2_errors);
}

/* Evict the L2 copy in @slot ahead of the write hand; arc.lock held. */
static void l2arc_evict_slot(struct l2arc_c *lc, u64 slot)
{
	struct arc_hdr *hdr = lc->l2_rmap[slot];

	if (!hdr)
		return;
	if (hdr->flags & ARC_F_IO_IN_PROGRESS) {
		struct l2arc_fill *f = hdr->data;

		if (f && f->from_l2 && f->l2_slot == slot) {
			f->l2_clash = true;
			lc->stats[L2ARC_STAT_L2_EVICT_READING]++;
		}
	}
	if (hdr->state == ARC_MRU || hdr->state == ARC_MFU)
		lc->stats[L2ARC_STAT_L2_EVICT_L1CACHED]++;
	lc->stats[L2ARC_STAT_L2_EVICT_AHEAD]++;
	if (hdr->flags & ARC_F_L2) {
		arc_hdr_clear_l2(&lc->arc, hdr);
	} else {
		/* a feed write that never completed: forget the slot */
		lc->l2_rmap[slot] = NULL;
	}
}

static bool l2arc_eligible(struct arc_hdr *hdr, bool noprefetch)
{
	if (hdr->flags & (ARC_F_IO_IN_PROGRESS | ARC_F_L2 | L2ARC_F_L2_WRITING))
		return false;
	return !(noprefetch && (hdr->flags & ARC_F_PREFETCH));
}

/* Publish this device's L2-only header bytes; true if over the bound. */
static bool l2arc_meta_over(struct l2arc_c *lc)
{
	u64 now = arc_list_size(&lc->arc, ARC_LIST_L2ONLY) *
		  sizeof(struct arc_hdr);
	u64 limit = div_u64(L2ARC_ARC_MAX_BYTES *
			    l2arc_param(L2ARC_P_META_PERCENT), 100);

	atomic64_add(now - lc->l2only_reported, &l2arc_l2only_bytes);
	lc->l2only_reported = now;
	return atomic64_read(&l2arc_l2only_bytes) > limit;
}

/*
 * Pick up to @n eligible blocks, scanning T2 then T1 from their LRU ends
 * at most @depth headers deep each; arc.lock held.
 */
static unsigned int l2arc_collect(struct l2arc_c *lc, struct l2arc_wentry *w,
				  unsigned int n, u64 depth, bool noprefetch)
{
	static const enum arc_list_id order[] = { ARC_T2, ARC_T1 };
	struct arc_hdr *hdr;
	unsigned int i, got = 0;
	u64 scanned;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		scanned = 0;
		list_for_each_entry(hdr, &lc->arc.lists[order[i]], list) {
			if (got == n || scanned++ >= depth)
				break;
			if (l2arc_eligible(hdr, noprefetch))
				w[got++].hdr = hdr;
		}
	}
	return got;
}

/* Give the batch its slots at the write hand and pin it; arc.lock held. */
static void l2arc_assign(struct l2arc_c *lc, struct l2arc_wentry *w,
			 unsigned int n)
{
	u64 start, s;
	unsigned int i;

	if (lc->l2_hand + n > lc->l2_nr_slots) {
		lc->l2_hand = 0;
		lc->l2_laps++;
	}
	start = lc->l2_hand;
	for (s = start; s < start + n; s++)
		l2arc_evict_slot(lc, s);

	for (i = 0; i < n; i++) {
		struct arc_hdr *hdr = w[i].hdr;

		w[i].slot = start + i;
		w[i].page = hdr->data;
		get_page(w[i].page);
		arc_hdr_pin(&lc->arc, hdr);
		hdr->flags &= ~(L2ARC_F_CLASS_PREFETCH | L2ARC_F_CLASS_MFU);
		if (hdr->flags & ARC_F_PREFETCH)
			hdr->flags |= L2ARC_F_CLASS_PREFETCH;
		else if (hdr->state == ARC_MFU)
			hdr->flags |= L2ARC_F_CLASS_MFU;
		hdr->flags |= L2ARC_F_L2_WRITING;
		hdr->l2_slot = w[i].slot;
		lc->l2_rmap[w[i].slot] = hdr;
	}
	lc->l2_hand = start + n;
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
 * Write the batch, consecutive slots, BIO_MAX_VECS blocks a bio; wait.
 * Return: the number of bios sent.
 */
static unsigned int l2arc_write_batch(struct l2arc_c *lc,
				      struct l2arc_wentry *w, unsigned int n,
				      struct l2arc_wbatch *b)
{
	unsigned int bytes = l2arc_block_bytes(lc), i = 0, sent = 0;
	struct blk_plug plug;

	atomic_set(&b->pending, 1);
	init_completion(&b->done);
	b->error = BLK_STS_OK;

	blk_start_plug(&plug);
	while (i < n) {
		unsigned int nr = min_t(unsigned int, n - i, BIO_MAX_VECS);
		struct bio *bio;
		unsigned int j;

		bio = bio_alloc(lc->cache->bdev, nr, REQ_OP_WRITE, GFP_NOIO);
		bio->bi_iter.bi_sector = (sector_t)w[i].slot << lc->block_shift;
		for (j = 0; j < nr; j++)
			__bio_add_page(bio, w[i + j].page, bytes, 0);
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

/* The writes are done: validate what is still valid; arc.lock held. */
static void l2arc_finish_batch(struct l2arc_c *lc, struct l2arc_wentry *w,
			       unsigned int n, bool ok)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct arc_hdr *hdr = w[i].hdr;
		bool resident = hdr->state == ARC_MRU || hdr->state == ARC_MFU;
		bool ghost = hdr->state == ARC_MRU_GHOST ||
			     hdr->state == ARC_MFU_GHOST;
		bool valid = ok && (hdr->flags & L2ARC_F_L2_WRITING) &&
			     hdr->l2_slot == w[i].slot &&
			     ((resident && hdr->data == w[i].page) || ghost);

		hdr->flags &= ~L2ARC_F_L2_WRITING;
		if (valid) {
			if (resident)
				set_page_private(w[i].page, w[i].cksum);
			else
				hdr->l2_cksum = w[i].cksum;
			arc_hdr_set_l2(&lc->arc, hdr);
			lc->l2_blocks++;
			lc->l2_class_blocks[l2arc_class(hdr)]++;
		} else if (lc->l2_rmap[w[i].slot] == hdr) {
			lc->l2_rmap[w[i].slot] = NULL;
		}
		arc_hdr_unpin(&lc->arc, hdr);
	}
}

/*
 * The cache device was dropped: forget every L2 copy, so that their
 * headers (L2-only ones above all) stop holding memory.  In chunks, so
 * that arc.lock is never held for long.  Called by the feed.
 */
static void l2arc_drop_all(struct l2arc_c *lc)
{
	u64 s = 0, end;

	while (s < lc->l2_nr_slots) {
		end = min(s + 4096, lc->l2_nr_slots);
		spin_lock_bh(&lc->arc.lock);
		for (; s < end; s++) {
			struct arc_hdr *hdr = lc->l2_rmap[s];

			if (hdr && (hdr->flags & ARC_F_L2))
				arc_hdr_clear_l2(&lc->arc, hdr);
		}
		spin_unlock_bh(&lc->arc.lock);
		cond_resched();
	}
}

/**
 * l2arc_feed_once() - one feed: write the ARC's tails to the cache device
 * @lc: the device
 * @budget: set to this feed's budget in bytes (0 when it did not run)
 *
 * Returns when the feed's writes are done.  Serialised by feed_mutex.
 *
 * Context: process context, may sleep.
 * Return: bytes written to the cache device (0 when nothing was eligible,
 * there is no usable cache device, or L2 header memory is over its bound).
 */
u64 l2arc_feed_once(struct l2arc_c *lc, u64 *budget)
{
	unsigned int bytes = l2arc_block_bytes(lc), n_max, n = 0, sent;
	struct l2arc_wentry *w = NULL;
	struct l2arc_wbatch b;
	unsigned int noio;
	bool noprefetch;
	u64 depth, headroom, wrote = 0;

	*budget = 0;
	mutex_lock(&lc->feed_mutex);
	if (!lc->cache)
		goto out;
	if (READ_ONCE(lc->l2_failed)) {
		l2arc_drop_all(lc);
		goto out;
	}

	*budget = l2arc_dev_param(&lc->tun, L2ARC_P_WRITE_MAX);
	if (!arc_is_warm(&lc->arc))
		*budget += l2arc_dev_param(&lc->tun, L2ARC_P_WRITE_BOOST);
	/*
	 * Never more than a quarter of the cache device (as OpenZFS), nor
	 * more than the ARC holds: a feed writes only resident blocks, and
	 * with the budget capped at c, "wrote more than half its budget"
	 * (l2arc_feed_again) still means a busy feed when write_max is far
	 * larger than the ARC.
	 */
	*budget = min_t(u64, *budget, (lc->l2_nr_slots / 4) * bytes);
	*budget = min_t(u64, *budget, arc_c(&lc->arc) * bytes);
	n_max = max_t(u64, 1, div_u64(*budget, bytes));
	headroom = l2arc_dev_param(&lc->tun, L2ARC_P_HEADROOM);
	depth = headroom ? (u64)n_max * headroom : U64_MAX;
	noprefetch = l2arc_dev_param(&lc->tun, L2ARC_P_NOPREFETCH);

	/* the batch may be large: vmalloc may serve it, but no I/O */
	noio = memalloc_noio_save();
	w = kvmalloc_array(n_max, sizeof(*w), GFP_KERNEL | __GFP_NOWARN);
	memalloc_noio_restore(noio);

	spin_lock_bh(&lc->arc.lock);
	if (!w || l2arc_meta_over(lc)) {
		lc->stats[L2ARC_STAT_L2_ABORT_LOWMEM]++;
		spin_unlock_bh(&lc->arc.lock);
		goto out;
	}
	lc->stats[L2ARC_STAT_L2_FEEDS]++;
	n = l2arc_collect(lc, w, n_max, depth, noprefetch);
	if (n)
		l2arc_assign(lc, w, n);
	spin_unlock_bh(&lc->arc.lock);
	if (!n)
		goto out;

	for (sent = 0; sent < n; sent++)
		w[sent].cksum = l2arc_cksum(lc, w[sent].page);
	sent = l2arc_write_batch(lc, w, n, &b);

	spin_lock_bh(&lc->arc.lock);
	l2arc_finish_batch(lc, w, n, b.error == BLK_STS_OK);
	lc->stats[L2ARC_STAT_L2_WRITES_SENT] += sent;
	if (b.error == BLK_STS_OK) {
		lc->stats[L2ARC_STAT_L2_WRITES_DONE] += sent;
		lc->stats[L2ARC_STAT_L2_WRITE_BYTES] += (u64)n * bytes;
		wrote = (u64)n * bytes;
	} else {
		lc->stats[L2ARC_STAT_L2_WRITES_ERROR] += sent;
		l2arc_l2_error(lc);
	}
	spin_unlock_bh(&lc->arc.lock);

	while (n--)
		put_page(w[n].page);
out:
	kvfree(w);
	mutex_unlock(&lc->feed_mutex);
	return wrote;
}

static void l2arc_feed_worker(struct work_struct *work)
{
	struct l2arc_c *lc = container_of(to_delayed_work(work),
					  struct l2arc_c, feed_work);
	unsigned long delay;
	u64 budget, wrote;

	wrote = l2arc_feed_once(lc, &budget);
	delay = l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS) * HZ;
	if (l2arc_dev_param(&lc->tun, L2ARC_P_FEED_AGAIN) && budget &&
	    wrote > budget / 2)
		delay = msecs_to_jiffies(l2arc_dev_param(&lc->tun,
							 L2ARC_P_FEED_MIN_MS));
	queue_delayed_work(lc->feed_wq, &lc->feed_work, delay);
}

/**
 * l2arc_feed_start() - (re)start the feed, at resume
 * @lc: the device
 */
void l2arc_feed_start(struct l2arc_c *lc)
{
	if (!lc->cache)
		return;
	WRITE_ONCE(lc->feed_active, true);
	queue_delayed_work(lc->feed_wq, &lc->feed_work,
			   l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS) * HZ);
}

/**
 * l2arc_feed_stop() - stop the feed and wait for a running one, at
 * presuspend and in the dtr
 * @lc: the device
 *
 * Context: process context, may sleep.
 */
void l2arc_feed_stop(struct l2arc_c *lc)
{
	if (!lc->feed_wq)
		return;
	WRITE_ONCE(lc->feed_active, false);
	cancel_delayed_work_sync(&lc->feed_work);
	mutex_lock(&lc->feed_mutex);	/* wait for a feed run by message */
	mutex_unlock(&lc->feed_mutex);
}

/**
 * l2arc_l2_init() - set up the cache device's ring and feed, in the ctr
 * @lc: the device, with its cache device open
 * @error: set on failure
 *
 * Return: 0, -EINVAL for a cache device of more than 2^32 blocks, -ENOMEM.
 */
int l2arc_l2_init(struct l2arc_c *lc, char **error)
{
	u64 slots = bdev_nr_sectors(lc->cache->bdev) >> lc->block_shift;

	if (slots > U32_MAX) {
		*error = "Cache device has more than 2^32 blocks";
		return -EINVAL;
	}
	lc->l2_nr_slots = slots;
	lc->l2_rmap = kvcalloc(slots, sizeof(*lc->l2_rmap), GFP_KERNEL);
	if (!lc->l2_rmap) {
		*error = "Cannot allocate the cache device's slot map";
		return -ENOMEM;
	}
	lc->feed_wq = alloc_workqueue("dm-l2arc-feed-%s", WQ_MEM_RECLAIM, 1,
				      lc->name);
	if (!lc->feed_wq) {
		*error = "Cannot allocate the feed's workqueue";
		return -ENOMEM;
	}
	INIT_DELAYED_WORK(&lc->feed_work, l2arc_feed_worker);
	return 0;
}

/**
 * l2arc_l2_exit() - tear down what l2arc_l2_init() set up, in the dtr,
 * after the directory is gone
 * @lc: the device (may be half set up)
 */
void l2arc_l2_exit(struct l2arc_c *lc)
{
	if (lc->feed_wq)
		destroy_workqueue(lc->feed_wq);
	lc->feed_wq = NULL;
	atomic64_sub(lc->l2only_reported, &l2arc_l2only_bytes);
	lc->l2only_reported = 0;
	kvfree(lc->l2_rmap);
	lc->l2_rmap = NULL;
}

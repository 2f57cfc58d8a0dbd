// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: ARC buffers -- one block's data in order-0 pages.
 *
 * A block's data lives in an array of single pages (as OpenZFS's ABD keeps
 * large buffers in scattered chunks), never in one high-order allocation:
 * on a fragmented machine a 128 KiB block still finds 32 free pages where
 * an order-5 allocation fails, and caching goes on.  A buffer is reference
 * counted: the ARC holds one reference while the block is resident, a fill
 * one while it reads, a reader one while it copies out, the feed one while
 * it writes the block to the cache device.
 *
 * Pages of freed buffers go to a small per-device pool (struct
 * l2arc_pages) and are taken from it first by new buffers: in a warm ARC
 * every miss evicts a block, so the pages are recycled rather than given
 * back to the page allocator and zeroed again when taken (Debian's kernels
 * zero every allocation: init_on_alloc).  The pool holds at most
 * max(256 pages, 2 blocks) and the shrinker empties it first.
 *
 * A run's bio (io.c) is the pages of its blocks' buffers, and pages that
 * follow each other in memory share one bio vector
 * (l2arc_buf_add_to_bio()), so a 1 MiB run goes to a device as one
 * request only if its 256 pages mostly follow each other: 256 scattered
 * pages are more segments than many devices take in one request (128 for
 * null_blk and many HBAs).  So an empty pool is refilled with
 * 2^%L2ARC_PAGES_ORDER contiguous pages at once, split into single pages
 * (split_page()) and kept in address order, and the pool is first in,
 * first out: the pages that a stream's evictions give back, in the order
 * their blocks were read, come out in that order again.  When no such
 * block of pages is free (a fragmented machine), one page is taken, as
 * before: nothing waits or fails for want of contiguity.
 *
 * Context: everything here may run in process or softirq context (BHs
 * off, under arc.lock too); nothing sleeps.  The pool's lock nests inside
 * arc.lock.
 */
#include <linux/crc32c.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "dm-l2arc.h"

/* The pool keeps at least this many pages. */
#define L2ARC_PAGES_MIN_PAGES	256

/**
 * l2arc_pages_init() - set up a device's page pool
 * @p: the pool
 * @block_pages: pages per block of the device
 *
 * May be called again while the pool is empty (once the block size is
 * known).
 */
void l2arc_pages_init(struct l2arc_pages *p, unsigned int block_pages)
{
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->pages);
	p->nr = 0;
	p->refill_failed = jiffies - HZ;
	p->max = max_t(unsigned int, L2ARC_PAGES_MIN_PAGES, 2 * block_pages);
}

/**
 * l2arc_pages_shrink() - give free pages of the pool back to the system
 * @p: the pool
 * @nr: how many at most
 *
 * Context: any but hard IRQ.
 * Return: the pages freed.
 */
unsigned long l2arc_pages_shrink(struct l2arc_pages *p, unsigned long nr)
{
	unsigned long freed = 0;
	LIST_HEAD(free);
	struct page *page, *tmp;

	spin_lock_bh(&p->lock);
	while (freed < nr && !list_empty(&p->pages)) {
		list_move(p->pages.next, &free);
		p->nr--;
		freed++;
	}
	spin_unlock_bh(&p->lock);
	list_for_each_entry_safe(page, tmp, &free, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	return freed;
}

/**
 * l2arc_pages_exit() - free every page of the pool (table destruction)
 * @p: the pool
 */
void l2arc_pages_exit(struct l2arc_pages *p)
{
	l2arc_pages_shrink(p, ULONG_MAX);
}

/**
 * l2arc_pages_count() - free pages in the pool now
 * @p: the pool
 *
 * Return: the count (a snapshot).
 */
unsigned int l2arc_pages_count(struct l2arc_pages *p)
{
	return READ_ONCE(p->nr);
}

/* Put @page at the pool's tail, or free it if the pool is full. */
static void l2arc_pages_put(struct l2arc_pages *p, struct page *page)
{
	spin_lock_bh(&p->lock);
	if (p->nr < p->max) {
		list_add_tail(&page->lru, &p->pages);
		p->nr++;
		page = NULL;
	}
	spin_unlock_bh(&p->lock);
	if (page)
		__free_page(page);
}

/*
 * The pool is empty: 2^%L2ARC_PAGES_ORDER contiguous pages from the page
 * allocator, split into single pages; the first is returned, the rest go
 * to the pool in address order.  Without reclaim (neither the caller's
 * nor kswapd's: nothing is compacted for it), retries, emergency reserves
 * or a warning.  When no such block is free, one page (with @gfp), and no
 * such attempt for a second after (a fragmented machine would fail it
 * for every page of a run).
 */
static struct page *l2arc_pages_refill(struct l2arc_pages *p, gfp_t gfp)
{
	gfp_t high = (gfp & ~__GFP_RECLAIM) | __GFP_NOWARN | __GFP_NORETRY |
		     __GFP_NOMEMALLOC;
	struct page *page = NULL;
	LIST_HEAD(rest);
	unsigned int i;

	if (time_after_eq(jiffies, READ_ONCE(p->refill_failed) + HZ)) {
		page = alloc_pages(high, L2ARC_PAGES_ORDER);
		if (!page)
			WRITE_ONCE(p->refill_failed, jiffies);
	}
	if (!page)
		return alloc_page(gfp);
	split_page(page, L2ARC_PAGES_ORDER);
	for (i = 1; i < 1U << L2ARC_PAGES_ORDER; i++)
		list_add_tail(&page[i].lru, &rest);
	spin_lock_bh(&p->lock);
	while (!list_empty(&rest) && p->nr < p->max) {
		list_move_tail(rest.next, &p->pages);
		p->nr++;
	}
	spin_unlock_bh(&p->lock);
	/* another CPU's refill filled the pool meanwhile: these go back */
	while (!list_empty(&rest)) {
		struct page *q = list_first_entry(&rest, struct page, lru);

		list_del(&q->lru);
		__free_page(q);
	}
	return page;
}

/* The page at the pool's head (the first put there), else a refill. */
static struct page *l2arc_pages_get(struct l2arc_pages *p, gfp_t gfp)
{
	struct page *page = NULL;

	spin_lock_bh(&p->lock);
	if (!list_empty(&p->pages)) {
		page = list_first_entry(&p->pages, struct page, lru);
		list_del(&page->lru);
		p->nr--;
	}
	spin_unlock_bh(&p->lock);
	return page ?: l2arc_pages_refill(p, gfp);
}

/**
 * l2arc_buf_alloc() - a buffer for one block, pages from the pool first
 * @lc: the device (its block size and pool)
 * @gfp: allocation flags (%GFP_NOWAIT on the I/O path)
 *
 * The data is not initialised (a recycled page holds an old block's).
 *
 * Return: the buffer with one reference, or NULL.
 */
struct l2arc_buf *l2arc_buf_alloc(struct l2arc_c *lc, gfp_t gfp)
{
	unsigned int nr = lc->block_pages, i;
	struct l2arc_buf *b;

	b = kmalloc(struct_size(b, pages, nr), gfp);
	if (!b)
		return NULL;
	refcount_set(&b->ref, 1);
	b->nr = nr;
	b->owner = lc;
	b->oblock = U64_MAX;
	for (i = 0; i < nr; i++) {
		b->pages[i] = l2arc_pages_get(&lc->pages, gfp);
		if (!b->pages[i]) {
			b->nr = i;
			l2arc_buf_put(lc, b);
			return NULL;
		}
	}
	return b;
}

/**
 * l2arc_buf_get() - take a reference
 * @b: the buffer
 */
void l2arc_buf_get(struct l2arc_buf *b)
{
	refcount_inc(&b->ref);
}

/**
 * l2arc_buf_tryget() - take a reference to a buffer found without a lock
 * @b: a buffer that was some header's data during the caller's RCU
 *     read-side section
 *
 * Context: rcu_read_lock() held (the buffer's memory lives that long).
 * Return: true with a reference taken; false if the last reference is
 * gone (the buffer is being freed).
 */
bool l2arc_buf_tryget(struct l2arc_buf *b)
{
	return refcount_inc_not_zero(&b->ref);
}

/**
 * l2arc_buf_put() - drop a reference; the last gives the pages to the pool
 * @lc: the device
 * @b: the buffer
 */
void l2arc_buf_put(struct l2arc_c *lc, struct l2arc_buf *b)
{
	unsigned int i;

	if (!refcount_dec_and_test(&b->ref))
		return;
	for (i = 0; i < b->nr; i++)
		l2arc_pages_put(&lc->pages, b->pages[i]);
	kfree_rcu(b, rcu);
}

/**
 * l2arc_buf_cksum() - crc32c of a block's data
 * @b: the buffer
 *
 * Return: crc32c of the block, seed ~0 (the same as over one contiguous
 * copy of it).
 */
u32 l2arc_buf_cksum(struct l2arc_buf *b)
{
	u32 crc = ~0U;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		void *p = kmap_local_page(b->pages[i]);

		crc = crc32c(crc, p, PAGE_SIZE);
		kunmap_local(p);
	}
	return crc;
}

/**
 * l2arc_buf_copy_to_bio() - copy part of a block into a read
 * @b: the block's buffer
 * @boff: where the part starts in the block, bytes
 * @bio: the read
 * @it: where the part goes in @bio (an iterator of @bio, positioned by the
 *      caller: copying never walks @bio from its start, so a bio's blocks
 *      are copied in time linear in its segments)
 * @len: the part's length, bytes; @boff + @len <= the block's size, and
 *       @len <= what is left of @it
 */
void l2arc_buf_copy_to_bio(struct l2arc_buf *b, size_t boff, struct bio *bio,
			   struct bvec_iter it, size_t len)
{
	while (len) {
		struct bio_vec bv = bio_iter_iovec(bio, it);
		unsigned int seg = min_t(size_t, bv.bv_len, len), done = 0;

		while (done < seg) {
			unsigned int poff = offset_in_page(boff);
			unsigned int n = min_t(unsigned int, seg - done,
					       PAGE_SIZE - poff);

			memcpy_page(bv.bv_page, bv.bv_offset + done,
				    b->pages[boff >> PAGE_SHIFT], poff, n);
			done += n;
			boff += n;
		}
		bio_advance_iter_single(bio, &it, seg);
		len -= seg;
	}
}

/**
 * l2arc_buf_add_to_bio() - add a block's pages to a bio
 * @bio: a bio with room for @b->nr more pages (bio vectors)
 * @b: the buffer
 *
 * With bio_add_page(), which extends the bio's last vector when the page
 * follows it in memory, as a reader's own O_DIRECT bio is built: the block
 * layer splits a bio for a device's max_segments by counting its vectors,
 * so a 1 MiB run of 256 single-page vectors went to a device that takes
 * 128 segments (null_blk, many HBAs) as two requests where the reader's 1
 * MiB read goes as one.  The pool hands out pages that follow each other
 * (see above).
 */
void l2arc_buf_add_to_bio(struct bio *bio, struct l2arc_buf *b)
{
	unsigned int i;

	for (i = 0; i < b->nr; i++)
		WARN_ON_ONCE(bio_add_page(bio, b->pages[i], PAGE_SIZE, 0) !=
			     PAGE_SIZE);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for ARC buffers (buf.c): a block in order-0 pages has the
 * checksum of the same bytes in one piece, copies out at any sector
 * offset, goes into a bio as few vectors as its pages' places allow, and
 * its pages are recycled through the device's pool, which takes pages
 * that follow each other when empty, gives them out first in first out,
 * keeps no more than its bound and gives everything back when shrunk.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dm-l2arc.h"

#define BUF_TEST_PAGES	4	/* 16 KiB blocks (with 4 KiB pages) */

static struct l2arc_c *buf_test_dev(struct kunit *test, unsigned int pages)
{
	struct l2arc_c *lc;

	lc = kunit_kzalloc(test, sizeof(*lc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lc);
	lc->arc = &lc->arc_own;
	lc->block_pages = pages;
	lc->block_sectors = pages << (PAGE_SHIFT - SECTOR_SHIFT);
	l2arc_pages_init(&lc->pages, pages);
	test->priv = lc;
	return lc;
}

static void buf_test_exit(struct kunit *test)
{
	struct l2arc_c *lc = test->priv;

	if (lc)
		l2arc_pages_exit(&lc->pages);
}

/* Fill @b with a pattern that differs at every byte of the block. */
static void buf_test_fill(struct l2arc_buf *b, u8 *flat)
{
	unsigned int i, j;

	for (i = 0; i < b->nr; i++) {
		u8 *p = kmap_local_page(b->pages[i]);

		for (j = 0; j < PAGE_SIZE; j++)
			p[j] = (u8)(i * 7 + j * 13 + (j >> 8));
		memcpy(flat + i * PAGE_SIZE, p, PAGE_SIZE);
		kunmap_local(p);
	}
}

static void buf_test_cksum(struct kunit *test)
{
	struct l2arc_c *lc = buf_test_dev(test, BUF_TEST_PAGES);
	size_t bytes = BUF_TEST_PAGES * PAGE_SIZE;
	struct l2arc_buf *b;
	u8 *flat;

	flat = kunit_kmalloc(test, bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, flat);
	b = l2arc_buf_alloc(lc, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, b->nr, BUF_TEST_PAGES);
	buf_test_fill(b, flat);
	KUNIT_EXPECT_EQ(test, l2arc_buf_cksum(b), crc32c(~0U, flat, bytes));
	l2arc_buf_put(lc, b);
}

/* Copy 3 sectors from sector 7 (across a page boundary) into a bio. */
static void buf_test_to_bio(struct kunit *test)
{
	struct l2arc_c *lc = buf_test_dev(test, BUF_TEST_PAGES);
	size_t bytes = BUF_TEST_PAGES * PAGE_SIZE, off = 7 * SECTOR_SIZE;
	struct bio_vec bvecs[2];
	struct page *dst[2];
	struct l2arc_buf *b;
	struct bio bio;
	u8 *flat, *p;
	int i;

	flat = kunit_kmalloc(test, bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, flat);
	b = l2arc_buf_alloc(lc, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	buf_test_fill(b, flat);
	for (i = 0; i < 2; i++) {
		dst[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, dst[i]);
	}
	/* a 1.5 KiB read in two segments: 1 KiB at 3 KiB of a page, 512 B */
	bio_init(&bio, NULL, bvecs, 2, REQ_OP_READ);
	__bio_add_page(&bio, dst[0], 2 * SECTOR_SIZE, PAGE_SIZE - 1024);
	__bio_add_page(&bio, dst[1], SECTOR_SIZE, 0);
	l2arc_buf_copy_to_bio(b, off, &bio, bio.bi_iter, 3 * SECTOR_SIZE);

	p = kmap_local_page(dst[0]);
	KUNIT_EXPECT_EQ(test, memcmp(p + PAGE_SIZE - 1024, flat + off, 1024), 0);
	KUNIT_EXPECT_EQ(test, p[PAGE_SIZE - 1025], 0);
	kunmap_local(p);
	p = kmap_local_page(dst[1]);
	KUNIT_EXPECT_EQ(test, memcmp(p, flat + off + 1024, SECTOR_SIZE), 0);
	KUNIT_EXPECT_EQ(test, p[SECTOR_SIZE], 0);
	kunmap_local(p);

	bio_uninit(&bio);
	for (i = 0; i < 2; i++)
		__free_page(dst[i]);
	l2arc_buf_put(lc, b);
}

static void buf_test_pool(struct kunit *test)
{
	struct l2arc_c *lc = buf_test_dev(test, BUF_TEST_PAGES);
	const unsigned int REFILL = 1U << L2ARC_PAGES_ORDER;
	struct page *first[BUF_TEST_PAGES];
	struct l2arc_buf *a, *b, *bufs[80];
	struct l2arc_buf *next[(1U << L2ARC_PAGES_ORDER) / BUF_TEST_PAGES];
	unsigned int i, j, max = lc->pages.max;

	KUNIT_EXPECT_EQ(test, max, 256);
	/*
	 * the empty pool takes REFILL contiguous pages: the buffer has the
	 * first ones, in address order, and the rest wait in the pool
	 */
	a = l2arc_buf_alloc(lc, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	memcpy(first, a->pages, sizeof(first));
	if (!l2arc_pages_count(&lc->pages)) {
		/*
		 * no refill: a failure if such a block can be had now, else
		 * nothing below can be checked
		 */
		struct page *high = alloc_pages(GFP_KERNEL | __GFP_NOWARN,
						L2ARC_PAGES_ORDER);

		l2arc_buf_put(lc, a);
		if (high) {
			__free_pages(high, L2ARC_PAGES_ORDER);
			KUNIT_FAIL(test, "the empty pool did not refill");
			return;
		}
		kunit_skip(test, "no 2^L2ARC_PAGES_ORDER contiguous pages free");
	}
	for (i = 1; i < BUF_TEST_PAGES; i++)
		KUNIT_EXPECT_PTR_EQ(test, first[i], first[0] + i);
	KUNIT_EXPECT_EQ(test, l2arc_pages_count(&lc->pages),
			REFILL - BUF_TEST_PAGES);

	/* a reference keeps the pages; the last one gives them to the pool */
	l2arc_buf_get(a);
	l2arc_buf_put(lc, a);
	KUNIT_EXPECT_EQ(test, l2arc_pages_count(&lc->pages),
			REFILL - BUF_TEST_PAGES);
	l2arc_buf_put(lc, a);
	KUNIT_EXPECT_EQ(test, l2arc_pages_count(&lc->pages), REFILL);

	/*
	 * first in, first out: the next buffers take the rest of the refill
	 * in address order, then a's pages in the order they were freed
	 */
	for (i = 0; i < ARRAY_SIZE(next); i++) {
		next[i] = l2arc_buf_alloc(lc, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, next[i]);
	}
	KUNIT_EXPECT_EQ(test, l2arc_pages_count(&lc->pages), 0);
	for (i = 0; i < ARRAY_SIZE(next) - 1; i++)
		for (j = 0; j < BUF_TEST_PAGES; j++)
			KUNIT_EXPECT_PTR_EQ(test, next[i]->pages[j],
					    first[0] + (i + 1) * BUF_TEST_PAGES + j);
	b = next[ARRAY_SIZE(next) - 1];
	for (j = 0; j < BUF_TEST_PAGES; j++)
		KUNIT_EXPECT_PTR_EQ(test, b->pages[j], first[j]);
	for (i = 0; i < ARRAY_SIZE(next); i++)
		l2arc_buf_put(lc, next[i]);

	/* the pool keeps at most its bound */
	for (i = 0; i < ARRAY_SIZE(bufs); i++) {
		bufs[i] = l2arc_buf_alloc(lc, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, bufs[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bufs); i++)
		l2arc_buf_put(lc, bufs[i]);
	KUNIT_EXPECT_EQ(test, l2arc_pages_count(&lc->pages), max);

	/* the shrinker takes what it asks for, then the rest */
	KUNIT_EXPECT_EQ(test, l2arc_pages_shrink(&lc->pages, 10), 10);
	KUNIT_EXPECT_EQ(test, l2arc_pages_count(&lc->pages), max - 10);
	KUNIT_EXPECT_EQ(test, l2arc_pages_shrink(&lc->pages, ULONG_MAX),
			max - 10);
	KUNIT_EXPECT_EQ(test, l2arc_pages_count(&lc->pages), 0);
}

/* 1 MiB blocks: the pool keeps two blocks' pages. */
static void buf_test_pool_bound(struct kunit *test)
{
	struct l2arc_c *lc = buf_test_dev(test, 256);

	KUNIT_EXPECT_EQ(test, lc->pages.max, 512);
}

/*
 * A block's pages go into a bio as few vectors as their places in memory
 * allow: pages that follow each other extend one vector (a device's
 * max_segments is counted in vectors when a bio is split), pages out of
 * order each take their own.  Two buffers of BUF_TEST_PAGES pages, their
 * pages swapped for pages of one contiguous allocation: in order, the two
 * blocks are one vector; the second block's pages in reverse order, one
 * vector for the first block and one for each page of the second.
 */
static void buf_test_add_to_bio(struct kunit *test)
{
	const unsigned int n = 2 * BUF_TEST_PAGES;
	struct l2arc_c *lc = buf_test_dev(test, BUF_TEST_PAGES);
	struct page *own[2][BUF_TEST_PAGES];
	struct bio_vec bvec[2 * BUF_TEST_PAGES];
	struct l2arc_buf *b[2];
	struct page *run;
	struct bio bio;
	unsigned int i, j, rev;

	BUILD_BUG_ON(2 * BUF_TEST_PAGES != 1 << 3);
	for (i = 0; i < 2; i++) {
		b[i] = l2arc_buf_alloc(lc, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, b[i]);
		memcpy(own[i], b[i]->pages, sizeof(own[i]));
	}
	run = alloc_pages(GFP_KERNEL, 3);
	if (!run) {
		l2arc_buf_put(lc, b[0]);
		l2arc_buf_put(lc, b[1]);
		KUNIT_FAIL(test, "no 8 contiguous pages");
		return;
	}
	split_page(run, 3);
	for (rev = 0; rev < 2; rev++) {
		for (i = 0; i < 2; i++)
			for (j = 0; j < BUF_TEST_PAGES; j++)
				b[i]->pages[j] = run + i * BUF_TEST_PAGES +
					(rev && i ? BUF_TEST_PAGES - 1 - j : j);
		bio_init(&bio, NULL, bvec, n, REQ_OP_READ);
		l2arc_buf_add_to_bio(&bio, b[0]);
		l2arc_buf_add_to_bio(&bio, b[1]);
		KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_size, n * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, bio.bi_vcnt,
				rev ? 1 + BUF_TEST_PAGES : 1);
		KUNIT_EXPECT_PTR_EQ(test, bvec[0].bv_page, run);
		KUNIT_EXPECT_EQ(test, bvec[0].bv_len,
				(rev ? BUF_TEST_PAGES : n) * PAGE_SIZE);
		if (rev)
			KUNIT_EXPECT_PTR_EQ(test, bvec[1].bv_page,
					    run + n - 1);
		bio_uninit(&bio);
	}
	/* the buffers' own pages back, before the pool takes them */
	for (i = 0; i < n; i++)
		__free_page(run + i);
	for (i = 0; i < 2; i++) {
		memcpy(b[i]->pages, own[i], sizeof(own[i]));
		l2arc_buf_put(lc, b[i]);
	}
}

static struct kunit_case buf_test_cases[] = {
	KUNIT_CASE(buf_test_cksum),
	KUNIT_CASE(buf_test_to_bio),
	KUNIT_CASE(buf_test_pool),
	KUNIT_CASE(buf_test_pool_bound),
	KUNIT_CASE(buf_test_add_to_bio),
	{}
};

static struct kunit_suite buf_test_suite = {
	.name = "dm_l2arc_buf",
	.exit = buf_test_exit,
	.test_cases = buf_test_cases,
};

kunit_test_suite(buf_test_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the slow-cache bypass's comparison (l2.c): the size
 * classes of a read, the pair of latencies compared (the smallest class
 * with a read on both devices), and the decision at l2arc_slow_bypass_pct
 * 200 (the default), including the case that used to hide a slow cache
 * device: the origin measured only on large read-ahead runs.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "dm-l2arc.h"

static int l2_test_init(struct kunit *test)
{
	struct l2arc_c *lc;

	lc = kunit_kzalloc(test, sizeof(*lc), GFP_KERNEL);
	if (!lc)
		return -ENOMEM;
	lc->arc = &lc->arc_own;
	test->priv = lc;
	return 0;
}

/* the class boundaries, bytes: 16 KiB and 256 KiB */
static void l2_test_lat_class(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, l2arc_lat_class(512), 0U);
	KUNIT_EXPECT_EQ(test, l2arc_lat_class(SZ_4K), 0U);
	KUNIT_EXPECT_EQ(test, l2arc_lat_class(SZ_16K), 0U);
	KUNIT_EXPECT_EQ(test, l2arc_lat_class(SZ_16K + SZ_4K), 1U);
	KUNIT_EXPECT_EQ(test, l2arc_lat_class(SZ_256K), 1U);
	KUNIT_EXPECT_EQ(test, l2arc_lat_class(SZ_256K + SZ_4K), 2U);
	KUNIT_EXPECT_EQ(test, l2arc_lat_class(SZ_1M), 2U);
	KUNIT_EXPECT_EQ(test, l2arc_lat_class(U64_MAX), 2U);
}

/* the first read of an EWMA is its value */
static void l2_test_set(struct ewma_l2arc_lat *e, unsigned long us)
{
	ewma_l2arc_lat_add(e, us);
}

static void l2_test_lat_pair(struct kunit *test)
{
	struct l2arc_c *lc = test->priv;
	u64 l2, origin;

	/* nothing measured: class 0's pair, both 0, not slow */
	KUNIT_EXPECT_FALSE(test, l2arc_lat_pair(lc, &l2, &origin));
	KUNIT_EXPECT_EQ(test, l2, 0ULL);
	KUNIT_EXPECT_EQ(test, origin, 0ULL);
	KUNIT_EXPECT_FALSE(test, l2arc_l2_slow(lc));

	/*
	 * 4 KiB L2 hits at 20 ms, the origin only read 1 MiB runs at 45 ms:
	 * no class in common, so no decision (a single average per device
	 * would have called 20 ms against 45 ms fast)
	 */
	l2_test_set(&lc->l2.lat[0], 20000);
	l2_test_set(&lc->l2.origin_lat[2], 45000);
	KUNIT_EXPECT_FALSE(test, l2arc_lat_pair(lc, &l2, &origin));
	KUNIT_EXPECT_EQ(test, l2, 20000ULL);
	KUNIT_EXPECT_EQ(test, origin, 0ULL);
	KUNIT_EXPECT_FALSE(test, l2arc_l2_slow(lc));

	/* the origin's first 4 KiB read, 2 ms: class 0 decides, slow */
	l2_test_set(&lc->l2.origin_lat[0], 2000);
	KUNIT_EXPECT_TRUE(test, l2arc_lat_pair(lc, &l2, &origin));
	KUNIT_EXPECT_EQ(test, l2, 20000ULL);
	KUNIT_EXPECT_EQ(test, origin, 2000ULL);
	KUNIT_EXPECT_TRUE(test, l2arc_l2_slow(lc));

	/* class 2 on both, the cache device fast there: class 0 still decides */
	l2_test_set(&lc->l2.lat[2], 1000);
	KUNIT_EXPECT_TRUE(test, l2arc_lat_pair(lc, &l2, &origin));
	KUNIT_EXPECT_EQ(test, origin, 2000ULL);
	KUNIT_EXPECT_TRUE(test, l2arc_l2_slow(lc));
}

/* only a class in common above 0: that one decides; 200 % is not over */
static void l2_test_lat_pair_large(struct kunit *test)
{
	struct l2arc_c *lc = test->priv;
	u64 l2, origin;

	l2_test_set(&lc->l2.lat[1], 8000);
	l2_test_set(&lc->l2.origin_lat[1], 4000);
	l2_test_set(&lc->l2.origin_lat[2], 100);
	KUNIT_EXPECT_TRUE(test, l2arc_lat_pair(lc, &l2, &origin));
	KUNIT_EXPECT_EQ(test, l2, 8000ULL);
	KUNIT_EXPECT_EQ(test, origin, 4000ULL);
	KUNIT_EXPECT_FALSE(test, l2arc_l2_slow(lc));	/* exactly 200 % */
	l2_test_set(&lc->l2.lat[1], 8016);	/* EWMA: (7 * 8000 + 8016) / 8 */
	KUNIT_EXPECT_EQ(test, ewma_l2arc_lat_read(&lc->l2.lat[1]), 8002UL);
	KUNIT_EXPECT_TRUE(test, l2arc_l2_slow(lc));
}

static struct kunit_case l2_cases[] = {
	KUNIT_CASE(l2_test_lat_class),
	KUNIT_CASE(l2_test_lat_pair),
	KUNIT_CASE(l2_test_lat_pair_large),
	{}
};

static struct kunit_suite l2_suite = {
	.name = "dm_l2arc_l2_latency",
	.init = l2_test_init,
	.test_cases = l2_cases,
};

kunit_test_suite(l2_suite);

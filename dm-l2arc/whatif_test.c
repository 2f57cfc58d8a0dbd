// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the what-if simulations (whatif.c): the sampling rate
 * and the ladders' sizes, and exact hit counts on streams whose answer is
 * known.  The ARC's counts on the loops were checked with
 * tests/tools/arc_ref.py (the paper's Fig. 4, p in fixed point): a loop
 * of N distinct blocks gets no hit from an ARC of fewer than N blocks and
 * every read after the first pass from one of N or more.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "whatif.h"

static const u64 whatif_test_eighths[WHATIF_NR_ARC] = {
	1, 2, 4, 8, 16, 32, 64
};

/*
 * Read blocks [0, @n) @passes times, every one an ARC miss of the device,
 * and replay the log after each pass (a pass logs at most 4,096 events).
 */
static void whatif_test_loop(struct l2arc_whatif *wi, u64 n,
			     unsigned int passes)
{
	unsigned int p;
	u64 b;

	for (p = 0; p < passes; p++) {
		for (b = 0; b < n; b++)
			if (l2arc_whatif_sampled(wi, b))
				l2arc_whatif_read(wi, b, WHATIF_MISS);
		l2arc_whatif_sync(wi);
	}
}

static u64 whatif_test_sampled(struct l2arc_whatif *wi, u64 n)
{
	u64 b, k = 0;

	for (b = 0; b < n; b++)
		k += l2arc_whatif_sampled(wi, b);
	return k;
}

/* arc_max of 512 blocks: every block is sampled, the sizes are exact. */
static void whatif_test_exact_sizes(struct kunit *test)
{
	struct l2arc_whatif *wi = l2arc_whatif_create(512, 0, 4096);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, wi);
	KUNIT_EXPECT_EQ(test, wi->t_arc, WHATIF_HASH_ONE);
	KUNIT_EXPECT_EQ(test, wi->t_l2, 0);
	for (i = 0; i < WHATIF_NR_ARC; i++) {
		KUNIT_EXPECT_EQ(test, wi->arc[i].blocks,
				64 * whatif_test_eighths[i]);
		KUNIT_EXPECT_EQ(test, arc_c(&wi->arc[i].arc),
				64 * whatif_test_eighths[i]);
	}
	KUNIT_EXPECT_EQ(test, whatif_test_sampled(wi, 100000), 100000);
	l2arc_whatif_destroy(wi);
}

/*
 * A loop of 1,000 blocks read 4 times at arc_max 512: no hit below 1,000
 * blocks, 3,000 at 1,024 and more.
 */
static void whatif_test_loop_exact(struct kunit *test)
{
	static const u64 hits[WHATIF_NR_ARC] = {
		0, 0, 0, 0, 3000, 3000, 3000
	};
	struct l2arc_whatif *wi = l2arc_whatif_create(512, 0, 4096);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, wi);
	whatif_test_loop(wi, 1000, 4);
	for (i = 0; i < WHATIF_NR_ARC; i++) {
		KUNIT_EXPECT_EQ(test, wi->arc[i].n.reads, 4000);
		KUNIT_EXPECT_EQ(test, wi->arc[i].n.hits, hits[i]);
	}
	KUNIT_EXPECT_EQ(test, wi->actual.reads, 4000);
	KUNIT_EXPECT_EQ(test, wi->actual.hits, 0);
	KUNIT_EXPECT_EQ(test, wi->dropped, 0);
	KUNIT_EXPECT_GT(test, l2arc_whatif_bytes(wi), 2000 * sizeof(struct arc_hdr));

	/* a reset zeroes the counts; the caches stay warm */
	l2arc_whatif_reset(wi);
	KUNIT_EXPECT_EQ(test, wi->arc[6].n.reads, 0);
	KUNIT_EXPECT_EQ(test, wi->actual.reads, 0);
	whatif_test_loop(wi, 1000, 1);
	KUNIT_EXPECT_EQ(test, wi->arc[6].n.hits, 1000);
	KUNIT_EXPECT_EQ(test, wi->arc[0].n.hits, 0);

	/* a write of the loop drops it: the next pass misses everywhere */
	l2arc_whatif_invalidate(wi, 0, 1000);
	l2arc_whatif_reset(wi);
	whatif_test_loop(wi, 1000, 1);
	for (i = 0; i < WHATIF_NR_ARC; i++)
		KUNIT_EXPECT_EQ(test, wi->arc[i].n.hits, 0);
	l2arc_whatif_destroy(wi);
}

/*
 * arc_max of 65,536 blocks: a sample of 1/32 (threshold 2^19), so the
 * miniature at arc_max holds 2,048 blocks.  Blocks 0..32,767 hold 1,025
 * sampled ones (hash_64(b, 24) < 2^19); a loop of them read twice hits
 * 1,025 times in the miniatures of 2,048 blocks and more, never below.
 */
static void whatif_test_loop_sampled(struct kunit *test)
{
	static const u64 sample[WHATIF_NR_ARC] = {
		256, 512, 1024, 2048, 4096, 8192, 16384
	};
	static const u64 hits[WHATIF_NR_ARC] = {
		0, 0, 0, 1025, 1025, 1025, 1025
	};
	struct l2arc_whatif *wi = l2arc_whatif_create(65536, 0, 4096);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, wi);
	KUNIT_EXPECT_EQ(test, wi->t_arc, 1 << 19);
	KUNIT_EXPECT_EQ(test, whatif_test_sampled(wi, 32768), 1025);
	whatif_test_loop(wi, 32768, 2);
	for (i = 0; i < WHATIF_NR_ARC; i++) {
		KUNIT_EXPECT_EQ(test, arc_c(&wi->arc[i].arc), sample[i]);
		KUNIT_EXPECT_EQ(test, wi->arc[i].blocks,
				8192 * whatif_test_eighths[i]);
		KUNIT_EXPECT_EQ(test, wi->arc[i].n.reads, 2 * 1025);
		KUNIT_EXPECT_EQ(test, wi->arc[i].n.hits, hits[i]);
	}
	/* a range longer than 64 * 2,048 blocks walks the miniatures */
	l2arc_whatif_invalidate(wi, 0, 1 << 20);
	l2arc_whatif_reset(wi);
	whatif_test_loop(wi, 32768, 1);
	KUNIT_EXPECT_EQ(test, wi->arc[6].n.hits, 0);
	l2arc_whatif_destroy(wi);
}

/*
 * The L2 ladder: arc_max 64, 256 slots, every block sampled; rings of 32
 * to 2,048 slots.  A loop of 200 blocks read 3 times: every read after the
 * first pass that the ARC misses finds its block in a ring of 200 slots or
 * more (it was written when the ARC evicted it, and nothing overwrote it),
 * so those give 400 hits of 600 reads, ARC and L2 together.  Rings of 32
 * to 128 slots are overwritten before the loop comes back: no L2 hit.
 */
static void whatif_test_l2_loop(struct kunit *test)
{
	static const u64 l2_hits[WHATIF_NR_L2] = { 0, 0, 0, 400, 400, 400, 400 };
	struct l2arc_whatif *wi = l2arc_whatif_create(64, 256, 4096);
	struct whatif_arc *one;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, wi);
	one = &wi->arc[WHATIF_ARC_1X];
	KUNIT_EXPECT_EQ(test, wi->t_l2, WHATIF_HASH_ONE);
	whatif_test_loop(wi, 200, 3);
	KUNIT_EXPECT_EQ(test, one->n.reads, 600);
	KUNIT_EXPECT_EQ(test, one->n.hits, 0);
	KUNIT_EXPECT_EQ(test, one->n_l2.reads, 600);
	for (i = 0; i < WHATIF_NR_L2; i++) {
		KUNIT_EXPECT_EQ(test, wi->l2[i].nr,
				32 * whatif_test_eighths[i]);
		KUNIT_EXPECT_EQ(test, wi->l2[i].l2_hits, l2_hits[i]);
	}
	/* a write drops the copies too */
	l2arc_whatif_invalidate(wi, 0, 200);
	l2arc_whatif_reset(wi);
	whatif_test_loop(wi, 200, 1);
	for (i = 0; i < WHATIF_NR_L2; i++)
		KUNIT_EXPECT_EQ(test, wi->l2[i].l2_hits, 0);
	l2arc_whatif_destroy(wi);
}

/* The device's own results are counted as given. */
static void whatif_test_actual(struct kunit *test)
{
	struct l2arc_whatif *wi = l2arc_whatif_create(64, 256, 4096);

	KUNIT_ASSERT_NOT_NULL(test, wi);
	l2arc_whatif_read(wi, 1, WHATIF_HIT);
	l2arc_whatif_read(wi, 2, WHATIF_L2_HIT);
	l2arc_whatif_read(wi, 3, WHATIF_L2_HIT);
	l2arc_whatif_read(wi, 4, WHATIF_MISS);
	l2arc_whatif_invalidate(wi, 5, 1);
	l2arc_whatif_sync(wi);
	KUNIT_EXPECT_EQ(test, wi->actual.reads, 4);
	KUNIT_EXPECT_EQ(test, wi->actual.hits, 1);
	KUNIT_EXPECT_EQ(test, wi->actual.l2_hits, 0);	/* the ARC's alone */
	KUNIT_EXPECT_EQ(test, wi->actual_l2.reads, 4);
	KUNIT_EXPECT_EQ(test, wi->actual_l2.l2_hits, 2);
	KUNIT_EXPECT_EQ(test, wi->dropped, 0);
	l2arc_whatif_destroy(wi);
}

/* A full log loses what comes after, and says how much. */
static void whatif_test_log_full(struct kunit *test)
{
	struct l2arc_whatif *wi = l2arc_whatif_create(64, 0, 4096);
	u64 b;

	KUNIT_ASSERT_NOT_NULL(test, wi);
	mutex_lock(&wi->lock);		/* no replay meanwhile */
	for (b = 0; b < WHATIF_LOG_EVENTS + 10; b++)
		l2arc_whatif_read(wi, b, WHATIF_MISS);
	KUNIT_EXPECT_EQ(test, wi->nlog, WHATIF_LOG_EVENTS);
	KUNIT_EXPECT_EQ(test, wi->log_dropped, 10);
	mutex_unlock(&wi->lock);
	l2arc_whatif_sync(wi);
	KUNIT_EXPECT_EQ(test, wi->actual.reads, WHATIF_LOG_EVENTS);
	KUNIT_EXPECT_EQ(test, wi->dropped, 10);
	l2arc_whatif_destroy(wi);
}

/* Block @i of the skewed stream: half the reads on 1/16 of 65,536 blocks. */
static u64 whatif_test_skewed(u32 *x)
{
	*x ^= *x << 13;		/* xorshift32 */
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return (*x & 1) ? (*x >> 1) & 4095 : (*x >> 1) & 65535;
}

static const struct arc_ops whatif_test_ops = {};

/* ns for 16,000 reads of the skewed stream by one directory of 2,048. */
static u64 whatif_test_one_arc(struct kunit *test)
{
	struct arc_hdr *spare = NULL, *hdr;
	u32 x = 2463534242u;
	struct arc arc;
	u64 t0, t;
	int i;

	KUNIT_ASSERT_EQ(test, arc_init(&arc, 2048, &whatif_test_ops, NULL), 0);
	t0 = ktime_get_ns();
	for (i = 0; i < 16000; i++) {
		oblock_t b = to_oblock(whatif_test_skewed(&x));

		if (!spare)
			spare = arc_hdr_alloc(GFP_KERNEL);
		spin_lock_bh(&arc.lock);
		KUNIT_EXPECT_GE(test, arc_access(&arc, b, 0, &spare, &hdr), 0);
		spin_unlock_bh(&arc.lock);
	}
	t = ktime_get_ns() - t0;
	arc_hdr_free(spare);
	arc_exit(&arc);
	return t;
}

/*
 * The replay's cost under UML (no emulator, but this suite's kernel has
 * lockdep and KASAN on): 16,000 sampled reads of a skewed stream, every
 * block sampled (arc_max 2,048) and a cache device of 2,048 slots, timed
 * against the same reads by one directory of 2,048 blocks, as the
 * device's own ARC does them.  Printed for Documentation/benchmarks.rst;
 * only the counts are checked (timing goals live in benchmarks).
 */
static void whatif_test_cost(struct kunit *test)
{
	struct l2arc_whatif *wi = l2arc_whatif_create(2048, 2048, 4096);
	u64 t0, t_replay, t_arc;
	u32 x = 2463534242u;
	unsigned int i, j;

	KUNIT_ASSERT_NOT_NULL(test, wi);
	t0 = ktime_get_ns();
	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4000; j++)
			l2arc_whatif_read(wi, whatif_test_skewed(&x),
					  WHATIF_MISS);
		l2arc_whatif_sync(wi);
	}
	t_replay = ktime_get_ns() - t0;
	t_arc = max_t(u64, whatif_test_one_arc(test), 1);
	KUNIT_EXPECT_EQ(test, wi->actual.reads, 16000);
	KUNIT_EXPECT_EQ(test, wi->arc[0].n.reads, 16000);
	KUNIT_EXPECT_EQ(test, wi->dropped, 0);
	kunit_info(test, "whatif cost: %llu ns a sampled read (log and replay), %llu ns an access of one directory, ratio %llu.%02llu\n",
		   t_replay / 16000, t_arc / 16000, t_replay / t_arc,
		   t_replay * 100 / t_arc % 100);
	l2arc_whatif_destroy(wi);
}

static int whatif_test_suite_init(struct kunit_suite *suite)
{
	return arc_module_init();
}

static void whatif_test_suite_exit(struct kunit_suite *suite)
{
	arc_module_exit();
}

static struct kunit_case whatif_test_cases[] = {
	KUNIT_CASE(whatif_test_exact_sizes),
	KUNIT_CASE(whatif_test_loop_exact),
	KUNIT_CASE(whatif_test_loop_sampled),
	KUNIT_CASE(whatif_test_l2_loop),
	KUNIT_CASE(whatif_test_actual),
	KUNIT_CASE(whatif_test_log_full),
	KUNIT_CASE(whatif_test_cost),
	{}
};

static struct kunit_suite whatif_test_suite = {
	.name = "dm_l2arc_whatif",
	.suite_init = whatif_test_suite_init,
	.suite_exit = whatif_test_suite_exit,
	.test_cases = whatif_test_cases,
};

kunit_test_suite(whatif_test_suite);

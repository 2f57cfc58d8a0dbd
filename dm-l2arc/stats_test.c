// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for a device's counters (stats.c, dm-l2arc.h): counts on
 * this CPU, the sum over every possible CPU, and clear_stats starting the
 * counters of every CPU from zero (a base; no CPU's copy is written) and
 * zeroing the gauges.
 */
#include <kunit/test.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "dm-l2arc.h"

static int stats_test_init(struct kunit *test)
{
	struct l2arc_c *lc;

	lc = kunit_kzalloc(test, sizeof(*lc), GFP_KERNEL);
	if (!lc)
		return -ENOMEM;
	test->priv = lc;	/* the exit runs even when this fails */
	lc->arc = &lc->arc_own;
	lc->stats = alloc_percpu(struct l2arc_stats);
	if (!lc->stats)
		return -ENOMEM;
	spin_lock_init(&lc->arc->lock);
	return 0;
}

static void stats_test_exit(struct kunit *test)
{
	struct l2arc_c *lc = test->priv;

	if (lc)
		free_percpu(lc->stats);
}

/* inc, add and a negative add (a count taken back) give exact values */
static void stats_test_count(struct kunit *test)
{
	struct l2arc_c *lc = test->priv;
	u64 v[L2ARC_STAT_NR];

	l2arc_stat_inc(lc, L2ARC_STAT_HITS);
	l2arc_stat_inc(lc, L2ARC_STAT_HITS);
	l2arc_stat_add(lc, L2ARC_STAT_L2_READ_BYTES, 3 * 4096);
	l2arc_stat_add(lc, L2ARC_STAT_FILL_RUN_BRIDGED, 5);
	l2arc_stat_add(lc, L2ARC_STAT_FILL_RUN_BRIDGED, -1);
	KUNIT_EXPECT_EQ(test, l2arc_stat_read(lc, L2ARC_STAT_HITS), 2ULL);
	KUNIT_EXPECT_EQ(test, l2arc_stat_read(lc, L2ARC_STAT_L2_READ_BYTES),
			12288ULL);
	KUNIT_EXPECT_EQ(test, l2arc_stat_read(lc, L2ARC_STAT_FILL_RUN_BRIDGED),
			4ULL);
	KUNIT_EXPECT_EQ(test, l2arc_stat_read(lc, L2ARC_STAT_MISSES), 0ULL);

	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS], 2ULL);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_L2_READ_BYTES], 12288ULL);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_FILL_RUN_BRIDGED], 4ULL);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_LOCK_CONTENDED], 0ULL);
}

/* the value read is the sum of every possible CPU's copy */
static void stats_test_sum_cpus(struct kunit *test)
{
	struct l2arc_c *lc = test->priv;
	u64 want = 0, v[L2ARC_STAT_NR];
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu_ptr(lc->stats, cpu)->v[L2ARC_STAT_MISSES] = cpu + 1;
		per_cpu_ptr(lc->stats, cpu)->v[L2ARC_STAT_LOCK_CONTENDED] = 7;
		want += cpu + 1;
	}
	/* a count taken back on another CPU than the one that made it */
	l2arc_stat_add(lc, L2ARC_STAT_MISSES, -1);
	want -= 1;
	KUNIT_EXPECT_EQ(test, l2arc_stat_read(lc, L2ARC_STAT_MISSES), want);
	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MISSES], want);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_LOCK_CONTENDED],
			7ULL * num_possible_cpus());
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS], 0ULL);
}

/* clear_stats: every counter reads 0 after it, the gauges are 0 */
static void stats_test_clear(struct kunit *test)
{
	struct l2arc_c *lc = test->priv;
	u64 v[L2ARC_STAT_NR];
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu)
		for (i = 0; i < L2ARC_STAT_NR; i++)
			per_cpu_ptr(lc->stats, cpu)->v[i] = i + 1;
	for (i = 0; i < L2ARC_GAUGE_NR; i++)
		lc->gauge[i] = 100 + i;

	spin_lock_bh(&lc->arc->lock);
	l2arc_stat_clear(lc);
	spin_unlock_bh(&lc->arc->lock);

	l2arc_stat_read_all(lc, v);
	for (i = 0; i < L2ARC_STAT_NR; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], 0ULL, "counter %u", i);
	for (i = 0; i < L2ARC_GAUGE_NR; i++)
		KUNIT_EXPECT_EQ_MSG(test, lc->gauge[i], 0ULL, "gauge %u", i);
	/* no CPU's copy is written: the clear is a base */
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ(test, per_cpu_ptr(lc->stats, cpu)->v[0], 1ULL);
	/* counts after the clear, on any CPU, count from zero */
	l2arc_stat_inc(lc, L2ARC_STAT_READ_BIOS);
	cpu = cpumask_first(cpu_possible_mask);
	per_cpu_ptr(lc->stats, cpu)->v[L2ARC_STAT_READ_BIOS] += 2;
	KUNIT_EXPECT_EQ(test, l2arc_stat_read(lc, L2ARC_STAT_READ_BIOS), 3ULL);
	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_READ_BIOS], 3ULL);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS], 0ULL);
	/* a second clear */
	spin_lock_bh(&lc->arc->lock);
	l2arc_stat_clear(lc);
	spin_unlock_bh(&lc->arc->lock);
	KUNIT_EXPECT_EQ(test, l2arc_stat_read(lc, L2ARC_STAT_READ_BIOS), 0ULL);
}

static struct kunit_case stats_cases[] = {
	KUNIT_CASE(stats_test_count),
	KUNIT_CASE(stats_test_sum_cpus),
	KUNIT_CASE(stats_test_clear),
	{}
};

static struct kunit_suite stats_suite = {
	.name = "dm_l2arc_stats",
	.init = stats_test_init,
	.exit = stats_test_exit,
	.test_cases = stats_cases,
};

kunit_test_suite(stats_suite);

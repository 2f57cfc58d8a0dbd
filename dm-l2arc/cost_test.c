// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit cases that time the directory's work per block in native code
 * (UML: no emulator in the way), each against a memcpy() of one 4 KiB
 * block in the same run: an ARC hit (lookup and access, as the target
 * does it for a block it holds), a miss that evicts (a new header, the
 * access, the LRU block's eviction), an ARC hit without the lock (the
 * lookup under RCU, a record in the hit log and its share of the log's
 * application), and the L2 index's insert and find.  The random ARC hit
 * is also set against a copy from 64 MiB, as much as the directory's
 * blocks would hold, more than many CPUs' last-level cache.
 * The figures are printed in the KUnit log (kunit_info) and recorded in
 * Documentation/benchmarks.rst; only the counts are checked, since timing
 * goals live in benchmarks.  Under make check's .kunitconfig (lockdep,
 * KASAN) the figures are a debug kernel's; scripts/kunit --native runs
 * this suite without them.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/ktime.h>
#include <linux/prandom.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "dm-l2arc.h"

/* the directory's capacity, blocks; and the operations timed per round */
#define COST_BLOCKS	16384
#define COST_OPS	65536
/* blocks per lock hold in the batched case: a 256 KiB run */
#define COST_RUN	64
/* blocks of one 1 MiB read */
#define COST_SEQ	256
/* rounds per figure: the fastest is kept (the least disturbed) */
#define COST_ROUNDS	5
/* memcpy()'s sources: 4 MiB, more than a core's L2 cache */
#define COST_SRC_BLOCKS	1024
/* the hot set's blocks: 48 KiB of headers, in a core's L2 cache and TLB */
#define COST_HOT_BLOCKS	1024

/**
 * struct cost_ctx - what the cases share.
 * @arc: a directory of %COST_BLOCKS blocks.
 * @idx: %COST_OPS block numbers below %COST_BLOCKS, in a random order.
 * @src: %COST_SRC_BLOCKS blocks of 4 KiB to copy from.
 * @dst: one block of 4 KiB to copy to.
 * @evictions: evict_data calls.
 */
struct cost_ctx {
	struct arc arc;
	u32 *idx;
	u8 *src;
	u8 *dst;
	u64 evictions;
};

static void cost_evict_data(struct arc *arc, struct arc_hdr *hdr,
			    void *data, enum arc_evict_reason why)
{
	container_of(arc, struct cost_ctx, arc)->evictions++;
}

static const struct arc_ops cost_ops = {
	.evict_data = cost_evict_data,
};

/*
 * The hit-log case's device: it never evicts (a warning if it does) until
 * arc_exit() gives back every resident block's data.
 */
static void cost_lc_evict_data(struct arc *arc, struct arc_hdr *hdr,
			       void *data, enum arc_evict_reason why)
{
	WARN_ON_ONCE(why != ARC_EVICT_EXIT);
}

static const struct arc_ops cost_lc_ops = {
	.evict_data = cost_lc_evict_data,
};

/* Any non-NULL data: the cases never dereference it. */
#define COST_DATA	((void *)0x1000)

static int cost_init(struct kunit *test)
{
	struct rnd_state rnd;
	struct cost_ctx *ctx;
	u32 i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->idx = vmalloc(array_size(COST_OPS, sizeof(u32)));
	ctx->src = vmalloc(COST_SRC_BLOCKS * 4096);
	ctx->dst = kunit_kmalloc(test, 4096, GFP_KERNEL);
	if (!ctx->idx || !ctx->src || !ctx->dst ||
	    arc_init(&ctx->arc, COST_BLOCKS, &cost_ops, NULL)) {
		vfree(ctx->idx);
		vfree(ctx->src);
		return -ENOMEM;
	}
	prandom_seed_state(&rnd, 30);
	for (i = 0; i < COST_OPS; i++)
		ctx->idx[i] = prandom_u32_state(&rnd) % COST_BLOCKS;
	memset(ctx->src, 0x5a, COST_SRC_BLOCKS * 4096);
	test->priv = ctx;
	return 0;
}

static void cost_exit(struct kunit *test)
{
	struct cost_ctx *ctx = test->priv;

	if (!ctx)
		return;
	arc_exit(&ctx->arc);
	vfree(ctx->idx);
	vfree(ctx->src);
}

static int cost_suite_init(struct kunit_suite *suite)
{
	return arc_module_init();
}

static void cost_suite_exit(struct kunit_suite *suite)
{
	arc_module_exit();
}

/*
 * ns for COST_OPS copies of 4 KiB from @src, @blocks blocks, in
 * @ctx->idx's order.
 */
static u64 cost_memcpy_round(struct cost_ctx *ctx, const u8 *src, u32 blocks)
{
	u64 t0 = ktime_get_ns();
	u32 i;

	for (i = 0; i < COST_OPS; i++)
		memcpy(ctx->dst, src + (size_t)(ctx->idx[i] % blocks) * 4096,
		       4096);
	return ktime_get_ns() - t0;
}

/*
 * The fastest of COST_ROUNDS rounds of memcpy from @src (@blocks blocks),
 * ns per block (at least 1).
 */
static u64 cost_memcpy_from(struct cost_ctx *ctx, const u8 *src, u32 blocks)
{
	u64 best = U64_MAX;
	int r;

	for (r = 0; r < COST_ROUNDS; r++)
		best = min(best, cost_memcpy_round(ctx, src, blocks));
	return max_t(u64, best / COST_OPS, 1);
}

/* The same from @ctx->src's COST_SRC_BLOCKS blocks: the suite's yardstick. */
static u64 cost_memcpy_ns(struct cost_ctx *ctx)
{
	return cost_memcpy_from(ctx, ctx->src, COST_SRC_BLOCKS);
}

/*
 * One access as the target does it for a block: a spare header made
 * outside the lock if none is left, then under the directory's lock the
 * lookup and the access on the header found or the insert of a new one
 * (arc_access(), the same calls as io.c's l2arc_map_blocks()), and the
 * data hung on a new header.
 */
static int cost_access(struct cost_ctx *ctx, u64 b, struct arc_hdr **spare)
{
	struct arc_hdr *hdr;
	int r;

	if (!*spare)
		*spare = arc_hdr_alloc(GFP_KERNEL);
	if (!*spare)
		return -ENOMEM;
	spin_lock_bh(&ctx->arc.lock);
	r = arc_access(&ctx->arc, to_oblock(b), 0, spare, &hdr);
	if (r >= 0 && !hdr->data)
		arc_hdr_set_data(&ctx->arc, hdr, COST_DATA);
	spin_unlock_bh(&ctx->arc.lock);
	return r;
}

/* "name: N ns a block, memcpy M ns, ratio R.RR" */
static void cost_print_from(struct kunit *test, const char *name, u64 ns,
			    const char *from, u64 copy)
{
	kunit_info(test, "cost: %s %llu ns a block, memcpy of 4 KiB%s %llu ns, ratio %llu.%02llu\n",
		   name, ns, from, copy, ns / copy, ns * 100 / copy % 100);
}

/* The same against the suite's copy (from @ctx->src). */
static void cost_print(struct kunit *test, const char *name, u64 ns, u64 copy)
{
	cost_print_from(test, name, ns, "", copy);
}

/* the i-th block of a stream of 1 MiB reads at random places */
static u64 cost_seq_block(struct cost_ctx *ctx, u32 i)
{
	return (ctx->idx[i / COST_SEQ] & ~(COST_SEQ - 1)) + i % COST_SEQ;
}

enum cost_hit_mode {
	COST_RANDOM,		/* 4 KiB reads at random places */
	COST_SEQ_BLOCK,		/* 1 MiB reads, the lock taken per block */
	COST_SEQ_RUN,		/* 1 MiB reads, the lock per run of COST_RUN */
	COST_LOOKUP,		/* random lookups alone, the lists untouched */
	COST_HOT,		/* 4 KiB reads at random among COST_HOT_BLOCKS */
};

/*
 * One block as io.c takes a hit, the lookup sorting it and then the access
 * on the header found (the lookup alone for COST_LOOKUP): true if a hit.
 */
static bool cost_hit(struct cost_ctx *ctx, u64 b, enum cost_hit_mode mode)
{
	struct arc_hdr *hdr = arc_lookup(&ctx->arc, to_oblock(b));
	int r;

	if (mode == COST_LOOKUP)
		return hdr;
	r = hdr ? arc_access_hdr(&ctx->arc, hdr, 0) : -1;
	return r == ARC_HIT_MRU || r == ARC_HIT_MFU;
}

/*
 * The fastest of COST_ROUNDS rounds of COST_OPS hits in @mode, ns a block;
 * every access must be a hit (counted in *@hits).  The lock is taken per
 * run of COST_RUN blocks for COST_SEQ_RUN and COST_LOOKUP, else per block.
 */
static u64 cost_hits(struct cost_ctx *ctx, enum cost_hit_mode mode,
		     u64 *hits)
{
	bool per_run = mode == COST_SEQ_RUN || mode == COST_LOOKUP;
	bool random = mode != COST_SEQ_BLOCK && mode != COST_SEQ_RUN;
	u64 t0, best = U64_MAX, b;
	int round;
	u32 i, j;

	for (round = 0; round < COST_ROUNDS; round++) {
		t0 = ktime_get_ns();
		for (i = 0; i < COST_OPS; i += COST_RUN) {
			if (per_run)
				spin_lock_bh(&ctx->arc.lock);
			for (j = i; j < i + COST_RUN; j++) {
				b = random ? ctx->idx[j] : cost_seq_block(ctx, j);
				if (mode == COST_HOT)
					b %= COST_HOT_BLOCKS;
				if (!per_run)
					spin_lock_bh(&ctx->arc.lock);
				*hits += cost_hit(ctx, b, mode);
				if (!per_run)
					spin_unlock_bh(&ctx->arc.lock);
			}
			if (per_run)
				spin_unlock_bh(&ctx->arc.lock);
		}
		best = min(best, ktime_get_ns() - t0);
	}
	return best / COST_OPS;
}

/*
 * The random hit against a copy from as much memory as the directory's
 * blocks would hold (COST_BLOCKS blocks, 64 MiB, more than many CPUs'
 * last-level cache), as the copy of a hit reads its block's data: a
 * second yardstick, printed beside the suite's.  Nothing is checked:
 * without the memory the figure is not taken, and the log says so.
 */
static void cost_test_arc_cold(struct kunit *test, u64 hit)
{
	struct cost_ctx *ctx = test->priv;
	u8 *cold = __vmalloc(array_size(COST_BLOCKS, 4096),
			     GFP_KERNEL | __GFP_NOWARN);
	u64 copy;

	if (!cold) {
		kunit_info(test, "cost: no 64 MiB for the copy from the directory's data: figure not taken\n");
		return;
	}
	memset(cold, 0x5a, array_size(COST_BLOCKS, 4096));
	copy = cost_memcpy_from(ctx, cold, COST_BLOCKS);
	vfree(cold);
	cost_print_from(test, "ARC hit, 4 KiB random (lookup and access)", hit,
			" from 64 MiB (the data of the directory's blocks)",
			copy);
}

/*
 * ARC hits, the directory full with blocks 0..COST_BLOCKS-1: 4 KiB reads
 * at random places, the lock taken for each block (as io.c does); 1 MiB
 * reads (COST_SEQ blocks in a row) with the lock per block, then per run
 * of COST_RUN blocks (as a batched hit path would); the lookups alone;
 * and 4 KiB random hits among the first COST_HOT_BLOCKS blocks only, whose
 * headers and buckets stay in the CPU's cache and TLB, which leaves the
 * instructions' cost without the memory's.  Then misses: COST_OPS new
 * blocks, each evicting the LRU end's block (evict_data once each).
 */
static void cost_test_arc(struct kunit *test)
{
	static const char *const what[] = {
		[COST_RANDOM] = "ARC hit, 4 KiB random (lookup and access)",
		[COST_SEQ_BLOCK] = "ARC hit, 1 MiB reads (lookup and access)",
		[COST_SEQ_RUN] = "ARC hit, 1 MiB reads, a lock per 64 blocks",
		[COST_LOOKUP] = "ARC lookup alone, 4 KiB random",
		[COST_HOT] = "ARC hit, 4 KiB random over 1,024 blocks (headers in cache)",
	};
	struct cost_ctx *ctx = test->priv;
	struct arc_hdr *spare = NULL;
	u64 ns[ARRAY_SIZE(what)];
	u64 t0, miss, copy, hits = 0, b;
	unsigned int m;

	for (b = 0; b < COST_BLOCKS; b++)
		KUNIT_ASSERT_EQ(test, cost_access(ctx, b, &spare), ARC_MISS);
	KUNIT_ASSERT_EQ(test, ctx->evictions, 0);
	for (m = 0; m < ARRAY_SIZE(what); m++)
		ns[m] = cost_hits(ctx, m, &hits);
	KUNIT_EXPECT_EQ(test, hits, (u64)ARRAY_SIZE(what) * COST_ROUNDS *
			COST_OPS);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 0);

	t0 = ktime_get_ns();
	for (b = COST_BLOCKS; b < COST_BLOCKS + COST_OPS; b++)
		if (cost_access(ctx, b, &spare) != ARC_MISS)
			break;
	miss = ktime_get_ns() - t0;
	KUNIT_EXPECT_EQ(test, b, COST_BLOCKS + COST_OPS);
	KUNIT_EXPECT_EQ(test, ctx->evictions, COST_OPS);
	arc_hdr_free(spare);

	copy = cost_memcpy_ns(ctx);
	for (m = 0; m < ARRAY_SIZE(what); m++)
		cost_print(test, what[m], ns[m], copy);
	cost_print(test, "ARC miss (lookup, new header, eviction)",
		   miss / COST_OPS, copy);
	cost_test_arc_cold(test, ns[COST_RANDOM]);
}

/*
 * One round of COST_OPS ARC hits as io.c serves reads whose blocks are
 * resident: 4 KiB reads at random places (@seq false) or 1 MiB reads of
 * COST_SEQ blocks (@seq true), each read's blocks looked up under RCU (the
 * data pointer read, not the buffer's reference: two atomic operations on
 * a real buffer) and logged with the headers found, a record for every
 * %L2ARC_HITREC_BLOCKS blocks (l2arc_hitread_found(), as io.c does).
 * Returns the ns the round took; adds the blocks found resident to
 * *@served.
 */
static u64 cost_hitlog_round(struct cost_ctx *ctx, struct l2arc_c *lc,
			     bool seq, u64 *served)
{
	u32 per_read = seq ? COST_SEQ : 1, i, j;
	struct l2arc_hitread hr;
	u64 t0 = ktime_get_ns(), first;

	for (i = 0; i < COST_OPS; i += per_read) {
		first = seq ? cost_seq_block(ctx, i) : ctx->idx[i];
		l2arc_hitread_start(lc, &hr, first);
		for (j = 0; j < per_read; j++) {
			struct arc_hdr *hdr;

			rcu_read_lock();
			hdr = arc_lookup_rcu(lc->arc, to_oblock(first + j));
			if (hdr && !READ_ONCE(hdr->data))
				hdr = NULL;
			rcu_read_unlock();
			if (!hdr)
				break;
			l2arc_hitread_found(lc, &hr, hdr);
		}
		*served += j;
		l2arc_hitread_end(lc, &hr);
	}
	return ktime_get_ns() - t0;
}

/*
 * ARC hits as io.c serves reads whose blocks are resident, on a device
 * whose directory holds blocks 0..COST_BLOCKS-1: 4 KiB reads at random
 * places, then 1 MiB reads; for each read its lookups under RCU, its
 * records in this CPU's hit log (one for 4 KiB, 8 for 1 MiB), and its
 * share of the log's application (every 32 records or 256 blocks: the
 * accesses under the lock, on the headers as the read found them, with
 * the counters).  Every block must be found resident and counted as a
 * hit.
 */
static void cost_test_hitlog(struct kunit *test)
{
	struct cost_ctx *ctx = test->priv;
	struct arc_hdr *spare = NULL, *hdr;
	u64 best[2] = { U64_MAX, U64_MAX }, served = 0, copy, v[L2ARC_STAT_NR];
	struct l2arc_c *lc;
	int round, seq;
	u32 i;

	lc = kunit_kzalloc(test, sizeof(*lc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lc);
	lc->arc = &lc->arc_own;
	lc->stats = alloc_percpu(struct l2arc_stats);
	KUNIT_ASSERT_NOT_NULL(test, lc->stats);
	if (l2arc_hitlog_init(&lc->hitlog) ||
	    arc_init(lc->arc, COST_BLOCKS, &cost_lc_ops, lc)) {
		l2arc_hitlog_exit(&lc->hitlog);
		free_percpu(lc->stats);
		KUNIT_FAIL(test, "no memory for the device");
		return;
	}
	for (i = 0; i < COST_BLOCKS; i++) {
		if (!spare)
			spare = arc_hdr_alloc(GFP_KERNEL);
		l2arc_lock(lc);
		if (arc_access(lc->arc, to_oblock(i), 0, &spare, &hdr) >= 0)
			arc_hdr_set_data(lc->arc, hdr, COST_DATA);
		l2arc_unlock(lc);
	}
	arc_hdr_free(spare);
	for (seq = 0; seq < 2; seq++)
		for (round = 0; round < COST_ROUNDS; round++)
			best[seq] = min(best[seq],
					cost_hitlog_round(ctx, lc, seq, &served));
	l2arc_lock(lc);		/* applies what is left */
	l2arc_unlock(lc);
	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, served, 2ULL * COST_ROUNDS * COST_OPS);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS], 2ULL * COST_ROUNDS * COST_OPS);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MISSES], 0ULL);
	arc_exit(lc->arc);
	l2arc_hitlog_exit(&lc->hitlog);
	free_percpu(lc->stats);

	copy = cost_memcpy_ns(ctx);
	cost_print(test, "ARC hit without the lock, 4 KiB random (RCU lookup, log, apply)",
		   best[0] / COST_OPS, copy);
	cost_print(test, "ARC hit without the lock, 1 MiB reads (RCU lookup, log, apply)",
		   best[1] / COST_OPS, copy);
}

/*
 * The L2 index of a device of COST_OPS slots: every slot indexed with a
 * block (hash-spread, as L2-only blocks of a random workload are), then
 * every block found at its slot.  Under the directory's lock, as the
 * target calls it.
 */
static void cost_test_l2index(struct kunit *test)
{
	struct cost_ctx *ctx = test->priv;
	struct l2arc_index ix;
	u64 t0, add, find, copy, found = 0;
	u32 s;

	KUNIT_ASSERT_EQ(test, l2arc_index_init(&ix, COST_OPS), 0);
	spin_lock_bh(&ctx->arc.lock);
	t0 = ktime_get_ns();
	for (s = 0; s < COST_OPS; s++)
		l2arc_index_add(&ix, s, (u64)s * 2654435761u % (1ULL << 40), 0);
	add = ktime_get_ns() - t0;
	t0 = ktime_get_ns();
	for (s = 0; s < COST_OPS; s++)
		found += l2arc_index_find(&ix, (u64)ctx->idx[s] * 4 *
					  2654435761u % (1ULL << 40)) ==
			 ctx->idx[s] * 4;
	find = ktime_get_ns() - t0;
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, ix.nr_indexed, COST_OPS);
	KUNIT_EXPECT_EQ(test, found, COST_OPS);
	l2arc_index_exit(&ix);

	copy = cost_memcpy_ns(ctx);
	cost_print(test, "L2 index insert", add / COST_OPS, copy);
	cost_print(test, "L2 index find", find / COST_OPS, copy);
}

/* crc32c of a 4 KiB block (the L2 path checks every block read). */
static void cost_test_crc32c(struct kunit *test)
{
	struct cost_ctx *ctx = test->priv;
	u64 t0, t = U64_MAX, copy;
	u32 crc = 0, first = 0;
	int round;
	u32 i;

	for (round = 0; round < COST_ROUNDS; round++) {
		t0 = ktime_get_ns();
		for (i = 0; i < COST_OPS / 16; i++)
			crc = crc32c(~0, ctx->src + (size_t)(i % COST_SRC_BLOCKS) * 4096,
				     4096);
		t = min(t, ktime_get_ns() - t0);
		if (!round)
			first = crc;
		KUNIT_EXPECT_EQ(test, crc, first);
	}
	copy = cost_memcpy_ns(ctx);
	cost_print(test, "crc32c of 4 KiB", t / (COST_OPS / 16), copy);
}

static struct kunit_case cost_test_cases[] = {
	KUNIT_CASE(cost_test_arc),
	KUNIT_CASE(cost_test_hitlog),
	KUNIT_CASE(cost_test_l2index),
	KUNIT_CASE(cost_test_crc32c),
	{}
};

static struct kunit_suite cost_test_suite = {
	.name = "dm_l2arc_cost",
	.init = cost_init,
	.exit = cost_exit,
	.suite_init = cost_suite_init,
	.suite_exit = cost_suite_exit,
	.test_cases = cost_test_cases,
};

kunit_test_suite(cost_test_suite);

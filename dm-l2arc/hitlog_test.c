// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the log of ARC hits taken without the device lock
 * (hitlog.c): a replay whose hits go through the log leaves the ARC and
 * its counters exactly as the same replay under the lock; records are
 * applied in the order of their numbers whatever order they were
 * collected in; a log that fills (in records or in blocks) applies itself,
 * a full one refuses; a record's headers are kept in order and follow it
 * to the application; a hit on a block gone meanwhile counts and inserts
 * nothing, and a header that left the table is not used; a list walk that
 * let the lock go does not go on from a header that the log's hits moved.
 */
#include <kunit/test.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "dm-l2arc.h"

/* Any non-NULL data, tagged as io.h's fills are: never dereferenced. */
#define HL_DATA		((void *)0x1001)

static void hl_evict_data(struct arc *arc, struct arc_hdr *hdr, void *data,
			  enum arc_evict_reason why)
{
}

static const struct arc_ops hl_ops = {
	.evict_data = hl_evict_data,
};

/*
 * struct hl_ctx - a device with only what the hit log needs (an ARC,
 * counters, the logs) and a reference ARC that takes every access under
 * its lock.
 */
struct hl_ctx {
	struct l2arc_c *lc;
	struct arc ref;
	u64 ref_count[ARC_MISS + 1];
};

static int hl_init(struct kunit *test)
{
	struct hl_ctx *ctx;
	struct l2arc_c *lc;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	lc = kzalloc(sizeof(*lc), GFP_KERNEL);
	if (!ctx || !lc) {
		kfree(lc);
		return -ENOMEM;
	}
	lc->arc = &lc->arc_own;
	ctx->lc = lc;
	test->priv = ctx;	/* the exit runs even when this fails */
	lc->stats = alloc_percpu(struct l2arc_stats);
	if (!lc->stats || l2arc_hitlog_init(&lc->hitlog))
		return -ENOMEM;
	if (arc_init(lc->arc, 64, &hl_ops, lc))
		return -ENOMEM;
	lc->arc_ready = true;
	if (arc_init(&ctx->ref, 64, &hl_ops, NULL))
		return -ENOMEM;
	return 0;
}

static void hl_exit(struct kunit *test)
{
	struct hl_ctx *ctx = test->priv;
	struct l2arc_c *lc = ctx ? ctx->lc : NULL;

	if (!lc)
		return;
	if (ctx->ref.ops)
		arc_exit(&ctx->ref);
	if (lc->arc_ready)
		arc_exit(lc->arc);
	l2arc_hitlog_exit(&lc->hitlog);
	free_percpu(lc->stats);
	kfree(lc);
}

static int hl_suite_init(struct kunit_suite *suite)
{
	return arc_module_init();
}

static void hl_suite_exit(struct kunit_suite *suite)
{
	arc_module_exit();
}

/* An access under the device lock, as io.c's map takes a miss. */
static int hl_locked_access(struct kunit *test, struct l2arc_c *lc, u64 b)
{
	struct arc_hdr *spare = arc_hdr_alloc(GFP_KERNEL), *hdr;
	int r;

	KUNIT_ASSERT_NOT_NULL(test, spare);
	l2arc_lock(lc);
	r = arc_access(lc->arc, to_oblock(b), 0, &spare, &hdr);
	if (r >= 0) {
		l2arc_count_access(lc, r, false, false);
		if (!hdr->data)
			arc_hdr_set_data(lc->arc, hdr, HL_DATA);
	}
	l2arc_unlock(lc);
	arc_hdr_free(spare);
	KUNIT_EXPECT_GE(test, r, 0);	/* not an assertion under the lock */
	return r;
}

/* The same access on the reference ARC. */
static void hl_ref_access(struct kunit *test, struct hl_ctx *ctx, u64 b)
{
	struct arc_hdr *spare = arc_hdr_alloc(GFP_KERNEL), *hdr;
	int r;

	KUNIT_ASSERT_NOT_NULL(test, spare);
	spin_lock_bh(&ctx->ref.lock);
	r = arc_access(&ctx->ref, to_oblock(b), 0, &spare, &hdr);
	if (r >= 0) {
		ctx->ref_count[r]++;
		if (!hdr->data)
			arc_hdr_set_data(&ctx->ref, hdr, HL_DATA);
	}
	spin_unlock_bh(&ctx->ref.lock);
	arc_hdr_free(spare);
	KUNIT_EXPECT_GE(test, r, 0);
}

/*
 * Are blocks @first .. @first + @nr - 1 resident with data, seen as io.c's
 * lock-free hit sees them?  If so, *@rec is a record of them and @hdr[]
 * holds the headers found.
 */
static bool hl_resident_rcu(struct l2arc_c *lc, u64 first, u32 nr,
			    struct l2arc_hitrec *rec, struct arc_hdr **hdr)
{
	bool hit = true;
	u32 i;

	rec->unhashed = arc_unhash_seq(lc->arc);
	rcu_read_lock();
	for (i = 0; i < nr; i++) {
		hdr[i] = arc_lookup_rcu(lc->arc, to_oblock(first + i));
		hit = hit && hdr[i] && READ_ONCE(hdr[i]->data);
	}
	rcu_read_unlock();
	rec->first = first;
	rec->nr = nr;
	return hit;
}

/* no header found, for any record's blocks */
static struct arc_hdr *const hl_no_hdr[L2ARC_HITLOG_BLOCKS];

/* Log a read of blocks @first .. @first + @nr - 1, no header found. */
static bool hl_add(struct l2arc_c *lc, u64 first, u32 nr)
{
	struct l2arc_hitrec rec = { .first = first, .nr = nr };

	return l2arc_hitlog_add(lc, &rec, hl_no_hdr);
}

/* Both ARCs' list @id hold the same blocks in the same order. */
static void hl_expect_same_list(struct kunit *test, struct arc *a,
				struct arc *b, enum arc_list_id id)
{
	struct list_head *pa = a->lists[id].next, *pb = b->lists[id].next;

	KUNIT_EXPECT_EQ(test, arc_list_size(a, id), arc_list_size(b, id));
	while (pa != &a->lists[id] && pb != &b->lists[id]) {
		struct arc_hdr *ha = list_entry(pa, struct arc_hdr, list);
		struct arc_hdr *hb = list_entry(pb, struct arc_hdr, list);

		/* an expectation, not an assertion: the caller holds a lock */
		KUNIT_EXPECT_EQ(test, from_oblock(ha->oblock),
				from_oblock(hb->oblock));
		if (ha->oblock != hb->oblock)
			return;
		pa = pa->next;
		pb = pb->next;
	}
	KUNIT_EXPECT_TRUE(test, pa == &a->lists[id] && pb == &b->lists[id]);
}

/*
 * A skewed replay of 20,000 reads of 400 blocks through a 64-block ARC:
 * hits through the log (applied when the log fills or a miss takes the
 * lock), misses under the lock; the reference takes every read under its
 * lock.  Lists, p, c and the hit counters must agree exactly, and every
 * hit must have gone through the log.
 */
static void hitlog_test_replay_exact(struct kunit *test)
{
	struct hl_ctx *ctx = test->priv;
	struct l2arc_c *lc = ctx->lc;
	struct rnd_state rnd;
	u64 logged = 0, v[L2ARC_STAT_NR];
	int i;

	prandom_seed_state(&rnd, 29);
	for (i = 0; i < 20000; i++) {
		u32 x = prandom_u32_state(&rnd);
		/* half the reads on 40 blocks, the rest on all 400 */
		u64 b = (x & 1) ? (x >> 1) % 40 : (x >> 1) % 400;
		struct l2arc_hitrec rec;
		struct arc_hdr *hdr;

		hl_ref_access(test, ctx, b);
		if (hl_resident_rcu(lc, b, 1, &rec, &hdr) &&
		    l2arc_hitlog_add(lc, &rec, &hdr)) {
			logged++;
			continue;
		}
		hl_locked_access(test, lc, b);
	}
	l2arc_lock(lc);		/* applies what is left */
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog), 0ULL);
	hl_expect_same_list(test, lc->arc, &ctx->ref, ARC_T1);
	hl_expect_same_list(test, lc->arc, &ctx->ref, ARC_T2);
	hl_expect_same_list(test, lc->arc, &ctx->ref, ARC_B1);
	hl_expect_same_list(test, lc->arc, &ctx->ref, ARC_B2);
	KUNIT_EXPECT_EQ(test, arc_p_fixed(lc->arc), arc_p_fixed(&ctx->ref));
	KUNIT_EXPECT_EQ(test, arc_c(lc->arc), arc_c(&ctx->ref));
	l2arc_unlock(lc);

	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MRU_HITS], ctx->ref_count[ARC_HIT_MRU]);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MFU_HITS], ctx->ref_count[ARC_HIT_MFU]);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MRU_GHOST_HITS],
			ctx->ref_count[ARC_GHOST_MRU]);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MFU_GHOST_HITS],
			ctx->ref_count[ARC_GHOST_MFU]);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS] + v[L2ARC_STAT_MISSES], 20000ULL);
	KUNIT_EXPECT_EQ(test, logged, ctx->ref_count[ARC_HIT_MRU] +
				      ctx->ref_count[ARC_HIT_MFU]);
	KUNIT_EXPECT_GT(test, logged, 5000ULL);
}

/* Put a record straight into this CPU's log, as l2arc_hitlog_add() would. */
static void hl_put_record(struct l2arc_c *lc, u64 first, u32 nr, u64 seq)
{
	struct l2arc_hitlog_cpu *c = get_cpu_ptr(lc->hitlog.cpu);

	c->rec[c->nr] = (struct l2arc_hitrec){
		.first = first, .nr = nr, .seq = seq, .hdrs = c->blocks,
	};
	c->nr++;
	memset(c->hdr + c->blocks, 0, nr * sizeof(*c->hdr));
	c->blocks += nr;
	put_cpu_ptr(lc->hitlog.cpu);
	atomic64_inc(&lc->hitlog.seq);	/* one more pending */
}

static u64 hl_list_block(struct arc *arc, enum arc_list_id id, int i)
{
	struct arc_hdr *hdr;

	list_for_each_entry(hdr, &arc->lists[id], list)
		if (!i--)
			return from_oblock(hdr->oblock);
	return U64_MAX;
}

/* Blocks 0 .. @n - 1 read once each under the lock: misses, into T1. */
static void hl_t1_blocks(struct kunit *test, struct l2arc_c *lc, u64 n)
{
	u64 b;

	for (b = 0; b < n; b++)
		KUNIT_ASSERT_EQ(test, hl_locked_access(test, lc, b), ARC_MISS);
}

/*
 * T1 is empty and T2 holds blocks @x, @y, @z from its LRU end; arc.lock
 * held (expectations only).
 */
static void hl_expect_t2(struct kunit *test, struct l2arc_c *lc, u64 x,
			 u64 y, u64 z)
{
	KUNIT_EXPECT_EQ(test, arc_list_size(lc->arc, ARC_T1), 0ULL);
	KUNIT_EXPECT_EQ(test, arc_list_size(lc->arc, ARC_T2), 3ULL);
	KUNIT_EXPECT_EQ(test, hl_list_block(lc->arc, ARC_T2, 0), x);
	KUNIT_EXPECT_EQ(test, hl_list_block(lc->arc, ARC_T2, 1), y);
	KUNIT_EXPECT_EQ(test, hl_list_block(lc->arc, ARC_T2, 2), z);
}

/* The device's MRU hits, MFU hits and misses are @mru, @mfu and @misses. */
static void hl_expect_counts(struct kunit *test, struct l2arc_c *lc, u64 mru,
			     u64 mfu, u64 misses)
{
	u64 v[L2ARC_STAT_NR];

	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MRU_HITS], mru);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MFU_HITS], mfu);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS], mru + mfu);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MISSES], misses);
}

/*
 * Records collected out of order (as from two CPUs) are applied in the
 * order of their numbers: blocks 0, 1, 2 in T1; records "2" (number 5)
 * then "0 and 1" (number 3) leave T2 as 0, 1, 2 from its LRU end.
 */
static void hitlog_test_order(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	u64 v[L2ARC_STAT_NR];

	hl_t1_blocks(test, lc, 3);
	hl_put_record(lc, 2, 1, 5);
	hl_put_record(lc, 0, 2, 3);
	l2arc_lock(lc);
	hl_expect_t2(test, lc, 0, 1, 2);
	l2arc_unlock(lc);
	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MRU_HITS], 3ULL);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_DEMAND_DATA_HITS], 3ULL);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MISSES], 3ULL);
}

/*
 * The add that fills this CPU's log applies every log; a log found full
 * refuses the record (the reader then takes the lock itself).
 */
static void hitlog_test_full(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	u64 v[L2ARC_STAT_NR];
	int i;

	hl_locked_access(test, lc, 7);
	for (i = 0; i < L2ARC_HITLOG_MAX - 1; i++)
		KUNIT_EXPECT_TRUE(test, hl_add(lc, 7, 1));
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog),
			(u64)L2ARC_HITLOG_MAX - 1);
	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS], 0ULL);
	KUNIT_EXPECT_TRUE(test, hl_add(lc, 7, 1));
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog), 0ULL);
	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS], (u64)L2ARC_HITLOG_MAX);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MRU_HITS], 1ULL);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_MFU_HITS],
			(u64)L2ARC_HITLOG_MAX - 1);

	for (i = 0; i < L2ARC_HITLOG_MAX; i++)
		hl_put_record(lc, 7, 1, 100 + i);
	KUNIT_EXPECT_FALSE(test, hl_add(lc, 7, 1));
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog),
			(u64)L2ARC_HITLOG_MAX);
	l2arc_lock(lc);
	l2arc_unlock(lc);
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog), 0ULL);
}

/*
 * A log also applies itself at L2ARC_HITLOG_BLOCKS blocks, and refuses a
 * record that would take it past them.
 */
static void hitlog_test_blocks(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	u64 v[L2ARC_STAT_NR];

	KUNIT_EXPECT_TRUE(test, hl_add(lc, 0, 200));
	KUNIT_EXPECT_FALSE(test, hl_add(lc, 0, 100));
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog), 1ULL);
	KUNIT_EXPECT_TRUE(test, hl_add(lc, 200, L2ARC_HITLOG_BLOCKS - 200));
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog), 0ULL);
	l2arc_stat_read_all(lc, v);
	KUNIT_EXPECT_EQ(test, v[L2ARC_STAT_HITS], (u64)L2ARC_HITLOG_BLOCKS);
}

/*
 * A reader whose log is full takes the lock, which applies every record
 * logged before, and then its own accesses (l2arc_hitlog_access()):
 * blocks 0, 1, 2 in T1; a full log of records of block 2; the reader's
 * blocks 0 and 1 then leave T2 as 2, 0, 1 from its LRU end.
 */
static void hitlog_test_access_now(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	int i;

	hl_t1_blocks(test, lc, 3);
	for (i = 0; i < L2ARC_HITLOG_MAX; i++)
		hl_put_record(lc, 2, 1, 1 + i);
	KUNIT_EXPECT_FALSE(test, hl_add(lc, 0, 2));
	l2arc_lock(lc);
	l2arc_hitlog_access(lc, &(struct l2arc_hitrec){ .first = 0, .nr = 2 },
			    hl_no_hdr);
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog), 0ULL);
	hl_expect_t2(test, lc, 2, 0, 1);
	l2arc_unlock(lc);
	hl_expect_counts(test, lc, 3, L2ARC_HITLOG_MAX - 1, 3);
}

/* A record of a block no longer in the directory: one hit, no insert. */
static void hitlog_test_gone(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;

	hl_put_record(lc, 1000, 1, 1);
	l2arc_lock(lc);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(lc->arc), 0U);
	l2arc_unlock(lc);
	hl_expect_counts(test, lc, 0, 1, 0);
}

/*
 * Block @b of device @lc invalidated (as a write does) and read again
 * under the lock, a miss into T1 with a new header, which is returned:
 * what another CPU may do between a read's lookup and its record's
 * application.  @old is the header the read found.
 */
static struct arc_hdr *hl_replace(struct kunit *test, struct l2arc_c *lc,
				  u64 b, struct arc_hdr *old)
{
	struct arc_hdr *spare, *hdr = NULL;
	int r;

	/* allocated before the free, so the freed header stays free */
	spare = arc_hdr_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	l2arc_lock(lc);
	arc_invalidate(lc->arc, old);
	r = arc_access(lc->arc, to_oblock(b), 0, &spare, &hdr);
	if (r >= 0) {
		l2arc_count_access(lc, r, false, false);
		arc_hdr_set_data(lc->arc, hdr, HL_DATA);
	}
	l2arc_unlock(lc);
	arc_hdr_free(spare);
	KUNIT_EXPECT_EQ(test, r, ARC_MISS);
	KUNIT_EXPECT_PTR_NE(test, hdr, old);
	return hdr;
}

/*
 * A record whose header left the table after the read found it (a write
 * invalidated the block) and whose block came back with a new header (a
 * miss, into T1): the new header is accessed, as a lookup finds it, not
 * the one the record carries.  Blocks 0 and 1 in T1; the read of 1 is
 * logged; 1 is invalidated and read again; the record applied leaves T1
 * as [0] and T2 as the new header alone, and the hits at one (an MRU hit
 * of the new header).
 */
static void hitlog_test_left(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	struct arc_hdr *found, *hdr;
	struct l2arc_hitrec rec;

	hl_t1_blocks(test, lc, 2);
	KUNIT_ASSERT_TRUE(test, hl_resident_rcu(lc, 1, 1, &rec, &found));
	hdr = hl_replace(test, lc, 1, found);
	KUNIT_EXPECT_TRUE(test, l2arc_hitlog_add(lc, &rec, &found));
	l2arc_lock(lc);
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog), 0ULL);
	KUNIT_EXPECT_EQ(test, arc_list_size(lc->arc, ARC_T1), 1ULL);
	KUNIT_EXPECT_EQ(test, hl_list_block(lc->arc, ARC_T1, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, hl_list_block(lc->arc, ARC_T1, 1), U64_MAX);
	KUNIT_EXPECT_EQ(test, arc_list_size(lc->arc, ARC_T2), 1ULL);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&lc->arc->lists[ARC_T2],
						   struct arc_hdr, list), hdr);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(lc->arc), 2U);
	l2arc_unlock(lc);
	hl_expect_counts(test, lc, 1, 0, 3);
}

/*
 * The same for a block after a record's first: each block's header is
 * checked, not only the first's.  Blocks 0, 1, 2 in T1; a read of all
 * three is logged with the headers it found; 1 is invalidated and read
 * again; applied, T2 holds 0, the new header of 1, 2 from its LRU end,
 * with three MRU hits, and T1 is empty.  A record applied while no header
 * has left the table accesses the headers it carries: reads of 0 and then
 * 2 leave T2 as 1, 0, 2 from its LRU end.
 */
static void hitlog_test_left_later(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	struct arc_hdr *found[3], *hdr, *lru;
	struct l2arc_hitrec rec;

	hl_t1_blocks(test, lc, 3);
	KUNIT_ASSERT_TRUE(test, hl_resident_rcu(lc, 0, 3, &rec, found));
	hdr = hl_replace(test, lc, 1, found[1]);
	KUNIT_EXPECT_TRUE(test, l2arc_hitlog_add(lc, &rec, found));
	l2arc_lock(lc);
	KUNIT_EXPECT_EQ(test, l2arc_hitlog_pending(&lc->hitlog), 0ULL);
	hl_expect_t2(test, lc, 0, 1, 2);
	lru = list_first_entry(&lc->arc->lists[ARC_T2], struct arc_hdr, list);
	KUNIT_EXPECT_PTR_EQ(test, list_next_entry(lru, list), hdr);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(lc->arc), 3U);
	l2arc_unlock(lc);
	hl_expect_counts(test, lc, 3, 0, 4);

	KUNIT_ASSERT_TRUE(test, hl_resident_rcu(lc, 0, 1, &rec, &found[0]));
	KUNIT_EXPECT_TRUE(test, l2arc_hitlog_add(lc, &rec, &found[0]));
	KUNIT_ASSERT_TRUE(test, hl_resident_rcu(lc, 2, 1, &rec, &found[2]));
	KUNIT_EXPECT_TRUE(test, l2arc_hitlog_add(lc, &rec, &found[2]));
	l2arc_lock(lc);
	hl_expect_t2(test, lc, 1, 0, 2);
	l2arc_unlock(lc);
	hl_expect_counts(test, lc, 3, 2, 4);
}

/* Record @r is of blocks @first .. @first + @nr - 1, its headers at @hdrs. */
static void hl_expect_rec(struct kunit *test, const struct l2arc_hitrec *r,
			  u64 first, u32 nr, u32 hdrs)
{
	KUNIT_EXPECT_EQ(test, r->first, first);
	KUNIT_EXPECT_EQ(test, r->nr, nr);
	KUNIT_EXPECT_EQ(test, r->hdrs, hdrs);
}

/*
 * A CPU's log keeps its records' headers in order, each record naming
 * where its own start: blocks 0..4 in T1, found under RCU; records of
 * blocks 0-1 and 2-4 logged: two records, five headers, at 0 and 2, the
 * headers as found.  Applied, they leave T2 as 0..4 from its LRU end.
 */
static void hitlog_test_layout(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	struct l2arc_hitlog_cpu *c;
	struct arc_hdr *found[5];
	struct l2arc_hitrec rec;
	unsigned int i;

	hl_t1_blocks(test, lc, 5);
	KUNIT_ASSERT_TRUE(test, hl_resident_rcu(lc, 0, 2, &rec, found));
	KUNIT_EXPECT_TRUE(test, l2arc_hitlog_add(lc, &rec, found));
	KUNIT_ASSERT_TRUE(test, hl_resident_rcu(lc, 2, 3, &rec, found + 2));
	KUNIT_EXPECT_TRUE(test, l2arc_hitlog_add(lc, &rec, found + 2));
	c = get_cpu_ptr(lc->hitlog.cpu);
	KUNIT_EXPECT_EQ(test, c->nr, 2U);
	KUNIT_EXPECT_EQ(test, c->blocks, 5U);
	hl_expect_rec(test, &c->rec[0], 0, 2, 0);
	hl_expect_rec(test, &c->rec[1], 2, 3, 2);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_PTR_EQ(test, c->hdr[i], found[i]);
	put_cpu_ptr(lc->hitlog.cpu);
	l2arc_lock(lc);
	KUNIT_EXPECT_EQ(test, arc_list_size(lc->arc, ARC_T1), 0ULL);
	KUNIT_EXPECT_EQ(test, arc_list_size(lc->arc, ARC_T2), 5ULL);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, hl_list_block(lc->arc, ARC_T2, i), (u64)i);
	l2arc_unlock(lc);
	hl_expect_counts(test, lc, 5, 0, 5);
}

/*
 * The application's arrays take each CPU's log after the ones before it:
 * a log of two records (2 and 3 blocks) taken first, then a log of one
 * record (1 block) after them, as a second CPU's; the second log's
 * record names its header at 5, after the first log's five, and each
 * header is where its record says.  The logs here are the test's own
 * (UML has one CPU), their headers tags that are never applied.
 */
static void hitlog_test_take(struct kunit *test)
{
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	struct l2arc_hitlog *hl = &lc->hitlog;
	struct l2arc_hitlog_cpu *c;
	unsigned int n = 0, nhdr = 0, i;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	spin_lock_init(&c->lock);
	c->rec[0] = (struct l2arc_hitrec){ .first = 10, .nr = 2, .hdrs = 0 };
	c->rec[1] = (struct l2arc_hitrec){ .first = 20, .nr = 3, .hdrs = 2 };
	c->nr = 2;
	for (i = 0; i < 5; i++)
		c->hdr[i] = (struct arc_hdr *)(0x100UL + i);
	c->blocks = 5;

	l2arc_lock(lc);
	spin_lock(&c->lock);
	n += l2arc_hitlog_take(hl, c, n, &nhdr);
	spin_unlock(&c->lock);
	KUNIT_EXPECT_EQ(test, n, 2U);
	KUNIT_EXPECT_EQ(test, nhdr, 5U);
	KUNIT_EXPECT_EQ(test, c->nr, 0U);
	KUNIT_EXPECT_EQ(test, c->blocks, 0U);

	c->rec[0] = (struct l2arc_hitrec){ .first = 30, .nr = 1, .hdrs = 0 };
	c->nr = 1;
	c->hdr[0] = (struct arc_hdr *)0x200UL;
	c->blocks = 1;
	spin_lock(&c->lock);
	n += l2arc_hitlog_take(hl, c, n, &nhdr);
	spin_unlock(&c->lock);
	KUNIT_EXPECT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, nhdr, 6U);

	hl_expect_rec(test, &hl->apply[0], 10, 2, 0);
	hl_expect_rec(test, &hl->apply[1], 20, 3, 2);
	hl_expect_rec(test, &hl->apply[2], 30, 1, 5);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_PTR_EQ(test, hl->apply_hdr[i],
				    (struct arc_hdr *)(0x100UL + i));
	KUNIT_EXPECT_PTR_EQ(test, hl->apply_hdr[5], (struct arc_hdr *)0x200UL);
	l2arc_unlock(lc);
}

/* T2's size, and its first blocks from the LRU end in @order (8). */
static u64 hl_t2_order(struct arc *arc, u64 *order)
{
	int i;

	for (i = 0; i < 8; i++)
		order[i] = hl_list_block(arc, ARC_T2, i);
	return arc_list_size(arc, ARC_T2);
}

/*
 * A list walk that lets the lock go (write.c's invalidation of a write or
 * discard larger than the directory) sets its cursor on the header it
 * would visit next, here block 2's in T2 = 0..7 after visiting 0 and 1,
 * and reads without the lock follow, their hits applied by the walk's
 * next l2arc_lock().  First a read of block 6, whose header another pin
 * holds (as a fill's or a feed's): the walk goes on from 2.  Then a
 * sequential read of blocks 1 and 2, whose hits move both to T2's MRU
 * end in block order, 2 still right after 1 (the neighbour a walk once
 * checked): going on from 2 would pass 3 to 7, whose cached copies a
 * write must drop, so l2arc_walk_resume() must send the walk back to the
 * LRU end (NULL).
 */
static void hitlog_test_walk_resume(struct kunit *test)
{
	static const u64 before[2][8] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7 }, { 0, 1, 2, 3, 4, 5, 7, 6 },
	};
	static const u64 after[2][8] = {
		{ 0, 1, 2, 3, 4, 5, 7, 6 }, { 0, 3, 4, 5, 7, 6, 1, 2 },
	};
	static const u64 read_first[2] = { 6, 1 };
	static const u32 read_nr[2] = { 1, 2 };
	struct l2arc_c *lc = ((struct hl_ctx *)test->priv)->lc;
	struct arc *arc = lc->arc;
	struct arc_hdr *hdr[2], *next, *other, *got;
	struct l2arc_hitrec rec;
	struct arc_cursor cur;
	u64 order[8], b, n;
	bool same_prev, logged;
	unsigned int i;
	int pass;

	for (pass = 0; pass < 2; pass++)	/* T1, then T2 in block order */
		for (b = 0; b < 8; b++)
			hl_locked_access(test, lc, b);
	for (pass = 0; pass < 2; pass++) {
		/* the read's lookups; its hits are logged once the cursor is set */
		KUNIT_ASSERT_TRUE(test, hl_resident_rcu(lc, read_first[pass],
							read_nr[pass], &rec,
							hdr));
		l2arc_lock(lc);
		n = hl_t2_order(arc, order);
		next = arc_lookup(arc, to_oblock(2));
		other = arc_lookup(arc, to_oblock(6));
		if (next && other) {
			arc_cursor_set(arc, &cur, next);
			arc_hdr_pin(arc, other);
		}
		l2arc_unlock(lc);
		/* no assertion from here until the cursor is given back */
		KUNIT_ASSERT_TRUE(test, next && other);
		KUNIT_EXPECT_EQ(test, n, 8ULL);
		for (i = 0; i < ARRAY_SIZE(order); i++)
			KUNIT_EXPECT_EQ(test, order[i], before[pass][i]);
		logged = l2arc_hitlog_add(lc, &rec, hdr);
		l2arc_lock(lc);		/* applies the read's hits */
		n = hl_t2_order(arc, order);
		same_prev = next->list.prev == &arc_lookup(arc, to_oblock(1))->list;
		got = l2arc_walk_resume(arc, next, ARC_MFU, &cur);
		arc_hdr_unpin(arc, other);
		l2arc_unlock(lc);
		KUNIT_ASSERT_TRUE(test, logged);
		KUNIT_EXPECT_EQ(test, n, 8ULL);
		for (i = 0; i < ARRAY_SIZE(order); i++)
			KUNIT_EXPECT_EQ(test, order[i], after[pass][i]);
		KUNIT_EXPECT_TRUE(test, same_prev);
		KUNIT_EXPECT_PTR_EQ(test, got, pass ? NULL : next);
	}
}

static struct kunit_case hitlog_cases[] = {
	KUNIT_CASE(hitlog_test_replay_exact),
	KUNIT_CASE(hitlog_test_order),
	KUNIT_CASE(hitlog_test_full),
	KUNIT_CASE(hitlog_test_blocks),
	KUNIT_CASE(hitlog_test_gone),
	KUNIT_CASE(hitlog_test_access_now),
	KUNIT_CASE(hitlog_test_left),
	KUNIT_CASE(hitlog_test_left_later),
	KUNIT_CASE(hitlog_test_layout),
	KUNIT_CASE(hitlog_test_take),
	KUNIT_CASE(hitlog_test_walk_resume),
	{}
};

static struct kunit_suite hitlog_suite = {
	.name = "dm_l2arc_hitlog",
	.init = hl_init,
	.exit = hl_exit,
	.suite_init = hl_suite_init,
	.suite_exit = hl_suite_exit,
	.test_cases = hitlog_cases,
};

kunit_test_suite(hitlog_suite);

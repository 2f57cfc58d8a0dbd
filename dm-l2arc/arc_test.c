// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the ARC directory (arc.c), suite "dm_l2arc_arc".
 *
 * The expected lists and p of the hand-worked cases follow the pseudocode of
 * N. Megiddo and D. S. Modha, "ARC: A Self-Tuning, Low Overhead Replacement
 * Cache", USENIX FAST 2003, Fig. 4; they were checked with
 * tests/tools/arc_ref.py --sequence.  Lists print LRU to MRU.
 */

#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "arc.h"

/* ---------------------------------------------------------------- */
/* Harness                                                          */
/* ---------------------------------------------------------------- */

/**
 * struct arc_test_ctx - one directory under test.
 * @arc: the directory.
 * @spare: a spare header, reused until arc_access() consumes it.
 * @evictions: calls of evict_data.
 * @data_refs: data pointers handed to the directory and not yet returned.
 * @bad_data: evict_data calls whose data did not match the header.
 * @l2_drops: calls of l2_drop.
 * @why: evict_data calls by &enum arc_evict_reason.
 * @keep: evict_data sets %ARC_F_L2_WRITING and pins the header (as the
 *	target's hand-off to its feed does).
 * @ix_oblock: with arc_test_index_ops, the target's index of L2-only
 *	blocks: block numbers, @ix_nr of them, ...
 * @ix_slot: ... and their slots.
 * @ix_nr: entries in the index.
 * @compacts: calls of l2_compact.
 * @claims: calls of l2_claim that gave a header a copy.
 * @kept: evict_ok keeps blocks 0..63 whose bit is set here (a floor).
 * @keep_all: evict_ok keeps every block.
 */
struct arc_test_ctx {
	struct arc arc;
	struct arc_hdr *spare;
	u64 evictions;
	s64 data_refs;
	u64 bad_data;
	u64 l2_drops;
	u64 why[ARC_EVICT_EXIT + 1];
	bool keep;
	u64 ix_oblock[8];
	u32 ix_slot[8];
	unsigned int ix_nr;
	u64 compacts;
	u64 claims;
	u64 kept;
	bool keep_all;
};

/* The data the tests hang on a block: never dereferenced. */
static void *arc_test_tag(oblock_t b)
{
	return (void *)(uintptr_t)((from_oblock(b) << 4) | 0x8);
}

static void arc_test_evict_data(struct arc *arc, struct arc_hdr *hdr,
				void *data, enum arc_evict_reason why)
{
	struct arc_test_ctx *ctx = container_of(arc, struct arc_test_ctx, arc);

	ctx->evictions++;
	ctx->why[why]++;
	if (ctx->keep) {
		hdr->flags |= ARC_F_L2_WRITING;
		arc_hdr_pin(arc, hdr);
	}
	ctx->data_refs--;
	if (data != arc_test_tag(hdr->oblock))
		ctx->bad_data++;
}

static void arc_test_l2_drop(struct arc *arc, struct arc_hdr *hdr)
{
	struct arc_test_ctx *ctx = container_of(arc, struct arc_test_ctx, arc);

	ctx->l2_drops++;
}

static const struct arc_ops arc_test_ops = {
	.evict_data = arc_test_evict_data,
	.l2_drop = arc_test_l2_drop,
};

/* l2_compact: the header's block and slot go to the test's index. */
static bool arc_test_l2_compact(struct arc *arc, struct arc_hdr *hdr)
{
	struct arc_test_ctx *ctx = container_of(arc, struct arc_test_ctx, arc);

	if (ctx->ix_nr == ARRAY_SIZE(ctx->ix_oblock))
		return false;
	ctx->ix_oblock[ctx->ix_nr] = from_oblock(hdr->oblock);
	ctx->ix_slot[ctx->ix_nr++] = hdr->l2_slot;
	ctx->compacts++;
	return true;
}

/* l2_claim: a new header takes its block's entry out of the index. */
static bool arc_test_l2_claim(struct arc *arc, struct arc_hdr *hdr)
{
	struct arc_test_ctx *ctx = container_of(arc, struct arc_test_ctx, arc);
	unsigned int i;

	for (i = 0; i < ctx->ix_nr; i++) {
		if (ctx->ix_oblock[i] != from_oblock(hdr->oblock))
			continue;
		hdr->l2_slot = ctx->ix_slot[i];
		ctx->ix_nr--;
		ctx->ix_oblock[i] = ctx->ix_oblock[ctx->ix_nr];
		ctx->ix_slot[i] = ctx->ix_slot[ctx->ix_nr];
		ctx->claims++;
		return true;
	}
	return false;
}

/* A target with an index of its own for L2-only blocks, as the L2ARC's. */
static const struct arc_ops arc_test_index_ops = {
	.evict_data = arc_test_evict_data,
	.l2_drop = arc_test_l2_drop,
	.l2_compact = arc_test_l2_compact,
	.l2_claim = arc_test_l2_claim,
};

/* evict_ok: a floor that keeps the blocks of ctx->kept, or every block. */
static bool arc_test_evict_ok(struct arc *arc, const struct arc_hdr *hdr)
{
	struct arc_test_ctx *ctx = container_of(arc, struct arc_test_ctx, arc);
	u64 b = from_oblock(hdr->oblock);

	return !ctx->keep_all && !(b < 64 && (ctx->kept & BIT_ULL(b)));
}

static const struct arc_ops arc_test_floor_ops = {
	.evict_data = arc_test_evict_data,
	.evict_ok = arc_test_evict_ok,
};

static struct arc_test_ctx *arc_test_new_ops(struct kunit *test, u64 c,
					     const struct arc_ops *ops)
{
	struct arc_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, arc_init(&ctx->arc, c, ops, NULL), 0);
	test->priv = ctx;
	return ctx;
}

static struct arc_test_ctx *arc_test_new(struct kunit *test, u64 c)
{
	return arc_test_new_ops(test, c, &arc_test_ops);
}

static void arc_test_exit(struct kunit *test)
{
	struct arc_test_ctx *ctx = test->priv;

	if (!ctx)
		return;
	arc_exit(&ctx->arc);
	arc_hdr_free(ctx->spare);
	KUNIT_EXPECT_EQ(test, ctx->data_refs, 0);
	KUNIT_EXPECT_EQ(test, ctx->bad_data, 0);
}

static int arc_test_suite_init(struct kunit_suite *suite)
{
	return arc_module_init();
}

static void arc_test_suite_exit(struct kunit_suite *suite)
{
	arc_module_exit();
}

/*
 * One access, as the target does it: spare allocated outside the lock, the
 * data hung on the header if it has none.  Returns the arc_result and the
 * header in *@hdrp (if not NULL).
 */
static int arc_test_access_hdr(struct kunit *test, u64 b, unsigned int aflags,
			       struct arc_hdr **hdrp)
{
	struct arc_test_ctx *ctx = test->priv;
	struct arc_hdr *hdr = NULL;
	int r;

	if (!ctx->spare)
		ctx->spare = arc_hdr_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->spare);
	spin_lock_bh(&ctx->arc.lock);
	r = arc_access(&ctx->arc, to_oblock(b), aflags, &ctx->spare, &hdr);
	if (r >= 0 && !hdr->data) {
		arc_hdr_set_data(&ctx->arc, hdr, arc_test_tag(hdr->oblock));
		ctx->data_refs++;
	}
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_ASSERT_GE(test, r, 0);
	if (hdrp)
		*hdrp = hdr;
	return r;
}

static int arc_test_access(struct kunit *test, u64 b)
{
	return arc_test_access_hdr(test, b, 0, NULL);
}

static int arc_test_prefetch(struct kunit *test, u64 b)
{
	return arc_test_access_hdr(test, b, ARC_ACCESS_PREFETCH, NULL);
}

static struct arc_hdr *arc_test_lookup(struct kunit *test, u64 b)
{
	struct arc_test_ctx *ctx = test->priv;
	struct arc_hdr *hdr;

	spin_lock_bh(&ctx->arc.lock);
	hdr = arc_lookup(&ctx->arc, to_oblock(b));
	spin_unlock_bh(&ctx->arc.lock);
	return hdr;
}

/* Print the four lists, LRU to MRU: "T1=[2 4] T2=[] B1=[1] B2=[]". */
static const char *arc_test_lists(struct kunit *test)
{
	static const char * const names[] = { "T1", "T2", "B1", "B2", "L2" };
	struct arc_test_ctx *ctx = test->priv;
	size_t len = 512, n = 0;
	struct arc_hdr *hdr;
	char *buf;
	int i;

	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	spin_lock_bh(&ctx->arc.lock);
	for (i = ARC_T1; i <= ARC_B2 || ctx->arc.size[i]; i++) {
		const char *sep = "";

		if (i > ARC_LIST_L2ONLY)
			break;
		n += scnprintf(buf + n, len - n, "%s%s=[", i ? " " : "",
			       names[i]);
		list_for_each_entry(hdr, &ctx->arc.lists[i], list) {
			n += scnprintf(buf + n, len - n, "%s%llu", sep,
				       from_oblock(hdr->oblock));
			sep = " ";
		}
		n += scnprintf(buf + n, len - n, "]");
	}
	spin_unlock_bh(&ctx->arc.lock);
	return buf;
}

/* p as a fraction of blocks, in the directory's fixed point. */
#define ARC_TEST_P(num, den)	(((u64)(num) << ARC_P_SHIFT) / (den))

/* One step of a hand-worked sequence. */
struct arc_test_step {
	u64 block;
	int result;
	const char *lists;
	u64 p;
};

/* Steps [@from, @to) of @steps on @ctx's directory. */
static void arc_test_check_steps(struct kunit *test, struct arc_test_ctx *ctx,
				 const struct arc_test_step *steps, size_t from,
				 size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		int r = arc_test_access(test, steps[i].block);

		KUNIT_EXPECT_EQ_MSG(test, r, steps[i].result, "step %zu", i);
		KUNIT_EXPECT_STREQ_MSG(test, arc_test_lists(test),
				       steps[i].lists, "step %zu", i);
		KUNIT_EXPECT_EQ_MSG(test, arc_p_fixed(&ctx->arc), steps[i].p,
				    "step %zu", i);
	}
}

static void arc_test_run_steps(struct kunit *test, u64 c,
			       const struct arc_test_step *steps, size_t n)
{
	arc_test_check_steps(test, arc_test_new(test, c), steps, 0, n);
}

/* ---------------------------------------------------------------- */
/* Sizes                                                            */
/* ---------------------------------------------------------------- */

static void arc_test_sizes(struct kunit *test)
{
	kunit_info(test, "sizeof(struct arc_hdr) = %zu (resident, ghost and L2-only headers alike)\n",
		   sizeof(struct arc_hdr));
	kunit_info(test, "sizeof(struct arc) = %zu\n", sizeof(struct arc));
	KUNIT_EXPECT_LE(test, sizeof(struct arc_hdr), 48);
	if (IS_ENABLED(CONFIG_64BIT))
		KUNIT_EXPECT_EQ(test, sizeof(struct arc_hdr), 48);
}

/* ---------------------------------------------------------------- */
/* The paper's cases, by hand                                       */
/* ---------------------------------------------------------------- */

/* Case I: hits in T1 and T2 move to T2's MRU end.  c = 2. */
static const struct arc_test_step arc_test_case_i_steps[] = {
	{ 1, ARC_MISS,    "T1=[1] T2=[] B1=[] B2=[]",   0 },
	{ 1, ARC_HIT_MRU, "T1=[] T2=[1] B1=[] B2=[]",   0 },
	{ 2, ARC_MISS,    "T1=[2] T2=[1] B1=[] B2=[]",  0 },
	{ 1, ARC_HIT_MFU, "T1=[2] T2=[1] B1=[] B2=[]",  0 },
	{ 2, ARC_HIT_MRU, "T1=[] T2=[1 2] B1=[] B2=[]", 0 },
	{ 1, ARC_HIT_MFU, "T1=[] T2=[2 1] B1=[] B2=[]", 0 },
};

static void arc_test_case_i(struct kunit *test)
{
	arc_test_run_steps(test, 2, arc_test_case_i_steps,
			   ARRAY_SIZE(arc_test_case_i_steps));
}

/*
 * Case IV: A with |T1| = c deletes T1's LRU (no ghost); A with |T1| < c
 * deletes B1's LRU and REPLACEs; B REPLACEs once the directory holds c.
 * c = 2.
 */
static const struct arc_test_step arc_test_case_iv_steps[] = {
	{ 1, ARC_MISS,    "T1=[1] T2=[] B1=[] B2=[]",    0 },
	{ 2, ARC_MISS,    "T1=[1 2] T2=[] B1=[] B2=[]",  0 },
	/* A, |T1| = c: 1 leaves */
	{ 3, ARC_MISS,    "T1=[2 3] T2=[] B1=[] B2=[]",  0 },
	{ 3, ARC_HIT_MRU, "T1=[2] T2=[3] B1=[] B2=[]",   0 },
	/* B: total = c, REPLACE (|T1| = 1 > p = 0) */
	{ 4, ARC_MISS,    "T1=[4] T2=[3] B1=[2] B2=[]",  0 },
	/* A, |T1| < c: delete B1's LRU, REPLACE */
	{ 5, ARC_MISS,    "T1=[5] T2=[3] B1=[4] B2=[]",  0 },
};

static void arc_test_case_iv(struct kunit *test)
{
	struct arc_test_ctx *ctx;

	arc_test_run_steps(test, 2, arc_test_case_iv_steps,
			   ARRAY_SIZE(arc_test_case_iv_steps));
	ctx = test->priv;
	KUNIT_EXPECT_EQ(test, arc_evicted(&ctx->arc), 3);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 3);
	KUNIT_EXPECT_TRUE(test, arc_is_warm(&ctx->arc));
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 3);
}

/*
 * Case II (B1 hit: p grows by max(|B2|/|B1|, 1)) and case III (B2 hit: p
 * shrinks by max(|B1|/|B2|, 1)), c = 2.
 */
static const struct arc_test_step arc_test_case_ii_iii_steps[] = {
	{ 1, ARC_MISS,      "T1=[1] T2=[] B1=[] B2=[]",    0 },
	{ 1, ARC_HIT_MRU,   "T1=[] T2=[1] B1=[] B2=[]",    0 },
	{ 2, ARC_MISS,      "T1=[2] T2=[1] B1=[] B2=[]",   0 },
	{ 2, ARC_HIT_MRU,   "T1=[] T2=[1 2] B1=[] B2=[]",  0 },
	{ 3, ARC_MISS,      "T1=[3] T2=[2] B1=[] B2=[1]",  0 },
	{ 4, ARC_MISS,      "T1=[4] T2=[2] B1=[3] B2=[1]", 0 },
	/* II: p = 0 + max(1/1, 1) = 1; |T1| = p, x in B1: T2's LRU goes */
	{ 3, ARC_GHOST_MRU, "T1=[4] T2=[3] B1=[] B2=[1 2]", ARC_TEST_P(1, 1) },
	/* III: p = 1 - max(0/2, 1) = 0; |T1| = 1 > 0: T1's LRU goes */
	{ 2, ARC_GHOST_MFU, "T1=[] T2=[3 2] B1=[4] B2=[1]", 0 },
};

/*
 * A floor (arc_ops.evict_ok): a kept block at the LRU end moves to the
 * MRU end and the next one goes; with every block of the paper's list
 * kept, the other list's LRU goes; with every block kept, the paper's
 * choice goes anyway.  c = 3, block 1 kept, then 1 and 7, then all.
 */
static const struct arc_test_step arc_test_floor_steps[] = {
	{ 1, ARC_MISS,    "T1=[1] T2=[] B1=[] B2=[]",      0 },
	{ 2, ARC_MISS,    "T1=[1 2] T2=[] B1=[] B2=[]",    0 },
	{ 3, ARC_MISS,    "T1=[1 2 3] T2=[] B1=[] B2=[]",  0 },
	/* A, |T1| = c: 1 is kept, 2 leaves */
	{ 4, ARC_MISS,    "T1=[3 1 4] T2=[] B1=[] B2=[]",  0 },
	{ 5, ARC_MISS,    "T1=[1 4 5] T2=[] B1=[] B2=[]",  0 },
	{ 5, ARC_HIT_MRU, "T1=[1 4] T2=[5] B1=[] B2=[]",   0 },
	/* B, REPLACE from T1: 1 kept, 4 to B1 */
	{ 6, ARC_MISS,    "T1=[1 6] T2=[5] B1=[4] B2=[]",  0 },
	{ 7, ARC_MISS,    "T1=[1 7] T2=[5] B1=[6] B2=[]",  0 },
	/* (1 and 7 kept) REPLACE: T1 all kept, T2's LRU to B2 */
	{ 8, ARC_MISS,    "T1=[1 7 8] T2=[] B1=[] B2=[5]", 0 },
	/* (all kept) A, |T1| = c: the paper's, T1's LRU, leaves */
	{ 9, ARC_MISS,    "T1=[7 8 9] T2=[] B1=[] B2=[5]", 0 },
};

static void arc_test_floor(struct kunit *test)
{
	const struct arc_test_step *s = arc_test_floor_steps;
	struct arc_test_ctx *ctx = arc_test_new_ops(test, 3,
						    &arc_test_floor_ops);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arc_test_floor_steps); i++) {
		ctx->kept = s[i].block < 8 ? BIT_ULL(1) : BIT_ULL(1) | BIT_ULL(7);
		ctx->keep_all = s[i].block == 9;
		KUNIT_EXPECT_EQ_MSG(test, arc_test_access(test, s[i].block),
				    s[i].result, "step %zu", i);
		KUNIT_EXPECT_STREQ_MSG(test, arc_test_lists(test), s[i].lists,
				       "step %zu", i);
	}
	KUNIT_EXPECT_EQ(test, ctx->evictions, 6);
}

/*
 * Ceilings (arc_owners_init(), not in the paper): owners are a block's
 * bits above 8, owner 1 (blocks 256..) has a ceiling of 2, owner 2
 * (512..) none until the last step, which lowers it to 3 while it has 4.
 * c = 6.  An owner at its ceiling REPLACEs one of its own, even with room:
 * the list by p, the other owners' headers passed over moved to the MRU
 * end, and no walk of a list that has none of its own.
 */
static const struct arc_test_step arc_test_ceiling_steps[] = {
	{ 512, ARC_MISS, "T1=[512] T2=[] B1=[] B2=[]", 0 },
	{ 256, ARC_MISS, "T1=[512 256] T2=[] B1=[] B2=[]", 0 },
	{ 257, ARC_MISS, "T1=[512 256 257] T2=[] B1=[] B2=[]", 0 },
	/* at its ceiling, with room: 512 passed over, 256 to B1 */
	{ 258, ARC_MISS, "T1=[257 512 258] T2=[] B1=[256] B2=[]", 0 },
	{ 513, ARC_MISS, "T1=[257 512 258 513] T2=[] B1=[256] B2=[]", 0 },
	/* case II at its ceiling: p up, then 257 (its own) to B1 */
	{ 256, ARC_GHOST_MRU, "T1=[512 258 513] T2=[256] B1=[257] B2=[]",
	  ARC_P_ONE },
	{ 514, ARC_MISS, "T1=[512 258 513 514] T2=[256] B1=[257] B2=[]",
	  ARC_P_ONE },
	{ 515, ARC_MISS, "T1=[512 258 513 514 515] T2=[256] B1=[257] B2=[]",
	  ARC_P_ONE },
	/* owner 2 has no ceiling: the paper's case IV, 512 to B1 */
	{ 516, ARC_MISS, "T1=[258 513 514 515 516] T2=[256] B1=[512] B2=[]",
	  ARC_P_ONE },
	/* owner 1 at 2 (258, 256): its T1 block goes, then case IV's delete */
	{ 259, ARC_MISS, "T1=[513 514 515 516 259] T2=[256] B1=[258] B2=[]",
	  ARC_P_ONE },
	{ 259, ARC_HIT_MRU, "T1=[513 514 515 516] T2=[256 259] B1=[258] B2=[]",
	  ARC_P_ONE },
	/* owner 1 has none in T1 (p's pick): T2's 256, no walk */
	{ 260, ARC_MISS,
	  "T1=[513 514 515 516 260] T2=[259] B1=[258] B2=[256]", ARC_P_ONE },
	/* owner 2's ceiling lowered to 3 with 4: two go, then 517 enters */
	{ 517, ARC_MISS, "T1=[515 516 260 517] T2=[259] B1=[513 514] B2=[256]",
	  ARC_P_ONE },
};

/* Owner @id's ceiling is @max blocks (0: none). */
static void arc_test_set_max(struct arc *arc, unsigned int id, u64 max)
{
	spin_lock_bh(&arc->lock);
	arc_owner_set_max(arc, id, max);
	spin_unlock_bh(&arc->lock);
}

static void arc_test_ceiling(struct kunit *test)
{
	size_t n = ARRAY_SIZE(arc_test_ceiling_steps);
	struct arc_test_ctx *ctx = arc_test_new(test, 6);
	struct arc *arc = &ctx->arc;

	KUNIT_ASSERT_EQ(test, arc_owners_init(arc, 8, 4), 0);
	arc_test_set_max(arc, 1, 2);
	arc_test_check_steps(test, ctx, arc_test_ceiling_steps, 0, n - 1);
	arc_test_set_max(arc, 2, 3);	/* the last step, 517 */
	arc_test_check_steps(test, ctx, arc_test_ceiling_steps, n - 1, n);
	KUNIT_EXPECT_EQ(test, arc_owner_resident(arc, 1), 2);
	KUNIT_EXPECT_EQ(test, arc_owner_resident(arc, 2), 3);
	KUNIT_EXPECT_EQ(test, arc_owner_resident(arc, 0), 0);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 7);
	KUNIT_EXPECT_EQ(test, arc_evicted(arc), 7);
}

/*
 * A ceiling's eviction skips the list p picks when the owner has under
 * half its share there (arc_owner_list()): owner 1 (256..) has a ceiling
 * of 3, c = 8, p stays 0.  With two blocks in T2 and its newest in T1
 * behind four of owner 0's, it takes T2's, with no walk; with two in T1
 * it walks T1 as REPLACE says.
 */
static const struct arc_test_step arc_test_ceiling_skew_steps[] = {
	{ 256, ARC_MISS, "T1=[256] T2=[] B1=[] B2=[]", 0 },
	{ 257, ARC_MISS, "T1=[256 257] T2=[] B1=[] B2=[]", 0 },
	{ 256, ARC_HIT_MRU, "T1=[257] T2=[256] B1=[] B2=[]", 0 },
	{ 257, ARC_HIT_MRU, "T1=[] T2=[256 257] B1=[] B2=[]", 0 },
	{ 1, ARC_MISS, "T1=[1] T2=[256 257] B1=[] B2=[]", 0 },
	{ 2, ARC_MISS, "T1=[1 2] T2=[256 257] B1=[] B2=[]", 0 },
	{ 3, ARC_MISS, "T1=[1 2 3] T2=[256 257] B1=[] B2=[]", 0 },
	{ 4, ARC_MISS, "T1=[1 2 3 4] T2=[256 257] B1=[] B2=[]", 0 },
	{ 258, ARC_MISS, "T1=[1 2 3 4 258] T2=[256 257] B1=[] B2=[]", 0 },
	/* p says T1: 1 of its 3 in T1's 5, 2 * 1 * 7 < 3 * 5: T2's 256 */
	{ 259, ARC_MISS, "T1=[1 2 3 4 258 259] T2=[257] B1=[] B2=[256]", 0 },
	/* 2 of its 3 in T1's 6, 2 * 2 * 7 >= 3 * 6: 1..4 passed, 258 goes */
	{ 260, ARC_MISS, "T1=[259 1 2 3 4 260] T2=[257] B1=[258] B2=[256]",
	  0 },
};

static void arc_test_ceiling_skew(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 8);
	struct arc *arc = &ctx->arc;

	KUNIT_ASSERT_EQ(test, arc_owners_init(arc, 8, 4), 0);
	arc_test_set_max(arc, 1, 3);
	arc_test_check_steps(test, ctx, arc_test_ceiling_skew_steps, 0,
			     ARRAY_SIZE(arc_test_ceiling_skew_steps));
	KUNIT_EXPECT_EQ(test, arc_owner_resident(arc, 1), 3);
	KUNIT_EXPECT_EQ(test, arc_owner_resident(arc, 0), 4);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 2);
}

/* A key above the owners' ids is refused, with a warning. */
static void arc_test_owner_range(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 4);
	struct arc *arc = &ctx->arc;
	struct arc_hdr *spare, *hdr = NULL;

	KUNIT_ASSERT_EQ(test, arc_owners_init(arc, 8, 4), 0);
	spare = arc_hdr_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	spin_lock_bh(&arc->lock);
	KUNIT_EXPECT_EQ(test, arc_insert(arc, to_oblock(4 << 8), 0, &spare,
					 &hdr), -EINVAL);
	spin_unlock_bh(&arc->lock);
	KUNIT_EXPECT_NOT_NULL(test, spare);
	KUNIT_EXPECT_NULL(test, hdr);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(arc), 0);
	arc_hdr_free(spare);
}

/*
 * arc_forget() drops a ghost as well as a resident header (a member's
 * detach); arc_invalidate() leaves the ghost.  c = 2.
 */
static void arc_test_forget(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 2);
	struct arc *arc = &ctx->arc;

	arc_test_access(test, 1);
	arc_test_access(test, 1);
	arc_test_access(test, 2);
	arc_test_access(test, 3);
	KUNIT_ASSERT_STREQ(test, arc_test_lists(test),
			   "T1=[3] T2=[1] B1=[2] B2=[]");
	spin_lock_bh(&arc->lock);
	arc_invalidate(arc, arc_lookup(arc, to_oblock(2)));
	KUNIT_EXPECT_NOT_NULL(test, arc_lookup(arc, to_oblock(2)));
	arc_forget(arc, arc_lookup(arc, to_oblock(2)));
	arc_forget(arc, arc_lookup(arc, to_oblock(1)));
	spin_unlock_bh(&arc->lock);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[3] T2=[] B1=[] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(arc), 1);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 2);
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 2), ARC_MISS);
}

/* arc_owners_init()'s errors; a directory without owners is the paper's. */
static void arc_test_owners_init(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 4);

	KUNIT_EXPECT_EQ(test, arc_owners_init(&ctx->arc, 0, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, arc_owners_init(&ctx->arc, 64, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, arc_owners_init(&ctx->arc, 8, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, arc_owners_init(&ctx->arc, 8, 65537), -EINVAL);
	KUNIT_EXPECT_NULL(test, ctx->arc.owners);
	arc_test_access(test, 1);
	KUNIT_EXPECT_EQ(test, arc_owners_init(&ctx->arc, 8, 4), -EBUSY);
	KUNIT_EXPECT_NULL(test, ctx->arc.owners);
}

static void arc_test_case_ii_iii(struct kunit *test)
{
	arc_test_run_steps(test, 2, arc_test_case_ii_iii_steps,
			   ARRAY_SIZE(arc_test_case_ii_iii_steps));
}

/* REPLACE's tie rule: x in B2 and |T1| == p takes T1's LRU.  c = 3. */
static const struct arc_test_step arc_test_tie_steps[] = {
	{ 2, ARC_MISS,      "T1=[2] T2=[] B1=[] B2=[]",       0 },
	{ 4, ARC_MISS,      "T1=[2 4] T2=[] B1=[] B2=[]",     0 },
	{ 7, ARC_MISS,      "T1=[2 4 7] T2=[] B1=[] B2=[]",   0 },
	{ 4, ARC_HIT_MRU,   "T1=[2 7] T2=[4] B1=[] B2=[]",    0 },
	{ 5, ARC_MISS,      "T1=[7 5] T2=[4] B1=[2] B2=[]",   0 },
	{ 2, ARC_GHOST_MRU, "T1=[5] T2=[4 2] B1=[7] B2=[]",   ARC_TEST_P(1, 1) },
	{ 7, ARC_GHOST_MRU, "T1=[5] T2=[2 7] B1=[] B2=[4]",   ARC_TEST_P(2, 1) },
	/* p = 2 - 1 = 1 = |T1| and x in B2: T1's LRU (5) goes to B1 */
	{ 4, ARC_GHOST_MFU, "T1=[] T2=[2 7 4] B1=[5] B2=[]",  ARC_TEST_P(1, 1) },
};

static void arc_test_replace_tie(struct kunit *test)
{
	arc_test_run_steps(test, 3, arc_test_tie_steps,
			   ARRAY_SIZE(arc_test_tie_steps));
}

/* A real-valued step: |B2|/|B1| = 3/2.  c = 5. */
static const struct arc_test_step arc_test_frac_steps[] = {
	{ 7, ARC_MISS,  "T1=[7] T2=[] B1=[] B2=[]", 0 },
	{ 3, ARC_MISS,  "T1=[7 3] T2=[] B1=[] B2=[]", 0 },
	{ 6, ARC_MISS,  "T1=[7 3 6] T2=[] B1=[] B2=[]", 0 },
	{ 6, ARC_HIT_MRU, "T1=[7 3] T2=[6] B1=[] B2=[]", 0 },
	{ 4, ARC_MISS,  "T1=[7 3 4] T2=[6] B1=[] B2=[]", 0 },
	{ 5, ARC_MISS,  "T1=[7 3 4 5] T2=[6] B1=[] B2=[]", 0 },
	{ 10, ARC_MISS, "T1=[3 4 5 10] T2=[6] B1=[7] B2=[]", 0 },
	{ 3, ARC_HIT_MRU, "T1=[4 5 10] T2=[6 3] B1=[7] B2=[]", 0 },
	{ 2, ARC_MISS,  "T1=[5 10 2] T2=[6 3] B1=[7 4] B2=[]", 0 },
	{ 10, ARC_HIT_MRU, "T1=[5 2] T2=[6 3 10] B1=[7 4] B2=[]", 0 },
	{ 1, ARC_MISS,  "T1=[2 1] T2=[6 3 10] B1=[7 4 5] B2=[]", 0 },
	{ 7, ARC_GHOST_MRU, "T1=[1] T2=[6 3 10 7] B1=[4 5 2] B2=[]",
	  ARC_TEST_P(1, 1) },
	{ 9, ARC_MISS,  "T1=[1 9] T2=[3 10 7] B1=[4 5 2] B2=[6]",
	  ARC_TEST_P(1, 1) },
	{ 5, ARC_GHOST_MRU, "T1=[1 9] T2=[10 7 5] B1=[4 2] B2=[6 3]",
	  ARC_TEST_P(2, 1) },
	{ 11, ARC_MISS, "T1=[1 9 11] T2=[7 5] B1=[4 2] B2=[6 3 10]",
	  ARC_TEST_P(2, 1) },
	/* p = 2 + 3/2 = 3.5; |T1| = 3 < p: T2's LRU (7) goes */
	{ 4, ARC_GHOST_MRU, "T1=[1 9 11] T2=[5 4] B1=[2] B2=[6 3 10 7]",
	  ARC_TEST_P(7, 2) },
};

static void arc_test_fractional_p(struct kunit *test)
{
	struct arc_test_ctx *ctx;

	arc_test_run_steps(test, 5, arc_test_frac_steps,
			   ARRAY_SIZE(arc_test_frac_steps));
	ctx = test->priv;
	KUNIT_EXPECT_EQ(test, arc_p_blocks(&ctx->arc), 4);
	/* p is clamped to a smaller c */
	spin_lock_bh(&ctx->arc.lock);
	arc_set_c(&ctx->arc, 3);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, arc_p_fixed(&ctx->arc), ARC_TEST_P(3, 1));
	KUNIT_EXPECT_EQ(test, arc_p_blocks(&ctx->arc), 3);
}

/* The hit count of a small trace, worked by hand.  c = 3. */
static void arc_test_hit_count(struct kunit *test)
{
	static const u64 trace[] = { 1, 2, 1, 3, 2, 1, 4, 1, 2, 3, 4, 1 };
	unsigned int hits = 0, ghosts = 0;
	size_t i;
	int r;

	arc_test_new(test, 3);
	for (i = 0; i < ARRAY_SIZE(trace); i++) {
		r = arc_test_access(test, trace[i]);
		hits += r == ARC_HIT_MRU || r == ARC_HIT_MFU;
		ghosts += r == ARC_GHOST_MRU || r == ARC_GHOST_MFU;
	}
	/* hits: 1 (T1), 2 (T1), 1 (T2), 1 (T2), 2 (T2), 4 (T1) */
	KUNIT_EXPECT_EQ(test, hits, 6);
	/* 3 in B1 (p = 1), 1 in B2 (p = 0) */
	KUNIT_EXPECT_EQ(test, ghosts, 2);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[3 4 1] B1=[] B2=[2]");
}

/* ---------------------------------------------------------------- */
/* Synthetic trace against tests/tools/arc_ref.py                   */
/* ---------------------------------------------------------------- */

/* xorshift32; keep identical to synth_pages() in tests/tools/arc_ref.py. */
static u64 arc_synth_next(u32 *s)
{
	u32 r;

	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	r = *s;
	if (r % 4 == 0)
		return 1000 + (r >> 8) % 200;
	return (r >> 8) % 24;
}

struct arc_test_synth {
	u32 seed;
	unsigned int n;
	u64 c;
	unsigned int hits;	/* from arc_ref.py --synthetic SEED N C */
};

static const struct arc_test_synth arc_test_synth_params[] = {
	{ 1, 20000, 16, 8923 },
	{ 7, 50000, 32, 36829 },
};

static void arc_test_synth_desc(const struct arc_test_synth *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %u n %u c %llu", t->seed,
		 t->n, t->c);
}

KUNIT_ARRAY_PARAM(arc_test_synth, arc_test_synth_params, arc_test_synth_desc);

static void arc_test_synthetic(struct kunit *test)
{
	const struct arc_test_synth *t = test->param_value;
	unsigned int i, hits = 0;
	u32 s = t->seed;
	int r;

	arc_test_new(test, t->c);
	for (i = 0; i < t->n; i++) {
		r = arc_test_access(test, arc_synth_next(&s));
		hits += r == ARC_HIT_MRU || r == ARC_HIT_MFU;
	}
	KUNIT_EXPECT_EQ(test, hits, t->hits);
}

/* ---------------------------------------------------------------- */
/* Scan resistance                                                  */
/* ---------------------------------------------------------------- */

static void arc_test_scan(struct kunit *test)
{
	const u64 c = 100;
	struct arc_test_ctx *ctx = arc_test_new(test, c);
	unsigned int hot = 0;
	struct arc_hdr *hdr;
	u64 b;

	for (b = 0; b < c; b++)
		arc_test_access(test, b);
	for (b = 0; b < c; b++)
		KUNIT_ASSERT_EQ(test, arc_test_access(test, b), ARC_HIT_MRU);
	KUNIT_ASSERT_EQ(test, arc_list_size(&ctx->arc, ARC_T2), c);
	KUNIT_ASSERT_EQ(test, arc_p_fixed(&ctx->arc), 0);

	for (b = 1000; b < 1000 + 10 * c; b++)
		KUNIT_ASSERT_EQ(test, arc_test_access(test, b), ARC_MISS);

	for (b = 0; b < c; b++) {
		hdr = arc_test_lookup(test, b);
		hot += hdr && hdr->state == ARC_MFU;
	}
	/* The first scan block REPLACEs T2's LRU (|T1| = 0), then T1's. */
	KUNIT_EXPECT_EQ(test, hot, c - 1);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_T1), 1);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_T2), c - 1);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_B1), c - 1);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_B2), 1);
	KUNIT_EXPECT_EQ(test, arc_p_fixed(&ctx->arc), 0);
}

/* ---------------------------------------------------------------- */
/* Prefetch                                                         */
/* ---------------------------------------------------------------- */

static void arc_test_prefetch_rules(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 2);
	struct arc_hdr *h1, *h2;

	/* a prefetch miss enters T1 flagged */
	KUNIT_EXPECT_EQ(test, arc_test_access_hdr(test, 1, ARC_ACCESS_PREFETCH,
						  &h1), ARC_MISS);
	KUNIT_EXPECT_TRUE(test, h1->flags & ARC_F_PREFETCH);
	KUNIT_EXPECT_EQ(test, h1->state, ARC_MRU);
	/* a prefetch hit changes nothing */
	KUNIT_EXPECT_EQ(test, arc_test_prefetch(test, 1), ARC_HIT_MRU);
	KUNIT_EXPECT_TRUE(test, h1->flags & ARC_F_PREFETCH);
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 2), ARC_MISS);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[1 2] T2=[] B1=[] B2=[]");
	/* the first demand hit is not a second access: T1's MRU end */
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 1), ARC_HIT_MRU);
	KUNIT_EXPECT_FALSE(test, h1->flags & ARC_F_PREFETCH);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2 1] T2=[] B1=[] B2=[]");
	/* the second one is */
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 1), ARC_HIT_MRU);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2] T2=[1] B1=[] B2=[]");
	/* a prefetch hit in T2 changes nothing either */
	KUNIT_EXPECT_EQ(test, arc_test_prefetch(test, 2), ARC_HIT_MRU);
	KUNIT_EXPECT_EQ(test, arc_test_prefetch(test, 1), ARC_HIT_MFU);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2] T2=[1] B1=[] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 3), ARC_MISS);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[3] T2=[1] B1=[2] B2=[]");

	/* a prefetch of a B1 ghost: back to T1, flagged, p not adapted */
	KUNIT_EXPECT_EQ(test, arc_test_access_hdr(test, 2, ARC_ACCESS_PREFETCH,
						  &h2), ARC_GHOST_MRU);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2] T2=[1] B1=[3] B2=[]");
	KUNIT_EXPECT_TRUE(test, h2->flags & ARC_F_PREFETCH);
	KUNIT_EXPECT_EQ(test, arc_p_fixed(&ctx->arc), 0);

	/* the flag goes when the block leaves T1 */
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 4), ARC_MISS);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4] T2=[1] B1=[2] B2=[]");
	KUNIT_EXPECT_FALSE(test, h2->flags & ARC_F_PREFETCH);
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 4), ARC_HIT_MRU);
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 5), ARC_MISS);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[5] T2=[4] B1=[2] B2=[1]");

	/* a prefetch of a B2 ghost: back to T1, flagged, p not adapted */
	KUNIT_EXPECT_EQ(test, arc_test_access_hdr(test, 1, ARC_ACCESS_PREFETCH,
						  &h1), ARC_GHOST_MFU);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[1] T2=[4] B1=[5] B2=[]");
	KUNIT_EXPECT_TRUE(test, h1->flags & ARC_F_PREFETCH);
	KUNIT_EXPECT_EQ(test, arc_p_fixed(&ctx->arc), 0);
}

/* ---------------------------------------------------------------- */
/* Sizing                                                           */
/* ---------------------------------------------------------------- */

static void arc_test_set_c(struct kunit *test, u64 c)
{
	struct arc_test_ctx *ctx = test->priv;

	spin_lock_bh(&ctx->arc.lock);
	arc_set_c(&ctx->arc, c);
	spin_unlock_bh(&ctx->arc.lock);
}

static void arc_test_shrink(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 4);
	static const u64 seq[] = { 1, 2, 3, 4, 3, 4, 5, 6 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(seq); i++)
		arc_test_access(test, seq[i]);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[5 6] T2=[3 4] B1=[1 2] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_evicted(&ctx->arc), 2);

	/* REPLACE twice (p = 0: T1's LRU), then B1 down to c - |T1| */
	arc_test_set_c(test, 2);
	KUNIT_EXPECT_EQ(test, arc_c(&ctx->arc), 2);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[3 4] B1=[5 6] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_evicted(&ctx->arc), 4);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 4);

	/* REPLACE from T2 (T1 empty), B1 to 1, then B2 until total <= 2 */
	arc_test_set_c(test, 1);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[4] B1=[6] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_evicted(&ctx->arc), 5);

	/* c never goes below 1 */
	arc_test_set_c(test, 0);
	KUNIT_EXPECT_EQ(test, arc_c(&ctx->arc), 1);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[4] B1=[6] B2=[]");

	/* growth changes no list; the room is used by later misses */
	arc_test_set_c(test, 4);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[4] B1=[6] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 7), ARC_MISS);
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 8), ARC_MISS);
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 9), ARC_MISS);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[7 8 9] T2=[4] B1=[6] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_evicted(&ctx->arc), 5);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 5);
}

/* ---------------------------------------------------------------- */
/* A new header without a lookup                                    */
/* ---------------------------------------------------------------- */

/* arc_insert() of one block under the lock, its data hung as the target does */
static int arc_test_insert_one(struct kunit *test, u64 b, unsigned int aflags,
			       struct arc_hdr **spare, struct arc_hdr **hdrp)
{
	struct arc_test_ctx *ctx = test->priv;
	int r;

	spin_lock_bh(&ctx->arc.lock);
	r = arc_insert(&ctx->arc, to_oblock(b), aflags, spare, hdrp);
	if (r >= 0) {
		arc_hdr_set_data(&ctx->arc, *hdrp, arc_test_tag(b));
		ctx->data_refs++;
	}
	spin_unlock_bh(&ctx->arc.lock);
	return r;
}

/*
 * arc_insert(), the read path's case IV without a second lookup: no spare
 * is -ENOMEM; a new block enters T1 (a prefetch one flagged); a block that
 * has a header is refused with -EEXIST (and a warning), its spare kept and
 * the lists unchanged.  c = 2.
 */
static void arc_test_insert(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 2);
	struct arc_hdr *spare = NULL, *hdr = NULL;

	KUNIT_EXPECT_EQ(test, arc_test_insert_one(test, 5, 0, &spare, &hdr),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 0);

	spare = arc_hdr_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	KUNIT_EXPECT_EQ(test, arc_test_insert_one(test, 5, 0, &spare, &hdr),
			ARC_MISS);
	KUNIT_EXPECT_NULL(test, spare);
	KUNIT_EXPECT_EQ(test, from_oblock(hdr->oblock), 5);
	KUNIT_EXPECT_FALSE(test, hdr->flags & ARC_F_PREFETCH);

	spare = arc_hdr_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	KUNIT_EXPECT_EQ(test, arc_test_insert_one(test, 6, ARC_ACCESS_PREFETCH,
						  &spare, &hdr), ARC_MISS);
	KUNIT_EXPECT_TRUE(test, hdr->flags & ARC_F_PREFETCH);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[5 6] T2=[] B1=[] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 5), ARC_HIT_MRU);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[6] T2=[5] B1=[] B2=[]");

	spare = arc_hdr_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	KUNIT_EXPECT_EQ(test, arc_test_insert_one(test, 5, 0, &spare, &hdr),
			-EEXIST);
	KUNIT_EXPECT_NOT_NULL(test, spare);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 2);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[6] T2=[5] B1=[] B2=[]");
	arc_hdr_free(spare);
}

/* ---------------------------------------------------------------- */
/* Invalidation, pins, L2-only                                      */
/* ---------------------------------------------------------------- */

static void arc_test_invalidate(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 2);
	struct arc_hdr *h2;

	arc_test_access(test, 1);
	arc_test_access(test, 2);
	arc_test_access(test, 3);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2 3] T2=[] B1=[] B2=[]");
	arc_test_access(test, 2);
	arc_test_access(test, 4);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4] T2=[2] B1=[3] B2=[]");

	/* a ghost stays as it is, but loses its L2 copy */
	h2 = arc_test_lookup(test, 3);
	KUNIT_ASSERT_NOT_NULL(test, h2);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_set_l2(&ctx->arc, h2);
	arc_invalidate(&ctx->arc, h2);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, h2->state, ARC_MRU_GHOST);
	KUNIT_EXPECT_FALSE(test, h2->flags & ARC_F_L2);

	/* a resident block leaves the directory entirely */
	h2 = arc_test_lookup(test, 2);
	KUNIT_ASSERT_NOT_NULL(test, h2);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_set_l2(&ctx->arc, h2);
	arc_invalidate(&ctx->arc, h2);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4] T2=[] B1=[3] B2=[]");
	KUNIT_EXPECT_NULL(test, arc_test_lookup(test, 2));
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 2);
	KUNIT_EXPECT_EQ(test, ctx->data_refs, 1);
	/* invalidations are not evictions */
	KUNIT_EXPECT_EQ(test, arc_evicted(&ctx->arc), 2);

	/* case IV A deletes B1's LRU; the free slot needs no REPLACE */
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 5), ARC_MISS);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4 5] T2=[] B1=[] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_evicted(&ctx->arc), 2);
}

/*
 * arc_lookup_seen(): the header found without the lock is used while no
 * header has left the table, even after it went to a ghost list and came
 * back; once it has left (an invalidation frees it) and its block came
 * back with another header, that one, not the freed one (whose memory
 * still reads block 3: nothing took it again).
 */
static void arc_test_lookup_seen(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 2);
	struct arc_hdr *seen, *spare, *now = NULL;
	unsigned long seq;

	arc_test_access(test, 1);
	arc_test_access(test, 2);
	arc_test_access(test, 3);
	arc_test_access(test, 2);
	seq = arc_unhash_seq(&ctx->arc);
	KUNIT_EXPECT_EQ(test, seq, 1UL);	/* block 1 left (case IV) */
	rcu_read_lock();
	seen = arc_lookup_rcu(&ctx->arc, to_oblock(3));
	rcu_read_unlock();
	KUNIT_ASSERT_NOT_NULL(test, seen);
	arc_test_access(test, 4);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4] T2=[2] B1=[3] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 3), ARC_GHOST_MRU);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4] T2=[3] B1=[] B2=[2]");
	KUNIT_EXPECT_EQ(test, arc_unhash_seq(&ctx->arc), seq);
	spin_lock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_PTR_EQ(test, arc_lookup_seen(&ctx->arc, to_oblock(3),
						  seen, seq), seen);
	spin_unlock_bh(&ctx->arc.lock);

	spare = arc_hdr_alloc(GFP_KERNEL);	/* before the free: not it */
	KUNIT_ASSERT_NOT_NULL(test, spare);
	spin_lock_bh(&ctx->arc.lock);
	arc_invalidate(&ctx->arc, seen);
	KUNIT_EXPECT_EQ(test, arc_access(&ctx->arc, to_oblock(3), 0, &spare,
					 &now), ARC_MISS);
	KUNIT_EXPECT_EQ(test, arc_unhash_seq(&ctx->arc), seq + 1);
	KUNIT_EXPECT_PTR_NE(test, now, seen);
	KUNIT_EXPECT_PTR_EQ(test, arc_lookup_seen(&ctx->arc, to_oblock(3),
						  seen, seq), now);
	KUNIT_EXPECT_PTR_EQ(test, arc_lookup_seen(&ctx->arc, to_oblock(3),
						  NULL, seq + 1), now);
	spin_unlock_bh(&ctx->arc.lock);
	arc_hdr_free(spare);
}

static void arc_test_pins(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 1);
	struct arc_hdr *h1, *h2, *h3;

	/* pinned, REPLACEd into B1: still hashed, data returned */
	arc_test_access_hdr(test, 1, 0, &h1);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_pin(&ctx->arc, h1);
	arc_hdr_pin(&ctx->arc, h1);
	h1->flags |= ARC_F_IO_IN_PROGRESS;
	spin_unlock_bh(&ctx->arc.lock);
	arc_test_set_c(test, 2);
	arc_test_access(test, 1);
	arc_test_access_hdr(test, 2, 0, &h2);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2] T2=[1] B1=[] B2=[]");
	arc_test_set_c(test, 1);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[1] B1=[2] B2=[]");
	arc_test_access_hdr(test, 3, 0, &h3);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[3] T2=[] B1=[] B2=[1]");
	KUNIT_EXPECT_EQ(test, h1->state, ARC_MFU_GHOST);
	KUNIT_EXPECT_NULL(test, h1->data);
	KUNIT_EXPECT_EQ(test, h1->pins, 2);
	KUNIT_EXPECT_TRUE(test, h1->flags & ARC_F_IO_IN_PROGRESS);
	KUNIT_EXPECT_PTR_EQ(test, arc_test_lookup(test, 1), h1);

	/* case IV B deletes the pinned ghost: unhashed, dead, not freed */
	arc_test_access(test, 3);
	arc_test_access(test, 4);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4] T2=[] B1=[] B2=[3]");
	KUNIT_EXPECT_EQ(test, h1->state, ARC_DEAD);
	KUNIT_EXPECT_NULL(test, arc_test_lookup(test, 1));
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_LIST_DEAD), 1);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 2);

	/* the block comes back with a new header */
	KUNIT_EXPECT_EQ(test, arc_test_access_hdr(test, 1, 0, &h2), ARC_MISS);
	KUNIT_EXPECT_PTR_NE(test, h2, h1);

	/* a pinned resident header invalidated: dead too */
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_pin(&ctx->arc, h2);
	arc_invalidate(&ctx->arc, h2);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, h2->state, ARC_DEAD);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_LIST_DEAD), 2);

	/* the last unpin frees (KASAN would catch a use after free) */
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_unpin(&ctx->arc, h1);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, h1->pins, 1);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_LIST_DEAD), 2);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_unpin(&ctx->arc, h1);
	arc_hdr_unpin(&ctx->arc, h2);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_LIST_DEAD), 0);

	/* an unpinned header stays where it is */
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_pin(&ctx->arc, h3);
	arc_hdr_unpin(&ctx->arc, h3);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, h3->state, ARC_MFU_GHOST);
}

/*
 * A header whose copy is on its way to the cache device (ARC_F_L2_WRITING,
 * set by evict_data at a REPLACE or delete for room) goes L2-only where
 * the paper deletes it, and the reasons reach the target.
 */
static void arc_test_l2_writing(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 1);
	struct arc_hdr *h1, *h2;

	ctx->keep = true;
	arc_test_access_hdr(test, 1, 0, &h1);
	/* case IV, |T1| = c: T1's LRU is deleted, for room */
	arc_test_access_hdr(test, 2, 0, &h2);
	KUNIT_EXPECT_EQ(test, ctx->why[ARC_EVICT_ROOM], 1);
	KUNIT_EXPECT_EQ(test, h1->state, ARC_L2ONLY);
	KUNIT_EXPECT_FALSE(test, h1->flags & ARC_F_L2);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2] T2=[] B1=[] B2=[] L2=[1]");
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 2);
	KUNIT_EXPECT_EQ(test, arc_l2only_writing(&ctx->arc), 1);

	/* the copy never got there: the target takes it out */
	spin_lock_bh(&ctx->arc.lock);
	h1->flags &= ~ARC_F_L2_WRITING;
	arc_hdr_clear_l2(&ctx->arc, h1);
	KUNIT_EXPECT_EQ(test, h1->state, ARC_DEAD);
	arc_hdr_unpin(&ctx->arc, h1);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, ctx->l2_drops, 0);
	KUNIT_EXPECT_EQ(test, arc_l2only_writing(&ctx->arc), 0);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2] T2=[] B1=[] B2=[]");

	/* a shrink and an invalidation say so */
	arc_test_set_c(test, 2);
	arc_test_access(test, 3);
	arc_test_set_c(test, 1);
	KUNIT_EXPECT_EQ(test, ctx->why[ARC_EVICT_SHRINK], 1);
	KUNIT_EXPECT_EQ(test, ctx->why[ARC_EVICT_ROOM], 1);
	/* REPLACE made it a ghost, the trim of B1 then deleted it */
	KUNIT_EXPECT_EQ(test, h2->state, ARC_L2ONLY);
	KUNIT_EXPECT_TRUE(test, h2->flags & ARC_F_L2_WRITING);
	KUNIT_EXPECT_EQ(test, arc_l2only_writing(&ctx->arc), 1);
	/* its copy is written: an L2-only header like any other */
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_set_l2(&ctx->arc, h2);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, arc_l2only_writing(&ctx->arc), 0);
	ctx->keep = false;
	spin_lock_bh(&ctx->arc.lock);
	arc_invalidate(&ctx->arc, arc_lookup(&ctx->arc, to_oblock(3)));
	h2->flags &= ~ARC_F_L2_WRITING;
	arc_hdr_clear_l2(&ctx->arc, h2);
	KUNIT_EXPECT_EQ(test, ctx->l2_drops, 1);
	KUNIT_EXPECT_EQ(test, arc_l2only_writing(&ctx->arc), 0);
	arc_hdr_unpin(&ctx->arc, h2);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[] B1=[] B2=[]");
	KUNIT_EXPECT_EQ(test, ctx->why[ARC_EVICT_INVALIDATE], 1);
	KUNIT_EXPECT_EQ(test, ctx->why[ARC_EVICT_EXIT], 0);
}

/*
 * A target with its own index: a header the paper's rules drop with a
 * valid L2 copy goes to the index (freed, l2_drop not called), at once or
 * at its last unpin, never while its copy is being written; a miss on an
 * indexed block gets a new header that keeps the copy.  The paper's
 * lists, p and c are as without an index.
 */
static void arc_test_compact_claim(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new_ops(test, 1,
						    &arc_test_index_ops);
	struct arc_hdr *h;

	arc_test_access_hdr(test, 1, 0, &h);
	spin_lock_bh(&ctx->arc.lock);
	h->l2_slot = 11;
	arc_hdr_set_l2(&ctx->arc, h);
	spin_unlock_bh(&ctx->arc.lock);
	/* case IV deletes T1's LRU: its copy goes to the index */
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 2), ARC_MISS);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2] T2=[] B1=[] B2=[]");
	KUNIT_EXPECT_EQ(test, ctx->compacts, 1);
	KUNIT_EXPECT_EQ(test, ctx->ix_nr, 1);
	KUNIT_EXPECT_EQ(test, ctx->ix_oblock[0], 1);
	KUNIT_EXPECT_EQ(test, ctx->ix_slot[0], 11);
	KUNIT_EXPECT_EQ(test, ctx->l2_drops, 0);
	KUNIT_EXPECT_NULL(test, arc_test_lookup(test, 1));
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 1);

	/* a miss on it: a new header in T1 with the copy */
	KUNIT_EXPECT_EQ(test, arc_test_access_hdr(test, 1, 0, &h), ARC_MISS);
	KUNIT_EXPECT_EQ(test, ctx->claims, 1);
	KUNIT_EXPECT_EQ(test, ctx->ix_nr, 0);
	KUNIT_EXPECT_TRUE(test, h->flags & ARC_F_L2);
	KUNIT_EXPECT_EQ(test, h->l2_slot, 11);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[1] T2=[] B1=[] B2=[]");
	/* a block the index does not hold gets no copy */
	KUNIT_EXPECT_NULL(test, arc_test_lookup(test, 2));

	/* pinned when dropped: L2-only until its last pin goes */
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_pin(&ctx->arc, h);
	arc_hdr_pin(&ctx->arc, h);
	spin_unlock_bh(&ctx->arc.lock);
	arc_test_access(test, 3);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[3] T2=[] B1=[] B2=[] L2=[1]");
	KUNIT_EXPECT_EQ(test, h->state, ARC_L2ONLY);
	spin_lock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_TRUE(test, arc_hdr_unpin(&ctx->arc, h));
	KUNIT_EXPECT_EQ(test, h->state, ARC_L2ONLY);
	KUNIT_EXPECT_FALSE(test, arc_hdr_unpin(&ctx->arc, h));
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, ctx->compacts, 2);
	KUNIT_EXPECT_EQ(test, ctx->ix_nr, 1);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[3] T2=[] B1=[] B2=[]");
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_LIST_L2ONLY), 0);

	/* a copy being written keeps the header L2-only, unindexed */
	arc_test_access_hdr(test, 1, 0, &h);
	KUNIT_EXPECT_EQ(test, ctx->claims, 2);
	spin_lock_bh(&ctx->arc.lock);
	h->flags |= ARC_F_L2_WRITING;
	spin_unlock_bh(&ctx->arc.lock);
	arc_test_access(test, 4);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4] T2=[] B1=[] B2=[] L2=[1]");
	KUNIT_EXPECT_EQ(test, ctx->compacts, 2);
	KUNIT_EXPECT_EQ(test, ctx->l2_drops, 0);
	KUNIT_EXPECT_EQ(test, arc_c(&ctx->arc), 1);
	KUNIT_EXPECT_EQ(test, arc_p_fixed(&ctx->arc), 0);
}

static void arc_test_l2only(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 1);
	struct arc_hdr *h1, *h;

	/* case IV deletes T1's LRU: with an L2 copy it goes L2-only */
	arc_test_access_hdr(test, 1, 0, &h1);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_set_l2(&ctx->arc, h1);
	spin_unlock_bh(&ctx->arc.lock);
	arc_test_access(test, 2);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[2] T2=[] B1=[] B2=[] L2=[1]");
	KUNIT_EXPECT_EQ(test, h1->state, ARC_L2ONLY);
	KUNIT_EXPECT_NULL(test, h1->data);
	KUNIT_EXPECT_PTR_EQ(test, arc_test_lookup(test, 1), h1);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_LIST_L2ONLY), 1);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 2);

	/* an access is a miss that reuses the header, the spare is kept */
	KUNIT_EXPECT_EQ(test, arc_test_access_hdr(test, 1, 0, &h), ARC_MISS);
	KUNIT_EXPECT_PTR_EQ(test, h, h1);
	KUNIT_EXPECT_NOT_NULL(test, ctx->spare);
	KUNIT_EXPECT_TRUE(test, h1->flags & ARC_F_L2);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[1] T2=[] B1=[] B2=[]");
	KUNIT_EXPECT_NULL(test, arc_test_lookup(test, 2));

	/* ghosts deleted by a shrink go L2-only too */
	arc_test_set_c(test, 2);
	arc_test_access(test, 1);		/* T2=[1] */
	arc_test_access(test, 2);
	arc_test_access(test, 3);
	arc_test_access(test, 3);
	arc_test_access(test, 4);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[4] T2=[3] B1=[2] B2=[1]");
	arc_test_set_c(test, 1);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[3] B1=[4] B2=[] L2=[1]");
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 3);

	/* dropping the L2 flag frees an L2-only header, telling the target */
	KUNIT_EXPECT_EQ(test, ctx->l2_drops, 0);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_clear_l2(&ctx->arc, h1);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, ctx->l2_drops, 1);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[] T2=[3] B1=[4] B2=[]");
	KUNIT_EXPECT_NULL(test, arc_test_lookup(test, 1));
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 2);

	/* case IV B deletes B2's LRU when the directory holds 2c */
	h = arc_test_lookup(test, 3);
	KUNIT_ASSERT_NOT_NULL(test, h);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_set_l2(&ctx->arc, h);
	spin_unlock_bh(&ctx->arc.lock);
	arc_test_set_c(test, 2);
	arc_test_access(test, 5);
	arc_test_access(test, 6);
	arc_test_access(test, 6);
	arc_test_access(test, 7);
	arc_test_access(test, 8);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[8] T2=[6] B1=[7] B2=[3]");
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 7), ARC_GHOST_MRU);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[8] T2=[7] B1=[] B2=[3 6]");
	KUNIT_EXPECT_EQ(test, arc_p_fixed(&ctx->arc), ARC_TEST_P(1, 1));
	/* and |T1| = p, x not in B2: REPLACE takes T2's LRU */
	KUNIT_EXPECT_EQ(test, arc_test_access(test, 9), ARC_MISS);
	KUNIT_EXPECT_STREQ(test, arc_test_lists(test),
			   "T1=[8 9] T2=[] B1=[] B2=[6 7] L2=[3]");

	/* an invalidation drops an L2-only header, pinned or not */
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_pin(&ctx->arc, h);
	arc_invalidate(&ctx->arc, h);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, h->state, ARC_DEAD);
	KUNIT_EXPECT_FALSE(test, h->flags & ARC_F_L2);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_LIST_L2ONLY), 0);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_unpin(&ctx->arc, h);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, arc_nr_hashed(&ctx->arc), 4);
}

/*
 * A header that comes back to T1/T2 (from the L2-only state, from a ghost
 * list, or new) has no data until the target hangs some on it, and leaving
 * T1/T2 before that hands nothing back: @data is never anything but the
 * target's data (it once shared its place with the L2 copy's checksum).
 */
static void arc_test_data_unambiguous(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 1);
	struct arc_hdr *h1, *h4, *h = NULL;
	u64 evictions;
	int r;

	/* 1 on L2, then deleted from T1 by case IV: L2-only, no data */
	arc_test_access_hdr(test, 1, 0, &h1);
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_set_l2(&ctx->arc, h1);
	spin_unlock_bh(&ctx->arc.lock);
	arc_test_access(test, 2);
	KUNIT_ASSERT_EQ(test, h1->state, ARC_L2ONLY);
	KUNIT_EXPECT_NULL(test, h1->data);

	/*
	 * Back to T1 without data (2, with data, makes room), then deleted
	 * again by case IV for 4 before any data is hung on it: nothing is
	 * handed back for it.
	 */
	if (!ctx->spare)
		ctx->spare = arc_hdr_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->spare);
	evictions = ctx->evictions;
	spin_lock_bh(&ctx->arc.lock);
	r = arc_access(&ctx->arc, to_oblock(1), 0, &ctx->spare, &h);
	KUNIT_EXPECT_EQ(test, r, ARC_MISS);
	KUNIT_EXPECT_PTR_EQ(test, h, h1);
	KUNIT_EXPECT_EQ(test, h1->state, ARC_MRU);
	KUNIT_EXPECT_NULL(test, h1->data);
	r = arc_access(&ctx->arc, to_oblock(4), 0, &ctx->spare, &h4);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, r, ARC_MISS);
	KUNIT_EXPECT_EQ(test, ctx->evictions, evictions + 1);
	KUNIT_EXPECT_EQ(test, h1->state, ARC_L2ONLY);
	KUNIT_EXPECT_NULL(test, h1->data);
	KUNIT_EXPECT_NULL(test, h4->data);

	/*
	 * 4 (no data) goes to B1, gets an L2 copy, and a ghost hit brings it
	 * to T2 without data; REPLACE hands back 3's data only; an
	 * invalidation before data is hung hands nothing back.
	 */
	arc_test_set_c(test, 2);
	arc_test_access(test, 3);
	arc_test_access(test, 3);		/* T1=[4] T2=[3] */
	arc_test_access(test, 5);		/* REPLACE: 4 to B1 */
	KUNIT_ASSERT_EQ(test, h4->state, ARC_MRU_GHOST);
	KUNIT_EXPECT_NULL(test, h4->data);
	evictions = ctx->evictions;
	spin_lock_bh(&ctx->arc.lock);
	arc_hdr_set_l2(&ctx->arc, h4);
	r = arc_access(&ctx->arc, to_oblock(4), 0, &ctx->spare, &h);
	KUNIT_EXPECT_EQ(test, r, ARC_GHOST_MRU);
	KUNIT_EXPECT_PTR_EQ(test, h, h4);
	KUNIT_EXPECT_EQ(test, h4->state, ARC_MFU);
	KUNIT_EXPECT_NULL(test, h4->data);
	KUNIT_EXPECT_EQ(test, ctx->evictions, evictions + 1);
	arc_invalidate(&ctx->arc, h4);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, ctx->evictions, evictions + 1);
	KUNIT_EXPECT_EQ(test, ctx->bad_data, 0);
}

/* ---------------------------------------------------------------- */
/* Invariants under random load                                     */
/* ---------------------------------------------------------------- */

#define ARC_TEST_RANDOM_STEPS	100000
#define ARC_TEST_RANDOM_BLOCKS	512
#define ARC_TEST_MAX_PINS	8

/* Walk every list: states, flags and data agree with the counters. */
static void arc_test_walk(struct kunit *test, struct arc_test_ctx *ctx)
{
	struct arc *arc = &ctx->arc;
	struct arc_hdr *hdr;
	u64 count;
	int i;

	for (i = 0; i < ARC_NR_LISTS; i++) {
		count = 0;
		list_for_each_entry(hdr, &arc->lists[i], list) {
			count++;
			KUNIT_ASSERT_EQ(test, hdr->state, i + ARC_MRU);
			if (i == ARC_T1 || i == ARC_T2)
				KUNIT_ASSERT_PTR_EQ(test, hdr->data,
						    arc_test_tag(hdr->oblock));
			else
				KUNIT_ASSERT_NULL(test, hdr->data);
			if (hdr->flags & ARC_F_PREFETCH)
				KUNIT_ASSERT_EQ(test, i, ARC_T1);
			if (i == ARC_LIST_L2ONLY)
				KUNIT_ASSERT_TRUE(test, hdr->flags & ARC_F_L2);
			if (i == ARC_LIST_DEAD)
				KUNIT_ASSERT_GT(test, hdr->pins, 0);
		}
		KUNIT_ASSERT_EQ(test, count, arc->size[i]);
	}
}

static void arc_test_invariants(struct kunit *test, struct arc_test_ctx *ctx)
{
	struct arc *arc = &ctx->arc;
	u64 t1 = arc_list_size(arc, ARC_T1), t2 = arc_list_size(arc, ARC_T2);
	u64 b1 = arc_list_size(arc, ARC_B1), b2 = arc_list_size(arc, ARC_B2);
	u64 c = arc_c(arc);

	KUNIT_ASSERT_LE(test, t1 + t2, c);
	KUNIT_ASSERT_LE(test, t1 + b1, c);
	KUNIT_ASSERT_LE(test, t1 + t2 + b1 + b2, 2 * c);
	KUNIT_ASSERT_LE(test, arc_p_fixed(arc), c << ARC_P_SHIFT);
	KUNIT_ASSERT_EQ(test, (u64)arc_nr_hashed(arc),
			t1 + t2 + b1 + b2 +
			arc_list_size(arc, ARC_LIST_L2ONLY));
	KUNIT_ASSERT_EQ(test, ctx->data_refs, (s64)(t1 + t2));
}

static void arc_test_random(struct kunit *test)
{
	struct arc_test_ctx *ctx = arc_test_new(test, 64);
	struct arc_hdr *pinned[ARC_TEST_MAX_PINS] = { };
	unsigned int i, j, hits = 0, npins = 0, nc = 0;
	struct rnd_state rnd;
	struct arc_hdr *hdr;
	u32 r, op;
	u64 b;

	prandom_seed_state(&rnd, 20030331);
	for (i = 0; i < ARC_TEST_RANDOM_STEPS; i++) {
		r = prandom_u32_state(&rnd);
		op = r % 1000;
		/* half the accesses to 48 hot blocks, the rest uniform */
		b = (r >> 10) & 1 ? (r >> 11) % 48 :
			(r >> 11) % ARC_TEST_RANDOM_BLOCKS;

		if (i % 9973 == 9972) {
			/* shrinks and growths around the start size, 64 */
			static const u64 sizes[] = { 16, 96, 1, 64, 40, 200 };

			arc_test_set_c(test, sizes[nc++ % ARRAY_SIZE(sizes)]);
		} else if (op < 20) {
			spin_lock_bh(&ctx->arc.lock);
			hdr = arc_lookup(&ctx->arc, to_oblock(b));
			if (hdr)
				arc_invalidate(&ctx->arc, hdr);
			spin_unlock_bh(&ctx->arc.lock);
		} else if (op < 40) {
			spin_lock_bh(&ctx->arc.lock);
			hdr = arc_lookup(&ctx->arc, to_oblock(b));
			if (hdr && hdr->state != ARC_L2ONLY)
				arc_hdr_set_l2(&ctx->arc, hdr);
			spin_unlock_bh(&ctx->arc.lock);
		} else if (op < 50) {
			spin_lock_bh(&ctx->arc.lock);
			hdr = arc_lookup(&ctx->arc, to_oblock(b));
			if (hdr)
				arc_hdr_clear_l2(&ctx->arc, hdr);
			spin_unlock_bh(&ctx->arc.lock);
		} else if (op < 60) {
			/* pin a block, or unpin the oldest pin */
			spin_lock_bh(&ctx->arc.lock);
			hdr = arc_lookup(&ctx->arc, to_oblock(b));
			if (hdr && npins < ARC_TEST_MAX_PINS) {
				arc_hdr_pin(&ctx->arc, hdr);
				pinned[npins++] = hdr;
			} else if (npins) {
				arc_hdr_unpin(&ctx->arc, pinned[0]);
				for (j = 1; j < npins; j++)
					pinned[j - 1] = pinned[j];
				npins--;
			}
			spin_unlock_bh(&ctx->arc.lock);
		} else {
			int res = arc_test_access_hdr(test, b,
						      op < 250 ?
						      ARC_ACCESS_PREFETCH : 0,
						      NULL);

			hits += res == ARC_HIT_MRU || res == ARC_HIT_MFU;
		}
		arc_test_invariants(test, ctx);
		if (i % 1000 == 0) {
			spin_lock_bh(&ctx->arc.lock);
			arc_test_walk(test, ctx);
			spin_unlock_bh(&ctx->arc.lock);
		}
	}
	spin_lock_bh(&ctx->arc.lock);
	arc_test_walk(test, ctx);
	for (j = 0; j < npins; j++)
		arc_hdr_unpin(&ctx->arc, pinned[j]);
	spin_unlock_bh(&ctx->arc.lock);
	KUNIT_EXPECT_EQ(test, arc_list_size(&ctx->arc, ARC_LIST_DEAD), 0);
	kunit_info(test, "%u steps: %u hits, %llu evicted, c %llu, p %llu/2^32, T1 %llu T2 %llu B1 %llu B2 %llu L2-only %llu\n",
		   i, hits, arc_evicted(&ctx->arc), arc_c(&ctx->arc),
		   arc_p_fixed(&ctx->arc),
		   arc_list_size(&ctx->arc, ARC_T1),
		   arc_list_size(&ctx->arc, ARC_T2),
		   arc_list_size(&ctx->arc, ARC_B1),
		   arc_list_size(&ctx->arc, ARC_B2),
		   arc_list_size(&ctx->arc, ARC_LIST_L2ONLY));
}

/*
 * Random accesses, invalidations and resizes over three owners (bits
 * above 8 of blocks 0..767), owner 1 capped at 5 and owner 2 at 20: after
 * every step each owner's counts are those of a walk of T1 and T2, and
 * no capped owner is above its ceiling.
 */
static void arc_test_owners_random(struct kunit *test)
{
	static const u64 max[3] = { 0, 5, 20 };
	struct arc_test_ctx *ctx = arc_test_new(test, 48);
	struct arc *arc = &ctx->arc;
	u64 seen[3][2], evicted_before;
	unsigned int i, o, l;
	struct rnd_state rnd;
	struct arc_hdr *hdr;
	u32 r;
	u64 b;

	KUNIT_ASSERT_EQ(test, arc_owners_init(arc, 8, 3), 0);
	spin_lock_bh(&arc->lock);
	arc_owner_set_max(arc, 1, max[1]);
	arc_owner_set_max(arc, 2, max[2]);
	spin_unlock_bh(&arc->lock);
	prandom_seed_state(&rnd, 20261207);
	for (i = 0; i < 20000; i++) {
		r = prandom_u32_state(&rnd);
		/* owner by r % 3, a zipf-ish block within it */
		b = (r % 3) * 256 + ((r >> 8) % 64) * ((r >> 14) % 4 + 1) % 256;
		if (i % 4999 == 4998) {
			arc_test_set_c(test, i % 2 ? 16 : 96);
		} else if ((r >> 24) < 8) {
			spin_lock_bh(&arc->lock);
			hdr = arc_lookup(arc, to_oblock(b));
			if (hdr)
				arc_invalidate(arc, hdr);
			spin_unlock_bh(&arc->lock);
		} else {
			arc_test_access_hdr(test, b, (r >> 24) < 40 ?
					    ARC_ACCESS_PREFETCH : 0, NULL);
		}
		memset(seen, 0, sizeof(seen));
		spin_lock_bh(&arc->lock);
		for (l = ARC_T1; l <= ARC_T2; l++)
			list_for_each_entry(hdr, &arc->lists[l], list)
				seen[from_oblock(hdr->oblock) >> 8][l]++;
		for (o = 0; o < 3; o++) {
			KUNIT_ASSERT_EQ(test, arc->owners[o].resident[ARC_T1],
					seen[o][ARC_T1]);
			KUNIT_ASSERT_EQ(test, arc->owners[o].resident[ARC_T2],
					seen[o][ARC_T2]);
			if (max[o])
				KUNIT_ASSERT_LE(test, arc_owner_resident(arc, o),
						max[o]);
		}
		spin_unlock_bh(&arc->lock);
		arc_test_invariants(test, ctx);
	}
	evicted_before = arc_evicted(arc);
	KUNIT_EXPECT_GT(test, evicted_before, 0);
	kunit_info(test, "owners' resident %llu %llu %llu, %llu evicted\n",
		   arc_owner_resident(arc, 0), arc_owner_resident(arc, 1),
		   arc_owner_resident(arc, 2), evicted_before);
}

static struct kunit_case arc_test_cases[] = {
	KUNIT_CASE(arc_test_sizes),
	KUNIT_CASE(arc_test_case_i),
	KUNIT_CASE(arc_test_case_iv),
	KUNIT_CASE(arc_test_insert),
	KUNIT_CASE(arc_test_case_ii_iii),
	KUNIT_CASE(arc_test_floor),
	KUNIT_CASE(arc_test_ceiling),
	KUNIT_CASE(arc_test_ceiling_skew),
	KUNIT_CASE(arc_test_owner_range),
	KUNIT_CASE(arc_test_forget),
	KUNIT_CASE(arc_test_owners_init),
	KUNIT_CASE(arc_test_owners_random),
	KUNIT_CASE(arc_test_replace_tie),
	KUNIT_CASE(arc_test_fractional_p),
	KUNIT_CASE(arc_test_hit_count),
	KUNIT_CASE_PARAM(arc_test_synthetic, arc_test_synth_gen_params),
	KUNIT_CASE(arc_test_scan),
	KUNIT_CASE(arc_test_prefetch_rules),
	KUNIT_CASE(arc_test_shrink),
	KUNIT_CASE(arc_test_invalidate),
	KUNIT_CASE(arc_test_lookup_seen),
	KUNIT_CASE(arc_test_pins),
	KUNIT_CASE(arc_test_l2only),
	KUNIT_CASE(arc_test_compact_claim),
	KUNIT_CASE(arc_test_l2_writing),
	KUNIT_CASE(arc_test_data_unambiguous),
	KUNIT_CASE(arc_test_random),
	{}
};

static struct kunit_suite arc_test_suite = {
	.name = "dm_l2arc_arc",
	.suite_init = arc_test_suite_init,
	.suite_exit = arc_test_suite_exit,
	.exit = arc_test_exit,
	.test_cases = arc_test_cases,
};

kunit_test_suite(arc_test_suite);

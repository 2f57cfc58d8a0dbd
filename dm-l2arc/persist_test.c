// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the persistent L2ARC (persist.c): the set of block
 * ranges written while a rebuild is pending (l2arc_ranges_add(),
 * l2arc_ranges_find()).  The on-disk format's are in format_test.c.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/prandom.h>

#include "dm-l2arc.h"
#include "persist.h"

/* The set must be exactly @want (pairs of first, last), in order. */
static void persist_test_ranges_are(struct kunit *test,
				    const struct l2arc_rb_range *r,
				    unsigned int nr, const u64 *want,
				    unsigned int want_nr)
{
	unsigned int i;

	KUNIT_ASSERT_EQ(test, nr, want_nr);
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ_MSG(test, r[i].first, want[2 * i], "range %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r[i].last, want[2 * i + 1], "range %u",
				    i);
	}
}

#define RANGES_ARE(r, nr, ...)						\
	do {								\
		static const u64 w_[] = { __VA_ARGS__ };		\
		persist_test_ranges_are(test, r, nr, w_,		\
					ARRAY_SIZE(w_) / 2);		\
	} while (0)

/* Inserts keep the ranges sorted; overlapping and adjacent ones merge. */
static void persist_test_ranges_insert_merge(struct kunit *test)
{
	struct l2arc_rb_range r[8];
	unsigned int nr = 0;

	l2arc_ranges_add(r, &nr, 8, 100, 109);
	l2arc_ranges_add(r, &nr, 8, 10, 19);	/* before */
	l2arc_ranges_add(r, &nr, 8, 200, 200);	/* after */
	l2arc_ranges_add(r, &nr, 8, 50, 59);	/* between */
	RANGES_ARE(r, nr, 10, 19, 50, 59, 100, 109, 200, 200);

	l2arc_ranges_add(r, &nr, 8, 20, 29);	/* touches 10-19 after */
	l2arc_ranges_add(r, &nr, 8, 40, 49);	/* touches 50-59 before */
	RANGES_ARE(r, nr, 10, 29, 40, 59, 100, 109, 200, 200);

	l2arc_ranges_add(r, &nr, 8, 105, 120);	/* overlaps the end */
	l2arc_ranges_add(r, &nr, 8, 95, 101);	/* overlaps the start */
	l2arc_ranges_add(r, &nr, 8, 199, 201);	/* over the whole */
	l2arc_ranges_add(r, &nr, 8, 12, 15);	/* inside */
	RANGES_ARE(r, nr, 10, 29, 40, 59, 95, 120, 199, 201);

	l2arc_ranges_add(r, &nr, 8, 30, 39);	/* fills the gap: two merge */
	RANGES_ARE(r, nr, 10, 59, 95, 120, 199, 201);

	l2arc_ranges_add(r, &nr, 8, 0, 300);	/* over every range */
	RANGES_ARE(r, nr, 0, 300);

	l2arc_ranges_add(r, &nr, 8, 302, 302);	/* one block between */
	RANGES_ARE(r, nr, 0, 300, 302, 302);
	l2arc_ranges_add(r, &nr, 8, 301, 301);	/* joins both */
	RANGES_ARE(r, nr, 0, 302);
}

/* A full set widens the nearest range: before on a tie, at either end. */
static void persist_test_ranges_full(struct kunit *test)
{
	struct l2arc_rb_range r[3];
	unsigned int nr = 0;

	l2arc_ranges_add(r, &nr, 3, 100, 109);
	l2arc_ranges_add(r, &nr, 3, 200, 209);
	l2arc_ranges_add(r, &nr, 3, 300, 309);
	RANGES_ARE(r, nr, 100, 109, 200, 209, 300, 309);

	l2arc_ranges_add(r, &nr, 3, 150, 150);	/* gaps 41 and 50: before */
	RANGES_ARE(r, nr, 100, 150, 200, 209, 300, 309);
	l2arc_ranges_add(r, &nr, 3, 180, 185);	/* gaps 30 and 15: after */
	RANGES_ARE(r, nr, 100, 150, 180, 209, 300, 309);
	l2arc_ranges_add(r, &nr, 3, 245, 264);	/* gaps 36 and 36: before */
	RANGES_ARE(r, nr, 100, 150, 180, 264, 300, 309);
	l2arc_ranges_add(r, &nr, 3, 5, 9);	/* before the first */
	RANGES_ARE(r, nr, 5, 150, 180, 264, 300, 309);
	l2arc_ranges_add(r, &nr, 3, 1000, 1000);	/* after the last */
	RANGES_ARE(r, nr, 5, 150, 180, 264, 300, 1000);
	/* a full set still merges what touches */
	l2arc_ranges_add(r, &nr, 3, 151, 179);
	RANGES_ARE(r, nr, 5, 264, 300, 1000);

	/* room for one range: everything widens it */
	nr = 0;
	l2arc_ranges_add(r, &nr, 1, 50, 50);
	l2arc_ranges_add(r, &nr, 1, 10, 10);
	l2arc_ranges_add(r, &nr, 1, 90, 99);
	RANGES_ARE(r, nr, 10, 99);
}

/* Lookups at the edges of each range, and outside every range. */
static void persist_test_ranges_find(struct kunit *test)
{
	struct l2arc_rb_range r[4];
	unsigned int nr = 0;

	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, nr, 0));
	l2arc_ranges_add(r, &nr, 4, 0, 0);
	l2arc_ranges_add(r, &nr, 4, 10, 19);
	l2arc_ranges_add(r, &nr, 4, 30, 30);
	l2arc_ranges_add(r, &nr, 4, U64_MAX - 10, U64_MAX - 1);
	KUNIT_EXPECT_TRUE(test, l2arc_ranges_find(r, nr, 0));
	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, nr, 1));
	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, nr, 9));
	KUNIT_EXPECT_TRUE(test, l2arc_ranges_find(r, nr, 10));
	KUNIT_EXPECT_TRUE(test, l2arc_ranges_find(r, nr, 15));
	KUNIT_EXPECT_TRUE(test, l2arc_ranges_find(r, nr, 19));
	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, nr, 20));
	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, nr, 29));
	KUNIT_EXPECT_TRUE(test, l2arc_ranges_find(r, nr, 30));
	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, nr, 31));
	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, nr, U64_MAX - 11));
	KUNIT_EXPECT_TRUE(test, l2arc_ranges_find(r, nr, U64_MAX - 10));
	KUNIT_EXPECT_TRUE(test, l2arc_ranges_find(r, nr, U64_MAX - 1));
	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, nr, U64_MAX));
	/* the first @nr ranges only */
	KUNIT_EXPECT_FALSE(test, l2arc_ranges_find(r, 2, 30));
}

#define PERSIST_TEST_BLOCKS	512
#define PERSIST_TEST_WRITES	64

/*
 * 64 random writes into 512 blocks against a bitmap of the blocks
 * written: the ranges stay sorted, disjoint and not adjacent; with room
 * for 64 they hold exactly the blocks written, with 8 at least those.
 */
static void persist_test_ranges_random(struct kunit *test)
{
	DECLARE_BITMAP(written, PERSIST_TEST_BLOCKS);
	struct l2arc_rb_range r[PERSIST_TEST_WRITES];
	struct rnd_state rnd;
	unsigned int max, nr, i, round;
	u64 first, b;

	prandom_seed_state(&rnd, 20260312);
	for (round = 0; round < 200; round++) {
		max = round & 1 ? 8 : ARRAY_SIZE(r);
		bitmap_zero(written, PERSIST_TEST_BLOCKS);
		nr = 0;
		for (i = 0; i < PERSIST_TEST_WRITES; i++) {
			first = prandom_u32_state(&rnd) % PERSIST_TEST_BLOCKS;
			b = min_t(u64, PERSIST_TEST_BLOCKS - 1,
				  first + prandom_u32_state(&rnd) % 8);
			bitmap_set(written, first, b - first + 1);
			l2arc_ranges_add(r, &nr, max, first, b);
		}
		KUNIT_ASSERT_LE(test, nr, max);
		for (i = 0; i < nr; i++) {
			KUNIT_ASSERT_LE(test, r[i].first, r[i].last);
			if (i)
				KUNIT_ASSERT_GT(test, r[i].first,
						r[i - 1].last + 1);
		}
		for (b = 0; b < PERSIST_TEST_BLOCKS; b++) {
			bool in = l2arc_ranges_find(r, nr, b);

			if (test_bit(b, written))
				KUNIT_ASSERT_TRUE(test, in);
			else if (max == ARRAY_SIZE(r))
				KUNIT_ASSERT_FALSE(test, in);
		}
	}
}

static struct kunit_case persist_test_cases[] = {
	KUNIT_CASE(persist_test_ranges_insert_merge),
	KUNIT_CASE(persist_test_ranges_full),
	KUNIT_CASE(persist_test_ranges_find),
	KUNIT_CASE(persist_test_ranges_random),
	{}
};

static struct kunit_suite persist_test_suite = {
	.name = "dm_l2arc_persist",
	.test_cases = persist_test_cases,
};

kunit_test_suite(persist_test_suite);

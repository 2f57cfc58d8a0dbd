// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the persistent L2ARC (persist.c): its layout (where the
 * slots start on a cache device, for the sizes the documentation and the
 * VM tests quote, at and around the bounds), and the set of block ranges
 * written while a rebuild is pending (l2arc_ranges_add(),
 * l2arc_ranges_find()); and the decoders of the on-disk format fed
 * crafted units (valid checksums over wrong contents) and corrupt ones.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/crc32c.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "dm-l2arc.h"
#include "persist.h"

/**
 * struct persist_test_layout - one case of l2arc_meta_layout()
 * @name: what it shows
 * @dev_blocks: device size, cache blocks
 * @block_sectors: cache block size, sectors
 * @min_bytes: l2arc_rebuild_blocks_min_l2size
 * @meta: blocks before slot 0 expected (0: no metadata)
 * @slots: slots expected
 */
struct persist_test_layout {
	const char *name;
	u64 dev_blocks;
	u32 block_sectors;
	u64 min_bytes;
	u64 meta;
	u64 slots;
};

static const struct persist_test_layout persist_test_layouts[] = {
	/* 67-l2-persist: header + 33 log blocks of 4 KiB */
	{ "32 MiB, 4 KiB blocks", 8192, 8, 0, 34, 8158 },
	/* the demo: 34 units of 4 KiB in two 128 KiB blocks */
	{ "1 GiB, 128 KiB blocks", 8192, 256, 1ULL << 30, 2, 8190 },
	{ "1 GiB, 4 KiB blocks", 262144, 8, 1ULL << 30, 1034, 261110 },
	{ "512 MiB, below 1 GiB", 131072, 8, 1ULL << 30, 0, 131072 },
	{ "1 GiB, 1 byte below the bound", 262144, 8, (1ULL << 30) + 1, 0,
	  262144 },
	/* the metadata (2 blocks) and 16 slots need 18 blocks */
	{ "16 blocks", 16, 8, 0, 0, 16 },
	{ "17 blocks", 17, 8, 0, 0, 17 },
	{ "18 blocks", 18, 8, 0, 2, 16 },
	/* 4.03 GiB of 1 TiB (0.39 %) */
	{ "1 TiB, 4 KiB blocks", 268435456, 8, 1ULL << 30, 1056834,
	  267378622 },
	/* 129 MiB of 1 TiB (0.012 %) */
	{ "1 TiB, 128 KiB blocks", 8388608, 256, 1ULL << 30, 1033, 8387575 },
};

static void persist_test_layout_desc(const struct persist_test_layout *t,
				     char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(persist_test_layout, persist_test_layouts,
		  persist_test_layout_desc);

static void persist_test_meta_layout(struct kunit *test)
{
	const struct persist_test_layout *t = test->param_value;
	u64 meta = U64_MAX;

	KUNIT_EXPECT_EQ(test, l2arc_meta_layout(t->dev_blocks,
						t->block_sectors,
						t->min_bytes, &meta),
			t->slots);
	KUNIT_EXPECT_EQ(test, meta, t->meta);
}

/* A table of 8,192 blocks of 4 KiB over a 32 MiB cache device */
static const struct l2arc_dh_want persist_test_want = {
	.block_sectors = 8, .dev_blocks = 8192, .meta_blocks = 34,
	.nr_slots = 8158, .target_len = 65536, .origin_sectors = 65536,
	.origin_dev = 0x800010, .uid_type = 3, .uid_len = 4,
	.uid = { 1, 2, 3, 4 },
};

/* Re-checksum a header: a crafted one, as an attacker would make it */
static void persist_test_dh_seal(struct l2arc_dev_hdr *dh)
{
	size_t off = offsetof(struct l2arc_dev_hdr, cksum);

	dh->cksum = cpu_to_le32(l2arc_meta_cksum(dh, off));
}

/* A clean header that matches persist_test_want, in a 4 KiB unit */
static struct l2arc_dev_hdr *persist_test_dh(struct kunit *test)
{
	const struct l2arc_dh_life life = {
		.state = L2ARC_DH_CLEAN,
		.hand = persist_test_want.nr_slots,
	};
	struct l2arc_dev_hdr *dh = kunit_kzalloc(test, L2ARC_META_UNIT,
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dh);
	l2arc_dh_encode(dh, &persist_test_want, &life);
	return dh;
}

static void persist_test_dh_decode(struct kunit *test)
{
	const struct l2arc_dh_want *w = &persist_test_want;
	struct l2arc_dev_hdr *dh = persist_test_dh(test);
	struct l2arc_dh_want other;

	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OK);

	/* one bit of the header flipped, checksum not redone */
	dh->laps = cpu_to_le64(1);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_BAD_CKSUM);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OK);

	dh->magic = 0;
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_NONE);
	dh = persist_test_dh(test);
	dh->version = cpu_to_le32(1);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_UNSUPPORTED);

	/* a hand one past the slots is a wrapped, crafted one */
	dh = persist_test_dh(test);
	dh->hand = cpu_to_le64(w->nr_slots + 1);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_GEOMETRY);
	dh = persist_test_dh(test);
	dh->nr_slots = cpu_to_le64(U64_MAX);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_GEOMETRY);
	dh = persist_test_dh(test);
	dh->meta_blocks = cpu_to_le64(0);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_GEOMETRY);

	dh = persist_test_dh(test);
	dh->origin_dev = cpu_to_le64(w->origin_dev + 1);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OTHER_ORIGIN);
	dh = persist_test_dh(test);
	dh->origin_sectors = cpu_to_le64(w->origin_sectors * 2);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OTHER_ORIGIN);

	/* another disk's unique id; an id longer than the field */
	dh = persist_test_dh(test);
	dh->uid[3] = 5;
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OTHER_UID);
	other = *w;
	other.uid_type = 0;
	other.uid_len = 0;
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(persist_test_dh(test), &other),
			L2ARC_DH_OTHER_UID);
	dh = persist_test_dh(test);
	dh->uid_len = cpu_to_le32(L2ARC_UID_BYTES + 1);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_BAD_CKSUM);

	dh = persist_test_dh(test);
	dh->state = cpu_to_le32(L2ARC_DH_IN_USE);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_UNCLEAN);
	dh->state = cpu_to_le32(7);
	persist_test_dh_seal(dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_UNCLEAN);
}

static void persist_test_lb_seal(struct l2arc_log_blk *lb)
{
	size_t off = offsetof(struct l2arc_log_blk, cksum);

	lb->cksum = cpu_to_le32(l2arc_meta_cksum(lb, off));
}

static void persist_test_lb_decode(struct kunit *test)
{
	struct l2arc_log_blk *lb = kunit_kzalloc(test, sizeof(*lb),
						 GFP_KERNEL);
	const u64 guid = 0x1234567890abcdefULL;

	KUNIT_ASSERT_NOT_NULL(test, lb);
	/* zeroes: a log block never written */
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, guid), L2ARC_LB_EMPTY);
	lb->magic = cpu_to_le64(L2ARC_LB_MAGIC);
	lb->guid = cpu_to_le64(guid);
	lb->index = cpu_to_le64(3);
	lb->nr_valid = cpu_to_le32(1);
	lb->ent[0].oblock = cpu_to_le64(9);
	lb->ent[0].flags = cpu_to_le32(L2ARC_LE_VALID);
	persist_test_lb_seal(lb);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, guid), L2ARC_LB_OK);
	/* another place, another format of the device */
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 4, guid), L2ARC_LB_EMPTY);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, guid + 1),
			L2ARC_LB_EMPTY);
	/* an entry changed after the checksum */
	lb->ent[200].oblock = cpu_to_le64(1);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, guid),
			L2ARC_LB_BAD_CKSUM);
}

static void persist_test_le_usable(struct kunit *test)
{
	struct l2arc_log_ent e = {
		.oblock = cpu_to_le64(99),
		.flags = cpu_to_le32(L2ARC_LE_VALID | L2ARC_LE_MFU),
	};

	KUNIT_EXPECT_TRUE(test, l2arc_le_usable(&e, 10, 11, 100));
	/* slot and block at and past their bounds */
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&e, 11, 11, 100));
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&e, 10, 11, 99));
	e.oblock = cpu_to_le64(U64_MAX);
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&e, 0, 11, 100));
	e.oblock = cpu_to_le64(0);
	e.flags = cpu_to_le32(L2ARC_LE_MFU);
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&e, 0, 11, 100));
}

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
	KUNIT_CASE_PARAM(persist_test_meta_layout,
			 persist_test_layout_gen_params),
	KUNIT_CASE(persist_test_dh_decode),
	KUNIT_CASE(persist_test_lb_decode),
	KUNIT_CASE(persist_test_le_usable),
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

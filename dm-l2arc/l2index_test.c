// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the slot table and the index of L2-only blocks
 * (l2index.c): its exact size in RAM for the sizes the documentation
 * quotes, and finding, adding and removing entries, chains included.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "l2index.h"

/**
 * struct l2index_test_size - one case of l2arc_index_bytes()
 * @slots: slots of the cache device
 * @bits: log2 of the buckets expected
 * @bytes: RAM expected, bytes
 */
struct l2index_test_size {
	u64 slots;
	unsigned int bits;
	u64 bytes;
};

static const struct l2index_test_size l2index_test_sizes[] = {
	{ 1, 0, 16 + 4 },
	{ 2, 0, 32 + 4 },
	{ 3, 1, 48 + 8 },
	/* 67-l2-persist: 32 MiB of 4 KiB blocks after the metadata */
	{ 8158, 12, 8158 * 16 + 4096 * 4 },
	/* a power of two: 18 bytes a slot, the least */
	{ 8192, 12, 8192 * 18 },
	/* one more: 20 bytes a slot, the most */
	{ 8193, 13, 8193 * 16 + 8192 * 4 },
};

static void l2index_test_size(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(l2index_test_sizes); i++) {
		const struct l2index_test_size *t = &l2index_test_sizes[i];
		struct l2arc_index ix;

		KUNIT_ASSERT_EQ(test, l2arc_index_init(&ix, t->slots), 0);
		KUNIT_EXPECT_EQ_MSG(test, ix.bits, t->bits, "%llu slots",
				    t->slots);
		KUNIT_EXPECT_EQ_MSG(test, l2arc_index_bytes(&ix), t->bytes,
				    "%llu slots", t->slots);
		KUNIT_EXPECT_EQ(test, ix.nr_indexed, 0);
		l2arc_index_exit(&ix);
		KUNIT_EXPECT_EQ(test, l2arc_index_bytes(&ix), 0);
	}
}

static void l2index_test_bounds(struct kunit *test)
{
	struct l2arc_index ix;

	/* a chain link is 1 + a u32 slot: 2^32 - 1 slots are too many */
	KUNIT_EXPECT_EQ(test, l2arc_index_init(&ix, U32_MAX), -EINVAL);
	KUNIT_EXPECT_NULL(test, ix.slots);
	KUNIT_EXPECT_EQ(test, sizeof(struct l2arc_slot), 16);
}

/* One bucket for two slots: both on one chain, removed from either end. */
static void l2index_test_chain(struct kunit *test)
{
	struct l2arc_index ix;

	KUNIT_ASSERT_EQ(test, l2arc_index_init(&ix, 2), 0);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 5), L2ARC_SLOT_NONE);
	l2arc_slot(&ix, 0)->cksum = 0xabcd;
	l2arc_index_add(&ix, 0, 5, L2ARC_SLOT_MFU);
	l2arc_index_add(&ix, 1, 9, 0);
	KUNIT_EXPECT_EQ(test, ix.nr_indexed, 2);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 5), 0);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 9), 1);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 7), L2ARC_SLOT_NONE);
	KUNIT_EXPECT_EQ(test, l2arc_slot(&ix, 0)->word,
			5 | L2ARC_SLOT_INDEXED | L2ARC_SLOT_MFU);
	/* the older entry, at the chain's tail */
	KUNIT_EXPECT_TRUE(test, l2arc_index_del(&ix, 0));
	KUNIT_EXPECT_EQ(test, ix.nr_indexed, 1);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 5), L2ARC_SLOT_NONE);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 9), 1);
	/* the block and the crc32c stay, for a header that claims the slot */
	KUNIT_EXPECT_EQ(test, l2arc_slot(&ix, 0)->word, 5);
	KUNIT_EXPECT_EQ(test, l2arc_slot(&ix, 0)->cksum, 0xabcd);
	KUNIT_EXPECT_EQ(test, l2arc_slot(&ix, 0)->next, 0);
	/* again, then the newer entry, at the chain's head */
	l2arc_index_add(&ix, 0, 5, L2ARC_SLOT_PREFETCH);
	l2arc_index_del(&ix, 1);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 9), L2ARC_SLOT_NONE);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 5), 0);
	l2arc_index_del(&ix, 0);
	KUNIT_EXPECT_EQ(test, ix.nr_indexed, 0);
	KUNIT_EXPECT_EQ(test, ix.buckets[0][0], 0);
	l2arc_index_exit(&ix);
}

/*
 * A full device of 8,192 slots, every slot indexed with a sequential run
 * of blocks (as a feed writes them), then every other one removed: each
 * block is found at its own slot, and no removed one is.
 */
static void l2index_test_full(struct kunit *test)
{
	const u32 n = 8192;
	struct l2arc_index ix;
	u32 s, found = 0, missing = 0;

	KUNIT_ASSERT_EQ(test, l2arc_index_init(&ix, n), 0);
	for (s = 0; s < n; s++)
		l2arc_index_add(&ix, s, 100000 + s, 0);
	KUNIT_EXPECT_EQ(test, ix.nr_indexed, n);
	for (s = 0; s < n; s++)
		found += l2arc_index_find(&ix, 100000 + s) == s;
	KUNIT_EXPECT_EQ(test, found, n);
	for (s = 0; s < n; s += 2)
		l2arc_index_del(&ix, s);
	KUNIT_EXPECT_EQ(test, ix.nr_indexed, n / 2);
	found = 0;
	for (s = 0; s < n; s++) {
		u32 f = l2arc_index_find(&ix, 100000 + s);

		if (s % 2)
			found += f == s;
		else
			missing += f == L2ARC_SLOT_NONE;
	}
	KUNIT_EXPECT_EQ(test, found, n / 2);
	KUNIT_EXPECT_EQ(test, missing, n / 2);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 100000 + n),
			L2ARC_SLOT_NONE);
	l2arc_index_exit(&ix);
}

/*
 * More slots than one chunk holds (2^22): the slots on either side of the
 * chunk boundary are found, and the chunks are counted in the size.
 */
static void l2index_test_chunks(struct kunit *test)
{
	const u32 per = BIT(L2ARC_INDEX_CHUNK_SHIFT), n = per + 5;
	struct l2arc_index ix;

	KUNIT_ASSERT_EQ(test, l2arc_index_init(&ix, n), 0);
	KUNIT_EXPECT_EQ(test, ix.nr_chunks, 2);
	KUNIT_EXPECT_EQ(test, ix.nr_bucket_chunks, 1);
	KUNIT_EXPECT_EQ(test, ix.bits, 22);
	KUNIT_EXPECT_EQ(test, l2arc_index_bytes(&ix),
			(u64)n * 16 + ((u64)per << 2));
	l2arc_index_add(&ix, per - 1, 7, 0);
	l2arc_index_add(&ix, per, 8, 0);
	l2arc_index_add(&ix, n - 1, 9, 0);
	KUNIT_EXPECT_PTR_EQ(test, l2arc_slot(&ix, per), &ix.slots[1][0]);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 7), per - 1);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 8), per);
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 9), n - 1);
	KUNIT_EXPECT_TRUE(test, l2arc_index_del(&ix, per));
	KUNIT_EXPECT_EQ(test, l2arc_index_find(&ix, 8), L2ARC_SLOT_NONE);
	KUNIT_EXPECT_EQ(test, ix.nr_indexed, 2);
	l2arc_index_exit(&ix);
}

static struct kunit_case l2index_test_cases[] = {
	KUNIT_CASE(l2index_test_size),
	KUNIT_CASE(l2index_test_bounds),
	KUNIT_CASE(l2index_test_chain),
	KUNIT_CASE(l2index_test_full),
	KUNIT_CASE(l2index_test_chunks),
	{}
};

static struct kunit_suite l2index_test_suite = {
	.name = "dm_l2arc_l2index",
	.test_cases = l2index_test_cases,
};

kunit_test_suite(l2index_test_suite);

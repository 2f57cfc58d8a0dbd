// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the persistent L2ARC's layout (persist.c): where the
 * slots start on a cache device, for the sizes the documentation and the
 * VM tests quote, at and around the bounds.
 */
#include <kunit/test.h>

#include "dm-l2arc.h"

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

static struct kunit_case persist_test_cases[] = {
	KUNIT_CASE_PARAM(persist_test_meta_layout,
			 persist_test_layout_gen_params),
	{}
};

static struct kunit_suite persist_test_suite = {
	.name = "dm_l2arc_persist",
	.test_cases = persist_test_cases,
};

kunit_test_suite(persist_test_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the on-disk format (format.c): its layout (where the
 * slots start on a cache device, for the sizes the documentation and the
 * VM tests quote, at and around the bounds); the encoders, checked byte
 * for byte against checksums computed outside the kernel; and the
 * decoders fed crafted units (valid checksums over wrong contents),
 * corrupt ones and headers with feature bits this code does not know.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "format.h"

/**
 * struct format_test_layout - one case of l2arc_meta_layout()
 * @name: what it shows
 * @dev_blocks: device size, cache blocks
 * @block_sectors: cache block size, sectors
 * @min_bytes: l2arc_rebuild_blocks_min_l2size
 * @meta: blocks before slot 0 expected (0: no metadata)
 * @slots: slots expected
 */
struct format_test_layout {
	const char *name;
	u64 dev_blocks;
	u32 block_sectors;
	u64 min_bytes;
	u64 meta;
	u64 slots;
};

static const struct format_test_layout format_test_layouts[] = {
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

static void format_test_layout_desc(const struct format_test_layout *t,
				    char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(format_test_layout, format_test_layouts,
		  format_test_layout_desc);

static void format_test_meta_layout(struct kunit *test)
{
	const struct format_test_layout *t = test->param_value;
	u64 meta = U64_MAX;

	KUNIT_EXPECT_EQ(test, l2arc_meta_layout(t->dev_blocks,
						t->block_sectors,
						t->min_bytes, &meta),
			t->slots);
	KUNIT_EXPECT_EQ(test, meta, t->meta);
}

/* A table of 8,192 blocks of 4 KiB over a 32 MiB cache device */
static const struct l2arc_dh_want format_test_want = {
	.block_sectors = 8, .dev_blocks = 8192, .meta_blocks = 34,
	.nr_slots = 8158, .target_len = 65536, .origin_sectors = 65536,
	.origin_dev = 0x800010, .uid_type = 3, .uid_len = 4,
	.uid = { 1, 2, 3, 4 },
};

/* A clean header that matches format_test_want, in a 4 KiB unit */
static struct l2arc_dev_hdr *format_test_dh(struct kunit *test)
{
	const struct l2arc_dh_life life = {
		.state = L2ARC_DH_CLEAN,
		.hand = format_test_want.nr_slots,
	};
	struct l2arc_dev_hdr *dh = kunit_kzalloc(test, L2ARC_META_UNIT,
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dh);
	l2arc_dh_encode(dh, &format_test_want, &life);
	return dh;
}

/* Seal a crafted header again, as a writer would, and decode it. */
static enum l2arc_dh_verdict
format_test_reseal(struct l2arc_dev_hdr *dh, const struct l2arc_dh_want *w)
{
	l2arc_dh_seal(dh);
	return l2arc_dh_decode(dh, w);
}

static void format_test_dh_decode(struct kunit *test)
{
	const struct l2arc_dh_want *w = &format_test_want;
	struct l2arc_dev_hdr *dh = format_test_dh(test);
	struct l2arc_dh_want other;

	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OK);

	/* one bit of the header flipped, checksum not redone */
	dh->laps = cpu_to_le64(1);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_BAD_CKSUM);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_OK);

	dh->magic = 0;
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_NONE);
	dh = format_test_dh(test);
	dh->version = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_UNSUPPORTED);

	/* a hand one past the slots is a wrapped, crafted one */
	dh = format_test_dh(test);
	dh->hand = cpu_to_le64(w->nr_slots + 1);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_GEOMETRY);
	dh = format_test_dh(test);
	dh->nr_slots = cpu_to_le64(U64_MAX);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_GEOMETRY);
	dh = format_test_dh(test);
	dh->meta_blocks = cpu_to_le64(0);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_GEOMETRY);

	dh = format_test_dh(test);
	dh->origin_dev = cpu_to_le64(w->origin_dev + 1);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_OTHER_ORIGIN);
	dh = format_test_dh(test);
	dh->origin_sectors = cpu_to_le64(w->origin_sectors * 2);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_OTHER_ORIGIN);
	dh = format_test_dh(test);
	dh->target_len = cpu_to_le64(w->target_len + 8);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_OTHER_ORIGIN);
	/* grown since: the origin and the target were smaller */
	dh = format_test_dh(test);
	dh->origin_sectors = cpu_to_le64(w->origin_sectors / 2);
	dh->target_len = cpu_to_le64(w->target_len / 2);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_OK);

	/* another disk's unique id; an id longer than the field */
	dh = format_test_dh(test);
	dh->uid[3] = 5;
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_OTHER_UID);
	other = *w;
	other.uid_type = 0;
	other.uid_len = 0;
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(format_test_dh(test), &other),
			L2ARC_DH_OTHER_UID);
	dh = format_test_dh(test);
	dh->uid_len = cpu_to_le32(L2ARC_UID_BYTES + 1);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_BAD_CKSUM);

	dh = format_test_dh(test);
	dh->state = cpu_to_le32(L2ARC_DH_IN_USE);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_UNCLEAN);
	dh->state = cpu_to_le32(7);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_UNCLEAN);
}

static void format_test_lb_decode(struct kunit *test)
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
	l2arc_lb_seal(lb);
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

static void format_test_le_usable(struct kunit *test)
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

/*
 * crc32c (seed ~0) of format_test_dh_full()'s header, clean and in use,
 * and of format_test_lb_full()'s log block, computed outside the kernel
 * from the layout in format.h: they pin the bytes the encoders write.
 */
#define FORMAT_TEST_DH_CLEAN_CKSUM	0xf253aaddU
#define FORMAT_TEST_DH_IN_USE_CKSUM	0xfca8da19U
#define FORMAT_TEST_LB_CKSUM		0xc6eefdc6U

#define FORMAT_TEST_GUID	0x0123456789abcdefULL

/* A header with every field of format_test_want and @state set */
static struct l2arc_dev_hdr *format_test_dh_full(struct kunit *test,
						 u32 state)
{
	const struct l2arc_dh_life life = {
		.state = state,
		.guid = FORMAT_TEST_GUID,
		.generation = 7,
		.hand = 100,
		.laps = 3,
		.owner = 0xfeedface,
		.origin_fp = 0xdeadbeefcafef00dULL,
	};
	struct l2arc_dev_hdr *dh = kunit_kmalloc(test, L2ARC_META_UNIT,
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dh);
	memset(dh, 0xa5, L2ARC_META_UNIT);	/* the encoder clears it all */
	l2arc_dh_encode(dh, &format_test_want, &life);
	return dh;
}

/* Encode, then decode: every field back, the rest of the unit zero. */
static void format_test_dh_round_trip(struct kunit *test)
{
	const struct l2arc_dh_want *w = &format_test_want;
	struct l2arc_dev_hdr *dh = format_test_dh_full(test, L2ARC_DH_CLEAN);
	const u8 *tail = (const u8 *)dh + sizeof(*dh);
	size_t i;

	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OK);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->magic), L2ARC_DH_MAGIC);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->version), 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->cksum),
			FORMAT_TEST_DH_CLEAN_CKSUM);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->state), L2ARC_DH_CLEAN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->block_sectors), 8U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->guid), FORMAT_TEST_GUID);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->generation), 7ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->dev_blocks), 8192ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->meta_blocks), 34ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->nr_slots), 8158ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->target_len), 65536ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->origin_sectors), 65536ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->origin_dev), 0x800010ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->hand), 100ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->laps), 3ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->owner), 0xfeedfaceULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(dh->origin_fp),
			0xdeadbeefcafef00dULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->uid_type), 3U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->uid_len), 4U);
	KUNIT_EXPECT_EQ(test, memcmp(dh->uid, w->uid, L2ARC_UID_BYTES), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->feature_compat), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->feature_incompat), 0U);
	for (i = 0; i < L2ARC_META_UNIT - sizeof(*dh); i++)
		KUNIT_ASSERT_EQ_MSG(test, tail[i], 0, "byte %zu",
				    sizeof(*dh) + i);
	/* the stored checksum is the unit's, with the field read as zero */
	KUNIT_EXPECT_EQ(test,
			l2arc_meta_cksum(dh, offsetof(struct l2arc_dev_hdr,
						      cksum)),
			le32_to_cpu(dh->cksum));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->cksum),
			FORMAT_TEST_DH_CLEAN_CKSUM);

	dh = format_test_dh_full(test, L2ARC_DH_IN_USE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->cksum),
			FORMAT_TEST_DH_IN_USE_CKSUM);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_UNCLEAN);
}

/* One bit flipped anywhere in the unit, the checksum not redone */
static void format_test_dh_corrupt(struct kunit *test)
{
	static const size_t offs[] = { 8, 12, 15, 16, 24, 143, 144, 148, 151,
				       152, 2048, L2ARC_META_UNIT - 1 };
	const struct l2arc_dh_want *w = &format_test_want;
	struct l2arc_dev_hdr *dh;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		dh = format_test_dh_full(test, L2ARC_DH_CLEAN);
		((u8 *)dh)[offs[i]] ^= 0x10;
		KUNIT_EXPECT_EQ_MSG(test, l2arc_dh_decode(dh, w),
				    L2ARC_DH_BAD_CKSUM, "byte %zu", offs[i]);
	}
	/* the checksum itself off by one */
	dh = format_test_dh_full(test, L2ARC_DH_CLEAN);
	dh->cksum = cpu_to_le32(FORMAT_TEST_DH_CLEAN_CKSUM + 1);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_BAD_CKSUM);
}

/* Another magic, checksum good or not: no header, a new cache device */
static void format_test_dh_magic(struct kunit *test)
{
	const struct l2arc_dh_want *w = &format_test_want;
	struct l2arc_dev_hdr *dh = kunit_kzalloc(test, L2ARC_META_UNIT,
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dh);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_NONE);
	dh = format_test_dh_full(test, L2ARC_DH_CLEAN);
	dh->magic = cpu_to_le64(L2ARC_LB_MAGIC);	/* a log block's */
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_NONE);
	dh = format_test_dh_full(test, L2ARC_DH_CLEAN);
	dh->magic = cpu_to_le64(L2ARC_DH_MAGIC ^ BIT_ULL(63));
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_NONE);
	dh = format_test_dh_full(test, L2ARC_DH_CLEAN);
	dh->magic = cpu_to_le64(swab64(L2ARC_DH_MAGIC));	/* big-endian */
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_NONE);
}

/* A header of this version with the feature masks set, then sealed */
static struct l2arc_dev_hdr *format_test_dh_feat(struct kunit *test,
						 u32 compat, u32 incompat)
{
	struct l2arc_dev_hdr *dh = format_test_dh_full(test, L2ARC_DH_CLEAN);

	dh->feature_compat = cpu_to_le32(compat);
	dh->feature_incompat = cpu_to_le32(incompat);
	l2arc_dh_seal(dh);
	return dh;
}

/*
 * Unknown compatible features are ignored; an unknown incompatible one
 * refuses the header, after the magic, checksum and version checks and
 * before any other.
 */
static void format_test_dh_features(struct kunit *test)
{
	const struct l2arc_dh_want *w = &format_test_want;
	struct l2arc_dev_hdr *dh;

	KUNIT_EXPECT_EQ(test, L2ARC_FEATURE_COMPAT_SUPP, 0U);
	KUNIT_EXPECT_EQ(test, L2ARC_FEATURE_INCOMPAT_SUPP, 0U);
	/* zeros: every version 2 header written so far */
	dh = format_test_dh_feat(test, 0, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(dh->cksum),
			FORMAT_TEST_DH_CLEAN_CKSUM);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OK);

	dh = format_test_dh_feat(test, BIT(0), 0);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OK);
	dh = format_test_dh_feat(test, BIT(31), 0);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OK);
	dh = format_test_dh_feat(test, U32_MAX, 0);
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_OK);

	dh = format_test_dh_feat(test, 0, BIT(0));
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_INCOMPAT);
	dh = format_test_dh_feat(test, 0, BIT(31));
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_INCOMPAT);
	dh = format_test_dh_feat(test, U32_MAX, BIT(7));
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_INCOMPAT);

	/* the checksum is checked first: a flipped bit is corruption */
	dh = format_test_dh_full(test, L2ARC_DH_CLEAN);
	dh->feature_incompat = cpu_to_le32(BIT(0));
	KUNIT_EXPECT_EQ(test, l2arc_dh_decode(dh, w), L2ARC_DH_BAD_CKSUM);
	/* then the version */
	dh = format_test_dh_feat(test, 0, BIT(0));
	dh->version = cpu_to_le32(3);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_UNSUPPORTED);
	/* and the features before the geometry, the origin and the state */
	dh = format_test_dh_feat(test, 0, BIT(1));
	dh->block_sectors = cpu_to_le32(16);
	dh->origin_dev = cpu_to_le64(1);
	dh->state = cpu_to_le32(L2ARC_DH_IN_USE);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_INCOMPAT);
	/* a compatible bit does not hide another verdict */
	dh = format_test_dh_feat(test, BIT(3), 0);
	dh->state = cpu_to_le32(L2ARC_DH_IN_USE);
	KUNIT_EXPECT_EQ(test, format_test_reseal(dh, w), L2ARC_DH_UNCLEAN);
}

/* Log block 3 of FORMAT_TEST_GUID: slots 762 and 1015 hold copies */
static struct l2arc_log_blk *format_test_lb_full(struct kunit *test)
{
	struct l2arc_log_blk *lb = kunit_kmalloc(test, sizeof(*lb),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, lb);
	memset(lb, 0xa5, sizeof(*lb));		/* l2arc_lb_init() clears it */
	l2arc_lb_init(lb, 3, FORMAT_TEST_GUID);
	lb->nr_valid = cpu_to_le32(2);
	lb->ent[0].oblock = cpu_to_le64(9);
	lb->ent[0].cksum = cpu_to_le32(0xabcd1234);
	lb->ent[0].flags = cpu_to_le32(L2ARC_LE_VALID | L2ARC_LE_MFU);
	lb->ent[253].oblock = cpu_to_le64(1000);
	lb->ent[253].cksum = cpu_to_le32(0x5a5a5a5a);
	lb->ent[253].flags = cpu_to_le32(L2ARC_LE_VALID | L2ARC_LE_PREFETCH);
	l2arc_lb_seal(lb);
	return lb;
}

/* Init, fill, seal, decode: the exact bytes, and every entry back */
static void format_test_lb_round_trip(struct kunit *test)
{
	struct l2arc_log_blk *lb = format_test_lb_full(test);
	unsigned int j;

	KUNIT_EXPECT_EQ(test, le32_to_cpu(lb->cksum), FORMAT_TEST_LB_CKSUM);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, FORMAT_TEST_GUID),
			L2ARC_LB_OK);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(lb->magic), L2ARC_LB_MAGIC);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(lb->guid), FORMAT_TEST_GUID);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(lb->index), 3ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(lb->nr_valid), 2U);
	for (j = 1; j < L2ARC_LOG_ENTRIES - 1; j++)
		KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(lb->ent[j].flags), 0U,
				    "entry %u", j);
	/* slot 3 x 254 and 3 x 254 + 253, of 8158; blocks of 8192 */
	KUNIT_EXPECT_TRUE(test, l2arc_le_usable(&lb->ent[0], 762, 8158, 8192));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(lb->ent[0].oblock), 9ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(lb->ent[0].cksum), 0xabcd1234U);
	KUNIT_EXPECT_TRUE(test, l2arc_le_usable(&lb->ent[253], 1015, 8158,
						8192));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(lb->ent[253].oblock), 1000ULL);
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&lb->ent[1], 763, 8158,
						 8192));
}

/*
 * Crafted log blocks (checksum redone): another index or guid reads as
 * never written; a corrupt one as a bad checksum; entries out of range
 * are not usable.
 */
static void format_test_lb_crafted(struct kunit *test)
{
	struct l2arc_log_blk *lb;

	/* written as log block 4, read at 3's place; index past the log */
	lb = format_test_lb_full(test);
	lb->index = cpu_to_le64(4);
	l2arc_lb_seal(lb);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, FORMAT_TEST_GUID),
			L2ARC_LB_EMPTY);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 4, FORMAT_TEST_GUID),
			L2ARC_LB_OK);
	lb->index = cpu_to_le64(U64_MAX);
	l2arc_lb_seal(lb);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, FORMAT_TEST_GUID),
			L2ARC_LB_EMPTY);

	/* a former format of the device (another guid), a header's magic */
	lb = format_test_lb_full(test);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, FORMAT_TEST_GUID + 1),
			L2ARC_LB_EMPTY);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, 0), L2ARC_LB_EMPTY);
	lb->magic = cpu_to_le64(L2ARC_DH_MAGIC);
	l2arc_lb_seal(lb);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, FORMAT_TEST_GUID),
			L2ARC_LB_EMPTY);

	/* corrupt: an entry, the last byte, the checksum field */
	lb = format_test_lb_full(test);
	lb->ent[100].flags = cpu_to_le32(L2ARC_LE_VALID);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, FORMAT_TEST_GUID),
			L2ARC_LB_BAD_CKSUM);
	lb = format_test_lb_full(test);
	((u8 *)lb)[L2ARC_META_UNIT - 1] ^= 1;
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, FORMAT_TEST_GUID),
			L2ARC_LB_BAD_CKSUM);
	lb = format_test_lb_full(test);
	lb->cksum = cpu_to_le32(FORMAT_TEST_LB_CKSUM ^ 1);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 3, FORMAT_TEST_GUID),
			L2ARC_LB_BAD_CKSUM);

	/*
	 * Entries out of range, sealed: the last log block of a device of
	 * 8158 slots (32, slots 8128..8381) describing slots 8158 and past,
	 * a block past the target, a block at U64_MAX
	 */
	lb = format_test_lb_full(test);
	lb->index = cpu_to_le64(32);
	lb->ent[29].oblock = cpu_to_le64(8191);
	lb->ent[29].flags = cpu_to_le32(L2ARC_LE_VALID);
	lb->ent[30].oblock = cpu_to_le64(5);
	lb->ent[30].flags = cpu_to_le32(L2ARC_LE_VALID);
	lb->ent[31].oblock = cpu_to_le64(8192);
	lb->ent[31].flags = cpu_to_le32(L2ARC_LE_VALID);
	lb->ent[32].oblock = cpu_to_le64(U64_MAX);
	lb->ent[32].flags = cpu_to_le32(L2ARC_LE_VALID);
	l2arc_lb_seal(lb);
	KUNIT_EXPECT_EQ(test, l2arc_lb_decode(lb, 32, FORMAT_TEST_GUID),
			L2ARC_LB_OK);
	/* slot 8157, the last, block 8191, the last: in range */
	KUNIT_EXPECT_TRUE(test, l2arc_le_usable(&lb->ent[29], 32 * 254 + 29,
						8158, 8192));
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&lb->ent[30], 32 * 254 + 30,
						 8158, 8192));
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&lb->ent[253],
						 32 * 254 + 253, 8158, 8192));
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&lb->ent[31], 32 * 254 + 31,
						 8192, 8192));
	KUNIT_EXPECT_FALSE(test, l2arc_le_usable(&lb->ent[32], 32 * 254 + 32,
						 8192, 8192));
	/* flag bits this code does not define are ignored */
	lb->ent[29].flags = cpu_to_le32(L2ARC_LE_VALID | 0xfffffff0U);
	KUNIT_EXPECT_TRUE(test, l2arc_le_usable(&lb->ent[29], 32 * 254 + 29,
						8158, 8192));
}

static struct kunit_case format_test_cases[] = {
	KUNIT_CASE_PARAM(format_test_meta_layout,
			 format_test_layout_gen_params),
	KUNIT_CASE(format_test_dh_decode),
	KUNIT_CASE(format_test_dh_round_trip),
	KUNIT_CASE(format_test_dh_corrupt),
	KUNIT_CASE(format_test_dh_magic),
	KUNIT_CASE(format_test_dh_features),
	KUNIT_CASE(format_test_lb_decode),
	KUNIT_CASE(format_test_lb_round_trip),
	KUNIT_CASE(format_test_lb_crafted),
	KUNIT_CASE(format_test_le_usable),
	{}
};

static struct kunit_suite format_test_suite = {
	.name = "dm_l2arc_format",
	.test_cases = format_test_cases,
};

kunit_test_suite(format_test_suite);

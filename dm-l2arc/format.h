/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the persistent L2ARC's on-disk format -- the cache device's
 * header and log blocks (see format.c for the layout), and the pure
 * functions that lay them out, checksum and decode them.  They take a
 * 4 KiB unit and what the table expects, touch nothing else, and are fed
 * crafted and corrupt units by format_test.c.  The I/O, the rebuild and
 * the origin's claims are in persist.c.
 */
#ifndef DM_L2ARC_FORMAT_H
#define DM_L2ARC_FORMAT_H

#include <linux/bits.h>
#include <linux/blk_types.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

#define L2ARC_DH_MAGIC		0x4844435241324c44ULL	/* "DL2ARCDH" */
#define L2ARC_LB_MAGIC		0x424c435241324c44ULL	/* "DL2ARCLB" */
/* 2: the origin's identity (unique id, fingerprint) in the header */
#define L2ARC_DH_VERSION	2
#define L2ARC_META_UNIT		4096
#define L2ARC_META_UNIT_SHIFT	(12 - SECTOR_SHIFT)

/* Slots one log block describes */
#define L2ARC_LOG_ENTRIES	254

/*
 * A cache device must hold at least this many blocks; one with metadata
 * holds at least this many slots besides it (l2arc_meta_layout()).
 */
#define L2ARC_CACHE_MIN_BLOCKS	16

/* Header states */
#define L2ARC_DH_CLEAN		1
#define L2ARC_DH_IN_USE		2

/*
 * Feature bits of the header (see struct l2arc_dev_hdr): none is defined
 * yet, so every bit is unknown to this code.
 */
#define L2ARC_FEATURE_COMPAT_SUPP	0U
#define L2ARC_FEATURE_INCOMPAT_SUPP	0U

/* Log entry flags */
#define L2ARC_LE_VALID		BIT(0)
#define L2ARC_LE_PREFETCH	BIT(1)
#define L2ARC_LE_MFU		BIT(2)

/* The origin's unique id (get_unique_id(): a WWID, EUI-64 or NGUID) */
#define L2ARC_UID_BYTES		16

/**
 * struct l2arc_dev_hdr - the cache device's header, at sector 0
 * (little-endian, the rest of its 4 KiB zero)
 * @magic: %L2ARC_DH_MAGIC
 * @version: %L2ARC_DH_VERSION
 * @cksum: crc32c (seed ~0) of the 4 KiB with this field zero
 * @state: %L2ARC_DH_CLEAN or %L2ARC_DH_IN_USE
 * @block_sectors: the cache block size, sectors
 * @guid: random, drawn when the device starts empty; every log block
 *        carries it
 * @generation: incremented at every "in use" write
 * @dev_blocks: the device's size, cache blocks
 * @meta_blocks: cache blocks before slot 0
 * @nr_slots: slots
 * @target_len: the target's length, sectors
 * @origin_sectors: the origin's size, sectors
 * @origin_dev: the origin's device number (new_encode_dev())
 * @hand: the write hand, a slot
 * @laps: times the hand went round
 * @owner: the token of the table that wrote the header (see
 *         l2arc_origin_claim())
 * @origin_fp: fingerprint (crc32 and crc32c) of the origin's first and
 *             last MiB and %L2ARC_FP_SPREAD blocks placed by @guid, read
 *             after the origin was flushed (l2arc_origin_fingerprint());
 *             in a clean header only
 * @uid_type: the kind of @uid (enum blk_unique_id), 0 where the origin's
 *            driver gives none
 * @uid_len: bytes of @uid used
 * @uid: the origin's unique id (WWID, EUI-64, NGUID)
 * @feature_compat: features that a reader which does not know them may
 *                  ignore; an older writer clears them when it rewrites
 *                  the header
 * @feature_incompat: features without which the header and the log
 *                    cannot be read right: a reader that finds one it
 *                    does not know starts the cache device empty
 *
 * Versioning: @version changes only with a layout that older code cannot
 * even checksum or place (another header size, another log block or slot
 * layout; @magic, @version and @cksum stay where they are); older code
 * refuses such a header (%L2ARC_DH_UNSUPPORTED).  Anything else is added
 * as a feature bit in the zero space after @uid, which the checksum
 * already covers.  A feature that a reader unaware of it can ignore, and
 * whose data an older writer may drop, is a @feature_compat bit; any
 * other is a @feature_incompat bit, refused by a reader that does not
 * know it (%L2ARC_DH_INCOMPAT).  Version 2 headers written before the two
 * fields were named hold zero in both, and decode as before.
 */
struct l2arc_dev_hdr {
	__le64 magic;
	__le32 version;
	__le32 cksum;
	__le32 state;
	__le32 block_sectors;
	__le64 guid;
	__le64 generation;
	__le64 dev_blocks;
	__le64 meta_blocks;
	__le64 nr_slots;
	__le64 target_len;
	__le64 origin_sectors;
	__le64 origin_dev;
	__le64 hand;
	__le64 laps;
	__le64 owner;
	__le64 origin_fp;
	__le32 uid_type;
	__le32 uid_len;
	u8 uid[L2ARC_UID_BYTES];
	__le32 feature_compat;
	__le32 feature_incompat;
} __packed;

/* Version 2's layout: the feature fields sit in what was its zero tail */
static_assert(offsetof(struct l2arc_dev_hdr, cksum) == 12);
static_assert(offsetof(struct l2arc_dev_hdr, origin_fp) == 112);
static_assert(offsetof(struct l2arc_dev_hdr, uid) == 128);
static_assert(offsetof(struct l2arc_dev_hdr, feature_compat) == 144);
static_assert(offsetof(struct l2arc_dev_hdr, feature_incompat) == 148);
static_assert(sizeof(struct l2arc_dev_hdr) == 152);

/**
 * struct l2arc_log_ent - what one slot holds (16 bytes)
 * @oblock: the origin block of the copy
 * @cksum: crc32c of the copy (seed ~0)
 * @flags: L2ARC_LE_*; without %L2ARC_LE_VALID the slot holds no copy
 */
struct l2arc_log_ent {
	__le64 oblock;
	__le32 cksum;
	__le32 flags;
} __packed;

/**
 * struct l2arc_log_blk - one log block (4 KiB)
 * @magic: %L2ARC_LB_MAGIC
 * @guid: the header's guid when it was written
 * @index: its own index (log block i is at 4 KiB unit 1 + i)
 * @cksum: crc32c (seed ~0) of the 4 KiB with this field zero
 * @nr_valid: entries with %L2ARC_LE_VALID
 * @ent: the entries of slots 254 @index ..
 */
struct l2arc_log_blk {
	__le64 magic;
	__le64 guid;
	__le64 index;
	__le32 cksum;
	__le32 nr_valid;
	struct l2arc_log_ent ent[L2ARC_LOG_ENTRIES];
} __packed;

static_assert(sizeof(struct l2arc_log_ent) == 16);
static_assert(offsetof(struct l2arc_log_blk, cksum) == 24);
static_assert(offsetof(struct l2arc_log_blk, ent) == 32);
static_assert(sizeof(struct l2arc_log_blk) == L2ARC_META_UNIT);

/**
 * struct l2arc_dh_want - what a table needs of a header to rebuild from it
 * @block_sectors: cache block size, sectors
 * @dev_blocks: cache device size, cache blocks
 * @meta_blocks: cache blocks before slot 0
 * @nr_slots: slots
 * @target_len: the target's length, sectors
 * @origin_sectors: the origin's size, sectors
 * @origin_dev: the origin's device number (new_encode_dev())
 * @uid_type: the origin's unique id kind, 0 when it has none
 * @uid_len: bytes of @uid
 * @uid: the origin's unique id
 */
struct l2arc_dh_want {
	u32 block_sectors;
	u64 dev_blocks;
	u64 meta_blocks;
	u64 nr_slots;
	u64 target_len;
	u64 origin_sectors;
	u64 origin_dev;
	u32 uid_type;
	u32 uid_len;
	u8 uid[L2ARC_UID_BYTES];
};

/**
 * struct l2arc_dh_life - what a header says of the cache device's life
 * @state: %L2ARC_DH_CLEAN or %L2ARC_DH_IN_USE
 * @guid: the format's random id
 * @generation: raised at every "in use" write
 * @hand: the write hand, a slot
 * @laps: times the hand went round
 * @owner: the token of the table that writes it
 * @origin_fp: the origin's fingerprint (clean headers), else 0
 */
struct l2arc_dh_life {
	u32 state;
	u64 guid;
	u64 generation;
	u64 hand;
	u64 laps;
	u64 owner;
	u64 origin_fp;
};

/**
 * enum l2arc_dh_verdict - what l2arc_dh_decode() found
 * @L2ARC_DH_OK: a clean header of this table's cache device and origin
 * @L2ARC_DH_NONE: no header (a new cache device)
 * @L2ARC_DH_BAD_CKSUM: the magic, but a bad checksum
 * @L2ARC_DH_UNSUPPORTED: another format version
 * @L2ARC_DH_GEOMETRY: another block size or cache device size, or a hand
 *                     beyond the slots
 * @L2ARC_DH_OTHER_ORIGIN: another origin device number, or an origin or
 *                         a target length smaller than the header's (a
 *                         larger one is the same origin, grown)
 * @L2ARC_DH_OTHER_UID: the origin's unique id differs
 * @L2ARC_DH_UNCLEAN: state "in use" (a crash) or unknown
 * @L2ARC_DH_INCOMPAT: this version, but an incompatible feature this
 *                     code does not know
 */
enum l2arc_dh_verdict {
	L2ARC_DH_OK,
	L2ARC_DH_NONE,
	L2ARC_DH_BAD_CKSUM,
	L2ARC_DH_UNSUPPORTED,
	L2ARC_DH_GEOMETRY,
	L2ARC_DH_OTHER_ORIGIN,
	L2ARC_DH_OTHER_UID,
	L2ARC_DH_UNCLEAN,
	L2ARC_DH_INCOMPAT,
};

/**
 * enum l2arc_lb_verdict - what l2arc_lb_decode() found
 * @L2ARC_LB_OK: a log block of this format, checksum good
 * @L2ARC_LB_EMPTY: not written since the device was last formatted
 *                  (another magic, guid or index): its slots are empty
 * @L2ARC_LB_BAD_CKSUM: a log block of this format with a bad checksum
 */
enum l2arc_lb_verdict {
	L2ARC_LB_OK,
	L2ARC_LB_EMPTY,
	L2ARC_LB_BAD_CKSUM,
};

u32 l2arc_meta_cksum(void *unit, size_t off);
u64 l2arc_meta_layout(u64 dev_blocks, u32 block_sectors, u64 min_bytes,
		      u64 *meta_blocks);
void l2arc_dh_encode(struct l2arc_dev_hdr *dh, const struct l2arc_dh_want *want,
		     const struct l2arc_dh_life *life);
void l2arc_dh_seal(struct l2arc_dev_hdr *dh);
enum l2arc_dh_verdict l2arc_dh_decode(struct l2arc_dev_hdr *dh,
				      const struct l2arc_dh_want *want);
void l2arc_lb_init(struct l2arc_log_blk *lb, u64 index, u64 guid);
void l2arc_lb_seal(struct l2arc_log_blk *lb);
enum l2arc_lb_verdict l2arc_lb_decode(struct l2arc_log_blk *lb, u64 index,
				      u64 guid);
bool l2arc_le_usable(const struct l2arc_log_ent *e, u64 slot, u64 nr_slots,
		     u64 nr_blocks);

#endif /* DM_L2ARC_FORMAT_H */

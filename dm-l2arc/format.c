// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the persistent L2ARC's on-disk format -- layout, encoders,
 * decoders and checksums.  Nothing here does I/O or touches a device's
 * state: persist.c reads and writes the units and rebuilds from them.
 *
 * Layout
 * ======
 *
 * A cache device of at least l2arc_rebuild_blocks_min_l2size bytes (the
 * name and default, 1 GiB, are OpenZFS's) that can hold its metadata and
 * 16 slots more is laid out, in 4 KiB units (8 sectors of 512 bytes) from
 * sector 0, as:
 *
 *   0          the device header (struct l2arc_dev_hdr), sectors 0..7
 *   1 .. L     log blocks (struct l2arc_log_blk); log block i, at unit
 *              1 + i (sector 8 + 8 i), describes slots 254 i to
 *              254 i + 253, one 16-byte entry (struct l2arc_log_ent) a
 *              slot
 *   M ..       the slots: slot s is cache block M + s of the device
 *
 * where M, the header's meta_blocks, is 4 KiB x (1 + ceil(T / 254))
 * rounded up to whole cache blocks for a device of T cache blocks
 * (l2arc_meta_layout()), and L is ceil((T - M) / 254).  The metadata is
 * 0.39 % of the device at 4 KiB blocks and 0.012 % at 128 KiB.  A smaller
 * device holds slots only, slot 0 at sector 0, and nothing of it survives
 * a reload.  Units on disk: block_sectors, target_len and origin_sectors
 * count 512-byte sectors; dev_blocks, meta_blocks and nr_slots count cache
 * blocks; hand is a slot; an entry's oblock is a cache block of the
 * origin (its sector is oblock x block_sectors).
 *
 * Every field is little-endian; what follows a structure in its 4 KiB
 * unit is zero.  The header and each log block carry the crc32c (seed ~0,
 * no final inversion: the kernel's crc32c(~0, ..)) of their whole 4 KiB
 * unit read with the checksum field zero (l2arc_meta_cksum()), so the
 * zero tail is covered too.  Each entry carries the crc32c (seed ~0) of
 * its copy, block_sectors x 512 bytes, checked by every read of the copy.
 *
 * A log block belongs to the header whose guid it carries, at the place
 * its index names: any other is read as never written (its slots empty),
 * so drawing a new guid voids every log block at once.  An entry is used
 * only with %L2ARC_LE_VALID, a slot below nr_slots and a block within the
 * target (l2arc_le_usable()).
 *
 * Versioning
 * ==========
 *
 * The header's version changes only for a layout that older code cannot
 * even checksum or place: another header or log block size, another
 * place for the log blocks or the slots, another checksum.  Older code
 * refuses such a header (%L2ARC_DH_UNSUPPORTED) and starts the cache
 * device empty; so every version keeps the magic, the version and the
 * checksum at bytes 0, 8 and 12 of sector 0.  Anything else is added as
 * a feature bit, in the header's feature_compat or feature_incompat,
 * which sit in the zero tail of version 2's header and are covered by its
 * checksum: version 2 headers written before the fields were named read
 * as "no feature".
 *
 *   feature_compat     a feature that a reader unaware of it may ignore
 *                      (for example a hint in the zero tail).  Unknown
 *                      bits are ignored; an older writer rewrites the
 *                      header without them, which tells a newer reader
 *                      that the feature's data may be stale.
 *   feature_incompat   a feature that changes what the header, a log
 *                      block or an entry means (for example a new entry
 *                      flag that must not be ignored).  A reader that
 *                      finds a bit it does not know refuses the header
 *                      (%L2ARC_DH_INCOMPAT): the cache device starts
 *                      empty, counted with the unsupported versions.
 *
 * This code knows no feature (%L2ARC_FEATURE_COMPAT_SUPP and
 * %L2ARC_FEATURE_INCOMPAT_SUPP are 0) and writes both masks zero.  Log
 * blocks have no spare bytes: a change to them is an incompat feature of
 * the header, or a new version.
 */
#include <linux/crc32c.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "format.h"

/**
 * l2arc_meta_layout() - where the slots of a cache device start
 * @dev_blocks: the device's size, in cache blocks (>= 16)
 * @block_sectors: the cache block size, in sectors (8..2048)
 * @min_bytes: l2arc_rebuild_blocks_min_l2size, bytes
 * @meta_blocks: set to the cache blocks before slot 0: the header and
 *               ceil(@dev_blocks / 254) log blocks of 4 KiB, rounded up
 *               to whole cache blocks; 0 for a device below @min_bytes or
 *               one that cannot also hold 16 slots (no metadata)
 *
 * Context: any; pure.
 * Return: the slot count, @dev_blocks - *@meta_blocks.
 */
u64 l2arc_meta_layout(u64 dev_blocks, u32 block_sectors, u64 min_bytes,
		      u64 *meta_blocks)
{
	u64 block_bytes = (u64)block_sectors << SECTOR_SHIFT;
	u64 meta = DIV_ROUND_UP((1 + DIV_ROUND_UP(dev_blocks,
						  L2ARC_LOG_ENTRIES)) *
				L2ARC_META_UNIT, block_bytes);

	*meta_blocks = 0;
	if (dev_blocks * block_bytes < min_bytes ||
	    dev_blocks < meta + L2ARC_CACHE_MIN_BLOCKS)
		return dev_blocks;
	*meta_blocks = meta;
	return dev_blocks - meta;
}

/**
 * l2arc_meta_cksum() - crc32c of a 4 KiB metadata unit whose checksum
 * field reads as zero
 * @unit: the unit (it is restored before return)
 * @off: the checksum field's offset in it
 *
 * Context: any; pure (the field is zeroed and restored in place).
 * Return: crc32c, seed ~0.
 */
u32 l2arc_meta_cksum(void *unit, size_t off)
{
	__le32 *field = unit + off, saved = *field;
	u32 c;

	*field = 0;
	c = crc32c(~0U, unit, L2ARC_META_UNIT);
	*field = saved;
	return c;
}

/**
 * l2arc_dh_decode() - can a table rebuild from this header?
 * @dh: a 4 KiB unit read from sector 0 of the cache device
 * @want: what the table has
 *
 * Checks, in order: the magic, the checksum, the version, the
 * incompatible features (compatible ones are ignored), the geometry
 * (block size, device size, metadata size, slots, a hand within the
 * slots), the origin (device number, size, target length), the origin's
 * unique id (when both sides have one) and the state.
 *
 * Context: any; pure (reads @dh and @want only).
 * Return: the first check that failed, or %L2ARC_DH_OK.
 */
enum l2arc_dh_verdict l2arc_dh_decode(struct l2arc_dev_hdr *dh,
				      const struct l2arc_dh_want *want)
{
	u32 uid_len = le32_to_cpu(dh->uid_len);

	if (le64_to_cpu(dh->magic) != L2ARC_DH_MAGIC)
		return L2ARC_DH_NONE;
	if (le32_to_cpu(dh->cksum) !=
	    l2arc_meta_cksum(dh, offsetof(struct l2arc_dev_hdr, cksum)))
		return L2ARC_DH_BAD_CKSUM;
	if (le32_to_cpu(dh->version) != L2ARC_DH_VERSION)
		return L2ARC_DH_UNSUPPORTED;
	if (le32_to_cpu(dh->feature_incompat) & ~L2ARC_FEATURE_INCOMPAT_SUPP)
		return L2ARC_DH_INCOMPAT;
	if (le32_to_cpu(dh->block_sectors) != want->block_sectors ||
	    le64_to_cpu(dh->dev_blocks) != want->dev_blocks ||
	    le64_to_cpu(dh->meta_blocks) != want->meta_blocks ||
	    le64_to_cpu(dh->nr_slots) != want->nr_slots ||
	    le64_to_cpu(dh->hand) > want->nr_slots)
		return L2ARC_DH_GEOMETRY;
	/* a grown origin or target is the same origin: its log still holds */
	if (le64_to_cpu(dh->target_len) > want->target_len ||
	    le64_to_cpu(dh->origin_sectors) > want->origin_sectors ||
	    le64_to_cpu(dh->origin_dev) != want->origin_dev)
		return L2ARC_DH_OTHER_ORIGIN;
	if (uid_len > L2ARC_UID_BYTES)
		return L2ARC_DH_BAD_CKSUM;	/* a crafted header */
	if (le32_to_cpu(dh->uid_type) != want->uid_type ||
	    uid_len != want->uid_len || memcmp(dh->uid, want->uid, uid_len))
		return L2ARC_DH_OTHER_UID;
	if (le32_to_cpu(dh->state) != L2ARC_DH_CLEAN)
		return L2ARC_DH_UNCLEAN;
	return L2ARC_DH_OK;
}

/**
 * l2arc_dh_encode() - lay out a header in a 4 KiB unit, checksum included
 * @dh: the unit (all of it is written: the rest is zero)
 * @want: the device, the target and the origin it describes
 * @life: its state, guid, generation, write hand, owner and fingerprint
 *
 * The inverse of l2arc_dh_decode(): a header it lays out decodes as
 * %L2ARC_DH_OK against the same @want when @life's state is clean.
 *
 * Context: any; pure.
 */
void l2arc_dh_encode(struct l2arc_dev_hdr *dh, const struct l2arc_dh_want *want,
		     const struct l2arc_dh_life *life)
{
	memset(dh, 0, L2ARC_META_UNIT);
	dh->magic = cpu_to_le64(L2ARC_DH_MAGIC);
	dh->version = cpu_to_le32(L2ARC_DH_VERSION);
	dh->state = cpu_to_le32(life->state);
	dh->block_sectors = cpu_to_le32(want->block_sectors);
	dh->guid = cpu_to_le64(life->guid);
	dh->generation = cpu_to_le64(life->generation);
	dh->dev_blocks = cpu_to_le64(want->dev_blocks);
	dh->meta_blocks = cpu_to_le64(want->meta_blocks);
	dh->nr_slots = cpu_to_le64(want->nr_slots);
	dh->target_len = cpu_to_le64(want->target_len);
	dh->origin_sectors = cpu_to_le64(want->origin_sectors);
	dh->origin_dev = cpu_to_le64(want->origin_dev);
	dh->hand = cpu_to_le64(life->hand);
	dh->laps = cpu_to_le64(life->laps);
	dh->owner = cpu_to_le64(life->owner);
	dh->origin_fp = cpu_to_le64(life->origin_fp);
	dh->uid_type = cpu_to_le32(want->uid_type);
	dh->uid_len = cpu_to_le32(want->uid_len);
	memcpy(dh->uid, want->uid, min_t(u32, want->uid_len, L2ARC_UID_BYTES));
	/* no feature is defined: both masks stay zero */
	l2arc_dh_seal(dh);
}

/**
 * l2arc_dh_seal() - set a header's checksum over its 4 KiB unit
 * @dh: the unit
 *
 * Context: any; pure.
 */
void l2arc_dh_seal(struct l2arc_dev_hdr *dh)
{
	size_t off = offsetof(struct l2arc_dev_hdr, cksum);

	dh->cksum = cpu_to_le32(l2arc_meta_cksum(dh, off));
}

/**
 * l2arc_lb_init() - start a log block: zero entries, its magic, place and
 * guid
 * @lb: the 4 KiB unit
 * @index: the log block's index
 * @guid: the header's guid
 *
 * The caller fills the entries and @lb->nr_valid, then calls
 * l2arc_lb_seal().
 *
 * Context: any; pure.
 */
void l2arc_lb_init(struct l2arc_log_blk *lb, u64 index, u64 guid)
{
	memset(lb, 0, sizeof(*lb));
	lb->magic = cpu_to_le64(L2ARC_LB_MAGIC);
	lb->guid = cpu_to_le64(guid);
	lb->index = cpu_to_le64(index);
}

/**
 * l2arc_lb_seal() - set a log block's checksum over its 4 KiB
 * @lb: the log block
 *
 * Context: any; pure.
 */
void l2arc_lb_seal(struct l2arc_log_blk *lb)
{
	size_t off = offsetof(struct l2arc_log_blk, cksum);

	lb->cksum = cpu_to_le32(l2arc_meta_cksum(lb, off));
}

/**
 * l2arc_lb_decode() - is this log block of this format?
 * @lb: a 4 KiB unit read from log block @index's place
 * @index: the log block's index
 * @guid: the header's guid
 *
 * Context: any; pure.
 * Return: %L2ARC_LB_EMPTY for another magic, guid or index (never written
 * since the device was formatted), %L2ARC_LB_BAD_CKSUM, or %L2ARC_LB_OK.
 */
enum l2arc_lb_verdict l2arc_lb_decode(struct l2arc_log_blk *lb, u64 index,
				      u64 guid)
{
	if (le64_to_cpu(lb->magic) != L2ARC_LB_MAGIC ||
	    le64_to_cpu(lb->guid) != guid || le64_to_cpu(lb->index) != index)
		return L2ARC_LB_EMPTY;
	if (le32_to_cpu(lb->cksum) !=
	    l2arc_meta_cksum(lb, offsetof(struct l2arc_log_blk, cksum)))
		return L2ARC_LB_BAD_CKSUM;
	return L2ARC_LB_OK;
}

/**
 * l2arc_le_usable() - does a log entry describe a copy this table can
 * index?
 * @e: the entry
 * @slot: its slot
 * @nr_slots: the cache device's slots
 * @nr_blocks: the target's blocks
 *
 * Context: any; pure.
 * Return: true for a valid entry of a slot and a block in range.
 */
bool l2arc_le_usable(const struct l2arc_log_ent *e, u64 slot, u64 nr_slots,
		     u64 nr_blocks)
{
	return (le32_to_cpu(e->flags) & L2ARC_LE_VALID) && slot < nr_slots &&
	       le64_to_cpu(e->oblock) < nr_blocks;
}

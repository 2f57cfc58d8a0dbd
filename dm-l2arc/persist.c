// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the persistent L2ARC -- the cache device's header and log
 * blocks, and the rebuild at table load.
 *
 * Layout
 * ======
 *
 * A cache device of at least l2arc_rebuild_blocks_min_l2size bytes (the
 * name and default, 1 GiB, are OpenZFS's) that can hold its metadata and
 * 16 slots more is laid out, in 4 KiB units from sector 0, as:
 *
 *   0          the device header (struct l2arc_dev_hdr)
 *   1 .. L     log blocks (struct l2arc_log_blk); log block i describes
 *              slots 254 i to 254 i + 253, one 16-byte entry a slot
 *   M ..       the slots: slot s is cache block M + s of the device
 *
 * where M, l2_meta_blocks, is 4 KiB x (1 + ceil(T / 254)) rounded up to
 * whole cache blocks for a device of T cache blocks, and L is
 * ceil((T - M) / 254).  The metadata is 0.39 % of the device at 4 KiB
 * blocks and 0.012 % at 128 KiB.  A smaller device holds slots only, slot
 * 0 at sector 0, and nothing of it survives a reload.
 *
 * OpenZFS writes its log blocks at the write hand, among the data, and
 * chains them from the header.  Ours sit at fixed places, one per 254
 * slots: a feed writes its data, then every log block whose slots changed
 * (the ones it wrote, and the ones whose copies a write to the origin, an
 * eviction or a bad read dropped since); a rebuild reads them all in
 * 1 MiB reads, with no chain to follow, and a corrupt log block loses only
 * its own 254 slots.  Every entry carries the crc32c of its copy, checked
 * by every read of it, so a copy that a crash left half written, or that
 * a feed overwrote after its log block was last written, is never served.
 *
 * Never stale across a crash
 * ==========================
 *
 * The header says "clean" only while no table uses the device.  The first
 * resume of a table (preresume, before any I/O reaches it) rebuilds, then
 * writes the header "in use" with a flush and FUA; a suspend (postsuspend,
 * also the one before a remove, with no I/O in flight and the feed
 * stopped) writes every changed log block, then the header "clean" with
 * the write hand, behind a flush.  A write to the origin drops the
 * block's L2 copy in RAM before it is issued; the log block that
 * described the copy is written by the next feed or at the suspend.  A
 * table load that finds "in use" (a crash, a power loss, a suspend that
 * could not write its log) cannot know which writes reached the origin,
 * so the L2ARC starts empty: counted in l2_rebuild_unclean, one kernel log
 * line.  This costs nothing per write, and loses the L2ARC after an
 * unclean stop.
 *
 * A table over the same origin without this cache device (a reload to
 * cache device "-" or another one) can write to the origin too: every
 * table claims its origin at each resume (struct l2arc_owner), the header
 * carries its table's token, and a rebuild needs the header's token to be
 * the origin's last claim since the module was loaded.
 *
 * A rebuild needs a header with the magic, version 1 (else
 * l2_rebuild_unsupported), a good crc32c and the same block size, device
 * size, target length, origin size and origin device number (else
 * l2_rebuild_dh_errors, with a log line), state "clean" (else
 * l2_rebuild_unclean), and l2arc_rebuild (the table's, else the module's
 * l2arc_rebuild_enabled) on.  Each log block needs the magic, the
 * header's guid and its own index (else it was never written since the
 * device was last formatted: its slots are empty) and a good crc32c (else
 * l2_rebuild_cksum_lb_errors: its slots are empty, and it is written
 * again).  Each entry's block must lie within the target and appear only
 * once.  Starting empty draws a new guid, which voids every log block on
 * the device at once.
 *
 * The first resume reads the header; the log blocks are read by the
 * first feed, queued at once (l2arc_rebuild_run()), while the device
 * serves I/O: blocks not rebuilt yet are misses, and a block written or
 * read from the origin meanwhile is left out.  The log is 0.39 % of a
 * device of 4 KiB blocks.  Its entries go straight into the
 * slot table and the index of L2-only blocks (l2index.c), allocated at
 * table load, so a rebuild allocates nothing and l2_rebuild_lowmem stays
 * 0 (the row is kept for OpenZFS's readers).
 *
 * Locking: the metadata buffer and every metadata I/O are under
 * feed_mutex; the slot table, the index and the dirty bits under
 * arc.lock.
 */
#include <linux/bitmap.h>
#include <linux/crc32c.h>
#include <linux/dm-io.h>
#include <linux/ioprio.h>
#include <linux/kdev_t.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "dm-l2arc.h"

#define L2ARC_DH_MAGIC		0x4844435241324c44ULL	/* "DL2ARCDH" */
#define L2ARC_LB_MAGIC		0x424c435241324c44ULL	/* "DL2ARCLB" */
#define L2ARC_DH_VERSION	1
#define L2ARC_META_UNIT		4096
#define L2ARC_META_UNIT_SHIFT	(12 - SECTOR_SHIFT)

/* Header states */
#define L2ARC_DH_CLEAN		1
#define L2ARC_DH_IN_USE		2

/* Log entry flags */
#define L2ARC_LE_VALID		BIT(0)
#define L2ARC_LE_PREFETCH	BIT(1)
#define L2ARC_LE_MFU		BIT(2)

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
} __packed;

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

static_assert(sizeof(struct l2arc_log_blk) == L2ARC_META_UNIT);
static_assert(sizeof(struct l2arc_dev_hdr) <= L2ARC_META_UNIT);

/* Log blocks filled per hold of arc.lock (about L2ARC_LOCK_BATCH slots) */
#define L2ARC_LOG_FILL_BATCH	16

/**
 * struct l2arc_owner - the last table that used an origin
 * @node: link in l2arc_owners
 * @origin: the origin's device number
 * @token: that table's &l2arc_c.owner_token
 *
 * A table over the origin without this cache device (its cache device
 * "-", another one, or one without metadata) can write to the origin, and
 * a log left clean before cannot know.  Every table claims its origin at
 * each resume, and a table with metadata also when it writes its header
 * clean; a rebuild needs the header's owner to be the origin's last
 * claimant.  Kept until the module is unloaded; after a reboot (or
 * rmmod) there is no claimant and the header is trusted.
 */
struct l2arc_owner {
	struct list_head node;
	dev_t origin;
	u64 token;
};

static LIST_HEAD(l2arc_owners);
static DEFINE_MUTEX(l2arc_owners_mutex);	/* protects l2arc_owners */

/* The origin's entry, or NULL; l2arc_owners_mutex held. */
static struct l2arc_owner *l2arc_owner_find(dev_t origin)
{
	struct l2arc_owner *o;

	list_for_each_entry(o, &l2arc_owners, node)
		if (o->origin == origin)
			return o;
	return NULL;
}

/* Did a table other than the one that wrote @token use the origin since? */
static bool l2arc_origin_moved(struct l2arc_c *lc, u64 token)
{
	struct l2arc_owner *o;
	bool moved;

	mutex_lock(&l2arc_owners_mutex);
	o = l2arc_owner_find(lc->origin->bdev->bd_dev);
	moved = o && o->token != token;
	mutex_unlock(&l2arc_owners_mutex);
	return moved;
}

/**
 * l2arc_origin_claim() - this table is the origin's user now
 * @lc: the device
 *
 * Called at every resume of every table (before it takes I/O), and when a
 * table writes its cache device's header clean.  A lost claim would let a
 * later rebuild trust its header, so the entry (32 bytes, once per
 * origin) is allocated with __GFP_NOFAIL.
 *
 * Context: process context, may sleep.
 */
void l2arc_origin_claim(struct l2arc_c *lc)
{
	dev_t origin = lc->origin->bdev->bd_dev;
	struct l2arc_owner *o;

	mutex_lock(&l2arc_owners_mutex);
	o = l2arc_owner_find(origin);
	if (!o) {
		o = kzalloc(sizeof(*o), GFP_KERNEL | __GFP_NOFAIL);
		o->origin = origin;
		list_add(&o->node, &l2arc_owners);
	}
	o->token = lc->owner_token;
	mutex_unlock(&l2arc_owners_mutex);
}

/**
 * l2arc_persist_module_exit() - forget every origin's claimant, at module
 * unload
 */
void l2arc_persist_module_exit(void)
{
	struct l2arc_owner *o, *n;

	list_for_each_entry_safe(o, n, &l2arc_owners, node) {
		list_del(&o->node);
		kfree(o);
	}
}

/* crc32c of a 4 KiB unit whose checksum field (at @off) reads as zero */
static u32 l2arc_meta_cksum(void *unit, size_t off)
{
	__le32 *field = unit + off, saved = *field;
	u32 c;

	*field = 0;
	c = crc32c(~0U, unit, L2ARC_META_UNIT);
	*field = saved;
	return c;
}

/*
 * Synchronous metadata I/O: @nr 4 KiB units from unit @unit, to or from
 * @buf (vmalloc'ed).  Under feed_mutex.
 */
static int l2arc_meta_io(struct l2arc_c *lc, blk_opf_t opf, u64 unit,
			 unsigned int nr, void *buf)
{
	struct dm_io_region where = {
		.bdev = lc->cache->bdev,
		.sector = unit << L2ARC_META_UNIT_SHIFT,
		.count = (sector_t)nr << L2ARC_META_UNIT_SHIFT,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = DM_IO_VMA,
		.mem.ptr.vma = buf,
		.client = lc->l2_io,
	};
	unsigned long error_bits = 0;
	int r;

	r = dm_io(&req, 1, &where, &error_bits, IOPRIO_DEFAULT);
	if (!r && error_bits)
		r = -EIO;
	return r;
}

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
 * Context: any.
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
 * l2arc_persist_init() - lay out the cache device, in the ctr
 * @lc: the device, its cache device open
 * @dev_blocks: the cache device's size, cache blocks, >= 16
 * @error: set on failure
 *
 * Sets l2_nr_slots, l2_meta_blocks and l2_persist (see the layout above).
 * No I/O: a table may be loaded while another one uses the device.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int l2arc_persist_init(struct l2arc_c *lc, u64 dev_blocks, char **error)
{
	size_t buf_bytes = L2ARC_META_UNIT;
	u64 meta_blocks;
	u64 min_bytes = l2arc_param(L2ARC_P_REBUILD_MIN_L2SIZE);

	lc->l2_dev_blocks = dev_blocks;
	lc->l2_nr_slots = l2arc_meta_layout(dev_blocks, lc->block_sectors,
					    min_bytes, &meta_blocks);
	if (meta_blocks) {
		lc->l2_persist = true;
		lc->l2_meta_blocks = meta_blocks;
		lc->l2_log_nr = DIV_ROUND_UP(lc->l2_nr_slots,
					     L2ARC_LOG_ENTRIES);
		buf_bytes = L2ARC_META_IO_BYTES;
		lc->l2_log_dirty = bitmap_zalloc(lc->l2_log_nr, GFP_KERNEL);
		if (!lc->l2_log_dirty)
			goto nomem;
	}
	/* without metadata too: a header left at sector 0 is voided */
	lc->l2_meta_buf = vmalloc(buf_bytes);
	if (!lc->l2_meta_buf)
		goto nomem;
	lc->l2_io = dm_io_client_create();
	if (IS_ERR(lc->l2_io)) {
		lc->l2_io = NULL;
		goto nomem;
	}
	return 0;
nomem:
	*error = "Cannot allocate the cache device's log";
	return -ENOMEM;
}

/**
 * l2arc_persist_exit() - free what l2arc_persist_init() allocated
 * @lc: the device (may be half set up)
 */
void l2arc_persist_exit(struct l2arc_c *lc)
{
	if (lc->l2_io)
		dm_io_client_destroy(lc->l2_io);
	lc->l2_io = NULL;
	vfree(lc->l2_meta_buf);
	lc->l2_meta_buf = NULL;
	bitmap_free(lc->l2_log_dirty);
	lc->l2_log_dirty = NULL;
}

/* Write the header in @state, behind a flush, with FUA; feed_mutex held. */
static int l2arc_dh_write(struct l2arc_c *lc, u32 state)
{
	struct l2arc_dev_hdr *dh = lc->l2_meta_buf;
	u32 c;

	memset(dh, 0, L2ARC_META_UNIT);
	dh->magic = cpu_to_le64(L2ARC_DH_MAGIC);
	dh->version = cpu_to_le32(L2ARC_DH_VERSION);
	dh->state = cpu_to_le32(state);
	dh->block_sectors = cpu_to_le32(lc->block_sectors);
	dh->guid = cpu_to_le64(lc->l2_guid);
	dh->generation = cpu_to_le64(lc->l2_generation);
	dh->dev_blocks = cpu_to_le64(lc->l2_dev_blocks);
	dh->meta_blocks = cpu_to_le64(lc->l2_meta_blocks);
	dh->nr_slots = cpu_to_le64(lc->l2_nr_slots);
	dh->target_len = cpu_to_le64(lc->ti->len);
	dh->origin_sectors = cpu_to_le64(bdev_nr_sectors(lc->origin->bdev));
	dh->origin_dev = cpu_to_le64(new_encode_dev(lc->origin->bdev->bd_dev));
	spin_lock_bh(&lc->arc.lock);
	dh->hand = cpu_to_le64(lc->l2_hand);
	dh->laps = cpu_to_le64(lc->l2_laps);
	spin_unlock_bh(&lc->arc.lock);
	dh->owner = cpu_to_le64(lc->owner_token);
	c = l2arc_meta_cksum(dh, offsetof(struct l2arc_dev_hdr, cksum));
	dh->cksum = cpu_to_le32(c);
	return l2arc_meta_io(lc, REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH |
			     REQ_FUA, 0, 1, dh);
}

/* Fill log block @i from the slot table; arc.lock held. */
static void l2arc_lb_fill(struct l2arc_c *lc, u64 i, struct l2arc_log_blk *lb)
{
	u64 first = i * L2ARC_LOG_ENTRIES, s;
	unsigned int j, nr_valid = 0;

	memset(lb, 0, sizeof(*lb));
	lb->magic = cpu_to_le64(L2ARC_LB_MAGIC);
	lb->guid = cpu_to_le64(lc->l2_guid);
	lb->index = cpu_to_le64(i);
	for (j = 0; j < L2ARC_LOG_ENTRIES; j++) {
		struct l2arc_slot *sl;
		struct arc_hdr *hdr;
		u32 flags = L2ARC_LE_VALID;
		u64 cls;

		s = first + j;
		if (s >= lc->l2_nr_slots)
			break;
		sl = l2arc_slot(&lc->l2_ix, s);
		cls = sl->word & L2ARC_SLOT_CLASS;
		if (!(sl->word & L2ARC_SLOT_INDEXED)) {
			hdr = l2arc_slot_hdr(lc, s);
			if (!hdr || !(hdr->flags & ARC_F_L2))
				continue;
			cls = l2arc_class_to_slot(hdr->flags);
		}
		if (cls & L2ARC_SLOT_PREFETCH)
			flags |= L2ARC_LE_PREFETCH;
		if (cls & L2ARC_SLOT_MFU)
			flags |= L2ARC_LE_MFU;
		lb->ent[j].oblock = cpu_to_le64(l2arc_slot_oblock(sl));
		lb->ent[j].cksum = cpu_to_le32(sl->cksum);
		lb->ent[j].flags = cpu_to_le32(flags);
		nr_valid++;
	}
	lb->nr_valid = cpu_to_le32(nr_valid);
}

/**
 * l2arc_log_write_dirty() - write every log block whose slots changed
 * @lc: the device
 *
 * Contiguous dirty log blocks go in one write of up to 1 MiB.  A log block
 * whose slots change while it is written stays dirty, for the next call.
 * A failed write leaves its log blocks dirty and counts a cache device
 * error.
 *
 * Context: process context, may sleep; feed_mutex held.
 * Return: 0, or the error of the first failed write.
 */
int l2arc_log_write_dirty(struct l2arc_c *lc)
{
	unsigned int per_io = L2ARC_META_IO_BYTES / L2ARC_META_UNIT, n, k;
	unsigned long i = 0, first;
	struct l2arc_hold h;
	int r = 0;

	if (!lc->l2_persist || !lc->l2_loaded)
		return 0;
	while (!r) {
		l2arc_bulk_lock(lc, &h);
		i = find_next_bit(lc->l2_log_dirty, lc->l2_log_nr, i);
		first = i;
		n = 0;
		while (n < per_io && i < lc->l2_log_nr &&
		       test_bit(i, lc->l2_log_dirty)) {
			__clear_bit(i, lc->l2_log_dirty);
			l2arc_lb_fill(lc, i, lc->l2_meta_buf +
				      n * L2ARC_META_UNIT);
			n++;
			i++;
			if (!(n % L2ARC_LOG_FILL_BATCH))
				l2arc_bulk_relax(lc, &h);
		}
		l2arc_bulk_unlock(lc, &h);
		if (!n)
			break;
		for (k = 0; k < n; k++) {
			struct l2arc_log_blk *lb = lc->l2_meta_buf +
						   k * L2ARC_META_UNIT;
			size_t off = offsetof(struct l2arc_log_blk, cksum);

			lb->cksum = cpu_to_le32(l2arc_meta_cksum(lb, off));
		}
		r = l2arc_meta_io(lc, REQ_OP_WRITE, 1 + first, n,
				  lc->l2_meta_buf);
		spin_lock_bh(&lc->arc.lock);
		if (r) {
			bitmap_set(lc->l2_log_dirty, first, n);
			l2arc_l2_error(lc);
		} else {
			lc->stats[L2ARC_STAT_L2_LOG_BLK_WRITES] += n;
		}
		spin_unlock_bh(&lc->arc.lock);
	}
	return r;
}

/* Was block @b written since the resume?  arc.lock held. */
static bool l2arc_rebuild_written(struct l2arc_c *lc, u64 b)
{
	unsigned int i;

	for (i = 0; i < lc->l2_rb_nr; i++)
		if (b >= lc->l2_rb_writes[i].first &&
		    b <= lc->l2_rb_writes[i].last)
			return true;
	return false;
}

/**
 * l2arc_rebuild_note_write() - a write, discard or write-zeroes of blocks
 * [@first, @last] goes to the origin while the rebuild is pending
 * @lc: the device
 * @first: its first block
 * @last: its last block
 *
 * The rebuild will not index those blocks: their copies may be stale.  A
 * range next to or over the last one recorded extends it; once
 * %L2ARC_REBUILD_WRITES ranges are recorded, a new one widens the range
 * nearest to it (the blocks between are left out too: never fewer than
 * were written).
 *
 * Context: arc.lock held, before the write's blocks are invalidated.
 */
void l2arc_rebuild_note_write(struct l2arc_c *lc, u64 first, u64 last)
{
	struct l2arc_rb_range *r = lc->l2_rb_writes;
	u64 gap, best = U64_MAX;
	unsigned int i;

	if (!lc->l2_rebuilding)
		return;
	if (lc->l2_rb_nr) {
		r = &lc->l2_rb_writes[lc->l2_rb_nr - 1];
		if (first <= r->last + 1 && last + 1 >= r->first)
			goto widen;
	}
	if (lc->l2_rb_nr < L2ARC_REBUILD_WRITES) {
		r = &lc->l2_rb_writes[lc->l2_rb_nr++];
		r->first = first;
		r->last = last;
		return;
	}
	for (i = 0; i < L2ARC_REBUILD_WRITES; i++) {
		struct l2arc_rb_range *c = &lc->l2_rb_writes[i];

		gap = first > c->last ? first - c->last :
		      c->first > last ? c->first - last : 0;
		if (gap < best) {
			best = gap;
			r = c;
		}
	}
widen:
	r->first = min(r->first, first);
	r->last = max(r->last, last);
}

/*
 * Take the entries of log block @i into the slot table and the index, as
 * L2-only blocks (no header, no allocation), but for blocks written or read
 * from the origin since the resume (the device serves I/O meanwhile).
 */
static void l2arc_lb_load(struct l2arc_c *lc, u64 i, struct l2arc_log_blk *lb)
{
	unsigned int j;
	bool dirty = false;

	if (le64_to_cpu(lb->magic) != L2ARC_LB_MAGIC ||
	    le64_to_cpu(lb->guid) != lc->l2_guid ||
	    le64_to_cpu(lb->index) != i)
		return;	/* not written since the device was formatted */
	if (le32_to_cpu(lb->cksum) !=
	    l2arc_meta_cksum(lb, offsetof(struct l2arc_log_blk, cksum))) {
		spin_lock_bh(&lc->arc.lock);
		lc->stats[L2ARC_STAT_L2_REBUILD_CKSUM_LB_ERRORS]++;
		__set_bit(i, lc->l2_log_dirty);
		spin_unlock_bh(&lc->arc.lock);
		return;
	}
	if (!lb->nr_valid)
		return;

	spin_lock_bh(&lc->arc.lock);
	lc->stats[L2ARC_STAT_L2_REBUILD_LOG_BLKS]++;
	for (j = 0; j < L2ARC_LOG_ENTRIES; j++) {
		struct l2arc_log_ent *e = &lb->ent[j];
		u64 s = i * L2ARC_LOG_ENTRIES + j;
		u64 ob = le64_to_cpu(e->oblock);
		u32 flags = le32_to_cpu(e->flags);
		u64 cls = 0;

		if (!(flags & L2ARC_LE_VALID))
			continue;
		if (s >= lc->l2_nr_slots || ob >= lc->nr_blocks ||
		    l2arc_slot(&lc->l2_ix, s)->word ||
		    l2arc_l2_find(lc, ob) != L2ARC_SLOT_NONE) {
			dirty = true;	/* a block twice: the first one holds */
			continue;
		}
		/*
		 * written since the resume (the copy may be stale), or read
		 * from the origin into the ARC already: left out
		 */
		if (l2arc_rebuild_written(lc, ob) ||
		    arc_lookup(&lc->arc, to_oblock(ob))) {
			lc->stats[L2ARC_STAT_L2_REBUILD_SKIPPED]++;
			dirty = true;
			continue;
		}
		if (flags & L2ARC_LE_PREFETCH)
			cls = L2ARC_SLOT_PREFETCH;
		else if (flags & L2ARC_LE_MFU)
			cls = L2ARC_SLOT_MFU;
		l2arc_slot(&lc->l2_ix, s)->cksum = le32_to_cpu(e->cksum);
		l2arc_index_add(&lc->l2_ix, s, ob, cls);
		lc->l2_blocks++;
		lc->l2_class_blocks[l2arc_slot_class(cls)]++;
		lc->stats[L2ARC_STAT_L2_REBUILD_BUFS]++;
	}
	if (dirty)
		__set_bit(i, lc->l2_log_dirty);
	spin_unlock_bh(&lc->arc.lock);
}

/* Why a header cannot be rebuilt from, or NULL; counts it. */
static const char *l2arc_dh_check(struct l2arc_c *lc, struct l2arc_dev_hdr *dh)
{
	u64 *st = lc->stats;

	if (le32_to_cpu(dh->cksum) !=
	    l2arc_meta_cksum(dh, offsetof(struct l2arc_dev_hdr, cksum))) {
		st[L2ARC_STAT_L2_REBUILD_DH_ERRORS]++;
		return "bad header checksum";
	}
	if (le32_to_cpu(dh->version) != L2ARC_DH_VERSION) {
		st[L2ARC_STAT_L2_REBUILD_UNSUPPORTED]++;
		return "unsupported format version";
	}
	if (le32_to_cpu(dh->block_sectors) != lc->block_sectors ||
	    le64_to_cpu(dh->dev_blocks) != lc->l2_dev_blocks ||
	    le64_to_cpu(dh->meta_blocks) != lc->l2_meta_blocks ||
	    le64_to_cpu(dh->nr_slots) != lc->l2_nr_slots ||
	    le64_to_cpu(dh->hand) > lc->l2_nr_slots) {
		st[L2ARC_STAT_L2_REBUILD_DH_ERRORS]++;
		return "another block size or cache device size";
	}
	if (le64_to_cpu(dh->target_len) != lc->ti->len ||
	    le64_to_cpu(dh->origin_sectors) !=
	    bdev_nr_sectors(lc->origin->bdev) ||
	    le64_to_cpu(dh->origin_dev) !=
	    new_encode_dev(lc->origin->bdev->bd_dev)) {
		st[L2ARC_STAT_L2_REBUILD_DH_ERRORS]++;
		return "another origin (device number or size) or target length";
	}
	if (l2arc_origin_moved(lc, le64_to_cpu(dh->owner))) {
		st[L2ARC_STAT_L2_REBUILD_DH_ERRORS]++;
		return "another table used the origin since this log was written";
	}
	if (le32_to_cpu(dh->state) != L2ARC_DH_CLEAN) {
		st[L2ARC_STAT_L2_REBUILD_UNCLEAN]++;
		return "not shut down cleanly (in use at a crash)";
	}
	return NULL;
}

/* Read the log blocks back into the slot table; feed_mutex held. */
static void l2arc_rebuild_logs(struct l2arc_c *lc)
{
	unsigned int per_io = L2ARC_META_IO_BYTES / L2ARC_META_UNIT, n, k;
	u64 i;

	for (i = 0; i < lc->l2_log_nr; i += n) {
		n = min_t(u64, per_io, lc->l2_log_nr - i);
		if (READ_ONCE(lc->l2_failed)) {
			/* what is not read is written again, empty */
			spin_lock_bh(&lc->arc.lock);
			bitmap_set(lc->l2_log_dirty, i, lc->l2_log_nr - i);
			spin_unlock_bh(&lc->arc.lock);
			break;
		}
		if (l2arc_meta_io(lc, REQ_OP_READ, 1 + i, n,
				  lc->l2_meta_buf)) {
			spin_lock_bh(&lc->arc.lock);
			lc->stats[L2ARC_STAT_L2_REBUILD_IO_ERRORS]++;
			bitmap_set(lc->l2_log_dirty, i, n);
			spin_unlock_bh(&lc->arc.lock);
			continue;
		}
		for (k = 0; k < n; k++) {
			l2arc_lb_load(lc, i + k, lc->l2_meta_buf +
				      k * L2ARC_META_UNIT);
			cond_resched();
		}
	}
}

/* Start empty: a new guid voids every log block on the device. */
static void l2arc_start_empty(struct l2arc_c *lc)
{
	lc->l2_guid = get_random_u64();
	lc->l2_generation = 0;
}

/*
 * The first resume with metadata: read the header; from a clean, matching
 * one, take the write hand and set the rebuild of the log going
 * (l2arc_rebuild_run()), else start empty.  feed_mutex held.
 */
static void l2arc_rebuild(struct l2arc_c *lc)
{
	struct l2arc_dev_hdr *dh = lc->l2_meta_buf;
	bool want = lc->table.rebuild_set ? lc->table.rebuild :
		    l2arc_param(L2ARC_P_REBUILD_ENABLED);
	u64 t0 = ktime_get_ns();
	const char *why;

	if (l2arc_meta_io(lc, REQ_OP_READ, 0, 1, dh)) {
		lc->stats[L2ARC_STAT_L2_REBUILD_IO_ERRORS]++;
		why = "cannot read the header";
		goto empty;
	}
	if (le64_to_cpu(dh->magic) != L2ARC_DH_MAGIC) {
		why = NULL;	/* a new cache device */
		goto empty;
	}
	why = l2arc_dh_check(lc, dh);
	if (why)
		goto empty;
	if (!want) {
		why = "the table's or the module's rebuild setting is 0";
		goto empty;
	}
	lc->l2_guid = le64_to_cpu(dh->guid);
	lc->l2_generation = le64_to_cpu(dh->generation);
	spin_lock_bh(&lc->arc.lock);
	lc->l2_hand = le64_to_cpu(dh->hand);
	lc->l2_laps = le64_to_cpu(dh->laps);
	lc->l2_rebuild_t0 = t0;
	lc->l2_rb_nr = 0;
	lc->l2_rebuilding = true;
	spin_unlock_bh(&lc->arc.lock);
	return;
empty:
	if (why)
		DMWARN("%s: cache device starts empty: %s", lc->name, why);
	l2arc_start_empty(lc);
}

/**
 * l2arc_rebuild_run() - read the log blocks into the slot table, if the
 * first resume left that to do
 * @lc: the device
 *
 * Run by the first feed (queued at once by the resume; a feed by message
 * waits for it) and by a suspend that comes before it, while the device
 * serves I/O: a block written since the resume
 * (l2arc_rebuild_note_write()) or read into the ARC from the origin
 * meanwhile is left out (its log block is written again).  Ends with
 * l2_rebuild_success (when it read the whole log) and l2_rebuild_time_ms
 * (from the resume) and a kernel log line.  A device degraded meanwhile
 * stops it: the log blocks not read are written again empty.
 *
 * Context: process context, may sleep; feed_mutex held.
 */
void l2arc_rebuild_run(struct l2arc_c *lc)
{
	unsigned int noio;
	bool failed;

	if (!lc->l2_rebuilding)
		return;
	/* no reclaim through a device whose cache may be half rebuilt */
	noio = memalloc_noio_save();
	l2arc_rebuild_logs(lc);
	memalloc_noio_restore(noio);
	spin_lock_bh(&lc->arc.lock);
	lc->l2_rebuilding = false;
	failed = READ_ONCE(lc->l2_failed);
	if (!failed)
		lc->stats[L2ARC_STAT_L2_REBUILD_SUCCESS]++;
	lc->stats[L2ARC_STAT_L2_REBUILD_TIME_MS] =
		div_u64(ktime_get_ns() - lc->l2_rebuild_t0, NSEC_PER_MSEC);
	spin_unlock_bh(&lc->arc.lock);
	DMINFO("%s: L2ARC rebuilt: %llu blocks from %llu log blocks in %llu ms, %llu left out%s",
	       lc->name, lc->stats[L2ARC_STAT_L2_REBUILD_BUFS],
	       lc->stats[L2ARC_STAT_L2_REBUILD_LOG_BLKS],
	       lc->stats[L2ARC_STAT_L2_REBUILD_TIME_MS],
	       lc->stats[L2ARC_STAT_L2_REBUILD_SKIPPED],
	       failed ? "; stopped: cache device dropped" : "");
}

/*
 * No metadata on this device: void a header an earlier table may have
 * left at sector 0, blindly (slot 0 holds nothing yet, and a read could
 * wait on a slow device), so that an old log never outlives the writes
 * this table does not record.  feed_mutex held.
 */
static void l2arc_dh_void(struct l2arc_c *lc)
{
	memset(lc->l2_meta_buf, 0, L2ARC_META_UNIT);
	if (l2arc_meta_io(lc, REQ_OP_WRITE | REQ_SYNC | REQ_FUA, 0, 1,
			  lc->l2_meta_buf))
		DMERR("%s: cannot clear sector 0 of the cache device",
		      lc->name);
}

/**
 * l2arc_persist_resume() - at preresume: rebuild the first time, then
 * mark the cache device in use
 * @lc: the device
 *
 * Every table claims its origin here (l2arc_origin_claim()), after its
 * rebuild.  A header that cannot be written "in use" drops the cache
 * device ("degraded"); the claim makes later loads in this boot start
 * empty, since the header on the device still says clean.
 *
 * Context: process context, may sleep; no I/O reaches the target yet.
 */
void l2arc_persist_resume(struct l2arc_c *lc)
{
	int r;

	if (!lc->cache) {
		l2arc_origin_claim(lc);
		return;
	}
	mutex_lock(&lc->feed_mutex);
	if (!lc->l2_loaded) {
		/*
		 * The device is suspended: reclaim must not write through
		 * it (swap or dirty pages on it) while the rebuild allocates
		 */
		unsigned int noio = memalloc_noio_save();

		if (lc->l2_persist)
			l2arc_rebuild(lc);
		else
			l2arc_dh_void(lc);
		memalloc_noio_restore(noio);
		lc->l2_loaded = true;
	}
	l2arc_origin_claim(lc);
	if (lc->l2_persist && !READ_ONCE(lc->l2_failed)) {
		lc->l2_generation++;
		r = l2arc_dh_write(lc, L2ARC_DH_IN_USE);
		if (r) {
			DMERR("%s: cannot mark the cache device in use (%d): cache device dropped",
			      lc->name, r);
			/* a clean header left there must not outlive this load */
			l2arc_dh_void(lc);
			spin_lock_bh(&lc->arc.lock);
			WRITE_ONCE(lc->l2_failed, true);
			spin_unlock_bh(&lc->arc.lock);
		}
	}
	mutex_unlock(&lc->feed_mutex);
}

/**
 * l2arc_persist_suspend() - at postsuspend: write the changed log blocks
 * and mark the cache device clean
 * @lc: the device, its feed stopped and no I/O in flight
 *
 * A degraded device, or one whose log cannot be written, stays "in use":
 * the next load starts empty.
 *
 * Context: process context, may sleep.
 */
void l2arc_persist_suspend(struct l2arc_c *lc)
{
	int r;

	if (!lc->cache || !lc->l2_persist || !lc->l2_loaded)
		return;
	mutex_lock(&lc->feed_mutex);
	if (READ_ONCE(lc->l2_failed)) {
		mutex_unlock(&lc->feed_mutex);
		return;
	}
	/* a rebuild not run yet: its log must not outlive this load's writes */
	l2arc_rebuild_run(lc);
	r = l2arc_log_write_dirty(lc);
	if (!r)
		r = l2arc_dh_write(lc, L2ARC_DH_CLEAN);
	if (!r)
		l2arc_origin_claim(lc);
	if (r)
		DMERR("%s: cannot write the cache device's log (%d): it starts empty next time",
		      lc->name, r);
	mutex_unlock(&lc->feed_mutex);
}

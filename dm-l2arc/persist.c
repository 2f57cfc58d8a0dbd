// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the persistent L2ARC -- the cache device's header and log
 * blocks, and the rebuild at table load.
 *
 * The layout of the cache device (a header at sector 0, log blocks, then
 * the slots), its checksums and its versioning rule are format.c's.
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
 * A rebuild needs a header with the magic, version 2 and no unknown
 * incompatible feature (else l2_rebuild_unsupported), a good crc32c and
 * the same block size, device size and origin device number, an origin
 * size and a target length no smaller than its own (a grown one is kept:
 * l2arc_rebuild_grown()) (else l2_rebuild_dh_errors, with a log line), state
 * "clean" (else l2_rebuild_unclean), and l2arc_rebuild (the table's, else
 * the module's l2arc_rebuild_enabled) on.  Each log block needs the magic,
 * the header's guid and its own index (else it was never written since the
 * device was last formatted: its slots are empty) and a good crc32c (else
 * l2_rebuild_cksum_lb_errors: its slots are empty, and it is written
 * again).  Each entry's block must lie within the target and appear only
 * once.  Starting empty draws a new guid, which voids every log block on
 * the device at once.
 *
 * The first resume reads the header; the log blocks are read by the
 * rebuild's own work item on the feed's workqueue, queued at the resume
 * ahead of the first feed (l2arc_rebuild_run()), while the device
 * serves I/O: blocks not rebuilt yet are misses, and a block written or
 * read from the origin meanwhile is left out.  The log is 0.39 % of a
 * device of 4 KiB blocks.  Its entries go straight into the
 * slot table and the index of L2-only blocks (l2index.c), allocated at
 * table load, so a rebuild allocates nothing and l2_rebuild_lowmem stays
 * 0 (the row is kept for OpenZFS's readers).
 *
 * Locking: the metadata buffer and every metadata I/O are under
 * feed.mutex; the slot table, the index and the dirty bits under
 * arc.lock.
 */
#define DM_MSG_PREFIX "l2arc persist"

#include <linux/bitmap.h>
#include <linux/crc32.h>
#include <linux/crc32c.h>
#include <linux/dm-io.h>
#include <linux/ioprio.h>
#include <linux/kdev_t.h>
#include <linux/part_stat.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "dm-l2arc.h"
#include "persist.h"

/* Log blocks filled per hold of arc.lock (about L2ARC_LOCK_BATCH slots) */
#define L2ARC_LOG_FILL_BATCH	16

/**
 * struct l2arc_owner - the last table that used an origin, and the origin
 * as that table left it
 * @node: link in l2arc_owners
 * @origin: the origin's device number
 * @token: that table's &l2arc_persist.owner_token
 * @marked: @diskseq and @writes were taken at that table's last suspend
 *          (after its last write to the origin, and its flush)
 * @diskseq: the origin's disk sequence number then (a disk that took the
 *           device number since has another)
 * @writes: the origin's written and discarded sectors then, as the
 *          suspend's last check of them took them (&l2arc_watch.mark)
 *
 * A table over the origin without this cache device (its cache device
 * "-", another one, or one without metadata), or a write with no table
 * loaded, can change the origin, and what a table cached before cannot
 * know.  Every table claims its origin at each resume and marks it at
 * each suspend; a resume, and a rebuild, need the origin's last claim to
 * be their own table's (the header's owner) and the mark to be unchanged.
 * Kept until the module is unloaded; after a reboot (or rmmod) only the
 * header's fingerprint and the rebuild's samples are left.
 */
struct l2arc_owner {
	struct list_head node;
	dev_t origin;
	u64 token;
	bool marked;
	u64 diskseq;
	u64 writes;
};

static LIST_HEAD(l2arc_owners);
static DEFINE_MUTEX(l2arc_owners_mutex);	/* protects l2arc_owners */

/* The origin's entry, or NULL; l2arc_owners_mutex held. */
static struct l2arc_owner *l2arc_owner_find(dev_t origin)
{
	struct l2arc_owner *o;

	lockdep_assert_held(&l2arc_owners_mutex);
	list_for_each_entry(o, &l2arc_owners, node)
		if (o->origin == origin)
			return o;
	return NULL;
}

/**
 * l2arc_origin_sectors() - the sectors the block layer counted as
 * written to and discarded from @bdev, by anyone
 * @bdev: the origin
 *
 * Write-zeroes count as writes.  0 on a driver that keeps no statistics,
 * such as brd, or with queue/iostats 0.
 *
 * Context: any.
 * Return: sectors since the device appeared.
 */
u64 l2arc_origin_sectors(struct block_device *bdev)
{
	return part_stat_read(bdev, sectors[STAT_WRITE]) +
	       part_stat_read(bdev, sectors[STAT_DISCARD]);
}

/**
 * l2arc_origin_moved() - did the origin change since @token's table last
 * used it?
 * @lc: the device
 * @token: the table that must be the origin's last claimant: this one at
 *         a resume, the header's owner at a rebuild
 * @other_table: set when another table claimed the origin since
 *
 * Context: process context, may sleep.
 * Return: what changed (for the log), or NULL: nothing known changed
 * (also when no table claimed the origin since the module was loaded).
 */
static const char *l2arc_origin_moved(struct l2arc_c *lc, u64 token,
				      bool *other_table)
{
	struct block_device *bdev = lc->origin->bdev;
	const char *why = NULL;
	struct l2arc_owner *o;

	*other_table = false;
	mutex_lock(&l2arc_owners_mutex);
	o = l2arc_owner_find(bdev->bd_dev);
	if (!o) {
		/* no table claimed it since the module was loaded */
	} else if (o->token != token) {
		*other_table = true;
		why = "another table used the origin";
	} else if (o->marked && o->diskseq != bdev->bd_disk->diskseq) {
		why = "another disk under its device number (diskseq)";
	} else if (o->marked && o->writes != l2arc_origin_sectors(bdev)) {
		why = "written with no table loaded";
	}
	mutex_unlock(&l2arc_owners_mutex);
	return why;
}

/**
 * l2arc_origin_claim() - this table is the origin's user now
 * @lc: the device
 * @mark: at a suspend: take the origin's diskseq and write count too
 *        (the count l2arc_watch_suspend() took, after the table's last
 *        write and before its last check for other writers)
 *
 * Called at every resume of every table (before it takes I/O) with @mark
 * false, and at every suspend with @mark true.  The entry (once per
 * origin) is allocated in the ctr (&l2arc_persist.owner_spare): here the device
 * is suspended, and a lost claim would let a later rebuild trust its
 * header.
 *
 * Context: process context, may sleep.
 */
void l2arc_origin_claim(struct l2arc_c *lc, bool mark)
{
	struct block_device *bdev = lc->origin->bdev;
	struct l2arc_owner *o;

	mutex_lock(&l2arc_owners_mutex);
	o = l2arc_owner_find(bdev->bd_dev);
	if (!o) {
		o = lc->persist.owner_spare;
		lc->persist.owner_spare = NULL;
		o->origin = bdev->bd_dev;
		list_add(&o->node, &l2arc_owners);
	}
	/*
	 * A resume keeps this table's own mark: a resume that another
	 * target of the table aborted leaves the device suspended, and its
	 * next resume must still compare with the mark of the suspend.
	 */
	if (!mark && o->token == lc->persist.owner_token)
		goto out;
	o->token = lc->persist.owner_token;
	o->marked = mark;
	if (mark) {
		o->diskseq = bdev->bd_disk->diskseq;
		o->writes = lc->watch.mark;
	}
out:
	mutex_unlock(&l2arc_owners_mutex);
}

/**
 * l2arc_origin_claim_init() - allocate the claim entry a resume may need,
 * in the ctr
 * @lc: the device
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int l2arc_origin_claim_init(struct l2arc_c *lc)
{
	lc->persist.owner_spare = kzalloc(sizeof(*lc->persist.owner_spare), GFP_KERNEL);
	return lc->persist.owner_spare ? 0 : -ENOMEM;
}

/**
 * l2arc_origin_claim_exit() - free the claim entry if no resume used it
 * @lc: the device
 */
void l2arc_origin_claim_exit(struct l2arc_c *lc)
{
	kfree(lc->persist.owner_spare);
	lc->persist.owner_spare = NULL;
}

/**
 * l2arc_origin_uid() - take the origin's unique id, in the ctr
 * @lc: the device, its origin open
 *
 * The WWID (NAA), EUI-64 or T10 vendor id that the origin's driver gives
 * (SCSI and NVMe disks do; device-mapper, brd and loop devices do not),
 * kept in the header so that another disk under the origin's device
 * number is not taken for it.
 *
 * Context: process context, may sleep.
 */
void l2arc_origin_uid(struct l2arc_c *lc)
{
	static const enum blk_unique_id kinds[] = {
		BLK_UID_NAA, BLK_UID_EUI64, BLK_UID_T10,
	};
	struct gendisk *disk = lc->origin->bdev->bd_disk;
	unsigned int i;
	int n;

	lc->persist.origin_uid_type = 0;
	lc->persist.origin_uid_len = 0;
	if (!disk->fops->get_unique_id)
		return;
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		n = disk->fops->get_unique_id(disk, lc->persist.origin_uid, kinds[i]);
		if (n > 0 && n <= L2ARC_UID_BYTES) {
			lc->persist.origin_uid_type = kinds[i];
			lc->persist.origin_uid_len = n;
			return;
		}
	}
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

/*
 * Synchronous I/O of @sectors sectors at @sector of @bdev, to or from
 * @buf (vmalloc'ed, L2ARC_META_IO_BYTES).  Under feed.mutex.
 */
static int l2arc_sync_io(struct l2arc_c *lc, struct block_device *bdev,
			 blk_opf_t opf, sector_t sector, sector_t sectors,
			 void *buf)
{
	struct dm_io_region where = {
		.bdev = bdev,
		.sector = sector,
		.count = sectors,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = DM_IO_VMA,
		.mem.ptr.vma = buf,
		.client = lc->persist.io,
	};
	unsigned long error_bits = 0;
	int r;

	lockdep_assert_held(&lc->feed.mutex);
	r = dm_io(&req, 1, &where, &error_bits, IOPRIO_DEFAULT);
	if (!r && error_bits)
		r = -EIO;
	return r;
}

/* Reads in flight at once; the last completion wakes the waiter. */
struct l2arc_read_batch {
	atomic_t pending;
	atomic_t failed;
	struct completion done;
};

static void l2arc_read_batch_done(unsigned long error, void *context)
{
	struct l2arc_read_batch *b = context;

	if (error)
		atomic_set(&b->failed, 1);
	if (atomic_dec_and_test(&b->pending))
		complete(&b->done);
}

/*
 * Synchronous reads of @nr regions of @bdev, all in flight at once (an
 * HDD's queue orders them; one at a time, each would wait for the last):
 * region i, @sectors sectors at @at[i], into @buf + i * @sectors sectors
 * (vmalloc'ed, L2ARC_META_IO_BYTES).  Returns 0, -EIO when any read
 * failed, or -EINVAL (and a warning) for regions that overrun @buf.
 * Under feed.mutex.
 */
static int l2arc_sync_read_many(struct l2arc_c *lc, struct block_device *bdev,
				const sector_t *at, unsigned int nr,
				sector_t sectors, void *buf)
{
	struct l2arc_read_batch b;
	unsigned int i;

	lockdep_assert_held(&lc->feed.mutex);
	if (WARN_ON((u64)nr * sectors > L2ARC_META_IO_BYTES >> SECTOR_SHIFT))
		return -EINVAL;
	/* one count for the issuer: no wake-up before the last is sent */
	atomic_set(&b.pending, nr + 1);
	atomic_set(&b.failed, 0);
	init_completion(&b.done);
	for (i = 0; i < nr; i++) {
		struct dm_io_region where = {
			.bdev = bdev,
			.sector = at[i],
			.count = sectors,
		};
		struct dm_io_request req = {
			.bi_opf = REQ_OP_READ,
			.mem.type = DM_IO_VMA,
			.mem.ptr.vma = buf + ((size_t)i * sectors << SECTOR_SHIFT),
			.notify.fn = l2arc_read_batch_done,
			.notify.context = &b,
			.client = lc->persist.io,
		};

		/*
		 * One region: an error here (dp_init()'s) means no callback
		 * will come.  Never several regions: dm_io() would call back
		 * for a read of several and return an error as well.
		 */
		if (dm_io(&req, 1, &where, NULL, IOPRIO_DEFAULT))
			l2arc_read_batch_done(1, &b);
	}
	l2arc_read_batch_done(0, &b);
	wait_for_completion_io(&b.done);
	return atomic_read(&b.failed) ? -EIO : 0;
}

/*
 * Synchronous metadata I/O: @nr 4 KiB units from unit @unit of the cache
 * device, to or from @buf.  Under feed.mutex.
 */
static int l2arc_meta_io(struct l2arc_c *lc, blk_opf_t opf, u64 unit,
			 unsigned int nr, void *buf)
{
	lockdep_assert_held(&lc->feed.mutex);
	return l2arc_sync_io(lc, lc->cache->bdev, opf,
			     unit << L2ARC_META_UNIT_SHIFT,
			     (sector_t)nr << L2ARC_META_UNIT_SHIFT, buf);
}

/* splitmix64: the fingerprint's block @i, placed by the guid */
static u64 l2arc_fp_mix(u64 guid, unsigned int i)
{
	u64 z = guid + (i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/**
 * l2arc_origin_fingerprint() - a fingerprint of the origin's first and
 * last MiB and of %L2ARC_FP_SPREAD 4 KiB blocks placed by @guid
 * @lc: the device
 * @guid: the log's guid (the same blocks at the suspend and the rebuild)
 * @len: the target's length, sectors, when the fingerprint was taken (the
 *       header's at a rebuild: a target grown since reads the same blocks)
 * @fp: set to the fingerprint: crc32 (IEEE) of those bytes in the high
 *      32 bits, crc32c in the low 32
 *
 * Partition tables, LVM and md labels and file-system superblocks live
 * at the two ends of a device, and a mount, an fsck or a mkfs writes
 * there; the spread blocks catch a rewrite of the middle.  Two CRCs of
 * different polynomials: a structure that carries its own crc32c at its
 * end (an ext4, XFS or btrfs superblock) leaves a crc32c of the bytes
 * around it unchanged whatever it holds (measured: an ext4 mount moved
 * only its superblock, and the crc32c of the first MiB stayed), and one
 * that carries its own crc32 does the same to a crc32.  Reads 2 MiB and
 * 32 KiB of the target's range of the origin (less when the target is
 * smaller than 2 MiB) into the metadata buffer: each end's MiB in turn,
 * then the spread blocks all in flight at once.  The CRCs run over the
 * bytes in that order (ends, then spread blocks by their index), so a
 * fingerprint stays what any earlier version computed for the same
 * bytes.
 *
 * Context: process context, may sleep; feed.mutex held.
 * Return: 0, or the error of a failed read.
 */
static int l2arc_origin_fingerprint(struct l2arc_c *lc, u64 guid,
				    sector_t len, u64 *fp)
{
	struct block_device *bdev = lc->origin->bdev;
	sector_t edge = min_t(sector_t, len, L2ARC_FP_EDGE_SECTORS);
	sector_t edges[2] = { 0, len - edge }, spread[L2ARC_FP_SPREAD];
	void *buf = lc->persist.meta_buf;
	size_t bytes = L2ARC_FP_SPREAD * 8 << SECTOR_SHIFT;
	u32 c = ~0U, ieee = ~0U;
	unsigned int i;
	u64 rem;
	int r;

	lockdep_assert_held(&lc->feed.mutex);
	/* the ends one at a time: each fills the buffer */
	for (i = 0; i < ARRAY_SIZE(edges); i++) {
		r = l2arc_sync_io(lc, bdev, REQ_OP_READ, edges[i], edge, buf);
		if (r)
			return r;
		c = crc32c(c, buf, edge << SECTOR_SHIFT);
		ieee = crc32_le(ieee, buf, edge << SECTOR_SHIFT);
	}
	for (i = 0; i < L2ARC_FP_SPREAD; i++) {
		div64_u64_rem(l2arc_fp_mix(guid, i), len >> 3, &rem);
		spread[i] = rem << 3;
	}
	/* at once, in their order in the buffer: the CRCs run on as before */
	r = l2arc_sync_read_many(lc, bdev, spread, L2ARC_FP_SPREAD, 8, buf);
	if (r)
		return r;
	*fp = (u64)crc32_le(ieee, buf, bytes) << 32 | crc32c(c, buf, bytes);
	return 0;
}

static void l2arc_rebuild_worker(struct work_struct *work);

/**
 * l2arc_persist_init() - lay out the cache device, in the ctr
 * @lc: the device, its cache device open
 * @dev_blocks: the cache device's size, cache blocks, >= 16
 * @error: set on failure
 *
 * Sets l2.nr_slots, persist.meta_blocks and persist.enabled (see the
 * layout above).
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

	INIT_WORK(&lc->persist.rebuild_work, l2arc_rebuild_worker);
	lc->persist.dev_blocks = dev_blocks;
	lc->l2.nr_slots = l2arc_meta_layout(dev_blocks, lc->block_sectors,
					    min_bytes, &meta_blocks);
	if (meta_blocks) {
		lc->persist.enabled = true;
		lc->persist.meta_blocks = meta_blocks;
		lc->persist.log_nr = DIV_ROUND_UP(lc->l2.nr_slots,
						  L2ARC_LOG_ENTRIES);
		buf_bytes = L2ARC_META_IO_BYTES;
		/* l2arc_l2_check() checked its size: fail, never OOM-kill */
		lc->persist.log_dirty =
			kvcalloc(BITS_TO_LONGS(lc->persist.log_nr),
				 sizeof(unsigned long),
				 GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
		if (!lc->persist.log_dirty)
			goto nomem;
	}
	/* without metadata too: a header left at sector 0 is voided */
	lc->persist.meta_buf = vmalloc(buf_bytes);
	if (!lc->persist.meta_buf)
		goto nomem;
	lc->persist.io = dm_io_client_create();
	if (IS_ERR(lc->persist.io)) {
		lc->persist.io = NULL;
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
	if (lc->persist.io)
		dm_io_client_destroy(lc->persist.io);
	lc->persist.io = NULL;
	vfree(lc->persist.meta_buf);
	lc->persist.meta_buf = NULL;
	kvfree(lc->persist.log_dirty);
	lc->persist.log_dirty = NULL;
}

/* What a table needs of a header (struct l2arc_dh_want) */
static void l2arc_dh_want(struct l2arc_c *lc, struct l2arc_dh_want *w)
{
	memset(w, 0, sizeof(*w));
	w->block_sectors = lc->block_sectors;
	w->dev_blocks = lc->persist.dev_blocks;
	w->meta_blocks = lc->persist.meta_blocks;
	w->nr_slots = lc->l2.nr_slots;
	w->target_len = lc->ti->len;
	w->origin_sectors = bdev_nr_sectors(lc->origin->bdev);
	w->origin_dev = new_encode_dev(lc->origin->bdev->bd_dev);
	w->uid_type = lc->persist.origin_uid_type;
	w->uid_len = lc->persist.origin_uid_len;
	memcpy(w->uid, lc->persist.origin_uid, lc->persist.origin_uid_len);
}

/*
 * Write the header in @state (with the origin's fingerprint @fp when
 * clean), behind a flush, with FUA; feed.mutex held.
 */
static int l2arc_dh_write(struct l2arc_c *lc, u32 state, u64 fp)
{
	struct l2arc_dev_hdr *dh = lc->persist.meta_buf;
	struct l2arc_dh_life life = {
		.state = state,
		.guid = lc->persist.guid,
		.generation = lc->persist.generation,
		.owner = lc->persist.owner_token,
		.origin_fp = fp,
	};
	struct l2arc_dh_want want;

	lockdep_assert_held(&lc->feed.mutex);
	l2arc_dh_want(lc, &want);
	l2arc_lock(lc);
	life.hand = lc->l2.hand;
	life.laps = lc->l2.laps;
	l2arc_unlock(lc);
	l2arc_dh_encode(dh, &want, &life);
	return l2arc_meta_io(lc, REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH |
			     REQ_FUA, 0, 1, dh);
}

/* Fill log block @i from the slot table; arc.lock held. */
static void l2arc_lb_fill(struct l2arc_c *lc, u64 i, struct l2arc_log_blk *lb)
{
	u64 first = i * L2ARC_LOG_ENTRIES, s;
	unsigned int j, nr_valid = 0;

	l2arc_assert_locked(lc);
	l2arc_lb_init(lb, i, lc->persist.guid);
	for (j = 0; j < L2ARC_LOG_ENTRIES; j++) {
		struct l2arc_slot *sl;
		struct arc_hdr *hdr;
		u32 flags = L2ARC_LE_VALID;
		u64 cls;

		s = first + j;
		if (s >= lc->l2.nr_slots)
			break;
		sl = l2arc_slot(&lc->l2.ix, s);
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
 * Context: process context, may sleep; feed.mutex held.
 * Return: 0, or the error of the first failed write.
 */
int l2arc_log_write_dirty(struct l2arc_c *lc)
{
	unsigned int per_io = L2ARC_META_IO_BYTES / L2ARC_META_UNIT, n, k;
	unsigned long i = 0, first;
	struct l2arc_hold h;
	int r = 0;

	lockdep_assert_held(&lc->feed.mutex);
	if (!lc->persist.enabled || !lc->persist.loaded)
		return 0;
	while (!r) {
		l2arc_bulk_lock(lc, &h);
		i = find_next_bit(lc->persist.log_dirty, lc->persist.log_nr, i);
		first = i;
		n = 0;
		while (n < per_io && i < lc->persist.log_nr &&
		       test_bit(i, lc->persist.log_dirty)) {
			__clear_bit(i, lc->persist.log_dirty);
			l2arc_lb_fill(lc, i, lc->persist.meta_buf +
				      n * L2ARC_META_UNIT);
			n++;
			i++;
			if (!(n % L2ARC_LOG_FILL_BATCH))
				l2arc_bulk_relax(lc, &h);
		}
		l2arc_bulk_unlock(lc, &h);
		if (!n)
			break;
		for (k = 0; k < n; k++)
			l2arc_lb_seal(lc->persist.meta_buf + k * L2ARC_META_UNIT);
		r = l2arc_meta_io(lc, REQ_OP_WRITE, 1 + first, n,
				  lc->persist.meta_buf);
		l2arc_lock(lc);
		if (r) {
			bitmap_set(lc->persist.log_dirty, first, n);
			l2arc_l2_error(lc);
		} else {
			l2arc_stat_add(lc, L2ARC_STAT_L2_LOG_BLK_WRITES, n);
		}
		l2arc_unlock(lc);
	}
	return r;
}

/*
 * The first of the @nr ranges @r (sorted, disjoint) whose last block is
 * @b or more; @nr when there is none.  A binary search.
 */
static unsigned int l2arc_ranges_pos(const struct l2arc_rb_range *r,
				     unsigned int nr, u64 b)
{
	unsigned int lo = 0, hi = nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r[mid].last < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * l2arc_ranges_find() - does a set of block ranges hold a block?
 * @r: the ranges, sorted by first block, disjoint (l2arc_ranges_add())
 * @nr: how many
 * @b: the block
 *
 * O(log @nr).  Pure: no lock of its own.
 *
 * Return: true when one of the ranges holds @b.
 */
bool l2arc_ranges_find(const struct l2arc_rb_range *r, unsigned int nr, u64 b)
{
	unsigned int i = l2arc_ranges_pos(r, nr, b);

	return i < nr && r[i].first <= b;
}

/**
 * l2arc_ranges_add() - add blocks [@first, @last] to a set of block ranges
 * @r: the ranges, room for @max, sorted by first block, disjoint and not
 *     adjacent; kept so
 * @nr: how many are in use (0 to @max), updated
 * @max: room in @r, at least 1
 * @first: the first block to add
 * @last: the last block to add, @first to 2^64 - 2
 *
 * A range that overlaps or touches others is merged with them.  A range
 * that touches none when @r is full widens the nearest one instead (the
 * one before it on a tie): the blocks between are then in the set too,
 * never fewer than were added.  O(log @nr) to find the place, O(@nr) to
 * move the ranges after it.  Pure: no lock of its own.
 */
void l2arc_ranges_add(struct l2arc_rb_range *r, unsigned int *nr,
		      unsigned int max, u64 first, u64 last)
{
	unsigned int n = *nr, i, j;

	/* the first range that touches [first, last] or lies after it */
	i = l2arc_ranges_pos(r, n, first ? first - 1 : 0);
	for (j = i; j < n && r[j].first <= last + 1; j++)
		;
	if (j > i) {			/* r[i .. j - 1] touch it: merge */
		r[i].first = min(r[i].first, first);
		r[i].last = max(r[j - 1].last, last);
		memmove(&r[i + 1], &r[j], (n - j) * sizeof(*r));
		*nr = n - (j - i - 1);
		return;
	}
	if (n < max) {			/* a range of its own, at i */
		memmove(&r[i + 1], &r[i], (n - i) * sizeof(*r));
		r[i].first = first;
		r[i].last = last;
		*nr = n + 1;
		return;
	}
	/* full: widen r[i - 1] or r[i], whichever is nearer */
	if (i == n || (i > 0 && first - r[i - 1].last <= r[i].first - last))
		r[i - 1].last = last;
	else
		r[i].first = first;
}

/* Was block @b written since the resume?  arc.lock held. */
static bool l2arc_rebuild_written(struct l2arc_c *lc, u64 b)
{
	l2arc_assert_locked(lc);
	return l2arc_ranges_find(lc->persist.rb_writes, lc->persist.rb_nr, b);
}

/**
 * l2arc_rebuild_note_write() - a write, discard or write-zeroes of blocks
 * [@first, @last] goes to the origin while the rebuild is pending
 * @lc: the device
 * @first: its first block
 * @last: its last block
 *
 * The rebuild will not index those blocks: their copies may be stale.
 * The ranges are kept sorted and disjoint (l2arc_ranges_add()); once
 * %L2ARC_REBUILD_WRITES ranges are recorded, a new one widens the range
 * nearest to it (the blocks between are left out too: never fewer than
 * were written).
 *
 * Context: arc.lock held, before the write's blocks are invalidated.
 */
void l2arc_rebuild_note_write(struct l2arc_c *lc, u64 first, u64 last)
{
	l2arc_assert_locked(lc);
	if (!lc->persist.rebuilding)
		return;
	l2arc_ranges_add(lc->persist.rb_writes, &lc->persist.rb_nr,
			 L2ARC_REBUILD_WRITES, first, last);
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

	switch (l2arc_lb_decode(lb, i, lc->persist.guid)) {
	case L2ARC_LB_EMPTY:
		return;	/* not written since the device was formatted */
	case L2ARC_LB_BAD_CKSUM:
		l2arc_lock(lc);
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_CKSUM_LB_ERRORS);
		__set_bit(i, lc->persist.log_dirty);
		l2arc_unlock(lc);
		return;
	case L2ARC_LB_OK:
		break;
	}
	if (!lb->nr_valid)
		return;

	l2arc_lock(lc);
	l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_LOG_BLKS);
	for (j = 0; j < L2ARC_LOG_ENTRIES; j++) {
		struct l2arc_log_ent *e = &lb->ent[j];
		u64 s = i * L2ARC_LOG_ENTRIES + j;
		u64 ob = le64_to_cpu(e->oblock);
		u32 flags = le32_to_cpu(e->flags);
		u64 cls = 0;

		if (!(flags & L2ARC_LE_VALID))
			continue;
		if (!l2arc_le_usable(e, s, lc->l2.nr_slots, lc->nr_blocks) ||
		    l2arc_slot(&lc->l2.ix, s)->word ||
		    l2arc_l2_find(lc, ob) != L2ARC_SLOT_NONE) {
			dirty = true;	/* a block twice: the first one holds */
			continue;
		}
		/*
		 * written since the resume (the copy may be stale), or read
		 * from the origin into the ARC already: left out
		 */
		if (l2arc_rebuild_written(lc, ob) ||
		    arc_lookup(lc->arc, l2arc_key(lc, ob))) {
			l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_SKIPPED);
			dirty = true;
			continue;
		}
		if (flags & L2ARC_LE_PREFETCH)
			cls = L2ARC_SLOT_PREFETCH;
		else if (flags & L2ARC_LE_MFU)
			cls = L2ARC_SLOT_MFU;
		l2arc_slot(&lc->l2.ix, s)->cksum = le32_to_cpu(e->cksum);
		l2arc_index_add(&lc->l2.ix, s, ob, cls);
		l2arc_slot(&lc->l2.ix, s)->word |= L2ARC_SLOT_UNVERIFIED;
		lc->l2.blocks++;
		lc->l2.class_blocks[l2arc_slot_class(cls)]++;
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_BUFS);
	}
	if (dirty)
		__set_bit(i, lc->persist.log_dirty);
	l2arc_unlock(lc);
}

/*
 * Why a header cannot be rebuilt from, or NULL; counts it.  *@origin is
 * set when the reason is that the origin changed (the caller logs "the
 * origin changed: ...").
 */
static const char *l2arc_dh_check(struct l2arc_c *lc, struct l2arc_dev_hdr *dh,
				  bool *origin)
{
	struct l2arc_dh_want want;
	bool other_table;
	const char *why;

	*origin = false;
	l2arc_dh_want(lc, &want);
	switch (l2arc_dh_decode(dh, &want)) {
	case L2ARC_DH_OK:
	case L2ARC_DH_UNCLEAN:
		break;
	case L2ARC_DH_NONE:
		return NULL;	/* not reached: checked by the caller */
	case L2ARC_DH_BAD_CKSUM:
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_DH_ERRORS);
		return "bad header checksum";
	case L2ARC_DH_UNSUPPORTED:
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_UNSUPPORTED);
		return "unsupported format version";
	case L2ARC_DH_INCOMPAT:
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_UNSUPPORTED);
		return "unsupported format feature";
	case L2ARC_DH_GEOMETRY:
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_DH_ERRORS);
		return "another block size or cache device size";
	case L2ARC_DH_OTHER_ORIGIN:
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_DH_ERRORS);
		return "another origin (device number), or a smaller origin or target length";
	case L2ARC_DH_OTHER_UID:
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_ORIGIN_CHANGED);
		*origin = true;
		return "another disk (its unique id differs)";
	}
	why = l2arc_origin_moved(lc, le64_to_cpu(dh->owner), &other_table);
	if (why && other_table) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_DH_ERRORS);
		return "another table used the origin since this log was written";
	}
	if (why) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_ORIGIN_CHANGED);
		*origin = true;
		return why;
	}
	if (le32_to_cpu(dh->state) != L2ARC_DH_CLEAN) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_UNCLEAN);
		return "not shut down cleanly (in use at a crash)";
	}
	return NULL;
}

/*
 * Entry @j of log block @i, decoded in @lb: true with its origin block
 * and crc32c in *@ob and *@ck if it is usable (l2arc_le_usable()).
 */
static bool l2arc_rebuild_entry(struct l2arc_c *lc, struct l2arc_log_blk *lb,
				u64 i, unsigned int j, u64 *ob, u32 *ck)
{
	struct l2arc_log_ent *e = &lb->ent[j];

	if (!l2arc_le_usable(e, i * L2ARC_LOG_ENTRIES + j, lc->l2.nr_slots,
			     lc->nr_blocks))
		return false;
	*ob = le64_to_cpu(e->oblock);
	*ck = le32_to_cpu(e->cksum);
	return true;
}

/*
 * One sample: the entry of a log block drawn at random among the first
 * @span (those that hold entries), found from an entry drawn at random
 * on, read into @lc->persist.meta_buf.  Returns 1 with its origin block
 * and crc32c in *@ob and *@ck, 0 when the log block is not this log's or
 * holds no usable entry, or the error of a failed read.  feed.mutex held.
 */
static int l2arc_rebuild_pick(struct l2arc_c *lc, u64 guid, u32 span,
			      u64 *ob, u32 *ck)
{
	struct l2arc_log_blk *lb = lc->persist.meta_buf;
	u64 i = get_random_u32() % span;
	unsigned int j, k;
	int r;

	lockdep_assert_held(&lc->feed.mutex);
	r = l2arc_meta_io(lc, REQ_OP_READ, 1 + i, 1, lb);
	if (r)
		return r;
	if (l2arc_lb_decode(lb, i, guid) != L2ARC_LB_OK)
		return 0;
	j = get_random_u32() % L2ARC_LOG_ENTRIES;
	for (k = 0; k < L2ARC_LOG_ENTRIES; k++)
		if (l2arc_rebuild_entry(lc, lb, i, (j + k) % L2ARC_LOG_ENTRIES,
					ob, ck))
			return 1;
	return 0;
}

/*
 * Draw up to @want samples (l2arc_rebuild_pick(), among the first @span
 * log blocks), each draw counted in *@tries, none once 4 *
 * %L2ARC_REBUILD_SAMPLES draws are made: their blocks' first sectors in
 * @at, their crc32c in @ck.  Returns how many, or the error of a failed
 * read.  feed.mutex held.
 */
static int l2arc_rebuild_draw(struct l2arc_c *lc, u64 guid, u32 span,
			      unsigned int want, unsigned int *tries,
			      sector_t *at, u32 *ck)
{
	unsigned int nr = 0;
	u64 ob;
	int r;

	while (nr < want && *tries < 4 * L2ARC_REBUILD_SAMPLES) {
		(*tries)++;
		r = l2arc_rebuild_pick(lc, guid, span, &ob, &ck[nr]);
		if (r < 0)
			return r;
		if (r)
			at[nr++] = ob << lc->block_shift;
	}
	return nr;
}

/*
 * Read back %L2ARC_REBUILD_SAMPLES entries of the log, from log blocks
 * drawn at random among those that hold entries (at most 4 draws a
 * sample), and compare each with its block on the origin: the log is
 * trusted only if all agree, and only on that many samples (*@want), or
 * on every usable entry of the log when it has fewer: when the draws
 * give too few (the entries sit in few log blocks), l2arc_rebuild_walk()
 * checks the entries in log order, and a walk that goes round lowers
 * *@want to what it found.  The log blocks that hold entries: every one
 * once the write hand has gone round (l2.laps), else those of the slots
 * before the hand, which also bounds the entries.  (Drawn among all log blocks, a large cache
 * device soon after it was added, 1 log block in 64 written, gave about
 * one sample, and none 37 % of the time.)  The origin
 * reads of a round are in flight at once, as many as the metadata buffer
 * holds blocks (all 16 for blocks of up to 64 KiB).  A block written
 * through the device since the resume, as seen once its read completed,
 * is not a sample.  Returns 0, 1 for a block that differs, or the error
 * of a failed read (also when another block of the same round differs:
 * either starts the device empty).  Before the log is read back;
 * feed.mutex held.
 */
/*
 * Read the @nr origin blocks at @at at once and compare each with its
 * logged crc32c @ck, counting in *@sampled those not written through the
 * device since the resume (as seen once the read completed).  Returns 0,
 * 1 for a block that differs, or the error of a failed read.  Uses
 * @lc->persist.meta_buf.  feed.mutex held.
 */
static int l2arc_rebuild_check(struct l2arc_c *lc, const sector_t *at,
			       const u32 *ck, int nr, unsigned int *sampled)
{
	unsigned int bytes = l2arc_block_bytes(lc);
	bool written;
	int i, r;

	lockdep_assert_held(&lc->feed.mutex);
	r = l2arc_sync_read_many(lc, lc->origin->bdev, at, nr,
				 lc->block_sectors, lc->persist.meta_buf);
	if (r)
		return r;
	for (i = 0; i < nr; i++) {
		l2arc_lock(lc);
		written = l2arc_rebuild_written(lc, at[i] >> lc->block_shift);
		l2arc_unlock(lc);
		if (written)
			continue;
		(*sampled)++;
		if (crc32c(~0U, lc->persist.meta_buf + (size_t)i * bytes,
			   bytes) != ck[i])
			return 1;
	}
	return 0;
}

/*
 * When the random draws gave too few samples (the entries sit in few of
 * the log blocks): walk the first @span log blocks from one drawn at
 * random, checking their usable entries in order, until @want are
 * checked or the walk is round, when every usable entry of the log was
 * checked.  *@sampled starts again from 0.  Returns as
 * l2arc_rebuild_check().  feed.mutex held.
 */
static int l2arc_rebuild_walk(struct l2arc_c *lc, u64 guid, u32 span,
			      unsigned int want, unsigned int per_round,
			      unsigned int *sampled)
{
	struct l2arc_log_blk *lb = lc->persist.meta_buf;
	sector_t at[L2ARC_REBUILD_SAMPLES];
	u32 ck[L2ARC_REBUILD_SAMPLES];
	u64 first = get_random_u32() % span, k, i, ob;
	unsigned int j;
	int nr, r;

	lockdep_assert_held(&lc->feed.mutex);
	*sampled = 0;
	for (k = 0; k < span && *sampled < want; k++) {
		i = (first + k) % span;
		j = 0;
		/* the checks' reads overwrite the log block: read it again */
		while (j < L2ARC_LOG_ENTRIES && *sampled < want) {
			r = l2arc_meta_io(lc, REQ_OP_READ, 1 + i, 1, lb);
			if (r)
				return r;
			if (l2arc_lb_decode(lb, i, guid) != L2ARC_LB_OK)
				break;
			for (nr = 0; j < L2ARC_LOG_ENTRIES &&
			     nr < min(per_round, want - *sampled); j++)
				if (l2arc_rebuild_entry(lc, lb, i, j, &ob, &ck[nr]))
					at[nr++] = ob << lc->block_shift;
			if (!nr)
				break;
			r = l2arc_rebuild_check(lc, at, ck, nr, sampled);
			if (r)
				return r;
		}
	}
	return 0;
}

static int l2arc_rebuild_sample(struct l2arc_c *lc, u64 guid,
				unsigned int *sampled, unsigned int *want)
{
	unsigned int bytes = l2arc_block_bytes(lc), tries = 0;
	unsigned int per_round = min_t(unsigned int, L2ARC_REBUILD_SAMPLES,
				       L2ARC_META_IO_BYTES / bytes);
	sector_t at[L2ARC_REBUILD_SAMPLES];
	u32 ck[L2ARC_REBUILD_SAMPLES];
	u64 hand, laps, span;
	int nr, r;

	lockdep_assert_held(&lc->feed.mutex);
	l2arc_lock(lc);
	hand = lc->l2.hand;
	laps = lc->l2.laps;
	l2arc_unlock(lc);
	span = laps ? lc->persist.log_nr :
		      DIV_ROUND_UP_ULL(hand, L2ARC_LOG_ENTRIES);
	*want = laps ? L2ARC_REBUILD_SAMPLES :
		       min_t(u64, hand, L2ARC_REBUILD_SAMPLES);
	*sampled = 0;
	while (*sampled < *want) {
		/* draw the round's samples, then read their blocks at once */
		nr = l2arc_rebuild_draw(lc, guid, span,
					min(per_round, *want - *sampled),
					&tries, at, ck);
		if (nr < 0)
			return nr;
		if (!nr)
			break;
		r = l2arc_rebuild_check(lc, at, ck, nr, sampled);
		if (r)
			return r;
	}
	if (*sampled >= *want)
		return 0;
	r = l2arc_rebuild_walk(lc, guid, span, *want, per_round, sampled);
	/* the walk went round: every usable entry was checked */
	if (!r && *sampled < *want)
		*want = *sampled;
	return r;
}

/* Read the log blocks back into the slot table; feed.mutex held. */
static void l2arc_rebuild_logs(struct l2arc_c *lc)
{
	unsigned int per_io = L2ARC_META_IO_BYTES / L2ARC_META_UNIT, n, k;
	u64 i;

	lockdep_assert_held(&lc->feed.mutex);
	for (i = 0; i < lc->persist.log_nr; i += n) {
		n = min_t(u64, per_io, lc->persist.log_nr - i);
		if (READ_ONCE(lc->l2.failed)) {
			/* what is not read is written again, empty */
			l2arc_lock(lc);
			bitmap_set(lc->persist.log_dirty, i, lc->persist.log_nr - i);
			l2arc_unlock(lc);
			break;
		}
		if (l2arc_meta_io(lc, REQ_OP_READ, 1 + i, n,
				  lc->persist.meta_buf)) {
			l2arc_lock(lc);
			l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_IO_ERRORS);
			bitmap_set(lc->persist.log_dirty, i, n);
			l2arc_unlock(lc);
			continue;
		}
		for (k = 0; k < n; k++) {
			l2arc_lb_load(lc, i + k, lc->persist.meta_buf +
				      k * L2ARC_META_UNIT);
			cond_resched();
		}
	}
}

/* Start empty: a new guid voids every log block on the device. */
static void l2arc_start_empty(struct l2arc_c *lc)
{
	lc->persist.guid = get_random_u64();
	lc->persist.generation = 0;
}

/*
 * A log written over a smaller origin or target (the disk grew, and the
 * table with it): kept, with a log line that says what grew.  @olen and
 * @osz: the header's target length and origin size, sectors.
 */
static void l2arc_rebuild_grown(struct l2arc_c *lc, u64 olen, u64 osz)
{
	u64 nsz = bdev_nr_sectors(lc->origin->bdev);

	if (olen != lc->ti->len || osz != nsz)
		DMINFO("%s: origin size %llu -> %llu sectors, target length %llu -> %llu: kept",
		       lc->name, osz, nsz, olen, (u64)lc->ti->len);
}

/*
 * The first resume with metadata: read the header; from a clean, matching
 * one, take the write hand and set the rebuild of the log going
 * (l2arc_rebuild_run()), else start empty.  feed.mutex held.
 */
static void l2arc_rebuild(struct l2arc_c *lc)
{
	struct l2arc_dev_hdr *dh = lc->persist.meta_buf;
	bool want = lc->table.rebuild_set ? lc->table.rebuild :
		    l2arc_param(L2ARC_P_REBUILD_ENABLED);
	u64 t0 = ktime_get_ns(), guid, generation, hand, laps, fp, now;
	u64 olen, osz;
	bool origin = false;
	const char *why;

	lockdep_assert_held(&lc->feed.mutex);
	if (l2arc_meta_io(lc, REQ_OP_READ, 0, 1, dh)) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_IO_ERRORS);
		why = "cannot read the header";
		goto empty;
	}
	if (le64_to_cpu(dh->magic) != L2ARC_DH_MAGIC) {
		why = NULL;	/* a new cache device */
		goto empty;
	}
	why = l2arc_dh_check(lc, dh, &origin);
	if (why)
		goto empty;
	if (!want) {
		why = "the table's or the module's rebuild setting is 0";
		goto empty;
	}
	guid = le64_to_cpu(dh->guid);
	generation = le64_to_cpu(dh->generation);
	hand = le64_to_cpu(dh->hand);
	laps = le64_to_cpu(dh->laps);
	fp = le64_to_cpu(dh->origin_fp);
	/* the fingerprint's reads overwrite the header's buffer */
	olen = le64_to_cpu(dh->target_len);
	osz = le64_to_cpu(dh->origin_sectors);
	why = "cannot read the origin's fingerprint blocks";
	if (!l2arc_origin_fingerprint(lc, guid, olen, &now))
		why = now == fp ? NULL :
		      "its first or last MiB, or a fingerprint block, differs";
	if (why) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_ORIGIN_CHANGED);
		origin = true;
		goto empty;
	}
	l2arc_rebuild_grown(lc, olen, osz);
	lc->persist.guid = guid;
	lc->persist.generation = generation;
	l2arc_lock(lc);
	lc->l2.hand = hand;
	lc->l2.laps = laps;
	lc->persist.rebuild_t0 = t0;
	lc->persist.rb_nr = 0;
	lc->persist.rebuilding = true;
	l2arc_unlock(lc);
	return;
empty:
	if (why)
		DMWARN("%s: cache device starts empty: %s%s", lc->name,
		       origin ? "the origin changed: " : "", why);
	l2arc_start_empty(lc);
}

/**
 * l2arc_rebuild_run() - read the log blocks into the slot table, if the
 * first resume left that to do
 * @lc: the device
 *
 * Run by the rebuild's own work item, queued on the feed's workqueue at
 * the resume (l2arc_rebuild_start()), by the first feed and by a suspend
 * -- whichever takes feed.mutex first -- while the device
 * serves I/O: a block written since the resume
 * (l2arc_rebuild_note_write()) or read into the ARC from the origin
 * meanwhile is left out (its log block is written again).  Ends with
 * l2_rebuild_success (when it read the whole log) and l2_rebuild_time_ms
 * (from the resume) and a kernel log line.  Before it indexes anything
 * it reads %L2ARC_REBUILD_SAMPLES entries' blocks from the origin
 * (l2arc_rebuild_sample()): one that differs from its logged copy starts
 * the device empty (l2_rebuild_origin_changed).  A device degraded meanwhile
 * stops it: the log blocks not read are written again empty.
 *
 * Context: process context, may sleep; feed.mutex held.
 */
void l2arc_rebuild_run(struct l2arc_c *lc)
{
	unsigned int noio, sampled, want;
	const char *why = NULL;
	bool failed;
	u64 t1, ms;
	int r;

	lockdep_assert_held(&lc->feed.mutex);
	if (!lc->persist.rebuilding)
		return;
	/* no reclaim through a device whose cache may be half rebuilt */
	noio = memalloc_noio_save();
	t1 = ktime_get_ns();
	r = l2arc_rebuild_sample(lc, lc->persist.guid, &sampled, &want);
	t1 = div_u64(ktime_get_ns() - t1, NSEC_PER_MSEC);
	if (r < 0)
		why = "cannot read the origin's sampled blocks";
	else if (r)
		why = "a sampled block differs from its logged copy";
	if (why) {
		/* nothing is indexed yet: nothing stale was served */
		DMWARN("%s: cache device starts empty: the origin changed: %s (%u of %u sampled)",
		       lc->name, why, sampled, want);
		l2arc_start_empty(lc);
	} else {
		DMINFO("%s: origin checked: %u sampled blocks match their logged copies (%llu ms)",
		       lc->name, sampled, t1);
		l2arc_rebuild_logs(lc);
	}
	memalloc_noio_restore(noio);
	l2arc_lock(lc);
	lc->persist.rebuilding = false;
	failed = READ_ONCE(lc->l2.failed);
	if (why)
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_ORIGIN_CHANGED);
	else if (!failed)
		l2arc_stat_inc(lc, L2ARC_STAT_L2_REBUILD_SUCCESS);
	ms = div_u64(ktime_get_ns() - lc->persist.rebuild_t0, NSEC_PER_MSEC);
	lc->gauge[L2ARC_GAUGE_L2_REBUILD_TIME_MS] = ms;
	l2arc_unlock(lc);
	DMINFO("%s: L2ARC rebuilt: %llu blocks from %llu log blocks in %llu ms, %llu left out%s",
	       lc->name, l2arc_stat_read(lc, L2ARC_STAT_L2_REBUILD_BUFS),
	       l2arc_stat_read(lc, L2ARC_STAT_L2_REBUILD_LOG_BLKS), ms,
	       l2arc_stat_read(lc, L2ARC_STAT_L2_REBUILD_SKIPPED),
	       failed ? "; stopped: cache device dropped" : "");
}

/*
 * No metadata on this device: void a header an earlier table may have
 * left at sector 0, blindly (slot 0 holds nothing yet, and a read could
 * wait on a slow device), so that an old log never outlives the writes
 * this table does not record.  feed.mutex held.
 */
static void l2arc_dh_void(struct l2arc_c *lc)
{
	lockdep_assert_held(&lc->feed.mutex);
	memset(lc->persist.meta_buf, 0, L2ARC_META_UNIT);
	if (l2arc_meta_io(lc, REQ_OP_WRITE | REQ_SYNC | REQ_FUA, 0, 1,
			  lc->persist.meta_buf))
		DMERR("%s: cannot clear sector 0 of the cache device",
		      lc->name);
}

static void l2arc_rebuild_worker(struct work_struct *work)
{
	struct l2arc_c *lc = container_of(work, struct l2arc_c,
					  persist.rebuild_work);

	mutex_lock(&lc->feed.mutex);
	l2arc_rebuild_run(lc);
	mutex_unlock(&lc->feed.mutex);
}

/**
 * l2arc_rebuild_start() - queue the rebuild, if the first resume left it
 * to do
 * @lc: the device, resumed
 * @wq: the workqueue to run it on (the feed's)
 *
 * Context: process context (resume).
 */
void l2arc_rebuild_start(struct l2arc_c *lc, struct workqueue_struct *wq)
{
	if (READ_ONCE(lc->persist.rebuilding))
		queue_work(wq, &lc->persist.rebuild_work);
}

/**
 * l2arc_rebuild_stop() - wait for a queued or running rebuild work item
 * @lc: the device, suspending or going away
 *
 * A rebuild not run yet stays to do (a suspend runs it itself).
 *
 * Context: process context, may sleep; feed.mutex not held.
 */
void l2arc_rebuild_stop(struct l2arc_c *lc)
{
	cancel_work_sync(&lc->persist.rebuild_work);
}

/**
 * l2arc_persist_origin_moved() - did the origin change while the device
 * was suspended?
 * @lc: the device, at a resume
 *
 * Another table claimed the origin, or its write count or diskseq moved
 * since this table's last suspend (l2arc_origin_moved()).  The caller
 * then drops everything cached of it (the ARC, the hand-off queue, the
 * slot table) and calls l2arc_persist_forget().
 *
 * Context: process context (preresume).
 * Return: NULL at the first resume or when nothing changed, else what
 * changed, for the log.
 */
const char *l2arc_persist_origin_moved(struct l2arc_c *lc)
{
	bool other_table;

	if (!lc->persist.resumed)
		return NULL;
	return l2arc_origin_moved(lc, lc->persist.owner_token, &other_table);
}

/**
 * l2arc_persist_forget() - void the log of a device whose origin changed:
 * a new guid, so that no log block on the cache device is read back
 * @lc: the device, its ARC and slot table already emptied
 *
 * Context: process context, may sleep (takes feed.mutex).
 */
void l2arc_persist_forget(struct l2arc_c *lc)
{
	if (lc->cache && lc->persist.enabled) {
		mutex_lock(&lc->feed.mutex);
		l2arc_start_empty(lc);
		mutex_unlock(&lc->feed.mutex);
	}
}

/**
 * l2arc_persist_resume() - at preresume: check the origin, rebuild the
 * first time, then mark the cache device in use
 * @lc: the device
 *
 * A resume other than the first has already dropped what the device
 * cached when the origin changed meanwhile (l2arc_persist_origin_moved(),
 * in the target's preresume).  Every table claims
 * its origin here (l2arc_origin_claim()), after its rebuild.  A header
 * that cannot be written "in use" drops the cache device ("degraded");
 * the claim makes later loads in this boot start empty, since the header
 * on the device still says clean.
 *
 * Context: process context, may sleep; no I/O reaches the target yet.
 */
void l2arc_persist_resume(struct l2arc_c *lc)
{
	unsigned int noio;
	int r;

	/* the device is suspended: no reclaim may write through it */
	noio = memalloc_noio_save();
	lc->persist.resumed = true;
	if (!lc->cache) {
		l2arc_origin_claim(lc, false);
		goto out;
	}
	mutex_lock(&lc->feed.mutex);
	if (!lc->persist.loaded) {
		if (lc->persist.enabled)
			l2arc_rebuild(lc);
		else
			l2arc_dh_void(lc);
		lc->persist.loaded = true;
	}
	l2arc_origin_claim(lc, false);
	if (lc->persist.enabled && !READ_ONCE(lc->l2.failed)) {
		lc->persist.generation++;
		r = l2arc_dh_write(lc, L2ARC_DH_IN_USE, 0);
		if (r) {
			DMERR("%s: cannot mark the cache device in use (%d): cache device dropped",
			      lc->name, r);
			/* a clean header left there must not outlive this load */
			l2arc_dh_void(lc);
			l2arc_lock(lc);
			WRITE_ONCE(lc->l2.failed, true);
			l2arc_unlock(lc);
		}
	}
	mutex_unlock(&lc->feed.mutex);
out:
	memalloc_noio_restore(noio);
}

/**
 * l2arc_persist_suspend() - at postsuspend: write the changed log blocks,
 * flush the origin, take its fingerprint and mark the cache device clean;
 * mark the origin's claim
 * @lc: the device, its feed stopped and no I/O in flight
 *
 * The header says clean only over an origin that holds every write the
 * log's copies were read from: the origin is flushed first.  A degraded
 * device, or one whose log cannot be written, whose origin cannot be
 * flushed or read, stays "in use": the next load starts empty.  Every
 * table (with a cache device or not) marks its claim on the origin last,
 * so that its next resume, or the next rebuild, sees a write made while
 * no table used the origin.
 *
 * Context: process context, may sleep.
 */
void l2arc_persist_suspend(struct l2arc_c *lc)
{
	const char *what = NULL;
	unsigned int noio;
	u64 fp = 0;
	int r = 0;

	if (!lc->cache || !lc->persist.enabled || !lc->persist.loaded ||
	    READ_ONCE(lc->l2.failed))
		goto mark;
	/*
	 * A noflush suspend (dmsetup suspend --noflush, remove --force) may
	 * be over an origin that queues I/O with no path: no flush, no
	 * fingerprint, and the header stays "in use" (the next load starts
	 * empty).
	 */
	if (lc->persist.noflush_suspend) {
		DMWARN("%s: noflush suspend: the cache device starts empty next time",
		       lc->name);
		goto mark;
	}
	noio = memalloc_noio_save();
	mutex_lock(&lc->feed.mutex);
	/* a rebuild not run yet: its log must not outlive this load's writes */
	l2arc_rebuild_run(lc);
	r = l2arc_log_write_dirty(lc);
	if (r) {
		what = "write the cache device's log";
	} else {
		r = blkdev_issue_flush(lc->origin->bdev);
		if (r)
			what = "flush the origin";
	}
	if (!r) {
		r = l2arc_origin_fingerprint(lc, lc->persist.guid, lc->ti->len,
					     &fp);
		if (r)
			what = "read the origin's fingerprint blocks";
	}
	if (!r) {
		r = l2arc_dh_write(lc, L2ARC_DH_CLEAN, fp);
		if (r)
			what = "write the cache device's header";
	}
	if (r)
		DMERR("%s: cannot %s (%d): the cache device starts empty next time",
		      lc->name, what, r);
	mutex_unlock(&lc->feed.mutex);
	memalloc_noio_restore(noio);
mark:
	l2arc_origin_claim(lc, true);
}

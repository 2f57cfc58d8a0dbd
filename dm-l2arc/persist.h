/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the persistent L2ARC's I/O (persist.c): what it reads of the
 * origin besides the on-disk format of the cache device (format.h).
 */
#ifndef DM_L2ARC_PERSIST_H
#define DM_L2ARC_PERSIST_H

#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "format.h"

struct dm_io_client;
struct l2arc_c;
struct l2arc_owner;

/* Write ranges a device remembers while its rebuild is pending. */
#define L2ARC_REBUILD_WRITES		256

/**
 * struct l2arc_rb_range - blocks [@first, @last] of the origin, in a set
 * kept by l2arc_ranges_add() (sorted by @first, disjoint)
 * @first: the first block
 * @last: the last block, @first or more
 */
struct l2arc_rb_range {
	u64 first;
	u64 last;
};

/**
 * struct l2arc_persist - the persistent L2ARC of a device (its header and
 * log blocks on the cache device) and its claim on the origin
 * @dev_blocks: the cache device's size, in blocks
 * @enabled: the cache device holds a header and log blocks (persist.c)
 * @meta_blocks: blocks before slot 0 (the header and the log blocks);
 *	slot s is block @meta_blocks + s of the cache device
 * @log_nr: log blocks, one per %L2ARC_LOG_ENTRIES slots
 * @log_dirty: log blocks whose copy on the cache device differs from
 *	the slot table; under arc.lock
 * @guid: random id of this format of the cache device
 * @generation: incremented at every in-use header write
 * @loaded: the first resume has read the header (and rebuilds, or
 *	started cold)
 * @rebuilding: the log blocks are still to be read into the slot table
 *	(l2arc_rebuild_run(), by its work item, the first feed or a
 *	suspend, whichever takes feed.mutex first);
 *	set at the first resume, cleared under arc.lock
 * @rebuild_t0: ktime_get_ns() at that resume
 * @rb_writes: block ranges written since the resume while
 *	@rebuilding, which the rebuild must not index, sorted
 *	and disjoint (l2arc_ranges_add()); under arc.lock
 * @rb_nr: ranges in @rb_writes; when it is full, a new range
 *	widens the one nearest to it (more blocks left out, never
 *	fewer)
 * @io: dm-io client of the metadata reads and writes
 * @rebuild_work: runs l2arc_rebuild_run() on the feed's workqueue
 * @meta_buf: %L2ARC_META_IO_BYTES of vmalloc'ed buffer for them; used
 *	under @feed.mutex
 * @owner_token: random, nonzero: this table's claim on its origin
 *	(l2arc_origin_claim())
 * @owner_spare: the claim entry allocated in the ctr, for a resume that
 *	finds the origin unclaimed (then NULL)
 * @resumed: resumed once (a later resume checks the origin's claim)
 * @noflush_suspend: the suspend under way is a noflush one (presuspend):
 *	its postsuspend sends nothing to the origin, which may
 *	be one that queues I/O with no path
 * @origin_uid_type: the origin's unique id kind (enum blk_unique_id), 0
 *	when its driver gives none
 * @origin_uid_len: bytes of @origin_uid
 * @origin_uid: the origin's unique id (WWID, EUI-64, NGUID), taken in
 *	the ctr
 *
 * Locking: the I/O and the header's fields under feed.mutex (the feed's
 * mutex: persistence runs in feeds and at suspend and resume); the dirty
 * bits and the rebuild's ranges under arc.lock.  Set up by
 * l2arc_persist_init() and l2arc_origin_claim_init(), torn down by
 * l2arc_persist_exit() and l2arc_origin_claim_exit().
 */
struct l2arc_persist {
	u64 dev_blocks;
	bool enabled;
	u64 meta_blocks;
	u64 log_nr;
	unsigned long *log_dirty;
	u64 guid;
	u64 generation;
	bool loaded;
	bool rebuilding;
	u64 rebuild_t0;
	struct l2arc_rb_range rb_writes[L2ARC_REBUILD_WRITES];
	unsigned int rb_nr;
	struct dm_io_client *io;
	struct work_struct rebuild_work;
	void *meta_buf;
	u64 owner_token;
	struct l2arc_owner *owner_spare;
	bool resumed;
	bool noflush_suspend;
	u32 origin_uid_type;
	u32 origin_uid_len;
	u8 origin_uid[16];
};

/* The origin's fingerprint: its first and last MiB, and 8 blocks between */
#define L2ARC_FP_EDGE_SECTORS	(SZ_1M >> SECTOR_SHIFT)
#define L2ARC_FP_SPREAD		8

/* Rebuilt entries read back from the origin before the log is trusted */
#define L2ARC_REBUILD_SAMPLES	16

int l2arc_persist_init(struct l2arc_c *lc, u64 dev_blocks, char **error);
void l2arc_persist_exit(struct l2arc_c *lc);
void l2arc_persist_resume(struct l2arc_c *lc);
const char *l2arc_persist_origin_moved(struct l2arc_c *lc);
void l2arc_persist_forget(struct l2arc_c *lc);
void l2arc_rebuild_run(struct l2arc_c *lc);
void l2arc_rebuild_start(struct l2arc_c *lc, struct workqueue_struct *wq);
void l2arc_rebuild_stop(struct l2arc_c *lc);
void l2arc_rebuild_note_write(struct l2arc_c *lc, u64 first, u64 last);
bool l2arc_ranges_find(const struct l2arc_rb_range *r, unsigned int nr, u64 b);
void l2arc_ranges_add(struct l2arc_rb_range *r, unsigned int *nr,
		      unsigned int max, u64 first, u64 last);
void l2arc_persist_suspend(struct l2arc_c *lc);
void l2arc_origin_claim(struct l2arc_c *lc, bool mark);
int l2arc_origin_claim_init(struct l2arc_c *lc);
void l2arc_origin_claim_exit(struct l2arc_c *lc);
void l2arc_origin_uid(struct l2arc_c *lc);
void l2arc_persist_module_exit(void);
u64 l2arc_origin_sectors(struct block_device *bdev);
int l2arc_log_write_dirty(struct l2arc_c *lc);

#endif /* DM_L2ARC_PERSIST_H */

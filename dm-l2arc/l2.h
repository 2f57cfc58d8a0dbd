/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the cache device's slots and reads (l2.c has the theory).
 *
 * Included by dm-l2arc.h before struct l2arc_c, which embeds a struct
 * l2arc_l2 as its member l2.
 */
#ifndef DM_L2ARC_L2_H
#define DM_L2ARC_L2_H

#include <linux/list.h>
#include <linux/wait.h>

#include "l2index.h"

struct arc;
struct arc_hdr;
struct l2arc_c;
struct l2arc_run;

/**
 * struct l2arc_l2 - the cache device's ring of slots and the reads of it
 * @nr_slots: cache device size in blocks (0 without one), <= 2^32
 * @hand: the next slot the feed writes
 * @laps: times the write hand went round
 * @blocks: blocks with a valid copy on the cache device
 * @class_blocks: the same, by &enum l2arc_class
 * @ix: the slot table (block, crc32c and state of each slot's copy)
 *	and the index of L2-only blocks (l2index.c); under arc.lock
 * @reads: runs reading the cache device (struct l2arc_run.l2_node)
 * @read_wait: the feed waits here for reads of the slots it is about
 *	to overwrite; woken when a fill leaves @reads
 * @region_start: first slot of the region the feed is about to
 *	overwrite (no new read may start there)
 * @region_end: end of that region; equal to @region_start when none
 * @errors: cache device errors (checksums, I/O)
 * @failed: the cache device was dropped after too many errors
 * @dropped: the feed has forgotten every L2 copy since @failed
 * @l2only_reported: L2-only header bytes added to the global count
 * @lat: read latency of the cache device, us, per size class of the
 *	read (l2arc_lat_class()): an EWMA (weight 1/8) of its runs' reads
 *	that succeeded; lock-free (READ_ONCE and WRITE_ONCE: an update lost
 *	to a concurrent one is harmless)
 * @origin_lat: the same for the origin's runs (fills, read-ahead)
 * @slow_seq: L2 hits while the cache device was slow, or while no size
 *	class had a read on both devices; every %L2ARC_SLOW_PROBE th reads
 *	the other device than the rest; under arc.lock
 *
 * Locking: under arc.lock unless a field says otherwise; @failed is also
 * read without it.  Set up by l2arc_l2_init(), freed by l2arc_l2_exit().
 */
struct l2arc_l2 {
	u64 nr_slots;
	u64 hand;
	u64 laps;
	u64 blocks;
	u64 class_blocks[L2ARC_NR_CLASSES];
	struct l2arc_index ix;
	struct list_head reads;
	wait_queue_head_t read_wait;
	u64 region_start;
	u64 region_end;
	u64 errors;
	bool failed;
	bool dropped;
	u64 l2only_reported;
	struct ewma_l2arc_lat lat[L2ARC_LAT_CLASSES];
	struct ewma_l2arc_lat origin_lat[L2ARC_LAT_CLASSES];
	unsigned int slow_seq;
};

/* l2.c */
bool l2arc_l2_readable(struct l2arc_c *lc, u32 slot);
unsigned int l2arc_lat_class(u64 bytes);
bool l2arc_lat_pair(struct l2arc_c *lc, u64 *l2, u64 *origin);
bool l2arc_l2_slow(struct l2arc_c *lc);
void l2arc_note_read(struct l2arc_c *lc, struct l2arc_run *run);
void l2arc_l2_read_done(struct l2arc_c *lc, struct l2arc_run *run);
void l2arc_l2_drop(struct arc *arc, struct arc_hdr *hdr);
bool l2arc_l2_compact(struct arc *arc, struct arc_hdr *hdr);
bool l2arc_l2_claim(struct arc *arc, struct arc_hdr *hdr);
struct arc_hdr *l2arc_slot_hdr(struct l2arc_c *lc, u64 slot);
bool l2arc_slot_is(struct l2arc_c *lc, u64 slot, struct arc_hdr *hdr);
void l2arc_index_drop(struct l2arc_c *lc, u64 slot);
u32 l2arc_l2_find(struct l2arc_c *lc, u64 oblock);
void l2arc_l2_error(struct l2arc_c *lc);
bool l2arc_meta_over(struct l2arc_c *lc);
unsigned int l2arc_class(struct arc_hdr *hdr);
void l2arc_evict_slot(struct l2arc_c *lc, u64 slot);
u64 l2arc_region_claim(struct l2arc_c *lc, unsigned int n);
void l2arc_l2_drop_all(struct l2arc_c *lc);
int l2arc_l2_check(struct l2arc_c *lc, u64 *slots, char **error);
int l2arc_l2_init(struct l2arc_c *lc, char **error);
void l2arc_l2_exit(struct l2arc_c *lc);

#endif /* DM_L2ARC_L2_H */

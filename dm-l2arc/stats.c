// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: statistics in ZFS's kstat text format, under /proc.
 *
 *   /proc/dm-l2arc/dm-<minor>/arcstats   one device (its kernel name, as in
 *                                        /sys/block/dm-<minor>), or one
 *                                        pool: its members summed
 *   /proc/dm-l2arc/dm-<minor>/origins    a pool's members, a line each
 *   /proc/dm-l2arc/arcstats              the sum over all devices and
 *                                        pools, each ARC counted once
 *
 * The format is that of /proc/spl/kstat/zfs/arcstats, so that tools that
 * read ZFS's ARC statistics read ours:
 *
 *   <kid> 1 0x01 <rows> <rows * 272> <crtime ns> <snaptime ns>
 *   name                            type data
 *   hits                            4    1234
 *   ...
 *
 * Rows carry ZFS's names where they mean what ZFS's rows mean; the rest
 * are ours (Documentation/dm-l2arc.rst lists every row and its unit).
 *
 * A device's entry exists while its table is live: created at resume,
 * removed at postsuspend and in the dtr, so that a table reload (a second
 * instance of the same device) never clashes.  l2arc_stats_mutex protects
 * the device list and every device's @proc pointer; proc_remove() waits
 * for readers, so a reader never sees a freed device.
 *
 * A pool member's file counts its own events, and its size rows (those of
 * l2arc_stats_arc_rows()) are the pool's ARC.  The pool's entry (its
 * object's, from its first table to its free, since a reload binds the
 * same object) sums its members' rows, those that left included
 * (&l2arc_pool.stat_gone), with the size rows once.  The summed file adds
 * the devices of their own and the pools, never a member: each ARC and
 * each event is counted once.
 */
#define DM_MSG_PREFIX "l2arc stats"

#include <linux/kernel.h>
#include <linux/device-mapper.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "dm-l2arc.h"
#include "whatif.h"

/* sizeof(kstat_named_t) in ZFS: arcstats' header counts data in these. */
#define KSTAT_NAMED_SIZE	272
#define KSTAT_DATA_UINT64	4

/* The rows, in order.  Values are filled by l2arc_stats_snapshot(). */
enum l2arc_row {
	R_HITS, R_IOHITS, R_MISSES,
	R_DEMAND_DATA_HITS, R_DEMAND_DATA_IOHITS, R_DEMAND_DATA_MISSES,
	R_PREFETCH_DATA_HITS, R_PREFETCH_DATA_IOHITS, R_PREFETCH_DATA_MISSES,
	R_MRU_HITS, R_MRU_GHOST_HITS, R_MFU_HITS, R_MFU_GHOST_HITS,
	R_DELETED, R_HASH_ELEMENTS, R_HASH_ELEMENTS_MAX,
	R_P, R_C, R_C_MIN, R_C_MAX, R_SIZE, R_HDR_SIZE, R_DATA_SIZE,
	R_MRU_SIZE, R_MRU_GHOST_SIZE, R_MFU_SIZE, R_MFU_GHOST_SIZE,
	R_PREDICTIVE_PREFETCH, R_DEMAND_HIT_PREDICTIVE_PREFETCH,
	R_MEMORY_THROTTLE_COUNT,
	R_EVICT_L2_CACHED, R_EVICT_L2_ELIGIBLE, R_EVICT_L2_INELIGIBLE,
	R_L2_NDEV, R_L2_HITS, R_L2_MISSES, R_L2_FEEDS, R_L2_RW_CLASH,
	R_L2_READ_BYTES, R_L2_WRITE_BYTES, R_L2_WRITES_SENT, R_L2_WRITES_DONE,
	R_L2_WRITES_ERROR, R_L2_EVICT_READING, R_L2_EVICT_L1CACHED,
	R_L2_ABORT_LOWMEM, R_L2_CKSUM_BAD, R_L2_IO_ERROR, R_L2_SIZE, R_L2_ASIZE,
	R_L2_HDR_SIZE, R_L2_PREFETCH_ASIZE, R_L2_MRU_ASIZE, R_L2_MFU_ASIZE,
	/* ours alone */
	R_FILLS_DISCARDED, R_ORIGIN_READ_ERRORS, R_WRITES, R_WRITE_INVALIDATES, R_ARC_SHRINKS,
	R_MRU_BLOCKS, R_MFU_BLOCKS, R_MRU_GHOST_BLOCKS, R_MFU_GHOST_BLOCKS,
	R_L2_EVICT_AHEAD, R_L2_HDR_DROPPED, R_L2_ONLY_BLOCKS, R_L2_LAPS,
	R_L2_DEGRADED, R_READS_AROUND_WRITES, R_L2_WRITE_INVALIDATES,
	R_LOCK_HOLD_MAX_US, R_BUF_POOL_SIZE, R_READ_BIOS, R_FILL_RUNS,
	R_FILL_RUN_BLOCKS, R_L2_READ_RUNS, R_L2_READ_RUN_BLOCKS,
	R_RUNS_DEFERRED, R_PREFETCH_EVICTED_UNUSED, R_FILL_RUN_BRIDGED,
	R_HASH_TABLE_SIZE, R_L2_HANDOFFS, R_L2_EVICT_MISSED, R_L2_HANDOFF_SIZE,
	R_L2_ONLY_WRITING, R_L2_WRITE_RATE, R_L2_DWPD_CAP, R_L2_WRITE_BYTES_24H,
	/* persistence: OpenZFS's rows, then ours */
	R_L2_LOG_BLK_WRITES, R_L2_LOG_BLK_ASIZE, R_L2_LOG_BLK_COUNT,
	R_L2_REBUILD_SUCCESS, R_L2_REBUILD_UNSUPPORTED, R_L2_REBUILD_IO_ERRORS,
	R_L2_REBUILD_DH_ERRORS, R_L2_REBUILD_CKSUM_LB_ERRORS,
	R_L2_REBUILD_LOWMEM, R_L2_REBUILD_SIZE, R_L2_REBUILD_ASIZE,
	R_L2_REBUILD_BUFS, R_L2_REBUILD_LOG_BLKS, R_L2_REBUILD_UNCLEAN,
	R_L2_REBUILD_TIME_MS, R_L2_REBUILD_SKIPPED,
	R_L2_REBUILD_ORIGIN_CHANGED, R_ORIGIN_CHANGED_DROPS,
	/* ours, again */
	R_L2_SLOW_BYPASS, R_L2_READ_LATENCY_US, R_ORIGIN_READ_LATENCY_US,
	R_LOCK_CONTENDED, R_ORIGIN_FOREIGN_WRITES, R_L2_ORIGIN_PROBES,
	R_NR,
};

static const char * const l2arc_row_names[R_NR] = {
	[R_HITS] = "hits",
	[R_IOHITS] = "iohits",
	[R_MISSES] = "misses",
	[R_DEMAND_DATA_HITS] = "demand_data_hits",
	[R_DEMAND_DATA_IOHITS] = "demand_data_iohits",
	[R_DEMAND_DATA_MISSES] = "demand_data_misses",
	[R_PREFETCH_DATA_HITS] = "prefetch_data_hits",
	[R_PREFETCH_DATA_IOHITS] = "prefetch_data_iohits",
	[R_PREFETCH_DATA_MISSES] = "prefetch_data_misses",
	[R_MRU_HITS] = "mru_hits",
	[R_MRU_GHOST_HITS] = "mru_ghost_hits",
	[R_MFU_HITS] = "mfu_hits",
	[R_MFU_GHOST_HITS] = "mfu_ghost_hits",
	[R_DELETED] = "deleted",
	[R_HASH_ELEMENTS] = "hash_elements",
	[R_HASH_ELEMENTS_MAX] = "hash_elements_max",
	[R_P] = "p",
	[R_C] = "c",
	[R_C_MIN] = "c_min",
	[R_C_MAX] = "c_max",
	[R_SIZE] = "size",
	[R_HDR_SIZE] = "hdr_size",
	[R_DATA_SIZE] = "data_size",
	[R_MRU_SIZE] = "mru_size",
	[R_MRU_GHOST_SIZE] = "mru_ghost_size",
	[R_MFU_SIZE] = "mfu_size",
	[R_MFU_GHOST_SIZE] = "mfu_ghost_size",
	[R_PREDICTIVE_PREFETCH] = "predictive_prefetch",
	[R_DEMAND_HIT_PREDICTIVE_PREFETCH] = "demand_hit_predictive_prefetch",
	[R_MEMORY_THROTTLE_COUNT] = "memory_throttle_count",
	[R_EVICT_L2_CACHED] = "evict_l2_cached",
	[R_EVICT_L2_ELIGIBLE] = "evict_l2_eligible",
	[R_EVICT_L2_INELIGIBLE] = "evict_l2_ineligible",
	[R_L2_NDEV] = "l2_ndev",
	[R_L2_HITS] = "l2_hits",
	[R_L2_MISSES] = "l2_misses",
	[R_L2_FEEDS] = "l2_feeds",
	[R_L2_RW_CLASH] = "l2_rw_clash",
	[R_L2_READ_BYTES] = "l2_read_bytes",
	[R_L2_WRITE_BYTES] = "l2_write_bytes",
	[R_L2_WRITES_SENT] = "l2_writes_sent",
	[R_L2_WRITES_DONE] = "l2_writes_done",
	[R_L2_WRITES_ERROR] = "l2_writes_error",
	[R_L2_EVICT_READING] = "l2_evict_reading",
	[R_L2_EVICT_L1CACHED] = "l2_evict_l1cached",
	[R_L2_ABORT_LOWMEM] = "l2_abort_lowmem",
	[R_L2_CKSUM_BAD] = "l2_cksum_bad",
	[R_L2_IO_ERROR] = "l2_io_error",
	[R_L2_SIZE] = "l2_size",
	[R_L2_ASIZE] = "l2_asize",
	[R_L2_HDR_SIZE] = "l2_hdr_size",
	[R_L2_PREFETCH_ASIZE] = "l2_prefetch_asize",
	[R_L2_MRU_ASIZE] = "l2_mru_asize",
	[R_L2_MFU_ASIZE] = "l2_mfu_asize",
	[R_FILLS_DISCARDED] = "fills_discarded",
	[R_ORIGIN_READ_ERRORS] = "origin_read_errors",
	[R_WRITES] = "writes",
	[R_WRITE_INVALIDATES] = "write_invalidates",
	[R_ARC_SHRINKS] = "arc_shrinks",
	[R_MRU_BLOCKS] = "mru_blocks",
	[R_MFU_BLOCKS] = "mfu_blocks",
	[R_MRU_GHOST_BLOCKS] = "mru_ghost_blocks",
	[R_MFU_GHOST_BLOCKS] = "mfu_ghost_blocks",
	[R_L2_EVICT_AHEAD] = "l2_evict_ahead",
	[R_L2_HDR_DROPPED] = "l2_hdr_dropped",
	[R_L2_ONLY_BLOCKS] = "l2_only_blocks",
	[R_L2_LAPS] = "l2_laps",
	[R_L2_DEGRADED] = "l2_degraded",
	[R_READS_AROUND_WRITES] = "reads_around_writes",
	[R_L2_WRITE_INVALIDATES] = "l2_write_invalidates",
	[R_LOCK_HOLD_MAX_US] = "lock_hold_max_us",
	[R_BUF_POOL_SIZE] = "buf_pool_size",
	[R_READ_BIOS] = "read_bios",
	[R_FILL_RUNS] = "fill_runs",
	[R_FILL_RUN_BLOCKS] = "fill_run_blocks",
	[R_L2_READ_RUNS] = "l2_read_runs",
	[R_L2_READ_RUN_BLOCKS] = "l2_read_run_blocks",
	[R_RUNS_DEFERRED] = "runs_deferred",
	[R_PREFETCH_EVICTED_UNUSED] = "prefetch_evicted_unused",
	[R_FILL_RUN_BRIDGED] = "fill_run_bridged",
	[R_HASH_TABLE_SIZE] = "hash_table_size",
	[R_L2_HANDOFFS] = "l2_handoffs",
	[R_L2_EVICT_MISSED] = "l2_evict_missed",
	[R_L2_HANDOFF_SIZE] = "l2_handoff_size",
	[R_L2_ONLY_WRITING] = "l2_only_writing",
	[R_L2_WRITE_RATE] = "l2_write_rate",
	[R_L2_DWPD_CAP] = "l2_dwpd_cap",
	[R_L2_WRITE_BYTES_24H] = "l2_write_bytes_24h",
	[R_L2_LOG_BLK_WRITES] = "l2_log_blk_writes",
	[R_L2_LOG_BLK_ASIZE] = "l2_log_blk_asize",
	[R_L2_LOG_BLK_COUNT] = "l2_log_blk_count",
	[R_L2_REBUILD_SUCCESS] = "l2_rebuild_success",
	[R_L2_REBUILD_UNSUPPORTED] = "l2_rebuild_unsupported",
	[R_L2_REBUILD_IO_ERRORS] = "l2_rebuild_io_errors",
	[R_L2_REBUILD_DH_ERRORS] = "l2_rebuild_dh_errors",
	[R_L2_REBUILD_CKSUM_LB_ERRORS] = "l2_rebuild_cksum_lb_errors",
	[R_L2_REBUILD_LOWMEM] = "l2_rebuild_lowmem",
	[R_L2_REBUILD_SIZE] = "l2_rebuild_size",
	[R_L2_REBUILD_ASIZE] = "l2_rebuild_asize",
	[R_L2_REBUILD_BUFS] = "l2_rebuild_bufs",
	[R_L2_REBUILD_LOG_BLKS] = "l2_rebuild_log_blks",
	[R_L2_REBUILD_UNCLEAN] = "l2_rebuild_unclean",
	[R_L2_REBUILD_TIME_MS] = "l2_rebuild_time_ms",
	[R_L2_REBUILD_SKIPPED] = "l2_rebuild_skipped",
	[R_L2_REBUILD_ORIGIN_CHANGED] = "l2_rebuild_origin_changed",
	[R_ORIGIN_CHANGED_DROPS] = "origin_changed_drops",
	[R_L2_SLOW_BYPASS] = "l2_slow_bypass",
	[R_L2_READ_LATENCY_US] = "l2_read_latency_us",
	[R_ORIGIN_READ_LATENCY_US] = "origin_read_latency_us",
	[R_LOCK_CONTENDED] = "lock_contended",
	[R_ORIGIN_FOREIGN_WRITES] = "origin_foreign_writes",
	[R_L2_ORIGIN_PROBES] = "l2_origin_probes",
};

/* Rows copied straight from a device's counters. */
static const struct {
	enum l2arc_row row;
	enum l2arc_stat stat;
} l2arc_row_stat[] = {
	{ R_HITS, L2ARC_STAT_HITS },
	{ R_IOHITS, L2ARC_STAT_IOHITS },
	{ R_MISSES, L2ARC_STAT_MISSES },
	{ R_DEMAND_DATA_HITS, L2ARC_STAT_DEMAND_DATA_HITS },
	{ R_DEMAND_DATA_IOHITS, L2ARC_STAT_DEMAND_DATA_IOHITS },
	{ R_DEMAND_DATA_MISSES, L2ARC_STAT_DEMAND_DATA_MISSES },
	{ R_PREFETCH_DATA_HITS, L2ARC_STAT_PREFETCH_DATA_HITS },
	{ R_PREFETCH_DATA_IOHITS, L2ARC_STAT_PREFETCH_DATA_IOHITS },
	{ R_PREFETCH_DATA_MISSES, L2ARC_STAT_PREFETCH_DATA_MISSES },
	{ R_MRU_HITS, L2ARC_STAT_MRU_HITS },
	{ R_MRU_GHOST_HITS, L2ARC_STAT_MRU_GHOST_HITS },
	{ R_MFU_HITS, L2ARC_STAT_MFU_HITS },
	{ R_MFU_GHOST_HITS, L2ARC_STAT_MFU_GHOST_HITS },
	{ R_PREDICTIVE_PREFETCH, L2ARC_STAT_PREDICTIVE_PREFETCH },
	{ R_DEMAND_HIT_PREDICTIVE_PREFETCH,
	  L2ARC_STAT_DEMAND_HIT_PREDICTIVE_PREFETCH },
	{ R_MEMORY_THROTTLE_COUNT, L2ARC_STAT_MEMORY_THROTTLE },
	{ R_FILLS_DISCARDED, L2ARC_STAT_FILL_DISCARDED },
	{ R_ORIGIN_READ_ERRORS, L2ARC_STAT_ORIGIN_READ_ERRORS },
	{ R_WRITES, L2ARC_STAT_WRITES },
	{ R_WRITE_INVALIDATES, L2ARC_STAT_WRITE_INVALIDATES },
	{ R_ARC_SHRINKS, L2ARC_STAT_SHRINKS },
	{ R_EVICT_L2_CACHED, L2ARC_STAT_EVICT_L2_CACHED },
	{ R_EVICT_L2_ELIGIBLE, L2ARC_STAT_EVICT_L2_ELIGIBLE },
	{ R_EVICT_L2_INELIGIBLE, L2ARC_STAT_EVICT_L2_INELIGIBLE },
	{ R_L2_HITS, L2ARC_STAT_L2_HITS },
	{ R_L2_MISSES, L2ARC_STAT_L2_MISSES },
	{ R_L2_FEEDS, L2ARC_STAT_L2_FEEDS },
	{ R_L2_RW_CLASH, L2ARC_STAT_L2_RW_CLASH },
	{ R_L2_READ_BYTES, L2ARC_STAT_L2_READ_BYTES },
	{ R_L2_WRITE_BYTES, L2ARC_STAT_L2_WRITE_BYTES },
	{ R_L2_WRITES_SENT, L2ARC_STAT_L2_WRITES_SENT },
	{ R_L2_WRITES_DONE, L2ARC_STAT_L2_WRITES_DONE },
	{ R_L2_WRITES_ERROR, L2ARC_STAT_L2_WRITES_ERROR },
	{ R_L2_EVICT_READING, L2ARC_STAT_L2_EVICT_READING },
	{ R_L2_EVICT_L1CACHED, L2ARC_STAT_L2_EVICT_L1CACHED },
	{ R_L2_ABORT_LOWMEM, L2ARC_STAT_L2_ABORT_LOWMEM },
	{ R_L2_CKSUM_BAD, L2ARC_STAT_L2_CKSUM_BAD },
	{ R_L2_IO_ERROR, L2ARC_STAT_L2_IO_ERROR },
	{ R_L2_EVICT_AHEAD, L2ARC_STAT_L2_EVICT_AHEAD },
	{ R_L2_HDR_DROPPED, L2ARC_STAT_L2_HDR_DROPPED },
	{ R_READS_AROUND_WRITES, L2ARC_STAT_READS_AROUND_WRITES },
	{ R_L2_WRITE_INVALIDATES, L2ARC_STAT_L2_WRITE_INVALIDATES },
	{ R_READ_BIOS, L2ARC_STAT_READ_BIOS },
	{ R_FILL_RUNS, L2ARC_STAT_FILL_RUNS },
	{ R_FILL_RUN_BLOCKS, L2ARC_STAT_FILL_RUN_BLOCKS },
	{ R_L2_READ_RUNS, L2ARC_STAT_L2_READ_RUNS },
	{ R_L2_READ_RUN_BLOCKS, L2ARC_STAT_L2_READ_RUN_BLOCKS },
	{ R_PREFETCH_EVICTED_UNUSED, L2ARC_STAT_PREFETCH_EVICTED_UNUSED },
	{ R_FILL_RUN_BRIDGED, L2ARC_STAT_FILL_RUN_BRIDGED },
	{ R_L2_HANDOFFS, L2ARC_STAT_L2_HANDOFFS },
	{ R_L2_EVICT_MISSED, L2ARC_STAT_L2_EVICT_MISSED },
	{ R_L2_LOG_BLK_WRITES, L2ARC_STAT_L2_LOG_BLK_WRITES },
	{ R_L2_REBUILD_SUCCESS, L2ARC_STAT_L2_REBUILD_SUCCESS },
	{ R_L2_REBUILD_UNSUPPORTED, L2ARC_STAT_L2_REBUILD_UNSUPPORTED },
	{ R_L2_REBUILD_IO_ERRORS, L2ARC_STAT_L2_REBUILD_IO_ERRORS },
	{ R_L2_REBUILD_DH_ERRORS, L2ARC_STAT_L2_REBUILD_DH_ERRORS },
	{ R_L2_REBUILD_CKSUM_LB_ERRORS, L2ARC_STAT_L2_REBUILD_CKSUM_LB_ERRORS },
	{ R_L2_REBUILD_LOWMEM, L2ARC_STAT_L2_REBUILD_LOWMEM },
	{ R_L2_REBUILD_BUFS, L2ARC_STAT_L2_REBUILD_BUFS },
	{ R_L2_REBUILD_LOG_BLKS, L2ARC_STAT_L2_REBUILD_LOG_BLKS },
	{ R_L2_REBUILD_UNCLEAN, L2ARC_STAT_L2_REBUILD_UNCLEAN },
	{ R_L2_REBUILD_SKIPPED, L2ARC_STAT_L2_REBUILD_SKIPPED },
	{ R_L2_REBUILD_ORIGIN_CHANGED, L2ARC_STAT_L2_REBUILD_ORIGIN_CHANGED },
	{ R_ORIGIN_CHANGED_DROPS, L2ARC_STAT_ORIGIN_CHANGED_DROPS },
	{ R_L2_SLOW_BYPASS, L2ARC_STAT_L2_SLOW_BYPASS },
	{ R_LOCK_CONTENDED, L2ARC_STAT_LOCK_CONTENDED },
	{ R_ORIGIN_FOREIGN_WRITES, L2ARC_STAT_ORIGIN_FOREIGN_WRITES },
	{ R_L2_ORIGIN_PROBES, L2ARC_STAT_L2_ORIGIN_PROBES },
};

static DEFINE_MUTEX(l2arc_stats_mutex);	/* protects the four below */
static LIST_HEAD(l2arc_devices);	/* registered devices */
static LIST_HEAD(l2arc_pool_kstats);	/* registered pools */
static struct proc_dir_entry *l2arc_proc_root;
static int l2arc_next_kid;

static u64 l2arc_sum_crtime;	/* creation of /proc/dm-l2arc/arcstats */

/**
 * l2arc_stat_read_all() - all of a device's counters since clear_stats
 * @lc: the device
 * @v: %L2ARC_STAT_NR values, indexed by &enum l2arc_stat
 *
 * Context: any; as l2arc_stat_read().
 */
void l2arc_stat_read_all(struct l2arc_c *lc, u64 *v)
{
	unsigned int i;

	for (i = 0; i < L2ARC_STAT_NR; i++)
		v[i] = l2arc_stat_read(lc, i);
}

/**
 * l2arc_stat_clear() - zero a device's counters and gauges (clear_stats)
 * @lc: the device
 *
 * The counters start again from the CPUs' sums now: each one's base
 * (@lc->stat_base, written only here) moves up by what it reads.  No
 * CPU's copy is written from another, so a count made meanwhile, under
 * arc.lock or not, is never lost in part; one made without the lock as
 * the sums are taken counts before the clear or after it.
 *
 * Context: arc.lock held.
 */
void l2arc_stat_clear(struct l2arc_c *lc)
{
	unsigned int i;

	l2arc_assert_locked(lc);
	for (i = 0; i < L2ARC_STAT_NR; i++)
		WRITE_ONCE(lc->stat_base[i],
			   lc->stat_base[i] + l2arc_stat_read(lc, i));
	memset(lc->gauge, 0, sizeof(lc->gauge));
}

/*
 * The rows of the ARC directory @arc (its lists, p, c, headers, hash
 * table), blocks of 2^@shift bytes; arc.lock held.  A pool's members all
 * read the same ones: the pool's file and the summed file take them once.
 */
static void l2arc_stats_arc_rows(struct arc *arc, unsigned int shift,
				 u64 *vals)
{
	u64 t1, t2, b1, b2, hashed;

	lockdep_assert_held(&arc->lock);
	t1 = arc_list_size(arc, ARC_T1);
	t2 = arc_list_size(arc, ARC_T2);
	b1 = arc_list_size(arc, ARC_B1);
	b2 = arc_list_size(arc, ARC_B2);
	hashed = arc_nr_hashed(arc);
	vals[R_P] = mul_u64_u64_shr(arc_p_fixed(arc), 1ULL << shift,
				    ARC_P_SHIFT);
	vals[R_C] = arc_c(arc) << shift;
	vals[R_L2_ONLY_WRITING] = arc_l2only_writing(arc);
	vals[R_HASH_ELEMENTS] = hashed;
	vals[R_HASH_TABLE_SIZE] = arc_table_bytes(arc);
	vals[R_DATA_SIZE] = (t1 + t2) << shift;
	vals[R_HDR_SIZE] = hashed * sizeof(struct arc_hdr);
	vals[R_SIZE] = vals[R_DATA_SIZE] + vals[R_HDR_SIZE];
	vals[R_MRU_SIZE] = t1 << shift;
	vals[R_MFU_SIZE] = t2 << shift;
	vals[R_MRU_GHOST_SIZE] = b1 << shift;
	vals[R_MFU_GHOST_SIZE] = b2 << shift;
	vals[R_MRU_BLOCKS] = t1;
	vals[R_MFU_BLOCKS] = t2;
	vals[R_MRU_GHOST_BLOCKS] = b1;
	vals[R_MFU_GHOST_BLOCKS] = b2;
}

/**
 * l2arc_stats_snapshot() - one device's arcstats rows, consistently
 * @lc: the device
 * @vals: R_NR values, in row order
 *
 * Context: process or softirq context; takes @lc->arc->lock.
 */
void l2arc_stats_snapshot(struct l2arc_c *lc, u64 *vals)
{
	unsigned int shift = lc->block_shift + SECTOR_SHIFT;
	struct arc *arc = lc->arc;
	u64 l2only, indexed, l2_blocks;
	u64 l2_class[L2ARC_NR_CLASSES], counts[L2ARC_STAT_NR];
	unsigned int i;

	memset(vals, 0, R_NR * sizeof(*vals));
	l2arc_lock(lc);
	/* one pass over the CPUs, under the lock: the rows agree */
	l2arc_stat_read_all(lc, counts);
	for (i = 0; i < ARRAY_SIZE(l2arc_row_stat); i++)
		vals[l2arc_row_stat[i].row] = counts[l2arc_row_stat[i].stat];
	vals[R_HASH_ELEMENTS_MAX] = lc->gauge[L2ARC_GAUGE_HASH_ELEMENTS_MAX];
	vals[R_L2_REBUILD_TIME_MS] = lc->gauge[L2ARC_GAUGE_L2_REBUILD_TIME_MS];
	vals[R_DELETED] = arc_evicted(arc) - lc->kstat.deleted_base;
	l2arc_stats_arc_rows(arc, shift, vals);
	l2only = arc_list_size(arc, ARC_LIST_L2ONLY) - vals[R_L2_ONLY_WRITING];
	indexed = lc->l2.ix.nr_indexed;
	l2_blocks = lc->l2.blocks;
	memcpy(l2_class, lc->l2.class_blocks, sizeof(l2_class));
	vals[R_L2_LAPS] = lc->l2.laps;
	vals[R_L2_HANDOFF_SIZE] = lc->feed.handoff_nr << shift;
	vals[R_L2_WRITE_RATE] = l2arc_write_rate(lc);
	vals[R_L2_WRITE_BYTES_24H] = l2arc_wear_24h(lc);
	vals[R_LOCK_HOLD_MAX_US] =
		div_u64(lc->gauge[L2ARC_GAUGE_LOCK_HOLD_MAX_NS], NSEC_PER_USEC);
	l2arc_unlock(lc);

	vals[R_C_MIN] = lc->c_min << shift;
	vals[R_C_MAX] = lc->c_max << shift;

	vals[R_BUF_POOL_SIZE] = (u64)l2arc_pages_count(&lc->pages) << PAGE_SHIFT;
	vals[R_RUNS_DEFERRED] = atomic64_read(&lc->iop.runs_deferred);
	vals[R_L2_NDEV] = lc->cache && !READ_ONCE(lc->l2.failed);
	vals[R_L2_DEGRADED] = READ_ONCE(lc->l2.failed);
	vals[R_L2_DWPD_CAP] = l2arc_dwpd_cap(lc);
	l2arc_lat_pair(lc, &vals[R_L2_READ_LATENCY_US],
		       &vals[R_ORIGIN_READ_LATENCY_US]);
	vals[R_L2_SIZE] = l2_blocks << shift;
	vals[R_L2_ASIZE] = l2_blocks << shift;
	vals[R_L2_ONLY_BLOCKS] = l2only + indexed;
	vals[R_L2_HDR_SIZE] = l2only * sizeof(struct arc_hdr) +
			      l2arc_index_bytes(&lc->l2.ix);
	vals[R_L2_PREFETCH_ASIZE] = l2_class[L2ARC_CLASS_PREFETCH] << shift;
	vals[R_L2_MRU_ASIZE] = l2_class[L2ARC_CLASS_MRU] << shift;
	vals[R_L2_MFU_ASIZE] = l2_class[L2ARC_CLASS_MFU] << shift;
	vals[R_L2_LOG_BLK_COUNT] = lc->persist.log_nr;
	vals[R_L2_LOG_BLK_ASIZE] = lc->persist.meta_blocks << shift;
	vals[R_L2_REBUILD_SIZE] = vals[R_L2_REBUILD_BUFS] << shift;
	vals[R_L2_REBUILD_ASIZE] = vals[R_L2_REBUILD_SIZE];
}

static void l2arc_kstat_show(struct seq_file *m, int kid, u64 crtime,
			     const u64 *vals)
{
	unsigned int i;

	seq_printf(m, "%d 1 0x01 %d %d %llu %llu\n", kid, R_NR,
		   R_NR * KSTAT_NAMED_SIZE, crtime, ktime_get_ns());
	seq_printf(m, "%-31s %-4s %s\n", "name", "type", "data");
	for (i = 0; i < R_NR; i++)
		seq_printf(m, "%-31s %-4d %llu\n", l2arc_row_names[i],
			   KSTAT_DATA_UINT64, vals[i]);
}

static int l2arc_dev_arcstats_show(struct seq_file *m, void *v)
{
	struct l2arc_c *lc = m->private;
	u64 vals[R_NR];

	l2arc_stats_snapshot(lc, vals);
	l2arc_kstat_show(m, lc->kstat.kid, lc->kstat.crtime, vals);
	return 0;
}

/* Row @r of @sum is the largest of the devices' (the sum added @vals). */
static void l2arc_sum_max(u64 *sum, const u64 *vals, enum l2arc_row r)
{
	sum[r] = max(sum[r] - vals[r], vals[r]);
}

/* /proc/dm-l2arc/dm-N/whatif: the device's what-if simulations. */
static int l2arc_dev_whatif_show(struct seq_file *m, void *v)
{
	struct l2arc_c *lc = m->private;

	l2arc_whatif_show(m, lc->whatif);
	return 0;
}

/* Add the rows @vals of one device or pool to @sum (maxima: the largest). */
static void l2arc_sum_add(u64 *sum, const u64 *vals)
{
	unsigned int i;

	for (i = 0; i < R_NR; i++)
		sum[i] += vals[i];
	/* maxima, not sums */
	l2arc_sum_max(sum, vals, R_LOCK_HOLD_MAX_US);
	l2arc_sum_max(sum, vals, R_L2_READ_LATENCY_US);
	l2arc_sum_max(sum, vals, R_ORIGIN_READ_LATENCY_US);
}

/*
 * The rows of @pool in @sum: its members' (@vals is scratch room for one)
 * plus the counts of those that left, with the ARC's rows once, its own.
 * l2arc_pools_mutex held.
 */
static void l2arc_stats_pool_snapshot(struct l2arc_pool *pool, u64 *sum,
				      u64 *vals)
{
	unsigned int shift = pool->block_shift + SECTOR_SHIFT, i;
	struct arc *arc = &pool->arc;
	u64 hashed_max = 0;
	struct l2arc_c *lc;

	lockdep_assert_held(&l2arc_pools_mutex);
	memset(sum, 0, R_NR * sizeof(*sum));
	list_for_each_entry(lc, &pool->members, pool_node) {
		l2arc_stats_snapshot(lc, vals);
		hashed_max = max(hashed_max, vals[R_HASH_ELEMENTS_MAX]);
		l2arc_sum_add(sum, vals);
	}
	for (i = 0; i < ARRAY_SIZE(l2arc_row_stat); i++)
		sum[l2arc_row_stat[i].row] +=
			pool->stat_gone[l2arc_row_stat[i].stat];
	spin_lock_bh(&arc->lock);
	l2arc_hitlog_apply_pool(pool);
	l2arc_stats_arc_rows(arc, shift, sum);
	sum[R_DELETED] = arc_evicted(arc);
	spin_unlock_bh(&arc->lock);
	sum[R_HASH_ELEMENTS_MAX] = max(hashed_max, sum[R_HASH_ELEMENTS]);
	sum[R_C_MIN] = pool->c_min << shift;
	sum[R_C_MAX] = pool->c_max << shift;
}

/* /proc/dm-l2arc/dm-N/arcstats of a pool: the same rows as a device's. */
static int l2arc_pool_arcstats_show(struct seq_file *m, void *v)
{
	struct l2arc_pool *pool = m->private;
	u64 *vals = kcalloc(2 * R_NR, sizeof(*vals), GFP_KERNEL);

	if (!vals)
		return -ENOMEM;
	mutex_lock(&l2arc_pools_mutex);
	l2arc_stats_pool_snapshot(pool, vals, vals + R_NR);
	mutex_unlock(&l2arc_pools_mutex);
	l2arc_kstat_show(m, pool->kstat.kid, pool->kstat.crtime, vals);
	kfree(vals);
	return 0;
}

/**
 * l2arc_stats_origin_line() - a pool member's line of the pool's origins
 *	file and of its "origins" message
 * @lc: the member
 * @buf: where the line goes, with its newline
 * @len: bytes of room at @buf (a shorter line is cut, as DMEMIT cuts)
 *
 * The fields, blank-separated: id, dmsetup name ("-" while it has none),
 * arc_size (bytes of its data in the pool's ARC), hits, iohits, misses
 * (its arcstats rows), arc_min (its floor, bytes, 0 for none), arc_max
 * (its ceiling, bytes, 0 for none), l2_size, l2_hits,
 * l2_misses, l2_write_bytes (its L2ARC's rows), its kernel name (dm-N).
 *
 * Context: process context, may sleep; l2arc_pools_mutex held.
 * Return: the characters written, not counting the terminating NUL.
 */
unsigned int l2arc_stats_origin_line(struct l2arc_c *lc, char *buf,
				     unsigned int len)
{
	unsigned int shift = lc->block_shift + SECTOR_SHIFT;
	char name[DM_NAME_LEN];
	u64 arc_blocks, l2_blocks;

	lockdep_assert_held(&l2arc_pools_mutex);
	l2arc_lock(lc);
	arc_blocks = lc->arc_blocks;
	l2_blocks = lc->l2.blocks;
	l2arc_unlock(lc);
	if (dm_copy_name_and_uuid(dm_table_get_md(lc->ti->table), name, NULL))
		strscpy(name, "-", sizeof(name));
	return scnprintf(buf, len,
			 "%u %s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %s\n",
			 l2arc_origin_id(lc), name, arc_blocks << shift,
			 l2arc_stat_read(lc, L2ARC_STAT_HITS),
			 l2arc_stat_read(lc, L2ARC_STAT_IOHITS),
			 l2arc_stat_read(lc, L2ARC_STAT_MISSES),
			 lc->c_min << shift, lc->ceiling << shift,
			 l2_blocks << shift,
			 l2arc_stat_read(lc, L2ARC_STAT_L2_HITS),
			 l2arc_stat_read(lc, L2ARC_STAT_L2_MISSES),
			 l2arc_stat_read(lc, L2ARC_STAT_L2_WRITE_BYTES),
			 lc->name);
}

/* /proc/dm-l2arc/dm-N/origins of a pool: a header, then each member. */
static int l2arc_pool_origins_show(struct seq_file *m, void *v)
{
	struct l2arc_pool *pool = m->private;
	char *line = kmalloc(PAGE_SIZE, GFP_KERNEL);
	struct l2arc_c *lc;

	if (!line)
		return -ENOMEM;
	seq_puts(m, "id name arc_size hits iohits misses arc_min arc_max l2_size l2_hits l2_misses l2_write_bytes device\n");
	mutex_lock(&l2arc_pools_mutex);
	list_for_each_entry(lc, &pool->members, pool_node) {
		l2arc_stats_origin_line(lc, line, PAGE_SIZE);
		seq_puts(m, line);
	}
	mutex_unlock(&l2arc_pools_mutex);
	kfree(line);
	return 0;
}

static int l2arc_sum_arcstats_show(struct seq_file *m, void *v)
{
	struct l2arc_pool *pool;
	struct l2arc_c *lc;
	u64 *vals, *sum;

	/* 3 x 110 rows: off the stack (over 2 KiB with KASAN's redzones) */
	vals = kcalloc(3 * R_NR, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	sum = vals + 2 * R_NR;
	mutex_lock(&l2arc_stats_mutex);
	list_for_each_entry(lc, &l2arc_devices, kstat.node) {
		if (lc->pool)
			continue;	/* in its pool's rows */
		l2arc_stats_snapshot(lc, vals);
		l2arc_sum_add(sum, vals);
	}
	list_for_each_entry(pool, &l2arc_pool_kstats, kstat.node) {
		mutex_lock(&l2arc_pools_mutex);
		l2arc_stats_pool_snapshot(pool, vals, vals + R_NR);
		mutex_unlock(&l2arc_pools_mutex);
		l2arc_sum_add(sum, vals);
	}
	mutex_unlock(&l2arc_stats_mutex);
	l2arc_kstat_show(m, 0, l2arc_sum_crtime, sum);
	kfree(vals);
	return 0;
}

/*
 * Create /proc/dm-l2arc/@name with "arcstats" (@arcstats_show) and @second
 * (@second_show), both reading @data, and put @ks on @list; nothing when
 * @ks has its entry already.  Failures are logged and leave no entry.
 */
static void l2arc_kstat_add(struct l2arc_kstat *ks, struct list_head *list,
			    const char *name,
			    int (*arcstats_show)(struct seq_file *, void *),
			    const char *second,
			    int (*second_show)(struct seq_file *, void *),
			    void *data)
{
	struct proc_dir_entry *dir;

	mutex_lock(&l2arc_stats_mutex);
	if (ks->proc)
		goto out;
	dir = proc_mkdir(name, l2arc_proc_root);
	if (!dir) {
		DMERR("%s: cannot create /proc/dm-l2arc/%s", name, name);
		goto out;
	}
	if (!proc_create_single_data("arcstats", 0444, dir, arcstats_show,
				     data) ||
	    !proc_create_single_data(second, 0444, dir, second_show, data)) {
		DMERR("%s: cannot create arcstats or %s", name, second);
		proc_remove(dir);
		goto out;
	}
	ks->proc = dir;
	ks->kid = ++l2arc_next_kid;
	list_add_tail(&ks->node, list);
out:
	mutex_unlock(&l2arc_stats_mutex);
}

/* Remove @ks's entry, if any, waiting for its readers. */
static void l2arc_kstat_del(struct l2arc_kstat *ks)
{
	mutex_lock(&l2arc_stats_mutex);
	if (ks->proc) {
		proc_remove(ks->proc);
		ks->proc = NULL;
		list_del_init(&ks->node);
	}
	mutex_unlock(&l2arc_stats_mutex);
}

/**
 * l2arc_stats_register() - give a live device its /proc entry
 * @lc: the device; its @name is the mapped device's kernel name
 *
 * Idempotent.  Failures are logged and leave the device without an entry
 * (statistics are not worth failing a resume).
 *
 * Context: process context, may sleep.
 */
void l2arc_stats_register(struct l2arc_c *lc)
{
	l2arc_kstat_add(&lc->kstat, &l2arc_devices, lc->name,
			l2arc_dev_arcstats_show, "whatif",
			l2arc_dev_whatif_show, lc);
}

/**
 * l2arc_stats_unregister() - remove a device's /proc entry, if any
 * @lc: the device
 *
 * Waits for readers of the entry to finish.
 *
 * Context: process context, may sleep.
 */
void l2arc_stats_unregister(struct l2arc_c *lc)
{
	l2arc_kstat_del(&lc->kstat);
}

/**
 * l2arc_stats_pool_register() - give a pool its /proc entry
 * @pool: the pool; its @name is its mapped device's kernel name
 *
 * /proc/dm-l2arc/<name>/arcstats (the pool's rows) and origins (its
 * members).  Idempotent; failures are logged and leave the pool without
 * an entry.
 *
 * Context: process context, may sleep; not under l2arc_pools_mutex.
 */
void l2arc_stats_pool_register(struct l2arc_pool *pool)
{
	l2arc_kstat_add(&pool->kstat, &l2arc_pool_kstats, pool->name,
			l2arc_pool_arcstats_show, "origins",
			l2arc_pool_origins_show, pool);
}

/**
 * l2arc_stats_pool_unregister() - remove a pool's /proc entry, if any
 * @pool: the pool, about to be freed
 *
 * Waits for readers of the entry to finish.
 *
 * Context: process context, may sleep; not under l2arc_pools_mutex.
 */
void l2arc_stats_pool_unregister(struct l2arc_pool *pool)
{
	l2arc_kstat_del(&pool->kstat);
}

/**
 * l2arc_stats_init() - create /proc/dm-l2arc and its summed arcstats
 *
 * Return: 0 or -ENOMEM.
 */
int l2arc_stats_init(void)
{
	l2arc_sum_crtime = ktime_get_ns();
	l2arc_proc_root = proc_mkdir("dm-l2arc", NULL);
	if (!l2arc_proc_root)
		return -ENOMEM;
	if (!proc_create_single("arcstats", 0444, l2arc_proc_root,
				l2arc_sum_arcstats_show)) {
		proc_remove(l2arc_proc_root);
		return -ENOMEM;
	}
	return 0;
}

/** l2arc_stats_exit() - remove /proc/dm-l2arc (all devices are gone) */
void l2arc_stats_exit(void)
{
	proc_remove(l2arc_proc_root);
}

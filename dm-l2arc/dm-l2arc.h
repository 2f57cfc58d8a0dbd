/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: private header shared by the target's files.
 *
 * Glossary:
 *   origin      the slow device (an HDD) that always holds the truth
 *   cache dev   the fast device (SSD/NVMe) that holds the L2ARC
 *   block       the unit of caching, block_sectors * 512 bytes
 *   oblock      a block number on the origin (oblock_t, see arc.h)
 *   ARC         the in-RAM adaptive replacement cache (arc.c)
 *   L2ARC       the second cache level on the cache device
 *
 * Prototypes are grouped by the file that defines them.
 */
#ifndef DM_L2ARC_H
#define DM_L2ARC_H

#include <linux/average.h>
#include <linux/bio.h>
#include <linux/device-mapper.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "arc.h"
#include "compat.h"
#include "format.h"
#include "hitlog.h"
#include "l2index.h"
#include "origin.h"
#include "zfetch.h"

struct l2arc_whatif;

/* Each file that logs names itself before it includes this header. */
#ifndef DM_MSG_PREFIX
#define DM_MSG_PREFIX "l2arc"
#endif

/* Block size limits, in 512-byte sectors: 4 KiB to 1 MiB. */
#define L2ARC_BLOCK_SECTORS_MIN		8
#define L2ARC_BLOCK_SECTORS_MAX		2048

/* The ARC holds at least this many blocks (arc_max, arc_min). */
#define L2ARC_ARC_MIN_BLOCKS		16

/* Smallest ARC a parameter may ask for: 16 blocks of 4 KiB, in bytes. */
#define L2ARC_ARC_MIN_BYTES		(16ULL * 4096)

/* Defaults of the module parameters arc_max and arc_min, in bytes. */
#define L2ARC_ARC_MAX_DEFAULT		(256ULL << 20)
#define L2ARC_ARC_MIN_DEFAULT		(16ULL << 20)

/* Default of zfetch_max_distance, in bytes (OpenZFS <= 2.1's value). */
#define L2ARC_ZFETCH_MAX_DISTANCE_DEFAULT	(8ULL << 20)

/*
 * A list walk that lost its place across a lock drop (its next header
 * moved) starts the list again; after this many restarts it keeps the
 * lock to the end of the list.
 */
#define L2ARC_SCAN_RESTARTS		16

/* No ARC may be larger than the machine's memory, in bytes. */
#define L2ARC_ARC_MAX_BYTES		((u64)totalram_pages() << PAGE_SHIFT)

/**
 * enum l2arc_param_id - module parameters (params.c)
 * @L2ARC_P_ARC_MAX: default arc_max, bytes
 * @L2ARC_P_ARC_MIN: arc_min, bytes
 * @L2ARC_P_PREFETCH_DISABLE: 0/1
 * @L2ARC_P_ZFETCH_MAX_DISTANCE: bytes
 * @L2ARC_P_WRITE_MAX: l2arc_write_max, bytes per feed (per device too)
 * @L2ARC_P_WRITE_BOOST: l2arc_write_boost, bytes per feed (per device too)
 * @L2ARC_P_NOPREFETCH: l2arc_noprefetch, 0/1 (per device too)
 * @L2ARC_P_HEADROOM: l2arc_headroom, multiple of the budget (per device too)
 * @L2ARC_P_FEED_SECS: l2arc_feed_secs, s (per device too)
 * @L2ARC_P_FEED_MIN_MS: l2arc_feed_min_ms, ms (per device too)
 * @L2ARC_P_FEED_AGAIN: l2arc_feed_again, 0/1 (per device too)
 * @L2ARC_P_MAX_ERRORS: l2arc_max_errors, count (per device too)
 * @L2ARC_P_DWPD_LIMIT: l2arc_dwpd_limit, % of one drive write per day
 *                      (0: no wear cap; per device too)
 * @L2ARC_P_MFUONLY: l2arc_mfuonly, 0/1: 1 writes only T2's blocks (read
 *                   at least twice) to the cache device (per device too)
 * @L2ARC_P_META_PERCENT: l2arc_meta_percent, % of RAM
 * @L2ARC_P_ARC_SYS_FREE: arc_sys_free, bytes (0: l2arc_sys_free() chooses)
 * @L2ARC_P_HANDOFF_MAX: l2arc_handoff_max, bytes a device's hand-off queue
 *                       may hold (0: no hand-off)
 * @L2ARC_P_REBUILD_ENABLED: l2arc_rebuild_enabled, 0/1 (the table feature
 *                           l2arc_rebuild overrides it per device)
 * @L2ARC_P_REBUILD_MIN_L2SIZE: l2arc_rebuild_blocks_min_l2size, bytes: a
 *                              smaller cache device holds no metadata
 * @L2ARC_P_SLOW_BYPASS_PCT: l2arc_slow_bypass_pct, % of the origin's read
 *                           latency above which the cache device's sends
 *                           L2 hits to the origin (0: never)
 * @L2ARC_P_WHATIF: l2arc_whatif, 0/1: new devices get the what-if
 *                  simulations (the table feature whatif overrides it)
 * @L2ARC_P_ORIGIN_CHECK_MS: origin_check_ms, ms between two looks at the
 *                           origin's write count (origin.c)
 * @L2ARC_P_NR: number of parameters
 */
enum l2arc_param_id {
	L2ARC_P_ARC_MAX,
	L2ARC_P_ARC_MIN,
	L2ARC_P_PREFETCH_DISABLE,
	L2ARC_P_ZFETCH_MAX_DISTANCE,
	L2ARC_P_WRITE_MAX,
	L2ARC_P_WRITE_BOOST,
	L2ARC_P_NOPREFETCH,
	L2ARC_P_HEADROOM,
	L2ARC_P_FEED_SECS,
	L2ARC_P_FEED_MIN_MS,
	L2ARC_P_FEED_AGAIN,
	L2ARC_P_MAX_ERRORS,
	L2ARC_P_DWPD_LIMIT,
	L2ARC_P_MFUONLY,
	L2ARC_P_META_PERCENT,
	L2ARC_P_ARC_SYS_FREE,
	L2ARC_P_HANDOFF_MAX,
	L2ARC_P_REBUILD_ENABLED,
	L2ARC_P_REBUILD_MIN_L2SIZE,
	L2ARC_P_SLOW_BYPASS_PCT,
	L2ARC_P_WHATIF,
	L2ARC_P_ORIGIN_CHECK_MS,
	L2ARC_P_NR,
};

/* The tunables a device may override (table features, messages). */
#define L2ARC_P_DEV_FIRST	L2ARC_P_WRITE_MAX
#define L2ARC_P_DEV_LAST	L2ARC_P_MFUONLY
#define L2ARC_NR_DEV_PARAMS	(L2ARC_P_DEV_LAST - L2ARC_P_DEV_FIRST + 1)

/**
 * struct l2arc_tunables - a device's own values of the per-device tunables
 * @val: values, indexed by id - %L2ARC_P_DEV_FIRST
 * @set: bit i set when @val[i] is the device's own (else the module's
 *       value is in force); changed with set_bit()/clear_bit()
 */
struct l2arc_tunables {
	u64 val[L2ARC_NR_DEV_PARAMS];
	unsigned long set;
};

/**
 * struct l2arc_table - a parsed table line (see table.c for the grammar)
 * @origin_path: origin device as given (points into the ctr's argv)
 * @cache_path: cache device as given, or NULL for "-" (ARC only)
 * @block_sectors: block size in 512-byte sectors, power of two, 8..2048
 * @arc_max: this device's ARC size in bytes (valid if @arc_max_set)
 * @arc_max_set: the table gave arc_max
 * @arc_min: this device's arc_min in bytes, at most @arc_max (valid if
 *	@arc_min_set)
 * @arc_min_set: the table gave arc_min
 * @prefetch_disable: no stream detection (valid if @prefetch_disable_set)
 * @prefetch_disable_set: the table gave prefetch_disable
 * @rebuild: rebuild the L2ARC from the cache device at load (valid if
 *           @rebuild_set)
 * @rebuild_set: the table gave l2arc_rebuild
 * @whatif: run the what-if simulations (valid if @whatif_set)
 * @whatif_set: the table gave whatif
 * @tun: per-device tunables the table gave (l2arc_write_max, ...)
 * @features: "<#features> <feature>..." verbatim for status TABLE, or NULL
 *            when the line had no feature words; kmalloc'ed
 */
struct l2arc_table {
	const char *origin_path;
	const char *cache_path;
	u32 block_sectors;
	u64 arc_max;
	bool arc_max_set;
	u64 arc_min;
	bool arc_min_set;
	bool prefetch_disable;
	bool prefetch_disable_set;
	bool rebuild;
	bool rebuild_set;
	bool whatif;
	bool whatif_set;
	struct l2arc_tunables tun;
	char *features;
};

/**
 * enum l2arc_stat - counters of one device, in the order of its arcstats
 * rows (stats.c names them)
 * @L2ARC_STAT_HITS: reads served from the ARC, no I/O (row hits)
 * @L2ARC_STAT_IOHITS: reads that joined an in-flight fill (row iohits)
 * @L2ARC_STAT_MISSES: reads that started an origin read (row misses)
 * @L2ARC_STAT_DEMAND_DATA_HITS: row demand_data_hits
 * @L2ARC_STAT_DEMAND_DATA_IOHITS: row demand_data_iohits
 * @L2ARC_STAT_DEMAND_DATA_MISSES: row demand_data_misses
 * @L2ARC_STAT_PREFETCH_DATA_HITS: row prefetch_data_hits
 * @L2ARC_STAT_PREFETCH_DATA_IOHITS: row prefetch_data_iohits
 * @L2ARC_STAT_PREFETCH_DATA_MISSES: row prefetch_data_misses
 * @L2ARC_STAT_MRU_HITS: row mru_hits
 * @L2ARC_STAT_MRU_GHOST_HITS: row mru_ghost_hits
 * @L2ARC_STAT_MFU_HITS: row mfu_hits
 * @L2ARC_STAT_MFU_GHOST_HITS: row mfu_ghost_hits
 * @L2ARC_STAT_PREDICTIVE_PREFETCH: read-ahead fills issued (row
 *	predictive_prefetch)
 * @L2ARC_STAT_DEMAND_HIT_PREDICTIVE_PREFETCH: row
 *	demand_hit_predictive_prefetch
 * @L2ARC_STAT_MEMORY_THROTTLE: reads sent uncached: no memory (row
 *	memory_throttle_count)
 * @L2ARC_STAT_FILL_DISCARDED: fills not installed: raced a write (row
 *	fills_discarded)
 * @L2ARC_STAT_ORIGIN_READ_ERRORS: fills whose origin read failed (row
 *	origin_read_errors)
 * @L2ARC_STAT_WRITES: blocks written through (row writes)
 * @L2ARC_STAT_WRITE_INVALIDATES: cached blocks dropped by writes (row
 *	write_invalidates)
 * @L2ARC_STAT_SHRINKS: blocks given back to the shrinker (row arc_shrinks)
 * @L2ARC_STAT_L2_HITS: ARC misses read from the cache dev (row l2_hits)
 * @L2ARC_STAT_L2_MISSES: ARC misses not on the cache dev (row l2_misses)
 * @L2ARC_STAT_L2_FEEDS: feeds that scanned the ARC (row l2_feeds)
 * @L2ARC_STAT_L2_RW_CLASH: L2 miss: its feed write in flight (row
 *	l2_rw_clash)
 * @L2ARC_STAT_L2_READ_BYTES: row l2_read_bytes
 * @L2ARC_STAT_L2_WRITE_BYTES: row l2_write_bytes
 * @L2ARC_STAT_L2_WRITES_SENT: feed bios (row l2_writes_sent)
 * @L2ARC_STAT_L2_WRITES_DONE: row l2_writes_done
 * @L2ARC_STAT_L2_WRITES_ERROR: row l2_writes_error
 * @L2ARC_STAT_L2_EVICT_READING: evicted ahead while being read (row
 *	l2_evict_reading)
 * @L2ARC_STAT_L2_EVICT_L1CACHED: evicted ahead, still in the ARC (row
 *	l2_evict_l1cached)
 * @L2ARC_STAT_L2_EVICT_AHEAD: L2 copies evicted by the hand (row
 *	l2_evict_ahead)
 * @L2ARC_STAT_L2_ABORT_LOWMEM: feeds skipped: header memory (row
 *	l2_abort_lowmem)
 * @L2ARC_STAT_L2_CKSUM_BAD: row l2_cksum_bad
 * @L2ARC_STAT_L2_IO_ERROR: row l2_io_error
 * @L2ARC_STAT_L2_HDR_DROPPED: L2-only headers the shrinker took (row
 *	l2_hdr_dropped)
 * @L2ARC_STAT_EVICT_L2_CACHED: bytes evicted from ARC, on L2 (row
 *	evict_l2_cached)
 * @L2ARC_STAT_EVICT_L2_ELIGIBLE: bytes evicted, could have gone (row
 *	evict_l2_eligible)
 * @L2ARC_STAT_EVICT_L2_INELIGIBLE: bytes evicted, could not (row
 *	evict_l2_ineligible)
 * @L2ARC_STAT_READS_AROUND_WRITES: read around, write in flight (row
 *	reads_around_writes)
 * @L2ARC_STAT_L2_WRITE_INVALIDATES: L2 copies dropped by writes (row
 *	l2_write_invalidates)
 * @L2ARC_STAT_READ_BIOS: demand read bios mapped (row read_bios)
 * @L2ARC_STAT_FILL_RUNS: origin reads of fills (runs) (row fill_runs)
 * @L2ARC_STAT_FILL_RUN_BLOCKS: blocks in them (row fill_run_blocks)
 * @L2ARC_STAT_L2_READ_RUNS: cache device reads (runs) (row l2_read_runs)
 * @L2ARC_STAT_L2_READ_RUN_BLOCKS: blocks in them (row l2_read_run_blocks)
 * @L2ARC_STAT_PREFETCH_EVICTED_UNUSED: read ahead, never demanded (row
 *	prefetch_evicted_unused)
 * @L2ARC_STAT_FILL_RUN_BRIDGED: resident blocks runs read over (row
 *	fill_run_bridged)
 * @L2ARC_STAT_L2_HANDOFFS: evicted blocks handed to the feed (row
 *	l2_handoffs)
 * @L2ARC_STAT_L2_EVICT_MISSED: eligible, evicted, queue full (row
 *	l2_evict_missed)
 * @L2ARC_STAT_L2_LOG_BLK_WRITES: log blocks written (row l2_log_blk_writes)
 * @L2ARC_STAT_L2_REBUILD_SUCCESS: rebuilds that ran to the end (row
 *	l2_rebuild_success)
 * @L2ARC_STAT_L2_REBUILD_UNSUPPORTED: header of another version (row
 *	l2_rebuild_unsupported)
 * @L2ARC_STAT_L2_REBUILD_IO_ERRORS: rebuild reads that failed (row
 *	l2_rebuild_io_errors)
 * @L2ARC_STAT_L2_REBUILD_DH_ERRORS: header: bad checksum, mismatch (row
 *	l2_rebuild_dh_errors)
 * @L2ARC_STAT_L2_REBUILD_CKSUM_LB_ERRORS: log blocks: bad checksum (row
 *	l2_rebuild_cksum_lb_errors)
 * @L2ARC_STAT_L2_REBUILD_LOWMEM: rebuilds stopped: header memory (row
 *	l2_rebuild_lowmem)
 * @L2ARC_STAT_L2_REBUILD_BUFS: blocks the rebuild made L2-only (row
 *	l2_rebuild_bufs)
 * @L2ARC_STAT_L2_REBUILD_LOG_BLKS: log blocks read with entries (row
 *	l2_rebuild_log_blks)
 * @L2ARC_STAT_L2_REBUILD_UNCLEAN: header in use: not shut cleanly (row
 *	l2_rebuild_unclean)
 * @L2ARC_STAT_L2_REBUILD_SKIPPED: entries written or read meanwhile (row
 *	l2_rebuild_skipped)
 * @L2ARC_STAT_L2_REBUILD_ORIGIN_CHANGED: another origin or written (row
 *	l2_rebuild_origin_changed)
 * @L2ARC_STAT_ORIGIN_CHANGED_DROPS: resumes that dropped the cache (row
 *	origin_changed_drops)
 * @L2ARC_STAT_L2_SLOW_BYPASS: L2 hits read from the origin: slow (row
 *	l2_slow_bypass)
 * @L2ARC_STAT_LOCK_CONTENDED: takings of arc.lock that found it held and
 *	waited (row lock_contended)
 * @L2ARC_STAT_ORIGIN_FOREIGN_WRITES: drops of everything cached: the
 *	origin took writes that did not come through the device (row
 *	origin_foreign_writes)
 * @L2ARC_STAT_L2_ORIGIN_PROBES: L2 hits read from the origin to measure
 *	it on reads of their size (row l2_origin_probes)
 * @L2ARC_STAT_NR: the number of counters
 *
 * All count blocks (one per block a bio touches) unless the name says
 * bytes.  Per CPU (struct l2arc_stats): l2arc_stat_add() from any
 * context, with or without arc.lock; l2arc_stat_read() sums the CPUs
 * less the base that clear_stats set.  A reader that holds arc.lock sees
 * every count made under it.
 */
enum l2arc_stat {
	L2ARC_STAT_HITS,
	L2ARC_STAT_IOHITS,
	L2ARC_STAT_MISSES,
	L2ARC_STAT_DEMAND_DATA_HITS,
	L2ARC_STAT_DEMAND_DATA_IOHITS,
	L2ARC_STAT_DEMAND_DATA_MISSES,
	L2ARC_STAT_PREFETCH_DATA_HITS,
	L2ARC_STAT_PREFETCH_DATA_IOHITS,
	L2ARC_STAT_PREFETCH_DATA_MISSES,
	L2ARC_STAT_MRU_HITS,
	L2ARC_STAT_MRU_GHOST_HITS,
	L2ARC_STAT_MFU_HITS,
	L2ARC_STAT_MFU_GHOST_HITS,
	L2ARC_STAT_PREDICTIVE_PREFETCH,
	L2ARC_STAT_DEMAND_HIT_PREDICTIVE_PREFETCH,
	L2ARC_STAT_MEMORY_THROTTLE,
	L2ARC_STAT_FILL_DISCARDED,
	L2ARC_STAT_ORIGIN_READ_ERRORS,
	L2ARC_STAT_WRITES,
	L2ARC_STAT_WRITE_INVALIDATES,
	L2ARC_STAT_SHRINKS,
	L2ARC_STAT_L2_HITS,
	L2ARC_STAT_L2_MISSES,
	L2ARC_STAT_L2_FEEDS,
	L2ARC_STAT_L2_RW_CLASH,
	L2ARC_STAT_L2_READ_BYTES,
	L2ARC_STAT_L2_WRITE_BYTES,
	L2ARC_STAT_L2_WRITES_SENT,
	L2ARC_STAT_L2_WRITES_DONE,
	L2ARC_STAT_L2_WRITES_ERROR,
	L2ARC_STAT_L2_EVICT_READING,
	L2ARC_STAT_L2_EVICT_L1CACHED,
	L2ARC_STAT_L2_EVICT_AHEAD,
	L2ARC_STAT_L2_ABORT_LOWMEM,
	L2ARC_STAT_L2_CKSUM_BAD,
	L2ARC_STAT_L2_IO_ERROR,
	L2ARC_STAT_L2_HDR_DROPPED,
	L2ARC_STAT_EVICT_L2_CACHED,
	L2ARC_STAT_EVICT_L2_ELIGIBLE,
	L2ARC_STAT_EVICT_L2_INELIGIBLE,
	L2ARC_STAT_READS_AROUND_WRITES,
	L2ARC_STAT_L2_WRITE_INVALIDATES,
	L2ARC_STAT_READ_BIOS,
	L2ARC_STAT_FILL_RUNS,
	L2ARC_STAT_FILL_RUN_BLOCKS,
	L2ARC_STAT_L2_READ_RUNS,
	L2ARC_STAT_L2_READ_RUN_BLOCKS,
	L2ARC_STAT_PREFETCH_EVICTED_UNUSED,
	L2ARC_STAT_FILL_RUN_BRIDGED,
	L2ARC_STAT_L2_HANDOFFS,
	L2ARC_STAT_L2_EVICT_MISSED,
	L2ARC_STAT_L2_LOG_BLK_WRITES,
	L2ARC_STAT_L2_REBUILD_SUCCESS,
	L2ARC_STAT_L2_REBUILD_UNSUPPORTED,
	L2ARC_STAT_L2_REBUILD_IO_ERRORS,
	L2ARC_STAT_L2_REBUILD_DH_ERRORS,
	L2ARC_STAT_L2_REBUILD_CKSUM_LB_ERRORS,
	L2ARC_STAT_L2_REBUILD_LOWMEM,
	L2ARC_STAT_L2_REBUILD_BUFS,
	L2ARC_STAT_L2_REBUILD_LOG_BLKS,
	L2ARC_STAT_L2_REBUILD_UNCLEAN,
	L2ARC_STAT_L2_REBUILD_SKIPPED,
	L2ARC_STAT_L2_REBUILD_ORIGIN_CHANGED,
	L2ARC_STAT_ORIGIN_CHANGED_DROPS,
	L2ARC_STAT_L2_SLOW_BYPASS,
	L2ARC_STAT_LOCK_CONTENDED,
	L2ARC_STAT_ORIGIN_FOREIGN_WRITES,
	L2ARC_STAT_L2_ORIGIN_PROBES,
	L2ARC_STAT_NR,
};

/**
 * struct l2arc_stats - one CPU's counters of a device
 * @v: the counters, indexed by &enum l2arc_stat
 */
struct l2arc_stats {
	u64 v[L2ARC_STAT_NR];
};

/**
 * enum l2arc_gauge - values of a device that are set, not counted
 * @L2ARC_GAUGE_HASH_ELEMENTS_MAX: most headers at once (row
 *	hash_elements_max)
 * @L2ARC_GAUGE_LOCK_HOLD_MAX_NS: longest bulk hold of arc.lock, ns (row
 *	lock_hold_max_us)
 * @L2ARC_GAUGE_L2_REBUILD_TIME_MS: the last rebuild took, ms (row
 *	l2_rebuild_time_ms)
 * @L2ARC_GAUGE_NR: the number of gauges
 *
 * Under arc.lock (lock.h).
 */
enum l2arc_gauge {
	L2ARC_GAUGE_HASH_ELEMENTS_MAX,
	L2ARC_GAUGE_LOCK_HOLD_MAX_NS,
	L2ARC_GAUGE_L2_REBUILD_TIME_MS,
	L2ARC_GAUGE_NR,
};

/* Header flags of the target (arc.h leaves ARC_F_TARGET1..4 to us). */
#define L2ARC_F_L2_WRITING	ARC_F_L2_WRITING /* queued or being written */
#define L2ARC_F_CLASS_PREFETCH	ARC_F_TARGET1	/* on L2 as a prefetch block */
#define L2ARC_F_CLASS_MFU	ARC_F_TARGET2	/* on L2 as an MFU block */
#define L2ARC_F_HANDOFF		ARC_F_TARGET3	/* in the hand-off queue */

/* L2 size classes, by the block's ARC state when the feed wrote it. */
enum l2arc_class {
	L2ARC_CLASS_PREFETCH,
	L2ARC_CLASS_MRU,
	L2ARC_CLASS_MFU,
	L2ARC_NR_CLASSES,
};

/*
 * A copy's L2 size class lives in its header's flags (L2ARC_F_CLASS_*)
 * while a header owns the slot, and in the slot's bits (L2ARC_SLOT_PREFETCH,
 * L2ARC_SLOT_MFU) while it is indexed; these convert between the two and
 * to &enum l2arc_class.
 */
static inline u64 l2arc_class_to_slot(u8 hdr_flags)
{
	if (hdr_flags & L2ARC_F_CLASS_PREFETCH)
		return L2ARC_SLOT_PREFETCH;
	return hdr_flags & L2ARC_F_CLASS_MFU ? L2ARC_SLOT_MFU : 0;
}

static inline u8 l2arc_class_to_hdr(u64 slot_word)
{
	if (slot_word & L2ARC_SLOT_PREFETCH)
		return L2ARC_F_CLASS_PREFETCH;
	return slot_word & L2ARC_SLOT_MFU ? L2ARC_F_CLASS_MFU : 0;
}

static inline unsigned int l2arc_slot_class(u64 slot_word)
{
	if (slot_word & L2ARC_SLOT_PREFETCH)
		return L2ARC_CLASS_PREFETCH;
	return slot_word & L2ARC_SLOT_MFU ? L2ARC_CLASS_MFU : L2ARC_CLASS_MRU;
}

/**
 * struct l2arc_buf - one block's data, in order-0 pages (buf.c)
 * @ref: references (the ARC's while resident, a fill's, a reader's while
 *       it copies, the feed's while it writes or while the buffer waits in
 *       its hand-off queue)
 * @nr: pages, block size / PAGE_SIZE
 * @handoff_next: the next buffer of the hand-off queue (&l2arc_feed.handoff_head)
 * @handoff_hdr: the header of the block while the buffer is queued there
 *               (pinned, with %L2ARC_F_L2_WRITING)
 * @owner: the device whose buffer it is (headers come from one cache for
 *         every device: a lock-free hit may find another device's)
 * @oblock: the block whose data it holds, set once by the fill that reads
 *          it (U64_MAX before): a lock-free hit checks it and @owner after
 *          taking its reference (io.c, l2arc_map_hits())
 * @rcu: the buffer's memory is freed after an RCU grace period, so that a
 *       lock-free reader may try to take a reference (l2arc_buf_tryget())
 *       to one that has just been freed
 * @pages: the pages, in order
 */
struct l2arc_buf {
	refcount_t ref;
	u32 nr;
	struct l2arc_buf *handoff_next;
	struct arc_hdr *handoff_hdr;
	struct l2arc_c *owner;
	u64 oblock;
	struct rcu_head rcu;
	struct page *pages[];
};

/*
 * An empty page pool takes 2^this contiguous pages at once (buf.c): 16 pages,
 * 64 KiB, the largest segment many devices take (max_segment_size).
 */
#define L2ARC_PAGES_ORDER	4

/**
 * struct l2arc_pages - free pages of a device's freed buffers (buf.c)
 * @lock: protects the rest; nests inside arc.lock
 * @pages: the pages, linked by page->lru: put at the tail, taken from the
 *	head (first in, first out)
 * @nr: how many
 * @max: at most this many are kept
 * @refill_failed: jiffies of the last refill that found no
 *	2^%L2ARC_PAGES_ORDER contiguous pages (none is tried for a second
 *	after); read and written without @lock
 */
struct l2arc_pages {
	spinlock_t lock;	/* protects pages, nr */
	struct list_head pages;
	unsigned int nr;
	unsigned int max;
	unsigned long refill_failed;
};

/*
 * Read latencies, us: struct ewma_l2arc_lat, an EWMA of weight 1/8 with 4
 * bits of fraction (linux/average.h).
 */
DECLARE_EWMA(l2arc_lat, 4, 8)

/*
 * While the cache device is slow (l2arc_slow_bypass_pct), one L2 hit in
 * this many still reads it, so that its latency is still measured.
 */
#define L2ARC_SLOW_PROBE	16

/* A read counts for at most this many times the latency average so far. */
#define L2ARC_LAT_CLAMP		4

/*
 * Read latencies are kept per size class of the read, so that the cache
 * device and the origin are compared on reads of like size (one 4 KiB L2
 * hit against one 4 KiB miss, not against a 1 MiB read-ahead run): class
 * 0 up to 16 KiB, 1 up to 256 KiB, 2 larger.
 */
#define L2ARC_LAT_CLASSES	3
#define L2ARC_LAT_CLASS0_MAX	SZ_16K
#define L2ARC_LAT_CLASS1_MAX	SZ_256K

#include "io.h"
#include "pool.h"
#include "l2.h"
#include "feed.h"
#include "persist.h"
#include "stats.h"

/**
 * struct l2arc_c - one l2arc target instance
 * @ti: the dm target
 * @origin: origin device
 * @cache: cache device, or NULL when the table gave "-"
 * @table: the parsed table line (status TABLE replays @table.features)
 * @block_sectors: block size in sectors, power of two, 8..2048
 * @block_shift: log2(@block_sectors)
 * @block_pages: pages of one block's data (struct l2arc_buf)
 * @nr_blocks: blocks mapped by the target (ti->len / @block_sectors)
 * @c_max: this device's arc_max, in blocks; a pool member's is its pool's
 * @c_min: this device's arc_min, in blocks, 16..@c_max; for a pool
 *	member its floor in the pool's ARC (its table's arc_min, 0 without),
 *	under @arc->lock
 * @ceiling: a pool member's ceiling in the pool's ARC, blocks (its
 *	table's arc_max, 16..2^31; 0 without), held by the directory
 *	(arc_owner_set_max()); 0 for a device of its own
 * @arc: the ARC directory: @arc_own, or the pool's (&l2arc_pool.arc) for
 *       a member of a pool; @arc->lock also protects @gauge,
 *       @last_shrink, @arc_blocks and the l2_* fields
 * @arc_own: the ARC of a device of its own (unused by a pool member)
 * @pool: the pool whose ARC the device shares, or NULL (pool.c)
 * @pool_dev: the pool's mapped device, held open while a member, or NULL
 * @pool_node: link in the pool's members (l2arc_pools_mutex)
 * @key_base: the origin's id in the pool shifted to the high bits of its
 *	blocks' ARC keys (l2arc_key()); 0 for a device of its own
 * @arc_blocks: blocks whose data this device has in the ARC, under
 *	@arc->lock
 * @stats: counters per CPU, see &enum l2arc_stat (l2arc_stat_add())
 * @hitlog: ARC hits taken without @arc.lock, for its next holder (hitlog.c)
 * @stat_base: the sums of @stats at the last clear_stats, under @arc.lock
 *	(written there, read without it: a reader may see a clear in part)
 * @gauge: values set, not counted, see &enum l2arc_gauge; under @arc.lock
 * @zf: the streams read-ahead follows (zfetch.h; its own lock)
 * @last_shrink: jiffies of the shrinker's last scan
 * @arc_ready: @arc is initialised (for the dtr of a half-built target)
 * @shrinker: gives ARC memory back under pressure
 * @pages: free pages for new buffers
 * @name: "dm-<minor>" for a target at sector 0 of its mapped device,
 *        "dm-<minor>+<start sector>" for one further in (a concatenation);
 *        names the /proc entry, the shrinker and the workqueues
 * @tun: this device's own tunables (table features, messages)
 * @iop: the bio path's writes in flight, fills, workqueue (io.h)
 * @kstat: the arcstats file (stats.h)
 * @l2: the cache device's slots and reads (l2.h)
 * @feed: the feed, the hand-off queue and the wear cap (feed.h)
 * @persist: the persistent L2ARC and the origin's claim (persist.h)
 * @watch: the origin's writes by other devices (origin.h)
 * @whatif: the what-if simulations (whatif.h), or NULL when off
 *
 * @dwpd_tokens and @dwpd_at are changed by feeds only (@feed.mutex); the
 * buckets and the @win_* fields under @arc.lock (changed by feeds only).
 *
 * @l2.failed is also read without arc.lock.
 */
struct l2arc_c {
	struct dm_target *ti;
	struct dm_dev *origin;
	struct dm_dev *cache;
	struct l2arc_table table;
	u32 block_sectors;
	unsigned int block_shift;
	unsigned int block_pages;
	u64 nr_blocks;
	u64 c_max;
	u64 c_min;
	u64 ceiling;
	struct arc *arc;
	struct arc arc_own;
	struct l2arc_pool *pool;
	struct dm_dev *pool_dev;
	struct list_head pool_node;
	u64 key_base;
	u64 arc_blocks;
	struct l2arc_stats __percpu *stats;
	struct l2arc_hitlog hitlog;
	u64 stat_base[L2ARC_STAT_NR];
	u64 gauge[L2ARC_GAUGE_NR];
	struct l2arc_zfetch zf;
	unsigned long last_shrink;
	bool arc_ready;
	struct l2arc_shrinker shrinker;
	struct l2arc_pages pages;
	char name[48];
	struct l2arc_tunables tun;
	struct l2arc_l2 l2;
	struct l2arc_iopath iop;
	struct l2arc_kstat kstat;
	struct l2arc_feed feed;
	struct l2arc_persist persist;
	struct l2arc_watch watch;
	struct l2arc_whatif *whatif;
};

/**
 * l2arc_stat_add() - count @n in a device's counter @i
 * @lc: the device
 * @i: the counter
 * @n: the amount (negative to take back a count)
 *
 * Context: any; this CPU's copy, no lock needed.
 */
static inline void l2arc_stat_add(struct l2arc_c *lc, enum l2arc_stat i,
				  s64 n)
{
	this_cpu_add(lc->stats->v[i], n);
}

/**
 * l2arc_stat_inc() - count one in a device's counter @i
 * @lc: the device
 * @i: the counter
 *
 * Context: any.
 */
static inline void l2arc_stat_inc(struct l2arc_c *lc, enum l2arc_stat i)
{
	this_cpu_inc(lc->stats->v[i]);
}

/**
 * l2arc_stat_read() - a device's counter: the CPUs' sum since clear_stats
 * @lc: the device
 * @i: the counter
 *
 * Context: any.  Counts made under arc.lock are all seen by a caller that
 * holds it; others may be seen in part.
 * Return: the sum over every possible CPU less @lc->stat_base (arithmetic
 * of unsigned 64-bit counters, so a count taken back on another CPU than
 * the one that made it still sums right).
 */
static inline u64 l2arc_stat_read(struct l2arc_c *lc, enum l2arc_stat i)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(lc->stats, cpu)->v[i];
	return sum - READ_ONCE(lc->stat_base[i]);
}

/**
 * l2arc_watch_sent() - a write of @sectors is about to go to the origin
 * @lc: the device
 * @sectors: its length
 *
 * Counted here for an origin that counts a bio when it starts (origin.c).
 *
 * Context: any (the map).
 */
static inline void l2arc_watch_sent(struct l2arc_c *lc, unsigned int sectors)
{
	if (lc->watch.at_start)
		this_cpu_add(*lc->watch.ours, sectors);
}

/**
 * l2arc_watch_done() - a write of @sectors to the origin completed
 * @lc: the device
 * @sectors: its length
 *
 * Counted here for an origin that counts a bio when it completes.
 *
 * Context: any, hard interrupt context included (end_io).
 */
static inline void l2arc_watch_done(struct l2arc_c *lc, unsigned int sectors)
{
	if (!lc->watch.at_start)
		this_cpu_add(*lc->watch.ours, sectors);
}

void l2arc_stat_read_all(struct l2arc_c *lc, u64 *v);
void l2arc_stat_clear(struct l2arc_c *lc);

#include "lock.h"

/* Largest metadata read or write, bytes. */
#define L2ARC_META_IO_BYTES	SZ_1M

/**
 * l2arc_block_bytes() - the device's block size
 * @lc: the device
 *
 * Return: bytes, 4 KiB to 1 MiB.
 */
static inline unsigned int l2arc_block_bytes(const struct l2arc_c *lc)
{
	return lc->block_sectors << SECTOR_SHIFT;
}

/**
 * l2arc_slot_sector() - where a slot's copy is on the cache device
 * @lc: the device
 * @slot: the slot, 0..l2.nr_slots - 1
 *
 * Return: its first sector (slots follow the header and the log blocks).
 */
static inline sector_t l2arc_slot_sector(const struct l2arc_c *lc, u64 slot)
{
	return (sector_t)(lc->persist.meta_blocks + slot) << lc->block_shift;
}

/**
 * l2arc_log_dirty() - the log block of @slot must be written again
 * @lc: the device
 * @slot: a slot whose valid copy appeared or went
 *
 * Context: arc.lock held.
 */
static inline void l2arc_log_dirty(struct l2arc_c *lc, u64 slot)
{
	if (lc->persist.enabled && slot < lc->l2.nr_slots)
		__set_bit(div_u64(slot, L2ARC_LOG_ENTRIES), lc->persist.log_dirty);
}

/**
 * l2arc_key() - the ARC key of a block of the device's origin
 * @lc: the device
 * @b: the block, 0..@lc->nr_blocks - 1 (below 2^%L2ARC_KEY_BLOCK_BITS)
 *
 * The origin's id in its pool (0 for a device of its own) in the high
 * bits, the block in the low ones, so that the origins of one pool share
 * one ARC directory without two blocks sharing a key.
 *
 * Return: the key.
 */
static inline oblock_t l2arc_key(const struct l2arc_c *lc, u64 b)
{
	return to_oblock(lc->key_base | b);
}

/**
 * l2arc_key_block() - the origin block of an ARC key
 * @key: a key from l2arc_key()
 *
 * Return: the block, below 2^%L2ARC_KEY_BLOCK_BITS.
 */
static inline u64 l2arc_key_block(oblock_t key)
{
	return from_oblock(key) & (BIT_ULL(L2ARC_KEY_BLOCK_BITS) - 1);
}

/**
 * l2arc_key_id() - the origin id of an ARC key
 * @key: a key from l2arc_key()
 *
 * Return: the id, 0 (a device of its own) to %L2ARC_POOL_MAX_ORIGINS.
 */
static inline unsigned int l2arc_key_id(oblock_t key)
{
	return from_oblock(key) >> L2ARC_KEY_BLOCK_BITS;
}

/**
 * l2arc_origin_id() - the device's origin id in its pool
 * @lc: the device
 *
 * Return: 1..%L2ARC_POOL_MAX_ORIGINS for a pool member, 0 otherwise.
 */
static inline unsigned int l2arc_origin_id(const struct l2arc_c *lc)
{
	return lc->key_base >> L2ARC_KEY_BLOCK_BITS;
}

/**
 * l2arc_key_mine() - is @key a key of the device's origin?
 * @lc: the device
 * @key: an ARC key of its directory
 *
 * Return: true when @key's id is the device's.
 */
static inline bool l2arc_key_mine(const struct l2arc_c *lc, oblock_t key)
{
	return l2arc_key_id(key) == l2arc_origin_id(lc);
}

/* params.c */
u64 l2arc_param(enum l2arc_param_id id);
u64 l2arc_sys_free(void);
int l2arc_param_parse(enum l2arc_param_id id, const char *str, u64 *val);
const char *l2arc_param_name(enum l2arc_param_id id);
int l2arc_dev_param_lookup(const char *name);
u64 l2arc_dev_param(const struct l2arc_tunables *own, enum l2arc_param_id id);

/* buf.c */
void l2arc_pages_init(struct l2arc_pages *p, unsigned int block_pages);
unsigned long l2arc_pages_shrink(struct l2arc_pages *p, unsigned long nr);
void l2arc_pages_exit(struct l2arc_pages *p);
unsigned int l2arc_pages_count(struct l2arc_pages *p);
struct l2arc_buf *l2arc_buf_alloc(struct l2arc_c *lc, gfp_t gfp);
void l2arc_buf_get(struct l2arc_buf *b);
bool l2arc_buf_tryget(struct l2arc_buf *b);
void l2arc_buf_put(struct l2arc_c *lc, struct l2arc_buf *b);
u32 l2arc_buf_cksum(struct l2arc_buf *b);
void l2arc_buf_copy_to_bio(struct l2arc_buf *b, size_t boff, struct bio *bio,
			   struct bvec_iter it, size_t len);
void l2arc_buf_add_to_bio(struct bio *bio, struct l2arc_buf *b);

/* table.c */
int l2arc_parse_table(struct l2arc_table *t, unsigned int argc, char **argv,
		      char **error);
int l2arc_parse_pool_table(struct l2arc_table *t, unsigned int argc,
			   char **argv, char **error);
void l2arc_table_free(struct l2arc_table *t);
char *l2arc_join_words(unsigned int argc, char **argv);

#endif /* DM_L2ARC_H */

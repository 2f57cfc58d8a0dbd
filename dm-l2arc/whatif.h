/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: what if the ARC or the cache device were bigger?  Miss-ratio
 * curves from miniature simulations of the device's own policy on a
 * spatially hashed sample of its blocks (see the theory at the top of
 * whatif.c).
 *
 * Locking: the I/O path only appends events to a log under @log_lock, a
 * spinlock that nests inside the device's arc.lock.  A work item (or a
 * reader of the file) replays the log into the miniatures under @lock, a
 * mutex; each miniature ARC's own spinlock (a lockdep class of its own)
 * nests inside @lock, one at a time.  Nothing here takes any other lock
 * of dm-l2arc.
 */
#ifndef DM_L2ARC_WHATIF_H
#define DM_L2ARC_WHATIF_H

#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "arc.h"

struct seq_file;

/* Bits of the sampling hash: a block is sampled if its hash < threshold. */
#define WHATIF_HASH_BITS	24
#define WHATIF_HASH_ONE		BIT(WHATIF_HASH_BITS)

/* Sampled blocks the miniature at arc_max (or at the cache size) holds. */
#define WHATIF_SAMPLE_BLOCKS	2048

/* The ladders: sizes are arc_max (or the L2 slots) * factor / 8. */
#define WHATIF_NR_ARC		7	/* 1/8, 1/4, 1/2, 1, 2, 4, 8 */
#define WHATIF_ARC_1X		3	/* the one at arc_max: feeds the L2s */
#define WHATIF_NR_L2		7	/* the same factors; 0 is the 1x ARC */

/**
 * enum whatif_result - what the device did with one demand block read.
 * @WHATIF_HIT: the ARC had the block (a hit or an I/O hit).
 * @WHATIF_L2_HIT: an ARC miss read from the cache device.
 * @WHATIF_MISS: an ARC miss read from the origin.
 */
enum whatif_result {
	WHATIF_HIT,
	WHATIF_L2_HIT,
	WHATIF_MISS,
};

/* Events the log holds; the work item is queued when it is 1/8 full. */
#define WHATIF_LOG_EVENTS	16384

/* whatif_event.nr of a read: this bit and the &enum whatif_result. */
#define WHATIF_EV_READ		BIT_ULL(63)

/**
 * struct whatif_event - one entry of the log, in the device's order.
 * @oblock: the block read, or the first block written.
 * @nr: blocks written (an invalidation, < %WHATIF_EV_READ), or
 *	%WHATIF_EV_READ | the &enum whatif_result of a read.
 */
struct whatif_event {
	u64 oblock;
	u64 nr;
};

/**
 * struct whatif_count - reads of the sample and what became of them.
 * @reads: sampled demand block reads.
 * @hits: of them, ARC hits.
 * @l2_hits: of them, ARC misses that the L2 held.
 */
struct whatif_count {
	u64 reads;
	u64 hits;
	u64 l2_hits;
};

/**
 * struct whatif_arc - one miniature ARC of the ladder.
 * @arc: the directory (arc.c), with c = @blocks scaled by the sample.
 * @spare: a header for the next miss, or NULL.
 * @blocks: the size it stands for, in blocks of the device.
 * @n: reads of the ARC sample and their hits.
 * @n_l2: the same, counted on the L2's subsample (only the 1x one).
 */
struct whatif_arc {
	struct arc arc;
	struct arc_hdr *spare;
	u64 blocks;
	struct whatif_count n;
	struct whatif_count n_l2;
};

/**
 * struct whatif_l2ent - one slot of a miniature cache device.
 * @node: link in the ring's hash of the blocks it holds.
 * @oblock: the block whose copy the slot holds, or U64_MAX (empty).
 */
struct whatif_l2ent {
	struct hlist_node node;
	u64 oblock;
};

/**
 * struct whatif_l2 - one miniature cache device of the ladder: a ring
 * written in FIFO order, as the write hand writes the real one.
 * @ring: the slots, @nr of them.
 * @hash: heads of the hash of the blocks held, 1 << @hash_bits of them.
 * @nr: slots of the miniature (sampled blocks), >= 1.
 * @hand: the next slot to write, 0..@nr - 1.
 * @hash_bits: log2 of the hash's size.
 * @blocks: the size it stands for, in blocks of the device.
 * @l2_hits: ARC misses (of the 1x ARC) found here.
 */
struct whatif_l2 {
	struct whatif_l2ent *ring;
	struct hlist_head *hash;
	u32 nr;
	u32 hand;
	unsigned int hash_bits;
	u64 blocks;
	u64 l2_hits;
};

/**
 * struct l2arc_whatif - the what-if simulations of one device.
 * @log_lock: protects @log, @nlog and @log_dropped.
 * @log: the events not replayed yet, @nlog of them (WHATIF_LOG_EVENTS).
 * @nlog: 0..%WHATIF_LOG_EVENTS.
 * @log_dropped: sampled reads and writes lost because the log was full.
 * @work: replays the log (l2arc_whatif_sync()).
 * @lock: protects everything below and @batch (see the file comment).
 * @batch: the events being replayed (WHATIF_LOG_EVENTS).
 * @t_arc: sampling threshold of the ARC ladder, 1..%WHATIF_HASH_ONE.
 * @t_l2: sampling threshold of the L2 ladder, 1..@t_arc (0: no L2).
 * @l2_slots: the device's cache slots, in blocks (0: no cache device).
 * @block_bytes: the device's block size, bytes.
 * @dropped: sampled reads not simulated for lack of memory (a header), or
 *	lost with a full log.
 * @actual: the device's own ARC results on the ARC sample (no L2 hits).
 * @actual_l2: the device's own results on the L2 sample.
 * @arc: the ARC ladder (the one at %WHATIF_ARC_1X stands for arc_max).
 * @l2: the L2 ladder (used when @l2_slots).
 */
struct l2arc_whatif {
	spinlock_t log_lock;	/* protects the log */
	struct whatif_event *log;
	u32 nlog;
	u64 log_dropped;
	struct work_struct work;
	struct mutex lock;	/* protects all below */
	struct whatif_event *batch;
	u32 t_arc;
	u32 t_l2;
	u64 l2_slots;
	unsigned int block_bytes;
	u64 dropped;
	struct whatif_count actual;
	struct whatif_count actual_l2;
	struct whatif_arc arc[WHATIF_NR_ARC];
	struct whatif_l2 l2[WHATIF_NR_L2];
};

/**
 * whatif_hash() - the sampling hash of a block.
 * @oblock: origin block number.
 *
 * Return: 0..%WHATIF_HASH_ONE - 1, uniform over the blocks (hash_64()).
 */
static inline u32 whatif_hash(u64 oblock)
{
	return hash_64(oblock, WHATIF_HASH_BITS);
}

/**
 * l2arc_whatif_sampled() - is @oblock in the what-if's sample?
 * @wi: the simulations, or NULL (what-if off).
 * @oblock: origin block number.
 *
 * The cheap test the I/O path makes for every block: one multiply.
 *
 * Context: any.
 * Return: true if l2arc_whatif_read() must see the block's reads.
 */
static inline bool l2arc_whatif_sampled(const struct l2arc_whatif *wi,
					u64 oblock)
{
	return wi && whatif_hash(oblock) < wi->t_arc;
}

struct l2arc_whatif *l2arc_whatif_create(u64 c_max, u64 l2_slots,
					 unsigned int block_bytes);
void l2arc_whatif_destroy(struct l2arc_whatif *wi);
void l2arc_whatif_read(struct l2arc_whatif *wi, u64 oblock,
		       enum whatif_result res);
void l2arc_whatif_invalidate(struct l2arc_whatif *wi, u64 first, u64 nr);
void l2arc_whatif_sync(struct l2arc_whatif *wi);
void l2arc_whatif_reset(struct l2arc_whatif *wi);
u64 l2arc_whatif_bytes(struct l2arc_whatif *wi);
void l2arc_whatif_show(struct seq_file *m, struct l2arc_whatif *wi);

#endif /* DM_L2ARC_WHATIF_H */

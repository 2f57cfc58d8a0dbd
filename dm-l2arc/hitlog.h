/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the log of ARC hits taken without the device lock (hitlog.c
 * has the theory).
 *
 * Included by dm-l2arc.h before struct l2arc_c.
 */
#ifndef DM_L2ARC_HITLOG_H
#define DM_L2ARC_HITLOG_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* Records each CPU's log holds before its reader applies them all. */
#define L2ARC_HITLOG_MAX		32
/*
 * Blocks each CPU's log holds at most: a log that reaches this many is
 * applied too, so that one application accesses at most this many blocks
 * per CPU (a 1 MiB read of 4 KiB blocks is 256).
 */
#define L2ARC_HITLOG_BLOCKS		256
/*
 * Blocks one record holds at most: a read that serves more logs a record
 * for each such part (a 1 MiB read of 4 KiB blocks logs 8), and keeps the
 * headers of the part it is serving in an array of this many pointers on
 * its stack.
 */
#define L2ARC_HITREC_BLOCKS		32

struct arc_hdr;

/**
 * struct l2arc_hitrec - blocks of one read served without arc.lock
 * @first: its first block
 * @seq: its place among every logged record of the device (1, 2, ...);
 *	set by l2arc_hitlog_add()
 * @unhashed: arc_unhash_seq() read before the read looked up @first
 * @nr: the blocks served, from @first on, 1..%L2ARC_HITLOG_BLOCKS (a read
 *	logs at most %L2ARC_HITREC_BLOCKS a record)
 * @hdrs: where its headers start in its log's header array (@nr of
 *	them, block @first's first); set by l2arc_hitlog_add()
 *
 * The headers are those arc_lookup_rcu() found for the blocks, or NULL; one
 * may have been freed since, and is used only through arc_lookup_seen().
 */
struct l2arc_hitrec {
	u64 first;
	u64 seq;
	unsigned long unhashed;
	u32 nr;
	u32 hdrs;
};

/**
 * struct l2arc_hitread - a read's blocks being served without arc.lock,
 * logged as it goes (l2arc_hitread_start(), l2arc_hitread_found(),
 * l2arc_hitread_end())
 * @rec: the record being filled: the blocks found since the last one
 *	logged
 * @hdr: their headers as found, @rec.nr of them
 */
struct l2arc_hitread {
	struct l2arc_hitrec rec;
	struct arc_hdr *hdr[L2ARC_HITREC_BLOCKS];
};

/**
 * struct l2arc_hitlog_cpu - one CPU's log
 * @lock: protects the rest; a leaf lock, taken inside arc.lock by the one
 *	who applies the logs, alone by a reader that logs
 * @nr: records in @rec, 0..%L2ARC_HITLOG_MAX
 * @blocks: their blocks, 0..%L2ARC_HITLOG_BLOCKS: the headers in @hdr
 * @rec: the records, in the order of their @seq
 * @hdr: the records' headers, each record's @nr from its @hdrs on
 */
struct l2arc_hitlog_cpu {
	spinlock_t lock;	/* protects @nr, @blocks, @rec and @hdr */
	unsigned int nr;
	unsigned int blocks;
	struct l2arc_hitrec rec[L2ARC_HITLOG_MAX];
	struct arc_hdr *hdr[L2ARC_HITLOG_BLOCKS];
};

/**
 * struct l2arc_hitlog - a device's hits that the ARC has not seen yet
 * @cpu: per-CPU logs, or NULL (no log: every hit takes arc.lock)
 * @apply: room for every CPU's records (nr_cpu_ids x
 *	%L2ARC_HITLOG_MAX), used under arc.lock by l2arc_hitlog_apply()
 * @apply_hdr: room for their headers (nr_cpu_ids x %L2ARC_HITLOG_BLOCKS),
 *	the same
 * @seq: the last @seq given to a record: records logged so far; with
 *	@applied on a cache line of their own, since every read that logs
 *	writes @seq and every read on every CPU reads the pointers above
 *	and the device's counters' pointer before them
 * @applied: records applied so far, under arc.lock; @seq - @applied are
 *	pending (l2arc_hitlog_pending())
 */
struct l2arc_hitlog {
	struct l2arc_hitlog_cpu __percpu *cpu;
	struct l2arc_hitrec *apply;
	struct arc_hdr **apply_hdr;
	atomic64_t seq ____cacheline_aligned_in_smp;
	u64 applied;
};

struct l2arc_c;
struct l2arc_pool;

/**
 * l2arc_hitlog_pending() - records logged and not yet applied, all CPUs
 * @hl: the logs
 *
 * Every record takes one number (l2arc_hitlog_add(), under its CPU's log
 * lock, when it is put in the log), so those numbered and not applied
 * are waiting in some CPU's log; one on its way in may be counted before
 * it can be collected (l2arc_hitlog_apply() then waits for its CPU's
 * lock).
 *
 * Context: arc.lock held (l2arc_lock()), or no log in use.
 * Return: the count, 0 if none.
 */
static inline u64 l2arc_hitlog_pending(const struct l2arc_hitlog *hl)
{
	return atomic64_read(&hl->seq) - hl->applied;
}

int l2arc_hitlog_init(struct l2arc_hitlog *hl);
void l2arc_hitlog_exit(struct l2arc_hitlog *hl);
bool l2arc_hitlog_add(struct l2arc_c *lc, const struct l2arc_hitrec *rec,
		      struct arc_hdr *const *hdr);
void l2arc_hitread_start(struct l2arc_c *lc, struct l2arc_hitread *hr,
			 u64 first);
void l2arc_hitread_flush(struct l2arc_c *lc, struct l2arc_hitread *hr);
void l2arc_hitread_end(struct l2arc_c *lc, struct l2arc_hitread *hr);

/**
 * l2arc_hitread_found() - the next block of a read served without arc.lock
 * @lc: the device
 * @hr: the read, started at the block before this one's first
 *	(l2arc_hitread_start())
 * @hdr: the block's header, as arc_lookup_rcu() found it
 *
 * Adds the block to the record being filled; logs that record once it
 * holds %L2ARC_HITREC_BLOCKS blocks (l2arc_hitread_flush()).
 *
 * Context: process or softirq context; arc.lock not held.
 */
static inline void l2arc_hitread_found(struct l2arc_c *lc,
				       struct l2arc_hitread *hr,
				       struct arc_hdr *hdr)
{
	hr->hdr[hr->rec.nr++] = hdr;
	if (hr->rec.nr == L2ARC_HITREC_BLOCKS)
		l2arc_hitread_flush(lc, hr);
}

void l2arc_hitlog_apply(struct l2arc_c *lc);
void l2arc_hitlog_apply_pool(struct l2arc_pool *pool);
unsigned int l2arc_hitlog_take(struct l2arc_hitlog *hl,
			       struct l2arc_hitlog_cpu *c, unsigned int n,
			       unsigned int *nhdr);
void l2arc_hitlog_access(struct l2arc_c *lc, const struct l2arc_hitrec *rec,
			 struct arc_hdr *const *hdr);
void l2arc_count_access(struct l2arc_c *lc, int result, bool iohit,
			bool prefetch);

#endif /* DM_L2ARC_HITLOG_H */

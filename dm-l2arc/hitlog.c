// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the log of ARC hits taken without the device lock.
 *
 * Theory of operation
 * ===================
 *
 * A read's blocks that are resident in the ARC, from its first block on,
 * are served without arc.lock (io.c, l2arc_map_hits()): each block's
 * header is found under RCU (arc_lookup_rcu()), its buffer taken with a
 * reference, and the data copied; the first block that is not resident
 * (and the rest of the read after it) is mapped under the lock, after the
 * served blocks' records are applied.  What the ARC owes such blocks -- the
 * paper's case I for each
 * block, a move to the MRU end of T2 -- and its counters are not done
 * then, but logged: the read appends a record (its first block, the
 * blocks served, the headers it found for them and a sequence number
 * from the device's counter) to the log of the CPU it runs on, under
 * that log's own lock, for each %L2ARC_HITREC_BLOCKS blocks it serves.
 * Whoever takes arc.lock next applies every CPU's records first
 * (l2arc_lock() calls l2arc_hitlog_apply()), in the order of their
 * sequence numbers; a CPU whose log fills takes arc.lock to apply them
 * itself.  A header found
 * then is accessed (arc_access_hdr()) and the hit counted as if it had
 * been accessed under the lock at the read.  A record carries the headers
 * its read found, used without a second lookup when no header has left
 * the table since (arc_lookup_seen()).
 *
 * The ARC stays exact.  Every operation that reads or changes the lists
 * (a miss, an eviction, the feed, a statistics read, a table message)
 * holds arc.lock, so it sees every hit logged before it began, applied in
 * the order the reads took their numbers: for one reader -- a trace
 * replay -- the lists, p, c and every counter are those of the same reads
 * done under the lock, whichever CPUs the reader ran on.  Reads on
 * several CPUs at once are applied in an order that is one of their
 * possible orders.  A header gone by the time its record is applied, or
 * one whose fill is in flight, a new one or the same gone to a ghost list
 * and back (only possible when
 * another CPU's miss, a write, the shrinker or a smaller c dropped it in
 * between), is not accessed; its hit still counts, as an MFU hit.
 *
 * Bounded: a CPU's log applies itself at %L2ARC_HITLOG_MAX records or
 * %L2ARC_HITLOG_BLOCKS blocks and takes no record that would carry it past
 * them, so one application accesses at most %L2ARC_HITLOG_BLOCKS blocks
 * per CPU whose log has records.
 *
 * Never stale: see l2arc_map_hits() in io.c; nothing here decides what a
 * read is served.
 *
 * Memory: per device, each possible CPU's log (%L2ARC_HITLOG_MAX records
 * of 32 bytes and %L2ARC_HITLOG_BLOCKS header pointers) and room to apply
 * all of them at once, 6 KiB per CPU (Documentation/dm-l2arc.rst, "Memory
 * use").
 *
 * This file calls the directory (arc.c) and the what-if (whatif.c).
 */

#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "dm-l2arc.h"
#include "whatif.h"

/**
 * l2arc_hitlog_init() - set up a device's hit logs
 * @hl: the logs, zeroed
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int l2arc_hitlog_init(struct l2arc_hitlog *hl)
{
	int cpu;

	hl->apply = kvmalloc_array(nr_cpu_ids * L2ARC_HITLOG_MAX,
				   sizeof(*hl->apply), GFP_KERNEL);
	hl->apply_hdr = kvmalloc_array(nr_cpu_ids * L2ARC_HITLOG_BLOCKS,
				       sizeof(*hl->apply_hdr), GFP_KERNEL);
	hl->cpu = alloc_percpu(struct l2arc_hitlog_cpu);
	if (!hl->apply || !hl->apply_hdr || !hl->cpu) {
		l2arc_hitlog_exit(hl);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct l2arc_hitlog_cpu *c = per_cpu_ptr(hl->cpu, cpu);

		spin_lock_init(&c->lock);
		c->nr = 0;
		c->blocks = 0;
	}
	atomic64_set(&hl->seq, 0);
	hl->applied = 0;
	return 0;
}

/**
 * l2arc_hitlog_exit() - free a device's hit logs
 * @hl: the logs (set up or zeroed); records not applied are dropped
 *
 * Context: process context; no read in flight.
 */
void l2arc_hitlog_exit(struct l2arc_hitlog *hl)
{
	free_percpu(hl->cpu);
	hl->cpu = NULL;
	kvfree(hl->apply);
	hl->apply = NULL;
	kvfree(hl->apply_hdr);
	hl->apply_hdr = NULL;
}

/**
 * l2arc_hitlog_add() - log ARC hits a read was served without arc.lock
 * @lc: the device
 * @rec: the first block, the blocks served so (from @first on) and
 *	@unhashed; @seq and @hdrs are ignored
 * @hdr: the headers that the read's lookups found for those blocks, in
 *	their order (any may be NULL)
 *
 * Appends to the log of the CPU the caller runs on; when that fills
 * (%L2ARC_HITLOG_MAX records or %L2ARC_HITLOG_BLOCKS blocks), takes arc.lock
 * to apply every log.  The caller has served the blocks (or will)
 * from buffers it took without arc.lock.
 *
 * Context: process or softirq context; arc.lock not held.
 * Return: true if logged; false if there is no log or this CPU's log has
 * no room for it (l2arc_hitlog_served() then takes arc.lock and
 * l2arc_hitlog_access() itself).
 */
bool l2arc_hitlog_add(struct l2arc_c *lc, const struct l2arc_hitrec *rec,
		      struct arc_hdr *const *hdr)
{
	struct l2arc_hitlog *hl = &lc->hitlog;
	struct l2arc_hitlog_cpu *c;
	bool full, filled = false;

	if (!hl->cpu)
		return false;
	/* any CPU's log will do: migrating after this is harmless */
	c = raw_cpu_ptr(hl->cpu);
	spin_lock_bh(&c->lock);
	full = c->nr == L2ARC_HITLOG_MAX ||
	       c->blocks + rec->nr > L2ARC_HITLOG_BLOCKS;
	if (!full) {
		struct l2arc_hitrec *r = &c->rec[c->nr++];

		*r = *rec;
		r->hdrs = c->blocks;
		memcpy(c->hdr + c->blocks, hdr, rec->nr * sizeof(*hdr));
		c->blocks += rec->nr;
		/* under the CPU's lock: each log is in order, and pending */
		r->seq = atomic64_inc_return(&hl->seq);
		filled = c->nr == L2ARC_HITLOG_MAX ||
			 c->blocks == L2ARC_HITLOG_BLOCKS;
	}
	spin_unlock_bh(&c->lock);
	if (!full && lc->pool) {
		/* after the count: pairs with l2arc_hitlog_apply_pool() */
		smp_mb__before_atomic();
		set_bit(l2arc_origin_id(lc), lc->pool->hitlog_pending);
	}
	if (filled) {
		l2arc_lock(lc);		/* applies every log */
		l2arc_unlock(lc);
	}
	return !full;
}

/*
 * l2arc_hitlog_served() - log blocks served without arc.lock, or take
 * their accesses now if the log cannot
 * @lc: the device
 * @rec: the blocks' record, as for l2arc_hitlog_add()
 * @hdr: their headers, as for l2arc_hitlog_add()
 *
 * l2arc_hitlog_add(); if this CPU's log has no room for @rec, takes
 * arc.lock (which applies every record logged before) and the blocks'
 * accesses (l2arc_hitlog_access()), so they come in their order.
 *
 * Context: process or softirq context; arc.lock not held.
 */
static void l2arc_hitlog_served(struct l2arc_c *lc,
				const struct l2arc_hitrec *rec,
				struct arc_hdr *const *hdr)
{
	if (l2arc_hitlog_add(lc, rec, hdr))
		return;
	l2arc_lock(lc);
	l2arc_hitlog_access(lc, rec, hdr);
	l2arc_unlock(lc);
}

/**
 * l2arc_hitread_start() - begin logging a read's blocks served without
 * arc.lock
 * @lc: the device
 * @hr: the read's state, on the caller's stack
 * @first: the first block it will serve
 *
 * Reads the directory's count of headers gone (arc_unhash_seq()), so the
 * caller must call this before it looks up @first.
 *
 * Context: process or softirq context; arc.lock not held.
 */
void l2arc_hitread_start(struct l2arc_c *lc, struct l2arc_hitread *hr,
			 u64 first)
{
	hr->rec = (struct l2arc_hitrec){
		.first = first,
		.unhashed = arc_unhash_seq(lc->arc),
	};
}

/**
 * l2arc_hitread_flush() - log the blocks of a read found so far and go on
 * @lc: the device
 * @hr: the read, with at least one block found
 *
 * Logs the record being filled (l2arc_hitlog_served()), then starts the
 * next one at the block after its last (l2arc_hitread_start()).
 *
 * Context: process or softirq context; arc.lock not held.
 */
void l2arc_hitread_flush(struct l2arc_c *lc, struct l2arc_hitread *hr)
{
	l2arc_hitlog_served(lc, &hr->rec, hr->hdr);
	l2arc_hitread_start(lc, hr, hr->rec.first + hr->rec.nr);
}

/**
 * l2arc_hitread_end() - log what is left of a read served without arc.lock
 * @lc: the device
 * @hr: the read
 *
 * Context: process or softirq context; arc.lock not held.
 */
void l2arc_hitread_end(struct l2arc_c *lc, struct l2arc_hitread *hr)
{
	if (hr->rec.nr)
		l2arc_hitlog_served(lc, &hr->rec, hr->hdr);
}

/**
 * l2arc_count_access() - count one access's result in the arcstats rows
 * @lc: the device
 * @result: what arc_access() returned (an &enum arc_result)
 * @iohit: a resident block whose fill is still reading
 * @prefetch: a read-ahead's access, not a demand read's
 *
 * Context: any (the counters are per CPU).
 */
void l2arc_count_access(struct l2arc_c *lc, int result, bool iohit,
			bool prefetch)
{
	switch (result) {
	case ARC_HIT_MRU:
	case ARC_HIT_MFU:
		l2arc_stat_inc(lc, result == ARC_HIT_MRU ?
				   L2ARC_STAT_MRU_HITS : L2ARC_STAT_MFU_HITS);
		if (iohit) {
			l2arc_stat_inc(lc, L2ARC_STAT_IOHITS);
			l2arc_stat_inc(lc, prefetch ?
				       L2ARC_STAT_PREFETCH_DATA_IOHITS :
				       L2ARC_STAT_DEMAND_DATA_IOHITS);
		} else {
			l2arc_stat_inc(lc, L2ARC_STAT_HITS);
			l2arc_stat_inc(lc, prefetch ?
				       L2ARC_STAT_PREFETCH_DATA_HITS :
				       L2ARC_STAT_DEMAND_DATA_HITS);
		}
		return;
	case ARC_GHOST_MRU:
		l2arc_stat_inc(lc, L2ARC_STAT_MRU_GHOST_HITS);
		break;
	case ARC_GHOST_MFU:
		l2arc_stat_inc(lc, L2ARC_STAT_MFU_GHOST_HITS);
		break;
	}
	l2arc_stat_inc(lc, L2ARC_STAT_MISSES);
	l2arc_stat_inc(lc, prefetch ? L2ARC_STAT_PREFETCH_DATA_MISSES :
				      L2ARC_STAT_DEMAND_DATA_MISSES);
}

static int l2arc_hitrec_cmp(const void *a, const void *b)
{
	const struct l2arc_hitrec *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * One logged hit of block @b, as io.c's map would have taken it; @hdr is
 * @b's header (arc_lookup_seen()) or NULL.
 */
static void l2arc_hitlog_access_one(struct l2arc_c *lc, u64 b,
				    struct arc_hdr *hdr)
{
	int r = ARC_HIT_MFU;	/* gone meanwhile: read again, so MFU */

	/*
	 * A header with a fill in flight holds no data the read could have
	 * found: the block was dropped and missed again since (the header
	 * may be the one the read found, gone to a ghost list and back).
	 */
	if (hdr && (hdr->state == ARC_MRU || hdr->state == ARC_MFU) &&
	    !(hdr->flags & ARC_F_IO_IN_PROGRESS)) {
		if (hdr->flags & ARC_F_PREFETCH)
			l2arc_stat_inc(lc,
				       L2ARC_STAT_DEMAND_HIT_PREDICTIVE_PREFETCH);
		r = arc_access_hdr(lc->arc, hdr, 0);
	}
	l2arc_count_access(lc, r, false, false);
	if (l2arc_whatif_sampled(lc->whatif, b))
		l2arc_whatif_read(lc->whatif, b, WHATIF_HIT);
}

/**
 * l2arc_hitlog_take() - move one CPU's log to the application's arrays
 * @hl: the logs
 * @c: one CPU's log, its lock held
 * @n: records already in @hl->apply (they come from other CPUs' logs)
 * @nhdr: headers already in @hl->apply_hdr; advanced by @c's
 *
 * Copies @c's records to @hl->apply from @n on and their headers to
 * @hl->apply_hdr from *@nhdr on, each record's @hdrs moved by *@nhdr so
 * that it still names its own headers, and empties @c.
 *
 * Context: arc.lock held (the arrays are the application's).
 * Return: the records moved.
 */
unsigned int l2arc_hitlog_take(struct l2arc_hitlog *hl,
			       struct l2arc_hitlog_cpu *c, unsigned int n,
			       unsigned int *nhdr)
{
	unsigned int nr = c->nr, i;

	lockdep_assert_held(&c->lock);
	memcpy(hl->apply + n, c->rec, nr * sizeof(*c->rec));
	memcpy(hl->apply_hdr + *nhdr, c->hdr, c->blocks * sizeof(*c->hdr));
	for (i = n; i < n + nr; i++)
		hl->apply[i].hdrs += *nhdr;
	*nhdr += c->blocks;
	c->nr = 0;
	c->blocks = 0;
	return nr;
}

/*
 * Move every CPU's records and headers to @hl->apply and @hl->apply_hdr;
 * returns how many records, and in *@sorted whether they are in the order
 * of their numbers already (one CPU's, as a single reader's usually are).
 */
static unsigned int l2arc_hitlog_collect(struct l2arc_hitlog *hl,
					 bool *sorted)
{
	unsigned int n = 0, nhdr = 0, i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct l2arc_hitlog_cpu *c = per_cpu_ptr(hl->cpu, cpu);

		if (!READ_ONCE(c->nr))
			continue;
		spin_lock(&c->lock);
		n += l2arc_hitlog_take(hl, c, n, &nhdr);
		spin_unlock(&c->lock);
	}
	*sorted = true;
	for (i = 1; i < n && *sorted; i++)
		*sorted = hl->apply[i - 1].seq < hl->apply[i].seq;
	return n;
}

/**
 * l2arc_hitlog_apply() - let the ARC see every hit logged without the lock
 * @lc: the device
 *
 * Applies the records of every CPU's log in the order of their sequence
 * numbers (see the theory above) and empties the logs.  l2arc_lock()
 * calls this when a record is pending.
 *
 * Context: arc.lock held (BHs off).
 */
void l2arc_hitlog_apply(struct l2arc_c *lc)
{
	struct l2arc_hitlog *hl = &lc->hitlog;
	unsigned int n, i;
	bool sorted;

	l2arc_assert_locked(lc);
	if (!hl->cpu)
		return;
	n = l2arc_hitlog_collect(hl, &sorted);
	if (!n)
		return;
	hl->applied += n;
	if (!sorted)
		sort(hl->apply, n, sizeof(*hl->apply), l2arc_hitrec_cmp, NULL);
	for (i = 0; i < n; i++)
		l2arc_hitlog_access(lc, &hl->apply[i],
				    hl->apply_hdr + hl->apply[i].hdrs);
}

/**
 * l2arc_hitlog_apply_pool() - let a pool's ARC see every member's hits
 * logged without the lock
 * @pool: the pool
 *
 * Applies the logs of each member whose bit is set in
 * @pool->hitlog_pending (l2arc_hitlog_apply()), by id: each member's hits
 * in their order, every one before the holder's own work.  A bit set
 * after it was cleared here stays set for the next holder.
 *
 * Context: @pool->arc.lock held (BHs off).
 */
void l2arc_hitlog_apply_pool(struct l2arc_pool *pool)
{
	struct l2arc_c *m;
	unsigned int id;

	lockdep_assert_held(&pool->arc.lock);
	for_each_set_bit(id, pool->hitlog_pending, L2ARC_POOL_MAX_ORIGINS + 1) {
		/* ordered: pairs with l2arc_hitlog_add()'s count, then bit */
		if (!test_and_clear_bit(id, pool->hitlog_pending))
			continue;
		m = pool->by_id[id];
		if (m && l2arc_hitlog_pending(&m->hitlog))
			l2arc_hitlog_apply(m);
	}
}

/**
 * l2arc_hitlog_access() - take the ARC's accesses of blocks served without
 * arc.lock, now, as a record of them would be applied
 * @lc: the device
 * @rec: the blocks' record, as for l2arc_hitlog_add()
 * @hdr: their headers, as for l2arc_hitlog_add()
 *
 * Also for the reader whose CPU's log had no room (l2arc_hitlog_served()):
 * l2arc_lock() has applied every log, so the accesses
 * come after every record logged before and in their order.  A block's
 * header is the one the read found if none has left the table since
 * (arc_lookup_seen()), else the one a lookup finds now.  A block gone
 * meanwhile counts its hit as l2arc_hitlog_apply() counts it.
 *
 * Context: arc.lock held (BHs off).
 */
void l2arc_hitlog_access(struct l2arc_c *lc, const struct l2arc_hitrec *rec,
			 struct arc_hdr *const *hdr)
{
	u32 i;

	l2arc_assert_locked(lc);
	for (i = 0; i < rec->nr; i++)
		l2arc_hitlog_access_one(lc, rec->first + i,
					arc_lookup_seen(lc->arc,
							l2arc_key(lc, rec->first + i),
							hdr[i], rec->unhashed));
}

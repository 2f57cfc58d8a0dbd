// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: what if the ARC or the cache device were bigger?
 *
 * Theory of operation
 * -------------------
 * Each device runs miniature simulations of its own policy, as Waldspurger
 * et al. describe in "Cache Modeling and Optimization using Miniature
 * Simulations" (USENIX ATC 2017), on a spatially hashed sample of its
 * blocks, as SHARDS does (Waldspurger et al., FAST 2015): block b is in the
 * sample when hash_64(b, 24) is below a threshold T, so a fraction R =
 * T / 2^24 of the blocks, and every read of a sampled block is seen.  A
 * cache of c blocks is then simulated by a cache of c * R blocks that sees
 * only the sample; its hit ratio estimates the full cache's.
 *
 * The ARC ladder is seven miniatures of the ARC itself -- the directory of
 * arc.c, ghost lists, p and all -- at arc_max * 1/8, 1/4, 1/2, 1, 2, 4 and
 * 8.  R is chosen so that the one at arc_max holds %WHATIF_SAMPLE_BLOCKS
 * blocks (R = 1, every block, for an arc_max of at most that many blocks:
 * the simulation is then exact).  So the memory is bounded whatever the
 * device's size: at most 2 * 2048 * (1/8 + ... + 8) = 65,024 headers of 48
 * bytes and their tables.  2,048 rather than 1,024: on the OLTP trace of
 * the ARC paper, 1,024 sampled blocks at arc_max missed the exact hit
 * ratio by up to 2.3 points, 2,048 by at most 0.5 (tests/vm/30-arc-traces.sh
 * and Documentation/benchmarks.rst give the measured error).
 *
 * The L2 ladder is the two-level system at the ARC's arc_max: the
 * miniature ARC at 1x and, behind it, seven miniature cache devices of
 * the device's slots * 1/8 .. 8.  Each is a ring written in FIFO order, as
 * the write hand writes the real one, with the blocks that the ARC evicts
 * for room (a block whose copy is still in the ring is not written again,
 * as the feed skips a block with a valid copy); an ARC miss whose block is
 * in the ring is an L2 hit.  The rings sample a subset of the ARC's
 * sample (threshold @t_l2 <= @t_arc, so that the ring at the device's size
 * holds %WHATIF_SAMPLE_BLOCKS); the 1x ARC counts its reads and hits on
 * that subset apart.  The model leaves out the feed's rate limit
 * (l2arc_write_max): it predicts an L2 that keeps up with the evictions.
 *
 * Only demand reads are simulated, as the device's reported hit ratio
 * counts them: read-ahead is not.  A write, discard or write-zeroes drops
 * its sampled blocks from every miniature (a resident block leaves the
 * ARC, its ghost stays; its L2 copy goes), as the device drops them.  The
 * sizes are fixed at the table load: a shrink of c under memory pressure
 * does not move the ladder.
 *
 * The I/O path only logs: one multiply decides whether a block is in the
 * sample (l2arc_whatif_sampled()), and a sampled read or a write appends
 * one event to the device's log under a spinlock of its own.  A work item
 * on the unbound workqueue, queued when the log is 1/8 full, and
 * every reader of the file, replay the log in order into the miniatures
 * (seven directory accesses a sampled read), off the I/O path and its
 * locks.  A full log (16,384 events) counts what it loses in "dropped".
 */

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "whatif.h"

/* The ladders' sizes, in eighths of arc_max (or of the L2 slots). */
static const unsigned int whatif_eighths[WHATIF_NR_ARC] = {
	1, 2, 4, 8, 16, 32, 64
};

/*
 * A write's range is dropped by walking the miniatures (at most 65,024
 * headers and 32,512 slots) when it is longer than this, or holds more
 * sampled blocks than %WHATIF_SAMPLE_BLOCKS: a lookup per sampled block
 * costs seven.
 */
#define WHATIF_WALK_MIN		(64 * WHATIF_SAMPLE_BLOCKS)

/* Writes this short are logged only if they hold a sampled block. */
#define WHATIF_WRITE_SCAN	64

/* The miniature ARCs' locks: a lockdep class of their own. */
static struct lock_class_key whatif_arc_lock_key;

/*
 * What the 1x miniature hangs on its resident headers: never read, and
 * with bit 0 set, as the target's fills are (io.h), so that a lock-free
 * reader of a device that finds one of these headers (the header cache is
 * shared and SLAB_TYPESAFE_BY_RCU, arc.c) never takes it for a buffer.
 */
#define WHATIF_RESIDENT		((void *)1UL)

/* Sampling threshold that leaves about %WHATIF_SAMPLE_BLOCKS of @blocks. */
static u32 whatif_threshold(u64 blocks)
{
	if (blocks <= WHATIF_SAMPLE_BLOCKS)
		return WHATIF_HASH_ONE;
	return max_t(u64, 1, DIV_ROUND_UP_ULL((u64)WHATIF_SAMPLE_BLOCKS <<
					      WHATIF_HASH_BITS, blocks));
}

/* Blocks of a miniature that stands for @blocks, at threshold @t: >= 1. */
static u64 whatif_scale(u64 blocks, u32 t)
{
	return max_t(u64, 1, (blocks * t + (WHATIF_HASH_ONE >> 1)) >>
			     WHATIF_HASH_BITS);
}

/* A ring's bucket of @oblock: bits of the hash below the sampling bits. */
static u32 whatif_bucket(const struct whatif_l2 *l, u64 oblock)
{
	return hash_64(oblock, WHATIF_HASH_BITS + l->hash_bits) &
	       (BIT(l->hash_bits) - 1);
}

static struct whatif_l2ent *whatif_l2_find(struct whatif_l2 *l, u64 oblock)
{
	struct whatif_l2ent *e;

	hlist_for_each_entry(e, &l->hash[whatif_bucket(l, oblock)], node)
		if (e->oblock == oblock)
			return e;
	return NULL;
}

static void whatif_l2_drop(struct whatif_l2ent *e)
{
	hlist_del(&e->node);
	e->oblock = U64_MAX;
}

/* The write hand writes @oblock's copy, unless the ring holds one. */
static void whatif_l2_write(struct whatif_l2 *l, u64 oblock)
{
	struct whatif_l2ent *e;

	if (whatif_l2_find(l, oblock))
		return;
	e = &l->ring[l->hand];
	if (e->oblock != U64_MAX)
		whatif_l2_drop(e);
	e->oblock = oblock;
	hlist_add_head(&e->node, &l->hash[whatif_bucket(l, oblock)]);
	l->hand = l->hand + 1 == l->nr ? 0 : l->hand + 1;
}

/* &arc_ops.evict_data of the 1x miniature: its evictions feed the rings. */
static void whatif_evict_data(struct arc *arc, struct arc_hdr *hdr,
			      void *data, enum arc_evict_reason why)
{
	struct l2arc_whatif *wi = arc->private;
	u64 b = from_oblock(hdr->oblock);
	unsigned int i;

	if (why != ARC_EVICT_ROOM || whatif_hash(b) >= wi->t_l2)
		return;		/* arc_exit() calls it without wi->lock */
	lockdep_assert_held(&wi->lock);
	for (i = 0; i < WHATIF_NR_L2; i++)
		whatif_l2_write(&wi->l2[i], b);
}

static const struct arc_ops whatif_arc_ops = {
	.evict_data = whatif_evict_data,
};

static void whatif_count(struct whatif_count *n, bool hit, bool l2_hit)
{
	n->reads++;
	n->hits += hit;
	n->l2_hits += l2_hit;
}

/* The 1x miniature misses @oblock: which rings hold it (a bit each)? */
static unsigned long whatif_l2_lookup(struct l2arc_whatif *wi, u64 oblock)
{
	unsigned long held = 0;
	unsigned int i;

	lockdep_assert_held(&wi->lock);
	for (i = 0; i < WHATIF_NR_L2; i++)
		if (whatif_l2_find(&wi->l2[i], oblock))
			held |= BIT(i);
	return held;
}

/*
 * One demand read of @oblock by the miniature @a; wi->lock held.  Returns
 * 1 for a hit, 0 for a miss, or -ENOMEM (no header: not simulated).
 */
static int whatif_arc_read(struct l2arc_whatif *wi, struct whatif_arc *a,
			   u64 oblock, bool l2)
{
	bool one = a == &wi->arc[WHATIF_ARC_1X];
	struct arc_hdr *hdr;
	int r;

	lockdep_assert_held(&wi->lock);
	if (!a->spare)
		a->spare = arc_hdr_alloc(GFP_NOIO | __GFP_NOWARN);
	spin_lock_bh(&a->arc.lock);
	r = arc_access(&a->arc, to_oblock(oblock), 0, &a->spare, &hdr);
	if (r >= 0) {
		r = r == ARC_HIT_MRU || r == ARC_HIT_MFU;
		if (!r && one && wi->t_l2)
			arc_hdr_set_data(&a->arc, hdr, WHATIF_RESIDENT);
	}
	spin_unlock_bh(&a->arc.lock);
	if (r >= 0 && one && l2)
		whatif_count(&a->n_l2, r, false);
	return r;
}

/* Replay one read of the log; wi->lock held. */
static void whatif_replay_read(struct l2arc_whatif *wi, u64 oblock,
			       enum whatif_result res)
{
	bool l2 = whatif_hash(oblock) < wi->t_l2;
	struct whatif_arc *one = &wi->arc[WHATIF_ARC_1X];
	struct arc_hdr *hdr;
	bool resident, lost = false;
	unsigned long held = 0;
	unsigned int i, j;
	int r;

	lockdep_assert_held(&wi->lock);
	/* the ARC ladder's actual point: ARC hits only, as its rows count */
	whatif_count(&wi->actual, res == WHATIF_HIT, false);
	if (l2) {
		whatif_count(&wi->actual_l2, res == WHATIF_HIT,
			     res == WHATIF_L2_HIT);
		spin_lock_bh(&one->arc.lock);
		hdr = arc_lookup(&one->arc, to_oblock(oblock));
		resident = hdr && (hdr->state == ARC_MRU ||
				   hdr->state == ARC_MFU);
		spin_unlock_bh(&one->arc.lock);
		/* before the access, whose evictions may overwrite slots */
		if (!resident)
			held = whatif_l2_lookup(wi, oblock);
	}
	for (i = 0; i < WHATIF_NR_ARC; i++) {
		r = whatif_arc_read(wi, &wi->arc[i], oblock, l2);
		if (r < 0) {
			lost = true;
			continue;
		}
		whatif_count(&wi->arc[i].n, r, false);
		if (i != WHATIF_ARC_1X)
			continue;
		/* the L2 hits of a read the 1x miniature counted */
		for (j = 0; j < WHATIF_NR_L2; j++)
			wi->l2[j].l2_hits += !!(held & BIT(j));
	}
	wi->dropped += lost;
}

/* Drop @oblock from every miniature; wi->lock held. */
static void whatif_drop_block(struct l2arc_whatif *wi, u64 oblock)
{
	struct whatif_l2ent *e;
	struct arc_hdr *hdr;
	unsigned int i;

	lockdep_assert_held(&wi->lock);
	for (i = 0; i < WHATIF_NR_ARC; i++) {
		struct arc *arc = &wi->arc[i].arc;

		spin_lock_bh(&arc->lock);
		hdr = arc_lookup(arc, to_oblock(oblock));
		if (hdr)
			arc_invalidate(arc, hdr);
		spin_unlock_bh(&arc->lock);
	}
	if (whatif_hash(oblock) >= wi->t_l2)
		return;
	for (i = 0; i < WHATIF_NR_L2; i++) {
		e = whatif_l2_find(&wi->l2[i], oblock);
		if (e)
			whatif_l2_drop(e);
	}
}

/* Drop blocks [first, first + nr) by walking the miniatures; wi->lock held. */
static void whatif_drop_walk(struct l2arc_whatif *wi, u64 first, u64 nr)
{
	static const enum arc_list_id lists[] = { ARC_T1, ARC_T2 };
	struct arc_hdr *hdr, *next;
	unsigned int i, j;
	u64 b;

	lockdep_assert_held(&wi->lock);
	for (i = 0; i < WHATIF_NR_ARC; i++) {
		struct arc *arc = &wi->arc[i].arc;

		spin_lock_bh(&arc->lock);
		for (j = 0; j < ARRAY_SIZE(lists); j++) {
			list_for_each_entry_safe(hdr, next,
						 &arc->lists[lists[j]], list) {
				b = from_oblock(hdr->oblock);
				if (b >= first && b - first < nr)
					arc_invalidate(arc, hdr);
			}
		}
		spin_unlock_bh(&arc->lock);
	}
	for (i = 0; i < WHATIF_NR_L2; i++) {
		struct whatif_l2 *l = &wi->l2[i];

		for (j = 0; j < l->nr; j++) {
			b = l->ring[j].oblock;
			if (b != U64_MAX && b >= first && b - first < nr)
				whatif_l2_drop(&l->ring[j]);
		}
	}
}

/* Replay one write of the log; wi->lock held. */
static void whatif_replay_write(struct l2arc_whatif *wi, u64 first, u64 nr)
{
	u64 b;

	lockdep_assert_held(&wi->lock);
	if (nr > WHATIF_WALK_MIN ||
	    (nr * wi->t_arc) >> WHATIF_HASH_BITS > WHATIF_SAMPLE_BLOCKS) {
		whatif_drop_walk(wi, first, nr);
		return;
	}
	for (b = first; b - first < nr; b++) {
		if (l2arc_whatif_sampled(wi, b))
			whatif_drop_block(wi, b);
		if (!(b & 4095))
			cond_resched();
	}
}

/* Append one event to the log, or count it lost; any context but hardirq. */
static void whatif_log(struct l2arc_whatif *wi, u64 oblock, u64 nr)
{
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&wi->log_lock, flags);
	if (wi->nlog < WHATIF_LOG_EVENTS) {
		wi->log[wi->nlog].oblock = oblock;
		wi->log[wi->nlog].nr = nr;
		kick = ++wi->nlog == WHATIF_LOG_EVENTS / 8;
	} else {
		wi->log_dropped++;
	}
	spin_unlock_irqrestore(&wi->log_lock, flags);
	if (kick)
		queue_work(system_unbound_wq, &wi->work);
}

/**
 * l2arc_whatif_read() - the device served a demand read of one sampled
 * block: log it for the miniatures, with what the device did
 * @wi: the simulations
 * @oblock: origin block number; l2arc_whatif_sampled() was true for it
 * @res: what the device did: an ARC hit, an L2 hit or a miss
 *
 * Read-ahead must not be passed here (it is not simulated).  The event is
 * replayed later, in order with the writes, by a work item
 * (l2arc_whatif_sync()); with the log full it is counted in
 * @wi->log_dropped instead.
 *
 * Context: any context but hardirq; takes @wi->log_lock (the device's
 * arc.lock may be held).  Does not sleep.
 */
void l2arc_whatif_read(struct l2arc_whatif *wi, u64 oblock,
		       enum whatif_result res)
{
	whatif_log(wi, oblock, WHATIF_EV_READ | res);
}

/**
 * l2arc_whatif_invalidate() - a write, discard or write-zeroes makes the
 * copies of blocks [@first, @first + @nr) stale: log that they must leave
 * every miniature, as they leave the device's ARC and cache device
 * @wi: the simulations, or NULL (what-if off: nothing to do)
 * @first: first origin block
 * @nr: number of blocks, >= 1
 *
 * A range of up to %WHATIF_WRITE_SCAN blocks without a sampled block is
 * not logged.  The replay looks a range of up to 64 *
 * %WHATIF_SAMPLE_BLOCKS blocks, holding up to %WHATIF_SAMPLE_BLOCKS
 * sampled ones, up block by block (one hash each), and walks the
 * miniatures' resident lists and rings for a longer one.
 *
 * Context: any context but hardirq; takes @wi->log_lock (the device's
 * arc.lock may be held).  Does not sleep.
 */
void l2arc_whatif_invalidate(struct l2arc_whatif *wi, u64 first, u64 nr)
{
	u64 b;

	if (!wi || !nr)
		return;
	if (nr <= WHATIF_WRITE_SCAN) {
		for (b = first; b - first < nr; b++)
			if (l2arc_whatif_sampled(wi, b))
				break;
		if (b - first == nr)
			return;		/* nothing of the sample */
	}
	whatif_log(wi, first, nr);
}

/* Replay the events of @wi->batch, @n of them; wi->lock held. */
static void whatif_replay(struct l2arc_whatif *wi, u32 n)
{
	const struct whatif_event *e;
	u32 i;

	lockdep_assert_held(&wi->lock);
	for (i = 0; i < n; i++) {
		e = &wi->batch[i];
		if (e->nr & WHATIF_EV_READ)
			whatif_replay_read(wi, e->oblock,
					   e->nr & ~WHATIF_EV_READ);
		else
			whatif_replay_write(wi, e->oblock, e->nr);
		if (!(i & 63))
			cond_resched();
	}
}

/**
 * l2arc_whatif_sync() - replay the events logged so far into the
 * miniatures
 * @wi: the simulations
 *
 * Run by the work item the log queues when it is 1/8 full, and
 * before the counters are read or reset.  One swap of the log: the
 * events logged before the call, and none logged while it replays them,
 * so that a reader of the counters (or a management message) waits for
 * at most one log's worth, never for the I/O load (which queues the work
 * item again).
 *
 * Context: process context, may sleep; takes @wi->lock.
 */
void l2arc_whatif_sync(struct l2arc_whatif *wi)
{
	u32 n;

	mutex_lock(&wi->lock);
	spin_lock_irq(&wi->log_lock);
	n = wi->nlog;
	swap(wi->log, wi->batch);
	wi->nlog = 0;
	wi->dropped += wi->log_dropped;
	wi->log_dropped = 0;
	spin_unlock_irq(&wi->log_lock);
	whatif_replay(wi, n);
	mutex_unlock(&wi->lock);
}

static void whatif_work(struct work_struct *work)
{
	l2arc_whatif_sync(container_of(work, struct l2arc_whatif, work));
}

/**
 * l2arc_whatif_reset() - zero the counters (the whatif_reset message)
 * @wi: the simulations
 *
 * The events logged so far are replayed first; the miniatures keep their
 * contents: the curves go on from a warm state.
 *
 * Context: process context, may sleep; takes @wi->lock.
 */
void l2arc_whatif_reset(struct l2arc_whatif *wi)
{
	unsigned int i;

	l2arc_whatif_sync(wi);
	mutex_lock(&wi->lock);
	wi->dropped = 0;
	memset(&wi->actual, 0, sizeof(wi->actual));
	memset(&wi->actual_l2, 0, sizeof(wi->actual_l2));
	for (i = 0; i < WHATIF_NR_ARC; i++) {
		memset(&wi->arc[i].n, 0, sizeof(wi->arc[i].n));
		memset(&wi->arc[i].n_l2, 0, sizeof(wi->arc[i].n_l2));
	}
	for (i = 0; i < WHATIF_NR_L2; i++)
		wi->l2[i].l2_hits = 0;
	mutex_unlock(&wi->lock);
}

/**
 * l2arc_whatif_bytes() - the simulations' memory
 * @wi: the simulations
 *
 * Return: bytes: the structure, the miniatures' headers (as hashed now,
 * plus spares) and hash tables, and the rings with their hashes.
 *
 * Context: process context (reads the tables under rcu_read_lock()).
 */
u64 l2arc_whatif_bytes(struct l2arc_whatif *wi)
{
	u64 bytes = sizeof(*wi) + 2 * WHATIF_LOG_EVENTS * sizeof(*wi->log);
	unsigned int i;

	for (i = 0; i < WHATIF_NR_ARC; i++) {
		struct whatif_arc *a = &wi->arc[i];

		bytes += ((u64)arc_nr_hashed(&a->arc) + !!READ_ONCE(a->spare)) *
			 sizeof(struct arc_hdr);
		bytes += arc_table_bytes(&a->arc);
	}
	for (i = 0; i < WHATIF_NR_L2; i++) {
		const struct whatif_l2 *l = &wi->l2[i];

		if (l->ring)
			bytes += (u64)l->nr * sizeof(*l->ring) +
				 (sizeof(*l->hash) << l->hash_bits);
	}
	return bytes;
}

/* "%llu.%0*llu" of @num / @den, with @digits decimals, rounded half up. */
static void whatif_show_frac(struct seq_file *m, u64 num, u64 den,
			     unsigned int digits)
{
	u64 scale = 1, v;
	unsigned int i;

	for (i = 0; i < digits; i++)
		scale *= 10;
	v = den ? mul_u64_u64_div_u64(num, 2 * scale, den) : 0;
	v = (v + 1) / 2;
	seq_printf(m, " %llu.%0*llu", v / scale, digits, v % scale);
}

static void whatif_show_row(struct seq_file *m, const char *level,
			    unsigned int eighths, u64 blocks,
			    unsigned int block_bytes, u64 sample,
			    const struct whatif_count *n)
{
	seq_printf(m, "%-10s", level);
	whatif_show_frac(m, eighths, 8, 3);
	seq_printf(m, " %12llu %14llu %8llu %10llu %10llu %10llu", blocks,
		   blocks * block_bytes, sample, n->reads, n->hits,
		   n->l2_hits);
	whatif_show_frac(m, 100 * (n->hits + n->l2_hits), n->reads, 4);
	seq_putc(m, '\n');
}

/* The counters, copied under the lock and printed without it. */
struct whatif_snap {
	u64 dropped;
	struct whatif_count actual;
	struct whatif_count actual_l2;
	struct whatif_count arc[WHATIF_NR_ARC];
	struct whatif_count arc_l2;
	u64 l2_hits[WHATIF_NR_L2];
};

static void whatif_snap(struct l2arc_whatif *wi, struct whatif_snap *s)
{
	unsigned int i;

	l2arc_whatif_sync(wi);
	mutex_lock(&wi->lock);
	s->dropped = wi->dropped;
	s->actual = wi->actual;
	s->actual_l2 = wi->actual_l2;
	for (i = 0; i < WHATIF_NR_ARC; i++)
		s->arc[i] = wi->arc[i].n;
	s->arc_l2 = wi->arc[WHATIF_ARC_1X].n_l2;
	for (i = 0; i < WHATIF_NR_L2; i++)
		s->l2_hits[i] = wi->l2[i].l2_hits;
	mutex_unlock(&wi->lock);
}

static void whatif_show_l2(struct seq_file *m, struct l2arc_whatif *wi,
			   const struct whatif_snap *s)
{
	struct whatif_count n = s->arc_l2;
	unsigned int i;

	whatif_show_row(m, "l2", 0, 0, wi->block_bytes, 0, &n);
	for (i = 0; i < WHATIF_NR_L2; i++) {
		n.l2_hits = s->l2_hits[i];
		whatif_show_row(m, "l2", whatif_eighths[i], wi->l2[i].blocks,
				wi->block_bytes, wi->l2[i].nr, &n);
	}
	whatif_show_row(m, "l2_actual", 8, wi->l2_slots, wi->block_bytes, 0,
			&s->actual_l2);
}

/**
 * l2arc_whatif_show() - the device's whatif file
 * @m: the seq_file
 * @wi: the simulations, or NULL (what-if off: the file says so)
 *
 * The format (Documentation/dm-l2arc.rst, "What if"): "name value" lines,
 * then a table of one row per size of each ladder and one per actual
 * point, with hit_pct = 100 * (hits + l2_hits) / reads.  The sizes are
 * fixed at creation; the counters are one snapshot.
 *
 * Context: process context, may sleep; replays the log first.
 */
void l2arc_whatif_show(struct seq_file *m, struct l2arc_whatif *wi)
{
	struct whatif_snap s;
	unsigned int i;

	if (!wi) {
		seq_printf(m, "%-15s %d\n", "whatif", 0);
		return;
	}
	whatif_snap(wi, &s);
	seq_printf(m, "%-15s %d\n%-15s %u\n", "whatif", 1, "block_bytes",
		   wi->block_bytes);
	seq_printf(m, "%-15s", "sample_arc");
	whatif_show_frac(m, wi->t_arc, WHATIF_HASH_ONE, 6);
	seq_printf(m, "\n%-15s", "sample_l2");
	whatif_show_frac(m, wi->t_l2, WHATIF_HASH_ONE, 6);
	seq_printf(m, "\n%-15s %llu\n%-15s %llu\n", "memory_bytes",
		   l2arc_whatif_bytes(wi), "dropped", s.dropped);
	seq_printf(m, "%-10s %6s %12s %14s %8s %10s %10s %10s %8s\n", "level",
		   "factor", "blocks", "bytes", "sample", "reads", "hits",
		   "l2_hits", "hit_pct");
	for (i = 0; i < WHATIF_NR_ARC; i++)
		whatif_show_row(m, "arc", whatif_eighths[i], wi->arc[i].blocks,
				wi->block_bytes, arc_c(&wi->arc[i].arc),
				&s.arc[i]);
	whatif_show_row(m, "arc_actual", 8, wi->arc[WHATIF_ARC_1X].blocks,
			wi->block_bytes, 0, &s.actual);
	if (wi->l2_slots)
		whatif_show_l2(m, wi, &s);
}

static int whatif_l2_init(struct whatif_l2 *l, u64 blocks, u32 t)
{
	u32 i;

	l->blocks = blocks;
	l->nr = whatif_scale(blocks, t);
	l->hash_bits = max_t(unsigned int, 4, ilog2(l->nr) + 1);
	l->ring = kvcalloc(l->nr, sizeof(*l->ring), GFP_KERNEL);
	l->hash = kvcalloc(BIT(l->hash_bits), sizeof(*l->hash), GFP_KERNEL);
	if (!l->ring || !l->hash)
		return -ENOMEM;
	for (i = 0; i < l->nr; i++)
		l->ring[i].oblock = U64_MAX;
	return 0;
}

/**
 * l2arc_whatif_create() - set up a device's simulations (empty)
 * @c_max: the device's arc_max, in blocks, >= 1
 * @l2_slots: the cache device's slots, in blocks (0: no cache device, no
 *	L2 ladder)
 * @block_bytes: the device's block size, bytes (for the file)
 *
 * Context: process context, may sleep.
 * Return: the simulations, or NULL without memory.
 */
struct l2arc_whatif *l2arc_whatif_create(u64 c_max, u64 l2_slots,
					 unsigned int block_bytes)
{
	struct l2arc_whatif *wi;
	unsigned int i;

	wi = kzalloc(sizeof(*wi), GFP_KERNEL);
	if (!wi)
		return NULL;
	spin_lock_init(&wi->log_lock);
	mutex_init(&wi->lock);
	INIT_WORK(&wi->work, whatif_work);
	wi->log = kvcalloc(WHATIF_LOG_EVENTS, sizeof(*wi->log), GFP_KERNEL);
	wi->batch = kvcalloc(WHATIF_LOG_EVENTS, sizeof(*wi->batch),
			     GFP_KERNEL);
	if (!wi->log || !wi->batch)
		goto fail;
	c_max = max_t(u64, c_max, 1);
	wi->l2_slots = l2_slots;
	wi->block_bytes = block_bytes;
	wi->t_arc = whatif_threshold(c_max);
	if (l2_slots)
		wi->t_l2 = min(wi->t_arc, whatif_threshold(l2_slots));
	for (i = 0; i < WHATIF_NR_ARC; i++) {
		struct whatif_arc *a = &wi->arc[i];

		a->blocks = max_t(u64, 1, c_max * whatif_eighths[i] / 8);
		if (arc_init(&a->arc, whatif_scale(a->blocks, wi->t_arc),
			     &whatif_arc_ops, wi)) {
			/* arc_exit() of what was set up, not of this one */
			wi->arc[i].blocks = 0;
			goto fail;
		}
		lockdep_set_class(&a->arc.lock, &whatif_arc_lock_key);
	}
	for (i = 0; l2_slots && i < WHATIF_NR_L2; i++)
		if (whatif_l2_init(&wi->l2[i], l2_slots * whatif_eighths[i] / 8,
				   wi->t_l2))
			goto fail;
	return wi;
fail:
	l2arc_whatif_destroy(wi);
	return NULL;
}

/**
 * l2arc_whatif_destroy() - free a device's simulations
 * @wi: the simulations, or NULL
 *
 * Context: process context, may sleep; no other user of @wi may remain.
 */
void l2arc_whatif_destroy(struct l2arc_whatif *wi)
{
	unsigned int i;

	if (!wi)
		return;
	cancel_work_sync(&wi->work);
	for (i = 0; i < WHATIF_NR_ARC && wi->arc[i].blocks; i++) {
		arc_exit(&wi->arc[i].arc);
		arc_hdr_free(wi->arc[i].spare);
	}
	for (i = 0; i < WHATIF_NR_L2; i++) {
		kvfree(wi->l2[i].ring);
		kvfree(wi->l2[i].hash);
	}
	kvfree(wi->log);
	kvfree(wi->batch);
	kfree(wi);
}

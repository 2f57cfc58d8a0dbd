// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the cache device -- its ring of slots, the copies they hold,
 * and reads of them.
 *
 * Theory of operation
 * ===================
 *
 * The cache device is a ring of slots, one block each, after the
 * persistent L2ARC's header and log blocks (persist.c).  The feed
 * (feed.c) writes batches at the write hand, l2.hand, and evicts the
 * copies of the region it is about to overwrite (l2arc_evict_slot());
 * this file keeps what the slots hold and serves reads of them.
 *
 * Where an L2 copy's facts live (struct arc_hdr stays 48 bytes): in the
 * slot table (l2index.c), 16 bytes a slot allocated at table load: the
 * block, the crc32c of the copy (a fill copies it when it starts) and
 * the slot's state.  A slot is free, owned by a header (L2ARC_SLOT_HDR:
 * the header hashed under the slot's block, whose l2_slot is the slot,
 * with ARC_F_L2 or a feed write of it under way), or indexed
 * (L2ARC_SLOT_INDEXED): an L2-only block with no header, found by block
 * through the index.  The directory gives a header it would keep as
 * L2-only to the index (l2arc_l2_compact()) and a new header the indexed
 * copy of its block (l2arc_l2_claim()).
 *
 * Never stale: a write (or discard) to a block drops its L2 copy through
 * arc_invalidate() (which calls l2arc_l2_drop()) before the write is
 * issued, and clears L2ARC_F_L2_WRITING, so that a feed write in flight for
 * the block is not validated when it completes.  A read of an L2 copy
 * checks its crc32c; a mismatch or an I/O error drops the copy and the
 * read goes to the origin.  A checksum mismatch of a copy that the
 * rebuild indexed and no read has found good yet (L2ARC_SLOT_UNVERIFIED:
 * its slot may have been overwritten after its log block was written)
 * is not counted as an error.  After l2arc_max_errors errors the device
 * stops using its cache device ("degraded" in status) until a reload, and
 * the next feed forgets every L2 copy, once.
 *
 * The hand never overwrites a slot under a reader.  Every fill that reads
 * the cache device is on l2_reads until its read is done.  A feed first
 * picks and pins its batch, then publishes the region of slots it is about
 * to overwrite (l2.region_start..l2.region_end): from then on no read
 * starts there (a fill that would goes to the origin, counted in
 * l2_evict_reading), and the feed waits for the reads already in flight
 * there (counted too) before it evicts the region's copies and writes.
 * So a checksum mismatch is always the cache device's fault, and a copy
 * whose header was dropped while it was read (by a write, the shrinker,
 * a degrade) still holds what it held.
 *
 * Locking: everything here is under arc.lock (lock.h).
 */

#define DM_MSG_PREFIX "l2arc cache-dev"

#include <linux/bio.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dm-l2arc.h"

/* Bytes of L2-only headers of all devices together (l2arc_meta_percent). */
static atomic64_t l2arc_l2only_bytes = ATOMIC64_INIT(0);

/**
 * l2arc_class() - the L2 size class a block is counted in
 * @hdr: a header with %ARC_F_L2 (or being written to L2)
 *
 * Context: arc.lock held.
 * Return: an &enum l2arc_class (l2_{prefetch,mru,mfu}_asize).
 */
unsigned int l2arc_class(struct arc_hdr *hdr)
{
	return l2arc_slot_class(l2arc_class_to_slot(hdr->flags));
}

/**
 * l2arc_slot_is() - is @slot's copy @hdr's (its header, or its feed
 * write's)?  The slot and the header name each other.
 * @lc: the device
 * @slot: any slot number
 * @hdr: a header
 *
 * Context: arc.lock held.
 * Return: true if they name each other.
 */
bool l2arc_slot_is(struct l2arc_c *lc, u64 slot, struct arc_hdr *hdr)
{
	const struct l2arc_slot *sl;

	l2arc_assert_locked(lc);

	if (slot >= lc->l2.nr_slots || hdr->l2_slot != slot)
		return false;
	sl = l2arc_slot(&lc->l2.ix, slot);
	return (sl->word & L2ARC_SLOT_HDR) &&
	       l2arc_slot_oblock(sl) == l2arc_key_block(hdr->oblock);
}

/**
 * l2arc_slot_hdr() - the header that owns a slot's copy
 * @lc: the device, with a cache device
 * @slot: the slot, 0..l2.nr_slots - 1
 *
 * The header hashed under the slot's block, if the slot has
 * %L2ARC_SLOT_HDR and the header's l2_slot is @slot with %ARC_F_L2 or
 * %L2ARC_F_L2_WRITING.  An indexed slot has no header.
 *
 * Context: arc.lock held.
 * Return: the header, or NULL.
 */
struct arc_hdr *l2arc_slot_hdr(struct l2arc_c *lc, u64 slot)
{
	const struct l2arc_slot *sl = l2arc_slot(&lc->l2.ix, slot);
	struct arc_hdr *hdr;

	l2arc_assert_locked(lc);
	if (!(sl->word & L2ARC_SLOT_HDR))
		return NULL;
	hdr = arc_lookup(lc->arc, l2arc_key(lc, l2arc_slot_oblock(sl)));
	if (!hdr || hdr->l2_slot != slot ||
	    !(hdr->flags & (ARC_F_L2 | L2ARC_F_L2_WRITING)))
		return NULL;
	return hdr;
}

/**
 * l2arc_index_drop() - an L2-only block's copy is gone (indexed slot)
 * @lc: the device
 * @slot: a slot with %L2ARC_SLOT_INDEXED
 *
 * The slot is free again; counted out of l2_size; its log block is dirty.
 *
 * Context: arc.lock held.
 */
void l2arc_index_drop(struct l2arc_c *lc, u64 slot)
{
	struct l2arc_slot *sl = l2arc_slot(&lc->l2.ix, slot);
	unsigned int cls = l2arc_slot_class(sl->word);

	l2arc_assert_locked(lc);
	if (!l2arc_index_del(&lc->l2.ix, slot))
		return;
	lc->l2.blocks--;
	lc->l2.class_blocks[cls]--;
	sl->word = 0;
	l2arc_log_dirty(lc, slot);
}

/**
 * l2arc_l2_find() - the indexed slot of an L2-only block
 * @lc: the device
 * @oblock: the block
 *
 * Context: arc.lock held.
 * Return: the slot, or %L2ARC_SLOT_NONE (also without a cache device).
 */
u32 l2arc_l2_find(struct l2arc_c *lc, u64 oblock)
{
	l2arc_assert_locked(lc);
	if (!lc->l2.ix.nr_indexed)
		return L2ARC_SLOT_NONE;
	return l2arc_index_find(&lc->l2.ix, oblock);
}

/**
 * l2arc_l2_compact() - arc_ops.l2_compact: index a header's valid copy
 * @arc: the device's directory
 * @hdr: the header the directory is about to free (unpinned, %ARC_F_L2,
 *	not being written)
 *
 * The slot leaves the header for the index, with the header's L2 size
 * class (and %L2ARC_SLOT_UNVERIFIED if it had it); the copy and the log
 * entry are unchanged.
 *
 * Context: arc.lock held.
 * Return: true (the index took it), false if @hdr's slot is not its own.
 */
bool l2arc_l2_compact(struct arc *arc, struct arc_hdr *hdr)
{
	struct l2arc_c *lc = arc->private;
	u64 cls = l2arc_class_to_slot(hdr->flags), unverified;

	lockdep_assert_held(&arc->lock);
	if (WARN_ON_ONCE(!l2arc_slot_is(lc, hdr->l2_slot, hdr)))
		return false;
	unverified = l2arc_slot(&lc->l2.ix, hdr->l2_slot)->word &
		     L2ARC_SLOT_UNVERIFIED;
	hdr->flags &= ~(L2ARC_F_CLASS_PREFETCH | L2ARC_F_CLASS_MFU);
	l2arc_index_add(&lc->l2.ix, hdr->l2_slot, l2arc_key_block(hdr->oblock),
			cls);
	l2arc_slot(&lc->l2.ix, hdr->l2_slot)->word |= unverified;
	return true;
}

/**
 * l2arc_l2_claim() - arc_ops.l2_claim: give a new header its indexed copy
 * @arc: the device's directory
 * @hdr: a header just hashed for a miss
 *
 * When the index holds @hdr's block, the slot leaves the index and
 * becomes @hdr's (%L2ARC_SLOT_HDR, l2_slot, its L2 size class).
 *
 * Context: arc.lock held.
 * Return: true if @hdr now has a copy on the cache device.
 */
bool l2arc_l2_claim(struct arc *arc, struct arc_hdr *hdr)
{
	struct l2arc_c *lc = arc->private;
	u32 slot = l2arc_l2_find(lc, l2arc_key_block(hdr->oblock));
	struct l2arc_slot *sl;
	u8 cls;

	lockdep_assert_held(&arc->lock);
	if (slot == L2ARC_SLOT_NONE)
		return false;
	sl = l2arc_slot(&lc->l2.ix, slot);
	cls = l2arc_class_to_hdr(sl->word);
	if (!l2arc_index_del(&lc->l2.ix, slot))
		return false;
	hdr->flags |= cls;
	sl->word |= L2ARC_SLOT_HDR;
	hdr->l2_slot = slot;
	return true;
}

/**
 * l2arc_l2_drop() - arc_ops.l2_drop: a block's L2 copy is gone
 * @arc: the device's directory
 * @hdr: the header, whose %ARC_F_L2 was just cleared
 *
 * Context: arc.lock held.
 */
void l2arc_l2_drop(struct arc *arc, struct arc_hdr *hdr)
{
	struct l2arc_c *lc = arc->private;

	lockdep_assert_held(&arc->lock);
	if (l2arc_slot_is(lc, hdr->l2_slot, hdr)) {
		l2arc_slot(&lc->l2.ix, hdr->l2_slot)->word = 0;
		l2arc_log_dirty(lc, hdr->l2_slot);
	}
	lc->l2.blocks--;
	lc->l2.class_blocks[l2arc_class(hdr)]--;
	hdr->flags &= ~(L2ARC_F_CLASS_PREFETCH | L2ARC_F_CLASS_MFU);
}

/**
 * l2arc_l2_error() - count a cache device error; degrade after too many
 * @lc: the device
 *
 * Context: arc.lock held.
 */
void l2arc_l2_error(struct l2arc_c *lc)
{
	l2arc_assert_locked(lc);
	lc->l2.errors++;
	if (lc->l2.failed ||
	    lc->l2.errors < l2arc_dev_param(&lc->tun, L2ARC_P_MAX_ERRORS))
		return;
	WRITE_ONCE(lc->l2.failed, true);
	DMERR("%s: %llu cache device errors: cache device dropped, running from ARC and origin",
	      lc->name, lc->l2.errors);
}

/**
 * l2arc_lat_class() - the size class of a read, for its latency
 * @bytes: the read's length
 *
 * Return: 0 up to %L2ARC_LAT_CLASS0_MAX bytes, 1 up to
 * %L2ARC_LAT_CLASS1_MAX, else 2 (%L2ARC_LAT_CLASSES classes).
 */
unsigned int l2arc_lat_class(u64 bytes)
{
	if (bytes <= L2ARC_LAT_CLASS0_MAX)
		return 0;
	return bytes <= L2ARC_LAT_CLASS1_MAX ? 1 : 2;
}

/**
 * l2arc_lat_pair() - the two devices' read latencies to compare
 * @lc: the device
 * @l2: the cache device's average, us (0: no read of that class)
 * @origin: the origin's average, us
 *
 * Like with like: the averages of the smallest size class in which both
 * devices have had a read (a cache device's 4 KiB L2 hits are compared
 * with the origin's 4 KiB misses, not with its read-ahead runs of 1 MiB,
 * which take longer on any device).  When no class has a read on both,
 * class 0's two averages, of which one at least is 0.  The rows
 * l2_read_latency_us and origin_read_latency_us show this pair.
 *
 * Context: any; lock-free.
 * Return: true if a class has a read on both devices.
 */
bool l2arc_lat_pair(struct l2arc_c *lc, u64 *l2, u64 *origin)
{
	unsigned int c;

	for (c = 0; c < L2ARC_LAT_CLASSES; c++) {
		*l2 = ewma_l2arc_lat_read(&lc->l2.lat[c]);
		*origin = ewma_l2arc_lat_read(&lc->l2.origin_lat[c]);
		if (*l2 && *origin)
			return true;
	}
	*l2 = ewma_l2arc_lat_read(&lc->l2.lat[0]);
	*origin = ewma_l2arc_lat_read(&lc->l2.origin_lat[0]);
	return false;
}

/**
 * l2arc_l2_slow() - is the cache device slower than l2arc_slow_bypass_pct
 * allows?
 * @lc: the device
 *
 * Compares the two devices' read latencies on reads of like size
 * (l2arc_lat_pair()): true while the cache device's is over
 * l2arc_slow_bypass_pct percent of the origin's.  False while no size
 * class has a read on both devices, and with the parameter 0.
 *
 * Context: any; lock-free.
 * Return: true if L2 hits should read the origin.
 */
bool l2arc_l2_slow(struct l2arc_c *lc)
{
	u64 pct = l2arc_param(L2ARC_P_SLOW_BYPASS_PCT);
	u64 l2, origin;

	return pct && l2arc_lat_pair(lc, &l2, &origin) &&
	       l2 * 100 > origin * pct;
}

/**
 * l2arc_note_read() - measure a run's read, at its completion
 * @lc: the device, with a cache device
 * @run: the run, its read done without error
 *
 * Adds the read's latency, in us, to the EWMA of the device it read (the
 * cache device's or the origin's) for the read's size class
 * (l2arc_lat_class()): as bcache's congested_read_threshold, but
 * measured against the origin rather than a fixed bound.  The clock is
 * ktime_get_ns() at submission and completion, not the tick.  A read
 * counts for at most %L2ARC_LAT_CLAMP times the average so far, so that
 * one stalled read (a request held, a hiccup of the machine) does not
 * make a device look slow; a real change still shows within a few dozen
 * reads (x 1.375 a read at most).
 *
 * Context: any (bio completion, hard IRQ included); lock-free.
 */
void l2arc_note_read(struct l2arc_c *lc, struct l2arc_run *run)
{
	unsigned int c = l2arc_lat_class((u64)run->nr * l2arc_block_bytes(lc));
	struct ewma_l2arc_lat *e = run->from_l2 ? &lc->l2.lat[c] :
						  &lc->l2.origin_lat[c];
	u64 us = div_u64(ktime_get_ns() - run->start_ns, NSEC_PER_USEC);
	u64 avg = ewma_l2arc_lat_read(e);

	if (avg)
		us = min(us, avg * L2ARC_LAT_CLAMP);
	/* 0 is the EWMA's "no measurement yet" */
	ewma_l2arc_lat_add(e, max_t(u64, us, 1));
}

/**
 * l2arc_l2_readable() - may a fill read the copy in @slot now?
 * @lc: the device
 * @slot: the copy's slot
 *
 * No, when the device is degraded or the slot lies in the region that the
 * feed is about to overwrite (counted in l2_evict_reading: the read goes
 * to the origin).  No either while the cache device is slow
 * (l2arc_l2_slow()), but for one read in %L2ARC_SLOW_PROBE that keeps its
 * latency measured (counted in l2_slow_bypass).  With the bypass on
 * (l2arc_slow_bypass_pct), while no size class has a read on both
 * devices and the cache device has read one block's class but the
 * origin has not (the origin read only read-ahead runs, say), one L2
 * hit in %L2ARC_SLOW_PROBE reads the origin, so that the two can be
 * compared (counted in l2_origin_probes); the first such read ends it,
 * since it is of that class.  The copy stays
 * in every case.  A fill that may read it must be put on @lc->l2.reads
 * before arc.lock is dropped.
 *
 * Context: arc.lock held.
 * Return: true if the fill may read the cache device.
 */
bool l2arc_l2_readable(struct l2arc_c *lc, u32 slot)
{
	u64 pct = l2arc_param(L2ARC_P_SLOW_BYPASS_PCT), l2, origin;
	unsigned int c;

	l2arc_assert_locked(lc);
	if (READ_ONCE(lc->l2.failed))
		return false;
	if (slot >= lc->l2.region_start && slot < lc->l2.region_end) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_EVICT_READING);
		return false;
	}
	if (!pct)
		return true;
	if (!l2arc_lat_pair(lc, &l2, &origin)) {
		/* a probe reads one block: it measures that class only */
		c = l2arc_lat_class(l2arc_block_bytes(lc));
		if (ewma_l2arc_lat_read(&lc->l2.lat[c]) &&
		    !ewma_l2arc_lat_read(&lc->l2.origin_lat[c]) &&
		    !(++lc->l2.slow_seq % L2ARC_SLOW_PROBE)) {
			l2arc_stat_inc(lc, L2ARC_STAT_L2_ORIGIN_PROBES);
			return false;
		}
		return true;
	}
	/* l2arc_l2_slow(), on the pair just read */
	if (l2 * 100 > origin * pct && ++lc->l2.slow_seq % L2ARC_SLOW_PROBE) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_SLOW_BYPASS);
		return false;
	}
	return true;
}

/**
 * l2arc_l2_read_done() - a run's read of the cache device is over
 * @lc: the device
 * @run: the run, on @lc->l2.reads
 *
 * Takes it off the list and wakes a feed waiting for its slot.
 *
 * Context: arc.lock held.
 */
void l2arc_l2_read_done(struct l2arc_c *lc, struct l2arc_run *run)
{
	l2arc_assert_locked(lc);
	list_del_init(&run->l2_node);
	if (wq_has_sleeper(&lc->l2.read_wait))
		wake_up(&lc->l2.read_wait);
}

/**
 * l2arc_evict_slot() - evict the L2 copy in @slot ahead of the write hand
 * @lc: the device
 * @slot: a slot of the feed's region, 0..l2.nr_slots - 1
 *
 * Context: arc.lock held.
 */
void l2arc_evict_slot(struct l2arc_c *lc, u64 slot)
{
	struct l2arc_slot *sl = l2arc_slot(&lc->l2.ix, slot);
	struct arc_hdr *hdr;

	l2arc_assert_locked(lc);
	if (sl->word & L2ARC_SLOT_INDEXED) {
		l2arc_stat_inc(lc, L2ARC_STAT_L2_EVICT_AHEAD);
		l2arc_index_drop(lc, slot);
		return;
	}
	if (!(sl->word & L2ARC_SLOT_HDR))
		return;
	hdr = l2arc_slot_hdr(lc, slot);
	if (hdr) {
		if (hdr->state == ARC_MRU || hdr->state == ARC_MFU)
			l2arc_stat_inc(lc, L2ARC_STAT_L2_EVICT_L1CACHED);
		l2arc_stat_inc(lc, L2ARC_STAT_L2_EVICT_AHEAD);
	}
	if (hdr && (hdr->flags & ARC_F_L2))
		arc_hdr_clear_l2(lc->arc, hdr);
	else	/* a feed write that never completed: forget the slot */
		sl->word = 0;
}

/**
 * l2arc_meta_over() - publish this device's L2-only header bytes
 * @lc: the device
 *
 * Context: arc.lock held.
 * Return: true if the L2-only headers of all devices are over
 * l2arc_meta_percent of RAM (feeds and rebuilds stop).
 */
bool l2arc_meta_over(struct l2arc_c *lc)
{
	u64 now = arc_list_size(lc->arc, ARC_LIST_L2ONLY) *
		  sizeof(struct arc_hdr);
	u64 limit = div_u64(L2ARC_ARC_MAX_BYTES *
			    l2arc_param(L2ARC_P_META_PERCENT), 100);

	l2arc_assert_locked(lc);
	atomic64_add(now - lc->l2.l2only_reported, &l2arc_l2only_bytes);
	lc->l2.l2only_reported = now;
	return atomic64_read(&l2arc_l2only_bytes) > limit;
}

/* Is a read of a slot in the feed's region in flight?  arc.lock held. */
static unsigned int l2arc_region_reads(struct l2arc_c *lc)
{
	struct l2arc_run *run;
	unsigned int n = 0;

	l2arc_assert_locked(lc);
	list_for_each_entry(run, &lc->l2.reads, l2_node)
		if (run->l2_slot < lc->l2.region_end &&
		    run->l2_slot + run->nr > lc->l2.region_start)
			n++;
	return n;
}

static bool l2arc_region_idle(struct l2arc_c *lc)
{
	bool idle;

	l2arc_lock(lc);
	idle = !l2arc_region_reads(lc);
	l2arc_unlock(lc);
	return idle;
}

/**
 * l2arc_region_claim() - choose and publish the region of the next batch
 * @lc: the device
 * @n: the batch's size, blocks, 1..l2.nr_slots
 *
 * Chooses the region for @n blocks at the write hand (a batch never
 * wraps: when it does not fit before the end of the ring the hand goes
 * back to slot 0), publishes it so that no new read starts there, and
 * waits for the reads already in flight there.
 *
 * Context: process context, may sleep; takes arc.lock.
 * Return: the region's first slot.
 */
u64 l2arc_region_claim(struct l2arc_c *lc, unsigned int n)
{
	u64 start;
	unsigned int busy;

	l2arc_lock(lc);
	if (lc->l2.hand + n > lc->l2.nr_slots) {
		lc->l2.hand = 0;
		lc->l2.laps++;
	}
	start = lc->l2.hand;
	lc->l2.region_start = start;
	lc->l2.region_end = start + n;
	busy = l2arc_region_reads(lc);
	l2arc_stat_add(lc, L2ARC_STAT_L2_EVICT_READING, busy);
	l2arc_unlock(lc);

	if (busy)
		wait_event(lc->l2.read_wait, l2arc_region_idle(lc));
	return start;
}

/**
 * l2arc_l2_drop_all() - forget every L2 copy of a dropped cache device
 * @lc: the device, its cache device dropped (l2.failed)
 *
 * So that their headers (L2-only ones above all) stop holding memory.
 * Once per degrade (sets l2.dropped), in batches.  Called by the feed.
 *
 * Context: process context, may sleep; takes arc.lock.
 */
void l2arc_l2_drop_all(struct l2arc_c *lc)
{
	struct l2arc_hold h;
	u64 s;

	l2arc_bulk_lock(lc, &h);
	for (s = 0; s < lc->l2.nr_slots; s++) {
		struct arc_hdr *hdr;

		if (l2arc_slot(&lc->l2.ix, s)->word & L2ARC_SLOT_INDEXED) {
			l2arc_index_drop(lc, s);
		} else {
			hdr = l2arc_slot_hdr(lc, s);
			if (hdr && (hdr->flags & ARC_F_L2))
				arc_hdr_clear_l2(lc->arc, hdr);
		}
		l2arc_bulk_yield(lc, &h);
	}
	lc->l2.dropped = true;
	l2arc_bulk_unlock(lc, &h);
}

/* ti->error texts with numbers in them: see l2arc_l2_mem_check(). */
#define L2ARC_ERROR_BUFS	4
#define L2ARC_ERROR_LEN		192

/*
 * "3.0 GiB": @bytes in MiB, GiB or TiB (the largest below it), truncated
 * to one decimal, into @buf.
 */
static void l2arc_fmt_bytes(u64 bytes, char *buf, size_t len)
{
	static const char * const unit[] = { "MiB", "GiB", "TiB" };
	unsigned int i = 0;
	u64 tenths;

	while (i < ARRAY_SIZE(unit) - 1 && bytes >> (30 + 10 * i))
		i++;
	tenths = mul_u64_u32_shr(bytes, 10, 20 + 10 * i);
	snprintf(buf, len, "%llu.%llu %s", div_u64(tenths, 10),
		 tenths % 10, unit[i]);
}

/**
 * l2arc_l2_mem_check() - refuse a cache device whose slot table would not
 * fit, before anything is allocated
 * @lc: the device, its block size set
 * @dev_blocks: the cache device's size, cache blocks
 * @error: set on refusal
 *
 * The slot table, its buckets and the log's dirty bitmap, counted for
 * every block of the device (the metadata's blocks too: at most 1 in 254
 * more than l2arc_persist_init() lays out), must fit in
 * l2arc_meta_percent of RAM.  A 640 GiB cache device of 4 KiB blocks
 * needs 3.0 GiB: in a 2 GiB machine its allocation ran the OOM killer.
 *
 * The text of *@error holds numbers, so it cannot be a literal; device-
 * mapper prints ti->error after the ctr has returned (and freed @lc), so
 * it lives in one of %L2ARC_ERROR_BUFS static buffers, used in turn: text
 * torn by that many loads refused at the same instant is the risk taken.
 *
 * Context: process context (the ctr).
 * Return: 0, or -ENOMEM with *@error set.
 */
static int l2arc_l2_mem_check(struct l2arc_c *lc, u64 dev_blocks,
			      char **error)
{
	static char bufs[L2ARC_ERROR_BUFS][L2ARC_ERROR_LEN];
	static atomic_t next = ATOMIC_INIT(0);
	u64 ram = L2ARC_ARC_MAX_BYTES, pct = l2arc_param(L2ARC_P_META_PERCENT);
	u64 limit = div_u64(ram * pct, 100);
	u64 need = l2arc_index_need(dev_blocks) +
		   BITS_TO_LONGS(DIV_ROUND_UP_ULL(dev_blocks,
						  L2ARC_LOG_ENTRIES)) *
		   sizeof(unsigned long);
	char n[32], l[32], r[32], *buf;

	if (need <= limit)
		return 0;
	l2arc_fmt_bytes(need, n, sizeof(n));
	l2arc_fmt_bytes(limit, l, sizeof(l));
	l2arc_fmt_bytes(ram, r, sizeof(r));
	buf = bufs[(unsigned int)atomic_inc_return(&next) % L2ARC_ERROR_BUFS];
	snprintf(buf, L2ARC_ERROR_LEN,
		 "Cache device needs %s of slot table, over %s: l2arc_meta_percent (%llu%%) of RAM (%s)",
		 n, l, pct, r);
	*error = buf;
	return -ENOMEM;
}

/**
 * l2arc_l2_check() - refuse a cache device this table cannot use, in the
 * ctr, before anything is allocated
 * @lc: the device, with its cache device open and its block size set
 * @slots: set to the cache device's size, blocks
 * @error: set on refusal
 *
 * Return: 0, -EINVAL for a cache device of 2^32 - 1 blocks or more or an
 * origin of more than 2^56 blocks, -ENOMEM for a slot table over
 * l2arc_meta_percent of RAM.
 */
int l2arc_l2_check(struct l2arc_c *lc, u64 *slots, char **error)
{
	*slots = bdev_nr_sectors(lc->cache->bdev) >> lc->block_shift;
	if (*slots >= L2ARC_SLOT_NONE) {
		*error = "Cache device has 2^32 - 1 blocks or more";
		return -EINVAL;
	}
	if (lc->nr_blocks > L2ARC_SLOT_OBLOCK + 1) {
		*error = "Origin has more than 2^56 blocks";
		return -EINVAL;
	}
	return l2arc_l2_mem_check(lc, *slots, error);
}

/**
 * l2arc_l2_init() - allocate the slot table of l2.nr_slots slots, in the
 * ctr, after l2arc_persist_init() has laid out the device
 * @lc: the device
 * @error: set on failure
 *
 * Return: 0 or -ENOMEM.
 */
int l2arc_l2_init(struct l2arc_c *lc, char **error)
{
	if (l2arc_index_init(&lc->l2.ix, lc->l2.nr_slots)) {
		*error = "Cannot allocate the cache device's slot table";
		return -ENOMEM;
	}
	return 0;
}

/**
 * l2arc_l2_exit() - free what l2arc_l2_init() allocated, in the dtr,
 * after the directory is gone
 * @lc: the device (may be half set up)
 */
void l2arc_l2_exit(struct l2arc_c *lc)
{
	atomic64_sub(lc->l2.l2only_reported, &l2arc_l2only_bytes);
	lc->l2.l2only_reported = 0;
	l2arc_index_exit(&lc->l2.ix);
}

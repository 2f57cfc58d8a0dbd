// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the L2ARC -- the cache device and the feed that fills it.
 *
 * Theory of operation
 * ===================
 *
 * The cache device is a ring of slots, one block each.  The feed (a
 * self-rescheduling delayed work on the device's own WQ_MEM_RECLAIM
 * workqueue, in the shape of OpenZFS's l2arc_feed_thread) takes blocks of
 * the ARC that are not on the cache device yet -- it scans T2 (MFU) and
 * then T1 (MRU), at most l2arc_headroom times its budget headers of each,
 * from where the previous feed stopped (a pinned cursor per list, as
 * OpenZFS's markers do since its pull request 18093) round from the LRU
 * end -- and writes them at the write hand in large sequential writes (up
 * to BIO_MAX_VECS pages a bio), straight from the ARC's pages, no copy.
 * Before it writes a region it evicts the L2 copies that the region holds
 * (nothing on the first lap).  A batch never wraps: when it does not fit
 * before the end of the ring the hand goes back to slot 0.
 *
 * Wear cap: once the cache device has been full (l2_laps > 0), a feed
 * writes no more than l2arc_dwpd_limit percent of one drive write per day
 * lets accrue since the previous feed (l2arc_dwpd_budget()).
 *
 * Hand-off at eviction: a block that the ARC evicts for room before any
 * feed took it would be lost to the cache device; instead its buffer goes
 * to the device's hand-off queue (l2arc_handoff(), from arc_ops.evict_data,
 * at most l2arc_handoff_max bytes; beyond that it is freed and counted in
 * l2_evict_missed), its header pinned and marked L2ARC_F_L2_WRITING so
 * that the directory keeps it as a ghost or L2-only header without
 * changing the paper's lists.  A feed writes the queue first, oldest
 * first, then scans.  A hand-off that fills half the queue brings the
 * next feed forward, with l2arc_feed_again only (l2arc_feed_kick()).
 * A queued header also has L2ARC_F_HANDOFF until a feed pops it: while
 * it has it, nothing else marks it L2ARC_F_L2_WRITING (so a popped entry
 * whose header still has that mark is live), and a feed's entry owns the
 * mark only while the header is not queued again (l2arc_owns()): a write
 * clears the mark, and a later hand-off of the new data sets it and
 * L2ARC_F_HANDOFF, so an older copy in flight is never validated.
 *
 * Budget per feed window: l2arc_write_max, plus l2arc_write_boost while
 * the ARC is cold ("warm" = the ARC has been full and evicted a block, not
 * "under memory pressure" as in OpenZFS), shared by the feeds of the
 * window (l2arc_win_enter()): a window opens with a feed when none is
 * open or it has ended, and with every feed by message; it lasts
 * l2arc_feed_secs, or l2arc_feed_min_ms once a feed in it wrote more than
 * half its budget and l2arc_feed_again is set.  One feed never writes
 * more than a quarter of the cache device; the scan takes no more than
 * the ARC's c (it writes only resident blocks; the cap keeps
 * l2arc_feed_again meaningful when write_max >> c).  The timer's next feed
 * comes at the window's end, or sooner when a hand-off asks for it (with
 * l2arc_feed_again); no timer or hand-off feed comes sooner than
 * l2arc_feed_min_ms after the previous one (a feed by message is neither).
 * Every value is read at every feed (the device's own, or the module
 * parameter's), so changes apply at the next feed.
 *
 * Eligible blocks: resident, fully read, not on L2, not being written to
 * L2, and not prefetch blocks (read ahead, not yet demanded) while
 * l2arc_noprefetch is 1.  A prefetch block already on L2 is still read
 * from L2.
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
 * to overwrite (l2_region_start..l2_region_end): from then on no read
 * starts there (a fill that would goes to the origin, counted in
 * l2_evict_reading), and the feed waits for the reads already in flight
 * there (counted too) before it evicts the region's copies and writes.
 * So a checksum mismatch is always the cache device's fault, and a copy
 * whose header was dropped while it was read (by a write, the shrinker,
 * a degrade) still holds what it held.
 *
 * Bulk work under arc.lock -- the feed's scan of the lists, evicting a
 * region, validating a batch, forgetting every copy of a degraded device
 * -- lets others in every L2ARC_LOCK_BATCH entries (l2arc_bulk_yield());
 * a scan keeps its place across the gap with a pinned header
 * (l2arc_walk_resume()), the other loops work on pinned or indexed
 * entries.  The longest hold is the lock_hold_max_us row.
 *
 * Locking: everything here is under arc.lock, except feed_mutex, which
 * serialises feeds (timer and message) and is taken outside arc.lock.
 */
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
 * struct l2arc_wentry - one block of a feed's batch
 * @hdr: its header, pinned for the write
 * @buf: its ARC buffer, referenced for the write
 * @slot: where it goes
 * @cksum: crc32c of its data
 * @handoff: it came from the hand-off queue (the block had been evicted)
 */
struct l2arc_wentry {
	struct arc_hdr *hdr;
	struct l2arc_buf *buf;
	u32 slot;
	u32 cksum;
	bool handoff;
};

/**
 * struct l2arc_wbatch - the bios of one feed in flight
 * @pending: bios not yet completed, plus one for the submitter
 * @done: completed when @pending drops to 0
 * @error: set when any bio failed
 */
struct l2arc_wbatch {
	atomic_t pending;
	struct completion done;
	blk_status_t error;
};

static unsigned int l2arc_block_bytes(struct l2arc_c *lc)
{
	return lc->block_sectors << SECTOR_SHIFT;
}

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

/*
 * Is @slot's copy @hdr's (its header, or its feed write's)?  The slot and
 * the header name each other.  Locked.
 */
static bool l2arc_slot_is(struct l2arc_c *lc, u64 slot, struct arc_hdr *hdr)
{
	const struct l2arc_slot *sl;

	if (slot >= lc->l2_nr_slots || hdr->l2_slot != slot)
		return false;
	sl = l2arc_slot(&lc->l2_ix, slot);
	return (sl->word & L2ARC_SLOT_HDR) &&
	       l2arc_slot_oblock(sl) == from_oblock(hdr->oblock);
}

/**
 * l2arc_slot_hdr() - the header that owns a slot's copy
 * @lc: the device, with a cache device
 * @slot: the slot, 0..l2_nr_slots - 1
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
	const struct l2arc_slot *sl = l2arc_slot(&lc->l2_ix, slot);
	struct arc_hdr *hdr;

	if (!(sl->word & L2ARC_SLOT_HDR))
		return NULL;
	hdr = arc_lookup(&lc->arc, to_oblock(l2arc_slot_oblock(sl)));
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
	struct l2arc_slot *sl = l2arc_slot(&lc->l2_ix, slot);
	unsigned int cls = l2arc_slot_class(sl->word);

	if (!l2arc_index_del(&lc->l2_ix, slot))
		return;
	lc->l2_blocks--;
	lc->l2_class_blocks[cls]--;
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
	if (!lc->l2_ix.nr_indexed)
		return L2ARC_SLOT_NONE;
	return l2arc_index_find(&lc->l2_ix, oblock);
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

	if (WARN_ON_ONCE(!l2arc_slot_is(lc, hdr->l2_slot, hdr)))
		return false;
	unverified = l2arc_slot(&lc->l2_ix, hdr->l2_slot)->word &
		     L2ARC_SLOT_UNVERIFIED;
	hdr->flags &= ~(L2ARC_F_CLASS_PREFETCH | L2ARC_F_CLASS_MFU);
	l2arc_index_add(&lc->l2_ix, hdr->l2_slot, from_oblock(hdr->oblock),
			cls);
	l2arc_slot(&lc->l2_ix, hdr->l2_slot)->word |= unverified;
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
	u32 slot = l2arc_l2_find(lc, from_oblock(hdr->oblock));
	struct l2arc_slot *sl;
	u8 cls;

	if (slot == L2ARC_SLOT_NONE)
		return false;
	sl = l2arc_slot(&lc->l2_ix, slot);
	cls = l2arc_class_to_hdr(sl->word);
	if (!l2arc_index_del(&lc->l2_ix, slot))
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

	if (l2arc_slot_is(lc, hdr->l2_slot, hdr)) {
		l2arc_slot(&lc->l2_ix, hdr->l2_slot)->word = 0;
		l2arc_log_dirty(lc, hdr->l2_slot);
	}
	lc->l2_blocks--;
	lc->l2_class_blocks[l2arc_class(hdr)]--;
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
	lc->l2_errors++;
	if (lc->l2_failed ||
	    lc->l2_errors < l2arc_dev_param(&lc->tun, L2ARC_P_MAX_ERRORS))
		return;
	WRITE_ONCE(lc->l2_failed, true);
	DMERR("%s: %llu cache device errors: cache device dropped, running from ARC and origin",
	      lc->name, lc->l2_errors);
}

/**
 * l2arc_l2_slow() - is the cache device slower than l2arc_slow_bypass_pct
 * allows?
 * @lc: the device
 *
 * Compares the EWMAs of the two devices' read latencies (per run, us; see
 * l2arc_note_read()): true while the cache device's is over
 * l2arc_slow_bypass_pct percent of the origin's.  False while either has
 * no measurement yet, and with the parameter 0.
 *
 * Context: any; lock-free.
 * Return: true if L2 hits should read the origin.
 */
bool l2arc_l2_slow(struct l2arc_c *lc)
{
	u64 pct = l2arc_param(L2ARC_P_SLOW_BYPASS_PCT);
	u64 l2 = ewma_l2arc_lat_read(&lc->l2_lat);
	u64 origin = ewma_l2arc_lat_read(&lc->origin_lat);

	return pct && l2 && origin && l2 * 100 > origin * pct;
}

/**
 * l2arc_note_read() - measure a run's read, at its completion
 * @lc: the device, with a cache device
 * @run: the run, its read done without error
 *
 * Adds the read's latency, in us, to the EWMA of the device it read (the
 * cache device's or the origin's): as bcache's congested_read_threshold,
 * but measured against the origin rather than a fixed bound.  A read
 * counts for at most %L2ARC_LAT_CLAMP times the average so far, so that
 * one stalled read (a request held, a hiccup of the machine) does not
 * make a device look slow; a real change still shows within a few dozen
 * reads (x 1.375 a read at most).
 *
 * Context: any (bio completion, hard IRQ included); lock-free.
 */
void l2arc_note_read(struct l2arc_c *lc, struct l2arc_run *run)
{
	struct ewma_l2arc_lat *e = run->from_l2 ? &lc->l2_lat : &lc->origin_lat;
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
 * latency measured (counted in l2_slow_bypass).  The copy stays in both
 * cases.  A fill that may read it must be put on @lc->l2_reads before
 * arc.lock is dropped.
 *
 * Context: arc.lock held.
 * Return: true if the fill may read the cache device.
 */
bool l2arc_l2_readable(struct l2arc_c *lc, u32 slot)
{
	lockdep_assert_held(&lc->arc.lock);
	if (READ_ONCE(lc->l2_failed))
		return false;
	if (slot >= lc->l2_region_start && slot < lc->l2_region_end) {
		lc->stats[L2ARC_STAT_L2_EVICT_READING]++;
		return false;
	}
	if (l2arc_l2_slow(lc) && ++lc->slow_seq % L2ARC_SLOW_PROBE) {
		lc->stats[L2ARC_STAT_L2_SLOW_BYPASS]++;
		return false;
	}
	return true;
}

/**
 * l2arc_l2_read_done() - a run's read of the cache device is over
 * @lc: the device
 * @run: the run, on @lc->l2_reads
 *
 * Takes it off the list and wakes a feed waiting for its slot.
 *
 * Context: arc.lock held.
 */
void l2arc_l2_read_done(struct l2arc_c *lc, struct l2arc_run *run)
{
	list_del_init(&run->l2_node);
	if (wq_has_sleeper(&lc->l2_read_wait))
		wake_up(&lc->l2_read_wait);
}

/* Evict the L2 copy in @slot ahead of the write hand; arc.lock held. */
static void l2arc_evict_slot(struct l2arc_c *lc, u64 slot)
{
	struct l2arc_slot *sl = l2arc_slot(&lc->l2_ix, slot);
	struct arc_hdr *hdr;

	if (sl->word & L2ARC_SLOT_INDEXED) {
		lc->stats[L2ARC_STAT_L2_EVICT_AHEAD]++;
		l2arc_index_drop(lc, slot);
		return;
	}
	if (!(sl->word & L2ARC_SLOT_HDR))
		return;
	hdr = l2arc_slot_hdr(lc, slot);
	if (hdr) {
		if (hdr->state == ARC_MRU || hdr->state == ARC_MFU)
			lc->stats[L2ARC_STAT_L2_EVICT_L1CACHED]++;
		lc->stats[L2ARC_STAT_L2_EVICT_AHEAD]++;
	}
	if (hdr && (hdr->flags & ARC_F_L2))
		arc_hdr_clear_l2(&lc->arc, hdr);
	else	/* a feed write that never completed: forget the slot */
		sl->word = 0;
}

static bool l2arc_eligible(struct arc_hdr *hdr, bool noprefetch)
{
	if (hdr->flags & (ARC_F_IO_IN_PROGRESS | ARC_F_L2 | L2ARC_F_L2_WRITING |
			  L2ARC_F_HANDOFF))
		return false;
	if (!hdr->data)
		return false;
	return !(noprefetch && (hdr->flags & ARC_F_PREFETCH));
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
	u64 now = arc_list_size(&lc->arc, ARC_LIST_L2ONLY) *
		  sizeof(struct arc_hdr);
	u64 limit = div_u64(L2ARC_ARC_MAX_BYTES *
			    l2arc_param(L2ARC_P_META_PERCENT), 100);

	atomic64_add(now - lc->l2only_reported, &l2arc_l2only_bytes);
	lc->l2only_reported = now;
	return atomic64_read(&l2arc_l2only_bytes) > limit;
}

/*
 * Mark resident @hdr as on its way to the cache device: pinned, its L2
 * size class from its state now; locked.
 */
static void l2arc_mark_writing(struct l2arc_c *lc, struct arc_hdr *hdr)
{
	arc_hdr_pin(&lc->arc, hdr);
	hdr->flags &= ~(L2ARC_F_CLASS_PREFETCH | L2ARC_F_CLASS_MFU);
	if (hdr->flags & ARC_F_PREFETCH)
		hdr->flags |= L2ARC_F_CLASS_PREFETCH;
	else if (hdr->state == ARC_MFU)
		hdr->flags |= L2ARC_F_CLASS_MFU;
	hdr->flags |= L2ARC_F_L2_WRITING;
}

/* Take @hdr into the batch: pinned, its buffer referenced, marked; locked. */
static void l2arc_take(struct l2arc_c *lc, struct l2arc_wentry *w,
		       struct arc_hdr *hdr)
{
	w->hdr = hdr;
	w->buf = hdr->data;
	w->handoff = false;
	l2arc_buf_get(w->buf);
	l2arc_mark_writing(lc, hdr);
}

/* l2arc_feed_min_ms, in jiffies */
static unsigned long l2arc_feed_min(struct l2arc_c *lc)
{
	return msecs_to_jiffies(l2arc_dev_param(&lc->tun, L2ARC_P_FEED_MIN_MS));
}

/*
 * The hand-off queue is half full: bring the next feed forward, with
 * l2arc_feed_again only, and never to less than l2arc_feed_min_ms after
 * the last timer or hand-off feed; it writes what its feed window has
 * left (not at all when less than a block: it waits for the window's end).
 * With l2arc_feed_again 0 the timer alone feeds, and the queue drops what
 * it cannot hold.  Locked.
 */
static void l2arc_feed_kick(struct l2arc_c *lc)
{
	unsigned long now = jiffies, at = now;

	lockdep_assert_held(&lc->arc.lock);
	/* a spent window waits for its end, where the timer is */
	if (!l2arc_dev_param(&lc->tun, L2ARC_P_FEED_AGAIN) || lc->win_spent)
		return;
	lc->feed_kicked = true;
	if (lc->feed_last_valid &&
	    time_before(now, lc->feed_last + l2arc_feed_min(lc)))
		at = lc->feed_last + l2arc_feed_min(lc);
	if (lc->feed_armed && !time_before(at, lc->feed_due))
		return;
	lc->feed_armed = true;
	lc->feed_due = at;
	mod_delayed_work(lc->feed_wq, &lc->feed_work, at - now);
}

/**
 * l2arc_handoff() - offer a block that the ARC evicts for room to the feed
 * @lc: the device
 * @hdr: the block's header, leaving T1 or T2 (its state still says which)
 * @buf: its data, with the ARC's reference
 *
 * Called by arc_ops.evict_data for a block the feed could write (not on
 * the cache device, not a prefetch block while l2arc_noprefetch is 1); a
 * block being written there already is left to that write.  While the
 * feed runs and the device's hand-off queue holds less than
 * l2arc_handoff_max bytes, the buffer (and the ARC's reference) goes to
 * the queue's tail and @hdr is pinned and marked %L2ARC_F_L2_WRITING, so
 * that the directory keeps it (as a ghost or an L2-only header) until
 * the feed has written the block; the ARC's lists change exactly as they
 * would have.  When the queue is full the block is
 * freed as before and counted in l2_evict_missed.  A hand-off that takes
 * the queue to half its bound or more brings the next feed forward, with
 * l2arc_feed_again only, to l2arc_feed_min_ms after the last timer or
 * hand-off feed at the soonest (l2arc_feed_kick()).
 *
 * Context: arc.lock held (from arc_ops.evict_data); does not sleep.
 * Return: true if the queue took @buf, false if the caller frees it.
 */
bool l2arc_handoff(struct l2arc_c *lc, struct arc_hdr *hdr,
		   struct l2arc_buf *buf)
{
	u64 bytes = l2arc_block_bytes(lc), max;

	if (!lc->feed_active || READ_ONCE(lc->l2_failed) ||
	    (hdr->flags & L2ARC_F_L2_WRITING))
		return false;
	max = l2arc_param(L2ARC_P_HANDOFF_MAX);
	/* an older hand-off of the block, made stale by a write, still queued */
	if ((hdr->flags & L2ARC_F_HANDOFF) ||
	    (lc->handoff_nr + 1) * bytes > max) {
		lc->stats[L2ARC_STAT_L2_EVICT_MISSED]++;
		return false;
	}
	l2arc_mark_writing(lc, hdr);
	hdr->flags |= L2ARC_F_HANDOFF;
	buf->handoff_hdr = hdr;
	buf->handoff_next = NULL;
	if (lc->handoff_tail)
		lc->handoff_tail->handoff_next = buf;
	else
		lc->handoff_head = buf;
	lc->handoff_tail = buf;
	lc->handoff_nr++;
	lc->stats[L2ARC_STAT_L2_HANDOFFS]++;
	if (!lc->feed_kicked && lc->handoff_nr * bytes * 2 >= max)
		l2arc_feed_kick(lc);
	return true;
}

/*
 * Take the oldest buffer off the hand-off queue, or NULL; locked.  Its
 * header loses %L2ARC_F_HANDOFF: while it had it, no feed and no other
 * hand-off could mark it %L2ARC_F_L2_WRITING, so the flag, if still set,
 * is this hand-off's (a write clears it).
 */
static struct l2arc_buf *l2arc_handoff_pop(struct l2arc_c *lc)
{
	struct l2arc_buf *buf = lc->handoff_head;

	if (!buf)
		return NULL;
	lc->handoff_head = buf->handoff_next;
	if (!lc->handoff_head)
		lc->handoff_tail = NULL;
	lc->handoff_nr--;
	buf->handoff_hdr->flags &= ~L2ARC_F_HANDOFF;
	return buf;
}

/*
 * Is the batch entry @w still the one that marked its header
 * %L2ARC_F_L2_WRITING?  Not once a write cleared the flag, nor once a
 * later hand-off (after such a write) marked it again: that one holds
 * %L2ARC_F_HANDOFF until the next feed.  @w->slot must have been given
 * (l2arc_assign()) unless @assigning.  Locked.
 */
static bool l2arc_owns(struct l2arc_wentry *w, bool assigning)
{
	struct arc_hdr *hdr = w->hdr;

	return (hdr->flags & L2ARC_F_L2_WRITING) &&
	       !(hdr->flags & L2ARC_F_HANDOFF) &&
	       (assigning || hdr->l2_slot == w->slot);
}

/*
 * An L2-only header kept only for a copy that will not come (no copy, no
 * write of one under way) leaves the directory; locked.
 */
static void l2arc_drop_uncopied(struct l2arc_c *lc, struct arc_hdr *hdr)
{
	if (hdr->state == ARC_L2ONLY &&
	    !(hdr->flags & (ARC_F_L2 | L2ARC_F_L2_WRITING)))
		arc_hdr_clear_l2(&lc->arc, hdr);
}

/*
 * A queued block will not be written: unmark and unpin its header and
 * free the buffer; locked.
 */
static void l2arc_handoff_forget(struct l2arc_c *lc, struct l2arc_buf *buf)
{
	struct arc_hdr *hdr = buf->handoff_hdr;

	hdr->flags &= ~L2ARC_F_L2_WRITING;
	l2arc_drop_uncopied(lc, hdr);
	arc_hdr_unpin(&lc->arc, hdr);
	l2arc_buf_put(lc, buf);
}

/*
 * Free up to @max of the oldest queued blocks unwritten, counting them in
 * l2_evict_missed if @missed.  Takes arc.lock itself.  Returns the blocks.
 */
static unsigned long l2arc_handoff_free(struct l2arc_c *lc,
					unsigned long max, bool missed)
{
	unsigned long n = 0;
	struct l2arc_hold h;
	struct l2arc_buf *buf;

	if (!READ_ONCE(lc->handoff_head))
		return 0;
	l2arc_bulk_lock(lc, &h);
	while (n < max && (buf = l2arc_handoff_pop(lc))) {
		l2arc_handoff_forget(lc, buf);
		if (missed)
			lc->stats[L2ARC_STAT_L2_EVICT_MISSED]++;
		n++;
		l2arc_bulk_yield(lc, &h);
	}
	l2arc_bulk_unlock(lc, &h);
	return n;
}

/**
 * l2arc_handoff_drop() - empty the hand-off queue without writing it
 * @lc: the device, its directory set up
 *
 * In the dtr, and by the feed of a degraded device.
 *
 * Context: process context; takes arc.lock.
 */
void l2arc_handoff_drop(struct l2arc_c *lc)
{
	l2arc_handoff_free(lc, ULONG_MAX, false);
}

/**
 * l2arc_handoff_shrink() - give hand-off queue memory back (shrinker)
 * @lc: the device
 * @nr_pages: pages asked for
 *
 * Frees the oldest queued blocks unwritten, enough for @nr_pages, each
 * counted in l2_evict_missed.  Their pages go through the pool, which the
 * caller empties.
 *
 * Context: process context (reclaim); takes arc.lock.
 * Return: blocks freed.
 */
unsigned long l2arc_handoff_shrink(struct l2arc_c *lc, unsigned long nr_pages)
{
	return l2arc_handoff_free(lc, DIV_ROUND_UP(nr_pages, lc->block_pages),
				  true);
}

/*
 * Take up to @n blocks from the hand-off queue into the batch, oldest
 * first; a block written to (or otherwise dropped) since its hand-off has
 * lost %L2ARC_F_L2_WRITING and is freed instead.  Takes arc.lock itself.
 */
static unsigned int l2arc_collect_handoff(struct l2arc_c *lc,
					  struct l2arc_wentry *w,
					  unsigned int n)
{
	struct l2arc_hold h;
	struct l2arc_buf *buf;
	unsigned int got = 0;

	l2arc_bulk_lock(lc, &h);
	while (got < n && (buf = l2arc_handoff_pop(lc))) {
		struct arc_hdr *hdr = buf->handoff_hdr;

		if (!(hdr->flags & L2ARC_F_L2_WRITING) ||
		    hdr->state == ARC_DEAD) {
			l2arc_handoff_forget(lc, buf);
		} else {
			w[got].hdr = hdr;
			w[got].buf = buf;
			w[got].handoff = true;
			got++;
		}
		l2arc_bulk_yield(lc, &h);
	}
	l2arc_bulk_unlock(lc, &h);
	return got;
}

/* The lists the feed scans, in order, with their cursors' indexes. */
static const struct {
	enum arc_list_id id;
	u8 state;
} l2arc_feed_lists[L2ARC_FEED_LISTS] = {
	{ ARC_T2, ARC_MFU }, { ARC_T1, ARC_MRU },
};

/*
 * Where the scan of list @i starts: its cursor when it is still on the
 * list, else the LRU end; arc.lock held.
 */
static struct arc_hdr *l2arc_scan_start(struct l2arc_c *lc, unsigned int i)
{
	struct list_head *head = &lc->arc.lists[l2arc_feed_lists[i].id];
	struct arc_hdr *hdr = lc->feed_cursor[i];

	lc->feed_cursor[i] = NULL;
	if (hdr)
		hdr = l2arc_walk_resume(&lc->arc, hdr, l2arc_feed_lists[i].state);
	return hdr ?: list_first_entry_or_null(head, struct arc_hdr, list);
}

/*
 * Pick up to @n eligible blocks, scanning T2 then T1 at most @depth
 * headers each (U64_MAX: whole lists, from the LRU ends), and take them
 * (l2arc_take()).  A scan with a depth starts where the previous feed's
 * stopped (a pinned cursor per list) and goes on from the LRU end when it
 * reaches the MRU end, so that a steady ARC whose LRU ends are already on
 * the cache device is still fed in full.  Takes arc.lock itself, letting
 * others in every L2ARC_LOCK_BATCH headers.
 */
static unsigned int l2arc_collect(struct l2arc_c *lc, struct l2arc_wentry *w,
				  unsigned int n, u64 depth, bool noprefetch)
{
	struct list_head *head;
	struct arc_hdr *hdr;
	struct l2arc_hold h;
	unsigned int i, got = 0, restarts;
	bool wrapped;
	u64 scanned;

	l2arc_bulk_lock(lc, &h);
	for (i = 0; i < L2ARC_FEED_LISTS; i++) {
		head = &lc->arc.lists[l2arc_feed_lists[i].id];
		scanned = 0;
		restarts = 0;
		hdr = l2arc_scan_start(lc, i);
		/* from the LRU end already: no wrap needed */
		wrapped = hdr == list_first_entry_or_null(head, struct arc_hdr,
							  list);
		while (hdr && got < n && scanned < depth) {
			scanned++;
			if (l2arc_eligible(hdr, noprefetch))
				l2arc_take(lc, &w[got++], hdr);
			hdr = list_is_last(&hdr->list, head) ? NULL :
			      list_next_entry(hdr, list);
			if (!hdr && !wrapped) {	/* the MRU end: go round */
				wrapped = true;
				hdr = list_first_entry_or_null(head,
							       struct arc_hdr,
							       list);
			}
			if (!hdr || restarts >= L2ARC_SCAN_RESTARTS ||
			    !l2arc_bulk_due(&h))
				continue;
			arc_hdr_pin(&lc->arc, hdr);
			l2arc_bulk_relax(lc, &h);
			hdr = l2arc_walk_resume(&lc->arc, hdr,
						l2arc_feed_lists[i].state);
			if (!hdr) {	/* it moved: from the LRU end again */
				restarts++;
				hdr = list_first_entry_or_null(head,
							       struct arc_hdr,
							       list);
			}
		}
		/* the next feed goes on from here */
		if (hdr && depth != U64_MAX) {
			arc_hdr_pin(&lc->arc, hdr);
			lc->feed_cursor[i] = hdr;
		}
	}
	l2arc_bulk_unlock(lc, &h);
	return got;
}

/* Forget the scan cursors (feed stopped, or the device going away). */
static void l2arc_scan_reset(struct l2arc_c *lc)
{
	unsigned int i;

	/* set by feeds only, so none on a target that never resumed */
	for (i = 0; i < L2ARC_FEED_LISTS; i++) {
		if (!lc->feed_cursor[i])
			continue;
		spin_lock_bh(&lc->arc.lock);
		arc_hdr_unpin(&lc->arc, lc->feed_cursor[i]);
		lc->feed_cursor[i] = NULL;
		spin_unlock_bh(&lc->arc.lock);
	}
}

/* Is a read of a slot in the feed's region in flight?  arc.lock held. */
static unsigned int l2arc_region_reads(struct l2arc_c *lc)
{
	struct l2arc_run *run;
	unsigned int n = 0;

	list_for_each_entry(run, &lc->l2_reads, l2_node)
		if (run->l2_slot < lc->l2_region_end &&
		    run->l2_slot + run->nr > lc->l2_region_start)
			n++;
	return n;
}

static bool l2arc_region_idle(struct l2arc_c *lc)
{
	bool idle;

	spin_lock_bh(&lc->arc.lock);
	idle = !l2arc_region_reads(lc);
	spin_unlock_bh(&lc->arc.lock);
	return idle;
}

/*
 * Choose the region for @n blocks at the write hand (a batch never wraps:
 * when it does not fit before the end of the ring the hand goes back to
 * slot 0), publish it so that no new read starts there, and wait for the
 * reads already in flight there.  Returns its first slot.
 */
static u64 l2arc_region_claim(struct l2arc_c *lc, unsigned int n)
{
	u64 start;
	unsigned int busy;

	spin_lock_bh(&lc->arc.lock);
	if (lc->l2_hand + n > lc->l2_nr_slots) {
		lc->l2_hand = 0;
		lc->l2_laps++;
	}
	start = lc->l2_hand;
	lc->l2_region_start = start;
	lc->l2_region_end = start + n;
	busy = l2arc_region_reads(lc);
	lc->stats[L2ARC_STAT_L2_EVICT_READING] += busy;
	spin_unlock_bh(&lc->arc.lock);

	if (busy)
		wait_event(lc->l2_read_wait, l2arc_region_idle(lc));
	return start;
}

/*
 * Evict the region's copies and give the batch its slots; the region is
 * then closed again (no header points into it with %ARC_F_L2 any more).
 */
static void l2arc_assign(struct l2arc_c *lc, struct l2arc_wentry *w,
			 unsigned int n, u64 start)
{
	struct l2arc_hold h;
	unsigned int i;

	l2arc_bulk_lock(lc, &h);
	for (i = 0; i < n; i++) {
		l2arc_evict_slot(lc, start + i);
		l2arc_bulk_yield(lc, &h);
	}
	for (i = 0; i < n; i++) {
		w[i].slot = start + i;
		/* a block written to since it was taken is written, not kept */
		if (l2arc_owns(&w[i], true)) {
			w[i].hdr->l2_slot = w[i].slot;
			l2arc_slot(&lc->l2_ix, w[i].slot)->word =
				from_oblock(w[i].hdr->oblock) | L2ARC_SLOT_HDR;
		}
		l2arc_bulk_yield(lc, &h);
	}
	lc->l2_hand = start + n;
	lc->l2_region_start = 0;
	lc->l2_region_end = 0;
	l2arc_bulk_unlock(lc, &h);
}

static void l2arc_write_endio(struct bio *bio)
{
	struct l2arc_wbatch *b = bio->bi_private;

	if (bio->bi_status)
		b->error = bio->bi_status;
	bio_put(bio);
	if (atomic_dec_and_test(&b->pending))
		complete(&b->done);
}

/*
 * Write the batch, consecutive slots, BIO_MAX_VECS pages a bio; wait.
 * Return: the number of bios sent.
 */
static unsigned int l2arc_write_batch(struct l2arc_c *lc,
				      struct l2arc_wentry *w, unsigned int n,
				      struct l2arc_wbatch *b)
{
	unsigned int per_bio = BIO_MAX_VECS / lc->block_pages, i = 0, sent = 0;
	struct blk_plug plug;

	atomic_set(&b->pending, 1);
	init_completion(&b->done);
	b->error = BLK_STS_OK;

	blk_start_plug(&plug);
	while (i < n) {
		unsigned int nr = min_t(unsigned int, n - i, per_bio);
		struct bio *bio;
		unsigned int j;

		bio = bio_alloc_bioset(lc->cache->bdev, nr * lc->block_pages,
				       REQ_OP_WRITE, GFP_NOIO, &lc->l2_bs);
		bio->bi_iter.bi_sector = l2arc_slot_sector(lc, w[i].slot);
		for (j = 0; j < nr; j++)
			l2arc_buf_add_to_bio(bio, w[i + j].buf);
		bio->bi_end_io = l2arc_write_endio;
		bio->bi_private = b;
		atomic_inc(&b->pending);
		submit_bio(bio);
		i += nr;
		sent++;
	}
	blk_finish_plug(&plug);

	if (!atomic_dec_and_test(&b->pending))
		wait_for_completion_io(&b->done);
	return sent;
}

/*
 * The writes are done: validate what is still valid, unpin the batch.
 * Takes arc.lock itself (in batches).
 */
static void l2arc_finish_batch(struct l2arc_c *lc, struct l2arc_wentry *w,
			       unsigned int n, bool ok)
{
	struct l2arc_hold h;
	unsigned int i;

	l2arc_bulk_lock(lc, &h);
	for (i = 0; i < n; i++) {
		struct arc_hdr *hdr = w[i].hdr;
		bool resident = hdr->state == ARC_MRU || hdr->state == ARC_MFU;
		bool gone = hdr->state == ARC_MRU_GHOST ||
			    hdr->state == ARC_MFU_GHOST ||
			    hdr->state == ARC_L2ONLY;
		/*
		 * Still this entry's claim: no write to the block since it
		 * was taken (a write clears the flag), so the copy is the
		 * block's data; a resident block taken by the scan must
		 * still hold that buffer, a handed-off one may have been
		 * read in again since.
		 */
		bool owns = l2arc_owns(&w[i], false);
		bool valid = ok && owns &&
			     (gone || (resident &&
				       (w[i].handoff || hdr->data == w[i].buf)));

		if (owns)
			hdr->flags &= ~L2ARC_F_L2_WRITING;
		if (valid) {
			l2arc_slot(&lc->l2_ix, w[i].slot)->cksum = w[i].cksum;
			arc_hdr_set_l2(&lc->arc, hdr);
			l2arc_log_dirty(lc, w[i].slot);
			lc->l2_blocks++;
			lc->l2_class_blocks[l2arc_class(hdr)]++;
		} else {
			if (l2arc_slot_is(lc, w[i].slot, hdr))
				l2arc_slot(&lc->l2_ix, w[i].slot)->word = 0;
			l2arc_drop_uncopied(lc, hdr);
		}
		arc_hdr_unpin(&lc->arc, hdr);
		l2arc_bulk_yield(lc, &h);
	}
	l2arc_bulk_unlock(lc, &h);
	for (i = 0; i < n; i++)
		l2arc_buf_put(lc, w[i].buf);
}

/*
 * The cache device was dropped: forget every L2 copy, so that their
 * headers (L2-only ones above all) stop holding memory.  Once per
 * degrade, in batches.  Called by the feed.
 */
static void l2arc_drop_all(struct l2arc_c *lc)
{
	struct l2arc_hold h;
	u64 s;

	l2arc_bulk_lock(lc, &h);
	for (s = 0; s < lc->l2_nr_slots; s++) {
		struct arc_hdr *hdr;

		if (l2arc_slot(&lc->l2_ix, s)->word & L2ARC_SLOT_INDEXED) {
			l2arc_index_drop(lc, s);
		} else {
			hdr = l2arc_slot_hdr(lc, s);
			if (hdr && (hdr->flags & ARC_F_L2))
				arc_hdr_clear_l2(&lc->arc, hdr);
		}
		l2arc_bulk_yield(lc, &h);
	}
	lc->l2_dropped = true;
	l2arc_bulk_unlock(lc, &h);
}

/**
 * l2arc_dwpd_cap() - the wear cap of the device's feed
 * @lc: the device
 *
 * l2arc_dwpd_limit percent of one cache device write per day:
 * size x limit / 100 / 86400 (a 1 TB device at 100 %: 11.57 MB/s).
 *
 * Context: any.
 * Return: bytes/s, 0 for no cap (l2arc_dwpd_limit 0, or no cache device).
 */
u64 l2arc_dwpd_cap(struct l2arc_c *lc)
{
	u64 size = lc->l2_dev_blocks * l2arc_block_bytes(lc);

	return mul_u64_u64_div_u64(size, l2arc_dev_param(&lc->tun,
							 L2ARC_P_DWPD_LIMIT),
				   100 * 86400);
}

/*
 * Time buckets: @bytes[i] counts period @period[i] (seconds or hours),
 * bucket i taking the periods that are i modulo @n.  Add @v to period
 * @now's bucket (restarting it if it held an older period).
 */
static void l2arc_buckets_add(u64 *bytes, u64 *period, unsigned int n,
			      u64 now, u64 v)
{
	unsigned int i = now % n;

	if (period[i] != now) {
		period[i] = now;
		bytes[i] = 0;
	}
	bytes[i] += v;
}

/* The sum of the buckets of period @now and the @n - 1 before it. */
static u64 l2arc_buckets_sum(const u64 *bytes, const u64 *period,
			     unsigned int n, u64 now)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (period[i] + n > now)
			sum += bytes[i];
	return sum;
}

/**
 * l2arc_wear_24h() - bytes written to the cache device in the last 24 hours
 * @lc: the device
 *
 * The sum of the hourly buckets of this hour and the 23 before it.
 *
 * Context: arc.lock held.
 * Return: bytes.
 */
u64 l2arc_wear_24h(struct l2arc_c *lc)
{
	return l2arc_buckets_sum(lc->wear_bytes, lc->wear_hour,
				 L2ARC_WEAR_HOURS,
				 div_u64(ktime_get_seconds(), 3600));
}

/**
 * l2arc_write_rate() - the feed's write rate now
 * @lc: the device
 *
 * Bytes written in this second and the L2ARC_RATE_SECS - 1 before it,
 * divided by L2ARC_RATE_SECS.
 *
 * Context: arc.lock held.
 * Return: bytes/s.
 */
u64 l2arc_write_rate(struct l2arc_c *lc)
{
	return div_u64(l2arc_buckets_sum(lc->rate_bytes, lc->rate_sec,
					 L2ARC_RATE_SECS, ktime_get_seconds()),
		       L2ARC_RATE_SECS);
}

/*
 * Account @wrote bytes of a feed in the per-second and hourly buckets;
 * arc.lock held (with l2_write_bytes, so that l2_write_bytes_24h agrees
 * with it in one reading).
 */
static void l2arc_wear_add(struct l2arc_c *lc, u64 wrote)
{
	u64 sec = ktime_get_seconds();

	l2arc_buckets_add(lc->wear_bytes, lc->wear_hour, L2ARC_WEAR_HOURS,
			  div_u64(sec, 3600), wrote);
	l2arc_buckets_add(lc->rate_bytes, lc->rate_sec, L2ARC_RATE_SECS, sec,
			  wrote);
}

/*
 * The wear cap on this feed's budget: none while the cache device has not
 * been full yet (its first fill, as OpenZFS), else the bytes the cap has
 * let accrue since the last feed (a token bucket that holds at most one
 * l2arc_feed_secs of the cap, and at least one block).  Under feed_mutex.
 * Return: the most this feed may write, bytes (U64_MAX: no cap).
 */
static u64 l2arc_dwpd_budget(struct l2arc_c *lc)
{
	u64 cap = l2arc_dwpd_cap(lc), most;
	unsigned long now = jiffies;
	unsigned int ms = jiffies_to_msecs(now - lc->dwpd_at);

	lc->dwpd_at = now;
	if (!cap || !READ_ONCE(lc->l2_laps)) {
		lc->dwpd_tokens = 0;
		return U64_MAX;
	}
	most = max_t(u64, cap * l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS),
		     l2arc_block_bytes(lc));
	lc->dwpd_tokens = min(most, lc->dwpd_tokens +
			      mul_u64_u64_div_u64(cap, ms, 1000));
	return lc->dwpd_tokens;
}

/*
 * When the current feed window ends: l2arc_feed_secs after it opened, or
 * l2arc_feed_min_ms when l2arc_feed_again is set and a feed in it wrote
 * more than half its budget; never sooner than l2arc_feed_min_ms.  Locked.
 */
static unsigned long l2arc_win_end(struct l2arc_c *lc)
{
	unsigned long len = l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS) * HZ;

	if (lc->win_busy && l2arc_dev_param(&lc->tun, L2ARC_P_FEED_AGAIN))
		len = 0;
	return lc->win_start + max(len, l2arc_feed_min(lc));
}

/*
 * A feed starts: a feed by message always opens a new feed window, any
 * other feed only when none is open or the open one has ended.  Locked.
 */
static void l2arc_win_enter(struct l2arc_c *lc, bool message)
{
	unsigned long now = jiffies;

	lockdep_assert_held(&lc->arc.lock);
	if (!message && lc->win_open && time_before(now, l2arc_win_end(lc)))
		return;
	lc->win_open = true;
	lc->win_start = now;
	lc->win_used = 0;
	lc->win_busy = false;
	lc->win_spent = false;
}

/*
 * When the timer's next feed is due: at the end of the feed window, never
 * sooner than l2arc_feed_min_ms after the last timer or hand-off feed
 * started, never in the past.  Locked.
 */
static unsigned long l2arc_feed_next(struct l2arc_c *lc)
{
	unsigned long now = jiffies, next;

	next = lc->win_open ? l2arc_win_end(lc) :
	       now + l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS) * HZ;
	if (lc->feed_last_valid &&
	    time_before(next, lc->feed_last + l2arc_feed_min(lc)))
		next = lc->feed_last + l2arc_feed_min(lc);
	return time_before(next, now) ? now : next;
}

/*
 * One feed: write the ARC's tails to the cache device.  @message: a feed
 * by message (else the timer's, or a hand-off's).  The feeds of one feed
 * window (l2arc_win_enter()) share its budget, l2arc_write_max (plus
 * l2arc_write_boost while the ARC is cold): this feed writes what the
 * window's earlier feeds left of it.  Returns when the feed's writes are
 * done.  feed_mutex held; process context.
 * Return: bytes written to the cache device (0 when nothing was eligible,
 * there is no usable cache device, or L2 header memory is over its bound).
 */
static u64 l2arc_feed_locked(struct l2arc_c *lc, bool message)
{
	unsigned int bytes = l2arc_block_bytes(lc), n_max, scan_max, n = 0;
	unsigned int sent, i;
	struct l2arc_wentry *w = NULL;
	struct l2arc_wbatch b;
	unsigned int noio;
	bool noprefetch;
	u64 depth, headroom, start, wrote = 0, win_max, budget;

	lockdep_assert_held(&lc->feed_mutex);
	if (!lc->cache)
		goto out;
	/* the first feed after a load reads the log back first */
	l2arc_rebuild_run(lc);
	if (READ_ONCE(lc->l2_failed)) {
		l2arc_handoff_drop(lc);
		if (!lc->l2_dropped)
			l2arc_drop_all(lc);
		goto out;
	}

	win_max = l2arc_dev_param(&lc->tun, L2ARC_P_WRITE_MAX);
	if (!arc_is_warm(&lc->arc))
		win_max += l2arc_dev_param(&lc->tun, L2ARC_P_WRITE_BOOST);
	/* at least one block (OpenZFS rounds up to one buffer) */
	win_max = max_t(u64, win_max, bytes);
	spin_lock_bh(&lc->arc.lock);
	l2arc_win_enter(lc, message);
	budget = win_max - min(win_max, lc->win_used);
	spin_unlock_bh(&lc->arc.lock);
	/*
	 * Never more than a quarter of the cache device (as OpenZFS).  The
	 * scan of the lists takes no more than the ARC holds either: it
	 * writes only resident blocks, and with its budget capped at c,
	 * "wrote more than half its budget" (l2arc_feed_again) still means
	 * a busy feed when write_max is far larger than the ARC.  The
	 * hand-off queue, taken first, may use the whole budget.
	 */
	budget = min_t(u64, budget, (lc->l2_nr_slots / 4) * bytes);
	budget = min(budget, l2arc_dwpd_budget(lc));
	/* the window spent, or the wear cap: not one block yet */
	if (budget < bytes)
		goto out;
	n_max = div_u64(budget, bytes);
	budget = min_t(u64, budget, arc_c(&lc->arc) * bytes);
	scan_max = max_t(u64, 1, div_u64(budget, bytes));
	headroom = l2arc_dev_param(&lc->tun, L2ARC_P_HEADROOM);
	depth = headroom ? (u64)scan_max * headroom : U64_MAX;
	noprefetch = l2arc_dev_param(&lc->tun, L2ARC_P_NOPREFETCH);

	/* the batch may be large: vmalloc may serve it, but no I/O */
	noio = memalloc_noio_save();
	w = kvmalloc_array(n_max, sizeof(*w), GFP_KERNEL | __GFP_NOWARN);
	memalloc_noio_restore(noio);

	spin_lock_bh(&lc->arc.lock);
	if (!w || l2arc_meta_over(lc)) {
		lc->stats[L2ARC_STAT_L2_ABORT_LOWMEM]++;
		spin_unlock_bh(&lc->arc.lock);
		goto out;
	}
	lc->stats[L2ARC_STAT_L2_FEEDS]++;
	lc->feed_kicked = false;
	if (!message) {
		lc->feed_last = jiffies;
		lc->feed_last_valid = true;
	}
	spin_unlock_bh(&lc->arc.lock);

	n = l2arc_collect_handoff(lc, w, n_max);
	if (n < scan_max)
		n += l2arc_collect(lc, w + n, scan_max - n, depth, noprefetch);
	if (!n)
		goto out;
	start = l2arc_region_claim(lc, n);
	l2arc_assign(lc, w, n, start);

	for (i = 0; i < n; i++) {
		w[i].cksum = l2arc_buf_cksum(w[i].buf);
		cond_resched();
	}
	sent = l2arc_write_batch(lc, w, n, &b);

	l2arc_finish_batch(lc, w, n, b.error == BLK_STS_OK);
	spin_lock_bh(&lc->arc.lock);
	lc->stats[L2ARC_STAT_L2_WRITES_SENT] += sent;
	if (b.error == BLK_STS_OK) {
		lc->stats[L2ARC_STAT_L2_WRITES_DONE] += sent;
		lc->stats[L2ARC_STAT_L2_WRITE_BYTES] += (u64)n * bytes;
		wrote = (u64)n * bytes;
	} else {
		lc->stats[L2ARC_STAT_L2_WRITES_ERROR] += sent;
		l2arc_l2_error(lc);
	}
	/* a failed batch wore the device too, and used the window */
	l2arc_wear_add(lc, (u64)n * bytes);
	lc->win_used += (u64)n * bytes;
	lc->win_busy |= wrote > budget / 2;
	lc->win_spent = lc->win_used + bytes > win_max;
	spin_unlock_bh(&lc->arc.lock);
	lc->dwpd_tokens -= min(lc->dwpd_tokens, (u64)n * bytes);
	/* the log blocks that describe the batch, and any others changed */
	if (b.error == BLK_STS_OK)
		l2arc_log_write_dirty(lc);
out:
	kvfree(w);
	return wrote;
}

/**
 * l2arc_feed_now() - one feed, run by the l2arc_feed message
 * @lc: the device
 *
 * Runs the feed only while the device is resumed, tested under
 * feed_mutex: l2arc_feed_stop() clears feed_active before it takes
 * feed_mutex, and a postsuspend marks the cache device clean only after
 * that, so no feed by message writes to a device whose header says
 * clean.  Returns when the feed's writes are done.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EBUSY when the device is suspended (or not resumed yet).
 */
int l2arc_feed_now(struct l2arc_c *lc)
{
	int r = -EBUSY;

	mutex_lock(&lc->feed_mutex);
	if (READ_ONCE(lc->feed_active)) {
		l2arc_feed_locked(lc, true);
		r = 0;
	}
	mutex_unlock(&lc->feed_mutex);
	return r;
}

static void l2arc_feed_worker(struct work_struct *work)
{
	struct l2arc_c *lc = container_of(to_delayed_work(work),
					  struct l2arc_c, feed_work);
	unsigned long next, now;

	spin_lock_bh(&lc->arc.lock);
	lc->feed_armed = false;
	spin_unlock_bh(&lc->arc.lock);
	/* runs only while the feed is active: l2arc_feed_stop() cancels it */
	mutex_lock(&lc->feed_mutex);
	l2arc_feed_locked(lc, false);
	mutex_unlock(&lc->feed_mutex);
	spin_lock_bh(&lc->arc.lock);
	next = l2arc_feed_next(lc);
	now = jiffies;
	/* not if a hand-off queued it again while this feed ran */
	if (queue_delayed_work(lc->feed_wq, &lc->feed_work,
			       time_after(next, now) ? next - now : 0)) {
		lc->feed_armed = true;
		lc->feed_due = next;
	}
	spin_unlock_bh(&lc->arc.lock);
}

/**
 * l2arc_feed_start() - (re)start the feed, at resume
 * @lc: the device
 */
void l2arc_feed_start(struct l2arc_c *lc)
{
	/* at once when the log is still to be read back (a rebuild) */
	unsigned long delay = READ_ONCE(lc->l2_rebuilding) ? 0 :
		l2arc_dev_param(&lc->tun, L2ARC_P_FEED_SECS) * HZ;

	if (!lc->cache)
		return;
	lc->dwpd_at = jiffies;
	spin_lock_bh(&lc->arc.lock);
	WRITE_ONCE(lc->feed_active, true);
	lc->feed_kicked = false;
	lc->feed_last_valid = false;
	lc->win_open = false;
	lc->win_spent = false;
	lc->feed_armed = true;
	lc->feed_due = jiffies + delay;
	queue_delayed_work(lc->feed_wq, &lc->feed_work, delay);
	spin_unlock_bh(&lc->arc.lock);
}

/**
 * l2arc_feed_stop() - stop the feed and wait for a running one, at
 * postsuspend and in the dtr
 * @lc: the device
 *
 * Context: process context, may sleep.
 */
void l2arc_feed_stop(struct l2arc_c *lc)
{
	if (!lc->feed_wq)
		return;
	if (lc->feed_active) {	/* no hand-off queues it any more */
		spin_lock_bh(&lc->arc.lock);
		WRITE_ONCE(lc->feed_active, false);
		spin_unlock_bh(&lc->arc.lock);
	}
	cancel_delayed_work_sync(&lc->feed_work);
	mutex_lock(&lc->feed_mutex);	/* wait for a feed run by message */
	l2arc_scan_reset(lc);
	mutex_unlock(&lc->feed_mutex);
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
 * l2arc_l2_init() - set up the cache device's ring and feed, in the ctr
 * @lc: the device, with its cache device open
 * @error: set on failure
 *
 * Return: 0, -EINVAL for a cache device of 2^32 - 1 blocks or more or an
 * origin of more than 2^56 blocks, -ENOMEM (also for a slot table over
 * l2arc_meta_percent of RAM, refused before any allocation).
 */
int l2arc_l2_init(struct l2arc_c *lc, char **error)
{
	u64 slots = bdev_nr_sectors(lc->cache->bdev) >> lc->block_shift;
	int r;

	if (slots >= L2ARC_SLOT_NONE) {
		*error = "Cache device has 2^32 - 1 blocks or more";
		return -EINVAL;
	}
	if (lc->nr_blocks > L2ARC_SLOT_OBLOCK + 1) {
		*error = "Origin has more than 2^56 blocks";
		return -EINVAL;
	}
	r = l2arc_l2_mem_check(lc, slots, error);
	if (r)
		return r;
	r = l2arc_persist_init(lc, slots, error);
	if (r)
		return r;
	slots = lc->l2_nr_slots;
	if (l2arc_index_init(&lc->l2_ix, slots)) {
		*error = "Cannot allocate the cache device's slot table";
		return -ENOMEM;
	}
	if (bioset_init(&lc->l2_bs, BIO_POOL_SIZE, 0, BIOSET_NEED_BVECS)) {
		*error = "Cannot allocate the feed's bio set";
		return -ENOMEM;
	}
	lc->l2_bs_ready = true;
	lc->feed_wq = alloc_workqueue("dm-l2arc-feed-%s", WQ_MEM_RECLAIM, 1,
				      lc->name);
	if (!lc->feed_wq) {
		*error = "Cannot allocate the feed's workqueue";
		return -ENOMEM;
	}
	INIT_DELAYED_WORK(&lc->feed_work, l2arc_feed_worker);
	return 0;
}

/**
 * l2arc_l2_exit() - tear down what l2arc_l2_init() set up, in the dtr,
 * after the directory is gone
 * @lc: the device (may be half set up)
 */
void l2arc_l2_exit(struct l2arc_c *lc)
{
	if (lc->feed_wq)
		destroy_workqueue(lc->feed_wq);
	lc->feed_wq = NULL;
	if (lc->l2_bs_ready)
		bioset_exit(&lc->l2_bs);
	lc->l2_bs_ready = false;
	atomic64_sub(lc->l2only_reported, &l2arc_l2only_bytes);
	lc->l2only_reported = 0;
	l2arc_index_exit(&lc->l2_ix);
	l2arc_persist_exit(lc);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: writes -- the tree of writes in flight and the invalidation
 * of the blocks they write.
 *
 * Theory of operation
 * ===================
 *
 * Writes, discards and write-zeroes are taken whole (io.c's map sends
 * them on to the origin in the shape the writer gave them, FUA and
 * PREFLUSH kept).  Before one is issued, l2arc_write_begin() enters its
 * block range in an interval tree of writes in flight (its node lives in
 * the bio's per-bio data: no allocation) and drops every cached copy of
 * those blocks -- the ARC's, the cache device's, a feed write's in flight
 * -- under one bulk hold of arc.lock; its completion (io.c's end_io)
 * takes the range out again.  A read that finds one of its blocks in the
 * tree goes around the ARC (l2arc_wr_overlaps()), so no fill can start
 * whose data might be older than the write: see "Never stale" in
 * target.c.  A range invalidation walks whichever is shorter, the range's
 * blocks or the lists, and lets other I/O in every L2ARC_LOCK_BATCH
 * entries (lock.c).  While the persistent L2ARC is being rebuilt, the
 * range is also recorded so that the rebuild leaves it out
 * (l2arc_rebuild_note_write(), persist.c).
 *
 * Locking: the tree under iop.wr_lock, taken with interrupts off (write
 * completions may run in hard interrupt context), inside arc.lock when
 * both are held; an entry is made under arc.lock, so that a reader
 * holding arc.lock that finds iop.wr_count 0 knows no write of its block
 * has been issued.
 */

#include <linux/bio.h>
#include <linux/interval_tree_generic.h>

#include "dm-l2arc.h"
#include "whatif.h"

#define L2ARC_WR_START(w)	((w)->start)
#define L2ARC_WR_LAST(w)	((w)->last)

INTERVAL_TREE_DEFINE(struct l2arc_wrange, rb, u64, subtree_last,
		     L2ARC_WR_START, L2ARC_WR_LAST, static __maybe_unused,
		     l2arc_wr)

/* A write to blocks [first, last] is about to be issued; arc.lock held. */
static void l2arc_wr_enter(struct l2arc_c *lc, struct l2arc_wrange *wr)
{
	unsigned long flags;

	spin_lock_irqsave(&lc->iop.wr_lock, flags);
	l2arc_wr_insert(wr, &lc->iop.wr_tree);
	atomic_inc(&lc->iop.wr_count);
	spin_unlock_irqrestore(&lc->iop.wr_lock, flags);
}

/**
 * l2arc_wr_exit() - a write has completed: it leaves the tree of writes
 * in flight
 * @lc: the device
 * @wr: its entry, made by l2arc_write_begin()
 *
 * Context: any, hard interrupt context included.
 */
void l2arc_wr_exit(struct l2arc_c *lc, struct l2arc_wrange *wr)
{
	unsigned long flags;

	spin_lock_irqsave(&lc->iop.wr_lock, flags);
	l2arc_wr_remove(wr, &lc->iop.wr_tree);
	atomic_dec(&lc->iop.wr_count);
	spin_unlock_irqrestore(&lc->iop.wr_lock, flags);
}

/**
 * l2arc_wr_overlaps() - is a write to any of blocks [@first, @last] in
 * flight?
 * @lc: the device
 * @first: the first block
 * @last: the last block, @first or more
 *
 * Every write entered before this call is seen (entries are made under
 * arc.lock); one that completes meanwhile may still be.
 *
 * Context: arc.lock held.
 * Return: true if one is.
 */
bool l2arc_wr_overlaps(struct l2arc_c *lc, u64 first, u64 last)
{
	unsigned long flags;
	bool found;

	l2arc_assert_locked(lc);
	if (!atomic_read(&lc->iop.wr_count))
		return false;
	spin_lock_irqsave(&lc->iop.wr_lock, flags);
	found = l2arc_wr_iter_first(&lc->iop.wr_tree, first, last);
	spin_unlock_irqrestore(&lc->iop.wr_lock, flags);
	return found;
}

/* ---- Writes ---- */

/*
 * Drop the cached copies (ARC, L2, a feed write in flight) of one block,
 * detaching a fill in flight, and with @forget its ghost too
 * (arc_forget()); arc.lock held.  Returns 1 when it was resident.
 */
static unsigned int l2arc_invalidate_hdr(struct l2arc_c *lc,
					 struct arc_hdr *hdr, bool forget)
{
	unsigned int resident = hdr->state == ARC_MRU || hdr->state == ARC_MFU;

	l2arc_assert_locked(lc);
	if (resident && (hdr->flags & ARC_F_IO_IN_PROGRESS))
		l2arc_hdr_fill(hdr)->detached = true;
	if (hdr->flags & ARC_F_L2)
		l2arc_stat_inc(lc, L2ARC_STAT_L2_WRITE_INVALIDATES);
	hdr->flags &= ~L2ARC_F_L2_WRITING;
	if (forget)
		arc_forget(lc->arc, hdr);
	else
		arc_invalidate(lc->arc, hdr);
	return resident;
}

/* The lists a range invalidation walks, in the order headers move. */
static const struct {
	enum arc_list_id id;
	u8 state;
} l2arc_walk_order[] = {
	{ ARC_T1, ARC_MRU }, { ARC_T2, ARC_MFU },
	{ ARC_B1, ARC_MRU_GHOST }, { ARC_B2, ARC_MFU_GHOST },
	{ ARC_LIST_L2ONLY, ARC_L2ONLY },
};

/* A write drops the indexed L2 copy in @slot; arc.lock held. */
static void l2arc_invalidate_slot(struct l2arc_c *lc, u64 slot)
{
	l2arc_assert_locked(lc);
	l2arc_stat_inc(lc, L2ARC_STAT_L2_WRITE_INVALIDATES);
	l2arc_index_drop(lc, slot);
}

/*
 * Drop every cached copy of blocks [first, first + nr); arc.lock held by
 * l2arc_bulk_lock(), dropped every L2ARC_LOCK_BATCH headers.  The range is
 * in the tree of writes in flight already, so no header of it can be
 * created or filled meanwhile, and only a read served without the lock
 * (io.c's l2arc_map_hits(), whose access is applied when the walk takes
 * the lock again) accesses one: its headers only move forwards (T1 -> T2,
 * T1 -> B1, T2 -> B2, any -> L2-only, the index or out, and to the MRU
 * end of T2), which is the order the lists, then the slot table, are
 * walked in.  A walk that let the lock go goes on from the header it
 * pinned only if that header has not moved since (arc_cursor_put()): one
 * moved to its list's MRU end meanwhile would take the walk past the
 * headers in between.  With @forget, ghosts go too (l2arc_forget_all()).
 * Returns the resident blocks dropped.
 */
static u64 l2arc_invalidate_range(struct l2arc_c *lc, struct l2arc_hold *h,
				  u64 first, u64 nr, bool forget)
{
	struct arc *arc = lc->arc;
	struct arc_hdr *hdr, *next;
	struct list_head *head;
	struct arc_cursor cur;
	u64 b, s, dropped = 0;
	unsigned int i, restarts;

	l2arc_assert_locked(lc);
	l2arc_whatif_invalidate(lc->whatif, first, nr);
	if (nr <= arc_nr_hashed(arc)) {
		for (b = first; b < first + nr; b++) {
			hdr = arc_lookup(arc, l2arc_key(lc, b));
			if (hdr)
				dropped += l2arc_invalidate_hdr(lc, hdr,
								forget);
			l2arc_bulk_yield(lc, h);
		}
		goto indexed;
	}
	/* a range larger than the directory: walk its lists */
	for (i = 0; i < ARRAY_SIZE(l2arc_walk_order); i++) {
		head = &arc->lists[l2arc_walk_order[i].id];
		restarts = 0;
		hdr = list_first_entry_or_null(head, struct arc_hdr, list);
		while (hdr) {
			next = list_is_last(&hdr->list, head) ? NULL :
			       list_next_entry(hdr, list);
			b = l2arc_key_block(hdr->oblock);
			if (l2arc_key_mine(lc, hdr->oblock) && b >= first &&
			    b - first < nr)
				dropped += l2arc_invalidate_hdr(lc, hdr,
								forget);
			hdr = next;
			if (!hdr || restarts >= L2ARC_SCAN_RESTARTS ||
			    !l2arc_bulk_due(h))
				continue;
			arc_cursor_set(arc, &cur, hdr);
			l2arc_bulk_relax(lc, h);
			hdr = l2arc_walk_resume(arc, hdr,
						l2arc_walk_order[i].state, &cur);
			if (!hdr) {
				restarts++;
				hdr = list_first_entry_or_null(head,
							       struct arc_hdr,
							       list);
			}
		}
	}
indexed:
	/*
	 * Then the L2-only blocks of the index (a header dropped meanwhile
	 * had lost its copy already): block by block, or slot by slot for a
	 * range of as many blocks as the cache device has slots.
	 */
	if (nr < lc->l2.nr_slots) {
		for (b = first; b < first + nr && lc->l2.ix.nr_indexed; b++) {
			s = l2arc_l2_find(lc, b);
			if (s != L2ARC_SLOT_NONE)
				l2arc_invalidate_slot(lc, s);
			l2arc_bulk_yield(lc, h);
		}
		return dropped;
	}
	for (s = 0; s < lc->l2.nr_slots && lc->l2.ix.nr_indexed; s++) {
		struct l2arc_slot *sl = l2arc_slot(&lc->l2.ix, s);

		b = l2arc_slot_oblock(sl);
		if ((sl->word & L2ARC_SLOT_INDEXED) && b >= first &&
		    b - first < nr)
			l2arc_invalidate_slot(lc, s);
		l2arc_bulk_yield(lc, h);
	}
	return dropped;
}

/* Every block of the device, ghosts too with @forget; arc.lock taken. */
static void l2arc_drop_all(struct l2arc_c *lc, bool forget)
{
	struct l2arc_hold h;

	l2arc_bulk_lock(lc, &h);
	l2arc_invalidate_range(lc, &h, 0, lc->nr_blocks, forget);
	l2arc_bulk_unlock(lc, &h);
}

/**
 * l2arc_invalidate_all() - drop every cached copy of every block (ARC, L2)
 * @lc: the device
 *
 * At a resume that found the origin changed while the device was
 * suspended (persist.c): no I/O is in flight and the feed is stopped, so
 * no header can be created or filled meanwhile.
 *
 * Context: process context, may sleep; takes arc.lock.
 */
void l2arc_invalidate_all(struct l2arc_c *lc)
{
	l2arc_drop_all(lc, false);
}

/**
 * l2arc_forget_all() - drop every header of the device's keys, ghosts too
 * @lc: a pool member, in its dtr: no I/O is in flight, the feed stopped
 *
 * As l2arc_invalidate_all(), and the member's ghosts leave the pool's B1
 * and B2 (arc_forget()), so that the next member given its id finds no
 * header of its keys: no ghost hit from the old member's history.
 * O(the pool's headers).
 *
 * Context: process context, may sleep; takes arc.lock.
 */
void l2arc_forget_all(struct l2arc_c *lc)
{
	l2arc_drop_all(lc, true);
}

/**
 * l2arc_invalidate_live() - drop every cached copy of every block (ARC,
 * L2, the hand-off queue, feed writes in flight) while the device takes I/O
 * @lc: the device, resumed
 *
 * As a write of the whole device would (l2arc_write_begin()): the range
 * is entered in the tree of writes in flight first, so a read that takes
 * the lock meanwhile goes around the ARC and no fill starts, and a fill
 * in flight is detached and installs nothing.  For an origin that took a
 * write that did not come through the device (origin.c).
 *
 * Context: process context, may sleep; takes arc.lock.
 */
void l2arc_invalidate_live(struct l2arc_c *lc)
{
	struct l2arc_wrange wr = { .start = 0, .last = lc->nr_blocks - 1 };
	struct l2arc_hold h;

	l2arc_bulk_lock(lc, &h);
	l2arc_wr_enter(lc, &wr);
	if (unlikely(lc->persist.rebuilding))
		l2arc_rebuild_note_write(lc, wr.start, wr.last);
	l2arc_invalidate_range(lc, &h, 0, lc->nr_blocks, false);
	l2arc_bulk_unlock(lc, &h);
	l2arc_wr_exit(lc, &wr);
}

/**
 * l2arc_write_begin() - a write, discard or write-zeroes is about to go to
 * the origin: enter it in the tree of writes in flight, then drop its
 * blocks' cached copies
 * @lc: the device
 * @bio: the bio, with sectors
 * @io: its per-bio data (its entry in the tree lives there)
 *
 * Context: process context (the map), may sleep between batches; takes
 * arc.lock.
 */
void l2arc_write_begin(struct l2arc_c *lc, struct bio *bio,
		       struct l2arc_io *io)
{
	sector_t start = dm_target_offset(lc->ti, bio->bi_iter.bi_sector);
	sector_t end = start + bio_sectors(bio) - 1;
	struct l2arc_hold h;
	u64 dropped, nr;

	io->wr.start = start >> lc->block_shift;
	io->wr.last = end >> lc->block_shift;
	nr = io->wr.last - io->wr.start + 1;

	l2arc_bulk_lock(lc, &h);
	l2arc_wr_enter(lc, &io->wr);
	io->tracked = true;
	io->wr_sectors = bio_sectors(bio);
	l2arc_watch_sent(lc, io->wr_sectors);
	/*
	 * Counted before the origin counts it: pairs with the smp_rmb() of
	 * the check, which reads the origin's count first (origin.c)
	 */
	smp_wmb();
	if (unlikely(lc->persist.rebuilding))
		l2arc_rebuild_note_write(lc, io->wr.start, io->wr.last);
	dropped = l2arc_invalidate_range(lc, &h, io->wr.start, nr, false);
	l2arc_stat_add(lc, L2ARC_STAT_WRITES, nr);
	l2arc_stat_add(lc, L2ARC_STAT_WRITE_INVALIDATES, dropped);
	l2arc_bulk_unlock(lc, &h);
}

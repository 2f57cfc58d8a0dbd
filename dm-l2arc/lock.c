// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the device lock and bulk work under it.
 *
 * Theory of operation
 * ===================
 *
 * One spinlock per device, arc.lock (the ARC's own lock, struct arc in
 * arc.h), guards the directory (headers, lists, hash table), the cache
 * device's slot table and index, the hand-off queue, the feed's cursors
 * and the gauges (the counters are per CPU and need no lock).  It is
 * taken with BHs off (bio completions take it in softirq context),
 * through l2arc_lock() and l2arc_unlock() in lock.h; a function that
 * needs it held says so with l2arc_assert_locked(), which lockdep checks.
 *
 * Bulk work (a feed's scan, a walk that drops a whole list, the rebuild,
 * a resize) holds the lock across many entries.  It takes the lock with
 * l2arc_bulk_lock() and lets others in every L2ARC_LOCK_BATCH entries
 * (l2arc_bulk_yield()): readers wait at most one batch.  The longest hold
 * is the lock_hold_max_us row.  A walk that dropped the lock goes on from
 * a header it pinned before the drop (l2arc_walk_resume()).
 *
 * This file calls only the directory (arc.c); every file above it may
 * call it.
 */

#include <linux/ktime.h>
#include <linux/sched.h>

#include "dm-l2arc.h"

/**
 * l2arc_bulk_lock() - take arc.lock for bulk work
 * @lc: the device
 * @h: the hold, for l2arc_bulk_yield() and l2arc_bulk_unlock()
 *
 * Context: process context; returns with arc.lock held (BHs off).
 */
void l2arc_bulk_lock(struct l2arc_c *lc, struct l2arc_hold *h)
	__acquires(&lc->arc->lock)
{
	l2arc_lock(lc);
	h->t0 = ktime_get_ns();
	h->n = 0;
}

/**
 * l2arc_bulk_unlock() - end a bulk hold, recording its length
 * @lc: the device
 * @h: the hold
 *
 * The longest hold is the lock_hold_max_us row.
 *
 * Context: arc.lock held by l2arc_bulk_lock(); returns with it released.
 */
void l2arc_bulk_unlock(struct l2arc_c *lc, struct l2arc_hold *h)
	__releases(&lc->arc->lock)
{
	u64 held = ktime_get_ns() - h->t0;

	l2arc_assert_locked(lc);
	if (held > lc->gauge[L2ARC_GAUGE_LOCK_HOLD_MAX_NS])
		lc->gauge[L2ARC_GAUGE_LOCK_HOLD_MAX_NS] = held;
	spin_unlock_bh(&lc->arc->lock);
}

/**
 * l2arc_bulk_due() - count one entry of bulk work
 * @h: the hold
 *
 * Return: true when the hold has handled %L2ARC_LOCK_BATCH entries and
 * should let others in (l2arc_bulk_relax()).
 */
bool l2arc_bulk_due(struct l2arc_hold *h)
{
	return ++h->n >= L2ARC_LOCK_BATCH;
}

/**
 * l2arc_bulk_relax() - drop arc.lock, reschedule, take it again
 * @lc: the device
 * @h: the hold
 *
 * Anything not pinned may change or go meanwhile.
 *
 * Context: arc.lock held by l2arc_bulk_lock(); may sleep.
 */
void l2arc_bulk_relax(struct l2arc_c *lc, struct l2arc_hold *h)
	__must_hold(&lc->arc->lock)
{
	l2arc_assert_locked(lc);
	l2arc_bulk_unlock(lc, h);
	cond_resched();
	l2arc_bulk_lock(lc, h);
}

/**
 * l2arc_bulk_yield() - count one entry; let others in every
 * %L2ARC_LOCK_BATCH entries
 * @lc: the device
 * @h: the hold
 *
 * Context: arc.lock held by l2arc_bulk_lock(); may sleep.
 * Return: true if the lock was dropped (and taken again).
 */
bool l2arc_bulk_yield(struct l2arc_c *lc, struct l2arc_hold *h)
	__must_hold(&lc->arc->lock)
{
	l2arc_assert_locked(lc);
	if (!l2arc_bulk_due(h))
		return false;
	l2arc_bulk_relax(lc, h);
	return true;
}

/**
 * l2arc_walk_resume() - where a list walk goes on after a lock drop
 * @arc: the directory
 * @next: the header the walk would visit next, pinned before the drop
 *	(by arc_cursor_set() on @cur, or arc_hdr_pin() without one)
 * @state: the state of the list walked (%ARC_MRU .. %ARC_L2ONLY)
 * @cur: for a walk that must see every header of the list, its cursor on
 *	@next; NULL for one that may pass some (the feed, which only feeds
 *	fewer blocks then)
 *
 * Drops the pin.  A header moved to its list's MRU end meanwhile (a hit
 * on T2, a demand hit on a prefetched T1 block) is still on the list, but
 * going on from it would pass the headers in between: with @cur, any
 * move of @next counts (arc_cursor_put()).  Its neighbours are no
 * witness: the hit log applies a read's hits in block order, so a run of
 * headers that follow each other on the list (a sequential read's) moves
 * to the MRU end together, in the same order, each still after the same
 * neighbour.
 *
 * Context: arc.lock held.
 * Return: @next if it is still on that list (and, with @cur, has not
 * moved), else NULL (the caller starts that list again from its LRU end).
 */
struct arc_hdr *l2arc_walk_resume(struct arc *arc, struct arc_hdr *next,
				  u8 state, struct arc_cursor *cur)
{
	lockdep_assert_held(&arc->lock);
	/* an L2-only header may go to the index at its last unpin */
	if (cur ? !arc_cursor_put(arc, cur) : !arc_hdr_unpin(arc, next))
		return NULL;
	if (next->state != state)
		return NULL;
	return next;
}

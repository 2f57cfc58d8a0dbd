/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the device lock (lock.c has the theory).
 *
 * Included by dm-l2arc.h after struct l2arc_c.
 */
#ifndef DM_L2ARC_LOCK_H
#define DM_L2ARC_LOCK_H

#include <linux/lockdep.h>
#include <linux/spinlock.h>

/* Entries handled per hold of the device lock in bulk work. */
#define L2ARC_LOCK_BATCH		4096

/**
 * l2arc_lock() - take the device lock (arc.lock), BHs off
 * @lc: the device
 *
 * A taking that finds the lock held counts one in the lock_contended row
 * before it waits (%L2ARC_STAT_LOCK_CONTENDED): a try-lock first, so the
 * count is exact.  Under lockdep (CONFIG_PROVE_LOCKING), which records
 * no lock order for a try-lock, a try-lock that succeeds is let go and
 * the lock taken again, so that every taking is checked.
 *
 * Once taken, the ARC is brought up to date with the hits that reads
 * logged without the lock (l2arc_hitlog_apply()), so that every holder
 * sees the lists and counters as if each of those reads had held it; in
 * a pool, the hits of every member (l2arc_hitlog_apply_pool()).
 *
 * Context: process or softirq context, not hard IRQ; not held already.
 */
static inline void l2arc_lock(struct l2arc_c *lc)
	__acquires(&lc->arc->lock)
{
	bool free = spin_trylock_bh(&lc->arc->lock);

	if (free && IS_ENABLED(CONFIG_PROVE_LOCKING))
		spin_unlock_bh(&lc->arc->lock);
	if (!free)
		l2arc_stat_inc(lc, L2ARC_STAT_LOCK_CONTENDED);
	if (!free || IS_ENABLED(CONFIG_PROVE_LOCKING))
		spin_lock_bh(&lc->arc->lock);
	if (lc->pool)
		l2arc_hitlog_apply_pool(lc->pool);
	else if (l2arc_hitlog_pending(&lc->hitlog))
		l2arc_hitlog_apply(lc);
}

/**
 * l2arc_unlock() - release the device lock
 * @lc: the device
 *
 * Context: the lock held by l2arc_lock().
 */
static inline void l2arc_unlock(struct l2arc_c *lc)
	__releases(&lc->arc->lock)
{
	spin_unlock_bh(&lc->arc->lock);
}

/**
 * l2arc_assert_locked() - the caller holds the device lock (lockdep)
 * @lc: the device
 */
static inline void l2arc_assert_locked(struct l2arc_c *lc)
{
	lockdep_assert_held(&lc->arc->lock);
}

/**
 * struct l2arc_hold - one bulk hold of the device lock (l2arc_bulk_lock())
 * @t0: ktime_get_ns() when the lock was taken
 * @n: entries handled since then
 */
struct l2arc_hold {
	u64 t0;
	unsigned int n;
};

void l2arc_bulk_lock(struct l2arc_c *lc, struct l2arc_hold *h);
void l2arc_bulk_unlock(struct l2arc_c *lc, struct l2arc_hold *h);
bool l2arc_bulk_due(struct l2arc_hold *h);
void l2arc_bulk_relax(struct l2arc_c *lc, struct l2arc_hold *h);
bool l2arc_bulk_yield(struct l2arc_c *lc, struct l2arc_hold *h);
struct arc_hdr *l2arc_walk_resume(struct arc *arc, struct arc_hdr *next,
				  u8 state, struct arc_cursor *cur);

#endif /* DM_L2ARC_LOCK_H */

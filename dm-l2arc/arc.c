// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the ARC directory.
 *
 * Theory of operation
 * ===================
 *
 * The algorithm is ARC as N. Megiddo and D. S. Modha give it in "ARC: A
 * Self-Tuning, Low Overhead Replacement Cache", USENIX FAST 2003, Fig. 4
 * (also "Outperforming LRU with an Adaptive Replacement Cache Algorithm",
 * IEEE Computer 37(4), 2004), with c counted in blocks.  Cases I-IV, REPLACE
 * and its tie rule, and the adaptation of p are the paper's, line by line, in
 * arc_access(), arc_replace() and arc_make_room().
 *
 * Glossary
 * --------
 * block	one cache block of the target; origin blocks are oblock_t.
 * header	struct arc_hdr, 48 bytes, one per block the directory knows.
 * resident	a header in T1 or T2: the target may hang data on it.
 * ghost	a header in B1 or B2: the paper's history, no data.
 * L2-only	a header the paper's rules dropped from B1/B2 (or from T1 in
 *		case IV) while it had a copy on the cache device being
 *		written (ARC_F_L2_WRITING) or while it was pinned: still
 *		hashed, on no list of the paper.  An unpinned header with a
 *		valid copy (ARC_F_L2) is given to the target's own index
 *		instead (arc_ops.l2_compact) and freed.
 * dead		a header out of the directory (unhashed) but still pinned.
 *
 * Lists (LRU at the head, MRU at the tail of each list_head)
 * ----------------------------------------------------------
 * T1 (MRU)	blocks seen once since they entered, and prefetched blocks.
 * T2 (MFU)	blocks seen at least twice.
 * B1, B2	ghosts of blocks evicted from T1, T2.
 * L2-only	outside the paper; oldest first.  Counts toward no limit.
 * dead		outside the paper; freed by their last unpin.
 *
 * Invariants after every call (the paper's, for the current c):
 *	|T1| + |T2| <= c,  |T1| + |B1| <= c,  |T1| + |T2| + |B1| + |B2| <= 2c,
 *	0 <= p <= c.
 * The paper also keeps |T1| + |T2| = c once the directory holds c blocks;
 * invalidations and a growing c break that, so REPLACE is called only when
 * T1 and T2 are full (which, in the paper's own setting, is every time it
 * calls REPLACE) and takes from the other resident list when the one it
 * picks is empty.  With fixed c, no invalidations and no prefetch, the lists
 * behave exactly as in the paper.
 *
 * p in fixed point
 * ----------------
 * p and its steps |B2|/|B1|, |B1|/|B2| are real numbers in the paper, and an
 * integer step measurably misses the published hit ratios.  p is a u64 in
 * blocks with ARC_P_SHIFT (32) fractional bits; a step is computed as
 * (|B2| << 32) / |B1| rounded down, which fits in u64 because
 * |B1| + |B2| <= 2c <= 2^32.  The tests of REPLACE, |T1| > p and |T1| == p,
 * compare |T1| << 32 with p, exactly.  On the OLTP trace of the paper, at
 * c = 1000, this gives the same 356,015 hits as a simulation with real p
 * (tests/tools/arc_ref.py).
 *
 * Prefetch (not in the paper; as in ZFS)
 * --------------------------------------
 * A prefetch miss enters T1 with ARC_F_PREFETCH.  A prefetch access to a
 * resident block changes nothing.  The first demand access to a resident
 * ARC_F_PREFETCH block clears the flag and moves it to T1's MRU end: it does
 * not count as a second access.  A prefetch access to a ghost takes it out
 * of its ghost list and brings it back as a new prefetch block (room is made
 * as for case IV), without adapting p.  ARC_F_PREFETCH is only ever set on
 * headers in T1.
 *
 * Locking and context
 * -------------------
 * One spinlock per directory, arc->lock, taken by the caller around every
 * call (arc.h says why it must be spin_lock_bh(), not irqsave, on 6.1).
 * Nothing here sleeps or allocates: the caller passes a spare header to
 * arc_access(), allocated beforehand with arc_hdr_alloc().  The
 * evict_data() callback runs under the lock.
 *
 * Lifetime of a header
 * --------------------
 * A spare (ARC_NONE) belongs to the caller until arc_access() consumes it;
 * then it is hashed and on T1.  It moves between T1, T2, B1 and B2 by the
 * paper's rules.  When the rules drop it (B1/B2 LRU delete, case IV's T1
 * delete, a shrink) with ARC_F_L2, unpinned and not being written, the
 * target may take its copy into its own index (arc_ops.l2_compact): it then
 * leaves the directory; else it goes to L2-only if ARC_F_L2 or
 * ARC_F_L2_WRITING is set, else leaves the directory.  An L2-only header
 * whose last pin goes is offered to the target in the same way;
 * arc_invalidate() and arc_hdr_clear_l2() on an L2-only header make it
 * leave.  A new header is offered the target's copy of its block
 * (arc_ops.l2_claim) when it is hashed.  Leaving means: unhashed, then freed at once if
 * unpinned, else put on the dead list with state ARC_DEAD and freed by the
 * last arc_hdr_unpin().  A pin keeps the header's memory, not its place: a
 * pinned header still moves between lists, and loses its data through
 * evict_data() like any other.
 *
 * Headers come from one kmem_cache shared by all directories, created by
 * arc_module_init() (reference counted, so the KUnit suite can call it too).
 *
 * Lookups without the lock
 * ------------------------
 * arc_lookup_rcu() finds a header under rcu_read_lock() alone (the target's
 * hit path, io.c).  The header cache is SLAB_TYPESAFE_BY_RCU: a header
 * freed meanwhile stays a header until the reader's grace period ends, but
 * may be taken again at once for another block.  So a lock-free reader
 * checks what it found against what it wanted after taking a reference to
 * the data (the target's buffers carry their device and block number),
 * and the fields it reads -- the table link, @oblock and @data -- are never
 * zeroed under it: arc_hdr_alloc() leaves the link as it was (a reader
 * standing on a reused header walks on to the end of some chain, which
 * rhashtable's lookup detects and restarts), and @data is published with
 * smp_store_release() and cleared with WRITE_ONCE().  Every directory's
 * headers come from the one cache, so a reader of one directory may find a
 * header of another (another device's, or a what-if miniature's): every
 * user in this module hangs on @data either a target buffer, which records
 * its device, or a pointer with bit 0 set, which a reader never takes for
 * a buffer (io.h).  (The KUnit suites hang untagged test values; they run
 * where no device serves reads.)
 *
 * A header found so may be used later under the lock without a second
 * lookup only if it cannot have been freed meanwhile: the directory counts
 * the headers that leave its table (arc_leave(), the one way out before a
 * free while the directory is in use), the reader reads the count before its lookups
 * (arc_unhash_seq()), and arc_lookup_seen() returns the header found only
 * if the count has not moved since, else looks the block up again.
 */

#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/math64.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "arc.h"

/* ---------------------------------------------------------------- */
/* Header cache                                                     */
/* ---------------------------------------------------------------- */

static struct kmem_cache *arc_hdr_cache;
static unsigned int arc_hdr_cache_users;
static DEFINE_MUTEX(arc_hdr_cache_mutex);	/* protects the two above */

/**
 * arc_module_init() - create the header cache.
 *
 * Reference counted: each successful call must be paired with one
 * arc_module_exit().
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int arc_module_init(void)
{
	int r = 0;

	BUILD_BUG_ON(sizeof(struct arc_hdr) > 48);

	mutex_lock(&arc_hdr_cache_mutex);
	if (!arc_hdr_cache_users) {
		arc_hdr_cache = kmem_cache_create("dm_l2arc_hdr",
						  sizeof(struct arc_hdr), 0,
						  SLAB_TYPESAFE_BY_RCU, NULL);
		if (!arc_hdr_cache)
			r = -ENOMEM;
	}
	if (!r)
		arc_hdr_cache_users++;
	mutex_unlock(&arc_hdr_cache_mutex);
	return r;
}

/**
 * arc_module_exit() - drop a reference to the header cache.
 *
 * The last one destroys it; every header must have been freed by then.
 *
 * Context: process context, may sleep.
 */
void arc_module_exit(void)
{
	mutex_lock(&arc_hdr_cache_mutex);
	if (!WARN_ON(!arc_hdr_cache_users) && !--arc_hdr_cache_users) {
		kmem_cache_destroy(arc_hdr_cache);
		arc_hdr_cache = NULL;
	}
	mutex_unlock(&arc_hdr_cache_mutex);
}

/**
 * arc_hdr_alloc() - allocate a spare header for arc_access().
 * @gfp: allocation flags (GFP_NOIO on the I/O path).
 *
 * Context: as @gfp allows; not under any directory's lock unless @gfp is
 * GFP_ATOMIC/GFP_NOWAIT.
 * The table link (&arc_hdr.node) is left as the header's last use left it:
 * a lock-free lookup may still be walking it (see "Lookups without the
 * lock" in arc.c).
 *
 * Return: a header in state %ARC_NONE, its block number U64_MAX, its
 * list link empty, every other field but the table link zero; or NULL.
 */
struct arc_hdr *arc_hdr_alloc(gfp_t gfp)
{
	struct arc_hdr *hdr = kmem_cache_alloc(arc_hdr_cache, gfp);

	BUILD_BUG_ON(offsetof(struct arc_hdr, node) != 0);
	if (hdr) {
		INIT_LIST_HEAD(&hdr->list);
		WRITE_ONCE(hdr->oblock, to_oblock(U64_MAX));
		WRITE_ONCE(hdr->data, NULL);
		hdr->l2_slot = 0;
		hdr->state = ARC_NONE;
		hdr->flags = 0;
		hdr->pins = 0;
	}
	return hdr;
}

/**
 * arc_hdr_free() - free a spare header that arc_access() did not consume.
 * @hdr: a header in state %ARC_NONE, or NULL.
 *
 * Context: any.
 */
void arc_hdr_free(struct arc_hdr *hdr)
{
	if (!hdr)
		return;
	if (WARN_ON(hdr->state != ARC_NONE))
		return;
	kmem_cache_free(arc_hdr_cache, hdr);
}

/* ---------------------------------------------------------------- */
/* Lists                                                            */
/* ---------------------------------------------------------------- */

/*
 * The table's hash and compare of the one u64 key: hash_64() of the block
 * number xor the table's random seed, and an integer compare, instead of
 * rhashtable's default jhash2() over the key's words and a memcmp().  The
 * lookup is most of an ARC hit's cost: natively (the dm_l2arc_cost
 * suite, 16,384 headers) a hit of a 1 MiB read took 195 to 212 ns a
 * block with those and 56 to 85 with these, a 4 KiB random hit 199 to 223
 * and 96 to 139.  A run's consecutive blocks land a constant stride apart
 * in the bucket array, which the CPU's prefetcher follows.
 */
static u32 arc_rht_hash(const void *data, u32 len, u32 seed)
{
	return hash_64(*(const u64 *)data ^ seed, 32);
}

static int arc_rht_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct arc_hdr *hdr = obj;

	/* READ_ONCE: arc_lookup_rcu() compares without the lock */
	return from_oblock(READ_ONCE(hdr->oblock)) != *(const u64 *)arg->key;
}

static const struct rhashtable_params arc_rht_params = {
	.head_offset = offsetof(struct arc_hdr, node),
	.key_offset = offsetof(struct arc_hdr, oblock),
	.key_len = sizeof(oblock_t),
	.automatic_shrinking = true,
	.hashfn = arc_rht_hash,	/* a header's too, at key_offset */
	.obj_cmpfn = arc_rht_cmp,
};

/* The list of each state, ARC_MRU..ARC_DEAD map to ARC_T1..ARC_LIST_DEAD. */
static inline enum arc_list_id arc_state_list(u8 state)
{
	return state - ARC_MRU;
}

static inline u64 arc_t1(const struct arc *arc)
{
	return arc->size[ARC_T1];
}

static inline u64 arc_t2(const struct arc *arc)
{
	return arc->size[ARC_T2];
}

static inline u64 arc_b1(const struct arc *arc)
{
	return arc->size[ARC_B1];
}

static inline u64 arc_b2(const struct arc *arc)
{
	return arc->size[ARC_B2];
}

/* The owner of @hdr's key (arc_owners_init()). */
static inline struct arc_owner *arc_owner_of(const struct arc *arc,
					     const struct arc_hdr *hdr)
{
	return &arc->owners[from_oblock(hdr->oblock) >> arc->owner_shift];
}

/* Put @hdr, on no list, at the MRU end of the list of @state. */
static void arc_list_add(struct arc *arc, struct arc_hdr *hdr, u8 state)
{
	enum arc_list_id id = arc_state_list(state);

	hdr->state = state;
	list_add_tail(&hdr->list, &arc->lists[id]);
	arc->size[id]++;
	if (unlikely(arc->owners) && id <= ARC_T2)
		arc_owner_of(arc, hdr)->resident[id]++;
	if (state == ARC_L2ONLY && !(hdr->flags & ARC_F_L2))
		arc->l2only_writing++;
}

/* A walk's cursor on @hdr, if any, sees it moved (arc_cursor_set()). */
static void arc_cursors_note(struct arc *arc, struct arc_hdr *hdr)
{
	struct arc_cursor *cur;

	list_for_each_entry(cur, &arc->cursors, node)
		if (cur->hdr == hdr)
			cur->moved = true;
}

/*
 * Take @hdr off its list; its state still says where it was.  A walk's
 * cursor is on a pinned header (the re-add by its own last unpin is
 * marked by arc_hdr_unpin()).
 */
static void arc_list_del(struct arc *arc, struct arc_hdr *hdr)
{
	enum arc_list_id id = arc_state_list(hdr->state);

	list_del(&hdr->list);
	arc->size[id]--;
	if (unlikely(arc->owners) && id <= ARC_T2)
		arc_owner_of(arc, hdr)->resident[id]--;
	if (unlikely(hdr->pins) && !list_empty(&arc->cursors))
		arc_cursors_note(arc, hdr);
	if (hdr->state == ARC_L2ONLY && !(hdr->flags & ARC_F_L2))
		arc->l2only_writing--;
}

static struct arc_hdr *arc_list_lru(struct arc *arc, enum arc_list_id id)
{
	return list_first_entry_or_null(&arc->lists[id], struct arc_hdr, list);
}

static inline bool arc_resident(const struct arc_hdr *hdr)
{
	return hdr->state == ARC_MRU || hdr->state == ARC_MFU;
}

/* Hand a resident header's data back to the target. */
static void arc_evict_data(struct arc *arc, struct arc_hdr *hdr,
			   enum arc_evict_reason why)
{
	void *data = hdr->data;

	if (data) {
		/* the target sees ARC_F_PREFETCH as it was */
		WRITE_ONCE(hdr->data, NULL);
		arc->ops->evict_data(arc, hdr, data, why);
	}
	hdr->flags &= ~ARC_F_PREFETCH;
}

/* Clear ARC_F_L2 and tell the target, before @hdr may be freed. */
static void arc_l2_drop(struct arc *arc, struct arc_hdr *hdr)
{
	if (!(hdr->flags & ARC_F_L2))
		return;
	hdr->flags &= ~ARC_F_L2;
	if (hdr->state == ARC_L2ONLY)
		arc->l2only_writing++;	/* until it leaves, just after */
	if (arc->ops->l2_drop)
		arc->ops->l2_drop(arc, hdr);
}

/* Unhash @hdr, on no list, and free it or, if pinned, make it dead. */
static void arc_leave(struct arc *arc, struct arc_hdr *hdr)
{
	WARN_ON(rhashtable_remove_fast(&arc->table, &hdr->node, arc_rht_params));
	/* after the removal: see arc_unhash_seq() */
	smp_store_release(&arc->unhashed, arc->unhashed + 1);
	if (hdr->pins) {
		arc_list_add(arc, hdr, ARC_DEAD);
		return;
	}
	kmem_cache_free(arc_hdr_cache, hdr);
}

/*
 * May @hdr go to the target's index: a valid copy on the cache device, no
 * copy being written, no pin, and a target that keeps an index?
 */
static bool arc_compactable(const struct arc *arc, const struct arc_hdr *hdr)
{
	return (hdr->flags & (ARC_F_L2 | ARC_F_L2_WRITING)) == ARC_F_L2 &&
	       !hdr->pins && arc->ops->l2_compact;
}

/*
 * Give @hdr (on no list, no data) to the target's index if
 * arc_compactable() and the target takes it: %ARC_F_L2 goes without
 * &arc_ops.l2_drop (the copy stays valid, the target knows it) and @hdr
 * leaves.  Returns true if so.
 */
static bool arc_compact(struct arc *arc, struct arc_hdr *hdr)
{
	if (!arc_compactable(arc, hdr) || !arc->ops->l2_compact(arc, hdr))
		return false;
	hdr->flags &= ~ARC_F_L2;
	arc_leave(arc, hdr);
	return true;
}

/*
 * The paper's rules delete @hdr (taken off its list, no data): give it to
 * the target's index (arc_compact()), or keep it as L2-only if the cache
 * device holds its block (or is being given it), else it leaves.
 */
static void arc_drop(struct arc *arc, struct arc_hdr *hdr)
{
	if (arc_compact(arc, hdr))
		return;
	if (hdr->flags & (ARC_F_L2 | ARC_F_L2_WRITING))
		arc_list_add(arc, hdr, ARC_L2ONLY);
	else
		arc_leave(arc, hdr);
}

/*
 * May this eviction take @hdr?  With @owner (a ceiling's eviction), only
 * a header of that owner; else what &arc_ops.evict_ok lets go.
 */
static bool arc_may_evict(struct arc *arc, const struct arc_hdr *hdr,
			  const struct arc_owner *owner)
{
	if (owner)
		return arc_owner_of(arc, hdr) == owner;
	return arc->ops->evict_ok(arc, hdr);
}

/*
 * The header of resident list @id (T1 or T2) nearest its LRU end that
 * arc_may_evict() lets go, each one it passes over moved to the list's MRU
 * end (a second chance: each is looked at once per pass of its list);
 * NULL when it passes over them all.  The LRU header itself with neither
 * @owner nor the hook.
 */
static struct arc_hdr *arc_evictable_lru(struct arc *arc, enum arc_list_id id,
					 const struct arc_owner *owner)
{
	u64 n = arc_list_size(arc, id);
	struct arc_hdr *hdr;

	if (!owner && !arc->ops->evict_ok)
		return arc_list_lru(arc, id);
	if (owner && !owner->resident[id])
		return NULL;	/* none of its own here: no walk */
	while (n--) {
		hdr = arc_list_lru(arc, id);
		if (arc_may_evict(arc, hdr, owner))
			return hdr;
		arc_list_del(arc, hdr);
		arc_list_add(arc, hdr, hdr->state);
	}
	return NULL;
}

/*
 * The resident header to evict: from @id's LRU end on, else from the
 * other resident list's, else (every header kept) @id's LRU; with @owner,
 * one of that owner's headers, or NULL if it has none.  *@id is set to
 * the list it came from.
 */
static struct arc_hdr *arc_victim(struct arc *arc, enum arc_list_id *id,
				  const struct arc_owner *owner)
{
	enum arc_list_id other = *id == ARC_T1 ? ARC_T2 : ARC_T1;
	struct arc_hdr *hdr = arc_evictable_lru(arc, *id, owner);

	if (hdr || (!owner && !arc->ops->evict_ok))
		return hdr;
	hdr = arc_evictable_lru(arc, other, owner);
	if (hdr) {
		*id = other;
		return hdr;
	}
	return owner ? NULL : arc_list_lru(arc, *id);
}

/* Delete the LRU header of a list of the paper (case IV, shrinks). */
static void arc_drop_lru(struct arc *arc, enum arc_list_id id,
			 enum arc_evict_reason why)
{
	struct arc_hdr *hdr;

	if (id == ARC_T1 || id == ARC_T2) {
		hdr = arc_victim(arc, &id, NULL);
		if (id == ARC_T2) {	/* T1's kept: T2's goes, with a ghost */
			arc_list_del(arc, hdr);
			arc_evict_data(arc, hdr, why);
			arc_list_add(arc, hdr, ARC_MFU_GHOST);
			arc->evicted++;
			WRITE_ONCE(arc->warm, true);
			return;
		}
	} else {
		hdr = arc_list_lru(arc, id);
	}

	if (WARN_ON(!hdr))
		return;
	arc_list_del(arc, hdr);
	if (arc_resident(hdr)) {
		arc_evict_data(arc, hdr, why);
		arc->evicted++;
		WRITE_ONCE(arc->warm, true);
	}
	arc_drop(arc, hdr);
}

/* ---------------------------------------------------------------- */
/* The algorithm (FAST 2003, Fig. 4)                                */
/* ---------------------------------------------------------------- */

/*
 * The list a ceiling's eviction of @owner walks, @id being REPLACE's
 * choice: @id, unless the owner's share of @id is under half its share of
 * T1 and T2 together, r_id / |id| < r / (2 (|T1| + |T2|)) with r the
 * owner's headers in both; then the other list, whose share is then at
 * least r / (|T1| + |T2|).  So the walked list holds at least one of the
 * owner's headers in 2 (|T1| + |T2|) / r, which bounds the walk
 * (arc_owners_init()).  |T1| + |T2| <= c <= %ARC_C_MAX = 2^31, so the
 * left side is at most 2^63 and the right at most 2^62: no overflow.
 */
static enum arc_list_id arc_owner_list(const struct arc *arc,
				       const struct arc_owner *owner,
				       enum arc_list_id id)
{
	u64 all = arc_t1(arc) + arc_t2(arc);

	if (2 * owner->resident[id] * all <
	    arc_owner_blocks(owner) * arc_list_size(arc, id))
		return id == ARC_T1 ? ARC_T2 : ARC_T1;
	return id;
}

/*
 * REPLACE(x_t, p): if |T1| >= 1 and ((x_t in B2 and |T1| == p) or |T1| > p),
 * move the LRU of T1 to the MRU of B1, else the LRU of T2 to the MRU of B2.
 * @in_b2 is "x_t in B2".  Called only when |T1| + |T2| >= c >= 1, so one of
 * T1, T2 is non-empty: if the paper's choice is empty (possible only after
 * invalidations or a grown c), take the other.  With @owner, REPLACE for
 * an owner at its ceiling: the same choice of list unless the owner has
 * few headers there (arc_owner_list()), of that owner's headers only
 * (arc_ceiling()).
 */
static bool arc_replace(struct arc *arc, bool in_b2,
			enum arc_evict_reason why,
			const struct arc_owner *owner)
{
	u64 t1 = arc_t1(arc) << ARC_P_SHIFT;
	enum arc_list_id id;
	struct arc_hdr *hdr;
	u8 ghost;

	if (arc_t1(arc) &&
	    ((in_b2 && t1 == arc->p) || t1 > arc->p || !arc_t2(arc)))
		id = ARC_T1;
	else
		id = ARC_T2;
	if (owner)
		id = arc_owner_list(arc, owner, id);
	hdr = arc_victim(arc, &id, owner);
	ghost = id == ARC_T1 ? ARC_MRU_GHOST : ARC_MFU_GHOST;
	if (WARN_ON(!hdr))
		return false;
	arc_list_del(arc, hdr);
	arc_evict_data(arc, hdr, why);
	arc_list_add(arc, hdr, ghost);
	arc->evicted++;
	WRITE_ONCE(arc->warm, true);
	return true;
}

static inline bool arc_full(const struct arc *arc)
{
	return arc_t1(arc) + arc_t2(arc) >= arc->c;
}

/*
 * Case IV, before x_t (in no list) enters T1: make room for it.
 *   A: |L1| = |T1| + |B1| = c: if |T1| < c, delete the LRU of B1 and
 *	REPLACE; else delete the LRU of T1 and remove it from the cache.
 *   B: |L1| < c: if |T1| + |T2| + |B1| + |B2| >= c, delete the LRU of B2
 *	if the total is 2c, then REPLACE.
 */
static void arc_make_room(struct arc *arc)
{
	u64 l1 = arc_t1(arc) + arc_b1(arc);
	u64 total = l1 + arc_t2(arc) + arc_b2(arc);

	if (l1 >= arc->c) {
		if (arc_t1(arc) < arc->c) {
			arc_drop_lru(arc, ARC_B1, ARC_EVICT_ROOM);
			if (arc_full(arc))
				arc_replace(arc, false, ARC_EVICT_ROOM, NULL);
		} else {
			arc_drop_lru(arc, ARC_T1, ARC_EVICT_ROOM);
		}
	} else if (total >= arc->c) {
		if (total >= 2 * arc->c)
			arc_drop_lru(arc, ARC_B2, ARC_EVICT_ROOM);
		if (arc_full(arc))
			arc_replace(arc, false, ARC_EVICT_ROOM, NULL);
	}
}

/* max(num / den, 1) in fixed point; den >= 1, num < 2^32. */
static u64 arc_step(u64 num, u64 den)
{
	if (num <= den)
		return ARC_P_ONE;
	return div64_u64(num << ARC_P_SHIFT, den);
}

/* Case II: p = min(c, p + max(|B2| / |B1|, 1)). */
static void arc_adapt_up(struct arc *arc)
{
	u64 cmax = arc->c << ARC_P_SHIFT;
	u64 step = arc_step(arc_b2(arc), arc_b1(arc));

	arc->p = step >= cmax - arc->p ? cmax : arc->p + step;
}

/* Case III: p = max(0, p - max(|B1| / |B2|, 1)). */
static void arc_adapt_down(struct arc *arc)
{
	u64 step = arc_step(arc_b1(arc), arc_b2(arc));

	arc->p = step >= arc->p ? 0 : arc->p - step;
}

/*
 * @hdr, not resident, is to become resident: while its owner is at its
 * ceiling (or above a lowered one), REPLACE one of the owner's own headers
 * (@in_b2 as for REPLACE), whether or not T1 and T2 are full.  The paper's
 * steps that follow then find room, or make it as they would; an owner's
 * headers never pass its ceiling.
 */
static void arc_ceiling(struct arc *arc, const struct arc_hdr *hdr, bool in_b2)
{
	const struct arc_owner *owner;

	if (likely(!arc->owners))
		return;
	owner = arc_owner_of(arc, hdr);
	while (owner->max && arc_owner_blocks(owner) >= owner->max)
		if (!arc_replace(arc, in_b2, ARC_EVICT_ROOM, owner))
			break;
}

/* Case IV for @hdr, in no list: make room, then put it at T1's MRU end. */
static void arc_enter_t1(struct arc *arc, struct arc_hdr *hdr, bool prefetch)
{
	arc_ceiling(arc, hdr, false);
	arc_make_room(arc);
	if (prefetch)
		hdr->flags |= ARC_F_PREFETCH;
	arc_list_add(arc, hdr, ARC_MRU);
}

/**
 * arc_lookup() - find a block's header without touching the lists.
 * @arc: the directory.
 * @oblock: origin block.
 *
 * Context: @arc->lock held; any context the lock allows.
 * Return: the header (any state but %ARC_DEAD/%ARC_NONE), or NULL.
 */
struct arc_hdr *arc_lookup(struct arc *arc, oblock_t oblock)
{
	lockdep_assert_held(&arc->lock);
	return rhashtable_lookup_fast(&arc->table, &oblock, arc_rht_params);
}

/**
 * arc_lookup_rcu() - find a block's header without the directory's lock.
 * @arc: the directory.
 * @oblock: origin block.
 *
 * The header may leave the directory, be freed and be taken for another
 * block at any time, even before this returns (see "Lookups without the
 * lock" in arc.c): the caller reads only @oblock and @data of it, with
 * READ_ONCE() or through the target's accessor, and checks what it takes
 * against @oblock afterwards.  A header that is being moved in the table
 * may be missed (NULL): the caller then takes the lock.
 *
 * Context: rcu_read_lock() held; any context.
 * Return: a header that was hashed under @oblock during the call, or NULL.
 */
struct arc_hdr *arc_lookup_rcu(struct arc *arc, oblock_t oblock)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "lookup without RCU");
	return rhashtable_lookup(&arc->table, &oblock, arc_rht_params);
}

/**
 * arc_unhash_seq() - how many headers have left the table, for
 * arc_lookup_seen().
 * @arc: the directory.
 *
 * Read before the arc_lookup_rcu() calls whose headers are to be used
 * under the lock later: a header that leaves the table (the only way to
 * its freeing while the directory is in use, arc_leave(); arc_exit() frees
 * the rest when no reader is left) makes the count differ from what this
 * returned.  Acquire: the removals counted are seen by the lookups after.
 *
 * Context: any; no lock needed.
 * Return: the count, modulo 2^64 (2^32 on 32-bit kernels).
 */
unsigned long arc_unhash_seq(struct arc *arc)
{
	/* pairs with arc_leave()'s release: its removal is seen after */
	return smp_load_acquire(&arc->unhashed);
}

/**
 * arc_lookup_seen() - a block's header, without a second lookup when the
 * one found without the lock is still hashed.
 * @arc: the directory.
 * @oblock: origin block.
 * @seen: what arc_lookup_rcu() returned for @oblock after arc_unhash_seq()
 *	returned @seq, or NULL; it may have been freed since.
 * @seq: that arc_unhash_seq().
 *
 * If no header has left the table since @seq was read, @seen is still
 * hashed (a header is freed only after it leaves the table), so it is
 * still @oblock's header and is returned without a walk of the table;
 * else (or for a NULL @seen) this is arc_lookup().  Used by the hit log
 * (hitlog.c) to apply a read's hits without finding each block twice.
 * The count wraps at 2^64 (2^32 on 32-bit kernels): it would take that
 * many headers leaving the table between a reader's arc_unhash_seq() and
 * its record's application for a freed @seen to pass.
 *
 * Context: @arc->lock held.
 * Return: the header (any state but %ARC_DEAD/%ARC_NONE, as arc_lookup()'s:
 * a dead header has left the table), or NULL.
 */
struct arc_hdr *arc_lookup_seen(struct arc *arc, oblock_t oblock,
				struct arc_hdr *seen, unsigned long seq)
{
	lockdep_assert_held(&arc->lock);
	if (seen && seq == arc->unhashed &&
	    !WARN_ON_ONCE(seen->oblock != oblock))
		return seen;
	return arc_lookup(arc, oblock);
}

/* x_t in T1 or T2. */
static int arc_hit(struct arc *arc, struct arc_hdr *hdr, bool prefetch)
{
	int result = hdr->state == ARC_MRU ? ARC_HIT_MRU : ARC_HIT_MFU;

	if (prefetch)
		return result;
	arc_list_del(arc, hdr);
	if (hdr->flags & ARC_F_PREFETCH) {
		hdr->flags &= ~ARC_F_PREFETCH;
		arc_list_add(arc, hdr, ARC_MRU);
	} else {
		/* Case I: move x_t to the MRU position in T2. */
		arc_list_add(arc, hdr, ARC_MFU);
	}
	return result;
}

/* x_t in B1 or B2. */
static int arc_ghost_hit(struct arc *arc, struct arc_hdr *hdr, bool prefetch)
{
	bool in_b2 = hdr->state == ARC_MFU_GHOST;
	int result = in_b2 ? ARC_GHOST_MFU : ARC_GHOST_MRU;

	if (prefetch) {
		arc_list_del(arc, hdr);
		arc_enter_t1(arc, hdr, true);
		return result;
	}
	/* Case II / III: adapt p, REPLACE, move x_t to the MRU end of T2. */
	if (in_b2)
		arc_adapt_down(arc);
	else
		arc_adapt_up(arc);
	arc_ceiling(arc, hdr, in_b2);
	if (arc_full(arc))
		arc_replace(arc, in_b2, ARC_EVICT_ROOM, NULL);
	arc_list_del(arc, hdr);
	arc_list_add(arc, hdr, ARC_MFU);
	return result;
}

/**
 * arc_access_hdr() - arc_access() of a block whose header the caller has.
 * @arc: the directory.
 * @hdr: the block's header, from arc_lookup() under the same hold of
 *	@arc->lock (any state arc_lookup() returns).
 * @aflags: as for arc_access().
 *
 * What arc_access() does for a block with a header, without looking it up
 * again: the target's read path looks every block up first, to sort it.
 *
 * Context: as arc_access().
 * Return: an &enum arc_result, as arc_access() (never -ENOMEM: no new
 * header is needed); -EINVAL (and a warning) for a header in no list.
 */
int arc_access_hdr(struct arc *arc, struct arc_hdr *hdr, unsigned int aflags)
{
	bool prefetch = aflags & ARC_ACCESS_PREFETCH;

	lockdep_assert_held(&arc->lock);

	switch (hdr->state) {
	case ARC_MRU:
	case ARC_MFU:
		return arc_hit(arc, hdr, prefetch);
	case ARC_MRU_GHOST:
	case ARC_MFU_GHOST:
		return arc_ghost_hit(arc, hdr, prefetch);
	case ARC_L2ONLY:
		arc_list_del(arc, hdr);
		arc_enter_t1(arc, hdr, prefetch);
		return ARC_MISS;
	default:
		WARN_ON(1);
		return -EINVAL;
	}
}

/**
 * arc_access() - one access to a block: the paper's ARC(c) step for x_t.
 * @arc: the directory.
 * @oblock: origin block accessed.
 * @aflags: 0 for a demand access, %ARC_ACCESS_PREFETCH for a read-ahead.
 * @spare: the caller's spare header (from arc_hdr_alloc()), or a pointer
 *	to NULL.  If the block needs a new header, *@spare is consumed and set
 *	to NULL; otherwise it is left for the caller to reuse or free.
 * @hdrp: set to the block's header, now resident (T1 or T2), on success.
 *
 * Demand accesses follow FAST 2003 Fig. 4 (IEEE Computer 2004):
 *  - case I (hit in T1 or T2): move to the MRU end of T2;
 *  - case II (ghost hit in B1): p = min(c, p + max(|B2|/|B1|, 1)), REPLACE,
 *    move to the MRU end of T2;
 *  - case III (ghost hit in B2): p = max(0, p - max(|B1|/|B2|, 1)), REPLACE
 *    (with the tie rule), move to the MRU end of T2;
 *  - case IV (miss, or an L2-only header): make room, insert at the MRU end
 *    of T1.  A new header is first offered the target's L2 copy of the
 *    block (&arc_ops.l2_claim); if the target gives it one, it has
 *    %ARC_F_L2 as an L2-only header would.
 *
 * Prefetch accesses: a miss inserts at T1's MRU end with %ARC_F_PREFETCH; a
 * resident block is left as it is; a ghost comes back to T1's MRU end as a
 * prefetch block, room made as in case IV, p not adapted.  A demand hit on
 * a resident %ARC_F_PREFETCH block clears the flag and moves it to the MRU
 * end of T1 (not a second access).
 *
 * Blocks leaving T1/T2 go through &arc_ops.evict_data.  A header that comes
 * back from a ghost list or the L2-only state (or a new one) has no data:
 * the target hangs its data on it with arc_hdr_set_data().
 *
 * Context: @arc->lock held, BHs or preemption disabled, IRQs enabled (see
 * arc.h).  Does not sleep.
 * Return: an &enum arc_result (>= 0) on success; -ENOMEM if a new header is
 * needed and *@spare is NULL; or an error of arc_insert() (e.g. -ENOMEM,
 * -EBUSY) with the directory unchanged.
 */
int arc_access(struct arc *arc, oblock_t oblock, unsigned int aflags,
	       struct arc_hdr **spare, struct arc_hdr **hdrp)
{
	struct arc_hdr *hdr;

	lockdep_assert_held(&arc->lock);

	hdr = rhashtable_lookup_fast(&arc->table, &oblock, arc_rht_params);
	if (hdr) {
		*hdrp = hdr;
		return arc_access_hdr(arc, hdr, aflags);
	}
	return arc_insert(arc, oblock, aflags, spare, hdrp);
}

/**
 * arc_insert() - arc_access() of a block that has no header (case IV).
 * @arc: the directory.
 * @oblock: origin block accessed, which arc_lookup() found no header for
 *	under the same hold of @arc->lock.
 * @aflags: as for arc_access().
 * @spare: as for arc_access(): consumed on success.
 * @hdrp: set to the new header, in T1, on success.
 *
 * What arc_access() does for a miss, without looking the block up first:
 * the target's read path has looked every block up already, to sort it,
 * and the table's insert checks the bucket for the key as it walks it
 * (rhashtable_lookup_insert_fast()), so a header that exists after all
 * is refused, not doubled.
 *
 * Context: as arc_access().
 * Return: %ARC_MISS; -ENOMEM if *@spare is NULL; -EEXIST (and a warning)
 * if @oblock has a header; -EINVAL (and a warning) if *@spare is in use or
 * @oblock's owner id is not below the directory's (arc_owners_init()); or
 * another error of the table's insert (e.g. -ENOMEM, -EBUSY) with the
 * directory unchanged.
 */
int arc_insert(struct arc *arc, oblock_t oblock, unsigned int aflags,
	       struct arc_hdr **spare, struct arc_hdr **hdrp)
{
	struct arc_hdr *hdr = *spare;
	int r;

	lockdep_assert_held(&arc->lock);

	if (!hdr)
		return -ENOMEM;
	if (WARN_ON(hdr->state != ARC_NONE))
		return -EINVAL;
	if (WARN_ON(arc->owners &&
		    from_oblock(oblock) >> arc->owner_shift >= arc->nr_owners))
		return -EINVAL;
	WRITE_ONCE(hdr->oblock, oblock);
	WRITE_ONCE(hdr->data, NULL);
	hdr->flags = 0;
	hdr->pins = 0;
	r = rhashtable_lookup_insert_fast(&arc->table, &hdr->node,
					  arc_rht_params);
	if (WARN_ON_ONCE(r == -EEXIST) || r)
		return r;
	*spare = NULL;
	if (arc->ops->l2_claim && arc->ops->l2_claim(arc, hdr))
		hdr->flags |= ARC_F_L2;
	arc_enter_t1(arc, hdr, aflags & ARC_ACCESS_PREFETCH);
	*hdrp = hdr;
	return ARC_MISS;
}

/**
 * arc_invalidate() - a write made the block's cached copies stale.
 * @arc: the directory.
 * @hdr: the block's header.
 *
 * A resident header gives its data back (&arc_ops.evict_data) and leaves
 * the directory entirely (not to a ghost list: the paper's lists lose one
 * resident block).  A ghost stays as it is.  %ARC_F_L2 is cleared in every
 * case, so an L2-only header leaves too.  A header that leaves is freed, or
 * made %ARC_DEAD if pinned; the caller must not use an unpinned @hdr after
 * this call.
 *
 * Context: @arc->lock held, BHs or preemption disabled, IRQs enabled (see
 * arc.h).  Does not sleep.
 */
void arc_invalidate(struct arc *arc, struct arc_hdr *hdr)
{
	lockdep_assert_held(&arc->lock);

	arc_l2_drop(arc, hdr);
	switch (hdr->state) {
	case ARC_MRU:
	case ARC_MFU:
		arc_list_del(arc, hdr);
		arc_evict_data(arc, hdr, ARC_EVICT_INVALIDATE);
		arc_leave(arc, hdr);
		break;
	case ARC_L2ONLY:
		arc_list_del(arc, hdr);
		arc_leave(arc, hdr);
		break;
	default:
		break;
	}
}

/**
 * arc_forget() - the block's key stops naming it: drop every trace of it.
 * @arc: the directory.
 * @hdr: the block's header.
 *
 * As arc_invalidate(), and a ghost (%ARC_MRU_GHOST, %ARC_MFU_GHOST) leaves
 * too: for a key whose owner goes (a pool member's detach), so that a new
 * owner of the key gets no ghost hit from the old one's history.  The
 * paper's lists lose the header; p is left as it is.
 *
 * Context: as arc_invalidate().
 */
void arc_forget(struct arc *arc, struct arc_hdr *hdr)
{
	lockdep_assert_held(&arc->lock);

	if (hdr->state != ARC_MRU_GHOST && hdr->state != ARC_MFU_GHOST) {
		arc_invalidate(arc, hdr);
		return;
	}
	arc_l2_drop(arc, hdr);
	arc_list_del(arc, hdr);
	arc_leave(arc, hdr);
}

/**
 * arc_set_c() - change the capacity (shrinker, growth).
 * @arc: the directory.
 * @c: new capacity in blocks; clamped to 1..%ARC_C_MAX (the target keeps
 *	its own minimum, arc_min).
 *
 * On a shrink, p is clamped to c, REPLACE runs (x_t taken as not in B2)
 * until |T1| + |T2| <= c, then ghosts are deleted from the LRU ends, B1's
 * until |T1| + |B1| <= c, then B2's (B1's if B2 is empty) until
 * |T1| + |T2| + |B1| + |B2| <= 2c.  Deleted ghosts with %ARC_F_L2 go
 * L2-only.  Growth changes no list.
 *
 * Context: @arc->lock held, BHs or preemption disabled, IRQs enabled (see
 * arc.h).  Does not sleep; O(number of blocks dropped).
 */
void arc_set_c(struct arc *arc, u64 c)
{
	lockdep_assert_held(&arc->lock);

	arc->c = clamp_t(u64, c, 1, ARC_C_MAX);
	arc->p = min(arc->p, arc->c << ARC_P_SHIFT);
	while (arc_t1(arc) + arc_t2(arc) > arc->c)
		arc_replace(arc, false, ARC_EVICT_SHRINK, NULL);
	while (arc_t1(arc) + arc_b1(arc) > arc->c)
		arc_drop_lru(arc, ARC_B1, ARC_EVICT_SHRINK);
	while (arc_t1(arc) + arc_t2(arc) + arc_b1(arc) + arc_b2(arc) >
	       2 * arc->c)
		arc_drop_lru(arc, arc_b2(arc) ? ARC_B2 : ARC_B1,
			     ARC_EVICT_SHRINK);
}

/* ---------------------------------------------------------------- */
/* Header fields                                                    */
/* ---------------------------------------------------------------- */

/**
 * arc_hdr_set_data() - hang the target's data on a resident header.
 * @arc: the directory.
 * @hdr: a header in T1 or T2.
 * @data: opaque pointer (a page, a fill in flight), or NULL.
 *
 * The directory hands @data back through &arc_ops.evict_data when @hdr
 * leaves T1/T2.  The caller must have dropped any previous data itself.
 * @data is published with release order: a reader that finds it with
 * smp_load_acquire() (after arc_lookup_rcu()) sees what the caller wrote
 * to it before this call.
 *
 * Context: @arc->lock held.
 */
void arc_hdr_set_data(struct arc *arc, struct arc_hdr *hdr, void *data)
{
	lockdep_assert_held(&arc->lock);
	if (WARN_ON(!arc_resident(hdr)))
		return;
	/* pairs with the acquire of a lock-free reader (io.h) */
	smp_store_release(&hdr->data, data);
}

/**
 * arc_hdr_pin() - keep a header's memory alive across an unlocked section.
 * @arc: the directory.
 * @hdr: a hashed header.
 *
 * A pinned header still moves between the lists and may lose its data; if
 * it leaves the directory it is unhashed and made %ARC_DEAD, and freed by
 * the last arc_hdr_unpin().  At most U16_MAX pins.
 *
 * Context: @arc->lock held.
 */
void arc_hdr_pin(struct arc *arc, struct arc_hdr *hdr)
{
	lockdep_assert_held(&arc->lock);
	if (WARN_ON(hdr->pins == U16_MAX))
		return;
	hdr->pins++;
}

/**
 * arc_hdr_unpin() - drop a pin taken with arc_hdr_pin().
 * @arc: the directory.
 * @hdr: a pinned header.
 *
 * Frees @hdr if it was the last pin of a dead header, or the last pin of an
 * L2-only header that the target then takes into its index
 * (&arc_ops.l2_compact); the caller must not use @hdr after this call
 * unless it holds another pin or the call returned true.
 *
 * Context: @arc->lock held.
 * Return: true if @hdr is still in the directory (hashed), false if it was
 * freed or is dead.
 */
bool arc_hdr_unpin(struct arc *arc, struct arc_hdr *hdr)
{
	lockdep_assert_held(&arc->lock);
	if (WARN_ON(!hdr->pins))
		return hdr->state != ARC_DEAD;
	if (--hdr->pins)
		return hdr->state != ARC_DEAD;
	if (hdr->state == ARC_L2ONLY && arc_compactable(arc, hdr)) {
		arc_list_del(arc, hdr);
		if (arc_compact(arc, hdr))
			return false;
		/* back at the MRU end: a move, though no longer pinned */
		arc_list_add(arc, hdr, ARC_L2ONLY);
		arc_cursors_note(arc, hdr);
		return true;
	}
	if (hdr->state != ARC_DEAD)
		return true;
	arc_list_del(arc, hdr);
	kmem_cache_free(arc_hdr_cache, hdr);
	return false;
}

/**
 * arc_cursor_set() - pin the header a list walk visits next, before it
 * lets the directory's lock go.
 * @arc: the directory.
 * @cur: the walk's cursor, not set.
 * @hdr: a hashed header on one of the lists.
 *
 * An access moves a header to its list's MRU end, past headers the walk
 * has not seen; its list neighbours are no witness of that, since a
 * read's hits move a run of headers that follow each other on the list
 * together and in the same order.  So the directory marks the cursor
 * whenever @hdr is taken off its list, until arc_cursor_put().
 *
 * Context: @arc->lock held.
 */
void arc_cursor_set(struct arc *arc, struct arc_cursor *cur,
		    struct arc_hdr *hdr)
{
	lockdep_assert_held(&arc->lock);
	arc_hdr_pin(arc, hdr);
	cur->hdr = hdr;
	cur->moved = false;
	list_add(&cur->node, &arc->cursors);
}

/**
 * arc_cursor_put() - unpin a walk's cursor when it has the lock again.
 * @arc: the directory.
 * @cur: a cursor set by arc_cursor_set().
 *
 * The walk may go on from @cur->hdr only if this returns true; else it
 * starts the list again from its LRU end (the header moved past headers
 * the walk has not seen, left, or was freed by this unpin).
 *
 * Context: @arc->lock held (the same directory's as at arc_cursor_set()).
 * Return: true if @cur->hdr is still hashed and has not been taken off its
 * list since arc_cursor_set().
 */
bool arc_cursor_put(struct arc *arc, struct arc_cursor *cur)
{
	bool hashed;

	lockdep_assert_held(&arc->lock);
	hashed = arc_hdr_unpin(arc, cur->hdr);
	list_del(&cur->node);
	return hashed && !cur->moved;
}

/**
 * arc_hdr_set_l2() - the cache device now holds a valid copy of the block.
 * @arc: the directory.
 * @hdr: a hashed header (resident, ghost, or L2-only kept for this copy
 *	with %ARC_F_L2_WRITING).
 *
 * From now on the paper's rules move @hdr to the L2-only state instead of
 * deleting it.
 *
 * Context: @arc->lock held.
 */
void arc_hdr_set_l2(struct arc *arc, struct arc_hdr *hdr)
{
	lockdep_assert_held(&arc->lock);
	if (WARN_ON(hdr->state == ARC_NONE || hdr->state == ARC_DEAD))
		return;
	if (hdr->state == ARC_L2ONLY && !(hdr->flags & ARC_F_L2))
		arc->l2only_writing--;
	hdr->flags |= ARC_F_L2;
}

/**
 * arc_hdr_clear_l2() - the cache device's copy of the block is gone.
 * @arc: the directory.
 * @hdr: the block's header.
 *
 * Clears %ARC_F_L2.  An L2-only header then leaves the directory (freed, or
 * %ARC_DEAD if pinned); other headers keep their place.
 *
 * Context: @arc->lock held, BHs or preemption disabled, IRQs enabled (see
 * arc.h).
 */
void arc_hdr_clear_l2(struct arc *arc, struct arc_hdr *hdr)
{
	lockdep_assert_held(&arc->lock);
	arc_l2_drop(arc, hdr);
	if (hdr->state != ARC_L2ONLY)
		return;
	arc_list_del(arc, hdr);
	arc_leave(arc, hdr);
}

/**
 * arc_nr_hashed() - headers in the hash table.
 * @arc: the directory.
 *
 * Context: any (a snapshot).
 * Return: |T1| + |T2| + |B1| + |B2| + |L2-only|.
 */
unsigned int arc_nr_hashed(struct arc *arc)
{
	return atomic_read(&arc->table.nelems);
}

/* ---------------------------------------------------------------- */
/* Setup and teardown                                               */
/* ---------------------------------------------------------------- */

/**
 * arc_table_bytes() - memory of the directory's hash table itself
 * @arc: the directory
 *
 * The rhashtable's bucket arrays as it allocates them (struct bucket_table
 * and 8 bytes a bucket; a power of two of buckets, grown past 75 % use and
 * shrunk below 30 %), of the table in use and of one it is being resized
 * into.  The headers themselves are counted apart (hdr_size).
 *
 * Context: any; takes rcu_read_lock().
 * Return: bytes.
 */
u64 arc_table_bytes(struct arc *arc)
{
	const struct bucket_table *tbl;
	u64 bytes = 0;

	rcu_read_lock();
	for (tbl = rcu_dereference(arc->table.tbl); tbl;
	     tbl = rcu_dereference(tbl->future_tbl))
		bytes += struct_size(tbl, buckets, tbl->size);
	rcu_read_unlock();
	return bytes;
}

/**
 * arc_init() - set up an empty directory.
 * @arc: the directory to set up.
 * @c: capacity in blocks; clamped to 1..%ARC_C_MAX.
 * @ops: the target's callbacks (must live as long as @arc).
 * @private: stored in @arc->private for the target.
 *
 * p starts at 0, as in the paper.  arc_module_init() must have succeeded.
 *
 * Context: process context, may sleep.
 * Return: 0 or the error of rhashtable_init().
 */
int arc_init(struct arc *arc, u64 c, const struct arc_ops *ops, void *private)
{
	int i;

	spin_lock_init(&arc->lock);
	for (i = 0; i < ARC_NR_LISTS; i++) {
		INIT_LIST_HEAD(&arc->lists[i]);
		arc->size[i] = 0;
	}
	arc->c = clamp_t(u64, c, 1, ARC_C_MAX);
	arc->p = 0;
	arc->evicted = 0;
	arc->l2only_writing = 0;
	INIT_LIST_HEAD(&arc->cursors);
	arc->warm = false;
	arc->owners = NULL;
	arc->owner_shift = 0;
	arc->nr_owners = 0;
	arc->unhashed = 0;
	arc->ops = ops;
	arc->private = private;
	return rhashtable_init(&arc->table, &arc_rht_params);
}

/**
 * arc_exit() - tear down a directory.
 * @arc: the directory.
 *
 * Gives back the data of every resident header (&arc_ops.evict_data, under
 * @arc->lock, which arc_exit() takes itself) and frees every header.  All
 * pins must have been dropped: a header still pinned is reported and leaked
 * rather than freed under its user.
 *
 * Context: process context, may sleep; the caller must not hold @arc->lock
 * and no other user of @arc may remain.
 */
void arc_exit(struct arc *arc)
{
	struct arc_hdr *hdr, *tmp;
	int i;

	if (WARN_ON(!list_empty(&arc->cursors)))	/* a walker's stack */
		INIT_LIST_HEAD(&arc->cursors);
	/*
	 * The table first: rhashtable_destroy() waits for a resize in
	 * flight, which walks the headers' links, before any header is
	 * freed.  Nothing below needs the table.
	 */
	rhashtable_destroy(&arc->table);
	spin_lock_bh(&arc->lock);
	for (i = 0; i < ARC_NR_LISTS; i++) {
		list_for_each_entry_safe(hdr, tmp, &arc->lists[i], list) {
			arc_list_del(arc, hdr);
			if (arc_resident(hdr))
				arc_evict_data(arc, hdr, ARC_EVICT_EXIT);
			if (WARN_ON_ONCE(hdr->pins))
				continue;
			kmem_cache_free(arc_hdr_cache, hdr);
		}
	}
	spin_unlock_bh(&arc->lock);
	kvfree(arc->owners);
	arc->owners = NULL;
}

/**
 * arc_owners_init() - count resident headers per owner, and allow ceilings.
 * @arc: the directory, from arc_init(), with no header yet.
 * @shift: a key's owner id is the key shifted right by @shift bits, 1..63.
 * @nr: owner ids, 1..65536: every key the directory will see is below
 *	@nr << @shift.
 *
 * From then on the directory keeps, for every owner, the number of its
 * headers in T1 and T2 (arc_owner_resident()), at every list move, and
 * holds an owner that has a ceiling (arc_owner_set_max()) at it: a header
 * of that owner that becomes resident while the owner has @max of them
 * first REPLACEs one of the owner's own, chosen as REPLACE chooses (the
 * list by p, its LRU end first) unless the owner has under half its share
 * of T1 and T2 in that list (then the other list), the other owners'
 * headers passed over moved to their list's MRU end as for
 * &arc_ops.evict_ok.  The list walked holds at least one of the owner's
 * headers in 2 (|T1| + |T2|) / r (r its resident headers, at least its
 * ceiling), and a header passed over goes behind the owner's: spread
 * over the owner's accesses (hits included) a walk costs about c /
 * ceiling looks, but one eviction can walk the whole list, when hits
 * have moved all of the owner's headers to its MRU end since the last
 * (design.rst, "A ceiling").  Not in the paper; without a ceiling the
 * lists behave as without owners.  Freed by arc_exit().
 *
 * Context: process context, may sleep; before any other use of @arc.
 * Return: 0, -EINVAL for a @shift or @nr out of range, -EBUSY if the
 * directory has a header already, -ENOMEM.
 */
int arc_owners_init(struct arc *arc, unsigned int shift, unsigned int nr)
{
	if (!shift || shift > 63 || !nr || nr > 65536 || arc->owners)
		return -EINVAL;
	if (arc_nr_hashed(arc))
		return -EBUSY;
	arc->owners = kvcalloc(nr, sizeof(*arc->owners), GFP_KERNEL);
	if (!arc->owners)
		return -ENOMEM;
	arc->owner_shift = shift;
	arc->nr_owners = nr;
	return 0;
}

/**
 * arc_owner_set_max() - set or clear an owner's ceiling.
 * @arc: the directory, with owners (arc_owners_init()).
 * @id: the owner, 0..@arc->nr_owners - 1.
 * @max: its ceiling, blocks in T1 + T2, clamped to 1..%ARC_C_MAX; 0 for
 *	none.
 *
 * An owner that has more headers than a new, lower ceiling keeps them
 * until it next gets a new resident header, which first evicts as many of
 * its own as take it down to the ceiling.
 *
 * Context: @arc->lock held.
 */
void arc_owner_set_max(struct arc *arc, unsigned int id, u64 max)
{
	lockdep_assert_held(&arc->lock);
	if (WARN_ON(!arc->owners || id >= arc->nr_owners))
		return;
	arc->owners[id].max = max ? clamp_t(u64, max, 1, ARC_C_MAX) : 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the ARC directory.
 *
 * A directory of block headers keyed by origin block number, managed by the
 * Adaptive Replacement Cache of N. Megiddo and D. S. Modha, "ARC: A
 * Self-Tuning, Low Overhead Replacement Cache", USENIX FAST 2003 (Fig. 4),
 * and "Outperforming LRU with an Adaptive Replacement Cache Algorithm", IEEE
 * Computer 37(4), 2004.  No block I/O here: see the theory of operation at
 * the top of arc.c.
 *
 * Locking: struct arc owns one spinlock, @arc->lock, that protects the four
 * lists, their counters, p, c, the hash table's contents and every field of
 * every header of that directory (state, flags, pins, data, L2 fields, links).  The
 * CALLER takes it around every call below except arc_init(), arc_exit(),
 * arc_table_bytes() and arc_lookup_rcu() (which read the table under
 * rcu_read_lock()),
 * and must not sleep while holding it.  The functions assert it with
 * lockdep_assert_held().
 *
 * Context: on 6.1, rhashtable's bucket locks use local_bh_disable() and
 * local_bh_enable() (6.12 uses local_irq_save()), and local_bh_enable() must
 * not run with interrupts disabled or in hardirq context.  So take @arc->lock
 * with spin_lock_bh() (or spin_lock() in process context), never with
 * spin_lock_irqsave() and never from a hardirq handler (a bio end_io that
 * needs the directory must defer to a workqueue).  Nothing below sleeps or
 * allocates memory except that rhashtable_insert_fast() may allocate a
 * bucket table with GFP_ATOMIC when a chain grows too long.
 *
 * Lock order: @arc->lock nests inside any lock of the target; the directory
 * takes no other lock of dm-l2arc (only rhashtable's internal bucket locks).
 */
#ifndef DM_L2ARC_ARC_H
#define DM_L2ARC_ARC_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/rhashtable-types.h>

/*
 * Origin block numbers, in units of the target's cache block.  A distinct
 * __bitwise type so that sparse catches a mix-up with sectors or L2 offsets
 * (as dm-cache-block-types.h does).
 */
typedef u64 __bitwise oblock_t;

static inline oblock_t to_oblock(u64 b)
{
	return (__force oblock_t)b;
}

static inline u64 from_oblock(oblock_t b)
{
	return (__force u64)b;
}

/* Largest capacity c, in blocks: keeps p (32.32 fixed point) and 2c in u64. */
#define ARC_C_MAX		BIT_ULL(31)

/* p is kept in fixed point with this many fractional bits. */
#define ARC_P_SHIFT		32
#define ARC_P_ONE		BIT_ULL(ARC_P_SHIFT)

/**
 * enum arc_state - where a header is.
 * @ARC_NONE: not in the directory (a fresh spare from arc_hdr_alloc()).
 * @ARC_MRU: resident, in T1 (seen once recently, or prefetched).
 * @ARC_MFU: resident, in T2 (seen at least twice recently).
 * @ARC_MRU_GHOST: ghost in B1 (evicted from T1; no data).
 * @ARC_MFU_GHOST: ghost in B2 (evicted from T2; no data).
 * @ARC_L2ONLY: dropped from the four lists but still hashed because its
 *	block has a copy being written to the cache device
 *	(%ARC_F_L2_WRITING), or a valid copy (%ARC_F_L2) while the header is
 *	pinned or the target has no index of its own (&arc_ops.l2_compact);
 *	no data, and counted toward no limit of the paper.
 * @ARC_DEAD: out of the directory (unhashed) while pinned; freed by the last
 *	arc_hdr_unpin().
 */
enum arc_state {
	ARC_NONE = 0,
	ARC_MRU,
	ARC_MFU,
	ARC_MRU_GHOST,
	ARC_MFU_GHOST,
	ARC_L2ONLY,
	ARC_DEAD,
};

/**
 * enum arc_list_id - the lists of a directory, to index arc->lists[].
 * @ARC_T1: MRU, resident.
 * @ARC_T2: MFU, resident.
 * @ARC_B1: MRU ghost.
 * @ARC_B2: MFU ghost.
 * @ARC_LIST_L2ONLY: L2-only headers (oldest first); not one of the paper's.
 * @ARC_LIST_DEAD: unhashed, pinned headers waiting for their last unpin.
 * @ARC_NR_LISTS: number of lists.
 */
enum arc_list_id {
	ARC_T1 = 0,
	ARC_T2,
	ARC_B1,
	ARC_B2,
	ARC_LIST_L2ONLY,
	ARC_LIST_DEAD,
	ARC_NR_LISTS,
};

/*
 * Header flags (struct arc_hdr.flags).  The directory sets and clears
 * ARC_F_PREFETCH and ARC_F_L2 as described at each function; it only keeps
 * ARC_F_IO_IN_PROGRESS, ARC_F_L2_WRITING and the ARC_F_TARGET* bits for
 * the target.  A header with ARC_F_L2_WRITING is kept as L2-only by the
 * paper's deletes, as one with ARC_F_L2 is (its copy is on its way to the
 * cache device); the target clears the flag, and takes an L2-only header
 * that got no copy out with arc_hdr_clear_l2().
 */
#define ARC_F_PREFETCH		BIT(0)	/* resident, prefetched, not demanded */
#define ARC_F_IO_IN_PROGRESS	BIT(1)	/* target: fill in flight */
#define ARC_F_L2		BIT(2)	/* valid copy on the cache device */
#define ARC_F_L2_WRITING	BIT(3)	/* target: copy being written to L2 */
#define ARC_F_TARGET1		BIT(4)	/* free for the target */
#define ARC_F_TARGET2		BIT(5)	/* free for the target */
#define ARC_F_TARGET3		BIT(6)	/* free for the target */
#define ARC_F_TARGET4		BIT(7)	/* free for the target */

/**
 * struct arc_hdr - one block's header, resident, ghost or L2-only (48 bytes).
 * @node: link in the directory's rhashtable, keyed by @oblock.
 * @list: link in the list of @state (LRU at the head, MRU at the tail).
 * @oblock: origin block number (the key).
 * @data: the block's data while resident (T1/T2) once the target has hung
 *	it there with arc_hdr_set_data(); NULL in every other state and on a
 *	header that has just become resident (from a ghost list, the L2-only
 *	state or new), until the target sets it.  Opaque to the directory,
 *	which never dereferences it and hands it back through
 *	&arc_ops.evict_data.  Nothing else shares its place: a non-NULL
 *	@data is always the target's data.
 * @l2_slot: the block's slot on the cache device, in blocks; valid while
 *	%ARC_F_L2 is set (and while the target writes it there).
 * @state: an &enum arc_state.
 * @flags: ARC_F_* bits.
 * @pins: number of pins (arc_hdr_pin()); 0..U16_MAX.
 *
 * All fields are protected by the directory's lock; arc_lookup_rcu()'s
 * callers read @oblock and @data without it (see arc.c).
 */
struct arc_hdr {
	struct rhash_head node;
	struct list_head list;
	oblock_t oblock;
	void *data;
	u32 l2_slot;
	u8 state;
	u8 flags;
	u16 pins;
};

struct arc;

/**
 * enum arc_evict_reason - why a resident block gives its data back.
 * @ARC_EVICT_ROOM: the paper's REPLACE or case IV's delete of T1's LRU,
 *	to make room for another block.
 * @ARC_EVICT_SHRINK: arc_set_c() took c down (memory pressure).
 * @ARC_EVICT_INVALIDATE: arc_invalidate(): the data is stale.
 * @ARC_EVICT_EXIT: arc_exit().
 */
enum arc_evict_reason {
	ARC_EVICT_ROOM,
	ARC_EVICT_SHRINK,
	ARC_EVICT_INVALIDATE,
	ARC_EVICT_EXIT,
};

/**
 * struct arc_ops - callbacks from the directory to the target.
 * @evict_data: @hdr leaves T1/T2 (REPLACE, a shrink, an invalidation or
 *	arc_exit()) with data; the target drops its reference to @data, which
 *	is non-NULL.  @hdr->data is already NULL and must stay NULL;
 *	%ARC_F_PREFETCH still tells whether the block was a prefetch block
 *	(the directory clears it after the call); @why tells why it goes.
 *	Not called for a resident header that has no data yet.  Called
 *	with @arc->lock held: must not sleep, must not call back into the
 *	directory except arc_hdr_pin() (to keep @hdr, which may leave the
 *	directory right after the call, or go L2-only if the target sets
 *	%ARC_F_L2_WRITING).
 * @l2_drop: optional; %ARC_F_L2 was just cleared on @hdr by
 *	arc_invalidate() or arc_hdr_clear_l2(), which may free @hdr right
 *	after: the target forgets its references to @hdr's cache device copy.
 *	Same rules as @evict_data.
 * @l2_compact: optional; @hdr, on no list, unpinned, with %ARC_F_L2 and
 *	without %ARC_F_L2_WRITING, would become an L2-only header (the
 *	paper's rules dropped it, or an L2-only header lost its last pin).
 *	Return true if the target keeps the copy in an index of its own: the
 *	directory then clears %ARC_F_L2 without calling @l2_drop and frees
 *	@hdr.  Return false to keep @hdr as an L2-only header.  Same rules
 *	as @evict_data (no call back into the directory at all).
 * @l2_claim: optional; @hdr was just hashed for a miss (state %ARC_NONE,
 *	flags 0): return true if the target gives it the cache device copy
 *	of @hdr->oblock that its index holds (the target sets @hdr->l2_slot
 *	and its own flags); the directory then sets %ARC_F_L2.  Same rules
 *	as @l2_compact.
 * @evict_ok: optional; @hdr, resident, at the LRU end of T1 or T2, is
 *	the paper's choice to give its data back (REPLACE, case IV's delete
 *	of T1's LRU, a shrink).  Return false to keep it (a floor of the
 *	target's): the directory moves it to the MRU end of its list and
 *	looks at the next one, then at the other list; when no header of
 *	either may go, it takes the paper's choice anyway.  Same rules as
 *	@l2_compact.  Without it the directory is exactly the paper's.
 */
struct arc_ops {
	void (*evict_data)(struct arc *arc, struct arc_hdr *hdr, void *data,
			   enum arc_evict_reason why);
	void (*l2_drop)(struct arc *arc, struct arc_hdr *hdr);
	bool (*l2_compact)(struct arc *arc, struct arc_hdr *hdr);
	bool (*l2_claim)(struct arc *arc, struct arc_hdr *hdr);
	bool (*evict_ok)(struct arc *arc, const struct arc_hdr *hdr);
};

/**
 * struct arc_owner - one owner's share of a directory's resident headers.
 * @resident: its headers in T1 (index %ARC_T1) and T2 (%ARC_T2), blocks.
 * @max: its ceiling, blocks in T1 + T2, 1..%ARC_C_MAX; 0 for none.
 *
 * An owner is the high bits of a key (arc_owners_init()): a pool's member.
 * Protected by the directory's lock.
 */
struct arc_owner {
	u64 resident[2];
	u64 max;
};

/**
 * struct arc - one ARC directory.
 * @lock: protects everything below and every header (see the file comment).
 * @table: rhashtable of all hashed headers (T1, T2, B1, B2, L2-only); on
 *	a cache line apart from @lock, since every lookup without the lock
 *	reads its table pointer and every taking of the lock writes @lock.
 * @lists: the lists, indexed by &enum arc_list_id; LRU at the head.
 * @size: number of headers on each list (blocks).
 * @c: capacity in blocks, 1..%ARC_C_MAX; with @unhashed, on a cache line
 *	apart from @lists and @size, which the lock's holder writes on every
 *	access: every demand read with read-ahead on reads it without the
 *	lock (io.c, l2arc_zfetch()), and it changes only while the ARC grows
 *	or shrinks.
 * @p: target size of T1 in blocks, fixed point with %ARC_P_SHIFT fractional
 *	bits, 0..c << %ARC_P_SHIFT.
 * @evicted: blocks taken out of T1/T2 for room (REPLACE, case IV's T1
 *	delete, shrinks) since arc_init(); invalidations do not count.
 * @l2only_writing: headers on the L2-only list without %ARC_F_L2 (kept
 *	for a copy still being written, %ARC_F_L2_WRITING).
 * @cursors: the &struct arc_cursor of the list walks that let @lock go.
 * @warm: set once the cache has been full and evicted a block; stays set.
 * @unhashed: headers taken out of @table since arc_init(), modulo 2^64
 *	(2^32 on 32-bit kernels); written under @lock, read without it by
 *	arc_unhash_seq(), on @c's cache line (the lock's holder writes the
 *	fields before @c on every access; these two only when a header
 *	leaves the table or c moves).
 * @owners: NULL, or one &struct arc_owner per owner id, 0..@nr_owners - 1
 *	(arc_owners_init()): the directory counts each owner's resident
 *	headers and holds an owner at its ceiling.
 * @owner_shift: a key's owner id is its value shifted right by this.
 * @nr_owners: number of owner ids.
 * @ops: the target's callbacks.
 * @private: the target's pointer; the directory never uses it.
 */
struct arc {
	spinlock_t lock;	/* protects all below and every header */
	struct rhashtable table ____cacheline_aligned_in_smp;
	struct list_head lists[ARC_NR_LISTS];
	u64 size[ARC_NR_LISTS];
	u64 p;
	u64 evicted;
	u64 l2only_writing;
	struct list_head cursors;
	bool warm;
	struct arc_owner *owners;
	unsigned int owner_shift;
	unsigned int nr_owners;
	const struct arc_ops *ops;
	void *private;
	u64 c ____cacheline_aligned_in_smp;
	unsigned long unhashed;
};

/**
 * struct arc_cursor - a list walk's place while it lets the directory's
 * lock go: the header it visits next, pinned, and whether that header has
 * been taken off its list since (to move, or to leave).
 * @hdr: the header.
 * @moved: set by the directory when @hdr is taken off its list.
 * @node: on &arc.cursors.
 *
 * Set with arc_cursor_set(), given back with arc_cursor_put(), both under
 * the lock; the walker keeps the struct (on its stack) in between, and
 * the directory sets @moved, under the lock.
 */
struct arc_cursor {
	struct arc_hdr *hdr;
	bool moved;
	struct list_head node;
};

/**
 * enum arc_result - what arc_access() found.
 * @ARC_HIT_MRU: resident in T1 (case I).
 * @ARC_HIT_MFU: resident in T2 (case I).
 * @ARC_GHOST_MRU: ghost hit in B1 (case II); a miss for hit ratios.
 * @ARC_GHOST_MFU: ghost hit in B2 (case III); a miss for hit ratios.
 * @ARC_MISS: not in T1, T2, B1 or B2 (case IV); the header may be an
 *	L2-only one (check %ARC_F_L2).
 */
enum arc_result {
	ARC_HIT_MRU = 0,
	ARC_HIT_MFU,
	ARC_GHOST_MRU,
	ARC_GHOST_MFU,
	ARC_MISS,
};

/* arc_access() flags */
#define ARC_ACCESS_PREFETCH	BIT(0)	/* read-ahead by the target */

int arc_module_init(void);
void arc_module_exit(void);

struct arc_hdr *arc_hdr_alloc(gfp_t gfp);
void arc_hdr_free(struct arc_hdr *hdr);

int arc_init(struct arc *arc, u64 c, const struct arc_ops *ops, void *private);
void arc_exit(struct arc *arc);
int arc_owners_init(struct arc *arc, unsigned int shift, unsigned int nr);
void arc_owner_set_max(struct arc *arc, unsigned int id, u64 max);
u64 arc_table_bytes(struct arc *arc);

struct arc_hdr *arc_lookup(struct arc *arc, oblock_t oblock);
struct arc_hdr *arc_lookup_rcu(struct arc *arc, oblock_t oblock);
unsigned long arc_unhash_seq(struct arc *arc);
struct arc_hdr *arc_lookup_seen(struct arc *arc, oblock_t oblock,
				struct arc_hdr *seen, unsigned long seq);
int arc_access(struct arc *arc, oblock_t oblock, unsigned int aflags,
	       struct arc_hdr **spare, struct arc_hdr **hdrp);
int arc_access_hdr(struct arc *arc, struct arc_hdr *hdr, unsigned int aflags);
int arc_insert(struct arc *arc, oblock_t oblock, unsigned int aflags,
	       struct arc_hdr **spare, struct arc_hdr **hdrp);
void arc_invalidate(struct arc *arc, struct arc_hdr *hdr);
void arc_forget(struct arc *arc, struct arc_hdr *hdr);
void arc_set_c(struct arc *arc, u64 c);

void arc_hdr_set_data(struct arc *arc, struct arc_hdr *hdr, void *data);
void arc_hdr_pin(struct arc *arc, struct arc_hdr *hdr);
bool arc_hdr_unpin(struct arc *arc, struct arc_hdr *hdr);
void arc_cursor_set(struct arc *arc, struct arc_cursor *cur,
		    struct arc_hdr *hdr);
bool arc_cursor_put(struct arc *arc, struct arc_cursor *cur);
void arc_hdr_set_l2(struct arc *arc, struct arc_hdr *hdr);
void arc_hdr_clear_l2(struct arc *arc, struct arc_hdr *hdr);

unsigned int arc_nr_hashed(struct arc *arc);

/**
 * arc_list_size() - number of headers on one list.
 * @arc: the directory.
 * @id: which list.
 *
 * Context: @arc->lock held (or a racy snapshot for statistics).
 * Return: the count, in blocks.
 */
static inline u64 arc_list_size(const struct arc *arc, enum arc_list_id id)
{
	return arc->size[id];
}

/* @o's headers in T1 and T2, blocks; the directory's lock held. */
static inline u64 arc_owner_blocks(const struct arc_owner *o)
{
	return o->resident[ARC_T1] + o->resident[ARC_T2];
}

/**
 * arc_owner_resident() - an owner's headers in T1 and T2.
 * @arc: the directory, with owners (arc_owners_init()).
 * @id: the owner, 0..@arc->nr_owners - 1.
 *
 * Counts headers, not data: a header that became resident for a miss
 * counts before the target hangs its data on it.
 *
 * Context: @arc->lock held (or a racy snapshot for statistics).
 * Return: the count, in blocks.
 */
static inline u64 arc_owner_resident(const struct arc *arc, unsigned int id)
{
	return arc_owner_blocks(&arc->owners[id]);
}

/**
 * arc_c() - capacity.
 * @arc: the directory.
 *
 * Context: @arc->lock held (or a racy snapshot for statistics).
 * Return: c, in blocks.
 */
static inline u64 arc_c(const struct arc *arc)
{
	return arc->c;
}

/**
 * arc_p_fixed() - target size of T1, exactly.
 * @arc: the directory.
 *
 * Context: @arc->lock held (or a racy snapshot for statistics).
 * Return: p in blocks with %ARC_P_SHIFT fractional bits, 0..c << %ARC_P_SHIFT.
 */
static inline u64 arc_p_fixed(const struct arc *arc)
{
	return arc->p;
}

/**
 * arc_p_blocks() - target size of T1, rounded to the nearest block.
 * @arc: the directory.
 *
 * Context: @arc->lock held (or a racy snapshot for statistics).
 * Return: p in blocks, rounded half up, 0..c.
 */
static inline u64 arc_p_blocks(const struct arc *arc)
{
	return (arc->p + (ARC_P_ONE >> 1)) >> ARC_P_SHIFT;
}

/**
 * arc_evicted() - blocks evicted for room so far.
 * @arc: the directory.
 *
 * Context: @arc->lock held (or a racy snapshot for statistics).
 * Return: count of blocks taken out of T1/T2 by REPLACE, by case IV's
 * delete of T1's LRU and by arc_set_c() since arc_init().
 */
static inline u64 arc_evicted(const struct arc *arc)
{
	return arc->evicted;
}

/**
 * arc_l2only_writing() - L2-only headers whose copy is not written yet.
 * @arc: the directory.
 *
 * Context: @arc->lock held (or a racy snapshot for statistics).
 * Return: headers on the L2-only list without %ARC_F_L2, in blocks.
 */
static inline u64 arc_l2only_writing(const struct arc *arc)
{
	return arc->l2only_writing;
}

/**
 * arc_is_warm() - has the cache been full and evicted at least once?
 * @arc: the directory.
 *
 * Context: any; a racy snapshot is fine (the flag only goes from false to
 * true).
 * Return: true once the first block was evicted for room.
 */
static inline bool arc_is_warm(const struct arc *arc)
{
	return READ_ONCE(arc->warm);
}

#endif /* DM_L2ARC_ARC_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the slot table and the index of L2-only blocks.
 *
 * Design
 * ======
 *
 * What RAM must know of a copy on the cache device is the block it holds
 * and the crc32c that a read checks.  The slot table keeps exactly that,
 * 16 bytes a slot, in one kvmalloc'ed array sized from the cache device at
 * table load (struct l2arc_slot: the origin block and four flags in one
 * u64, the crc32c, and a u32 chain link).  Nothing of it is allocated
 * later, so the L2ARC's RAM cost is fixed when the table loads and no
 * shrinker or drop_caches can take it away.
 *
 * A block whose header the ARC's rules have dropped (an L2-only block, in
 * ZFS's words) needs no header: the directory's rhashtable does not know
 * it, and the index below finds it by origin block.  The index is a
 * chained hash table threaded through the slot table itself: a bucket is
 * a u32 (1 + the first slot of its chain, 0 for none), and each indexed
 * slot's @next is the next slot of the same chain.  A block read from L2
 * leaves the index and becomes a normal ARC header again (it claims the
 * slot, %L2ARC_SLOT_HDR); a header dropped by the ARC's rules while its
 * copy is valid gives its slot to the index and is freed.
 *
 * Arithmetic, per slot (so per L2-only block on a full device):
 *	slot table	16 bytes (8 block + flags, 4 crc32c, 4 chain link)
 *	buckets		4 bytes x 2^bits / slots, with 2^bits = slots
 *			rounded up to a power of two, halved: 2.0 to 4.0
 *	total		18.0 to 20.0 bytes, within the 24 bytes a block of
 *			the goal, against 48 (header) + 8 (slot map) + 4
 *			(crc32c) + 11 to 27 (its share of the rhashtable's
 *			buckets) = 71 to 87 before.
 * A TiB of cache device is 2^28 slots at 4 KiB blocks: 4 GiB of slot
 * table and 512 MiB of buckets, 4.5 GiB (4.8 GB); at 128 KiB blocks, 2^23
 * slots: 128 MiB and 16 MiB, 144 MiB.  The chains hold 1 to 2 slots a
 * bucket on average when every slot is indexed; hash_64() of the block
 * spreads consecutive blocks (a sequential feed) over the buckets.
 *
 * Limits: at most 2^32 - 1 slots (a chain link is 1 + a u32 slot), and
 * origin blocks below 2^56 (the flags use the top byte).  Both arrays are
 * cut into chunks of 2^22 entries, each its own kvmalloc (one allocation
 * is refused above INT_MAX bytes, which 2^27 slots pass): one more
 * pointer load per access, 8 bytes per chunk.
 *
 * Memory: the target refuses a table whose slot table and buckets
 * (l2arc_index_need()) exceed l2arc_meta_percent of RAM before anything
 * is allocated, and the chunks are asked for with __GFP_RETRY_MAYFAIL
 * (what kvmalloc supports of "fail rather than OOM-kill": it documents
 * __GFP_NORETRY as unsupported), so a table load that finds no memory
 * fails with -ENOMEM and never wakes the OOM killer.
 *
 * Locking: none here; the target holds arc.lock around every call but
 * init and exit (see l2index.h).
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "l2index.h"

/* Free a chunked array of @n chunks (NULL-safe). */
static void l2arc_chunks_free(void **chunks, unsigned int n)
{
	unsigned int i;

	if (!chunks)
		return;
	for (i = 0; i < n; i++)
		kvfree(chunks[i]);
	kfree(chunks);
}

/* @count zeroed entries of @size bytes in chunks; NULL without memory. */
static void **l2arc_chunks_alloc(u64 count, size_t size, unsigned int *nr)
{
	u64 per = BIT(L2ARC_INDEX_CHUNK_SHIFT);
	unsigned int n = max_t(u64, 1, DIV_ROUND_UP_ULL(count, per)), i;
	void **chunks = kcalloc(n, sizeof(*chunks), GFP_KERNEL);

	*nr = n;
	if (!chunks)
		return NULL;
	for (i = 0; i < n; i++) {
		u64 here = min_t(u64, per, count - (u64)i * per);

		chunks[i] = kvcalloc(max_t(u64, here, 1), size,
				     GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				     __GFP_NOWARN);
		if (!chunks[i]) {
			l2arc_chunks_free(chunks, i);
			return NULL;
		}
	}
	return chunks;
}

/* log2 of the bucket count for @nr_slots slots (see struct l2arc_index). */
static unsigned int l2arc_index_bits(u64 nr_slots)
{
	return nr_slots > 1 ? order_base_2(nr_slots) - 1 : 0;
}

/**
 * l2arc_index_need() - RAM that l2arc_index_init() would allocate
 * @nr_slots: slots of the cache device, any count (no allocation)
 *
 * Context: any.
 * Return: bytes: 16 a slot plus 4 a bucket, as l2arc_index_bytes().
 */
u64 l2arc_index_need(u64 nr_slots)
{
	return nr_slots * sizeof(struct l2arc_slot) +
	       (sizeof(u32) << l2arc_index_bits(nr_slots));
}

/**
 * l2arc_index_init() - allocate an empty slot table and index
 * @ix: the index to set up
 * @nr_slots: slots of the cache device, 0..%L2ARC_SLOT_NONE - 1
 *
 * Context: process context, may sleep (GFP_KERNEL | __GFP_RETRY_MAYFAIL:
 * reclaims, never invokes the OOM killer).
 * Return: 0, -EINVAL for too many slots, -ENOMEM.
 */
int l2arc_index_init(struct l2arc_index *ix, u64 nr_slots)
{
	memset(ix, 0, sizeof(*ix));
	if (nr_slots >= L2ARC_SLOT_NONE)
		return -EINVAL;
	ix->nr_slots = nr_slots;
	ix->bits = l2arc_index_bits(nr_slots);
	ix->slots = (struct l2arc_slot **)
		l2arc_chunks_alloc(nr_slots, sizeof(struct l2arc_slot),
				   &ix->nr_chunks);
	ix->buckets = (u32 **)l2arc_chunks_alloc(BIT_ULL(ix->bits), sizeof(u32),
						 &ix->nr_bucket_chunks);
	if (!ix->slots || !ix->buckets) {
		l2arc_index_exit(ix);
		return -ENOMEM;
	}
	return 0;
}

/**
 * l2arc_index_exit() - free what l2arc_index_init() allocated
 * @ix: the index (may be half set up, or zeroed)
 *
 * Context: process context.
 */
void l2arc_index_exit(struct l2arc_index *ix)
{
	l2arc_chunks_free((void **)ix->slots, ix->slots ? ix->nr_chunks : 0);
	l2arc_chunks_free((void **)ix->buckets,
			  ix->buckets ? ix->nr_bucket_chunks : 0);
	ix->slots = NULL;
	ix->buckets = NULL;
	ix->nr_chunks = 0;
	ix->nr_bucket_chunks = 0;
	ix->nr_slots = 0;
	ix->nr_indexed = 0;
}

/**
 * l2arc_index_bytes() - RAM of the slot table and the buckets
 * @ix: the index
 *
 * Context: any.
 * Return: bytes: 16 a slot plus 4 a bucket (what kvcalloc was asked for;
 * the chunk pointer arrays, 8 bytes per 4 Mi entries, left out).
 */
u64 l2arc_index_bytes(const struct l2arc_index *ix)
{
	if (!ix->slots)
		return 0;
	return l2arc_index_need(ix->nr_slots);
}

/* The chain head of @oblock (hash_64() needs 1 to 64 bits). */
static u32 *l2arc_index_bucket(const struct l2arc_index *ix, u64 oblock)
{
	u32 b = ix->bits ? hash_64(oblock, ix->bits) : 0;

	return &ix->buckets[b >> L2ARC_INDEX_CHUNK_SHIFT]
			   [b & L2ARC_INDEX_CHUNK_MASK];
}

/**
 * l2arc_index_find() - the slot that holds an L2-only block
 * @ix: the index
 * @oblock: the origin block
 *
 * Context: the caller's lock held (arc.lock).
 * Return: the slot, or %L2ARC_SLOT_NONE when no indexed slot holds it.
 */
u32 l2arc_index_find(const struct l2arc_index *ix, u64 oblock)
{
	u32 link = *l2arc_index_bucket(ix, oblock);

	while (link) {
		const struct l2arc_slot *sl = l2arc_slot(ix, link - 1);

		if (l2arc_slot_oblock(sl) == oblock)
			return link - 1;
		link = sl->next;
	}
	return L2ARC_SLOT_NONE;
}

/**
 * l2arc_index_add() - index a slot as an L2-only block
 * @ix: the index
 * @slot: a slot not indexed, 0..nr_slots - 1; its @cksum is kept
 * @oblock: the block its copy holds, below 2^56, not indexed already
 * @class: %L2ARC_SLOT_PREFETCH, %L2ARC_SLOT_MFU or 0 (MRU)
 *
 * The slot's word becomes @oblock | %L2ARC_SLOT_INDEXED | @class (an
 * %L2ARC_SLOT_HDR it had is cleared); it goes at the head of its chain.
 *
 * Context: the caller's lock held (arc.lock).
 */
void l2arc_index_add(struct l2arc_index *ix, u32 slot, u64 oblock, u64 class)
{
	struct l2arc_slot *sl = l2arc_slot(ix, slot);
	u32 *head = l2arc_index_bucket(ix, oblock);

	sl->word = (oblock & L2ARC_SLOT_OBLOCK) | L2ARC_SLOT_INDEXED |
		   (class & L2ARC_SLOT_CLASS);
	sl->next = *head;
	*head = slot + 1;
	ix->nr_indexed++;
}

/**
 * l2arc_index_del() - take an indexed slot off its chain
 * @ix: the index
 * @slot: a slot with %L2ARC_SLOT_INDEXED
 *
 * Clears %L2ARC_SLOT_INDEXED and the class; the block number and the
 * crc32c stay, for a caller that gives the slot to a header.
 *
 * Context: the caller's lock held (arc.lock).
 * Return: true; false (with a warning, nothing changed) if @slot is not on
 * its chain.
 */
bool l2arc_index_del(struct l2arc_index *ix, u32 slot)
{
	struct l2arc_slot *sl = l2arc_slot(ix, slot);
	u32 *link = l2arc_index_bucket(ix, l2arc_slot_oblock(sl));

	while (*link && *link != slot + 1)
		link = &l2arc_slot(ix, *link - 1)->next;
	if (WARN_ON_ONCE(!*link))
		return false;
	*link = sl->next;
	sl->next = 0;
	sl->word &= ~(L2ARC_SLOT_INDEXED | L2ARC_SLOT_CLASS);
	ix->nr_indexed--;
	return true;
}

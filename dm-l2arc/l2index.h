/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the slot table and the index of L2-only blocks (l2index.c).
 *
 * Locking: none of its own.  The target calls every function below except
 * l2arc_index_init() and l2arc_index_exit() with its directory's lock
 * (arc.lock) held; nothing here sleeps or allocates after init.
 */
#ifndef DM_L2ARC_L2INDEX_H
#define DM_L2ARC_L2INDEX_H

#include <linux/bits.h>
#include <linux/types.h>

/**
 * struct l2arc_slot - what RAM keeps of one cache device slot (16 bytes)
 * @word: the origin block of the copy (bits 0..55, %L2ARC_SLOT_OBLOCK)
 *	and %L2ARC_SLOT_* flags (bits 56..63); 0 for a free slot
 * @cksum: crc32c of the copy; valid with %L2ARC_SLOT_INDEXED, and with
 *	%L2ARC_SLOT_HDR once the owning header has %ARC_F_L2
 * @next: the index chain: 1 + the next slot of the same bucket, 0 at the
 *	end; meaningful only with %L2ARC_SLOT_INDEXED
 */
struct l2arc_slot {
	u64 word;
	u32 cksum;
	u32 next;
};

#define L2ARC_SLOT_OBLOCK	(BIT_ULL(56) - 1)
/* a header of the directory owns the slot: the one hashed under the block */
#define L2ARC_SLOT_HDR		BIT_ULL(56)
/* an L2-only block: on an index chain, no header */
#define L2ARC_SLOT_INDEXED	BIT_ULL(57)
/* the L2 size class of an indexed block (l2_prefetch_asize, l2_mfu_asize) */
#define L2ARC_SLOT_PREFETCH	BIT_ULL(58)
#define L2ARC_SLOT_MFU		BIT_ULL(59)
#define L2ARC_SLOT_CLASS	(L2ARC_SLOT_PREFETCH | L2ARC_SLOT_MFU)
/*
 * a copy the rebuild indexed, not read back good since: a checksum
 * mismatch voids it without counting a cache device error
 */
#define L2ARC_SLOT_UNVERIFIED	BIT_ULL(60)

/* "not indexed", from l2arc_index_find() */
#define L2ARC_SLOT_NONE		U32_MAX

/*
 * The slot table and the buckets are arrays of chunks of 2^22 entries at
 * most (64 MiB of slots, 16 MiB of buckets), each one kvmalloc'ed: a
 * single allocation is refused above INT_MAX bytes (2^27 slots).
 */
#define L2ARC_INDEX_CHUNK_SHIFT	22
#define L2ARC_INDEX_CHUNK_MASK	(BIT(L2ARC_INDEX_CHUNK_SHIFT) - 1)

/**
 * struct l2arc_index - the slot table and its hash index of one cache device
 * @slots: chunks of &struct l2arc_slot, one a slot, @nr_slots in all
 *	(reach them with l2arc_slot())
 * @buckets: chunks of chain heads (1 + slot, 0 for an empty bucket),
 *	1 << @bits in all
 * @nr_chunks: chunks of @slots
 * @nr_bucket_chunks: chunks of @buckets
 * @nr_slots: slots, 0..%L2ARC_SLOT_NONE - 1
 * @bits: log2 of the bucket count: @nr_slots rounded up to a power of two,
 *	halved (so 1 to 2 slots a bucket, 2 to 4 bytes a slot)
 * @nr_indexed: slots with %L2ARC_SLOT_INDEXED
 */
struct l2arc_index {
	struct l2arc_slot **slots;
	u32 **buckets;
	unsigned int nr_chunks;
	unsigned int nr_bucket_chunks;
	u32 nr_slots;
	unsigned int bits;
	u64 nr_indexed;
};

/**
 * l2arc_slot() - one slot's entry
 * @ix: the index
 * @slot: the slot, 0..nr_slots - 1
 *
 * Return: the entry.
 */
static inline struct l2arc_slot *l2arc_slot(const struct l2arc_index *ix,
					    u32 slot)
{
	return &ix->slots[slot >> L2ARC_INDEX_CHUNK_SHIFT]
			 [slot & L2ARC_INDEX_CHUNK_MASK];
}

/**
 * l2arc_slot_oblock() - the origin block a slot's copy belongs to
 * @sl: the slot
 *
 * Return: the block number (meaningful with %L2ARC_SLOT_HDR or
 * %L2ARC_SLOT_INDEXED).
 */
static inline u64 l2arc_slot_oblock(const struct l2arc_slot *sl)
{
	return sl->word & L2ARC_SLOT_OBLOCK;
}

u64 l2arc_index_need(u64 nr_slots);
int l2arc_index_init(struct l2arc_index *ix, u64 nr_slots);
void l2arc_index_exit(struct l2arc_index *ix);
u64 l2arc_index_bytes(const struct l2arc_index *ix);
u32 l2arc_index_find(const struct l2arc_index *ix, u64 oblock);
void l2arc_index_add(struct l2arc_index *ix, u32 slot, u64 oblock, u64 class);
bool l2arc_index_del(struct l2arc_index *ix, u32 slot);

#endif /* DM_L2ARC_L2INDEX_H */

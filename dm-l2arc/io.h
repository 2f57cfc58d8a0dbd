/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the bio path's types and state (io.c has the theory).
 *
 * Included by dm-l2arc.h before struct l2arc_c, which embeds a struct
 * l2arc_iopath as its member iop.
 */
#ifndef DM_L2ARC_IO_H
#define DM_L2ARC_IO_H

#include <linux/bio.h>
#include <linux/rbtree.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct arc_hdr;
struct arc_ops;
struct l2arc_buf;
struct l2arc_c;
struct l2arc_io;
struct l2arc_run;

/**
 * struct l2arc_wrange - a write (or discard, write-zeroes) in flight
 * @rb: node in &l2arc_iopath.wr_tree, an interval tree keyed by block
 * @start: first block it writes
 * @last: last block it writes (inclusive)
 * @subtree_last: the interval tree's bookkeeping
 *
 * Lives in the bio's per-bio data (struct l2arc_io): no allocation.
 */
struct l2arc_wrange {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
};

/*
 * &arc_hdr.data holds a struct l2arc_fill while %ARC_F_IO_IN_PROGRESS is
 * set, a struct l2arc_buf once the block is read.  The fill's pointer
 * carries this tag in its low bit, so that a reader without arc.lock
 * (l2arc_hdr_buf_rcu()), which cannot read the flag and the pointer at
 * once, tells the two apart from the pointer alone.
 */
#define L2ARC_DATA_FILL		1UL

struct l2arc_fill;

/**
 * l2arc_fill_data() - what a header's data is while @f reads its block
 * @f: the fill
 *
 * Return: @f, tagged, for arc_hdr_set_data() and comparisons with
 * &arc_hdr.data.
 */
static inline void *l2arc_fill_data(struct l2arc_fill *f)
{
	return (void *)((unsigned long)f | L2ARC_DATA_FILL);
}

/**
 * l2arc_hdr_fill() - the fill of a header whose block is being read
 * @hdr: a resident header with %ARC_F_IO_IN_PROGRESS
 *
 * This and l2arc_hdr_buf() check the flag (a warning, once, when it says
 * otherwise).
 *
 * Context: arc.lock held.
 * Return: the fill.
 */
static inline struct l2arc_fill *l2arc_hdr_fill(const struct arc_hdr *hdr)
{
	unsigned long d = (unsigned long)hdr->data;

	WARN_ON_ONCE(!(hdr->flags & ARC_F_IO_IN_PROGRESS) ||
		     !(d & L2ARC_DATA_FILL));
	return (struct l2arc_fill *)(d & ~L2ARC_DATA_FILL);
}

/**
 * l2arc_hdr_buf() - the data of a resident header whose block is read
 * @hdr: a resident header without %ARC_F_IO_IN_PROGRESS
 *
 * Context: arc.lock held.
 * Return: its buffer.
 */
static inline struct l2arc_buf *l2arc_hdr_buf(const struct arc_hdr *hdr)
{
	WARN_ON_ONCE(hdr->flags & ARC_F_IO_IN_PROGRESS);
	return hdr->data;
}

/**
 * l2arc_hdr_buf_rcu() - a header's buffer, read without arc.lock
 * @hdr: a header from arc_lookup_rcu(), in any state, possibly reused
 *
 * The buffer, if any, was published by arc_hdr_set_data() (release
 * order), so its data is complete; it may have been let go since.  The
 * caller takes it with l2arc_buf_tryget() and checks &l2arc_buf.owner and
 * &l2arc_buf.oblock.
 *
 * Context: rcu_read_lock() held.
 * Return: the buffer hung on @hdr when read, or NULL (none, or a fill).
 */
static inline struct l2arc_buf *l2arc_hdr_buf_rcu(struct arc_hdr *hdr)
{
	/* pairs with arc_hdr_set_data()'s release: the data is complete */
	void *d = smp_load_acquire(&hdr->data);

	if ((unsigned long)d & L2ARC_DATA_FILL)
		return NULL;
	return d;
}

/**
 * struct l2arc_wait - one block of a read: the buffer of a hit, or the
 * read's place among the waiters of the block's fill (io.c)
 * @next: the next waiter of the same fill
 * @io: the read (its per-bio data)
 * @block: the block
 * @hit: the block's buffer, referenced, while a hit is copied out
 * @iter: where the block's part starts in the read's bio; set under
 *        arc.lock with the rest, before any completion can copy into it
 */
struct l2arc_wait {
	struct l2arc_wait *next;
	struct l2arc_io *io;
	u64 block;
	struct l2arc_buf *hit;
	struct bvec_iter iter;
};

/**
 * struct l2arc_fill - one block being read into a new ARC buffer, as
 * part of a run (io.c)
 * @hdr: the block's header, pinned until the run is done; NULL for a
 *       resident block that an origin run reads over (its data is thrown
 *       away, see l2arc_run_bridge())
 * @buf: the buffer; one reference is the fill's, the ARC takes its own
 *       when the fill installs
 * @waiters: reads waiting for the data; under arc.lock until completion
 * @l2_cksum: crc32c the copy must have (when the run reads the cache
 *            device)
 * @detached: a write to the block took the fill off its header: it
 *            installs nothing, and only the reads that were waiting
 *            before the write get its data
 * @bad: its copy failed the checksum (or the run's read failed)
 * @l2_unverified: its copy came from the rebuild and was never read good
 *                 (%L2ARC_SLOT_UNVERIFIED): a checksum mismatch is not a
 *                 cache device error
 *
 * A fill is attached to its header only while no write to the block is
 * in flight (l2arc_map_read() checks, under arc.lock), and a write that
 * starts later detaches it (l2arc_invalidate_hdr()): so a fill that is
 * still attached when it completes saw no write, and every read that
 * joins it was issued before any write that could make its data stale
 * had completed.
 */
struct l2arc_fill {
	struct arc_hdr *hdr;
	struct l2arc_buf *buf;
	struct l2arc_wait *waiters;
	u32 l2_cksum;
	bool detached;
	bool bad;
	bool l2_unverified;
};

/**
 * struct l2arc_run - consecutive fills read with one bio (io.c)
 * @work: completion on the device's workqueue (errors, hard IRQ context)
 * @next: the next run of the same map, until it is submitted
 * @l2_node: link in &l2arc_l2.reads while it reads the cache device
 * @lc: the device
 * @oblock: the first block (fill i reads block @oblock + i)
 * @l2_slot: the first slot, when it reads the cache device (fill i reads
 *           slot @l2_slot + i)
 * @bio: the read, from &l2arc_iopath.bs, the pages of every fill's buffer
 * @status: the read's result
 * @from_l2: it reads consecutive slots of the cache device, else
 *           consecutive blocks of the origin
 * @checked: the checksums were verified (@f[].bad set)
 * @start_ns: ktime_get_ns() at its submission (the read's latency)
 * @nr: fills
 * @max: room for this many
 * @f: the fills, in block (and slot) order
 */
struct l2arc_run {
	struct work_struct work;
	struct l2arc_run *next;
	struct list_head l2_node;
	struct l2arc_c *lc;
	u64 oblock;
	u32 l2_slot;
	struct bio *bio;
	blk_status_t status;
	bool from_l2;
	bool checked;
	u64 start_ns;
	unsigned int nr;
	unsigned int max;
	struct l2arc_fill f[];
};

/**
 * struct l2arc_io - per-bio data of the target (io.c)
 * @wr: a write's entry in the tree of writes in flight
 * @tracked: @wr is in the tree (a write, discard or write-zeroes with
 *           data); false for every other bio
 * @wr_sectors: a tracked write's length, for l2arc_watch_done()
 * @pending: a read's parts not done yet (its own map's included)
 * @status: a read's first error
 * @waits: a read's blocks not served without the lock, from the first of
 *	them (@wait1 when that is one block; NULL when all were served)
 * @wait1: the one such block
 */
struct l2arc_io {
	struct l2arc_wrange wr;
	bool tracked;
	unsigned int wr_sectors;
	atomic_t pending;
	blk_status_t status;
	struct l2arc_wait *waits;
	struct l2arc_wait wait1;
};

/**
 * struct l2arc_iopath - the bio path's state of a device
 * @wr_lock: protects @wr_tree; taken with interrupts off (write
 *	completions may run in hard interrupt context), nests inside
 *	arc.lock
 * @wr_tree: the writes in flight (struct l2arc_wrange), by block range
 * @wr_count: number of them; changed with @wr_lock held, raised only with
 *	arc.lock held too, so that a reader holding arc.lock that
 *	sees 0 knows no write of its block has been issued
 * @fills_inflight: runs issued and not yet done (read-aheads included)
 * @fills_wait: woken when @fills_inflight drops to 0
 * @wq: runs the completions of runs that cannot finish where their bio
 *	completes (arc.lock is BH-safe only)
 * @bs: bio set of the runs' reads and of reads around the ARC
 * @bs_ready: @bs is initialised
 * @runs_deferred: runs whose completion went to @wq (hard IRQ context or
 *	an error)
 * @throttle_at: jiffies of the last read sent around the ARC for lack of
 *	memory (status says "throttled" for 10 s after), 0: never
 * @mem_checked: jiffies of the last look at MemAvailable (l2arc_grow())
 * @mem_short: MemAvailable was below arc_sys_free then
 *
 * Set up by l2arc_iopath_init() (@wr_lock, @wr_tree and @fills_wait at
 * the ctr's start, l2arc_iopath_alloc() for @wq and @bs), torn down by
 * l2arc_iopath_exit(); l2arc_iopath_drain() waits for @fills_inflight.
 */
struct l2arc_iopath {
	spinlock_t wr_lock;	/* protects wr_tree, see above */
	struct rb_root_cached wr_tree;
	atomic_t wr_count;
	atomic_t fills_inflight;
	wait_queue_head_t fills_wait;
	struct workqueue_struct *wq;
	struct bio_set bs;
	bool bs_ready;
	atomic64_t runs_deferred;
	unsigned long throttle_at;
	unsigned long mem_checked;
	bool mem_short;
};

extern const struct arc_ops l2arc_arc_ops;
extern const struct arc_ops l2arc_pool_arc_ops;
int l2arc_map(struct dm_target *ti, struct bio *bio);
int l2arc_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error);
void l2arc_invalidate_all(struct l2arc_c *lc);
void l2arc_forget_all(struct l2arc_c *lc);
void l2arc_invalidate_live(struct l2arc_c *lc);
void l2arc_iopath_init(struct l2arc_c *lc);
int l2arc_iopath_alloc(struct l2arc_c *lc, char **error);
void l2arc_iopath_drain(struct l2arc_c *lc);
void l2arc_iopath_exit(struct l2arc_c *lc);

/* write.c */
void l2arc_write_begin(struct l2arc_c *lc, struct bio *bio,
		       struct l2arc_io *io);
void l2arc_wr_exit(struct l2arc_c *lc, struct l2arc_wrange *wr);
bool l2arc_wr_overlaps(struct l2arc_c *lc, u64 first, u64 last);

#endif /* DM_L2ARC_IO_H */

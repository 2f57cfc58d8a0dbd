// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the device-mapper target "l2arc".
 *
 * Table line (see table.c and Documentation/dm-l2arc.rst):
 *
 *   <start> <length> l2arc <origin_dev> <cache_dev|-> <block_size>
 *                          [<#features> <feature>...]
 *
 * Where a bio goes (l2arc_map()):
 *  - a read is served from the ARC when the block is resident (a hit: the
 *    data is copied out, no device I/O), joins the read already in flight
 *    for the block (an iohit), or starts one (a miss): the whole block is
 *    read from the cache device or the origin into a new ARC buffer (a
 *    "fill"), the directory having taken the access in mapping order, and
 *    the reader gets its part when the fill completes;
 *  - a read of a block that a write in flight covers goes around the ARC
 *    to the origin (reads_around_writes), see "Never stale" below;
 *  - a write, discard or write-zeroes goes through to the origin; the
 *    cached copies of its blocks are dropped before it is issued;
 *  - anything else (flushes) is remapped to the origin unchanged.
 *
 * Never stale.  A read issued after a write completed returns the written
 * data.  Every write (and discard, write-zeroes) is entered in an interval
 * tree of writes in flight (struct l2arc_wrange, in the bio's per-bio
 * data) before its blocks' cached copies are dropped, and leaves it when
 * it completes (l2arc_end_io()).  A fill is hung on a header only when no
 * write of its block is in flight; a write that starts later takes the
 * fill off its header (it installs nothing and serves only the reads that
 * were already waiting, issued before the write completed).  So a fill
 * that reads can join is one that no write overlapped, and a read that
 * takes the device lock and overlaps a write in flight goes to the origin:
 * it may see the old or the new data, as a read racing a write may.  A
 * block served without the lock (a read's resident blocks from its first
 * on, io.c's l2arc_map_hits()) may be a block of a write that has been
 * entered but whose copies are not all dropped yet: the write has not
 * been sent to the origin then, so the data it gets is the block's
 * latest.  Such a read's later blocks, mapped under the lock, may then
 * find the write in flight and read around the ARC: a read that overlaps
 * a write may see some blocks old and some new, as with a disk.  Read-ahead
 * skips blocks being written.
 * The tree is exact per block: a write never disturbs another block's
 * fill or L2 copy.
 *
 * A read fails only if the origin fails the sectors it asked for: when a
 * fill fails, each waiting read is sent to the origin for its own range.
 *
 * Fill completions run on the device's workqueue, because the directory's
 * lock is BH-safe only (arc.h) and bio completions may run in hard IRQ
 * context.  Lock order: arc.lock, then wr_lock (taken with interrupts
 * off, also alone from write completions).  Bulk work under arc.lock (a
 * large discard's invalidation, the shrinker, the feed's scans) drops the
 * lock every L2ARC_LOCK_BATCH entries (l2arc_bulk_yield()).
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "dm-l2arc.h"
#include "whatif.h"

#define L2ARC_VERSION_MAJOR	0
#define L2ARC_VERSION_MINOR	5
#define L2ARC_VERSION_PATCH	0

/* ---- Shrinker ---- */

static unsigned long l2arc_shrink_count(struct shrinker *s,
					struct shrink_control *sc)
{
	struct l2arc_c *lc = l2arc_shrinker_private(s);
	u64 resident = arc_list_size(lc->arc, ARC_T1) +
		       arc_list_size(lc->arc, ARC_T2);

	unsigned long n = l2arc_pages_count(&lc->pages) +
			  READ_ONCE(lc->feed.handoff_nr) * lc->block_pages;

	if (lc->pool)	/* the pool's shrinker shrinks its ARC (pool.c) */
		return n;

	/*
	 * Never the L2ARC's index: it is allocated at table load, 18 to 20
	 * bytes a cache device slot (l2index.c), and dropping its entries
	 * would free nothing.
	 */
	if (resident > lc->c_min)
		return n + (resident - lc->c_min) * lc->block_pages;
	return n;
}

static u64 l2arc_resident(struct l2arc_c *lc)
{
	return arc_list_size(lc->arc, ARC_T1) + arc_list_size(lc->arc, ARC_T2);
}

/*
 * Give memory back: first the pool's free pages, then the hand-off
 * queue's blocks (unwritten, counted in l2_evict_missed); then c shrinks by the
 * blocks still asked for, never below c_min, and the directory trims its
 * lists to the paper's invariants for the new c, at most L2ARC_LOCK_BATCH
 * blocks of c per lock hold (the evicted buffers' pages pass through the
 * pool, which is emptied again).  Returns pages freed.
 */
static unsigned long l2arc_shrink_scan(struct shrinker *s,
				       struct shrink_control *sc)
{
	struct l2arc_c *lc = l2arc_shrinker_private(s);
	u64 want, target, c, before, blocks = 0;
	struct l2arc_hold h;
	unsigned long freed;

	freed = l2arc_pages_shrink(&lc->pages, sc->nr_to_scan);
	if (freed >= sc->nr_to_scan || lc->pool)
		return freed ? freed : SHRINK_STOP;
	/* evicted blocks waiting for the feed go before resident ones */
	if (l2arc_handoff_shrink(lc, sc->nr_to_scan - freed)) {
		freed += l2arc_pages_shrink(&lc->pages, ULONG_MAX);
		if (freed >= sc->nr_to_scan)
			return freed;
	}
	want = max_t(u64, 1, (sc->nr_to_scan - freed) / lc->block_pages);
	l2arc_bulk_lock(lc, &h);
	c = min(arc_c(lc->arc), l2arc_resident(lc));
	target = c > lc->c_min + want ? c - want : lc->c_min;
	while (arc_c(lc->arc) > target) {
		c = arc_c(lc->arc);
		before = l2arc_resident(lc);
		arc_set_c(lc->arc, c - min_t(u64, c - target,
					     L2ARC_LOCK_BATCH));
		blocks += before - l2arc_resident(lc);
		if (arc_c(lc->arc) > target)
			l2arc_bulk_relax(lc, &h);
	}
	l2arc_stat_add(lc, L2ARC_STAT_SHRINKS, blocks);
	lc->last_shrink = jiffies;
	l2arc_bulk_unlock(lc, &h);
	freed += l2arc_pages_shrink(&lc->pages, ULONG_MAX);

	return freed ? freed : SHRINK_STOP;
}

/* ---- Constructor and destructor ---- */

/* Copes with a half-built target: every member may still be unset. */
static void l2arc_dtr(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;

	if (!lc)
		return;
	l2arc_stats_unregister(lc);
	l2arc_watch_exit(lc);	/* its check may drop the ARC: first */
	l2arc_feed_stop(lc);
	l2arc_iopath_drain(lc);
	if (lc->arc_ready)
		l2arc_handoff_drop(lc);	/* unpins its headers */
	l2arc_shrinker_unregister(&lc->shrinker);
	l2arc_iopath_exit(lc);
	if (lc->pool) {
		/* out of the pool's ARC, ghosts too: the id may serve another */
		if (lc->arc_ready)
			l2arc_forget_all(lc);
		l2arc_pool_detach(lc);
	} else if (lc->arc_ready) {
		arc_exit(lc->arc);
	}
	l2arc_whatif_destroy(lc->whatif);
	l2arc_pages_exit(&lc->pages);
	l2arc_feed_exit(lc);
	l2arc_users_del(lc);	/* before its devices go */
	if (lc->cache)
		dm_put_device(ti, lc->cache);
	if (lc->origin)
		dm_put_device(ti, lc->origin);
	l2arc_table_free(&lc->table);
	l2arc_origin_claim_exit(lc);
	l2arc_hitlog_exit(&lc->hitlog);
	free_percpu(lc->stats);
	kvfree(lc);
	ti->private = NULL;
}

static int l2arc_get_devices(struct l2arc_c *lc, struct dm_target *ti)
{
	dev_t self = disk_devt(dm_disk(dm_table_get_md(ti->table)));
	struct l2arc_table *t = &lc->table;
	int r;

	r = dm_get_device(ti, t->origin_path, dm_table_get_mode(ti->table),
			  &lc->origin);
	if (r)
		return l2arc_check_holders(lc, NULL, "Origin device",
					   t->origin_path, r, &ti->error);
	/* a table over itself would send every bio back to itself */
	if (lc->origin->bdev->bd_dev == self) {
		ti->error = "Origin device is this device";
		return -EINVAL;
	}
	r = t->cache_path ? l2arc_pool_attach(lc, ti, &ti->error) : 0;
	if (r < 0)
		return r;
	if (t->cache_path && !lc->pool) {
		/*
		 * Read-write whatever the table's mode: the cache device is
		 * the target's own, written by the feed also under a
		 * read-only table.
		 */
		r = dm_get_device(ti, t->cache_path,
				  dm_table_get_mode(ti->table) | L2ARC_OPEN_WRITE,
				  &lc->cache);
		if (r)
			return l2arc_check_holders(lc, NULL, "Cache device",
						   t->cache_path, r, &ti->error);
		if (lc->cache->bdev->bd_dev == self) {
			ti->error = "Cache device is this device";
			return -EINVAL;
		}
		if (bdev_read_only(lc->cache->bdev)) {
			ti->error = "Cache device is read-only";
			return -EROFS;
		}
		if (lc->cache->bdev == lc->origin->bdev) {
			ti->error = "Origin and cache device are the same";
			return -EINVAL;
		}
		if (bdev_nr_sectors(lc->cache->bdev) <
		    (sector_t)L2ARC_CACHE_MIN_BLOCKS * t->block_sectors) {
			ti->error = "Cache device is smaller than 16 blocks";
			return -EINVAL;
		}
	}

	/* another mapped device over either: a second writer (origin.c) */
	r = l2arc_check_holders(lc, lc->origin, "Origin device", NULL, 0,
				&ti->error);
	if (!r && lc->cache)
		r = l2arc_check_holders(lc, lc->cache, "Cache device", NULL, 0,
					&ti->error);
	if (!r)
		r = l2arc_users_add(lc, &ti->error);
	if (r)
		return r;
	if (ti->len > bdev_nr_sectors(lc->origin->bdev)) {
		ti->error = "Length exceeds the origin device";
		return -EINVAL;
	}
	if (ti->len & (t->block_sectors - 1)) {
		ti->error = "Length is not a multiple of the block size";
		return -EINVAL;
	}
	return 0;
}

/* Size the ARC: c_max from arc_max (the table's or the module's). */
static void l2arc_size_arc(struct l2arc_c *lc)
{
	u64 bytes = lc->table.arc_max_set ? lc->table.arc_max :
					    l2arc_param(L2ARC_P_ARC_MAX);
	unsigned int shift = lc->block_shift + SECTOR_SHIFT;

	lc->c_max = clamp_t(u64, bytes >> shift, L2ARC_ARC_MIN_BLOCKS,
			    ARC_C_MAX);
	bytes = lc->table.arc_min_set ? lc->table.arc_min :
					l2arc_param(L2ARC_P_ARC_MIN);
	lc->c_min = clamp_t(u64, bytes >> shift, L2ARC_ARC_MIN_BLOCKS,
			    lc->c_max);
}

/*
 * The device's ARC: its own, sized by arc_max, or its pool's, which gives
 * the size (a member's arc_max is its ceiling in it; it has no what-if).
 */
static int l2arc_ctr_arc(struct l2arc_c *lc, struct dm_target *ti)
{
	int r;

	if (lc->pool) {
		if (lc->table.whatif_set && lc->table.whatif) {
			ti->error = "A pool member has no what-if";
			return -EINVAL;
		}
	} else {
		l2arc_size_arc(lc);
		r = arc_init(lc->arc, lc->c_max, &l2arc_arc_ops, lc);
		if (r) {
			ti->error = "Cannot set up the ARC directory";
			return r;
		}
	}
	lc->arc_ready = true;
	return 0;
}

/* The context of a new table's device, its locks and lists set up. */
static struct l2arc_c *l2arc_ctx_new(struct dm_target *ti)
{
	struct mapped_device *md = dm_table_get_md(ti->table);
	struct l2arc_c *lc;

	lc = kvzalloc(sizeof(*lc), GFP_KERNEL);
	if (!lc)
		return NULL;
	lc->stats = alloc_percpu(struct l2arc_stats);
	if (!lc->stats || l2arc_hitlog_init(&lc->hitlog)) {
		free_percpu(lc->stats);
		kvfree(lc);
		return NULL;
	}
	lc->ti = ti;
	ti->private = lc;
	lc->arc = &lc->arc_own;
	INIT_LIST_HEAD(&lc->pool_node);
	l2arc_zfetch_init(&lc->zf);
	INIT_LIST_HEAD(&lc->kstat.node);
	mutex_init(&lc->feed.mutex);
	l2arc_iopath_init(lc);
	l2arc_watch_setup(lc);
	l2arc_pages_init(&lc->pages, 1);
	INIT_LIST_HEAD(&lc->l2.reads);
	init_waitqueue_head(&lc->l2.read_wait);
	/* unique among the targets of one table (a concatenation) */
	if (ti->begin)
		snprintf(lc->name, sizeof(lc->name), "%.23s+%llu",
			 dm_disk(md)->disk_name, (unsigned long long)ti->begin);
	else
		strscpy(lc->name, dm_disk(md)->disk_name, sizeof(lc->name));
	lc->kstat.crtime = ktime_get_ns();
	lc->persist.owner_token = get_random_u64() | 1;
	return lc;
}

/* The bio path's workqueue and bio set, and the shrinker. */
static int l2arc_ctr_io(struct l2arc_c *lc, struct dm_target *ti)
{
	int r;

	r = l2arc_iopath_alloc(lc, &ti->error);
	if (r)
		return r;
	r = l2arc_shrinker_register(&lc->shrinker, l2arc_shrink_count,
				    l2arc_shrink_scan, lc, lc->name);
	if (r) {
		ti->error = "Cannot register shrinker";
		return r;
	}
	if (!lc->pool && (lc->table.whatif_set ? lc->table.whatif :
			  l2arc_param(L2ARC_P_WHATIF))) {
		lc->whatif = l2arc_whatif_create(lc->c_max, lc->l2.nr_slots,
						 l2arc_block_bytes(lc));
		if (!lc->whatif) {
			ti->error = "Cannot allocate the what-if simulations";
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Construct an l2arc target.  Every failure sets a specific ti->error and
 * unwinds through l2arc_dtr().
 */
static int l2arc_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct l2arc_c *lc;
	int r;

	lc = l2arc_ctx_new(ti);
	if (!lc) {
		ti->error = "Cannot allocate l2arc context";
		return -ENOMEM;
	}
	r = l2arc_parse_table(&lc->table, argc, argv, &ti->error);
	if (r)
		goto bad;
	lc->block_sectors = lc->table.block_sectors;
	lc->block_shift = ilog2(lc->block_sectors);
	lc->block_pages = l2arc_block_bytes(lc) >> PAGE_SHIFT;
	l2arc_pages_init(&lc->pages, lc->block_pages);
	lc->tun = lc->table.tun;

	r = l2arc_get_devices(lc, ti);
	if (r)
		goto bad;
	lc->nr_blocks = ti->len >> lc->block_shift;
	r = l2arc_origin_claim_init(lc);
	if (!r)
		r = l2arc_watch_init(lc);
	if (r) {
		ti->error = "Cannot allocate the origin's claim";
		goto bad;
	}
	l2arc_origin_uid(lc);
	if (lc->cache) {
		r = l2arc_feed_init(lc, &ti->error);
		if (r)
			goto bad;
	}

	r = l2arc_ctr_arc(lc, ti);
	if (r)
		goto bad;
	r = l2arc_ctr_io(lc, ti);
	if (r)
		goto bad;

	/* bios are taken whole: no max_io_len */
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct l2arc_io);
	return 0;

bad:
	l2arc_dtr(ti);
	return r;
}

/* ---- Suspend and resume ---- */

/*
 * The device is suspended (user I/O has drained): stop the feed, and wait
 * for read-aheads, which have no waiting bio, so device-mapper does not
 * wait for them; a suspended device then has no I/O in flight.  Nothing
 * is stopped before (presuspend): a suspend that is interrupted leaves the
 * device as it was, feed included.
 */
static void l2arc_presuspend(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;

	/* read in postsuspend, when device-mapper has cleared the flag */
	lc->persist.noflush_suspend = dm_noflush_suspending(ti);
}

static void l2arc_postsuspend(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;

	l2arc_feed_stop(lc);
	l2arc_iopath_drain(lc);
	l2arc_watch_suspend(lc);
	l2arc_persist_suspend(lc);
	l2arc_stats_unregister(lc);
}

/* The origin changed while suspended: drop every cached copy of it. */
static void l2arc_origin_moved_drop(struct l2arc_c *lc, const char *why)
{
	DMWARN("%s: the origin changed while suspended: %s: the ARC and the L2ARC start empty",
	       lc->name, why);
	l2arc_lock(lc);
	l2arc_stat_inc(lc, L2ARC_STAT_ORIGIN_CHANGED_DROPS);
	l2arc_unlock(lc);
	l2arc_drop_cached(lc, false);
}

/*
 * Before the device takes I/O: a resume other than the first drops every
 * cached copy (the ARC, the hand-off queue, the slot table, the log) when
 * the origin changed while the device was suspended; the first time, the
 * L2ARC is rebuilt from the cache device's log blocks; every time, the
 * cache device is marked in use (persist.c).  Never fails: a cache device
 * that cannot be read starts empty, one that cannot be written is
 * dropped.  The device is suspended: no reclaim may write through it.
 */
static int l2arc_preresume(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;
	unsigned int noio = memalloc_noio_save();
	const char *why = l2arc_persist_origin_moved(lc);

	if (why)
		l2arc_origin_moved_drop(lc, why);
	memalloc_noio_restore(noio);
	l2arc_persist_resume(lc);
	l2arc_watch_resume(lc);
	return 0;
}

/*
 * The /proc entry belongs to the table that is live; the feed restarts.
 * Device-mapper releases the device's I/O only after resume: reclaim must
 * not write through it (swap or dirty pages on it) while the entry is
 * allocated.
 */
static void l2arc_resume(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;
	unsigned int noio = memalloc_noio_save();

	l2arc_stats_register(lc);
	memalloc_noio_restore(noio);
	l2arc_feed_start(lc);
}

/* ---- Status, messages, devices and limits ---- */

/* A throttled read makes the status say "throttled" for this long. */
#define L2ARC_THROTTLE_SHOWN	(10 * HZ)

/* The status's arc_max: a member's ceiling if it has one, else c_max. */
static u64 l2arc_arc_max_blocks(const struct l2arc_c *lc)
{
	return lc->ceiling ? lc->ceiling : lc->c_max;
}

/*
 * The health word of the status line: "degraded" once the cache device is
 * dropped, else "slow" while it is slower than l2arc_slow_bypass_pct
 * allows (L2 hits read the origin); "throttled" while reads go around the
 * ARC for lack of memory (one in the last 10 s); joined by a comma, else
 * "ok".
 */
static const char *l2arc_health(struct l2arc_c *lc)
{
	unsigned long at = READ_ONCE(lc->iop.throttle_at);
	bool throttled = at && time_before(jiffies, at + L2ARC_THROTTLE_SHOWN);

	if (READ_ONCE(lc->l2.failed))
		return throttled ? "degraded,throttled" : "degraded";
	if (lc->cache && l2arc_l2_slow(lc))
		return throttled ? "slow,throttled" : "slow";
	return throttled ? "throttled" : "ok";
}

static void l2arc_emit_info(struct l2arc_c *lc, char *result,
			    unsigned int maxlen, unsigned int *szp)
{
	unsigned int shift = lc->block_shift + SECTOR_SHIFT, sz = *szp;
	u64 v[L2ARC_STAT_NR];
	u64 t1, t2, b1, b2, p, c, l2_blocks, rate, day;
	int id;

	l2arc_lock(lc);
	l2arc_stat_read_all(lc, v);
	t1 = arc_list_size(lc->arc, ARC_T1);
	t2 = arc_list_size(lc->arc, ARC_T2);
	b1 = arc_list_size(lc->arc, ARC_B1);
	b2 = arc_list_size(lc->arc, ARC_B2);
	p = arc_p_blocks(lc->arc);
	c = arc_c(lc->arc);
	l2_blocks = lc->l2.blocks;
	rate = l2arc_write_rate(lc);
	day = l2arc_wear_24h(lc);
	l2arc_unlock(lc);

	DMEMIT("%u %llu/%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
	       lc->block_sectors, t1 + t2, lc->c_max, p, c, t1, t2, b1, b2,
	       v[L2ARC_STAT_HITS], v[L2ARC_STAT_MISSES],
	       v[L2ARC_STAT_MRU_GHOST_HITS], v[L2ARC_STAT_MFU_GHOST_HITS]);
	DMEMIT(" %llu/%llu %llu %llu %llu %llu %llu %llu",
	       l2_blocks, lc->l2.nr_slots, v[L2ARC_STAT_L2_HITS],
	       v[L2ARC_STAT_L2_MISSES], v[L2ARC_STAT_L2_WRITE_BYTES],
	       v[L2ARC_STAT_L2_CKSUM_BAD], v[L2ARC_STAT_L2_IO_ERROR],
	       v[L2ARC_STAT_L2_WRITES_ERROR]);
	DMEMIT(" %llu %llu %llu %llu %llu", rate, l2arc_dwpd_cap(lc), day,
	       v[L2ARC_STAT_L2_HANDOFFS], v[L2ARC_STAT_L2_EVICT_MISSED]);
	DMEMIT(" %u arc_max %llu arc_min %llu prefetch_disable %u zfetch_max_distance %llu",
	       2 * (4 + L2ARC_NR_DEV_PARAMS), l2arc_arc_max_blocks(lc) << shift,
	       lc->c_min << shift,
	       lc->table.prefetch_disable ||
	       l2arc_param(L2ARC_P_PREFETCH_DISABLE),
	       l2arc_param(L2ARC_P_ZFETCH_MAX_DISTANCE));
	for (id = L2ARC_P_DEV_FIRST; id <= L2ARC_P_DEV_LAST; id++)
		DMEMIT(" %s %llu", l2arc_param_name(id),
		       l2arc_dev_param(&lc->tun, id));
	DMEMIT(" %s", l2arc_health(lc));
	*szp = sz;
}

/* The table's second word: the cache device, the pool, or "-". */
static const char *l2arc_cache_name(struct l2arc_c *lc)
{
	if (lc->pool)
		return lc->pool_dev->name;
	return lc->cache ? lc->cache->name : "-";
}

/*
 * INFO: see Documentation/dm-l2arc.rst, "Status".
 * TABLE: <origin maj:min> <cache maj:min|-> <block_size> [<features>]
 */
static void l2arc_status(struct dm_target *ti, status_type_t type,
			 unsigned int status_flags, char *result,
			 unsigned int maxlen)
{
	struct l2arc_c *lc = ti->private;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		l2arc_emit_info(lc, result, maxlen, &sz);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %s %u", lc->origin->name, l2arc_cache_name(lc),
		       lc->block_sectors);
		if (lc->table.features)
			DMEMIT(" %s", lc->table.features);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",origin_device=%s,cache_device=%s,block_size=%u,arc_max=%llu;",
		       lc->origin->name, l2arc_cache_name(lc),
		       lc->block_sectors,
		       l2arc_arc_max_blocks(lc) <<
		       (lc->block_shift + SECTOR_SHIFT));
		break;
	}
}

/* "<tunable> <value>" or "<tunable> default": a device's own value. */
static int l2arc_message_tunable(struct l2arc_c *lc, const char *name,
				 const char *value)
{
	int id = l2arc_dev_param_lookup(name);
	unsigned int i;
	u64 v;

	if (id < 0)
		return -ENOENT;
	i = id - L2ARC_P_DEV_FIRST;
	if (!strcmp(value, "default")) {
		clear_bit(i, &lc->tun.set);
		return 0;
	}
	if (l2arc_param_parse(id, value, &v)) {
		DMERR_LIMIT("%s: invalid value for %s: %s", lc->name, name,
			    value);
		return -EINVAL;
	}
	WRITE_ONCE(lc->tun.val[i], v);
	set_bit(i, &lc->tun.set);
	return 0;
}

/* verify walks at most this many headers and slots (one lock hold). */
#define L2ARC_VERIFY_MAX	BIT(22)

/* Report one disagreement found by verify. */
static void l2arc_verify_bad(struct l2arc_c *lc, unsigned int *bad,
			     const char *what, u64 counted, u64 counter)
{
	if ((*bad)++ < 8)
		DMERR("%s: verify: %s: counted %llu, counter says %llu",
		      lc->name, what, counted, counter);
}

/* Check one header's fields against its list; arc.lock held. */
static void l2arc_verify_hdr(struct l2arc_c *lc, struct arc_hdr *hdr,
			     enum arc_list_id id, u64 *l2, u64 *cls,
			     unsigned int *bad)
{
	bool resident = id == ARC_T1 || id == ARC_T2;

	l2arc_assert_locked(lc);
	if (hdr->state - ARC_MRU != id)
		l2arc_verify_bad(lc, bad, "header state", hdr->state, id);
	if (resident != !!hdr->data)
		l2arc_verify_bad(lc, bad, "data on a resident header (only)",
				 !!hdr->data, resident);
	if (!resident && (hdr->flags & ARC_F_IO_IN_PROGRESS))
		l2arc_verify_bad(lc, bad, "fill on a non-resident header", 1, 0);
	if (id == ARC_LIST_L2ONLY &&
	    !(hdr->flags & (ARC_F_L2 | L2ARC_F_L2_WRITING)))
		l2arc_verify_bad(lc, bad, "L2-only header without L2 copy", 0, 1);
	if (!(hdr->flags & ARC_F_L2))
		return;
	(*l2)++;
	cls[l2arc_class(hdr)]++;
	if (hdr->l2_slot >= lc->l2.nr_slots ||
	    l2arc_slot_hdr(lc, hdr->l2_slot) != hdr)
		l2arc_verify_bad(lc, bad, "L2 copy not in the slot table",
				 hdr->l2_slot, lc->l2.nr_slots);
}

/*
 * Check one indexed slot: the index finds it by its block, and no header
 * of the directory has that block; arc.lock held.
 */
static void l2arc_verify_indexed(struct l2arc_c *lc, u64 s, u64 *cls,
				 unsigned int *bad)
{
	struct l2arc_slot *sl = l2arc_slot(&lc->l2.ix, s);
	u64 b = l2arc_slot_oblock(sl);

	l2arc_assert_locked(lc);
	if (l2arc_index_find(&lc->l2.ix, b) != s)
		l2arc_verify_bad(lc, bad, "indexed slot found by its block",
				 l2arc_index_find(&lc->l2.ix, b), s);
	if (arc_lookup(lc->arc, l2arc_key(lc, b)))
		l2arc_verify_bad(lc, bad, "indexed block with a header", 1, 0);
	cls[l2arc_slot_class(sl->word)]++;
}

/*
 * "verify": count the directory's lists, the L2 copies, the slot table
 * and the index, and compare them with the counters behind arcstats and
 * status.  Holds
 * arc.lock for the whole walk, so refused above L2ARC_VERIFY_MAX entries.
 * Return: 1 with "<counts>" in @result, -EIO after logging each
 * disagreement (at most 8), -E2BIG for a device too large to walk.
 */
static int l2arc_verify(struct l2arc_c *lc, char *result, unsigned int maxlen)
{
	u64 n[ARC_NR_LISTS] = {}, cls[L2ARC_NR_CLASSES] = {}, l2 = 0, map = 0;
	u64 indexed = 0;
	struct arc *arc = lc->arc;
	unsigned int sz = 0, bad = 0, id, i;
	struct arc_hdr *hdr;
	u64 s;

	if ((u64)arc_nr_hashed(arc) + lc->l2.nr_slots > L2ARC_VERIFY_MAX) {
		DMERR_LIMIT("%s: verify: more than %lu headers and slots",
			    lc->name, L2ARC_VERIFY_MAX);
		return -E2BIG;
	}
	l2arc_lock(lc);
	for (id = ARC_T1; id <= ARC_LIST_L2ONLY; id++) {
		list_for_each_entry(hdr, &arc->lists[id], list) {
			n[id]++;
			l2arc_verify_hdr(lc, hdr, id, &l2, cls, &bad);
		}
		if (n[id] != arc_list_size(arc, id))
			l2arc_verify_bad(lc, &bad, "list length", n[id],
					 arc_list_size(arc, id));
	}
	for (s = 0; s < lc->l2.nr_slots; s++) {
		if (l2arc_slot(&lc->l2.ix, s)->word & L2ARC_SLOT_INDEXED) {
			indexed++;
			map++;
			l2arc_verify_indexed(lc, s, cls, &bad);
			continue;
		}
		hdr = l2arc_slot_hdr(lc, s);
		if (hdr && (hdr->flags & ARC_F_L2))
			map++;
	}
	if (indexed != lc->l2.ix.nr_indexed)
		l2arc_verify_bad(lc, &bad, "indexed slots", indexed,
				 lc->l2.ix.nr_indexed);
	l2 += indexed;
	if (n[ARC_T1] + n[ARC_T2] + n[ARC_B1] + n[ARC_B2] +
	    n[ARC_LIST_L2ONLY] != arc_nr_hashed(arc))
		l2arc_verify_bad(lc, &bad, "headers hashed",
				 n[ARC_T1] + n[ARC_T2] + n[ARC_B1] + n[ARC_B2] +
				 n[ARC_LIST_L2ONLY], arc_nr_hashed(arc));
	if (l2 != lc->l2.blocks)
		l2arc_verify_bad(lc, &bad, "headers and indexed slots with an L2 copy", l2,
				 lc->l2.blocks);
	if (map != lc->l2.blocks)
		l2arc_verify_bad(lc, &bad, "slots holding a copy", map,
				 lc->l2.blocks);
	for (i = 0; i < L2ARC_NR_CLASSES; i++)
		if (cls[i] != lc->l2.class_blocks[i])
			l2arc_verify_bad(lc, &bad, "L2 copies of a class",
					 cls[i], lc->l2.class_blocks[i]);
	l2arc_unlock(lc);

	if (bad)
		return -EIO;
	DMEMIT("t1 %llu t2 %llu b1 %llu b2 %llu l2only %llu l2 %llu indexed %llu",
	       n[ARC_T1], n[ARC_T2], n[ARC_B1], n[ARC_B2], n[ARC_LIST_L2ONLY],
	       l2, indexed);
	return 1;
}

/*
 * Messages:
 *   verify                     recount the directory and the slot table and
 *                              compare with the counters (prints the
 *                              counts; fails with EIO on a disagreement)
 *   clear_stats                zero the counters (not the cache), and the
 *                              error count towards l2arc_max_errors, and
 *                              the what-if's counters
 *   whatif_reset               zero the what-if's counters only
 *   l2arc_feed                 run one feed now; return when it is written
 *   <tunable> <value|default>  set or drop this device's own value
 */
static int l2arc_message(struct dm_target *ti, unsigned int argc,
			 char **argv, char *result, unsigned int maxlen)
{
	struct l2arc_c *lc = ti->private;
	int r;

	if (argc == 1 && !strcmp(argv[0], "clear_stats")) {
		l2arc_lock(lc);
		l2arc_stat_clear(lc);
		atomic64_set(&lc->iop.runs_deferred, 0);
		lc->kstat.deleted_base = arc_evicted(lc->arc);
		lc->l2.errors = 0;	/* counts towards l2arc_max_errors anew */
		l2arc_unlock(lc);
		if (lc->whatif)
			l2arc_whatif_reset(lc->whatif);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "whatif_reset")) {
		if (!lc->whatif) {
			DMERR_LIMIT("%s: whatif_reset: whatif is off", lc->name);
			return -EOPNOTSUPP;
		}
		l2arc_whatif_reset(lc->whatif);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "verify"))
		return l2arc_verify(lc, result, maxlen);
	if (argc == 1 && !strcmp(argv[0], "l2arc_feed")) {
		if (!lc->cache) {
			DMERR_LIMIT("%s: l2arc_feed: no cache device", lc->name);
			return -EINVAL;
		}
		r = l2arc_feed_now(lc);
		if (r)
			DMERR_LIMIT("%s: l2arc_feed: device is suspended",
				    lc->name);
		return r;
	}
	if (argc == 2) {
		r = l2arc_message_tunable(lc, argv[0], argv[1]);
		if (r != -ENOENT)
			return r;
	}
	DMERR_LIMIT("%s: unrecognised message %s", lc->name,
		    argc ? argv[0] : "(none)");
	return -EINVAL;
}

/*
 * Only the origin: it holds the truth, so its limits (and flush, FUA and
 * discard support) are the device's.  The cache device is read and written
 * by the target alone, in whole blocks.
 */
static int l2arc_iterate_devices(struct dm_target *ti,
				 iterate_devices_callout_fn fn, void *data)
{
	struct l2arc_c *lc = ti->private;

	return fn(ti, lc->origin, 0, ti->len, data);
}

/*
 * Prefer I/O in whole blocks: the ARC caches nothing smaller (io_min).
 * io_opt stays the origin's, rounded up to whole blocks when the origin
 * has one.  It is not set to one block: LIO reports io_opt to iSCSI
 * initiators as the OPTIMAL TRANSFER LENGTH, and Linux's sd then caps
 * every request there (sd_revalidate_disk), so an io_opt of 4 KiB cut a
 * 1 MiB read over iSCSI into 256 commands (make bench, workload 8).
 */
static void l2arc_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct l2arc_c *lc = ti->private;
	unsigned int block_bytes = l2arc_block_bytes(lc);

	if (limits->io_min < block_bytes)
		limits->io_min = block_bytes;
	if (limits->io_opt % block_bytes)
		limits->io_opt = roundup(limits->io_opt, block_bytes);
}

static struct target_type l2arc_target = {
	.name = "l2arc",
	.version = {L2ARC_VERSION_MAJOR, L2ARC_VERSION_MINOR,
		    L2ARC_VERSION_PATCH},
	.module = THIS_MODULE,
	.ctr = l2arc_ctr,
	.dtr = l2arc_dtr,
	.map = l2arc_map,
	.end_io = l2arc_end_io,
	.presuspend = l2arc_presuspend,
	.postsuspend = l2arc_postsuspend,
	.preresume = l2arc_preresume,
	.resume = l2arc_resume,
	.status = l2arc_status,
	.message = l2arc_message,
	.iterate_devices = l2arc_iterate_devices,
	.io_hints = l2arc_io_hints,
};

static int __init dm_l2arc_init(void)
{
	int r;

	r = arc_module_init();
	if (r)
		return r;
	r = l2arc_stats_init();
	if (r)
		goto bad_stats;
	r = dm_register_target(&l2arc_target);
	if (r) {
		DMERR("register failed %d", r);
		goto bad_register;
	}
	r = l2arc_pool_module_init();
	if (r) {
		DMERR("register of l2arc-pool failed %d", r);
		dm_unregister_target(&l2arc_target);
		goto bad_register;
	}
	return 0;

bad_register:
	l2arc_stats_exit();
bad_stats:
	arc_module_exit();
	return r;
}

static void __exit dm_l2arc_exit(void)
{
	l2arc_pool_module_exit();
	dm_unregister_target(&l2arc_target);
	l2arc_persist_module_exit();
	l2arc_stats_exit();
	arc_module_exit();
}

module_init(dm_l2arc_init);
module_exit(dm_l2arc_exit);

MODULE_DESCRIPTION(DM_NAME " l2arc target: ZFS-style ARC and L2ARC cache");
MODULE_AUTHOR("The dm-l2arc developers");
MODULE_LICENSE("GPL");

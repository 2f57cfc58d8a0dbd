// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the pool -- one ARC for the origins of several l2arc tables.
 *
 * ZFS keeps one ARC for the machine: every dataset draws on one arc_max,
 * and the hot one takes what the idle ones do not use.  A pool is that ARC
 * for several origins, in the device-mapper idiom of dm-thin's thin-pool
 * (drivers/md/dm-thin.c): an "l2arc-pool" table owns the shared state,
 *
 *   l2arc-pool <cache_dev|-> <block_size> [<#features> arc_max <bytes>]
 *
 * and each origin is an l2arc table that names the pool's mapped device
 * where a device of its own names its cache device:
 *
 *   l2arc <origin_dev> /dev/mapper/<pool> <block_size> [<#features> ...]
 *
 * l2arc_pool_attach() finds the pool as dm-thin finds its pool: by the
 * mapped device (dm_get_md()) in a module-wide list.  The pool object
 * outlives a reload of the pool's table (the new table binds the same
 * object, whose ARC stays warm) and lives while any table of the pool or
 * any member holds it; a member holds the pool's mapped device open, so
 * the pool cannot be removed under it (EBUSY).  The pool's own mapped
 * device takes no I/O: every bio to it fails (EIO).
 *
 * One ARC: T1, T2, B1, B2 and p are the pool's, as in the paper, and every
 * member's blocks compete in them; a member's keys carry its id (1..1024)
 * above the block number (l2arc_key()), so no two members share a key.
 * The directory's lock is every member's device lock.  A member's reads
 * that hit take no lock, as on a device of its own (io.c); a miss of one
 * member and a miss of another serialize on the pool's lock, as two
 * misses of one device do.  Each member keeps its own counters, read-ahead
 * streams, writes in flight and workqueue.  A member's id is free again
 * once its detach has dropped every header of its keys (target.c: the
 * walk of l2arc_forget_all(), O(the pool's headers)).
 *
 * A member's arc_min is its floor: eviction passes over its blocks while
 * it has no more than that many (arc_ops.evict_ok, io.c), and the floors
 * of one pool sum to at most half of its arc_max.  A member's arc_max is
 * its ceiling: the directory counts each member's resident headers (its
 * owners, arc_owners_init(), an owner being a key's id) and a member at
 * its ceiling that misses evicts one of its own blocks, even while the
 * pool has room (arc_owner_set_max()).
 *
 * Not yet: a pool's cache device (the L2ARC shared by the members); the
 * ctr refuses one.
 *
 * Locking: l2arc_pools_mutex protects the list of pools and each pool's
 * members, ids and references; it nests outside the pool's arc.lock.
 */
#define DM_MSG_PREFIX "l2arc-pool"

#include <linux/device-mapper.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "dm-l2arc.h"

static LIST_HEAD(l2arc_pools);
/* the list of pools, their members, ids, references (pool.h) */
DEFINE_MUTEX(l2arc_pools_mutex);

/**
 * struct l2arc_pool_c - one table of the l2arc-pool target
 * @pool: the pool it binds (a reference)
 * @table: the parsed table line (@table.features for status TABLE)
 * @c_max: the table's arc_max, blocks, given to the pool at resume
 */
struct l2arc_pool_c {
	struct l2arc_pool *pool;
	struct l2arc_table table;
	u64 c_max;
};

/* The pool of mapped device @md, or NULL; l2arc_pools_mutex held. */
static struct l2arc_pool *l2arc_pool_find(struct mapped_device *md)
{
	struct l2arc_pool *pool;

	lockdep_assert_held(&l2arc_pools_mutex);
	list_for_each_entry(pool, &l2arc_pools, node)
		if (pool->md == md)
			return pool;
	return NULL;
}

/*
 * Drop a reference; l2arc_pools_mutex held.  The last one takes the pool
 * off the list and returns it, for l2arc_pool_free() once the mutex is
 * let go (its /proc files' readers take the mutex); else NULL.
 */
static struct l2arc_pool *l2arc_pool_put(struct l2arc_pool *pool)
{
	lockdep_assert_held(&l2arc_pools_mutex);
	if (--pool->ref)
		return NULL;
	list_del(&pool->node);
	return pool;
}

/* Free a pool that l2arc_pool_put() returned (NULL: nothing). */
static void l2arc_pool_free(struct l2arc_pool *pool)
{
	if (!pool)
		return;
	l2arc_stats_pool_unregister(pool);	/* waits for its readers */
	l2arc_shrinker_unregister(&pool->shrinker);
	arc_exit(&pool->arc);	/* no member: no header is left */
	ida_destroy(&pool->ids);
	kfree(pool);
}

static u64 l2arc_pool_resident(struct l2arc_pool *pool)
{
	return arc_list_size(&pool->arc, ARC_T1) +
	       arc_list_size(&pool->arc, ARC_T2);
}

/*
 * Take c down to @target blocks (not below c_min), L2ARC_LOCK_BATCH
 * blocks of c per hold of the lock.  Returns the resident blocks evicted.
 */
static u64 l2arc_pool_set_c(struct l2arc_pool *pool, u64 target)
{
	struct arc *arc = &pool->arc;
	u64 before, c, blocks = 0;

	target = max(target, pool->c_min);
	spin_lock_bh(&arc->lock);
	l2arc_hitlog_apply_pool(pool);	/* evict in the order of the hits */
	while (arc_c(arc) > target) {
		c = arc_c(arc);
		before = l2arc_pool_resident(pool);
		arc_set_c(arc, c - min_t(u64, c - target, L2ARC_LOCK_BATCH));
		blocks += before - l2arc_pool_resident(pool);
		if (arc_c(arc) > target) {
			spin_unlock_bh(&arc->lock);
			cond_resched();
			spin_lock_bh(&arc->lock);
		}
	}
	WRITE_ONCE(pool->last_shrink, jiffies);
	spin_unlock_bh(&arc->lock);
	return blocks;
}

static unsigned long l2arc_pool_shrink_count(struct shrinker *s,
					     struct shrink_control *sc)
{
	struct l2arc_pool *pool = l2arc_shrinker_private(s);
	u64 resident = l2arc_pool_resident(pool);

	if (resident <= pool->c_min)
		return 0;
	return (resident - pool->c_min) * pool->block_pages;
}

/*
 * c shrinks by the blocks asked for, never below c_min; the evicted
 * buffers' pages go to their members' page pools, which the members'
 * shrinkers empty.  Returns the pages of the blocks evicted.
 */
static unsigned long l2arc_pool_shrink_scan(struct shrinker *s,
					    struct shrink_control *sc)
{
	struct l2arc_pool *pool = l2arc_shrinker_private(s);
	u64 want = max_t(u64, 1, sc->nr_to_scan / pool->block_pages);
	u64 c = min(arc_c(&pool->arc), l2arc_pool_resident(pool));
	u64 blocks;

	blocks = l2arc_pool_set_c(pool, c > want ? c - want : 0);
	return blocks ? blocks * pool->block_pages : SHRINK_STOP;
}

/* The pool's block size, @sectors, and what follows from it. */
static void l2arc_pool_set_block(struct l2arc_pool *pool, u32 sectors)
{
	pool->block_sectors = sectors;
	pool->block_shift = ilog2(sectors);
	pool->block_pages = (sectors << SECTOR_SHIFT) >> PAGE_SHIFT;
}

/* c_max from the table @c_max, c_min from the module's arc_min. */
static void l2arc_pool_set_size(struct l2arc_pool *pool, u64 c_max)
{
	pool->c_max = c_max;
	pool->c_min = clamp_t(u64, l2arc_param(L2ARC_P_ARC_MIN) >>
			      (pool->block_shift + SECTOR_SHIFT),
			      L2ARC_ARC_MIN_BLOCKS, c_max);
}

/* A new pool for the table @pc of mapped device @md; mutex held. */
static struct l2arc_pool *l2arc_pool_new(struct l2arc_pool_c *pc,
					 struct mapped_device *md,
					 char **error)
{
	struct l2arc_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);

	if (!pool) {
		*error = "Cannot allocate the pool";
		return NULL;
	}
	pool->md = md;
	INIT_LIST_HEAD(&pool->members);
	ida_init(&pool->ids);
	l2arc_pool_set_block(pool, pc->table.block_sectors);
	l2arc_pool_set_size(pool, pc->c_max);
	pool->last_shrink = jiffies;
	strscpy(pool->name, dm_disk(md)->disk_name, sizeof(pool->name));
	pool->kstat.crtime = ktime_get_ns();
	INIT_LIST_HEAD(&pool->kstat.node);
	if (arc_init(&pool->arc, pool->c_max, &l2arc_pool_arc_ops, pool)) {
		*error = "Cannot set up the ARC directory";
		goto bad;
	}
	/* an owner per id, 0 unused (l2arc_key()) */
	if (arc_owners_init(&pool->arc, L2ARC_KEY_BLOCK_BITS,
			    L2ARC_POOL_MAX_ORIGINS + 1)) {
		*error = "Cannot set up the ARC directory";
		arc_exit(&pool->arc);
		goto bad;
	}
	if (l2arc_shrinker_register(&pool->shrinker, l2arc_pool_shrink_count,
				    l2arc_pool_shrink_scan, pool, pool->name)) {
		*error = "Cannot register shrinker";
		arc_exit(&pool->arc);
		goto bad;
	}
	pool->ref = 1;
	list_add(&pool->node, &l2arc_pools);
	return pool;
bad:
	ida_destroy(&pool->ids);
	kfree(pool);
	return NULL;
}

/*
 * Bind the table @pc to the pool of its mapped device, made at the first
 * table; mutex held.  A reload may change the block size only while the
 * pool has no member, and arc_max only to one whose half still holds the
 * members' floors.
 */
static int l2arc_pool_bind(struct l2arc_pool_c *pc, struct dm_target *ti)
{
	struct mapped_device *md = dm_table_get_md(ti->table);
	struct l2arc_pool *pool;

	lockdep_assert_held(&l2arc_pools_mutex);
	pool = l2arc_pool_find(md);
	if (!pool) {
		pc->pool = l2arc_pool_new(pc, md, &ti->error);
		return pc->pool ? 0 : -ENOMEM;
	}
	if (pool->block_sectors != pc->table.block_sectors) {
		if (pool->nr_members) {
			ti->error = "Block size differs from the pool's members'";
			return -EINVAL;
		}
		l2arc_pool_set_block(pool, pc->table.block_sectors);
	}
	if (pool->floor_sum > pc->c_max / 2) {
		ti->error = "The members' arc_min exceed half this arc_max";
		return -EINVAL;
	}
	pool->ref++;
	pc->pool = pool;
	return 0;
}

static void l2arc_pool_dtr(struct dm_target *ti)
{
	struct l2arc_pool_c *pc = ti->private;
	struct l2arc_pool *gone = NULL;

	mutex_lock(&l2arc_pools_mutex);
	if (pc->pool)
		gone = l2arc_pool_put(pc->pool);
	mutex_unlock(&l2arc_pools_mutex);
	l2arc_pool_free(gone);
	l2arc_table_free(&pc->table);
	kfree(pc);
}

/*
 * Construct an l2arc-pool target.  Every failure sets a specific
 * ti->error and changes nothing.
 */
static int l2arc_pool_ctr(struct dm_target *ti, unsigned int argc,
			  char **argv)
{
	struct l2arc_pool_c *pc = kzalloc(sizeof(*pc), GFP_KERNEL);
	unsigned int shift;
	u64 bytes;
	int r;

	if (!pc) {
		ti->error = "Cannot allocate l2arc-pool context";
		return -ENOMEM;
	}
	ti->private = pc;
	r = l2arc_parse_pool_table(&pc->table, argc, argv, &ti->error);
	if (r)
		goto bad;
	if (pc->table.cache_path) {
		ti->error = "A pool's cache device is not supported yet: give -";
		r = -EINVAL;
		goto bad;
	}
	shift = ilog2(pc->table.block_sectors) + SECTOR_SHIFT;
	bytes = pc->table.arc_max_set ? pc->table.arc_max :
					l2arc_param(L2ARC_P_ARC_MAX);
	pc->c_max = clamp_t(u64, bytes >> shift, L2ARC_ARC_MIN_BLOCKS,
			    ARC_C_MAX);
	mutex_lock(&l2arc_pools_mutex);
	r = l2arc_pool_bind(pc, ti);
	mutex_unlock(&l2arc_pools_mutex);
	if (r)
		goto bad;
	l2arc_stats_pool_register(pc->pool);	/* idempotent */
	ti->num_flush_bios = 1;
	return 0;
bad:
	l2arc_pool_dtr(ti);
	return r;
}

/* The pool is a control object: its own device takes no I/O. */
static int l2arc_pool_map(struct dm_target *ti, struct bio *bio)
{
	if (op_is_flush(bio->bi_opf) && !bio_sectors(bio)) {
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	return DM_MAPIO_KILL;
}

/*
 * The live table's arc_max becomes the pool's: its members' too, and c
 * comes down to it at once (it grows back to a larger one a block a miss).
 */
static void l2arc_pool_resume(struct dm_target *ti)
{
	struct l2arc_pool_c *pc = ti->private;
	struct l2arc_pool *pool = pc->pool;
	struct l2arc_c *lc;

	mutex_lock(&l2arc_pools_mutex);
	spin_lock_bh(&pool->arc.lock);
	l2arc_pool_set_size(pool, pc->c_max);
	list_for_each_entry(lc, &pool->members, pool_node)
		lc->c_max = pool->c_max;	/* c_min: its floor stays */
	spin_unlock_bh(&pool->arc.lock);
	mutex_unlock(&l2arc_pools_mutex);
	if (arc_c(&pool->arc) > pc->c_max)
		l2arc_pool_set_c(pool, pc->c_max);
}

/*
 * INFO: <block_size> <resident>/<c_max> <p> <c> <t1> <t2> <b1> <b2>
 *	 <members>; blocks (see Documentation/dm-l2arc.rst, "Pools").
 * TABLE: - <block_size> [<features>]
 */
static void l2arc_pool_status(struct dm_target *ti, status_type_t type,
			      unsigned int status_flags, char *result,
			      unsigned int maxlen)
{
	struct l2arc_pool_c *pc = ti->private;
	struct l2arc_pool *pool = pc->pool;
	struct arc *arc = &pool->arc;
	u64 t1, t2, b1, b2, p, c;
	unsigned int sz = 0, nr;

	switch (type) {
	case STATUSTYPE_INFO:
		mutex_lock(&l2arc_pools_mutex);
		nr = pool->nr_members;
		spin_lock_bh(&arc->lock);
		t1 = arc_list_size(arc, ARC_T1);
		t2 = arc_list_size(arc, ARC_T2);
		b1 = arc_list_size(arc, ARC_B1);
		b2 = arc_list_size(arc, ARC_B2);
		p = arc_p_blocks(arc);
		c = arc_c(arc);
		spin_unlock_bh(&arc->lock);
		mutex_unlock(&l2arc_pools_mutex);
		DMEMIT("%u %llu/%llu %llu %llu %llu %llu %llu %llu %u",
		       pool->block_sectors, t1 + t2, pool->c_max, p, c, t1, t2,
		       b1, b2, nr);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("- %u", pc->table.block_sectors);
		if (pc->table.features)
			DMEMIT(" %s", pc->table.features);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",cache_device=-,block_size=%u,arc_max=%llu;",
		       pc->table.block_sectors,
		       pc->c_max << (ilog2(pc->table.block_sectors) +
				     SECTOR_SHIFT));
		break;
	}
}

/*
 * "origins": one line per member, in the order they came, as the lines of
 * /proc/dm-l2arc/<pool>/origins (l2arc_stats_origin_line()).
 */
static int l2arc_pool_origins(struct l2arc_pool *pool, char *result,
			      unsigned int maxlen)
{
	unsigned int sz = 0;
	struct l2arc_c *lc;

	mutex_lock(&l2arc_pools_mutex);
	list_for_each_entry(lc, &pool->members, pool_node)
		sz += l2arc_stats_origin_line(lc, result + sz, maxlen - sz);
	mutex_unlock(&l2arc_pools_mutex);
	return 1;	/* result holds the reply */
}

static int l2arc_pool_message(struct dm_target *ti, unsigned int argc,
			      char **argv, char *result, unsigned int maxlen)
{
	struct l2arc_pool_c *pc = ti->private;

	if (argc == 1 && !strcmp(argv[0], "origins"))
		return l2arc_pool_origins(pc->pool, result, maxlen);
	DMERR_LIMIT("%s: unrecognised message %s", pc->pool->name,
		    argc ? argv[0] : "(none)");
	return -EINVAL;
}

static int l2arc_pool_iterate_devices(struct dm_target *ti,
				      iterate_devices_callout_fn fn,
				      void *data)
{
	return 0;	/* no device of its own yet */
}

static struct target_type l2arc_pool_target = {
	.name = "l2arc-pool",
	.version = {0, 1, 0},
	.module = THIS_MODULE,
	.ctr = l2arc_pool_ctr,
	.dtr = l2arc_pool_dtr,
	.map = l2arc_pool_map,
	.resume = l2arc_pool_resume,
	.status = l2arc_pool_status,
	.message = l2arc_pool_message,
	.iterate_devices = l2arc_pool_iterate_devices,
};

/*
 * Is @path a pool's mapped device?  Returns it opened in *@dev, or NULL
 * with *@dev unset; mutex held.
 */
static struct l2arc_pool *l2arc_pool_open(struct dm_target *ti,
					  const char *path,
					  struct dm_dev **dev)
{
	struct mapped_device *md;
	struct l2arc_pool *pool;

	lockdep_assert_held(&l2arc_pools_mutex);
	if (dm_get_device(ti, path, dm_table_get_mode(ti->table), dev))
		return NULL;	/* the ctr opens it again and says why */
	md = dm_get_md((*dev)->bdev->bd_dev);
	pool = md ? l2arc_pool_find(md) : NULL;
	if (md)
		dm_put(md);
	if (!pool)
		dm_put_device(ti, *dev);
	return pool;
}

/*
 * The floor, blocks, of the member that @ti's table would replace: the
 * live table of the same mapped device, whose dtr at the resume gives its
 * floor back; 0 for a new member.  Mutex held.
 */
static u64 l2arc_pool_floor_of(struct l2arc_pool *pool, struct dm_target *ti)
{
	struct mapped_device *md = dm_table_get_md(ti->table);
	struct l2arc_c *m;

	lockdep_assert_held(&l2arc_pools_mutex);
	list_for_each_entry(m, &pool->members, pool_node)
		if (dm_table_get_md(m->ti->table) == md)
			return m->c_min;
	return 0;
}

/**
 * l2arc_pool_attach() - make a new l2arc table a member of the pool its
 * table line names where a cache device would be
 * @lc: the device, its table parsed and its block size set
 * @ti: its target
 * @error: set to a static message on failure (becomes ti->error)
 *
 * On success the device shares the pool's ARC (@lc->arc), has an id of
 * its own in its keys (@lc->key_base), the pool's c_max, its floor in
 * @lc->c_min (its table's arc_min, 0 without: see io.c's evict_ok), its
 * ceiling in @lc->ceiling (its table's arc_max, 0 without), and holds
 * the pool's mapped device open (@lc->pool_dev) and a reference to the
 * pool, until l2arc_pool_detach().
 *
 * Context: process context (the ctr), may sleep; takes l2arc_pools_mutex.
 * Return: 1 when attached, 0 when the device named is not a pool (or
 * cannot be opened: the ctr opens it as a cache device and says why),
 * -EINVAL for a block size that differs from the pool's, an origin
 * larger than 2^48 blocks or an arc_min that would take the members'
 * floors past half the pool's arc_max (less the floor of the live table
 * of the same mapped device, which a reload replaces), -EBUSY when the
 * pool has 1024 members.
 */
int l2arc_pool_attach(struct l2arc_c *lc, struct dm_target *ti, char **error)
{
	struct l2arc_pool *pool;
	struct dm_dev *dev;
	int id, r = -EINVAL;
	u64 floor;

	mutex_lock(&l2arc_pools_mutex);
	pool = l2arc_pool_open(ti, lc->table.cache_path, &dev);
	if (!pool) {
		mutex_unlock(&l2arc_pools_mutex);
		return 0;
	}
	if (pool->block_sectors != lc->block_sectors) {
		*error = "Block size differs from the pool's";
		goto bad;
	}
	if ((ti->len >> lc->block_shift) > BIT_ULL(L2ARC_KEY_BLOCK_BITS)) {
		*error = "Origin is larger than a pool's 2^48 blocks";
		goto bad;
	}
	floor = lc->table.arc_min_set ?
		lc->table.arc_min >> (lc->block_shift + SECTOR_SHIFT) : 0;
	if (floor && pool->floor_sum - l2arc_pool_floor_of(pool, ti) + floor >
		     pool->c_max / 2) {
		*error = "The members' arc_min would exceed half the pool's arc_max";
		goto bad;
	}
	id = ida_alloc_range(&pool->ids, 1, L2ARC_POOL_MAX_ORIGINS,
			     GFP_KERNEL);
	if (id < 0) {
		*error = id == -ENOSPC ? "Pool has 1024 members already" :
					 "Cannot allocate an origin id";
		r = id == -ENOSPC ? -EBUSY : id;
		goto bad;
	}
	lc->pool = pool;
	lc->pool_dev = dev;
	lc->arc = &pool->arc;
	lc->key_base = (u64)id << L2ARC_KEY_BLOCK_BITS;
	lc->c_max = pool->c_max;
	lc->c_min = floor;
	lc->ceiling = lc->table.arc_max_set ?
		clamp_t(u64, lc->table.arc_max >> (lc->block_shift + SECTOR_SHIFT),
			L2ARC_ARC_MIN_BLOCKS, ARC_C_MAX) : 0;
	list_add_tail(&lc->pool_node, &pool->members);
	spin_lock_bh(&pool->arc.lock);
	pool->by_id[id] = lc;
	pool->floor_sum += floor;
	arc_owner_set_max(&pool->arc, id, lc->ceiling);
	spin_unlock_bh(&pool->arc.lock);
	pool->nr_members++;
	pool->ref++;
	mutex_unlock(&l2arc_pools_mutex);
	return 1;
bad:
	dm_put_device(ti, dev);
	mutex_unlock(&l2arc_pools_mutex);
	return r;
}

/**
 * l2arc_pool_detach() - a member leaves its pool, in its dtr
 * @lc: the device; every header of its keys is out of the pool's ARC
 *	already (l2arc_forget_all()), so its id may be reused at once
 *
 * Context: process context, may sleep; takes l2arc_pools_mutex.
 */
void l2arc_pool_detach(struct l2arc_c *lc)
{
	struct l2arc_pool *pool = lc->pool, *gone;
	unsigned int id = l2arc_origin_id(lc), i;

	mutex_lock(&l2arc_pools_mutex);
	list_del(&lc->pool_node);
	for (i = 0; i < L2ARC_STAT_NR; i++)	/* the pool's rows keep them */
		pool->stat_gone[i] += l2arc_stat_read(lc, i);
	spin_lock_bh(&pool->arc.lock);
	pool->by_id[id] = NULL;
	pool->floor_sum -= lc->c_min;
	arc_owner_set_max(&pool->arc, id, 0);
	clear_bit(id, pool->hitlog_pending);
	spin_unlock_bh(&pool->arc.lock);
	pool->nr_members--;
	ida_free(&pool->ids, id);
	dm_put_device(lc->ti, lc->pool_dev);
	lc->pool_dev = NULL;
	lc->pool = NULL;
	lc->arc = &lc->arc_own;
	gone = l2arc_pool_put(pool);
	mutex_unlock(&l2arc_pools_mutex);
	l2arc_pool_free(gone);
}

/**
 * l2arc_pool_module_init() - register the l2arc-pool target
 *
 * Return: 0 or dm_register_target()'s error.
 */
int l2arc_pool_module_init(void)
{
	return dm_register_target(&l2arc_pool_target);
}

/**
 * l2arc_pool_module_exit() - unregister the l2arc-pool target
 */
void l2arc_pool_module_exit(void)
{
	dm_unregister_target(&l2arc_pool_target);
}

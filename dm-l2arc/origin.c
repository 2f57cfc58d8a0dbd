// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the origin's other writers.
 *
 * A cache is exact only while every write to its origin comes through
 * it.  The block layer does not promise that to a device-mapper target:
 * device-mapper opens every device of every table under one holder
 * (_dm_claim_ptr), so any other dm device -- an LV that LVM activated on
 * the raw disk, a dmsetup create by hand -- can open and write a table's
 * origin or cache device beside it.  md and a mounted file system hold
 * their devices under holders of their own, and device-mapper's open of
 * such a device fails with -EBUSY.  What a module can see, on 6.1 and
 * 6.12 alike:
 *
 *  - bdev->bd_holders: the exclusive openers of a device; every mapped
 *    device that opened it counts once (its tables share the open), md
 *    once, each twice on a whole disk;
 *  - /sys/dev/block/<maj:min>/holders: the name of every dm or md device
 *    stacked on it (bd_link_disk_holder()), read here with iterate_dir();
 *  - the device's I/O statistics (part_stat, /sys/block/<dev>/stat): the
 *    sectors written and discarded on it, by anyone; none for a driver
 *    that keeps none (brd) or with queue/iostats 0.
 *
 * So the ctr refuses an origin or a cache device that another mapped
 * device holds, naming it (l2arc_check_holders()), and one that md or a
 * mount holds (-EBUSY from the open).  A device that takes the origin
 * after the table loaded cannot be refused: the check
 * (l2arc_watch_check()) runs every origin_check_ms (100 ms by default)
 * while the device is resumed, and once more at every suspend, with the
 * I/O drained.  It compares the sectors the origin's statistics counted
 * since the resume with those this table sent: more is a write that did
 * not come through the target, and the device drops everything it
 * cached (the ARC, the hand-off queue, the slot table) and voids its log
 * (a new guid), with one kernel log line and origin_foreign_writes in
 * arcstats.  A read that starts after that sees the origin's data; one
 * between the foreign write's completion and the check may still be
 * served the old copy: that window is at most origin_check_ms plus the
 * check's own run.  Only hiding the origin from everything else closes it
 * (Documentation/dm-l2arc.rst, "Storage stacks").
 *
 * When the origin counts: a bio-based driver before Linux 6.3
 * (device-mapper, md) adds a bio's sectors when it starts, after this
 * target's map counted it in @ours; every other driver, and every driver
 * from 6.3 on, when it completes, before the completion reaches this
 * target's end_io, which counts it in @ours there.  So in either case the
 * origin's count of this table's writes never runs ahead of the matching
 * count of ours, except for a completion caught between the two counts;
 * a surplus is looked at again 1 ms later before it is believed.
 */
#define DM_MSG_PREFIX "l2arc origin"

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/namei.h>

#include "dm-l2arc.h"

/* ---- Holders ---- */

/* Names of the holders a failing ctr gives (ti->error outlives the dtr). */
#define L2ARC_ERR_NR	16
#define L2ARC_ERR_LEN	96
static char l2arc_err_ring[L2ARC_ERR_NR][L2ARC_ERR_LEN];
static atomic_t l2arc_err_next = ATOMIC_INIT(0);

/* A buffer for one ctr error; 16 ctrs failing at once would share one. */
static char *l2arc_err_buf(void)
{
	return l2arc_err_ring[(unsigned int)atomic_inc_return(&l2arc_err_next) %
			      L2ARC_ERR_NR];
}

struct l2arc_holder_ctx {
	struct dir_context ctx;
	const char *self;
	char *name;
	size_t len;
	unsigned int n;
};

static bool l2arc_holder_actor(struct dir_context *ctx, const char *name,
			       int namlen, loff_t offset, u64 ino,
			       unsigned int type)
{
	struct l2arc_holder_ctx *h = container_of(ctx, struct l2arc_holder_ctx,
						  ctx);

	if (name[0] == '.' ||
	    (h->self && strlen(h->self) == namlen &&
	     !memcmp(name, h->self, namlen)))
		return true;
	if (!h->n++)
		snprintf(h->name, h->len, "%.*s", namlen, name);
	return true;
}

/*
 * The first holder of @dev other than @self in sysfs (its holders
 * directory), into @name; the number of them, 0 when none is listed or
 * sysfs cannot be read.
 */
static unsigned int l2arc_holder_name(dev_t dev, const char *self,
				      char *name, size_t len)
{
	struct l2arc_holder_ctx h = {
		.ctx.actor = l2arc_holder_actor,
		.self = self, .name = name, .len = len,
	};
	char path[48];
	struct file *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders",
		 MAJOR(dev), MINOR(dev));
	f = filp_open(path, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(f))
		return 0;
	iterate_dir(f, &h.ctx);
	filp_close(f, NULL);
	return h.n;
}

/*
 * What one exclusive opener adds to @bdev's bd_holders: the block layer
 * counts a claim of a whole disk twice (as the disk and as its own whole),
 * of a partition once (6.1 and 6.12, bd_finish_claiming()).
 */
static int l2arc_own_holds(struct block_device *bdev)
{
	return bdev_is_partition(bdev) ? 1 : 2;
}

/**
 * l2arc_check_holders() - refuse a device that something else holds
 * @lc: the device being constructed
 * @dev: the origin or the cache device, opened by dm_get_device(), or
 *	NULL when that open failed
 * @what: "Origin device" or "Cache device", for the error
 * @path: the device as the table gave it (for a failed open)
 * @open_error: dm_get_device()'s error when @dev is NULL
 * @error: set to the ctr's error on failure
 *
 * Another mapped device that opened @dev shows as a second exclusive
 * holder (bd_holders above what this table's mapped device adds, which
 * all its tables share, so a reload of the same device passes); md
 * or a mount makes the open fail with -EBUSY.  The error names the
 * holder from sysfs when it is listed there ("Cache device is in use by
 * dm-3").
 *
 * Context: process context (the ctr), may sleep.
 * Return: 0, -EBUSY, or @open_error.
 */
int l2arc_check_holders(struct l2arc_c *lc, struct dm_dev *dev,
			const char *what, const char *path, int open_error,
			char **error)
{
	const char *self = dm_disk(dm_table_get_md(lc->ti->table))->disk_name;
	char name[32], *buf;
	dev_t devt;

	if (dev) {
		if (READ_ONCE(dev->bdev->bd_holders) <= l2arc_own_holds(dev->bdev))
			return 0;
		devt = dev->bdev->bd_dev;
	} else if (open_error != -EBUSY || lookup_bdev(path, &devt)) {
		buf = l2arc_err_buf();
		snprintf(buf, L2ARC_ERR_LEN, "%s lookup failed", what);
		*error = buf;
		return open_error;
	}
	buf = l2arc_err_buf();
	if (l2arc_holder_name(devt, self, name, sizeof(name)))
		snprintf(buf, L2ARC_ERR_LEN, "%s is in use by %s", what, name);
	else
		snprintf(buf, L2ARC_ERR_LEN,
			 "%s is in use (mounted, or held exclusively)",
			 what);
	*error = buf;
	return -EBUSY;
}

/* Every l2arc target's devices, for the targets of one table. */
static LIST_HEAD(l2arc_users);
static DEFINE_MUTEX(l2arc_users_mutex);	/* protects l2arc_users */

/* Does @lc use @dev, as its origin or its cache device? */
static bool l2arc_uses(struct l2arc_c *lc, dev_t dev)
{
	return lc->origin->bdev->bd_dev == dev ||
	       (lc->cache && lc->cache->bdev->bd_dev == dev);
}

/**
 * l2arc_users_add() - refuse a device that another target of the same
 * table uses, then enter this target's devices
 * @lc: the device being constructed, its devices open
 * @error: set to the ctr's error on failure
 *
 * The tables of one mapped device share its holder, so bd_holders does
 * not tell two targets of one table apart: two l2arc targets on one
 * cache device would overwrite each other's slots, and two on one origin
 * would map the same sectors (each maps from the origin's start).  A
 * reload's new table may name the live table's devices: the live one is
 * suspended before the new one resumes.
 *
 * Context: process context (the ctr).
 * Return: 0 or -EBUSY.
 */
int l2arc_users_add(struct l2arc_c *lc, char **error)
{
	struct l2arc_c *u;
	int r = 0;

	mutex_lock(&l2arc_users_mutex);
	list_for_each_entry(u, &l2arc_users, watch.user) {
		if (u->ti->table != lc->ti->table)
			continue;
		if (lc->cache && l2arc_uses(u, lc->cache->bdev->bd_dev)) {
			*error = "Cache device is used by another target of this table";
			r = -EBUSY;
			break;
		}
		if (l2arc_uses(u, lc->origin->bdev->bd_dev)) {
			*error = "Origin device is used by another target of this table";
			r = -EBUSY;
			break;
		}
	}
	if (!r)
		list_add(&lc->watch.user, &l2arc_users);
	mutex_unlock(&l2arc_users_mutex);
	return r;
}

/**
 * l2arc_users_del() - take the target's devices out again, in the dtr
 * @lc: the device (l2arc_users_add() may not have entered it)
 */
void l2arc_users_del(struct l2arc_c *lc)
{
	mutex_lock(&l2arc_users_mutex);
	if (!list_empty(&lc->watch.user))
		list_del_init(&lc->watch.user);
	mutex_unlock(&l2arc_users_mutex);
}

/* ---- Writes the origin took ---- */

static u64 l2arc_watch_sum(u64 __percpu *c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(c, cpu);
	return sum;
}

/*
 * Sectors the origin counted since the base that this table did not
 * send, 0 when none; *@o and *@ours get the two counts since the base.
 */
static u64 l2arc_watch_excess(struct l2arc_c *lc, u64 *o, u64 *ours)
{
	struct l2arc_watch *w = &lc->watch;

	*o = l2arc_origin_sectors(lc->origin->bdev) - w->base_origin;
	/* the origin's count first: ours ran ahead of it (see the top) */
	smp_rmb();
	*ours = l2arc_watch_sum(w->ours) - w->base_ours;
	return *o > *ours ? *o - *ours : 0;
}

/* A new holder of the origin: said once per holder added. */
static void l2arc_watch_holders(struct l2arc_c *lc)
{
	struct block_device *bdev = lc->origin->bdev;
	int h = READ_ONCE(bdev->bd_holders);
	char name[32] = "another device";

	if (h > lc->watch.holders) {
		l2arc_holder_name(bdev->bd_dev,
				  dm_disk(dm_table_get_md(lc->ti->table))->disk_name,
				  name, sizeof(name));
		DMWARN("%s: %s now holds the origin too: its writes will drop the cache",
		       lc->name, name);
	}
	lc->watch.holders = h;
}

/**
 * l2arc_drop_cached() - drop everything a device cached of its origin:
 * the ARC, the hand-off queue, the slot table, and the log (a new guid)
 * @lc: the device
 * @live: it takes I/O (the check's work item); else it is suspended, its
 *	I/O drained (a resume, a postsuspend)
 *
 * Context: process context, may sleep; feed.mutex not held.
 */
void l2arc_drop_cached(struct l2arc_c *lc, bool live)
{
	if (live) {
		l2arc_invalidate_live(lc);
	} else {
		if (lc->cache)
			l2arc_handoff_drop(lc);
		l2arc_invalidate_all(lc);
	}
	l2arc_persist_forget(lc);
}

/* An origin that took a write that did not come through the target. */
static void l2arc_watch_drop(struct l2arc_c *lc, u64 sectors, bool live)
{
	DMWARN_LIMIT("%s: %llu sectors written to the origin by another device: cache dropped",
		     lc->name, sectors);
	l2arc_stat_inc(lc, L2ARC_STAT_ORIGIN_FOREIGN_WRITES);
	l2arc_drop_cached(lc, live);
}

/*
 * The check: a write the origin took that this table did not send drops
 * everything cached.  @live: see l2arc_watch_drop().
 */
static void l2arc_watch_check(struct l2arc_c *lc, bool live)
{
	struct l2arc_watch *w = &lc->watch;
	u64 o, ours, excess;

	l2arc_watch_holders(lc);
	excess = l2arc_watch_excess(lc, &o, &ours);
	if (excess && live) {
		/* a completion between the origin's count and ours: gone by now */
		usleep_range(1000, 2000);
		excess = l2arc_watch_excess(lc, &o, &ours);
	}
	if (!excess)
		return;
	l2arc_watch_drop(lc, excess, live);
	/* the writes seen are accounted for: count from here on */
	w->base_origin += excess;
}

static void l2arc_watch_worker(struct work_struct *work)
{
	struct l2arc_c *lc = container_of(to_delayed_work(work),
					  struct l2arc_c, watch.work);

	l2arc_watch_check(lc, true);
	if (READ_ONCE(lc->watch.active))
		queue_delayed_work(system_wq, &lc->watch.work,
				   msecs_to_jiffies(l2arc_param(L2ARC_P_ORIGIN_CHECK_MS)));
}

/**
 * l2arc_watch_setup() - set up the check's work item, with the context
 * @lc: the device
 */
void l2arc_watch_setup(struct l2arc_c *lc)
{
	INIT_LIST_HEAD(&lc->watch.user);
	INIT_DELAYED_WORK(&lc->watch.work, l2arc_watch_worker);
}

/**
 * l2arc_watch_init() - set up the check of the origin's writes, in the ctr
 * @lc: the device, its origin open (its work item set up by
 *	l2arc_watch_setup())
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int l2arc_watch_init(struct l2arc_c *lc)
{
	struct request_queue *q = bdev_get_queue(lc->origin->bdev);

	lc->watch.ours = alloc_percpu(u64);
	if (!lc->watch.ours)
		return -ENOMEM;
	lc->watch.at_start = !queue_is_mq(q) && L2ARC_BIO_ACCT_AT_START;
	return 0;
}

/**
 * l2arc_watch_exit() - free what l2arc_watch_init() allocated, in the dtr
 * @lc: the device (may be half set up), its check stopped
 */
void l2arc_watch_exit(struct l2arc_c *lc)
{
	WRITE_ONCE(lc->watch.active, false);
	cancel_delayed_work_sync(&lc->watch.work);
	free_percpu(lc->watch.ours);
	lc->watch.ours = NULL;
}

/**
 * l2arc_watch_resume() - count the origin's writes from here, and start
 * the check
 * @lc: the device, at preresume: suspended, no I/O in flight, so the
 *	origin's count and ours are taken at one point
 *
 * A write while the device was suspended is the claim's to see
 * (l2arc_persist_origin_moved()), before this.
 *
 * Context: process context.
 */
void l2arc_watch_resume(struct l2arc_c *lc)
{
	struct l2arc_watch *w = &lc->watch;
	struct block_device *bdev = lc->origin->bdev;

	w->base_origin = l2arc_origin_sectors(bdev);
	w->base_ours = l2arc_watch_sum(w->ours);
	w->holders = READ_ONCE(bdev->bd_holders);
	w->counting = true;
	/* blk-mq honours queue/iostats; a bio-based driver may count anyway */
	if (queue_is_mq(bdev_get_queue(bdev)) &&
	    !blk_queue_io_stat(bdev_get_queue(bdev)) && !w->nostats_warned) {
		w->nostats_warned = true;
		DMWARN("%s: origin has no I/O statistics: writes by other devices unseen",
		       lc->name);
	}
	WRITE_ONCE(w->active, true);
	queue_delayed_work(system_wq, &w->work,
			   msecs_to_jiffies(l2arc_param(L2ARC_P_ORIGIN_CHECK_MS)));
}

/**
 * l2arc_watch_suspend() - stop the check, and check once more
 * @lc: the device, at postsuspend: its I/O drained, its feed stopped
 *
 * Takes the origin's count for the claim (&l2arc_watch.mark) first: a
 * write after it is seen at the next resume or rebuild; one before it,
 * by this check, which drops what the device cached and voids its log
 * before the suspend writes it "clean".
 *
 * Context: process context, may sleep.
 */
void l2arc_watch_suspend(struct l2arc_c *lc)
{
	struct l2arc_watch *w = &lc->watch;

	WRITE_ONCE(w->active, false);
	cancel_delayed_work_sync(&w->work);
	w->mark = l2arc_origin_sectors(lc->origin->bdev);
	if (w->counting)
		l2arc_watch_check(lc, false);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the device-mapper target "l2arc".
 *
 * Table line (see table.c and Documentation/dm-l2arc.rst):
 *
 *   <start> <length> l2arc <origin_dev> <cache_dev|-> <block_size>
 *                          [<#features> <feature>...]
 *
 * This file holds the target's methods: ctr/dtr, map, status, message,
 * iterate_devices, io_hints and the module's registration.
 */
#include <linux/bio.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "dm-l2arc.h"

#define L2ARC_VERSION_MAJOR	0
#define L2ARC_VERSION_MINOR	1
#define L2ARC_VERSION_PATCH	0

/**
 * struct l2arc_c - one l2arc target instance
 * @ti: the dm target
 * @origin: origin device
 * @cache: cache device, or NULL when the table gave "-"
 * @table: the parsed table line (its @features string is replayed by
 *         status TABLE)
 * @block_sectors: block size in sectors (copy of @table.block_sectors)
 */
struct l2arc_c {
	struct dm_target *ti;
	struct dm_dev *origin;
	struct dm_dev *cache;
	struct l2arc_table table;
	u32 block_sectors;
};

/* ---- Constructor and destructor ---- */

/* Copes with a half-built target: every member may still be NULL. */
static void l2arc_dtr(struct dm_target *ti)
{
	struct l2arc_c *lc = ti->private;

	if (!lc)
		return;
	if (lc->cache)
		dm_put_device(ti, lc->cache);
	if (lc->origin)
		dm_put_device(ti, lc->origin);
	l2arc_table_free(&lc->table);
	kfree(lc);
	ti->private = NULL;
}

static int l2arc_get_devices(struct l2arc_c *lc, struct dm_target *ti)
{
	struct l2arc_table *t = &lc->table;
	sector_t origin_sectors;
	int r;

	r = dm_get_device(ti, t->origin_path, dm_table_get_mode(ti->table),
			  &lc->origin);
	if (r) {
		ti->error = "Origin device lookup failed";
		return r;
	}
	if (t->cache_path) {
		r = dm_get_device(ti, t->cache_path,
				  dm_table_get_mode(ti->table), &lc->cache);
		if (r) {
			ti->error = "Cache device lookup failed";
			return r;
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

	origin_sectors = bdev_nr_sectors(lc->origin->bdev);
	if (ti->len > origin_sectors) {
		ti->error = "Length exceeds the origin device";
		return -EINVAL;
	}
	if (ti->len & (t->block_sectors - 1)) {
		ti->error = "Length is not a multiple of the block size";
		return -EINVAL;
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

	lc = kzalloc(sizeof(*lc), GFP_KERNEL);
	if (!lc) {
		ti->error = "Cannot allocate l2arc context";
		return -ENOMEM;
	}
	lc->ti = ti;
	ti->private = lc;

	r = l2arc_parse_table(&lc->table, argc, argv, &ti->error);
	if (r)
		goto bad;
	lc->block_sectors = lc->table.block_sectors;

	r = l2arc_get_devices(lc, ti);
	if (r)
		goto bad;

	r = dm_set_target_max_io_len(ti, lc->block_sectors);
	if (r)
		goto bad;
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	return 0;

bad:
	l2arc_dtr(ti);
	return r;
}

/* ---- I/O ---- */

static int l2arc_map(struct dm_target *ti, struct bio *bio)
{
	struct l2arc_c *lc = ti->private;

	bio_set_dev(bio, lc->origin->bdev);
	if (bio_sectors(bio) || op_is_zone_mgmt(bio_op(bio)))
		bio->bi_iter.bi_sector = dm_target_offset(ti,
							  bio->bi_iter.bi_sector);
	return DM_MAPIO_REMAPPED;
}

/* ---- Status, messages, devices and limits ---- */

/*
 * INFO (version 1): <block_size> <cache_dev|-> <health>
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
		DMEMIT("%u %s ok", lc->block_sectors,
		       lc->cache ? lc->cache->name : "-");
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %s %u", lc->origin->name,
		       lc->cache ? lc->cache->name : "-", lc->block_sectors);
		if (lc->table.features)
			DMEMIT(" %s", lc->table.features);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",origin_device=%s,cache_device=%s,block_size=%u;",
		       lc->origin->name, lc->cache ? lc->cache->name : "-",
		       lc->block_sectors);
		break;
	}
}

static int l2arc_message(struct dm_target *ti, unsigned int argc,
			 char **argv, char *result, unsigned int maxlen)
{
	DMERR_LIMIT("unrecognised message %s", argc ? argv[0] : "(none)");
	return -EINVAL;
}

static int l2arc_iterate_devices(struct dm_target *ti,
				 iterate_devices_callout_fn fn, void *data)
{
	struct l2arc_c *lc = ti->private;
	int r;

	r = fn(ti, lc->origin, 0, ti->len, data);
	if (!r && lc->cache)
		r = fn(ti, lc->cache, 0, bdev_nr_sectors(lc->cache->bdev),
		       data);
	return r;
}

/* Prefer I/O in whole blocks: the ARC caches nothing smaller. */
static void l2arc_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct l2arc_c *lc = ti->private;
	unsigned int block_bytes = lc->block_sectors << SECTOR_SHIFT;

	if (limits->io_opt < block_bytes || limits->io_opt % block_bytes)
		limits->io_opt = block_bytes;
}

static struct target_type l2arc_target = {
	.name = "l2arc",
	.version = {L2ARC_VERSION_MAJOR, L2ARC_VERSION_MINOR,
		    L2ARC_VERSION_PATCH},
	.module = THIS_MODULE,
	.ctr = l2arc_ctr,
	.dtr = l2arc_dtr,
	.map = l2arc_map,
	.status = l2arc_status,
	.message = l2arc_message,
	.iterate_devices = l2arc_iterate_devices,
	.io_hints = l2arc_io_hints,
};

static int __init dm_l2arc_init(void)
{
	int r;

	r = dm_register_target(&l2arc_target);
	if (r)
		DMERR("register failed %d", r);
	return r;
}

static void __exit dm_l2arc_exit(void)
{
	dm_unregister_target(&l2arc_target);
}

module_init(dm_l2arc_init);
module_exit(dm_l2arc_exit);

MODULE_DESCRIPTION(DM_NAME " l2arc target: ZFS-style ARC and L2ARC cache");
MODULE_AUTHOR("The dm-l2arc developers");
MODULE_LICENSE("GPL");

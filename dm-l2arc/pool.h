/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the pool -- one ARC shared by the origins of several l2arc
 * tables (pool.c).
 *
 * Included by dm-l2arc.h before struct l2arc_c.
 */
#ifndef DM_L2ARC_POOL_H
#define DM_L2ARC_POOL_H

#include <linux/bitops.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/types.h>

#include "arc.h"
#include "compat.h"
#include "stats.h"

struct dm_target;
struct l2arc_c;
struct mapped_device;

/*
 * An ARC key is an origin's id in its pool above this many bits of block
 * number (l2arc_key()): 2^48 blocks of 4 KiB are 1 EiB.
 */
#define L2ARC_KEY_BLOCK_BITS	48

/* Origins one pool takes at once: ids 1..this (0 is a device of its own). */
#define L2ARC_POOL_MAX_ORIGINS	1024

/**
 * struct l2arc_pool - one ARC shared by several origins, as ZFS's one ARC
 * serves every dataset of a machine
 * @arc: the ARC directory (T1, T2, B1, B2 and p for every member); keys
 *	carry the member's id (l2arc_key()); @arc.lock is every member's
 *	device lock
 * @md: the pool's mapped device, by which members find the pool
 * @node: link in the list of pools (l2arc_pools_mutex)
 * @members: the members' devices (&l2arc_c.pool_node), under
 *	l2arc_pools_mutex
 * @nr_members: how many
 * @ids: the members' ids, 1..%L2ARC_POOL_MAX_ORIGINS
 * @ref: the pool target's tables plus the members, under
 *	l2arc_pools_mutex; the last one frees the pool
 * @block_sectors: the block size of every member, sectors, 8..2048
 * @block_shift: log2(@block_sectors)
 * @block_pages: pages of one block's data
 * @c_max: arc_max of the pool, blocks (the live table's, else the module's
 *	arc_max at the pool's first table); written under l2arc_pools_mutex
 *	and @arc.lock
 * @c_min: arc_min of the pool, blocks, 16..@c_max
 * @floor_sum: the members' floors (their arc_min), blocks, at most half
 *	of @c_max when each came; under l2arc_pools_mutex and @arc.lock
 * @last_shrink: jiffies of the shrinker's last scan; members' misses read
 *	it to grow c back (io.c)
 * @shrinker: gives the ARC's memory back under pressure
 * @by_id: the members by id, NULL where none; under @arc.lock (written
 *	under l2arc_pools_mutex too)
 * @hitlog_pending: bit id set when member id has hits logged without the
 *	lock (l2arc_hitlog_add()) that the ARC has not seen: every holder of
 *	@arc.lock applies them (l2arc_lock()), whichever member it serves
 * @kstat: the pool's /proc/dm-l2arc/<name> directory (arcstats of the
 *	whole pool, origins), from its first table's ctr to its free
 * @stat_gone: the counters (&enum l2arc_stat) of members that left, so
 *	that the pool's arcstats count from the pool's creation; under
 *	l2arc_pools_mutex
 * @name: "dm-<minor>" of the pool's mapped device
 */
struct l2arc_pool {
	struct arc arc;
	struct mapped_device *md;
	struct list_head node;
	struct list_head members;
	unsigned int nr_members;
	struct ida ids;
	unsigned int ref;
	u32 block_sectors;
	unsigned int block_shift;
	unsigned int block_pages;
	u64 c_max;
	u64 c_min;
	u64 floor_sum;
	unsigned long last_shrink;
	struct l2arc_shrinker shrinker;
	struct l2arc_c *by_id[L2ARC_POOL_MAX_ORIGINS + 1];
	unsigned long hitlog_pending[BITS_TO_LONGS(L2ARC_POOL_MAX_ORIGINS + 1)];
	struct l2arc_kstat kstat;
	u64 stat_gone[L2ARC_STAT_NR];
	char name[32];
};

/*
 * Protects the list of pools and each pool's members, ids, references
 * and @stat_gone (pool.c); nests inside stats.c's mutex and outside every
 * pool's arc.lock.
 */
extern struct mutex l2arc_pools_mutex;

int l2arc_pool_attach(struct l2arc_c *lc, struct dm_target *ti, char **error);
void l2arc_pool_detach(struct l2arc_c *lc);
int l2arc_pool_module_init(void);
void l2arc_pool_module_exit(void);

#endif /* DM_L2ARC_POOL_H */

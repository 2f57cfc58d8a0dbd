/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the statistics files' state (stats.c has the theory).
 *
 * Included by dm-l2arc.h before struct l2arc_c, which embeds a struct
 * l2arc_kstat as its member kstat.  The counters themselves are
 * l2arc_c.stats (enum l2arc_stat), under arc.lock.
 */
#ifndef DM_L2ARC_STATS_H
#define DM_L2ARC_STATS_H

#include <linux/list.h>
#include <linux/types.h>

struct l2arc_c;
struct l2arc_pool;
struct proc_dir_entry;

/**
 * struct l2arc_kstat - a device's arcstats file, in the manner of a kstat
 * @proc: this device's /proc/dm-l2arc/<name> directory, while resumed (a
 *	pool's: while the pool exists)
 * @crtime: creation time, ns (ktime_get_ns), for arcstats
 * @node: link in the list of all devices (stats.c)
 * @kid: kstat id in the arcstats header, given at registration
 * @deleted_base: arc_evicted() at the last clear_stats (the "deleted" row
 *	counts from there)
 *
 * Locking: @node, @kid and @proc under stats.c's list mutex; @crtime is
 * set in the ctr; @deleted_base under arc.lock.  Registered by
 * l2arc_stats_register() at resume, unregistered by
 * l2arc_stats_unregister() at postsuspend and in the dtr.
 */
struct l2arc_kstat {
	struct proc_dir_entry *proc;
	u64 crtime;
	struct list_head node;
	int kid;
	u64 deleted_base;
};

int l2arc_stats_init(void);
void l2arc_stats_exit(void);
void l2arc_stats_register(struct l2arc_c *lc);
void l2arc_stats_unregister(struct l2arc_c *lc);
void l2arc_stats_snapshot(struct l2arc_c *lc, u64 *vals);
void l2arc_stats_pool_register(struct l2arc_pool *pool);
void l2arc_stats_pool_unregister(struct l2arc_pool *pool);
unsigned int l2arc_stats_origin_line(struct l2arc_c *lc, char *buf,
				     unsigned int len);

#endif /* DM_L2ARC_STATS_H */

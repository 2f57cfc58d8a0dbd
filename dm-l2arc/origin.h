/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the origin's other writers -- devices that hold the origin or
 * the cache device beside a table, and writes to the origin that did not
 * come through the target (origin.c).
 */
#ifndef DM_L2ARC_ORIGIN_H
#define DM_L2ARC_ORIGIN_H

#include <linux/blk_types.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct l2arc_c;
struct dm_dev;

/**
 * struct l2arc_watch - what a device knows of its origin's writes
 * @user: link in the list of every target's devices (l2arc_users_add())
 * @work: the check (l2arc_watch_check()), every origin_check_ms ms while
 *	the device is resumed
 * @ours: sectors of the writes, discards and write-zeroes this table sent
 *	to the origin, counted where the origin counts them (@at_start: in
 *	the map, before the bio goes on; else at a successful completion,
 *	l2arc_end_io()); per CPU
 * @base_origin: the origin's written and discarded sectors (its
 *	/sys/block statistics) at the resume, less the foreign ones seen
 * @base_ours: the sum of @ours at the resume
 * @mark: the origin's sectors at the suspend's last check, which the
 *	claim keeps (l2arc_origin_claim()): a write after it is seen by the
 *	next resume or rebuild
 * @holders: the origin's exclusive holders (bd_holders) at the resume or
 *	the last warning
 * @at_start: the origin counts a bio's sectors when the bio starts (a
 *	bio-based driver before Linux 6.3: device-mapper, md); else when it
 *	completes
 * @active: the check is armed (resumed); cleared before it is cancelled
 * @counting: the bases were taken (a resume): a suspend checks
 * @nostats_warned: the origin keeps no statistics: said once
 *
 * Locking: @base_*, @holders and @mark are written by the check (the work
 * item, or the postsuspend with the work cancelled) and the resume, never
 * at once; @ours from any context.
 */
struct l2arc_watch {
	struct list_head user;
	struct delayed_work work;
	u64 __percpu *ours;
	u64 base_origin;
	u64 base_ours;
	u64 mark;
	int holders;
	bool at_start;
	bool active;
	bool counting;
	bool nostats_warned;
};

void l2arc_watch_setup(struct l2arc_c *lc);
int l2arc_watch_init(struct l2arc_c *lc);
void l2arc_watch_exit(struct l2arc_c *lc);
void l2arc_watch_resume(struct l2arc_c *lc);
void l2arc_watch_suspend(struct l2arc_c *lc);
void l2arc_drop_cached(struct l2arc_c *lc, bool live);
int l2arc_users_add(struct l2arc_c *lc, char **error);
void l2arc_users_del(struct l2arc_c *lc);
int l2arc_check_holders(struct l2arc_c *lc, struct dm_dev *dev,
			const char *what, const char *path, int open_error,
			char **error);

#endif /* DM_L2ARC_ORIGIN_H */

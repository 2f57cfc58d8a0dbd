// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: module parameters, under /sys/module/dm_l2arc/parameters/.
 *
 * Every parameter is an unsigned 64-bit number with a range.  A write that
 * is not a plain decimal number, that has trailing characters (a trailing
 * newline is allowed, as echo adds one) or that is out of range returns
 * -EINVAL and keeps the old value.  Readers use l2arc_param(), which reads
 * the value once; a change takes effect at the next use (the next ctr for
 * sizes, the next read for prefetch settings).
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>

#include "dm-l2arc.h"

/**
 * struct l2arc_param - one range-checked u64 module parameter
 * @val: current value
 * @min: smallest value accepted
 * @max: largest value accepted; 0 means the machine's memory in bytes
 */
struct l2arc_param {
	u64 val;
	u64 min;
	u64 max;
};

static int l2arc_param_set(const char *val, const struct kernel_param *kp)
{
	struct l2arc_param *p = kp->arg;
	u64 max = p->max ? p->max : L2ARC_ARC_MAX_BYTES;
	u64 v;

	if (!val || !isdigit(val[0]) || kstrtou64(val, 10, &v))
		return -EINVAL;
	if (v < p->min || v > max)
		return -EINVAL;
	WRITE_ONCE(p->val, v);
	return 0;
}

static int l2arc_param_get(char *buffer, const struct kernel_param *kp)
{
	const struct l2arc_param *p = kp->arg;

	return sysfs_emit(buffer, "%llu\n", READ_ONCE(p->val));
}

static const struct kernel_param_ops l2arc_param_ops = {
	.set = l2arc_param_set,
	.get = l2arc_param_get,
};

#define L2ARC_PARAM(name, def, lo, hi, desc)				\
	static struct l2arc_param l2arc_param_##name = {		\
		.val = (def), .min = (lo), .max = (hi),			\
	};								\
	module_param_cb(name, &l2arc_param_ops, &l2arc_param_##name, 0644); \
	MODULE_PARM_DESC(name, desc)

L2ARC_PARAM(arc_max, L2ARC_ARC_MAX_DEFAULT, L2ARC_ARC_MIN_BYTES, 0,
	    "Default ARC size of a device without its own arc_max, bytes (default 268435456, range 65536 to the machine's memory); used at the next table load");
L2ARC_PARAM(arc_min, L2ARC_ARC_MIN_DEFAULT, L2ARC_ARC_MIN_BYTES, 0,
	    "Size below which the shrinker never takes a device's ARC, bytes (default 16777216, range 65536 to the machine's memory; never above the device's arc_max)");
L2ARC_PARAM(prefetch_disable, 0, 0, 1,
	    "1: no sequential-stream detection or read-ahead on any device (default 0)");
L2ARC_PARAM(zfetch_max_distance, L2ARC_ZFETCH_MAX_DISTANCE_DEFAULT, 4096,
	    1ULL << 30,
	    "How far read-ahead runs ahead of a sequential stream, bytes (default 8388608, range 4096 to 1073741824)");

/**
 * l2arc_param() - the current value of a module parameter
 * @id: which parameter
 *
 * Context: any.
 * Return: the value, in the parameter's unit (bytes or 0/1).
 */
u64 l2arc_param(enum l2arc_param_id id)
{
	switch (id) {
	case L2ARC_P_ARC_MAX:
		return READ_ONCE(l2arc_param_arc_max.val);
	case L2ARC_P_ARC_MIN:
		return READ_ONCE(l2arc_param_arc_min.val);
	case L2ARC_P_PREFETCH_DISABLE:
		return READ_ONCE(l2arc_param_prefetch_disable.val);
	case L2ARC_P_ZFETCH_MAX_DISTANCE:
		return READ_ONCE(l2arc_param_zfetch_max_distance.val);
	}
	return 0;
}

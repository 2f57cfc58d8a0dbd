// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: module parameters, under /sys/module/dm_l2arc/parameters/.
 *
 * Every parameter is an unsigned 64-bit number with a range.  A write that
 * is not a plain decimal number, that has trailing characters (a trailing
 * newline is allowed, as echo adds one) or that is out of range returns
 * -EINVAL and keeps the old value.  Readers use l2arc_param(), which reads
 * the value once, so a change takes effect at the next use: the next feed
 * for the l2arc_* tunables, the next read for the prefetch settings and
 * l2arc_slow_bypass_pct, the next table load for arc_max.
 *
 * The l2arc_* tunables from l2arc_write_max to l2arc_dwpd_limit can also
 * be set per device (table features, messages); l2arc_dev_param() gives
 * the value in force for a device.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>

#include "dm-l2arc.h"

/**
 * struct l2arc_param - one range-checked u64 module parameter
 * @name: its name, as under /sys/module/dm_l2arc/parameters/
 * @val: current value
 * @min: smallest value accepted
 * @max: largest value accepted; 0 means the machine's memory in bytes
 */
struct l2arc_param {
	const char *name;
	u64 val;
	u64 min;
	u64 max;
};

#define P(id, n, def, lo, hi) \
	[id] = { .name = n, .val = (def), .min = (lo), .max = (hi) }

static struct l2arc_param l2arc_params[L2ARC_P_NR] = {
	P(L2ARC_P_ARC_MAX, "arc_max", L2ARC_ARC_MAX_DEFAULT,
	  L2ARC_ARC_MIN_BYTES, 0),
	P(L2ARC_P_ARC_MIN, "arc_min", L2ARC_ARC_MIN_DEFAULT,
	  L2ARC_ARC_MIN_BYTES, 0),
	P(L2ARC_P_PREFETCH_DISABLE, "prefetch_disable", 0, 0, 1),
	P(L2ARC_P_ZFETCH_MAX_DISTANCE, "zfetch_max_distance",
	  L2ARC_ZFETCH_MAX_DISTANCE_DEFAULT, 4096, 1ULL << 30),
	P(L2ARC_P_WRITE_MAX, "l2arc_write_max", 32ULL << 20, 4096, 4ULL << 30),
	P(L2ARC_P_WRITE_BOOST, "l2arc_write_boost", 32ULL << 20, 0,
	  4ULL << 30),
	P(L2ARC_P_NOPREFETCH, "l2arc_noprefetch", 1, 0, 1),
	P(L2ARC_P_HEADROOM, "l2arc_headroom", 8, 0, 1024),
	P(L2ARC_P_FEED_SECS, "l2arc_feed_secs", 1, 1, 3600),
	P(L2ARC_P_FEED_MIN_MS, "l2arc_feed_min_ms", 200, 10, 3600000),
	P(L2ARC_P_FEED_AGAIN, "l2arc_feed_again", 1, 0, 1),
	P(L2ARC_P_MAX_ERRORS, "l2arc_max_errors", 16, 1, 1000000),
	P(L2ARC_P_DWPD_LIMIT, "l2arc_dwpd_limit", 100, 0, 100000),
	P(L2ARC_P_MFUONLY, "l2arc_mfuonly", 0, 0, 1),
	P(L2ARC_P_META_PERCENT, "l2arc_meta_percent", 10, 1, 90),
	P(L2ARC_P_ARC_SYS_FREE, "arc_sys_free", 0, 0, 0),
	P(L2ARC_P_HANDOFF_MAX, "l2arc_handoff_max", 64ULL << 20, 0, 4ULL << 30),
	P(L2ARC_P_REBUILD_ENABLED, "l2arc_rebuild_enabled", 1, 0, 1),
	P(L2ARC_P_REBUILD_MIN_L2SIZE, "l2arc_rebuild_blocks_min_l2size",
	  1ULL << 30, 0, U64_MAX),
	P(L2ARC_P_SLOW_BYPASS_PCT, "l2arc_slow_bypass_pct", 200, 0, 100000),
	P(L2ARC_P_WHATIF, "l2arc_whatif", 0, 0, 1),
	P(L2ARC_P_ORIGIN_CHECK_MS, "origin_check_ms", 100, 10, 60000),
};

static u64 l2arc_param_max(const struct l2arc_param *p)
{
	return p->max ? p->max : L2ARC_ARC_MAX_BYTES;
}

/**
 * l2arc_param_parse() - check a value for a parameter
 * @id: which parameter
 * @str: the value as text: decimal, optionally followed by one newline
 * @val: the value, when valid
 *
 * Return: 0, -EINVAL for text that is not a plain decimal number or
 * -ERANGE for a number out of the parameter's range.
 */
int l2arc_param_parse(enum l2arc_param_id id, const char *str, u64 *val)
{
	const struct l2arc_param *p = &l2arc_params[id];
	u64 v;
	int r;

	if (!str || !isdigit(str[0]))
		return -EINVAL;
	r = kstrtou64(str, 10, &v);
	if (r)
		return r;
	if (v < p->min || v > l2arc_param_max(p))
		return -ERANGE;
	*val = v;
	return 0;
}

static int l2arc_param_set(const char *val, const struct kernel_param *kp)
{
	struct l2arc_param *p = kp->arg;
	u64 v;

	if (l2arc_param_parse(p - l2arc_params, val, &v))
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

module_param_cb(arc_max, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_ARC_MAX], 0644);
MODULE_PARM_DESC(arc_max,
		 "ARC size of a device without its own arc_max, bytes (default 268435456, range 65536 to the machine's memory; used at the next table load)");
module_param_cb(arc_min, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_ARC_MIN], 0644);
MODULE_PARM_DESC(arc_min,
		 "Size below which the shrinker never takes a device's ARC, bytes (default 16777216, range 65536 to the machine's memory; never above the device's arc_max)");
module_param_cb(prefetch_disable, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_PREFETCH_DISABLE], 0644);
MODULE_PARM_DESC(prefetch_disable,
		 "1: no sequential-stream detection or read-ahead on any device (default 0)");
module_param_cb(zfetch_max_distance, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_ZFETCH_MAX_DISTANCE], 0644);
MODULE_PARM_DESC(zfetch_max_distance,
		 "How far read-ahead runs ahead of a sequential stream, bytes (default 8388608, range 4096 to 1073741824)");
module_param_cb(l2arc_write_max, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_WRITE_MAX], 0644);
MODULE_PARM_DESC(l2arc_write_max,
		 "Bytes the feed writes to the cache device per feed window (l2arc_feed_secs, or l2arc_feed_min_ms after a busy feed with l2arc_feed_again) (default 33554432, range 4096 to 4294967296)");
module_param_cb(l2arc_write_boost, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_WRITE_BOOST], 0644);
MODULE_PARM_DESC(l2arc_write_boost,
		 "Extra bytes per feed window while the ARC is cold (default 33554432, range 0 to 4294967296)");
module_param_cb(l2arc_noprefetch, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_NOPREFETCH], 0644);
MODULE_PARM_DESC(l2arc_noprefetch,
		 "1: the feed skips prefetched blocks not yet demanded (default 1)");
module_param_cb(l2arc_headroom, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_HEADROOM], 0644);
MODULE_PARM_DESC(l2arc_headroom,
		 "How deep the feed scans, in multiples of its write budget; 0 = whole lists (default 8, range 0 to 1024)");
module_param_cb(l2arc_feed_secs, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_FEED_SECS], 0644);
MODULE_PARM_DESC(l2arc_feed_secs,
		 "Seconds between feeds (default 1, range 1 to 3600)");
module_param_cb(l2arc_feed_min_ms, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_FEED_MIN_MS], 0644);
MODULE_PARM_DESC(l2arc_feed_min_ms,
		 "Milliseconds to the next feed after a busy one or a half-full hand-off queue, with l2arc_feed_again; the shortest time between two feeds not by message (default 200, range 10 to 3600000)");
module_param_cb(l2arc_feed_again, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_FEED_AGAIN], 0644);
MODULE_PARM_DESC(l2arc_feed_again,
		 "1: feed again after l2arc_feed_min_ms when a feed wrote more than half its budget or the hand-off queue is half full; 0: every l2arc_feed_secs only (default 1)");
module_param_cb(l2arc_max_errors, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_MAX_ERRORS], 0644);
MODULE_PARM_DESC(l2arc_max_errors,
		 "Cache device errors after which a device drops its cache device (default 16, range 1 to 1000000)");
module_param_cb(l2arc_dwpd_limit, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_DWPD_LIMIT], 0644);
MODULE_PARM_DESC(l2arc_dwpd_limit,
		 "Wear cap of a full cache device, percent of one drive write per day; 0 = no cap (default 100, range 0 to 100000)");
module_param_cb(l2arc_mfuonly, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_MFUONLY], 0644);
MODULE_PARM_DESC(l2arc_mfuonly,
		 "1: the feed writes only blocks of the MFU list (read at least twice) to the cache device, from the lists and at eviction; 0: MRU and MFU (default 0)");
module_param_cb(l2arc_meta_percent, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_META_PERCENT], 0644);
MODULE_PARM_DESC(l2arc_meta_percent,
		 "Percent of RAM that L2-only blocks still holding a header, all devices, may use before feeds stop, and that one device's slot table may use at table load (default 10, range 1 to 90)");
module_param_cb(arc_sys_free, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_ARC_SYS_FREE], 0644);
MODULE_PARM_DESC(arc_sys_free,
		 "Available memory below which c does not grow back after a shrink, bytes (default 0: the larger of 512 KiB and 1/64 of RAM; range 0 to the machine's memory)");
module_param_cb(l2arc_handoff_max, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_HANDOFF_MAX], 0644);
MODULE_PARM_DESC(l2arc_handoff_max,
		 "Bytes of evicted blocks each device keeps for its feed to write to the cache device; 0 = no hand-off (default 67108864, range 0 to 4294967296)");
module_param_cb(l2arc_rebuild_enabled, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_REBUILD_ENABLED], 0644);
MODULE_PARM_DESC(l2arc_rebuild_enabled,
		 "1: a table load rebuilds the L2ARC from the cache device's log blocks when its header is clean and matches (default 1; used at the next table load)");
module_param_cb(l2arc_rebuild_blocks_min_l2size, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_REBUILD_MIN_L2SIZE], 0644);
MODULE_PARM_DESC(l2arc_rebuild_blocks_min_l2size,
		 "Cache devices smaller than this hold no header or log blocks (nothing survives a reload), bytes (default 1073741824, range 0 to 2^64-1; used at the next table load)");

module_param_cb(l2arc_slow_bypass_pct, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_SLOW_BYPASS_PCT], 0644);
MODULE_PARM_DESC(l2arc_slow_bypass_pct,
		 "While the cache device's read latency is over this percent of the origin's, L2 hits read the origin (1 in 16 still the cache device); 0 = never (default 200, range 0 to 100000; at the next read)");
module_param_cb(l2arc_whatif, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_WHATIF], 0644);
MODULE_PARM_DESC(l2arc_whatif,
		 "1: new devices simulate their ARC and L2ARC at 1/8 to 8 times their sizes on a sample of their blocks, in /proc/dm-l2arc/dm-N/whatif (default 0; used at the next table load)");
module_param_cb(origin_check_ms, &l2arc_param_ops,
		&l2arc_params[L2ARC_P_ORIGIN_CHECK_MS], 0644);
MODULE_PARM_DESC(origin_check_ms,
		 "Milliseconds between two looks at each origin's write count: a write by another device is seen, and drops what the device cached, within this (default 100, range 10 to 60000; at the next look)");

/**
 * l2arc_param() - the current module-wide value of a parameter
 * @id: which parameter
 *
 * Context: any.
 * Return: the value, in the parameter's unit.
 */
u64 l2arc_param(enum l2arc_param_id id)
{
	return READ_ONCE(l2arc_params[id].val);
}

/**
 * l2arc_sys_free() - the memory the ARC leaves to the system
 *
 * After a shrink, c grows back towards arc_max only while the machine's
 * available memory (MemAvailable, si_mem_available()) is at least this.
 * As OpenZFS's zfs_arc_sys_free: the module parameter arc_sys_free, or
 * when it is 0 the larger of 512 KiB and 1/64 of the machine's memory.
 *
 * Context: any.
 * Return: bytes.
 */
u64 l2arc_sys_free(void)
{
	u64 v = l2arc_param(L2ARC_P_ARC_SYS_FREE);

	if (v)
		return v;
	return max_t(u64, SZ_512K, L2ARC_ARC_MAX_BYTES >> 6);
}

/**
 * l2arc_param_name() - a parameter's name
 * @id: which parameter
 *
 * Return: the name, as under /sys/module/dm_l2arc/parameters/.
 */
const char *l2arc_param_name(enum l2arc_param_id id)
{
	return l2arc_params[id].name;
}

/**
 * l2arc_dev_param_lookup() - find a per-device tunable by name
 * @name: e.g. "l2arc_write_max"
 *
 * Return: its id (%L2ARC_P_DEV_FIRST..%L2ARC_P_DEV_LAST) or -ENOENT.
 */
int l2arc_dev_param_lookup(const char *name)
{
	int id;

	for (id = L2ARC_P_DEV_FIRST; id <= L2ARC_P_DEV_LAST; id++)
		if (!strcmp(name, l2arc_params[id].name))
			return id;
	return -ENOENT;
}

/**
 * l2arc_dev_param() - the value of a tunable in force for one device
 * @own: the device's own values (struct l2arc_tunables)
 * @id: a per-device tunable, %L2ARC_P_DEV_FIRST..%L2ARC_P_DEV_LAST
 *
 * Context: any; the device's own value may change concurrently (messages),
 * each call reads it once.
 * Return: the device's own value if it has one, else the module's.
 */
u64 l2arc_dev_param(const struct l2arc_tunables *own, enum l2arc_param_id id)
{
	unsigned int i = id - L2ARC_P_DEV_FIRST;

	if (test_bit(i, &own->set))
		return READ_ONCE(own->val[i]);
	return l2arc_param(id);
}

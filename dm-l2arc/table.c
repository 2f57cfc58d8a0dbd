// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-l2arc: the constructor's table line.
 *
 * Parsing is kept apart from device lookup so that KUnit can test every
 * malformed line without block devices (table_test.c).  The grammar:
 *
 *   <origin_dev> <cache_dev|-> <block_size> [<#features> <feature>...]
 *
 * <block_size> is in 512-byte sectors, a power of two from 8 (4 KiB) to
 * 2048 (1 MiB).  <#features> counts the words that follow, which are
 * <key> <value> pairs:
 *
 *   arc_max <bytes>            this device's ARC size (c at most), >= 16 blocks
 *   arc_min <bytes>            the size below which the shrinker never takes
 *                              its ARC (the module's arc_min otherwise), at
 *                              most arc_max; in a pool, its floor: eviction
 *                              leaves it that much
 *   prefetch_disable <0|1>     1: no sequential-stream detection/read-ahead
 *   l2arc_rebuild <0|1>        0: start with an empty L2ARC at load (the
 *                              module's l2arc_rebuild_enabled otherwise)
 *   whatif <0|1>               0: no what-if simulations (the module's
 *                              l2arc_whatif otherwise)
 *   l2arc_write_max <bytes>    and the other per-device tunables of
 *                              params.c: this device's own value, with the
 *                              module parameter's range
 *
 * Numbers are decimal, without sign or trailing characters, and must fit
 * their type; every rejection names the offending argument in ti->error.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-l2arc.h"

/**
 * l2arc_parse_u64() - parse a whole decimal u64, nothing before or after it
 * @arg: the word
 * @val: result
 *
 * Return: 0, -EINVAL for anything that is not a plain decimal number
 * (sign, trailing junk, empty) or -ERANGE when it does not fit 64 bits.
 */
static int l2arc_parse_u64(const char *arg, u64 *val)
{
	if (!arg || !isdigit(arg[0]))
		return -EINVAL;
	return kstrtou64(arg, 10, val);
}

static int parse_block_size(struct l2arc_table *t, const char *arg,
			    char **error)
{
	u64 v;
	int r = l2arc_parse_u64(arg, &v);

	if (r == -ERANGE) {
		*error = "Block size overflows";
		return -EINVAL;
	}
	if (r) {
		*error = "Block size is not a number";
		return -EINVAL;
	}
	if (!is_power_of_2(v)) {
		*error = "Block size is not a power of two";
		return -EINVAL;
	}
	if (v < L2ARC_BLOCK_SECTORS_MIN || v > L2ARC_BLOCK_SECTORS_MAX) {
		*error = "Block size out of range (8 to 2048 sectors)";
		return -EINVAL;
	}
	/* a buffer is whole pages: 4 KiB blocks need 4 KiB pages */
	if ((v << SECTOR_SHIFT) < PAGE_SIZE) {
		*error = "Block size is smaller than a page";
		return -EINVAL;
	}
	t->block_sectors = v;
	return 0;
}

/* arc_max or arc_min: bytes, 16 blocks to the machine's memory. */
static int parse_arc_bytes(struct l2arc_table *t, const char *arg, u64 *val,
			   bool min, char **error)
{
	u64 v;
	int r = l2arc_parse_u64(arg, &v);

	if (r == -ERANGE) {
		*error = min ? "arc_min overflows" : "arc_max overflows";
		return -EINVAL;
	}
	if (r) {
		*error = min ? "arc_min is not a number" :
			       "arc_max is not a number";
		return -EINVAL;
	}
	if (v < (u64)L2ARC_ARC_MIN_BLOCKS * (t->block_sectors << SECTOR_SHIFT)) {
		*error = min ? "arc_min is below 16 blocks" :
			       "arc_max is below 16 blocks";
		return -EINVAL;
	}
	if (v > L2ARC_ARC_MAX_BYTES) {
		*error = min ? "arc_min exceeds the machine's memory" :
			       "arc_max exceeds the machine's memory";
		return -EINVAL;
	}
	*val = v;
	return 0;
}

static int parse_bool(const char *arg, bool *val)
{
	if (!strcmp(arg, "0")) {
		*val = false;
		return 0;
	}
	if (!strcmp(arg, "1")) {
		*val = true;
		return 0;
	}
	return -EINVAL;
}

/* A per-device tunable (l2arc_write_max, ...): range as the module's. */
static int parse_tunable(struct l2arc_table *t, const char *key,
			 const char *val, char **error)
{
	int id = l2arc_dev_param_lookup(key);
	unsigned int i;
	u64 v;
	int r;

	if (id < 0) {
		*error = "Unknown feature";
		return -EINVAL;
	}
	i = id - L2ARC_P_DEV_FIRST;
	if (test_bit(i, &t->tun.set)) {
		*error = "Duplicate tunable";
		return -EINVAL;
	}
	r = l2arc_param_parse(id, val, &v);
	if (r == -ERANGE) {
		*error = "Tunable value out of range";
		return -EINVAL;
	}
	if (r) {
		*error = "Tunable value is not a number";
		return -EINVAL;
	}
	t->tun.val[i] = v;
	__set_bit(i, &t->tun.set);
	return 0;
}

/* A 0/1 feature, at most once: @dup and @bad are its two rejections. */
static int parse_bool_feature(const char *val, bool *v, bool *set,
			      char *dup, char *bad, char **error)
{
	if (*set) {
		*error = dup;
		return -EINVAL;
	}
	*set = true;
	if (parse_bool(val, v)) {
		*error = bad;
		return -EINVAL;
	}
	return 0;
}

static int parse_feature(struct l2arc_table *t, const char *key,
			 const char *val, char **error)
{
	if (!strcmp(key, "arc_max")) {
		if (t->arc_max_set) {
			*error = "Duplicate feature arc_max";
			return -EINVAL;
		}
		t->arc_max_set = true;
		return parse_arc_bytes(t, val, &t->arc_max, false, error);
	}
	if (!strcmp(key, "arc_min")) {
		if (t->arc_min_set) {
			*error = "Duplicate feature arc_min";
			return -EINVAL;
		}
		t->arc_min_set = true;
		return parse_arc_bytes(t, val, &t->arc_min, true, error);
	}
	if (!strcmp(key, "prefetch_disable"))
		return parse_bool_feature(val, &t->prefetch_disable,
					  &t->prefetch_disable_set,
					  "Duplicate feature prefetch_disable",
					  "prefetch_disable must be 0 or 1",
					  error);
	if (!strcmp(key, "l2arc_rebuild"))
		return parse_bool_feature(val, &t->rebuild, &t->rebuild_set,
					  "Duplicate feature l2arc_rebuild",
					  "l2arc_rebuild must be 0 or 1", error);
	if (!strcmp(key, "whatif"))
		return parse_bool_feature(val, &t->whatif, &t->whatif_set,
					  "Duplicate feature whatif",
					  "whatif must be 0 or 1", error);
	return parse_tunable(t, key, val, error);
}

static int parse_features(struct l2arc_table *t, unsigned int argc,
			  char **argv, char **error)
{
	unsigned int i, nr;
	u64 v;
	int r;

	if (!argc)
		return 0;

	r = l2arc_parse_u64(argv[0], &v);
	if (r == -ERANGE || (!r && v > UINT_MAX)) {
		*error = "Feature count overflows";
		return -EINVAL;
	}
	if (r) {
		*error = "Feature count is not a number";
		return -EINVAL;
	}
	nr = v;
	if (nr > argc - 1) {
		*error = "Not enough feature arguments";
		return -EINVAL;
	}
	if (nr < argc - 1) {
		*error = "Too many arguments";
		return -EINVAL;
	}
	if (nr % 2) {
		*error = "Features must be key/value pairs";
		return -EINVAL;
	}
	for (i = 1; i < argc; i += 2) {
		r = parse_feature(t, argv[i], argv[i + 1], error);
		if (r)
			return r;
	}
	if (t->arc_min_set && t->arc_max_set && t->arc_min > t->arc_max) {
		*error = "arc_min exceeds arc_max";
		return -EINVAL;
	}

	t->features = l2arc_join_words(argc, argv);
	if (!t->features) {
		*error = "Cannot allocate feature string";
		return -ENOMEM;
	}
	return 0;
}

/**
 * l2arc_parse_table() - parse a table line's arguments
 * @t: result; zeroed here.  Pointers into @argv stay valid for the ctr.
 * @argc: number of words after the target name
 * @argv: the words
 * @error: set to a static message on failure (becomes ti->error)
 *
 * Checks everything that can be checked without opening devices: argument
 * count, block size, features and their values.  Device existence, origin
 * and cache identity, device sizes and the target length are checked by
 * the ctr.
 *
 * Context: process context, may sleep (allocates with GFP_KERNEL).
 * Return: 0 on success (free with l2arc_table_free()), -EINVAL for a
 * malformed line, -ENOMEM.
 */
int l2arc_parse_table(struct l2arc_table *t, unsigned int argc, char **argv,
		      char **error)
{
	int r;

	memset(t, 0, sizeof(*t));
	if (argc < 3) {
		*error = "Not enough arguments: need <origin> <cache|-> <block_size>";
		return -EINVAL;
	}
	t->origin_path = argv[0];
	t->cache_path = strcmp(argv[1], "-") ? argv[1] : NULL;
	if (t->cache_path && !strcmp(t->origin_path, t->cache_path)) {
		*error = "Origin and cache device are the same";
		return -EINVAL;
	}
	r = parse_block_size(t, argv[2], error);
	if (r)
		return r;
	r = parse_features(t, argc - 3, argv + 3, error);
	if (r)
		l2arc_table_free(t);
	return r;
}

/**
 * l2arc_parse_pool_table() - parse an l2arc-pool table line's arguments
 * @t: result; zeroed here (@t->origin_path stays NULL)
 * @argc: number of words after the target name
 * @argv: the words: <cache_dev|-> <block_size> [<#features> arc_max <bytes>]
 * @error: set to a static message on failure (becomes ti->error)
 *
 * The same block size and feature rules as l2arc_parse_table(); arc_max
 * is the only feature of a pool (the ARC that its members share).
 *
 * Context: process context, may sleep (allocates with GFP_KERNEL).
 * Return: 0 on success (free with l2arc_table_free()), -EINVAL for a
 * malformed line, -ENOMEM.
 */
int l2arc_parse_pool_table(struct l2arc_table *t, unsigned int argc,
			   char **argv, char **error)
{
	int r;

	memset(t, 0, sizeof(*t));
	if (argc < 2) {
		*error = "Not enough arguments: need <cache|-> <block_size>";
		return -EINVAL;
	}
	t->cache_path = strcmp(argv[0], "-") ? argv[0] : NULL;
	r = parse_block_size(t, argv[1], error);
	if (r)
		return r;
	r = parse_features(t, argc - 2, argv + 2, error);
	if (r)
		goto bad;
	if (t->arc_min_set || t->prefetch_disable_set || t->rebuild_set ||
	    t->whatif_set || t->tun.set) {
		*error = "arc_max is the only feature of a pool";
		r = -EINVAL;
		goto bad;
	}
	return 0;
bad:
	l2arc_table_free(t);
	return r;
}

/**
 * l2arc_table_free() - free what l2arc_parse_table() allocated
 * @t: a parsed table; may be zeroed or half-parsed
 */
void l2arc_table_free(struct l2arc_table *t)
{
	kfree(t->features);
	t->features = NULL;
}

/**
 * l2arc_join_words() - join words with single spaces into a new string
 * @argc: number of words, at least 1
 * @argv: the words
 *
 * Return: a kmalloc'ed string, or NULL when out of memory.
 */
char *l2arc_join_words(unsigned int argc, char **argv)
{
	size_t len = 0;
	unsigned int i;
	char *s, *p;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = kmalloc(len, GFP_KERNEL);
	if (!s)
		return NULL;
	p = s;
	for (i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		memcpy(p, argv[i], n);
		p += n;
		*p++ = (i + 1 < argc) ? ' ' : '\0';
	}
	return s;
}

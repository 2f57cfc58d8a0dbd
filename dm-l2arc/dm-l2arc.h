/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: private header shared by the target's files.
 *
 * Glossary:
 *   origin      the slow device (an HDD) that always holds the truth
 *   cache dev   the fast device (SSD/NVMe) that holds the L2ARC
 *   block       the unit of caching, block_sectors * 512 bytes
 *   oblock      a block number on the origin (oblock_t, see arc.h)
 *   ARC         the in-RAM adaptive replacement cache (arc.c)
 *   L2ARC       the second cache level on the cache device
 *
 * Prototypes are grouped by the file that defines them.
 */
#ifndef DM_L2ARC_H
#define DM_L2ARC_H

#include <linux/device-mapper.h>
#include <linux/mm.h>
#include <linux/types.h>

#define DM_MSG_PREFIX "l2arc"

/* Block size limits, in 512-byte sectors: 4 KiB to 1 MiB. */
#define L2ARC_BLOCK_SECTORS_MIN		8
#define L2ARC_BLOCK_SECTORS_MAX		2048

/* The ARC holds at least this many blocks (arc_max, arc_min). */
#define L2ARC_ARC_MIN_BLOCKS		16

/* A cache device must hold at least this many blocks. */
#define L2ARC_CACHE_MIN_BLOCKS		16

/* No ARC may be larger than the machine's memory, in bytes. */
#define L2ARC_ARC_MAX_BYTES		((u64)totalram_pages() << PAGE_SHIFT)

/**
 * struct l2arc_table - a parsed table line (see table.c for the grammar)
 * @origin_path: origin device as given (points into the ctr's argv)
 * @cache_path: cache device as given, or NULL for "-" (ARC only)
 * @block_sectors: block size in 512-byte sectors, power of two, 8..2048
 * @arc_max: this device's ARC size in bytes (valid if @arc_max_set)
 * @arc_max_set: the table gave arc_max
 * @prefetch_disable: no stream detection (valid if @prefetch_disable_set)
 * @prefetch_disable_set: the table gave prefetch_disable
 * @features: "<#features> <feature>..." verbatim for status TABLE, or NULL
 *            when the line had no feature words; kmalloc'ed
 */
struct l2arc_table {
	const char *origin_path;
	const char *cache_path;
	u32 block_sectors;
	u64 arc_max;
	bool arc_max_set;
	bool prefetch_disable;
	bool prefetch_disable_set;
	char *features;
};

/* table.c */
int l2arc_parse_table(struct l2arc_table *t, unsigned int argc, char **argv,
		      char **error);
void l2arc_table_free(struct l2arc_table *t);
char *l2arc_join_words(unsigned int argc, char **argv);

#endif /* DM_L2ARC_H */

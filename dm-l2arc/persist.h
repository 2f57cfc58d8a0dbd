/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the persistent L2ARC's I/O (persist.c): what it reads of the
 * origin besides the on-disk format of the cache device (format.h).
 */
#ifndef DM_L2ARC_PERSIST_H
#define DM_L2ARC_PERSIST_H

#include <linux/sizes.h>

#include "dm-l2arc.h"
#include "format.h"

/* The origin's fingerprint: its first and last MiB, and 8 blocks between */
#define L2ARC_FP_EDGE_SECTORS	(SZ_1M >> SECTOR_SHIFT)
#define L2ARC_FP_SPREAD		8

/* Rebuilt entries read back from the origin before the log is trusted */
#define L2ARC_REBUILD_SAMPLES	16

#endif /* DM_L2ARC_PERSIST_H */

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 240
# debug-check: skip read-ahead distances and counts, checked on both Debian kernels
#
# Read-ahead reads what is then used (issue 11): 1 MiB blocks, arc_max 64
# MiB, every other setting default (read-ahead on, zfetch_max_distance 8
# MiB), a 256 MiB set read once, sequentially, in 16 MiB O_DIRECT reads:
# the origin reads at most 1.05 x what the reader gets (its /sys/block stat),
# the data is the origin's, and prefetch_evicted_unused counts the
# read-ahead blocks that left the ARC before any read wanted them.
# Devices: origin = a memory-backed null_blk (512 MiB, no I/O scheduler).
. "$(dirname "$0")/lib.sh"

load_module
mk_nullb rao size=512 memory_backed=1 no_sched=1
O=$NULLB_DEV
len=$(sectors "$O")
dd if=/dev/urandom of="$O" bs=1M count=300 oflag=direct status=none
osect() { awk '{ print $3 }' "/sys/block/${O#/dev/}/stat"; }

dm_create ra "0 $len l2arc $O - 2048 2 arc_max 67108864"
proc=$(proc_of ra)
s0=$(osect)
cmp <(dd if=/dev/mapper/ra bs=16M count=16 iflag=direct status=none) \
	<(dd if="$O" bs=16M count=16 iflag=direct status=none) || die "data differs"
read=$(($(osect) - s0 - 524288))	# less cmp's own 256 MiB
echo "16 MiB reads: origin read $((read / 2048)) MiB for 256 MiB;" \
	"predictive_prefetch $(arcstats_row "$proc" predictive_prefetch)" \
	"prefetch_evicted_unused $(arcstats_row "$proc" prefetch_evicted_unused)"
((read * 100 <= 524288 * 105)) ||
	die "the origin read $((read / 2048)) MiB for 256 MiB delivered (more than 1.05x)"
echo "readahead ok"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
#
# A reload that grows the target over a grown origin keeps the L2ARC.
# Module parameter l2arc_rebuild_blocks_min_l2size 0.  The origin "o" is
# a dm-linear over the first 8 MiB of /dev/ram0 (16 MiB of random data);
# device "p" over the whole of "o", cache device /dev/ram1 (4 KiB
# blocks, arc_max 4 MiB, feeds by message), the set warmed onto L2
# (2,048 blocks), then:
#  a. "o" reloaded to 16 MiB of ram0 (the disk grew), p reloaded to 16
#     MiB: the rebuild keeps all 2,048 blocks (l2_rebuild_bufs 2048,
#     l2_size 8 MiB), the kernel log says "origin size 32768 -> 32768
#     sectors, target length 16384 -> 32768: kept" (the origin grew
#     while p was live, so p's suspend wrote its new size), the
#     first pass over the old 8 MiB is all L2 hits, and p equals ram0
#     whole;
#  b. a reload that shrinks p to 12 MiB starts empty (l2_rebuild_bufs 0,
#     "a smaller origin or target length").
# Before, a grown reload started empty with "another origin (device
# number or size) or target length".
# Devices: brd /dev/ram0 (under "o"), ram1 (cache device), 32 MiB.
. "$(dirname "$0")/lib.sh"

load_module
persist_any_size
mk_brd 2 32
dd if=/dev/urandom of=/dev/ram0 bs=1M count=16 oflag=direct status=none
dm_create o "0 16384 linear /dev/ram0 0"
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table() { echo "0 $1 l2arc /dev/mapper/o /dev/ram1 8 10 $feat"; }
st() { arcstats_row "$(proc_of p)" "$1"; }
dm_create p "$(table 16384)"
warm_by_feeds p 8
assert_eq "l2_size, warm" $((8 << 20)) "$(st l2_size)"

# ---- a. grow the origin, then the target
dmsetup reload o --table "0 32768 linear /dev/ram0 0"
dmsetup resume o
mark=$(kmark)
dmsetup reload p --table "$(table 32768)"
dmsetup resume p
l2_rebuilt p
klog_since "$mark" | grep -F "origin size 32768 -> 32768 sectors, target length 16384 -> 32768: kept" ||
	die "a: no kernel log line for the grown origin: $(klog_since "$mark" | tail -3)"
echo "a. grown: l2_rebuild_bufs=$(st l2_rebuild_bufs) l2_size=$(st l2_size)"
expect_rows "$(proc_of p)" l2_rebuild_bufs=2048 l2_size=$((8 << 20))
h0=$(st l2_hits)
dd if=/dev/mapper/p of=/dev/null bs=1M count=8 iflag=direct status=none
assert_eq "a. L2 hits of the first pass over the old 8 MiB" 2048 $(($(st l2_hits) - h0))
cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M count=16 iflag=direct status=none) ||
	die "a: p differs from its origin"

# ---- b. shrinking is another origin
mark=$(kmark)
dmsetup reload p --table "$(table 24576)"
dmsetup resume p
l2_rebuilt p
klog_since "$mark" | grep -F "a smaller origin or target length" ||
	die "b: no kernel log line for the shrunk target"
expect_rows "$(proc_of p)" l2_rebuild_bufs=0 l2_size=0
echo "grow ok"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 150
# debug-check: skip a feed policy (which blocks go to L2), checked on both Debian kernels
#
# l2arc_noprefetch: prefetch blocks (read ahead by zfetch, not yet
# demanded) never reach L2 while it is 1.
# A 64 MiB device, arc_max 32 MiB (no eviction in this test), read-ahead
# on (zfetch_max_distance 8 MiB): 256 demand reads of 4 KiB (dd, O_DIRECT,
# one at a time) at blocks 0..255 start a stream whose read-ahead runs up
# to 2048 blocks ahead; suspend/resume lets the read-aheads land.  So the
# ARC holds R resident blocks (mru_blocks + mfu_blocks), 256 demanded and
# R - 256 prefetch blocks.  Feeds have a budget (16 MiB) far above R:
#  - l2arc_noprefetch 1 (table feature): the feed writes exactly the 256
#    demanded blocks: l2_write_bytes = l2_size = l2_mru_asize = 1 MiB,
#    l2_prefetch_asize = 0; a second feed writes nothing.
#  - then `message l2arc_noprefetch 0`: the next feed writes exactly the
#    R - 256 prefetch blocks, l2_prefetch_asize = (R - 256) * 4 KiB.
#  - a prefetch block already on L2 is read from L2 whatever noprefetch
#    says: back to noprefetch 1, flood the ARC with 40 MiB of other blocks
#    (prefetch_disable as module parameter meanwhile), then re-read blocks
#    0..R-1: no origin reads, l2_hits = R.
# A fresh device with table noprefetch 0 shows the same split at the first
# feed: l2_prefetch_asize = (R' - 256) * 4 KiB > 0, l2_mru_asize = 1 MiB.
# Devices: origin = dm-delay (2 ms, HDD-like) over brd /dev/ram0 (64 MiB);
# cache device = brd /dev/ram1 (64 MiB, fast "NVMe").
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
P=/sys/module/dm_l2arc/parameters
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
dm_create l2o "0 $len delay /dev/ram0 0 2"
ostat=/sys/block/dm-$(dmsetup info -c --noheadings -o minor l2o | tr -d ' ')/stat
osect() { awk '{ print $3 }' "$ostat"; }
pd0=$(cat $P/prefetch_disable)
add_cleanup eval "echo $pd0 >$P/prefetch_disable"
assert_eq "prefetch_disable" 0 "$pd0"
assert_eq "zfetch_max_distance" 8388608 "$(cat $P/zfetch_max_distance)"

st() { arcstats_row "$proc" "$1"; }
expect() { expect_rows "$proc" "$@"; }
show() {
	local r out=""
	for r in mru_blocks mfu_blocks l2_feeds l2_write_bytes l2_size l2_prefetch_asize \
		l2_mru_asize l2_mfu_asize l2_hits l2_misses predictive_prefetch memory_throttle_count; do
		out+=" $r=$(st $r)"
	done
	echo "$1:$out"
}
mkdev() {	# mkdev NOPREFETCH
	dm_create l2n "0 $len l2arc /dev/mapper/l2o /dev/ram1 8 8 arc_max 33554432 l2arc_feed_secs 3600 l2arc_write_max 16777216 l2arc_noprefetch $1"
	proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2n | tr -d ' ')/arcstats
}
settle() { dmsetup suspend l2n; dmsetup resume l2n; }
demand256() {
	cmp <(dd if=/dev/mapper/l2n bs=4k count=256 iflag=direct status=none) \
		<(dd if=/dev/ram0 bs=4k count=256 iflag=direct status=none) ||
		die "device differs from origin"
	settle
}

# ---- noprefetch 1
mkdev 1
demand256
R=$(($(st mru_blocks) + $(st mfu_blocks)))
show "after 256 demand reads (R=$R)"
expect memory_throttle_count=0
((R > 256 + 1000)) || die "read-ahead did not run ahead: R=$R"
dmsetup message l2n 0 l2arc_feed
show "noprefetch 1, feed"
expect l2_feeds=1 l2_write_bytes=1048576 l2_size=1048576 l2_prefetch_asize=0 \
	l2_mru_asize=1048576 l2_mfu_asize=0
dmsetup message l2n 0 l2arc_feed
expect l2_feeds=2 l2_write_bytes=1048576 l2_prefetch_asize=0

# ---- message noprefetch 0: the prefetch blocks go now
dmsetup message l2n 0 l2arc_noprefetch 0
dmsetup message l2n 0 l2arc_feed
show "noprefetch 0 (message), feed"
expect l2_feeds=3 l2_size=$((R * 4096)) l2_write_bytes=$((R * 4096)) \
	l2_prefetch_asize=$(((R - 256) * 4096)) l2_mru_asize=1048576

# ---- prefetch blocks on L2 are read from L2 with noprefetch 1
dmsetup message l2n 0 l2arc_noprefetch 1
echo 1 >$P/prefetch_disable
dd if=/dev/mapper/l2n of=/dev/null bs=1M skip=16 count=40 iflag=direct status=none
settle
show "after flooding the ARC"
(($(st mru_blocks) + $(st mfu_blocks) <= 8192)) || die "ARC above arc_max"
h0=$(st l2_hits) o0=$(osect)
cmp <(dd if=/dev/mapper/l2n bs=4k count=$R iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=4k count=$R iflag=direct status=none) ||
	die "device differs from origin"
settle
show "re-read of blocks 0..$((R - 1))"
assert_eq "l2_hits for the re-read" "$R" $(($(st l2_hits) - h0))
assert_eq "origin sectors read for the re-read" 0 $(($(osect) - o0))
echo 0 >$P/prefetch_disable
dm_remove l2n

# ---- a fresh device with table noprefetch 0
mkdev 0
demand256
R2=$(($(st mru_blocks) + $(st mfu_blocks)))
dmsetup message l2n 0 l2arc_feed
show "fresh device, table noprefetch 0, feed (R'=$R2)"
expect l2_feeds=1 l2_write_bytes=$((R2 * 4096)) l2_mru_asize=1048576 \
	l2_prefetch_asize=$(((R2 - 256) * 4096))
(($(st l2_prefetch_asize) > 0)) || die "l2_prefetch_asize 0 with noprefetch 0"
dm_remove l2n
echo "noprefetch ok"

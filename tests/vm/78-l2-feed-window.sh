#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
# debug-check: skip the feed's pacing and budget from exact counters, on both Debian kernels; 71-fault-injection runs the feed and the hand-off on this kernel
#
# The feed obeys its pacing settings (found by an adversarial review: a
# hand-off queue half full started a feed at once, whatever they said).
#  (a) l2arc_feed_again 0, l2arc_feed_secs 3600, l2arc_handoff_max 1 MiB
#      (256 blocks), a 64 MiB set read once over a 16 MiB ARC (4 KiB
#      blocks, read-ahead off: 12,288 eligible blocks evicted for room):
#      no feed runs (l2_feeds 0, l2_write_bytes 0), the queue holds 256
#      blocks (l2_handoffs 256) and drops the other 12,032
#      (l2_evict_missed).
#  (b) l2arc_feed_again 1, l2arc_feed_min_ms 3600000 (never two timer or
#      hand-off feeds within the hour), the same read: the hand-off starts
#      one feed (l2_feeds 1), no second one, and the queue drops what it
#      cannot hold (l2_evict_missed > 0).
#  (c) One budget per feed window: 1 MiB blocks, l2arc_write_max 8 MiB,
#      l2arc_write_boost 0, l2arc_handoff_max 8 MiB, l2arc_feed_again 1,
#      l2arc_feed_min_ms 3600000.  Two blocks read, an l2arc_feed message
#      writes them (2 MiB: the window's feed is not busy, the window lasts
#      l2arc_feed_secs, 3600 s); the rest of the set read: the hand-off
#      starts one feed, which writes what the window has left, 6 MiB
#      (l2_feeds 2, l2_write_bytes 8 MiB), and no more.  Before: each feed
#      had a budget of its own (10 MiB).
#  (d) A budget below one block is one block: 1 MiB blocks,
#      l2arc_write_max 64 KiB, l2arc_write_boost 0, two blocks read: an
#      l2arc_feed message writes one (l2_feeds 1, l2_write_bytes 1 MiB),
#      and the next message the other.  Before: nothing at all.
# Every pass's data is checked against the origin (md5).
# Devices: origin = brd /dev/ram0 (64 MiB); cache device = brd /dev/ram1
# (128 MiB).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 128
P=/sys/module/dm_l2arc/parameters
len=$(((64 << 20) / 512))
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
sum0=$(dd if=/dev/ram0 bs=1M count=64 iflag=direct status=none | md5sum | cut -d' ' -f1)
add_cleanup eval "echo $(cat $P/l2arc_handoff_max) >$P/l2arc_handoff_max"

st() { arcstats_row "$proc" "$1"; }
mkdev() {	# mkdev NAME BLOCK_SECTORS FEATURES...
	local n=$1 bs=$2
	shift 2
	dm_create "$n" "0 $len l2arc /dev/ram0 /dev/ram1 $bs $# $*"
	proc=$(proc_of "$n")
}
read_set() {	# read_set NAME TAG: the whole set once, checked
	local sum
	sum=$(dd if="/dev/mapper/$1" bs=1M count=64 iflag=direct status=none | md5sum | cut -d' ' -f1)
	assert_eq "$2 data" "$sum0" "$sum"
	echo "$2: l2_feeds $(st l2_feeds) l2_write_bytes $(st l2_write_bytes)" \
		"l2_handoffs $(st l2_handoffs) l2_evict_missed $(st l2_evict_missed)" \
		"l2_handoff_size $(st l2_handoff_size)"
}

# ---- (a) l2arc_feed_again 0: no feed but the timer's
echo 1048576 >$P/l2arc_handoff_max
mkdev fw 8 arc_max 16777216 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_feed_again 0
read_set fw "(a)"
expect_rows "$proc" l2_feeds=0 l2_write_bytes=0 l2_handoffs=256 \
	l2_evict_missed=12032 l2_handoff_size=1048576
dm_remove fw

# ---- (b) l2arc_feed_again 1: hand-off feeds l2arc_feed_min_ms apart
mkdev fw 8 arc_max 16777216 prefetch_disable 1 l2arc_feed_secs 3600 \
	l2arc_feed_again 1 l2arc_feed_min_ms 3600000
read_set fw "(b)"
# the feed that the hand-off started may still be writing
# (l2_writes_sent is counted when its writes are done)
wait_for 60 "the hand-off's feed" eval '(($(st l2_writes_sent) > 0))'
expect_rows "$proc" l2_feeds=1
(($(st l2_evict_missed) > 0)) || die "(b) l2_evict_missed is 0: the queue never filled"
dm_remove fw

# ---- (c) the feeds of a window share its budget
echo $((8 << 20)) >$P/l2arc_handoff_max
mkdev fw 2048 arc_max 16777216 prefetch_disable 1 l2arc_feed_secs 3600 \
	l2arc_feed_again 1 l2arc_feed_min_ms 3600000 l2arc_write_max 8388608 \
	l2arc_write_boost 0
dd if=/dev/mapper/fw of=/dev/null bs=1M count=2 iflag=direct status=none
dmsetup message fw 0 l2arc_feed
expect_rows "$proc" l2_feeds=1 l2_write_bytes=2097152
read_set fw "(c)"
wait_for 60 "the hand-off's feed" eval '(($(st l2_write_bytes) > 2097152))'
expect_rows "$proc" l2_feeds=2 l2_write_bytes=8388608
dm_remove fw

# ---- (d) a budget below one block
mkdev fw 2048 arc_max 16777216 prefetch_disable 1 l2arc_feed_secs 3600 \
	l2arc_feed_again 0 l2arc_write_max 65536 l2arc_write_boost 0
dd if=/dev/mapper/fw of=/dev/null bs=1M count=2 iflag=direct status=none
dmsetup message fw 0 l2arc_feed
expect_rows "$proc" l2_feeds=1 l2_write_bytes=1048576 l2_size=1048576
dmsetup message fw 0 l2arc_feed
expect_rows "$proc" l2_feeds=2 l2_write_bytes=2097152 l2_size=2097152
dm_remove fw

echo "feed window ok"

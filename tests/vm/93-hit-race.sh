#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
#
# The lock-free hit path under a race: hits are served from RCU lookups
# (and a per-CPU hit log applied later under the lock), and nothing but
# its KUnit cases raced it.  Device "p": origin brd /dev/ram0, cache
# device /dev/ram1, 4 KiB blocks, arc_max 4 MiB (l2arc_noprefetch 0).
# tests/vm/hit_race.py runs for 90 seconds:
# 3 readers of a hot set of 256 blocks (1 MiB, which fits the ARC), two
# writers that own half of it each (O_DIRECT writes, and one op in 8 a
# discard, or a write-zeroes where the origin has no discard), a cold
# stream over the other 23 MiB (evictions), and here an l2arc_feed every
# 0.5 s (copies on L2, L2 hits).  Every read is checked against the last
# op on its block that completed before the read began: a read that
# starts after a write completed never returns older data (hit_race.py
# says what else it accepts while an op is in flight).  The exit status
# and the counts: no bad read; ARC hits, L2 hits, write invalidations
# and evictions all happened (so each path was raced); every block of p
# equals its origin at the end; the kernel log clean (lockdep, KASAN and
# kmemleak on the debug kernel).  The memory-ordering rule that makes a
# completed write's invalidation visible to a lock-free reader:
# design.rst, "Lookups without the lock".
# Devices: brd /dev/ram0, /dev/ram1, 24 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 24
secs=90
sz=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=24 oflag=direct status=none
dm_create p "0 $sz l2arc /dev/ram0 /dev/ram1 8 6 arc_max 4194304 l2arc_noprefetch 0 l2arc_feed_secs 3600"
st() { arcstats_row "$(proc_of p)" "$1"; }
disc=0
(($(cat /sys/block/ram0/queue/discard_max_bytes) > 0)) && disc=1
echo "origin discard: $disc (1: BLKDISCARD, 0: BLKZEROOUT)"

feeder() {
	while [[ -e $L2ARC_TEST_OUT/feeding ]]; do
		dmsetup message p 0 l2arc_feed
		sleep 0.5
	done
}
touch "$L2ARC_TEST_OUT/feeding"
feeder &
fpid=$!
stop_feeder() { rm -f "$L2ARC_TEST_OUT/feeding"; wait "$fpid" 2>/dev/null || true; }
add_cleanup stop_feeder
h0=$(st hits) l0=$(st l2_hits) i0=$(st l2_write_invalidates) d0=$(st deleted)
rc=0
python3 "$L2ARC_TOP/tests/vm/hit_race.py" /dev/mapper/p 256 256 $((24 * 256 - 256)) \
	"$secs" 3 $disc >race.out 2>&1 || rc=$?
stop_feeder
cat race.out
assert_eq "hit_race.py's exit status" 0 $rc
hits=$(($(st hits) - h0)) l2h=$(($(st l2_hits) - l0))
inv=$(($(st l2_write_invalidates) - i0))
evicted=$(($(st deleted) - d0))
echo "during the race: ARC hits $hits, L2 hits $l2h, L2 copies invalidated by writes $inv, evictions (deleted) $evicted"
read -r _ reads _ bad _ _ _ _ _ writes _ zeroings < <(tail -n 1 race.out)
assert_eq "bad reads" 0 "$bad"
((reads > 0 && writes > 0 && zeroings > 0)) || die "the race did no reads, writes or zeroings"
((hits > 0)) || die "no ARC hit during the race"
((l2h > 0)) || die "no L2 hit during the race"
((inv > 0)) || die "no L2 copy invalidated by a write during the race"
((evicted > 0)) || die "no eviction"
cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M iflag=direct status=none) || die "p differs from its origin"
echo "PASS: $reads reads raced with $writes writes and $zeroings zeroings, none stale"

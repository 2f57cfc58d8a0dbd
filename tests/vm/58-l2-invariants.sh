#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 400
# debug-check: skip the arcstats invariants under churn, on both Debian kernels; 71-fault-injection checks them here
#
# The arcstats rows agree with each other and with the directory after
# every kind of operation (issue 9, section 8): after each step, one
# snapshot of the file passes check_rows (lib.sh: the invariants written
# in Documentation/dm-l2arc.rst) and the `verify` message recounts the
# lists, the slot table and the L2 copies and finds the counters right.
# Steps: fill, hit, feed, evict (L2-only), L2 hits, writes, discards,
# write-zeroes (blkdiscard -z), laps of the write hand, clear_stats,
# shrink (drop_caches), degrade (cache device swapped to `error`).
# Run with 4 KiB and 32 KiB blocks.  Devices: origin = brd (6.12) or a
# memory-backed null_blk with discard (6.1), 64 MiB; cache device "ivc" =
# dm-linear over 16 MiB of brd /dev/ram1 (swapped to `error` to degrade).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
mk_discard_origin inv 64 512
O=$DISCARD_ORIGIN
len=$(sectors "$O")
dd if=/dev/urandom of="$O" bs=1M count=64 oflag=direct status=none

round() {	# round BLOCK_SECTORS
	local bsec=$1 bs=$(($1 * 512)) slots name=iv$1 dev proc i
	slots=$((32768 / bsec))
	dm_create ivc "0 32768 linear /dev/ram1 0"
	dm_create $name "0 $len l2arc $O /dev/mapper/ivc $bsec 10 arc_max 4194304 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0 l2arc_max_errors 4"
	dev=/dev/mapper/$name
	proc=$(proc_of $name)
	step() {
		local s
		s=$(snap "$proc")
		check_rows "$s" "$slots" "$bs"
		dmsetup message $name 0 verify || die "$1: verify failed (dmesg: $(dmesg | grep l2arc | tail -n 3))"
		printf '%-22s l2_size=%s l2_only=%s resident=%s hashed=%s\n' "$1" \
			"$(arcstats_row "$s" l2_size)" "$(arcstats_row "$s" l2_only_blocks)" \
			$(($(arcstats_row "$s" mru_blocks) + $(arcstats_row "$s" mfu_blocks))) \
			"$(arcstats_row "$s" hash_elements)"
		rm -f "$s"
	}
	dd if=$dev of=/dev/null bs=1M count=4 iflag=direct status=none; step "$bs fill"
	dd if=$dev of=/dev/null bs=1M count=2 iflag=direct status=none; step "$bs hit"
	dmsetup message $name 0 l2arc_feed; step "$bs feed"
	dd if=$dev of=/dev/null bs=1M count=8 skip=8 iflag=direct status=none; step "$bs evict"
	dd if=$dev of=/dev/null bs=1M count=4 iflag=direct status=none; step "$bs l2 hits"
	dmsetup message $name 0 l2arc_feed
	dd if=/dev/urandom of=$dev bs=4k count=64 seek=100 oflag=direct status=none; step "$bs writes"
	blkdiscard -f -o $((1 << 20)) -l $((1 << 20)) $dev; step "$bs discard"
	blkdiscard -f -z -o $((2 << 20)) -l $((1 << 20)) $dev; step "$bs write-zeroes"
	for i in $(seq 6); do
		dd if=$dev of=/dev/null bs=1M count=4 skip=$((i * 4 + 16)) iflag=direct status=none
		dmsetup message $name 0 l2arc_feed
	done
	(($(arcstats_row "$proc" l2_laps) >= 1)) || die "the hand did not lap"
	step "$bs laps"
	dmsetup message $name 0 clear_stats; step "$bs clear_stats"
	echo 2 >/proc/sys/vm/drop_caches; step "$bs shrink"
	dmsetup load ivc --table "0 32768 error"
	dmsetup suspend ivc
	dmsetup resume ivc
	dd if=$dev of=/dev/null bs=1M count=64 iflag=direct status=none || true
	dmsetup message $name 0 l2arc_feed
	expect_rows "$proc" l2_degraded=1 l2_size=0
	step "$bs degraded"
	cmp <(dd if=$dev bs=1M iflag=direct status=none) <(dd if="$O" bs=1M iflag=direct status=none) ||
		die "device differs from the origin"
	dm_remove $name
	dm_remove ivc
}
round 8
round 64
echo "invariants ok"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 150
#
# Discard and write-zeroes drop L2 copies: blocks put on L2 (read, feed,
# evicted from the ARC by reading other data; l2_size > 0, and a re-read
# of a probe range is served from L2: l2_hits = its blocks, no origin
# read), then
#  - blkdiscard of range D (L2-only copies),
#  - blkdiscard -z of range Z (L2-only copies),
#  - blkdiscard of range R whose blocks are in the ARC AND on L2 (Z's
#    range again, once re-read and fed),
# and a read of each range returns what the origin returns (compared with
# the origin read directly), with no L2 hit (l2_hits unchanged) and
# l2_size down by exactly the discarded blocks.
# Exact counters: prefetch_disable 1, arc_max 1 MiB = 256 blocks of 4 KiB,
# feed budget 16 MiB (never the limit), l2arc_feed_secs 3600, and no
# hand-off at eviction (l2arc_handoff_max 0: only the feeds here put
# blocks on L2; 63-l2-handoff tests the hand-off).
# blkdiscard -f: no libblkid probe reads through the device.
# Devices: the origin emulates an SSD with TRIM that reads zeroes after a
# discard: brd /dev/ram0 (64 MiB) when this kernel's brd supports discard,
# else a memory-backed null_blk with discard=1 (64 MiB); cache device =
# brd /dev/ram1 (64 MiB, fast "NVMe").
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
add_cleanup eval "echo $(cat /sys/module/dm_l2arc/parameters/l2arc_handoff_max) >/sys/module/dm_l2arc/parameters/l2arc_handoff_max"
echo 0 >/sys/module/dm_l2arc/parameters/l2arc_handoff_max
O=/dev/ram0 C=/dev/ram1
mk_discard_origin l2disc54 64 4096
O=$DISCARD_ORIGIN
echo "origin $O: discard_max_bytes $(cat /sys/block/${O#/dev/}/queue/discard_max_bytes)"
# count the origin's reads on a dm-linear over it: brd keeps no I/O
# statistics on 6.12
dm_create l2dorig "0 $(sectors $O) linear $O 0"
O=/dev/mapper/l2dorig
dd if=/dev/urandom of=$O bs=1M count=64 oflag=direct status=none
sz=$(sectors $O)
dm_create l2d "0 $sz l2arc $O $C 8 10 arc_max 1048576 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 16777216 l2arc_noprefetch 0"
dev=/dev/mapper/l2d
proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2d | tr -d ' ')/arcstats
ostat=/sys/block/dm-$(dmsetup info -c --noheadings -o minor l2dorig | tr -d " ")/stat
osect() { awk '{ print $3 }' "$ostat"; }
st() { arcstats_row "$proc" "$1"; }
show() {
	local r out=""
	for r in mru_blocks mfu_blocks l2_size l2_hits l2_misses l2_write_bytes write_invalidates \
		memory_throttle_count; do
		out+=" $r=$(st $r)"
	done
	echo "$1:$out"
}
rd() { dd if=$dev of=/dev/null bs=1M skip="$1" count="$2" iflag=direct status=none; }
same() {	# same MiB_OFFSET MiB_COUNT: device and origin agree there
	cmp <(dd if=$dev bs=1M skip="$1" count="$2" iflag=direct status=none) \
		<(dd if=$O bs=1M skip="$1" count="$2" iflag=direct status=none) ||
		die "device differs from origin at MiB $1 +$2"
}
evict() { rd "$1" 2; }	# 512 other blocks through a 256-block ARC

# Ranges (MiB): D 0..1 and Z 1..2 (two reads of 1 MiB, one feed each so
# both fit the ARC when fed), probe P 4..4.5, R = Z later.
rd 0 1; dmsetup message l2d 0 l2arc_feed
rd 1 1; dmsetup message l2d 0 l2arc_feed
dd if=$dev of=/dev/null bs=512k skip=8 count=1 iflag=direct status=none
dmsetup message l2d 0 l2arc_feed
assert_eq "l2_size after three feeds" $((5 << 19)) "$(st l2_size)"
evict 16
show "on L2, evicted"
# probe: P is served from L2 without the origin
h0=$(st l2_hits) o0=$(osect)
cmp <(dd if=$dev bs=512k skip=8 count=1 iflag=direct status=none) \
	<(dd if=$O bs=512k skip=8 count=1 iflag=direct status=none) || die "probe differs"
assert_eq "probe l2_hits" 128 $(($(st l2_hits) - h0))
# the origin is read only by cmp's reference side: 512 KiB
assert_eq "probe origin sectors" 1024 $(($(osect) - o0))
l2=$(st l2_size)

blkdiscard -f -o 0 -l $((1 << 20)) $dev || die "blkdiscard failed"
blkdiscard -f -z -o $((1 << 20)) -l $((1 << 20)) $dev || die "blkdiscard -z failed"
assert_eq "l2_size after discarding 512 L2-only blocks" $((l2 - (2 << 20))) "$(st l2_size)"
h0=$(st l2_hits)
same 0 2
show "after discard + write-zeroes, re-read"
assert_eq "l2_hits for the discarded ranges" 0 $(($(st l2_hits) - h0))
cmp -n $((1 << 20)) <(dd if=$dev bs=1M skip=1 count=1 iflag=direct status=none) /dev/zero ||
	die "write-zeroed range does not read zeroes"

# R: in the ARC and on L2.  After the two reads of Z above (same 0 2, then
# cmp), Z's 256 blocks are the ARC's whole content, in T2 (read twice; the
# ARC's scan resistance would keep them there against a one-pass read of
# another range), and not on L2 (written since): feed them, R := Z's range.
l2=$(st l2_size)
dmsetup message l2d 0 l2arc_feed
assert_eq "R's blocks resident in MFU" 256 "$(st mfu_blocks)"
assert_eq "l2_size after feeding R" $((l2 + (1 << 20))) "$(st l2_size)"
blkdiscard -f -o $((1 << 20)) -l $((1 << 20)) $dev || die "blkdiscard of R failed"
assert_eq "l2_size after discarding R" "$l2" "$(st l2_size)"
assert_eq "ARC after discarding R" 0 $(($(st mru_blocks) + $(st mfu_blocks)))
h0=$(st l2_hits)
same 1 1
assert_eq "l2_hits for R" 0 $(($(st l2_hits) - h0))
same 0 16
show "end"
echo "discard ok"

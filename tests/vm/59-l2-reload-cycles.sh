#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 480
# debug-check: skip make check's time: 176 s on this kernel with one other VM beside it; reloads run here in 69-l2-persist-owner and 70-fuzz (tests/run -k debug runs it)
#
# The feed keeps writing after the cache device was swapped by reloads
# (issue 9, section 9).  One device is reloaded 12 times (dmsetup load +
# resume), its cache device cycling /dev/ram1 -> /dev/ram2 -> "-" (ARC
# only), with 4 MiB read through it between reloads.  The device has a
# small feed budget (l2arc_write_max 256 KiB = 64 blocks per feed,
# l2arc_headroom 8: a feed scans 512 headers a list), read-ahead off and
# feeds by message.  After the last reload (ram1 again) a 16 MiB set
# (4096 blocks, the whole ARC) is read and fed 80 times: every block of it
# must reach the cache device (l2_size 16 MiB exactly), although after 8
# feeds the 512 headers at the LRU end of T1 are all on L2 already (the
# scan depth counted from the LRU end alone stopped the feed there: it ran
# but wrote nothing while 3,584 resident blocks were not on L2); then the
# set, evicted, is read back from L2 with no origin read.
# Devices: origin = dm-linear "l2ro" over brd /dev/ram0 (256 MiB; its
# /sys/block stat counts the origin's reads); cache devices = brd /dev/ram1
# and /dev/ram2 (64 MiB each, fast "NVMe").
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 3 256
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=256 oflag=direct status=none
dm_create l2ro "0 $len linear /dev/ram0 0"
caches=(/dev/ram1 /dev/ram2 -)
feat="arc_max 16777216 prefetch_disable 1 l2arc_write_max 262144 l2arc_write_boost 0 l2arc_feed_secs 3600"
tbl() { echo "0 $len l2arc /dev/mapper/l2ro $1 8 10 $feat"; }
dm_create l2r "$(tbl /dev/ram1)"
dev=/dev/mapper/l2r
st() { arcstats_row "$(proc_of l2r)" "$1"; }
show() {
	local r out=""
	for r in mru_blocks mfu_blocks l2_feeds l2_writes_sent l2_write_bytes l2_size \
		l2_hits l2_misses; do
		out+=" $r=$(st $r)"
	done
	echo "$1:$out"
}
for i in $(seq 12); do
	dd if=$dev of=/dev/null bs=1M count=4 skip=$((i * 4)) iflag=direct status=none
	[[ $(dmsetup table l2r) == *" - 8 "* ]] || dmsetup message l2r 0 l2arc_feed
	c=${caches[i % 3]}
	dmsetup load l2r --table "$(tbl "$c")"
	dmsetup resume l2r
	echo "reload $i: cache device $c"
done
[[ $(dmsetup table l2r) == *" 1:1 8 10 $feat" ]] ||
	die "cache device after the cycles: $(dmsetup table l2r)"
dd if=$dev of=/dev/null bs=1M count=16 skip=200 iflag=direct status=none
show "after reading 16 MiB"
for i in $(seq 80); do
	dmsetup message l2r 0 l2arc_feed
	((i % 8)) || show "after $i feeds"
done
expect_rows "$(proc_of l2r)" mru_blocks=4096 l2_size=$((16 << 20)) l2_write_bytes=$((16 << 20))
# evict the set, read it back: all from L2, nothing from the origin
dd if=$dev of=/dev/null bs=1M count=16 skip=100 iflag=direct status=none
ostat=/sys/block/dm-$(minor_of l2ro)/stat
o0=$(awk '{ print $3 }' $ostat) h0=$(st l2_hits)
cmp <(dd if=$dev bs=1M count=16 skip=200 iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M count=16 skip=200 iflag=direct status=none) || die "data differs"
show "after the re-read"
assert_eq "L2 hits of the re-read" 4096 $(($(st l2_hits) - h0))
assert_eq "origin sectors read by the re-read" 0 $(($(awk '{ print $3 }' $ostat) - o0))
echo "reload cycles ok"

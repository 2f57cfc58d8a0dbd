#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
#
# A read fails only if the origin fails the sectors it asked for (issue 9,
# section 2).  Origin "oe" = a linear table over brd /dev/ram0 with the
# `error` target over sectors 64-71 (one unreadable 4 KiB range: a bad
# sector of an HDD); l2arc over it with 128 KiB blocks (256 sectors), ARC
# only, read-ahead off.  Block 0 (sectors 0-255) holds the bad range.
#  - sectors 128-135 and 0-63: read through the target = the origin's
#    data, although the fill of block 0 fails;
#  - sectors 64-71: EIO, as on the origin;
#  - two reads waiting on the same fill (the origin's reads held by
#    dm-delay, HOLD_MS, released by release_held once the second read has
#    joined the fill: iohits 1), one of 128-135 and one of 64-71: the
#    first succeeds, the second fails;
#  - counters: origin_read_errors counts the failed fills (3), nothing of
#    block 0 is cached (data_size 0 after the reads), and a good block
#    (block 1) still caches (no miss on its second read).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 1 64
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
dm_create oe "0 64 linear /dev/ram0 0
64 8 error
72 $((len - 72)) linear /dev/ram0 72"
# l2e before oed: its ctr refuses an origin that another dm device holds
dm_create l2e "0 $len l2arc /dev/mapper/oe - 256 4 arc_max 16777216 prefetch_disable 1"
dm_create oed "0 $len delay /dev/mapper/oe 0 $HOLD_MS"
dev=/dev/mapper/l2e
proc=$(proc_of l2e)

rd() {	# rd DEV FIRST_SECTOR COUNT: the sectors in one read, or exit 1
	dd if="$1" bs=$(($3 * 512)) skip=$(($2 * 512)) count=1 \
		iflag=direct,skip_bytes status=none
}
cmp <(rd $dev 128 8) <(rd /dev/ram0 128 8) || die "sectors 128-135: read through the target failed or differs"
cmp <(rd $dev 0 64) <(rd /dev/ram0 0 64) || die "sectors 0-63: read through the target failed or differs"
if rd /dev/mapper/oe 64 8 >/dev/null 2>&1; then die "setup: the origin reads sectors 64-71"; fi
if rd $dev 64 8 >/dev/null 2>&1; then die "sectors 64-71 read through the target did not fail"; fi
expect_rows "$proc" origin_read_errors=3 data_size=0

# two readers on one fill: the origin read held until the second read has
# joined it
dm_create l2d "0 $len l2arc /dev/mapper/oed - 256 4 arc_max 16777216 prefetch_disable 1"
devd=/dev/mapper/l2d
rd $devd 128 8 >good.out 2>good.err &
g=$!
wait_for 60 "the first read to reach the origin" row_at_least "$(proc_of l2d)" misses 1
rd $devd 64 8 >bad.out 2>bad.err &
b=$!
wait_for 60 "the second read to join the fill" row_at_least "$(proc_of l2d)" iohits 1
kill -0 $g 2>/dev/null || die "the held origin read completed before its release"
release_held oed
gr=0 br=0
wait $g || gr=$?
wait $b || br=$?
assert_eq "read of sectors 128-135 (joined fill failed)" 0 $gr
cmp good.out <(rd /dev/ram0 128 8) || die "sectors 128-135 (joined fill) differ from the origin"
((br != 0)) || die "read of sectors 64-71 (joined fill) did not fail"
expect_rows "$(proc_of l2d)" origin_read_errors=1 iohits=1 misses=1

# a good block caches: its second read misses nothing
rd $dev 256 256 >/dev/null
m0=$(arcstats_row "$proc" misses)
rd $dev 256 256 >/dev/null
expect_rows "$proc" misses="$m0" data_size=131072
echo "origin-errors ok"

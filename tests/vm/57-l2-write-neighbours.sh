#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 180
#
# Only a write to a block invalidates its cached copies (issue 9, section
# 6): writes to other blocks -- block N + 1024 shares N's write bucket in
# the 1024-bucket scheme that this replaces -- never discard a fill or an
# L2 copy.  Cache device "wnc" = dm-delay over brd /dev/ram1, reads held
# (HOLD_MS, an L2 read in flight until release_held), writes not; origin
# "wno" = dm-delay over brd /dev/ram0, reads held in part 2 (an origin
# read in flight), writes never.  A held read is released once the write
# has completed, so the order does not depend on the host's speed.
# l2arc: 4 KiB blocks, arc_max 64 KiB (16 blocks), feeds by message,
# read-ahead off.
#  1. Blocks 1024 and 5000 on L2 and evicted (L2-only); block 1024's L2
#     read in flight while block 0 is written, block 5000's while blocks
#     2048..4095 (2048 blocks, more than all buckets) are written: each is
#     installed (a hit on the next read), the L2 copies kept (l2_size
#     unchanged, l2_write_invalidates 0, fills_discarded 0).
#  2. Block 1025's origin read in flight while block 1 is written: the
#     fill installs (a hit next).
#  3. Block 1024 written: its L2 copy goes (l2_write_invalidates 1,
#     l2_size one block less), the next read is a miss from the origin with
#     the new data.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 32
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none
dm_create wnc "0 $(sectors /dev/ram1) delay /dev/ram1 0 $HOLD_MS /dev/ram1 0 0"
dm_create wno "0 $len delay /dev/ram0 0 0 /dev/ram0 0 0"
dm_create wn "0 $len l2arc /dev/mapper/wno /dev/mapper/wnc 8 10 arc_max 65536 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 1048576 l2arc_noprefetch 0"
dev=/dev/mapper/wn
proc=$(proc_of wn)
st() { arcstats_row "$proc" "$1"; }
blk() { dd if=$dev bs=4k skip="$1" count=1 iflag=direct status=none; }
orig() { dd if=/dev/ram0 bs=4k skip="$1" count=1 iflag=direct status=none; }
show() {
	local r out=""
	for r in hits misses l2_hits l2_size fills_discarded write_invalidates \
		l2_write_invalidates writes; do
		out+=" $r=$(st $r)"
	done
	echo "$1:$out"
}

# ---- 1. blocks 1024 and 5000 on L2, evicted
blk 1024 >/dev/null
blk 5000 >/dev/null
dmsetup message wn 0 l2arc_feed
dd if=$dev of=/dev/null bs=4k skip=200 count=16 iflag=direct status=none
expect_rows "$proc" l2_size=8192 l2_only_blocks=2
for w in one many; do
	if [[ $w == one ]]; then b=1024; else b=5000; fi
	h0=$(st hits) l0=$(st l2_hits)
	blk $b >r.out &
	rpid=$!
	wait_for 60 "the L2 read to start" row_at_least "$proc" l2_hits $((l0 + 1))
	if [[ $w == one ]]; then
		dd if=/dev/urandom of=$dev bs=4k seek=0 count=1 oflag=direct status=none
	else
		dd if=/dev/urandom of=$dev bs=4k seek=2048 count=2048 oflag=direct status=none
	fi
	kill -0 $rpid 2>/dev/null ||
		die "the L2 read of block $b completed before the write did: the write waited for it (held $HOLD_MS ms)"
	release_held wnc
	wait $rpid || die "read of block $b failed"
	cmp r.out <(orig $b) || die "block $b differs"
	show "1. ($w write) after block $b's L2 read"
	expect_rows "$proc" fills_discarded=0 l2_write_invalidates=0 l2_size=8192
	cmp <(blk $b) <(orig $b) || die "block $b differs"
	assert_eq "hits on block $b after its fill ($w write)" $((h0 + 1)) "$(st hits)"
done

# ---- 2. an origin read in flight while block 1 is written
dmsetup load wno --table "0 $len delay /dev/ram0 0 $HOLD_MS /dev/ram0 0 0"
dmsetup resume wno
m0=$(st misses)
blk 1025 >r1025.out &
rpid=$!
wait_for 60 "the origin read to start" row_at_least "$proc" misses $((m0 + 1))
dd if=/dev/urandom of=$dev bs=4k seek=1 count=1 oflag=direct status=none
kill -0 $rpid 2>/dev/null ||
	die "the origin read of block 1025 completed before the write did: the write waited for it (held $HOLD_MS ms)"
release_held wno
wait $rpid || die "read of block 1025 failed"
h0=$(st hits)
cmp <(blk 1025) <(orig 1025) || die "block 1025 differs"
show "2. after block 1 was written during block 1025's fill"
assert_eq "hits on block 1025 after its fill" $((h0 + 1)) "$(st hits)"
expect_rows "$proc" fills_discarded=0
dmsetup load wno --table "0 $len delay /dev/ram0 0 0 /dev/ram0 0 0"
dmsetup resume wno

# ---- 3. block 1024 itself written: its L2 copy goes
dd if=/dev/urandom of=$dev bs=4k seek=1024 count=1 oflag=direct status=none
show "3. after block 1024 was written"
expect_rows "$proc" l2_write_invalidates=1 l2_size=4096
m0=$(st misses)
cmp <(blk 1024) <(orig 1024) || die "block 1024 differs after its write"
assert_eq "misses" $((m0 + 1)) "$(st misses)"
echo "write-neighbours ok"

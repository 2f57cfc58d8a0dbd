#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 180
#
# A write between two hand-offs of one block never leaves its old data on
# the cache device (found by 53-l2-integrity on 6.12 in make check: fio
# read a block's previous write).  The race, made deterministic with the
# cache device's writes held (dm-delay) and exact ARC moves (arc_max 16
# blocks, read-ahead off, the feed only by message):
#  1. block X (0) is evicted for room by REPLACE (T1 -> B1) and handed
#     off with its data D1;
#  2. a feed takes it and its write is held;
#  3. meanwhile X is written (D2), read back (a B1 ghost hit: T2, from the
#     origin) and evicted for room again (T2 -> B2): a second hand-off;
#  4. the held write completes.
# The feed's copy of D1 must not become X's L2 copy (before the fix it
# did: the second hand-off had marked X "being written" again, and the
# feed took that mark for its own).  Then X is read (a B2 ghost hit): it
# must read D2, and so must every read after more feeds.
# Exact lists are checked on the way (status t1/t2/b1/b2 and p).
# Devices: origin = brd /dev/ram0 (64 MiB); cache device = dm-delay over
# brd /dev/ram1 (64 MiB) holding writes, then dm-linear.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
# the hold starts after l2r's first resume, which writes sector 0 of its
# cache device (Documentation, "Persistence")
dm_create l2rc "0 $len delay /dev/ram1 0 0 /dev/ram1 0 0"
dm_create l2r "0 $len l2arc /dev/ram0 /dev/mapper/l2rc 8 6 arc_max 65536 prefetch_disable 1 l2arc_feed_secs 3600"
dmsetup reload l2rc --table "0 $len delay /dev/ram1 0 0 /dev/ram1 0 $HOLD_MS"
dmsetup suspend l2rc
dmsetup resume l2rc
dev=/dev/mapper/l2r
proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2r | tr -d ' ')/arcstats
st() { arcstats_row "$proc" "$1"; }
rb() {	# rb BLOCK...: read 4 KiB blocks through the device
	local b
	for b in "$@"; do
		dd if=$dev of=/dev/null bs=4k skip="$b" count=1 iflag=direct status=none
	done
}
lists() {	# "t1 t2 b1 b2 p" from the status line
	dmsetup status l2r | awk '{ print $8, $9, $10, $11, $6 }'
}
blk0() { dd if="$1" bs=4k count=1 iflag=direct status=none | md5sum | cut -d' ' -f1; }

d1=$(blk0 /dev/ram0)
head -c 4096 /dev/urandom >"$L2ARC_TEST_OUT/d2"
d2=$(md5sum <"$L2ARC_TEST_OUT/d2" | cut -d' ' -f1)

# 1. Y (100) to T2; X and 1..14 to T1; 15 makes REPLACE take X to B1
rb 100 100 0 $(seq 1 14)
assert_eq "lists before X's eviction" "15 1 0 0 0" "$(lists)"
rb 15
assert_eq "lists after X's eviction (t1 t2 b1 b2 p)" "15 1 1 0 0" "$(lists)"
assert_eq "l2_handoffs (X)" 1 "$(st l2_handoffs)"

# 2. a feed takes X; its write is held
dmsetup message l2r 0 l2arc_feed &
fpid=$!
add_cleanup eval "kill $fpid 2>/dev/null; wait $fpid 2>/dev/null || true"
t0=$SECONDS
until (($(dmsetup status l2rc | awk '{ print $5 }') > 0)); do
	((SECONDS - t0 < 60)) || die "the feed's write was not held"
	sleep 0.1
done

# 3. write D2 to X, read it back (B1 hit: p = 1, block 1 to B1), promote
# T1 to T2, then two new blocks: Y to B2, then X to B2 (|T1| = p)
dd if="$L2ARC_TEST_OUT/d2" of=$dev bs=4k count=1 oflag=direct status=none
assert_eq "X read back after its write" "$d2" "$(blk0 $dev)"
assert_eq "lists after X's ghost hit" "14 2 1 0 1" "$(lists)"
rb $(seq 2 15)
assert_eq "lists after T1's promotion" "0 16 1 0 1" "$(lists)"
rb 16 17
assert_eq "lists after X's second eviction" "2 14 1 2 1" "$(lists)"
assert_eq "l2_handoffs (X twice)" 2 "$(st l2_handoffs)"

# 4. the held write completes
dmsetup suspend l2rc
dmsetup reload l2rc --table "0 $len linear /dev/ram1 0"
dmsetup resume l2rc
wait $fpid || die "the l2arc_feed message failed"
echo "after the feed: l2_size $(st l2_size), l2_handoff_size $(st l2_handoff_size), l2_write_bytes $(st l2_write_bytes)"

# X now: a B2 ghost; a read must return D2, never D1
got=$(blk0 $dev)
[[ $got != "$d1" ]] || die "X read its old data D1 after its write (stale L2 copy)"
assert_eq "X after the feed" "$d2" "$got"
assert_eq "l2_cksum_bad" 0 "$(st l2_cksum_bad)"
# more feeds (the second hand-off), X evicted again, read again
dmsetup message l2r 0 l2arc_feed
rb $(seq 200 240)
dmsetup message l2r 0 l2arc_feed
assert_eq "X after more feeds" "$d2" "$(blk0 $dev)"
assert_eq "origin block 0 (written through)" "$d2" "$(blk0 /dev/ram0)"
dmsetup message l2r 0 verify >/dev/null
echo "handoff race ok"

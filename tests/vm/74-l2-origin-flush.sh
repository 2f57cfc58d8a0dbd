#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
#
# A clean header is written only over a flushed origin.  The origin "o"
# is a dm-linear over a dm-log-writes device "lw" (over /dev/ram0, its
# log on /dev/ram2), which logs a write only once a flush (or its own
# FUA) makes it durable: the log up to a point is what a power cut at
# that point leaves on the origin.  Device "p" over "o" with cache device
# /dev/ram1 (4 KiB blocks, arc_max 4 MiB, feeds by message, module
# parameter l2arc_rebuild_blocks_min_l2size 0):
#   the 8 MiB set warmed onto L2 (2,048 blocks); block 1000 written
#   through p with O_DIRECT and no flush (it sits in the origin's
#   volatile cache: not in the log), read back (a fill), fed to L2;
#   "dmsetup remove p" (log blocks, header "clean"); then a mark in lw's
#   log.
# The power cut: the log up to that mark is replayed onto /dev/ram3, a
# copy of the origin as it was before lw was made; "o" is loaded over
# /dev/ram3 (the same device number and size) and the module loaded
# anew (as after a reboot).  Device "p" created again must read what
# the origin holds, block 1000 included.  Before the suspend flushed the
# origin, the header said clean over a write the origin then lost: the
# rebuild served block 1000's new data, which the origin did not hold,
# and once that copy was evicted the block would have gone back to its
# old data by itself.  With the flush, the log holds a FLUSH entry after
# the write and before the mark, the replay holds block 1000's new data,
# and the rebuild keeps every block (l2_rebuild_success 1, 2,048 blocks).
# Devices: brd /dev/ram0 (under lw), ram1 (cache device), ram2 (the
# log), ram3 (the replay), 32 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
modprobe dm-log-writes
P=/sys/module/dm_l2arc/parameters
persist_any_size
mk_brd 4 32
set_mib=8 blocks=2048 wb=1000
dd if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none
dd if=/dev/ram0 of=/dev/ram3 bs=1M iflag=direct oflag=direct status=none
dm_create lw "0 $(sectors /dev/ram0) log-writes /dev/ram0 /dev/ram2"
dm_create o "0 $(sectors /dev/ram0) linear /dev/mapper/lw 0"
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table="0 $((set_mib << 11)) l2arc /dev/mapper/o /dev/ram1 8 10 $feat"
st() { arcstats_row "$(proc_of p)" "$1"; }
blk() { dd if="$1" bs=4096 skip="$2" count=1 iflag=direct status=none; }
add_cleanup eval "dmsetup remove p 2>/dev/null; true"

dmsetup create p --table "$table"
warm_by_feeds p $set_mib
assert_eq "l2_size, warm" $((set_mib << 20)) "$(st l2_size)"
head -c 4096 /dev/urandom >"$L2ARC_TEST_OUT/new"
dd if="$L2ARC_TEST_OUT/new" of=/dev/mapper/p bs=4096 seek=$wb oflag=direct status=none
cmp "$L2ARC_TEST_OUT/new" <(blk /dev/mapper/p $wb) || die "block $wb: the fill read other data"
dmsetup message p 0 l2arc_feed
assert_eq "l2_size, block $wb fed again" $((set_mib << 20)) "$(st l2_size)"
dmsetup remove p
dmsetup message lw 0 mark removed

# ---- the power cut: the origin as its log holds it at the mark
python3 "$L2ARC_TOP/tests/vm/log_replay.py" list /dev/ram2 >"$L2ARC_TEST_OUT/log"
at=$(awk '$5 == "removed" { print $1 }' "$L2ARC_TEST_OUT/log")
[[ -n $at ]] || die "no mark 'removed' in the log"
flushes=$(awk -v m="$at" '$1 < m && $2 ~ /FLUSH/' "$L2ARC_TEST_OUT/log" | wc -l)
echo "log: $(wc -l <"$L2ARC_TEST_OUT/log") entries, mark 'removed' at $at, $flushes flushes before it"
python3 "$L2ARC_TOP/tests/vm/log_replay.py" replay /dev/ram2 /dev/ram3 0 "$at"
# the same device "o" (number and size), over the replay
dmsetup suspend o
dmsetup load o --table "0 $(sectors /dev/ram0) linear /dev/ram3 0"
dmsetup resume o
dmsetup remove lw
unload_module
load_module
echo 0 >$P/l2arc_rebuild_blocks_min_l2size
dmsetup create p --table "$table"
l2_rebuilt p
echo "after the power cut: l2_rebuild_success=$(st l2_rebuild_success) l2_rebuild_bufs=$(st l2_rebuild_bufs) l2_size=$(st l2_size)"
cmp <(blk /dev/ram3 $wb) <(blk /dev/mapper/p $wb) ||
	die "block $wb: p serves data its origin does not hold (the header was clean over an unflushed origin)"
cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
	<(dd if=/dev/ram3 bs=1M count=$set_mib iflag=direct status=none) ||
	die "p differs from its origin"
cmp "$L2ARC_TEST_OUT/new" <(blk /dev/ram3 $wb) ||
	die "block $wb: the suspend did not make the write durable (no flush of the origin before the clean header)"
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=$blocks
dmsetup remove p
echo "origin flush ok"

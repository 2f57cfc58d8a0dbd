#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
#
# A write to the origin by another device while the table is live (what
# an LV that LVM activated on the raw disk does) drops everything the
# device cached: within origin_check_ms while it is resumed, at the
# latest at its suspend, and never becomes trusted by a later rebuild.
# Module parameter l2arc_rebuild_blocks_min_l2size 0.  The origin "o" is
# a dm-linear over /dev/ram0 (8 MiB of random data; a dm device counts
# its writes, which brd does not); device "p" over "o", cache device
# /dev/ram1 (4 KiB blocks, arc_max 4 MiB, feeds by message), the set
# warmed (2,048 blocks on L2, the last 1,024 read also resident); "x" a
# dm-linear over the same "o", which the ctr of p cannot refuse since x
# came second:
#  a. x writes block 5 (L2-only) and block 2000 (resident): within 30 s
#     (origin_check_ms 100: the time is printed, the window the guide
#     states) p reads both new, origin_foreign_writes 1 (2 when a check
#     fell between the two writes), l2_size 0, a kernel log line per drop; p equals o whole; the same after a suspend and
#     resume, and after x and p are removed and p created again (its
#     ctr refuses an origin that x holds);
#  b. origin_check_ms 60000 (no live check in time), warmed again, x
#     writes blocks 9 and 1900, p suspended at once: the suspend's check
#     drops everything (origin_foreign_writes 1), and the resume and the
#     rebuild after a remove serve the new data;
#  c. an ARC-only device "q" over "o2" (dm-linear over /dev/ram2), x2
#     over "o2" writes a resident block: q reads it new, row 1;
#  d. control: writes through p itself, 4 KiB and 1 MiB, O_DIRECT and
#     buffered, and a discard-less origin: origin_foreign_writes stays 0
#     over 2 s of checks.
# Before the check existed p served the old data of a's and b's blocks
# after the write, after a suspend and resume, and after a rebuild
# ("16 sampled blocks match").
# Devices: brd /dev/ram0 (under "o"), ram1 (cache device), ram2 (under
# "o2"), 32 MiB.
. "$(dirname "$0")/lib.sh"

load_module
persist_any_size
mk_brd 3 32
chk=/sys/module/dm_l2arc/parameters/origin_check_ms
add_cleanup eval "echo 100 >$chk"
echo 100 >$chk
set_mib=8
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
osz=$((set_mib << 11))
dm_create o "0 $osz linear /dev/ram0 0"
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table="0 $osz l2arc /dev/mapper/o /dev/ram1 8 10 $feat"
st() { arcstats_row "$(proc_of "${2:-p}")" "$1"; }
add_cleanup eval "dmsetup remove x 2>/dev/null; dmsetup remove x2 2>/dev/null; dmsetup remove q 2>/dev/null; dmsetup remove p 2>/dev/null; true"
new_block() {	# new_block N DEV: new random data to block N of DEV
	head -c 4096 /dev/urandom >"$L2ARC_TEST_OUT/b$1"
	dd if="$L2ARC_TEST_OUT/b$1" of="$2" bs=4096 seek="$1" oflag=direct conv=fsync status=none
}
reads_new() {	# reads_new DEV N...: DEV reads each block N as written
	local n
	for n in "${@:2}"; do
		cmp -s "$L2ARC_TEST_OUT/b$n" <(dd if="$1" bs=4096 skip="$n" count=1 iflag=direct status=none) ||
			return 1
	done
}
is_new() {	# is_new STEP N...
	reads_new /dev/mapper/p "${@:2}" || die "$1: p serves old data of a block x wrote"
	cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
		<(dd if=/dev/ram0 bs=1M count=$set_mib iflag=direct status=none) ||
		die "$1: p differs from its origin"
}
warm() {
	warm_by_feeds p $set_mib
	assert_eq "l2_size, warm" $((set_mib << 20)) "$(st l2_size)"
}

dmsetup create p --table "$table"
warm
dm_create x "0 $osz linear /dev/mapper/o 0"

# ---- d. control first: writes through p are not foreign
head -c 4096 /dev/urandom | dd of=/dev/mapper/p bs=4096 seek=100 oflag=direct conv=fsync status=none
head -c 1048576 /dev/urandom | dd of=/dev/mapper/p bs=1M seek=3 oflag=direct conv=fsync status=none
head -c 65536 /dev/urandom | dd of=/dev/mapper/p bs=4096 seek=200 conv=fsync status=none
sleep 2
assert_eq "d. origin_foreign_writes after p's own writes" 0 "$(st origin_foreign_writes)"
warm

# ---- a. x writes while p is live
mark=$(kmark)
new_block 5 /dev/mapper/x
new_block 2000 /dev/mapper/x
t0=$EPOCHREALTIME
wait_for 30 "p to read x's blocks new" reads_new /dev/mapper/p 5 2000
t1=$EPOCHREALTIME
echo "a. p served x's writes after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }') ms (origin_check_ms 100)"
# one drop, or two when a check fell between the two writes
drops=$(st origin_foreign_writes)
lines=$(klog_since "$mark" | grep -c "written to the origin by another device" || true)
echo "a. origin_foreign_writes=$drops, kernel log lines $lines"
((drops == 1 || drops == 2)) || die "a: origin_foreign_writes $drops, not 1 or 2"
assert_eq "a. kernel log lines, one per drop" "$drops" "$lines"
expect_rows "$(proc_of p)" l2_size=0
is_new "a. live" 5 2000
dmsetup suspend p
dmsetup resume p
is_new "a. resumed" 5 2000
# p's ctr refuses an origin that x holds: x goes first
dm_remove x
dmsetup remove p
dmsetup create p --table "$table"
l2_rebuilt p
echo "a. created again: l2_rebuild_bufs=$(st l2_rebuild_bufs)"
is_new "a. created again" 5 2000

# ---- b. x writes, p suspended before any live check
echo 60000 >$chk
dmsetup remove p
dmsetup create p --table "$table"
warm
dm_create x "0 $osz linear /dev/mapper/o 0"
new_block 9 /dev/mapper/x
new_block 1900 /dev/mapper/x
dmsetup suspend p
dmsetup resume p
assert_eq "b. origin_foreign_writes at the suspend" 1 "$(st origin_foreign_writes)"
is_new "b. resumed" 9 1900
dm_remove x
dmsetup remove p
dmsetup create p --table "$table"
l2_rebuilt p
is_new "b. created again" 9 1900
dmsetup remove p
echo 100 >$chk

# ---- c. an ARC-only device
dd if=/dev/urandom of=/dev/ram2 bs=1M count=4 oflag=direct status=none
dm_create o2 "0 8192 linear /dev/ram2 0"
dmsetup create q --table "0 8192 l2arc /dev/mapper/o2 - 8 2 arc_max 4194304"
dd if=/dev/mapper/q of=/dev/null bs=1M iflag=direct status=none
dm_create x2 "0 8192 linear /dev/mapper/o2 0"
new_block 700 /dev/mapper/x2
wait_for 30 "q to read x2's block new" reads_new /dev/mapper/q 700
assert_eq "c. origin_foreign_writes" 1 "$(st origin_foreign_writes q)"
cmp <(dd if=/dev/mapper/q bs=1M iflag=direct status=none) \
	<(dd if=/dev/ram2 bs=1M count=4 iflag=direct status=none) ||
	die "c: q differs from its origin"
echo "origin foreign ok"

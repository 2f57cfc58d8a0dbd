#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
#
# A suspended device drops what it cached when its origin was written
# meanwhile, by another table or with no table at all; and a log is not
# rebuilt after a write made with no table loaded.  Module parameter
# l2arc_rebuild_blocks_min_l2size 0.  The origin "o" is a dm-linear over
# /dev/ram0 (8 MiB of random data; a dm device counts its writes in
# /sys/block, which brd does not); device "p" over "o", cache device
# /dev/ram1 (4 KiB blocks, arc_max 4 MiB, feeds by message), the set
# warmed onto L2 (2,048 blocks), then:
#  a. p suspended; "q" created over "o" (a dm-linear: an l2arc table
#     there is refused while p holds "o"), block 5 written through it (O_DIRECT, then fsync), q removed; p resumed:
#     p drops its ARC and L2ARC (origin_changed_drops 1, l2_size 0, a
#     kernel log line), block 5 reads the new data; p removed (clean)
#     and created again: the log it left holds nothing of the old set
#     (l2_rebuild_bufs 0), block 5 still new;
#  b. warmed again, p suspended, block 9 written straight to "o", p
#     resumed: the same (origin_changed_drops 1: p is a new
#     device since a);
#  c. warmed again, p removed, block 13 written straight to "o", p
#     created: starts empty (l2_rebuild_origin_changed 1, l2_size 0),
#     block 13 new;
#  d. control: suspend and resume with no write in between keep
#     everything (l2_size unchanged, origin_changed_drops unchanged).
# Before the resume looked at the origin, a served block 5's old data
# after the resume and again after the next rebuild, b block 9's, and c
# rebuilt block 13's old copy.
# Devices: brd /dev/ram0 (under "o"), ram1 (cache device), 32 MiB.
. "$(dirname "$0")/lib.sh"

load_module
persist_any_size
mk_brd 2 32
set_mib=8 blocks=2048
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
osz=$((set_mib << 11))
dm_create o "0 $osz linear /dev/ram0 0"
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table="0 $osz l2arc /dev/mapper/o /dev/ram1 8 10 $feat"
st() { arcstats_row "$(proc_of p)" "$1"; }
add_cleanup eval "dmsetup remove q 2>/dev/null; dmsetup remove p 2>/dev/null; true"
warm() {
	warm_by_feeds p $set_mib
	assert_eq "l2_size, warm" $((set_mib << 20)) "$(st l2_size)"
}
new_block() {	# new_block N DEV: new random data to block N of DEV
	head -c 4096 /dev/urandom >"$L2ARC_TEST_OUT/b$1"
	dd if="$L2ARC_TEST_OUT/b$1" of="$2" bs=4096 seek="$1" oflag=direct conv=fsync status=none
}
is_new() {	# is_new N STEP
	cmp "$L2ARC_TEST_OUT/b$1" <(dd if=/dev/mapper/p bs=4096 skip="$1" count=1 iflag=direct status=none) ||
		die "$2: block $1 is stale"
	cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
		<(dd if=/dev/ram0 bs=1M count=$set_mib iflag=direct status=none) ||
		die "$2: p differs from its origin"
}
dropped() {	# dropped N STEP: p's resume dropped everything, N times so far
	echo "$2: origin_changed_drops=$(st origin_changed_drops) l2_size=$(st l2_size) size=$(st size)"
	expect_rows "$(proc_of p)" origin_changed_drops="$1" l2_size=0
	dmesg | grep "the origin changed while suspended" ||
		die "$2: no kernel log line 'the origin changed while suspended'"
}

dmsetup create p --table "$table"
warm

# ---- a. another table wrote while p was suspended
dmsetup suspend p
dmsetup create q --table "0 $osz linear /dev/mapper/o 0"
new_block 5 /dev/mapper/q
dmsetup remove q
dmesg -C
dmsetup resume p
is_new 5 "a. resumed"
dropped 1 "a. resumed after q wrote"
dmsetup remove p
dmsetup create p --table "$table"
l2_rebuilt p
echo "a. created again: l2_rebuild_success=$(st l2_rebuild_success) l2_rebuild_bufs=$(st l2_rebuild_bufs)"
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=0
is_new 5 "a. created again"

# ---- b. a write straight to the origin while p was suspended
warm
dmsetup suspend p
new_block 9 /dev/mapper/o
dmesg -C
dmsetup resume p
is_new 9 "b. resumed"
dropped 1 "b. resumed after a write to o"

# ---- c. a write straight to the origin with no table loaded
warm
dmsetup remove p
new_block 13 /dev/mapper/o
dmesg -C
dmsetup create p --table "$table"
l2_rebuilt p
is_new 13 "c. created"
echo "c. created: l2_rebuild_success=$(st l2_rebuild_success) l2_rebuild_bufs=$(st l2_rebuild_bufs) l2_rebuild_origin_changed=$(st l2_rebuild_origin_changed)"
expect_rows "$(proc_of p)" l2_rebuild_success=0 l2_rebuild_origin_changed=1 l2_size=0
dmesg | grep "cache device starts empty: the origin changed" ||
	die "c: no kernel log line"

# ---- d. control: nothing written while suspended
warm
dmsetup suspend p
dmsetup resume p
expect_rows "$(proc_of p)" origin_changed_drops=0 l2_size=$((set_mib << 20))
dmsetup remove p
echo "origin claim ok"

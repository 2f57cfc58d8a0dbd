#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# debug-check: skip four rebuilds over a 24 MiB set, an ext4 mkfs and two module reloads (59 s on 6.1 here); 74 and 76 run the same code paths on the debug kernel
#
# Another origin under the same device number and size is never taken
# for the one a log describes.  Module parameter
# l2arc_rebuild_blocks_min_l2size 0.  The origin "o" is a dm-linear over
# the first 24 MiB of a RAM disk; device "p" over the whole of "o",
# cache device /dev/ram1 (4 KiB blocks, arc_max 4 MiB, feeds by message),
# the set warmed onto L2 (6,144 blocks, 6,144 slots of the 8,158), then
# removed (header "clean"):
#  control: created again, it rebuilds all 6,144 blocks;
#  a. "o" removed and created over /dev/ram2 (other random data: the
#     same minor, since dm takes the lowest free one, and the same size),
#     "p" created: starts empty (l2_rebuild_origin_changed 1,
#     l2_rebuild_success 0, l2_size 0, a kernel log line "the origin
#     changed"), and reads /dev/ram2's data;
#  b. the same across a reboot (the module unloaded and loaded between
#     the remove and the create: only what the header holds is left);
#  c. an ext4 file system on "o", warmed through "p", removed; "o"
#     mounted and unmounted directly (its superblock changes), "p"
#     created: starts empty, reads the origin;
#  d. c across a reboot.
# Before the origin's identity was checked, a and b rebuilt all 6,144
# blocks and served /dev/ram0's data over /dev/ram2.
# Devices: brd /dev/ram0, ram2 (origins), ram1 (cache device), 32 MiB.
. "$(dirname "$0")/lib.sh"

load_module
P=/sys/module/dm_l2arc/parameters
persist_any_size
mk_brd 3 32
set_mib=24 blocks=6144
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
dd if=/dev/urandom of=/dev/ram2 bs=1M count=$set_mib oflag=direct status=none
osz=$((set_mib << 11))
mk_origin() { dmsetup create o --table "0 $osz linear $1 0"; }
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table="0 $osz l2arc /dev/mapper/o /dev/ram1 8 10 $feat"
st() { arcstats_row "$(proc_of p)" "$1"; }
add_cleanup eval "umount /mnt 2>/dev/null; dmsetup remove p 2>/dev/null; dmsetup remove o 2>/dev/null; true"
create() {
	dmsetup create p --table "$table"
	l2_rebuilt p
}
reboot_module() {
	unload_module
	load_module
	echo 0 >$P/l2arc_rebuild_blocks_min_l2size
}
same_as_origin() {	# same_as_origin DEV STEP
	cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
		<(dd if="$1" bs=1M count=$set_mib iflag=direct status=none) ||
		die "$2: p differs from its origin $1"
}
warm_remove() {	# warm_remove N: warm p onto L2, remove it (clean)
	warm_by_feeds p $set_mib
	assert_eq "l2_size, warm" $((set_mib << 20)) "$(st l2_size)"
	dmsetup remove p
}
starts_empty() {	# starts_empty ORIGIN STEP
	dmesg -C
	create
	echo "$2: l2_rebuild_success=$(st l2_rebuild_success) l2_rebuild_bufs=$(st l2_rebuild_bufs) l2_rebuild_origin_changed=$(st l2_rebuild_origin_changed) l2_size=$(st l2_size)"
	same_as_origin "$1" "$2"
	expect_rows "$(proc_of p)" l2_rebuild_success=0 l2_rebuild_origin_changed=1 l2_size=0
	dmesg | grep "cache device starts empty: the origin changed" ||
		die "$2: no kernel log line 'the origin changed'"
}

# ---- control
mk_origin /dev/ram0
minor=$(minor_of o)
create
warm_remove
create
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=$blocks
same_as_origin /dev/ram0 control
warm_remove

# ---- a. another disk under the same number and size
dmsetup remove o
mk_origin /dev/ram2
assert_eq "setup: o's minor" "$minor" "$(minor_of o)"
starts_empty /dev/ram2 "a. o over /dev/ram2"
dmsetup remove p

# ---- b. the same across a reboot
dmsetup remove o
mk_origin /dev/ram0
create
warm_remove
dmsetup remove o
reboot_module
mk_origin /dev/ram2
assert_eq "setup: o's minor" "$minor" "$(minor_of o)"
starts_empty /dev/ram2 "b. o over /dev/ram2 after a reboot"
dmsetup remove p

# ---- c. ext4 on o, mounted directly between the remove and the create
mkfs.ext4 -q -F -b 4096 /dev/mapper/o
mkdir -p /mnt
mount /dev/mapper/o /mnt
head -c $((8 << 20)) /dev/urandom >/mnt/f
umount /mnt
create
warm_remove
mount /dev/mapper/o /mnt
umount /mnt
starts_empty /dev/mapper/o "c. ext4 mounted with no table"
warm_remove

# ---- d. c across a reboot
reboot_module
mount /dev/mapper/o /mnt
umount /mnt
starts_empty /dev/mapper/o "d. ext4 mounted with no table, after a reboot"
dmsetup remove p
echo "origin identity ok"

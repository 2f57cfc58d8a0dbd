#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
#
# The ctr refuses an origin or a cache device that something else holds,
# and the error names the holder:
#  a. a second l2arc table "p2" naming p's cache device: "Cache device is
#     in use by dm-N" (N: p's minor), p2 not created, and p untouched
#     (status ok, l2_cksum_bad 0, every block equal to its origin);
#  b. an l2arc table over an origin that a dm-linear "x" already holds:
#     "Origin device is in use by dm-M" (M: x's minor);
#  c. a cache device that a dm-linear "lv" holds (an LV's PV), and one
#     that is itself in use by p as its origin's holder: refused;
#  d. a mounted origin and a mounted cache device: "... is in use
#     (mounted, or held exclusively)";
#  e. two l2arc targets of one table on one cache device: "Cache device
#     is used by another target of this table" (bd_holders cannot tell
#     them apart), and on one origin: "Origin device is used ...";
#  f. what must still work: a reload of p with the same devices (one
#     mapped device, one holder), and a table of two l2arc targets over
#     two origins, each with its own cache device.
# Before the check, a and b were accepted (a counted 256 checksum errors
# on p and marked it degraded).
# Devices: brd /dev/ram0 (origin under "o"), ram1 (p's cache device),
# ram2, ram3, ram4 (other origins and caches), 32 MiB.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 5 32
dd if=/dev/urandom of=/dev/ram0 bs=1M count=8 oflag=direct status=none
dm_create o "0 16384 linear /dev/ram0 0"
add_cleanup eval "dmsetup remove p2 2>/dev/null; umount $L2ARC_TEST_OUT/mnt 2>/dev/null; true"
dm_create p "0 16384 l2arc /dev/mapper/o /dev/ram1 8 6 arc_max 4194304 l2arc_feed_secs 3600 l2arc_noprefetch 0"
warm_by_feeds p 8
pname=$(dm_kname p)

refused() {	# refused STEP MESSAGE NAME TABLE: dmsetup create NAME fails, MESSAGE logged
	local mark
	mark=$(kmark)
	if dmsetup create "$3" --table "$4" 2>"$L2ARC_TEST_OUT/err"; then
		dmsetup remove "$3"
		die "$1: the table was accepted: $4"
	fi
	klog_since "$mark" | grep -F "$2" ||
		die "$1: no kernel log line '$2': $(klog_since "$mark" | tail -3)"
	! dmsetup info "$3" >/dev/null 2>&1 || dmsetup remove "$3"
}

# ---- a. a second table on p's cache device
dd if=/dev/urandom of=/dev/ram2 bs=1M count=8 oflag=direct status=none
refused a "Cache device is in use by $pname" p2 \
	"0 16384 l2arc /dev/ram2 /dev/ram1 8"
dd if=/dev/mapper/p of=/dev/null bs=1M iflag=direct status=none
dmsetup status p | grep -qw ok || die "a: p is not ok: $(dmsetup status p)"
expect_rows "$(proc_of p)" l2_cksum_bad=0 l2_io_error=0
cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M count=8 iflag=direct status=none) ||
	die "a: p differs from its origin"

# ---- b. an origin that another dm device holds
dm_create x "0 16384 linear /dev/ram2 0"
refused b "Origin device is in use by $(dm_kname x)" p2 \
	"0 16384 l2arc /dev/ram2 /dev/ram3 8"
dm_remove x

# ---- c. a cache device another dm device holds; p's origin as a cache
dm_create lv "0 16384 linear /dev/ram3 0"
refused c1 "Cache device is in use by $(dm_kname lv)" p2 \
	"0 16384 l2arc /dev/ram2 /dev/ram3 8"
dm_remove lv
refused c2 "Cache device is in use by $pname" p2 \
	"0 16384 l2arc /dev/ram2 /dev/mapper/o 8"

# ---- d. mounted devices
mkfs.ext4 -q -F /dev/ram3
mkdir -p "$L2ARC_TEST_OUT/mnt"
mount /dev/ram3 "$L2ARC_TEST_OUT/mnt"
refused d1 "Origin device is in use (mounted, or held exclusively)" p2 \
	"0 16384 l2arc /dev/ram3 /dev/ram2 8"
refused d2 "Cache device is in use (mounted, or held exclusively)" p2 \
	"0 16384 l2arc /dev/ram2 /dev/ram3 8"
umount "$L2ARC_TEST_OUT/mnt"

# ---- e. two targets of one table
refused e1 "Cache device is used by another target of this table" p2 \
	"0 8192 l2arc /dev/ram2 /dev/ram3 8
8192 8192 l2arc /dev/ram4 /dev/ram3 8"
refused e2 "Origin device is used by another target of this table" p2 \
	"0 8192 l2arc /dev/ram2 /dev/ram3 8
8192 8192 l2arc /dev/ram2 - 8"

# ---- f. what still works
dmsetup reload p --table "0 16384 l2arc /dev/mapper/o /dev/ram1 8 6 arc_max 4194304 l2arc_feed_secs 3600 l2arc_noprefetch 0"
dmsetup resume p
dmsetup status p | grep -qw ok || die "f: p is not ok after a reload: $(dmsetup status p)"
cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M count=8 iflag=direct status=none) ||
	die "f: p differs from its origin after the reload"
dm_create p2 "0 8192 l2arc /dev/ram2 /dev/ram3 8
8192 8192 l2arc /dev/ram4 - 8"
cmp <(dd if=/dev/mapper/p2 bs=1M count=4 iflag=direct status=none) \
	<(dd if=/dev/ram2 bs=1M count=4 iflag=direct status=none) ||
	die "f: p2 differs from its origin"
echo "in use ok"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 00-smoke.sh - proves the VM harness, without dm-l2arc: a dm-linear device
# over a brd RAM disk (brd emulates a fast, ideal SSD/RAM device), a short
# fio write+verify job on it, then removal.
# timeout: 120
set -euo pipefail
. "$(dirname "$0")/lib.sh"

modprobe dm_mod
mk_brd 1 64
size=$(sectors /dev/ram0)
assert_eq "brd size" $((64 * 2048)) "$size"

dm_create l2arc-smoke "0 $size linear /dev/ram0 0"
[[ -b /dev/mapper/l2arc-smoke ]] || die "/dev/mapper/l2arc-smoke missing"
assert_eq "dm-linear size" "$size" "$(sectors /dev/mapper/l2arc-smoke)"
assert_eq "table" "0 $size linear 1:0 0" "$(dmsetup table l2arc-smoke)"

fio --name=smoke --filename=/dev/mapper/l2arc-smoke --ioengine=libaio \
	--direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=32M \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 \
	--output="$L2ARC_TEST_OUT/fio.txt" ||
	{ cat "$L2ARC_TEST_OUT/fio.txt" >&2; die "fio verify failed"; }
grep -E 'IOPS=|err=' "$L2ARC_TEST_OUT/fio.txt"

dm_remove l2arc-smoke
[[ ! -e /dev/mapper/l2arc-smoke ]] || die "/dev/mapper/l2arc-smoke still there after remove"
echo "smoke OK"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# debug-check: skip table lifecycles: 70-fuzz reloads, suspends and resumes here
#
# Life cycle of an l2arc device: create -> fio write+verify (random 4 KiB
# and 1 MiB, crc32c) -> suspend -> resume -> reload with the same table ->
# read-verify -> remove; rmmod fails while a device exists and succeeds
# after.  Devices: brd RAM disks stand in for the origin (/dev/ram0, 256
# MiB) and the cache device (/dev/ram1, 64 MiB).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 256
O=/dev/ram0 C=/dev/ram1
sz=$(blockdev --getsz $O)
table="0 $sz l2arc $O $C 8 4 arc_max 8388608 prefetch_disable 0"
dm_create l2t "$table"
dev=/dev/mapper/l2t

fio_job() {	# fio_job NAME RW BS [extra fio options]
	local name=$1 rw=$2 bs=$3
	shift 3
	fio --name="$name" --filename=$dev --rw="$rw" --bs="$bs" --direct=1 \
		--ioengine=libaio --iodepth=8 --size=96M --offset=0 \
		--verify=crc32c --verify_fatal=1 --randseed=42 \
		--output-format=terse --terse-version=3 "$@" >/dev/null ||
		die "fio $name failed"
}

# write with verification (random 4 KiB over the first 96 MiB; 1 MiB
# sequential over the next region)
fio_job w4k randwrite 4k
fio --name=w1m --filename=$dev --rw=write --bs=1M --direct=1 --size=96M \
	--offset=128M --verify=crc32c --verify_fatal=1 >/dev/null || die "fio w1m"

dmsetup suspend l2t
dmsetup info l2t | grep -q '^State: *SUSPENDED' || die "not suspended"
dmsetup resume l2t
dmsetup load l2t --table "$table"
dmsetup suspend l2t
dmsetup resume l2t
assert_eq "table after reload" "0 $sz l2arc 1:0 1:1 8 4 arc_max 8388608 prefetch_disable 0" \
	"$(dmsetup table l2t)"

# read back and verify what was written before the reload
fio --name=r4k --filename=$dev --rw=randread --bs=4k --direct=1 --size=96M \
	--verify=crc32c --verify_only --verify_fatal=1 --randseed=42 \
	>/dev/null || die "read-verify 4k"
fio --name=r1m --filename=$dev --rw=read --bs=1M --direct=1 --size=96M \
	--offset=128M --verify=crc32c --verify_only --verify_fatal=1 \
	>/dev/null || die "read-verify 1m"
cmp <(dd if=$dev bs=1M count=256 iflag=direct status=none) \
	<(dd if=$O bs=1M count=256 iflag=direct status=none) ||
	die "device differs from origin"

if rmmod dm_l2arc 2>/dev/null; then
	die "rmmod succeeded while a device exists"
fi
dm_remove l2t
rmmod dm_l2arc || die "rmmod failed after remove"
echo "life cycle ok"

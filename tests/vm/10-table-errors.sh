#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# debug-check: skip the ctr's refusals: 70-fuzz loads 1,000 lines, valid and not, on this kernel
#
# Every malformed l2arc table line fails the ctr with its own ti->error
# (read back from the kernel log) and leaves the device list unchanged.
# Devices: brd RAM disks stand in for the origin (/dev/ram0) and the cache
# device (/dev/ram1); a 15-block dm-linear over /dev/ram2 is a cache device
# below the 16-block minimum; l2t_good itself is the device named by the
# lines that reload it over itself.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 3 64
O=/dev/ram0 C=/dev/ram1
osz=$(blockdev --getsz $O)
dm_create l2t_small "0 120 linear /dev/ram2 0"
before=$(dmsetup ls | sort)
n=0

L="0 $osz l2arc"
expect_error "Not enough arguments: need <origin> <cache|-> <block_size>" "$L"
expect_error "Not enough arguments: need <origin> <cache|-> <block_size>" "$L $O $C"
expect_error "Origin device lookup failed" "$L /dev/nonexistent $C 8"
expect_error "Cache device lookup failed" "$L $O /dev/nonexistent 8"
expect_error "Origin and cache device are the same" "$L $O $O 8"
expect_error "Origin and cache device are the same" "$L $O 1:0 8"	# ram0 is 1:0
expect_error "Block size is not a number" "$L $O $C x8"
expect_error "Block size is not a number" "$L $O $C 8k"
expect_error "Block size overflows" "$L $O $C 99999999999999999999"
expect_error "Block size is not a power of two" "$L $O $C 12"
expect_error "Block size out of range (8 to 2048 sectors)" "$L $O $C 4"
expect_error "Block size out of range (8 to 2048 sectors)" "$L $O $C 4096"
expect_error "Cache device is smaller than 16 blocks" "$L $O /dev/mapper/l2t_small 8"
expect_error "Feature count is not a number" "$L $O $C 8 two arc_max 65536"
expect_error "Feature count overflows" "$L $O $C 8 4294967298 arc_max 65536"
expect_error "Not enough feature arguments" "$L $O $C 8 4 arc_max 65536"
expect_error "Too many arguments" "$L $O $C 8 2 arc_max 65536 extra"
expect_error "Features must be key/value pairs" "$L $O $C 8 1 arc_max"
expect_error "Unknown feature" "$L $O $C 8 2 colour blue"
expect_error "arc_max is not a number" "$L $O $C 8 2 arc_max 64k"
expect_error "arc_max overflows" "$L $O $C 8 2 arc_max 18446744073709551616"
expect_error "arc_max is below 16 blocks" "$L $O $C 8 2 arc_max 65535"
expect_error "arc_max exceeds the machine's memory" "$L $O $C 8 2 arc_max 18446744073709551615"
expect_error "prefetch_disable must be 0 or 1" "$L $O $C 8 2 prefetch_disable 2"
expect_error "Duplicate feature arc_max" "$L $O $C 8 4 arc_max 65536 arc_max 65536"
expect_error "Length exceeds the origin device" "0 $((osz + 8)) l2arc $O $C 8"
expect_error "Length is not a multiple of the block size" "0 $((osz - 4)) l2arc $O $C 8"

# and a good line still works after all that
dm_create l2t_good "$L $O $C 8 2 arc_max 1048576"
assert_eq "table echo" "0 $osz l2arc 1:0 1:1 8 2 arc_max 1048576" \
	"$(dmsetup table l2t_good)"

# A reload that names the device itself (found by the fuzzer, issue 10):
# once live, every bio would be sent back to the device, for ever.  6.1
# opens the device for the table, and the ctr refuses it; 6.12's
# dm_get_device() already fails to open it ("... lookup failed").
self=$(dmsetup info -c --noheadings -o major,minor l2t_good | tr -d ' ')
for t in "$L /dev/mapper/l2t_good $C 8" "$L $self - 8" "$L $O /dev/mapper/l2t_good 8" "$L $O $self 8"; do
	what=Origin
	[[ $t == "$L $O "* ]] && what=Cache
	exp="$what device is this device"
	if dmsetup load l2t_good --table "$t" >/dev/null 2>&1; then
		dmsetup clear l2t_good
		die "a reload of l2t_good over itself was accepted: '$t'"
	fi
	got=$(ctr_error)
	case $L2ARC_KVER in
	6.1.*) assert_eq "'$t'" "$exp" "$got" ;;
	*) [[ $got == "$exp" || $got == "$what device lookup failed" ]] ||
		die "'$t': expected '$exp' or '$what device lookup failed', got '$got'" ;;
	esac
	n=$((n + 1))
done
echo "$n malformed lines refused, each with its own message"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 240
# debug-check: skip prefetch accounting, checked on both Debian kernels
#
# zfetch read-ahead and the module parameters.
#
# An 8 MiB device (2048 blocks of 4 KiB) read sequentially once with
# O_DIRECT 4 KiB reads (dd, one read at a time):
#  - prefetch on: block 0 misses and starts a stream; block 1 misses and
#    confirms it, which prefetches 2..3; every later demand read finds its
#    block prefetched (resident or in flight) and extends the read-ahead
#    (distance doubling up to zfetch_max_distance, never past the end of
#    the device).  So exactly: demand_data_misses 2, predictive_prefetch
#    2046 (= prefetch_data_misses), demand_hit_predictive_prefetch 2046,
#    demand_data_hits + demand_data_iohits 2046.
#  - table feature prefetch_disable 1: predictive_prefetch 0,
#    demand_data_misses 2048, hits 0.
#  - module parameter prefetch_disable=1 (table says 0): the same.
# Then bad writes to the parameters are refused and keep the old value;
# good values are taken.
# Devices: brd RAM disk /dev/ram0 (16 MiB; the table maps its first 8 MiB)
# emulates a fast SSD origin; no cache device.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 1 16
O=/dev/ram0
P=/sys/module/dm_l2arc/parameters
len=16384	# 8 MiB
nblk=2048
dd if=/dev/urandom of=$O bs=1M count=8 oflag=direct status=none

pd0=$(cat $P/prefetch_disable)
add_cleanup eval "echo $pd0 >$P/prefetch_disable"
assert_eq "prefetch_disable default" 0 "$pd0"

run_seq() {	# run_seq TABLE_PREFETCH_DISABLE: fresh device, one sequential pass
	dm_create l2p "0 $len l2arc $O - 8 4 arc_max 67108864 prefetch_disable $1"
	proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2p | tr -d ' ')/arcstats
	dmsetup message l2p 0 clear_stats
	t0=$EPOCHREALTIME
	cmp <(dd if=/dev/mapper/l2p bs=4k iflag=direct status=none) \
		<(dd if=$O bs=4k count=$nblk iflag=direct status=none) ||
		die "device differs from origin"
	# read-aheads have no waiter: let them land before reading counters
	dmsetup suspend l2p
	dmsetup resume l2p
}
st() { arcstats_row "$proc" "$1"; }
show() {
	local r out=""
	for r in hits iohits misses demand_data_hits demand_data_iohits demand_data_misses \
		prefetch_data_hits prefetch_data_misses predictive_prefetch \
		demand_hit_predictive_prefetch memory_throttle_count mru_blocks mfu_blocks; do
		out+=" $r=$(st $r)"
	done
	echo "$1:$out"
}
expect() { expect_rows "$proc" "$@"; }

# ---- prefetch on
run_seq 0
show "prefetch on"
# a read-around for want of memory would break the exact figures
expect memory_throttle_count=0
expect demand_data_misses=2 predictive_prefetch=$((nblk - 2)) \
	prefetch_data_misses=$((nblk - 2)) demand_hit_predictive_prefetch=$((nblk - 2)) \
	misses=$nblk mru_blocks=$nblk
assert_eq "demand hits + iohits" $((nblk - 2)) $(($(st demand_data_hits) + $(st demand_data_iohits)))
dm_remove l2p

# ---- table feature prefetch_disable 1
run_seq 1
show "table prefetch_disable 1"
expect predictive_prefetch=0 demand_data_misses=$nblk misses=$nblk hits=0 iohits=0 \
	demand_hit_predictive_prefetch=0
dm_remove l2p

# ---- module parameter prefetch_disable 1, table 0
echo 1 >$P/prefetch_disable
run_seq 0
show "module prefetch_disable 1"
expect predictive_prefetch=0 demand_data_misses=$nblk misses=$nblk hits=0 iohits=0
assert_eq "status shows prefetch_disable 1" 1 \
	"$(dmsetup status l2p | sed -E 's/.* prefetch_disable ([0-9]+) .*/\1/')"
dm_remove l2p
echo 0 >$P/prefetch_disable

# ---- parameter writes
refuse() {	# refuse PARAM VALUE: the write fails and the value stays
	local f=$P/$1 old
	old=$(cat "$f")
	if (printf '%s\n' "$2" >"$f") 2>/dev/null; then
		die "$1: write of '$2' was accepted (now $(cat "$f"))"
	fi
	assert_eq "$1 after refused '$2'" "$old" "$(cat "$f")"
}
take() {	# take PARAM VALUE
	printf '%s\n' "$2" >"$P/$1" || die "$1: write of '$2' refused"
	assert_eq "$1 after '$2'" "$2" "$(cat "$P/$1")"
}
mem=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))
for p in prefetch_disable zfetch_max_distance arc_max arc_min; do
	old=$(cat $P/$p)
	for v in -1 2 12abc '' 18446744073709551616 18446744073709551615 ' 1' 0x10 '+5' 1e3; do
		refuse $p "$v"
	done
	case $p in
	prefetch_disable) take $p 1; take $p 0 ;;
	zfetch_max_distance)
		refuse $p 4095; refuse $p 1073741825
		take $p 4096; take $p 1073741824; take $p 1048576 ;;
	arc_max|arc_min)
		refuse $p 65535; refuse $p $((mem + 4096))
		take $p 65536; take $p 33554432 ;;
	esac
	take $p "$old"
done
# echo without a newline, and with one
printf 1 >$P/prefetch_disable || die "prefetch_disable: '1' without newline refused"
assert_eq "prefetch_disable" 1 "$(cat $P/prefetch_disable)"
echo 0 >$P/prefetch_disable
echo "parameters ok: $(grep . $P/* | tr '\n' ' ')"
echo "prefetch ok"

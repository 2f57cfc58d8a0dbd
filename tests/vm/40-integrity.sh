#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
# debug-check: skip make check's time: the ARC-only bio paths, which 53-l2-integrity, 61-bsrange and 71-fault-injection also take here (117 s on this kernel with one other VM beside it; tests/run -k debug runs it)
#
# Data integrity under eviction and read/write races.  The ARC (arc_max
# 1 MiB = 256 blocks of 4 KiB) is much smaller than the 64 MiB written, so
# eviction runs all the time.
#  1. fio, crc32c verify: four writer jobs on disjoint 16 MiB regions (4 KiB
#     random O_DIRECT, 1 MiB sequential O_DIRECT, 4 KiB random buffered,
#     1 MiB random buffered) while three reader jobs (O_DIRECT 4 KiB,
#     O_DIRECT 1 MiB, buffered) read the whole 64 MiB, overlapping the
#     writers' blocks; then every region is verified again with O_DIRECT.
#  2. readers and writers on the SAME 64 blocks (256 KiB): two writers
#     (verify_backlog: each write is read back soon after, through the ARC)
#     and three readers that keep filling the ARC with those blocks; a
#     stale fill installed after a write would fail a verify.
#  3. the device reads byte-identical to the origin read directly.
# Zero verify errors; write_invalidates > 0 shows the races happened.
# Devices: brd RAM disk /dev/ram0 (64 MiB) emulates a fast SSD origin; no
# cache device.
. "$(dirname "$0")/lib.sh"

load_module
# Read-ahead stays on (prefetch fills race with writes too), but no
# further than 64 blocks: the default 8 MiB read-ahead is 8 times the ARC
# and evicts itself, which only costs time here.
P=/sys/module/dm_l2arc/parameters
zd0=$(cat $P/zfetch_max_distance)
add_cleanup eval "echo $zd0 >$P/zfetch_max_distance"
echo 262144 >$P/zfetch_max_distance
mk_brd 1 64
O=/dev/ram0
sz=$(sectors $O)
dm_create l2i "0 $sz l2arc $O - 8 4 arc_max 1048576 prefetch_disable 0"
dev=/dev/mapper/l2i
proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2i | tr -d ' ')/arcstats
st() { arcstats_row "$proc" "$1"; }

jobfile() {	# jobfile VERIFY_ONLY(0|1): phase 1's job file
	local vo=$1 bdir=0
	((vo)) && bdir=1	# verify the buffered writers' regions with O_DIRECT
	cat <<-EOF
	[global]
	filename=$dev
	ioengine=libaio
	iodepth=8
	randrepeat=1
	verify=crc32c
	verify_fatal=1
	verify_dump=0
	group_reporting=0

	[w4k-direct]
	rw=randwrite
	bs=4k
	direct=1
	offset=0
	size=16M
	randseed=11

	[w1m-direct]
	rw=write
	bs=1M
	direct=1
	offset=16M
	size=16M

	[w4k-buffered]
	rw=randwrite
	bs=4k
	direct=$bdir
	ioengine=psync
	offset=32M
	size=16M
	randseed=13
	end_fsync=1

	[w1m-buffered]
	rw=randwrite
	bs=1M
	direct=$bdir
	ioengine=psync
	offset=48M
	size=16M
	randseed=14
	end_fsync=1
	EOF
	((vo)) && return 0
	cat <<-EOF

	[r4k-direct]
	rw=randread
	verify=0
	bs=4k
	direct=1
	offset=0
	size=64M
	io_size=16M
	randseed=21

	[r1m-direct]
	rw=randread
	verify=0
	bs=1M
	direct=1
	offset=0
	size=64M
	io_size=32M
	randseed=22

	[r-buffered]
	rw=randread
	verify=0
	bs=64k
	direct=0
	ioengine=psync
	offset=0
	size=64M
	io_size=32M
	randseed=23
	EOF
}

jobfile 0 >phase1.fio
jobfile 1 >verify1.fio
t0=$SECONDS
fio --output=phase1.out phase1.fio || { cat phase1.out; die "fio phase 1 failed"; }
echo "phase 1 (writers + readers): $((SECONDS - t0)) s"
t0=$SECONDS
fio --verify_only --output=verify1.out verify1.fio ||
	{ cat verify1.out; die "fio verify of phase 1 failed"; }
echo "phase 1 O_DIRECT verify: $((SECONDS - t0)) s"
grep -i 'verify.*fail\|bad magic\|crc32c' phase1.out verify1.out && die "verify errors reported"
echo "after phase 1: hits $(st hits) misses $(st misses) writes $(st writes) write_invalidates $(st write_invalidates) fills_discarded $(st fills_discarded) size $(st data_size)"
[[ $(st data_size) -le 1048576 ]] || die "ARC holds more than arc_max: $(st data_size)"
wi1=$(st write_invalidates)

# ---- phase 2: the same 64 blocks, concurrently
cat >phase2.fio <<-EOF
[global]
filename=$dev
ioengine=libaio
iodepth=4
randrepeat=1
verify_fatal=1

[writer-a]
rw=randwrite
bs=4k
direct=1
offset=0
size=128k
loops=40
verify=crc32c
verify_backlog=8
randseed=31

[writer-b]
rw=randwrite
bs=4k
direct=1
offset=128k
size=128k
loops=40
verify=crc32c
verify_backlog=8
randseed=32

[reader-4k]
rw=randread
bs=4k
direct=1
offset=0
size=256k
loops=150
randseed=41

[reader-8k]
rw=randread
bs=8k
direct=1
offset=0
size=256k
loops=150
randseed=42

[reader-buffered]
rw=randread
bs=4k
direct=0
ioengine=psync
invalidate=1
offset=0
size=256k
loops=150
randseed=43
EOF
dmsetup message l2i 0 clear_stats
t0=$SECONDS
fio --output=phase2.out phase2.fio || { cat phase2.out; die "fio phase 2 failed"; }
echo "phase 2 (same 64 blocks): $((SECONDS - t0)) s"
echo "phase 2: hits $(st hits) iohits $(st iohits) misses $(st misses) writes $(st writes) write_invalidates $(st write_invalidates) fills_discarded $(st fills_discarded)"
wi2=$(st write_invalidates)
((wi1 > 0)) || die "phase 1: write_invalidates is 0: no write met a cached block"
((wi2 > 0)) || die "phase 2: write_invalidates is 0: no write met a cached block"
# writer-a/b write 2 x 32 blocks x 40 loops
assert_eq "phase 2 writes" 2560 "$(st writes)"

# ---- phase 3: device == origin
cmp <(dd if=$dev bs=1M iflag=direct status=none) <(dd if=$O bs=1M iflag=direct status=none) ||
	die "device differs from origin"
echo "integrity ok"

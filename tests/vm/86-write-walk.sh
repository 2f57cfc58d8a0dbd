#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
# vm-cpus: 2 (the reader on CPU 1, the discard on CPU 0)
#
# Never stale: a write larger than the ARC's directory drops its blocks'
# copies by walking the lists, and lets other I/O in every 4,096 headers;
# meanwhile a reader's hits are applied (from the log of hits taken
# without the lock, or by a read of a block outside the write), and one
# of them may move the header the walk pinned to its list's MRU end.
# The walk must not go on from there: it would pass the headers in
# between and leave them cached with the data before the write.
#  - origin: a memory-backed null_blk of 64 MiB with discard (a discarded
#    sector reads as zeroes), filled with 0xff;
#  - an ARC-only l2arc device over it, 4 KiB blocks, arc_max 56 MiB, no
#    read-ahead; blocks 0..12287 read twice (all 12,288 in T2, in order);
#  - a reader on CPU 1 reads blocks 4096..12287 one at a time, in order,
#    round and round, so that the block the walk pins after its first
#    4,096 headers (the least recently read of the reader's) is the next
#    one the reader reads;
#  - a discard of the whole device (16,384 blocks, more than the 12,288
#    headers: the walk) on CPU 0, then the reader stops.
# Every block must then read as zeroes (the blocks cached after the
# discard, the reader's misses until it stopped, are printed).  Three
# rounds.
. "$(dirname "$0")/lib.sh"

(($(nproc) >= 2)) || skip "needs 2 CPUs"
load_module

mk_nullb ww0 size=64 memory_backed=1 discard=1
nb=$NULLB_DEV
len=$(sectors "$nb")
ones=$L2ARC_TEST_OUT/ones
head -c $((64 << 20)) /dev/zero | tr '\0' '\377' >"$ones"

nonzero_blocks() {	# blocks of $1 (64 MiB) that do not read as zeroes
	python3 - "$1" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 1 << 20)
zero = bytes(4096)
bad = 0
for mb in range(64):
    os.preadv(fd, [buf], mb << 20)
    for i in range(256):
        if buf[i * 4096:(i + 1) * 4096] != zero:
            bad += 1
print(bad)
PY
}

for round in 1 2 3; do
	dd if="$ones" of="$nb" bs=1M oflag=direct status=none
	dm_create ww "0 $len l2arc $nb - 8 4 arc_max $((56 << 20)) prefetch_disable 1"
	dev=/dev/mapper/ww
	proc=$(proc_of ww)
	for pass in 1 2; do
		dd if=$dev of=/dev/null bs=1M count=48 iflag=direct status=none
	done
	assert_eq "round $round: blocks in T2 after two passes" 12288 \
		"$(arcstats_row "$proc" mfu_blocks)"
	taskset -c 1 fio --name=seq --filename=$dev --rw=read --bs=4k \
		--direct=1 --ioengine=psync --offset=$((4096 * 4096)) \
		--size=$((8192 * 4096)) --time_based --runtime=120 \
		>/dev/null 2>&1 &
	fpid=$!
	sleep 2
	taskset -c 0 blkdiscard -f $dev
	kill $fpid
	wait $fpid 2>/dev/null || true
	cached=$(($(arcstats_row "$proc" mru_blocks) + $(arcstats_row "$proc" mfu_blocks)))
	bad=0
	# cmp first (fast); count the blocks only when it finds a difference
	dd if=$dev bs=1M iflag=direct status=none |
		cmp -s -n $((64 << 20)) - /dev/zero || bad=$(nonzero_blocks $dev)
	echo "round $round: $cached blocks cached after the discard, $bad blocks not zero"
	assert_eq "round $round: blocks that do not read as zeroes" 0 "$bad"
	dm_remove ww
done
echo "ok"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
# vm-cpus: 2 (the hold takes CPU 1 with a SCHED_FIFO loop)
# debug-check: skip a choreography of holds and deadlines (SCHED_FIFO, held completions) tuned to Debian's kernels: a timing test
#
# Never stale: a read issued after a write completed returns the written
# data (issue 9, section 1), with the read that overlapped the write held
# deterministically:
#  - origin "sro" = dm-delay, reads not delayed, writes delayed 3 s, over
#    a memory-backed null_blk whose completions come 3 s after the data is
#    transferred (irqmode 2: 3 s, so that a loaded host still starts the
#    next actor in time): a read sees the data at once but completes
#    later;
#  - an ARC-only l2arc device over it, 4 KiB blocks; block 100 holds "A".
#  tests/vm/stale_read.py then (one process forking its actors, so that
#  nothing waits for a command to start):
#  1. writes "B" to block 100 (CPU 0); while the write waits in dm-delay,
#     reads block 100 on CPU 1 (reader 2: it overlaps the write and may
#     see "A"); when that read is in flight at the null_blk, CPU 1 is
#     taken by a SCHED_FIFO busy loop (RT throttling and 6.12's fair
#     server off), so that nothing reader 2 started can go on in process
#     context on CPU 1 (a fill's completion, from the null_blk timer's
#     interrupt, goes to the device's unbound workqueue and may run on
#     CPU 0 at once: a fill that overlapped the write would then be
#     installed before reader 3 reads, and reader 3 would read it);
#  2. when the write has completed, reads block 100 on CPU 0 (reader 3),
#     waits until it completed or joined something in flight, releases
#     CPU 1: reader 3 must return "B".
#  Run twice: with read-ahead off (reader 2 reads block 100 itself) and
#  with read-ahead on (reader 2 reads block 99 after block 98, so that
#  block 100 is read ahead while the write is in flight).
#  Exact counters: the overlapping read (or read-ahead) goes around the
#  ARC (reads_around_writes 1), no iohit.
. "$(dirname "$0")/lib.sh"

(($(nproc) >= 2)) || skip "needs 2 CPUs"
load_module

rt=/proc/sys/kernel/sched_rt_runtime_us
add_cleanup eval "echo $(cat $rt) >$rt"
echo -1 >$rt
fs=/sys/kernel/debug/sched/fair_server/cpu1/runtime
[[ -f $fs ]] && add_cleanup eval "echo $(cat $fs) >$fs"	# stale_read.py sets it
[[ -f /proc/sys/kernel/timer_migration ]] && echo 0 >/proc/sys/kernel/timer_migration

mk_nullb sro0 size=8 memory_backed=1 irqmode=2 completion_nsec=3000000000 \
	submit_queues=2 no_sched=1
nb=$NULLB_DEV
len=$(sectors "$nb")
A=$L2ARC_TEST_OUT/A B=$L2ARC_TEST_OUT/B
head -c 4096 /dev/zero | tr '\0' A >"$A"
head -c 4096 /dev/zero | tr '\0' B >"$B"
# "A" everywhere, in one write (every request completes after 3 s)
head -c 1048576 /dev/zero | tr '\0' A >"$L2ARC_TEST_OUT/A1M"
dd if="$L2ARC_TEST_OUT/A1M" of="$nb" bs=1M count=1 oflag=direct status=none
dm_create sro "0 $len delay $nb 0 0 $nb 0 3000"
hex() { head -c 8 "$1" | od -An -tx1 | tr -d ' \n'; }

one_round() {	# one_round NAME PREFETCH_DISABLE
	local name=$1 pd=$2 dev proc r out snapf
	dm_create "st$name" "0 $len l2arc /dev/mapper/sro - 8 4 arc_max 1048576 prefetch_disable $pd"
	dev=/dev/mapper/st$name
	proc=$(proc_of "st$name")
	r=100
	if ((!pd)); then	# a sequential stream: block 98 now, 99 later
		dd if=$dev of=/dev/null bs=4k skip=98 count=1 iflag=direct status=none
		r=99
	fi
	out=$(python3 "$L2ARC_TOP/tests/vm/stale_read.py" $dev 100 $r "$proc" "$nb" "$B") ||
		die "$name: $out"
	echo "$out"
	snapf=$(snap "$proc")
	for r in hits iohits misses reads_around_writes fills_discarded predictive_prefetch; do
		printf ' %s=%s' "$r" "$(arcstats_row "$snapf" $r)"
	done
	echo
	grep -q "^reader3 $(hex "$B")\$" <<<"$out" ||
		die "$name: reader 3, issued after the write completed, returned the old data"
	expect_rows "$snapf" iohits=0 reads_around_writes=1
	# block 100 again: "B" (from the ARC now)
	cmp <(dd if=$dev bs=4k skip=100 count=1 iflag=direct status=none) "$B" ||
		die "$name: block 100 is not B"
	dm_remove "st$name"
}
one_round demand 1
one_round readahead 0
echo "stale-read ok"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 400
# debug-timeout-factor: 6
# vm-cpus: 2 (readers that meet on one fill from two CPUs)
#
# Reads that wait for another read's fill (iohits) get their data when
# that fill's run is finished on the device's workqueue: completions in
# hard interrupt context (null_blk irqmode=2, as a disk's or an NVMe's),
# L2 copies that fail their checksums and are read again from the origin,
# and reloads under I/O.  Over brd, whose reads complete in the submitter,
# a read rarely finds a fill in flight.
# Devices: origin = memory-backed null_blk (48 MiB of random data,
# completions from a timer after 300 us, 16 in flight); cache device =
# memory-backed null_blk (32 MiB: 34 metadata blocks, then slot s at 4 KiB
# block 34 + s; 30 us).  4 KiB blocks, l2arc_max_errors 1000000, module
# parameter l2arc_rebuild_blocks_min_l2size 0.
#  1. arc_max 32 MiB, so that no block leaves the ARC (a fill evicted
#     in flight would read its copy again).  24 MiB warmed onto L2 by
#     message (6,144 blocks, feeds by message only, no read-ahead), the
#     device removed, the data of every slot
#     overwritten (random), the device created again: 6,144 copies
#     rebuilt, all of them bad.  Four readers (dd, 16 KiB, O_DIRECT) read
#     the same 24 MiB at once: each gets the origin's data; every copy is
#     read once and fails (l2_hits 6144, l2_cksum_bad 6144, l2_io_error 0,
#     status "ok", and l2_size is only what feeds wrote since:
#     l2_write_bytes, the resume's feed may run meanwhile); every L2 run
#     finished on the workqueue twice, once for its own completion and
#     once for the origin's re-read (runs_deferred = 2 x l2_read_runs);
#     the readers met on fills (iohits > 0).
#  2. 30 s of everything at once, arc_max 4 MiB (fills evicted in
#     flight too), feeds every 10 ms and read-ahead on:
#     four random readers (4-256 KiB) and two sequential ones over
#     [8 MiB, 48 MiB), a writer with fio's verify over [0, 8 MiB),
#     random data written over random slots of the cache device every
#     50 ms, and a reload of the table every 4 s.  fio reports no error,
#     the device then reads as its origin, its arcstats rows hold their
#     invariants, and its verify message passes.
. "$(dirname "$0")/lib.sh"

(($(nproc) >= 2)) || skip "needs 2 CPUs"
load_module
persist_any_size
mk_nullb fwo size=64 memory_backed=1 blocksize=4096 irqmode=2 \
	completion_nsec=300000 hw_queue_depth=16
origin=$NULLB_DEV
mk_nullb fwc size=32 memory_backed=1 blocksize=4096 irqmode=2 \
	completion_nsec=30000 hw_queue_depth=64
cache=$NULLB_DEV
dev_mib=48 set_mib=24 blocks=6144 meta=34
dd if=/dev/urandom of="$origin" bs=1M count=$dev_mib oflag=direct status=none
base="l2arc_write_max 8388608 l2arc_write_boost 8388608 l2arc_noprefetch 0 l2arc_max_errors 1000000"
table1="0 $((dev_mib << 11)) l2arc $origin $cache 8 14 arc_max 33554432 $base prefetch_disable 1 l2arc_feed_secs 3600"
table2="0 $((dev_mib << 11)) l2arc $origin $cache 8 16 arc_max 4194304 $base l2arc_feed_secs 1 l2arc_feed_min_ms 10 l2arc_feed_again 1"
st() { arcstats_row "$(proc_of p)" "$1"; }
row() { arcstats_row "$f" "$1"; }	# a row of the snapshot $f
health() { dmsetup status p | awk '{ print $NF }'; }
same_as_origin() {	# same_as_origin FILE MiB WHAT
	cmp "$1" <(dd if="$origin" bs=1M count="$2" iflag=direct status=none) ||
		die "$3 differs from the origin"
}
add_cleanup eval "dmsetup remove p 2>/dev/null; true"

# ---- 1. readers meet on fills of bad rebuilt copies
dmsetup create p --table "$table1"
l2_rebuilt p
expect_rows "$(proc_of p)" l2_log_blk_asize=$((meta * 4096))
warm_by_feeds p $set_mib
assert_eq "l2_size after the warm pass" $((blocks * 4096)) "$(st l2_size)"
dm_remove p
dd if=/dev/urandom of="$cache" bs=4096 seek=$meta count=$blocks \
	oflag=direct status=none
dmsetup create p --table "$table1"
l2_rebuilt p
expect_rows "$(proc_of p)" l2_rebuild_bufs=$blocks
pids=()
for r in 1 2 3 4; do
	dd if=/dev/mapper/p of="$L2ARC_TEST_OUT/read$r" bs=16k \
		count=$((set_mib << 6)) iflag=direct status=none &
	pids+=($!)
done
add_cleanup eval "kill ${pids[*]} 2>/dev/null; wait; true"
for r in 1 2 3 4; do
	wait "${pids[r - 1]}" || die "1. reader $r failed"
	same_as_origin "$L2ARC_TEST_OUT/read$r" $set_mib "1. reader $r's data"
	rm -f "$L2ARC_TEST_OUT/read$r"
done
f=$(snap "$(proc_of p)")
echo "1. l2_hits $(row l2_hits) l2_cksum_bad $(row l2_cksum_bad)" \
	"iohits $(row iohits) l2_read_runs $(row l2_read_runs)" \
	"runs_deferred $(row runs_deferred) l2_size $(row l2_size)" \
	"l2_write_bytes $(row l2_write_bytes) health $(health)"
expect_rows "$f" l2_hits=$blocks l2_cksum_bad=$blocks l2_io_error=0 \
	l2_degraded=0 l2_size="$(row l2_write_bytes)" \
	runs_deferred=$((2 * $(row l2_read_runs)))
assert_eq "1. status health" ok "$(health)"
(($(row iohits) > 0)) ||
	die "1. the readers never met on a fill (iohits 0): the test did not test its path"
rm -f "$f"
dm_remove p

# ---- 2. everything at once
dmsetup create p --table "$table2"
secs=30
end=$((SECONDS + secs))
corrupter() {
	trap - EXIT
	local n
	while ((SECONDS < end)); do
		n=$((1 + RANDOM % 256))
		dd if=/dev/urandom of="$cache" bs=4096 \
			seek=$((meta + RANDOM % (8192 - meta - n + 1))) \
			count=$n oflag=direct status=none || return 1
		sleep 0.05
	done
}
reloader() {
	trap - EXIT
	while ((SECONDS < end - 5)); do
		sleep 4
		dmsetup reload p --table "$table2" || return 1
		dmsetup suspend p || return 1
		dmsetup resume p || return 1
	done
}
corrupter & cpid=$!
reloader & rpid=$!
add_cleanup eval "kill $cpid $rpid 2>/dev/null; pkill -x fio; wait; true"
fio --name=rand --filename=/dev/mapper/p --direct=1 --ioengine=libaio \
	--iodepth=8 --rw=randread --bsrange=4k-256k --numjobs=4 \
	--offset=8M --size=40M --time_based --runtime=$secs --norandommap \
	--randrepeat=0 --group_reporting --output="$L2ARC_TEST_OUT/rand.out" &
fpid=$!
fio --name=seq --filename=/dev/mapper/p --direct=1 --ioengine=libaio \
	--iodepth=4 --rw=read --bs=64k --numjobs=2 --offset=8M --size=40M \
	--time_based --runtime=$secs --group_reporting \
	--output="$L2ARC_TEST_OUT/seq.out" &
spid=$!
fio --name=write --filename=/dev/mapper/p --direct=1 --ioengine=libaio \
	--iodepth=4 --rw=randrw --bsrange=4k-64k --size=8M --verify=crc32c \
	--verify_backlog=64 --verify_state_save=0 --time_based \
	--runtime=$secs --randrepeat=0 --output="$L2ARC_TEST_OUT/write.out" ||
	die "2. the writer's verify failed (see write.out)"
wait $fpid || die "2. the random readers failed (see rand.out)"
wait $spid || die "2. the sequential readers failed (see seq.out)"
wait $cpid || die "2. the writes to the cache device failed"
wait $rpid || die "2. a reload failed"
same_as_origin <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
	$dev_mib "2. the device"
f=$(snap "$(proc_of p)")
check_rows "$f" $((8192 - meta)) 4096
dmsetup message p 0 verify || die "2. the verify message failed"
echo "2. since the last reload: iohits $(row iohits) l2_hits $(row l2_hits)" \
	"l2_cksum_bad $(row l2_cksum_bad) runs_deferred $(row runs_deferred)"
rm -f "$f"
dm_remove p

echo "fill waiters ok"

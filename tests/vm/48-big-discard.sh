#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
# vm-cpus: 2 (readers pinned to CPU 1, the discard to CPU 0)
# debug-check: skip bounds lock hold times with a 1 s soft-lockup watchdog: a timing test
#
# A discard of a whole large device never holds the device lock for long
# (issue 9, section 3): with the soft-lockup watchdog at 2 s
# (watchdog_thresh 1), a 64 GiB blkdiscard over 524,288 cached blocks (the
# ARC's headers, the rest L2-only in the slot table's index of 1 Mi slots,
# which the discard walks slot by slot) must not report a soft lockup,
# and must drop exactly every cached copy.  Meanwhile a reader on the
# other CPU keeps hitting the ARC of a second device (its longest wait is
# printed, not asserted).
# Devices: origin = a memory-backed null_blk of 64 GiB with discard (a
# huge sparse disk: unwritten sectors read as zeroes and take no memory);
# cache device = null_blk without memory backing, 4 GiB (a fast device
# whose data is not kept: nothing is read back from it).
# l2arc: 4 KiB blocks, arc_max 256 MiB, feeds by message with a 256 MiB
# budget, read-ahead off.
. "$(dirname "$0")/lib.sh"

load_module
wt=/proc/sys/kernel/watchdog_thresh
add_cleanup eval "echo $(cat $wt) >$wt"
echo 1 >$wt
nblocks=${L2ARC_BIG_DISCARD_BLOCKS:-524288}
mk_nullb bdc size=4096 memory_backed=0
cdev=$NULLB_DEV
mk_nullb bdo size=65536 memory_backed=1 discard=1
odev=$NULLB_DEV
dm_create bd "0 $((64 << 21)) l2arc $odev $cdev 8 10 arc_max 268435456 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 268435456 l2arc_noprefetch 0"
dev=/dev/mapper/bd
proc=$(proc_of bd)
st() { arcstats_row "$proc" "$1"; }
t0=$SECONDS
for ((b = 0; b < nblocks; b += 65536)); do
	dd if=$dev of=/dev/null bs=1M count=256 skip=$((b / 256)) iflag=direct status=none
	dmsetup message bd 0 l2arc_feed
done
echo "set up in $((SECONDS - t0)) s: l2_size $(st l2_size) hash_elements $(st hash_elements) l2_only_blocks $(st l2_only_blocks)"
assert_eq "l2_size" $((nblocks * 4096)) "$(st l2_size)"
res=$(($(st mru_blocks) + $(st mfu_blocks)))
hashed=$(st hash_elements) l2only=$(st l2_only_blocks)
((hashed + l2only >= nblocks)) || die "only $hashed headers and $l2only L2-only blocks"

# a second device whose ARC hits run on CPU 1 during the discard
mk_brd 1 16
dm_create bdh "0 32768 l2arc /dev/ram0 - 8 2 prefetch_disable 1"
dd if=/dev/mapper/bdh of=/dev/null bs=1M count=16 iflag=direct status=none
taskset -c 1 fio --name=hits --filename=/dev/mapper/bdh --rw=randread --bs=4k \
	--direct=1 --ioengine=psync --size=16M --time_based --runtime=600 \
	--lat_percentiles=1 --output-format=json --output=hits.json >/dev/null 2>&1 &
fpid=$!
add_cleanup eval "kill $fpid 2>/dev/null; wait $fpid 2>/dev/null || true"
sleep 2
k0=$(kmark)
t1=$EPOCHREALTIME
taskset -c 0 blkdiscard -f $dev
t2=$EPOCHREALTIME
kill -INT $fpid; wait $fpid || true
echo "blkdiscard of 64 GiB: $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }') s"
python3 -c 'import json; t = open("hits.json").read(); j = json.loads(t[t.index("{"):])["jobs"][0]["read"]; print("ARC hits on the other device meanwhile: %d, the longest %.1f ms" % (j["total_ios"], j["clat_ns"]["max"] / 1e6))' || true
klog=$(klog_since "$k0")
if grep -E 'soft lockup|rcu.*stall' <<<"$klog"; then
	die "the discard held a CPU (kernel log above)"
fi
expect_rows "$proc" l2_size=0 hash_elements=0 data_size=0 l2_only_blocks=0 \
	write_invalidates="$res" l2_write_invalidates="$((nblocks))"
echo "lock_hold_max_us $(st lock_hold_max_us)"
echo "big-discard ok"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 400
# debug-timeout-factor: 7
#
# Data integrity with the feed at full speed and a small cache device that
# the write hand laps again and again.
# Table features: arc_max 8 MiB, l2arc_feed_secs 1, l2arc_feed_min_ms 10,
# l2arc_feed_again 1, l2arc_write_max = l2arc_write_boost = 64 MiB (capped
# at a quarter of the cache device, 4 MiB: a feed can take half the ARC),
# l2arc_noprefetch 0, read-ahead on.  The cache device is 16 MiB (4096 slots), the device 48 MiB.
#  1. fio: 4 KiB random writes over 16 MiB with verify=crc32c and
#     verify_backlog (reads of what was just written, mixed with the
#     writes), two loops, while a background reader streams the whole
#     device (overlapping blocks: fills race with writes, feeds race with
#     both): zero verify errors.
#  2. background streaming until l2_laps >= 3 (the hand wrapped at least
#     three times), then a fio verify-only pass (reads, many served from
#     L2) and a full cmp of the device against the origin.
# Devices: origin = dm-delay (1 ms reads and writes) over brd /dev/ram0
# (48 MiB used); cache device = dm-linear l2c, the first 16 MiB of brd
# /dev/ram1 (fast "NVMe").
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 48
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=48 oflag=direct status=none
dm_create l2o "0 $len delay /dev/ram0 0 1"
dm_create l2c "0 32768 linear /dev/ram1 0"
dm_create l2i "0 $len l2arc /dev/mapper/l2o /dev/mapper/l2c 8 14 arc_max 8388608 l2arc_feed_secs 1 l2arc_feed_min_ms 10 l2arc_feed_again 1 l2arc_write_max 67108864 l2arc_write_boost 67108864 l2arc_noprefetch 0"
dev=/dev/mapper/l2i
proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2i | tr -d ' ')/arcstats
st() { arcstats_row "$proc" "$1"; }
show() {
	local r out=""
	for r in l2_feeds l2_write_bytes l2_laps l2_hits l2_misses l2_size l2_evict_ahead \
		l2_evict_reading l2_rw_clash l2_cksum_bad l2_io_error l2_writes_error \
		fills_discarded write_invalidates l2_degraded; do
		out+=" $r=$(st $r)"
	done
	echo "$1:$out"
}
streamer() {	# read the whole device over and over, 256 KiB at a time
	while :; do
		dd if=$dev of=/dev/null bs=256k iflag=direct status=none || exit 1
	done
}
streamer &
spid=$!
add_cleanup eval "kill $spid 2>/dev/null; wait $spid 2>/dev/null || true"

fio --name=mix --filename=$dev --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=8 --size=16M --loops=2 --verify=crc32c --verify_backlog=512 \
	--verify_fatal=1 --randseed=53 --output-format=terse --terse-version=3 \
	--output=fio-mix.txt || die "fio write+verify failed: $(cat fio-mix.txt)"
show "after fio write+verify"

t0=$SECONDS
while (($(st l2_laps) < 3)); do
	((SECONDS - t0 < 120)) || { show "timeout"; die "l2_laps $(st l2_laps) < 3 after 120 s"; }
	kill -0 $spid || die "background reader failed"
	sleep 2
done
kill $spid; wait $spid 2>/dev/null || true
show "after >= 3 laps"
h0=$(st l2_hits)
fio --name=mix --filename=$dev --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=8 --size=16M --verify=crc32c --verify_only --verify_fatal=1 \
	--randseed=53 --output=fio-verify.txt || die "fio verify-only failed: $(cat fio-verify.txt)"
cmp <(dd if=$dev bs=1M iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M count=48 iflag=direct status=none) || die "device differs from origin"
show "after verify + cmp"
(($(st l2_laps) >= 3)) || die "l2_laps < 3"
(($(st l2_hits) > h0)) || die "no L2 hit during the final verification"
assert_eq l2_cksum_bad 0 "$(st l2_cksum_bad)"
assert_eq l2_io_error 0 "$(st l2_io_error)"
assert_eq l2_degraded 0 "$(st l2_degraded)"
dmsetup status l2i | grep -q ' ok$' || die "status: $(dmsetup status l2i)"
echo "integrity ok"

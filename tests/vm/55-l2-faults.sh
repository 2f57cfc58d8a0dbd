#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 200
#
# Cache device faults never fail a read while the origin can serve it.
# Exact counters: prefetch_disable 1, arc_max 1 MiB (256 blocks of 4 KiB),
# one O_DIRECT 4 KiB read at a time (dd bs=4k), l2arc_max_errors 40 and
# l2arc_feed_secs 3600 as table features, feeds by message only.
#  1. blocks 0..255 read and fed (first feed of a cold device: T1 from its
#     LRU end, so block i goes to slot i), then evicted by reading 1024
#     other blocks: l2_size = 1 MiB.
#  2. garbage written straight to the brd under the cache device over
#     slots 0..31, then blocks 0..255 read: data = origin, l2_hits 256,
#     l2_cksum_bad 32, l2_io_error 0, exactly 32 blocks read at the origin,
#     l2_size 224 blocks.
#  3. the cache device's table swapped to `error` (load, suspend,
#     resume); blocks 0..255 evicted again and re-read: data = origin,
#     reads succeed; the first 8 L2 reads fail (l2_io_error 8: 32 + 8 =
#     40 = l2arc_max_errors), then the device is degraded (status ends in
#     "degraded", l2_degraded 1, l2_ndev 0) and no more L2 reads are tried
#     (l2_hits +8); an l2arc_feed message writes nothing.
#  4. the cache device back to linear and a reload of the l2arc device
#     with the same table: status "ok", l2_degraded 0, an empty L2 that
#     fills and serves again (feed, evict, re-read: l2_hits 256, no
#     origin reads).
# Devices: origin = dm-delay (1 ms, HDD-like) over brd /dev/ram0 (64 MiB);
# cache device = dm-linear l2c over brd /dev/ram1 (64 MiB, fast "NVMe"),
# swapped to the error target at run time.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
dm_create l2o "0 $len delay /dev/ram0 0 1"
dm_create l2c "0 $len linear /dev/ram1 0"
tbl="0 $len l2arc /dev/mapper/l2o /dev/mapper/l2c 8 10 arc_max 1048576 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_max_errors 40 l2arc_write_max 16777216"
dm_create l2f "$tbl"
dev=/dev/mapper/l2f
ostat=/sys/block/dm-$(dmsetup info -c --noheadings -o minor l2o | tr -d ' ')/stat
osect() { awk '{ print $3 }' "$ostat"; }
setproc() { proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2f | tr -d ' ')/arcstats; }
setproc
st() { arcstats_row "$proc" "$1"; }
expect() { expect_rows "$proc" "$@"; }
show() {
	local r out=""
	for r in l2_size l2_hits l2_misses l2_feeds l2_write_bytes l2_cksum_bad l2_io_error \
		l2_writes_error l2_ndev l2_degraded memory_throttle_count; do
		out+=" $r=$(st $r)"
	done
	echo "$1:$out | status: $(dmsetup status l2f | awk '{ print $NF }')"
}
# same4k FIRST COUNT: 4 KiB reads one at a time; data = origin
same4k() {
	cmp <(dd if=$dev bs=4k skip="$1" count="$2" iflag=direct status=none) \
		<(dd if=/dev/ram0 bs=4k skip="$1" count="$2" iflag=direct status=none) ||
		die "device differs from origin (blocks $1 +$2)"
}
evict() { dd if=$dev of=/dev/null bs=4k skip="$1" count=1024 iflag=direct status=none; }

# ---- 1. on L2, evicted
same4k 0 256
dmsetup message l2f 0 l2arc_feed
expect l2_size=1048576 l2_write_bytes=1048576
evict 1024
show "1. on L2, evicted"
expect l2_size=1048576 memory_throttle_count=0

# ---- 2. corrupt slots 0..31 under the cache device
dd if=/dev/urandom of=/dev/ram1 bs=4k count=32 oflag=direct status=none
h0=$(st l2_hits) o0=$(osect)
same4k 0 256
show "2. after corrupting 32 slots, re-read"
assert_eq "l2_hits (re-read)" 256 $(($(st l2_hits) - h0))
assert_eq "origin sectors (re-read)" $((32 * 8)) $(($(osect) - o0))
expect l2_cksum_bad=32 l2_io_error=0 l2_degraded=0 l2_size=$((224 * 4096))
dmsetup status l2f | grep -q ' ok$' || die "status not ok: $(dmsetup status l2f)"

# ---- 3. the cache device fails every I/O
dmsetup load l2c --table "0 $len error"
dmsetup suspend l2c
dmsetup resume l2c
evict 4096
h0=$(st l2_hits)
same4k 0 256
show "3. cache device = error, re-read"
expect l2_io_error=8 l2_cksum_bad=32 l2_degraded=1 l2_ndev=0
assert_eq "l2_hits (tries before degrading)" 8 $(($(st l2_hits) - h0))
[[ $(dmsetup status l2f | awk '{ print $NF }') == degraded ]] ||
	die "status does not end in degraded: $(dmsetup status l2f)"
w0=$(st l2_write_bytes)
dmsetup message l2f 0 l2arc_feed
assert_eq "l2_write_bytes after a feed while degraded" "$w0" "$(st l2_write_bytes)"
expect l2_writes_error=0
cmp <(dd if=$dev bs=1M count=16 iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M count=16 iflag=direct status=none) ||
	die "device differs from origin (first 16 MiB, degraded)"

# ---- 4. cache device back, reload
dmsetup load l2c --table "0 $len linear /dev/ram1 0"
dmsetup suspend l2c
dmsetup resume l2c
dmsetup load l2f --table "$tbl"
dmsetup suspend l2f
dmsetup resume l2f
setproc
show "4. reloaded"
[[ $(dmsetup status l2f | awk '{ print $NF }') == ok ]] ||
	die "status after reload: $(dmsetup status l2f)"
expect l2_degraded=0 l2_ndev=1 l2_size=0
same4k 0 256
dmsetup message l2f 0 l2arc_feed
expect l2_size=1048576
evict 8192
h0=$(st l2_hits) o0=$(osect)
same4k 0 256
show "4. fed, evicted, re-read"
assert_eq "l2_hits after reload" 256 $(($(st l2_hits) - h0))
assert_eq "origin sectors after reload" 0 $(($(osect) - o0))
echo "faults ok"

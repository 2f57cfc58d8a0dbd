#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
# debug-check: skip a rate cap checked from counters on both Debian kernels; make check's time on this kernel
#
# The wear cap (issue 13): l2arc_dwpd_limit percent of one drive write per
# day, applied once the cache device has been full.  A 16 MiB cache device
# (4096 slots) with l2arc_dwpd_limit 33750 as a table feature: cap =
# 16777216 x 33750 / 100 / 86400 = 65536 bytes/s exactly (l2_dwpd_cap).
# Feeds by l2arc_feed message (l2arc_feed_secs 3600), 4 MiB ARC, a 64 MiB
# origin read in chunks so that the hand-off queue always has blocks.
#  (a) First fill: every feed writes its whole budget, a quarter of the
#      cache device (4 MiB), whatever the cap, until the write hand has
#      gone round (l2_laps 1).
#  (b) Then, over about 10 s of reads and feeds every 0.5 s,
#      l2_write_bytes grows by at most cap x (the time from the start of
#      the lap's feed, when the cap's bucket was empty, to the end, as the
#      test measures it) plus one second's slack, far below what the
#      feeds would write without the cap (4 MiB each);
#      l2_write_rate (the last 10 s) is above 0 and at most twice the cap.
#  (c) l2_write_bytes_24h = l2_write_bytes (one reading; all in the last
#      24 hours), and the status line shows the same l2_dwpd_cap and
#      l2_write_bytes_24h.
#  (d) l2arc_dwpd_limit 0 by message: the next feed writes 4 MiB again;
#      an out-of-range value is refused and changes nothing.
# l2arc_handoff_max is 512 MiB here, so that the queue (about 110 MiB at
# most) never reaches half its bound: no feed starts but by message.
# Devices: origin = brd /dev/ram0 (64 MiB); cache device = the first
# 16 MiB of brd /dev/ram1 (dm-linear).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
P=/sys/module/dm_l2arc/parameters
add_cleanup eval "echo $(cat $P/l2arc_handoff_max) >$P/l2arc_handoff_max"
echo $((512 << 20)) >$P/l2arc_handoff_max
len=$(((64 << 20) / 512)) cap=65536 quarter=$((4 << 20))
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
dm_create l2dc "0 32768 linear /dev/ram1 0"
dm_create l2d "0 $len l2arc /dev/ram0 /dev/mapper/l2dc 8 8 arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_dwpd_limit 33750"
proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2d | tr -d ' ')/arcstats
st() { arcstats_row "$proc" "$1"; }
tun() { dmsetup status l2d | sed -E "s/.* $1 ([0-9]+) .*/\\1/"; }
chunk=0
rd() {	# read the next 4 MiB of the origin through the device
	dd if=/dev/mapper/l2d of=/dev/null bs=1M skip=$((chunk % 64)) count=4 iflag=direct status=none
	chunk=$((chunk + 4))
}
feed() { dmsetup message l2d 0 l2arc_feed; }

assert_eq "l2_dwpd_cap" $cap "$(st l2_dwpd_cap)"
assert_eq "status l2arc_dwpd_limit (own)" 33750 "$(tun l2arc_dwpd_limit)"

# ---- (a) first fill: no cap
for ((i = 1; i <= 8; i++)); do
	rd; rd
	w0=$(st l2_write_bytes)
	tlap=$(date +%s.%N)
	feed
	w1=$(st l2_write_bytes)
	laps=$(st l2_laps)
	echo "(a) feed $i: wrote $((w1 - w0)) bytes, l2_laps $laps"
	((laps > 0)) && break
	assert_eq "(a) feed $i of the first fill wrote its budget" $quarter $((w1 - w0))
done
((laps > 0)) || die "(a) the write hand never went round"
assert_eq "(a) the lap came at feed" 5 "$i"

# ---- (b) a full device: the cap holds
sleep 2	# the last feed of the first fill out of l2_write_rate's 10 s
t0=$(date +%s.%N)
w0=$(st l2_write_bytes)
n=0
while (($(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { print (t1 - t0 < 10) }'))); do
	rd
	feed
	n=$((n + 1))
	sleep 0.5
done
w1=$(st l2_write_bytes)
t1=$(date +%s.%N)
# the bucket holds up to l2arc_feed_secs (3600 here) of the cap, filled
# from the start of the last uncapped feed (the lap's): count from there
allowed=$(awk -v c=$cap -v t0="$tlap" -v t1="$t1" 'BEGIN { printf "%d", c * (t1 - t0) + c }')
echo "(b) $n feeds in $(awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.2f", t1 - t0 }') s:" \
	"wrote $((w1 - w0)) bytes, cap allows $allowed; l2_write_rate $(st l2_write_rate)," \
	"l2_evict_missed $(st l2_evict_missed), l2_handoff_size $(st l2_handoff_size)"
((w1 - w0 <= allowed)) || die "(b) wrote $((w1 - w0)) bytes > $allowed allowed by the cap"
((w1 - w0 > 0)) || die "(b) the capped feed wrote nothing in 10 s"
((w1 - w0 < n * quarter)) || die "(b) the cap did not bind: $((w1 - w0)) bytes in $n feeds"
bw=$((w1 - w0))
rate=$(st l2_write_rate)
((rate > 0 && rate <= 2 * cap)) || die "(b) l2_write_rate $rate: not in 1..$((2 * cap)) (twice the cap)"

# ---- (c) the 24-hour sum, in one reading
read -r a b < <(awk 'NR > 2 && $1 == "l2_write_bytes" { w = $3 } NR > 2 && $1 == "l2_write_bytes_24h" { d = $3 } END { print w, d }' "$proc")
assert_eq "(c) l2_write_bytes_24h = l2_write_bytes" "$a" "$b"
# no feed runs but by message: the status line gives the same figures
read -r _ scap sday _ _ <<<"$(status_feed l2d)"
assert_eq "(c) status l2_dwpd_cap l2_write_bytes_24h" "$cap $a" "$scap $sday"

# ---- (d) the cap off for this device; bad values refused
for v in 100001 -1 12abc; do
	if dmsetup message l2d 0 l2arc_dwpd_limit "$v" 2>/dev/null; then
		die "(d) message l2arc_dwpd_limit '$v' accepted"
	fi
	assert_eq "(d) status after refused '$v'" 33750 "$(tun l2arc_dwpd_limit)"
done
dmsetup message l2d 0 l2arc_dwpd_limit 0
assert_eq "(d) l2_dwpd_cap, limit 0" 0 "$(st l2_dwpd_cap)"
assert_eq "(d) status l2_dwpd_cap, limit 0" 0 "$(status_feed l2d | awk '{ print $2 }')"
rd; rd
w0=$(st l2_write_bytes)
feed
assert_eq "(d) a feed without the cap" $quarter $(($(st l2_write_bytes) - w0))
echo "dwpd ok: (b) $bw bytes in $n feeds, cap allowed $allowed"

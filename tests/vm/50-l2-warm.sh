#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# debug-check: skip the feed's warm-up pass by pass, checked on both Debian kernels; the feed runs here in 54, 56, 57 and 71
#
# The NAS story in miniature, driven by l2arc_feed messages (no timing):
# a 16 MiB working set (the whole device, 4096 blocks of 4 KiB) over a
# 4 MiB ARC (4x) and a 128 MiB cache device (the set is 1/8 of it), read
# sequentially in passes; each pass in 16 chunks of 1 MiB (a quarter of
# the ARC: one O_DIRECT dd with skip/count), and after each chunk the
# read-aheads are let land (suspend/resume waits for them) and one
# `dmsetup message l2w 0 l2arc_feed` runs.  The feed timer never fires
# (l2arc_feed_secs 3600).  zfetch_max_distance is 1 MiB (a quarter of the
# ARC): at its default of 8 MiB, twice this ARC, read-ahead evicts its own
# blocks before they are demanded and the origin reads ~2x each pass.
#  (a) l2arc_write_max = l2arc_write_boost = 128 KiB (below the chunk
#      size), l2arc_noprefetch 1 (default): after every feed, l2_feeds
#      grew by exactly 1 and l2_write_bytes by at most 256 KiB, so
#      l2_write_bytes <= l2_feeds * 256 KiB always; the origin serves
#      > 50 % of pass 2.
#  (b) 1 MiB each (= the chunk size) and l2arc_noprefetch 0 as table
#      features: pass 2 reads < 2 % of its bytes at the origin.
#  (b') the same values as module parameters, the device having no own
#      value (status shows the module's values in force): pass 2 < 2 %.
# Every pass's data is checked against the origin (md5).  Printed per
# pass: bytes read, origin bytes, l2_hits, l2_write_bytes (cumulative).
# Devices: origin = dm-delay (5 ms reads and writes, HDD-like) over brd
# /dev/ram0 (16 MiB used); cache device = brd /dev/ram1 (128 MiB, fast
# "NVMe").
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 128
P=/sys/module/dm_l2arc/parameters
ws=$((16 << 20)) len=$((ws / 512)) chunk=$((1 << 20)) nchunks=16
dd if=/dev/urandom of=/dev/ram0 bs=1M count=16 oflag=direct status=none
sum0=$(dd if=/dev/ram0 bs=1M count=16 iflag=direct status=none | md5sum | cut -d' ' -f1)
dm_create l2o "0 $len delay /dev/ram0 0 5"
ominor=$(dmsetup info -c --noheadings -o minor l2o | tr -d ' ')
ostat=/sys/block/dm-$ominor/stat

for p in l2arc_write_max l2arc_write_boost l2arc_noprefetch l2arc_feed_secs zfetch_max_distance; do
	add_cleanup eval "echo $(cat $P/$p) >$P/$p"
done

osect() { awk '{ print $3 }' "$ostat"; }
st() { arcstats_row "$proc" "$1"; }
tun() { dmsetup status l2w | sed -E "s/.* $1 ([0-9]+) .*/\\1/"; }

mkdev() {	# mkdev FEATURES...
	local f=("arc_max" 4194304 "$@")
	dm_create l2w "0 $len l2arc /dev/mapper/l2o /dev/ram1 8 ${#f[@]} ${f[*]}"
	proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2w | tr -d ' ')/arcstats
}

# feed_checked MAXBYTES: one feed; l2_feeds +1, l2_write_bytes +<= MAX
feed_checked() {
	local f0 w0 f1 w1
	f0=$(st l2_feeds) w0=$(st l2_write_bytes)
	dmsetup message l2w 0 l2arc_feed
	f1=$(st l2_feeds) w1=$(st l2_write_bytes)
	assert_eq "l2_feeds after one feed" $((f0 + 1)) "$f1"
	(((w1 - w0) <= $1)) || die "one feed wrote $((w1 - w0)) bytes > $1"
	((w1 <= f1 * $1)) || die "l2_write_bytes $w1 > l2_feeds $f1 * $1"
}

declare -A opct
# run_pass TAG PASS FEEDMAX: read the set in chunks, feed after each
run_pass() {
	local tag=$1 pass=$2 max=$3 c o0 o1 h0 sum
	o0=$(osect) h0=$(st l2_hits)
	sum=$(for ((c = 0; c < nchunks; c++)); do
		dd if=/dev/mapper/l2w bs=$chunk skip=$c count=1 iflag=direct status=none ||
			die "read of chunk $c failed"
		dmsetup suspend l2w	# the chunk's read-aheads land
		dmsetup resume l2w
		feed_checked "$max" >&2
	done | md5sum | cut -d' ' -f1)
	assert_eq "$tag pass $pass data" "$sum0" "$sum"
	o1=$(osect)
	local ob=$(((o1 - o0) * 512))
	opct[$tag.$pass]=$(awk -v o=$ob -v w=$ws 'BEGIN { printf "%.2f", 100 * o / w }')
	echo "$tag pass $pass: read $ws bytes, origin $ob bytes (${opct[$tag.$pass]} %)," \
		"l2_hits +$(($(st l2_hits) - h0)) (total $(st l2_hits))," \
		"l2_write_bytes $(st l2_write_bytes), l2_feeds $(st l2_feeds), l2_size $(st l2_size)," \
		"memory_throttle $(st memory_throttle_count)"
	eval "last_ob=$ob"
}

echo 3600 >$P/l2arc_feed_secs
echo 1048576 >$P/zfetch_max_distance

# ---- (a) write_max = write_boost = 128 KiB < chunk
mkdev l2arc_feed_secs 3600 l2arc_write_max 131072 l2arc_write_boost 131072
run_pass a 1 262144
run_pass a 2 262144
((last_ob * 100 > ws * 50)) || die "(a) origin served only ${opct[a.2]} % of pass 2 (want > 50 %)"
dm_remove l2w

# ---- (b) 1 MiB each, noprefetch 0, as table features
mkdev l2arc_feed_secs 3600 l2arc_write_max 1048576 l2arc_write_boost 1048576 l2arc_noprefetch 0
run_pass b 1 2097152
run_pass b 2 2097152
((last_ob * 100 < ws * 2)) || die "(b) origin served ${opct[b.2]} % of pass 2 (want < 2 %)"
dm_remove l2w

# ---- (b') the same as module parameters; the device has no own value
echo 1048576 >$P/l2arc_write_max
echo 1048576 >$P/l2arc_write_boost
echo 0 >$P/l2arc_noprefetch
mkdev
assert_eq "status l2arc_write_max (module's)" 1048576 "$(tun l2arc_write_max)"
assert_eq "status l2arc_write_boost (module's)" 1048576 "$(tun l2arc_write_boost)"
assert_eq "status l2arc_noprefetch (module's)" 0 "$(tun l2arc_noprefetch)"
assert_eq "status l2arc_feed_secs (module's)" 3600 "$(tun l2arc_feed_secs)"
run_pass m 1 2097152
run_pass m 2 2097152
((last_ob * 100 < ws * 2)) || die "(b') origin served ${opct[m.2]} % of pass 2 (want < 2 %)"
dm_remove l2w
echo "pass-2 origin %: (a) ${opct[a.2]}  (b) ${opct[b.2]}  (b') ${opct[m.2]}"
echo "l2 warm ok"

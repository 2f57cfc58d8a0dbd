#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
#
# The what-if (/proc/dm-l2arc/dm-<minor>/whatif: miniature ARC and
# ARC + L2 simulations on a hashed sample of the blocks; dm-l2arc.rst).
#  (1) Control: the module parameter l2arc_whatif (default 0, set to 1
#      here for the rest of the test; read at
#      table load only) and the table feature "whatif <0|1>" that
#      overrides it; an off device's file is the one line "whatif 0" and
#      its whatif_reset fails ("whatif is off"); "whatif 2", "whatif x"
#      and a second "whatif" fail the table load with their ti->error, a
#      module parameter of 2 is refused.  The file's layout: 7 arc rows
#      (arc_max x 1/8 .. 8) and arc_actual; with a cache device also 8 l2
#      rows (slots x 0, 1/8 .. 8) and l2_actual; bytes = blocks x 4096,
#      each miniature's capacity = blocks x the sampling rate;
#      0 < memory_bytes <= 8 MiB, also at arc_max 1 GiB with a 1023 MiB
#      cache device (261,888 slots).
#  (2) Exact facts, every block sampled (arc_max 64 blocks, ladder 8 to
#      512 blocks, prefetch_disable 1, one 4 KiB O_DIRECT read a block):
#      a loop over 100 blocks read 5 times hits 0 times in an ARC of
#      fewer than 100 blocks (the paper's ARC drops T1's LRU without a
#      ghost while T2 is empty) and 400 times in one of 100 or more
#      (80.0000 %); arc_actual and the 1x row agree with arcstats;
#      whatif_reset zeroes every row and leaves the simulations warm (one
#      more loop: 100 of 100 above 100 blocks); a write drops the block
#      from every simulation (99 of 100); clear_stats zeroes them too.
#  (3) L2 accuracy: a zipf trace (tests/vm/whatif_drive.py: 30,000 reads
#      over 8,192 blocks, alpha 0.8, fixed seed) through a 64-block ARC
#      and a 1,024-slot cache device, fed by l2arc_feed after every 128
#      reads (at most a quarter of the smallest cache device's 512 slots:
#      every block gets written).  Read twice; after the first pass
#      whatif_reset and clear_stats, then the l2 rows' hit_pct after the
#      second is the prediction for cache devices of 512, 1,024 and 2,048
#      slots.  Each size is then measured on a fresh device, the same two
#      passes: (hits + l2_hits) / (hits + misses) of the second within
#      3.00 points of the prediction.  With every block sampled
#      (sample_l2 1.000000) l2_actual equals arcstats exactly, and the l2
#      row at factor 0.000 (the ARC alone) equals the arc row at 1.000.
#      Measured: 0.38 points below the prediction at each size (37.13,
#      45.25, 57.75 % against 37.51, 45.63, 58.14 %): the real cache
#      device also holds copies of blocks still resident in the ARC,
#      which the simulated one, fed only by evictions, does not.  Not
#      run on the debug kernel (minutes of reads there; (1) and (2) run
#      the same code).
# Devices: a 32 MiB dm-zero origin (its data does not matter), cache
# devices carved from brd /dev/ram0 with dm-linear.
. "$(dirname "$0")/lib.sh"

load_module
modprobe dm-zero
P=/sys/module/dm_l2arc/parameters
mk_brd 1 16
osz=$((8192 * 8))
dm_create wi_zero "0 $osz zero"
O=/dev/mapper/wi_zero
drive=$L2ARC_TOP/tests/vm/whatif_drive.py
[[ -f $P/l2arc_whatif ]] || die "no module parameter l2arc_whatif"
add_cleanup eval "echo $(cat $P/l2arc_whatif) >$P/l2arc_whatif"
assert_eq "l2arc_whatif's default" "0" "$(modinfo -F parm "$L2ARC_KO" | awk -F: '$1 == "l2arc_whatif" && /default 0;/ { print 0 }')"
assert_eq "l2arc_whatif after load_module" 0 "$(cat $P/l2arc_whatif)"
echo 1 >$P/l2arc_whatif

wfile() { echo "/proc/dm-l2arc/$(dm_kname "$1")/whatif"; }
# wval FILE NAME: a "name value" line's value
wval() {
	awk -v n="$2" '$1 == n && NF == 2 { print $2; f = 1 } END { exit !f }' "$1" ||
		die "no line '$2' in $1: $(head -c 300 "$1")"
}
# wrow FILE LEVEL FACTOR COLUMN: one cell of the table (columns: level
# factor blocks bytes sample reads hits l2_hits hit_pct)
wrow() {
	awk -v l="$2" -v f="$3" -v c="$4" '
		BEGIN { n = split("level factor blocks bytes sample reads hits l2_hits hit_pct", a, " ")
			for (i = 1; i <= n; i++) col[a[i]] = i; n = 0 }
		$1 == l && $2 == f { print $(col[c]); n++ } END { exit n != 1 }' "$1" ||
		die "no single row '$2 $3' (column $4) in $1"
}
# wsnap NAME: a copy of NAME's whatif file (rows compared with each other
# come from one read)
wsnap() { snap "$(wfile "$1")"; }
st() { arcstats_row "/proc/dm-l2arc/$(dm_kname "$1")/arcstats" "$2"; }

# layout FILE ARC_BLOCKS SLOTS: the rows and their sizes (SLOTS 0: no
# cache device), in one awk (a process costs seconds on the debug
# kernel); prints the sampling rates and the memory
layout() {
	awk -v ab="$2" -v slots="$3" '
	function need(ok, what) { if (!ok) { print "FAIL: " FILENAME ": " what; bad = 1 } }
	NF == 2 { v[$1] = $2; next }
	$1 == "level" { next }
	{
		seen[$1] = seen[$1] " " $2
		if ($1 != "arc" && $1 != "l2")
			next
		n = $1 == "arc" ? ab : slots
		r = $1 == "arc" ? v["sample_arc"] : v["sample_l2"]
		b = int(n * ($2 * 8) / 8)
		need($3 == b, $1 " x" $2 ": blocks " $3 ", expected " b)
		need($4 == b * 4096, $1 " x" $2 ": bytes " $4 " != blocks x 4096")
		d = $5 - b * r
		need(d <= 2 && d >= -2, $1 " x" $2 ": miniature of " $5 " blocks, " b " blocks x sample " r)
	}
	END {
		need(v["whatif"] == "1", "whatif " v["whatif"])
		need(v["block_bytes"] == 4096, "block_bytes " v["block_bytes"])
		need(v["memory_bytes"] > 0 && v["memory_bytes"] <= 8 * 2 ^ 20, "memory_bytes " v["memory_bytes"] " not in 1 .. 8 MiB")
		need(v["dropped"] == "0", "dropped " v["dropped"])
		f7 = " 0.125 0.250 0.500 1.000 2.000 4.000 8.000"
		need(seen["arc"] == f7, "arc rows:" seen["arc"])
		need(seen["arc_actual"] == " 1.000", "arc_actual rows:" seen["arc_actual"])
		need(seen["l2"] == (slots ? " 0.000" f7 : ""), "l2 rows:" seen["l2"])
		need(seen["l2_actual"] == (slots ? " 1.000" : ""), "l2_actual rows:" seen["l2_actual"])
		if (slots)
			need(v["sample_l2"] <= v["sample_arc"], "sample_l2 above sample_arc")
		printf "  arc_max %d blocks, %d slots: sample_arc %s, sample_l2 %s, memory_bytes %d\n",
			ab, slots, v["sample_arc"], v["sample_l2"], v["memory_bytes"]
		exit bad
	}' "$1" || die "whatif file layout (arc_max $2 blocks, $3 slots)"
}

# expect_ctr_error MESSAGE TABLE: creating TABLE fails with MESSAGE
expect_ctr_error() {
	local got
	if dmsetup create wi_bad --table "$2" >/dev/null 2>&1; then
		dmsetup remove wi_bad
		die "accepted: '$2'"
	fi
	got=$(dmesg | grep 'device-mapper: table: ' | tail -1 |
		sed -n 's/.*: l2arc: \(.*\) (-E[A-Z]*)$/\1/p')
	assert_eq "ti->error of '$2'" "$1" "$got"
}

# ---- (1) control and layout
echo "(1) control"
dm_create wi_c1 "0 $((2048 * 8)) linear /dev/ram0 0"
L="0 $osz l2arc $O"
# the devices live at once each over an origin of its own: a ctr refuses
# an origin that another device holds
for n in a b off on p0 p1; do dm_create wi_z$n "0 $osz zero"; done
Lz() { echo "0 $osz l2arc /dev/mapper/wi_z$1"; }
dm_create wi_a "$(Lz a) - 8"
layout "$(wsnap wi_a)" 65536 0
dm_create wi_b "$(Lz b) /dev/mapper/wi_c1 8"
layout "$(wsnap wi_b)" 65536 2048
dm_remove wi_b
dm_create wi_off "$(Lz off) - 8 2 whatif 0"
f=$(wsnap wi_off)
assert_eq "an off device's whatif file" "whatif 0" "$(awk '{ $1 = $1; print }' "$f")"
assert_eq "table echo" "0 $osz l2arc $(dmsetup info -c --noheadings -o major,minor wi_zoff | tr -d ' ') - 8 2 whatif 0" \
	"$(dmsetup table wi_off)"
k0=$(kmark)
err=$(dmsetup message wi_off 0 whatif_reset 2>&1) && die "whatif_reset on an off device succeeded"
[[ $err == *"Operation not supported"* ]] || die "whatif_reset on an off device: not EOPNOTSUPP: $err"
klog=$(klog_since "$k0")
grep -q "whatif is off" <<<"$klog" || die "no 'whatif is off' in the kernel log"
dmsetup message wi_off 0 clear_stats
dm_create wi_on "$(Lz on) - 8 2 whatif 1"
assert_eq "whatif 1" 1 "$(wval "$(wfile wi_on)" whatif)"
# the module parameter: read at table load only
echo 0 >$P/l2arc_whatif
dm_create wi_p0 "$(Lz p0) - 8"
assert_eq "a device loaded with l2arc_whatif 0" "whatif 0" "$(awk '{ $1 = $1; print }' "$(wfile wi_p0)")"
dm_create wi_p1 "$(Lz p1) - 8 2 whatif 1"
assert_eq "whatif 1 under l2arc_whatif 0" 1 "$(wval "$(wfile wi_p1)" whatif)"
assert_eq "wi_a, loaded before the change" 1 "$(wval "$(wfile wi_a)" whatif)"
echo 2 >$P/l2arc_whatif 2>/dev/null && die "l2arc_whatif 2 accepted"
assert_eq "l2arc_whatif after a refused write" 0 "$(cat $P/l2arc_whatif)"
echo 1 >$P/l2arc_whatif
assert_eq "wi_p0 after l2arc_whatif 1 (no reload)" "whatif 0" "$(awk '{ $1 = $1; print }' "$(wfile wi_p0)")"
for d in wi_a wi_off wi_on wi_p0 wi_p1; do dm_remove $d; done
expect_ctr_error "whatif must be 0 or 1" "$L - 8 2 whatif 2"
expect_ctr_error "whatif must be 0 or 1" "$L - 8 2 whatif x"
expect_ctr_error "Duplicate feature whatif" "$L - 8 4 whatif 1 whatif 1"
# the memory bound at large sizes: arc_max 1 GiB, a cache device of
# 1023 MiB (261,888 slots; below 1 GiB it holds no metadata, so nothing
# is read from this dm-zero and nothing written before a feed)
dm_create wi_big_c "0 $((1023 << 11)) zero"
dm_create wi_big "$L /dev/mapper/wi_big_c 8 2 arc_max $((1 << 30))"
layout "$(wsnap wi_big)" 262144 261888
dm_remove wi_big
dm_remove wi_big_c

# ---- (2) exact facts: a loop of 100 blocks, every block sampled
echo "(2) exact"
dm_create wi_x "$L - 8 4 arc_max 262144 prefetch_disable 1"
f=$(wsnap wi_x)
layout "$f" 64 0
assert_eq "sample_arc at arc_max 64 blocks" 1.000000 "$(wval "$f" sample_arc)"
# loop_check TAG HITS_BELOW HITS_ABOVE READS: every arc row after a loop
# (the device's own ARC, 64 blocks, is below 100: arc_actual hits
# HITS_BELOW, and arcstats hits stay 0 throughout)
loop_check() {
	local f lvl fac b r h l2h pct exp n=0
	f=$(wsnap wi_x)
	assert_eq "dropped" 0 "$(wval "$f" dropped)"
	while read -r lvl fac b _ _ r h l2h pct; do
		exp=$2
		if [[ $lvl == arc_actual ]]; then
			assert_eq "$1: arc_actual reads" "$4" "$r"
			assert_eq "$1: arc_actual hits" "$2" "$h"
			continue
		fi
		n=$((n + 1))
		((b >= 100)) && exp=$3
		echo "  $1: arc x$fac ($b blocks): $h hits / $r reads = $pct % (expected $exp / $4)"
		assert_eq "$1: arc x$fac hits" "$exp" "$h"
		assert_eq "$1: arc x$fac reads" "$4" "$r"
		assert_eq "$1: arc x$fac l2_hits" 0 "$l2h"
		# 100 * h / r with 4 decimals: whole and half percents here
		assert_eq "$1: arc x$fac hit_pct" "$((r ? 100 * exp / r : 0)).$(printf %04d $((r ? 10000 * (100 * exp % r) / r : 0)))" "$pct"
	done < <(awk '$1 == "arc" || $1 == "arc_actual"' "$f")
	assert_eq "$1: arc rows" 7 "$n"
	assert_eq "$1: arcstats hits" 0 "$(st wi_x hits)"
}
python3 "$drive" loop /dev/mapper/wi_x 100 5
expect_rows "$(proc_of wi_x)" hits=0 misses=500
loop_check "5 loops" 0 400 500
dmsetup message wi_x 0 whatif_reset
loop_check "whatif_reset" 0 0 0
expect_rows "$(proc_of wi_x)" hits=0 misses=500	# arcstats keep theirs
python3 "$drive" loop /dev/mapper/wi_x 100 1
loop_check "whatif_reset, one loop" 0 100 100
dmsetup message wi_x 0 whatif_reset
dd if=/dev/zero of=/dev/mapper/wi_x bs=4096 seek=5 count=1 oflag=direct status=none
python3 "$drive" loop /dev/mapper/wi_x 100 1
loop_check "block 5 written, one loop" 0 99 100
dmsetup message wi_x 0 clear_stats
loop_check "clear_stats" 0 0 0
expect_rows "$(proc_of wi_x)" hits=0 misses=0
dm_remove wi_x

# ---- (3) L2 accuracy
if [[ $L2ARC_KVER == *-l2arc-debug ]]; then
	echo "(3) L2 accuracy: not on the debug kernel"
	echo "whatif ok"
	exit 0
fi
echo "(3) L2 accuracy"
# l2dev SLOTS: a fresh device wi_l over a fresh SLOTS-block cache device
l2dev() {
	dm_create wi_lc "0 $(($1 * 8)) linear /dev/ram0 0"
	dm_create wi_l "$L /dev/mapper/wi_lc 8 6 arc_max 262144 prefetch_disable 1 l2arc_feed_secs 3600"
	dmsetup message wi_l 0 l2arc_feed	# the feed's first run (empty ARC)
}
l2gone() {
	dm_remove wi_l
	dm_remove wi_lc
}
# two_passes: the zipf trace twice; counters zeroed in between
two_passes() {
	python3 "$drive" zipf /dev/mapper/wi_l wi_l 128
	dmsetup message wi_l 0 whatif_reset
	dmsetup message wi_l 0 clear_stats
	python3 "$drive" zipf /dev/mapper/wi_l wi_l 128
}
# actual: (hits + l2_hits) / (hits + misses) of wi_l, in %
actual() {
	local h l m
	h=$(st wi_l hits) l=$(st wi_l l2_hits) m=$(st wi_l misses)
	assert_eq "reads of a pass" 30000 $((h + m))
	assert_eq "l2_evict_missed" 0 "$(st wi_l l2_evict_missed)"
	awk -v h="$h" -v l="$l" -v m="$m" 'BEGIN { printf "%.4f", 100 * (h + l) / (h + m) }'
}
l2dev 1024
two_passes
f=$(wsnap wi_l)
layout "$f" 64 1024
declare -A pred=() meas=()
for fac in 0.500 1.000 2.000; do
	pred[$fac]=$(wrow "$f" l2 $fac hit_pct)
done
meas[1.000]=$(actual)
echo "  1024 slots: arcstats hits $(st wi_l hits), l2_hits $(st wi_l l2_hits), misses $(st wi_l misses);" \
	"l2_actual $(wrow "$f" l2_actual 1.000 hits) + $(wrow "$f" l2_actual 1.000 l2_hits) of $(wrow "$f" l2_actual 1.000 reads)"
grep -E '^(level|l2|arc)' "$f" | sed 's/^/  /'
if [[ $(wval "$f" sample_l2) == 1.000000 && $(wval "$f" sample_arc) == 1.000000 ]]; then
	assert_eq "l2_actual reads" "$(($(st wi_l hits) + $(st wi_l misses)))" "$(wrow "$f" l2_actual 1.000 reads)"
	assert_eq "l2_actual hits" "$(st wi_l hits)" "$(wrow "$f" l2_actual 1.000 hits)"
	assert_eq "l2_actual l2_hits" "$(st wi_l l2_hits)" "$(wrow "$f" l2_actual 1.000 l2_hits)"
	assert_eq "l2 x0.000 hits = arc x1.000 hits" "$(wrow "$f" arc 1.000 hits)" "$(wrow "$f" l2 0.000 hits)"
	assert_eq "l2 x0.000 l2_hits" 0 "$(wrow "$f" l2 0.000 l2_hits)"
	assert_eq "arc x1.000 hits = the device's" "$(st wi_l hits)" "$(wrow "$f" arc 1.000 hits)"
fi
l2gone
for s in 512 2048; do
	fac=0.500
	((s == 2048)) && fac=2.000
	l2dev $s
	two_passes
	meas[$fac]=$(actual)
	echo "  $s slots: arcstats hits $(st wi_l hits), l2_hits $(st wi_l l2_hits), misses $(st wi_l misses)"
	l2gone
done
bad=0
for fac in 0.500 1.000 2.000; do
	line=$(awk -v p="${pred[$fac]}" -v m="${meas[$fac]}" 'BEGIN {
		d = p - m; printf "%+.4f%s", d, (d <= 3 && d >= -3) ? " ok" : " FAIL" }')
	echo "l2 x$fac ($(awk -v f="$fac" 'BEGIN { print 1024 * f }') slots): predicted ${pred[$fac]} %, measured ${meas[$fac]} %, difference $line"
	[[ $line == *ok ]] || bad=1
done
((bad == 0)) || die "the L2 prediction is off by more than 3.00 points"
echo "whatif ok"

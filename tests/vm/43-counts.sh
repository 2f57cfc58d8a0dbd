#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 360
# debug-check: skip exact counter values, checked on both Debian kernels
#
# Exact counters and the /proc/dm-l2arc files.  Every read is one 4 KiB
# O_DIRECT pread (python3), with prefetch_disable 1, so each read is one
# ARC access and the counters are known exactly:
#  - one block read 1000 times: hits 999, misses 1;
#  - N distinct blocks: misses N, hits 0;
#  - one 32 KiB read (dd) of 4 resident blocks then 4 new ones: 4 MRU
#    hits served without the lock, 4 misses under it;
#  - ghost hits: with arc_max = 16 blocks, the paper's ARC (case IV) drops
#    T1's LRU block without a ghost while T2 is empty, so 0..31 then 0 has
#    NO ghost hit; with one block in T2 first (100, 100), B1 keeps a ghost
#    (block 16 after 0..31), and re-reading 16 is a mru_ghost_hit
#    (tests/tools/arc_ref.py --sequence 100,100,0,...,31,16 16 --p-mode=fixed);
#  - dmsetup status agrees with /proc, its tunables at word 28 (after the
#    L2 and feed words, all 0 here); clear_stats zeroes the counters;
#  - /proc format (kstat), the summed file over two devices, writes fail;
#  - reload / rename / remove+create keep exactly one entry per device;
#  - cat of the /proc files in a loop during 20 create/remove cycles.
# Devices: brd RAM disks /dev/ram0, /dev/ram1 (16 MiB each) emulate two
# fast SSD origins; no cache device ("-").
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 16
sz=$(sectors /dev/ram0)
tbl() { echo "0 $sz l2arc $1 - 8 4 arc_max ${2:-65536} prefetch_disable 1"; }

minor_of() { dmsetup info -c --noheadings -o minor "$1" | tr -d ' '; }
declare -A minors=()
pf() {	# the device's arcstats file (minor cached until the device goes)
	echo "/proc/dm-l2arc/dm-${minors[$1]:-$(minor_of "$1")}/arcstats"
}
forget() { unset "minors[$1]"; }
remember() { minors[$1]=$(minor_of "$1"); }
st() { arcstats_row "$(pf "$1")" "$2"; }	# st DEV ROW
expect() {	# expect DEV ROW=VAL...
	local dev=$1 kv
	shift
	for kv in "$@"; do
		assert_eq "$dev ${kv%%=*}" "${kv#*=}" "$(st "$dev" "${kv%%=*}")"
	done
}

dm_create ca "$(tbl /dev/ram0 1048576)"
remember ca
dmsetup message ca 0 clear_stats
expect ca hits=0 misses=0

# ---- one block 1000 times
pyread /dev/mapper/ca '5*1000'
expect ca hits=999 misses=1 demand_data_hits=999 demand_data_misses=1 \
	mru_hits=1 mfu_hits=998 iohits=0 predictive_prefetch=0 mru_blocks=0 mfu_blocks=1
echo "one block x1000: hits $(st ca hits) misses $(st ca misses)"

# ---- N distinct blocks once
dmsetup message ca 0 clear_stats
expect ca hits=0 misses=0 mfu_blocks=1
pyread /dev/mapper/ca 10-209
expect ca hits=0 misses=200 demand_data_misses=200 mru_blocks=200 mfu_blocks=1 \
	hash_elements=201
echo "200 distinct: hits $(st ca hits) misses $(st ca misses)"

# ---- clear_stats, then a cached block is a hit
dmsetup message ca 0 clear_stats
expect ca hits=0 misses=0 mru_hits=0 mfu_hits=0 demand_data_misses=0
pyread /dev/mapper/ca 5
expect ca hits=1 misses=0 mfu_hits=1
# ---- one read whose first blocks are resident and the rest are not: the
# resident ones are served without the lock (their accesses logged), the
# rest are misses under it; 32 KiB at block 206: 206..209 MRU hits (to
# MFU), 210..213 misses (to MRU)
dd if=/dev/mapper/ca of=/dev/null bs=32k count=1 skip=$((206 * 4096)) \
	iflag=direct,skip_bytes status=none
expect ca hits=5 misses=4 mru_hits=4 mfu_hits=1 demand_data_hits=5 \
	demand_data_misses=4 mru_blocks=200 mfu_blocks=5 hash_elements=205
if dmsetup message ca 0 no_such_message 2>/dev/null; then
	die "unknown message accepted"
fi

# ---- ghost hits with arc_max = 16 blocks
dm_create cg "$(tbl /dev/ram1 65536)"
remember cg
pyread /dev/mapper/cg 0-31 0
expect cg mru_ghost_hits=0 misses=33 hits=0 mru_blocks=16 mru_ghost_blocks=0
dm_remove cg
forget cg
dm_create cg "$(tbl /dev/ram1 65536)"
remember cg
pyread /dev/mapper/cg 100 100 0-31
expect cg mru_ghost_blocks=1 mru_blocks=15 mfu_blocks=1
pyread /dev/mapper/cg 16
expect cg mru_ghost_hits=1 mfu_ghost_hits=0 hits=1 misses=34 \
	mru_blocks=14 mfu_blocks=2 mru_ghost_blocks=1 mfu_ghost_blocks=0 \
	p=4096 c=65536 c_max=65536
echo "ghost: mru_ghost_hits $(st cg mru_ghost_hits) p $(st cg p)"

# ---- dmsetup status agrees with /proc
for d in ca cg; do
	read -r -a f <<<"$(dmsetup status $d)"
	read -r bs used_max p c t1 t2 b1 b2 hits misses gh1 gh2 <<<"${f[*]:3:12}"
	# "<#tunables> arc_max .. <health>": other fields (L2ARC) may come between
	for ((i = 15; i < ${#f[@]} - 1; i++)); do
		[[ ${f[i + 1]} == arc_max ]] && break
	done
	((i < ${#f[@]} - 1)) || die "$d status: no tunables: ${f[*]}"
	assert_eq "$d status: #tunables after the L2 and feed words" 27 "$i"
	assert_eq "$d status feed words (no cache device)" "0 0 0 0 0" "${f[*]:22:5}"
	assert_eq "$d status #tunables" $((${#f[@]} - 2 - i)) "${f[i]}"
	assert_eq "$d status health" ok "${f[-1]}"
	assert_eq "$d status ARC tunables" "arc_max $(st $d c_max) arc_min $(st $d c_min) prefetch_disable 1 zfetch_max_distance $(cat /sys/module/dm_l2arc/parameters/zfetch_max_distance)" "${f[*]:i+1:8}"
	assert_eq "$d status block size" 8 "$bs"
	assert_eq "$d status used" "$(($(st $d data_size) / 4096))/$(($(st $d c_max) / 4096))" "$used_max"
	assert_eq "$d status p" "$(($(st $d p) / 4096))" "$p"
	assert_eq "$d status c" "$(($(st $d c) / 4096))" "$c"
	assert_eq "$d status t1" "$(st $d mru_blocks)" "$t1"
	assert_eq "$d status t2" "$(st $d mfu_blocks)" "$t2"
	assert_eq "$d status b1" "$(st $d mru_ghost_blocks)" "$b1"
	assert_eq "$d status b2" "$(st $d mfu_ghost_blocks)" "$b2"
	assert_eq "$d status hits" "$(st $d hits)" "$hits"
	assert_eq "$d status misses" "$(st $d misses)" "$misses"
	assert_eq "$d status mru_ghost_hits" "$(st $d mru_ghost_hits)" "$gh1"
	assert_eq "$d status mfu_ghost_hits" "$(st $d mfu_ghost_hits)" "$gh2"
done
echo "status: $(dmsetup status cg)"

# ---- /proc format
check_format() {	# check_format FILE KID
	local f=$1 kid=$2 rows
	rows=$(($(wc -l <"$f") - 2))
	((rows > 30)) || die "$f: only $rows rows"
	awk -v kid="$kid" -v rows="$rows" '
		NR == 1 {
			if (NF != 7 || ($1 != kid && kid != "*") || $2 != 1 || $3 != "0x01" ||
			    $4 != rows || $5 != rows * 272 || $6 !~ /^[0-9]+$/ ||
			    $7 !~ /^[0-9]+$/ || $7 + 0 < $6 + 0) { print "header: " $0; exit 1 }
			next
		}
		NR == 2 { if ($0 != sprintf("%-31s %-4s %s", "name", "type", "data")) { print "line 2: " $0; exit 1 }; next }
		{
			if ($0 != sprintf("%-31s %-4d %s", $1, 4, $3) || $3 !~ /^[0-9]+$/ || NF != 3) { print "row: " $0; exit 1 }
			if (seen[$1]++) { print "duplicate row " $1; exit 1 }
		}' "$f" || die "$f: bad kstat format"
}
check_format "$(pf ca)" '*'
check_format "$(pf cg)" '*'
check_format /proc/dm-l2arc/arcstats 0
head -n 1 /proc/dm-l2arc/arcstats
# the sum over the two live devices equals the summed file, row by row
# (lock_hold_max_us: the larger of the two; lock_contended: at least the
# sum, as reading a file takes the lock and the feed may hold it)
paste <(awk 'NR > 2 { print $1, $3 }' "$(pf ca)") <(awk 'NR > 2 { print $3 }' "$(pf cg)") \
	<(awk 'NR > 2 { print $1, $3 }' /proc/dm-l2arc/arcstats) |
	awk '{ want = $1 == "lock_hold_max_us" ? ($2 > $3 ? $2 : $3) : $2 + $3
	       ok = $1 == "lock_contended" ? $5 >= want : want == $5
	       if ($1 != $4 || !ok) { print "sum " $0; bad = 1 } } END { exit bad }' ||
	die "summed arcstats differs from ca + cg"
assert_eq "summed hits" 6 "$(awk '$1 == "hits" { print $3 }' /proc/dm-l2arc/arcstats)"
assert_eq "summed misses" 38 "$(awk '$1 == "misses" { print $3 }' /proc/dm-l2arc/arcstats)"
for f in "$(pf ca)" /proc/dm-l2arc/arcstats; do
	if (echo 0 >"$f") 2>/dev/null; then
		die "write to $f succeeded"
	fi
done

# ---- reload keeps exactly one entry
nentries() { find /proc/dm-l2arc -mindepth 1 -maxdepth 1 -type d | wc -l; }
assert_eq "entries" 2 "$(nentries)"
dmsetup load ca --table "$(tbl /dev/ram0 1048576)"
assert_eq "entries after load" 2 "$(nentries)"
dmsetup suspend ca
dmsetup resume ca
assert_eq "entries after reload" 2 "$(nentries)"
[[ -r $(pf ca) ]] || die "no entry for ca after reload"
ls /proc/dm-l2arc
# ---- rename keeps the entry and the counters
pyread /dev/mapper/ca 7 7 7
before=$(awk 'NR > 2 && $1 != "hash_elements_max"' "$(pf ca)")
m=$(minor_of ca)
forget ca
dmsetup rename ca cb
add_cleanup dm_remove cb
remember cb
assert_eq "minor after rename" "$m" "$(minor_of cb)"
assert_eq "counters after rename" "$before" "$(awk 'NR > 2 && $1 != "hash_elements_max"' "$(pf cb)")"
expect cb hits=2 misses=1
dmsetup rename cb ca
forget cb
remember ca
# ---- remove and re-create
dm_remove cg
assert_eq "entries after remove" 1 "$(nentries)"
dm_create cg "$(tbl /dev/ram1 65536)"
remember cg
assert_eq "entries after re-create" 2 "$(nentries)"
expect cg hits=0 misses=0
dm_remove cg
dm_remove ca
assert_eq "entries after removing all" 0 "$(nentries)"
assert_eq "summed hits with no device" 0 "$(awk '$1 == "hits" { print $3 }' /proc/dm-l2arc/arcstats)"

echo "checks before the cycles: ${SECONDS} s"
# ---- /proc readers during create/remove cycles
stop=$L2ARC_TEST_OUT/stop
rm -f "$stop"
(
	n=0
	while [[ ! -e $stop ]]; do
		cat /proc/dm-l2arc/arcstats /proc/dm-l2arc/dm-*/arcstats >/dev/null 2>&1 || true
		sleep 0.02
		n=$((n + 1))
	done
	echo "$n" >"$L2ARC_TEST_OUT/reads"
) &
rpid=$!
t0=$SECONDS
add_cleanup touch "$stop"
for i in $(seq 20); do
	dmsetup create cc --table "$(tbl /dev/ram0 1048576)"
	dd if=/dev/mapper/cc of=/dev/null bs=4k skip=$i count=4 iflag=direct status=none
	dmsetup remove cc
done
touch "$stop"
wait "$rpid"
echo "create/remove cycles: 20 in $((SECONDS - t0)) s; /proc read loops: $(cat "$L2ARC_TEST_OUT/reads")"
assert_eq "entries at end" 0 "$(nentries)"
echo "counts ok"

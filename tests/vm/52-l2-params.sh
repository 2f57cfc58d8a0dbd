#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 480
# debug-check: skip the tunables' effects on the feed, on both Debian kernels; 70-fuzz writes parameters here
#
# The L2ARC tunables as module parameters and per device.
#  - /sys/module/dm_l2arc/parameters/l2arc_*: defaults as documented in
#    params.c (and the issue), mode 0644; bad writes (-1, 2^64, "12abc",
#    empty, " 1", 0x10, below min, above max) fail and keep the old value;
#    min and max are taken.
#  - the budget of the next feed follows the module value at once:
#    cold ARC (no eviction yet; evict_l2_* rows 0): write_max 64 KiB +
#    boost 32 KiB -> the feed writes exactly 96 KiB; warm ARC (after
#    reading 2x arc_max) with fio random reads running in the background:
#    write_max 64 KiB -> the next feed writes exactly 64 KiB, then
#    write_max 128 KiB -> exactly 128 KiB (prefetch_disable 1 and T1/T2
#    full of clean demand blocks, so more than enough are eligible).
#  - per device: `message l2arc_write_max 131072` shows in status and is
#    used by the next feed (exactly 128 KiB, the module saying 64 KiB);
#    `l2arc_write_max default` goes back to the module's value (status and
#    feed); bad values (-1, 12abc, 4095, 4294967297, 2^64, "") and unknown
#    names are refused and change nothing.
#  - table features of the same names (all but the module-wide
#    l2arc_meta_percent, refused) are in force (status), survive a
#    reload (dmsetup table shows them), and the module value does not
#    override them.
# Devices: origin = dm-delay (1 ms, HDD-like) over brd /dev/ram0 (64 MiB);
# cache device = brd /dev/ram1 (64 MiB, fast "NVMe").
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
P=/sys/module/dm_l2arc/parameters
len=$(sectors /dev/ram0)
dm_create l2o "0 $len delay /dev/ram0 0 1"

# ---- defaults and modes
declare -A def=(
	[l2arc_write_max]=33554432 [l2arc_write_boost]=33554432 [l2arc_noprefetch]=1
	[l2arc_headroom]=8 [l2arc_feed_secs]=1 [l2arc_feed_min_ms]=200
	[l2arc_feed_again]=1 [l2arc_meta_percent]=10 [l2arc_max_errors]=16
	[l2arc_handoff_max]=67108864 [l2arc_dwpd_limit]=0 [l2arc_mfuonly]=0
	[l2arc_rebuild_enabled]=1 [l2arc_rebuild_blocks_min_l2size]=1073741824
	[l2arc_slow_bypass_pct]=0
)
for p in "${!def[@]}"; do
	[[ -f $P/$p ]] || die "no parameter $p"
	assert_eq "$p default" "${def[$p]}" "$(cat $P/$p)"
	assert_eq "$p mode" 644 "$(stat -c %a $P/$p)"
	add_cleanup eval "echo ${def[$p]} >$P/$p"
done
parm=$(modinfo -F parm "$L2ARC_KO")
for p in "${!def[@]}"; do
	grep -q "^$p:.*default" <<<"$parm" || die "$p: no MODULE_PARM_DESC with its default"
done
# load_module loads the module with l2arc_dwpd_limit=0 and
# l2arc_slow_bypass_pct=0 (def above); their own defaults are 100 and 200
grep -q "^l2arc_dwpd_limit:.*(default 100," <<<"$parm" || die "l2arc_dwpd_limit: default is not 100"
grep -q "^l2arc_slow_bypass_pct:.*(default 200," <<<"$parm" || die "l2arc_slow_bypass_pct: default is not 200"


refuse() {	# refuse PARAM VALUE
	local f=$P/$1 old
	old=$(cat "$f")
	if (printf '%s\n' "$2" >"$f") 2>/dev/null; then
		die "$1: write of '$2' was accepted (now $(cat "$f"))"
	fi
	assert_eq "$1 after refused '$2'" "$old" "$(cat "$f")"
}
take() {
	printf '%s\n' "$2" >"$P/$1" || die "$1: write of '$2' refused"
	assert_eq "$1 after '$2'" "$2" "$(cat "$P/$1")"
}
declare -A lo=(
	[l2arc_write_max]=4096 [l2arc_write_boost]=0 [l2arc_noprefetch]=0
	[l2arc_headroom]=0 [l2arc_feed_secs]=1 [l2arc_feed_min_ms]=10
	[l2arc_feed_again]=0 [l2arc_meta_percent]=1 [l2arc_max_errors]=1
	[l2arc_handoff_max]=0 [l2arc_dwpd_limit]=0 [l2arc_mfuonly]=0
	[l2arc_rebuild_enabled]=0 [l2arc_rebuild_blocks_min_l2size]=0
	[l2arc_slow_bypass_pct]=0
)
declare -A hi=(
	[l2arc_write_max]=4294967296 [l2arc_write_boost]=4294967296 [l2arc_noprefetch]=1
	[l2arc_headroom]=1024 [l2arc_feed_secs]=3600 [l2arc_feed_min_ms]=3600000
	[l2arc_feed_again]=1 [l2arc_meta_percent]=90 [l2arc_max_errors]=1000000
	[l2arc_handoff_max]=4294967296 [l2arc_dwpd_limit]=100000 [l2arc_mfuonly]=1
	[l2arc_rebuild_enabled]=1
	[l2arc_rebuild_blocks_min_l2size]=18446744073709551615
	[l2arc_slow_bypass_pct]=100000
)
for v in 18446744073709551615 ' 1' 0x10 +5 1e3 '4096 5'; do
	refuse l2arc_write_max "$v"
done
for p in "${!def[@]}"; do
	for v in -1 18446744073709551616 12abc ''; do
		refuse "$p" "$v"
	done
	# (2^64 - 1 has no "+ 1" in bash: the first line above refuses it)
	[[ ${hi[$p]} == 18446744073709551615 ]] ||
		refuse "$p" $((${hi[$p]} + 1))
	((${lo[$p]} == 0)) || refuse "$p" $((${lo[$p]} - 1))
	take "$p" "${lo[$p]}"
	take "$p" "${hi[$p]}"
	echo "${def[$p]}" >"$P/$p"
done
echo "module parameters: defaults, modes and ranges ok"

st() { arcstats_row "$proc" "$1"; }
tun() { dmsetup status l2p | sed -E "s/.* $1 ([0-9]+) .*/\\1/"; }
mkdev() {	# mkdev FEATURES...
	local f=(arc_max 8388608 prefetch_disable 1 "$@")
	tbl="0 $len l2arc /dev/mapper/l2o /dev/ram1 8 ${#f[@]} ${f[*]}"
	dm_create l2p "$tbl"
	proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2p | tr -d ' ')/arcstats
}
warm() { echo $(($(st evict_l2_cached) + $(st evict_l2_eligible) + $(st evict_l2_ineligible))); }
feed_wrote() {	# feed_wrote BYTES: the next feed writes exactly BYTES
	local w0 f0
	w0=$(st l2_write_bytes) f0=$(st l2_feeds)
	dmsetup message l2p 0 l2arc_feed || die "l2arc_feed message failed"
	assert_eq "l2_feeds" $((f0 + 1)) "$(st l2_feeds)"
	assert_eq "bytes written by the feed ($2)" "$1" $(($(st l2_write_bytes) - w0))
}

echo 3600 >$P/l2arc_feed_secs

# ---- cold ARC: write_max + boost
echo 65536 >$P/l2arc_write_max
echo 32768 >$P/l2arc_write_boost
mkdev
dd if=/dev/mapper/l2p of=/dev/null bs=1M count=1 iflag=direct status=none
assert_eq "ARC cold (no eviction)" 0 "$(warm)"
feed_wrote 98304 "cold: write_max 64K + boost 32K"

# ---- warm ARC, fio running: the module value is used by the next feed
dd if=/dev/mapper/l2p of=/dev/null bs=1M count=16 iflag=direct status=none
(($(warm) > 0)) || die "ARC not warm after reading 2x arc_max"
fio --name=bg --filename=/dev/mapper/l2p --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=4 --size=16M --time_based --runtime=60 \
	--randseed=7 --output=/dev/null &
fiopid=$!
add_cleanup eval "kill $fiopid 2>/dev/null; wait $fiopid 2>/dev/null || true"
sleep 2
kill -0 $fiopid || die "fio is not running"
feed_wrote 65536 "warm, busy: module write_max 64K"
echo 131072 >$P/l2arc_write_max
feed_wrote 131072 "warm, busy: module write_max 128K"
echo 65536 >$P/l2arc_write_max
feed_wrote 65536 "warm, busy: module write_max 64K again"

# ---- per-device value by message
dmsetup message l2p 0 l2arc_write_max 131072
assert_eq "status l2arc_write_max (own)" 131072 "$(tun l2arc_write_max)"
assert_eq "status l2arc_write_boost (module's)" 32768 "$(tun l2arc_write_boost)"
feed_wrote 131072 "own write_max 128K, module 64K"
echo 16384 >$P/l2arc_write_max
assert_eq "status l2arc_write_max (own, module changed)" 131072 "$(tun l2arc_write_max)"
feed_wrote 131072 "own write_max 128K, module 16K"
dmsetup message l2p 0 l2arc_write_max default
assert_eq "status l2arc_write_max (default)" 16384 "$(tun l2arc_write_max)"
feed_wrote 16384 "back to module's 16K"
for v in -1 12abc 4095 4294967297 18446744073709551616 0x1000 +4096 4096k; do
	if dmsetup message l2p 0 l2arc_write_max "$v" 2>/dev/null; then
		die "message l2arc_write_max '$v' accepted"
	fi
	assert_eq "status l2arc_write_max after refused '$v'" 16384 "$(tun l2arc_write_max)"
done
for m in "l2arc_noprefetch 2" "l2arc_headroom 1025" "l2arc_feed_secs 0" \
	"l2arc_feed_min_ms 9" "l2arc_max_errors 0" "l2arc_meta_percent 91" \
	"l2arc_feed_again 2" "l2arc_bogus 1" "l2arc_write_max" "arc_max 65536"; do
	# shellcheck disable=SC2086
	if dmsetup message l2p 0 $m 2>/dev/null; then
		die "message '$m' accepted"
	fi
done
assert_eq "status l2arc_noprefetch" 1 "$(tun l2arc_noprefetch)"
assert_eq "status l2arc_headroom" 8 "$(tun l2arc_headroom)"
assert_eq "status l2arc_feed_secs" 3600 "$(tun l2arc_feed_secs)"
kill $fiopid 2>/dev/null || true
wait $fiopid 2>/dev/null || true
dm_remove l2p
echo "per-device messages ok"

# ---- table features: in force, survive a reload, override the module
echo 3600 >$P/l2arc_feed_secs
feat=(l2arc_write_max 65536 l2arc_write_boost 4096 l2arc_noprefetch 0 l2arc_headroom 8
	l2arc_feed_secs 3600 l2arc_feed_min_ms 500 l2arc_feed_again 0 l2arc_max_errors 7
	l2arc_mfuonly 0)
# l2arc_meta_percent bounds all devices together: module-wide only
if dmsetup create l2bad --table "0 $len l2arc /dev/mapper/l2o /dev/ram1 8 2 l2arc_meta_percent 20" 2>/dev/null; then
	dm_remove l2bad
	die "table feature l2arc_meta_percent accepted"
fi
mkdev "${feat[@]}"
want="0 $len l2arc $(dmsetup info -c --noheadings --separator : -o major,minor l2o | tr -d ' ') 1:1 8 $((${#feat[@]} + 4)) arc_max 8388608 prefetch_disable 1 ${feat[*]}"
assert_eq "table" "$want" "$(dmsetup table l2p)"
check_feat() {
	local i
	for ((i = 0; i < ${#feat[@]}; i += 2)); do
		assert_eq "status ${feat[i]} ($1)" "${feat[i + 1]}" "$(tun "${feat[i]}")"
	done
}
check_feat "table"
echo 1048576 >$P/l2arc_write_max
check_feat "module changed"
dmsetup load l2p --table "$tbl"
dmsetup suspend l2p
dmsetup resume l2p
assert_eq "table after reload" "$want" "$(dmsetup table l2p)"
check_feat "after reload"
dd if=/dev/mapper/l2p of=/dev/null bs=1M count=1 iflag=direct status=none
feed_wrote 69632 "table write_max 64K + boost 4K (cold)"
dmsetup message l2p 0 l2arc_write_max 8192
feed_wrote 12288 "message over table: 8K + 4K"
dmsetup message l2p 0 l2arc_write_max default
assert_eq "status l2arc_write_max after 'default' on a table value" 1048576 "$(tun l2arc_write_max)"
dm_remove l2p
echo "params ok"

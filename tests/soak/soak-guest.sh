#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The soak (make soak; run inside the VM by scripts/soak, never on a host).
# For DURATION minutes (argument 1, default 30):
#   - fio verify loops on two devices at once: "sa" (ARC + L2ARC: origin
#     /dev/ram0 96 MiB, cache device the dm-linear "sa_cache" over
#     /dev/ram1 64 MiB) and "sb" (ARC only: /dev/ram2 64 MiB); each pass
#     writes 32 MiB at random (bsrange 512-1m, O_DIRECT half the time,
#     buffered else) and reads it back with crc32c verify;
#   - every 15 s one action, in turn: a reload of sa or sb with another
#     arc_max (1, 4, 16 or 64 MiB); a cache device failure (dm-error
#     swapped in under sa_cache for 20 s, then the linear back and sa
#     reloaded to take its cache device again); clear_stats; l2arc_feed;
#     memory pressure (a process takes 60 % of the VM's memory, touching
#     every page: the shrinker gives ARC memory back); verify;
#   - one line a minute: fio passes and errors, and the figures of both
#     devices.
# Then: every device compared with its origin (O_DIRECT), the verify
# message, the arcstats invariants (tests/vm/lib.sh check_rows), and a
# closing summary.  Exit 0 only with zero verify errors, zero mismatches
# and zero broken invariants (the kernel log is scanned by scripts/vm-run).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export L2ARC_KO=$L2ARC_TOP/build/$L2ARC_KVER/dm-l2arc.ko
cd /tmp
. "$here/../vm/lib.sh"
set +e	# a soak goes on after a failure and reports it at the end

minutes=${1:-30}
end=$((SECONDS + minutes * 60))
load_module
P=/sys/module/dm_l2arc/parameters
echo 0 >$P/l2arc_noprefetch
mk_brd 3 96
mib() { echo $(( $1 << 20 )); }
csz=$((64 << 11))
dm_create sa_cache "0 $csz linear /dev/ram1 0"
sa_table() { echo "0 $(sectors /dev/ram0) l2arc /dev/ram0 /dev/mapper/sa_cache 8 2 arc_max $(mib "$1")"; }
sb_table() { echo "0 $((64 << 11)) l2arc /dev/ram2 - 8 2 arc_max $(mib "$1")"; }
dm_create sa "$(sa_table 16)"
dm_create sb "$(sb_table 16)"

reload() {	# reload NAME TABLE
	dmsetup load "$1" --table "$2" && dmsetup suspend "$1" && dmsetup resume "$1"
}

# fio_loop NAME DEV SIZE_MiB: verify passes until the stop file appears
fio_loop() {
	local name=$1 dev=$2 size=$3 pass=0 err=0 direct
	while [[ ! -e /tmp/soak.stop ]]; do
		pass=$((pass + 1))
		direct=$((pass % 2))
		if ! fio --name="$name" --filename="$dev" --rw=randwrite \
			--bsrange=512-1m --size=32m \
			--offset=$(( (RANDOM % (size / 32)) * 32 ))m \
			--direct=$direct --ioengine=psync --verify=crc32c \
			--verify_fatal=1 --verify_dump=0 --randseed=$pass \
			--output=/tmp/fio-$name.out >/dev/null 2>&1 ||
			grep -q 'verify.*bad\|err= *[1-9]' /tmp/fio-$name.out; then
			err=$((err + 1))
			cp /tmp/fio-$name.out "$L2ARC_OUT/soak-fio-$name-fail-$err.out"
		fi
		echo "$pass $err" >/tmp/soak.$name
	done
}
fio_loop sa /dev/mapper/sa 96 &
pa=$!
fio_loop sb /dev/mapper/sb 64 &
pb=$!

row() { arcstats_row "$(proc_of "$1")" "$2"; }
fig() {	# fig NAME: a short line of figures
	local d=$1
	printf '%s hits %s misses %s l2_hits %s l2_size %s c %s %s' "$d" \
		"$(row "$d" hits)" "$(row "$d" misses)" "$(row "$d" l2_hits)" \
		"$(row "$d" l2_size)" "$(row "$d" c)" \
		"$(dmsetup status "$d" | awk '{ print $NF }')"
}

declare -A acts=()
act() { acts[$1]=$(( ${acts[$1]:-0} + 1 )); }
bad=0
note_bad() { echo "soak: FAIL: $*"; bad=$((bad + 1)); }
i=0 next_line=$((SECONDS + 60)) minute=0
sizes=(1 4 16 64)
while ((SECONDS < end)); do
	sleep 15
	i=$((i + 1))
	case $((i % 7)) in
	0) reload sa "$(sa_table "${sizes[RANDOM % 4]}")" || note_bad "reload sa"; act reload ;;
	1) reload sb "$(sb_table "${sizes[RANDOM % 4]}")" || note_bad "reload sb"; act reload ;;
	2)	# the cache device fails for 20 s, then comes back
		reload sa_cache "0 $csz error" || note_bad "dm-error in"
		sleep 20
		reload sa_cache "0 $csz linear /dev/ram1 0" || note_bad "linear back"
		reload sa "$(sa_table 16)" || note_bad "reload sa after the failure"
		act cache_failure ;;
	3) dmsetup message sa 0 clear_stats && dmsetup message sb 0 clear_stats || note_bad "clear_stats"
	   act clear_stats ;;
	4) dmsetup message sa 0 l2arc_feed || note_bad "l2arc_feed"; act feed ;;
	5)	# memory pressure: 60 % of the VM's memory, every page touched
		python3 -c '
import re
kb = int(re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read()).group(1))
n = kb * 1024 * 6 // 10
b = bytearray(n)
b[::4096] = b"\1" * len(range(0, n, 4096))
' || true
		act memory_pressure ;;
	6) for d in sa sb; do
		dmsetup message "$d" 0 verify >/dev/null || note_bad "verify $d"
	   done
	   act verify ;;
	esac
	if ((SECONDS >= next_line)); then
		minute=$((minute + 1))
		next_line=$((next_line + 60))
		echo "soak: minute $minute: fio sa $(cat /tmp/soak.sa 2>/dev/null || echo '0 0') sb $(cat /tmp/soak.sb 2>/dev/null || echo '0 0') (passes errors); $(fig sa); $(fig sb)"
	fi
done
touch /tmp/soak.stop
wait $pa $pb
read -r pass_a err_a </tmp/soak.sa
read -r pass_b err_b </tmp/soak.sb

# the end: every device against its origin, the directory, the invariants
mism=0
for d in "sa /dev/ram0" "sb /dev/ram2"; do
	set -- $d
	if ! cmp <(dd if=/dev/mapper/$1 bs=1M iflag=direct status=none) \
		<(dd if=$2 bs=1M iflag=direct status=none count=$(( $(sectors /dev/mapper/$1) / 2048 ))); then
		mism=$((mism + 1))
		note_bad "$1 differs from its origin"
	fi
	dmsetup message "$1" 0 verify >/dev/null || note_bad "verify $1 at the end"
	s=$(snap "$(proc_of "$1")")
	slots=0
	[[ $1 == sa ]] && slots=$((csz / 8))
	( check_rows "$s" "$slots" 4096 ) || note_bad "$1: arcstats invariants"
done
summary="soak: $minutes min on $(uname -r): fio passes sa $pass_a sb $pass_b, verify errors $((err_a + err_b)), mismatches $mism, actions:"
for k in $(printf '%s\n' "${!acts[@]}" | sort); do summary+=" $k ${acts[$k]}"; done
summary+="; $(fig sa); $(fig sb); failures $bad"
echo "$summary"
echo "$summary" >"$L2ARC_OUT/soak-summary"
((err_a + err_b == 0 && mism == 0 && bad == 0))

# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tests/vm/lib.sh - helpers for the VM tests in tests/vm/*.sh.
#
# Source it at the top of a test:  . "$(dirname "$0")/lib.sh"
# It sets `set -euo pipefail` and an EXIT trap that undoes what the test
# set up (dm devices, brd, the module), in reverse order.
#
#   die MSG...                  fail the test with MSG
#   skip MSG...                 skip the test (exit 77) with MSG
#   assert_eq NAME EXPECTED ACTUAL
#   add_cleanup CMD...          run CMD at exit (last added runs first)
#   dm_create NAME TABLE        dmsetup create, removed again at exit
#   dm_remove NAME              dmsetup remove (with retries)
#   load_module                 modprobe dm_mod; insmod $L2ARC_KO unless loaded
#   unload_module               rmmod dm_l2arc if loaded
#   mk_brd COUNT SIZE_MiB       fresh brd RAM disks /dev/ram0..COUNT-1
#   sectors DEV                 size of DEV in 512-byte sectors
#   arcstats_row FILE ROW       one row's value from an arcstats file
#   expect_rows FILE ROW=VAL... assert rows of an arcstats file
#   mk_discard_origin NAME MiB BS
#                               a 64 MiB-ish origin that supports discard:
#                               /dev/ram0 when brd does, else a memory-backed
#                               null_blk; sets DISCARD_ORIGIN
#
# Environment (set by tests/vm/runner-guest): L2ARC_KVER, L2ARC_TOP,
# L2ARC_KO, L2ARC_OUT, L2ARC_TEST (test name), L2ARC_TEST_OUT (a directory
# for this test's files, kept in the results).
set -euo pipefail

: "${L2ARC_KVER:=$(uname -r)}"
: "${L2ARC_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${L2ARC_KO:=$L2ARC_TOP/build/$L2ARC_KVER/dm-l2arc.ko}"
export L2ARC_KVER L2ARC_TOP L2ARC_KO DM_DISABLE_UDEV=1

die() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

assert_eq() {
	local name=$1 expected=$2 actual=$3
	[[ $expected == "$actual" ]] ||
		die "$name: expected '$expected', got '$actual'"
}

sectors() {
	blockdev --getsz "$1"
}

# arcstats_row FILE ROW: the value of ROW in an arcstats file (kstat text
# format: two header lines, then "name type value"); dies when it is missing
arcstats_row() {
	local v
	v=$(awk -v n="$2" 'NR > 2 && $1 == n { print $3 }' "$1")
	[[ -n $v ]] || die "no row $2 in $1"
	echo "$v"
}

# expect_rows FILE ROW=VAL...: each ROW of the arcstats FILE equals VAL
expect_rows() {
	local file=$1 kv
	shift
	for kv in "$@"; do
		assert_eq "${kv%%=*}" "${kv#*=}" "$(arcstats_row "$file" "${kv%%=*}")"
	done
}

# mk_discard_origin NAME MiB BLOCKSIZE: an origin that reads zeroes after
# a discard, in DISCARD_ORIGIN: /dev/ram0 (made by mk_brd before) when
# this kernel's brd supports discard (6.12), else a memory-backed null_blk
# with discard=1 configured as NAME (6.1), MiB large, with BLOCKSIZE-byte
# sectors.
mk_discard_origin() {
	local name=$1 mib=$2 bs=$3 nb dev i n
	DISCARD_ORIGIN=/dev/ram0
	[[ $(cat /sys/block/ram0/queue/discard_max_bytes) == 0 ]] || return 0
	echo "brd has no discard on $(uname -r): origin is null_blk memory_backed=1 discard=1"
	modprobe null_blk nr_devices=0
	add_cleanup rmmod null_blk
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	nb=/sys/kernel/config/nullb/$name
	mkdir "$nb"
	add_cleanup rmdir "$nb"
	echo "$mib" >"$nb/size"
	echo 1 >"$nb/memory_backed"
	echo 1 >"$nb/discard"
	echo "$bs" >"$nb/blocksize"
	echo 1 >"$nb/power"
	add_cleanup eval "echo 0 >$nb/power"
	# the disk is named after the configfs directory since 5.19-ish,
	# nullb<index> before
	dev=''
	for i in $(seq 50); do
		for n in "$name" "nullb$(cat "$nb/index")"; do
			[[ -e /sys/block/$n/dev ]] && dev=$n
		done
		[[ -n $dev ]] && break
		sleep 0.1
	done
	[[ -n $dev ]] || die "the null_blk disk did not appear in /sys/block ($(ls /sys/block | tr '\n' ' '))"
	DISCARD_ORIGIN=/dev/$dev
	if [[ ! -b $DISCARD_ORIGIN ]]; then	# no devtmpfs node (no udev): make one
		mknod "$DISCARD_ORIGIN" b $(tr : ' ' <"/sys/block/$dev/dev") ||
			die "mknod $DISCARD_ORIGIN failed"
		add_cleanup rm -f "$DISCARD_ORIGIN"
	fi
}

# ------------------------------------------------------------------ cleanup
_l2arc_cleanups=()
_l2arc_dm_before=$(dmsetup ls 2>/dev/null | awk '$1 != "No" { print $1 }' | sort || true)

add_cleanup() {
	_l2arc_cleanups+=("$(printf '%q ' "$@")")
}

dm_remove() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		dmsetup remove "$1" 2>/dev/null && return 0
		dmsetup info "$1" >/dev/null 2>&1 || return 0
		sleep 0.2
	done
	dmsetup remove "$1"
}

dm_create() {
	local name=$1 table=$2
	dmsetup create "$name" --table "$table"
	add_cleanup dm_remove "$name"
}

# Remove dm devices this test created but did not register, top-down:
# retry until nothing is left or no progress is made (stacked devices).
_l2arc_remove_new_dm() {
	local now new d left progress=1
	while ((progress)); do
		progress=0
		now=$(dmsetup ls 2>/dev/null | awk '$1 != "No" { print $1 }' | sort || true)
		new=$(comm -13 <(echo "$_l2arc_dm_before") <(echo "$now") | grep . || true)
		[[ -n $new ]] || return 0
		for d in $new; do
			dmsetup remove "$d" 2>/dev/null && progress=1
		done
	done
	left=$(comm -13 <(echo "$_l2arc_dm_before") <(dmsetup ls 2>/dev/null | awk '$1 != "No" { print $1 }' | sort) | tr '\n' ' ')
	[[ -z ${left// } ]] || echo "lib.sh: could not remove dm devices: $left" >&2
}

# On exit: registered cleanups last-first, then dm devices the test left,
# then a second try of cleanups that failed (e.g. rmmod brd under a dm
# device made with plain dmsetup). A failed cleanup fails a passing test.
_l2arc_exit() {
	local rc=$? i failed=()
	set +e
	for ((i = ${#_l2arc_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_l2arc_cleanups[i]}" 2>/dev/null || failed+=("${_l2arc_cleanups[i]}")
	done
	_l2arc_cleanups=()
	_l2arc_remove_new_dm
	for i in "${failed[@]}"; do
		if ! eval "$i"; then
			echo "lib.sh: cleanup failed: $i" >&2
			((rc == 0)) && rc=1
		fi
	done
	exit "$rc"
}
trap _l2arc_exit EXIT

# ------------------------------------------------------------------ modules
load_module() {
	modprobe dm_mod
	modprobe libcrc32c	# insmod does not load dependencies
	[[ -d /sys/module/dm_l2arc ]] && return 0
	[[ -f $L2ARC_KO ]] || die "module not built: $L2ARC_KO (run make for $L2ARC_KVER)"
	insmod "$L2ARC_KO"
	add_cleanup unload_module
}

unload_module() {
	[[ -d /sys/module/dm_l2arc ]] || return 0
	rmmod dm_l2arc
}

# mk_brd COUNT SIZE_MiB: (re)load brd with COUNT RAM disks of SIZE_MiB each.
mk_brd() {
	local count=$1 mib=$2 i
	if [[ -d /sys/module/brd ]]; then
		rmmod brd || die "brd is in use, cannot make fresh RAM disks"
	fi
	modprobe brd rd_nr="$count" rd_size=$((mib * 1024)) max_part=0
	for ((i = 0; i < count; i++)); do
		[[ -b /dev/ram$i ]] || die "/dev/ram$i did not appear"
	done
	add_cleanup rmmod brd
}

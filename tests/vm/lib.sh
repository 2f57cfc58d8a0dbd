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
#   load_module                 modprobe dm_mod; insmod $L2ARC_KO unless loaded,
#                               with l2arc_dwpd_limit=0 (no wear cap) and
#                               l2arc_slow_bypass_pct=0 (no bypass)
#   unload_module               rmmod dm_l2arc if loaded
#   mk_brd COUNT SIZE_MiB       fresh brd RAM disks /dev/ram0..COUNT-1
#   sectors DEV                 size of DEV in 512-byte sectors
#   arcstats_row FILE ROW       one row's value from an arcstats file
#   expect_rows FILE ROW=VAL... assert rows of an arcstats file
#   warm_by_feeds NAME MiB      read a set in 2 MiB chunks, l2arc_feed after each
#   l2_rebuilt NAME             wait for NAME's L2ARC rebuild (a feed by message)
#   persist_any_size            metadata on cache devices of any size (this test)
#   HOLD_MS                     a dm-delay read delay (ms) long enough to
#                               outlast any few commands on any kernel: a
#                               read held until release_held ends the hold
#   release_held NAME           once dm-delay device NAME holds a read (its
#                               status counts it), send on every bio it
#                               holds (a suspend runs dm-delay's
#                               presuspend, which flushes them); the table
#                               delays again after the resume
#   mk_discard_origin NAME MiB BS
#                               a 64 MiB-ish origin that supports discard:
#                               /dev/ram0 when brd does, else a memory-backed
#                               null_blk; sets DISCARD_ORIGIN
#
# Environment (set by tests/vm/runner-guest): L2ARC_KVER, L2ARC_TOP,
# L2ARC_KO, L2ARC_OUT, L2ARC_TEST (test name), L2ARC_TEST_OUT (a directory
# for this test's files, kept in the results).
#
# It sources scripts/lib.sh, the helpers scripts/bench and scripts/demo
# share with the tests (minor_of, dm_kname, arcstats_value, ...).
set -euo pipefail

: "${L2ARC_KVER:=$(uname -r)}"
: "${L2ARC_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${L2ARC_KO:=$L2ARC_TOP/build/$L2ARC_KVER/dm-l2arc.ko}"
export L2ARC_KVER L2ARC_TOP L2ARC_KO DM_DISABLE_UDEV=1
# shellcheck source=scripts/lib.sh
. "$L2ARC_TOP/scripts/lib.sh"

# A held read is released by release_held, not by the clock: the debug
# kernel (lockdep, KASAN) beside other VMs runs commands 4 to 15 times
# slower than Debian's, and a fixed hold of a few seconds ran out there
# before the commands it was meant to outlast.
HOLD_MS=120000

release_held() {
	local t0=$SECONDS
	# first the read must be held: a counter (misses, iohits, l2_hits)
	# grows before the fill's bio reaches dm-delay, and a bio that
	# arrives during the suspend is delayed again after the resume
	until (($(dmsetup status "$1" | awk '$3 == "delay" { print $4 }') > 0)); do
		((SECONDS - t0 < 60)) || die "release_held: dm-delay device $1 holds no read"
		sleep 0.1
	done
	dmsetup suspend "$1"
	dmsetup resume "$1"
}

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

# kmark: write a line that no other line holds into the kernel log and
# print it, for klog_since.  Counting the log's lines instead misses what
# comes after the mark once the ring buffer is full (after many tests
# in one VM), as the oldest lines leave it.
kmark() {
	local m="dm-l2arc test mark $$ $EPOCHREALTIME $RANDOM"
	echo "$m" >/dev/kmsg
	echo "$m"
}

# klog_since MARK: the kernel log after the line that holds MARK; dies
# when MARK has left the ring buffer (the lines since are then not all
# there)
klog_since() {
	dmesg | awk -v m="$1" 'f { print } index($0, m) { f = 1 } END { exit !f }' ||
		die "the kernel log's mark '$1' has left the ring buffer"
}

sectors() {
	blockdev --getsz "$1"
}

# arcstats_row FILE ROW: the value of ROW in an arcstats file (kstat text
# format: two header lines, then "name type value"); dies when it is missing
arcstats_row() {
	local v
	v=$(arcstats_value "$1" "$2")
	[[ -n $v ]] || die "no row $2 in $1"
	echo "$v"
}

# status_feed DEV: the feed's words of the INFO status line,
# "<l2_write_rate> <l2_dwpd_cap> <l2_write_bytes_24h> <l2_handoffs>
# <l2_evict_missed>" (fields 23 to 27; Documentation, "Status")
status_feed() {
	dmsetup status "$1" | awk '$3 == "l2arc" { print $23, $24, $25, $26, $27 }'
}

# l2_rebuilt NAME: wait until the L2ARC rebuild that NAME's first resume
# set going (the first feed reads the log back) is over: a feed by message
# runs it first or waits for it, and with an empty ARC writes nothing
l2_rebuilt() {
	dmsetup message "$1" 0 l2arc_feed
}

# persist_any_size: cache devices of any size hold a header and log blocks
# during this test (l2arc_rebuild_blocks_min_l2size 0, restored at exit)
persist_any_size() {
	local p=/sys/module/dm_l2arc/parameters/l2arc_rebuild_blocks_min_l2size
	add_cleanup eval "[[ ! -e $p ]] || echo $(cat $p) >$p"
	echo 0 >$p
}

# warm_by_feeds NAME MiB: read the first MiB of /dev/mapper/NAME in 2 MiB
# chunks, an l2arc_feed message after each (a whole set onto L2 behind a
# small ARC, feeds by message only)
warm_by_feeds() {
	local i
	for i in $(seq 0 2 $(($2 - 1))); do
		dd if="/dev/mapper/$1" of=/dev/null bs=1M skip="$i" count=2 iflag=direct status=none
		dmsetup message "$1" 0 l2arc_feed
	done
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
	local name=$1 mib=$2 bs=$3
	DISCARD_ORIGIN=/dev/ram0
	[[ $(cat /sys/block/ram0/queue/discard_max_bytes) == 0 ]] || return 0
	echo "brd has no discard on $(uname -r): origin is null_blk memory_backed=1 discard=1"
	mk_nullb "$name" size="$mib" memory_backed=1 discard=1 blocksize="$bs"
	DISCARD_ORIGIN=$NULLB_DEV
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
	# the wear cap off: 100 % of a drive write per day is 190 to 1,550
	# bytes/s on these 16-128 MiB RAM disks, and a feed that laps one
	# would write a block every few seconds (64-l2-dwpd tests the cap);
	# and no slow-cache bypass: a read held in dm-delay would make a
	# cache device "slow" and send the L2 hits a test counts to the
	# origin (84-l2-slow-cache tests the bypass).  The what-if stays
	# off (the default); 30-arc-traces and 85-whatif turn it on.
	insmod "$L2ARC_KO" l2arc_dwpd_limit=0 l2arc_slow_bypass_pct=0
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
	brd_load "$count" "$mib"
	for ((i = 0; i < count; i++)); do
		[[ -b /dev/ram$i ]] || die "/dev/ram$i did not appear"
	done
	add_cleanup rmmod brd
}

# ------------------------------------------------------------------ devices
# proc_of NAME: the arcstats file of the l2arc device NAME
proc_of() {
	echo "/proc/dm-l2arc/$(dm_kname "$1")/arcstats"
}

# ctr_error: the ti->error of the last table the kernel refused (an l2arc
# or l2arc-pool target), from its log
ctr_error() {
	dmesg | grep 'device-mapper: table: ' | tail -1 |
		sed -n 's/.*: l2arc[a-z-]*: \(.*\) (-E[A-Z]*)$/\1/p'
}

# expect_error MESSAGE TABLE: creating TABLE fails with MESSAGE as its
# ti->error and leaves the device list as $before (set it first, to
# "$(dmsetup ls | sort)"); counts in n
expect_error() {
	local exp=$1 table=$2 got
	if dmsetup create l2_bad --table "$table" >/dev/null 2>&1; then
		dmsetup remove l2_bad
		die "accepted: '$table'"
	fi
	got=$(ctr_error)
	[ "$got" = "$exp" ] || die "'$table': expected '$exp', got '$got'"
	[ "$(dmsetup ls | sort)" = "$before" ] || die "'$table' changed the device list"
	n=$((${n:-0} + 1))
}

# pyread DEV SPEC...: 4 KiB O_DIRECT reads of the blocks of each SPEC, in
# order: B, B*N (B N times) or A-B (A to B)
pyread() {
	python3 - "$@" <<-'EOF'
	import mmap, os, sys
	fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
	buf = mmap.mmap(-1, 4096)
	for spec in sys.argv[2:]:
	    if '*' in spec:
	        b, n = map(int, spec.split('*'))
	        blocks = [b] * n
	    elif '-' in spec:
	        a, b = map(int, spec.split('-'))
	        blocks = range(a, b + 1)
	    else:
	        blocks = [int(spec)]
	    for b in blocks:
	        if os.preadv(fd, [buf], b * 4096) != 4096:
	            sys.exit("short read")
	EOF
}

# mk_nullb NAME ATTR=VALUE...: a null_blk disk configured through configfs
# (size in MiB, memory_backed, irqmode, completion_nsec, ...), removed at
# exit; sets NULLB_DEV to its /dev node.  Loads null_blk with no devices
# of its own.
mk_nullb() {
	local name=$1 nb kv dev='' n i
	shift
	[[ -d /sys/module/null_blk ]] || {
		modprobe null_blk nr_devices=0
		add_cleanup rmmod null_blk
	}
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	nb=/sys/kernel/config/nullb/$name
	mkdir "$nb"
	add_cleanup rmdir "$nb"
	for kv in "$@"; do
		echo "${kv#*=}" >"$nb/${kv%%=*}" || die "null_blk $name: cannot set $kv"
	done
	echo 1 >"$nb/power"
	add_cleanup eval "echo 0 >$nb/power"
	for i in $(seq 50); do
		for n in "$name" "nullb$(cat "$nb/index")"; do
			[[ -e /sys/block/$n/dev ]] && dev=$n
		done
		[[ -n $dev ]] && break
		sleep 0.1
	done
	[[ -n $dev ]] || die "null_blk $name did not appear in /sys/block"
	NULLB_DEV=/dev/$dev
	if [[ ! -b $NULLB_DEV ]]; then
		mknod "$NULLB_DEV" b $(tr : ' ' <"/sys/block/$dev/dev") ||
			die "mknod $NULLB_DEV failed"
		add_cleanup rm -f "$NULLB_DEV"
	fi
}

# wait_for SECS DESCRIPTION CMD...: poll CMD every 0.1 s until it succeeds;
# fail the test after SECS seconds
wait_for() {
	local secs=$1 what=$2 t0=$SECONDS
	shift 2
	until "$@"; do
		((SECONDS - t0 < secs)) || die "timed out after ${secs}s waiting for $what"
		sleep 0.1
	done
}

# inflight DEV: "reads writes" in flight on block device DEV (/dev/X)
inflight() {
	local d
	d=$(basename "$(readlink -f "$1")")
	cat "/sys/block/$d/inflight"
}

# snap FILE: a copy of an arcstats file taken in one read, so that rows
# compared with each other come from the same moment
snap() {
	local f
	f=$(mktemp)
	cat "$1" >"$f"
	echo "$f"
}

# check_rows FILE SLOTS BLOCK_BYTES: the invariants that hold between the
# rows of one arcstats snapshot (Documentation/dm-l2arc.rst, "Statistics",
# "Invariants"); SLOTS = the cache device's slots (0 for none); dies
# naming every one that does not hold
check_rows() {
	awk -v slots="$2" -v bs="$3" -v hdr=48 '
	NR > 2 { v[$1] = $3 }
	function need(ok, what) { if (!ok) { print "invariant broken: " what; bad = 1 } }
	END {
		# the slot table: 16 B a slot, and 4 B a bucket, the slots
		# rounded up to a power of two, halved (dm-l2arc/l2index.c)
		n = 1; b = 0
		while (n < slots) { n *= 2; b++ }
		idx = slots > 0 ? slots * 16 + 4 * 2 ^ (b > 0 ? b - 1 : 0) : 0
		lists = v["mru_blocks"] + v["mfu_blocks"] + v["mru_ghost_blocks"] + v["mfu_ghost_blocks"]
		# L2-only blocks that still have a header (pinned or being written)
		l2hdrs = v["hash_elements"] - lists - v["l2_only_writing"]
		need(v["l2_size"] == v["l2_asize"], "l2_size " v["l2_size"] " = l2_asize " v["l2_asize"])
		need(v["l2_prefetch_asize"] + v["l2_mru_asize"] + v["l2_mfu_asize"] == v["l2_asize"],
			"l2_prefetch_asize + l2_mru_asize + l2_mfu_asize = l2_asize")
		need(v["l2_hdr_size"] == l2hdrs * hdr + idx,
			"l2_hdr_size " v["l2_hdr_size"] " = 48 x L2-only headers " l2hdrs " + slot table " idx " (" slots " slots)")
		need(v["l2_only_blocks"] * bs <= v["l2_size"], "l2_only_blocks x block <= l2_size")
		need(v["l2_size"] <= slots * bs, "l2_size <= slots x block")
		need(v["l2_size"] % bs == 0, "l2_size is whole blocks")
		need(l2hdrs >= 0 && l2hdrs <= v["l2_only_blocks"],
			"hash_elements = T1 + T2 + B1 + B2 + L2-only being written + L2-only headers, 0 <= L2-only headers " l2hdrs " <= l2_only_blocks")
		need(v["data_size"] == (v["mru_blocks"] + v["mfu_blocks"]) * bs, "data_size = resident blocks")
		need(v["mru_size"] + v["mfu_size"] == v["data_size"], "mru_size + mfu_size = data_size")
		need(v["hdr_size"] == v["hash_elements"] * hdr, "hdr_size = 48 x hash_elements")
		need(v["size"] == v["data_size"] + v["hdr_size"], "size = data_size + hdr_size")
		need(v["hash_table_size"] > 0, "hash_table_size > 0 (a table always has buckets)")
		need(v["hits"] == v["demand_data_hits"] + v["prefetch_data_hits"], "hits = demand + prefetch")
		need(v["iohits"] == v["demand_data_iohits"] + v["prefetch_data_iohits"], "iohits = demand + prefetch")
		need(v["misses"] == v["demand_data_misses"] + v["prefetch_data_misses"], "misses = demand + prefetch")
		need(v["mru_hits"] + v["mfu_hits"] == v["hits"] + v["iohits"], "mru_hits + mfu_hits = hits + iohits")
		need(v["mru_ghost_hits"] + v["mfu_ghost_hits"] <= v["misses"], "ghost hits <= misses")
		if (slots > 0)
			need(v["l2_hits"] + v["l2_misses"] == v["misses"], "l2_hits + l2_misses = misses")
		need(v["fill_run_blocks"] + v["l2_read_run_blocks"] == v["misses"],
			"fill_run_blocks + l2_read_run_blocks = misses")
		need(v["c_min"] <= v["c"] && v["c"] <= v["c_max"], "c_min <= c <= c_max")
		need(v["p"] <= v["c"], "p <= c")
		need(v["mru_blocks"] + v["mfu_blocks"] <= v["c"] / bs, "T1 + T2 <= c")
		need(v["mru_blocks"] + v["mru_ghost_blocks"] <= v["c"] / bs, "T1 + B1 <= c")
		need(v["mru_blocks"] + v["mfu_blocks"] + v["mru_ghost_blocks"] + v["mfu_ghost_blocks"] <= 2 * v["c"] / bs,
			"T1 + T2 + B1 + B2 <= 2c")
		exit bad
	}' "$1" || die "arcstats rows contradict each other ($1)"
}

# row_at_least FILE ROW N: the arcstats FILE's ROW is at least N (for
# wait_for: /sys/block/dm-*/inflight stays 0 for dm devices on 6.1, so a
# test sees that an I/O has started from the counter the target raised
# just before issuing it)
row_at_least() {
	(($(arcstats_row "$1" "$2") >= $3))
}

# mq_reads_in_flight DEV: reads in flight on the blk-mq disk DEV (/dev/X)
mq_reads_in_flight() {
	local r w
	read -r r w <"/sys/block/${1#/dev/}/inflight"
	echo "$r"
}

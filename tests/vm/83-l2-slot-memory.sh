#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
#
# A cache device whose slot table would not fit in l2arc_meta_percent of
# RAM is refused at table load, before anything is allocated (found by
# trying a peer's report: a 640 GiB cache device of 4 KiB blocks in this
# 2 GiB VM ran the OOM killer, which killed dmsetup, before the ctr failed
# with -ENOMEM).  Cache devices are dm-zero targets (no memory behind
# them): 640 GiB at 4 KiB blocks needs 3.0 GiB of slot table (16 bytes a
# block, 4 a bucket, the log's dirty bitmap); the table is refused with
# the exact ti->error (needed size, the bound, l2arc_meta_percent, RAM),
# the OOM killer does not run (/proc/vmstat oom_kill), MemAvailable is
# unchanged within 64 MiB, the device list is unchanged.  A 64 GiB one
# (288.0 MiB) is refused at l2arc_meta_percent 10 and loads at 20; an
# 8 GiB one (36.0 MiB) loads at 10.  The test shell is exempt from the OOM
# killer and dmsetup its first choice, so that on a kernel that does run
# it the test still reports.
# Devices: brd /dev/ram0 (origin, 16 MiB), dm-zero "zc" (cache devices).
. "$(dirname "$0")/lib.sh"

load_module
modprobe dm-zero
mk_brd 1 16
osz=$(sectors /dev/ram0)
pct=/sys/module/dm_l2arc/parameters/l2arc_meta_percent
add_cleanup eval "echo $(cat $pct) >$pct"
add_cleanup eval "echo $(cat /proc/$$/oom_score_adj) >/proc/$$/oom_score_adj"
echo -1000 >/proc/$$/oom_score_adj
echo 10 >$pct
ram=$(($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) * 1024))

# fmt BYTES: as the module prints a size (MiB, GiB or TiB, one decimal,
# truncated)
fmt() {
	local b=$1 i=0 u=(MiB GiB TiB) t
	while ((i < 2 && (b >> (30 + 10 * i)) > 0)); do
		i=$((i + 1))
	done
	t=$(((b * 10) >> (20 + 10 * i)))
	echo "$((t / 10)).$((t % 10)) ${u[i]}"
}

# need BLOCKS: bytes of slot table, buckets and dirty bitmap
need() {
	local n=$1 bits=0 logs
	while (((1 << bits) < n)); do
		bits=$((bits + 1))
	done
	((n > 1)) && bits=$((bits - 1))
	logs=$(((n + 253) / 254))
	echo $((16 * n + (4 << bits) + 8 * ((logs + 63) / 64)))
}

avail() {
	awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo
}

oom_kills() {
	awk '$1 == "oom_kill" { print $2 }' /proc/vmstat
}

# zero_cache GiB: zc, a dm-zero device of GiB
zero_cache() {
	dmsetup remove zc 2>/dev/null || true
	dmsetup create zc --table "0 $(($1 << 21)) zero"
}
add_cleanup eval "dmsetup remove zc 2>/dev/null; true"

# refused GiB: a cache device of GiB at 4 KiB blocks is refused with the
# exact ti->error, with no OOM kill and no memory taken
refused() {
	local gib=$1 n need_b lim exp before oom0 avail0 rc=0 got d
	n=$(($1 << 18))
	need_b=$(need $n)
	lim=$((ram * $(cat $pct) / 100))
	exp="Cache device needs $(fmt "$need_b") of slot table, over $(fmt $lim): l2arc_meta_percent ($(cat $pct)%) of RAM ($(fmt $ram))"
	zero_cache "$gib"
	before=$(dmsetup ls | sort)
	oom0=$(oom_kills) avail0=$(avail)
	(echo 1000 >/proc/self/oom_score_adj
	 exec dmsetup create l2big --table "0 $osz l2arc /dev/ram0 /dev/mapper/zc 8") \
		>"$L2ARC_TEST_OUT/dmsetup.out" 2>&1 || rc=$?
	echo "$gib GiB: dmsetup exit $rc, oom_kill $oom0 -> $(oom_kills), MemAvailable $avail0 -> $(avail) kB"
	((rc != 0)) || die "$gib GiB cache device accepted"
	assert_eq "$gib GiB: oom_kill (/proc/vmstat)" "$oom0" "$(oom_kills)"
	got=$(dmesg | grep 'device-mapper: table: ' | tail -1 |
		sed -n 's/.*: l2arc: \(.*\) (-E[A-Z]*)$/\1/p')
	assert_eq "$gib GiB: ti->error" "$exp" "$got"
	d=$((avail0 - $(avail)))
	((d < 65536)) || die "$gib GiB: MemAvailable fell by $d kB"
	assert_eq "$gib GiB: device list" "$before" "$(dmsetup ls | sort)"
}

# loads GiB: a cache device of GiB at 4 KiB blocks loads
loads() {
	zero_cache "$1"
	dmsetup create l2ok --table "0 $osz l2arc /dev/ram0 /dev/mapper/zc 8" ||
		die "$1 GiB cache device refused at l2arc_meta_percent $(cat $pct)"
	dd if=/dev/mapper/l2ok of=/dev/null bs=1M count=1 iflag=direct status=none
	dm_remove l2ok
}

refused 640
refused 64
echo 20 >$pct
loads 64
echo 10 >$pct
loads 8
echo "640 GiB and 64 GiB at 10 % refused before allocating; 64 GiB at 20 % and 8 GiB at 10 % load"

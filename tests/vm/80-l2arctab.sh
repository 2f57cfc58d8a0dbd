#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 180
# debug-check: skip the userspace tool l2arcsetup, the same on every kernel (the module only creates and removes devices here, as every test on this kernel does); 555 s here beside other VMs
#
# Boot-time assembly (issue 12): scripts/l2arcsetup with an l2arctab of
# five lines.  Origins and the cache device are brd RAM disks 0..3:
#   line 2  tabc   /dev/ram0, cache /dev/ram1, 8 KiB blocks, five options
#   line 3  tbad   an unknown option (check and start report it)
#   line 5  tarc   /dev/ram2, ARC only, 4 KiB blocks
#   line 6  tgone  an origin that does not exist (start reports it; check,
#                  which touches no device, does not)
#   line 7  tsmall arc_max of 4 blocks: the ctr refuses it (start reports
#                  the failed dmsetup create)
#  - check: exit 1, exactly line 3 reported, no device created;
#  - start: exit 1, tabc and tarc created with the expected tables (the
#    origin's length in whole blocks), lines 3, 6 and 7 reported by
#    number, the rest untouched; data written through tabc and tarc reach
#    their origins;
#  - start again: "already active"; start NAME: just that one, exit 0; a
#    file whose only device cannot come up: exit 3 (after -w 1);
#  - status: one line per valid line, exact for the two inactive ones;
#  - l2arcstat -d NAME with the names of l2arctab: the device's counters;
#  - stop: both removed, last line first; stop again: nothing to do.
#  - a pool and two members (a second file): start makes the pool first
#    and its members name it by major:minor, with their options; stop
#    NAME of the pool refuses while members hold it; status has the
#    pool's line; stop removes the members, then the pool.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 4 16
setup=$L2ARC_TOP/scripts/l2arcsetup
tab=$PWD/l2arctab
cat >"$tab" <<-EOF
	# name  origin  cache  block_size  options
	tabc   /dev/ram0  /dev/ram1  16  arc_max=1M,l2arc_noprefetch=0,prefetch_disable=1,whatif=1,l2arc_rebuild=0
	tbad   /dev/ram3  -  8  arc_max=1M,cache_mode=writeback

	tarc   /dev/ram2  -  4k
	tgone  /dev/l2arc-no-such-disk  -  8
	tsmall /dev/ram3  -  8  arc_max=16k
EOF
rm_if_there() { ! dmsetup info "$1" >/dev/null 2>&1 || dmsetup remove --retry "$1"; }
for n in tabc tarc tsmall; do
	add_cleanup rm_if_there "$n"
done
devs() { dmsetup ls | awk '$1 ~ /^t(abc|bad|arc|gone|small)$/ { print $1 }' | sort | tr '\n' ' '; }

# ---- check: the syntax only
rc=0
"$setup" -t "$tab" check 2>check.err || rc=$?
assert_eq "check's exit status" 1 $rc
assert_eq "check's report" "$tab:3: tbad: unknown option 'cache_mode'" "$(cat check.err)"
assert_eq "devices after check" "" "$(devs)"

# ---- a full kernel log buffer, as after a long test run (where a count
# of dmesg lines stops growing): the ctr's reason must still be found
dk=/proc/sys/kernel/printk_devkmsg
old_devkmsg=$(cat $dk)
restore_devkmsg() { echo "$old_devkmsg" >$dk; }
add_cleanup restore_devkmsg
echo on >$dk	# no rate limit on /dev/kmsg while filling
for i in $(seq 6000); do	# <7>: debug level, kept off the console
	echo "<7>80-l2arctab: filling the kernel log buffer, line $i of 6000" >/dev/kmsg
done
restore_devkmsg

# ---- start: the good ones come up, the bad ones are named
rc=0
"$setup" -t "$tab" start >start.out 2>start.err || rc=$?
cat start.out start.err
assert_eq "start's exit status" 1 $rc
assert_eq "devices after start" "tabc tarc " "$(devs)"
grep -qx "$tab:3: tbad: unknown option 'cache_mode'" start.err || die "start did not report line 3"
grep -qx "$tab:6: tgone: origin /dev/l2arc-no-such-disk is not a block device" start.err ||
	die "start did not report line 6"
grep -q "^$tab:7: tsmall: dmsetup create failed" start.err || die "start did not report line 7"
grep -qx "$tab:7: tsmall: table: 0 $(sectors /dev/ram3) l2arc /dev/ram3 - 8 2 arc_max 16384; kernel: arc_max is below 16 blocks" start.err ||
	die "start did not give line 7's table and the kernel's reason"
assert_eq "lines reported" "3 6 7 7" "$(cut -d: -f2 start.err | tr '\n' ' ' | sed 's/ $//')"
len=$(sectors /dev/ram0)
mm() { cat "/sys/block/$1/dev"; }
assert_eq "tabc's table" "0 $len l2arc $(mm ram0) $(mm ram1) 16 10 arc_max 1048576 l2arc_noprefetch 0 prefetch_disable 1 whatif 1 l2arc_rebuild 0" \
	"$(dmsetup table tabc)"
assert_eq "tarc's table" "0 $(sectors /dev/ram2) l2arc $(mm ram2) - 8" "$(dmsetup table tarc)"
for d in tabc:ram0 tarc:ram2; do
	dd if=/dev/urandom of=/dev/mapper/${d%:*} bs=64k count=16 seek=3 oflag=direct status=none
	cmp <(dd if=/dev/mapper/${d%:*} bs=64k count=32 iflag=direct status=none) \
		<(dd if=/dev/${d#*:} bs=64k count=32 iflag=direct status=none) ||
		die "${d%:*} differs from its origin"
done

# ---- start again, and by name
rc=0
"$setup" -t "$tab" start >again.out 2>/dev/null || rc=$?
assert_eq "start again: exit status (the bad lines)" 1 $rc
assert_eq "start again" "tabc: already active
tarc: already active" "$(cat again.out)"
"$setup" -t "$tab" start tarc >one.out || die "start tarc failed"
assert_eq "start tarc" "tarc: already active" "$(cat one.out)"
rc=0
"$setup" -t "$tab" start tnone 2>none.err || rc=$?
assert_eq "start of a name not in the file: exit status" 1 $rc
grep -qx "l2arcsetup: tnone: no line in $tab" none.err || die "start tnone: $(cat none.err)"
# a file none of whose devices comes up: exit status 3 (the unit fails)
grep -E '^[[:space:]]*tgone ' "$tab" >gone.tab
rc=0
"$setup" -t gone.tab -w 1 start 2>/dev/null || rc=$?
assert_eq "start with no device up: exit status" 3 $rc

# ---- status
"$setup" -t "$tab" status >status.out 2>/dev/null || true
cat status.out
assert_eq "status lines" 4 "$(wc -l <status.out)"
grep -Eq '^tabc +active +arc [0-9.]+[BKM]/1\.0M l2 [0-9.]+[BKM]/16\.0M arc_hit [0-9.]+% l2_hit (-|[0-9.]+%) ok$' status.out ||
	die "status of tabc: $(grep ^tabc status.out)"
grep -Eq '^tarc +active +arc [0-9.]+[BKM]/[0-9.]+[KMG] l2 0B/0B arc_hit [0-9.]+% l2_hit - ok$' status.out ||
	die "status of tarc: $(grep ^tarc status.out)"
assert_eq "status of tgone" "tgone            inactive" "$(grep ^tgone status.out)"
assert_eq "status of tsmall" "tsmall           inactive" "$(grep ^tsmall status.out)"

# ---- l2arcstat finds the devices of l2arctab by their names
for n in tabc tarc; do
	j=$("$L2ARC_TOP/scripts/l2arcstat" -d $n -o json -f hit%) || die "l2arcstat -d $n failed"
	python3 -c 'import json, sys; j = json.loads(sys.argv[1]); p = {l.split()[0]: int(l.split()[2]) for l in open(sys.argv[3]).read().splitlines()[2:]}; assert (j["device"], j["counters"]["hits"], j["counters"]["misses"]) == (sys.argv[2], p["hits"], p["misses"]), (j, p["hits"], p["misses"])' \
		"$j" $n "$(proc_of $n)" || die "l2arcstat -d $n: not the counters of $n"
done

# ---- stop
"$setup" -t "$tab" stop >stop.out 2>/dev/null || true
assert_eq "stop" "tarc: stopped
tabc: stopped" "$(cat stop.out)"
assert_eq "devices after stop" "" "$(devs)"
"$setup" -t "$tab" stop >stop2.out 2>/dev/null || true
assert_eq "stop again" "" "$(cat stop2.out)"

# ---- a pool and its members
ptab=$PWD/l2arctab-pool
cat >"$ptab" <<-EOF
	tpool  pool  -  8  arc_max=8M
	tpa    /dev/ram2  pool:tpool  8  arc_min=1M,prefetch_disable=1
	tpb    /dev/ram3  pool:tpool  4k  arc_max=2M
EOF
"$setup" -t "$ptab" check || die "check of the pool file failed"
"$setup" -t "$ptab" start >pstart.out || die "start of the pool file failed"
pdev=$(dmsetup info -c --noheadings -o major,minor --separator : tpool | tr -d ' ')
assert_eq "pool start" "tpool: started (0 8 l2arc-pool - 8 2 arc_max 8388608)
tpa: started (0 32768 l2arc /dev/ram2 $pdev 8 4 arc_min 1048576 prefetch_disable 1)
tpb: started (0 32768 l2arc /dev/ram3 $pdev 8 2 arc_max 2097152)" "$(cat pstart.out)"
assert_eq "member's table" "$pdev 8 2 arc_max 2097152" "$(dmsetup table tpb | cut -d' ' -f5-)"
cmp -n 1048576 /dev/mapper/tpa /dev/ram2 || die "tpa differs from its origin"
if "$setup" -t "$ptab" stop tpool >pstop1.out 2>pstop1.err; then
	die "stop tpool succeeded under its members"
fi
grep -q "^l2arcsetup: tpool: dmsetup remove failed" pstop1.err ||
	die "stop tpool: $(cat pstop1.err)"
"$setup" -t "$ptab" status >pstatus.out || die "status of the pool file failed"
grep -Eq '^tpool +active +arc [0-9.]+[BKM]/8\.0M pool members 2$' pstatus.out ||
	die "status of tpool: $(grep ^tpool pstatus.out)"
"$setup" -t "$ptab" stop >pstop.out 2>/dev/null || die "stop of the pool file failed"
assert_eq "pool stop" "tpb: stopped
tpa: stopped
tpool: stopped" "$(cat pstop.out)"
assert_eq "devices after the pool's stop" "" \
	"$(dmsetup ls | awk '$1 ~ /^tp(ool|a|b)$/ { print $1 }')"
echo "l2arctab ok (and a pool of two)"

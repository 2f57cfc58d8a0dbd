#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# debug-timeout-factor: 4
#
# Injected allocation and I/O failures (the debug kernel's failslab,
# fail_page_alloc and fail_make_request; skipped on a kernel without
# them).  Through a small ARC (4 MiB, 4 KiB blocks) with a cache device
# and the feed running:
#  1. I/O path: failslab and fail_page_alloc fail 5 % of the non-sleeping
#     allocations (ignore-gfp-wait: the data path allocates GFP_NOWAIT) of
#     the fio processes only (task-filter, make-it-fail): fio verify,
#     randwrite then two verify passes, bsrange 512-1m: no error, and
#     memory_throttle_count > 0 (reads sent around the ARC, counted).
#  2. The feed: 20 % of every allocation (sleeping ones too) of a
#     process that runs feeds by message (l2arc_feed), while fio verifies
#     unmarked: each feed either writes or is skipped and counted
#     (l2_abort_lowmem > 0); the message fails only with ENOMEM, in the
#     dm ioctl's own copy of its arguments.
#  3. The cache device fails 10 % of its bios (fail_make_request on it):
#     fio verify passes; l2_io_error + l2_writes_error > 0.
#  4. A reload empties the ARC and L2, then the origin fails 20 % of its
#     bios: reads return EIO to the user
#     (some do), origin_read_errors counts them; with the failures off,
#     the device reads byte-identical to its origin: no failed read left a
#     block in the ARC or on L2.
# After each phase the directory recounts (verify message) and the device
# compares equal to the origin (cmp of both read with O_DIRECT).
# Devices: brd RAM disks /dev/ram0 (origin, 96 MiB) and /dev/ram1 (cache
# device, 64 MiB).
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug
for f in failslab fail_page_alloc fail_make_request; do
	[[ -d $D/$f ]] || skip "this kernel has no $f (CONFIG_FAULT_INJECTION_DEBUG_FS; run it on the debug kernel: tests/run -k debug)"
done

load_module
P=/sys/module/dm_l2arc/parameters
for p in l2arc_noprefetch l2arc_feed_secs; do
	add_cleanup eval "echo $(cat $P/$p) >$P/$p"
done
echo 0 >$P/l2arc_noprefetch
echo 1 >$P/l2arc_feed_secs
mk_brd 2 96
O=/dev/ram0 C=/dev/ram1
sz=$(sectors $O)
table="0 $sz l2arc $O $C 8 4 arc_max 4194304 l2arc_max_errors 1000000"
dm_create fi "$table"
dev=/dev/mapper/fi
proc=$(proc_of fi)
st() { arcstats_row "$proc" "$1"; }

# inject OFF | ATTR=VALUE...: set the failslab and fail_page_alloc knobs
faults_off() {
	local f
	for f in failslab fail_page_alloc fail_make_request; do
		echo 0 >"$D/$f/probability"
	done
	echo 0 >/sys/block/ram0/make-it-fail
	echo 0 >/sys/block/ram1/make-it-fail
}
add_cleanup faults_off
alloc_faults() {	# alloc_faults PERCENT IGNORE_GFP_WAIT(Y|N)
	local f
	for f in failslab fail_page_alloc; do
		echo 1 >"$D/$f/interval"
		echo -1 >"$D/$f/times"
		echo 0 >"$D/$f/space"
		echo 0 >"$D/$f/verbose"
		echo Y >"$D/$f/task-filter"
		echo "$2" >"$D/$f/ignore-gfp-wait"
		echo "$1" >"$D/$f/probability"
	done
	echo Y >"$D/fail_page_alloc/ignore-gfp-highmem"
	echo 0 >"$D/fail_page_alloc/min-order"
}

fio_job() {	# fio_job NAME VERIFY_ONLY: randwrite 64 MiB + verify, bsrange 512-1m
	cat <<-JOB
	[$1]
	filename=$dev
	ioengine=psync
	direct=1
	rw=randwrite
	bsrange=512-1m
	size=64m
	randrepeat=1
	randseed=$((RANDOM + 1))
	verify=crc32c
	verify_fatal=1
	verify_dump=0
	verify_only=$2
	JOB
}
# run_fio MARKED NAME...: the write pass and two verify passes; with
# MARKED=1 fio runs with make-it-fail set (inherited by its children)
run_fio() {
	local marked=$1 name=$2 seed=$RANDOM
	fio_job "$name" 0 | sed "s/^randseed=.*/randseed=$seed/" >"$name.fio"
	fio_job "$name" 1 | sed "s/^randseed=.*/randseed=$seed/" >"$name-v.fio"
	fio --version >/dev/null	# fio and its libraries in the page cache
	( echo "$marked" >/proc/self/make-it-fail
	  fio --output="$name.out" "$name.fio" &&
	  fio --output="$name-v1.out" "$name-v.fio" &&
	  fio --output="$name-v2.out" "$name-v.fio" ) ||
		{ cat "$name".out "$name"-v*.out 2>/dev/null | tail -30; die "$name: fio failed (a verify error or an I/O error)"; }
	! grep -q 'verify:.*bad\|err= *[1-9]' "$name".out "$name"-v*.out ||
		die "$name: fio reported errors"
}

compare() {	# the device and the origin, read with O_DIRECT, are equal
	dmsetup message fi 0 verify >/dev/null || die "$1: verify message: the directory does not add up"
	cmp <(dd if=$dev bs=1M iflag=direct status=none) \
	    <(dd if=$O bs=1M iflag=direct status=none) ||
		die "$1: the device differs from its origin"
}

echo "== 1. I/O path allocations fail (5 %, GFP_NOWAIT, fio only)"
t0=$(st memory_throttle_count)
alloc_faults 5 Y
run_fio 1 p1
faults_off
t1=$(st memory_throttle_count)
echo "memory_throttle_count +$((t1 - t0)), l2_size $(st l2_size)"
((t1 > t0)) || die "phase 1: no read went around the ARC: did the injection reach the module?"
compare "phase 1"

echo "== 2. the feed's allocations fail (20 %, also sleeping ones)"
a0=$(st l2_abort_lowmem) f0=$(st l2_feeds)
# The marked process touches nothing but /dev/mapper/control and its own
# /proc file while marked: a failed allocation inside the guest's 9p
# client (the root file system) can break 9p for every process after it.
python3 - "$L2ARC_TOP/tests/vm" <<'PY' &
import errno, os, sys, time
sys.path.insert(0, sys.argv[1])
from dmioctl import DM
dm = DM()
mark = os.open("/proc/self/make-it-fail", os.O_WRONLY)
def set_mark(v):
    while True:
        try:
            os.pwrite(mark, v, 0)
            return
        except OSError:
            time.sleep(0.01)
set_mark(b"1")
ok = enomem = 0
bad = None
while not os.path.exists("/tmp/fi-feeder.stop"):	# tmpfs, not 9p
    time.sleep(0.2)
    e, _ = dm.message("fi", "l2arc_feed")
    if e == 0:
        ok += 1
    elif e == errno.ENOMEM:
        enomem += 1
    else:
        bad = e
        break
set_mark(b"0")
if bad is not None:
    print("FAIL: l2arc_feed message: errno %d" % bad)
    sys.exit(1)
print("feeds by message: %d ran, %d ENOMEM in the ioctl" % (ok, enomem))
PY
feeder=$!
sleep 2		# python has loaded itself before the failures start
alloc_faults 20 N
run_fio 0 p2
touch /tmp/fi-feeder.stop
wait $feeder || die "phase 2: a feed message failed otherwise than with ENOMEM"
faults_off
a1=$(st l2_abort_lowmem) f1=$(st l2_feeds)
echo "l2_abort_lowmem +$((a1 - a0)), l2_feeds +$((f1 - f0))"
((a1 > a0)) || die "phase 2: no feed was skipped for memory: did the injection reach the feed?"
((f1 > f0)) || die "phase 2: no feed ran at all"
compare "phase 2"

echo "== 3. the cache device fails 10 % of its bios"
e0=$(( $(st l2_io_error) + $(st l2_writes_error) ))
echo 1 >/sys/block/ram1/make-it-fail
echo 1 >$D/fail_make_request/interval
echo -1 >$D/fail_make_request/times
echo 0 >$D/fail_make_request/verbose
echo 10 >$D/fail_make_request/probability
run_fio 0 p3
faults_off
e1=$(( $(st l2_io_error) + $(st l2_writes_error) ))
echo "l2_io_error + l2_writes_error +$((e1 - e0)), status: $(dmsetup status fi | awk '{ print $NF }')"
((e1 > e0)) || die "phase 3: no cache device error was counted"
compare "phase 3"

echo "== 4. the origin fails 20 % of its bios; reads only"
# A new table starts with an empty ARC and L2 (the 64 MiB cache device is
# below l2arc_rebuild_blocks_min_l2size: nothing is kept), so that the
# reads below go to the origin: with the compare above leaving most of the
# device in the ARC and on L2, 400 reads hit 0 EIO in one CI run.
dmsetup suspend fi && dmsetup reload fi --table "$table" && dmsetup resume fi ||
	die "phase 4: the reload failed"
[[ $(st l2_size) == 0 && $(st size) == 0 ]] ||
	die "phase 4: the new table starts with l2_size $(st l2_size) and size $(st size), not empty"
r0=$(st origin_read_errors)
echo 1 >/sys/block/ram0/make-it-fail
echo 20 >$D/fail_make_request/probability
python3 - "$dev" <<'PY' || die "phase 4: a read failed otherwise than with EIO, or none failed"
import errno, mmap, os, random, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
size = os.lseek(fd, 0, os.SEEK_END)
buf = mmap.mmap(-1, 1 << 20)
rnd = random.Random(4)
ok = eio = 0
for i in range(400):
    n = rnd.choice([4096, 65536, 1 << 20])
    off = rnd.randrange(size // n) * n
    try:
        os.preadv(fd, [memoryview(buf)[:n]], off)
        ok += 1
    except OSError as e:
        if e.errno != errno.EIO:
            print("FAIL: read at %d: %s" % (off, e))
            sys.exit(1)
        eio += 1
print("reads: %d ok, %d EIO" % (ok, eio))
sys.exit(0 if eio else 1)
PY
faults_off
r1=$(st origin_read_errors)
echo "origin_read_errors +$((r1 - r0))"
((r1 > r0)) || die "phase 4: origin_read_errors did not count the failed reads"
# blocks read while the origin failed now come from the ARC or L2: all
# must equal the origin (a second pass after a feed reads L2 copies too)
compare "phase 4"
dmsetup message fi 0 l2arc_feed
compare "phase 4, after a feed"
snapf=$(snap "$proc")
check_rows "$snapf" "$(( $(sectors $C) / 8 ))" 4096
echo "PASS: fault injection"

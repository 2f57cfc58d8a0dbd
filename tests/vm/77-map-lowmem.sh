#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
#
# A large read when no allocation of order 2 or more succeeds (the debug
# kernel's fail_page_alloc with min-order 2; skipped on a kernel without
# it).  The map of a read of 256 blocks keeps one 56-byte wait per block:
# 14 KiB, an order-2 allocation; when it fails, the map takes as many
# blocks as fit in one page (73) and leaves the rest to device-mapper, so
# the read is still cached.  Device "ml": origin /dev/ram0 (16 MiB), no
# cache device, 4 KiB blocks.  fail_page_alloc fails every non-sleeping
# allocation of order 2 or more of one dd process (task-filter,
# make-it-fail), which reads 4 MiB in four O_DIRECT reads of 1 MiB:
#  - memory_throttle_count stays 0 and the status says "ok" (nothing went
#    around the ARC for lack of memory);
#  - the 1,024 blocks are resident: read again with the failures off,
#    every block is a hit (hits +1024, misses +0);
#  - the data equals the origin's.
# Then the same four reads of the now resident blocks with the failures
# on again: a read whose blocks are all resident keeps no waits at all,
# so it is not cut: as many read bios as the same reads with the failures
# off (more, each read cut into 73 + 73 + 110 blocks, if it still asked
# for its 14 KiB), every block a hit, nothing throttled, the data the
# origin's.
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug/fail_page_alloc
[[ -d $D ]] || skip "this kernel has no fail_page_alloc (CONFIG_FAULT_INJECTION_DEBUG_FS; run it on the debug kernel: tests/run -k debug)"

load_module
mk_brd 1 16
O=/dev/ram0
dd if=/dev/urandom of=$O bs=1M count=16 status=none
dm_create ml "0 $(sectors $O) l2arc $O - 8 4 arc_max 8388608 prefetch_disable 1"
dev=/dev/mapper/ml
proc=$(proc_of ml)
st() { arcstats_row "$proc" "$1"; }

faults_off() {
	echo 0 >$D/probability
}
add_cleanup faults_off
echo 1 >$D/interval
echo -1 >$D/times
echo 0 >$D/space
echo 0 >$D/verbose
echo Y >$D/task-filter
echo Y >$D/ignore-gfp-wait
echo Y >$D/ignore-gfp-highmem
echo 2 >$D/min-order

# read_failing OUT: the four 1 MiB reads into OUT by a dd with
# make-it-fail set (only its own allocations fail), the failures on
read_failing() {
	echo 100 >$D/probability
	sh -c 'echo 1 >/proc/self/make-it-fail &&
	       exec dd if=$1 of=$2 bs=1M count=4 iflag=direct status=none' \
		sh $dev "$1" || die "the read into $1 failed"
	faults_off
}

read_failing /tmp/ml.data
echo "memory_throttle_count $(st memory_throttle_count), read_bios $(st read_bios), status $(dmsetup status ml | awk '{ print $NF }')"
assert_eq memory_throttle_count 0 "$(st memory_throttle_count)"
assert_eq "status health" ok "$(dmsetup status ml | awk '{ print $NF }')"
cmp /tmp/ml.data <(dd if=$O bs=1M count=4 status=none) ||
	die "the read returned other data than the origin's"

h0=$(st hits) m0=$(st misses) b0=$(st read_bios)
dd if=$dev of=/dev/null bs=1M count=4 iflag=direct status=none
echo "read again: hits +$(( $(st hits) - h0 )), misses +$(( $(st misses) - m0 )), read_bios +$(( $(st read_bios) - b0 ))"
assert_eq "hits of the second read" 1024 $(( $(st hits) - h0 ))
assert_eq "misses of the second read" 0 $(( $(st misses) - m0 ))
bios2=$(( $(st read_bios) - b0 ))

# the resident blocks, order-2 allocations failing again
h0=$(st hits) m0=$(st misses) b0=$(st read_bios)
read_failing /tmp/ml.data3
echo "resident, failures on: hits +$(( $(st hits) - h0 )), misses +$(( $(st misses) - m0 )), read_bios +$(( $(st read_bios) - b0 ))"
assert_eq "read bios of the resident read with failures (as without)" \
	"$bios2" $(( $(st read_bios) - b0 ))
assert_eq "hits of the third read" 1024 $(( $(st hits) - h0 ))
assert_eq "misses of the third read" 0 $(( $(st misses) - m0 ))
assert_eq "memory_throttle_count after the third read" 0 "$(st memory_throttle_count)"
cmp /tmp/ml.data3 <(dd if=$O bs=1M count=4 status=none) ||
	die "the resident read returned other data than the origin's"
echo "PASS: a large read is cached, and a resident one served whole, when order-2 allocations fail"

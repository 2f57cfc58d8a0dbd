#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
# vm-cpus: 2 (with one, the hog faulting in 1.3 GiB beside kswapd on the same CPU
#   was reported as a soft lockup of 129 s in CI on 6.12, four VMs on two cores)
#
# The shrinker.  A device with arc_max 512 MiB is filled by reading its
# 512 MiB once (c = size = c_max), with module parameter arc_min 32 MiB.
#  1. memory pressure: a python3 process allocates (and touches)
#     MemAvailable + 64 MiB, without transparent huge pages; the ARC must
#     give memory back: c and the
#     resident size fall below c_max and never below c_min (sampled every
#     0.1 s), arc_shrinks > 0.  The hog is killed afterwards.
#  2. drop_caches (echo 3) runs every shrinker to exhaustion: c and the
#     resident size end at exactly c_min.
#  3. pressure gone: after 6 s without a shrink (the target waits 5 s),
#     every miss grows c by one block; re-reading the device grows c back
#     to exactly c_max and the resident size with it.
# The data stays correct throughout: the first 64 MiB hold random data,
# whose sha256 through the device (O_DIRECT) must match at every step.
# Devices: origin = dm-linear "l2s-origin" of a brd RAM disk /dev/ram0
# (64 MiB of data, emulating an SSD) followed by dm-zero (448 MiB,
# emulating a large sparse disk); no cache device.
. "$(dirname "$0")/lib.sh"

echo -1000 >/proc/self/oom_score_adj	# the hog goes first, not the test
load_module
P=/sys/module/dm_l2arc/parameters
amin0=$(cat $P/arc_min)
add_cleanup eval "echo $amin0 >$P/arc_min"
echo $((32 << 20)) >$P/arc_min
mk_brd 1 64
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
want=$(dd if=/dev/ram0 bs=1M iflag=direct status=none | sha256sum)
dm_create l2s-origin "0 131072 linear /dev/ram0 0
131072 917504 zero"
dm_create l2s "0 1048576 l2arc /dev/mapper/l2s-origin - 8 4 arc_max 536870912 prefetch_disable 1"
dev=/dev/mapper/l2s
proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2s | tr -d ' ')/arcstats
st() { arcstats_row "$proc" "$1"; }
show() { echo "$1: c=$(st c) data_size=$(st data_size) c_min=$(st c_min) c_max=$(st c_max) arc_shrinks=$(st arc_shrinks) misses=$(st misses) MemAvailable=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo) kB"; }
check_data() {
	assert_eq "sha256 of the data region ($1)" "$want" \
		"$(dd if=$dev bs=1M count=64 iflag=direct status=none | sha256sum)"
	cmp -s <(dd if=$dev bs=1M skip=64 count=16 iflag=direct status=none) \
		<(head -c $((16 << 20)) /dev/zero) || die "zero region not zero ($1)"
}
cmin=$((32 << 20)) cmax=$((512 << 20))
assert_eq "c_min" $cmin "$(st c_min)"
assert_eq "c_max" $cmax "$(st c_max)"

# ---- fill
dd if=$dev of=/dev/null bs=1M iflag=direct status=none
show "filled"
assert_eq "c after fill" $cmax "$(st c)"
assert_eq "data_size after fill" $cmax "$(st data_size)"
check_data "filled"

# ---- 1. memory pressure
stop=$L2ARC_TEST_OUT/hog.stop ready=$L2ARC_TEST_OUT/hog.ready
rm -f "$stop" "$ready"
avail=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
# 64 MiB more than MemAvailable, which leaves the ARC out (its pages are
# not reclaimable page cache): only the shrinker can give those back
target=$((avail + 64))
echo "hog: allocating $target MiB (MemAvailable $avail MiB)"
python3 - "$target" "$ready" "$stop" <<'EOF' &
import ctypes, os, sys, time
with open('/proc/self/oom_score_adj', 'w') as f:
    f.write('1000')
# no transparent huge pages (PR_SET_THP_DISABLE): their compaction stalled
# a TCG guest for 20-50 s (kcompactd soft lockups in CI)
ctypes.CDLL(None, use_errno=True).prctl(41, 1, 0, 0, 0)
target, ready, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3]
chunks = []
for i in range(target // 16):
    chunks.append(b'\x5a' * (16 << 20))	# allocated and touched
open(ready, 'w').close()
while not os.path.exists(stop):
    time.sleep(0.1)
EOF
hog=$!
kill_hog() { touch "$stop"; kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true; }
add_cleanup kill_hog
minc=$cmax mins=$cmax t0=$SECONDS
while [[ ! -e $ready ]] && kill -0 $hog 2>/dev/null && ((SECONDS - t0 < 90)); do
	c=$(st c) s=$(st data_size)
	((c < minc)) && minc=$c
	((s < mins)) && mins=$s
	sleep 0.1
done
[[ -e $ready ]] || die "hog did not finish allocating (killed by the OOM killer or too slow)"
c=$(st c) s=$(st data_size)
((c < minc)) && minc=$c
((s < mins)) && mins=$s
show "under pressure (lowest c $minc, lowest data_size $mins)"
((minc < cmax)) || die "c did not fall under memory pressure"
((mins < cmax)) || die "resident size did not fall under memory pressure"
((minc >= cmin)) || die "c fell below c_min: $minc < $cmin"
((mins >= cmin)) || die "resident size fell below c_min: $mins < $cmin"
(($(st arc_shrinks) > 0)) || die "arc_shrinks is 0"
kill_hog
check_data "after pressure"

# ---- 2. drop_caches: down to c_min exactly
echo 3 >/proc/sys/vm/drop_caches
show "after drop_caches"
assert_eq "c after drop_caches" $cmin "$(st c)"
assert_eq "data_size after drop_caches" $cmin "$(st data_size)"

check_data "after drop_caches"

# ---- 3. growth back to c_max
sleep 6
for pass in 1 2 3 4; do
	# the whole device: blocks not resident miss, and each miss adds one
	# block to c (re-reading only what is resident would never miss)
	dd if=$dev of=/dev/null bs=1M iflag=direct status=none
	show "regrowth pass $pass"
	[[ $(st c) == "$cmax" ]] && break
done
assert_eq "c after regrowth" $cmax "$(st c)"
dd if=$dev of=/dev/null bs=1M iflag=direct status=none
assert_eq "data_size after regrowth" $cmax "$(st data_size)"
check_data "end"
echo "shrinker ok"

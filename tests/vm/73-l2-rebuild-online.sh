#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
#
# The device serves I/O while its L2ARC is rebuilt (issue 14): the first
# resume reads only the header, the first feed reads the log back, and a
# block written or read from the origin meanwhile is left out of the
# rebuild, so a write during the rebuild is never undone by a stale copy.
# A 24 MiB set warm on a 32 MiB cache device (6,144 blocks; the cache
# device behind dm-delay, no delay while warming), the table removed
# (clean), reads of the log blocks (sectors 8 to 271, between the header
# and slot 0) held in dm-delay (HOLD_MS) until released, the table created
# again (its header read at once, its log read held until step 2):
#  1. while the log read waits: a write of block 7 (new data) and a read
#     of block 9 complete, and l2_rebuild_success is still 0; then 300
#     single-block writes 20 blocks apart (blocks 100, 120, ... 6080: more
#     ranges than the rebuild's write record holds, 256, so the last ones
#     widen the nearest);
#  2. after the rebuild (a feed by message waits for it):
#     l2_rebuild_success 1, l2_rebuild_skipped at least 302 (7, 9 and the
#     300), l2_rebuild_bufs 6144 - l2_rebuild_skipped, l2_size one block
#     more (block 9: that feed wrote it from the ARC); block 7 reads the
#     new data; the device reads as its origin (none of the 301 written
#     blocks is stale); a pass makes l2_rebuild_bufs L2 hits.
# Before the rebuild ran beside I/O, the create returned with the rebuild
# done (step 1 failed); without the write record, block 7 was rebuilt
# from its old copy (l2_rebuild_bufs 6143).
# Devices: brd /dev/ram0 (origin) and /dev/ram1 (cache device, behind
# dm-delay "rbd"), 32 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
persist_any_size
mk_brd 2 32
set_mib=24 blocks=6144 bs=4096
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
cs=$(sectors /dev/ram1)
dm_create rbd "0 $cs linear /dev/ram1 0"
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
tbl="0 $((set_mib << 11)) l2arc /dev/ram0 /dev/mapper/rbd 8 10 $feat"
st() { arcstats_row "$(proc_of ro)" "$1"; }
add_cleanup eval "dmsetup remove ro 2>/dev/null; true"

dmsetup create ro --table "$tbl"
warm_by_feeds ro $set_mib
assert_eq "l2_size, warm" $((set_mib << 20)) "$(st l2_size)"
dmsetup remove ro

# reads of the log blocks held from now on, until released: 32 MiB of
# 4 KiB blocks is a header (sectors 0-7), 33 log blocks (8-271), slots
dmsetup suspend rbd
dmsetup load rbd --table "0 8 linear /dev/ram1 0
8 264 delay /dev/ram1 8 $HOLD_MS /dev/ram1 8 0
272 $((cs - 272)) linear /dev/ram1 272"
dmsetup resume rbd
held() { dmsetup status rbd | awk '$3 == "delay" { n += $4 } END { print n + 0 }'; }
head -c $bs /dev/urandom >"$L2ARC_TEST_OUT/b7"
t0=$SECONDS
dmsetup create ro --table "$tbl"
dd if="$L2ARC_TEST_OUT/b7" of=/dev/mapper/ro bs=$bs seek=7 oflag=direct status=none
dd if=/dev/mapper/ro of=/dev/null bs=$bs skip=9 count=1 iflag=direct status=none
during=$(st l2_rebuild_success)
echo "1. create, a write and a read: $((SECONDS - t0)) s; l2_rebuild_success $during"
assert_eq "l2_rebuild_success while the log read waits" 0 "$during"
# 300 scattered single-block writes from one process (O_DIRECT)
python3 - /dev/mapper/ro <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
for i in range(300):
    buf.seek(0)
    buf.write(os.urandom(4096))
    os.pwrite(fd, buf, (100 + 20 * i) * 4096)
os.close(fd)
PY
echo "1. and 300 writes: $((SECONDS - t0)) s; l2_rebuild_success $(st l2_rebuild_success)"

# release the held read (the rebuild's first: a sampled log block, or
# the log): dm-delay's presuspend sends on what it holds, and the cache
# device loses its delay, for the reads of the log that follow
until (($(held) > 0)); do
	((SECONDS - t0 < 60)) || die "the log read was never held"
	sleep 0.1
done
dmsetup suspend rbd
dmsetup load rbd --table "0 $cs linear /dev/ram1 0"
dmsetup resume rbd
l2_rebuilt ro
echo "2. rebuilt after $((SECONDS - t0)) s: $(dmesg | grep 'L2ARC rebuilt' | tail -n 1)"
skipped=$(st l2_rebuild_skipped)
((skipped >= 302)) || die "l2_rebuild_skipped $skipped: below the 302 blocks written or read"
bufs=$((blocks - skipped))
# l2_size: those rebuilt, and block 9, which the feed that waited for the
# rebuild wrote from the ARC
expect_rows "$(proc_of ro)" l2_rebuild_success=1 l2_rebuild_bufs=$bufs \
	l2_size=$(((bufs + 1) * bs)) l2_rebuild_unclean=0 l2_rebuild_dh_errors=0
dd if=/dev/mapper/ro of="$L2ARC_TEST_OUT/r7" bs=$bs skip=7 count=1 iflag=direct status=none
cmp "$L2ARC_TEST_OUT/b7" "$L2ARC_TEST_OUT/r7" || die "block 7 is stale: written during the rebuild, read back old"
h0=$(st l2_hits)
cmp <(dd if=/dev/mapper/ro bs=1M iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M count=$set_mib iflag=direct status=none) ||
	die "the device differs from its origin"
assert_eq "l2_hits over a pass" $((h0 + bufs)) "$(st l2_hits)"
echo "rebuild-online ok"

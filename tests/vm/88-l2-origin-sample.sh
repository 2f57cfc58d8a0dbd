#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
# debug-check: skip a warm-up of a 24 MiB set, 5,600 writes and a module reload; every rebuild samples the origin on the debug kernel (69, 73, 74, 76)
#
# The rebuild's samples of the origin catch a change that the origin's
# fingerprint does not cover.  Module parameter
# l2arc_rebuild_blocks_min_l2size 0.  The origin "o" is a dm-linear over
# the first 24 MiB of a RAM disk; device "p" over the whole of "o", cache
# device /dev/ram1 (4 KiB blocks, arc_max 4 MiB, feeds by message), the
# set warmed onto L2 (6,144 blocks), then removed (header "clean").  The
# module is unloaded and loaded again (as after a reboot: no claim of the
# origin is left, only what the header holds), and every block of "o"
# that the fingerprint does not read is written with other data: all
# but its first and last MiB and the 8 blocks that the header's guid
# places (persist.c, l2arc_origin_fingerprint()).  "p" created again
# must start empty because a sampled block differs from its logged copy
# (l2_rebuild_origin_changed 1, l2_rebuild_success 0, l2_size 0, the
# kernel log line "a sampled block differs"), and read what "o" holds.
# The other origin checks (the fingerprint: 75-l2-origin-identity; the
# claim: 76-l2-origin-claim) cannot see this change, so without the
# samples the rebuild would serve 5,624 to 5,632 blocks of old data.
# Devices: brd /dev/ram0 (under o), ram1 (cache device), 32 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
P=/sys/module/dm_l2arc/parameters
persist_any_size
mk_brd 2 32
set_mib=24
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
osz=$((set_mib << 11))
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table="0 $osz l2arc /dev/mapper/o /dev/ram1 8 10 $feat"
st() { arcstats_row "$(proc_of p)" "$1"; }
add_cleanup eval "dmsetup remove p 2>/dev/null; dmsetup remove o 2>/dev/null; true"
dmsetup create o --table "0 $osz linear /dev/ram0 0"

dmsetup create p --table "$table"
l2_rebuilt p
warm_by_feeds p $set_mib
assert_eq "l2_size, warm" $((set_mib << 20)) "$(st l2_size)"
dmsetup remove p
unload_module
load_module
echo 0 >$P/l2arc_rebuild_blocks_min_l2size

# Every 4 KiB block of o outside the fingerprint gets other data.
# The header (sector 0 of the cache device) read past the page cache.
dd if=/dev/ram1 of="$L2ARC_TEST_OUT/hdr" bs=4096 count=1 iflag=direct status=none
written=$(python3 - "$osz" "$L2ARC_TEST_OUT/hdr" <<'PY'
import os, struct, sys

M = (1 << 64) - 1
length = int(sys.argv[1])                  # the target's sectors
with open(sys.argv[2], 'rb') as f:
    hdr = f.read(4096)
magic, = struct.unpack_from('<Q', hdr, 0)
guid, = struct.unpack_from('<Q', hdr, 24)
if magic == 0:
    sys.exit('no header on the cache device')

def mix(i):                                # persist.c, l2arc_fp_mix()
    z = (guid + (i + 1) * 0x9e3779b97f4a7c15) & M
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)

edge = min(length, 2048)                   # L2ARC_FP_EDGE_SECTORS
keep = {mix(i) % (length >> 3) for i in range(8)}   # 4 KiB blocks
n = 0
fd = os.open('/dev/mapper/o', os.O_WRONLY)
for b in range(edge >> 3, (length - edge) >> 3):
    if b in keep:
        continue
    os.pwrite(fd, os.urandom(4096), b << 12)
    n += 1
os.fsync(fd)
os.close(fd)
print(n)
PY
)
echo "wrote $written blocks of o, outside the fingerprint"
# 22 MiB of blocks, less those of the 8 fingerprint blocks that fall there
((written >= 5624 && written <= 5632)) ||
	die "setup: $written blocks written, expected 5,624 to 5,632"

dmesg -C
dmsetup create p --table "$table"
l2_rebuilt p
echo "p: l2_rebuild_success=$(st l2_rebuild_success) l2_rebuild_bufs=$(st l2_rebuild_bufs) l2_rebuild_origin_changed=$(st l2_rebuild_origin_changed) l2_size=$(st l2_size)"
cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
	<(dd if=/dev/mapper/o bs=1M iflag=direct status=none) ||
	die "p differs from its origin o"
expect_rows "$(proc_of p)" l2_rebuild_success=0 l2_rebuild_origin_changed=1 l2_size=0
dmesg | grep "cache device starts empty: the origin changed: a sampled block differs" ||
	die "no kernel log line 'a sampled block differs'"
dmsetup remove p
echo "origin samples ok"

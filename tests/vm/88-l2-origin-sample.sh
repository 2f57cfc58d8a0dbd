#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
# debug-check: skip two warm-ups of a 24 MiB set, 5,600 writes and three module reloads; every rebuild samples the origin on the debug kernel (69, 73, 74, 76)
#
# The rebuild's samples of the origin catch a change that the origin's
# fingerprint does not cover, and a sample that cannot be read.  Module
# parameter l2arc_rebuild_blocks_min_l2size 0.  The origin "o" is a
# dm-delay over the first 24 MiB of a RAM disk (reads 2 ms, so that the
# checks' reads, sent at once, complete later and in any order; brd
# alone completes each before the next is sent); device "p" over the
# whole of "o", cache device /dev/ram1 (4 KiB blocks, arc_max 4 MiB,
# feeds by message).  Parts 0 and 2 warm the set onto L2 (6,144
# blocks); each part removes "p" (header "clean") and unloads and loads
# the module (as after a reboot: no claim of the origin is left, only
# what the header holds).  The blocks the fingerprint reads are the
# first and last MiB of "o" and the 8 blocks that the header's guid
# places (persist.c, l2arc_origin_fingerprint()).
#
# 0. Nothing changed: "p" created again rebuilds all 6,144 blocks, its
#    16 samples match (kernel log), and it reads what "o" holds.  A
#    check that compared its buffer before the reads completed, or read
#    a sample into another's place, would start it empty.
# 1. "o" fails every read outside the fingerprint's blocks (its table
#    becomes delay segments there and error segments between them):
#    "p" created again must start empty because it cannot read its
#    samples (l2_rebuild_origin_changed 1, l2_rebuild_success 0, l2_size
#    0, the kernel log line "cannot read the origin's sampled blocks"),
#    and with "o" linear again read what "o" holds.  The 16 sample reads
#    are sent at once: nearly all fail, and the rebuild must see it.
# 2. Every block of "o" outside the fingerprint's blocks is written with
#    other data: "p" created again must start empty because a sampled
#    block differs from its logged copy (the same rows, the kernel log
#    line "a sampled block differs"), and read what "o" holds.  The other
#    origin checks (the fingerprint: 75-l2-origin-identity; the claim:
#    76-l2-origin-claim) cannot see this change, so without the samples
#    the rebuild would serve 5,624 to 5,632 blocks of old data.
# 3. A sparse log: the cache device's 129 log blocks, of which only the
#    first 3 hold entries (2 MiB warmed, MiB 8 to 10 of "o", away from
#    the fingerprint's first and last MiB).  Drawn among all 129, 64 draws
#    gave 1.5 samples on average; drawn among the 3, the rebuild checks
#    16 ("16 sampled blocks match", all 512 blocks rebuilt), and once
#    every block outside the fingerprint is rewritten it starts empty ("a
#    sampled block differs") and reads what "o" holds, where the old
#    draw trusted the log on the fingerprint alone and served old data.
# Devices: brd /dev/ram0 (under o, its first 24 MiB), ram1 (cache device),
# 128 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
P=/sys/module/dm_l2arc/parameters
persist_any_size
mk_brd 2 128
set_mib=24
modprobe dm-delay
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
osz=$((set_mib << 11))
o_table="0 $osz delay /dev/ram0 0 2 /dev/ram0 0 0"
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table="0 $osz l2arc /dev/mapper/o /dev/ram1 8 10 $feat"
st() { arcstats_row "$(proc_of p)" "$1"; }
add_cleanup eval "dmsetup remove p 2>/dev/null; dmsetup remove o 2>/dev/null; true"
dmsetup create o --table "$o_table"

# reload: "p" removed, the module unloaded and loaded again; the header
# (sector 0 of the cache device) read past the page cache into
# $L2ARC_TEST_OUT/hdr
reload() {
	dmsetup remove p
	unload_module
	load_module
	echo 0 >$P/l2arc_rebuild_blocks_min_l2size
	dd if=/dev/ram1 of="$L2ARC_TEST_OUT/hdr" bs=4096 count=1 iflag=direct status=none
}

# warm_reload: a clean header and log on an empty cache device, the set
# warmed onto it, then reload
warm_reload() {
	dd if=/dev/zero of=/dev/ram1 bs=1M count=1 oflag=direct status=none
	dmsetup create p --table "$table"
	l2_rebuilt p
	warm_by_feeds p $set_mib
	assert_eq "l2_size, warm" $((set_mib << 20)) "$(st l2_size)"
	reload
}

# same_as_o: "p" reads what "o" holds
same_as_o() {
	cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
		<(dd if=/dev/mapper/o bs=1M iflag=direct status=none) ||
		die "p differs from its origin o"
}

# fp_blocks write|table: the fingerprint's blocks from the header; write:
# every other 4 KiB block of o gets other data, and the count is printed;
# table: a table for o, as $o_table where the fingerprint reads and
# error elsewhere
fp_blocks() {
	python3 - "$1" "$osz" "$L2ARC_TEST_OUT/hdr" <<'PY'
import os, struct, sys

M = (1 << 64) - 1
mode = sys.argv[1]
length = int(sys.argv[2])                  # the target's sectors
with open(sys.argv[3], 'rb') as f:
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
if mode == 'table':
    # sectors the fingerprint reads, as [start, end) ranges, merged
    rd = sorted([(0, edge), (length - edge, length)] +
                [(b << 3, (b << 3) + 8) for b in keep])
    merged = []
    for a, e in rd:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([a, e])
    at = 0
    for a, e in merged:
        if a > at:
            print(f'{at} {a - at} error')
        print(f'{a} {e - a} delay /dev/ram0 {a} 2 /dev/ram0 {a} 0')
        at = e
    if at < length:
        print(f'{at} {length - at} error')
    sys.exit(0)
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
}

# started_empty WHY: "p", created again after $mark, started empty for WHY
# and reads what o holds; "p" removed
started_empty() {
	echo "p: l2_rebuild_success=$(st l2_rebuild_success) l2_rebuild_bufs=$(st l2_rebuild_bufs) l2_rebuild_origin_changed=$(st l2_rebuild_origin_changed) l2_size=$(st l2_size)"
	same_as_o
	expect_rows "$(proc_of p)" l2_rebuild_success=0 l2_rebuild_origin_changed=1 l2_size=0
	klog_since "$mark" | grep "cache device starts empty: the origin changed: $1" ||
		die "no kernel log line '$1'"
	dmsetup remove p
}

# 0. nothing changed: the log is trusted
warm_reload
mark=$(kmark)
dmsetup create p --table "$table"
l2_rebuilt p
echo "p: l2_rebuild_success=$(st l2_rebuild_success) l2_rebuild_bufs=$(st l2_rebuild_bufs) l2_size=$(st l2_size)"
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=6144 l2_rebuild_origin_changed=0
klog_since "$mark" | grep "origin checked: 16 sampled blocks match their logged copies" ||
	die "no kernel log line '16 sampled blocks match'"
same_as_o
echo "trusted log ok"

# 1. the samples cannot be read
reload
fp_blocks table >"$L2ARC_TEST_OUT/o-table"
echo "o: $(grep -c error "$L2ARC_TEST_OUT/o-table") error segments, $(grep -c delay "$L2ARC_TEST_OUT/o-table") delay"
dmsetup load o "$L2ARC_TEST_OUT/o-table"
dmsetup resume o
mark=$(kmark)
dmsetup create p --table "$table"
l2_rebuilt p
# o whole again before p reads it
dmsetup load o --table "$o_table"
dmsetup resume o
started_empty "cannot read the origin's sampled blocks"
echo "unreadable samples ok"

# 2. every block outside the fingerprint rewritten
warm_reload
written=$(fp_blocks write)
echo "wrote $written blocks of o, outside the fingerprint"
# 22 MiB of blocks, less those of the 8 fingerprint blocks that fall there
((written >= 5624 && written <= 5632)) ||
	die "setup: $written blocks written, expected 5,624 to 5,632"

mark=$(kmark)
dmsetup create p --table "$table"
l2_rebuilt p
started_empty "a sampled block differs"
echo "origin samples ok"

# 3. a sparse log: 2 MiB on the 128 MiB cache device, 3 of 129 log
# blocks written
dd if=/dev/zero of=/dev/ram1 bs=1M count=1 oflag=direct status=none
dmsetup create p --table "$table"
l2_rebuilt p
dd if=/dev/mapper/p of=/dev/null bs=1M skip=8 count=2 iflag=direct status=none
dmsetup message p 0 l2arc_feed
assert_eq "l2_size, 2 MiB warmed" $((2 << 20)) "$(st l2_size)"
reload
mark=$(kmark)
dmsetup create p --table "$table"
l2_rebuilt p
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=512 l2_rebuild_origin_changed=0
klog_since "$mark" | grep "origin checked: 16 sampled blocks match their logged copies" ||
	die "sparse log: no kernel log line '16 sampled blocks match'"
same_as_o
reload
written=$(fp_blocks write)
echo "sparse log: wrote $written blocks of o, outside the fingerprint"
mark=$(kmark)
dmsetup create p --table "$table"
l2_rebuilt p
started_empty "a sampled block differs"
echo "sparse log samples ok"

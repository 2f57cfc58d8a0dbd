#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 150
# debug-check: skip a feed policy (which blocks go to L2), checked on both Debian kernels
#
# l2arc_mfuonly: with 1, only blocks of the MFU list (T2: read at least
# twice) reach the cache device, from the feed's scan and from the
# hand-off at eviction alike; with 0 (the default) MRU blocks go too.
# A 64 MiB device, arc_max 4 MiB (c = 1024 blocks of 4 KiB), read-ahead
# off, feeds by message only (l2arc_feed_secs 3600), budget 16 MiB:
#  1. table feature l2arc_mfuonly 1 (status shows it): 512 blocks read
#     once are in T1; a feed writes nothing (l2_write_bytes 0).
#  2. blocks 0..255 read again go to T2: the feed writes exactly those,
#     1 MiB, all MFU (l2_mfu_asize 1 MiB, l2_mru_asize 0).
#  3. 1024 new blocks read once: the first 512 fill the ARC, then with
#     p = 0 REPLACE takes T1's LRU each time: 512 T1 blocks leave, none
#     handed off
#     (l2_handoffs 0), all counted evict_l2_ineligible (2 MiB); T2 stays
#     whole; a feed writes nothing more.
#  4. message l2arc_mfuonly 0: 256 new blocks evict 256 T1 blocks, all
#     handed off (l2_handoffs 256, evict_l2_eligible 1 MiB); the feed
#     writes them and T1's 768 blocks: 4 MiB more, 5 MiB in all.
#  5. every block read reads its origin's data (cmp), through L2 for the
#     ones the ARC no longer holds.
# Devices: origin = brd /dev/ram0; cache device = brd /dev/ram1 (64 MiB).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none

st() { arcstats_row "$proc" "$1"; }
expect() { expect_rows "$proc" "$@"; }
tun() { dmsetup status l2m | sed -E "s/.* $1 ([0-9]+) .*/\\1/"; }
# reads FIRST-LAST...: read 4 KiB blocks one at a time (O_DIRECT)
reads() { pyread /dev/mapper/l2m "$@"; }
# same FIRST COUNT: blocks FIRST.. read through the device as the origin
same() {
	cmp <(dd if=/dev/mapper/l2m bs=4k skip="$1" count="$2" iflag=direct status=none) \
		<(dd if=/dev/ram0 bs=4k skip="$1" count="$2" iflag=direct status=none) ||
		die "blocks $1..$(($1 + $2 - 1)) differ from the origin"
}

dm_create l2m "0 $len l2arc /dev/ram0 /dev/ram1 8 10 arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 16777216 l2arc_mfuonly 1"
proc=$(proc_of l2m)
assert_eq "status l2arc_mfuonly (table)" 1 "$(tun l2arc_mfuonly)"
assert_eq "table keeps l2arc_mfuonly" "l2arc_mfuonly 1" \
	"$(dmsetup table l2m | grep -o 'l2arc_mfuonly [0-9]')"

# ---- 1. once-read blocks stay off the cache device
reads 0-511
expect mru_blocks=512 mfu_blocks=0
dmsetup message l2m 0 l2arc_feed
expect l2_feeds=1 l2_write_bytes=0 l2_size=0

# ---- 2. blocks read twice go
reads 0-255
expect mru_blocks=256 mfu_blocks=256
dmsetup message l2m 0 l2arc_feed
expect l2_feeds=2 l2_write_bytes=1048576 l2_size=1048576 \
	l2_mfu_asize=1048576 l2_mru_asize=0

# ---- 3. T1's evictions are not handed off
reads 1024-2047
expect mru_blocks=768 mfu_blocks=256 l2_handoffs=0 evict_l2_eligible=0 \
	evict_l2_ineligible=2097152
dmsetup message l2m 0 l2arc_feed
expect l2_feeds=3 l2_write_bytes=1048576 l2_size=1048576

# ---- 4. mfuonly 0 by message: MRU blocks go, at eviction and by the scan
dmsetup message l2m 0 l2arc_mfuonly 0
assert_eq "status l2arc_mfuonly (message)" 0 "$(tun l2arc_mfuonly)"
reads 2048-2303
expect mru_blocks=768 mfu_blocks=256 l2_handoffs=256 evict_l2_eligible=1048576 \
	evict_l2_ineligible=2097152
dmsetup message l2m 0 l2arc_feed
expect l2_feeds=4 l2_write_bytes=5242880 l2_size=5242880 l2_mfu_asize=1048576

# ---- 5. every block reads its origin
same 0 512
same 1024 1280
h=$(st l2_hits)
((h > 0)) || die "no L2 hit re-reading blocks evicted to the cache device"
echo "mfuonly: 1 wrote MFU only (1 MiB), no hand-off of T1; 0 wrote 4 MiB more; re-read ok ($h L2 hits)"
dm_remove l2m

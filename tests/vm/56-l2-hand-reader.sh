#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 180
#
# The write hand never overwrites a slot under a reader (issue 9, section
# 5).  Cache device "hrc" = dm-delay over 32 blocks of brd /dev/ram1,
# reads held (HOLD_MS, until release_held), writes not; origin =
# brd /dev/ram0.  l2arc: 4 KiB blocks, arc_max 64 KiB (16 blocks), feeds
# by message only, a feed writes 8 blocks (a quarter of the cache
# device), l2arc_max_errors 1, read-ahead off.
#  Blocks 0..31 are read and fed in four batches (slots 0..31, the hand at
#  the end of the ring), then blocks 100..115 read, so that 0..31 are
#  L2-only.  A read of block 0 (slot 0) starts and waits in dm-delay; the
#  next feed wraps to slot 0.
#  A. Blocks 100..115 hold Y, forged so that crc32c(Y) = crc32c(block 0):
#     if the feed overwrote slot 0 under the read, the read would return Y
#     and its checksum would pass.  The read must return block 0's data.
#  B. Block 0 is written through the target while its L2 read is in
#     flight (its header and L2 copy dropped); the feed wraps over slot 0.
#     The read may return the old or new data (it overlapped the write),
#     but no checksum error is counted and the device is not degraded
#     (l2_cksum_bad 0, l2_degraded 0); block 0 then reads the new data.
# In both, the feed waits for the read (l2_evict_reading 1): the feed
# message is still running once the feed has counted the read, and the
# read is released only then, so the order does not depend on the host's
# speed.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 16
len=$(sectors /dev/ram0)
tools=$L2ARC_TOP/tests/tools

setup() {	# setup NAME: origin data, the device, blocks 0..31 on L2
	dd if=/dev/urandom of=/dev/ram0 bs=1M count=16 oflag=direct status=none
	dd if=/dev/ram0 of=x.blk bs=4k count=1 iflag=direct status=none
	if [[ $1 == A ]]; then
		dd if=/dev/urandom of=r.blk bs=4k count=1 status=none
		python3 "$tools/crc32c.py" forge r.blk x.blk y.blk
		assert_eq "forged crc" "$(python3 "$tools/crc32c.py" crc x.blk)" \
			"$(python3 "$tools/crc32c.py" crc y.blk)"
		for b in $(seq 100 115); do
			dd if=y.blk of=/dev/ram0 bs=4k seek=$b count=1 oflag=direct conv=notrunc status=none
		done
	fi
	dm_create hrc "0 256 delay /dev/ram1 0 $HOLD_MS /dev/ram1 0 0"
	dm_create "hr$1" "0 $len l2arc /dev/ram0 /dev/mapper/hrc 8 12 arc_max 65536 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_max_errors 1 l2arc_write_max 1048576 l2arc_noprefetch 0"
	dev=/dev/mapper/hr$1
	proc=$(proc_of "hr$1")
	local i
	for i in 0 8 16 24; do
		dd if=$dev of=/dev/null bs=4k skip=$i count=8 iflag=direct status=none
		dmsetup message "hr$1" 0 l2arc_feed
	done
	expect_rows "$proc" l2_size=$((32 * 4096)) l2_laps=0
	dd if=$dev of=/dev/null bs=4k skip=100 count=16 iflag=direct status=none
	expect_rows "$proc" l2_only_blocks=32
}
held_read() {	# read block 0 in the background; wait until it waits in dm-delay
	local h0
	h0=$(arcstats_row "$proc" l2_hits)
	dd if=$dev of="$1" bs=4k count=1 iflag=direct status=none &
	rpid=$!
	wait_for 60 "the L2 read to start" row_at_least "$proc" l2_hits $((h0 + 1))
}
feed_over_read() {	# feed_over_read NAME PART: a feed over slot 0, which
	# must wait for the held read; then the read is released
	local fpid
	dmsetup message "$1" 0 l2arc_feed &
	fpid=$!
	wait_for 60 "the feed to count the read of its region" \
		row_at_least "$proc" l2_evict_reading 1
	kill -0 $rpid 2>/dev/null || die "$2: the held L2 read completed before its release"
	kill -0 $fpid 2>/dev/null || die "$2: the feed did not wait for the L2 read in its region"
	release_held hrc
	wait $fpid || die "$2: the feed message failed"
}
show() {
	local r out=""
	for r in l2_hits l2_misses l2_size l2_laps l2_evict_reading l2_evict_ahead \
		l2_cksum_bad l2_io_error l2_degraded fills_discarded; do
		out+=" $r=$(arcstats_row "$proc" $r)"
	done
	echo "$1:$out"
}

# ---- A: a forged block with block 0's checksum goes to slot 0
setup A
held_read a.out
feed_over_read hrA A
wait $rpid || die "A: the read of block 0 failed"
show "A"
cmp -s a.out x.blk || die "A: the read of block 0 returned other data (the slot was overwritten under it)"
cmp <(dd if=$dev bs=4k count=1 iflag=direct status=none) x.blk || die "A: block 0 differs after the read"
expect_rows "$proc" l2_cksum_bad=0 l2_degraded=0 l2_evict_reading=1 l2_laps=1
dm_remove hrA
dm_remove hrc

# ---- B: block 0 written during its L2 read, the hand over its slot
setup B
held_read b.out
dd if=/dev/urandom of=new.blk bs=4k count=1 status=none
dd if=new.blk of=$dev bs=4k count=1 oflag=direct conv=notrunc status=none
kill -0 $rpid 2>/dev/null ||
	die "B: the L2 read completed before the write did: the write waited for it (held $HOLD_MS ms)"
feed_over_read hrB B
wait $rpid || die "B: the read of block 0 failed"
show "B"
cmp -s b.out x.blk || cmp -s b.out new.blk || die "B: the read returned neither the old nor the new data"
expect_rows "$proc" l2_cksum_bad=0 l2_io_error=0 l2_degraded=0 l2_evict_reading=1
cmp <(dd if=$dev bs=4k count=1 iflag=direct status=none) new.blk || die "B: block 0 is not the new data"
dmsetup status hrB | grep -q ' ok$' || die "B: status: $(dmsetup status hrB)"
echo "hand-reader ok"

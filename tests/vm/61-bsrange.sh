#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
#
# Data integrity with bios of every size (issue 11): fio with
# bsrange=512-1m, random and sequential reads and writes mixed (two jobs,
# 16 MiB each, verify=crc32c with a verify backlog, so reads of
# just-written data run among the writes), through a small ARC (2 MiB of
# 4 KiB blocks) with the feed running at full speed and read-ahead on;
# then the same with 32 KiB blocks (partial blocks at both ends of most
# bios); zero verify errors, and the device equal to its origin at the
# end.  Devices: origin = dm-delay (0.5 ms) over brd /dev/ram0 (512-byte
# sectors, 48 MiB used); cache device = 16 MiB of brd /dev/ram1.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 48
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=48 oflag=direct status=none
dm_create bro "0 $len delay /dev/ram0 0 1"
for bsect in 8 64; do
	dm_create brc "0 32768 linear /dev/ram1 0"
	dm_create br "0 $len l2arc /dev/mapper/bro /dev/mapper/brc $bsect 12 arc_max 2097152 l2arc_feed_secs 1 l2arc_feed_min_ms 10 l2arc_write_max 8388608 l2arc_noprefetch 0 l2arc_headroom 0"
	dev=/dev/mapper/br
	proc=$(proc_of br)
	fio --filename=$dev --direct=1 --ioengine=libaio --iodepth=8 \
		--bsrange=512-1m --size=16M --verify=crc32c --verify_backlog=64 \
		--verify_fatal=1 --randseed=$bsect --output-format=terse --terse-version=3 \
		--name=rand --rw=randrw --offset=0 \
		--name=seq --rw=rw --offset=16M --loops=3 \
		--output=fio-$bsect.txt || die "fio ($bsect-sector blocks) failed: $(tail -c 600 fio-$bsect.txt)"
	echo "$bsect-sector blocks: hits $(arcstats_row "$proc" hits) misses $(arcstats_row "$proc" misses)" \
		"l2_hits $(arcstats_row "$proc" l2_hits) l2_write_bytes $(arcstats_row "$proc" l2_write_bytes)" \
		"reads_around_writes $(arcstats_row "$proc" reads_around_writes) read_bios $(arcstats_row "$proc" read_bios)" \
		"fill_runs $(arcstats_row "$proc" fill_runs) l2_read_runs $(arcstats_row "$proc" l2_read_runs)"
	(($(arcstats_row "$proc" l2_write_bytes) > 0)) || die "the feed wrote nothing"
	cmp <(dd if=$dev bs=1M iflag=direct status=none) \
		<(dd if=/dev/ram0 bs=1M count=48 iflag=direct status=none) || die "device differs from origin"
	dmsetup message br 0 verify || die "verify failed"
	dm_remove br
	dm_remove brc
done
echo "bsrange ok"

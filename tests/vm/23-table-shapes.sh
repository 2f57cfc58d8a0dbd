#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 120
#
# Table shapes (issue 9, section 7):
#  - a read-only table (dmsetup create --readonly) still has a working
#    L2ARC: the cache device is opened read-write whatever the table's
#    mode (it is the target's own), the feed writes it and L2 hits come
#    from it; no "write to read-only block-device" in the kernel log;
#  - a cache device that is itself read-only (blockdev --setro) is
#    refused at table load with "Cache device is read-only", for
#    read-only and read-write tables alike, and nothing is created;
#  - two l2arc targets in one table (a concatenation) each get their own
#    statistics: /proc/dm-l2arc/dm-<minor> for the target at sector 0 and
#    /proc/dm-l2arc/dm-<minor>+<start sector> for the other, each counting
#    its own reads;
#  - queue limits: minimum_io_size is the cache block (the ARC caches
#    nothing smaller) and optimal_io_size stays the origin's (0 for brd),
#    not one block: iSCSI initiators cap their requests at it (LIO
#    reports it as the OPTIMAL TRANSFER LENGTH, sd takes it as
#    max_sectors), which cut 1 MiB reads into 4 KiB commands.
# Devices: brd /dev/ram0 (origin, 64 MiB), /dev/ram1 and /dev/ram2 (cache
# devices), /dev/ram3 (second origin).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 4 64
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
k0=$(kmark)

# ---- read-only table
dmsetup create --readonly l2ro --table "0 $len l2arc /dev/ram0 /dev/ram1 8 6 arc_max 4194304 l2arc_feed_secs 3600 prefetch_disable 1"
add_cleanup dm_remove l2ro
proc=$(proc_of l2ro)
dd if=/dev/mapper/l2ro of=/dev/null bs=1M count=1 iflag=direct status=none
dmsetup message l2ro 0 l2arc_feed
expect_rows "$proc" l2_size=1048576
dd if=/dev/mapper/l2ro of=/dev/null bs=1M count=32 skip=1 iflag=direct status=none
h0=$(arcstats_row "$proc" l2_hits)
cmp <(dd if=/dev/mapper/l2ro bs=1M count=1 iflag=direct status=none) \
	<(dd if=/dev/ram0 bs=1M count=1 iflag=direct status=none) || die "read-only table: data differs"
assert_eq "L2 hits through a read-only table" $((h0 + 256)) "$(arcstats_row "$proc" l2_hits)"
klog=$(klog_since "$k0")
if grep -i 'read-only block-device' <<<"$klog"; then
	die "a write to a device opened read-only (kernel log above)"
fi
dm_remove l2ro

# ---- a read-only cache device is refused
blockdev --setro /dev/ram2
add_cleanup blockdev --setrw /dev/ram2
for ro in "" --readonly; do
	k1=$(kmark)
	if dmsetup create $ro l2bad --table "0 $len l2arc /dev/ram0 /dev/ram2 8" 2>/dev/null; then
		die "table with a read-only cache device was loaded (${ro:-rw})"
	fi
	klog=$(klog_since "$k1")
	grep -q 'Cache device is read-only' <<<"$klog" ||
		die "no 'Cache device is read-only' in the kernel log (${ro:-rw}): $(dmesg | tail -n 3)"
	dmsetup info l2bad >/dev/null 2>&1 && die "l2bad exists after the refused load"
done

# ---- two l2arc targets in one table
dm_create l2cat "0 65536 l2arc /dev/ram0 /dev/ram1 8 2 prefetch_disable 1
65536 65536 l2arc /dev/ram3 - 8 2 prefetch_disable 1"
m=$(minor_of l2cat)
[[ -f /proc/dm-l2arc/dm-$m/arcstats ]] || die "no /proc/dm-l2arc/dm-$m ($(ls /proc/dm-l2arc))"
[[ -f /proc/dm-l2arc/dm-$m+65536/arcstats ]] || die "no /proc/dm-l2arc/dm-$m+65536 ($(ls /proc/dm-l2arc))"
dd if=/dev/mapper/l2cat of=/dev/null bs=4k count=3 iflag=direct status=none
dd if=/dev/mapper/l2cat of=/dev/null bs=4k count=5 skip=8192 iflag=direct status=none
expect_rows /proc/dm-l2arc/dm-$m/arcstats demand_data_misses=3 l2_ndev=1
expect_rows /proc/dm-l2arc/dm-$m+65536/arcstats demand_data_misses=5 l2_ndev=0
ls /proc/dm-l2arc
"$L2ARC_TOP/scripts/l2arcstat" -d l2cat 2>&1 | head -n 5
dm_remove l2cat	# it holds ram3, which a table below takes

# ---- queue limits
for b in 8 256; do
	dm_create l2lim "0 65536 l2arc /dev/ram3 - $b 2 prefetch_disable 1"
	q=/sys/block/dm-$(minor_of l2lim)/queue
	echo "block $b sectors: minimum_io_size $(cat $q/minimum_io_size)," \
		"optimal_io_size $(cat $q/optimal_io_size) (ram3: $(cat /sys/block/ram3/queue/optimal_io_size))"
	assert_eq "minimum_io_size, $b-sector blocks" $((b * 512)) "$(cat $q/minimum_io_size)"
	assert_eq "optimal_io_size, $b-sector blocks (brd's)" \
		"$(cat /sys/block/ram3/queue/optimal_io_size)" "$(cat $q/optimal_io_size)"
	dm_remove l2lim
done
echo "table-shapes ok"

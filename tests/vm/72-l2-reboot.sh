#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
# vm-boots: 2
# debug-check: skip two boots of a VM for what 67-l2-persist checks within one; checked on both Debian kernels
#
# The L2ARC survives a reboot (issue 14): two VM boots share two files,
# the origin and the cache device, as loop devices (tests/run boots this
# test twice, one VM after the other; the first's results directory is
# boot-1 in the second's).
#  boot 1: a 32 MiB origin file (random data) and a 16 MiB cache device
#     file (l2arc_rebuild_blocks_min_l2size 0: with a header and log
#     blocks), as /dev/loop0 and /dev/loop1 in its results directory; a
#     12 MiB set warm on L2 (3,072 blocks, arc_max 4 MiB); the table
#     removed (its log and clean header written), the loops detached, the
#     origin file's sha256 and the loops' device numbers written down.
#  boot 2: both files copied to tmpfs and attached in the same order (the
#     header checks the origin's device number); the table created:
#     l2_rebuild_success 1, l2_rebuild_bufs 3072, l2_size 12 MiB (as at
#     the end of boot 1), 13 log blocks read; a pass over the set reads
#     0 sectors from the origin (/sys/block/loop0/stat), makes 3,072 L2
#     hits and no L2 miss, and returns the origin's data.
. "$(dirname "$0")/lib.sh"

case $L2ARC_OUT in
*/boots-*/boot-1) boot=1 ;;
*/boots-*) boot=2 ;;
*) die "runs only from tests/run, as two boots (# vm-boots: 2)" ;;
esac
first=$L2ARC_OUT/boot-1
set_mib=12 blocks=3072 bs=4096
load_module
persist_any_size
modprobe loop
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
st() { arcstats_row "$(proc_of rb)" "$1"; }
attach() {	# attach FILE: print the loop device, detached at exit
	local d
	d=$(losetup --find --show "$1")
	add_cleanup losetup -d "$d"
	echo "$d"
}
devno() { stat -c '%t:%T' "$1"; }

if ((boot == 1)); then
	dir=$L2ARC_OUT/images
	mkdir -p "$dir"
	dd if=/dev/urandom of="$dir/origin" bs=1M count=32 status=none
	truncate -s 16M "$dir/cache"
	o=$(attach "$dir/origin")
	c=$(attach "$dir/cache")
	dm_create rb "0 $((set_mib << 11)) l2arc $o $c 8 10 $feat"
	warm_by_feeds rb $set_mib
	assert_eq "boot 1: l2_size after warming" $((set_mib << 20)) "$(st l2_size)"
	# 4,096 blocks: a header and 17 log blocks, then 4,078 slots
	assert_eq "boot 1: l2_log_blk_count" 17 "$(st l2_log_blk_count)"
	echo "boot 1: l2_size $(st l2_size), l2_only_blocks $(st l2_only_blocks)," \
		"log blocks written $(st l2_log_blk_writes)"
	dmsetup remove rb
	sync
	sha256sum <"$dir/origin" >"$dir/origin.sha256"
	echo "$(devno "$o") $(devno "$c")" >"$dir/devnos"
	echo "boot 1: origin $o ($(devno "$o")), cache device $c ($(devno "$c")); table removed"
	echo "l2-reboot boot 1 ok"
	exit 0
fi

# ---- boot 2
src=$first/images
[[ -s $src/devnos ]] || die "boot 1 left no files in $src"
dir=/tmp/l2-reboot
mkdir -p "$dir"
cp "$src/origin" "$src/cache" "$dir/"
assert_eq "boot 2: the origin file as boot 1 left it" "$(cat "$src/origin.sha256")" \
	"$(sha256sum <"$dir/origin")"
o=$(attach "$dir/origin")
c=$(attach "$dir/cache")
read -r ono cno <"$src/devnos"
assert_eq "boot 2: device numbers as in boot 1" "$ono $cno" "$(devno "$o") $(devno "$c")"
dm_create rb "0 $((set_mib << 11)) l2arc $o $c 8 10 $feat"
l2_rebuilt rb
echo "boot 2: $(dmesg | grep -E 'L2ARC rebuilt|starts empty' | tail -n 1)"
expect_rows "$(proc_of rb)" l2_rebuild_success=1 l2_rebuild_bufs=$blocks \
	l2_rebuild_log_blks=13 l2_rebuild_unclean=0 l2_rebuild_dh_errors=0 \
	l2_rebuild_cksum_lb_errors=0 l2_size=$((set_mib << 20)) \
	l2_only_blocks=$blocks hash_elements=0
check_rows "$(proc_of rb)" 4078 $bs
ob=$(awk '{ print $3 }' /sys/block/"${o##*/}"/stat)
cmp <(dd if=/dev/mapper/rb bs=1M iflag=direct status=none) \
	<(dd if="$o" bs=1M count=$set_mib iflag=direct status=none) ||
	die "boot 2: the device differs from its origin"
# the cmp's own read of the origin: exactly the set
assert_eq "boot 2: origin sectors read over the pass (the cmp's own only)" \
	$((ob + (set_mib << 11))) "$(awk '{ print $3 }' /sys/block/"${o##*/}"/stat)"
expect_rows "$(proc_of rb)" l2_hits=$blocks l2_misses=0
echo "boot 2: rebuilt $(st l2_rebuild_bufs) blocks in $(st l2_rebuild_time_ms) ms;" \
	"a pass: $(st l2_hits) L2 hits, 0 origin reads"
echo "l2-reboot boot 2 ok"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# debug-check: skip twelve creates and removes, each now reading the origin's fingerprint (835 s on the debug kernel beside other VMs); 69, 73, 74 and 76 run the rebuild and the clean suspend there
#
# The persistent L2ARC (issue 14): the cache device's header and log
# blocks, the rebuild at table load, and never stale across a crash.
# Module parameter l2arc_rebuild_blocks_min_l2size 0 (every cache device
# holds metadata; the default, 1 GiB, is above these RAM disks).
# Layout of the 32 MiB cache device at 4 KiB blocks (T = 8192 blocks):
# header + ceil(8192 / 254) = 33 log blocks = 34 blocks before slot 0
# (l2_log_blk_asize 139264), 8158 slots, 33 log blocks (l2_log_blk_count).
# "p": 24 MiB of random data on /dev/ram0, through a dm-linear "po" (its
# /sys/block stat counts what the origin reads), cache device /dev/ram1, 4 KiB
# blocks, arc_max 4 MiB, feeds by message (read in 2 MiB chunks, one
# l2arc_feed after each), read-ahead off: the whole set, 6144 blocks, is
# on L2 in slots 0..6143, described by log blocks 0..24.
#  1. remove, rmmod and insmod (as a reboot would, but for the RAM disks),
#     create again: l2_rebuild_success 1, l2_rebuild_bufs
#     6144, l2_rebuild_log_blks 25, l2_size 24 MiB; a pass reads nothing
#     from the origin (its sectors-read count unchanged), 6144 l2_hits,
#     and the data of the origin.
#  2. a 4 KiB write through the target to block 5, remove, create: 6143
#     blocks rebuilt, block 5 reads the new data.  (Blocks written through
#     the target lose their L2 copy: 6143, then 6142 after step 4.)
#  3. dmsetup reload + resume with the same table: 6143 rebuilt.
#  4. a crash while in use: the cache device copied (dd) while "p" is
#     live, after another write through it (block 7), is the device a
#     crash leaves; a device "q" over the same origin and the copy starts
#     empty (l2_rebuild_unclean 1, l2_size 0, one kernel log line) and
#     reads the origin's data, block 7 included.
#  5. a corrupt log block: the entries of log block 1 (slots 254..507,
#     4 KiB unit 2) overwritten while "p" is removed: l2_rebuild_cksum_lb_errors 1, only
#     its 254 blocks lost (5888 rebuilt), data = origin; the next load
#     finds it rewritten (0 errors, 5888 rebuilt).
#  6. table feature l2arc_rebuild 0: starts empty (l2_rebuild_success 0,
#     l2_size 0).
#  7. another origin (/dev/ram2, same size): starts empty,
#     l2_rebuild_dh_errors 1.
#  8. l2arc_rebuild_blocks_min_l2size 64 MiB, above the device: no
#     metadata (l2_log_blk_asize 0, 8192 slots in the status line) and
#     the header at sector 0 is voided (zeroes).
# Devices: brd /dev/ram0 (origin, under "po"), ram1 (cache device),
# ram2 (another origin), ram3 (the crash copy), 32 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
P=/sys/module/dm_l2arc/parameters
min0=$(cat $P/l2arc_rebuild_blocks_min_l2size)
# (a no-op once the module is gone: step 1 loads it again, and that
# load's unloading cleanup runs first)
add_cleanup eval "[[ ! -e $P/l2arc_rebuild_blocks_min_l2size ]] || echo $min0 >$P/l2arc_rebuild_blocks_min_l2size"
assert_eq "l2arc_rebuild_blocks_min_l2size default" $((1 << 30)) "$min0"
assert_eq "l2arc_rebuild_enabled default" 1 "$(cat $P/l2arc_rebuild_enabled)"
echo 0 >$P/l2arc_rebuild_blocks_min_l2size
mk_brd 4 32
set_mib=24 blocks=6144
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
dd if=/dev/urandom of=/dev/ram2 bs=1M count=$set_mib oflag=direct status=none
dm_create po "0 $(sectors /dev/ram0) linear /dev/ram0 0"
O=/dev/mapper/po po_blk=dm-$(minor_of po)
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table() {	# table ORIGIN CACHE [FEATURE VALUE]
	local extra=${3:+ $3 $4} n=10
	[[ -n $extra ]] && n=12
	echo "0 $((set_mib << 11)) l2arc $1 $2 8 $n $feat$extra"
}
st() { arcstats_row "$(proc_of "$1")" "$2"; }
rd_sectors() { awk '{ print $3 }' /sys/block/"$po_blk"/stat; }
same_as_origin() {	# same_as_origin NAME ORIGIN
	local o=$2
	[[ $o == "$O" ]] && o=/dev/ram0	# not through po: its count is p's
	cmp <(dd if="/dev/mapper/$1" bs=1M iflag=direct status=none) \
		<(dd if="$o" bs=1M count=$set_mib iflag=direct status=none) ||
		die "$1 differs from its origin $2"
}
show() {
	local r out=""
	for r in l2_size l2_rebuild_success l2_rebuild_bufs l2_rebuild_log_blks \
		l2_rebuild_unclean l2_rebuild_dh_errors \
		l2_rebuild_cksum_lb_errors l2_rebuild_time_ms \
		l2_log_blk_writes; do
		out+=" $r=$(st "$1" $r)"
	done
	echo "$2 $1:$out"
}
create() {
	dmsetup create "$1" --table "$2"
	l2_rebuilt "$1"
}
remove() {
	dm_remove "$1"
}
add_cleanup eval "dmsetup remove q 2>/dev/null; dmsetup remove p 2>/dev/null; true"
warm() { warm_by_feeds "$1" $set_mib; }
starts_empty() {	# starts_empty NAME TABLE ROW LOG STEP: ROW 1, l2_size 0
	dmesg -C
	create "$1" "$2"
	show "$1" "$5"
	expect_rows "$(proc_of "$1")" l2_rebuild_success=0 "$3"=1 l2_size=0
	dmesg | grep -q "cache device starts empty: $4" ||
		die "no kernel log line 'cache device starts empty: $4'"
}

# ---- warm
create p "$(table $O /dev/ram1)"
expect_rows "$(proc_of p)" l2_log_blk_asize=139264 l2_log_blk_count=33 \
	l2_rebuild_success=0 l2_rebuild_unclean=0 l2_rebuild_dh_errors=0
warm p
show p "warm"
assert_eq "l2_size after the warm pass" $((set_mib << 20)) "$(st p l2_size)"
(($(st p l2_log_blk_writes) >= 25)) || die "fewer than 25 log block writes"
assert_eq "status: L2 blocks used/total" "$blocks/8158" "$(dmsetup status p | awk '{ print $16 }')"

# ---- 1. remove, unload the module (nothing kept in RAM), load, create
remove p
unload_module
load_module
echo 0 >$P/l2arc_rebuild_blocks_min_l2size
create p "$(table $O /dev/ram1)"
show p "1. created again"
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=$blocks \
	l2_rebuild_log_blks=25 l2_size=$((blocks * 4096)) \
	l2_rebuild_size=$((blocks * 4096)) l2_rebuild_unclean=0 \
	l2_rebuild_dh_errors=0 l2_rebuild_cksum_lb_errors=0 l2_rebuild_io_errors=0
r0=$(rd_sectors)
same_as_origin p $O
assert_eq "origin sectors read over a pass" 0 $(($(rd_sectors) - r0))
expect_rows "$(proc_of p)" l2_hits=$blocks l2_misses=0

# ---- 2. a write through the target, remove, create
head -c 4096 /dev/urandom >"$L2ARC_TEST_OUT/b5"
dd if="$L2ARC_TEST_OUT/b5" of=/dev/mapper/p bs=4096 seek=5 oflag=direct status=none
remove p
create p "$(table $O /dev/ram1)"
show p "2. after a write to block 5"
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=$((blocks - 1))
cmp "$L2ARC_TEST_OUT/b5" <(dd if=/dev/mapper/p bs=4096 skip=5 count=1 iflag=direct status=none) ||
	die "block 5 is stale after the reload"
same_as_origin p $O

# ---- 3. reload
dmsetup reload p --table "$(table $O /dev/ram1)"
dmsetup resume p
l2_rebuilt p
show p "3. reloaded"
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=$((blocks - 1))

# ---- 4. a crash while in use
head -c 4096 /dev/urandom >"$L2ARC_TEST_OUT/b7"
dd if="$L2ARC_TEST_OUT/b7" of=/dev/mapper/p bs=4096 seek=7 oflag=direct status=none
dd if=/dev/ram1 of=/dev/ram3 bs=1M iflag=direct oflag=direct status=none
remove p	# q's ctr refuses an origin that p holds
starts_empty q "$(table $O /dev/ram3)" l2_rebuild_unclean \
	"not shut down cleanly" "4. the crash copy"
cmp "$L2ARC_TEST_OUT/b7" <(dd if=/dev/mapper/q bs=4096 skip=7 count=1 iflag=direct status=none) ||
	die "block 7 is stale after the crash"
same_as_origin q $O
remove q
# p again: q claimed the origin since p's log, so p starts empty; warmed
create p "$(table $O /dev/ram1)"
warm p

# ---- 5. a corrupt log block
have=$blocks	# warmed again after blocks 5 and 7 were written
remove p
# its 32-byte head (magic, guid, index, checksum) kept, its entries random
{
	dd if=/dev/ram1 bs=4096 skip=2 count=1 iflag=direct status=none | head -c 32
	head -c 4064 /dev/urandom
} >"$L2ARC_TEST_OUT/lb1"
dd if="$L2ARC_TEST_OUT/lb1" of=/dev/ram1 bs=4096 seek=2 oflag=direct status=none
create p "$(table $O /dev/ram1)"
show p "5. log block 1 corrupt"
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_cksum_lb_errors=1 \
	l2_rebuild_bufs=$((have - 254)) l2_size=$(((have - 254) * 4096))
same_as_origin p $O
remove p
create p "$(table $O /dev/ram1)"
show p "5. the next load"
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_cksum_lb_errors=0 \
	l2_rebuild_bufs=$((have - 254))
remove p

# ---- 6. l2arc_rebuild 0
create p "$(table $O /dev/ram1 l2arc_rebuild 0)"
show p "6. l2arc_rebuild 0"
expect_rows "$(proc_of p)" l2_rebuild_success=0 l2_size=0 l2_rebuild_bufs=0
same_as_origin p $O
remove p

# ---- 7. another origin
create p "$(table $O /dev/ram1)"
warm p
assert_eq "l2_size, warm again" $((set_mib << 20)) "$(st p l2_size)"
remove p
starts_empty p "$(table /dev/ram2 /dev/ram1)" l2_rebuild_dh_errors \
	"another origin" "7. another origin"
same_as_origin p /dev/ram2
remove p

# ---- 8. a cache device below l2arc_rebuild_blocks_min_l2size
echo $((64 << 20)) >$P/l2arc_rebuild_blocks_min_l2size
sector0() { dd if=/dev/ram1 bs=4096 count=1 iflag=direct status=none | od -An -N8 -tx8 | tr -d ' '; }
[[ $(sector0) != 0000000000000000 ]] ||
	die "setup: no header at sector 0"
create p "$(table $O /dev/ram1)"
expect_rows "$(proc_of p)" l2_log_blk_asize=0 l2_log_blk_count=0 l2_size=0
assert_eq "status: slots without metadata" "0/8192" "$(dmsetup status p | awk '{ print $16 }')"
assert_eq "sector 0 voided" 0000000000000000 "$(sector0)"
same_as_origin p $O
remove p

echo "persist ok"

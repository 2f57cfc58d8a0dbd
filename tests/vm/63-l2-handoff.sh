#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
# debug-check: skip the hand-off's counts, on both Debian kernels; 71-fault-injection runs the hand-off on this kernel (its ARC evicts for room with the feed running)
#
# Hand-off at eviction (issue 13): a block that the ARC evicts for room
# before the feed has written it goes to the feed's hand-off queue, not
# back to the page allocator, so that a reader faster than the feed still
# leaves its blocks on the cache device.
#  (a) Defaults (l2arc_handoff_max 64 MiB, the feed timer at 1 s): a 64 MiB
#      set over a 16 MiB ARC (4x) read once, sequentially, 1 MiB O_DIRECT
#      reads at full speed.  Then l2arc_feed messages until the queue is
#      empty (l2_handoff_size 0) and one more (the resident blocks): every
#      block is on the cache device, l2_size = 64 MiB exactly, and
#      l2_evict_missed = 0.  Pass 2 then reads nothing at the origin.
#      Before the hand-off, only what a feed found resident got there.
#  (b) The queue bound reached: l2arc_handoff_max 1 MiB (256 blocks),
#      read-ahead off, and the cache device's writes held (dm-delay) while
#      the set is read, so that the first feed cannot finish: the queue
#      fills and every further eligible eviction is missed.  After the
#      hold is released and the queue drained: l2_evict_missed > 0, and
#      the cache device holds exactly the blocks that were not missed
#      (l2_size = (16384 - l2_evict_missed) * 4096); pass 2 reads at the
#      origin at least the missed blocks, and verify agrees.
#  (c) The shrinker takes the queue first: l2arc_handoff_max 512 MiB (no
#      early feed) and l2arc_feed_secs 3600, the set read once (12288
#      blocks handed off, all still queued), then drop_caches 3: the queue
#      is empty (l2_handoff_size 0, l2_only_writing 0) and every queued
#      block is counted in l2_evict_missed (12288); nothing reached L2.
# In (a), (b) and (c) the status line's l2_handoffs and l2_evict_missed
# equal the arcstats rows.
# Every pass's data is checked against the origin (md5).
# Devices: origin = brd /dev/ram0 (64 MiB); cache device = brd /dev/ram1
# (128 MiB), through dm-delay in (b).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 128
P=/sys/module/dm_l2arc/parameters
ws=$((64 << 20)) len=$(((64 << 20) / 512)) blocks=16384
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
sum0=$(dd if=/dev/ram0 bs=1M count=64 iflag=direct status=none | md5sum | cut -d' ' -f1)
dm_create l2o "0 $len linear /dev/ram0 0"
ostat=/sys/block/dm-$(dmsetup info -c --noheadings -o minor l2o | tr -d ' ')/stat
add_cleanup eval "echo $(cat $P/l2arc_handoff_max) >$P/l2arc_handoff_max"
assert_eq "l2arc_handoff_max default" 67108864 "$(cat $P/l2arc_handoff_max)"

osect() { awk '{ print $3 }' "$ostat"; }
st() { arcstats_row "$proc" "$1"; }
mkdev() {	# mkdev CACHE FEATURES...
	local c=$1 f=(arc_max 16777216)
	shift
	f+=("$@")
	dm_create l2h "0 $len l2arc /dev/mapper/l2o $c 8 ${#f[@]} ${f[*]}"
	proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2h | tr -d ' ')/arcstats
}
# read_pass TAG: read the set once; sets pass_ob (origin bytes)
read_pass() {
	local o0 sum
	o0=$(osect)
	sum=$(dd if=/dev/mapper/l2h bs=1M count=64 iflag=direct status=none | md5sum | cut -d' ' -f1)
	assert_eq "$1 data" "$sum0" "$sum"
	pass_ob=$((($(osect) - o0) * 512))
	echo "$1: origin $pass_ob bytes; l2_size $(st l2_size), l2_handoffs $(st l2_handoffs)," \
		"l2_evict_missed $(st l2_evict_missed), l2_handoff_size $(st l2_handoff_size)," \
		"l2_feeds $(st l2_feeds), l2_hits $(st l2_hits)"
}
# drain: feed until the queue is empty, then once more (resident blocks)
drain() {
	local i
	for ((i = 0; i < 64; i++)); do
		(($(st l2_handoff_size) == 0)) && break
		dmsetup message l2h 0 l2arc_feed
	done
	assert_eq "l2_handoff_size after $i feeds" 0 "$(st l2_handoff_size)"
	dmsetup message l2h 0 l2arc_feed
}

# ---- (a) defaults
mkdev /dev/ram1
read_pass "(a) pass 1"
assert_eq "(a) arc_shrinks (no memory pressure in this VM)" 0 "$(st arc_shrinks)"
assert_eq "(a) prefetch_evicted_unused" 0 "$(st prefetch_evicted_unused)"
drain
assert_eq "(a) l2_evict_missed" 0 "$(st l2_evict_missed)"
(($(st l2_handoffs) > 0)) || die "(a) no block was handed off"
assert_eq "(a) l2_size: the whole set" "$ws" "$(st l2_size)"
read -r _ _ _ sh sm <<<"$(status_feed l2h)"
assert_eq "(a) status l2_handoffs l2_evict_missed" "$(st l2_handoffs) 0" "$sh $sm"
read_pass "(a) pass 2"
assert_eq "(a) pass 2 origin bytes" 0 "$pass_ob"
assert_eq "(a) verify" "l2 $blocks" \
	"$(dmsetup message l2h 0 verify | grep -o 'l2 [0-9]*')"
dm_remove l2h

# ---- (b) the bound reached: the cache device's writes held
echo 1048576 >$P/l2arc_handoff_max
c1=$(sectors /dev/ram1)
dm_create l2c "0 $c1 delay /dev/ram1 0 0 /dev/ram1 0 $HOLD_MS"
mkdev /dev/mapper/l2c prefetch_disable 1 l2arc_feed_secs 3600
read_pass "(b) pass 1"
# the first feed (woken at 128 queued blocks) is held: release it, and
# let the cache device write at once from now on
t0=$SECONDS
until (($(dmsetup status l2c | awk '{ print $5 }') > 0)); do
	((SECONDS - t0 < 60)) || die "(b) no feed write was held"
	sleep 0.1
done
dmsetup suspend l2c
dmsetup reload l2c --table "0 $c1 linear /dev/ram1 0"
dmsetup resume l2c
drain
missed=$(st l2_evict_missed)
((missed > 0)) || die "(b) l2_evict_missed is 0: the queue never filled"
assert_eq "(b) l2_size: every block but the missed ones" \
	$(((blocks - missed) * 4096)) "$(st l2_size)"
read -r _ _ _ sh sm <<<"$(status_feed l2h)"
assert_eq "(b) status l2_handoffs l2_evict_missed" "$(st l2_handoffs) $missed" "$sh $sm"
assert_eq "(b) verify" "l2 $((blocks - missed))" \
	"$(dmsetup message l2h 0 verify | grep -o 'l2 [0-9]*')"
read_pass "(b) pass 2"
((pass_ob >= missed * 4096)) ||
	die "(b) pass 2 read $pass_ob bytes at the origin, less than the $missed missed blocks"
dm_remove l2h
dm_remove l2c	# it holds ram1, which (c) takes as the cache device

# ---- (c) drop_caches empties the queue
echo $((512 << 20)) >$P/l2arc_handoff_max
mkdev /dev/ram1 prefetch_disable 1 l2arc_feed_secs 3600
read_pass "(c) pass 1"
assert_eq "(c) l2_handoffs" 12288 "$(st l2_handoffs)"
assert_eq "(c) l2_handoff_size" $((12288 * 4096)) "$(st l2_handoff_size)"
assert_eq "(c) l2_only_writing (T1's LRU deleted, kept for the queue)" 12288 "$(st l2_only_writing)"
echo 3 >/proc/sys/vm/drop_caches
expect_rows "$proc" l2_handoff_size=0 l2_only_writing=0 l2_evict_missed=12288 l2_size=0
assert_eq "(c) status l2_handoffs l2_evict_missed" "12288 12288" \
	"$(status_feed l2h | awk '{ print $4, $5 }')"
dmsetup message l2h 0 verify >/dev/null
dm_remove l2h
echo "handoff ok: (b) $missed blocks missed"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# debug-check: skip replays the log at every flush, a few hundred dd and dmsetup runs; make check's time (222 s on this kernel; tests/run -k debug runs it)
#
# Crash consistency of the persistent L2ARC (issue 14), with dm-log-writes:
# the cache device is a log-writes device "lw" over /dev/ram1 that logs
# every write to /dev/ram2 as it becomes durable (at a flush or FUA).
# Device "p" (origin /dev/ram0, 24 MiB of random data, 4 KiB blocks,
# arc_max 4 MiB, feeds by message, read-ahead off, module parameter
# l2arc_rebuild_blocks_min_l2size 0), its life:
#   create (header "in use"), the set warmed onto L2 (12 feeds), 64
#   blocks written through it (every 96th block: their L2 copies go),
#   a feed, suspend (log blocks, header "clean"), resume ("in use"), a
#   pass and a feed, remove ("clean").
# No write reaches the origin after the 64, so the origin as it ends is
# the truth at every point a crash could stop the log.  Then, for every
# entry of the log that flushes or is written with FUA, the state a crash
# leaves just before it and just after it (entries 0 .. k replayed onto a
# copy of the cache device as created: zeroes) is given to a device "t"
# over the same origin, the module loaded anew (as after a reboot): every block read through "t" must equal the
# origin; "t" rebuilds (l2_rebuild_success 1) from at least the two
# clean headers, and from the last state exactly as many blocks as "p"
# held on L2 before its remove.  Before the suspend's log write and clean
# header the log blocks still described the 64 old copies: a protocol
# that marked the header clean first, or missed an invalidation, serves
# them here.
# Devices: brd /dev/ram0 (origin), ram1 (under lw), ram2 (the log), ram3
# (the replay), ram4 (the copy "t" uses), 64 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
modprobe dm-log-writes
P=/sys/module/dm_l2arc/parameters
min0=$(cat $P/l2arc_rebuild_blocks_min_l2size)
add_cleanup eval "[[ ! -e $P/l2arc_rebuild_blocks_min_l2size ]] || echo $min0 >$P/l2arc_rebuild_blocks_min_l2size"
echo 0 >$P/l2arc_rebuild_blocks_min_l2size
mk_brd 5 64
set_mib=24 blocks=6144
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
dm_create lw "0 $(sectors /dev/ram1) log-writes /dev/ram1 /dev/ram2"
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table() { echo "0 $((set_mib << 11)) l2arc /dev/ram0 $1 8 10 $feat"; }
st() { arcstats_row "$(proc_of "$1")" "$2"; }
mark() { dmsetup message lw 0 mark "$1"; }
same_as_origin() {
	cmp -s <(dd if="/dev/mapper/$1" bs=1M iflag=direct status=none) \
		<(dd if=/dev/ram0 bs=1M count=$set_mib iflag=direct status=none)
}

# ---- the life of "p"
dmsetup create p --table "$(table /dev/mapper/lw)"
add_cleanup eval "dmsetup remove p 2>/dev/null; true"
mark created
warm_by_feeds p $set_mib
assert_eq "l2_size, warm" $((set_mib << 20)) "$(st p l2_size)"
mark warm
for i in $(seq 0 63); do
	head -c 4096 /dev/urandom |
		dd of=/dev/mapper/p bs=4096 seek=$((i * 96)) oflag=direct status=none
done
assert_eq "l2_size after the 64 writes" $(((blocks - 64) * 4096)) "$(st p l2_size)"
dmsetup message p 0 l2arc_feed
mark written
dmsetup suspend p
mark suspended
dmsetup resume p
mark resumed
same_as_origin p || die "p differs from its origin"
dmsetup message p 0 l2arc_feed
held=$(st p l2_size)
echo "p: l2_size $held before its remove"
dmsetup remove p
mark removed
dmsetup remove lw

# ---- every crash point
python3 "$L2ARC_TOP/tests/vm/log_replay.py" list /dev/ram2 >"$L2ARC_TEST_OUT/log"
n=$(wc -l <"$L2ARC_TEST_OUT/log")
echo "log: $n entries; flushes and FUA writes:"
awk '$2 ~ /FLUSH|FUA|MARK/' "$L2ARC_TEST_OUT/log"
# points: k = entries replayed (0..n); before and after each flush or FUA
mapfile -t points < <(awk '$2 ~ /FLUSH|FUA/ { print $1; print $1 + 1 }
	END { print NR }' "$L2ARC_TEST_OUT/log" | sort -n -u)
dd if=/dev/zero of=/dev/ram3 bs=1M count=64 oflag=direct status=none
done_to=0 rebuilt=0 last=""
for k in "${points[@]}"; do
	python3 "$L2ARC_TOP/tests/vm/log_replay.py" replay /dev/ram2 /dev/ram3 "$done_to" "$k"
	done_to=$k
	dd if=/dev/ram3 of=/dev/ram4 bs=1M iflag=direct oflag=direct status=none
	# a crash takes the module's memory too: its claims on the origin
	# (struct l2arc_owner) would refuse the headers of the tables before
	unload_module
	load_module
	echo 0 >$P/l2arc_rebuild_blocks_min_l2size
	dmsetup create t --table "$(table /dev/ram4)"
	l2_rebuilt t
	ok=$(st t l2_rebuild_success) bufs=$(st t l2_rebuild_bufs)
	same_as_origin t || die "after $k of $n log entries: t differs from the origin (rebuilt $ok, $bufs blocks)"
	rebuilt=$((rebuilt + ok))
	last="$ok $bufs"
	echo "crash after $k entries: rebuilt $ok, l2_rebuild_bufs $bufs, unclean $(st t l2_rebuild_unclean), l2_size $(st t l2_size); data = origin"
	dmsetup remove t
done
((rebuilt >= 2)) || die "only $rebuilt crash points rebuilt (two clean headers in the log)"
assert_eq "the last state: rebuilt, and the blocks p held" "1 $((held / 4096))" "$last"
echo "crash ok: ${#points[@]} crash points, $rebuilt rebuilt"

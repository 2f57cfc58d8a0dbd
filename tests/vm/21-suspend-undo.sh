#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 120
#
# An interrupted suspend leaves the device live with its feed running
# (issue 9, section 4).  The origin "l2uo" (dm-linear over brd /dev/ram0)
# is suspended so that a read through the l2arc device "l2u" stays in
# flight; `dmsetup suspend --nolockfs l2u` then waits for it and is killed
# with SIGKILL (device-mapper undoes the suspend: presuspend_undo); the origin is
# resumed.  Then: l2u is ACTIVE, the read completed with the origin's data,
# the `l2arc_feed` message is taken, and the timer feed still runs
# (l2_feeds grows with l2arc_feed_secs 1).  A real suspend/resume after
# that works as before.
# Devices: origin = dm-linear over brd /dev/ram0 (64 MiB); cache device =
# brd /dev/ram1 (64 MiB).
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 2 64
len=$(sectors /dev/ram0)
dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 oflag=direct status=none
dm_create l2uo "0 $len linear /dev/ram0 0"
dm_create l2u "0 $len l2arc /dev/mapper/l2uo /dev/ram1 8 4 l2arc_feed_secs 1 prefetch_disable 1"
dev=/dev/mapper/l2u
st() { arcstats_row "$(proc_of l2u)" "$1"; }

dmsetup suspend l2uo
dd if=$dev of=held.out bs=4k skip=7 count=1 iflag=direct status=none &
rpid=$!
wait_for 10 "the read to be in flight" row_at_least "$(proc_of l2u)" misses 1
dmsetup suspend --nolockfs l2u &
spid=$!
sleep 1
kill -0 $spid 2>/dev/null || die "dmsetup suspend returned while a read was in flight"
# SIGKILL: dmsetup restarts the ioctl after a signal it handles
kill -KILL $spid
wait $spid && die "the interrupted dmsetup suspend succeeded"
dmsetup resume l2uo
wait $rpid || die "the held read failed"
cmp held.out <(dd if=/dev/ram0 bs=4k skip=7 count=1 iflag=direct status=none) ||
	die "the held read returned other data"
dmsetup info l2u | grep -q '^State: *ACTIVE' || die "l2u not active: $(dmsetup info l2u)"
dmesg | tail -n 20

dd if=$dev of=/dev/null bs=1M count=4 iflag=direct status=none
dmsetup message l2u 0 l2arc_feed || die "l2arc_feed refused after an interrupted suspend"
f0=$(st l2_feeds)
sleep 3.5
f1=$(st l2_feeds)
echo "l2_feeds $f0 -> $f1 in 3.5 s"
((f1 >= f0 + 2)) || die "the timer feed does not run after an interrupted suspend ($f0 -> $f1)"
(($(st l2_size) > 0)) || die "nothing on L2"

dmsetup suspend l2u
if dmsetup message l2u 0 l2arc_feed 2>/dev/null; then die "l2arc_feed taken while suspended"; fi
dmsetup resume l2u
dmsetup message l2u 0 l2arc_feed || die "l2arc_feed refused after resume"
echo "suspend-undo ok"

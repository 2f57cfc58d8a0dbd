#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
#
# A log left clean is not rebuilt after another table used the origin
# (found by an adversarial review of the persistent L2ARC: each case
# below served the written block's old copy before the fix).  Module
# parameter l2arc_rebuild_blocks_min_l2size 0.  Device "p": origin
# /dev/ram0 (8 MiB of random data), cache device "c" (a dm-linear over
# /dev/ram1, so that it can be made to fail writes), 4 KiB blocks,
# arc_max 4 MiB, the set warmed onto L2 by message (2,048 blocks), then:
#  a. a reload to a table without a cache device ("-"), a write to block
#     5 through it, a reload back to "c": starts empty
#     (l2_rebuild_success 0, l2_rebuild_dh_errors 1, l2_size 0, the log
#     line "another table used the origin"), block 5 new;
#  b. warmed again and removed (clean); created with another cache device
#     (/dev/ram2), block 9 written, removed; created on "c": the same;
#  c. warmed again and removed; "c" fails every write (dm-flakey
#     error_writes), so the create cannot mark it in use (the device runs
#     "degraded"); block 13 written, removed; "c" heals, created again:
#     the same (the claim at the failed resume moved the origin on).
#  Control: with nothing in between, remove and create rebuilds all 2,048.
# Limit (Documentation, "Persistence"): the claims live in the module's
# memory; after a reboot a header that could not be marked in use is
# trusted again.
# Devices: brd /dev/ram0 (origin), ram1 (under "c"), ram2, 32 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
persist_any_size
modprobe dm-flakey
mk_brd 3 32
set_mib=8 blocks=2048
dd if=/dev/urandom of=/dev/ram0 bs=1M count=$set_mib oflag=direct status=none
cs=$(sectors /dev/ram1)
dm_create c "0 $cs linear /dev/ram1 0"
feat="arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 4194304 l2arc_noprefetch 0"
table() { echo "0 $((set_mib << 11)) l2arc /dev/ram0 $1 8 10 $feat"; }
nocache="0 $((set_mib << 11)) l2arc /dev/ram0 - 8 4 arc_max 4194304 prefetch_disable 1"
st() { arcstats_row "$(proc_of p)" "$1"; }
warm() {
	warm_by_feeds p $set_mib
	assert_eq "l2_size, warm" $((set_mib << 20)) "$(st l2_size)"
}
write_block() {	# write_block N: new random data to block N through p
	head -c 4096 /dev/urandom >"$L2ARC_TEST_OUT/b$1"
	dd if="$L2ARC_TEST_OUT/b$1" of=/dev/mapper/p bs=4096 seek="$1" oflag=direct status=none
}
starts_empty() {	# starts_empty N STEP: p started empty; block N is new
	echo "$2: l2_rebuild_success=$(st l2_rebuild_success) l2_rebuild_dh_errors=$(st l2_rebuild_dh_errors) l2_size=$(st l2_size)"
	expect_rows "$(proc_of p)" l2_rebuild_success=0 l2_rebuild_dh_errors=1 l2_size=0
	dmesg | grep -q "cache device starts empty: another table used the origin" ||
		die "$2: no kernel log line"
	cmp "$L2ARC_TEST_OUT/b$1" <(dd if=/dev/mapper/p bs=4096 skip="$1" count=1 iflag=direct status=none) ||
		die "$2: block $1 is stale"
	cmp <(dd if=/dev/mapper/p bs=1M iflag=direct status=none) \
		<(dd if=/dev/ram0 bs=1M count=$set_mib iflag=direct status=none) ||
		die "$2: p differs from its origin"
}
add_cleanup eval "dmsetup remove p 2>/dev/null; true"

# ---- control
dmsetup create p --table "$(table /dev/mapper/c)"
warm
dmsetup remove p
dmsetup create p --table "$(table /dev/mapper/c)"
l2_rebuilt p
expect_rows "$(proc_of p)" l2_rebuild_success=1 l2_rebuild_bufs=$blocks

# ---- a. a reload to no cache device and back
dmsetup reload p --table "$nocache"
dmsetup resume p
write_block 5
dmesg -C
dmsetup reload p --table "$(table /dev/mapper/c)"
dmsetup resume p
starts_empty 5 "a. back from cache device -"

# ---- b. another cache device in between
warm
dmsetup remove p
dmsetup create p --table "$(table /dev/ram2)"
write_block 9
dmsetup remove p
dmesg -C
dmsetup create p --table "$(table /dev/mapper/c)"
starts_empty 9 "b. back from /dev/ram2"

# ---- c. the in-use write fails, then the cache device heals
warm
dmsetup remove p
dmsetup suspend c
dmsetup load c --table "0 $cs flakey /dev/ram1 0 0 1 1 error_writes"
dmsetup resume c
dmsetup create p --table "$(table /dev/mapper/c)"
assert_eq "health with a cache device that fails writes" degraded \
	"$(dmsetup status p | awk '{ print $NF }')"
write_block 13
dmsetup remove p
dmsetup suspend c
dmsetup load c --table "0 $cs linear /dev/ram1 0"
dmsetup resume c
dmesg -C
dmsetup create p --table "$(table /dev/mapper/c)"
starts_empty 13 "c. healed"
dmsetup remove p
echo "owner ok"

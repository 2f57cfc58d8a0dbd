#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 420
# debug-check: skip make check's time (286 s there; passed by hand, kmemleak clean)
#
# Pools: several origins share one ARC (the l2arc-pool target; each
# member is an l2arc table that names the pool where a cache device
# would be).
#  0. Tables: the ctr errors of pool and member, status and table lines,
#     the pool cannot be removed under its members, takes no I/O, and a
#     reload of it cannot change the block size under members but does
#     change arc_max (c comes down at once, members show it).
#  1. Two members over origins with different data at the same block
#     numbers: each reads exactly its origin (cmp, twice, the second from
#     the ARC), after a write through one the other is unchanged.
#  2. One hot, one idle member of a 16 MiB pool (4096 blocks): the idle
#     one reads 1024 blocks once, then the hot one 3584 blocks three
#     times.  The members' hits and ARC bytes are exactly those of the
#     paper's ARC over the two streams as one (tests/tools/arc_ref.py,
#     keys (origin, block)): the hot one ends with 3584 blocks, more than
#     half the pool (2048), and its hits equal those of a device of its
#     own with the whole 16 MiB; a device of its own with half (8 MiB)
#     gets fewer.
#     The pool's own arcstats (/proc/dm-l2arc/<pool>/arcstats) sum its
#     members' counters and give its ARC's sizes once, and so does the
#     summed file; its origins file has a line per member, the message's.
#  3. Removing a member drops its blocks from the pool's ARC (the pool's
#     resident count falls by exactly its blocks) and frees its id; the
#     member made again gets that id and reads cold (no old header
#     matches), the other member's blocks stay, all of them; its
#     ghosts leave the pool's B1 and B2 too, so a member made again with
#     its id gets no ghost hit from them.
#  4. A floor: with arc_min 4 MiB on the idle member, the same streams
#     leave it exactly 4 MiB and the hot one the other 12 MiB; floors
#     past half the pool's arc_max are refused, a member's reload is
#     judged without its old floor, and a pool reload may not take
#     arc_max below twice the floors.
#  5. A ceiling: with arc_max 4 MiB on the hot member, it keeps exactly
#     4 MiB (1024 blocks) of a 16 MiB pool that has room, its hits are
#     exactly those of the reference with that ceiling (arc_ref.py), and
#     the uncapped member then takes 8 MiB beside it; status and origins
#     give the ceiling.
# Devices: brd RAM disks /dev/ram0, /dev/ram1 (origins), /dev/ram2 (for
# the refused cache device); 32 MiB each.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 3 32
sz=$(sectors /dev/ram0)
before=$(dmsetup ls | sort)

# dcmp A B [MiB]: A and B read alike (the first MiB only when given), by
# O_DIRECT reads: a buffered read of an origin would see its page cache,
# which writes through a member do not update
dcmp() {
	cmp <(dd if="$1" bs=1M ${3:+count=$3} iflag=direct status=none) \
		<(dd if="$2" bs=1M ${3:+count=$3} iflag=direct status=none)
}
# status_word DEV KEY: the word after KEY in DEV's status line
status_word() {
	dmsetup status "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}
# origin_line POOL NAME: the "origins" reply's line of member NAME
origin_line() {
	dmsetup message "$1" 0 origins | awk -v n="$2" '$2 == n'
}

# ---- 0. tables
expect_error "Not enough arguments: need <cache|-> <block_size>" \
	"0 8 l2arc-pool -"
expect_error "A pool's cache device is not supported yet: give -" \
	"0 8 l2arc-pool /dev/ram2 8"
expect_error "arc_max is the only feature of a pool" \
	"0 8 l2arc-pool - 8 2 prefetch_disable 1"
expect_error "Block size is not a power of two" "0 8 l2arc-pool - 12"

dm_create pl "0 8 l2arc-pool - 8 2 arc_max 16777216"
before=$(dmsetup ls | sort)
assert_eq "pool table" "- 8 2 arc_max 16777216" \
	"$(dmsetup table pl | cut -d' ' -f4-)"
assert_eq "empty pool status" "8 0/4096 0 4096 0 0 0 0 0" \
	"$(dmsetup status pl | cut -d' ' -f4-)"
M="0 $sz l2arc /dev/ram0 /dev/mapper/pl"
expect_error "Block size differs from the pool's" "$M 16"
expect_error "A pool member has no what-if" "$M 8 2 whatif 1"

# data: different on the two origins at every block
dd if=/dev/urandom of=/dev/ram0 bs=1M count=32 status=none
dd if=/dev/urandom of=/dev/ram1 bs=1M count=32 status=none
dm_create pa "$M 8"
dm_create pb "0 $sz l2arc /dev/ram1 /dev/mapper/pl 8"
pool_devt=$(dmsetup info -c --noheadings -o major,minor --separator : pl)
assert_eq "member table" "$pool_devt 8" \
	"$(dmsetup table pa | cut -d' ' -f5-)"
assert_eq "pool members" 2 "$(dmsetup status pl | awk '{ print $NF }')"
if dmsetup remove pl 2>/dev/null; then
	die "the pool was removed under its members"
fi
if dd if=/dev/mapper/pl of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null; then
	die "a read of the pool's own device succeeded"
fi
if dmsetup reload pl --table "0 8 l2arc-pool - 16" 2>/dev/null; then
	die "a reload changed the block size under members"
fi
assert_eq "reload error" "Block size differs from the pool's members'" "$(ctr_error)"
dmsetup reload pl --table "0 8 l2arc-pool - 8 2 arc_max 8388608"
dmsetup resume pl
assert_eq "pool c_max after reload" "8 0/2048 0 2048" \
	"$(dmsetup status pl | cut -d' ' -f4-7)"
assert_eq "member c_max after reload" 2048 \
	"$(dmsetup status pa | awk '{ split($5, a, "/"); print a[2] }')"
dmsetup reload pl --table "0 8 l2arc-pool - 8 2 arc_max 16777216"
dmsetup resume pl
echo "tables: errors, status, EBUSY, no I/O, reloads: ok ($pool_devt)"

# ---- 1. each member reads exactly its origin
for pass in 1 2; do
	dcmp /dev/mapper/pa /dev/ram0 || die "pa differs from its origin (pass $pass)"
	dcmp /dev/mapper/pb /dev/ram1 || die "pb differs from its origin (pass $pass)"
done
dd if=/dev/urandom of=/dev/mapper/pa bs=1M seek=1 count=1 oflag=direct status=none
dcmp /dev/mapper/pa /dev/ram0 || die "pa differs from its origin after a write"
dcmp /dev/mapper/pb /dev/ram1 || die "pb differs from its origin after pa's write"
cmp -n 1048576 -i 1048576 /dev/mapper/pa /dev/mapper/pb >/dev/null 2>&1 &&
	die "pa and pb read alike"
hits_a=$(arcstats_row "$(proc_of pa)" hits)
hits_b=$(arcstats_row "$(proc_of pb)" hits)
[ "$hits_a" -gt 0 ] && [ "$hits_b" -gt 0 ] || die "no ARC hits: pa $hits_a pb $hits_b"
echo "two members, same blocks, own data: cmp ok (ARC hits pa $hits_a pb $hits_b)"
dm_remove pa
dm_remove pb
dm_remove pl

# ---- 2. one hot, one idle
read -r ref_hot ref_hot_blocks ref_idle ref_idle_blocks ref_own ref_half < <(
	python3 - "$L2ARC_TOP/tests/tools" <<-'EOF'
	import sys
	sys.path.insert(0, sys.argv[1])
	from arc_ref import Arc
	def run(c, seq):
	    arc, hits = Arc(c, 'fixed'), {}
	    for k in seq:
	        h = arc.hits
	        arc.access(k)
	        hits[k[0]] = hits.get(k[0], 0) + arc.hits - h
	    res = list(arc.t1) + list(arc.t2)
	    return hits, {o: sum(1 for k in res if k[0] == o) for o in 'ab'}
	idle = [('b', i) for i in range(1024)]
	hot = [('a', i) for i in range(3584)] * 3
	hits, blocks = run(4096, idle + hot)
	own, _ = run(4096, hot)
	half, _ = run(2048, hot)
	print(hits.get('a', 0), blocks['a'], hits.get('b', 0), blocks['b'],
	      own['a'], half.get('a', 0))
	EOF
)
echo "reference: hot $ref_hot hits, $ref_hot_blocks blocks; idle $ref_idle hits, $ref_idle_blocks blocks; own 16 MiB $ref_own, own 8 MiB $ref_half"

dm_create pq "0 8 l2arc-pool - 8 2 arc_max 16777216"
dm_create qa "0 $sz l2arc /dev/ram0 /dev/mapper/pq 8 2 prefetch_disable 1"
dm_create qb "0 $sz l2arc /dev/ram1 /dev/mapper/pq 8 2 prefetch_disable 1"
pyread /dev/mapper/qb 0-1023
pyread /dev/mapper/qa 0-3583 0-3583 0-3583
hot_hits=$(arcstats_row "$(proc_of qa)" hits)
hot_misses=$(arcstats_row "$(proc_of qa)" misses)
idle_hits=$(arcstats_row "$(proc_of qb)" hits)
assert_eq "hot member's hits" "$ref_hot" "$hot_hits"
assert_eq "hot member's misses" $((3 * 3584 - ref_hot)) "$hot_misses"
assert_eq "idle member's hits" "$ref_idle" "$idle_hits"
read -r _ _ hot_bytes _ < <(origin_line pq qa)
read -r _ _ idle_bytes _ < <(origin_line pq qb)
assert_eq "hot member's ARC bytes" $((ref_hot_blocks * 4096)) "$hot_bytes"
assert_eq "idle member's ARC bytes" $((ref_idle_blocks * 4096)) "$idle_bytes"
[ "$hot_bytes" -gt $((8 << 20)) ] || die "the hot member has $hot_bytes bytes, not more than half the pool"
assert_eq "pool resident" "$((ref_hot_blocks + ref_idle_blocks))/4096" \
	"$(dmsetup status pq | awk '{ print $5 }')"
echo "pool: hot $hot_hits hits of $((3 * 3584)) reads, $hot_bytes bytes; idle $idle_bytes bytes"

# the pool's arcstats: its members' counts, its ARC once; the sum agrees
pool_proc=$(proc_of pq)
idle_misses=$(arcstats_row "$(proc_of qb)" misses)
assert_eq "idle member's misses" 1024 "$idle_misses"
assert_eq "pool hits" $((hot_hits + idle_hits)) "$(arcstats_row "$pool_proc" hits)"
assert_eq "pool misses" $((hot_misses + idle_misses)) "$(arcstats_row "$pool_proc" misses)"
assert_eq "pool data_size" $(((ref_hot_blocks + ref_idle_blocks) * 4096)) \
	"$(arcstats_row "$pool_proc" data_size)"
assert_eq "pool c_max" 16777216 "$(arcstats_row "$pool_proc" c_max)"
assert_eq "pool c" 16777216 "$(arcstats_row "$pool_proc" c)"
for row in hits misses data_size size c c_max mru_size mfu_size mru_ghost_size; do
	assert_eq "summed $row: the pool's, once" "$(arcstats_row "$pool_proc" $row)" \
		"$(arcstats_row /proc/dm-l2arc/arcstats $row)"
done
assert_eq "a member's data_size is the pool's" "$(arcstats_row "$pool_proc" data_size)" \
	"$(arcstats_row "$(proc_of qa)" data_size)"
origins=/proc/dm-l2arc/$(dm_kname pq)/origins
assert_eq "origins header" \
	"id name arc_size hits iohits misses arc_min arc_max l2_size l2_hits l2_misses l2_write_bytes device" \
	"$(head -1 "$origins")"
assert_eq "origins file: the message's lines" "$(dmsetup message pq 0 origins)" \
	"$(tail -n +2 "$origins")"
read -r _ name bytes hits iohits misses floor ceil l2size l2hits l2misses l2written dev < <(
	awk '$2 == "qa"' "$origins")
assert_eq "origins: qa's line" \
	"qa $hot_bytes $hot_hits 0 $hot_misses 0 0 0 0 0 0 $(dm_kname qa)" \
	"$name $bytes $hits $iohits $misses $floor $ceil $l2size $l2hits $l2misses $l2written $dev"
echo "pool arcstats: hits $((hot_hits + idle_hits)), data_size $(arcstats_row "$pool_proc" data_size), summed file agrees; origins file ok"

# ---- 3. remove a member, make it again
ids_before=$(dmsetup message pq 0 origins | awk '{ print $1 "=" $2 }' | sort | tr '\n' ' ')
resident=$(dmsetup status pq | awk '{ split($5, a, "/"); print a[1] }')
dm_remove qb
assert_eq "resident after the idle member left" $((resident - ref_idle_blocks)) \
	"$(dmsetup status pq | awk '{ split($5, a, "/"); print a[1] }')"
assert_eq "members after remove" 1 "$(dmsetup status pq | awk '{ print $NF }')"
assert_eq "pool hits keep those of a member that left" \
	$((hot_hits + idle_hits)) "$(arcstats_row "$pool_proc" hits)"
assert_eq "pool misses keep those of a member that left" \
	$((hot_misses + idle_misses)) "$(arcstats_row "$pool_proc" misses)"
dm_create qb "0 $sz l2arc /dev/ram1 /dev/mapper/pq 8 2 prefetch_disable 1"
assert_eq "ids after the member came back" "$ids_before" \
	"$(dmsetup message pq 0 origins | awk '{ print $1 "=" $2 }' | sort | tr '\n' ' ')"
pyread /dev/mapper/qb 0-1023
assert_eq "re-made member: misses" 1024 "$(arcstats_row "$(proc_of qb)" misses)"
assert_eq "re-made member: hits" 0 "$(arcstats_row "$(proc_of qb)" hits)"
assert_eq "pool misses with the re-made member's" \
	$((hot_misses + idle_misses + 1024)) "$(arcstats_row "$pool_proc" misses)"
assert_eq "re-made member: ghost hits" 0 \
	"$(($(arcstats_row "$(proc_of qb)" mru_ghost_hits) + $(arcstats_row "$(proc_of qb)" mfu_ghost_hits)))"
# p is 0 (no ghost hit so far): the re-made member's misses evict T1's
# LRU, its own blocks, and the hot member's T2 stays whole
read -r _ _ hot_after _ < <(origin_line pq qa)
assert_eq "hot member's ARC bytes after the re-made one read" "$hot_bytes" "$hot_after"
# last: its ghost hits would move p, and take the hot member's blocks
dcmp /dev/mapper/qb /dev/ram1 4 || die "qb differs from its origin"
echo "remove and re-make: id kept ($ids_before), cold again, hot member at $hot_after bytes"
dm_remove qa
dm_remove qb
dm_remove pq
[ -e "$pool_proc" ] && die "the pool's arcstats outlived the pool"

# ---- 3b. a member's ghosts leave with it
# c = 256: 0-127 twice go to T2; 128-511 once fill T1 and then push its
# LRU to B1 (p = 0), so B1 ends with blocks 256-383
dm_create pg "0 8 l2arc-pool - 8 2 arc_max 1048576"
dm_create ga "0 $sz l2arc /dev/ram0 /dev/mapper/pg 8 2 prefetch_disable 1"
pyread /dev/mapper/ga 0-127 0-127 128-511
assert_eq "pool with a member's ghosts" "8 256/256 0 256 128 128 128 0 1" \
	"$(dmsetup status pg | cut -d' ' -f4-)"
dm_remove ga
assert_eq "pool after the member left: no ghost stays" "8 0/256 0 256 0 0 0 0 0" \
	"$(dmsetup status pg | cut -d' ' -f4-)"
dm_create ga "0 $sz l2arc /dev/ram0 /dev/mapper/pg 8 2 prefetch_disable 1"
pyread /dev/mapper/ga 256-383
assert_eq "re-made member over the old ghosts: misses" 128 "$(arcstats_row "$(proc_of ga)" misses)"
assert_eq "re-made member over the old ghosts: ghost hits" 0 \
	"$(($(arcstats_row "$(proc_of ga)" mru_ghost_hits) + $(arcstats_row "$(proc_of ga)" mfu_ghost_hits)))"
dm_remove ga
dm_remove pg
echo "a member's ghosts leave with it: B1 128 -> 0, re-made member cold"

# ---- 4. a floor: the idle member's arc_min
dm_create pf "0 8 l2arc-pool - 8 2 arc_max 16777216"
before=$(dmsetup ls | sort)
expect_error "The members' arc_min would exceed half the pool's arc_max" \
	"0 $sz l2arc /dev/ram1 /dev/mapper/pf 8 2 arc_min 12582912"
dm_create fb "0 $sz l2arc /dev/ram1 /dev/mapper/pf 8 4 arc_min 4194304 prefetch_disable 1"
dm_create fa "0 $sz l2arc /dev/ram0 /dev/mapper/pf 8 2 prefetch_disable 1"
assert_eq "member status arc_min" 4194304 \
	"$(status_word fb arc_min)"
pyread /dev/mapper/fb 0-1023
pyread /dev/mapper/fa 0-3583 0-3583 0-3583
read -r _ _ floor_idle _ < <(origin_line pf fb)
read -r _ _ floor_hot _ < <(origin_line pf fa)
assert_eq "idle member with a 4 MiB floor: ARC bytes" 4194304 "$floor_idle"
assert_eq "hot member beside the floor: ARC bytes" $(((16 - 4) << 20)) "$floor_hot"
echo "floor: idle keeps $floor_idle bytes, hot has $floor_hot, $(arcstats_row "$(proc_of fa)" hits) hits"
dm_remove fa
dm_remove fb
# floors at the bound: a member's reload is judged without its old floor
dm_create fc "0 $sz l2arc /dev/ram1 /dev/mapper/pf 8 2 arc_min 8388608"
dmsetup reload fc --table "0 $sz l2arc /dev/ram1 /dev/mapper/pf 8 2 arc_min 8388608" ||
	die "a member's reload with its own floor at the bound was refused"
dmsetup resume fc
dmsetup reload fc --table "0 $sz l2arc /dev/ram1 /dev/mapper/pf 8 2 arc_min 4194304" ||
	die "a member's reload to a lower floor was refused"
dmsetup resume fc
assert_eq "floor after the member's reloads" 4194304 "$(status_word fc arc_min)"
assert_eq "members after the member's reloads" 1 "$(dmsetup status pf | awk '{ print $NF }')"
# the pool may not shrink below twice its members' floors
if dmsetup reload pf --table "0 8 l2arc-pool - 8 2 arc_max 4194304" 2>/dev/null; then
	die "a pool reload below twice its members' floors was accepted"
fi
assert_eq "pool reload error" "The members' arc_min exceed half this arc_max" "$(ctr_error)"
dmsetup reload pf --table "0 8 l2arc-pool - 8 2 arc_max 8388608"
dmsetup resume pf
assert_eq "pool c_max at twice the floors" 2048 \
	"$(dmsetup status pf | awk '{ split($5, a, "/"); print a[2] }')"
dm_create fd "0 $sz l2arc /dev/ram0 /dev/mapper/pf 8"
assert_eq "members with one without a floor" 2 "$(dmsetup status pf | awk '{ print $NF }')"
echo "floors at the bound: member reloads ok, pool reload below twice the floors refused"
dm_remove fd
dm_remove fc
dm_remove pf

# ---- 5. a ceiling: the hot member's arc_max
read -r ref_cap_hits ref_cap_blocks ref_cap_b_hits ref_cap_b_blocks ref_cap_after < <(
	python3 - "$L2ARC_TOP/tests/tools" <<-'EOF'
	import sys
	sys.path.insert(0, sys.argv[1])
	from arc_ref import Arc
	arc = Arc(4096, 'fixed', ceilings={'a': 1024})
	for k in [('a', i) for i in range(3584)] * 3:
	    arc.access(k)
	hits_a = arc.hits
	blocks_a = arc.resident['a']
	for k in [('b', i) for i in range(2048)] * 2:
	    arc.access(k)
	print(hits_a, blocks_a, arc.hits - hits_a, arc.resident['b'],
	      arc.resident['a'])
	EOF
)
echo "reference with a 1024-block ceiling: $ref_cap_hits hits, $ref_cap_blocks blocks; then the other $ref_cap_b_hits hits, $ref_cap_b_blocks blocks"
dm_create pc "0 8 l2arc-pool - 8 2 arc_max 16777216"
before=$(dmsetup ls | sort)
expect_error "arc_min exceeds arc_max" \
	"0 $sz l2arc /dev/ram0 /dev/mapper/pc 8 4 arc_max 4194304 arc_min 8388608"
dm_create ca "0 $sz l2arc /dev/ram0 /dev/mapper/pc 8 4 arc_max 4194304 prefetch_disable 1"
dm_create cb "0 $sz l2arc /dev/ram1 /dev/mapper/pc 8 2 prefetch_disable 1"
assert_eq "capped member's status arc_max" 4194304 \
	"$(status_word ca arc_max)"
assert_eq "uncapped member's status arc_max: the pool's" 16777216 \
	"$(status_word cb arc_max)"
pyread /dev/mapper/ca 0-3583 0-3583 0-3583
read -r _ _ cap_bytes _ _ _ _ cap_max _ < <(origin_line pc ca)
assert_eq "capped member: ARC bytes" $((ref_cap_blocks * 4096)) "$cap_bytes"
assert_eq "capped member: ARC bytes, its ceiling" 4194304 "$cap_bytes"
assert_eq "capped member: origins arc_max" 4194304 "$cap_max"
assert_eq "capped member: hits" "$ref_cap_hits" "$(arcstats_row "$(proc_of ca)" hits)"
assert_eq "pool resident with room: the ceiling's" "1024/4096" \
	"$(dmsetup status pc | awk '{ print $5 }')"
pyread /dev/mapper/cb 0-2047 0-2047
read -r _ _ other_bytes _ _ _ _ other_max _ < <(origin_line pc cb)
read -r _ _ cap_after _ < <(origin_line pc ca)
assert_eq "uncapped member: ARC bytes" $((ref_cap_b_blocks * 4096)) "$other_bytes"
assert_eq "uncapped member: hits" "$ref_cap_b_hits" "$(arcstats_row "$(proc_of cb)" hits)"
assert_eq "uncapped member: origins arc_max" 0 "$other_max"
assert_eq "capped member beside it: ARC bytes" $((ref_cap_after * 4096)) "$cap_after"
dcmp /dev/mapper/ca /dev/ram0 || die "ca differs from its origin"
echo "ceiling: capped member $cap_bytes bytes, $ref_cap_hits hits; the other $other_bytes bytes beside it"
dm_remove ca
dm_remove cb
dm_remove pc

# ---- the same hot stream on a device of its own, whole and half budget
for arc in 16777216:"$ref_own" 8388608:"$ref_half"; do
	dm_create own "0 $sz l2arc /dev/ram0 - 8 4 arc_max ${arc%%:*} prefetch_disable 1"
	pyread /dev/mapper/own 0-3583 0-3583 0-3583
	assert_eq "own device, arc_max ${arc%%:*}: hits" "${arc#*:}" \
		"$(arcstats_row "$(proc_of own)" hits)"
	dm_remove own
done
[ "$ref_hot" -eq "$ref_own" ] || die "pool hits $ref_hot differ from the whole budget's $ref_own"
[ "$ref_half" -lt "$ref_hot" ] || die "half the budget did as well: $ref_half"
echo "own device: 16 MiB $ref_own hits, 8 MiB $ref_half hits; pool member $ref_hot"

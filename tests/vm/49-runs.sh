#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 720
# debug-check: skip exact request counts per bio, on both Debian kernels; runs with partial blocks are read in 61-bsrange and 71-fault-injection here
#
# Whole bios, runs of blocks (issue 11).  Devices: origin = a memory-backed
# null_blk "ro" (512-byte sectors, max_sectors 2048 = 1 MiB a request, no
# I/O scheduler: its /sys/block stat counts exactly the requests it gets);
# cache device = a memory-backed null_blk "rc" (4 KiB sectors); l2arc: 4
# KiB blocks, arc_max 4 MiB, read-ahead off, feeds by message.
#  1. A 1 MiB read of 256 missing blocks: ONE origin bio (fill_runs 1 of
#     256 blocks) and ONE origin request, as a reader's own 1 MiB read of
#     pages that follow each other takes (the KUnit suite dm_l2arc_buf
#     checks the bio vectors of such pages), data = origin.
#  2. Fed, evicted, read again: ONE cache device bio (l2_read_runs 1 of
#     256 blocks), no more requests than its limits need, no origin read.
#  3. A 1 MiB O_DIRECT write: 2048 sectors in no more origin write
#     requests than 256 separate pages need (as above; dm-linear's count
#     is printed beside it: it varies with how contiguous dd's buffer
#     happens to be); O_DSYNC: at most one more (a flush).
#  4. Bios straddling blocks in every state, with partial head and tail
#     blocks: for 12 patterns of head and tail offsets, one read from inside
#     a resident block to inside another resident block, across an L2-only
#     block, two uncached blocks and a block being filled (its origin read
#     held 10 s by a dm-delay segment of the origin's table): every byte
#     compared with the origin, and the counters say hit, L2 hit, miss,
#     miss, iohit, hit.
#  5. Resident blocks between misses: a 1 MiB read with 4 resident blocks
#     in its middle is still ONE origin bio (fill_run_bridged 4, the same
#     origin requests as in 1); with 64 (256 KiB, the most a run reads
#     over) still one; with 100 resident blocks (400 KiB) it is two.
. "$(dirname "$0")/lib.sh"

load_module
mk_nullb ro size=64 memory_backed=1 blocksize=512 max_sectors=2048 no_sched=1
O=$NULLB_DEV
mk_nullb rc size=16 memory_backed=1 blocksize=4096 no_sched=1
C=$NULLB_DEV
len=$(sectors "$O")
dd if=/dev/urandom of="$O" bs=1M count=64 oflag=direct status=none
dm_create rn "0 $len l2arc $O $C 8 10 arc_max 4194304 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 16777216 l2arc_noprefetch 0"
dev=/dev/mapper/rn
proc=$(proc_of rn)
st() { arcstats_row "$proc" "$1"; }
# reqs DEV FIELD: completed requests (1 reads, 5 writes) of a null_blk
reqs() { awk -v f="$2" '{ print $f }' "/sys/block/${1#/dev/}/stat"; }
secs() { awk -v f="$2" '{ print $f }' "/sys/block/${1#/dev/}/stat"; }

# most DEV: the requests that 1 MiB in 256 separate pages must take on DEV
# at most: its max_segments and max_sectors_kb decide
most() {
	local q=/sys/block/${1#/dev/}/queue segs kb
	segs=$(cat $q/max_segments) kb=$(cat $q/max_sectors_kb)
	echo $(( (256 + segs - 1) / segs > (1024 + kb - 1) / kb ?
		 (256 + segs - 1) / segs : (1024 + kb - 1) / kb ))
}
ro_raw=$(most "$O") rc_raw=$(most "$C")
echo "1 MiB in 256 pages takes at most $ro_raw origin requests, $rc_raw cache device requests"

# ---- 1. one origin bio for 256 missing blocks
r0=$(reqs "$O" 1) s0=$(secs "$O" 3)
dd if=$dev of=r1.out bs=1M count=1 skip=4 iflag=direct status=none
r1=$(($(reqs "$O" 1) - r0))
echo "1: origin read requests $r1 (256 separate pages would take $ro_raw)"
assert_eq "1: origin read requests" 1 "$r1"
assert_eq "1: origin sectors read" 2048 $(($(secs "$O" 3) - s0))
cmp r1.out <(dd if="$O" bs=1M count=1 skip=4 iflag=direct status=none) || die "1: data differs"
expect_rows "$proc" misses=256 fill_runs=1 fill_run_blocks=256 read_bios=1

# ---- 2. one cache device bio for 256 L2 blocks
dmsetup message rn 0 l2arc_feed
expect_rows "$proc" l2_size=1048576
dd if=$dev of=/dev/null bs=1M count=4 skip=16 iflag=direct status=none	# evict
c0=$(reqs "$C" 1) r0=$(reqs "$O" 1)
dd if=$dev of=r2.out bs=1M count=1 skip=4 iflag=direct status=none
echo "2: l2_read_runs $(st l2_read_runs) l2_read_run_blocks $(st l2_read_run_blocks) l2_hits $(st l2_hits)" \
	"cache requests $(($(reqs "$C" 1) - c0))"
r1=$(($(reqs "$C" 1) - c0))
((r1 <= rc_raw)) || die "2: $r1 cache device read requests (at most $rc_raw)"
assert_eq "2: origin read requests" 0 $(($(reqs "$O" 1) - r0))
cmp r2.out <(dd if="$O" bs=1M count=1 skip=4 iflag=direct status=none) || die "2: data differs"
expect_rows "$proc" l2_read_runs=1 l2_read_run_blocks=256

# ---- 3. writes in the shape the writer gave them
w0=$(reqs "$O" 5) s0=$(secs "$O" 7)
dd if=/dev/urandom of=w.in bs=1M count=2 status=none
dd if=w.in of=$dev bs=1M count=1 seek=30 oflag=direct status=none
w1=$(($(reqs "$O" 5) - w0))
assert_eq "3: origin sectors written (O_DIRECT 1 MiB)" 2048 $(($(secs "$O" 7) - s0))
dm_create rlin "0 $len linear $O 0"
w0=$(reqs "$O" 5)
dd if=w.in of=/dev/mapper/rlin bs=1M count=1 skip=1 seek=40 oflag=direct status=none
echo "3: 1 MiB O_DIRECT write: $w1 origin write requests (dm-linear: $(($(reqs "$O" 5) - w0)))"
((w1 <= ro_raw)) || die "3: $w1 origin write requests (at most $ro_raw)"
dm_remove rlin
w0=$(reqs "$O" 5)
dd if=w.in of=$dev bs=1M count=1 skip=1 seek=31 oflag=direct,dsync status=none
echo "3: O_DSYNC 1 MiB write: $(($(reqs "$O" 5) - w0)) origin write requests (O_DIRECT: $w1)"
(($(reqs "$O" 5) - w0 <= w1 + 1)) || die "3: the O_DSYNC write was cut up"
cmp <(dd if=$dev bs=1M count=2 skip=30 iflag=direct status=none) w.in || die "3: data differs"

# ---- 4. straddling bios
dm_remove rn
dm_create rnd "0 $len delay $O 0 0"
rd4k() { dd if="$1" of=/dev/null bs=4k count="$2" skip="$3" iflag=direct status=none; }
for p in $(seq 12); do
	# a fresh 16-block ARC for each pattern: its lists are then known
	dm_create rs "0 $len l2arc /dev/mapper/rnd $C 8 10 arc_max 65536 prefetch_disable 1 l2arc_feed_secs 3600 l2arc_write_max 16777216 l2arc_noprefetch 0"
	dev=/dev/mapper/rs
	proc=$(proc_of rs)
	base=$((p * 64))
	# base+0 and base+5 resident, base+1 L2-only, base+2 and base+3 not
	# cached, base+4 being filled
	rd4k $dev 1 $((base + 1))
	dmsetup message rs 0 l2arc_feed
	rd4k $dev 16 $((base + 8))		# evicts base+1: L2-only
	rd4k $dev 1 "$base"
	rd4k $dev 1 $((base + 5))
	# reads of block base+4 (only) held 10 s by dm-delay: a loaded host
	# must finish the straddling read within that
	hs=$(((base + 4) * 8))
	dmsetup load rnd --table "0 $hs linear $O 0
$hs 8 delay $O $hs 10000
$((hs + 8)) $((len - hs - 8)) linear $O $((hs + 8))"
	dmsetup resume rnd
	m0=$(st misses)
	rd4k $dev 1 $((base + 4)) &
	hp=$!
	wait_for 10 "the held fill" row_at_least "$proc" misses $((m0 + 1))
	h0=$(st hits) i0=$(st iohits) l0=$(st l2_hits) m0=$(st misses)
	# from inside block base+0 to inside block base+5
	s=$((base * 8 + p % 8)) e=$(((base + 6) * 8 - 1 - p % 5))
	n=$(((e - s) * 512))
	cmp <(dd if=$dev bs=$n skip=$((s * 512)) count=1 iflag=direct,skip_bytes status=none) \
		<(dd if="$O" bs=$n skip=$((s * 512)) count=1 iflag=direct,skip_bytes status=none) ||
		die "4: pattern $p (sectors $s-$e) differs from the origin"
	wait $hp || die "4: the held read failed"
	echo "4: pattern $p: sectors $s-$e: hits +$(($(st hits) - h0)) iohits +$(($(st iohits) - i0)) l2_hits +$(($(st l2_hits) - l0)) misses +$(($(st misses) - m0))"
	assert_eq "4: pattern $p: hits (base+0, base+5)" 2 $(($(st hits) - h0))
	assert_eq "4: pattern $p: iohits (base+4)" 1 $(($(st iohits) - i0))
	assert_eq "4: pattern $p: misses (base+1 from L2, base+2, base+3)" 3 $(($(st misses) - m0))
	assert_eq "4: pattern $p: L2 hits (base+1)" 1 $(($(st l2_hits) - l0))
	dm_remove rs
done

# ---- 5. runs read over a few resident blocks
dm_remove rnd
dm_create rb "0 $len l2arc $O - 8 4 arc_max 4194304 prefetch_disable 1"
dev=/dev/mapper/rb
proc=$(proc_of rb)
# rdn DEV N B: one read of N blocks from block B
rdn() { dd if="$1" of=/dev/null bs=$(($2 * 4096)) count=1 skip=$(($3 * 4096)) iflag=direct,skip_bytes status=none; }
rdn $dev 4 $((2048 + 100))			# 4 resident in MiB 8
r0=$(reqs "$O" 1) s0=$(secs "$O" 3)
dd if=$dev of=r5.out bs=1M count=1 skip=8 iflag=direct status=none
r1=$(($(reqs "$O" 1) - r0)) s1=$(($(secs "$O" 3) - s0))
cmp r5.out <(dd if="$O" bs=1M count=1 skip=8 iflag=direct status=none) || die "5: data differs"
echo "5: 4 resident blocks inside: origin read requests $r1, fill_run_bridged $(st fill_run_bridged)"
((r1 <= ro_raw)) || die "5: $r1 origin read requests (at most $ro_raw)"
assert_eq "5: origin sectors read" 2048 "$s1"
expect_rows "$proc" misses=256 hits=4 fill_runs=2 fill_run_blocks=256 fill_run_bridged=4
rdn $dev 100 $((2560 + 100))			# 100 resident in MiB 10
cmp <(dd if=$dev bs=1M count=1 skip=10 iflag=direct status=none) \
	<(dd if="$O" bs=1M count=1 skip=10 iflag=direct status=none) || die "5: data differs (100)"
expect_rows "$proc" misses=$((256 + 256)) hits=$((4 + 100)) fill_runs=5 fill_run_blocks=512 fill_run_bridged=4
rdn $dev 64 $((3072 + 100))			# 64 resident (256 KiB) in MiB 12
cmp <(dd if=$dev bs=1M count=1 skip=12 iflag=direct status=none) \
	<(dd if="$O" bs=1M count=1 skip=12 iflag=direct status=none) || die "5: data differs (64)"
expect_rows "$proc" misses=$((512 + 256)) hits=$((104 + 64)) fill_runs=7 fill_run_blocks=768 fill_run_bridged=$((4 + 64))
check_rows "$(snap "$proc")" 0 4096
echo "runs ok"

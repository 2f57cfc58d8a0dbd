#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 360
# debug-check: skip discards through the ARC: 54-l2-discard discards through the ARC and L2 here
#
# Discard and write-zeroes drop cached copies: after blkdiscard (or
# blkdiscard -z) of a range the ARC holds, a read of the range returns
# exactly what the origin returns (compared with the origin read
# directly, O_DIRECT), for a range smaller than the ARC (per-block lookup),
# a partial block, and a range spanning more blocks than the ARC holds
# (walk of the resident lists).  Counters are exact: prefetch_disable 1,
# arc_max 4 MiB = 1024 blocks, reads with O_DIRECT, 1 MiB reads = 256
# block accesses.
# Devices: the origin emulates an SSD with TRIM that reads zeroes after a
# discard: a brd RAM disk (64 MiB) when this kernel's brd supports discard,
# else a memory-backed null_blk with discard=1 (64 MiB); no cache device.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 1 64
mk_discard_origin l2disc 64 512
O=$DISCARD_ORIGIN
echo "origin $O: discard_max_bytes $(cat /sys/block/${O#/dev/}/queue/discard_max_bytes)"
sz=$(sectors $O)
dm_create l2d "0 $sz l2arc $O - 8 4 arc_max 4194304 prefetch_disable 1"
dev=/dev/mapper/l2d
proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2d | tr -d ' ')/arcstats
st() { arcstats_row "$proc" "$1"; }
expect() {	# expect ROW=VAL...; prints the counters when one differs
	local kv
	for kv in "$@"; do
		[[ $(st "${kv%%=*}") == "${kv#*=}" ]] ||
			awk 'NR > 2 && $3 != 0 { printf "%s=%s ", $1, $3 } END { print "" }' "$proc"
		assert_eq "${kv%%=*}" "${kv#*=}" "$(st "${kv%%=*}")"
	done
}
# blkdiscard without -f first probes the device for signatures with
# libblkid (util-linux >= 2.36): a few hundred reads that would upset the
# exact counts.  With -f it reads nothing (checked below).
K=1024 M=$((1024 * 1024))
rd() {	# rd DEV OFF LEN (bytes, 4 KiB aligned) to stdout, O_DIRECT
	dd if="$1" bs=4096 skip=$(($2 / 4096)) count=$(($3 / 4096)) iflag=direct status=none
}
rdm() {	# rdm DEV OFF_MiB LEN_MiB: 1 MiB O_DIRECT reads to /dev/null
	dd if="$1" of=/dev/null bs=1M skip="$2" count="$3" iflag=direct status=none
}
same() {	# same OFF LEN WHAT: device range == origin range
	cmp <(rd $dev "$1" "$2") <(rd $O "$1" "$2") || die "$3: device differs from origin"
}
zeroes() {	# zeroes OFF LEN WHAT: origin range reads as zeroes
	cmp <(rd $O "$1" "$2") <(head -c "$2" /dev/zero) || die "$3: origin does not read zeroes"
}

dd if=/dev/urandom of=$dev bs=1M count=64 oflag=direct status=none
dmsetup message l2d 0 clear_stats

# ---- cache [0, 2 MiB) and check that a second read hits
rdm $dev 0 2
expect hits=0 misses=512 mru_blocks=512
rdm $dev 0 2
expect hits=512 misses=512 mfu_blocks=512 mru_blocks=0

# ---- discard a cached 512 KiB range: per-block invalidation
blkdiscard -f -o $((1 * M)) -l $((512 * K)) $dev || die "blkdiscard failed"
expect hits=512 misses=512 writes=128 write_invalidates=128 mfu_blocks=384
zeroes $((1 * M)) $((512 * K)) "discard"
same $((1 * M)) $((512 * K)) "discard"
expect hits=512 misses=640
same 0 $((2 * M)) "discard, whole 2 MiB"
expect hits=$((512 + 512)) misses=640
echo "discard 512 KiB: ok (origin reads zeroes)"

# ---- write-zeroes a cached 512 KiB range (cached again just above)
rdm $dev 0 2
m=$(st misses)
assert_eq "resident blocks of [0,2M)" 512 $(($(st mru_blocks) + $(st mfu_blocks)))
blkdiscard -f -z -o 0 -l $((512 * K)) $dev || die "blkdiscard -z failed"
expect writes=256 write_invalidates=256
zeroes 0 $((512 * K)) "write-zeroes"
same 0 $((512 * K)) "write-zeroes"
expect misses=$((m + 128))
echo "write-zeroes 512 KiB: ok"

# ---- write-zeroes of 1 KiB inside cached block 384 (offset 1.5 MiB + 512)
rdm $dev 0 2
wi=$(st write_invalidates)
blkdiscard -f -z -o $((1536 * K + 512)) -l 1024 $dev || die "blkdiscard -z (partial block) failed"
expect write_invalidates=$((wi + 1))
cmp <(rd $O $((1536 * K)) 4096 | tail -c +513 | head -c 1024) <(head -c 1024 /dev/zero) ||
	die "partial write-zeroes did not reach the origin"
same $((1536 * K)) 4096 "partial-block write-zeroes"
same 0 $((2 * M)) "after partial-block write-zeroes"
echo "write-zeroes of part of a block: ok"

# ---- a range larger than the ARC: 16 MiB read (ARC keeps 1024 blocks),
# 32 MiB discarded
dd if=/dev/urandom of=$dev bs=1M count=32 oflag=direct status=none
rdm $dev 0 16
res=$(($(st mru_blocks) + $(st mfu_blocks)))
assert_eq "resident blocks after 16 MiB read" 1024 "$res"
wi=$(st write_invalidates)
blkdiscard -f -o 0 -l $((32 * M)) $dev || die "blkdiscard 32 MiB failed"
expect write_invalidates=$((wi + res)) mru_blocks=0 mfu_blocks=0 data_size=0
zeroes 0 $((32 * M)) "large discard"
same 0 $((32 * M)) "large discard"
echo "discard 32 MiB over a 4 MiB ARC: ok ($res cached blocks dropped)"

dd if=/dev/urandom of=$dev bs=1M count=32 oflag=direct status=none
rdm $dev 0 16
res=$(($(st mru_blocks) + $(st mfu_blocks)))
assert_eq "resident blocks after 16 MiB read" 1024 "$res"
wi=$(st write_invalidates)
blkdiscard -f -z -o 0 -l $((32 * M)) $dev || die "blkdiscard -z 32 MiB failed"
expect write_invalidates=$((wi + res)) mru_blocks=0 mfu_blocks=0 data_size=0
zeroes 0 $((32 * M)) "large write-zeroes"
same 0 $((32 * M)) "large write-zeroes"
echo "write-zeroes 32 MiB over a 4 MiB ARC: ok"

same 0 $((64 * M)) "whole device"
echo "discard ok: writes $(st writes) write_invalidates $(st write_invalidates) hits $(st hits) misses $(st misses)"

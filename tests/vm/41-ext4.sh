#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 240
# debug-check: skip a file system over the target: the bio paths of 61-bsrange and 71-fault-injection, which run here
#
# ext4 on an l2arc device: mkfs.ext4 (which discards the device), a tree
# of 400 generated files (0 B to 256 KiB, one of 1 MiB, random content, nested
# directories, a few hard links and symlinks), sync, drop caches, umount,
# mount again, sha256sum -c of every file, umount, e2fsck -fn clean, and
# the device reads the same as its origin.  The ARC (arc_max 8 MiB) is
# smaller than the data, so the re-read is partly from the ARC, partly
# from the origin.  Devices: brd RAM disk /dev/ram0 (128 MiB) emulates a
# fast SSD origin; no cache device.
. "$(dirname "$0")/lib.sh"

load_module
mk_brd 1 128
O=/dev/ram0
sz=$(sectors $O)
dm_create l2e "0 $sz l2arc $O - 8 4 arc_max 8388608 prefetch_disable 0"
dev=/dev/mapper/l2e
proc=/proc/dm-l2arc/dm-$(dmsetup info -c --noheadings -o minor l2e | tr -d ' ')/arcstats
st() { arcstats_row "$proc" "$1"; }
mnt=$L2ARC_TEST_OUT/mnt
mkdir -p "$mnt"

mkfs.ext4 -q -F -b 4096 "$dev" || die "mkfs.ext4 failed"
mount -t ext4 "$dev" "$mnt" || die "mount failed"
umount_if() { ! mountpoint -q "$1" || umount "$1"; }
add_cleanup umount_if "$mnt"

# 400 files in a 3-level tree; sizes cover 0, sub-block, block-multiple
# and odd sizes up to 1 MiB
python3 - "$mnt/tree" <<'EOF'
import os, random, sys
root = sys.argv[1]
rng = random.Random(4242)
sizes = [0, 1, 511, 4095, 4096, 4097, 65536, 1 << 20]
for i in range(400):
    d = os.path.join(root, 'd%d' % (i % 7), 'e%d' % (i % 5))
    os.makedirs(d, exist_ok=True)
    n = sizes[i] if i < len(sizes) else rng.choice([rng.randrange(0, 8192), rng.randrange(0, 262144), rng.randrange(0, 1 << 18)])
    with open(os.path.join(d, 'f%03d' % i), 'wb') as f:
        f.write(rng.randbytes(n))
for i in range(0, 400, 50):
    d = os.path.join(root, 'd%d' % (i % 7), 'e%d' % (i % 5))
    os.link(os.path.join(d, 'f%03d' % i), os.path.join(root, 'link%03d' % i))
    os.symlink(os.path.join('d%d' % (i % 7), 'e%d' % (i % 5), 'f%03d' % i), os.path.join(root, 'sym%03d' % i))
EOF
(cd "$mnt/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >sums
nfiles=$(wc -l <sums)
bytes=$(du -sb "$mnt/tree" | cut -f1)
echo "wrote $nfiles files, $bytes bytes"
((nfiles == 408)) || die "expected 408 files (400 + 8 hard links), got $nfiles"
(cd "$mnt/tree" && find . -type l | wc -l) >nsym
assert_eq "symlinks" 8 "$(cat nsym)"
sync
echo 3 >/proc/sys/vm/drop_caches
umount "$mnt"
echo "after write: hits $(st hits) misses $(st misses) writes $(st writes) write_invalidates $(st write_invalidates)"

mount -t ext4 "$dev" "$mnt" || die "second mount failed"
echo 3 >/proc/sys/vm/drop_caches
(cd "$mnt/tree" && sha256sum --quiet -c) <sums || die "sha256 mismatch after remount"
(cd "$mnt/tree" && sha256sum --quiet -c) <sums || die "sha256 mismatch on a second read"
for i in $(seq 0 50 350); do
	cmp "$mnt/tree/link$(printf %03d "$i")" "$mnt/tree/sym$(printf %03d "$i")" ||
		die "link/symlink $i differ"
done
umount "$mnt"
echo "after read-back: hits $(st hits) misses $(st misses) data_size $(st data_size)"
(($(st misses) > 0)) || die "read-back never missed"

e2fsck -fn "$dev" >fsck.out 2>&1 || { cat fsck.out; die "e2fsck -fn found problems"; }
tail -n 1 fsck.out
e2fsck -fn "$O" >fsck-origin.out 2>&1 || { cat fsck-origin.out; die "e2fsck -fn on the origin found problems"; }
cmp <(dd if=$dev bs=1M iflag=direct status=none) <(dd if=$O bs=1M iflag=direct status=none) ||
	die "device differs from origin"
echo "ext4 ok"

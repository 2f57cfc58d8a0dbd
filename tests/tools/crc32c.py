#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""crc32c (Castagnoli) as the kernel's crc32c() computes it, and a forger.

The kernel's crc32c(seed, data, len) is the raw CRC register (reflected
polynomial 0x82F63B78, no final inversion); dm-l2arc checksums a block with
crc32c(~0, block).  forge(data, like) returns data with its last 4 bytes
changed so that its crc32c equals that of `like` (same length): a block
that the L2ARC's checksum cannot tell from another one.  Used by
tests/vm/56-l2-hand-reader.sh.

  crc32c.py crc FILE            print crc32c(~0, FILE) as the kernel does
  crc32c.py forge IN LIKE OUT   OUT = IN with its last 4 bytes forged
"""
import sys

POLY = 0x82F63B78
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)
# the table's top bytes are all different: index by top byte
TOP = {t >> 24: i for i, t in enumerate(TABLE)}


def crc32c(data, crc=0xFFFFFFFF):
    """The CRC register after data, from crc (no final inversion)."""
    for b in data:
        crc = (crc >> 8) ^ TABLE[(crc ^ b) & 0xFF]
    return crc


def forge(data, like):
    """data with its last 4 bytes replaced so that crc32c equals like's."""
    if len(data) != len(like) or len(data) < 4:
        raise ValueError("blocks of the same length, at least 4 bytes")
    target = crc32c(like)
    state = crc32c(data[:-4])
    # run four zero bytes backwards from the target: the register that
    # four zero bytes would take to it
    c = target
    for _ in range(4):
        i = TOP[c >> 24]
        c = (((c ^ TABLE[i]) << 8) & 0xFFFFFFFF) | i
    fix = (c ^ state).to_bytes(4, "little")
    out = data[:-4] + fix
    assert crc32c(out) == target
    return out


def main(argv):
    if len(argv) == 3 and argv[1] == "crc":
        with open(argv[2], "rb") as f:
            print("%08x" % crc32c(f.read()))
        return 0
    if len(argv) == 5 and argv[1] == "forge":
        with open(argv[2], "rb") as f:
            data = f.read()
        with open(argv[3], "rb") as f:
            like = f.read()
        with open(argv[4], "wb") as f:
            f.write(forge(data, like))
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))

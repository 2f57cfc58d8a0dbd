#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Read and replay a dm-log-writes log (the format of
drivers/md/dm-log-writes.c, version 1), for the crash tests.

  log_replay.py list LOG          one line per entry:
                                  "<index> <flags> <sector> <nr_sectors> <mark>"
                                  (sectors in the log's sector size;
                                  flags: FLUSH FUA DISCARD MARK META joined
                                  by "|", or "-")
  log_replay.py replay LOG DEV A B
                                  write entries A .. B-1 (0-based) to DEV,
                                  in order: data writes as logged, discards
                                  as zeroes; flushes and marks write nothing

The log holds only what was flushed: dm-log-writes logs a write when a
later flush (or its own FUA) makes it durable, so replaying entries 0 .. k
gives a state of the device that a crash after entry k may leave.
"""
import os
import struct
import sys

MAGIC = 0x6a736677736872
SUPER = struct.Struct("<QQQI")
ENTRY = struct.Struct("<QQQQ")
FLAGS = [(1, "FLUSH"), (2, "FUA"), (4, "DISCARD"), (8, "MARK"),
         (16, "META")]


def entries(fd):
    """Yield (index, sector, nr_sectors, flags, mark, data_offset)."""
    head = os.pread(fd, SUPER.size, 0)
    magic, version, nr, ss = SUPER.unpack(head)
    if magic != MAGIC or version != 1:
        sys.exit("log_replay: not a dm-log-writes log (magic %#x, version %d)"
                 % (magic, version))
    off = ss  # the first entry follows the super block
    for i in range(nr):
        sector, nr_sectors, flags, data_len = ENTRY.unpack(
            os.pread(fd, ENTRY.size, off))
        mark = ""
        if flags & 8:
            mark = os.pread(fd, data_len, off + ENTRY.size).decode(
                errors="replace").rstrip("\0")
        yield i, sector, nr_sectors, flags, mark, off + ss, ss
        off += ss
        if not flags & 4:
            off += nr_sectors * ss


def flag_names(flags):
    names = [n for b, n in FLAGS if flags & b]
    return "|".join(names) if names else "-"


def main(argv):
    if len(argv) == 3 and argv[1] == "list":
        fd = os.open(argv[2], os.O_RDONLY)
        for i, sector, nr, flags, mark, _, _ in entries(fd):
            print(i, flag_names(flags), sector, nr, mark or "-")
        return 0
    if len(argv) == 6 and argv[1] == "replay":
        fd = os.open(argv[2], os.O_RDONLY)
        dev = os.open(argv[3], os.O_WRONLY)
        a, b = int(argv[4]), int(argv[5])
        for i, sector, nr, flags, _, data, ss in entries(fd):
            if i >= b:
                break
            if i < a or not nr or flags & 8:
                continue
            if flags & 4:
                buf = bytes(nr * ss)
            else:
                buf = os.pread(fd, nr * ss, data)
            os.pwrite(dev, buf, sector * ss)
        os.fsync(dev)
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

# SPDX-License-Identifier: GPL-2.0-only
"""The race stress of 93-hit-race: readers against writers and discards on
a hot set, every read checked against the last write completed before it
began.

usage: hit_race.py DEV HOT_BLOCKS COLD_FIRST COLD_BLOCKS SECONDS READERS DISCARD

Each hot block has one owner (block % 2 of two writer processes) whose
operations on it are numbered (seq, increasing).  An owner records in
shared memory started[b] before an operation and done[b] after it
returned; a write-zeroes or discard also sets zeroed[b] before it is
issued.  A write's 4 KiB hold "L2RACE01", the block, the seq, the
crc32 of the rest, and random bytes.  A reader takes s0 = done[b] before
its read and checks what the read returned:
  - a write's data: magic, block and crc right, s0 <= seq <= started[b];
  - zeros: zeroed[b] >= s0 (a zeroing op completed before the read, or
    one in flight during it).
When an op of the owner started before the check (started[b] > s0),
it may have overlapped the read, and its data, zeros or a mix (a torn
block: no block device makes a write atomic to a concurrent read) are
accepted too.  Anything else (an older write's data, data of another
block, a torn block with no op in flight) is a stale or wrong read: printed, and the exit status is 1.  A
cold stream reads COLD_BLOCKS from COLD_FIRST over and over (evictions);
the feed is the shell's.  DISCARD: 1 for BLKDISCARD (the origin zeroes a
discarded block), 0 for BLKZEROOUT.  Prints one line of counts.
"""
import fcntl
import mmap
import os
import random
import struct
import sys
import time
import zlib

BS = 4096
MAGIC = b'L2RACE01'
BLKDISCARD = 0x1277
BLKZEROOUT = 0x127f


def main():
    dev = sys.argv[1]
    hot, cold_first, cold_n = (int(x) for x in sys.argv[2:5])
    secs = float(sys.argv[5])
    readers = int(sys.argv[6])
    zero_op = BLKDISCARD if sys.argv[7] == '1' else BLKZEROOUT
    # started, done, zeroed per block, then per reader: reads, stale,
    # zeros seen, and per writer: writes, zeroings
    words = 3 * hot + 3 * readers + 2 * 2 + readers
    shm = mmap.mmap(-1, 8 * words)
    # native, aligned 8-byte words: one load or store each (struct's '<Q'
    # goes byte by byte, and a reader could see half of an update)
    mem = memoryview(shm).cast('Q')

    def get(i):
        return mem[i]

    def put(i, v):
        mem[i] = v

    STARTED, DONE, ZEROED = 0, hot, 2 * hot
    RSTAT = 3 * hot
    WSTAT = RSTAT + 3 * readers
    TORN = WSTAT + 4

    def block(b, seq):
        rest = os.urandom(BS - 28)
        return MAGIC + struct.pack('<QQI', b, seq, zlib.crc32(rest)) + rest

    # the hot set written once, seq 1 (done before anyone reads)
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    buf = mmap.mmap(-1, BS)
    for b in range(hot):
        buf[:] = block(b, 1)
        os.pwritev(fd, [buf], b * BS)
        put(STARTED + b, 1)
        put(DONE + b, 1)
    os.close(fd)
    deadline = time.monotonic() + secs
    pids = []

    def writer(w):
        fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
        buf = mmap.mmap(-1, BS)
        rng = random.Random(w)
        seq = 1
        mine = [b for b in range(hot) if b % 2 == w]
        while time.monotonic() < deadline:
            b = rng.choice(mine)
            seq += 1
            put(STARTED + b, seq)
            if rng.randrange(8) == 0:
                put(ZEROED + b, seq)
                fcntl.ioctl(fd, zero_op, struct.pack('<QQ', b * BS, BS))
                put(WSTAT + 2 * w + 1, get(WSTAT + 2 * w + 1) + 1)
            else:
                buf[:] = block(b, seq)
                os.pwritev(fd, [buf], b * BS)
                put(WSTAT + 2 * w, get(WSTAT + 2 * w) + 1)
            put(DONE + b, seq)
        os._exit(0)

    def reader(r):
        fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, BS)
        rng = random.Random(100 + r)
        bad = 0
        n = zeros = torn = 0
        while time.monotonic() < deadline:
            b = rng.randrange(hot)
            s0 = get(DONE + b)
            if os.preadv(fd, [buf], b * BS) != BS:
                print('FAIL: short read of block %d' % b, flush=True)
                os._exit(1)
            data = bytes(buf)
            # an op of the owner started by now may have overlapped the
            # read: then the read may also see the new op's data, zeros,
            # or a mix (no block device makes a 4 KiB write atomic to a
            # concurrent read); else exactly op s0's result
            s1 = get(STARTED + b)
            n += 1
            why = None
            if data == bytes(BS):
                zeros += 1
                if get(ZEROED + b) < s0:
                    why = 'zeros, but op %d (a write) completed before the read' % s0
            elif data[:8] != MAGIC:
                if s1 == s0:
                    why = 'neither a write of this test nor zeros'
                else:
                    torn += 1
            else:
                ob, seq, crc = struct.unpack_from('<QQI', data, 8)
                if ob != b:
                    why = "block %d's data" % ob
                elif seq < s0:
                    why = 'stale: seq %d, but op %d completed before the read' % (seq, s0)
                elif zlib.crc32(data[28:]) != crc:
                    if s1 == s0:
                        why = 'torn (crc) seq %d with no op in flight' % seq
                    else:
                        torn += 1
                elif seq > s1:
                    why = 'seq %d from no write started' % seq
            if why:
                bad += 1
                if bad <= 10:
                    print('FAIL: reader %d, block %d: %s' % (r, b, why), flush=True)
        put(RSTAT + 3 * r, n)
        put(RSTAT + 3 * r + 1, bad)
        put(RSTAT + 3 * r + 2, zeros)
        put(TORN + r, torn)
        os._exit(0)

    def cold():
        fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, 16 * BS)
        b = 0
        while time.monotonic() < deadline:
            os.preadv(fd, [buf], (cold_first + b) * BS)
            b = (b + 16) % (cold_n - 15)
        os._exit(0)

    for fn, arg in [(writer, 0), (writer, 1), (cold, None)] + \
            [(reader, r) for r in range(readers)]:
        pid = os.fork()
        if pid == 0:
            try:
                fn(arg) if arg is not None else fn()
            except Exception as e:  # a failed syscall fails the test
                print('FAIL: %s' % e, flush=True)
                os._exit(1)
        pids.append(pid)
    rc = 0
    for pid in pids:
        _, st = os.waitpid(pid, 0)
        if st:
            rc = 1
    reads = sum(get(RSTAT + 3 * r) for r in range(readers))
    bad = sum(get(RSTAT + 3 * r + 1) for r in range(readers))
    zeros = sum(get(RSTAT + 3 * r + 2) for r in range(readers))
    writes = get(WSTAT) + get(WSTAT + 2)
    zeroings = get(WSTAT + 1) + get(WSTAT + 3)
    torn = sum(get(TORN + r) for r in range(readers))
    print('reads %d bad %d zeros_read %d torn_in_flight %d writes %d zeroings %d' %
          (reads, bad, zeros, torn, writes, zeroings), flush=True)
    sys.exit(1 if bad or rc else 0)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The choreography of tests/vm/46-stale-read.sh, in one process that
forks its actors (no exec on the critical path: a command started from the
9p root takes a second or more under TCG).

  stale_read.py DEV BLOCK READER2_BLOCK ARCSTATS NULLB B_FILE

DEV: the l2arc device; BLOCK: the block written (4 KiB blocks);
READER2_BLOCK: what reader 2 reads (BLOCK itself, or BLOCK - 1 so that
BLOCK is read ahead); ARCSTATS: the device's arcstats file; NULLB: the
origin's null_blk disk (its reads in flight are watched); B_FILE: the 4
KiB written.

 1. the writer (CPU 0) writes B_FILE to BLOCK: it waits in the origin;
 2. when arcstats says the write was issued, reader 2 (CPU 1) reads
    READER2_BLOCK; when the null_blk shows a read in flight (the data is
    taken, the completion comes later), a SCHED_FIFO busy loop takes CPU 1
    so that nothing reader 2 started goes on there (a fill's completion
    goes to the device's unbound workqueue, which may run it on CPU 0 at
    once: a fill that overlapped the write would then be installed before
    reader 3 reads it);
 3. when the write has completed, reader 3 (CPU 0) reads BLOCK; when it is
    done or has joined an I/O in flight (iohits > 0), CPU 1 is released.

Prints "reader2 <hex of its first 8 bytes>", "reader3 <...>",
"joined <0|1>"; exits 2 when the setup was too slow to hold CPU 1 in time.
"""
import mmap
import os
import sys
import time

BS = 4096


def row(path, name):
    with open(path) as f:
        for line in f.readlines()[2:]:
            w = line.split()
            if w[0] == name:
                return int(w[2])
    raise KeyError(name)


def reads_in_flight(disk):
    with open("/sys/block/%s/inflight" % os.path.basename(disk)) as f:
        return int(f.read().split()[0])


def wait(cond, secs, what):
    end = time.monotonic() + secs
    while not cond():
        if time.monotonic() > end:
            print("FAIL: timed out waiting for " + what, flush=True)
            sys.exit(1)
        time.sleep(0.002)


def child(cpu, fn):
    """fork a process pinned to cpu running fn; returns its pid"""
    pid = os.fork()
    if pid == 0:
        try:
            os.sched_setaffinity(0, {cpu})
            fn()
            os._exit(0)
        except BaseException as e:  # report, never return into the parent
            print("child failed: %r" % (e,), flush=True)
            os._exit(1)
    return pid


def main():
    dev, block, r2block, stats, nullb, bfile = sys.argv[1:7]
    block, r2block = int(block), int(r2block)
    with open(bfile, "rb") as f:
        bdata = f.read()
    shared = mmap.mmap(-1, mmap.PAGESIZE)  # [0]: hog started, [1]: stop
    out = mmap.mmap(-1, 2 * BS)  # reader 2's and reader 3's data

    def pread(blk, slot):
        fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, BS)
        os.preadv(fd, [buf], blk * BS)
        out[slot * BS:(slot + 1) * BS] = buf[:]
        os.close(fd)

    def write():
        fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, BS)
        buf[:] = bdata
        os.pwritev(fd, [buf], block * BS)
        os.close(fd)

    def hog():
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
        shared[0] = 1
        end = time.monotonic() + 20  # never longer, whatever the parent does
        while shared[1] == 0 and time.monotonic() < end:
            pass

    os.sched_setaffinity(0, {0})
    w0 = row(stats, "writes")
    writer = child(0, write)
    wait(lambda: row(stats, "writes") > w0, 10, "the write to be issued")
    r2 = child(1, lambda: pread(r2block, 0))
    wait(lambda: reads_in_flight(nullb) >= 1, 10, "reader 2 at the origin")
    # 6.12's fair server gives CFS tasks 5 % of a CPU under an RT hog:
    # none here, for as short a time as the hold lasts
    fair = "/sys/kernel/debug/sched/fair_server/cpu1/runtime"
    fair_runtime = None
    if os.path.exists(fair):
        with open(fair) as f:
            fair_runtime = f.read().strip()
        with open(fair, "w") as f:
            f.write("0\n")

    def release():
        shared[1] = 1
        os.waitpid(h, 0)
        if fair_runtime is not None:
            with open(fair, "w") as f:
                f.write(fair_runtime + "\n")

    h = child(1, hog)
    wait(lambda: shared[0] == 1, 10, "the hog on CPU 1")
    if reads_in_flight(nullb) < 1:
        release()
        print("setup too slow: reader 2's read completed before CPU 1 was held",
              flush=True)
        sys.exit(2)
    print("CPU 1 held with reader 2's read in flight", flush=True)
    _, st = os.waitpid(writer, 0)
    if st:
        release()
        print("FAIL: the write failed", flush=True)
        sys.exit(1)
    io0 = row(stats, "iohits")
    r3 = child(0, lambda: pread(block, 1))
    joined = 0
    end = time.monotonic() + 10
    while time.monotonic() < end:
        pid, st = os.waitpid(r3, os.WNOHANG)
        if pid:
            r3 = None
            if st:
                release()
                print("FAIL: reader 3 failed", flush=True)
                sys.exit(1)
            break
        if row(stats, "iohits") > io0:
            joined = 1
            break
        time.sleep(0.01)
    release()
    for pid in (r2, r3):
        if pid and os.waitpid(pid, 0)[1]:
            print("FAIL: a reader failed", flush=True)
            sys.exit(1)
    print("reader2 %s" % out[0:8].hex())
    print("reader3 %s" % out[BS:BS + 8].hex())
    print("joined %d" % joined)
    return 0


if __name__ == "__main__":
    sys.exit(main())

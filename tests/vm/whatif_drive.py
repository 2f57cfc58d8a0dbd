#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Read traces for tests/vm/85-whatif.sh (VM only): 4 KiB O_DIRECT preads
of a device, one block each, in the order of a trace.

  whatif_drive.py loop DEV N PASSES
      blocks 0 .. N-1, PASSES times over.
  whatif_drive.py zipf DEV DMNAME FEED_EVERY
      the zipf trace below, once, with an l2arc_feed message to the dm
      device DMNAME after every FEED_EVERY reads and after the last.
  whatif_drive.py trace
      print the zipf trace, one block a line.

The zipf trace: ZIPF_READS reads over ZIPF_BLOCKS blocks, block of rank k
(1 = hottest) drawn with weight 1 / k^ZIPF_ALPHA, the ranks scattered over
the blocks by a shuffle; Python's random.Random(ZIPF_SEED), so the trace is
the same on every run and every Python 3 (random() and shuffle() are
stable across versions).

Feeding by message keeps the cache device in step with the ARC: a feed
writes at most a quarter of the cache device (Documentation/design.rst,
"The feed"), so a feed after every FEED_EVERY <= slots / 4 reads writes
every block the reads brought in, as the what-if's simulated L2 (a ring
of every block its ARC evicts) assumes.  The messages go through the dm
ioctl (tests/vm/dmioctl.py): a dmsetup per feed would cost about 0.1 s
under TCG, a thousand times over.
"""
import bisect
import itertools
import mmap
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dmioctl import DM  # noqa: E402

ZIPF_READS = 30000
ZIPF_BLOCKS = 8192
ZIPF_ALPHA = 0.8
ZIPF_SEED = 1
BS = 4096


def zipf_trace(n=ZIPF_READS, nblocks=ZIPF_BLOCKS, alpha=ZIPF_ALPHA,
               seed=ZIPF_SEED):
    rnd = random.Random(seed)
    cdf = list(itertools.accumulate(1.0 / k ** alpha
                                    for k in range(1, nblocks + 1)))
    perm = list(range(nblocks))
    rnd.shuffle(perm)
    return [perm[bisect.bisect_left(cdf, rnd.random() * cdf[-1])]
            for _ in range(n)]


def reader(dev):
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, BS)

    def read(b):
        if os.preadv(fd, [buf], b * BS) != BS:
            sys.exit(f"short read of block {b}")
    return read


def main(argv):
    if len(argv) == 2 and argv[1] == "trace":
        print("\n".join(map(str, zipf_trace())))
        return 0
    if len(argv) == 5 and argv[1] == "loop":
        read = reader(argv[2])
        n, passes = int(argv[3]), int(argv[4])
        for _ in range(passes):
            for b in range(n):
                read(b)
        return 0
    if len(argv) == 5 and argv[1] == "zipf":
        read = reader(argv[2])
        name, every = argv[3], int(argv[4])
        dm = DM()
        trace = zipf_trace()

        def feed():
            err, _ = dm.message(name, "l2arc_feed")
            if err:
                sys.exit(f"l2arc_feed on {name}: {os.strerror(err)}")
        for i, b in enumerate(trace):
            read(b)
            if (i + 1) % every == 0:
                feed()
        if len(trace) % every:
            feed()
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))

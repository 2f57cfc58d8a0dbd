#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""L2 admission by trace: l2arc_mfuonly 0 (MRU and MFU blocks go to the
cache device) against 1 (MFU blocks only).

usage: l2_admission.py oltp|p12|zipf|nas [c l2 ...]

The ARC is the reference (arc_ref.py, p in fixed point as arc.c); the
cache device is a ring of l2 blocks written in order (the write hand),
a block written when it leaves T1 or T2 without a copy there (the
hand-off; with mfuonly, T2's only).  The feed's rate (l2arc_write_max)
is not modelled: every eligible evicted block is written, so the figures
are the policy's, at a feed that keeps up.  Prints per case: the ARC hit
ratio, the L2 hit ratio (of all reads, and of the ARC's misses), the
blocks written to the cache device, and blocks written per L2 hit.
oltp and p12 are ../shared/traces (the ARC paper's); zipf is 10^6 reads,
zipf 1.2 over 200000 blocks; nas is 10^6 reads, 70% from a 20000-block
hot set (zipf 0.9) and 30% in sequential runs of 256 blocks over a
2-million-block archive.  stdlib only.
"""
import bisect
import itertools
import os
import random
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arc_ref import Arc, lis_pages  # noqa: E402

TRACES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      '..', '..', '..', 'shared', 'traces')


class _Evicts(OrderedDict):
    """A resident list that notes the keys taken from its LRU end."""

    def __init__(self, name, log):
        super().__init__()
        self.name, self.log = name, log

    def popitem(self, last=True):
        k, v = super().popitem(last)
        if not last:
            self.log.append((self.name, k))
        return k, v


def run(pages, c, l2, mfuonly):
    """(reads, ARC hits, L2 hits, blocks written to L2)."""
    arc = Arc(c, 'fixed')
    log = []
    arc.t1, arc.t2 = _Evicts('t1', log), _Evicts('t2', log)
    ring = OrderedDict()                # the cache device, oldest first
    n = arc_hits = l2_hits = writes = 0
    for x in pages:
        n += 1
        h = arc.hits
        arc.access(x)
        if arc.hits > h:
            arc_hits += 1
        elif x in ring:
            l2_hits += 1
        for name, k in log:
            if k in ring or (mfuonly and name == 't1'):
                continue
            ring[k] = None
            writes += 1
            if len(ring) > l2:
                ring.popitem(last=False)
        log.clear()
    return n, arc_hits, l2_hits, writes


def zipf_pages(n, blocks, s, seed):
    rnd = random.Random(seed)
    w = list(itertools.accumulate(1.0 / (i + 1) ** s for i in range(blocks)))
    perm = list(range(blocks))
    rnd.shuffle(perm)
    for _ in range(n):
        yield perm[bisect.bisect(w, rnd.random() * w[-1])]


def nas_pages(n, seed):
    rnd = random.Random(seed)
    hot = zipf_pages(n, 20000, 0.9, seed + 1)
    run_p = 0.3 / (256 * 0.7 + 0.3)     # 30% of the blocks are runs
    out = 0
    while out < n:
        if rnd.random() >= run_p:
            yield next(hot)
            out += 1
        else:
            start = 100000 + rnd.randrange(2000000)
            yield from range(start, start + 256)
            out += 256


SOURCES = {
    'oltp': (lambda: lis_pages(os.path.join(TRACES, 'OLTP.lis.gz')),
             [(1000, 8000), (4000, 32000)]),
    'p12': (lambda: lis_pages(os.path.join(TRACES, 'P12.lis.gz')),
            [(4096, 32768), (16384, 131072)]),
    'zipf': (lambda: zipf_pages(1000000, 200000, 1.2, 7), [(4096, 32768)]),
    'nas': (lambda: nas_pages(1000000, 9), [(4096, 32768)]),
}


def main(argv):
    if len(argv) < 2 or argv[1] not in SOURCES or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    src, cases = SOURCES[argv[1]]
    if len(argv) > 2:
        v = list(map(int, argv[2:]))
        cases = list(zip(v[::2], v[1::2]))
    for c, l2 in cases:
        for m in (0, 1):
            n, ah, lh, w = run(src(), c, l2, m)
            print('%s c %d l2 %d mfuonly %d: arc_hit %.4f l2_hit %.4f '
                  'l2_hit_of_misses %.4f l2_writes %d writes_per_l2_hit %.2f'
                  % (argv[1], c, l2, m, ah / n, lh / n,
                     lh / max(n - ah, 1), w, w / max(lh, 1)), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

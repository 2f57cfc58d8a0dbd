#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Reference simulation of ARC, the pseudocode of Fig. 4 of
N. Megiddo and D. S. Modha, "ARC: A Self-Tuning, Low Overhead Replacement
Cache", USENIX FAST 2003 (also IEEE Computer 37(4), 2004).

Usage:
  arc_ref.py TRACE.lis[.gz] C [--p-mode=float|fixed]
      replay a trace in the paper's .lis format (start n_pages ignored reqno),
      cache size C in pages, cold start; print "<hits> <requests> <ratio%>".
  arc_ref.py --synthetic SEED N C [--p-mode=...]
      replay the synthetic trace that dm-l2arc/arc_test.c generates
      (arc_synth_next() there: xorshift32, must stay identical), print hits.
  arc_ref.py --sequence 1,2,1,3 C [--p-mode=...]
      print the lists (LRU to MRU) and p after each access of a short
      sequence: how the expected values of the hand-worked KUnit cases were
      checked.

p, the target size of T1, is a real number (--p-mode=float, the default:
Python floats) or, with --p-mode=fixed, an integer with 32 fractional bits
computed exactly as dm-l2arc/arc.c does (step rounded down).

Ceilings (not in the paper; a pool member's arc_max, arc_owners_init() in
arc.c): Arc(c, mode, ceilings={owner: blocks}, owner_of=f) keeps each
owner's resident keys (owner_of(key)) at most at its ceiling: a key of an
owner at its ceiling that is to become resident first REPLACEs one of the
owner's own (the list by p as REPLACE picks it, the other list if the
owner has under half its share of T1 + T2 in it; the other owners' keys
passed over from the LRU end moved to the MRU end), as arc.c does.  REPLACE is then called only when
T1 and T2 are full, as in arc.c: in the paper's own setting (no ceilings)
that is every time the paper calls it.  stdlib only.
"""
import gzip
import sys
from collections import OrderedDict

FRAC = 32
ONE = 1 << FRAC


class Arc:
    def __init__(self, c, mode='float', ceilings=None, owner_of=None):
        self.c = c
        self.mode = mode
        self.ceilings = ceilings or {}
        self.owner_of = owner_of or (lambda k: k[0])
        self.resident = {}
        self.p = 0 if mode == 'fixed' else 0.0
        self.t1, self.t2 = OrderedDict(), OrderedDict()
        self.b1, self.b2 = OrderedDict(), OrderedDict()
        self.hits = 0

    def _step(self, num, den):
        """max(num/den, 1) in the unit of p."""
        if self.mode == 'fixed':
            return ((num << FRAC) // den) if num >= den else ONE
        return max(num / den, 1.0)

    def _cmax(self):
        return self.c << FRAC if self.mode == 'fixed' else float(self.c)

    def _t1_cmp(self):
        n = len(self.t1)
        return (n << FRAC) if self.mode == 'fixed' else float(n)

    def _full(self):
        return len(self.t1) + len(self.t2) >= self.c

    def _own_lru(self, lst, owner):
        """Pop the owner's key nearest lst's LRU end, the others passed
        over moved to its MRU end; None if lst holds none of its keys."""
        if not any(self.owner_of(k) == owner for k in lst):
            return None
        while True:
            k, _ = lst.popitem(last=False)
            if self.owner_of(k) == owner:
                return k
            lst[k] = None

    def _res(self, k, d):
        if self.ceilings:
            o = self.owner_of(k)
            self.resident[o] = self.resident.get(o, 0) + d

    def _replace(self, in_b2, owner=None):
        t1 = self._t1_cmp()
        lists = [(self.t1, self.b1), (self.t2, self.b2)]
        if not (self.t1 and ((in_b2 and t1 == self.p) or t1 > self.p or
                             not self.t2)):
            lists.reverse()
        if owner is not None:
            # under half the owner's share of T1 + T2 in that list: the other
            mine = sum(1 for k in lists[0][0] if self.owner_of(k) == owner)
            both = len(self.t1) + len(self.t2)
            if 2 * mine * both < self.resident[owner] * len(lists[0][0]):
                lists.reverse()
        for src, ghost in lists:
            if owner is None:
                k, _ = src.popitem(last=False)
            else:
                k = self._own_lru(src, owner)
                if k is None:
                    continue
            ghost[k] = None
            self._res(k, -1)
            return

    def _ceiling(self, x, in_b2):
        o = self.owner_of(x) if self.ceilings else None
        ceil = self.ceilings.get(o, 0)
        while ceil and self.resident.get(o, 0) >= ceil:
            self._replace(in_b2, o)

    def access(self, x):
        c = self.c
        if x in self.t1:                      # case I
            del self.t1[x]
            self.t2[x] = None
            self.hits += 1
            return
        if x in self.t2:                      # case I
            self.t2.move_to_end(x)
            self.hits += 1
            return
        if x in self.b1:                      # case II
            self.p = min(self._cmax(),
                         self.p + self._step(len(self.b2), len(self.b1)))
            self._ceiling(x, False)
            if self._full():
                self._replace(False)
            del self.b1[x]
            self.t2[x] = None
            self._res(x, 1)
            return
        if x in self.b2:                      # case III
            self.p = max(0, self.p - self._step(len(self.b1), len(self.b2)))
            self._ceiling(x, True)
            if self._full():
                self._replace(True)
            del self.b2[x]
            self.t2[x] = None
            self._res(x, 1)
            return
        self._ceiling(x, False)               # case IV
        l1 = len(self.t1) + len(self.b1)
        if l1 >= c:
            if len(self.t1) < c:
                self.b1.popitem(last=False)
                if self._full():
                    self._replace(False)
            else:
                k, _ = self.t1.popitem(last=False)
                self._res(k, -1)
        else:
            total = l1 + len(self.t2) + len(self.b2)
            if total >= c:
                if total >= 2 * c:
                    self.b2.popitem(last=False)
                if self._full():
                    self._replace(False)
        self.t1[x] = None
        self._res(x, 1)


def lis_pages(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        for line in f:
            fields = line.split()
            if len(fields) < 2:
                continue
            start, n = int(fields[0]), int(fields[1])
            yield from range(start, start + n)


def synth_pages(seed, n):
    """Must match arc_synth_next() in dm-l2arc/arc_test.c."""
    s = seed & 0xffffffff
    for _ in range(n):
        s ^= (s << 13) & 0xffffffff
        s ^= s >> 17
        s ^= (s << 5) & 0xffffffff
        r = s
        if r % 4 == 0:
            yield 1000 + (r >> 8) % 200   # a wide, colder region
        else:
            yield (r >> 8) % 24           # a hot region


def main(argv):
    mode = 'float'
    args = []
    for a in argv[1:]:
        if a.startswith('--p-mode='):
            mode = a.split('=', 1)[1]
        else:
            args.append(a)
    if args and args[0] == '--synthetic':
        seed, n, c = int(args[1]), int(args[2]), int(args[3])
        arc = Arc(c, mode)
        for x in synth_pages(seed, n):
            arc.access(x)
        print(arc.hits)
        return 0
    if args and args[0] == '--sequence':
        arc = Arc(int(args[2]), mode)
        for x in (int(v) for v in args[1].split(',')):
            before = arc.hits
            where = ('T1' if x in arc.t1 else 'T2' if x in arc.t2 else
                     'B1' if x in arc.b1 else 'B2' if x in arc.b2 else '-')
            arc.access(x)
            p = arc.p / ONE if mode == 'fixed' else arc.p
            print(f'{x:>4} {where} hit={arc.hits - before} '
                  f'T1={list(arc.t1)} T2={list(arc.t2)} '
                  f'B1={list(arc.b1)} B2={list(arc.b2)} p={p!r}')
        return 0
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    arc = Arc(int(args[1]), mode)
    reqs = 0
    for x in lis_pages(args[0]):
        arc.access(x)
        reqs += 1
    print(f'{arc.hits} {reqs} {100.0 * arc.hits / reqs:.4f}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

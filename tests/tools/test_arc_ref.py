# SPDX-License-Identifier: GPL-2.0-only
"""Host test: the Python reference ARC (tests/tools/arc_ref.py) reproduces
the hit counts that the ARC paper's traces give (shared/traces/README.md,
N. Megiddo and D. S. Modha, FAST 2003), with real and with fixed-point p.
The KUnit suite checks the kernel directory against this reference on
synthetic traces, and the VM test 30-arc-traces checks the real target
against the same published figures."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, '..', '..', '..', 'shared', 'traces')
OLTP = os.path.join(TRACES, 'OLTP.lis.gz')


def run(*args):
    out = subprocess.run([sys.executable, os.path.join(HERE, 'arc_ref.py')]
                         + list(args), check=True, capture_output=True,
                         text=True).stdout
    return out.split()


class ArcRefTest(unittest.TestCase):
    @unittest.skipUnless(os.path.exists(OLTP), 'shared/traces not beside the checkout')
    def test_oltp_c1000_float(self):
        self.assertEqual(run(OLTP, '1000')[:2], ['356015', '914145'])

    @unittest.skipUnless(os.path.exists(OLTP), 'shared/traces not beside the checkout')
    def test_oltp_c1000_fixed_point(self):
        self.assertEqual(run(OLTP, '1000', '--p-mode=fixed')[:2],
                         ['356015', '914145'])

    def test_ceiling_matches_kunit(self):
        # arc_test.c's arc_test_ceiling: owners are block >> 8, owner 1
        # capped at 2, owner 2 at 3 from block 517 on; c = 6
        sys.path.insert(0, HERE)
        from arc_ref import Arc, ONE
        arc = Arc(6, 'fixed', ceilings={1: 2}, owner_of=lambda k: k >> 8)
        steps = [
            (512, 'T1=[512] T2=[] B1=[] B2=[]', 0),
            (256, 'T1=[512 256] T2=[] B1=[] B2=[]', 0),
            (257, 'T1=[512 256 257] T2=[] B1=[] B2=[]', 0),
            (258, 'T1=[257 512 258] T2=[] B1=[256] B2=[]', 0),
            (513, 'T1=[257 512 258 513] T2=[] B1=[256] B2=[]', 0),
            (256, 'T1=[512 258 513] T2=[256] B1=[257] B2=[]', ONE),
            (514, 'T1=[512 258 513 514] T2=[256] B1=[257] B2=[]', ONE),
            (515, 'T1=[512 258 513 514 515] T2=[256] B1=[257] B2=[]', ONE),
            (516, 'T1=[258 513 514 515 516] T2=[256] B1=[512] B2=[]', ONE),
            (259, 'T1=[513 514 515 516 259] T2=[256] B1=[258] B2=[]', ONE),
            (259, 'T1=[513 514 515 516] T2=[256 259] B1=[258] B2=[]', ONE),
            (260, 'T1=[513 514 515 516 260] T2=[259] B1=[258] B2=[256]', ONE),
            (517, 'T1=[515 516 260 517] T2=[259] B1=[513 514] B2=[256]', ONE),
        ]
        for i, (x, lists, p) in enumerate(steps):
            if x == 517:
                arc.ceilings[2] = 3
            arc.access(x)
            got = ' '.join('%s=[%s]' % (n, ' '.join(map(str, lst)))
                           for n, lst in (('T1', arc.t1), ('T2', arc.t2),
                                          ('B1', arc.b1), ('B2', arc.b2)))
            self.assertEqual((got, arc.p), (lists, p), 'step %d' % i)
        self.assertEqual(arc.resident, {1: 2, 2: 3})

    def test_ceiling_skew_matches_kunit(self):
        # arc_test.c's arc_test_ceiling_skew: owner 1 (256..) capped at 3,
        # c = 8; p's list is skipped when the owner has few blocks there
        sys.path.insert(0, HERE)
        from arc_ref import Arc
        arc = Arc(8, 'fixed', ceilings={1: 3}, owner_of=lambda k: k >> 8)
        for x in (256, 257, 256, 257, 1, 2, 3, 4, 258):
            arc.access(x)
        want = [
            (259, [1, 2, 3, 4, 258, 259], [257], [], [256]),
            (260, [259, 1, 2, 3, 4, 260], [257], [258], [256]),
        ]
        for x, t1, t2, b1, b2 in want:
            arc.access(x)
            self.assertEqual((list(arc.t1), list(arc.t2), list(arc.b1),
                              list(arc.b2), arc.p), (t1, t2, b1, b2, 0), x)
        self.assertEqual(arc.resident, {0: 4, 1: 3})

    def test_synthetic_matches_kunit(self):
        # the same trace and count as arc_test.c's "seed 1 n 20000 c 16"
        out = run('--synthetic', '1', '20000', '16')
        self.assertEqual(out[0], '8923')


if __name__ == '__main__':
    unittest.main()

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

    def test_synthetic_matches_kunit(self):
        # the same trace and count as arc_test.c's "seed 1 n 20000 c 16"
        out = run('--synthetic', '1', '20000', '16')
        self.assertEqual(out[0], '8923')


if __name__ == '__main__':
    unittest.main()

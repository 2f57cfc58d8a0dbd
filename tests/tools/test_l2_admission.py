# SPDX-License-Identifier: GPL-2.0-only
"""The L2 admission model (l2_admission.py) on hand-worked sequences."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from l2_admission import run  # noqa: E402


class TestL2Admission(unittest.TestCase):
    def test_mru_block_written_at_eviction(self):
        # c = 2: 3 deletes T1's LRU (1), which goes to the ring; 1 then
        # misses the ARC and hits L2, and deletes 2, written too
        self.assertEqual(run([1, 2, 3, 1], 2, 2, 0), (4, 0, 1, 2))

    def test_mfuonly_keeps_mru_blocks_off(self):
        self.assertEqual(run([1, 2, 3, 1], 2, 2, 1), (4, 0, 0, 0))

    def test_mfu_block_written_and_ring_wraps(self):
        # 1 read twice is in T2; 2, 3 fill T1, 4 REPLACEs T1's LRU (2),
        # then 5 and 6 make room from T1 and B1; with mfuonly only T2's
        # blocks go: none leaves T2 here
        self.assertEqual(run([1, 1, 2, 3, 4, 5, 6, 2], 3, 1, 1),
                         (8, 1, 0, 0))
        # without it every T1 eviction is written (2, 3, 4 and 5); a ring
        # of 1 holds 4 when 2 is read again: no L2 hit
        self.assertEqual(run([1, 1, 2, 3, 4, 5, 6, 2], 3, 1, 0),
                         (8, 1, 0, 4))

if __name__ == '__main__':
    unittest.main()

# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of tests/tools/crc32c.py (the crc forger of the VM tests)."""
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crc32c  # noqa: E402


class Crc32cTest(unittest.TestCase):
    def test_check_value(self):
        # RFC 3720's check value: crc32c("123456789") with the final
        # inversion is 0xE3069283
        self.assertEqual(crc32c.crc32c(b"123456789") ^ 0xFFFFFFFF, 0xE3069283)

    def test_iscsi_zeros(self):
        # RFC 3720 B.4: 32 bytes of zeros -> 0x8A9136AA
        self.assertEqual(crc32c.crc32c(bytes(32)) ^ 0xFFFFFFFF, 0x8A9136AA)

    def test_forge(self):
        rnd = random.Random(56)
        for _ in range(20):
            a = bytes(rnd.getrandbits(8) for _ in range(4096))
            b = bytes(rnd.getrandbits(8) for _ in range(4096))
            f = crc32c.forge(b, a)
            self.assertNotEqual(f, a)
            self.assertEqual(f[:-4], b[:-4])
            self.assertEqual(crc32c.crc32c(f), crc32c.crc32c(a))


if __name__ == "__main__":
    unittest.main()

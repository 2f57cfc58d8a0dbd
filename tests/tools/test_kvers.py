# SPDX-License-Identifier: GPL-2.0-only
"""Host test: scripts/kvers --resolve, the one place where tests/run,
scripts/vm-run and scripts/soak turn "6.1", "6.12" or a kver into the
kernel they boot ("debug" is left to the VM tests: resolving it builds the
debug kernel when it is not cached)."""
import os
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KVERS = os.path.join(HERE, '..', '..', 'scripts', 'kvers')


def kvers(*args):
    return subprocess.run([KVERS] + list(args), capture_output=True,
                          text=True)


class KversTest(unittest.TestCase):
    def test_resolve_kver_is_printed_as_given(self):
        r = kvers('--resolve', '6.1.0-57-amd64')
        self.assertEqual((r.returncode, r.stdout), (0, '6.1.0-57-amd64\n'))

    def test_resolve_needs_one_name(self):
        for args in (['--resolve'], ['--resolve', ''],
                     ['--resolve', '6.1', '6.12']):
            r = kvers(*args)
            self.assertEqual(r.returncode, 1, args)
            self.assertEqual(r.stdout, '', args)
            self.assertIn('usage: kvers', r.stderr, args)

    def test_resolve_series_is_the_newest_of_it(self):
        for name, opt in (('6.1', '--61'), ('6.12', '--612')):
            want = kvers(opt)
            got = kvers('--resolve', name)
            self.assertEqual(got.returncode, want.returncode, name)
            self.assertEqual(got.stdout, want.stdout, name)
            if want.returncode:
                self.assertIn('no usable %s kernel' % name, got.stderr)
            else:
                self.assertTrue(got.stdout.startswith(name + '.'), got.stdout)


if __name__ == '__main__':
    unittest.main()

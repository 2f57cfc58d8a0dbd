# SPDX-License-Identifier: GPL-2.0-only
"""Host test: on a fresh machine the README's two commands are the whole
set-up, so `make demo` (scripts/demo) and `make check` (scripts/check) must
install what is missing (scripts/deps) before anything looks for a kernel
(scripts/kvers, which fails until the kernels are installed).

Each script runs in a scratch tree beside stubs of the scripts it calls:
every stub appends its name to a log; scripts/kvers fails as it does on a
fresh machine.  The log's first line must be "deps"."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, '..', '..')

STUB = '''#!/bin/bash
echo "%s $*" >>"$STUB_LOG"
exit %d
'''


class SetupOrderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='l2arc-order.')
        self.addCleanup(shutil.rmtree, self.dir)
        os.makedirs(os.path.join(self.dir, 'scripts'))
        os.makedirs(os.path.join(self.dir, 'tests', 'tools'))
        os.makedirs(os.path.join(self.dir, 'tests', 'run.d'))
        for name in ('check', 'demo', 'lib.sh'):
            shutil.copy(os.path.join(TOP, 'scripts', name),
                        os.path.join(self.dir, 'scripts', name))
        # kvers fails as on a machine without the Debian kernels
        self.stub('scripts/deps', 0)
        self.stub('scripts/kvers', 1)
        for name in ('lint', 'kunit', 'debug-kernel', 'vm-run'):
            self.stub('scripts/' + name, 1)
        self.stub('tests/run', 1)
        self.log = os.path.join(self.dir, 'calls.log')

    def stub(self, rel, rc):
        path = os.path.join(self.dir, rel)
        with open(path, 'w') as f:
            f.write(STUB % (os.path.basename(rel), rc))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def run_script(self, *args):
        env = dict(os.environ, STUB_LOG=self.log, CHECK_SKIP_VM='1',
                   CHECK_DEBUG_KERNEL='0')
        r = subprocess.run([os.path.join(self.dir, 'scripts', args[0])]
                           + list(args[1:]), cwd=self.dir, env=env,
                           capture_output=True, text=True, timeout=120)
        with open(self.log) as f:
            calls = [line.split()[0] for line in f]
        return r, calls

    def test_demo_installs_before_it_looks_for_a_kernel(self):
        r, calls = self.run_script('demo')
        self.assertEqual(calls[:2], ['deps', 'kvers'], r.stdout + r.stderr)
        self.assertNotEqual(r.returncode, 0)  # kvers failed: no kernel
        self.assertIn('== scripts/deps', r.stdout.splitlines()[0])

    def test_check_installs_before_it_looks_for_a_kernel(self):
        r, calls = self.run_script('check')
        self.assertEqual(calls[0], 'deps', r.stdout + r.stderr)
        self.assertIn('kvers', calls)
        self.assertEqual(r.stdout.splitlines()[0],
                         '== deps (installs the Debian packages that are missing)')
        self.assertIn('PASS deps', r.stdout.splitlines())

    def test_check_counts_a_failed_install(self):
        self.stub('scripts/deps', 1)
        r, calls = self.run_script('check')
        self.assertEqual(calls[0], 'deps')
        self.assertIn('FAIL deps', r.stdout.splitlines())
        self.assertNotEqual(r.returncode, 0)


if __name__ == '__main__':
    unittest.main()

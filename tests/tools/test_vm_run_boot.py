# SPDX-License-Identifier: GPL-2.0-only
"""Host test: scripts/vm-run boots a guest again, once, when its kernel
died while booting, before the script started (no test run and no module
of the project loaded), and not when it died later; and tests/run reports
that boot as a NOTE, and a test the VM gave no result line for as a FAIL.

QEMU is replaced by a stub on PATH that plays a guest: it prints a
kernel oops on the console, or touches OUTDIR/.vm/started and writes the
script's rc as scripts/vm-guest-init does, boot by boot as told.  vm-run
itself is the real one: it needs a Debian 6.1 kernel (scripts/kvers) for
its checks and cached initramfs, as make check's VM tests do."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
VM_RUN = os.path.join(TOP, 'scripts', 'vm-run')
TESTS_RUN = os.path.join(TOP, 'tests', 'run')
KVERS = os.path.join(TOP, 'scripts', 'kvers')

# The stub: the Nth boot does what word N of $STUB_BOOTS says: "oops"
# (the kernel dies at boot, as 6.12 words it), "oops61" (the same as 6.1
# words it: no "Oops:"), "warn" (a warning at boot, then the guest powers
# off without running the script: no death), "late" (the script starts,
# then the kernel dies) or "ok" (the script runs and exits 0).
STUB = r'''#!/bin/bash
out=
for a in $(printf '%s\n' "$@" | grep -o 'l2arc\.out=[^ ]*'); do
	out=${a#*=}
done
n=$(($(cat "$STUB_DIR/boots" 2>/dev/null || echo 0) + 1))
echo "$n" >"$STUB_DIR/boots"
read -ra what <<<"$STUB_BOOTS"
case ${what[n - 1]} in
oops)
	echo '[    3.072810] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI'
	echo '[    3.073797] RIP: 0010:sched_clock_cpu+0x9/0x190'
	echo '[    3.080806] Kernel panic - not syncing: Fatal exception in interrupt' ;;
oops61)
	echo '[    3.072810] int3: 0000 [#1] PREEMPT SMP NOPTI'
	echo '[    3.080806] Kernel panic - not syncing: Fatal exception in interrupt' ;;
warn)
	echo '[    2.000000] WARNING: CPU: 0 PID: 1 at somewhere+0x10/0x20'
	echo '[    2.100000] reboot: Power down' ;;
late)
	: >"$out/.vm/started"
	echo '[   20.000000] BUG: kernel NULL pointer dereference, address: 0000000000000080' ;;
ok)
	: >"$out/.vm/started"
	echo 'script ran' >"$out/output.log"
	echo 0 >"$out/rc" ;;
esac
exit 0
'''


def newest_61():
    r = subprocess.run([KVERS, '--61'], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ''


class VmRunBootTest(unittest.TestCase):
    def setUp(self):
        self.kver = newest_61()
        if not self.kver:
            self.skipTest('no Debian 6.1 kernel (scripts/deps installs it)')
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        bindir = os.path.join(self.dir, 'bin')
        os.mkdir(bindir)
        qemu = os.path.join(bindir, 'qemu-system-x86_64')
        with open(qemu, 'w') as f:
            f.write(STUB)
        os.chmod(qemu, os.stat(qemu).st_mode | stat.S_IXUSR)
        self.out = os.path.join(self.dir, 'out')
        self.env = dict(os.environ, PATH=bindir + ':' + os.environ['PATH'],
                        STUB_DIR=self.dir)
        self.env.pop('L2ARC_STOP_AT', None)

    def run_vm(self, boots):
        self.env['STUB_BOOTS'] = boots
        r = subprocess.run([VM_RUN, '-k', self.kver, '-t', '300',
                            '-o', self.out, 'tests/vm/runner-guest',
                            'table-shapes', 'two words'],
                           capture_output=True, text=True, env=self.env,
                           cwd=TOP)
        with open(os.path.join(self.dir, 'boots')) as f:
            return r, int(f.read())

    def read(self, name):
        with open(os.path.join(self.out, name)) as f:
            return f.read()

    def test_died_booting_then_booted(self):
        r, boots = self.run_vm('oops ok')
        self.assertEqual((r.returncode, boots), (0, 2), r.stderr)
        self.assertIn('the guest kernel died while it booted, before SCRIPT '
                      'started', r.stderr)
        self.assertIn('  Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n', r.stderr)
        self.assertIn('booting again, once', r.stderr)
        self.assertEqual(self.read('first-boot-issues'),
                         'Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n'
                         'Kernel panic - not syncing: Fatal exception in '
                         'interrupt\n')
        self.assertIn('sched_clock_cpu', self.read('console-first-boot.log'))
        self.assertEqual(self.read('kernel-issues'), '')
        self.assertEqual(self.read('output.log'), 'script ran\n')
        # the second boot runs the same script with the same arguments
        self.assertIn("VM_CMD=(%s/tests/vm/runner-guest table-shapes "
                      "two\\ words )\n" % TOP, self.read('.vm/env'))

    def test_died_booting_as_61_words_it(self):
        # 6.1's oops header has no "Oops:"; the header and the panic
        # still say the kernel died
        r, boots = self.run_vm('oops61 ok')
        self.assertEqual((r.returncode, boots), (0, 2), r.stderr)
        self.assertEqual(self.read('first-boot-issues'),
                         'int3: 0000 [#1] PREEMPT SMP NOPTI\n'
                         'Kernel panic - not syncing: Fatal exception in '
                         'interrupt\n')
        self.assertIn('  int3: 0000 [#1] PREEMPT SMP NOPTI\n', r.stderr)

    def booted_once(self, boots):
        """run the VM; it must fail with status 2 after one boot"""
        r, n = self.run_vm(boots)
        self.assertEqual((r.returncode, n), (2, 1), r.stderr)
        self.assertNotIn('booting again', r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out,
                                                     'first-boot-issues')))

    def test_warning_without_death_is_not_booted_again(self):
        self.booted_once('warn ok')
        self.assertEqual(self.read('kernel-issues'),
                         'WARNING: CPU: 0 PID: 1 at somewhere+0x10/0x20\n')

    def test_died_booting_twice_fails(self):
        r, boots = self.run_vm('oops oops ok')
        self.assertEqual((r.returncode, boots), (2, 2), r.stderr)
        self.assertEqual(self.read('kernel-issues'),
                         'Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n')
        self.assertIn('FAIL: guest kernel log', r.stderr)

    def test_died_after_the_script_started_is_not_booted_again(self):
        self.booted_once('late ok')
        self.assertIn('BUG: kernel NULL pointer dereference',
                      self.read('kernel-issues'))

    def test_boot_ok_is_booted_once(self):
        r, boots = self.run_vm('ok oops')
        self.assertEqual((r.returncode, boots), (0, 1), r.stderr)
        self.assertNotIn('booting again', r.stderr)


    def run_tests_run(self, boots):
        """tests/run of one test in the stub's VM: (status, its lines)"""
        self.env['STUB_BOOTS'] = boots
        r = subprocess.run([TESTS_RUN, '-k', self.kver, '-o', self.out,
                            'table-shapes'], capture_output=True, text=True,
                           env=self.env, cwd=TOP)
        return r.returncode, r.stdout.splitlines()

    def test_tests_run_no_result_line_fails(self):
        # the stub's guest exits 0 without running the test
        rc, lines = self.run_tests_run('ok')
        self.assertEqual(rc, 1, lines)
        self.assertEqual(lines[-2:], [
            'FAIL %s table-shapes (no result line; the VM\'s script '
            'exited with status 0)' % self.kver, '0 passed, 1 failed'])

    def test_tests_run_notes_a_boot_again(self):
        rc, lines = self.run_tests_run('oops ok')
        self.assertEqual(rc, 1, lines)
        self.assertIn('NOTE %s vm (the guest kernel died while it booted, '
                      'before any test: Oops: int3: 0000 [#1] PREEMPT SMP '
                      'NOPTI; booted again; see %s/%s/console-first-boot.log)'
                      % (self.kver, self.out, self.kver), lines)
        self.assertEqual(lines[-1], '0 passed, 1 failed')


if __name__ == '__main__':
    unittest.main()

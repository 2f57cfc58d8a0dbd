# SPDX-License-Identifier: GPL-2.0-only
"""Host-side tests of scripts/vm-plan, make check's time budget.

Run:  python3 -m unittest discover -s tests/tools -p 'test_*.py'
"""
import io
import os
import re
import subprocess
import tempfile
import unittest

from scriptmod import load_script

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
TOOL = os.path.join(TOP, 'scripts', 'vm-plan')



def load_tool():
    return load_script('vm-plan')


DURATIONS = """\
columns 6.1 6.12 debug
pace 6.1 1000
pace debug 4000
boot 6.1 10
boot debug 20
smoke   core   10  10  40
traces  same  400 400   -
persist kernel 100 100 200
faults  debug    -   - 300
"""


class VmPlanTest(unittest.TestCase):
    def setUp(self):
        self.tool = load_tool()
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.dur = os.path.join(self.dir.name, 'durations')
        with open(self.dur, 'w', encoding='utf-8') as f:
            f.write(DURATIONS)
        self.lines = []
        for i, name in enumerate(('smoke', 'traces', 'persist', 'faults')):
            path = os.path.join(self.dir.name, f'{i}0-{name}.sh')
            with open(path, 'w', encoding='utf-8') as f:
                f.write('#!/bin/bash\n')
                if name == 'traces':
                    f.write('# debug-check: skip the same everywhere\n')
            self.lines.append(f'{path} {name} 300 1')

    def plan(self, *argv):
        out = io.StringIO()
        args = self.tool.parse(['--durations', self.dur] + list(argv))
        self.tool.plan(args, self.lines, out)
        res = {'drop': []}
        for line in out.getvalue().splitlines():
            key, _, rest = line.partition(' ')
            if key == 'drop':
                res['drop'].append(rest.split()[0])
            elif key in ('run', 'run2'):
                res[key] = rest.split()
            elif key == 'predict':
                res['end'] = float(rest.split()[0])
        return res

    def test_fits_at_reference_pace(self):
        r = self.plan('--kernel', '6.1.0-57-amd64', '--pace', '1000',
                      '--deadline', '1000')
        self.assertEqual(r['drop'], [])
        self.assertEqual(r['end'], 10 + 400 + 100 + 0 + 10)

    def test_faster_pace_plans_at_the_reference(self):
        r = self.plan('--kernel', '6.1.0-57-amd64', '--pace', '500',
                      '--deadline', '1000')
        self.assertEqual(r['end'], 10 + 400 + 100 + 0 + 10)

    def test_slower_pace_drops_same_class_first(self):
        # x2: 1040 s, past 1000: "traces" (same) goes before "persist"
        r = self.plan('--kernel', '6.12.118+deb12-amd64', '--pace', '2000',
                      '--deadline', '1000')
        self.assertEqual(r['drop'], ['traces'])
        self.assertEqual(r['end'], 2 * (10 + 100 + 10))

    def test_core_never_dropped(self):
        r = self.plan('--kernel', '6.1.0-57-amd64', '--pace', '1000',
                      '--deadline', '1')
        self.assertEqual(r['drop'], ['traces', 'persist', 'faults'])
        self.assertEqual(r['run'], ['smoke'])

    def test_no_trim(self):
        r = self.plan('--kernel', '6.1.0-57-amd64', '--pace', '9000',
                      '--deadline', '1', '--no-trim')
        self.assertEqual(r['drop'], [])

    def test_debug_halves_keep_debug_class(self):
        # the debug set: traces is a debug-check skip (first half, 0 s);
        # halves 300 (faults) and 200+40 (persist, smoke), the second
        # started when the other VM ends at 100
        r = self.plan('--kernel', '6.1.192-l2arc-debug', '--pace', '4000',
                      '--halves', '--check-set', '--other-end', '100',
                      '--deadline', '400')
        self.assertEqual(r['drop'], [])
        self.assertEqual(r['run'], ['faults', 'traces'])
        self.assertEqual(r['run2'], ['persist', 'smoke'])
        self.assertEqual(r['end'], 100 + 240 + 20)
        r = self.plan('--kernel', '6.1.192-l2arc-debug', '--pace', '8000',
                      '--halves', '--check-set', '--other-end', '100',
                      '--deadline', '400')
        self.assertEqual(r['drop'], ['persist'])
        self.assertIn('faults', r['run'] + r['run2'])

    def pair(self, pace, deadline):
        out = io.StringIO()
        args = self.tool.parse(['--durations', self.dur,
                                '--kernel', '6.1.0-57-amd64',
                                '--pair', '6.12.118+deb12-amd64',
                                '--pace', str(pace), '--start', '0',
                                '--pair-start', '50',
                                '--deadline', str(deadline)])
        self.tool.plan(args, self.lines, out)
        res = {}
        for line in out.getvalue().splitlines():
            words = line.split()
            if words[0] == 'pair':
                words = ['pair_' + words[1]] + words[2:]
            key = words[0]
            if key.endswith('drop'):
                res.setdefault(key, []).append(words[1])
            elif key.endswith('predict'):
                res[key] = float(words[1])
            elif key.endswith(('run', 'first')):
                res[key] = words[1:]
        return res

    def test_pair_whole_when_it_fits(self):
        r = self.pair(1000, 10000)
        self.assertEqual(r['first'], ['smoke'])
        self.assertEqual(r['run'], ['traces', 'persist', 'faults'])
        # 6.12: its core tests, then the rest from the last to the first
        self.assertEqual(r['pair_run'], ['smoke', 'faults', 'persist',
                                         'traces'])
        # 6.1: smoke and a boot, then the rest and a boot; 6.12 from 50
        self.assertEqual(r['predict'], 10 + 10 + 400 + 100 + 10)
        self.assertEqual(r['pair_predict'], 50 + 10 + 400 + 100 + 10)
        self.assertNotIn('drop', r)

    def test_pair_same_test_runs_once(self):
        # 6.12 ends later: it leaves out traces, which 6.1 runs; then
        # 6.1 (530) is past 500 but its only test also in 6.12 that
        # may go is persist (kernel): 430
        r = self.pair(1000, 500)
        self.assertEqual(r['pair_drop'], ['traces'])
        self.assertEqual(r['drop'], ['persist'])
        self.assertEqual(r['run'], ['traces', 'faults'])
        self.assertEqual(r['pair_run'], ['smoke', 'faults', 'persist'])
        self.assertEqual(r['predict'], 10 + 10 + 400 + 10)

    def test_pair_never_drops_a_same_test_twice(self):
        r = self.pair(1000, 1)
        self.assertIn('traces', r['run'] + r['pair_run'])
        self.assertIn('smoke', r['first'] + r['pair_run'])

    def test_pair_never_drops_a_trust_test_twice(self):
        path = os.path.join(self.dir.name, '50-crash.sh')
        with open(path, 'w', encoding='utf-8') as f:
            f.write('#!/bin/bash\n')
        self.lines.append(f'{path} crash 300 1')
        for cls in ('kernel', 'trust'):
            with open(self.dur, 'w', encoding='utf-8') as f:
                f.write(DURATIONS + f'crash   {cls} 300 300   -\n')
            r = self.pair(1000, 1)
            self.assertEqual(r['run'], ['traces', 'faults'])
            if cls == 'kernel':
                # nothing else left: the longest kernel test leaves both
                self.assertEqual(r['drop'], ['crash', 'persist'])
                self.assertEqual(r['pair_drop'], ['traces', 'faults',
                                                  'crash'])
                self.assertEqual(r['pair_run'], ['smoke', 'persist'])
            else:
                # a trust test stays on one kernel; a kernel test goes
                self.assertEqual(r['drop'], ['persist', 'crash'])
                self.assertEqual(r['pair_drop'], ['traces', 'faults',
                                                  'persist'])
                self.assertEqual(r['pair_run'], ['smoke', 'crash'])
        # the order a set runs in: core, trust, then the rest (from the
        # last to the first on the second kernel)
        r = self.pair(1000, 600)
        self.assertEqual(r['run'], ['traces', 'faults'])
        self.assertEqual(r['pair_run'], ['smoke', 'crash', 'faults',
                                         'persist'])
        r = self.pair(1000, 10000)
        self.assertEqual(r['run'], ['crash', 'traces', 'persist', 'faults'])
        self.assertEqual(r['pair_run'], ['smoke', 'crash', 'faults',
                                         'persist', 'traces'])

    def log_dir(self):
        logdir = os.path.join(self.dir.name, 'log')
        os.mkdir(logdir)
        with open(os.path.join(logdir, 'vm-a.log'), 'w',
                  encoding='utf-8') as f:
            f.write('PASS 6.1.0-57-amd64 smoke (20.0s)\n'
                    'PASS 6.1.0-57-amd64 reboot (7.5s)\n'
                    'PASS 6.1.0-57-amd64 reboot (7.5s)\n'
                    'PASS 6.1.0-57-amd64 persist (300.0s)\n'
                    'PASS 6.1.192-l2arc-debug kmemleak (no leak)\n')
        os.mkdir(os.path.join(logdir, 'pace-6.1.0-57-amd64'))
        with open(os.path.join(logdir, 'pace-6.1.0-57-amd64', 'output.log'),
                  'w', encoding='utf-8') as f:
            f.write('vm-pace: 3 rounds\npace 1713\n')
        return logdir

    def test_record(self):
        out = io.StringIO()
        self.tool.record(self.log_dir(), out)
        self.assertEqual(out.getvalue().splitlines(), [
            'columns 6.1', 'pace 6.1 1713', 'persist kernel 300.0',
            'reboot kernel 15.0', 'smoke kernel 20.0'])

    def test_record_over_a_base(self):
        # 6.1 ran smoke x2 and persist x3 of the base: the median ratio
        # (of two, the upper) x3 fills traces; other columns keep theirs
        out = io.StringIO()
        self.tool.record(self.log_dir(), out, self.dur)
        rows = {ln.split()[0]: ln.split()[1:]
                for ln in out.getvalue().splitlines()
                if ln and not ln.startswith('#')}
        self.assertEqual(rows['pace'], ['debug', '4000'])
        self.assertEqual(rows['smoke'], ['core', '20.0', '10.0', '40.0'])
        self.assertEqual(rows['traces'], ['same', '1200.0', '400.0', '-'])
        self.assertEqual(rows['persist'], ['kernel', '300.0', '100.0',
                                           '200.0'])
        self.assertEqual(rows['faults'], ['debug', '-', '-', '300.0'])
        self.assertIn('pace 6.1 1713', out.getvalue().splitlines())
        self.assertIn('boot 6.1 30', out.getvalue().splitlines())

    def test_debug_set_in_one_vm_where_that_ends_first(self):
        # halves: faults (300) first, then smoke + persist (240) only when
        # another VM ends at 1000; one VM: 40 + 200 + 300 + 20 = 560
        r = self.plan('--kernel', '6.1.192-l2arc-debug', '--pace', '4000',
                      '--halves', '--check-set', '--other-end', '1000')
        self.assertEqual(r['run'], ['faults', 'persist', 'smoke', 'traces'])
        self.assertEqual(r['run2'], [])
        self.assertEqual(r['end'], 560)


def have_kernels():
    return subprocess.run([os.path.join(TOP, 'scripts', 'kvers')],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


@unittest.skipUnless(have_kernels(), 'no Debian kernels (scripts/kvers)')
class CheckDryRunTest(unittest.TestCase):
    """scripts/check's plan at a fake pace: nothing boots."""

    def check(self, pace61, pacedbg):
        env = dict(os.environ, CHECK_DRY_RUN='1', CHECK_ELAPSED='300',
                   CHECK_PACE_6_1=str(pace61), CHECK_PACE_DEBUG=str(pacedbg))
        env.pop('CHECK_VM_BUDGET', None)
        r = subprocess.run([os.path.join(TOP, 'scripts', 'check')], env=env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r.stdout.splitlines()

    def test_faster_pace_plans_as_the_reference(self):
        def skips(out):
            return [ln for ln in out if ln.startswith('SKIP 6.1')]
        fast = self.check(600, 2200)
        ref = self.check(2082, 7371)
        self.assertTrue(skips(ref), ref)
        self.assertEqual(skips(fast), skips(ref))
        self.assertIn("plan: 6.1: pace 600 ms against 2082 (6.1's "
                      "reference), x1.00 (a faster pace plans as the "
                      "reference)", fast)

    def test_slow_machine_runs_each_same_test_once(self):
        out = self.check(3706, 8470)
        skips = {ln.split()[1]: set() for ln in out
                 if ln.startswith('SKIP 6.1')}
        for ln in out:
            if ln.startswith('SKIP 6.1'):
                skips[ln.split()[1]].add(ln.split()[2])
        k61 = [k for k in skips if k.startswith('6.1.0')][0]
        k612 = [k for k in skips if k.startswith('6.12')][0]
        self.assertTrue(skips[k61] and skips[k612], out)
        self.assertIn('arc-traces', skips[k61] ^ skips[k612])
        self.assertFalse(skips[k61] & skips[k612] & {'arc-traces', 'runs',
                                                     'whatif', 'counts'})
        left = [ln for ln in out if ln.startswith('left out on 6.1')]
        self.assertEqual(len(left), 2)
        # the debug kernel's set: named by its release once built, else
        # "debug" (a machine whose first make check is building it)
        dbg_set = re.compile(r'^plan: (\S+-l2arc-debug|debug): \d+ tests,')
        ends = [int(ln.split('end ')[1].split()[0]) for ln in out
                if 'predicted to end' in ln and not dbg_set.match(ln)]
        self.assertEqual(len(ends), 2, out)
        # every trust test stays on one Debian kernel at least, which
        # costs this slow machine's sets up to 13 min past the budget
        # (the deadline then stops them, the trust tests run first)
        trust = {'stale-read', 'l2-persist', 'l2-crash', 'l2-reboot',
                 'l2-persist-owner', 'l2-rebuild-online', 'l2-origin-flush',
                 'l2-origin-identity', 'l2-origin-claim', 'l2-origin-sample'}
        self.assertFalse(skips[k61] & skips[k612] & trust, out)
        self.assertTrue(all(e <= 68 for e in ends), out)
        # the debug set keeps only what is never left out (core, debug)
        dbg = [ln for ln in out if dbg_set.match(ln)]
        self.assertEqual(len(dbg), 1, out)
        self.assertIn(': 4 tests,', dbg[0])


if __name__ == '__main__':
    unittest.main()

# SPDX-License-Identifier: GPL-2.0-only
"""Host test: tests/run's oops_summary, the one line under a FAIL line that
names the first kernel oops of a test's log (its BUG line, RIP and call
trace), so that a CI excerpt keeps it when the log's tail does not."""
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, '..', 'run')

# the shape of a 6.12 oops in a test's log, followed by a second report
OOPS = """\
fio: some output
[   49.920001] BUG: kernel NULL pointer dereference, address: 0000000000000080
[   49.920002] #PF: supervisor read access in kernel mode
[   49.920003] Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI
[   49.920004] CPU: 0 UID: 0 PID: 260 Comm: fio Tainted: G           OE
[   49.920005] RIP: 0010:dm_bio_from_per_bio_data+0x5/0x30 [dm_mod]
[   49.920006] Code: 00 00 00
[   49.920007] Call Trace:
[   49.920008]  <TASK>
[   49.920009]  ? __die+0x23/0x70
[   49.920010]  ? page_fault_oops+0x173/0x5b0
[   49.920011]  l2arc_run_done+0x1d2/0x2a0 [dm_l2arc]
[   49.920012]  l2arc_run_endio+0x95/0xe0 [dm_l2arc]
[   49.920013]  __submit_bio+0x90/0x190
[   49.920014]  </TASK>
[   49.928539] FS:  00007f02ebf2ec40(0000) GS:ff43aca3fda00000(0000)
[   49.932285] WARNING: CPU: 0 PID: 260 at kernel/exit.c:892 do_exit+0x89f/0xaf0
[   49.935986] RIP: 0010:do_exit+0x89f/0xaf0
"""


def summary(text):
    with tempfile.NamedTemporaryFile('w', suffix='.log') as f:
        f.write(text)
        f.flush()
        script = ('eval "$(sed -n \'/^oops_summary()/,/^}/p\' "$1")"; '
                  'oops_summary "$2"')
        r = subprocess.run(['bash', '-c', script, 'bash', RUN, f.name],
                           capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


class OopsSummaryTest(unittest.TestCase):
    def test_first_oops_on_one_line(self):
        self.assertEqual(summary(OOPS), (0, (
            '  | first oops: BUG: kernel NULL pointer dereference, address: '
            '0000000000000080; RIP dm_bio_from_per_bio_data+0x5/0x30 '
            '[dm_mod]; calls: l2arc_run_done+0x1d2 < l2arc_run_endio+0x95 < '
            '__submit_bio+0x90\n'), ''))

    def test_61_bug_on(self):
        # 6.1's BUG_ON(): "kernel BUG at" and an oops header without
        # "Oops:" or "BUG:"
        self.assertEqual(summary(
            '[ 9.1] kernel BUG at drivers/md/dm-l2arc/io.c:12!\n'
            '[ 9.2] invalid opcode: 0000 [#1] PREEMPT SMP NOPTI\n'
            '[ 9.3] RIP: 0010:l2arc_map+0x10/0x90 [dm_l2arc]\n'
            '[ 9.4] Call Trace:\n'
            '[ 9.5]  __map_bio+0x40/0x1d0 [dm_mod]\n'
            '[ 9.6]  </TASK>\n'), (0, (
                '  | first oops: kernel BUG at drivers/md/dm-l2arc/io.c:12!; '
                'RIP l2arc_map+0x10/0x90 [dm_l2arc]; calls: '
                '__map_bio+0x40\n'), ''))

    def test_no_oops_no_line(self):
        self.assertEqual(summary('FAIL: brd is in use\n[ 1.0] brd: module '
                                 'loaded\n'), (0, '', ''))


if __name__ == '__main__':
    unittest.main()

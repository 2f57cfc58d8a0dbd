# SPDX-License-Identifier: GPL-2.0-only
"""Host-side tests of scripts/bench-report, the bench's report.md.

Run:  python3 -m unittest discover -s tests/tools -p 'test_*.py'
"""
import contextlib
import importlib.machinery
import importlib.util
import os
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
TOOL = os.path.join(TOP, 'scripts', 'bench-report')


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


ROWS = [
    '1\tl2arc\tpass 1 throughput\t1.5e+08\tB/s\tcache, pass 1\tn/a\t>= 0.8',
    '1\tcache\tpass 1 throughput\t2.5e+08\tB/s\t-\t-\t',
    '2\tl2arc\tsteady IOPS\t12345.6\tiops\tcache\tn/a\t',
    '2\tcache\tsteady IOPS\t20000\tiops\t-\t-\t',
    '5\tl2arc\tmem\t23.96\tB/blk\tgoal\t24\t<= 24',
    '8\tl2arc\tnet\tn/a\tiops\tdm-linear\t5\t',
]


class BenchReportTest(unittest.TestCase):
    def setUp(self):
        self.r = load('bench_report', TOOL)

    def test_cache_baselines_filled_in(self):
        fixed = self.r.fix_rows(ROWS)
        self.assertEqual(fixed[0].split('\t')[6], '2.5e+08')
        self.assertEqual(fixed[2].split('\t')[6], '20000')
        self.assertEqual(fixed[4:], ROWS[4:])

    def test_table(self):
        t = self.r.md_table('1', self.r.fix_rows(ROWS)).splitlines()
        self.assertEqual(t[2], '| l2arc | pass 1 throughput | 150.0 MB/s | '
                         'cache, pass 1 | 250.0 MB/s | 0.60 | >= 0.8 |')
        t = self.r.md_table('5', ROWS).splitlines()
        self.assertEqual(t[2], '| l2arc | mem | 24.0 B/block | goal | '
                         '24.0 B/block | 1.00 | <= 24 |')
        t = self.r.md_table('8', ROWS).splitlines()
        self.assertEqual(t[2], '| l2arc | net | n/a | dm-linear | 5 IOPS | n/a |  |')

    def test_whatif_on_off_rows(self):
        # the rows bench-guest's pc_pair writes with a what-if-off twin
        rows = [
            '4\tl2arc all-ARC-hit 4K\t4 KiB random IOPS, what-if on vs off\t97012.4'
            '\tiops\tl2arc all-ARC-hit 4K, whatif 0\t100000\t>= 0.97',
            '4\tl2arc all-ARC-hit 4K\t1 MiB sequential, what-if on vs off\t1.9e+09'
            '\tB/s\tl2arc all-ARC-hit 4K, whatif 0\t2e+09\t>= 0.97',
        ]
        t = self.r.md_table('4', rows).splitlines()
        self.assertEqual(t[2], '| l2arc all-ARC-hit 4K | 4 KiB random IOPS, what-if on vs off | '
                         '97012 IOPS | l2arc all-ARC-hit 4K, whatif 0 | 100000 IOPS | 0.97 | >= 0.97 |')
        self.assertEqual(t[3], '| l2arc all-ARC-hit 4K | 1 MiB sequential, what-if on vs off | '
                         '1900.0 MB/s | l2arc all-ARC-hit 4K, whatif 0 | 2000.0 MB/s | 0.95 | >= 0.97 |')

    def test_sed_prefix(self):
        self.assertEqual(self.r.prefix_lines('a\nb', '- '), '- a\n- b')
        self.assertEqual(self.r.prefix_lines('a\n', '- '), '- a\n')
        self.assertEqual(self.r.prefix_lines('', '- '), '')

    def test_report_without_env_fails(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, 'raw'))
            with open(os.devnull, 'w', encoding='utf-8') as null:
                with contextlib.redirect_stderr(null):
                    self.assertEqual(self.r.report(d), 1)

    def test_report_sections(self):
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, 'raw')
            os.mkdir(raw)
            with open(os.path.join(raw, 'env.txt'), 'w', encoding='utf-8') as f:
                f.write('date=2026-12-03 11:47 UTC\nquick=1\nworkloads=1,2\n')
            with open(os.path.join(raw, 'rows.tsv'), 'w', encoding='utf-8') as f:
                f.write('\n'.join(ROWS[:2]) + '\n')
            self.assertEqual(self.r.report(d), 0)
            with open(os.path.join(d, 'report.md'), encoding='utf-8') as f:
                md = f.read()
            self.assertIn('Mode: **QUICK (small scale), workloads 1,2 only (-w)**', md)
            self.assertIn('| l2arc | pass 1 throughput | 150.0 MB/s |', md)
            self.assertIn('(no numbers: the workload did not run or broke', md)
            self.assertIn('(not run: the run chose workloads 1,2 with -w)', md)


if __name__ == '__main__':
    unittest.main()

# SPDX-License-Identifier: GPL-2.0-only
"""Host-side tests of scripts/bench-report, the bench's report.md.

Run:  python3 -m unittest discover -s tests/tools -p 'test_*.py'
"""
import contextlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
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

# a what-if table in /proc/dm-l2arc/<dm>/whatif's form, shortened ladders
WHATIF = """whatif          1
block_bytes     4096
sample_arc      1.000000
sample_l2       0.125000
memory_bytes    3211264
dropped         0
level      factor       blocks          bytes   sample      reads       hits    l2_hits  hit_pct
arc         0.125          128         524288      128       1000        300          0  30.0000
arc         1.000         1024        4194304     1024       1000        500          0  50.0000
arc         8.000         8192       33554432     8192       1000        900          0  90.0000
arc_actual  1.000         1024        4194304        0       1000        480         30  51.0000
l2          0.000            0              0        0        125         60          0  48.0000
l2          1.000         8192       33554432     1024        125         60         40  80.0000
l2_actual   1.000         8192       33554432        0        125         61         30  72.8000
"""
WHATIF_LINE = ('l2arc: sample_arc 1.000000, sample_l2 0.125000, memory 3.1 MiB, '
               'dropped 0; 1000 sampled reads; ARC at arc_max: predicted 50.0 %, '
               "actual 48.0 %; ARC + L2 at the cache device's size: predicted 80.0 %, "
               'actual 72.8 %')


def slurp(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def raw_dir(d, files):
    """D/raw/ with FILES ({name: text}); its path."""
    raw = os.path.join(d, 'raw')
    os.mkdir(raw)
    for name, text in files.items():
        with open(os.path.join(raw, name), 'w', encoding='utf-8') as f:
            f.write(text)
    return raw


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
        # the rows bench-guest's pc_pair writes with a what-if-on twin
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

    def test_whatif_parse(self):
        head, rows = self.r.whatif_parse(WHATIF)
        self.assertEqual(head, {'whatif': '1', 'block_bytes': '4096',
                                'sample_arc': '1.000000', 'sample_l2': '0.125000',
                                'memory_bytes': '3211264', 'dropped': '0'})
        self.assertEqual(len(rows), 7)
        self.assertEqual(rows[3], {'level': 'arc_actual', 'factor': '1.000',
                                   'blocks': '1024', 'bytes': '4194304', 'sample': '0',
                                   'reads': '1000', 'hits': '480', 'l2_hits': '30',
                                   'hit_pct': '51.0000'})
        self.assertEqual(self.r.whatif_parse('whatif          0\n'), ({'whatif': '0'}, []))

    def test_whatif_points(self):
        # l2 rows stand at arc_max (4 MiB) + their L2 size; the ARC's
        # actual point counts its own hits, not the device's L2 hits
        self.assertEqual(self.r.whatif_points(self.r.whatif_parse(WHATIF)[1]), {
            'arc': [(0.5, 30.0), (4.0, 50.0), (32.0, 90.0)],
            'arc_actual': [(4.0, 48.0)],
            'l2': [(4.0, 48.0), (36.0, 80.0)],
            'l2_actual': [(36.0, 72.8)]})

    def test_whatif_line(self):
        self.assertEqual(self.r.whatif_line('l2arc', WHATIF), WHATIF_LINE)
        # without a cache device: no l2 rows, no L2 part
        no_l2 = '\n'.join(ln for ln in WHATIF.split('\n') if not ln.startswith('l2'))
        self.assertEqual(self.r.whatif_line('l2arc', no_l2),
                         WHATIF_LINE.split('; ARC + L2')[0])
        self.assertEqual(self.r.whatif_line('l2arc-tiny', 'whatif          0\n'),
                         'l2arc-tiny: what-if off (raw/whatif_l2arc-tiny.txt: whatif 0)')

    def test_report_whatif(self):
        with tempfile.TemporaryDirectory() as d:
            raw = raw_dir(d, {
                'env.txt': 'date=2026-12-03 18:00 UTC\nquick=1\nworkloads=2\n',
                'rows.tsv': ROWS[2] + '\n', 'whatif_l2arc.txt': WHATIF})
            self.assertEqual(self.r.report(d), 0)
            self.assertEqual(slurp(os.path.join(raw, 'whatif_l2arc_l2.tsv')),
                             '4\t48.0000\n36\t80.0000\n')
            self.assertEqual(slurp(os.path.join(raw, 'whatif_l2arc_arc_actual.tsv')),
                             '4\t48.0000\n')
            md = slurp(os.path.join(d, 'report.md'))
            self.assertIn('\n- ' + WHATIF_LINE + '\n\n## 3.', md)
            png = os.path.isfile(os.path.join(d, 'whatif_l2arc.png'))
            self.assertEqual('![what-if l2arc](whatif_l2arc.png)' in md, png)
            if shutil.which('gnuplot'):
                self.assertTrue(png)

    def test_report_cpu_ceilings(self):
        ceiling = ('4\tl2arc all-L2-hit 4K\t1 MiB sequential, vs its CPU ceiling'
                   '\t8e+07\tB/s\tits CPU ceiling: the raw cache device or crc32c'
                   '\t1e+08\t')
        with tempfile.TemporaryDirectory() as d:
            raw_dir(d, {
                'env.txt': ('date=2026-12-04 16:00 UTC\nquick=1\nworkloads=4\n'
                            'crc32c=crc32c-intel\ncrc32c_mbps=100\ncopy_mbps=1700\n'),
                'rows.tsv': ceiling + '\n'})
            self.assertEqual(self.r.report(d), 0)
            md = slurp(os.path.join(d, 'report.md'))
            self.assertIn('crc32c crc32c-intel at 100 MB/s,\n'
                          'a copy at 1700 MB/s (', md)
            self.assertIn('| l2arc all-L2-hit 4K | 1 MiB sequential, vs its CPU ceiling '
                          '| 80.0 MB/s | its CPU ceiling: the raw cache device or crc32c '
                          '| 100.0 MB/s | 0.80 |  |', md)

    def test_report_platform(self):
        # a UML run's env says so; a run from before the platform line was
        # a VM's
        env = 'date=2026-12-06 08:00 UTC\nquick=1\nworkloads=4\nvm_mem_mib=1494\n'
        uml = ('platform=UML (User-Mode Linux: native code, one CPU, as a process '
               'of the host; dm-l2arc, null_blk and brd built in)\n')
        for extra, want in (('', 'One VM (QEMU TCG, 2 vCPUs, 1494 MiB), kernel'),
                            (uml, 'One UML kernel (native code, one CPU, 1494 MiB), kernel')):
            with tempfile.TemporaryDirectory() as d:
                raw_dir(d, {'env.txt': env + extra, 'rows.tsv': ''})
                self.assertEqual(self.r.report(d), 0)
                self.assertIn('Mode: **QUICK (small scale), workloads 4 only (-w)**. '
                              + want, slurp(os.path.join(d, 'report.md')))

    def test_bench_uml_runs_workload_4_only(self):
        # refused before anything is built or booted
        for args, code in ((['-w', '1'], 64), (['-w', '4,8'], 64)):
            p = subprocess.run([os.path.join(TOP, 'scripts', 'bench'), '-k', 'uml'] + args,
                               capture_output=True, text=True, timeout=60, check=False)
            self.assertEqual(p.returncode, code)
            self.assertIn('bench: -k uml runs workload 4 only (got -w ' + args[1] + ')',
                          p.stderr)
            self.assertEqual(p.stdout, '')

    def test_vm_run_kernel_issues(self):
        # the problem lines of a console log that vm-run did not write (the
        # bench's UML kernel): timestamps cut, once each, user lines left
        console = ('[    0.100000] Linux version 6.1.192\n'
                   '[bench] 08:00:00 workload 4\n'
                   '[    5.200000] WARNING: CPU: 0 PID: 9 at drivers/md/x.c:1 f+0x1/0x2\n'
                   '[    5.300000] invalid opcode: 0000 [#1] PREEMPT SMP\n'
                   '[    6.100000] WARNING: CPU: 0 PID: 9 at drivers/md/x.c:1 f+0x1/0x2\n'
                   'WARNING: a user line, not the kernel\'s\n')
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, 'console.log')
            with open(log, 'w', encoding='utf-8') as f:
                f.write(console)
            p = subprocess.run([os.path.join(TOP, 'scripts', 'vm-run'), '--kernel-issues', log],
                               capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stdout, 'WARNING: CPU: 0 PID: 9 at drivers/md/x.c:1 f+0x1/0x2\n'
                                   'invalid opcode: 0000 [#1] PREEMPT SMP\n')

    def test_report_without_whatif(self):
        with tempfile.TemporaryDirectory() as d:
            raw_dir(d, {})
            self.assertEqual(self.r.whatif_section(d), '')

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
            raw_dir(d, {'env.txt': 'date=2026-12-03 11:47 UTC\nquick=1\nworkloads=1,2\n',
                        'rows.tsv': '\n'.join(ROWS[:2]) + '\n'})
            self.assertEqual(self.r.report(d), 0)
            md = slurp(os.path.join(d, 'report.md'))
            self.assertIn('Mode: **QUICK (small scale), workloads 1,2 only (-w)**', md)
            self.assertIn('| l2arc | pass 1 throughput | 150.0 MB/s |', md)
            self.assertIn('(no numbers: the workload did not run or broke', md)
            self.assertIn('(not run: the run chose workloads 1,2 with -w)', md)


if __name__ == '__main__':
    unittest.main()

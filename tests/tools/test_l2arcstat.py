# SPDX-License-Identifier: GPL-2.0-only
"""Host-side tests of scripts/l2arcstat on fake /proc and /sys trees.

Run:  python3 -m unittest discover -s tests/tools -p 'test_*.py'

Also provides parse_prometheus(), a small strict parser of the Prometheus
text exposition format, used by tests/vm/60-l2arcstat.sh.
"""
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from scriptmod import load_script

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
TOOL = os.path.join(TOP, 'scripts', 'l2arcstat')



def load_tool():
    return load_script('l2arcstat')


# ------------------------------------------------------------ prometheus
_NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
_LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
_SAMPLE = re.compile(r'(%s)(?:\{(.*)\})? (\S+)(?: (-?[0-9]+))?' % _NAME)
_TYPES = {'counter', 'gauge', 'histogram', 'summary', 'untyped'}


def parse_prometheus(text):
    """Parse the text format strictly.

    Returns {family: {'help': str, 'type': str,
                      'samples': {(('label', 'value'), ...): float}}}.
    Raises ValueError on: a missing final newline, blank lines, a bad HELP
    or TYPE line, a second HELP/TYPE for a family, TYPE after the
    family's samples, samples of a family not contiguous, bad names,
    labels or values, duplicate series, a counter with a negative value.
    """
    if not text.endswith('\n'):
        raise ValueError('no newline at the end')
    fams = {}
    done = set()            # families whose samples are finished
    cur = None              # family of the last sample

    def fam(name):
        return fams.setdefault(name, {'help': None, 'type': None, 'samples': {}})

    for n, line in enumerate(text[:-1].split('\n'), 1):
        where = 'line %d: %r' % (n, line)
        if line == '':
            raise ValueError('blank ' + where)
        if line.startswith('#'):
            m = re.fullmatch(r'# (HELP|TYPE) (%s)(?: (.*))?' % _NAME, line)
            if not m:
                if re.match(r'#\s*(HELP|TYPE)\b', line):
                    raise ValueError('bad ' + where)
                continue        # a plain comment
            kind, name, rest = m.group(1), m.group(2), m.group(3) or ''
            f = fam(name)
            if kind == 'HELP':
                if f['help'] is not None:
                    raise ValueError('second HELP, ' + where)
                if re.search(r'\\[^\\n]', rest):
                    raise ValueError('bad escape in HELP, ' + where)
                f['help'] = rest
            else:
                if f['type'] is not None:
                    raise ValueError('second TYPE, ' + where)
                if f['samples']:
                    raise ValueError('TYPE after samples, ' + where)
                if rest not in _TYPES:
                    raise ValueError('bad type, ' + where)
                f['type'] = rest
            continue
        m = _SAMPLE.fullmatch(line)
        if not m:
            raise ValueError('bad sample ' + where)
        name, lbl, val = m.group(1), m.group(2), m.group(3)
        labels = []
        if lbl:
            pos = 0
            while pos < len(lbl):
                lm = re.compile(_LABEL).match(lbl, pos)
                if not lm:
                    raise ValueError('bad labels, ' + where)
                labels.append((lm.group(1), lm.group(2)))
                pos = lm.end()
                if pos < len(lbl):
                    if lbl[pos] != ',':
                        raise ValueError('bad labels, ' + where)
                    pos += 1
            if len({k for k, _ in labels}) != len(labels):
                raise ValueError('duplicate label, ' + where)
        if val not in ('NaN', '+Inf', '-Inf'):
            if not re.fullmatch(r'[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?', val):
                raise ValueError('bad value, ' + where)
        v = float(val)
        if name != cur:
            if name in done:
                raise ValueError('samples of %s not together, %s' % (name, where))
            if cur is not None:
                done.add(cur)
            cur = name
        f = fam(name)
        key = tuple(sorted(labels))
        if key in f['samples']:
            raise ValueError('duplicate series, ' + where)
        if f['type'] == 'counter' and v < 0:
            raise ValueError('negative counter, ' + where)
        f['samples'][key] = v
    return fams


# -------------------------------------------------------------- fake tree
# The rows of dm-l2arc/stats.c, in order.
ROWS = '''hits iohits misses demand_data_hits demand_data_iohits
demand_data_misses prefetch_data_hits prefetch_data_iohits
prefetch_data_misses mru_hits mru_ghost_hits mfu_hits mfu_ghost_hits
deleted hash_elements hash_elements_max p c c_min c_max size hdr_size
data_size mru_size mru_ghost_size mfu_size mfu_ghost_size
predictive_prefetch demand_hit_predictive_prefetch memory_throttle_count
evict_l2_cached evict_l2_eligible evict_l2_ineligible l2_ndev l2_hits
l2_misses l2_feeds l2_rw_clash l2_read_bytes l2_write_bytes
l2_writes_sent l2_writes_done l2_writes_error l2_evict_reading
l2_evict_l1cached l2_abort_lowmem l2_cksum_bad l2_io_error l2_size
l2_asize l2_hdr_size l2_prefetch_asize l2_mru_asize l2_mfu_asize
fills_discarded origin_read_errors writes write_invalidates arc_shrinks
mru_blocks mfu_blocks mru_ghost_blocks mfu_ghost_blocks l2_evict_ahead
l2_hdr_dropped l2_only_blocks l2_laps l2_degraded reads_around_writes
l2_write_invalidates lock_hold_max_us buf_pool_size read_bios fill_runs
fill_run_blocks l2_read_runs l2_read_run_blocks runs_deferred
prefetch_evicted_unused fill_run_bridged hash_table_size'''.split()

SEC = 10 ** 9


def kstat_text(vals, kid=1, crtime=5 * SEC, snaptime=10 * SEC, nrows=None):
    """A file as stats.c's l2arc_kstat_show() prints it."""
    rows = len(ROWS) if nrows is None else nrows
    out = ['%d 1 0x01 %d %d %d %d' % (kid, rows, rows * 272, crtime, snaptime),
           '%-31s %-4s %s' % ('name', 'type', 'data')]
    for r in ROWS:
        out.append('%-31s %-4d %d' % (r, 4, vals.get(r, 0)))
    return '\n'.join(out) + '\n'


# The what-if of dm-l2arc/whatif.c: a 128 MiB ARC (32768 blocks) and a
# 1 GiB cache device (262144 slots), (fraction, hits) of the ARC ladder's
# 10000 sampled reads and (fraction, L2 hits) of the L2 ladder's 1250 (600
# ARC hits each).
WHATIF_HEAD_FMT = '%-15s %s'
WHATIF_ROW_FMT = '%-10s %.3f %12d %14d %8d %10d %10d %10d %.4f'
ARC_HITS = [(0.125, 3000), (0.25, 3500), (0.5, 4200), (1, 5000), (2, 5800), (4, 6100),
            (8, 6200)]
L2_HITS = [(0, 0), (0.125, 100), (0.25, 200), (0.5, 300), (1, 400), (2, 500), (4, 550),
           (8, 560)]


def whatif_file(arc=ARC_HITS, actual=4800, actual_l2=0, reads=10000, l2=L2_HITS,
                l2_actual=(590, 380),
                l2_reads=1250, l2_arc_hits=600, arc_blocks=32768, slots=262144,
                block=4096):
    """A whatif file as l2arc_whatif_show() prints it (4 KiB blocks, 2048
    sampled blocks at 1x: 1 in 16 of the ARC's, 1 in 128 of the L2's)."""
    head = [('whatif', 1), ('block_bytes', block), ('sample_arc', '0.062500'),
            ('sample_l2', '0.007813' if l2 else '0.000000'), ('memory_bytes', 3211264),
            ('dropped', 7)]
    out = [WHATIF_HEAD_FMT % kv for kv in head]
    out.append('%-10s %6s %12s %14s %8s %10s %10s %10s %8s' % (
        'level', 'factor', 'blocks', 'bytes', 'sample', 'reads', 'hits', 'l2_hits',
        'hit_pct'))

    def row(level, f, blocks, sample, r, h, l2h):
        return WHATIF_ROW_FMT % (level, f, blocks, blocks * block, sample, r, h, l2h,
                                 100.0 * (h + l2h) / r if r else 0)
    for f, h in arc:
        out.append(row('arc', f, int(arc_blocks * f), int(2048 * f), reads, h, 0))
    out.append(row('arc_actual', 1, arc_blocks, 0, reads, actual, actual_l2))
    if l2:
        for f, h in l2:
            out.append(row('l2', f, int(slots * f), int(2048 * f), l2_reads, l2_arc_hits,
                           h))
        out.append(row('l2_actual', 1, slots, 0, l2_reads, *l2_actual))
    return '\n'.join(out) + '\n'


# A flat curve without a cache device: the actual point is the 1x one.
FLAT = [(0.125, 2000), (0.25, 2000), (0.5, 2100), (1, 2200), (2, 2200), (4, 2250),
        (8, 2250)]
WHATIF_OFF = 'whatif          0\n'


class Tree:
    """A fake /proc and /sys under a temporary directory."""

    def __init__(self, base):
        self.proc = os.path.join(base, 'proc')
        self.sys = os.path.join(base, 'sys')
        os.makedirs(self.proc)
        os.makedirs(os.path.join(self.sys, 'block'))

    def load(self):
        os.makedirs(os.path.join(self.proc, 'dm-l2arc'), exist_ok=True)
        self.write_sum()

    def write(self, path, text):
        tmp = path + '.tmp'
        with open(tmp, 'w') as fh:
            fh.write(text)
        os.replace(tmp, path)

    def devs(self):
        root = os.path.join(self.proc, 'dm-l2arc')
        return sorted(e for e in os.listdir(root) if e.startswith('dm-'))

    def members(self):
        """Kernel names of the pools' members (their origins files)."""
        out = set()
        for k in self.devs():
            path = os.path.join(self.proc, 'dm-l2arc', k, 'origins')
            if os.path.exists(path):
                with open(path) as fh:
                    out |= {line.split()[-1] for line in fh.read().split('\n')[1:] if line}
        return out

    def origins(self, minor, members, snaptime=10 * SEC):
        """Make dm-<minor> a pool whose members are the minors @members."""
        lines = ['id name arc_size hits iohits misses arc_min l2_size l2_hits '
                 'l2_misses l2_write_bytes device']
        for i, m in enumerate(members, 1):
            lines.append('%d vol%d 0 0 0 0 0 0 0 0 0 dm-%d' % (i, m, m))
        self.write(os.path.join(self.proc, 'dm-l2arc', 'dm-%d' % minor, 'origins'),
                   '\n'.join(lines) + '\n')
        self.write_sum(snaptime)

    def write_sum(self, snaptime=10 * SEC):
        total = {}
        crtime = 1 * SEC
        members = self.members()        # the kernel sums pools, not members
        for k in self.devs():
            if k in members:
                continue
            with open(os.path.join(self.proc, 'dm-l2arc', k, 'arcstats')) as fh:
                for line in fh.read().split('\n')[2:-1]:
                    n, _, v = line.split()
                    total[n] = total.get(n, 0) + int(v)
        self.write(os.path.join(self.proc, 'dm-l2arc', 'arcstats'),
                   kstat_text(total, kid=0, crtime=crtime, snaptime=snaptime))

    def add(self, minor, name, vals, crtime=5 * SEC, snaptime=10 * SEC, text=None):
        k = 'dm-%d' % minor
        d = os.path.join(self.proc, 'dm-l2arc', k)
        os.makedirs(d, exist_ok=True)
        self.write(os.path.join(d, 'arcstats'),
                   text if text is not None else
                   kstat_text(vals, kid=minor + 1, crtime=crtime, snaptime=snaptime))
        s = os.path.join(self.sys, 'block', k, 'dm')
        os.makedirs(s, exist_ok=True)
        with open(os.path.join(s, 'name'), 'w') as fh:
            fh.write(name + '\n')
        self.write_sum(snaptime)

    def whatif(self, minor, text):
        self.write(os.path.join(self.proc, 'dm-l2arc', 'dm-%d' % minor, 'whatif'), text)

    def remove(self, minor, snaptime=10 * SEC):
        k = 'dm-%d' % minor
        shutil.rmtree(os.path.join(self.proc, 'dm-l2arc', k))
        shutil.rmtree(os.path.join(self.sys, 'block', k))
        self.write_sum(snaptime)


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tool = load_tool()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='l2arcstat-test.')
        self.addCleanup(shutil.rmtree, self.tmp)
        self.t = Tree(self.tmp)

    def run_tool(self, *args, between=None):
        """main() in-process; between(n) runs instead of the n-th sleep.

        Returns (exit status, stdout, stderr).
        """
        mod = self.tool
        calls = []
        real_sleep = mod.time.sleep

        def fake_sleep(secs):
            calls.append(secs)
            if between is not None:
                between(len(calls))
        mod.time.sleep = fake_sleep
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    rc = mod.main(['-p', self.t.proc, '-s', self.t.sys] + list(args))
                except SystemExit as e:
                    rc = e.code
        finally:
            mod.time.sleep = real_sleep
        return rc, out.getvalue(), err.getvalue()

    def ok(self, *args, **kw):
        rc, out, err = self.run_tool(*args, **kw)
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, '')
        return out


# ------------------------------------------------------------------ tests
class TestParse(Base):
    def test_module_format(self):
        ks = self.tool.parse_kstat(kstat_text({'hits': 7, 'l2_size': 1 << 40}))
        self.assertEqual(list(ks.rows), ROWS)
        self.assertEqual(ks.rows['hits'], 7)
        self.assertEqual(ks.rows['l2_size'], 1 << 40)
        self.assertEqual((ks.kid, ks.crtime, ks.snaptime), (1, 5 * SEC, 10 * SEC))

    def bad(self, text, msg):
        with self.assertRaises(self.tool.Error) as cm:
            self.tool.parse_kstat(text, 'F')
        self.assertIn(msg, str(cm.exception))

    def test_malformed(self):
        good = kstat_text({})
        lines = good.split('\n')
        self.bad(kstat_text({}, nrows=len(ROWS) + 1),
                 'header says %d rows, file has %d' % (len(ROWS) + 1, len(ROWS)))
        self.bad('\n'.join(lines[:-2]) + '\n',
                 'header says %d rows, file has %d' % (len(ROWS), len(ROWS) - 1))
        self.bad(good.replace(' %d ' % (len(ROWS) * 272), ' 1 ', 1), 'data size')
        self.bad(good.replace('0x01 ', '0x01 x '), 'malformed header')
        self.bad(good.replace('name                            type data',
                              'name type value'), 'second line')
        self.bad(good.replace('hits                            4    0',
                              'hits                            4    0 0', 1),
                 'malformed row')
        self.bad(good.replace('misses ', 'hits   ', 1), 'duplicate row hits')
        self.bad(good.replace('iohits                          4    0',
                              'iohits                          4    -1'),
                 'unsupported type or value')
        self.bad(good.replace('iohits                          4    0',
                              'iohits                          4    x'),
                 'malformed row')
        self.bad(good[:-1], 'newline')
        self.bad('', 'no header')


class TestErrors(Base):
    def test_module_not_loaded(self):
        rc, out, err = self.run_tool()
        self.assertEqual(rc, 1)
        self.assertEqual(out, '')
        self.assertIn('dm-l2arc module not loaded', err)

    def test_no_devices(self):
        self.t.load()
        for args in ((), ('1', '1'), ('-o', 'json'), ('-o', 'prometheus'),
                     ('-d', 'x')):
            rc, out, err = self.run_tool(*args)
            self.assertEqual(rc, 1, args)
            self.assertEqual(err, 'l2arcstat: no dm-l2arc devices\n', args)
            self.assertEqual(out, '', args)
            self.assertNotIn('Traceback', err)

    def test_malformed_file_cli(self):
        self.t.load()
        self.t.add(3, 'c0', {'hits': 1})
        text = kstat_text({'hits': 1}, nrows=len(ROWS) - 1)
        self.t.add(3, 'c0', {}, text=text)
        rc, out, err = self.run_tool('-d', 'c0')
        self.assertEqual(rc, 1)
        self.assertIn('dm-3/arcstats: header says %d rows, file has %d'
                      % (len(ROWS) - 1, len(ROWS)), err)
        rc, out, err = self.run_tool()      # the summed view reads it too
        self.assertEqual(rc, 1)
        self.assertIn('header says', err)

    def test_unknown_device_and_field(self):
        self.t.load()
        self.t.add(3, 'c0', {})
        rc, _, err = self.run_tool('-d', 'nosuch')
        self.assertEqual(rc, 1)
        self.assertIn('no device-mapper device named nosuch', err)
        os.makedirs(os.path.join(self.t.sys, 'block', 'dm-9', 'dm'))
        with open(os.path.join(self.t.sys, 'block', 'dm-9', 'dm', 'name'), 'w') as fh:
            fh.write('linear0\n')
        rc, _, err = self.run_tool('-d', 'linear0')
        self.assertEqual(rc, 1)
        self.assertIn('linear0 (dm-9) is not a live dm-l2arc device', err)
        rc, _, err = self.run_tool('-f', 'read,bogus')
        self.assertEqual(rc, 1)
        self.assertIn('unknown field(s): bogus', err)

    def test_usage_errors(self):
        self.t.load()
        self.t.add(3, 'c0', {})
        for args in (('0',), ('-1',), ('x',), ('1', '0'), ('-o', 'xml'), ('1', '2', '3')):
            rc, _, _ = self.run_tool(*args)
            self.assertEqual(rc, 2, args)

    def test_cli_executable(self):
        """The script runs as a program (shebang, mode) and exits 1."""
        p = subprocess.run([TOOL, '-p', self.t.proc], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'l2arcstat: dm-l2arc module not loaded (no %s)\n'
                         % os.path.join(self.t.proc, 'dm-l2arc'))
        with open(TOOL) as fh:
            self.assertIn('# SPDX-License-Identifier: GPL-2.0-only', fh.read(200))


V1 = {'hits': 1000, 'iohits': 10, 'misses': 500, 'mru_hits': 200, 'mfu_hits': 800,
      'mru_ghost_hits': 30, 'mfu_ghost_hits': 20, 'size': 3 << 20, 'c': 64 << 20,
      'l2_hits': 100, 'l2_misses': 400, 'l2_size': 5 << 30, 'l2_asize': 5 << 30,
      'l2_read_bytes': 100 << 12, 'l2_write_bytes': 1 << 30, 'demand_data_hits': 1000,
      'demand_data_misses': 500, 'demand_data_iohits': 10}
# 2 s later: +300 hits, +25 iohits, +175 misses (read 500), ...
V2 = dict(V1, hits=1300, iohits=35, misses=675, mru_hits=260, mfu_hits=1040,
          mru_ghost_hits=55, mfu_ghost_hits=20, size=4 << 20, c=60 << 20,
          l2_hits=160, l2_misses=440, l2_size=6 << 30, l2_asize=6 << 30,
          l2_read_bytes=(100 + 60) << 12, l2_write_bytes=(1 << 30) + (8 << 20),
          demand_data_hits=1300, demand_data_iohits=35, demand_data_misses=675)


class TestRows(Base):
    def setUp(self):
        super().setUp()
        self.t.load()
        self.t.add(3, 'cache0', V1, snaptime=10 * SEC)

    def step(self, vals, snaptime=12 * SEC):
        def between(n):
            if n == 1:
                self.t.add(3, 'cache0', vals, snaptime=snaptime)
        return between

    def test_interval_json_exact(self):
        out = self.ok('-d', 'cache0', '-o', 'json', '2', '1', between=self.step(V2))
        lines = out.splitlines()
        self.assertEqual(len(lines), 1)
        o = json.loads(lines[0])
        self.assertEqual(o['device'], 'cache0')
        self.assertEqual(o['kernel_name'], 'dm-3')
        self.assertEqual(o['interval'], 2.0)
        self.assertFalse(o['since_creation'])
        self.assertEqual(o['counters']['hits'], 300)
        self.assertEqual(o['counters']['iohits'], 25)
        self.assertEqual(o['counters']['misses'], 175)
        self.assertEqual(o['gauges']['size'], 4 << 20)
        self.assertEqual(o['read'], 250.0)                  # 500 reads / 2 s
        self.assertEqual(o['hit%'], 100.0 * 300 / 500)      # 60
        self.assertEqual(o['ioh%'], 100.0 * 25 / 500)       # 5
        self.assertEqual(o['miss%'], 100.0 * 175 / 500)     # 35
        self.assertEqual(o['mru%'], 100.0 * 60 / 500)
        self.assertEqual(o['mfu%'], 100.0 * 240 / 500)
        self.assertEqual(o['mrug%'], 100.0 * 25 / 500)
        self.assertEqual(o['mfug%'], 0)
        self.assertEqual(o['l2hit%'], 100.0 * 60 / 100)
        self.assertEqual(o['l2miss%'], 100.0 * 40 / 100)
        self.assertEqual(o['arcsz'], 4 << 20)
        self.assertEqual(o['c'], 60 << 20)
        self.assertEqual(o['l2size'], 6 << 30)
        self.assertEqual(o['l2read'], (60 << 12) / 2)
        self.assertEqual(o['l2write'], (8 << 20) / 2)
        self.assertEqual(o['ddh%'], 60.0)

    def test_interval_text(self):
        out = self.ok('-d', 'dm-3', '2', '1', between=self.step(V2))
        head, row = out.splitlines()
        self.assertEqual(head.split(), self.tool.DEFAULT_FIELDS)
        f = row.split()
        self.assertRegex(f[0], r'^\d\d:\d\d:\d\d$')
        self.assertEqual(f[1:], ['250', '60', '35', '5', '4.0M', '60M', '12', '48', '5',
                                 '0', '60', '6.0G', '120K', '4.0M'])
        # columns line up with the header
        self.assertEqual(len(head), len(row))

    def test_totals(self):
        # no INTERVAL: totals since creation (crtime 5 s, snaptime 10 s)
        out = self.ok('-d', 'cache0', '-o', 'json')
        o = json.loads(out)
        self.assertTrue(o['since_creation'])
        self.assertEqual(o['interval'], 5.0)
        self.assertEqual(o['counters']['hits'], 1000)
        self.assertEqual(o['hit%'], 100.0 * 1000 / 1510)
        self.assertEqual(o['read'], 1510 / 5.0)
        self.assertEqual(o['l2hit%'], 20.0)
        out = self.ok('-f', 'hits,miss,hit%,l2hit%', '-d', 'cache0')
        self.assertEqual(out.splitlines()[1].split(), ['200', '100', '66', '20'])
        # the summed file's crtime is the module's (1 s): 9 s of averages
        o = json.loads(self.ok('-o', 'json'))
        self.assertEqual(o['interval'], 9.0)
        self.assertEqual(o['hits'], 1000 / 9.0)

    def test_fields(self):
        out = self.ok('-f', 'time,read,hit%', '-d', 'cache0', '2', '1', between=self.step(V2))
        head, row = out.splitlines()
        self.assertEqual(head, '    time  read  hit%')
        self.assertEqual(row.split()[1:], ['250', '60'])
        out = self.ok('-f', 'hit%,l2hit%', '-o', 'json', '-d', 'cache0')
        o = json.loads(out)
        self.assertIn('hit%', o)
        self.assertIn('l2hit%', o)
        self.assertNotIn('read', o)
        self.assertIn('counters', o)
        out = self.ok('-f', 'help')
        for f in self.tool.FIELDS:
            self.assertRegex(out, r'\n  %s +\S' % re.escape(f))
        self.assertIn(','.join(self.tool.DEFAULT_FIELDS), out)

    def test_count_rows(self):
        seq = [dict(V1, hits=V1['hits'] + 100 * i) for i in range(1, 4)]

        def between(n):
            self.t.add(3, 'cache0', seq[n - 1], snaptime=(10 + n) * SEC)
        out = self.ok('-d', 'cache0', '-f', 'read,hits', '1', '3', between=between)
        rows = out.splitlines()
        self.assertEqual(len(rows), 4)
        for r in rows[1:]:
            self.assertEqual(r.split(), ['100', '100'])

    def test_clear_stats(self):
        # counters going backwards restart from 0: the difference is the value
        out = self.ok('-d', 'cache0', '-o', 'json', '2', '1',
                      between=self.step({'hits': 3, 'misses': 1}))
        o = json.loads(out)
        self.assertEqual(o['counters']['hits'], 3)
        self.assertEqual(o['counters']['misses'], 1)
        self.assertEqual(o['hit%'], 75.0)

    def test_device_disappears(self):
        def between(n):
            if n == 1:
                self.t.remove(3, snaptime=12 * SEC)
        rc, out, err = self.run_tool('-d', 'cache0', '1', '3', between=between)
        self.assertEqual(rc, 1)
        self.assertIn('l2arcstat: device cache0 (dm-3) disappeared', err)
        self.assertNotIn('Traceback', err)
        self.assertEqual(len(out.splitlines()), 1)      # the header

    def test_reload_briefly_absent(self):
        # the entry is gone for a moment during a reload, then back
        def between(n):
            if n == 1:
                shutil.rmtree(os.path.join(self.t.proc, 'dm-l2arc', 'dm-3'))
            elif n == 3:
                self.t.add(3, 'cache0', V2, snaptime=12 * SEC)
        o = json.loads(self.ok('-d', 'cache0', '-o', 'json', '2', '1', between=between))
        self.assertEqual(o['counters']['hits'], 300)

    def test_summed_device_churn(self):
        self.t.add(4, 'cache1', {'hits': 50, 'misses': 50}, snaptime=10 * SEC)

        def between(n):
            # cache1 goes, cache2 comes (with 10 hits since its creation)
            self.t.remove(4, snaptime=12 * SEC)
            self.t.add(5, 'cache2', {'hits': 10}, crtime=11 * SEC, snaptime=12 * SEC)
            self.t.add(3, 'cache0', V2, snaptime=12 * SEC)
        o = json.loads(self.ok('-o', 'json', '2', '1', between=between))
        self.assertEqual(o['device'], 'all')
        self.assertEqual(o['counters']['hits'], 300 + 10)
        self.assertEqual(o['counters']['misses'], 175)
        self.assertEqual(o['hit%'], 100.0 * 310 / 510)
        self.assertEqual(o['gauges']['size'], 4 << 20)

    def test_summed_pool_churn(self):
        # a pool (dm-10) whose member dm-11 leaves and dm-12 comes: the
        # pool's rows keep what dm-11 counted; members are not summed again
        self.t.add(11, 'vol11', {'hits': 100})
        self.t.add(10, 'pool0', {'hits': 100, 'size': 1 << 20})
        self.t.origins(10, [11])

        def between(n):
            self.t.remove(11, snaptime=12 * SEC)
            self.t.add(12, 'vol12', {'hits': 20}, crtime=11 * SEC, snaptime=12 * SEC)
            self.t.add(10, 'pool0', {'hits': 120, 'size': 1 << 20}, snaptime=12 * SEC)
            self.t.origins(10, [12], snaptime=12 * SEC)
            self.t.add(3, 'cache0', V2, snaptime=12 * SEC)
        o = json.loads(self.ok('-o', 'json', '2', '1', between=between))
        self.assertEqual(o['counters']['hits'], 300 + 20)
        self.assertEqual(o['gauges']['size'], (4 << 20) + (1 << 20))

    def test_summed_plain(self):
        self.t.add(4, 'cache1', {'hits': 50, 'misses': 50}, snaptime=10 * SEC)

        def between(n):
            self.t.add(4, 'cache1', {'hits': 150, 'misses': 50}, snaptime=12 * SEC)
            self.t.add(3, 'cache0', V2, snaptime=12 * SEC)
        o = json.loads(self.ok('-o', 'json', '2', '1', between=between))
        self.assertEqual(o['counters']['hits'], 400)
        self.assertEqual(o['hit%'], 100.0 * 400 / 600)

    def test_prettynum(self):
        p = self.tool.prettynum
        self.assertEqual(p(5, 1024, 1536), ' 1.5K')
        self.assertEqual(p(5, 1024, 1024), ' 1024')
        self.assertEqual(p(5, 1024, 20 << 20), '  20M')
        self.assertEqual(p(4, 1000, 0.5), '   0')
        self.assertEqual(p(4, 100, 100.0), ' 100')
        self.assertEqual(p(6, 1024, 5 << 40), '  5.0T')


class TestPrometheus(Base):
    def test_parser_rejects(self):
        for bad in ('a 1', 'a 1\n\n', '# TYPE a foo\na 1\n', 'a{b="c} 1\n',
                    'a 1\nb 1\na 2\n', 'a 1\na 1\n', '# TYPE a counter\na -1\n',
                    'a 1\n# TYPE a gauge\n', '# HELP a x\n# HELP a y\n', '1a 1\n',
                    'a{b="1",b="2"} 1\n', 'a x\n', '# TYPE a\n'):
            with self.assertRaises(ValueError, msg=repr(bad)):
                parse_prometheus(bad)
        f = parse_prometheus('# HELP a x\n# TYPE a gauge\na{b="q\\"\\\\",c="d"} 1.5e3\n# x\n')
        self.assertEqual(f['a']['samples'], {(('b', 'q\\"\\\\'), ('c', 'd')): 1500.0})

    def test_all_devices(self):
        self.t.load()
        self.t.add(3, 'cache0', V1)
        self.t.add(7, 'we"ird\\name', {'hits': 5, 'size': 4096})
        out = self.ok('-o', 'prometheus', '5', '3')     # INTERVAL ignored
        fams = parse_prometheus(out)
        self.assertEqual(sorted(fams), sorted('dm_l2arc_' + r for r in ROWS))
        h = fams['dm_l2arc_hits']
        self.assertEqual(h['type'], 'counter')
        self.assertTrue(h['help'])
        self.assertEqual(h['samples'], {(('device', 'cache0'),): 1000.0,
                                        (('device', 'we\\"ird\\\\name'),): 5.0})
        for g in ('size', 'c', 'p', 'l2_size', 'l2_asize', 'mru_blocks', 'l2_degraded',
                  'hash_elements', 'l2_ndev', 'mfu_ghost_size', 'data_size'):
            self.assertEqual(fams['dm_l2arc_' + g]['type'], 'gauge', g)
        for c in ('misses', 'l2_hits', 'l2_read_bytes', 'l2_write_bytes', 'deleted',
                  'mru_ghost_hits', 'l2_cksum_bad', 'writes'):
            self.assertEqual(fams['dm_l2arc_' + c]['type'], 'counter', c)
        self.assertEqual(fams['dm_l2arc_l2_size']['samples'][(('device', 'cache0'),)],
                         float(5 << 30))
        # one TYPE per family: grep count
        self.assertEqual(out.count('# TYPE dm_l2arc_hits '), 1)

    def test_pool_label(self):
        self.t.load()
        self.t.add(3, 'cache0', V1)
        self.t.add(5, 'vol5', {'hits': 7})
        self.t.add(4, 'pool0', {'hits': 7})
        self.t.origins(4, [5])
        fams = parse_prometheus(self.ok('-o', 'prometheus'))
        self.assertEqual(fams['dm_l2arc_hits']['samples'], {
            (('device', 'cache0'),): 1000.0, (('device', 'pool0'),): 7.0,
            (('device', 'vol5'), ('pool', 'pool0')): 7.0})
        fams = parse_prometheus(self.ok('-o', 'prometheus', '-d', 'vol5'))
        self.assertEqual(fams['dm_l2arc_hits']['samples'],
                         {(('device', 'vol5'), ('pool', 'pool0')): 7.0})

    def test_malformed_origins(self):
        self.t.load()
        self.t.add(4, 'pool0', {'hits': 7})
        self.t.write(os.path.join(self.t.proc, 'dm-l2arc', 'dm-4', 'origins'),
                     'id name\n1 vol5 dm-5\n')
        rc, out, err = self.run_tool('-o', 'prometheus')
        self.assertEqual((rc, out), (1, ''))
        self.assertIn('origins: malformed', err)

    def test_one_device(self):
        self.t.load()
        self.t.add(3, 'cache0', V1)
        self.t.add(4, 'cache1', V2)
        fams = parse_prometheus(self.ok('-o', 'prometheus', '-d', 'cache1'))
        self.assertEqual(fams['dm_l2arc_misses']['samples'],
                         {(('device', 'cache1'),): 675.0})


# ---------------------------------------------------------------- what-if
EXPECT_CACHE0 = """\
cache0 (dm-3): what-if of 4.0K blocks, memory 3.1M
sample: 6.25% of the blocks (ARC), 0.7813% (L2); 7 sampled reads or writes dropped
level         size  factor    hit%       reads
arc            16M   0.125    30.0       10000
arc            32M   0.250    35.0       10000
arc            64M   0.500    42.0       10000
arc           128M   1.000    50.0       10000
arc           256M   2.000    58.0       10000
arc           512M   4.000    61.0       10000
arc          1024M   8.000    62.0       10000
arc_actual    128M   1.000    48.0       10000
l2               0   0.000    48.0        1250
l2            128M   0.125    56.0        1250
l2            256M   0.250    64.0        1250
l2            512M   0.500    72.0        1250
l2           1024M   1.000    80.0        1250
l2            2.0G   2.000    88.0        1250
l2            4.0G   4.000    92.0        1250
l2            8.0G   8.000    92.8        1250
l2_actual    1024M   1.000    77.6        1250

cache0 (dm-3): ARC ladder, predicted hit% of demand reads by ARC size
 hit%
  70 |
     |
     |
     |
     |                                    *......*
  60 |                                ....
     |                             *..
     |                           ..
     |                         ..
     |                       ..
  50 |                      *
     |                    ..o
     |                  ..
     |                ..
     |              .*
  40 |             .
     |          ...
     |         .
     |      ..*
     |   ...
  30 | *.
     +-+------+------+------+------+------+------+-
      1/8    1/4    1/2     1x     2x     4x     8x   x arc_max
      16M    32M    64M    128M   256M   512M  1024M   ARC size
  * predicted   o actual (48.0% at 128M)   @ both in one cell

cache0 (dm-3): L2 ladder, predicted hit% by L2 size, ARC at arc_max
 hit%
 100 |
     |                                                ..*
  90 |                                    *......*....
     |                                ....
  80 |                           ..@..
     |                       ....
  70 |                   ...*
     |              .*...
  60 |          ....
     |        *.
  50 | *
     |
  40 |
     +-+------+------+------+------+------+------+------+-
       0     1/8    1/4    1/2     1x     2x     4x     8x   x L2 slots
       0     128M   256M   512M  1024M   2.0G   4.0G   8.0G   L2 size
  * predicted   o actual (77.6% at 1024M)   @ both in one cell   0: ARC alone
"""

EXPECT_FLAT = """\
flat (dm-4): what-if of 4.0K blocks, memory 3.1M
sample: 6.25% of the blocks (ARC); 7 sampled reads or writes dropped
level         size  factor    hit%       reads
arc            16M   0.125    20.0       10000
arc            32M   0.250    20.0       10000
arc            64M   0.500    21.0       10000
arc           128M   1.000    22.0       10000
arc           256M   2.000    22.0       10000
arc           512M   4.000    22.5       10000
arc          1024M   8.000    22.5       10000
arc_actual    128M   1.000    22.0       10000

flat (dm-4): ARC ladder, predicted hit% of demand reads by ARC size
 hit%
  30 |
     |
     |
     |
     |
  25 |
     |
     |
     |                   ...@......*......*......*
     |            ...*...
  20 | *......*...
     +-+------+------+------+------+------+------+-
      1/8    1/4    1/2     1x     2x     4x     8x   x arc_max
      16M    32M    64M    128M   256M   512M  1024M   ARC size
  * predicted   o actual (22.0% at 128M)   @ both in one cell
"""

OFF_MSG = ('what-if is off for this device; to turn it on, load the table with the '
           'feature "whatif 1", or set the module parameter l2arc_whatif=1 before the '
           'table is loaded')


class WhatifBase(Base):
    def setUp(self):
        super().setUp()
        self.t.load()
        self.t.add(3, 'cache0', V1)
        self.t.whatif(3, whatif_file())


class TestWhatifParse(WhatifBase):
    def test_module_format(self):
        w = self.tool.parse_whatif(whatif_file())
        self.assertTrue(w.on)
        self.assertEqual(w.head, {'whatif': 1, 'block_bytes': 4096, 'sample_arc': 0.0625,
                                  'sample_l2': 0.007813, 'memory_bytes': 3211264,
                                  'dropped': 7})
        self.assertEqual([r['factor'] for r in w.ladder('arc')], [f for f, _ in ARC_HITS])
        self.assertEqual([r['factor'] for r in w.ladder('l2')], [f for f, _ in L2_HITS])
        self.assertEqual(w.actual('arc'), {
            'level': 'arc_actual', 'factor': 1.0, 'blocks': 32768, 'bytes': 128 << 20,
            'sample': 0, 'reads': 10000, 'hits': 4800, 'l2_hits': 0, 'hit_pct': 48.0})
        self.assertEqual(w.actual('l2')['hit_pct'], 77.6)
        self.assertEqual(w.ladder('l2')[0]['bytes'], 0)
        w = self.tool.parse_whatif(whatif_file(l2=None))
        self.assertEqual(w.ladder('l2'), [])
        self.assertIsNone(w.actual('l2'))
        w = self.tool.parse_whatif(WHATIF_OFF)
        self.assertFalse(w.on)
        self.assertEqual((w.head, w.rows), ({'whatif': 0}, []))

    def bad(self, text, msg):
        self.assertNotEqual(text, whatif_file(), 'the edit changed nothing')
        with self.assertRaises(self.tool.Error) as cm:
            self.tool.parse_whatif(text, 'F')
        self.assertIn(msg, str(cm.exception))

    def test_malformed(self):
        good = whatif_file()
        lines = good.split('\n')
        self.bad(good[:-1], 'F: malformed: does not end with a newline')
        self.bad('', 'F: malformed: the first line is not "whatif 0" or "whatif 1"')
        self.bad('\n', 'F:1: malformed line')
        self.bad(good.replace('whatif          1', 'whatif          2'),
                 'F: malformed: the first line is not "whatif 0" or "whatif 1"')
        self.bad(good.replace('whatif          1', 'whatif          1.0'),
                 'the first line is not')
        self.bad('\n'.join(lines[1:]), 'the first line is not')
        self.bad(WHATIF_OFF + 'dropped 0\n', 'F:2: malformed: a line after "whatif 0"')
        self.bad(good.replace('memory_bytes    3211264\n', ''),
                 'F: malformed: no memory_bytes line')
        self.bad(good.replace('dropped         7', 'dropped         7 8'),
                 "F:6: malformed line: 'dropped         7 8'")
        self.bad(good.replace('dropped         7', 'dropped         x'), 'F:6: malformed line')
        self.bad(good.replace('dropped         7', 'dropped         7.5'),
                 'F: malformed: dropped is not a whole number')
        self.bad(good.replace('dropped         7', 'sample_arc      0.5'),
                 'F:6: duplicate line sample_arc')
        self.bad(good.replace('0.062500', '1.500000'), 'F: malformed: sample_arc is over 1')
        self.bad('\n'.join(lines[:6]) + '\n', 'F: malformed: no table')
        self.bad(good.replace('  hit_pct', '  hit%'), 'F:7: malformed table header')
        self.bad(good.replace('arc_actual 1.000', 'arc_actua  1.000'), 'F:15: malformed row')
        self.bad(good.replace(' 30.0000', ' 30.0000 x'), 'F:8: malformed row')
        self.bad(good.replace('arc        0.125', 'arc        0.12x'), 'F:8: malformed row')
        self.bad(good.replace('arc        0.125', 'arc        1'), 'F:8: malformed row')
        self.bad(good.replace('  3000          0 30.0000', '  3000         -1 30.0000'),
                 'F:8: malformed row')
        self.bad(good.replace('  3000          0 30.0000', ' 13000          0 30.0000'),
                 'F:8: more hits than reads')
        self.bad(good.replace('arc        0.250', 'arc        0.125'),
                 'F: duplicate row arc 0.125')
        self.bad('\n'.join(x for x in lines if not x.startswith('arc_actual')),
                 'F: malformed: want arc rows and one arc_actual row')
        self.bad('\n'.join(x for x in lines if not x.startswith('arc ')),
                 'F: malformed: want arc rows and one arc_actual row')
        self.bad('\n'.join(x for x in lines if not x.startswith('l2_actual')),
                 'F: malformed: want one l2_actual row with the l2 rows, none without')
        self.bad(whatif_file(l2=None) + lines[-2] + '\n', 'want one l2_actual row')
        self.bad(good.replace('arc        0.125', 'arc        0.000'),
                 'F: malformed: a factor of 0 outside the l2 rows')
        self.bad(good.replace('arc_actual 1.000', 'arc_actual 0.000'),
                 'F: malformed: a factor of 0 outside the l2 rows')
        self.bad(whatif_file(l2=[(0, 0)]), 'F: malformed: no l2 row with a factor above 0')


class TestWhatif(WhatifBase):
    def test_text_exact(self):
        self.assertEqual(self.ok('--whatif', '-d', 'cache0'), EXPECT_CACHE0)

    def test_text_no_l2_exact(self):
        self.t.add(4, 'flat', {})
        self.t.whatif(4, whatif_file(arc=FLAT, actual=2200, l2=None))
        self.assertEqual(self.ok('--whatif', '-d', 'dm-4'), EXPECT_FLAT)
        # every device: one after the other, a blank line between
        self.assertEqual(self.ok('--whatif', '5', '3'), EXPECT_CACHE0 + '\n' + EXPECT_FLAT)

    def test_arc_point_counts_arc_hits(self):
        # arc_actual's hit_pct counts the device's L2 hits too: the table
        # shows it, the ARC plot places the actual point at its ARC hits
        self.t.whatif(3, whatif_file(actual=4700, actual_l2=300))
        out = self.ok('--whatif')
        self.assertIn('\narc_actual    128M   1.000    50.0       10000\n', out)
        self.assertIn('  * predicted   o actual (47.0% at 128M)   @ both in one cell\n', out)
        grid = [x for x in out.split('ARC ladder')[1].split('L2 ladder')[0].splitlines()
                if '|' in x]
        self.assertEqual(sum(x.count('o') for x in grid), 1)      # not at 50, the 1x point
        self.assertEqual(sum(x.count('@') for x in grid), 0)

    def test_no_reads_yet(self):
        self.t.whatif(3, whatif_file(reads=0, l2_reads=0, actual=0, l2_actual=(0, 0),
                                     l2_arc_hits=0,
                                     arc=[(f, 0) for f, _ in ARC_HITS],
                                     l2=[(f, 0) for f, _ in L2_HITS]))
        out = self.ok('--whatif')
        self.assertEqual(out.count('  (no sampled reads yet)\n'), 2)
        self.assertNotIn('hit%\n', out.split('level')[1])

    def test_off(self):
        self.t.whatif(3, WHATIF_OFF)
        for fmt in ('text', 'json', 'prometheus'):
            rc, out, err = self.run_tool('--whatif', '-d', 'cache0', '-o', fmt)
            self.assertEqual(rc, 1, fmt)
            self.assertEqual(err, 'l2arcstat: cache0 (dm-3): %s\n' % OFF_MSG, fmt)
            self.assertEqual(out, {
                'text': '',
                'json': '{"device": "cache0", "kernel_name": "dm-3", "whatif": 0, '
                        '"rows": []}\n',
                'prometheus': '# HELP dm_l2arc_whatif_enabled 1 when the device runs '
                              'the what-if simulations\n'
                              '# TYPE dm_l2arc_whatif_enabled gauge\n'
                              'dm_l2arc_whatif_enabled{device="cache0"} 0\n'}[fmt], fmt)
        # another device has it on: the message, and exit status 0
        self.t.add(4, 'flat', {})
        self.t.whatif(4, whatif_file(arc=FLAT, actual=2200, l2=None))
        rc, out, err = self.run_tool('--whatif')
        self.assertEqual((rc, out), (0, EXPECT_FLAT))
        self.assertEqual(err, 'l2arcstat: cache0 (dm-3): %s\n' % OFF_MSG)

    def test_malformed_cli(self):
        self.t.whatif(3, whatif_file().replace('arc_actual', 'arc_actua '))
        for args in (('-d', 'cache0'), (), ('-o', 'json'), ('-o', 'prometheus')):
            rc, out, err = self.run_tool('--whatif', *args)
            self.assertEqual(rc, 1, args)
            self.assertEqual(out, '', args)
            self.assertEqual(err, "l2arcstat: %s:15: malformed row: %r\n" % (
                os.path.join(self.t.proc, 'dm-l2arc', 'dm-3', 'whatif'),
                whatif_file().split('\n')[14].replace('arc_actual', 'arc_actua ')), args)

    def test_module_without_whatif(self):
        os.remove(os.path.join(self.t.proc, 'dm-l2arc', 'dm-3', 'whatif'))
        rc, out, err = self.run_tool('--whatif', '-d', 'cache0')
        self.assertEqual((rc, out), (1, ''))
        self.assertEqual(err, 'l2arcstat: %s: no such file: the loaded dm-l2arc module has '
                         'no what-if\n'
                         % os.path.join(self.t.proc, 'dm-l2arc', 'dm-3', 'whatif'))

    def test_no_devices_and_gone(self):
        self.t.remove(3)
        rc, out, err = self.run_tool('--whatif')
        self.assertEqual((rc, out, err), (1, '', 'l2arcstat: no dm-l2arc devices\n'))
        self.t.add(3, 'cache0', V1)
        self.t.whatif(3, whatif_file())

        def between(n):
            if n == 1:
                shutil.rmtree(os.path.join(self.t.proc, 'dm-l2arc', 'dm-3'))
        # -d resolved, then the entry goes for good: 10 retries, then an error
        mod = self.tool
        real = mod.Source.resolve
        mod.Source.resolve = lambda src, name: (between(1), 'dm-3')[1]
        try:
            rc, out, err = self.run_tool('--whatif', '-d', 'cache0')
        finally:
            mod.Source.resolve = real
        self.assertEqual((rc, out), (1, ''))
        self.assertEqual(err, 'l2arcstat: device cache0 (dm-3) disappeared\n')

    def test_json(self):
        self.t.add(4, 'flat', {})
        self.t.whatif(4, whatif_file(arc=FLAT, actual=2200, l2=None))
        out = self.ok('--whatif', '-o', 'json')
        objs = [json.loads(x) for x in out.splitlines()]
        self.assertEqual([(o['device'], o['kernel_name']) for o in objs],
                         [('cache0', 'dm-3'), ('flat', 'dm-4')])
        o = objs[0]
        self.assertEqual(list(o), ['device', 'kernel_name', 'whatif', 'block_bytes',
                                   'sample_arc', 'sample_l2', 'memory_bytes', 'dropped',
                                   'rows'])
        self.assertEqual((o['whatif'], o['block_bytes'], o['sample_arc'], o['sample_l2'],
                          o['memory_bytes'], o['dropped']),
                         (1, 4096, 0.0625, 0.007813, 3211264, 7))
        self.assertEqual(len(o['rows']), 17)
        self.assertEqual(o['rows'][0], {
            'level': 'arc', 'factor': 0.125, 'blocks': 4096, 'bytes': 16 << 20,
            'sample': 256, 'reads': 10000, 'hits': 3000, 'l2_hits': 0, 'hit_pct': 30.0})
        self.assertEqual(o['rows'][-1], {
            'level': 'l2_actual', 'factor': 1.0, 'blocks': 262144, 'bytes': 1 << 30,
            'sample': 0, 'reads': 1250, 'hits': 590, 'l2_hits': 380, 'hit_pct': 77.6})
        self.assertEqual(len(objs[1]['rows']), 8)
        self.assertEqual(json.loads(self.ok('--whatif', '-o', 'json', '-d', 'flat')), objs[1])

    def test_prometheus(self):
        self.t.add(7, 'we"ird\\name', {})
        self.t.whatif(7, whatif_file(arc=FLAT, actual=2200, l2=None))
        self.t.add(8, 'off0', {})
        self.t.whatif(8, WHATIF_OFF)
        rc, out, err = self.run_tool('--whatif', '-o', 'prometheus')
        self.assertEqual(rc, 0)
        self.assertEqual(err, 'l2arcstat: off0 (dm-8): %s\n' % OFF_MSG)
        fams = parse_prometheus(out)
        m = 'dm_l2arc_whatif_'
        self.assertEqual(list(fams), [m + f for f in (
            'enabled', 'sample_ratio', 'memory_bytes', 'dropped', 'hit_ratio', 'reads',
            'hits', 'l2_hits')])
        for f, kind in (('enabled', 'gauge'), ('sample_ratio', 'gauge'),
                        ('memory_bytes', 'gauge'), ('dropped', 'counter'),
                        ('hit_ratio', 'gauge'), ('reads', 'counter'), ('hits', 'counter'),
                        ('l2_hits', 'counter')):
            self.assertEqual(fams[m + f]['type'], kind, f)
            self.assertTrue(fams[m + f]['help'], f)
        weird = 'we\\"ird\\\\name'
        self.assertEqual(fams[m + 'enabled']['samples'], {
            (('device', 'cache0'),): 1.0, (('device', weird),): 1.0,
            (('device', 'off0'),): 0.0})
        self.assertEqual(fams[m + 'sample_ratio']['samples'], {
            (('device', 'cache0'), ('level', 'arc')): 0.0625,
            (('device', 'cache0'), ('level', 'l2')): 0.007813,
            (('device', weird), ('level', 'arc')): 0.0625})
        self.assertEqual(fams[m + 'memory_bytes']['samples'][(('device', 'cache0'),)],
                         3211264.0)
        self.assertEqual(fams[m + 'dropped']['samples'][(('device', weird),)], 7.0)
        hr = fams[m + 'hit_ratio']['samples']
        self.assertEqual(len(hr), 17 + 8)

        def key(dev, level, factor, nbytes):
            return (('bytes', str(nbytes)), ('device', dev), ('factor', factor),
                    ('level', level))
        self.assertEqual(hr[key('cache0', 'arc', '0.125', 16 << 20)], 0.3)
        self.assertEqual(hr[key('cache0', 'arc_actual', '1.000', 128 << 20)], 0.48)
        self.assertEqual(hr[key('cache0', 'l2', '0.000', 0)], 0.48)
        self.assertEqual(hr[key('cache0', 'l2', '8.000', 8 << 30)], 0.928)
        self.assertEqual(hr[key('cache0', 'l2_actual', '1.000', 1 << 30)], 0.776)
        self.assertEqual(hr[key(weird, 'arc', '4.000', 512 << 20)], 0.225)
        k = key('cache0', 'l2', '2.000', 2 << 30)
        self.assertEqual(fams[m + 'reads']['samples'][k], 1250.0)
        self.assertEqual(fams[m + 'hits']['samples'][k], 600.0)
        self.assertEqual(fams[m + 'l2_hits']['samples'][k], 500.0)
        # the exact rows of one series
        self.assertIn('dm_l2arc_whatif_hit_ratio{device="cache0",level="arc",'
                      'factor="0.125",bytes="16777216"} 0.3\n', out)
        self.assertIn('dm_l2arc_whatif_reads{device="we\\"ird\\\\name",level="arc_actual",'
                      'factor="1.000",bytes="134217728"} 10000\n', out)

    def test_usage(self):
        rc, _, err = self.run_tool('--png', os.path.join(self.tmp, 'x.png'))
        self.assertEqual(rc, 2)
        self.assertIn('--png needs --whatif', err)


class TestWhatifPng(WhatifBase):
    def fake_gnuplot(self, body):
        """A gnuplot first on PATH that saves its input beside itself."""
        d = os.path.join(self.tmp, 'bin')
        os.makedirs(d, exist_ok=True)
        gp = os.path.join(d, 'gnuplot')
        with open(gp, 'w') as fh:
            fh.write('#!/bin/sh\ncat >"%s/script.gp"\n%s\n' % (d, body))
        os.chmod(gp, 0o755)
        return d

    def run_png(self, first, *args, alone=False):
        """--png with the directory first on PATH (alone: the only one)."""
        png = os.path.join(self.tmp, 'out.png')
        path = first if alone else first + os.pathsep + os.environ.get('PATH', '')
        with mock.patch.dict(os.environ, {'PATH': path}):
            rc, out, err = self.run_tool('--whatif', '--png', png, *args)
        return rc, out, err, png

    def test_fake_gnuplot(self):
        self.t.add(4, 'flat', {})
        self.t.whatif(4, whatif_file(arc=FLAT, actual=2200, l2=None))
        d = self.fake_gnuplot("printf '\\211PNG\\r\\n\\032\\nfake'")
        rc, out, err, png = self.run_png(d, '-o', 'json')
        self.assertEqual((rc, err), (0, ''))
        self.assertEqual(len(out.splitlines()), 2)         # the -o output as well
        with open(png, 'rb') as fh:
            self.assertEqual(fh.read(), b'\x89PNG\r\n\x1a\nfake')
        with open(os.path.join(d, 'script.gp')) as fh:
            gp = fh.read()
        self.assertIn('set terminal pngcairo noenhanced size 1280,880\n', gp)
        self.assertIn('set multiplot layout 2,2\n', gp)
        self.assertIn("set title 'cache0 (dm-3): ARC ladder'\n", gp)
        self.assertIn("set title 'cache0 (dm-3): L2 ladder, ARC at arc_max'\n", gp)
        self.assertIn("set title 'flat (dm-4): ARC ladder'\nset xlabel "
                      "'ARC size (bytes, log2 scale) / x arc_max' offset 0,-1\n", gp)
        self.assertIn('set multiplot next\nunset multiplot\n', gp)   # no L2 for flat
        self.assertIn('set xtics ("16M\\n1/8" 16777216, "32M\\n1/4" 33554432, ', gp)
        self.assertIn('$pred << EOD\n16777216 30.0000\n33554432 35.0000\n', gp)
        self.assertIn('$act << EOD\n134217728 48.0000\nEOD\n', gp)
        self.assertIn("title 'actual: 48.0% at 128M'", gp)
        self.assertIn("48.0000 with lines dt 2 lc rgb \"gray40\" title 'ARC alone: 48.0%'",
                      gp)
        # one device, its name quoted for gnuplot
        self.t.add(5, "it's", {})
        self.t.whatif(5, whatif_file(l2=None))
        rc, out, err, png = self.run_png(d, '-d', "it's", '-o', 'json')
        self.assertEqual((rc, err), (0, ''))
        with open(os.path.join(d, 'script.gp')) as fh:
            gp = fh.read()
        self.assertIn('set multiplot layout 1,1\n', gp)
        self.assertIn("set title 'it''s (dm-5): ARC ladder'\n", gp)

    def test_gnuplot_fails(self):
        d = self.fake_gnuplot('echo "line 3: unknown terminal" >&2; exit 1')
        rc, out, err, png = self.run_png(d)
        self.assertEqual((rc, out), (1, ''))
        self.assertEqual(err, 'l2arcstat: gnuplot failed (exit status 1): '
                         'line 3: unknown terminal\n')
        self.assertFalse(os.path.exists(png))
        d = self.fake_gnuplot('echo not a png')
        rc, out, err, png = self.run_png(d)
        self.assertEqual((rc, err), (1, 'l2arcstat: gnuplot failed (exit status 0)\n'))

    def test_no_gnuplot(self):
        empty = os.path.join(self.tmp, 'empty')
        os.makedirs(empty)
        rc, out, err, png = self.run_png(empty, alone=True)
        self.assertEqual((rc, out), (1, ''))
        self.assertEqual(err, 'l2arcstat: --png needs gnuplot, which is not installed '
                         '(Debian: apt-get install gnuplot-nox)\n')
        # what-if off everywhere: no plot to make, gnuplot not asked for
        self.t.whatif(3, WHATIF_OFF)
        rc, out, err, png = self.run_png(empty, '-d', 'cache0', alone=True)
        self.assertEqual((rc, out), (1, ''))
        self.assertEqual(err, 'l2arcstat: cache0 (dm-3): %s\n' % OFF_MSG)

    @unittest.skipUnless(shutil.which('gnuplot'), 'gnuplot is not installed')
    def test_real_gnuplot(self):
        rc, out, err, png = self.run_png(self.tmp, '-d', 'cache0')
        self.assertEqual((rc, out, err), (0, EXPECT_CACHE0, ''))
        with open(png, 'rb') as fh:
            head = fh.read(24)
        self.assertEqual(head[:8], b'\x89PNG\r\n\x1a\n')
        self.assertEqual(head[12:16], b'IHDR')
        self.assertEqual((int.from_bytes(head[16:20], 'big'),
                          int.from_bytes(head[20:24], 'big')), (1280, 440))



if __name__ == '__main__':
    unittest.main()

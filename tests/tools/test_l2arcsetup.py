# SPDX-License-Identifier: GPL-2.0-only
"""Host test: scripts/l2arcsetup's `check` (the file's syntax, no device
touched: FILE:LINE: message per bad line, exit 1), `is-origin` (which
device the udev rule marks as an origin), `lvm-filter` (the LVM setting
that hides the origins), its usage errors, and `make install` (the
files, the unit's, the udev rule's and the initramfs hook's paths,
`systemd-analyze verify` of the installed unit, the hook run against a
scratch initramfs tree).  Creating and removing devices runs in the VM test
tests/vm/80-l2arctab.sh."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
SETUP = os.path.join(TOP, 'scripts', 'l2arcsetup')
EXAMPLE = os.path.join(TOP, 'etc', 'l2arctab')


def setup(*args):
    return subprocess.run([SETUP] + list(args), capture_output=True,
                          text=True, timeout=60)


class L2arcsetupCheckTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='l2arctab.')
        self.addCleanup(shutil.rmtree, self.dir)

    def tab(self, text):
        path = os.path.join(self.dir, 'l2arctab')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_shipped_example_is_valid(self):
        r = setup('-t', EXAMPLE, 'check')
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, '', ''))

    def test_shipped_example_lines_are_valid(self):
        with open(EXAMPLE) as f:
            lines = [l[2:] for l in f if l.startswith('# nas0 ') or
                     l.startswith('# logs ')]
        self.assertEqual(len(lines), 2)
        r = setup('-t', self.tab(''.join(lines)), 'check')
        self.assertEqual((r.returncode, r.stderr), (0, ''))

    def test_every_bad_line_named(self):
        path = self.tab('\n'.join([
            '# comment',
            'good0 /dev/disk/by-id/a /dev/disk/by-id/b 256 arc_max=1G,l2arc_write_max=400M',
            'bad1 /dev/sdc /dev/sdd 4000',
            'bad2 sdc - 8',
            'good0 /dev/sde - 8',
            'bad3 /dev/sdf /dev/sdf 8',
            'bad4 /dev/sdg - 8 arc_max=1X',
            'bad5 /dev/sdg - 8 foo=1',
            'bad6 /dev/sdg - 8 prefetch_disable=2',
            'bad7 /dev/sdg',
            'bad8 /dev/sdg - 8 a=1 extra',
            'b@d /dev/sdg - 8',
            'good1 /dev/sdh /dev/sdi 2048 -   # comment',
            'bad9 /dev/sdg - 8 arc_max=1,arc_max=2',
            'bad10 /dev/sdg - 2m',
            'bad11 /dev/sdg - 8 l2arc_feed_secs=-1',
            'good2 /dev/sdg - 1M prefetch_disable=1,l2arc_max_errors=3',
            'good3 /dev/sdj - 8 whatif=1,l2arc_rebuild=0',
            'bad12 /dev/sdk - 8 whatif=2',
            'bad13 /dev/sdk - 8 l2arc_rebuild=yes',
            'good4 /dev/sdl /dev/sdm 8 l2arc_mfuonly=1',
            'bad14 /dev/sdn - 8 l2arc_mfuonly=2',
            '']))
        r = setup('-t', path, 'check')
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, '')
        want = [
            "3: bad1: block size '4000': a power of two from 8 to 2048 sectors (or 4k to 1M)",
            "4: bad2: origin 'sdc' is not an absolute path or pool",
            "5: good0: name used by an earlier line",
            "6: bad3: the cache device is the origin",
            "7: bad4: option 'arc_max=1X': bytes below 2^63, a decimal number with an optional k, M, G or T",
            "8: bad5: unknown option 'foo'",
            "9: bad6: option 'prefetch_disable=2': 0 or 1",
            "10: need <name> <origin> <cache|-> <block_size> [<options>], got 2 field(s)",
            "11: too many fields (6): options are one field, comma-separated key=value",
            "12: name 'b@d': letters, digits and ._+- (not first), at most 122, not ., .. or control",
            "14: bad9: option 'arc_max' given twice",
            "15: bad10: block size '2m': a power of two from 4k to 1M",
            "16: bad11: option 'l2arc_feed_secs=-1': a decimal number below 2^63",
            "19: bad12: option 'whatif=2': 0 or 1",
            "20: bad13: option 'l2arc_rebuild=yes': 0 or 1",
            "22: bad14: option 'l2arc_mfuonly=2': 0 or 1",
        ]
        self.assertEqual(r.stderr.splitlines(),
                         ['%s:%s' % (path, w) for w in want])

    def test_review_findings(self):
        # numbers that would wrap around, names dmsetup would take for
        # options, paths on two lines, empty options, CRLF and a BOM
        big = '9223372036854775808'
        path = self.tab('\ufeff# BOM before a comment\r\n' + '\n'.join([
            'w1 /dev/a1 - 8 arc_max=' + big,
            'w2 /dev/a2 - 8 arc_max=9223372036855824384k',
            'w3 /dev/a3 - 9223372036854775812k',
            'w4 /dev/a4 - 8 l2arc_headroom=' + big,
            'ok1 /dev/a5 - 8 arc_max=9223372036854775807,l2arc_headroom=0009\r',
            '-r /dev/a6 - 8',
            'control /dev/a7 - 8',
            'c1 /dev/h1 /dev/nvme1 8',
            'c2 /dev/h2 /dev/nvme1 8',
            'c3 /dev/h1 - 8',
            'c4 /dev/nvme1 - 8',
            'e1 /dev/a8 - 8 arc_max=1G,',
            'ok2 /dev/a9 - 000008 -',
            '   w1 /dev/b1 - 8',
            '']))
        r = setup('-t', path, 'check')
        self.assertEqual(r.returncode, 1)
        want = [
            "2: w1: option 'arc_max=%s': bytes below 2^63, a decimal number with an optional k, M, G or T" % big,
            "3: w2: option 'arc_max=9223372036855824384k': bytes below 2^63, a decimal number with an optional k, M, G or T",
            "4: w3: block size '9223372036854775812k': a power of two from 4k to 1M",
            "5: w4: option 'l2arc_headroom=%s': a decimal number below 2^63" % big,
            "7: name '-r': letters, digits and ._+- (not first), at most 122, not ., .. or control",
            "8: name 'control': letters, digits and ._+- (not first), at most 122, not ., .. or control",
            "10: c2: /dev/nvme1 is used by line 9 too",
            "11: c3: /dev/h1 is used by line 9 too",
            "12: c4: /dev/nvme1 is used by line 9 too",
            "13: e1: options 'arc_max=1G,': an empty option (a comma too many)",
            "15: w1: name used by an earlier line",
        ]
        self.assertEqual(r.stderr.splitlines(),
                         ['%s:%s' % (path, w) for w in want])

    def test_pools(self):
        # a pool, its members (declared after it), and what each refuses
        path = self.tab('\n'.join([
            'nvpool pool - 8 arc_max=2G',
            'vol1 /dev/sdb pool:nvpool 8 arc_min=256M,prefetch_disable=1',
            'vol2 /dev/sdc pool:nvpool 4k',
            'badp1 pool /dev/nvme0n1 8',
            'badp2 pool - 8 arc_min=1G',
            'badm1 /dev/sdd pool:nopool 8',
            'okm2 /dev/sde pool:nvpool 8 arc_max=1G,arc_min=256M',
            'badm3 /dev/sdf pool:nvpool 8 whatif=1',
            'badm4 /dev/sdg pool:vol1 8',
            'early /dev/sdh pool:later 8',
            'later pool - 8',
            'badm5 /dev/sdb pool:nvpool 8',
            'badc /dev/sdi nvme 8',
            'badm6 /dev/sdj pool:badm6 8',
            'ok3 /dev/sdk pool:later 8 whatif=0',
            '']))
        r = setup('-t', path, 'check')
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, '')
        want = [
            "4: badp1: a pool's cache device is not supported yet: give -",
            "5: badp2: option 'arc_min': a pool takes arc_max only",
            "6: badm1: pool 'nopool' is not declared by an earlier valid line",
            "8: badm3: option 'whatif=1': a pool member has no what-if",
            "9: badm4: pool 'vol1' is not declared by an earlier valid line",
            "10: early: pool 'later' is not declared by an earlier valid line",
            "12: badm5: /dev/sdb is used by line 2 too",
            "13: badc: cache device 'nvme' is not an absolute path, pool:<name> or -",
            "14: badm6: pool 'badm6' is not a pool's name",
        ]
        self.assertEqual(r.stderr.splitlines(), ['%s:%s' % (path, w) for w in want])
        # the pool's line names no origin: the filter has the members' only
        r = subprocess.run([SETUP, '-t', path, 'lvm-filter'], capture_output=True,
                           text=True, timeout=60)
        self.assertIn('\tglobal_filter = [ "r|^/dev/sdb$|", "r|^/dev/sdc$|", '
                      '"r|^/dev/sde$|", "r|^/dev/sdk$|" ]', r.stdout.splitlines())
        self.assertEqual(setup('-t', path, 'is-origin', '/dev/sdc').returncode, 0)
        self.assertEqual(setup('-t', path, 'is-origin', '/dev/pool').returncode, 1)
        self.assertEqual(setup('-t', path, 'is-origin', 'pool').returncode, 1)

    def test_empty_name_is_a_usage_error(self):
        path = self.tab('a /dev/x - 8\n')
        for cmd in ('start', 'stop'):
            r = setup('-t', path, cmd, '')
            self.assertEqual(r.returncode, 2, cmd)

    def test_directory(self):
        r = setup('-t', self.dir, 'check')
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, 'l2arcsetup: cannot read %s (not a readable file)\n' % self.dir)

    def test_missing_file(self):
        r = setup('-t', os.path.join(self.dir, 'none'), 'check')
        self.assertEqual(r.returncode, 1)
        self.assertIn('cannot read', r.stderr)

    def test_usage(self):
        for args in ([], ['bogus'], ['check', 'x'], ['status', 'x'],
                     ['start', 'a', 'b'], ['-x', 'check'], ['-w', 'x', 'start'],
                     ['-w', '-1', 'start']):
            r = setup(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn('usage: l2arcsetup', r.stderr, args)


class L2arcsetupIsOriginTest(unittest.TestCase):
    """is-origin DEV [LINK...]: 0 for a valid line's origin, 1 for any other
    device, 2 for a usage error; never any output (udev runs it)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='l2arctab.')
        self.addCleanup(shutil.rmtree, self.dir)
        self.disk = self.path('disk')       # the origin, as written
        self.other = self.path('other')     # a device of no line
        self.bad = self.path('bad')         # origin of a bad line only
        self.gone = self.path('gone')       # origin of a commented line
        for p in (self.disk, self.other, self.bad, self.gone):
            open(p, 'w').close()
        self.link = self.path('by-id-disk')
        os.symlink(self.disk, self.link)
        self.tab = self.path('l2arctab')
        with open(self.tab, 'w') as f:
            f.write('\n'.join([
                '# nas1 %s - 8' % self.gone,
                'nas0 %s - 8' % self.disk,
                'bad0 %s - 4000' % self.bad,
                'nas2 %s - 8' % self.path('by-id-late'),
                '']))

    def path(self, name):
        return os.path.join(self.dir, name)

    def is_origin(self, *args):
        r = setup('-t', self.tab, 'is-origin', *args)
        self.assertEqual((r.stdout, r.stderr), ('', ''), args)
        return r.returncode

    def test_origin_by_its_path(self):
        self.assertEqual(self.is_origin(self.disk), 0)

    def test_origin_through_a_symlink(self):
        self.assertEqual(self.is_origin(self.link), 0)

    def test_symlink_origin_by_its_target(self):
        with open(self.tab, 'w') as f:
            f.write('nas0 %s - 8\n' % self.link)
        self.assertEqual(self.is_origin(self.disk), 0)

    def test_origin_by_a_link_that_does_not_exist_yet(self):
        # udev's $links on a device's first event: /dev/disk/by-id/...
        # are made after the rules ran
        self.assertEqual(self.is_origin(self.other, self.path('by-id-late')), 0)
        self.assertEqual(self.is_origin(self.other), 1)

    def test_relative_link_is_under_dev(self):
        with open(self.tab, 'w') as f:
            f.write('nas0 /dev/disk/by-id/l2arc-test-none - 8\n')
        self.assertEqual(self.is_origin(self.other, 'disk/by-id/l2arc-test-none'), 0)
        self.assertEqual(self.is_origin(self.other, 'disk/by-id/l2arc-test-nonf'), 1)

    def test_unlisted_device(self):
        self.assertEqual(self.is_origin(self.other), 1)
        self.assertEqual(self.is_origin(self.path('none')), 1)

    def test_bad_and_commented_lines_name_no_origin(self):
        self.assertEqual(self.is_origin(self.bad), 1)
        self.assertEqual(self.is_origin(self.gone), 1)

    def test_unreadable_file_matches_nothing(self):
        r = setup('-t', self.path('none'), 'is-origin', self.disk)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (1, '', ''))

    @unittest.skipUnless(os.geteuid() == 0, 'mknod needs root')
    def test_same_major_minor(self):
        # two nodes of one device (7:250, no driver needed) are one origin
        a, b, c = self.path('b1'), self.path('b2'), self.path('b3')
        os.mknod(a, 0o600 | stat.S_IFBLK, os.makedev(7, 250))
        os.mknod(b, 0o600 | stat.S_IFBLK, os.makedev(7, 250))
        os.mknod(c, 0o600 | stat.S_IFBLK, os.makedev(7, 251))
        with open(self.tab, 'w') as f:
            f.write('nas0 %s - 8\n' % a)
        self.assertEqual(self.is_origin(b), 0)
        self.assertEqual(self.is_origin(c), 1)

    def test_usage(self):
        for args in ([], [''], [self.disk, '']):
            r = setup('-t', self.tab, 'is-origin', *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn('usage: l2arcsetup', r.stderr, args)


class L2arcsetupLvmFilterTest(unittest.TestCase):
    """lvm-filter: the global_filter that rejects each valid line's
    origin, printed or written between markers into lvmlocal.conf; refused
    where it would override the administrator's own filter."""
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='l2arc-lvm.')
        self.addCleanup(shutil.rmtree, self.dir)
        self.tab = os.path.join(self.dir, 'l2arctab')
        with open(self.tab, 'w') as f:
            f.write('a /dev/disk/by-id/md-uuid-1a2b:3c4d /dev/ram2 8\n'
                    'bad /dev/x - 7\n'
                    'b /dev/mapper/x.y+z - 8\n')
        self.local = os.path.join(self.dir, 'lvmlocal.conf')
        self.env = dict(os.environ, LVM_SYSTEM_DIR=self.dir)
        self.filter = ('\tglobal_filter = [ "r|^/dev/disk/by-id/md-uuid-1a2b:3c4d$|", '
                       '"r|^/dev/mapper/x\\.y\\+z$|" ]')
        self.block = [
            '# BEGIN dm-l2arc: written by l2arcsetup lvm-filter --write from ' + self.tab,
            '# (its origins are reached through their dm-l2arc devices only)',
            'devices {', self.filter, '}', '# END dm-l2arc']

    def run_it(self, *args, tab=None):
        return subprocess.run([SETUP, '-t', tab or self.tab, 'lvm-filter'] + list(args),
                              capture_output=True, text=True, timeout=60, env=self.env)

    def read(self):
        with open(self.local) as f:
            return f.read().splitlines()

    def test_print(self):
        r = self.run_it()
        self.assertEqual(r.returncode, 1)	# the bad line
        self.assertEqual(r.stdout.splitlines(), self.block)
        self.assertEqual(r.stderr, "%s:2: bad: block size '7': a power of two "
                         "from 8 to 2048 sectors (or 4k to 1M)\n" % self.tab)

    def test_write_keeps_the_rest_and_is_idempotent(self):
        with open(self.local, 'w') as f:
            f.write('local {\n\thost_id = 7\n}\n')
        os.chmod(self.local, 0o640)
        for _ in range(2):
            r = self.run_it('--write')
            self.assertEqual(r.stdout, '%s: LVM now rejects 2 origin(s); update-initramfs '
                             '-u copies it into the initramfs\n' % self.local)
            self.assertEqual(self.read(), ['local {', '\thost_id = 7', '}'] + self.block)
        self.assertEqual(stat.S_IMODE(os.stat(self.local).st_mode), 0o640)

    @unittest.skipUnless(shutil.which('lvm'), 'no lvm2')
    def test_lvm_reads_it(self):
        self.run_it('--write')
        r = subprocess.run(['lvm', 'config', 'devices/global_filter'], env=self.env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        self.assertEqual(r.stdout, 'global_filter=["r|^/dev/disk/by-id/md-uuid-1a2b:3c4d$|",'
                         '"r|^/dev/mapper/x\\\\.y\\\\+z$|"]\n')

    def test_no_origins_removes_the_block(self):
        self.run_it('--write')
        empty = os.path.join(self.dir, 'empty')
        open(empty, 'w').close()
        r = self.run_it('--write', tab=empty)
        self.assertEqual((r.returncode, r.stdout),
                         (0, '%s: no origins: the dm-l2arc block is removed\n' % self.local))
        self.assertEqual(self.read(), [])

    def test_refused_over_the_administrators_filter(self):
        with open(os.path.join(self.dir, 'lvm.conf'), 'w') as f:
            f.write('devices {\n\tglobal_filter = [ "r|/dev/sdz|" ]\n}\n')
        r = self.run_it('--write')
        self.assertEqual(r.returncode, 1)
        self.assertIn('sets a global_filter of its own: add these entries at its front '
                      'instead: "r|^/dev/disk/by-id/md-uuid-1a2b:3c4d$|"', r.stderr)
        self.assertFalse(os.path.exists(self.local))
        os.remove(os.path.join(self.dir, 'lvm.conf'))
        with open(self.local, 'w') as f:
            f.write('devices {\n\tscan_lvs = 1\n}\n')
        r = self.run_it('--write')
        self.assertEqual(r.returncode, 1)
        self.assertIn('has a devices section of its own', r.stderr)
        self.assertEqual(self.read(), ['devices {', '\tscan_lvs = 1', '}'])

    def test_bar_in_a_path_is_left_out(self):
        with open(self.tab, 'w') as f:
            f.write('a /dev/disk/by-id/x|y - 8\n')
        r = self.run_it()
        self.assertEqual((r.returncode, r.stdout), (1, ''))
        self.assertEqual(r.stderr, '%s:1: a: origin /dev/disk/by-id/x|y contains |: left '
                         'out of the filter\n' % self.tab)

    def test_usage(self):
        for args in (['x'], ['--write', 'f', 'g']):
            self.assertEqual(self.run_it(*args).returncode, 2, args)


class InstallTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='l2arc-install.')
        self.addCleanup(shutil.rmtree, self.dir)

    def make_install(self, *args):
        subprocess.run(['make', '-s', '-C', TOP, 'install'] + list(args),
                       check=True, capture_output=True, text=True)

    def test_sysconfdir_moves_the_tools_default(self):
        self.make_install('DESTDIR=' + self.dir, 'PREFIX=/usr',
                          'SYSCONFDIR=/usr/local/etc')
        with open(os.path.join(self.dir, 'usr/sbin/l2arcsetup')) as f:
            self.assertIn('\ntab=${L2ARCTAB:-/usr/local/etc/l2arctab}\n', f.read())
        self.assertTrue(os.path.exists(os.path.join(self.dir, 'usr/local/etc/l2arctab')))

    def test_destdir_layout(self):
        self.make_install('DESTDIR=' + self.dir, 'PREFIX=/usr')
        files = sorted(os.path.relpath(os.path.join(d, f), self.dir)
                       for d, _, fs in os.walk(self.dir) for f in fs)
        self.assertEqual(files, [
            'etc/l2arctab', 'usr/bin/l2arcstat',
            'usr/lib/systemd/system/dm-l2arc.service',
            'usr/lib/udev/rules.d/66-dm-l2arc-origin.rules',
            'usr/sbin/l2arcsetup', 'usr/share/doc/dm-l2arc/design.rst',
            'usr/share/doc/dm-l2arc/dm-l2arc.rst',
            'usr/share/doc/dm-l2arc/l2arctab.example',
            'usr/share/initramfs-tools/hooks/dm-l2arc'])
        with open(os.path.join(self.dir, 'usr/lib/systemd/system/dm-l2arc.service')) as f:
            unit = f.read()
        self.assertIn('ExecStart=/usr/sbin/l2arcsetup -t /etc/l2arctab -w 60 start\n', unit)
        self.assertIn('ExecStop=/usr/sbin/l2arcsetup -t /etc/l2arctab stop\n', unit)
        self.assertIn('ConditionPathExists=/etc/l2arctab\n', unit)
        self.assertNotIn('@', unit)

    def test_udev_rule(self):
        # PREFIX=/usr/local: udev does not read /usr/local/lib/udev
        old = os.path.join(self.dir, 'etc/udev/rules.d/61-dm-l2arc-origin.rules')
        os.makedirs(os.path.dirname(old))
        open(old, 'w').close()
        self.make_install('DESTDIR=' + self.dir)
        path = os.path.join(self.dir, 'etc/udev/rules.d/66-dm-l2arc-origin.rules')
        with open(path) as f:
            rules = f.read()
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o644)
        self.assertFalse(os.path.exists(old), 'the rule under its old name stays')
        self.assertIn('TEST!="/etc/l2arctab", GOTO="dm_l2arc_origin_end"\n', rules)
        self.assertIn('PROGRAM!="/usr/local/sbin/l2arcsetup -t /etc/l2arctab '
                      'is-origin $devnode $links", \\\n'
                      '  GOTO="dm_l2arc_origin_end"\n', rules)
        # what an origin gets, in this order: the type blkid found is
        # saved before it is replaced
        body = rules[rules.index('GOTO="dm_l2arc_origin_end"\nENV{DM_L2ARC'):]
        self.assertEqual(body.splitlines()[1:], [
            'ENV{DM_L2ARC_ORIGIN}="1"',
            'ENV{ID_FS_TYPE}=="?*", ENV{ID_FS_TYPE}!="dm_l2arc_origin", \\',
            '  ENV{L2ARC_ORIGIN_FS_TYPE}="$env{ID_FS_TYPE}"',
            'ENV{ID_FS_TYPE}="dm_l2arc_origin"',
            'ENV{SYSTEMD_READY}="0"',
            'ENV{UDISKS_IGNORE}="1", ENV{UDISKS_AUTO}="0"',
            'OPTIONS+="link_priority=-100"',
            'LABEL="dm_l2arc_origin_end"'])
        self.assertNotIn('@', rules)
        self.make_install('DESTDIR=' + self.dir, 'UDEVRULESDIR=/r')
        self.assertTrue(os.path.exists(os.path.join(self.dir, 'r/66-dm-l2arc-origin.rules')))

    @unittest.skipUnless(os.path.exists('/usr/share/initramfs-tools/hook-functions'),
                         'no initramfs-tools')
    def test_initramfs_hook(self):
        # installed under a scratch PREFIX, run as update-initramfs runs
        # it: what it puts into the initramfs tree, and nothing without
        # an l2arctab
        self.make_install('PREFIX=' + self.dir, 'DESTDIR=',
                          'SYSCONFDIR=' + self.dir + '/etc')
        hook = os.path.join(self.dir, 'share/initramfs-tools/hooks/dm-l2arc')
        self.assertEqual(stat.S_IMODE(os.stat(hook).st_mode), 0o755)
        r = subprocess.run([hook, 'prereqs'], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, 'udev\n'))
        dest = os.path.join(self.dir, 'initramfs')
        env = dict(os.environ, DESTDIR=dest, verbose='n')
        r = subprocess.run([hook], capture_output=True, text=True, env=env)
        self.assertEqual((r.returncode, r.stderr), (0, ''))
        rule = '/lib/udev/rules.d/66-dm-l2arc-origin.rules'
        for f in (rule, self.dir + '/etc/l2arctab', self.dir + '/sbin/l2arcsetup'):
            self.assertTrue(os.path.exists(dest + f), f)
        # copy_exec puts bash where it really is (/usr/bin on a merged /usr)
        self.assertTrue(os.path.exists(dest + os.path.realpath('/bin/bash')))
        with open(dest + rule) as f:
            self.assertIn('PROGRAM!="%s/sbin/l2arcsetup -t %s/etc/l2arctab is-origin'
                          % (self.dir, self.dir), f.read())
        shutil.rmtree(dest)
        os.remove(os.path.join(self.dir, 'etc/l2arctab'))
        r = subprocess.run([hook], capture_output=True, text=True, env=env)
        self.assertEqual((r.returncode, r.stderr), (0, ''))
        self.assertFalse(os.path.exists(dest))

    def test_keeps_the_administrators_l2arctab(self):
        os.makedirs(os.path.join(self.dir, 'etc'))
        mine = os.path.join(self.dir, 'etc', 'l2arctab')
        with open(mine, 'w') as f:
            f.write('nas0 /dev/disk/by-id/a - 8\n')
        self.make_install('DESTDIR=' + self.dir)
        with open(mine) as f:
            self.assertEqual(f.read(), 'nas0 /dev/disk/by-id/a - 8\n')

    @unittest.skipUnless(shutil.which('systemd-analyze'), 'no systemd-analyze')
    def test_unit_verifies(self):
        # PREFIX inside the scratch directory, so that ExecStart exists
        self.make_install('PREFIX=' + self.dir, 'DESTDIR=',
                          'SYSCONFDIR=' + self.dir + '/etc')
        unit = os.path.join(self.dir, 'lib/systemd/system/dm-l2arc.service')
        r = subprocess.run(['systemd-analyze', 'verify', unit],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual((r.returncode, r.stderr), (0, ''))


if __name__ == '__main__':
    unittest.main()

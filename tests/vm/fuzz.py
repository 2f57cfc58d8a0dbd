#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Table, message and module parameter fuzzer for dm-l2arc (VM only).

Run by tests/vm/70-fuzz.sh, which makes the devices.  Seeded and
reproducible from the seed it prints first (L2ARC_FUZZ_SEED=<seed> to run
it again; the I/O thread's interleaving is the only part that varies).

A model of the constructor (table.c's grammar, then the device checks of
target.c's ctr) says for every random table line whether it must load
and, if not, which ti->error the kernel log must show.  The lines are
drawn around every bound: block sizes and numbers at, below and above
their limits, 2^32 and 2^64, signs, hex, junk, repeated and unknown
features, feature counts that are off, devices that are missing,
directories, files, character devices, read-only, too small, the same as
the origin, or the device being loaded itself.  Each line is loaded as the
inactive table of an empty device "fz" through the dm ioctl (DM_TABLE_LOAD
runs the ctr) and cleared again:
  - a line the model refuses must fail with EINVAL and log
    "<dev>: l2arc: <the model's message>";
  - a line the model accepts must load, and the inactive table's status
    must show it as given (devices as maj:min, the features word for word)
    and its values in force (arc_max as the ARC sizes it, every tunable).
Between the tables, on a second device "fzlive" that a thread keeps
reading and writing (O_DIRECT, every read checked against what that
thread wrote last): random valid reloads with suspend/resume, random
messages (valid and not, checked against the model and the status line
after), and random module parameter writes (accepted or -EINVAL with the
old value kept).  The kernel log is checked by the test runner.

usage: fuzz.py ORIGIN CACHE SMALL RO LIVE_ORIGIN LIVE_CACHE [N_TABLES]
"""
import errno
import mmap
import os
import random
import re
import stat
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dmioctl import DM, Kmsg  # noqa: E402

PARAMS = "/sys/module/dm_l2arc/parameters"
U64 = 1 << 64
TOTALRAM = None		# bytes, from /proc/meminfo
# (min, max) of each module parameter; None: the machine's memory (params.c)
RANGES = {
    "arc_max": (16 * 4096, None),
    "arc_min": (16 * 4096, None),
    "prefetch_disable": (0, 1),
    "l2arc_whatif": (0, 1),
    "zfetch_max_distance": (4096, 1 << 30),
    "l2arc_write_max": (4096, 4 << 30),
    "l2arc_write_boost": (0, 4 << 30),
    "l2arc_noprefetch": (0, 1),
    "l2arc_headroom": (0, 1024),
    "l2arc_feed_secs": (1, 3600),
    "l2arc_feed_min_ms": (10, 3600000),
    "l2arc_feed_again": (0, 1),
    "l2arc_max_errors": (1, 1000000),
    "l2arc_dwpd_limit": (0, 100000),
    "l2arc_mfuonly": (0, 1),
    "l2arc_meta_percent": (1, 90),
    "arc_sys_free": (0, None),
}
# the per-device tunables, in status order (L2ARC_P_DEV_FIRST..LAST)
DEV_TUNABLES = ["l2arc_write_max", "l2arc_write_boost", "l2arc_noprefetch",
                "l2arc_headroom", "l2arc_feed_secs", "l2arc_feed_min_ms",
                "l2arc_feed_again", "l2arc_max_errors", "l2arc_dwpd_limit",
                "l2arc_mfuonly"]
ARC_MIN_BLOCKS = 16
CACHE_MIN_BLOCKS = 16
ARC_C_MAX = 1 << 31


def rng_max(name):
    lo, hi = RANGES[name]
    return lo, (TOTALRAM if hi is None else hi)


def kstrtou64(s):
    """The kernel's isdigit() check + kstrtou64(s, 10): (errno, value)."""
    if not s or s[0] not in "0123456789":
        return errno.EINVAL, None
    if s.endswith("\n"):
        s = s[:-1]
    if not s or any(c not in "0123456789" for c in s):
        return errno.EINVAL, None
    v = int(s)
    if v >= U64:
        return errno.ERANGE, None
    return 0, v


def param_parse(name, s):
    r, v = kstrtou64(s)
    if r:
        return r, None
    lo, hi = rng_max(name)
    if v < lo or v > hi:
        return errno.ERANGE, None
    return 0, v


class Dev:
    """What a table word names: a block device (kind, dev_t, sectors,
    read-only) or nothing (lookup fails)."""

    def __init__(self, path):
        st = os.stat(path)
        self.rdev = st.st_rdev
        self.majmin = "%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
        with open("/sys/dev/block/%s/size" % self.majmin) as f:
            self.sectors = int(f.read())
        with open("/sys/dev/block/%s/ro" % self.majmin) as f:
            self.ro = f.read().strip() == "1"


class Fuzzer:
    def __init__(self, seed, paths, live_paths):
        self.rnd = random.Random(seed)
        self.dm = DM()
        self.kmsg = Kmsg()
        self.origin, self.cache, self.small, self.ro = (
            Dev(p) for p in paths)
        self.paths = paths
        self.live_origin, self.live_cache = (Dev(p) for p in live_paths)
        self.live_paths = live_paths
        self.fail = 0
        self.counts = {}
        self.stop = threading.Event()
        self.io_errors = []
        self.io_count = 0
        self.live_lock = threading.Lock()
        self.clean = False

    # ------------------------------------------------------------ helpers
    def bad(self, what):
        self.fail += 1
        print("FAIL: " + what, flush=True)
        if self.fail >= 20:
            print("FAIL: too many failures, stopping", flush=True)
            raise SystemExit(1)

    def count(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    def param(self, name):
        with open(os.path.join(PARAMS, name)) as f:
            return int(f.read())

    def word_for(self, pool):
        """A device word and what it resolves to (a Dev or None)."""
        kind = self.rnd.choice(pool)
        o, c = self.origin, self.cache
        table = {
            "origin": (self.paths[0], o),
            "origin_mm": (o.majmin, o),
            "cache": (self.paths[1], c),
            "cache_mm": (c.majmin, c),
            "small": (self.paths[2], self.small),
            "ro": (self.paths[3], self.ro),
            "missing": ("/dev/l2arc-fuzz-none", None),
            "missing_mm": ("250:250", None),
            "dir": ("/tmp", None),
            "file": ("/tmp/fz-file", None),
            "chardev": ("/dev/null", None),
            "self": ("/dev/mapper/fz", "self"),
            "self_mm": (self.fz_majmin, "self"),
            "junk": (self.rnd.choice(["0", ":", "1:", "x:y", "-1:0",
                                      "4294967296:0"]), None),
        }
        return table[kind]

    # -------------------------------------------------------- number words
    def number_word(self, lo, hi, step=1):
        """A word around the bounds lo..hi (hi may be huge), or junk."""
        r = self.rnd.random()
        if self.clean:		# a value in range
            v = self.rnd.choice([lo, hi, self.rnd.randint(lo, hi)])
            return str(v - v % step)
        if r < 0.55:
            cands = [lo, hi, lo + step, hi - step, lo - 1, hi + 1,
                     (lo + hi) // 2, 1 << 32, (1 << 32) - 1, U64 - 1, U64,
                     U64 + 1, 0, 1]
            v = self.rnd.choice(cands)
            if v < 0:
                return "-" + str(-v)
            return str(v)
        if r < 0.8:
            v = self.rnd.randint(lo, max(lo, min(hi, lo + 64 * step)))
            return str(v)
        return self.rnd.choice(["-1", "+8", "0x10", "08", "8k", "1e3",
                                "010", "9" * 25, "abc", "-", "1.5",
                                "18446744073709551616", "4294967296"])

    # ----------------------------------------------------------- the model
    def model(self, words, length):
        """(None, expectations) if the line must load, else (message, _)."""
        if len(words) < 3:
            return "Not enough arguments: need <origin> <cache|-> <block_size>", None
        ow, cw, bw = words[0], words[1], words[2]
        if cw != "-" and ow == cw:
            return "Origin and cache device are the same", None
        r, bs = kstrtou64(bw)
        if r == errno.ERANGE:
            return "Block size overflows", None
        if r:
            return "Block size is not a number", None
        if bs == 0 or bs & (bs - 1):
            return "Block size is not a power of two", None
        if bs < 8 or bs > 2048:
            return "Block size out of range (8 to 2048 sectors)", None
        exp = {"bs": bs, "arc_max": None, "arc_min": None, "pd": None, "wi": None, "tun": {}}
        rest = words[3:]
        if rest:
            r, nr = kstrtou64(rest[0])
            if r == errno.ERANGE or (not r and nr > 0xFFFFFFFF):
                return "Feature count overflows", None
            if r:
                return "Feature count is not a number", None
            if nr > len(rest) - 1:
                return "Not enough feature arguments", None
            if nr < len(rest) - 1:
                return "Too many arguments", None
            if nr % 2:
                return "Features must be key/value pairs", None
            for i in range(1, len(rest), 2):
                k, v = rest[i], rest[i + 1]
                if k in ("arc_max", "arc_min"):
                    if exp[k] is not None:
                        return "Duplicate feature " + k, None
                    r, n = kstrtou64(v)
                    if r == errno.ERANGE:
                        return k + " overflows", None
                    if r:
                        return k + " is not a number", None
                    exp[k] = n
                    if n < ARC_MIN_BLOCKS * bs * 512:
                        return k + " is below 16 blocks", None
                    if n > TOTALRAM:
                        return k + " exceeds the machine's memory", None
                elif k in ("prefetch_disable", "whatif"):
                    e = "pd" if k == "prefetch_disable" else "wi"
                    if exp[e] is not None:
                        return "Duplicate feature " + k, None
                    exp[e] = v
                    if v not in ("0", "1"):
                        return k + " must be 0 or 1", None
                elif k in DEV_TUNABLES:
                    if k in exp["tun"]:
                        return "Duplicate tunable", None
                    r, n = param_parse(k, v)
                    if r == errno.ERANGE:
                        return "Tunable value out of range", None
                    if r:
                        return "Tunable value is not a number", None
                    exp["tun"][k] = n
                else:
                    return "Unknown feature", None
            if exp["arc_min"] is not None and exp["arc_max"] is not None \
                    and exp["arc_min"] > exp["arc_max"]:
                return "arc_min exceeds arc_max", None
        return None, exp

    def model_devices(self, od, cd, cw, bs, length):
        """The ctr's device checks, after the parse."""
        if od is None:
            return "Origin device lookup failed"
        # the device itself: 6.1 opens it and the ctr refuses it; 6.12's
        # dm_get_device() fails to open it
        if od == "self":
            return ("Origin device is this device",
                    "Origin device lookup failed")
        if cw != "-":
            if cd is None:
                return "Cache device lookup failed"
            if cd == "self":
                return ("Cache device is this device",
                        "Cache device lookup failed")
            if cd.ro:
                return "Cache device is read-only"
            if cd.rdev == od.rdev:
                return "Origin and cache device are the same"
            if cd.sectors < CACHE_MIN_BLOCKS * bs:
                return "Cache device is smaller than 16 blocks"
        if length > od.sectors:
            return "Length exceeds the origin device"
        if length % bs:
            return "Length is not a multiple of the block size"
        return None

    # --------------------------------------------------------- a table line
    def random_features(self, bs):
        feats = []
        keys = ["arc_max", "arc_min", "prefetch_disable", "whatif"] + DEV_TUNABLES
        if not self.clean:
            keys += ["unknown_feature", "l2arc_meta_percent",
                     "zfetch_max_distance", "ARC_MAX", ""]
        for _ in range(self.rnd.choice([0, 1, 1, 2, 3, 4, 6, 10])):
            k = self.rnd.choice(keys)
            if k == "":
                k = "-"
            if k == "arc_max":
                v = self.number_word(ARC_MIN_BLOCKS * bs * 512, TOTALRAM,
                                     bs * 512)
            elif k in ("prefetch_disable", "whatif"):
                v = self.rnd.choice(["0", "1"] if self.clean else
                                    ["0", "1", "2", "-1", "01", "true"])
            elif k in RANGES:
                lo, hi = rng_max(k)
                v = self.number_word(lo, hi)
            else:
                v = self.number_word(0, 100)
            if self.clean and k in feats[0::2]:
                continue
            feats += [k, v]
            if self.rnd.random() < 0.05 and not self.clean:	# a repeat
                feats += feats[-2:]
        if self.clean or self.rnd.random() < 0.85:
            count = str(len(feats))
        else:
            count = self.rnd.choice([str(len(feats) + 1),
                                     str(max(0, len(feats) - 1)),
                                     "4294967296", "-2", "x", "2k",
                                     str(U64)])
        if not feats and self.rnd.random() < 0.7:
            return []
        return [count] + feats

    def one_table(self):
        """A random line: in "clean" mode (40 %) one meant to load, with
        values drawn inside their ranges; else anything around them."""
        self.clean = self.rnd.random() < 0.4
        o_pool = ["origin"] * 10 + ["origin_mm"] * 3 + [
            "missing", "missing_mm", "dir", "file", "chardev", "self",
            "self_mm", "junk", "cache", "ro"]
        c_pool = ["cache"] * 8 + ["cache_mm"] * 2 + ["-"] * 6 + [
            "small", "small", "ro", "origin", "origin_mm", "missing", "dir",
            "file", "chardev", "self", "self_mm", "junk"]
        if self.clean:
            o_pool, c_pool = ["origin", "origin_mm"], ["cache", "cache_mm",
                                                       "-", "small"]
        ow, od = self.word_for(o_pool)
        if self.rnd.random() < 0.25:
            cw, cd = "-", None
        else:
            ck = self.rnd.choice(c_pool)
            if ck == "-":
                cw, cd = "-", None
            else:
                cw, cd = self.word_for([ck])
        bw = self.number_word(8, 2048) if self.rnd.random() < 0.3 and \
            not self.clean else str(1 << self.rnd.randint(3, 11))
        try:
            bs_guess = int(bw)
        except ValueError:
            bs_guess = 8
        if bs_guess <= 0 or bs_guess > 2048:
            bs_guess = 8
        words = [ow, cw, bw] + self.random_features(bs_guess)
        if self.rnd.random() < 0.03 and not self.clean:
            words = words[:self.rnd.randint(0, 2)]
        osz = self.origin.sectors
        r = 0 if self.clean else self.rnd.random()
        if r < 0.7:
            length = osz - osz % max(bs_guess, 1)
        elif r < 0.8:
            length = max(bs_guess, 8)
        elif r < 0.9:
            length = osz + bs_guess
        else:
            length = self.rnd.randint(1, osz)
        return words, length, od, cd

    def expected_status(self, exp, od, cd, cw, words):
        """The table line and the INFO values the status must show."""
        shift = exp["bs"] * 512
        arc_bytes = exp["arc_max"] if exp["arc_max"] is not None else \
            self.param("arc_max")
        c_max = min(max(arc_bytes // shift, ARC_MIN_BLOCKS), ARC_C_MAX)
        table = "%s %s %d" % (od.majmin, "-" if cw == "-" else cd.majmin,
                              exp["bs"])
        if len(words) > 3:
            table += " " + " ".join(words[3:])
        vals = {"arc_max": c_max * shift}
        pd = exp["pd"] == "1" or self.param("prefetch_disable") == 1
        vals["prefetch_disable"] = int(pd)
        for k in DEV_TUNABLES:
            vals[k] = exp["tun"].get(k, self.param(k))
        return table, vals

    @staticmethod
    def info_values(info):
        """key value pairs after the feature count in the INFO status."""
        w = info.split()
        out = {}
        for i, x in enumerate(w):
            if x in ("arc_max", "prefetch_disable") or x in DEV_TUNABLES:
                out[x] = int(w[i + 1])
        return out

    def check_table(self, i):
        words, length, od, cd = self.one_table()
        line = " ".join(words)
        msg, exp = self.model(words, length)
        if msg is None:
            msg = self.model_devices(od, cd, words[1], exp["bs"], length)
        self.kmsg.lines()
        r = self.dm.load("fz", [(0, length, "l2arc", line)])
        log = self.kmsg.lines()
        desc = "table %d: '0 %d l2arc %s'" % (i, length, line)
        if msg is not None:
            self.count("tables refused")
            if r == 0:
                self.bad("%s loaded; the model expects '%s'" % (desc, msg))
                self.dm.clear("fz")
                return
            alts = msg if isinstance(msg, tuple) else (msg,)
            if not any(": l2arc: " + m in l for m in alts for l in log):
                self.bad("%s failed (errno %d) without '%s' in the log; "
                         "the log says: %s" % (desc, r, "' or '".join(alts),
                                               " | ".join(log[-3:])))
            return
        self.count("tables loaded")
        if r != 0:
            self.bad("%s refused (errno %d, log: %s); the model expects it "
                     "to load" % (desc, r, " | ".join(log[-3:])))
            return
        table, vals = self.expected_status(exp, od, cd, words[1], words)
        e, got = self.dm.status("fz", table=True, inactive=True)
        if e or got != table:
            self.bad("%s: inactive table reads '%s' (errno %d), expected "
                     "'%s'" % (desc, got, e, table))
        e, info = self.dm.status("fz", inactive=True)
        got = self.info_values(info)
        for k, v in vals.items():
            if got.get(k) != v:
                self.bad("%s: status %s is %s, expected %d (status: %s)" %
                         (desc, k, got.get(k), v, info))
        e = self.dm.clear("fz")
        if e:
            self.bad("%s: table clear failed with errno %d" % (desc, e))

    # ------------------------------------------------------ the live device
    def live_table(self):
        bs = 1 << self.rnd.randint(3, 9)
        osz = self.live_origin.sectors
        cw = self.rnd.choice([self.live_paths[1], self.live_cache.majmin,
                              "-"])
        feats = []
        if self.rnd.random() < 0.6:
            feats += ["arc_max", str(self.rnd.choice(
                [v for v in (1 << 20, 4 << 20, 64 << 20)
                 if v >= ARC_MIN_BLOCKS * bs * 512] +
                [ARC_MIN_BLOCKS * bs * 512]))]
        for k in self.rnd.sample(DEV_TUNABLES, self.rnd.randint(0, 3)):
            lo, hi = rng_max(k)
            if k == "l2arc_feed_secs":
                hi = 2		# keep the feed running
            feats += [k, str(self.rnd.choice([lo, hi, (lo + hi) // 2]))]
        words = [self.live_paths[0], cw, str(bs)]
        if feats:
            words += [str(len(feats))] + feats
        return osz - osz % bs, " ".join(words), cw != "-"

    def live_reload(self):
        length, line, self.live_has_cache = self.live_table()
        with self.live_lock:
            r = self.dm.load("fzlive", [(0, length, "l2arc", line)])
            if r:
                self.bad("live reload '%s' refused: errno %d" % (line, r))
                return
            r = self.dm.suspend("fzlive", noflush=self.rnd.random() < 0.3)
            if r:
                self.bad("suspend of fzlive failed: errno %d" % r)
            r = self.dm.resume("fzlive")
            if r:
                self.bad("resume of fzlive failed: errno %d" % r)
        self.count("live reloads")

    def live_suspend_resume(self):
        with self.live_lock:
            if self.dm.suspend("fzlive"):
                self.bad("suspend of fzlive failed")
            if self.rnd.random() < 0.5:
                # a message to a suspended device: l2arc_feed is refused
                e, _ = self.dm.message("fzlive", "l2arc_feed")
                want = errno.EBUSY if self.live_has_cache else errno.EINVAL
                if e != want:
                    self.bad("l2arc_feed on a suspended device: errno %d, "
                             "expected %d" % (e, want))
            if self.dm.resume("fzlive"):
                self.bad("resume of fzlive failed")
        self.count("live suspends")

    def live_message(self):
        self.clean = False
        k = self.rnd.choice(["clear_stats", "verify", "l2arc_feed", "tun",
                             "tun", "tun", "default", "unknown", "extra"])
        if k in ("clear_stats", "verify"):
            msg, want = k, 0
        elif k == "l2arc_feed":
            msg = k
            want = 0 if self.live_has_cache else errno.EINVAL
        elif k == "default":
            name = self.rnd.choice(DEV_TUNABLES)
            msg, want = name + " default", 0
        elif k == "unknown":
            msg, want = self.rnd.choice(["nope", "arc_max 65536",
                                         "verify now", "clear_stats 1",
                                         "prefetch_disable 1",
                                         "l2arc_write_max"]), errno.EINVAL
        elif k == "extra":
            name = self.rnd.choice(DEV_TUNABLES)
            msg, want = name + " 4096 4096", errno.EINVAL
        else:
            name = self.rnd.choice(DEV_TUNABLES)
            lo, hi = rng_max(name)
            v = self.number_word(lo, hi)
            if name == "l2arc_feed_secs" and v.isdigit() and int(v) > 2:
                v = "3601"	# out of range: keep the feed running
            r, n = param_parse(name, v)
            msg, want = name + " " + v, (errno.EINVAL if r else 0)
        with self.live_lock:
            e, text = self.dm.message("fzlive", msg)
            if e != want:
                self.bad("message '%s': errno %d, expected %d" %
                         (msg, e, want))
            if k == "verify" and not e and not text.startswith("t1 "):
                self.bad("verify printed '%s'" % text)
            words = msg.split()
            if len(words) == 2 and words[0] in DEV_TUNABLES:
                _, info = self.dm.status("fzlive")
                got = self.info_values(info).get(words[0])
                if words[1] == "default":
                    expv = self.param(words[0])
                elif want == 0:
                    expv = int(words[1])
                else:
                    expv = None	# unchanged: not checked against a value
                if expv is not None and got != expv:
                    self.bad("message '%s': status shows %s = %s" %
                             (msg, words[0], got))
        self.count("messages")

    def param_write(self):
        self.clean = self.rnd.random() < 0.5
        name = self.rnd.choice(sorted(RANGES))
        lo, hi = rng_max(name)
        if name == "l2arc_feed_secs":
            hi = 2
        v = self.number_word(lo, hi)
        if self.rnd.random() < 0.3:
            v += "\n"
        if name == "l2arc_feed_secs" and v.strip().isdigit() and \
                2 < int(v) <= 3600:
            v = "2"
        if name in ("arc_max", "arc_min") and v.strip().isdigit() and \
                int(v) > (256 << 20) and int(v) < TOTALRAM // 2:
            v = str(64 << 20)	# valid, but not a VM's whole memory
        old = self.param(name)
        r, n = param_parse(name, v)
        try:
            fd = os.open(os.path.join(PARAMS, name), os.O_WRONLY)
            try:
                os.write(fd, v.encode())
                e = 0
            finally:
                os.close(fd)
        except OSError as x:
            e = x.errno
        now = self.param(name)
        if r:
            if e != errno.EINVAL:
                self.bad("param %s <- %r: errno %d, expected EINVAL" %
                         (name, v, e))
            if now != old:
                self.bad("param %s <- %r refused but changed %d -> %d" %
                         (name, v, old, now))
        else:
            if e:
                self.bad("param %s <- %r: errno %d, expected success" %
                         (name, v, e))
            if now != n:
                self.bad("param %s <- %r: reads %d" % (name, v, now))
        self.count("param writes")

    # ------------------------------------------------------------ I/O thread
    def io_thread(self, seed):
        rnd = random.Random(seed)
        nblocks = 4096		# the first 16 MiB, 4 KiB blocks
        gen = [0] * nblocks	# 0: not written by us yet
        buf = mmap.mmap(-1, 4096)
        fd = os.open("/dev/mapper/fzlive", os.O_RDWR | os.O_DIRECT)
        try:
            while not self.stop.is_set():
                b = rnd.randrange(nblocks)
                if rnd.random() < 0.4:
                    g = gen[b] + 1
                    buf.seek(0)
                    buf.write((b"%08d:%08d;" % (b, g)) * 227 +
                              bytes(4096 - 18 * 227))
                    try:
                        n = os.pwritev(fd, [buf], b * 4096)
                    except OSError as x:
                        self.io_errors.append("write %d: %s" % (b, x))
                        continue
                    if n != 4096:
                        self.io_errors.append("write %d: %d bytes" % (b, n))
                    gen[b] = g
                else:
                    try:
                        n = os.preadv(fd, [buf], b * 4096)
                    except OSError as x:
                        self.io_errors.append("read %d: %s" % (b, x))
                        continue
                    if gen[b] and bytes(buf[:18]) != b"%08d:%08d;" % (
                            b, gen[b]):
                        self.io_errors.append(
                            "read %d: %r, expected generation %d" %
                            (b, bytes(buf[:18]), gen[b]))
                self.io_count += 1
        finally:
            os.close(fd)

    # ------------------------------------------------------------------ run
    def run(self, n_tables):
        st = os.stat("/dev/mapper/fz")
        self.fz_majmin = "%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
        self.live_has_cache = True
        t = threading.Thread(target=self.io_thread,
                             args=(self.rnd.randrange(1 << 30),))
        t.start()
        t0 = time.time()
        try:
            for i in range(n_tables):
                self.check_table(i)
                r = self.rnd.random()
                if r < 0.01:
                    self.live_reload()
                elif r < 0.02:
                    self.live_suspend_resume()
                elif r < 0.12:
                    self.live_message()
                elif r < 0.2:
                    self.param_write()
                if i % 100 == 99:
                    print("fuzz: %d tables, %d I/Os, %.0f s" %
                          (i + 1, self.io_count, time.time() - t0),
                          flush=True)
        finally:
            self.stop.set()
            t.join()
        for e in self.io_errors[:10]:
            self.bad("I/O on fzlive: " + e)
        if self.io_count == 0:
            self.bad("the I/O thread did no I/O")
        print("fuzz: " + ", ".join("%s %d" % kv for kv in
                                   sorted(self.counts.items())) +
              ", I/Os %d, I/O errors %d, %.0f s" %
              (self.io_count, len(self.io_errors), time.time() - t0))
        return self.fail


def main():
    global TOTALRAM
    if len(sys.argv) < 7:
        print(__doc__.split("usage: ")[-1], file=sys.stderr)
        return 64
    with open("/proc/meminfo") as f:
        TOTALRAM = int(re.search(r"MemTotal:\s+(\d+) kB", f.read())
                       .group(1)) * 1024
    seed = int(os.environ.get("L2ARC_FUZZ_SEED") or
               random.SystemRandom().randrange(1 << 32))
    n = int(sys.argv[7]) if len(sys.argv) > 7 else 3000
    print("fuzz: seed %d (L2ARC_FUZZ_SEED=%d to repeat), %d tables" %
          (seed, seed, n), flush=True)
    for p in sys.argv[1:7]:
        if not stat.S_ISBLK(os.stat(p).st_mode):
            print("FAIL: %s is not a block device" % p)
            return 1
    fz = Fuzzer(seed, sys.argv[1:5], sys.argv[5:7])
    fails = fz.run(n)
    print("fuzz: %d failure(s); seed %d" % (fails, seed))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

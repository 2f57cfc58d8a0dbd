# SPDX-License-Identifier: GPL-2.0-only
"""Device-mapper ioctls from Python's standard library, for the VM tests.

A table load through dmsetup costs a fork and an exec over 9p (about 0.1 s
under TCG); the fuzzer loads thousands of tables, so it talks to
/dev/mapper/control itself.  Layout and numbers from the kernel's
include/uapi/linux/dm-ioctl.h (interface version 4):

  struct dm_ioctl        312 bytes: version[3], data_size, data_start,
                         target_count, open_count, flags, event_nr,
                         padding, dev (u64), name[128], uuid[129], data[7]
  struct dm_target_spec  40 bytes: sector_start, length (u64), status
                         (s32), next (u32), target_type[16]; then the
                         parameters as a NUL-terminated string
  struct dm_target_msg   sector (u64), then the message string

Every call returns (errno, text): errno 0 on success, the text the kernel
put in the data area (a message's result, a table or status line).
"""
import errno
import fcntl
import os
import struct

DM_IOCTL_FMT = "=3IIIIiIIIQ128s129s7s"
DM_IOCTL_SIZE = struct.calcsize(DM_IOCTL_FMT)
assert DM_IOCTL_SIZE == 312
SPEC_FMT = "=QQiI16s"
SPEC_SIZE = struct.calcsize(SPEC_FMT)
assert SPEC_SIZE == 40

# command numbers (enum in dm-ioctl.h)
DEV_CREATE, DEV_REMOVE, DEV_SUSPEND, DEV_STATUS = 3, 4, 6, 7
TABLE_LOAD, TABLE_CLEAR, TABLE_STATUS, TARGET_MSG = 9, 10, 12, 14

READONLY = 1 << 0
SUSPEND = 1 << 1
STATUS_TABLE = 1 << 4
BUFFER_FULL = 1 << 8
NOFLUSH = 1 << 11
QUERY_INACTIVE_TABLE = 1 << 12
DATA_OUT = 1 << 16


def _iowr(nr):
    return (3 << 30) | (DM_IOCTL_SIZE << 16) | (0xFD << 8) | nr


class DM:
    """One open /dev/mapper/control."""

    def __init__(self):
        self.fd = os.open("/dev/mapper/control", os.O_RDWR)

    def close(self):
        os.close(self.fd)

    def _call(self, cmd, name, flags=0, payload=b"", target_count=0,
              out_size=16384):
        size = DM_IOCTL_SIZE + max(len(payload), out_size)
        hdr = struct.pack(DM_IOCTL_FMT, 4, 0, 0, size, DM_IOCTL_SIZE,
                          target_count, 0, flags, 0, 0, 0,
                          name.encode(), b"", b"")
        buf = bytearray(hdr + payload + bytes(size - DM_IOCTL_SIZE -
                                              len(payload)))
        try:
            fcntl.ioctl(self.fd, _iowr(cmd), buf, True)
        except OSError as e:
            return e.errno, ""
        f = struct.unpack_from(DM_IOCTL_FMT, buf)
        flags_out, data_start = f[7], f[4]
        if flags_out & BUFFER_FULL:
            return errno.ENOSPC, ""
        return 0, bytes(buf[data_start:]), flags_out

    def call(self, cmd, name, **kw):
        r = self._call(cmd, name, **kw)
        return r[0], r[1]

    def create(self, name):
        return self.call(DEV_CREATE, name)[0]

    def remove(self, name):
        return self.call(DEV_REMOVE, name)[0]

    def load(self, name, targets, readonly=False):
        """targets: [(start, length, type, params)]; loads the inactive
        table (the target's ctr runs now).  Returns the errno."""
        payload = b""
        for i, (start, length, ttype, params) in enumerate(targets):
            p = params.encode() + b"\0"
            p += bytes((-(SPEC_SIZE + len(p))) % 8)
            nxt = SPEC_SIZE + len(p) if i + 1 < len(targets) else 0
            payload += struct.pack(SPEC_FMT, start, length, 0, nxt,
                                   ttype.encode()) + p
        return self.call(TABLE_LOAD, name, flags=READONLY if readonly else 0,
                         payload=payload, target_count=len(targets))[0]

    def clear(self, name):
        return self.call(TABLE_CLEAR, name)[0]

    def suspend(self, name, noflush=False):
        return self.call(DEV_SUSPEND, name,
                         flags=SUSPEND | (NOFLUSH if noflush else 0))[0]

    def resume(self, name):
        return self.call(DEV_SUSPEND, name)[0]

    def status(self, name, table=False, inactive=False):
        """The first target's status (INFO) or table line: (errno, text)."""
        flags = (STATUS_TABLE if table else 0) | \
            (QUERY_INACTIVE_TABLE if inactive else 0)
        r = self._call(TABLE_STATUS, name, flags=flags)
        if r[0]:
            return r[0], ""
        data = r[1]
        if len(data) < SPEC_SIZE:
            return 0, ""
        text = data[SPEC_SIZE:].split(b"\0", 1)[0]
        return 0, text.decode()

    def message(self, name, msg):
        """Send a target message (sector 0): (errno, result text)."""
        payload = struct.pack("=Q", 0) + msg.encode() + b"\0"
        r = self._call(TARGET_MSG, name, payload=payload)
        if r[0]:
            return r[0], ""
        text = ""
        if r[2] & DATA_OUT:
            text = r[1].split(b"\0", 1)[0].decode()
        return 0, text


class Kmsg:
    """The kernel log from now on, read without blocking."""

    def __init__(self):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)

    def lines(self):
        out = []
        while True:
            try:
                rec = os.read(self.fd, 8192)
            except BlockingIOError:
                return out
            except OSError as e:
                if e.errno == errno.EPIPE:	# overwritten: go on
                    continue
                raise
            text = rec.decode(errors="replace").split(";", 1)[-1]
            out.append(text.split("\n", 1)[0])

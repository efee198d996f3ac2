#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Which pages ib_umem_get() pins: the cases of umem_pin.sh.

    umem_pin.py zero       read-only MRs on untouched private anonymous
                           memory pin present pages of the process's own,
                           not the zero page, and a write afterwards
                           leaves every page where it was
    umem_pin.py mappings   MRs over other mappings (read-only anonymous,
                           private and shared files) answer as EXPECTED;
                           the pages of a private mapping pinned are the
                           process's own copies, a write keeps them
    umem_pin.py fork       children forked by a registrant register
                           read-only MRs on untouched memory inherited
                           from it: the same, in each of them and in the
                           parent
    umem_pin.py measure    print the mappings cases' outcomes, as
                           EXPECTED is written

Needs root: /proc/self/pagemap shows page frame numbers only to
CAP_SYS_ADMIN, /proc/kpageflags is root's.  Each case
prints what went wrong, a line a problem, and exits 1 on a problem.
The commands go to /dev/infiniband/uverbs0 raw (uverbs_raw.py), so the
MR covers exactly the memory mapped here.
"""
import ctypes
import mmap
import os
import struct
import sys
import tempfile

import uverbs_raw as raw

PAGE = mmap.PAGESIZE
# enum ib_access_flags
REMOTE_READ = 4
# include/uapi/linux/kernel-page-flags.h
KPF_ANON, KPF_ZERO_PAGE = 12, 24

libc = raw.libc
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

problems = []


def problem(msg):
    problems.append(msg)
    print(msg, flush=True)


def touch(addr, n, value=b"x"):
    """Write a byte to each of n pages."""
    for i in range(n):
        ctypes.c_char.from_address(addr + i * PAGE).value = value


def peek(addr):
    return ctypes.c_char.from_address(addr).value


def pfns(addr, n):
    """The page frame number of each of n pages from addr; None where no
    page is present."""
    with open("/proc/self/pagemap", "rb") as f:
        data = os.pread(f.fileno(), 8 * n, addr // PAGE * 8)
    out = []
    for (entry,) in struct.iter_unpack("<Q", data):
        out.append(entry & ((1 << 55) - 1) if entry >> 63 else None)
    return out


def kpageflags(pfn):
    with open("/proc/kpageflags", "rb") as f:
        return struct.unpack("<Q", os.pread(f.fileno(), 8, pfn * 8))[0]


def mr(u, pd, addr, length, access):
    """REG_MR: (outcome, handle)."""
    res = u.reg_mr(pd, addr, length, access)
    return res, struct.unpack_from("<I", u.resp.raw)[0]


def dereg(u, handle):
    res = u.write(raw.DEREG_MR, struct.pack("<I", handle))[0]
    if res != "ok":
        problem("DEREG_MR: %s" % res)


def own_pages(what, addr, n, anon=True):
    """The n pages from addr are present, none is the zero page, and (if
    anon) each is anonymous, i.e. not the page cache of a file: their
    PFNs.  A problem line for each kind of failure, with its first page."""
    got = pfns(addr, n)
    bad = {}
    for i, pfn in enumerate(got):
        if pfn is None:
            kind = "not present after registration"
        elif kpageflags(pfn) >> KPF_ZERO_PAGE & 1:
            kind = "the zero page"
        elif anon and not kpageflags(pfn) >> KPF_ANON & 1:
            kind = "not anonymous (page cache)"
        else:
            continue
        bad.setdefault(kind, []).append(i)
    for kind, pages in bad.items():
        problem("%s: %d of %d pages pinned are %s (first: page %d, pfn %s)" %
                (what, len(pages), n, kind, pages[0], got[pages[0]]))
    return got


def stays(what, addr, n, before):
    """A write to each page, and the PFNs are still before: the pinned
    pages are the ones the process uses."""
    touch(addr, n)
    after = pfns(addr, n)
    moved = [i for i in range(n) if after[i] != before[i]]
    if moved:
        problem("%s: a write moved %d of %d pages (first: page %d, pfn %s -> %s)" %
                (what, len(moved), n, moved[0], before[moved[0]], after[moved[0]]))


def open_pd():
    u = raw.Uverbs()
    u.context()
    return u, u.pd()


def zero():
    """Untouched private anonymous memory, a read-only MR on it (access 0
    and REMOTE_READ alone, as libibverbs sends them): the zero page would
    be what a read fault maps there, and on 6.1 a read-only pin does not
    break COW of it; the device would read zeros for ever."""
    n = 64
    u, pd = open_pd()
    for access, name in ((0, "access 0"), (REMOTE_READ, "REMOTE_READ")):
        addr = raw.pages(n)
        res, handle = mr(u, pd, addr, n * PAGE, access)
        if res != "ok":
            problem("%s: REG_MR: %s" % (name, res))
            continue
        before = own_pages(name, addr, n)
        if peek(addr) != b"\0":
            problem("%s: untouched memory does not read 0" % name)
        stays(name, addr, n, before)
        dereg(u, handle)
    u.close()


def data_file(n, directory=None):
    """An open file (read-write) of n pages of non-zero bytes."""
    f = tempfile.TemporaryFile(dir=directory)
    f.write(b"\xa5" * (n * PAGE))
    f.flush()
    return f


def file_map(fd, n, prot, flags):
    addr = libc.mmap(None, n * PAGE, prot, flags, fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise raw.Failed("mmap: %s" % raw.errname(ctypes.get_errno()))
    return addr


R, RW = mmap.PROT_READ, mmap.PROT_READ | mmap.PROT_WRITE
PRIVATE, SHARED = mmap.MAP_PRIVATE, mmap.MAP_SHARED

# name: (memory, prot, access); memory is "anon", "file" (opened
# read-write) or "file-ro" (opened read-only).
MAPPINGS = {
    "read-only MR on PROT_READ anonymous": ("anon", R, 0),
    "REMOTE_READ MR on PROT_READ anonymous": ("anon", R, REMOTE_READ),
    "writable MR on PROT_READ anonymous": ("anon", R, raw.LOCAL_WRITE),
    "read-only MR on PROT_READ private file": ("file-ro", R, 0),
    "read-only MR on private file": ("file", RW, 0),
    "writable MR on PROT_READ private file": ("file-ro", R, raw.LOCAL_WRITE),
    "read-only MR on PROT_READ shared file, opened read-only": ("file-ro", R, 0),
    "read-only MR on PROT_READ shared file, opened read-write": ("file", R, 0),
    "read-only MR on shared file": ("file", RW, 0),
    "writable MR on shared file": ("file", RW, raw.LOCAL_WRITE),
}
FLAGS = {"private": PRIVATE, "shared": SHARED}


def mapping(name):
    """Map the case's memory, register it: the outcome.  On success the
    pinned pages of a private mapping must be the process's own and stay
    put when it writes (mprotect'ed writable first if need be)."""
    memory, prot, access = MAPPINGS[name]
    n = 4
    u, pd = open_pd()
    f = None
    try:
        if memory == "anon":
            addr, private = raw.pages(n, prot), True
        else:
            f = data_file(n)
            private = " private " in name
            fd = os.open("/proc/self/fd/%d" % f.fileno(),
                         os.O_RDONLY if memory == "file-ro" else os.O_RDWR)
            try:
                addr = file_map(fd, n, prot, PRIVATE if private else SHARED)
            finally:
                os.close(fd)
        res, handle = mr(u, pd, addr, n * PAGE, access)
        if res != "ok" or not private:
            if res == "ok":
                dereg(u, handle)
            return res
        before = own_pages(name, addr, n)
        if prot != RW and libc.mprotect(addr, n * PAGE, RW):
            raise raw.Failed("mprotect: %s" % raw.errname(ctypes.get_errno()))
        stays(name, addr, n, before)
        dereg(u, handle)
        return res
    finally:
        if f:
            f.close()
        u.close()


# Measured on the stock 6.1.0-56 stack (`umem_pin.py measure` under
# scripts/vm --stock; the files are in the test's TMPDIR).  6.1 pins every
# umem with FOLL_WRITE, and a read-only one with FOLL_FORCE as well: a
# read-only MR may cover memory mapped read-only if the mapping is private
# (the pin takes a private copy, as ptrace would), never a read-only
# shared mapping (EFAULT), whether the file was opened for writing or not.
EXPECTED = {
    "read-only MR on PROT_READ anonymous": "ok",
    "REMOTE_READ MR on PROT_READ anonymous": "ok",
    "writable MR on PROT_READ anonymous": "EFAULT",
    "read-only MR on PROT_READ private file": "ok",
    "read-only MR on private file": "ok",
    "writable MR on PROT_READ private file": "EFAULT",
    "read-only MR on PROT_READ shared file, opened read-only": "EFAULT",
    "read-only MR on PROT_READ shared file, opened read-write": "EFAULT",
    "read-only MR on shared file": "ok",
    "writable MR on shared file": "ok",
}


def mappings():
    for name, want in EXPECTED.items():
        got = mapping(name)
        if got != want:
            problem("%s: got %s, want %s" % (name, got, want))


def fork():
    """A registrant with a read-only MR on untouched memory forks
    CHILDREN children, which register read-only MRs over untouched memory
    inherited from it, all at once: each pins pages of its own, not the
    zero page, and keeps them when it writes; the parent's pinned pages
    stay its own across the forks (6.1 gives a child a copy of a pinned
    anonymous page at fork)."""
    children, n = 8, 64
    u, pd = open_pd()
    mine = raw.pages(n)
    res, handle = mr(u, pd, mine, n * PAGE, 0)
    if res != "ok":
        problem("parent: REG_MR: %s" % res)
        return
    before = own_pages("parent", mine, n)
    inherited = raw.pages(n)
    pids = []
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                del problems[:]
                cu, cpd = open_pd()
                cres, _ = mr(cu, cpd, inherited, n * PAGE, 0)
                if cres != "ok":
                    problem("child: REG_MR: %s" % cres)
                else:
                    stays("child", inherited, n, own_pages("child", inherited, n))
                status = 1 if problems else 0
            finally:
                os._exit(status)
        pids.append(pid)
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        if status:
            problem("child: status %#x" % status)
    stays("parent", mine, n, before)
    dereg(u, handle)
    u.close()


def measure():
    for name in MAPPINGS:
        print("    %r: %r," % (name, mapping(name)))


def main():
    cases = {"zero": zero, "mappings": mappings, "fork": fork, "measure": measure}
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        cases[sys.argv[1]]()
    except raw.Failed as e:
        problem("setup: %s" % e)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Hold rdma_user_mmap_io() mappings of umap0 while a test removes it.

    uverbs_umap.py DIR

umap0 is the test-only module umap_test's device: its user context
offers two pages (the first starting with b"umap-page") at mmap offset
0, mapped with rdma_user_mmap_io().  This opens its uverbs device, gets
a context with write() (uverbs_raw.py), maps the pages twice, A
read-only and B writable, unmaps A's second page (splitting the VMA: the
piece left is tracked by the VMA's open), forks a child that reads B
(stock's children inherit the mapping) and prints "child: DATA" (or the
signal that killed it), prints "mapped: DATA DATA" and creates
DIR/ready.  Once DIR/go exists (at most 30 s) it prints the answer of a
new mmap() ("mmap again: X"), reads A ("read: DATA", "zeros" for a
zeroed page), writes B's second page and reads it back ("write: ok"),
unmaps B ("munmap: ok"), then prints the async event waiting on the
context's async event file ("async: NAME", "none" after a second).  A
signal (SIGBUS: the mapping was revoked and nothing replaced it) kills
the process on the way.
"""
import ctypes
import glob
import mmap
import os
import select
import signal
import struct
import sys
import time

import uverbs_raw
from uverbs_raw import libc

PS = mmap.PAGESIZE
MAP_FAILED = ctypes.c_void_p(-1).value


def device():
    for path in glob.glob("/sys/class/infiniband_verbs/uverbs*/ibdev"):
        with open(path) as f:
            if f.read().strip() == "umap0":
                return "/dev/infiniband/" + path.split("/")[-2]
    raise SystemExit("no uverbs device for umap0")


def map_pages(fd, prot=mmap.PROT_READ):
    """Both pages at offset 0: the address, or the errno's name."""
    addr = libc.mmap(None, 2 * PS, prot, mmap.MAP_SHARED, fd, 0)
    if addr in (None, MAP_FAILED):
        return uverbs_raw.errname(ctypes.get_errno())
    return addr


def child_reads(addr):
    """What a forked child reads at addr, or the signal that killed it."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.write(w, ctypes.string_at(addr, 9))
        os._exit(0)
    os.close(w)
    data = os.read(r, 9)
    os.close(r)
    status = os.waitpid(pid, 0)[1]
    if os.WIFSIGNALED(status):
        return signal.Signals(os.WTERMSIG(status)).name
    return data.decode()


def read_data(addr):
    data = ctypes.string_at(addr, 9)
    return "zeros" if data == bytes(9) else data


def write_back(addr):
    ctypes.memmove(addr, b"written", 7)
    return "ok" if ctypes.string_at(addr, 7) == b"written" else "lost"


# enum ib_event_type
EVENTS = {8: "DEVICE_FATAL"}


def async_event(fd):
    """The first event on the async event file, within a second."""
    if not select.select([fd], [], [], 1)[0]:
        return "none"
    # struct ib_uverbs_async_event_desc: element, event_type, reserved
    try:
        data = os.read(fd, 16)
    except OSError as e:
        return uverbs_raw.errname(e.errno)
    if len(data) < 16:
        return "short read %d" % len(data)
    event = struct.unpack_from("<QI", data)[1]
    return EVENTS.get(event, str(event))


def main():
    d = sys.argv[1]
    uverbs_raw.DEV = device()
    u = uverbs_raw.Uverbs()
    u.context()
    a = map_pages(u.fd)
    b = map_pages(u.fd, mmap.PROT_READ | mmap.PROT_WRITE)
    if isinstance(a, str) or isinstance(b, str):
        raise SystemExit("mmap: %s %s" % (a, b))
    if libc.munmap(a + PS, PS):
        raise SystemExit("munmap of A's second page failed")
    print("child:", child_reads(b), flush=True)
    print("mapped:", ctypes.string_at(a, 9).decode(),
          ctypes.string_at(b, 9).decode(), flush=True)
    open(os.path.join(d, "ready"), "w").close()

    end = time.time() + 30
    while not os.path.exists(os.path.join(d, "go")) and time.time() < end:
        time.sleep(0.1)
    again = map_pages(u.fd)
    print("mmap again:", again if isinstance(again, str) else "ok", flush=True)
    print("read:", read_data(a), flush=True)
    print("write:", write_back(b + PS), flush=True)
    print("munmap:", "failed" if libc.munmap(b, 2 * PS) else "ok", flush=True)
    print("async:", async_event(u.async_fd), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

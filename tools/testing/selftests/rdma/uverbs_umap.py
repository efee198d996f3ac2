#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Hold rdma_user_mmap_io() mappings of umap0 while a test removes it.

    uverbs_umap.py DIR

umap0 is the test-only module umap_test's device: its user context
offers two pages (the first starting with b"umap-page") at mmap offset
0, mapped with rdma_user_mmap_io().  This opens its uverbs device, gets
a context with write() (uverbs_raw.py), maps the pages twice (A and B),
unmaps A's second page (splitting the VMA: the piece left is tracked by
the VMA's open), prints "mapped: DATA DATA" and creates DIR/ready.  Once
DIR/go exists (at most 30 s) it prints the answer of a new mmap()
("mmap again: X"), unmaps B ("munmap: ok"), then reads A: "read: DATA"
if it can, or the process dies of the signal (SIGBUS expected: the
mapping was revoked).
"""
import ctypes
import glob
import mmap
import os
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


def map_pages(fd):
    """Both pages at offset 0: the address, or the errno's name."""
    addr = libc.mmap(None, 2 * PS, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if addr in (None, MAP_FAILED):
        return uverbs_raw.errname(ctypes.get_errno())
    return addr


def main():
    d = sys.argv[1]
    uverbs_raw.DEV = device()
    u = uverbs_raw.Uverbs()
    u.context()
    a, b = map_pages(u.fd), map_pages(u.fd)
    if isinstance(a, str) or isinstance(b, str):
        raise SystemExit("mmap: %s %s" % (a, b))
    if libc.munmap(a + PS, PS):
        raise SystemExit("munmap of A's second page failed")
    print("mapped:", ctypes.string_at(a, 9).decode(),
          ctypes.string_at(b, 9).decode(), flush=True)
    open(os.path.join(d, "ready"), "w").close()

    end = time.time() + 30
    while not os.path.exists(os.path.join(d, "go")) and time.time() < end:
        time.sleep(0.1)
    again = map_pages(u.fd)
    print("mmap again:", again if isinstance(again, str) else "ok", flush=True)
    print("munmap:", "failed" if libc.munmap(b, 2 * PS) else "ok", flush=True)
    print("read:", ctypes.string_at(a, 9), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

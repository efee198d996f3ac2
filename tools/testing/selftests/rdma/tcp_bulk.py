#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Move a checked amount of data over one TCP connection.

    tcp_bulk.py --server ADDR --port PORT [--mib N]
    tcp_bulk.py --client ADDR --port PORT [--mib N]

The client sends N MiB (default 64): a pseudo-random MiB, each copy
stamped with its index in its first eight bytes, so that a lost,
repeated or reordered MiB shows as well as a flipped bit.  The server
builds the same stream, compares what arrives byte for byte, and exits
0 only when all of it came and nothing differed; it prints the MiB/s of
the transfer.  For the NICs' checksum and segmentation offloads
(hw_mlx5_eth, scripts/interop's tcp case): the stream is the stack's
and the NIC's to get right, this only checks it.
"""
import argparse
import random
import socket
import struct
import sys
import time

MIB = 1 << 20


def block():
    return bytearray(random.Random(4791).randbytes(MIB))


def stamped(b, i):
    struct.pack_into(">Q", b, 0, i)
    return b


def server(a):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.server, a.port))
    ls.listen(1)
    ls.settimeout(a.timeout)
    c, peer = ls.accept()
    c.settimeout(a.timeout)
    want, got, i = block(), bytearray(), 0
    t0 = time.monotonic()
    while True:
        d = c.recv(256 * 1024)
        if not d:
            break
        got += d
        while len(got) >= MIB:
            if bytes(got[:MIB]) != bytes(stamped(want, i)):
                off = next(k for k in range(MIB) if got[k] != want[k])
                print("tcp_bulk: MiB %d differs at byte %d" % (i, off))
                return 1
            del got[:MIB]
            i += 1
    secs = time.monotonic() - t0
    if i != a.mib or got:
        print("tcp_bulk: %d MiB and %d bytes received of %d MiB" %
              (i, len(got), a.mib))
        return 1
    print("tcp_bulk: %d MiB from %s checked, %.1f MiB/s" %
          (i, peer[0], i / secs if secs else 0))
    return 0


def client(a):
    s = socket.create_connection((a.client, a.port), timeout=a.timeout)
    b = block()
    for i in range(a.mib):
        s.sendall(stamped(b, i))
    s.shutdown(socket.SHUT_WR)
    s.recv(1)           # the server's close: all of it was taken
    s.close()
    print("tcp_bulk: %d MiB sent" % a.mib)
    return 0


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--server", metavar="ADDR")
    g.add_argument("--client", metavar="ADDR")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    return server(a) if a.server else client(a)


if __name__ == "__main__":
    sys.exit(main())

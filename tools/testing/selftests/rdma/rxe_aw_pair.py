#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""One IBTA 1.5 ATOMIC WRITE between two hosts (pyverbs), for interop.

    rxe_aw_pair.py --server [--dev D --gid N --port P]
    rxe_aw_pair.py --client HOST [--dev D --gid N --port P]

The ends swap QP number, GID, the server's rkey and address and whether
each device reports ATOMIC WRITE (IB_UVERBS_DEVICE_ATOMIC_WRITE) over
TCP port P.  The client first RDMA WRITEs 8 bytes at offset 8 of the
server's MR (filled with 0xee), which must succeed on any pair (and
gives the capture RoCE packets whatever follows), then posts one ATOMIC
WRITE of 8 bytes at offset 0 on a QP of retry_cnt 3 (7 retries for
ever, as stock), and waits up to 60 s for its completion; the server
then reads its bytes.  What each end expects, from the caps:
    both report it        success, and the server holds the 8 bytes
    only the client does  an error completion (the peer refuses; stock
                          6.1 drops the packets: retries exceeded), and
                          the server's bytes untouched
    the client does not   an error completion (its own rxe refuses it)
Each end prints what it saw ("# ..." lines) and exits 0 when that was
what it expected, 1 otherwise.
"""
import argparse
import json
import socket
import sys
import time

from pyverbs import enums as e
from pyverbs.addr import GID
from pyverbs.device import Context
from pyverbs.mr import MR

from rxe_atomic_write import SideEx, has_atomic_write
from rxe_traffic import ACCESS_ALL, PAGE, Side, poll

VALUE = bytes(range(0x11, 0x19))
WRITTEN = bytes(range(0x21, 0x29))
WAIT = 60
RETRY_CNT = 3


def has_aw(dev):
    return has_atomic_write(Context(name=dev).query_device_ex())


class Conn:
    """JSON lines over one TCP connection."""

    def __init__(self, sock):
        self.f = sock.makefile("rw")

    def send(self, obj):
        self.f.write(json.dumps(obj) + "\n")
        self.f.flush()

    def recv(self):
        line = self.f.readline()
        if not line:
            raise EOFError("the peer closed the connection")
        return json.loads(line)


def mine(side):
    return {"qpn": side.qp.qp_num, "gid": str(side.gid)}


def connect(side, peer):
    """side's QP to RTS towards the peer's, as it described it."""
    side.connect_to(peer["qpn"], GID(peer["gid"]), e.IBV_MTU_1024, 14,
                    RETRY_CNT)


def server(a):
    side = Side(a.dev, a.gid, 4)
    mr = MR(side.pd, PAGE, ACCESS_ALL)
    mr.write(b"\xee" * PAGE, PAGE)
    aw = has_aw(a.dev)
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("", a.port))
    lsock.listen(1)
    sock, _ = lsock.accept()
    conn = Conn(sock)
    conn.send(dict(mine(side), rkey=mr.rkey, addr=mr.buf, aw=aw))
    peer = conn.recv()
    connect(side, peer)
    conn.send({"ready": True})
    done = conn.recv()
    got = mr.read(8, 0)
    print("# server: ATOMIC WRITE here %s, at the client %s; client status %s; bytes %s" %
          (aw, peer["aw"], done["status"], got.hex()), flush=True)
    want = VALUE if peer["aw"] and aw else b"\xee" * 8
    want += WRITTEN + b"\xee" * (PAGE - 16)
    return 0 if mr.read(PAGE, 0) == want else 1


def client(a):
    aw = has_aw(a.dev)
    side = SideEx(a.dev, a.gid, 4)
    sock = socket.create_connection((a.client, a.port), timeout=60)
    sock.settimeout(None)
    conn = Conn(sock)
    peer = conn.recv()
    conn.send(dict(mine(side), aw=aw))
    connect(side, peer)
    conn.recv()

    src = MR(side.pd, PAGE, ACCESS_ALL)
    src.write(WRITTEN, 8)
    side.qp.wr_start()
    side.rdma_write(0, peer["rkey"], peer["addr"] + 8, src, 0, 8)
    side.qp.wr_complete()
    wc = poll(side.cq)[0]
    if wc.status != e.IBV_WC_SUCCESS:
        print("# client: the RDMA WRITE before: status %d" % wc.status,
              flush=True)
        conn.send({"status": None})
        return 1

    side.qp.wr_start()
    side.atomic_write(1, peer["rkey"], peer["addr"], VALUE)
    side.qp.wr_complete()
    start = time.monotonic()
    status = None
    while time.monotonic() - start < WAIT:
        got, wcs = side.cq.poll(1)
        if got:
            status = wcs[0].status
            break
        time.sleep(0.001)
    took = time.monotonic() - start
    conn.send({"status": status})
    print("# client: ATOMIC WRITE here %s, at the server %s; status %s after %.2f s" %
          (aw, peer["aw"], status, took), flush=True)
    if status is None:
        return 1
    if aw and peer["aw"]:
        return 0 if status == e.IBV_WC_SUCCESS else 1
    return 0 if status != e.IBV_WC_SUCCESS else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", default="rxe0")
    ap.add_argument("--gid", type=int, default=1)
    ap.add_argument("--port", type=int, default=18515)
    role = ap.add_mutually_exclusive_group(required=True)
    role.add_argument("--server", action="store_true")
    role.add_argument("--client", metavar="HOST")
    a = ap.parse_args()
    return server(a) if a.server else client(a)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Exact RoCEv2 packet sequences from pyverbs, for the wire selftests.

    roce_traffic.py wire --a DEV --b DEV CASE...
    roce_traffic.py hold --dev DEV --peer IPV4 --qps N --dir DIR [--wait SEC]

wire: for each CASE a fresh pair of QPs between devices a and b (GID
index 1, the IPv4 one; path MTU 1024), one work request from a, its
completions on both sides, the data checked; prints "CASE: ok qpns Q,Q"
(the case's QP numbers: its packets are those to them) or "CASE: FAIL
..." (exit status 1 on any failure).  With --counters DIR, the hw
counters of both devices before and after each case go to
DIR/CASE.DEV.before and .after.  Cases and the one
message each sends (see CASES):
    rc_send     RC SEND of 4 KiB              uc_send   UC SEND of 2 KiB
    rc_write    RC RDMA WRITE of 8 KiB        ud_send   UD SEND of 512 B
    rc_read     RC RDMA READ of 8 KiB         rc_fetch_add  RC FETCH_ADD

hold: a target for the packet injector.  On DEV, one MR of one page in
the middle of three (the pages around it filled with CANARY), and N RC
QPs connected (RTS) to made-up QPs 0x100, 0x101, ... at the address
PEER, two receives posted on each (64 bytes at the MR's start); prints
"KEY VALUE..." lines (qpns, psns: the PSN each expects, peer_qpns, rkey,
va, len, pattern, canary), creates DIR/ready, waits for DIR/go (at most
SEC seconds), then prints canary_intact (1: both canary pages as
written), mr_bytes_changed, and fill_bytes (bytes of the three pages
equal to --fill, the byte hostile WRITEs carry).  With --big-mib M, a
second MR of M MiB, remote read only (big_rkey, big_va, big_len), for
a READ that keeps the responder busy.  With --short-read, one more RC QP
(read_qpn, to made-up QP read_peer_qpn, its SQ PSN 5000, a CQ of its
own) posts an RDMA READ of 256 bytes once DIR/read exists (then
DIR/read.posted); after DIR/go, its completion status is printed as
short_read_status (-1: none within 5 s).
"""
import argparse
import ctypes
import ipaddress
import mmap
import os
import sys
import time

from pyverbs import enums as e
from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

GID_INDEX = 1
QKEY = 0x11111111
PAGE = 4096
CANARY = b"CANARY!!"
PATTERN = b"MRdata.."
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)


class Side:
    """One device's objects: context, PD, CQ, MR."""

    def __init__(self, name, size):
        self.ctx = Context(name=name)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        self.mr = MR(self.pd, size, ACCESS)
        self.gid = self.ctx.query_gid(1, GID_INDEX)

    def qp(self, qpt):
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1, max_recv_sge=1)
        return QP(self.pd, QPInitAttr(qp_type=qpt, scq=self.cq, rcq=self.cq, cap=cap))


def connect(qp, qpt, dest_qpn, dgid, rq_psn, sq_psn):
    """RESET to RTS, towards dest_qpn at dgid (RC, UC) or as UD."""
    attr = QPAttr(qp_state=e.IBV_QPS_INIT, cur_qp_state=e.IBV_QPS_RESET)
    attr.port_num = 1
    attr.pkey_index = 0
    attr.qkey = QKEY
    attr.qp_access_flags = ACCESS
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = dest_qpn
    attr.rq_psn = rq_psn
    attr.sq_psn = sq_psn
    attr.max_dest_rd_atomic = 4
    attr.max_rd_atomic = 4
    attr.min_rnr_timer = 12
    # 1.07 s: the capture checks count every packet, and a retransmission
    # is no error on a slow guest (the debug kernel retransmitted an
    # 8 KiB WRITE five times at 14, 67 ms).
    attr.timeout = 18
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    if qpt != e.IBV_QPT_UD:
        gr = GlobalRoute(dgid=dgid, sgid_index=GID_INDEX, hop_limit=64)
        attr.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
    qp.to_rts(attr)


def poll(cq, n=1, secs=10):
    """n completions, or an exception after secs."""
    wcs = []
    end = time.time() + secs
    while len(wcs) < n:
        got, w = cq.poll(num_entries=n - len(wcs))
        wcs += w[:got]
        if not got:
            if time.time() > end:
                raise RuntimeError("%d of %d completions after %ds" % (len(wcs), n, secs))
            time.sleep(0.001)
    for wc in wcs:
        if wc.status != e.IBV_WC_SUCCESS:
            raise RuntimeError("completion status %d (opcode %d)" % (wc.status, wc.opcode))
    return wcs


def fill(mr, size, byte):
    mr.write(bytes([byte]) * size, size)


def send_case(a, b, qpt, size):
    qa, qb = a.qp(qpt), b.qp(qpt)
    connect(qa, qpt, qb.qp_num, b.gid, 100, 200)
    connect(qb, qpt, qa.qp_num, a.gid, 200, 100)
    grh = 40 if qpt == e.IBV_QPT_UD else 0
    fill(a.mr, size, 0xa5)
    fill(b.mr, size + grh, 0)
    qb.post_recv(RecvWR(num_sge=1, sg=[SGE(b.mr.buf, size + grh, b.mr.lkey)]))
    wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(a.mr.buf, size, a.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    if qpt == e.IBV_QPT_UD:
        gr = GlobalRoute(dgid=b.gid, sgid_index=GID_INDEX, hop_limit=64)
        ah = AH(a.pd, attr=AHAttr(port_num=1, is_global=1, gr=gr))
        wr.set_wr_ud(ah, qb.qp_num, QKEY)
    qa.post_send(wr)
    poll(b.cq)
    poll(a.cq)
    got = b.mr.read(size, grh)
    if got != bytes([0xa5]) * size:
        raise RuntimeError("received data differs")
    return [qa, qb]


def rdma_case(a, b, op, size):
    qa, qb = a.qp(e.IBV_QPT_RC), b.qp(e.IBV_QPT_RC)
    connect(qa, e.IBV_QPT_RC, qb.qp_num, b.gid, 100, 200)
    connect(qb, e.IBV_QPT_RC, qa.qp_num, a.gid, 200, 100)
    src, dst = (a, b) if op == e.IBV_WR_RDMA_WRITE else (b, a)
    fill(src.mr, size, 0x5a)
    fill(dst.mr, size, 0)
    wr = SendWR(opcode=op, num_sge=1, sg=[SGE(a.mr.buf, size, a.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(b.mr.rkey, b.mr.buf)
    qa.post_send(wr)
    poll(a.cq)
    if dst.mr.read(size, 0) != bytes([0x5a]) * size:
        raise RuntimeError("data at the destination differs")
    return [qa, qb]


def fetch_add_case(a, b):
    qa, qb = a.qp(e.IBV_QPT_RC), b.qp(e.IBV_QPT_RC)
    connect(qa, e.IBV_QPT_RC, qb.qp_num, b.gid, 100, 200)
    connect(qb, e.IBV_QPT_RC, qa.qp_num, a.gid, 200, 100)
    b.mr.write((40).to_bytes(8, "little"), 8)
    fill(a.mr, 8, 0xff)
    wr = SendWR(opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                sg=[SGE(a.mr.buf, 8, a.mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(b.mr.rkey, b.mr.buf, 2, 0)
    qa.post_send(wr)
    poll(a.cq)
    old = int.from_bytes(a.mr.read(8, 0), "little")
    new = int.from_bytes(b.mr.read(8, 0), "little")
    if (old, new) != (40, 42):
        raise RuntimeError("fetch_add: fetched %d, now %d (want 40, 42)" % (old, new))
    return [qa, qb]


CASES = {
    "rc_send": lambda a, b: send_case(a, b, e.IBV_QPT_RC, 4096),
    "rc_write": lambda a, b: rdma_case(a, b, e.IBV_WR_RDMA_WRITE, 8192),
    "rc_read": lambda a, b: rdma_case(a, b, e.IBV_WR_RDMA_READ, 8192),
    "rc_fetch_add": fetch_add_case,
    "ud_send": lambda a, b: send_case(a, b, e.IBV_QPT_UD, 512),
    "uc_send": lambda a, b: send_case(a, b, e.IBV_QPT_UC, 2048),
}


def counters(dev, path):
    """The device's hw counters into path, "name value" a line."""
    d = "/sys/class/infiniband/%s/ports/1/hw_counters" % dev
    with open(path, "w") as f:
        for n in sorted(os.listdir(d)):
            with open(os.path.join(d, n)) as c:
                f.write("%s %s\n" % (n, c.read().strip()))


def wire(args):
    a, b = Side(args.a, 16384), Side(args.b, 16384)
    ok = True
    keep = []
    for case in args.case:
        if args.counters:
            for dev in (args.a, args.b):
                counters(dev, os.path.join(args.counters, "%s.%s.before" % (case, dev)))
        try:
            qps = CASES[case](a, b)
            keep += qps
            # The responder's packets go out a moment after the
            # requester's completion (an RC ACK may follow it).
            time.sleep(0.2)
            print("%s: ok qpns %s" % (case, ",".join("%#x" % q.qp_num for q in qps)),
                  flush=True)
        except Exception as ex:  # the report names what failed; go on
            print("%s: FAIL %s" % (case, ex), flush=True)
            ok = False
        if args.counters:
            for dev in (args.a, args.b):
                counters(dev, os.path.join(args.counters, "%s.%s.after" % (case, dev)))
    return 0 if ok else 1


def short_read_start(ctx, pd, peer, peer_qpn):
    """An RC QP to peer_qpn with a READ of 256 bytes posted (PSN 5000)."""
    cq = CQ(ctx, 8)
    lmr = MR(pd, PAGE, ACCESS)
    cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    connect(qp, e.IBV_QPT_RC, peer_qpn, peer, 0, 5000)
    return cq, qp, lmr


def short_read_post(qp, lmr):
    wr = SendWR(wr_id=0x5ead, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                sg=[SGE(lmr.buf, 256, lmr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(0x1234, 0x10000)
    qp.post_send(wr)


def short_read_status(cq):
    end = time.time() + 5
    while time.time() < end:
        got, wcs = cq.poll(num_entries=1)
        if got:
            return wcs[0].status
        time.sleep(0.01)
    return -1


def hold(args):
    ctx = Context(name=args.dev)
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    # Three pages: canary, the MR, canary.
    mem = mmap.mmap(-1, 3 * PAGE)
    mem[:] = CANARY * (3 * PAGE // len(CANARY))
    mem[PAGE:2 * PAGE] = PATTERN * (PAGE // len(PATTERN))
    va = ctypes.addressof(ctypes.c_char.from_buffer(mem)) + PAGE
    mr = MR(pd, PAGE, ACCESS, address=va)
    peer = GID(val=str(ipaddress.IPv6Address("::ffff:" + args.peer).exploded))
    qps = []
    for i in range(args.qps):
        cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
        connect(qp, e.IBV_QPT_RC, 0x100 + i, peer, 1000 + 100 * i, 5000)
        for _ in range(2):
            qp.post_recv(RecvWR(num_sge=1, sg=[SGE(va, 64, mr.lkey)]))
        qps.append(qp)
    if args.big_mib:
        big = MR(pd, args.big_mib << 20, e.IBV_ACCESS_REMOTE_READ)
        print("big_rkey %d\nbig_va %d\nbig_len %d" % (big.rkey, big.buf, args.big_mib << 20))
    if args.short_read:
        rcq, rqp, lmr = short_read_start(ctx, pd, peer, 0x100 + args.qps)
        print("read_qpn %d\nread_peer_qpn %d" % (rqp.qp_num, 0x100 + args.qps))
    print("qpns %s" % " ".join(str(q.qp_num) for q in qps))
    print("psns %s" % " ".join(str(1000 + 100 * i) for i in range(args.qps)))
    print("peer_qpns %s" % " ".join(str(0x100 + i) for i in range(args.qps)))
    print("rkey %d\nva %d\nlen %d\npattern %s\ncanary %s"
          % (mr.rkey, va, PAGE, PATTERN.decode(), CANARY.decode()), flush=True)
    open(os.path.join(args.dir, "ready"), "w").close()
    end = time.time() + args.wait
    posted = False
    while not os.path.exists(os.path.join(args.dir, "go")) and time.time() < end:
        if args.short_read and not posted and os.path.exists(os.path.join(args.dir, "read")):
            short_read_post(rqp, lmr)
            posted = True
            open(os.path.join(args.dir, "read.posted"), "w").close()
        time.sleep(0.1)
    if args.short_read:
        print("short_read_status %d" % short_read_status(rcq), flush=True)
    canary_ok = (mem[:PAGE] == CANARY * (PAGE // len(CANARY)) and
                 mem[2 * PAGE:] == CANARY * (PAGE // len(CANARY)))
    want = PATTERN * (PAGE // len(PATTERN))
    changed = sum(1 for x, y in zip(mem[PAGE:2 * PAGE], want) if x != y)
    print("canary_intact %d\nmr_bytes_changed %d\nfill_bytes %d"
          % (canary_ok, changed, mem[:].count(bytes([args.fill]))), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("wire")
    w.add_argument("--a", required=True)
    w.add_argument("--b", required=True)
    w.add_argument("--counters", help="directory for CASE.DEV.before/after")
    w.add_argument("case", nargs="+", choices=sorted(CASES))
    h = sub.add_parser("hold")
    h.add_argument("--dev", required=True)
    h.add_argument("--peer", required=True)
    h.add_argument("--qps", type=int, default=1)
    h.add_argument("--dir", required=True)
    h.add_argument("--wait", type=float, default=60)
    h.add_argument("--big-mib", type=int, default=0)
    h.add_argument("--short-read", action="store_true")
    h.add_argument("--fill", type=lambda v: int(v, 0), default=0x58,
                   help="report how many bytes of the three pages hold this")
    args = ap.parse_args()
    return wire(args) if args.cmd == "wire" else hold(args)


if __name__ == "__main__":
    sys.exit(main())

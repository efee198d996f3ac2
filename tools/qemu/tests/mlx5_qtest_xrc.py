# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's XRC QPs (mlx5-roce*.c, the engine's XRC transport),
# driven without a guest by mlx5_qtest.py after the multicast cases, on
# the RoCE cases' PD, keys, CQ and GID: two XRC domains, an XRC SRQ in
# each (the second with a CQ of its own) and an RMP; an XRC initiator
# (an SQ, no receive queue) and an XRC target of the first domain (no
# SQ, mlx5_ib's shape) connected to each other through the loopback
# queue.  SENDs from the initiator, each naming an XRC SRQ in the WQE's
# XRC segment as libmlx5 writes it: 3000 bytes (three packets) into the
# first domain's SRQ, its CQE on that SRQ's CQ with the SRQ's user index
# and WQE index, the initiator's requester CQE; a WRITE checked under
# that SRQ's PD (the target's own is another, as mlx5_ib's p0 is); then
# a SEND naming the
# other domain's SRQ, and one naming the RMP: the target refuses both
# (a NAK: the initiator's CQE is a remote operation error, 0x14) and
# nothing lands in them.
import struct

from mlx5_qtest import hdr, expect, setf
from mlx5_qtest_qp import QPC, ADS, ST_XRC, RTS, RTR
from mlx5_qtest_roce import (QP, MEM, GID_INDEX, GID, RQ_BYTES, OP_SEND,
                             OP_WRITE, CQE_SEND, CQE_REQ_ERR, check_req,
                             check_resp)

XRC_BUF = 0x3600000      # the initiator's SQ
XRC_DBR = 0x3700000      # records: QPs, SRQs
SRQ_RING = 0x3710000     # XRC SRQ i's ring at + 0x1000 * i
SYND_REM_OP = 0x14


class Xrc:
    def __init__(self, x):
        self.x, self.r, self.qt = x, x.r, x.r.qt

    def xrcd(self):
        st, n = self.r.new(hdr(0x80E))
        expect("ALLOC_XRCD", st, 0)
        return n

    def srq(self, i, xrcd, uidx):
        dbr = XRC_DBR + 0x100 + 0x40 * i
        self.qt.write(dbr, bytes(8))
        self.qt.write(SRQ_RING + 0x1000 * i, bytes(0x1000))
        st, n = self.r.new(self.r.xsrq_in(
            pd=self.x.pd, xrcd=xrcd, cqn=self.x.cqn, log_sz=4, stride=1,
            dbr=dbr, pas=SRQ_RING + 0x1000 * i, uidx=uidx))
        expect("CREATE_XRC_SRQ %d" % i, st, 0)
        return {"n": n, "dbr": dbr, "ring": SRQ_RING + 0x1000 * i, "pc": 0,
                "uidx": uidx}

    def srq_post(self, q, n, addr):
        """WQE pc of the list: the next one's index, a data segment."""
        i = q["pc"]
        w = struct.pack(">HHI", 0, (i + 1) % 16, 0) + bytes(8) + \
            struct.pack(">IIQ", n, self.x.lkey, addr)
        self.qt.write(q["ring"] + 32 * (i % 16), w)
        q["pc"] += 1
        self.qt.write(q["dbr"], struct.pack(">I", q["pc"]))
        return i

    def qps(self, xrcd, tgt_pd):
        ini = QP(0, 0)
        # The initiator has no RQ: its SQ starts the buffer (sq_write
        # adds the RQ's bytes of the RoCE cases' QPs).
        ini.buf, ini.dbr, ini.uidx = XRC_BUF - RQ_BYTES, XRC_DBR, 0x301
        tgt = QP(1, 0)
        tgt.dbr, tgt.uidx = XRC_DBR + 0x40, 0x302
        self.qt.write(XRC_BUF, bytes(0x1000))
        self.qt.write(XRC_DBR, bytes(0x80))
        st, ini.qpn = self.r.new(self.r.qp_in(
            st=ST_XRC, pd=self.x.pd, snd=self.x.cqn, rcv=self.x.cqn,
            log_sq=6, rq_type=3, dbr=ini.dbr, xrcd=xrcd, pas=XRC_BUF,
            extra=lambda b: setf(b, QPC, 136, 24, ini.uidx)))
        expect("CREATE_QP XRC initiator", st, 0)
        st, tgt.qpn = self.r.new(self.r.qp_in(
            st=ST_XRC, pd=tgt_pd, snd=self.x.cqn, rcv=self.x.cqn,
            no_sq=1, rq_type=1, srqn=self.s0, uar=0, dbr=tgt.dbr,
            xrcd=xrcd, extra=lambda b: setf(b, QPC, 136, 24, tgt.uidx)))
        expect("CREATE_QP XRC target", st, 0)
        return ini, tgt

    def connect(self, a, b, rts=True):
        m = self.r.modify

        def init(x):
            setf(x, QPC, 1168, 3, 7)
            setf(x, ADS, 168, 8, 1)

        def rtr(x):
            setf(x, QPC, 64, 3, 3)
            setf(x, QPC, 67, 5, 30)
            setf(x, QPC, 168, 24, b.qpn)
            setf(x, QPC, 1192, 24, 0x200)
            setf(x, QPC, 1160, 3, 2)
            setf(x, QPC, 1187, 5, 1)
            setf(x, ADS, 72, 8, GID_INDEX)
            setf(x, ADS, 88, 8, 64)
            x[ADS + 0x10:ADS + 0x20] = GID
            setf(x, ADS, 144, 16, 0xC100)
            setf(x, ADS, 168, 8, 1)
            setf(x, ADS, 176, 16, 0x5254)
            setf(x, ADS, 192, 32, 0x00123456)

        def rts_f(x):
            setf(x, QPC, 968, 24, 0x200)
            setf(x, QPC, 904, 3, 2)
            setf(x, QPC, 909, 3, 7)
            setf(x, QPC, 912, 3, 7)
            setf(x, ADS, 64, 5, 10)
        a.sq_pc = a.rq_pc = 0
        self.qt.write(a.dbr, bytes(8))
        steps = [("2rst", None), ("rst2init", init), ("init2rtr", rtr)]
        if rts:
            steps.append(("rtr2rts", rts_f))
        for name, f in steps:
            expect("%s 0x%x" % (name, a.qpn), m(name, a.qpn, extra=f), 0)

    def send(self, ini, srqn, n, off, raddr=None):
        body = struct.pack(">I", srqn) + bytes(12)
        if raddr:
            body += struct.pack(">QII", raddr, self.x.lkey, 0)
        body += struct.pack(">IIQ", n, self.x.lkey, MEM + off)
        return self.x.post_send(ini, OP_WRITE if raddr else OP_SEND,
                                body=body)


def xrc(x):
    g = Xrc(x)
    d1, d2 = g.xrcd(), g.xrcd()
    g.s0 = g.srq(0, d1, 0x3A0)["n"]      # the driver's s0: the QP's own
    a = g.srq(1, d1, 0x3A1)
    b = g.srq(2, d2, 0x3A2)
    rmp_dbr = XRC_DBR + 0x200
    x.r.qt.write(rmp_dbr, bytes(8))
    st, rmp = x.r.new(x.r.rmp_in(pd=x.pd, dbr=rmp_dbr, pas=SRQ_RING + 0x4000))
    expect("CREATE_RMP", st, 0)
    # The target's own PD is another (mlx5_ib gives it its p0): its
    # accesses go by the PD of the SRQ each request names.
    st, p0 = x.r.new(hdr(0x800))
    expect("ALLOC_PD", st, 0)
    ini, tgt = g.qps(d1, p0)
    g.connect(ini, tgt)
    g.connect(tgt, ini, rts=False)
    expect("initiator in RTS, target in RTR",
           (x.state(ini), x.state(tgt)), (RTS, RTR))
    x.drain()
    data = bytes((i * 7) & 0xFF for i in range(3000))
    x.mem(0x60000, data)
    x.mem(0x70000, bytes(4096))
    ri = g.srq_post(a, 4096, MEM + 0x70000)
    g.srq_post(b, 4096, MEM + 0x78000)
    si = g.send(ini, a["n"], 3000, 0x60000)
    c = x.poll(2)
    check_req(x.by_qp(c, ini)[0], ini, OP_SEND, si)
    tgt.uidx = a["uidx"]                 # the SRQ's index, not the QP's
    check_resp(x.by_qp(c, tgt)[0], tgt, CQE_SEND, ri, 3000)
    expect("3000 bytes in the first domain's SRQ", x.rd(0x70000, 3000), data)
    # A WRITE through the SRQ's PD (the key is of that PD, not p0's).
    si = g.send(ini, a["n"], 200, 0x60000, raddr=MEM + 0x7A000)
    c = x.poll(1)
    check_req(c[0], ini, OP_WRITE, si)
    expect("WRITE under the SRQ's PD", x.rd(0x7A000, 200), data[:200])
    # Another domain's XRC SRQ, then an RMP: refused by the target.
    for name, srqn in (("another domain's XRC SRQ", b["n"]), ("an RMP", rmp)):
        g.connect(ini, tgt)
        g.connect(tgt, ini, rts=False)
        x.drain()
        x.mem(0x78000, bytes(64))
        si = g.send(ini, srqn, 64, 0x60000)
        c = x.by_qp(x.poll(1), ini)
        expect(name + ": remote operation error",
               (c[0].opcode, c[0].syndrome, c[0].counter),
               (CQE_REQ_ERR, SYND_REM_OP, si))
        expect(name + ": nothing landed", x.rd(0x78000, 64), bytes(64))
        x.drain()
    for q in (ini, tgt):
        x.r.destroy(0x501, q.qpn)
    x.r.destroy(0x90E, rmp)
    for n in (g.s0, a["n"], b["n"]):
        x.r.destroy(0x706, n)
    for d in (d1, d2):
        x.r.destroy(0x80F, d)
    x.r.destroy(0x801, p0)
    return None


def wrap(fn):
    return lambda rdma: fn(rdma.roce)


XRC_CASES = [
    ("XRC: initiator to target, the XRCETH's SRQ, other domains refused",
     wrap(xrc)),
]

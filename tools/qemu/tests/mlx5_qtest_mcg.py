# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's multicast groups (mlx5-mcg.c) and their datagrams
# (mlx5-roce.c, the engine's multicast receive), driven without a guest
# by mlx5_qtest.py after the RoCE cases, on their PD, keys, CQ and GID:
# the capabilities (log_max_mcg, max_qp_mcg, block_lb_mc); ATTACH_TO_MCG
# and DETACH_FROM_MCG with a QP number that names nothing (BAD_RES), an
# RC QP and a QP1 (BAD_PARAM), a unicast GID (BAD_PARAM), a QP attached
# twice and a detach of what is not attached (BAD_PARAM), a short input
# (BAD_INP_LEN), a group of max_qp_mcg QPs and 2^log_max_mcg groups
# (LIM_ERR), a QP destroyed while attached (it leaves its groups); then
# UD QPs: a SEND to a group from a QP of the device goes out on the wire
# once (the AV's multicast MAC, the group's IP) and to each attached QP
# once (GRH and payload checked), to none that is not attached; a QP
# with block_lb_mc sends to the wire alone; the frame from the wire
# reaches every attached QP, after a detach only the rest, after the
# last detach none.
import struct

from mlx5_qtest import hdr, expect, setf, status
from mlx5_qtest_qp import QPC, ST_RC, ST_UD, ST_QP1, RTS
from mlx5_qtest_roce import (QP, MEM, GID_INDEX, GID, CQE_SEND, OP_SEND,
                             check_req, check_resp)

BAD_PARAM, BAD_RES, LIM, BAD_INP_LEN = 0x3, 0x5, 0x8, 0x50
ATTACH, DETACH = 0x806, 0x807
LOG_MAX_MCG, MAX_QP_MCG = 8, 32
QKEY = 0x01234567
UD_BUF = 0x3400000       # UD QP i's buffer at + 0x10000 * i
UD_DBR = 0x3500000       # and its record at + 0x40 * i
GROUP = bytes(10) + b"\xff\xff" + bytes([239, 1, 1, 1])
GROUP_MAC = bytes.fromhex("01005e010101")


def mcg_in(op, qpn, gid=GROUP, size=0x20):
    inp = hdr(op, size=size)
    if size >= 12:
        setf(inp, 0, 72, 24, qpn)
    inp[0x10:size] = gid[:max(0, size - 0x10)]
    return inp


class Mcg:
    def __init__(self, x):
        self.x, self.r = x, x.r

    def st(self, op, qpn, gid=GROUP, size=0x20):
        return self.r.st(mcg_in(op, qpn, gid, size))

    def ud(self, i, block=0, lonely=False):
        """UD QP i (buffer and record of its own), to RTS."""
        qp = QP(i, 0)
        qp.buf, qp.dbr = UD_BUF + 0x10000 * i, UD_DBR + 0x40 * i
        qp.uidx = 0x200 + i
        self.r.qt.write(qp.buf, bytes(0x2000))
        self.r.qt.write(qp.dbr, bytes(8))

        def extra(b):
            setf(b, QPC, 136, 24, qp.uidx)
            setf(b, QPC, 33, 1, block)
        st, qp.qpn = self.r.new(self.r.qp_in(
            st=ST_UD, pd=self.x.pd, snd=self.x.cqn, rcv=self.x.cqn,
            log_sq=6, log_rq=4, rq_stride=2, dbr=qp.dbr, xrcd=0, pas=qp.buf,
            extra=extra))
        expect("CREATE_QP UD %d" % i, st, 0)
        if lonely:
            return qp
        m = self.r.modify
        expect("RST2INIT", m("rst2init", qp.qpn, extra=lambda b: setf(
            b, QPC, 1344, 32, QKEY)), 0)
        expect("INIT2RTR", m("init2rtr", qp.qpn, extra=lambda b: (
            setf(b, QPC, 64, 3, 3), setf(b, QPC, 67, 5, 12))), 0)
        expect("RTR2RTS", m("rtr2rts", qp.qpn), 0)
        expect("in RTS", self.x.state(qp), RTS)
        return qp

    def send(self, qp, n, off=0):
        """A UD SEND of n bytes at MEM + off to the group."""
        av = struct.pack(">IIIHH", QKEY, 0, 0xFFFFFF, 0, 0xC123) + \
            bytes(4) + GROUP_MAC + bytes([0, 64]) + \
            struct.pack(">I", 1 << 30 | GID_INDEX << 20) + GROUP
        body = av + struct.pack(">IIQ", n, self.x.lkey, MEM + off)
        return self.x.post_send(qp, OP_SEND, body=body)


def caps(x):
    d, out = x.r.dev.exec(hdr(0x100, 0 << 1 | 1), 16 + 4096)
    expect("QUERY_HCA_CAP GENERAL", status(out)[0], 0)
    c = out[16:]
    expect("log_max_mcg", c[792 // 8], LOG_MAX_MCG)
    expect("max_qp_mcg", struct.unpack(">I", c[740 // 8:740 // 8 + 4])[0] &
           0x1FFFFFF, MAX_QP_MCG)
    expect("block_lb_mc", c[552 // 8] >> 7, 1)
    return None


def refusals(x):
    g = Mcg(x)
    rc = x.qps[0]
    u = g.ud(2, lonely=True)
    expect("ATTACH of QP 0x3ff (none)", g.st(ATTACH, 0x3FF), BAD_RES)
    expect("ATTACH of a QP number past the table", g.st(ATTACH, 0xFFFFFF),
           BAD_RES)
    expect("ATTACH of an RC QP", g.st(ATTACH, rc.qpn), BAD_PARAM)
    st, qp1 = x.r.new(x.r.qp_in(st=ST_QP1, pd=x.pd, snd=x.cqn, rcv=x.cqn,
                                xrcd=0, dbr=UD_DBR + 0x3C0, pas=UD_BUF))
    expect("CREATE_QP QP1", st, 0)
    expect("ATTACH of the QP1", g.st(ATTACH, qp1), BAD_PARAM)
    x.r.destroy(0x501, qp1)
    expect("ATTACH to a unicast GID", g.st(ATTACH, u.qpn, GID), BAD_PARAM)
    expect("ATTACH to ::ffff:192.0.2.255",
           g.st(ATTACH, u.qpn, GID[:12] + bytes([192, 0, 2, 255])),
           BAD_PARAM)
    expect("ATTACH, input short", g.st(ATTACH, u.qpn, size=0x18),
           BAD_INP_LEN)
    expect("ATTACH", g.st(ATTACH, u.qpn), 0)
    expect("ATTACH again", g.st(ATTACH, u.qpn), BAD_PARAM)
    expect("ATTACH to ff0e::1", g.st(ATTACH, u.qpn, b"\xff\x0e" + bytes(13) +
                                     b"\x01"), 0)
    expect("DETACH from ff0e::2 (no such group)",
           g.st(DETACH, u.qpn, b"\xff\x0e" + bytes(13) + b"\x02"), BAD_PARAM)
    expect("DETACH of an RC QP", g.st(DETACH, rc.qpn), BAD_PARAM)
    expect("DETACH of QP 0x3ff", g.st(DETACH, 0x3FF), BAD_RES)
    # A group of max_qp_mcg QPs; one more is LIM_ERR.
    more = [g.ud(3, lonely=True) for _ in range(MAX_QP_MCG)]
    for q in more[:MAX_QP_MCG - 1]:
        expect("ATTACH to the group", g.st(ATTACH, q.qpn), 0)
    expect("ATTACH, group full", g.st(ATTACH, more[-1].qpn), LIM)
    expect("DETACH", g.st(DETACH, more[0].qpn), 0)
    expect("DETACH twice", g.st(DETACH, more[0].qpn), BAD_PARAM)
    expect("ATTACH, a place again", g.st(ATTACH, more[-1].qpn), 0)
    # A QP destroyed while attached leaves the group.
    expect("DESTROY_QP attached", x.r.destroy(0x501, more[1].qpn), 0)
    expect("ATTACH in its place", g.st(ATTACH, more[0].qpn), 0)
    for q in more:
        x.r.destroy(0x501, q.qpn)
    expect("DETACH", g.st(DETACH, u.qpn), 0)
    expect("DETACH from ff0e::1", g.st(DETACH, u.qpn, b"\xff\x0e" +
                                       bytes(13) + b"\x01"), 0)
    expect("the groups went with their QPs: DETACH",
           g.st(DETACH, u.qpn), BAD_PARAM)
    # 2^log_max_mcg groups; one more is LIM_ERR.
    gid = lambda k: GROUP[:12] + bytes([239, 2, k >> 8, k & 0xFF])
    for k in range(1 << LOG_MAX_MCG):
        expect("ATTACH to group %d" % k, g.st(ATTACH, u.qpn, gid(k)), 0)
    expect("ATTACH to one group too many",
           g.st(ATTACH, u.qpn, gid(1 << LOG_MAX_MCG)), LIM)
    expect("DESTROY_QP in 256 groups", x.r.destroy(0x501, u.qpn), 0)
    u = g.ud(2, lonely=True)
    expect("every group free again: ATTACH",
           g.st(ATTACH, u.qpn, gid(1 << LOG_MAX_MCG)), 0)
    x.r.destroy(0x501, u.qpn)
    return None


def port_up(r):
    """PAOS admin up: the random rounds before may have taken it down."""
    inp = hdr(0x805, size=0x20)
    struct.pack_into(">I", inp, 8, 0x5006)
    setf(inp, 0x10, 8, 8, 1)
    setf(inp, 0x10, 20, 4, 1)
    setf(inp, 0x10, 32, 1, 1)
    expect("PAOS up", r.st(inp, 0x20), 0)


def traffic(x):
    g = Mcg(x)
    port_up(x.r)
    a, b, c, d = (g.ud(i) for i in (4, 5, 6, 7))
    e = g.ud(8, block=1)
    for q in (b, c):
        expect("ATTACH", g.st(ATTACH, q.qpn), 0)
    x.drain()
    x.r.eth.wire.frames()
    data = bytes(range(100))
    x.mem(0x40000, data)
    rb = {q.qpn: x.post_recv(q, [(1024, x.lkey, MEM + 0x50000 + 0x1000 * k)])
          for k, q in enumerate((b, c, d))}
    si = g.send(a, 100, 0x40000)
    cq = x.poll(3)
    check_req(x.by_qp(cq, a)[0], a, OP_SEND, si)
    for k, q in enumerate((b, c)):
        check_resp(x.by_qp(cq, q)[0], q, CQE_SEND, rb[q.qpn], 140)
        got = x.rd(0x50000 + 0x1000 * k, 140)
        expect("GRH: the IPv4 header, to 239.1.1.1", (got[20], got[36:40]),
               (0x45, bytes([239, 1, 1, 1])))
        expect("the payload after the GRH", got[40:], data)
    expect("nothing more (the QP not attached)", x.drain(), [])
    wire = x.r.eth.wire.frames()
    expect("one frame on the wire", len(wire), 1)
    f = wire[0]
    expect("to the AV's multicast MAC, the group's IP, DQPN 0xffffff",
           (f[:6], f[30:34], f[14 + 20 + 8 + 5:14 + 20 + 8 + 8]),
           (GROUP_MAC, bytes([239, 1, 1, 1]), b"\xff\xff\xff"))
    # block_lb_mc: the wire alone.
    si = g.send(e, 100, 0x40000)
    cq = x.poll(1)
    check_req(cq[0], e, OP_SEND, si)
    expect("block_lb_mc: no copy for the attached QPs", x.drain(), [])
    expect("block_lb_mc: one frame on the wire",
           len(x.r.eth.wire.frames()), 1)
    # From the wire: each attached QP, then fewer.
    rb = {q.qpn: x.post_recv(q, [(1024, x.lkey, MEM + 0x50000 + 0x1000 * k)])
          for k, q in enumerate((b, c, d))}
    x.r.eth.wire.send(f)
    cq = x.poll(2)
    for q in (b, c):
        check_resp(x.by_qp(cq, q)[0], q, CQE_SEND, rb[q.qpn], 140)
    expect("from the wire: nothing for the QP not attached", x.drain(), [])
    expect("DETACH b", g.st(DETACH, b.qpn), 0)
    rb[b.qpn] = x.post_recv(b, [(1024, x.lkey, MEM + 0x50000)])
    rb[c.qpn] = x.post_recv(c, [(1024, x.lkey, MEM + 0x51000)])
    x.r.eth.wire.send(f)
    cq = x.poll(1)
    check_resp(cq[0], c, CQE_SEND, rb[c.qpn], 140)
    expect("b detached: nothing for it", x.drain(), [])
    expect("DETACH c", g.st(DETACH, c.qpn), 0)
    x.r.eth.wire.send(f)
    expect("no QP attached: nothing", x.drain(), [])
    for q in (a, b, c, d, e):
        x.r.destroy(0x501, q.qpn)
    return None


def wrap(fn):
    return lambda rdma: fn(rdma.roce)


MCG_CASES = [
    ("MCG: log_max_mcg, max_qp_mcg, block_lb_mc", wrap(caps)),
    ("MCG: ATTACH/DETACH refusals, a full group, all groups, destroys",
     wrap(refusals)),
    ("MCG: UD SEND to a group: wire, loopback, block_lb_mc, from the wire",
     wrap(traffic)),
]

# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's RDMA objects, driven without a guest by mlx5_qtest.py
# (which runs these cases after the Ethernet ones, on the EQ, PD and CQ
# they made): the ROCE and ATOMIC capabilities; XRC domains; SRQs, XRC
# SRQs and RMPs with bad PDs, CQs, domains, sizes and pages; the GID
# table (SET/QUERY_ROCE_ADDRESS) with indexes past it and RoCE v1; QPs of
# every type with bad PDs, CQs, SRQs, domains, sizes, UARs, records and
# pages; the state machine from wrong states, with optional parameters
# a transition does not allow and address paths naming empty GIDs;
# destroys of unknown objects and of objects in use; a send doorbell on
# a QP (a bad WQE: its QP to ERR), on another UAR, for no QP; and random
# rounds over all of it (multicast attaches and detaches among them).  Every bad input must get the PRM's status.
import os
import random
import struct

from mlx5_qtest import BAR0, hdr, status, expect, setf, u24, be

QP_BUF = 0x1600000       # QP buffers: 16 pages
SRQ_BUF = 0x1700000      # SRQ rings
QDBR = 0x1800000         # their doorbell records
CQ2_BUF = 0x1900000      # a CQ of 64 CQEs

BAD_PARAM, BAD_SYS_STATE, BAD_RES = 0x3, 0x4, 0x5
BAD_RES_STATE, BAD_QP_STATE, BAD_INP_LEN = 0x9, 0x10, 0x50
ST_RC, ST_UC, ST_UD, ST_XRC, ST_QP1, ST_UMR = 0x0, 0x1, 0x2, 0x3, 0x8, 0xC
RST, INIT, RTR, RTS, ERR = 0, 1, 2, 3, 6
OP = {"2rst": 0x50A, "2err": 0x507, "rst2init": 0x502, "init2init": 0x50E,
      "init2rtr": 0x503, "rtr2rts": 0x504, "rts2rts": 0x505,
      "sqerr2rts": 0x506, "sqd2rts": 0x50C}
QPC = 0x18               # the QP context in create_qp_in and modify_*_in
ADS = QPC + 0x18         # its primary address path
GID_V4 = bytes(10) + b"\xff\xff" + bytes([10, 34, 0, 1])


class Rdma:
    def __init__(self, eth):
        self.eth, self.qt, self.dev = eth, eth.qt, eth.dev

    def st(self, inp, outlen=16):
        return self.eth.st(inp, outlen)

    def new(self, inp, outlen=16):
        return self.eth.new(inp, outlen)

    def qp_in(self, st=ST_RC, pd=None, snd=None, rcv=None, log_sq=4,
              no_sq=0, rq_type=0, log_rq=4, rq_stride=0, uar=None,
              dbr=QDBR, srqn=0, xrcd=None, npas=None, pas=QP_BUF, pm=3,
              log_page=0, extra=None):
        sq = 0 if no_sq else 64 << log_sq
        rq = (1 << (log_rq + rq_stride + 4)) if rq_type == 0 else 0
        need = -(-(sq + rq) // (4096 << log_page))
        npas = need if npas is None else npas
        inp = hdr(0x500, size=0x110 + 8 * npas)
        setf(inp, QPC, 8, 8, st)
        setf(inp, QPC, 19, 2, pm)
        setf(inp, QPC, 40, 24, self.eth.pd if pd is None else pd)
        setf(inp, QPC, 73, 4, log_rq)
        setf(inp, QPC, 77, 3, rq_stride)
        setf(inp, QPC, 80, 1, no_sq)
        setf(inp, QPC, 81, 4, log_sq)
        setf(inp, QPC, 104, 24, self.dev.uar if uar is None else uar)
        setf(inp, QPC, 163, 5, log_page)
        setf(inp, QPC, 1000, 24, self.cq2 if snd is None else snd)
        setf(inp, QPC, 1224, 24, self.xrcd2 if xrcd is None else xrcd)
        setf(inp, QPC, 1256, 24, self.cq2 if rcv is None else rcv)
        setf(inp, QPC, 1280, 64, dbr)
        setf(inp, QPC, 1381, 3, rq_type)
        setf(inp, QPC, 1384, 24, srqn)
        for i in range(npas):
            struct.pack_into(">Q", inp, 0x110 + 8 * i,
                             pas + (4096 << log_page) * i)
        if extra:
            extra(inp)
        return inp

    def modify(self, name, qpn, opt=0, extra=None):
        if name in ("2rst", "2err"):
            inp = hdr(OP[name], size=16)
        else:
            inp = hdr(OP[name], size=0x110)
            setf(inp, 0, 128, 32, opt)
            setf(inp, QPC, 19, 2, 3)
        setf(inp, 0, 72, 24, qpn)
        if extra:
            extra(inp)
        return self.st(inp)

    def path(self, inp, gid_index=0, grh=1, port=1):
        setf(inp, ADS, 40, 1, grh)
        setf(inp, ADS, 72, 8, gid_index)
        setf(inp, ADS, 88, 8, 64)                   # hop limit
        inp[ADS + 0x10:ADS + 0x20] = GID_V4[:12] + bytes([10, 34, 0, 2])
        setf(inp, ADS, 272, 16, 0xC0DE)             # UDP source port
        setf(inp, ADS, 296, 8, port)
        setf(inp, ADS, 304, 16, 0x5254)
        setf(inp, ADS, 320, 32, 0x00340002)

    def rtr_in(self, inp):
        setf(inp, QPC, 64, 3, 3)                    # MTU 1024
        setf(inp, QPC, 67, 5, 30)
        setf(inp, QPC, 168, 24, 0x123)              # remote QPN
        setf(inp, QPC, 1192, 24, 0x111)             # receive PSN
        self.path(inp)

    def destroy(self, op, n):
        inp = hdr(op, size=16)
        setf(inp, 0, 72, 24, n)
        return self.st(inp)

    def rmp_in(self, pd=None, log_sz=4, stride=5, state=1, wq_type=0,
               lwm=0, dbr=QDBR + 0x100, npas=1, pas=SRQ_BUF):
        inp = hdr(0x90C, size=0x110 + 8 * npas)
        setf(inp, 0x20, 8, 4, state)
        wq = 0x50
        setf(inp, wq, 0, 4, wq_type)
        setf(inp, wq, 48, 16, lwm)
        setf(inp, wq, 72, 24, self.eth.pd if pd is None else pd)
        setf(inp, wq, 128, 64, dbr)
        setf(inp, wq, 268, 4, stride)
        setf(inp, wq, 283, 5, log_sz)
        for i in range(npas):
            struct.pack_into(">Q", inp, 0x110 + 8 * i, pas + 4096 * i)
        return inp

    def xsrq_in(self, op=0x705, pd=None, xrcd=None, cqn=None, log_sz=4,
                stride=1, dbr=QDBR + 0x140, npas=1, pas=SRQ_BUF + 0x10000,
                uidx=0x77):
        inp = hdr(op, size=0x110 + 8 * npas)
        c = 0x10
        setf(inp, c, 4, 4, log_sz)
        setf(inp, c, 37, 3, stride)
        setf(inp, c, 40, 24, self.xrcd if xrcd is None else xrcd)
        setf(inp, c, 72, 24, self.cq2 if cqn is None else cqn)
        setf(inp, c, 136, 24, uidx)
        setf(inp, c, 200, 24, self.eth.pd if pd is None else pd)
        setf(inp, c, 320, 32, dbr >> 32)
        setf(inp, c, 352, 30, (dbr & 0xFFFFFFFF) >> 2)
        for i in range(npas):
            struct.pack_into(">Q", inp, 0x110 + 8 * i, pas + 4096 * i)
        return inp

    def gid_in(self, index, gid=GID_V4, version=2, l3=0, port=0):
        inp = hdr(0x761, size=48)
        setf(inp, 0, 64, 16, index)
        setf(inp, 0, 92, 4, port)
        inp[0x10:0x20] = gid
        setf(inp, 0x10, 144, 16, 0x5254)
        setf(inp, 0x10, 160, 32, 0x00123456)
        setf(inp, 0x10, 212, 4, l3)
        setf(inp, 0x10, 216, 8, version)
        return inp


def caps(r):
    d, out = r.dev.exec(hdr(0x100, 4 << 1 | 1), 16 + 4096)
    expect("QUERY_HCA_CAP ROCE", status(out)[0], 0)
    c = out[16:]
    expect("roce_version: v2", c[0x13], 1 << 2)
    expect("l3_type: IPv4, IPv6", c[0x11] & 0xF, 0x6)
    expect("GID table size", struct.unpack(">H", c[0x1E:0x20])[0], 256)
    d, out = r.dev.exec(hdr(0x100, 3 << 1 | 1), 16 + 4096)
    expect("QUERY_HCA_CAP ATOMIC", status(out)[0], 0)
    c = out[16:]
    expect("compare-swap, fetch-add", struct.unpack(">H", c[0x12:0x14])[0],
           0x3)
    # Capabilities are set between ENABLE_HCA and INIT_HCA only.
    inp = bytes(hdr(0x109, 3 << 1)) + bytes(4096)
    d, out = r.dev.exec(inp, 16)
    expect("SET_HCA_CAP ATOMIC after INIT_HCA", status(out)[0],
           BAD_SYS_STATE)
    return None


def new_objects(r):
    """Two XRC domains and a CQ of the RDMA cases' own."""
    st, r.xrcd = r.new(hdr(0x80E))
    expect("ALLOC_XRCD", st, 0)
    st, r.xrcd2 = r.new(hdr(0x80E))
    expect("ALLOC_XRCD again", (st, r.xrcd2 != r.xrcd), (0, True))
    r.qt.write(CQ2_BUF, bytes([0xF1]) * 4096)
    st, r.cq2 = r.new(r.eth.cq_in(dbr=QDBR + 0x180, pas=CQ2_BUF))
    expect("CREATE_CQ", st, 0)


def xrcd_srq(r):
    new_objects(r)
    expect("DEALLOC_XRCD of none", r.destroy(0x80F, 250), BAD_RES)
    x = r.xsrq_in
    expect("XRC SRQ: no domain", r.st(x(xrcd=0)), BAD_PARAM)
    expect("XRC SRQ: domain 200", r.st(x(xrcd=200)), BAD_PARAM)
    expect("XRC SRQ: PD 999", r.st(x(pd=999)), BAD_PARAM)
    expect("XRC SRQ: CQ 999", r.st(x(cqn=999)), BAD_PARAM)
    expect("XRC SRQ: no CQ", r.st(x(cqn=0)), BAD_PARAM)
    expect("XRC SRQ: pages short", r.st(x(log_sz=15, npas=1)), BAD_INP_LEN)
    expect("XRC SRQ: 1 KiB WQEs", r.st(x(stride=6)), BAD_PARAM)
    expect("XRC SRQ: page unaligned", r.st(x(pas=SRQ_BUF + 8)), BAD_PARAM)
    st, r.xsrq = r.new(x())
    expect("CREATE_XRC_SRQ", st, 0)
    m = r.rmp_in
    expect("RMP: PD 999", r.st(m(pd=999)), BAD_PARAM)
    expect("RMP: created in ERR", r.st(m(state=3)), BAD_PARAM)
    expect("RMP: cyclic WQEs", r.st(m(wq_type=1)), BAD_PARAM)
    expect("RMP: 8-byte WQEs", r.st(m(stride=3)), BAD_PARAM)
    expect("RMP: log size 16", r.st(m(log_sz=16)), BAD_PARAM)
    expect("RMP: limit past the ring", r.st(m(lwm=16)), BAD_PARAM)
    expect("RMP: record unaligned", r.st(m(dbr=QDBR + 0x101)), BAD_PARAM)
    expect("RMP: pages short", r.st(m(log_sz=8, npas=1)), BAD_INP_LEN)
    st, r.rmp = r.new(m())
    expect("CREATE_RMP", st, 0)
    expect("numbers shared by the kinds", r.rmp != r.xsrq, True)
    st, srq = r.new(x(op=0x700, xrcd=0, cqn=0))
    expect("CREATE_SRQ (ISSI 0's)", st, 0)
    expect("QUERY_SRQ of an RMP", r.st(_q(0x702, r.rmp), 0x110), BAD_RES)
    out = r.eth.run(_q(0x707, r.xsrq), 0x110)
    expect("QUERY_XRC_SRQ", out[0], 0)
    expect("its domain", u24(out, 0x14), r.xrcd)
    expect("its user index", u24(out, 0x20), 0x77)
    out = r.eth.run(_q(0x90F, r.rmp), 0x110)
    expect("QUERY_RMP: ready", (out[0], out[0x21] >> 4), (0, 1))
    arm = hdr(0x708, 1, size=16)
    setf(arm, 0, 72, 24, r.xsrq)
    setf(arm, 0, 112, 16, 16)
    expect("ARM_XRC_SRQ: limit past the ring", r.st(arm), BAD_PARAM)
    setf(arm, 0, 112, 16, 3)
    expect("ARM_XRC_SRQ", r.st(arm), 0)
    setf(arm, 0, 72, 24, r.rmp)
    expect("ARM_XRC_SRQ of an RMP", r.st(arm), BAD_RES)
    mod = hdr(0x90D, size=0x110)
    setf(mod, 0, 64, 4, 3)
    setf(mod, 0, 72, 24, r.rmp)
    setf(mod, 0x20, 8, 4, 1)
    expect("MODIFY_RMP from ERR", r.st(mod), BAD_RES_STATE)
    setf(mod, 0, 64, 4, 1)
    setf(mod, 0x10, 0x3F, 1, 1)                     # bitmask: lwm
    setf(mod, 0x50, 48, 16, 2)
    expect("MODIFY_RMP: limit", r.st(mod), 0)
    expect("destroy the ISSI 0 SRQ", r.destroy(0x701, srq), 0)
    expect("DESTROY_RMP of an XRC SRQ", r.destroy(0x90E, r.xsrq), BAD_RES)
    expect("DEALLOC_XRCD of a domain in use", r.destroy(0x80F, r.xrcd),
           BAD_RES_STATE)
    expect("destroy the CQ of an XRC SRQ", r.destroy(0x401, r.cq2), BAD_RES)
    return None


def _q(op, n):
    inp = hdr(op, size=16)
    setf(inp, 0, 72, 24, n)
    return inp


def gids(r):
    expect("index 256", r.st(r.gid_in(256)), BAD_PARAM)
    expect("port 2", r.st(r.gid_in(1, port=2)), BAD_PARAM)
    expect("RoCE v1", r.st(r.gid_in(1, version=0)), BAD_PARAM)
    expect("L3 type 2", r.st(r.gid_in(1, l3=2)), BAD_PARAM)
    expect("index 0: IPv4, v2", r.st(r.gid_in(0)), 0)
    inp = hdr(0x760, size=16)
    setf(inp, 0, 64, 16, 0)
    out = r.eth.run(inp, 48)
    expect("QUERY_ROCE_ADDRESS", (out[0], out[0x10:0x20], out[0x2B]),
           (0, GID_V4, 2))
    setf(inp, 0, 64, 16, 300)
    expect("QUERY_ROCE_ADDRESS 300", r.st(inp, 48), BAD_PARAM)
    expect("delete index 5 (zeros)", r.st(r.gid_in(5, gid=bytes(16),
                                                    version=0)), 0)
    return None


def qp_create(r):
    q = r.qp_in
    r.qt.write(QDBR, bytes(0x200))
    expect("type 4 (MLX)", r.st(q(st=4)), BAD_PARAM)
    expect("type 9 (raw)", r.st(q(st=9)), BAD_PARAM)
    expect("PD 999", r.st(q(pd=999)), BAD_PARAM)
    expect("no PD", r.st(q(pd=0)), BAD_PARAM)
    expect("send CQ 999", r.st(q(snd=999)), BAD_PARAM)
    expect("no send CQ", r.st(q(snd=0)), BAD_PARAM)
    expect("receive CQ 999", r.st(q(rcv=999)), BAD_PARAM)
    expect("SRQ 250", r.st(q(rq_type=1, srqn=250)), BAD_PARAM)
    expect("RQ type 2", r.st(q(rq_type=2)), BAD_PARAM)
    expect("domain 200", r.st(q(xrcd=200)), BAD_PARAM)
    expect("XRC without a domain", r.st(q(st=ST_XRC, xrcd=0, rq_type=1,
                                          srqn=r.xsrq)), BAD_PARAM)
    expect("SQ of 2^15 blocks, pages short", r.st(q(log_sq=15, npas=1)),
           BAD_INP_LEN)
    expect("RQ WQEs of 1 KiB", r.st(q(rq_stride=6)), BAD_PARAM)
    expect("UAR not allocated", r.st(q(uar=r.dev.uar + 9)), BAD_PARAM)
    expect("record unaligned", r.st(q(dbr=QDBR + 4)), BAD_PARAM)
    expect("pages short", r.st(q(log_sq=8, npas=1)), BAD_INP_LEN)
    expect("page unaligned", r.st(q(pas=QP_BUF + 0x80)), BAD_PARAM)
    expect("not migrated", r.st(q(pm=0)), BAD_PARAM)
    expect("WQE signatures", r.st(q(extra=lambda b: setf(b, QPC, 32, 1, 1))),
           BAD_PARAM)
    expect("a chosen QPN", r.st(q(extra=lambda b: setf(b, 0, 72, 24, 5))),
           BAD_PARAM)
    expect("cross channel", r.st(q(extra=lambda b: setf(b, QPC, 1183, 1,
                                                        1))), BAD_PARAM)
    expect("DETH source QPN", r.st(q(extra=lambda b: setf(b, QPC, 1032, 24,
                                                          1))), BAD_PARAM)
    expect("counter set 60", r.st(q(extra=lambda b: setf(b, QPC, 96, 8,
                                                         60))), BAD_PARAM)
    st, r.rc = r.new(q())
    expect("CREATE_QP RC", (st, r.rc >= 0x400), (0, True))
    st, r.ud = r.new(q(st=ST_UD))
    expect("CREATE_QP UD", st, 0)
    st, r.qp1 = r.new(q(st=ST_QP1))
    expect("CREATE_QP QP1", st, 0)
    expect("a second QP1", r.st(q(st=ST_QP1)), BAD_RES_STATE)
    st, r.umr = r.new(q(st=ST_UMR, pd=0, rq_type=3))
    expect("CREATE_QP REG_UMR, no PD", st, 0)
    st, r.srq_qp = r.new(q(st=ST_UC, rq_type=1, srqn=r.rmp))
    expect("CREATE_QP UC on the RMP", st, 0)
    st, r.xtgt = r.new(q(st=ST_XRC, no_sq=1, rq_type=1, srqn=r.xsrq,
                         snd=0, uar=0))
    expect("CREATE_QP XRC target (no SQ, no buffer)", st, 0)
    return None


def qp_states(r):
    m = r.modify
    expect("modify QP 0x3ff", m("rst2init", 0x3FF), BAD_RES)
    expect("modify QP 0x7ff", m("rst2init", 0x7FF), BAD_RES)
    for op in ("init2init", "init2rtr", "rtr2rts", "rts2rts", "sqerr2rts",
               "sqd2rts"):
        expect(op + " from RST", m(op, r.rc), BAD_QP_STATE)
    expect("RST2INIT: port 2", m("rst2init", r.rc, extra=lambda b: setf(
        b, ADS, 296, 8, 2)), BAD_PARAM)
    expect("RST2INIT: P_Key index 128", m("rst2init", r.rc, extra=lambda b:
                                          setf(b, ADS, 16, 16, 128)),
           BAD_PARAM)
    expect("RST2INIT: counter set 60", m("rst2init", r.rc, extra=lambda b:
                                         setf(b, QPC, 96, 8, 60)), BAD_PARAM)
    expect("RST2INIT: an optional bit", m("rst2init", r.rc, opt=1 << 3),
           BAD_PARAM)

    def init(b):
        setf(b, QPC, 1168, 3, 7)                    # rre, rwe, rae
        setf(b, ADS, 296, 8, 1)
    expect("RST2INIT", m("rst2init", r.rc, extra=init), 0)
    expect("RST2INIT again", m("rst2init", r.rc), BAD_QP_STATE)
    expect("INIT2INIT: Q_Key on RC", m("init2init", r.rc, opt=1 << 5),
           BAD_PARAM)
    expect("INIT2INIT: RWE", m("init2init", r.rc, opt=1 << 3), 0)
    expect("INIT2RTR: GID index 7 (empty)", m("init2rtr", r.rc,
                                              extra=lambda b: (
        r.rtr_in(b), setf(b, ADS, 72, 8, 7))), BAD_PARAM)
    expect("INIT2RTR: GID index 5 (deleted)", m("init2rtr", r.rc,
                                                extra=lambda b: (
        r.rtr_in(b), setf(b, ADS, 72, 8, 5))), BAD_PARAM)
    expect("INIT2RTR: MTU 0", m("init2rtr", r.rc, extra=lambda b: (
        r.rtr_in(b), setf(b, QPC, 64, 3, 0))), BAD_PARAM)
    expect("INIT2RTR: MTU 6", m("init2rtr", r.rc, extra=lambda b: (
        r.rtr_in(b), setf(b, QPC, 64, 3, 6))), BAD_PARAM)
    expect("INIT2RTR: messages of 2^31", m("init2rtr", r.rc, extra=lambda b:
                                           (r.rtr_in(b),
                                            setf(b, QPC, 67, 5, 31))),
           BAD_PARAM)
    expect("INIT2RTR", m("init2rtr", r.rc, extra=r.rtr_in), 0)

    def rts(b):
        setf(b, QPC, 968, 24, 0x222)
        setf(b, QPC, 909, 3, 7)
    expect("RTR2RTS", m("rtr2rts", r.rc, extra=rts), 0)
    out = r.eth.run(_q(0x50B, r.rc), 0x110)
    expect("QUERY_QP: RTS, RC", (out[0], out[QPC] >> 4, out[QPC + 1]),
           (0, RTS, ST_RC))
    expect("the path kept: GID index, UDP port, rgid, rmac",
           (out[ADS + 9], struct.unpack(">H", out[ADS + 0x22:ADS + 0x24])[0],
            out[ADS + 0x10:ADS + 0x20], out[ADS + 0x26:ADS + 0x2C]),
           (0, 0xC0DE, GID_V4[:12] + bytes([10, 34, 0, 2]),
            bytes.fromhex("525400340002")))
    expect("the PSNs, remote QPN", (u24(out, QPC + 0x78), u24(out, QPC + 0x94),
                                     u24(out, QPC + 0x14)),
           (0x222, 0x111, 0x123))
    expect("RTS2RTS: counter set 60", m("rts2rts", r.rc, opt=1 << 25,
                                        extra=lambda b: setf(b, QPC, 96, 8,
                                                             60)), BAD_PARAM)
    expect("RTS2RTS: min RNR timer", m("rts2rts", r.rc, opt=1 << 6), 0)
    expect("SQERR2RTS from RTS", m("sqerr2rts", r.rc), BAD_QP_STATE)
    expect("2ERR", m("2err", r.rc), 0)
    expect("RTS2RTS from ERR", m("rts2rts", r.rc), BAD_QP_STATE)
    expect("2RST", m("2rst", r.rc), 0)
    # UD and QP1: Q_Key at RST2INIT, no path; SRQ and CQ at RTS2RTS.
    for qpn in (r.ud, r.qp1, r.umr):
        expect("RST2INIT", m("rst2init", qpn), 0)
        expect("INIT2RTR", m("init2rtr", qpn, extra=lambda b: (
            setf(b, QPC, 64, 3, 5), setf(b, QPC, 67, 5, 12))), 0)
        expect("RTR2RTS", m("rtr2rts", qpn), 0)
    expect("UD RTS2RTS: SRQ of a QP with its own RQ",
           m("rts2rts", r.ud, opt=1 << 18), BAD_PARAM)
    expect("UD RTS2RTS: receive CQ 999", m("rts2rts", r.ud, opt=1 << 19,
                                            extra=lambda b: setf(
        b, QPC, 1256, 24, 999)), BAD_PARAM)
    return None


def qp_doorbell(r):
    # QP1 is in RTS: a WQE of size 0 is an error CQE and takes it to ERR;
    # doorbells for no QP and on another UAR run nothing.
    r.qt.write(QP_BUF, bytes(64))
    r.qt.write(QDBR + 4, struct.pack(">I", 1))
    for qpn in (r.qp1, 0x7FF, 0xFFFFFF):
        r.qt.writel(BAR0 + r.dev.uar * 4096 + 0x800, 0)
        r.qt.writel(BAR0 + r.dev.uar * 4096 + 0x804, be(qpn << 8))
    r.qt.writel(BAR0 + (r.dev.uar + 1) * 4096 + 0x804, be(r.qp1 << 8))
    expect("QUERY_QP after the doorbells", r.eth.run(_q(0x50B, r.qp1),
                                                      0x110)[QPC] >> 4, ERR)
    return None


def destroys(r):
    expect("DESTROY_QP 0x7ff", r.destroy(0x501, 0x7FF), BAD_RES)
    expect("QUERY_QP 1", r.st(_q(0x50B, 1), 0x110), BAD_RES)
    expect("destroy the RMP a QP uses", r.destroy(0x90E, r.rmp),
           BAD_RES_STATE)
    expect("destroy the XRC SRQ a QP uses", r.destroy(0x706, r.xsrq),
           BAD_RES_STATE)
    expect("dealloc the domain QPs name", r.destroy(0x80F, r.xrcd2),
           BAD_RES_STATE)
    expect("destroy the CQ QPs use", r.destroy(0x401, r.cq2), BAD_RES)
    for qpn in (r.rc, r.ud, r.qp1, r.umr, r.srq_qp, r.xtgt):
        expect("DESTROY_QP 0x%x" % qpn, r.destroy(0x501, qpn), 0)
    expect("DESTROY_QP twice", r.destroy(0x501, r.rc), BAD_RES)
    expect("the CQ the XRC SRQ still uses", r.destroy(0x401, r.cq2),
           BAD_RES)
    expect("the domain the XRC SRQ names", r.destroy(0x80F, r.xrcd),
           BAD_RES_STATE)
    expect("the RMP, free now", r.destroy(0x90E, r.rmp), 0)
    expect("the XRC SRQ", r.destroy(0x706, r.xsrq), 0)
    expect("the CQ", r.destroy(0x401, r.cq2), 0)
    expect("the domains", (r.destroy(0x80F, r.xrcd),
                           r.destroy(0x80F, r.xrcd2)), (0, 0))
    new_objects(r)                  # for the random rounds
    return None


def fuzz(r):
    """Random RDMA commands over live and dead numbers; QEMU stays."""
    rnd = random.Random(int(os.environ.get("FUZZ_SEED", "34")) + 1)
    rounds = int(os.environ.get("FUZZ_ROUNDS", "2000")) // 4
    seen = {}
    ops = [0x500, 0x501, 0x502, 0x503, 0x504, 0x505, 0x506, 0x507, 0x50A,
           0x50B, 0x50C, 0x50E, 0x700, 0x701, 0x702, 0x703, 0x705, 0x706,
           0x707, 0x708, 0x80E, 0x80F, 0x90C, 0x90D, 0x90E, 0x90F, 0x760,
           0x761, 0x765, 0x806, 0x807]

    def mcg_in():
        inp = hdr(rnd.choice([0x806, 0x807]), size=0x20)
        setf(inp, 0, 72, 24, 0x400 + rnd.randrange(8))
        inp[0x10:0x20] = GID_V4[:12] + bytes([239, 1, 1, rnd.randrange(4)])
        return inp
    builders = [lambda: r.qp_in(st=rnd.choice([0, 1, 2, 3, 8, 12, 5])),
                lambda: r.rmp_in(), lambda: r.xsrq_in(),
                lambda: r.gid_in(rnd.randrange(300)), mcg_in]
    for _ in range(rounds):
        x = rnd.random()
        if x < 0.3:
            # a valid-looking create with a few bits flipped
            inp = bytearray(rnd.choice(builders)())
            for _ in range(rnd.randrange(4)):
                i = rnd.randrange(len(inp))
                inp[i] ^= 1 << rnd.randrange(8)
        elif x < 0.6:
            # a modify of a live QP number, random context and mask
            inp = bytearray(rnd.randbytes(0x110))
            struct.pack_into(">HHHH", inp, 0, rnd.choice(
                [0x502, 0x503, 0x504, 0x505, 0x506, 0x507, 0x50A, 0x50B,
                 0x50C, 0x50E, 0x501]), 0, 0, 0)
            struct.pack_into(">I", inp, 8, 0x400 + rnd.randrange(8))
            if rnd.random() < 0.5:
                struct.pack_into(">I", inp, 0x10, rnd.choice(
                    [0, 1 << 5, 1 << 3, 1 << 25, 1 << 18, 1 << 19]))
        else:
            inp = bytearray(rnd.randbytes(rnd.choice([16, 48, 0x110,
                                                      0x118, 0x200])))
            struct.pack_into(">HHHH", inp, 0, rnd.choice(ops), 0, 0,
                             rnd.randrange(3))
            for off in (8, 0x14, 0x1C, 0x44):
                if off + 4 <= len(inp) and rnd.random() < 0.5:
                    struct.pack_into(">I", inp, off, rnd.choice(
                        [rnd.randrange(4), 0x400 + rnd.randrange(8)]))
        out = r.eth.run(inp, rnd.choice([16, 48, 0x110, 0x210]))
        k = "status 0x%x" % out[0]
        seen[k] = seen.get(k, 0) + 1
        if rnd.random() < 0.05:
            r.qt.writel(BAR0 + r.dev.uar * 4096 + 0x804,
                        be((0x400 + rnd.randrange(8)) << 8))
    expect("still alive", r.dev.reg(0x4) >> 16, 5)
    print("# %d rounds: %s" % (rounds, ", ".join(
        "%s %d" % kv for kv in sorted(seen.items()))))
    return None


QP_CASES = [
    ("ROCE and ATOMIC capabilities; SET_HCA_CAP after INIT_HCA", caps),
    ("XRC domains, XRC SRQs, RMPs, SRQs: checks, queries, limits, kinds",
     xrcd_srq),
    ("GID table: SET/QUERY_ROCE_ADDRESS, indexes, ports, versions", gids),
    ("CREATE_QP: types, PD, CQs, SRQ, domain, sizes, UAR, record, pages",
     qp_create),
    ("QP state machine: wrong states, optional bits, paths, QUERY_QP",
     qp_states),
    ("a QP's send doorbell: a bad WQE, other UARs, no QP", qp_doorbell),
    ("destroys: unknown QPs; SRQs, domains and CQs in use", destroys),
    ("random QP, SRQ, XRCD and GID commands", fuzz),
]

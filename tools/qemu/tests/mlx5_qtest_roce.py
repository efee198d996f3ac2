# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's RoCE data path (mlx5-roce*.c and the RoCEv2 engine),
# driven without a guest by mlx5_qtest.py, which runs these cases after
# the QP cases and before their random rounds: two RC QPs of one device,
# each sending to a GID of the device's own (the loopback queue), with
# send and receive WQEs, records and CQEs laid out as mlx5_ib and libmlx5
# lay them out.  SEND (two data segments, several packets), SEND with
# immediate, inline SEND, WRITE, WRITE with immediate, READ, fetch-and-add
# and compare-and-swap, each with its data checked and its CQEs decoded
# (opcode, send opcode, WQE counter, byte count, QPN, user index,
# immediate); a SEND before its receive (RNR: the device rereads the
# receive queue's record when the peer retries); a bad lkey (a local
# protection error CQE, the QP in ERR for QUERY_QP); a WRITE through a key
# without remote write (remote access error); a QP moved to ERR flushes
# its receive and send WQEs, and a receive posted in ERR (no doorbell:
# the device rereads the record); then random WQEs, records and RoCE
# frames on the wire: error CQEs at worst, never a dead QEMU.
import os
import random
import struct

from mlx5_qtest import BAR0, hdr, expect, setf, u24, be
from mlx5_qtest_qp import QPC, ADS, ST_RC, RTS, ERR, _q

QP_BUF = 0x3000000       # QP i's buffer at + 0x10000 * i: RQ, then SQ
RDBR = 0x3100000         # QP i's record at + 0x40 * i; the CQ's at + 0x100
RCQ_BUF = 0x3200000      # the CQ: 256 CQEs of 64 bytes
MEM = 0x3300000          # data, 1 MiB
LOG_SQ, LOG_RQ, RQ_STRIDE = 6, 4, 2      # 64 basic blocks, 16 RQ WQEs of 64
RQ_BYTES = 1 << (LOG_RQ + RQ_STRIDE + 4)
GID_INDEX = 10
GID = bytes(10) + b"\xff\xff" + bytes([192, 0, 2, 1])
LR, LW, RR, RW, A = 1, 2, 4, 8, 16       # the mkc's lr .. a

OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM = 0x0A, 0x0B, 0x08, 0x09
OP_READ, OP_CS, OP_FA = 0x10, 0x11, 0x12
CQE_REQ, CQE_WR_IMM, CQE_SEND, CQE_SEND_IMM = 0x0, 0x1, 0x2, 0x3
CQE_REQ_ERR, CQE_RESP_ERR = 0xD, 0xE
SYND_LOC_PROT, SYND_FLUSH, SYND_REM_ACCESS = 0x04, 0x05, 0x13
CQE_SYNDROMES = {0x01, 0x02, 0x04, 0x05, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
                 0x16, 0xFF}


class Cqe:
    def __init__(self, b):
        self.raw = b
        self.opcode = b[63] >> 4
        self.syndrome = b[55]
        self.sop = struct.unpack(">I", b[56:60])[0]
        self.send_op = self.sop >> 24
        self.qpn = self.sop & 0xFFFFFF
        self.counter = struct.unpack(">H", b[60:62])[0]
        self.byte_cnt = struct.unpack(">I", b[44:48])[0]
        self.imm = struct.unpack(">I", b[36:40])[0]
        self.uidx = u24(b, 32)

    def __repr__(self):
        return "CQE(op %x synd %x qp %x sendop %x wqe %d bytes %d)" % (
            self.opcode, self.syndrome, self.qpn, self.send_op, self.counter,
            self.byte_cnt)


class QP:
    def __init__(self, i, qpn):
        self.i, self.qpn = i, qpn
        self.buf = QP_BUF + 0x10000 * i
        self.dbr = RDBR + 0x40 * i
        self.sq_pc = 0          # basic blocks
        self.rq_pc = 0
        self.uidx = 0x100 + i


class Roce:
    def __init__(self, rdma):
        self.r, self.qt, self.dev = rdma, rdma.qt, rdma.dev
        self.cq_ci = 0

    # Objects -----------------------------------------------------------
    def key(self, acc, variant):
        inp = hdr(0x200, size=0x110)
        setf(inp, 0x10, 17, 5, acc)
        setf(inp, 0x10, 32, 24, 0xFFFFFF)
        setf(inp, 0x10, 56, 8, variant)
        setf(inp, 0x10, 96, 1, 1)                # length64: PA, all memory
        setf(inp, 0x10, 104, 24, self.pd)
        st, idx = self.r.new(inp)
        expect("CREATE_MKEY", st, 0)
        return idx << 8 | variant

    def setup(self):
        st, self.pd = self.r.new(hdr(0x800))
        expect("ALLOC_PD", st, 0)
        self.lkey = self.key(LR | LW | RR | RW | A, 0x11)
        self.rokey = self.key(LR | LW, 0x22)     # no remote rights
        self.qt.write(RCQ_BUF, bytes([0xF1]) * (256 * 64))
        self.qt.write(RDBR + 0x100, bytes(8))
        st, self.cqn = self.r.new(self.r.eth.cq_in(
            log_size=8, dbr=RDBR + 0x100, pas=RCQ_BUF, npas=4))
        expect("CREATE_CQ", st, 0)
        expect("SET_ROCE_ADDRESS", self.r.st(self.r.gid_in(GID_INDEX, GID)),
               0)
        self.qps = [self.create(0), self.create(1)]

    def create(self, i):
        qp = QP(i, 0)
        self.qt.write(qp.buf, bytes(0x2000))
        self.qt.write(qp.dbr, bytes(8))

        def uidx(b):
            setf(b, QPC, 136, 24, qp.uidx)
        st, qp.qpn = self.r.new(self.r.qp_in(
            st=ST_RC, pd=self.pd, snd=self.cqn, rcv=self.cqn, log_sq=LOG_SQ,
            log_rq=LOG_RQ, rq_stride=RQ_STRIDE, dbr=qp.dbr, xrcd=0,
            pas=qp.buf, extra=uidx))
        expect("CREATE_QP", st, 0)
        return qp

    def state(self, qp):
        return self.r.eth.run(_q(0x50B, qp.qpn), 0x110)[QPC] >> 4

    def connect(self, a, b, psn=0x100):
        m = self.r.modify

        def init(x):
            setf(x, QPC, 1168, 3, 7)                # rre, rwe, rae
            setf(x, ADS, 168, 8, 1)                 # port 1

        def rtr(x):
            setf(x, QPC, 64, 3, 3)                  # MTU 1024
            setf(x, QPC, 67, 5, 30)
            setf(x, QPC, 168, 24, b.qpn)
            setf(x, QPC, 1192, 24, psn)             # receive PSN
            setf(x, QPC, 1160, 3, 2)                # 4 READs/atomics in
            setf(x, QPC, 1187, 5, 1)                # RNR timer
            setf(x, ADS, 72, 8, GID_INDEX)
            setf(x, ADS, 88, 8, 64)
            x[ADS + 0x10:ADS + 0x20] = GID
            setf(x, ADS, 144, 16, 0xC000 + a.i)
            setf(x, ADS, 168, 8, 1)
            setf(x, ADS, 176, 16, 0x5254)
            setf(x, ADS, 192, 32, 0x00123456)

        def rts(x):
            setf(x, QPC, 968, 24, psn)              # send PSN
            setf(x, QPC, 904, 3, 2)                 # 4 READs/atomics out
            setf(x, QPC, 909, 3, 7)                 # retries
            setf(x, QPC, 912, 3, 7)                 # RNR retries: for ever
            setf(x, ADS, 64, 5, 10)                 # ack timeout
        a.sq_pc = a.rq_pc = 0
        self.qt.write(a.dbr, bytes(8))
        for name, f in (("2rst", None), ("rst2init", init),
                        ("init2rtr", rtr), ("rtr2rts", rts)):
            expect(name, m(name, a.qpn, extra=f), 0)

    def pair(self):
        a, b = self.qps
        self.connect(a, b)
        self.connect(b, a)
        self.drain()

    # Work requests -----------------------------------------------------
    def sq_write(self, qp, bb, data):
        """data at basic block bb of the SQ, wrapping at its end."""
        base = qp.buf + RQ_BYTES
        while data:
            self.qt.write(base + (bb % (1 << LOG_SQ)) * 64, data[:64])
            data, bb = data[64:], bb + 1

    def post_send(self, qp, op, segs=(), raddr=None, atomic=None, imm=0,
                  inline=None, ring=True, signaled=True, body=None):
        if body is None:
            body = b""
            if raddr:
                body += struct.pack(">QII", raddr[0], raddr[1], 0)
            if atomic:
                body += struct.pack(">QQ", *atomic)
            if inline is not None:
                seg = struct.pack(">I", len(inline) | 0x80000000) + inline
                body += seg + bytes(-len(seg) % 16)
            for n, key, addr in segs:
                body += struct.pack(">IIQ", n, key, addr)
        ds = 1 + len(body) // 16
        ctrl = struct.pack(">II", (qp.sq_pc & 0xFFFF) << 8 | op,
                           qp.qpn << 8 | ds) + \
            bytes([0, 0, 0, 0x08 if signaled else 0]) + struct.pack(">I", imm)
        idx = qp.sq_pc
        self.sq_write(qp, qp.sq_pc, ctrl + body)
        qp.sq_pc += -(-ds * 16 // 64)
        if ring:
            self.ring(qp)
        return idx

    def ring(self, qp):
        self.qt.write(qp.dbr + 4, struct.pack(">I", qp.sq_pc & 0xFFFF))
        uar = BAR0 + self.dev.uar * 4096
        self.qt.writel(uar + 0x800, 0)
        self.qt.writel(uar + 0x804, be(qp.qpn << 8))

    def post_recv(self, qp, segs, record=True):
        w = b""
        for n, key, addr in segs:
            w += struct.pack(">IIQ", n, key, addr)
        if len(segs) < 4:
            w += struct.pack(">IIQ", 0, 0x100, 0)
        idx = qp.rq_pc
        self.qt.write(qp.buf + (idx % (1 << LOG_RQ)) * 64, w[:64])
        qp.rq_pc += 1
        if record:
            self.qt.write(qp.dbr, struct.pack(">I", qp.rq_pc & 0xFFFF))
        return idx

    # Completions -------------------------------------------------------
    def cqe(self):
        """The next CQE, or None."""
        a = RCQ_BUF + (self.cq_ci % 256) * 64
        b = self.qt.read(a, 64)
        if b[63] >> 4 == 0xF or (b[63] & 1) != (self.cq_ci >> 8) & 1:
            return None
        self.cq_ci += 1
        self.qt.write(RDBR + 0x100, struct.pack(">I", self.cq_ci & 0xFFFFFF))
        return Cqe(b)

    def poll(self, n, rounds=200, step=10**6):
        out = []
        for _ in range(rounds):
            c = self.cqe()
            while c and len(out) < n:
                out.append(c)
                if len(out) == n:
                    return out
                c = self.cqe()
            self.qt.clock_step(step)
        raise AssertionError("%d of %d CQEs: %r" % (len(out), n, out))

    def drain(self, rounds=3):
        out = []
        for _ in range(rounds):
            self.qt.clock_step(10**6)
            c = self.cqe()
            while c:
                out.append(c)
                c = self.cqe()
        return out

    def by_qp(self, cqes, qp):
        return [c for c in cqes if c.qpn == qp.qpn]

    def mem(self, off, data):
        self.qt.write(MEM + off, data)

    def rd(self, off, n):
        return self.qt.read(MEM + off, n)


def check_req(c, qp, op, counter, n=None):
    expect("requester CQE of QP 0x%x" % qp.qpn,
           (c.opcode, c.qpn, c.send_op, c.counter, c.uidx),
           (CQE_REQ, qp.qpn, op, counter, qp.uidx))
    if n is not None:
        expect("its byte count", c.byte_cnt, n)


def check_resp(c, qp, op, counter, n, imm=None):
    expect("responder CQE of QP 0x%x" % qp.qpn,
           (c.opcode, c.qpn, c.counter, c.byte_cnt, c.uidx),
           (op, qp.qpn, counter, n, qp.uidx))
    if imm is not None:
        expect("its immediate", c.imm, imm)


def setup(x):
    x.setup()
    x.pair()
    a, b = x.qps
    expect("both in RTS", (x.state(a), x.state(b)), (RTS, RTS))
    return None


def send(x):
    a, b = x.qps
    data = random.Random(1).randbytes(2500)
    x.mem(0, data[:1000])
    x.mem(0x2000, data[1000:])
    x.mem(0x10000, bytes(4096))
    ri = x.post_recv(b, [(4096, x.lkey, MEM + 0x10000)])
    si = x.post_send(a, OP_SEND, [(1000, x.lkey, MEM),
                                  (1500, x.lkey, MEM + 0x2000)])
    c = x.poll(2)
    check_req(x.by_qp(c, a)[0], a, OP_SEND, si)
    check_resp(x.by_qp(c, b)[0], b, CQE_SEND, ri, 2500)
    expect("the data, three packets", x.rd(0x10000, 2500), data)
    # With immediate, and inline (from b to a)
    ri = x.post_recv(a, [(64, x.lkey, MEM + 0x20000),
                         (64, x.lkey, MEM + 0x20100)])
    si = x.post_send(b, OP_SEND_IMM, [(100, x.lkey, MEM)], imm=0x12345678)
    c = x.poll(2)
    check_req(x.by_qp(c, b)[0], b, OP_SEND_IMM, si)
    check_resp(x.by_qp(c, a)[0], a, CQE_SEND_IMM, ri, 100, imm=0x12345678)
    expect("scattered over two segments",
           x.rd(0x20000, 64) + x.rd(0x20100, 36), data[:100])
    ri = x.post_recv(b, [(256, x.lkey, MEM + 0x30000)])
    si = x.post_send(a, OP_SEND, inline=b"inline payload" * 10)
    c = x.poll(2)
    check_req(x.by_qp(c, a)[0], a, OP_SEND, si)
    check_resp(x.by_qp(c, b)[0], b, CQE_SEND, ri, 140)
    expect("inline data", x.rd(0x30000, 140), b"inline payload" * 10)
    return None


def write_read(x):
    a, b = x.qps
    data = random.Random(2).randbytes(5000)
    x.mem(0x40000, data)
    x.mem(0x50000, bytes(5000))
    si = x.post_send(a, OP_WRITE, [(5000, x.lkey, MEM + 0x40000)],
                     raddr=(MEM + 0x50000, x.lkey))
    check_req(x.poll(1)[0], a, OP_WRITE, si)
    expect("written", x.rd(0x50000, 5000), data)
    ri = x.post_recv(b, [(16, x.lkey, MEM + 0x60000)])
    si = x.post_send(a, OP_WRITE_IMM, [(300, x.lkey, MEM + 0x40000)],
                     raddr=(MEM + 0x51000, x.lkey), imm=0xCAFE)
    c = x.poll(2)
    check_req(x.by_qp(c, a)[0], a, OP_WRITE_IMM, si)
    check_resp(x.by_qp(c, b)[0], b, CQE_WR_IMM, ri, 300, imm=0xCAFE)
    expect("written with immediate", x.rd(0x51000, 300), data[:300])
    x.mem(0x70000, bytes(3000))
    si = x.post_send(a, OP_READ, [(3000, x.lkey, MEM + 0x70000)],
                     raddr=(MEM + 0x50000 + 7, x.lkey))
    check_req(x.poll(1)[0], a, OP_READ, si, 3000)
    expect("read back", x.rd(0x70000, 3000), data[7:3007])
    return None


def atomics(x):
    a, b = x.qps
    x.mem(0x80000, struct.pack("<Q", 5))
    x.mem(0x80100, bytes(8))
    si = x.post_send(a, OP_FA, [(8, x.lkey, MEM + 0x80100)],
                     raddr=(MEM + 0x80000, x.lkey), atomic=(10, 0))
    check_req(x.poll(1)[0], a, OP_FA, si, 8)
    expect("fetch-add: the original, the sum",
           (x.rd(0x80100, 8), x.rd(0x80000, 8)),
           (struct.pack("<Q", 5), struct.pack("<Q", 15)))
    si = x.post_send(a, OP_CS, [(8, x.lkey, MEM + 0x80100)],
                     raddr=(MEM + 0x80000, x.lkey), atomic=(99, 15))
    check_req(x.poll(1)[0], a, OP_CS, si, 8)
    expect("compare-swap: equal",
           (x.rd(0x80100, 8), x.rd(0x80000, 8)),
           (struct.pack("<Q", 15), struct.pack("<Q", 99)))
    si = x.post_send(a, OP_CS, [(8, x.lkey, MEM + 0x80100)],
                     raddr=(MEM + 0x80000, x.lkey), atomic=(7, 1))
    check_req(x.poll(1)[0], a, OP_CS, si, 8)
    expect("compare-swap: not equal",
           (x.rd(0x80100, 8), x.rd(0x80000, 8)),
           (struct.pack("<Q", 99), struct.pack("<Q", 99)))
    return None


def rnr(x):
    """A SEND before its receive: the device rereads the record."""
    a, b = x.qps
    x.mem(0x90000, b"early" * 20)
    si = x.post_send(a, OP_SEND, [(100, x.lkey, MEM + 0x90000)])
    expect("nothing yet", x.drain(), [])
    ri = x.post_recv(b, [(128, x.lkey, MEM + 0x91000)])
    c = x.poll(2, rounds=400, step=10**7)
    check_req(x.by_qp(c, a)[0], a, OP_SEND, si)
    check_resp(x.by_qp(c, b)[0], b, CQE_SEND, ri, 100)
    expect("delivered", x.rd(0x91000, 100), b"early" * 20)
    return None


def errors(x):
    a, b = x.qps
    bad = (x.lkey & ~0xFF) | 0x99
    si = x.post_send(a, OP_SEND, [(64, bad, MEM)])
    c = x.poll(1)[0]
    expect("bad lkey: requester error CQE",
           (c.opcode, c.syndrome, c.qpn, c.counter, c.send_op),
           (CQE_REQ_ERR, SYND_LOC_PROT, a.qpn, si, OP_SEND))
    expect("the QP in ERR for QUERY_QP", x.state(a), ERR)
    x.drain()
    x.pair()
    si = x.post_send(a, OP_WRITE, [(64, x.lkey, MEM)],
                     raddr=(MEM + 0x50000, x.rokey))
    c = x.by_qp(x.poll(1) + x.drain(), a)[0]
    expect("WRITE without remote write: remote access error",
           (c.opcode, c.syndrome, c.counter), (CQE_REQ_ERR, SYND_REM_ACCESS,
                                               si))
    expect("the requester in ERR", x.state(a), ERR)
    x.drain()
    # ERR flushes: three receives and two sends (one past the doorbell).
    x.pair()
    ris = [x.post_recv(b, [(64, x.lkey, MEM + 0xA0000)]) for _ in range(3)]
    expect("2ERR", x.r.modify("2err", b.qpn), 0)
    c = x.poll(3)
    expect("receives flushed",
           [(e.opcode, e.syndrome, e.qpn, e.counter) for e in c],
           [(CQE_RESP_ERR, SYND_FLUSH, b.qpn, i) for i in ris])
    s1 = x.post_send(b, OP_SEND, [(64, x.lkey, MEM)], ring=False)
    s2 = x.post_send(b, OP_SEND, [(64, x.lkey, MEM)])
    c = x.poll(2)
    expect("sends posted in ERR flushed",
           [(e.opcode, e.syndrome, e.qpn, e.counter) for e in c],
           [(CQE_REQ_ERR, SYND_FLUSH, b.qpn, s1),
            (CQE_REQ_ERR, SYND_FLUSH, b.qpn, s2)])
    # A receive posted in ERR, its record alone: flushed (ib_drain_rq).
    ri = x.post_recv(b, [(64, x.lkey, MEM + 0xA0000)])
    c = x.poll(1)[0]
    expect("a receive posted in ERR flushed, no doorbell",
           (c.opcode, c.syndrome, c.qpn, c.counter),
           (CQE_RESP_ERR, SYND_FLUSH, b.qpn, ri))
    x.drain()
    return None


def fuzz(x):
    """Random WQEs, records and frames; the device answers after each."""
    rnd = random.Random(int(os.environ.get("FUZZ_SEED", "34")))
    seen = {}
    mac = bytes.fromhex("525400123456")
    for r in range(300):
        if r % 25 == 0:
            x.pair()
        qp = rnd.choice(x.qps)
        what = rnd.random()
        if what < 0.4:
            body = rnd.randbytes(rnd.randrange(0, 256))
            op = rnd.choice([OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM,
                             OP_READ, OP_CS, OP_FA, 0x00, 0x01, 0x0E, 0x25,
                             rnd.randrange(256)])
            x.post_send(qp, op, body=body[:len(body) // 16 * 16])
        elif what < 0.6:
            x.sq_write(qp, qp.sq_pc, rnd.randbytes(rnd.choice([64, 128])))
            qp.sq_pc += rnd.randrange(0, 70)
            x.ring(qp)
        elif what < 0.75:
            segs = [(rnd.choice([0, 1, 64, 0x7FFFFFFF, rnd.randrange(1 << 32)]),
                     rnd.choice([x.lkey, x.rokey, rnd.randrange(1 << 32)]),
                     rnd.choice([MEM, 0xFFFFFFF000, rnd.randrange(1 << 64)]))
                    for _ in range(rnd.randrange(5))]
            x.post_recv(qp, segs)
            x.post_send(x.qps[1 - qp.i], OP_SEND,
                        [(rnd.randrange(0, 3000), x.lkey, MEM)])
        elif what < 0.85:
            x.qt.write(qp.dbr, rnd.randbytes(8))
            x.ring(qp)
        else:
            # A RoCEv2 frame to our GID: random BTH and payload.
            udp = struct.pack(">HHHH", 0xC000, 4791, 0, 0) + \
                rnd.randbytes(rnd.randrange(12, 200))
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0,
                             0x4000, 64, 17, 0, bytes([192, 0, 2, 9]),
                             GID[12:])
            x.r.eth.wire.send(mac + bytes.fromhex("5254000000aa0800") +
                              ip + udp)
        for c in x.drain(1):
            k = "cqe 0x%x" % c.opcode
            if c.opcode in (CQE_REQ_ERR, CQE_RESP_ERR):
                k += " synd 0x%x" % c.syndrome
                expect("a syndrome of the PRM's", c.syndrome in CQE_SYNDROMES,
                       True)
            seen[k] = seen.get(k, 0) + 1
        expect("QUERY_QP answers", x.r.eth.run(_q(0x50B, qp.qpn), 0x110)[0],
               0)
    x.pair()
    a, b = x.qps
    x.mem(0xB0000, b"after the fuzz")
    ri = x.post_recv(b, [(64, x.lkey, MEM + 0xB1000)])
    si = x.post_send(a, OP_SEND, [(14, x.lkey, MEM + 0xB0000)])
    c = x.poll(2)
    check_req(x.by_qp(c, a)[0], a, OP_SEND, si)
    check_resp(x.by_qp(c, b)[0], b, CQE_SEND, ri, 14)
    print("# 300 rounds: " + ", ".join("%s %d" % kv
                                       for kv in sorted(seen.items())))
    return None


def wrap(fn):
    return lambda rdma: fn(rdma.roce)


def start(rdma):
    rdma.roce = Roce(rdma)
    return setup(rdma.roce)


ROCE_CASES = [
    ("RoCE: PD, keys, CQ, GID, two RC QPs of one device to RTS", start),
    ("RoCE: SEND, SEND with immediate, inline SEND; data and CQEs",
     wrap(send)),
    ("RoCE: WRITE, WRITE with immediate, READ; data and CQEs",
     wrap(write_read)),
    ("RoCE: fetch-and-add, compare-and-swap", wrap(atomics)),
    ("RoCE: SEND before its receive (RNR), no receive doorbell", wrap(rnr)),
    ("RoCE: bad lkey, no remote write, ERR flushes: error CQEs",
     wrap(errors)),
    ("RoCE: random WQEs, records and frames", wrap(fuzz)),
]

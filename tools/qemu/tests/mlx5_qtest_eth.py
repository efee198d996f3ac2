# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's Ethernet objects and data path, driven without a guest
# by mlx5_qtest.py (which runs these cases after its own): CQs, SQs and
# RQs with bad PDs, CQs, TISes, sizes and doorbell records; WQEs whose
# data segments point outside memory or carry absurd byte counts;
# doorbells for queues that are not there or not ready; flow tables with
# bad groups, destinations and sizes; destroys of unknown objects; a
# frame sent (checksums, LSO) and one received through the flow tables,
# both over a UDP socket netdev whose other end is the test; and random
# rounds over all of it.  Every bad input must get the PRM's status or an
# error CQE, and QEMU must go on answering.
import os
import random
import struct

from mlx5_qtest import BAR0, hdr, status, expect, setf, u24, be

EQ_BUF = 0x1500000       # 4 pages: 256 EQEs
CQ_BUF = 0x1000000       # 64 CQEs of 64 bytes
DBR = 0x1100000          # doorbell records, 64 bytes apart
SQ_BUF = 0x1200000       # 64 basic blocks of 64 bytes
RQ_BUF = 0x1300000       # 16 WQEs of 64 bytes (4 data segments)
DATA = 0x1400000         # frame buffers
CQR_BUF = 0x1A00000      # resized CQ rings: 1 page, then 2
OUTSIDE = 0xFFFFFFF000   # not guest memory (256 MiB of RAM)
MAC = bytes.fromhex("525400123456")

CQE_REQ, CQE_RESP, CQE_REQ_ERR, CQE_RESP_ERR = 0x0, 0x2, 0xD, 0xE


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def ipv4_udp(payload, dst=MAC):
    udp = struct.pack(">HHHH", 1234, 5678, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 7, 0, 64, 17,
                     0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return dst + bytes.fromhex("5254000000aa0800") + ip + udp


def ipv4_tcp(payload):
    tcp = struct.pack(">HHIIBBHHH", 1000, 2000, 0x1000, 0, 0x50, 0x18,
                      512, 0, 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 9, 0x4000, 64,
                     6, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return MAC + bytes.fromhex("5254000000aa0800") + ip + tcp


def l4_ok(frame):
    """The IPv4 header and TCP/UDP checksums of frame verify."""
    ip = frame[14:34]
    if csum(ip) != 0xFFFF:
        return False
    tot = struct.unpack(">H", ip[2:4])[0]
    l4 = frame[34:14 + tot]
    pseudo = ip[12:20] + struct.pack(">HH", ip[9], len(l4))
    return csum(pseudo + l4) == 0xFFFF


class Eth:
    """Objects of the Ethernet function made through the command queue."""

    def __init__(self, dev, qt, wire):
        self.dev, self.qt, self.wire = dev, qt, wire
        self.eqn = None

    def run(self, inp, outlen=16):
        d, out = self.dev.exec(bytes(inp), outlen)
        expect("delivery", d, 0)
        return out

    def st(self, inp, outlen=16):
        return status(self.run(inp, outlen))[0]

    def new(self, inp, outlen=16):
        """Status and the new object's number."""
        out = self.run(inp, outlen)
        return out[0], u24(out)

    def setup(self):
        uar = self.dev.uar
        self.qt.write(EQ_BUF, bytes([1]) * 16384)
        inp = hdr(0x301, size=0x110 + 32)
        struct.pack_into(">I", inp, 0x10 + 0xC, 8 << 24 | uar)
        for i in range(4):
            struct.pack_into(">Q", inp, 0x110 + 8 * i, EQ_BUF + 4096 * i)
        out = self.run(inp)
        expect("CREATE_EQ", out[0], 0)
        self.eqn = out[0xB]
        st, self.pd = self.new(hdr(0x800))
        expect("ALLOC_PD", st, 0)
        st, self.td = self.new(hdr(0x816))
        expect("ALLOC_TRANSPORT_DOMAIN", st, 0)
        inp = hdr(0x912, size=0xC0)
        setf(inp, 0x20, 296, 24, self.td)
        st, self.tis = self.new(inp)
        expect("CREATE_TIS", st, 0)
        inp = hdr(0x200, size=0x110)
        setf(inp, 0x10, 20, 2, 3)                # lw, lr
        setf(inp, 0x10, 32, 24, 0xFFFFFF)        # qpn: none
        setf(inp, 0x10, 56, 8, 0x5A)             # variant
        setf(inp, 0x10, 96, 1, 1)                # length64
        setf(inp, 0x10, 104, 24, self.pd)
        st, idx = self.new(inp)
        expect("CREATE_MKEY", st, 0)
        self.lkey = idx << 8 | 0x5A
        # the port up (PAOS write, admin up): receive needs it
        inp = hdr(0x805, size=0x20)
        struct.pack_into(">I", inp, 8, 0x5006)
        setf(inp, 0x10, 8, 8, 1)
        setf(inp, 0x10, 20, 4, 1)
        setf(inp, 0x10, 32, 1, 1)
        expect("PAOS up", self.st(inp, 0x20), 0)

    def cq_in(self, log_size=6, eqn=None, uar=None, dbr=DBR, cqe_sz=0,
              npas=1, pas=CQ_BUF, comp=0):
        inp = hdr(0x400, size=0x110 + 8 * npas)
        setf(inp, 0x10, 8, 3, cqe_sz)
        setf(inp, 0x10, 17, 1, comp)
        setf(inp, 0x10, 99, 5, log_size)
        setf(inp, 0x10, 104, 24, self.dev.uar if uar is None else uar)
        setf(inp, 0x10, 160, 32, self.eqn if eqn is None else eqn)
        setf(inp, 0x10, 448, 64, dbr)
        for i in range(npas):
            struct.pack_into(">Q", inp, 0x110 + 8 * i, pas + 4096 * i)
        return inp

    def wq_in(self, rq, cqn, pd=None, tis=None, log_sz=6, log_stride=6,
              uar=None, dbr=None, npas=1, pas=None, state=0, wq_type=1):
        inp = hdr(0x908 if rq else 0x904, size=0x110 + 8 * npas)
        ctx, wq = 0x20, 0x50
        setf(inp, ctx, 8, 4, state)
        setf(inp, ctx, 72, 24, cqn)
        if not rq:
            setf(inp, ctx, 360, 24, self.tis if tis is None else tis)
        setf(inp, wq, 0, 4, wq_type)
        setf(inp, wq, 72, 24, self.pd if pd is None else pd)
        setf(inp, wq, 104, 24, self.dev.uar if uar is None else uar)
        setf(inp, wq, 128, 64, (DBR + (0x80 if rq else 0x40))
             if dbr is None else dbr)
        setf(inp, wq, 268, 4, log_stride)
        setf(inp, wq, 283, 5, log_sz)
        for i in range(npas):
            struct.pack_into(">Q", inp, 0x110 + 8 * i,
                             (pas or (RQ_BUF if rq else SQ_BUF)) + 4096 * i)
        return inp

    def modify(self, rq, n, cur, nxt):
        inp = hdr(0x909 if rq else 0x905, size=0x110)
        setf(inp, 0, 64, 4, cur)
        setf(inp, 0, 72, 24, n)
        setf(inp, 0x20, 8, 4, nxt)
        return self.st(inp)

    def destroy(self, op, n, size=0x40):
        inp = hdr(op, size=size)
        setf(inp, 0, 72, 24, n)
        return self.st(inp)

    def destroy_ft(self, t):
        inp = hdr(0x931, size=0x40)
        setf(inp, 0, 168, 24, t)
        return self.st(inp)

    def destroy_fg(self, t, g):
        inp = hdr(0x934, size=0x40)
        setf(inp, 0, 168, 24, t)
        setf(inp, 0, 192, 32, g)
        return self.st(inp)

    def cqe(self, i):
        return self.qt.read(CQ_BUF + 64 * i, 64)

    def sq_ring(self, sqn, pc):
        self.qt.write(DBR + 0x44, struct.pack(">I", pc))
        self.qt.writel(BAR0 + self.dev.uar * 4096 + 0x800, 0)
        self.qt.writel(BAR0 + self.dev.uar * 4096 + 0x804, be(sqn << 8))

    def wqe(self, sqn, idx, segs, op=0x0A, cs=0, mss=0, inline=b""):
        """A SEND WQE at idx: eth segment with inline headers, segs as
        (byte count, lkey, addr) data segments; returns its size in BBs."""
        eth = bytearray(16)
        eth[4] = cs
        struct.pack_into(">HH", eth, 6, mss, 0)
        struct.pack_into(">H", eth, 12, len(inline))
        eth[14:16] = inline[:2].ljust(2, b"\0")
        rest = inline[2:]
        eth += rest + bytes(-len(rest) % 16)
        body = bytes(eth)
        for bc, lkey, addr in segs:
            body += struct.pack(">IIQ", bc, lkey, addr)
        ds = 1 + len(body) // 16
        ctrl = struct.pack(">II", idx << 8 | op, sqn << 8 | ds) + \
            bytes([0, 0, 0, 0x08]) + bytes(4)
        w = ctrl + body
        self.qt.write(SQ_BUF + 64 * (idx % 64), w)
        return -(-ds * 16 // 64)


def eth_setup(eth):
    eth.setup()
    return None


def cq_checks(eth):
    c = eth.cq_in
    expect("log size 23", eth.st(c(log_size=23, npas=0)), 0x3)
    expect("CQE size 2", eth.st(c(cqe_sz=2)), 0x3)
    expect("compression", eth.st(c(comp=1)), 0x3)
    expect("no such EQ", eth.st(c(eqn=63)), 0x3)
    expect("UAR not allocated", eth.st(c(uar=eth.dev.uar + 9)), 0x3)
    expect("record unaligned", eth.st(c(dbr=DBR + 4)), 0x3)
    expect("pages missing", eth.st(c(log_size=8, npas=1)), 0x50)
    expect("page unaligned", eth.st(c(pas=CQ_BUF + 8)), 0x3)
    expect("destroy CQ 999", eth.destroy(0x401, 999), 0x5)
    eth.qt.write(CQ_BUF, bytes([0xF1]) * 4096)   # invalid, owner 1
    eth.qt.write(DBR, bytes(64))
    st, eth.cqn = eth.new(c())
    expect("CREATE_CQ", st, 0)
    return None


def cq_resize(eth):
    """MODIFY_CQ op_mod 1: a RESIZE_CQ CQE at the producer index of the
    old ring, the following index in the new ring; refusals."""
    old, new, dbr = CQR_BUF, CQR_BUF + 0x4000, DBR + 0x200
    eth.qt.write(old, bytes([0xF1]) * 4096)
    eth.qt.write(new, bytes([0xF1]) * 8192)
    eth.qt.write(dbr, bytes(8))
    st, cqn = eth.new(eth.cq_in(log_size=6, dbr=dbr, pas=old))
    expect("CREATE_CQ", st, 0)

    def resize(log_size, pas, npas, select=7, cqe_sz=0, n=cqn, op_mod=1):
        inp = hdr(0x403, op_mod=op_mod, size=0x110 + 8 * npas)
        setf(inp, 0, 72, 24, n)
        setf(inp, 0, 0x60, 32, select)
        setf(inp, 0x10, 8, 3, cqe_sz)
        setf(inp, 0x10, 99, 5, log_size)
        for i in range(npas):
            struct.pack_into(">Q", inp, 0x110 + 8 * i, pas + 4096 * i)
        return eth.st(inp)

    expect("resize to 128 CQEs", resize(7, new, 2), 0)
    expect("RESIZE_CQ CQE at index 0 of the old ring, owner 0",
           eth.qt.read(old + 63, 1)[0], 0x50)
    expect("back to 64 CQEs", resize(6, old, 1), 0)
    expect("RESIZE_CQ CQE at index 1 of the 128-entry ring",
           eth.qt.read(new + 64 + 63, 1)[0], 0x50)
    expect("the 64-entry ring's index 1 untouched before",
           eth.qt.read(old + 64 + 63, 1)[0], 0xF1)
    # two CQEs outstanding (the record's consumer index is 0)
    expect("a ring smaller than what is outstanding", resize(1, new, 1), 0x3)
    expect("no log_cq_size in the field select", resize(7, new, 2, select=6),
           0x3)
    expect("another CQE size", resize(7, new, 4, cqe_sz=1), 0x3)
    expect("log size 23", resize(23, new, 0), 0x3)
    expect("pages missing", resize(8, new, 1), 0x50)
    expect("unknown CQ", resize(7, new, 2, n=999), 0x5)
    expect("op_mod 2", resize(7, new, 2, op_mod=2), 0x3)
    expect("the CQ kept its ring: next CQE index 2 of the 64",
           resize(7, new, 2), 0)
    expect("RESIZE_CQ CQE at index 2", eth.qt.read(old + 128 + 63, 1)[0],
           0x50)
    expect("DESTROY_CQ", eth.destroy(0x401, cqn), 0)
    # a ring from half into its first page (page_offset 32 64ths), as
    # mlx5_ib sets it for a user buffer in a larger page
    eth.qt.write(old, bytes([0xF1]) * 8192)
    for npas, want in ((1, 0x50), (2, 0)):
        inp = eth.cq_in(log_size=6, dbr=dbr, pas=old, npas=npas)
        setf(inp, 0x10, 84, 6, 32)
        st, cqn = eth.new(inp)
        expect("page_offset 32 with %d page(s)" % npas, st, want)
    expect("resize", resize(6, new, 1, n=cqn), 0)
    expect("the RESIZE_CQ CQE half into the page",
           (eth.qt.read(old + 63, 1)[0], eth.qt.read(old + 2048 + 63, 1)[0]),
           (0xF1, 0x50))
    expect("DESTROY_CQ", eth.destroy(0x401, cqn), 0)
    return None


def wq_checks(eth):
    w = eth.wq_in
    for rq in (0, 1):
        what = "RQ" if rq else "SQ"
        expect(what + " PD 999", eth.st(w(rq, eth.cqn, pd=999)), 0x3)
        expect(what + " CQ 999", eth.st(w(rq, 999)), 0x3)
        expect(what + " log size 17", eth.st(w(rq, eth.cqn, log_sz=17)), 0x3)
        expect(what + " stride 8 bytes", eth.st(w(rq, eth.cqn,
                                                  log_stride=3)), 0x3)
        expect(what + " not cyclic", eth.st(w(rq, eth.cqn, wq_type=0)), 0x3)
        expect(what + " created ready", eth.st(w(rq, eth.cqn, state=1)), 0x3)
        expect(what + " record unaligned", eth.st(w(rq, eth.cqn,
                                                    dbr=DBR + 2)), 0x3)
        expect(what + " pages missing", eth.st(w(rq, eth.cqn, log_sz=10)),
               0x50)
        expect(what + " modify unknown", eth.modify(rq, 200, 0, 1), 0x5)
        expect(what + " destroy unknown", eth.destroy(0x90A if rq else
                                                      0x906, 200), 0x5)
    expect("SQ TIS 999", eth.st(w(0, eth.cqn, tis=999)), 0x3)
    expect("SQ stride 128 bytes", eth.st(w(0, eth.cqn, log_stride=7)), 0x3)
    expect("SQ UAR not allocated", eth.st(w(0, eth.cqn,
                                            uar=eth.dev.uar + 9)), 0x3)
    st, eth.sqn = eth.new(w(0, eth.cqn))
    expect("CREATE_SQ", st, 0)
    expect("RST to ERR", eth.modify(0, eth.sqn, 0, 3), 0x4)
    expect("wrong current state", eth.modify(0, eth.sqn, 1, 1), 0x4)
    expect("state 7", eth.modify(0, eth.sqn, 0, 7), 0x3)
    expect("destroy a CQ in use", eth.destroy(0x401, eth.cqn), 0x5)
    return None


def doorbells(eth):
    # the SQ is in RST: a doorbell runs nothing
    eth.wqe(eth.sqn, 0, [], op=0)
    eth.sq_ring(eth.sqn, 1)
    expect("no CQE from an SQ in RST", eth.cqe(0)[63], 0xF1)
    eth.sq_ring(200, 1)                              # no such SQ
    eth.sq_ring(0xFFFFFF, 1)
    eth.qt.writel(BAR0 + (eth.dev.uar + 1) * 4096 + 0x804, be(eth.sqn << 8))
    expect("no CQE for other numbers", eth.cqe(0)[63], 0xF1)
    # a ready SQ whose record is not guest memory: nothing runs
    st, sq2 = eth.new(eth.wq_in(0, eth.cqn, dbr=OUTSIDE, pas=SQ_BUF))
    expect("CREATE_SQ, record outside memory", st, 0)
    expect("RST to RDY", eth.modify(0, sq2, 0, 1), 0)
    eth.sq_ring(sq2, 1)
    expect("no CQE from an unreadable record", eth.cqe(0)[63], 0xF1)
    expect("destroy it", eth.destroy(0x906, sq2), 0)
    # CQ arm doorbells for CQs that are not there
    eth.qt.writel(BAR0 + eth.dev.uar * 4096 + 0x20, 0)
    eth.qt.writel(BAR0 + eth.dev.uar * 4096 + 0x24, be(999))
    expect("RST to RDY", eth.modify(0, eth.sqn, 0, 1), 0)
    eth.pc = 0
    return None


def sq_post(eth, **kw):
    """Post one WQE at the producer counter, ring, return its CQE."""
    ci = eth.ci
    eth.pc_idx = eth.pc
    eth.pc += eth.wqe(eth.sqn, eth.pc, **kw)
    eth.sq_ring(eth.sqn, eth.pc)
    cqe = eth.cqe(ci % 64)
    if cqe[63] == 0xF1 or (cqe[63] & 1) != (ci // 64) & 1:
        raise AssertionError("no CQE for WQE %d" % eth.pc_idx)
    eth.ci += 1
    eth.qt.write(DBR, struct.pack(">I", eth.ci))
    return cqe


def tx(eth):
    eth.ci = 0
    eth.wire.frames()
    frame = ipv4_udp(bytes(range(200)))
    eth.qt.write(DATA, frame[14:])
    cqe = sq_post(eth, segs=[(len(frame) - 14, eth.lkey, DATA)],
                  cs=0xC0, inline=frame[:14])
    expect("CQE opcode", cqe[63] >> 4, CQE_REQ)
    expect("CQE WQE counter", struct.unpack(">H", cqe[60:62])[0], 0)
    got = eth.wire.frames()
    expect("frames on the wire", len(got), 1)
    expect("frame length", len(got[0]), len(frame))
    expect("payload", got[0][42:], frame[42:])
    expect("IPv4 and UDP checksums", l4_ok(got[0]), True)
    # LSO: 3000 bytes in segments of 1000, the headers inline
    payload = bytes(random.Random(1).randbytes(3000))
    big = ipv4_tcp(payload)
    eth.qt.write(DATA, payload)
    cqe = sq_post(eth, op=0x0E, mss=1000, cs=0xC0, inline=big[:54],
                  segs=[(3000, eth.lkey, DATA)])
    expect("LSO CQE", cqe[63] >> 4, CQE_REQ)
    got = eth.wire.frames()
    expect("segments", [len(f) for f in got], [1054] * 3)
    expect("sequence numbers", [struct.unpack(">I", f[38:42])[0]
                                for f in got], [0x1000, 0x1000 + 1000,
                                                0x1000 + 2000])
    expect("checksums", [l4_ok(f) for f in got], [True] * 3)
    expect("PSH on the last only", [f[47] & 0x08 for f in got], [0, 0, 8])
    expect("payload rejoined", b"".join(f[54:] for f in got), payload)
    return None


def tx_errors(eth):
    cases = [
        ("data outside memory", [(100, eth.lkey, OUTSIDE)], 0x04),
        ("a key that is not there", [(100, eth.lkey ^ 0x100, DATA)], 0x04),
        ("a key of another variant", [(100, eth.lkey ^ 1, DATA)], 0x04),
        ("byte count 2 GiB", [(0x7FFFFFFF, eth.lkey, DATA)], 0x01),
        ("byte count 0", [(0, eth.lkey, DATA)], 0x01),
        ("frames over 65 KiB", [(60000, eth.lkey, DATA)] * 2, 0x01),
        ("an inline segment past the WQE", [(0x800003F0, 0, 0)], 0x01),
    ]
    for name, segs, synd in cases:
        cqe = sq_post(eth, segs=segs, inline=bytes(14))
        expect(name + ": error CQE", (cqe[63] >> 4, cqe[55]),
               (CQE_REQ_ERR, synd))
        expect(name + ": nothing sent", eth.wire.frames(), [])
        expect(name + ": SQ in ERR", eth.modify(0, eth.sqn, 1, 1), 0x4)
        expect("ERR to RST", eth.modify(0, eth.sqn, 3, 0), 0)
        expect("RST to RDY", eth.modify(0, eth.sqn, 0, 1), 0)
        eth.pc = 0
    # opcodes the model does not run, and a WQE with the wrong index
    cqe = sq_post(eth, segs=[], op=0x08)
    expect("RDMA WRITE on an Ethernet SQ", (cqe[63] >> 4, cqe[55]),
           (CQE_REQ_ERR, 0x02))
    eth.modify(0, eth.sqn, 3, 0)
    eth.modify(0, eth.sqn, 0, 1)
    eth.pc = 0
    return None


def ft_in(level=0, log_size=4, table_type=0, miss=0, miss_id=0):
    inp = hdr(0x930, size=0x40)
    setf(inp, 0x10, 0, 8, table_type)
    setf(inp, 0x18, 4, 4, miss)
    setf(inp, 0x18, 8, 8, level)
    setf(inp, 0x18, 24, 8, log_size)
    setf(inp, 0x18, 40, 24, miss_id)
    return inp


def fg_in(table, start, end, enable=0, criteria=b""):
    inp = hdr(0x933, size=0x400)
    setf(inp, 0, 168, 24, table)
    setf(inp, 0, 224, 32, start)
    setf(inp, 0, 288, 32, end)
    setf(inp, 0, 504, 8, enable)
    inp[0x40:0x40 + len(criteria)] = criteria
    return inp


def fte_in(table, group, idx, action=4, dests=(), value=b"", op_mod=0,
           ndest=None):
    inp = hdr(0x936, op_mod, size=0x340 + 8 * len(dests))
    setf(inp, 0, 168, 24, table)
    setf(inp, 0, 256, 32, idx)
    fc = 0x40
    setf(inp, fc, 32, 32, group)
    setf(inp, fc, 112, 16, action)
    setf(inp, fc, 136, 24, len(dests) if ndest is None else ndest)
    inp[fc + 0x40:fc + 0x40 + len(value)] = value
    for i, (typ, n) in enumerate(dests):
        setf(inp, fc + 0x300 + 8 * i, 0, 8, typ)
        setf(inp, fc + 0x300 + 8 * i, 8, 24, n)
    return inp


def dmac_criteria(mac):
    b = bytearray(0x40)
    b[8:14] = mac
    return bytes(b)


def flow_checks(eth):
    expect("level 64", eth.st(ft_in(level=64)), 0x3)
    expect("log size 17", eth.st(ft_in(log_size=17)), 0x3)
    expect("a transmit table", eth.st(ft_in(table_type=1)), 0x3)
    expect("miss to no table", eth.st(ft_in(miss=1, miss_id=60)), 0x3)
    expect("miss action 5", eth.st(ft_in(miss=5)), 0x3)
    st, t2 = eth.new(ft_in(level=2))
    expect("CREATE_FLOW_TABLE level 2", st, 0)
    st, t1 = eth.new(ft_in(level=1, miss=1, miss_id=t2))
    expect("CREATE_FLOW_TABLE level 1, miss to 2", st, 0)
    expect("miss to a shallower table", eth.st(ft_in(level=3, miss=1,
                                                     miss_id=t1)), 0x3)
    expect("group past the table", eth.st(fg_in(t1, 0, 16)), 0x3)
    expect("group start > end", eth.st(fg_in(t1, 3, 2)), 0x3)
    expect("group of no table", eth.st(fg_in(60, 0, 0)), 0x5)
    st, g1 = eth.new(fg_in(t1, 0, 3, 1, dmac_criteria(b"\xff" * 6)))
    expect("CREATE_FLOW_GROUP", st, 0)
    expect("overlapping group", eth.st(fg_in(t1, 3, 5)), 0x3)
    st, g2 = eth.new(fg_in(t2, 0, 0))
    expect("CREATE_FLOW_GROUP, no criteria", st, 0)
    expect("entry outside its group", eth.st(fte_in(t1, g1, 4, 2)), 0x3)
    expect("entry in another table's group", eth.st(fte_in(t1, g2, 0, 2)),
           0x3)
    expect("no action", eth.st(fte_in(t1, g1, 0, 0)), 0x3)
    expect("forward, no destination", eth.st(fte_in(t1, g1, 0, 4)), 0x3)
    expect("drop with a destination", eth.st(fte_in(t1, g1, 0, 2,
                                                    [(1, t2)])), 0x3)
    expect("counter action", eth.st(fte_in(t1, g1, 0, 8)), 0x3)
    expect("to no TIR", eth.st(fte_in(t1, g1, 0, 4, [(2, 200)])), 0x3)
    expect("to a shallower table", eth.st(fte_in(t2, g2, 0, 4,
                                                 [(1, t1)])), 0x3)
    expect("destination type 9", eth.st(fte_in(t1, g1, 0, 4, [(9, 1)])),
           0x3)
    expect("33 destinations", eth.st(fte_in(t1, g1, 0, 4, [(1, t2)] * 33)),
           0x3)
    expect("destinations past the input",
           eth.st(fte_in(t1, g1, 0, 4, [(1, t2)], ndest=20)), 0x50)
    expect("modify of no entry", eth.st(fte_in(t1, g1, 0, 2, op_mod=1)), 0x3)
    expect("an entry", eth.st(fte_in(t1, g1, 0, 2)), 0)
    expect("add over it", eth.st(fte_in(t1, g1, 0, 2)), 0x3)
    expect("destroy a table with entries", eth.destroy_ft(t1), 0x5)
    expect("destroy a group with entries", eth.destroy_fg(t1, g1), 0x5)
    d = hdr(0x938, size=0x40)
    setf(d, 0, 168, 24, t1)
    setf(d, 0, 256, 32, 1)
    expect("delete no entry", eth.st(d), 0x5)
    setf(d, 0, 256, 32, 0)
    expect("delete the entry", eth.st(d), 0)
    expect("destroy group of another table", eth.destroy_fg(t2, g1), 0x5)
    for t, g in ((t1, g1), (t2, g2)):
        expect("destroy group", eth.destroy_fg(t, g), 0)
    expect("destroy t2, t1 misses to it", eth.destroy_ft(t2), 0)
    expect("destroy t1", eth.destroy_ft(t1), 0)
    expect("destroy no table", eth.destroy_ft(t1), 0x5)
    root = hdr(0x92F, size=0x40)
    setf(root, 0, 168, 24, t1)
    expect("root of no table", eth.st(root), 0x5)
    for op, name in ((0x801, "PD"), (0x817, "TD"), (0x202, "MKEY"),
                     (0x914, "TIS"), (0x902, "TIR"), (0x918, "RQT"),
                     (0x401, "CQ"), (0x906, "SQ"), (0x90A, "RQ"),
                     (0x302, "EQ")):
        expect("destroy an unknown " + name, eth.destroy(op, 250), 0x5)
    return None


def rx_setup(eth):
    eth.qt.write(DBR + 0x80, bytes(4))
    st, eth.rqn = eth.new(eth.wq_in(1, eth.cqn, log_sz=4))
    expect("CREATE_RQ", st, 0)
    expect("RQ RST to RDY", eth.modify(1, eth.rqn, 0, 1), 0)
    inp = hdr(0x900, size=0x110)
    setf(inp, 0x20, 32, 4, 0)
    setf(inp, 0x20, 232, 24, eth.rqn)
    setf(inp, 0x20, 296, 24, eth.td)
    st, eth.tir = eth.new(inp)
    expect("CREATE_TIR", st, 0)
    st, eth.ft = eth.new(ft_in(level=1))
    expect("CREATE_FLOW_TABLE", st, 0)
    st, eth.fg = eth.new(fg_in(eth.ft, 0, 0, 1, dmac_criteria(b"\xff" * 6)))
    expect("CREATE_FLOW_GROUP", st, 0)
    value = bytearray(0x40)
    value[8:14] = MAC
    expect("entry: our MAC to the TIR",
           eth.st(fte_in(eth.ft, eth.fg, 0, 4, [(2, eth.tir)], value)), 0)
    root = hdr(0x92F, size=0x40)
    setf(root, 0, 168, 24, eth.ft)
    expect("SET_FLOW_TABLE_ROOT", eth.st(root), 0)
    eth.rq_pc = 0


def rq_post(eth, segs):
    w = b""
    for bc, lkey, addr in segs:
        w += struct.pack(">IIQ", bc, lkey, addr)
    w += struct.pack(">IIQ", 0, 0x100, 0) * (4 - len(segs))
    eth.qt.write(RQ_BUF + 64 * (eth.rq_pc % 16), w)
    eth.rq_pc += 1
    eth.qt.write(DBR + 0x80, struct.pack(">I", eth.rq_pc))


def rx_wait(eth, ci):
    for _ in range(200):
        cqe = eth.cqe(ci % 64)
        if cqe[63] != 0xF1 and (cqe[63] & 1) == (ci // 64) & 1:
            eth.ci += 1
            eth.qt.write(DBR, struct.pack(">I", eth.ci))
            return cqe
    return None


def rx(eth):
    rx_setup(eth)
    rq_post(eth, [(1000, eth.lkey, DATA + 0x10000),
                  (2048, eth.lkey, DATA + 0x20000)])
    other = ipv4_udp(b"x" * 100, dst=bytes.fromhex("525400999999"))
    eth.wire.send(other)                        # not ours: dropped
    frame = ipv4_udp(bytes(range(256)) * 6)
    eth.wire.send(frame)
    cqe = rx_wait(eth, eth.ci)
    if cqe is None:
        raise AssertionError("no receive CQE")
    expect("CQE opcode", cqe[63] >> 4, CQE_RESP)
    expect("byte count", struct.unpack(">I", cqe[44:48])[0], len(frame))
    expect("WQE counter", struct.unpack(">H", cqe[60:62])[0], 0)
    expect("check_sum: the sum from L3 on", struct.unpack(">H", cqe[20:22])[0],
           csum(frame[14:]))
    got = eth.qt.read(DATA + 0x10000, 1000) + \
        eth.qt.read(DATA + 0x20000, len(frame) - 1000)
    expect("frame scattered over two segments", got, frame)
    # no WQE posted: dropped, nothing consumed
    eth.wire.send(frame)
    expect("no WQE: no CQE", rx_wait(eth, eth.ci), None)
    # too large for the WQE: dropped, the WQE stays
    rq_post(eth, [(100, eth.lkey, DATA + 0x10000)])
    eth.wire.send(frame)
    expect("too large: no CQE", rx_wait(eth, eth.ci), None)
    eth.wire.send(frame[:90])
    cqe = rx_wait(eth, eth.ci)
    expect("a 90-byte frame in the 100-byte WQE",
           cqe and struct.unpack(">I", cqe[44:48])[0], 90)
    return None


def access_reg(eth, reg, op_mod, fields, size):
    """ACCESS_REG of register reg: status and the register read back."""
    inp = hdr(0x805, op_mod=op_mod, size=0x10 + size)
    struct.pack_into(">I", inp, 8, reg)
    for bit, width, v in fields:
        setf(inp, 0x10, bit, width, v)
    out = eth.run(inp, outlen=0x10 + size)
    return out[0], out[0x10:]


def ppcnt(eth, grp, clr=0, port=1):
    """PPCNT group grp: its counters, 64 bits each."""
    st, reg = access_reg(eth, 0x5008, 1, [(8, 8, port), (26, 6, grp),
                                          (32, 1, clr)], 0x100)
    expect("PPCNT group %d status" % grp, st, 0)
    return [struct.unpack_from(">Q", reg, 8 + 8 * i)[0] for i in range(10)]


def vport(eth, clear=0):
    """QUERY_VPORT_COUNTER: (packets, octets) of its twelve counters."""
    inp = hdr(0x770, size=0x20)
    setf(inp, 0, 0xC0, 1, clear)
    out = eth.run(inp, outlen=0x210)
    expect("QUERY_VPORT_COUNTER", out[0], 0)
    return [struct.unpack_from(">QQ", out, 0x10 + 16 * i) for i in range(12)]


def counters(eth):
    """Wire frames counted once each, by direction and class."""
    before, vbefore = ppcnt(eth, 0), vport(eth)
    frame = ipv4_udp(bytes(100))
    eth.qt.write(DATA, frame[14:])
    sq_post(eth, segs=[(len(frame) - 14, eth.lkey, DATA)], inline=frame[:14])
    eth.wire.frames()
    bcast = b"\xff" * 6 + frame[6:]
    eth.wire.send(frame)
    eth.wire.send(bcast)
    rx_wait(eth, eth.ci)
    after, vafter = ppcnt(eth, 0), vport(eth)
    d = [a - b for a, b in zip(after, before)]
    # 802.3: frames tx/rx, FCS and alignment errors, octets tx/rx,
    # multicast and broadcast tx, multicast and broadcast rx
    expect("802.3 deltas", d, [1, 2, 0, 0, len(frame), 2 * len(frame),
                               0, 0, 0, 1])
    vd = [(a[0] - b[0], a[1] - b[1]) for a, b in zip(vafter, vbefore)]
    expect("vport: eth broadcast rx, unicast tx and rx",
           (vd[6], vd[9], vd[8]), ((1, len(frame)), (1, len(frame)),
                                   (1, len(frame))))
    g2863 = ppcnt(eth, 1)
    expect("RFC 2863 in octets = 802.3 octets received", g2863[0], after[5])
    ppcnt(eth, 0, clr=1)
    expect("PPCNT clr: zeros after", ppcnt(eth, 0), [0] * 10)
    expect("the vport view does not clear with PPCNT",
           vport(eth)[9], vafter[9])
    vport(eth, clear=1)
    expect("QUERY_VPORT_COUNTER clear", vport(eth)[9], (0, 0))
    expect("an unknown group reads as zeros", ppcnt(eth, 0x12), [0] * 10)
    st, _ = access_reg(eth, 0x5008, 1, [(8, 8, 2)], 0x100)
    expect("PPCNT of port 2", st, 3)
    # PFCC: global pause on out of reset, kept; PFC refused
    pfcc = [(8, 8, 1)]
    st, reg = access_reg(eth, 0x5007, 1, pfcc, 0x20)
    expect("PFCC read", (st, reg[8] >> 7, reg[12] >> 7), (0, 1, 1))
    st, _ = access_reg(eth, 0x5007, 0, pfcc + [(72, 8, 0x08)], 0x20)
    expect("PFCC write with PFC on priority 3", st, 3)
    st, _ = access_reg(eth, 0x5007, 0, pfcc + [(64, 1, 0), (96, 1, 1)], 0x20)
    expect("PFCC write: tx pause off", st, 0)
    st, reg = access_reg(eth, 0x5007, 1, pfcc, 0x20)
    expect("PFCC read back", (st, reg[8] >> 7, reg[12] >> 7), (0, 0, 1))
    st, _ = access_reg(eth, 0x5007, 1, [(8, 8, 9)], 0x20)
    expect("PFCC of port 9", st, 3)
    return None


def rx_errors(eth):
    for name, seg in (("buffer outside memory", (2048, eth.lkey, OUTSIDE)),
                      ("bad key", (2048, eth.lkey ^ 0x300, DATA))):
        rq_post(eth, [seg])
        eth.wire.send(ipv4_udp(b"y" * 64))
        cqe = rx_wait(eth, eth.ci)
        expect(name + ": error CQE", cqe and (cqe[63] >> 4, cqe[55]),
               (CQE_RESP_ERR, 0x04))
        expect(name + ": RQ in ERR", eth.modify(1, eth.rqn, 1, 1), 0x4)
        expect("ERR to RST", eth.modify(1, eth.rqn, 3, 0), 0)
        expect("RST to RDY", eth.modify(1, eth.rqn, 0, 1), 0)
        eth.rq_pc = 0
        eth.qt.write(DBR + 0x80, bytes(4))
    return None


def fuzz(eth):
    """Random commands over the Ethernet objects, random WQEs, doorbells
    and frames; every slot comes back, QEMU stays."""
    rnd = random.Random(int(os.environ.get("FUZZ_SEED", "34")))
    rounds = int(os.environ.get("FUZZ_ROUNDS", "2000")) // 4
    seen = {}
    ops = [0x400, 0x401, 0x402, 0x403, 0x904, 0x905, 0x906, 0x908, 0x909,
           0x90A, 0x900, 0x901, 0x902, 0x916, 0x917, 0x918, 0x930, 0x931,
           0x932, 0x933, 0x934, 0x936, 0x938, 0x92F, 0x93C, 0x912, 0x914,
           0x800, 0x801, 0x200, 0x202]
    for _ in range(rounds):
        r = rnd.random()
        if r < 0.6:
            op = rnd.choice(ops)
            inp = bytearray(rnd.randbytes(rnd.choice([16, 0x40, 0x110,
                                                      0x118, 0x340, 0x400])))
            struct.pack_into(">HHHH", inp, 0, op, 0, 0, rnd.randrange(3))
            # numbers that exist now and then
            for off in (8, 0x14, 0x1C, 0x44):
                if off + 4 <= len(inp) and rnd.random() < 0.5:
                    struct.pack_into(">I", inp, off, rnd.randrange(4))
            out = eth.run(inp, rnd.choice([16, 0x40, 0x100]))
            k = "status 0x%x" % out[0]
        elif r < 0.8:
            eth.qt.write(SQ_BUF + 64 * rnd.randrange(64), rnd.randbytes(64))
            eth.qt.write(DBR + rnd.randrange(0, 0xC0, 4),
                         rnd.randbytes(4))
            eth.qt.writel(BAR0 + eth.dev.uar * 4096 + 0x804,
                          be(rnd.randrange(8) << 8 | rnd.randrange(64)))
            k = "doorbell"
        else:
            eth.qt.write(RQ_BUF + 64 * rnd.randrange(16), rnd.randbytes(64))
            f = rnd.randbytes(rnd.randrange(0, 2000))
            if rnd.random() < 0.5 and len(f) > 14:
                f = MAC + f[6:]
            eth.wire.send(f)
            eth.qt.readl(BAR0)          # let the main loop take it
            k = "frame"
        seen[k] = seen.get(k, 0) + 1
    expect("still alive", eth.dev.reg(0x4) >> 16, 5)
    print("# %d rounds: %s" % (rounds, ", ".join(
        "%s %d" % kv for kv in sorted(seen.items()))))
    return None


ETH_CASES = [
    ("Ethernet objects: EQ, PD, TD, TIS, MKEY, port up", eth_setup),
    ("CREATE_CQ: sizes, EQ, UAR, doorbell record, pages", cq_checks),
    ("MODIFY_CQ resize: the RESIZE_CQ CQE, the new ring, refusals",
     cq_resize),
    ("CREATE_SQ/RQ: PD, CQ, TIS, sizes, states; MODIFY, DESTROY", wq_checks),
    ("doorbells: unknown and reset SQs, a record outside memory", doorbells),
    ("transmit: checksums, LSO segments, on the wire", tx),
    ("transmit errors: bad addresses, keys, byte counts, opcodes",
     tx_errors),
    ("flow tables: groups, entries, destinations, sizes; unknown objects",
     flow_checks),
    ("receive: steering by MAC, scatter, CQE byte count and check_sum", rx),
    ("port counters (PPCNT, QUERY_VPORT_COUNTER) and PFCC", counters),
    ("receive errors: a WQE outside memory, a bad key", rx_errors),
    ("random commands, WQEs, doorbells and frames", fuzz),
]

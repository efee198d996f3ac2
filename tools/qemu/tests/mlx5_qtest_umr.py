# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's UMR WQEs (mlx5-umr.c) and invalidation, driven without
# a guest by mlx5_qtest.py on the RoCE cases' two RC QPs (after them):
# free keys as ib_alloc_mr and mlx5_ib's key cache make them; IB_WR_REG_MR
# as mlx5_ib's set_reg_wr lays it out (the translation inline, or behind
# a data segment), then WRITE and READ from the peer through the new rkey
# and a local SEND through it as lkey, the data checked at the pages;
# LOCAL_INV (a UMR freeing the key), after which the peer's WRITE gets a
# remote access error; SEND with invalidate, whose receive CQE says
# which key it freed, and the peer refused after it; the kernel's memory
# registration QP (st REG_UMR) filling a key at an offset in two UMRs,
# enabling it, changing its rights, and taking it back into another PD;
# then bad UMRs, each with its error CQE and syndrome and the key left
# as it was; FUZZ_ROUNDS/10 random UMRs built from good ones with bits
# flipped, on both QPs, each followed by a WRITE through its key.
import os
import random
import struct

from mlx5_qtest import hdr, expect, setf
from mlx5_qtest_qp import QPC, ST_UMR, RTS
from mlx5_qtest_roce import (MEM, LR, LW, RR, RW, A, OP_SEND, OP_WRITE,
                             OP_READ, CQE_REQ_ERR, CQE_SYNDROMES, QP,
                             RQ_BYTES,
                             check_req, check_resp)

OP_SEND_INV, OP_UMR = 0x01, 0x25
CQE_SEND_INV = 0x4
SYND_LEN, SYND_QP_OP, SYND_PROT = 0x01, 0x02, 0x04
SYND_REM_INV, SYND_REM_ACCESS = 0x12, 0x13

# The UMR control segment's flags and the mkey mask bits (the PRM's).
INLINE, CHECK_NOT_FREE, CHECK_FREE, XLT_OFFSET = 0x80, 0x20, 0x40, 0x10
M_LEN, M_PAGE, M_START, M_PD, M_RINVAL = 1, 2, 1 << 6, 1 << 7, 1 << 8
M_BSF, M_KEY, M_FREE = 1 << 12, 1 << 13, 1 << 29
M_LR, M_LW, M_RR, M_RW, M_A, M_FENCE = [1 << b for b in (17, 18, 19, 20, 21,
                                                          23)]
# set_reg_wr's mask: frwr_mkey_mask() without atomics.
FRWR = (M_LEN | M_PAGE | M_START | M_RINVAL | M_KEY | M_LR | M_LW | M_RR |
        M_RW | M_FENCE | M_FREE)

PAGES = MEM + 0x100000    # 16 pages of 4 KiB for the registrations
XLT = MEM + 0xF0000       # a translation behind a data segment
IOVA = 0x7F0000000800     # the registered range's first byte


def mkc(acc=LR | LW | RR | RW, variant=0, start=IOVA, length=0, free=0,
        rinval=1, pd=0, log_page=12, octs=0, umr_en=1):
    """A key's context, the mkc layout, as set_reg_mkey_seg fills it."""
    m = bytearray(64)
    setf(m, 0, 1, 1, free)
    setf(m, 0, 16, 1, umr_en)
    setf(m, 0, 17, 5, acc)
    setf(m, 0, 22, 2, 1)                         # MTT
    setf(m, 0, 32, 24, 0xFFFFFF)
    setf(m, 0, 56, 8, variant)
    setf(m, 0, 103, 1, rinval)
    setf(m, 0, 104, 24, pd)
    setf(m, 0, 128, 64, start)
    setf(m, 0, 192, 64, length)
    setf(m, 0, 416, 32, octs)
    setf(m, 0, 475, 5, log_page)
    return m


def umr_ctrl(flags, mask, octs=0, offset=0):
    return struct.pack(">BxxxHHQI28x", flags, octs, offset & 0xFFFF, mask,
                       offset >> 16)


def entries(pages, flags=3):
    """MTT entries, the read/write enable bits set as mlx5_set_page does,
    padded to 64 bytes as set_reg_wr pads them."""
    b = b"".join(struct.pack(">Q", p | flags) for p in pages)
    return b + bytes(-len(b) % 64)


class Umr:
    def __init__(self, x):
        self.x, self.r, self.qt = x, x.r, x.qt

    def free_key(self, octs=8, pd=None, umr_en=1, variant=0):
        """CREATE_MKEY of a free MTT key, as ib_alloc_mr makes it."""
        inp = hdr(0x200, size=0x110)
        inp[0x10:0x50] = mkc(acc=LR, start=0, length=0, free=1, rinval=0,
                             pd=self.x.pd if pd is None else pd, octs=octs,
                             umr_en=umr_en, variant=variant)
        st, idx = self.r.new(inp)
        expect("CREATE_MKEY free", st, 0)
        return idx << 8 | variant

    def query(self, key):
        inp = hdr(0x201, size=0x10)
        setf(inp, 0, 72, 24, key >> 8)
        out = self.r.eth.run(inp, 0x130)
        m = out[0x10:0x50]
        w0, w1, w3 = struct.unpack(">I", m[0:4])[0], \
            struct.unpack(">I", m[4:8])[0], struct.unpack(">I", m[12:16])[0]
        return dict(free=w0 >> 30 & 1, acc=w0 >> 10 & 0x1F,
                    variant=w1 & 0xFF, rinval=w3 >> 24 & 1,
                    pd=w3 & 0xFFFFFF,
                    start=struct.unpack(">Q", m[16:24])[0],
                    len=struct.unpack(">Q", m[24:32])[0])

    def post(self, qp, key, flags, mask, m, tail=b"", octs=0, offset=0,
             ring=True):
        return self.x.post_send(qp, OP_UMR, imm=key, ring=ring,
                                body=umr_ctrl(flags, mask, octs, offset) +
                                bytes(m) + tail)

    def reg_mr(self, qp, key, pages, length, acc=LR | LW | RR | RW,
               inline=True, start=IOVA):
        """IB_WR_REG_MR as set_reg_wr builds it."""
        xlt = entries(pages)
        m = mkc(acc=acc, variant=key & 0xFF, start=start, length=length,
                octs=(len(pages) + 7) // 8 * 4)
        if inline:
            return self.post(qp, key, INLINE | CHECK_NOT_FREE, FRWR, m, xlt,
                             octs=len(xlt) // 16)
        self.qt.write(XLT, xlt)
        return self.post(qp, key, CHECK_NOT_FREE, FRWR, m,
                         struct.pack(">IIQ", len(xlt), self.x.lkey, XLT),
                         octs=len(xlt) // 16)

    def local_inv(self, qp, key):
        """IB_WR_LOCAL_INV: set_linv_wr, a UMR that frees the key."""
        return self.post(qp, key, INLINE, M_FREE, mkc(free=1, acc=0,
                                                      start=0, rinval=0))

    def rst2rts(self, qp):
        """As mlx5r_umr_qp_rst2rts (and its recovery) does."""
        def rtr(b):
            setf(b, QPC, 64, 3, 3)                  # MTU 1024
            setf(b, QPC, 67, 5, 30)
        expect("2rst", self.r.modify("2rst", qp.qpn), 0)
        qp.sq_pc = 0
        self.qt.write(qp.dbr, bytes(8))
        expect("rst2init", self.r.modify("rst2init", qp.qpn), 0)
        expect("init2rtr", self.r.modify("init2rtr", qp.qpn, extra=rtr), 0)
        expect("rtr2rts", self.r.modify("rtr2rts", qp.qpn), 0)

    def ok(self, qp, si):
        c = self.x.poll(1)[0]
        check_req(c, qp, OP_UMR, si)

    def err(self, what, qp, si, synd, op=OP_UMR):
        c = [e for e in self.x.poll(1) + self.x.drain(1) if e.qpn == qp.qpn]
        expect(what, (c[0].opcode, c[0].syndrome, c[0].counter,
                      c[0].send_op), (CQE_REQ_ERR, synd, si, op))


def page_list():
    """Pages of PAGES out of order, two of them adjacent."""
    return [PAGES + (i << 12) for i in (5, 2, 3, 9, 0)]


def pa_of(pages, va, start=IOVA):
    off = va - (start & ~0xFFF)
    return pages[off >> 12] + (off & 0xFFF)


def setup(u):
    x = u.x
    x.pair()
    x.drain()
    st, u.pd2 = u.r.new(hdr(0x800))
    expect("ALLOC_PD", st, 0)
    u.key = u.free_key(octs=8)
    q = u.query(u.key)
    expect("a free key: free, umr_en, no rights but LR", (q["free"],
                                                           q["acc"]),
           (1, LR << 0))
    a, b = x.qps
    # A free key grants nothing: a SEND through it fails locally.
    si = x.post_send(a, OP_SEND, [(16, u.key, IOVA)])
    c = x.poll(1)[0]
    expect("SEND through a free key", (c.opcode, c.syndrome, c.counter),
           (CQE_REQ_ERR, SYND_PROT, si))
    x.drain()
    x.pair()
    return None


def reg_write_read(u):
    x = u.x
    a, b = x.qps
    pages = page_list()
    key = (u.key & ~0xFF) | 0x5A          # ib_update_fast_reg_key
    length = 5 * 4096 - 0x800 - 0x100
    si = u.reg_mr(a, key, pages, length)
    u.ok(a, si)
    q = u.query(key)
    expect("REG_MR: enabled, variant, rights, range, remote invalidation",
           (q["free"], q["variant"], q["acc"], q["start"], q["len"],
            q["rinval"]), (0, 0x5A, LR | LW | RR | RW, IOVA, length, 1))
    # The peer WRITEs 6000 bytes across four pages of the region.
    data = random.Random(3).randbytes(6000)
    x.mem(0xC0000, data)
    va = IOVA + 0x1234
    si = x.post_send(b, OP_WRITE, [(6000, x.lkey, MEM + 0xC0000)],
                     raddr=(va, key))
    check_req(x.poll(1)[0], b, OP_WRITE, si)
    got = b""
    for i in range(6000):
        if i == 0 or (va + i) & 0xFFF == 0:
            n = min(6000 - i, 0x1000 - ((va + i) & 0xFFF))
            got += x.qt.read(pa_of(pages, va + i), n)
    expect("WRITE through the new rkey lands on the pages", got, data)
    # ... READs it back, and a's SEND gathers through it as lkey.
    x.mem(0xD0000, bytes(6000))
    si = x.post_send(b, OP_READ, [(6000, x.lkey, MEM + 0xD0000)],
                     raddr=(va, key))
    check_req(x.poll(1)[0], b, OP_READ, si, 6000)
    expect("READ through it", x.rd(0xD0000, 6000), data)
    ri = x.post_recv(b, [(4096, x.lkey, MEM + 0xE0000)])
    si = x.post_send(a, OP_SEND, [(3000, key, va + 100)])
    c = x.poll(2)
    check_req(x.by_qp(c, a)[0], a, OP_SEND, si)
    check_resp(x.by_qp(c, b)[0], b, 0x2, ri, 3000)
    expect("SEND through it as lkey", x.rd(0xE0000, 3000), data[100:3100])
    # A byte past the region: the peer's WRITE is refused.
    si = x.post_send(b, OP_WRITE, [(2, x.lkey, MEM + 0xC0000)],
                     raddr=(IOVA + length - 1, key))
    c = x.by_qp(x.poll(1) + x.drain(), b)[0]
    expect("WRITE one byte past the region", (c.opcode, c.syndrome),
           (CQE_REQ_ERR, SYND_REM_ACCESS))
    x.pair()
    u.live = key
    return None


def local_inv(u):
    x = u.x
    a, b = x.qps
    key = u.live
    si = u.local_inv(a, key)
    u.ok(a, si)
    expect("LOCAL_INV: the key is free", u.query(key)["free"], 1)
    si = x.post_send(b, OP_WRITE, [(16, x.lkey, MEM + 0xC0000)],
                     raddr=(IOVA, key))
    c = x.by_qp(x.poll(1) + x.drain(), b)[0]
    expect("WRITE through the invalidated rkey: remote access error",
           (c.opcode, c.syndrome, c.counter), (CQE_REQ_ERR, SYND_REM_ACCESS,
                                               si))
    x.pair()
    return None


def send_inv(u):
    x = u.x
    a, b = x.qps
    pages = list(reversed(page_list())) + [PAGES + (i << 12)
                                           for i in range(10, 16)]
    key = (u.key & ~0xFF) | 0x5B
    # Eleven pages: the translation behind a data segment (over 64 bytes).
    si = u.reg_mr(a, key, pages, 11 * 4096 - 0x800, inline=False)
    u.ok(a, si)
    x.mem(0xC0000, b"through the pointer")
    si = x.post_send(b, OP_WRITE, [(19, x.lkey, MEM + 0xC0000)],
                     raddr=(IOVA + 10 * 4096, key))
    check_req(x.poll(1)[0], b, OP_WRITE, si)
    expect("WRITE into page 10 of a pointed translation",
           x.qt.read(pages[10] + 0x800, 19), b"through the pointer")
    ri = x.post_recv(a, [(64, x.lkey, MEM + 0xE1000)])
    si = x.post_send(b, OP_SEND_INV, [(8, x.lkey, MEM + 0xC0000)], imm=key)
    c = x.poll(2)
    check_req(x.by_qp(c, b)[0], b, OP_SEND_INV, si)
    r = x.by_qp(c, a)[0]
    expect("receive CQE: SEND with invalidate, the key it freed",
           (r.opcode, r.counter, r.byte_cnt, r.imm),
           (CQE_SEND_INV, ri, 8, key))
    expect("the key is free", u.query(key)["free"], 1)
    si = x.post_send(b, OP_WRITE, [(16, x.lkey, MEM + 0xC0000)],
                     raddr=(IOVA, key))
    c = x.by_qp(x.poll(1) + x.drain(), b)[0]
    expect("WRITE after the peer's invalidation: remote access error",
           (c.opcode, c.syndrome), (CQE_REQ_ERR, SYND_REM_ACCESS))
    x.pair()
    # A key that does not allow remote invalidation stays valid.
    key = (key & ~0xFF) | 0x5C
    m = mkc(variant=0x5C, length=4096, rinval=0, octs=4)
    si = u.post(a, key, INLINE | CHECK_NOT_FREE, FRWR, m,
                entries([PAGES]), octs=4)
    u.ok(a, si)
    x.post_recv(a, [(64, x.lkey, MEM + 0xE1000)])
    si = x.post_send(b, OP_SEND_INV, [(8, x.lkey, MEM + 0xC0000)], imm=key)
    c = x.by_qp(x.poll(1) + x.drain(), b)[0]
    expect("SEND_INV of a key without remote invalidation",
           (c.opcode, c.syndrome, c.counter), (CQE_REQ_ERR, SYND_REM_INV,
                                               si))
    expect("that key still enabled", u.query(key)["free"], 0)
    x.pair()
    si = u.local_inv(a, key)
    u.ok(a, si)
    return None


def umr_qp(u):
    """The kernel's registration QP: fill, enable, rights, revoke."""
    x = u.x
    a, b = x.qps
    qp = QP(2, 0)
    pas = qp.buf
    x.qt.write(pas, bytes(0x2000))
    x.qt.write(qp.dbr, bytes(8))
    st, qp.qpn = u.r.new(u.r.qp_in(st=ST_UMR, pd=0, snd=x.cqn, rcv=x.cqn,
                                   rq_type=3, log_sq=6, dbr=qp.dbr,
                                   pas=pas, xrcd=0))
    # No RQ: its SQ starts the buffer, where Roce.sq_write puts an RQ.
    qp.buf = pas - RQ_BYTES
    expect("CREATE_QP REG_UMR", st, 0)
    qp.uidx = 0
    u.umr = qp
    u.rst2rts(qp)
    expect("REG_UMR QP in RTS", x.state(qp), RTS)
    # A cache key: free, of the registration QP's PD (here pd2).
    key = u.free_key(octs=8, pd=u.pd2, variant=0x70)
    pages = [PAGES + (i << 12) for i in (7, 1, 4, 6, 8, 11, 12, 13, 14,
                                          15)]
    xlt = entries(pages, flags=3)
    # mlx5r_umr_update_mr_pas in two chunks: 8 entries, then 2 at 8.
    x.qt.write(XLT, xlt[:64])
    m = mkc(acc=LR | LW | RW, pd=x.pd, variant=0x70, start=0x1000,
            length=10 * 4096, rinval=0)
    si = u.post(qp, key, CHECK_NOT_FREE, 0, m,
                struct.pack(">IIQ", 64, x.lkey, XLT), octs=4)
    c = x.poll(1)[0]
    expect("first chunk", (c.opcode, c.qpn, c.send_op, c.counter),
           (0, qp.qpn, OP_UMR, si))
    expect("still free after it", u.query(key)["free"], 1)
    x.qt.write(XLT, xlt[64:])
    si = u.post(qp, key, CHECK_NOT_FREE | XLT_OFFSET,
                M_KEY | M_FREE | M_LR | M_LW | M_RR | M_RW | M_A | M_PD |
                M_LEN | M_PAGE | M_START, m,
                struct.pack(">IIQ", 64, x.lkey, XLT), octs=4, offset=4)
    c = x.poll(1)[0]
    expect("final chunk: enabled", (c.opcode, c.counter), (0, si))
    q = u.query(key)
    expect("the key: enabled, the user's PD, rights",
           (q["free"], q["pd"], q["acc"]), (0, x.pd, LR | LW | RW))
    x.mem(0xC0000, b"page nine" * 10)
    si = x.post_send(b, OP_WRITE, [(90, x.lkey, MEM + 0xC0000)],
                     raddr=(0x1000 + 9 * 4096 + 0x10, key))
    check_req(x.poll(1)[0], b, OP_WRITE, si)
    expect("WRITE into the tenth page", x.qt.read(pages[9] + 0x10, 90),
           b"page nine" * 10)
    # rereg: rights only, on an enabled key (fail if free).
    si = u.post(qp, key, INLINE | CHECK_FREE, M_LR | M_LW | M_RR | M_RW |
                M_A | M_PD, mkc(acc=LR | LW, pd=x.pd, variant=0x70))
    u.ok(qp, si)
    expect("rights changed", u.query(key)["acc"], LR | LW)
    si = x.post_send(b, OP_WRITE, [(4, x.lkey, MEM + 0xC0000)],
                     raddr=(0x1000, key))
    c = x.by_qp(x.poll(1) + x.drain(), b)[0]
    expect("WRITE without remote write now", (c.opcode, c.syndrome),
           (CQE_REQ_ERR, SYND_REM_ACCESS))
    x.pair()
    # revoke: free, back to the registration QP's PD.
    si = u.post(qp, key, INLINE, M_PD | M_FREE,
                mkc(free=1, pd=u.pd2, variant=0x70, acc=0))
    u.ok(qp, si)
    q = u.query(key)
    expect("revoked: free, pd2", (q["free"], q["pd"]), (1, u.pd2))
    # A key of the cache's smallest entry (4 entries, 2 octwords) takes
    # the 64 bytes update_mr_pas writes: a UMR writes 8 entries a block.
    small = u.free_key(octs=2, pd=u.pd2, variant=0x71)
    x.qt.write(XLT, entries([PAGES + 0x6000]))
    m = mkc(acc=LR | LW | RW, pd=x.pd, variant=0x71, start=0x6000,
            length=4096, rinval=0)
    si = u.post(qp, small, CHECK_NOT_FREE, M_KEY | M_FREE | M_LR | M_LW |
                M_RR | M_RW | M_A | M_PD | M_LEN | M_PAGE | M_START, m,
                struct.pack(">IIQ", 64, x.lkey, XLT), octs=4)
    u.ok(qp, si)
    si = x.post_send(b, OP_WRITE, [(5, x.lkey, MEM + 0xC0000)],
                     raddr=(0x6000, small))
    check_req(x.poll(1)[0], b, OP_WRITE, si)
    expect("WRITE through a 4-entry key", x.qt.read(PAGES + 0x6000, 5),
           b"page ")
    si = u.post(qp, small, XLT_OFFSET, 0, m,
                struct.pack(">IIQ", 64, x.lkey, XLT), octs=4, offset=4)
    u.err("a second block past the 4-entry key", qp, si, SYND_LEN)
    u.rst2rts(qp)
    # The registration QP takes UMR and NOP alone.
    si = x.post_send(qp, OP_SEND, [(4, x.lkey, MEM)])
    u.err("a SEND on the registration QP", qp, si, SYND_QP_OP, OP_SEND)
    u.rst2rts(qp)
    u.cache_key = key
    return None


def bad(u):
    """Bad UMRs: each its error CQE; the key as it was."""
    x = u.x
    a, b = x.qps
    key = (u.key & ~0xFF) | 0x61
    good = dict(acc=LR | LW | RR | RW, variant=0x61, length=4096, octs=4)
    other = u.free_key(octs=8, pd=u.pd2)
    # A key without umr_en: a PA key (the RoCE cases' lkey).
    xl = entries([PAGES])
    cases = [
        ("no such key", dict(key=0x3FF0 << 8), SYND_PROT),
        ("a PA key", dict(key=x.lkey), SYND_PROT),
        ("another PD's key", dict(key=other), SYND_PROT),
        ("a PD change from a ULP's QP", dict(mask=FRWR | M_PD), SYND_PROT),
        ("page size 2 KiB", dict(m=dict(log_page=11)), SYND_PROT),
        ("page size 2 GiB", dict(m=dict(log_page=31)), SYND_PROT),
        ("an entry off its page", dict(xlt=entries([PAGES + 0x800])),
         SYND_PROT),
        ("the translation past the key's 16 entries",
         dict(xlt=entries([PAGES] * 24), octs=12), SYND_LEN),
        ("the translation at an offset past them",
         dict(flags=INLINE | CHECK_NOT_FREE | XLT_OFFSET, offset=6),
         SYND_LEN),
        ("a range of 17 pages", dict(m=dict(length=17 * 4096)), SYND_LEN),
        ("a range that wraps", dict(m=dict(start=(1 << 64) - 0x800)),
         SYND_LEN),
        ("len 2^64 - 1", dict(m=dict(length=(1 << 64) - 1)), SYND_LEN),
        ("a pointer through a bad lkey",
         dict(flags=CHECK_NOT_FREE,
              xlt=struct.pack(">IIQ", 64, (x.lkey & ~0xFF) | 0x99, XLT)),
         SYND_PROT),
        ("a pointer to memory that is not there",
         dict(flags=CHECK_NOT_FREE,
              xlt=struct.pack(">IIQ", 64, x.lkey, 1 << 50)), SYND_PROT),
        ("a pointer's byte count short of the translation",
         dict(flags=CHECK_NOT_FREE,
              xlt=struct.pack(">IIQ", 48, x.lkey, XLT)), SYND_LEN),
        ("no data segment for the pointer",
         dict(flags=CHECK_NOT_FREE, xlt=b"", octs=4), SYND_QP_OP),
        ("the inline translation past the WQE",
         dict(xlt=entries([PAGES]), octs=8), SYND_QP_OP),
        ("a mask bit not offered (BSF)", dict(mask=FRWR | M_BSF),
         SYND_QP_OP),
        ("check flags 3", dict(flags=INLINE | 0x60), SYND_QP_OP),
        ("a flag not offered", dict(flags=INLINE | CHECK_NOT_FREE | 0x08),
         SYND_QP_OP),
        ("no key context (a 64-byte WQE)", dict(short=True), SYND_QP_OP),
    ]
    seen = 0
    for what, kw, synd in cases:
        k = kw.get("key", key)
        m = mkc(**dict(good, **kw.get("m", {})))
        xlt = kw.get("xlt", xl)
        before = u.query(k) if (k >> 8) != 0x3FF0 else None
        if kw.get("short"):
            si = x.post_send(a, OP_UMR, imm=k, body=umr_ctrl(INLINE, FRWR))
        else:
            si = u.post(a, k, kw.get("flags", INLINE | CHECK_NOT_FREE),
                        kw.get("mask", FRWR), m, xlt,
                        octs=kw.get("octs", len(xlt) // 16 if len(xlt) != 16
                                    else 4), offset=kw.get("offset", 0))
        u.err(what, a, si, synd)
        if before is not None:
            expect(what + ": the key unchanged", u.query(k), before)
        x.pair()
        seen += 1
    # The key enabled, then REG_MR again without invalidation.
    si = u.post(a, key, INLINE | CHECK_NOT_FREE, FRWR, mkc(**good), xl,
                octs=4)
    u.ok(a, si)
    si = u.post(a, key, INLINE | CHECK_NOT_FREE, FRWR, mkc(**good), xl,
                octs=4)
    u.err("REG_MR of a key not free", a, si, SYND_PROT)
    x.pair()
    si = u.local_inv(a, key)
    u.ok(a, si)
    # A key without umr_en cannot be changed.
    inp = hdr(0x200, size=0x110)
    inp[0x10:0x50] = mkc(acc=LR, start=0, length=0, pd=x.pd, octs=8,
                         umr_en=0, rinval=0)
    st, idx = u.r.new(inp)
    expect("CREATE_MKEY MTT without umr_en", st, 0)
    si = u.post(a, idx << 8, INLINE, FRWR, mkc(**dict(good, variant=0)),
                xl, octs=4)
    u.err("a key without umr_en", a, si, SYND_PROT)
    x.pair()
    # A free key without umr_en, or a free PA key, is refused outright.
    inp[0x10:0x50] = mkc(acc=LR, free=1, umr_en=0, pd=x.pd, octs=8,
                         rinval=0)
    st, _ = u.r.new(inp)
    expect("CREATE_MKEY free without umr_en", st, 0x3)
    print("# %d bad UMRs, each its error CQE" % (seen + 2))
    return None


def fuzz(u):
    """Good UMRs with random bits flipped, on both kinds of QP."""
    x = u.x
    a, b = x.qps
    rnd = random.Random(int(os.environ.get("FUZZ_SEED", "34")))
    rounds = int(os.environ.get("FUZZ_ROUNDS", "2000")) // 10
    seen = {}
    keys = [u.key, u.cache_key]
    for r in range(rounds):
        if r % 20 == 0:
            x.pair()
            x.drain(1)
        qp = rnd.choice([a, u.umr])
        key = rnd.choice(keys) | rnd.randrange(256)
        body = bytearray(umr_ctrl(rnd.choice([INLINE, INLINE | CHECK_NOT_FREE,
                                              CHECK_NOT_FREE, CHECK_FREE]),
                                  rnd.choice([FRWR, M_FREE, M_PD | M_FREE,
                                              rnd.randrange(1 << 32)]),
                                  rnd.choice([0, 4, 8, rnd.randrange(1 << 16)]),
                                  rnd.choice([0, rnd.randrange(1 << 20)])) +
                         mkc(variant=key & 0xFF, length=rnd.choice(
                             [0, 4096, 5 * 4096, rnd.randrange(1 << 64)]),
                             octs=4, free=rnd.randrange(2),
                             pd=rnd.choice([x.pd, u.pd2, 0, 999])) +
                         rnd.choice([entries([PAGES, PAGES + 0x3000]),
                                     struct.pack(">IIQ", 64, x.lkey, XLT),
                                     rnd.randbytes(rnd.choice([16, 64]))]))
        for _ in range(rnd.randrange(4)):
            i = rnd.randrange(len(body))
            body[i] ^= 1 << rnd.randrange(8)
        x.post_send(qp, OP_UMR, imm=key, body=bytes(body))
        x.post_send(b, OP_WRITE, [(16, x.lkey, MEM + 0xC0000)],
                    raddr=(rnd.choice([IOVA, 0x1000]), key))
        for c in x.drain(1):
            k = "cqe 0x%x" % c.opcode
            if c.opcode in (CQE_REQ_ERR, 0xE):
                k += " synd 0x%x" % c.syndrome
                expect("a syndrome of the PRM's", c.syndrome in CQE_SYNDROMES,
                       True)
            seen[k] = seen.get(k, 0) + 1
            if c.qpn == u.umr.qpn and c.opcode == CQE_REQ_ERR:
                u.rst2rts(u.umr)
    x.pair()
    x.drain(1)
    # The registration QP takes the key back into a's PD (the rounds may
    # have moved it), then a good REG_MR and a WRITE through it.
    u.rst2rts(u.umr)
    si = u.post(u.umr, u.key, INLINE, M_PD | M_FREE,
                mkc(free=1, pd=x.pd, acc=0))
    u.ok(u.umr, si)
    key = (u.key & ~0xFF) | 0x77
    si = u.reg_mr(a, key, [PAGES], 4096, start=0x9000)
    u.ok(a, si)
    x.mem(0xC0000, b"after the fuzz")
    si = x.post_send(b, OP_WRITE, [(14, x.lkey, MEM + 0xC0000)],
                     raddr=(0x9000, key))
    check_req(x.poll(1)[0], b, OP_WRITE, si)
    expect("written after the fuzz", x.qt.read(PAGES, 14), b"after the fuzz")
    print("# %d rounds: " % rounds + ", ".join("%s %d" % kv
                                       for kv in sorted(seen.items())))
    return None


def wrap(fn):
    return lambda rdma: fn(rdma.umr_cases)


def start(rdma):
    rdma.umr_cases = Umr(rdma.roce)
    return setup(rdma.umr_cases)


UMR_CASES = [
    ("UMR: a free key (ib_alloc_mr) grants nothing", start),
    ("UMR: REG_MR inline, WRITE/READ/SEND through the key, data checked",
     wrap(reg_write_read)),
    ("UMR: LOCAL_INV frees the key, the peer's WRITE refused",
     wrap(local_inv)),
    ("UMR: REG_MR by pointer, SEND with invalidate, the CQE's key",
     wrap(send_inv)),
    ("UMR: the registration QP fills, enables, rereg, revokes a key",
     wrap(umr_qp)),
    ("UMR: bad UMRs, each its error CQE, the key unchanged", wrap(bad)),
    ("UMR: random UMRs, then a good one", wrap(fuzz)),
]

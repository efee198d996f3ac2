#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""IBTA 1.5 ATOMIC WRITE on rxe, as librxe 44 posts it (pyverbs QPEx).

    rxe_atomic_write.py [--dev A --gid N --peer B --peer-gid M] CASE

A is the requester, B the responder.  Cases:
    place      8 bytes each at offsets 0, 8, 4088 and 4096 of a
               responder MR filled with 0xee, and into a fresh ODP MR
               when the device has ODP: each completes with opcode
               IBV_WC_ATOMIC_WRITE and byte_len 8, lands as posted (the
               bytes in order), and no byte around it changes
    burst      64 posted at once at 64 offsets, the QP allowing 4
               READs/atomics outstanding each way: all complete, in
               order, each value in place
    errors     misaligned (offset 4): remote invalid request; an MR
               without remote write: remote access error; 8 bytes past
               the MR's end: remote access error; a responder QP
               without remote write access, or with max_dest_rd_atomic
               0: remote invalid request.  A fresh pair each
    replay     --rounds times an ATOMIC WRITE of A then an RDMA WRITE of
               B to the same 8 bytes, chained, while the caller drops
               some of the responder's packets: both complete, and the
               bytes are B.  A lost answer makes the requester send both
               again; the responder answers the ATOMIC WRITE again from
               its resource, never placing it twice (that would leave A:
               the WRITE's duplicate is only acknowledged)
Exit 4 when the device does not report ATOMIC WRITE (stock's rxe):
"no ATOMIC WRITE".
"""
import struct
import sys

from pyverbs import enums as e
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.qp import QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import SGE

from rxe_traffic import ACCESS_ALL, Absent, Failed, PAGE, Side, anon, poll, \
    problem, run_cases

# ib_user_verbs.h of rdma-core 44: IB_UVERBS_DEVICE_ATOMIC_WRITE.
DEVICE_ATOMIC_WRITE = 1 << 40
WC_ATOMIC_WRITE = 9



class SideEx(Side):
    """Side with an extended QP that posts ATOMIC WRITEs and RDMA WRITEs."""

    def __init__(self, dev, gid, depth):
        super().__init__(dev, gid, depth)
        self.qp.close()
        cap = QPCap(max_send_wr=depth, max_recv_wr=depth, max_send_sge=1,
                    max_recv_sge=1)
        attr = QPInitAttrEx(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                            cap=cap, pd=self.pd,
                            send_ops_flags=e.IBV_QP_EX_WITH_ATOMIC_WRITE |
                            e.IBV_QP_EX_WITH_RDMA_WRITE,
                            comp_mask=e.IBV_QP_INIT_ATTR_PD |
                            e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
        self.qp = QPEx(self.ctx, attr)

    def atomic_write(self, wr_id, rkey, raddr, data):
        self.qp.wr_id = wr_id
        self.qp.wr_flags = e.IBV_SEND_SIGNALED
        self.qp.wr_atomic_write(rkey, raddr, data)

    def rdma_write(self, wr_id, rkey, raddr, mr, off, length):
        self.qp.wr_id = wr_id
        self.qp.wr_flags = e.IBV_SEND_SIGNALED
        self.qp.wr_rdma_write(rkey, raddr)
        self.qp.wr_set_sge(SGE(mr.buf + off, length, mr.lkey))


def pair(a, depth=16, **resp_attr):
    """The requester's QP extended; @resp_attr: the responder's access
    flags and max_dest_rd_atomic (Side.connect())."""
    req = SideEx(a.dev, a.gid, depth)
    resp = Side(a.peer, a.peer_gid, depth)
    req.connect(resp, e.IBV_MTU_1024, 14, 7)
    resp.connect(req, e.IBV_MTU_1024, 14, 7, **resp_attr)
    return req, resp


def has_atomic_write(attr):
    """Whether query_device_ex's @attr reports ATOMIC WRITE."""
    return bool(attr.device_cap_flags_ex & DEVICE_ATOMIC_WRITE)


def check_device(dev):
    attr = Context(name=dev).query_device_ex()
    if not has_atomic_write(attr):
        raise Absent("no ATOMIC WRITE")
    return attr.odp_caps.general_caps & e.IBV_ODP_SUPPORT


def value(i):
    """8 bytes, none alike within or across values."""
    return bytes(((i * 8 + j) * 37 + 11) & 0xff for j in range(8))


def post_one(req, rkey, raddr, data, wr_id=1):
    req.qp.wr_start()
    req.atomic_write(wr_id, rkey, raddr, data)
    req.qp.wr_complete()


def expect_ok(wc, what):
    if wc.status != e.IBV_WC_SUCCESS:
        raise Failed("%s: status %d" % (what, wc.status))
    if wc.opcode != WC_ATOMIC_WRITE or wc.byte_len != 8:
        raise Failed("%s: opcode %d byte_len %d, want %d and 8" %
                     (what, wc.opcode, wc.byte_len, WC_ATOMIC_WRITE))


def place(a):
    odp = check_device(a.dev)
    req, resp = pair(a)
    size = 2 * PAGE
    targets = [("MR", MR(resp.pd, size, ACCESS_ALL))]
    if odp:
        targets.append(("fresh ODP MR",
                        MR(resp.pd, size, ACCESS_ALL | e.IBV_ACCESS_ON_DEMAND,
                           address=anon(2))))
    n = 0
    for name, mr in targets:
        mr.write(b"\xee" * size, size)
        want = bytearray(b"\xee" * size)
        for off in (0, 8, PAGE - 8, PAGE):
            n += 1
            post_one(req, mr.rkey, mr.buf + off, value(n), n)
            expect_ok(poll(req.cq)[0], "%s offset %d" % (name, off))
            want[off:off + 8] = value(n)
            got = mr.read(size, 0)
            if got != bytes(want):
                bad = next(i for i in range(size) if got[i] != want[i])
                raise Failed("%s offset %d: byte %d reads %#x, wants %#x" %
                             (name, off, bad, got[bad], want[bad]))
        mr.close()
    req.close()
    resp.close()


def burst(a):
    check_device(a.dev)
    n = 64
    req, resp = pair(a, depth=n)
    mr = MR(resp.pd, n * 8, ACCESS_ALL)
    mr.write(b"\0" * (n * 8), n * 8)
    req.qp.wr_start()
    for i in range(n):
        req.atomic_write(i, mr.rkey, mr.buf + 8 * i, value(i))
    req.qp.wr_complete()
    wcs = poll(req.cq, n)
    for i, wc in enumerate(wcs):
        expect_ok(wc, "ATOMIC WRITE %d of %d" % (i, n))
        if wc.wr_id != i:
            raise Failed("completion %d has wr_id %d" % (i, wc.wr_id))
    got = mr.read(n * 8, 0)
    for i in range(n):
        if got[8 * i:8 * i + 8] != value(i):
            problem("offset %d: %s, want %s" %
                    (8 * i, got[8 * i:8 * i + 8].hex(), value(i).hex()))
    mr.close()
    req.close()
    resp.close()


def errors(a):
    check_device(a.dev)
    no_write = e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC
    cases = [
        ("misaligned", {}, ACCESS_ALL, 4, e.IBV_WC_REM_INV_REQ_ERR),
        ("MR without remote write", {},
         e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ, 0,
         e.IBV_WC_REM_ACCESS_ERR),
        ("past the MR's end", {}, ACCESS_ALL, PAGE, e.IBV_WC_REM_ACCESS_ERR),
        ("QP without remote write", {"access": no_write}, ACCESS_ALL, 0,
         e.IBV_WC_REM_INV_REQ_ERR),
        ("max_dest_rd_atomic 0", {"dest_rd_atomic": 0}, ACCESS_ALL, 0,
         e.IBV_WC_REM_INV_REQ_ERR),
    ]
    for what, kw, mr_access, off, status in cases:
        req, resp = pair(a, **kw)
        mr = MR(resp.pd, PAGE, mr_access)
        post_one(req, mr.rkey, mr.buf + off, value(1))
        wc = poll(req.cq)[0]
        if wc.status != status:
            problem("%s: status %d, want %d" % (what, wc.status, status))
        mr.close()
        req.close()
        resp.close()


def replay(a):
    check_device(a.dev)
    req, resp = pair(a)
    mr = MR(resp.pd, PAGE, ACCESS_ALL)
    src = MR(req.pd, PAGE, ACCESS_ALL)
    for r in range(a.rounds):
        first, second = value(2 * r), value(2 * r + 1)
        src.write(second, 8)
        req.qp.wr_start()
        req.atomic_write(2 * r, mr.rkey, mr.buf, first)
        req.rdma_write(2 * r + 1, mr.rkey, mr.buf, src, 0, 8)
        req.qp.wr_complete()
        wcs = poll(req.cq, 2)
        for wc in wcs:
            if wc.status != e.IBV_WC_SUCCESS:
                raise Failed("round %d: wr_id %d status %d" %
                             (r, wc.wr_id, wc.status))
        got = mr.read(8, 0)
        if got != second:
            raise Failed("round %d: the bytes are %s, not the WRITE's %s%s" %
                         (r, got.hex(), second.hex(),
                          " (the ATOMIC WRITE's: placed twice)"
                          if got == first else ""))
    print("# %d rounds" % a.rounds, flush=True)
    src.close()
    mr.close()
    req.close()
    resp.close()


def main():
    cases = {"place": place, "burst": burst, "errors": errors,
             "replay": replay}
    return run_cases(cases, "rxe1", "rxe2", rounds=200)


if __name__ == "__main__":
    sys.exit(main())

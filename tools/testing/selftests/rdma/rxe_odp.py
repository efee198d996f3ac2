#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""On-demand paging MRs on rxe, with traffic (pyverbs).

    rxe_odp.py [--dev A --gid N --peer B --peer-gid M] CASE

A is the requester, B the responder.  Every MR of a case is ODP
(IBV_ACCESS_ON_DEMAND) over fresh anonymous memory nobody touched, so the
first use of each page is a fault, unless the case says otherwise.
Cases:
    traffic      SEND into an ODP receive buffer, WRITE, READ, compare
                 and swap, fetch and add, each of 64 pages from ODP
                 memory to ODP memory, two SGEs a side; every byte
                 checked
    invalidate   the responder's pages are dropped (MADV_DONTNEED) after
                 a WRITE: a READ then sees zeros, never the old bytes
                 from pages the process no longer has; a WRITE after it
                 lands in the process's new pages; the requester's own
                 pages dropped and written again by the CPU: a WRITE
                 sends the new bytes
    unmapped     the responder's range unmapped (munmap) under the MR: a
                 READ of it is a remote access error, a WRITE to the
                 requester's unmapped range a local protection error;
                 the MRs then deregister
    race         WRITE then READ back, --rounds times, while another
                 thread drops the responder's pages again and again:
                 every operation completes, each packet's worth read
                 back is the bytes written or zeros, nothing else
    refused      the implicit MR (address 0, length SIZE_MAX):
                 EOPNOTSUPP
Exit 4 when the device reports no ODP (stock's rxe): "no ODP".
"""
import ctypes
import errno
import sys
import threading
import time

from pyverbs import enums as e
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import RecvWR, SGE, SendWR

from rxe_traffic import ACCESS_ALL, Absent, Failed, PAGE, Side, anon, libc, \
    ok, poll, problem, rearm, run_cases

ODP = ACCESS_ALL | e.IBV_ACCESS_ON_DEMAND
PAGES = 64
MADV_DONTNEED = 4

libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]



def pair(a):
    """Two connected RC QPs of two SGEs each, path MTU 1024."""
    req = Side(a.dev, a.gid, 16, max_sge=2)
    resp = Side(a.peer, a.peer_gid, 16, max_sge=2)
    req.connect(resp, e.IBV_MTU_1024, 14, 7)
    resp.connect(req, e.IBV_MTU_1024, 14, 7)
    return req, resp


def odp_mr(side, pages=PAGES):
    """An ODP MR over pages of fresh anonymous memory."""
    addr = anon(pages)
    return MR(side.pd, pages * PAGE, ODP, address=addr)


def pattern(n, seed):
    return bytes((i * 7 + seed * 13 + (i >> 12)) & 0xff for i in range(n))


def two_sges(mr, total):
    """Two SGEs of mr, the second starting a page and a bit further on:
    total bytes across a page boundary each."""
    half = total // 2
    return [SGE(mr.buf + 100, half, mr.lkey),
            SGE(mr.buf + half + PAGE + 200, total - half, mr.lkey)]


def sg_read(mr, sg):
    return b"".join(mr.read(s.length, s.addr - mr.buf) for s in sg)


def sg_write(mr, sg, data):
    off = 0
    for s in sg:
        mr.write(data[off:off + s.length], s.length, s.addr - mr.buf)
        off += s.length


def post(side, opcode, sg, rkey=0, raddr=0, wr_id=1):
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=len(sg), sg=sg,
                send_flags=e.IBV_SEND_SIGNALED)
    if rkey:
        wr.set_wr_rdma(rkey, raddr)
    side.qp.post_send(wr)
    return poll(side.cq)[0]


def atomic(side, opcode, lmr, rmr, compare_add, swap=0):
    wr = SendWR(wr_id=3, opcode=opcode, num_sge=1,
                sg=[SGE(lmr.buf, 8, lmr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(rmr.rkey, rmr.buf, compare_add, swap)
    side.qp.post_send(wr)
    return poll(side.cq)[0]


def check_odp(dev):
    caps = Context(name=dev).query_device_ex().odp_caps
    if not caps.general_caps & e.IBV_ODP_SUPPORT:
        raise Absent("no ODP")


def traffic(a):
    req, resp = pair(a)
    total = PAGES // 2 * PAGE
    lmr, rmr = odp_mr(req), odp_mr(resp)

    # SEND: both the requester's and the receive buffer fault.
    lsg, rsg = two_sges(lmr, total), two_sges(rmr, total)
    data = pattern(total, 1)
    sg_write(lmr, lsg, data)
    resp.qp.post_recv(RecvWR(wr_id=9, num_sge=2, sg=rsg))
    ok(post(req, e.IBV_WR_SEND, lsg), "SEND")
    wc = poll(resp.cq)[0]
    ok(wc, "SEND's receive")
    if wc.byte_len != total or sg_read(rmr, rsg) != data:
        problem("SEND: %d bytes received, or not the bytes sent" % wc.byte_len)

    # WRITE to untouched pages of the responder (a fresh MR).
    wmr = odp_mr(resp)
    data = pattern(total, 2)
    sg_write(lmr, lsg, data)
    ok(post(req, e.IBV_WR_RDMA_WRITE, lsg, wmr.rkey, wmr.buf + 5), "WRITE")
    if wmr.read(total, 5) != data:
        problem("WRITE: the responder's pages do not have the bytes")

    # READ from them into untouched pages of the requester.
    dmr = odp_mr(req)
    dsg = two_sges(dmr, total)
    ok(post(req, e.IBV_WR_RDMA_READ, dsg, wmr.rkey, wmr.buf + 5), "READ")
    if sg_read(dmr, dsg) != data:
        problem("READ: the requester's pages do not have the bytes")

    # Atomics on an untouched page, their result into an untouched one.
    amr, omr = odp_mr(resp, 1), odp_mr(req, 1)
    ok(atomic(req, e.IBV_WR_ATOMIC_FETCH_AND_ADD, omr, amr, 5), "FETCH_AND_ADD")
    ok(atomic(req, e.IBV_WR_ATOMIC_CMP_AND_SWP, omr, amr, 5, 0x1122), "CMP_AND_SWP")
    got = int.from_bytes(amr.read(8, 0), "little")
    orig = int.from_bytes(omr.read(8, 0), "little")
    if got != 0x1122 or orig != 5:
        problem("atomics: memory %#x (want 0x1122), original %d (want 5)" % (got, orig))


def invalidate(a):
    req, resp = pair(a)
    total = 8 * PAGE
    lmr, rmr = odp_mr(req, 8), odp_mr(resp, 8)
    sg = [SGE(lmr.buf, total, lmr.lkey)]

    old = pattern(total, 3)
    lmr.write(old, total, 0)
    ok(post(req, e.IBV_WR_RDMA_WRITE, sg, rmr.rkey, rmr.buf), "WRITE")
    if libc.madvise(rmr.buf, total, MADV_DONTNEED):
        raise Failed("madvise: errno %d" % ctypes.get_errno())
    ok(post(req, e.IBV_WR_RDMA_READ, sg, rmr.rkey, rmr.buf), "READ after MADV_DONTNEED")
    got = lmr.read(total, 0)
    if got != bytes(total):
        problem("READ after the responder's pages were dropped: %s" %
                ("the old bytes" if got == old else "not zeros"))

    new = pattern(total, 4)
    lmr.write(new, total, 0)
    ok(post(req, e.IBV_WR_RDMA_WRITE, sg, rmr.rkey, rmr.buf), "WRITE after MADV_DONTNEED")
    if rmr.read(total, 0) != new:
        problem("WRITE after the responder's pages were dropped did not land in them")

    # The requester's side: pages dropped, then written by the CPU.
    if libc.madvise(lmr.buf, total, MADV_DONTNEED):
        raise Failed("madvise: errno %d" % ctypes.get_errno())
    newer = pattern(total, 5)
    lmr.write(newer, total, 0)
    ok(post(req, e.IBV_WR_RDMA_WRITE, sg, rmr.rkey, rmr.buf), "WRITE of re-faulted pages")
    if rmr.read(total, 0) != newer:
        problem("WRITE after the requester's pages were dropped sent other bytes")


def unmapped(a):
    req, resp = pair(a)
    total = 4 * PAGE
    lmr, rmr = odp_mr(req, 4), odp_mr(resp, 4)
    sg = [SGE(lmr.buf, total, lmr.lkey)]

    if libc.munmap(rmr.buf, total):
        raise Failed("munmap: errno %d" % ctypes.get_errno())
    wc = post(req, e.IBV_WR_RDMA_READ, sg, rmr.rkey, rmr.buf)
    if wc.status != e.IBV_WC_REM_ACCESS_ERR:
        problem("READ of an unmapped range: status %d, want %d (remote access error)"
                % (wc.status, e.IBV_WC_REM_ACCESS_ERR))
    rearm(req, resp)
    rearm(resp, req)

    # Made first: a mapping made after the munmap may take its place.
    wmr = odp_mr(resp, 4)
    if libc.munmap(lmr.buf, total):
        raise Failed("munmap: errno %d" % ctypes.get_errno())
    wc = post(req, e.IBV_WR_RDMA_WRITE, sg, wmr.rkey, wmr.buf)
    if wc.status != e.IBV_WC_LOC_PROT_ERR:
        problem("WRITE from an unmapped range: status %d, want %d (local protection error)"
                % (wc.status, e.IBV_WC_LOC_PROT_ERR))
    for mr in (lmr, rmr, wmr):
        mr.close()


def race(a):
    """WRITE then READ back, a.rounds times, while another thread drops
    the responder's pages (MADV_DONTNEED) again and again: every
    operation completes, and each packet's worth (MTU 1024, page aligned)
    read back is the bytes written or the zeros of a page dropped since,
    never anything else."""
    req, resp = pair(a)
    pages = 16
    total = pages * PAGE
    lmr, rmr, dmr = odp_mr(req, pages), odp_mr(resp, pages), odp_mr(req, pages)
    stop = []
    drops = [0]

    def dropper():
        while not stop:
            libc.madvise(rmr.buf, total, MADV_DONTNEED)
            drops[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=dropper)
    t.start()
    mixed = 0
    try:
        for r in range(a.rounds):
            data = pattern(total, r)
            lmr.write(data, total, 0)
            ok(post(req, e.IBV_WR_RDMA_WRITE, [SGE(lmr.buf, total, lmr.lkey)],
                    rmr.rkey, rmr.buf), "round %d: WRITE" % r)
            ok(post(req, e.IBV_WR_RDMA_READ, [SGE(dmr.buf, total, dmr.lkey)],
                    rmr.rkey, rmr.buf), "round %d: READ" % r)
            got = dmr.read(total, 0)
            for off in range(0, total, 1024):
                chunk = got[off:off + 1024]
                if chunk == data[off:off + 1024]:
                    continue
                if chunk != bytes(1024):
                    raise Failed("round %d: bytes at %d neither written nor zero"
                                 % (r, off))
                mixed += 1
    finally:
        stop.append(1)
        t.join()
    print("%d rounds, %d drops, %d packets' worth read back as zeros"
          % (a.rounds, drops[0], mixed), flush=True)


def refused(a):
    req, _ = pair(a)
    try:
        MR(req.pd, PAGE, ODP, implicit=True)
        problem("the implicit ODP MR was registered")
    except PyverbsRDMAError as err:
        if err.error_code != errno.EOPNOTSUPP:
            problem("the implicit ODP MR: errno %d, want EOPNOTSUPP" % err.error_code)
        print("implicit ODP MR: %s" % errno.errorcode[err.error_code], flush=True)


def main():
    cases = {"traffic": traffic, "invalidate": invalidate,
             "unmapped": unmapped, "race": race, "refused": refused}
    return run_cases(cases, "rxe1", "rxe2", rounds=200)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""RC traffic between two rxe devices from one process (pyverbs), for the
data-path tests.

    rxe_traffic.py [--dev A --gid N --peer B --peer-gid M] CASE

A is the requester, B the responder (A and B may be the same device).
Cases:
    read-fresh   RDMA READ from read-only MRs over private anonymous
                 memory written after the registration (untouched before
                 it, and touched before it) returns the new bytes
    transfer     64 MiB (--mib) of RC SENDs of 64 KiB into consecutive
                 receive buffers, then as much in RDMA WRITEs: both arrive
                 complete, in order, with the sender's SHA-256
    retry        with every packet lost: the first WR completes with
                 IBV_WC_RETRY_EXC_ERR after the configured retries
                 (timeout 10, retry_cnt 2), the second is flushed
    retry-forever  with every packet lost and retry_cnt 7, nothing
                 completes for 3 s (many times what 7 retransmissions
                 at timeout 8 take), and once packets pass again the
                 SEND completes successfully.  The caller switches the
                 loss: the case creates GO.ready (QPs connected: stock
                 resolves the peer's MAC then) and waits for GO.lost,
                 then creates GO.lossy and waits for GO (--go)
    tail-loss    one RDMA WRITE of 16 KiB at path MTU 1024 and QP timeout
                 18 (1.07 s) whose last packet the caller drops (once):
                 it completes, and the responder's buffer holds the
                 requester's bytes; the caller judges the counters
    pipeline     three chains of 16 WRs, each posted with one call and
                 completed before the next: RDMA READs of 20 KiB (the
                 QP's max_rd_atomic is 4), SENDs of 4 KiB and RDMA
                 WRITEs of 64 KiB, at path MTU 1024, each checked byte
                 for byte; the caller judges from a capture how many
                 were in flight at once
    counters     a fixed sequence at path MTU 1024: SEND 4 KiB, WRITE
                 8 KiB, READ 8 KiB, FETCH_ADD, each completed before the
                 next
    layouts      SEND, WRITE and READ at path MTU 4096 (one device only:
                 it exceeds the veth's MTU) and 1024 with the
                 payload at page offsets 0, 1 and 4095 and in 16, 17,
                 32 and 20 (of 2 KiB) SGEs a page apart, and these and
                 the _WITH_IMM SEND and WRITE of 32 KiB, 32 KiB + 1 and
                 96 KiB + 5 at page offset 1, each checked byte for byte
                 (and its receive's length and immediate); then a
                 4 MiB WRITE whose source MR is deregistered and its
                 memory unmapped right after the post, which completes
                 (in error or not) without harm.  On one device a packet
                 carries its payload as references to the sender's pages
                 when it can (rxe.rst), and packets of one message go
                 in bursts of up to 32 KiB: these are their edges, and
                 the fallbacks to one packet and to a copy past 16 pages
    windows      type 2 memory windows bound by the responder over the
                 middle pages of an MR, one addressed as the MR is, one
                 zero based (addressed from 0): an RDMA WRITE and READ
                 through each land on and return the MR's bytes the
                 window maps
    window-bounds  the same windows: a READ that starts inside one and
                 ends past it, still inside the MR, fails with a remote
                 access error
    dereg-vs-bind  --rounds times: a type 2 window bound over a fresh MR
                 (post_send) while another thread deregisters the MR
                 (a raw DEREG_MR write, which releases the GIL: both are
                 in the kernel at once).  Every deregistration returns
                 within 20 s, 0 or EBUSY; after 0 the bind failed, after
                 EBUSY it succeeded and, the window deallocated, the MR
                 deregisters.  Exits with os._exit(): pyverbs must not
                 deregister the MRs again
Each case prints what went wrong, a line a problem, and exits 1 if
anything did; the elapsed time of the transfer and of the retry goes to
stdout as "# ..." notes.
"""
import argparse
import ctypes
import errno
import hashlib
import mmap
import os
import struct
import sys
import threading
import time

from pyverbs import enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBindInfo
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

PAGE = mmap.PAGESIZE
ACCESS_ALL = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
              e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
# A completion that does not come within this is a failure, not a hang.
POLL_LIMIT = 60

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]

problems = []


def problem(msg):
    problems.append(msg)
    print(msg, flush=True)


class Failed(Exception):
    pass


class Side:
    """A context, PD, CQ and RC QP on one device."""

    def __init__(self, dev, gid, depth, max_sge=1):
        self.ctx = Context(name=dev)
        self.gid_index = gid
        self.gid = self.ctx.query_gid(1, gid)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 2 * depth)
        cap = QPCap(max_send_wr=depth, max_recv_wr=depth,
                    max_send_sge=max_sge, max_recv_sge=max_sge)
        self.qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                         rcq=self.cq, cap=cap))

    def connect(self, peer, mtu, timeout, retry_cnt, access=ACCESS_ALL,
                dest_rd_atomic=4):
        self.connect_to(peer.qp.qp_num, peer.gid, mtu, timeout, retry_cnt,
                        access, dest_rd_atomic)

    def connect_to(self, qpn, gid, mtu, timeout, retry_cnt,
                   access=ACCESS_ALL, dest_rd_atomic=4):
        """The QP to RTS towards QP @qpn at GID @gid (another host's)."""
        attr = QPAttr(port_num=1)
        attr.qp_access_flags = access
        attr.path_mtu = mtu
        attr.dest_qp_num = qpn
        attr.rq_psn = 0
        attr.sq_psn = 0
        attr.max_dest_rd_atomic = dest_rd_atomic
        attr.max_rd_atomic = 4
        attr.min_rnr_timer = 12
        attr.timeout = timeout
        attr.retry_cnt = retry_cnt
        attr.rnr_retry = 7
        gr = GlobalRoute(dgid=gid, sgid_index=self.gid_index, hop_limit=64)
        attr.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
        self.qp.to_rts(attr)

    def close(self):
        for obj in ("qp", "cq", "pd", "ctx"):
            getattr(self, obj).close()


def pair(a, depth=16, mtu=e.IBV_MTU_1024, timeout=14, retry_cnt=7):
    req = Side(a.dev, a.gid, depth)
    resp = Side(a.peer, a.peer_gid, depth)
    req.connect(resp, mtu, timeout, retry_cnt)
    resp.connect(req, mtu, timeout, retry_cnt)
    return req, resp


def poll(cq, n=1):
    """n completions (fewer if one fails: the rest are flushed)."""
    wcs = []
    end = time.monotonic() + POLL_LIMIT
    while len(wcs) < n:
        got, batch = cq.poll(n - len(wcs))
        wcs += batch[:got]
        if got == 0 and time.monotonic() > end:
            raise Failed("%d of %d completions after %d s" %
                         (len(wcs), n, POLL_LIMIT))
    return wcs


def ok(wc, what):
    if wc.status != e.IBV_WC_SUCCESS:
        raise Failed("%s: completion status %d (wr_id %d)" % (what, wc.status, wc.wr_id))


def send_wr(wr_id, opcode, mr, offset, length, flags=e.IBV_SEND_SIGNALED):
    return SendWR(wr_id=wr_id, opcode=opcode, num_sge=1,
                  sg=[SGE(mr.buf + offset, length, mr.lkey)], send_flags=flags)


def recv_wr(wr_id, mr, offset, length):
    return RecvWR(wr_id=wr_id, num_sge=1, sg=[SGE(mr.buf + offset, length, mr.lkey)])


def anon(n):
    """n pages of private anonymous memory, untouched."""
    addr = libc.mmap(None, n * PAGE, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise Failed("mmap failed: errno %d" % ctypes.get_errno())
    return addr


def read_fresh(a):
    """The responder's memory is registered read-only (REMOTE_READ, no
    local write), then written: the requester's READ must see the
    writes, one distinct byte a page so a stale page shows."""
    n = 16
    req, resp = pair(a)
    dst = MR(req.pd, n * PAGE, e.IBV_ACCESS_LOCAL_WRITE)
    for touched in (False, True):
        what = "memory touched before registration" if touched else "untouched memory"
        addr = anon(n)
        if touched:
            ctypes.memset(addr, 0x5a, n * PAGE)
        src = MR(resp.pd, n * PAGE, e.IBV_ACCESS_REMOTE_READ, address=addr)
        want = b"".join(bytes([(i * 7 + 1) & 0xff]) * PAGE for i in range(n))
        ctypes.memmove(addr, want, n * PAGE)
        dst.write(b"\0" * (n * PAGE), n * PAGE)
        wr = send_wr(1, e.IBV_WR_RDMA_READ, dst, 0, n * PAGE)
        wr.set_wr_rdma(src.rkey, addr)
        req.qp.post_send(wr)
        ok(poll(req.cq)[0], "READ from " + what)
        got = dst.read(n * PAGE, 0)
        if got != want:
            bad = [i for i in range(n) if got[i * PAGE:(i + 1) * PAGE] != want[i * PAGE:(i + 1) * PAGE]]
            off = next(i for i in range(n * PAGE) if got[i] != want[i])
            problem("%s: READ returned wrong bytes in %d of %d pages (first: byte %#x reads %#x, wants %#x)" %
                    (what, len(bad), n, off, got[off], want[off]))
        src.close()
    dst.close()
    req.close()
    resp.close()


def pattern(n):
    """n bytes no two 64 KiB chunks of which are alike."""
    block = hashlib.sha256(b"rxe").digest() * (65536 // 32)
    return b"".join(i.to_bytes(4, "little") + block[4:] for i in range(n // 65536))


def transfer(a):
    # Receives are posted further ahead than sends so that no SEND meets
    # an empty receive queue (RNR NAKs would slow the run down).
    total, chunk, window, rwindow = a.mib << 20, 64 << 10, 16, 64
    nmsg = total // chunk
    req, resp = pair(a, depth=rwindow)
    data = pattern(total)
    src = MR(req.pd, total, e.IBV_ACCESS_LOCAL_WRITE)
    src.write(data, total)
    dst = MR(resp.pd, total, ACCESS_ALL)
    want = hashlib.sha256(data).hexdigest()
    t0 = time.monotonic()

    # SENDs: receive i lands at offset i * chunk, so a message out of
    # order or lost lands in the wrong place or never.
    posted = sent = recvd = 0
    for i in range(rwindow):
        resp.qp.post_recv(recv_wr(i, dst, i * chunk, chunk))
    rposted = rwindow
    while recvd < nmsg:
        while posted < nmsg and posted - sent < window:
            req.qp.post_send(send_wr(posted, e.IBV_WR_SEND, src, posted * chunk, chunk))
            posted += 1
        for wc in poll(req.cq) if sent < posted else []:
            ok(wc, "SEND")
            sent += 1
        got, wcs = resp.cq.poll(rwindow)
        for wc in wcs[:got]:
            ok(wc, "RECV")
            if wc.wr_id != recvd or wc.byte_len != chunk:
                raise Failed("receive %d completed as wr_id %d, %d bytes" %
                             (recvd, wc.wr_id, wc.byte_len))
            recvd += 1
            if recvd % 256 == 0:
                print("# SEND: %d MiB after %.1f s" % (recvd // 16, time.monotonic() - t0),
                      flush=True)
            if rposted < nmsg:
                resp.qp.post_recv(recv_wr(rposted, dst, rposted * chunk, chunk))
                rposted += 1
    while sent < nmsg:
        ok(poll(req.cq)[0], "SEND")
        sent += 1
    got = hashlib.sha256(dst.read(total, 0)).hexdigest()
    if got != want:
        problem("SEND: %d MiB arrived with SHA-256 %s, sent %s" % (a.mib, got, want))
    t1 = time.monotonic()

    # WRITEs over the same 64 MiB, after zeroing it.
    dst.write(b"\0" * total, total)
    posted = done = 0
    while done < nmsg:
        while posted < nmsg and posted - done < window:
            wr = send_wr(posted, e.IBV_WR_RDMA_WRITE, src, posted * chunk, chunk)
            wr.set_wr_rdma(dst.rkey, dst.buf + posted * chunk)
            req.qp.post_send(wr)
            posted += 1
        ok(poll(req.cq)[0], "WRITE")
        done += 1
        if done % 256 == 0:
            print("# WRITE: %d MiB after %.1f s" % (done // 16, time.monotonic() - t1),
                  flush=True)
    got = hashlib.sha256(dst.read(total, 0)).hexdigest()
    if got != want:
        problem("WRITE: %d MiB arrived with SHA-256 %s, sent %s" % (a.mib, got, want))
    t2 = time.monotonic()
    print("# %d MiB SEND %.1f s, %d MiB WRITE %.1f s" % (a.mib, t1 - t0, a.mib, t2 - t1))
    src.close()
    dst.close()
    req.close()
    resp.close()


def retry(a):
    """The caller drops every packet.  IBTA timeout 10 is 4.2 ms; stock
    retransmits retry_cnt times, then completes with RETRY_EXC_ERR."""
    req, resp = pair(a, timeout=10, retry_cnt=2)
    mr = MR(req.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    t0 = time.monotonic()
    req.qp.post_send(send_wr(1, e.IBV_WR_SEND, mr, 0, 4096))
    req.qp.post_send(send_wr(2, e.IBV_WR_SEND, mr, 0, 64))
    wcs = poll(req.cq, 2)
    print("# first completion after %.2f s" % (time.monotonic() - t0))
    got = [(wc.wr_id, wc.status) for wc in wcs]
    want = [(1, e.IBV_WC_RETRY_EXC_ERR), (2, e.IBV_WC_WR_FLUSH_ERR)]
    if got != want:
        problem("completions (wr_id, status): got %s, want %s" % (got, want))
    mr.close()
    req.close()
    resp.close()


def step(done, wait):
    """Tells the caller (creates @done), then waits for it (@wait)."""
    open(done, "w").close()
    end = time.monotonic() + POLL_LIMIT
    while not os.path.exists(wait):
        if time.monotonic() > end:
            raise Failed("%s never appeared" % wait)
        time.sleep(0.05)


def retry_forever(a):
    """IBTA gives retry_cnt 7 no special meaning; stock rxe retransmits
    for ever then (and the rdma-core tools ask for 7)."""
    req, resp = pair(a, timeout=8, retry_cnt=7)
    mr = MR(req.pd, 4096, ACCESS_ALL)
    rmr = MR(resp.pd, 4096, ACCESS_ALL)
    resp.qp.post_recv(recv_wr(1, rmr, 0, 4096))
    step(a.go + ".ready", a.go + ".lost")
    req.qp.post_send(send_wr(1, e.IBV_WR_SEND, mr, 0, 64))
    end = time.monotonic() + 3
    while time.monotonic() < end:
        got, batch = req.cq.poll(1)
        if got:
            problem("completion while every packet is lost: wr_id %d status %d" %
                    (batch[0].wr_id, batch[0].status))
            break
        time.sleep(0.05)
    step(a.go + ".lossy", a.go)
    ok(poll(req.cq)[0], "SEND once packets pass again")
    ok(poll(resp.cq)[0], "its receive")
    mr.close()
    rmr.close()
    req.close()
    resp.close()


def counters(a):
    # Exact counts: no retransmission on a slow guest (timeout 1.07 s).
    req, resp = pair(a, timeout=18)
    n = 8192
    lmr = MR(req.pd, n, ACCESS_ALL)
    rmr = MR(resp.pd, n, ACCESS_ALL)
    lmr.write(b"\x11" * n, n)

    resp.qp.post_recv(recv_wr(1, rmr, 0, 4096))
    req.qp.post_send(send_wr(1, e.IBV_WR_SEND, lmr, 0, 4096))
    ok(poll(req.cq)[0], "SEND")
    ok(poll(resp.cq)[0], "RECV")

    wr = send_wr(2, e.IBV_WR_RDMA_WRITE, lmr, 0, n)
    wr.set_wr_rdma(rmr.rkey, rmr.buf)
    req.qp.post_send(wr)
    ok(poll(req.cq)[0], "WRITE")

    wr = send_wr(3, e.IBV_WR_RDMA_READ, lmr, 0, n)
    wr.set_wr_rdma(rmr.rkey, rmr.buf)
    req.qp.post_send(wr)
    ok(poll(req.cq)[0], "READ")

    wr = send_wr(4, e.IBV_WR_ATOMIC_FETCH_AND_ADD, lmr, 0, 8)
    wr.set_wr_atomic(rmr.rkey, rmr.buf, 1, 0)
    req.qp.post_send(wr)
    ok(poll(req.cq)[0], "FETCH_ADD")
    if lmr.read(8, 0) != b"\x11" * 8:
        problem("FETCH_ADD returned %s" % lmr.read(8, 0).hex())
    lmr.close()
    rmr.close()
    req.close()
    resp.close()


def tail_loss(a):
    req, resp = pair(a, timeout=18)
    n = 16384
    lmr = MR(req.pd, n, ACCESS_ALL)
    rmr = MR(resp.pd, n, ACCESS_ALL)
    data = os.urandom(n)
    lmr.write(data, n)
    wr = send_wr(1, e.IBV_WR_RDMA_WRITE, lmr, 0, n)
    wr.set_wr_rdma(rmr.rkey, rmr.buf)
    t0 = time.monotonic()
    req.qp.post_send(wr)
    ok(poll(req.cq)[0], "WRITE")
    print("# completed after %.2f s" % (time.monotonic() - t0))
    if rmr.read(n, 0) != data:
        problem("the responder's buffer differs from the WRITE's source")
    lmr.close()
    rmr.close()
    req.close()
    resp.close()


def chain(wrs):
    for i in range(len(wrs) - 1):
        wrs[i].next_wr = wrs[i + 1]
    return wrs[0]


def pipeline(a):
    k, slot = 16, 64 << 10
    req, resp = pair(a, depth=2 * k)
    lmr = MR(req.pd, k * slot, ACCESS_ALL)
    rmr = MR(resp.pd, k * slot, ACCESS_ALL)
    for what, op, n in (("READ", e.IBV_WR_RDMA_READ, 20 << 10),
                        ("SEND", e.IBV_WR_SEND, 4 << 10),
                        ("WRITE", e.IBV_WR_RDMA_WRITE, slot)):
        # WR i moves the n bytes at slot i of the source to slot i of
        # the destination.
        src, dst = (rmr, lmr) if op == e.IBV_WR_RDMA_READ else (lmr, rmr)
        src.write(os.urandom(k * slot), k * slot)
        wrs = []
        for i in range(k):
            wrs.append(send_wr(i, op, lmr, i * slot, n))
            if op == e.IBV_WR_SEND:
                resp.qp.post_recv(recv_wr(i, rmr, i * slot, n))
            else:
                wrs[i].set_wr_rdma(rmr.rkey, rmr.buf + i * slot)
        req.qp.post_send(chain(wrs))
        for wc in poll(req.cq, k):
            ok(wc, what)
        if op == e.IBV_WR_SEND:
            for wc in poll(resp.cq, k):
                ok(wc, "RECV")
        for i in range(k):
            if dst.read(n, i * slot) != src.read(n, i * slot):
                problem("%s %d: the destination's bytes differ from the source's" % (what, i))
                break
    lmr.close()
    rmr.close()
    req.close()
    resp.close()


def fill(mr, off, n, seed):
    """n bytes at off of mr that differ from any other seed's."""
    data = hashlib.sha256(b"%d" % seed).digest() * (n // 32 + 1)
    data = bytes((b + i) & 0xff for i, b in enumerate(data[:n]))
    mr.write(data, n, off)
    return data


def sges(mr, count, each, start=0):
    """count SGEs of each bytes, one a page, from page start on."""
    return [SGE(mr.buf + (start + i) * PAGE + 3, each, mr.lkey) for i in range(count)]


def sge_bytes(mr, sg):
    return b"".join(mr.read(s.length, s.addr - mr.buf) for s in sg)


IMM_OPS = (e.IBV_WR_SEND_WITH_IMM, e.IBV_WR_RDMA_WRITE_WITH_IMM)
RECV_OPS = (e.IBV_WR_SEND,) + IMM_OPS


def layout_case(req, resp, lmr, rmr, op, sg, seed, what):
    """One op with the local scatter list sg: the bytes must arrive, and
    a receive it consumes completes with its length and immediate."""
    n = sum(s.length for s in sg)
    wr = SendWR(wr_id=seed, opcode=op, num_sge=len(sg), sg=sg,
                send_flags=e.IBV_SEND_SIGNALED)
    imm = 0x5eed0000 + seed
    if op in IMM_OPS:
        wr.imm_data = imm
    rmr.write(b"\0" * n, n, 0)
    if op == e.IBV_WR_RDMA_READ:
        want = fill(rmr, 0, n, seed)
        for s in sg:
            lmr.write(b"\0" * s.length, s.length, s.addr - lmr.buf)
    else:
        for i, s in enumerate(sg):
            fill(lmr, s.addr - lmr.buf, s.length, seed * 100 + i)
        want = sge_bytes(lmr, sg)
    if op in RECV_OPS:
        resp.qp.post_recv(recv_wr(seed, rmr, 0, n))
    if op not in (e.IBV_WR_SEND, e.IBV_WR_SEND_WITH_IMM):
        wr.set_wr_rdma(rmr.rkey, rmr.buf)
    req.qp.post_send(wr)
    ok(poll(req.cq)[0], what)
    if op in RECV_OPS:
        wc = poll(resp.cq)[0]
        ok(wc, what + " (receive)")
        if wc.byte_len != n:
            problem("%s: received %d bytes of %d" % (what, wc.byte_len, n))
        if op in IMM_OPS and (not wc.wc_flags & e.IBV_WC_WITH_IMM or
                              wc.imm_data != imm):
            problem("%s: receive without its immediate (flags 0x%x, 0x%x)" %
                    (what, wc.wc_flags, wc.imm_data))
    got = sge_bytes(lmr, sg) if op == e.IBV_WR_RDMA_READ else rmr.read(n, 0)
    if got != want:
        off = next(i for i in range(n) if got[i] != want[i])
        problem("%s: wrong bytes from byte %d of %d" % (what, off, n))


def layouts(a):
    ops = (("SEND", e.IBV_WR_SEND), ("WRITE", e.IBV_WR_RDMA_WRITE),
           ("READ", e.IBV_WR_RDMA_READ))
    imm_ops = (("SEND_WITH_IMM", e.IBV_WR_SEND_WITH_IMM),
               ("WRITE_WITH_IMM", e.IBV_WR_RDMA_WRITE_WITH_IMM))
    pages = 40
    seed = 1
    mtus = [(e.IBV_MTU_1024, "1024")]
    # Packets of 4 KiB do not fit a veth's 1500 bytes: one device only.
    if a.dev == a.peer:
        mtus.insert(0, (e.IBV_MTU_4096, "4096"))
    for mtu, mtu_name in mtus:
        req = Side(a.dev, a.gid, 8, max_sge=32)
        resp = Side(a.peer, a.peer_gid, 8, max_sge=32)
        req.connect(resp, mtu, 14, 7)
        resp.connect(req, mtu, 14, 7)
        lmr = MR(req.pd, pages * PAGE, ACCESS_ALL)
        rmr = MR(resp.pd, pages * PAGE, ACCESS_ALL)
        for name, op in ops:
            for off in (0, 1, PAGE - 1):
                sg = [SGE(lmr.buf + off, 16 * PAGE, lmr.lkey)]
                layout_case(req, resp, lmr, rmr, op, sg, seed,
                            "%s 64 KiB at page offset %d, MTU %s" % (name, off, mtu_name))
                seed += 1
            for count, each in ((16, 256), (17, 240), (32, 128), (20, 2048)):
                layout_case(req, resp, lmr, rmr, op, sges(lmr, count, each), seed,
                            "%s of %d SGEs a page apart, MTU %s" % (name, count, mtu_name))
                seed += 1
        # Cut where a burst of ours ends (32 KiB, rxe.rst), at page
        # offset 1: a message of bursts and the packets after them.
        for name, op in ops + imm_ops:
            for n in (32 << 10, (32 << 10) + 1, (96 << 10) + 5):
                sg = [SGE(lmr.buf + 1, n, lmr.lkey)]
                layout_case(req, resp, lmr, rmr, op, sg, seed,
                            "%s of %d bytes, MTU %s" % (name, n, mtu_name))
                seed += 1
        lmr.close()
        rmr.close()
        req.close()
        resp.close()

    # The source goes while its packets may still be queued.
    req, resp = pair(a)
    n = 4 << 20
    addr = anon(n // PAGE)
    ctypes.memset(addr, 0x3c, n)
    src = MR(req.pd, n, e.IBV_ACCESS_LOCAL_WRITE, address=addr)
    dst = MR(resp.pd, n, ACCESS_ALL)
    wr = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(addr, n, src.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(dst.rkey, dst.buf)
    req.qp.post_send(wr)
    src.close()
    libc.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(n))
    wc = poll(req.cq)[0]
    print("# WRITE with its source deregistered: status %d" % wc.status)
    dst.close()
    req.close()
    resp.close()


def window_case(a, zero_based, past_end):
    what = "zero-based window" if zero_based else "window"
    n, off, length = 4 * PAGE, PAGE, 2 * PAGE
    req, resp = pair(a)
    lmr = MR(req.pd, n, ACCESS_ALL)
    rmr = MR(resp.pd, n, ACCESS_ALL | e.IBV_ACCESS_MW_BIND)
    mw = MW(resp.pd, e.IBV_MW_TYPE_2)
    flags = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    if zero_based:
        flags |= e.IBV_ACCESS_ZERO_BASED
    bind = SendWR(wr_id=9, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
    bind.set_bind_wr(mw, MWBindInfo(rmr, rmr.buf + off, length, flags))
    resp.qp.post_send(bind)
    ok(poll(resp.cq)[0], "bind of a " + what)
    # A type 2 bind gives the window the rkey in the WR, which pyverbs
    # takes as ibv_inc_rkey() of the window's (the provider leaves
    # mw.rkey as it was): the next value of the key's low byte.
    rkey = (mw.rkey & ~0xff) | ((mw.rkey + 1) & 0xff)
    # Where the window's byte 0 is, in the requester's addressing.
    base = 0 if zero_based else rmr.buf + off

    if past_end:
        wr = send_wr(3, e.IBV_WR_RDMA_READ, lmr, 0, 512)
        wr.set_wr_rdma(rkey, base + length - 256)
        req.qp.post_send(wr)
        wc = poll(req.cq)[0]
        if wc.status != e.IBV_WC_REM_ACCESS_ERR:
            problem("%s: a READ past its end completed with status %d, want %d" %
                    (what, wc.status, e.IBV_WC_REM_ACCESS_ERR))
    else:
        window_io(req, lmr, rmr, rkey, base, (n, off, length), what)
    mw.close()
    lmr.close()
    rmr.close()
    req.close()
    resp.close()


def window_io(req, lmr, rmr, rkey, base, sizes, what):
    """WRITE and READ through the window at rkey: sizes is the MR's size,
    the window's offset in it and its length."""
    n, off, length = sizes
    want = bytes((i * 13 + 7) & 0xff for i in range(1000))
    rmr.write(b"\0" * n, n)
    lmr.write(want, len(want))
    wr = send_wr(1, e.IBV_WR_RDMA_WRITE, lmr, 0, len(want))
    wr.set_wr_rdma(rkey, base + 100)
    req.qp.post_send(wr)
    ok(poll(req.cq)[0], "WRITE through a " + what)
    if rmr.read(len(want), off + 100) != want:
        problem("%s: the WRITE to window byte 100 did not land on MR byte %d" %
                (what, off + 100))

    fill(rmr, 0, n, 5)
    wr = send_wr(2, e.IBV_WR_RDMA_READ, lmr, PAGE, 512)
    wr.set_wr_rdma(rkey, base + length - 512)
    req.qp.post_send(wr)
    ok(poll(req.cq)[0], "READ through a " + what)
    if lmr.read(512, PAGE) != rmr.read(512, off + length - 512):
        problem("%s: the READ of the window's last 512 bytes returned other bytes" % what)


def windows(a):
    for zero_based in (False, True):
        window_case(a, zero_based, False)


def window_bounds(a):
    for zero_based in (False, True):
        window_case(a, zero_based, True)


# ib_uverbs write() command DEREG_MR (include/uapi/rdma/ib_user_verbs.h):
# the header (command, in_words, out_words), then the MR's handle.
UVERBS_DEREG_MR = 13
# A deregistration that takes longer is stuck (stock: 50 s, then a WARN).
DEREG_LIMIT = 20


def raw_dereg(fd, handle):
    """0 or the errno of DEREG_MR of handle on the context's fd."""
    try:
        os.write(fd, struct.pack("<IHHI", UVERBS_DEREG_MR, 3, 0, handle))
    except OSError as err:
        return err.errno
    return 0


def task_state(tid):
    try:
        with open("/proc/self/task/%d/stat" % tid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"


def rearm(side, peer):
    """Back to RTS after a failed bind took the QP to the error state."""
    side.qp.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
    side.connect(peer, e.IBV_MTU_1024, 14, 7)


def dereg_round(req, resp, i, seen):
    """One race; False when a deregistration is stuck."""
    mr = MR(resp.pd, PAGE, ACCESS_ALL | e.IBV_ACCESS_MW_BIND)
    mw = MW(resp.pd, e.IBV_MW_TYPE_2)
    bind = SendWR(wr_id=i, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
    bind.set_bind_wr(mw, MWBindInfo(mr, mr.buf, PAGE, e.IBV_ACCESS_REMOTE_READ))
    fd = resp.ctx.cmd_fd
    got = {}
    go = threading.Barrier(2)

    def dereg():
        got["tid"] = threading.get_native_id()
        go.wait()
        got["rc"] = raw_dereg(fd, mr.handle)

    t = threading.Thread(target=dereg, daemon=True)
    t.start()
    go.wait()
    # Staggered starts (0 to 350 us), so that the bind meets the
    # deregistration at different points of it, before and after.
    time.sleep((i % 8) * 0.00005)
    resp.qp.post_send(bind)
    t.join(DEREG_LIMIT)
    if t.is_alive():
        problem("round %d: DEREG_MR racing BIND_MW has not returned after %d s "
                "(thread state %s)" % (i, DEREG_LIMIT, task_state(got["tid"])))
        return False
    wc = poll(resp.cq)[0]
    rc = got["rc"]
    if rc == 0:
        seen["dereg first"] += 1
        if wc.status == e.IBV_WC_SUCCESS:
            problem("round %d: a window was bound to an MR deregistered meanwhile" % i)
        else:
            rearm(resp, req)
        mw.close()
    elif rc == errno.EBUSY:
        seen["bind first"] += 1
        if wc.status != e.IBV_WC_SUCCESS:
            problem("round %d: EBUSY, but the bind failed (status %d)" % (i, wc.status))
        mw.close()
        rc = raw_dereg(fd, mr.handle)
        if rc:
            problem("round %d: the MR does not deregister once its window is gone: "
                    "errno %d" % (i, rc))
    else:
        problem("round %d: DEREG_MR racing BIND_MW: errno %d, want 0 or EBUSY" % (i, rc))
    # Deregistered behind pyverbs' back: never closed (os._exit() at the end).
    seen["mrs"].append(mr)
    return True


def dereg_vs_bind(a):
    req, resp = pair(a)
    seen = {"dereg first": 0, "bind first": 0, "mrs": []}
    for i in range(a.rounds):
        if not dereg_round(req, resp, i, seen):
            break
    print("# %d rounds: deregistration first %d, bind first %d" %
          (a.rounds, seen["dereg first"], seen["bind first"]), flush=True)
    sys.stdout.flush()
    os._exit(1 if problems else 0)


def pair_parser(dev, peer):
    """The options of a requester and a responder (rxe_topo.sh's
    rxe_pair_py passes them): device and GID index of each."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", default=dev)
    ap.add_argument("--gid", type=int, default=1)
    ap.add_argument("--peer", default=peer)
    ap.add_argument("--peer-gid", type=int, default=1)
    return ap


class Absent(Exception):
    """The feature a case needs is not there (stock's rxe): its message
    is what run_cases() prints, exiting 4."""


def run_cases(cases, dev="rxe1", peer="rxe2", rounds=None):
    """The main() of a pair script: CASE of @cases (name: function of the
    parsed options), with rxe_topo.sh's options (pair_parser()) and, if
    @rounds, --rounds (that default) for the cases that loop.  Exit
    status: 4 on Absent, 1 when a problem was reported, else 0."""
    ap = pair_parser(dev, peer)
    if rounds:
        ap.add_argument("--rounds", type=int, default=rounds,
                        help="rounds of the cases that loop")
    ap.add_argument("case", choices=sorted(cases))
    a = ap.parse_args()
    try:
        cases[a.case](a)
    except Absent as err:
        print(str(err), flush=True)
        return 4
    except Failed as err:
        problem(str(err))
    return 1 if problems else 0


def main():
    cases = {"read-fresh": read_fresh, "transfer": transfer, "retry": retry,
             "retry-forever": retry_forever, "counters": counters,
             "tail-loss": tail_loss, "pipeline": pipeline,
             "layouts": layouts, "windows": windows,
             "window-bounds": window_bounds, "dereg-vs-bind": dereg_vs_bind}
    ap = pair_parser("rxe1", "rxe2")
    ap.add_argument("--mib", type=int, default=64, help="transfer: MiB each way")
    ap.add_argument("--go", help="retry-forever: the file that lets it go on")
    ap.add_argument("--rounds", type=int, default=200, help="dereg-vs-bind: races")
    ap.add_argument("case", choices=sorted(cases))
    a = ap.parse_args()
    try:
        cases[a.case](a)
    except Failed as err:
        problem(str(err))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

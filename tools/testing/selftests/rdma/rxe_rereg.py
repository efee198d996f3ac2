#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""REREG_MR on rxe with traffic (pyverbs for the objects and the traffic,
REREG_MR raw on the context's command fd: rdma-core 44's librxe has no
rereg_mr, so ibv_rereg_mr() answers EOPNOTSUPP without asking the kernel).

    rxe_rereg.py [--dev A --gid N --peer B --peer-gid M] [--rounds R] CASE

A is the requester, B the responder, whose MR is reregistered.  Cases:
    in-place     a new PD, then new access, in place: the keys stay, but
                 for the rkey that remote access grants or takes away;
                 a WRITE or READ the MR no longer allows is a remote
                 access error, and allowed again it lands
    translation  new pages: new keys, a WRITE through the new rkey lands
                 in the new pages, the old rkey is a remote access error
                 and the old pages keep their bytes; with a new PD at
                 once; and write access for an MR pinned read-only
                 (other pinned pages: new keys, the bytes reach the
                 process's memory)
    windows      a type 2 window bound to the MR: every REREG_MR is
                 EBUSY until the window is invalidated
    race         R rounds: a READ of 256 KiB from the MR posted while
                 another thread reregisters the MR to the other of two
                 buffers (both in the kernel at once); the READ
                 completes with all of the old buffer's bytes or with a
                 remote access error, never anything else
A REREG_MR answered EOPNOTSUPP (the stock stack: in-tree rxe has no
rereg_user_mr) prints "EOPNOTSUPP" and exits 4.
"""
import ctypes
import errno
import os
import struct
import sys
import threading
import time

from pyverbs import enums as e
from pyverbs.mr import MR, MW, MWBindInfo
from pyverbs.pd import PD
from pyverbs.wr import SendWR

from rxe_traffic import ACCESS_ALL, Absent, Failed, PAGE, anon, fill, ok, \
    pair, poll, problem, rearm, run_cases, send_wr

# include/uapi/rdma/ib_user_verbs.h: IB_USER_VERBS_CMD_REREG_MR and the
# flags of struct ib_uverbs_rereg_mr (enum ib_mr_rereg_flags).
REREG_MR = 11
TRANS, PD_FLAG, ACCESS = 1, 2, 4



# The command fd of each responder MR's context, by the MR's id():
# pyverbs' MR takes no attributes of ours.
FDS = {}


def rereg(mr, flags, start=0, length=0, pd=None, access=0):
    """(errno, lkey, rkey) of REREG_MR of mr; hca_va is start."""
    resp = ctypes.create_string_buffer(8)
    body = struct.pack("<QIIQQQII", ctypes.addressof(resp), mr.handle,
                       flags, start, length, start,
                       pd.handle if pd else 0, access)
    hdr = struct.pack("<IHH", REREG_MR, (8 + len(body)) // 4, 2)
    try:
        os.write(FDS[id(mr)], hdr + body)
    except OSError as err:
        if err.errno == errno.EOPNOTSUPP:
            raise Absent("EOPNOTSUPP")
        return err.errno, 0, 0
    lkey, rkey = struct.unpack("<II", resp.raw)
    return 0, lkey, rkey


def must_rereg(mr, what, *args, **kw):
    rc, lkey, rkey = rereg(mr, *args, **kw)
    if rc:
        raise Failed("%s: REREG_MR: errno %d" % (what, rc))
    return lkey, rkey


def remote(req, lmr, opcode, rkey, addr, length=256):
    """Status of one WRITE or READ of length bytes at addr."""
    wr = send_wr(1, opcode, lmr, 0, length)
    wr.set_wr_rdma(rkey, addr)
    req.qp.post_send(wr)
    return poll(req.cq)[0].status


def expect(req, resp, status, want, what):
    """status is want; after an error both QPs are back in RTS."""
    if status != want:
        problem("%s: completion status %d, want %d" % (what, status, want))
    if status != e.IBV_WC_SUCCESS:
        rearm(req, resp)
        rearm(resp, req)


def responder_mr(resp, n, access):
    mr = MR(resp.pd, n, access)
    FDS[id(mr)] = resp.ctx.cmd_fd
    return mr


def in_place(a):
    req, resp = pair(a)
    lmr = MR(req.pd, PAGE, ACCESS_ALL)
    rmr = responder_mr(resp, PAGE, ACCESS_ALL)
    pd2 = PD(resp.ctx)
    wr_, rd_ = e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ
    good, bad = e.IBV_WC_SUCCESS, e.IBV_WC_REM_ACCESS_ERR

    data = fill(lmr, 0, 256, 1)
    expect(req, resp, remote(req, lmr, wr_, rmr.rkey, rmr.buf), good, "WRITE before")
    keys = must_rereg(rmr, "to a new PD", PD_FLAG, pd=pd2)
    if keys != (rmr.lkey, rmr.rkey):
        problem("a new PD changed the keys: %s, were %s" % (keys, (rmr.lkey, rmr.rkey)))
    expect(req, resp, remote(req, lmr, wr_, rmr.rkey, rmr.buf), bad,
           "WRITE to an MR moved to another PD than the QP's")
    must_rereg(rmr, "back to the QP's PD", PD_FLAG, pd=resp.pd)
    fill(lmr, 0, 256, 2)
    expect(req, resp, remote(req, lmr, wr_, rmr.rkey, rmr.buf), good,
           "WRITE once back on the QP's PD")
    if rmr.read(256, 0) == data:
        problem("the WRITE back on the QP's PD did not land")

    ro = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ
    keys = must_rereg(rmr, "to remote read only", ACCESS, access=ro)
    if keys != (rmr.lkey, rmr.rkey):
        problem("remote read only changed the keys: %s" % (keys,))
    expect(req, resp, remote(req, lmr, wr_, rmr.rkey, rmr.buf), bad,
           "WRITE to an MR without remote write")
    expect(req, resp, remote(req, lmr, rd_, rmr.rkey, rmr.buf), good,
           "READ from an MR with remote read")
    lkey, rkey = must_rereg(rmr, "to local only", ACCESS,
                            access=e.IBV_ACCESS_LOCAL_WRITE)
    if rkey != 0 or lkey != rmr.lkey:
        problem("local access only: keys %#x %#x, want %#x 0" % (lkey, rkey, rmr.lkey))
    expect(req, resp, remote(req, lmr, rd_, rmr.rkey, rmr.buf), bad,
           "READ with the rkey that local-only access took away")
    lkey, rkey = must_rereg(rmr, "to all access", ACCESS, access=ACCESS_ALL)
    if rkey != rmr.rkey or lkey != rmr.lkey:
        problem("all access again: keys %#x %#x, want %#x %#x" %
                (lkey, rkey, rmr.lkey, rmr.rkey))
    data = fill(lmr, 0, 256, 3)
    expect(req, resp, remote(req, lmr, wr_, rmr.rkey, rmr.buf), good,
           "WRITE once remote write is granted again")
    if rmr.read(256, 0) != data:
        problem("the WRITE after access was granted again did not land")
    # On another PD as it goes: its deregistration releases that PD.
    must_rereg(rmr, "to the other PD again", PD_FLAG, pd=pd2)
    rmr.close()
    pd2.close()
    lmr.close()
    req.close()
    resp.close()


def translation(a):
    req, resp = pair(a)
    lmr = MR(req.pd, PAGE, ACCESS_ALL)
    rmr = responder_mr(resp, PAGE, ACCESS_ALL)
    old = fill(rmr, 0, 256, 4)
    new = anon(2)
    ctypes.memset(new, 0, 2 * PAGE)
    lkey, rkey = must_rereg(rmr, "to new pages", TRANS, start=new,
                            length=2 * PAGE)
    if lkey == rmr.lkey or rkey == rmr.rkey or not rkey:
        problem("new pages, same keys: %#x %#x" % (lkey, rkey))
    data = fill(lmr, 0, 256, 5)
    expect(req, resp, remote(req, lmr, e.IBV_WR_RDMA_WRITE, rkey, new + PAGE),
           e.IBV_WC_SUCCESS, "WRITE through the new rkey")
    if ctypes.string_at(new + PAGE, 256) != data:
        problem("the WRITE through the new rkey did not land in the new pages")
    expect(req, resp, remote(req, lmr, e.IBV_WR_RDMA_WRITE, rmr.rkey, rmr.buf),
           e.IBV_WC_REM_ACCESS_ERR, "WRITE through the old rkey")
    if rmr.read(256, 0) != old:
        problem("the old pages changed after the MR left them")

    # New pages and a new PD at once.
    pd2 = PD(resp.ctx)
    _, rkey2 = must_rereg(rmr, "to new pages on a new PD", TRANS | PD_FLAG,
                          start=new, length=PAGE, pd=pd2)
    expect(req, resp, remote(req, lmr, e.IBV_WR_RDMA_WRITE, rkey2, new),
           e.IBV_WC_REM_ACCESS_ERR, "WRITE to new pages on another PD than the QP's")
    must_rereg(rmr, "back to the QP's PD", PD_FLAG, pd=resp.pd)
    expect(req, resp, remote(req, lmr, e.IBV_WR_RDMA_WRITE, rkey2, new),
           e.IBV_WC_SUCCESS, "WRITE once back on the QP's PD")
    pd2.close()

    # Pinned read-only (no local write), then writable: other pins.
    ro = responder_mr(resp, PAGE, e.IBV_ACCESS_REMOTE_READ)
    lkey, rkey = must_rereg(ro, "read-only to writable", ACCESS,
                            access=ACCESS_ALL)
    if lkey == ro.lkey:
        problem("write access for read-only pins kept the keys")
    data = fill(lmr, 0, 256, 6)
    expect(req, resp, remote(req, lmr, e.IBV_WR_RDMA_WRITE, rkey, ro.buf),
           e.IBV_WC_SUCCESS, "WRITE once the read-only MR is writable")
    if ro.read(256, 0) != data:
        problem("the WRITE to the once read-only MR is not in the process's memory")
    ro.close()
    rmr.close()
    lmr.close()
    req.close()
    resp.close()


def windows(a):
    req, resp = pair(a)
    rmr = responder_mr(resp, PAGE, ACCESS_ALL | e.IBV_ACCESS_MW_BIND)
    mw = MW(resp.pd, e.IBV_MW_TYPE_2)
    bind = SendWR(wr_id=9, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
    bind.set_bind_wr(mw, MWBindInfo(rmr, rmr.buf, PAGE, e.IBV_ACCESS_REMOTE_READ))
    resp.qp.post_send(bind)
    ok(poll(resp.cq)[0], "bind")
    pd2 = PD(resp.ctx)
    new = anon(1)
    for what, args in (("new PD", (PD_FLAG,)), ("new access", (ACCESS,)),
                       ("new pages", (TRANS,))):
        rc, _, _ = rereg(rmr, *args, start=new, length=PAGE, pd=pd2,
                         access=ACCESS_ALL)
        if rc != errno.EBUSY:
            problem("%s with a window bound: errno %d, want EBUSY" % (what, rc))
    # The window's rkey as the bind left it (pyverbs: ibv_inc_rkey()).
    rkey = (mw.rkey & ~0xff) | ((mw.rkey + 1) & 0xff)
    inv = SendWR(wr_id=10, opcode=e.IBV_WR_LOCAL_INV, send_flags=e.IBV_SEND_SIGNALED)
    inv.imm_data = rkey
    resp.qp.post_send(inv)
    ok(poll(resp.cq)[0], "local invalidate of the window")
    must_rereg(rmr, "once the window is invalidated", PD_FLAG, pd=pd2)
    must_rereg(rmr, "back", PD_FLAG, pd=resp.pd)
    mw.close()
    pd2.close()
    rmr.close()
    req.close()
    resp.close()


def race(a):
    # 256 packets at path MTU 1024: still streaming, as a rule, when the
    # REREG_MR unpublishes the old MR.
    pages = 64
    n = pages * PAGE
    req, resp = pair(a)
    lmr = MR(req.pd, n, ACCESS_ALL)
    rmr = responder_mr(resp, n, ACCESS_ALL)
    bufs = [anon(pages), anon(pages)]
    want = []
    for i, buf in enumerate(bufs):
        data = bytes((j * 7 + i * 101) & 0xff for j in range(256)) * (n // 256)
        ctypes.memmove(buf, data, n)
        want.append(data)
    cur = 0
    _, rkey = must_rereg(rmr, "to the first buffer", TRANS, start=bufs[0], length=n)
    seen = {"old bytes": 0, "access error": 0}
    for i in range(a.rounds):
        lmr.write(b"\0" * n, n)
        wr = send_wr(i, e.IBV_WR_RDMA_READ, lmr, 0, n)
        wr.set_wr_rdma(rkey, bufs[cur])
        nxt = 1 - cur
        got = {}
        go = threading.Barrier(2)

        def move():
            go.wait()
            # Staggered (0 to 700 us), to meet the READ before it starts,
            # as it streams and after.
            time.sleep((i % 8) * 0.0001)
            got["r"] = rereg(rmr, TRANS, start=bufs[nxt], length=n)

        t = threading.Thread(target=move, daemon=True)
        t.start()
        go.wait()
        req.qp.post_send(wr)
        t.join()
        rc, _, new_rkey = got["r"]
        if rc:
            problem("round %d: REREG_MR: errno %d" % (i, rc))
            break
        wc = poll(req.cq)[0]
        if wc.status == e.IBV_WC_SUCCESS:
            seen["old bytes"] += 1
            if lmr.read(n, 0) != want[cur]:
                problem("round %d: the READ returned bytes that are not the old "
                        "buffer's" % i)
        elif wc.status == e.IBV_WC_REM_ACCESS_ERR:
            seen["access error"] += 1
            rearm(req, resp)
            rearm(resp, req)
        else:
            problem("round %d: READ racing REREG_MR: status %d" % (i, wc.status))
            rearm(req, resp)
            rearm(resp, req)
        cur, rkey = nxt, new_rkey
    print("# %d rounds: %d READs returned the old buffer, %d found the rkey gone" %
          (a.rounds, seen["old bytes"], seen["access error"]), flush=True)
    rmr.close()
    lmr.close()
    req.close()
    resp.close()


def main():
    cases = {"in-place": in_place, "translation": translation,
             "windows": windows, "race": race}
    return run_cases(cases, "rxe0", "rxe0", rounds=100)


if __name__ == "__main__":
    sys.exit(main())

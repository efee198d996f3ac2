#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""An RC QP's path changed under its traffic (pyverbs), on rxe0.

    rxe_path_race.py flip GID4 GID6 SECONDS
    rxe_path_race.py cur-state GID6

flip: QP A reads 1 MiB at a time from QP B, both on rxe0, over the IPv6
address of GID index GID6 to itself.  B, which answers the READs, is put
in SQD and its path modified (SQD -> SQD with IB_QP_AV) for SECONDS,
round the IPv4 address of GID index GID4 to itself, the IPv6 one to
itself and 2001:db8::2, on the wire.  A takes only the
answers by the IPv6 path (its peer's address); the others are lost and
A's READs are retried until they come.  Every READ must complete with
B's bytes.  Each packet must be built for one path: one sized for an
IPv4 header and sent with an IPv6 one overruns its head room, one built
for this host (its payload as references to B's pages) and sent to the
wire has its ICRC written past its data.  The kernel's complaint is the
verdict there.

cur-state: a caller's cur_qp_state that is not the QP's state must not
pass: in RTS, RTR -> RTS claiming RTR (with the attributes it requires),
which starts the requester over under WQEs in flight, fails EINVAL.
(ib_modify_qp_is_ok() itself keeps IB_QP_CUR_STATE out of SQD -> SQD,
the path's change.)

Prints "ok ..." or what failed, a line a problem; exit 1 on a failure.
"""
import errno
import sys
import time

from pyverbs import enums as e
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

SIZE = 1 << 20
DEPTH = 4
# Not on this host (the caller gives it a static neighbour): B's answers
# by this path go to the wire.
WIRE_GID = "2001:0db8:0000:0000:0000:0000:0000:0002"


class Failed(Exception):
    pass


def route(ctx, sgid_index, dgid=None):
    """An AV from GID index sgid_index to dgid (its own GID if None)."""
    if dgid is None:
        dgid = ctx.query_gid(1, sgid_index)
    gr = GlobalRoute(dgid=dgid, sgid_index=sgid_index, hop_limit=64)
    return AHAttr(port_num=1, is_global=1, gr=gr)


def rc_qp(pd, cq):
    cap = QPCap(max_send_wr=DEPTH, max_recv_wr=1, max_send_sge=1,
                max_recv_sge=1)
    return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))


def connect(qp, peer_qpn, ah_attr):
    attr = QPAttr(port_num=1)
    attr.qp_access_flags = (e.IBV_ACCESS_LOCAL_WRITE |
                            e.IBV_ACCESS_REMOTE_READ)
    attr.path_mtu = e.IBV_MTU_4096
    attr.dest_qp_num = peer_qpn
    attr.max_dest_rd_atomic = DEPTH
    attr.max_rd_atomic = DEPTH
    attr.min_rnr_timer = 12
    # 4 ms, retried for ever: answers lost to a wrong path come again.
    attr.timeout = 10
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.ah_attr = ah_attr
    qp.to_rts(attr)


def set_state(qp, state, mask=0, attr=None):
    attr = attr or QPAttr()
    attr.qp_state = state
    qp.modify(attr, e.IBV_QP_STATE | mask)


def read_wr(wr_id, dst, src):
    wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                sg=[SGE(dst.buf, SIZE, dst.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(src.rkey, src.buf)
    return wr


def poll_one(cq, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        got, wcs = cq.poll(1)
        if got:
            if wcs[0].status != e.IBV_WC_SUCCESS:
                raise Failed("READ %d: completion status %d" %
                             (wcs[0].wr_id, wcs[0].status))
            return wcs[0]
    raise Failed("no READ completion in %d s" % limit)


def flip(gid4, gid6, seconds):
    ctx = Context(name="rxe0")
    pd = PD(ctx)
    cq = CQ(ctx, 2 * DEPTH)
    a, b = rc_qp(pd, cq), rc_qp(pd, cq)
    home = route(ctx, gid6)
    paths = [route(ctx, gid4), home,
             route(ctx, gid6, GID(WIRE_GID)), home]
    connect(a, b.qp_num, home)
    connect(b, a.qp_num, home)
    src = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)
    want = bytes(range(256)) * (SIZE // 256)
    src.write(want, SIZE)
    dst = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE)
    set_state(b, e.IBV_QPS_SQD)

    # B's answers to A's READs go by whichever path it has at the time.
    posted = done = flips = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        while posted - done < DEPTH:
            a.post_send(read_wr(posted, dst, src))
            posted += 1
        attr = QPAttr()
        attr.ah_attr = paths[flips % len(paths)]
        try:
            set_state(b, e.IBV_QPS_SQD, e.IBV_QP_AV, attr)
        except PyverbsRDMAError as err:
            raise Failed("path %d: %s" % (flips % len(paths), err))
        flips += 1
        got, _ = cq.poll(DEPTH)
        done += got

    # Back home for good: what is left completes.
    attr = QPAttr()
    attr.ah_attr = home
    set_state(b, e.IBV_QPS_SQD, e.IBV_QP_AV, attr)
    while done < posted:
        poll_one(cq, 60)
        done += 1
    if dst.read(SIZE, 0) != want:
        raise Failed("the READs brought other bytes than B's")
    for obj in (a, b, src, dst, cq, pd, ctx):
        obj.close()
    return "ok %d READs, %d path changes" % (done, flips)


def expect_einval(what, fn):
    try:
        fn()
    except PyverbsRDMAError as err:
        if err.error_code == errno.EINVAL:
            return None
        return "%s: errno %d, not EINVAL" % (what, err.error_code)
    return "%s: succeeded" % what


def cur_state(gid6):
    ctx = Context(name="rxe0")
    pd = PD(ctx)
    cq = CQ(ctx, 2 * DEPTH)
    qp = rc_qp(pd, cq)
    connect(qp, qp.qp_num, route(ctx, gid6))

    def rts_claiming_rtr():
        attr = QPAttr()
        attr.cur_qp_state = e.IBV_QPS_RTR
        attr.timeout = 10
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.sq_psn = 0
        attr.max_rd_atomic = DEPTH
        set_state(qp, e.IBV_QPS_RTS, e.IBV_QP_CUR_STATE | e.IBV_QP_TIMEOUT |
                  e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN |
                  e.IBV_QP_MAX_QP_RD_ATOMIC, attr)

    problems = [p for p in (
        expect_einval("in RTS, RTR -> RTS", rts_claiming_rtr),) if p]
    if qp.query(e.IBV_QP_STATE)[0].qp_state != e.IBV_QPS_RTS:
        problems.append("the QP left RTS")
    for obj in (qp, cq, pd, ctx):
        obj.close()
    if problems:
        raise Failed("\n".join(problems))
    return "ok"


def main():
    try:
        if sys.argv[1] == "flip":
            print(flip(int(sys.argv[2]), int(sys.argv[3]),
                       float(sys.argv[4])))
        else:
            print(cur_state(int(sys.argv[2])))
    except (Failed, PyverbsRDMAError) as err:
        print(err)
        return 1
    return 0


sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Completion and SRQ events of the responder's receive path, on rxe0.

    rxe_cq_srq_events.py CASE

A UD QP sends to itself (GID 0) through the loopback, so that every
receive completion is posted by the responder.  Each case prints one
line per observation, for the shell test to compare:

    notify     an armed CQ raises one completion event; a CQ armed for
               solicited completions only ignores an unsolicited one and
               raises one for a solicited one
    overflow   a receive CQ of one entry gets a second completion:
               the async event it raises, and what the CQ then holds
    srqlimit   an SRQ armed with a limit raises SRQ_LIMIT_REACHED once,
               when a receive leaves fewer WQEs than the limit, and is
               disarmed afterwards
"""
import signal
import sys

from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context
from pyverbs.enums import (IBV_ACCESS_LOCAL_WRITE, IBV_EVENT_CQ_ERR, IBV_EVENT_SRQ_LIMIT_REACHED,
                           IBV_QPT_UD, IBV_SEND_SIGNALED, IBV_SEND_SOLICITED,
                           IBV_SRQ_LIMIT, IBV_WC_RECV, IBV_WC_SUCCESS,
                           IBV_WR_SEND)
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

QKEY = 0x11111111
GRH = 40
MSG = 64
SLOT = GRH + MSG


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def wait(fn, secs=5):
    """fn() if it returns within secs, else None (the read is interrupted)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(secs)
    try:
        return fn()
    except Timeout:
        return None
    except PyverbsError as e:
        print("error:", e)
        return None
    finally:
        signal.alarm(0)


class Loop:
    """A UD QP on rxe0 that sends to itself."""

    def __init__(self, ctx, nrecv=8, rcq_size=16, srq=None, channel=None):
        self.ctx = ctx
        self.pd = PD(ctx)
        self.mr = MR(self.pd, SLOT * 16, IBV_ACCESS_LOCAL_WRITE)
        self.scq = CQ(ctx, 16)
        self.rcq = CQ(ctx, rcq_size, None, channel, 0)
        cap = QPCap(max_send_wr=16, max_recv_wr=nrecv, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=IBV_QPT_UD, scq=self.scq, rcq=self.rcq,
                          srq=srq, cap=cap)
        attr = QPAttr()
        attr.qkey = QKEY
        self.qp = QP(self.pd, init, attr)
        gr = GlobalRoute(dgid=ctx.query_gid(1, 0), sgid_index=0)
        self.ah = AH(self.pd, attr=AHAttr(port_num=1, is_global=1, gr=gr))
        self.sent = 0

    def recv_wr(self, i):
        sge = SGE(self.mr.buf + SLOT * (1 + i), SLOT, self.mr.lkey)
        return RecvWR(wr_id=i, num_sge=1, sg=[sge])

    def post_recv(self, n, target=None):
        for i in range(n):
            (target or self.qp).post_recv(self.recv_wr(i))

    def send(self, solicited=False):
        flags = IBV_SEND_SIGNALED | (IBV_SEND_SOLICITED if solicited else 0)
        sge = SGE(self.mr.buf, MSG, self.mr.lkey)
        wr = SendWR(wr_id=100 + self.sent, opcode=IBV_WR_SEND, num_sge=1,
                    sg=[sge], send_flags=flags)
        wr.set_wr_ud(self.ah, self.qp.qp_num, QKEY)
        self.qp.post_send(wr)
        self.sent += 1
        self.poll(self.scq, 1)

    @staticmethod
    def poll(cq, n, secs=5):
        """Up to n completions of cq, waiting at most secs for them."""
        import time
        got = []
        end = time.time() + secs
        while len(got) < n and time.time() < end:
            npolled, wcs = cq.poll(n - len(got))
            got += wcs[:npolled]
        return got


def wc_line(wc):
    ok = wc.status == IBV_WC_SUCCESS and wc.opcode == IBV_WC_RECV
    return "recv %s byte_len=%d" % ("ok" if ok else
                                    "status=%d" % wc.status, wc.byte_len)


def case_notify(ctx):
    ch = CompChannel(ctx)
    lp = Loop(ctx, channel=ch)
    lp.post_recv(4)

    lp.rcq.req_notify()
    lp.send()
    print("next_comp event", "yes" if wait(lambda: ch.get_cq_event(lp.rcq) or True)
          else "no")
    lp.rcq.ack_events(1)
    for wc in Loop.poll(lp.rcq, 1):
        print(wc_line(wc))

    lp.rcq.req_notify(True)
    lp.send(solicited=False)
    print("solicited arm, unsolicited send: polled",
          len(Loop.poll(lp.rcq, 1)))
    print("event", "yes" if wait(lambda: ch.get_cq_event(lp.rcq) or True, 2)
          else "no")

    lp.send(solicited=True)
    print("solicited arm, solicited send: event",
          "yes" if wait(lambda: ch.get_cq_event(lp.rcq) or True) else "no")
    lp.rcq.ack_events(1)
    print("polled", len(Loop.poll(lp.rcq, 1)))


def case_overflow(ctx):
    lp = Loop(ctx, rcq_size=1)
    lp.post_recv(4)
    lp.send()
    lp.send()
    ev = wait(ctx.get_async_event)
    if ev is None:
        print("no async event")
    else:
        print("async event", "CQ_ERR" if ev.event_type == IBV_EVENT_CQ_ERR
              else ev.event_type)
        ev.ack()
    wcs = Loop.poll(lp.rcq, 4, secs=1)
    print("polled", len(wcs))
    for wc in wcs:
        print(wc_line(wc))


def case_srqlimit(ctx):
    pd = PD(ctx)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    lp = Loop(ctx, srq=srq)
    lp.post_recv(5, target=srq)
    srq.modify(SrqAttr(srq_limit=3), IBV_SRQ_LIMIT)
    print("armed limit", srq.query().srq_limit)

    for n in range(1, 5):
        lp.send()
        ev = wait(ctx.get_async_event, 2)
        if ev is None:
            what = "none"
        elif ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED:
            what = "SRQ_LIMIT_REACHED"
        else:
            what = str(ev.event_type)
        if ev is not None:
            ev.ack()
        print("receive %d (%d WQEs left): event %s" % (n, 5 - n, what))
    print("limit now", srq.query().srq_limit)
    wcs = Loop.poll(lp.rcq, 4)
    print("polled", len(wcs))
    for wc in wcs:
        print(wc_line(wc))


def main():
    case = sys.argv[1]
    with Context(name="rxe0") as ctx:
        {"notify": case_notify, "overflow": case_overflow,
         "srqlimit": case_srqlimit}[case](ctx)
    sys.stdout.flush()


main()

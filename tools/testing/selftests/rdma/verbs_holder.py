#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A verbs application that holds rxe0 open while a test removes it.

    verbs_holder.py --dir DIR [--pds N] [--objects [--destroy]] [--wait SEC]
                    {query,pd}

Opens a context on rxe0 through the distribution's libibverbs (pyverbs)
and allocates N PDs (and with --objects, one of every kind of object:
see OBJECTS), then creates DIR/ready.  It waits until DIR/go
exists or SEC seconds pass, then tries one more operation (query the
device, or allocate a PD) and prints one line:
    holder: query succeeded | holder: query failed: ENAME
    holder: PD succeeded    | holder: PD failed: ENAME
With --destroy it then destroys the objects of --objects one by one,
users first, and prints one more line:
    holder: destroys succeeded | holder: destroys failed: KIND ENAME ...
The wait is bounded on purpose: a stack that blocks removal until the
holder closes (stock does, in uninterruptible sleep) must fail the test
that uses it, not hang it.
"""
import argparse
import errno
import os
import time

from pyverbs import enums
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context
from pyverbs.mr import MR, MW
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr

LABELS = {"query": "query", "pd": "PD"}

# What --objects creates, on one PD of its own: the test counts on it.
# The MR's buffer is pyverbs' own allocation (malloc'd memory), pinned by
# the registration.
OBJECTS = """\
pd 1, mr 1 (1 MiB), mw 1 (type 1), comp channel 1,
cq 2 (one with the channel), qp 3 (RC, UC, UD; the RC one on the srq),
srq 1, ah 1 (to the device's own GID 0)"""
MR_BYTES = 1 << 20


def every_object(ctx):
    """One of each kind of object; the list keeps them alive."""
    pd = PD(ctx)
    channel = CompChannel(ctx)
    cq = CQ(ctx, 16, None, channel, 0)
    cq2 = CQ(ctx, 16)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16)))
    cap = QPCap(max_send_wr=16, max_recv_wr=16)
    qps = [QP(pd, QPInitAttr(qp_type=enums.IBV_QPT_RC, scq=cq, rcq=cq2,
                             srq=srq, cap=cap))]
    qps += [QP(pd, QPInitAttr(qp_type=t, scq=cq, rcq=cq2, cap=cap))
            for t in (enums.IBV_QPT_UC, enums.IBV_QPT_UD)]
    gr = GlobalRoute(dgid=ctx.query_gid(1, 0), sgid_index=0)
    ah = AH(pd, attr=AHAttr(port_num=1, is_global=1, gr=gr))
    mr = MR(pd, MR_BYTES, enums.IBV_ACCESS_LOCAL_WRITE | enums.IBV_ACCESS_REMOTE_WRITE)
    mw = MW(pd, enums.IBV_MW_TYPE_1)
    return [pd, channel, cq, cq2, srq, qps, ah, mr, mw]


def destroy_all(objects):
    """Each object of every_object() destroyed, users first: the failures."""
    pd, channel, cq, cq2, srq, qps, ah, mr, mw = objects
    kinds = [("qp", qp) for qp in qps]
    kinds += [("mw", mw), ("ah", ah), ("mr", mr), ("srq", srq), ("cq", cq),
              ("cq", cq2), ("channel", channel), ("pd", pd)]
    failed = []
    for kind, obj in kinds:
        try:
            obj.close()
        except PyverbsRDMAError as e:
            failed.append("%s %s" % (kind, errno.errorcode.get(e.error_code,
                                                                str(e.error_code))))
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--pds", type=int, default=0)
    ap.add_argument("--objects", action="store_true")
    ap.add_argument("--destroy", action="store_true")
    ap.add_argument("--wait", type=float, default=15)
    ap.add_argument("action", choices=sorted(LABELS))
    a = ap.parse_args()

    ctx = Context(name="rxe0")
    pds = [PD(ctx) for _ in range(a.pds)]
    objects = every_object(ctx) if a.objects else []
    open(os.path.join(a.dir, "ready"), "w").close()

    end = time.time() + a.wait
    while not os.path.exists(os.path.join(a.dir, "go")) and time.time() < end:
        time.sleep(0.1)

    label = LABELS[a.action]
    try:
        if a.action == "query":
            ctx.query_device()
        else:
            pds.append(PD(ctx))
        print("holder: %s succeeded" % label)
    except PyverbsRDMAError as e:
        print("holder: %s failed: %s" %
              (label, errno.errorcode.get(e.error_code, str(e.error_code))))
    if a.destroy and objects:
        failed = destroy_all(objects)
        print("holder: destroys %s" %
              ("failed: " + ", ".join(failed) if failed else "succeeded"))
    del objects  # alive until the operation was tried


if __name__ == "__main__":
    main()

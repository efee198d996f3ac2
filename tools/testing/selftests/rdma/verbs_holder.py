#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A verbs application that holds rxe0 open while a test removes it.

    verbs_holder.py --dir DIR [--pds N] [--wait SEC] {query,pd}

Opens a context on rxe0 through the distribution's libibverbs (pyverbs)
and allocates N PDs, then creates DIR/ready.  It waits until DIR/go
exists or SEC seconds pass, then tries one more operation (query the
device, or allocate a PD) and prints one line:
    holder: query succeeded | holder: query failed: ENAME
    holder: PD succeeded    | holder: PD failed: ENAME
The wait is bounded on purpose: a stack that blocks removal until the
holder closes (stock does, in uninterruptible sleep) must fail the test
that uses it, not hang it.
"""
import argparse
import errno
import os
import time

from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError

LABELS = {"query": "query", "pd": "PD"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--pds", type=int, default=0)
    ap.add_argument("--wait", type=float, default=15)
    ap.add_argument("action", choices=sorted(LABELS))
    a = ap.parse_args()

    ctx = Context(name="rxe0")
    pds = [PD(ctx) for _ in range(a.pds)]
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


if __name__ == "__main__":
    main()

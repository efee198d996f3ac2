#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Create verbs objects on rxe0 inside an rdma cgroup, step by step.

    uverbs_cgroup.py CGROUP limits

Joins CGROUP (a cgroup v2 directory whose rdma.max the test set to
"rxe0 hca_handle=1 hca_object=3"), then runs the steps of limits() through
both transports: write() commands sent raw (uverbs_raw.py) and the ioctl
path of the distribution's libibverbs (pyverbs).  After every step it
prints one line:
    STEP: OUTCOME | hca_handle=H hca_object=O
OUTCOME is "ok" or the errno's name; H and O are rxe0's line of
CGROUP/rdma.current.
"""
import errno
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uverbs_raw import (ALLOC_PD, CREATE_COMP_CHANNEL, DEALLOC_PD,  # noqa: E402
                        DESTROY_CQ, Uverbs)


def current(cg):
    """rxe0's counters in CGROUP/rdma.current."""
    with open(os.path.join(cg, "rdma.current")) as f:
        for line in f:
            if line.startswith("rxe0 "):
                return line.split(" ", 1)[1].strip()
    return "no rxe0"


def handle(resp):
    return struct.unpack_from("<I", resp)[0]


class Steps:
    def __init__(self, cg):
        self.cg = cg

    def step(self, name, fn):
        """Run fn: a write() outcome, or a pyverbs call (ok or errno)."""
        try:
            out = fn()
        except OSError as e:
            out = errno.errorcode.get(e.errno, str(e.errno))
        except Exception as e:  # pyverbs: PyverbsRDMAError.error_code
            code = getattr(e, "error_code", None)
            out = errno.errorcode.get(code, "%s" % e)
        if not isinstance(out, str):
            out = "ok"
        print("%s: %s | %s" % (name, out, current(self.cg)), flush=True)
        return out


def limits(s):
    """hca_handle=1 hca_object=3: contexts and objects until refused."""
    from pyverbs.device import Context
    from pyverbs.pd import PD

    a, b = Uverbs(), Uverbs()
    s.step("start", lambda: "ok")
    s.step("write GET_CONTEXT", lambda: a.get_context()[0])
    s.step("write GET_CONTEXT, second file", lambda: b.get_context()[0])
    s.step("ioctl GET_CONTEXT, third file", lambda: Context(name="rxe0"))
    s.step("comp channel",
           lambda: a.write(CREATE_COMP_CHANNEL, struct.pack("<Q", a.resp_addr), 4)[0])
    pds = []

    def pd():
        res, resp = a.write(ALLOC_PD, struct.pack("<Q", a.resp_addr), 4)
        if res == "ok":
            pds.append(handle(resp))
        return res

    for i in range(1, 5):
        s.step("PD %d" % i, pd)
    s.step("CQ", lambda: a.create_cq()[0])
    s.step("dealloc PD", lambda: a.dealloc_pd(pds.pop()))
    # The driver refuses it after the uobject was charged: aborted.
    s.step("CQ of 2^31 entries", lambda: a.create_cq(cqe=1 << 31)[0])
    cq = []

    def good_cq():
        res, resp = a.create_cq()
        if res == "ok":
            cq.append(handle(resp))
        return res

    s.step("CQ", good_cq)
    s.step("destroy CQ",
           lambda: a.write(DESTROY_CQ, struct.pack("<QII", a.resp_addr, cq[0], 0), 8)[0])
    s.step("close the file", a.close)
    b.close()
    # The pyverbs objects live in a list: step() only sees the outcome.
    held = []
    s.step("ioctl GET_CONTEXT", lambda: held.append(Context(name="rxe0")))
    s.step("PD on it", lambda: held.append(PD(held[0])))
    s.step("close it", lambda: held[0].close())

def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("limits",):
        print(__doc__, file=sys.stderr)
        return 2
    cg = sys.argv[1]
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    limits(Steps(cg))
    return 0


if __name__ == "__main__":
    sys.exit(main())

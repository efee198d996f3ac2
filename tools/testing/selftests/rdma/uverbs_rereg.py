#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""REREG_MR moving an MR to another PD, raw, and the PDs' use counts.

    uverbs_rereg.py measure     print every case's outcome
    uverbs_rereg.py check [--stock]  compare with EXPECTED_OURS (or
                                EXPECTED_STOCK); print "CASE: got X, want
                                Y" for each mismatch, then "done"; exit 1
                                on a mismatch
    uverbs_rereg.py race DEV N  on DEV (a /dev/infiniband/uverbs*), N times:
                                move an MR to a new PD in place, then
                                deallocate the PD it left; print "moved
                                N" or the first failure

Each case registers an MR on one PD, asks REREG_MR (IB_MR_REREG_PD) to
move it to a second PD, then deallocates the second PD and the first:
the outcome is the three answers.  The second PD must be free again
whatever the rereg answered (a move that failed took no count on it), the
first busy while the MR lives on it.  REREG_MR goes through write() and
through ioctl's INVOKE_WRITE (what libibverbs 44 uses for a legacy
command); libibverbs itself refuses ibv_rereg_mr() for rxe without
asking the kernel, hence raw commands (include/uapi/rdma/ib_user_verbs.h,
ib_user_ioctl_cmds.h).
"""
import ctypes
import struct
import sys
import time

import uverbs_raw
from uverbs_raw import attr

REREG_MR = 11
IB_MR_REREG_PD = 1 << 1
# UVERBS_OBJECT_DEVICE / UVERBS_METHOD_INVOKE_WRITE and its attributes
INVOKE_WRITE = 0
CORE_IN, CORE_OUT, WRITE_CMD = 0, 1, 2


def setup(u):
    """Two PDs and an MR on the first: (pd1, pd2, mr handle)."""
    u.context()
    pd1, pd2 = u.pd(), u.pd()
    buf = uverbs_raw.pages(1)
    if u.reg_mr(pd1, buf, 4096) != "ok":
        raise uverbs_raw.Failed("REG_MR")
    # ib_uverbs_reg_mr_resp: mr_handle first
    mr = struct.unpack_from("<I", u.resp.raw)[0]
    return pd1, pd2, mr, buf


def rereg_body(u, mr, pd, buf):
    # ib_uverbs_rereg_mr: response, mr_handle, flags, start, length,
    # hca_va, pd_handle, access_flags
    return struct.pack("<QIIQQQII", u.resp_addr, mr, IB_MR_REREG_PD, buf,
                       4096, buf, pd, uverbs_raw.LOCAL_WRITE)


def after(u, pd1, pd2, answer):
    return "%s, then dealloc new PD %s, old PD %s" % (
        answer, u.dealloc_pd(pd2), u.dealloc_pd(pd1))


def rereg_pd_write(u):
    pd1, pd2, mr, buf = setup(u)
    res = u.write(REREG_MR, rereg_body(u, mr, pd2, buf), 8)[0]
    return after(u, pd1, pd2, res)


def rereg_pd_ioctl(u):
    pd1, pd2, mr, buf = setup(u)
    body = ctypes.create_string_buffer(rereg_body(u, mr, pd2, buf))
    resp = ctypes.create_string_buffer(8)
    attrs = (attr(CORE_IN, ctypes.addressof(body), length=len(body.raw)) +
             attr(CORE_OUT, ctypes.addressof(resp), length=8) +
             attr(WRITE_CMD, REREG_MR))
    res = u.ioctl(0, INVOKE_WRITE, attrs)
    return after(u, pd1, pd2, res)


CASES = [rereg_pd_write, rereg_pd_ioctl]

# Measured on the stock 6.1.0-56 stack (scripts/vm --stock, rxe0 on the
# selftests' veth): `uverbs_rereg.py measure`.  Stock's rxe has no
# rereg_user_mr: the command does not exist for it, on either transport.
EXPECTED_STOCK = {
    "rereg_pd_write": "ENOTSUP, then dealloc new PD ok, old PD EBUSY",
    "rereg_pd_ioctl": "ENOTSUP, then dealloc new PD ok, old PD EBUSY",
}
# Ours moves the MR (rxe_rereg_user_mr()): the new PD is busy, the old
# one free.
EXPECTED_OURS = {
    "rereg_pd_write": "ok, then dealloc new PD EBUSY, old PD ok",
    "rereg_pd_ioctl": "ok, then dealloc new PD EBUSY, old PD ok",
}


def race(n):
    """The MR hops to a fresh PD and the one it left goes, n times: a
    dump holding the MR meanwhile must not see that PD freed."""
    u = uverbs_raw.Uverbs()
    pd1, _, mr, buf = setup(u)
    for i in range(n):
        pd2 = u.pd()
        res = u.write(REREG_MR, rereg_body(u, mr, pd2, buf), 8)[0]
        if res != "ok":
            return "rereg %d: %s" % (i, res)
        res = u.dealloc_pd(pd1)
        if res != "ok":
            return "dealloc of the PD left %d: %s" % (i, res)
        pd1 = pd2
        # Less often than a dump sleeps in umap_test: each dump sees one.
        time.sleep(0.005)
    return "moved %d" % n


def main():
    if sys.argv[1:] == ["measure"]:
        for case in CASES:
            print("    %r: %r," % (case.__name__, uverbs_raw.run_case(case)))
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "race":
        uverbs_raw.DEV = sys.argv[2]
        print(race(int(sys.argv[3])), flush=True)
        return 0
    if sys.argv[1:] not in (["check"], ["check", "--stock"]):
        print(__doc__, file=sys.stderr)
        return 2
    expected = EXPECTED_STOCK if sys.argv[2:] else EXPECTED_OURS
    bad = 0
    for case in CASES:
        got, want = uverbs_raw.run_case(case), expected[case.__name__]
        if got != want:
            print("%s: got %s, want %s" % (case.__name__, got, want))
            bad += 1
    print("done", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Privileged QP creation requests, on each transport, raw.

    uverbs_caps.py [--nobody] measure   print every case's outcome
    uverbs_caps.py [--nobody] check PREFIX
                                        the cases named PREFIX*, compared
                                        with the table for the caller's
                                        privilege (stock's answers with
                                        OOT_STOCK=1); print "CASE: got X,
                                        want Y" for each mismatch, then
                                        "done"; exit 1 on a mismatch

--nobody drops to uid/gid nobody (no capabilities) before opening the
device.  A QP with a source QPN (IB_QP_CREATE_SOURCE_QPN) takes
CAP_NET_RAW: the permission must be refused before the driver sees the
request, whatever the driver would say of the flag itself (rxe refuses
every creation flag), on the write() command EX_CREATE_QP and on the
ioctl method QP_CREATE alike.  libibverbs picks the transport (ioctl
first, the write() command if the method is missing); here each is hit
explicitly.  The commands are built with struct, following
include/uapi/rdma/ib_user_verbs.h and ib_user_ioctl_cmds.h.
"""
import ctypes
import os
import struct
import sys

import uverbs_raw
from uverbs_raw import attr

EX_CREATE_QP = 24
IB_QP_CREATE_SOURCE_QPN = 1 << 10
# enum uverbs_default_objects, enum uverbs_methods_qp
OBJECT_QP = 4
METHOD_QP_CREATE = 0
# enum uverbs_attrs_create_qp_cmd_attr_ids
QP_HANDLE, QP_PD, QP_SEND_CQ, QP_RECV_CQ = 0, 2, 4, 5
QP_USER_HANDLE, QP_CAP, QP_TYPE, QP_SOURCE_QPN = 7, 8, 9, 11
QP_RESP_CAP, QP_RESP_QP_NUM = 13, 14
UHW_OUT = 0x1001
SOURCE_QPN = 0x100
# rxe_create_qp_resp: two struct mminfo
RXE_QP_RESP = 32


def ex_create_qp(u, qp_type, flags, source_qpn=SOURCE_QPN):
    """The extended write() CREATE_QP with room for rxe's answer."""
    pd, cq = u.pd(), u.cq()
    # ib_uverbs_ex_create_qp: 64 bytes
    body = struct.pack("<QIIIIIIIIIBBBBIIII", 0, pd, cq, cq, 0, 16, 16, 1,
                       1, 0, 0, qp_type, 0, 0, 0, flags, 0, source_qpn)
    core_out = 40        # ib_uverbs_ex_create_qp_resp
    hdr = struct.pack("<IHH", uverbs_raw.EXTENDED | EX_CREATE_QP,
                      len(body) // 8, core_out // 8)
    ex_hdr = struct.pack("<QHHI", u.resp_addr, 0, RXE_QP_RESP // 8, 0)
    return u.raw(hdr + ex_hdr + body)


def ioctl_create_qp(u, qp_type, source_qpn=None):
    """The ioctl QP_CREATE, with a SOURCE_QPN attribute if given."""
    pd, cq = u.pd(), u.cq()
    cap = ctypes.create_string_buffer(struct.pack("<5I", 16, 16, 1, 1, 0))
    resp_cap = ctypes.create_string_buffer(20)
    qp_num = ctypes.create_string_buffer(4)
    uhw = ctypes.create_string_buffer(RXE_QP_RESP)
    attrs = (attr(QP_HANDLE, 0, length=0) +
             attr(QP_PD, pd, length=0) +
             attr(QP_SEND_CQ, cq, length=0) +
             attr(QP_RECV_CQ, cq, length=0) +
             attr(QP_USER_HANDLE, 0) +
             attr(QP_CAP, ctypes.addressof(cap), length=20) +
             attr(QP_TYPE, qp_type) +
             attr(QP_RESP_CAP, ctypes.addressof(resp_cap), length=20) +
             attr(QP_RESP_QP_NUM, ctypes.addressof(qp_num), length=4) +
             attr(UHW_OUT, ctypes.addressof(uhw), length=RXE_QP_RESP))
    if source_qpn is not None:
        attrs += attr(QP_SOURCE_QPN, source_qpn, length=4)
    return u.ioctl(OBJECT_QP, METHOD_QP_CREATE, attrs)


def write_ud(u):
    u.context()
    return ex_create_qp(u, uverbs_raw.QPT_UD, 0)


def write_ud_source_qpn(u):
    u.context()
    return ex_create_qp(u, uverbs_raw.QPT_UD, IB_QP_CREATE_SOURCE_QPN)


def write_rc_source_qpn(u):
    u.context()
    return ex_create_qp(u, uverbs_raw.QPT_RC, IB_QP_CREATE_SOURCE_QPN)


def ioctl_ud(u):
    u.context()
    return ioctl_create_qp(u, uverbs_raw.QPT_UD)


def ioctl_ud_source_qpn(u):
    u.context()
    return ioctl_create_qp(u, uverbs_raw.QPT_UD, SOURCE_QPN)


def ioctl_rc_source_qpn(u):
    u.context()
    return ioctl_create_qp(u, uverbs_raw.QPT_RC, SOURCE_QPN)


CASES = [write_ud, write_ud_source_qpn, write_rc_source_qpn,
         ioctl_ud, ioctl_ud_source_qpn, ioctl_rc_source_qpn]

# Measured on the stock 6.1.0-56 stack (scripts/vm --stock, rxe0 on the
# selftests' veth): `uverbs_caps.py measure` as root and with --nobody.
# rxe refuses every creation flag (EOPNOTSUPP), whatever the QP type:
# root gets that on both transports.  Stock's write() checks CAP_NET_RAW
# first (nobody: EPERM); stock's ioctl does not check it at all and
# nobody gets rxe's EOPNOTSUPP: ours refuses the permission first there
# too (the "nobody" table is ours; the stock answers are in STOCK).
EXPECTED = {
    "root": {
        "write_ud": "ok",
        "write_ud_source_qpn": "ENOTSUP",
        "write_rc_source_qpn": "ENOTSUP",
        "ioctl_ud": "ok",
        "ioctl_ud_source_qpn": "ENOTSUP",
        "ioctl_rc_source_qpn": "ENOTSUP",
    },
    "nobody": {
        "write_ud": "ok",
        "write_ud_source_qpn": "EPERM",
        "write_rc_source_qpn": "EPERM",
        "ioctl_ud": "ok",
        "ioctl_ud_source_qpn": "EPERM",
        "ioctl_rc_source_qpn": "EPERM",
    },
}
STOCK = {
    "nobody": {
        "ioctl_ud_source_qpn": "ENOTSUP",
        "ioctl_rc_source_qpn": "ENOTSUP",
    },
}


def main():
    args = sys.argv[1:]
    who = "root"
    if args[:1] == ["--nobody"]:
        args = args[1:]
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        who = "nobody"
    if args == ["measure"]:
        for case in CASES:
            got = uverbs_raw.run_case(case)
            print("        %r: %r," % (case.__name__, got))
        return 0
    if len(args) != 2 or args[0] != "check":
        print(__doc__, file=sys.stderr)
        return 2
    table = dict(EXPECTED[who])
    if os.environ.get("OOT_STOCK") == "1":
        table.update(STOCK.get(who, {}))
    bad = 0
    for case in CASES:
        if not case.__name__.startswith(args[1]):
            continue
        got, want = uverbs_raw.run_case(case), table[case.__name__]
        if got != want:
            print("%s: got %s, want %s" % (case.__name__, got, want))
            bad += 1
    print("done", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

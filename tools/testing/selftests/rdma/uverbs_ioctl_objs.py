#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The ioctl objects beyond PD, CQ, QP and SRQ, raw, and each one's errno.

    uverbs_ioctl_objs.py check     run every case; print "CASE: got X,
                                   want Y" for each mismatch, then "done";
                                   exit 1 on a mismatch
    uverbs_ioctl_objs.py measure   print every case's outcome, as the
                                   EXPECTED table below is written

The objects stock's ib_uverbs has whatever the driver (FLOW, FLOW_ACTION,
COUNTERS, DM, WQ, RWQ_IND_TBL, XRCD) exist on a device only when the
driver has their destroy op: rxe has none, so every method of theirs is
EPROTONOSUPPORT, as is an MR method whose mandatory handle names one
(DM_MR_REG names a DM).  The MR methods exist: QUERY_MR answers, those
whose op rxe lacks answer EOPNOTSUPP once their attributes are good.
Driver namespaces (ids with bit 12 set): rxe defines none, so an object,
a method or a mandatory attribute there is unknown, an optional
attribute is ignored.  CQ_CREATE names a completion channel, an object
with no method.  The calls follow include/uapi/rdma/
ib_user_ioctl_cmds.h; each case runs on a fresh open of uverbs0 with a
context (write() GET_CONTEXT).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
from uverbs_raw import (CREATE_COMP_CHANNEL, Failed, NO_HANDLE, REG_MR,  # noqa: E402
                        Out, attr, check_main, handle, pages, ptr_in,
                        run_case, u32, u64)

# enum uverbs_default_objects
OBJ_PD, OBJ_CQ, OBJ_MR, OBJ_FLOW, OBJ_XRCD = 1, 3, 7, 9, 10
OBJ_RWQ_IND_TBL, OBJ_WQ, OBJ_FLOW_ACTION, OBJ_DM, OBJ_COUNTERS = 11, 12, 13, 14, 15
# enum uverbs_methods_mr
DM_MR_REG, MR_DESTROY, ADVISE_MR, QUERY_MR, REG_DMABUF_MR = 0, 1, 2, 3, 4
# the first id of the driver namespace (UVERBS_ID_NS_SHIFT 12)
NS = 1 << 12
UHW_OUT = NS + 1
# ib_uverbs_attr.flags
MANDATORY = 1
LOCAL_WRITE, ZERO_BASED = 1, 1 << 5
MR_LEN = 8192


def setup(u):
    """A context, a PD and an MR of MR_LEN bytes: (pd, mr, lkey, rkey, addr)."""
    u.context()
    pd = u.pd()
    addr = pages(MR_LEN // 4096)
    res, resp = u.write(REG_MR, struct.pack("<QQQQII", u.resp_addr, addr, MR_LEN,
                                            addr, pd, LOCAL_WRITE), 12)
    if res != "ok":
        raise Failed("REG_MR: " + res)
    mr, lkey, rkey = struct.unpack_from("<III", resp)
    return pd, mr, lkey, rkey, addr


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# --- objects that need a destroy op rxe lacks ---------------------------

@case
def dm_alloc(u):
    setup(u)
    return u.ioctl(OBJ_DM, 0, handle(0, 0) + u64(1, 4096) + u32(2, 64))


@case
def dm_free(u):
    setup(u)
    return u.ioctl(OBJ_DM, 1, handle(0, NO_HANDLE))


@case
def counters_create(u):
    setup(u)
    return u.ioctl(OBJ_COUNTERS, 0, handle(0, 0))


@case
def counters_destroy(u):
    setup(u)
    return u.ioctl(OBJ_COUNTERS, 1, handle(0, NO_HANDLE))


@case
def counters_read(u):
    setup(u)
    out = Out(1, 8)
    return u.ioctl(OBJ_COUNTERS, 2, handle(0, NO_HANDLE) + out.attr)


@case
def flow_destroy(u):
    setup(u)
    return u.ioctl(OBJ_FLOW, 0, handle(0, NO_HANDLE))


@case
def flow_action_destroy(u):
    setup(u)
    return u.ioctl(OBJ_FLOW_ACTION, 1, handle(0, NO_HANDLE))


@case
def wq_create(u):
    pd = setup(u)[0]
    cq = u.cq()
    outs = [Out(9, 4), Out(10, 4)]
    # handle, PD, CQ, user handle, type RQ, max_wr, max_sge, flags
    attrs = (handle(0, 0) + handle(1, pd) + handle(2, cq) + u64(3, 0) + u64(4, 0) +
             u32(6, 16) + u32(7, 1) + u32(8, 0))
    return u.ioctl(OBJ_WQ, 0, attrs + b"".join(o.attr for o in outs))


@case
def wq_destroy(u):
    setup(u)
    out = Out(1, 4)
    return u.ioctl(OBJ_WQ, 1, handle(0, NO_HANDLE) + out.attr)


@case
def rwq_ind_tbl_destroy(u):
    setup(u)
    return u.ioctl(OBJ_RWQ_IND_TBL, 0, handle(0, NO_HANDLE))


@case
def xrcd_destroy(u):
    setup(u)
    return u.ioctl(OBJ_XRCD, 0, handle(0, NO_HANDLE))


# --- MR methods ---------------------------------------------------------

def query_mr(u, mr, with_length=True, extra=b""):
    """QUERY_MR: the outcome and the answer (lkey, rkey, length, iova)."""
    outs = [Out(1, 4), Out(2, 4), Out(4, 8)] + ([Out(3, 8)] if with_length else [])
    res = u.ioctl(OBJ_MR, QUERY_MR, handle(0, mr) + b"".join(o.attr for o in outs) +
                  extra)
    if res != "ok":
        return res, None
    return res, (outs[0].value("<I"), outs[1].value("<I"),
                 outs[3].value("<Q"), outs[2].value("<Q"))


@case
def query_mr_answers_as_reg_mr(u):
    _, mr, lkey, rkey, addr = setup(u)
    res, got = query_mr(u, mr)
    if res != "ok":
        return res
    want = (lkey, rkey, MR_LEN, addr)
    return "ok" if got == want else "answered %r, want %r" % (got, want)


@case
def query_mr_no_such_handle(u):
    setup(u)
    return query_mr(u, NO_HANDLE)[0]


@case
def query_mr_given_a_pd_handle(u):
    pd = setup(u)[0]
    return query_mr(u, pd)[0]


@case
def query_mr_without_its_length_attr(u):
    mr = setup(u)[1]
    return query_mr(u, mr, with_length=False)[0]


@case
def query_mr_optional_driver_attr(u):
    mr = setup(u)[1]
    return query_mr(u, mr, extra=u32(NS, 7))[0]


@case
def query_mr_mandatory_driver_attr(u):
    mr = setup(u)[1]
    return query_mr(u, mr, extra=attr(NS, 7, length=4, flags=MANDATORY))[0]


@case
def query_mr_after_ioctl_destroy(u):
    mr = setup(u)[1]
    res = u.ioctl(OBJ_MR, MR_DESTROY, handle(0, mr))
    if res != "ok":
        return "MR_DESTROY: " + res
    return query_mr(u, mr)[0]


def advise_attrs(pd, lkey, addr):
    sge = struct.pack("<QII", addr, 4096, lkey)
    # PD, advice (PREFETCH_WRITE), flags (FLUSH), one SGE
    return handle(0, pd) + u64(1, 1) + u32(2, 1) + ptr_in(3, sge)


@case
def advise_mr(u):
    pd, _, lkey, _, addr = setup(u)
    return u.ioctl(OBJ_MR, ADVISE_MR, advise_attrs(pd, lkey, addr))


@case
def advise_mr_without_sge_list(u):
    pd, _, lkey, _, addr = setup(u)
    return u.ioctl(OBJ_MR, ADVISE_MR, advise_attrs(pd, lkey, addr)[:3 * 16])


@case
def reg_dmabuf_mr(u):
    pd = setup(u)[0]
    outs = [Out(7, 4), Out(8, 4)]
    attrs = (handle(0, 0) + handle(1, pd) + u64(2, 0) + u64(3, 4096) + u64(4, 0) +
             u32(5, 0) + u32(6, LOCAL_WRITE))
    return u.ioctl(OBJ_MR, REG_DMABUF_MR, attrs + b"".join(o.attr for o in outs))


@case
def dm_mr_reg_dm_absent(u):
    pd = setup(u)[0]
    outs = [Out(6, 4), Out(7, 4)]
    attrs = (handle(0, 0) + u64(1, 0) + u64(2, 4096) + handle(3, pd) +
             u32(4, LOCAL_WRITE | ZERO_BASED) + handle(5, NO_HANDLE))
    return u.ioctl(OBJ_MR, DM_MR_REG, attrs + b"".join(o.attr for o in outs))


# --- an object without methods that a method names ------------------------

@case
def cq_create_with_a_comp_channel(u):
    setup(u)
    res, resp = u.write(CREATE_COMP_CHANNEL, struct.pack("<Q", u.resp_addr), 4)
    if res != "ok":
        raise Failed("CREATE_COMP_CHANNEL: " + res)
    channel = struct.unpack_from("<I", resp)[0]
    try:
        # handle, cqe, user handle, the channel's fd, vector; RESP_CQE and
        # rxe's answer (UHW_OUT)
        outs = [Out(6, 4), Out(UHW_OUT, 32)]
        attrs = (handle(0, 0) + u32(1, 16) + u64(2, 0) + handle(3, channel) +
                 u32(4, 0))
        return u.ioctl(OBJ_CQ, 0, attrs + b"".join(o.attr for o in outs))
    finally:
        os.close(channel)


# --- unknown ids --------------------------------------------------------

@case
def mr_unknown_method(u):
    setup(u)
    return u.ioctl(OBJ_MR, 0x77)


@case
def driver_object(u):
    setup(u)
    return u.ioctl(NS, 0)


@case
def driver_method_on_pd(u):
    pd = setup(u)[0]
    return u.ioctl(OBJ_PD, NS, handle(NS, pd))


# Measured on the stock stack (scripts/vm --stock): uverbs_ioctl_objs.py measure
EXPECTED = {
    'dm_alloc': 'EPROTONOSUPPORT',
    'dm_free': 'EPROTONOSUPPORT',
    'counters_create': 'EPROTONOSUPPORT',
    'counters_destroy': 'EPROTONOSUPPORT',
    'counters_read': 'EPROTONOSUPPORT',
    'flow_destroy': 'EPROTONOSUPPORT',
    'flow_action_destroy': 'EPROTONOSUPPORT',
    'wq_create': 'EPROTONOSUPPORT',
    'wq_destroy': 'EPROTONOSUPPORT',
    'rwq_ind_tbl_destroy': 'EPROTONOSUPPORT',
    'xrcd_destroy': 'EPROTONOSUPPORT',
    'query_mr_answers_as_reg_mr': 'ok',
    'query_mr_no_such_handle': 'ENOENT',
    'query_mr_given_a_pd_handle': 'EINVAL',
    'query_mr_without_its_length_attr': 'EINVAL',
    'query_mr_optional_driver_attr': 'ok',
    'query_mr_mandatory_driver_attr': 'EPROTONOSUPPORT',
    'query_mr_after_ioctl_destroy': 'ENOENT',
    'advise_mr': 'ENOTSUP',
    'advise_mr_without_sge_list': 'EINVAL',
    'reg_dmabuf_mr': 'ENOTSUP',
    'dm_mr_reg_dm_absent': 'EPROTONOSUPPORT',
    'cq_create_with_a_comp_channel': 'ok',
    'mr_unknown_method': 'EPROTONOSUPPORT',
    'driver_object': 'EPROTONOSUPPORT',
    'driver_method_on_pd': 'EPROTONOSUPPORT',
}


def main():
    return check_main(__doc__, CASES, EXPECTED, run_case)


if __name__ == "__main__":
    sys.exit(main())

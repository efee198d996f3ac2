#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Flow steering, WQs, RSS tables and CQ moderation through ib_uverbs, raw.

    uverbs_flow.py check     run every case; print "CASE: got X, want Y" for
                             each mismatch, then "done"; exit 1 on a mismatch
    uverbs_flow.py measure   print every case's outcome, as the EXPECTED
                             table below is written

The device is uvflow0 of the test module uverbs_flow_test (see its head):
UD and raw packet QPs, receive WQs, indirection tables, flows and
counters, all bookkeeping, and a record of what the driver was last
given.  The calls are libibverbs' (ibv_create_flow(), ibv_create_wq(),
ibv_modify_wq(), ibv_create_rwq_ind_table(), ibv_create_qp_ex() with a
table, ibv_modify_cq(), and their destroys) as the extended write()
commands, built here from include/uapi/rdma/ib_user_verbs.h.  An outcome
is "ok" or the errno's name, then what the driver saw or answered, then
the driver objects left once the case's file is closed ("left CQS QPS
WQS TABLES FLOWS COUNTERS": anything but zeros is a leak).
"""
import ctypes
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
import uverbs_raw  # noqa: E402
from uverbs_raw import (EXTENDED, QPT_UD, Failed, Uverbs,  # noqa: E402
                        check_main, handle, uverbs_of, written)

PARAMS = "/sys/module/uverbs_flow_test/parameters/"
# enum ib_uverbs_write_cmds, the extended ones
EX_CREATE_QP = 24
EX_CREATE_FLOW, EX_DESTROY_FLOW = 50, 51
EX_CREATE_WQ, EX_MODIFY_WQ, EX_DESTROY_WQ = 52, 53, 54
EX_CREATE_RWQ_IND_TBL, EX_DESTROY_RWQ_IND_TBL = 55, 56
EX_MODIFY_CQ = 57
QPT_RAW_PACKET = 8
# enum uverbs_default_objects, the counters' methods
OBJ_COUNTERS = 15
COUNTERS_CREATE, COUNTERS_DESTROY = 0, 1
# enum ib_flow_spec_type
ETH, IPV4, IPV6, TCP, UDP, VXLAN, INNER = 0x20, 0x30, 0x31, 0x40, 0x41, 0x50, 0x100
TAG, DROP, HANDLE, COUNT = 0x1000, 0x1001, 0x1002, 0x1003
# enum ib_flow_attr_type, enum ib_flow_flags
NORMAL, ALL_DEFAULT, MC_DEFAULT, SNIFFER = 0, 1, 2, 3
DONT_TRAP, EGRESS = 2, 4
# enum ib_wq_attr_mask, enum ib_wq_state
WQ_STATE, WQ_CUR_STATE, WQ_FLAGS = 1, 2, 4
WQS_RESET, WQS_RDY, WQS_ERR = 0, 1, 2
NO_HANDLE = 0xdead


def live():
    with open(PARAMS + "live") as f:
        return f.read().split()


def last():
    with open(PARAMS + "last") as f:
        return f.read().strip()


def fail_next(op):
    with open(PARAMS + "fail", "w") as f:
        f.write(op)


def must(res, what):
    if res != "ok":
        raise Failed("%s: %s" % (what, res))


def spec(kind, body, reserved=0):
    """A user spec: ib_uverbs_flow_spec_hdr, then body."""
    return struct.pack("<IHH", kind, 8 + len(body), reserved) + body


def eth(dmac=b"\x02\0\0\0\0\x01", mask=b"\xff" * 6, ether_type=0x0800):
    # ib_uverbs_flow_eth_filter: dst_mac, src_mac, ether_type, vlan_tag
    val = dmac + b"\0" * 6 + struct.pack(">HH", ether_type, 0)
    msk = mask + b"\0" * 6 + struct.pack(">HH", 0xffff if ether_type else 0, 0)
    return spec(ETH, val + msk)


def ipv4(dst="192.0.2.7"):
    # ib_uverbs_flow_ipv4_filter: src_ip, dst_ip, proto, tos, ttl, flags
    ip = bytes(int(x) for x in dst.split("."))
    return spec(IPV4, b"\0" * 4 + ip + b"\0" * 4 + b"\0" * 4 + b"\xff" * 4 + b"\0" * 4)


def udp(port=4791, kind=UDP):
    # ib_uverbs_flow_tcp_udp_filter: dst_port, src_port
    return spec(kind, struct.pack(">HH", port, 0) + struct.pack(">HH", 0xffff, 0))


def ipv6(label=0x12345, label_mask=0xfffff):
    # ib_uverbs_flow_ipv6_filter: src, dst, flow_label, next_hdr,
    # traffic_class, hop_limit, reserved
    dst = bytes.fromhex("20010db8" + "00" * 11 + "01")
    val = b"\0" * 16 + dst + struct.pack(">I", label) + b"\0" * 4
    msk = b"\0" * 16 + b"\xff" * 16 + struct.pack(">I", label_mask) + b"\0" * 4
    return spec(IPV6, val + msk)


def tag(tag_id=0x77):
    return spec(TAG, struct.pack("<II", tag_id, 0))


def count(h):
    return spec(COUNT, struct.pack("<II", h, 0))


class F(Uverbs):
    """A uverbs file of uvflow0 with a context and the extended commands."""

    def __init__(self):
        super().__init__()
        self.context()

    def ex(self, cmd, body, out_len=0, in_words=None):
        """An extended command: its outcome and the response bytes."""
        ctypes.memset(self.resp, 0, len(self.resp))
        in_words = len(body) // 8 if in_words is None else in_words
        hdr = struct.pack("<IHH", EXTENDED | cmd, in_words, out_len // 8)
        ex_hdr = struct.pack("<QHHI", self.resp_addr if out_len else 0, 0, 0, 0)
        return self.raw(hdr + ex_hdr + body), self.resp.raw[:out_len]

    def cq(self):
        res, resp = self.write(18, struct.pack("<QQIIiI", self.resp_addr, 0, 16,
                                               0, -1, 0), 8)
        must(res, "CREATE_CQ")
        return struct.unpack_from("<I", resp)[0]

    def create_qp(self, pd, cq, qp_type=QPT_UD, table=None, send_wr=16,
                  recv_wr=16, recv_sge=1, is_srq=0):
        comp_mask = 1 if table is not None else 0
        body = struct.pack("<QIIIIIIIIIBBBBIIII", 0x51, pd, cq, cq, 0, send_wr,
                           recv_wr, 1, recv_sge, 0, 0, qp_type, is_srq, 0,
                           comp_mask, 0, table or 0, 0)
        res, resp = self.ex(EX_CREATE_QP, body, 40)
        return res, struct.unpack_from("<I", resp)[0]

    def qp(self, pd, cq, qp_type=QPT_UD):
        res, h = self.create_qp(pd, cq, qp_type)
        must(res, "EX_CREATE_QP")
        return h

    def create_wq(self, pd, cq, wq_type=0, max_wr=5, max_sge=2, flags=0,
                  comp_mask=0, body_len=40):
        body = struct.pack("<IIQIIIIII", comp_mask, wq_type, 0x3e, pd, cq, max_wr,
                           max_sge, flags, 0)[:body_len]
        res, resp = self.ex(EX_CREATE_WQ, body, 24)
        return res, struct.unpack("<6I", resp)

    def wq(self, pd, cq):
        res, r = self.create_wq(pd, cq)
        must(res, "EX_CREATE_WQ")
        return r[2]

    def modify_wq(self, h, mask, state=0, cur=0, flags=0, flags_mask=0):
        return self.ex(EX_MODIFY_WQ, struct.pack("<6I", mask, h, state, cur, flags,
                                                 flags_mask))[0]

    def destroy_wq(self, h, comp_mask=0):
        res, resp = self.ex(EX_DESTROY_WQ, struct.pack("<II", comp_mask, h), 16)
        return res, struct.unpack("<4I", resp)

    def create_table(self, log, handles, comp_mask=0, pad=b""):
        body = struct.pack("<II", comp_mask, log) + b"".join(
            struct.pack("<I", h) for h in handles) + pad
        body += b"\0" * (-len(body) % 8)
        res, resp = self.ex(EX_CREATE_RWQ_IND_TBL, body, 16)
        return res, struct.unpack("<4I", resp)

    def table(self, log, handles):
        res, r = self.create_table(log, handles)
        must(res, "EX_CREATE_RWQ_IND_TBL")
        return r[2]

    def destroy_table(self, h, comp_mask=0):
        return self.ex(EX_DESTROY_RWQ_IND_TBL, struct.pack("<II", comp_mask, h))[0]

    def create_flow(self, qp, specs=(), kind=NORMAL, prio=0, port=1, flags=0,
                    comp_mask=0, num=None, size=None, reserved=0, tail=b""):
        blob = b"".join(specs)
        num = len(specs) if num is None else num
        size = len(blob) if size is None else size
        body = struct.pack("<IIIHHBBBBI", comp_mask, qp, kind, size, prio, num,
                           reserved, 0, port, flags) + blob + tail
        body += b"\0" * (-len(body) % 8)
        res, resp = self.ex(EX_CREATE_FLOW, body, 8)
        return res, struct.unpack("<II", resp)[1]

    def destroy_flow(self, h, comp_mask=0):
        return self.ex(EX_DESTROY_FLOW, struct.pack("<II", comp_mask, h))[0]

    def counters(self):
        res, buf = self.call(OBJ_COUNTERS, COUNTERS_CREATE, handle(0, 0),
                             driver_id=0)
        must(res, "COUNTERS_CREATE")
        return written(buf, 0)

    def destroy_counters(self, h):
        return self.call(OBJ_COUNTERS, COUNTERS_DESTROY, handle(0, h),
                         driver_id=0)[0]

    def modify_cq(self, cq, mask=1, cq_count=8, period=16, reserved=0):
        return self.ex(EX_MODIFY_CQ, struct.pack("<IIHHI", cq, mask, cq_count,
                                                 period, reserved))[0]

    def rss_parts(self, n=2):
        """A PD, a CQ and n WQs on them."""
        pd, cq = self.pd(), self.cq()
        return pd, cq, [self.wq(pd, cq) for _ in range(n)]


def flow_case(u, *specs, qp_type=QPT_UD, **kw):
    """A flow of specs on a fresh QP: the outcome, what the driver saw."""
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq, qp_type)
    res, _ = u.create_flow(qp, specs, **kw)
    return res if res != "ok" else "ok: " + last()


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# --- CREATE_FLOW: the rule as the driver gets it -------------------------

@case
def flow_eth_ipv4_udp(u):
    return flow_case(u, eth(), ipv4(), udp(), prio=3)


@case
def flow_on_raw_qp_eth_tcp_tag(u):
    return flow_case(u, eth(), udp(80, TCP), tag(), qp_type=QPT_RAW_PACKET)


@case
def flow_ipv6_label(u):
    return flow_case(u, eth(ether_type=0x86dd), ipv6())


@case
def flow_ipv6_label_wider_than_20_bits(u):
    return flow_case(u, ipv6(label=1 << 20))


@case
def flow_ipv6_mask_wider_than_20_bits(u):
    return flow_case(u, ipv6(label_mask=0xffffffff))


@case
def flow_inner_udp(u):
    return flow_case(u, eth(), spec(INNER | UDP, struct.pack(">HHHH", 53, 0, 0xffff, 0)))


@case
def flow_vxlan_vni(u):
    return flow_case(u, spec(VXLAN, struct.pack(">II", 0x42, 0xffffff)))


@case
def flow_vxlan_vni_wider_than_24_bits(u):
    return flow_case(u, spec(VXLAN, struct.pack(">II", 1 << 24, 0xffffff)))


@case
def flow_inner_vxlan(u):
    return flow_case(u, spec(INNER | VXLAN, struct.pack(">II", 0x42, 0xffffff)))


@case
def flow_no_specs_all_default(u):
    return flow_case(u, kind=ALL_DEFAULT)


@case
def flow_sniffer(u):
    return flow_case(u, kind=SNIFFER, flags=EGRESS)


@case
def flow_drop(u):
    return flow_case(u, eth(), spec(DROP, b""))


@case
def flow_shorter_filter_of_an_older_userspace(u):
    # an eth filter of 12 bytes: the MACs only
    return flow_case(u, spec(ETH, b"\2\0\0\0\0\1" + b"\0" * 6 + b"\xff" * 6 + b"\0" * 6))


@case
def flow_longer_filter_mask_zero_beyond(u):
    return flow_case(u, spec(UDP, struct.pack(">HH4x", 7, 0) + struct.pack(">HH4x", 0xffff, 0)))


@case
def flow_longer_filter_mask_set_beyond(u):
    return flow_case(u, spec(UDP, struct.pack(">HHI", 7, 0, 0) +
                             struct.pack(">HHI", 0xffff, 0, 1)))


@case
def flow_filter_halves_not_multiple_of_4(u):
    return flow_case(u, spec(UDP, b"\0" * 6 + b"\xff" * 6))


@case
def flow_empty_filter(u):
    return flow_case(u, spec(UDP, b""))


@case
def flow_spec_size_below_header(u):
    return flow_case(u, struct.pack("<IHH", UDP, 4, 0) + b"\0" * 8)


@case
def flow_spec_reserved_set(u):
    return flow_case(u, spec(UDP, struct.pack(">HHHH", 7, 0, 0xffff, 0), reserved=1))


@case
def flow_unknown_filter_type(u):
    return flow_case(u, spec(0x22, b"\0" * 8))


@case
def flow_unknown_action(u):
    return flow_case(u, spec(0x1007, b"\0" * 8))


@case
def flow_tag_of_wrong_size(u):
    return flow_case(u, spec(TAG, b"\0" * 4))


@case
def flow_action_handle_of_wrong_size(u):
    return flow_case(u, spec(HANDLE, b"\0" * 4))


@case
def flow_action_handle_no_such(u):
    return flow_case(u, spec(HANDLE, struct.pack("<II", NO_HANDLE, 0)))


@case
def flow_counters(u):
    c = u.counters()
    res = flow_case(u, eth(), count(c))
    return "%s; destroy counters under it %s" % (res, u.destroy_counters(c))


@case
def flow_counters_freed_with_the_flow(u):
    c = u.counters()
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq)
    res, f = u.create_flow(qp, [eth(), count(c)])
    must(res, "EX_CREATE_FLOW")
    return "destroy flow %s, then counters %s" % (u.destroy_flow(f),
                                                  u.destroy_counters(c))


@case
def flow_counters_no_such(u):
    return flow_case(u, count(NO_HANDLE))


@case
def flow_driver_refuses_counters_let_go(u):
    c = u.counters()
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq)
    fail_next("create_flow")
    res, _ = u.create_flow(qp, [eth(), count(c)])
    return "%s; destroy counters %s" % (res, u.destroy_counters(c))


@case
def flow_bad_spec_after_counters_let_go(u):
    c = u.counters()
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq)
    res, _ = u.create_flow(qp, [count(c), spec(UDP, b"")])
    return "%s; destroy counters %s" % (res, u.destroy_counters(c))


@case
def flow_comp_mask_set(u):
    return flow_case(u, eth(), comp_mask=1)


@case
def flow_flags_reserved(u):
    return flow_case(u, eth(), flags=8)


@case
def flow_dont_trap_on_default_rule(u):
    return flow_case(u, kind=MC_DEFAULT, flags=DONT_TRAP)


@case
def flow_11_specs(u):
    return flow_case(u, *([udp()] * 11))


@case
def flow_size_beyond_specs_limit(u):
    return flow_case(u, eth(), size=89)


@case
def flow_reserved_set(u):
    return flow_case(u, eth(), reserved=1)


@case
def flow_specs_fewer_than_counted(u):
    return flow_case(u, eth(), num=2)


@case
def flow_specs_more_than_counted(u):
    return flow_case(u, eth(), udp(), num=1)


@case
def flow_size_beyond_request(u):
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq)
    body = struct.pack("<IIIHHBBBBI", 0, qp, 0, 40, 0, 1, 0, 0, 1, 0)
    return u.ex(EX_CREATE_FLOW, body, 8)[0]


@case
def flow_nonzero_after_specs(u):
    return flow_case(u, udp(), tail=b"\1" + b"\0" * 7)


@case
def flow_port_2(u):
    return flow_case(u, eth(), port=2)


@case
def flow_on_rc_qp_refused_by_core(u):
    return flow_case(u, eth(), qp_type=2)


@case
def flow_qp_no_such(u):
    return u.create_flow(NO_HANDLE, [eth()])[0]


@case
def flow_request_short(u):
    return u.ex(EX_CREATE_FLOW, b"\0" * 16, 8)[0]


@case
def flow_destroy_twice(u):
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq)
    res, f = u.create_flow(qp, [eth()])
    must(res, "EX_CREATE_FLOW")
    return "%s %s" % (u.destroy_flow(f), u.destroy_flow(f))


@case
def flow_destroy_comp_mask(u):
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq)
    res, f = u.create_flow(qp, [eth()])
    must(res, "EX_CREATE_FLOW")
    return "%s; live %s" % (u.destroy_flow(f, comp_mask=1), live()[4])


@case
def flow_holds_its_qp(u):
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq)
    res, f = u.create_flow(qp, [eth()])
    must(res, "EX_CREATE_FLOW")
    destroy = u.write(27, struct.pack("<QII", u.resp_addr, qp, 0), 4)[0]
    return "qp %s; flow %s; qp %s" % (destroy, u.destroy_flow(f), u.write(
        27, struct.pack("<QII", u.resp_addr, qp, 0), 4)[0])


# --- WQs ------------------------------------------------------------------

@case
def wq_create(u):
    pd, cq = u.pd(), u.cq()
    res, r = u.create_wq(pd, cq, flags=2)
    return "%s max_wr %d max_sge %d wqn set %s: %s" % (res, r[3], r[4], r[5] > 0, last())


@case
def wq_type_refused_by_driver(u):
    pd, cq = u.pd(), u.cq()
    return u.create_wq(pd, cq, wq_type=1)[0]


@case
def wq_comp_mask(u):
    pd, cq = u.pd(), u.cq()
    return u.create_wq(pd, cq, comp_mask=1)[0]


@case
def wq_request_short_of_max_sge(u):
    pd, cq = u.pd(), u.cq()
    return u.create_wq(pd, cq, body_len=24)[0]


@case
def wq_request_without_flags(u):
    pd, cq = u.pd(), u.cq()
    return u.create_wq(pd, cq, body_len=32)[0]


@case
def wq_no_such_pd(u):
    return u.create_wq(NO_HANDLE, u.cq())[0]


@case
def wq_no_such_cq(u):
    return u.create_wq(u.pd(), NO_HANDLE)[0]


@case
def wq_driver_fails(u):
    pd, cq = u.pd(), u.cq()
    fail_next("create_wq")
    return u.create_wq(pd, cq)[0]


@case
def wq_modify_to_ready(u):
    pd, cq = u.pd(), u.cq()
    h = u.wq(pd, cq)
    res = u.modify_wq(h, WQ_STATE, state=WQS_RDY)
    first = last()
    res2 = u.modify_wq(h, WQ_FLAGS, flags=1, flags_mask=1)
    return "%s: %s; %s: %s" % (res, first, res2, last())


@case
def wq_modify_mask_zero(u):
    pd, cq = u.pd(), u.cq()
    return u.modify_wq(u.wq(pd, cq), 0)


@case
def wq_modify_mask_unknown(u):
    pd, cq = u.pd(), u.cq()
    return u.modify_wq(u.wq(pd, cq), 8)


@case
def wq_modify_state_past_err(u):
    pd, cq = u.pd(), u.cq()
    h = u.wq(pd, cq)
    res = u.modify_wq(h, WQ_STATE, state=3)
    # the WQ is still usable: a failed modify must not keep it claimed
    return "%s, then destroy %s" % (res, u.destroy_wq(h)[0])


@case
def wq_modify_cur_state_past_err(u):
    pd, cq = u.pd(), u.cq()
    h = u.wq(pd, cq)
    res = u.modify_wq(h, WQ_STATE | WQ_CUR_STATE, state=1, cur=7)
    return "%s, then destroy %s" % (res, u.destroy_wq(h)[0])


@case
def wq_modify_no_such(u):
    return u.modify_wq(NO_HANDLE, WQ_STATE, state=1)


@case
def wq_destroy(u):
    pd, cq = u.pd(), u.cq()
    res, r = u.destroy_wq(u.wq(pd, cq))
    return "%s response_length %d events %d" % (res, r[1], r[2])


@case
def wq_destroy_comp_mask(u):
    pd, cq = u.pd(), u.cq()
    return u.destroy_wq(u.wq(pd, cq), comp_mask=1)[0]


@case
def wq_destroy_twice(u):
    pd, cq = u.pd(), u.cq()
    h = u.wq(pd, cq)
    return "%s %s" % (u.destroy_wq(h)[0], u.destroy_wq(h)[0])


@case
def wq_holds_pd_and_cq(u):
    pd, cq = u.pd(), u.cq()
    h = u.wq(pd, cq)
    dpd = u.dealloc_pd(pd)
    dcq = u.write(20, struct.pack("<QII", u.resp_addr, cq, 0), 8)[0]
    return "pd %s cq %s; wq %s" % (dpd, dcq, u.destroy_wq(h)[0])


# --- indirection tables and RSS QPs ----------------------------------------

@case
def table_of_two(u):
    _, _, wqs = u.rss_parts(2)
    res, r = u.create_table(1, wqs)
    return "%s num set %s: %s" % (res, r[3] > 0, last().split(" wqns")[0])


@case
def table_names_a_wq_twice(u):
    _, _, wqs = u.rss_parts(1)
    return u.create_table(1, wqs * 2)[0]


@case
def table_log_size_14(u):
    return u.create_table(14, [])[0]


@case
def table_handles_missing(u):
    _, _, wqs = u.rss_parts(1)
    return u.create_table(2, wqs)[0]


@case
def table_nonzero_after_handles(u):
    _, _, wqs = u.rss_parts(2)
    return u.create_table(1, wqs, pad=b"\0" * 4 + b"\1" + b"\0" * 7)[0]


@case
def table_comp_mask(u):
    _, _, wqs = u.rss_parts(2)
    return u.create_table(1, wqs, comp_mask=1)[0]


@case
def table_no_such_wq(u):
    _, _, wqs = u.rss_parts(1)
    return u.create_table(1, wqs + [NO_HANDLE])[0]


@case
def table_handle_is_a_pd(u):
    pd, _, wqs = u.rss_parts(1)
    return u.create_table(1, wqs + [pd])[0]


@case
def table_driver_fails_wqs_free(u):
    _, _, wqs = u.rss_parts(2)
    fail_next("create_rwq_ind_table")
    res = u.create_table(1, wqs)[0]
    return "%s; destroy wqs %s" % (res, " ".join(u.destroy_wq(h)[0] for h in wqs))


@case
def table_holds_its_wqs(u):
    _, _, wqs = u.rss_parts(2)
    t = u.table(1, wqs)
    busy = u.destroy_wq(wqs[0])[0]
    return "wq %s; table %s; wq %s" % (busy, u.destroy_table(t), u.destroy_wq(wqs[0])[0])


@case
def table_destroy_comp_mask(u):
    _, _, wqs = u.rss_parts(1)
    return u.destroy_table(u.table(0, wqs), comp_mask=1)


@case
def table_destroy_twice(u):
    _, _, wqs = u.rss_parts(1)
    t = u.table(0, wqs)
    return "%s %s" % (u.destroy_table(t), u.destroy_table(t))


@case
def rss_qp(u):
    pd, cq, wqs = u.rss_parts(2)
    t = u.table(1, wqs)
    res, _ = u.create_qp(pd, cq, QPT_RAW_PACKET, table=t, send_wr=0, recv_wr=0,
                         recv_sge=0)
    return "%s: %s" % (res, last())


@case
def rss_qp_with_send_side(u):
    pd, cq, wqs = u.rss_parts(2)
    t = u.table(1, wqs)
    res, _ = u.create_qp(pd, cq, QPT_RAW_PACKET, table=t, recv_wr=0, recv_sge=0)
    return "%s: %s" % (res, last())


@case
def rss_qp_asks_receive_wrs(u):
    pd, cq, wqs = u.rss_parts(1)
    t = u.table(0, wqs)
    return u.create_qp(pd, cq, QPT_RAW_PACKET, table=t, send_wr=0)[0]


@case
def rss_qp_no_such_table(u):
    pd, cq = u.pd(), u.cq()
    return u.create_qp(pd, cq, QPT_RAW_PACKET, table=NO_HANDLE, send_wr=0,
                       recv_wr=0, recv_sge=0)[0]


@case
def rss_qp_holds_its_table(u):
    pd, cq, wqs = u.rss_parts(1)
    t = u.table(0, wqs)
    res, qp = u.create_qp(pd, cq, QPT_RAW_PACKET, table=t, send_wr=0,
                          recv_wr=0, recv_sge=0)
    must(res, "EX_CREATE_QP")
    busy = u.destroy_table(t)
    dqp = u.write(27, struct.pack("<QII", u.resp_addr, qp, 0), 4)[0]
    return "table %s; qp %s; table %s" % (busy, dqp, u.destroy_table(t))


# --- MODIFY_CQ ---------------------------------------------------------------

@case
def cq_moderation(u):
    res = u.modify_cq(u.cq(), cq_count=8, period=16)
    return "%s: %s" % (res, last())


@case
def cq_moderation_mask_zero(u):
    return u.modify_cq(u.cq(), mask=0)


@case
def cq_moderation_mask_unknown(u):
    return u.modify_cq(u.cq(), mask=2)


@case
def cq_moderation_reserved(u):
    return u.modify_cq(u.cq(), reserved=1)


@case
def cq_moderation_no_such_cq(u):
    return u.modify_cq(NO_HANDLE)


@case
def cq_moderation_driver_fails(u):
    cq = u.cq()
    fail_next("modify_cq")
    return u.modify_cq(cq)


# --- what outlives a case ------------------------------------------------------

@case
def exit_with_everything_open(u):
    pd, cq, wqs = u.rss_parts(2)
    t = u.table(1, wqs)
    u.create_qp(pd, cq, QPT_RAW_PACKET, table=t, send_wr=0, recv_wr=0, recv_sge=0)
    qp = u.qp(pd, cq)
    c = u.counters()
    u.create_flow(qp, [eth(), count(c)])
    return "live %s" % " ".join(live())


# Last: it removes the device.
@case
def removal_then_write_destroys(u):
    pd, cq, wqs = u.rss_parts(1)
    t = u.table(0, wqs)
    with open(PARAMS + "remove", "w") as f:
        f.write("1")
    table = u.destroy_table(t)
    wq = u.destroy_wq(wqs[0])[0]
    dcq = u.write(20, struct.pack("<QII", u.resp_addr, cq, 0), 8)[0]
    dpd = u.dealloc_pd(pd)
    again = u.dealloc_pd(pd)
    # The destroys succeed (libibverbs lets its side go); the rest is EIO.
    return "table %s wq %s cq %s pd %s, again %s; pd %s; live %s" % (
        table, wq, dcq, dpd, again,
        u.write(3, struct.pack("<Q", u.resp_addr), 4)[0], " ".join(live()))


def run(fn):
    """fn on a fresh context: its outcome and what is left after it."""
    try:
        u = F()
    except Failed as e:
        return "setup failed (%s)" % e
    try:
        res = fn(u)
    except Failed as e:
        res = "setup failed (%s)" % e
    finally:
        u.close()
    return "%s; left %s" % (res, " ".join(live()))


# Measured on the stock stack (scripts/vm --stock, OOT_STOCK=1):
# uverbs_flow.py measure
EXPECTED = {
    'flow_eth_ipv4_udp': 'ok: create_flow qp ud type 0 prio 3 port 1 flags 0x0 specs 3 size 112: 0x20/40 02:00:00:00:00:01/ff:ff:ff:ff:ff:ff 0800/ffff 0000 0x30/32 192.0.2.7/255.255.255.255 0.0.0.0 0x41/16 4791/0xffff; left 0 0 0 0 0 0',
    'flow_on_raw_qp_eth_tcp_tag': 'ok: create_flow qp raw type 0 prio 0 port 1 flags 0x0 specs 3 size 92: 0x20/40 02:00:00:00:00:01/ff:ff:ff:ff:ff:ff 0800/ffff 0000 0x40/16 80/0xffff 0x1000/12 tag 0x77; left 0 0 0 0 0 0',
    'flow_ipv6_label': 'ok: create_flow qp ud type 0 prio 0 port 1 flags 0x0 specs 2 size 152: 0x20/40 02:00:00:00:00:01/ff:ff:ff:ff:ff:ff 86dd/ffff 0000 0x31/88 2001:db8::1 label 0x12345/0xfffff; left 0 0 0 0 0 0',
    'flow_ipv6_label_wider_than_20_bits': 'EINVAL; left 0 0 0 0 0 0',
    'flow_ipv6_mask_wider_than_20_bits': 'EINVAL; left 0 0 0 0 0 0',
    'flow_inner_udp': 'ok: create_flow qp ud type 0 prio 0 port 1 flags 0x0 specs 2 size 80: 0x20/40 02:00:00:00:00:01/ff:ff:ff:ff:ff:ff 0800/ffff 0000 0x141/16 53/0xffff; left 0 0 0 0 0 0',
    'flow_vxlan_vni': 'ok: create_flow qp ud type 0 prio 0 port 1 flags 0x0 specs 1 size 40: 0x50/16 vni 0x42; left 0 0 0 0 0 0',
    'flow_vxlan_vni_wider_than_24_bits': 'EINVAL; left 0 0 0 0 0 0',
    'flow_inner_vxlan': 'EINVAL; left 0 0 0 0 0 0',
    'flow_no_specs_all_default': 'ok: create_flow qp ud type 1 prio 0 port 1 flags 0x0 specs 0 size 24:; left 0 0 0 0 0 0',
    'flow_sniffer': 'ok: create_flow qp ud type 3 prio 0 port 1 flags 0x4 specs 0 size 24:; left 0 0 0 0 0 0',
    'flow_drop': 'ok: create_flow qp ud type 0 prio 0 port 1 flags 0x0 specs 2 size 72: 0x20/40 02:00:00:00:00:01/ff:ff:ff:ff:ff:ff 0800/ffff 0000 0x1001/8; left 0 0 0 0 0 0',
    'flow_shorter_filter_of_an_older_userspace': 'ok: create_flow qp ud type 0 prio 0 port 1 flags 0x0 specs 1 size 64: 0x20/40 02:00:00:00:00:01/ff:ff:ff:ff:ff:ff 0000/0000 0000; left 0 0 0 0 0 0',
    'flow_longer_filter_mask_zero_beyond': 'ok: create_flow qp ud type 0 prio 0 port 1 flags 0x0 specs 1 size 40: 0x41/16 7/0xffff; left 0 0 0 0 0 0',
    'flow_longer_filter_mask_set_beyond': 'EINVAL; left 0 0 0 0 0 0',
    'flow_filter_halves_not_multiple_of_4': 'EINVAL; left 0 0 0 0 0 0',
    'flow_empty_filter': 'EINVAL; left 0 0 0 0 0 0',
    'flow_spec_size_below_header': 'EINVAL; left 0 0 0 0 0 0',
    'flow_spec_reserved_set': 'EINVAL; left 0 0 0 0 0 0',
    'flow_unknown_filter_type': 'EINVAL; left 0 0 0 0 0 0',
    'flow_unknown_action': 'EINVAL; left 0 0 0 0 0 0',
    'flow_tag_of_wrong_size': 'EINVAL; left 0 0 0 0 0 0',
    'flow_action_handle_of_wrong_size': 'ENOTSUP; left 0 0 0 0 0 0',
    'flow_action_handle_no_such': 'EINVAL; left 0 0 0 0 0 0',
    'flow_counters': 'ok: create_flow qp ud type 0 prio 0 port 1 flags 0x0 specs 2 size 80: 0x20/40 02:00:00:00:00:01/ff:ff:ff:ff:ff:ff 0800/ffff 0000 0x1003/16 counters yes; destroy counters under it EBUSY; left 0 0 0 0 0 0',
    'flow_counters_freed_with_the_flow': 'destroy flow ok, then counters ok; left 0 0 0 0 0 0',
    'flow_counters_no_such': 'ENOENT; left 0 0 0 0 0 0',
    'flow_driver_refuses_counters_let_go': 'EMSGSIZE; destroy counters ok; left 0 0 0 0 0 0',
    'flow_bad_spec_after_counters_let_go': 'EINVAL; destroy counters ok; left 0 0 0 0 0 0',
    'flow_comp_mask_set': 'EINVAL; left 0 0 0 0 0 0',
    'flow_flags_reserved': 'EINVAL; left 0 0 0 0 0 0',
    'flow_dont_trap_on_default_rule': 'EINVAL; left 0 0 0 0 0 0',
    'flow_11_specs': 'EINVAL; left 0 0 0 0 0 0',
    'flow_size_beyond_specs_limit': 'EINVAL; left 0 0 0 0 0 0',
    'flow_reserved_set': 'EINVAL; left 0 0 0 0 0 0',
    'flow_specs_fewer_than_counted': 'EINVAL; left 0 0 0 0 0 0',
    'flow_specs_more_than_counted': 'EINVAL; left 0 0 0 0 0 0',
    'flow_size_beyond_request': 'ENOSPC; left 0 0 0 0 0 0',
    'flow_nonzero_after_specs': 'ENOTSUP; left 0 0 0 0 0 0',
    'flow_port_2': 'EINVAL; left 0 0 0 0 0 0',
    'flow_on_rc_qp_refused_by_core': 'EINVAL; left 0 0 0 0 0 0',
    'flow_qp_no_such': 'ENOENT; left 0 0 0 0 0 0',
    'flow_request_short': 'ENOSPC; left 0 0 0 0 0 0',
    'flow_destroy_twice': 'ok ENOENT; left 0 0 0 0 0 0',
    'flow_destroy_comp_mask': 'EINVAL; live 1; left 0 0 0 0 0 0',
    'flow_holds_its_qp': 'qp EBUSY; flow ok; qp ok; left 0 0 0 0 0 0',
    'wq_create': 'ok max_wr 8 max_sge 2 wqn set True: create_wq type 0 max_wr 5 max_sge 2 flags 0x2 cq yes handler yes; left 0 0 0 0 0 0',
    'wq_type_refused_by_driver': 'EINVAL; left 0 0 0 0 0 0',
    'wq_comp_mask': 'ENOTSUP; left 0 0 0 0 0 0',
    'wq_request_short_of_max_sge': 'ok; left 0 0 0 0 0 0',
    'wq_request_without_flags': 'ok; left 0 0 0 0 0 0',
    'wq_no_such_pd': 'ENOENT; left 0 0 0 0 0 0',
    'wq_no_such_cq': 'ENOENT; left 0 0 0 0 0 0',
    'wq_driver_fails': 'EMSGSIZE; left 0 0 0 0 0 0',
    'wq_modify_to_ready': 'ok: modify_wq mask 0x1 cur 0 new 1 flags 0x0/0x0; ok: modify_wq mask 0x4 cur 1 new 1 flags 0x1/0x1; left 0 0 0 0 0 0',
    'wq_modify_mask_zero': 'EINVAL; left 0 0 0 0 0 0',
    'wq_modify_mask_unknown': 'EINVAL; left 0 0 0 0 0 0',
    'wq_modify_no_such': 'ENOENT; left 0 0 0 0 0 0',
    'wq_destroy': 'ok response_length 16 events 0; left 0 0 0 0 0 0',
    'wq_destroy_comp_mask': 'ENOTSUP; left 0 0 0 0 0 0',
    'wq_destroy_twice': 'ok ENOENT; left 0 0 0 0 0 0',
    'wq_holds_pd_and_cq': 'pd EBUSY cq EBUSY; wq ok; left 0 0 0 0 0 0',
    'table_of_two': 'ok num set True: create_rwq_ind_table log 1; left 0 0 0 0 0 0',
    'table_names_a_wq_twice': 'ok; left 0 0 0 0 0 0',
    'table_log_size_14': 'EINVAL; left 0 0 0 0 0 0',
    'table_handles_missing': 'ENOSPC; left 0 0 0 0 0 0',
    'table_nonzero_after_handles': 'ENOTSUP; left 0 0 0 0 0 0',
    'table_comp_mask': 'ENOTSUP; left 0 0 0 0 0 0',
    'table_no_such_wq': 'ENOENT; left 0 0 0 0 0 0',
    'table_handle_is_a_pd': 'EINVAL; left 0 0 0 0 0 0',
    'table_driver_fails_wqs_free': 'EMSGSIZE; destroy wqs ok ok; left 0 0 0 0 0 0',
    'table_holds_its_wqs': 'wq EBUSY; table ok; wq ok; left 0 0 0 0 0 0',
    'table_destroy_comp_mask': 'ENOTSUP; left 0 0 0 0 0 0',
    'table_destroy_twice': 'ok ENOENT; left 0 0 0 0 0 0',
    'rss_qp': 'ok: create_qp type 8 send_cq no recv_cq no table yes send_wr 0 recv_wr 0; left 0 0 0 0 0 0',
    'rss_qp_with_send_side': 'ok: create_qp type 8 send_cq yes recv_cq no table yes send_wr 16 recv_wr 0; left 0 0 0 0 0 0',
    'rss_qp_asks_receive_wrs': 'EINVAL; left 0 0 0 0 0 0',
    'rss_qp_no_such_table': 'ENOENT; left 0 0 0 0 0 0',
    'rss_qp_holds_its_table': 'table EBUSY; qp ok; table ok; left 0 0 0 0 0 0',
    'cq_moderation': 'ok: modify_cq count 8 period 16; left 0 0 0 0 0 0',
    'cq_moderation_mask_zero': 'EINVAL; left 0 0 0 0 0 0',
    'cq_moderation_mask_unknown': 'ENOTSUP; left 0 0 0 0 0 0',
    'cq_moderation_reserved': 'EINVAL; left 0 0 0 0 0 0',
    'cq_moderation_no_such_cq': 'ENOENT; left 0 0 0 0 0 0',
    'cq_moderation_driver_fails': 'EMSGSIZE; left 0 0 0 0 0 0',
    'exit_with_everything_open': 'live 1 2 2 1 1 1; left 0 0 0 0 0 0',
    'removal_then_write_destroys': 'table ok wq ok cq ok pd ok, again ENOENT; pd EIO; live 0 0 0 0 0 0; left 0 0 0 0 0 0',
}

# Where ours deliberately differs: the outcome on ours, and why.
OURS = {
}

# Cases stock cannot run: the outcome on ours, and why.
STOCK_CANNOT = {
    'wq_modify_state_past_err': (
        'EINVAL, then destroy ok; left 0 0 0 0 0 0',
        "stock's MODIFY_WQ returns -EINVAL for a state past IB_WQS_ERR with "
        "the WQ still claimed: the WQ cannot be destroyed, and closing the "
        "file WARNs in __uverbs_cleanup_ufile (a panic in the harness)"),
    'wq_modify_cur_state_past_err': (
        'EINVAL, then destroy ok; left 0 0 0 0 0 0',
        "the same for the current state"),
}


def main():
    uverbs_raw.DEV = uverbs_of("uvflow0")
    expected = dict(EXPECTED)
    cases = dict(CASES)
    if os.environ.get("OOT_STOCK") == "1":
        for name in STOCK_CANNOT:
            del cases[name]
    else:
        expected.update({name: want for name, (want, _) in OURS.items()})
        expected.update({name: want for name, (want, _) in STOCK_CANNOT.items()})
    return check_main(__doc__, cases, expected, run)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bad input to mlx5_0's raw packet QPs, WQs, RSS QPs and steering rules.

    mlx5_raw_input.py check     run every case; print "CASE: got X, want Y"
                                for each mismatch, then "done"; exit 1 on one
    mlx5_raw_input.py measure   print every case's outcome, as the EXPECTED
                                table below is written
    mlx5_raw_input.py hold DIR  make a raw packet QP with a verbs rule and a
                                matcher's rule, and an RSS QP over two WQs;
                                create DIR/ready, wait (60 s at most) for
                                DIR/go, then print "after: OUTCOME" of one
                                more ALLOC_PD (a removed device: EIO)

The commands are libmlx5's, built raw as uverbs_raw.py builds them (the
device is UVERBS_IBDEV, an mlx5 device): write() CREATE_QP of a raw
packet QP with mlx5_ib_create_qp, the extended CREATE_WQ with
mlx5_ib_create_wq, CREATE_RWQ_IND_TBL, the extended CREATE_QP over a
table with mlx5_ib_create_qp_rss, the extended CREATE_FLOW, and mlx5dv's
FLOW_MATCHER and CREATE_FLOW methods, each on a fresh context with one
field out of range (and one valid call of each, the control).  Every
outcome must be the one Debian's mlx5_ib gives on the stock stack
(EXPECTED, measured there with this script); OURS names the outcomes our
mlx5_ib gives by design instead.

Not a case: an mlx5dv rule with neither a QP nor a drop.  Debian's
mlx5_ib sends it to a destination the model does not offer, the model
refuses the entry, and mlx5_core WARNs on its way out of the failed add
(fs_core.c del_hw_fte(): an entry with destinations it never installed),
which panics a guest with panic_on_warn.  Ours answers EINVAL.
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
import uverbs_raw  # noqa: E402
from uverbs_raw import (EXTENDED, NS, Failed, Mlx5, Uverbs, attr,  # noqa: E402
                        handle, ptr_in, u64, written)
from uverbs_flow import (EX_CREATE_QP, EX_CREATE_WQ, EX_CREATE_RWQ_IND_TBL,  # noqa: E402
                         EX_CREATE_FLOW, EX_MODIFY_WQ, QPT_RAW_PACKET, UDP,
                         NORMAL, SNIFFER, DONT_TRAP, VXLAN, WQ_STATE, WQS_RDY,
                         eth, ipv4, spec, udp)

QPT_RC = 2
# enum mlx5_ib_create_qp flags
QP_FLAG_TUNNEL_OFFLOADS = 1 << 2
QP_FLAG_SELF_LB_MC = 1 << 7
QP_FLAG_UAR_PAGE_INDEX = 1 << 10
# enum mlx5_rx_hash_fields, mlx5_rx_hash_function_flags
SRC_IPV4, DST_IPV4, SRC_IPV6, DST_IPV6 = 1, 2, 4, 8
SRC_TCP, DST_TCP, SRC_UDP, DST_UDP = 16, 32, 64, 128
INNER = 1 << 31
TOEPLITZ = 1
# ib_qp_create_flags
BLOCK_MC_LOOPBACK, SCATTER_FCS = 1 << 1, 1 << 8
# mlx5dv's flow objects (mlx5_user_ioctl_cmds.h)
OBJ_FLOW = 9
MLX5_OBJ_MATCHER = NS + 3
FT_NIC_TX = 1
FLOW_FLAG_DROP = 2
# fte_match_param: the outer headers' smac, first
SMAC_MASK = b"\xff" * 6 + b"\0" * 58
SMAC = b"\x00\x11\x22\x33\x44\x55" + b"\0" * 58


class M(Uverbs):
    """A uverbs file of the mlx5 device with a context, libmlx5's arena
    and UAR (uverbs_raw.Mlx5), and the extended commands with driver
    data."""
    SQ_PAGE = 4         # the arena's pages: RQ at 0, SQ at 4, WQs at 8..

    def __init__(self):
        super().__init__()
        self.context()
        self.db_next = 0

    def doorbell(self):
        """A fresh doorbell record in the arena's last page."""
        self.db_next += 8
        return Mlx5().doorbell(self) + self.db_next

    def page(self, n):
        return Mlx5.arena(self) + n * 4096

    def ex(self, cmd, body, out_len=0, driver_in=b"", driver_out=0):
        """An extended command: its outcome and the core then driver
        response bytes."""
        body += b"\0" * (-len(body) % 8)
        driver_in += b"\0" * (-len(driver_in) % 8)
        hdr = struct.pack("<IHH", EXTENDED | cmd, len(body) // 8, out_len // 8)
        # No response pointer where no response is wanted (ib_uverbs
        # refuses one).
        response = self.resp_addr if out_len or driver_out else 0
        ex_hdr = struct.pack("<QHHI", response, len(driver_in) // 8,
                             driver_out // 8, 0)
        self.resp.raw = b"\0" * len(self.resp)
        res = self.raw(hdr + ex_hdr + body + driver_in)
        return res, self.resp.raw[:out_len + driver_out]

    # --- raw packet QPs (write() CREATE_QP) -----------------------------
    def raw_in(self, sq=64, rq=16, rq_shift=6, flags=QP_FLAG_UAR_PAGE_INDEX,
               sq_buf=None, uidx=1):
        # mlx5_ib_create_qp: the RQ's ring at buf_addr, the SQ's at sq_buf_addr
        if sq_buf is None:
            sq_buf = self.page(self.SQ_PAGE)
        return struct.pack("<QQIIIIIIQII", self.page(0), self.doorbell(), sq, rq,
                           rq_shift, flags, uidx, Mlx5.uar(self), sq_buf, 0, 0)

    def raw_qp(self, **driver):
        cq = self.cq()
        return self.create_qp(self.pd(), cq, cq, qp_type=QPT_RAW_PACKET,
                              driver_in=self.raw_in(**driver))

    def raw_qp_handle(self):
        res, resp = self.raw_qp()
        if res != "ok":
            raise Failed("raw packet QP: " + res)
        return struct.unpack_from("<I", resp)[0]

    # --- WQs, tables, RSS QPs --------------------------------------------
    def create_wq(self, pd, cq, count=16, shift=6, comp_mask=0, flags=0,
                  uidx=2, driver=True, wq_flags=0):
        body = struct.pack("<IIQIIIIII", 0, 0, 0x3e, pd, cq, count, 1, wq_flags, 0)
        drv = struct.pack("<QQIIIIIIII", self.page(8 + self.db_next // 8),
                          self.doorbell(), count, shift, uidx, flags, comp_mask,
                          0, 0, 0) if driver else b""
        res, resp = self.ex(EX_CREATE_WQ, body, 24, drv, 8)
        return res, struct.unpack_from("<I", resp, 8)[0]

    def wq(self, pd, cq):
        res, h = self.create_wq(pd, cq)
        if res != "ok":
            raise Failed("EX_CREATE_WQ: " + res)
        return h

    def table(self, handles, log):
        body = struct.pack("<II", 0, log) + b"".join(struct.pack("<I", h)
                                                     for h in handles)
        res, resp = self.ex(EX_CREATE_RWQ_IND_TBL, body, 16, b"", 8)
        if res != "ok":
            raise Failed("EX_CREATE_RWQ_IND_TBL: " + res)
        return struct.unpack_from("<I", resp, 8)[0]

    def rss_qp(self, wqs=1, fields=SRC_IPV4 | DST_IPV4 | SRC_UDP | DST_UDP,
               function=TOEPLITZ, key_len=40, comp_mask=0, flags=0,
               create_flags=0):
        pd, cq = self.pd(), self.cq()
        log = (wqs - 1).bit_length()
        tbl = self.table([self.wq(pd, cq) for _ in range(wqs)], log)
        # ib_uverbs_ex_create_qp over the table (comp_mask IND_TABLE)
        body = struct.pack("<QIIIIIIIIIBBBBIIII", 0x51, pd, 0, 0, 0, 0, 0, 0, 0,
                           0, 0, QPT_RAW_PACKET, 0, 0, 1, create_flags, tbl, 0)
        drv = struct.pack("<QBB6x128sII", fields, function, key_len,
                          bytes(range(1, 41)), comp_mask, flags)
        return self.ex(EX_CREATE_QP, body, 40, drv, 40)[0]

    # --- steering -----------------------------------------------------------
    def flow(self, qp, specs=(eth(),), kind=NORMAL, prio=0, flags=0):
        blob = b"".join(specs)
        body = struct.pack("<IIIHHBBBBI", 0, qp, kind, len(blob), prio,
                           len(specs), 0, 0, 1, flags) + blob
        return self.ex(EX_CREATE_FLOW, body, 8)[0]

    def matcher(self, mask=SMAC_MASK, prio=0, criteria=1, ft_type=None):
        """FLOW_MATCHER_CREATE: the outcome and the handle."""
        attrs = (handle(NS, 0) + ptr_in(NS + 1, mask) +
                 attr(NS + 2, prio, length=2) +
                 ptr_in(NS + 3, bytes([criteria])))
        if ft_type is not None:
            attrs += u64(NS + 5, ft_type)
        res, buf = self.call(MLX5_OBJ_MATCHER, NS, attrs)
        return res, written(buf, 0)

    def matcher_handle(self, **kw):
        res, m = self.matcher(**kw)
        if res != "ok":
            raise Failed("matcher: " + res)
        return m

    def dv_flow(self, matcher, qp=None, value=SMAC, flags=None):
        attrs = (handle(NS, 0) + ptr_in(NS + 1, value) + handle(NS + 4, matcher))
        if qp is not None:
            attrs += handle(NS + 2, qp)
        if flags is not None:
            attrs += ptr_in(NS + 9, struct.pack("<I", flags))
        res, buf = self.call(OBJ_FLOW, NS, attrs)
        return res, written(buf, 0)

    def destroy_matcher(self, h):
        return self.call(MLX5_OBJ_MATCHER, NS + 1, handle(NS, h))[0]


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# --- raw packet QPs -------------------------------------------------------
@case
def raw_qp(u):
    return u.raw_qp()[0]


@case
def raw_qp_receive_only(u):
    return u.raw_qp(sq=0)[0]


@case
def raw_qp_send_only(u):
    return u.raw_qp(rq=0)[0]


@case
def raw_qp_no_queues(u):
    return u.raw_qp(sq=0, rq=0)[0]


@case
def raw_qp_no_send_buffer(u):
    return u.raw_qp(sq_buf=0)[0]


@case
def raw_qp_send_buffer_unmapped(u):
    return u.raw_qp(sq_buf=uverbs_raw.unmapped())[0]


@case
def raw_qp_sq_of_3_wqebbs(u):
    return u.raw_qp(sq=3)[0]


@case
def raw_qp_rq_wqe_shift_40(u):
    return u.raw_qp(rq_shift=40)[0]


@case
def raw_qp_unknown_flag(u):
    return u.raw_qp(flags=QP_FLAG_UAR_PAGE_INDEX | 1 << 30)[0]


@case
def raw_qp_tunnel_offloads(u):
    return u.raw_qp(flags=QP_FLAG_UAR_PAGE_INDEX | QP_FLAG_TUNNEL_OFFLOADS)[0]


@case
def raw_qp_no_uar(u):
    return u.raw_qp(flags=0)[0]


@case
def raw_qp_driver_data_short(u):
    cq = u.cq()
    return u.create_qp(u.pd(), cq, cq, qp_type=QPT_RAW_PACKET,
                       driver_in=u.raw_in()[:16])[0]


# --- WQs --------------------------------------------------------------------
@case
def wq(u):
    return u.create_wq(u.pd(), u.cq())[0]


@case
def wq_striding(u):
    return u.create_wq(u.pd(), u.cq(), comp_mask=1)[0]


@case
def wq_of_0_wqes(u):
    return u.create_wq(u.pd(), u.cq(), count=0)[0]


@case
def wq_of_3_wqes(u):
    return u.create_wq(u.pd(), u.cq(), count=3)[0]


@case
def wq_stride_8_bytes(u):
    return u.create_wq(u.pd(), u.cq(), shift=3)[0]


@case
def wq_unknown_flag(u):
    return u.create_wq(u.pd(), u.cq(), flags=1 << 30)[0]


@case
def wq_without_driver_data(u):
    return u.create_wq(u.pd(), u.cq(), driver=False)[0]


@case
def wq_scatter_fcs(u):
    return u.create_wq(u.pd(), u.cq(), wq_flags=2)[0]


def wq_modify(u, comp_mask):
    """MODIFY_WQ to ready with libmlx5's mlx5_ib_modify_wq."""
    res, h = u.create_wq(u.pd(), u.cq())
    if res != "ok":
        raise Failed("EX_CREATE_WQ: " + res)
    body = struct.pack("<6I", WQ_STATE, h, WQS_RDY, 0, 0, 0)
    return u.ex(EX_MODIFY_WQ, body, 0, struct.pack("<II", comp_mask, 0))[0]


@case
def wq_modify_to_ready(u):
    return wq_modify(u, 0)


@case
def wq_modify_unknown_comp_mask(u):
    return wq_modify(u, 1)


# --- RSS QPs ----------------------------------------------------------------
@case
def rss_qp(u):
    return u.rss_qp()


@case
def rss_qp_over_2_wqs(u):
    return u.rss_qp(wqs=2)


@case
def rss_qp_ipv4_and_ipv6(u):
    return u.rss_qp(fields=SRC_IPV4 | DST_IPV6)


@case
def rss_qp_tcp_and_udp(u):
    return u.rss_qp(fields=SRC_IPV4 | SRC_TCP | DST_UDP)


@case
def rss_qp_key_of_16_bytes(u):
    return u.rss_qp(key_len=16)


@case
def rss_qp_no_function(u):
    return u.rss_qp(function=0)


@case
def rss_qp_inner(u):
    return u.rss_qp(fields=SRC_IPV4 | DST_IPV4 | INNER)


@case
def rss_qp_ipsec_spi(u):
    return u.rss_qp(fields=SRC_IPV4 | 1 << 8)


@case
def rss_qp_no_fields_one_wq(u):
    return u.rss_qp(fields=0)


@case
def rss_qp_no_fields_two_wqs(u):
    return u.rss_qp(wqs=2, fields=0)


@case
def rss_qp_unknown_comp_mask(u):
    return u.rss_qp(comp_mask=1)


@case
def rss_qp_unknown_flag(u):
    return u.rss_qp(flags=1 << 30)


@case
def rss_qp_scatter_fcs(u):
    return u.rss_qp(create_flags=SCATTER_FCS)


# --- the verbs' steering rules ---------------------------------------------
@case
def flow(u):
    return u.flow(u.raw_qp_handle())


@case
def flow_of_l2_l3_l4(u):
    return u.flow(u.raw_qp_handle(), specs=(eth(), ipv4(), udp(kind=UDP)))


@case
def flow_on_an_rc_qp(u):
    cq = u.cq()
    res, resp = u.create_qp(u.pd(), cq, cq, qp_type=QPT_RC)
    if res != "ok":
        raise Failed("RC QP: " + res)
    return u.flow(struct.unpack_from("<I", resp)[0])


@case
def flow_priority_7(u):
    return u.flow(u.raw_qp_handle(), prio=7)


@case
def flow_priority_8(u):
    return u.flow(u.raw_qp_handle(), prio=8)


@case
def flow_priority_15(u):
    return u.flow(u.raw_qp_handle(), prio=15)


@case
def flow_priority_16(u):
    return u.flow(u.raw_qp_handle(), prio=16)


@case
def flow_sniffer(u):
    return u.flow(u.raw_qp_handle(), specs=(), kind=SNIFFER)


@case
def flow_dont_trap(u):
    return u.flow(u.raw_qp_handle(), flags=DONT_TRAP)


@case
def flow_vxlan(u):
    return u.flow(u.raw_qp_handle(),
                  specs=(spec(VXLAN, struct.pack("<II", 7, 0xffffff)),))


@case
def flow_ipv4_fragments(u):
    # ib_uverbs_flow_ipv4_filter with the flags (MF, DF) masked
    val = b"\0" * 8 + b"\0\0\0\0"
    msk = b"\0" * 8 + b"\0\0\0\xff"
    return u.flow(u.raw_qp_handle(), specs=(spec(0x30, val + msk),))


# --- mlx5dv's matchers ------------------------------------------------------
@case
def matcher(u):
    return u.matcher()[0]


@case
def matcher_empty(u):
    return u.matcher(mask=b"\0" * 64, criteria=0)[0]


@case
def matcher_nic_tx(u):
    return u.matcher(ft_type=FT_NIC_TX)[0]


@case
def matcher_nic_tx_rule(u):
    m = u.matcher_handle(ft_type=FT_NIC_TX)
    return u.dv_flow(m, flags=FLOW_FLAG_DROP)[0]


@case
def matcher_priority_16(u):
    return u.matcher(prio=16)[0]


@case
def matcher_priority_16_rule(u):
    m = u.matcher_handle(prio=16)
    return u.dv_flow(m, qp=u.raw_qp_handle())[0]


@case
def matcher_mask_too_long(u):
    return u.matcher(mask=b"\0" * 4096)[0]


@case
def matcher_rule_to_raw_qp(u):
    m = u.matcher_handle()
    return u.dv_flow(m, qp=u.raw_qp_handle())[0]


@case
def matcher_rule_drop(u):
    m = u.matcher_handle()
    return u.dv_flow(m, flags=FLOW_FLAG_DROP)[0]


@case
def matcher_rule_value_outside_mask(u):
    m = u.matcher_handle()
    return u.dv_flow(m, qp=u.raw_qp_handle(), value=b"\0" * 12 + b"\x08\x00")[0]


@case
def matcher_destroyed_under_its_rule(u):
    m = u.matcher_handle()
    res, _ = u.dv_flow(m, qp=u.raw_qp_handle())
    if res != "ok":
        raise Failed("rule: " + res)
    return u.destroy_matcher(m)


# Debian's mlx5_ib on the stock stack (measured with "measure",
# scripts/vm --stock --hw mlx5, 2026-12-04).  Our mlx5_ib answers the same.
EXPECTED = {
    'raw_qp': 'ok',
    'raw_qp_receive_only': 'ok',
    'raw_qp_send_only': 'ok',
    'raw_qp_no_queues': 'EINVAL',
    'raw_qp_no_send_buffer': 'EFAULT',
    'raw_qp_send_buffer_unmapped': 'EFAULT',
    'raw_qp_sq_of_3_wqebbs': 'EINVAL',
    'raw_qp_rq_wqe_shift_40': 'EINVAL',
    'raw_qp_unknown_flag': 'EINVAL',
    'raw_qp_tunnel_offloads': 'EINVAL',
    'raw_qp_no_uar': 'EINVAL',
    'raw_qp_driver_data_short': 'EINVAL',
    'wq': 'ok',
    'wq_striding': 'ENOTSUP',
    'wq_of_0_wqes': 'EINVAL',
    'wq_of_3_wqes': 'ok',
    'wq_stride_8_bytes': 'EINVAL',
    'wq_unknown_flag': 'ok',
    'wq_without_driver_data': 'EINVAL',
    'wq_scatter_fcs': 'ENOTSUP',
    'wq_modify_to_ready': 'ok',
    'wq_modify_unknown_comp_mask': 'ENOTSUP',
    'rss_qp': 'ok',
    'rss_qp_over_2_wqs': 'ok',
    'rss_qp_ipv4_and_ipv6': 'EINVAL',
    'rss_qp_tcp_and_udp': 'EINVAL',
    'rss_qp_key_of_16_bytes': 'EINVAL',
    'rss_qp_no_function': 'ENOTSUP',
    'rss_qp_inner': 'ENOTSUP',
    'rss_qp_ipsec_spi': 'ok',
    'rss_qp_no_fields_one_wq': 'ok',
    'rss_qp_no_fields_two_wqs': 'EINVAL',
    'rss_qp_unknown_comp_mask': 'ENOTSUP',
    'rss_qp_unknown_flag': 'EINVAL',
    'rss_qp_scatter_fcs': 'EINVAL',
    'flow': 'ok',
    'flow_of_l2_l3_l4': 'ok',
    'flow_on_an_rc_qp': 'EINVAL',
    'flow_priority_7': 'ok',
    'flow_priority_8': 'ok',
    'flow_priority_15': 'ok',
    'flow_priority_16': 'ENOMEM',
    'flow_sniffer': 'ENOTSUP',
    'flow_dont_trap': 'ENOTSUP',
    'flow_vxlan': 'EINVAL',
    'flow_ipv4_fragments': 'ENOTSUP',
    'matcher': 'ok',
    'matcher_empty': 'ok',
    'matcher_nic_tx': 'ok',
    'matcher_nic_tx_rule': 'ENOTSUP',
    'matcher_priority_16': 'ok',
    'matcher_priority_16_rule': 'ENOMEM',
    'matcher_mask_too_long': 'EINVAL',
    'matcher_rule_to_raw_qp': 'ok',
    'matcher_rule_drop': 'ok',
    'matcher_rule_value_outside_mask': 'EINVAL',
    'matcher_destroyed_under_its_rule': 'EBUSY',
}

# Where ours answers otherwise, by design: nowhere.
OURS = {
}


def run(fn):
    try:
        u = M()
    except Failed as e:
        return "setup failed (%s)" % e
    try:
        return fn(u)
    except Failed as e:
        return "setup failed (%s)" % e
    finally:
        u.close()


def hold(where):
    """Objects of every kind above, held until the test says go."""
    u = M()
    qp = u.raw_qp_handle()
    res, m = u.matcher()
    for what, got in (("flow", u.flow(qp)), ("matcher", res),
                      ("rule", u.dv_flow(m, qp=qp)[0] if res == "ok" else res),
                      ("RSS QP", u.rss_qp(wqs=2))):
        if got != "ok":
            print("hold: %s: %s" % (what, got))
            return 1
    with open(os.path.join(where, "ready"), "w"):
        pass
    for _ in range(600):
        if os.path.exists(os.path.join(where, "go")):
            break
        time.sleep(0.1)
    print("after: " + u.write(uverbs_raw.ALLOC_PD,
                              struct.pack("<Q", u.resp_addr), 4)[0], flush=True)
    u.close()
    return 0


def main():
    uverbs_raw.DEV = uverbs_raw.uverbs_of(uverbs_raw.IBDEV)
    if len(sys.argv) == 3 and sys.argv[1] == "hold":
        return hold(sys.argv[2])
    want = dict(EXPECTED, **OURS) if uverbs_raw.ours_mlx5() else EXPECTED
    return uverbs_raw.check_main(__doc__, CASES, want, run)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""What a user UD QP on rxe0 may claim: its source address, its Q_Key.

    rxe_ud_av.py legacy SGID_INDEX OWN FOREIGN
    rxe_ud_av.py qkey

legacy: a UD send whose WQE carries the address vector itself (ah_num
0, as providers older than the AH number do), written into the mapped
send queue and rung with a bare POST_SEND, the way librxe does.  The
WQE names GID index SGID_INDEX, whose address is OWN (IPv6).  A
receiver UD QP on rxe0 (pyverbs) reports the source GID of the GRH of
what arrives within 2 s.  Three sends, one line each,
"CASE: <source GID or none>":
    honest   source OWN, destination OWN
    forged   source FOREIGN, destination OWN
    self     source and destination FOREIGN: rxe takes a source equal
             to the destination for this host and delivers it here
The kernel must take the source from its GID table: "honest: OWN",
"forged: OWN" and "self: none" (that one goes to the wire, as FOREIGN is
not this host's).

qkey: MODIFY_QP of a UD QP to INIT with Q_Key 0x80010000 (QP1's, which
lets its datagrams in as MADs) and with 0x00010000; prints
"privileged: ERRNO-or-ok" and "plain: ..." for the caller to judge with
and without CAP_NET_RAW.
"""
import ctypes
import mmap
import os
import socket
import struct
import sys
import time

import uverbs_raw as raw

QPS_INIT, QPS_RTR, QPS_RTS = 1, 2, 3
STATE, PKEY_INDEX, PORT, QKEY, SQ_PSN = 1, 16, 32, 64, 65536
QKEY_VALUE = 0x11
IB_WR_SEND = 2
RXE_NETWORK_TYPE_IPV6 = 2
# struct rxe_send_wqe (uapi rdma_user_rxe.h): wr.opcode at 12, the UD
# part at 24 (remote_qpn, remote_qkey, pkey_index, ah_num at 36), the AV
# at 56 (port_num, network_type, dmac, grh at +8: dgid, flow_label,
# sgid_index at +20, hop_limit; sgid_addr at +32, dgid_addr at +60, each
# a sockaddr_in6), dma at 184 (num_sge at +12).
WQE_AV = 56
# struct rxe_queue_buf: log2_elem_size, index_mask, then the producer
# index at 128, the consumer's at 256, the slots from 384.
PROD, DATA = 128, 384


def modify_body(qp, mask, state, qkey=0):
    """ib_uverbs_modify_qp: handle and mask at 64, qkey at 72, sq_psn at
    80, pkey_index at 92, qp_state at 96, port_num at 104; 112 bytes."""
    body = bytearray(112)
    struct.pack_into("<III", body, 64, qp, mask, qkey)
    struct.pack_into("<B", body, 96, state)
    struct.pack_into("<B", body, 104, 1)
    return bytes(body)


def modify(u, *args, **kw):
    return u.write(raw.MODIFY_QP, modify_body(*args, **kw))[0]


def sockaddr6(addr):
    return struct.pack("<HHI16sI", socket.AF_INET6, 0, 0,
                       socket.inet_pton(socket.AF_INET6, addr), 0)


def legacy_wqe(sgid_index, src, dst, dqpn):
    wqe = bytearray(208)
    struct.pack_into("<QI", wqe, 0, 0x1234, 0)
    struct.pack_into("<III", wqe, 12, IB_WR_SEND, 0, 0)
    struct.pack_into("<IIHxxI", wqe, 24, dqpn, QKEY_VALUE, 0, 0)
    struct.pack_into("<BB6x16sIBB", wqe, WQE_AV, 1, RXE_NETWORK_TYPE_IPV6,
                     socket.inet_pton(socket.AF_INET6, dst), 0, sgid_index,
                     64)
    wqe[WQE_AV + 32:WQE_AV + 60] = sockaddr6(src)
    wqe[WQE_AV + 60:WQE_AV + 88] = sockaddr6(dst)
    return bytes(wqe)


class Sender:
    """A UD QP through raw uverbs, its send queue mapped."""

    def __init__(self):
        self.u = raw.Uverbs()
        self.u.context()
        pd = self.u.pd()
        cq = self.u.cq()
        res, resp = self.u.create_qp(pd, cq, cq, raw.QPT_UD)
        if res != "ok":
            raise raw.Failed("CREATE_QP: " + res)
        self.qp = struct.unpack_from("<I", resp)[0]
        # rxe_create_qp_resp after the 32-byte response: rq_mi, sq_mi
        offset, size = struct.unpack_from("<QI", resp, 32 + 16)
        self.sq = mmap.mmap(self.u.fd, size, mmap.MAP_SHARED,
                            mmap.PROT_READ | mmap.PROT_WRITE,
                            offset=offset)
        for mask, state, qkey in ((STATE | PKEY_INDEX | PORT | QKEY,
                                   QPS_INIT, QKEY_VALUE),
                                  (STATE, QPS_RTR, 0),
                                  (STATE | SQ_PSN, QPS_RTS, 0)):
            res = modify(self.u, self.qp, mask, state, qkey)
            if res != "ok":
                raise raw.Failed("MODIFY_QP to %d: %s" % (state, res))

    def post(self, wqe):
        log2, mask = struct.unpack_from("<II", self.sq, 0)
        prod = struct.unpack_from("<I", self.sq, PROD)[0] & mask
        at = DATA + (prod << log2)
        self.sq[at:at + len(wqe)] = wqe
        struct.pack_into("<I", self.sq, PROD, (prod + 1) & mask)
        # what librxe rings: no WRs, the WR size it knows
        res = self.u.post_send_doorbell(self.qp, 128)
        if res != "ok":
            raise raw.Failed("POST_SEND: " + res)


class Receiver:
    """A UD QP through pyverbs that reports the GRH's source GID."""

    def __init__(self):
        from pyverbs import enums as e
        from pyverbs.cq import CQ
        from pyverbs.device import Context
        from pyverbs.mr import MR
        from pyverbs.pd import PD
        from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
        from pyverbs.wr import RecvWR, SGE
        self.e, self.RecvWR, self.SGE = e, RecvWR, SGE
        self.ctx = Context(name="rxe0")
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 4)
        cap = QPCap(max_send_wr=1, max_recv_wr=4)
        self.qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.cq,
                                         rcq=self.cq, cap=cap))
        attr = QPAttr(port_num=1)
        attr.qkey = QKEY_VALUE
        self.qp.to_rts(attr)
        self.mr = MR(self.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
        self.repost()

    def repost(self):
        self.qp.post_recv(self.RecvWR(num_sge=1, sg=[
            self.SGE(self.mr.buf, 4096, self.mr.lkey)]))

    def source(self, limit=2.0):
        end = time.monotonic() + limit
        while time.monotonic() < end:
            got, wcs = self.cq.poll(1)
            if got:
                self.repost()
                if wcs[0].status != self.e.IBV_WC_SUCCESS:
                    return "status %d" % wcs[0].status
                # the IPv6 header in front: its source address at 8
                grh = self.mr.read(40, 0)
                return socket.inet_ntop(socket.AF_INET6, grh[8:24])
            time.sleep(0.01)
        return "none"


def legacy(sgid_index, own, foreign):
    recv = Receiver()
    send = Sender()
    for case, src, dst in (("honest", own, own), ("forged", foreign, own),
                           ("self", foreign, foreign)):
        send.post(legacy_wqe(sgid_index, src, dst, recv.qp.qp_num))
        print("%s: %s" % (case, recv.source()), flush=True)
    return 0


def qkey():
    u = raw.Uverbs()
    u.context()
    pd = u.pd()
    cq = u.cq()
    for case, value in (("privileged", 0x80010000), ("plain", 0x00010000)):
        res, resp = u.create_qp(pd, cq, cq, raw.QPT_UD)
        if res != "ok":
            raise raw.Failed("CREATE_QP: " + res)
        qp = struct.unpack_from("<I", resp)[0]
        print("%s: %s" % (case, modify(u, qp, STATE | PKEY_INDEX | PORT |
                                       QKEY, QPS_INIT, value)))
    return 0


def main():
    try:
        if sys.argv[1] == "legacy":
            return legacy(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return qkey()
    except raw.Failed as err:
        print(err)
        return 1


sys.exit(main())

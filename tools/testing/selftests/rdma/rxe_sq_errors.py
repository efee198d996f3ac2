#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Send-queue completions and errors of the requester and completer, on rxe0.

    rxe_sq_errors.py CASE

Two RC QPs on rxe0 connected to each other through the loopback (GID 0).
Each case prints one line per observation, for the shell test to compare:

    ops        READ, FETCH_ADD and CMP_SWP complete with their opcode,
               byte_len and the data they fetched
    flush      sends posted to a QP in ERR complete with WR_FLUSH_ERR
    rnr        a SEND that finds no receive WQE, rnr_retry 0:
               RNR_RETRY_EXC_ERR, the QP in ERR, the next WQE flushed
    access     an RDMA WRITE with a bad rkey: REM_ACCESS_ERR, QP in ERR
    retry      a QP connected to a QP number nobody has, retry_cnt 1:
               RETRY_EXC_ERR after the retransmission timeouts
    unsignaled an unsignaled SEND that succeeds does not complete; one
               RNR NAKed (one receive WQE for two SENDs) does, with the
               error, and the next one flushes
    destroy    a QP destroyed with WQEs in flight (no completion asked)
"""
import signal
import struct
import sys
import time

from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.enums import (IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_ATOMIC,
                           IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_WRITE,
                           IBV_MTU_1024, IBV_QP_STATE, IBV_QPS_ERR,
                           IBV_QPT_RC, IBV_SEND_SIGNALED,
                           IBV_WR_ATOMIC_CMP_AND_SWP,
                           IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_RDMA_READ,
                           IBV_WR_RDMA_WRITE, IBV_WR_SEND)
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

ACCESS = (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
          IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
SIZE = 8192

STATUS = {0: "SUCCESS", 4: "LOC_PROT_ERR", 5: "WR_FLUSH_ERR",
          9: "REM_INV_REQ_ERR", 10: "REM_ACCESS_ERR", 11: "REM_OP_ERR",
          12: "RETRY_EXC_ERR", 13: "RNR_RETRY_EXC_ERR"}
OPCODE = {0: "SEND", 1: "RDMA_WRITE", 2: "RDMA_READ", 3: "COMP_SWAP",
          4: "FETCH_ADD"}
QPS = {0: "RESET", 1: "INIT", 2: "RTR", 3: "RTS", 4: "SQD", 5: "SQE",
       6: "ERR"}


class Side:
    """One RC QP with its CQ and an MR of SIZE bytes."""

    def __init__(self, ctx, pd, sig_all=1):
        self.cq = CQ(ctx, 64)
        self.mr = MR(pd, SIZE, ACCESS)
        cap = QPCap(max_send_wr=32, max_recv_wr=32, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                          cap=cap, sq_sig_all=sig_all)
        self.qp = QP(pd, init)

    def connect(self, ctx, dest_qpn, rnr_retry=7, retry_cnt=7, timeout=14):
        attr = QPAttr()
        attr.path_mtu = IBV_MTU_1024
        attr.dest_qp_num = dest_qpn
        attr.rq_psn = 0
        attr.sq_psn = 0
        attr.max_rd_atomic = 4
        attr.max_dest_rd_atomic = 4
        attr.min_rnr_timer = 1
        attr.timeout = timeout
        attr.retry_cnt = retry_cnt
        attr.rnr_retry = rnr_retry
        attr.qp_access_flags = ACCESS
        gr = GlobalRoute(dgid=ctx.query_gid(1, 0), sgid_index=0)
        attr.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
        self.qp.to_rts(attr)

    def state(self):
        attr, _ = self.qp.query(IBV_QP_STATE)
        return QPS.get(attr.qp_state, attr.qp_state)

    def post(self, wr_id, opcode, length=64, rkey=None, remote=None,
             signaled=True, **kw):
        sge = SGE(self.mr.buf, length, self.mr.lkey)
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                    send_flags=IBV_SEND_SIGNALED if signaled else 0)
        if opcode in (IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ):
            wr.set_wr_rdma(rkey, remote)
        elif opcode in (IBV_WR_ATOMIC_CMP_AND_SWP,
                        IBV_WR_ATOMIC_FETCH_AND_ADD):
            wr.set_wr_atomic(rkey, remote, kw.get("compare_add", 0),
                             kw.get("swap", 0))
        self.qp.post_send(wr)

    def recv(self, wr_id=0):
        sge = SGE(self.mr.buf, SIZE, self.mr.lkey)
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[sge]))

    def poll(self, n, secs=10):
        """Up to n completions, waiting at most secs for them."""
        got = []
        end = time.time() + secs
        while len(got) < n and time.time() < end:
            npolled, wcs = self.cq.poll(n - len(got))
            got += wcs[:npolled]
        return got


def wc_line(side, wc, data=False):
    line = "wr_id=%d %s" % (wc.wr_id, STATUS.get(wc.status, wc.status))
    if wc.status == 0:
        line += " %s byte_len=%d" % (OPCODE.get(wc.opcode, wc.opcode),
                                     wc.byte_len)
    if wc.qp_num != side.qp.qp_num:
        line += " qp_num=%#x?" % wc.qp_num
    return line


def pair(ctx, pd, **kw):
    a, b = Side(ctx, pd), Side(ctx, pd)
    a.connect(ctx, b.qp.qp_num, **kw)
    b.connect(ctx, a.qp.qp_num)
    return a, b


def case_ops(ctx, pd):
    a, b = pair(ctx, pd)
    b.mr.write(bytes(range(256)) * (SIZE // 256), SIZE)
    a.post(1, IBV_WR_RDMA_READ, SIZE, b.mr.rkey, b.mr.buf)
    for wc in a.poll(1):
        print(wc_line(a, wc))
    print("read data", "ok" if a.mr.read(SIZE, 0) == b.mr.read(SIZE, 0)
          else "differs")
    b.mr.write(struct.pack("<Q", 40), 8)
    a.post(2, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, b.mr.rkey, b.mr.buf,
           compare_add=2)
    a.post(3, IBV_WR_ATOMIC_CMP_AND_SWP, 8, b.mr.rkey, b.mr.buf,
           compare_add=42, swap=7)
    for wc in a.poll(2):
        print(wc_line(a, wc))
    print("orig", struct.unpack("<Q", a.mr.read(8, 0))[0],
          "now", struct.unpack("<Q", b.mr.read(8, 0))[0])


def case_flush(ctx, pd):
    a, b = pair(ctx, pd)
    attr = QPAttr()
    attr.qp_state = IBV_QPS_ERR
    a.qp.modify(attr, IBV_QP_STATE)
    for i in range(3):
        a.post(10 + i, IBV_WR_SEND)
    for wc in a.poll(4, secs=3):
        print(wc_line(a, wc))


def case_rnr(ctx, pd):
    a, b = pair(ctx, pd, rnr_retry=0)
    a.post(20, IBV_WR_SEND)
    for wc in a.poll(1):
        print(wc_line(a, wc))
    print("state", a.state())
    a.post(21, IBV_WR_SEND)
    for wc in a.poll(1):
        print(wc_line(a, wc))


def case_access(ctx, pd):
    a, b = pair(ctx, pd)
    a.post(30, IBV_WR_RDMA_WRITE, 64, b.mr.rkey ^ 0x80, b.mr.buf)
    for wc in a.poll(1):
        print(wc_line(a, wc))
    print("state", a.state())


def case_retry(ctx, pd):
    a, b = Side(ctx, pd), Side(ctx, pd)
    # 4.096 us * 2^10: about 4 ms a try.
    a.connect(ctx, 0xfff0, retry_cnt=1, timeout=10)
    a.post(40, IBV_WR_SEND)
    for wc in a.poll(1, secs=20):
        print(wc_line(a, wc))
    print("state", a.state())


def case_unsignaled(ctx, pd):
    a, b = Side(ctx, pd, sig_all=0), Side(ctx, pd)
    a.connect(ctx, b.qp.qp_num, rnr_retry=0)
    b.connect(ctx, a.qp.qp_num)
    b.recv(1)
    a.post(50, IBV_WR_SEND, signaled=False)
    a.post(51, IBV_WR_SEND, signaled=True)
    a.post(52, IBV_WR_SEND, signaled=False)
    for wc in a.poll(3, secs=5):
        print(wc_line(a, wc))


def case_destroy(ctx, pd):
    a, b = pair(ctx, pd)
    for i in range(16):
        a.post(60 + i, IBV_WR_RDMA_WRITE, SIZE, b.mr.rkey, b.mr.buf)
    a.qp.close()
    b.qp.close()
    print("destroyed")


def main():
    case = sys.argv[1]
    signal.alarm(50)
    with Context(name="rxe0") as ctx:
        pd = PD(ctx)
        globals()["case_" + case](ctx, pd)


if __name__ == "__main__":
    main()

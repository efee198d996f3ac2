#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Two threads replace one RC QP's primary path at once.

    verbs_modify_av_race.py SGID_A SGID_B ROUNDS

An RC QP on rxe0 is taken RESET -> INIT -> RTR -> RTS -> SQD; then two
threads each issue ROUNDS SQD -> SQD modifies with IB_QP_AV, one with
source GID index SGID_A, the other with SGID_B, on the same uverbs fd.
Each such modify puts the QP's reference to the old source GID entry and
takes one to the new.  MODIFY_QP holds the QP shared, so both threads are
in the kernel at once (os.write() releases the GIL): unserialised, both
put the same old entry and its count drifts until an entry the GID table
still holds is freed.  The kernel's complaint is the verdict; here every
modify must succeed.

Prints "ok N" (N modifies done) or what failed; exit 1 on a failure.
The destination GID is link-local, so no MAC resolution (no neighbour)
is involved.
"""
import os
import struct
import sys
import threading

import uverbs_raw as raw

# enum ib_qp_state
QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD = 0, 1, 2, 3, 4
# enum ib_qp_attr_mask
STATE, ACCESS_FLAGS, PKEY_INDEX, PORT = 1, 8, 16, 32
AV, PATH_MTU, TIMEOUT, RETRY_CNT, RNR_RETRY = 128, 256, 512, 1024, 2048
RQ_PSN, MAX_QP_RD_ATOMIC, MIN_RNR_TIMER = 4096, 8192, 32768
SQ_PSN, MAX_DEST_RD_ATOMIC, DEST_QPN = 65536, 131072, 1048576
MTU_1024 = 3
DGID = bytes.fromhex("fe80000000000000" "001122fffe334455")


def modify_body(qp, mask, state, sgid_index=0, dest_qpn=0):
    """ib_uverbs_modify_qp: dest and alt_dest (ib_uverbs_qp_dest, 32
    bytes each), then the handle and mask at 64, the PSNs and the
    destination QPN from 76, the states and the rest at 96; 112 bytes."""
    body = bytearray(112)
    struct.pack_into("<16sIHHBBBBBBBB", body, 0, DGID, 0, 0, 0, sgid_index,
                     64, 0, 0, 0, 0, 1, 1)
    struct.pack_into("<II", body, 64, qp, mask)
    struct.pack_into("<III", body, 76, 0, 0, dest_qpn)
    struct.pack_into("<BBBBBBBBBBBB", body, 96, state, 0, MTU_1024, 0, 0,
                     1, 1, 12, 1, 14, 7, 7)
    return struct.pack("<IHH", raw.MODIFY_QP, (8 + len(body)) // 4, 0) + body


def modify(u, *args, **kw):
    try:
        os.write(u.fd, modify_body(*args, **kw))
        return "ok"
    except OSError as e:
        return raw.errname(e.errno)


def main():
    sgid_a, sgid_b, rounds = (int(a) for a in sys.argv[1:4])
    u = raw.Uverbs()
    u.context()
    pd = u.pd()
    cq = u.cq()
    res, resp = u.create_qp(pd, cq, cq)
    if res != "ok":
        print("CREATE_QP: " + res)
        return 1
    qp, qpn = struct.unpack_from("<II", resp)

    steps = [
        ("INIT", STATE | PKEY_INDEX | PORT | ACCESS_FLAGS, QPS_INIT),
        ("RTR", STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN |
         MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER, QPS_RTR),
        ("RTS", STATE | TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN |
         MAX_QP_RD_ATOMIC, QPS_RTS),
        ("SQD", STATE, QPS_SQD),
    ]
    for name, mask, state in steps:
        res = modify(u, qp, mask, state, sgid_index=sgid_a, dest_qpn=qpn)
        if res != "ok":
            print("to %s: %s" % (name, res))
            return 1

    failures = []
    done = [0, 0]

    def worker(i, sgid_index):
        for _ in range(rounds):
            res = modify(u, qp, STATE | AV, QPS_SQD, sgid_index=sgid_index,
                         dest_qpn=qpn)
            if res != "ok":
                failures.append("SQD -> SQD with sgid %d: %s" %
                                (sgid_index, res))
                return
            done[i] += 1

    threads = [threading.Thread(target=worker, args=(0, sgid_a)),
               threading.Thread(target=worker, args=(1, sgid_b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    for f in failures:
        print(f)
    if u.write(raw.DESTROY_QP, struct.pack("<QII", u.resp_addr, qp, 0),
               4)[0] != "ok":
        failures.append("DESTROY_QP failed")
        print(failures[-1])
    u.close()
    if failures:
        return 1
    print("ok %d" % sum(done))
    return 0


sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Objects and their PDs destroyed back to back, for nldev_res_destroy_race.sh.

    nldev_res_destroy_race.py ROUNDS DIR

Two threads, each on its own open of /dev/infiniband/uverbs0, repeat at
most ROUNDS times, until DIR/done appears: a PD with a QP, the QP
destroyed and at once the PD; a PD with an SRQ, likewise; a PD with an
MR, likewise; a CQ created and destroyed.  "rdma res show" run meanwhile
holds the QP, SRQ or MR it is printing and reads its PD (and asks the
driver about the QP): the core must keep the object published no longer
than its PD is alive.  Every command must succeed.  DIR/ready appears
once the threads run.

Prints "ok N" (rounds done) or what failed; exit 1 on a failure.
"""
import mmap
import os
import struct
import sys
import threading

import uverbs_raw as raw

failures = []


def must(what, res):
    if res != "ok":
        raise raw.Failed("%s: %s" % (what, res))


def destroy(u, cmd, handle, out_len):
    must("destroy %d" % cmd,
         u.write(cmd, struct.pack("<QII", u.resp_addr, handle, 0), out_len)[0])


def churn(rounds, stop, done, i):
    u = raw.Uverbs()
    try:
        u.context()
        buf = raw.pages(1)
        cq = u.cq()
        for _ in range(rounds):
            if os.path.exists(stop):
                break
            pd = u.pd()
            qp = u.qp(pd, cq)
            destroy(u, raw.DESTROY_QP, qp, 4)
            must("DEALLOC_PD after QP", u.dealloc_pd(pd))

            pd = u.pd()
            srq = u.srq(pd)
            destroy(u, raw.DESTROY_SRQ, srq, 4)
            must("DEALLOC_PD after SRQ", u.dealloc_pd(pd))

            pd = u.pd()
            res, resp = u.write(raw.REG_MR, struct.pack(
                "<QQQQII", u.resp_addr, buf, mmap.PAGESIZE, buf, pd,
                raw.LOCAL_WRITE), 12)
            must("REG_MR", res)
            must("DEREG_MR", u.write(raw.DEREG_MR, struct.pack(
                "<I", struct.unpack_from("<I", resp)[0]))[0])
            must("DEALLOC_PD after MR", u.dealloc_pd(pd))

            destroy(u, raw.DESTROY_CQ, u.cq(), 8)
            done[i] += 1
        destroy(u, raw.DESTROY_CQ, cq, 8)
    except raw.Failed as e:
        failures.append(str(e))
    finally:
        u.close()


def main():
    rounds, ready = int(sys.argv[1]), sys.argv[2]
    done = [0, 0]
    stop = os.path.join(ready, "done")
    threads = [threading.Thread(target=churn, args=(rounds, stop, done, i))
               for i in range(2)]
    for t in threads:
        t.start()
    with open(os.path.join(ready, "ready"), "w", encoding="ascii"):
        pass
    for t in threads:
        t.join()
    for f in failures:
        print(f)
    if failures:
        return 1
    print("ok %d" % sum(done))
    return 0


sys.exit(main())

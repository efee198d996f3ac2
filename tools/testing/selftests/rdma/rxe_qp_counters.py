#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""QP counters ("rdma statistic qp") on one rxe device, with RC traffic
between two of its QPs (pyverbs) and the rdma tool for the rest.

    rxe_qp_counters.py [--dev A --gid N --peer B --peer-gid M] CASE

A and B must be the same device.  Cases:
    auto     auto mode by QP type: the RC pair shares one counter, a UD
             QP gets another, each listing its QPs and our pid; the
             pair's SEND counts once in its counter (rdma_sends,
             rdma_recvs) and the port's totals (rdma stat, sysfs) move
             by exactly what the counters counted; the criteria cannot
             change while counters exist (EBUSY); closed, the QPs take
             their counters with them and the port keeps what they
             counted
    manual   bind by QP number to a new counter and to that counter;
             refusals: a QP bound already, the kernel's QP 1, no such
             QP, no such counter, auto mode while bound, an unprivileged
             caller; unbinding one QP leaves the other counting (a SEND
             from the unbound QP to the bound one is one receive in the
             counter, one send in the port's own); unbinding the last
             frees the counter and the port leaves manual mode
    exit     a process that exits with QPs bound in auto mode: its
             counter goes with it, what it counted stays in the port's
A device without QP counters (stock's rxe: EOPNOTSUPP) exits 4.
"""
import json
import os
import subprocess

from pyverbs import enums as e
from pyverbs.mr import MR
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr

from rxe_traffic import (ACCESS_ALL, Absent, Failed, ok, pair, poll,
                         problem, recv_wr, run_cases, send_wr)

# The counters a QP's set shows (rxe_hw_counters.c), and those checked.
CHECKED = ("rcvd_pkts", "rdma_sends", "rdma_recvs")


def rdma(*args):
    """The rdma tool's status and output (stdout and stderr)."""
    p = subprocess.run(["rdma"] + list(args), capture_output=True,
                       text=True, check=False)
    return p.returncode, (p.stdout + p.stderr).strip()


def rdma_ok(*args):
    rc, out = rdma(*args)
    if rc:
        raise Failed("rdma %s: %d: %s" % (" ".join(args), rc, out))
    return out


def rdma_refused(why, want, *args):
    """The rdma command must fail, saying @want (strerror's words) if
    given."""
    rc, out = rdma(*args)
    if rc == 0 or (want and want not in out):
        problem("%s: rdma %s: %d, %r (want a failure saying %r)" %
                (why, " ".join(args), rc, out, want))


def link(a):
    return "%s/1" % a.dev


def port_stats(a):
    """rdma stat show link: the port's totals, by name."""
    rows = json.loads(rdma_ok("-j", "statistic", "show", "link", link(a)))
    return rows[0]


def sysfs(a, name):
    with open("/sys/class/infiniband/%s/ports/1/hw_counters/%s" %
              (a.dev, name)) as f:
        return int(f.read())


def qp_counters(a):
    out = rdma_ok("-j", "statistic", "qp", "show", "link", link(a))
    return json.loads(out) if out else []


def mode(a):
    return rdma_ok("statistic", "qp", "mode", "link", link(a))


def set_auto(a, *criteria):
    return rdma("statistic", "qp", "set", "link", link(a), "auto",
                *criteria)


def expect_mode(a, want):
    got = mode(a)
    if want not in got:
        problem("mode: %r, want %r" % (got, want))


def traffic(req, resp):
    """SEND 4 KiB, WRITE 8 KiB, READ 8 KiB, FETCH_ADD; one SEND, one
    receive."""
    n = 8192
    lmr = MR(req.pd, n, ACCESS_ALL)
    rmr = MR(resp.pd, n, ACCESS_ALL)
    resp.qp.post_recv(recv_wr(1, rmr, 0, 4096))
    req.qp.post_send(send_wr(1, e.IBV_WR_SEND, lmr, 0, 4096))
    ok(poll(req.cq)[0], "SEND")
    ok(poll(resp.cq)[0], "RECV")
    for op, name in ((e.IBV_WR_RDMA_WRITE, "WRITE"),
                     (e.IBV_WR_RDMA_READ, "READ")):
        wr = send_wr(2, op, lmr, 0, n)
        wr.set_wr_rdma(rmr.rkey, rmr.buf)
        req.qp.post_send(wr)
        ok(poll(req.cq)[0], name)
    wr = send_wr(4, e.IBV_WR_ATOMIC_FETCH_AND_ADD, lmr, 0, 8)
    wr.set_wr_atomic(rmr.rkey, rmr.buf, 1, 0)
    req.qp.post_send(wr)
    ok(poll(req.cq)[0], "FETCH_ADD")
    lmr.close()
    rmr.close()


def ud_qp(side):
    cap = QPCap(max_send_wr=4, max_recv_wr=4)
    attr = QPAttr()
    attr.qkey = 0x11111111
    return QP(side.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=side.cq,
                                  rcq=side.cq, cap=cap), attr)


def delta(after, before, names=CHECKED):
    return {n: int(after[n]) - int(before[n]) for n in names}


def counter_of(counters, qpn):
    for c in counters:
        if qpn in c.get("lqpn", []):
            return c
    return None


def check_totals(a, before, sys_before, counted):
    """The port's totals moved by exactly @counted, in rdma stat and in
    sysfs."""
    moved = delta(port_stats(a), before)
    if moved != counted:
        problem("rdma stat moved by %s, the counters counted %s" %
                (moved, counted))
    got = sysfs(a, "rcvd_pkts") - sys_before
    if got != counted["rcvd_pkts"]:
        problem("sysfs rcvd_pkts moved by %d, the counters counted %d" %
                (got, counted["rcvd_pkts"]))


def start_auto(a):
    rc, out = set_auto(a, "type", "on")
    if rc and "not supported" in out:
        raise Absent("auto mode: %s" % out)
    if rc:
        raise Failed("auto type on: %d: %s" % (rc, out))


def auto(a):
    if a.dev != a.peer:
        raise Failed("one device only")
    start_auto(a)
    expect_mode(a, "qp auto type on")
    if qp_counters(a):
        raise Failed("counters before any QP: %s" % qp_counters(a))

    before = port_stats(a)
    sys_before = sysfs(a, "rcvd_pkts")
    req, resp = pair(a, timeout=18)
    ud = ud_qp(req)
    traffic(req, resp)

    counters = qp_counters(a)
    rc = counter_of(counters, req.qp.qp_num)
    udc = counter_of(counters, ud.qp_num)
    if len(counters) != 2 or not rc or not udc or rc is udc:
        raise Failed("want an RC and a UD counter: %s" % counters)
    if sorted(rc["lqpn"]) != sorted([req.qp.qp_num, resp.qp.qp_num]):
        problem("RC counter lists %s, want %s" %
                (rc["lqpn"], [req.qp.qp_num, resp.qp.qp_num]))
    if rc.get("qp-type") != "RC" or udc.get("qp-type") != "UD":
        problem("qp-type: %s and %s" % (rc.get("qp-type"), udc.get("qp-type")))
    if rc.get("pid") != os.getpid():
        problem("RC counter pid %s, want %d" % (rc.get("pid"), os.getpid()))
    if (rc["rdma_sends"], rc["rdma_recvs"]) != (1, 1) or not rc["rcvd_pkts"]:
        problem("RC counter: %s" % rc)
    if "sent_pkts" in rc:
        problem("a QP counter shows the port's sent_pkts: %s" % rc)
    counted = {n: rc[n] + udc[n] for n in CHECKED}
    check_totals(a, before, sys_before, counted)

    rdma_refused("criteria changed while bound", "busy", "statistic", "qp",
                 "set", "link", link(a), "auto", "pid", "on")

    mid = port_stats(a)
    ud.close()
    req.close()
    resp.close()
    if qp_counters(a):
        problem("counters left after the QPs closed: %s" % qp_counters(a))
    if delta(port_stats(a), mid) != dict.fromkeys(CHECKED, 0):
        problem("the port lost the closed counters' counts: %s" %
                delta(port_stats(a), mid))
    rdma_ok("statistic", "qp", "set", "link", link(a), "auto", "off")
    expect_mode(a, "qp auto off")


def bind(a, *args):
    return rdma("statistic", "qp", "bind", "link", link(a), *args)


def manual(a):
    if a.dev != a.peer:
        raise Failed("one device only")
    rc, out = set_auto(a, "off")
    if rc and "not supported" in out:
        raise Absent("auto off: %s" % out)
    req, resp = pair(a, timeout=18)
    qa, qb = req.qp.qp_num, resp.qp.qp_num

    rc, out = bind(a, "lqpn", str(qa))
    if rc:
        raise Failed("bind lqpn %d: %s" % (qa, out))
    counters = qp_counters(a)
    if len(counters) != 1 or counters[0].get("lqpn") != [qa]:
        raise Failed("after binding %d: %s" % (qa, counters))
    cntn = counters[0]["cntn"]
    rc, out = bind(a, "lqpn", str(qb), "cntn", str(cntn))
    if rc:
        raise Failed("bind lqpn %d cntn %d: %s" % (qb, cntn, out))

    rdma_refused("a QP bound already", "busy", "statistic", "qp", "bind",
                 "link", link(a), "lqpn", str(qa))
    # QP 1 is the port's (restrack knows it by port and number): not found.
    rdma_refused("the kernel's QP 1", None, "statistic", "qp",
                 "bind", "link", link(a), "lqpn", "1")
    rdma_refused("no such QP", "No such file", "statistic", "qp", "bind",
                 "link", link(a), "lqpn", "999999")
    ud = ud_qp(req)
    rdma_refused("no such counter", "No such file", "statistic", "qp",
                 "bind", "link", link(a), "lqpn", str(ud.qp_num), "cntn",
                 str(cntn + 1000))
    rdma_refused("auto mode while bound", "busy", "statistic", "qp", "set",
                 "link", link(a), "auto", "type", "on")
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                        "--clear-groups", "rdma", "statistic", "qp", "bind",
                        "link", link(a), "lqpn", str(ud.qp_num)],
                       capture_output=True, text=True, check=False)
    if p.returncode == 0 or counter_of(qp_counters(a), ud.qp_num):
        problem("an unprivileged bind was not refused: %s" % p.stderr)
    ud.close()

    rdma_ok("statistic", "qp", "unbind", "link", link(a), "cntn", str(cntn),
            "lqpn", str(qa))
    counters = qp_counters(a)
    if len(counters) != 1 or counters[0].get("lqpn") != [qb]:
        raise Failed("after unbinding %d: %s" % (qa, counters))

    # A's SEND completes on the port's own; B's receive in the counter.
    before = port_stats(a)
    start = {n: counters[0][n] for n in CHECKED}
    mr_a = MR(req.pd, 4096, ACCESS_ALL)
    mr_b = MR(resp.pd, 4096, ACCESS_ALL)
    resp.qp.post_recv(recv_wr(1, mr_b, 0, 4096))
    req.qp.post_send(send_wr(1, e.IBV_WR_SEND, mr_a, 0, 4096))
    ok(poll(req.cq)[0], "SEND")
    ok(poll(resp.cq)[0], "RECV")
    c = qp_counters(a)[0]
    got = delta(c, start, ("rdma_sends", "rdma_recvs"))
    if got != {"rdma_sends": 0, "rdma_recvs": 1}:
        problem("B's counter moved by %s" % got)
    moved = delta(port_stats(a), before, ("rdma_sends", "rdma_recvs"))
    if moved != {"rdma_sends": 1, "rdma_recvs": 1}:
        problem("the port's totals moved by %s" % moved)
    mr_a.close()
    mr_b.close()

    rdma_ok("statistic", "qp", "unbind", "link", link(a), "cntn", str(cntn))
    if qp_counters(a):
        problem("counters after unbinding all: %s" % qp_counters(a))
    expect_mode(a, "qp auto off")
    # Back in mode none, auto mode may be had again.
    start_auto(a)
    rdma_ok("statistic", "qp", "set", "link", link(a), "auto", "off")
    req.close()
    resp.close()


def exit_bound(a):
    if a.dev != a.peer:
        raise Failed("one device only")
    start_auto(a)
    before = port_stats(a)
    pid = os.fork()
    if pid == 0:
        # Never closes anything: the exit must.
        code = 1
        try:
            req, resp = pair(a, timeout=18)
            traffic(req, resp)
            code = 0 if qp_counters(a) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        problem("the child failed: %d" % os.waitstatus_to_exitcode(status))
    if qp_counters(a):
        problem("counters left after the process exited: %s" %
                qp_counters(a))
    moved = delta(port_stats(a), before, ("rdma_sends", "rdma_recvs"))
    if moved != {"rdma_sends": 1, "rdma_recvs": 1}:
        problem("the port's totals moved by %s" % moved)
    rdma_ok("statistic", "qp", "set", "link", link(a), "auto", "off")


if __name__ == "__main__":
    raise SystemExit(run_cases({"auto": auto, "manual": manual,
                                "exit": exit_bound}, dev="rxe0",
                               peer="rxe0"))

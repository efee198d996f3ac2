#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""ib_uverbs under concurrency: the cases of uverbs_races.sh.

    uverbs_races.py churn        handle churn on one context
    uverbs_races.py busy         destroy versus use (EBUSY), twin destroys
    uverbs_races.py fork         children inheriting the fds exit
    uverbs_races.py close        the fds closed while threads issue commands
    uverbs_races.py killed       children in a create loop killed with -9
    uverbs_races.py removal DIR [port_err]
                                 threads create/destroy until the device
                                 goes; DIR/ready once they run, DIR/done
                                 (from the test) once rdma link del returned;
                                 port_err: the driver reports the port down
                                 (PORT_ERR, once or more) before the
                                 removal's DEVICE_FATAL

Each case prints what went wrong, a line a problem, then "CASE: N
problems" and a line of statistics; exit 1 on a problem.  Commands are
built by uverbs_raw.py and go to the device raw: os.write()
and fcntl.ioctl() release the GIL, so the threads are in the kernel at the
same time.  The work is bounded by iteration counts, never by time.
UVERBS_IBDEV names the device (rxe0 unless set; uverbs_raw.py's driver
data for mlx5_0 and for irdma's device).
"""
import ctypes
import errno
import os
import random
import select
import struct
import subprocess
import sys
import threading
import time

import uverbs_raw as raw

# ioctl objects and methods (include/uapi/rdma/ib_user_ioctl_cmds.h)
OBJ_PD, OBJ_CQ = 1, 3
PD_DESTROY, CQ_DESTROY = 0, 1
# enum ib_event_type
DEVICE_FATAL, PORT_ERR = 8, 10
# The debug tier's bounds grow with it (testing.rst, "Debug-kernel tier").
SCALE = int(os.environ.get("OOT_TIMEOUT_SCALE", "1"))

problems = []
problems_lock = threading.Lock()


def problem(msg):
    with problems_lock:
        problems.append(msg)


class Lane(raw.Uverbs):
    """A thread's way into a shared uverbs fd: the fd is the context's,
    the response buffer (which the kernel writes into) the thread's own."""

    def __init__(self, fd, async_fd=None):  # pylint: disable=super-init-not-called
        self.fd = fd
        self.async_fd = async_fd
        self.resp = ctypes.create_string_buffer(256)
        self.resp_addr = ctypes.addressof(self.resp)

    def alloc_pd(self):
        """(outcome, handle)"""
        res, resp = self.write(raw.ALLOC_PD, struct.pack("<Q", self.resp_addr),
                               4 + raw.DRIVER.pd_out)
        return res, struct.unpack_from("<I", resp)[0]

    def new_cq(self):
        res, resp = self.create_cq()
        return res, struct.unpack_from("<I", resp)[0]

    def destroy_cq(self, handle):
        return self.write(raw.DESTROY_CQ, struct.pack("<QII", self.resp_addr, handle, 0),
                          8)[0]

    def destroy_qp(self, handle):
        return self.write(raw.DESTROY_QP, struct.pack("<QII", self.resp_addr, handle, 0),
                          4)[0]

    def ioctl_destroy_pd(self, handle):
        return self.ioctl(OBJ_PD, PD_DESTROY, raw.attr(0, handle, length=0))

    def ioctl_destroy_cq(self, handle):
        # the response (ib_uverbs_destroy_cq_resp) is mandatory
        return self.ioctl(OBJ_CQ, CQ_DESTROY, raw.attr(0, handle, length=0) +
                          raw.attr(1, self.resp_addr, length=8))

    def destroy(self, kind, handle, by_ioctl):
        if kind == "pd":
            return self.ioctl_destroy_pd(handle) if by_ioctl else self.dealloc_pd(handle)
        return self.ioctl_destroy_cq(handle) if by_ioctl else self.destroy_cq(handle)

    def dereg_mr(self, handle):
        return self.write(raw.DEREG_MR, struct.pack("<I", handle))[0]

    def new_mr(self, pd, addr, length):
        res = self.reg_mr(pd, addr, length)
        return res, struct.unpack_from("<I", self.resp.raw)[0]


def open_context():
    u = raw.Uverbs()
    u.context()
    return u


def counts():
    """The device's object counts as rdma res shows them: {"pd": N, ...}"""
    out = subprocess.run(["rdma", "res", "show"], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) > 2 and f[1] == raw.IBDEV + ":":
            return dict(zip(f[2::2], map(int, f[3::2])))
    return {}


def expect_counts(what, want):
    """rdma res must show want; retried for 10 s (file release may finish
    in another task's exit work)."""
    got = counts()
    for _ in range(100):
        if got == want:
            return
        time.sleep(0.1)
        got = counts()
    problem("%s: rdma res %s, want %s" % (what, got, want))


def plus(base, **more):
    c = dict(base)
    for k, v in more.items():
        c[k] += v
    return c


def held(u, want):
    """want, and the objects the driver data of u's context made and
    keeps until it is closed (irdma's queue memory: uverbs_raw.Irdma)."""
    return plus(want, **raw.DRIVER.held(u.fd))


def run_threads(targets):
    threads = [threading.Thread(target=t) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


# --- 1: handle churn ----------------------------------------------------

CHURN_CREATORS, CHURN_ROUNDS = 4, 80
CHURN_DESTROYERS = 2
# what a destroy of a handle may answer: done, no such object, in use,
# an object of another type
DESTROY_OUTCOMES = ("ok", "ENOENT", "EBUSY", "EINVAL")


def churn():
    """4 threads create PDs and CQs and destroy them again, 2 destroy
    random handles of the range meanwhile: each object goes exactly once,
    whoever destroys it (a handle freed by one thread may be reused by
    another's object and destroyed by a third: the totals still match)."""
    base = counts()
    u = open_context()
    made = {"pd": 0, "cq": 0}
    gone = {"pd": 0, "cq": 0}
    stats = {"raced": 0}
    lock = threading.Lock()
    creators_left = [CHURN_CREATORS]

    def destroyed(kind, res, who):
        if res not in DESTROY_OUTCOMES:
            problem("%s: destroy %s: %s" % (who, kind, res))
        elif res == "ok":
            with lock:
                gone[kind] += 1

    def creator(seed):
        rnd = random.Random(seed)
        lane = Lane(u.fd)
        for _ in range(CHURN_ROUNDS):
            kind = rnd.choice(("pd", "cq"))
            res, handle = lane.alloc_pd() if kind == "pd" else lane.new_cq()
            if res != "ok":
                problem("creator: create %s: %s" % (kind, res))
                continue
            with lock:
                made[kind] += 1
            destroyed(kind, lane.destroy(kind, handle, rnd.random() < 0.5), "creator")
        with lock:
            creators_left[0] -= 1

    def destroyer(seed):
        rnd = random.Random(seed)
        lane = Lane(u.fd)
        while creators_left[0]:
            kind = rnd.choice(("pd", "cq"))
            res = lane.destroy(kind, rnd.randrange(16), rnd.random() < 0.5)
            if res == "ok":
                stats["raced"] += 1
            destroyed(kind, res, "destroyer")

    run_threads([lambda s=s: creator(s) for s in range(CHURN_CREATORS)] +
                [lambda s=s: destroyer(100 + s) for s in range(CHURN_DESTROYERS)])
    # What the destroyers took may have been another type's handle by
    # then: only the sum over the types is exact.
    if sum(made.values()) != sum(gone.values()):
        problem("created %s, destroyed %s" % (made, gone))
    expect_counts("context open", held(u, plus(base, ctx=1)))
    u.close()
    expect_counts("context closed", base)
    return "created %s, destroyed %s, %d by the destroyers" % (made, gone, stats["raced"])


# --- 2: destroy versus use ----------------------------------------------

BUSY_ROUNDS = 10
SPIN_BOUND = 1000000


losers = {}


def exactly_one_ok(what, outcomes):
    """The loser finds the object gone (ENOENT) or still being destroyed
    by the winner (EBUSY: stock's loser mostly sees that, measured)."""
    if sorted(outcomes) not in (["ENOENT", "ok"], ["EBUSY", "ok"]):
        problem("%s: %s, want one ok and one ENOENT or EBUSY" % (what, outcomes))
    for res in outcomes:
        if res != "ok":
            losers[res] = losers.get(res, 0) + 1


def twins(fn_a, fn_b):
    """fn_a and fn_b started together: their outcomes."""
    gate = threading.Barrier(2)
    out = [None, None]

    def one(i, fn):
        gate.wait()
        out[i] = fn()
    run_threads([lambda: one(0, fn_a), lambda: one(1, fn_b)])
    return out


def busy_round(u, rnd):
    a, b = Lane(u.fd), Lane(u.fd)
    pd, cq = u.pd(), u.cq()
    qp = u.qp(pd, cq)
    for what, res in (("DESTROY_CQ", a.destroy_cq(cq)),
                      ("CQ_DESTROY ioctl", a.ioctl_destroy_cq(cq)),
                      ("DEALLOC_PD", a.dealloc_pd(pd)),
                      ("PD_DESTROY ioctl", a.ioctl_destroy_pd(pd))):
        if res != "EBUSY":
            problem("%s of a QP's object: %s, want EBUSY" % (what, res))

    # The QP goes while the CQ is being destroyed: EBUSY until it is gone,
    # then exactly one ok.  The spin ends on the first answer that is not
    # EBUSY, or on an EBUSY to an attempt begun after the QP was gone.
    qp_gone = threading.Event()

    def qp_destroy():
        res = a.destroy_qp(qp)
        qp_gone.set()
        return res

    def cq_until_free():
        seen = []
        for _ in range(SPIN_BOUND):
            after_qp = qp_gone.is_set()
            seen.append(b.destroy("cq", cq, rnd.random() < 0.5))
            if seen[-1] != "EBUSY" or after_qp:
                break
        return seen
    qp_res, cq_seen = twins(qp_destroy, cq_until_free)
    if qp_res != "ok":
        problem("DESTROY_QP: %s" % qp_res)
    if cq_seen[-1] != "ok" or set(cq_seen[:-1]) - {"EBUSY"}:
        problem("CQ destroyed while its QP goes: %s" % cq_seen[-3:])

    # Two destroys of one object at once: one wins.
    exactly_one_ok("PD destroyed twice at once",
                   twins(lambda: a.dealloc_pd(pd), lambda: b.ioctl_destroy_pd(pd)))
    cq2 = u.cq()
    exactly_one_ok("CQ destroyed twice at once",
                   twins(lambda: a.destroy_cq(cq2), lambda: b.ioctl_destroy_cq(cq2)))
    return len(cq_seen) - 1


def busy():
    """A QP's CQ and PD refuse destruction with EBUSY while it exists."""
    base = counts()
    u = open_context()
    rnd = random.Random(2)
    waits = [busy_round(u, rnd) for _ in range(BUSY_ROUNDS)]
    expect_counts("objects destroyed", held(u, plus(base, ctx=1)))
    u.close()
    expect_counts("context closed", base)
    return "%d rounds; the CQ found busy in %d; twin destroys lost with %s" % (
        BUSY_ROUNDS, sum(1 for w in waits if w), losers)


# --- 3: fork ------------------------------------------------------------

def child(fn):
    pid = os.fork()
    if pid == 0:
        try:
            fn()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        problem("child: status %#x" % status)


def fork():
    """Children inherit the context's fds and exit, with them open or
    after closing them: the parent's context and objects are untouched."""
    base = counts()
    u = open_context()
    pd, cq = u.pd(), u.cq()
    buf = raw.pages(16)
    res, mr = Lane(u.fd).new_mr(pd, buf, 16 * raw.mmap.PAGESIZE)
    if res != "ok":
        problem("REG_MR: %s" % res)

    def closer():
        os.close(u.fd)
        os.close(u.async_fd)

    def user():
        # the same file, another task: write() refuses a task with other
        # credentials than the opener's (EACCES, as stock); ioctl() has no
        # such check and reaches the parent's context
        lane = Lane(u.fd)
        got = (lane.alloc_pd()[0], lane.ioctl_destroy_pd(raw.NO_HANDLE))
        if got != ("EACCES", "ENOENT"):
            print("child: write ALLOC_PD %s, ioctl PD_DESTROY of no handle %s; "
                  "want EACCES, ENOENT" % got, flush=True)
            os._exit(1)

    for fn in (lambda: None, closer, user, lambda: None):
        child(fn)

    expect_counts("after the children",
                  held(u, plus(base, ctx=1, pd=1, cq=1, mr=1)))
    lane = Lane(u.fd)
    steps = []
    qp = u.qp(pd, cq)
    steps.append(("DESTROY_QP", lane.destroy_qp(qp)))
    steps.append(("DEREG_MR", lane.dereg_mr(mr)))
    steps.append(("DEALLOC_PD", lane.dealloc_pd(pd)))
    steps.append(("DESTROY_CQ", lane.destroy_cq(cq)))
    for what, res in steps:
        if res != "ok":
            problem("parent's %s after the children: %s" % (what, res))
    # the async fd still belongs to the parent's context: no event there
    os.set_blocking(u.async_fd, False)
    try:
        os.read(u.async_fd, 16)
        problem("async fd: an event")
    except OSError as e:
        if e.errno != errno.EAGAIN:
            problem("async fd read: %s" % raw.errname(e.errno))
    expect_counts("parent's objects destroyed", held(u, plus(base, ctx=1)))
    u.close()
    expect_counts("context closed", base)
    return "4 children; the parent's context works"


# --- 4a: close versus calls ---------------------------------------------

CLOSE_THREADS = 3
CLOSE_BOUND = 100000


def close():
    """The context's fds are closed while threads allocate and destroy:
    each command either runs (ok) or finds the fd gone (EBADF), and the
    context with everything in it is gone once the last command returns."""
    base = counts()
    u = open_context()
    running = threading.Semaphore(0)
    seen = []

    def worker():
        lane = Lane(u.fd)
        outcomes = {}
        def note(res):
            outcomes[res] = outcomes.get(res, 0) + 1

        for i in range(CLOSE_BOUND):
            # some objects are left for the close to clean up
            res, pd = lane.alloc_pd()
            if res == "ok":
                res2, cq = lane.new_cq()
                note(res2)
                if res2 == "ok" and i % 2:
                    note(lane.destroy("cq", cq, i % 4 == 1))
                if i % 3:
                    note(lane.destroy("pd", pd, i % 3 == 1))
            note(res)
            if i == 20:
                running.release()
            if res == "EBADF":
                break
        with problems_lock:
            seen.append(outcomes)

    threads = [threading.Thread(target=worker) for _ in range(CLOSE_THREADS)]
    for t in threads:
        t.start()
    for _ in threads:
        running.acquire()
    os.close(u.async_fd)
    os.close(u.fd)
    for t in threads:
        t.join()
    for outcomes in seen:
        if set(outcomes) - {"ok", "EBADF"} or "EBADF" not in outcomes:
            problem("a thread saw %s, want ok then EBADF" % outcomes)
    expect_counts("both fds closed", base)
    return "threads saw %s" % seen


# --- 4b: a create loop, killed ------------------------------------------

KILLS = 4
LOOP_BOUND = 100000


def pins():
    """Pages pinned now, all users together."""
    with open("/proc/vmstat") as f:
        stat = dict(line.split() for line in f)
    return int(stat["nr_foll_pin_acquired"]) - int(stat["nr_foll_pin_released"])


def createloop(ready):
    """PDs, MRs (pinning 64 KiB each), CQs and QPs made and half of them
    destroyed again, round after round, until killed; a byte to ready
    after the second round."""
    u = open_context()
    lane = Lane(u.fd)
    buf = raw.pages(16)
    for i in range(LOOP_BOUND):
        pd, cq = u.pd(), u.cq()
        res, mr = lane.new_mr(pd, buf, 16 * raw.mmap.PAGESIZE)
        if res != "ok":
            raise raw.Failed("REG_MR: " + res)
        qp = u.qp(pd, cq)
        if i % 2:
            lane.destroy_qp(qp)
            lane.dereg_mr(mr)
        if i == 1:
            os.write(ready, b"r")


def vmpin(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmPin:"):
                return int(line.split()[1])
    return 0


def killed():
    """A child in the create loop is killed with SIGKILL, KILLS times, at
    varying points: each time rdma res and the page-pin balance return
    to where they were."""
    base, base_pins = counts(), pins()
    rnd = random.Random(4)
    for i in range(KILLS):
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            try:
                createloop(wfd)
            finally:
                os._exit(1)
        os.close(wfd)
        got_ready = os.read(rfd, 1)
        os.close(rfd)
        time.sleep(rnd.random() * 0.3)
        pinned = vmpin(pid) if got_ready else 0
        os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
        if not got_ready or status != 9:
            problem("round %d: the loop ended by itself (status %#x)" % (i, status))
        if pinned <= 0:
            problem("round %d: VmPin %d kB in the loop" % (i, pinned))
        expect_counts("round %d" % i, base)
        for _ in range(100):
            if pins() == base_pins:
                break
            time.sleep(0.1)
        else:
            problem("round %d: %d pages pinned, want %d" % (i, pins(), base_pins))
    return "%d kills" % KILLS


# --- 5: removal during activity ------------------------------------------

REMOVAL_THREADS = 3


def async_events(fd, bound):
    """The async events' types read from fd within bound seconds, up to
    DEVICE_FATAL (after it ours answers EIO, stock blocks)."""
    events = []
    end = time.monotonic() + bound
    while not events or events[-1] != DEVICE_FATAL:
        readable, _, _ = select.select([fd], [], [], max(0, end - time.monotonic()))
        if not readable:
            break
        try:
            event = os.read(fd, 16)
        except OSError as e:
            events.append(raw.errname(e.errno))
            break
        if len(event) != 16:
            events.append(event.hex())
            break
        events.append(struct.unpack_from("<I", event, 8)[0])
    return events


def removal(where, port_err=False):
    """Threads create and destroy while the test removes the device: each
    thread's next command after the removal fails with EIO, the async fd
    reports DEVICE_FATAL (with port_err after one PORT_ERR or more: a
    driver that reports its port down first), and the process exits
    normally."""
    u = open_context()
    stop = threading.Event()
    running = threading.Semaphore(0)
    last = []

    def worker(seed):
        rnd = random.Random(seed)
        lane = Lane(u.fd)
        res = None
        for i in range(LOOP_BOUND):
            if stop.is_set():
                break
            kind = rnd.choice(("pd", "cq"))
            res, handle = lane.alloc_pd() if kind == "pd" else lane.new_cq()
            if res == "ok":
                res = lane.destroy(kind, handle, rnd.random() < 0.5)
            if res != "ok":
                break
            if i == 10:
                running.release()
        # once the device is gone, whatever comes next is refused
        after = lane.alloc_pd()[0] if res == "ok" else res
        with problems_lock:
            last.append(after)
        running.release()

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(REMOVAL_THREADS)]
    for t in threads:
        t.start()
    for _ in threads:
        running.acquire()
    open(os.path.join(where, "ready"), "w").close()
    # The test removes the device now; the async fd says so, once the
    # driver's teardown has reached ib_uverbs: 20 s did not cover Debian's
    # mlx5_ib on the debug kernel on a loaded host (no event yet).
    start = time.monotonic()
    events = async_events(u.async_fd, 20 * SCALE)
    waited = time.monotonic() - start
    done = os.path.join(where, "done")
    for _ in range(200 * SCALE):
        if os.path.exists(done):
            break
        time.sleep(0.1)
    stop.set()
    for t in threads:
        t.join()
    first = events[:-1] if port_err else []
    if events[-1:] != [DEVICE_FATAL] or set(first) - {PORT_ERR} or \
            (port_err and not first) or (not port_err and len(events) != 1):
        problem("async events %s, want %s%d (DEVICE_FATAL)" %
                (events, "%d (PORT_ERR) and more, then " % PORT_ERR if port_err else "",
                 DEVICE_FATAL))
    if last != ["EIO"] * REMOVAL_THREADS:
        problem("after the removal the threads saw %s, want EIO each" % last)
    u.close()
    return "the threads ended with %s; the events %s after %.1f s" % (last, events, waited)


def main():
    cases = {"churn": churn, "busy": busy, "fork": fork, "close": close,
             "killed": killed}
    args = sys.argv[1:]
    if "UVERBS_IBDEV" in os.environ:
        raw.DEV = raw.uverbs_of(raw.IBDEV)
    if len(args) == 1 and args[0] in cases:
        stats = cases[args[0]]()
    elif len(args) == 2 and args[0] == "removal":
        stats = removal(args[1])
    elif len(args) == 3 and args[0] == "removal" and args[2] == "port_err":
        stats = removal(args[1], port_err=True)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    print("%s: %d problems; %s" % (args[0], len(problems), stats))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Verbs users of rxe0 for the core lifetime tests.

    core_verbs_churn.py gids SECONDS
        Until SECONDS pass: read the GID table (QUERY_GID_TABLE) and make
        and destroy an address handle on every GID it lists (each AH holds
        a GID attr, dropped at destroy), while the caller adds and deletes
        addresses.  Prints "ok TABLES AHS"; exits 1 on an unexpected error
        (a GID deleted under us is expected: EINVAL, ENOENT, ENODATA...).

    core_verbs_churn.py port-events N PEER
        Takes the link of PEER (the veth peer of rxe0's netdev) down and
        up N times, each time waiting for the port state to follow, and
        checks that the async event fd delivered PORT_ERR, PORT_ACTIVE,
        ... exactly in that order.  Prints "ok N" or what differed.
"""
import errno
import os
import select
import signal
import subprocess
import sys
import time

from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError

# enum ib_event_type
PORT_ACTIVE, PORT_ERR = 9, 10
STATE = "/sys/class/infiniband/rxe0/ports/1/state"
# A GID that vanished between the table read and the AH.
GONE = {errno.EINVAL, errno.ENOENT, errno.ENODATA, errno.EAGAIN,
        errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ETIMEDOUT}


def gids(seconds):
    tables = ahs = 0
    end = time.monotonic() + seconds
    with Context(name="rxe0") as ctx, PD(ctx) as pd:
        while time.monotonic() < end:
            entries = ctx.query_gid_table(16)
            tables += 1
            for e in entries:
                gr = GlobalRoute(dgid=ctx.query_gid(1, 0),
                                 sgid_index=e.gid_index)
                try:
                    AH(pd, attr=AHAttr(port_num=1, is_global=1,
                                       gr=gr)).close()
                    ahs += 1
                except PyverbsRDMAError as ex:
                    if ex.error_code not in GONE:
                        print("AH on GID %d: %s" %
                              (e.gid_index,
                               errno.errorcode.get(ex.error_code,
                                                   ex.error_code)))
                        return 1
                except PyverbsError:
                    pass
    print("ok %d %d" % (tables, ahs))
    return 0


def port_state():
    with open(STATE) as f:
        return f.read().split(":")[1].strip()


def wait_state(want, secs=15):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if port_state() == want:
            return True
        time.sleep(0.05)
    return False


def event_reader(wfd):
    """Child: report rxe0's port events on @wfd, one byte each."""
    ctx = Context(name="rxe0")
    os.write(wfd, b"R")
    while True:
        ev = ctx.get_async_event()
        if ev.event_type in (PORT_ACTIVE, PORT_ERR):
            os.write(wfd, bytes([ev.event_type]))
        ev.ack()


def port_events(n, peer):
    """pyverbs blocks in get_async_event() with the interpreter locked:
    the reader is a child process."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        try:
            event_reader(wfd)
        finally:
            os._exit(1)
    os.close(wfd)
    try:
        return port_events_parent(n, peer, rfd)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def read_events(rfd, want_len, secs):
    got = b""
    end = time.monotonic() + secs
    while len(got) < want_len and time.monotonic() < end:
        readable, _, _ = select.select([rfd], [], [], 0.2)
        if readable:
            data = os.read(rfd, 64)
            if not data:
                break
            got += data
    return got


def port_events_parent(n, peer, rfd):
    if read_events(rfd, 1, 30) != b"R":
        print("the event reader did not start")
        return 1
    if not wait_state("ACTIVE"):
        print("rxe0 port 1 is not ACTIVE to begin with")
        return 1
    for _ in range(n):
        subprocess.run(["ip", "link", "set", peer, "down"], check=True)
        if not wait_state("DOWN"):
            print("port never went DOWN")
            return 1
        subprocess.run(["ip", "link", "set", peer, "up"], check=True)
        if not wait_state("ACTIVE"):
            print("port never came back ACTIVE")
            return 1
    want = [PORT_ERR, PORT_ACTIVE] * n
    got = list(read_events(rfd, len(want), 10))
    # Anything more would show in a moment.
    got += list(read_events(rfd, 1, 0.5))
    if got != want:
        print("events %s, want %s" % (got, want))
        return 1
    print("ok %d" % n)
    return 0


def main():
    if sys.argv[1] == "gids":
        return gids(float(sys.argv[2]))
    return port_events(int(sys.argv[2]), sys.argv[3])


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    os._exit(rc)

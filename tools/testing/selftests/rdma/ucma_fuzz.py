#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""write()-level fuzz of /dev/infiniband/rdma_cm (rdma_ucm): the cases of
ucma_fuzz.sh, without librdmacm.

    ucma_fuzz.py write     the dispatcher: short writes, unreadable
                           headers, bad command numbers, "in" past the
                           buffer, GET_OPTION; a write returns its length
    ucma_fuzz.py ids       every command naming -1, a destroyed id and
                           another file's id; MIGRATE_ID's fd checks
    ucma_fuzz.py sizes     short and long "in" and "out" of every command
    ucma_fuzz.py pointers  unmapped response and option pointers
    ucma_fuzz.py creds     writes from a thread (allowed), a forked child
                           and a forked child turned nobody (EACCES)
    ucma_fuzz.py state     (rxe0 on ADDR) rdma_cm state abuse, events,
                           SET_OPTION, multicast, MIGRATE_ID with events
    ucma_fuzz.py connreq   (rxe0 on ADDR) connect requests left unread
                           when the listener is destroyed, closed or
                           migrated
    ucma_fuzz.py resolve   (rxe0 on ADDR) RESOLVE_ADDR to ADDR, to an
                           on-link address nobody answers (UNREACH) and
                           to one without a route (NOROUTE), and
                           RESOLVE_ROUTE, each destroyed or closed at
                           once, many times; how UNREACH and NOROUTE end
                           when left alone
    ucma_fuzz.py resolve_wait  (rxe0) RESOLVE_ADDR to UNREACH with a
                           minute's timeout: no event while nobody
                           answers, ADDR_RESOLVED at once when a
                           neighbour entry for it is made by hand
    ucma_fuzz.py autobind_race (rxe0) RESOLVE_ADDR with a source
                           address on fresh ids while ucma_fuzz.sh
                           removes and adds rxe0
    ucma_fuzz.py resolve_cancel (rxe0 on ADDR) RESOLVE_ADDR to UNREACH,
                           rxe0 removed, DESTROY_ID; RESOLVE_ADDR to an
                           address with no RDMA device behind it, again
                           as soon as its ADDR_ERROR binds the id again,
                           DESTROY_ID at once
    ucma_fuzz.py listen_race   (rxe0) a thread connecting, another
                           creating a listener and destroying or closing
                           it at random points
    ucma_fuzz.py migrate_race  (rxe0) MIGRATE_ID of resolving ids
                           between two files in one thread while another
                           closes either file
    ucma_fuzz.py mcast     (rxe0) one group joined twice by one id (a
                           leave leaves the join it names: the IP group,
                           the events), by two ids and two files; join
                           then leave, destroy or close at once, many
                           times
    ucma_fuzz.py path_bind (rxe0 on ADDR) SET_OPTION(IB_PATH) in a loop
                           while another thread BINDs the id to a held
                           port (the device attached, then detached)
    ucma_fuzz.py event_stall   (rxe0) GET_EVENT into an unserved
                           userfaultfd page (a child process), while a
                           connect on other files must complete
    ucma_fuzz.py migrate_wild  (rxe0) a wildcard listener moved back
                           and forth between two files by MIGRATE_ID
                           while another thread connects to it; then
                           DESTROY_ID, and GET_EVENT on the other file
    ucma_fuzz.py ... --measure   print each case's errno instead of
                           checking it (to write the expectations from a
                           --stock run)

Every request is written so that it ends where an unmapped page begins:
a request shorter than the command's structure makes the kernel read into
that page (stock reads fixed-size requests whole, whatever "in" says).

The expected errnos are stock's, measured on --stock.  Where ours is
deliberately different, the case asserts ours and, with OOT_STOCK=1 in
the environment, prints why it skips that check on stock.  Each case
prints what went wrong, one line a problem; exit 1 on a problem.
The race cases print how many rounds they ran (UCMA_ROUNDS, default 50,
fewer once UCMA_RACE_SECS pass) and their random seed (UCMA_SEED).
"""
import ctypes
import errno
import mmap
import os
import pwd
import random
import select
import socket
import struct
import subprocess
import sys
import threading
import time

DEV = "/dev/infiniband/rdma_cm"
ADDR = os.environ.get("UCMA_ADDR", "10.200.0.1")
STOCK = os.environ.get("OOT_STOCK") == "1"
MCAST = os.environ.get("UCMA_MCAST", "239.1.2.3")
PAGE = mmap.PAGESIZE

(CREATE_ID, DESTROY_ID, BIND_IP, RESOLVE_IP, RESOLVE_ROUTE, QUERY_ROUTE,
 CONNECT, LISTEN, ACCEPT, REJECT, DISCONNECT, INIT_QP_ATTR, GET_EVENT,
 GET_OPTION, SET_OPTION, NOTIFY, JOIN_IP_MCAST, LEAVE_MCAST, MIGRATE_ID,
 QUERY, BIND, RESOLVE_ADDR, JOIN_MCAST) = range(23)
NCMDS = 23

PS_TCP, PS_UDP, PS_IB = 0x0106, 0x0111, 0x013F
QUERY_ADDR, QUERY_PATH, QUERY_GID = 0, 1, 2
OPTION_ID, OPTION_IB = 0, 1
OPT_TOS, OPT_REUSEADDR, OPT_AFONLY, OPT_ACK_TIMEOUT = 0, 1, 2, 3
OPT_IB_PATH = 1
AF_IB = 27
# enum rdma_cm_event_type
EV_ADDR_RESOLVED, EV_CONNECT_REQUEST, EV_MULTICAST_JOIN = 0, 4, 12
EV_REJECTED, EV_UNREACHABLE, EV_CONNECT_ERROR = 8, 7, 6
EV_ADDR_ERROR, EV_ROUTE_RESOLVED = 1, 2
EV_DEVICE_REMOVAL = 11
EV_NAMES = ("ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
            "CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR",
            "UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED",
            "DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR",
            "ADDR_CHANGE", "TIMEWAIT_EXIT")

# sizeof()/offsetof() of include/uapi/rdma/rdma_user_cm.h (x86_64)
SZ = {
    CREATE_ID: 24, DESTROY_ID: 16, BIND_IP: 40, RESOLVE_IP: 64,
    RESOLVE_ROUTE: 8, QUERY_ROUTE: 16, CONNECT: 288, LISTEN: 8,
    ACCEPT: 296, REJECT: 264, DISCONNECT: 4, INIT_QP_ATTR: 16,
    GET_EVENT: 8, SET_OPTION: 24, NOTIFY: 8, JOIN_IP_MCAST: 48,
    LEAVE_MCAST: 16, MIGRATE_ID: 16, QUERY: 16, BIND: 136,
    RESOLVE_ADDR: 272, JOIN_MCAST: 152,
}
CONNECT_NO_ECE, ACCEPT_NO_ECE = 280, 288	# offsetofend(reserved)
ROUTE_RESP, ROUTE_RESP_MIN = 208, 200
ADDR_RESP, ADDR_RESP_MIN = 280, 272
EVENT_RESP, EVENT_RESP_MIN = 336, 324
QP_ATTR_RESP = 144
PATH_RESP_HDR, PATH_DATA = 8, 72

libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

MEASURE = "--measure" in sys.argv
problems = []


def problem(msg):
    problems.append(msg)
    print(msg, flush=True)


def ename(e):
    return "0" if e == 0 else errno.errorcode.get(e, str(e))


def expect_val(what, got, want):
    """A value (not an errno) must be want."""
    if got != want and not MEASURE:
        problem(f"{what}: got {got}, want {want}")
    return got == want


def expect(what, got, want):
    if MEASURE:
        print(f"{what}: {ename(got)}", flush=True)
        return got == want
    if got != want:
        problem(f"{what}: got {ename(got)}, want {ename(want)}")
        return False
    return True


class Arena:
    """Page 0: responses.  Page 1: requests, written so that they end at
    page 2, which is unmapped (PROT_NONE): GUARD."""

    def __init__(self):
        self.mm = mmap.mmap(-1, 3 * PAGE)
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.mm))
        if libc.mprotect(self.base + 2 * PAGE, PAGE, 0):
            raise OSError(ctypes.get_errno(), "mprotect")
        self.guard = self.base + 2 * PAGE
        self.resp = self.base

    def request(self, data, beyond=0):
        """A buffer holding data, ending at GUARD, plus beyond bytes of
        the unmapped page."""
        off = 2 * PAGE - len(data)
        self.mm[off:2 * PAGE] = data
        return memoryview(self.mm)[off:2 * PAGE + beyond]

    def clear_resp(self):
        self.mm[0:PAGE] = b"\xaa" * PAGE

    def read_resp(self, n, off=0):
        return bytes(self.mm[off:off + n])


arena = Arena()
GUARD = arena.guard
RESP = arena.resp


def write_raw(fd, data, beyond=0, ar=arena):
    """errno of the write (0 on success); a success must return its
    length.  AR: the calling thread's Arena (each thread needs its own)."""
    buf = ar.request(data, beyond)
    try:
        n = os.write(fd, buf)
    except OSError as e:
        return e.errno
    if n != len(buf):
        problem(f"write() returned {n}, not its length {len(buf)}")
    return 0


def cmd(fd, c, payload=b"", out=0, in_len=None, ar=arena):
    in_len = len(payload) if in_len is None else in_len
    return write_raw(fd, struct.pack("<IHH", c, in_len, out) + payload, ar=ar)


def sin(addr=ADDR, port=0):
    return (struct.pack("<H", socket.AF_INET) + struct.pack(">H", port) +
            socket.inet_aton(addr) + bytes(8))


def pad(b, n):
    return b + bytes(n - len(b))


def u32(b, off=0):
    return struct.unpack_from("<I", b, off)[0]


# ---- requests --------------------------------------------------------

def req_create(ps=PS_TCP, uid=1, resp=RESP, qp_type=0):
    return struct.pack("<QQHB5x", uid, resp, ps, qp_type)


def req_destroy(i, resp=RESP):
    return struct.pack("<QII", resp, i, 0)


def req_bind_ip(i, sa=None):
    return struct.pack("<Q", RESP) + pad(sa or sin(), 28) + struct.pack("<I", i)


def req_bind(i, sa=None, size=16):
    return struct.pack("<IHH", i, size, 0) + pad(sa or sin(), 128)


def req_resolve_ip(i, dst=None):
    return pad(b"", 28) + pad(dst or sin(), 28) + struct.pack("<II", i, 2000)


def req_resolve_addr(i, dst=None, dst_size=16, timeout_ms=2000, src=None):
    return (struct.pack("<IIHHI", i, timeout_ms, 16 if src else 0, dst_size, 0) +
            pad(src or b"", 128) +
            pad(dst or sin(), 128))


def req_resolve_route(i):
    return struct.pack("<II", i, 2000)


def req_query(i, option=QUERY_ADDR, resp=RESP):
    return struct.pack("<QII", resp, i, option)


def conn_param(valid=1, qpn=0x11, pdata=b""):
    return (struct.pack("<II", qpn, 0) + pad(pdata, 256) +
            struct.pack("<8B", len(pdata), 0, 1, 1, 0, 7, 7, valid))


def req_connect(i, valid=1, ece=True):
    r = conn_param(valid) + struct.pack("<II", i, 0)
    return r + struct.pack("<II", 0, 0) if ece else r


def req_listen(i, backlog=8):
    return struct.pack("<II", i, backlog)


def req_accept(i, valid=1, uid=2, ece=True):
    r = struct.pack("<Q", uid) + conn_param(valid) + struct.pack("<II", i, 0)
    return r + struct.pack("<II", 0, 0) if ece else r


def req_reject(i, reason=0):
    return struct.pack("<IBB2x", i, 0, reason) + bytes(256)


def req_disconnect(i):
    return struct.pack("<I", i)


def req_init_qp_attr(i, state=1, resp=RESP):
    return struct.pack("<QII", resp, i, state)


def req_notify(i):
    return struct.pack("<II", i, 0)


def req_join_ip(i, addr=MCAST, resp=RESP, uid=3):
    return struct.pack("<QQ", resp, uid) + pad(sin(addr), 28) + struct.pack("<I", i)


def req_join(i, addr=MCAST, resp=RESP, uid=3, flags=0, size=16):
    return struct.pack("<QQIHH", resp, uid, i, size, flags) + pad(sin(addr), 128)


def req_leave(i, resp=RESP):
    return req_destroy(i, resp)


def req_get_event(resp=RESP):
    return struct.pack("<Q", resp)


def req_set_option(i, level=OPTION_ID, name=OPT_TOS, val=b"\x00",
                   optval=None):
    if optval is None:
        arena.mm[PAGE - 512:PAGE - 512 + len(val)] = val
        optval = arena.base + PAGE - 512
    return struct.pack("<QIIII", optval, i, level, name, len(val))


def req_migrate(i, fd, resp=RESP):
    return struct.pack("<QII", resp, i & 0xffffffff, fd & 0xffffffff)


# Each command naming an id, with a request that passes every check
# before the id lookup, and the "out" it needs.
ID_CMDS = [
    ("DESTROY_ID", DESTROY_ID, req_destroy, 4),
    ("BIND_IP", BIND_IP, req_bind_ip, 0),
    ("BIND", BIND, req_bind, 0),
    ("RESOLVE_IP", RESOLVE_IP, req_resolve_ip, 0),
    ("RESOLVE_ADDR", RESOLVE_ADDR, req_resolve_addr, 0),
    ("RESOLVE_ROUTE", RESOLVE_ROUTE, req_resolve_route, 0),
    ("QUERY_ROUTE", QUERY_ROUTE, req_query, ROUTE_RESP),
    ("QUERY", QUERY, req_query, ADDR_RESP),
    ("CONNECT", CONNECT, req_connect, 0),
    ("LISTEN", LISTEN, req_listen, 0),
    ("ACCEPT", ACCEPT, req_accept, 0),
    ("REJECT", REJECT, req_reject, 0),
    ("DISCONNECT", DISCONNECT, req_disconnect, 0),
    ("INIT_QP_ATTR", INIT_QP_ATTR, req_init_qp_attr, QP_ATTR_RESP),
    ("SET_OPTION", SET_OPTION, req_set_option, 0),
    ("NOTIFY", NOTIFY, req_notify, 0),
    ("JOIN_IP_MCAST", JOIN_IP_MCAST, req_join_ip, 4),
    ("JOIN_MCAST", JOIN_MCAST, req_join, 4),
    ("LEAVE_MCAST", LEAVE_MCAST, req_leave, 4),
]


def opendev(nonblock=False):
    return os.open(DEV, os.O_RDWR | (os.O_NONBLOCK if nonblock else 0))


def create(fd, ps=PS_TCP, uid=1, ar=arena):
    ar.clear_resp()
    e = cmd(fd, CREATE_ID, req_create(ps, uid, ar.resp), 4, ar=ar)
    if e:
        problem(f"CREATE_ID: {ename(e)}")
        return None
    return u32(ar.read_resp(4))


def destroy(fd, i, ar=arena):
    """(errno, events_reported)"""
    ar.clear_resp()
    e = cmd(fd, DESTROY_ID, req_destroy(i, ar.resp), 4, ar=ar)
    return e, (u32(ar.read_resp(4)) if not e else None)


def get_event(fd, out=EVENT_RESP, resp=None, ar=arena):
    """(errno, (uid, id, event, status)); the response goes to RESP, by
    default AR's response page."""
    ar.clear_resp()
    e = cmd(fd, GET_EVENT, req_get_event(ar.resp if resp is None else resp),
            out, ar=ar)
    if e:
        return e, None
    return 0, struct.unpack_from("<QIIi", ar.read_resp(20))


def wait_event(fd, secs=10, ar=arena):
    """The next event of a non-blocking fd, waiting up to secs."""
    end = time.time() + secs
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while True:
        e, ev = get_event(fd, ar=ar)
        if e != errno.EAGAIN or time.time() > end:
            return e, ev
        poller.poll(20)


# ---- cases ------------------------------------------------------------

def case_write():
    fd = opendev()
    expect("write of 4 bytes", write_raw(fd, b"\0" * 4), errno.EINVAL)
    expect("header half in the unmapped page",
           write_raw(fd, b"\0" * 4, beyond=4), errno.EFAULT)
    for c in (NCMDS, 0x100, 0x7fffffff, 0xffffffff):
        expect(f"command {c:#x}", cmd(fd, c, bytes(64)), errno.EINVAL)
    expect("in past the end of the buffer",
           cmd(fd, CREATE_ID, req_create(), 4, in_len=SZ[CREATE_ID] + 1),
           errno.EINVAL)
    expect("in 0xffff past the end",
           cmd(fd, DESTROY_ID, req_destroy(0), 4, in_len=0xffff), errno.EINVAL)
    expect("GET_OPTION", cmd(fd, GET_OPTION, bytes(24)), errno.ENOSYS)
    expect("GET_OPTION, in past the end",
           cmd(fd, GET_OPTION, b"", in_len=8), errno.EINVAL)
    # Bytes after the request: ignored, the write returns all of them.
    arena.clear_resp()
    e = write_raw(fd, struct.pack("<IHH", CREATE_ID, SZ[CREATE_ID], 4) +
                  req_create() + bytes(100))
    if expect("CREATE_ID followed by 100 more bytes", e, 0):
        expect("its DESTROY_ID", destroy(fd, u32(arena.read_resp(4)))[0], 0)
    os.close(fd)


def case_ids():
    a, b = opendev(), opendev()
    ia = create(a)
    stale = create(a)
    expect("DESTROY_ID", destroy(a, stale)[0], 0)
    for name, c, req, out in ID_CMDS:
        expect(f"{name} of id -1", cmd(a, c, req(0xffffffff), out), errno.ENOENT)
        expect(f"{name} of a destroyed id", cmd(a, c, req(stale), out),
               errno.ENOENT)
        if c == LEAVE_MCAST:
            continue	# a group handle, see case_state
        expect(f"{name} of another file's id", cmd(b, c, req(ia), out),
               errno.EINVAL)
    expect("CREATE_ID, port space 0", cmd(a, CREATE_ID, req_create(0), 4),
           errno.EINVAL)
    expect("CREATE_ID, port space 0xffff",
           cmd(a, CREATE_ID, req_create(0xffff), 4), errno.EINVAL)

    devnull = os.open("/dev/null", os.O_RDWR)
    expect("MIGRATE_ID from fd -1", cmd(b, MIGRATE_ID, req_migrate(ia, -1), 4),
           errno.ENOENT)
    expect("MIGRATE_ID from /dev/null",
           cmd(b, MIGRATE_ID, req_migrate(ia, devnull), 4), errno.EINVAL)
    expect("MIGRATE_ID of id -1", cmd(b, MIGRATE_ID, req_migrate(-1, a), 4),
           errno.ENOENT)
    expect("MIGRATE_ID of an id not of that fd",
           cmd(a, MIGRATE_ID, req_migrate(ia, b), 4), errno.EINVAL)
    os.close(devnull)

    # Migrated: the id answers on its new file only, keeps its number.
    arena.clear_resp()
    expect("MIGRATE_ID a -> b", cmd(b, MIGRATE_ID, req_migrate(ia, a), 4), 0)
    expect_val("events_reported after MIGRATE_ID", u32(arena.read_resp(4)), 0)
    expect("QUERY on the old file", cmd(a, QUERY, req_query(ia), ADDR_RESP),
           errno.EINVAL)
    expect("QUERY on the new file", cmd(b, QUERY, req_query(ia), ADDR_RESP), 0)
    expect("MIGRATE_ID b -> b", cmd(b, MIGRATE_ID, req_migrate(ia, b), 4), 0)
    e, n = destroy(b, ia)
    expect("DESTROY_ID on the new file", e, 0)
    expect("second DESTROY_ID", destroy(b, ia)[0], errno.ENOENT)

    # Closing a file destroys its ids (rdma res is checked by the caller).
    for _ in range(8):
        create(a)
    os.close(a)
    os.close(b)


def case_sizes():
    fd = opendev(nonblock=True)
    i = create(fd)
    # "out" too short for the response.
    expect("CREATE_ID, out 3", cmd(fd, CREATE_ID, req_create(), 3), errno.ENOSPC)
    expect("DESTROY_ID, out 3", cmd(fd, DESTROY_ID, req_destroy(i), 3),
           errno.ENOSPC)
    expect("QUERY_ROUTE, out 199",
           cmd(fd, QUERY_ROUTE, req_query(i), ROUTE_RESP_MIN - 1), errno.ENOSPC)
    expect("INIT_QP_ATTR, out 143",
           cmd(fd, INIT_QP_ATTR, req_init_qp_attr(i), QP_ATTR_RESP - 1),
           errno.ENOSPC)
    expect("GET_EVENT, out 323",
           cmd(fd, GET_EVENT, req_get_event(), EVENT_RESP_MIN - 1), errno.ENOSPC)
    expect("GET_EVENT, out 324, nothing queued, O_NONBLOCK",
           cmd(fd, GET_EVENT, req_get_event(), EVENT_RESP_MIN), errno.EAGAIN)
    expect("LEAVE_MCAST, out 3", cmd(fd, LEAVE_MCAST, req_leave(0), 3),
           errno.ENOSPC)
    expect("JOIN_IP_MCAST, out 3", cmd(fd, JOIN_IP_MCAST, req_join_ip(i), 3),
           errno.ENOSPC)
    expect("JOIN_MCAST, out 3", cmd(fd, JOIN_MCAST, req_join(i), 3),
           errno.ENOSPC)
    expect("QUERY ADDR, out 271",
           cmd(fd, QUERY, req_query(i, QUERY_ADDR), ADDR_RESP_MIN - 1),
           errno.ENOSPC)
    expect("QUERY GID, out 271",
           cmd(fd, QUERY, req_query(i, QUERY_GID), ADDR_RESP_MIN - 1),
           errno.ENOSPC)
    expect("QUERY PATH, out 7",
           cmd(fd, QUERY, req_query(i, QUERY_PATH), PATH_RESP_HDR - 1),
           errno.ENOSPC)
    expect("QUERY option 3", cmd(fd, QUERY, req_query(i, 3), ADDR_RESP),
           errno.ENOSYS)

    # "out" longer than the response: only the response is written.
    for what, c, req, n in (
            ("QUERY_ROUTE", QUERY_ROUTE, req_query(i), ROUTE_RESP),
            ("QUERY ADDR", QUERY, req_query(i, QUERY_ADDR), ADDR_RESP),
            ("QUERY GID", QUERY, req_query(i, QUERY_GID), ADDR_RESP),
            ("QUERY PATH", QUERY, req_query(i, QUERY_PATH), PATH_RESP_HDR)):
        arena.clear_resp()
        expect(f"{what}, out 4096", cmd(fd, c, req, 4096), 0)
        if arena.read_resp(64, n) != b"\xaa" * 64:
            problem(f"{what}, out 4096: wrote past its {n}-byte response")
    arena.clear_resp()
    e = cmd(fd, CREATE_ID, req_create(), 0xffff)
    if expect("CREATE_ID, out 0xffff", e, 0):
        if arena.read_resp(64, 4) != b"\xaa" * 64:
            problem("CREATE_ID, out 0xffff: wrote past its 4-byte response")
        destroy(fd, u32(arena.read_resp(4)))

    # "in" short: fixed-size requests are read whole, into the unmapped
    # page; CONNECT and ACCEPT refuse less than their pre-ECE size and read
    # only "in" bytes past it (then the unbound id refuses: EINVAL).
    full = {name: (c, req(i), out) for name, c, req, out in ID_CMDS}
    full["CREATE_ID"] = (CREATE_ID, req_create(), 4)
    full["GET_EVENT"] = (GET_EVENT, req_get_event(), EVENT_RESP)
    full["MIGRATE_ID"] = (MIGRATE_ID, req_migrate(i, fd), 4)
    for name, (c, req, out) in sorted(full.items()):
        for n in (0, len(req) - 1):
            want = errno.EFAULT
            if c in (CONNECT, ACCEPT):
                want = errno.EINVAL
            expect(f"{name}, in {n} of {len(req)}", cmd(fd, c, req[:n], out),
                   want)
    # CONNECT and ACCEPT without the ECE: older librdmacm, accepted.
    expect("CONNECT without ECE, id -1",
           cmd(fd, CONNECT, req_connect(-1 & 0xffffffff, ece=False)),
           errno.ENOENT)
    expect("ACCEPT without ECE, id -1",
           cmd(fd, ACCEPT, req_accept(-1 & 0xffffffff, ece=False)),
           errno.ENOENT)
    # ... and with part of the ECE: read up to "in", the id is looked up.
    for name, c, r in (("CONNECT", CONNECT, req_connect(0xffffffff)),
                       ("ACCEPT", ACCEPT, req_accept(0xffffffff))):
        for n in (len(r) - 4, len(r) - 1):
            expect(f"{name}, in {n} of {len(r)}, id -1", cmd(fd, c, r[:n]),
                   errno.ENOENT)
    expect("CONNECT, conn_param not valid", cmd(fd, CONNECT, req_connect(i, 0)),
           errno.EINVAL)

    # "in" long: the rest is ignored.
    for name, c, req, out in ID_CMDS:
        expect(f"{name} of id -1, in + 64", cmd(fd, c, req(0xffffffff) + bytes(64), out),
               errno.ENOENT)
    arena.clear_resp()
    if expect("CREATE_ID, in + 64", cmd(fd, CREATE_ID, req_create() + bytes(64), 4), 0):
        destroy(fd, u32(arena.read_resp(4)))

    # Request checks before the id lookup.
    expect("BIND_IP, family 0", cmd(fd, BIND_IP, req_bind_ip(i, bytes(28))),
           errno.EINVAL)
    expect("BIND, addr_size 0", cmd(fd, BIND, req_bind(i, size=0)), errno.EINVAL)
    expect("BIND, addr_size 28 for AF_INET", cmd(fd, BIND, req_bind(i, size=28)),
           errno.EINVAL)
    r = bytearray(req_bind(i))
    r[6] = 1
    expect("BIND, reserved set", cmd(fd, BIND, bytes(r)), errno.EINVAL)
    expect("RESOLVE_IP, no destination family",
           cmd(fd, RESOLVE_IP, req_resolve_ip(i, bytes(28))), errno.EINVAL)
    expect("RESOLVE_ADDR, dst_size 0",
           cmd(fd, RESOLVE_ADDR, req_resolve_addr(i, dst_size=0)), errno.EINVAL)
    expect("REJECT, reason 1", cmd(fd, REJECT, req_reject(i, 1)), errno.EINVAL)
    expect("REJECT, reason 1, id -1", cmd(fd, REJECT, req_reject(0xffffffff, 1)),
           errno.EINVAL)
    expect("INIT_QP_ATTR, state 7",
           cmd(fd, INIT_QP_ATTR, req_init_qp_attr(i, 7), QP_ATTR_RESP),
           errno.EINVAL)
    expect("JOIN_MCAST, join_flags 2",
           cmd(fd, JOIN_MCAST, req_join(i, flags=2), 4), errno.EINVAL)
    expect("JOIN_MCAST, addr_size 28 for AF_INET",
           cmd(fd, JOIN_MCAST, req_join(i, size=28), 4), errno.EINVAL)
    expect("JOIN_IP_MCAST, family 0",
           cmd(fd, JOIN_IP_MCAST, struct.pack("<QQ", RESP, 3) + bytes(28) +
               struct.pack("<I4x", i), 4), errno.EINVAL)
    expect("SET_OPTION, optlen past KMALLOC_MAX_SIZE",
           cmd(fd, SET_OPTION, struct.pack("<QIIII", RESP, i, 0, 0, 0xffffffff)),
           errno.EINVAL)
    # Unbound ids: the commands that need a device refuse.
    for name, c, req, out in (("RESOLVE_ROUTE", RESOLVE_ROUTE, req_resolve_route, 0),
                              ("CONNECT", CONNECT, req_connect, 0),
                              ("ACCEPT", ACCEPT, req_accept, 0),
                              ("REJECT", REJECT, req_reject, 0),
                              ("DISCONNECT", DISCONNECT, req_disconnect, 0),
                              ("INIT_QP_ATTR", INIT_QP_ATTR, req_init_qp_attr,
                               QP_ATTR_RESP),
                              ("NOTIFY", NOTIFY, req_notify, 0),
                              ("JOIN_MCAST", JOIN_MCAST, req_join, 4)):
        expect(f"{name} on an unbound id", cmd(fd, c, req(i), out), errno.EINVAL)
    expect("SET_OPTION IB PATH on an unbound id, no path",
           cmd(fd, SET_OPTION, req_set_option(i, OPTION_IB, OPT_IB_PATH,
                                              bytes(PATH_DATA))), errno.EINVAL)
    expect("SET_OPTION IB PATH, optlen 1",
           cmd(fd, SET_OPTION, req_set_option(i, OPTION_IB, OPT_IB_PATH, b"\0")),
           errno.EINVAL)
    expect("SET_OPTION level 5", cmd(fd, SET_OPTION, req_set_option(i, 5)),
           errno.ENOSYS)
    expect("SET_OPTION ID name 9", cmd(fd, SET_OPTION, req_set_option(i, name=9)),
           errno.ENOSYS)
    expect("SET_OPTION IB name 0",
           cmd(fd, SET_OPTION, req_set_option(i, OPTION_IB, 0)), errno.ENOSYS)
    expect("SET_OPTION TOS, optlen 2",
           cmd(fd, SET_OPTION, req_set_option(i, val=b"\0\0")), errno.EINVAL)
    expect("SET_OPTION TOS", cmd(fd, SET_OPTION, req_set_option(i, val=b"\x20")), 0)
    expect("SET_OPTION REUSEADDR, optlen 1",
           cmd(fd, SET_OPTION, req_set_option(i, name=OPT_REUSEADDR)), errno.EINVAL)
    expect("SET_OPTION REUSEADDR",
           cmd(fd, SET_OPTION, req_set_option(i, name=OPT_REUSEADDR,
                                              val=struct.pack("<i", 1))), 0)
    expect("SET_OPTION AFONLY",
           cmd(fd, SET_OPTION, req_set_option(i, name=OPT_AFONLY,
                                              val=struct.pack("<i", 1))), 0)
    expect("SET_OPTION ACK_TIMEOUT",
           cmd(fd, SET_OPTION, req_set_option(i, name=OPT_ACK_TIMEOUT,
                                              val=b"\x0e")), 0)
    expect("NOTIFY, id unbound", cmd(fd, NOTIFY, req_notify(i)), errno.EINVAL)
    expect("DESTROY_ID", destroy(fd, i)[0], 0)
    os.close(fd)


def case_pointers():
    fd = opendev(nonblock=True)
    expect("CREATE_ID, response unmapped",
           cmd(fd, CREATE_ID, req_create(resp=GUARD), 4), errno.EFAULT)
    expect("CREATE_ID, response NULL",
           cmd(fd, CREATE_ID, req_create(resp=0), 4), errno.EFAULT)
    i = create(fd)
    for what, opt in (("ADDR", QUERY_ADDR), ("PATH", QUERY_PATH),
                      ("GID", QUERY_GID)):
        expect(f"QUERY {what}, response unmapped",
               cmd(fd, QUERY, req_query(i, opt, GUARD), ADDR_RESP), errno.EFAULT)
    expect("QUERY_ROUTE, response unmapped",
           cmd(fd, QUERY_ROUTE, req_query(i, resp=GUARD), ROUTE_RESP),
           errno.EFAULT)
    expect("SET_OPTION, optval unmapped",
           cmd(fd, SET_OPTION, req_set_option(i, optval=GUARD)), errno.EFAULT)
    expect("GET_EVENT, response unmapped, nothing queued",
           cmd(fd, GET_EVENT, req_get_event(GUARD), EVENT_RESP), errno.EAGAIN)
    other = opendev()
    expect("MIGRATE_ID, response unmapped",
           cmd(other, MIGRATE_ID, req_migrate(i, fd, GUARD), 4), errno.EFAULT)
    expect("... but migrated: QUERY on the old file",
           cmd(fd, QUERY, req_query(i), ADDR_RESP), errno.EINVAL)
    expect("DESTROY_ID, response unmapped",
           cmd(other, DESTROY_ID, req_destroy(i, GUARD), 4), errno.EFAULT)
    expect("... but destroyed", destroy(other, i)[0], errno.ENOENT)
    os.close(other)
    os.close(fd)


def creds_child(fd, become_nobody):
    """In a forked child: CREATE_ID on the inherited fd."""
    if become_nobody:
        nobody = pwd.getpwnam("nobody")
        os.setgroups([])
        os.setgid(nobody.pw_gid)
        os.setuid(nobody.pw_uid)
    e = cmd(fd, CREATE_ID, req_create(), 4)
    os._exit(e)


def case_creds():
    fd = opendev()
    got = []
    t = threading.Thread(target=lambda: got.append(cmd(fd, CREATE_ID, req_create(), 4)))
    t.start()
    t.join()
    expect("CREATE_ID from a thread", got[0], 0)
    if got[0] == 0:
        destroy(fd, u32(arena.read_resp(4)))
    for what, nobody in (("a forked child", False),
                         ("a forked child turned nobody", True)):
        pid = os.fork()
        if pid == 0:
            creds_child(fd, nobody)
        _, status = os.waitpid(pid, 0)
        expect(f"CREATE_ID from {what}", os.waitstatus_to_exitcode(status),
               errno.EACCES)
    i = create(fd)
    expect("the opener still writes", 0 if i is not None else 1, 0)
    os.close(fd)


def bound_id(fd, ps=PS_TCP, uid=1):
    i = create(fd, ps, uid)
    if i is not None:
        expect(f"BIND_IP to {ADDR}", cmd(fd, BIND_IP, req_bind_ip(i)), 0)
    return i


def case_state():
    fd = opendev(nonblock=True)
    i = bound_id(fd)
    arena.clear_resp()
    if expect("QUERY ADDR of a bound id", cmd(fd, QUERY, req_query(i), ADDR_RESP), 0):
        r = arena.read_resp(ADDR_RESP)
        guid, port, src_size, fam = struct.unpack_from("<QB3xH2xH", r)[0:4]
        if not guid or port != 1 or src_size != 16 or fam != socket.AF_INET:
            problem(f"QUERY ADDR: guid {guid:#x} port {port} src_size {src_size} family {fam}")
    arena.clear_resp()
    if expect("QUERY GID of a bound id", cmd(fd, QUERY, req_query(i, QUERY_GID), ADDR_RESP), 0):
        r = arena.read_resp(ADDR_RESP)
        if struct.unpack_from("<HH", r, 12) != (48, 48) or u32(r, 16) & 0xffff != AF_IB:
            problem(f"QUERY GID: sizes {struct.unpack_from('<HH', r, 12)}, family {u32(r, 16) & 0xffff}")
    expect("BIND_IP twice", cmd(fd, BIND_IP, req_bind_ip(i)), errno.EINVAL)
    expect("ACCEPT on an id that is no request", cmd(fd, ACCEPT, req_accept(i)),
           errno.EINVAL)
    expect("DISCONNECT of an unconnected id", cmd(fd, DISCONNECT, req_disconnect(i)),
           errno.EINVAL)
    expect("CONNECT before the route", cmd(fd, CONNECT, req_connect(i)),
           errno.EINVAL)
    expect("INIT_QP_ATTR INIT, response unmapped",
           cmd(fd, INIT_QP_ATTR, req_init_qp_attr(i, 1, GUARD), QP_ATTR_RESP),
           errno.EFAULT)
    expect("LISTEN", cmd(fd, LISTEN, req_listen(i)), 0)
    # rdma_listen() binds what is not ADDR_BOUND: a listener refuses.
    expect("LISTEN again", cmd(fd, LISTEN, req_listen(i, 0)), errno.EINVAL)
    expect("RESOLVE_ADDR on a listener",
           cmd(fd, RESOLVE_ADDR, req_resolve_addr(i)), errno.EINVAL)
    expect("DESTROY_ID of the listener", destroy(fd, i)[0], 0)

    # An event, its delivery failing, then succeeding.
    i = create(fd, uid=0x1234)
    expect("RESOLVE_ADDR", cmd(fd, RESOLVE_ADDR, req_resolve_addr(i)), 0)
    deadline = time.time() + 10
    e = errno.EAGAIN
    while e == errno.EAGAIN and time.time() < deadline:
        e = cmd(fd, GET_EVENT, req_get_event(GUARD), EVENT_RESP)
        time.sleep(0.02)
    expect("GET_EVENT into an unmapped response", e, errno.EFAULT)
    e, ev = get_event(fd, EVENT_RESP_MIN)
    if expect("GET_EVENT (out 324, as old 32-bit librdmacm) after that", e, 0):
        if ev != (0x1234, i, EV_ADDR_RESOLVED, 0):
            problem(f"event (uid, id, event, status) {ev}, want {(0x1234, i, EV_ADDR_RESOLVED, 0)}")
        if arena.read_resp(16, EVENT_RESP_MIN) != b"\xaa" * 16:
            problem("GET_EVENT with out 324 wrote past 324 bytes")
    e, n = destroy(fd, i)
    expect("DESTROY_ID after one event read", e, 0)
    expect_val("its events_reported", n, 1 if ev else 0)

    # Multicast on a UDP id.
    i = bound_id(fd, PS_UDP, uid=0x55)
    expect("JOIN_MCAST, response unmapped",
           cmd(fd, JOIN_MCAST, req_join(i, resp=GUARD), 4), errno.EFAULT)
    arena.clear_resp()
    if expect(f"JOIN_MCAST {MCAST}", cmd(fd, JOIN_MCAST, req_join(i), 4), 0):
        mc = u32(arena.read_resp(4))
        e, ev = wait_event(fd)
        expect("the join's event", e, 0)
        if ev and ev[1:3] != (mc, EV_MULTICAST_JOIN):
            problem(f"join event (uid, id, event, status) {ev}, want id {mc} event {EV_MULTICAST_JOIN}")
        other = opendev()
        expect("LEAVE_MCAST of another file's group",
               cmd(other, LEAVE_MCAST, req_leave(mc), 4), errno.EINVAL)
        os.close(other)
        arena.clear_resp()
        expect("LEAVE_MCAST", cmd(fd, LEAVE_MCAST, req_leave(mc), 4), 0)
        expect_val("its events_reported", u32(arena.read_resp(4)), 1 if ev else 0)
        expect("LEAVE_MCAST again", cmd(fd, LEAVE_MCAST, req_leave(mc), 4), errno.ENOENT)
    # Joins left to DESTROY_ID, and repeated joins of one group.
    for _ in range(3):
        cmd(fd, JOIN_IP_MCAST, req_join_ip(i), 4)
    expect("DESTROY_ID with groups joined", destroy(fd, i)[0], 0)
    i = bound_id(fd, PS_UDP)
    cmd(fd, JOIN_MCAST, req_join(i), 4)
    os.close(fd)	# close with a group joined, its event maybe unread


def connect_to_listener(cfd, port):
    """A TCP-port-space id on cfd connecting to ADDR:port (no QP: the
    request only has to reach the listener)."""
    c = create(cfd, uid=0x77)
    cmd(cfd, RESOLVE_ADDR, req_resolve_addr(c, sin(ADDR, port)))
    e, ev = wait_event(cfd)
    if e or ev[2] != EV_ADDR_RESOLVED:
        problem(f"client: ADDR_RESOLVED: {ename(e)} {ev}")
        return c
    cmd(cfd, RESOLVE_ROUTE, req_resolve_route(c))
    e, ev = wait_event(cfd)
    if e or ev[2] != 2:
        problem(f"client: ROUTE_RESOLVED: {ename(e)} {ev}")
        return c
    expect("client CONNECT", cmd(cfd, CONNECT, req_connect(c)), 0)
    return c


def listener(fd, port):
    i = create(fd, uid=0x66)
    cmd(fd, BIND_IP, req_bind_ip(i, sin(ADDR, port)))
    expect("LISTEN", cmd(fd, LISTEN, req_listen(i, 4)), 0)
    return i


def case_connreq():
    port = 18900
    # Destroyed with a request unread.
    s, c = opendev(nonblock=True), opendev(nonblock=True)
    lid = listener(s, port)
    connect_to_listener(c, port)
    time.sleep(1)	# the REQ reaches the listener: an event left unread
    expect("DESTROY_ID of a listener with a request unread", destroy(s, lid)[0], 0)
    os.close(c)
    os.close(s)

    # Closed with a request unread.
    port += 1
    s, c = opendev(nonblock=True), opendev(nonblock=True)
    listener(s, port)
    connect_to_listener(c, port)
    time.sleep(1)
    os.close(s)
    os.close(c)

    # Migrated with its request: the request is read on the new file, and
    # its id lives there.  Stock instead publishes the request's id on the
    # listener's file when the request arrives, and MIGRATE_ID leaves it
    # there: read on the new file, it answers only on the old one.
    port += 1
    s, c, n = (opendev(nonblock=True) for _ in range(3))
    lid = listener(s, port)
    connect_to_listener(c, port)
    time.sleep(1)
    expect("MIGRATE_ID of the listener", cmd(n, MIGRATE_ID, req_migrate(lid, s), 4), 0)
    e, ev = wait_event(n)
    if expect("CONNECT_REQUEST read on the new file", e, 0):
        if ev[0] != 0x66 or ev[2] != EV_CONNECT_REQUEST:
            problem(f"request event (uid, id, event, status) {ev}")
        new = ev[1]
        if STOCK:
            print("skipped on stock: the request's id stays on the "
                  "listener's old file (measured: QUERY on the new file "
                  "EINVAL, on the old file 0; REJECT on the new file EINVAL)",
                  flush=True)
            for f in (s, c, n):
                os.close(f)
            return
        expect("QUERY of the request's id on the new file",
               cmd(n, QUERY, req_query(new), ADDR_RESP), 0)
        expect("QUERY of the request's id on the old file",
               cmd(s, QUERY, req_query(new), ADDR_RESP), errno.EINVAL)
        expect("REJECT of the request", cmd(n, REJECT, req_reject(new)), 0)
        e, ev = wait_event(c)
        if expect("client's event after the REJECT", e, 0) and ev[2] != EV_REJECTED:
            problem(f"client event {ev}, want REJECTED ({EV_REJECTED})")
    for f in (s, c, n):
        os.close(f)


# ---- races ------------------------------------------------------------
#
# Each loop runs ROUNDS rounds, or fewer once its share of RACE_SECS has
# passed (a TCG guest is some 20 times slower than the host: fewer rounds
# there, the same checks), and prints how far it got.  A thread writes
# through an Arena of its own: the module's arena is the main thread's.

ROUNDS = int(os.environ.get("UCMA_ROUNDS", "50"))
RACE_SECS = float(os.environ.get("UCMA_RACE_SECS", "15"))
SCALE = int(os.environ.get("OOT_TIMEOUT_SCALE", "1"))
SEED = int(os.environ.get("UCMA_SEED", "0")) or time.time_ns() % 1000000
# The pause between a command and the destroy or close racing it: none
# most often, else long enough for its work to start or its event to be
# queued unread.
DELAYS = (0, 0, 0.0002, 0.001, 0.005)
RACE_PORT = 18950
# An on-link address nobody owns (ARP goes unanswered), and one no route
# leads to (TEST-NET-2; ucma_fuzz.sh makes sure, see NOROUTE_IS_UNREACHABLE).
UNREACH = os.environ.get("UCMA_UNREACH", "10.200.0.99")
NOROUTE = os.environ.get("UCMA_NOROUTE", "198.51.100.1")
# Set by ucma_fuzz.sh when the machine had a route to NOROUTE (a default
# route) and an "unreachable" route stands in: NOROUTE_END then differs.
NOROUTE_IS_UNREACHABLE = os.environ.get("UCMA_NOROUTE_UNREACHABLE") == "1"
# req_resolve_addr()'s timeout.
RESOLVE_SECS = 2

# How a command left alone ends: (the write's errno, the name of the
# event read after it or None, that event's status), as "resolve" and
# "mcast" print them; measured on stock (6.1.0-56, TCG).
# RESOLVE_ADDR to UNREACH: ARP unanswered, the event after the timeout.
UNREACH_END = (0, "ADDR_ERROR", -errno.ETIMEDOUT)
# RESOLVE_ADDR to NOROUTE: the write itself fails, no event.
NOROUTE_END = (errno.ENETUNREACH, None, None)
# A second JOIN_MCAST of the group one id has joined already: joined again.
MCAST_SECOND_JOIN = (0, "MULTICAST_JOIN", 0)


def rounds(what, secs):
    """range(ROUNDS), cut short once secs have passed (one round at
    least); says how far it got."""
    end = time.monotonic() + secs
    done = 0
    for r in range(ROUNDS):
        if done and time.monotonic() > end:
            break
        yield r
        done += 1
    print(f"{what}: {done} of {ROUNDS} rounds", flush=True)


class Failures:
    """A loop's failures: the first is reported, the rest counted."""

    def __init__(self, what):
        self.what = what
        self.seen = []

    def add(self, msg):
        self.seen.append(msg)

    def report(self):
        if self.seen:
            more = f" (and {len(self.seen) - 1} more)" if len(self.seen) > 1 else ""
            problem(f"{self.what}: {self.seen[0]}{more}")


def errno_expr(e):
    """An errno (negative as event statuses carry it) as Python."""
    if not e:
        return "0"
    name = errno.errorcode.get(abs(e))
    if name is None:
        return str(e)
    return f"-errno.{name}" if e < 0 else f"errno.{name}"


def ev_name(ev):
    return EV_NAMES[ev] if ev < len(EV_NAMES) else str(ev)


def end_expr(end):
    w, ev, st = end
    return (f"({errno_expr(w)}, {'None' if ev is None else repr(ev)}, "
            f"{'None' if st is None else errno_expr(st)})")


def check_end(what, got, want, note=""):
    """got against a measured constant; printed either way, for the
    measuring run."""
    print(f"{what}: {end_expr(got)}", flush=True)
    if note:
        print(f"  ... not checked: {note}", flush=True)
    elif got != want and not MEASURE:
        problem(f"{what}: got {end_expr(got)}, want {end_expr(want)}")


def settled_empty(fd, fails, secs):
    """After secs, fd has no event queued: every id or group it named is
    gone, and with it what was queued or still to come for it."""
    time.sleep(secs)
    e, ev = get_event(fd)
    if e != errno.EAGAIN:
        fails.add(f"an event left once every id or group was gone: {ename(e)} {ev}")


def resolve_alone(dst):
    """(errno, event, status) of a RESOLVE_ADDR to dst left alone."""
    fd = opendev(nonblock=True)
    i = create(fd, uid=0x99)
    w = cmd(fd, RESOLVE_ADDR, req_resolve_addr(i, sin(dst)))
    end = (w, None, None)
    if not w:
        e, ev = wait_event(fd, (RESOLVE_SECS + 10) * SCALE)
        if e:
            problem(f"RESOLVE_ADDR to {dst}: no event {RESOLVE_SECS + 10} s after: {ename(e)}")
        else:
            if ev[0:2] != (0x99, i):
                problem(f"RESOLVE_ADDR to {dst}: event (uid, id, event, status) {ev}")
            end = (0, ev_name(ev[2]), ev[3])
    e, n = destroy(fd, i)
    expect(f"DESTROY_ID after RESOLVE_ADDR to {dst}", e, 0)
    expect_val(f"its events_reported ({dst})", n, 0 if end[1] is None else 1)
    os.close(fd)
    return end


def end_round(fd, i, how, r, fails, reported):
    """Round r's end: after its delay (none, or a moment), DESTROY_ID of
    id i, whose events_reported must be reported, or close of fd (how).
    Returns fd, None once closed."""
    if DELAYS[r % len(DELAYS)]:
        time.sleep(DELAYS[r % len(DELAYS)])
    if how == "close":
        os.close(fd)
        return None
    e, n = destroy(fd, i)
    if e or n != reported:
        fails.add(f"round {r}: DESTROY_ID {ename(e)}, events_reported {n} (want {reported})")
    return fd


def resolve_then(what, dst, want_w, how, secs):
    """RESOLVE_ADDR to dst (its write answering want_w), then at once or
    a moment later DESTROY_ID or close (how)."""
    fails = Failures(f"RESOLVE_ADDR to {what}, then {how}")
    fd = None
    for r in rounds(fails.what, secs):
        if fd is None:
            fd = opendev(nonblock=True)
        i = create(fd)
        if i is None:
            continue
        w = cmd(fd, RESOLVE_ADDR, req_resolve_addr(i, sin(dst)))
        if w != want_w:
            fails.add(f"round {r}: the write: {ename(w)}, want {ename(want_w)}")
        fd = end_round(fd, i, how, r, fails, 0)
    if fd is not None:
        # A resolution left running would end by RESOLVE_SECS.
        settled_empty(fd, fails, RESOLVE_SECS + 0.5 if dst == UNREACH else 0.2)
        os.close(fd)
    fails.report()


def route_then(how, secs):
    """RESOLVE_ROUTE once the address is resolved, then at once or a
    moment later DESTROY_ID or close (how)."""
    fails = Failures(f"RESOLVE_ROUTE, then {how}")
    fd = None
    for r in rounds(fails.what, secs):
        if fd is None:
            fd = opendev(nonblock=True)
        i = create(fd)
        if i is None:
            continue
        w = cmd(fd, RESOLVE_ADDR, req_resolve_addr(i))
        e, ev = wait_event(fd, 10 * SCALE) if not w else (w, None)
        if e or ev[1:4] != (i, EV_ADDR_RESOLVED, 0):
            fails.add(f"round {r}: RESOLVE_ADDR {ename(w)}, then {ename(e)} {ev}")
            destroy(fd, i)
            continue
        w = cmd(fd, RESOLVE_ROUTE, req_resolve_route(i))
        if w:
            fails.add(f"round {r}: RESOLVE_ROUTE: {ename(w)}")
        fd = end_round(fd, i, how, r, fails, 1)
    if fd is not None:
        settled_empty(fd, fails, 0.2)
        os.close(fd)
    fails.report()


# resolve_wait: how long the neighbour stays unanswered (its three ARP
# probes fail after about 3 s), and the resolution's timeout, far beyond.
WAIT_QUIET_SECS = 3.5
WAIT_TIMEOUT_MS = 60000
# A neighbour entry made by hand ends the resolution within this (a
# netevent away; ours and stock's took some milliseconds).
WAIT_PROMPT_SECS = 0.5


def case_resolve_wait():
    """RESOLVE_ADDR to UNREACH with a timeout of a minute: no event while
    nobody answers (ucma_fuzz.sh counts the kernel's tries meanwhile);
    then a neighbour entry for it, made by hand, ends the resolution at
    once with ADDR_RESOLVED."""
    dev = os.popen(f"ip -o route get {UNREACH}").read().split(" dev ")[1].split()[0]
    fd = opendev(nonblock=True)
    i = create(fd, uid=0x9a)
    w = cmd(fd, RESOLVE_ADDR, req_resolve_addr(i, sin(UNREACH),
                                               timeout_ms=WAIT_TIMEOUT_MS))
    if expect(f"RESOLVE_ADDR to {UNREACH}, timeout {WAIT_TIMEOUT_MS} ms", w, 0):
        e, ev = wait_event(fd, WAIT_QUIET_SECS)
        expect(f"an event within {WAIT_QUIET_SECS} s ({ev})", e, errno.EAGAIN)
        if os.system(f"ip neigh replace {UNREACH} lladdr 02:11:22:33:44:99 "
                     f"dev {dev} nud reachable"):
            problem("ip neigh replace failed")
        start = time.monotonic()
        e, ev = wait_event(fd, 10 * SCALE)
        took = time.monotonic() - start
        print(f"ADDR_RESOLVED {took * 1000:.0f} ms after the neighbour entry",
              flush=True)
        if e or ev[1:4] != (i, EV_ADDR_RESOLVED, 0):
            problem(f"after the neighbour entry: {ename(e)} {ev}, want ADDR_RESOLVED")
        elif took > WAIT_PROMPT_SECS * SCALE:
            problem(f"ADDR_RESOLVED {took:.3f} s after the neighbour entry")
    expect("DESTROY_ID", destroy(fd, i)[0], 0)
    os.system(f"ip neigh del {UNREACH} dev {dev}")
    os.close(fd)


def case_autobind_race():
    """RESOLVE_ADDR of fresh ids from ADDR to ADDR (the id is bound there
    by the command itself: autobind), for RACE_SECS / 3, while
    ucma_fuzz.sh removes and adds rxe0 again and again.  Any answer will
    do; the kernel must not warn (ucma_fuzz.sh counts)."""
    answers = {}
    fd = opendev(nonblock=True)
    end = time.monotonic() + RACE_SECS / 3
    while time.monotonic() < end:
        i = create(fd)
        if i is None:
            break
        w = cmd(fd, RESOLVE_ADDR, req_resolve_addr(i, sin(ADDR), src=sin(ADDR)))
        answers[w] = answers.get(w, 0) + 1
        destroy(fd, i)
        while get_event(fd)[0] == 0:
            pass
    print("RESOLVE_ADDR answers: " + ", ".join(
        f"{ename(e) if e else 0} {n}" for e, n in sorted(answers.items())),
        flush=True)
    os.close(fd)


# An address whose neighbour is known, behind a netdev no RDMA device sits
# on (ucma_fuzz.sh makes both): its resolution is done at once and ends
# in ADDR_ERROR, the id bound again.
NORDMA = os.environ.get("UCMA_NORDMA", "10.201.0.2")
# How many RESOLVE_ADDRs a round tries while the first is under way.
AGAIN_TRIES = 2000
# The netdev rxe0 sits on (ucma_fuzz.sh), and the rounds of removals.
NETDEV = os.environ.get("UCMA_NETDEV", "veth0")
REMOVAL_ROUNDS = 5
# Far beyond the removal (a debug kernel took over 300 ms to deliver
# DEVICE_REMOVAL): a neighbour entry made by hand ends the resolution
# instead, at once, if it is still queued.
REMOVAL_TIMEOUT_MS = 60000


def resolve_then_removal(fails):
    """RESOLVE_ADDR from ADDR (binding the id to rxe0) to UNREACH, whose
    neighbour does not answer; rxe0 removed meanwhile; DEVICE_REMOVAL
    read, DESTROY_ID; then a neighbour entry for UNREACH made by hand,
    which runs a resolution still queued at once; rxe0 added again.  The
    removal moved the id from ADDR_QUERY to DEVICE_REMOVAL with its
    resolution queued: the destroy must cancel it."""
    fd = opendev(nonblock=True)
    for r in range(REMOVAL_ROUNDS):
        i = create(fd, uid=0x77)
        end = time.monotonic() + 10 * SCALE
        while True:
            # rxe0, added again, takes ADDR's GID a moment later.
            w = cmd(fd, RESOLVE_ADDR, req_resolve_addr(
                i, sin(UNREACH), src=sin(ADDR),
                timeout_ms=REMOVAL_TIMEOUT_MS))
            if w not in (errno.ENODEV, errno.EADDRNOTAVAIL) or \
               time.monotonic() > end:
                break
            time.sleep(0.05)
        if w:
            fails.add(f"removal round {r}: RESOLVE_ADDR: {ename(w)}")
        rm = subprocess.Popen(["rdma", "link", "del", "rxe0"])
        e, ev = wait_event(fd, 20 * SCALE)
        if e or ev[0:3] != (0x77, i, EV_DEVICE_REMOVAL):
            fails.add(f"removal round {r}: {ename(e)} {ev}, want DEVICE_REMOVAL")
        e, _ = destroy(fd, i)
        if e:
            fails.add(f"removal round {r}: DESTROY_ID: {ename(e)}")
        if rm.wait(30 * SCALE):
            fails.add(f"removal round {r}: rdma link del failed")
        os.system(f"ip neigh replace {UNREACH} lladdr 02:11:22:33:44:99 "
                  f"dev {NETDEV} nud reachable")
        time.sleep(0.3 * SCALE)
        os.system(f"ip neigh del {UNREACH} dev {NETDEV}")
        if subprocess.call(["rdma", "link", "add", "rxe0", "type", "rxe",
                            "netdev", NETDEV]):
            fails.add(f"removal round {r}: rdma link add failed")
            break
    os.close(fd)


def resolve_again(fails):
    """RESOLVE_ADDR to NORDMA, then RESOLVE_ADDR again and again
    (EINVAL while the first is under way) until the id, bound again by
    its ADDR_ERROR, takes one; DESTROY_ID at once.  The second resolution
    may start before the first's request is done with (its callback still
    returning): the destroy must cancel both."""
    fd = opendev(nonblock=True)
    taken = 0
    answers = {}
    for r in rounds("RESOLVE_ADDR again once bound, then DESTROY_ID",
                    RACE_SECS / 3):
        i = create(fd)
        if i is None:
            fails.add(f"round {r}: CREATE_ID failed")
            break
        w = cmd(fd, RESOLVE_ADDR, req_resolve_addr(i, sin(NORDMA)))
        if w:
            fails.add(f"round {r}: the first RESOLVE_ADDR: {ename(w)}")
        for _ in range(AGAIN_TRIES if not w else 0):
            w = cmd(fd, RESOLVE_ADDR, req_resolve_addr(i, sin(NORDMA)))
            answers[w] = answers.get(w, 0) + 1
            if w != errno.EINVAL:
                break
        taken += w == 0
        e, _ = destroy(fd, i)
        if e:
            fails.add(f"round {r}: DESTROY_ID: {ename(e)}")
        while get_event(fd)[0] == 0:
            pass
    print(f"a second RESOLVE_ADDR taken in {taken} rounds; answers: " +
          ", ".join(f"{ename(e) if e else 0} {n}"
                    for e, n in sorted(answers.items())), flush=True)
    if not taken:
        fails.add("the id never took a second RESOLVE_ADDR (no ADDR_ERROR?)")
    settled_empty(fd, fails, 0.2)
    os.close(fd)


def case_resolve_cancel():
    """Resolutions an id leaves behind: one queued when its device went
    (ADDR_QUERY became DEVICE_REMOVAL), one started again from its
    callback's ADDR_ERROR.  DESTROY_ID must cancel them; ucma_fuzz.sh
    traces the callbacks' context against the ids destroyed (KASAN does
    too, on the debug kernel)."""
    fails = Failures("resolutions left behind by a destroyed id")
    resolve_then_removal(fails)
    resolve_again(fails)
    fails.report()


def case_resolve():
    unreach = resolve_alone(UNREACH)
    check_end(f"RESOLVE_ADDR to {UNREACH} (on-link, unanswered), left alone",
              unreach, UNREACH_END)
    noroute = resolve_alone(NOROUTE)
    check_end(f"RESOLVE_ADDR to {NOROUTE} (no route), left alone", noroute,
              NOROUTE_END,
              "an unreachable route stands in for no route" if NOROUTE_IS_UNREACHABLE else "")
    loops = [(f"{ADDR} (own, reachable)", ADDR, 0),
             (f"{UNREACH} (on-link, unanswered)", UNREACH, unreach[0]),
             (f"{NOROUTE} (no route)", NOROUTE, noroute[0])]
    secs = RACE_SECS / (2 * len(loops) + 2)
    for what, dst, want_w in loops:
        for how in ("DESTROY_ID", "close"):
            resolve_then(what, dst, want_w, how, secs)
    for how in ("DESTROY_ID", "close"):
        route_then(how, secs)


def run_threads(what, targets, secs):
    """Each target(arena, rng) in a thread of its own; one that raises,
    or is not done after secs (a write that hangs), is a problem."""
    def guarded(target, ar, rng):
        try:
            target(ar, rng)
        except Exception as e:  # whatever it is, it is a problem
            problem(f"{what}: {target.__name__}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=guarded, daemon=True,
                                args=(t, Arena(), random.Random(SEED + k)))
               for k, t in enumerate(targets)]
    for t in threads:
        t.start()
    end = time.monotonic() + secs
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))
    hung = [t for t in threads if t.is_alive()]
    if hung:
        problem(f"{what}: {len(hung)} thread(s) not done after {secs:.0f} s")
    return not hung


def connect_once(fd, ar, port, fails):
    """An id on fd resolved to ADDR and connecting to port (no QP); its
    number, or None when a step failed."""
    c = create(fd, uid=0x77, ar=ar)
    if c is None:
        return None
    steps = ((RESOLVE_ADDR, req_resolve_addr(c, sin(ADDR, port)), EV_ADDR_RESOLVED),
             (RESOLVE_ROUTE, req_resolve_route(c), EV_ROUTE_RESOLVED))
    for c_cmd, req, want in steps:
        w = cmd(fd, c_cmd, req, ar=ar)
        e, ev = wait_event(fd, 10 * SCALE, ar) if not w else (w, None)
        if e or ev[1:4] != (c, want, 0):
            fails.add(f"client: command {c_cmd}: {ename(w)}, then {ename(e)} {ev}")
            return c
    w = cmd(fd, CONNECT, req_connect(c), ar=ar)
    if w:
        fails.add(f"client: CONNECT: {ename(w)}")
    return c


def case_listen_race():
    """A listener on RACE_PORT, created, listening, then destroyed or
    closed at random points, while another thread keeps connecting to
    the port."""
    print(f"seed {SEED} (UCMA_SEED={SEED} repeats the choices)", flush=True)
    fails = Failures("listener closed while requests arrive")
    done = threading.Event()
    seen = {"requests": 0, "connects": 0}

    def listener(ar, rng):
        try:
            listen_rounds(ar, rng)
        finally:
            done.set()

    def listen_rounds(ar, rng):
        for r in rounds("listener created, listening, destroyed or closed", RACE_SECS):
            fd = opendev(nonblock=True)
            i = create(fd, uid=0x66, ar=ar)
            if i is None:  # create() reported it
                os.close(fd)
                continue
            e = cmd(fd, BIND_IP, req_bind_ip(i, sin(ADDR, RACE_PORT)), ar=ar)
            if not e:
                e = cmd(fd, LISTEN, req_listen(i, 4), ar=ar)
            if e:
                fails.add(f"listener round {r}: BIND_IP or LISTEN: {ename(e)}")
                os.close(fd)
                continue
            how = rng.choice(("DESTROY_ID", "close", "DESTROY_ID after a request",
                              "close after a request"))
            if how.endswith("request"):
                e, ev = wait_event(fd, 2 * SCALE, ar)
                if not e:
                    if ev[2] != EV_CONNECT_REQUEST:
                        fails.add(f"listener round {r}: event {ev}")
                    seen["requests"] += 1
            else:
                time.sleep(rng.choice(DELAYS + (0.02,)))
            if how.startswith("DESTROY_ID"):
                e, _ = destroy(fd, i, ar)
                if e:
                    fails.add(f"listener round {r}: DESTROY_ID: {ename(e)}")
            os.close(fd)

    def client(ar, rng):
        while not done.is_set():
            fd = opendev(nonblock=True)
            c = connect_once(fd, ar, RACE_PORT, fails)
            seen["connects"] += 1
            time.sleep(rng.choice(DELAYS + (0.02,)))
            if c is not None and rng.random() < 0.5:
                e, _ = destroy(fd, c, ar)
                if e:
                    fails.add(f"client: DESTROY_ID: {ename(e)}")
            os.close(fd)

    run_threads("listener race", (listener, client), 2 * RACE_SECS + 30 * SCALE)
    print(f"{seen['connects']} connects, {seen['requests']} requests read", flush=True)
    if not seen["requests"]:
        fails.add("no connect request ever reached a listener")
    fails.report()


def case_migrate_race():
    """Ids resolving on file a; one thread migrates them a -> b -> a ...,
    the other closes a, b or both at a random point.  Each MIGRATE_ID
    answers, with 0 or an errno."""
    print(f"seed {SEED} (UCMA_SEED={SEED} repeats the choices)", flush=True)
    fails = Failures("MIGRATE_ID while a file closes")
    rng = random.Random(SEED)
    answers = {}
    for r in rounds("MIGRATE_ID back and forth, a file closing", RACE_SECS):
        files = [opendev(nonblock=True), opendev(nonblock=True)]
        ids = [create(files[0], uid=0x100 + k) for k in range(4)]
        for i in ids:
            cmd(files[0], RESOLVE_ADDR, req_resolve_addr(i))
        order = rng.choice(((0,), (1,), (0, 1), (1, 0)))
        delay = rng.choice(DELAYS + (0.01,))
        closed = []

        def migrator(ar, _rng):
            for k in range(6):
                src, dst = (files[0], files[1]) if k % 2 == 0 else (files[1], files[0])
                for i in ids:
                    ar.clear_resp()
                    e = cmd(dst, MIGRATE_ID, req_migrate(i, src, ar.resp), 4, ar=ar)
                    answers[e] = answers.get(e, 0) + 1

        def closer(_ar, _rng):
            time.sleep(delay)
            for f in order:
                os.close(files[f])
                closed.append(f)

        if not run_threads(f"round {r}", (migrator, closer), 30 * SCALE):
            return
        # What stays open still answers for the ids it holds.
        for f in (0, 1):
            if f in closed:
                continue
            for i in ids:
                e, _ = destroy(files[f], i)
                if e not in (0, errno.ENOENT):
                    fails.add(f"round {r}: DESTROY_ID after the race: {ename(e)}")
            os.close(files[f])
    print("MIGRATE_ID answers: " +
          ", ".join(f"{ename(e)} {n}" for e, n in sorted(answers.items())), flush=True)
    odd = set(answers) - {0, errno.ENOENT, errno.EINVAL, errno.EBADF}
    if odd:
        fails.add(f"MIGRATE_ID answered {', '.join(ename(e) for e in sorted(odd))}")
    if not answers.get(0):
        fails.add("no MIGRATE_ID succeeded")
    fails.report()


def join(fd, i, uid=3, flags=0):
    """JOIN_MCAST of MCAST (flags 1: send-only): (errno, the group's
    handle)."""
    arena.clear_resp()
    e = cmd(fd, JOIN_MCAST, req_join(i, uid=uid, flags=flags), 4)
    return e, (u32(arena.read_resp(4)) if not e else None)


def leave(fd, mc):
    """LEAVE_MCAST: (errno, events_reported)."""
    arena.clear_resp()
    e = cmd(fd, LEAVE_MCAST, req_leave(mc), 4)
    return e, (u32(arena.read_resp(4)) if not e else None)


def joined(what, fd, mc):
    """The join event of group handle mc arrives, status 0."""
    e, ev = wait_event(fd, 10 * SCALE)
    if expect(f"{what}: its event", e, 0) and ev[1:4] != (mc, EV_MULTICAST_JOIN, 0):
        problem(f"{what}: event (uid, id, event, status) {ev}, "
                f"want id {mc}, MULTICAST_JOIN, 0")
    return not e


# Stock leaves the newest join of a group, whichever handle LEAVE_MCAST
# names; the join left behind keeps the left handle's memory as its
# context (use after free once its event comes).  Measured on stock
# (6.1.0-57): after the full member of two joins (full, then send-only)
# left, the netdev stayed in the IP group.
MCAST_LEAVE_STOCK = ("stock leaves the newest join of the group, not the "
                     "one named (measured: the netdev stays in the group "
                     "after its full member left)")


def igmp_joined(group=MCAST):
    """Some netdev is in IPv4 group (/proc/net/igmp, "%08X" of the
    address as it lies in memory)."""
    want = "%08X" % struct.unpack("=I", socket.inet_aton(group))[0]
    with open("/proc/net/igmp") as f:
        return any(line.split()[:1] == [want] for line in f)


def mcast_leave_named():
    """A full member, then a send-only join of one group by one id; leave
    of the full member: the netdev leaves the IP group (the send-only
    join never joined it).  Then two full joins, the older left before
    either event was read: one event comes, the newer join's."""
    fd = opendev(nonblock=True)
    i = bound_id(fd, PS_UDP, uid=0x89)
    handles = []
    for flags in (0, 1):
        e, mc = join(fd, i, flags=flags)
        if expect(f"JOIN_MCAST {MCAST} flags {flags}", e, 0):
            joined(f"JOIN_MCAST flags {flags}", fd, mc)
            handles.append(mc)
    if len(handles) == 2:
        if not igmp_joined():
            problem(f"not in {MCAST} after both joins")
        expect("LEAVE_MCAST of the full member", leave(fd, handles[0])[0], 0)
        if STOCK:
            print(f"not checked on stock: {MCAST_LEAVE_STOCK}; "
                  f"in the group after the leave: {igmp_joined()}", flush=True)
        else:
            if igmp_joined():
                problem(f"still in {MCAST} after the full member left "
                        "(only the send-only join is left)")
        expect("LEAVE_MCAST of the send-only join", leave(fd, handles[1])[0], 0)
    expect("DESTROY_ID", destroy(fd, i)[0], 0)

    fails = Failures("two JOIN_MCAST, LEAVE_MCAST of the older at once")
    for r in rounds(fails.what, RACE_SECS / 6):
        i = bound_id(fd, PS_UDP)
        (e1, old), (e2, new) = join(fd, i), join(fd, i, uid=4)
        if e1 or e2:
            fails.add(f"round {r}: JOIN_MCAST: {ename(e1)}, {ename(e2)}")
            destroy(fd, i)
            continue
        e, n = leave(fd, old)
        if e:
            fails.add(f"round {r}: LEAVE_MCAST: {ename(e)}")
        e, ev = wait_event(fd, 5 * SCALE)
        if e or ev[1:4] != (new, EV_MULTICAST_JOIN, 0):
            fails.add(f"round {r}: after the older join left: {ename(e)} {ev},"
                      f" want the newer's ({new}) MULTICAST_JOIN")
        e, n = leave(fd, new)
        if e or n != 1:
            fails.add(f"round {r}: LEAVE_MCAST of the newer: {ename(e)}, "
                      f"events_reported {n}")
        expect("DESTROY_ID", destroy(fd, i)[0], 0)
        settled_empty(fd, fails, 0.01)
    if STOCK and fails.seen:
        print(f"not checked on stock: {MCAST_LEAVE_STOCK}; {fails.seen[0]} "
              f"(in {len(fails.seen)} rounds)", flush=True)
    else:
        fails.report()
    os.close(fd)


def case_mcast():
    mcast_leave_named()
    fd = opendev(nonblock=True)
    # One id, the same group twice.
    i = bound_id(fd, PS_UDP, uid=0x88)
    e, mc1 = join(fd, i)
    if expect(f"JOIN_MCAST {MCAST}", e, 0):
        joined("JOIN_MCAST", fd, mc1)
    e, mc2 = join(fd, i, uid=4)
    second = (e, None, None)
    if not e:
        if mc2 == mc1:
            problem(f"the second join's handle is the first's ({mc1})")
        e, ev = wait_event(fd, 10 * SCALE)
        if not e:
            if ev[1] != mc2:
                problem(f"second join: event (uid, id, event, status) {ev}, want id {mc2}")
            second = (0, ev_name(ev[2]), ev[3])
    check_end(f"a second JOIN_MCAST of {MCAST} on one id", second, MCAST_SECOND_JOIN)
    for mc in (mc1, mc2):
        if mc is not None:
            expect(f"LEAVE_MCAST of handle {mc}", leave(fd, mc)[0], 0)
    expect("DESTROY_ID", destroy(fd, i)[0], 0)

    # Two ids of one file, and of two files, in one group (as mckey -c 2).
    other = opendev(nonblock=True)
    for what, fds in (("two ids of one file", (fd, fd)), ("two files", (fd, other))):
        ids = [bound_id(f, PS_UDP) for f in fds]
        for f, i in zip(fds, ids):
            e, mc = join(f, i)
            if expect(f"JOIN_MCAST by {what}", e, 0):
                joined(f"JOIN_MCAST by {what}", f, mc)
        for f, i in zip(fds, ids):
            expect(f"DESTROY_ID of one of {what}", destroy(f, i)[0], 0)
    os.close(other)
    os.close(fd)

    # Join, then at once (or a moment later) leave, destroy or close.
    secs = RACE_SECS / 3
    for how in ("LEAVE_MCAST", "DESTROY_ID", "close"):
        fails = Failures(f"JOIN_MCAST, then {how}")
        fd = i = None
        for r in rounds(fails.what, secs):
            if fd is None:
                fd = opendev(nonblock=True)
            if i is None:
                i = bound_id(fd, PS_UDP)
            e, mc = join(fd, i)
            if e:
                fails.add(f"round {r}: JOIN_MCAST: {ename(e)}")
                continue
            if DELAYS[r % len(DELAYS)]:
                time.sleep(DELAYS[r % len(DELAYS)])
            if how == "LEAVE_MCAST":
                e, n = leave(fd, mc)
            elif how == "DESTROY_ID":
                e, n = destroy(fd, i)
                i = None
            else:
                os.close(fd)
                fd = i = None
                continue
            if e or n:
                fails.add(f"round {r}: {how}: {ename(e)}, events_reported {n}")
        if fd is not None:
            settled_empty(fd, fails, 0.2)
            if i is not None:
                destroy(fd, i)
            os.close(fd)
        fails.report()


# ---- locking -----------------------------------------------------------

WILD_PORT = 18960


def drain(fd, ar=arena):
    """Every event queued on fd (non-blocking) now, as (uid, id, event,
    status) tuples."""
    evs = []
    while True:
        e, ev = get_event(fd, ar=ar)
        if e:
            return evs
        evs.append(ev)


def case_migrate_wild():
    """A wildcard listener (0.0.0.0) takes its requests through a
    per-device child listener; one thread keeps connecting to it while
    the main thread moves the listener back and forth between two files
    with MIGRATE_ID.  An event queued on the file the listener just left
    would name a context another file owns: the listener's file must
    never hold one.  Each round ends with DESTROY_ID on the listener's
    current file and GET_EVENT on the other, which must find nothing (a
    stray event there would name the freed context)."""
    print(f"seed {SEED} (UCMA_SEED={SEED} repeats the choices)", flush=True)
    fails = Failures("MIGRATE_ID of a wildcard listener while requests arrive")
    done = threading.Event()
    seen = {"connects": 0, "requests": 0, "migrations": 0}
    rng = random.Random(SEED)

    def step(fd, ar, ids, c_cmd, req, want):
        """c_cmd on each of ids, then their events: those that got want."""
        ids = [c for c in ids if not cmd(fd, c_cmd, req(c), ar=ar)]
        got = []
        for _ in ids:
            e, ev = wait_event(fd, 10 * SCALE, ar)
            if e:
                break
            if ev[2:4] == (want, 0):
                got.append(ev[1])
        return got

    def client(ar, _crng):
        # Eight ids at once: each step's work overlaps, more requests.
        while not done.is_set():
            fd = opendev(nonblock=True)
            ids = [create(fd, uid=0x77, ar=ar) for _ in range(8)]
            ids = step(fd, ar, ids, RESOLVE_ADDR,
                       lambda c: req_resolve_addr(c, sin(ADDR, WILD_PORT)),
                       EV_ADDR_RESOLVED)
            ids = step(fd, ar, ids, RESOLVE_ROUTE, req_resolve_route,
                       EV_ROUTE_RESOLVED)
            for c in ids:
                if not cmd(fd, CONNECT, req_connect(c), ar=ar):
                    seen["connects"] += 1
            time.sleep(0.05)
            os.close(fd)

    def stray(what, evs, r):
        for ev in evs:
            fails.add(f"round {r}: {what}: event (uid, id, event, status) {ev}")

    def migrator(ar, _rng):
        try:
            for r in rounds("wildcard listener migrated while requests arrive",
                            RACE_SECS):
                files = [opendev(nonblock=True), opendev(nonblock=True)]
                lid = create(files[0], uid=0x66, ar=ar)
                e = cmd(files[0], BIND_IP,
                        req_bind_ip(lid, sin("0.0.0.0", WILD_PORT)), ar=ar)
                if not e:
                    e = cmd(files[0], LISTEN, req_listen(lid, 0), ar=ar)
                if e:
                    fails.add(f"round {r}: BIND_IP 0.0.0.0 or LISTEN: {ename(e)}")
                    for f in files:
                        os.close(f)
                    continue
                cur = 0
                end = time.monotonic() + rng.choice((0.2, 0.5, 1.0))
                while time.monotonic() < end:
                    e = cmd(files[1 - cur], MIGRATE_ID,
                            req_migrate(lid, files[cur], ar.resp), 4, ar=ar)
                    if e:
                        fails.add(f"round {r}: MIGRATE_ID: {ename(e)}")
                        break
                    cur = 1 - cur
                    seen["migrations"] += 1
                    if rng.random() < 0.1:
                        # What the listener owns is read on its file.
                        seen["requests"] += len(drain(files[cur], ar))
                # The file it left holds nothing of the listener.
                stray("an event on the file the listener left",
                      drain(files[1 - cur], ar), r)
                e, _ = destroy(files[cur], lid, ar)
                if e:
                    fails.add(f"round {r}: DESTROY_ID: {ename(e)}")
                # On stock a stray event here names the freed listener:
                # reading it would write freed memory, so only ours reads.
                if not STOCK:
                    stray("an event after DESTROY_ID, on the other file",
                          drain(files[1 - cur], ar), r)
                for f in files:
                    os.close(f)
        finally:
            done.set()

    run_threads("wildcard listener migrated", (migrator, client),
                2 * RACE_SECS + 30 * SCALE)
    print(f"{seen['connects']} connects, {seen['migrations']} migrations, "
          f"{seen['requests']} requests read", flush=True)
    if not seen["requests"]:
        fails.add("no connect request ever reached the listener")
    if STOCK and fails.seen:
        print(f"skipped on stock, which has the same race (measured: "
              f"{len(fails.seen)} stray event(s), the first: {fails.seen[0]})",
              flush=True)
        return
    fails.report()


IB_PATH_WANTED = 0x2b	# IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL


def case_path_bind():
    """SET_OPTION(IB_PATH) on an id in a loop, while another thread binds
    it to a port another id holds: each BIND attaches the device, fails
    (EADDRINUSE) and detaches it.  The option must read the device under
    the id's command lock: each SET_OPTION answers EINVAL (no device, or
    no resolved address), never a NULL device."""
    fails = Failures("SET_OPTION(IB_PATH) racing a failing BIND")
    fd = opendev(nonblock=True)
    holder = create(fd, uid=0x11)
    i = create(fd, uid=0x12)
    port = WILD_PORT + 1
    if expect("BIND_IP of the port's holder",
              cmd(fd, BIND_IP, req_bind_ip(holder, sin(ADDR, port))), 0):
        answers = {BIND_IP: {}, SET_OPTION: {}}
        done = threading.Event()

        def binder(ar, _rng):
            try:
                for _ in rounds("BIND_IP to a held port, failing", RACE_SECS / 3):
                    for _ in range(200):
                        e = cmd(fd, BIND_IP, req_bind_ip(i, sin(ADDR, port)), ar=ar)
                        answers[BIND_IP][e] = answers[BIND_IP].get(e, 0) + 1
            finally:
                done.set()

        def setter(ar, _rng):
            rec = struct.pack("<II", IB_PATH_WANTED, 0) + bytes(64)
            ar.mm[PAGE - 512:PAGE - 512 + len(rec)] = rec
            req = struct.pack("<QIIII", ar.base + PAGE - 512, i, OPTION_IB,
                              OPT_IB_PATH, len(rec))
            while not done.is_set():
                e = cmd(fd, SET_OPTION, req, ar=ar)
                answers[SET_OPTION][e] = answers[SET_OPTION].get(e, 0) + 1

        run_threads("IB_PATH racing BIND", (binder, setter), RACE_SECS + 30 * SCALE)
        for c, name, want in ((BIND_IP, "BIND_IP", errno.EADDRINUSE),
                              (SET_OPTION, "SET_OPTION(IB_PATH)", errno.EINVAL)):
            print(f"{name} answers: " + ", ".join(
                f"{ename(e)} {n}" for e, n in sorted(answers[c].items())), flush=True)
            if set(answers[c]) != {want}:
                fails.add(f"{name} answered {sorted(map(ename, answers[c]))}, "
                          f"want only {ename(want)}")
    os.close(fd)
    fails.report()


# struct uffdio_api / uffdio_register (include/uapi/linux/userfaultfd.h)
UFFD_API = 0xAA
UFFDIO_API = 0xc018aa3f
UFFDIO_REGISTER = 0xc020aa00
UFFDIO_REGISTER_MODE_MISSING = 1
NR_USERFAULTFD = 323	# x86_64


def uffd_page():
    """An anonymous page registered with a userfaultfd that nobody
    serves: a fault on it waits until the process dies.  (The mapping
    and its address, the userfaultfd), or None with the reason.  Not
    inherited by fork(): make it in the process that faults."""
    libc.syscall.restype = ctypes.c_long
    uffd = libc.syscall(NR_USERFAULTFD, os.O_CLOEXEC | os.O_NONBLOCK)
    if uffd < 0:
        return None, f"userfaultfd: {ename(ctypes.get_errno())}"
    api = ctypes.create_string_buffer(struct.pack("<QQQ", UFFD_API, 0, 0), 24)
    if libc.ioctl(uffd, ctypes.c_ulong(UFFDIO_API), api):
        return None, f"UFFDIO_API: {ename(ctypes.get_errno())}"
    mm = mmap.mmap(-1, PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    page = ctypes.addressof(ctypes.c_char.from_buffer(mm))
    reg = ctypes.create_string_buffer(
        struct.pack("<QQQQ", page, PAGE, UFFDIO_REGISTER_MODE_MISSING, 0), 32)
    if libc.ioctl(uffd, ctypes.c_ulong(UFFDIO_REGISTER), reg):
        return None, f"UFFDIO_REGISTER: {ename(ctypes.get_errno())}"
    return (mm, page, uffd), None


def stalled_get_event(ready):
    """In a forked child (a write() from a child of the opener is EACCES:
    the child opens its own file): GET_EVENT on a file with an event,
    into an unserved userfaultfd page, while a thread of the child starts
    a route resolution on that file, whose handler then queues on it from
    rdma_cm's ordered work queue.  Writes "1" to ready once that started,
    or the reason it cannot; never returns on its own."""
    fd = opendev(nonblock=True)
    first, second = create(fd, uid=0x31), create(fd, uid=0x32)
    steps = [(RESOLVE_ADDR, req_resolve_addr(i)) for i in (first, second)]
    steps.append((RESOLVE_ROUTE, req_resolve_route(first)))
    for c_cmd, req in steps:
        e = cmd(fd, c_cmd, req)
        if not e:
            e, _ = wait_event(fd, 10 * SCALE) if c_cmd == RESOLVE_ADDR else \
                (0, select.select([fd], [], [], 10 * SCALE))
        if e:
            os.write(ready, f"command {c_cmd}: {ename(e)}".encode())
            os._exit(1)
    # The first's ROUTE_RESOLVED is queued: the event the GET_EVENT reads.
    got, why = uffd_page()
    if got is None:
        os.write(ready, why.encode())
        os._exit(1)

    def resolve_second():
        time.sleep(0.3)
        w = cmd(fd, RESOLVE_ROUTE, req_resolve_route(second), ar=Arena())
        os.write(ready, b"1" if not w else f"RESOLVE_ROUTE: {ename(w)}".encode())

    threading.Thread(target=resolve_second, daemon=True).start()
    e = cmd(fd, GET_EVENT, req_get_event(got[1]), EVENT_RESP)
    os._exit(100 + e)


def case_event_stall():
    """GET_EVENT whose response page is a userfaultfd page nobody serves
    stays blocked (in a child process), and another id of that file
    resolves its route meanwhile (its handler queues on that file); then,
    on other files, a client must get through address and route
    resolution and its connect request reach a listener within a bound.
    Holding the file's lock across the copy would stop the handler behind
    it, and with it rdma_cm's ordered work queue, which every consumer's
    route resolution goes through."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        stalled_get_event(wr)
    os.close(wr)
    files = []
    try:
        why = os.read(rd, 200)
        if why != b"1":
            problem(f"the stalled GET_EVENT's setup: {why.decode()}")
            return
        time.sleep(0.5)
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            problem("GET_EVENT into the unserved page returned")
            return
        files = [opendev(nonblock=True), opendev(nonblock=True)]
        s, c = files
        listener(s, WILD_PORT + 2)
        fails = Failures("connect on other files while GET_EVENT stalls")
        t0 = time.monotonic()
        connect_once(c, arena, WILD_PORT + 2, fails)
        e, ev = wait_event(s, 10 * SCALE) if not fails.seen else (0, None)
        took = time.monotonic() - t0
        ok = not fails.seen and not e and ev[0:3:2] == (0x66, EV_CONNECT_REQUEST)
        print(f"connect while GET_EVENT stalls: {'done' if ok else 'not done'} "
              f"in {took:.1f} s", flush=True)
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            problem("GET_EVENT into the unserved page returned meanwhile")
        if STOCK and not ok:
            print("skipped on stock, which copies the event out under the "
                  "file's lock (measured: resolution and connect on other "
                  f"files not done in {took:.0f} s: "
                  f"{(fails.seen or [ename(e)])[0]})", flush=True)
        elif not ok:
            fails.add(f"listener's event: {ename(e)} {ev}")
            fails.report()
    finally:
        # First: on a stack with the defect, closing the other files
        # waits for the work the stalled copy holds up.
        os.close(rd)
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        for f in files:
            os.close(f)


CASES = {
    "write": case_write, "ids": case_ids, "sizes": case_sizes,
    "pointers": case_pointers, "creds": case_creds, "state": case_state,
    "connreq": case_connreq, "resolve": case_resolve,
    "listen_race": case_listen_race, "migrate_race": case_migrate_race,
    "mcast": case_mcast, "resolve_wait": case_resolve_wait,
    "autobind_race": case_autobind_race,
    "resolve_cancel": case_resolve_cancel,
    "path_bind": case_path_bind, "event_stall": case_event_stall,
    "migrate_wild": case_migrate_wild,
}

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--measure"]
    if len(args) != 1 or args[0] not in CASES:
        sys.exit(f"usage: {sys.argv[0]} [--measure] {'|'.join(CASES)}")
    CASES[args[0]]()
    sys.exit(1 if problems else 0)

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""MADs through /dev/infiniband/umadN on one RoCE port, looped to itself.

    umad_loop.py IBDEV CASE [ARGS...]

Talks to the umad ABI directly (ioctl, read, write; no libibumad), so
that every errno is the kernel's.  Each CASE prints lines the calling
shell test compares with what stock gives:

    loop          a vendor-class Get from a send-only agent to a responder
                  agent on another file, the responder's answer back: "ok"
    loop_old      the same with the requester on the old header format
                  (no ENABLE_PKEY): "ok"
    timeout T R   a Get (timeout T ms, R retries) the responder never
                  answers: "status ETIMEDOUT len L copies C" and whether
                  the wait matched T * (R + 1)
    unmatched     a Get for a class nobody registered: the MAD layer's
                  answer, "method 0x.. status 0x...."
    errnos        one "case errno" line per bad ioctl, write or read
    issm          issmN: IsSM set while open, one opener, cleared on close
    removal       the device goes while a file is open with an agent and a
                  reader blocked in read(): what the file answers then
"""
import ctypes
import errno
import fcntl
import glob
import os
import select
import struct
import subprocess
import sys
import threading
import time

SCALE = float(os.environ.get("OOT_TIMEOUT_SCALE", "1"))

# include/uapi/rdma/ib_user_mad.h (verified with the C header: 28, 40, 64)
REGISTER_AGENT = 0xC01C1B01
UNREGISTER_AGENT = 0x40041B02
ENABLE_PKEY = 0x1B03
REGISTER_AGENT2 = 0xC0281B04
HDR = 64
HDR_OLD = 56
MAD = 256
MAD_HDR = 24

GSI_QKEY = 0x80010000
CLASS_VENDOR = 0x09       # vendor class, range 1: no OUI, no RMPP
CLASS_NOBODY = 0x0A       # a class no agent registers
METHOD_GET = 0x01
METHOD_GET_RESP = 0x81


def errname(e):
    return errno.errorcode.get(e, str(e))


# ---------------------------------------------------------------- ABI

def reg_req(qpn=1, mgmt_class=0, version=1, methods=(), oui=b"\0\0\0",
            rmpp=0):
    """struct ib_user_mad_reg_req: id, method_mask[2 longs], qpn, ..."""
    mask = 0
    for m in methods:
        mask |= 1 << m
    return bytearray(struct.pack("=I16sBBB3sBx", 0,
                                 mask.to_bytes(16, "little"), qpn,
                                 mgmt_class, version, oui, rmpp))


def reg_req2(qpn=1, mgmt_class=0, version=1, methods=(), flags=0, oui=0,
             rmpp=0):
    """struct ib_user_mad_reg_req2 (40 bytes)."""
    mask = 0
    for m in methods:
        mask |= 1 << m
    return bytearray(struct.pack("=IIBBHI16sIB3x", 0, qpn, mgmt_class,
                                 version, 0, flags,
                                 mask.to_bytes(16, "little"), oui, rmpp))


def umad_hdr(agent_id, gid, timeout_ms=0, retries=0, qpn=1, grh=1,
             gid_index=0, hop_limit=64, pkey=True):
    """struct ib_user_mad_hdr (pkey=True) or its 56-byte _old prefix."""
    h = struct.pack("=IIIII", agent_id, 0, timeout_ms, retries, 0)
    h += struct.pack(">IIH", qpn, GSI_QKEY, 0)
    h += struct.pack("=BBBBBB", 0, 0, grh, gid_index, hop_limit, 0)
    h += gid + struct.pack(">I", 0)
    if pkey:
        h += struct.pack("=H6x", 0)
    return h


def parse_hdr(buf):
    (agent_id, status, timeout_ms, retries, length) = \
        struct.unpack_from("=IIIII", buf, 0)
    qpn, qkey, lid = struct.unpack_from(">IIH", buf, 20)
    sl, bits, grh, gid_index, hop, tclass = struct.unpack_from("=6B", buf, 30)
    gid = bytes(buf[36:52])
    return dict(id=agent_id, status=status, length=length, qpn=qpn,
                grh=grh, gid_index=gid_index, gid=gid)


def mad(mgmt_class, method, tid, status=0, payload=b""):
    """A 256-byte MAD: common header, then payload."""
    h = struct.pack(">BBBBHHQHHI", 1, mgmt_class, 1, method, status, 0,
                    tid, 0x10, 0, 0)
    return (h + payload).ljust(MAD, b"\0")


def parse_mad(buf):
    (_, mgmt_class, _, method, status, _, tid) = \
        struct.unpack_from(">BBBBHHQ", buf, 0)
    return dict(mgmt_class=mgmt_class, method=method, status=status, tid=tid)


class Umad:
    """One open umadN file."""

    def __init__(self, path, flags=os.O_RDWR):
        self.fd = os.open(path, flags)
        self.hdr = HDR

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def register2(self, **kw):
        req = reg_req2(**kw)
        fcntl.ioctl(self.fd, REGISTER_AGENT2, req)
        self.hdr = HDR
        return struct.unpack_from("=I", req)[0]

    def register(self, pkey=True, **kw):
        if pkey:
            fcntl.ioctl(self.fd, ENABLE_PKEY)
        self.hdr = HDR if pkey else HDR_OLD
        req = reg_req(**kw)
        fcntl.ioctl(self.fd, REGISTER_AGENT, req)
        return struct.unpack_from("=I", req)[0]

    def send(self, hdr, body):
        return os.write(self.fd, hdr + body)

    def recv(self, timeout_s=5.0, size=None):
        """(header dict, MAD bytes), or None after timeout_s."""
        p = select.poll()
        p.register(self.fd, select.POLLIN)
        if not p.poll(int(timeout_s * SCALE * 1000)):
            return None
        buf = os.read(self.fd, size or self.hdr + MAD)
        return parse_hdr(buf), buf[self.hdr:]


def port_gid(ibdev):
    """GID 0 of port 1 (the default GID from the MAC), as 16 bytes."""
    with open("/sys/class/infiniband/%s/ports/1/gids/0" % ibdev) as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def umad_path(ibdev, kind="umad"):
    for d in glob.glob("/sys/class/infiniband_mad/%s*" % kind):
        with open(d + "/ibdev") as f:
            if f.read().strip() == ibdev:
                return "/dev/infiniband/" + os.path.basename(d)
    raise SystemExit("no %s device for %s" % (kind, ibdev))


# ---------------------------------------------------------------- cases

def loop(ibdev, old_requester=False):
    path, gid = umad_path(ibdev), port_gid(ibdev)
    resp = Umad(path)
    req = Umad(path)
    rid = resp.register(mgmt_class=CLASS_VENDOR, methods=[METHOD_GET])
    if old_requester:
        qid = req.register(pkey=False)
    else:
        qid = req.register2()
    payload = b"umad loop request"
    req.send(umad_hdr(qid, gid, timeout_ms=int(2000 * SCALE), retries=1,
                      pkey=not old_requester),
             mad(CLASS_VENDOR, METHOD_GET, 0x1234, payload=payload))

    got = resp.recv()
    if got is None:
        return "the responder received nothing"
    h, m = got
    mh = parse_mad(m)
    checks = [("id", h["id"], rid), ("status", h["status"], 0),
              ("length", h["length"], HDR + MAD), ("qpn", h["qpn"], 1),
              ("grh", h["grh"], 1), ("gid", h["gid"].hex(), gid.hex()),
              ("class", mh["mgmt_class"], CLASS_VENDOR),
              ("method", mh["method"], METHOD_GET),
              ("tid low", mh["tid"] & 0xFFFFFFFF, 0x1234),
              ("payload", m[MAD_HDR:MAD_HDR + len(payload)], payload)]
    for what, val, want in checks:
        if val != want:
            return "request %s: %r, want %r" % (what, val, want)

    answer = b"umad loop response"
    resp.send(umad_hdr(rid, h["gid"], qpn=h["qpn"], gid_index=h["gid_index"]),
              mad(CLASS_VENDOR, METHOD_GET_RESP, mh["tid"], payload=answer))

    got = req.recv()
    if got is None:
        return "the requester received no response"
    h2, m2 = got
    mh2 = parse_mad(m2)
    checks = [("id", h2["id"], qid), ("status", h2["status"], 0),
              ("length", h2["length"], req.hdr + MAD),
              ("method", mh2["method"], METHOD_GET_RESP),
              ("tid", mh2["tid"], mh["tid"]),
              ("payload", m2[MAD_HDR:MAD_HDR + len(answer)], answer)]
    for what, val, want in checks:
        if val != want:
            return "response %s: %r, want %r" % (what, val, want)
    # Answered: no timeout report follows, and no retry reaches the
    # responder.
    if req.recv(timeout_s=3) is not None:
        return "the requester got a second MAD"
    if resp.recv(timeout_s=0.5) is not None:
        return "the responder got the request twice"
    req.close()
    resp.close()
    return "ok"


def timeout(ibdev, timeout_ms, retries):
    path, gid = umad_path(ibdev), port_gid(ibdev)
    resp = Umad(path)
    req = Umad(path)
    resp.register2(mgmt_class=CLASS_VENDOR, methods=[METHOD_GET])
    qid = req.register2()
    t0 = time.monotonic()
    req.send(umad_hdr(qid, gid, timeout_ms=timeout_ms, retries=retries),
             mad(CLASS_VENDOR, METHOD_GET, 0x42))
    bound = timeout_ms * (retries + 1) / 1000.0
    got = req.recv(timeout_s=bound + 10)
    elapsed = time.monotonic() - t0
    if got is None:
        return ["no report after %.1f s" % elapsed]
    h, m = got
    copies = 0
    while resp.recv(timeout_s=0.2) is not None:
        copies += 1
    out = ["status %s len %d copies %d tid_low %#x" % (
        errname(h["status"]), HDR + len(m), copies,
        parse_mad(m)["tid"] & 0xFFFFFFFF)]
    if elapsed < 0.9 * bound:
        out.append("too early: %.2f s, want %.2f s" % (elapsed, bound))
    elif elapsed > bound + 2 * SCALE:
        out.append("too late: %.2f s, want %.2f s" % (elapsed, bound))
    else:
        out.append("waited T*(R+1)")
    return out


def unmatched(ibdev):
    path, gid = umad_path(ibdev), port_gid(ibdev)
    req = Umad(path)
    qid = req.register2()
    req.send(umad_hdr(qid, gid, timeout_ms=int(1000 * SCALE)),
             mad(CLASS_NOBODY, METHOD_GET, 0x77))
    got = req.recv(timeout_s=5)
    if got is None:
        return "nothing"
    h, m = got
    if h["status"]:
        return "status %s" % errname(h["status"])
    mh = parse_mad(m)
    return "method %#04x status %#06x" % (mh["method"], mh["status"])


def try_errno(fn):
    try:
        fn()
        return "ok"
    except OSError as e:
        return errname(e.errno)


def raw_write(fd, addr, count):
    """write(2) from an address, for EFAULT."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    if libc.write(fd, addr, count) < 0:
        raise OSError(ctypes.get_errno(), "write")


def errnos(ibdev):
    path, gid = umad_path(ibdev), port_gid(ibdev)
    out = []

    def case(name, fn):
        out.append("%s %s" % (name, try_errno(fn)))

    u = Umad(path)
    case("register qpn 2", lambda: fcntl.ioctl(u.fd, REGISTER_AGENT,
                                               reg_req(qpn=2)))
    case("register2 qpn 2", lambda: fcntl.ioctl(u.fd, REGISTER_AGENT2,
                                                reg_req2(qpn=2)))
    req = reg_req2(flags=0x2)
    case("register2 unknown flag", lambda: fcntl.ioctl(u.fd, REGISTER_AGENT2,
                                                       req))
    out.append("register2 flags written back %#x" %
               struct.unpack_from("=I", req, 12)[0])
    case("register2 oui over 24 bits", lambda: fcntl.ioctl(
        u.fd, REGISTER_AGENT2,
        reg_req2(mgmt_class=0x30, methods=[METHOD_GET], oui=0x1000000)))
    case("register2 QP0 on RoCE", lambda: fcntl.ioctl(
        u.fd, REGISTER_AGENT2, reg_req2(qpn=0)))
    case("register NULL", lambda: fcntl.ioctl(u.fd, REGISTER_AGENT, 0))
    case("unregister id 32", lambda: fcntl.ioctl(
        u.fd, UNREGISTER_AGENT, struct.pack("=I", 32)))
    case("unregister free id 5", lambda: fcntl.ioctl(
        u.fd, UNREGISTER_AGENT, struct.pack("=I", 5)))
    case("unregister NULL", lambda: fcntl.ioctl(u.fd, UNREGISTER_AGENT, 0))
    case("unknown ioctl", lambda: fcntl.ioctl(u.fd, 0x1B09))
    os.set_blocking(u.fd, False)
    case("read nonblocking, nothing queued",
         lambda: os.read(u.fd, HDR + MAD))
    os.set_blocking(u.fd, True)
    case("read shorter than the header", lambda: os.read(u.fd, HDR_OLD - 1))
    # Before the first agent the file is on the old header format.
    case("write shorter than header + RMPP header",
         lambda: os.write(u.fd, bytes(HDR_OLD + 35)))

    def register_32():
        ids = [u.register2() for _ in range(32)]
        out.append("agent ids %s" % ("0..31" if ids == list(range(32))
                                      else ids))

    case("register 32 agents", register_32)
    case("register a 33rd agent", lambda: fcntl.ioctl(
        u.fd, REGISTER_AGENT2, reg_req2()))
    case("unregister id 7", lambda: fcntl.ioctl(
        u.fd, UNREGISTER_AGENT, struct.pack("=I", 7)))
    req = reg_req2()
    case("register into the freed id", lambda: fcntl.ioctl(
        u.fd, REGISTER_AGENT2, req))
    out.append("freed id reused %d" % struct.unpack_from("=I", req)[0])
    case("enable pkey after an agent", lambda: fcntl.ioctl(u.fd, ENABLE_PKEY))
    case("unregister id 7", lambda: fcntl.ioctl(
        u.fd, UNREGISTER_AGENT, struct.pack("=I", 7)))
    case("unregister id 7 again", lambda: fcntl.ioctl(
        u.fd, UNREGISTER_AGENT, struct.pack("=I", 7)))

    body = mad(CLASS_VENDOR, METHOD_GET, 0x99)
    case("write to agent id 32", lambda: os.write(
        u.fd, umad_hdr(32, gid) + body))
    case("write to a free agent id", lambda: os.write(
        u.fd, umad_hdr(7, gid) + body))
    case("write without GRH on RoCE", lambda: os.write(
        u.fd, umad_hdr(0, gid, grh=0) + body))
    case("write a 300-byte MAD of a non-RMPP class", lambda: os.write(
        u.fd, umad_hdr(0, gid) + body + bytes(44)))
    case("write from a bad buffer", lambda: raw_write(u.fd, 0x10, HDR + MAD))
    u.close()

    # Two requests in flight with one TID; a class nobody answers.
    u = Umad(path)
    qid = u.register2()
    slow = umad_hdr(qid, gid, timeout_ms=int(3000 * SCALE))
    body = mad(CLASS_NOBODY, 0x10, 0x5150)
    case("write a request", lambda: u.send(slow, body))
    case("write a request with the same TID", lambda: u.send(slow, body))
    u.close()

    # A method another agent registered for is taken.
    a, b = Umad(path), Umad(path)
    a.register2(mgmt_class=CLASS_VENDOR, methods=[METHOD_GET])
    case("register a method another agent has", lambda: b.register2(
        mgmt_class=CLASS_VENDOR, methods=[METHOD_GET]))

    # A read too short for a received MAD leaves it queued.
    qid = b.register2()
    b.send(umad_hdr(qid, gid), mad(CLASS_VENDOR, METHOD_GET, 0x31))
    p = select.poll()
    p.register(a.fd, select.POLLIN)
    p.poll(int(5000 * SCALE))
    case("read a MAD into header + 10 bytes",
         lambda: os.read(a.fd, HDR + 10))
    case("read it again into a full buffer",
         lambda: os.read(a.fd, HDR + MAD))
    a.close()
    b.close()
    return out


def issm(ibdev):
    path = umad_path(ibdev, "issm")
    capf = "/sys/class/infiniband/%s/ports/1/cap_mask" % ibdev

    def sm_bit():
        with open(capf) as f:
            return (int(f.read(), 16) >> 1) & 1

    out = ["before %d" % sm_bit()]
    fd = os.open(path, os.O_RDWR)
    out.append("open: IsSM %d" % sm_bit())
    out.append("second open, O_NONBLOCK: %s" % try_errno(
        lambda: os.close(os.open(path, os.O_RDWR | os.O_NONBLOCK))))
    os.close(fd)
    out.append("closed: IsSM %d" % sm_bit())
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    out.append("reopen: ok")
    os.close(fd)
    return out


def removal(ibdev):
    path, gid = umad_path(ibdev), port_gid(ibdev)
    u = Umad(path)
    qid = u.register2(mgmt_class=CLASS_VENDOR, methods=[METHOD_GET])
    result = []

    def reader():
        result.append(try_errno(lambda: os.read(u.fd, HDR + MAD)))

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    subprocess.run(["rdma", "link", "del", ibdev], check=True)
    out = ["link del within 5 s: %s" %
           ("yes" if time.monotonic() - t0 < 5 * SCALE else "no")]
    t.join(5 * SCALE)
    out.append("blocked reader: %s" % (result[0] if result else "blocked"))
    out.append("node gone: %s" % ("yes" if not os.path.exists(path)
                                  else "no"))
    out.append("read %s" % try_errno(lambda: os.read(u.fd, HDR + MAD)))
    out.append("write %s" % try_errno(lambda: os.write(
        u.fd, umad_hdr(qid, gid) + mad(CLASS_VENDOR, METHOD_GET, 1))))
    p = select.poll()
    p.register(u.fd, select.POLLIN | select.POLLOUT)
    ev = p.poll(0)
    out.append("poll %#x" % (ev[0][1] if ev else 0))
    out.append("register %s" % try_errno(lambda: fcntl.ioctl(
        u.fd, REGISTER_AGENT2, reg_req2())))
    out.append("unregister %s" % try_errno(lambda: fcntl.ioctl(
        u.fd, UNREGISTER_AGENT, struct.pack("=I", qid))))
    out.append("close %s" % try_errno(u.close))
    return out


def main():
    ibdev, what = sys.argv[1], sys.argv[2]
    if what == "loop":
        res = loop(ibdev)
    elif what == "loop_old":
        res = loop(ibdev, old_requester=True)
    elif what == "timeout":
        res = timeout(ibdev, int(sys.argv[3]), int(sys.argv[4]))
    elif what == "unmatched":
        res = unmatched(ibdev)
    elif what == "errnos":
        res = errnos(ibdev)
    elif what == "issm":
        res = issm(ibdev)
    elif what == "removal":
        res = removal(ibdev)
    else:
        raise SystemExit("unknown case " + what)
    print("\n".join(res) if isinstance(res, list) else res)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Send one raw NETLINK_RDMA request and print what came back.

Tests use it to probe the kernel's netlink handling directly, below the
rdma tool: bad client or op numbers, dumps, permissions.

    nlrdma.py [--uid UID] [--dump] [--ack] CLIENT OP [ATTR...]

ATTR is TYPE:u8:N, TYPE:u32:N, TYPE:u64:N, TYPE:str:TEXT (NUL added) or
TYPE:hex:BYTES (the payload as given, e.g. the attributes of a nest);
TYPE is a number or one of the RDMA_NLDEV_ATTR_* names in NLDEV_ATTRS,
lower case without the prefix (dev_index, dev_name, ndev_name, ...).
Output, one line:
    error ENAME        the kernel answered with an error
    ack                the kernel acknowledged (error 0)
    done N             a dump ended after N messages
    reply N            N non-dump replies, then silence
    timeout            nothing came back
With --verbose, each reply's attributes follow as "attr TYPE LEN HEX".
"""
import argparse
import errno
import os
import socket
import struct
import sys

NETLINK_RDMA = 20
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
HDR = struct.Struct("=IHHII")

# enum rdma_nldev_attr values of include/uapi/rdma/rdma_netlink.h (6.1)
# that the tests use.
NLDEV_ATTRS = {
    "dev_index": 1,
    "dev_name": 2,
    "port_index": 3,
    "ndev_index": 50,
    "ndev_name": 51,
    "link_type": 65,
    "chardev_type": 69,
}


def attr(spec):
    atype, kind, val = spec.split(":", 2)
    atype = NLDEV_ATTRS.get(atype, atype)
    if kind == "str":
        data = val.encode() + b"\0"
    elif kind == "hex":
        data = bytes.fromhex(val)
    else:
        fmt = {"u8": "=B", "u32": "=I", "u64": "=Q"}[kind]
        data = struct.pack(fmt, int(val, 0))
    a = struct.pack("=HH", 4 + len(data), int(atype)) + data
    return a + b"\0" * (-len(a) % 4)


def attrs_of(payload):
    off = 0
    while off + 4 <= len(payload):
        alen, atype = struct.unpack_from("=HH", payload, off)
        if alen < 4:
            break
        yield atype & 0x3FFF, payload[off + 4:off + alen]
        off += (alen + 3) & ~3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uid", type=int)
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--ack", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--timeout", type=float, default=3.0)
    ap.add_argument("--raw-len", type=int,
                    help="claim this nlmsg_len instead of the real one")
    ap.add_argument("client", type=int)
    ap.add_argument("op", type=int)
    ap.add_argument("attrs", nargs="*")
    a = ap.parse_args()

    if a.uid is not None:
        os.setgroups([])
        os.setgid(a.uid)
        os.setuid(a.uid)

    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
    s.settimeout(a.timeout)
    s.bind((0, 0))

    body = b"".join(attr(x) for x in a.attrs)
    flags = NLM_F_REQUEST
    flags |= NLM_F_DUMP if a.dump else 0
    flags |= NLM_F_ACK if a.ack else 0
    seq = 4242
    length = HDR.size + len(body)
    msg = HDR.pack(a.raw_len if a.raw_len is not None else length,
                   (a.client << 10) + a.op, flags, seq, 0) + body
    s.sendto(msg, (0, 0))

    replies = 0
    while True:
        try:
            data = s.recv(65536)
        except socket.timeout:
            print("reply %d" % replies if replies else "timeout")
            return
        off = 0
        while off + HDR.size <= len(data):
            mlen, mtype, _, mseq, _ = HDR.unpack_from(data, off)
            payload = data[off + HDR.size:off + mlen]
            off += (mlen + 3) & ~3
            if mseq != seq:
                continue
            if mtype == NLMSG_ERROR:
                err = -struct.unpack_from("=i", payload)[0]
                print("ack" if err == 0 else
                      "error " + errno.errorcode.get(err, str(err)))
                return
            if mtype == NLMSG_DONE:
                print("done %d" % replies)
                return
            replies += 1
            if a.verbose:
                for atype, val in attrs_of(payload):
                    print("attr %d %d %s" % (atype, len(val), val.hex()))


if __name__ == "__main__":
    sys.exit(main())

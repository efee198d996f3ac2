#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Ask for the uverbs chardev of every RDMA device, over and over.

What libibverbs does on each ibv_get_device_list(): a RDMA_NLDEV_CMD_GET
dump for the device indices, then RDMA_NLDEV_CMD_GET_CHARDEV ("uverbs")
for each.  Run against devices being added and deleted, this races the
kernel's answer with the removal of the uverbs client from the device.

    core_chardev_storm.py [--uid UID] [--seconds S] [--rounds N]

SIGTERM ends it early, with its report.

Prints one line: "answers A errors E" (A: GET_CHARDEV replies that named
a chardev; E: requests refused, e.g. because the device had just gone).
Exits 1 if the kernel ever answered with something else than a reply or
an errno a vanishing device explains.
"""
import argparse
import errno
import os
import signal
import socket
import struct
import sys
import time

from nlrdma import attrs_of

NETLINK_RDMA = 20
RDMA_NL_NLDEV = 5
CMD_GET, CMD_GET_CHARDEV = 1, 15
ATTR_DEV_INDEX, ATTR_CHARDEV_TYPE, ATTR_CHARDEV_NAME = 1, 69, 70
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
HDR = struct.Struct("=IHHII")

# A device or its uverbs client going away under the request.
EXPECTED_ERRNOS = {errno.EINVAL, errno.ENODEV, errno.ENOENT, errno.EOPNOTSUPP}


def nlattr(atype, data):
    a = struct.pack("=HH", 4 + len(data), atype) + data
    return a + b"\0" * (-len(a) % 4)


class Nl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_RDMA)
        self.s.settimeout(5)
        self.s.bind((0, 0))
        self.seq = 0

    def request(self, op, flags, body):
        """Yields (type, payload) of the answer's messages."""
        self.seq += 1
        msg = HDR.pack(HDR.size + len(body), (RDMA_NL_NLDEV << 10) + op,
                       NLM_F_REQUEST | flags, self.seq, 0) + body
        self.s.sendto(msg, (0, 0))
        while True:
            data = self.s.recv(65536)
            off = 0
            while off + HDR.size <= len(data):
                mlen, mtype, _, mseq, _ = HDR.unpack_from(data, off)
                payload = data[off + HDR.size:off + mlen]
                off += (mlen + 3) & ~3
                if mseq != self.seq:
                    continue
                yield mtype, payload
                if mtype in (NLMSG_ERROR, NLMSG_DONE) or \
                        not flags & NLM_F_DUMP:
                    return


def device_indices(nl):
    found = []
    for mtype, payload in nl.request(CMD_GET, NLM_F_DUMP, b""):
        if mtype in (NLMSG_ERROR, NLMSG_DONE):
            break
        for atype, val in attrs_of(payload):
            if atype == ATTR_DEV_INDEX:
                found.append(struct.unpack("=I", val[:4])[0])
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uid", type=int)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--rounds", type=int, default=100000)
    a = ap.parse_args()

    if a.uid is not None:
        os.setgroups([])
        os.setgid(a.uid)
        os.setuid(a.uid)

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    nl = Nl()
    answers = errors = 0
    end = time.monotonic() + a.seconds
    for _ in range(a.rounds):
        if stop or time.monotonic() > end:
            break
        for index in device_indices(nl):
            body = nlattr(ATTR_DEV_INDEX, struct.pack("=I", index)) + \
                nlattr(ATTR_CHARDEV_TYPE, b"uverbs\0")
            for mtype, payload in nl.request(CMD_GET_CHARDEV, 0, body):
                if mtype == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", payload)[0]
                    if err not in EXPECTED_ERRNOS:
                        print("GET_CHARDEV: unexpected error %s" %
                              errno.errorcode.get(err, str(err)))
                        return 1
                    errors += 1
                elif any(t == ATTR_CHARDEV_NAME
                         for t, _ in attrs_of(payload)):
                    answers += 1
                else:
                    print("GET_CHARDEV: a reply without a chardev name")
                    return 1
    print("answers %d errors %d" % (answers, errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())

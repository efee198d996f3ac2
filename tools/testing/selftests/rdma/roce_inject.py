#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A raw RoCEv2 (IPv4) packet injector for hostile-input tests.

    roce_inject.py --iface IF --dst-mac MAC --src-ip IP --dst-ip IP
                   [--counters DEV --out DIR] [--gap SEC] {--batch FILE | KEY=VALUE...}

Builds each packet from a description and sends it on IF as a raw
Ethernet frame, every header built here (scapy's import alone would cost
5 to 8 s in a guest under TCG).  One packet from KEY=VALUE
arguments, or one case a line of FILE ("NAME KEY=VALUE ...", #
comments).  A case of several descriptions joined by "+" (and each
description's repeat=N copies) leaves in one burst, back to back.
With --counters DEV, the hw counters of DEV's port 1 ("rdma statistic
show": sysfs's and the enabled optional ones) are saved to
DIR/NAME.before and DIR/NAME.after around each packet (GAP seconds
after sending it, default 0.3: time for the answer to leave).

Keys (numbers in C syntax):
  opcode   name (RC_SEND_ONLY, RC_RDMA_WRITE_ONLY, RC_RDMA_READ_REQUEST,
           RC_FETCH_ADD, UD_SEND_ONLY, ...) or number
  qpn psn  destination QP and PSN; ackreq se migreq pad pkey: BTH fields
  va rkey len       RETH (opcodes that carry one)
  plt sel           FETH of a FLUSH (IBTA 1.5, opcode 0x1c): placement
                    type (default 1, global visibility), selectivity
                    (default 0, a range)
  swap cmp          AtomicETH (va and rkey as above)
  qkey sqpn         DETH (UD);  imm: ImmDt;  inv_rkey: IETH
  payload  N (N bytes of fill) ; fill: the byte (default 0x61)
  icrc     good (default) | bad (inverted) | none (no ICRC at all)
  truncate N: keep only N bytes after the UDP header (lengths follow)
  omit     a header the opcode needs, left out (reth, feth, atomic, deth, imm)
  add      a header the opcode does not take, added (reth)
  sport    UDP source port (default 49152)
  repeat   N copies, the PSN of each psn_step (default 1) after the last
"""
import argparse
import errno
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roce_capture_check import OPERATIONS, TRANSPORTS, roce_icrc  # noqa: E402

OPCODES = {}
for _t, _tn in TRANSPORTS.items():
    for _o, _on in OPERATIONS.items():
        OPCODES["%s_%s" % (_tn, _on)] = (_t << 5) | _o
        # the spelling of the IBTA and of scapy, too
        OPCODES["%s_%s" % (_tn, _on.replace("WRITE", "RDMA_WRITE")
                           .replace("READ_", "RDMA_READ_"))] = (_t << 5) | _o

# Which extended headers each operation carries (IBTA vol. 1, 9.2-9.4).
RETH_OPS = {0x06, 0x0a, 0x0b, 0x0c, 0x1c}
FETH_OPS = {0x1c}  # IBTA 1.5 FLUSH: FETH comes before its RETH
IMM_OPS = {0x03, 0x05, 0x09, 0x0b}
ATOMIC_OPS = {0x13, 0x14}
IETH_OPS = {0x16, 0x17}
AETH_OPS = {0x0d, 0x0f, 0x10, 0x11, 0x12}


def num(v):
    return int(v, 0)


def transport_headers(d):
    """BTH, the extended headers, the payload: the bytes after UDP."""
    op = d["opcode"]
    op = OPCODES[op] if op in OPCODES else num(op)
    low, ud = op & 0x1f, op >> 5 == 3
    omit = set(d.get("omit", "").split(",")) - {""}
    add = set(d.get("add", "").split(",")) - {""}
    payload = bytes([num(d.get("fill", "0x61"))]) * num(d.get("payload", "0"))
    pad = num(d.get("pad", str((4 - len(payload) % 4) % 4)))
    b = struct.pack("!BBHII", op,
                    (num(d.get("se", "0")) << 7) | (num(d.get("migreq", "0")) << 6) | (pad << 4),
                    num(d.get("pkey", "0xffff")), num(d["qpn"]) & 0xffffff,
                    (num(d.get("ackreq", "1")) << 31) | (num(d.get("psn", "0")) & 0xffffff))
    if ud and "deth" not in omit:
        b += struct.pack("!II", num(d.get("qkey", "0x11111111")), num(d.get("sqpn", "1")))
    if low in FETH_OPS and "feth" not in omit:
        b += struct.pack("!I", (num(d.get("sel", "0")) & 3) << 4 |
                         (num(d.get("plt", "1")) & 0xf))
    if (low in RETH_OPS and "reth" not in omit) or "reth" in add:
        b += struct.pack("!QII", num(d.get("va", "0")), num(d.get("rkey", "0")),
                         num(d.get("len", str(len(payload)))))
    if low in ATOMIC_OPS and "atomic" not in omit:
        b += struct.pack("!QIQQ", num(d.get("va", "0")), num(d.get("rkey", "0")),
                         num(d.get("swap", "0")), num(d.get("cmp", "0")))
    if low in IMM_OPS and "imm" not in omit:
        b += struct.pack("!I", num(d.get("imm", "0")))
    if low in IETH_OPS:
        b += struct.pack("!I", num(d.get("inv_rkey", "0")))
    if low in AETH_OPS:
        b += struct.pack("!I", num(d.get("aeth", "0")))
    return b + payload + b"\0" * pad


def ip_checksum(hdr):
    """The IPv4 header checksum (RFC 791): ones' complement of the ones'
    complement sum of its 16-bit words."""
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def build(args, d):
    """The whole Ethernet frame of one description: Ethernet, IPv4 (DF,
    TTL 64, identification 1), UDP to 4791 with checksum 0 (RoCEv2's),
    then the transport headers and the ICRC."""
    roce = transport_headers(d)
    if "truncate" in d:
        roce = roce[:num(d["truncate"])]
    icrc = d.get("icrc", "good")
    tail = b"" if icrc == "none" else b"\0\0\0\0"
    udp = struct.pack("!HHHH", num(d.get("sport", "49152")), 4791,
                      8 + len(roce) + len(tail), 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(roce) + len(tail),
                     1, 0x4000, 64, socket.IPPROTO_UDP, 0,
                     socket.inet_aton(args.src_ip), socket.inet_aton(args.dst_ip))
    ip = ip[:10] + struct.pack("!H", ip_checksum(ip)) + ip[12:]
    raw = bytearray(mac(args.dst_mac) + mac(args.src_mac) + b"\x08\x00" +
                    ip + udp + roce + tail)
    if icrc != "none":
        ip = raw[14:]
        crc = bytearray(roce_icrc(bytes(ip), 20, len(ip) - 4))
        if icrc == "bad":
            crc = bytearray(x ^ 0xff for x in crc)
        raw[-4:] = crc
    return bytes(raw)


def descriptions(words):
    """The descriptions of one case: KEY=VALUE words, "+" between two."""
    ds = [{}]
    for w in words:
        if w == "+":
            ds.append({})
        else:
            k, v = w.split("=", 1)
            ds[-1][k] = v
    return ds


def copies(args, d):
    """The frames of one description: repeat=N of them, PSNs psn_step apart."""
    out = []
    psn = num(d.get("psn", "0"))
    for _ in range(num(d.get("repeat", "1"))):
        out.append(build(args, dict(d, psn=str(psn & 0xffffff))))
        psn += num(d.get("psn_step", "1"))
    return out


def counters(dev, path):
    # "link DEV/1 NAME VALUE NAME VALUE ...": optional counters have no
    # sysfs file, so the rdma tool is the one place that shows them all.
    out = subprocess.run(["rdma", "statistic", "show", "link", dev + "/1"],
                         check=True, capture_output=True, text=True).stdout.split()
    pairs = dict(zip(out[2::2], out[3::2]))
    with open(path, "w") as f:
        for n in sorted(pairs):
            f.write("%s %s\n" % (n, pairs[n]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iface", required=True)
    ap.add_argument("--dst-mac", required=True)
    ap.add_argument("--src-mac")
    ap.add_argument("--src-ip", required=True)
    ap.add_argument("--dst-ip", required=True)
    ap.add_argument("--batch")
    ap.add_argument("--counters")
    ap.add_argument("--out", default=".")
    ap.add_argument("--gap", type=float, default=0.3)
    ap.add_argument("desc", nargs="*")
    a = ap.parse_args()
    if not a.src_mac:
        with open("/sys/class/net/%s/address" % a.iface) as f:
            a.src_mac = f.read().strip()

    jobs = []
    if a.batch:
        with open(a.batch) as f:
            for line in f:
                w = line.split("#")[0].split()
                if w:
                    jobs.append((w[0], descriptions(w[1:])))
    if a.desc:
        jobs.append(("packet", descriptions(a.desc)))
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((a.iface, 0))
    for name, ds in jobs:
        frames = [f for d in ds for f in copies(a, d)]
        if a.counters:
            counters(a.counters, os.path.join(a.out, name + ".before"))
        for f in frames:
            send_frame(sock, f)
        time.sleep(a.gap)
        if a.counters:
            counters(a.counters, os.path.join(a.out, name + ".after"))
        print("%s: sent %d frames, %d bytes" % (name, len(frames), sum(len(f) for f in frames)),
              flush=True)
    sock.close()
    return 0


def send_frame(sock, frame):
    # A burst (a flood of hundreds of frames) can fill the interface's
    # queue while the receiver is busy (a slow guest): the packet socket
    # then says ENOBUFS, and the frame is sent again once the queue drains.
    for _ in range(1000):
        try:
            sock.send(frame)
            return
        except OSError as e:
            if e.errno != errno.ENOBUFS:
                raise
            time.sleep(0.01)
    raise OSError(errno.ENOBUFS, "the queue of the interface never drained")


if __name__ == "__main__":
    sys.exit(main())

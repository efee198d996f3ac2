#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Judge a RoCEv2 capture with code we did not write, and with our own.

    roce_capture_check.py [--strict] [--json FILE] [--expect NAME=COUNT]...
                          [--spec FILE] PCAP...

For every pcap:
  - tshark (Wireshark's InfiniBand dissector, UDP 4791 as RoCEv2) decodes
    every packet; any malformed packet or expert error fails, and so does a
    packet to or from UDP 4791 it does not decode as InfiniBand.  One
    exception, reported: UDP checksum 0 over IPv6, which stock sends.
  - every ICRC is recomputed: by our own code over the RoCEv2 pseudo-header
    (IPv4 and IPv6), and for IPv4 also by scapy.contrib.roce; a mismatch
    with the wire fails.
  - a summary: packets per opcode, UDP source ports per flow (source and
    destination address and destination QP), the BTH flags (AckReq per
    opcode, MigReq), packets per source address.
With --strict, also fails on: AckReq on a response, or on a FIRST or
MIDDLE packet less than 64 packets after the flow's last AckReq (but
for one at the PSN after the responder's last ACK: a retransmission),
MigReq set, a destination port other than 4791, more than one UDP
source port in one flow.  --expect RC_SEND_FIRST=1 (repeatable) fails
unless the capture holds exactly that many packets of that opcode (names
as printed in the summary); ackreq:NAME=COUNT counts those with AckReq
set, packets=COUNT all RoCEv2 packets.  --spec FILE: more captures, one a
line, each followed by its own expectations ("x.pcap RC_SEND_LAST=1"),
and optionally name=NAME (its key in the JSON) and qpns=Q,Q (only the
packets to those destination QPs count for this entry).  --json writes the summary for scripts.
Exit status: 0 when everything holds, 1 otherwise.
"""
import argparse
import logging
import collections
import json
import struct
import os
import subprocess
import sys
import tempfile
import zlib

ROCE_PORT = 4791

# scapy's, imported by load_scapy().
PcapReader = BTH = None


def load_scapy():
    """scapy's pcap reader and RoCE layer, for the checker alone: importing
    them costs 5 to 8 s in a guest under TCG (testing.rst), which
    roce_inject.py, sharing this module's tables and ICRC, need not pay."""
    global PcapReader, BTH
    # scapy's warnings start with "WARNING:", which the VM verdict takes
    # for the kernel's: only errors are shown.
    logging.getLogger("scapy").setLevel(logging.ERROR)
    from scapy.utils import PcapReader as reader
    from scapy.contrib.roce import BTH as bth  # binds UDP 4791 to BTH
    PcapReader, BTH = reader, bth

# IBTA vol. 1 9.2: the opcode's top three bits are the transport, the
# rest the operation.
TRANSPORTS = {0: "RC", 1: "UC", 2: "RD", 3: "UD", 4: "CNP"}
OPERATIONS = {
    0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST",
    0x03: "SEND_LAST_IMM", 0x04: "SEND_ONLY", 0x05: "SEND_ONLY_IMM",
    0x06: "WRITE_FIRST", 0x07: "WRITE_MIDDLE", 0x08: "WRITE_LAST",
    0x09: "WRITE_LAST_IMM", 0x0a: "WRITE_ONLY", 0x0b: "WRITE_ONLY_IMM",
    0x0c: "READ_REQUEST", 0x0d: "READ_RESPONSE_FIRST",
    0x0e: "READ_RESPONSE_MIDDLE", 0x0f: "READ_RESPONSE_LAST",
    0x10: "READ_RESPONSE_ONLY", 0x11: "ACKNOWLEDGE",
    0x12: "ATOMIC_ACKNOWLEDGE", 0x13: "COMPARE_SWAP", 0x14: "FETCH_ADD",
    0x16: "SEND_LAST_INV", 0x17: "SEND_ONLY_INV",
}
# Packets the responder sends: AckReq has no meaning on them.
RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}
# Not the last packet of a message: AckReq must be clear, unless the
# requester has sent ACK_EVERY packets of the flow since it last asked
# (stock asks once more than 64 went unacknowledged, measured on a
# 64 KiB SEND: AckReq on one SEND_MIDDLE).
NOT_LAST = {0x00, 0x01, 0x06, 0x07}
ACK_EVERY = 64
# The RC ACKNOWLEDGE opcode (RC 0x00 | 0x11).
OP_RC_ACKNOWLEDGE = 0x11
# What a parked ACK that no reply took waits at least, in seconds: our
# rxe's RXE_ACK_PARK_NS (2 ms), less a margin for the capture's clock.
PARK_WAIT = 0.0019
# How recently a host must have sent a request itself for its ACKs to
# wait for sure: our rxe parks when its requester sent within 10 ms
# (RXE_REQ_LATELY, 3 jiffies at HZ 250, so between 8 and 12 ms), less
# a margin; a slow guest (the debug kernel) replies later than that.
LATELY_SURE = 0.007


def opcode_name(op):
    return "%s_%s" % (TRANSPORTS.get(op >> 5, "T%d" % (op >> 5)),
                      OPERATIONS.get(op & 0x1f, "OP%#x" % (op & 0x1f)))


def roce_icrc(ip_and_rest, udp_off, icrc_off):
    """The ICRC of one RoCEv2 packet, as it goes on the wire (4 bytes).

    ip_and_rest starts at the IP header; udp_off is where UDP starts,
    icrc_off where the ICRC starts.  IBTA annex 17 (RoCEv2): the CRC32 covers
    64 bits of ones standing for the LRH, then the IP header with the
    fields routers change masked to ones (IPv4: type of service, TTL,
    header checksum; IPv6: traffic class, flow label, hop limit), the UDP
    header with its checksum masked, the BTH with its FECN/BECN/reserved
    byte masked, and everything after up to the ICRC.  Sent least
    significant byte first.
    """
    b = bytearray(ip_and_rest[:icrc_off])
    if b[0] >> 4 == 4:
        b[1] = 0xff                 # type of service (DSCP, ECN)
        b[8] = 0xff                 # TTL
        b[10:12] = b"\xff\xff"      # header checksum
    else:
        b[0] |= 0x0f                # traffic class, high nibble...
        b[1:4] = b"\xff\xff\xff"    # ...the rest of it and the flow label
        b[7] = 0xff                 # hop limit
    b[udp_off + 6:udp_off + 8] = b"\xff\xff"   # UDP checksum
    b[udp_off + 8 + 4] = 0xff                  # BTH FECN, BECN, reserved
    crc = zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xffffffff
    return struct.pack("<I", crc)


# tshark guesses the protocol inside a SEND's payload (RPC-over-RDMA,
# SMB Direct, ...) and calls application bytes that are not that protocol
# malformed.  The payload is the application's; only the transport is
# judged here.
PAYLOAD_PROTOCOLS = ["smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser",
                     "infiniband.eoib", "infiniband_sdp", "fcoib"]


def tshark(paths):
    """Wireshark's verdict on every frame of every file, in one run.

    Starting tshark is slow in a TCG guest: the files are concatenated
    (mergecap -a) and decoded once.  Returns, per file, a list of
    (frame number in that file, problem) and the number of frames tshark
    decoded as InfiniBand over UDP 4791; or raises OSError.
    """
    counts = [sum(1 for _ in PcapReader(p)) for p in paths]
    with tempfile.TemporaryDirectory() as tmp:
        merged = paths[0]
        if len(paths) > 1:
            merged = os.path.join(tmp, "all.pcap")
            subprocess.run(["mergecap", "-a", "-F", "pcap", "-w", merged] + paths,
                           check=True)
        heur = []
        for h in PAYLOAD_PROTOCOLS:
            heur += ["--disable-protocol", h]
        out = subprocess.run(
            ["tshark", "-n", "-r", merged, "-d", "udp.port==%d,infiniband" % ROCE_PORT] + heur +
            ["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|",
             "-e", "frame.number", "-e", "frame.protocols", "-e", "udp.port",
             "-e", "_ws.expert.severity", "-e", "_ws.expert.message"],
            capture_output=True, text=True, check=True).stdout
    problems = [[] for _ in paths]
    decoded = [0] * len(paths)
    zero_csum = [0] * len(paths)
    for line in out.splitlines():
        f = (line.split("\t") + [""] * 5)[:5]
        num = int(f[0])
        i = 0
        while i < len(counts) - 1 and num > counts[i]:
            num -= counts[i]
            i += 1
        ports = f[2].split("|")
        roce = str(ROCE_PORT) in ports
        if roce:
            if ":infiniband" in f[1]:
                decoded[i] += 1
            else:
                problems[i].append((num, "not decoded as InfiniBand: %s" % f[1]))
        if "_ws.malformed" in f[1]:
            problems[i].append((num, "malformed: %s" % f[4]))
        sev = [int(x, 0) for x in f[3].split("|") if x]
        msgs = f[4].split("|") + [""] * len(sev)
        for x, m in zip(sev, msgs):
            if x < 0x800000:
                continue
            # Stock sends RoCEv2 over IPv6 with UDP checksum 0 (measured);
            # RFC 6935/6936 allow that for tunnels, tshark calls it illegal.
            if m.startswith("Illegal checksum value (0)") and ":ipv6:" in f[1]:
                zero_csum[i] += 1
                continue
            problems[i].append((num, "expert error: %s" % m))
    return problems, decoded, zero_csum


class Capture:
    def __init__(self, path, name=None, qpns=None):
        self.path = path
        self.name = name or path
        self.qpns = qpns
        self.frames = set()
        self.errors = []
        self.opcodes = collections.Counter()
        self.ackreq = collections.Counter()
        self.sports = collections.defaultdict(set)
        self.by_src = collections.Counter()
        self.migreq = 0
        self.bad_dport = 0
        self.icrc_ok = 0
        self.scapy_ok = 0
        self.ackreq_bad = []
        self.ackreq_mid = 0
        self.ackreq_resent = 0
        self.since_ack = collections.Counter()
        # (requester, responder): the PSN of the responder's last ACK.
        self.last_ack_psn = {}
        self.packets = 0
        self.zero_csum = 0
        # ACKs right behind a packet of their own sender (a parked ACK
        # leaving with its host's reply, rxe.rst "Parked ACKs"), and
        # those neither behind one nor PARK_WAIT after the last request
        # from elsewhere, the one they acknowledge (sent at once), of
        # all ACKs.  An ACK sent at once is "prompt" when its sender
        # had itself sent a request less than LATELY_SURE before the
        # one it acknowledges (so the ACK should have waited),
        # "unparked" otherwise (its host did not talk both ways lately:
        # nothing to wait for).
        self.acks = 0
        self.acks_trailing = 0
        self.acks_prompt = 0
        self.acks_unparked = 0
        self.last = None
        self.last_request = {}

    def fail(self, msg):
        self.errors.append(msg)

    def packet(self, num, frame, scapy_pkt, ts=0.0):
        """Our own checks of one Ethernet frame, captured at ts."""
        if len(frame) < 14:
            return
        etype = struct.unpack("!H", frame[12:14])[0]
        ip = frame[14:]
        if etype == 0x0800:
            ihl = (ip[0] & 0x0f) * 4
            total = struct.unpack("!H", ip[2:4])[0]
            proto = ip[9]
            src, dst = ".".join(map(str, ip[12:16])), ".".join(map(str, ip[16:20]))
        elif etype == 0x86dd:
            ihl = 40
            total = 40 + struct.unpack("!H", ip[4:6])[0]
            proto = ip[6]
            src, dst = ip[8:24].hex(), ip[24:40].hex()
        else:
            return
        if proto != 17:
            return
        ip = ip[:total]             # without Ethernet padding
        udp = ip[ihl:]
        sport, dport, ulen = struct.unpack("!HHH", udp[:6])
        if ROCE_PORT not in (sport, dport):
            return
        self.packets += 1
        if dport != ROCE_PORT:
            self.bad_dport += 1
        bth = udp[8:]
        if len(bth) < 16 or ulen != len(udp):
            self.fail("frame %d: %d bytes of UDP payload, UDP length %d"
                      % (num, len(udp) - 8, ulen))
            return
        op, flags = bth[0], bth[1]
        dqpn = struct.unpack("!I", bth[4:8])[0] & 0xffffff
        psn = struct.unpack("!I", bth[8:12])[0] & 0xffffff
        if self.qpns is not None and dqpn not in self.qpns:
            self.packets -= 1
            return
        self.frames.add(num)
        if op == OP_RC_ACKNOWLEDGE:
            self.acks += 1
            self.last_ack_psn[(dst, src)] = psn
            acked = [t for s, t in self.last_request.items() if s != src]
            if self.last is not None and self.last[0] == src and \
                    self.last[1] != OP_RC_ACKNOWLEDGE:
                self.acks_trailing += 1
            elif not acked or ts - max(acked) < PARK_WAIT:
                own = self.last_request.get(src)
                if acked and own is not None and \
                        0 <= max(acked) - own < LATELY_SURE:
                    self.acks_prompt += 1
                else:
                    self.acks_unparked += 1
        elif op >> 5 == 0 and op & 0x1f not in RESPONSES:
            self.last_request[src] = ts
        self.last = (src, op)
        ackreq = bth[8] >> 7
        name = opcode_name(op)
        self.opcodes[name] += 1
        self.by_src[src] += 1
        self.sports["%s>%s qp %#x" % (src, dst, dqpn)].add(sport)
        if flags & 0x40:
            self.migreq += 1
        flow = (src, dst, dqpn)
        self.since_ack[flow] += 1
        if ackreq:
            self.ackreq[name] += 1
            if op >> 5 == 0 and op & 0x1f in RESPONSES:
                self.ackreq_bad.append("frame %d (%s, a response)" % (num, name))
            elif op & 0x1f in NOT_LAST:
                # Stock also asks for an ACK in the middle of a long
                # message, once ACK_EVERY packets went unacknowledged.
                if self.last_ack_psn.get((src, dst)) == (psn - 1) & 0xffffff:
                    # The packet right after the responder's last ACK:
                    # a go-back-N retransmission (after a timeout or a
                    # NAK) starts there, and asks for an ACK at once.
                    # Packets lost on the way (or by the capture) make
                    # the count below too short to tell.
                    self.ackreq_resent += 1
                elif self.since_ack[flow] < ACK_EVERY:
                    self.ackreq_bad.append("frame %d (%s, %d packets after the last AckReq)"
                                           % (num, name, self.since_ack[flow]))
                else:
                    self.ackreq_mid += 1
            self.since_ack[flow] = 0

        wire = bytes(ip[total - 4:total])
        mine = roce_icrc(ip, ihl, total - 4)
        if mine != wire:
            self.fail("frame %d (%s): ICRC %s on the wire, %s computed"
                      % (num, name, wire.hex(), mine.hex()))
        else:
            self.icrc_ok += 1
        if scapy_pkt is not None and etype == 0x0800:
            if BTH in scapy_pkt:
                theirs = scapy_pkt[BTH].compute_icrc(None)
                if theirs != wire:
                    self.fail("frame %d (%s): scapy computes ICRC %s, wire %s"
                              % (num, name, theirs.hex(), wire.hex()))
                else:
                    self.scapy_ok += 1

    def read(self):
        num = 0
        with PcapReader(self.path) as r:
            for p in r:
                num += 1
                self.packet(num, bytes(p), p, float(p.time))

    def strict(self):
        if self.ackreq_bad:
            self.fail("AckReq set on a FIRST/MIDDLE packet or a response: %s"
                      % ", ".join(self.ackreq_bad[:10]))
        if self.migreq:
            self.fail("MigReq set on %d packets" % self.migreq)
        if self.bad_dport:
            self.fail("%d packets not to UDP port %d" % (self.bad_dport, ROCE_PORT))
        for flow, ports in sorted(self.sports.items()):
            if len(ports) != 1:
                self.fail("flow %s uses UDP source ports %s" % (flow, sorted(ports)))

    def summary(self):
        return {
            "packets": self.packets,
            "opcodes": dict(self.opcodes),
            "ackreq": dict(self.ackreq),
            "migreq": self.migreq,
            "by_src": dict(self.by_src),
            "sports": {k: sorted(v) for k, v in self.sports.items()},
            "icrc_ok": self.icrc_ok,
            "acks": self.acks,
            "acks_trailing": self.acks_trailing,
            "acks_prompt": self.acks_prompt,
            "acks_unparked": self.acks_unparked,
            "ipv6_udp_zero_checksum": self.zero_csum,
            "scapy_icrc_ok": self.scapy_ok,
            "errors": self.errors,
        }

    def report(self):
        print("%s: %d RoCEv2 packets, ICRC verified %d (scapy agrees on %d)"
              % (self.name, self.packets, self.icrc_ok, self.scapy_ok))
        for name, n in sorted(self.opcodes.items()):
            print("  %-28s %6d  AckReq on %d" % (name, n, self.ackreq.get(name, 0)))
        print("  AckReq on %d FIRST/MIDDLE packets, each after >= %d unacknowledged"
              % (self.ackreq_mid, ACK_EVERY))
        if self.ackreq_resent:
            print("  AckReq on %d FIRST/MIDDLE packets right after the peer's last ACK"
                  " (retransmissions)" % self.ackreq_resent)
        print("  MigReq set on %d packets" % self.migreq)
        if self.zero_csum:
            print("  IPv6 UDP checksum 0 on %d packets of the file (as stock; RFC 6936)"
                  % self.zero_csum)
        for src, n in sorted(self.by_src.items()):
            print("  from %s: %d packets" % (src, n))
        for flow, ports in sorted(self.sports.items()):
            print("  flow %s: UDP source port %s" % (flow, " ".join(map(str, sorted(ports)))))
        for e in self.errors:
            print("  FAIL: %s" % e)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--spec")
    ap.add_argument("pcap", nargs="*")
    a = ap.parse_args()
    load_scapy()

    caps = [(Capture(p), a.expect) for p in a.pcap]
    if a.spec:
        with open(a.spec) as f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                opts = dict(x.split("=", 1) for x in w[1:] if x.startswith(("name=", "qpns=")))
                qpns = opts.get("qpns")
                if qpns is not None:
                    qpns = {int(q, 0) for q in qpns.split(",") if q and q != "none"}
                caps.append((Capture(w[0], opts.get("name"), qpns),
                             [x for x in w[1:] if not x.startswith(("name=", "qpns="))]
                             + a.expect))
    if not caps:
        ap.error("no capture")
    paths = sorted({c.path for c, _ in caps})
    try:
        problems, decoded, zero_csum = tshark(paths)
    except (OSError, subprocess.CalledProcessError) as e:
        problems, decoded = [[(0, "tshark failed: %s" % e)]] * len(paths), [None] * len(paths)
        zero_csum = [0] * len(paths)
    by_path = {p: (pr, d, z) for p, pr, d, z in zip(paths, problems, decoded, zero_csum)}

    ok = True
    out = {}
    for c, expects in caps:
        c.read()
        probs, dec, c.zero_csum = by_path[c.path]
        for num, what in probs:
            # A filtered entry owns the problems of its own frames, and
            # those of frames no RoCEv2 packet of any entry explains.
            if c.qpns is None or num in c.frames or num == 0:
                c.fail("tshark: frame %d: %s" % (num, what))
        if c.qpns is None and dec is not None and dec != c.packets:
            c.fail("tshark decoded %d RoCEv2 packets, we found %d" % (dec, c.packets))
        if c.packets == 0:
            c.fail("no RoCEv2 packet")
        if a.strict:
            c.strict()
        for e in expects:
            name, _, want = e.partition("=")
            if name == "packets":
                got = c.packets
            elif name.startswith("ackreq:"):
                got = c.ackreq.get(name[7:], 0)
            else:
                got = c.opcodes.get(name, 0)
            if got != int(want):
                c.fail("%s: %d, expected %s" % (name, got, want))
        c.report()
        out[c.name] = c.summary()
        ok = ok and not c.errors
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    print("roce_capture_check: %s" % ("ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

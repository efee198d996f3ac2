#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""How much of an RC flow was in flight at once, from a capture.

    roce_inflight.py --requester ADDR --mtu BYTES PCAP

The capture holds one RC QP's traffic (tshark decodes it): requests from
ADDR, responses to it.  Walking it in order, a message is in flight from
its first packet until the response that acknowledges its last PSN (an
ACK, or a READ's last response packet).  Prints, one line each:
    READ N    the most RDMA READs in flight at once
    SEND N    the most SENDs in flight at once
    WRITE N   the most RDMA WRITEs in flight at once
    window N  the most PSNs unacknowledged when a message started
A packet sent again (a PSN before the flow's next) starts nothing.
Exit status 1 if the capture holds no request from ADDR.
"""
import argparse
import subprocess
import sys

PSN_MASK = 0xffffff

# IBTA vol. 1 9.2, RC opcodes: message starts and ends per kind.
READ_REQUEST = 0x0c
READ_RESPONSES = range(0x0d, 0x11)
ACKNOWLEDGE = 0x11
KINDS = {0x00: "SEND", 0x02: "SEND", 0x03: "SEND", 0x04: "SEND",
         0x05: "SEND", 0x06: "WRITE", 0x08: "WRITE", 0x09: "WRITE",
         0x0a: "WRITE", 0x0b: "WRITE", 0x0c: "READ"}
STARTS = {0x00, 0x04, 0x05, 0x06, 0x0a, 0x0b, 0x0c}
ENDS = {0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0a, 0x0b}


def dist(a, b):
    """PSNs from b up to a."""
    return (a - b) & PSN_MASK


def before(a, b):
    return 0 < dist(b, a) < 1 << 23


def packets(pcap):
    out = subprocess.run(
        ["tshark", "-r", pcap, "-T", "fields", "-E", "separator=,",
         "-e", "ip.src", "-e", "infiniband.bth.opcode",
         "-e", "infiniband.bth.psn", "-e", "infiniband.reth.dmalen",
         "-e", "infiniband.aeth.syndrome"],
        check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        src, op, psn, dmalen, syndrome = (line.split(",") + [""] * 5)[:5]
        if not op:
            continue
        yield (src, int(op, 0), int(psn, 0), int(dmalen or "0", 0),
               int(syndrome or "0", 0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requester", required=True)
    ap.add_argument("--mtu", type=int, required=True)
    ap.add_argument("pcap")
    a = ap.parse_args()

    nxt = acked = None      # next new PSN; oldest unacknowledged PSN
    flight = []             # (kind, last PSN) of messages in flight
    most = {"READ": 0, "SEND": 0, "WRITE": 0, "window": 0}
    for src, op, psn, dmalen, syndrome in packets(a.pcap):
        if src == a.requester and op in KINDS:
            if nxt is None:
                nxt = acked = psn
            if before(psn, nxt):
                continue        # sent again
            if op in STARTS:
                most["window"] = max(most["window"], dist(psn, acked))
            npsn = 1
            if op == READ_REQUEST:
                npsn = max(1, -(-dmalen // a.mtu))
            nxt = (psn + npsn) & PSN_MASK
            if op == READ_REQUEST or op in ENDS:
                kind = KINDS[op]
                flight.append((kind, (nxt - 1) & PSN_MASK))
                most[kind] = max(most[kind],
                                 sum(1 for k, _ in flight if k == kind))
        elif src != a.requester and nxt is not None:
            if op == ACKNOWLEDGE and syndrome >> 5 != 0:
                continue        # a NAK acknowledges nothing new
            if op != ACKNOWLEDGE and op not in READ_RESPONSES:
                continue
            if before(acked, (psn + 1) & PSN_MASK):
                acked = (psn + 1) & PSN_MASK
            flight = [(k, last) for k, last in flight
                      if not before(last, acked)]
    if nxt is None:
        print("no request from %s in %s" % (a.requester, a.pcap))
        return 1
    for k, v in most.items():
        print(k, v)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the ICRC of captured RoCEv2 packets with scapy.

    rxe_icrc_check.py PCAP DONE_FILE

Imports scapy at once (it takes tens of seconds in the TCG guest, so the
caller starts this early), then waits for DONE_FILE to appear, reads the
IPv4 RoCEv2 packets of PCAP and recomputes each one's ICRC with scapy's
contrib.roce, an implementation independent of the kernel's.  Prints
"packets N bad M"; exit status 0 when at least one packet was seen and
none was bad.
"""
import os
import sys
import time

from scapy.all import IP, UDP, raw, rdpcap
from scapy.contrib.roce import BTH


def icrc_ok(pkt):
    ip = IP(raw(pkt[IP]))
    wire = ip[BTH].icrc
    ip[BTH].icrc = None
    return IP(raw(ip))[BTH].icrc == wire


def main():
    pcap, done = sys.argv[1], sys.argv[2]
    end = time.monotonic() + 120
    while not os.path.exists(done):
        if time.monotonic() > end:
            print("no capture")
            return 1
        time.sleep(0.1)
    pkts = [p for p in rdpcap(pcap)
            if IP in p and UDP in p and p[UDP].dport == 4791]
    bad = [p for p in pkts if not icrc_ok(p)]
    print(f"packets {len(pkts)} bad {len(bad)}")
    for p in bad[:3]:
        print("bad:", raw(p[IP]).hex())
    return 0 if pkts and not bad else 1


if __name__ == "__main__":
    sys.exit(main())

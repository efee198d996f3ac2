# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's receive steering beyond one destination, its local
# loopback, RSS and QUERY_SQ/QUERY_RQ, driven without a guest by
# mlx5_qtest.py on the Ethernet cases' objects (after them): an entry
# forwarding to two TIRs (a copy each), to a TIR and a deeper table; a
# frame an SQ sends looped back into steering, kept from the TIRs of
# the SQ's own transport domain unless their self_lb_block bit lets it
# through; an RQ table behind a Toeplitz TIR, each frame on the RQ the
# hash (computed here) picks; the queues' contexts read back; and bad
# input: unknown queues, short commands, a TIR destroyed under an entry.
import os
import random
import struct

from mlx5_qtest import BAR0, hdr, expect, setf, u24
from mlx5_qtest_eth import (DBR, DATA, MAC, ipv4_udp, ft_in, fg_in, fte_in,
                            dmac_criteria, rq_post, sq_post)

RQ2_BUF = 0x1310000      # the second RQ: 16 WQEs of 64 bytes
RQ2_DBR = DBR + 0xC0
DEST_FT, DEST_TIR = 1, 2
MCAST = bytes.fromhex("0150561920a7")
OTHER = bytes.fromhex("02aabbccddee")
KEY = bytes(range(0x11, 0x11 + 40))


def toeplitz(key, data):
    """The Microsoft RSS hash: for each set input bit, from the top, the
    32 key bits from that bit's position on."""
    k = int.from_bytes(key, "big")
    klen = len(key) * 8
    h = 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (k >> (klen - 32 - i)) & 0xFFFFFFFF
    return h


def udp_from(src, dst=MAC):
    f = bytearray(ipv4_udp(b"r" * 40, dst=dst))
    f[26:30] = bytes(src)
    return bytes(f)


class Steer:
    def __init__(self, eth):
        self.eth = eth
        self.rq2_pc = 0
        self.taken = {}

    def rq2_post(self, n=1):
        for _ in range(n):
            w = struct.pack(">IIQ", 2048, self.eth.lkey,
                            DATA + 0x40000 + 0x800 * (self.rq2_pc % 16))
            w += struct.pack(">IIQ", 0, 0x100, 0) * 3
            self.eth.qt.write(RQ2_BUF + 64 * (self.rq2_pc % 16), w)
            self.rq2_pc += 1
        self.eth.qt.write(RQ2_DBR, struct.pack(">I", self.rq2_pc))

    def cqes(self):
        """The CQEs written since the last call: (opcode, queue number)."""
        eth, out = self.eth, []
        for _ in range(64):
            cqe = eth.cqe(eth.ci % 64)
            if cqe[63] == 0xF1 or (cqe[63] & 1) != (eth.ci // 64) & 1:
                break
            out.append((cqe[63] >> 4, struct.unpack(">I", cqe[56:60])[0] &
                        0xFFFFFF))
            if out[-1][0] == 2:
                self.taken[out[-1][1]] = self.taken.get(out[-1][1], 0) + 1
            eth.ci += 1
            eth.qt.write(DBR, struct.pack(">I", eth.ci))
        eth.qt.readl(BAR0)          # let the main loop take frames
        return sorted(out)

    def send(self, frame):
        """Frame out of the Ethernet cases' SQ (its CQE comes with the
        receive CQEs of its loopback: see cqes())."""
        eth = self.eth
        eth.qt.write(DATA, frame[14:])
        eth.pc += eth.wqe(eth.sqn, eth.pc,
                          segs=[(len(frame) - 14, eth.lkey, DATA)],
                          inline=frame[:14])
        eth.sq_ring(eth.sqn, eth.pc)

    def wait(self, want):
        got = []
        for _ in range(100):
            got += self.cqes()
            if len(got) >= len(want):
                break
        return sorted(got)


def tir_in(td, rqn=0, rqt=0, key=b"", fields=0, lb=0):
    inp = hdr(0x900, size=0x110)
    setf(inp, 0x20, 32, 4, 1 if rqt else 0)
    setf(inp, 0x20, 232, 24, rqn)
    setf(inp, 0x20, 264, 24, rqt)
    setf(inp, 0x20, 288, 4, 2 if key else 0)          # Toeplitz
    setf(inp, 0x20, 294, 2, lb)
    setf(inp, 0x20, 296, 24, td)
    inp[0x20 + 0x28:0x20 + 0x28 + len(key)] = key
    setf(inp, 0x20, 0x280, 32, fields)                # outer selector
    return inp


def steer_setup(eth):
    st = Steer(eth)
    eth.steer = st
    eth.wire.frames()
    eth.qt.write(RQ2_DBR, bytes(4))
    s, st.rq2 = eth.new(eth.wq_in(1, eth.cqn, log_sz=4, pas=RQ2_BUF,
                                  dbr=RQ2_DBR))
    expect("CREATE_RQ 2", s, 0)
    expect("RQ 2 RST to RDY", eth.modify(1, st.rq2, 0, 1), 0)
    s, st.td2 = eth.new(hdr(0x816))
    expect("a second transport domain", s, 0)
    s, st.tir2 = eth.new(tir_in(st.td2, rqn=st.rq2))
    expect("TIR 2 (the other domain)", s, 0)
    # the root: a table at level 0, by destination MAC, before eth.ft
    s, st.t0 = eth.new(ft_in(level=0, miss=1, miss_id=eth.ft))
    expect("CREATE_FLOW_TABLE level 0, miss to the receive case's", s, 0)
    s, st.g0 = eth.new(fg_in(st.t0, 0, 3, 1, dmac_criteria(b"\xff" * 6)))
    expect("CREATE_FLOW_GROUP", s, 0)
    root = hdr(0x92F, size=0x40)
    setf(root, 0, 168, 24, st.t0)
    expect("SET_FLOW_TABLE_ROOT", eth.st(root), 0)
    # no old WQEs on RQ 1, the SQ from its first WQE: both reset
    for rq, n in ((1, eth.rqn), (0, eth.sqn)):
        eth.modify(rq, n, 1, 0)
        eth.modify(rq, n, 3, 0)
        expect("RST to RDY", eth.modify(rq, n, 0, 1), 0)
    eth.rq_pc = eth.pc = 0
    eth.qt.write(DBR + 0x80, bytes(4))
    st.cqes()
    return None


def value(mac):
    v = bytearray(0x40)
    v[8:14] = mac
    return bytes(v)


def post_both(eth, st, n=1):
    for _ in range(n):
        rq_post(eth, [(2048, eth.lkey, DATA + 0x10000)])
    st.rq2_post(n)


def multi_dest(eth):
    st = eth.steer
    expect("entry: multicast to TIR 1 and TIR 2",
           eth.st(fte_in(st.t0, st.g0, 0, 4,
                         [(DEST_TIR, eth.tir), (DEST_TIR, st.tir2)],
                         value(MCAST))), 0)
    post_both(eth, st)
    eth.wire.send(ipv4_udp(b"m" * 64, dst=MCAST))
    expect("a copy to each RQ", st.wait([0, 0]),
           sorted([(2, eth.rqn), (2, st.rq2)]))
    expect("the same TIR twice: one copy",
           eth.st(fte_in(st.t0, st.g0, 0, 4,
                         [(DEST_TIR, st.tir2), (DEST_TIR, st.tir2)],
                         value(MCAST), op_mod=1)), 0)
    st.rq2_post(2)
    eth.wire.send(ipv4_udp(b"m" * 64, dst=MCAST))
    expect("one CQE", st.wait([0, 0]), [(2, st.rq2)])
    # our MAC: to TIR 2 and on to the receive case's table (TIR 1)
    expect("entry: our MAC to TIR 2 and the deeper table",
           eth.st(fte_in(st.t0, st.g0, 1, 4,
                         [(DEST_TIR, st.tir2), (DEST_FT, eth.ft)],
                         value(MAC))), 0)
    rq_post(eth, [(2048, eth.lkey, DATA + 0x10000)])
    eth.wire.send(ipv4_udp(b"u" * 64))
    expect("a copy by each path", st.wait([0, 0]),
           sorted([(2, eth.rqn), (2, st.rq2)]))
    # drop wins over the table's miss
    expect("entry: another MAC dropped",
           eth.st(fte_in(st.t0, st.g0, 2, 2, [], value(OTHER))), 0)
    eth.wire.send(ipv4_udp(b"d" * 64, dst=OTHER))
    expect("dropped", st.wait([0]), [])
    return None


def loopback(eth):
    st = eth.steer
    eth.wire.frames()
    frame = ipv4_udp(bytes(range(100)), dst=MCAST)
    post_both(eth, st)
    expect("entry: multicast to TIR 1 and TIR 2 again",
           eth.st(fte_in(st.t0, st.g0, 0, 4,
                         [(DEST_TIR, eth.tir), (DEST_TIR, st.tir2)],
                         value(MCAST), op_mod=1)), 0)
    st.send(frame)
    expect("looped back to TIR 2 only (TIR 1: the SQ's own domain)",
           st.wait([0, 0]), sorted([(0, eth.sqn), (2, st.rq2)]))
    expect("and on the wire", len(eth.wire.frames()), 1)
    got = eth.qt.read(DATA + 0x40000 + 0x800 * ((st.rq2_pc - 1) % 16),
                      len(frame))
    expect("the frame as sent", got, frame)
    # self_lb_block's multicast bit lets TIR 1 take its domain's frames
    m = hdr(0x901, size=0x110)
    setf(m, 0, 72, 24, eth.tir)
    setf(m, 0x10, 0x3B, 1, 1)                   # bitmask: self_lb_en
    setf(m, 0x20, 294, 2, 2)
    expect("MODIFY_TIR: self loopback of multicast", eth.st(m), 0)
    st.rq2_post()
    st.send(frame)
    expect("looped back to both", st.wait([0, 0, 0]),
           sorted([(0, eth.sqn), (2, eth.rqn), (2, st.rq2)]))
    setf(m, 0x20, 294, 2, 0)
    expect("MODIFY_TIR: blocked again", eth.st(m), 0)
    # unicast to our own address loops back too; to another does not
    post_both(eth, st)
    st.send(ipv4_udp(b"o" * 40))
    expect("unicast to our MAC: to TIR 2 (TIR 1 blocked)",
           st.wait([0, 0]), sorted([(0, eth.sqn), (2, st.rq2)]))
    st.rq2_post()
    expect("entry: the other MAC to TIR 2",
           eth.st(fte_in(st.t0, st.g0, 2, 4, [(DEST_TIR, st.tir2)],
                         value(OTHER), op_mod=1)), 0)
    st.send(ipv4_udp(b"o" * 40, dst=OTHER))
    expect("unicast to another MAC: the wire only", st.wait([0, 0]),
           [(0, eth.sqn)])
    expect("the three others on the wire", len(eth.wire.frames()), 3)
    return None


def rss(eth):
    st = eth.steer
    inp = hdr(0x916, size=0x20 + 0xF0 + 8)
    setf(inp, 0x20, 0xB0, 16, 2)                        # rqt_max_size
    setf(inp, 0x20, 0xD0, 16, 2)                        # rqt_actual_size
    struct.pack_into(">II", inp, 0x20 + 0xF0, eth.rqn, st.rq2)
    s, rqt = eth.new(inp)
    expect("CREATE_RQT of RQ 1 and RQ 2", s, 0)
    s, tir3 = eth.new(tir_in(eth.td, rqt=rqt, key=KEY, fields=0x3))
    expect("TIR: Toeplitz over the IPv4 addresses", s, 0)
    rss_mac = bytes.fromhex("02aabbccdd01")
    expect("entry: to the RSS TIR", eth.st(fte_in(st.t0, st.g0, 3, 4,
                                                  [(DEST_TIR, tir3)],
                                                  value(rss_mac))), 0)
    want = []
    for i in range(8):
        src = bytes([10, 1, i, 7 * i])
        h = toeplitz(KEY, src + bytes([10, 0, 0, 2]))
        want.append((2, (eth.rqn, st.rq2)[h % 2]))
    post_both(eth, st, 8)
    for i in range(8):
        eth.wire.send(udp_from(bytes([10, 1, i, 7 * i]), dst=rss_mac))
    got = st.wait(want)
    expect("each frame on the RQ its hash picks", got, sorted(want))
    expect("both RQs used", len(set(want)), 2)
    return None


def query(eth):
    st = eth.steer

    def q(op, n, outlen=0x120):
        inp = hdr(op, size=0x10)
        setf(inp, 0, 72, 24, n)
        return eth.run(inp, outlen)

    out = q(0x907, eth.sqn)
    expect("QUERY_SQ", out[0], 0)
    expect("SQ state RDY", out[0x21] >> 4, 1)
    expect("SQ cqn", u24(out, 0x20 + 8), eth.cqn)
    expect("SQ TIS", u24(out, 0x20 + 0x2C), eth.tis)
    out = q(0x90B, st.rq2)
    expect("QUERY_RQ", out[0], 0)
    expect("RQ state RDY", out[0x21] >> 4, 1)
    expect("RQ cqn", u24(out, 0x20 + 8), eth.cqn)
    expect("RQ hw_counter: the WQEs it took",
           struct.unpack(">I", out[0x20 + 0x30 + 0x18:][:4])[0],
           st.taken.get(st.rq2, 0))
    expect("QUERY_SQ of no SQ", q(0x907, 200)[0], 0x5)
    expect("QUERY_RQ of no RQ", q(0x90B, 0)[0], 0x5)
    expect("QUERY_SQ, output short", q(0x907, eth.sqn, 0x40)[0], 0x51)
    expect("QUERY_RQ, output short", q(0x90B, st.rq2, 0x20)[0], 0x51)
    # random queries: numbers live and not, inputs and outputs of any size
    rnd = random.Random(int(os.environ.get("FUZZ_SEED", "34")))
    seen = {}
    for _ in range(int(os.environ.get("FUZZ_ROUNDS", "2000")) // 10):
        inp = bytearray(rnd.randbytes(rnd.choice([8, 16, 0x40])))
        struct.pack_into(">HHHH", inp, 0, rnd.choice([0x907, 0x90B]), 0, 0,
                         rnd.randrange(3))
        if len(inp) >= 12 and rnd.random() < 0.5:
            struct.pack_into(">I", inp, 8, rnd.randrange(6))
        out = eth.run(inp, rnd.choice([8, 16, 0x40, 0x110, 0x120]))
        seen[out[0]] = seen.get(out[0], 0) + 1
    expect("random queries answered", sum(seen.values()) > 0, True)
    # a TIR destroyed under an entry: its copy is lost, the rest goes on
    expect("DESTROY_TIR 2, an entry still names it",
           eth.destroy(0x902, st.tir2), 0)
    post_both(eth, st)
    eth.wire.send(ipv4_udp(b"g" * 64))
    expect("the deeper table's copy only", st.wait([0]), [(2, eth.rqn)])
    return None


STEER_CASES = [
    ("steering: a second RQ, TIR and domain, a root table", steer_setup),
    ("steering: an entry to two TIRs, to a TIR and a table; drop",
     multi_dest),
    ("local loopback: by transport domain and self_lb_block", loopback),
    ("RSS: an RQ table behind a Toeplitz TIR", rss),
    ("QUERY_SQ, QUERY_RQ; unknown queues, short outputs; a gone TIR",
     query),
]

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The E810 model driven directly, without a guest (QEMU's qtest
# accelerator; mlx5_qtest.py's QTest and Wire): registers at reset, the
# admin queue as ice brings it up, the statuses of broken commands, a
# PF reset, the RoCE data path (a memory region, an RC QP whose SEND
# goes to the wire, the doorbell shadow area), statistics (instances, a
# gather, a frame from the wire counted), and FUZZ_ROUNDS rounds
# of hostile input: random commands
# (every opcode range the model answers, random flags, lengths,
# parameters and buffers), descriptor rings and LAN queue contexts
# pointing anywhere, doorbells, interrupt registers and frames from the
# wire into queues programmed with garbage.  After each case QEMU must
# still answer and the admin queue still run a command.  Prints KTAP.
#
#	tools/qemu/tests/e810_qtest.py [QEMU]     (default: scripts/qemu-build's)
import os
import random
import struct
import subprocess
import sys
import zlib

from mlx5_qtest import PciFunction, QTest, Wire, case, expect, results

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "../../.."))
FUZZ_ROUNDS = int(os.environ.get("FUZZ_ROUNDS", "2000"))

BAR0 = 0xD0000000        # 128 MiB
MSIX_BAR = 0xE8000000
ATQ = 0x100000           # the admin send ring (64 descriptors)
ARQ = 0x101000           # the admin receive ring
ARQ_BUFS = 0x110000      # its buffers, 4 KiB each
BUF = 0x200000           # a command's indirect buffer
RING = 0x300000          # LAN rings
RAM = 256 << 20
N = 64

# Admin queue registers (e810-aq.c).
ATQBAL, ATQBAH, ATQLEN, ATQH, ATQT = 0x80000, 0x80100, 0x80200, 0x80300, 0x80400
ARQBAL, ARQBAH, ARQLEN, ARQH, ARQT = 0x80080, 0x80180, 0x80280, 0x80380, 0x80480
LEN_ENABLE, LEN_CRIT = 1 << 31, 1 << 30

FLAG_DD, FLAG_CMP, FLAG_ERR = 1, 2, 4
FLAG_RD, FLAG_BUF, FLAG_SI = 1 << 10, 1 << 12, 1 << 13
RC_EINVAL, RC_ENOSYS, RC_EIO = 14, 17, 5

# The opcode ranges the model answers, and around them.
OPCODES = (list(range(0x0001, 0x0012)) + list(range(0x0100, 0x0111)) +
           list(range(0x0200, 0x02A5)) + list(range(0x0300, 0x0304)) +
           list(range(0x0400, 0x0418)) + list(range(0x0600, 0x0622)) +
           [0x06EA] + list(range(0x0700, 0x070C)) +
           list(range(0x0A00, 0x0A0B)) + list(range(0x0B00, 0x0B06)) +
           list(range(0x0C30, 0x0C44)))

# LAN and interrupt registers (e810-lan.c, e810-irq.c).
QRX_CONTEXT = 0x280000   # (i, q): + i * 0x2000 + q * 4
QRX_CTRL = 0x120000
QRX_TAIL = 0x290000
QTX_COMM_DBELL = 0x2C0000
QINT_RQCTL = 0x150000
QINT_TQCTL = 0x140000
GLINT_DYN_CTL = 0x160000
PFGEN_CTRL = 0x91000

# The PE (e810-pe.c): the control QP's registers and doorbells.
CCQPSTATUS, CCQPLOW, CCQPHIGH = 0x50A000, 0x50A080, 0x50A100
CQPDB, CQPTAIL = 0x500800, 0x500880
PE_REGS = [0x502C00, 0x502C80, 0x502D00, 0x504400, 0x520300,
           0x16CB00, 0x7F0000, 0x7F0040] + [0x15C000 + i * 4 for i in range(40)]
CQP_CTX = 0x400000       # its host context
CQP_SQ = 0x401000        # its send queue: 64 WQEs of 64 bytes
PE_MEM = 0x500000        # what its commands point at: 1 MiB of noise

# The RoCE data path (e810-roce*.c, e810-stag.c).
MAC = "52:54:00:e8:10:01"
MAC_BYTES = bytes.fromhex(MAC.replace(":", ""))
PEER_MAC = bytes.fromhex("525400e81002")
WQEALLOC, DB_PAGE = 0x504400, 0x7F0000
FPM_BUF = 0x600000       # QUERY/COMMIT_FPM_VAL's buffer
CQ_RING = 0x610000       # CQ 1: 64 entries of 32 bytes
CQ_SHADOW = 0x611000
QP_CTX = 0x612000        # the QP's 256-byte context
QP_SHADOW = 0x613000     # its doorbell shadow area
SQ = 0x614000            # 16 quanta of 32 bytes
RQ = 0x615000            # 4 WQEs of 32 bytes
DATA = 0x620000          # the memory region: one 4 KiB page
MCG_CTX = 0x621000       # a multicast group's members
CEQ_RING = 0x630000      # CEQ 0: 16 entries of 8 bytes
CQARM = 0x502C00         # PFPE_CQARM
DATA_VA = 0x7F0000001000
QPN = 2
STAG = (1 << 8) | 0x11


class Dev(PciFunction):
    """The E810: 64-bit BAR0 the register file, BAR3 the MSI-X table."""

    def __init__(self, qt):
        super().__init__(qt, 0x159B8086, ((0x10, BAR0 | 4), (0x14, 0),
                                          (0x1C, MSIX_BAR | 4), (0x20, 0)))

    def reg(self, off):
        return self.qt.readl(BAR0 + off)

    def reg_w(self, off, v):
        self.qt.writel(BAR0 + off, v & 0xFFFFFFFF)

    def aq_setup(self, atq=ATQ):
        """The admin queue as ice sets it up (ice_cfg_cq_regs)."""
        for base, ring, bal, bah, ln, h, t in (
                (atq, ATQ, ATQBAL, ATQBAH, ATQLEN, ATQH, ATQT),
                (ARQ, ARQ, ARQBAL, ARQBAH, ARQLEN, ARQH, ARQT)):
            self.reg_w(h, 0)
            self.reg_w(t, 0)
            self.reg_w(ln, N | LEN_ENABLE)
            self.reg_w(bal, base & 0xFFFFFFFF)
            self.reg_w(bah, base >> 32)
        for i in range(N):
            d = bytearray(32)
            struct.pack_into("<HHH", d, 0, FLAG_BUF, 0, 4096)
            struct.pack_into("<II", d, 24, 0, ARQ_BUFS + i * 4096)
            self.qt.write(ARQ + i * 32, bytes(d))
        self.reg_w(ARQT, N - 1)
        self.next = 0

    def aq(self, opcode, params=b"", buf=None, flags=0, datalen=None,
           buf_addr=BUF):
        """One command: (flags, retval, descriptor, buffer written back)."""
        d = bytearray(32)
        if buf is not None:
            flags |= FLAG_BUF
            self.qt.write(buf_addr, bytes(buf))
        n = len(buf) if buf is not None else 0
        struct.pack_into("<HHHH", d, 0, flags | FLAG_SI, opcode,
                         n if datalen is None else datalen, 0)
        d[16:16 + len(params)] = params[:16]
        if buf is not None:
            struct.pack_into("<II", d, 24, buf_addr >> 32,
                             buf_addr & 0xFFFFFFFF)
        slot = self.next
        self.qt.write(ATQ + slot * 32, bytes(d))
        self.next = (slot + 1) % N
        self.reg_w(ATQT, self.next)
        expect("ATQ head after opcode 0x%04x" % opcode, self.reg(ATQH),
               self.next)
        back = self.qt.read(ATQ + slot * 32, 32)
        f, _, dl, rv = struct.unpack_from("<HHHH", back, 0)
        out = self.qt.read(buf_addr, n) if n else b""
        return f, rv, back, out


def main():
    qemu = sys.argv[1] if len(sys.argv) > 1 else subprocess.check_output(
        [os.path.join(REPO, "scripts/qemu-build")], text=True).strip()
    wire = Wire()
    qt = QTest(qemu, wire, opts=",mac=" + MAC, device="e810")
    dev = Dev(qt)
    rng = random.Random(810)
    print("TAP version 13")

    def reset_regs():
        expect("GLGEN_RSTAT", dev.reg(0xB8188) & 3, 0)
        expect("GLNVM_ULD", dev.reg(0xB6008) & 0x73B, 0x73B)
        expect("PF_FUNC_RID", dev.reg(0x9E880), 0)
        expect("GLNVM_FLA locked", dev.reg(0xB6108) >> 6 & 1, 1)

    def bringup():
        dev.aq_setup()
        expect("ATQBAL read back", dev.reg(ATQBAL), ATQ)
        expect("ATQLEN read back", dev.reg(ATQLEN), N | LEN_ENABLE)
        f, rv, d, _ = dev.aq(0x0001)
        expect("get_ver flags", f & (FLAG_DD | FLAG_CMP | FLAG_ERR),
               FLAG_DD | FLAG_CMP)
        expect("get_ver status", rv, 0)
        expect("API version", tuple(d[29:32]), (1, 5, 0))
        # The device's capabilities: RDMA (0x51) among them.
        f, rv, d, out = dev.aq(0x000B, buf=bytes(4096))
        expect("list caps status", rv, 0)
        count = struct.unpack_from("<I", d, 20)[0]     # params: count
        caps = [struct.unpack_from("<H", out, i * 32)[0] for i in range(count)]
        if 0x51 not in caps:
            return "no RDMA capability in %r" % caps
        return None

    def statuses():
        f, rv, _, _ = dev.aq(0x7FFF)
        expect("unknown opcode", (rv, bool(f & FLAG_ERR)), (RC_ENOSYS, True))
        f, rv, _, _ = dev.aq(0x000B, buf=b"", datalen=0)
        expect("indirect, no length", rv, RC_EINVAL)
        f, rv, _, _ = dev.aq(0x000B, buf=bytes(16), datalen=8192)
        expect("indirect, 8 KiB", rv, RC_EINVAL)
        f, rv, _, _ = dev.aq(0x0C40, buf=bytes(64), flags=FLAG_RD,
                             buf_addr=0xFFFFFFFFF000)
        expect("buffer out of guest memory", rv, RC_EIO)
        f, rv, _, _ = dev.aq(0x0701, params=bytes(16), buf=bytes(4096))
        expect("NVM read of 0 bytes", rv, RC_EINVAL)

    def broken_ring():
        # A ring outside guest memory: the queue stops, CRIT set, QEMU lives.
        dev.aq_setup(atq=0xFFFFFFFF0000)
        dev.reg_w(ATQT, 1)
        expect("ATQLEN critical", bool(dev.reg(ATQLEN) & LEN_CRIT), True)
        dev.aq_setup()
        f, rv, _, _ = dev.aq(0x0001)
        expect("get_ver after", rv, 0)

    def interrupt_latch():
        # A cause that comes while the vector is masked (INTENA clear, as
        # the device leaves it after firing) fires when the driver writes
        # INTENA | CLEARPBA, as ice and irdma do after polling: CLEARPBA
        # clears the MSI-X pending bit array, not the latched cause.
        msi_addr, vec = 0x380000, 5
        dyn = GLINT_DYN_CTL + vec * 4
        dev.msix_enable()
        for off, v in ((0, msi_addr), (4, 0), (8, 0xE810), (12, 0)):
            qt.writel(MSIX_BAR + vec * 16 + off, v)
        qt.writel(msi_addr, 0)
        dev.reg_w(dyn, 0)                                 # masked
        dev.reg_w(dyn, 1 << 2 | 1 << 31)                  # a cause
        expect("no interrupt while masked", qt.readl(msi_addr), 0)
        dev.reg_w(dyn, 1 | 1 << 1)                        # INTENA | CLEARPBA
        expect("the latched cause fires", qt.readl(msi_addr), 0xE810)
        qt.writel(msi_addr, 0)
        dev.reg_w(dyn, 1 | 1 << 1)
        expect("once", qt.readl(msi_addr), 0)

    def pf_reset():
        dev.reg_w(PFGEN_CTRL, 1)
        expect("PFSWR done", dev.reg(PFGEN_CTRL) & 1, 0)
        expect("ATQLEN after reset", dev.reg(ATQLEN), 0)
        dev.aq_setup()
        f, rv, _, _ = dev.aq(0x0001)
        expect("get_ver after reset", rv, 0)

    def fuzz_commands():
        for r in range(FUZZ_ROUNDS):
            op = rng.choice(OPCODES)
            params = bytes(rng.getrandbits(8) for _ in range(16))
            n = rng.choice([0, 8, 16, 24, 48, 100, 160, 512, 4096,
                            rng.randrange(1, 4097)])
            buf = None
            if n:
                buf = bytes(rng.getrandbits(8) if rng.random() < 0.3 else 0
                            for _ in range(n))
            flags = rng.choice([0, FLAG_RD])
            dev.aq(op, params, buf, flags)
        f, rv, _, _ = dev.aq(0x0001)
        expect("get_ver after the fuzz", rv, 0)

    def fuzz_queues():
        # Queue contexts, controls, tails, doorbells and interrupt
        # registers at random, rings anywhere, frames from the wire.
        for r in range(FUZZ_ROUNDS):
            q = rng.randrange(70)
            what = rng.randrange(8)
            v = rng.getrandbits(32)
            if what == 0:
                dev.reg_w(QRX_CONTEXT + rng.randrange(8) * 0x2000 + q * 4, v)
            elif what == 1:
                dev.reg_w(QRX_CTRL + q * 4, v)
            elif what == 2:
                dev.reg_w(QRX_TAIL + q * 4, v)
            elif what == 3:
                dev.reg_w(QTX_COMM_DBELL + q * 4, v)
            elif what == 4:
                dev.reg_w(rng.choice([QINT_RQCTL, QINT_TQCTL]) + q * 4, v)
            elif what == 5:
                dev.reg_w(GLINT_DYN_CTL + q * 4, v)
            elif what == 6:
                qt.write(RING + rng.randrange(0, 0x10000, 16),
                         bytes(rng.getrandbits(8) for _ in range(32)))
            else:
                frame = bytes(rng.getrandbits(8)
                              for _ in range(rng.randrange(14, 1600)))
                wire.send(b"\xff" * 6 + frame[6:])
                qt.clock_step(1000000)
        wire.frames()
        f, rv, _, _ = dev.aq(0x0001)
        expect("get_ver after the fuzz", rv, 0)

    def fuzz_registers():
        # Any dword of BAR0, read and written.
        for r in range(FUZZ_ROUNDS):
            off = rng.randrange(0, 128 << 20, 4)
            if off in (PFGEN_CTRL,):
                continue
            if rng.random() < 0.5:
                dev.reg(off)
            else:
                dev.reg_w(off, rng.getrandbits(32))
        dev.aq_setup()
        f, rv, _, _ = dev.aq(0x0001)
        expect("get_ver after the fuzz", rv, 0)

    def fuzz_pe():
        # The control QP made from a host context, then commands of
        # random opcodes and fields (valid bit right, addresses into
        # guest memory full of noise or anywhere), doorbells at random
        # indexes, the CQP destroyed and made again, the PE's other
        # registers and the user doorbell page written at random.
        qt.write(PE_MEM, bytes(rng.getrandbits(8) for _ in range(4096)) * 256)
        ctx = bytearray(64)
        struct.pack_into("<QQQQ", ctx, 0, 5 << 8, CQP_SQ, 0, 0xC0FFEE)
        qt.write(CQP_CTX, bytes(ctx))
        dev.reg_w(CCQPHIGH, 0)
        dev.reg_w(CCQPLOW, CQP_CTX)
        expect("CQP made", dev.reg(CCQPSTATUS) & 1, 1)
        idx, valid = 0, 1
        for r in range(FUZZ_ROUNDS):
            what = rng.randrange(10)
            if what < 6:
                w = bytearray(rng.getrandbits(8) for _ in range(64))
                for off in (0, 8, 16, 32, 40, 48, 56):
                    if rng.random() < 0.5:
                        struct.pack_into("<Q", w, off, PE_MEM +
                                         rng.randrange(0, 1 << 20, 64))
                hdr = (rng.getrandbits(32) | rng.randrange(0x40) << 32 |
                       rng.getrandbits(25) << 38) & ~(1 << 63)
                struct.pack_into("<Q", w, 24, hdr | valid << 63)
                qt.write(CQP_SQ + idx * 64, bytes(w))
                idx = (idx + 1) % 64
                if not idx:
                    valid ^= 1
                dev.reg_w(CQPDB, idx)
            elif what == 6:
                dev.reg_w(CQPDB, rng.getrandbits(32))
            elif what == 7:
                dev.reg_w(rng.choice(PE_REGS), rng.getrandbits(32))
            elif what == 8 and rng.random() < 0.05:
                dev.reg_w(CCQPLOW, 0)
                dev.reg_w(CCQPLOW, CQP_CTX)
                idx, valid = 0, 1
            else:
                dev.reg(rng.choice(PE_REGS + [CQPTAIL, CCQPSTATUS]))
        # Every command written ran (the tail reached the last one), each
        # answered, failed or not.
        expect("CQP tail", dev.reg(CQPTAIL) & 0x7FF, idx)
        dev.reg_w(CCQPLOW, 0)
        f, rv, _, _ = dev.aq(0x0001)
        expect("get_ver after the fuzz", rv, 0)


    class Cqp:
        """The control QP: WQEs written and their doorbell rung."""

        def __init__(self):
            ctx = bytearray(64)
            struct.pack_into("<QQQQ", ctx, 0, 5 << 8, CQP_SQ, 0, 0xC0FFEE)
            qt.write(CQP_CTX, bytes(ctx))
            dev.reg_w(CCQPHIGH, 0)
            dev.reg_w(CCQPLOW, CQP_CTX)
            expect("CQP made", dev.reg(CCQPSTATUS) & 1, 1)
            self.idx, self.valid = 0, 1

        def op(self, opcode, hdr_low=0, q=None):
            """One command; whether it succeeded (PFPE_CQPTAIL's error)."""
            w = bytearray(64)
            for i, v in (q or {}).items():
                struct.pack_into("<Q", w, i * 8, v)
            struct.pack_into("<Q", w, 24, hdr_low | opcode << 32 |
                             self.valid << 63)
            qt.write(CQP_SQ + self.idx * 64, bytes(w))
            self.idx = (self.idx + 1) % 64
            if not self.idx:
                self.valid ^= 1
            dev.reg_w(CQPDB, self.idx)
            return not dev.reg(CQPTAIL) >> 31

    def qp_ctx(state_sq_psn=0x100, sq_code=2, rq_code=0, arp=0, dest_qp=5,
               rq_psn=0x200, dest_ip=0x0A230102, qkey=0):
        c = bytearray(256)
        struct.pack_into("<Q", c, 0, 1 << 3)                 # IPv4
        struct.pack_into("<Q", c, 8, SQ)
        struct.pack_into("<Q", c, 16, RQ)
        struct.pack_into("<Q", c, 24, 64 | rq_code << 8 | sq_code << 12 |
                         0xC000 << 32 | 4791 << 48)
        struct.pack_into("<Q", c, 32, dest_ip)              # 10.35.1.2
        struct.pack_into("<Q", c, 48, 1024 << 16 | arp << 48)
        struct.pack_into("<Q", c, 56, 0xFFFF << 32)         # P_Key, PD 0
        struct.pack_into("<Q", c, 64, dest_qp | qkey << 32)
        struct.pack_into("<Q", c, 80, state_sq_psn)
        struct.pack_into("<Q", c, 88, rq_psn)
        struct.pack_into("<Q", c, 128, 7 << 48 | 7 << 54)
        struct.pack_into("<Q", c, 136, 1 | 1 << 32)         # CQ 1, CQ 1
        struct.pack_into("<Q", c, 152, int.from_bytes(MAC_BYTES, "big") << 16)
        # ORD 4, remote read and write, fast registration, privileged.
        struct.pack_into("<Q", c, 160, 4 | 3 << 20 | 3 << 24)
        struct.pack_into("<Q", c, 168, 0xFEEDF00D)
        struct.pack_into("<Q", c, 184, 0x0A230101)          # 10.35.1.1
        return c

    def roce_setup(qp_type=3, **ctx):
        # From a PF reset: no CQ, QP or STag of an earlier case.
        dev.reg_w(PFGEN_CTRL, 1)
        dev.aq_setup()
        qt.write(PE_MEM, bytes(0x100000))
        cqp = Cqp()
        fpm = bytearray(176)
        for off, n in ((0, 16), (8, 16), (32, 64), (48, 64), (104, 16),
                       (112, 1024)):
            struct.pack_into("<I", fpm, off, n)
        qt.write(FPM_BUF, bytes(fpm))
        expect("COMMIT_FPM_VAL", cqp.op(0x21, 0, {4: FPM_BUF}), True)
        # CQ 1 on CEQ 0, its completion context 0xCAFE.
        qt.write(CEQ_RING, bytes(16 * 8))
        expect("CREATE_CEQ 0", cqp.op(0x16, 0, {2: 16, 4: CEQ_RING}), True)
        expect("CREATE_CQ 1", cqp.op(0x03, 1 | 1 << 49, {
            0: 64, 1: 0xCAFE, 4: CQ_RING, 5: CQ_SHADOW}), True)
        expect("MANAGE_ARP 0", cqp.op(0x0F, 0 | 1 << 42, {
            2: int.from_bytes(PEER_MAC, "big")}), True)
        # ARP entry 1: the port itself, for a QP that talks to itself.
        expect("MANAGE_ARP 1", cqp.op(0x0F, 1 | 1 << 42, {
            2: int.from_bytes(MAC_BYTES, "big")}), True)
        qt.write(QP_CTX, bytes(qp_ctx(**ctx)))
        qt.write(SQ, bytes(512))
        qt.write(QP_SHADOW, bytes(8))
        qp_hdr = QPN | qp_type << 48
        for state in (1, 4, 2):         # idle (create), RTR, RTS
            expect("QP to state %d" % state,
                   cqp.op(0x00 if state == 1 else 0x01,
                          qp_hdr | state << 60, {2: QP_CTX, 5: QP_SHADOW}),
                   True)
        return cqp

    def roce_send():
        cqp = roce_setup()
        # A memory region over DATA: VA-based, local and remote rights.
        expect("REG_MR", cqp.op(0x0A, 0x0F << 48 | 1 << 59 | 1 << 43, {
            0: DATA_VA, 1: 4096, 2: STAG, 4: DATA}), True)
        expect("REG_MR of an index past the committed MRs",
               cqp.op(0x0A, 0x0F << 48, {1: 4096, 2: 200 << 8, 4: DATA}),
               False)
        qt.write(DATA, bytes(range(64)))
        wire.frames()
        # SEND of 64 bytes from the region, signaled, valid 1.
        w = bytearray(32)
        struct.pack_into("<QQQQ", w, 0, DATA_VA, 64 << 32 | STAG, 0,
                         1 << 63 | 1 << 62 | 3 << 32)
        qt.write(SQ, bytes(w))
        dev.reg_w(WQEALLOC, QPN)
        qt.clock_step(1000000)
        frames = [f for f in wire.frames()
                  if len(f) > 42 and f[12:14] == b"\x08\x00" and
                  struct.unpack_from(">H", f, 36)[0] == 4791]
        if not frames:
            return "no RoCE frame on the wire"
        f = frames[0]
        expect("destination MAC (ARP entry 0)", f[0:6], PEER_MAC)
        expect("source MAC (the context's)", f[6:12], MAC_BYTES)
        expect("BTH opcode RC SEND_ONLY", f[42], 0x04)
        expect("BTH destination QP", struct.unpack_from(">I", f, 46)[0]
               & 0xFFFFFF, 5)
        expect("BTH PSN", struct.unpack_from(">I", f, 50)[0] & 0xFFFFFF,
               0x100)
        expect("payload", f[54:54 + 64], bytes(range(64)))
        shadow = struct.unpack("<Q", qt.read(QP_SHADOW, 8))[0]
        expect("shadow area hw_sq_tail", shadow & 0x7FFF, 1)
        # A SEND under a key of another PD: the QP goes to error, one
        # flush CQE (major 1) on CQ 1, valid 1.
        struct.pack_into("<QQQQ", w, 0, DATA_VA, 64 << 32 | (STAG ^ 0x100),
                         0, 1 << 63 | 1 << 62 | 3 << 32)
        qt.write(SQ + 32, bytes(w))
        dev.reg_w(DB_PAGE, QPN)
        qt.clock_step(1000000)
        cqe = qt.read(CQ_RING, 32)
        q3 = struct.unpack_from("<Q", cqe, 24)[0]
        expect("CQE valid", q3 >> 63, 1)
        expect("CQE error, major 1", (q3 >> 55 & 1, q3 >> 16 & 0xFFFF),
               (1, 1))
        expect("CQE of the SQ, QP 2", (q3 >> 62 & 1,
               struct.unpack_from("<Q", cqe, 16)[0] >> 32 & 0xFFFFFF),
               (1, QPN))
        expect("CQE completion context",
               struct.unpack_from("<Q", cqe, 8)[0], 0xFEEDF00D)
        dev.reg_w(CCQPLOW, 0)

    def sq_post(cqp_idx, w):
        """WQE W (four quadwords, valid bit 1) at SQ quantum CQP_IDX."""
        qt.write(SQ + cqp_idx * 32, struct.pack("<QQQQ", *w))
        dev.reg_w(WQEALLOC, QPN)
        qt.clock_step(1000000)

    def sent_payloads():
        return [f[54:-4] for f in wire.frames()
                if len(f) > 42 and f[12:14] == b"\x08\x00" and
                struct.unpack_from(">H", f, 36)[0] == 4791 and f[42] == 0x04]

    def fast_reg_again():
        # An STag allocated for 8 KiB, fast-registered for 1 KiB,
        # invalidated, then fast-registered for 4 KiB: the second
        # registration may map what the allocation allows, not only what
        # the first mapped (nvme-rdma's pool MRs: connect's 1 KiB, then
        # Identify's 4 KiB).
        cqp = roce_setup()
        idx, va = 2 << 8, DATA_VA + 0x10000
        expect("ALLOC_STAG of 8 KiB", cqp.op(0x09, 1 << 43, {
            1: 8192, 2: idx}), True)
        qt.write(DATA, bytes(i & 0xFF for i in range(4096)))
        wire.frames()
        fr_hdr = 1 << 63 | 1 << 62 | 1 << 53 | 0x0F << 48 | 0x09 << 32
        sends = []
        for n, (key, length, off) in enumerate(((0x21, 1024, 64),
                                                (0x22, 4096, 2048))):
            # FAST_REG: VA-based, one 4 KiB page (PBL level 0), all rights.
            sq_post(3 * n, (va, DATA, length, fr_hdr | idx | key))
            # SEND of 64 bytes at OFF under the new key, signaled.
            sq_post(3 * n + 1, (va + off, 64 << 32 | idx | key, 0,
                                1 << 63 | 1 << 62 | 3 << 32))
            # LOCAL_INV of the key.
            sq_post(3 * n + 2, (0, idx | key, 0,
                                1 << 63 | 1 << 62 | 0x0A << 32))
            sends += sent_payloads()
        expect("SEND payloads under each registration", sends[:2],
               [bytes(range(64, 128)), bytes(range(64))])

    def solicited():
        # QP 2 connected to itself through the port's own MAC (loopback):
        # a SEND, then a SEND with the solicited event bit, into its RQ.
        # CQ 1 armed for solicited completions only must put its context
        # on CEQ 0 for the second alone.
        cqp = roce_setup(arp=1, dest_qp=QPN, rq_psn=0x100,
                         dest_ip=0x0A230101)
        expect("REG_MR", cqp.op(0x0A, 0x0F << 48 | 1 << 59 | 1 << 43, {
            0: DATA_VA, 1: 4096, 2: STAG, 4: DATA}), True)
        qt.write(DATA, bytes(range(128)) * 32)
        for i in range(2):
            qt.write(RQ + 32 * i, struct.pack(
                "<QQQQ", DATA_VA + 2048 + 256 * i, 128 << 32 | STAG, 0,
                1 << 63))
        qt.write(CQ_RING, bytes(64 * 32))
        qt.write(CQ_SHADOW + 32, struct.pack("<Q", 1 << 15))
        dev.reg_w(CQARM, 1)

        def ceqes():
            return [e & ~(1 << 63) for e in struct.unpack(
                "<16Q", qt.read(CEQ_RING, 16 * 8)) if e >> 63]

        def recv_cqes():
            out = []
            for i in range(64):
                q3 = struct.unpack_from("<Q", qt.read(CQ_RING + 32 * i, 32),
                                        24)[0]
                if q3 >> 63 and not q3 >> 62 & 1:
                    out.append(q3 >> 54 & 1)
            return out

        sq_post(0, (DATA_VA, 64 << 32 | STAG, 0,
                    1 << 63 | 1 << 62 | 0x03 << 32))
        expect("a receive CQE, not solicited", recv_cqes(), [0])
        expect("no CEQE for it", ceqes(), [])
        sq_post(1, (DATA_VA, 64 << 32 | STAG, 0,
                    1 << 63 | 1 << 62 | 0x05 << 32))
        expect("a second receive CQE, solicited", recv_cqes(), [0, 1])
        expect("one CEQE: CQ 1's context", ceqes(), [0xCAFE])
        expect("the data", qt.read(DATA + 2048 + 256, 64), bytes(range(64)))

    def memory_window():
        # QP 2 connected to itself (as in solicited) READs through a type
        # 1 window bound on a region that allows binding: the window's
        # bytes land in the local buffer.  A READ past the window's end
        # fails, and its bytes do not land.
        cqp = roce_setup(arp=1, dest_qp=QPN, rq_psn=0x100,
                         dest_ip=0x0A230101)
        expect("REG_MR with the bind right", cqp.op(
            0x0A, 0x1F << 48 | 1 << 59 | 1 << 43,
            {0: DATA_VA, 1: 4096, 2: STAG, 4: DATA}), True)
        mw = 3 << 8 | 0x40
        expect("ALLOC_STAG of a type 1 window", cqp.op(
            0x09, 1 << 42, {2: mw & ~0xFF}), True)
        qt.write(DATA, bytes(i & 0xFF for i in range(4096)))
        win_va, win_len = DATA_VA + 512, 256
        # BIND_MW: window VA, region and window STags, length; VA-based,
        # remote read, type 1.
        sq_post(0, (win_va, STAG << 32 | (mw + 1), win_len,
                    1 << 63 | 1 << 62 | 1 << 54 | 1 << 53 | 0x04 << 48 |
                    0x08 << 32))
        # READ 64 bytes at 16 into the window to DATA + 2048.
        sq_post(1, (DATA_VA + 2048, 64 << 32 | STAG, win_va + 16,
                    1 << 63 | 1 << 62 | 0x01 << 32 | (mw + 1)))
        expect("the window's bytes read", qt.read(DATA + 2048, 64),
               bytes((512 + 16 + i) & 0xFF for i in range(64)))
        # Past the window's end: refused, nothing lands.
        sq_post(2, (DATA_VA + 3072, 64 << 32 | STAG, win_va + 224,
                    1 << 63 | 1 << 62 | 0x01 << 32 | (mw + 1)))
        expect("a READ past the window", qt.read(DATA + 3072, 64),
               bytes((3072 + i) & 0xFF for i in range(64)))

    def roce_ud_frame(dmac, dip, dqpn, qkey, payload):
        """A RoCEv2 UD SEND_ONLY from the peer (10.35.1.2, QP 7), its
        ICRC computed as IBTA annex A17 has it."""
        bth = struct.pack(">BBHII", 0x64, 0, 0xFFFF, dqpn, 0)
        deth = struct.pack(">II", qkey, 7)
        udp = struct.pack(">HHHH", 0xC000, 4791,
                          8 + len(bth) + len(deth) + len(payload) + 4, 0)
        ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0,
                                   20 + len(udp) + len(bth) + len(deth) +
                                   len(payload) + 4, 0, 0x4000, 64, 17, 0,
                                   bytes([10, 35, 1, 2]),
                                   dip.to_bytes(4, "big")))
        csum = sum(struct.unpack(">10H", ip))
        csum = (csum & 0xFFFF) + (csum >> 16)
        struct.pack_into(">H", ip, 10, ~csum & 0xFFFF)
        masked = bytearray(ip + udp + bth)
        masked[1] = masked[8] = masked[10] = masked[11] = 0xFF
        masked[26] = masked[27] = 0xFF
        masked[32] = 0xFF
        icrc = zlib.crc32(b"\xff" * 8 + bytes(masked) + deth + payload)
        return (dmac + PEER_MAC + b"\x08\x00" + bytes(ip) + udp + bth +
                deth + payload + struct.pack("<I", icrc))

    def multicast():
        # A UD QP, member of group 5 (239.1.2.3) by CREATE_MCAST_GRP: a
        # datagram from the wire to the group's MAC and QP 0xFFFFFF
        # lands in its RQ; after DESTROY_MCAST_GRP one does not.
        qkey = 0x11111111
        cqp = roce_setup(qp_type=4, qkey=qkey)
        expect("REG_MR", cqp.op(0x0A, 0x0F << 48 | 1 << 59 | 1 << 43, {
            0: DATA_VA, 1: 4096, 2: STAG, 4: DATA}), True)
        for i in range(2):
            qt.write(RQ + 32 * i, struct.pack(
                "<QQQQ", DATA_VA + 1024 * i, 512 << 32 | STAG, 0, 1 << 63))
        qt.write(CQ_RING, bytes(64 * 32))
        qt.write(DATA, bytes(4096))
        group, gmac = 0xEF010203, bytes.fromhex("01005e010203")
        qt.write(MCG_CTX, struct.pack("<8Q", QPN | 1 << 31, *[0] * 7))
        expect("CREATE_MCAST_GRP 5", cqp.op(0x26, 5 | 1 << 60, {
            0: int.from_bytes(gmac, "big"), 4: MCG_CTX, 6: group}), True)
        expect("CREATE_MCAST_GRP 5 again", cqp.op(0x26, 5 | 1 << 60, {
            0: int.from_bytes(gmac, "big"), 4: MCG_CTX, 6: group}), False)
        payload = bytes(range(100, 132))
        wire.send(roce_ud_frame(gmac, group, 0xFFFFFF, qkey, payload))
        qt.clock_step(1000000)

        def recv_cqes():
            n = 0
            for i in range(64):
                q3 = struct.unpack_from("<Q", qt.read(CQ_RING + 32 * i, 32),
                                        24)[0]
                n += bool(q3 >> 63 and not q3 >> 62 & 1)
            return n

        # A UD receive CQE takes two 32-byte slots (source MAC, VLAN).
        n = recv_cqes()
        expect("a receive CQE for the member", n > 0, True)
        expect("the datagram after its GRH", qt.read(DATA + 40, 32), payload)
        expect("DESTROY_MCAST_GRP 5", cqp.op(0x28, 5 | 1 << 60, {}), True)
        wire.send(roce_ud_frame(gmac, group, 0xFFFFFF, qkey, payload))
        qt.clock_step(1000000)
        expect("none once the group is gone", recv_cqes(), n)

    def fuzz_roce():
        # The QP's context, WQEs, doorbells, STag commands and frames to
        # the port's MAC at random; the clock runs the engine's timers.
        cqp = roce_setup()
        for r in range(FUZZ_ROUNDS):
            what = rng.randrange(8)
            if what < 3:
                w = bytearray(rng.getrandbits(8) for _ in range(32))
                w[31] = (w[31] & 0x7F) | rng.randrange(2) << 7
                qt.write(SQ + rng.randrange(16) * 32, bytes(w))
                dev.reg_w(rng.choice([WQEALLOC, DB_PAGE]), QPN)
            elif what == 3:
                dev.reg_w(rng.choice([WQEALLOC, DB_PAGE]),
                          rng.choice([QPN, 1, 0, rng.getrandbits(32)]))
            elif what == 4:
                q = {i: rng.choice([rng.getrandbits(64), DATA, DATA_VA,
                                    rng.getrandbits(12)])
                     for i in range(8) if i != 3}
                cqp.op(rng.choice([0x09, 0x0A, 0x0D, 0x22]),
                       rng.getrandbits(32) | rng.getrandbits(26) << 38 &
                       ~(0x3F << 32), q)
            elif what == 5:
                c = qp_ctx(sq_code=rng.randrange(16), rq_code=rng.randrange(16),
                           arp=rng.randrange(2048))
                for _ in range(rng.randrange(8)):
                    c[rng.randrange(256)] = rng.getrandbits(8)
                qt.write(QP_CTX, bytes(c))
                cqp.op(0x01, QPN | 3 << 48 | rng.choice([1, 2, 4, 6]) << 60 |
                       rng.randrange(2) << 45, {2: QP_CTX, 5: QP_SHADOW})
            elif what == 6:
                body = bytes(rng.getrandbits(8)
                             for _ in range(rng.randrange(0, 200)))
                udp = struct.pack(">HHHH", 0xC000, 4791, 8 + len(body), 0)
                ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + len(body),
                                 0, 0x4000, 64, 17, 0,
                                 bytes([10, 35, 1, 2]), bytes([10, 35, 1, 1]))
                wire.send(MAC_BYTES + PEER_MAC + b"\x08\x00" + ip + udp +
                          body)
            else:
                qt.clock_step(rng.choice([1000, 1000000, 600000000]))
        wire.frames()
        expect("a command after the fuzz", cqp.op(0x24), True)
        dev.reg_w(CCQPLOW, 0)
        f, rv, _, _ = dev.aq(0x0001)
        expect("get_ver after the fuzz", rv, 0)

    def statistics():
        # Instances 1..127 (0 is the function's), then none; one freed
        # and taken again.  A gather to memory the guest does not have
        # fails; one to DATA has the counters of a frame from the wire.
        cqp = roce_setup()
        for i in range(1, 128):
            if not cqp.op(0x2D, 1 << 62):
                expect("MANAGE_STATS instance %d" % i, False, True)
                break
        expect("MANAGE_STATS: none left", cqp.op(0x2D, 1 << 62), False)
        expect("MANAGE_STATS: instance 5 freed", cqp.op(0x2D, 5), True)
        expect("MANAGE_STATS: taken again", cqp.op(0x2D, 1 << 62), True)
        expect("GATHER_STATS outside guest memory",
               cqp.op(0x2E, 1 << 61 | 5, {4: 1 << 50}), False)
        body = struct.pack(">BBHI", 0x64, 0, 0xFFFF, QPN) + bytes(20)
        udp = struct.pack(">HHHH", 0xC000, 4791, 8 + len(body), 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + len(body), 0,
                         0x4000, 64, 17, 0, bytes([10, 35, 1, 2]),
                         bytes([10, 35, 1, 1]))
        wire.send(MAC_BYTES + PEER_MAC + b"\x08\x00" + ip + udp + body)
        qt.clock_step(1000000)
        qt.write(DATA, bytes([0xEE]) * 1024)
        expect("GATHER_STATS", cqp.op(0x2E, 1 << 61 | 5, {4: DATA}), True)
        g = qt.read(DATA, 1024)

        def counter(off):
            return struct.unpack_from("<Q", g, off)[0]
        expect("ip4InPkts", counter(16), 1)
        expect("ip4InOctets", counter(8), 28 + len(body))
        expect("RxUDP", counter(224), 1)
        expect("iwInRdmaSends", counter(256), 1)
        expect("ip6InPkts", counter(64), 0)
        expect("the rest of the buffer", g[324:], bytes(700))

    case("registers at reset", reset_regs)
    case("admin queue bring-up, version, capabilities", bringup)
    case("statuses of broken commands", statuses)
    case("a descriptor ring outside guest memory", broken_ring)
    case("an interrupt latched while masked fires on INTENA | CLEARPBA",
         interrupt_latch)
    case("PF reset", pf_reset)
    case("%d random commands" % FUZZ_ROUNDS, fuzz_commands)
    case("%d random queue registers, rings and frames" % FUZZ_ROUNDS,
         fuzz_queues)
    case("%d random BAR0 accesses" % FUZZ_ROUNDS, fuzz_registers)
    case("%d random control QP commands and PE registers" % FUZZ_ROUNDS,
         fuzz_pe)
    case("RoCE: a memory region, an RC SEND to the wire, the shadow area, "
         "a bad key's flush CQE", roce_send)
    case("RoCE: a fast-registered STag registered again, for more than "
         "it mapped first", fast_reg_again)
    case("RoCE: a CQ armed for solicited events wakes for a SEND with SE "
         "only", solicited)
    case("RoCE: a multicast group's datagram to its member UD QP",
         multicast)
    case("statistics: instances, a gather outside memory, a frame counted",
         statistics)
    case("RoCE: a READ through a type 1 memory window, and past its end",
         memory_window)
    case("%d random RoCE contexts, WQEs, doorbells, STags and frames" %
         FUZZ_ROUNDS, fuzz_roce)
    qt.close()
    # The plan last (TAP allows it), counted rather than kept by hand.
    print("1..%d" % len(results))
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's command interface driven directly, without a guest:
# QEMU's qtest accelerator lets this script read and write guest memory
# and the device's registers, so each case builds its commands byte by
# byte, as a driver would or as a hostile one would.  Prints KTAP.
#
#	tools/qemu/tests/mlx5_qtest.py [QEMU]     (default: scripts/qemu-build's)
#
# Cases: the initialization segment as the driver reads it; a bring-up
# sequence with inline and mailbox data both ways; every delivery error
# the engine reports (descriptor type, lengths, null, unaligned and
# unmapped mailboxes, block numbers, tokens, a chain that loops); the
# command statuses (unknown opcode, short input and output, state); and
# FUZZ_ROUNDS rounds of random slots and mailboxes; at the end a fatal
# error raised through x-fault-inject.  After each case QEMU
# must still answer, and every slot handed to the device must come back.
import os
import random
import socket
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "../../.."))
FUZZ_ROUNDS = int(os.environ.get("FUZZ_ROUNDS", "2000"))

BAR0 = 0xE0000000
MSIX_BAR = 0xE4000000
ECAM = 0xB0000000        # q35's PCIe configuration window, placed by Dev
CMDQ = 0x100000          # the command queue page
MB = 0x200000            # mailboxes from here, 1 KiB apart
RAM = 256 << 20

LAY_SIZE = 64
MB_SIZE = 576


class Wire:
    """The other end of the device's netdev: two UDP ports of 127.0.0.1
    (QEMU's socket netdev in UDP mode: one frame a datagram)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0)
        self.port = self.sock.getsockname()[1]
        q = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        q.bind(("127.0.0.1", 0))
        self.qemu_port = q.getsockname()[1]
        q.close()

    def netdev(self):
        return "socket,id=w0,udp=127.0.0.1:%d,localaddr=127.0.0.1:%d" % (
            self.port, self.qemu_port)

    def frames(self):
        out = []
        while True:
            try:
                out.append(self.sock.recv(70000))
            except BlockingIOError:
                return out

    def send(self, frame):
        # QEMU's socket netdev takes an empty datagram for the end of
        # the connection and stops reading: every frame after it would
        # be lost.  A wire has no empty frames anyway.
        if frame:
            self.sock.sendto(frame, ("127.0.0.1", self.qemu_port))


class QTest:
    def __init__(self, qemu, wire, opts=",x-fault-inject=on", device="mlx5"):
        self.p = subprocess.Popen(
            [qemu, "-M", "q35", "-accel", "qtest", "-qtest", "stdio",
             "-qtest-log", "/dev/null", "-display", "none", "-nodefaults",
             "-m", "256M", "-netdev", wire.netdev(),
             "-device", device + ",netdev=w0" + opts],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        while True:
            r = self.p.stdout.readline()
            if not r:
                raise RuntimeError("QEMU died on: " + line)
            if r.startswith("OK") or r.startswith("FAIL") or \
               r.startswith("ERR"):
                break
        if not r.startswith("OK"):
            raise RuntimeError(line + ": " + r.strip())
        return r.split()[1:] if len(r.split()) > 1 else []

    def outl(self, port, v):
        self.cmd("outl 0x%x 0x%x" % (port, v))

    def inl(self, port):
        return int(self.cmd("inl 0x%x" % port)[0], 16)

    def writel(self, a, v):
        self.cmd("writel 0x%x 0x%x" % (a, v))

    def readl(self, a):
        return int(self.cmd("readl 0x%x" % a)[0], 16)

    def readb(self, a):
        return int(self.cmd("readb 0x%x" % a)[0], 16)

    def write(self, a, data):
        if data:
            self.cmd("write 0x%x 0x%x 0x%s" % (a, len(data), data.hex()))

    def read(self, a, n):
        return bytes.fromhex(self.cmd("read 0x%x 0x%x" % (a, n))[0][2:])

    def clock_step(self, ns):
        self.cmd("clock_step %d" % ns)

    def close(self):
        """Stop QEMU; its messages (stderr) become diagnostics."""
        self.p.terminate()
        _, err = self.p.communicate(timeout=10)
        for line in err.splitlines():
            print("# qemu: " + line)


def cfg_addr(bdf, off):
    return 0x80000000 | bdf << 8 | off


class PciFunction:
    """A function on bus 0 found by its vendor and device IDs (IDS, the
    first dword of its configuration space), BARS (offset, value) placed,
    memory space and bus mastering on."""

    def __init__(self, qt, ids, bars):
        self.qt = qt
        for slot in range(32):
            bdf = slot << 3
            qt.outl(0xCF8, cfg_addr(bdf, 0))
            if qt.inl(0xCFC) == ids:
                self.bdf = bdf
                break
        else:
            raise RuntimeError("no %04x:%04x on bus 0" %
                               (ids & 0xFFFF, ids >> 16))
        for off, v in bars:
            self.cfg_w(off, v)
        self.cfg_w(0x04, 0x6)          # memory space, bus master

    def cfg_w(self, off, v):
        self.qt.outl(0xCF8, cfg_addr(self.bdf, off))
        self.qt.outl(0xCFC, v)

    def cfg_r(self, off):
        self.qt.outl(0xCF8, cfg_addr(self.bdf, off))
        return self.qt.inl(0xCFC)

    def cap(self, cap_id):
        """The offset of capability CAP_ID in configuration space."""
        ptr = self.cfg_r(0x34) & 0xFF
        while ptr:
            v = self.cfg_r(ptr)
            if v & 0xFF == cap_id:
                return ptr
            ptr = v >> 8 & 0xFF
        raise AssertionError("no capability 0x%02x" % cap_id)

    def msix_enable(self):
        ptr = self.cap(0x11)
        self.cfg_w(ptr, self.cfg_r(ptr) | 1 << 31)

    def ext_cfg_w(self, off, v):
        """A dword of extended configuration space, through q35's ECAM
        window (its host bridge's PCIEXBAR, enabled here: no firmware)."""
        self.qt.outl(0xCF8, cfg_addr(0, 0x64))
        self.qt.outl(0xCFC, 0)
        self.qt.outl(0xCF8, cfg_addr(0, 0x60))
        self.qt.outl(0xCFC, ECAM | 1)
        self.qt.writel(ECAM + (self.bdf << 12) + off, v)


class Dev(PciFunction):
    """The ConnectX-4 Lx: BAR0 the initialization segment and doorbells,
    BAR2 the MSI-X table."""

    def __init__(self, qt):
        super().__init__(qt, 0x101515B3, ((0x10, BAR0), (0x14, 0),
                                          (0x18, MSIX_BAR), (0x1C, 0)))
        self.token = 0

    def reg(self, off):
        """A big-endian register of the initialization segment."""
        return struct.unpack(">I", struct.pack("<I",
                             self.qt.readl(BAR0 + off)))[0]

    def reg_w(self, off, v):
        self.qt.writel(BAR0 + off,
                       struct.unpack("<I", struct.pack(">I", v))[0])

    def setup_cmdq(self):
        self.reg_w(0x10, 0)
        self.reg_w(0x14, CMDQ)

    def ring(self, slots):
        self.reg_w(0x18, slots)

    def issi_slot(self, slot):
        """Slot slot handed to the device with an inline QUERY_ISSI (its
        16-byte output inline too), not yet rung."""
        lay = bytearray(LAY_SIZE)
        lay[0] = 7
        struct.pack_into(">I", lay, 4, 16)
        lay[0x10:0x20] = hdr(0x10A)
        struct.pack_into(">I", lay, 0x38, 16)
        lay[0x3F] = 1
        self.qt.write(CMDQ + slot * LAY_SIZE, bytes(lay))

    def chain(self, base, data, n, token, override=None):
        """n mailboxes at base, 1 KiB apart, holding data."""
        addrs = [base + i * 1024 for i in range(n)]
        for i, a in enumerate(addrs):
            blk = bytearray(MB_SIZE)
            chunk = data[i * 512:(i + 1) * 512]
            blk[:len(chunk)] = chunk
            nxt = addrs[i + 1] if i + 1 < n else 0
            struct.pack_into(">QI", blk, 0x230, nxt, i)
            blk[0x23D] = token
            if override:
                override(i, blk)
            self.qt.write(a, bytes(blk))
        return addrs[0] if addrs else 0

    def exec(self, inp, outlen, slot=0, typ=7, inlen=None, lay_hook=None,
             mb_hook=None):
        """Run one command; returns (delivery status, output bytes)."""
        self.token = (self.token + 1) & 0xFF
        tok = self.token
        inlen = len(inp) if inlen is None else inlen
        n_in = max(0, -(-(len(inp) - 16) // 512))
        n_out = max(0, -(-(outlen - 16) // 512))
        in_ptr = self.chain(MB, inp[16:], n_in, tok, mb_hook)
        out_base = MB + 0x400000
        out_ptr = self.chain(out_base, b"", n_out, tok)
        lay = bytearray(LAY_SIZE)
        lay[0] = typ
        struct.pack_into(">IQ", lay, 4, inlen, in_ptr)
        lay[0x10:0x20] = inp[:16].ljust(16, b"\0")
        struct.pack_into(">QI", lay, 0x30, out_ptr, outlen)
        lay[0x3C] = tok
        lay[0x3F] = 1
        if lay_hook:
            lay_hook(lay)
        addr = CMDQ + slot * LAY_SIZE
        self.qt.write(addr, bytes(lay))
        self.ring(1 << slot)
        own = self.wait(slot)
        out = self.qt.read(addr + 0x20, 16)
        for i in range(n_out):
            out += self.qt.read(out_base + i * 1024, 512)
        return own >> 1, out[:outlen]

    def wait(self, slot):
        addr = CMDQ + slot * LAY_SIZE + 0x3F
        for _ in range(1000):
            own = self.qt.readb(addr)
            if not own & 1:
                return own
        raise RuntimeError("slot %d never came back" % slot)


def hdr(opcode, op_mod=0, size=16):
    b = bytearray(size)
    struct.pack_into(">HHHH", b, 0, opcode, 0, 0, op_mod)
    return b


def status(out):
    return out[0], struct.unpack(">I", out[4:8])[0]


def setf(b, base, bit, width, v):
    """Field of mlx5_ifc.h at bit offset bit of the struct at base."""
    if width == 64:
        struct.pack_into(">Q", b, base + bit // 8, v)
        return
    dw = base + bit // 32 * 4
    shift = 32 - width - bit % 32
    mask = ((1 << width) - 1) << shift
    cur = struct.unpack_from(">I", b, dw)[0]
    struct.pack_into(">I", b, dw, (cur & ~mask) | ((v << shift) & mask))


def u24(out, off=8):
    return struct.unpack(">I", out[off:off + 4])[0] & 0xFFFFFF


def be(v):
    """A dword for the device's big-endian registers, as writel sends it."""
    return struct.unpack("<I", struct.pack(">I", v))[0]


results = []


def case(name, fn):
    try:
        msg = fn()
        ok = msg is None
    except Exception as e:  # a dead QEMU or a broken expectation
        ok, msg = False, repr(e)
    results.append(ok)
    if msg:
        print("# " + str(msg))
    print("%s %d %s" % ("ok" if ok else "not ok", len(results), name))


def expect(what, got, want):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def main():
    qemu = sys.argv[1] if len(sys.argv) > 1 else subprocess.check_output(
        [os.path.join(REPO, "scripts/qemu-build")], text=True).strip()
    from mlx5_qtest_eth import ETH_CASES, Eth
    from mlx5_qtest_qp import QP_CASES, Rdma
    from mlx5_qtest_mkey import MKEY_CASES
    from mlx5_qtest_steer import STEER_CASES
    from mlx5_qtest_roce import ROCE_CASES
    from mlx5_qtest_umr import UMR_CASES
    from mlx5_qtest_mcg import MCG_CASES
    from mlx5_qtest_xrc import XRC_CASES
    wire = Wire()
    qt = QTest(qemu, wire)
    dev = Dev(qt)
    print("TAP version 13")
    print("1..%d" % (12 + len(ETH_CASES) + len(MKEY_CASES) +
                     len(STEER_CASES) + len(QP_CASES) +
                     len(ROCE_CASES) + len(UMR_CASES) + len(MCG_CASES) +
                     len(XRC_CASES)))

    def iseg():
        expect("fw_rev", dev.reg(0x0), 99 << 16 | 14)
        expect("cmdif rev", dev.reg(0x4) >> 16, 5)
        expect("initializing", dev.reg(0x1FC) >> 31, 0)
        dev.setup_cmdq()
        expect("cmdq low", dev.reg(0x14), CMDQ | 0x56)
        expect("health syndrome", dev.reg(0x23C) & 0xFF, 0)
        c0 = dev.reg(0x1010)
        qt.clock_step(2 * 10**9)
        expect("health counter advance", dev.reg(0x1010) - c0, 2000)
        t0 = dev.reg(0x1004)
        qt.clock_step(1000)
        expect("timer ns", (dev.reg(0x1004) - t0) & 0xFFFFFFFF, 1000)
        # MSI-X: 64 vectors (capability 0x11 somewhere in the list)
        v = dev.cfg_r(dev.cap(0x11))
        expect("MSI-X vectors", (v >> 16 & 0x7FF) + 1, 64)
        return None
    case("initialization segment, timer, health counter, MSI-X", iseg)

    def bringup():
        d, out = dev.exec(hdr(0x102, size=32), 16)    # INIT_HCA first
        expect("INIT_HCA before ENABLE_HCA", status(out)[0], 0x4)
        for op in (0x104, 0x10A):
            d, out = dev.exec(hdr(op), 112 if op == 0x10A else 16)
            expect("delivery", d, 0)
            expect("status of 0x%x" % op, status(out)[0], 0)
        expect("supported ISSI", struct.unpack(">I", out[0x6C:0x70])[0], 3)
        d, out = dev.exec(hdr(0x100, 1), 16 + 4096)   # GENERAL cur, 8 MBs
        expect("QUERY_HCA_CAP", (d, status(out)[0]), (0, 0))
        cap = out[16:]
        setcap = bytes(hdr(0x109, 0)) + cap          # SET_HCA_CAP, 8 MBs in
        d, out = dev.exec(setcap, 16)
        expect("SET_HCA_CAP", (d, status(out)[0]), (0, 0))
        d, out = dev.exec(hdr(0x102, size=32), 16)
        expect("INIT_HCA", status(out)[0], 0)
        d, out = dev.exec(hdr(0x101), 272)
        expect("QUERY_ADAPTER vendor",
               struct.unpack(">I", out[0x28:0x2C])[0] & 0xFFFFFF, 0x2C9)
        return None
    case("bring-up: inline and mailbox input and output", bringup)

    def unknown():
        d, out = dev.exec(hdr(0x710), 16)
        expect("CREATE_DCT (not modelled)", status(out), (0x2, 0x6D780001))
        d, out = dev.exec(hdr(0xFFFF), 16)
        expect("opcode 0xffff", status(out)[0], 0x2)
        return None
    case("unknown opcodes: BAD_OP, our syndrome", unknown)

    def lengths():
        d, out = dev.exec(hdr(0x100, 1), 16)          # output too short
        expect("short output", status(out)[0], 0x51)
        d, out = dev.exec(hdr(0x109, 0), 16)          # input too short
        expect("short input", status(out)[0], 0x50)
        expect("inlen 4", dev.exec(hdr(0x104), 16, inlen=4)[0], 0x7)
        expect("inlen 5 MiB", dev.exec(hdr(0x104), 16, inlen=5 << 20)[0], 0x7)
        expect("outlen 2**32-1",
               dev.exec(hdr(0x104), 16, lay_hook=lambda lay: struct.pack_into(
                   ">I", lay, 0x38, 0xFFFFFFFF))[0], 0x8)
        return None
    case("lengths: short command layouts, absurd slot lengths", lengths)

    def descriptor():
        expect("type 0", dev.exec(hdr(0x104), 16, typ=0)[0], 0x10)
        return None
    case("a slot of another type: bad descriptor", descriptor)

    def chains():
        inp = bytes(hdr(0x109, 0)) + bytes(4096)
        bad_num = dev.exec(inp, 16, mb_hook=lambda i, b: struct.pack_into(
            ">I", b, 0x238, 7) if i == 3 else None)[0]
        expect("block number", bad_num, 0x3)
        bad_tok = dev.exec(inp, 16, mb_hook=lambda i, b: b.__setitem__(
            0x23D, b[0x23D] ^ 0xFF) if i == 5 else None)[0]
        expect("token", bad_tok, 0x2)
        loop = dev.exec(inp, 16, mb_hook=lambda i, b: struct.pack_into(
            ">Q", b, 0x230, MB) if i == 2 else None)[0]
        expect("chain looping back", loop, 0x3)
        null = dev.exec(inp, 16, mb_hook=lambda i, b: struct.pack_into(
            ">Q", b, 0x230, 0) if i == 0 else None)[0]
        expect("null next", null, 0x5)
        far = dev.exec(inp, 16, mb_hook=lambda i, b: struct.pack_into(
            ">Q", b, 0x230, 0xFFFFFFFFF000) if i == 0 else None)[0]
        expect("next outside memory", far, 0x5)
        odd = dev.exec(inp, 16, mb_hook=lambda i, b: struct.pack_into(
            ">Q", b, 0x230, MB + 0x401) if i == 0 else None)[0]
        expect("unaligned next", odd, 0x5)
        out_null = dev.exec(hdr(0x100, 1), 16 + 4096, lay_hook=lambda lay:
                            struct.pack_into(">Q", lay, 0x30, 0))[0]
        expect("null output chain", out_null, 0x4)

        # An output mailbox in the device's own BAR0: with token 0 its
        # "header" (reserved registers, all 0) passes the walk, and the
        # answer's DMA would write the initialization segment (the
        # command queue's address) from inside the device: QEMU's
        # reentrancy guard refuses it, the command fails delivery.
        def own_bar(lay):
            lay[0x3C] = 0
            struct.pack_into(">Q", lay, 0x30, BAR0)
        expect("mailbox in BAR0", dev.exec(hdr(0x400), 16 + 512,
                                           lay_hook=own_bar)[0], 0x4)
        expect("cmdq address intact", dev.reg(0x14), CMDQ | 0x56)
        return None
    case("mailbox chains: numbers, tokens, loops, bad pointers", chains)

    def slots():
        # A doorbell for a slot the driver kept: nothing happens to it.
        addr = CMDQ + 5 * LAY_SIZE
        qt.write(addr, bytes(LAY_SIZE))
        dev.ring(1 << 5)
        expect("a slot not handed over", qt.read(addr, LAY_SIZE),
               bytes(LAY_SIZE))
        # Several slots in one doorbell, each answered.
        for s in (1, 2, 3):
            dev.issi_slot(s)
        dev.ring(0b1110)
        for s in (1, 2, 3):
            expect("slot %d" % s, dev.wait(s), 0)
        return None
    case("doorbells: slots kept by the driver, several slots at once", slots)

    EQ_BUF = 0x300000        # the EQ's ring: 4 pages, 256 entries
    MSI_ADDR = 0x380000      # MSI-X vector 3 writes its data here

    def create_eq(log_size=8, uar=None, intr=3, npas=None, mask=1 << 0x0A,
                  pas_addr=EQ_BUF):
        n = -(-(64 << log_size) // 4096)
        npas = n if npas is None else npas
        inp = hdr(0x301, size=0x110 + 8 * npas)      # create_eq_in + pas
        eqc = 0x10
        struct.pack_into(">I", inp, eqc + 0xC, (log_size << 24) |
                         (uar if uar is not None else dev.uar))
        struct.pack_into(">I", inp, eqc + 0x14, intr)
        struct.pack_into(">Q", inp, 0x58, mask)    # event_bitmask[0]
        for i in range(npas):
            struct.pack_into(">Q", inp, 0x110 + 8 * i, pas_addr + 4096 * i)
        d, out = dev.exec(bytes(inp), 16)
        return status(out)[0], out[0xB]

    def eqs():
        d, out = dev.exec(hdr(0x802), 16)            # ALLOC_UAR
        expect("ALLOC_UAR", status(out)[0], 0)
        dev.uar = struct.unpack(">I", out[8:12])[0] & 0xFFFFFF
        expect("no UAR", create_eq(uar=dev.uar + 1)[0], 0x3)
        expect("vector 64", create_eq(intr=64)[0], 0x3)
        expect("log size 23", create_eq(log_size=23, npas=0)[0], 0x3)
        expect("pages short", create_eq(npas=3)[0], 0x50)
        expect("unaligned page", create_eq(pas_addr=EQ_BUF + 64)[0], 0x3)
        d, out = dev.exec(hdr(0x302), 16)            # DESTROY_EQ 0
        expect("destroy a missing EQ", status(out)[0], 0x5)
        # MSI-X: enable, vector 3 writes 0x5eed to MSI_ADDR in RAM.
        dev.msix_enable()
        qt.writel(MSIX_BAR + 3 * 16, MSI_ADDR)
        qt.writel(MSIX_BAR + 3 * 16 + 4, 0)
        qt.writel(MSIX_BAR + 3 * 16 + 8, 0x5EED)
        qt.writel(MSIX_BAR + 3 * 16 + 12, 0)
        qt.write(EQ_BUF, bytes([1]) * (256 * 64))   # owner 1, as the driver
        st, eqn = create_eq()
        expect("CREATE_EQ", st, 0)
        uar_db = BAR0 + dev.uar * 4096
        # Disarmed: a completion EQE, no interrupt.
        d, out = dev.exec(hdr(0x10A), 112, slot=4)
        eqe = qt.read(EQ_BUF, 64)
        expect("EQE type", eqe[1], 0x0A)
        expect("EQE slot", struct.unpack(">I", eqe[0x20:0x24])[0], 1 << 4)
        expect("EQE owner", eqe[0x3F], 0)
        expect("no interrupt yet", qt.readl(MSI_ADDR), 0)
        # Arm with the consumer index at 0: one entry waits, interrupt.
        qt.writel(uar_db + 0x40, struct.unpack("<I", struct.pack(
            ">I", eqn << 24 | 0))[0])
        expect("interrupt on arm", qt.readl(MSI_ADDR), 0x5EED)
        qt.writel(MSI_ADDR, 0)
        # Consumed and armed: the next completion interrupts.
        qt.writel(uar_db + 0x40, struct.unpack("<I", struct.pack(
            ">I", eqn << 24 | 1))[0])
        dev.exec(hdr(0x10A), 112, slot=7)
        expect("second EQE", struct.unpack(">I", qt.read(EQ_BUF + 64, 64)[
            0x20:0x24])[0], 1 << 7)
        expect("interrupt", qt.readl(MSI_ADDR), 0x5EED)
        # Not consumed: 256 more completions fill the ring, the rest are
        # lost (never overwritten), and the device carries on.
        for i in range(300):
            dev.exec(hdr(0x10A), 112, slot=i % 32)
        # Entry 0 was consumed (consumer index 1) and written again on
        # the ring's second pass (owner 1); entry 1 never was.
        expect("entry 0 on the second pass", qt.read(EQ_BUF, 64)[0x3F], 1)
        e1 = qt.read(EQ_BUF + 64, 64)
        expect("entry 1 intact", (struct.unpack(">I", e1[0x20:0x24])[0],
                                  e1[0x3F]), (1 << 7, 0))
        # An MSI-X message aimed at the device's own registers (the
        # queue's address): QEMU's reentrancy guard drops it.
        qt.writel(MSIX_BAR + 3 * 16, BAR0 + 0x14)
        qt.writel(MSIX_BAR + 3 * 16 + 8, 0)
        dev.exec(hdr(0x10A), 112, slot=9)           # the ring is full:
        qt.writel(uar_db + 0x40, struct.unpack("<I", struct.pack(  # consume
            ">I", eqn << 24 | 100))[0])             # some, armed: interrupt
        dev.exec(hdr(0x10A), 112, slot=10)
        expect("cmdq address intact", dev.reg(0x14), CMDQ | 0x56)
        # Doorbells for EQs that are not there, or at another UAR: ignored.
        qt.writel(uar_db + 0x40, 0x3F)
        qt.writel(uar_db + 4096 + 0x40, struct.unpack("<I", struct.pack(
            ">I", eqn << 24))[0])
        d, out = dev.exec(hdr(0x302, size=8) + bytes([0, 0, 0, eqn]) + bytes(4), 16)
        expect("DESTROY_EQ", status(out)[0], 0)
        return None
    case("EQs: CREATE_EQ checks, completion EQEs, arming, MSI-X, overrun",
         eqs)

    def eq_teardown():
        st, eqn = create_eq()
        expect("CREATE_EQ", st, 0)
        d, out = dev.exec(hdr(0x103), 16)            # TEARDOWN_HCA
        expect("TEARDOWN_HCA", status(out)[0], 0)
        d, out = dev.exec(hdr(0x302, size=8) + bytes([0, 0, 0, eqn]) + bytes(4), 16)
        expect("EQ gone with the HCA", status(out)[0], 0x4)
        d, out = dev.exec(hdr(0x102, size=32), 16)
        expect("INIT_HCA again", status(out)[0], 0)
        d, out = dev.exec(hdr(0x802), 16)
        dev.uar = struct.unpack(">I", out[8:12])[0] & 0xFFFFFF
        return None
    case("TEARDOWN_HCA takes the EQs with it", eq_teardown)

    def fuzz():
        rnd = random.Random(int(os.environ.get("FUZZ_SEED", "34")))
        seen = {}
        ops = [0x100, 0x101, 0x102, 0x103, 0x104, 0x105, 0x107, 0x108,
               0x109, 0x10A, 0x10B, 0x802, 0x803, 0x805, 0x301, 0x302]
        for r in range(FUZZ_ROUNDS):
            if rnd.random() < 0.6:
                # Well delivered, random content: a real opcode, random
                # op_mod and fields, lengths around the real ones.
                inp = bytearray(rnd.randbytes(rnd.choice(
                    [16, 32, rnd.randrange(8, 16 + 9 * 512)])))
                struct.pack_into(">H", inp, 0, rnd.choice(ops))
                if rnd.random() < 0.5:
                    struct.pack_into(">H", inp, 6, rnd.randrange(4))
                outlen = rnd.choice([16, 112, 272, 4112,
                                     rnd.randrange(8, 16 + 9 * 512)])
                d, out = dev.exec(bytes(inp), outlen,
                                  slot=rnd.randrange(32))
                k = "status 0x%x" % out[0] if d == 0 else "delivery 0x%x" % d
                seen[k] = seen.get(k, 0) + 1
                continue
            slot = rnd.randrange(32)
            lay = bytearray(rnd.randbytes(LAY_SIZE))
            if rnd.random() < 0.7:
                lay[0] = 7
            if rnd.random() < 0.8:
                struct.pack_into(">I", lay, 4, rnd.choice(
                    [rnd.randrange(0, 9000), rnd.randrange(1 << 32)]))
                struct.pack_into(">I", lay, 0x38, rnd.choice(
                    [rnd.randrange(0, 9000), rnd.randrange(1 << 32)]))
            if rnd.random() < 0.7:
                struct.pack_into(">Q", lay, 8, MB + rnd.randrange(16) * 1024)
                struct.pack_into(">Q", lay, 0x30,
                                 MB + rnd.randrange(16) * 1024)
            if rnd.random() < 0.5:   # a real opcode, random fields
                struct.pack_into(">H", lay, 0x10, rnd.choice(
                    [0x100, 0x101, 0x102, 0x103, 0x104, 0x105, 0x107,
                     0x108, 0x109, 0x10A, 0x10B, 0x802, 0x803, 0x805]))
            lay[0x3F] = 1
            for i in range(16):     # random mailboxes, some well chained
                blk = bytearray(rnd.randbytes(MB_SIZE))
                if rnd.random() < 0.6:
                    struct.pack_into(">QI", blk, 0x230,
                                     MB + (i + 1) * 1024, i)
                    blk[0x23D] = lay[0x3C]
                qt.write(MB + i * 1024, bytes(blk))
            qt.write(CMDQ + slot * LAY_SIZE, bytes(lay))
            dev.ring(1 << slot)
            deliv = dev.wait(slot) >> 1
            if deliv == 0:      # delivered: the command's own status
                deliv = "status 0x%x" % qt.read(
                    CMDQ + slot * LAY_SIZE + 0x20, 1)[0]
            else:
                deliv = "delivery 0x%x" % deliv
            seen[deliv] = seen.get(deliv, 0) + 1
            if rnd.random() < 0.05:  # and reset sometimes (FLR-like)
                dev.setup_cmdq()
        expect("still alive", dev.reg(0x4) >> 16, 5)
        print("# %d rounds, seed %s: %s" % (
            FUZZ_ROUNDS, os.environ.get("FUZZ_SEED", "34"),
            ", ".join("%s %d" % kv for kv in sorted(seen.items()))))
        return None
    eth = Eth(dev, qt, wire)
    # The memory key cases use the Ethernet queues as the data path cases
    # leave them, before the random rounds (the last case) scramble them.
    for name, fn in (ETH_CASES[:-1] + MKEY_CASES + STEER_CASES +
                     ETH_CASES[-1:]):
        case(name, lambda: fn(eth))
    rdma = Rdma(eth)
    # The RoCE cases make their own objects, before the QP cases' random
    # rounds (the last case).
    for name, fn in (QP_CASES[:-1] + ROCE_CASES + UMR_CASES + MCG_CASES +
                     XRC_CASES + QP_CASES[-1:]):
        case(name, lambda: fn(rdma))

    case("fuzz: random slots and mailboxes, every slot answered", fuzz)

    def alive():
        d, out = dev.exec(hdr(0x10A), 112)
        expect("QUERY_ISSI after all that", (d, status(out)[0]), (0, 0))
        return None
    case("the device still works", alive)

    def fatal():
        dev.ext_cfg_w(0x400, 0x5)                     # x-fault-inject's
        expect("NIC interface after a fatal error", dev.reg(0x14) >> 8 & 7, 1)
        expect("health syndrome", dev.reg(0x23C) >> 16 & 0xFF, 5)
        dev.issi_slot(0)
        dev.ring(1)
        qt.clock_step(10**6)
        expect("a command rung while down stays the device's",
               qt.readb(CMDQ + 0x3F) & 1, 1)
        dev.setup_cmdq()                              # the driver again
        expect("NIC interface after a new queue", dev.reg(0x14), CMDQ | 0x56)
        expect("health syndrome after", dev.reg(0x23C), 0)
        d, out = dev.exec(hdr(0x102, size=32), 16)
        expect("INIT_HCA: the enabled function was forgotten",
               status(out)[0], 0x4)
        for op in (0x104, 0x10A):
            d, out = dev.exec(hdr(op), 112 if op == 0x10A else 16)
            expect("status of 0x%x after the restart" % op, status(out)[0], 0)
        # Without x-fault-inject the word is reserved: writes do nothing.
        plain = QTest(qemu, Wire(), opts="")
        try:
            pdev = Dev(plain)
            pdev.ext_cfg_w(0x400, 0x5)
            expect("x-fault-inject off: NIC interface", pdev.reg(0x14) >> 8 & 7, 0)
            expect("x-fault-inject off: syndrome", pdev.reg(0x23C), 0)
        finally:
            plain.close()
        return None
    case("a fatal error (x-fault-inject): firmware down, back with a new queue",
         fatal)

    qt.close()
    failed = results.count(False)
    print("# Totals: pass:%d fail:%d" % (len(results) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

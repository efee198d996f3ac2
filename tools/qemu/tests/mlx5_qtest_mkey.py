# SPDX-License-Identifier: GPL-2.0-only
#
# The mlx5 model's memory keys, driven without a guest by mlx5_qtest.py
# (which runs these cases after the Ethernet data path ones, on their PD,
# SQ and RQ, before random rounds scramble those): CREATE_MKEY in MTT
# mode as mlx5_ib's reg_create sends it (pages inline, umr_en, qpn
# 0xffffff), QUERY_MKEY and DESTROY_MKEY; every refusal (KLM, KSM, free
# keys, BSF, ATS, umems, pg_access, a bound QP, no PD, page sizes,
# ranges that wrap, octword sizes that do not cover the pages, entries
# missing or off their page, too many pages, a full table); the DMA
# through a key (mlx5_mkey_dma(), which Ethernet transmit and receive
# use): a frame gathered from and one scattered to a region whose pages
# are out of order, and a key without the right, of another PD, a range
# missed, a page outside memory, each an error CQE; a PD that a key
# names cannot go; random rounds.
import os
import random
import struct

from mlx5_qtest import hdr, status, expect, setf
from mlx5_qtest_eth import (DBR, OUTSIDE, CQE_REQ, CQE_REQ_ERR, CQE_RESP,
                            CQE_RESP_ERR, ipv4_udp, sq_post, rq_post,
                            rx_wait)

PAGES = 0x2000000        # the regions' pages: 64 of 4 KiB
HUGE = 0x2400000         # two 2 MiB pages
LR, LW, RR, RW, A = 1, 2, 4, 8, 16
MKC = 0x10               # the key's context in create/query_mkey
MTT = 0x110              # create_mkey_in's entries

BAD_PARAM, BAD_RES, LIM, BAD_INP_LEN = 0x3, 0x5, 0x8, 0x50
SYND = {"mode": 0x6d78000d, "free": 0x6d78000e, "feature": 0x6d78000f,
        "range": 0x6d780010, "size": 0x6d780011, "align": 0x6d780012,
        "no object": 0x6d78000c, "short": 0x6d780002,
        "no resource": 0x6d780009}


def mkey_in(pd, pages, start, length, log_page=12, acc=LR | LW, variant=0x33,
            mode=1, octs=None, actual=None, nent=None, qpn=0xFFFFFF):
    """CREATE_MKEY as reg_create builds it: the entries rounded up to
    an octword, both octword sizes covering them."""
    n = len(pages)
    nent = n + n % 2 if nent is None else nent
    inp = hdr(0x200, size=MTT + 8 * nent)
    setf(inp, MKC, 3, 3, mode >> 2)
    setf(inp, MKC, 16, 1, 1)                     # umr_en, as the driver
    setf(inp, MKC, 17, 5, acc)                   # a, rw, rr, lw, lr
    setf(inp, MKC, 22, 2, mode & 3)
    setf(inp, MKC, 32, 24, qpn)
    setf(inp, MKC, 56, 8, variant)
    setf(inp, MKC, 104, 24, pd)
    setf(inp, MKC, 128, 64, start)
    setf(inp, MKC, 192, 64, length)
    setf(inp, MKC, 416, 32, (n + 1) // 2 if octs is None else octs)
    setf(inp, MKC, 475, 5, log_page)
    setf(inp, 0, 0x300, 32, (n + 1) // 2 if actual is None else actual)
    for i, pa in enumerate(pages[:nent]):
        struct.pack_into(">Q", inp, MTT + 8 * i, pa)
    return inp


def pa_of(pages, start, va, log_page=12):
    base = start & ~((1 << log_page) - 1)
    off = va - base
    return pages[off >> log_page] + (off & ((1 << log_page) - 1))


def write_va(eth, pages, start, va, data, log_page=12):
    """Guest memory as the region's virtual addresses see it."""
    while data:
        n = min(len(data), (1 << log_page) - (va & ((1 << log_page) - 1)))
        eth.qt.write(pa_of(pages, start, va, log_page), data[:n])
        data, va = data[n:], va + n


def read_va(eth, pages, start, va, n, log_page=12):
    out = b""
    while n:
        k = min(n, (1 << log_page) - (va & ((1 << log_page) - 1)))
        out += eth.qt.read(pa_of(pages, start, va, log_page), k)
        n, va = n - k, va + k
    return out


def create(eth, inp):
    out = eth.run(inp)
    return status(out), struct.unpack(">I", out[8:12])[0] & 0xFFFFFF


def destroy(eth, index):
    inp = hdr(0x202, size=0x10)
    setf(inp, 0, 72, 24, index)
    return status(eth.run(inp))


def query(eth, index, pg=0):
    inp = hdr(0x201, size=0x10)
    setf(inp, 0, 72, 24, index)
    setf(inp, 0, 96, 1, pg)
    return eth.run(inp, 0x130)


def mkey_create(eth):
    # three 4 KiB pages out of order, a start inside the first
    pages = [PAGES + 0x5000, PAGES + 0x1000, PAGES + 0x3000]
    start = 0x7F1234560ABC
    (st, synd), idx = create(eth, mkey_in(eth.pd, pages, start, 0x2000,
                                          acc=LR | LW | RR | RW | A))
    expect("CREATE_MKEY MTT", (st, synd), (0, 0))
    expect("index from 2", idx >= 2, True)
    out = query(eth, idx)
    expect("QUERY_MKEY", status(out), (0, 0))
    m = out[MKC:]
    expect("mode MTT, umr_en, rights", struct.unpack(">I", m[0:4])[0] &
           0x1FFFFFF, 1 << 15 | 0x1F << 10 | 1 << 8)
    expect("qpn, variant", struct.unpack(">I", m[4:8])[0], 0xFFFFFF33)
    expect("pd", struct.unpack(">I", m[12:16])[0] & 0xFFFFFF, eth.pd)
    expect("start, len", struct.unpack(">QQ", m[16:32]), (start, 0x2000))
    expect("octwords", struct.unpack(">I", m[0x34:0x38])[0], 2)
    expect("log_page_size", m[0x3B] & 0x1F, 12)
    expect("entries", struct.unpack(">3Q", out[0x110:0x128]),
           tuple(pages))
    expect("QUERY_MKEY with pg_access", status(query(eth, idx, pg=1)),
           (BAD_PARAM, SYND["feature"]))
    expect("DESTROY_MKEY", destroy(eth, idx), (0, 0))
    expect("DESTROY_MKEY again", destroy(eth, idx), (BAD_RES,
                                                     SYND["no object"]))
    expect("QUERY_MKEY of it", status(query(eth, idx)),
           (BAD_RES, SYND["no object"]))
    # 2 MiB pages; a page-aligned start; one page, one entry padded
    for pages, lp, start, ln in (([HUGE, HUGE + (2 << 20)], 21,
                                  0x40000000, 4 << 20),
                                 ([PAGES], 12, 0x1000, 4096),
                                 ([PAGES], 12, 0x1000, 0)):
        (st, synd), idx = create(eth, mkey_in(eth.pd, pages, start, ln,
                                              log_page=lp))
        expect("CREATE_MKEY %d pages of 2^%d" % (len(pages), lp), st, 0)
        expect("DESTROY_MKEY", destroy(eth, idx), (0, 0))
    for index in (0, 1, 16383, 16384, 0xFFFFFF):
        expect("DESTROY_MKEY %d" % index, destroy(eth, index)[0], BAD_RES)
    return None


def mkey_refusals(eth):
    pd = eth.pd
    pages = [PAGES, PAGES + 0x1000]
    good = dict(pd=pd, pages=pages, start=0x10000800, length=0x1000)

    def bad(name, inp, want, synd):
        (st, s), _ = create(eth, inp)
        expect(name, (st, s), (want, SYND[synd]))

    def flip(field, v, base=MKC, **kw):
        inp = mkey_in(**dict(good, **kw))
        setf(inp, base, field[0], field[1], v)
        return inp

    bad("KLM", mkey_in(mode=2, **good), BAD_PARAM, "mode")
    bad("KSM", mkey_in(mode=3, **good), BAD_PARAM, "mode")
    bad("access mode 4 (device memory)", mkey_in(mode=4, **good), BAD_PARAM,
        "mode")
    inp = flip((1, 1), 1)
    setf(inp, MKC, 16, 1, 0)
    bad("free without umr_en: no UMR may enable it", inp, BAD_PARAM, "free")
    inp = mkey_in(mode=0, octs=0, actual=0, nent=0, **good)
    setf(inp, MKC, 1, 1, 1)
    bad("free PA: no translation for a UMR", inp, BAD_PARAM, "free")
    bad("BSF", flip((97, 1), 1), BAD_PARAM, "feature")
    bad("BSF octwords", flip((256, 32), 4), BAD_PARAM, "feature")
    bad("sync_umr", flip((98, 1), 1), BAD_PARAM, "feature")
    bad("remote invalidation", flip((103, 1), 1), BAD_PARAM, "feature")
    bad("ATS", flip((26, 2), 1), BAD_PARAM, "feature")
    bad("pg_access", flip((0x60, 1), 1, base=0), BAD_PARAM, "feature")
    bad("a DEVX umem", flip((0x61, 1), 1, base=0), BAD_PARAM, "feature")
    bad("bound to a QP", mkey_in(qpn=0x400, **good), BAD_PARAM, "feature")
    bad("no such PD", mkey_in(**dict(good, pd=999)), BAD_PARAM, "no object")
    bad("page size 2 KiB", mkey_in(log_page=11, **good), BAD_PARAM, "range")
    bad("page size 2 GiB", mkey_in(log_page=31, **good), BAD_PARAM, "range")
    bad("MTT with length64", flip((96, 1), 1), BAD_PARAM, "range")
    bad("start + len wraps", mkey_in(**dict(good, start=(1 << 64) - 0x800)),
        BAD_PARAM, "range")
    bad("len 2^64 - 1", mkey_in(**dict(good, length=(1 << 64) - 1)),
        BAD_PARAM, "range")
    bad("octword size short of the pages", mkey_in(octs=0, actual=0,
                                                   **good),
        BAD_PARAM, "size")
    bad("actual size over the size", mkey_in(octs=1, actual=2, **good),
        BAD_PARAM, "size")
    bad("a third page not covered", mkey_in(**dict(good, length=0x1801),
                                            octs=1, actual=1),
        BAD_PARAM, "size")
    bad("entries not in the command", mkey_in(nent=0, **good), BAD_INP_LEN,
        "short")
    bad("an entry off its page", mkey_in(**dict(good, pages=[PAGES,
                                                             PAGES + 8])),
        BAD_PARAM, "align")
    bad("an entry off its 2 MiB page", mkey_in(**dict(
        good, pages=[HUGE + 0x1000]), log_page=21), BAD_PARAM, "align")
    n = (1 << 18) + 1
    bad("2^18 + 1 pages", mkey_in(**dict(good, pages=[], length=n << 12),
                                  octs=(n + 1) // 2, actual=(n + 1) // 2),
        LIM, "no resource")
    inp = mkey_in(mode=0, **good)
    setf(inp, MKC, 96, 1, 1)
    bad("PA with octwords", inp, BAD_PARAM, "size")
    inp = mkey_in(mode=0, octs=0, actual=0, nent=0,
                  **dict(good, start=(1 << 64) - 0x800))
    bad("PA range that wraps", inp, BAD_PARAM, "range")
    # the table: 16382 keys from index 2, then none
    made = []
    while True:
        (st, s), idx = create(eth, mkey_in(mode=0, octs=0, actual=0, nent=0,
                                           **good))
        if st:
            break
        made.append(idx)
    expect("table full", (st, s), (LIM, SYND["no resource"]))
    expect("keys made, with the Ethernet ones", len(made) + 1, 16382)
    expect("indexes", (min(made) >= 2, max(made)), (True, 16383))
    for idx in made:
        expect("DESTROY_MKEY", destroy(eth, idx), (0, 0))
    return None


def mkey_dma(eth):
    """Frames through MTT keys: gathered by transmit, scattered by
    receive, across pages that are out of order in memory."""
    pages = [PAGES + 0x7000, PAGES + 0x2000, PAGES + 0x3000, PAGES + 0x9000]
    start = 0x5550000000F00
    (st, _), idx = create(eth, mkey_in(eth.pd, pages, start, 0x3000))
    expect("CREATE_MKEY", st, 0)
    key = idx << 8 | 0x33
    eth.wire.frames()
    frame = ipv4_udp(bytes(random.Random(2).randbytes(5000)))
    va = start + 0x80
    write_va(eth, pages, start, va, frame[14:])
    cqe = sq_post(eth, segs=[(len(frame) - 14, key, va)], cs=0xC0,
                  inline=frame[:14])
    expect("TX CQE", cqe[63] >> 4, CQE_REQ)
    got = eth.wire.frames()
    expect("the frame gathered over four pages",
           bool(got) and got[0][42:] == frame[42:], True)
    # receive: scattered into the region at its end
    frame = ipv4_udp(bytes(random.Random(3).randbytes(3000)))
    va = start + 0x3000 - len(frame)
    rq_post(eth, [(len(frame), key, va)])
    eth.wire.send(frame)
    cqe = rx_wait(eth, eth.ci)
    expect("RX CQE", cqe and cqe[63] >> 4, CQE_RESP)
    expect("the frame scattered over the last pages",
           read_va(eth, pages, start, va, len(frame)) == frame, True)
    # refusals: each an error CQE, nothing on the wire
    st, pd2 = eth.new(hdr(0x800))
    expect("ALLOC_PD", st, 0)
    made = {}
    for name, kw in (("no LR", dict(acc=LW)), ("another PD", dict(pd=pd2)),
                     ("no LW", dict(acc=LR)),
                     ("a page outside memory",
                      dict(pages=pages[:1] + [OUTSIDE] + pages[2:]))):
        args = dict(pd=eth.pd, pages=pages, start=start, length=0x3000)
        args.update(kw)
        (st, _), i = create(eth, mkey_in(**args))
        expect("CREATE_MKEY " + name, st, 0)
        made[name] = i << 8 | 0x33
    for name, seg in (("no such key", (100, key ^ 0x30000, start)),
                      ("another variant", (100, key ^ 1, start)),
                      ("a key without LR", (100, made["no LR"], start)),
                      ("a key of another PD", (100, made["another PD"],
                                               start)),
                      ("below the range", (100, key, start - 1)),
                      ("past the range", (100, key, start + 0x3000 - 99)),
                      ("one byte longer than the key", (0x3001, key, start)),
                      ("a page outside memory", (100, made[
                          "a page outside memory"], start + 0x1000))):
        cqe = sq_post(eth, segs=[seg], inline=bytes(14))
        expect(name + ": error CQE", (cqe[63] >> 4, cqe[55]),
               (CQE_REQ_ERR, 0x04))
        expect(name + ": nothing sent", eth.wire.frames(), [])
        expect("ERR to RST", eth.modify(0, eth.sqn, 3, 0), 0)
        expect("RST to RDY", eth.modify(0, eth.sqn, 0, 1), 0)
        eth.pc = 0
    rq_post(eth, [(2048, made["no LW"], start)])
    eth.wire.send(ipv4_udp(b"z" * 64))
    cqe = rx_wait(eth, eth.ci)
    expect("receive through a key without LW", cqe and (cqe[63] >> 4,
                                                        cqe[55]),
           (CQE_RESP_ERR, 0x04))
    expect("ERR to RST", eth.modify(1, eth.rqn, 3, 0), 0)
    expect("RST to RDY", eth.modify(1, eth.rqn, 0, 1), 0)
    eth.rq_pc = 0
    eth.qt.write(DBR + 0x80, bytes(4))
    inp = hdr(0x801, size=0x10)
    setf(inp, 0, 72, 24, pd2)
    expect("DEALLOC_PD of a PD a key names", status(eth.run(inp)),
           (0x9, 0x6d78000a))
    for k in list(made.values()) + [key]:
        expect("DESTROY_MKEY", destroy(eth, k >> 8), (0, 0))
    expect("DEALLOC_PD once its key is gone", status(eth.run(inp)), (0, 0))
    return None


def mkey_fuzz(eth):
    """Random key commands: valid MTT keys with bits flipped, destroys
    and queries of live and dead indexes; QEMU stays."""
    rnd = random.Random(int(os.environ.get("FUZZ_SEED", "34")) + 2)
    rounds = int(os.environ.get("FUZZ_ROUNDS", "2000")) // 4
    seen, live = {}, []
    for _ in range(rounds):
        x = rnd.random()
        if x < 0.5:
            lp = rnd.choice([12, 12, 13, 21])
            n = rnd.randrange(0, 9)
            pages = [PAGES + (rnd.randrange(64) << 12) & ~((1 << lp) - 1)
                     for _ in range(n)]
            start = rnd.choice([0, rnd.randrange(1 << 48),
                                (1 << 64) - 1 - rnd.randrange(1 << 14)])
            ln = rnd.randrange(0, max(1, (n << lp) - (start &
                                                      ((1 << lp) - 1))))
            inp = bytearray(mkey_in(eth.pd, pages, start, ln, log_page=lp,
                                    acc=rnd.randrange(32),
                                    mode=rnd.choice([1, 1, 1, 0, 2])))
            for _ in range(rnd.randrange(4)):
                i = rnd.randrange(len(inp))
                inp[i] ^= 1 << rnd.randrange(8)
            struct.pack_into(">H", inp, 0, 0x200)
            out = eth.run(inp)
            if out[0] == 0:
                live.append(struct.unpack(">I", out[8:12])[0] & 0xFFFFFF)
        elif x < 0.8:
            idx = rnd.choice(live) if live and rnd.random() < 0.7 else \
                rnd.randrange(1100)
            if idx == eth.lkey >> 8:    # the Ethernet cases' key stays
                continue
            out = eth.run(bytes(hdr(0x202, size=0x10)[:8]) +
                          struct.pack(">II", idx, 0))
            if idx in live and out[0] == 0:
                live.remove(idx)
        else:
            idx = rnd.choice(live) if live and rnd.random() < 0.7 else \
                rnd.randrange(1100)
            out = eth.run(bytes(hdr(0x201, size=0x10)[:8]) +
                          struct.pack(">II", idx, rnd.randrange(2) << 31),
                          rnd.choice([16, 0x110, 0x130]))
        k = "status 0x%x" % out[0]
        seen[k] = seen.get(k, 0) + 1
    for idx in live:
        expect("DESTROY_MKEY", destroy(eth, idx), (0, 0))
    print("# %d rounds: %s" % (rounds, ", ".join(
        "%s %d" % kv for kv in sorted(seen.items()))))
    return None


MKEY_CASES = [
    ("CREATE_MKEY MTT: pages, 2 MiB pages, QUERY_MKEY, DESTROY_MKEY",
     mkey_create),
    ("CREATE_MKEY refusals: modes, free, features, PD, sizes, entries, table",
     mkey_refusals),
    ("DMA through MTT keys: TX gather, RX scatter, rights, PD, range",
     mkey_dma),
    ("random memory key commands", mkey_fuzz),
]

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the admin queue and the PF-VF mailbox.
 *
 * Each control queue is a pair of rings of 32-byte descriptors in guest
 * memory: the send ring (ATQ) takes the driver's commands, the receive
 * ring (ARQ) the device's events, each in a buffer the driver posted.
 * Each ring has five registers: base address (low, high), length with
 * an enable bit (and error bits the device sets), head and tail.
 *
 * A command runs when the driver moves the ATQ tail: the model takes the
 * descriptors from its head to the new tail, each synchronously inside
 * the register write, writes the descriptor back (DD and CMP, ERR with a
 * status in retval) and the indirect buffer, then moves the head, which
 * is what ice polls for (ice_sq_done(): head == next_to_use).  An event
 * goes into the ARQ descriptor at its head, when the head has not
 * reached the tail (the driver posts a buffer by moving the tail past
 * it), and raises the admin queue's interrupt (PFINT_FW_CTL).
 *
 * The mailbox talks to VFs, and the model has none: its registers are
 * kept for the driver to read back, and its commands are never run.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "e810.h"
#include "trace.h"

/*
 * The registers of each queue: base address low and high, length,
 * head, tail, for the send ring and the receive ring.  The admin
 * queue's and the mailbox's are laid out differently.
 */
enum {
    E810_ATQBAL, E810_ATQBAH, E810_ATQLEN, E810_ATQH, E810_ATQT,
    E810_ARQBAL, E810_ARQBAH, E810_ARQLEN, E810_ARQH, E810_ARQT,
    E810_CTLQ_NREGS
};

static const hwaddr e810_aq_regs[E810_CTLQ_NREGS] = {
    [E810_ATQBAL] = 0x00080000, [E810_ATQBAH] = 0x00080100,
    [E810_ATQLEN] = 0x00080200, [E810_ATQH] = 0x00080300,
    [E810_ATQT] = 0x00080400,
    [E810_ARQBAL] = 0x00080080, [E810_ARQBAH] = 0x00080180,
    [E810_ARQLEN] = 0x00080280, [E810_ARQH] = 0x00080380,
    [E810_ARQT] = 0x00080480,
};

static const hwaddr e810_mbx_regs[E810_CTLQ_NREGS] = {
    [E810_ATQBAL] = 0x0022e100, [E810_ATQBAH] = 0x0022e180,
    [E810_ATQLEN] = 0x0022e200, [E810_ATQH] = 0x0022e280,
    [E810_ATQT] = 0x0022e300,
    [E810_ARQBAL] = 0x0022e380, [E810_ARQBAH] = 0x0022e400,
    [E810_ARQLEN] = 0x0022e480, [E810_ARQH] = 0x0022e500,
    [E810_ARQT] = 0x0022e580,
};

/* LEN: entries (10 bits), error bits, enable. */
#define E810_AQ_LEN_ENTRIES     0x3ff
#define E810_AQ_LEN_VFE         BIT(28)
#define E810_AQ_LEN_OVFL        BIT(29)
#define E810_AQ_LEN_CRIT        BIT(30)
#define E810_AQ_LEN_ENABLE      BIT(31)

typedef struct E810Ring {
    uint32_t bal;
    uint32_t bah;
    uint32_t len;
    uint32_t head;
    uint32_t tail;
} E810Ring;

struct E810CtlQ {
    E810Ring sq;
    E810Ring rq;
};

static const E810AqOp *const e810_op_tables[] = {
    e810_fw_ops, e810_nvm_ops, e810_ddp_ops, e810_sched_ops,
    e810_sw_ops, e810_phy_ops, e810_lan_ops,
};

static const E810AqOp *e810_aq_find(uint16_t opcode)
{
    size_t i;
    const E810AqOp *op;

    for (i = 0; i < ARRAY_SIZE(e810_op_tables); i++) {
        for (op = e810_op_tables[i]; op->fn; op++) {
            if (op->opcode == opcode) {
                return op;
            }
        }
    }
    return NULL;
}

static uint64_t e810_ring_base(const E810Ring *r)
{
    return (uint64_t)r->bah << 32 | r->bal;
}

static uint32_t e810_ring_entries(const E810Ring *r)
{
    return r->len & E810_AQ_LEN_ENTRIES;
}

static bool e810_ring_enabled(const E810Ring *r)
{
    return (r->len & E810_AQ_LEN_ENABLE) && e810_ring_entries(r);
}

/*
 * Run one command: its descriptor at DESC_ADDR, read, executed and
 * written back.  False when the ring itself is broken (the descriptor
 * cannot be read or written): the queue stops there.
 */
static bool e810_aq_run(E810State *s, uint64_t desc_addr)
{
    E810Cmd c = { 0 };
    uint8_t buf[E810_AQ_MAX_BUF];
    const E810AqOp *op;
    uint16_t flags, datalen, rc;
    uint64_t buf_addr = 0;

    if (!e810_dma_read(s, desc_addr, c.desc, sizeof(c.desc))) {
        return false;
    }
    flags = e810_get16(c.desc, E810_AQ_FLAGS);
    datalen = e810_get16(c.desc, E810_AQ_DATALEN);
    c.opcode = e810_get16(c.desc, E810_AQ_OPCODE);
    op = e810_aq_find(c.opcode);

    if (flags & E810_AQ_FLAG_BUF) {
        buf_addr = (uint64_t)e810_get32(c.desc, E810_AQ_ADDR_H) << 32 |
                   e810_get32(c.desc, E810_AQ_ADDR_L);
        if (datalen > E810_AQ_MAX_BUF || !datalen) {
            rc = E810_AQ_RC_EINVAL;
            goto done;
        }
        memset(buf, 0, datalen);
        if ((flags & E810_AQ_FLAG_RD) &&
            !e810_dma_read(s, buf_addr, buf, datalen)) {
            rc = E810_AQ_RC_EIO;
            goto done;
        }
        c.buf = buf;
        c.buf_len = datalen;
    }
    if (!op) {
        qemu_log_mask(LOG_UNIMP, "e810: admin command 0x%04x\n", c.opcode);
        rc = E810_AQ_RC_ENOSYS;
        goto done;
    }
    rc = op->fn(s, &c);
    if (c.buf) {
        if (c.out_len > c.buf_len) {
            c.out_len = c.buf_len;
        }
        if (!e810_dma_write(s, buf_addr, buf, c.buf_len)) {
            rc = E810_AQ_RC_EIO;
        } else if (c.out_len) {
            e810_put16(c.desc, E810_AQ_DATALEN, c.out_len);
        }
    }
done:
    trace_e810_aq_cmd(c.opcode, op ? op->name : "?", flags, datalen, rc);
    flags |= E810_AQ_FLAG_DD | E810_AQ_FLAG_CMP;
    if (rc != E810_AQ_RC_OK) {
        flags |= E810_AQ_FLAG_ERR;
    }
    e810_put16(c.desc, E810_AQ_FLAGS, flags);
    e810_put16(c.desc, E810_AQ_RETVAL, rc);
    return e810_dma_write(s, desc_addr, c.desc, sizeof(c.desc));
}

/* The driver moved the ATQ tail: run what lies between head and tail. */
static void e810_aq_kick(E810State *s)
{
    E810Ring *r = &s->aq->sq;
    uint32_t n = e810_ring_entries(r);
    uint32_t budget = n;

    if (!e810_ring_enabled(r) || r->tail >= n) {
        return;
    }
    while (r->head != r->tail && budget--) {
        if (r->head >= n ||
            !e810_aq_run(s, e810_ring_base(r) + (uint64_t)r->head *
                         E810_AQ_DESC_SIZE)) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: admin queue descriptor %u unreadable\n",
                          r->head);
            r->len |= E810_AQ_LEN_CRIT;
            return;
        }
        r->head = (r->head + 1) % n;
    }
}

void e810_aq_event(E810State *s, uint16_t opcode, const uint8_t *params,
                   const void *data, uint16_t len)
{
    E810Ring *r = &s->aq->rq;
    uint32_t n = e810_ring_entries(r);
    uint8_t desc[E810_AQ_DESC_SIZE];
    uint64_t addr, buf_addr;
    uint16_t room;

    if (!e810_ring_enabled(r) || r->head >= n) {
        return;
    }
    if (r->head == r->tail) {
        /* Every posted buffer is full. */
        r->len |= E810_AQ_LEN_OVFL;
        return;
    }
    addr = e810_ring_base(r) + (uint64_t)r->head * E810_AQ_DESC_SIZE;
    if (!e810_dma_read(s, addr, desc, sizeof(desc))) {
        r->len |= E810_AQ_LEN_CRIT;
        return;
    }
    buf_addr = (uint64_t)e810_get32(desc, E810_AQ_ADDR_H) << 32 |
               e810_get32(desc, E810_AQ_ADDR_L);
    room = e810_get16(desc, E810_AQ_DATALEN);
    if (len > room) {
        len = room;
    }
    if (len && !e810_dma_write(s, buf_addr, data, len)) {
        r->len |= E810_AQ_LEN_CRIT;
        return;
    }
    e810_put16(desc, E810_AQ_FLAGS, E810_AQ_FLAG_DD | E810_AQ_FLAG_CMP |
               (e810_get16(desc, E810_AQ_FLAGS) & E810_AQ_FLAG_BUF));
    e810_put16(desc, E810_AQ_OPCODE, opcode);
    e810_put16(desc, E810_AQ_DATALEN, len);
    e810_put16(desc, E810_AQ_RETVAL, 0);
    if (params) {
        memcpy(desc + E810_AQ_PARAMS, params, 8);
    } else {
        memset(desc + E810_AQ_PARAMS, 0, 8);
    }
    if (!e810_dma_write(s, addr, desc, sizeof(desc))) {
        r->len |= E810_AQ_LEN_CRIT;
        return;
    }
    trace_e810_aq_event(opcode, len);
    r->head = (r->head + 1) % n;
    e810_irq_fw(s);
}

/* Which register (E810_ATQBAL...) in MAP is ADDR, or -1. */
static int e810_ctlq_reg(const hwaddr *map, hwaddr addr)
{
    int i;

    for (i = 0; i < E810_CTLQ_NREGS; i++) {
        if (map[i] == addr) {
            return i;
        }
    }
    return -1;
}

/* The register at ADDR, its queue and its index; NULL: no queue's. */
static uint32_t *e810_ctlq_of(E810State *s, hwaddr addr, E810CtlQ **qp,
                              int *regp)
{
    E810CtlQ *q;
    int reg = e810_ctlq_reg(e810_aq_regs, addr);

    q = s->aq;
    if (reg < 0) {
        reg = e810_ctlq_reg(e810_mbx_regs, addr);
        q = s->mbx;
    }
    if (reg < 0) {
        return NULL;
    }
    *qp = q;
    *regp = reg;
    switch (reg) {
    case E810_ATQBAL: return &q->sq.bal;
    case E810_ATQBAH: return &q->sq.bah;
    case E810_ATQLEN: return &q->sq.len;
    case E810_ATQH: return &q->sq.head;
    case E810_ATQT: return &q->sq.tail;
    case E810_ARQBAL: return &q->rq.bal;
    case E810_ARQBAH: return &q->rq.bah;
    case E810_ARQLEN: return &q->rq.len;
    case E810_ARQH: return &q->rq.head;
    default: return &q->rq.tail;
    }
}

bool e810_aq_reg_read(E810State *s, hwaddr addr, uint32_t *val)
{
    E810CtlQ *q;
    int reg;
    uint32_t *r = e810_ctlq_of(s, addr, &q, &reg);

    if (!r) {
        return false;
    }
    *val = *r;
    return true;
}

bool e810_aq_reg_write(E810State *s, hwaddr addr, uint32_t val)
{
    E810CtlQ *q;
    int reg;
    uint32_t *r = e810_ctlq_of(s, addr, &q, &reg);

    if (!r) {
        return false;
    }
    switch (reg) {
    case E810_ATQH:
    case E810_ARQH:
    case E810_ATQT:
    case E810_ARQT:
        *r = val & E810_AQ_LEN_ENTRIES;
        break;
    case E810_ATQLEN:
    case E810_ARQLEN:
        /* The error bits are the device's; a write clears them. */
        *r = val & (E810_AQ_LEN_ENTRIES | E810_AQ_LEN_ENABLE);
        break;
    default:
        *r = val;
    }
    if (q == s->aq && reg == E810_ATQT) {
        e810_aq_kick(s);
    }
    return true;
}

void e810_aq_reset(E810State *s)
{
    memset(s->aq, 0, sizeof(*s->aq));
    memset(s->mbx, 0, sizeof(*s->mbx));
}

void e810_aq_realize(E810State *s)
{
    s->aq = g_new0(E810CtlQ, 1);
    s->mbx = g_new0(E810CtlQ, 1);
}

void e810_aq_unrealize(E810State *s)
{
    g_free(s->aq);
    g_free(s->mbx);
    s->aq = NULL;
    s->mbx = NULL;
}

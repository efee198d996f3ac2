/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the protocol engine's registers and its control QP (CQP).
 *
 * irdma first waits for the PE (GLPE_CPUSTATUS0-2 read 0x80) and for
 * its doorbell area (GLPCI_LBARCTRL.PE_DB_SIZE: 8 MiB).  It then creates
 * the CQP through registers: the address of a 64-byte host context
 * (queue size code, SQ address, the completion context the CCQ's
 * entries carry) goes into PFPE_CCQPHIGH and PFPE_CCQPLOW, the low half
 * last, and it polls PFPE_CCQPSTATUS for done or error.  Writing 0 there
 * destroys the CQP.
 *
 * The CQP's send queue holds 64-byte WQEs, the header (opcode, valid
 * bit) in the fourth qword.  The driver writes the index past its last
 * WQE to PFPE_CQPDB; the model runs every WQE from its tail up to there
 * inside that register write, each only while its valid bit matches the
 * pass (1 on the first, flipped at each wrap: the driver flips its own
 * at index 0).  Each command completes twice: PFPE_CQPTAIL gets the new
 * tail (and the error bit, with PFPE_CQPERRCODES, for a failed one),
 * which the driver polls before its CCQ exists; and, once CQ 0 (the
 * CCQ) exists, an entry there: the CQP's completion context, the value
 * the command returns, status and WQE index, which irdma polls for, or
 * waits for through the CCQ's CEQ.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "e810.h"
#include "e810-pe.h"
#include "trace.h"

/* Registers (icrdma_hw.h). */
#define E810_PFPE_CQPDB         0x00500800
#define E810_PFPE_CQPTAIL       0x00500880
#define E810_PFPE_CQARM         0x00502c00
#define E810_PFPE_CQACK         0x00502c80
#define E810_PFPE_AEQALLOC      0x00502d00
#define E810_PFPE_WQEALLOC      0x00504400
#define E810_PFPE_CCQPSTATUS    0x0050a000
#define E810_PFPE_CCQPLOW       0x0050a080
#define E810_PFPE_CCQPHIGH      0x0050a100
#define E810_PFPE_CQPERRCODES   0x0050a200
#define E810_GLPE_CPUSTATUS0    0x0050ba5c
#define E810_GLPE_CPUSTATUS1    0x0050ba60
#define E810_GLPE_CPUSTATUS2    0x0050ba64
#define E810_PFHMC_PDINV        0x00520300
#define E810_GLPE_CRITERR       0x00534000
#define E810_GLPCI_LBARCTRL     0x0009de74
#define E810_GLINT_CEQCTL(i)    (0x0015c000 + (i) * 4)
#define E810_PFINT_AEQCTL       0x0016cb00
/* The user doorbell page, 64 KiB below BAR0's 8 MiB mark. */
#define E810_PE_DB_PAGE         (8 * MiB - 64 * KiB)
#define E810_PE_DB_CQARM        (E810_PE_DB_PAGE + 64)

/* GLPE_CPUSTATUS: the PE's firmware is up. */
#define E810_PE_CPU_READY       0x80
/* GLPCI_LBARCTRL.PE_DB_SIZE (bits 5:4) = 2: an 8 MiB doorbell area. */
#define E810_LBARCTRL_PE_DB_8M  (2 << 4)

#define E810_CCQPSTATUS_DONE    BIT(0)
#define E810_CCQPSTATUS_ERR     BIT(31)
#define E810_CQPTAIL_WQTAIL     0x7ff
#define E810_CQPTAIL_OP_ERR     BIT(31)

/* The CQP host context: SQ size code in qword 0 bits 11:8. */
#define E810_CQPHC_SIZE         64
#define E810_CQPHC_SQSIZE(q)    extract64(q, 8, 4)
/* Codes 1..10: 4 to 2048 WQEs. */
#define E810_CQP_SQSIZE_MIN_CODE 1
#define E810_CQP_SQSIZE_MAX_CODE 10

/* The CCQ's entry. */
#define E810_CQE_SIZE           32
#define E810_CQE_ERROR          BIT_ULL(55)
#define E810_CQE_WQEIDX_SHIFT   32

static const E810PeOp *const e810_pe_op_tables[] = {
    e810_hmc_ops, e810_pe_cq_ops, e810_pe_qp_ops, e810_pe_misc_ops,
    e810_pe_stats_ops,
    e810_stag_ops, e810_mcg_ops,
};

static const E810PeOp *e810_pe_find_op(uint8_t opcode)
{
    size_t i;
    const E810PeOp *op;

    for (i = 0; i < ARRAY_SIZE(e810_pe_op_tables); i++) {
        for (op = e810_pe_op_tables[i]; op->fn; op++) {
            if (op->opcode == opcode) {
                return op;
            }
        }
    }
    return NULL;
}

/* The CCQ's entry for the command at WQE index IDX. */
static void e810_cqp_complete(E810State *s, E810Pe *pe, uint32_t idx,
                              uint32_t status, uint32_t ret)
{
    uint8_t cqe[E810_CQE_SIZE] = { 0 };
    uint64_t q3 = (uint64_t)idx << E810_CQE_WQEIDX_SHIFT | status;

    if (status) {
        q3 |= E810_CQE_ERROR;
    }
    stq_le_p(cqe + 8, pe->cqp_compl_ctx);
    stq_le_p(cqe + 16, ret);
    stq_le_p(cqe + 24, q3);
    e810_pe_cq_post(s, 0, cqe, false);
}

/* Run the WQE at the tail; false when it is not (yet) valid. */
static bool e810_cqp_run_one(E810State *s, E810Pe *pe)
{
    uint8_t wqe[E810_CQP_WQE_SIZE];
    uint32_t idx = pe->cqp_tail;
    uint32_t status, ret = 0;
    const E810PeOp *op;
    uint64_t hdr;
    uint8_t opcode;

    if (!e810_dma_read(s, pe->cqp_sq_pa + (uint64_t)idx * sizeof(wqe),
                       wqe, sizeof(wqe))) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CQP WQE %u unreadable\n", idx);
        return false;
    }
    hdr = e810_wqe_hdr(wqe);
    if (!!(hdr & E810_CQP_HDR_VALID) != pe->cqp_polarity) {
        return false;
    }
    opcode = E810_CQP_HDR_OPCODE(hdr);
    op = e810_pe_find_op(opcode);
    if (op) {
        status = op->fn(s, pe, wqe, &ret);
    } else {
        qemu_log_mask(LOG_UNIMP, "e810: CQP opcode 0x%02x\n", opcode);
        status = E810_PE_ERR_UNSUPP;
    }
    trace_e810_pe_cqp_op(idx, opcode, op ? op->name : "?", status, ret);

    pe->cqp_tail = (idx + 1) % pe->cqp_sq_size;
    if (!pe->cqp_tail) {
        pe->cqp_polarity = !pe->cqp_polarity;
    }
    /* The register view: the tail, and whether this command failed. */
    pe->cqp_tail_reg = pe->cqp_tail;
    if (status) {
        pe->cqp_tail_reg |= E810_CQPTAIL_OP_ERR;
        pe->cqp_errcodes = status;
    }
    if (pe->cqp_up) {
        e810_cqp_complete(s, pe, idx, status, ret);
    }
    return true;
}

/* PFPE_CQPDB: the driver's head; run what lies before it. */
static void e810_cqp_doorbell(E810State *s, E810Pe *pe, uint32_t head)
{
    uint32_t budget;

    if (!pe->cqp_up || pe->cqp_busy) {
        return;
    }
    if (head >= pe->cqp_sq_size) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CQP doorbell %u of %u\n",
                      head, pe->cqp_sq_size);
        return;
    }
    /* No second pass from inside a command (an interrupt's handler). */
    pe->cqp_busy = true;
    for (budget = pe->cqp_sq_size; budget && pe->cqp_tail != head &&
         pe->cqp_up; budget--) {
        if (!e810_cqp_run_one(s, pe)) {
            break;
        }
    }
    pe->cqp_busy = false;
}

/* PFPE_CCQPLOW written: create the CQP from its host context, or destroy. */
static void e810_cqp_create(E810State *s, E810Pe *pe)
{
    uint64_t ctx_pa = (uint64_t)pe->ccqp_high << 32 | pe->ccqp_low;
    uint8_t ctx[E810_CQPHC_SIZE];
    unsigned int code;

    if (!ctx_pa) {
        /* Destroy: the status reads 0 (not done) again. */
        pe->cqp_up = false;
        pe->ccqp_status = 0;
        trace_e810_pe_cqp_create(0, 0, 0);
        return;
    }
    pe->ccqp_status = E810_CCQPSTATUS_ERR;
    if (!e810_dma_read(s, ctx_pa, ctx, sizeof(ctx))) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CQP context unreadable\n");
        pe->cqp_errcodes = E810_PE_ERR_DMA;
        return;
    }
    code = E810_CQPHC_SQSIZE(ldq_le_p(ctx));
    if (code < E810_CQP_SQSIZE_MIN_CODE || code > E810_CQP_SQSIZE_MAX_CODE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CQP size code %u\n", code);
        pe->cqp_errcodes = E810_PE_ERR_INVAL;
        return;
    }
    pe->cqp_sq_size = 2u << code;
    pe->cqp_sq_pa = ldq_le_p(ctx + 8);
    pe->cqp_compl_ctx = ldq_le_p(ctx + 24);
    pe->cqp_tail = 0;
    pe->cqp_polarity = true;
    pe->cqp_tail_reg = 0;
    pe->cqp_errcodes = 0;
    pe->cqp_up = true;
    pe->ccqp_status = E810_CCQPSTATUS_DONE;
    trace_e810_pe_cqp_create(ctx_pa, pe->cqp_sq_size, pe->ccqp_status);
}

static bool e810_pe_is_ceqctl(hwaddr addr, unsigned int *ceq)
{
    if (addr >= E810_GLINT_CEQCTL(0) &&
        addr < E810_GLINT_CEQCTL(E810_PE_MAX_CEQS)) {
        *ceq = (addr - E810_GLINT_CEQCTL(0)) / 4;
        return true;
    }
    return false;
}

bool e810_pe_reg_read(E810State *s, hwaddr addr, uint32_t *val)
{
    E810Pe *pe = s->pe;
    unsigned int ceq;

    if (e810_pe_is_ceqctl(addr, &ceq)) {
        *val = pe->ceq_ctl[ceq];
        return true;
    }
    switch (addr) {
    case E810_GLPE_CPUSTATUS0:
    case E810_GLPE_CPUSTATUS1:
    case E810_GLPE_CPUSTATUS2:
        *val = E810_PE_CPU_READY;
        return true;
    case E810_GLPCI_LBARCTRL:
        *val = E810_LBARCTRL_PE_DB_8M;
        return true;
    case E810_PFPE_CCQPSTATUS:
        *val = pe->ccqp_status;
        return true;
    case E810_PFPE_CCQPHIGH:
        *val = pe->ccqp_high;
        return true;
    case E810_PFPE_CCQPLOW:
        *val = pe->ccqp_low;
        return true;
    case E810_PFPE_CQPTAIL:
        *val = pe->cqp_tail_reg;
        return true;
    case E810_PFPE_CQPERRCODES:
        *val = pe->cqp_errcodes;
        return true;
    case E810_PFINT_AEQCTL:
        *val = pe->aeq_ctl;
        return true;
    case E810_GLPE_CRITERR:
        /* No critical error, ever. */
        *val = 0;
        return true;
    }
    return false;
}

bool e810_pe_reg_write(E810State *s, hwaddr addr, uint32_t val)
{
    E810Pe *pe = s->pe;
    unsigned int ceq;

    if (e810_pe_is_ceqctl(addr, &ceq)) {
        pe->ceq_ctl[ceq] = val;
        return true;
    }
    switch (addr) {
    case E810_PFPE_CCQPHIGH:
        pe->ccqp_high = val;
        return true;
    case E810_PFPE_CCQPLOW:
        pe->ccqp_low = val;
        e810_cqp_create(s, pe);
        return true;
    case E810_PFPE_CCQPSTATUS:
        /* irdma clears it before it creates the CQP. */
        pe->ccqp_status = val;
        return true;
    case E810_PFPE_CQPTAIL:
        /* Likewise: 0 before creation. */
        pe->cqp_tail_reg = val;
        return true;
    case E810_PFPE_CQPDB:
        e810_cqp_doorbell(s, pe, val);
        return true;
    case E810_PFPE_CQARM:
    case E810_PE_DB_CQARM:
        e810_pe_cq_arm(s, val);
        return true;
    case E810_PFINT_AEQCTL:
        pe->aeq_ctl = val;
        return true;
    case E810_PFPE_CQACK:
    case E810_PFPE_AEQALLOC:
        /*
         * The driver's acknowledgements of CEQ and AEQ entries: the
         * model does not stop producing when they are missing.
         */
        return true;
    case E810_PFPE_WQEALLOC:
    case E810_PE_DB_PAGE:
        /* A QP's send doorbell: the QP's ID, nothing else. */
        e810_roce_sq_doorbell(s, val);
        return true;
    case E810_PFHMC_PDINV:
        /* The model caches no page descriptor: nothing to invalidate. */
        return true;
    case E810_GLPE_CPUSTATUS0:
    case E810_GLPE_CPUSTATUS1:
    case E810_GLPE_CPUSTATUS2:
    case E810_GLPCI_LBARCTRL:
    case E810_PFPE_CQPERRCODES:
    case E810_GLPE_CRITERR:
        return true;
    }
    return false;
}

void e810_pe_reset(E810State *s)
{
    E810Pe *pe = s->pe;

    e810_pe_qp_reset(pe);
    e810_roce_reset(s);
    e810_pe_cq_reset(pe);
    e810_pe_misc_reset(pe);
    e810_pe_stats_reset(pe);
    e810_hmc_reset(pe);
    pe->ccqp_high = 0;
    pe->ccqp_low = 0;
    pe->ccqp_status = 0;
    pe->cqp_tail_reg = 0;
    pe->cqp_errcodes = 0;
    pe->cqp_up = false;
    pe->cqp_busy = false;
    pe->cqp_sq_pa = 0;
    pe->cqp_sq_size = 0;
    pe->cqp_tail = 0;
    pe->cqp_polarity = true;
    pe->cqp_compl_ctx = 0;
    memset(pe->ceq_ctl, 0, sizeof(pe->ceq_ctl));
    pe->aeq_ctl = 0;
}

void e810_pe_realize(E810State *s)
{
    s->pe = g_new0(E810Pe, 1);
    s->pe->stags = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    s->pe->ahs = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    s->pe->mcgs = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    e810_roce_realize(s);
    e810_pe_reset(s);
}

void e810_pe_unrealize(E810State *s)
{
    e810_pe_reset(s);
    e810_roce_unrealize(s);
    g_hash_table_destroy(s->pe->stags);
    g_hash_table_destroy(s->pe->ahs);
    g_hash_table_destroy(s->pe->mcgs);
    g_free(s->pe);
    s->pe = NULL;
}

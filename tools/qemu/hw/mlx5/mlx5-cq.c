/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: completion queues.
 *
 * A CQ is a ring of 64- or 128-byte CQEs in guest memory (CREATE_CQ's
 * pas list) with a doorbell record of two big-endian dwords: the
 * driver's consumer index, and its last arm request.  The device writes
 * a CQE at its producer index (the 64-byte CQE proper is the last 64
 * bytes of a 128-byte entry), the owner bit of op_own last: the parity
 * of the ring's passes, which the driver compares with its own.  A full
 * ring (by the record's consumer index) loses the CQE and the CQ
 * reports an overrun in its trace.
 *
 * Arming: the driver writes sn << 28 | cmd << 24 | ci, then the CQ
 * number, as one 64-bit write to offset 0x20 of its UAR page (QEMU hands
 * the model two dwords).  An armed CQ that gets a CQE, or that is armed
 * with CQEs beyond ci already, posts a completion event (type 0, the CQ
 * number) to its EQ and is disarmed.  Moderation (period, count) is
 * accepted and stored: the model never delays an event, which is within
 * what moderation allows.
 *
 * Resizing (MODIFY_CQ op_mod 1): the device writes a RESIZE_CQ CQE
 * (opcode 5) at its producer index in the old ring, and from the next
 * index on writes to the new ring, the index counting on; the driver
 * copies what it had not consumed from the old ring into the new one
 * until it meets that CQE.  The new ring must hold what is outstanding,
 * the old one must have room for the CQE, and the CQE size stays.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "sysemu/dma.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define CQE_SIZE            64
#define CQE_OP_OWN          63
#define CQ_LOG_MAX_SIZE     22          /* log_max_cq_sz */
#define CQ_LOG_MAX_PAGE     18
#define CQ_DB_ARM_SOLICITED BIT(24)
#define EVENT_COMP          0x00
#define CQE_RESIZE_CQ       0x5
#define CQ_OPMOD_RESIZE     1
#define CQ_RESIZE_LOG_SIZE  BIT(0)      /* resize_field_select bits */
#define CQ_RESIZE_PG_OFFSET BIT(1)
#define CQ_RESIZE_PG_SIZE   BIT(2)

MLX5CQ *mlx5_cq_get(MLX5State *s, uint32_t cqn)
{
    if (!cqn || cqn > MLX5_MAX_CQS || !s->cqs[cqn - 1].valid) {
        return NULL;
    }
    return &s->cqs[cqn - 1];
}

static void cq_free(MLX5CQ *cq)
{
    g_free(cq->pas);
    memset(cq, 0, sizeof(*cq));
}

void mlx5_cq_reset(MLX5State *s)
{
    int i;

    for (i = 0; i < MLX5_MAX_CQS; i++) {
        cq_free(&s->cqs[i]);
    }
}

static uint32_t cq_stride(MLX5CQ *cq)
{
    return CQE_SIZE << cq->cqe_128;
}

/*
 * The CQE proper of entry @idx, the last 64 bytes of the entry, from
 * page_offset 64ths into the first page: a 128-byte entry may cross a
 * page, its last 64 bytes never do.
 */
static dma_addr_t cq_entry_addr(MLX5CQ *cq, uint32_t idx)
{
    uint64_t page = 4096ULL << cq->log_page_size;

    return mlx5_pas_addr(cq->pas, cq->log_page_size,
                         (uint64_t)idx * cq_stride(cq) + cq_stride(cq) -
                         CQE_SIZE + cq->page_offset * (page >> 6));
}

/* The pages a ring of 2^@log_size entries needs from @page_offset on. */
static uint32_t cq_npas(unsigned int log_size, bool cqe_128,
                        unsigned int log_page, unsigned int page_offset)
{
    return DIV_ROUND_UP(((uint64_t)(CQE_SIZE << cqe_128) << log_size) +
                        page_offset * ((uint64_t)64 << log_page),
                        (uint64_t)4096 << log_page);
}

/* The driver's consumer index, from the doorbell record. */
static uint32_t cq_ci(MLX5State *s, MLX5CQ *cq)
{
    uint32_t v = 0;

    if (pci_dma_read(PCI_DEVICE(s), cq->dbr, &v, 4) != MEMTX_OK) {
        /* An unreadable record reads as empty ring. */
        return cq->pi;
    }
    return be32_to_cpu(v) & MLX5_CQ_COUNTER_MASK;
}

static void cq_event(MLX5State *s, MLX5CQ *cq)
{
    uint8_t data[28] = { 0 };

    cq->armed = false;
    stl_be_p(data + 24, cq - s->cqs + 1);
    mlx5_eq_post_to(s, cq->eqn, EVENT_COMP, 0, data);
}

/* CQEs written and not yet consumed by the driver. */
static uint32_t cq_outstanding(MLX5State *s, MLX5CQ *cq)
{
    return (cq->pi - cq_ci(s, cq)) & MLX5_CQ_COUNTER_MASK;
}

/* Write @cqe at the producer index, the owner bit last, and move on. */
static void cq_write(MLX5State *s, MLX5CQ *cq, uint8_t *cqe)
{
    dma_addr_t addr = cq_entry_addr(cq, cq->pi & ((1u << cq->log_size) - 1));

    cqe[CQE_OP_OWN] = (cqe[CQE_OP_OWN] & ~1) |
                      ((cq->pi >> cq->log_size) & 1);
    pci_dma_write(PCI_DEVICE(s), addr, cqe, CQE_OP_OWN);
    /* The CQE is whole before the driver can take it. */
    smp_wmb();
    pci_dma_write(PCI_DEVICE(s), addr + CQE_OP_OWN, cqe + CQE_OP_OWN, 1);
    trace_mlx5_cq_post(cq - s->cqs + 1, cq->pi, cqe[CQE_OP_OWN] >> 4);
    cq->pi = (cq->pi + 1) & MLX5_CQ_COUNTER_MASK;
}

bool mlx5_cq_post(MLX5State *s, uint32_t cqn, uint8_t *cqe)
{
    MLX5CQ *cq = mlx5_cq_get(s, cqn);

    if (!cq) {
        return false;
    }
    if (cq_outstanding(s, cq) >= 1u << cq->log_size) {
        trace_mlx5_cq_overrun(cqn);
        return false;
    }
    cq_write(s, cq, cqe);
    if (cq->armed) {
        cq_event(s, cq);
    }
    return true;
}

void mlx5_cq_doorbell(MLX5State *s, unsigned int uar, uint32_t arm,
                      uint32_t cqn)
{
    MLX5CQ *cq = mlx5_cq_get(s, cqn & 0xffffff);
    uint32_t ci = arm & MLX5_CQ_COUNTER_MASK;

    if (!cq || cq->uar != uar) {
        trace_mlx5_cq_bad_doorbell(uar, cqn);
        return;
    }
    trace_mlx5_cq_arm(cqn, ci, !!(arm & CQ_DB_ARM_SOLICITED));
    cq->armed = true;
    /* CQEs the driver has not seen yet: the event is due now. */
    if (ci != cq->pi) {
        cq_event(s, cq);
    }
}

/* Check a CQ context; the number of pages it needs in *npas. */
static int cq_check(MLX5State *s, MLX5Cmd *cmd, const uint8_t *cqc,
                    uint32_t *npas)
{
    unsigned int log_size = MLX5_GET(cqc, cqc, log_cq_size);
    unsigned int log_page = MLX5_GET(cqc, cqc, log_page_size);
    unsigned int cqe_sz = MLX5_GET(cqc, cqc, cqe_sz);
    unsigned int uar = MLX5_GET(cqc, cqc, uar_page);
    unsigned int eqn = MLX5_GET(cqc, cqc, c_eqn_or_apu_element);

    /* cqe_sz 0: 64 bytes, 1: 128; no compression, no 128-byte padding */
    if (log_size > CQ_LOG_MAX_SIZE || log_page > CQ_LOG_MAX_PAGE ||
        cqe_sz > 1 || MLX5_GET(cqc, cqc, cqe_comp_en) ||
        MLX5_GET(cqc, cqc, apu_cq) ||
        MLX5_GET(cqc, cqc, dbr_umem_valid) ||
        (MLX5_GET64(cqc, cqc, dbr_addr) & 7) ||
        !mlx5_eq_valid(s, eqn) ||
        uar < MLX5_UAR_FIRST || uar >= MLX5_UAR_FIRST + MLX5_UAR_COUNT ||
        !test_bit(uar - MLX5_UAR_FIRST, s->uars)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    *npas = cq_npas(log_size, cqe_sz, log_page,
                    MLX5_GET(cqc, cqc, page_offset));
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_create_cq(MLX5State *s, MLX5Cmd *cmd)
{
    size_t hdr = MLX5_BYTE_OFF(create_cq_in, pas);
    const uint8_t *cqc = MLX5_ADDR_OF(create_cq_in, cmd->in, cq_context);
    uint32_t npas, cqn;
    MLX5CQ *cq;
    int st;

    st = MLX5_CMD_LEN(cmd, create_cq);
    if (st) {
        return st;
    }
    if (MLX5_GET(create_cq_in, cmd->in, cq_umem_valid)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    st = cq_check(s, cmd, cqc, &npas);
    if (st) {
        return st;
    }
    st = mlx5_pas_check(cmd, hdr, npas,
                        MLX5_GET(cqc, cqc, log_page_size));
    if (st) {
        return st;
    }
    for (cqn = 0; cqn < MLX5_MAX_CQS && s->cqs[cqn].valid; cqn++) {
        continue;
    }
    if (cqn == MLX5_MAX_CQS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    cq = &s->cqs[cqn];
    cq->valid = true;
    cq->log_size = MLX5_GET(cqc, cqc, log_cq_size);
    cq->log_page_size = MLX5_GET(cqc, cqc, log_page_size);
    cq->page_offset = MLX5_GET(cqc, cqc, page_offset);
    cq->cqe_128 = MLX5_GET(cqc, cqc, cqe_sz);
    cq->uar = MLX5_GET(cqc, cqc, uar_page);
    cq->eqn = MLX5_GET(cqc, cqc, c_eqn_or_apu_element);
    cq->dbr = MLX5_GET64(cqc, cqc, dbr_addr);
    cq->period = MLX5_GET(cqc, cqc, cq_period);
    cq->max_count = MLX5_GET(cqc, cqc, cq_max_count);
    cq->pas = mlx5_pas_copy(cmd, hdr, npas);
    trace_mlx5_cq_create(cqn + 1, cq->log_size, cq->eqn, cq->cqe_128);
    MLX5_SET(create_cq_out, cmd->out, cqn, cqn + 1);
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_destroy_cq(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, destroy_cq);
    uint32_t cqn;
    MLX5CQ *cq;

    if (st) {
        return st;
    }
    cqn = MLX5_GET(destroy_cq_in, cmd->in, cqn);
    cq = mlx5_cq_get(s, cqn);
    if (!cq) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    if (mlx5_wq_cq_busy(s, cqn) || mlx5_qp_cq_busy(s, cqn) ||
        mlx5_srq_cq_busy(s, cqn)) {
        /* A queue still completes to it. */
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_STATE);
    }
    trace_mlx5_cq_destroy(cqn);
    cq_free(cq);
    return MLX5_CMD_STAT_OK;
}

static int cq_resize(MLX5State *s, MLX5Cmd *cmd, MLX5CQ *cq)
{
    size_t hdr = MLX5_BYTE_OFF(modify_cq_in, pas);
    const uint8_t *cqc = MLX5_ADDR_OF(modify_cq_in, cmd->in, cq_context);
    uint32_t select = MLX5_GET(modify_cq_in, cmd->in,
        modify_field_select_resize_field_select.resize_field_select.
        resize_field_select);
    unsigned int log_size = MLX5_GET(cqc, cqc, log_cq_size);
    unsigned int log_page = MLX5_GET(cqc, cqc, log_page_size);
    unsigned int page_offset = MLX5_GET(cqc, cqc, page_offset);
    uint8_t cqe[CQE_SIZE] = { 0 };
    uint32_t npas, outstanding;
    int st;

    if (!(select & CQ_RESIZE_LOG_SIZE) || log_size > CQ_LOG_MAX_SIZE ||
        log_page > CQ_LOG_MAX_PAGE ||
        MLX5_GET(cqc, cqc, cqe_sz) != cq->cqe_128 ||
        MLX5_GET(modify_cq_in, cmd->in, cq_umem_valid)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    if (!(select & CQ_RESIZE_PG_SIZE)) {
        log_page = cq->log_page_size;
    }
    if (!(select & CQ_RESIZE_PG_OFFSET)) {
        page_offset = cq->page_offset;
    }
    /*
     * The new ring takes what the driver has not consumed, the old one
     * the RESIZE_CQ CQE.
     */
    outstanding = cq_outstanding(s, cq);
    if (outstanding >= 1u << log_size || outstanding >= 1u << cq->log_size) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    npas = cq_npas(log_size, cq->cqe_128, log_page, page_offset);
    st = mlx5_pas_check(cmd, hdr, npas, log_page);
    if (st) {
        return st;
    }
    cqe[CQE_OP_OWN] = CQE_RESIZE_CQ << 4;
    cq_write(s, cq, cqe);
    g_free(cq->pas);
    cq->pas = mlx5_pas_copy(cmd, hdr, npas);
    cq->log_size = log_size;
    cq->log_page_size = log_page;
    cq->page_offset = page_offset;
    trace_mlx5_cq_resize(cq - s->cqs + 1, log_size, cq->pi);
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_modify_cq(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, modify_cq);
    const uint8_t *cqc = MLX5_ADDR_OF(modify_cq_in, cmd->in, cq_context);
    MLX5CQ *cq;

    if (st) {
        return st;
    }
    cq = mlx5_cq_get(s, MLX5_GET(modify_cq_in, cmd->in, cqn));
    if (!cq) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    if (cmd->op_mod == CQ_OPMOD_RESIZE) {
        return cq_resize(s, cmd, cq);
    }
    if (cmd->op_mod != 0) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_OP_MOD);
    }
    cq->period = MLX5_GET(cqc, cqc, cq_period);
    cq->max_count = MLX5_GET(cqc, cqc, cq_max_count);
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_query_cq(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, query_cq);
    uint8_t *cqc = MLX5_ADDR_OF(query_cq_out, cmd->out, cq_context);
    MLX5CQ *cq;

    if (st) {
        return st;
    }
    cq = mlx5_cq_get(s, MLX5_GET(query_cq_in, cmd->in, cqn));
    if (!cq) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    MLX5_SET(cqc, cqc, log_cq_size, cq->log_size);
    MLX5_SET(cqc, cqc, log_page_size, cq->log_page_size);
    MLX5_SET(cqc, cqc, page_offset, cq->page_offset);
    MLX5_SET(cqc, cqc, cqe_sz, cq->cqe_128);
    MLX5_SET(cqc, cqc, uar_page, cq->uar);
    MLX5_SET(cqc, cqc, c_eqn_or_apu_element, cq->eqn);
    MLX5_SET(cqc, cqc, cq_period, cq->period);
    MLX5_SET(cqc, cqc, cq_max_count, cq->max_count);
    MLX5_SET(cqc, cqc, producer_counter, cq->pi);
    MLX5_SET64(cqc, cqc, dbr_addr, cq->dbr);
    return MLX5_CMD_STAT_OK;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: send and receive queues (SQ, RQ) of the Ethernet
 * function, their state machines and the send doorbell.
 *
 * A queue is a cyclic ring of 2^log_wq_sz basic blocks of 2^log_wq_stride
 * bytes in guest memory (the pas list of its wq context) and a doorbell
 * record: for an SQ its second dword is the driver's producer counter.
 * States: RST (0) at creation, RDY (1), ERR (3); MODIFY names the state
 * it expects the queue to be in, and a mismatch is BAD_SYS_STATE.
 *
 * The send doorbell is an 8-byte write of the WQE's first control
 * qword to offset 0x800 or above of a UAR page; its second dword holds
 * the SQ number.  The device then runs every WQE from its consumer
 * counter to the record's producer counter: a WQE is a control segment
 * (opcode, WQE index, SQ number, size in 16-byte units, completion
 * request) and its segments.  NOP completes; SEND and LSO go to
 * mlx5-tx.c (the wire, and local loopback).  A completion is a
 * requester CQE (opcode 0) when the WQE asks for one, with the SQ's
 * user index and the free-running clock; a malformed WQE gets an
 * error CQE and takes the SQ to ERR.  RQs are filled by the driver
 * through their record alone; mlx5-rx.c takes their WQEs.  QUERY_SQ
 * and QUERY_RQ give back the creation context with the state and
 * consumer counter of now.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "sysemu/dma.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define WQ_LOG_MAX_SIZE     16          /* log_max_wq_sz */
#define WQ_LOG_MAX_PAGE     18
#define WQ_TYPE_CYCLIC      1
#define WQ_STATE_RST        0
#define WQ_STATE_RDY        1
#define WQ_STATE_ERR        3

#define WQE_BB              64
#define WQE_OP_NOP          0x00
#define WQE_OP_SEND         0x0a
#define WQE_OP_LSO          0x0e
#define WQE_CTRL_CQ_UPDATE  (2 << 2)

#define CQE_OPCODE_REQ      0x0
#define CQE_OPCODE_REQ_ERR  0xd
#define CQE_SYND_LOCAL_QP_OP 0x02

/* The offsets of struct mlx5_cqe64 the model writes. */
#define CQE_SRQN_UIDX       32
#define CQE_TIMESTAMP       48
#define CQE_SYNDROME        55
#define CQE_SOP_DROP_QPN    56
#define CQE_WQE_COUNTER     60
#define CQE_OP_OWN          63

static const char *const wq_names[] = { "sq", "rq" };

MLX5WQ *mlx5_wq_get(MLX5State *s, unsigned int type, uint32_t n)
{
    if (!n || n > MLX5_MAX_WQS || !s->wqs[type][n - 1].valid) {
        return NULL;
    }
    return &s->wqs[type][n - 1];
}

bool mlx5_wq_cq_busy(MLX5State *s, uint32_t cqn)
{
    int t, i;

    for (t = 0; t < 2; t++) {
        for (i = 0; i < MLX5_MAX_WQS; i++) {
            if (s->wqs[t][i].valid && s->wqs[t][i].cqn == cqn) {
                return true;
            }
        }
    }
    return false;
}

static void wq_free(MLX5WQ *wq)
{
    g_free(wq->pas);
    g_free(wq->ctx);
    memset(wq, 0, sizeof(*wq));
}

void mlx5_wq_reset(MLX5State *s)
{
    int t, i;

    for (t = 0; t < 2; t++) {
        for (i = 0; i < MLX5_MAX_WQS; i++) {
            wq_free(&s->wqs[t][i]);
        }
    }
}

/*
 * The ring starts page_offset 64ths into its first page, so an entry of
 * more than 64 bytes may cross a page: callers read at most 64 bytes of
 * one (a 64-byte aligned block) at an address, or use mlx5_wq_read().
 */
dma_addr_t mlx5_wq_addr(MLX5WQ *wq, uint32_t idx, uint32_t off)
{
    uint64_t page = 4096ULL << wq->log_pg_sz;
    uint64_t o = ((uint64_t)(idx & ((1u << wq->log_sz) - 1)) <<
                  wq->log_stride) + off + wq->page_offset * (page >> 6);

    return mlx5_pas_addr(wq->pas, wq->log_pg_sz, o);
}

/* The first @len bytes of entry @idx, in 64-byte pieces. */
MemTxResult mlx5_wq_read(MLX5State *s, MLX5WQ *wq, uint32_t idx, void *buf,
                         uint32_t len)
{
    MemTxResult r = MEMTX_OK;
    uint32_t off, n;

    for (off = 0; off < len && r == MEMTX_OK; off += n) {
        n = MIN(64, len - off);
        r = pci_dma_read(PCI_DEVICE(s), mlx5_wq_addr(wq, idx, off),
                         (uint8_t *)buf + off, n);
    }
    return r;
}

/* Create an SQ (type 0) or RQ (1) from its context. */
static int wq_create(MLX5State *s, MLX5Cmd *cmd, unsigned int type,
                     const uint8_t *qc, const uint8_t *wqc)
{
    const uint8_t *pas = MLX5_ADDR_OF(wq, wqc, pas);
    size_t hdr = pas - cmd->in;
    unsigned int log_sz = MLX5_GET(wq, wqc, log_wq_sz);
    unsigned int log_stride = MLX5_GET(wq, wqc, log_wq_stride);
    unsigned int log_pg = MLX5_GET(wq, wqc, log_wq_pg_sz);
    unsigned int uar = MLX5_GET(wq, wqc, uar_page);
    uint32_t npas, n;
    MLX5WQ *wq;
    int st;

    if (cmd->inlen < hdr) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
                             MLX5_SYND_IN_SHORT);
    }
    /* pd 0: none (the driver's drop RQ, which never receives) */
    if (MLX5_GET(wq, wqc, wq_type) != WQ_TYPE_CYCLIC ||
        log_sz > WQ_LOG_MAX_SIZE || log_stride < 4 || log_stride > 10 ||
        log_pg > WQ_LOG_MAX_PAGE || MLX5_GET(wq, wqc, dbr_umem_valid) ||
        MLX5_GET(wq, wqc, wq_umem_valid) ||
        (MLX5_GET64(wq, wqc, dbr_addr) & 3) ||
        (MLX5_GET(wq, wqc, pd) &&
         !mlx5_obj_get(s, MLX5_OBJ_PD, MLX5_GET(wq, wqc, pd)))) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (type == MLX5_WQ_SQ) {
        /* WQEs are read in basic blocks of 64 bytes: the stride. */
        if (MLX5_GET(sqc, qc, state) != WQ_STATE_RST ||
            log_stride != 6 ||
            !mlx5_cq_get(s, MLX5_GET(sqc, qc, cqn)) ||
            MLX5_GET(sqc, qc, hairpin) ||
            /* no TIS: an internal SQ (the driver's ICOSQ) */
            (MLX5_GET(sqc, qc, tis_num_0) &&
             !mlx5_obj_get(s, MLX5_OBJ_TIS, MLX5_GET(sqc, qc, tis_num_0))) ||
            uar < MLX5_UAR_FIRST || uar >= MLX5_UAR_FIRST + MLX5_UAR_COUNT ||
            !test_bit(uar - MLX5_UAR_FIRST, s->uars)) {
            return mlx5_cmd_bad_param(cmd);
        }
    } else if (MLX5_GET(rqc, qc, state) != WQ_STATE_RST ||
               !mlx5_cq_get(s, MLX5_GET(rqc, qc, cqn)) ||
               MLX5_GET(rqc, qc, hairpin) ||
               MLX5_GET(rqc, qc, mem_rq_type)) {
        return mlx5_cmd_bad_param(cmd);
    }
    /* The ring from page_offset 64ths into its first page. */
    npas = DIV_ROUND_UP(((uint64_t)1 << (log_sz + log_stride)) +
                        MLX5_GET(wq, wqc, page_offset) *
                        ((uint64_t)64 << log_pg),
                        (uint64_t)4096 << log_pg);
    st = mlx5_pas_check(cmd, hdr, npas, log_pg);
    if (st) {
        return st;
    }
    for (n = 0; n < MLX5_MAX_WQS && s->wqs[type][n].valid; n++) {
        continue;
    }
    if (n == MLX5_MAX_WQS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    wq = &s->wqs[type][n];
    wq->valid = true;
    wq->state = WQ_STATE_RST;
    wq->cqn = type == MLX5_WQ_SQ ? MLX5_GET(sqc, qc, cqn) :
                                   MLX5_GET(rqc, qc, cqn);
    wq->uar = uar;
    wq->dbr = MLX5_GET64(wq, wqc, dbr_addr);
    wq->pd = MLX5_GET(wq, wqc, pd);
    wq->log_sz = log_sz;
    wq->log_stride = log_stride;
    wq->log_pg_sz = log_pg;
    wq->page_offset = MLX5_GET(wq, wqc, page_offset);
    wq->pas = mlx5_pas_copy(cmd, hdr, npas);
    /* The context up to its page list, for QUERY_SQ and QUERY_RQ. */
    wq->ctx = g_memdup2(qc, type == MLX5_WQ_SQ ? MLX5_ST_SZ_BYTES(sqc) :
                                                 MLX5_ST_SZ_BYTES(rqc));
    if (type == MLX5_WQ_SQ) {
        wq->tisn = MLX5_GET(sqc, qc, tis_num_0);
    }
    trace_mlx5_wq_create(wq_names[type], n + 1, log_sz, wq->cqn);
    /* sqn and rqn sit at the same place of their outputs */
    MLX5_SET(create_sq_out, cmd->out, sqn, n + 1);
    return MLX5_CMD_STAT_OK;
}

static int wq_modify(MLX5State *s, MLX5Cmd *cmd, unsigned int type,
                     uint32_t n, unsigned int cur, unsigned int next)
{
    MLX5WQ *wq = mlx5_wq_get(s, type, n);

    if (!wq) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    if (next != WQ_STATE_RST && next != WQ_STATE_RDY &&
        next != WQ_STATE_ERR) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (cur != wq->state) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
                             MLX5_SYND_STATE);
    }
    /* RST->RDY, RDY->RDY, RDY->ERR, ERR->RDY and anything to RST */
    if (cur == WQ_STATE_RST && next == WQ_STATE_ERR) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
                             MLX5_SYND_STATE);
    }
    if (next == WQ_STATE_RST) {
        wq->cc = 0;
    }
    trace_mlx5_wq_modify(wq_names[type], n, cur, next);
    wq->state = next;
    return MLX5_CMD_STAT_OK;
}

/*
 * QUERY_SQ, QUERY_RQ: the context the queue was created with, its state
 * now and its consumer counter (the wq's hw_counter); no page list.
 */
static int wq_query(MLX5State *s, MLX5Cmd *cmd, unsigned int type,
                    uint32_t n, uint8_t *qc)
{
    MLX5WQ *wq = mlx5_wq_get(s, type, n);
    size_t len = type == MLX5_WQ_SQ ? MLX5_ST_SZ_BYTES(sqc) :
                                      MLX5_ST_SZ_BYTES(rqc);
    uint8_t *wqc;

    if (!wq) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_NO_OBJECT);
    }
    memcpy(qc, wq->ctx, len);
    if (type == MLX5_WQ_SQ) {
        MLX5_SET(sqc, qc, state, wq->state);
        wqc = MLX5_ADDR_OF(sqc, qc, wq);
    } else {
        MLX5_SET(rqc, qc, state, wq->state);
        wqc = MLX5_ADDR_OF(rqc, qc, wq);
    }
    MLX5_SET(wq, wqc, hw_counter, wq->cc);
    return MLX5_CMD_STAT_OK;
}

int mlx5_wq_exec(MLX5State *s, MLX5Cmd *cmd)
{
    const uint8_t *qc;
    int st;

    switch (cmd->opcode) {
    case MLX5_CMD_OP_CREATE_SQ:
        st = MLX5_CMD_LEN(cmd, create_sq);
        if (st) {
            return st;
        }
        qc = MLX5_ADDR_OF(create_sq_in, cmd->in, ctx);
        return wq_create(s, cmd, MLX5_WQ_SQ, qc, MLX5_ADDR_OF(sqc, qc, wq));
    case MLX5_CMD_OP_CREATE_RQ:
        st = MLX5_CMD_LEN(cmd, create_rq);
        if (st) {
            return st;
        }
        qc = MLX5_ADDR_OF(create_rq_in, cmd->in, ctx);
        return wq_create(s, cmd, MLX5_WQ_RQ, qc, MLX5_ADDR_OF(rqc, qc, wq));
    case MLX5_CMD_OP_MODIFY_SQ:
        st = MLX5_CMD_LEN(cmd, modify_sq);
        if (st) {
            return st;
        }
        qc = MLX5_ADDR_OF(modify_sq_in, cmd->in, ctx);
        return wq_modify(s, cmd, MLX5_WQ_SQ,
                         MLX5_GET(modify_sq_in, cmd->in, sqn),
                         MLX5_GET(modify_sq_in, cmd->in, sq_state),
                         MLX5_GET(sqc, qc, state));
    case MLX5_CMD_OP_MODIFY_RQ:
        st = MLX5_CMD_LEN(cmd, modify_rq);
        if (st) {
            return st;
        }
        qc = MLX5_ADDR_OF(modify_rq_in, cmd->in, ctx);
        return wq_modify(s, cmd, MLX5_WQ_RQ,
                         MLX5_GET(modify_rq_in, cmd->in, rqn),
                         MLX5_GET(modify_rq_in, cmd->in, rq_state),
                         MLX5_GET(rqc, qc, state));
    case MLX5_CMD_OP_QUERY_SQ:
        return MLX5_CMD_LEN(cmd, query_sq) ?:
               wq_query(s, cmd, MLX5_WQ_SQ,
                        MLX5_GET(query_sq_in, cmd->in, sqn),
                        MLX5_ADDR_OF(query_sq_out, cmd->out, sq_context));
    case MLX5_CMD_OP_QUERY_RQ:
        return MLX5_CMD_LEN(cmd, query_rq) ?:
               wq_query(s, cmd, MLX5_WQ_RQ,
                        MLX5_GET(query_rq_in, cmd->in, rqn),
                        MLX5_ADDR_OF(query_rq_out, cmd->out, rq_context));
    case MLX5_CMD_OP_DESTROY_SQ:
    case MLX5_CMD_OP_DESTROY_RQ: {
        unsigned int type = cmd->opcode == MLX5_CMD_OP_DESTROY_SQ ?
                            MLX5_WQ_SQ : MLX5_WQ_RQ;
        uint32_t n;
        MLX5WQ *wq;

        st = MLX5_CMD_LEN(cmd, destroy_sq);
        if (st) {
            return st;
        }
        n = MLX5_GET(destroy_sq_in, cmd->in, sqn);
        wq = mlx5_wq_get(s, type, n);
        if (!wq) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                                 MLX5_SYND_BAD_PARAM);
        }
        trace_mlx5_wq_destroy(wq_names[type], n);
        wq_free(wq);
        return MLX5_CMD_STAT_OK;
    }
    default:
        return -1;
    }
}

/* Complete WQE idx of SQ n with CQE opcode op (and syndrome synd). */
static void sq_complete(MLX5State *s, MLX5WQ *wq, uint32_t n, uint16_t idx,
                        uint8_t wqe_op, uint8_t op, uint8_t synd)
{
    uint8_t cqe[64] = { 0 };

    stl_be_p(cqe + CQE_SOP_DROP_QPN, (uint32_t)wqe_op << 24 | n);
    stw_be_p(cqe + CQE_WQE_COUNTER, idx);
    /* libmlx5 finds a user SQ's QP by it (CQE version 1) */
    stl_be_p(cqe + CQE_SRQN_UIDX, MLX5_GET(sqc, wq->ctx, user_index));
    stq_be_p(cqe + CQE_TIMESTAMP, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    cqe[CQE_SYNDROME] = synd;
    cqe[CQE_OP_OWN] = op << 4;
    mlx5_cq_post(s, wq->cqn, cqe);
}

/* The SQ to ERR with an error CQE for WQE idx. */
static void sq_error(MLX5State *s, MLX5WQ *wq, uint32_t n, uint16_t idx,
                     uint8_t op, uint8_t synd)
{
    sq_complete(s, wq, n, idx, op, CQE_OPCODE_REQ_ERR, synd);
    wq->state = WQ_STATE_ERR;
    trace_mlx5_wq_modify(wq_names[MLX5_WQ_SQ], n, WQ_STATE_RDY, WQ_STATE_ERR);
}

static void sq_run(MLX5State *s, uint32_t n)
{
    MLX5WQ *wq = mlx5_wq_get(s, MLX5_WQ_SQ, n);
    uint32_t pc = 0, budget;
    uint8_t ctrl[16];

    if (!wq || wq->state != WQ_STATE_RDY) {
        return;
    }
    if (pci_dma_read(PCI_DEVICE(s), wq->dbr + 4, &pc, 4) != MEMTX_OK) {
        return;
    }
    pc = be32_to_cpu(pc) & 0xffff;
    /* Never more than a ring's worth for one doorbell. */
    budget = 1u << wq->log_sz;
    while (wq->cc != pc && budget--) {
        uint32_t op_idx, qpn_ds;
        unsigned int ds, op;
        int synd = 0;

        if (pci_dma_read(PCI_DEVICE(s), mlx5_wq_addr(wq, wq->cc, 0), ctrl,
                         sizeof(ctrl)) != MEMTX_OK) {
            memset(ctrl, 0, sizeof(ctrl));
        }
        op_idx = ldl_be_p(ctrl);
        qpn_ds = ldl_be_p(ctrl + 4);
        op = op_idx & 0xff;
        ds = qpn_ds & 0x3f;
        trace_mlx5_sq_wqe(n, wq->cc, op, ds);
        if (!ds || (qpn_ds >> 8) != n ||
            ((op_idx >> 8) & 0xffff) != wq->cc ||
            (op != WQE_OP_NOP && op != WQE_OP_SEND && op != WQE_OP_LSO)) {
            /* A WQE the model cannot run. */
            sq_error(s, wq, n, wq->cc, op, CQE_SYND_LOCAL_QP_OP);
            return;
        }
        if (op != WQE_OP_NOP) {
            synd = mlx5_tx_wqe(s, wq, wq->cc, op, ds);
        }
        if (synd) {
            sq_error(s, wq, n, wq->cc, op, synd);
            return;
        }
        if (ctrl[11] & WQE_CTRL_CQ_UPDATE) {
            sq_complete(s, wq, n, wq->cc, op, CQE_OPCODE_REQ, 0);
        }
        wq->cc = (wq->cc + DIV_ROUND_UP(ds * 16, WQE_BB)) & 0xffff;
    }
}

void mlx5_sq_doorbell(MLX5State *s, unsigned int uar, uint32_t qpn_ds)
{
    uint32_t n = qpn_ds >> 8;
    MLX5WQ *wq = mlx5_wq_get(s, MLX5_WQ_SQ, n);

    /* QPs and SQs share the doorbell; their numbers do not overlap. */
    if (n >= MLX5_QPN_BASE) {
        mlx5_qp_doorbell(s, uar, n);
        return;
    }

    if (!wq || wq->uar != uar) {
        trace_mlx5_sq_bad_doorbell(uar, qpn_ds);
        return;
    }
    sq_run(s, n);
}

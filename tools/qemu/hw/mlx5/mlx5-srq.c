/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: XRC domains and shared receive queues.
 *
 * An SRQ is a ring of receive WQEs in guest memory that several QPs
 * take from, with a doorbell record whose first dword is the driver's
 * counter.  The PRM has three kinds, which share one number space
 * because the driver keeps them in one table and a QP's context names
 * any of them in the same field:
 *
 *   SRQ      CREATE_SRQ, the basic SRQ of ISSI 0 (srqc)
 *   XRC SRQ  CREATE_XRC_SRQ: in an XRC domain, completing to its own CQ
 *            with its own user index (xrc_srqc)
 *   RMP      CREATE_RMP, the basic SRQ of ISSI 1: an rmpc around a wq
 *
 * Their WQEs are linked lists (a next segment, then data segments), of
 * 16 to 512 bytes (max_wqe_sz_rq).  Every field is checked and kept in
 * MLX5SRQ, where the RoCE front end (mlx5-roce-wqe.c) takes WQEs from;
 * the limit (lwm) is stored by the ARM commands (no limit event yet),
 * and an SRQ named by a QP cannot be destroyed, nor an XRC domain
 * named by an SRQ or a QP.  Numbers are slot + 1.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define SRQ_LOG_MAX_SIZE        15      /* log_max_srq_sz */
#define SRQ_LOG_MIN_STRIDE      4       /* 16 bytes */
#define SRQ_LOG_MAX_STRIDE      9       /* max_wqe_sz_rq: 512 bytes */
#define SRQ_LOG_MAX_PAGE        18
#define SRQ_WQ_LINKED_LIST      0       /* the wq's type for an RMP */
#define RMP_STATE_RDY           1
#define RMP_STATE_ERR           3
#define ARM_XRC_SRQ_OP_MOD      1
#define ARM_RQ_OP_MOD_SRQ       1

static const char *const srq_kind_names[] = {
    [MLX5_SRQ_BASIC] = "srq",
    [MLX5_SRQ_XRC] = "xrc_srq",
    [MLX5_SRQ_RMP] = "rmp",
};

bool mlx5_xrcd_valid(MLX5State *s, uint32_t xrcd)
{
    return xrcd && xrcd <= MLX5_MAX_XRCDS && test_bit(xrcd - 1, s->xrcds);
}

MLX5SRQ *mlx5_srq_get(MLX5State *s, uint32_t srqn)
{
    if (!srqn || srqn > MLX5_MAX_SRQS || !s->srqs[srqn - 1].valid) {
        return NULL;
    }
    return &s->srqs[srqn - 1];
}

/* The SRQ of that number and kind, or NULL. */
static MLX5SRQ *srq_of_kind(MLX5State *s, uint32_t srqn, MLX5SRQKind kind)
{
    MLX5SRQ *srq = mlx5_srq_get(s, srqn);

    return srq && srq->kind == kind ? srq : NULL;
}

bool mlx5_srq_cq_busy(MLX5State *s, uint32_t cqn)
{
    int i;

    for (i = 0; i < MLX5_MAX_SRQS; i++) {
        if (s->srqs[i].valid && s->srqs[i].kind != MLX5_SRQ_RMP &&
            s->srqs[i].cqn == cqn) {
            return true;
        }
    }
    return false;
}

static bool srq_xrcd_busy(MLX5State *s, uint32_t xrcd)
{
    int i;

    for (i = 0; i < MLX5_MAX_SRQS; i++) {
        if (s->srqs[i].valid && s->srqs[i].kind != MLX5_SRQ_RMP &&
            s->srqs[i].xrcd == xrcd) {
            return true;
        }
    }
    return false;
}

static void srq_free(MLX5SRQ *srq)
{
    g_free(srq->pas);
    memset(srq, 0, sizeof(*srq));
}

void mlx5_srq_reset(MLX5State *s)
{
    int i;

    for (i = 0; i < MLX5_MAX_SRQS; i++) {
        srq_free(&s->srqs[i]);
    }
    bitmap_zero(s->xrcds, MLX5_MAX_XRCDS);
}

static int srq_no_object(MLX5Cmd *cmd)
{
    return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_NO_OBJECT);
}

static int srq_in_use(MLX5Cmd *cmd)
{
    return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                         MLX5_SYND_IN_USE);
}

static int cmd_alloc_xrcd(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, alloc_xrcd);
    unsigned long i;

    if (st) {
        return st;
    }
    i = find_first_zero_bit(s->xrcds, MLX5_MAX_XRCDS);
    if (i >= MLX5_MAX_XRCDS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    set_bit(i, s->xrcds);
    trace_mlx5_obj_create("xrcd", i + 1);
    MLX5_SET(alloc_xrcd_out, cmd->out, xrcd, i + 1);
    return MLX5_CMD_STAT_OK;
}

static int cmd_dealloc_xrcd(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, dealloc_xrcd);
    uint32_t xrcd;

    if (st) {
        return st;
    }
    xrcd = MLX5_GET(dealloc_xrcd_in, cmd->in, xrcd);
    if (!mlx5_xrcd_valid(s, xrcd)) {
        return srq_no_object(cmd);
    }
    if (srq_xrcd_busy(s, xrcd) || mlx5_qp_xrcd_busy(s, xrcd)) {
        return srq_in_use(cmd);
    }
    clear_bit(xrcd - 1, s->xrcds);
    trace_mlx5_obj_destroy("xrcd", xrcd);
    return MLX5_CMD_STAT_OK;
}

/*
 * The checks all kinds share, on the fields of *n (filled by the
 * caller from its context): sizes, PD, doorbell record, and the page
 * list at @pas_off of the input; then the new SRQ takes a free slot.
 */
static int srq_create(MLX5State *s, MLX5Cmd *cmd, const MLX5SRQ *n,
                      size_t pas_off, uint32_t *srqn)
{
    uint64_t page = 4096ULL << n->log_page_size;
    uint64_t bytes;
    uint32_t npas, i;
    int st;

    if (n->log_size > SRQ_LOG_MAX_SIZE ||
        n->log_stride < SRQ_LOG_MIN_STRIDE ||
        n->log_stride > SRQ_LOG_MAX_STRIDE ||
        n->log_page_size > SRQ_LOG_MAX_PAGE ||
        !mlx5_obj_get(s, MLX5_OBJ_PD, n->pd) || (n->dbr & 3) ||
        n->lwm >= 1u << n->log_size) {
        return mlx5_cmd_bad_param(cmd);
    }
    /* The ring starts page_offset 64ths into its first page. */
    bytes = ((uint64_t)1 << (n->log_size + n->log_stride)) +
            n->page_offset * (page >> 6);
    npas = DIV_ROUND_UP(bytes, page);
    st = mlx5_pas_check(cmd, pas_off, npas, n->log_page_size);
    if (st) {
        return st;
    }
    for (i = 0; i < MLX5_MAX_SRQS && s->srqs[i].valid; i++) {
        continue;
    }
    if (i == MLX5_MAX_SRQS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    s->srqs[i] = *n;
    s->srqs[i].valid = true;
    s->srqs[i].npas = npas;
    s->srqs[i].pas = mlx5_pas_copy(cmd, pas_off, npas);
    *srqn = i + 1;
    trace_mlx5_srq_create(srq_kind_names[n->kind], i + 1, n->log_size,
                          n->log_stride, n->cqn);
    return MLX5_CMD_STAT_OK;
}

/* An srqc (basic SRQ) or xrc_srqc: the same fields at the same places. */
static int cmd_create_srq(MLX5State *s, MLX5Cmd *cmd, MLX5SRQKind kind)
{
    const uint8_t *c;
    size_t pas_off;
    MLX5SRQ n = { .kind = kind };
    uint32_t srqn = 0;
    int st;

    if (kind == MLX5_SRQ_XRC) {
        st = MLX5_CMD_LEN(cmd, create_xrc_srq);
        c = MLX5_ADDR_OF(create_xrc_srq_in, cmd->in, xrc_srq_context_entry);
        pas_off = MLX5_BYTE_OFF(create_xrc_srq_in, pas);
    } else {
        st = MLX5_CMD_LEN(cmd, create_srq);
        c = MLX5_ADDR_OF(create_srq_in, cmd->in, srq_context_entry);
        pas_off = MLX5_BYTE_OFF(create_srq_in, pas);
    }
    if (st) {
        return st;
    }
    n.log_size = MLX5_GET(xrc_srqc, c, log_xrc_srq_size);
    n.log_stride = MLX5_GET(xrc_srqc, c, log_rq_stride) + 4;
    n.log_page_size = MLX5_GET(xrc_srqc, c, log_page_size);
    n.page_offset = MLX5_GET(xrc_srqc, c, page_offset);
    n.lwm = MLX5_GET(xrc_srqc, c, lwm);
    n.pd = MLX5_GET(xrc_srqc, c, pd);
    n.xrcd = MLX5_GET(xrc_srqc, c, xrcd);
    n.cqn = MLX5_GET(xrc_srqc, c, cqn);
    n.dbr = (uint64_t)MLX5_GET(xrc_srqc, c, db_record_addr_h) << 32 |
            MLX5_GET(xrc_srqc, c, db_record_addr_l) << 2;
    /*
     * Created good; no WQE signatures, continuous (non-linked) SRQs,
     * user memory or cyclic WQEs: none is offered.  A basic SRQ names
     * its domain and CQ too (the driver's defaults), an XRC SRQ must.
     */
    if (MLX5_GET(xrc_srqc, c, state) || MLX5_GET(xrc_srqc, c, wq_signature) ||
        MLX5_GET(xrc_srqc, c, cont_srq) ||
        (n.xrcd && !mlx5_xrcd_valid(s, n.xrcd)) ||
        (n.cqn && !mlx5_cq_get(s, n.cqn))) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (kind == MLX5_SRQ_XRC) {
        n.user_index = MLX5_GET(xrc_srqc, c, user_index);
        if (!n.xrcd || !n.cqn ||
            MLX5_GET(xrc_srqc, c, basic_cyclic_rcv_wqe) ||
            MLX5_GET(xrc_srqc, c, user_index_equal_xrc_srqn) ||
            MLX5_GET(xrc_srqc, c, dbr_umem_valid) ||
            MLX5_GET(create_xrc_srq_in, cmd->in, xrc_srq_umem_valid)) {
            return mlx5_cmd_bad_param(cmd);
        }
    }
    st = srq_create(s, cmd, &n, pas_off, &srqn);
    if (!st) {
        /* srqn and xrc_srqn sit at the same place of their outputs */
        MLX5_SET(create_xrc_srq_out, cmd->out, xrc_srqn, srqn);
    }
    return st;
}

static int cmd_create_rmp(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, create_rmp);
    const uint8_t *rmpc = MLX5_ADDR_OF(create_rmp_in, cmd->in, ctx);
    const uint8_t *wq = MLX5_ADDR_OF(rmpc, rmpc, wq);
    MLX5SRQ n = { .kind = MLX5_SRQ_RMP };
    uint32_t srqn = 0;

    if (st) {
        return st;
    }
    n.log_size = MLX5_GET(wq, wq, log_wq_sz);
    n.log_stride = MLX5_GET(wq, wq, log_wq_stride);
    n.log_page_size = MLX5_GET(wq, wq, log_wq_pg_sz);
    n.page_offset = MLX5_GET(wq, wq, page_offset);
    n.lwm = MLX5_GET(wq, wq, lwm);
    n.pd = MLX5_GET(wq, wq, pd);
    n.dbr = MLX5_GET64(wq, wq, dbr_addr);
    /* Created ready; linked-list WQEs, nothing the model does not do. */
    if (MLX5_GET(rmpc, rmpc, state) != RMP_STATE_RDY ||
        MLX5_GET(rmpc, rmpc, basic_cyclic_rcv_wqe) ||
        MLX5_GET(wq, wq, wq_type) != SRQ_WQ_LINKED_LIST ||
        MLX5_GET(wq, wq, wq_signature) || MLX5_GET(wq, wq, cd_slave) ||
        MLX5_GET(wq, wq, dbr_umem_valid) || MLX5_GET(wq, wq, wq_umem_valid)) {
        return mlx5_cmd_bad_param(cmd);
    }
    st = srq_create(s, cmd, &n, MLX5_BYTE_OFF(create_rmp_in, ctx.wq.pas),
                    &srqn);
    if (!st) {
        MLX5_SET(create_rmp_out, cmd->out, rmpn, srqn);
    }
    return st;
}

static int cmd_destroy_srq(MLX5State *s, MLX5Cmd *cmd, MLX5SRQKind kind)
{
    /* srqn, xrc_srqn and rmpn sit at the same place of their inputs */
    int st = MLX5_CMD_LEN(cmd, destroy_srq);
    uint32_t srqn;
    MLX5SRQ *srq;

    if (st) {
        return st;
    }
    srqn = MLX5_GET(destroy_srq_in, cmd->in, srqn);
    srq = srq_of_kind(s, srqn, kind);
    if (!srq) {
        return srq_no_object(cmd);
    }
    if (mlx5_qp_srq_busy(s, srqn)) {
        return srq_in_use(cmd);
    }
    trace_mlx5_srq_destroy(srq_kind_names[kind], srqn);
    srq_free(srq);
    return MLX5_CMD_STAT_OK;
}

/* The limit of an SRQ: below its size, as the driver checks too. */
static int srq_arm(MLX5Cmd *cmd, MLX5SRQ *srq, uint32_t lwm)
{
    if (!srq) {
        return srq_no_object(cmd);
    }
    if (lwm >= 1u << srq->log_size) {
        return mlx5_cmd_bad_param(cmd);
    }
    srq->lwm = lwm;
    return MLX5_CMD_STAT_OK;
}

static int cmd_modify_rmp(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, modify_rmp);
    const uint8_t *rmpc = MLX5_ADDR_OF(modify_rmp_in, cmd->in, ctx);
    unsigned int cur, next;
    MLX5SRQ *srq;

    if (st) {
        return st;
    }
    srq = srq_of_kind(s, MLX5_GET(modify_rmp_in, cmd->in, rmpn),
                      MLX5_SRQ_RMP);
    if (!srq) {
        return srq_no_object(cmd);
    }
    cur = MLX5_GET(modify_rmp_in, cmd->in, rmp_state);
    next = MLX5_GET(rmpc, rmpc, state);
    if (next != RMP_STATE_RDY && next != RMP_STATE_ERR) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (cur != (srq->err ? RMP_STATE_ERR : RMP_STATE_RDY)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                             MLX5_SYND_STATE);
    }
    if (MLX5_GET(rmp_bitmask, MLX5_ADDR_OF(modify_rmp_in, cmd->in, bitmask),
                 lwm)) {
        st = srq_arm(cmd, srq, MLX5_GET(wq, MLX5_ADDR_OF(rmpc, rmpc, wq),
                                        lwm));
        if (st) {
            return st;
        }
    }
    srq->err = next == RMP_STATE_ERR;
    return MLX5_CMD_STAT_OK;
}

/* Fill an srqc or xrc_srqc (the same places) from an SRQ. */
static void srq_context(const MLX5SRQ *srq, uint8_t *c)
{
    MLX5_SET(xrc_srqc, c, state, srq->err);
    MLX5_SET(xrc_srqc, c, log_xrc_srq_size, srq->log_size);
    MLX5_SET(xrc_srqc, c, log_rq_stride, srq->log_stride - 4);
    MLX5_SET(xrc_srqc, c, xrcd, srq->xrcd);
    MLX5_SET(xrc_srqc, c, page_offset, srq->page_offset);
    MLX5_SET(xrc_srqc, c, cqn, srq->cqn);
    MLX5_SET(xrc_srqc, c, log_page_size, srq->log_page_size);
    MLX5_SET(xrc_srqc, c, pd, srq->pd);
    MLX5_SET(xrc_srqc, c, lwm, srq->lwm);
    MLX5_SET(xrc_srqc, c, db_record_addr_h, srq->dbr >> 32);
    MLX5_SET(xrc_srqc, c, db_record_addr_l, (uint32_t)srq->dbr >> 2);
    if (srq->kind == MLX5_SRQ_XRC) {
        MLX5_SET(xrc_srqc, c, user_index, srq->user_index);
    }
}

static int cmd_query_srq(MLX5State *s, MLX5Cmd *cmd, MLX5SRQKind kind)
{
    int st;
    MLX5SRQ *srq;
    uint8_t *c;

    switch (kind) {
    case MLX5_SRQ_BASIC:
        st = MLX5_CMD_LEN(cmd, query_srq);
        srq = st ? NULL : srq_of_kind(s, MLX5_GET(query_srq_in, cmd->in,
                                                   srqn), kind);
        c = MLX5_ADDR_OF(query_srq_out, cmd->out, srq_context_entry);
        break;
    case MLX5_SRQ_XRC:
        st = MLX5_CMD_LEN(cmd, query_xrc_srq);
        srq = st ? NULL : srq_of_kind(s, MLX5_GET(query_xrc_srq_in, cmd->in,
                                                   xrc_srqn), kind);
        c = MLX5_ADDR_OF(query_xrc_srq_out, cmd->out, xrc_srq_context_entry);
        break;
    default:
        st = MLX5_CMD_LEN(cmd, query_rmp);
        srq = st ? NULL : srq_of_kind(s, MLX5_GET(query_rmp_in, cmd->in,
                                                   rmpn), kind);
        c = MLX5_ADDR_OF(query_rmp_out, cmd->out, rmp_context);
        break;
    }
    if (st) {
        return st;
    }
    if (!srq) {
        return srq_no_object(cmd);
    }
    if (kind != MLX5_SRQ_RMP) {
        srq_context(srq, c);
    } else {
        uint8_t *wq = MLX5_ADDR_OF(rmpc, c, wq);

        MLX5_SET(rmpc, c, state, srq->err ? RMP_STATE_ERR : RMP_STATE_RDY);
        MLX5_SET(wq, wq, wq_type, SRQ_WQ_LINKED_LIST);
        MLX5_SET(wq, wq, page_offset, srq->page_offset);
        MLX5_SET(wq, wq, lwm, srq->lwm);
        MLX5_SET(wq, wq, pd, srq->pd);
        MLX5_SET64(wq, wq, dbr_addr, srq->dbr);
        MLX5_SET(wq, wq, log_wq_stride, srq->log_stride);
        MLX5_SET(wq, wq, log_wq_pg_sz, srq->log_page_size);
        MLX5_SET(wq, wq, log_wq_sz, srq->log_size);
    }
    return MLX5_CMD_STAT_OK;
}

int mlx5_srq_exec(MLX5State *s, MLX5Cmd *cmd)
{
    int st;

    /* The kinds' commands read and answer alike where these coincide. */
    QEMU_BUILD_BUG_ON(MLX5_BIT_OFF(srqc, dbr_addr) !=
                      MLX5_BIT_OFF(xrc_srqc, db_record_addr_h));
    QEMU_BUILD_BUG_ON(MLX5_BIT_OFF(srqc, log_srq_size) !=
                      MLX5_BIT_OFF(xrc_srqc, log_xrc_srq_size));
    QEMU_BUILD_BUG_ON(MLX5_BIT_OFF(srqc, lwm) != MLX5_BIT_OFF(xrc_srqc, lwm));
    QEMU_BUILD_BUG_ON(MLX5_BIT_OFF(create_srq_out, srqn) !=
                      MLX5_BIT_OFF(create_xrc_srq_out, xrc_srqn));
    QEMU_BUILD_BUG_ON(MLX5_BIT_OFF(destroy_srq_in, srqn) !=
                      MLX5_BIT_OFF(destroy_xrc_srq_in, xrc_srqn) ||
                      MLX5_BIT_OFF(destroy_srq_in, srqn) !=
                      MLX5_BIT_OFF(destroy_rmp_in, rmpn));

    switch (cmd->opcode) {
    case MLX5_CMD_OP_ALLOC_XRCD:
        return cmd_alloc_xrcd(s, cmd);
    case MLX5_CMD_OP_DEALLOC_XRCD:
        return cmd_dealloc_xrcd(s, cmd);
    case MLX5_CMD_OP_CREATE_SRQ:
        return cmd_create_srq(s, cmd, MLX5_SRQ_BASIC);
    case MLX5_CMD_OP_CREATE_XRC_SRQ:
        return cmd_create_srq(s, cmd, MLX5_SRQ_XRC);
    case MLX5_CMD_OP_CREATE_RMP:
        return cmd_create_rmp(s, cmd);
    case MLX5_CMD_OP_DESTROY_SRQ:
        return cmd_destroy_srq(s, cmd, MLX5_SRQ_BASIC);
    case MLX5_CMD_OP_DESTROY_XRC_SRQ:
        return cmd_destroy_srq(s, cmd, MLX5_SRQ_XRC);
    case MLX5_CMD_OP_DESTROY_RMP:
        return cmd_destroy_srq(s, cmd, MLX5_SRQ_RMP);
    case MLX5_CMD_OP_QUERY_SRQ:
        return cmd_query_srq(s, cmd, MLX5_SRQ_BASIC);
    case MLX5_CMD_OP_QUERY_XRC_SRQ:
        return cmd_query_srq(s, cmd, MLX5_SRQ_XRC);
    case MLX5_CMD_OP_QUERY_RMP:
        return cmd_query_srq(s, cmd, MLX5_SRQ_RMP);
    case MLX5_CMD_OP_MODIFY_RMP:
        return cmd_modify_rmp(s, cmd);
    case MLX5_CMD_OP_ARM_XRC_SRQ:
        st = MLX5_CMD_LEN(cmd, arm_xrc_srq);
        if (st) {
            return st;
        }
        if (cmd->op_mod != ARM_XRC_SRQ_OP_MOD) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                                 MLX5_SYND_BAD_OP_MOD);
        }
        return srq_arm(cmd, srq_of_kind(s, MLX5_GET(arm_xrc_srq_in, cmd->in,
                                                    xrc_srqn),
                                        MLX5_SRQ_XRC),
                       MLX5_GET(arm_xrc_srq_in, cmd->in, lwm));
    case MLX5_CMD_OP_ARM_RQ:
        st = MLX5_CMD_LEN(cmd, arm_rq);
        if (st) {
            return st;
        }
        /* The basic SRQ's limit; XRQs (tag matching) are not offered. */
        if (cmd->op_mod != ARM_RQ_OP_MOD_SRQ) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                                 MLX5_SYND_BAD_OP_MOD);
        }
        return srq_arm(cmd, srq_of_kind(s, MLX5_GET(arm_rq_in, cmd->in,
                                                    srq_number),
                                        MLX5_SRQ_BASIC),
                       MLX5_GET(arm_rq_in, cmd->in, lwm));
    default:
        return -1;
    }
}

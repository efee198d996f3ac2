/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: QPs, their contexts and their state machine.
 *
 * CREATE_QP takes a QP context (qpc) and the page list of the QP's
 * buffer: the RQ (2^log_rq_size WQEs of 2^(log_rq_stride + 4) bytes)
 * first, then the SQ (2^log_sq_size basic blocks of 64 bytes), from
 * page_offset 64ths into the first page.  Service types: RC, UC, UD,
 * XRC, QP1 (the GSI QP: one, for port 1) and REG_UMR (the driver's
 * memory registration QP).  Every object the context names must exist
 * (PD, CQs, SRQ, XRC domain, UAR) and every size be within the
 * capabilities; what the model does not offer (WQE signatures, cross
 * channel, user memory, a chosen number, DETH source QPN) is refused.
 *
 * The context is kept in MLX5QP, not as bytes: the RoCE front end
 * decodes the QP for the engine from there.  A QP starts in RST; each
 * modify command is one transition of the PRM, from the state it names
 * (else BAD_QP_STATE), taking the fields that transition requires and, of
 * the optional ones, those its opt_param_mask selects (a bit the
 * transition does not allow for the QP's type is BAD_PARAM):
 *
 *   RST2INIT    access flags (RC/UC/XRC) or Q_Key (UD/QP1), P_Key
 *               index, port, counter set
 *   INIT2INIT   optional fields only
 *   INIT2RTR    MTU and message size; connected types also the remote
 *               QPN, receive PSN, responder resources, RNR timer and the
 *               address path (its GID index must hold an address; the
 *               grh bit is not needed, RoCE has a GRH)
 *   RTR2RTS     send PSN; RC/XRC also timeout, retries, initiator depth
 *   RTS2RTS, SQERR2RTS, SQD_RTS   optional fields only
 *   2ERR, 2RST  from any state
 *
 * Every state change is handed to the RoCE front end (mlx5-roce.c), and
 * the send doorbell of a QP's SQ runs its WQEs there; the engine may
 * put a QP in ERR by itself (an error completion), which the context
 * then says.  A QP never goes to SQER or SQD by itself.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

/* Service types, states, RQ types and optional parameters (the PRM's). */
#define QP_ST_RC                0x0
#define QP_ST_UC                0x1
#define QP_ST_UD                0x2
#define QP_ST_XRC               0x3
#define QP_ST_QP1               0x8
#define QP_ST_REG_UMR           0xc

#define QP_RST                  0
#define QP_INIT                 1
#define QP_RTR                  2
#define QP_RTS                  3
#define QP_SQER                 4
#define QP_SQD                  5
#define QP_ERR                  6
#define QP_ANY                  0xff

#define QP_PM_MIGRATED          3

#define QP_RQ_REGULAR           0
#define QP_RQ_SRQ               1
#define QP_RQ_NONE              3

#define OPT_RRE                 BIT(1)
#define OPT_RAE                 BIT(2)
#define OPT_RWE                 BIT(3)
#define OPT_PKEY_INDEX          BIT(4)
#define OPT_Q_KEY               BIT(5)
#define OPT_RNR_TIMEOUT         BIT(6)
#define OPT_PM_STATE            BIT(10)
#define OPT_PRI_PORT            BIT(16)
#define OPT_SRQN                BIT(18)
#define OPT_CQN_RCV             BIT(19)
#define OPT_COUNTER_SET_ID      BIT(25)

#define QP_LOG_MAX_SIZE         15      /* log_max_qp_sz */
#define QP_LOG_MAX_RQ_STRIDE    9       /* max_wqe_sz_rq: 512 bytes */
#define QP_LOG_MAX_PAGE         18
#define QP_LOG_MAX_MSG          30      /* log_max_msg */
#define QP_MTU_256              1
#define QP_MTU_4096             5
#define QP_PKEYS                128     /* pkey_table_size 0 */

/* The QP types as the transitions' parameters tell them apart. */
enum {
    QP_CLASS_RC,                /* RC and XRC */
    QP_CLASS_UC,
    QP_CLASS_UD,                /* UD, QP1 and REG_UMR */
    QP_CLASSES,
};

typedef struct QPTransition {
    uint16_t opcode;
    uint8_t from;               /* QP_ANY: from every state */
    uint8_t to;
    uint32_t optional[QP_CLASSES];
} QPTransition;

/*
 * The optional parameters each transition allows, as the PRM (and the
 * driver's own table) has them, less the alternate path and the LAG
 * port affinity, which the model does not offer.
 */
static const QPTransition qp_transitions[] = {
    { MLX5_CMD_OP_2RST_QP, QP_ANY, QP_RST, { 0 } },
    { MLX5_CMD_OP_2ERR_QP, QP_ANY, QP_ERR, { 0 } },
    { MLX5_CMD_OP_RST2INIT_QP, QP_RST, QP_INIT, { 0 } },
    { MLX5_CMD_OP_INIT2INIT_QP, QP_INIT, QP_INIT, {
        OPT_RRE | OPT_RAE | OPT_RWE | OPT_PKEY_INDEX | OPT_PRI_PORT,
        OPT_RWE | OPT_PKEY_INDEX | OPT_PRI_PORT,
        OPT_PKEY_INDEX | OPT_Q_KEY | OPT_PRI_PORT } },
    { MLX5_CMD_OP_INIT2RTR_QP, QP_INIT, QP_RTR, {
        OPT_RRE | OPT_RAE | OPT_RWE | OPT_PKEY_INDEX,
        OPT_RWE | OPT_PKEY_INDEX,
        OPT_PKEY_INDEX | OPT_Q_KEY } },
    { MLX5_CMD_OP_RTR2RTS_QP, QP_RTR, QP_RTS, {
        OPT_RRE | OPT_RAE | OPT_RWE | OPT_PM_STATE | OPT_RNR_TIMEOUT,
        OPT_RWE | OPT_PM_STATE,
        OPT_Q_KEY } },
    { MLX5_CMD_OP_RTS2RTS_QP, QP_RTS, QP_RTS, {
        OPT_RRE | OPT_RAE | OPT_RWE | OPT_RNR_TIMEOUT | OPT_PM_STATE |
        OPT_COUNTER_SET_ID,
        OPT_RWE | OPT_PM_STATE | OPT_COUNTER_SET_ID,
        OPT_Q_KEY | OPT_SRQN | OPT_CQN_RCV | OPT_COUNTER_SET_ID } },
    { MLX5_CMD_OP_SQERR2RTS_QP, QP_SQER, QP_RTS, {
        OPT_RNR_TIMEOUT | OPT_RWE | OPT_RAE | OPT_RRE,
        OPT_RWE,
        OPT_Q_KEY } },
    { MLX5_CMD_OP_SQD_RTS_QP, QP_SQD, QP_RTS, {
        OPT_RNR_TIMEOUT | OPT_RWE | OPT_RAE | OPT_RRE,
        OPT_RWE,
        OPT_Q_KEY } },
};

MLX5QP *mlx5_qp_get(MLX5State *s, uint32_t qpn)
{
    if (qpn < MLX5_QPN_BASE || qpn >= MLX5_QPN_BASE + MLX5_MAX_QPS ||
        !s->qps[qpn - MLX5_QPN_BASE].valid) {
        return NULL;
    }
    return &s->qps[qpn - MLX5_QPN_BASE];
}

static uint32_t qp_num(MLX5State *s, const MLX5QP *qp)
{
    return MLX5_QPN_BASE + (qp - s->qps);
}

bool mlx5_qp_cq_busy(MLX5State *s, uint32_t cqn)
{
    int i;

    for (i = 0; i < MLX5_MAX_QPS; i++) {
        if (s->qps[i].valid &&
            (s->qps[i].cqn_snd == cqn || s->qps[i].cqn_rcv == cqn)) {
            return true;
        }
    }
    return false;
}

/* The SRQ a QP takes its receive WQEs from (not the number it names). */
bool mlx5_qp_srq_busy(MLX5State *s, uint32_t srqn)
{
    int i;

    for (i = 0; i < MLX5_MAX_QPS; i++) {
        if (s->qps[i].valid && s->qps[i].rq_type == QP_RQ_SRQ &&
            s->qps[i].srqn == srqn) {
            return true;
        }
    }
    return false;
}

bool mlx5_qp_xrcd_busy(MLX5State *s, uint32_t xrcd)
{
    int i;

    for (i = 0; i < MLX5_MAX_QPS; i++) {
        if (s->qps[i].valid && s->qps[i].xrcd == xrcd) {
            return true;
        }
    }
    return false;
}

static void qp_free(MLX5State *s, MLX5QP *qp)
{
    if (qp->valid) {
        mlx5_mcg_qp_gone(s, qp_num(s, qp));
    }
    mlx5_roce_qp_destroy(s, qp);
    g_free(qp->pas);
    memset(qp, 0, sizeof(*qp));
}

void mlx5_qp_reset(MLX5State *s)
{
    int i;

    for (i = 0; i < MLX5_MAX_QPS; i++) {
        qp_free(s, &s->qps[i]);
    }
    mlx5_roce_reset(s);
}

static int qp_class(uint8_t st)
{
    switch (st) {
    case QP_ST_RC:
    case QP_ST_XRC:
        return QP_CLASS_RC;
    case QP_ST_UC:
        return QP_CLASS_UC;
    default:
        return QP_CLASS_UD;
    }
}

static bool qp_connected(uint8_t st)
{
    return qp_class(st) != QP_CLASS_UD;
}

static int qp_no_object(MLX5Cmd *cmd)
{
    return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_NO_OBJECT);
}

/* The QP1 of port 1, if there is one already. */
static bool qp1_exists(MLX5State *s)
{
    int i;

    for (i = 0; i < MLX5_MAX_QPS; i++) {
        if (s->qps[i].valid && s->qps[i].st == QP_ST_QP1) {
            return true;
        }
    }
    return false;
}

/* Check a new QP's context into *n; the pages it needs in *npas. */
static int qp_check_create(MLX5State *s, MLX5Cmd *cmd, const uint8_t *qpc,
                           MLX5QP *n, uint32_t *npas)
{
    uint64_t page, bytes = 0;

    n->st = MLX5_GET(qpc, qpc, st);
    n->pd = MLX5_GET(qpc, qpc, pd);
    n->rq_type = MLX5_GET(qpc, qpc, rq_type);
    n->no_sq = MLX5_GET(qpc, qpc, no_sq);
    n->log_rq_size = MLX5_GET(qpc, qpc, log_rq_size);
    n->log_rq_stride = MLX5_GET(qpc, qpc, log_rq_stride) + 4;
    n->log_sq_size = MLX5_GET(qpc, qpc, log_sq_size);
    n->log_page_size = MLX5_GET(qpc, qpc, log_page_size);
    n->page_offset = MLX5_GET(qpc, qpc, page_offset);
    n->uar = MLX5_GET(qpc, qpc, uar_page);
    n->cqn_snd = MLX5_GET(qpc, qpc, cqn_snd);
    n->cqn_rcv = MLX5_GET(qpc, qpc, cqn_rcv);
    n->srqn = MLX5_GET(qpc, qpc, srqn_rmpn_xrqn);
    n->xrcd = MLX5_GET(qpc, qpc, xrcd);
    n->dbr = MLX5_GET64(qpc, qpc, dbr_addr);
    n->user_index = MLX5_GET(qpc, qpc, user_index);
    n->counter_set_id = MLX5_GET(qpc, qpc, counter_set_id);
    n->rlky = MLX5_GET(qpc, qpc, rlky);
    n->block_lb_mc = MLX5_GET(qpc, qpc, block_lb_mc);
    n->fre = MLX5_GET(qpc, qpc, fre);
    n->log_ack_req_freq = MLX5_GET(qpc, qpc, log_ack_req_freq);
    n->state = QP_RST;

    switch (n->st) {
    case QP_ST_RC:
    case QP_ST_UC:
    case QP_ST_UD:
    case QP_ST_XRC:
    case QP_ST_QP1:
    case QP_ST_REG_UMR:
        break;
    default:
        return mlx5_cmd_bad_param(cmd);
    }
    /*
     * Migrated (no alternate path); no WQE signatures, cross channel,
     * IPoIB offloads, end padding, user memory, DETH source QPN.
     */
    if (MLX5_GET(qpc, qpc, pm_state) != QP_PM_MIGRATED ||
        MLX5_GET(qpc, qpc, wq_signature) || MLX5_GET(qpc, qpc, cd_master) ||
        MLX5_GET(qpc, qpc, cd_slave_send) ||
        MLX5_GET(qpc, qpc, cd_slave_receive) ||
        MLX5_GET(qpc, qpc, ulp_stateless_offload_mode) ||
        MLX5_GET(qpc, qpc, offload_type) ||
        MLX5_GET(qpc, qpc, end_padding_mode) ||
        MLX5_GET(qpc, qpc, deth_sqpn) ||
        MLX5_GET(qpc, qpc, dbr_umem_valid) ||
        MLX5_GET(create_qp_in, cmd->in, wq_umem_valid) ||
        MLX5_GET(create_qp_in, cmd->in, input_qpn)) {
        return mlx5_cmd_bad_param(cmd);
    }
    /* The memory registration QP alone may go without a PD. */
    if ((n->pd || n->st != QP_ST_REG_UMR) &&
        !mlx5_obj_get(s, MLX5_OBJ_PD, n->pd)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (!n->no_sq) {
        if (n->log_sq_size > QP_LOG_MAX_SIZE) {
            return mlx5_cmd_bad_param(cmd);
        }
        bytes += 64ULL << n->log_sq_size;
    }
    switch (n->rq_type) {
    case QP_RQ_REGULAR:
        if (n->log_rq_size > QP_LOG_MAX_SIZE ||
            n->log_rq_stride > QP_LOG_MAX_RQ_STRIDE) {
            return mlx5_cmd_bad_param(cmd);
        }
        bytes += 1ULL << (n->log_rq_size + n->log_rq_stride);
        break;
    case QP_RQ_SRQ:
        if (!mlx5_srq_get(s, n->srqn)) {
            return mlx5_cmd_bad_param(cmd);
        }
        break;
    case QP_RQ_NONE:
        break;
    default:
        return mlx5_cmd_bad_param(cmd);
    }
    /*
     * The CQs: the send CQ for an SQ, the receive CQ for an RQ or SRQ
     * (an XRC initiator has none); any CQ named must exist.  An SQ
     * needs its UAR (its doorbell's page).  An XRC QP names its domain.
     */
    if ((n->cqn_snd || !n->no_sq) && !mlx5_cq_get(s, n->cqn_snd)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if ((n->cqn_rcv || n->rq_type == QP_RQ_REGULAR ||
         (n->rq_type == QP_RQ_SRQ && n->st != QP_ST_XRC)) &&
        !mlx5_cq_get(s, n->cqn_rcv)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if ((n->uar || !n->no_sq) && !mlx5_uar_valid(s, n->uar)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if ((n->xrcd || n->st == QP_ST_XRC) && !mlx5_xrcd_valid(s, n->xrcd)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if ((n->dbr & 7) || n->log_page_size > QP_LOG_MAX_PAGE ||
        (n->counter_set_id && !mlx5_q_counter_valid(s, n->counter_set_id))) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (n->st == QP_ST_QP1 && qp1_exists(s)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                             MLX5_SYND_IN_USE);
    }
    page = 4096ULL << n->log_page_size;
    *npas = bytes ? DIV_ROUND_UP(bytes + n->page_offset * (page >> 6),
                                 page) : 0;
    return MLX5_CMD_STAT_OK;
}

static int cmd_create_qp(MLX5State *s, MLX5Cmd *cmd)
{
    size_t pas_off = MLX5_BYTE_OFF(create_qp_in, pas);
    MLX5QP n = { 0 };
    uint32_t npas = 0, i;
    int st;

    st = MLX5_CMD_LEN(cmd, create_qp) ?:
         qp_check_create(s, cmd, MLX5_ADDR_OF(create_qp_in, cmd->in, qpc),
                         &n, &npas) ?:
         mlx5_pas_check(cmd, pas_off, npas, n.log_page_size);
    if (st) {
        return st;
    }
    for (i = 0; i < MLX5_MAX_QPS && s->qps[i].valid; i++) {
        continue;
    }
    if (i == MLX5_MAX_QPS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    n.valid = true;
    n.npas = npas;
    n.pas = npas ? mlx5_pas_copy(cmd, pas_off, npas) : NULL;
    s->qps[i] = n;
    mlx5_roce_qp_create(s, &s->qps[i], qp_num(s, &s->qps[i]));
    trace_mlx5_qp_create(qp_num(s, &s->qps[i]), n.st, n.no_sq ? -1 :
                         n.log_sq_size, n.rq_type, n.log_rq_size, n.cqn_snd,
                         n.cqn_rcv);
    MLX5_SET(create_qp_out, cmd->out, qpn, qp_num(s, &s->qps[i]));
    return MLX5_CMD_STAT_OK;
}

/*
 * An address path to send from: a GID of ours, port 1.  RoCE always has
 * a GRH: mlx5_ib sets the grh bit for InfiniBand paths alone.
 */
static int qp_take_path(MLX5State *s, MLX5Cmd *cmd, MLX5QPPath *p,
                        const uint8_t *ads)
{
    unsigned int port = MLX5_GET(ads, ads, vhca_port_num);

    if (port > 1 ||
        !mlx5_gid_get(s, MLX5_GET(ads, ads, src_addr_index))) {
        return mlx5_cmd_bad_param(cmd);
    }
    p->grh = true;
    p->port = 1;
    p->src_addr_index = MLX5_GET(ads, ads, src_addr_index);
    p->hop_limit = MLX5_GET(ads, ads, hop_limit);
    p->tclass = MLX5_GET(ads, ads, tclass);
    p->flow_label = MLX5_GET(ads, ads, flow_label);
    p->udp_sport = MLX5_GET(ads, ads, udp_sport);
    p->eth_prio = MLX5_GET(ads, ads, eth_prio);
    p->dscp = MLX5_GET(ads, ads, dscp);
    p->ecn = MLX5_GET(ads, ads, ecn);
    p->stat_rate = MLX5_GET(ads, ads, stat_rate);
    memcpy(p->rgid, MLX5_ADDR_OF(ads, ads, rgid_rip), sizeof(p->rgid));
    stw_be_p(p->rmac, MLX5_GET(ads, ads, rmac_47_32));
    stl_be_p(p->rmac + 2, MLX5_GET(ads, ads, rmac_31_0));
    return MLX5_CMD_STAT_OK;
}

/*
 * The fields of a transition: those of @take (OPT_* bits, whether the
 * transition requires them or the driver chose them), from qpc into n.
 */
static int qp_take(MLX5State *s, MLX5Cmd *cmd, MLX5QP *n, const uint8_t *qpc,
                   uint32_t take)
{
    const uint8_t *ads = MLX5_ADDR_OF(qpc, qpc, primary_address_path);

    if (take & OPT_RRE) {
        n->rre = MLX5_GET(qpc, qpc, rre);
    }
    if (take & OPT_RWE) {
        n->rwe = MLX5_GET(qpc, qpc, rwe);
    }
    if (take & OPT_RAE) {
        n->rae = MLX5_GET(qpc, qpc, rae);
        n->atomic_mode = MLX5_GET(qpc, qpc, atomic_mode);
    }
    if (take & OPT_PKEY_INDEX) {
        if (MLX5_GET(ads, ads, pkey_index) >= QP_PKEYS) {
            return mlx5_cmd_bad_param(cmd);
        }
        n->path.pkey_index = MLX5_GET(ads, ads, pkey_index);
    }
    if (take & OPT_PRI_PORT) {
        if (MLX5_GET(ads, ads, vhca_port_num) > 1) {
            return mlx5_cmd_bad_param(cmd);
        }
        n->path.port = 1;
    }
    if (take & OPT_Q_KEY) {
        n->q_key = MLX5_GET(qpc, qpc, q_key);
    }
    if (take & OPT_RNR_TIMEOUT) {
        n->min_rnr_nak = MLX5_GET(qpc, qpc, min_rnr_nak);
    }
    if ((take & OPT_PM_STATE) &&
        MLX5_GET(qpc, qpc, pm_state) != QP_PM_MIGRATED) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (take & OPT_SRQN) {
        if (n->rq_type != QP_RQ_SRQ ||
            !mlx5_srq_get(s, MLX5_GET(qpc, qpc, srqn_rmpn_xrqn))) {
            return mlx5_cmd_bad_param(cmd);
        }
        n->srqn = MLX5_GET(qpc, qpc, srqn_rmpn_xrqn);
    }
    if (take & OPT_CQN_RCV) {
        if (!mlx5_cq_get(s, MLX5_GET(qpc, qpc, cqn_rcv))) {
            return mlx5_cmd_bad_param(cmd);
        }
        n->cqn_rcv = MLX5_GET(qpc, qpc, cqn_rcv);
    }
    if (take & OPT_COUNTER_SET_ID) {
        uint32_t id = MLX5_GET(qpc, qpc, counter_set_id);

        if (id && !mlx5_q_counter_valid(s, id)) {
            return mlx5_cmd_bad_param(cmd);
        }
        n->counter_set_id = id;
    }
    return MLX5_CMD_STAT_OK;
}

/* What a transition requires of each QP type, in the OPT_* bits. */
static uint32_t qp_required(const QPTransition *t, uint8_t st)
{
    int c = qp_class(st);

    switch (t->opcode) {
    case MLX5_CMD_OP_RST2INIT_QP:
        return OPT_PKEY_INDEX | OPT_PRI_PORT | OPT_COUNTER_SET_ID |
               (c == QP_CLASS_RC ? OPT_RRE | OPT_RWE | OPT_RAE :
                c == QP_CLASS_UC ? OPT_RWE :
                st == QP_ST_REG_UMR ? 0 : OPT_Q_KEY);
    case MLX5_CMD_OP_INIT2RTR_QP:
        return c == QP_CLASS_RC ? OPT_RNR_TIMEOUT : 0;
    default:
        return 0;
    }
}

/* The fields of INIT2RTR and RTR2RTS that have no optional bit. */
static int qp_take_fixed(MLX5State *s, MLX5Cmd *cmd, MLX5QP *n,
                         const uint8_t *qpc, uint16_t opcode)
{
    const uint8_t *ads = MLX5_ADDR_OF(qpc, qpc, primary_address_path);
    int st;

    if (opcode == MLX5_CMD_OP_INIT2RTR_QP) {
        n->mtu = MLX5_GET(qpc, qpc, mtu);
        n->log_msg_max = MLX5_GET(qpc, qpc, log_msg_max);
        if (n->mtu < QP_MTU_256 || n->mtu > QP_MTU_4096 ||
            n->log_msg_max > QP_LOG_MAX_MSG) {
            return mlx5_cmd_bad_param(cmd);
        }
        if (qp_connected(n->st)) {
            st = qp_take_path(s, cmd, &n->path, ads);
            if (st) {
                return st;
            }
            n->remote_qpn = MLX5_GET(qpc, qpc, remote_qpn);
            n->next_rcv_psn = MLX5_GET(qpc, qpc, next_rcv_psn);
            n->log_rra_max = MLX5_GET(qpc, qpc, log_rra_max);
        }
    } else if (opcode == MLX5_CMD_OP_RTR2RTS_QP) {
        n->next_send_psn = MLX5_GET(qpc, qpc, next_send_psn);
        if (qp_class(n->st) == QP_CLASS_RC) {
            n->path.ack_timeout = MLX5_GET(ads, ads, ack_timeout);
            n->retry_count = MLX5_GET(qpc, qpc, retry_count);
            n->rnr_retry = MLX5_GET(qpc, qpc, rnr_retry);
            n->log_sra_max = MLX5_GET(qpc, qpc, log_sra_max);
        }
    }
    return MLX5_CMD_STAT_OK;
}

static int cmd_modify_qp(MLX5State *s, MLX5Cmd *cmd, const QPTransition *t)
{
    bool ctx = t->from != QP_ANY;
    const uint8_t *qpc = MLX5_ADDR_OF(rst2init_qp_in, cmd->in, qpc);
    uint32_t qpn, opt;
    MLX5QP *qp, n;
    int st;

    /* The transitions with a context share rst2init's layout. */
    st = ctx ? MLX5_CMD_LEN(cmd, rst2init_qp) : MLX5_CMD_LEN(cmd, qp_2rst);
    if (st) {
        return st;
    }
    qpn = MLX5_GET(qp_2rst_in, cmd->in, qpn);
    qp = mlx5_qp_get(s, qpn);
    if (!qp) {
        return qp_no_object(cmd);
    }
    if (t->from != QP_ANY && qp->state != t->from) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_QP_STATE_ERR,
                             MLX5_SYND_QP_STATE);
    }
    n = *qp;
    if (ctx) {
        opt = MLX5_GET(rst2init_qp_in, cmd->in, opt_param_mask);
        if (opt & ~t->optional[qp_class(qp->st)]) {
            return mlx5_cmd_bad_param(cmd);
        }
        st = qp_take(s, cmd, &n, qpc, opt | qp_required(t, qp->st)) ?:
             qp_take_fixed(s, cmd, &n, qpc, t->opcode);
        if (st) {
            return st;
        }
    }
    trace_mlx5_qp_modify(qpn, qp->state, t->to);
    n.state = t->to;
    *qp = n;
    mlx5_roce_qp_modify(s, qp, qpn);
    return MLX5_CMD_STAT_OK;
}

static void qp_path_context(const MLX5QPPath *p, uint8_t *ads)
{
    MLX5_SET(ads, ads, pkey_index, p->pkey_index);
    MLX5_SET(ads, ads, grh, p->grh);
    MLX5_SET(ads, ads, ack_timeout, p->ack_timeout);
    MLX5_SET(ads, ads, src_addr_index, p->src_addr_index);
    MLX5_SET(ads, ads, stat_rate, p->stat_rate);
    MLX5_SET(ads, ads, hop_limit, p->hop_limit);
    MLX5_SET(ads, ads, tclass, p->tclass);
    MLX5_SET(ads, ads, flow_label, p->flow_label);
    memcpy(MLX5_ADDR_OF(ads, ads, rgid_rip), p->rgid, sizeof(p->rgid));
    MLX5_SET(ads, ads, ecn, p->ecn);
    MLX5_SET(ads, ads, dscp, p->dscp);
    MLX5_SET(ads, ads, udp_sport, p->udp_sport);
    MLX5_SET(ads, ads, eth_prio, p->eth_prio);
    MLX5_SET(ads, ads, vhca_port_num, p->port);
    MLX5_SET(ads, ads, rmac_47_32, lduw_be_p(p->rmac));
    MLX5_SET(ads, ads, rmac_31_0, ldl_be_p(p->rmac + 2));
}

static int cmd_query_qp(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, query_qp);
    uint8_t *qpc = MLX5_ADDR_OF(query_qp_out, cmd->out, qpc);
    MLX5QP *qp;

    if (st) {
        return st;
    }
    qp = mlx5_qp_get(s, MLX5_GET(query_qp_in, cmd->in, qpn));
    if (!qp) {
        return qp_no_object(cmd);
    }
    MLX5_SET(qpc, qpc, state, qp->state);
    MLX5_SET(qpc, qpc, st, qp->st);
    MLX5_SET(qpc, qpc, pm_state, QP_PM_MIGRATED);
    MLX5_SET(qpc, qpc, pd, qp->pd);
    MLX5_SET(qpc, qpc, mtu, qp->mtu);
    MLX5_SET(qpc, qpc, log_msg_max, qp->log_msg_max);
    MLX5_SET(qpc, qpc, log_rq_size, qp->log_rq_size);
    MLX5_SET(qpc, qpc, log_rq_stride, qp->log_rq_stride - 4);
    MLX5_SET(qpc, qpc, no_sq, qp->no_sq);
    MLX5_SET(qpc, qpc, log_sq_size, qp->log_sq_size);
    MLX5_SET(qpc, qpc, rlky, qp->rlky);
    MLX5_SET(qpc, qpc, counter_set_id, qp->counter_set_id);
    MLX5_SET(qpc, qpc, uar_page, qp->uar);
    MLX5_SET(qpc, qpc, user_index, qp->user_index);
    MLX5_SET(qpc, qpc, log_page_size, qp->log_page_size);
    MLX5_SET(qpc, qpc, remote_qpn, qp->remote_qpn);
    qp_path_context(&qp->path, MLX5_ADDR_OF(qpc, qpc, primary_address_path));
    MLX5_SET(qpc, qpc, log_ack_req_freq, qp->log_ack_req_freq);
    MLX5_SET(qpc, qpc, log_sra_max, qp->log_sra_max);
    MLX5_SET(qpc, qpc, retry_count, qp->retry_count);
    MLX5_SET(qpc, qpc, rnr_retry, qp->rnr_retry);
    MLX5_SET(qpc, qpc, fre, qp->fre);
    MLX5_SET(qpc, qpc, next_send_psn, qp->next_send_psn);
    MLX5_SET(qpc, qpc, cqn_snd, qp->cqn_snd);
    MLX5_SET(qpc, qpc, log_rra_max, qp->log_rra_max);
    MLX5_SET(qpc, qpc, atomic_mode, qp->atomic_mode);
    MLX5_SET(qpc, qpc, rre, qp->rre);
    MLX5_SET(qpc, qpc, rwe, qp->rwe);
    MLX5_SET(qpc, qpc, rae, qp->rae);
    MLX5_SET(qpc, qpc, page_offset, qp->page_offset);
    MLX5_SET(qpc, qpc, min_rnr_nak, qp->min_rnr_nak);
    MLX5_SET(qpc, qpc, next_rcv_psn, qp->next_rcv_psn);
    MLX5_SET(qpc, qpc, xrcd, qp->xrcd);
    MLX5_SET(qpc, qpc, cqn_rcv, qp->cqn_rcv);
    MLX5_SET64(qpc, qpc, dbr_addr, qp->dbr);
    MLX5_SET(qpc, qpc, q_key, qp->q_key);
    MLX5_SET(qpc, qpc, rq_type, qp->rq_type);
    MLX5_SET(qpc, qpc, srqn_rmpn_xrqn, qp->srqn);
    return MLX5_CMD_STAT_OK;
}

static int cmd_destroy_qp(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, destroy_qp);
    uint32_t qpn;
    MLX5QP *qp;

    if (st) {
        return st;
    }
    qpn = MLX5_GET(destroy_qp_in, cmd->in, qpn);
    qp = mlx5_qp_get(s, qpn);
    if (!qp) {
        return qp_no_object(cmd);
    }
    trace_mlx5_qp_destroy(qpn);
    qp_free(s, qp);
    return MLX5_CMD_STAT_OK;
}

/*
 * A send doorbell for a QP: the RoCE front end runs its WQEs (XRC and
 * UMR QPs have none: nothing runs); a doorbell for no QP, or on
 * another UAR, is ignored like the SQs'.
 */
void mlx5_qp_doorbell(MLX5State *s, unsigned int uar, uint32_t qpn)
{
    MLX5QP *qp = mlx5_qp_get(s, qpn);

    if (!qp || qp->no_sq || qp->uar != uar) {
        trace_mlx5_sq_bad_doorbell(uar, qpn << 8);
        return;
    }
    trace_mlx5_qp_doorbell(qpn, qp->state);
    mlx5_roce_qp_doorbell(s, qp);
}

int mlx5_qp_exec(MLX5State *s, MLX5Cmd *cmd)
{
    int i;

    /* Every modify command reads qpn, opt_param_mask, qpc where these do. */
    QEMU_BUILD_BUG_ON(MLX5_BIT_OFF(rst2init_qp_in, qpn) !=
                      MLX5_BIT_OFF(qp_2rst_in, qpn) ||
                      MLX5_BIT_OFF(rst2init_qp_in, qpn) !=
                      MLX5_BIT_OFF(qp_2err_in, qpn));
#define QP_SAME_LAYOUT(op) \
    QEMU_BUILD_BUG_ON(MLX5_BIT_OFF(op##_in, qpn) != \
                      MLX5_BIT_OFF(rst2init_qp_in, qpn) || \
                      MLX5_BIT_OFF(op##_in, opt_param_mask) != \
                      MLX5_BIT_OFF(rst2init_qp_in, opt_param_mask) || \
                      MLX5_BIT_OFF(op##_in, qpc) != \
                      MLX5_BIT_OFF(rst2init_qp_in, qpc) || \
                      MLX5_ST_SZ_BYTES(op##_in) != \
                      MLX5_ST_SZ_BYTES(rst2init_qp_in))
    QP_SAME_LAYOUT(init2init_qp);
    QP_SAME_LAYOUT(init2rtr_qp);
    QP_SAME_LAYOUT(rtr2rts_qp);
    QP_SAME_LAYOUT(rts2rts_qp);
    QP_SAME_LAYOUT(sqerr2rts_qp);
    QP_SAME_LAYOUT(sqd2rts_qp);
#undef QP_SAME_LAYOUT

    switch (cmd->opcode) {
    case MLX5_CMD_OP_CREATE_QP:
        return cmd_create_qp(s, cmd);
    case MLX5_CMD_OP_DESTROY_QP:
        return cmd_destroy_qp(s, cmd);
    case MLX5_CMD_OP_QUERY_QP:
        return cmd_query_qp(s, cmd);
    default:
        for (i = 0; i < ARRAY_SIZE(qp_transitions); i++) {
            if (qp_transitions[i].opcode == cmd->opcode) {
                return cmd_modify_qp(s, cmd, &qp_transitions[i]);
            }
        }
        return -1;
    }
}

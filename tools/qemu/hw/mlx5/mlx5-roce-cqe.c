/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the RoCE front end's completions, the engine's
 * RoceCompletion written as a 64-byte CQE (struct mlx5_cqe64, or the
 * last 64 bytes of a 128-byte one: mlx5_cq_post()).
 *
 * Send completions go to the QP's send CQ: a requester CQE (opcode 0)
 * with the WQE's first basic block as the WQE counter and its send
 * opcode in the top byte of sop_drop_qpn, which is how both drivers
 * tell a READ or atomic (byte count) and an immediate from a SEND.
 * Receive completions go to the receive CQ (an XRC SRQ's own), opcode
 * RESP_SEND (2), with immediate (3), with invalidate (4), or RDMA WRITE
 * with immediate (1), the WQE counter the RQ's counter or the SRQ WQE's
 * index (the driver frees that one), the immediate as on the wire; for
 * UD and the GSI QP also the source QP, the GRH bit and the L3 type in
 * flags_rqpn, the VLAN, and the P_Key (0xffff) in the immediate's place
 * for the GSI QP.  srqn_uidx is the QP's user index (libmlx5, with
 * CQE version 1, finds its QP by it; the kernel by the QPN).
 *
 * An error is REQ_ERR (13) or RESP_ERR (14) with the PRM's syndrome:
 * local length 0x01, QP operation 0x02, protection 0x04, flush 0x05,
 * bad response 0x10, local access 0x11, remote invalid request 0x12,
 * remote access 0x13, remote operation 0x14, retries 0x15, RNR retries
 * 0x16; a general error has no syndrome of its own (0xff).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-roce.h"
#include "trace.h"

#define QP_ST_QP1               0x8

#define CQE_SRQN_UIDX           32
#define CQE_IMM                 36
#define CQE_FLAGS_RQPN          24
#define CQE_VLAN_INFO           30
#define CQE_VENDOR_SYND         54

#define CQE_RESP_WR_IMM         0x1
#define CQE_RESP_SEND           0x2
#define CQE_RESP_SEND_IMM       0x3
#define CQE_RESP_SEND_INV       0x4

#define CQE_L3_IPV6             1
#define CQE_L3_IPV4             2
#define CQE_GRH                 (1u << 28)

static uint8_t cqe_syndrome(RoceWCStatus st)
{
    switch (st) {
    case ROCE_WC_LOC_LEN_ERR:
        return 0x01;
    case ROCE_WC_LOC_QP_OP_ERR:
        return 0x02;
    case ROCE_WC_LOC_PROT_ERR:
        return 0x04;
    case ROCE_WC_WR_FLUSH_ERR:
        return 0x05;
    case ROCE_WC_BAD_RESP_ERR:
        return 0x10;
    case ROCE_WC_LOC_ACCESS_ERR:
        return 0x11;
    case ROCE_WC_REM_INV_REQ_ERR:
        return 0x12;
    case ROCE_WC_REM_ACCESS_ERR:
        return 0x13;
    case ROCE_WC_REM_OP_ERR:
        return 0x14;
    case ROCE_WC_RETRY_EXC_ERR:
        return 0x15;
    case ROCE_WC_RNR_RETRY_EXC_ERR:
        return 0x16;
    default:
        return 0xff;
    }
}

static uint8_t cqe_resp_opcode(const RoceCompletion *c)
{
    if (c->opcode == ROCE_WC_RECV_RDMA_WITH_IMM) {
        return CQE_RESP_WR_IMM;
    }
    if (c->flags & ROCE_WC_WITH_IMM) {
        return CQE_RESP_SEND_IMM;
    }
    if (c->flags & ROCE_WC_WITH_INV) {
        return CQE_RESP_SEND_INV;
    }
    return CQE_RESP_SEND;
}

/* A receive's fields: opcode, immediate, the UD ones. */
static void cqe_resp(const MLX5QP *qp, const RoceCompletion *c, uint8_t *cqe)
{
    uint8_t op = cqe_resp_opcode(c);

    cqe[MLX5_CQE_OP_OWN] = op << 4;
    stl_be_p(cqe + MLX5_CQE_BYTE_CNT, c->byte_len);
    if (op == CQE_RESP_SEND_INV) {
        stl_be_p(cqe + CQE_IMM, c->inv_rkey);
    } else if (op != CQE_RESP_SEND) {
        stl_be_p(cqe + CQE_IMM, c->imm);
    } else if (qp->st == QP_ST_QP1) {
        /* The P_Key the GSI QP's driver looks up: the default one. */
        stl_be_p(cqe + CQE_IMM, 0xffff);
    }
    if (c->flags & ROCE_WC_GRH) {
        stl_be_p(cqe + CQE_FLAGS_RQPN, CQE_GRH |
                 (c->flags & ROCE_WC_IPV6 ? CQE_L3_IPV6 : CQE_L3_IPV4) << 24 |
                 (c->src_qp & 0xffffff));
    }
    if (c->flags & ROCE_WC_VLAN) {
        cqe[MLX5_CQE_L4_L3_HDR_TYPE] |= 1;
        stw_be_p(cqe + CQE_VLAN_INFO, c->vlan);
    }
}

void mlx5_roce_complete(void *opaque, RoceQP *rqp, const RoceCompletion *c)
{
    MLX5State *s = opaque;
    MLX5RoceQP *r = container_of(rqp, MLX5RoceQP, rqp);
    MLX5QP *qp = mlx5_qp_get(s, r->qpn);
    uint32_t cqn, uidx;
    uint8_t cqe[64] = { 0 };
    uint8_t opcode = 0;
    uint16_t counter;

    /* A QP without an SQ has no send WQE to complete. */
    if (!qp || (!c->recv && !r->nslots)) {
        return;
    }
    uidx = qp->user_index;
    if (!c->recv) {
        const MLX5SqSlot *slot = &r->slots[c->index & (r->nslots - 1)];

        cqn = qp->cqn_snd;
        counter = slot->bb;
        opcode = slot->opcode;
        cqe[MLX5_CQE_OP_OWN] = MLX5_CQE_OP_REQ << 4;
        stl_be_p(cqe + MLX5_CQE_BYTE_CNT, c->byte_len);
    } else {
        cqn = qp->cqn_rcv;
        counter = c->wr_id;
        if (c->wr_id & MLX5_ROCE_RECV_SRQ) {
            MLX5SRQ *srq = mlx5_srq_get(s, MLX5_ROCE_RECV_SRQN(c->wr_id));

            /* An XRC SRQ completes to its own CQ, with its own index. */
            if (srq && srq->kind == MLX5_SRQ_XRC) {
                cqn = srq->cqn;
                uidx = srq->user_index;
            }
        }
        cqe_resp(qp, c, cqe);
    }
    stl_be_p(cqe + CQE_SRQN_UIDX, uidx & 0xffffff);
    stl_be_p(cqe + MLX5_CQE_SOP_DROP_QPN, (uint32_t)opcode << 24 | r->qpn);
    stw_be_p(cqe + MLX5_CQE_WQE_COUNTER, counter);
    if (c->status != ROCE_WC_SUCCESS) {
        cqe[CQE_VENDOR_SYND] = c->status;
        cqe[MLX5_CQE_SYNDROME] = cqe_syndrome(c->status);
        cqe[MLX5_CQE_OP_OWN] = (c->recv ? MLX5_CQE_OP_RESP_ERR :
                                MLX5_CQE_OP_REQ_ERR) << 4;
    }
    trace_mlx5_roce_cqe(r->qpn, cqn, c->recv, counter, c->status,
                        cqe[MLX5_CQE_OP_OWN] >> 4, c->byte_len);
    mlx5_cq_post(s, cqn, cqe);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: irdma's completion formats (generation 2), the engine's
 * RoceCompletion as a CQE, and the CEQE, AEQE and QP doorbell shadow
 * word the PE writes.
 *
 * A CQE is one 32-byte CQ slot: quadword 0 the byte count (31:0),
 * 1 the QP's completion context (irdma's pointer to its QP), 2 the QP
 * number (55:32) and, on a receive, the STag invalidated or a UD
 * datagram's source QP (31:0), 3 the valid bit (63), SQ (62), opcode
 * (61:56), error (55), solicited (54), STag invalidated or, on UD,
 * IPv4 (53), extended (50), WQE index (46:32), major (31:16) and minor
 * (15:0) error codes.  An extended CQE takes the next slot too, with
 * its own valid bit (polarity of its own pass): quadword 4 the
 * immediate (31:0), 6 the UD source MAC (47:0) and VLAN tag (63:48),
 * 7 valid (63), immediate valid (62), MAC valid (61), VLAN valid (60).
 * irdma reads the immediate, MAC and VLAN only from there, and only on
 * success.  No CQ of irdma asks for 64-byte slots (avoid_mem_cflct).
 *
 * A send CQE's opcode is its WQE's; irdma finds the WQE by the index
 * (its first quantum) and takes the byte count from its own records.
 * A receive CQE's opcode is the last packet's BTH operation: irdma
 * reports RDMA WRITE with immediate for 0x09 and 0x0b, a receive
 * otherwise.
 *
 * Errors: major 1 is a flush, and only its minor codes become specific
 * statuses; irdma then ignores the WQE index and drains its queue from
 * its own tail with one such CQE (the first WQE gets the minor code's
 * status, the rest IB_WC_WR_FLUSH_ERR, and a flush CQE that finds the
 * queue already drained is consumed without a completion).  Any other
 * major is IB_WC_GENERAL_ERR for the WQE at the index.
 *
 * Facts: irdma uk.c (irdma_uk_cq_poll_cmpl), verbs.c
 * (irdma_process_cqe, irdma_flush_err_to_ib_wc_status), verbs.h
 * (set_ib_wc_op_sq, set_ib_wc_op_rq), user.h (enum irdma_flush_opcode),
 * ctrl.c (irdma_sc_process_ceq, irdma_sc_get_next_aeqe,
 * irdma_sc_cq_destroy's CQ context), hw.c (irdma_set_flush_fields),
 * defs.h (IRDMA_CQ_*, IRDMACQ_*, IRDMA_CEQE_*, IRDMA_AEQE_*,
 * IRDMA_QP_DBSA_*), libirdma uverbs.c (the same status mapping).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/bitops.h"
#include "hw/registerfields.h"
#include "e810-roce.h"

/* Every ring entry's valid bit: bit 63 of its last quadword. */
FIELD(ENTRY, VALID, 63, 1)

/* Quadword 3. */
FIELD(Q3, SQ, 62, 1)
FIELD(Q3, OP, 56, 6)
FIELD(Q3, ERROR, 55, 1)
FIELD(Q3, SOLICITED, 54, 1)
FIELD(Q3, STAG_IPV4, 53, 1)
FIELD(Q3, EXT, 50, 1)
FIELD(Q3, WQE_IDX, 32, 15)
FIELD(Q3, MAJOR, 16, 16)
FIELD(Q3, MINOR, 0, 16)

FIELD(Q2, QPN, 32, 24)
FIELD(Q2, SRC_QP_STAG, 0, 32)

/* Quadwords 6 and 7, in the next slot. */
FIELD(Q6, VLAN, 48, 16)
FIELD(Q7, IMM_VALID, 62, 1)
FIELD(Q7, SMAC_VALID, 61, 1)
FIELD(Q7, VLAN_VALID, 60, 1)

/* Receive opcodes: a BTH opcode's operation bits. */
#define RQ_OP_SEND_ONLY         0x04
#define RQ_OP_SEND_ONLY_IMM     0x05
#define RQ_OP_WRITE_ONLY_IMM    0x0b
#define RQ_OP_SEND_ONLY_INV     0x17

/* Asynchronous event codes (irdma's IRDMA_AE_*). */
#define AE_AMP_INVALID_STAG             0x0103
#define AE_AMP_RIGHTS_VIOLATION         0x0109
#define AE_UDA_XMIT_DGRAM_TOO_LONG      0x0132
#define AE_IB_INVALID_REQUEST           0x0208
#define AE_WQE_UNEXPECTED_OPCODE        0x020a
#define AE_IB_REMOTE_ACCESS_ERROR       0x020d
#define AE_IB_REMOTE_OP_ERROR           0x020e
#define AE_DDP_MSG_TOO_LONG             0x0303
#define AE_ROCE_RSP_LENGTH_ERROR        0x0316
#define AE_LLP_TOO_MANY_RETRIES         0x050a
#define AE_LCE_QP_CATASTROPHIC          0x0700

/* The AEQE's second quadword. */
FIELD(AEQE, QPCQID_LOW, 0, 18)
FIELD(AEQE, WQE_IDX, 18, 15)
FIELD(AEQE, OVERFLOW, 33, 1)
FIELD(AEQE, AE_ID, 34, 12)
FIELD(AEQE, QPCQID_HI, 46, 1)
FIELD(AEQE, AE_SRC, 50, 4)
FIELD(AEQE, IW_STATE, 54, 3)
FIELD(AEQE, TCP_STATE, 57, 4)

FIELD(SHADOW, HW_SQ_TAIL, 0, 15)

void e810_roce_wc_err(RoceWCStatus st, uint16_t *major, uint16_t *minor)
{
    *major = E810_CQE_MAJOR_FLUSH;
    switch (st) {
    case ROCE_WC_WR_FLUSH_ERR:
        *minor = E810_FLUSH_GENERAL_ERR;
        break;
    case ROCE_WC_LOC_PROT_ERR:
    case ROCE_WC_LOC_ACCESS_ERR:
        /* irdma has no local access code: rights violations are PROT. */
        *minor = E810_FLUSH_PROT_ERR;
        break;
    case ROCE_WC_REM_ACCESS_ERR:
        *minor = E810_FLUSH_REM_ACCESS_ERR;
        break;
    case ROCE_WC_LOC_QP_OP_ERR:
        *minor = E810_FLUSH_LOC_QP_OP_ERR;
        break;
    case ROCE_WC_REM_OP_ERR:
    case ROCE_WC_BAD_RESP_ERR:
        /* As irdma files a bad response length (ROCE_RSP_LENGTH). */
        *minor = E810_FLUSH_REM_OP_ERR;
        break;
    case ROCE_WC_LOC_LEN_ERR:
        *minor = E810_FLUSH_LOC_LEN_ERR;
        break;
    case ROCE_WC_RETRY_EXC_ERR:
    case ROCE_WC_RNR_RETRY_EXC_ERR:
        /* No RNR code in irdma: the nearest status it can report. */
        *minor = E810_FLUSH_RETRY_EXC_ERR;
        break;
    case ROCE_WC_REM_INV_REQ_ERR:
        *minor = E810_FLUSH_REM_INV_REQ_ERR;
        break;
    default:
        /* Not a flush: irdma reports IB_WC_GENERAL_ERR. */
        *major = E810_CQE_MAJOR_MODEL;
        *minor = st;
        break;
    }
}

uint16_t e810_roce_wc_ae(RoceWCStatus st, bool recv)
{
    /* Each of these is one irdma_set_flush_fields() turns into st. */
    switch (st) {
    case ROCE_WC_LOC_LEN_ERR:
        return recv ? AE_DDP_MSG_TOO_LONG : AE_UDA_XMIT_DGRAM_TOO_LONG;
    case ROCE_WC_LOC_QP_OP_ERR:
        return AE_WQE_UNEXPECTED_OPCODE;
    case ROCE_WC_LOC_PROT_ERR:
        return AE_AMP_INVALID_STAG;
    case ROCE_WC_LOC_ACCESS_ERR:
        return AE_AMP_RIGHTS_VIOLATION;
    case ROCE_WC_REM_ACCESS_ERR:
        return AE_IB_REMOTE_ACCESS_ERROR;
    case ROCE_WC_REM_OP_ERR:
        return AE_IB_REMOTE_OP_ERROR;
    case ROCE_WC_BAD_RESP_ERR:
        return AE_ROCE_RSP_LENGTH_ERROR;
    case ROCE_WC_REM_INV_REQ_ERR:
        return AE_IB_INVALID_REQUEST;
    case ROCE_WC_RETRY_EXC_ERR:
    case ROCE_WC_RNR_RETRY_EXC_ERR:
        return AE_LLP_TOO_MANY_RETRIES;
    default:
        return AE_LCE_QP_CATASTROPHIC;
    }
}

static uint8_t cqe_rq_opcode(const RoceCompletion *c)
{
    if (c->opcode == ROCE_WC_RECV_RDMA_WITH_IMM) {
        return RQ_OP_WRITE_ONLY_IMM;
    }
    if (c->flags & ROCE_WC_WITH_IMM) {
        return RQ_OP_SEND_ONLY_IMM;
    }
    if (c->flags & ROCE_WC_WITH_INV) {
        return RQ_OP_SEND_ONLY_INV;
    }
    return RQ_OP_SEND_ONLY;
}

/*
 * A receive's fields: opcode, STag or source QP, IPv4, and the second
 * slot's immediate, MAC and VLAN; true if that slot is needed.
 */
static bool cqe_recv(const RoceCompletion *c, const E810CqeCtx *ctx,
                     uint64_t *q2, uint64_t *q3, uint8_t *cqe)
{
    uint64_t q6 = 0, q7 = 0;
    int i;

    *q3 = FIELD_DP64(*q3, Q3, OP, cqe_rq_opcode(c));
    if (ctx->solicited) {
        *q3 |= R_Q3_SOLICITED_MASK;
    }
    if (ctx->ud) {
        *q2 = FIELD_DP64(*q2, Q2, SRC_QP_STAG, c->src_qp & 0xffffff);
        if (!(c->flags & ROCE_WC_IPV6)) {
            *q3 |= R_Q3_STAG_IPV4_MASK;
        }
    } else if (c->flags & ROCE_WC_WITH_INV) {
        *q2 = FIELD_DP64(*q2, Q2, SRC_QP_STAG, c->inv_rkey);
        *q3 |= R_Q3_STAG_IPV4_MASK;
    }
    if (c->status != ROCE_WC_SUCCESS) {
        return false;
    }
    if ((c->flags & ROCE_WC_WITH_IMM) ||
        c->opcode == ROCE_WC_RECV_RDMA_WITH_IMM) {
        stq_le_p(cqe + 32, c->imm);
        q7 |= R_Q7_IMM_VALID_MASK;
    }
    if (ctx->ud) {
        /* The MAC's first byte in bits 47:40. */
        for (i = 0; i < 6; i++) {
            q6 = q6 << 8 | c->smac[i];
        }
        q7 |= R_Q7_SMAC_VALID_MASK;
    }
    if (c->flags & ROCE_WC_VLAN) {
        q6 = FIELD_DP64(q6, Q6, VLAN, c->vlan);
        q7 |= R_Q7_VLAN_VALID_MASK;
    }
    if (!q7) {
        return false;
    }
    stq_le_p(cqe + 48, q6);
    stq_le_p(cqe + 56, q7);
    return true;
}

/* The fields every CQE has; the error codes if not a success. */
static void cqe_common(const E810CqeCtx *ctx, bool sq, uint32_t byte_len,
                       uint16_t major, uint16_t minor, uint64_t *q2,
                       uint64_t *q3, uint8_t *cqe)
{
    memset(cqe, 0, E810_CQE_EXT_SIZE);
    stq_le_p(cqe, byte_len);
    stq_le_p(cqe + 8, ctx->compl_ctx);
    *q2 = FIELD_DP64(0, Q2, QPN, ctx->qpn);
    *q3 = FIELD_DP64(0, Q3, WQE_IDX, ctx->wqe_idx);
    if (major || minor) {
        *q3 |= R_Q3_ERROR_MASK;
        *q3 = FIELD_DP64(*q3, Q3, MAJOR, major);
        *q3 = FIELD_DP64(*q3, Q3, MINOR, minor);
    }
    if (sq) {
        *q3 |= R_Q3_SQ_MASK;
        *q3 = FIELD_DP64(*q3, Q3, OP, ctx->sq_op);
    }
}

unsigned int e810_roce_cqe_build(const RoceCompletion *c,
                                 const E810CqeCtx *ctx, uint8_t *cqe)
{
    uint16_t major = 0, minor = 0;
    uint64_t q2, q3;
    bool ext = false;

    if (c->status != ROCE_WC_SUCCESS) {
        e810_roce_wc_err(c->status, &major, &minor);
    }
    cqe_common(ctx, !c->recv, c->byte_len, major, minor, &q2, &q3, cqe);
    if (c->recv) {
        ext = cqe_recv(c, ctx, &q2, &q3, cqe);
    }
    if (ext) {
        q3 |= R_Q3_EXT_MASK;
    }
    stq_le_p(cqe + 16, q2);
    stq_le_p(cqe + 24, q3);
    return ext ? 2 : 1;
}

void e810_roce_cqe_build_err(bool sq, uint16_t major, uint16_t minor,
                             const E810CqeCtx *ctx, uint8_t *cqe)
{
    uint64_t q2, q3;

    cqe_common(ctx, sq, 0, major, minor, &q2, &q3, cqe);
    stq_le_p(cqe + 16, q2);
    stq_le_p(cqe + 24, q3);
}

void e810_roce_cqe_set_valid(uint8_t *slot, bool polarity)
{
    stq_le_p(slot + 24, FIELD_DP64(ldq_le_p(slot + 24), ENTRY, VALID,
                                         polarity));
}

uint64_t e810_roce_ceqe(uint64_t cq_ctx, bool polarity)
{
    return FIELD_DP64(cq_ctx, ENTRY, VALID, polarity);
}

void e810_roce_aeqe_build(const E810Aeqe *ae, bool polarity, uint8_t *out)
{
    uint64_t q = 0;

    q = FIELD_DP64(q, AEQE, QPCQID_LOW, ae->qp_cq_id);
    q = FIELD_DP64(q, AEQE, QPCQID_HI, ae->qp_cq_id >> 18);
    q = FIELD_DP64(q, AEQE, WQE_IDX, ae->wqe_idx);
    q = FIELD_DP64(q, AEQE, OVERFLOW, ae->overflow);
    q = FIELD_DP64(q, AEQE, AE_ID, ae->ae_id);
    q = FIELD_DP64(q, AEQE, AE_SRC, ae->ae_src);
    q = FIELD_DP64(q, AEQE, IW_STATE, ae->iw_state);
    q = FIELD_DP64(q, AEQE, TCP_STATE, ae->tcp_state);
    q = FIELD_DP64(q, ENTRY, VALID, polarity);
    stq_le_p(out, ae->compl_ctx);
    stq_le_p(out + 8, q);
}

uint64_t e810_roce_qp_shadow(uint32_t hw_sq_tail)
{
    return FIELD_DP64(0, SHADOW, HW_SQ_TAIL, hw_sq_tail);
}

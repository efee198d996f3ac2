/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoCEv2 engine: the requester and the completer.
 *
 * Send WQEs stay in the front end's queue; the engine fetches one,
 * decoded (ops->fetch_send), whenever it sends a packet of it, so a
 * retransmission reads it again.  What the engine keeps of a WQE it
 * started is a slot (RoceReqSlot): its PSNs, length and state, until
 * the WQE completes.  Slots complete in SQ order.
 *
 * PSNs: a SEND or WRITE takes one per packet (path MTU), a READ one per
 * response packet, an atomic one.  At most ROCE_MAX_UNACKED_PSNS are
 * outstanding.  AckReq is set on the last packet of a message, on
 * requests without payload (READ, atomics) and once more than
 * ROCE_MAX_PKT_PER_ACK packets went without it, as rxe does.
 *
 * Recovery is go-back-N from the oldest unacknowledged PSN (comp_psn):
 * after the retransmit timer (4.096 us << timeout, started again by
 * every packet with AckReq and by progress), after a PSN sequence NAK,
 * after a READ response or an ACK that shows a response was lost, and
 * after the RNR timer.  Timeouts and sequence NAKs use up retry_cnt, RNR
 * NAKs rnr_retry (7: for ever); progress restores both.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "roce-osdep.h"
#include "roce-int.h"

/* IBTA vol. 1 table 45: the RNR NAK timer codes, in microseconds. */
static const uint32_t roce_rnr_us[32] = {
    655360, 10, 20, 30, 40, 60, 80, 120,
    160, 240, 320, 480, 640, 960, 1280, 1920,
    2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
    40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

enum {
    ROCE_START_OK,
    ROCE_START_BLOCKED,         /* fence, READ/ATOMIC limit */
    ROCE_START_LOCAL,           /* ROCE_WR_LOCAL done */
    ROCE_START_FAILED,          /* the QP went to error */
};

static RoceReqSlot *roce_slot(RoceQP *qp, uint32_t idx)
{
    return &qp->slot[idx % ROCE_SQ_SLOTS];
}

static bool roce_wr_rd_atomic(uint8_t op)
{
    return op == ROCE_WR_READ || op == ROCE_WR_CMP_SWP ||
           op == ROCE_WR_FETCH_ADD;
}

static bool roce_wr_atomic(uint8_t op)
{
    return op == ROCE_WR_CMP_SWP || op == ROCE_WR_FETCH_ADD;
}

void roce_req_reset(RoceQP *qp)
{
    qp->sq_pi = qp->sq_ci = qp->sq_hi = qp->req_idx = 0;
    qp->req_off = qp->req_psn = qp->comp_psn = qp->noack = 0;
    qp->psn_hi = 0;
    qp->in_retry = qp->rnr_wait = qp->retrans_armed = false;
    qp->cur_valid = false;
    memset(qp->slot, 0, sizeof(qp->slot));
}

static void roce_req_arm(RoceQP *qp)
{
    if (!qp->attr.timeout) {
        qp->retrans_armed = false;
        return;
    }
    qp->retrans_armed = true;
    qp->retrans_deadline = roce_now(qp) + (4096LL << qp->attr.timeout);
}

/* The send WQE @idx into qp->cur: 0, or the status to fail it with. */
static int roce_req_fetch(RoceQP *qp, uint32_t idx)
{
    RoceEngine *e = qp->eng;
    RoceSendWR *wr = &qp->cur;
    int rc;

    if (qp->cur_valid && qp->cur_idx == idx) {
        return 0;
    }
    qp->cur_valid = false;
    memset(wr, 0, offsetof(RoceSendWR, sge));
    wr->num_sge = 0;
    wr->inline_len = 0;
    rc = e->ops->fetch_send(e->opaque, qp, idx, wr);
    if (rc) {
        return rc;
    }
    if (wr->num_sge > ROCE_MAX_SGE || wr->inline_len > ROCE_MAX_INLINE ||
        wr->opcode > ROCE_WR_LOCAL) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    qp->cur_valid = true;
    qp->cur_idx = idx;
    return 0;
}

static uint64_t roce_wr_len(const RoceSendWR *wr)
{
    if (roce_wr_atomic(wr->opcode)) {
        return 8;
    }
    if (wr->flags & ROCE_WR_INLINE) {
        return wr->inline_len;
    }
    return roce_sge_len(wr->sge, wr->num_sge);
}

static RoceWCOpcode roce_wc_opcode(uint8_t op)
{
    switch (op) {
    case ROCE_WR_WRITE:
    case ROCE_WR_WRITE_IMM:
        return ROCE_WC_RDMA_WRITE;
    case ROCE_WR_READ:
        return ROCE_WC_RDMA_READ;
    case ROCE_WR_CMP_SWP:
        return ROCE_WC_COMP_SWAP;
    case ROCE_WR_FETCH_ADD:
        return ROCE_WC_FETCH_ADD;
    case ROCE_WR_LOCAL:
        return ROCE_WC_LOCAL;
    default:
        return ROCE_WC_SEND;
    }
}

static void roce_req_report(RoceQP *qp, uint32_t idx, const RoceReqSlot *s,
                            RoceWCStatus status)
{
    RoceCompletion c;

    memset(&c, 0, sizeof(c));
    c.index = idx;
    c.wr_id = s->wr_id;
    c.status = status;
    c.opcode = roce_wc_opcode(s->opcode);
    c.byte_len = s->len;
    roce_complete(qp, &c);
}

/* Completes the DONE slots at the head of the SQ, in order. */
static void roce_req_complete_done(RoceQP *qp)
{
    RoceReqSlot *s;

    while (qp->sq_ci != qp->sq_hi) {
        s = roce_slot(qp, qp->sq_ci);
        if (s->state != ROCE_SLOT_DONE) {
            break;
        }
        if (s->signaled || s->status != ROCE_WC_SUCCESS) {
            roce_req_report(qp, qp->sq_ci, s, s->status);
        }
        qp->sq_ci++;
    }
    if (qp->sq_ci == qp->sq_hi && qp->req_idx == qp->sq_hi) {
        qp->retrans_armed = false;
    }
}

/*
 * Every WQE from the oldest on completes: the DONE ones with their own
 * status, the rest (up to the producer) with WR_FLUSH_ERR.
 */
void roce_req_flush(RoceQP *qp)
{
    RoceEngine *e = qp->eng;
    RoceReqSlot *s, tmp;
    unsigned int n = 0;

    while (qp->sq_ci != qp->sq_pi && n++ < (1u << 20)) {
        if (qp->sq_ci != qp->sq_hi) {
            s = roce_slot(qp, qp->sq_ci);
            if (s->state == ROCE_SLOT_DONE) {
                if (s->signaled || s->status != ROCE_WC_SUCCESS) {
                    roce_req_report(qp, qp->sq_ci, s, s->status);
                }
            } else {
                roce_req_report(qp, qp->sq_ci, s, ROCE_WC_WR_FLUSH_ERR);
            }
        } else {
            memset(&tmp, 0, sizeof(tmp));
            tmp.wr_id = qp->sq_ci;
            qp->cur_valid = false;
            if (!e->ops->fetch_send(e->opaque, qp, qp->sq_ci, &qp->cur)) {
                tmp.wr_id = qp->cur.wr_id;
                tmp.opcode = qp->cur.opcode <= ROCE_WR_LOCAL ?
                             qp->cur.opcode : ROCE_WR_SEND;
            }
            roce_req_report(qp, qp->sq_ci, &tmp, ROCE_WC_WR_FLUSH_ERR);
            qp->sq_hi++;
        }
        qp->sq_ci++;
    }
    qp->sq_ci = qp->sq_hi = qp->req_idx = qp->sq_pi;
    qp->req_off = 0;
    qp->cur_valid = false;
}

/* WQE @idx fails with @status: the QP goes to error. */
static void roce_req_fail(RoceQP *qp, uint32_t idx, RoceWCStatus status)
{
    RoceReqSlot *s = roce_slot(qp, idx);

    if (idx == qp->sq_hi) {
        memset(s, 0, sizeof(*s));
        if (qp->cur_valid && qp->cur_idx == idx) {
            s->wr_id = qp->cur.wr_id;
            s->opcode = qp->cur.opcode;
        } else {
            s->wr_id = idx;
        }
        qp->sq_hi++;
    }
    s->state = ROCE_SLOT_DONE;
    s->status = status;
    roce_qp_set_error(qp);
}

/* READs and atomics started and not answered. */
static unsigned int roce_req_rd_atomic_out(RoceQP *qp)
{
    unsigned int n = 0;
    uint32_t i;

    for (i = qp->sq_ci; i != qp->sq_hi; i++) {
        RoceReqSlot *s = roce_slot(qp, i);

        if (roce_wr_rd_atomic(s->opcode) && s->state != ROCE_SLOT_DONE) {
            n++;
        }
    }
    return n;
}

/* The first look at a WQE (qp->cur, index sq_hi). */
static int roce_req_start(RoceQP *qp)
{
    RoceEngine *e = qp->eng;
    RoceSendWR *wr = &qp->cur;
    uint32_t idx = qp->sq_hi;
    uint32_t max_rd = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
    RoceQPType t = qp->attr.type;
    RoceReqSlot *s;
    uint64_t len;
    int rc;

    if ((wr->flags & ROCE_WR_FENCE) && roce_req_rd_atomic_out(qp)) {
        return ROCE_START_BLOCKED;
    }
    if (roce_wr_rd_atomic(wr->opcode) &&
        roce_req_rd_atomic_out(qp) >= max_rd) {
        return ROCE_START_BLOCKED;
    }

    /* What the transport can carry. */
    switch (wr->opcode) {
    case ROCE_WR_SEND:
    case ROCE_WR_SEND_IMM:
        break;
    case ROCE_WR_WRITE:
    case ROCE_WR_WRITE_IMM:
        if (t != ROCE_QPT_RC && t != ROCE_QPT_UC) {
            goto op_err;
        }
        break;
    case ROCE_WR_LOCAL:
        break;
    default:                /* SEND_INV, READ, atomics */
        if (t != ROCE_QPT_RC) {
            goto op_err;
        }
        break;
    }
    len = roce_wr_len(wr);
    if (len > ROCE_MAX_MSG || (roce_qp_is_ud(qp) && len > qp->attr.pmtu)) {
        roce_req_fail(qp, idx, ROCE_WC_LOC_LEN_ERR);
        return ROCE_START_FAILED;
    }
    if ((wr->flags & ROCE_WR_INLINE) &&
        (roce_wr_rd_atomic(wr->opcode) || wr->opcode == ROCE_WR_LOCAL)) {
        goto op_err;
    }

    s = roce_slot(qp, idx);
    memset(s, 0, sizeof(*s));
    s->wr_id = wr->wr_id;
    s->opcode = wr->opcode;
    s->len = (uint32_t)len;
    s->signaled = wr->flags & ROCE_WR_SIGNALED;
    s->state = ROCE_SLOT_SENDING;
    s->first_psn = qp->req_psn;
    s->last_psn = roce_psn_add(qp->req_psn, roce_wr_atomic(wr->opcode) ? 0 :
                               roce_npkts(s->len, qp->attr.pmtu) - 1);
    qp->sq_hi++;

    if (wr->opcode == ROCE_WR_LOCAL) {
        rc = e->ops->local_op(e->opaque, qp, wr);
        s->state = ROCE_SLOT_DONE;
        s->status = rc ? rc : ROCE_WC_SUCCESS;
        s->first_psn = s->last_psn = roce_psn_add(qp->req_psn, -1);
        if (rc) {
            roce_qp_set_error(qp);
            return ROCE_START_FAILED;
        }
        return ROCE_START_LOCAL;
    }
    return ROCE_START_OK;

op_err:
    roce_req_fail(qp, idx, ROCE_WC_LOC_QP_OP_ERR);
    return ROCE_START_FAILED;
}

static uint8_t roce_req_opcode(const RoceQP *qp, uint8_t op, bool first,
                               bool last)
{
    uint8_t base = qp->attr.type == ROCE_QPT_RC ? roce_rc_transport(qp) :
                   qp->attr.type == ROCE_QPT_UC ? ROCE_OP_UC : ROCE_OP_UD;
    uint8_t o;

    switch (op) {
    case ROCE_WR_READ:
        return base | ROCE_OP_READ_REQUEST;
    case ROCE_WR_CMP_SWP:
        return base | ROCE_OP_CMP_SWP;
    case ROCE_WR_FETCH_ADD:
        return base | ROCE_OP_FETCH_ADD;
    case ROCE_WR_WRITE:
    case ROCE_WR_WRITE_IMM:
        if (first && last) {
            o = op == ROCE_WR_WRITE ? ROCE_OP_WRITE_ONLY :
                                      ROCE_OP_WRITE_ONLY_IMM;
        } else if (first) {
            o = ROCE_OP_WRITE_FIRST;
        } else if (last) {
            o = op == ROCE_WR_WRITE ? ROCE_OP_WRITE_LAST :
                                      ROCE_OP_WRITE_LAST_IMM;
        } else {
            o = ROCE_OP_WRITE_MIDDLE;
        }
        return base | o;
    default:
        if (first && last) {
            o = op == ROCE_WR_SEND_IMM ? ROCE_OP_SEND_ONLY_IMM :
                op == ROCE_WR_SEND_INV ? ROCE_OP_SEND_ONLY_INV :
                                         ROCE_OP_SEND_ONLY;
        } else if (first) {
            o = ROCE_OP_SEND_FIRST;
        } else if (last) {
            o = op == ROCE_WR_SEND_IMM ? ROCE_OP_SEND_LAST_IMM :
                op == ROCE_WR_SEND_INV ? ROCE_OP_SEND_LAST_INV :
                                         ROCE_OP_SEND_LAST;
        } else {
            o = ROCE_OP_SEND_MIDDLE;
        }
        return base | o;
    }
}

/* The next packet of qp->cur (WQE req_idx): false if the QP failed. */
static bool roce_req_send(RoceQP *qp)
{
    RoceSendWR *wr = &qp->cur;
    RoceReqSlot *s = roce_slot(qp, qp->req_idx);
    uint32_t mtu = qp->attr.pmtu;
    uint32_t off = qp->req_off;
    uint32_t chunk = 0;
    bool first, last, rc = qp->attr.type == ROCE_QPT_RC;
    const RoceAV *av = &qp->attr.av;
    RocePkt p;
    uint8_t *payload;
    int r;

    memset(&p, 0, sizeof(p));
    p.pkey = qp->attr.pkey;
    p.dqpn = qp->attr.dest_qpn;
    p.psn = qp->req_psn;

    if (wr->opcode == ROCE_WR_READ) {
        first = last = true;
        p.va = wr->remote_addr + off;
        p.rkey = wr->rkey;
        p.dma_len = s->len - off;
    } else if (roce_wr_atomic(wr->opcode)) {
        first = last = true;
        p.va = wr->remote_addr;
        p.rkey = wr->rkey;
        p.swap_add = wr->opcode == ROCE_WR_CMP_SWP ? wr->swap :
                                                     wr->compare_add;
        p.compare = wr->opcode == ROCE_WR_CMP_SWP ? wr->compare_add : 0;
    } else {
        chunk = ROCE_MIN(mtu, s->len - off);
        first = off == 0;
        last = off + chunk == s->len;
    }
    p.opcode = roce_req_opcode(qp, wr->opcode, first, last);
    p.flags = roce_opcode_flags(p.opcode);
    if (first && (p.flags & ROCE_F_WRITE)) {
        p.va = wr->remote_addr;
        p.rkey = wr->rkey;
        p.dma_len = s->len;
    }
    p.imm = wr->imm;
    p.ieth_rkey = wr->invalidate_rkey;
    p.xrc_srqn = wr->xrc_srqn;
    p.se = last && (wr->flags & ROCE_WR_SOLICITED) &&
           (p.flags & (ROCE_F_SEND | ROCE_F_IMM));
    if (roce_qp_is_ud(qp)) {
        av = &wr->av;
        p.dqpn = wr->remote_qpn;
        /* Bit 31 set: the QP's own Q_Key (QP1's is 0x80010000). */
        p.qkey = !(wr->remote_qkey & 0x80000000u) ? wr->remote_qkey :
                 qp->attr.type == ROCE_QPT_GSI ? ROCE_GSI_QKEY :
                                                 qp->attr.qkey;
        p.sqpn = qp->attr.type == ROCE_QPT_GSI ? 1 : qp->attr.qpn;
    }
    p.ackreq = last || !(p.flags & ROCE_F_PAYLOAD) ||
               ++qp->noack > ROCE_MAX_PKT_PER_ACK;
    if (p.ackreq) {
        qp->noack = 0;
    }

    payload = roce_frame_begin(qp, av, &p, chunk);
    if (chunk) {
        if (wr->flags & ROCE_WR_INLINE) {
            memcpy(payload, wr->inline_data + off, chunk);
        } else {
            r = roce_sge_copy(qp, wr->sge, wr->num_sge, off, payload, chunk,
                              ROCE_MEM_GATHER);
            if (r) {
                roce_req_fail(qp, qp->req_idx, r == -2 ?
                              ROCE_WC_LOC_LEN_ERR : ROCE_WC_LOC_PROT_ERR);
                return false;
            }
        }
    }
    roce_frame_send(qp);

    if (wr->opcode == ROCE_WR_READ || roce_wr_atomic(wr->opcode)) {
        qp->req_psn = roce_psn_add(s->last_psn, 1);
        qp->req_off = s->len;
    } else {
        qp->req_psn = roce_psn_add(qp->req_psn, 1);
        qp->req_off += chunk;
    }
    if (roce_psn_cmp(qp->req_psn, qp->psn_hi) > 0) {
        qp->psn_hi = qp->req_psn;
    }
    if (last) {
        s->state = rc ? ROCE_SLOT_PENDING : ROCE_SLOT_DONE;
        s->status = ROCE_WC_SUCCESS;
        qp->req_idx++;
        qp->req_off = 0;
    }
    if (rc && p.ackreq) {
        roce_req_arm(qp);
        roce_qp_update_timer(qp);
    }
    return true;
}

void roce_req_run(RoceQP *qp)
{
    RoceEngine *e = qp->eng;
    unsigned int budget = ROCE_BUDGET;
    bool rc = qp->attr.type == ROCE_QPT_RC;
    RoceReqSlot *s;
    uint32_t idx;
    int r;

    if ((qp->attr.state != ROCE_QPS_RTS && qp->attr.state != ROCE_QPS_SQD) ||
        qp->rnr_wait) {
        return;
    }
    while (qp->req_idx != qp->sq_pi) {
        idx = qp->req_idx;
        if (rc && roce_psn_dist(qp->req_psn, qp->comp_psn) >=
                  ROCE_MAX_UNACKED_PSNS) {
            break;
        }
        if (idx - qp->sq_ci >= ROCE_SQ_SLOTS) {
            break;
        }
        if (idx != qp->sq_hi) {
            s = roce_slot(qp, idx);
            if (s->state == ROCE_SLOT_DONE) {
                qp->req_idx++;
                continue;
            }
        } else if (qp->attr.state == ROCE_QPS_SQD) {
            break;
        }
        if (!budget--) {
            if (!qp->scheduled) {
                qp->scheduled = true;
                e->ops->schedule(e->opaque, qp);
            }
            break;
        }
        r = roce_req_fetch(qp, idx);
        if (r) {
            roce_req_fail(qp, idx, r);
            return;
        }
        if (idx == qp->sq_hi) {
            r = roce_req_start(qp);
            if (r == ROCE_START_BLOCKED) {
                break;
            }
            if (r == ROCE_START_FAILED) {
                return;
            }
            if (r == ROCE_START_LOCAL) {
                qp->req_idx++;
                continue;
            }
        }
        if (!roce_req_send(qp)) {
            return;
        }
    }
    roce_req_complete_done(qp);
}

/*
 * The next packet to send is the one of comp_psn, the oldest PSN not
 * acknowledged, in the oldest WQE not completed.
 */
static void roce_req_rewind(RoceQP *qp)
{
    RoceReqSlot *s;
    uint32_t n;

    qp->req_idx = qp->sq_ci;
    qp->req_psn = qp->comp_psn;
    qp->req_off = 0;
    qp->noack = 0;
    if (qp->sq_ci == qp->sq_hi) {
        return;
    }
    s = roce_slot(qp, qp->sq_ci);
    if (roce_psn_cmp(qp->comp_psn, s->first_psn) < 0) {
        qp->comp_psn = qp->req_psn = s->first_psn;
    }
    n = roce_psn_dist(qp->comp_psn, s->first_psn);
    qp->req_off = roce_wr_atomic(s->opcode) ? 0 :
                  ROCE_MIN((uint64_t)n * qp->attr.pmtu, s->len);
    s->state = ROCE_SLOT_SENDING;
}

/* Go back to comp_psn: the packets from there on go again. */
static void roce_req_retry(RoceQP *qp)
{
    roce_req_complete_done(qp);
    if (qp->sq_ci == qp->sq_hi) {
        return;
    }
    roce_req_rewind(qp);
    qp->in_retry = true;
    qp->eng->stats.retransmits++;
    roce_req_arm(qp);
    roce_qp_update_timer(qp);
}

/* The oldest WQE outstanding fails with @status. */
static void roce_req_fail_oldest(RoceQP *qp, RoceWCStatus status)
{
    roce_req_complete_done(qp);
    roce_req_fail(qp, qp->sq_ci, status);
}

/* A timeout or a sequence NAK: retry, if retries are left. */
static void roce_req_retry_counted(RoceQP *qp)
{
    if (!qp->retry_left) {
        roce_req_fail_oldest(qp, ROCE_WC_RETRY_EXC_ERR);
        return;
    }
    qp->retry_left--;
    roce_req_retry(qp);
}

static void roce_req_progress(RoceQP *qp)
{
    qp->retry_left = qp->attr.retry_cnt;
    qp->rnr_left = qp->attr.rnr_retry;
    qp->in_retry = false;
}

/*
 * The responder executed every request up to @psn: the SENDs and WRITEs
 * up to there are done.  True when a READ or atomic up to there has not
 * been answered: its response was lost.
 */
static bool roce_req_ack_upto(RoceQP *qp, uint32_t psn)
{
    uint32_t cap = roce_psn_add(psn, 1);
    bool hole = false;
    RoceReqSlot *s;
    uint32_t i;

    for (i = qp->sq_ci; i != qp->sq_hi; i++) {
        s = roce_slot(qp, i);
        if (s->state == ROCE_SLOT_DONE) {
            continue;
        }
        if (roce_psn_cmp(s->last_psn, psn) > 0) {
            if (roce_wr_rd_atomic(s->opcode) &&
                roce_psn_cmp(s->first_psn, cap) < 0) {
                cap = s->first_psn;
            }
            break;
        }
        if (roce_wr_rd_atomic(s->opcode)) {
            hole = true;
            cap = s->first_psn;
            break;
        }
        s->state = ROCE_SLOT_DONE;
        s->status = ROCE_WC_SUCCESS;
    }
    if (roce_psn_cmp(cap, qp->comp_psn) > 0 &&
        roce_psn_cmp(cap, qp->psn_hi) <= 0) {
        qp->comp_psn = cap;
        roce_req_progress(qp);
        roce_req_arm(qp);
    }
    roce_req_complete_done(qp);
    /* Retransmitting what has now been acknowledged: skip ahead. */
    if (roce_psn_cmp(qp->comp_psn, qp->req_psn) > 0 ||
        (int32_t)(qp->req_idx - qp->sq_ci) < 0) {
        roce_req_rewind(qp);
    }
    return hole;
}

static void roce_req_rnr(RoceQP *qp, uint8_t syn)
{
    qp->eng->stats.rnr_naks_rcvd++;
    if (!qp->rnr_left) {
        roce_req_fail_oldest(qp, ROCE_WC_RNR_RETRY_EXC_ERR);
        return;
    }
    if (qp->rnr_left != 7) {
        qp->rnr_left--;
    }
    qp->rnr_wait = true;
    qp->retrans_armed = false;
    qp->rnr_deadline = roce_now(qp) + roce_rnr_us[syn & 0x1f] * 1000LL;
}

static RoceWCStatus roce_nak_status(uint8_t code)
{
    switch (code) {
    case ROCE_NAK_INVALID_REQ:
        return ROCE_WC_REM_INV_REQ_ERR;
    case ROCE_NAK_REM_ACCESS:
        return ROCE_WC_REM_ACCESS_ERR;
    case ROCE_NAK_REM_OP:
        return ROCE_WC_REM_OP_ERR;
    default:
        return ROCE_WC_REM_INV_REQ_ERR;
    }
}

/* A READ response or atomic ACK for the oldest outstanding WQE. */
static void roce_req_data(RoceQP *qp, const RocePkt *pkt)
{
    RoceReqSlot *s;
    uint32_t off, n, rest;
    bool last;
    uint8_t buf[8];
    int r;

    if (qp->sq_ci == qp->sq_hi) {
        return;
    }
    s = roce_slot(qp, qp->sq_ci);
    if (pkt->psn != qp->comp_psn ||
        roce_psn_cmp(pkt->psn, s->first_psn) < 0 ||
        roce_psn_cmp(pkt->psn, s->last_psn) > 0) {
        /* Ahead of what is expected: a response before it was lost. */
        if (roce_psn_cmp(pkt->psn, qp->comp_psn) > 0 && !qp->in_retry) {
            roce_req_retry(qp);
        }
        return;
    }
    if (roce_req_fetch(qp, qp->sq_ci)) {
        return;
    }
    if (pkt->flags & ROCE_F_ATMACK) {
        if (!roce_wr_atomic(s->opcode)) {
            return;
        }
        buf[0] = pkt->orig;
        buf[1] = pkt->orig >> 8;
        buf[2] = pkt->orig >> 16;
        buf[3] = pkt->orig >> 24;
        buf[4] = pkt->orig >> 32;
        buf[5] = pkt->orig >> 40;
        buf[6] = pkt->orig >> 48;
        buf[7] = pkt->orig >> 56;
        r = roce_sge_copy(qp, qp->cur.sge, qp->cur.num_sge, 0, buf, 8,
                          ROCE_MEM_SCATTER);
        last = true;
    } else {
        if (s->opcode != ROCE_WR_READ) {
            return;
        }
        n = roce_psn_dist(pkt->psn, s->first_psn);
        off = n * qp->attr.pmtu;
        rest = s->len - off;
        last = pkt->psn == s->last_psn;
        if (!!(pkt->flags & ROCE_F_LAST) != last ||
            pkt->paylen != (last ? rest : qp->attr.pmtu)) {
            return;
        }
        r = roce_sge_copy(qp, qp->cur.sge, qp->cur.num_sge, off,
                          (uint8_t *)pkt->payload, pkt->paylen,
                          ROCE_MEM_SCATTER);
    }
    if (r) {
        roce_req_fail(qp, qp->sq_ci, r == -2 ? ROCE_WC_LOC_LEN_ERR :
                                               ROCE_WC_LOC_PROT_ERR);
        return;
    }
    qp->comp_psn = roce_psn_add(pkt->psn, 1);
    roce_req_progress(qp);
    roce_req_arm(qp);
    if (last) {
        s->state = ROCE_SLOT_DONE;
        s->status = ROCE_WC_SUCCESS;
        roce_req_complete_done(qp);
    }
}

void roce_req_rx(RoceQP *qp, const RocePkt *pkt)
{
    RoceEngine *e = qp->eng;
    uint32_t psn = pkt->psn;
    uint8_t syn = pkt->syn;

    if (qp->attr.type != ROCE_QPT_RC || qp->rnr_wait ||
        (qp->attr.state != ROCE_QPS_RTS && qp->attr.state != ROCE_QPS_SQD)) {
        e->stats.rx_dropped++;
        return;
    }
    /* Older than anything outstanding (a duplicate), or never sent. */
    if (roce_psn_cmp(psn, qp->comp_psn) < 0 ||
        roce_psn_cmp(psn, qp->psn_hi) >= 0) {
        return;
    }

    if (pkt->flags & (ROCE_F_RRESP | ROCE_F_ATMACK)) {
        if ((pkt->flags & ROCE_F_AETH) &&
            (syn & ROCE_AETH_TYPE_MASK) != ROCE_AETH_ACK) {
            return;
        }
        if (roce_req_ack_upto(qp, roce_psn_add(psn, -1))) {
            if (!qp->in_retry) {
                roce_req_retry(qp);
            }
        } else if (qp->attr.state != ROCE_QPS_ERR) {
            roce_req_data(qp, pkt);
        }
    } else {
        switch (syn & ROCE_AETH_TYPE_MASK) {
        case ROCE_AETH_ACK:
            if (roce_req_ack_upto(qp, psn) && !qp->in_retry) {
                roce_req_retry(qp);
            }
            break;
        case ROCE_AETH_RNR_NAK:
            if (roce_req_ack_upto(qp, roce_psn_add(psn, -1))) {
                break;
            }
            roce_req_rnr(qp, syn);
            break;
        case ROCE_AETH_NAK:
            if (roce_req_ack_upto(qp, roce_psn_add(psn, -1))) {
                if (!qp->in_retry) {
                    roce_req_retry(qp);
                }
                break;
            }
            if ((syn & 0x1f) == ROCE_NAK_PSN_SEQ) {
                e->stats.seq_naks_rcvd++;
                if (!qp->in_retry) {
                    roce_req_retry_counted(qp);
                }
            } else {
                roce_req_fail_oldest(qp, roce_nak_status(syn & 0x1f));
            }
            break;
        default:
            return;
        }
    }
    if (qp->attr.state == ROCE_QPS_ERR) {
        return;
    }
    roce_qp_update_timer(qp);
    roce_req_run(qp);
}

void roce_req_timer(RoceQP *qp, int64_t now)
{
    if (qp->rnr_wait && now >= qp->rnr_deadline) {
        qp->rnr_wait = false;
        roce_req_retry(qp);
    }
    if (qp->retrans_armed && now >= qp->retrans_deadline) {
        qp->retrans_armed = false;
        roce_req_complete_done(qp);
        if (qp->attr.type == ROCE_QPT_RC && qp->sq_ci != qp->sq_hi) {
            qp->eng->stats.timeouts++;
            roce_req_retry_counted(qp);
            if (qp->attr.state == ROCE_QPS_ERR) {
                return;
            }
        }
    }
    roce_qp_update_timer(qp);
    roce_req_run(qp);
}

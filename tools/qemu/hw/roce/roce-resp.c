/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoCEv2 engine: the responder.
 *
 * RC (IBTA vol. 1 9.7.5): a request at the expected PSN (epsn) is
 * executed; one ahead of it is answered with one PSN sequence NAK per
 * gap; one behind it is a duplicate: a SEND or WRITE gets the ACK of
 * epsn - 1 if it asks for one, a READ is answered again from its
 * resource (reading the memory again), an atomic gets the result it
 * had, never executed twice.  One ACK per message, on the packet with
 * AckReq, with the MSN of the messages executed and the credit field
 * "unlimited" (as rxe).  No receive WQE for a SEND (or a WRITE with
 * immediate): an RNR NAK with min_rnr_timer, and epsn stays.  Invalid
 * requests, access and operational errors: a NAK, then the QP goes to
 * error.
 *
 * UC: no answers; a gap or an error drops the rest of the message, the
 * next FIRST or ONLY starts afresh (the receive WQE is used again).
 *
 * UD and GSI: SEND_ONLY with DETH and the right Q_Key; the 40-byte GRH
 * (the IPv6 header, or 20 bytes of zeros and the IPv4 header) is
 * scattered before the payload.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "roce-osdep.h"
#include "roce-int.h"

/* The result of executing a request. */
enum {
    ROCE_RESP_OK = 0,
    ROCE_RESP_RNR = -1,             /* no receive WQE */
    ROCE_RESP_DROP = -2,            /* UC: drop the message */
    /* > 0: a NAK code (ROCE_NAK_*) */
};

void roce_resp_reset(RoceQP *qp)
{
    qp->epsn = qp->msn = 0;
    qp->nak_sent = qp->in_send = qp->in_write = qp->uc_drop = false;
    qp->has_rwr = false;
    qp->recv_off = 0;
    qp->rd_active = false;
    memset(qp->res, 0, sizeof(qp->res));
    qp->res_head = 0;
}

static void roce_resp_send_ack(RoceQP *qp, uint8_t opcode, uint8_t syn,
                               uint32_t psn, uint64_t orig)
{
    RocePkt p;

    memset(&p, 0, sizeof(p));
    p.opcode = opcode;
    p.pkey = qp->attr.pkey;
    p.dqpn = qp->attr.dest_qpn;
    p.psn = psn;
    p.syn = syn;
    p.msn = qp->msn;
    p.orig = orig;
    roce_frame_begin(qp, &qp->attr.av, &p, 0);
    roce_frame_send(qp);
}

static void roce_resp_ack(RoceQP *qp, uint8_t syn, uint32_t psn)
{
    roce_resp_send_ack(qp, roce_rc_transport(qp) | ROCE_OP_ACK, syn, psn, 0);
}

static void roce_resp_complete(RoceQP *qp, RoceWCStatus status,
                               RoceWCOpcode op, uint32_t len,
                               const RocePkt *pkt)
{
    RoceCompletion c;

    memset(&c, 0, sizeof(c));
    c.recv = true;
    c.wr_id = qp->rwr.wr_id;
    c.status = status;
    c.opcode = op;
    c.byte_len = len;
    c.src_qp = qp->attr.dest_qpn;
    if (pkt) {
        if (pkt->flags & ROCE_F_IMM) {
            c.flags |= ROCE_WC_WITH_IMM;
            c.imm = pkt->imm;
        }
        if (pkt->flags & ROCE_F_IETH) {
            c.flags |= ROCE_WC_WITH_INV;
            c.inv_rkey = pkt->ieth_rkey;
        }
        /* The last packet's: for a CQ armed for solicited events. */
        if (pkt->se) {
            c.flags |= ROCE_WC_SOLICITED;
        }
    }
    qp->has_rwr = false;
    qp->recv_off = 0;
    roce_complete(qp, &c);
}

/* The receive WQE a message lands in: 1, 0 for none, < 0 broken. */
static int roce_resp_get_rwr(RoceQP *qp)
{
    RoceEngine *e = qp->eng;
    int r;

    if (qp->has_rwr) {
        return 1;
    }
    memset(&qp->rwr, 0, offsetof(RoceRecvWR, sge));
    r = e->ops->take_recv(e->opaque, qp, &qp->rwr, false);
    if (r <= 0) {
        return r;
    }
    if (qp->rwr.num_sge > ROCE_MAX_SGE) {
        qp->rwr.num_sge = ROCE_MAX_SGE;
    }
    qp->has_rwr = true;
    qp->recv_off = 0;
    return 1;
}

void roce_resp_flush(RoceQP *qp)
{
    RoceEngine *e = qp->eng;
    unsigned int n = 0;

    if (qp->has_rwr) {
        roce_resp_complete(qp, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_RECV, 0, NULL);
    }
    qp->in_send = qp->in_write = false;
    while (n++ < (1u << 20)) {
        memset(&qp->rwr, 0, offsetof(RoceRecvWR, sge));
        if (e->ops->take_recv(e->opaque, qp, &qp->rwr, true) <= 0) {
            break;
        }
        roce_resp_complete(qp, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_RECV, 0, NULL);
    }
}

/* Payload sizes: FIRST and MIDDLE packets are full, LAST not above. */
static bool roce_resp_len_ok(const RoceQP *qp, const RocePkt *pkt)
{
    if (pkt->flags & ROCE_F_LAST) {
        return pkt->paylen <= qp->attr.pmtu;
    }
    return pkt->paylen == qp->attr.pmtu;
}

/* A SEND packet (RC, UC). */
static int roce_resp_send(RoceQP *qp, const RocePkt *pkt)
{
    RoceEngine *e = qp->eng;
    uint64_t room;
    int r;

    if (!roce_resp_len_ok(qp, pkt)) {
        return ROCE_NAK_INVALID_REQ;
    }
    r = roce_resp_get_rwr(qp);
    if (r == 0) {
        return ROCE_RESP_RNR;
    }
    if (r < 0) {
        return ROCE_NAK_REM_OP;
    }
    room = roce_sge_len(qp->rwr.sge, qp->rwr.num_sge);
    if ((uint64_t)qp->recv_off + pkt->paylen > room) {
        roce_resp_complete(qp, ROCE_WC_LOC_LEN_ERR, ROCE_WC_RECV,
                           qp->recv_off, NULL);
        return ROCE_NAK_INVALID_REQ;
    }
    if (pkt->paylen &&
        roce_sge_copy(qp, qp->rwr.sge, qp->rwr.num_sge, qp->recv_off,
                      (uint8_t *)pkt->payload, pkt->paylen,
                      ROCE_MEM_SCATTER)) {
        roce_resp_complete(qp, ROCE_WC_LOC_PROT_ERR, ROCE_WC_RECV,
                           qp->recv_off, NULL);
        return ROCE_NAK_REM_OP;
    }
    qp->recv_off += pkt->paylen;
    if (!(pkt->flags & ROCE_F_LAST)) {
        qp->in_send = true;
        return ROCE_RESP_OK;
    }
    qp->in_send = false;
    if ((pkt->flags & ROCE_F_IETH) &&
        e->ops->invalidate(e->opaque, qp, pkt->ieth_rkey) != ROCE_MEM_OK) {
        roce_resp_complete(qp, ROCE_WC_LOC_PROT_ERR, ROCE_WC_RECV,
                           qp->recv_off, pkt);
        return ROCE_NAK_INVALID_REQ;
    }
    qp->msn = (qp->msn + 1) & ROCE_MSN_MASK;
    roce_resp_complete(qp, ROCE_WC_SUCCESS, ROCE_WC_RECV, qp->recv_off,
                       pkt);
    return ROCE_RESP_OK;
}

/* A WRITE packet (RC, UC). */
static int roce_resp_write(RoceQP *qp, const RocePkt *pkt)
{
    RoceEngine *e = qp->eng;
    int r;

    if (pkt->flags & ROCE_F_FIRST) {
        if (!(qp->attr.access & ROCE_ACCESS_REMOTE_WRITE)) {
            return ROCE_NAK_REM_ACCESS;
        }
        if (pkt->dma_len > ROCE_MAX_MSG) {
            return ROCE_NAK_INVALID_REQ;
        }
        if (pkt->dma_len &&
            e->ops->dma(e->opaque, qp, ROCE_MEM_REMOTE_WRITE, pkt->rkey,
                        pkt->va, NULL, pkt->dma_len) != ROCE_MEM_OK) {
            return ROCE_NAK_REM_ACCESS;
        }
        qp->w_va = pkt->va;
        qp->w_rkey = pkt->rkey;
        qp->w_len = qp->w_resid = pkt->dma_len;
    }
    if (!roce_resp_len_ok(qp, pkt) || pkt->paylen > qp->w_resid ||
        ((pkt->flags & ROCE_F_LAST) && pkt->paylen != qp->w_resid)) {
        return ROCE_NAK_INVALID_REQ;
    }
    if (pkt->flags & ROCE_F_IMM) {
        /* Before the data lands: an RNR NAK makes it come again. */
        r = roce_resp_get_rwr(qp);
        if (r == 0) {
            return ROCE_RESP_RNR;
        }
        if (r < 0) {
            return ROCE_NAK_REM_OP;
        }
    }
    if (pkt->paylen &&
        e->ops->dma(e->opaque, qp, ROCE_MEM_REMOTE_WRITE, qp->w_rkey,
                    qp->w_va + (qp->w_len - qp->w_resid),
                    (void *)pkt->payload, pkt->paylen) != ROCE_MEM_OK) {
        return ROCE_NAK_REM_ACCESS;
    }
    qp->w_resid -= pkt->paylen;
    if (!(pkt->flags & ROCE_F_LAST)) {
        qp->in_write = true;
        return ROCE_RESP_OK;
    }
    qp->in_write = false;
    qp->msn = (qp->msn + 1) & ROCE_MSN_MASK;
    if (pkt->flags & ROCE_F_IMM) {
        roce_resp_complete(qp, ROCE_WC_SUCCESS, ROCE_WC_RECV_RDMA_WITH_IMM,
                           qp->w_len, pkt);
    }
    return ROCE_RESP_OK;
}

static RoceRespRes *roce_resp_new_res(RoceQP *qp)
{
    unsigned int n = qp->attr.max_dest_rd_atomic;
    RoceRespRes *res;

    if (n < 1) {
        n = 1;
    } else if (n > ROCE_MAX_RD_ATOMIC) {
        n = ROCE_MAX_RD_ATOMIC;
    }
    res = &qp->res[qp->res_head % n];
    qp->res_head = (qp->res_head + 1) % n;
    memset(res, 0, sizeof(*res));
    res->valid = true;
    return res;
}

/*
 * READ responses, up to @budget packets: true while more remain
 * (ops->schedule was asked to come back).
 */
bool roce_resp_run(RoceQP *qp, unsigned int budget)
{
    RoceEngine *e = qp->eng;
    uint32_t chunk, mtu = qp->attr.pmtu;
    bool last;
    uint8_t *payload;
    RocePkt p;

    while (qp->rd_active) {
        if (!budget--) {
            if (!qp->scheduled) {
                qp->scheduled = true;
                e->ops->schedule(e->opaque, qp);
            }
            return true;
        }
        chunk = ROCE_MIN(mtu, qp->rd_resid);
        last = chunk == qp->rd_resid;
        memset(&p, 0, sizeof(p));
        p.opcode = roce_rc_transport(qp) | (qp->rd_first ?
                   (last ? ROCE_OP_READ_RESP_ONLY : ROCE_OP_READ_RESP_FIRST) :
                   (last ? ROCE_OP_READ_RESP_LAST : ROCE_OP_READ_RESP_MIDDLE));
        p.pkey = qp->attr.pkey;
        p.dqpn = qp->attr.dest_qpn;
        p.psn = qp->rd_psn;
        p.syn = ROCE_AETH_ACK_UNLIMITED;
        p.msn = qp->msn;
        payload = roce_frame_begin(qp, &qp->attr.av, &p, chunk);
        if (chunk &&
            e->ops->dma(e->opaque, qp, ROCE_MEM_REMOTE_READ, qp->rd_rkey,
                        qp->rd_va, payload, chunk) != ROCE_MEM_OK) {
            /* The memory went away under the READ. */
            qp->rd_active = false;
            roce_resp_ack(qp, ROCE_AETH_NAK | ROCE_NAK_REM_ACCESS,
                          qp->rd_psn);
            roce_qp_set_error(qp);
            return false;
        }
        roce_frame_send(qp);
        qp->rd_va += chunk;
        qp->rd_resid -= chunk;
        qp->rd_psn = roce_psn_add(qp->rd_psn, 1);
        qp->rd_first = false;
        if (last) {
            qp->rd_active = false;
        }
    }
    return false;
}

static void roce_resp_start_read(RoceQP *qp, uint32_t rkey, uint64_t va,
                                 uint32_t len, uint32_t psn)
{
    qp->rd_active = true;
    qp->rd_rkey = rkey;
    qp->rd_va = va;
    qp->rd_resid = len;
    qp->rd_psn = psn;
    qp->rd_first = true;
    roce_resp_run(qp, ROCE_BUDGET);
}

static int roce_resp_read(RoceQP *qp, const RocePkt *pkt)
{
    RoceEngine *e = qp->eng;
    RoceRespRes *res;
    uint32_t n;

    if (!(qp->attr.access & ROCE_ACCESS_REMOTE_READ)) {
        return ROCE_NAK_REM_ACCESS;
    }
    if (pkt->dma_len > ROCE_MAX_MSG) {
        return ROCE_NAK_INVALID_REQ;
    }
    if (pkt->dma_len &&
        e->ops->dma(e->opaque, qp, ROCE_MEM_REMOTE_READ, pkt->rkey, pkt->va,
                    NULL, pkt->dma_len) != ROCE_MEM_OK) {
        return ROCE_NAK_REM_ACCESS;
    }
    n = roce_npkts(pkt->dma_len, qp->attr.pmtu);
    res = roce_resp_new_res(qp);
    res->first_psn = pkt->psn;
    res->last_psn = roce_psn_add(pkt->psn, n - 1);
    res->rkey = pkt->rkey;
    res->va = pkt->va;
    res->len = pkt->dma_len;
    qp->epsn = roce_psn_add(pkt->psn, n);
    qp->msn = (qp->msn + 1) & ROCE_MSN_MASK;
    roce_resp_start_read(qp, pkt->rkey, pkt->va, pkt->dma_len, pkt->psn);
    return ROCE_RESP_OK;
}

static int roce_resp_atomic(RoceQP *qp, const RocePkt *pkt)
{
    RoceEngine *e = qp->eng;
    bool cs = (pkt->opcode & 0x1f) == ROCE_OP_CMP_SWP;
    RoceRespRes *res;
    uint64_t orig = 0;

    if (!(qp->attr.access & ROCE_ACCESS_REMOTE_ATOMIC)) {
        return ROCE_NAK_REM_ACCESS;
    }
    if (pkt->va & 7) {
        return ROCE_NAK_INVALID_REQ;
    }
    if (e->ops->atomic(e->opaque, qp, pkt->rkey, pkt->va, cs, pkt->swap_add,
                       pkt->compare, &orig) != ROCE_MEM_OK) {
        return ROCE_NAK_REM_ACCESS;
    }
    res = roce_resp_new_res(qp);
    res->atomic = true;
    res->first_psn = res->last_psn = pkt->psn;
    res->orig = orig;
    qp->epsn = roce_psn_add(pkt->psn, 1);
    qp->msn = (qp->msn + 1) & ROCE_MSN_MASK;
    roce_resp_send_ack(qp, roce_rc_transport(qp) | ROCE_OP_ATOMIC_ACK,
                       ROCE_AETH_ACK_UNLIMITED, pkt->psn, orig);
    return ROCE_RESP_OK;
}

static void roce_resp_duplicate(RoceQP *qp, const RocePkt *pkt)
{
    RoceRespRes *res;
    uint64_t skip;
    unsigned int i;

    qp->eng->stats.dup_requests++;
    if (pkt->flags & (ROCE_F_SEND | ROCE_F_WRITE)) {
        if (pkt->ackreq) {
            roce_resp_ack(qp, ROCE_AETH_ACK_UNLIMITED,
                          roce_psn_add(qp->epsn, -1));
        }
        return;
    }
    for (i = 0; i < ROCE_MAX_RD_ATOMIC; i++) {
        res = &qp->res[i];
        if (!res->valid || roce_psn_cmp(pkt->psn, res->first_psn) < 0 ||
            roce_psn_cmp(pkt->psn, res->last_psn) > 0) {
            continue;
        }
        if (res->atomic) {
            if ((pkt->flags & ROCE_F_ATOMIC) && pkt->psn == res->first_psn) {
                roce_resp_send_ack(qp, roce_rc_transport(qp) |
                                   ROCE_OP_ATOMIC_ACK,
                                   ROCE_AETH_ACK_UNLIMITED, pkt->psn,
                                   res->orig);
            }
            return;
        }
        if (!(pkt->flags & ROCE_F_READ) || pkt->rkey != res->rkey) {
            return;
        }
        /* The rest of the READ from this PSN on, as first asked. */
        skip = (uint64_t)roce_psn_dist(pkt->psn, res->first_psn) *
               qp->attr.pmtu;
        if (skip > res->len || pkt->va != res->va + skip ||
            pkt->dma_len != res->len - skip) {
            return;
        }
        roce_resp_start_read(qp, res->rkey, pkt->va, pkt->dma_len,
                             pkt->psn);
        return;
    }
}

/* An RC request that cannot be executed: NAK, and the QP to error. */
static void roce_resp_rc_error(RoceQP *qp, const RocePkt *pkt, int code)
{
    roce_resp_ack(qp, ROCE_AETH_NAK | code, pkt->psn);
    roce_qp_set_error(qp);
}

static void roce_resp_rc(RoceQP *qp, const RocePkt *pkt)
{
    RoceEngine *e = qp->eng;
    int32_t diff = roce_psn_cmp(pkt->psn, qp->epsn);
    uint32_t f = pkt->flags;
    int r;

    if (diff > 0) {
        if (!qp->nak_sent) {
            qp->nak_sent = true;
            e->stats.seq_naks_sent++;
            roce_resp_ack(qp, ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ, qp->epsn);
        }
        return;
    }
    if (diff < 0) {
        roce_resp_duplicate(qp, pkt);
        return;
    }
    qp->nak_sent = false;

    /* The opcode sequence (IBTA 9.7.5.1.1 class C errors). */
    if (qp->in_send) {
        if (!(f & ROCE_F_SEND) || (f & ROCE_F_FIRST)) {
            roce_resp_rc_error(qp, pkt, ROCE_NAK_INVALID_REQ);
            return;
        }
    } else if (qp->in_write) {
        if (!(f & ROCE_F_WRITE) || (f & ROCE_F_FIRST)) {
            roce_resp_rc_error(qp, pkt, ROCE_NAK_INVALID_REQ);
            return;
        }
    } else if (!(f & ROCE_F_FIRST)) {
        roce_resp_rc_error(qp, pkt, ROCE_NAK_INVALID_REQ);
        return;
    }

    if (f & ROCE_F_READ) {
        r = roce_resp_read(qp, pkt);
    } else if (f & ROCE_F_ATOMIC) {
        r = roce_resp_atomic(qp, pkt);
    } else {
        r = f & ROCE_F_SEND ? roce_resp_send(qp, pkt) :
                              roce_resp_write(qp, pkt);
        if (r == ROCE_RESP_OK) {
            qp->epsn = roce_psn_add(pkt->psn, 1);
            if (pkt->ackreq) {
                roce_resp_ack(qp, ROCE_AETH_ACK_UNLIMITED, pkt->psn);
            }
        }
    }
    if (r == ROCE_RESP_RNR) {
        e->stats.rnr_naks_sent++;
        roce_resp_ack(qp, ROCE_AETH_RNR_NAK | qp->attr.min_rnr_timer,
                      pkt->psn);
    } else if (r > 0) {
        roce_resp_rc_error(qp, pkt, r);
    }
}

static void roce_resp_uc(RoceQP *qp, const RocePkt *pkt)
{
    uint32_t f = pkt->flags;
    int r;

    if (pkt->psn != qp->epsn) {
        /* Packets were lost: what was in progress is dropped. */
        qp->in_send = qp->in_write = false;
        qp->recv_off = 0;
        qp->uc_drop = true;
    }
    qp->epsn = roce_psn_add(pkt->psn, 1);
    if (qp->uc_drop) {
        if (!(f & ROCE_F_FIRST)) {
            return;
        }
        qp->uc_drop = false;
    }
    if ((qp->in_send && (!(f & ROCE_F_SEND) || (f & ROCE_F_FIRST))) ||
        (qp->in_write && (!(f & ROCE_F_WRITE) || (f & ROCE_F_FIRST))) ||
        (!qp->in_send && !qp->in_write && !(f & ROCE_F_FIRST))) {
        r = ROCE_RESP_DROP;
    } else {
        r = f & ROCE_F_SEND ? roce_resp_send(qp, pkt) :
                              roce_resp_write(qp, pkt);
    }
    if (r != ROCE_RESP_OK) {
        /* No answers on UC: the rest of the message is dropped. */
        qp->in_send = qp->in_write = false;
        qp->recv_off = 0;
        qp->uc_drop = !(f & ROCE_F_LAST);
    }
}

static void roce_resp_ud(RoceQP *qp, const RocePkt *pkt)
{
    RoceEngine *e = qp->eng;
    uint32_t want = qp->attr.type == ROCE_QPT_GSI ? ROCE_GSI_QKEY :
                                                    qp->attr.qkey;
    uint8_t grh[ROCE_GRH_LEN];
    RoceCompletion c;
    uint64_t room;
    int r;

    if (pkt->qkey != want || pkt->paylen > qp->attr.pmtu) {
        e->stats.rx_dropped++;
        return;
    }
    r = roce_resp_get_rwr(qp);
    if (r <= 0) {
        e->stats.ud_no_recv++;
        return;
    }
    memset(grh, 0, sizeof(grh));
    memcpy(grh + ROCE_GRH_LEN - pkt->iplen, pkt->ip, pkt->iplen);

    memset(&c, 0, sizeof(c));
    c.recv = true;
    c.wr_id = qp->rwr.wr_id;
    c.opcode = ROCE_WC_RECV;
    c.byte_len = ROCE_GRH_LEN + pkt->paylen;
    c.src_qp = pkt->sqpn;
    c.flags = ROCE_WC_GRH | (pkt->ipv6 ? ROCE_WC_IPV6 : 0) |
              (pkt->vlan_valid ? ROCE_WC_VLAN : 0);
    c.vlan = pkt->vlan;
    memcpy(c.smac, pkt->smac, 6);
    if (pkt->flags & ROCE_F_IMM) {
        c.flags |= ROCE_WC_WITH_IMM;
        c.imm = pkt->imm;
    }
    room = roce_sge_len(qp->rwr.sge, qp->rwr.num_sge);
    if (room < c.byte_len) {
        c.status = ROCE_WC_LOC_LEN_ERR;
    } else if (roce_sge_copy(qp, qp->rwr.sge, qp->rwr.num_sge, 0, grh,
                             ROCE_GRH_LEN, ROCE_MEM_SCATTER) ||
               (pkt->paylen &&
                roce_sge_copy(qp, qp->rwr.sge, qp->rwr.num_sge, ROCE_GRH_LEN,
                              (uint8_t *)pkt->payload, pkt->paylen,
                              ROCE_MEM_SCATTER))) {
        c.status = ROCE_WC_LOC_PROT_ERR;
    }
    qp->has_rwr = false;
    roce_complete(qp, &c);
}

void roce_resp_rx(RoceQP *qp, const RocePkt *pkt)
{
    /* Responses leave in order: a READ being answered goes first. */
    if (qp->rd_active) {
        roce_resp_run(qp, UINT32_MAX);
        if (qp->attr.state == ROCE_QPS_ERR) {
            return;
        }
    }
    switch (qp->attr.type) {
    case ROCE_QPT_RC:
        /* An XRC target receives into the SRQ each request names. */
        qp->xrc_srqn = pkt->xrc_srqn;
        roce_resp_rc(qp, pkt);
        break;
    case ROCE_QPT_UC:
        roce_resp_uc(qp, pkt);
        break;
    default:
        if (pkt->flags & ROCE_F_DETH) {
            roce_resp_ud(qp, pkt);
        }
        break;
    }
}

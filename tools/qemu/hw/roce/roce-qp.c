/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoCEv2 engine: a QP's life (state changes, the flush of a QP in
 * error, its one timer) and the demultiplexing of received frames to
 * the requester (responses) or the responder (requests), a multicast
 * datagram to each QP attached to its group.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "roce-osdep.h"
#include "roce-int.h"

void roce_engine_init(RoceEngine *e, const RoceOps *ops, void *opaque)
{
    memset(e, 0, sizeof(*e));
    e->ops = ops;
    e->opaque = opaque;
}

int64_t roce_now(RoceQP *qp)
{
    return qp->eng->ops->now_ns(qp->eng->opaque);
}

void roce_complete(RoceQP *qp, const RoceCompletion *c)
{
    qp->eng->ops->complete(qp->eng->opaque, qp, c);
}

uint64_t roce_sge_len(const RoceSGE *sge, uint32_t num)
{
    uint64_t len = 0;
    uint32_t i;

    for (i = 0; i < num; i++) {
        len += sge[i].length;
    }
    return len;
}

int roce_sge_copy(RoceQP *qp, const RoceSGE *sge, uint32_t num,
                  uint32_t off, uint8_t *buf, uint32_t len, RoceMemOp op)
{
    RoceEngine *e = qp->eng;
    uint32_t i, n;

    for (i = 0; i < num && len; i++) {
        if (off >= sge[i].length) {
            off -= sge[i].length;
            continue;
        }
        n = ROCE_MIN(sge[i].length - off, len);
        if (e->ops->dma(e->opaque, qp, op, sge[i].lkey, sge[i].addr + off,
                        buf, n) != ROCE_MEM_OK) {
            return -1;
        }
        buf += n;
        len -= n;
        off = 0;
    }
    return len ? -2 : 0;
}

/* The QP's one timer: the earlier of the RNR wait and the retransmit. */
void roce_qp_update_timer(RoceQP *qp)
{
    RoceEngine *e = qp->eng;
    int64_t t = INT64_MAX;

    if (qp->rnr_wait) {
        t = qp->rnr_deadline;
    }
    if (qp->retrans_armed && qp->retrans_deadline < t) {
        t = qp->retrans_deadline;
    }
    if (t == INT64_MAX) {
        e->ops->timer_del(e->opaque, qp);
    } else {
        e->ops->timer_mod(e->opaque, qp, t);
    }
}

static void roce_qp_flush(RoceQP *qp)
{
    qp->rnr_wait = false;
    qp->retrans_armed = false;
    qp->rd_active = false;
    roce_qp_update_timer(qp);
    roce_req_flush(qp);
    roce_resp_flush(qp);
}

/* An error the engine found: the QP goes to ERR, its queues flush. */
void roce_qp_set_error(RoceQP *qp)
{
    if (qp->attr.state == ROCE_QPS_ERR) {
        return;
    }
    qp->attr.state = ROCE_QPS_ERR;
    roce_qp_flush(qp);
    qp->eng->ops->qp_error(qp->eng->opaque, qp);
}

void roce_qp_init(RoceQP *qp, RoceEngine *e, void *opaque)
{
    memset(qp, 0, sizeof(*qp));
    qp->eng = e;
    qp->opaque = opaque;
    qp->attr.state = ROCE_QPS_RESET;
    qp->attr.pmtu = 1024;
}

static uint32_t roce_valid_mtu(uint32_t mtu)
{
    uint32_t m;

    for (m = 256; m <= ROCE_MAX_MTU; m <<= 1) {
        if (mtu == m) {
            return m;
        }
    }
    return 1024;
}

void roce_qp_modify(RoceQP *qp, const RoceQPAttr *attr)
{
    RoceQPState old = qp->attr.state;
    RoceQPAttr *a = &qp->attr;

    *a = *attr;
    a->qpn &= 0xffffff;
    a->dest_qpn &= 0xffffff;
    a->sq_psn &= ROCE_PSN_MASK;
    a->rq_psn &= ROCE_PSN_MASK;
    a->pmtu = roce_valid_mtu(a->pmtu);
    a->retry_cnt &= 7;
    a->rnr_retry &= 7;
    a->min_rnr_timer &= 0x1f;
    if (a->timeout > 31) {
        a->timeout = 31;
    }
    if (!a->pkey) {
        a->pkey = 0xffff;
    }
    /* One UDP source port per QP, in the ephemeral range (as rxe). */
    qp->sport = a->av.udp_sport ? a->av.udp_sport :
                0xc000 | ((a->qpn * 0x9e3779b1u) >> 18);

    switch (a->state) {
    case ROCE_QPS_RESET:
        roce_req_reset(qp);
        roce_resp_reset(qp);
        qp->eng->ops->timer_del(qp->eng->opaque, qp);
        /* A bottom half the front end dropped: the next one is asked. */
        qp->scheduled = false;
        return;
    case ROCE_QPS_ERR:
        if (old != ROCE_QPS_ERR) {
            roce_qp_flush(qp);
        }
        return;
    case ROCE_QPS_RTR:
        if (old != ROCE_QPS_RTR) {
            qp->epsn = a->rq_psn;
        }
        return;
    case ROCE_QPS_RTS:
        if (old == ROCE_QPS_RTR || old == ROCE_QPS_INIT) {
            qp->req_psn = a->sq_psn;
            qp->comp_psn = a->sq_psn;
            qp->psn_hi = a->sq_psn;
            qp->retry_left = a->retry_cnt;
            qp->rnr_left = a->rnr_retry;
        }
        roce_req_run(qp);
        return;
    default:
        return;
    }
}

void roce_qp_destroy(RoceQP *qp)
{
    qp->eng->ops->timer_del(qp->eng->opaque, qp);
    qp->attr.state = ROCE_QPS_RESET;
}

void roce_qp_sq_doorbell(RoceQP *qp, uint32_t sq_pi)
{
    qp->sq_pi = sq_pi;
    if (qp->attr.state == ROCE_QPS_ERR) {
        roce_req_flush(qp);
        return;
    }
    roce_req_run(qp);
}

void roce_qp_rq_doorbell(RoceQP *qp)
{
    if (qp->attr.state == ROCE_QPS_ERR) {
        roce_resp_flush(qp);
    }
}

void roce_qp_process(RoceQP *qp)
{
    qp->scheduled = false;
    if (qp->attr.state == ROCE_QPS_ERR || qp->attr.state == ROCE_QPS_RESET) {
        return;
    }
    if (qp->rd_active && roce_resp_run(qp, ROCE_BUDGET)) {
        return;
    }
    roce_req_run(qp);
}

void roce_qp_timer(RoceQP *qp)
{
    if (qp->attr.state == ROCE_QPS_ERR || qp->attr.state == ROCE_QPS_RESET) {
        return;
    }
    roce_req_timer(qp, roce_now(qp));
}

/* A connected QP takes packets from its peer's address only. */
static bool roce_from_peer(const RoceQP *qp, const RocePkt *pkt)
{
    const RoceAV *av = &qp->attr.av;

    if (pkt->ipv6 != av->ipv6) {
        return false;
    }
    if (pkt->ipv6) {
        return !memcmp(pkt->sgid, av->dgid, 16);
    }
    return !memcmp(pkt->sgid + 12, av->dgid + 12, 4);
}

/*
 * A datagram to a multicast group: one copy to each UD QP attached to
 * the group of its destination GID (a GSI QP takes no multicast), each
 * checked as if it were addressed to that QP alone.
 */
static void roce_rx_mcast(RoceEngine *e, const RocePkt *pkt)
{
    RoceQP *qps[ROCE_MCAST_MAX];
    unsigned int n, i;

    if ((pkt->opcode & 0xe0) != ROCE_OP_UD || !e->ops->lookup_mcast) {
        e->stats.rx_dropped++;
        return;
    }
    n = e->ops->lookup_mcast(e->opaque, pkt->dgid, qps, ROCE_MCAST_MAX);
    n = ROCE_MIN(n, ROCE_MCAST_MAX);
    if (!n) {
        e->stats.rx_no_qp++;
        e->stats.rx_dropped++;
        return;
    }
    for (i = 0; i < n; i++) {
        RoceQP *qp = qps[i];

        if (!qp || qp->eng != e || qp->attr.type != ROCE_QPT_UD ||
            qp->attr.state < ROCE_QPS_RTR || qp->attr.state == ROCE_QPS_ERR) {
            e->stats.rx_dropped++;
            continue;
        }
        e->stats.rx_mcast++;
        roce_resp_rx(qp, pkt);
    }
}

void roce_engine_rx(RoceEngine *e, const uint8_t *frame, size_t len)
{
    RocePkt pkt;
    RoceQP *qp;
    bool ok;

    e->stats.rx_packets++;
    if (roce_parse(e, frame, len, &pkt) < 0) {
        e->stats.rx_malformed++;
        e->stats.rx_dropped++;
        return;
    }
    /* One partition, the default (either membership). */
    if ((pkt.pkey & 0x7fff) != 0x7fff) {
        e->stats.rx_dropped++;
        return;
    }
    if (pkt.dqpn == ROCE_MCAST_QPN) {
        roce_rx_mcast(e, &pkt);
        return;
    }
    qp = e->ops->lookup_qp(e->opaque, pkt.dqpn);
    if (!qp || qp->eng != e) {
        e->stats.rx_no_qp++;
        e->stats.rx_dropped++;
        return;
    }
    switch (pkt.opcode & 0xe0) {
    case ROCE_OP_RC:
        ok = qp->attr.type == ROCE_QPT_RC && !qp->attr.xrc &&
             roce_from_peer(qp, &pkt);
        break;
    case ROCE_OP_UC:
        ok = qp->attr.type == ROCE_QPT_UC && roce_from_peer(qp, &pkt);
        break;
    case ROCE_OP_XRC:
        /* Requests to a target, responses to an initiator. */
        ok = qp->attr.type == ROCE_QPT_RC && roce_from_peer(qp, &pkt) &&
             qp->attr.xrc == (pkt.flags & ROCE_F_RESPONSE ? ROCE_XRC_INI :
                                                           ROCE_XRC_TGT);
        break;
    default:
        ok = roce_qp_is_ud(qp);
        break;
    }
    if (!ok || qp->attr.state < ROCE_QPS_RTR ||
        qp->attr.state == ROCE_QPS_ERR) {
        e->stats.rx_dropped++;
        return;
    }
    if (pkt.flags & ROCE_F_RESPONSE) {
        roce_req_rx(qp, &pkt);
    } else {
        roce_resp_rx(qp, &pkt);
    }
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the RoCE data path's QPs.  Each RC or UD QP (irdma's GSI
 * QP is UD QP 1) gets an E810RoceQp at CREATE_QP; every MODIFY_QP
 * decodes the 256-byte context the driver gave into the engine's
 * RoceQPAttr; the send doorbell walks the SQ; the engine's callbacks
 * fetch send WQEs, take receive WQEs and complete them into CQEs.
 *
 * The context (irdma_sc_qp_setctx_roce): quadword 0 the RQ WQE size
 * (9:8, 32 << n bytes), IPv4 (3), VLAN insertion (5), the PD's high
 * bits (21:20); 1 and 2 the SQ and RQ (guest addresses, or PBLE indices
 * when the command's VQ bit is set: level-1 lists of 4 KiB pages);
 * 3 TTL (7:0), RQ and SQ sizes (11:8, 15:12: 4 << n quanta), TOS
 * (31:24), UDP source port (47:32); 4 and 5 the destination address,
 * 23 and 24 the local one (four host-order words, an IPv4 address in
 * the last); 6 the path MTU in bytes (29:16), VLAN tag (47:32), the ARP
 * entry of the next hop (63:48); 7 flow label (19:0), PD (63:48);
 * 8 destination QP (23:0), Q_Key (63:32); 10 and 11 the send and
 * expected PSNs; 16 retry and RNR retry counts (53:48, 56:54); 17 the
 * send and receive CQs (18:0, 50:32); 19 the source MAC (63:16);
 * 20 the ORD (7:0), remote write and read allowed (20, 21), fast
 * registration (24), privileged (25); 21 the completion context.
 * The command's header gives the type (RC 3, UD 4) and the next state
 * (1 idle, 4 RTR, 2 RTS, 3 SQD, 5 terminate, 6 error).  Nothing in the
 * context gives an ACK timeout or an RNR timer: the model picks them.
 *
 * The SQ: irdma rings the doorbell (the QP's ID to PFPE_WQEALLOC or
 * the user doorbell page) only when the shadow area's hw_sq_tail lies
 * among the WQEs it just posted.  So each time the walk stops it writes
 * the first quantum it did not take there, then looks at that quantum
 * again and goes on if it became valid meanwhile.  The engine numbers
 * WQEs one by one and takes at most its window: a walk that stops on
 * a full window goes on by itself as completions free slots
 * (e810_roce_kick).  The RQ has no doorbell: the engine takes a WQE
 * when a message needs one, by its valid bit.
 *
 * Completions: a send CQE names its WQE by its first quantum (irdma
 * retires the unsignaled ones before it), a receive CQE by its RQ
 * index times the WQE's quanta.  An error CQE (major 1, a flush) makes
 * irdma drain its whole queue from its own tail, so only the first of a
 * queue is written.  A UD receive's own error (the QP stays usable)
 * completes that WQE alone, with a code irdma reports as a general
 * error.
 *
 * Facts: irdma ctrl.c (irdma_sc_qp_setctx_roce, irdma_sc_qp_create,
 * irdma_sc_qp_init's encoded sizes, irdma_get_encoded_wqe_size), verbs.c
 * (irdma_modify_qp_roce, irdma_roce_fill_and_set_qpctx_info,
 * irdma_setup_virt_qp, irdma_handle_q_mem, irdma_create_qp: the GSI QP
 * is 1, irdma_setup_ah), uk.c (irdma_uk_qp_post_wr, irdma_uk_cq_poll_cmpl),
 * uda.c (irdma_sc_access_ah), uda_d.h, defs.h (IRDMAQPC_*, IRDMA_QP_STATE_*,
 * IRDMA_QP_TYPE_*).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "e810.h"
#include "e810-roce-int.h"
#include "trace.h"

/* The context's quadwords, by byte offset. */
#define QPC_Q0          0
#define QPC_SQ          8
#define QPC_RQ          16
#define QPC_UDP         24
#define QPC_DIP23       32
#define QPC_DIP01       40
#define QPC_PATH        48
#define QPC_PD          56
#define QPC_QKEY        64
#define QPC_PSN         80
#define QPC_EPSN        88
#define QPC_RETRY       128
#define QPC_CQS         136
#define QPC_MAC         152
#define QPC_RIGHTS      160
#define QPC_COMPL       168
#define QPC_LIP23       184
#define QPC_LIP01       192

#define QPC_IPV4        BIT_ULL(3)
#define QPC_VLAN        BIT_ULL(5)
#define QPC_RDOK        BIT_ULL(21)
#define QPC_WROK        BIT_ULL(20)
#define QPC_FASTREG     BIT_ULL(24)
#define QPC_PRIV        BIT_ULL(25)

#define QP_TYPE_ROCE_RC 3
#define QP_TYPE_ROCE_UD 4
#define QP_GSI_ID       1
#define QP_STATE_ERROR  6

/* The largest SQ and RQ size codes the model takes (4 << n quanta). */
#define WQ_MAX_CODE     15

/* What the context does not say. */
#define ROCE_ACK_TIMEOUT        17      /* 4.096 us << 17: 0.5 s */
#define ROCE_MIN_RNR_TIMER      12      /* 0.64 ms */

/* The address handle WQE (irdma_sc_access_ah). */
#define AH_HDR_IPV4     BIT_ULL(59)
#define AH_HDR_VLAN     BIT_ULL(60)

static E810RoceQp *roce_qp(RoceQP *rqp)
{
    return container_of(rqp, E810RoceQp, rqp);
}

static uint64_t qpc(const E810PeQp *qp, unsigned int off)
{
    return ldq_le_p(qp->ctx + off);
}

static bool wq_read(E810State *s, const E810PeRing *r, uint64_t off,
                    void *buf, size_t len)
{
    uint64_t pa;

    return e810_pe_ring_addr(s, r, off, &pa) && e810_dma_read(s, pa, buf, len);
}

static bool sq_read(void *opaque, uint64_t off, void *buf, size_t len)
{
    E810RoceQp *r = opaque;

    return wq_read(r->s, &r->sq_ring, off, buf, len);
}

static bool rq_read(void *opaque, uint64_t off, void *buf, size_t len)
{
    E810RoceQp *r = opaque;

    return wq_read(r->s, &r->rq_ring, off, buf, len);
}

static void mac_from_u64(uint8_t *mac, uint64_t v)
{
    int i;

    for (i = 0; i < 6; i++) {
        mac[i] = v >> (40 - 8 * i);
    }
}

/* Four host-order words (an IPv4 address in the last) as a GID. */
static void ip_to_gid(const uint32_t *w, bool ipv4, uint8_t *gid)
{
    int i;

    memset(gid, 0, 16);
    if (ipv4) {
        gid[10] = gid[11] = 0xff;
        stl_be_p(gid + 12, w[3]);
        return;
    }
    for (i = 0; i < 4; i++) {
        stl_be_p(gid + 4 * i, w[i]);
    }
}

/* The two quadwords of an address: words 0 and 1, then 2 and 3. */
static void ip_words(uint64_t q01, uint64_t q23, uint32_t *w)
{
    w[0] = q01 >> 32;
    w[1] = q01;
    w[2] = q23 >> 32;
    w[3] = q23;
}

static bool arp_mac(E810Pe *pe, unsigned int idx, uint8_t *mac)
{
    if (idx >= E810_PE_MAX_ARP || !(pe->arp[idx] & E810_PE_ARP_VALID)) {
        return false;
    }
    mac_from_u64(mac, pe->arp[idx]);
    return true;
}

/* A UD WQE's address handle as the engine's path. */
static bool ah_av(E810State *s, uint32_t ah_id, RoceAV *av)
{
    const uint8_t *w = g_hash_table_lookup(s->pe->ahs,
                                           GUINT_TO_POINTER(ah_id));
    uint64_t hdr, q1, q2;
    uint32_t ip[4];
    bool ipv4;

    if (!w) {
        return false;
    }
    hdr = e810_wqe_hdr(w);
    q1 = e810_wqe_q(w, 1);
    q2 = e810_wqe_q(w, 2);
    memset(av, 0, sizeof(*av));
    if (!arp_mac(s->pe, extract64(q2, 48, 16), av->dmac)) {
        return false;
    }
    mac_from_u64(av->smac, e810_wqe_q(w, 0) >> 16);
    ipv4 = hdr & AH_HDR_IPV4;
    av->ipv6 = !ipv4;
    ip_words(e810_wqe_q(w, 5), e810_wqe_q(w, 4), ip);
    ip_to_gid(ip, ipv4, av->dgid);
    ip_words(e810_wqe_q(w, 7), e810_wqe_q(w, 6), ip);
    ip_to_gid(ip, ipv4, av->sgid);
    av->vlan_valid = hdr & AH_HDR_VLAN;
    av->vlan = extract64(q1, 0, 16);
    av->tclass = extract64(q1, 32, 8);
    av->hop_limit = extract64(q2, 32, 8);
    av->flow_label = extract64(q2, 0, 20);
    return true;
}

static RoceQPState roce_state(uint8_t next)
{
    switch (next) {
    case 0:
        return ROCE_QPS_RESET;
    case 1:
        return ROCE_QPS_INIT;
    case 2:
        return ROCE_QPS_RTS;
    case 3:
        return ROCE_QPS_SQD;
    case 4:
        return ROCE_QPS_RTR;
    default:
        return ROCE_QPS_ERR;
    }
}

/* The largest engine MTU within what the context says. */
static uint32_t roce_pmtu(uint32_t mss)
{
    uint32_t mtu = 4096;

    while (mtu > 256 && mtu > mss) {
        mtu >>= 1;
    }
    return mss ? mtu : 1024;
}

static void roce_path(E810State *s, const E810PeQp *qp, RoceAV *av)
{
    bool ipv4 = qpc(qp, QPC_Q0) & QPC_IPV4;
    uint64_t udp = qpc(qp, QPC_UDP);
    uint32_t ip[4];

    memset(av, 0, sizeof(*av));
    mac_from_u64(av->smac, qpc(qp, QPC_MAC) >> 16);
    if (!arp_mac(s->pe, extract64(qpc(qp, QPC_PATH), 48, 16), av->dmac) &&
        qp->state == 4) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: QP to RTR without a valid "
                      "ARP entry\n");
    }
    av->ipv6 = !ipv4;
    ip_words(qpc(qp, QPC_DIP01), qpc(qp, QPC_DIP23), ip);
    ip_to_gid(ip, ipv4, av->dgid);
    ip_words(qpc(qp, QPC_LIP01), qpc(qp, QPC_LIP23), ip);
    ip_to_gid(ip, ipv4, av->sgid);
    av->vlan_valid = qpc(qp, QPC_Q0) & QPC_VLAN;
    av->vlan = extract64(qpc(qp, QPC_PATH), 32, 16);
    av->udp_sport = extract64(udp, 32, 16);
    av->hop_limit = extract64(udp, 0, 8);
    av->tclass = extract64(udp, 24, 8);
    av->flow_label = extract64(qpc(qp, QPC_PD), 0, 20);
}

static void roce_attr(E810State *s, uint32_t id, const E810PeQp *qp,
                      RoceQPAttr *a)
{
    uint64_t rights = qpc(qp, QPC_RIGHTS), retry = qpc(qp, QPC_RETRY);

    memset(a, 0, sizeof(*a));
    a->state = roce_state(qp->state);
    a->type = qp->type == QP_TYPE_ROCE_RC ? ROCE_QPT_RC :
              id == QP_GSI_ID ? ROCE_QPT_GSI : ROCE_QPT_UD;
    a->qpn = id;
    a->dest_qpn = extract64(qpc(qp, QPC_QKEY), 0, 24);
    a->qkey = qpc(qp, QPC_QKEY) >> 32;
    a->sq_psn = extract64(qpc(qp, QPC_PSN), 0, 24);
    a->rq_psn = extract64(qpc(qp, QPC_EPSN), 0, 24);
    a->pmtu = roce_pmtu(extract64(qpc(qp, QPC_PATH), 16, 14));
    a->access = (rights & QPC_WROK ? ROCE_ACCESS_REMOTE_WRITE : 0) |
                (rights & QPC_RDOK ? ROCE_ACCESS_REMOTE_READ : 0);
    a->pkey = extract64(qpc(qp, QPC_PD), 32, 16);
    a->retry_cnt = MIN(extract64(retry, 48, 6), 7);
    a->rnr_retry = extract64(retry, 54, 3);
    a->timeout = ROCE_ACK_TIMEOUT;
    a->min_rnr_timer = ROCE_MIN_RNR_TIMER;
    a->max_rd_atomic = MAX(MIN(extract64(rights, 0, 8), ROCE_MAX_RD_ATOMIC),
                           1);
    a->max_dest_rd_atomic = ROCE_MAX_RD_ATOMIC;
    if (a->type == ROCE_QPT_RC) {
        roce_path(s, qp, &a->av);
    }
}

/* The queues, CQs and keys of the context: false if they make no sense. */
static bool roce_queues(E810RoceQp *r, const E810PeQp *qp)
{
    uint64_t q0 = qpc(qp, QPC_Q0), udp = qpc(qp, QPC_UDP);
    unsigned int sq_code = extract64(udp, 12, 4);
    unsigned int rq_code = extract64(udp, 8, 4);
    uint32_t rq_stride = E810_WQE_QUANTUM << extract64(q0, 8, 2);
    uint32_t rq_quanta = 4u << rq_code;
    E810PeRing *sq = &r->sq_ring, *rq = &r->rq_ring;

    if (sq_code > WQ_MAX_CODE || rq_code > WQ_MAX_CODE ||
        rq_quanta < rq_stride / E810_WQE_QUANTUM) {
        return false;
    }
    memset(sq, 0, sizeof(*sq));
    sq->virt = qp->virt;
    sq->pbl_level = 1;
    if (qp->virt) {
        if (qpc(qp, QPC_SQ) > UINT32_MAX || qpc(qp, QPC_RQ) > UINT32_MAX) {
            return false;
        }
        sq->first_pble = qpc(qp, QPC_SQ);
    } else {
        sq->pa = qpc(qp, QPC_SQ);
    }
    *rq = *sq;
    rq->pa = qp->virt ? 0 : qpc(qp, QPC_RQ);
    rq->first_pble = qp->virt ? qpc(qp, QPC_RQ) : 0;
    sq->size = 4u << sq_code;
    sq->stride = E810_WQE_QUANTUM;
    rq->size = rq_quanta / (rq_stride / E810_WQE_QUANTUM);
    rq->stride = rq_stride;
    r->sq = (E810WqRing) { sq_read, r, sq->size, sq->stride };
    r->rq = (E810WqRing) { rq_read, r, rq->size, rq->stride };

    r->shadow_pa = qp->shadow_pa;
    r->compl_ctx = qpc(qp, QPC_COMPL);
    r->scq = extract64(qpc(qp, QPC_CQS), 0, 19);
    r->rcq = extract64(qpc(qp, QPC_CQS), 32, 19);
    r->pd = extract64(qpc(qp, QPC_PD), 48, 16) |
            extract64(q0, 20, 2) << 16;
    r->priv = qpc(qp, QPC_RIGHTS) & QPC_PRIV;
    r->fast_reg = qpc(qp, QPC_RIGHTS) & QPC_FASTREG;
    return true;
}

static void roce_qp_timer_cb(void *opaque)
{
    E810RoceQp *r = opaque;
    bool was = e810_roce_guard(r->s);

    roce_qp_timer(&r->rqp);
    e810_roce_kick(r->s);
    e810_roce_unguard(r->s, was);
}

static void roce_qp_bh(void *opaque)
{
    E810RoceQp *r = opaque;

    roce_qp_process(&r->rqp);
    e810_roce_kick(r->s);
}

/* Tell the driver how far the walk got (the doorbell shadow area). */
static void sq_shadow(E810RoceQp *r)
{
    uint64_t v = cpu_to_le64(e810_roce_qp_shadow(r->walk_q));

    if (r->shadow_pa) {
        e810_dma_write(r->s, r->shadow_pa, &v, sizeof(v));
    }
}

static void sq_set_stalled(E810RoceQp *r, bool stalled)
{
    E810Roce *ro = r->s->pe->roce;

    if (stalled != r->stalled) {
        r->stalled = stalled;
        if (stalled) {
            ro->stalled++;
        } else {
            ro->stalled--;
        }
    }
}

/* Number the valid WQEs from the walk's position on; false: broken. */
static bool sq_take(E810RoceQp *r)
{
    uint8_t wqe[E810_SQ_WQE_MAX];
    unsigned int quanta;
    E810SqSlot *slot;
    int rc;

    while (r->walk_idx - r->rqp.sq_ci < E810_ROCE_SQ_SLOTS) {
        rc = e810_roce_sq_read(&r->sq, r->walk_q, r->walk_pol, wqe, &quanta);
        if (rc <= 0) {
            return rc == 0;
        }
        slot = &r->slot[r->walk_idx % E810_ROCE_SQ_SLOTS];
        slot->quantum = r->walk_q;
        slot->quanta = quanta;
        slot->op = extract64(ldq_le_p(wqe + 24), 32, 6);
        slot->polarity = r->walk_pol;
        e810_roce_wq_advance(&r->sq, &r->walk_q, &r->walk_pol, quanta);
        r->walk_idx++;
    }
    return true;
}

/* Walk the SQ as far as it goes, then tell the engine. */
static void sq_walk(E810RoceQp *r)
{
    uint8_t wqe[E810_SQ_WQE_MAX];
    unsigned int quanta;

    if (!r->sq.size) {
        return;
    }
    for (;;) {
        if (!sq_take(r)) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: QP %u: broken SQ WQE at "
                          "quantum %u\n", r->id, r->walk_q);
            break;
        }
        sq_shadow(r);
        if (r->walk_idx - r->rqp.sq_ci >= E810_ROCE_SQ_SLOTS) {
            break;
        }
        /* Posted after the look and before the shadow write? */
        if (e810_roce_sq_read(&r->sq, r->walk_q, r->walk_pol, wqe,
                              &quanta) != 1) {
            break;
        }
    }
    sq_set_stalled(r, r->walk_idx - r->rqp.sq_ci >= E810_ROCE_SQ_SLOTS);
    trace_e810_roce_doorbell(r->id, r->walk_q, r->walk_idx, r->stalled);
    roce_qp_sq_doorbell(&r->rqp, r->walk_idx);
    roce_qp_rq_doorbell(&r->rqp);
}

static void roce_walk_bh(void *opaque)
{
    E810RoceQp *r = opaque;

    if (r->rqp.attr.state != ROCE_QPS_RESET) {
        sq_walk(r);
    }
}

void e810_roce_sq_doorbell(E810State *s, uint32_t qpid)
{
    E810PeQp *qp = qpid < E810_PE_MAX_QPS ? s->pe->qp[qpid] : NULL;

    if (!qp || !qp->roce) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: doorbell of QP %u: none\n",
                      qpid);
        return;
    }
    if (qp->roce->rqp.attr.state == ROCE_QPS_RESET) {
        return;
    }
    sq_walk(qp->roce);
}

int e810_roce_fetch_send(void *opaque, RoceQP *rqp, uint32_t index,
                         RoceSendWR *wr)
{
    E810RoceQp *r = roce_qp(rqp);
    const E810SqSlot *slot = &r->slot[index % E810_ROCE_SQ_SLOTS];
    uint8_t wqe[E810_SQ_WQE_MAX];
    unsigned int quanta;
    E810SqWqe info;
    int st;

    if (index - rqp->sq_ci >= E810_ROCE_SQ_SLOTS ||
        e810_roce_sq_read(&r->sq, slot->quantum, slot->polarity, wqe,
                          &quanta) != 1 || quanta != slot->quanta) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    wr->wr_id = index;
    st = e810_roce_sq_decode(wqe, quanta, wr, &info);
    if (st) {
        return st;
    }
    if (r->ud && wr->opcode != ROCE_WR_LOCAL) {
        if ((wr->opcode != ROCE_WR_SEND && wr->opcode != ROCE_WR_SEND_IMM) ||
            !ah_av(r->s, info.ah_id, &wr->av)) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: QP %u: UD WQE with "
                          "address handle %u\n", r->id, info.ah_id);
            return ROCE_WC_LOC_QP_OP_ERR;
        }
    }
    return 0;
}

int e810_roce_take_recv(void *opaque, RoceQP *rqp, RoceRecvWR *wr,
                        bool flush)
{
    E810RoceQp *r = roce_qp(rqp);
    int rc;

    if (!r->rq.size) {
        return 0;
    }
    rc = e810_roce_rq_fetch(&r->rq, r->rq_idx, r->rq_pol, wr);
    if (rc == 1) {
        wr->wr_id = r->rq_idx;
        e810_roce_wq_advance(&r->rq, &r->rq_idx, &r->rq_pol, 1);
    }
    return rc;
}

int e810_roce_local_op(void *opaque, RoceQP *rqp, const RoceSendWR *wr)
{
    E810RoceQp *r = roce_qp(rqp);
    const E810SqSlot *slot = &r->slot[wr->wr_id % E810_ROCE_SQ_SLOTS];
    g_autofree RoceSendWR *w = g_new0(RoceSendWR, 1);
    uint8_t wqe[E810_SQ_WQE_MAX];
    unsigned int quanta;
    E810SqWqe info;

    if (e810_roce_sq_read(&r->sq, slot->quantum, slot->polarity, wqe,
                          &quanta) != 1 ||
        e810_roce_sq_decode(wqe, quanta, w, &info)) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    switch (info.op) {
    case E810_WQE_OP_NOP:
        return 0;
    case E810_WQE_OP_FAST_REG:
        if (!r->fast_reg) {
            return ROCE_WC_LOC_QP_OP_ERR;
        }
        return e810_stag_fast_reg(r->s, r->pd, &info.fr);
    case E810_WQE_OP_LOCAL_INV:
        return e810_stag_invalidate(r->s, r->pd, info.inv_stag) ?
               ROCE_WC_LOC_PROT_ERR : 0;
    case E810_WQE_OP_BIND_MW:
        return e810_stag_bind(r->s, r->pd, &info.bind);
    default:
        qemu_log_mask(LOG_UNIMP, "e810: QP %u: send WQE opcode 0x%x\n",
                      r->id, info.op);
        return ROCE_WC_LOC_QP_OP_ERR;
    }
}

void e810_roce_complete(void *opaque, RoceQP *rqp, const RoceCompletion *c)
{
    E810RoceQp *r = roce_qp(rqp);
    uint8_t cqe[E810_CQE_EXT_SIZE];
    E810CqeCtx ctx = {
        .compl_ctx = r->compl_ctx,
        .qpn = r->id,
        .ud = r->ud,
    };
    bool *err_done = c->recv ? &r->rq_err_done : &r->sq_err_done;
    unsigned int n;

    if (c->recv) {
        ctx.wqe_idx = c->wr_id * (r->rq.stride / E810_WQE_QUANTUM);
        ctx.solicited = c->flags & ROCE_WC_SOLICITED;
    } else {
        const E810SqSlot *slot = &r->slot[c->index % E810_ROCE_SQ_SLOTS];

        ctx.wqe_idx = slot->quantum;
        ctx.sq_op = slot->op;
    }
    if (c->status != ROCE_WC_SUCCESS && c->recv && r->ud &&
        c->status != ROCE_WC_WR_FLUSH_ERR) {
        /* The datagram's own error: this WQE alone. */
        e810_roce_cqe_build_err(false, E810_CQE_MAJOR_MODEL, c->status,
                                &ctx, cqe);
        n = 1;
    } else if (c->status != ROCE_WC_SUCCESS) {
        if (c->status != ROCE_WC_WR_FLUSH_ERR && !r->err_seen) {
            r->err_seen = true;
            r->err_recv = c->recv;
            r->err_status = c->status;
            r->err_wqe_idx = ctx.wqe_idx;
        }
        if (*err_done) {
            return;
        }
        *err_done = true;
        n = e810_roce_cqe_build(c, &ctx, cqe);
    } else {
        n = e810_roce_cqe_build(c, &ctx, cqe);
    }
    trace_e810_roce_cqe(r->id, c->recv, ctx.wqe_idx, c->status, c->byte_len);
    /* A CQ armed for solicited events hears of these and of errors. */
    e810_pe_cq_post_n(r->s, c->recv ? r->rcq : r->scq, cqe, n,
                      ctx.solicited || c->status != ROCE_WC_SUCCESS);
    if (!c->recv && r->stalled) {
        qemu_bh_schedule(r->walk_bh);
    }
}

/*
 * The engine put the QP in error: the context says so, and the driver
 * hears of it by an asynchronous event (irdma moves its QP to error
 * and tells the ULP); the first error CQE of each queue told it which
 * WQEs failed.
 */
void e810_roce_qp_error(void *opaque, RoceQP *rqp)
{
    E810State *s = opaque;
    E810RoceQp *r = roce_qp(rqp);
    E810PeQp *qp = r->id < E810_PE_MAX_QPS ? s->pe->qp[r->id] : NULL;
    E810Aeqe ae = {
        .compl_ctx = r->compl_ctx,
        .qp_cq_id = r->id,
        .ae_id = e810_roce_wc_ae(r->err_seen ? r->err_status :
                                 ROCE_WC_GENERAL_ERR, r->err_recv),
        .ae_src = !r->err_seen ? E810_AE_SRC_RSVD :
                  r->err_recv ? E810_AE_SRC_RQ : E810_AE_SRC_SQ,
        .wqe_idx = r->err_wqe_idx,
    };
    uint8_t e[E810_AEQE_SIZE];

    trace_e810_roce_qp_error(r->id);
    if (qp) {
        qp->state = QP_STATE_ERROR;
    }
    e810_roce_aeqe_build(&ae, true, e);
    e810_pe_aeq_post(s, ldq_le_p(e), ldq_le_p(e + 8));
}

void e810_roce_qp_flush(E810State *s, E810PeQp *qp, bool sq, bool rq,
                        uint32_t sq_code, uint32_t rq_code)
{
    E810RoceQp *r = qp->roce;
    uint8_t cqe[E810_CQE_EXT_SIZE];
    E810CqeCtx ctx = { 0 };

    if (!r) {
        return;
    }
    ctx.compl_ctx = r->compl_ctx;
    ctx.qpn = r->id;
    ctx.ud = r->ud;
    if (sq) {
        ctx.wqe_idx = r->walk_q;
        e810_roce_cqe_build_err(true, sq_code >> 16, sq_code, &ctx, cqe);
        e810_pe_cq_post(s, r->scq, cqe, true);
        r->sq_err_done = true;
    }
    if (rq) {
        ctx.wqe_idx = r->rq_idx * (r->rq.stride / E810_WQE_QUANTUM);
        e810_roce_cqe_build_err(false, rq_code >> 16, rq_code, &ctx, cqe);
        e810_pe_cq_post(s, r->rcq, cqe, true);
        r->rq_err_done = true;
    }
    trace_e810_roce_flush(r->id, sq, rq);
}

void e810_roce_qp_create(E810State *s, uint32_t id, E810PeQp *qp)
{
    E810RoceQp *r;

    if (qp->type != QP_TYPE_ROCE_RC && qp->type != QP_TYPE_ROCE_UD) {
        qemu_log_mask(LOG_UNIMP, "e810: QP %u of type %u\n", id, qp->type);
        return;
    }
    r = g_new0(E810RoceQp, 1);
    r->s = s;
    r->id = id;
    r->ud = qp->type == QP_TYPE_ROCE_UD;
    roce_qp_init(&r->rqp, &s->pe->roce->eng, r);
    r->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, roce_qp_timer_cb, r);
    r->bh = qemu_bh_new_guarded(roce_qp_bh, r,
                                &DEVICE(s)->mem_reentrancy_guard);
    r->walk_bh = qemu_bh_new_guarded(roce_walk_bh, r,
                                     &DEVICE(s)->mem_reentrancy_guard);
    r->walk_pol = true;
    r->rq_pol = true;
    qp->roce = r;
    e810_roce_qp_modify(s, id, qp);
}

void e810_roce_qp_modify(E810State *s, uint32_t id, E810PeQp *qp)
{
    E810RoceQp *r = qp->roce;
    RoceQPAttr a;

    if (!r) {
        return;
    }
    if (!roce_queues(r, qp)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: QP %u: bad queues in the "
                      "context\n", id);
        memset(&r->sq, 0, sizeof(r->sq));
        memset(&r->rq, 0, sizeof(r->rq));
    }
    roce_attr(s, id, qp, &a);
    if (a.state == ROCE_QPS_RESET) {
        r->walk_q = 0;
        r->walk_pol = true;
        r->walk_idx = 0;
        r->rq_idx = 0;
        r->rq_pol = true;
        sq_set_stalled(r, false);
    }
    if (a.state != ROCE_QPS_ERR) {
        r->sq_err_done = false;
        r->rq_err_done = false;
        r->err_seen = false;
    }
    trace_e810_roce_modify(id, a.state, a.type, a.pmtu, a.sq_psn, a.rq_psn,
                           a.dest_qpn);
    roce_qp_modify(&r->rqp, &a);
    if (a.state == ROCE_QPS_RTS || a.state == ROCE_QPS_ERR) {
        /* WQEs posted before: the walk looks at them now. */
        qemu_bh_schedule(r->walk_bh);
    }
}

void e810_roce_qp_free(E810PeQp *qp)
{
    E810RoceQp *r = qp->roce;

    if (!r) {
        return;
    }
    sq_set_stalled(r, false);
    roce_qp_destroy(&r->rqp);
    timer_free(r->timer);
    qemu_bh_delete(r->bh);
    qemu_bh_delete(r->walk_bh);
    g_free(r);
    qp->roce = NULL;
}

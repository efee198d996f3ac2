/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the RoCE front end, the device's side of the
 * RoCEv2 engine (hw/roce/roce.h).
 *
 * One engine per device.  Each QP of a type the engine carries (RC, UC,
 * UD, XRC and the GSI QP, st QP1) gets an MLX5RoceQP at CREATE_QP: the
 * engine's RoceQP, a timer (retransmission, RNR waits) and a bottom half
 * (the engine's "come back later").  Every state change of the QP's
 * context is handed to the engine whole (roce_qp_modify()); the send
 * doorbell walks the new WQEs (mlx5-roce-wqe.c) and rings the engine's.
 * The memory registration QP (st REG_UMR) is an RC QP to the engine that
 * never meets the wire: its WQEs are UMRs (mlx5-umr.c), local work the
 * engine runs and completes in order.  An XRC QP with an SQ is an
 * initiator (its WQEs name the target's XRC SRQ), one without is a
 * target (mlx5_ib gives it no SQ): it receives into the XRC SRQ each
 * request's XRCETH names, which must be of the QP's XRC domain, and its
 * memory accesses are under that SRQ's PD.  A QP in ERR rereads its RQ's
 * record every 10 ms of
 * virtual time, so that receives posted to it complete flushed.
 *
 * Frames: the engine's go to the netdev, except those addressed to one
 * of our own GIDs (two QPs of this device), which a loopback queue hands
 * back to roce_engine_rx() from a bottom half, never from within the
 * engine's call.  A frame to a multicast group goes to the netdev and,
 * when QPs of this device joined the group (mlx5-mcg.c), into the
 * loopback queue as well, unless the sending QP has block_lb_mc.
 * Received UDP 4791 frames whose destination IP is one of our GIDs, or
 * a group QPs of ours joined, go to the engine before the NIC's
 * steering (mlx5-rx.c), which sees the other multicast as any frame.
 *
 * Memory: the engine's accesses go through mlx5_mkey_dma() with the
 * QP's PD and the right the access needs (local read to gather, local
 * write to scatter, remote read, write, atomic for a peer's); atomics
 * are 8 bytes in the guest's (little-endian) byte order.  A peer's
 * SEND with invalidate frees the key it names (mlx5_mkey_invalidate()).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "sysemu/dma.h"
#include "net/eth.h"
#include "mlx5.h"
#include "mlx5-roce.h"
#include "trace.h"

/* The PRM's service types and states the front end tells apart. */
#define QP_ST_RC                0x0
#define QP_ST_UC                0x1
#define QP_ST_UD                0x2
#define QP_ST_XRC               0x3
#define QP_ST_QP1               0x8
#define QP_ST_REG_UMR           0xc
#define QP_ERR                  6

/* The ctrl segment's opcode of a UMR WQE. */
#define OP_UMR                  0x25

/* Frames waiting in the loopback queue, at most: the rest are lost. */
#define LOOP_MAX                1024
/* Frames one run of the loopback bottom half delivers. */
#define LOOP_BUDGET             256
/* How often a QP in ERR rereads its RQ's record (virtual time). */
#define FLUSH_POLL_NS           (10 * SCALE_MS)

static MLX5RoceQP *roce_qp(RoceQP *rqp)
{
    return container_of(rqp, MLX5RoceQP, rqp);
}

MLX5QP *mlx5_roce_qp_of(MLX5State *s, RoceQP *rqp)
{
    return mlx5_qp_get(s, roce_qp(rqp)->qpn);
}

static int64_t roce_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void roce_timer_mod(void *opaque, RoceQP *rqp, int64_t expire_ns)
{
    timer_mod(roce_qp(rqp)->timer, expire_ns);
}

static void roce_timer_del(void *opaque, RoceQP *rqp)
{
    timer_del(roce_qp(rqp)->timer);
}

static void roce_schedule(void *opaque, RoceQP *rqp)
{
    qemu_bh_schedule(roce_qp(rqp)->bh);
}

/*
 * Engine calls from a timer or from the netdev run with the device's
 * reentrancy guard engaged, as its bottom halves and MMIO handlers do:
 * a completion's MSI-X write that the guest aimed at BAR0 is then
 * refused instead of ringing a doorbell into the engine it came from.
 */
static bool roce_guard(MLX5State *s)
{
    MemReentrancyGuard *g = &DEVICE(s)->mem_reentrancy_guard;
    bool was = g->engaged_in_io;

    g->engaged_in_io = true;
    return was;
}

static void roce_unguard(MLX5State *s, bool was)
{
    DEVICE(s)->mem_reentrancy_guard.engaged_in_io = was;
}

static void roce_qp_timer_cb(void *opaque)
{
    MLX5RoceQP *r = opaque;
    bool was = roce_guard(r->s);

    roce_qp_timer(&r->rqp);
    roce_unguard(r->s, was);
}

static void roce_qp_bh(void *opaque)
{
    MLX5RoceQP *r = opaque;

    roce_qp_process(&r->rqp);
}

/*
 * The RQ has no doorbell, and a receive posted to a QP in ERR must
 * still complete, flushed: mlx5_ib's ib_drain_rq() posts one and waits
 * for it.  So a QP in ERR rereads its record now and then.
 */
static void roce_flush_arm(MLX5RoceQP *r)
{
    timer_mod(r->flush_timer,
              qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + FLUSH_POLL_NS);
}

static void roce_flush_cb(void *opaque)
{
    MLX5RoceQP *r = opaque;
    bool was;

    if (r->rqp.attr.state != ROCE_QPS_ERR) {
        return;
    }
    was = roce_guard(r->s);
    roce_qp_rq_doorbell(&r->rqp);
    roce_unguard(r->s, was);
    roce_flush_arm(r);
}

/* A RoCE v2 entry of the GID table holding the frame's destination. */
static bool roce_dest_ours(MLX5State *s, const uint8_t *f, const MLX5Pkt *p)
{
    static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
    const uint8_t *dst;
    int i;

    if (p->ip_version == 4) {
        dst = f + p->l3 + 16;
    } else if (p->ip_version == 6) {
        dst = f + p->l3 + 24;
    } else {
        return false;
    }
    for (i = 0; i < MLX5_GID_TABLE_SIZE; i++) {
        const MLX5Gid *g = &s->gids[i];

        if (!g->valid) {
            continue;
        }
        if (p->ip_version == 4 && g->l3_type == 0 &&
            !memcmp(g->gid, v4mapped, 12) && !memcmp(g->gid + 12, dst, 4)) {
            return true;
        }
        if (p->ip_version == 6 && g->l3_type == 1 &&
            !memcmp(g->gid, dst, 16)) {
            return true;
        }
    }
    return false;
}

static bool roce_frame(const uint8_t *f, const MLX5Pkt *p)
{
    return p->ip_version && !p->frag && p->proto == IP_PROTO_UDP && p->l4 &&
           lduw_be_p(f + p->l4 + 2) == ROCE_UDP_PORT;
}

static void roce_loop_bh(void *opaque)
{
    MLX5State *s = opaque;
    MLX5Roce *ro = s->roce;
    unsigned int n = 0;
    GByteArray *b;

    while (n++ < LOOP_BUDGET && (b = g_queue_pop_head(&ro->loop))) {
        ro->loop_len--;
        roce_engine_rx(&ro->eng, b->data, b->len);
        g_byte_array_unref(b);
    }
    if (ro->loop_len) {
        qemu_bh_schedule(ro->loop_bh);
    }
}

/* A frame onto the wire, counted as the port's (mlx5-stats.c). */
static void roce_wire(MLX5State *s, const uint8_t *frame, size_t len)
{
    mlx5_stats_count(s, MLX5_TX, frame, len);
    qemu_send_packet(qemu_get_queue(s->nic), frame, len);
}

static void roce_loop_push(MLX5State *s, const uint8_t *frame, size_t len)
{
    MLX5Roce *ro = s->roce;

    if (ro->loop_len >= LOOP_MAX) {
        /* A wire drops too; the engine retransmits. */
        trace_mlx5_roce_drop(len, "loopback queue full");
        return;
    }
    g_queue_push_tail(&ro->loop, g_byte_array_append(g_byte_array_new(),
                                                     frame, len));
    ro->loop_len++;
    qemu_bh_schedule(ro->loop_bh);
}

/*
 * The multicast group of a frame's destination IP, as the GID the
 * driver attaches QPs to (an IPv4 group mapped): false for unicast.
 */
static bool roce_dest_group(const uint8_t *f, const MLX5Pkt *p,
                            uint8_t *mgid)
{
    if (p->ip_version == 4 && (f[p->l3 + 16] & 0xf0) == 0xe0) {
        memset(mgid, 0, 10);
        mgid[10] = mgid[11] = 0xff;
        memcpy(mgid + 12, f + p->l3 + 16, 4);
        return true;
    }
    if (p->ip_version == 6 && f[p->l3 + 24] == 0xff) {
        memcpy(mgid, f + p->l3 + 24, 16);
        return true;
    }
    return false;
}

/* A group with a QP of this device attached. */
static bool roce_group_joined(MLX5State *s, const uint8_t *mgid)
{
    uint32_t qpn;

    return mlx5_mcg_qps(s, mgid, &qpn, 1) != 0;
}

/*
 * A frame to one of our own GIDs goes round the loopback queue; one to
 * a multicast group goes to the wire for the other hosts, and round
 * the loopback queue too when QPs of this device joined the group,
 * unless the sending QP blocks its multicast loopback (block_lb_mc).
 */
static void roce_tx(void *opaque, RoceQP *rqp, const uint8_t *frame,
                    size_t len)
{
    MLX5State *s = opaque;
    MLX5QP *qp = mlx5_roce_qp_of(s, rqp);
    uint8_t mgid[16];
    MLX5Pkt p;
    bool loop;

    mlx5_pkt_parse(frame, len, &p);
    if (roce_dest_group(frame, &p, mgid)) {
        loop = !(qp && qp->block_lb_mc) && roce_group_joined(s, mgid);
        trace_mlx5_roce_tx(roce_qp(rqp)->qpn, len, loop);
        roce_wire(s, frame, len);
        if (loop) {
            roce_loop_push(s, frame, len);
        }
        return;
    }
    if (!roce_dest_ours(s, frame, &p)) {
        trace_mlx5_roce_tx(roce_qp(rqp)->qpn, len, false);
        roce_wire(s, frame, len);
        return;
    }
    trace_mlx5_roce_tx(roce_qp(rqp)->qpn, len, true);
    roce_loop_push(s, frame, len);
}

static RoceQP *roce_lookup_qp(void *opaque, uint32_t qpn)
{
    MLX5State *s = opaque;
    MLX5QP *qp;

    if (qpn == 1) {
        qpn = s->roce->gsi_qpn;
    }
    qp = mlx5_qp_get(s, qpn);
    return qp && qp->roce && !qp->roce->umr_qp ? &qp->roce->rqp : NULL;
}

/* The QPs of this device attached to a datagram's group. */
static unsigned int roce_lookup_mcast(void *opaque, const uint8_t *mgid,
                                      RoceQP **qps, unsigned int max)
{
    MLX5State *s = opaque;
    uint32_t qpns[MLX5_MAX_QP_MCG];
    unsigned int n, i, k = 0;

    n = mlx5_mcg_qps(s, mgid, qpns, MIN(max, MLX5_MAX_QP_MCG));
    for (i = 0; i < n; i++) {
        MLX5QP *qp = mlx5_qp_get(s, qpns[i]);

        if (qp && qp->roce) {
            qps[k++] = &qp->roce->rqp;
        }
    }
    return k;
}

/*
 * The PD a QP's memory accesses are checked against: its own, or for
 * an XRC target the PD of the XRC SRQ the request in hand names (its
 * own is the driver's p0).  False: no such SRQ of the QP's domain.
 */
bool mlx5_roce_qp_pd(MLX5State *s, const MLX5QP *qp, const RoceQP *rqp,
                     uint32_t *pd)
{
    MLX5SRQ *srq;

    if (rqp->attr.xrc != ROCE_XRC_TGT) {
        *pd = qp->pd;
        return true;
    }
    srq = mlx5_srq_get(s, rqp->xrc_srqn);
    if (!srq || srq->kind != MLX5_SRQ_XRC || srq->xrcd != qp->xrcd) {
        return false;
    }
    *pd = srq->pd;
    return true;
}

static int roce_mem_err(int err)
{
    switch (err) {
    case MLX5_MKEY_OK:
        return ROCE_MEM_OK;
    case MLX5_MKEY_EACCESS:
        return ROCE_MEM_EACCESS;
    case MLX5_MKEY_ERANGE:
        return ROCE_MEM_ERANGE;
    case MLX5_MKEY_EIO:
        return ROCE_MEM_EIO;
    default:
        return ROCE_MEM_EKEY;
    }
}

static int roce_dma(void *opaque, RoceQP *rqp, RoceMemOp op, uint32_t key,
                    uint64_t addr, void *buf, size_t len)
{
    static const unsigned int access[] = {
        [ROCE_MEM_GATHER] = MLX5_MKEY_LR,
        [ROCE_MEM_SCATTER] = MLX5_MKEY_LW,
        [ROCE_MEM_REMOTE_READ] = MLX5_MKEY_RR,
        [ROCE_MEM_REMOTE_WRITE] = MLX5_MKEY_RW,
    };
    MLX5State *s = opaque;
    MLX5QP *qp = mlx5_roce_qp_of(s, rqp);
    DMADirection dir = op == ROCE_MEM_GATHER || op == ROCE_MEM_REMOTE_READ ?
                       DMA_DIRECTION_TO_DEVICE : DMA_DIRECTION_FROM_DEVICE;
    uint32_t pd;

    if (!qp || op >= ARRAY_SIZE(access) || !mlx5_roce_qp_pd(s, qp, rqp, &pd)) {
        return ROCE_MEM_EKEY;
    }
    return roce_mem_err(mlx5_mkey_dma(s, pd, key, access[op], addr, buf,
                                      len, dir));
}

static int roce_atomic(void *opaque, RoceQP *rqp, uint32_t rkey, uint64_t va,
                       bool cmp_swp, uint64_t swap_add, uint64_t compare,
                       uint64_t *orig)
{
    MLX5State *s = opaque;
    MLX5QP *qp = mlx5_roce_qp_of(s, rqp);
    uint8_t b[8];
    uint64_t v;
    uint32_t pd;
    int err;

    if (!qp || !mlx5_roce_qp_pd(s, qp, rqp, &pd)) {
        return ROCE_MEM_EKEY;
    }
    if (va & 7) {
        return ROCE_MEM_EACCESS;
    }
    /* Under the BQL, nothing else of the device runs in between. */
    err = mlx5_mkey_dma(s, pd, rkey, MLX5_MKEY_A, va, b, 8,
                        DMA_DIRECTION_TO_DEVICE);
    if (err) {
        return roce_mem_err(err);
    }
    v = ldq_le_p(b);
    *orig = v;
    if (cmp_swp) {
        if (v != compare) {
            return ROCE_MEM_OK;
        }
        v = swap_add;
    } else {
        v += swap_add;
    }
    stq_le_p(b, v);
    return roce_mem_err(mlx5_mkey_dma(s, pd, rkey, MLX5_MKEY_A, va, b, 8,
                                      DMA_DIRECTION_FROM_DEVICE));
}

static int roce_invalidate(void *opaque, RoceQP *rqp, uint32_t rkey)
{
    MLX5State *s = opaque;
    MLX5QP *qp = mlx5_roce_qp_of(s, rqp);

    if (!qp) {
        return ROCE_MEM_EKEY;
    }
    return roce_mem_err(mlx5_mkey_invalidate(s, qp->pd, rkey));
}

/*
 * ROCE_WR_LOCAL: NOP, or a UMR (mlx5-roce-wqe.c), read again now that
 * its turn came.  The registration QP may change any PD's keys; a ULP's
 * QP only its own PD's.
 */
static int roce_local_op(void *opaque, RoceQP *rqp, const RoceSendWR *wr)
{
    MLX5State *s = opaque;
    MLX5RoceQP *r = roce_qp(rqp);
    MLX5QP *qp = mlx5_qp_get(s, r->qpn);
    uint8_t w[MLX5_ROCE_WQE_MAX];
    size_t len;

    if (r->slots[wr->wr_id & (r->nslots - 1)].opcode != OP_UMR) {
        return 0;
    }
    if (!qp || !mlx5_roce_sq_wqe(s, qp, r, wr->wr_id, w, &len)) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    return mlx5_umr_run(s, r->qpn, qp->pd, r->umr_qp, w, len);
}

/*
 * The engine put the QP in error (a bad WQE, an error the peer sent,
 * retries exhausted): its context says ERR for QUERY_QP and the next
 * modify.  The error CQE told the driver; no event goes with it.
 */
static void roce_qp_error(void *opaque, RoceQP *rqp)
{
    MLX5QP *qp = mlx5_roce_qp_of(opaque, rqp);

    trace_mlx5_roce_qp_error(roce_qp(rqp)->qpn);
    if (qp) {
        qp->state = QP_ERR;
    }
    roce_flush_arm(roce_qp(rqp));
}

static const RoceOps mlx5_roce_ops = {
    .now_ns = roce_now_ns,
    .timer_mod = roce_timer_mod,
    .timer_del = roce_timer_del,
    .schedule = roce_schedule,
    .tx = roce_tx,
    .lookup_qp = roce_lookup_qp,
    .lookup_mcast = roce_lookup_mcast,
    .fetch_send = mlx5_roce_fetch_send,
    .take_recv = mlx5_roce_take_recv,
    .dma = roce_dma,
    .atomic = roce_atomic,
    .invalidate = roce_invalidate,
    .local_op = roce_local_op,
    .complete = mlx5_roce_complete,
    .qp_error = roce_qp_error,
};

void mlx5_roce_qp_create(MLX5State *s, MLX5QP *qp, uint32_t qpn)
{
    MLX5RoceQP *r;

    if (qp->st != QP_ST_RC && qp->st != QP_ST_UC && qp->st != QP_ST_UD &&
        qp->st != QP_ST_QP1 && qp->st != QP_ST_REG_UMR &&
        qp->st != QP_ST_XRC) {
        return;
    }
    r = g_new0(MLX5RoceQP, 1);
    r->umr_qp = qp->st == QP_ST_REG_UMR;
    roce_qp_init(&r->rqp, &s->roce->eng, r);
    r->s = s;
    r->qpn = qpn;
    r->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, roce_qp_timer_cb, r);
    r->bh = qemu_bh_new_guarded(roce_qp_bh, r,
                                &DEVICE(s)->mem_reentrancy_guard);
    r->flush_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, roce_flush_cb, r);
    if (!qp->no_sq) {
        r->nslots = 1u << qp->log_sq_size;
        r->slots = g_new0(MLX5SqSlot, r->nslots);
    }
    if (qp->st == QP_ST_QP1) {
        s->roce->gsi_qpn = qpn;
    }
    qp->roce = r;
}

void mlx5_roce_qp_destroy(MLX5State *s, MLX5QP *qp)
{
    MLX5RoceQP *r = qp->roce;

    if (!r) {
        return;
    }
    roce_qp_destroy(&r->rqp);
    timer_free(r->timer);
    timer_free(r->flush_timer);
    qemu_bh_delete(r->bh);
    if (s->roce->gsi_qpn == r->qpn) {
        s->roce->gsi_qpn = 0;
    }
    g_free(r->slots);
    g_free(r);
    qp->roce = NULL;
}

static RoceQPState roce_state(uint8_t state)
{
    static const RoceQPState map[] = {
        ROCE_QPS_RESET, ROCE_QPS_INIT, ROCE_QPS_RTR, ROCE_QPS_RTS,
        ROCE_QPS_SQE, ROCE_QPS_SQD, ROCE_QPS_ERR,
    };

    return state < ARRAY_SIZE(map) ? map[state] : ROCE_QPS_ERR;
}

/* The context's transport attributes, decoded for the engine. */
static void roce_attr(MLX5State *s, const MLX5QP *qp, uint32_t qpn,
                      RoceQPAttr *a)
{
    const MLX5QPPath *p = &qp->path;

    memset(a, 0, sizeof(*a));
    a->state = roce_state(qp->state);
    a->type = qp->st == QP_ST_RC || qp->st == QP_ST_REG_UMR ||
              qp->st == QP_ST_XRC ? ROCE_QPT_RC :
              qp->st == QP_ST_UC ? ROCE_QPT_UC :
              qp->st == QP_ST_UD ? ROCE_QPT_UD : ROCE_QPT_GSI;
    if (qp->st == QP_ST_XRC) {
        a->xrc = qp->no_sq ? ROCE_XRC_TGT : ROCE_XRC_INI;
    }
    a->qpn = qpn;
    a->dest_qpn = qp->remote_qpn;
    a->sq_psn = qp->next_send_psn;
    a->rq_psn = qp->next_rcv_psn;
    /* The IB MTU code: 1 is 256 bytes, 5 is 4096; 0 before INIT2RTR. */
    a->pmtu = qp->mtu ? 128u << qp->mtu : 1024;
    a->qkey = qp->q_key;
    a->access = (qp->rwe ? ROCE_ACCESS_REMOTE_WRITE : 0) |
                (qp->rre ? ROCE_ACCESS_REMOTE_READ : 0) |
                (qp->rae ? ROCE_ACCESS_REMOTE_ATOMIC : 0);
    a->retry_cnt = qp->retry_count;
    a->rnr_retry = qp->rnr_retry;
    a->timeout = p->ack_timeout;
    a->min_rnr_timer = qp->min_rnr_nak;
    a->max_rd_atomic = MIN(1u << MIN(qp->log_sra_max, 4), ROCE_MAX_RD_ATOMIC);
    a->max_dest_rd_atomic = MIN(1u << MIN(qp->log_rra_max, 4),
                                ROCE_MAX_RD_ATOMIC);
    if ((a->type == ROCE_QPT_RC || a->type == ROCE_QPT_UC) && p->grh &&
        mlx5_roce_gid_av(s, p->src_addr_index, &a->av)) {
        memcpy(a->av.dmac, p->rmac, 6);
        memcpy(a->av.dgid, p->rgid, 16);
        a->av.udp_sport = p->udp_sport;
        a->av.hop_limit = p->hop_limit;
        a->av.tclass = p->tclass;
        a->av.flow_label = p->flow_label;
        if (a->av.vlan_valid) {
            a->av.vlan |= (p->eth_prio & 7) << 13;
        }
    }
}

void mlx5_roce_qp_modify(MLX5State *s, MLX5QP *qp, uint32_t qpn)
{
    MLX5RoceQP *r = qp->roce;
    RoceQPAttr a;

    if (!r) {
        return;
    }
    roce_attr(s, qp, qpn, &a);
    if (a.state == ROCE_QPS_RESET) {
        /* The driver starts its counters over: so does the device. */
        r->walk_bb = 0;
        r->walk_idx = 0;
        r->rq_cc = 0;
    }
    trace_mlx5_roce_modify(qpn, a.state, a.type, a.pmtu, a.sq_psn, a.rq_psn,
                           a.dest_qpn);
    roce_qp_modify(&r->rqp, &a);
    if (a.state == ROCE_QPS_ERR) {
        roce_flush_arm(r);
    } else {
        timer_del(r->flush_timer);
    }
}

/*
 * The send doorbell of a QP: the new WQEs get their indexes, then the
 * engine runs them (or, in ERR, flushes them).  The receive queue has
 * no doorbell: in ERR, this one flushes what was posted to it since
 * (as the flush timer does).
 */
void mlx5_roce_qp_doorbell(MLX5State *s, MLX5QP *qp)
{
    MLX5RoceQP *r = qp->roce;

    if (!r || r->rqp.attr.state == ROCE_QPS_RESET) {
        return;
    }
    mlx5_roce_sq_walk(s, qp, r);
    trace_mlx5_roce_doorbell(r->qpn, r->walk_idx, r->walk_bb);
    roce_qp_sq_doorbell(&r->rqp, r->walk_idx);
    roce_qp_rq_doorbell(&r->rqp);
}

bool mlx5_roce_rx(MLX5State *s, const uint8_t *f, size_t len,
                  const MLX5Pkt *p)
{
    uint8_t mgid[16];
    bool was;

    if (!roce_frame(f, p)) {
        return false;
    }
    if (roce_dest_group(f, p, mgid) ? !roce_group_joined(s, mgid) :
                                      !roce_dest_ours(s, f, p)) {
        return false;
    }
    was = roce_guard(s);
    roce_engine_rx(&s->roce->eng, f, len);
    roce_unguard(s, was);
    return true;
}

/* Device reset: the QPs went already; frames still queued go too. */
void mlx5_roce_reset(MLX5State *s)
{
    GByteArray *b;

    if (!s->roce) {
        return;
    }
    while ((b = g_queue_pop_head(&s->roce->loop))) {
        g_byte_array_unref(b);
    }
    s->roce->loop_len = 0;
    s->roce->gsi_qpn = 0;
}

void mlx5_roce_realize(MLX5State *s)
{
    s->roce = g_new0(MLX5Roce, 1);
    roce_engine_init(&s->roce->eng, &mlx5_roce_ops, s);
    g_queue_init(&s->roce->loop);
    s->roce->loop_bh = qemu_bh_new_guarded(roce_loop_bh, s,
                                           &DEVICE(s)->mem_reentrancy_guard);
}

void mlx5_roce_unrealize(MLX5State *s)
{
    mlx5_roce_reset(s);
    qemu_bh_delete(s->roce->loop_bh);
    g_free(s->roce);
    s->roce = NULL;
}

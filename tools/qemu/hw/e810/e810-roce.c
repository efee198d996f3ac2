/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the RoCE data path's glue, the device's side of the
 * RoCEv2 engine (hw/roce/roce.h).
 *
 * One engine per device; each QP irdma creates gets an E810RoceQp
 * (e810-roce-qp.c) with the engine's RoceQP, a timer and a bottom half.
 * This file gives the engine its clock, timers and bottom halves, its
 * frames' way out, the QPs by number, memory under STags (e810-stag.c)
 * and takes its frames in.
 *
 * Frames: the engine's go to the netdev, except those addressed to the
 * port's own MAC address (two QPs of this device: irdma resolves the
 * device's own IP to that MAC), which a loopback queue hands back to
 * roce_engine_rx() from a bottom half, never from within the engine's
 * call.  From the wire, a UDP frame to port 4791 addressed to the
 * port's MAC goes to the PE instead of the LAN queues, as a port in
 * RoCE mode steers it (irdma tells the PE no IP address of its own:
 * MANAGE_ARP carries MACs only); so does one to the MAC of a multicast
 * group with members (e810-mcg.c).  A datagram a QP sends to a group
 * goes to the wire, and round the loopback queue too when QPs of this
 * device joined that group.
 *
 * irdma 6.1 offers no atomics (its device attributes say none), so a
 * peer's atomic is refused.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "net/net.h"
#include "net/eth.h"
#include "e810.h"
#include "e810-roce-int.h"
#include "trace.h"

/* Frames waiting in the loopback queue, at most: the rest are lost. */
#define LOOP_MAX                1024
/* Frames one run of the loopback bottom half delivers. */
#define LOOP_BUDGET             256

static E810RoceQp *roce_qp(RoceQP *rqp)
{
    return container_of(rqp, E810RoceQp, rqp);
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
 * reentrancy guard engaged, as its MMIO handlers do: an MSI-X write the
 * guest aimed at BAR0 is then refused instead of ringing a doorbell
 * into the engine it came from.
 */
bool e810_roce_guard(E810State *s)
{
    MemReentrancyGuard *g = &DEVICE(s)->mem_reentrancy_guard;
    bool was = g->engaged_in_io;

    g->engaged_in_io = true;
    return was;
}

void e810_roce_unguard(E810State *s, bool was)
{
    DEVICE(s)->mem_reentrancy_guard.engaged_in_io = was;
}

void e810_roce_kick(E810State *s)
{
    E810Pe *pe = s->pe;
    unsigned int i;

    if (!pe->roce->stalled) {
        return;
    }
    for (i = 0; i < E810_PE_MAX_QPS; i++) {
        E810RoceQp *r = pe->qp[i] ? pe->qp[i]->roce : NULL;

        if (r && r->stalled &&
            r->walk_idx - r->rqp.sq_ci < E810_ROCE_SQ_SLOTS) {
            qemu_bh_schedule(r->walk_bh);
        }
    }
}

static bool roce_to_self(E810State *s, const uint8_t *frame, size_t len)
{
    uint8_t mac[ETH_ALEN];

    e810_mac_addr(s, mac);
    return len >= ETH_HLEN && !memcmp(frame, mac, ETH_ALEN);
}

/* To the MAC of a group with members of this device. */
static bool roce_to_group(E810State *s, const uint8_t *frame, size_t len)
{
    return len >= ETH_HLEN && (frame[0] & 1) && e810_mcg_mac(s, frame);
}

static void roce_loop_bh(void *opaque)
{
    E810State *s = opaque;
    E810Roce *ro = s->pe->roce;
    unsigned int n = 0;
    GByteArray *b;

    while (n++ < LOOP_BUDGET && (b = g_queue_pop_head(&ro->loop))) {
        ro->loop_len--;
        e810_pe_stats_frame(s->pe, b->data, b->len, false);
        roce_engine_rx(&ro->eng, b->data, b->len);
        g_byte_array_unref(b);
    }
    if (ro->loop_len) {
        qemu_bh_schedule(ro->loop_bh);
    }
    e810_roce_kick(s);
}

static void roce_tx(void *opaque, RoceQP *rqp, const uint8_t *frame,
                    size_t len)
{
    E810State *s = opaque;
    E810Roce *ro = s->pe->roce;
    bool group = roce_to_group(s, frame, len);
    bool loop = group || roce_to_self(s, frame, len);

    trace_e810_roce_tx(roce_qp(rqp)->id, len, loop);
    e810_pe_stats_frame(s->pe, frame, len, true);
    if (!loop || group) {
        qemu_send_packet(qemu_get_queue(s->nic), frame, len);
    }
    if (!loop) {
        return;
    }
    if (ro->loop_len >= LOOP_MAX) {
        /* A wire drops too; the engine retransmits. */
        return;
    }
    g_queue_push_tail(&ro->loop, g_byte_array_append(g_byte_array_new(),
                                                     frame, len));
    ro->loop_len++;
    qemu_bh_schedule(ro->loop_bh);
}

static RoceQP *roce_lookup_qp(void *opaque, uint32_t qpn)
{
    E810State *s = opaque;
    E810PeQp *qp = qpn < E810_PE_MAX_QPS ? s->pe->qp[qpn] : NULL;

    /* irdma's GSI QP is QP 1 of the PE: its number is the wire's. */
    return qp && qp->roce ? &qp->roce->rqp : NULL;
}

/* The member QPs of a datagram's group that this device has. */
static unsigned int roce_lookup_mcast(void *opaque, const uint8_t *mgid,
                                      RoceQP **qps, unsigned int max)
{
    E810State *s = opaque;
    uint32_t ids[E810_MCG_MAX_QPS];
    unsigned int n, i, k = 0;

    n = e810_mcg_qps(s, mgid, ids, MIN(max, E810_MCG_MAX_QPS));
    for (i = 0; i < n; i++) {
        RoceQP *q = roce_lookup_qp(s, ids[i]);

        if (q) {
            qps[k++] = q;
        }
    }
    return k;
}

static int roce_dma(void *opaque, RoceQP *rqp, RoceMemOp op, uint32_t key,
                    uint64_t addr, void *buf, size_t len)
{
    E810RoceQp *r = roce_qp(rqp);

    return e810_stag_dma(r->s, r->pd, r->priv, op, key, addr, buf, len);
}

static int roce_atomic(void *opaque, RoceQP *rqp, uint32_t rkey, uint64_t va,
                       bool cmp_swp, uint64_t swap_add, uint64_t compare,
                       uint64_t *orig)
{
    return ROCE_MEM_EACCESS;
}

static int roce_invalidate(void *opaque, RoceQP *rqp, uint32_t rkey)
{
    E810RoceQp *r = roce_qp(rqp);

    return e810_stag_invalidate(r->s, r->pd, rkey);
}

static const RoceOps e810_roce_ops = {
    .now_ns = roce_now_ns,
    .timer_mod = roce_timer_mod,
    .timer_del = roce_timer_del,
    .schedule = roce_schedule,
    .tx = roce_tx,
    .lookup_qp = roce_lookup_qp,
    .lookup_mcast = roce_lookup_mcast,
    .fetch_send = e810_roce_fetch_send,
    .take_recv = e810_roce_take_recv,
    .dma = roce_dma,
    .atomic = roce_atomic,
    .invalidate = roce_invalidate,
    .local_op = e810_roce_local_op,
    .complete = e810_roce_complete,
    .qp_error = e810_roce_qp_error,
};

/*
 * A UDP datagram to port 4791 addressed to the port's MAC address or to
 * a group's.
 */
static bool roce_frame_ours(E810State *s, const uint8_t *f, size_t len)
{
    size_t l3 = ETH_HLEN, l4;
    uint16_t type;

    if (!roce_to_self(s, f, len) && !roce_to_group(s, f, len)) {
        return false;
    }
    type = lduw_be_p(f + 12);
    if (type == ETH_P_VLAN) {
        if (len < ETH_HLEN + 4) {
            return false;
        }
        type = lduw_be_p(f + 16);
        l3 += 4;
    }
    if (type == ETH_P_IP) {
        if (len < l3 + 20 || f[l3 + 9] != IP_PROTO_UDP) {
            return false;
        }
        l4 = l3 + (f[l3] & 0xf) * 4;
    } else if (type == ETH_P_IPV6) {
        if (len < l3 + 40 || f[l3 + 6] != IP_PROTO_UDP) {
            return false;
        }
        l4 = l3 + 40;
    } else {
        return false;
    }
    return len >= l4 + 8 && lduw_be_p(f + l4 + 2) == ROCE_UDP_PORT;
}

bool e810_roce_rx(E810State *s, const uint8_t *buf, size_t len)
{
    bool was;

    if (!s->pe || !s->pe->cqp_up || !roce_frame_ours(s, buf, len)) {
        return false;
    }
    was = e810_roce_guard(s);
    e810_pe_stats_frame(s->pe, buf, len, false);
    roce_engine_rx(&s->pe->roce->eng, buf, len);
    e810_roce_kick(s);
    e810_roce_unguard(s, was);
    return true;
}

/* PF reset: the QPs went already; frames still queued go too. */
void e810_roce_reset(E810State *s)
{
    E810Roce *ro = s->pe->roce;
    GByteArray *b;

    while ((b = g_queue_pop_head(&ro->loop))) {
        g_byte_array_unref(b);
    }
    ro->loop_len = 0;
    ro->stalled = 0;
}

void e810_roce_realize(E810State *s)
{
    E810Roce *ro = g_new0(E810Roce, 1);

    s->pe->roce = ro;
    roce_engine_init(&ro->eng, &e810_roce_ops, s);
    g_queue_init(&ro->loop);
    ro->loop_bh = qemu_bh_new_guarded(roce_loop_bh, s,
                                      &DEVICE(s)->mem_reentrancy_guard);
}

void e810_roce_unrealize(E810State *s)
{
    E810Roce *ro = s->pe->roce;

    e810_roce_reset(s);
    qemu_bh_delete(ro->loop_bh);
    g_free(ro);
    s->pe->roce = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: Ethernet receive.
 *
 * A frame from the netdev backend, while the port is up: RoCE v2 (UDP
 * 4791) to one of the device's own GIDs goes to the RoCE front end
 * (mlx5-roce.c), as the RDMA side's steering takes it first; else its
 * match parameters (outer headers: MACs, VLAN, ethertype, IP version,
 * protocol, addresses, ports) are steered through the flow tables
 * (mlx5-steer.c) to TIRs, a copy to each; a TIR names an RQ, or an RQ
 * table whose entry its Toeplitz hash picks (RSS), and the RQ, when
 * ready, gives its next WQE: the driver's producer counter is the first
 * dword of the RQ's doorbell record, a WQE is the stride's data
 * segments (byte count, memory key, address; key 0x100 ends the list).
 * The frame is scattered through the driver's memory key
 * (mlx5_mkey_dma(): the RQ's PD, local write), then the CQE: a
 * responder SEND with the byte count, the WQE counter, the RQ's user
 * index, the free-running clock, the L3/L4 header types, and
 * check_sum, the ones' complement sum of the bytes from the IP header
 * to the end, which the driver trusts as CHECKSUM_COMPLETE.  No L3/L4
 * OK flags: the short frames the driver would take on their word are
 * checked by the stack.  VLAN tags stay in the frame (no stripping).
 *
 * Frames an SQ sends come back through the same steering (local
 * loopback, mlx5_rx_loopback()) when multicast, broadcast or to the
 * port's own MAC, but not to the TIRs of the sender's own transport
 * domain unless those let self loopback through (self_lb_block).
 *
 * No WQE, a frame larger than the WQE's buffers, or no steering entry:
 * the frame is dropped (a wire does not wait).  A WQE whose buffers the
 * key does not cover or that are not guest memory: an error CQE (local
 * protection), the RQ to ERR.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "sysemu/dma.h"
#include "net/eth.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define RQ_STATE_RDY            1
#define RQ_STATE_ERR            3
#define RQ_WQE_MAX              1024    /* log_wq_stride 10 */
#define DSEG_END_LKEY           0x100
#define L4_TYPE_TCP             1
#define L4_TYPE_UDP             2
#define L3_TYPE_IPV6            1
#define L3_TYPE_IPV4            2
#define RX_HASH_KEY_LEN         40      /* rx_hash_toeplitz_key */
#define CQE_TIMESTAMP           48

/* The frame's fte_match_param (the outer headers; the rest 0). */
static void rx_match_param(const uint8_t *f, const MLX5Pkt *p, uint8_t *mp)
{
    uint8_t *h = MLX5_ADDR_OF(fte_match_param, mp, outer_headers);

    memset(mp, 0, MLX5_ST_SZ_BYTES(fte_match_param));
    MLX5_SET(fte_match_set_lyr_2_4, h, dmac_47_16, ldl_be_p(f));
    MLX5_SET(fte_match_set_lyr_2_4, h, dmac_15_0, lduw_be_p(f + 4));
    MLX5_SET(fte_match_set_lyr_2_4, h, smac_47_16, ldl_be_p(f + 6));
    MLX5_SET(fte_match_set_lyr_2_4, h, smac_15_0, lduw_be_p(f + 10));
    MLX5_SET(fte_match_set_lyr_2_4, h, ethertype, p->ethertype);
    MLX5_SET(fte_match_set_lyr_2_4, h, cvlan_tag, p->cvlan);
    MLX5_SET(fte_match_set_lyr_2_4, h, svlan_tag, p->svlan);
    if (p->cvlan || p->svlan) {
        MLX5_SET(fte_match_set_lyr_2_4, h, first_prio, p->tci >> 13);
        MLX5_SET(fte_match_set_lyr_2_4, h, first_cfi, (p->tci >> 12) & 1);
        MLX5_SET(fte_match_set_lyr_2_4, h, first_vid, p->tci & 0xfff);
    }
    if (!p->ip_version) {
        return;
    }
    MLX5_SET(fte_match_set_lyr_2_4, h, ip_version, p->ip_version);
    MLX5_SET(fte_match_set_lyr_2_4, h, ip_protocol, p->proto);
    MLX5_SET(fte_match_set_lyr_2_4, h, frag, p->frag);
    if (p->ip_version == 4) {
        MLX5_SET(fte_match_set_lyr_2_4, h, ip_dscp, f[p->l3 + 1] >> 2);
        MLX5_SET(fte_match_set_lyr_2_4, h, ip_ecn, f[p->l3 + 1] & 3);
        MLX5_SET(fte_match_set_lyr_2_4, h, ttl_hoplimit, f[p->l3 + 8]);
        memcpy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h,
                            src_ipv4_src_ipv6.ipv4_layout.ipv4),
               f + p->l3 + 12, 4);
        memcpy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h,
                            dst_ipv4_dst_ipv6.ipv4_layout.ipv4),
               f + p->l3 + 16, 4);
    } else {
        MLX5_SET(fte_match_set_lyr_2_4, h, ip_dscp,
                 (lduw_be_p(f + p->l3) >> 6) & 0x3f);
        MLX5_SET(fte_match_set_lyr_2_4, h, ip_ecn,
                 (lduw_be_p(f + p->l3) >> 4) & 3);
        MLX5_SET(fte_match_set_lyr_2_4, h, ttl_hoplimit, f[p->l3 + 7]);
        memcpy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h, src_ipv4_src_ipv6),
               f + p->l3 + 8, 16);
        memcpy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h, dst_ipv4_dst_ipv6),
               f + p->l3 + 24, 16);
    }
    if (!p->l4) {
        return;
    }
    if (p->proto == IP_PROTO_TCP) {
        MLX5_SET(fte_match_set_lyr_2_4, h, tcp_sport, lduw_be_p(f + p->l4));
        MLX5_SET(fte_match_set_lyr_2_4, h, tcp_dport,
                 lduw_be_p(f + p->l4 + 2));
        MLX5_SET(fte_match_set_lyr_2_4, h, tcp_flags,
                 lduw_be_p(f + p->l4 + 12) & 0x1ff);
    } else {
        MLX5_SET(fte_match_set_lyr_2_4, h, udp_sport, lduw_be_p(f + p->l4));
        MLX5_SET(fte_match_set_lyr_2_4, h, udp_dport,
                 lduw_be_p(f + p->l4 + 2));
    }
}

/*
 * Toeplitz over @n bytes of @in with the TIR's 40-byte key: for each
 * input bit, from the first byte's top bit on, a set bit adds the 32
 * key bits that start at its position.
 */
static uint32_t rx_toeplitz(const uint8_t *key, const uint8_t *in, size_t n)
{
    uint32_t hash = 0, win = ldl_be_p(key);
    size_t i;
    int b;

    for (i = 0; i < n; i++) {
        /* the key byte that shifts in as this input byte is used */
        uint8_t next = i + 4 < RX_HASH_KEY_LEN ? key[i + 4] : 0;

        for (b = 7; b >= 0; b--) {
            if (in[i] & (1u << b)) {
                hash ^= win;
            }
            win = win << 1 | ((next >> b) & 1);
        }
    }
    return hash;
}

/*
 * The hash a TIR computes over a frame: the fields its outer selector
 * names (source and destination address, then ports), when the frame
 * is of the selector's L3 (and, for ports, L4) type; 0 otherwise and
 * for hash functions other than Toeplitz, so such frames go to the
 * table's first RQ.
 */
static uint32_t rx_hash(const uint8_t *tirc, const uint8_t *f,
                        const MLX5Pkt *p)
{
    const uint8_t *sel = MLX5_ADDR_OF(tirc, tirc,
                                      rx_hash_field_selector_outer);
    uint32_t fields = MLX5_GET(rx_hash_field_select, sel, selected_fields);
    uint8_t key[RX_HASH_KEY_LEN], in[36];
    size_t n = 0, alen;
    bool v6 = MLX5_GET(rx_hash_field_select, sel, l3_prot_type);
    bool udp = MLX5_GET(rx_hash_field_select, sel, l4_prot_type);

    if (MLX5_GET(tirc, tirc, rx_hash_fn) != MLX5_RX_HASH_FN_TOEPLITZ ||
        p->ip_version != (v6 ? 6 : 4)) {
        return 0;
    }
    alen = v6 ? 16 : 4;
    /* the address fields sit at the same offsets in both headers' ends */
    if (fields & BIT(MLX5_RX_HASH_FIELD_SELECT_SELECTED_FIELDS_SRC_IP)) {
        memcpy(in + n, f + p->l3 + (v6 ? 8 : 12), alen);
        n += alen;
    }
    if (fields & BIT(MLX5_RX_HASH_FIELD_SELECT_SELECTED_FIELDS_DST_IP)) {
        memcpy(in + n, f + p->l3 + (v6 ? 24 : 16), alen);
        n += alen;
    }
    if (p->l4 && p->proto == (udp ? IP_PROTO_UDP : IP_PROTO_TCP)) {
        if (fields & BIT(MLX5_RX_HASH_FIELD_SELECT_SELECTED_FIELDS_L4_SPORT)) {
            memcpy(in + n, f + p->l4, 2);
            n += 2;
        }
        if (fields & BIT(MLX5_RX_HASH_FIELD_SELECT_SELECTED_FIELDS_L4_DPORT)) {
            memcpy(in + n, f + p->l4 + 2, 2);
            n += 2;
        }
    }
    memcpy(key, MLX5_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key), sizeof(key));
    return rx_toeplitz(key, in, n);
}

/*
 * The RQ a TIR dispatches a frame to: its own, or the entry of its RQ
 * table the hash picks.
 */
static uint32_t rx_tir_rq(MLX5State *s, MLX5Obj *tir, const uint8_t *f,
                          const MLX5Pkt *p)
{
    MLX5Obj *rqt;
    uint32_t n;

    if (MLX5_GET(tirc, tir->ctx, disp_type) == 0) {
        return MLX5_GET(tirc, tir->ctx, inline_rqn);
    }
    rqt = mlx5_obj_get(s, MLX5_OBJ_RQT,
                       MLX5_GET(tirc, tir->ctx, indirect_table));
    if (!rqt || rqt->len < MLX5_ST_SZ_BYTES(rqtc) + 4) {
        return 0;
    }
    /* CREATE_RQT and MODIFY_RQT keep rqtc and its actual_size entries. */
    n = MIN(MLX5_GET(rqtc, rqt->ctx, rqt_actual_size),
            (rqt->len - MLX5_ST_SZ_BYTES(rqtc)) / 4);
    n = rx_hash(tir->ctx, f, p) % MAX(n, 1);
    return ldl_be_p(MLX5_ADDR_OF(rqtc, rqt->ctx, rq_num) + n * 4) & 0xffffff;
}

static void rx_cqe(MLX5State *s, MLX5WQ *rq, uint32_t rqn, uint16_t idx,
                   const uint8_t *f, size_t len, const MLX5Pkt *p,
                   uint8_t synd)
{
    uint8_t cqe[64] = { 0 };

    stl_be_p(cqe + MLX5_CQE_SOP_DROP_QPN, rqn);
    stw_be_p(cqe + MLX5_CQE_WQE_COUNTER, idx);
    /* libmlx5 finds a user RQ's QP or WQ by it (CQE version 1) */
    stl_be_p(cqe + MLX5_CQE_SRQN,
             rq->ctx ? MLX5_GET(rqc, rq->ctx, user_index) : 0);
    /* the free-running clock the initialization segment's timer shows */
    stq_be_p(cqe + CQE_TIMESTAMP, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    if (synd) {
        cqe[MLX5_CQE_SYNDROME] = synd;
        cqe[MLX5_CQE_OP_OWN] = MLX5_CQE_OP_RESP_ERR << 4;
        mlx5_cq_post(s, rq->cqn, cqe);
        return;
    }
    stl_be_p(cqe + MLX5_CQE_BYTE_CNT, len);
    stw_be_p(cqe + MLX5_CQE_CHECK_SUM, mlx5_pkt_rx_sum(f, len, p));
    cqe[MLX5_CQE_L4_L3_HDR_TYPE] =
        (p->l4 ? (p->proto == IP_PROTO_TCP ? L4_TYPE_TCP : L4_TYPE_UDP) : 0)
        << 4 |
        (p->ip_version == 4 ? L3_TYPE_IPV4 :
         p->ip_version == 6 ? L3_TYPE_IPV6 : 0) << 2;
    cqe[MLX5_CQE_OP_OWN] = MLX5_CQE_OP_RESP_SEND << 4;
    mlx5_cq_post(s, rq->cqn, cqe);
}

/* Scatter into the RQ's next WQE; false: dropped, nothing consumed. */
static bool rx_deliver(MLX5State *s, uint32_t rqn, const uint8_t *f,
                       size_t len, const MLX5Pkt *p)
{
    MLX5WQ *rq = mlx5_wq_get(s, MLX5_WQ_RQ, rqn);
    uint8_t wqe[RQ_WQE_MAX];
    size_t wlen, off, done = 0;
    uint32_t pc = 0;
    uint16_t idx;

    if (!rq || rq->state != RQ_STATE_RDY) {
        trace_mlx5_rx_drop(len, "RQ not ready");
        return false;
    }
    if (pci_dma_read(PCI_DEVICE(s), rq->dbr, &pc, 4) != MEMTX_OK ||
        (uint16_t)be32_to_cpu(pc) == rq->cc) {
        trace_mlx5_rx_drop(len, "no receive WQE");
        return false;
    }
    idx = rq->cc;
    wlen = 1u << rq->log_stride;
    if (mlx5_wq_read(s, rq, idx, wqe, wlen) != MEMTX_OK) {
        memset(wqe, 0, wlen);
    }
    /* It must hold the frame: else dropped, as a port drops oversize. */
    for (off = 0; off + 16 <= wlen && done < len; off += 16) {
        if (ldl_be_p(wqe + off + 4) == DSEG_END_LKEY) {
            break;
        }
        done += MIN(ldl_be_p(wqe + off) & 0x7fffffff, len - done);
    }
    if (done < len) {
        trace_mlx5_rx_small(rqn, idx, wlen, ldl_be_p(wqe), ldl_be_p(wqe + 4));
        return false;
    }
    rq->cc++;
    for (off = 0, done = 0; done < len; off += 16) {
        uint32_t n = MIN(ldl_be_p(wqe + off) & 0x7fffffff, len - done);
        uint64_t addr = ldq_be_p(wqe + off + 8);

        /* Towards memory the buffer is only read: the cast is safe. */
        if (mlx5_mkey_dma(s, rq->pd, ldl_be_p(wqe + off + 4), MLX5_MKEY_LW,
                          addr, (uint8_t *)f + done, n,
                          DMA_DIRECTION_FROM_DEVICE)) {
            rx_cqe(s, rq, rqn, idx, f, len, p, MLX5_CQE_SYND_LOCAL_PROT);
            rq->state = RQ_STATE_ERR;
            return true;
        }
        done += n;
    }
    trace_mlx5_rx(rqn, idx, len);
    /* The data is in memory before the CQE says so. */
    smp_wmb();
    rx_cqe(s, rq, rqn, idx, f, len, p, 0);
    return true;
}

/*
 * A frame to the TIRs steering picks, each a copy.  A looped-back frame
 * (@lb, from an SQ of transport domain @td) skips the TIRs of that same
 * domain unless their self_lb_block bit for its kind (unicast 1,
 * multicast 2) is set: the drivers set those bits to let their own
 * frames back (mlx5e's loopback self-test, mlx5_ib's ALLOW_SELF_LB QP
 * flags), so a set bit lets self loopback through, a clear one blocks.
 */
static void rx_steer(MLX5State *s, const uint8_t *buf, size_t len,
                     const MLX5Pkt *p, bool lb, uint32_t td)
{
    uint8_t mp[MLX5_ST_SZ_BYTES(fte_match_param)];
    uint32_t tirs[MLX5_STEER_MAX_TIRS];
    unsigned int n, i;
    unsigned int self = buf[0] & 1 ? MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST :
                                     MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST;

    rx_match_param(buf, p, mp);
    n = mlx5_steer(s, mp, tirs, ARRAY_SIZE(tirs));
    if (!n) {
        trace_mlx5_rx_drop(len, "no steering entry");
        return;
    }
    for (i = 0; i < n; i++) {
        MLX5Obj *tir = mlx5_obj_get(s, MLX5_OBJ_TIR, tirs[i]);

        if (!tir) {
            continue;
        }
        if (lb && MLX5_GET(tirc, tir->ctx, transport_domain) == td &&
            !(MLX5_GET(tirc, tir->ctx, self_lb_block) & self)) {
            trace_mlx5_rx_drop(len, "self loopback blocked");
            continue;
        }
        rx_deliver(s, rx_tir_rq(s, tir, buf, p), buf, len, p);
    }
}

ssize_t mlx5_rx_frame(MLX5State *s, const uint8_t *buf, size_t len)
{
    MLX5Pkt p;

    if (!s->port_admin_up || len < ETH_HLEN) {
        trace_mlx5_rx_drop(len, "port down or runt");
        return len;
    }
    mlx5_stats_count(s, MLX5_RX, buf, len);
    mlx5_pkt_parse(buf, len, &p);
    /* RoCEv2 to one of our GIDs is the RDMA side's, not the NIC's. */
    if (mlx5_roce_rx(s, buf, len, &p)) {
        return len;
    }
    rx_steer(s, buf, len, &p, false, 0);
    return len;
}

/*
 * Local loopback: a frame an SQ sent goes through this function's own
 * receive steering too when it is multicast or broadcast, or unicast to
 * the port's own address (it also goes to the wire, as the model has no
 * eswitch to tell who else is on it).  Not counted as received from the
 * wire; never to the RoCE side (the engine loops its own frames).
 */
void mlx5_rx_loopback(MLX5State *s, const uint8_t *buf, size_t len,
                      uint32_t td)
{
    MLX5Pkt p;

    if (!s->port_admin_up || len < ETH_HLEN ||
        (!(buf[0] & 1) && memcmp(buf, s->conf.macaddr.a, ETH_ALEN))) {
        return;
    }
    mlx5_pkt_parse(buf, len, &p);
    rx_steer(s, buf, len, &p, true, td);
}

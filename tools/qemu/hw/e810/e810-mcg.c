/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the PE's multicast groups, for UD QPs that join one
 * (irdma's attach_mcast).
 *
 * irdma keeps a group's members itself and gives the PE the whole group
 * at each change: CREATE_MCAST_GRP for its first member, MODIFY for each
 * join or leave after, DESTROY when the last leaves.  The WQE names the
 * group's index (header bits 12:0, fewer than IRDMA_UDA_MAX_FSI_MGS),
 * its MAC (quadword 0, the address as a 48-bit number), whether it is
 * an IPv4 group (header bit 60), its address (IPv4: quadword 6 bits
 * 31:0; IPv6: four host-order words, quadword 7's high and low half,
 * then quadword 6's) and, at quadword 4, the guest address of a context
 * of eight quadwords, one a member: QP id (17:0), valid (31).  VLAN,
 * queue set and destination port are not modelled.
 *
 * A datagram to a group's MAC and UDP port 4791 goes to the PE, and the
 * engine gives one copy to each member (roce_rx_mcast in hw/roce); one
 * that a QP of this device sends to a joined group loops back to the
 * members as well as going to the wire (e810-roce.c).
 *
 * Facts: irdma uda.c (irdma_access_mcast_grp, irdma_create_mg_ctx),
 * uda_d.h (IRDMA_UDA_CQPSQ_MG_*, IRDMA_UDA_MGCTX_*), verbs.c
 * (irdma_attach_mcast: which operation, the address words), irdma.h
 * (IRDMA_MAX_MGS_PER_CTX).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "net/eth.h"
#include "e810.h"
#include "e810-pe.h"
#include "trace.h"

#define MCG_HDR_IDX(h)          extract64(h, 0, 13)
#define MCG_HDR_IPV4            BIT_ULL(60)
#define MCG_CTX_QP(e)           extract64(e, 0, 18)
#define MCG_CTX_VALID           BIT_ULL(31)

/* Group indices irdma may use (IRDMA_UDA_MAX_FSI_MGS). */
#define MCG_MAX                 4096

typedef struct E810Mcg {
    uint8_t mac[ETH_ALEN];
    uint8_t mgid[16];           /* IPv4 as ::ffff:a.b.c.d */
    unsigned int nqps;
    uint32_t qps[E810_MCG_MAX_QPS];
} E810Mcg;

/* The group of a CREATE or MODIFY WQE, its members read from guest memory. */
static uint32_t mcg_read(E810State *s, const uint8_t *wqe, E810Mcg *g)
{
    uint64_t hdr = e810_wqe_hdr(wqe), mac = e810_wqe_q(wqe, 0);
    uint64_t ctx[E810_MCG_MAX_QPS];
    unsigned int i;

    for (i = 0; i < ETH_ALEN; i++) {
        g->mac[i] = mac >> (8 * (ETH_ALEN - 1 - i));
    }
    memset(g->mgid, 0, sizeof(g->mgid));
    if (hdr & MCG_HDR_IPV4) {
        g->mgid[10] = g->mgid[11] = 0xff;
        stl_be_p(g->mgid + 12, e810_wqe_q(wqe, 6));
    } else {
        stl_be_p(g->mgid, e810_wqe_q(wqe, 7) >> 32);
        stl_be_p(g->mgid + 4, e810_wqe_q(wqe, 7));
        stl_be_p(g->mgid + 8, e810_wqe_q(wqe, 6) >> 32);
        stl_be_p(g->mgid + 12, e810_wqe_q(wqe, 6));
    }
    if (!e810_dma_read(s, e810_wqe_q(wqe, 4), ctx, sizeof(ctx))) {
        return E810_PE_ERR_DMA;
    }
    g->nqps = 0;
    for (i = 0; i < E810_MCG_MAX_QPS; i++) {
        uint64_t e = le64_to_cpu(ctx[i]);

        if (e & MCG_CTX_VALID) {
            g->qps[g->nqps++] = MCG_CTX_QP(e);
        }
    }
    return 0;
}

static uint32_t e810_mcg_op(E810State *s, E810Pe *pe, const uint8_t *wqe,
                            uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    uint8_t op = E810_CQP_HDR_OPCODE(hdr);
    uint32_t idx = MCG_HDR_IDX(hdr);
    gpointer key = GUINT_TO_POINTER(idx);
    E810Mcg *g = g_hash_table_lookup(pe->mcgs, key);
    g_autofree E810Mcg *n = NULL;
    uint32_t st;

    if (idx >= MCG_MAX || (op == E810_CQP_CREATE_MCAST_GRP) == !!g) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: multicast group %u: "
                      "opcode 0x%02x\n", idx, op);
        return E810_PE_ERR_INVAL;
    }
    if (op == E810_CQP_DESTROY_MCAST_GRP) {
        g_hash_table_remove(pe->mcgs, key);
        trace_e810_mcg(idx, 0);
        return 0;
    }
    n = g_new0(E810Mcg, 1);
    st = mcg_read(s, wqe, n);
    if (st) {
        return st;
    }
    trace_e810_mcg(idx, n->nqps);
    g_hash_table_replace(pe->mcgs, key, g_steal_pointer(&n));
    return 0;
}

unsigned int e810_mcg_qps(E810State *s, const uint8_t *mgid, uint32_t *qps,
                          unsigned int max)
{
    GHashTableIter it;
    E810Mcg *g;

    g_hash_table_iter_init(&it, s->pe->mcgs);
    while (g_hash_table_iter_next(&it, NULL, (gpointer *)&g)) {
        if (!memcmp(g->mgid, mgid, sizeof(g->mgid))) {
            max = MIN(max, g->nqps);
            memcpy(qps, g->qps, max * sizeof(*qps));
            return max;
        }
    }
    return 0;
}

bool e810_mcg_mac(E810State *s, const uint8_t *mac)
{
    GHashTableIter it;
    E810Mcg *g;

    g_hash_table_iter_init(&it, s->pe->mcgs);
    while (g_hash_table_iter_next(&it, NULL, (gpointer *)&g)) {
        if (g->nqps && !memcmp(g->mac, mac, ETH_ALEN)) {
            return true;
        }
    }
    return false;
}

const E810PeOp e810_mcg_ops[] = {
    { E810_CQP_CREATE_MCAST_GRP, "create_mcast_grp", e810_mcg_op },
    { E810_CQP_MODIFY_MCAST_GRP, "modify_mcast_grp", e810_mcg_op },
    { E810_CQP_DESTROY_MCAST_GRP, "destroy_mcast_grp", e810_mcg_op },
    { 0, NULL, NULL }
};

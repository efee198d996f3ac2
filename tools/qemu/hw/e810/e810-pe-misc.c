/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the PE's smaller CQP commands.
 *
 *  - QUERY_RDMA_FEATURES: the firmware version and the hardware's
 *    (irdma wants at least two features).
 *  - WORK_SCHED_NODE: work scheduler nodes; adding a leaf returns its
 *    queue set handle, which the model makes the node's ID (irdma then
 *    names that queue set to ice, and puts it in its QPs' contexts).
 *  - MANAGE_ARP: the ARP cache, indexed by the driver; the RoCE data
 *    path takes destination MACs from it.
 *  - Address handles: the model keeps each command's WQE, by index, for
 *    the data path to decode (e810-roce-qp.c).  STags are e810-stag.c's,
 *    multicast groups e810-mcg.c's; this file clears their tables.
 *  - Commands for what the RoCE model has no use for (iWARP's port and
 *    quad hash tables, gen 1's MAC table, the priority map, NOP): taken
 *    and done.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "e810.h"
#include "e810-pe.h"

/* QUERY_RDMA_FEATURES: buffer length in the header's bits 31:0. */
#define E810_FEAT_TYPE_SHIFT    48
#define E810_FEAT_CNT_SHIFT     32
#define E810_FEAT_FW_INFO       0
#define E810_FEAT_HW_VERSION    1
#define E810_FEAT_NUM           2
#define E810_PE_FW_MAJOR        1
#define E810_PE_FW_MINOR        0
#define E810_PE_HW_VERSION      2

/* WORK_SCHED_NODE. */
#define E810_WS_NODE_ID(h)      extract64(h, 0, 10)
#define E810_WS_NODE_OP(h)      extract64(h, 52, 2)
#define E810_WS_NODE_LEAF       BIT_ULL(61)
#define E810_WS_OP_ADD          0

/* MANAGE_ARP. */
#define E810_ARP_IDX(h)         extract64(h, 0, 12)
#define E810_ARP_ENTRY_VALID    BIT_ULL(42)
#define E810_ARP_MAC_MASK       0xffffffffffffULL

/* Address handle index. */
#define E810_AH_IDX(h)          extract64(h, 0, 17)

static uint32_t e810_pe_query_features(E810State *s, E810Pe *pe,
                                       const uint8_t *wqe, uint32_t *ret)
{
    uint8_t buf[E810_FEAT_NUM * 8];
    uint32_t len = extract64(e810_wqe_hdr(wqe), 0, 32);

    if (len < sizeof(buf)) {
        return E810_PE_ERR_INVAL;
    }
    stq_le_p(buf, (uint64_t)E810_FEAT_FW_INFO << E810_FEAT_TYPE_SHIFT |
             (uint64_t)E810_FEAT_NUM << E810_FEAT_CNT_SHIFT |
             E810_PE_FW_MAJOR << 16 | E810_PE_FW_MINOR);
    stq_le_p(buf + 8, (uint64_t)E810_FEAT_HW_VERSION << E810_FEAT_TYPE_SHIFT |
             E810_PE_HW_VERSION);
    if (!e810_dma_write(s, e810_wqe_q(wqe, 4), buf, sizeof(buf))) {
        return E810_PE_ERR_DMA;
    }
    return 0;
}

static uint32_t e810_pe_ws_node(E810State *s, E810Pe *pe,
                                const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);

    if (E810_WS_NODE_OP(hdr) == E810_WS_OP_ADD &&
        (hdr & E810_WS_NODE_LEAF)) {
        *ret = E810_WS_NODE_ID(hdr);
    }
    return 0;
}

static uint32_t e810_pe_manage_arp(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    unsigned int idx = E810_ARP_IDX(hdr);

    if (idx >= E810_PE_MAX_ARP || !e810_hmc_has(pe, E810_HMC_ARP, idx)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: ARP entry %u\n", idx);
        return E810_PE_ERR_INVAL;
    }
    pe->arp[idx] = 0;
    if (hdr & E810_ARP_ENTRY_VALID) {
        pe->arp[idx] = (e810_wqe_q(wqe, 2) & E810_ARP_MAC_MASK) |
                       E810_PE_ARP_VALID;
    }
    return 0;
}

/* Keep (or, DESTROY, drop) the WQE under KEY in TABLE. */
static void e810_pe_keep_wqe(GHashTable *table, uint32_t key,
                             const uint8_t *wqe, bool destroy)
{
    if (destroy) {
        g_hash_table_remove(table, GUINT_TO_POINTER(key));
    } else {
        g_hash_table_insert(table, GUINT_TO_POINTER(key),
                            g_memdup2(wqe, E810_CQP_WQE_SIZE));
    }
}

static uint32_t e810_pe_ah(E810State *s, E810Pe *pe, const uint8_t *wqe,
                           uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    uint32_t idx = E810_AH_IDX(hdr);

    if (!e810_hmc_has(pe, E810_HMC_FSIAV, idx)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: address handle %u\n", idx);
        return E810_PE_ERR_INVAL;
    }
    e810_pe_keep_wqe(pe->ahs, idx, wqe,
                     E810_CQP_HDR_OPCODE(hdr) == E810_CQP_DESTROY_AH);
    return 0;
}

static uint32_t e810_pe_accept(E810State *s, E810Pe *pe, const uint8_t *wqe,
                               uint32_t *ret)
{
    return 0;
}

static uint32_t e810_pe_unsupported(E810State *s, E810Pe *pe,
                                    const uint8_t *wqe, uint32_t *ret)
{
    qemu_log_mask(LOG_UNIMP, "e810: CQP opcode 0x%02x\n",
                  (unsigned int)E810_CQP_HDR_OPCODE(e810_wqe_hdr(wqe)));
    return E810_PE_ERR_UNSUPP;
}

void e810_pe_misc_reset(E810Pe *pe)
{
    memset(pe->arp, 0, sizeof(pe->arp));
    if (pe->stags) {
        g_hash_table_remove_all(pe->stags);
    }
    if (pe->ahs) {
        g_hash_table_remove_all(pe->ahs);
    }
    if (pe->mcgs) {
        g_hash_table_remove_all(pe->mcgs);
    }
}

const E810PeOp e810_pe_misc_ops[] = {
    { E810_CQP_QUERY_RDMA_FEATURES, "query_rdma_features",
      e810_pe_query_features },
    { E810_CQP_WORK_SCHED_NODE, "work_sched_node", e810_pe_ws_node },
    { E810_CQP_MANAGE_ARP, "manage_arp", e810_pe_manage_arp },
    { E810_CQP_CREATE_AH, "create_ah", e810_pe_ah },
    { E810_CQP_MODIFY_AH, "modify_ah", e810_pe_ah },
    { E810_CQP_DESTROY_AH, "destroy_ah", e810_pe_ah },
    { E810_CQP_MANAGE_APBVT, "manage_apbvt", e810_pe_accept },
    { E810_CQP_MANAGE_QHASH, "manage_qhash", e810_pe_accept },
    { E810_CQP_MANAGE_LOC_MAC, "manage_loc_mac", e810_pe_accept },
    { E810_CQP_ALLOC_LOC_MAC_ENTRY, "alloc_loc_mac_entry", e810_pe_accept },
    { E810_CQP_UP_MAP, "up_map", e810_pe_accept },
    { E810_CQP_NOP, "nop", e810_pe_accept },
    /* irdma never queries an STag; shared regions are gen 1's. */
    { E810_CQP_QUERY_STAG, "query_stag", e810_pe_unsupported },
    { E810_CQP_REG_SMR, "reg_smr", e810_pe_unsupported },
    { E810_CQP_MANAGE_VF_PBLE_BP, "manage_vf_pble_bp", e810_pe_unsupported },
    { E810_CQP_MANAGE_PUSH_PAGES, "manage_push_pages", e810_pe_unsupported },
    { 0, NULL, NULL }
};

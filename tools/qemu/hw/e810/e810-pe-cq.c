/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the PE's completion queues (CQs), completion event queues
 * (CEQs) and its asynchronous event queue (AEQ).
 *
 * All three are rings the device writes and the driver reads, each entry
 * carrying a valid bit whose sense flips at every wrap (1 on the first
 * pass): a CQE's in bit 63 of its fourth qword, a CEQE's in bit 63 of
 * its only one, an AEQE's in bit 63 of its second.  A ring is either
 * contiguous in guest memory or a list of 4 KiB pages in PBLEs (level 1;
 * level 2 is a list of such lists).
 *
 * A CQ notifies once per arming: the driver sets "arm next" (any
 * completion) or "arm next solicited" in the CQ's shadow area (qword 4)
 * and writes the CQ's number to PFPE_CQARM (or the user doorbell page);
 * the next completion then puts a CEQE, the CQ's completion context, on
 * the CQ's CEQ, and that raises the interrupt GLINT_CEQCTL(ceq) names.
 * An AEQE raises the one PFINT_AEQCTL names.  The driver's
 * acknowledgements (PFPE_CQACK, PFPE_AEQALLOC) are not waited for: the
 * model trusts the driver to size its rings, as irdma does (a CEQ holds
 * an entry for each CQ, the AEQ one for each QP and CQ).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "e810.h"
#include "e810-pe.h"
#include "trace.h"

#define E810_PE_PAGE_SIZE       (4 * KiB)
#define E810_PE_PBLES_PER_LEAF  512

#define E810_CQE_VALID          BIT_ULL(63)
#define E810_CQE_SIZE           32
#define E810_CEQE_SIZE          8
#define E810_AEQE_SIZE          16

/* The CQ's shadow area: arming in qword 4. */
#define E810_CQ_SHADOW_ARM      32
#define E810_CQ_ARM_NEXT        BIT_ULL(14)
#define E810_CQ_ARM_NEXT_SE     BIT_ULL(15)

/* CREATE/MODIFY/DESTROY_CQ. */
#define E810_CQ_HDR_CQID(h)     extract64(h, 0, 19)
#define E810_CQ_HDR_CEQID(h)    extract64(h, 22, 10)
#define E810_CQ_HDR_RESIZE      BIT_ULL(43)
#define E810_CQ_HDR_LPBL(h)     extract64(h, 44, 2)
#define E810_CQ_HDR_VIRTMAP     BIT_ULL(47)
#define E810_CQ_HDR_CEQE_MASK   BIT_ULL(48)
#define E810_CQ_HDR_CEQ_VALID   BIT_ULL(49)
#define E810_CQ_HDR_EXT_CQE     BIT_ULL(61)
#define E810_CQ_SIZE(q)         extract64(q, 0, 21)
#define E810_CQ_CTX(q)          extract64(q, 0, 63)
#define E810_FIRST_PBLE(q)      extract64(q, 0, 28)

/* CREATE/DESTROY_CEQ and _AEQ. */
#define E810_EQ_HDR_CEQID(h)    extract64(h, 0, 10)
#define E810_EQ_HDR_LPBL(h)     extract64(h, 44, 2)
#define E810_EQ_HDR_VMAP        BIT_ULL(47)
#define E810_CEQ_SIZE(q)        extract64(q, 0, 22)
#define E810_AEQ_SIZE(q)        extract64(q, 0, 19)
#define E810_CEQ_MAX_SIZE       262143
#define E810_AEQ_MAX_SIZE       524287
/*
 * A CQ's ring may be as large as its 21-bit size field: irdma's largest
 * CQ (max_cqe, IRDMA_MAX_CQ_SIZE 1048575 less one) becomes twice as many
 * 32-byte entries on gen 2, plus their slack, so a ring of 1048576 to
 * 2097150 entries is one irdma asks for (pyverbs' test_create_cq).
 */
#define E810_CQ_MAX_SIZE        ((1u << 21) - 1)

bool e810_pe_ring_addr(E810State *s, const E810PeRing *r, uint64_t off,
                       uint64_t *pa)
{
    uint64_t page = off / E810_PE_PAGE_SIZE;
    uint64_t leaf, entry;

    if (!r->virt) {
        *pa = r->pa + off;
        return true;
    }
    if (r->pbl_level == 2) {
        /* The root's entries are PBLE indices of lists of pages. */
        uint64_t root = r->first_pble + page / E810_PE_PBLES_PER_LEAF;

        if (root > UINT32_MAX || !e810_hmc_pble(s, root, &leaf) ||
            leaf > UINT32_MAX - E810_PE_PBLES_PER_LEAF ||
            !e810_hmc_pble(s, leaf + page % E810_PE_PBLES_PER_LEAF, &entry)) {
            return false;
        }
    } else if (page > UINT32_MAX - r->first_pble ||
               !e810_hmc_pble(s, r->first_pble + page, &entry)) {
        return false;
    }
    *pa = (entry & ~(uint64_t)(E810_PE_PAGE_SIZE - 1)) +
          off % E810_PE_PAGE_SIZE;
    return true;
}

/*
 * A ring from a create command: its size in entries, STRIDE bytes
 * each, contiguous at PA or virtual (PBLEs from FIRST_PBLE, LEVEL).
 */
static bool e810_pe_ring_init(E810PeRing *r, uint64_t pa, bool virt,
                              unsigned int level, uint32_t first_pble,
                              uint32_t size, uint32_t stride)
{
    if (!size || (virt && level > 2) || (!virt && !pa)) {
        return false;
    }
    r->pa = virt ? 0 : pa;
    r->virt = virt;
    r->pbl_level = level ? level : 1;
    r->first_pble = virt ? first_pble : 0;
    r->size = size;
    r->stride = stride;
    r->head = 0;
    r->polarity = true;
    return true;
}

/*
 * Write entry E (LEN bytes, at most the stride) at the ring's head,
 * the valid bit into bit 63 of qword VALID_QWORD, and move the head.
 * The qword holding the valid bit goes last.
 */
static bool e810_pe_ring_put(E810State *s, E810PeRing *r, uint8_t *e,
                             size_t len, unsigned int valid_qword)
{
    uint64_t pa, q;
    size_t voff = valid_qword * 8;

    if (!e810_pe_ring_addr(s, r, (uint64_t)r->head * r->stride, &pa)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: PE ring entry %u unmapped\n",
                      r->head);
        return false;
    }
    q = ldq_le_p(e + voff) & ~E810_CQE_VALID;
    if (r->polarity) {
        q |= E810_CQE_VALID;
    }
    stq_le_p(e + voff, q);
    if ((voff && !e810_dma_write(s, pa, e, voff)) ||
        (voff + 8 < len && !e810_dma_write(s, pa + voff + 8, e + voff + 8,
                                           len - voff - 8)) ||
        !e810_dma_write(s, pa + voff, e + voff, 8)) {
        return false;
    }
    r->head = (r->head + 1) % r->size;
    if (!r->head) {
        r->polarity = !r->polarity;
    }
    return true;
}

/* An interrupt cause register: the MSI-X index, if the cause is on. */
static void e810_pe_irq(E810State *s, uint32_t ctl)
{
    if (ctl & E810_INT_CTL_CAUSE_ENA) {
        e810_irq_raise(s, E810_INT_CTL_MSIX_INDX(ctl));
    }
}

static void e810_pe_ceq_post(E810State *s, unsigned int ceq, uint64_t ctx)
{
    E810Pe *pe = s->pe;
    uint8_t e[E810_CEQE_SIZE];

    if (ceq >= E810_PE_MAX_CEQS || !pe->ceq[ceq].valid) {
        return;
    }
    stq_le_p(e, ctx);
    if (e810_pe_ring_put(s, &pe->ceq[ceq].ring, e, sizeof(e), 0)) {
        trace_e810_pe_ceqe(ceq, ctx, pe->ceq_ctl[ceq]);
        e810_pe_irq(s, pe->ceq_ctl[ceq]);
    }
}

bool e810_pe_aeq_post(E810State *s, uint64_t ctx, uint64_t info)
{
    E810Pe *pe = s->pe;
    uint8_t e[E810_AEQE_SIZE];

    if (!pe->aeq.valid) {
        return false;
    }
    stq_le_p(e, ctx);
    stq_le_p(e + 8, info);
    if (!e810_pe_ring_put(s, &pe->aeq.ring, e, sizeof(e), 1)) {
        return false;
    }
    e810_pe_irq(s, pe->aeq_ctl);
    return true;
}

/*
 * Write the 32-byte slot E at entry IDX of CQ ring R with valid bit
 * POLARITY, its valid quadword (the fourth) last.
 */
static bool e810_pe_cq_slot_put(E810State *s, const E810PeRing *r,
                                uint32_t idx, const uint8_t *e,
                                bool polarity)
{
    uint8_t slot[E810_CQE_SIZE];
    uint64_t pa, q;

    if (!e810_pe_ring_addr(s, r, (uint64_t)idx * r->stride, &pa)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CQ entry %u unmapped\n", idx);
        return false;
    }
    memcpy(slot, e, sizeof(slot));
    q = ldq_le_p(slot + 24) & ~E810_CQE_VALID;
    stq_le_p(slot + 24, q | (polarity ? E810_CQE_VALID : 0));
    return e810_dma_write(s, pa, slot, 24) &&
           e810_dma_write(s, pa + 24, slot + 24, 8);
}

bool e810_pe_cq_post_n(E810State *s, uint32_t cqid, const uint8_t *cqe,
                       unsigned int n, bool solicited)
{
    E810PeCq *cq = cqid < E810_PE_MAX_CQS ? s->pe->cq[cqid] : NULL;
    E810PeRing *r;
    unsigned int k;

    if (!cq || n < 1 || n > 2) {
        return false;
    }
    r = &cq->ring;
    if (n > r->size || (n > 1 && r->stride != E810_CQE_SIZE)) {
        /* A CQ of 64-byte entries or of one entry: no room for two. */
        qemu_log_mask(LOG_UNIMP, "e810: CQ %u: %u-slot CQE in %u-byte "
                      "entries\n", cqid, n, r->stride);
        n = 1;
    }
    /* The later slots first: the driver polls the first one. */
    for (k = n; k-- > 0;) {
        uint32_t idx = r->head + k;
        bool pol = r->polarity;

        if (idx >= r->size) {
            idx -= r->size;
            pol = !pol;
        }
        if (!e810_pe_cq_slot_put(s, r, idx, cqe + k * E810_CQE_SIZE, pol)) {
            return false;
        }
    }
    r->head += n;
    if (r->head >= r->size) {
        r->head -= r->size;
        r->polarity = !r->polarity;
    }
    /*
     * irdma sets ENCEQEMASK on every CQ of its verbs (irdma_create_cq):
     * a CEQE only when armed, as for its CCQ without it.
     */
    if ((cq->armed || (cq->armed_se && solicited)) && cq->ceq_valid) {
        cq->armed = false;
        cq->armed_se = false;
        e810_pe_ceq_post(s, cq->ceq, cq->ctx);
    }
    return true;
}

bool e810_pe_cq_post(E810State *s, uint32_t cqid, const uint8_t *cqe,
                     bool solicited)
{
    return e810_pe_cq_post_n(s, cqid, cqe, 1, solicited);
}

void e810_pe_cq_arm(E810State *s, uint32_t cqid)
{
    E810PeCq *cq = cqid < E810_PE_MAX_CQS ? s->pe->cq[cqid] : NULL;
    uint64_t arm;

    if (!cq) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: arming CQ %u: no such CQ\n",
                      cqid);
        return;
    }
    if (!e810_dma_read(s, cq->shadow_pa + E810_CQ_SHADOW_ARM, &arm,
                       sizeof(arm))) {
        return;
    }
    arm = le64_to_cpu(arm);
    cq->armed = arm & E810_CQ_ARM_NEXT;
    cq->armed_se = arm & E810_CQ_ARM_NEXT_SE;
    trace_e810_pe_cq_arm(cqid, cq->armed, cq->armed_se);
}

static uint32_t e810_pe_create_cq(E810State *s, E810Pe *pe,
                                  const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    uint32_t id = E810_CQ_HDR_CQID(hdr);
    uint32_t size = E810_CQ_SIZE(e810_wqe_q(wqe, 0));
    E810PeCq cq = { 0 };

    if (id >= E810_PE_MAX_CQS || !e810_hmc_has(pe, E810_HMC_CQ, id) ||
        pe->cq[id] || size > E810_CQ_MAX_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CREATE_CQ %u (size %u)\n",
                      id, size);
        return E810_PE_ERR_INVAL;
    }
    cq.ctx = E810_CQ_CTX(e810_wqe_q(wqe, 1));
    cq.shadow_pa = e810_wqe_q(wqe, 5);
    cq.ceq = E810_CQ_HDR_CEQID(hdr);
    cq.ceq_valid = hdr & E810_CQ_HDR_CEQ_VALID;
    cq.ceqe_mask = hdr & E810_CQ_HDR_CEQE_MASK;
    if ((cq.ceq_valid && cq.ceq >= E810_PE_MAX_CEQS) ||
        !e810_pe_ring_init(&cq.ring, e810_wqe_q(wqe, 4),
                           hdr & E810_CQ_HDR_VIRTMAP, E810_CQ_HDR_LPBL(hdr),
                           E810_FIRST_PBLE(e810_wqe_q(wqe, 6)), size,
                           hdr & E810_CQ_HDR_EXT_CQE ? 2 * E810_CQE_SIZE :
                           E810_CQE_SIZE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CREATE_CQ %u: bad ring\n", id);
        return E810_PE_ERR_INVAL;
    }
    pe->cq[id] = g_memdup2(&cq, sizeof(cq));
    return 0;
}

static uint32_t e810_pe_modify_cq(E810State *s, E810Pe *pe,
                                  const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    uint32_t id = E810_CQ_HDR_CQID(hdr);
    uint32_t size = E810_CQ_SIZE(e810_wqe_q(wqe, 0));
    E810PeRing ring;

    if (id >= E810_PE_MAX_CQS || !pe->cq[id]) {
        return E810_PE_ERR_INVAL;
    }
    if (!(hdr & E810_CQ_HDR_RESIZE)) {
        return 0;
    }
    /* A new ring; the driver starts reading it from its first entry. */
    if (size > E810_CQ_MAX_SIZE ||
        !e810_pe_ring_init(&ring, e810_wqe_q(wqe, 4),
                           hdr & E810_CQ_HDR_VIRTMAP, E810_CQ_HDR_LPBL(hdr),
                           E810_FIRST_PBLE(e810_wqe_q(wqe, 6)), size,
                           pe->cq[id]->ring.stride)) {
        return E810_PE_ERR_INVAL;
    }
    pe->cq[id]->ring = ring;
    return 0;
}

static uint32_t e810_pe_destroy_cq(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    uint32_t id = E810_CQ_HDR_CQID(e810_wqe_hdr(wqe));

    if (id >= E810_PE_MAX_CQS || !pe->cq[id]) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: DESTROY_CQ %u: no such CQ\n",
                      id);
        return E810_PE_ERR_INVAL;
    }
    g_free(pe->cq[id]);
    pe->cq[id] = NULL;
    return 0;
}

static uint32_t e810_pe_create_ceq(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    unsigned int id = E810_EQ_HDR_CEQID(hdr);
    uint32_t size = E810_CEQ_SIZE(e810_wqe_q(wqe, 2));
    E810PeEq *eq;

    if (id >= E810_PE_MAX_CEQS || pe->ceq[id].valid ||
        size > E810_CEQ_MAX_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CREATE_CEQ %u (size %u)\n",
                      id, size);
        return E810_PE_ERR_INVAL;
    }
    eq = &pe->ceq[id];
    if (!e810_pe_ring_init(&eq->ring, e810_wqe_q(wqe, 4),
                           hdr & E810_EQ_HDR_VMAP, E810_EQ_HDR_LPBL(hdr),
                           E810_FIRST_PBLE(e810_wqe_q(wqe, 6)), size,
                           E810_CEQE_SIZE)) {
        return E810_PE_ERR_INVAL;
    }
    eq->valid = true;
    return 0;
}

static uint32_t e810_pe_destroy_ceq(E810State *s, E810Pe *pe,
                                    const uint8_t *wqe, uint32_t *ret)
{
    unsigned int id = E810_EQ_HDR_CEQID(e810_wqe_hdr(wqe));

    if (id >= E810_PE_MAX_CEQS || !pe->ceq[id].valid) {
        return E810_PE_ERR_INVAL;
    }
    pe->ceq[id].valid = false;
    return 0;
}

static uint32_t e810_pe_create_aeq(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    uint32_t size = E810_AEQ_SIZE(e810_wqe_q(wqe, 2));

    if (pe->aeq.valid || size > E810_AEQ_MAX_SIZE ||
        !e810_pe_ring_init(&pe->aeq.ring, e810_wqe_q(wqe, 4),
                           hdr & E810_EQ_HDR_VMAP, E810_EQ_HDR_LPBL(hdr),
                           E810_FIRST_PBLE(e810_wqe_q(wqe, 6)), size,
                           E810_AEQE_SIZE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CREATE_AEQ (size %u)\n", size);
        return E810_PE_ERR_INVAL;
    }
    pe->aeq.valid = true;
    return 0;
}

static uint32_t e810_pe_destroy_aeq(E810State *s, E810Pe *pe,
                                    const uint8_t *wqe, uint32_t *ret)
{
    if (!pe->aeq.valid) {
        return E810_PE_ERR_INVAL;
    }
    pe->aeq.valid = false;
    return 0;
}

void e810_pe_cq_reset(E810Pe *pe)
{
    unsigned int i;

    for (i = 0; i < E810_PE_MAX_CQS; i++) {
        g_free(pe->cq[i]);
        pe->cq[i] = NULL;
    }
    memset(pe->ceq, 0, sizeof(pe->ceq));
    memset(&pe->aeq, 0, sizeof(pe->aeq));
}

const E810PeOp e810_pe_cq_ops[] = {
    { E810_CQP_CREATE_CQ, "create_cq", e810_pe_create_cq },
    { E810_CQP_MODIFY_CQ, "modify_cq", e810_pe_modify_cq },
    { E810_CQP_DESTROY_CQ, "destroy_cq", e810_pe_destroy_cq },
    { E810_CQP_CREATE_CEQ, "create_ceq", e810_pe_create_ceq },
    { E810_CQP_DESTROY_CEQ, "destroy_ceq", e810_pe_destroy_ceq },
    { E810_CQP_CREATE_AEQ, "create_aeq", e810_pe_create_aeq },
    { E810_CQP_DESTROY_AEQ, "destroy_aeq", e810_pe_destroy_aeq },
    { 0, NULL, NULL }
};

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: STags, the PE's memory keys, and memory access under them.
 *
 * An STag is an index (bits 31:8) and a key (bits 7:0).  The index's low
 * bits are the MR object of the HMC, at least 14 of them and as many as
 * the committed count needs; the rest are a "driver key" irdma picks at
 * random, checked with the key.  The CQP makes them:
 *
 *  - REG_MR registers a memory region at once: protection domain,
 *    length, access rights, VA-based or zero-based (then the first
 *    byte's offset in its first page), and its pages: one (a guest
 *    address) or a PBLE list, of one level or two (a root of PBLE
 *    indices of lists), pages of 4 KiB, 2 MiB or 1 GiB.
 *  - ALLOC_STAG reserves an index for a later FAST_REG WQE (kernel
 *    ULPs' IB_WR_REG_MR) under its protection domain, invalid until
 *    then; a memory window's allocation (the MR bit clear) likewise,
 *    for a later BIND_MW WQE, type 1 (ibv_bind_mw) when its "wide" bit
 *    is set, else type 2.
 *  - DEALLOC_STAG frees the index.
 *
 * A FAST_REG WQE gives an allocated STag its key, address, length,
 * rights and pages; a LOCAL_INV WQE or a peer's SEND with invalidate
 * makes it invalid again (only such STags: a registered region cannot
 * be invalidated, nor a type 1 window).  A BIND_MW WQE gives a window
 * its key, remote rights and a range inside a valid region of its
 * protection domain that allows binding; a type 1 bind of length 0
 * unbinds.  An access through a window is checked against the window
 * (remote rights, range), then goes through its region, which must
 * still be valid.
 *
 * An access is checked as the engine asks (hw/roce/roce.h, ops->dma):
 * the index, the key, the QP's protection domain, the right (local
 * read to gather, local write to scatter, remote read or write), the
 * range; then it is split at page ends and each piece goes through the
 * region's page list.  A kernel QP (its context's privileged bit) may
 * use STag 0 for guest memory itself: irdma reports a local DMA lkey
 * of 0 (IBK_LOCAL_DMA_LKEY) and its kernel ULPs post guest addresses.
 *
 * Facts: irdma ctrl.c (irdma_sc_alloc_stag, irdma_sc_mr_reg_non_shared,
 * irdma_sc_dealloc_stag, irdma_sc_mw_alloc, irdma_sc_mr_fast_register),
 * verbs.c (irdma_hwreg_mr, irdma_get_mr_access, irdma_query_device's
 * IBK_LOCAL_DMA_LKEY, irdma_roce_fill_and_set_qpctx_info: priv_mode_en
 * for kernel QPs), pble.c (get_lvl2_pble: root entries are leaf PBLE
 * indices), icrdma_hw.h (ICRDMA_CQPSQ_STAG_PDID), user.h
 * (IRDMA_ACCESS_FLAGS_*).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "e810.h"
#include "e810-roce-int.h"
#include "trace.h"

/* The CQP WQE's fields. */
#define STAG_LEN(q)             extract64(q, 0, 46)
#define STAG_PD(q)              extract64(q, 46, 18)
#define STAG_KEY(q)             extract64(q, 0, 8)
#define STAG_IDX(q)             extract64(q, 8, 24)
#define STAG_FIRST_PBLE(q)      extract64(q, 0, 28)
#define STAG_HDR_MW_WIDE        BIT_ULL(42)     /* type 1 */
#define STAG_HDR_MR             BIT_ULL(43)
#define STAG_HDR_LPBL(h)        extract64(h, 44, 2)
#define STAG_HDR_PAGE_SIZE(h)   extract64(h, 46, 2)
#define STAG_HDR_RIGHTS(h)      extract64(h, 48, 5)
#define STAG_HDR_VA_BASED       BIT_ULL(59)

/* LPBLSIZE: one page; a PBLE list; (3) a two-level list. */
#define STAG_PBL_NONE           0
#define STAG_PBL_LEVEL1         1
#define STAG_PBL_LEVEL2         3
#define PBLES_PER_LEAF          512

/* The fewest index bits (irdma_setup_init_state's mr_stagmask). */
#define STAG_MIN_IDX_BITS       14

typedef struct E810Stag {
    uint32_t stag;          /* all of it: index, driver key, key */
    bool valid;             /* usable: registered, or fast-registered */
    bool fast;              /* from ALLOC_STAG: FAST_REG, invalidation */
    bool mw;
    bool mw_type1;
    uint32_t parent;        /* a bound window: its region's STag */
    uint32_t pd;
    uint8_t access;         /* E810_ACC_* */
    bool va_based;
    uint64_t va;            /* VA-based: the region's first byte */
    uint64_t fbo;           /* the first byte's offset in its page */
    uint64_t len;
    uint64_t max_len;       /* ALLOC_STAG's: what a FAST_REG may map */
    uint8_t pbl;            /* STAG_PBL_* */
    uint64_t pa;            /* STAG_PBL_NONE: the first page */
    uint32_t first_pble;
    uint64_t page_size;
} E810Stag;

static uint64_t stag_page_size(unsigned int code)
{
    return code == 2 ? 1 * GiB : code == 1 ? 2 * MiB : 4 * KiB;
}

/* The HMC index of an STag's bits 31:8 (FIELD). */
static uint32_t stag_index(E810Pe *pe, uint32_t field)
{
    uint32_t cnt = pe->obj[E810_HMC_MR].cnt;
    unsigned int bits = cnt > 1 ? 32 - clz32(cnt - 1) : 0;

    bits = MAX(bits, STAG_MIN_IDX_BITS);
    return field & ((1u << bits) - 1);
}

/* The STag at STAG's index, whatever its key. */
static E810Stag *stag_at(E810State *s, uint32_t stag)
{
    uint32_t idx = stag_index(s->pe, stag >> 8);

    return g_hash_table_lookup(s->pe->stags, GUINT_TO_POINTER(idx));
}

/* The STag STAG names, if its index, driver key and key are right. */
static E810Stag *stag_find(E810State *s, uint32_t stag)
{
    E810Stag *st = stag_at(s, stag);

    return st && st->stag == stag ? st : NULL;
}

static void stag_set_pages(E810Stag *st, uint64_t va_or_fbo, bool va_based,
                           unsigned int page_code)
{
    st->page_size = stag_page_size(page_code);
    st->va_based = va_based;
    st->va = va_based ? va_or_fbo : 0;
    st->fbo = va_or_fbo & (st->page_size - 1);
}

static uint32_t stag_check_idx(E810Pe *pe, uint32_t field,
                               const char *what)
{
    if (!e810_hmc_has(pe, E810_HMC_MR, stag_index(pe, field))) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: %s: STag index 0x%x\n", what,
                      field);
        return E810_PE_ERR_INVAL;
    }
    return 0;
}

static void stag_insert(E810Pe *pe, E810Stag *st)
{
    g_hash_table_insert(pe->stags,
                        GUINT_TO_POINTER(stag_index(pe, st->stag >> 8)), st);
}

static uint32_t e810_stag_alloc(E810State *s, E810Pe *pe,
                                const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    uint32_t idx = STAG_IDX(e810_wqe_q(wqe, 2));
    E810Stag *st;

    if (stag_check_idx(pe, idx, "ALLOC_STAG")) {
        return E810_PE_ERR_INVAL;
    }
    st = g_new0(E810Stag, 1);
    st->stag = idx << 8;
    st->fast = true;
    st->mw = !(hdr & STAG_HDR_MR);
    st->mw_type1 = st->mw && (hdr & STAG_HDR_MW_WIDE);
    st->pd = STAG_PD(e810_wqe_q(wqe, 1));
    st->max_len = STAG_LEN(e810_wqe_q(wqe, 1));
    st->page_size = stag_page_size(STAG_HDR_PAGE_SIZE(hdr));
    stag_insert(pe, st);
    return 0;
}

static uint32_t e810_stag_reg_mr(E810State *s, E810Pe *pe,
                                 const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    uint64_t q1 = e810_wqe_q(wqe, 1), q2 = e810_wqe_q(wqe, 2);
    uint32_t idx = STAG_IDX(q2);
    E810Stag *st;

    if (stag_check_idx(pe, idx, "REG_MR")) {
        return E810_PE_ERR_INVAL;
    }
    if (STAG_HDR_LPBL(hdr) == 2 || STAG_HDR_PAGE_SIZE(hdr) == 3) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: REG_MR %u: PBL level %u, "
                      "page size %u\n", idx, (unsigned)STAG_HDR_LPBL(hdr),
                      (unsigned)STAG_HDR_PAGE_SIZE(hdr));
        return E810_PE_ERR_INVAL;
    }
    st = g_new0(E810Stag, 1);
    st->valid = true;
    st->stag = idx << 8 | STAG_KEY(q2);
    st->pd = STAG_PD(q1);
    st->len = STAG_LEN(q1);
    st->access = STAG_HDR_RIGHTS(hdr);
    stag_set_pages(st, e810_wqe_q(wqe, 0), hdr & STAG_HDR_VA_BASED,
                   STAG_HDR_PAGE_SIZE(hdr));
    st->pbl = STAG_HDR_LPBL(hdr);
    st->pa = e810_wqe_q(wqe, 4);
    st->first_pble = STAG_FIRST_PBLE(e810_wqe_q(wqe, 6));
    stag_insert(pe, st);
    return 0;
}

static uint32_t e810_stag_dealloc(E810State *s, E810Pe *pe,
                                  const uint8_t *wqe, uint32_t *ret)
{
    uint32_t idx = STAG_IDX(e810_wqe_q(wqe, 2));

    if (!g_hash_table_remove(pe->stags,
                             GUINT_TO_POINTER(stag_index(pe, idx)))) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: DEALLOC_STAG %u: none\n", idx);
        return E810_PE_ERR_INVAL;
    }
    return 0;
}

/* The guest address of page PAGE of region ST (false: none). */
static bool stag_page(E810State *s, const E810Stag *st, uint64_t page,
                      uint64_t *pa)
{
    uint64_t leaf, e;

    switch (st->pbl) {
    case STAG_PBL_NONE:
        /* One page, or pages contiguous from it. */
        *pa = (st->pa & ~(st->page_size - 1)) + page * st->page_size;
        return true;
    case STAG_PBL_LEVEL1:
        if (page > UINT32_MAX - st->first_pble ||
            !e810_hmc_pble(s, st->first_pble + page, &e)) {
            return false;
        }
        break;
    case STAG_PBL_LEVEL2:
        if (page / PBLES_PER_LEAF > UINT32_MAX - st->first_pble ||
            !e810_hmc_pble(s, st->first_pble + page / PBLES_PER_LEAF,
                           &leaf) ||
            leaf > UINT32_MAX - PBLES_PER_LEAF ||
            !e810_hmc_pble(s, leaf + page % PBLES_PER_LEAF, &e)) {
            return false;
        }
        break;
    default:
        return false;
    }
    *pa = e & ~(uint64_t)(4 * KiB - 1);
    return true;
}

/* Move LEN bytes at byte OFF of the region (fbo included). */
static int stag_move(E810State *s, const E810Stag *st, uint64_t off,
                     uint8_t *buf, size_t len, bool to_guest)
{
    while (len) {
        uint64_t in = off % st->page_size, pa;
        size_t n = MIN(len, st->page_size - in);

        if (!stag_page(s, st, off / st->page_size, &pa)) {
            return ROCE_MEM_EIO;
        }
        if (to_guest ? !e810_dma_write(s, pa + in, buf, n) :
                       !e810_dma_read(s, pa + in, buf, n)) {
            return ROCE_MEM_EIO;
        }
        off += n;
        buf += n;
        len -= n;
    }
    return ROCE_MEM_OK;
}

static uint8_t stag_right(RoceMemOp op)
{
    switch (op) {
    case ROCE_MEM_GATHER:
        return E810_ACC_LOCAL_READ;
    case ROCE_MEM_SCATTER:
        return E810_ACC_LOCAL_WRITE;
    case ROCE_MEM_REMOTE_READ:
        return E810_ACC_REMOTE_READ;
    default:
        return E810_ACC_REMOTE_WRITE;
    }
}

/* The first byte's address of region or window ST: 0 if zero-based. */
static uint64_t stag_base(const E810Stag *st)
{
    return st->va_based ? st->va : 0;
}

static bool stag_in_range(const E810Stag *st, uint64_t addr, uint64_t len)
{
    uint64_t base = stag_base(st);

    return addr >= base && addr - base <= st->len &&
           len <= st->len - (addr - base);
}

/* A peer's access through window MW: its region does the moving. */
static int stag_mw_dma(E810State *s, const E810Stag *mw, RoceMemOp op,
                       uint64_t addr, void *buf, size_t len)
{
    bool to_guest = op == ROCE_MEM_REMOTE_WRITE;
    E810Stag *mr;
    uint64_t at;

    if (op != ROCE_MEM_REMOTE_READ && op != ROCE_MEM_REMOTE_WRITE) {
        return ROCE_MEM_EKEY;
    }
    if (!(mw->access & stag_right(op))) {
        return ROCE_MEM_EACCESS;
    }
    if (!stag_in_range(mw, addr, len)) {
        return ROCE_MEM_ERANGE;
    }
    /* The window's first byte is at mw->va of the region's addresses. */
    mr = stag_find(s, mw->parent);
    at = mw->va + (addr - stag_base(mw));
    if (!mr || !mr->valid || mr->mw || !stag_in_range(mr, at, len)) {
        return ROCE_MEM_EKEY;
    }
    if (!buf || !len) {
        return ROCE_MEM_OK;
    }
    return stag_move(s, mr, mr->fbo + (at - stag_base(mr)), buf, len,
                     to_guest);
}

static int stag_dma(E810State *s, uint32_t pd, bool priv, RoceMemOp op,
                    uint32_t key, uint64_t addr, void *buf, size_t len)
{
    bool to_guest = op == ROCE_MEM_SCATTER || op == ROCE_MEM_REMOTE_WRITE;
    bool local = op == ROCE_MEM_GATHER || op == ROCE_MEM_SCATTER;
    E810Stag *st;

    if (!key && priv && local) {
        if (!buf || !len) {
            return ROCE_MEM_OK;
        }
        return (to_guest ? e810_dma_write(s, addr, buf, len) :
                           e810_dma_read(s, addr, buf, len)) ?
               ROCE_MEM_OK : ROCE_MEM_EIO;
    }
    st = stag_find(s, key);
    if (!st || !st->valid || st->pd != pd) {
        return ROCE_MEM_EKEY;
    }
    if (st->mw) {
        return stag_mw_dma(s, st, op, addr, buf, len);
    }
    if (!(st->access & stag_right(op))) {
        return ROCE_MEM_EACCESS;
    }
    if (!stag_in_range(st, addr, len)) {
        return ROCE_MEM_ERANGE;
    }
    if (!buf || !len) {
        return ROCE_MEM_OK;
    }
    return stag_move(s, st, st->fbo + (addr - stag_base(st)), buf, len,
                     to_guest);
}

int e810_stag_dma(E810State *s, uint32_t pd, bool priv, RoceMemOp op,
                  uint32_t key, uint64_t addr, void *buf, size_t len)
{
    int r = stag_dma(s, pd, priv, op, key, addr, buf, len);

    if (r) {
        trace_e810_stag_dma_err(key, op, addr, len, r);
    }
    return r;
}

static int stag_invalidate(E810State *s, uint32_t pd, uint32_t stag)
{
    E810Stag *st = stag_find(s, stag);

    if (!st || st->pd != pd) {
        return ROCE_MEM_EKEY;
    }
    if (!st->fast || st->mw_type1) {
        return ROCE_MEM_EACCESS;
    }
    st->valid = false;
    return ROCE_MEM_OK;
}

int e810_stag_invalidate(E810State *s, uint32_t pd, uint32_t stag)
{
    int r = stag_invalidate(s, pd, stag);

    trace_e810_stag_invalidate(stag, pd, r);
    return r;
}

int e810_stag_fast_reg(E810State *s, uint32_t pd, const E810FastReg *fr)
{
    E810Stag *st = stag_at(s, fr->stag);

    /*
     * A new key; the index and driver key must be the allocated ones, the
     * length within the allocation's (not the last registration's: a
     * ULP's pool MR maps 1 KiB, then 256 KiB).
     */
    if (!st || (st->stag ^ fr->stag) >> 8 || !st->fast || st->mw ||
        st->pd != pd || fr->pbl_level > STAG_PBL_LEVEL1 || fr->page_size > 2 ||
        fr->len > st->max_len) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: FAST_REG of STag 0x%x\n",
                      fr->stag);
        trace_e810_stag_fast_reg(fr->stag, fr->va, fr->len, fr->pbl_level,
                                 fr->page_size, fr->access,
                                 ROCE_WC_LOC_PROT_ERR);
        return ROCE_WC_LOC_PROT_ERR;
    }
    trace_e810_stag_fast_reg(fr->stag, fr->va, fr->len, fr->pbl_level,
                             fr->page_size, fr->access, 0);
    st->stag = fr->stag;
    st->access = fr->access | E810_ACC_LOCAL_READ;
    st->len = fr->len;
    stag_set_pages(st, fr->va, fr->va_based, fr->page_size);
    st->pbl = fr->pbl_level;
    st->pa = fr->pbl_pa;
    st->first_pble = fr->first_pble;
    st->valid = true;
    return 0;
}

int e810_stag_bind(E810State *s, uint32_t pd, const E810MwBind *b)
{
    E810Stag *mw = stag_at(s, b->mw_stag);
    E810Stag *mr = stag_find(s, b->mr_stag);
    uint8_t rights = b->access & (E810_ACC_REMOTE_READ | E810_ACC_REMOTE_WRITE);
    int st = 0;

    /* The window's index and driver key as allocated, the key new. */
    if (!mw || !mw->mw || (mw->stag ^ b->mw_stag) >> 8 || mw->pd != pd ||
        b->type1 != mw->mw_type1) {
        st = ROCE_WC_LOC_PROT_ERR;
    } else if (mw->mw_type1 && !b->len) {
        mw->valid = false;      /* unbound */
    } else if (!mr || !mr->valid || mr->mw || mr->pd != pd ||
               !(mr->access & E810_ACC_BIND_WINDOW) ||
               !stag_in_range(mr, b->va, b->len)) {
        st = ROCE_WC_LOC_PROT_ERR;
    } else {
        mw->stag = b->mw_stag;
        mw->parent = mr->stag;
        mw->access = rights;
        mw->va = b->va;
        mw->va_based = b->va_based;
        mw->len = b->len;
        mw->valid = true;
    }
    if (st) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: BIND_MW of STag 0x%x to 0x%x\n",
                      b->mw_stag, b->mr_stag);
    }
    trace_e810_stag_bind(b->mw_stag, b->mr_stag, b->va, b->len, rights, st);
    return st;
}

const E810PeOp e810_stag_ops[] = {
    { E810_CQP_ALLOC_STAG, "alloc_stag", e810_stag_alloc },
    { E810_CQP_REG_MR, "reg_mr", e810_stag_reg_mr },
    { E810_CQP_DEALLOC_STAG, "dealloc_stag", e810_stag_dealloc },
    { 0, NULL, NULL }
};

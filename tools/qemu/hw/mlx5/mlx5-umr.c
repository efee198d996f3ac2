/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: UMR WQEs (user-mode memory registration), the
 * send queue's way of changing a memory key without a command.
 *
 * mlx5_ib posts them for ib_post_send()'s IB_WR_REG_MR (fast
 * registration: a free key gets a translation, range, rights and a new
 * variant byte) and IB_WR_LOCAL_INV (the key becomes free), on the ULP's
 * own QP; and on its memory registration QP (st REG_UMR, made at load)
 * to fill and enable the keys of its cache for user registrations, to
 * change their rights or PD, and to take them back (free, the QP's PD)
 * at deregistration.
 *
 * A UMR WQE: the control segment (opcode 0x25, the key in its immediate
 * dword), the UMR control segment (flags, the translation's size and
 * offset in octwords, the mask of the key's fields to change), the key's
 * context (the mkc layout of CREATE_MKEY), then the translation: inline,
 * or a data segment pointing to it (read through its lkey).
 *
 * Everything in it is untrusted.  A malformed WQE (too short, a flag or
 * field the model does not offer) completes with a local QP operation
 * error, a key that may not be changed so (none, PA, not umr_en, free
 * or not free as the flags demand, another PD's, a PD that does not
 * exist, a page size out of range, a translation that cannot be read)
 * with a local protection error, a translation beyond what the key was
 * created for or a range that wraps with a local length error.  Nothing
 * of the key changes unless the whole WQE is good.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "sysemu/dma.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "mlx5-roce.h"
#include "trace.h"

/* Where the segments are, from the WQE's start. */
#define UMR_CTRL                16
#define UMR_MKC                 64
#define UMR_XLT                 128
#define UMR_DSEG_LEN            16

/* The UMR control segment's flags. */
#define UMR_FLAG_XLT_OFFSET     0x10
#define UMR_FLAG_CHECK_MASK     0x60
#define UMR_CHECK_NOT_FREE      0x20    /* fail if the key is not free */
#define UMR_CHECK_FREE          0x40    /* fail if the key is free */
#define UMR_FLAG_INLINE         0x80

/* The mask of the key's fields a UMR changes (the PRM's mkey_mask). */
#define UMR_M_LEN               (1ULL << 0)
#define UMR_M_PAGE_SIZE         (1ULL << 1)
#define UMR_M_START_ADDR        (1ULL << 6)
#define UMR_M_PD                (1ULL << 7)
#define UMR_M_EN_RINVAL         (1ULL << 8)
#define UMR_M_KEY               (1ULL << 13)
#define UMR_M_LR                (1ULL << 17)
#define UMR_M_LW                (1ULL << 18)
#define UMR_M_RR                (1ULL << 19)
#define UMR_M_RW                (1ULL << 20)
#define UMR_M_A                 (1ULL << 21)
#define UMR_M_SMALL_FENCE       (1ULL << 23)
#define UMR_M_FREE              (1ULL << 29)
#define UMR_M_OFFERED           (UMR_M_LEN | UMR_M_PAGE_SIZE |          \
                                 UMR_M_START_ADDR | UMR_M_PD |          \
                                 UMR_M_EN_RINVAL | UMR_M_KEY |          \
                                 UMR_M_LR | UMR_M_LW | UMR_M_RR |       \
                                 UMR_M_RW | UMR_M_A |                   \
                                 UMR_M_SMALL_FENCE | UMR_M_FREE)

/* log_page_size of an MTT key: 4 KiB to 1 GiB, as CREATE_MKEY. */
#define UMR_MIN_LOG_PAGE        12
#define UMR_MAX_LOG_PAGE        30
/* An MTT entry's low byte holds flags (read, write enable), no address. */
#define UMR_MTT_FLAGS           0xffULL

/* A key's context as the WQE leaves it, built before anything changes. */
typedef struct UmrNew {
    bool free;
    bool rinval;
    bool length64;
    uint8_t variant;
    uint8_t access;
    uint8_t log_page_size;
    uint32_t pd;
    uint64_t start;
    uint64_t len;
} UmrNew;

static void umr_new(const MLX5MKey *k, const uint8_t *mkc, uint64_t mask,
                    UmrNew *n)
{
    static const struct {
        uint64_t m;
        uint8_t right;
    } rights[] = {
        { UMR_M_LR, MLX5_MKEY_LR }, { UMR_M_LW, MLX5_MKEY_LW },
        { UMR_M_RR, MLX5_MKEY_RR }, { UMR_M_RW, MLX5_MKEY_RW },
        { UMR_M_A, MLX5_MKEY_A },
    };
    uint8_t seg = (MLX5_GET(mkc, mkc, lr) ? MLX5_MKEY_LR : 0) |
                  (MLX5_GET(mkc, mkc, lw) ? MLX5_MKEY_LW : 0) |
                  (MLX5_GET(mkc, mkc, rr) ? MLX5_MKEY_RR : 0) |
                  (MLX5_GET(mkc, mkc, rw) ? MLX5_MKEY_RW : 0) |
                  (MLX5_GET(mkc, mkc, a) ? MLX5_MKEY_A : 0);
    unsigned int i;

    n->free = mask & UMR_M_FREE ? MLX5_GET(mkc, mkc, free) : k->free;
    n->rinval = mask & UMR_M_EN_RINVAL ? MLX5_GET(mkc, mkc, en_rinval) :
                k->rinval;
    n->variant = mask & UMR_M_KEY ? MLX5_GET(mkc, mkc, mkey_7_0) :
                 k->variant;
    n->pd = mask & UMR_M_PD ? MLX5_GET(mkc, mkc, pd) : k->pd;
    n->log_page_size = mask & UMR_M_PAGE_SIZE ?
                       MLX5_GET(mkc, mkc, log_page_size) : k->log_page_size;
    n->start = mask & UMR_M_START_ADDR ? MLX5_GET64(mkc, mkc, start_addr) :
               k->start;
    /* The length and length64 go together: mlx5_ib's empty regions. */
    n->len = mask & UMR_M_LEN ? MLX5_GET64(mkc, mkc, len) : k->len;
    n->length64 = mask & UMR_M_LEN ? MLX5_GET(mkc, mkc, length64) :
                  k->length64;
    n->access = k->access;
    for (i = 0; i < ARRAY_SIZE(rights); i++) {
        if (mask & rights[i].m) {
            n->access = (n->access & ~rights[i].right) |
                        (seg & rights[i].right);
        }
    }
}

/*
 * The translation the WQE carries, @nbytes of it, into @buf: inline
 * after the key's context, or where its data segment points (through
 * its lkey: the ULP's PD, or any for the registration QP).
 */
static int umr_xlt_read(MLX5State *s, const uint8_t *w, size_t len,
                        uint8_t flags, uint32_t pdn, uint8_t *buf,
                        size_t nbytes)
{
    uint32_t bc;

    if (flags & UMR_FLAG_INLINE) {
        if (nbytes > len - UMR_XLT) {
            return ROCE_WC_LOC_QP_OP_ERR;
        }
        memcpy(buf, w + UMR_XLT, nbytes);
        return ROCE_WC_SUCCESS;
    }
    if (len < UMR_XLT + UMR_DSEG_LEN) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    bc = ldl_be_p(w + UMR_XLT) & 0x7fffffff;
    if (bc < nbytes) {
        return ROCE_WC_LOC_LEN_ERR;
    }
    if (mlx5_mkey_dma(s, pdn, ldl_be_p(w + UMR_XLT + 4), MLX5_MKEY_LR,
                      ldq_be_p(w + UMR_XLT + 8), buf, nbytes,
                      DMA_DIRECTION_TO_DEVICE)) {
        return ROCE_WC_LOC_PROT_ERR;
    }
    return ROCE_WC_SUCCESS;
}

/* The checks of the key's new context, when it ends up enabled. */
static int umr_check_new(const MLX5MKey *k, const UmrNew *n)
{
    uint64_t mask, pages;

    if (n->free || n->length64) {
        return ROCE_WC_SUCCESS;
    }
    mask = (1ULL << n->log_page_size) - 1;
    if (n->len > UINT64_MAX - n->start ||
        n->len > UINT64_MAX - mask - (n->start & mask)) {
        return ROCE_WC_LOC_LEN_ERR;
    }
    pages = ((n->start & mask) + n->len + mask) >> n->log_page_size;
    return pages > k->cap ? ROCE_WC_LOC_LEN_ERR : ROCE_WC_SUCCESS;
}

static int umr_exec(MLX5State *s, uint32_t qp_pd, bool privileged,
                    const uint8_t *w, size_t len, uint64_t *xlt_off)
{
    const uint8_t *mkc = w + UMR_MKC;
    uint8_t flags = w[UMR_CTRL];
    uint32_t octs = lduw_be_p(w + UMR_CTRL + 4);
    uint64_t mask = ldq_be_p(w + UMR_CTRL + 8);
    g_autofree uint8_t *xlt = NULL;
    uint64_t off = 0, pmask, i;
    uint32_t nent = octs * 2;
    MLX5MKey *k;
    UmrNew n;
    int st;

    if ((flags & ~(UMR_FLAG_INLINE | UMR_FLAG_CHECK_MASK |
                   UMR_FLAG_XLT_OFFSET)) ||
        (flags & UMR_FLAG_CHECK_MASK) == UMR_FLAG_CHECK_MASK ||
        (mask & ~UMR_M_OFFERED)) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    k = mlx5_mkey_get(s, ldl_be_p(w + 12) >> 8);
    if (!k || k->pa || !k->umr_en) {
        return ROCE_WC_LOC_PROT_ERR;
    }
    /* A ULP's QP changes its own PD's keys, and never their PD. */
    if (!privileged && (k->pd != qp_pd || (mask & UMR_M_PD))) {
        return ROCE_WC_LOC_PROT_ERR;
    }
    if (((flags & UMR_FLAG_CHECK_MASK) == UMR_CHECK_NOT_FREE && !k->free) ||
        ((flags & UMR_FLAG_CHECK_MASK) == UMR_CHECK_FREE && k->free)) {
        return ROCE_WC_LOC_PROT_ERR;
    }
    umr_new(k, mkc, mask, &n);
    if (n.log_page_size < UMR_MIN_LOG_PAGE ||
        n.log_page_size > UMR_MAX_LOG_PAGE ||
        ((mask & UMR_M_PD) && !mlx5_obj_get(s, MLX5_OBJ_PD, n.pd))) {
        return ROCE_WC_LOC_PROT_ERR;
    }
    st = umr_check_new(k, &n);
    if (st) {
        return st;
    }
    if (nent) {
        if (flags & UMR_FLAG_XLT_OFFSET) {
            off = ((uint64_t)ldl_be_p(w + UMR_CTRL + 16) << 16 |
                   lduw_be_p(w + UMR_CTRL + 6)) * 2;
        }
        *xlt_off = off;
        if (off > k->cap || nent > k->cap - off) {
            return ROCE_WC_LOC_LEN_ERR;
        }
        xlt = g_malloc(nent * 8ULL);
        st = umr_xlt_read(s, w, len, flags,
                          privileged ? MLX5_MKEY_ANY_PD : qp_pd, xlt,
                          nent * 8ULL);
        if (st) {
            return st;
        }
        pmask = (1ULL << n.log_page_size) - 1;
        for (i = 0; i < nent; i++) {
            if (ldq_be_p(xlt + i * 8) & ~UMR_MTT_FLAGS & pmask) {
                return ROCE_WC_LOC_PROT_ERR;
            }
        }
        if (!mlx5_mkey_mtt_grow(s, k, off + nent)) {
            return ROCE_WC_LOC_LEN_ERR;
        }
        for (i = 0; i < nent; i++) {
            k->mtt[off + i] = ldq_be_p(xlt + i * 8) & ~UMR_MTT_FLAGS;
        }
    }
    k->free = n.free;
    k->rinval = n.rinval;
    k->variant = n.variant;
    k->pd = n.pd;
    k->log_page_size = n.log_page_size;
    k->start = n.start;
    k->len = n.len;
    k->length64 = n.length64;
    k->access = n.access;
    return ROCE_WC_SUCCESS;
}

int mlx5_umr_run(MLX5State *s, uint32_t qpn, uint32_t qp_pd,
                 bool privileged, const uint8_t *w, size_t len)
{
    uint64_t off = 0;
    int st;

    if (len < UMR_XLT) {
        trace_mlx5_umr(qpn, 0, 0, 0, 0, 0, ROCE_WC_LOC_QP_OP_ERR);
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    st = umr_exec(s, qp_pd, privileged, w, len, &off);
    trace_mlx5_umr(qpn, ldl_be_p(w + 12), w[UMR_CTRL],
                   ldq_be_p(w + UMR_CTRL + 8), lduw_be_p(w + UMR_CTRL + 4),
                   off, st);
    return st;
}

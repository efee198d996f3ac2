/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: memory keys, and every DMA that goes through one.
 *
 * Two access modes are offered: PA (the drivers' own keys: addresses are
 * bus addresses, usually over all of memory with length64) and MTT (a
 * registered region, ibv_reg_mr: a virtual range from start_addr, its
 * pages translated by the entries that follow the key's context in
 * CREATE_MKEY, or written later by a UMR, mlx5-umr.c).  A free key
 * (umr_en, MTT) grants nothing until a UMR enables it: mlx5_ib's key
 * cache, which every user registration comes from, and ib_alloc_mr's
 * fast registration keys are made so.  KLM/KSM (indirect) keys,
 * signature and ATS keys are refused.
 *
 * A key is its index << 8 | the driver's variant byte; indexes run from
 * 2, since key 0x100 (index 1, variant 0) is the PRM's invalid key that
 * ends a receive WQE's scatter list.
 *
 * mlx5_mkey_dma() is the one way the data paths (Ethernet today, the
 * RoCE engine's front end next) touch memory a WQE or a peer names.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define MKC_ACCESS_PA           0
#define MKC_ACCESS_MTT          1

/* log_page_size of an MTT key: bytes, from 4 KiB to 1 GiB. */
#define MKEY_MIN_LOG_PAGE       12
#define MKEY_MAX_LOG_PAGE       30

/* The translation entries: the first one's byte in create_mkey_in. */
#define MKEY_MTT_OFF            MLX5_BYTE_OFF(create_mkey_in, klm_pas_mtt)
/* A UMR writes entries 8 at a time (MLX5_UMR_MTT_ALIGNMENT, 64 bytes). */
#define MKEY_XLT_BLOCK          8

MLX5MKey *mlx5_mkey_get(MLX5State *s, uint32_t index)
{
    MLX5MKey *k;

    if (index < MLX5_MKEY_FIRST || index >= MLX5_MAX_MKEYS) {
        return NULL;
    }
    k = &s->mkeys[index];
    return k->valid ? k : NULL;
}

bool mlx5_mkey_pd_busy(MLX5State *s, uint32_t pdn)
{
    unsigned int i;

    for (i = MLX5_MKEY_FIRST; i < MLX5_MAX_MKEYS; i++) {
        if (s->mkeys[i].valid && s->mkeys[i].pd == pdn) {
            return true;
        }
    }
    return false;
}

static void mkey_free(MLX5State *s, MLX5MKey *k)
{
    s->mkey_mtts -= k->nmtt;
    g_free(k->mtt);
    memset(k, 0, sizeof(*k));
}

void mlx5_mkey_reset(MLX5State *s)
{
    unsigned int i;

    for (i = 0; i < MLX5_MAX_MKEYS; i++) {
        mkey_free(s, &s->mkeys[i]);
    }
    s->mkey_mtts = 0;
}

static int mkey_refuse(MLX5Cmd *cmd, uint32_t syndrome)
{
    return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, syndrome);
}

/*
 * The translation of an MTT key: its pages from @mkc's log_page_size,
 * start address and length; the entries all in the command and each
 * aligned to the page size.  The number of pages in *npages.
 */
static int mkey_check_mtt(MLX5Cmd *cmd, const uint8_t *mkc, uint64_t *npages)
{
    unsigned int shift = MLX5_GET(mkc, mkc, log_page_size);
    uint64_t start = MLX5_GET64(mkc, mkc, start_addr);
    uint64_t len = MLX5_GET64(mkc, mkc, len);
    uint64_t octs = MLX5_GET(mkc, mkc, translations_octword_size);
    uint64_t actual = MLX5_GET(create_mkey_in, cmd->in,
                               translations_octword_actual_size);
    uint64_t mask, first, n, i;

    if (shift < MKEY_MIN_LOG_PAGE || shift > MKEY_MAX_LOG_PAGE ||
        MLX5_GET(mkc, mkc, length64)) {
        return mkey_refuse(cmd, MLX5_SYND_MKEY_RANGE);
    }
    mask = (1ULL << shift) - 1;
    first = start & mask;
    /*
     * The region's pages: from the one holding start_addr to the one
     * holding its last byte.  A range that wraps is refused first, so
     * that the sum below cannot.
     */
    if (len > UINT64_MAX - start || len > UINT64_MAX - first - mask) {
        return mkey_refuse(cmd, MLX5_SYND_MKEY_RANGE);
    }
    n = (first + len + mask) >> shift;
    /*
     * The entries come two to an octword: the driver's size and the
     * actual size it sent both cover every page; the inline list must
     * hold the actual size (a key whose pages come later, by UMR, is
     * not offered).
     */
    if (actual > octs || n > actual * 2) {
        return mkey_refuse(cmd, MLX5_SYND_MKEY_MTT_SIZE);
    }
    if (n > MLX5_MKEY_MAX_MTT) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    if (cmd->inlen < MKEY_MTT_OFF ||
        (cmd->inlen - MKEY_MTT_OFF) / 16 < actual) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
                             MLX5_SYND_IN_SHORT);
    }
    for (i = 0; i < n; i++) {
        if (ldq_be_p(cmd->in + MKEY_MTT_OFF + i * 8) & mask) {
            return mkey_refuse(cmd, MLX5_SYND_MKEY_MTT_ALIGN);
        }
    }
    *npages = n;
    return MLX5_CMD_STAT_OK;
}

static int cmd_create_mkey(MLX5State *s, MLX5Cmd *cmd)
{
    const uint8_t *mkc;
    unsigned int mode, i;
    uint64_t npages = 0, cap = 0, j;
    MLX5MKey *k;
    int st;

    st = MLX5_CMD_LEN(cmd, create_mkey);
    if (st) {
        return st;
    }
    mkc = MLX5_ADDR_OF(create_mkey_in, cmd->in, memory_key_mkey_entry);
    mode = MLX5_GET(mkc, mkc, access_mode_4_2) << 2 |
           MLX5_GET(mkc, mkc, access_mode_1_0);
    if (mode != MKC_ACCESS_PA && mode != MKC_ACCESS_MTT) {
        /* KLM and KSM (indirect), device memory, SW ICM */
        return mkey_refuse(cmd, MLX5_SYND_MKEY_MODE);
    }
    if (MLX5_GET(mkc, mkc, free) &&
        (mode != MKC_ACCESS_MTT || !MLX5_GET(mkc, mkc, umr_en))) {
        /* Only a UMR enables a free key: it must take one. */
        return mkey_refuse(cmd, MLX5_SYND_MKEY_FREE);
    }
    /*
     * Features the capabilities do not offer: pages with access bits
     * (pg), DEVX umems, signature (BSF), ATS, remote invalidation, a key
     * bound to one QP (qpn 0xffffff is "none", what both drivers send).
     */
    if (MLX5_GET(create_mkey_in, cmd->in, pg_access) ||
        MLX5_GET(create_mkey_in, cmd->in, mkey_umem_valid) ||
        MLX5_GET(mkc, mkc, bsf_en) || MLX5_GET(mkc, mkc, bsf_octword_size) ||
        MLX5_GET(mkc, mkc, sync_umr) ||
        MLX5_GET(mkc, mkc, expected_sigerr_count) ||
        MLX5_GET(mkc, mkc, en_rinval) ||
        MLX5_GET(mkc, mkc, ma_translation_mode) ||
        MLX5_GET(mkc, mkc, qpn) != 0xffffff) {
        return mkey_refuse(cmd, MLX5_SYND_MKEY_FEATURE);
    }
    if (!mlx5_obj_get(s, MLX5_OBJ_PD, MLX5_GET(mkc, mkc, pd))) {
        return mkey_refuse(cmd, MLX5_SYND_NO_OBJECT);
    }
    if (mode == MKC_ACCESS_PA) {
        /* Bus addresses: a range that wraps names nothing. */
        if (MLX5_GET(mkc, mkc, translations_octword_size) ||
            MLX5_GET(create_mkey_in, cmd->in,
                     translations_octword_actual_size)) {
            return mkey_refuse(cmd, MLX5_SYND_MKEY_MTT_SIZE);
        }
        if (!MLX5_GET(mkc, mkc, length64) &&
            MLX5_GET64(mkc, mkc, len) >
            UINT64_MAX - MLX5_GET64(mkc, mkc, start_addr)) {
            return mkey_refuse(cmd, MLX5_SYND_MKEY_RANGE);
        }
    } else {
        st = mkey_check_mtt(cmd, mkc, &npages);
        if (st) {
            return st;
        }
        /*
         * What a UMR may write later: the octword size, two entries
         * each (a free key usually has none yet), in the 64-byte
         * blocks a UMR writes (mlx5_ib's cache keys of 4 entries get
         * 8, the translation padded to 64 bytes as the driver does).
         */
        cap = ROUND_UP(MLX5_GET(mkc, mkc, translations_octword_size) *
                       2ULL, MKEY_XLT_BLOCK);
        if (cap > MLX5_MKEY_MAX_MTT) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                                 MLX5_SYND_NO_RESOURCE);
        }
        /* All keys' entries together: host memory the guest sizes. */
        if (npages > MLX5_MKEY_MTT_BUDGET - s->mkey_mtts) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                                 MLX5_SYND_NO_RESOURCE);
        }
    }
    for (i = MLX5_MKEY_FIRST; i < MLX5_MAX_MKEYS; i++) {
        if (!s->mkeys[i].valid) {
            break;
        }
    }
    if (i == MLX5_MAX_MKEYS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    k = &s->mkeys[i];
    k->valid = true;
    k->pa = mode == MKC_ACCESS_PA;
    k->length64 = MLX5_GET(mkc, mkc, length64);
    k->umr_en = MLX5_GET(mkc, mkc, umr_en);
    k->free = MLX5_GET(mkc, mkc, free);
    k->cap = cap;
    k->octs = MLX5_GET(mkc, mkc, translations_octword_size);
    k->variant = MLX5_GET(mkc, mkc, mkey_7_0);
    k->access = (MLX5_GET(mkc, mkc, lr) ? MLX5_MKEY_LR : 0) |
                (MLX5_GET(mkc, mkc, lw) ? MLX5_MKEY_LW : 0) |
                (MLX5_GET(mkc, mkc, rr) ? MLX5_MKEY_RR : 0) |
                (MLX5_GET(mkc, mkc, rw) ? MLX5_MKEY_RW : 0) |
                (MLX5_GET(mkc, mkc, a) ? MLX5_MKEY_A : 0);
    k->log_page_size = k->pa ? 0 : MLX5_GET(mkc, mkc, log_page_size);
    k->pd = MLX5_GET(mkc, mkc, pd);
    k->start = MLX5_GET64(mkc, mkc, start_addr);
    k->len = MLX5_GET64(mkc, mkc, len);
    k->relaxed = MLX5_GET(mkc, mkc, relaxed_ordering_write) << 1 |
                 MLX5_GET(mkc, mkc, relaxed_ordering_read);
    k->nmtt = npages;
    if (npages) {
        k->mtt = g_new(uint64_t, npages);
        for (j = 0; j < npages; j++) {
            k->mtt[j] = ldq_be_p(cmd->in + MKEY_MTT_OFF + j * 8);
        }
        s->mkey_mtts += npages;
    }
    trace_mlx5_mkey_create(i << 8 | k->variant, k->pa ? "pa" : "mtt", k->pd,
                           k->start, k->len, k->nmtt, k->log_page_size);
    MLX5_SET(create_mkey_out, cmd->out, mkey_index, i);
    return MLX5_CMD_STAT_OK;
}

static int cmd_destroy_mkey(MLX5State *s, MLX5Cmd *cmd)
{
    uint32_t index = MLX5_GET(destroy_mkey_in, cmd->in, mkey_index);
    MLX5MKey *k = mlx5_mkey_get(s, index);

    if (!k) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_NO_OBJECT);
    }
    trace_mlx5_obj_destroy("mkey", index);
    mkey_free(s, k);
    return MLX5_CMD_STAT_OK;
}

/* The key's context as created, and its first four entries. */
static int cmd_query_mkey(MLX5State *s, MLX5Cmd *cmd)
{
    MLX5MKey *k = mlx5_mkey_get(s, MLX5_GET(query_mkey_in, cmd->in,
                                            mkey_index));
    uint8_t *mkc = MLX5_ADDR_OF(query_mkey_out, cmd->out,
                                memory_key_mkey_entry);
    uint8_t *mtt = MLX5_ADDR_OF(query_mkey_out, cmd->out,
                                bsf0_klm0_pas_mtt0_1);
    unsigned int i;

    if (!k) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_NO_OBJECT);
    }
    if (MLX5_GET(query_mkey_in, cmd->in, pg_access)) {
        return mkey_refuse(cmd, MLX5_SYND_MKEY_FEATURE);
    }
    MLX5_SET(mkc, mkc, access_mode_1_0, k->pa ? MKC_ACCESS_PA :
                                                MKC_ACCESS_MTT);
    MLX5_SET(mkc, mkc, free, k->free);
    MLX5_SET(mkc, mkc, umr_en, k->umr_en);
    MLX5_SET(mkc, mkc, en_rinval, k->rinval);
    MLX5_SET(mkc, mkc, a, !!(k->access & MLX5_MKEY_A));
    MLX5_SET(mkc, mkc, rw, !!(k->access & MLX5_MKEY_RW));
    MLX5_SET(mkc, mkc, rr, !!(k->access & MLX5_MKEY_RR));
    MLX5_SET(mkc, mkc, lw, !!(k->access & MLX5_MKEY_LW));
    MLX5_SET(mkc, mkc, lr, !!(k->access & MLX5_MKEY_LR));
    MLX5_SET(mkc, mkc, relaxed_ordering_write, k->relaxed >> 1);
    MLX5_SET(mkc, mkc, relaxed_ordering_read, k->relaxed & 1);
    MLX5_SET(mkc, mkc, qpn, 0xffffff);
    MLX5_SET(mkc, mkc, mkey_7_0, k->variant);
    MLX5_SET(mkc, mkc, length64, k->length64);
    MLX5_SET(mkc, mkc, pd, k->pd);
    MLX5_SET64(mkc, mkc, start_addr, k->start);
    MLX5_SET64(mkc, mkc, len, k->len);
    MLX5_SET(mkc, mkc, translations_octword_size, k->octs);
    MLX5_SET(mkc, mkc, log_page_size, k->log_page_size);
    /* The two 16-byte arrays follow each other: entries 0 to 3. */
    for (i = 0; i < k->nmtt && i < 4; i++) {
        stq_be_p(mtt + i * 8, k->mtt[i]);
    }
    return MLX5_CMD_STAT_OK;
}

int mlx5_mkey_exec(MLX5State *s, MLX5Cmd *cmd)
{
    switch (cmd->opcode) {
    case MLX5_CMD_OP_CREATE_MKEY:
        return cmd_create_mkey(s, cmd);
    case MLX5_CMD_OP_DESTROY_MKEY:
        return MLX5_CMD_LEN(cmd, destroy_mkey) ?: cmd_destroy_mkey(s, cmd);
    case MLX5_CMD_OP_QUERY_MKEY:
        return MLX5_CMD_LEN(cmd, query_mkey) ?: cmd_query_mkey(s, cmd);
    default:
        return -1;
    }
}

/*
 * Room for @n translation entries in @k, within what it was created for
 * and the budget of all keys; new entries are 0 until a UMR writes them.
 */
bool mlx5_mkey_mtt_grow(MLX5State *s, MLX5MKey *k, uint64_t n)
{
    if (n <= k->nmtt) {
        return true;
    }
    if (n > k->cap || n - k->nmtt > MLX5_MKEY_MTT_BUDGET - s->mkey_mtts) {
        return false;
    }
    k->mtt = g_renew(uint64_t, k->mtt, n);
    memset(k->mtt + k->nmtt, 0, (n - k->nmtt) * sizeof(*k->mtt));
    s->mkey_mtts += n - k->nmtt;
    k->nmtt = n;
    return true;
}

/*
 * A peer's SEND with invalidate: @key, enabled, of the QP's PD, with
 * remote invalidation allowed (the UMR that enabled it said so), becomes
 * free.  Its translation stays for the next UMR.
 */
int mlx5_mkey_invalidate(MLX5State *s, uint32_t pdn, uint32_t key)
{
    MLX5MKey *k = mlx5_mkey_get(s, key >> 8);

    if (!k || k->variant != (key & 0xff) || k->free) {
        return MLX5_MKEY_EKEY;
    }
    if (k->pd != pdn) {
        return MLX5_MKEY_EPD;
    }
    if (!k->rinval || !k->umr_en || k->pa) {
        return MLX5_MKEY_EACCESS;
    }
    k->free = true;
    trace_mlx5_mkey_inval(key, pdn);
    return MLX5_MKEY_OK;
}

int mlx5_mkey_dma(MLX5State *s, uint32_t pdn, uint32_t key,
                  unsigned int access, uint64_t va, void *buf, uint64_t len,
                  DMADirection dir)
{
    MLX5MKey *k = mlx5_mkey_get(s, key >> 8);
    uint8_t *p = buf;
    uint64_t off, base, mask;
    unsigned int shift;
    int ret = MLX5_MKEY_OK;

    if (!k || k->variant != (key & 0xff) || k->free) {
        ret = MLX5_MKEY_EKEY;
    } else if (k->pd != pdn && pdn != MLX5_MKEY_ANY_PD) {
        ret = MLX5_MKEY_EPD;
    } else if (access & ~k->access) {
        ret = MLX5_MKEY_EACCESS;
    } else if (!k->length64 && (va < k->start || len > k->len ||
                                va - k->start > k->len - len)) {
        /* Written so that nothing wraps: va - start is at most len. */
        ret = MLX5_MKEY_ERANGE;
    } else if (k->length64 && len > UINT64_MAX - va) {
        ret = MLX5_MKEY_ERANGE;
    }
    if (ret || !buf || !len) {
        if (ret) {
            trace_mlx5_mkey_dma_err(key, pdn, access, va, len, ret);
        }
        return ret;
    }
    if (k->pa) {
        return pci_dma_rw(PCI_DEVICE(s), va, buf, len, dir,
                          MEMTXATTRS_UNSPECIFIED) == MEMTX_OK ?
               MLX5_MKEY_OK : MLX5_MKEY_EIO;
    }
    /*
     * Through the MTT: entry i maps the i-th page from the one holding
     * start_addr.  Pages that follow each other in bus addresses too go
     * in one DMA.  The range check above keeps every index below nmtt.
     */
    shift = k->log_page_size;
    mask = (1ULL << shift) - 1;
    base = k->start & ~mask;
    off = va - base;
    /*
     * A UMR may leave a key with length64 (mlx5_ib's empty regions) or
     * fewer entries than its range: the entries bound it too.
     */
    if (va < base || off + len < off || (off + len - 1) >> shift >= k->nmtt) {
        trace_mlx5_mkey_dma_err(key, pdn, access, va, len, MLX5_MKEY_ERANGE);
        return MLX5_MKEY_ERANGE;
    }
    while (len) {
        uint64_t idx = off >> shift;
        dma_addr_t pa = k->mtt[idx] + (off & mask);
        uint64_t n = MIN(len, (1ULL << shift) - (off & mask));

        while (n < len && k->mtt[idx + 1] == k->mtt[idx] + (1ULL << shift)) {
            idx++;
            n = MIN(len, n + (1ULL << shift));
        }
        if (pci_dma_rw(PCI_DEVICE(s), pa, p, n, dir,
                       MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
            trace_mlx5_mkey_dma_err(key, pdn, access, va, len, MLX5_MKEY_EIO);
            return MLX5_MKEY_EIO;
        }
        p += n;
        off += n;
        len -= n;
    }
    return MLX5_MKEY_OK;
}

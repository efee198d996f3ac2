/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the PE's host memory cache (HMC).
 *
 * The PE keeps its objects (QP and CQ contexts, STags, address
 * handles, PBLEs...) in one flat "FPM" address space, which lives in
 * guest memory the driver gives it in 2 MiB segments:
 *
 *  - QUERY_FPM_VAL: the model says how many objects of each type it can
 *    hold and their sizes, how many segments the PF may use, and a few
 *    block sizes and multipliers irdma sizes its free lists with.
 *  - COMMIT_FPM_VAL: the driver says how many of each it wants; the
 *    model lays them out one after another (512-byte aligned, PBLEs
 *    last, as they grow on demand) and answers each type's base, in
 *    512-byte units, in the high dword of its entry.
 *  - UPDATE_PE_SDS: segment descriptors, 1 to 11 per command (3 in the
 *    WQE, the rest in a buffer): a segment is either one 2 MiB page
 *    ("direct") or a 4 KiB page of 512 page descriptors, each a 4 KiB
 *    page with bit 0 valid ("paged"); the driver writes those itself.
 *  - SHMC_PAGES_ALLOCATED: the driver has backed what it committed.
 *
 * The model holds QP and CQ contexts in its own state (the commands
 * carry them); through the HMC it reads only what the driver writes
 * there directly: PBLEs, the page lists of queues and memory regions.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "e810.h"
#include "e810-pe.h"

#define E810_HMC_SD_SIZE        (2 * MiB)
#define E810_HMC_PAGE_SIZE      (4 * KiB)
#define E810_HMC_PDS_PER_SD     512
#define E810_HMC_BASE_UNIT      512
#define E810_FPM_BUF_SIZE       176

/* Block sizes of the free lists and the hash table's multiplier. */
#define E810_HMC_XF_BLOCK       1
#define E810_HMC_Q1_BLOCK       64
#define E810_HMC_HT_MULT        1
#define E810_HMC_TIMER_BUCKET   1

/*
 * What the model offers, type by type: the most objects and their size
 * (a power of two; the free lists' entries are 4 bytes, PBLEs 8 and the
 * APBVT one 8 KiB block, which irdma knows without asking).  Only QP
 * and CQ counts bound the model's own tables; the other sizes only set
 * how much memory the driver gives (all but PBLEs fit one segment).
 */
static const struct {
    uint32_t max_cnt;
    uint8_t size_log2;
} e810_hmc_offer[E810_HMC_NUM_OBJ] = {
    [E810_HMC_QP] = { E810_PE_MAX_QPS, 8 },
    [E810_HMC_CQ] = { E810_PE_MAX_CQS, 6 },
    [E810_HMC_HTE] = { 8192, 3 },
    [E810_HMC_ARP] = { E810_PE_MAX_ARP, 3 },
    [E810_HMC_APBVT] = { 1, 13 },
    [E810_HMC_MR] = { 4096, 6 },
    [E810_HMC_XF] = { 4 * E810_HMC_XF_BLOCK * E810_PE_MAX_QPS, 0 },
    [E810_HMC_XFFL] = { 4 * E810_PE_MAX_QPS, 2 },
    [E810_HMC_Q1] = { 256 * E810_PE_MAX_QPS, 0 },
    [E810_HMC_Q1FL] = { 256 * E810_PE_MAX_QPS / E810_HMC_Q1_BLOCK, 2 },
    [E810_HMC_TIMER] = { 16, 9 },
    [E810_HMC_FSIMC] = { 256, 6 },
    [E810_HMC_FSIAV] = { 4096, 5 },
    [E810_HMC_PBLE] = { 1024 * 1024, 3 },
    [E810_HMC_HDR] = { E810_PE_MAX_QPS, 0 },
};

/* Where each type sits in the query buffer (0: not there). */
static const uint8_t e810_fpm_query_off[E810_HMC_NUM_OBJ] = {
    [E810_HMC_QP] = 8, [E810_HMC_CQ] = 16, [E810_HMC_HTE] = 32,
    [E810_HMC_ARP] = 40, [E810_HMC_MR] = 48, [E810_HMC_XF] = 56,
    [E810_HMC_XFFL] = 64, [E810_HMC_Q1] = 72, [E810_HMC_Q1FL] = 80,
    [E810_HMC_TIMER] = 88, [E810_HMC_FSIMC] = 96, [E810_HMC_FSIAV] = 104,
    [E810_HMC_PBLE] = 112, [E810_HMC_RRF] = 128, [E810_HMC_RRFFL] = 136,
    [E810_HMC_HDR] = 144, [E810_HMC_MD] = 152, [E810_HMC_OOISC] = 160,
    [E810_HMC_OOISCFFL] = 168,
};
#define E810_FPM_QUERY_SDS      0
#define E810_FPM_QUERY_MISC     120

/* In the commit buffer, each type's entry; 120 is reserved. */
static unsigned int e810_fpm_commit_off(unsigned int type)
{
    return type < E810_HMC_RRF ? type * 8 : (type + 1) * 8;
}

/* The free lists' entries carry a block size in their high dword. */
static uint32_t e810_hmc_block(unsigned int type)
{
    switch (type) {
    case E810_HMC_XFFL:
        return E810_HMC_XF_BLOCK;
    case E810_HMC_Q1FL:
        return E810_HMC_Q1_BLOCK;
    }
    return 0;
}

static bool e810_hmc_fn_ok(uint64_t q)
{
    /* The PF's HMC function is 0; VFs are not modelled. */
    return (q & 0x3f) == 0;
}

static uint32_t e810_hmc_query_fpm(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    uint8_t buf[E810_FPM_BUF_SIZE] = { 0 };
    unsigned int t;
    uint64_t v;

    if (!e810_hmc_fn_ok(e810_wqe_q(wqe, 2))) {
        return E810_PE_ERR_INVAL;
    }
    stq_le_p(buf + E810_FPM_QUERY_SDS, (uint64_t)E810_PE_MAX_SDS << 32);
    for (t = 0; t < E810_HMC_NUM_OBJ; t++) {
        if (!e810_fpm_query_off[t]) {
            continue;
        }
        v = pe->obj[t].max_cnt;
        if (e810_hmc_block(t)) {
            v |= (uint64_t)e810_hmc_block(t) << 32;
        } else {
            v |= (uint64_t)e810_hmc_offer[t].size_log2 << 32;
        }
        stq_le_p(buf + e810_fpm_query_off[t], v);
    }
    stq_le_p(buf + E810_FPM_QUERY_MISC, E810_PE_MAX_CEQS |
             E810_HMC_HT_MULT << 16 |
             (uint64_t)E810_HMC_TIMER_BUCKET << 32);
    if (!e810_dma_write(s, e810_wqe_q(wqe, 4), buf, sizeof(buf))) {
        return E810_PE_ERR_DMA;
    }
    return 0;
}

/*
 * Lay the committed counts out: each type after the last, PBLEs at the
 * end.  False when a count is over the offer or all of it over the
 * segments the PF may use.
 */
static bool e810_hmc_layout(E810Pe *pe, const uint32_t *cnt)
{
    uint64_t off = 0;
    unsigned int i, t;

    for (i = 0; i < E810_HMC_NUM_OBJ; i++) {
        /* PBLEs go last: the loop takes them at i == the last index. */
        t = i == E810_HMC_NUM_OBJ - 1 ? E810_HMC_PBLE :
            i >= E810_HMC_PBLE ? i + 1 : i;
        if (cnt[t] > pe->obj[t].max_cnt) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: FPM commit: %u objects of type %u, "
                          "at most %u\n", cnt[t], t, pe->obj[t].max_cnt);
            return false;
        }
        pe->obj[t].cnt = cnt[t];
        pe->obj[t].base = 0;
        if (!cnt[t]) {
            continue;
        }
        off = ROUND_UP(off, E810_HMC_BASE_UNIT);
        pe->obj[t].base = off;
        off += (uint64_t)cnt[t] * pe->obj[t].size;
    }
    if (off > (uint64_t)E810_PE_MAX_SDS * E810_HMC_SD_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: FPM commit: %" PRIu64
                      " bytes of HMC, more than the PF's segments\n", off);
        return false;
    }
    return true;
}

static uint32_t e810_hmc_commit_fpm(E810State *s, E810Pe *pe,
                                    const uint8_t *wqe, uint32_t *ret)
{
    uint8_t buf[E810_FPM_BUF_SIZE];
    uint32_t cnt[E810_HMC_NUM_OBJ] = { 0 };
    uint64_t pa = e810_wqe_q(wqe, 4);
    unsigned int t, off;

    if (!e810_hmc_fn_ok(e810_wqe_q(wqe, 2))) {
        return E810_PE_ERR_INVAL;
    }
    if (!e810_dma_read(s, pa, buf, sizeof(buf))) {
        return E810_PE_ERR_DMA;
    }
    for (t = 0; t < E810_HMC_NUM_OBJ; t++) {
        cnt[t] = ldl_le_p(buf + e810_fpm_commit_off(t));
    }
    /* The driver sends no count for these; there is one of each kind. */
    cnt[E810_HMC_RSVD] = 0;
    cnt[E810_HMC_APBVT] = 1;
    if (!e810_hmc_layout(pe, cnt)) {
        pe->fpm_committed = false;
        return E810_PE_ERR_INVAL;
    }
    pe->fpm_committed = true;
    memset(buf, 0, sizeof(buf));
    for (t = 0; t < E810_HMC_NUM_OBJ; t++) {
        if (t == E810_HMC_RSVD) {
            continue;
        }
        off = e810_fpm_commit_off(t);
        stq_le_p(buf + off, pe->obj[t].cnt |
                 (pe->obj[t].base / E810_HMC_BASE_UNIT) << 32);
    }
    if (!e810_dma_write(s, pa, buf, sizeof(buf))) {
        return E810_PE_ERR_DMA;
    }
    return 0;
}

/* Segment descriptor commands: SD index in bits 11:0, write bit 31. */
#define E810_SDCMD_IDX(c)       ((c) & 0xfff)
#define E810_SDCMD_WRITE        BIT_ULL(31)
#define E810_SDDATA_VALID       BIT_ULL(0)
#define E810_SDDATA_DIRECT      BIT_ULL(1)
#define E810_SDDATA_PA_MASK     (~0xfffULL)
#define E810_SD_ENTRY_VALID     BIT_ULL(63)
#define E810_SD_MAX_MEM_ENTRIES 8

static uint32_t e810_hmc_set_sd(E810Pe *pe, uint64_t cmd, uint64_t data)
{
    unsigned int idx = E810_SDCMD_IDX(cmd);
    E810HmcSd *sd;

    if (!(cmd & E810_SDCMD_WRITE) || idx >= E810_PE_MAX_SDS) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: SD command 0x%" PRIx64 "\n",
                      cmd);
        return E810_PE_ERR_INVAL;
    }
    sd = &pe->sd[idx];
    sd->valid = data & E810_SDDATA_VALID;
    sd->direct = data & E810_SDDATA_DIRECT;
    sd->pa = sd->valid ? data & E810_SDDATA_PA_MASK : 0;
    return 0;
}

static uint32_t e810_hmc_update_sds(E810State *s, E810Pe *pe,
                                    const uint8_t *wqe, uint32_t *ret)
{
    uint8_t mem[E810_SD_MAX_MEM_ENTRIES * 16];
    uint64_t q2 = e810_wqe_q(wqe, 2);
    unsigned int n = extract64(e810_wqe_hdr(wqe), 0, 4);
    uint32_t status;
    unsigned int i;

    if (!e810_hmc_fn_ok(q2) || n > E810_SD_MAX_MEM_ENTRIES) {
        return E810_PE_ERR_INVAL;
    }
    /* The first entry is always there; the next two say so. */
    status = e810_hmc_set_sd(pe, e810_wqe_q(wqe, 0), e810_wqe_q(wqe, 1));
    for (i = 0; !status && i < 2; i++) {
        uint64_t cmd = e810_wqe_q(wqe, 4 + 2 * i);

        if (cmd & E810_SD_ENTRY_VALID) {
            status = e810_hmc_set_sd(pe, cmd, e810_wqe_q(wqe, 5 + 2 * i));
        }
    }
    if (status || !n) {
        return status;
    }
    if (!e810_dma_read(s, q2 & ~0x3fULL, mem, n * 16)) {
        return E810_PE_ERR_DMA;
    }
    for (i = 0; !status && i < n; i++) {
        status = e810_hmc_set_sd(pe, ldq_le_p(mem + i * 16),
                                 ldq_le_p(mem + i * 16 + 8));
    }
    return status;
}

static uint32_t e810_hmc_pages_allocated(E810State *s, E810Pe *pe,
                                         const uint8_t *wqe, uint32_t *ret)
{
    if (!e810_hmc_fn_ok(e810_wqe_q(wqe, 2))) {
        return E810_PE_ERR_INVAL;
    }
    return pe->fpm_committed ? 0 : E810_PE_ERR_STATE;
}

static uint32_t e810_hmc_pm_func_table(E810State *s, E810Pe *pe,
                                       const uint8_t *wqe, uint32_t *ret)
{
    /* VF HMC functions: the model has no VFs. */
    qemu_log_mask(LOG_UNIMP, "e810: HMC function table (VFs)\n");
    return E810_PE_ERR_UNSUPP;
}

/*
 * The guest address of FPM address FPM, and how many bytes from there
 * lie in the same page (*LEN capped to it).
 */
static bool e810_hmc_translate(E810State *s, uint64_t fpm, uint64_t *pa,
                               size_t *len)
{
    uint64_t sd_idx = fpm / E810_HMC_SD_SIZE;
    uint64_t off = fpm % E810_HMC_SD_SIZE;
    E810HmcSd *sd;
    uint64_t pd;
    size_t room;

    if (sd_idx >= E810_PE_MAX_SDS || !s->pe->sd[sd_idx].valid) {
        return false;
    }
    sd = &s->pe->sd[sd_idx];
    if (sd->direct) {
        room = E810_HMC_SD_SIZE - off;
        *pa = sd->pa + off;
    } else {
        if (!e810_dma_read(s, sd->pa + off / E810_HMC_PAGE_SIZE * 8, &pd,
                           sizeof(pd))) {
            return false;
        }
        pd = le64_to_cpu(pd);
        if (!(pd & E810_SDDATA_VALID)) {
            return false;
        }
        room = E810_HMC_PAGE_SIZE - off % E810_HMC_PAGE_SIZE;
        *pa = (pd & E810_SDDATA_PA_MASK) + off % E810_HMC_PAGE_SIZE;
    }
    *len = MIN(*len, room);
    return true;
}

static bool e810_hmc_access(E810State *s, uint64_t fpm, void *buf,
                            size_t len, bool write)
{
    uint8_t *p = buf;
    uint64_t pa;
    size_t n;

    while (len) {
        n = len;
        if (!e810_hmc_translate(s, fpm, &pa, &n)) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: FPM address 0x%" PRIx64
                          " not backed\n", fpm);
            return false;
        }
        if (write ? !e810_dma_write(s, pa, p, n) :
            !e810_dma_read(s, pa, p, n)) {
            return false;
        }
        fpm += n;
        p += n;
        len -= n;
    }
    return true;
}

bool e810_hmc_read(E810State *s, uint64_t fpm, void *buf, size_t len)
{
    return e810_hmc_access(s, fpm, buf, len, false);
}

bool e810_hmc_write(E810State *s, uint64_t fpm, const void *buf, size_t len)
{
    return e810_hmc_access(s, fpm, (void *)buf, len, true);
}

bool e810_hmc_has(E810Pe *pe, unsigned int type, uint32_t idx)
{
    return pe->fpm_committed && type < E810_HMC_NUM_OBJ &&
           idx < pe->obj[type].cnt;
}

bool e810_hmc_pble(E810State *s, uint32_t idx, uint64_t *val)
{
    E810Pe *pe = s->pe;

    if (!e810_hmc_has(pe, E810_HMC_PBLE, idx) ||
        !e810_hmc_read(s, pe->obj[E810_HMC_PBLE].base + (uint64_t)idx * 8,
                       val, sizeof(*val))) {
        return false;
    }
    *val = le64_to_cpu(*val);
    return true;
}

void e810_hmc_reset(E810Pe *pe)
{
    unsigned int t;

    for (t = 0; t < E810_HMC_NUM_OBJ; t++) {
        pe->obj[t].max_cnt = e810_hmc_offer[t].max_cnt;
        pe->obj[t].size = 1ULL << e810_hmc_offer[t].size_log2;
        pe->obj[t].cnt = 0;
        pe->obj[t].base = 0;
    }
    pe->fpm_committed = false;
    memset(pe->sd, 0, sizeof(pe->sd));
}

const E810PeOp e810_hmc_ops[] = {
    { E810_CQP_QUERY_FPM_VAL, "query_fpm_val", e810_hmc_query_fpm },
    { E810_CQP_COMMIT_FPM_VAL, "commit_fpm_val", e810_hmc_commit_fpm },
    { E810_CQP_UPDATE_PE_SDS, "update_pe_sds", e810_hmc_update_sds },
    { E810_CQP_SHMC_PAGES_ALLOCATED, "shmc_pages_allocated",
      e810_hmc_pages_allocated },
    { E810_CQP_MANAGE_HMC_PM_FUNC, "manage_hmc_pm_func_table",
      e810_hmc_pm_func_table },
    { 0, NULL, NULL }
};

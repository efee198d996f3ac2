/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: irdma's send and receive WQEs (generation 2), read from
 * a work queue the PE describes and decoded for the RoCE engine.
 *
 * A WQE is 1 to 8 quanta of 32 bytes.  Quadword 3 of its first quantum
 * is the header: bit 63 valid, 62 signaled, 61 local fence, 60 read
 * fence, 57 inline, 55:48 inline length, 47 immediate, 41:38 the count
 * of fragments after the first, 37:32 opcode, 31:0 the remote STag (or
 * the STag to invalidate; bits 16:0 a UD send's address handle).
 * Quadword 2 is the remote address (WRITE, READ) or, for a send, the
 * destination Q_Key (31:0) and QPN (55:32).  Quadwords 0 and 1 are
 * fragment 0, or quadword 0 the immediate, which then takes fragment
 * 0's place; fragments 1.. follow from byte 32, 16 bytes each: the
 * address, then bit 63 valid, 62:32 length, 31:0 STag.
 *
 * Generation 2 puts the valid bit into the last quadword of every
 * quantum, not only the header's: an even fragment count gets an empty
 * fragment after the last one (so the count after the first is always
 * even), inline data leaves the last byte of each further quantum to
 * the valid bit.  The device checks every quantum.  Inline data fills
 * bytes 8..15 of the first quantum, then bytes 0..30 of each next one.
 *
 * irdma pads with one-quantum NOPs rather than let a WQE cross an
 * 8-quantum boundary, so no WQE crosses the ring's end; one that would
 * is broken here.
 *
 * Facts: irdma uk.c (irdma_uk_rdma_write, irdma_uk_rdma_read,
 * irdma_uk_send, irdma_uk_inline_*, irdma_copy_inline_data,
 * irdma_set_fragment, irdma_uk_stag_local_invalidate,
 * irdma_uk_post_receive, irdma_qp_get_next_send_wqe), ctrl.c
 * (irdma_sc_mr_fast_register), libirdma uk.c (irdma_uk_mw_bind), defs.h
 * (IRDMAQPSQ_*).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qemu/bitops.h"
#include "hw/registerfields.h"
#include "e810-roce.h"

#define Q                       E810_WQE_QUANTUM
#define WQE_HDR                 24

/* Header fields (quadword 3). */
FIELD(HDR, VALID, 63, 1)
FIELD(HDR, SIGNALED, 62, 1)
FIELD(HDR, LOCAL_FENCE, 61, 1)
FIELD(HDR, READ_FENCE, 60, 1)
FIELD(HDR, INLINE, 57, 1)
FIELD(HDR, INLINE_LEN, 48, 8)
FIELD(HDR, IMM, 47, 1)
FIELD(HDR, ADDFRAG, 38, 4)
FIELD(HDR, OPCODE, 32, 6)
FIELD(HDR, STAG, 0, 32)
FIELD(HDR, AH_ID, 0, 17)

/* FAST_REG and BIND_MW header fields. */
FIELD(HDR, MW_TYPE1, 54, 1)
FIELD(HDR, VA_BASED, 53, 1)
FIELD(HDR, RIGHTS, 48, 5)
FIELD(HDR, PAGE_SIZE, 46, 2)
FIELD(HDR, PBL_LEVEL, 44, 2)

/* A fragment's second quadword. */
FIELD(FRAG, LEN, 32, 31)
FIELD(FRAG, STAG, 0, 32)

static uint64_t wqe_q(const uint8_t *wqe, unsigned int off)
{
    return ldq_le_p(wqe + off);
}

static bool quantum_valid(const uint8_t *quantum, bool polarity)
{
    return FIELD_EX64(ldq_le_p(quantum + WQE_HDR), HDR, VALID) == polarity;
}

void e810_roce_wq_advance(const E810WqRing *r, uint32_t *idx,
                          bool *polarity, uint32_t n)
{
    if (!r->size) {
        return;
    }
    n %= r->size;
    *idx += n;
    if (*idx >= r->size) {
        *idx -= r->size;
        *polarity = !*polarity;
    }
}

/* Quanta of inline data of @len bytes, 0 if it cannot fit. */
static unsigned int inline_quanta(unsigned int len)
{
    if (len <= 8) {
        return 1;
    }
    if (len > E810_INLINE_MAX) {
        return 0;
    }
    return 1 + DIV_ROUND_UP(len - 8, 31);
}

/* How many quanta the WQE whose header is @hdr takes, 0 if none fit. */
static unsigned int sq_wqe_quanta(uint64_t hdr)
{
    switch (FIELD_EX64(hdr, HDR, OPCODE)) {
    case E810_WQE_OP_NOP:
    case E810_WQE_OP_FAST_REG:
    case E810_WQE_OP_LOCAL_INV:
    case E810_WQE_OP_BIND_MW:
        return 1;
    }
    if (FIELD_EX64(hdr, HDR, INLINE)) {
        return inline_quanta(FIELD_EX64(hdr, HDR, INLINE_LEN));
    }
    /* Fragments 1.. are two per quantum after the first. */
    return 1 + DIV_ROUND_UP(FIELD_EX64(hdr, HDR, ADDFRAG), 2);
}

/* Quanta @first..@n-1 of the entry at byte @base, each valid. */
static int wq_read_rest(const E810WqRing *r, uint64_t base, bool polarity,
                        uint8_t *buf, unsigned int first, unsigned int n)
{
    unsigned int q;

    for (q = first; q < n; q++) {
        if (!r->read(r->opaque, base + q * Q, buf + q * Q, Q)) {
            return -1;
        }
        if (!quantum_valid(buf + q * Q, polarity)) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: WQE at byte %" PRIu64
                          ": quantum %u not valid\n", base, q);
            return -1;
        }
    }
    return 1;
}

int e810_roce_sq_read(const E810WqRing *sq, uint32_t idx, bool polarity,
                      uint8_t *wqe, unsigned int *quanta)
{
    uint64_t base = (uint64_t)idx * Q;
    unsigned int n;

    if (idx >= sq->size) {
        return -1;
    }
    if (!sq->read(sq->opaque, base, wqe, Q)) {
        return -1;
    }
    if (!quantum_valid(wqe, polarity)) {
        return 0;
    }
    n = sq_wqe_quanta(wqe_q(wqe, WQE_HDR));
    if (!n || n > E810_SQ_MAX_QUANTA || n > sq->size - idx) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: SQ WQE at %u: %u quanta "
                      "do not fit\n", idx, n);
        return -1;
    }
    *quanta = n;
    return wq_read_rest(sq, base, polarity, wqe, 1, n);
}

/* Byte offset of fragment slot @i: 0, then 32, 48, 64... */
static unsigned int frag_off(unsigned int i)
{
    return i ? 16 + 16 * i : 0;
}

/*
 * Fragment slots @first..@last into @sge (at most @max), skipping empty
 * ones (the padding one of an even count); false if they overrun @len.
 */
static bool wqe_frags(const uint8_t *wqe, size_t len, unsigned int first,
                      unsigned int last, RoceSGE *sge, uint32_t *num,
                      uint32_t max)
{
    unsigned int i;

    for (i = first; i <= last; i++) {
        unsigned int off = frag_off(i);
        uint64_t w1;

        if (off + 16 > len) {
            return false;
        }
        w1 = wqe_q(wqe, off + 8);
        if (!FIELD_EX64(w1, FRAG, LEN)) {
            continue;
        }
        if (*num >= max) {
            return false;
        }
        sge[*num].addr = wqe_q(wqe, off);
        sge[*num].length = FIELD_EX64(w1, FRAG, LEN);
        sge[*num].lkey = FIELD_EX64(w1, FRAG, STAG);
        (*num)++;
    }
    return true;
}

/* The inline data of a WQE of @quanta quanta into wr. */
static bool wqe_inline(const uint8_t *wqe, unsigned int quanta,
                       unsigned int len, RoceSendWR *wr)
{
    unsigned int done, q;

    if (inline_quanta(len) != quanta || len > ROCE_MAX_INLINE) {
        return false;
    }
    done = MIN(len, 8);
    memcpy(wr->inline_data, wqe + 8, done);
    for (q = 1; done < len; q++) {
        unsigned int n = MIN(len - done, 31);

        memcpy(wr->inline_data + done, wqe + q * Q, n);
        done += n;
    }
    wr->inline_len = len;
    wr->flags |= ROCE_WR_INLINE;
    return true;
}

static void wqe_fast_reg(const uint8_t *wqe, uint64_t hdr, E810FastReg *fr)
{
    uint64_t w1 = wqe_q(wqe, 8), w2 = wqe_q(wqe, 16);

    fr->stag = FIELD_EX64(hdr, HDR, STAG);
    fr->va = wqe_q(wqe, 0);
    fr->len = extract64(w2, 0, 41);
    /* The PBLE index: bits 27:16 in quadword 1, 15:0 in quadword 2. */
    fr->first_pble = extract64(w1, 0, 12) << 16 | extract64(w2, 48, 16);
    fr->pbl_pa = w1 & MAKE_64BIT_MASK(12, 40);
    fr->pbl_level = FIELD_EX64(hdr, HDR, PBL_LEVEL);
    fr->page_size = FIELD_EX64(hdr, HDR, PAGE_SIZE);
    fr->access = FIELD_EX64(hdr, HDR, RIGHTS);
    fr->va_based = FIELD_EX64(hdr, HDR, VA_BASED);
}

static void wqe_bind(const uint8_t *wqe, uint64_t hdr, E810MwBind *b)
{
    uint64_t w1 = wqe_q(wqe, 8);

    b->va = wqe_q(wqe, 0);
    b->mr_stag = extract64(w1, 32, 32);
    b->mw_stag = extract64(w1, 0, 32);
    b->len = wqe_q(wqe, 16);
    b->access = FIELD_EX64(hdr, HDR, RIGHTS);
    b->va_based = FIELD_EX64(hdr, HDR, VA_BASED);
    b->type1 = FIELD_EX64(hdr, HDR, MW_TYPE1);
}

/* Work the front end does itself: decoded into info, in SQ order. */
static int wqe_local(const uint8_t *wqe, uint64_t hdr, RoceSendWR *wr,
                     E810SqWqe *info)
{
    wr->opcode = ROCE_WR_LOCAL;
    switch (info->op) {
    case E810_WQE_OP_FAST_REG:
        wqe_fast_reg(wqe, hdr, &info->fr);
        break;
    case E810_WQE_OP_LOCAL_INV:
        /* Fragment 0's STag, as irdma_uk_stag_local_invalidate puts it. */
        info->inv_stag = FIELD_EX64(wqe_q(wqe, 8), FRAG, STAG);
        break;
    case E810_WQE_OP_BIND_MW:
        wqe_bind(wqe, hdr, &info->bind);
        break;
    }
    return 0;
}

/* The opcode of a WQE that goes on the wire; false if there is none. */
static bool wqe_wire_opcode(uint8_t op, bool imm, RoceSendWR *wr)
{
    switch (op) {
    case E810_WQE_OP_RDMA_WRITE_SOL:
        wr->flags |= ROCE_WR_SOLICITED;
        /* fall through */
    case E810_WQE_OP_RDMA_WRITE:
        wr->opcode = imm ? ROCE_WR_WRITE_IMM : ROCE_WR_WRITE;
        return true;
    case E810_WQE_OP_RDMA_READ:
        wr->opcode = ROCE_WR_READ;
        return !imm;
    case E810_WQE_OP_SEND_SOL:
        wr->flags |= ROCE_WR_SOLICITED;
        /* fall through */
    case E810_WQE_OP_SEND:
        wr->opcode = imm ? ROCE_WR_SEND_IMM : ROCE_WR_SEND;
        return true;
    case E810_WQE_OP_SEND_SOL_INV:
        wr->flags |= ROCE_WR_SOLICITED;
        /* fall through */
    case E810_WQE_OP_SEND_INV:
        /* IB has no send with both an immediate and an invalidation. */
        wr->opcode = ROCE_WR_SEND_INV;
        return !imm;
    default:
        /*
         * READ with local invalidate is iWARP's (ib_core asks for it on
         * iWARP devices only); the rest are no opcodes at all.
         */
        return false;
    }
}

int e810_roce_sq_decode(const uint8_t *wqe, unsigned int quanta,
                        RoceSendWR *wr, E810SqWqe *info)
{
    uint64_t hdr = wqe_q(wqe, WQE_HDR), w2 = wqe_q(wqe, 16);
    bool imm = FIELD_EX64(hdr, HDR, IMM);
    unsigned int addfrag = FIELD_EX64(hdr, HDR, ADDFRAG);
    uint64_t wr_id = wr->wr_id;

    memset(info, 0, sizeof(*info));
    info->op = FIELD_EX64(hdr, HDR, OPCODE);
    info->quanta = quanta;
    /* Everything before the SGEs; wr_id is the caller's. */
    memset(wr, 0, offsetof(RoceSendWR, sge));
    wr->wr_id = wr_id;
    wr->num_sge = 0;
    wr->inline_len = 0;
    if (FIELD_EX64(hdr, HDR, SIGNALED)) {
        wr->flags |= ROCE_WR_SIGNALED;
    }
    /*
     * The engine has one fence: wait for earlier READs.  irdma's local
     * fence (it sets it on every fast registration) waits for more,
     * but local work runs in SQ order anyway.
     */
    if (FIELD_EX64(hdr, HDR, READ_FENCE) ||
        FIELD_EX64(hdr, HDR, LOCAL_FENCE)) {
        wr->flags |= ROCE_WR_FENCE;
    }
    if (quanta < 1 || quanta > E810_SQ_MAX_QUANTA) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    switch (info->op) {
    case E810_WQE_OP_NOP:
    case E810_WQE_OP_FAST_REG:
    case E810_WQE_OP_LOCAL_INV:
    case E810_WQE_OP_BIND_MW:
        return wqe_local(wqe, hdr, wr, info);
    }
    if (!wqe_wire_opcode(info->op, imm, wr)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: SQ WQE opcode 0x%x\n",
                      info->op);
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    if (imm) {
        wr->imm = (uint32_t)wqe_q(wqe, 0);
    }
    switch (wr->opcode) {
    case ROCE_WR_WRITE:
    case ROCE_WR_WRITE_IMM:
    case ROCE_WR_READ:
        wr->remote_addr = w2;
        wr->rkey = FIELD_EX64(hdr, HDR, STAG);
        break;
    case ROCE_WR_SEND_INV:
        wr->invalidate_rkey = FIELD_EX64(hdr, HDR, STAG);
        break;
    default:
        /* UD and GSI; the same fields are zeros on RC and UC. */
        info->ah_id = FIELD_EX64(hdr, HDR, AH_ID);
        wr->remote_qkey = extract64(w2, 0, 32);
        wr->remote_qpn = extract64(w2, 32, 24);
        break;
    }
    if (FIELD_EX64(hdr, HDR, INLINE)) {
        if (wr->opcode == ROCE_WR_READ ||
            !wqe_inline(wqe, quanta, FIELD_EX64(hdr, HDR, INLINE_LEN), wr)) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: SQ WQE bad inline\n");
            return ROCE_WC_LOC_QP_OP_ERR;
        }
        return 0;
    }
    /* The immediate takes fragment 0's place. */
    if (1 + DIV_ROUND_UP(addfrag, 2) != quanta ||
        !wqe_frags(wqe, quanta * Q, imm ? 1 : 0, addfrag, wr->sge,
                   &wr->num_sge, ROCE_MAX_SGE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: SQ WQE bad fragments\n");
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    return 0;
}

int e810_roce_rq_decode(const uint8_t *wqe, size_t len, RoceRecvWR *wr)
{
    uint64_t hdr;

    wr->num_sge = 0;
    if (len < Q) {
        return -1;
    }
    hdr = wqe_q(wqe, WQE_HDR);
    if (!wqe_frags(wqe, len, 0, FIELD_EX64(hdr, HDR, ADDFRAG), wr->sge,
                   &wr->num_sge, ROCE_MAX_SGE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: RQ WQE bad fragments\n");
        return -1;
    }
    return 1;
}

int e810_roce_rq_fetch(const E810WqRing *rq, uint32_t idx, bool polarity,
                       RoceRecvWR *wr)
{
    uint8_t wqe[E810_RQ_WQE_MAX];
    uint64_t base;
    unsigned int n;
    int r;

    if (idx >= rq->size || rq->stride < Q || rq->stride > sizeof(wqe) ||
        rq->stride % Q) {
        return -1;
    }
    base = (uint64_t)idx * rq->stride;
    if (!rq->read(rq->opaque, base, wqe, Q)) {
        return -1;
    }
    if (!quantum_valid(wqe, polarity)) {
        return 0;
    }
    /* Only the quanta the fragments use; the rest of the stride is not. */
    n = 1 + DIV_ROUND_UP(FIELD_EX64(wqe_q(wqe, WQE_HDR), HDR, ADDFRAG), 2);
    if (n > rq->stride / Q) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: RQ WQE at %u: %u quanta in "
                      "%u bytes\n", idx, n, rq->stride);
        return -1;
    }
    r = wq_read_rest(rq, base, polarity, wqe, 1, n);
    if (r != 1) {
        return r;
    }
    return e810_roce_rq_decode(wqe, n * Q, wr);
}

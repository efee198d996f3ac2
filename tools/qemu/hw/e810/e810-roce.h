/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the formats of the RoCE front end, between irdma's
 * queues in guest memory and the RoCEv2 engine (hw/roce/roce.h).
 * Pure functions without PE state: the PE part owns the rings (where
 * they are, how far the device got, the valid bit it expects there)
 * and hands them in.
 *
 *   e810-roce-wqe.c   send and receive WQEs into RoceSendWR/RoceRecvWR
 *   e810-roce-cqe.c   RoceCompletion into a CQE; CEQE, AEQE, the QP's
 *                     doorbell shadow word
 *
 * All of it is irdma's generation 2 (E810) layout, little-endian
 * quadwords.  Every ring entry carries a valid bit; the device takes an
 * entry when that bit equals the ring's current polarity, which is 1 on
 * the first pass and flips each time the index wraps to 0 (irdma starts
 * its SQ, RQ, CQ, CEQ and AEQ polarities that way).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#ifndef HW_E810_ROCE_H
#define HW_E810_ROCE_H

#include "hw/roce/roce.h"

/* Work queues are made of 32-byte quanta; a send WQE takes 1 to 8. */
#define E810_WQE_QUANTUM        32
#define E810_SQ_MAX_QUANTA      8
#define E810_SQ_WQE_MAX         (E810_WQE_QUANTUM * E810_SQ_MAX_QUANTA)
/* A receive WQE is 32 << rq_shift bytes, rq_shift 0..3. */
#define E810_RQ_WQE_MAX         256
/* Inline data: 8 bytes in the first quantum, 31 in each further one. */
#define E810_INLINE_MAX         (8 + 31 * (E810_SQ_MAX_QUANTA - 1))

#define E810_CQE_SIZE           32      /* one CQ ring slot */
#define E810_CQE_EXT_SIZE       64      /* two slots: immediate, UD info */
#define E810_CEQE_SIZE          8
#define E810_AEQE_SIZE          16

/* Send WQE opcodes (header bits 37:32), also a send CQE's opcode. */
#define E810_WQE_OP_RDMA_WRITE          0x00
#define E810_WQE_OP_RDMA_READ           0x01
#define E810_WQE_OP_SEND                0x03
#define E810_WQE_OP_SEND_INV            0x04
#define E810_WQE_OP_SEND_SOL            0x05
#define E810_WQE_OP_SEND_SOL_INV        0x06
#define E810_WQE_OP_BIND_MW             0x08
#define E810_WQE_OP_FAST_REG            0x09
#define E810_WQE_OP_LOCAL_INV           0x0a
#define E810_WQE_OP_RDMA_READ_LOC_INV   0x0b
#define E810_WQE_OP_NOP                 0x0c
#define E810_WQE_OP_RDMA_WRITE_SOL      0x0d

/* Access rights of FAST_REG and BIND_MW (5 bits, irdma's encoding). */
#define E810_ACC_LOCAL_READ     0x01
#define E810_ACC_LOCAL_WRITE    0x02
#define E810_ACC_REMOTE_READ    0x04
#define E810_ACC_REMOTE_WRITE   0x08
#define E810_ACC_BIND_WINDOW    0x10

/*
 * Completion error codes: major 1 is a flush, and only then does irdma
 * turn the minor code into a specific ib_wc_status (any other major is
 * IB_WC_GENERAL_ERR).  The model's own major for the latter is 0xffff.
 */
#define E810_CQE_MAJOR_FLUSH            0x0001
#define E810_CQE_MAJOR_MODEL            0xffff
#define E810_FLUSH_GENERAL_ERR          1       /* IB_WC_WR_FLUSH_ERR */
#define E810_FLUSH_PROT_ERR             2       /* LOC_PROT_ERR */
#define E810_FLUSH_REM_ACCESS_ERR       3
#define E810_FLUSH_LOC_QP_OP_ERR        4
#define E810_FLUSH_REM_OP_ERR           5
#define E810_FLUSH_LOC_LEN_ERR          6
#define E810_FLUSH_FATAL_ERR            7
#define E810_FLUSH_RETRY_EXC_ERR        8
#define E810_FLUSH_MW_BIND_ERR          9
#define E810_FLUSH_REM_INV_REQ_ERR      10

/* AEQE sources (bits 53:50) the PE uses for a QP's work queues. */
#define E810_AE_SRC_RSVD        0x0
#define E810_AE_SRC_RQ          0x1
#define E810_AE_SRC_CQ          0x2
#define E810_AE_SRC_SQ          0x5

/*
 * Read @len bytes at byte @off of a work queue (from its first entry):
 * the PE maps that to guest memory (contiguous, or pages of a PBL).
 * The functions here never ask for more than one 32-byte quantum at
 * a time, nor across a quantum's end, nor past size * stride.
 */
typedef bool (*E810WqRead)(void *opaque, uint64_t off, void *buf,
                           size_t len);

/* A work queue as the PE knows it. */
typedef struct E810WqRing {
    E810WqRead read;
    void *opaque;
    uint32_t size;      /* SQ: quanta; RQ: WQEs */
    uint32_t stride;    /* bytes per entry: SQ 32, RQ 32 << rq_shift */
} E810WqRing;

/* A FAST_REG WQE (irdma's IB_WR_REG_MR). */
typedef struct E810FastReg {
    uint32_t stag;          /* index << 8 | key */
    uint64_t va;            /* VA-based: the VA; else the first byte offset */
    uint64_t len;
    uint64_t pbl_pa;        /* pbl_level 0: the first (only) page */
    uint32_t first_pble;    /* pbl_level 1: the first PBLE's index */
    uint8_t pbl_level;      /* LPBLSIZE: 0 one page, 1 a PBLE list */
    uint8_t page_size;      /* 0 4 KiB, 1 2 MiB, 2 1 GiB */
    uint8_t access;         /* E810_ACC_* */
    bool va_based;
} E810FastReg;

/* A BIND_MW WQE (libirdma only). */
typedef struct E810MwBind {
    uint32_t mw_stag;
    uint32_t mr_stag;
    uint64_t va;
    uint64_t len;
    uint8_t access;         /* E810_ACC_REMOTE_READ, E810_ACC_REMOTE_WRITE */
    bool va_based;
    bool type1;
} E810MwBind;

/* What a send WQE says beyond RoceSendWR. */
typedef struct E810SqWqe {
    uint8_t op;             /* E810_WQE_OP_* */
    uint8_t quanta;
    uint32_t ah_id;         /* SEND on UD and GSI: the address handle */
    uint32_t inv_stag;      /* LOCAL_INV: the STag to invalidate */
    E810FastReg fr;         /* FAST_REG */
    E810MwBind bind;        /* BIND_MW */
} E810SqWqe;

/*
 * Move a ring position on by @n entries: past the end, wrap and flip
 * the polarity.
 */
void e810_roce_wq_advance(const E810WqRing *r, uint32_t *idx,
                          bool *polarity, uint32_t n);

/*
 * The send WQE whose first quantum is @idx, expected with valid bit
 * @polarity, into @wqe (E810_SQ_WQE_MAX bytes), its size in *quanta.
 * 1: a whole valid WQE; 0: none posted there (yet); -1: a broken one
 * (unreadable, a quantum not valid, past the ring's end).
 */
int e810_roce_sq_read(const E810WqRing *sq, uint32_t idx, bool polarity,
                      uint8_t *wqe, unsigned int *quanta);

/*
 * Decode a send WQE e810_roce_sq_read() returned, as ops->fetch_send
 * wants it: 0, or ROCE_WC_LOC_QP_OP_ERR for a WQE that makes no sense.
 * wr->wr_id and, for UD, wr->av (from info->ah_id) are the caller's;
 * NOP, FAST_REG, LOCAL_INV and BIND_MW are ROCE_WR_LOCAL with @info.
 */
int e810_roce_sq_decode(const uint8_t *wqe, unsigned int quanta,
                        RoceSendWR *wr, E810SqWqe *info);

/*
 * The receive WQE at index @idx (ring stride bytes) into @wr, as
 * ops->take_recv returns it: 1, 0 when none is posted there, -1 for a
 * broken one.  wr->wr_id is left to the caller.
 */
int e810_roce_rq_fetch(const E810WqRing *rq, uint32_t idx, bool polarity,
                       RoceRecvWR *wr);
/* The fragments of a receive WQE of @len bytes already read. */
int e810_roce_rq_decode(const uint8_t *wqe, size_t len, RoceRecvWR *wr);

/* What a CQE says that the completion does not. */
typedef struct E810CqeCtx {
    uint64_t compl_ctx;     /* the QP context's completion context */
    uint32_t qpn;
    /*
     * SQ: the WQE's first quantum; RQ: the WQE's index times
     * stride / 32 (irdma divides by that).
     */
    uint32_t wqe_idx;
    uint8_t sq_op;          /* SQ: the WQE's opcode (E810_WQE_OP_*) */
    bool ud;                /* a UD or GSI QP */
    bool solicited;         /* RQ: the message asked for an event */
} E810CqeCtx;

/*
 * The CQE of @c into @cqe (E810_CQE_EXT_SIZE bytes), valid bits clear:
 * its number of 32-byte slots, 1, or 2 when it carries an immediate or
 * a UD source MAC or VLAN.  The second slot goes into the CQ's next
 * slot (mod size, so possibly slot 0 of the next pass).  Set each
 * slot's valid bit with e810_roce_cqe_set_valid() to the polarity of
 * the pass it is written in, and write the second slot first, the
 * first slot's last quadword last: irdma polls that one.
 */
unsigned int e810_roce_cqe_build(const RoceCompletion *c,
                                 const E810CqeCtx *ctx, uint8_t *cqe);
/* A CQE with explicit codes (FLUSH_WQES's, say): one slot. */
void e810_roce_cqe_build_err(bool sq, uint16_t major, uint16_t minor,
                             const E810CqeCtx *ctx, uint8_t *cqe);
void e810_roce_cqe_set_valid(uint8_t *slot, bool polarity);
/* The major and minor codes irdma maps back to @st. */
void e810_roce_wc_err(RoceWCStatus st, uint16_t *major, uint16_t *minor);
/* The asynchronous event code of a QP that failed with @st. */
uint16_t e810_roce_wc_ae(RoceWCStatus st, bool recv);

/* A CEQE: @cq_ctx is qword 1 of the CREATE_CQ WQE (irdma's cq >> 1). */
uint64_t e810_roce_ceqe(uint64_t cq_ctx, bool polarity);

typedef struct E810Aeqe {
    uint64_t compl_ctx;     /* QP: its completion context; CQ: cq_ctx */
    uint32_t qp_cq_id;      /* 19 bits */
    uint16_t ae_id;         /* 12 bits */
    uint8_t ae_src;         /* E810_AE_SRC_* */
    uint16_t wqe_idx;       /* SQ or RQ source: the WQE (15 bits) */
    uint8_t iw_state;
    uint8_t tcp_state;
    bool overflow;
} E810Aeqe;

/* An AEQE into @out (E810_AEQE_SIZE bytes), its valid bit set. */
void e810_roce_aeqe_build(const E810Aeqe *ae, bool polarity, uint8_t *out);

/*
 * Quadword 0 of a QP's doorbell shadow area: the quantum the device
 * will look at next in the SQ.  irdma rings the doorbell only when that
 * lies among the WQEs it just posted, so the device writes it each time
 * it stops walking the SQ, then looks at that quantum once more.
 */
uint64_t e810_roce_qp_shadow(uint32_t hw_sq_tail);

#endif

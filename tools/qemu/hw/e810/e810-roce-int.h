/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the RoCE data path's own interfaces, between its files
 * (e810-roce.c, e810-roce-qp.c, e810-stag.c).  The rest of the PE sees
 * only the e810_roce_* calls of e810-pe.h.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#ifndef HW_E810_ROCE_INT_H
#define HW_E810_ROCE_INT_H

#include "qemu/timer.h"
#include "e810-pe.h"
#include "e810-roce.h"

/*
 * Send WQEs the engine numbered and did not complete yet, at most: the
 * engine's window (ROCE_SQ_SLOTS) with room to spare; a power of 2.
 */
#define E810_ROCE_SQ_SLOTS      256

/* Where the send WQE of one engine index sits in the SQ. */
typedef struct E810SqSlot {
    uint16_t quantum;       /* its first quantum: the CQE's WQE index */
    uint8_t quanta;
    uint8_t op;             /* E810_WQE_OP_* */
    bool polarity;          /* the valid bit it was taken with */
} E810SqSlot;

/* A QP's data path, beside its E810PeQp. */
struct E810RoceQp {
    RoceQP rqp;             /* the engine's */
    E810State *s;
    uint32_t id;
    QEMUTimer *timer;       /* the engine's timer */
    QEMUBH *bh;             /* the engine's "come back" */
    QEMUBH *walk_bh;        /* the SQ walk, resumed when slots free up */

    /* From the context (e810-roce-qp.c). */
    E810PeRing sq_ring;     /* quanta of 32 bytes */
    E810PeRing rq_ring;     /* WQEs of rq_ring.stride bytes */
    E810WqRing sq;          /* the format layer's view of them */
    E810WqRing rq;
    uint64_t shadow_pa;
    uint64_t compl_ctx;
    uint32_t scq;
    uint32_t rcq;
    uint32_t pd;
    bool priv;              /* a kernel QP: STag 0 is guest memory */
    bool fast_reg;          /* FAST_REG and LOCAL_INV allowed */
    bool ud;                /* UD or GSI */

    /* The SQ walk: the next quantum to look at, the next engine index. */
    uint32_t walk_q;
    bool walk_pol;
    uint32_t walk_idx;
    bool stalled;           /* stopped on a full window */
    E810SqSlot slot[E810_ROCE_SQ_SLOTS];

    /* The RQ: the next WQE the device takes. */
    uint32_t rq_idx;
    bool rq_pol;

    /* An error CQE was written (irdma drains the rest from it). */
    bool sq_err_done;
    bool rq_err_done;
    /* The first error completion, for the asynchronous event. */
    bool err_seen;
    bool err_recv;
    uint16_t err_wqe_idx;
    RoceWCStatus err_status;
};

/* The device's engine and its loopback queue (frames to our own MAC). */
struct E810Roce {
    RoceEngine eng;
    QEMUBH *loop_bh;
    GQueue loop;            /* of GByteArray */
    unsigned int loop_len;
    unsigned int stalled;   /* QPs whose SQ walk waits for slots */
};

/* e810-roce.c */
bool e810_roce_guard(E810State *s);
void e810_roce_unguard(E810State *s, bool was);
/* After an engine call: let stalled SQ walks go on. */
void e810_roce_kick(E810State *s);

/* e810-roce-qp.c: the engine's callbacks on a QP's queues. */
int e810_roce_fetch_send(void *opaque, RoceQP *rqp, uint32_t index,
                         RoceSendWR *wr);
int e810_roce_take_recv(void *opaque, RoceQP *rqp, RoceRecvWR *wr,
                        bool flush);
int e810_roce_local_op(void *opaque, RoceQP *rqp, const RoceSendWR *wr);
void e810_roce_complete(void *opaque, RoceQP *rqp, const RoceCompletion *c);
void e810_roce_qp_error(void *opaque, RoceQP *rqp);

/*
 * e810-stag.c: memory access under a key for a QP of protection domain
 * PD (PRIV: a kernel QP, for which STag 0 is guest physical memory):
 * a ROCE_MEM_* code.  BUF NULL: only the checks.
 */
int e810_stag_dma(E810State *s, uint32_t pd, bool priv, RoceMemOp op,
                  uint32_t key, uint64_t addr, void *buf, size_t len);
/* A peer's SEND with invalidate, or a LOCAL_INV WQE: ROCE_MEM_*. */
int e810_stag_invalidate(E810State *s, uint32_t pd, uint32_t stag);
/* A FAST_REG WQE: 0 or the RoceWCStatus to complete it with. */
int e810_stag_fast_reg(E810State *s, uint32_t pd, const E810FastReg *fr);
/* A BIND_MW WQE: 0 or the RoceWCStatus to complete it with. */
int e810_stag_bind(E810State *s, uint32_t pd, const E810MwBind *b);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the RoCE front end's own interfaces, between its
 * three files (mlx5-roce.c, mlx5-roce-wqe.c, mlx5-roce-cqe.c).  The
 * rest of the model sees only the mlx5_roce_* calls of mlx5.h.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#ifndef HW_MLX5_ROCE_H
#define HW_MLX5_ROCE_H

#include "hw/roce/roce.h"

/*
 * A QP's send WQE as the engine numbers them (one index per WQE) and
 * where it sits in the SQ (a WQE takes one basic block or more): kept
 * for each index from the doorbell's walk until its completion.
 */
typedef struct MLX5SqSlot {
    uint16_t bb;                /* its first basic block: the WQE counter */
    uint8_t opcode;             /* the ctrl segment's, for the CQE */
} MLX5SqSlot;

/* A QP's RoCE state, beside its MLX5QP (which it points back to). */
struct MLX5RoceQP {
    RoceQP rqp;                 /* the engine's */
    MLX5State *s;
    uint32_t qpn;
    QEMUTimer *timer;
    QEMUBH *bh;
    QEMUTimer *flush_timer;     /* in ERR: looks for receives to flush */
    /* The SQ walk: the next WQE not yet given an index, its index. */
    uint16_t walk_bb;
    uint32_t walk_idx;
    uint32_t nslots;            /* the SQ's basic blocks: a power of 2 */
    MLX5SqSlot *slots;          /* by index modulo nslots */
    /* The RQ: the device's consumer counter. */
    uint16_t rq_cc;
    /* The memory registration QP (st REG_UMR): UMR and NOP, no wire. */
    bool umr_qp;
};

/* The device's engine and its loopback queue (frames to our own GIDs). */
struct MLX5Roce {
    RoceEngine eng;
    QEMUBH *loop_bh;
    GQueue loop;                /* of GByteArray */
    unsigned int loop_len;
    uint32_t gsi_qpn;           /* QPN 1 on the wire: the QP1's, or 0 */
};

/*
 * mlx5-roce-wqe.c; a receive WQE's wr_id is its index, with this for an
 * SRQ's, and the SRQ's number from bit 40 (an XRC target's SRQ is the
 * request's, not the QP's).
 */
#define MLX5_ROCE_RECV_SRQ      (1ULL << 32)
#define MLX5_ROCE_RECV_SRQN(id) (((id) >> 40) & 0xffffff)

void mlx5_roce_sq_walk(MLX5State *s, MLX5QP *qp, MLX5RoceQP *r);
bool mlx5_roce_sq_wqe(MLX5State *s, MLX5QP *qp, MLX5RoceQP *r,
                      uint32_t index, uint8_t *w, size_t *end);
int mlx5_roce_fetch_send(void *opaque, RoceQP *rqp, uint32_t index,
                         RoceSendWR *wr);
int mlx5_roce_take_recv(void *opaque, RoceQP *rqp, RoceRecvWR *wr,
                        bool flush);
bool mlx5_roce_gid_av(MLX5State *s, uint32_t index, RoceAV *av);

/* mlx5-roce-cqe.c */
void mlx5_roce_complete(void *opaque, RoceQP *rqp, const RoceCompletion *c);

/* mlx5-umr.c: a UMR WQE of @len bytes run, 0 or the RoceWCStatus */
int mlx5_umr_run(MLX5State *s, uint32_t qpn, uint32_t qp_pd,
                 bool privileged, const uint8_t *w, size_t len);

/* mlx5-roce-wqe.c: the largest send WQE (ds is 6 bits of 16 bytes) */
#define MLX5_ROCE_WQE_MAX       (63 * 16)

/* mlx5-roce.c */
MLX5QP *mlx5_roce_qp_of(MLX5State *s, RoceQP *rqp);
bool mlx5_roce_qp_pd(MLX5State *s, const MLX5QP *qp, const RoceQP *rqp,
                     uint32_t *pd);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the RoCE front end's work queues, the WQEs of a
 * QP's SQ and RQ and of an SRQ, decoded for the engine.
 *
 * SQ: a ring of 64-byte basic blocks after the RQ in the QP's buffer;
 * the second dword of the doorbell record is the driver's producer, in
 * basic blocks.  A WQE is a control segment (opcode, its first basic
 * block's counter, QPN, size in 16-byte units, fence, completion and
 * solicited flags, immediate or the key to invalidate), for an XRC
 * initiator an XRC segment (the target's XRC SRQ number, as libmlx5
 * writes it for every opcode but BIND_MW and LOCAL_INV), for UD and the
 * GSI QP a datagram segment (mlx5_av: Q_Key, destination QPN, MAC, GID,
 * traffic class, hop limit, flow label, UDP source port and the GID
 * index to send from), for WRITE, READ and atomics a remote address
 * segment, for atomics an atomic segment (swap or add, compare), then
 * data segments (count, key, address) or inline data (count with bit
 * 31, the bytes, padded to 16).  A WQE may wrap around the ring's end.
 * The engine numbers WQEs one by one, so the doorbell walks the new
 * ones and keeps, per index, the first basic block (the CQE's WQE
 * counter) and the opcode (the requester CQE's).  A UMR WQE (0x25: fast
 * registration, local invalidation) on an RC or UC QP, or on the memory
 * registration QP (which takes nothing else but NOP), is local work: the
 * engine hands it back in its turn and mlx5-umr.c reads it again then.
 *
 * RQ: 2^log_rq_size WQEs of data segments, a key of 0x100 ending a
 * short list; the first dword of the record is the producer, in WQEs.
 * SRQs (all three kinds) are linked lists: a next segment (the index of
 * the WQE after this one), then data segments; the device follows the
 * list from WQE 0 as long as its record's counter is ahead of what it
 * took.  Neither queue has a doorbell: the device reads the record when
 * a message needs a WQE (and again when the peer retries after RNR).
 *
 * A WQE that makes no sense (size 0, a wrong QPN or counter, an opcode
 * the model does not run, segments past its size, more than 32 data
 * segments or 1 KiB inline) completes with a local QP operation error.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "sysemu/dma.h"
#include "mlx5.h"
#include "mlx5-roce.h"
#include "trace.h"

#define QP_RQ_REGULAR           0
#define QP_RQ_SRQ               1

#define WQE_BB                  64
#define WQE_DS                  16
#define WQE_MAX                 MLX5_ROCE_WQE_MAX
#define RQ_WQE_MAX              512             /* max_wqe_sz_rq */
#define DSEG_END_LKEY           0x100
#define DSEG_INLINE             0x80000000u

/* Send opcodes (the ctrl segment's low byte). */
#define OP_NOP                  0x00
#define OP_SEND_INV             0x01
#define OP_WRITE                0x08
#define OP_WRITE_IMM            0x09
#define OP_SEND                 0x0a
#define OP_SEND_IMM             0x0b
#define OP_READ                 0x10
#define OP_ATOMIC_CS            0x11
#define OP_ATOMIC_FA            0x12
#define OP_UMR                  0x25

/* fm_ce_se: fence mode, CQ update, solicited event. */
#define CTRL_FENCE_MASK         0xe0
#define CTRL_CQ_UPDATE          0x08
#define CTRL_SOLICITED          0x02

/* The datagram segment (struct mlx5_av): 48 bytes. */
#define AV_LEN                  48
#define AV_QKEY                 0
#define AV_DQPN                 8
#define AV_UDP_SPORT            14
#define AV_RMAC                 20
#define AV_TCLASS               26
#define AV_HOP_LIMIT            27
#define AV_GRH_GID_FL           28
#define AV_RGID                 32

static MLX5RoceQP *roce_qp(RoceQP *rqp)
{
    return container_of(rqp, MLX5RoceQP, rqp);
}

/*
 * @len bytes at byte @off of a ring (from its page_offset, in 64ths of
 * a page), page by page: a WQE may straddle two pages that are not
 * adjacent in bus addresses.  The caller keeps off + len in the ring.
 */
static bool ring_read(MLX5State *s, const uint64_t *pas,
                      unsigned int log_page, unsigned int page_offset,
                      uint64_t off, void *buf, size_t len)
{
    uint64_t page = 4096ULL << log_page;
    uint8_t *p = buf;

    off += page_offset * (page >> 6);
    while (len) {
        size_t n = MIN(len, page - (off & (page - 1)));

        if (pci_dma_read(PCI_DEVICE(s), mlx5_pas_addr(pas, log_page, off),
                         p, n) != MEMTX_OK) {
            return false;
        }
        p += n;
        off += n;
        len -= n;
    }
    return true;
}

/* Byte @off of a QP's buffer, its RQ first. */
static bool qp_buf_read(MLX5State *s, const MLX5QP *qp, uint64_t off,
                        void *buf, size_t len)
{
    return ring_read(s, qp->pas, qp->log_page_size, qp->page_offset, off,
                     buf, len);
}

static uint64_t qp_sq_off(const MLX5QP *qp)
{
    return qp->rq_type == QP_RQ_REGULAR ?
           1ULL << (qp->log_rq_size + qp->log_rq_stride) : 0;
}

/* Up to a basic block of the SQ, block @bb (modulo the ring). */
static bool sq_bb_read(MLX5State *s, const MLX5QP *qp, const MLX5RoceQP *r,
                       uint32_t bb, void *buf, size_t len)
{
    return qp_buf_read(s, qp, qp_sq_off(qp) +
                       (uint64_t)(bb & (r->nslots - 1)) * WQE_BB, buf, len);
}

/* A big-endian dword of the doorbell record; false if unreadable. */
static bool dbr_read(MLX5State *s, uint64_t addr, uint32_t *v)
{
    uint32_t be;

    if (pci_dma_read(PCI_DEVICE(s), addr, &be, 4) != MEMTX_OK) {
        return false;
    }
    *v = be32_to_cpu(be);
    return true;
}

/*
 * Index the WQEs posted since the last doorbell (by their sizes), up to
 * the record's producer; never more than the SQ holds beyond the
 * oldest WQE the engine has not completed.
 */
void mlx5_roce_sq_walk(MLX5State *s, MLX5QP *qp, MLX5RoceQP *r)
{
    uint32_t pc, n = 0;
    uint8_t ctrl[8];

    if (!r->nslots || !dbr_read(s, qp->dbr + 4, &pc)) {
        return;
    }
    pc &= 0xffff;
    while (r->walk_bb != pc && n++ < r->nslots &&
           (uint16_t)(pc - r->walk_bb) <= r->nslots &&
           r->walk_idx - r->rqp.sq_ci < r->nslots) {
        MLX5SqSlot *slot = &r->slots[r->walk_idx & (r->nslots - 1)];
        unsigned int ds;

        if (!sq_bb_read(s, qp, r, r->walk_bb, ctrl, sizeof(ctrl))) {
            memset(ctrl, 0, sizeof(ctrl));
        }
        ds = ctrl[7] & 0x3f;
        slot->bb = r->walk_bb;
        slot->opcode = ctrl[3];
        /* A size of 0 fails when fetched; it takes one block here. */
        r->walk_bb += ds ? DIV_ROUND_UP(ds * WQE_DS, WQE_BB) : 1;
        r->walk_idx++;
    }
}

/* The source of a path from the GID table: MAC, GID, IP version, VLAN. */
bool mlx5_roce_gid_av(MLX5State *s, uint32_t index, RoceAV *av)
{
    const MLX5Gid *g = mlx5_gid_get(s, index);

    if (!g) {
        return false;
    }
    memcpy(av->smac, g->mac, 6);
    memcpy(av->sgid, g->gid, 16);
    av->ipv6 = g->l3_type != 0;
    av->vlan_valid = g->vlan_valid;
    av->vlan = g->vlan_id & 0xfff;
    return true;
}

/* The datagram segment of a UD (or GSI) WQE into wr. */
static bool wqe_av(MLX5State *s, const uint8_t *av, RoceSendWR *wr)
{
    uint32_t fl = ldl_be_p(av + AV_GRH_GID_FL);

    if (!mlx5_roce_gid_av(s, (fl >> 20) & 0xff, &wr->av)) {
        return false;
    }
    wr->remote_qkey = ldl_be_p(av + AV_QKEY);
    wr->remote_qpn = ldl_be_p(av + AV_DQPN) & 0xffffff;
    wr->av.udp_sport = lduw_be_p(av + AV_UDP_SPORT);
    memcpy(wr->av.dmac, av + AV_RMAC, 6);
    wr->av.tclass = av[AV_TCLASS];
    wr->av.hop_limit = av[AV_HOP_LIMIT];
    wr->av.flow_label = fl & 0xfffff;
    memcpy(wr->av.dgid, av + AV_RGID, 16);
    return true;
}

/* Data segments or inline data from @off to @end of the WQE. */
static bool wqe_data(const uint8_t *w, size_t off, size_t end,
                     RoceSendWR *wr)
{
    while (off + 4 <= end) {
        uint32_t bc = ldl_be_p(w + off);

        if (bc & DSEG_INLINE) {
            bc &= ~DSEG_INLINE;
            if (wr->num_sge || bc > end - off - 4 ||
                wr->inline_len + bc > ROCE_MAX_INLINE) {
                return false;
            }
            memcpy(wr->inline_data + wr->inline_len, w + off + 4, bc);
            wr->inline_len += bc;
            wr->flags |= ROCE_WR_INLINE;
            off += ROUND_UP(4 + bc, WQE_DS);
            continue;
        }
        if (off + WQE_DS > end || (wr->flags & ROCE_WR_INLINE) ||
            wr->num_sge == ROCE_MAX_SGE) {
            return false;
        }
        /* The drivers leave empty entries out; one here is skipped. */
        if (bc) {
            RoceSGE *sge = &wr->sge[wr->num_sge++];

            sge->length = bc;
            sge->lkey = ldl_be_p(w + off + 4);
            sge->addr = ldq_be_p(w + off + 8);
        }
        off += WQE_DS;
    }
    return true;
}

/*
 * The send WQE of engine index @index into @w (WQE_MAX bytes), its size
 * in *end; false when it cannot be read or is not the WQE it should be
 * (size 0, another QP's number, another counter).
 */
bool mlx5_roce_sq_wqe(MLX5State *s, MLX5QP *qp, MLX5RoceQP *r,
                      uint32_t index, uint8_t *w, size_t *end)
{
    const MLX5SqSlot *slot = &r->slots[index & (r->nslots - 1)];
    uint32_t op_idx, qpn_ds, i;

    /* Block by block: a WQE may wrap around the end of the ring. */
    for (i = 0, *end = WQE_BB; i * WQE_BB < *end; i++) {
        size_t n = MIN(WQE_BB, WQE_MAX - i * WQE_BB);

        if (!sq_bb_read(s, qp, r, slot->bb + i, w + i * WQE_BB, n)) {
            return false;
        }
        *end = (ldl_be_p(w + 4) & 0x3f) * WQE_DS;
    }
    op_idx = ldl_be_p(w);
    qpn_ds = ldl_be_p(w + 4);
    trace_mlx5_roce_wqe(r->qpn, index, slot->bb, op_idx & 0xff,
                        *end / WQE_DS);
    return *end && (qpn_ds >> 8) == r->qpn &&
           ((op_idx >> 8) & 0xffff) == slot->bb;
}

int mlx5_roce_fetch_send(void *opaque, RoceQP *rqp, uint32_t index,
                         RoceSendWR *wr)
{
    MLX5State *s = opaque;
    MLX5RoceQP *r = roce_qp(rqp);
    MLX5QP *qp = mlx5_qp_get(s, r->qpn);
    uint8_t w[WQE_MAX];
    uint32_t op_idx;
    size_t off = WQE_DS, end;
    bool ud;

    if (!qp || !r->nslots || !mlx5_roce_sq_wqe(s, qp, r, index, w, &end)) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    op_idx = ldl_be_p(w);
    wr->wr_id = index;
    wr->flags = (w[11] & CTRL_CQ_UPDATE ? ROCE_WR_SIGNALED : 0) |
                (w[11] & CTRL_SOLICITED ? ROCE_WR_SOLICITED : 0) |
                (w[11] & CTRL_FENCE_MASK ? ROCE_WR_FENCE : 0);
    /*
     * UMR (fast registration, local invalidation; all the registration
     * QP takes besides NOP) is the front end's own work, in its turn:
     * mlx5-umr.c reads the WQE again then.
     */
    if ((op_idx & 0xff) == OP_UMR &&
        (rqp->attr.type == ROCE_QPT_RC || rqp->attr.type == ROCE_QPT_UC)) {
        wr->opcode = ROCE_WR_LOCAL;
        return 0;
    }
    if (r->umr_qp && (op_idx & 0xff) != OP_NOP) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    ud = rqp->attr.type == ROCE_QPT_UD || rqp->attr.type == ROCE_QPT_GSI;
    if (rqp->attr.xrc == ROCE_XRC_INI && (op_idx & 0xff) != OP_NOP &&
        (op_idx & 0xff) != OP_UMR) {
        /* The XRC segment: the target's XRC SRQ, 12 bytes reserved. */
        if (off + WQE_DS > end) {
            return ROCE_WC_LOC_QP_OP_ERR;
        }
        wr->xrc_srqn = ldl_be_p(w + off) & 0xffffff;
        off += WQE_DS;
    }
    if (ud) {
        if (off + AV_LEN > end || !wqe_av(s, w + off, wr)) {
            return ROCE_WC_LOC_QP_OP_ERR;
        }
        off += AV_LEN;
    }
    switch (op_idx & 0xff) {
    case OP_NOP:
        wr->opcode = ROCE_WR_LOCAL;
        return 0;
    case OP_SEND:
        wr->opcode = ROCE_WR_SEND;
        break;
    case OP_SEND_IMM:
        wr->opcode = ROCE_WR_SEND_IMM;
        wr->imm = ldl_be_p(w + 12);
        break;
    case OP_SEND_INV:
        wr->opcode = ROCE_WR_SEND_INV;
        wr->invalidate_rkey = ldl_be_p(w + 12);
        break;
    case OP_WRITE:
    case OP_WRITE_IMM:
        wr->opcode = (op_idx & 0xff) == OP_WRITE ? ROCE_WR_WRITE :
                     ROCE_WR_WRITE_IMM;
        wr->imm = ldl_be_p(w + 12);
        break;
    case OP_READ:
        wr->opcode = ROCE_WR_READ;
        break;
    case OP_ATOMIC_CS:
        wr->opcode = ROCE_WR_CMP_SWP;
        break;
    case OP_ATOMIC_FA:
        wr->opcode = ROCE_WR_FETCH_ADD;
        break;
    default:
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    if (ud && wr->opcode != ROCE_WR_SEND && wr->opcode != ROCE_WR_SEND_IMM) {
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    if (wr->opcode >= ROCE_WR_WRITE) {
        /* The remote address segment: address, key. */
        if (off + WQE_DS > end) {
            return ROCE_WC_LOC_QP_OP_ERR;
        }
        wr->remote_addr = ldq_be_p(w + off);
        wr->rkey = ldl_be_p(w + off + 8);
        off += WQE_DS;
    }
    if (wr->opcode == ROCE_WR_CMP_SWP || wr->opcode == ROCE_WR_FETCH_ADD) {
        /* The atomic segment: swap (or add), compare. */
        if (off + WQE_DS > end) {
            return ROCE_WC_LOC_QP_OP_ERR;
        }
        if (wr->opcode == ROCE_WR_CMP_SWP) {
            wr->swap = ldq_be_p(w + off);
            wr->compare_add = ldq_be_p(w + off + 8);
        } else {
            wr->compare_add = ldq_be_p(w + off);
        }
        off += WQE_DS;
    }
    return wqe_data(w, off, end, wr) ? 0 : ROCE_WC_LOC_QP_OP_ERR;
}

/* A receive WQE's data segments, from @off to @len, into wr. */
static void rwqe_data(const uint8_t *w, size_t off, size_t len,
                      RoceRecvWR *wr)
{
    for (; off + WQE_DS <= len && wr->num_sge < ROCE_MAX_SGE;
         off += WQE_DS) {
        RoceSGE *sge = &wr->sge[wr->num_sge];

        sge->lkey = ldl_be_p(w + off + 4);
        if (sge->lkey == DSEG_END_LKEY) {
            break;
        }
        sge->length = ldl_be_p(w + off) & 0x7fffffff;
        sge->addr = ldq_be_p(w + off + 8);
        wr->num_sge++;
    }
}

/* The next WQE of an SRQ's list, if the driver posted one. */
static int srq_take(MLX5State *s, MLX5SRQ *srq, uint32_t srqn,
                    RoceRecvWR *wr)
{
    size_t len = 1u << srq->log_stride;
    uint8_t w[RQ_WQE_MAX];
    uint32_t pc, idx;

    if (srq->err || !dbr_read(s, srq->dbr, &pc)) {
        return -1;
    }
    if ((uint16_t)pc == (uint16_t)srq->cc) {
        return 0;
    }
    idx = srq->head & ((1u << srq->log_size) - 1);
    if (!ring_read(s, srq->pas, srq->log_page_size, srq->page_offset,
                   (uint64_t)idx << srq->log_stride, w, len)) {
        return -1;
    }
    /* The next segment: 2 reserved bytes, the next WQE's index. */
    srq->head = lduw_be_p(w + 2);
    srq->cc++;
    wr->wr_id = MLX5_ROCE_RECV_SRQ | (uint64_t)srqn << 40 | idx;
    rwqe_data(w, WQE_DS, len, wr);
    trace_mlx5_roce_recv(srqn, idx, true);
    return 1;
}

int mlx5_roce_take_recv(void *opaque, RoceQP *rqp, RoceRecvWR *wr,
                        bool flush)
{
    MLX5State *s = opaque;
    MLX5RoceQP *r = roce_qp(rqp);
    MLX5QP *qp = mlx5_qp_get(s, r->qpn);
    uint8_t w[RQ_WQE_MAX];
    size_t len;
    uint32_t pc, idx;

    if (!qp) {
        return -1;
    }
    if (rqp->attr.xrc == ROCE_XRC_TGT) {
        /* The request's XRC SRQ, which must be of the QP's domain. */
        MLX5SRQ *srq = mlx5_srq_get(s, rqp->xrc_srqn);

        if (flush) {
            return 0;
        }
        if (!srq || srq->kind != MLX5_SRQ_XRC || srq->xrcd != qp->xrcd) {
            trace_mlx5_roce_drop(0, "XRCETH: no XRC SRQ of the domain");
            return -1;
        }
        return srq_take(s, srq, rqp->xrc_srqn, wr);
    }
    if (qp->rq_type == QP_RQ_SRQ) {
        MLX5SRQ *srq = mlx5_srq_get(s, qp->srqn);

        if (flush) {
            return 0;
        }
        return srq ? srq_take(s, srq, qp->srqn, wr) : -1;
    }
    if (qp->rq_type != QP_RQ_REGULAR) {
        return -1;
    }
    if (!dbr_read(s, qp->dbr, &pc)) {
        return -1;
    }
    if ((uint16_t)pc == r->rq_cc) {
        return 0;
    }
    idx = r->rq_cc & ((1u << qp->log_rq_size) - 1);
    len = MIN(1u << qp->log_rq_stride, sizeof(w));
    if (!qp_buf_read(s, qp, (uint64_t)idx << qp->log_rq_stride, w, len)) {
        return -1;
    }
    wr->wr_id = r->rq_cc;
    r->rq_cc++;
    rwqe_data(w, 0, len, wr);
    trace_mlx5_roce_recv(r->qpn, idx, false);
    return 1;
}

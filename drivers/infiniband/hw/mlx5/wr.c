// SPDX-License-Identifier: GPL-2.0-only
/*
 * Posting work to kernel QPs: send WQEs into the SQ's basic blocks and
 * receive WQEs into the RQ, then the doorbell records and, for sends,
 * the doorbell on the QP's UAR register.
 *
 * A send WQE is a control segment (opcode, its first block's index, QPN,
 * size in 16-byte units, completion request), then by type and opcode a
 * datagram segment (UD, GSI: the AH's address vector with the remote QPN
 * and Q_Key), a remote address segment (RDMA and atomics), an atomic
 * segment, and the data: data segments (address, length, key) or inline
 * bytes; or, for REG_MR and LOCAL_INV, a UMR's segments (fastreg.c).
 * Every segment is written 16 bytes at a time through a cursor (wr.h)
 * that steps from block to block, so a WQE may wrap around the ring and
 * cross the pages of its buffer.
 */
#include "mlx5_ib.h"
#include "wr.h"

void mlx5_ib_wqe_dseg(struct mlx5_wqe_data_seg *d, const struct ib_sge *sge)
{
	d->byte_count = cpu_to_be32(sge->length);
	d->lkey = cpu_to_be32(sge->lkey);
	d->addr = cpu_to_be64(sge->addr);
}

/*
 * The SGEs' bytes inline (their addresses are the kernel's): a count
 * with bit 31, then the bytes, the last unit padded.
 */
static int mlx5_ib_wqe_inline(struct mlx5_ib_kqp *k, struct mlx5_ib_wqe *w,
			      const struct ib_send_wr *wr)
{
	struct mlx5_wqe_inline_seg *seg;
	unsigned int pos, total = 0;
	u8 *unit;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > k->max_inline)
		return -EINVAL;

	unit = mlx5_ib_wqe_ds(w);
	seg = (struct mlx5_wqe_inline_seg *)unit;
	seg->byte_count = cpu_to_be32(total | MLX5_INLINE_SEG);
	pos = sizeof(*seg);
	for (i = 0; i < wr->num_sge; i++) {
		const u8 *src = (const u8 *)(uintptr_t)wr->sg_list[i].addr;
		u32 len = wr->sg_list[i].length;

		while (len) {
			unsigned int n;

			if (pos == MLX5_IB_DS) {
				unit = mlx5_ib_wqe_ds(w);
				pos = 0;
			}
			n = min_t(u32, len, MLX5_IB_DS - pos);
			memcpy(unit + pos, src, n);
			pos += n;
			src += n;
			len -= n;
		}
	}
	return 0;
}

static int mlx5_ib_wqe_data(struct mlx5_ib_kqp *k, struct mlx5_ib_wqe *w,
			    const struct ib_send_wr *wr)
{
	int i;

	if (wr->send_flags & IB_SEND_INLINE)
		return mlx5_ib_wqe_inline(k, w, wr);
	if (wr->num_sge > k->sq.max_gs)
		return -EINVAL;
	/* A length of 0 would mean 2 GiB to the device: such SGEs carry nothing. */
	for (i = 0; i < wr->num_sge; i++)
		if (wr->sg_list[i].length)
			mlx5_ib_wqe_dseg(mlx5_ib_wqe_ds(w), &wr->sg_list[i]);
	return 0;
}

/* What a send opcode is to the device and to its completion. */
struct mlx5_ib_send_op {
	u8 opcode;
	u8 wc_op;
	bool raddr;
	bool atomic;
};

static int mlx5_ib_send_op(enum ib_qp_type type, enum ib_wr_opcode op,
			   struct mlx5_ib_send_op *o)
{
	bool ud = type == IB_QPT_UD || type == IB_QPT_GSI;

	memset(o, 0, sizeof(*o));
	switch (op) {
	case IB_WR_SEND:
		o->opcode = MLX5_OPCODE_SEND;
		o->wc_op = IB_WC_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		o->opcode = MLX5_OPCODE_SEND_IMM;
		o->wc_op = IB_WC_SEND;
		return 0;
	default:
		break;
	}
	if (ud)
		return -EINVAL;
	switch (op) {
	case IB_WR_REG_MR:
		o->opcode = MLX5_OPCODE_UMR;
		o->wc_op = IB_WC_REG_MR;
		return 0;
	case IB_WR_LOCAL_INV:
		o->opcode = MLX5_OPCODE_UMR;
		o->wc_op = IB_WC_LOCAL_INV;
		return 0;
	case IB_WR_SEND_WITH_INV:
		o->opcode = MLX5_OPCODE_SEND_INVAL;
		o->wc_op = IB_WC_SEND;
		return 0;
	case IB_WR_RDMA_WRITE:
		o->opcode = MLX5_OPCODE_RDMA_WRITE;
		o->wc_op = IB_WC_RDMA_WRITE;
		o->raddr = true;
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		o->opcode = MLX5_OPCODE_RDMA_WRITE_IMM;
		o->wc_op = IB_WC_RDMA_WRITE;
		o->raddr = true;
		return 0;
	default:
		break;
	}
	if (type != IB_QPT_RC)
		return -EINVAL;
	switch (op) {
	case IB_WR_RDMA_READ:
		o->opcode = MLX5_OPCODE_RDMA_READ;
		o->wc_op = IB_WC_RDMA_READ;
		o->raddr = true;
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		o->opcode = MLX5_OPCODE_ATOMIC_CS;
		o->wc_op = IB_WC_COMP_SWAP;
		o->raddr = true;
		o->atomic = true;
		return 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		o->opcode = MLX5_OPCODE_ATOMIC_FA;
		o->wc_op = IB_WC_FETCH_ADD;
		o->raddr = true;
		o->atomic = true;
		return 0;
	default:
		return -EINVAL;
	}
}

static void mlx5_ib_wqe_av(struct mlx5_ib_wqe *w, const struct ib_send_wr *wr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);
	struct mlx5_av av = to_mah(ud->ah)->av;

	av.key.qkey.qkey = cpu_to_be32(ud->remote_qkey);
	av.dqp_dct = cpu_to_be32(ud->remote_qpn | MLX5_EXTENDED_UD_AV);
	mlx5_ib_wqe_put(w, &av, sizeof(av));
}

static void mlx5_ib_wqe_remote(struct mlx5_ib_wqe *w, const struct ib_send_wr *wr,
			       const struct mlx5_ib_send_op *o)
{
	struct mlx5_wqe_raddr_seg *r = mlx5_ib_wqe_ds(w);
	struct mlx5_wqe_atomic_seg *a;

	if (o->atomic) {
		r->raddr = cpu_to_be64(atomic_wr(wr)->remote_addr);
		r->rkey = cpu_to_be32(atomic_wr(wr)->rkey);
		r->reserved = 0;
		a = mlx5_ib_wqe_ds(w);
		if (wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			a->swap_add = cpu_to_be64(atomic_wr(wr)->swap);
			a->compare = cpu_to_be64(atomic_wr(wr)->compare_add);
		} else {
			a->swap_add = cpu_to_be64(atomic_wr(wr)->compare_add);
			a->compare = 0;
		}
		return;
	}
	r->raddr = cpu_to_be64(rdma_wr(wr)->remote_addr);
	r->rkey = cpu_to_be32(rdma_wr(wr)->rkey);
	r->reserved = 0;
}

static u8 mlx5_ib_wqe_flags(struct mlx5_ib_kqp *k, const struct ib_send_wr *wr)
{
	u8 f = 0;

	if (k->sig_all || (wr->send_flags & IB_SEND_SIGNALED))
		f |= MLX5_WQE_CTRL_CQ_UPDATE;
	if (wr->send_flags & IB_SEND_SOLICITED)
		f |= MLX5_WQE_CTRL_SOLICITED;
	/* IB's fence: wait for the READs and atomics before. */
	if (wr->send_flags & IB_SEND_FENCE)
		f |= MLX5_FENCE_MODE_INITIATOR_SMALL;
	return f;
}

/* One send WQE at the SQ's head; *@ctrl is its control segment. */
static int mlx5_ib_post_one(struct mlx5_ib_qp *qp, const struct ib_send_wr *wr,
			    struct mlx5_wqe_ctrl_seg **ctrl)
{
	struct mlx5_ib_kqp *k = qp->k;
	struct mlx5_ib_wq *sq = &k->sq;
	struct mlx5_ib_wqe w = { .sq = sq, .bb = sq->head };
	enum ib_qp_type type = qp->ibqp.qp_type;
	struct mlx5_ib_send_op o;
	struct mlx5_wqe_ctrl_seg *c;
	u32 slot, nbb;
	int err;

	if (!sq->cnt)
		return -EINVAL;
	if (sq->head - READ_ONCE(sq->tail) + k->sq_max_bbs > sq->cnt)
		return -ENOMEM;
	err = mlx5_ib_send_op(type, wr->opcode, &o);
	if (err)
		return err;
	if (o.atomic && (wr->num_sge != 1 || wr->sg_list[0].length != 8))
		return -EINVAL;

	w.p = mlx5_ib_sq_bb(sq, w.bb);
	c = mlx5_ib_wqe_ds(&w);
	if (wr->opcode == IB_WR_REG_MR) {
		err = mlx5_ib_wqe_reg_mr(&w, qp->ibqp.pd, reg_wr(wr));
	} else if (wr->opcode == IB_WR_LOCAL_INV) {
		mlx5_ib_wqe_local_inv(&w);
	} else {
		if (type == IB_QPT_UD || type == IB_QPT_GSI)
			mlx5_ib_wqe_av(&w, wr);
		else if (o.raddr)
			mlx5_ib_wqe_remote(&w, wr, &o);
		err = mlx5_ib_wqe_data(k, &w, wr);
	}
	if (err)
		return err;

	c->opmod_idx_opcode = cpu_to_be32((sq->head & 0xffff) << 8 | o.opcode);
	c->qpn_ds = cpu_to_be32(qp->qpn << 8 | w.size / MLX5_IB_DS);
	c->signature = 0;
	c->rsvd[0] = 0;
	c->rsvd[1] = 0;
	c->fm_ce_se = mlx5_ib_wqe_flags(k, wr);
	/* The key to invalidate or change. */
	if (wr->opcode == IB_WR_REG_MR)
		c->imm = cpu_to_be32(reg_wr(wr)->key);
	else if (o.opcode == MLX5_OPCODE_SEND_INVAL ||
		 wr->opcode == IB_WR_LOCAL_INV)
		c->imm = cpu_to_be32(wr->ex.invalidate_rkey);
	else if (wr->opcode == IB_WR_SEND_WITH_IMM ||
		 wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		c->imm = wr->ex.imm_data;
	else
		c->imm = 0;

	nbb = DIV_ROUND_UP(w.size, MLX5_SEND_WQE_BB);
	slot = sq->head & (sq->cnt - 1);
	sq->wrid[slot] = wr->wr_id;
	sq->wc_op[slot] = o.wc_op;
	sq->next[slot] = sq->head + nbb;
	sq->head += nbb;
	*ctrl = c;
	return 0;
}

int mlx5_ib_kqp_post_send(struct mlx5_ib_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	struct mlx5_ib_kqp *k = qp->k;
	struct mlx5_wqe_ctrl_seg *ctrl = NULL;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&k->sq.lock, flags);
	for (; wr; wr = wr->next) {
		err = mlx5_ib_post_one(qp, wr, &ctrl);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (ctrl) {
		/* The WQEs before the record that offers them... */
		wmb();
		k->db.db[MLX5_SND_DBR] = cpu_to_be32(k->sq.head & 0xffff);
		/* ...and the record before the doorbell that has it read. */
		wmb();
		mlx5_write64((__be32 *)ctrl, k->bfreg.map);
	}
	spin_unlock_irqrestore(&k->sq.lock, flags);
	return err;
}

int mlx5_ib_kqp_post_recv(struct mlx5_ib_qp *qp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct mlx5_ib_wq *rq = &qp->k->rq;
	struct mlx5_wqe_data_seg *d;
	unsigned long flags;
	u32 head, slot;
	int err = 0;
	int i, n;

	spin_lock_irqsave(&rq->lock, flags);
	head = rq->head;
	for (; wr; wr = wr->next) {
		if (!rq->cnt || wr->num_sge > rq->max_gs)
			err = -EINVAL;
		else if (rq->head - READ_ONCE(rq->tail) >= rq->cnt)
			err = -ENOMEM;
		if (err) {
			*bad_wr = wr;
			break;
		}
		slot = rq->head & (rq->cnt - 1);
		d = mlx5_frag_buf_get_wqe(&rq->fbc, slot);
		for (i = 0, n = 0; i < wr->num_sge; i++)
			if (wr->sg_list[i].length)
				mlx5_ib_wqe_dseg(&d[n++], &wr->sg_list[i]);
		/* A shorter list than the stride holds ends at the invalid key. */
		if (n < rq->max_gs) {
			d[n].byte_count = 0;
			d[n].lkey = cpu_to_be32(MLX5_INVALID_LKEY);
			d[n].addr = 0;
		}
		rq->wrid[slot] = wr->wr_id;
		rq->head++;
	}
	if (rq->head != head) {
		/* The WQEs before the record that offers them. */
		wmb();
		qp->k->db.db[MLX5_RCV_DBR] = cpu_to_be32(rq->head & 0xffff);
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	return err;
}

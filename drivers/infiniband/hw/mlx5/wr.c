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

/* The QP types a send opcode is posted on (kernel QPs: no XRC). */
#define MLX5_IB_ON_UD	BIT(0)		/* UD and GSI */
#define MLX5_IB_ON_UC	BIT(1)
#define MLX5_IB_ON_RC	BIT(2)
#define MLX5_IB_ON_CONN	(MLX5_IB_ON_UC | MLX5_IB_ON_RC)
#define MLX5_IB_ON_ALL	(MLX5_IB_ON_UD | MLX5_IB_ON_CONN)

/* What a send opcode is to the device and to its completion. */
struct mlx5_ib_send_op {
	u8 opcode;
	u8 wc_op;
	u8 on;		/* MLX5_IB_ON_*; 0: not offered */
	bool raddr;	/* a remote address segment */
	bool atomic;	/* and an atomic segment */
};

static const struct mlx5_ib_send_op mlx5_ib_send_ops[] = {
	[IB_WR_SEND] = { MLX5_OPCODE_SEND, IB_WC_SEND, MLX5_IB_ON_ALL },
	[IB_WR_SEND_WITH_IMM] = { MLX5_OPCODE_SEND_IMM, IB_WC_SEND,
				  MLX5_IB_ON_ALL },
	[IB_WR_SEND_WITH_INV] = { MLX5_OPCODE_SEND_INVAL, IB_WC_SEND,
				  MLX5_IB_ON_CONN },
	[IB_WR_REG_MR] = { MLX5_OPCODE_UMR, IB_WC_REG_MR, MLX5_IB_ON_CONN },
	[IB_WR_LOCAL_INV] = { MLX5_OPCODE_UMR, IB_WC_LOCAL_INV,
			      MLX5_IB_ON_CONN },
	[IB_WR_RDMA_WRITE] = { MLX5_OPCODE_RDMA_WRITE, IB_WC_RDMA_WRITE,
			       MLX5_IB_ON_CONN, true },
	[IB_WR_RDMA_WRITE_WITH_IMM] = { MLX5_OPCODE_RDMA_WRITE_IMM,
					IB_WC_RDMA_WRITE, MLX5_IB_ON_CONN,
					true },
	[IB_WR_RDMA_READ] = { MLX5_OPCODE_RDMA_READ, IB_WC_RDMA_READ,
			      MLX5_IB_ON_RC, true },
	[IB_WR_ATOMIC_CMP_AND_SWP] = { MLX5_OPCODE_ATOMIC_CS, IB_WC_COMP_SWAP,
				       MLX5_IB_ON_RC, true, true },
	[IB_WR_ATOMIC_FETCH_AND_ADD] = { MLX5_OPCODE_ATOMIC_FA,
					 IB_WC_FETCH_ADD, MLX5_IB_ON_RC,
					 true, true },
};

/* @op's entry if a QP of @type may post it, else NULL. */
static const struct mlx5_ib_send_op *mlx5_ib_send_op(enum ib_qp_type type,
						     enum ib_wr_opcode op)
{
	const struct mlx5_ib_send_op *o;
	u8 on;

	if (op >= ARRAY_SIZE(mlx5_ib_send_ops))
		return NULL;
	o = &mlx5_ib_send_ops[op];
	switch (type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
		on = MLX5_IB_ON_UD;
		break;
	case IB_QPT_UC:
		on = MLX5_IB_ON_UC;
		break;
	case IB_QPT_RC:
		on = MLX5_IB_ON_RC;
		break;
	default:
		return NULL;
	}
	return o->on & on ? o : NULL;
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

/*
 * Close the WQE being written at the SQ's head, whose control segment
 * is @c (its key or immediate already set): the rest of that segment,
 * and what its completion will report (@wrid, @wc_op) and where the
 * next WQE starts.  Called with the SQ's lock held.
 */
void mlx5_ib_wqe_finish(struct mlx5_ib_wqe *w, struct mlx5_wqe_ctrl_seg *c,
			u32 qpn, u8 opcode, u8 flags, u64 wrid,
			enum ib_wc_opcode wc_op)
{
	struct mlx5_ib_wq *sq = w->sq;
	u32 slot = sq->head & (sq->cnt - 1);

	lockdep_assert_held(&sq->lock);
	c->opmod_idx_opcode = cpu_to_be32((sq->head & 0xffff) << 8 | opcode);
	c->qpn_ds = cpu_to_be32(qpn << 8 | w->size / MLX5_IB_DS);
	c->signature = 0;
	c->rsvd[0] = 0;
	c->rsvd[1] = 0;
	c->fm_ce_se = flags;
	sq->wrid[slot] = wrid;
	sq->wc_op[slot] = wc_op;
	sq->next[slot] = sq->head + DIV_ROUND_UP(w->size, MLX5_SEND_WQE_BB);
	sq->head = sq->next[slot];
}

/* Offer the WQEs up to the SQ's head; @last is the last one's control. */
void mlx5_ib_sq_ring(struct mlx5_ib_kqp *k, struct mlx5_wqe_ctrl_seg *last)
{
	lockdep_assert_held(&k->sq.lock);
	/* The WQEs before the record that offers them... */
	wmb();
	k->db.db[MLX5_SND_DBR] = cpu_to_be32(k->sq.head & 0xffff);
	/* ...and the record before the doorbell that has it read. */
	wmb();
	mlx5_write64((__be32 *)last, k->bfreg.map);
}

/* One send WQE at the SQ's head; *@ctrl is its control segment. */
static int mlx5_ib_post_one(struct mlx5_ib_qp *qp, const struct ib_send_wr *wr,
			    struct mlx5_wqe_ctrl_seg **ctrl)
{
	struct mlx5_ib_kqp *k = qp->k;
	struct mlx5_ib_wq *sq = &k->sq;
	struct mlx5_ib_wqe w = { .sq = sq, .bb = sq->head };
	enum ib_qp_type type = qp->ibqp.qp_type;
	const struct mlx5_ib_send_op *o;
	struct mlx5_wqe_ctrl_seg *c;
	int err;

	if (!sq->cnt)
		return -EINVAL;
	if (sq->head - READ_ONCE(sq->tail) + k->sq_max_bbs > sq->cnt)
		return -ENOMEM;
	o = mlx5_ib_send_op(type, wr->opcode);
	if (!o)
		return -EINVAL;
	if (o->atomic && (wr->num_sge != 1 || wr->sg_list[0].length != 8))
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
		else if (o->raddr)
			mlx5_ib_wqe_remote(&w, wr, o);
		err = mlx5_ib_wqe_data(k, &w, wr);
	}
	if (err)
		return err;

	/* The key to invalidate or change, or the immediate. */
	if (wr->opcode == IB_WR_REG_MR)
		c->imm = cpu_to_be32(reg_wr(wr)->key);
	else if (o->opcode == MLX5_OPCODE_SEND_INVAL ||
		 wr->opcode == IB_WR_LOCAL_INV)
		c->imm = cpu_to_be32(wr->ex.invalidate_rkey);
	else if (wr->opcode == IB_WR_SEND_WITH_IMM ||
		 wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		c->imm = wr->ex.imm_data;
	else
		c->imm = 0;
	mlx5_ib_wqe_finish(&w, c, qp->qpn, o->opcode, mlx5_ib_wqe_flags(k, wr),
			   wr->wr_id, o->wc_op);
	*ctrl = c;
	return 0;
}

/*
 * On a dead device only a drain's marker is taken (drain.c): the rest
 * fails with -EIO, as nothing posted now could complete but by a flush.
 */
int mlx5_ib_kqp_post_send(struct mlx5_ib_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr, bool drain)
{
	struct mlx5_ib_kqp *k = qp->k;
	struct mlx5_wqe_ctrl_seg *ctrl = NULL;
	unsigned long flags;
	int err = 0;

	if (!drain && mlx5_ib_fatal(to_mdev(qp->ibqp.device))) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&k->sq.lock, flags);
	for (; wr; wr = wr->next) {
		err = mlx5_ib_post_one(qp, wr, &ctrl);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (ctrl)
		mlx5_ib_sq_ring(k, ctrl);
	spin_unlock_irqrestore(&k->sq.lock, flags);
	return err;
}

int mlx5_ib_kqp_post_recv(struct mlx5_ib_qp *qp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr, bool drain)
{
	struct mlx5_ib_wq *rq = &qp->k->rq;
	struct mlx5_wqe_data_seg *d;
	unsigned long flags;
	u32 head, slot;
	int err = 0;
	int i, n;

	if (!drain && mlx5_ib_fatal(to_mdev(qp->ibqp.device))) {
		*bad_wr = wr;
		return -EIO;
	}
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

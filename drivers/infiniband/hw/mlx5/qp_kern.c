// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel QPs (RC, UC, UD and the GSI QP, which is the device's QP1):
 * their buffer, doorbell record and UAR register, sized from the
 * creator's capabilities.  wr.c posts to them, cq_kern.c completes them.
 *
 * The buffer is laid out as libmlx5 lays out a user QP's: the RQ's WQEs
 * (a power of two of them, each a power of two of 16-byte data segments)
 * then the SQ's 64-byte basic blocks.  It comes from mlx5_core's page
 * allocator, one DMA-coherent page at a time, so the rings are reached
 * through a fragment control each; a WQE never straddles a page within
 * a basic block, which is all the posting code relies on.
 */
#include "mlx5_ib.h"

/*
 * The segments an SQ WQE of each type has before its data segments (an
 * atomic's operands and its one data segment fit in any RC WQE, which
 * is at least a fast registration's, below).  query_device's
 * max_send_sge counts the same way (main.c).
 */
#define MLX5_IB_HDR_CTRL	sizeof(struct mlx5_wqe_ctrl_seg)
#define MLX5_IB_HDR_UD		(MLX5_IB_HDR_CTRL + sizeof(struct mlx5_wqe_datagram_seg))
#define MLX5_IB_HDR_RC		(MLX5_IB_HDR_CTRL + sizeof(struct mlx5_wqe_raddr_seg))

/*
 * The UMR WQE of a REG_MR (RC, UC): control, UMR control, key context
 * and the page list's data segment (fastreg.c).
 */
#define MLX5_IB_UMR_WQE		(MLX5_IB_HDR_CTRL + \
				 sizeof(struct mlx5_wqe_umr_ctrl_seg) + \
				 MLX5_ST_SZ_BYTES(mkc) + \
				 sizeof(struct mlx5_wqe_data_seg))

/* A kernel QP's WQEs: at most 8 basic blocks, as libmlx5's. */
#define MLX5_IB_KQP_MAX_WQE	512

static unsigned int mlx5_ib_kqp_sq_hdr(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
		return MLX5_IB_HDR_RC;
	default:
		return MLX5_IB_HDR_UD;
	}
}

/*
 * The SQ: blocks for @cap's WQEs of the largest size its SGEs or inline
 * data need; the capabilities are rounded up to what the ring holds.
 */
static int mlx5_ib_kqp_size_sq(struct mlx5_ib_dev *dev, struct mlx5_ib_kqp *k,
			       enum ib_qp_type type, struct ib_qp_cap *cap)
{
	unsigned int hdr = mlx5_ib_kqp_sq_hdr(type);
	unsigned int max_wqe = min_t(unsigned int, MLX5_IB_KQP_MAX_WQE,
				     MLX5_CAP_GEN(dev->mdev, max_wqe_sz_sq));
	unsigned int data, wqe, nbb;
	u64 bbs;

	if (!cap->max_send_wr)
		return 0;
	data = max_t(unsigned int,
		     cap->max_send_sge * sizeof(struct mlx5_wqe_data_seg),
		     cap->max_inline_data ?
		     ALIGN(sizeof(struct mlx5_wqe_inline_seg) + cap->max_inline_data,
			   MLX5_SEND_WQE_DS) : 0);
	if (data > max_wqe)
		return -EINVAL;
	wqe = hdr + data;
	if (type == IB_QPT_RC || type == IB_QPT_UC)
		wqe = max_t(unsigned int, wqe, MLX5_IB_UMR_WQE);
	wqe = ALIGN(wqe, MLX5_SEND_WQE_BB);
	if (wqe > max_wqe)
		return -EINVAL;
	nbb = wqe / MLX5_SEND_WQE_BB;
	bbs = roundup_pow_of_two((u64)cap->max_send_wr * nbb);
	if (bbs > BIT(MLX5_CAP_GEN(dev->mdev, log_max_qp_sz)))
		return -EINVAL;

	k->sq.cnt = bbs;
	k->sq.max_gs = (wqe - hdr) / sizeof(struct mlx5_wqe_data_seg);
	k->sq_max_bbs = nbb;
	k->max_inline = wqe - hdr - sizeof(struct mlx5_wqe_inline_seg);
	cap->max_send_wr = bbs / nbb;
	cap->max_send_sge = k->sq.max_gs;
	cap->max_inline_data = k->max_inline;
	return 0;
}

/* The RQ: WQEs of a power of two of data segments; a shorter list ends with key 0x100. */
static int mlx5_ib_kqp_size_rq(struct mlx5_ib_dev *dev, struct mlx5_ib_kqp *k,
			       struct ib_qp_cap *cap, unsigned int *shift)
{
	unsigned int stride;

	if (!cap->max_recv_wr)
		return 0;
	stride = roundup_pow_of_two(max(cap->max_recv_sge, 1U) *
				    sizeof(struct mlx5_wqe_data_seg));
	if (stride > MLX5_CAP_GEN(dev->mdev, max_wqe_sz_rq) ||
	    cap->max_recv_wr > BIT(MLX5_CAP_GEN(dev->mdev, log_max_qp_sz)))
		return -EINVAL;

	k->rq.cnt = roundup_pow_of_two(cap->max_recv_wr);
	k->rq.max_gs = stride / sizeof(struct mlx5_wqe_data_seg);
	*shift = ilog2(stride);
	cap->max_recv_wr = k->rq.cnt;
	cap->max_recv_sge = k->rq.max_gs;
	return 0;
}

static int mlx5_ib_kqp_alloc_wq(struct mlx5_ib_wq *wq, bool sq)
{
	spin_lock_init(&wq->lock);
	if (!wq->cnt)
		return 0;
	wq->wrid = kvcalloc(wq->cnt, sizeof(*wq->wrid), GFP_KERNEL);
	if (!wq->wrid)
		return -ENOMEM;
	if (!sq)
		return 0;
	wq->next = kvcalloc(wq->cnt, sizeof(*wq->next), GFP_KERNEL);
	wq->wc_op = kvcalloc(wq->cnt, sizeof(*wq->wc_op), GFP_KERNEL);
	if (!wq->next || !wq->wc_op)
		return -ENOMEM;
	return 0;
}

static void mlx5_ib_kqp_free_wq(struct mlx5_ib_wq *wq)
{
	kvfree(wq->wrid);
	kvfree(wq->next);
	kvfree(wq->wc_op);
}

static void mlx5_ib_kqp_free(struct mlx5_ib_dev *dev, struct mlx5_ib_kqp *k)
{
	if (k->bfreg.map)
		mlx5_free_bfreg(dev->mdev, &k->bfreg);
	if (k->buf.frags)
		mlx5_frag_buf_free(dev->mdev, &k->buf);
	if (k->db.db)
		mlx5_db_free(dev->mdev, &k->db);
	mlx5_ib_kqp_free_wq(&k->sq);
	mlx5_ib_kqp_free_wq(&k->rq);
	kfree(k);
}

/* The rings in the buffer: the SQ starts where the RQ ends. */
static void mlx5_ib_kqp_rings(struct mlx5_ib_kqp *k, unsigned int rq_shift)
{
	size_t rq_bytes = (size_t)k->rq.cnt << rq_shift;

	if (k->rq.cnt)
		mlx5_init_fbc(k->buf.frags, rq_shift, ilog2(k->rq.cnt), &k->rq.fbc);
	if (!k->sq.cnt)
		return;
	/* A power of two: whole pages, or less than one. */
	if (rq_bytes >= PAGE_SIZE)
		mlx5_init_fbc(k->buf.frags + rq_bytes / PAGE_SIZE,
			      ilog2(MLX5_SEND_WQE_BB), ilog2(k->sq.cnt),
			      &k->sq.fbc);
	else
		mlx5_init_fbc_offset(k->buf.frags, ilog2(MLX5_SEND_WQE_BB),
				     ilog2(k->sq.cnt),
				     rq_bytes / MLX5_SEND_WQE_BB, &k->sq.fbc);
}

static int mlx5_ib_kqp_cmd(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			   struct ib_qp_init_attr *attr, unsigned int rq_shift)
{
	struct mlx5_ib_kqp *k = qp->k;
	u32 out[MLX5_ST_SZ_DW(create_qp_out)] = {};
	void *qpc;
	int inlen;
	u32 *in;
	int err;

	inlen = MLX5_ST_SZ_BYTES(create_qp_in) + k->buf.npages * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	mlx5_fill_page_frag_array(&k->buf,
				  (__be64 *)MLX5_ADDR_OF(create_qp_in, in, pas));

	qpc = MLX5_ADDR_OF(create_qp_in, in, qpc);
	/* The driver's memory registration QP has no PD (umr.c). */
	MLX5_SET(qpc, qpc, st, qp->reg_umr ? MLX5_QP_ST_REG_UMR :
					     mlx5_ib_qp_st(attr->qp_type));
	MLX5_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	if (!qp->reg_umr)
		MLX5_SET(qpc, qpc, pd, to_mpd(qp->ibqp.pd)->pdn);
	MLX5_SET(qpc, qpc, uar_page, k->bfreg.index);
	MLX5_SET(qpc, qpc, log_page_size,
		 k->buf.page_shift - MLX5_IB_ADAPTER_PAGE_SHIFT);
	MLX5_SET(qpc, qpc, user_index, 0xffffff);
	if (attr->srq) {
		MLX5_SET(qpc, qpc, rq_type, MLX5_SRQ_RQ);
		MLX5_SET(qpc, qpc, srqn_rmpn_xrqn, to_msrq(attr->srq)->srqn);
		MLX5_SET(qpc, qpc, cqn_rcv, to_mcq(attr->recv_cq)->mcq.cqn);
	} else if (k->rq.cnt) {
		MLX5_SET(qpc, qpc, rq_type, MLX5_NON_ZERO_RQ);
		MLX5_SET(qpc, qpc, log_rq_size, ilog2(k->rq.cnt));
		MLX5_SET(qpc, qpc, log_rq_stride, rq_shift - 4);
		MLX5_SET(qpc, qpc, cqn_rcv, to_mcq(attr->recv_cq)->mcq.cqn);
	} else {
		MLX5_SET(qpc, qpc, rq_type, MLX5_ZERO_LEN_RQ);
	}
	if (k->sq.cnt) {
		MLX5_SET(qpc, qpc, log_sq_size, ilog2(k->sq.cnt));
		MLX5_SET(qpc, qpc, cqn_snd, to_mcq(attr->send_cq)->mcq.cqn);
	} else {
		MLX5_SET(qpc, qpc, no_sq, 1);
	}
	MLX5_SET64(qpc, qpc, dbr_addr, k->db.dma);
	MLX5_SET(qpc, qpc, block_lb_mc,
		 !!(attr->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK));
	MLX5_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);

	err = mlx5_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	err = mlx5_ib_cmd_status(dev, err);
	if (err)
		return err;
	qp->qpn = MLX5_GET(create_qp_out, out, qpn);
	return 0;
}

/**
 * mlx5_ib_create_kernel_qp - the device side of a ULP's or the MAD layer's QP
 * @dev: the device
 * @qp: the QP, its PD set by the core
 * @attr: the creator's attributes; the capabilities are updated to what
 *        the rings hold
 *
 * Return: 0, with @qp->qpn and @qp->k set, or an errno.
 */
int mlx5_ib_create_kernel_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			     struct ib_qp_init_attr *attr)
{
	struct mlx5_core_dev *mdev = dev->mdev;
	struct ib_qp_cap cap = attr->cap;
	unsigned int rq_shift = 0;
	struct mlx5_ib_kqp *k;
	size_t bytes;
	int err;

	/* Of the creation flags, qp.c let through multicast loopback blocking. */
	if (attr->qp_type == IB_QPT_GSI && attr->port_num != MLX5_IB_PORT)
		return -EINVAL;

	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	qp->k = k;
	k->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;

	err = mlx5_ib_kqp_size_sq(dev, k, attr->qp_type, &cap);
	/* A QP on an SRQ has no RQ of its own. */
	if (!err && !attr->srq)
		err = mlx5_ib_kqp_size_rq(dev, k, &cap, &rq_shift);
	if (err)
		goto err_free;
	bytes = ((size_t)k->rq.cnt << rq_shift) + k->sq.cnt * MLX5_SEND_WQE_BB;
	if (!bytes) {
		err = -EINVAL;
		goto err_free;
	}

	err = mlx5_ib_kqp_alloc_wq(&k->sq, true);
	if (!err)
		err = mlx5_ib_kqp_alloc_wq(&k->rq, false);
	if (err)
		goto err_free;
	err = mlx5_db_alloc(mdev, &k->db);
	if (err)
		goto err_free;
	k->db.db[MLX5_RCV_DBR] = 0;
	k->db.db[MLX5_SND_DBR] = 0;
	err = mlx5_frag_buf_alloc_node(mdev, bytes, &k->buf, mdev->priv.numa_node);
	if (err) {
		/* It leaves its fragment list freed but named. */
		memset(&k->buf, 0, sizeof(k->buf));
		goto err_free;
	}
	mlx5_ib_kqp_rings(k, rq_shift);
	err = mlx5_alloc_bfreg(mdev, &k->bfreg, false, false);
	if (err) {
		k->bfreg.map = NULL;
		goto err_free;
	}

	err = mlx5_ib_kqp_cmd(dev, qp, attr, rq_shift);
	if (err)
		goto err_free;
	attr->cap = cap;
	qp->cap = cap;
	return 0;

err_free:
	mlx5_ib_kqp_free(dev, k);
	qp->k = NULL;
	return err;
}

/* Remove the QP's completions from its CQs: the device has let go of it. */
static void mlx5_ib_kqp_clean_cqs(struct mlx5_ib_qp *qp)
{
	struct ib_qp *ibqp = &qp->ibqp;

	if (ibqp->send_cq)
		mlx5_ib_kcq_clean(to_mcq(ibqp->send_cq), qp->qpn);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		mlx5_ib_kcq_clean(to_mcq(ibqp->recv_cq), qp->qpn);
}

/* After DESTROY_QP and once no event handler or poller can find the QP. */
void mlx5_ib_destroy_kernel_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp)
{
	mlx5_ib_kqp_clean_cqs(qp);
	mlx5_ib_kqp_free(dev, qp->k);
	qp->k = NULL;
}

/*
 * After the move to RESET: the device starts the rings from zero, the
 * completions of before are dropped, and what was posted is forgotten.
 */
void mlx5_ib_kqp_reset(struct mlx5_ib_qp *qp)
{
	struct mlx5_ib_kqp *k = qp->k;
	unsigned long flags;

	mlx5_ib_kqp_clean_cqs(qp);
	spin_lock_irqsave(&k->sq.lock, flags);
	k->sq.head = 0;
	WRITE_ONCE(k->sq.tail, 0);
	k->db.db[MLX5_SND_DBR] = 0;
	spin_unlock_irqrestore(&k->sq.lock, flags);
	spin_lock_irqsave(&k->rq.lock, flags);
	k->rq.head = 0;
	WRITE_ONCE(k->rq.tail, 0);
	k->db.db[MLX5_RCV_DBR] = 0;
	spin_unlock_irqrestore(&k->rq.lock, flags);
}

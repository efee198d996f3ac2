// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel CQs: a ring of 64-byte CQEs in memory of mlx5_core's page
 * allocator, polled here into work completions for the ULPs and the MAD
 * layer.
 *
 * Ownership: the ring's 2^n entries start invalid (opcode 15); the
 * device writes each entry with an owner bit that flips on every pass
 * over the ring, so entry i is ours when it is valid and its owner bit
 * equals bit n of the free-running consumer index.  The consumer index
 * goes to the doorbell record's first dword once the entries are read;
 * arming writes the record's second dword and rings the UAR.
 *
 * A CQE names its QP by number; the QP is found in the device's xarray
 * under the CQ's lock, which a QP's destroy (or reset) takes after the
 * device has let go of the QP, to remove its entries still in the ring
 * (mlx5_ib_kcq_clean()).
 *
 * A function mlx5_core declared dead (internal error) completes nothing
 * any more, yet the ULPs drain their QPs before they let go of them: the
 * poller then completes every WQE still posted to the CQ's QPs with a
 * flush error itself, and the CQs armed when the error came, or armed or
 * posted to after, get the event that makes their consumer poll.
 */
#include "mlx5_ib.h"

#define MLX5_IB_KCQE_SHIFT	6	/* 64-byte CQEs */

/* cqc.cqe_sz */
#define MLX5_IB_CQE_SZ_64	0

static struct mlx5_cqe64 *mlx5_ib_kcqe(struct mlx5_ib_cq *cq, u32 n)
{
	return mlx5_frag_buf_get_wqe(&cq->fbc, n & cq->fbc.sz_m1);
}

/* Entry @n if the device has written it for this pass, else NULL. */
static struct mlx5_cqe64 *mlx5_ib_kcqe_ready(struct mlx5_ib_cq *cq, u32 n)
{
	struct mlx5_cqe64 *cqe = mlx5_ib_kcqe(cq, n);
	bool owner = n & (cq->fbc.sz_m1 + 1);

	if (get_cqe_opcode(cqe) == MLX5_CQE_INVALID ||
	    (cqe->op_own & MLX5_CQE_OWNER_MASK) != owner)
		return NULL;
	/* The rest of the entry is read after its ownership. */
	dma_rmb();
	return cqe;
}

int mlx5_ib_create_kernel_cq(struct mlx5_ib_dev *dev, struct mlx5_ib_cq *cq,
			     unsigned int entries, int eqn)
{
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	struct mlx5_core_dev *mdev = dev->mdev;
	unsigned int i;
	void *cqc;
	int inlen;
	u32 *in;
	int err;

	spin_lock_init(&cq->lock);
	cq->kernel = true;
	INIT_LIST_HEAD(&cq->kcq_entry);

	err = mlx5_db_alloc(mdev, &cq->kdb);
	if (err)
		return err;
	cq->kdb.db[0] = 0;
	cq->kdb.db[1] = 0;

	err = mlx5_frag_buf_alloc_node(mdev, entries << MLX5_IB_KCQE_SHIFT,
				       &cq->buf, mdev->priv.numa_node);
	if (err)
		goto err_db;
	mlx5_init_fbc(cq->buf.frags, MLX5_IB_KCQE_SHIFT, ilog2(entries),
		      &cq->fbc);
	for (i = 0; i < entries; i++)
		mlx5_ib_kcqe(cq, i)->op_own = MLX5_CQE_INVALID << 4;

	inlen = MLX5_ST_SZ_BYTES(create_cq_in) + cq->buf.npages * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_buf;
	}
	mlx5_fill_page_frag_array(&cq->buf,
				  (__be64 *)MLX5_ADDR_OF(create_cq_in, in, pas));
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, MLX5_IB_CQE_SZ_64);
	MLX5_SET(cqc, cqc, log_cq_size, ilog2(entries));
	MLX5_SET(cqc, cqc, uar_page, mdev->priv.uar->index);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	MLX5_SET(cqc, cqc, log_page_size,
		 cq->buf.page_shift - MLX5_IB_ADAPTER_PAGE_SHIFT);
	MLX5_SET64(cqc, cqc, dbr_addr, cq->kdb.dma);

	cq->mcq.cqe_sz = 64;
	cq->mcq.set_ci_db = cq->kdb.db;
	cq->mcq.arm_db = cq->kdb.db + 1;
	cq->mcq.comp = mlx5_ib_cq_comp;
	cq->mcq.event = mlx5_ib_cq_event;
	err = mlx5_core_create_cq(mdev, &cq->mcq, in, inlen, out, sizeof(out));
	kvfree(in);
	err = mlx5_ib_cmd_status(dev, err);
	if (err)
		goto err_buf;
	spin_lock_irq(&dev->kcq_lock);
	list_add_tail(&cq->kcq_entry, &dev->kcqs);
	spin_unlock_irq(&dev->kcq_lock);
	return 0;

err_buf:
	mlx5_frag_buf_free(mdev, &cq->buf);
err_db:
	mlx5_db_free(mdev, &cq->kdb);
	return err;
}

/* After DESTROY_CQ: the device writes the ring no more. */
void mlx5_ib_destroy_kernel_cq(struct mlx5_ib_dev *dev, struct mlx5_ib_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->kcq_lock, flags);
	list_del(&cq->kcq_entry);
	spin_unlock_irqrestore(&dev->kcq_lock, flags);
	mlx5_frag_buf_free(dev->mdev, &cq->buf);
	mlx5_db_free(dev->mdev, &cq->kdb);
}

static enum ib_wc_status mlx5_ib_wc_status(u8 syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return IB_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return IB_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return IB_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return IB_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
		return IB_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
		return IB_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
		return IB_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return IB_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return IB_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return IB_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return IB_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return IB_WC_REM_ABORT_ERR;
	default:
		return IB_WC_GENERAL_ERR;
	}
}

/*
 * A requester CQE names the last WQE it completes by its first block;
 * the unsignalled WQEs before it completed too.
 */
static void mlx5_ib_kcq_sq(struct mlx5_ib_kqp *k, struct mlx5_cqe64 *cqe,
			   struct ib_wc *wc)
{
	struct mlx5_ib_wq *sq = &k->sq;
	u32 slot = be16_to_cpu(cqe->wqe_counter) & (sq->cnt - 1);

	wc->wr_id = sq->wrid[slot];
	wc->opcode = sq->wc_op[slot];
	WRITE_ONCE(sq->tail, sq->next[slot]);
}

/*
 * The receive WQEs of a QP's RQ complete in order; an SRQ's WQE is the
 * one the CQE's WQE counter names.
 */
static void mlx5_ib_kcq_rq(struct mlx5_ib_qp *qp, struct mlx5_cqe64 *cqe,
			   struct ib_wc *wc)
{
	struct mlx5_ib_wq *rq = &qp->k->rq;

	if (qp->ibqp.srq) {
		wc->wr_id = mlx5_ib_srq_complete(to_msrq(qp->ibqp.srq),
						 be16_to_cpu(cqe->wqe_counter));
		return;
	}
	wc->wr_id = rq->wrid[rq->tail & (rq->cnt - 1)];
	WRITE_ONCE(rq->tail, rq->tail + 1);
}

/* What a datagram's CQE says of its sender (UD, GSI). */
static void mlx5_ib_kcq_ud(struct mlx5_cqe64 *cqe, struct ib_wc *wc)
{
	u32 flags_rqpn = be32_to_cpu(cqe->flags_rqpn);
	u16 vlan = be16_to_cpu(cqe->vlan_info);

	wc->src_qp = flags_rqpn & 0xffffff;
	wc->pkey_index = 0;
	if (flags_rqpn & BIT(28))
		wc->wc_flags |= IB_WC_GRH;
	/* The L3 header the GRH's place holds: 0 GRH, 1 IPv6, 2 IPv4. */
	switch ((flags_rqpn >> 24) & 3) {
	case 1:
		wc->network_hdr_type = RDMA_NETWORK_IPV6;
		break;
	case 2:
		wc->network_hdr_type = RDMA_NETWORK_IPV4;
		break;
	default:
		wc->network_hdr_type = RDMA_NETWORK_ROCE_V1;
		break;
	}
	wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	if (cqe_has_vlan(cqe)) {
		wc->vlan_id = vlan & 0xfff;
		wc->sl = vlan >> 13;
		wc->wc_flags |= IB_WC_WITH_VLAN;
	}
}

static void mlx5_ib_kcq_resp(struct mlx5_ib_qp *qp, struct mlx5_cqe64 *cqe,
			     u8 opcode, struct ib_wc *wc)
{
	mlx5_ib_kcq_rq(qp, cqe, wc);
	wc->byte_len = be32_to_cpu(cqe->byte_cnt);
	switch (opcode) {
	case MLX5_CQE_RESP_WR_IMM:
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->immediate;
		break;
	case MLX5_CQE_RESP_SEND_IMM:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->immediate;
		break;
	case MLX5_CQE_RESP_SEND_INV:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->inval_rkey);
		break;
	default:
		wc->opcode = IB_WC_RECV;
		break;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI)
		mlx5_ib_kcq_ud(cqe, wc);
	else
		wc->src_qp = qp->attr.dest_qp_num;
}

/*
 * One CQE into @wc; false for an entry that completes nothing of ours
 * (a QP that is gone, an opcode a kernel CQ never gets).
 */
static bool mlx5_ib_kcq_one(struct mlx5_ib_dev *dev, struct mlx5_cqe64 *cqe,
			    struct ib_wc *wc)
{
	u32 qpn = be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff;
	u8 opcode = get_cqe_opcode(cqe);
	struct mlx5_err_cqe *err;
	struct mlx5_ib_qp *qp;

	qp = xa_load(&dev->qps, qpn);
	if (!qp || !qp->k)
		return false;

	memset(wc, 0, sizeof(*wc));
	wc->qp = &qp->ibqp;
	wc->port_num = MLX5_IB_PORT;
	switch (opcode) {
	case MLX5_CQE_REQ:
		mlx5_ib_kcq_sq(qp->k, cqe, wc);
		wc->status = IB_WC_SUCCESS;
		if (wc->opcode == IB_WC_RDMA_READ ||
		    wc->opcode == IB_WC_COMP_SWAP ||
		    wc->opcode == IB_WC_FETCH_ADD)
			wc->byte_len = be32_to_cpu(cqe->byte_cnt);
		return true;
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		wc->status = IB_WC_SUCCESS;
		mlx5_ib_kcq_resp(qp, cqe, opcode, wc);
		return true;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		err = (struct mlx5_err_cqe *)cqe;
		if (opcode == MLX5_CQE_REQ_ERR)
			mlx5_ib_kcq_sq(qp->k, cqe, wc);
		else
			mlx5_ib_kcq_rq(qp, cqe, wc);
		wc->status = mlx5_ib_wc_status(err->syndrome);
		wc->vendor_err = err->vendor_err_synd;
		return true;
	default:
		return false;
	}
}

bool mlx5_ib_fatal(struct mlx5_ib_dev *dev)
{
	return dev->mdev->state == MLX5_DEVICE_STATE_INTERNAL_ERROR;
}

static void mlx5_ib_wc_flush(struct mlx5_ib_qp *qp, u64 wr_id, u8 opcode,
			     struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = IB_WC_WR_FLUSH_ERR;
	wc->opcode = opcode;
	wc->qp = &qp->ibqp;
	wc->port_num = MLX5_IB_PORT;
}

/* A dead device's flushes of @qp's SQ, at most @n. */
static int mlx5_ib_flush_sq(struct mlx5_ib_qp *qp, struct ib_wc *wc, int n)
{
	struct mlx5_ib_wq *sq = &qp->k->sq;
	unsigned long flags;
	u32 slot;
	int done = 0;

	spin_lock_irqsave(&sq->lock, flags);
	while (done < n && sq->tail != sq->head) {
		slot = sq->tail & (sq->cnt - 1);
		mlx5_ib_wc_flush(qp, sq->wrid[slot], sq->wc_op[slot], &wc[done++]);
		WRITE_ONCE(sq->tail, sq->next[slot]);
	}
	spin_unlock_irqrestore(&sq->lock, flags);
	return done;
}

/* And of its RQ (an SRQ's WQEs are the SRQ's, not flushed with a QP). */
static int mlx5_ib_flush_rq(struct mlx5_ib_qp *qp, struct ib_wc *wc, int n)
{
	struct mlx5_ib_wq *rq = &qp->k->rq;
	unsigned long flags;
	int done = 0;

	spin_lock_irqsave(&rq->lock, flags);
	while (done < n && rq->tail != rq->head) {
		mlx5_ib_wc_flush(qp, rq->wrid[rq->tail & (rq->cnt - 1)],
				 IB_WC_RECV, &wc[done++]);
		WRITE_ONCE(rq->tail, rq->tail + 1);
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	return done;
}

enum {
	MLX5_IB_KCQ_SQ = BIT(0),
	MLX5_IB_KCQ_RQ = BIT(1),
};

/*
 * Which of @qp's work queues a dead device flushes into @cq: a kernel QP's
 * SQ and RQ on it, not an RQ taken from an SRQ (the SRQ's WQEs are not the
 * QP's).
 */
static unsigned int mlx5_ib_kcq_wqs(struct mlx5_ib_qp *qp,
				    struct mlx5_ib_cq *cq)
{
	unsigned int wqs = 0;

	if (!qp->k)
		return 0;
	if (qp->ibqp.send_cq == &cq->ibcq)
		wqs |= MLX5_IB_KCQ_SQ;
	if (qp->ibqp.recv_cq == &cq->ibcq && !qp->ibqp.srq)
		wqs |= MLX5_IB_KCQ_RQ;
	return wqs;
}

static bool mlx5_ib_wq_posted(struct mlx5_ib_wq *wq)
{
	return READ_ONCE(wq->tail) != READ_ONCE(wq->head);
}

/*
 * The flushes a dead device owes @cq: every WQE still posted to a kernel
 * QP of it.  Under the CQ's lock, which keeps the QPs found (as a CQE's).
 */
static int mlx5_ib_kcq_flush(struct mlx5_ib_dev *dev, struct mlx5_ib_cq *cq,
			     int n, struct ib_wc *wc)
{
	struct mlx5_ib_qp *qp;
	unsigned long index;
	unsigned int wqs;
	int done = 0;

	lockdep_assert_held(&cq->lock);
	xa_for_each(&dev->qps, index, qp) {
		wqs = mlx5_ib_kcq_wqs(qp, cq);
		if (wqs & MLX5_IB_KCQ_SQ)
			done += mlx5_ib_flush_sq(qp, wc + done, n - done);
		if (done < n && (wqs & MLX5_IB_KCQ_RQ))
			done += mlx5_ib_flush_rq(qp, wc + done, n - done);
		if (done == n)
			break;
	}
	return done;
}

/* Whether a dead device owes @cq a flush. */
static bool mlx5_ib_kcq_flush_owed(struct mlx5_ib_dev *dev,
				   struct mlx5_ib_cq *cq)
{
	struct mlx5_ib_qp *qp;
	unsigned long index;
	unsigned int wqs;

	xa_for_each(&dev->qps, index, qp) {
		wqs = mlx5_ib_kcq_wqs(qp, cq);
		if ((wqs & MLX5_IB_KCQ_SQ) && mlx5_ib_wq_posted(&qp->k->sq))
			return true;
		if ((wqs & MLX5_IB_KCQ_RQ) && mlx5_ib_wq_posted(&qp->k->rq))
			return true;
	}
	return false;
}

int mlx5_ib_kcq_poll(struct mlx5_ib_cq *cq, int num_entries, struct ib_wc *wc)
{
	struct mlx5_ib_dev *dev = to_mdev(cq->ibcq.device);
	struct mlx5_cqe64 *cqe;
	unsigned long flags;
	bool consumed = false;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries) {
		cqe = mlx5_ib_kcqe_ready(cq, cq->mcq.cons_index);
		if (!cqe)
			break;
		cq->mcq.cons_index++;
		consumed = true;
		if (mlx5_ib_kcq_one(dev, cqe, &wc[n]))
			n++;
	}
	if (consumed)
		mlx5_cq_set_ci(&cq->mcq);
	if (n < num_entries && mlx5_ib_fatal(dev))
		n += mlx5_ib_kcq_flush(dev, cq, num_entries - n, wc + n);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mlx5_ib_kcq_arm(struct mlx5_ib_cq *cq, enum ib_cq_notify_flags flags)
{
	struct mlx5_ib_dev *dev = to_mdev(cq->ibcq.device);
	struct mlx5_core_dev *mdev = dev->mdev;
	u32 cmd = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		  MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT;
	unsigned long irqflags;
	int missed = 0;
	bool owed;

	spin_lock_irqsave(&cq->lock, irqflags);
	set_bit(0, &cq->armed);
	mlx5_cq_arm(&cq->mcq, cmd, mdev->priv.uar->map, cq->mcq.cons_index);
	owed = mlx5_ib_fatal(dev) && mlx5_ib_kcq_flush_owed(dev, cq);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    (owed || mlx5_ib_kcqe_ready(cq, cq->mcq.cons_index)))
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	/* A dead device raises no event: the flushes owed raise one. */
	if (owed && !missed)
		mlx5_ib_kcq_fatal(dev);
	return missed;
}

/*
 * The events a dead device owes the armed kernel CQs, raised from a work
 * item and never from within the consumer's own call (a post, an arm):
 * its handler may post or arm again, and would be called back at once,
 * without end.  Called as the device calls them, with interrupts off.
 */
static void mlx5_ib_kcq_work(struct work_struct *work)
{
	struct mlx5_ib_dev *dev = container_of(work, struct mlx5_ib_dev,
					       kcq_work);
	struct ib_cq *ibcq;
	struct mlx5_ib_cq *cq;
	unsigned long flags;

	spin_lock_irqsave(&dev->kcq_lock, flags);
	list_for_each_entry(cq, &dev->kcqs, kcq_entry) {
		ibcq = &cq->ibcq;
		if (test_and_clear_bit(0, &cq->armed) && ibcq->comp_handler)
			ibcq->comp_handler(ibcq, ibcq->cq_context);
	}
	spin_unlock_irqrestore(&dev->kcq_lock, flags);
}

void mlx5_ib_kcq_init(struct mlx5_ib_dev *dev)
{
	spin_lock_init(&dev->kcq_lock);
	INIT_LIST_HEAD(&dev->kcqs);
	INIT_WORK(&dev->kcq_work, mlx5_ib_kcq_work);
}

/* Every kernel CQ gone: no event is owed any more. */
void mlx5_ib_kcq_cleanup(struct mlx5_ib_dev *dev)
{
	WARN_ON(!list_empty(&dev->kcqs));
	cancel_work_sync(&dev->kcq_work);
}

/* A dead device: the armed kernel CQs get their events. */
void mlx5_ib_kcq_fatal(struct mlx5_ib_dev *dev)
{
	queue_work(system_highpri_wq, &dev->kcq_work);
}

/**
 * mlx5_ib_kcq_clean - remove a QP's entries from a kernel CQ
 * @cq: a CQ of the QP's
 * @qpn: the QP, which the device has destroyed or reset
 *
 * The entries after the consumer index that name @qpn go; the others
 * move up over them, keeping the owner bit of the place they move to,
 * and the consumer index advances past the room made.
 */
void mlx5_ib_kcq_clean(struct mlx5_ib_cq *cq, u32 qpn)
{
	struct mlx5_cqe64 *cqe, *dst;
	u32 ci, prod, removed = 0;
	unsigned long flags;
	u8 owner;

	spin_lock_irqsave(&cq->lock, flags);
	ci = cq->mcq.cons_index;
	for (prod = ci; prod - ci <= cq->fbc.sz_m1; prod++)
		if (!mlx5_ib_kcqe_ready(cq, prod))
			break;

	while (prod != ci) {
		prod--;
		cqe = mlx5_ib_kcqe(cq, prod);
		if ((be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff) == qpn) {
			removed++;
		} else if (removed) {
			dst = mlx5_ib_kcqe(cq, prod + removed);
			owner = dst->op_own & MLX5_CQE_OWNER_MASK;
			memcpy(dst, cqe, sizeof(*dst));
			dst->op_own = (dst->op_own & ~MLX5_CQE_OWNER_MASK) | owner;
		}
	}
	if (removed) {
		cq->mcq.cons_index += removed;
		/* The moved entries are in place before the device may reuse theirs. */
		wmb();
		mlx5_cq_set_ci(&cq->mcq);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

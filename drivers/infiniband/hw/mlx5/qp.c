// SPDX-License-Identifier: GPL-2.0-only
/*
 * QPs: creation, destruction and their asynchronous events.  State
 * changes are qp_modify.c's; kernel QPs' rings are qp_kern.c's.
 *
 * libmlx5 lays out one buffer with the RQ first and the SQ after it, and
 * a doorbell record ([0] RQ producer, [1] SQ producer); it posts WQEs and
 * rings the SQ doorbell on its UAR page itself.  The kernel gives the
 * device the buffer's pages, the record's address, the CQs, PD and UAR,
 * each checked to be the caller's.
 */
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

/* Those of libmlx5 we accept; scatter-to-CQE is an offer we decline. */
#define MLX5_IB_QP_FLAGS	(MLX5_QP_FLAG_UAR_PAGE_INDEX | \
				 MLX5_QP_FLAG_SCATTER_CQE | \
				 MLX5_QP_FLAG_ALLOW_SCATTER_CQE)

u8 mlx5_ib_qp_st(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return MLX5_QP_ST_RC;
	case IB_QPT_UC:
		return MLX5_QP_ST_UC;
	case IB_QPT_GSI:
		return MLX5_QP_ST_QP1;
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return MLX5_QP_ST_XRC;
	default:
		return MLX5_QP_ST_UD;
	}
}

/*
 * libmlx5's create_qp request, of any QP type: at least up to its bfreg
 * index, and no flag of no ABI (bad input; the type's caller says which
 * of the ABI's it offers).
 */
int mlx5_ib_qp_req_copy(struct ib_udata *udata, struct mlx5_ib_create_qp *req)
{
	int err;

	if (udata->inlen < offsetofend(struct mlx5_ib_create_qp, bfreg_index))
		return -EINVAL;
	err = ib_copy_from_udata(req, udata, min(udata->inlen, sizeof(*req)));
	if (err)
		return err;
	return req->flags & ~MLX5_IB_QP_FLAGS_ABI ? -EINVAL : 0;
}

static int mlx5_ib_qp_req(struct mlx5_ib_dev *dev, struct ib_udata *udata,
			  struct mlx5_ib_create_qp *req)
{
	struct mlx5_core_dev *mdev = dev->mdev;
	u32 max_wqes = 1 << MLX5_CAP_GEN(mdev, log_max_qp_sz);
	int err;

	err = mlx5_ib_qp_req_copy(udata, req);
	if (err)
		return err;
	if (req->flags & ~(MLX5_IB_QP_FLAGS | MLX5_QP_FLAG_BFREG_INDEX))
		return -EOPNOTSUPP;
	/*
	 * Without a UAR of its own the QP has no doorbell to be rung on; a
	 * context of dynamic UARs has no bfreg for BFREG_INDEX to name.
	 */
	if (!(req->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX))
		return -EINVAL;
	if (req->sq_buf_addr)
		return -EINVAL;

	if (req->sq_wqe_count > max_wqes || req->rq_wqe_count > max_wqes ||
	    (req->sq_wqe_count && !is_power_of_2(req->sq_wqe_count)) ||
	    (req->rq_wqe_count && !is_power_of_2(req->rq_wqe_count)))
		return -EINVAL;
	if (req->rq_wqe_count &&
	    (req->rq_wqe_shift < 4 || req->rq_wqe_shift > 31 ||
	     (1U << req->rq_wqe_shift) > MLX5_CAP_GEN(mdev, max_wqe_sz_rq)))
		return -EINVAL;
	return 0;
}

/*
 * Pin the QP's buffer and describe it to the device: the command buffer
 * *@in of *@inlen bytes, allocated here, with the page list and the
 * rings' geometry.  A QP on an SRQ has no RQ of its own.
 */
static int mlx5_ib_qp_buf(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			  struct mlx5_ib_create_qp *req, struct ib_srq *srq,
			  u32 **in, int *inlen)
{
	size_t rq_bytes = srq ? 0 : (size_t)req->rq_wqe_count << req->rq_wqe_shift;
	size_t sq_bytes = (size_t)req->sq_wqe_count << MLX5_IB_SQ_STRIDE_SHIFT;
	struct ib_umem *umem;
	unsigned long pgsz;
	u32 page_offset;
	size_t npas;
	void *qpc;

	if (!rq_bytes && !sq_bytes)
		return -EINVAL;
	umem = ib_umem_get(qp->ibqp.device, req->buf_addr, rq_bytes + sq_bytes, 0);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	qp->umem = umem;

	pgsz = mlx5_ib_buf_pgsz(umem, MLX5_IB_RING_PGSZ_BITMAP, req->buf_addr,
				&page_offset);
	if (!pgsz)
		return -EINVAL;
	npas = ib_umem_num_dma_blocks(umem, pgsz);

	*inlen = MLX5_ST_SZ_BYTES(create_qp_in) + npas * sizeof(u64);
	*in = kvzalloc(*inlen, GFP_KERNEL);
	if (!*in)
		return -ENOMEM;
	mlx5_ib_buf_fill_pas(umem, pgsz,
			     (__be64 *)MLX5_ADDR_OF(create_qp_in, *in, pas));

	qpc = MLX5_ADDR_OF(create_qp_in, *in, qpc);
	MLX5_SET(qpc, qpc, log_page_size,
		 order_base_2(pgsz) - MLX5_IB_ADAPTER_PAGE_SHIFT);
	MLX5_SET(qpc, qpc, page_offset, page_offset);
	if (srq) {
		MLX5_SET(qpc, qpc, rq_type, MLX5_SRQ_RQ);
		MLX5_SET(qpc, qpc, srqn_rmpn_xrqn, to_msrq(srq)->srqn);
	} else if (req->rq_wqe_count) {
		MLX5_SET(qpc, qpc, rq_type, MLX5_NON_ZERO_RQ);
		MLX5_SET(qpc, qpc, log_rq_size, ilog2(req->rq_wqe_count));
		MLX5_SET(qpc, qpc, log_rq_stride, req->rq_wqe_shift - 4);
	} else {
		MLX5_SET(qpc, qpc, rq_type, MLX5_ZERO_LEN_RQ);
	}
	if (req->sq_wqe_count)
		MLX5_SET(qpc, qpc, log_sq_size, ilog2(req->sq_wqe_count));
	else
		MLX5_SET(qpc, qpc, no_sq, 1);
	return 0;
}

int mlx5_ib_destroy_qp_cmd(struct mlx5_ib_dev *dev, u32 qpn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_qp_in)] = {};

	MLX5_SET(destroy_qp_in, in, opcode, MLX5_CMD_OP_DESTROY_QP);
	MLX5_SET(destroy_qp_in, in, qpn, qpn);
	return mlx5_cmd_exec_in(dev->mdev, destroy_qp, in);
}

void mlx5_ib_qp_put(struct mlx5_ib_qp *qp)
{
	if (refcount_dec_and_test(&qp->refcount))
		complete(&qp->free);
}

/* The user index a QP's CQEs carry: libmlx5's with cqe_version 1. */
int mlx5_ib_qp_uidx(struct mlx5_ib_ucontext *ctx, u32 uidx, u32 *out)
{
	if (ctx->cqe_version) {
		if (uidx > 0xffffff)
			return -EINVAL;
		*out = uidx;
	} else {
		*out = 0xffffff;
	}
	return 0;
}

/*
 * A kernel QP (its rings) or an XRC target (no queues), then published
 * as a user QP is.  A target of user space answers an empty response.
 */
static int mlx5_ib_create_kqp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			      struct ib_qp_init_attr *attr,
			      struct ib_udata *udata)
{
	struct mlx5_ib_create_qp_resp resp = {};
	int err;

	if (attr->qp_type == IB_QPT_XRC_TGT)
		err = mlx5_ib_create_xrc_tgt(dev, qp, attr);
	else
		err = mlx5_ib_create_kernel_qp(dev, qp, attr);
	if (err)
		return err;
	qp->cap = attr->cap;
	qp->state = IB_QPS_RESET;
	qp->ibqp.qp_num = attr->qp_type == IB_QPT_GSI ? 1 : qp->qpn;
	refcount_set(&qp->refcount, 1);
	init_completion(&qp->free);
	if (udata)
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
	if (!err)
		err = xa_err(xa_store_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL));
	if (err) {
		mlx5_ib_destroy_qp_cmd(dev, qp->qpn);
		if (qp->k)
			mlx5_ib_destroy_kernel_qp(dev, qp);
	}
	return err;
}

int mlx5_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		      struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibqp->device);
	u32 out[MLX5_ST_SZ_DW(create_qp_out)] = {};
	struct mlx5_ib_create_qp_resp resp = {};
	struct mlx5_ib_qp *qp = to_mqp(ibqp);
	struct mlx5_ib_create_qp req = {};
	int inlen = 0, err;
	u32 *in = NULL, uidx;
	void *qpc;

	switch (attr->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (udata)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_XRC_INI:
		/* Only libmlx5 sends from XRC initiators. */
		if (!udata || !dev->devr.valid)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_XRC_TGT:
		break;
	case IB_QPT_RAW_PACKET:
		return mlx5_ib_create_raw_qp(dev, qp, attr, udata);
	default:
		return -EOPNOTSUPP;
	}
	if (attr->rwq_ind_tbl)
		return -EOPNOTSUPP;
	/* A UD QP may keep its own multicast from coming back to it. */
	if (attr->create_flags &&
	    (attr->create_flags != IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK ||
	     attr->qp_type != IB_QPT_UD ||
	     !MLX5_CAP_GEN(dev->mdev, block_lb_mc)))
		return -EOPNOTSUPP;
	if (!udata || attr->qp_type == IB_QPT_XRC_TGT)
		return mlx5_ib_create_kqp(dev, qp, attr, udata);

	err = mlx5_ib_qp_req(dev, udata, &req);
	if (err)
		return err;
	if (!mlx5_ib_uar_owned(ctx, req.bfreg_index))
		return -EINVAL;
	err = mlx5_ib_qp_uidx(ctx, req.uidx, &uidx);
	if (err)
		return err;

	err = mlx5_ib_db_map_user(ctx, req.db_addr, &qp->db);
	if (err)
		return err;
	err = mlx5_ib_qp_buf(dev, qp, &req, attr->srq, &in, &inlen);
	if (err)
		goto err_buf;

	qpc = MLX5_ADDR_OF(create_qp_in, in, qpc);
	MLX5_SET(qpc, qpc, st, mlx5_ib_qp_st(attr->qp_type));
	MLX5_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	MLX5_SET(qpc, qpc, pd, to_mpd(ibqp->pd)->pdn);
	MLX5_SET(qpc, qpc, uar_page, req.bfreg_index);
	MLX5_SET(qpc, qpc, cqn_snd, to_mcq(attr->send_cq)->mcq.cqn);
	/* An XRC initiator receives nothing: no CQ, the driver's domain. */
	if (attr->recv_cq)
		MLX5_SET(qpc, qpc, cqn_rcv, to_mcq(attr->recv_cq)->mcq.cqn);
	if (attr->qp_type == IB_QPT_XRC_INI)
		MLX5_SET(qpc, qpc, xrcd, dev->devr.xrcdn);
	MLX5_SET(qpc, qpc, user_index, uidx);
	MLX5_SET(qpc, qpc, block_lb_mc,
		 !!(attr->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK));
	MLX5_SET64(qpc, qpc, dbr_addr, qp->db.dma);
	MLX5_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);

	err = mlx5_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	err = mlx5_ib_cmd_status(dev, err);
	if (err)
		goto err_buf;
	qp->qpn = MLX5_GET(create_qp_out, out, qpn);
	/*
	 * What query_qp answers, as stock: the receive ring libmlx5 laid
	 * out (a power of two of WQEs), and no send side (libmlx5 answers
	 * that from its own).
	 */
	qp->cap = attr->cap;
	qp->cap.max_send_wr = 0;
	qp->cap.max_send_sge = 0;
	if (!attr->srq) {
		qp->cap.max_recv_wr = req.rq_wqe_count;
		qp->cap.max_recv_sge = req.rq_wqe_count ?
			BIT(req.rq_wqe_shift) / sizeof(struct mlx5_wqe_data_seg) : 0;
	}
	qp->state = IB_QPS_RESET;
	ibqp->qp_num = qp->qpn;
	refcount_set(&qp->refcount, 1);
	init_completion(&qp->free);

	resp.bfreg_index = req.bfreg_index;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_qp;

	/* Published last: the event handler may use it from now on. */
	err = xa_err(xa_store_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL));
	if (err)
		goto err_qp;
	kvfree(in);
	return 0;

err_qp:
	mlx5_ib_destroy_qp_cmd(dev, qp->qpn);
err_buf:
	kvfree(in);
	ib_umem_release(qp->umem);
	mlx5_ib_db_unmap_user(ctx, &qp->db);
	return err;
}

int mlx5_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5_ib_qp *qp = to_mqp(ibqp);
	int err;

	if (ibqp->qp_type == IB_QPT_RAW_PACKET)
		return mlx5_ib_destroy_raw_qp(dev, qp, ctx);
	err = mlx5_ib_destroy_status(dev, mlx5_ib_destroy_qp_cmd(dev, qp->qpn));
	if (err)
		return err;

	/* No event handler finds it now; wait for those that did. */
	xa_erase_irq(&dev->qps, qp->qpn);
	mlx5_ib_qp_put(qp);
	wait_for_completion(&qp->free);

	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	if (qp->k) {
		mlx5_ib_destroy_kernel_qp(dev, qp);
		return 0;
	}
	/* An XRC target has neither buffer nor record. */
	ib_umem_release(qp->umem);
	if (qp->db.page)
		mlx5_ib_db_unmap_user(ctx, &qp->db);
	return 0;
}

/* A user QP's work is libmlx5's to post; the core never asks. */
int mlx5_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	struct mlx5_ib_qp *qp = to_mqp(ibqp);

	if (!qp->k) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	return mlx5_ib_kqp_post_send(qp, wr, bad_wr, false);
}

int mlx5_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct mlx5_ib_qp *qp = to_mqp(ibqp);

	if (!qp->k) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	return mlx5_ib_kqp_post_recv(qp, wr, bad_wr, false);
}

/* A QP event of the EQ as the verbs name it; 0 for those we do not forward. */
static enum ib_event_type mlx5_ib_qp_event_type(unsigned long type)
{
	switch (type) {
	case MLX5_EVENT_TYPE_PATH_MIG:
		return IB_EVENT_PATH_MIG;
	case MLX5_EVENT_TYPE_COMM_EST:
		return IB_EVENT_COMM_EST;
	case MLX5_EVENT_TYPE_SQ_DRAINED:
		return IB_EVENT_SQ_DRAINED;
	case MLX5_EVENT_TYPE_SRQ_LAST_WQE:
		return IB_EVENT_QP_LAST_WQE_REACHED;
	case MLX5_EVENT_TYPE_WQ_CATAS_ERROR:
		return IB_EVENT_QP_FATAL;
	case MLX5_EVENT_TYPE_PATH_MIG_FAILED:
		return IB_EVENT_PATH_MIG_ERR;
	case MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
		return IB_EVENT_QP_REQ_ERR;
	case MLX5_EVENT_TYPE_WQ_ACCESS_ERROR:
		return IB_EVENT_QP_ACCESS_ERR;
	default:
		return 0;
	}
}

/*
 * Every asynchronous EQE passes here (atomic context); those naming one
 * of our QPs become its event.
 */
static int mlx5_ib_qp_event(struct notifier_block *nb, unsigned long type,
			    void *data)
{
	struct mlx5_ib_dev *dev = mlx5_nb_cof(nb, struct mlx5_ib_dev, qp_events);
	enum ib_event_type ev_type = mlx5_ib_qp_event_type(type);
	struct mlx5_eqe *eqe = data;
	struct mlx5_ib_qp *qp;
	unsigned long flags;
	struct ib_event ev;
	u32 qpn;

	if (!ev_type || eqe->data.qp_srq.type != MLX5_EVENT_QUEUE_TYPE_QP)
		return NOTIFY_DONE;
	qpn = be32_to_cpu(eqe->data.qp_srq.qp_srq_n) & 0xffffff;

	xa_lock_irqsave(&dev->qps, flags);
	qp = xa_load(&dev->qps, qpn);
	if (qp)
		refcount_inc(&qp->refcount);
	xa_unlock_irqrestore(&dev->qps, flags);
	if (!qp)
		return NOTIFY_DONE;

	if (qp->ibqp.event_handler) {
		ev.device = &dev->ib_dev;
		ev.event = ev_type;
		ev.element.qp = &qp->ibqp;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	mlx5_ib_qp_put(qp);
	return NOTIFY_OK;
}

int mlx5_ib_qp_event_init(struct mlx5_ib_dev *dev)
{
	MLX5_NB_INIT(&dev->qp_events, mlx5_ib_qp_event, NOTIFY_ANY);
	return mlx5_eq_notifier_register(dev->mdev, &dev->qp_events);
}

void mlx5_ib_qp_event_cleanup(struct mlx5_ib_dev *dev)
{
	mlx5_eq_notifier_unregister(dev->mdev, &dev->qp_events);
}

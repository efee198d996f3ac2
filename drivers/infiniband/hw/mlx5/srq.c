// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared receive queues, as the PRM's RMP (receive memory pool, the
 * basic SRQ of ISSI 1): a linked list of receive WQEs (a 16-byte next
 * segment, then the data segments) and a doorbell record whose first
 * word is the poster's counter.  A user SRQ's list and record are in
 * libmlx5's memory; a kernel SRQ's are ours (srq_kern.c).  The QPs that
 * name the SRQ take their receives from it (qp.c).
 *
 * XRC SRQs (user space only) are CREATE_XRC_SRQ's (xrc.c).
 *
 * Not yet: resizing.
 */
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

/* A WQE: the next segment and the data segments, at least 32 bytes. */
#define MLX5_IB_SRQ_MIN_WQE		32

/*
 * The ring libmlx5 laid out for @attr: as many WQEs as max_wr + 1
 * rounded up to a power of two, each of the power of two that holds the
 * next segment and max_sge data segments.
 */
int mlx5_ib_srq_geometry(struct mlx5_ib_dev *dev, const struct ib_srq_attr *attr,
			 u32 *entries, u32 *wqe_shift)
{
	struct mlx5_core_dev *mdev = dev->mdev;
	u32 desc;

	if (attr->max_wr >= (1U << MLX5_CAP_GEN(mdev, log_max_srq_sz)) ||
	    attr->max_sge > MLX5_CAP_GEN(mdev, max_wqe_sz_rq) /
			    sizeof(struct mlx5_wqe_data_seg))
		return -EINVAL;
	desc = MLX5_IB_SRQ_NEXT_SEG + attr->max_sge * sizeof(struct mlx5_wqe_data_seg);
	desc = roundup_pow_of_two(max_t(u32, desc, MLX5_IB_SRQ_MIN_WQE));
	if (desc > MLX5_CAP_GEN(mdev, max_wqe_sz_rq))
		return -EINVAL;
	*entries = roundup_pow_of_two(attr->max_wr + 1);
	*wqe_shift = ilog2(desc);
	return 0;
}

/*
 * CREATE_RMP over the SRQ's list: user memory (@srq->umem, from @va) or
 * the kernel's pages (@srq->buf).
 */
int mlx5_ib_create_rmp(struct mlx5_ib_dev *dev, struct mlx5_ib_srq *srq,
		       u32 pdn, u32 entries, u32 wqe_shift, u32 limit, u64 va,
		       dma_addr_t dbr)
{
	u32 out[MLX5_ST_SZ_DW(create_rmp_out)] = {};
	u32 page_offset = 0;
	unsigned long pgsz;
	size_t npas;
	void *rmpc, *wq;
	int inlen, err;
	u32 *in;

	if (srq->umem) {
		pgsz = mlx5_ib_buf_pgsz(srq->umem, MLX5_IB_RING_PGSZ_BITMAP, va,
					&page_offset);
		/* The wq's page_offset has five bits. */
		if (!pgsz || page_offset >= BIT(5))
			return -EINVAL;
		npas = ib_umem_num_dma_blocks(srq->umem, pgsz);
	} else {
		pgsz = BIT(srq->buf.page_shift);
		npas = srq->buf.npages;
	}
	inlen = MLX5_ST_SZ_BYTES(create_rmp_in) + npas * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;

	rmpc = MLX5_ADDR_OF(create_rmp_in, in, ctx);
	wq = MLX5_ADDR_OF(rmpc, rmpc, wq);
	MLX5_SET(rmpc, rmpc, state, MLX5_RMPC_STATE_RDY);
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_LINKED_LIST);
	MLX5_SET(wq, wq, pd, pdn);
	MLX5_SET(wq, wq, lwm, limit);
	MLX5_SET(wq, wq, log_wq_stride, wqe_shift);
	MLX5_SET(wq, wq, log_wq_sz, ilog2(entries));
	MLX5_SET(wq, wq, log_wq_pg_sz, order_base_2(pgsz) - MLX5_IB_ADAPTER_PAGE_SHIFT);
	MLX5_SET(wq, wq, page_offset, page_offset);
	MLX5_SET64(wq, wq, dbr_addr, dbr);
	if (srq->umem)
		mlx5_ib_buf_fill_pas(srq->umem, pgsz,
				     (__be64 *)MLX5_ADDR_OF(wq, wq, pas));
	else
		mlx5_fill_page_frag_array(&srq->buf,
					  (__be64 *)MLX5_ADDR_OF(wq, wq, pas));
	MLX5_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);

	err = mlx5_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	srq->srqn = MLX5_GET(create_rmp_out, out, rmpn);
	return 0;
}

int mlx5_ib_destroy_rmp(struct mlx5_ib_dev *dev, u32 rmpn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_rmp_in)] = {};

	MLX5_SET(destroy_rmp_in, in, opcode, MLX5_CMD_OP_DESTROY_RMP);
	MLX5_SET(destroy_rmp_in, in, rmpn, rmpn);
	return mlx5_cmd_exec_in(dev->mdev, destroy_rmp, in);
}

static int mlx5_ib_destroy_srq_cmd(struct mlx5_ib_dev *dev,
				   struct mlx5_ib_srq *srq)
{
	if (srq->xrc)
		return mlx5_ib_destroy_xrc_srq(dev, srq->srqn);
	return mlx5_ib_destroy_rmp(dev, srq->srqn);
}

/*
 * A new SRQ of @entries WQEs of 2^@wqe_shift bytes: what it holds, which
 * creation reports back in @attr.
 */
void mlx5_ib_srq_created(struct mlx5_ib_srq *srq, struct ib_srq_attr *attr,
			 u32 entries, u32 wqe_shift)
{
	srq->max_wr = entries - 1;
	srq->max_sge = ((1U << wqe_shift) - MLX5_IB_SRQ_NEXT_SEG) /
		       sizeof(struct mlx5_wqe_data_seg);
	srq->limit = attr->srq_limit;
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
}

int mlx5_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		       struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibsrq->device);
	struct mlx5_ib_srq *srq = to_msrq(ibsrq);
	struct mlx5_ib_create_srq_resp resp = {};
	struct mlx5_ib_create_srq req = {};
	u32 entries, wqe_shift;
	int err;

	if (attr->srq_type != IB_SRQT_BASIC &&
	    !(attr->srq_type == IB_SRQT_XRC && udata && dev->devr.valid))
		return -EOPNOTSUPP;
	err = mlx5_ib_srq_geometry(dev, &attr->attr, &entries, &wqe_shift);
	if (err)
		return err;
	if (attr->attr.srq_limit >= entries)
		return -EINVAL;
	mutex_init(&srq->lock);
	if (!udata)
		return mlx5_ib_create_kernel_srq(dev, srq, attr, entries, wqe_shift);

	if (udata->inlen < offsetofend(struct mlx5_ib_create_srq, flags))
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (err)
		return err;
	/* WQE signatures are not offered; the reserved words stay zero. */
	if (req.flags || req.reserved0 || req.reserved1)
		return -EINVAL;

	srq->umem = ib_umem_get(ibsrq->device, req.buf_addr,
				(size_t)entries << wqe_shift, 0);
	if (IS_ERR(srq->umem))
		return PTR_ERR(srq->umem);
	err = mlx5_ib_db_map_user(ctx, req.db_addr, &srq->db);
	if (err)
		goto err_umem;
	if (attr->srq_type == IB_SRQT_XRC) {
		srq->xrc = true;
		err = mlx5_ib_create_xrc_srq(dev, srq, attr, entries, wqe_shift,
					     ctx->cqe_version ? req.uidx : 0xffffff,
					     req.buf_addr);
	} else {
		err = mlx5_ib_create_rmp(dev, srq, to_mpd(ibsrq->pd)->pdn,
					 entries, wqe_shift, attr->attr.srq_limit,
					 req.buf_addr, srq->db.dma);
	}
	if (err)
		goto err_db;

	mlx5_ib_srq_created(srq, &attr->attr, entries, wqe_shift);

	resp.srqn = srq->srqn;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_rmp;
	return 0;

err_rmp:
	mlx5_ib_destroy_srq_cmd(dev, srq);
err_db:
	mlx5_ib_db_unmap_user(ctx, &srq->db);
err_umem:
	ib_umem_release(srq->umem);
	return err;
}

int mlx5_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibsrq->device);
	struct mlx5_ib_srq *srq = to_msrq(ibsrq);
	int err;

	err = mlx5_ib_destroy_status(dev, mlx5_ib_destroy_srq_cmd(dev, srq));
	if (err)
		return err;
	if (srq->kernel) {
		mlx5_ib_destroy_kernel_srq(dev, srq);
		return 0;
	}
	mlx5_ib_db_unmap_user(ctx, &srq->db);
	ib_umem_release(srq->umem);
	return 0;
}

/* Only the limit moves: MODIFY_RMP of the wq's lwm, ARM_XRC_SRQ's. */
int mlx5_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibsrq->device);
	struct mlx5_ib_srq *srq = to_msrq(ibsrq);
	u32 in[MLX5_ST_SZ_DW(modify_rmp_in)] = {};
	void *wq = MLX5_ADDR_OF(rmpc, MLX5_ADDR_OF(modify_rmp_in, in, ctx), wq);
	int err;

	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->max_wr)
		return -EINVAL;

	MLX5_SET(modify_rmp_in, in, opcode, MLX5_CMD_OP_MODIFY_RMP);
	MLX5_SET(modify_rmp_in, in, rmp_state, MLX5_RMPC_STATE_RDY);
	MLX5_SET(modify_rmp_in, in, rmpn, srq->srqn);
	MLX5_SET(modify_rmp_in, in, bitmask.lwm, 1);
	MLX5_SET(rmpc, MLX5_ADDR_OF(modify_rmp_in, in, ctx), state,
		 MLX5_RMPC_STATE_RDY);
	MLX5_SET(wq, wq, lwm, attr->srq_limit);
	mutex_lock(&srq->lock);
	if (srq->xrc)
		err = mlx5_ib_arm_xrc_srq(dev, srq->srqn, attr->srq_limit);
	else
		err = mlx5_cmd_exec_in(dev->mdev, modify_rmp, in);
	if (!err)
		srq->limit = attr->srq_limit;
	mutex_unlock(&srq->lock);
	return mlx5_ib_cmd_status(dev, err);
}

int mlx5_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mlx5_ib_srq *srq = to_msrq(ibsrq);

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	mutex_lock(&srq->lock);
	attr->srq_limit = srq->limit;
	mutex_unlock(&srq->lock);
	return 0;
}

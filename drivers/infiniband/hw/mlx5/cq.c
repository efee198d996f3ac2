// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completion queues: their creation, destruction, moderation and
 * events.  A user CQ's ring and doorbell record are libmlx5's memory;
 * a kernel CQ's are ours, and cq_kern.c polls and arms it.  The device
 * writes CQEs to the ring and signals the CQ's EQ when armed, and
 * mlx5_core's EQ handler calls mlx5_ib_cq_comp(), for a kernel CQ in
 * interrupt context, for a user CQ from the EQ's tasklet: it becomes
 * the verbs' completion event.
 */
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

/* cqc.cqe_sz */
enum {
	MLX5_IB_CQE_SZ_64 = 0,
	MLX5_IB_CQE_SZ_128 = 1,
};

void mlx5_ib_cq_comp(struct mlx5_core_cq *mcq, struct mlx5_eqe *eqe)
{
	struct ib_cq *ibcq = &to_mibcq(mcq)->ibcq;

	/*
	 * The device disarmed the CQ; mlx5_core already advanced arm_sn,
	 * which the next arm doorbell of a kernel CQ carries.
	 */
	clear_bit(0, &to_mibcq(mcq)->armed);
	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

void mlx5_ib_cq_event(struct mlx5_core_cq *mcq, enum mlx5_event type)
{
	struct ib_cq *ibcq = &to_mibcq(mcq)->ibcq;
	struct ib_event ev = {
		.device = ibcq->device,
		.event = IB_EVENT_CQ_ERR,
		.element.cq = ibcq,
	};

	if (type != MLX5_EVENT_TYPE_CQ_ERROR)
		return;
	if (ibcq->event_handler)
		ibcq->event_handler(&ev, ibcq->cq_context);
}

/* The flags include/uapi/rdma/mlx5-abi.h defines for CREATE_CQ. */
#define MLX5_IB_CQ_FLAGS_ABI	(MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD | \
				 MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX | \
				 MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS)

static int mlx5_ib_cq_req(struct ib_udata *udata, struct mlx5_ib_create_cq *req)
{
	size_t need = offsetofend(struct mlx5_ib_create_cq, cqe_comp_res_format);
	int err;

	if (udata->inlen < need)
		return -EINVAL;
	err = ib_copy_from_udata(req, udata, min(udata->inlen, sizeof(*req)));
	if (err)
		return err;
	if (req->reserved0 || req->reserved1)
		return -EINVAL;
	/* A flag of no ABI is bad input; one of the ABI's not offered. */
	if (req->flags & ~MLX5_IB_CQ_FLAGS_ABI)
		return -EINVAL;
	if (req->flags & ~MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX)
		return -EOPNOTSUPP;
	if (req->cqe_comp_en)
		return -EOPNOTSUPP;
	if (req->cqe_size != 64 && req->cqe_size != 128)
		return -EINVAL;
	/* Without a UAR of its own the CQ has nowhere to be armed. */
	if (!(req->flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return -EINVAL;
	return 0;
}

/* CREATE_CQ for a user ring of @entries CQEs. */
static int mlx5_ib_create_user_cq(struct mlx5_ib_dev *dev, struct mlx5_ib_cq *cq,
				  struct mlx5_ib_create_cq *req,
				  unsigned int entries, int eqn)
{
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	unsigned long pgsz;
	u32 page_offset;
	size_t npas;
	void *cqc;
	int inlen;
	u32 *in;
	int err;

	pgsz = mlx5_ib_buf_pgsz(cq->umem, MLX5_IB_RING_PGSZ_BITMAP, req->buf_addr,
				&page_offset);
	if (!pgsz)
		return -EINVAL;
	npas = ib_umem_num_dma_blocks(cq->umem, pgsz);

	inlen = MLX5_ST_SZ_BYTES(create_cq_in) + npas * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	mlx5_ib_buf_fill_pas(cq->umem, pgsz,
			     (__be64 *)MLX5_ADDR_OF(create_cq_in, in, pas));

	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, req->cqe_size == 128 ? MLX5_IB_CQE_SZ_128 :
						     MLX5_IB_CQE_SZ_64);
	MLX5_SET(cqc, cqc, log_cq_size, ilog2(entries));
	MLX5_SET(cqc, cqc, uar_page, req->uar_page_index);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	MLX5_SET(cqc, cqc, log_page_size,
		 order_base_2(pgsz) - MLX5_IB_ADAPTER_PAGE_SHIFT);
	MLX5_SET(cqc, cqc, page_offset, page_offset);
	MLX5_SET64(cqc, cqc, dbr_addr, cq->db.dma);

	/*
	 * A user CQ's event is only uverbs waking its reader: mlx5_core's
	 * tasklet of the EQ calls it, after the interrupt's whole batch of
	 * EQEs, rather than the interrupt handler for each.  Measured on
	 * the model (rc_pingpong -e): the wakeups from the hard interrupt
	 * cost 8-18% of a round trip.
	 */
	cq->mcq.comp = mlx5_add_cq_to_tasklet;
	cq->mcq.tasklet_ctx.comp = mlx5_ib_cq_comp;
	cq->mcq.event = mlx5_ib_cq_event;
	err = mlx5_core_create_cq(dev->mdev, &cq->mcq, in, inlen, out,
				  sizeof(out));
	kvfree(in);
	return mlx5_ib_cmd_status(dev, err);
}

int mlx5_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx5_core_dev *mdev = dev->mdev;
	struct mlx5_ib_create_cq_resp resp = {};
	struct mlx5_ib_cq *cq = to_mcq(ibcq);
	struct mlx5_ib_create_cq req = {};
	unsigned int entries;
	int eqn, err;

	/* Every CQE carries the free-running clock: timestamps are free. */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	/* Room for @cqe and one more: a CQ of 0 is one of a single CQE. */
	if (attr->cqe >= (1 << MLX5_CAP_GEN(mdev, log_max_cq_sz)))
		return -EINVAL;
	entries = roundup_pow_of_two(attr->cqe + 1);

	if (!udata) {
		err = mlx5_vector2eqn(mdev, attr->comp_vector, &eqn);
		if (err)
			return -EINVAL;
		err = mlx5_ib_create_kernel_cq(dev, cq, entries, eqn);
		if (err)
			return err;
		ibcq->cqe = entries - 1;
		return 0;
	}

	err = mlx5_ib_cq_req(udata, &req);
	if (err)
		return err;
	mutex_init(&cq->resize_lock);
	if (!mlx5_ib_uar_owned(ctx, req.uar_page_index))
		return -EINVAL;
	err = mlx5_vector2eqn(mdev, attr->comp_vector, &eqn);
	if (err)
		return -EINVAL;

	cq->umem = ib_umem_get(ibcq->device, req.buf_addr,
			       (size_t)entries * req.cqe_size,
			       IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(cq->umem))
		return PTR_ERR(cq->umem);
	err = mlx5_ib_db_map_user(ctx, req.db_addr, &cq->db);
	if (err)
		goto err_umem;

	err = mlx5_ib_create_user_cq(dev, cq, &req, entries, eqn);
	if (err)
		goto err_db;

	ibcq->cqe = entries - 1;
	resp.cqn = cq->mcq.cqn;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_cq;
	return 0;

err_cq:
	mlx5_core_destroy_cq(mdev, &cq->mcq);
err_db:
	mlx5_ib_db_unmap_user(ctx, &cq->db);
err_umem:
	ib_umem_release(cq->umem);
	return err;
}

/*
 * DESTROY_CQ, then mlx5_core waits out its EQ handlers' references: no
 * completion callback runs after this returns.
 */
int mlx5_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx5_ib_cq *cq = to_mcq(ibcq);
	int err;

	err = mlx5_core_destroy_cq(dev->mdev, &cq->mcq);
	err = mlx5_ib_destroy_status(dev, err);
	if (err)
		return err;
	if (cq->kernel) {
		mlx5_ib_destroy_kernel_cq(dev, cq);
		return 0;
	}
	mlx5_ib_db_unmap_user(ctx, &cq->db);
	ib_umem_release(cq->umem);
	return 0;
}

/*
 * Completion moderation: the device waits for @cq_count CQEs or
 * @cq_period microseconds before it signals the EQ (MODIFY_CQ).
 */
int mlx5_ib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period)
{
	struct mlx5_ib_dev *dev = to_mdev(ibcq->device);
	int err;

	if (!MLX5_CAP_GEN(dev->mdev, cq_moderation))
		return -EOPNOTSUPP;
	if (cq_period > MLX5_MAX_CQ_PERIOD)
		return -EINVAL;
	err = mlx5_core_modify_cq_moderation(dev->mdev, &to_mcq(ibcq)->mcq,
					     cq_period, cq_count);
	return mlx5_ib_cmd_status(dev, err);
}

/*
 * ibv_resize_cq() of a user CQ: libmlx5's new ring replaces the old with
 * MODIFY_CQ (op_mod RESIZE: size, page size and offset, the new pages).
 * The device ends the old ring with a resize CQE, after which libmlx5
 * copies what is left over and polls the new one.  Resizes of one CQ
 * are serialised by @resize_lock; the old ring is unpinned once the
 * device has moved.  Kernel CQs keep their size.
 */
int mlx5_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx5_core_dev *mdev = dev->mdev;
	struct mlx5_ib_cq *cq = to_mcq(ibcq);
	struct mlx5_ib_resize_cq req = {};
	unsigned long pgsz;
	unsigned int entries;
	struct ib_umem *umem;
	u32 page_offset;
	void *cqc;
	int inlen, err;
	u32 *in;

	if (!udata || cq->kernel || !MLX5_CAP_GEN(mdev, cq_resize))
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe >= (1 << MLX5_CAP_GEN(mdev, log_max_cq_sz)))
		return -EINVAL;
	if (udata->inlen < sizeof(req))
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, sizeof(req));
	if (err)
		return err;
	if (req.reserved0 || req.reserved1 ||
	    (req.cqe_size != 64 && req.cqe_size != 128))
		return -EINVAL;
	entries = roundup_pow_of_two(cqe + 1);

	mutex_lock(&cq->resize_lock);
	umem = ib_umem_get(ibcq->device, req.buf_addr,
			   (size_t)entries * req.cqe_size, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto out;
	}
	pgsz = mlx5_ib_buf_pgsz(umem, MLX5_IB_RING_PGSZ_BITMAP, req.buf_addr,
				&page_offset);
	if (!pgsz) {
		err = -EINVAL;
		goto err_umem;
	}
	inlen = MLX5_ST_SZ_BYTES(modify_cq_in) +
		ib_umem_num_dma_blocks(umem, pgsz) * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_umem;
	}
	mlx5_ib_buf_fill_pas(umem, pgsz,
			     (__be64 *)MLX5_ADDR_OF(modify_cq_in, in, pas));
	MLX5_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	MLX5_SET(modify_cq_in, in, op_mod, MLX5_CQ_OPMOD_RESIZE);
	MLX5_SET(modify_cq_in, in, cqn, cq->mcq.cqn);
	MLX5_SET(modify_cq_in, in,
		 modify_field_select_resize_field_select.resize_field_select.resize_field_select,
		 MLX5_MODIFY_CQ_MASK_LOG_SIZE | MLX5_MODIFY_CQ_MASK_PG_OFFSET |
		 MLX5_MODIFY_CQ_MASK_PG_SIZE);
	cqc = MLX5_ADDR_OF(modify_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, req.cqe_size == 128 ? MLX5_IB_CQE_SZ_128 :
						    MLX5_IB_CQE_SZ_64);
	MLX5_SET(cqc, cqc, log_cq_size, ilog2(entries));
	MLX5_SET(cqc, cqc, log_page_size,
		 order_base_2(pgsz) - MLX5_IB_ADAPTER_PAGE_SHIFT);
	MLX5_SET(cqc, cqc, page_offset, page_offset);
	err = mlx5_core_modify_cq(mdev, &cq->mcq, in, inlen);
	err = mlx5_ib_cmd_status(dev, err);
	kvfree(in);
	if (err)
		goto err_umem;

	ib_umem_release(cq->umem);
	cq->umem = umem;
	ibcq->cqe = entries - 1;
	goto out;

err_umem:
	ib_umem_release(umem);
out:
	mutex_unlock(&cq->resize_lock);
	return err;
}

/* User CQs are libmlx5's to poll and arm; the core never asks for them. */
int mlx5_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mlx5_ib_cq *cq = to_mcq(ibcq);

	if (!cq->kernel)
		return -EOPNOTSUPP;
	return mlx5_ib_kcq_poll(cq, num_entries, wc);
}

int mlx5_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mlx5_ib_cq *cq = to_mcq(ibcq);

	if (!cq->kernel)
		return -EOPNOTSUPP;
	return mlx5_ib_kcq_arm(cq, flags);
}

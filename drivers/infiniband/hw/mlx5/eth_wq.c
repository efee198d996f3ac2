// SPDX-License-Identifier: GPL-2.0-only
/*
 * Work queues of the Ethernet side in user memory: the RQ and SQ objects
 * of the device (CREATE_RQ, CREATE_SQ) over rings and a doorbell record
 * that libmlx5 allocated, for raw packet QPs (qp_raw.c) and the verbs'
 * WQs (wq.c).  Unlike a QP's, their WQEs are the NIC's: an SQ sends
 * Ethernet frames through its TIS, an RQ receives what steering hands a
 * TIR that names it.
 *
 * The device reads an RQ's producer counter at the record's address and
 * an SQ's four bytes after it ([0] receive, [1] send, as a QP's).
 */
#include <linux/mlx5/transobj.h>
#include <linux/mlx5/vport.h>

#include "mlx5_ib.h"

/* WQ page_offset has five bits: a ring starts in the first half of its block. */
#define MLX5_IB_WQ_MAX_PAGE_OFFSET	31

/*
 * Pin a ring of @attr's geometry and describe it in @wqc; the command of
 * @hdr bytes up to @wqc's page list is allocated here, in *@in.
 */
static int mlx5_ib_eth_wq_ring(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			       const struct mlx5_ib_eth_wq_attr *attr,
			       size_t hdr, size_t wq_off, u32 **in, int *inlen)
{
	size_t bytes = (size_t)attr->wqe_count << attr->wqe_shift;
	struct ib_umem *umem;
	unsigned long pgsz;
	u32 page_offset;
	void *wqc;
	size_t npas;

	umem = ib_umem_get(&dev->ib_dev, attr->buf_addr, bytes, 0);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	wq->umem = umem;

	pgsz = mlx5_ib_buf_pgsz(umem, MLX5_IB_RING_PGSZ_BITMAP, attr->buf_addr,
				&page_offset);
	if (!pgsz || page_offset > MLX5_IB_WQ_MAX_PAGE_OFFSET)
		return -EINVAL;
	npas = ib_umem_num_dma_blocks(umem, pgsz);

	*inlen = hdr + npas * sizeof(u64);
	*in = kvzalloc(*inlen, GFP_KERNEL);
	if (!*in)
		return -ENOMEM;
	wqc = (u8 *)*in + wq_off;
	mlx5_ib_buf_fill_pas(umem, pgsz, (__be64 *)MLX5_ADDR_OF(wq, wqc, pas));
	MLX5_SET(wq, wqc, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wqc, pd, attr->pdn);
	MLX5_SET(wq, wqc, page_offset, page_offset);
	MLX5_SET(wq, wqc, log_wq_pg_sz,
		 order_base_2(pgsz) - MLX5_IB_ADAPTER_PAGE_SHIFT);
	MLX5_SET(wq, wqc, log_wq_stride, attr->wqe_shift);
	MLX5_SET(wq, wqc, log_wq_sz, ilog2(attr->wqe_count));
	MLX5_SET64(wq, wqc, dbr_addr, attr->dbr);
	return 0;
}

/* The geometry a WQ of @attr may have on this device. */
static int mlx5_ib_eth_wq_check(struct mlx5_ib_dev *dev,
				const struct mlx5_ib_eth_wq_attr *attr)
{
	if (!attr->wqe_count || !is_power_of_2(attr->wqe_count) ||
	    ilog2(attr->wqe_count) > MLX5_CAP_GEN(dev->mdev, log_max_wq_sz))
		return -EINVAL;
	if (attr->buf_addr & (SZ_64 - 1))
		return -EINVAL;
	return 0;
}

/*
 * Run the CREATE_RQ or CREATE_SQ command @in of @inlen bytes (unless
 * @err, how its making failed), which is freed here; the new queue is in
 * reset, or on failure its ring unpinned.
 */
static int mlx5_ib_eth_wq_create(struct mlx5_ib_dev *dev,
				 struct mlx5_ib_eth_wq *wq, u32 *in, int inlen,
				 int err)
{
	u32 out[MLX5_ST_SZ_DW(create_sq_out)] = {};

	/* The two outputs are alike: the number at the same place. */
	BUILD_BUG_ON(MLX5_ST_SZ_BYTES(create_sq_out) !=
		     MLX5_ST_SZ_BYTES(create_rq_out));
	BUILD_BUG_ON(MLX5_BYTE_OFF(create_sq_out, sqn) !=
		     MLX5_BYTE_OFF(create_rq_out, rqn));
	if (!err) {
		err = mlx5_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
		err = mlx5_ib_cmd_status(dev, err);
	}
	kvfree(in);
	if (err) {
		ib_umem_release(wq->umem);
		wq->umem = NULL;
		return err;
	}
	wq->num = MLX5_GET(create_sq_out, out, sqn);
	wq->state = MLX5_SQC_STATE_RST;
	return 0;
}

/**
 * mlx5_ib_create_eth_rq - an RQ over a user ring, in reset
 * @dev: the device
 * @wq: where its ring and number go
 * @attr: the ring (stride 2^wqe_shift, 16..max_wqe_sz_rq), its record, CQ,
 *	  PD and user index
 *
 * Return: 0 or a negative errno; on failure nothing is held.
 */
int mlx5_ib_create_eth_rq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			  const struct mlx5_ib_eth_wq_attr *attr)
{
	int inlen = 0, err;
	void *rqc;
	u32 *in = NULL;

	err = mlx5_ib_eth_wq_check(dev, attr);
	if (err)
		return err;
	if (attr->wqe_shift < 4 ||
	    BIT(attr->wqe_shift) > MLX5_CAP_GEN(dev->mdev, max_wqe_sz_rq))
		return -EINVAL;
	err = mlx5_ib_eth_wq_ring(dev, wq, attr, MLX5_ST_SZ_BYTES(create_rq_in),
				  MLX5_BYTE_OFF(create_rq_in, ctx.wq), &in, &inlen);
	if (err)
		goto out;

	rqc = MLX5_ADDR_OF(create_rq_in, in, ctx);
	MLX5_SET(rqc, rqc, state, MLX5_RQC_STATE_RST);
	MLX5_SET(rqc, rqc, user_index, attr->uidx);
	MLX5_SET(rqc, rqc, cqn, attr->cqn);
	MLX5_SET(rqc, rqc, flush_in_error_en, 1);
	/* VLAN tags stay in the frame unless stripping was asked for. */
	MLX5_SET(rqc, rqc, vsd, !attr->cvlan_strip);
	MLX5_SET(rqc, rqc, scatter_fcs, attr->scatter_fcs);
	MLX5_SET(rqc, rqc, counter_set_id, dev->q_counter);
	MLX5_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
out:
	return mlx5_ib_eth_wq_create(dev, wq, in, inlen, err);
}

/**
 * mlx5_ib_create_eth_sq - an SQ over a user ring, in reset
 * @dev: the device
 * @wq: where its ring and number go
 * @attr: the ring (64-byte basic blocks), its record, CQ, PD, user
 *	  index, the UAR page it is rung on and the TIS it sends through
 *
 * Return: 0 or a negative errno; on failure nothing is held.
 */
int mlx5_ib_create_eth_sq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			  const struct mlx5_ib_eth_wq_attr *attr)
{
	int inlen = 0, err;
	u8 inline_mode = 0;
	void *sqc, *wqc;
	u32 *in = NULL;

	err = mlx5_ib_eth_wq_check(dev, attr);
	if (err)
		return err;
	err = mlx5_ib_eth_wq_ring(dev, wq, attr, MLX5_ST_SZ_BYTES(create_sq_in),
				  MLX5_BYTE_OFF(create_sq_in, ctx.wq), &in, &inlen);
	if (err)
		goto out;

	/* What the device needs inline of each frame (libmlx5 knows it too). */
	mlx5_query_min_inline(dev->mdev, &inline_mode);
	sqc = MLX5_ADDR_OF(create_sq_in, in, ctx);
	MLX5_SET(sqc, sqc, state, MLX5_SQC_STATE_RST);
	MLX5_SET(sqc, sqc, flush_in_error_en, 1);
	MLX5_SET(sqc, sqc, min_wqe_inline_mode, inline_mode);
	MLX5_SET(sqc, sqc, user_index, attr->uidx);
	MLX5_SET(sqc, sqc, cqn, attr->cqn);
	MLX5_SET(sqc, sqc, tis_lst_sz, 1);
	MLX5_SET(sqc, sqc, tis_num_0, attr->tisn);
	wqc = MLX5_ADDR_OF(sqc, sqc, wq);
	MLX5_SET(wq, wqc, uar_page, attr->uar_page);
	MLX5_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
out:
	return mlx5_ib_eth_wq_create(dev, wq, in, inlen, err);
}

/*
 * Move an RQ or SQ to @state (MLX5_RQC_STATE_* and MLX5_SQC_STATE_* are
 * the same numbers).  A queue still in reset stays there on the way to
 * error: the device has no such transition, and a reset queue does
 * nothing either way.  The caller serialises changes of one queue.
 */
int mlx5_ib_modify_eth_wq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			  bool sq, u8 state)
{
	u32 in[MLX5_ST_SZ_DW(modify_sq_in)] = {};
	int err;

	BUILD_BUG_ON(MLX5_ST_SZ_BYTES(modify_sq_in) <
		     MLX5_ST_SZ_BYTES(modify_rq_in));
	if (wq->state == state ||
	    (wq->state == MLX5_RQC_STATE_RST && state == MLX5_RQC_STATE_ERR))
		return 0;
	if (sq) {
		MLX5_SET(modify_sq_in, in, opcode, MLX5_CMD_OP_MODIFY_SQ);
		MLX5_SET(modify_sq_in, in, sq_state, wq->state);
		MLX5_SET(modify_sq_in, in, sqn, wq->num);
		MLX5_SET(sqc, MLX5_ADDR_OF(modify_sq_in, in, ctx), state, state);
	} else {
		MLX5_SET(modify_rq_in, in, opcode, MLX5_CMD_OP_MODIFY_RQ);
		MLX5_SET(modify_rq_in, in, rq_state, wq->state);
		MLX5_SET(modify_rq_in, in, rqn, wq->num);
		MLX5_SET(rqc, MLX5_ADDR_OF(modify_rq_in, in, ctx), state, state);
	}
	err = mlx5_cmd_exec_in(dev->mdev, modify_sq, in);
	err = mlx5_ib_cmd_status(dev, err);
	if (!err)
		wq->state = state;
	return err;
}

/* The queue's state as the device has it (it may have moved it to ERR). */
int mlx5_ib_query_eth_wq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			 bool sq, u8 *state)
{
	u32 *out;
	int err;

	if (sq)
		return mlx5_ib_cmd_status(dev,
				mlx5_core_query_sq_state(dev->mdev, wq->num, state));
	out = kvzalloc(MLX5_ST_SZ_BYTES(query_rq_out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = mlx5_core_query_rq(dev->mdev, wq->num, out);
	if (!err)
		*state = MLX5_GET(rqc, MLX5_ADDR_OF(query_rq_out, out, rq_context),
				  state);
	kvfree(out);
	return mlx5_ib_cmd_status(dev, err);
}

/* Destroy the queue and unpin its ring; a dead device's is gone anyway. */
int mlx5_ib_destroy_eth_wq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			   bool sq)
{
	u32 in[MLX5_ST_SZ_DW(destroy_sq_in)] = {};
	int err;

	BUILD_BUG_ON(MLX5_ST_SZ_BYTES(destroy_sq_in) !=
		     MLX5_ST_SZ_BYTES(destroy_rq_in));
	if (sq) {
		MLX5_SET(destroy_sq_in, in, opcode, MLX5_CMD_OP_DESTROY_SQ);
		MLX5_SET(destroy_sq_in, in, sqn, wq->num);
	} else {
		MLX5_SET(destroy_rq_in, in, opcode, MLX5_CMD_OP_DESTROY_RQ);
		MLX5_SET(destroy_rq_in, in, rqn, wq->num);
	}
	err = mlx5_ib_destroy_status(dev,
				     mlx5_cmd_exec_in(dev->mdev, destroy_sq, in));
	if (err)
		return err;
	ib_umem_release(wq->umem);
	wq->umem = NULL;
	wq->num = 0;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * XRC: domains (ALLOC_XRCD), XRC SRQs of user space (CREATE_XRC_SRQ:
 * libmlx5's linked list of WQEs in a domain, completing to their own CQ
 * with their own user index), and the device resources XRC QPs need.
 *
 * An XRC initiator (XRC_INI: an SQ, no RQ) sends to a target QP and
 * names the target's SRQ in each WQE; the PRM still wants it in a domain,
 * so it gets the driver's own.  An XRC target (XRC_TGT: no queues) takes
 * the requests into the XRC SRQ they name, which must be of its domain;
 * the PRM wants it under a PD, so it gets the driver's own.  Both are
 * made at probe and go at removal (mlx5_ib_devr_init()).
 */
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

static int mlx5_ib_xrcd_cmd_alloc(struct mlx5_ib_dev *dev, u32 *xrcdn)
{
	u32 out[MLX5_ST_SZ_DW(alloc_xrcd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_xrcd_in)] = {};
	int err;

	MLX5_SET(alloc_xrcd_in, in, opcode, MLX5_CMD_OP_ALLOC_XRCD);
	err = mlx5_cmd_exec_inout(dev->mdev, alloc_xrcd, in, out);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	*xrcdn = MLX5_GET(alloc_xrcd_out, out, xrcd);
	return 0;
}

static int mlx5_ib_xrcd_cmd_dealloc(struct mlx5_ib_dev *dev, u32 xrcdn)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_xrcd_in)] = {};

	MLX5_SET(dealloc_xrcd_in, in, opcode, MLX5_CMD_OP_DEALLOC_XRCD);
	MLX5_SET(dealloc_xrcd_in, in, xrcd, xrcdn);
	return mlx5_ib_destroy_status(dev, mlx5_cmd_exec_in(dev->mdev, dealloc_xrcd, in));
}

int mlx5_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibxrcd->device);

	if (!MLX5_CAP_GEN(dev->mdev, xrc))
		return -EOPNOTSUPP;
	return mlx5_ib_xrcd_cmd_alloc(dev, &to_mxrcd(ibxrcd)->xrcdn);
}

int mlx5_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	return mlx5_ib_xrcd_cmd_dealloc(to_mdev(ibxrcd->device),
					to_mxrcd(ibxrcd)->xrcdn);
}

/* The domain and PD of XRC QPs that have none of their own. */
int mlx5_ib_devr_init(struct mlx5_ib_dev *dev)
{
	int err;

	if (!MLX5_CAP_GEN(dev->mdev, xrc))
		return 0;
	err = mlx5_core_alloc_pd(dev->mdev, &dev->devr.pdn);
	if (err)
		return err;
	err = mlx5_ib_xrcd_cmd_alloc(dev, &dev->devr.xrcdn);
	if (err) {
		mlx5_core_dealloc_pd(dev->mdev, dev->devr.pdn);
		return err;
	}
	dev->devr.valid = true;
	return 0;
}

void mlx5_ib_devr_cleanup(struct mlx5_ib_dev *dev)
{
	if (!dev->devr.valid)
		return;
	mlx5_ib_xrcd_cmd_dealloc(dev, dev->devr.xrcdn);
	mlx5_core_dealloc_pd(dev->mdev, dev->devr.pdn);
}

/**
 * mlx5_ib_create_xrc_srq - CREATE_XRC_SRQ over a user SRQ's list
 * @dev: the device
 * @srq: the SRQ, its list pinned (@srq->umem) and record mapped
 * @attr: the creator's attributes: the domain and CQ
 * @entries: WQEs in the list
 * @wqe_shift: log2 of a WQE's size
 * @uidx: the user index its CQEs carry
 * @va: the list's user address
 *
 * Return: 0 with @srq->srqn set, or an errno.
 */
int mlx5_ib_create_xrc_srq(struct mlx5_ib_dev *dev, struct mlx5_ib_srq *srq,
			   struct ib_srq_init_attr *attr, u32 entries,
			   u32 wqe_shift, u32 uidx, u64 va)
{
	u32 out[MLX5_ST_SZ_DW(create_xrc_srq_out)] = {};
	unsigned long pgsz;
	u32 page_offset;
	size_t npas;
	void *xsrqc;
	int inlen, err;
	u32 *in;

	pgsz = mlx5_ib_buf_pgsz(srq->umem, MLX5_IB_RING_PGSZ_BITMAP, va,
				&page_offset);
	if (!pgsz)
		return -EINVAL;
	npas = ib_umem_num_dma_blocks(srq->umem, pgsz);
	inlen = MLX5_ST_SZ_BYTES(create_xrc_srq_in) + npas * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;

	xsrqc = MLX5_ADDR_OF(create_xrc_srq_in, in, xrc_srq_context_entry);
	MLX5_SET(xrc_srqc, xsrqc, log_xrc_srq_size, ilog2(entries));
	MLX5_SET(xrc_srqc, xsrqc, log_rq_stride, wqe_shift - 4);
	MLX5_SET(xrc_srqc, xsrqc, xrcd, to_mxrcd(attr->ext.xrc.xrcd)->xrcdn);
	MLX5_SET(xrc_srqc, xsrqc, cqn, to_mcq(attr->ext.cq)->mcq.cqn);
	MLX5_SET(xrc_srqc, xsrqc, log_page_size,
		 order_base_2(pgsz) - MLX5_IB_ADAPTER_PAGE_SHIFT);
	MLX5_SET(xrc_srqc, xsrqc, page_offset, page_offset);
	MLX5_SET(xrc_srqc, xsrqc, user_index, uidx);
	MLX5_SET(xrc_srqc, xsrqc, pd, to_mpd(srq->ibsrq.pd)->pdn);
	MLX5_SET(xrc_srqc, xsrqc, lwm, attr->attr.srq_limit);
	MLX5_SET(xrc_srqc, xsrqc, db_record_addr_h, upper_32_bits(srq->db.dma));
	MLX5_SET(xrc_srqc, xsrqc, db_record_addr_l, lower_32_bits(srq->db.dma) >> 2);
	mlx5_ib_buf_fill_pas(srq->umem, pgsz,
			     (__be64 *)MLX5_ADDR_OF(create_xrc_srq_in, in, pas));
	MLX5_SET(create_xrc_srq_in, in, opcode, MLX5_CMD_OP_CREATE_XRC_SRQ);

	err = mlx5_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	srq->srqn = MLX5_GET(create_xrc_srq_out, out, xrc_srqn);
	srq->ibsrq.ext.xrc.srq_num = srq->srqn;
	return 0;
}

int mlx5_ib_destroy_xrc_srq(struct mlx5_ib_dev *dev, u32 srqn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_xrc_srq_in)] = {};

	MLX5_SET(destroy_xrc_srq_in, in, opcode, MLX5_CMD_OP_DESTROY_XRC_SRQ);
	MLX5_SET(destroy_xrc_srq_in, in, xrc_srqn, srqn);
	return mlx5_cmd_exec_in(dev->mdev, destroy_xrc_srq, in);
}

/* An XRC SRQ's limit: ARM_XRC_SRQ with its low watermark. */
int mlx5_ib_arm_xrc_srq(struct mlx5_ib_dev *dev, u32 srqn, u32 limit)
{
	u32 in[MLX5_ST_SZ_DW(arm_xrc_srq_in)] = {};

	MLX5_SET(arm_xrc_srq_in, in, opcode, MLX5_CMD_OP_ARM_XRC_SRQ);
	MLX5_SET(arm_xrc_srq_in, in, op_mod, MLX5_ARM_XRC_SRQ_IN_OP_MOD_XRC_SRQ);
	MLX5_SET(arm_xrc_srq_in, in, xrc_srqn, srqn);
	MLX5_SET(arm_xrc_srq_in, in, lwm, limit);
	return mlx5_cmd_exec_in(dev->mdev, arm_xrc_srq, in);
}

/*
 * An XRC target of user space: no queues, in the domain the verbs name,
 * under the driver's PD.  libmlx5's request has nothing a target uses.
 */
int mlx5_ib_create_xrc_tgt(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			   struct ib_qp_init_attr *attr)
{
	u32 out[MLX5_ST_SZ_DW(create_qp_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_qp_in)] = {};
	void *qpc = MLX5_ADDR_OF(create_qp_in, in, qpc);
	int err;

	if (!dev->devr.valid || !attr->xrcd)
		return -EOPNOTSUPP;
	MLX5_SET(qpc, qpc, st, MLX5_QP_ST_XRC);
	MLX5_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	MLX5_SET(qpc, qpc, pd, dev->devr.pdn);
	MLX5_SET(qpc, qpc, xrcd, to_mxrcd(attr->xrcd)->xrcdn);
	MLX5_SET(qpc, qpc, rq_type, MLX5_ZERO_LEN_RQ);
	MLX5_SET(qpc, qpc, no_sq, 1);
	MLX5_SET(qpc, qpc, user_index, 0xffffff);
	MLX5_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	err = mlx5_cmd_exec_inout(dev->mdev, create_qp, in, out);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	qp->qpn = MLX5_GET(create_qp_out, out, qpn);
	return 0;
}

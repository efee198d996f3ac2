// SPDX-License-Identifier: GPL-2.0-only
/*
 * Raw packet QPs: Ethernet frames sent and received by user space
 * (libmlx5 posts and polls them itself).  Such a QP is no QP of the
 * device but the NIC's own objects:
 *
 * - an SQ over libmlx5's send ring (its own buffer, sq_buf_addr),
 *   sending through a TIS of the context's transport domain; the QP's
 *   number is the SQ's, which every send WQE's control segment names;
 * - an RQ over the receive ring (buf_addr), behind a TIR that
 *   dispatches to it alone; flow steering rules send frames to the TIR
 *   (flow.c).  Frames an SQ of the same transport domain loops back
 *   reach the TIR only if libmlx5 asked for self loopback (with
 *   IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK, multicast never does).
 *
 * Both queues share the QP's doorbell record and carry libmlx5's user
 * index in their CQEs.  The verbs states map onto the queues' three:
 * RESET is reset, ERR error, every other state ready (a raw packet QP
 * sends once in INIT, as with Debian's driver).
 */
#include "mlx5_ib.h"

/* The flags of libmlx5's request a raw packet QP accepts. */
#define MLX5_IB_RAW_QP_FLAGS	(MLX5_QP_FLAG_UAR_PAGE_INDEX | \
				 MLX5_QP_FLAG_SCATTER_CQE | \
				 MLX5_QP_FLAG_ALLOW_SCATTER_CQE | \
				 MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC | \
				 MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC)

int mlx5_ib_create_tir(struct mlx5_ib_dev *dev, u32 *in, u32 *tirn)
{
	u32 out[MLX5_ST_SZ_DW(create_tir_out)] = {};
	int err;

	MLX5_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	err = mlx5_cmd_exec_inout(dev->mdev, create_tir, in, out);
	if (!err)
		*tirn = MLX5_GET(create_tir_out, out, tirn);
	return mlx5_ib_cmd_status(dev, err);
}

int mlx5_ib_destroy_tir(struct mlx5_ib_dev *dev, u32 tirn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_tir_in)] = {};

	MLX5_SET(destroy_tir_in, in, opcode, MLX5_CMD_OP_DESTROY_TIR);
	MLX5_SET(destroy_tir_in, in, tirn, tirn);
	return mlx5_ib_destroy_status(dev,
				      mlx5_cmd_exec_in(dev->mdev, destroy_tir, in));
}

static int mlx5_ib_create_tis(struct mlx5_ib_dev *dev, u32 tdn, u32 *tisn)
{
	u32 out[MLX5_ST_SZ_DW(create_tis_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_tis_in)] = {};
	int err;

	MLX5_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	MLX5_SET(tisc, MLX5_ADDR_OF(create_tis_in, in, ctx), transport_domain,
		 tdn);
	err = mlx5_cmd_exec_inout(dev->mdev, create_tis, in, out);
	if (!err)
		*tisn = MLX5_GET(create_tis_out, out, tisn);
	return mlx5_ib_cmd_status(dev, err);
}

static int mlx5_ib_destroy_tis(struct mlx5_ib_dev *dev, u32 tisn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_tis_in)] = {};

	MLX5_SET(destroy_tis_in, in, opcode, MLX5_CMD_OP_DESTROY_TIS);
	MLX5_SET(destroy_tis_in, in, tisn, tisn);
	return mlx5_ib_destroy_status(dev,
				      mlx5_cmd_exec_in(dev->mdev, destroy_tis, in));
}

/*
 * A TIR's self_lb_block bits for libmlx5's TIR_ALLOW_SELF_LB_UC/MC flags
 * (raw packet and RSS QPs).  The drivers set these bits to let the
 * domain's own frames back (mlx5e's loopback test does the same),
 * whatever their name says; left clear, the domain's own frames stay
 * out, which is also what IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK asks
 * for multicast.
 */
u8 mlx5_ib_tir_self_lb(u32 flags)
{
	u8 self_lb = 0;

	if (flags & MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC)
		self_lb |= MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST;
	if (flags & MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC)
		self_lb |= MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST;
	return self_lb;
}

/* The TIR that hands the RQ what steering sends the QP. */
static int mlx5_ib_raw_tir(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			   u32 tdn, u32 flags)
{
	u32 in[MLX5_ST_SZ_DW(create_tir_in)] = {};
	void *tirc = MLX5_ADDR_OF(create_tir_in, in, ctx);

	MLX5_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	MLX5_SET(tirc, tirc, inline_rqn, qp->raw.rq.num);
	MLX5_SET(tirc, tirc, transport_domain, tdn);
	MLX5_SET(tirc, tirc, self_lb_block, mlx5_ib_tir_self_lb(flags));
	return mlx5_ib_create_tir(dev, in, &qp->raw.tirn);
}

/* libmlx5's request for a raw packet QP, checked. */
static int mlx5_ib_raw_req(struct mlx5_ib_dev *dev, struct ib_udata *udata,
			   struct ib_qp_init_attr *attr,
			   struct mlx5_ib_create_qp *req)
{
	struct mlx5_core_dev *mdev = dev->mdev;
	u32 create_flags = 0;
	int err;

	err = mlx5_ib_qp_req_copy(udata, req);
	if (err)
		return err;
	/* Tunnel offloads need the device's: none here, as Debian answers. */
	if (req->flags & MLX5_QP_FLAG_TUNNEL_OFFLOADS)
		return -EINVAL;
	if (req->flags & ~MLX5_IB_RAW_QP_FLAGS)
		return -EOPNOTSUPP;

	if (MLX5_CAP_GEN(mdev, eth_net_offloads) && MLX5_CAP_ETH(mdev, vlan_cap))
		create_flags |= IB_QP_CREATE_CVLAN_STRIPPING;
	if (MLX5_CAP_GEN(mdev, eth_net_offloads) && MLX5_CAP_ETH(mdev, scatter_fcs))
		create_flags |= IB_QP_CREATE_SCATTER_FCS;
	if (MLX5_CAP_GEN(mdev, block_lb_mc))
		create_flags |= IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	if (attr->create_flags & ~create_flags)
		return -EOPNOTSUPP;
	/* Blocking one's own multicast and letting it back: one or the other. */
	if ((attr->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK) &&
	    (req->flags & MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC))
		return -EINVAL;
	if (attr->srq)
		return -EOPNOTSUPP;

	if (!req->sq_wqe_count && !req->rq_wqe_count)
		return -EINVAL;
	/*
	 * The send ring is a buffer of its own (one at 0 fails to pin:
	 * EFAULT), rung on the QP's UAR.
	 */
	if (req->sq_wqe_count &&
	    (udata->inlen < offsetofend(struct mlx5_ib_create_qp, sq_buf_addr) ||
	     !(req->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX)))
		return -EINVAL;
	return 0;
}

/* Undo what mlx5_ib_create_raw_qp() made, in reverse; the record stays. */
static int mlx5_ib_raw_teardown(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp)
{
	int err;

	if (qp->raw.tirn) {
		err = mlx5_ib_destroy_tir(dev, qp->raw.tirn);
		if (err)
			return err;
		qp->raw.tirn = 0;
	}
	if (qp->raw.rq.num) {
		err = mlx5_ib_destroy_eth_wq(dev, &qp->raw.rq, false);
		if (err)
			return err;
	}
	if (qp->raw.sq.num) {
		err = mlx5_ib_destroy_eth_wq(dev, &qp->raw.sq, true);
		if (err)
			return err;
	}
	if (qp->raw.tisn) {
		err = mlx5_ib_destroy_tis(dev, qp->raw.tisn);
		if (err)
			return err;
		qp->raw.tisn = 0;
	}
	return 0;
}

int mlx5_ib_create_raw_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			  struct ib_qp_init_attr *attr, struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_create_qp_resp resp = {};
	struct mlx5_ib_create_qp req = {};
	struct mlx5_ib_eth_wq_attr wq = {};
	int err;

	if (!udata || !MLX5_CAP_GEN(dev->mdev, log_max_transport_domain) ||
	    !MLX5_CAP_GEN(dev->mdev, eth_net_offloads))
		return -EOPNOTSUPP;
	if (attr->rwq_ind_tbl)
		return mlx5_ib_create_rss_qp(dev, qp, attr, udata);
	err = mlx5_ib_raw_req(dev, udata, attr, &req);
	if (err)
		return err;
	if (req.sq_wqe_count && !mlx5_ib_uar_owned(ctx, req.bfreg_index))
		return -EINVAL;
	err = mlx5_ib_qp_uidx(ctx, req.uidx, &wq.uidx);
	if (err)
		return err;
	err = mlx5_ib_db_map_user(ctx, req.db_addr, &qp->db);
	if (err)
		return err;

	wq.dbr = qp->db.dma;
	wq.pdn = to_mpd(qp->ibqp.pd)->pdn;
	if (req.sq_wqe_count) {
		err = mlx5_ib_create_tis(dev, ctx->tdn, &qp->raw.tisn);
		if (err)
			goto err;
		wq.buf_addr = req.sq_buf_addr;
		wq.wqe_count = req.sq_wqe_count;
		wq.wqe_shift = MLX5_IB_SQ_STRIDE_SHIFT;
		wq.cqn = to_mcq(attr->send_cq)->mcq.cqn;
		wq.uar_page = req.bfreg_index;
		wq.tisn = qp->raw.tisn;
		err = mlx5_ib_create_eth_sq(dev, &qp->raw.sq, &wq);
		if (err)
			goto err;
		resp.tisn = qp->raw.tisn;
		resp.sqn = qp->raw.sq.num;
		resp.comp_mask |= MLX5_IB_CREATE_QP_RESP_MASK_TISN |
				  MLX5_IB_CREATE_QP_RESP_MASK_SQN;
	}
	if (req.rq_wqe_count) {
		wq.buf_addr = req.buf_addr;
		wq.wqe_count = req.rq_wqe_count;
		wq.wqe_shift = req.rq_wqe_shift;
		wq.cqn = to_mcq(attr->recv_cq)->mcq.cqn;
		wq.cvlan_strip = attr->create_flags & IB_QP_CREATE_CVLAN_STRIPPING;
		wq.scatter_fcs = attr->create_flags & IB_QP_CREATE_SCATTER_FCS;
		err = mlx5_ib_create_eth_rq(dev, &qp->raw.rq, &wq);
		if (err)
			goto err;
		err = mlx5_ib_raw_tir(dev, qp, ctx->tdn, req.flags);
		if (err)
			goto err;
		resp.tirn = qp->raw.tirn;
		resp.rqn = qp->raw.rq.num;
		resp.comp_mask |= MLX5_IB_CREATE_QP_RESP_MASK_TIRN |
				  MLX5_IB_CREATE_QP_RESP_MASK_RQN;
	}

	/* As for other user QPs, libmlx5 answers the send side itself. */
	qp->cap = attr->cap;
	qp->cap.max_send_wr = 0;
	qp->cap.max_send_sge = 0;
	qp->cap.max_recv_wr = req.rq_wqe_count;
	qp->cap.max_recv_sge = req.rq_wqe_count ?
		BIT(req.rq_wqe_shift) / sizeof(struct mlx5_wqe_data_seg) : 0;
	qp->state = IB_QPS_RESET;
	qp->qpn = req.sq_wqe_count ? qp->raw.sq.num : qp->raw.rq.num;
	qp->ibqp.qp_num = qp->qpn;

	resp.bfreg_index = req.bfreg_index;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err;
	return 0;

err:
	/* Only a device refusing to destroy what it just made fails here. */
	if (mlx5_ib_raw_teardown(dev, qp))
		dev_err_ratelimited(&dev->ib_dev.dev,
				    "raw packet QP: objects left on the device\n");
	mlx5_ib_db_unmap_user(ctx, &qp->db);
	return err;
}

int mlx5_ib_destroy_raw_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			   struct mlx5_ib_ucontext *ctx)
{
	int err;

	err = mlx5_ib_raw_teardown(dev, qp);
	if (err)
		return err;
	/* An RSS QP has no record. */
	if (qp->db.page)
		mlx5_ib_db_unmap_user(ctx, &qp->db);
	return 0;
}

/* The queues' state for a verbs state. */
static u8 mlx5_ib_raw_wq_state(enum ib_qp_state state)
{
	switch (state) {
	case IB_QPS_RESET:
		return MLX5_RQC_STATE_RST;
	case IB_QPS_ERR:
		return MLX5_RQC_STATE_ERR;
	default:
		return MLX5_RQC_STATE_RDY;
	}
}

/*
 * Move both queues (one still in reset stays there on the way to ERR:
 * mlx5_ib_modify_eth_wq()).  modify_qp is serialised per QP by the core.
 */
int mlx5_ib_modify_raw_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			  enum ib_qp_state new)
{
	u8 state = mlx5_ib_raw_wq_state(new);
	u8 rq_was = qp->raw.rq.state;
	int err;

	if (qp->raw.rq.num) {
		err = mlx5_ib_modify_eth_wq(dev, &qp->raw.rq, false, state);
		if (err)
			return err;
	}
	if (qp->raw.sq.num) {
		err = mlx5_ib_modify_eth_wq(dev, &qp->raw.sq, true, state);
		if (err) {
			/* Both or neither: the RQ back where it was. */
			if (qp->raw.rq.num)
				mlx5_ib_modify_eth_wq(dev, &qp->raw.rq, false,
						      rq_was);
			return err;
		}
	}
	return 0;
}

/* ERR when the device moved a queue there (a bad WQE, say); else ours. */
int mlx5_ib_query_raw_qp_state(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			       enum ib_qp_state *state)
{
	u8 sq = MLX5_SQC_STATE_RDY, rq = MLX5_RQC_STATE_RDY;
	int err;

	*state = qp->state;
	if (qp->state == IB_QPS_RESET)
		return 0;
	if (qp->raw.sq.num) {
		err = mlx5_ib_query_eth_wq(dev, &qp->raw.sq, true, &sq);
		if (err)
			return err;
	}
	if (qp->raw.rq.num) {
		err = mlx5_ib_query_eth_wq(dev, &qp->raw.rq, false, &rq);
		if (err)
			return err;
	}
	if (sq == MLX5_SQC_STATE_ERR || rq == MLX5_RQC_STATE_ERR)
		*state = IB_QPS_ERR;
	return 0;
}

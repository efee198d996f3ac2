// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verbs' work queues (ibv_create_wq()): receive queues of their own
 * that an RSS QP spreads frames over through an indirection table
 * (rss.c).  A WQ is an RQ of the Ethernet side over libmlx5's ring and
 * doorbell record (eth_wq.c); an indirection table is an RQ table (RQT)
 * naming the WQs' RQs.
 *
 * ib_uverbs modifies a WQ under a shared hold of its object, so the
 * WQ's own mutex serialises its state changes.
 */
#include "mlx5_ib.h"

struct mlx5_ib_rwq {
	struct ib_wq ibwq;
	struct mlx5_ib_eth_wq rq;
	struct mlx5_ib_user_db db;
	struct mutex lock;		/* serialises modify_wq */
};

static inline struct mlx5_ib_rwq *to_mrwq(struct ib_wq *ibwq)
{
	return container_of(ibwq, struct mlx5_ib_rwq, ibwq);
}

/* The create_flags a WQ may have on this device. */
static u32 mlx5_ib_wq_flags(struct mlx5_core_dev *mdev)
{
	u32 flags = 0;

	if (!MLX5_CAP_GEN(mdev, eth_net_offloads))
		return 0;
	if (MLX5_CAP_ETH(mdev, vlan_cap))
		flags |= IB_WQ_FLAGS_CVLAN_STRIPPING;
	if (MLX5_CAP_ETH(mdev, scatter_fcs))
		flags |= IB_WQ_FLAGS_SCATTER_FCS;
	return flags;
}

struct ib_wq *mlx5_ib_create_wq(struct ib_pd *pd,
				struct ib_wq_init_attr *init_attr,
				struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_dev *dev = to_mdev(pd->device);
	struct mlx5_ib_create_wq_resp resp = {};
	struct mlx5_ib_eth_wq_attr wq = {};
	struct mlx5_ib_create_wq req = {};
	struct mlx5_ib_rwq *rwq;
	int err;

	if (!udata || init_attr->wq_type != IB_WQT_RQ ||
	    !MLX5_CAP_GEN(dev->mdev, eth_net_offloads))
		return ERR_PTR(-EOPNOTSUPP);
	if (init_attr->create_flags & ~mlx5_ib_wq_flags(dev->mdev))
		return ERR_PTR(-EOPNOTSUPP);
	if (udata->inlen < offsetofend(struct mlx5_ib_create_wq, user_index))
		return ERR_PTR(-EINVAL);
	err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (err)
		return ERR_PTR(err);
	/*
	 * Striding RQs and signatures are not offered; other flag bits mean
	 * nothing and are ignored, as Debian's driver does.
	 */
	if (req.comp_mask || (req.flags & MLX5_WQ_FLAG_SIGNATURE))
		return ERR_PTR(-EOPNOTSUPP);
	/* A count of no power of two: the ring is the power below it. */
	if (req.rq_wqe_count)
		req.rq_wqe_count = rounddown_pow_of_two(req.rq_wqe_count);
	err = mlx5_ib_qp_uidx(ctx, req.user_index, &wq.uidx);
	if (err)
		return ERR_PTR(err);

	rwq = kzalloc(sizeof(*rwq), GFP_KERNEL);
	if (!rwq)
		return ERR_PTR(-ENOMEM);
	mutex_init(&rwq->lock);
	err = mlx5_ib_db_map_user(ctx, req.db_addr, &rwq->db);
	if (err)
		goto err_free;

	wq.buf_addr = req.buf_addr;
	wq.wqe_count = req.rq_wqe_count;
	wq.wqe_shift = req.rq_wqe_shift;
	wq.dbr = rwq->db.dma;
	wq.pdn = to_mpd(pd)->pdn;
	wq.cqn = to_mcq(init_attr->cq)->mcq.cqn;
	wq.cvlan_strip = init_attr->create_flags & IB_WQ_FLAGS_CVLAN_STRIPPING;
	wq.scatter_fcs = init_attr->create_flags & IB_WQ_FLAGS_SCATTER_FCS;
	err = mlx5_ib_create_eth_rq(dev, &rwq->rq, &wq);
	if (err)
		goto err_db;

	if (udata->outlen) {
		resp.response_length = min(udata->outlen, sizeof(resp));
		err = ib_copy_to_udata(udata, &resp, resp.response_length);
		if (err)
			goto err_rq;
	}
	rwq->ibwq.wq_num = rwq->rq.num;
	rwq->ibwq.state = IB_WQS_RESET;
	return &rwq->ibwq;

err_rq:
	mlx5_ib_destroy_eth_wq(dev, &rwq->rq, false);
err_db:
	mlx5_ib_db_unmap_user(ctx, &rwq->db);
err_free:
	kfree(rwq);
	return ERR_PTR(err);
}

int mlx5_ib_destroy_wq(struct ib_wq *ibwq, struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibwq->device);
	struct mlx5_ib_rwq *rwq = to_mrwq(ibwq);
	int err;

	err = mlx5_ib_destroy_eth_wq(dev, &rwq->rq, false);
	if (err)
		return err;
	mlx5_ib_db_unmap_user(ctx, &rwq->db);
	kfree(rwq);
	return 0;
}

static u8 mlx5_ib_wq_state(enum ib_wq_state state)
{
	switch (state) {
	case IB_WQS_RESET:
		return MLX5_RQC_STATE_RST;
	case IB_WQS_RDY:
		return MLX5_RQC_STATE_RDY;
	default:
		return MLX5_RQC_STATE_ERR;
	}
}

int mlx5_ib_modify_wq(struct ib_wq *ibwq, struct ib_wq_attr *attr,
		      u32 attr_mask, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibwq->device);
	struct mlx5_ib_rwq *rwq = to_mrwq(ibwq);
	struct mlx5_ib_modify_wq req = {};
	enum ib_wq_state cur, new;
	int err;

	if (udata && udata->inlen) {
		err = ib_copy_from_udata(&req, udata,
					 min(udata->inlen, sizeof(req)));
		if (err)
			return err;
		if (req.comp_mask || req.reserved)
			return -EOPNOTSUPP;
	}
	if (attr_mask & ~(IB_WQ_STATE | IB_WQ_CUR_STATE | IB_WQ_FLAGS))
		return -EOPNOTSUPP;
	/* The offloads are the WQ's for life. */
	if ((attr_mask & IB_WQ_FLAGS) && attr->flags_mask)
		return -EOPNOTSUPP;

	mutex_lock(&rwq->lock);
	cur = attr_mask & IB_WQ_CUR_STATE ? attr->curr_wq_state : ibwq->state;
	new = attr_mask & IB_WQ_STATE ? attr->wq_state : cur;
	if (cur > IB_WQS_ERR || new > IB_WQS_ERR) {
		err = -EINVAL;
		goto out;
	}
	err = mlx5_ib_modify_eth_wq(dev, &rwq->rq, false, mlx5_ib_wq_state(new));
	if (!err)
		ibwq->state = new;
out:
	mutex_unlock(&rwq->lock);
	return err;
}

int mlx5_ib_create_rwq_ind_table(struct ib_rwq_ind_table *ibtbl,
				 struct ib_rwq_ind_table_init_attr *init_attr,
				 struct ib_udata *udata)
{
	struct mlx5_ib_rwq_ind_table *tbl = to_mrwq_ind_table(ibtbl);
	struct mlx5_ib_dev *dev = to_mdev(ibtbl->device);
	struct mlx5_ib_create_rwq_ind_tbl_resp resp = {};
	u32 out[MLX5_ST_SZ_DW(create_rqt_out)] = {};
	u32 size = 1U << init_attr->log_ind_tbl_size;
	int inlen, err;
	void *rqtc;
	u32 *in, i;

	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (init_attr->log_ind_tbl_size > MLX5_CAP_GEN(dev->mdev, log_max_rqt_size))
		return -EINVAL;

	inlen = MLX5_ST_SZ_BYTES(create_rqt_in) +
		size * MLX5_ST_SZ_BYTES(rq_num);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	rqtc = MLX5_ADDR_OF(create_rqt_in, in, rqt_context);
	MLX5_SET(rqtc, rqtc, rqt_max_size, size);
	MLX5_SET(rqtc, rqtc, rqt_actual_size, size);
	for (i = 0; i < size; i++)
		MLX5_SET(rqtc, rqtc, rq_num[i], init_attr->ind_tbl[i]->wq_num);
	MLX5_SET(create_rqt_in, in, opcode, MLX5_CMD_OP_CREATE_RQT);
	err = mlx5_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	err = mlx5_ib_cmd_status(dev, err);
	if (err)
		return err;
	tbl->rqtn = MLX5_GET(create_rqt_out, out, rqtn);
	ibtbl->ind_tbl_num = tbl->rqtn;

	if (udata && udata->outlen) {
		resp.response_length = min(udata->outlen, sizeof(resp));
		err = ib_copy_to_udata(udata, &resp, resp.response_length);
		if (err) {
			mlx5_ib_destroy_rwq_ind_table(ibtbl);
			return err;
		}
	}
	return 0;
}

int mlx5_ib_destroy_rwq_ind_table(struct ib_rwq_ind_table *ibtbl)
{
	struct mlx5_ib_dev *dev = to_mdev(ibtbl->device);
	u32 in[MLX5_ST_SZ_DW(destroy_rqt_in)] = {};

	MLX5_SET(destroy_rqt_in, in, opcode, MLX5_CMD_OP_DESTROY_RQT);
	MLX5_SET(destroy_rqt_in, in, rqtn, to_mrwq_ind_table(ibtbl)->rqtn);
	return mlx5_ib_destroy_status(dev,
				      mlx5_cmd_exec_in(dev->mdev, destroy_rqt, in));
}

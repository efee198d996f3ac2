// SPDX-License-Identifier: GPL-2.0-only
/*
 * QP state changes: each verbs transition is one of the PRM's transition
 * commands, whose QP context carries the fields the transition requires
 * and those its optional-parameter mask names.
 *
 * The core has already checked the transition and the attribute mask
 * against the IBTA's table (ib_modify_qp_is_ok() in ib_uverbs); what is
 * left is the translation, and the values only the device's limits bound.
 * modify_qp calls on one QP are serialised by the core (the QP's uobject
 * is held exclusively), so qp->state and qp->attr need no lock of ours.
 */
#include <asm/unaligned.h>
#include <rdma/ib_cache.h>

#include "mlx5_ib.h"

/* The QP classes of the optional-parameter table. */
enum {
	MLX5_IB_QPC_RC,
	MLX5_IB_QPC_UC,
	MLX5_IB_QPC_UD,
	MLX5_IB_QPC_NUM,
};

/*
 * A transition: its command, and the optional parameters the PRM lets
 * the command carry for each class.
 */
struct mlx5_ib_qp_transition {
	u16 opcode;
	u32 optional[MLX5_IB_QPC_NUM];
};

#define MLX5_IB_OPT_RC_ACCESS	(MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE | \
				 MLX5_QP_OPTPAR_RWE)

/* [from][to], by IB state; opcode 0: not a transition we offer. */
static const struct mlx5_ib_qp_transition
mlx5_ib_qp_transitions[IB_QPS_ERR + 1][IB_QPS_ERR + 1] = {
	[IB_QPS_RESET][IB_QPS_INIT] = { MLX5_CMD_OP_RST2INIT_QP },
	[IB_QPS_INIT][IB_QPS_INIT] = { MLX5_CMD_OP_INIT2INIT_QP, {
		MLX5_IB_OPT_RC_ACCESS | MLX5_QP_OPTPAR_PKEY_INDEX |
			MLX5_QP_OPTPAR_PRI_PORT,
		MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PKEY_INDEX |
			MLX5_QP_OPTPAR_PRI_PORT,
		MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_Q_KEY |
			MLX5_QP_OPTPAR_PRI_PORT } },
	[IB_QPS_INIT][IB_QPS_RTR] = { MLX5_CMD_OP_INIT2RTR_QP, {
		MLX5_IB_OPT_RC_ACCESS | MLX5_QP_OPTPAR_PKEY_INDEX,
		MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PKEY_INDEX,
		MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_Q_KEY } },
	[IB_QPS_RTR][IB_QPS_RTS] = { MLX5_CMD_OP_RTR2RTS_QP, {
		MLX5_IB_OPT_RC_ACCESS | MLX5_QP_OPTPAR_PM_STATE |
			MLX5_QP_OPTPAR_RNR_TIMEOUT,
		MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PM_STATE,
		MLX5_QP_OPTPAR_Q_KEY } },
	[IB_QPS_RTS][IB_QPS_RTS] = { MLX5_CMD_OP_RTS2RTS_QP, {
		MLX5_IB_OPT_RC_ACCESS | MLX5_QP_OPTPAR_RNR_TIMEOUT |
			MLX5_QP_OPTPAR_PM_STATE,
		MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PM_STATE,
		MLX5_QP_OPTPAR_Q_KEY } },
	[IB_QPS_SQE][IB_QPS_RTS] = { MLX5_CMD_OP_SQERR2RTS_QP, {
		MLX5_QP_OPTPAR_RNR_TIMEOUT | MLX5_IB_OPT_RC_ACCESS,
		MLX5_QP_OPTPAR_RWE,
		MLX5_QP_OPTPAR_Q_KEY } },
};

static int mlx5_ib_qp_class(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return MLX5_IB_QPC_RC;
	case IB_QPT_UC:
		return MLX5_IB_QPC_UC;
	default:
		return MLX5_IB_QPC_UD;
	}
}

/* The optional parameters an attribute mask names. */
static u32 mlx5_ib_optpar(int attr_mask)
{
	u32 opt = 0;

	if (attr_mask & IB_QP_ACCESS_FLAGS)
		opt |= MLX5_IB_OPT_RC_ACCESS;
	if (attr_mask & IB_QP_PKEY_INDEX)
		opt |= MLX5_QP_OPTPAR_PKEY_INDEX;
	if (attr_mask & IB_QP_PORT)
		opt |= MLX5_QP_OPTPAR_PRI_PORT;
	if (attr_mask & IB_QP_QKEY)
		opt |= MLX5_QP_OPTPAR_Q_KEY;
	if (attr_mask & IB_QP_MIN_RNR_TIMER)
		opt |= MLX5_QP_OPTPAR_RNR_TIMEOUT;
	if (attr_mask & IB_QP_PATH_MIG_STATE)
		opt |= MLX5_QP_OPTPAR_PM_STATE;
	return opt;
}

/* log2 of a count of outstanding reads, rounded up; 0 stays 0. */
static u8 mlx5_ib_log_rd_atomic(u8 n)
{
	return n ? order_base_2(n) : 0;
}

/* The primary address path: where the QP's packets go, and from which GID. */
static int mlx5_ib_set_path(struct mlx5_ib_qp *qp, const struct ib_qp_attr *attr,
			    void *ads)
{
	const struct rdma_ah_attr *ah = &attr->ah_attr;
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	const struct ib_gid_attr *sgid = grh->sgid_attr;
	u32 fl = grh->flow_label;

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) || !sgid)
		return -EINVAL;
	if (rdma_ah_get_sl(ah) > 7)
		return -EINVAL;

	memcpy(MLX5_ADDR_OF(ads, ads, rgid_rip), grh->dgid.raw,
	       sizeof(grh->dgid.raw));
	MLX5_SET(ads, ads, rmac_47_32, get_unaligned_be16(ah->roce.dmac));
	MLX5_SET(ads, ads, rmac_31_0, get_unaligned_be32(ah->roce.dmac + 2));
	MLX5_SET(ads, ads, grh, 1);
	MLX5_SET(ads, ads, src_addr_index, sgid->index);
	MLX5_SET(ads, ads, hop_limit, grh->hop_limit);
	MLX5_SET(ads, ads, tclass, grh->traffic_class);
	MLX5_SET(ads, ads, eth_prio, rdma_ah_get_sl(ah));
	MLX5_SET(ads, ads, vhca_port_num, MLX5_IB_PORT);
	if (sgid->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP) {
		MLX5_SET(ads, ads, dscp, grh->traffic_class >> 2);
		if (!fl)
			fl = rdma_calc_flow_label(qp->qpn, attr->dest_qp_num);
		MLX5_SET(ads, ads, flow_label, fl);
		MLX5_SET(ads, ads, udp_sport,
			 rdma_get_udp_sport(fl, qp->qpn, attr->dest_qp_num));
	} else {
		MLX5_SET(ads, ads, flow_label, fl);
	}
	return 0;
}

/*
 * The context of a transition: every field the attribute mask names,
 * and those the transition requires of the QP's type.
 */
static int mlx5_ib_fill_qpc(struct mlx5_ib_qp *qp, const struct ib_qp_attr *attr,
			    int attr_mask, enum ib_qp_state new, void *qpc)
{
	struct mlx5_ib_dev *dev = to_mdev(qp->ibqp.device);
	void *ads = MLX5_ADDR_OF(qpc, qpc, primary_address_path);
	enum ib_qp_type type = qp->ibqp.qp_type;
	int err;

	if (attr_mask & IB_QP_ACCESS_FLAGS) {
		int acc = attr->qp_access_flags;

		MLX5_SET(qpc, qpc, rre, !!(acc & IB_ACCESS_REMOTE_READ));
		MLX5_SET(qpc, qpc, rwe, !!(acc & IB_ACCESS_REMOTE_WRITE));
		MLX5_SET(qpc, qpc, rae, !!(acc & IB_ACCESS_REMOTE_ATOMIC));
		if (acc & IB_ACCESS_REMOTE_ATOMIC)
			MLX5_SET(qpc, qpc, atomic_mode, MLX5_ATOMIC_MODE_IB_COMP);
	}
	if (attr_mask & IB_QP_PKEY_INDEX) {
		if (attr->pkey_index)
			return -EINVAL;
		MLX5_SET(ads, ads, pkey_index, attr->pkey_index);
	}
	/* Port 1 always: the device has no other. */
	MLX5_SET(ads, ads, vhca_port_num, MLX5_IB_PORT);
	/* Counted in the port's Q counter set from the start (counters.c). */
	if (new == IB_QPS_INIT && qp->state == IB_QPS_RESET)
		MLX5_SET(qpc, qpc, counter_set_id, dev->q_counter);
	if (attr_mask & IB_QP_QKEY)
		MLX5_SET(qpc, qpc, q_key, attr->qkey);
	if (attr_mask & IB_QP_MIN_RNR_TIMER)
		MLX5_SET(qpc, qpc, min_rnr_nak, attr->min_rnr_timer);
	if (attr_mask & IB_QP_PATH_MIG_STATE) {
		if (attr->path_mig_state != IB_MIG_MIGRATED)
			return -EINVAL;
		MLX5_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	}

	if (new == IB_QPS_RTR && qp->state == IB_QPS_INIT) {
		enum ib_mtu mtu = attr->path_mtu;
		enum ib_mtu max_mtu, active;

		mlx5_ib_port_mtu(dev, &max_mtu, &active);
		if (type == IB_QPT_UD || type == IB_QPT_GSI)
			mtu = active;
		else if (!(attr_mask & IB_QP_PATH_MTU) || mtu > max_mtu)
			return -EINVAL;
		MLX5_SET(qpc, qpc, mtu, mtu);
		MLX5_SET(qpc, qpc, log_msg_max, MLX5_CAP_GEN(dev->mdev, log_max_msg));
		if (type != IB_QPT_UD && type != IB_QPT_GSI) {
			err = mlx5_ib_set_path(qp, attr, ads);
			if (err)
				return err;
			MLX5_SET(qpc, qpc, remote_qpn, attr->dest_qp_num);
			MLX5_SET(qpc, qpc, next_rcv_psn, attr->rq_psn);
		}
		if (attr_mask & IB_QP_MAX_DEST_RD_ATOMIC)
			MLX5_SET(qpc, qpc, log_rra_max,
				 mlx5_ib_log_rd_atomic(attr->max_dest_rd_atomic));
	}
	if (new == IB_QPS_RTS && qp->state == IB_QPS_RTR) {
		MLX5_SET(qpc, qpc, next_send_psn, attr->sq_psn);
		if (mlx5_ib_qp_class(type) == MLX5_IB_QPC_RC) {
			MLX5_SET(ads, ads, ack_timeout, attr->timeout);
			MLX5_SET(qpc, qpc, retry_count, attr->retry_cnt);
			MLX5_SET(qpc, qpc, rnr_retry, attr->rnr_retry);
			if (attr_mask & IB_QP_MAX_QP_RD_ATOMIC)
				MLX5_SET(qpc, qpc, log_sra_max,
					 mlx5_ib_log_rd_atomic(attr->max_rd_atomic));
		}
	}
	return 0;
}

/* A transition with no context: to RESET or to ERR. */
static int mlx5_ib_qp_to(struct mlx5_ib_dev *dev, u32 qpn, u16 opcode)
{
	u32 in[MLX5_ST_SZ_DW(qp_2rst_in)] = {};

	MLX5_SET(qp_2rst_in, in, opcode, opcode);
	MLX5_SET(qp_2rst_in, in, qpn, qpn);
	return mlx5_cmd_exec_in(dev->mdev, qp_2rst, in);
}

static int mlx5_ib_qp_transition(struct mlx5_ib_qp *qp,
				 const struct ib_qp_attr *attr, int attr_mask,
				 enum ib_qp_state cur, enum ib_qp_state new)
{
	struct mlx5_ib_dev *dev = to_mdev(qp->ibqp.device);
	const struct mlx5_ib_qp_transition *t;
	u32 in[MLX5_ST_SZ_DW(rst2init_qp_in)] = {};
	void *qpc = MLX5_ADDR_OF(rst2init_qp_in, in, qpc);
	u32 opt;
	int err;

	if (new == IB_QPS_RESET)
		return mlx5_ib_qp_to(dev, qp->qpn, MLX5_CMD_OP_2RST_QP);
	if (new == IB_QPS_ERR)
		return mlx5_ib_qp_to(dev, qp->qpn, MLX5_CMD_OP_2ERR_QP);
	if (cur > IB_QPS_ERR || new > IB_QPS_ERR)
		return -EINVAL;
	t = &mlx5_ib_qp_transitions[cur][new];
	if (!t->opcode)
		return -EOPNOTSUPP;

	err = mlx5_ib_fill_qpc(qp, attr, attr_mask, new, qpc);
	if (err)
		return err;
	opt = mlx5_ib_optpar(attr_mask) &
	      t->optional[mlx5_ib_qp_class(qp->ibqp.qp_type)];
	/* UC has remote writes only. */
	if (qp->ibqp.qp_type == IB_QPT_UC)
		opt &= ~(MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE);

	MLX5_SET(rst2init_qp_in, in, opcode, t->opcode);
	MLX5_SET(rst2init_qp_in, in, qpn, qp->qpn);
	MLX5_SET(rst2init_qp_in, in, opt_param_mask, opt);
	return mlx5_cmd_exec_in(dev->mdev, rst2init_qp, in);
}

/* What query_qp answers from: the attributes of every successful modify. */
static void mlx5_ib_qp_remember(struct mlx5_ib_qp *qp,
				const struct ib_qp_attr *attr, int attr_mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (attr_mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (attr_mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (attr_mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (attr_mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (attr_mask & IB_QP_AV) {
		rdma_destroy_ah_attr(&a->ah_attr);
		rdma_copy_ah_attr(&a->ah_attr, &attr->ah_attr);
	}
	if (attr_mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (attr_mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (attr_mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (attr_mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (attr_mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (attr_mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (attr_mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (attr_mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (attr_mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (attr_mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (attr_mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
}

int mlx5_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		      int attr_mask, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5_ib_qp *qp = to_mqp(ibqp);
	enum ib_qp_state cur, new;
	int err;

	/* No alternate path: automatic path migration is not offered. */
	if (attr_mask & (~IB_QP_ATTR_STANDARD_BITS | IB_QP_ALT_PATH))
		return -EOPNOTSUPP;
	/* libmlx5's request has nothing we read; an empty one is fine. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;

	cur = attr_mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = attr_mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, attr_mask))
		return -EINVAL;
	if ((attr_mask & IB_QP_PORT) && attr->port_num != MLX5_IB_PORT)
		return -EINVAL;
	if ((attr_mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > (1 << MLX5_CAP_GEN(dev->mdev, log_max_ra_req_qp)))
		return -EINVAL;
	if ((attr_mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > (1 << MLX5_CAP_GEN(dev->mdev, log_max_ra_res_qp)))
		return -EINVAL;

	if (ibqp->qp_type == IB_QPT_RAW_PACKET) {
		err = mlx5_ib_modify_raw_qp(dev, qp, new);
	} else {
		err = mlx5_ib_qp_transition(qp, attr, attr_mask, cur, new);
		err = mlx5_ib_cmd_status(dev, err);
	}
	if (err)
		return err;
	if (new == IB_QPS_RESET && qp->k)
		mlx5_ib_kqp_reset(qp);
	qp->state = new;
	mlx5_ib_qp_remember(qp, attr, attr_mask);
	return 0;
}

/* The QP's state as the device has it: the engine may have moved it to ERR. */
static int mlx5_ib_query_qp_state(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
				  enum ib_qp_state *state)
{
	u32 in[MLX5_ST_SZ_DW(query_qp_in)] = {};
	int outlen = MLX5_ST_SZ_BYTES(query_qp_out);
	u32 *out;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	MLX5_SET(query_qp_in, in, qpn, qp->qpn);
	err = mlx5_cmd_exec(dev->mdev, in, sizeof(in), out, outlen);
	if (!err) {
		switch (MLX5_GET(qpc, MLX5_ADDR_OF(query_qp_out, out, qpc), state)) {
		case MLX5_QP_STATE_RST:
			*state = IB_QPS_RESET;
			break;
		case MLX5_QP_STATE_INIT:
			*state = IB_QPS_INIT;
			break;
		case MLX5_QP_STATE_RTR:
			*state = IB_QPS_RTR;
			break;
		case MLX5_QP_STATE_RTS:
			*state = IB_QPS_RTS;
			break;
		case MLX5_QP_STATE_SQER:
			*state = IB_QPS_SQE;
			break;
		case MLX5_QP_STATE_SQD:
			*state = IB_QPS_SQD;
			break;
		default:
			*state = IB_QPS_ERR;
			break;
		}
	}
	kfree(out);
	return mlx5_ib_cmd_status(dev, err);
}

int mlx5_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int attr_mask, struct ib_qp_init_attr *init_attr)
{
	struct mlx5_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5_ib_qp *qp = to_mqp(ibqp);
	enum ib_qp_state state;
	int err;

	if (ibqp->qp_type == IB_QPT_RAW_PACKET)
		err = mlx5_ib_query_raw_qp_state(dev, qp, &state);
	else
		err = mlx5_ib_query_qp_state(dev, qp, &state);
	if (err)
		return err;

	memset(init_attr, 0, sizeof(*init_attr));
	*attr = qp->attr;
	/* The caller gets no reference on the source GID's attributes. */
	attr->ah_attr.grh.sgid_attr = NULL;
	attr->qp_state = state;
	attr->cur_qp_state = state;
	attr->port_num = MLX5_IB_PORT;
	/* The rings as created (qp.c, qp_kern.c). */
	attr->cap = qp->cap;

	init_attr->qp_type = ibqp->qp_type;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = attr->cap;
	return 0;
}

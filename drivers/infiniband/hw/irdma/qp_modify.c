// SPDX-License-Identifier: GPL-2.0-only
/*
 * QP state changes and attributes.  The device's states differ from the
 * verbs': IDLE stands for INIT, and RESET, SQE and ERR are all its ERROR,
 * from which it never comes back: as with Debian's irdma, a QP that was
 * in error cannot be modified to INIT again (-EINVAL), and the verbs'
 * RESET only records the state.  Moving to error flushes both queues:
 * the device writes one flush entry per queue and poll drains the rest.
 *
 * Each MODIFY_QP carries the whole context, rebuilt from the attributes
 * kept in struct irdma_qp; a path (IB_QP_AV) becomes addresses, the
 * source MAC and VLAN of the GID, and an ARP entry of the destination
 * MAC (arp.c), which the device needs before RTR.
 *
 * Facts: the E810 scoping §3.5 (states, FLUSH_WQES), Debian's irdma
 * verbs.c (which transitions issue a command).
 */
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

#define IRDMA_FLUSH_HDR_SQ	BIT_ULL(61)
#define IRDMA_FLUSH_HDR_RQ	BIT_ULL(62)

/*
 * The device writes one flush entry on each queue named: the consumer
 * (poll, or libirdma) drains the rest from its own tail.
 */
int irdma_qp_flush(struct irdma_qp *qp, bool sq, bool rq)
{
	struct irdma_dev *dev = to_idev(qp->ibqp.device);
	struct irdma_cqp_cmd cmd;

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_FLUSH_WQES,
			   FIELD_PREP(IRDMA_QP_HDR_ID, qp->id) |
			   (sq ? IRDMA_FLUSH_HDR_SQ : 0) |
			   (rq ? IRDMA_FLUSH_HDR_RQ : 0));
	return irdma_cqp_exec(dev, &cmd);
}

/* The path of IB_QP_AV into the QP's addressing fields. */
static int irdma_qp_set_av(struct irdma_qp *qp, struct rdma_ah_attr *ah)
{
	struct irdma_dev *dev = to_idev(qp->ibqp.device);
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	struct irdma_path_addrs a;
	int err, idx;

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	err = irdma_path_addrs(grh, &a);
	if (err)
		return err;
	idx = irdma_arp_get(dev, a.dip, ah->roce.dmac);
	if (idx < 0)
		return idx;
	memcpy(qp->sip, a.sip, sizeof(qp->sip));
	memcpy(qp->dip, a.dip, sizeof(qp->dip));
	qp->ipv4 = a.ipv4;
	qp->arp_idx = idx;
	qp->vlan = a.vlan;
	ether_addr_copy(qp->smac, a.smac);
	qp->ttl = grh->hop_limit;
	qp->tos = grh->traffic_class;
	qp->flow_label = grh->flow_label;
	qp->sport = rdma_get_udp_sport(grh->flow_label, qp->id,
				       qp->dest_qpn);
	qp->av_valid = true;
	return 0;
}

/* The device's next state for a verbs transition; 0: no command. */
static int irdma_qp_next_hw_state(struct irdma_qp *qp, enum ib_qp_state to,
				  u8 *next)
{
	*next = 0;
	switch (to) {
	case IB_QPS_INIT:
		if (qp->hw_state > IRDMA_HW_QPS_IDLE)
			return -EINVAL;
		if (qp->hw_state == IRDMA_HW_QPS_INVALID)
			*next = IRDMA_HW_QPS_IDLE;
		return 0;
	case IB_QPS_RTR:
		if (qp->hw_state > IRDMA_HW_QPS_IDLE)
			return -EINVAL;
		*next = IRDMA_HW_QPS_RTR;
		return 0;
	case IB_QPS_RTS:
		if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
			return -EINVAL;
		*next = IRDMA_HW_QPS_RTS;
		return 0;
	case IB_QPS_SQD:
		if (qp->hw_state == IRDMA_HW_QPS_SQD)
			return 0;
		if (qp->hw_state != IRDMA_HW_QPS_RTS)
			return -EINVAL;
		*next = IRDMA_HW_QPS_SQD;
		return 0;
	case IB_QPS_RESET:
	case IB_QPS_SQE:
	case IB_QPS_ERR:
		if (qp->hw_state != IRDMA_HW_QPS_ERROR)
			*next = IRDMA_HW_QPS_ERROR;
		return 0;
	default:
		return -EINVAL;
	}
}

int irdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int mask, struct ib_udata *udata)
{
	struct irdma_modify_qp_req req = {};
	struct irdma_qp *qp = to_iqp(ibqp);
	enum ib_qp_state cur, to;
	u64 hdr = 0;
	u8 next = 0;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen) {
		if (udata->inlen < offsetofend(struct irdma_modify_qp_req,
					       rq_flush))
			return -EINVAL;
		err = ib_copy_from_udata(&req, udata,
					 min(sizeof(req), udata->inlen));
		if (err)
			return err;
	}
	if (udata && udata->outlen) {
		struct irdma_modify_qp_resp resp = {};

		/* No push pages: nothing to say but that. */
		if (udata->outlen < offsetofend(struct irdma_modify_qp_resp,
						push_valid))
			return -EINVAL;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err)
			return err;
	}

	mutex_lock(&qp->mutex);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	to = mask & IB_QP_STATE ? attr->qp_state : cur;
	err = -EINVAL;
	if (!ib_modify_qp_is_ok(cur, to, ibqp->qp_type, mask))
		goto out;
	if (mask & IB_QP_PORT && attr->port_num != IRDMA_PORT)
		goto out;
	if (mask & IB_QP_PKEY_INDEX && attr->pkey_index)
		goto out;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > IRDMA_MAX_ORD)
		goto out;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > IRDMA_MAX_IRD)
		goto out;
	if (mask & IB_QP_STATE) {
		err = irdma_qp_next_hw_state(qp, to, &next);
		if (err)
			goto out;
		/*
		 * Already in error: libirdma asks for a flush entry again
		 * ("reflush") when it posted work after the first one.
		 */
		if (!next && qp->hw_state == IRDMA_HW_QPS_ERROR) {
			qp->state = to;
			if (req.sq_flush || req.rq_flush)
				err = irdma_qp_flush(qp, req.sq_flush,
						     req.rq_flush);
			goto out;
		}
	}

	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn;
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn;
	if (mask & IB_QP_PATH_MTU)
		qp->pmtu = ib_mtu_enum_to_int(attr->path_mtu);
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = max_t(u8, attr->max_rd_atomic, 1);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_AV) {
		err = irdma_qp_set_av(qp, &attr->ah_attr);
		if (err)
			goto out;
	}

	if (next) {
		if (next == IRDMA_HW_QPS_RTR || next == IRDMA_HW_QPS_RTS)
			hdr |= qp->av_valid ? IRDMA_QP_HDR_ARPTABIDXVALID : 0;
		err = irdma_qp_hw_cmd(qp, IRDMA_CQP_OP_MODIFY_QP, next, hdr);
		if (err)
			goto out;
		qp->hw_state = next;
		if (next == IRDMA_HW_QPS_ERROR)
			irdma_qp_flush(qp, true, true);
	}
	qp->state = to;
	err = 0;
out:
	mutex_unlock(&qp->mutex);
	return err;
}

int irdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct irdma_qp *qp = to_iqp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	mutex_lock(&qp->mutex);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = ib_mtu_int_to_enum(qp->pmtu);
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	attr->port_num = IRDMA_PORT;
	attr->cap = qp->cap;
	mutex_unlock(&qp->mutex);

	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
			    IB_SIGNAL_REQ_WR;
	return 0;
}

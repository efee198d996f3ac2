// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_cm_init_qp_attr(): the QP attributes a connection's state implies,
 * for the consumer's ib_modify_qp() to INIT, RTR and RTS.
 *
 * PSNs: the starting PSN we advertised (in our REQ or REP) is where our
 * receive queue starts (rq_psn, set at RTR); the peer's advertised one is
 * where our send queue starts (sq_psn, set at RTS).
 */
#include "cm_priv.h"
#include "cm_trace.h"

/* The states in which the id knows enough about the connection. */
static bool cm_state_has_conn(enum ib_cm_state state, bool req_sent_ok)
{
	switch (state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		return req_sent_ok;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
	case IB_CM_ESTABLISHED:
		return true;
	default:
		return false;
	}
}

static int cm_qp_init_attr(struct cmid *cmid, struct ib_qp_attr *attr,
			   int *mask)
{
	lockdep_assert_held(&cmid->lock);

	/* The active side may go to INIT as soon as it sent its REQ. */
	if (!cm_state_has_conn(cmid->id.state, true)) {
		trace_icm_qp_init_err(&cmid->id);
		return -EINVAL;
	}
	*mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX |
		IB_QP_PORT;
	attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	/* Reads and atomics only if the peer may issue any. */
	if (cmid->responder_resources)
		attr->qp_access_flags |= IB_ACCESS_REMOTE_READ |
					 IB_ACCESS_REMOTE_ATOMIC;
	attr->pkey_index = cmid->av.pkey_index;
	if (cmid->av.port)
		attr->port_num = cmid->av.port->num;
	return 0;
}

static bool cm_has_alt_path(struct cmid *cmid)
{
	return rdma_ah_get_dlid(&cmid->alt_av.ah) && cmid->alt_av.port;
}

static void cm_qp_alt_path(struct cmid *cmid, struct ib_qp_attr *attr)
{
	if (cmid->alt_av.port)
		attr->alt_port_num = cmid->alt_av.port->num;
	attr->alt_pkey_index = cmid->alt_av.pkey_index;
	attr->alt_timeout = cmid->alt_av.timeout;
	attr->alt_ah_attr = cmid->alt_av.ah;
}

static int cm_qp_rtr_attr(struct cmid *cmid, struct ib_qp_attr *attr,
			  int *mask)
{
	lockdep_assert_held(&cmid->lock);

	if (!cm_state_has_conn(cmid->id.state, false)) {
		trace_icm_qp_rtr_err(&cmid->id);
		return -EINVAL;
	}
	*mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
		IB_QP_RQ_PSN;
	/* A copy without its own GID reference: valid while the id is. */
	attr->ah_attr = cmid->av.ah;
	if (attr->ah_attr.type == RDMA_AH_ATTR_TYPE_IB &&
	    cmid->av.dlid_datapath && cmid->av.dlid_datapath != 0xffff)
		attr->ah_attr.ib.dlid = cmid->av.dlid_datapath;
	attr->path_mtu = cmid->path_mtu;
	attr->dest_qp_num = be32_to_cpu(cmid->remote_qpn);
	attr->rq_psn = be32_to_cpu(cmid->rq_psn);
	if (cmid->qp_type == IB_QPT_RC || cmid->qp_type == IB_QPT_XRC_TGT) {
		*mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
		attr->max_dest_rd_atomic = cmid->responder_resources;
		attr->min_rnr_timer = 0;
	}
	if (cm_has_alt_path(cmid)) {
		*mask |= IB_QP_ALT_PATH;
		cm_qp_alt_path(cmid, attr);
	}
	return 0;
}

static int cm_qp_rts_attr(struct cmid *cmid, struct ib_qp_attr *attr,
			  int *mask)
{
	lockdep_assert_held(&cmid->lock);

	/* The passive side may go to RTS before it sends its REP. */
	if (!cm_state_has_conn(cmid->id.state, false)) {
		trace_icm_qp_rts_err(&cmid->id);
		return -EINVAL;
	}

	if (cmid->id.lap_state != IB_CM_LAP_UNINIT) {
		/* After a LAP: only the new alternate path, re-armed. */
		*mask = IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE;
		cm_qp_alt_path(cmid, attr);
		attr->path_mig_state = IB_MIG_REARM;
		return 0;
	}

	*mask = IB_QP_STATE | IB_QP_SQ_PSN;
	attr->sq_psn = be32_to_cpu(cmid->sq_psn);
	switch (cmid->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_XRC_INI:
		*mask |= IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			 IB_QP_MAX_QP_RD_ATOMIC;
		attr->retry_cnt = cmid->retry_count;
		attr->rnr_retry = cmid->rnr_retry_count;
		attr->max_rd_atomic = cmid->initiator_depth;
		fallthrough;
	case IB_QPT_XRC_TGT:
		*mask |= IB_QP_TIMEOUT;
		attr->timeout = cmid->av.timeout;
		break;
	default:
		break;
	}
	if (rdma_ah_get_dlid(&cmid->alt_av.ah)) {
		*mask |= IB_QP_PATH_MIG_STATE;
		attr->path_mig_state = IB_MIG_REARM;
	}
	return 0;
}

/**
 * ib_cm_init_qp_attr - the attributes to move a connection's QP
 * @cm_id: the connection's id
 * @qp_attr: in: the QP state wanted (INIT, RTR or RTS); out: attributes
 * @qp_attr_mask: out: which of them to apply
 *
 * Return: 0, or -EINVAL for another QP state or an id not far enough.
 */
int ib_cm_init_qp_attr(struct ib_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct cmid *cmid = to_cmid(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&cmid->lock, flags);
	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
		ret = cm_qp_init_attr(cmid, qp_attr, qp_attr_mask);
		break;
	case IB_QPS_RTR:
		ret = cm_qp_rtr_attr(cmid, qp_attr, qp_attr_mask);
		break;
	case IB_QPS_RTS:
		ret = cm_qp_rts_attr(cmid, qp_attr, qp_attr_mask);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	spin_unlock_irqrestore(&cmid->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_init_qp_attr);

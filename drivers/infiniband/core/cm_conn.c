// SPDX-License-Identifier: GPL-2.0-only
/*
 * Connection establishment after the REQ (IBTA vol. 1, 12.6 and 12.9):
 * MRA, REJ, REP and RTU, sent by the consumer's calls and received from
 * the peer, with the checks for duplicate REPs and stale connections.
 * The REQ itself is cm_req.c's.
 *
 *	active:  IDLE -REQ-> REQ_SENT -REP-> REP_RCVD -RTU-> ESTABLISHED
 *	passive: (REQ) REQ_RCVD -REP-> REP_SENT -RTU-> ESTABLISHED
 * An MRA stretches the wait (MRA_*); a REJ ends in IDLE or TIMEWAIT.
 */
#include <linux/slab.h>
#include <asm/unaligned.h>

#include "cm_priv.h"
#include "cm_trace.h"

/* Back to IDLE, forgetting the connection.  Under cmid->lock. */
void cm_reset_to_idle(struct cmid *cmid)
{
	lockdep_assert_held(&cmid->lock);

	cmid->id.state = IB_CM_IDLE;
	if (cmid->tw) {
		spin_lock(&icm.lock);
		cm_remove_remote(cmid->tw);
		spin_unlock(&icm.lock);
		kfree(cmid->tw);
		cmid->tw = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Messages answering a REQ or a REP                                    */

void cm_format_mra(struct cm_mra_msg *mra, struct cmid *cmid,
		   enum cm_msg_response mraed, u8 service_timeout,
		   const void *pdata, u8 pdata_len)
{
	cm_mad_hdr(&mra->hdr, CM_MRA_ATTR_ID, cmid->tid, 0);
	IBA_SET(CM_MRA_MESSAGE_MRAED, mra, mraed);
	IBA_SET(CM_MRA_LOCAL_COMM_ID, mra, be32_to_cpu(cmid->id.local_id));
	IBA_SET(CM_MRA_REMOTE_COMM_ID, mra, be32_to_cpu(cmid->id.remote_id));
	IBA_SET(CM_MRA_SERVICE_TIMEOUT, mra, service_timeout);
	if (pdata && pdata_len)
		IBA_SET_MEM(CM_MRA_PRIVATE_DATA, mra, pdata, pdata_len);
}

void cm_format_rej(struct cm_rej_msg *rej, struct cmid *cmid,
		   enum ib_cm_rej_reason reason, void *ari, u8 ari_length,
		   const void *pdata, u8 pdata_len, enum ib_cm_state state)
{
	enum cm_msg_response rejected = CM_MSG_RESPONSE_OTHER;
	u32 local_id = be32_to_cpu(cmid->id.local_id);

	lockdep_assert_held(&cmid->lock);

	switch (state) {
	case IB_CM_REQ_RCVD:
		/* The peer never learnt our comm ID. */
		local_id = 0;
		fallthrough;
	case IB_CM_MRA_REQ_SENT:
		rejected = CM_MSG_RESPONSE_REQ;
		break;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		rejected = CM_MSG_RESPONSE_REP;
		break;
	default:
		break;
	}

	cm_mad_hdr(&rej->hdr, CM_REJ_ATTR_ID, cmid->tid, 0);
	IBA_SET(CM_REJ_LOCAL_COMM_ID, rej, local_id);
	IBA_SET(CM_REJ_REMOTE_COMM_ID, rej, be32_to_cpu(cmid->id.remote_id));
	IBA_SET(CM_REJ_MESSAGE_REJECTED, rej, rejected);
	IBA_SET(CM_REJ_REASON, rej, reason);
	if (ari && ari_length) {
		IBA_SET(CM_REJ_REJECTED_INFO_LENGTH, rej, ari_length);
		IBA_SET_MEM(CM_REJ_ARI, rej, ari, ari_length);
	}
	if (pdata && pdata_len)
		IBA_SET_MEM(CM_REJ_PRIVATE_DATA, rej, pdata, pdata_len);
}

/* ------------------------------------------------------------------ */
/* REP                                                                 */

static void cm_format_rep(struct cm_rep_msg *rep, struct cmid *cmid,
			  struct ib_cm_rep_param *param)
{
	cm_mad_hdr(&rep->hdr, CM_REP_ATTR_ID, cmid->tid, param->ece.attr_mod);
	IBA_SET(CM_REP_LOCAL_COMM_ID, rep, be32_to_cpu(cmid->id.local_id));
	IBA_SET(CM_REP_REMOTE_COMM_ID, rep, be32_to_cpu(cmid->id.remote_id));
	IBA_SET(CM_REP_STARTING_PSN, rep, param->starting_psn);
	IBA_SET(CM_REP_RESPONDER_RESOURCES, rep, param->responder_resources);
	IBA_SET(CM_REP_TARGET_ACK_DELAY, rep, cmid->av.port->dev->ack_delay);
	IBA_SET(CM_REP_FAILOVER_ACCEPTED, rep, param->failover_accepted);
	IBA_SET(CM_REP_RNR_RETRY_COUNT, rep, param->rnr_retry_count);
	IBA_SET(CM_REP_LOCAL_CA_GUID, rep,
		be64_to_cpu(cmid->id.device->node_guid));
	if (cmid->qp_type == IB_QPT_XRC_TGT) {
		/* An XRC target's number goes in the EE context field. */
		IBA_SET(CM_REP_SRQ, rep, 1);
		IBA_SET(CM_REP_LOCAL_EE_CONTEXT_NUMBER, rep, param->qp_num);
	} else {
		IBA_SET(CM_REP_INITIATOR_DEPTH, rep, param->initiator_depth);
		IBA_SET(CM_REP_END_TO_END_FLOW_CONTROL, rep,
			param->flow_control);
		IBA_SET(CM_REP_SRQ, rep, param->srq);
		IBA_SET(CM_REP_LOCAL_QPN, rep, param->qp_num);
	}
	/* The 24-bit vendor ID, split over three bytes. */
	IBA_SET(CM_REP_VENDOR_ID_H, rep, (param->ece.vendor_id >> 16) & 0xff);
	IBA_SET(CM_REP_VENDOR_ID_M, rep, (param->ece.vendor_id >> 8) & 0xff);
	IBA_SET(CM_REP_VENDOR_ID_L, rep, param->ece.vendor_id & 0xff);
	if (param->private_data && param->private_data_len)
		IBA_SET_MEM(CM_REP_PRIVATE_DATA, rep, param->private_data,
			    param->private_data_len);
}

/**
 * ib_send_cm_rep - accept a connection request
 * @cm_id: an id in REQ_RCVD or MRA_REQ_SENT
 * @param: our QP and what we grant
 *
 * Return: 0 (the id is in REP_SENT), or a negative errno.
 */
int ib_send_cm_rep(struct ib_cm_id *cm_id, struct ib_cm_rep_param *param)
{
	struct cmid *cmid = to_cmid(cm_id);
	struct ib_mad_send_buf *msg;
	struct cm_rep_msg *rep;
	unsigned long flags;
	int ret;

	if (param->private_data &&
	    param->private_data_len > IB_CM_REP_PRIVATE_DATA_SIZE)
		return -EINVAL;

	spin_lock_irqsave(&cmid->lock, flags);
	if (cm_id->state != IB_CM_REQ_RCVD &&
	    cm_id->state != IB_CM_MRA_REQ_SENT) {
		trace_icm_send_rep_err(cm_id->local_id, cm_id->state);
		ret = -EINVAL;
		goto out;
	}

	msg = cm_msg_alloc_priv(cmid);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto out;
	}
	rep = msg->mad;
	cm_format_rep(rep, cmid, param);
	msg->timeout_ms = cmid->timeout_ms;
	msg->context[1] = (void *)(unsigned long)IB_CM_REP_SENT;

	trace_icm_send_rep(cm_id);
	ret = ib_post_send_mad(msg, NULL);
	if (ret) {
		cm_msg_free_priv(msg);
		goto out;
	}
	cm_id->state = IB_CM_REP_SENT;
	cmid->initiator_depth = param->initiator_depth;
	cmid->responder_resources = param->responder_resources;
	/* Our starting PSN is the one we receive with. */
	cmid->rq_psn = cpu_to_be32(IBA_GET(CM_REP_STARTING_PSN, rep));
	WARN_ONCE(param->qp_num & 0xff000000,
		  "ib_cm: QPN 0x%x does not fit in 24 bits\n", param->qp_num);
	cmid->local_qpn = cpu_to_be32(param->qp_num & 0xffffff);
out:
	spin_unlock_irqrestore(&cmid->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rep);

static void cm_rep_event(struct cm_work *work, enum ib_qp_type qp_type)
{
	struct cm_rep_msg *rep = (struct cm_rep_msg *)work->rwc->recv_buf.mad;
	struct ib_cm_rep_event_param *p = &work->ev.param.rep_rcvd;

	p->remote_ca_guid = cpu_to_be64(IBA_GET(CM_REP_LOCAL_CA_GUID, rep));
	p->remote_qkey = IBA_GET(CM_REP_LOCAL_Q_KEY, rep);
	p->remote_qpn = be32_to_cpu(cm_rep_qpn(rep, qp_type));
	p->starting_psn = IBA_GET(CM_REP_STARTING_PSN, rep);
	/* The sender's view, turned around to ours. */
	p->responder_resources = IBA_GET(CM_REP_INITIATOR_DEPTH, rep);
	p->initiator_depth = IBA_GET(CM_REP_RESPONDER_RESOURCES, rep);
	p->target_ack_delay = IBA_GET(CM_REP_TARGET_ACK_DELAY, rep);
	p->failover_accepted = IBA_GET(CM_REP_FAILOVER_ACCEPTED, rep);
	p->flow_control = IBA_GET(CM_REP_END_TO_END_FLOW_CONTROL, rep);
	p->rnr_retry_count = IBA_GET(CM_REP_RNR_RETRY_COUNT, rep);
	p->srq = IBA_GET(CM_REP_SRQ, rep);
	p->ece.vendor_id = IBA_GET(CM_REP_VENDOR_ID_H, rep) << 16 |
			   IBA_GET(CM_REP_VENDOR_ID_M, rep) << 8 |
			   IBA_GET(CM_REP_VENDOR_ID_L, rep);
	p->ece.attr_mod = be32_to_cpu(rep->hdr.attr_mod);
	work->ev.private_data = IBA_GET_MEM_PTR(CM_REP_PRIVATE_DATA, rep);
}

static void cm_format_rtu(struct cm_rtu_msg *rtu, struct cmid *cmid,
			  const void *pdata, u8 pdata_len)
{
	cm_mad_hdr(&rtu->hdr, CM_RTU_ATTR_ID, cmid->tid, 0);
	IBA_SET(CM_RTU_LOCAL_COMM_ID, rtu, be32_to_cpu(cmid->id.local_id));
	IBA_SET(CM_RTU_REMOTE_COMM_ID, rtu, be32_to_cpu(cmid->id.remote_id));
	if (pdata && pdata_len)
		IBA_SET_MEM(CM_RTU_PRIVATE_DATA, rtu, pdata, pdata_len);
}

/* A REP we already answered: answer it again (RTU, or our MRA). */
static void cm_rep_duplicate(struct cm_work *work)
{
	struct cm_rep_msg *rep = (struct cm_rep_msg *)work->rwc->recv_buf.mad;
	struct ib_mad_send_buf *msg;
	struct cmid *cmid;

	cmid = cmid_acquire(cpu_to_be32(IBA_GET(CM_REP_REMOTE_COMM_ID, rep)),
			    cpu_to_be32(IBA_GET(CM_REP_LOCAL_COMM_ID, rep)));
	if (!cmid)
		return;

	cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_REP);
	if (cm_resp_alloc(work->port, work->rwc, &msg))
		goto out;

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state == IB_CM_ESTABLISHED) {
		cm_format_rtu(msg->mad, cmid, cmid->pdata, cmid->pdata_len);
	} else if (cmid->id.state == IB_CM_MRA_REP_SENT) {
		cm_format_mra(msg->mad, cmid, CM_MSG_RESPONSE_REP,
			      cmid->service_timeout, cmid->pdata,
			      cmid->pdata_len);
	} else {
		spin_unlock_irq(&cmid->lock);
		cm_resp_free(msg);
		goto out;
	}
	spin_unlock_irq(&cmid->lock);

	trace_icm_send_dup_rep(&cmid->id);
	if (ib_post_send_mad(msg, NULL))
		cm_resp_free(msg);
out:
	cmid_put(cmid);
}

int cm_rep_recv(struct cm_work *work)
{
	struct cm_rep_msg *rep = (struct cm_rep_msg *)work->rwc->recv_buf.mad;
	__be32 our_id = cpu_to_be32(IBA_GET(CM_REP_REMOTE_COMM_ID, rep));
	__be32 their_id = cpu_to_be32(IBA_GET(CM_REP_LOCAL_COMM_ID, rep));
	struct cm_timewait *other;
	struct cmid *cmid, *old;
	int ret = -EINVAL;

	/* An id that already knows its peer got this REP before. */
	cmid = cmid_acquire(our_id, 0);
	if (!cmid) {
		cm_rep_duplicate(work);
		trace_icm_remote_no_priv_err(be32_to_cpu(our_id));
		return -EINVAL;
	}

	cm_rep_event(work, cmid->qp_type);

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state != IB_CM_REQ_SENT &&
	    cmid->id.state != IB_CM_MRA_REQ_RCVD) {
		trace_icm_rep_unknown_err(be32_to_cpu(their_id),
					  be32_to_cpu(our_id), cmid->id.state);
		goto err_unlock;
	}

	cmid->tw->ev.remote_id = their_id;
	cmid->tw->remote_ca_guid =
		cpu_to_be64(IBA_GET(CM_REP_LOCAL_CA_GUID, rep));
	cmid->tw->remote_qpn = cm_rep_qpn(rep, cmid->qp_type);

	spin_lock(&icm.lock);
	if (cm_insert_remote_id(cmid->tw)) {
		spin_unlock(&icm.lock);
		trace_icm_insert_failed_err(be32_to_cpu(our_id));
		goto err_unlock;
	}
	other = cm_insert_remote_qpn(cmid->tw);
	if (other) {
		/* The peer's QP is still ours in another connection. */
		cm_remove_remote(cmid->tw);
		old = cmid_acquire(other->ev.local_id, other->ev.remote_id);
		spin_unlock(&icm.lock);
		spin_unlock_irq(&cmid->lock);
		cm_issue_rej(work->port, work->rwc, IB_CM_REJ_STALE_CONN,
			     CM_MSG_RESPONSE_REP, NULL, 0);
		trace_icm_staleconn_err(be32_to_cpu(their_id),
					be32_to_cpu(our_id));
		if (old) {
			ib_send_cm_dreq(&old->id, NULL, 0);
			cmid_put(old);
		}
		goto err;
	}
	spin_unlock(&icm.lock);

	cmid->id.state = IB_CM_REP_RCVD;
	cmid->id.remote_id = their_id;
	cmid->remote_qpn = cm_rep_qpn(rep, cmid->qp_type);
	cmid->initiator_depth = IBA_GET(CM_REP_RESPONDER_RESOURCES, rep);
	cmid->responder_resources = IBA_GET(CM_REP_INITIATOR_DEPTH, rep);
	/* The peer sends from its starting PSN: our send queue's peer. */
	cmid->sq_psn = cpu_to_be32(IBA_GET(CM_REP_STARTING_PSN, rep));
	cmid->rnr_retry_count = IBA_GET(CM_REP_RNR_RETRY_COUNT, rep);
	cmid->target_ack_delay = IBA_GET(CM_REP_TARGET_ACK_DELAY, rep);
	/* Now the target's ACK delay is known: the real ACK timeouts. */
	cmid->av.timeout = cm_ack_timeout(cmid->target_ack_delay,
					  cmid->av.timeout - 1);
	cmid->alt_av.timeout = cm_ack_timeout(cmid->target_ack_delay,
					      cmid->alt_av.timeout - 1);

	cm_cancel_msg(cmid);
	cm_deliver_unlock(cmid, work);
	return 0;

err_unlock:
	spin_unlock_irq(&cmid->lock);
err:
	cmid_put(cmid);
	return ret;
}

/* ------------------------------------------------------------------ */
/* RTU and established                                                 */

/**
 * ib_send_cm_rtu - confirm an accepted connection
 * @cm_id: an id in REP_RCVD or MRA_REP_SENT
 * @private_data: kept to answer duplicate REPs with
 * @private_data_len: its length
 *
 * Return: 0 (the id is ESTABLISHED), or a negative errno.
 */
int ib_send_cm_rtu(struct ib_cm_id *cm_id, const void *private_data,
		   u8 private_data_len)
{
	struct cmid *cmid = to_cmid(cm_id);
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	void *pdata;
	int ret;

	if (private_data && private_data_len > IB_CM_RTU_PRIVATE_DATA_SIZE)
		return -EINVAL;
	pdata = cm_dup_pdata(private_data, private_data_len);
	if (IS_ERR(pdata))
		return PTR_ERR(pdata);

	spin_lock_irqsave(&cmid->lock, flags);
	if (cm_id->state != IB_CM_REP_RCVD &&
	    cm_id->state != IB_CM_MRA_REP_SENT) {
		trace_icm_send_cm_rtu_err(cm_id);
		ret = -EINVAL;
		goto err;
	}
	msg = cm_msg_alloc(cmid);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto err;
	}
	cm_format_rtu(msg->mad, cmid, private_data, private_data_len);

	trace_icm_send_rtu(cm_id);
	ret = ib_post_send_mad(msg, NULL);
	if (ret) {
		spin_unlock_irqrestore(&cmid->lock, flags);
		cm_msg_free(msg);
		kfree(pdata);
		return ret;
	}
	cm_id->state = IB_CM_ESTABLISHED;
	cm_set_pdata(cmid, pdata, private_data_len);
	spin_unlock_irqrestore(&cmid->lock, flags);
	return 0;

err:
	spin_unlock_irqrestore(&cmid->lock, flags);
	kfree(pdata);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rtu);

int cm_rtu_recv(struct cm_work *work)
{
	struct cm_rtu_msg *rtu = (struct cm_rtu_msg *)work->rwc->recv_buf.mad;
	struct cmid *cmid;

	cmid = cmid_acquire(cpu_to_be32(IBA_GET(CM_RTU_REMOTE_COMM_ID, rtu)),
			    cpu_to_be32(IBA_GET(CM_RTU_LOCAL_COMM_ID, rtu)));
	if (!cmid)
		return -EINVAL;

	work->ev.private_data = IBA_GET_MEM_PTR(CM_RTU_PRIVATE_DATA, rtu);

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state != IB_CM_REP_SENT &&
	    cmid->id.state != IB_CM_MRA_REP_RCVD) {
		/* ESTABLISHED already (a repeated RTU, or COMM_EST). */
		spin_unlock_irq(&cmid->lock);
		cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_RTU);
		cmid_put(cmid);
		return -EINVAL;
	}
	cmid->id.state = IB_CM_ESTABLISHED;
	cm_cancel_msg(cmid);
	cm_deliver_unlock(cmid, work);
	return 0;
}

/* ib_cm_notify(COMM_EST)'s event, found again by comm IDs (it may be gone). */
int cm_established_recv(struct cm_work *work)
{
	struct cmid *cmid;

	cmid = cmid_acquire(work->local_id, work->remote_id);
	if (!cmid)
		return -EINVAL;

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state != IB_CM_ESTABLISHED) {
		spin_unlock_irq(&cmid->lock);
		cmid_put(cmid);
		return -EINVAL;
	}
	cm_cancel_msg(cmid);
	cm_deliver_unlock(cmid, work);
	return 0;
}

/* ------------------------------------------------------------------ */
/* MRA                                                                 */

/**
 * ib_send_cm_mra - ask the peer to wait longer for our answer
 * @cm_id: an id in REQ_RCVD, REP_RCVD, or ESTABLISHED with a LAP received
 * @service_timeout: how long (IBA exponent) in the low 5 bits; with
 *	IB_CM_MRA_FLAG_DELAY the MRA is sent only when a duplicate arrives
 * @private_data: kept to repeat the MRA with
 * @private_data_len: its length
 */
int ib_send_cm_mra(struct ib_cm_id *cm_id, u8 service_timeout,
		   const void *private_data, u8 private_data_len)
{
	struct cmid *cmid = to_cmid(cm_id);
	enum ib_cm_lap_state lap_state = cm_id->lap_state;
	enum cm_msg_response mraed;
	struct ib_mad_send_buf *msg;
	enum ib_cm_state state;
	unsigned long flags;
	void *pdata;
	int ret;

	if (private_data && private_data_len > IB_CM_MRA_PRIVATE_DATA_SIZE)
		return -EINVAL;
	pdata = cm_dup_pdata(private_data, private_data_len);
	if (IS_ERR(pdata))
		return PTR_ERR(pdata);

	spin_lock_irqsave(&cmid->lock, flags);
	lap_state = cm_id->lap_state;
	switch (cm_id->state) {
	case IB_CM_REQ_RCVD:
		state = IB_CM_MRA_REQ_SENT;
		mraed = CM_MSG_RESPONSE_REQ;
		break;
	case IB_CM_REP_RCVD:
		state = IB_CM_MRA_REP_SENT;
		mraed = CM_MSG_RESPONSE_REP;
		break;
	case IB_CM_ESTABLISHED:
		if (cm_id->lap_state == IB_CM_LAP_RCVD) {
			state = IB_CM_ESTABLISHED;
			lap_state = IB_CM_MRA_LAP_SENT;
			mraed = CM_MSG_RESPONSE_OTHER;
			break;
		}
		fallthrough;
	default:
		trace_icm_send_mra_unknown_err(cm_id);
		ret = -EINVAL;
		goto err;
	}

	if (!(service_timeout & IB_CM_MRA_FLAG_DELAY)) {
		msg = cm_msg_alloc(cmid);
		if (IS_ERR(msg)) {
			ret = PTR_ERR(msg);
			goto err;
		}
		cm_format_mra(msg->mad, cmid, mraed, service_timeout,
			      private_data, private_data_len);
		trace_icm_send_mra(cm_id);
		ret = ib_post_send_mad(msg, NULL);
		if (ret) {
			cm_msg_free(msg);
			goto err;
		}
	}

	cm_id->state = state;
	cm_id->lap_state = lap_state;
	cmid->service_timeout = service_timeout;
	cm_set_pdata(cmid, pdata, private_data_len);
	spin_unlock_irqrestore(&cmid->lock, flags);
	return 0;

err:
	spin_unlock_irqrestore(&cmid->lock, flags);
	kfree(pdata);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_mra);

int cm_mra_recv(struct cm_work *work)
{
	struct cm_mra_msg *mra = (struct cm_mra_msg *)work->rwc->recv_buf.mad;
	__be32 our_id = cpu_to_be32(IBA_GET(CM_MRA_REMOTE_COMM_ID, mra));
	__be32 their_id = cpu_to_be32(IBA_GET(CM_MRA_LOCAL_COMM_ID, mra));
	enum cm_msg_response mraed = IBA_GET(CM_MRA_MESSAGE_MRAED, mra);
	u8 service_timeout = IBA_GET(CM_MRA_SERVICE_TIMEOUT, mra);
	struct cmid *cmid;
	int timeout;

	switch (mraed) {
	case CM_MSG_RESPONSE_REQ:
		/* The peer's comm ID is not ours to know yet. */
		cmid = cmid_acquire(our_id, 0);
		break;
	case CM_MSG_RESPONSE_REP:
	case CM_MSG_RESPONSE_OTHER:
		cmid = cmid_acquire(our_id, their_id);
		break;
	default:
		return -EINVAL;
	}
	if (!cmid)
		return -EINVAL;

	work->ev.private_data = IBA_GET_MEM_PTR(CM_MRA_PRIVATE_DATA, mra);
	work->ev.param.mra_rcvd.service_timeout = service_timeout;

	spin_lock_irq(&cmid->lock);
	/* Wait for the service time plus the way back. */
	timeout = cm_ms(service_timeout) + cm_ms(cmid->av.timeout);
	switch (cmid->id.state) {
	case IB_CM_REQ_SENT:
		if (mraed != CM_MSG_RESPONSE_REQ ||
		    cm_extend_msg(cmid, timeout))
			goto drop;
		cmid->id.state = IB_CM_MRA_REQ_RCVD;
		break;
	case IB_CM_REP_SENT:
		if (mraed != CM_MSG_RESPONSE_REP ||
		    cm_extend_msg(cmid, timeout))
			goto drop;
		cmid->id.state = IB_CM_MRA_REP_RCVD;
		break;
	case IB_CM_ESTABLISHED:
		if (mraed != CM_MSG_RESPONSE_OTHER ||
		    cmid->id.lap_state != IB_CM_LAP_SENT ||
		    cm_extend_msg(cmid, timeout)) {
			if (cmid->id.lap_state == IB_CM_MRA_LAP_RCVD)
				cm_count(work->port, CM_CNT_RX_DUPS,
					 CM_CNT_MRA);
			goto drop;
		}
		cmid->id.lap_state = IB_CM_MRA_LAP_RCVD;
		break;
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_MRA_REP_RCVD:
		cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_MRA);
		fallthrough;
	default:
		trace_icm_mra_unknown_err(&cmid->id);
		goto drop;
	}

	/* The wait goes on in the new state: its timeout belongs to it. */
	cmid->msg->context[1] = (void *)(unsigned long)cmid->id.state;
	cm_deliver_unlock(cmid, work);
	return 0;

drop:
	spin_unlock_irq(&cmid->lock);
	cmid_put(cmid);
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* REJ                                                                 */

/**
 * cm_rej_locked - reject in the id's current state
 * @cmid: the id, locked
 * @reason: the REJ reason
 * @ari: additional reject information, or NULL
 * @ari_length: its length
 * @pdata: private data, or NULL
 * @pdata_len: its length
 *
 * Before our REP the id goes back to IDLE; after it, into TIMEWAIT (the
 * peer may have a QP in use).
 */
int cm_rej_locked(struct cmid *cmid, enum ib_cm_rej_reason reason,
		  void *ari, u8 ari_length, const void *pdata, u8 pdata_len)
{
	enum ib_cm_state state = cmid->id.state;
	struct ib_mad_send_buf *msg;
	int ret;

	lockdep_assert_held(&cmid->lock);

	if ((pdata && pdata_len > IB_CM_REJ_PRIVATE_DATA_SIZE) ||
	    (ari && ari_length > IB_CM_REJ_ARI_LENGTH))
		return -EINVAL;

	trace_icm_send_rej(&cmid->id, reason);

	switch (state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		cm_reset_to_idle(cmid);
		break;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_enter_timewait(cmid);
		break;
	default:
		trace_icm_send_unknown_rej_err(&cmid->id);
		return -EINVAL;
	}

	msg = cm_msg_alloc(cmid);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	cm_format_rej(msg->mad, cmid, reason, ari, ari_length, pdata,
		      pdata_len, state);
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		cm_msg_free(msg);
	return ret;
}

/**
 * ib_send_cm_rej - reject a connection request or reply
 * @cm_id: the id
 * @reason: the REJ reason
 * @ari: additional reject information (up to IB_CM_REJ_ARI_LENGTH)
 * @ari_length: its length
 * @private_data: private data (up to IB_CM_REJ_PRIVATE_DATA_SIZE)
 * @private_data_len: its length
 */
int ib_send_cm_rej(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason,
		   void *ari, u8 ari_length, const void *private_data,
		   u8 private_data_len)
{
	struct cmid *cmid = to_cmid(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&cmid->lock, flags);
	ret = cm_rej_locked(cmid, reason, ari, ari_length, private_data,
			    private_data_len);
	spin_unlock_irqrestore(&cmid->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rej);

/* The id a REJ is for, by what the REJ knows of it. */
static struct cmid *cm_rej_target(struct cm_rej_msg *rej)
{
	__be32 our_id = cpu_to_be32(IBA_GET(CM_REJ_REMOTE_COMM_ID, rej));
	__be32 their_id = cpu_to_be32(IBA_GET(CM_REJ_LOCAL_COMM_ID, rej));
	__be64 guid;

	if (IBA_GET(CM_REJ_REASON, rej) == IB_CM_REJ_TIMEOUT) {
		/* Sent by an active side that gave up: its ARI is its GUID. */
		guid = get_unaligned((__be64 *)IBA_GET_MEM_PTR(CM_REJ_ARI, rej));
		return cm_acquire_by_remote_id(guid, their_id);
	}
	if (IBA_GET(CM_REJ_MESSAGE_REJECTED, rej) == CM_MSG_RESPONSE_REQ)
		return cmid_acquire(our_id, 0);
	return cmid_acquire(our_id, their_id);
}

int cm_rej_recv(struct cm_work *work)
{
	struct cm_rej_msg *rej = (struct cm_rej_msg *)work->rwc->recv_buf.mad;
	enum ib_cm_rej_reason reason = IBA_GET(CM_REJ_REASON, rej);
	struct ib_cm_rej_event_param *p = &work->ev.param.rej_rcvd;
	struct cmid *cmid;

	cmid = cm_rej_target(rej);
	if (!cmid)
		return -EINVAL;

	p->reason = reason;
	p->ari = IBA_GET_MEM_PTR(CM_REJ_ARI, rej);
	p->ari_length = IBA_GET(CM_REJ_REJECTED_INFO_LENGTH, rej);
	work->ev.private_data = IBA_GET_MEM_PTR(CM_REJ_PRIVATE_DATA, rej);

	spin_lock_irq(&cmid->lock);
	switch (cmid->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(cmid);
		fallthrough;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
		if (reason == IB_CM_REJ_STALE_CONN)
			cm_enter_timewait(cmid);
		else
			cm_reset_to_idle(cmid);
		break;
	case IB_CM_DREQ_SENT:
		cm_cancel_msg(cmid);
		fallthrough;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		cm_enter_timewait(cmid);
		break;
	case IB_CM_ESTABLISHED:
		if (cmid->id.lap_state == IB_CM_LAP_UNINIT ||
		    cmid->id.lap_state == IB_CM_LAP_SENT) {
			if (cmid->id.lap_state == IB_CM_LAP_SENT)
				cm_cancel_msg(cmid);
			cm_enter_timewait(cmid);
			break;
		}
		fallthrough;
	default:
		trace_icm_rej_unknown_err(&cmid->id);
		spin_unlock_irq(&cmid->lock);
		cmid_put(cmid);
		return -EINVAL;
	}
	cm_deliver_unlock(cmid, work);
	return 0;
}

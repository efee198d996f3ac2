// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_cm's MADs: send buffers of an id and answers to a received MAD,
 * the address vectors they and the id's QP use, the common MAD header,
 * and the send completions (counters, and the timeouts that end an id's
 * wait for an answer).
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"
#include "cm_trace.h"

/*
 * The local ACK timeout of a path (IBA 12.7.34): 4.096 us * 2^t must
 * cover the CA's ACK delay plus a round trip, 2^ack_delay + 2^(life + 1).
 * In exponents: the larger of the two, one more when the smaller is
 * within one of it (the sum then needs the next power of two).
 */
u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time)
{
	int round_trip = packet_life_time + 1;
	int hi = max_t(int, ca_ack_delay, round_trip);
	int lo = min_t(int, ca_ack_delay, round_trip);

	return min(31, hi + (lo >= hi - 1));
}

/* A copy of private data to keep, NULL for none, or an ERR_PTR. */
void *cm_dup_pdata(const void *pdata, u8 len)
{
	void *copy;

	if (!pdata || !len)
		return NULL;
	copy = kmemdup(pdata, len, GFP_KERNEL);
	return copy ?: ERR_PTR(-ENOMEM);
}

/* Keeps @pdata (owned from now on) to resend with duplicates' answers. */
void cm_set_pdata(struct cmid *cmid, void *pdata, u8 len)
{
	kfree(cmid->pdata);
	cmid->pdata = pdata;
	cmid->pdata_len = pdata ? len : 0;
}

/* ------------------------------------------------------------------ */
/* Send buffers                                                        */

/**
 * cm_msg_alloc - a send buffer to the id's peer, over its address vector
 * @cmid: the id, locked; the buffer holds a reference on it
 *
 * The MAD layer retries it max_cm_retries times if the caller sets a
 * timeout.  Return: the buffer (context[0] is the id), or an ERR_PTR.
 */
struct ib_mad_send_buf *cm_msg_alloc(struct cmid *cmid)
{
	struct cm_port *port = cmid->av.port;
	struct ib_mad_send_buf *msg;
	struct ib_mad_agent *agent;
	struct ib_ah *ah;

	lockdep_assert_held(&cmid->lock);

	if (!port)
		return ERR_PTR(-EINVAL);

	read_lock(&port->dev->agent_lock);
	agent = port->agent;
	if (!agent) {
		msg = ERR_PTR(-EINVAL);
		goto out;
	}
	ah = rdma_create_ah(agent->qp->pd, &cmid->av.ah, 0);
	if (IS_ERR(ah)) {
		msg = ERR_CAST(ah);
		goto out;
	}
	msg = ib_create_send_mad(agent, cmid->id.remote_cm_qpn,
				 cmid->av.pkey_index, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_ATOMIC,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(msg)) {
		rdma_destroy_ah(ah, 0);
		goto out;
	}
	msg->ah = ah;
	msg->retries = cmid->max_cm_retries;
	/* No answer expected unless the caller sets one. */
	msg->timeout_ms = 0;
	refcount_inc(&cmid->refs);
	msg->context[0] = cmid;
	msg->context[1] = (void *)(unsigned long)IB_CM_IDLE;
out:
	read_unlock(&port->dev->agent_lock);
	return msg;
}

void cm_msg_free(struct ib_mad_send_buf *msg)
{
	struct cmid *cmid = msg->context[0];

	if (msg->ah)
		rdma_destroy_ah(msg->ah, 0);
	ib_free_send_mad(msg);
	cmid_put(cmid);
}

/* A send buffer that waits for an answer: the id's one such, cmid->msg. */
struct ib_mad_send_buf *cm_msg_alloc_priv(struct cmid *cmid)
{
	struct ib_mad_send_buf *msg = cm_msg_alloc(cmid);

	if (!IS_ERR(msg))
		cmid->msg = msg;
	return msg;
}

void cm_msg_free_priv(struct ib_mad_send_buf *msg)
{
	struct cmid *cmid = msg->context[0];

	lockdep_assert_held(&cmid->lock);
	if (!WARN_ON(cmid->msg != msg))
		cmid->msg = NULL;
	cm_msg_free(msg);
}

/*
 * Answers to a received MAD, from the receive work (the device's agents
 * stay while it runs: removal flushes icm.wq before unregistering them).
 * The address handle may be added later, outside a lock.
 */
struct ib_mad_send_buf *cm_resp_alloc_no_ah(struct cm_port *port,
					    struct ib_mad_recv_wc *rwc)
{
	return ib_create_send_mad(port->agent, 1, rwc->wc->pkey_index, 0,
				  IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA,
				  GFP_ATOMIC, IB_MGMT_BASE_VERSION);
}

int cm_resp_add_ah(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		   struct ib_mad_send_buf *msg)
{
	struct ib_ah *ah;

	ah = ib_create_ah_from_wc(port->agent->qp->pd, rwc->wc,
				  rwc->recv_buf.grh, port->num);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	msg->ah = ah;
	return 0;
}

int cm_resp_alloc(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		  struct ib_mad_send_buf **msg)
{
	struct ib_mad_send_buf *m;
	int ret;

	m = cm_resp_alloc_no_ah(port, rwc);
	if (IS_ERR(m))
		return PTR_ERR(m);
	ret = cm_resp_add_ah(port, rwc, m);
	if (ret) {
		ib_free_send_mad(m);
		return ret;
	}
	*msg = m;
	return 0;
}

void cm_resp_free(struct ib_mad_send_buf *msg)
{
	if (msg->ah)
		rdma_destroy_ah(msg->ah, 0);
	ib_free_send_mad(msg);
}

/* ------------------------------------------------------------------ */
/* Address vectors                                                     */

void cm_av_set_port(struct cm_av *av, struct cm_port *port)
{
	struct cm_port *old = av->port;

	if (old == port)
		return;
	if (port)
		kref_get(&port->dev->ref);
	av->port = port;
	if (old)
		cm_dev_put(old->dev);
}

/* Back to the sender of a received MAD (its LRH/GRH). */
int cm_av_from_wc(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		  struct cm_av *av)
{
	cm_av_set_port(av, port);
	av->pkey_index = rwc->wc->pkey_index;
	return ib_init_ah_attr_from_wc(port->dev->ibdev, port->num, rwc->wc,
				       rwc->recv_buf.grh, &av->ah);
}

/**
 * cm_av_from_path - an address vector along a path record
 * @path: the path
 * @sgid_attr: its source GID entry, or NULL to look the SGID up
 * @av: set only on success, so that on failure it still reaches whoever
 *	it reached before (to send them a REJ)
 */
int cm_av_from_path(struct sa_path_rec *path,
		    const struct ib_gid_attr *sgid_attr, struct cm_av *av)
{
	struct rdma_ah_attr ah = {};
	struct cm_port *port;
	u16 pkey_index;
	int ret;

	port = cm_port_get_by_path(path, sgid_attr);
	if (!port)
		return -EINVAL;

	ret = ib_find_cached_pkey(port->dev->ibdev, port->num,
				  be16_to_cpu(path->pkey), &pkey_index);
	if (ret)
		goto out;
	ret = ib_init_ah_attr_from_path(port->dev->ibdev, port->num, path,
					&ah, sgid_attr);
	if (ret)
		goto out;

	cm_av_set_port(av, port);
	av->pkey_index = pkey_index;
	/* It becomes the QP's local ACK timeout, a 5-bit field. */
	av->timeout = min_t(int, path->packet_life_time + 1, CM_MAX_IBA_TIME);
	rdma_move_ah_attr(&av->ah, &ah);
out:
	cm_dev_put(port->dev);
	return ret;
}

/* Moves @src (from cm_av_from_path()) into @dest, which may be in use. */
void cm_av_move(struct cm_av *dest, struct cm_av *src)
{
	cm_av_set_port(dest, src->port);
	cm_av_set_port(src, NULL);
	dest->pkey_index = src->pkey_index;
	dest->timeout = src->timeout;
	rdma_move_ah_attr(&dest->ah, &src->ah);
}

void cm_av_destroy(struct cm_av *av)
{
	rdma_destroy_ah_attr(&av->ah);
	cm_av_set_port(av, NULL);
}

/* ------------------------------------------------------------------ */
/* Headers                                                             */

/* A new transaction of the id: the agent's high half, our comm ID. */
__be64 cm_tid(struct cmid *cmid)
{
	struct cm_port *port = cmid->av.port;
	u64 tid = (__force u32)cmid->id.local_id;

	lockdep_assert_held(&cmid->lock);

	if (!port)
		return cpu_to_be64(tid);
	read_lock(&port->dev->agent_lock);
	if (port->agent)
		tid |= (u64)port->agent->hi_tid << 32;
	read_unlock(&port->dev->agent_lock);
	return cpu_to_be64(tid);
}

void cm_mad_hdr(struct ib_mad_hdr *hdr, __be16 attr_id, __be64 tid,
		u32 attr_mod)
{
	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = IB_MGMT_CLASS_CM;
	hdr->class_version = IB_CM_CLASS_VERSION;
	hdr->method = IB_MGMT_METHOD_SEND;
	hdr->attr_id = attr_id;
	hdr->attr_mod = cpu_to_be32(attr_mod);
	hdr->tid = tid;
}

void cm_count(struct cm_port *port, enum cm_counter_group group,
	      enum cm_counter_msg msg)
{
	atomic_long_inc(&port->count[group][msg]);
}

/**
 * cm_issue_rej - reject a received message that has no id to answer it
 * @port: where it came in
 * @rwc: the message
 * @reason: the REJ reason
 * @rejected: which message type is rejected
 * @ari: additional reject information, or NULL
 * @ari_length: its length
 */
int cm_issue_rej(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		 enum ib_cm_rej_reason reason, enum cm_msg_response rejected,
		 void *ari, u8 ari_length)
{
	/* The comm IDs are at the same place in every CM message. */
	struct cm_rej_msg *in = (struct cm_rej_msg *)rwc->recv_buf.mad;
	struct ib_mad_send_buf *msg;
	struct cm_rej_msg *rej;
	int ret;

	ret = cm_resp_alloc(port, rwc, &msg);
	if (ret)
		return ret;

	rej = msg->mad;
	cm_mad_hdr(&rej->hdr, CM_REJ_ATTR_ID, in->hdr.tid, 0);
	IBA_SET(CM_REJ_REMOTE_COMM_ID, rej, IBA_GET(CM_REJ_LOCAL_COMM_ID, in));
	IBA_SET(CM_REJ_LOCAL_COMM_ID, rej, IBA_GET(CM_REJ_REMOTE_COMM_ID, in));
	IBA_SET(CM_REJ_MESSAGE_REJECTED, rej, rejected);
	IBA_SET(CM_REJ_REASON, rej, reason);
	if (ari && ari_length) {
		IBA_SET(CM_REJ_REJECTED_INFO_LENGTH, rej, ari_length);
		IBA_SET_MEM(CM_REJ_ARI, rej, ari, ari_length);
	}

	trace_icm_issue_rej(IBA_GET(CM_REJ_LOCAL_COMM_ID, in),
			    IBA_GET(CM_REJ_REMOTE_COMM_ID, in));
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		cm_resp_free(msg);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Send completions                                                    */

/*
 * The end of an id's send: freed; and if it was the one waiting for an
 * answer, still of the current state, and failed (no answer after its
 * retries), the id leaves that state and the consumer hears of it.
 */
static void cm_send_failed(struct cmid *cmid, struct ib_mad_send_buf *msg,
			   enum ib_cm_state state, enum ib_wc_status status)
{
	enum ib_cm_event_type event;
	struct cm_work *work;

	/* The send's reference may be the last but ours. */
	refcount_inc(&cmid->refs);
	spin_lock_irq(&cmid->lock);
	if (msg != cmid->msg) {
		/* An answer, or a send an answer already superseded. */
		spin_unlock_irq(&cmid->lock);
		cm_msg_free(msg);
		cmid_put(cmid);
		return;
	}
	cm_msg_free_priv(msg);

	if (state != cmid->id.state || status == IB_WC_SUCCESS ||
	    status == IB_WC_WR_FLUSH_ERR)
		goto out_unlock;

	trace_icm_mad_send_err(state, status);
	switch (state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		cm_reset_to_idle(cmid);
		event = IB_CM_REQ_ERROR;
		break;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_reset_to_idle(cmid);
		event = IB_CM_REP_ERROR;
		break;
	case IB_CM_DREQ_SENT:
		cm_enter_timewait(cmid);
		event = IB_CM_DREQ_ERROR;
		break;
	case IB_CM_SIDR_REQ_SENT:
		cmid->id.state = IB_CM_IDLE;
		event = IB_CM_SIDR_REQ_ERROR;
		break;
	default:
		goto out_unlock;
	}

	/* Only now: most sends end without an event. */
	work = kzalloc(sizeof(*work), GFP_ATOMIC);
	if (!work) {
		spin_unlock_irq(&cmid->lock);
		pr_warn_ratelimited("ib_cm: no memory for a send error event\n");
		cmid_put(cmid);
		return;
	}
	work->ev.event = event;
	work->ev.param.send_status = status;
	/* Our reference goes with the event. */
	cm_deliver_unlock(cmid, work);
	return;

out_unlock:
	spin_unlock_irq(&cmid->lock);
	cmid_put(cmid);
}

/**
 * cm_send_done - the MAD layer's send completion for every CM agent
 * @agent: the port's agent
 * @send_wc: the completion: the buffer, its status
 */
void cm_send_done(struct ib_mad_agent *agent, struct ib_mad_send_wc *send_wc)
{
	struct ib_mad_send_buf *msg = send_wc->send_buf;
	struct cmid *cmid = msg->context[0];
	enum ib_cm_state state = (unsigned long)msg->context[1];
	struct ib_mad_hdr *hdr = msg->mad;
	struct cm_port *port = agent->context;
	unsigned int type = be16_to_cpu(hdr->attr_id) - CM_FIRST_ATTR_ID;

	/*
	 * An answer sent without an id (other than a REJ) repeats one the
	 * peer did not get: it counts as a retry.
	 */
	if (!cmid && type != CM_CNT_REJ)
		msg->retries = 1;
	if (type < CM_CNT_MSGS) {
		atomic_long_add(1 + msg->retries, &port->count[CM_CNT_TX][type]);
		if (msg->retries)
			atomic_long_add(msg->retries,
					&port->count[CM_CNT_TX_RETRIES][type]);
	}

	if (cmid)
		cm_send_failed(cmid, msg, state, send_wc->status);
	else
		cm_resp_free(msg);
}

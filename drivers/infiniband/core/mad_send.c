// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sending MADs: send buffers, posting them on the special QP, their
 * completions, the responses that requests wait for, timeouts, retries
 * and cancellation.
 *
 * The life of a send (struct mad_send), all under its agent's lock:
 *
 *	ib_post_send_mad()	on agent->sends; refs = 1 for the WR, + 1
 *				when a response is awaited (timeout_ms)
 *	WR completes		refs - 1; if a response is still awaited,
 *				to agent->waits with a deadline
 *	response arrives	(mad_send_claim_response()) timeout = 0, off
 *				waits; refs - 1 after the recv_handler
 *	deadline passes		retried (back on sends, refs + 1) while
 *				retries are left, else done with
 *				IB_WC_RESP_TIMEOUT_ERR
 *	refs reaches 0		done: off the lists, send_handler called
 *				(outside the lock), agent reference dropped
 *
 * A cancelled send (ib_modify_mad() with 0, unregistration) gets status
 * IB_WC_WR_FLUSH_ERR and loses its response reference; one that was
 * waiting is expired at once by the timeout work, so that its
 * send_handler never runs in the canceller's context.
 *
 * Lock order: agent->lock, then a ring's lock (retries post under the
 * agent's lock).  Handlers are called without either.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"
#include "mad_priv.h"

static void mad_send_done(struct ib_cq *cq, struct ib_wc *wc);

static struct mad_send *to_mad_send(struct ib_mad_send_buf *send_buf)
{
	return container_of(send_buf, struct mad_send, send_buf);
}

static const struct ib_mad_hdr *mad_send_hdr(const struct mad_send *send)
{
	return (const struct ib_mad_hdr *)send->mad;
}

/* ------------------------------------------------------------------ */
/* Send buffers                                                         */

/*
 * Padding of the data to whole segments, as stock: with data, up to the
 * next multiple of the segment (the MAD less its headers); without, a
 * whole segment.
 */
static int mad_pad_len(int hdr_len, int data_len)
{
	int seg = IB_MGMT_MAD_SIZE - hdr_len;

	if (!data_len || !seg)
		return seg;
	return (seg - data_len % seg) % seg;
}

/**
 * ib_create_send_mad - allocate a MAD to send
 * @mad_agent: the agent that will post it
 * @remote_qpn: the destination QP (1 for QP1)
 * @pkey_index: P_Key index to send with (for QP1 destinations)
 * @rmpp_active: RMPP by the MAD layer: not supported (-EINVAL, as stock
 *	for agents without kernel RMPP)
 * @hdr_len: common and class headers
 * @data_len: data after them; with the padding, one MAD at most
 * @gfp_mask: for the allocation
 * @base_version: IB_MGMT_BASE_VERSION (OPA MADs are not supported)
 *
 * The MAD is zeroed; the caller fills it in, sets ah, timeout_ms and
 * retries, and frees it with ib_free_send_mad() (typically from its
 * send_handler).  The agent cannot finish unregistering before.
 *
 * Return: the send buffer or ERR_PTR(-EINVAL / -ENOMEM).
 */
struct ib_mad_send_buf *ib_create_send_mad(struct ib_mad_agent *mad_agent,
					   u32 remote_qpn, u16 pkey_index,
					   int rmpp_active,
					   int hdr_len, int data_len,
					   gfp_t gfp_mask,
					   u8 base_version)
{
	struct mad_agent_priv *priv = to_mad_agent(mad_agent);
	struct mad_send *send;

	if (base_version == OPA_MGMT_BASE_VERSION || rmpp_active ||
	    hdr_len < 0 || data_len < 0 || hdr_len > IB_MGMT_MAD_SIZE)
		return ERR_PTR(-EINVAL);
	if (hdr_len + data_len + mad_pad_len(hdr_len, data_len) >
	    IB_MGMT_MAD_SIZE)
		return ERR_PTR(-EINVAL);

	send = kzalloc(struct_size(send, mad, IB_MGMT_MAD_SIZE), gfp_mask);
	if (!send)
		return ERR_PTR(-ENOMEM);

	send->agent = priv;
	send->send_buf.mad = send->mad;
	send->send_buf.mad_agent = mad_agent;
	send->send_buf.hdr_len = hdr_len;
	send->send_buf.data_len = data_len;
	INIT_LIST_HEAD(&send->agent_entry);
	INIT_LIST_HEAD(&send->ring_entry);

	send->cqe.done = mad_send_done;
	send->sge.length = IB_MGMT_MAD_SIZE;
	send->sge.lkey = mad_agent->qp->pd->local_dma_lkey;
	send->wr.wr.wr_cqe = &send->cqe;
	send->wr.wr.sg_list = &send->sge;
	send->wr.wr.num_sge = 1;
	send->wr.wr.opcode = IB_WR_SEND;
	send->wr.wr.send_flags = IB_SEND_SIGNALED;
	send->wr.remote_qpn = remote_qpn;
	/* The high bit: use the QP's own Q_Key. */
	send->wr.remote_qkey = IB_QP_SET_QKEY;
	send->wr.pkey_index = pkey_index;

	mad_agent_get(priv);
	return &send->send_buf;
}
EXPORT_SYMBOL(ib_create_send_mad);

/**
 * ib_free_send_mad - free a send buffer
 * @send_buf: from ib_create_send_mad(), not outstanding
 */
void ib_free_send_mad(struct ib_mad_send_buf *send_buf)
{
	struct mad_send *send = to_mad_send(send_buf);
	struct mad_agent_priv *priv = send->agent;

	kfree(send);
	mad_agent_put(priv);
}
EXPORT_SYMBOL(ib_free_send_mad);

/**
 * ib_get_rmpp_segment - the data of one RMPP segment of a send
 * @send_buf: the send buffer
 * @seg_num: the segment, from 1
 *
 * Sends with segments exist only with RMPP done by the MAD layer, which
 * is not implemented: NULL.
 */
void *ib_get_rmpp_segment(struct ib_mad_send_buf *send_buf, int seg_num)
{
	return NULL;
}
EXPORT_SYMBOL(ib_get_rmpp_segment);

/* ------------------------------------------------------------------ */
/* The send ring                                                        */

/*
 * Posts @send on its agent's QP, or queues it on the overflow list when
 * the send ring is full (it is posted when a slot frees).  0 or an error
 * of the mapping or of the QP.
 */
int mad_send_post(struct mad_send *send)
{
	struct mad_qp *mqp = send->agent->mqp;
	struct ib_device *device = mqp->port->device;
	unsigned long flags;
	int ret = 0;

	send->sge.addr = ib_dma_map_single(device, send->mad, send->sge.length,
					   DMA_TO_DEVICE);
	if (ib_dma_mapping_error(device, send->sge.addr))
		return -ENOMEM;

	spin_lock_irqsave(&mqp->send.lock, flags);
	if (mqp->send.count < mqp->send.depth) {
		ret = ib_post_send(mqp->qp, &send->wr.wr, NULL);
		if (!ret) {
			list_add_tail(&send->ring_entry, &mqp->send.posted);
			mqp->send.count++;
		}
	} else {
		list_add_tail(&send->ring_entry, &mqp->overflow);
	}
	spin_unlock_irqrestore(&mqp->send.lock, flags);

	if (ret)
		ib_dma_unmap_single(device, send->sge.addr, send->sge.length,
				    DMA_TO_DEVICE);
	return ret;
}

static void mad_send_unmap(struct mad_send *send)
{
	ib_dma_unmap_single(send->agent->mqp->port->device, send->sge.addr,
			    send->sge.length, DMA_TO_DEVICE);
}

/*
 * A slot of the ring is free again: posts what waits on the overflow
 * list while there is room.  Those the QP refuses go on @failed.
 */
static void mad_ring_advance(struct mad_qp *mqp, struct list_head *failed)
{
	struct mad_send *next;

	lockdep_assert_held(&mqp->send.lock);

	while (mqp->send.count < mqp->send.depth &&
	       !list_empty(&mqp->overflow)) {
		next = list_first_entry(&mqp->overflow, struct mad_send,
					ring_entry);
		if (ib_post_send(mqp->qp, &next->wr.wr, NULL)) {
			list_move_tail(&next->ring_entry, failed);
			continue;
		}
		list_move_tail(&next->ring_entry, &mqp->send.posted);
		mqp->send.count++;
	}
}

/*
 * After a send error other than a flush, a UD QP is in SQE: back to RTS,
 * as stock.  (rxe moves it to ERR instead; then MADs stop on this port
 * until the device is added again, as on stock.)
 */
static void mad_qp_recover(struct mad_qp *mqp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTS,
		.cur_qp_state = IB_QPS_SQE,
	};
	int ret;

	ret = ib_modify_qp(mqp->qp, &attr, IB_QP_STATE | IB_QP_CUR_STATE);
	if (ret)
		dev_err_ratelimited(&mqp->port->device->dev,
				    "MAD QP%u: cannot recover from a send error: %d\n",
				    mqp->qp->qp_num, ret);
}

static void mad_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mad_send *send = container_of(wc->wr_cqe, struct mad_send, cqe);
	struct mad_qp *mqp = send->agent->mqp;
	struct mad_send *next, *tmp;
	unsigned long flags;
	LIST_HEAD(failed);

	mad_send_unmap(send);
	spin_lock_irqsave(&mqp->send.lock, flags);
	list_del_init(&send->ring_entry);
	mqp->send.count--;
	mad_ring_advance(mqp, &failed);
	spin_unlock_irqrestore(&mqp->send.lock, flags);

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		mad_qp_recover(mqp);

	mad_send_complete(send, wc->status, wc->vendor_err);
	list_for_each_entry_safe(next, tmp, &failed, ring_entry) {
		list_del_init(&next->ring_entry);
		mad_send_unmap(next);
		mad_send_complete(next, IB_WC_LOC_QP_OP_ERR, 0);
	}
}

/* ------------------------------------------------------------------ */
/* Waiting for responses                                                */

/* Arms the timeout work for the first deadline on waits, or disarms it. */
static void mad_rearm_timeout(struct mad_agent_priv *priv)
{
	struct mad_send *first;
	long delay;

	lockdep_assert_held(&priv->lock);

	if (list_empty(&priv->waits)) {
		cancel_delayed_work(&priv->timeout_work);
		return;
	}
	first = list_first_entry(&priv->waits, struct mad_send, agent_entry);
	delay = (long)(first->timeout - jiffies);
	mod_delayed_work(priv->mqp->port->wq, &priv->timeout_work,
			 max(delay, 0L));
}

/*
 * Moves @send to waits, its deadline send->timeout from now, in deadline
 * order (a deadline of now goes first).
 */
static void mad_wait_response(struct mad_send *send)
{
	struct mad_agent_priv *priv = send->agent;
	struct list_head *pos;
	struct mad_send *other;

	lockdep_assert_held(&priv->lock);

	list_del(&send->agent_entry);
	if (send->timeout) {
		send->timeout += jiffies;
		/* After the last one due no later. */
		for (pos = priv->waits.prev; pos != &priv->waits;
		     pos = pos->prev) {
			other = list_entry(pos, struct mad_send, agent_entry);
			if (time_after_eq(send->timeout, other->timeout))
				break;
		}
	} else {
		send->timeout = jiffies;
		pos = &priv->waits;
	}
	list_add(&send->agent_entry, pos);
	if (priv->waits.next == &send->agent_entry)
		mad_rearm_timeout(priv);
}

/**
 * mad_send_complete - one of a send's references is done
 * @send: the send
 * @status: how (its WR's completion, or IB_WC_SUCCESS for a response)
 * @vendor_err: the WR's vendor error
 *
 * The first failure becomes the send's status.  The last reference calls
 * the agent's send_handler.
 */
void mad_send_complete(struct mad_send *send, enum ib_wc_status status,
		       u32 vendor_err)
{
	struct mad_agent_priv *priv = send->agent;
	struct ib_mad_send_wc wc = {
		.send_buf = &send->send_buf,
		.status = status,
		.vendor_err = vendor_err,
	};
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (status != IB_WC_SUCCESS && send->status == IB_WC_SUCCESS) {
		send->status = status;
		/* No response will be waited for. */
		send->refs -= send->timeout > 0;
	}
	if (--send->refs > 0) {
		/* The WR is done and the response is still to come. */
		if (send->refs == 1 && send->timeout &&
		    send->status == IB_WC_SUCCESS)
			mad_wait_response(send);
		spin_unlock_irqrestore(&priv->lock, flags);
		return;
	}
	list_del_init(&send->agent_entry);
	mad_rearm_timeout(priv);
	spin_unlock_irqrestore(&priv->lock, flags);

	if (send->status != IB_WC_SUCCESS)
		wc.status = send->status;
	priv->agent.send_handler(&priv->agent, &wc);
	mad_agent_put(priv);
}

/* Query of an AH's attributes (no GID reference is taken). */
static int mad_query_ah(struct ib_ah *ah, struct rdma_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = ah->type;
	if (!ah->device->ops.query_ah)
		return -EOPNOTSUPP;
	return ah->device->ops.query_ah(ah, attr);
}

/*
 * Whether @recv_wc comes from where @send went (as stock): a response to
 * a request is addressed to the GID (or LID) the request left from; a
 * request answering our response comes from where the response went.
 */
static bool mad_same_peer(const struct mad_send *send,
			  const struct ib_mad_recv_wc *recv_wc)
{
	bool sent_resp = ib_response_mad(mad_send_hdr(send));
	bool got_resp = ib_response_mad(&recv_wc->recv_buf.mad->mad_hdr);
	struct ib_mad_agent *agent = &send->agent->agent;
	const struct ib_wc *wc = recv_wc->wc;
	union ib_gid sgid, dgid, ours;
	struct rdma_ah_attr attr;
	bool has_grh;
	u8 lmc;

	if (sent_resp == got_resp || !send->send_buf.ah)
		return false;
	if (mad_query_ah(send->send_buf.ah, &attr))
		return false;
	has_grh = rdma_ah_get_ah_flags(&attr) & IB_AH_GRH;
	if (has_grh != !!(wc->wc_flags & IB_WC_GRH))
		return false;

	if (!has_grh) {
		if (sent_resp)
			return rdma_ah_get_dlid(&attr) == wc->slid;
		if (ib_get_cached_lmc(agent->device, agent->port_num, &lmc))
			return false;
		return !lmc || !((rdma_ah_get_path_bits(&attr) ^
				  wc->dlid_path_bits) & ((1 << lmc) - 1));
	}

	if (mad_gids_of_recv(recv_wc, &sgid, &dgid))
		return false;
	if (sent_resp)
		return !memcmp(rdma_ah_read_grh(&attr)->dgid.raw, sgid.raw,
			       sizeof(sgid.raw));
	if (rdma_query_gid(agent->device, agent->port_num,
			   rdma_ah_read_grh(&attr)->sgid_index, &ours))
		return false;
	return !memcmp(ours.raw, dgid.raw, sizeof(ours.raw));
}

static bool mad_send_matches(const struct mad_send *send,
			     const struct ib_mad_recv_wc *recv_wc)
{
	const struct ib_mad_hdr *hdr = &recv_wc->recv_buf.mad->mad_hdr;

	if (send->tid != hdr->tid ||
	    mad_send_hdr(send)->mgmt_class != hdr->mgmt_class)
		return false;
	/* Directed-route SMPs may come back from permissive LIDs. */
	return hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE ||
	       mad_same_peer(send, recv_wc);
}

/**
 * mad_send_claim_response - the send that a received response answers
 * @priv: the agent it was routed to
 * @recv_wc: the response
 *
 * Marks the send as answered (it no longer times out); the caller calls
 * mad_send_complete() with IB_WC_SUCCESS after the agent's recv_handler.
 * NULL when no send in good standing awaits it.  The response may come
 * before the send's own completion: sends still posted count too.
 */
struct mad_send *mad_send_claim_response(struct mad_agent_priv *priv,
					 const struct ib_mad_recv_wc *recv_wc)
{
	struct mad_send *send, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(send, &priv->waits, agent_entry) {
		if (mad_send_matches(send, recv_wc)) {
			found = send;
			break;
		}
	}
	if (!found) {
		list_for_each_entry(send, &priv->sends, agent_entry) {
			if (send->timeout && mad_send_matches(send, recv_wc)) {
				found = send;
				break;
			}
		}
	}
	if (found && found->status == IB_WC_SUCCESS) {
		found->timeout = 0;
		/* Waiting: nothing but the response holds it any more. */
		if (found->refs == 1)
			list_del_init(&found->agent_entry);
	} else {
		found = NULL;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return found;
}

/* ------------------------------------------------------------------ */
/* Timeouts and retries                                                 */

/* Posts @send again, if retries are left. */
static int mad_send_retry(struct mad_send *send)
{
	int ret;

	lockdep_assert_held(&send->agent->lock);

	if (!send->retries_left)
		return -ETIMEDOUT;
	send->retries_left--;
	send->send_buf.retries++;
	send->timeout = msecs_to_jiffies(send->send_buf.timeout_ms);
	ret = mad_send_post(send);
	if (!ret) {
		send->refs++;
		list_add_tail(&send->agent_entry, &send->agent->sends);
	}
	return ret;
}

/* The agent's timeout work: expires what is due on waits. */
void mad_timeout_work(struct work_struct *work)
{
	struct mad_agent_priv *priv = container_of(to_delayed_work(work),
						   struct mad_agent_priv,
						   timeout_work);
	struct ib_mad_send_wc wc = {};
	struct mad_send *send, *tmp;
	unsigned long flags;
	LIST_HEAD(expired);

	spin_lock_irqsave(&priv->lock, flags);
	while (!list_empty(&priv->waits)) {
		send = list_first_entry(&priv->waits, struct mad_send,
					agent_entry);
		if (time_after(send->timeout, jiffies)) {
			mad_rearm_timeout(priv);
			break;
		}
		list_del_init(&send->agent_entry);
		if (send->status == IB_WC_SUCCESS && !mad_send_retry(send))
			continue;
		list_add_tail(&send->agent_entry, &expired);
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	list_for_each_entry_safe(send, tmp, &expired, agent_entry) {
		list_del_init(&send->agent_entry);
		wc.send_buf = &send->send_buf;
		wc.status = send->status == IB_WC_SUCCESS ?
			    IB_WC_RESP_TIMEOUT_ERR : send->status;
		priv->agent.send_handler(&priv->agent, &wc);
		mad_agent_put(priv);
	}
}

/* ------------------------------------------------------------------ */
/* Posting, changing and cancelling                                     */

/**
 * ib_post_send_mad - send MADs
 * @send_buf: the first of a list (send_buf->next) of send buffers, each
 *	with its ah; timeout_ms > 0 to wait that long for a response, sent
 *	again up to retries times
 * @bad_send_buf: where the first one not posted is stored, on error
 *
 * Each completes once through the agent's send_handler: IB_WC_SUCCESS
 * (sent, and answered if a response was awaited), IB_WC_RESP_TIMEOUT_ERR
 * (no response after the retries; send_buf->retries tells how many were
 * made), IB_WC_WR_FLUSH_ERR (cancelled) or the error of its WR.
 *
 * Return: 0, -EINVAL for an agent without send_handler, a response
 * awaited by an agent without recv_handler, or an RMPP agent sending a
 * class without RMPP; -EOPNOTSUPP for directed-route SMPs (no SMI
 * handling); -EACCES (the security module's errno) for a QP0 agent no
 * longer allowed to manage the subnet or a P_Key the agent may not use
 * (security.c); or the error of posting.
 */
int ib_post_send_mad(struct ib_mad_send_buf *send_buf,
		     struct ib_mad_send_buf **bad_send_buf)
{
	struct ib_mad_send_buf *next;
	struct mad_agent_priv *priv;
	struct mad_send *send;
	unsigned long flags;
	int ret = 0;

	for (; send_buf; send_buf = next) {
		send = to_mad_send(send_buf);
		priv = send->agent;

		if (!priv->agent.send_handler ||
		    (send_buf->timeout_ms && !priv->agent.recv_handler) ||
		    (priv->agent.rmpp_version &&
		     !ib_is_mad_class_rmpp(mad_send_hdr(send)->mgmt_class))) {
			ret = -EINVAL;
			break;
		}
		if (mad_send_hdr(send)->mgmt_class ==
		    IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
			ret = -EOPNOTSUPP;
			break;
		}
		/* The LSM: QP0's subnet management, QP1's P_Key. */
		ret = ib_mad_agent_sec_check(&priv->agent, send->wr.pkey_index);
		if (ret)
			break;

		/* Once posted it may complete and be freed at any time. */
		next = send_buf->next;
		send->wr.ah = send_buf->ah;
		send->tid = mad_send_hdr(send)->tid;
		send->timeout = msecs_to_jiffies(send_buf->timeout_ms);
		send->retries_left = send_buf->retries;
		send_buf->retries = 0;
		send->refs = 1 + (send->timeout > 0);
		send->status = IB_WC_SUCCESS;

		mad_agent_get(priv);
		spin_lock_irqsave(&priv->lock, flags);
		list_add_tail(&send->agent_entry, &priv->sends);
		spin_unlock_irqrestore(&priv->lock, flags);

		ret = mad_send_post(send);
		if (ret) {
			spin_lock_irqsave(&priv->lock, flags);
			list_del_init(&send->agent_entry);
			spin_unlock_irqrestore(&priv->lock, flags);
			mad_agent_put(priv);
			break;
		}
	}
	if (ret && bad_send_buf)
		*bad_send_buf = send_buf;
	return ret;
}
EXPORT_SYMBOL(ib_post_send_mad);

/* Whether @send is outstanding: posted, or waiting for its response. */
static bool mad_send_outstanding(struct mad_agent_priv *priv,
				 struct mad_send *send)
{
	struct mad_send *pos;

	lockdep_assert_held(&priv->lock);

	list_for_each_entry(pos, &priv->waits, agent_entry)
		if (pos == send)
			return true;
	list_for_each_entry(pos, &priv->sends, agent_entry)
		if (pos == send)
			return true;
	return false;
}

/**
 * ib_modify_mad - change how long an outstanding send waits for its
 *	response, or cancel it
 * @send_buf: the send
 * @timeout_ms: the new timeout, counted from now if the send is already
 *	waiting; 0 cancels it: it completes with IB_WC_WR_FLUSH_ERR, never
 *	from this call
 *
 * Return: 0, or -EINVAL when the send is not outstanding (done, answered
 * or cancelled already).
 */
int ib_modify_mad(struct ib_mad_send_buf *send_buf, u32 timeout_ms)
{
	struct mad_agent_priv *priv;
	struct mad_send *send;
	unsigned long flags;
	bool posted;

	if (!send_buf)
		return -EINVAL;
	send = to_mad_send(send_buf);
	priv = send->agent;

	spin_lock_irqsave(&priv->lock, flags);
	if (!mad_send_outstanding(priv, send) ||
	    send->status != IB_WC_SUCCESS) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}

	/* Still posted (or nothing awaited): its completion decides. */
	posted = !send->timeout || send->refs > 1;
	if (!timeout_ms) {
		send->status = IB_WC_WR_FLUSH_ERR;
		send->refs -= send->timeout > 0;
	}
	send_buf->timeout_ms = timeout_ms;
	send->timeout = msecs_to_jiffies(timeout_ms);
	if (!posted)
		mad_wait_response(send);
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_modify_mad);

/**
 * mad_send_cancel_all - flush every outstanding send of an agent
 * @priv: the agent, unregistering
 *
 * Those waiting for a response complete now, from the caller; those
 * still posted when their WR completes.  Both with IB_WC_WR_FLUSH_ERR.
 */
void mad_send_cancel_all(struct mad_agent_priv *priv)
{
	struct ib_mad_send_wc wc = { .status = IB_WC_WR_FLUSH_ERR };
	struct mad_send *send, *tmp;
	unsigned long flags;
	LIST_HEAD(flushed);

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(send, &priv->sends, agent_entry) {
		if (send->status == IB_WC_SUCCESS) {
			send->status = IB_WC_WR_FLUSH_ERR;
			send->refs -= send->timeout > 0;
		}
	}
	list_splice_init(&priv->waits, &flushed);
	spin_unlock_irqrestore(&priv->lock, flags);

	list_for_each_entry_safe(send, tmp, &flushed, agent_entry) {
		list_del_init(&send->agent_entry);
		wc.send_buf = &send->send_buf;
		priv->agent.send_handler(&priv->agent, &wc);
		mad_agent_put(priv);
	}
}

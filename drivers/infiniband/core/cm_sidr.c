// SPDX-License-Identifier: GPL-2.0-only
/*
 * Service ID resolution (IBTA vol. 1, 12.11): a SIDR_REQ asks the peer
 * which UD QP (and Q_Key) serves a service ID; the SIDR_REP answers.  No
 * connection, no timewait: the requester's id waits in SIDR_REQ_SENT, the
 * responder's (made for the request, never published) in SIDR_REQ_RCVD.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"
#include "cm_trace.h"

static void cm_format_sidr_req(struct cm_sidr_req_msg *req, struct cmid *cmid,
			       struct ib_cm_sidr_req_param *param)
{
	cm_mad_hdr(&req->hdr, CM_SIDR_REQ_ATTR_ID, cm_tid(cmid), 0);
	IBA_SET(CM_SIDR_REQ_REQUESTID, req, be32_to_cpu(cmid->id.local_id));
	IBA_SET(CM_SIDR_REQ_PARTITION_KEY, req, be16_to_cpu(param->path->pkey));
	IBA_SET(CM_SIDR_REQ_SERVICEID, req, be64_to_cpu(param->service_id));
	if (param->private_data && param->private_data_len)
		IBA_SET_MEM(CM_SIDR_REQ_PRIVATE_DATA, req, param->private_data,
			    param->private_data_len);
}

/**
 * ib_send_cm_sidr_req - ask which QP serves a service ID
 * @cm_id: an id in IDLE
 * @param: the path, service ID, private data, and how long and how often
 *	to ask
 *
 * Return: 0 (the id is in SIDR_REQ_SENT), or a negative errno.
 */
int ib_send_cm_sidr_req(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_req_param *param)
{
	struct cmid *cmid = to_cmid(cm_id);
	struct ib_mad_send_buf *msg;
	struct cm_av av = {};
	unsigned long flags;
	int ret;

	if (!param->path || (param->private_data &&
			     param->private_data_len >
			     IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE))
		return -EINVAL;

	ret = cm_av_from_path(param->path, param->sgid_attr, &av);
	if (ret)
		return ret;

	spin_lock_irqsave(&cmid->lock, flags);
	if (cm_id->state != IB_CM_IDLE) {
		ret = -EINVAL;
		goto out;
	}
	cm_av_move(&cmid->av, &av);
	cm_id->service_id = param->service_id;
	cmid->timeout_ms = param->timeout_ms;
	cmid->max_cm_retries = param->max_cm_retries;

	msg = cm_msg_alloc_priv(cmid);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto out;
	}
	cm_format_sidr_req(msg->mad, cmid, param);
	msg->timeout_ms = cmid->timeout_ms;
	msg->context[1] = (void *)(unsigned long)IB_CM_SIDR_REQ_SENT;

	trace_icm_send_sidr_req(cm_id);
	ret = ib_post_send_mad(msg, NULL);
	if (ret) {
		cm_msg_free_priv(msg);
		goto out;
	}
	cm_id->state = IB_CM_SIDR_REQ_SENT;
out:
	spin_unlock_irqrestore(&cmid->lock, flags);
	cm_av_destroy(&av);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_req);

static void cm_sidr_req_event(struct cm_work *work, struct cmid *cmid,
			      struct cmid *listener)
{
	struct cm_sidr_req_msg *req =
		(struct cm_sidr_req_msg *)work->rwc->recv_buf.mad;
	struct ib_cm_sidr_req_event_param *p = &work->ev.param.sidr_req_rcvd;
	struct ib_device *ibdev = work->port->dev->ibdev;
	u16 pkey;

	p->listen_id = &listener->id;
	p->service_id = cpu_to_be64(IBA_GET(CM_SIDR_REQ_SERVICEID, req));
	p->sgid_attr = cmid->av.ah.grh.sgid_attr;
	p->port = work->port->num;
	p->pkey = IBA_GET(CM_SIDR_REQ_PARTITION_KEY, req);
	if (ib_get_cached_pkey(ibdev, work->port->num,
			       work->rwc->wc->pkey_index, &pkey))
		pkey = 0;
	p->bth_pkey = pkey;
	work->ev.private_data = IBA_GET_MEM_PTR(CM_SIDR_REQ_PRIVATE_DATA, req);
}

int cm_sidr_req_recv(struct cm_work *work)
{
	struct cm_sidr_req_msg *req =
		(struct cm_sidr_req_msg *)work->rwc->recv_buf.mad;
	struct cmid *cmid, *listener;
	int ret;

	cmid = cmid_alloc(work->port->dev->ibdev, NULL, NULL);
	if (IS_ERR(cmid))
		return PTR_ERR(cmid);

	/* A request is known by its ID and where it came from. */
	cmid->id.remote_id = cpu_to_be32(IBA_GET(CM_SIDR_REQ_REQUESTID, req));
	cmid->id.service_id = cpu_to_be64(IBA_GET(CM_SIDR_REQ_SERVICEID, req));
	cmid->tid = req->hdr.tid;
	cmid->sidr_slid = work->rwc->wc->slid;
	ret = cm_av_from_wc(work->port, work->rwc, &cmid->av);
	if (ret)
		goto destroy;

	spin_lock_irq(&icm.lock);
	if (cm_insert_sidr(cmid)) {
		spin_unlock_irq(&icm.lock);
		cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_SIDR_REQ);
		ret = -EINVAL;
		goto destroy;
	}
	cmid->id.state = IB_CM_SIDR_REQ_RCVD;
	listener = cm_find_listener(cmid->id.device, cmid->id.service_id);
	spin_unlock_irq(&icm.lock);
	if (!listener) {
		ib_send_cm_sidr_rep(&cmid->id, &(struct ib_cm_sidr_rep_param){
					.status = IB_SIDR_UNSUPPORTED });
		ret = -EINVAL;
		goto destroy;
	}

	cmid->id.cm_handler = listener->id.cm_handler;
	cmid->id.context = listener->id.context;
	cm_sidr_req_event(work, cmid, listener);

	/*
	 * Never published (no MAD is ever for it): nothing else delivers to
	 * it, so the handler runs now, while we hold the listener it names.
	 */
	spin_lock_irq(&cmid->lock);
	refcount_inc(&cmid->refs);
	cm_deliver_unlock(cmid, work);
	cmid_put(listener);
	return 0;

destroy:
	ib_destroy_cm_id(&cmid->id);
	return ret;
}

static void cm_format_sidr_rep(struct cm_sidr_rep_msg *rep, struct cmid *cmid,
			       struct ib_cm_sidr_rep_param *param)
{
	cm_mad_hdr(&rep->hdr, CM_SIDR_REP_ATTR_ID, cmid->tid,
		   param->ece.attr_mod);
	IBA_SET(CM_SIDR_REP_REQUESTID, rep, be32_to_cpu(cmid->id.remote_id));
	IBA_SET(CM_SIDR_REP_STATUS, rep, param->status);
	IBA_SET(CM_SIDR_REP_QPN, rep, param->qp_num);
	IBA_SET(CM_SIDR_REP_SERVICEID, rep, be64_to_cpu(cmid->id.service_id));
	IBA_SET(CM_SIDR_REP_Q_KEY, rep, param->qkey);
	/* The 24-bit vendor ID: low byte, then the two above it. */
	IBA_SET(CM_SIDR_REP_VENDOR_ID_L, rep, param->ece.vendor_id & 0xff);
	IBA_SET(CM_SIDR_REP_VENDOR_ID_H, rep,
		(param->ece.vendor_id >> 8) & 0xffff);
	if (param->info && param->info_length) {
		IBA_SET(CM_SIDR_REP_ADDITIONAL_INFORMATION_LENGTH, rep,
			param->info_length);
		IBA_SET_MEM(CM_SIDR_REP_ADDITIONAL_INFORMATION, rep,
			    param->info, param->info_length);
	}
	if (param->private_data && param->private_data_len)
		IBA_SET_MEM(CM_SIDR_REP_PRIVATE_DATA, rep, param->private_data,
			    param->private_data_len);
}

/* Answers the request; the id goes back to IDLE.  Under cmid->lock. */
int cm_sidr_rep_locked(struct cmid *cmid, struct ib_cm_sidr_rep_param *param)
{
	struct ib_mad_send_buf *msg;
	int ret;

	lockdep_assert_held(&cmid->lock);

	if ((param->info && param->info_length > IB_CM_SIDR_REP_INFO_LENGTH) ||
	    (param->private_data &&
	     param->private_data_len > IB_CM_SIDR_REP_PRIVATE_DATA_SIZE))
		return -EINVAL;
	if (cmid->id.state != IB_CM_SIDR_REQ_RCVD)
		return -EINVAL;

	msg = cm_msg_alloc(cmid);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	cm_format_sidr_rep(msg->mad, cmid, param);

	trace_icm_send_sidr_rep(&cmid->id);
	ret = ib_post_send_mad(msg, NULL);
	if (ret) {
		cm_msg_free(msg);
		return ret;
	}
	cmid->id.state = IB_CM_IDLE;
	/* A repeat of the request is a new one from now on. */
	spin_lock(&icm.lock);
	if (!RB_EMPTY_NODE(&cmid->sidr_node)) {
		rb_erase(&cmid->sidr_node, &icm.sidr_reqs);
		RB_CLEAR_NODE(&cmid->sidr_node);
	}
	spin_unlock(&icm.lock);
	return 0;
}

/**
 * ib_send_cm_sidr_rep - answer a service ID resolution request
 * @cm_id: the id of an IB_CM_SIDR_REQ_RECEIVED event
 * @param: the status, our UD QP and Q_Key, additional info, private data
 */
int ib_send_cm_sidr_rep(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_rep_param *param)
{
	struct cmid *cmid = to_cmid(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&cmid->lock, flags);
	ret = cm_sidr_rep_locked(cmid, param);
	spin_unlock_irqrestore(&cmid->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_rep);

int cm_sidr_rep_recv(struct cm_work *work)
{
	struct cm_sidr_rep_msg *rep =
		(struct cm_sidr_rep_msg *)work->rwc->recv_buf.mad;
	struct ib_cm_sidr_rep_event_param *p = &work->ev.param.sidr_rep_rcvd;
	struct cmid *cmid;

	cmid = cmid_acquire(cpu_to_be32(IBA_GET(CM_SIDR_REP_REQUESTID, rep)),
			    0);
	if (!cmid)
		return -EINVAL;

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state != IB_CM_SIDR_REQ_SENT) {
		spin_unlock_irq(&cmid->lock);
		cmid_put(cmid);
		return -EINVAL;
	}
	cmid->id.state = IB_CM_IDLE;
	cm_cancel_msg(cmid);

	p->status = IBA_GET(CM_SIDR_REP_STATUS, rep);
	p->qkey = IBA_GET(CM_SIDR_REP_Q_KEY, rep);
	p->qpn = IBA_GET(CM_SIDR_REP_QPN, rep);
	p->info = IBA_GET_MEM_PTR(CM_SIDR_REP_ADDITIONAL_INFORMATION, rep);
	p->info_len = IBA_GET(CM_SIDR_REP_ADDITIONAL_INFORMATION_LENGTH, rep);
	p->sgid_attr = cmid->av.ah.grh.sgid_attr;
	work->ev.private_data = IBA_GET_MEM_PTR(CM_SIDR_REP_PRIVATE_DATA, rep);
	cm_deliver_unlock(cmid, work);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * UD ids: "connecting" a UD id is a SIDR exchange (IBTA 12.11) that asks
 * the peer's listener for its QP number and Q_Key.  The SIDR REQ carries
 * the same cma header as a REQ; the SIDR REP answers with the QP, or
 * rejects.  The passive side reaches cma_ib_req_handler() (cma_conn.c)
 * and answers through rdma_accept()/rdma_reject().
 */
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"
#include "cma_trace.h"

static int cma_sidr_rep_handler(struct ib_cm_id *cm_id,
				const struct ib_cm_event *ev)
{
	const struct ib_cm_sidr_rep_event_param *rep = &ev->param.sidr_rep_rcvd;
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_cm_id *id = &id_priv->id;
	struct rdma_cm_event event = {};
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	if (cma_state(id_priv) != RDMA_CM_CONNECT)
		goto out;

	switch (ev->event) {
	case IB_CM_SIDR_REQ_ERROR:
		event.event = RDMA_CM_EVENT_UNREACHABLE;
		event.status = -ETIMEDOUT;
		break;
	case IB_CM_SIDR_REP_RECEIVED:
		event.param.ud.private_data = ev->private_data;
		event.param.ud.private_data_len = IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
		if (rep->status != IB_SIDR_SUCCESS) {
			event.event = RDMA_CM_EVENT_UNREACHABLE;
			event.status = rep->status;
			break;
		}
		ret = cma_set_qkey(id_priv, rep->qkey);
		if (ret) {
			pr_debug_ratelimited("RDMA CM: ADDR_ERROR: failed to set qkey. status %d\n",
					     ret);
			event.event = RDMA_CM_EVENT_ADDR_ERROR;
			event.status = ret;
			break;
		}
		ret = ib_init_ah_attr_from_path(id->device, id->port_num,
						id->route.path_rec,
						&event.param.ud.ah_attr,
						rep->sgid_attr);
		if (ret) {
			event.event = RDMA_CM_EVENT_ADDR_ERROR;
			event.status = ret;
			break;
		}
		event.param.ud.qp_num = rep->qpn;
		event.param.ud.qkey = rep->qkey;
		event.event = RDMA_CM_EVENT_ESTABLISHED;
		break;
	default:
		pr_err("RDMA CMA: unexpected IB CM event: %d\n", ev->event);
		goto out;
	}

	ret = cma_deliver(id_priv, &event);
	rdma_destroy_ah_attr(&event.param.ud.ah_attr);
	if (ret) {
		/* ib_cm destroys its id when we return nonzero. */
		id_priv->cm_ib = NULL;
		cma_destroy_id_unlock(id_priv);
		return ret;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

int cma_sidr_connect(struct rdma_id_private *id_priv,
		     struct rdma_conn_param *conn_param)
{
	struct ib_cm_sidr_req_param req = {};
	struct ib_cm_id *cm_id;
	size_t len;
	void *data;
	int ret;

	len = sizeof(struct cma_hdr) + conn_param->private_data_len;
	if (len > IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	if (!id_priv->id.route.path_rec)
		return -EINVAL;

	data = kzalloc(len, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	if (conn_param->private_data && conn_param->private_data_len)
		memcpy(data + sizeof(struct cma_hdr), conn_param->private_data,
		       conn_param->private_data_len);
	cma_format_hdr(data, id_priv);

	cm_id = ib_create_cm_id(id_priv->id.device, cma_sidr_rep_handler,
				id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out;
	}
	id_priv->cm_ib = cm_id;

	req.path = id_priv->id.route.path_rec;
	req.sgid_attr = id_priv->id.route.addr.dev_addr.sgid_attr;
	req.service_id = rdma_get_service_id(&id_priv->id, cma_dst_addr(id_priv));
	req.timeout_ms = 1 << (CMA_CM_RESPONSE_TIMEOUT - 8);
	req.max_cm_retries = CMA_MAX_CM_RETRIES;
	req.private_data = data;
	req.private_data_len = len;

	trace_cm_send_sidr_req(id_priv);
	ret = ib_send_cm_sidr_req(cm_id, &req);
	if (ret) {
		ib_destroy_cm_id(cm_id);
		id_priv->cm_ib = NULL;
	}
out:
	kfree(data);
	return ret;
}

int cma_sidr_rep(struct rdma_id_private *id_priv, int status, u32 qkey,
		 const void *data, u8 len)
{
	struct ib_cm_sidr_rep_param rep = {};
	int ret;

	if (!id_priv->cm_ib)
		return -EINVAL;

	rep.status = status;
	if (status == IB_SIDR_SUCCESS) {
		ret = qkey ? cma_set_qkey(id_priv, qkey) :
			     cma_set_default_qkey(id_priv);
		if (ret)
			return ret;
		rep.qp_num = id_priv->qp_num;
		rep.qkey = id_priv->qkey;
		rep.ece.vendor_id = id_priv->ece.vendor_id;
		rep.ece.attr_mod = id_priv->ece.attr_mod;
	}
	rep.private_data = data;
	rep.private_data_len = len;

	trace_cm_send_sidr_rep(id_priv);
	return ib_send_cm_sidr_rep(id_priv->cm_ib, &rep);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * iWARP ids: connections are TCP connections that iw_cm and the driver
 * make; rdma_cm maps its calls onto iw_cm's and iw_cm's events onto
 * rdma_cm events.  There is no path and no cma header: the addresses
 * are the TCP endpoints.
 */
#include <linux/slab.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"

static int cma_iw_handler(struct iw_cm_id *iw_id, struct iw_cm_event *iw_event)
{
	struct rdma_id_private *id_priv = iw_id->context;
	struct rdma_cm_event event = {};
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	if (cma_state(id_priv) != RDMA_CM_CONNECT)
		goto out;

	switch (iw_event->event) {
	case IW_CM_EVENT_CLOSE:
		event.event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	case IW_CM_EVENT_CONNECT_REPLY:
		memcpy(cma_src_addr(id_priv), &iw_event->local_addr,
		       rdma_addr_size((struct sockaddr *)&iw_event->local_addr));
		memcpy(cma_dst_addr(id_priv), &iw_event->remote_addr,
		       rdma_addr_size((struct sockaddr *)&iw_event->remote_addr));
		switch (iw_event->status) {
		case 0:
			event.event = RDMA_CM_EVENT_ESTABLISHED;
			event.param.conn.initiator_depth = iw_event->ird;
			event.param.conn.responder_resources = iw_event->ord;
			break;
		case -ECONNRESET:
		case -ECONNREFUSED:
			event.event = RDMA_CM_EVENT_REJECTED;
			break;
		case -ETIMEDOUT:
			event.event = RDMA_CM_EVENT_UNREACHABLE;
			break;
		default:
			event.event = RDMA_CM_EVENT_CONNECT_ERROR;
			break;
		}
		break;
	case IW_CM_EVENT_ESTABLISHED:
		event.event = RDMA_CM_EVENT_ESTABLISHED;
		event.param.conn.initiator_depth = iw_event->ird;
		event.param.conn.responder_resources = iw_event->ord;
		break;
	default:
		goto out;
	}

	event.status = iw_event->status;
	event.param.conn.private_data = iw_event->private_data;
	event.param.conn.private_data_len = iw_event->private_data_len;
	ret = cma_deliver(id_priv, &event);
	if (ret) {
		/* iw_cm destroys its id when we return nonzero. */
		id_priv->cm_iw = NULL;
		cma_destroy_id_unlock(id_priv);
		return ret;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

static int cma_iw_req_handler(struct iw_cm_id *cm_id,
			      struct iw_cm_event *iw_event)
{
	struct rdma_id_private *listener = cm_id->context, *owner, *conn;
	struct rdma_cm_event event = {};
	int ret = -ECONNABORTED;

	owner = cma_lock_listener(listener);
	if (!cma_listener_listens(listener))
		goto out;

	conn = cma_create_id(listener->net, owner->id.event_handler,
			     owner->id.context, RDMA_PS_TCP, IB_QPT_RC,
			     listener);
	if (IS_ERR(conn)) {
		ret = PTR_ERR(conn);
		goto out;
	}
	mutex_lock_nested(&conn->handler_mutex, CMA_LOCK_CONN);
	conn->state = RDMA_CM_CONNECT;

	memcpy(cma_src_addr(conn), &iw_event->local_addr,
	       sizeof(iw_event->local_addr));
	memcpy(cma_dst_addr(conn), &iw_event->remote_addr,
	       sizeof(iw_event->remote_addr));
	ret = rdma_translate_ip(cma_src_addr(conn),
				&conn->id.route.addr.dev_addr);
	if (ret) {
		cma_unlock_listener(listener);
		cma_destroy_id_unlock(conn);
		return ret;
	}
	conn->id.port_num = listener->id.port_num ?:
			    rdma_start_port(listener->id.device);
	mutex_lock(&cma_lock);
	cma_attach_to_dev(conn, listener->cma_dev);
	mutex_unlock(&cma_lock);

	conn->cm_iw = cm_id;
	cm_id->context = conn;
	cm_id->cm_handler = cma_iw_handler;
	conn->tos = listener->tos;
	conn->tos_set = listener->tos_set;

	event.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	event.param.conn.private_data = iw_event->private_data;
	event.param.conn.private_data_len = iw_event->private_data_len;
	event.param.conn.initiator_depth = iw_event->ird;
	event.param.conn.responder_resources = iw_event->ord;

	ret = cma_deliver(conn, &event);
	if (ret) {
		conn->cm_iw = NULL;
		cma_unlock_listener(listener);
		cma_destroy_id_unlock(conn);
		return ret;
	}
	mutex_unlock(&conn->handler_mutex);
out:
	cma_unlock_listener(listener);
	return ret;
}

int cma_iw_listen(struct rdma_id_private *id_priv, int backlog)
{
	struct iw_cm_id *iw_id;
	int ret;

	iw_id = iw_create_cm_id(id_priv->id.device, cma_iw_req_handler, id_priv);
	if (IS_ERR(iw_id))
		return PTR_ERR(iw_id);

	iw_id->tos = id_priv->tos;
	iw_id->tos_set = id_priv->tos_set;
	iw_id->afonly = id_priv->afonly;
	memcpy(&iw_id->local_addr, cma_src_addr(id_priv),
	       rdma_addr_size(cma_src_addr(id_priv)));
	id_priv->cm_iw = iw_id;

	ret = iw_cm_listen(iw_id, backlog);
	if (ret) {
		iw_destroy_cm_id(iw_id);
		id_priv->cm_iw = NULL;
	}
	return ret;
}

int cma_iw_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param)
{
	struct iw_cm_conn_param iw_param = {};
	struct iw_cm_id *iw_id;
	int ret;

	iw_id = iw_create_cm_id(id_priv->id.device, cma_iw_handler, id_priv);
	if (IS_ERR(iw_id))
		return PTR_ERR(iw_id);

	iw_id->tos = id_priv->tos;
	iw_id->tos_set = id_priv->tos_set;
	iw_id->afonly = id_priv->afonly;
	id_priv->cm_iw = iw_id;
	memcpy(&iw_id->local_addr, cma_src_addr(id_priv),
	       rdma_addr_size(cma_src_addr(id_priv)));
	memcpy(&iw_id->remote_addr, cma_dst_addr(id_priv),
	       rdma_addr_size(cma_dst_addr(id_priv)));

	ret = cma_modify_qp_rtr(id_priv, conn_param);
	if (ret)
		goto err;

	if (conn_param) {
		iw_param.ord = conn_param->initiator_depth;
		iw_param.ird = conn_param->responder_resources;
		iw_param.private_data = conn_param->private_data;
		iw_param.private_data_len = conn_param->private_data_len;
		iw_param.qpn = id_priv->id.qp ? id_priv->qp_num :
						conn_param->qp_num;
	} else {
		iw_param.qpn = id_priv->qp_num;
	}
	ret = iw_cm_connect(iw_id, &iw_param);
	if (ret)
		goto err;
	return 0;

err:
	iw_destroy_cm_id(iw_id);
	id_priv->cm_iw = NULL;
	return ret;
}

int cma_iw_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param)
{
	struct iw_cm_conn_param iw_param = {};
	int ret;

	if (!conn_param)
		return -EINVAL;

	ret = cma_modify_qp_rtr(id_priv, conn_param);
	if (ret)
		return ret;

	iw_param.ord = conn_param->initiator_depth;
	iw_param.ird = conn_param->responder_resources;
	iw_param.private_data = conn_param->private_data;
	iw_param.private_data_len = conn_param->private_data_len;
	iw_param.qpn = id_priv->id.qp ? id_priv->qp_num : conn_param->qp_num;
	return iw_cm_accept(id_priv->cm_iw, &iw_param);
}

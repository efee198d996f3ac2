// SPDX-License-Identifier: GPL-2.0-only
/*
 * Connections over ib_cm (IB and RoCE): listen, the connection request
 * handler that turns a REQ into a new id, connect, accept, reject,
 * disconnect, and the ib_cm events of a connected id.
 *
 * On an IP port space the service ID carries the port space and the
 * destination port, and the first 36 bytes of the REQ's private data
 * (struct cma_hdr) say which addresses are connecting; the consumer's
 * private data follows.  Every listener on one device and service ID
 * shares one ib_cm listen id (ib_cm_insert_listen()); the request handler
 * picks the rdma_cm listener from the header's destination address and
 * the network device the request came in on.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"
#include "cma_trace.h"

/* ---------------------------------------------------------------- */
/* The cma header                                                     */

void cma_format_hdr(struct cma_hdr *hdr, struct rdma_id_private *id_priv)
{
	struct sockaddr *src = cma_src_addr(id_priv);
	struct sockaddr *dst = cma_dst_addr(id_priv);

	hdr->cma_version = CMA_VERSION;
	if (src->sa_family == AF_INET) {
		hdr->ip_version = 4 << 4;
		hdr->src_addr.ip4.addr = ((struct sockaddr_in *)src)->sin_addr.s_addr;
		hdr->dst_addr.ip4.addr = ((struct sockaddr_in *)dst)->sin_addr.s_addr;
		hdr->port = ((struct sockaddr_in *)src)->sin_port;
	} else {
		hdr->ip_version = 6 << 4;
		hdr->src_addr.ip6 = ((struct sockaddr_in6 *)src)->sin6_addr;
		hdr->dst_addr.ip6 = ((struct sockaddr_in6 *)dst)->sin6_addr;
		hdr->port = ((struct sockaddr_in6 *)src)->sin6_port;
	}
}

/*
 * The addresses of a request: @src the peer's (the header's source and
 * port), @dst ours (the header's destination, @dst_port from the
 * service ID).  -EINVAL for a header we do not understand.
 */
int cma_hdr_addrs(const struct cma_hdr *hdr, __be16 dst_port,
		  struct sockaddr *src, struct sockaddr *dst)
{
	struct sockaddr_in *src4 = (struct sockaddr_in *)src;
	struct sockaddr_in *dst4 = (struct sockaddr_in *)dst;
	struct sockaddr_in6 *src6 = (struct sockaddr_in6 *)src;
	struct sockaddr_in6 *dst6 = (struct sockaddr_in6 *)dst;

	if (!hdr || hdr->cma_version != CMA_VERSION)
		return -EINVAL;

	switch (hdr->ip_version >> 4) {
	case 4:
		memset(src4, 0, sizeof(*src4));
		memset(dst4, 0, sizeof(*dst4));
		src4->sin_family = AF_INET;
		src4->sin_addr.s_addr = hdr->src_addr.ip4.addr;
		src4->sin_port = hdr->port;
		dst4->sin_family = AF_INET;
		dst4->sin_addr.s_addr = hdr->dst_addr.ip4.addr;
		dst4->sin_port = dst_port;
		return 0;
	case 6:
		memset(src6, 0, sizeof(*src6));
		memset(dst6, 0, sizeof(*dst6));
		src6->sin6_family = AF_INET6;
		src6->sin6_addr = hdr->src_addr.ip6;
		src6->sin6_port = hdr->port;
		dst6->sin6_family = AF_INET6;
		dst6->sin6_addr = hdr->dst_addr.ip6;
		dst6->sin6_port = dst_port;
		return 0;
	default:
		return -EINVAL;
	}
}

/* ---------------------------------------------------------------- */
/* Listen                                                             */

int cma_ib_listen(struct rdma_id_private *id_priv)
{
	struct ib_cm_id *cm_id;
	__be64 svc_id;

	svc_id = rdma_get_service_id(&id_priv->id, cma_src_addr(id_priv));
	cm_id = ib_cm_insert_listen(id_priv->id.device, cma_ib_req_handler,
				    svc_id);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	id_priv->cm_ib = cm_id;
	return 0;
}

/* Start listening on a bound id's device (state already LISTEN). */
static int cma_listen_on_bound_dev(struct rdma_id_private *id_priv)
{
	struct ib_device *device = id_priv->id.device;
	u32 port = id_priv->id.port_num ?: rdma_start_port(device);

	if (rdma_cap_ib_cm(device, port))
		return cma_ib_listen(id_priv);
	if (rdma_cap_iw_cm(device, port))
		return cma_iw_listen(id_priv, id_priv->backlog);
	return -EOPNOTSUPP;
}

/*
 * Give wildcard listener @id_priv an internal listener on @cma_dev
 * (cma_lock held).  On failure *@to_destroy is the half-made child,
 * which the caller destroys once it dropped cma_lock.
 */
int cma_listen_on_dev(struct rdma_id_private *id_priv,
		      struct cma_device *cma_dev,
		      struct rdma_id_private **to_destroy)
{
	struct rdma_id_private *child;
	int ret;

	lockdep_assert_held(&cma_lock);
	*to_destroy = NULL;

	child = cma_create_id(id_priv->net, id_priv->id.event_handler,
			      id_priv->id.context, id_priv->id.ps,
			      id_priv->id.qp_type, id_priv);
	if (IS_ERR(child))
		return PTR_ERR(child);

	child->internal = true;
	child->parent = id_priv;
	cma_id_get(id_priv);
	memcpy(cma_src_addr(child), cma_src_addr(id_priv),
	       rdma_addr_size(cma_src_addr(id_priv)));
	child->afonly = id_priv->afonly;
	child->tos = id_priv->tos;
	child->tos_set = id_priv->tos_set;
	child->timeout = id_priv->timeout;
	child->timeout_set = id_priv->timeout_set;
	child->min_rnr_timer = id_priv->min_rnr_timer;
	child->min_rnr_timer_set = id_priv->min_rnr_timer_set;
	child->backlog = id_priv->backlog;
	child->state = RDMA_CM_LISTEN;
	cma_attach_to_dev(child, cma_dev);
	list_add_tail(&child->listen_item, &id_priv->listen_children);

	ret = cma_listen_on_bound_dev(child);
	if (ret) {
		list_del_init(&child->listen_item);
		*to_destroy = child;
		dev_warn(&cma_dev->device->dev,
			 "RDMA CMA: %s, error %d\n", __func__, ret);
	}
	return ret;
}

static int cma_listen_on_all(struct rdma_id_private *id_priv)
{
	struct rdma_id_private *to_destroy = NULL;
	struct cma_device *cma_dev;
	int ret = 0;

	mutex_lock(&cma_lock);
	list_add_tail(&id_priv->device_item, &cma_listen_any);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		ret = cma_listen_on_dev(id_priv, cma_dev, &to_destroy);
		if (ret)
			break;
	}
	mutex_unlock(&cma_lock);

	if (ret) {
		if (to_destroy)
			rdma_destroy_id(&to_destroy->id);
		cma_cancel_listens(id_priv);
	}
	return ret;
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct sockaddr_in any = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int ret;

	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN)) {
		/* Not bound yet: listen on every IPv4 address. */
		ret = cma_bind(id_priv, (struct sockaddr *)&any);
		if (ret)
			return ret;
		if (WARN_ON(!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND,
					   RDMA_CM_LISTEN)))
			return -EINVAL;
	}

	mutex_lock(&cma_lock);
	ret = cma_check_listen_port(id_priv);
	mutex_unlock(&cma_lock);
	if (ret)
		goto err;

	id_priv->backlog = backlog;
	if (id_priv->cma_dev)
		ret = cma_listen_on_bound_dev(id_priv);
	else
		ret = cma_listen_on_all(id_priv);
	if (ret)
		goto err;
	return 0;

err:
	id_priv->backlog = 0;
	/* No request handler can have seen the id: it was not listening. */
	cma_comp_exch(id_priv, RDMA_CM_LISTEN, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL(rdma_listen);

/* ---------------------------------------------------------------- */
/* Events of a connecting or connected id                             */

static void cma_set_rep_event(struct rdma_cm_event *event,
			      const struct ib_cm_rep_event_param *rep,
			      void *private_data)
{
	event->param.conn.private_data = private_data;
	event->param.conn.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE;
	event->param.conn.responder_resources = rep->responder_resources;
	event->param.conn.initiator_depth = rep->initiator_depth;
	event->param.conn.flow_control = rep->flow_control;
	event->param.conn.rnr_retry_count = rep->rnr_retry_count;
	event->param.conn.srq = rep->srq;
	event->param.conn.qp_num = rep->remote_qpn;
	event->ece.vendor_id = rep->ece.vendor_id;
	event->ece.attr_mod = rep->ece.attr_mod;
}

/*
 * The REP came and the consumer owns a QP: bring it up and confirm with
 * an RTU.  Else the consumer gets CONNECT_RESPONSE and calls
 * rdma_accept() to do this.
 */
static int cma_rep_recv(struct rdma_id_private *id_priv)
{
	int ret;

	ret = cma_modify_qp_rtr(id_priv, NULL);
	if (ret)
		goto reject;
	ret = cma_modify_qp_rts(id_priv, NULL);
	if (ret)
		goto reject;

	trace_cm_send_rtu(id_priv);
	ret = ib_send_cm_rtu(id_priv->cm_ib, NULL, 0);
	if (ret)
		goto reject;
	return 0;

reject:
	pr_debug_ratelimited("RDMA CM: CONNECT_ERROR: failed to handle reply. status %d\n",
			     ret);
	cma_modify_qp_err(id_priv);
	trace_cm_send_rej(id_priv);
	ib_send_cm_rej(id_priv->cm_ib, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
		       NULL, 0);
	return ret;
}

static int cma_ib_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_cm_event event = {};
	enum rdma_cm_state state;
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	if (ev->event == IB_CM_TIMEWAIT_EXIT ? state != RDMA_CM_DISCONNECT :
					       state != RDMA_CM_CONNECT)
		goto out;

	switch (ev->event) {
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		event.event = RDMA_CM_EVENT_UNREACHABLE;
		event.status = -ETIMEDOUT;
		break;
	case IB_CM_REP_RECEIVED:
		if (id_priv->id.qp) {
			event.status = cma_rep_recv(id_priv);
			event.event = event.status ? RDMA_CM_EVENT_CONNECT_ERROR :
						     RDMA_CM_EVENT_ESTABLISHED;
		} else {
			event.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
		}
		cma_set_rep_event(&event, &ev->param.rep_rcvd, ev->private_data);
		break;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		event.event = RDMA_CM_EVENT_ESTABLISHED;
		break;
	case IB_CM_DREQ_ERROR:
		event.status = -ETIMEDOUT;
		fallthrough;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREP_RECEIVED:
		if (!cma_comp_exch(id_priv, RDMA_CM_CONNECT,
				   RDMA_CM_DISCONNECT))
			goto out;
		event.event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	case IB_CM_TIMEWAIT_EXIT:
		event.event = RDMA_CM_EVENT_TIMEWAIT_EXIT;
		break;
	case IB_CM_REJ_RECEIVED:
		pr_debug_ratelimited("RDMA CM: REJECTED: %s\n",
				     rdma_reject_msg(&id_priv->id,
						     ev->param.rej_rcvd.reason));
		cma_modify_qp_err(id_priv);
		event.status = ev->param.rej_rcvd.reason;
		event.event = RDMA_CM_EVENT_REJECTED;
		event.param.conn.private_data = ev->private_data;
		event.param.conn.private_data_len = IB_CM_REJ_PRIVATE_DATA_SIZE;
		break;
	case IB_CM_MRA_RECEIVED:
	default:
		/* Nothing for the consumer (LAP/APR are not used). */
		goto out;
	}

	ret = cma_deliver(id_priv, &event);
	if (ret) {
		/* Returning nonzero makes ib_cm destroy its id itself. */
		id_priv->cm_ib = NULL;
		cma_destroy_id_unlock(id_priv);
		return ret;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Incoming requests                                                  */

/* What a REQ or SIDR REQ says, whichever it is. */
struct cma_req {
	const struct ib_gid_attr *sgid_attr;
	__be64 service_id;
	u32 port;
	enum ib_qp_type qp_type;
	struct sockaddr_storage src;	/* the peer */
	struct sockaddr_storage dst;	/* us */
};

static int cma_parse_req(struct ib_cm_id *cm_id, const struct ib_cm_event *ev,
			 struct cma_req *req)
{
	const struct ib_cm_req_event_param *rq = &ev->param.req_rcvd;
	const struct ib_cm_sidr_req_event_param *sq = &ev->param.sidr_req_rcvd;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		req->sgid_attr = rq->ppath_sgid_attr;
		req->service_id = rq->primary_path->service_id ?:
				  cm_id->service_id;
		req->port = rq->port;
		req->qp_type = rq->qp_type;
		break;
	case IB_CM_SIDR_REQ_RECEIVED:
		req->sgid_attr = sq->sgid_attr;
		req->service_id = sq->service_id;
		req->port = sq->port;
		req->qp_type = IB_QPT_UD;
		break;
	default:
		return -EINVAL;
	}
	/* Without the GID the request came to, no netdev: RoCE only. */
	if (!req->sgid_attr)
		return -EINVAL;

	return cma_hdr_addrs(ev->private_data,
			     cpu_to_be16(be64_to_cpu(req->service_id) & 0xffff),
			     (struct sockaddr *)&req->src,
			     (struct sockaddr *)&req->dst);
}

/*
 * Does the request's QP type fit the listener?  As stock, it must be the
 * listener's own: an RC listener (every TCP port space one) takes no UC,
 * XRC or unknown transport, which its ULP could not serve; a SIDR REQ
 * (@qp_type UD) needs a UD listener.  Only a listener created with QP
 * type 0, which no port space of rdma_ucm hands out, takes any.
 */
static bool cma_req_qp_type_ok(struct rdma_id_private *listener,
			       enum ib_qp_type qp_type)
{
	return !listener->id.qp_type || listener->id.qp_type == qp_type;
}

/*
 * A new id for a request to @listener, in state CONNECT, attached to
 * the listener's device, the request's port and GID.
 */
static struct rdma_id_private *
cma_new_conn_id(struct rdma_id_private *listener, const struct cma_req *req,
		const struct ib_cm_event *ev, struct net_device *ndev)
{
	struct rdma_id_private *owner = listener->internal ? listener->parent :
							     listener;
	struct rdma_id_private *conn;
	struct rdma_route *route;

	conn = cma_create_id(listener->net, owner->id.event_handler,
			     owner->id.context, listener->id.ps, req->qp_type,
			     listener);
	if (IS_ERR(conn))
		return conn;

	route = &conn->id.route;
	memcpy(&route->addr.src_addr, &req->dst, sizeof(req->dst));
	memcpy(&route->addr.dst_addr, &req->src, sizeof(req->src));

	if (ev->event == IB_CM_REQ_RECEIVED) {
		const struct ib_cm_req_event_param *rq = &ev->param.req_rcvd;

		route->num_pri_alt_paths = rq->alternate_path ? 2 : 1;
		route->path_rec = kmalloc_array(route->num_pri_alt_paths,
						sizeof(*route->path_rec),
						GFP_KERNEL);
		if (!route->path_rec)
			goto err;
		route->path_rec[0] = *rq->primary_path;
		if (rq->alternate_path)
			route->path_rec[1] = *rq->alternate_path;
	}

	rdma_copy_src_l2_addr(&route->addr.dev_addr, ndev);
	if (route->path_rec) {
		rdma_addr_set_dgid(&route->addr.dev_addr, &route->path_rec[0].dgid);
		if (sa_path_is_roce(&route->path_rec[0]))
			memcpy(route->addr.dev_addr.dst_dev_addr,
			       sa_path_get_dmac(&route->path_rec[0]), ETH_ALEN);
	}
	conn->afonly = listener->afonly;
	conn->state = RDMA_CM_CONNECT;
	conn->id.port_num = req->port;
	conn->gid_type = req->sgid_attr->gid_type;
	route->addr.dev_addr.sgid_attr = req->sgid_attr;
	rdma_hold_gid_attr(req->sgid_attr);

	mutex_lock(&cma_lock);
	cma_attach_to_dev(conn, listener->cma_dev);
	mutex_unlock(&cma_lock);
	return conn;

err:
	rdma_restrack_del(&conn->res);
	put_net(conn->net);
	kfree(conn);
	return ERR_PTR(-ENOMEM);
}

static void cma_set_req_event(struct rdma_cm_event *event,
			      const struct ib_cm_event *ev)
{
	const struct ib_cm_req_event_param *rq = &ev->param.req_rcvd;
	const int offset = sizeof(struct cma_hdr);

	event->event = RDMA_CM_EVENT_CONNECT_REQUEST;
	if (ev->event == IB_CM_SIDR_REQ_RECEIVED) {
		event->param.ud.private_data = ev->private_data + offset;
		event->param.ud.private_data_len =
			IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - offset;
		return;
	}
	event->param.conn.private_data = ev->private_data + offset;
	event->param.conn.private_data_len =
		IB_CM_REQ_PRIVATE_DATA_SIZE - offset;
	event->param.conn.responder_resources = rq->responder_resources;
	event->param.conn.initiator_depth = rq->initiator_depth;
	event->param.conn.flow_control = rq->flow_control;
	event->param.conn.retry_count = rq->retry_count;
	event->param.conn.rnr_retry_count = rq->rnr_retry_count;
	event->param.conn.srq = rq->srq;
	event->param.conn.qp_num = rq->remote_qpn;
	event->ece.vendor_id = rq->ece.vendor_id;
	event->ece.attr_mod = rq->ece.attr_mod;
}

int cma_ib_req_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	struct rdma_id_private *listener, *conn;
	struct rdma_cm_event event = {};
	struct net_device *ndev;
	struct cma_req req;
	int ret;

	ret = cma_parse_req(cm_id, ev, &req);
	if (ret)
		return ret;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(req.sgid_attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	if (!ndev)
		return -ENODEV;

	listener = cma_find_listener(dev_net(ndev), cm_id->device,
				     req.service_id,
				     (struct sockaddr *)&req.dst,
				     ndev->ifindex);
	if (!listener) {
		ret = -EINVAL;
		goto out_ndev;
	}
	if (!cma_req_qp_type_ok(listener, req.qp_type)) {
		ret = -EINVAL;
		goto out_listener;
	}

	/* The listeners' mutexes keep them listening while we hand over. */
	cma_lock_listener(listener);
	if (!cma_listener_listens(listener)) {
		ret = -ECONNABORTED;
		goto out_unlock;
	}
	trace_cm_req_handler(listener, ev->event);

	conn = cma_new_conn_id(listener, &req, ev, ndev);
	if (IS_ERR(conn)) {
		ret = PTR_ERR(conn);
		goto out_unlock;
	}

	mutex_lock_nested(&conn->handler_mutex, CMA_LOCK_CONN);
	conn->cm_ib = cm_id;
	cm_id->context = conn;
	if (ev->event == IB_CM_REQ_RECEIVED) {
		cm_id->cm_handler = cma_ib_handler;
		conn->ece.vendor_id = ev->param.req_rcvd.ece.vendor_id;
		conn->ece.attr_mod = ev->param.req_rcvd.ece.attr_mod;
	}
	cma_set_req_event(&event, ev);

	ret = cma_deliver(conn, &event);
	if (ret) {
		/* ib_cm destroys cm_id (and rejects) when we fail. */
		conn->cm_ib = NULL;
		cma_unlock_listener(listener);
		cma_destroy_id_unlock(conn);
		goto out_listener;
	}

	/* Not accepted yet: tell the peer's CM to wait for us. */
	if (cma_state(conn) == RDMA_CM_CONNECT && conn->id.qp_type != IB_QPT_UD) {
		trace_cm_send_mra(conn);
		ib_send_cm_mra(cm_id, CMA_CM_MRA_SETTING, NULL, 0);
	}
	mutex_unlock(&conn->handler_mutex);

out_unlock:
	cma_unlock_listener(listener);
out_listener:
	cma_id_put(listener);
out_ndev:
	dev_put(ndev);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Connect, accept, reject, disconnect                                */

int cma_ib_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param)
{
	struct rdma_route *route = &id_priv->id.route;
	struct ib_cm_req_param req = {};
	struct ib_cm_id *cm_id;
	size_t len;
	void *data;
	int ret;

	len = sizeof(struct cma_hdr) + conn_param->private_data_len;
	if (len > IB_CM_REQ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	if (!route->path_rec)
		return -EINVAL;

	data = kzalloc(len, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	if (conn_param->private_data && conn_param->private_data_len)
		memcpy(data + sizeof(struct cma_hdr), conn_param->private_data,
		       conn_param->private_data_len);
	cma_format_hdr(data, id_priv);

	cm_id = ib_create_cm_id(id_priv->id.device, cma_ib_handler, id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out;
	}
	id_priv->cm_ib = cm_id;

	req.primary_path = &route->path_rec[0];
	req.primary_path_inbound = route->path_rec_inbound;
	req.primary_path_outbound = route->path_rec_outbound;
	if (route->num_pri_alt_paths == 2)
		req.alternate_path = &route->path_rec[1];
	req.ppath_sgid_attr = route->addr.dev_addr.sgid_attr;
	req.service_id = rdma_get_service_id(&id_priv->id, cma_dst_addr(id_priv));
	req.qp_num = id_priv->qp_num;
	req.qp_type = id_priv->id.qp_type;
	req.starting_psn = id_priv->seq_num;
	req.private_data = data;
	req.private_data_len = len;
	req.responder_resources = conn_param->responder_resources;
	req.initiator_depth = conn_param->initiator_depth;
	req.flow_control = conn_param->flow_control;
	req.retry_count = min_t(u8, 7, conn_param->retry_count);
	req.rnr_retry_count = min_t(u8, 7, conn_param->rnr_retry_count);
	req.remote_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.local_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.max_cm_retries = CMA_MAX_CM_RETRIES;
	req.srq = id_priv->srq ? 1 : 0;
	req.ece.vendor_id = id_priv->ece.vendor_id;
	req.ece.attr_mod = id_priv->ece.attr_mod;

	trace_cm_send_req(id_priv);
	ret = ib_send_cm_req(cm_id, &req);
	if (ret) {
		ib_destroy_cm_id(cm_id);
		id_priv->cm_ib = NULL;
	}
out:
	kfree(data);
	return ret;
}

int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT))
		return -EINVAL;

	if (!id->qp) {
		id_priv->qp_num = conn_param->qp_num;
		id_priv->srq = conn_param->srq;
	}

	if (rdma_cap_ib_cm(id->device, id->port_num)) {
		if (id->qp_type == IB_QPT_UD)
			ret = cma_sidr_connect(id_priv, conn_param);
		else
			ret = cma_ib_connect(id_priv, conn_param);
	} else if (rdma_cap_iw_cm(id->device, id->port_num)) {
		ret = cma_iw_connect(id_priv, conn_param);
	} else {
		ret = -EOPNOTSUPP;
	}
	if (ret)
		goto err;
	return 0;

err:
	cma_comp_exch(id_priv, RDMA_CM_CONNECT, RDMA_CM_ROUTE_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_connect_locked);

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	ret = rdma_connect_locked(id, conn_param);
	mutex_unlock(&id_priv->handler_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_connect);

int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	id_priv->ece.vendor_id = ece->vendor_id;
	id_priv->ece.attr_mod = ece->attr_mod;
	return rdma_connect(id, conn_param);
}
EXPORT_SYMBOL(rdma_connect_ece);

int cma_ib_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param)
{
	struct ib_cm_rep_param rep = {};
	int ret;

	ret = cma_modify_qp_rtr(id_priv, conn_param);
	if (ret)
		return ret;
	ret = cma_modify_qp_rts(id_priv, conn_param);
	if (ret)
		return ret;

	rep.qp_num = id_priv->qp_num;
	rep.starting_psn = id_priv->seq_num;
	rep.private_data = conn_param->private_data;
	rep.private_data_len = conn_param->private_data_len;
	rep.responder_resources = conn_param->responder_resources;
	rep.initiator_depth = conn_param->initiator_depth;
	rep.failover_accepted = 0;
	rep.flow_control = conn_param->flow_control;
	rep.rnr_retry_count = min_t(u8, 7, conn_param->rnr_retry_count);
	rep.srq = id_priv->srq ? 1 : 0;
	rep.ece.vendor_id = id_priv->ece.vendor_id;
	rep.ece.attr_mod = id_priv->ece.attr_mod;

	trace_cm_send_rep(id_priv);
	return ib_send_cm_rep(id_priv->cm_ib, &rep);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);

	if (cma_state(id_priv) != RDMA_CM_CONNECT)
		return -EINVAL;

	if (!id->qp && conn_param) {
		id_priv->qp_num = conn_param->qp_num;
		id_priv->srq = conn_param->srq;
	}

	if (rdma_cap_ib_cm(id->device, id->port_num)) {
		if (id->qp_type == IB_QPT_UD)
			ret = conn_param ?
			      cma_sidr_rep(id_priv, IB_SIDR_SUCCESS,
					   conn_param->qkey,
					   conn_param->private_data,
					   conn_param->private_data_len) :
			      cma_sidr_rep(id_priv, IB_SIDR_SUCCESS, 0, NULL, 0);
		else if (conn_param)
			ret = cma_ib_accept(id_priv, conn_param);
		else
			ret = cma_rep_recv(id_priv);
	} else if (rdma_cap_iw_cm(id->device, id->port_num)) {
		ret = cma_iw_accept(id_priv, conn_param);
	} else {
		ret = -EOPNOTSUPP;
	}
	if (ret)
		goto reject;
	return 0;

reject:
	cma_modify_qp_err(id_priv);
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return ret;
}
EXPORT_SYMBOL(rdma_accept);

int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	id_priv->ece.vendor_id = ece->vendor_id;
	id_priv->ece.attr_mod = ece->attr_mod;
	return rdma_accept(id, conn_param);
}
EXPORT_SYMBOL(rdma_accept_ece);

int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	if (!id->device)
		return -EINVAL;

	if (rdma_cap_ib_cm(id->device, id->port_num)) {
		if (!id_priv->cm_ib)
			return -EINVAL;
		if (id->qp_type == IB_QPT_UD)
			return cma_sidr_rep(id_priv, IB_SIDR_REJECT, 0,
					    private_data, private_data_len);
		trace_cm_send_rej(id_priv);
		return ib_send_cm_rej(id_priv->cm_ib, reason, NULL, 0,
				      private_data, private_data_len);
	}
	if (rdma_cap_iw_cm(id->device, id->port_num)) {
		if (!id_priv->cm_iw)
			return -EINVAL;
		return iw_cm_reject(id_priv->cm_iw, private_data,
				    private_data_len);
	}
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_reject);

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	if (!id->device)
		return -EINVAL;

	if (rdma_cap_ib_cm(id->device, id->port_num)) {
		if (!id_priv->cm_ib)
			return -EINVAL;
		ret = cma_modify_qp_err(id_priv);
		if (ret)
			return ret;
		trace_cm_disconnect(id_priv);
		/* Having received a DREQ, we answer it instead. */
		if (ib_send_cm_dreq(id_priv->cm_ib, NULL, 0)) {
			if (!ib_send_cm_drep(id_priv->cm_ib, NULL, 0))
				trace_cm_sent_drep(id_priv);
		} else {
			trace_cm_sent_dreq(id_priv);
		}
		return 0;
	}
	if (rdma_cap_iw_cm(id->device, id->port_num)) {
		if (!id_priv->cm_iw)
			return -EINVAL;
		return iw_cm_disconnect(id_priv->cm_iw, 0);
	}
	return -EINVAL;
}
EXPORT_SYMBOL(rdma_disconnect);

int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	if (!id_priv->cm_ib && !id_priv->cm_iw)
		return -EINVAL;
	if (!id_priv->cm_ib)
		return 0;
	return ib_cm_notify(id_priv->cm_ib, event);
}
EXPORT_SYMBOL(rdma_notify);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_cm ids: creation and destruction, the state machine, how events
 * reach the consumer, the options, and the QP an id drives through its
 * states.
 *
 * Events: every event is delivered with the id's handler_mutex held, so a
 * consumer never sees two events of one id at once, and never after
 * rdma_destroy_id() started (the destroyer takes the mutex and moves the
 * id to RDMA_CM_DESTROYING; deliverers check the state under the mutex).
 * A handler that returns nonzero asks for its id to be destroyed: the
 * deliverer does it once the handler returned.
 *
 * Lifetime: the creator holds one reference; work items, lookups and
 * callbacks hold more.  Destruction unpublishes the id (state, port,
 * lists), stops the ib_cm/iw_cm id and the address query, then drops the
 * creator's reference and waits for the others.
 */
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"
#include "cma_trace.h"

static const char * const cma_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "address resolved",
	[RDMA_CM_EVENT_ADDR_ERROR] = "address error",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "route resolved ",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "route error",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "connect request",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "connect response",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "connect error",
	[RDMA_CM_EVENT_UNREACHABLE] = "unreachable",
	[RDMA_CM_EVENT_REJECTED] = "rejected",
	[RDMA_CM_EVENT_ESTABLISHED] = "established",
	[RDMA_CM_EVENT_DISCONNECTED] = "disconnected",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "device removal",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "multicast join",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "multicast error",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "address change",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "timewait exit",
};

const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event)
{
	size_t i = event;

	if (i < ARRAY_SIZE(cma_event_names) && cma_event_names[i])
		return cma_event_names[i];
	return "unrecognized event";
}
EXPORT_SYMBOL(rdma_event_msg);

const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason)
{
	if (rdma_ib_or_roce(id->device, id->port_num))
		return ibcm_reject_msg(reason);
	if (rdma_protocol_iwarp(id->device, id->port_num))
		return iwcm_reject_msg(reason);
	WARN_ON_ONCE(1);
	return "unrecognized transport";
}
EXPORT_SYMBOL(rdma_reject_msg);

/* Did the peer's consumer reject us (rather than its CM or transport)? */
static bool cma_is_consumer_reject(struct rdma_cm_id *id, int reason)
{
	if (rdma_ib_or_roce(id->device, id->port_num))
		return reason == IB_CM_REJ_CONSUMER_DEFINED;
	if (rdma_protocol_iwarp(id->device, id->port_num))
		return reason == -ECONNREFUSED;
	WARN_ON_ONCE(1);
	return false;
}

const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	if (!cma_is_consumer_reject(id, ev->status)) {
		*data_len = 0;
		return NULL;
	}
	*data_len = ev->param.conn.private_data_len;
	return ev->param.conn.private_data;
}
EXPORT_SYMBOL(rdma_consumer_reject_data);

struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *id)
{
	if (id->device && id->device->node_type == RDMA_NODE_RNIC)
		return cma_priv(id)->cm_iw;
	return NULL;
}
EXPORT_SYMBOL(rdma_iw_cm_id);

struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res)
{
	return &container_of(res, struct rdma_id_private, res)->id;
}
EXPORT_SYMBOL(rdma_res_to_id);

void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	struct rdma_addr *addr = &cm_id->route.addr;

	if (!cm_id->device) {
		if (sgid)
			memset(sgid, 0, sizeof(*sgid));
		if (dgid)
			memset(dgid, 0, sizeof(*dgid));
		return;
	}

	if (rdma_protocol_roce(cm_id->device, cm_id->port_num)) {
		if (sgid)
			rdma_ip2gid((struct sockaddr *)&addr->src_addr, sgid);
		if (dgid)
			rdma_ip2gid((struct sockaddr *)&addr->dst_addr, dgid);
	} else {
		if (sgid)
			rdma_addr_get_sgid(&addr->dev_addr, sgid);
		if (dgid)
			rdma_addr_get_dgid(&addr->dev_addr, dgid);
	}
}
EXPORT_SYMBOL(rdma_read_gids);

/* ---------------------------------------------------------------- */
/* State                                                              */

enum rdma_cm_state cma_state(struct rdma_id_private *id_priv)
{
	return READ_ONCE(id_priv->state);
}

/*
 * Moves to or from CONNECT, and to DESTROYING or DEVICE_REMOVAL, hold
 * handler_mutex: a handler holding it sees a stable "connected" and
 * "alive".  (A listener leaves LISTEN only that way too, or on a failed
 * rdma_listen() before anyone could find it.)
 */
static void cma_assert_state_change(struct rdma_id_private *id_priv,
				    enum rdma_cm_state from,
				    enum rdma_cm_state to)
{
	if (from == RDMA_CM_CONNECT || to == RDMA_CM_CONNECT ||
	    to == RDMA_CM_DESTROYING || to == RDMA_CM_DEVICE_REMOVAL)
		lockdep_assert_held(&id_priv->handler_mutex);
}

bool cma_comp_exch(struct rdma_id_private *id_priv, enum rdma_cm_state comp,
		   enum rdma_cm_state exch)
{
	unsigned long flags;
	bool ok;

	cma_assert_state_change(id_priv, comp, exch);
	spin_lock_irqsave(&id_priv->lock, flags);
	ok = id_priv->state == comp;
	if (ok)
		WRITE_ONCE(id_priv->state, exch);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ok;
}

enum rdma_cm_state cma_exch(struct rdma_id_private *id_priv,
			    enum rdma_cm_state exch)
{
	enum rdma_cm_state old;
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	old = id_priv->state;
	cma_assert_state_change(id_priv, old, exch);
	WRITE_ONCE(id_priv->state, exch);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return old;
}

/* ---------------------------------------------------------------- */
/* References and events                                              */

void cma_id_get(struct rdma_id_private *id_priv)
{
	refcount_inc(&id_priv->refcount);
}

void cma_id_put(struct rdma_id_private *id_priv)
{
	if (refcount_dec_and_test(&id_priv->refcount))
		complete(&id_priv->comp);
}

int cma_deliver(struct rdma_id_private *id_priv, struct rdma_cm_event *event)
{
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	trace_cm_event_handler(id_priv, event);
	ret = id_priv->id.event_handler(&id_priv->id, event);
	trace_cm_event_done(id_priv, event, ret);
	return ret;
}

/* An event to deliver from the workqueue; holds an id reference. */
struct cma_work {
	struct work_struct work;
	struct rdma_id_private *id_priv;
	enum rdma_cm_state from;
	enum rdma_cm_state to;
	struct rdma_cm_event event;
};

static void cma_work_handler(struct work_struct *w)
{
	struct cma_work *work = container_of(w, struct cma_work, work);
	struct rdma_id_private *id_priv = work->id_priv;
	enum rdma_cm_state state;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	if (state == RDMA_CM_DESTROYING || state == RDMA_CM_DEVICE_REMOVAL)
		goto out;
	if (work->from != RDMA_CM_IDLE &&
	    !cma_comp_exch(id_priv, work->from, work->to))
		goto out;

	if (cma_deliver(id_priv, &work->event)) {
		cma_id_put(id_priv);
		cma_destroy_id_unlock(id_priv);
		kfree(work);
		return;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
	kfree(work);
}

int cma_queue_event(struct rdma_id_private *id_priv,
		    enum rdma_cm_state from, enum rdma_cm_state to,
		    const struct rdma_cm_event *event)
{
	struct cma_work *work;

	work = kzalloc(sizeof(*work), GFP_KERNEL);
	if (!work)
		return -ENOMEM;

	INIT_WORK(&work->work, cma_work_handler);
	work->id_priv = id_priv;
	work->from = from;
	work->to = to;
	work->event = *event;
	cma_id_get(id_priv);
	queue_work(cma_wq, &work->work);
	return 0;
}

void rdma_lock_handler(struct rdma_cm_id *id)
{
	mutex_lock(&cma_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_lock_handler);

void rdma_unlock_handler(struct rdma_cm_id *id)
{
	mutex_unlock(&cma_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_unlock_handler);

/* The listener a consumer made, which @listener takes requests for. */
static struct rdma_id_private *cma_listener_owner(struct rdma_id_private *listener)
{
	return listener->internal ? listener->parent : listener;
}

/**
 * cma_lock_listener - take the handler locks a connect request needs
 * @listener: the listener the request reached
 *
 * A wildcard listener's per-device child delivers its requests to its
 * parent's consumer: the parent's handler lock is taken too, so that
 * rdma_lock_handler() on the consumer's listener holds off its connect
 * requests as it does its other events (rdma_ucm's MIGRATE_ID relies on
 * it).  Child first: the parent's destruction drops its own lock before
 * it waits for the children.
 *
 * Return: the consumer's listener, the locks held.
 */
struct rdma_id_private *cma_lock_listener(struct rdma_id_private *listener)
{
	struct rdma_id_private *owner = cma_listener_owner(listener);

	mutex_lock_nested(&listener->handler_mutex, CMA_LOCK_LISTENER);
	if (owner != listener)
		mutex_lock_nested(&owner->handler_mutex, CMA_LOCK_OWNER);
	return owner;
}

void cma_unlock_listener(struct rdma_id_private *listener)
{
	struct rdma_id_private *owner = cma_listener_owner(listener);

	if (owner != listener)
		mutex_unlock(&owner->handler_mutex);
	mutex_unlock(&listener->handler_mutex);
}

/*
 * Under cma_lock_listener(): whether a request may still be delivered,
 * which neither a stopping child nor a stopping parent allows.
 */
bool cma_listener_listens(struct rdma_id_private *listener)
{
	struct rdma_id_private *owner = cma_listener_owner(listener);

	lockdep_assert_held(&owner->handler_mutex);
	return cma_state(listener) == RDMA_CM_LISTEN &&
	       cma_state(owner) == RDMA_CM_LISTEN;
}

/* ---------------------------------------------------------------- */
/* Creation                                                           */

struct rdma_id_private *cma_create_id(struct net *net,
				      rdma_cm_event_handler handler,
				      void *context,
				      enum rdma_ucm_port_space ps,
				      enum ib_qp_type qp_type,
				      struct rdma_id_private *parent)
{
	struct rdma_id_private *id_priv;

	id_priv = kzalloc(sizeof(*id_priv), GFP_KERNEL);
	if (!id_priv)
		return ERR_PTR(-ENOMEM);

	id_priv->id.context = context;
	id_priv->id.event_handler = handler;
	id_priv->id.ps = ps;
	id_priv->id.qp_type = qp_type;
	id_priv->state = RDMA_CM_IDLE;
	id_priv->gid_type = IB_GID_TYPE_IB;
	id_priv->timeout_ms = 1 << (CMA_CM_RESPONSE_TIMEOUT - 8);
	id_priv->seq_num = get_random_u32() & 0xffffff;
	spin_lock_init(&id_priv->lock);
	mutex_init(&id_priv->handler_mutex);
	mutex_init(&id_priv->qp_mutex);
	refcount_set(&id_priv->refcount, 1);
	init_completion(&id_priv->comp);
	INIT_LIST_HEAD(&id_priv->device_item);
	INIT_LIST_HEAD(&id_priv->listen_children);
	INIT_LIST_HEAD(&id_priv->listen_item);
	INIT_HLIST_NODE(&id_priv->bind_node);
	spin_lock_init(&id_priv->mc_lock);
	INIT_LIST_HEAD(&id_priv->mc_list);

	id_priv->net = get_net(net);
	id_priv->id.route.addr.dev_addr.net = id_priv->net;

	rdma_restrack_new(&id_priv->res, RDMA_RESTRACK_CM_ID);
	if (parent)
		rdma_restrack_parent_name(&id_priv->res, &parent->res);
	return id_priv;
}

struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller)
{
	struct rdma_id_private *id_priv;

	id_priv = cma_create_id(net, event_handler, context, ps, qp_type,
				NULL);
	if (IS_ERR(id_priv))
		return ERR_CAST(id_priv);
	rdma_restrack_set_name(&id_priv->res, caller);
	return &id_priv->id;
}
EXPORT_SYMBOL(__rdma_create_kernel_id);

struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	struct rdma_id_private *id_priv;

	id_priv = cma_create_id(current->nsproxy->net_ns, event_handler,
				context, ps, qp_type, NULL);
	if (IS_ERR(id_priv))
		return ERR_CAST(id_priv);
	rdma_restrack_set_name(&id_priv->res, NULL);
	return &id_priv->id;
}
EXPORT_SYMBOL(rdma_create_user_id);

/* ---------------------------------------------------------------- */
/* Destruction                                                        */

/*
 * A wildcard listener stops: it leaves cma_listen_any and destroys the
 * internal listeners it had on each device (those that device removal
 * did not take first).
 */
void cma_cancel_listens(struct rdma_id_private *id_priv)
{
	struct rdma_id_private *child;

	mutex_lock(&cma_lock);
	list_del_init(&id_priv->device_item);
	while (!list_empty(&id_priv->listen_children)) {
		child = list_first_entry(&id_priv->listen_children,
					 struct rdma_id_private, listen_item);
		list_del_init(&child->listen_item);
		mutex_unlock(&cma_lock);

		mutex_lock(&child->handler_mutex);
		cma_destroy_id_unlock(child);

		mutex_lock(&cma_lock);
	}
	mutex_unlock(&cma_lock);
}

void cma_destroy_id_unlock(struct rdma_id_private *id_priv)
{
	enum rdma_cm_state state;

	state = cma_exch(id_priv, RDMA_CM_DESTROYING);
	trace_cm_id_destroy(id_priv);
	/*
	 * From here on nothing is delivered: every deliverer checks the
	 * state under handler_mutex.
	 */
	mutex_unlock(&id_priv->handler_mutex);

	/*
	 * rdma_addr_cancel() returns once no resolution callback of the id
	 * runs or will run.  A device removal moves an id in ADDR_QUERY to
	 * DEVICE_REMOVAL with its resolution still queued: cancelling there,
	 * under handler_mutex, would wait for a callback that waits for the
	 * mutex, so it is cancelled here.  Not in the other states: the
	 * callback itself destroys the id from ADDR_RESOLVED or ADDR_BOUND
	 * when the handler asks, and must not wait for itself.
	 */
	if (state == RDMA_CM_ADDR_QUERY || state == RDMA_CM_DEVICE_REMOVAL)
		rdma_addr_cancel(&id_priv->id.route.addr.dev_addr);
	if (state == RDMA_CM_LISTEN && !id_priv->cma_dev)
		cma_cancel_listens(id_priv);

	/* No ib_cm/iw_cm callback of this id runs after these return. */
	if (id_priv->cm_ib) {
		ib_destroy_cm_id(id_priv->cm_ib);
		id_priv->cm_ib = NULL;
	}
	if (id_priv->cm_iw) {
		iw_destroy_cm_id(id_priv->cm_iw);
		id_priv->cm_iw = NULL;
	}

	cma_leave_all_mc(id_priv);
	rdma_restrack_del(&id_priv->res);
	cma_release_port(id_priv);

	/* Wait for the pending work items and lookups. */
	cma_id_put(id_priv);
	wait_for_completion(&id_priv->comp);

	if (id_priv->cma_dev)
		cma_release_dev(id_priv);
	if (id_priv->parent)
		cma_id_put(id_priv->parent);

	kfree(id_priv->id.route.path_rec);
	kfree(id_priv->id.route.path_rec_inbound);
	kfree(id_priv->id.route.path_rec_outbound);
	put_net(id_priv->net);
	kfree(id_priv);
}

void rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	mutex_lock(&id_priv->handler_mutex);
	cma_destroy_id_unlock(id_priv);
}
EXPORT_SYMBOL(rdma_destroy_id);

/* ---------------------------------------------------------------- */
/* Options                                                            */

void rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	id_priv->tos = (u8)tos;
	id_priv->tos_set = true;
}
EXPORT_SYMBOL(rdma_set_service_type);

int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&id_priv->lock, flags);
	if ((reuse && id_priv->state != RDMA_CM_LISTEN) ||
	    id_priv->state == RDMA_CM_IDLE) {
		id_priv->reuseaddr = !!reuse;
		ret = 0;
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_reuseaddr);

int rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&id_priv->lock, flags);
	if (id_priv->state == RDMA_CM_IDLE ||
	    id_priv->state == RDMA_CM_ADDR_BOUND) {
		id_priv->afonly = !!afonly;
		id_priv->afonly_set = true;
		ret = 0;
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_afonly);

int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	if (id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_INI)
		return -EINVAL;

	id_priv->timeout = timeout;
	id_priv->timeout_set = true;
	return 0;
}
EXPORT_SYMBOL(rdma_set_ack_timeout);

int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	/* A receive side setting: only QPs that receive requests. */
	if (WARN_ON(id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_TGT))
		return -EINVAL;

	id_priv->min_rnr_timer = min_rnr_timer;
	id_priv->min_rnr_timer_set = true;
	return 0;
}
EXPORT_SYMBOL(rdma_set_min_rnr_timer);

/* ---------------------------------------------------------------- */
/* QPs                                                                */

/* The Q_Key of a UD id, from its port space unless one was set. */
int cma_set_default_qkey(struct rdma_id_private *id_priv)
{
	if (id_priv->qkey)
		return 0;

	switch (id_priv->id.ps) {
	case RDMA_PS_UDP:
	case RDMA_PS_IB:
		id_priv->qkey = RDMA_UDP_QKEY;
		return 0;
	default:
		return 0;
	}
}

int cma_set_qkey(struct rdma_id_private *id_priv, u32 qkey)
{
	if (!qkey || (id_priv->qkey && id_priv->qkey != qkey))
		return -EINVAL;
	id_priv->qkey = qkey;
	return 0;
}

/* INIT attributes of a QP without an ib_cm id (or of a UD QP). */
static int cma_ib_init_qp_attr(struct rdma_id_private *id_priv,
			       struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct rdma_cm_id *id = &id_priv->id;
	u16 pkey;
	int ret;

	if (rdma_cap_eth_ah(id->device, id->port_num))
		pkey = 0xffff;
	else
		pkey = ib_addr_get_pkey(&id->route.addr.dev_addr);

	ret = ib_find_cached_pkey(id->device, id->port_num, pkey,
				  &qp_attr->pkey_index);
	if (ret)
		return ret;

	qp_attr->port_num = id->port_num;
	*qp_attr_mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;

	if (id->qp_type == IB_QPT_UD) {
		ret = cma_set_default_qkey(id_priv);
		if (ret)
			return ret;
		qp_attr->qkey = id_priv->qkey;
		*qp_attr_mask |= IB_QP_QKEY;
	} else {
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask |= IB_QP_ACCESS_FLAGS;
	}
	return 0;
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret = 0;

	if (!id->device)
		return -EINVAL;

	if (rdma_cap_ib_cm(id->device, id->port_num)) {
		if (!id_priv->cm_ib || id->qp_type == IB_QPT_UD)
			ret = cma_ib_init_qp_attr(id_priv, qp_attr,
						  qp_attr_mask);
		else
			ret = ib_cm_init_qp_attr(id_priv->cm_ib, qp_attr,
						 qp_attr_mask);
		if (qp_attr->qp_state == IB_QPS_RTR)
			qp_attr->rq_psn = id_priv->seq_num;
	} else if (rdma_cap_iw_cm(id->device, id->port_num)) {
		if (!id_priv->cm_iw) {
			qp_attr->qp_access_flags = 0;
			*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
		} else {
			ret = iw_cm_init_qp_attr(id_priv->cm_iw, qp_attr,
						 qp_attr_mask);
		}
		qp_attr->port_num = id->port_num;
		*qp_attr_mask |= IB_QP_PORT;
	} else {
		ret = -EOPNOTSUPP;
	}

	if ((*qp_attr_mask & IB_QP_TIMEOUT) && id_priv->timeout_set)
		qp_attr->timeout = id_priv->timeout;
	if ((*qp_attr_mask & IB_QP_MIN_RNR_TIMER) && id_priv->min_rnr_timer_set)
		qp_attr->min_rnr_timer = id_priv->min_rnr_timer;
	return ret;
}
EXPORT_SYMBOL(rdma_init_qp_attr);

/* The attributes that move the id's QP to @state. */
static int cma_qp_to(struct rdma_id_private *id_priv, enum ib_qp_state state,
		     struct ib_qp_attr *attr, int *mask)
{
	attr->qp_state = state;
	return rdma_init_qp_attr(&id_priv->id, attr, mask);
}

/* A new UD QP goes straight to RTS: it needs no peer. */
static int cma_init_ud_qp(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {};
	int mask, ret;

	ret = cma_qp_to(id_priv, IB_QPS_INIT, &attr, &mask);
	if (ret)
		return ret;
	ret = ib_modify_qp(qp, &attr, mask);
	if (ret)
		return ret;

	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;

	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* A connected QP waits in INIT for the peer's parameters. */
static int cma_init_conn_qp(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {};
	int mask, ret;

	ret = cma_qp_to(id_priv, IB_QPS_INIT, &attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(qp, &attr, mask);
}

int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct ib_qp *qp;
	int ret;

	if (!id->device || id->device != pd->device)
		return -EINVAL;

	/*
	 * The QP is on the id's port whatever the caller put in port_num,
	 * as on stock: rpcrdma passes ~0 there.
	 */
	qp_init_attr->port_num = id->port_num;
	qp = ib_create_qp(pd, qp_init_attr);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto out;
	}

	if (id->qp_type == IB_QPT_UD)
		ret = cma_init_ud_qp(id_priv, qp);
	else
		ret = cma_init_conn_qp(id_priv, qp);
	if (ret) {
		ib_destroy_qp(qp);
		goto out;
	}

	id->qp = qp;
	id_priv->qp_num = qp->qp_num;
	id_priv->srq = !!qp->srq;
	trace_cm_qp_create(id_priv, pd, qp_init_attr, 0);
	return 0;

out:
	trace_cm_qp_create(id_priv, pd, qp_init_attr, ret);
	return ret;
}
EXPORT_SYMBOL(rdma_create_qp);

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	trace_cm_qp_destroy(id_priv);
	mutex_lock(&id_priv->qp_mutex);
	ib_destroy_qp(id->qp);
	id->qp = NULL;
	mutex_unlock(&id_priv->qp_mutex);
}
EXPORT_SYMBOL(rdma_destroy_qp);

int cma_modify_qp_rtr(struct rdma_id_private *id_priv,
		      struct rdma_conn_param *conn_param)
{
	struct ib_qp_attr attr = {};
	int mask, ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (!id_priv->id.qp)
		goto out;

	/* INIT again: the ib_cm id may bring a new P_Key index or port. */
	ret = cma_qp_to(id_priv, IB_QPS_INIT, &attr, &mask);
	if (ret)
		goto out;
	ret = ib_modify_qp(id_priv->id.qp, &attr, mask);
	if (ret)
		goto out;

	ret = cma_qp_to(id_priv, IB_QPS_RTR, &attr, &mask);
	if (ret)
		goto out;
	if (conn_param)
		attr.max_dest_rd_atomic = conn_param->responder_resources;
	ret = ib_modify_qp(id_priv->id.qp, &attr, mask);
out:
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

int cma_modify_qp_rts(struct rdma_id_private *id_priv,
		      struct rdma_conn_param *conn_param)
{
	struct ib_qp_attr attr = {};
	int mask, ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (!id_priv->id.qp)
		goto out;

	ret = cma_qp_to(id_priv, IB_QPS_RTS, &attr, &mask);
	if (ret)
		goto out;
	if (conn_param)
		attr.max_rd_atomic = conn_param->initiator_depth;
	ret = ib_modify_qp(id_priv->id.qp, &attr, mask);
out:
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

int cma_modify_qp_err(struct rdma_id_private *id_priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->id.qp)
		ret = ib_modify_qp(id_priv->id.qp, &attr, IB_QP_STATE);
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

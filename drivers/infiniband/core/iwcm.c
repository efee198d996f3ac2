// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iw_cm API (<rdma/iw_cm.h>): iw_cm_ids and the calls that move them
 * through the connection states, each one handing the real work to the
 * device's iWARP verbs (ib_device_ops.iw_*).  What the device reports back
 * arrives in iwcm_event.c.
 *
 * An id holds a reference on its QP (ops.iw_add_ref) from connect or
 * accept until the connection is closed or fails; the driver holds
 * references on the id (iw_cm_id.add_ref) while it may still report
 * events for it.  Destroying an id stops the consumer's handler at once,
 * while the memory lives on until the driver lets go.
 */
#define pr_fmt(fmt) "iw_cm: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_portmap.h>
#include <rdma/rdma_netlink.h>

#include "iwcm_priv.h"

void iwcm_get(struct iwcm_id_private *priv)
{
	refcount_inc(&priv->refcount);
}

/* Drops a reference; true if it was the last and @priv is gone. */
bool iwcm_put(struct iwcm_id_private *priv)
{
	if (!refcount_dec_and_test(&priv->refcount))
		return false;

	WARN_ON(!list_empty(&priv->event_queue));
	iwcm_slots_free(&priv->free_slots);
	kfree(priv);
	/* Every live id pins the module: drivers may call back until now. */
	module_put(THIS_MODULE);
	return true;
}

static void iwcm_add_ref(struct iw_cm_id *id)
{
	iwcm_get(to_iwcm(id));
}

static void iwcm_rem_ref(struct iw_cm_id *id)
{
	iwcm_put(to_iwcm(id));
}

/*
 * Claims the id for a connect, accept or reject; false while another one
 * runs or an accepted connection waits for its ESTABLISHED.  A reject or a
 * second accept then would leave the driver's ESTABLISHED to an id that is
 * no longer in CONN_RECV.
 */
bool iwcm_claim_connecting(struct iwcm_id_private *priv)
{
	return !test_and_set_bit(IWCM_F_CONNECTING, &priv->flags);
}

void iwcm_clear_connecting(struct iwcm_id_private *priv)
{
	clear_bit(IWCM_F_CONNECTING, &priv->flags);
	wake_up_all(&priv->connect_wait);
}

static void iwcm_wait_connecting(struct iwcm_id_private *priv)
{
	wait_event(priv->connect_wait,
		   !test_bit(IWCM_F_CONNECTING, &priv->flags));
}

/* Detaches the id's QP; the caller releases it with iwcm_release_qp(). */
struct ib_qp *iwcm_take_qp(struct iwcm_id_private *priv)
{
	struct ib_qp *qp = priv->qp;

	lockdep_assert_held(&priv->lock);
	priv->qp = NULL;
	return qp;
}

void iwcm_release_qp(struct iwcm_id_private *priv, struct ib_qp *qp)
{
	if (qp)
		priv->id.device->ops.iw_rem_ref(qp);
}

static void iwcm_modify_qp_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	/*
	 * Both ends may be closing at once: the QP may already be in ERR or
	 * SQD, which is not worth reporting.
	 */
	ib_modify_qp(qp, &attr, IB_QP_STATE);
}

struct iw_cm_id *iw_create_cm_id(struct ib_device *device,
				 iw_cm_handler cm_handler, void *context)
{
	struct iwcm_id_private *priv;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);

	priv->id.device = device;
	priv->id.cm_handler = cm_handler;
	priv->id.context = context;
	priv->id.event_handler = iwcm_event_upcall;
	priv->id.add_ref = iwcm_add_ref;
	priv->id.rem_ref = iwcm_rem_ref;
	spin_lock_init(&priv->lock);
	priv->state = IW_CM_STATE_IDLE;
	INIT_LIST_HEAD(&priv->free_slots);
	INIT_LIST_HEAD(&priv->event_queue);
	init_waitqueue_head(&priv->connect_wait);
	refcount_set(&priv->refcount, 1);
	INIT_WORK(&priv->work, iwcm_event_work);
	__module_get(THIS_MODULE);
	return &priv->id;
}
EXPORT_SYMBOL(iw_create_cm_id);

/*
 * Takes the id out of service: tells the driver (stop listening, reject
 * the pending request, or abort the connection), releases the QP and the
 * port mapping.  From here on no event reaches the consumer.  Used by
 * iw_destroy_cm_id() and when a handler asks for destruction.
 */
void iwcm_teardown(struct iwcm_id_private *priv)
{
	struct iw_cm_id *id = &priv->id;
	enum iw_cm_state old;
	struct ib_qp *qp;

	/* A connect or accept in flight: its outcome comes first. */
	iwcm_wait_connecting(priv);

	spin_lock_irq(&priv->lock);
	priv->dropping = true;
	old = priv->state;
	priv->state = IW_CM_STATE_DESTROYING;
	qp = iwcm_take_qp(priv);
	spin_unlock_irq(&priv->lock);

	switch (old) {
	case IW_CM_STATE_LISTEN:
		id->device->ops.iw_destroy_listen(id);
		break;
	case IW_CM_STATE_ESTABLISHED:
		/* Abrupt close; the driver's CLOSE event will be dropped. */
		iwcm_modify_qp_state(qp, IB_QPS_ERR);
		break;
	case IW_CM_STATE_CONN_RECV:
		/* A request the consumer never accepted. */
		id->device->ops.iw_reject(id, NULL, 0);
		break;
	case IW_CM_STATE_IDLE:
	case IW_CM_STATE_CLOSING:
		break;
	default:
		/* CONN_SENT ends before CONNECTING clears; DESTROYING twice. */
		WARN_ONCE(1, "iw_cm: destroying an id in state %d\n", old);
		break;
	}
	iwcm_release_qp(priv, qp);

	if (id->mapped) {
		iwpm_remove_mapinfo(&id->local_addr, &id->m_local_addr);
		iwpm_remove_mapping(&id->local_addr, RDMA_NL_IWCM);
	}
}

static bool iwcm_handler_done(struct iwcm_id_private *priv)
{
	bool done;

	spin_lock_irq(&priv->lock);
	done = !priv->delivering;
	spin_unlock_irq(&priv->lock);
	return done;
}

void iw_destroy_cm_id(struct iw_cm_id *cm_id)
{
	struct iwcm_id_private *priv = to_iwcm(cm_id);

	iwcm_teardown(priv);

	/*
	 * A handler already running for this id finishes before we return;
	 * later events are dropped.  From its own handler, the consumer must
	 * return non-zero instead (waiting here would never end).
	 */
	if (!WARN_ON_ONCE(READ_ONCE(priv->delivering) == current))
		wait_event(priv->connect_wait, iwcm_handler_done(priv));

	iwcm_put(priv);
}
EXPORT_SYMBOL(iw_destroy_cm_id);

/*
 * If @mapped's IP address is the wildcard, @out takes @actual's IP address
 * (its port stays): a port mapper maps ports, not addresses.
 */
void iwcm_fix_wildcard(const struct sockaddr_storage *mapped,
		       const struct sockaddr_storage *actual,
		       struct sockaddr_storage *out)
{
	switch (mapped->ss_family) {
	case AF_INET:
		if (((const struct sockaddr_in *)mapped)->sin_addr.s_addr ==
		    htonl(INADDR_ANY))
			((struct sockaddr_in *)out)->sin_addr =
				((const struct sockaddr_in *)actual)->sin_addr;
		break;
	case AF_INET6:
		if (ipv6_addr_any(&((const struct sockaddr_in6 *)mapped)->sin6_addr))
			((struct sockaddr_in6 *)out)->sin6_addr =
				((const struct sockaddr_in6 *)actual)->sin6_addr;
		break;
	}
}

/*
 * Fills in the id's mapped addresses through iwpmd, for a listener
 * (@active false) or a connecting id.  Without iwpmd every address is its
 * own mapping and nothing is recorded.  Fails only for a device whose
 * names do not fit the protocol, or when the mapping cannot be recorded.
 */
static int iwcm_map(struct iwcm_id_private *priv, bool active)
{
	struct iw_cm_id *id = &priv->id;
	const char *devname = dev_name(&id->device->dev);
	struct iwpm_dev_data dev_data = {};
	struct iwpm_sa_data sa = {};
	int ret;

	if (!devname ||
	    strscpy(dev_data.dev_name, devname, sizeof(dev_data.dev_name)) < 0 ||
	    strscpy(dev_data.if_name, id->device->iw_ifname,
		    sizeof(dev_data.if_name)) < 0)
		return -EINVAL;

	id->m_local_addr = id->local_addr;
	id->m_remote_addr = id->remote_addr;

	if (iwpm_register_pid(&dev_data, RDMA_NL_IWCM) || !iwpm_valid_pid())
		return 0;

	id->mapped = true;
	sa.loc_addr = id->local_addr;
	sa.rem_addr = id->remote_addr;
	if (id->device->iw_driver_flags & IW_F_NO_PORT_MAP)
		sa.flags = IWPM_FLAGS_NO_PORT_MAP;
	if (active)
		ret = iwpm_add_and_query_mapping(&sa, RDMA_NL_IWCM);
	else
		ret = iwpm_add_mapping(&sa, RDMA_NL_IWCM);
	if (!ret) {
		id->m_local_addr = sa.mapped_loc_addr;
		if (active) {
			id->m_remote_addr = sa.mapped_rem_addr;
			iwcm_fix_wildcard(&sa.mapped_rem_addr, &id->remote_addr,
					  &id->m_remote_addr);
		}
	}
	/* A failed mapping is not fatal: the connection goes unmapped. */
	return iwpm_create_mapinfo(&id->local_addr, &id->m_local_addr,
				   RDMA_NL_IWCM, sa.flags);
}

int iw_cm_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct iwcm_id_private *priv = to_iwcm(cm_id);
	LIST_HEAD(slots);
	int ret;

	/* Not an iWARP device (the stock iw_cm would oops). */
	if (!cm_id->device->ops.iw_create_listen)
		return -EOPNOTSUPP;
	if (!backlog)
		backlog = READ_ONCE(iwcm_default_backlog);
	if (backlog <= 0)
		return -EINVAL;

	/* One slot per connect request the backlog may hold. */
	ret = iwcm_slots_alloc(&slots, backlog);
	if (ret)
		return ret;

	spin_lock_irq(&priv->lock);
	if (priv->state != IW_CM_STATE_IDLE) {
		spin_unlock_irq(&priv->lock);
		iwcm_slots_free(&slots);
		return -EINVAL;
	}
	priv->state = IW_CM_STATE_LISTEN;
	list_splice(&slots, &priv->free_slots);
	spin_unlock_irq(&priv->lock);

	ret = iwcm_map(priv, false);
	if (!ret)
		ret = cm_id->device->ops.iw_create_listen(cm_id, backlog);
	if (ret) {
		spin_lock_irq(&priv->lock);
		priv->state = IW_CM_STATE_IDLE;
		spin_unlock_irq(&priv->lock);
	}
	return ret;
}
EXPORT_SYMBOL(iw_cm_listen);

int iw_cm_reject(struct iw_cm_id *cm_id, const void *private_data,
		 u8 private_data_len)
{
	struct iwcm_id_private *priv = to_iwcm(cm_id);
	int ret;

	if (!iwcm_claim_connecting(priv))
		return -EINVAL;
	spin_lock_irq(&priv->lock);
	if (priv->state != IW_CM_STATE_CONN_RECV) {
		spin_unlock_irq(&priv->lock);
		iwcm_clear_connecting(priv);
		return -EINVAL;
	}
	priv->state = IW_CM_STATE_IDLE;
	spin_unlock_irq(&priv->lock);

	ret = cm_id->device->ops.iw_reject(cm_id, private_data,
					   private_data_len);
	iwcm_clear_connecting(priv);
	return ret;
}
EXPORT_SYMBOL(iw_cm_reject);

/*
 * Binds the QP @qpn to a connecting id; called with the lock held, as
 * ops.iw_get_qp and ops.iw_add_ref are lookups safe in atomic context.
 */
static int iwcm_bind_qp(struct iwcm_id_private *priv, u32 qpn)
{
	struct ib_device *dev = priv->id.device;
	struct ib_qp *qp;

	lockdep_assert_held(&priv->lock);
	qp = dev->ops.iw_get_qp(dev, qpn);
	if (!qp)
		return -EINVAL;
	dev->ops.iw_add_ref(qp);
	priv->qp = qp;
	return 0;
}

int iw_cm_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id_private *priv = to_iwcm(cm_id);
	struct ib_qp *qp;
	int ret;

	if (!iwcm_claim_connecting(priv))
		return -EINVAL;
	spin_lock_irq(&priv->lock);
	ret = -EINVAL;
	if (priv->state == IW_CM_STATE_CONN_RECV)
		ret = iwcm_bind_qp(priv, iw_param->qpn);
	spin_unlock_irq(&priv->lock);
	if (ret) {
		iwcm_clear_connecting(priv);
		return ret;
	}

	/* Success leaves CONNECTING set until ESTABLISHED is handled. */
	ret = cm_id->device->ops.iw_accept(cm_id, iw_param);
	if (ret) {
		/* A failed accept reports no events. */
		spin_lock_irq(&priv->lock);
		priv->state = IW_CM_STATE_IDLE;
		qp = iwcm_take_qp(priv);
		spin_unlock_irq(&priv->lock);
		iwcm_release_qp(priv, qp);
		iwcm_clear_connecting(priv);
	}
	return ret;
}
EXPORT_SYMBOL(iw_cm_accept);

int iw_cm_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id_private *priv = to_iwcm(cm_id);
	struct ib_qp *qp;
	LIST_HEAD(slots);
	int ret;

	/* Not an iWARP device (the stock iw_cm would oops). */
	if (!cm_id->device->ops.iw_connect)
		return -EOPNOTSUPP;

	if (!iwcm_claim_connecting(priv))
		return -EINVAL;
	ret = iwcm_slots_alloc(&slots, IWCM_ACTIVE_SLOTS);
	if (ret) {
		iwcm_clear_connecting(priv);
		return ret;
	}

	spin_lock_irq(&priv->lock);
	ret = -EINVAL;
	if (priv->state == IW_CM_STATE_IDLE)
		ret = iwcm_bind_qp(priv, iw_param->qpn);
	if (ret) {
		spin_unlock_irq(&priv->lock);
		iwcm_clear_connecting(priv);
		iwcm_slots_free(&slots);
		return ret;
	}
	priv->state = IW_CM_STATE_CONN_SENT;
	list_splice(&slots, &priv->free_slots);
	spin_unlock_irq(&priv->lock);

	/* Success leaves CONNECTING set until CONNECT_REPLY is handled. */
	ret = iwcm_map(priv, true);
	if (!ret)
		ret = cm_id->device->ops.iw_connect(cm_id, iw_param);
	if (!ret)
		return 0;

	spin_lock_irq(&priv->lock);
	priv->state = IW_CM_STATE_IDLE;
	qp = iwcm_take_qp(priv);
	spin_unlock_irq(&priv->lock);
	iwcm_release_qp(priv, qp);
	iwcm_clear_connecting(priv);
	return ret;
}
EXPORT_SYMBOL(iw_cm_connect);

int iw_cm_disconnect(struct iw_cm_id *cm_id, int abrupt)
{
	struct iwcm_id_private *priv = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	struct ib_qp *qp = NULL;
	int ret = 0;

	/* A connect or accept in flight: its outcome comes first. */
	iwcm_wait_connecting(priv);

	spin_lock_irq(&priv->lock);
	switch (priv->state) {
	case IW_CM_STATE_ESTABLISHED:
		priv->state = IW_CM_STATE_CLOSING;
		/* A user-space QP is not ours to move. */
		qp = priv->qp;
		if (qp)
			dev->ops.iw_add_ref(qp);
		else
			ret = -EINVAL;
		break;
	case IW_CM_STATE_CLOSING:	/* the peer closed first */
	case IW_CM_STATE_IDLE:		/* closed, or connect/accept failed */
	case IW_CM_STATE_CONN_RECV:	/* a request never accepted */
		break;
	default:	/* CONN_SENT (a connect raced us), LISTEN, DESTROYING */
		ret = -EINVAL;
		break;
	}
	spin_unlock_irq(&priv->lock);

	if (qp) {
		/*
		 * Our own reference: a CLOSE handled meanwhile releases the
		 * id's.  The driver reports the close as events.
		 */
		iwcm_modify_qp_state(qp, abrupt ? IB_QPS_ERR : IB_QPS_SQD);
		dev->ops.iw_rem_ref(qp);
	}
	return ret;
}
EXPORT_SYMBOL(iw_cm_disconnect);

int iw_cm_init_qp_attr(struct iw_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct iwcm_id_private *priv = to_iwcm(cm_id);
	enum iw_cm_state state;

	spin_lock_irq(&priv->lock);
	state = priv->state;
	spin_unlock_irq(&priv->lock);

	switch (state) {
	case IW_CM_STATE_IDLE:
	case IW_CM_STATE_CONN_SENT:
	case IW_CM_STATE_CONN_RECV:
	case IW_CM_STATE_ESTABLISHED:
		break;
	default:
		return -EINVAL;
	}

	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		/* iWARP QPs are always open to remote reads and writes. */
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
		qp_attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE |
					   IB_ACCESS_REMOTE_READ;
		return 0;
	case IB_QPS_RTS:
		*qp_attr_mask = 0;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL(iw_cm_init_qp_attr);

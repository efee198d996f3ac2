// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_cm ids: creation and the local comm ID table, lookups by local and
 * remote comm ID, the listen tree and the remote trees that find
 * duplicates and stale connections, event delivery (one handler call at a
 * time per id, never under our locks) and destruction from any state.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "cm_priv.h"
#include "cm_trace.h"

/* Generous for a handler; past it destroy says why it still waits. */
#define CM_DESTROY_WARN_MS	10000

/* The xarray index of a comm ID we handed out. */
static u32 cm_id_index(__be32 local_id)
{
	return (__force u32)(local_id ^ icm.id_mask);
}

/**
 * cmid_alloc - a new id in IDLE, its local comm ID reserved but unpublished
 * @device: the device of all its communication
 * @handler: the consumer's event handler (NULL until a listener's is known)
 * @context: the consumer's context
 *
 * Return: the id with one reference (the creator's), or an ERR_PTR.
 */
struct cmid *cmid_alloc(struct ib_device *device, ib_cm_handler handler,
			void *context)
{
	struct cmid *cmid;
	u32 index;
	int ret;

	cmid = kzalloc(sizeof(*cmid), GFP_KERNEL);
	if (!cmid)
		return ERR_PTR(-ENOMEM);

	cmid->id.device = device;
	cmid->id.cm_handler = handler;
	cmid->id.context = context;
	cmid->id.state = IB_CM_IDLE;
	cmid->id.remote_cm_qpn = 1;
	spin_lock_init(&cmid->lock);
	refcount_set(&cmid->refs, 1);
	init_completion(&cmid->released);
	RB_CLEAR_NODE(&cmid->listen_node);
	RB_CLEAR_NODE(&cmid->sidr_node);
	INIT_LIST_HEAD(&cmid->pending);

	/* Reserved with a NULL entry: lookups find nothing until published. */
	ret = xa_alloc_cyclic(&icm.ids, &index, NULL, xa_limit_32b,
			      &icm.next_id, GFP_KERNEL);
	if (ret < 0) {
		kfree(cmid);
		return ERR_PTR(ret);
	}
	cmid->id.local_id = (__force __be32)index ^ icm.id_mask;
	return cmid;
}

/* Makes a fully set up id visible to received MADs. */
void cmid_publish(struct cmid *cmid)
{
	xa_store(&icm.ids, cm_id_index(cmid->id.local_id), cmid, GFP_ATOMIC);
}

/**
 * cmid_acquire - the published id with this local and remote comm ID
 * @local_id: our comm ID, as received
 * @remote_id: the peer's comm ID the id must have (0 before it knows it)
 *
 * Return: the id with a reference (cmid_put()), or NULL.
 */
struct cmid *cmid_acquire(__be32 local_id, __be32 remote_id)
{
	struct cmid *cmid;

	rcu_read_lock();
	cmid = xa_load(&icm.ids, cm_id_index(local_id));
	if (cmid && (cmid->id.remote_id != remote_id ||
		     !refcount_inc_not_zero(&cmid->refs)))
		cmid = NULL;
	rcu_read_unlock();
	return cmid;
}

void cmid_put(struct cmid *cmid)
{
	if (refcount_dec_and_test(&cmid->refs))
		complete(&cmid->released);
}

/**
 * ib_create_cm_id - allocate a communication identifier
 * @device: the device of all its communication
 * @cm_handler: called for each of its events
 * @context: the consumer's, in the id
 *
 * Return: the id in IDLE, or an ERR_PTR.
 */
struct ib_cm_id *ib_create_cm_id(struct ib_device *device,
				 ib_cm_handler cm_handler, void *context)
{
	struct cmid *cmid;

	cmid = cmid_alloc(device, cm_handler, context);
	if (IS_ERR(cmid))
		return ERR_CAST(cmid);
	cmid_publish(cmid);
	return &cmid->id;
}
EXPORT_SYMBOL(ib_create_cm_id);

/* ------------------------------------------------------------------ */
/* Event delivery                                                      */

void cm_work_free(struct cm_work *work)
{
	if (work->rwc)
		ib_free_recv_mad(work->rwc);
	kfree(work);
}

/* Runs the handler for @work, then for what queued up meanwhile. */
static void cm_run_handler(struct cmid *cmid, struct cm_work *work)
{
	int ret;

	for (;;) {
		ret = cmid->id.cm_handler(&cmid->id, &work->ev);
		cm_work_free(work);
		/* Non-zero: destroy the id; what is still queued dies with it. */
		if (ret)
			break;

		spin_lock_irq(&cmid->lock);
		work = list_first_entry_or_null(&cmid->pending,
						struct cm_work, entry);
		if (work)
			list_del(&work->entry);
		else
			cmid->delivering = false;
		spin_unlock_irq(&cmid->lock);
		if (!work)
			break;
	}
	cmid_put(cmid);
	if (ret)
		cm_destroy(cmid, ret);
}

/**
 * cm_deliver_unlock - hand an event to an id's handler
 * @cmid: the id, locked, with a reference that this call consumes
 * @work: the event; freed once delivered
 *
 * Delivers now, in this thread, unless the handler already runs for an
 * earlier event in another; then that thread delivers this one after it,
 * so the handler sees the id's events one at a time and in order.
 */
void cm_deliver_unlock(struct cmid *cmid, struct cm_work *work)
	__releases(&cmid->lock)
{
	lockdep_assert_held(&cmid->lock);

	if (cmid->delivering) {
		list_add_tail(&work->entry, &cmid->pending);
		spin_unlock_irq(&cmid->lock);
		/* The delivering thread holds a reference of its own. */
		cmid_put(cmid);
		return;
	}
	cmid->delivering = true;
	spin_unlock_irq(&cmid->lock);
	cm_run_handler(cmid, work);
}

/* ------------------------------------------------------------------ */
/* Listen tree, by (device, service ID)                                */

static int cm_listen_cmp(struct ib_device *dev_a, __be64 sid_a,
			 struct ib_device *dev_b, __be64 sid_b)
{
	if (dev_a != dev_b)
		return dev_a < dev_b ? -1 : 1;
	/* Any stable order will do: compare the raw bytes' value. */
	if (sid_a != sid_b)
		return (__force u64)sid_a < (__force u64)sid_b ? -1 : 1;
	return 0;
}

/*
 * Puts @cmid in the listen tree, or, when an id already listens on the
 * same device and service ID, shares that one if it was made by
 * ib_cm_insert_listen() with @shared_handler.
 * Return: @cmid, the shared id (with a reference), or NULL.
 */
static struct cmid *cm_insert_listener(struct cmid *cmid,
				       ib_cm_handler shared_handler)
{
	struct rb_node **link = &icm.listeners.rb_node, *parent = NULL;
	struct cmid *cur;
	int cmp;

	lockdep_assert_held(&icm.lock);

	while (*link) {
		parent = *link;
		cur = rb_entry(parent, struct cmid, listen_node);
		cmp = cm_listen_cmp(cmid->id.device, cmid->id.service_id,
				    cur->id.device, cur->id.service_id);
		if (cmp < 0) {
			link = &parent->rb_left;
		} else if (cmp > 0) {
			link = &parent->rb_right;
		} else {
			/* Only insert_listen ids (no context) are shared. */
			if (!shared_handler || cur->id.context ||
			    cur->id.cm_handler != shared_handler)
				return NULL;
			refcount_inc(&cur->refs);
			cur->listen_shares++;
			return cur;
		}
	}
	cmid->listen_shares++;
	rb_link_node(&cmid->listen_node, parent, link);
	rb_insert_color(&cmid->listen_node, &icm.listeners);
	return cmid;
}

/**
 * cm_find_listener - the id listening on a device's service ID
 * @device: the device the request came in on
 * @service_id: the service ID asked for
 *
 * Called under icm.lock.  Return: the listener with a reference, or NULL.
 */
struct cmid *cm_find_listener(struct ib_device *device, __be64 service_id)
{
	struct rb_node *node = icm.listeners.rb_node;
	struct cmid *cur;
	int cmp;

	lockdep_assert_held(&icm.lock);

	while (node) {
		cur = rb_entry(node, struct cmid, listen_node);
		cmp = cm_listen_cmp(device, service_id, cur->id.device,
				    cur->id.service_id);
		if (!cmp) {
			refcount_inc(&cur->refs);
			return cur;
		}
		node = cmp < 0 ? node->rb_left : node->rb_right;
	}
	return NULL;
}

/* The service ID to listen on; assigns one for IB_CM_ASSIGN_SERVICE_ID. */
static int cm_listen_service_id(struct cmid *cmid, __be64 service_id)
{
	unsigned long flags;

	if (service_id == IB_CM_ASSIGN_SERVICE_ID) {
		spin_lock_irqsave(&icm.lock, flags);
		cmid->id.service_id = cpu_to_be64(icm.next_service_id++);
		spin_unlock_irqrestore(&icm.lock, flags);
		return 0;
	}
	/* The range of assigned IDs is ours alone. */
	if ((service_id & IB_SERVICE_ID_AGN_MASK) == IB_CM_ASSIGN_SERVICE_ID)
		return -EINVAL;
	cmid->id.service_id = service_id;
	return 0;
}

/**
 * ib_cm_listen - listen for connection and SIDR requests to a service ID
 * @cm_id: an id in IDLE
 * @service_id: the service ID (network order); IB_CM_ASSIGN_SERVICE_ID to
 *	have one assigned
 *
 * Return: 0, -EINVAL for an id not in IDLE or a reserved service ID,
 * -EBUSY if another id listens on it.
 */
int ib_cm_listen(struct ib_cm_id *cm_id, __be64 service_id)
{
	struct cmid *cmid = to_cmid(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&cmid->lock, flags);
	if (cm_id->state != IB_CM_IDLE) {
		ret = -EINVAL;
		goto out;
	}
	ret = cm_listen_service_id(cmid, service_id);
	if (ret)
		goto out;

	spin_lock(&icm.lock);
	if (!cm_insert_listener(cmid, NULL))
		ret = -EBUSY;
	else
		cm_id->state = IB_CM_LISTEN;
	spin_unlock(&icm.lock);
out:
	spin_unlock_irqrestore(&cmid->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_listen);

/**
 * ib_cm_insert_listen - a listener on a service ID, shared if one exists
 * @device: the device
 * @cm_handler: its handler; an existing listener is shared only if it was
 *	made here with the same handler
 * @service_id: as for ib_cm_listen()
 *
 * Each successful call is undone by one ib_destroy_cm_id().
 * Return: the new or shared listener, or an ERR_PTR.
 */
struct ib_cm_id *ib_cm_insert_listen(struct ib_device *device,
				     ib_cm_handler cm_handler,
				     __be64 service_id)
{
	struct cmid *cmid, *listener;
	int ret;

	/* Made up front: this may sleep, the tree's lock may not. */
	cmid = cmid_alloc(device, cm_handler, NULL);
	if (IS_ERR(cmid))
		return ERR_CAST(cmid);

	ret = cm_listen_service_id(cmid, service_id);
	if (ret)
		goto err;

	spin_lock_irq(&cmid->lock);
	spin_lock(&icm.lock);
	listener = cm_insert_listener(cmid, cm_handler);
	if (listener == cmid)
		cmid->id.state = IB_CM_LISTEN;
	spin_unlock(&icm.lock);
	spin_unlock_irq(&cmid->lock);

	if (listener == cmid)
		/* Never published: a listener receives no MAD of its own. */
		return &cmid->id;
	ib_destroy_cm_id(&cmid->id);
	return listener ? &listener->id : ERR_PTR(-EINVAL);
err:
	ib_destroy_cm_id(&cmid->id);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_cm_insert_listen);

/* ------------------------------------------------------------------ */
/* Remote trees                                                        */

static int cm_remote_cmp(__be32 a, __be64 guid_a, __be32 b, __be64 guid_b)
{
	if (a != b)
		return (__force u32)a < (__force u32)b ? -1 : 1;
	if (guid_a != guid_b)
		return (__force u64)guid_a < (__force u64)guid_b ? -1 : 1;
	return 0;
}

/**
 * cm_insert_remote_id - enter a connection by the peer's comm ID and GUID
 * @tw: the connection's timewait info, remote_id and remote_ca_guid set
 *
 * Called under icm.lock.  Return: NULL, or the connection already there
 * (a duplicate REQ or REP).
 */
struct cm_timewait *cm_insert_remote_id(struct cm_timewait *tw)
{
	struct rb_node **link = &icm.remote_ids.rb_node, *parent = NULL;
	struct cm_timewait *cur;
	int cmp;

	lockdep_assert_held(&icm.lock);

	while (*link) {
		parent = *link;
		cur = rb_entry(parent, struct cm_timewait, by_remote_id);
		cmp = cm_remote_cmp(tw->ev.remote_id, tw->remote_ca_guid,
				    cur->ev.remote_id, cur->remote_ca_guid);
		if (!cmp)
			return cur;
		link = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&tw->by_remote_id, parent, link);
	rb_insert_color(&tw->by_remote_id, &icm.remote_ids);
	tw->in_remote_ids = true;
	return NULL;
}

/**
 * cm_insert_remote_qpn - enter a connection by the peer's QPN and GUID
 * @tw: the connection's timewait info, remote_qpn and remote_ca_guid set
 *
 * Called under icm.lock.  Return: NULL, or the connection that already
 * uses that QP of the peer (a stale connection).
 */
struct cm_timewait *cm_insert_remote_qpn(struct cm_timewait *tw)
{
	struct rb_node **link = &icm.remote_qpns.rb_node, *parent = NULL;
	struct cm_timewait *cur;
	int cmp;

	lockdep_assert_held(&icm.lock);

	while (*link) {
		parent = *link;
		cur = rb_entry(parent, struct cm_timewait, by_remote_qpn);
		cmp = cm_remote_cmp(tw->remote_qpn, tw->remote_ca_guid,
				    cur->remote_qpn, cur->remote_ca_guid);
		if (!cmp)
			return cur;
		link = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&tw->by_remote_qpn, parent, link);
	rb_insert_color(&tw->by_remote_qpn, &icm.remote_qpns);
	tw->in_remote_qpns = true;
	return NULL;
}

/* Takes a connection out of both remote trees.  Under icm.lock. */
void cm_remove_remote(struct cm_timewait *tw)
{
	lockdep_assert_held(&icm.lock);

	if (tw->in_remote_ids) {
		rb_erase(&tw->by_remote_id, &icm.remote_ids);
		tw->in_remote_ids = false;
	}
	if (tw->in_remote_qpns) {
		rb_erase(&tw->by_remote_qpn, &icm.remote_qpns);
		tw->in_remote_qpns = false;
	}
}

/**
 * cm_acquire_by_remote_id - the id connected to a peer's comm ID
 * @remote_ca_guid: the peer's CA GUID
 * @remote_id: the peer's comm ID
 *
 * Return: the id with a reference, or NULL.
 */
struct cmid *cm_acquire_by_remote_id(__be64 remote_ca_guid, __be32 remote_id)
{
	struct rb_node *node;
	struct cm_timewait *tw;
	struct cmid *cmid = NULL;
	int cmp;

	spin_lock_irq(&icm.lock);
	node = icm.remote_ids.rb_node;
	while (node) {
		tw = rb_entry(node, struct cm_timewait, by_remote_id);
		cmp = cm_remote_cmp(remote_id, remote_ca_guid,
				    tw->ev.remote_id, tw->remote_ca_guid);
		if (!cmp) {
			cmid = cmid_acquire(tw->ev.local_id, tw->ev.remote_id);
			break;
		}
		node = cmp < 0 ? node->rb_left : node->rb_right;
	}
	spin_unlock_irq(&icm.lock);
	return cmid;
}

/**
 * cm_insert_sidr - enter a received SIDR_REQ by request ID and SLID
 * @cmid: its id, remote_id and sidr_slid set
 *
 * Called under icm.lock.  Return: NULL, or the id of the same request
 * (a duplicate).
 */
struct cmid *cm_insert_sidr(struct cmid *cmid)
{
	struct rb_node **link = &icm.sidr_reqs.rb_node, *parent = NULL;
	struct cmid *cur;
	int cmp;

	lockdep_assert_held(&icm.lock);

	while (*link) {
		parent = *link;
		cur = rb_entry(parent, struct cmid, sidr_node);
		cmp = cm_remote_cmp(cmid->id.remote_id, 0, cur->id.remote_id, 0);
		if (!cmp && cmid->sidr_slid != cur->sidr_slid)
			cmp = cmid->sidr_slid < cur->sidr_slid ? -1 : 1;
		if (!cmp)
			return cur;
		link = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&cmid->sidr_node, parent, link);
	rb_insert_color(&cmid->sidr_node, &icm.sidr_reqs);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Destruction                                                         */

/*
 * Leaves the current state the way the protocol wants (REJ, DREQ, DREP,
 * SIDR_REP or just IDLE), until the id is IDLE.  Under cmid->lock.
 * Return: true if the id was a shared listener, of which only a share
 * went (the id lives on).
 */
static bool cm_leave_state(struct cmid *cmid, int err)
{
	struct ib_cm_id *id = &cmid->id;

	lockdep_assert_held(&cmid->lock);

	for (;;) {
		switch (id->state) {
		case IB_CM_LISTEN:
			spin_lock(&icm.lock);
			if (--cmid->listen_shares > 0) {
				spin_unlock(&icm.lock);
				return true;
			}
			rb_erase(&cmid->listen_node, &icm.listeners);
			RB_CLEAR_NODE(&cmid->listen_node);
			spin_unlock(&icm.lock);
			id->state = IB_CM_IDLE;
			break;
		case IB_CM_SIDR_REQ_SENT:
			cm_cancel_msg(cmid);
			id->state = IB_CM_IDLE;
			break;
		case IB_CM_SIDR_REQ_RCVD:
			cm_sidr_rep_locked(cmid, &(struct ib_cm_sidr_rep_param){
						.status = IB_SIDR_REJECT });
			id->state = IB_CM_IDLE;
			break;
		case IB_CM_REQ_SENT:
		case IB_CM_MRA_REQ_RCVD:
			/* The ARI of a timeout REJ is our CA GUID (12.6.7.2). */
			cm_cancel_msg(cmid);
			cm_rej_locked(cmid, IB_CM_REJ_TIMEOUT,
				      &id->device->node_guid,
				      sizeof(id->device->node_guid), NULL, 0);
			break;
		case IB_CM_REQ_RCVD:
			/* Out of memory: no REJ, so that the peer retries. */
			if (err == -ENOMEM)
				cm_reset_to_idle(cmid);
			else
				cm_rej_locked(cmid, IB_CM_REJ_CONSUMER_DEFINED,
					      NULL, 0, NULL, 0);
			break;
		case IB_CM_REP_SENT:
		case IB_CM_MRA_REP_RCVD:
			cm_cancel_msg(cmid);
			cm_rej_locked(cmid, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				      NULL, 0);
			/* Now in TIMEWAIT. */
			continue;
		case IB_CM_MRA_REQ_SENT:
		case IB_CM_REP_RCVD:
		case IB_CM_MRA_REP_SENT:
			cm_rej_locked(cmid, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				      NULL, 0);
			break;
		case IB_CM_ESTABLISHED:
			if (cmid->qp_type == IB_QPT_XRC_TGT) {
				id->state = IB_CM_IDLE;
				break;
			}
			/* DREQ_SENT, or TIMEWAIT if it could not be sent. */
			cm_dreq_locked(cmid, NULL, 0);
			continue;
		case IB_CM_DREQ_SENT:
			cm_cancel_msg(cmid);
			cm_enter_timewait(cmid);
			continue;
		case IB_CM_DREQ_RCVD:
			cm_drep_locked(cmid, NULL, 0);
			continue;
		case IB_CM_TIMEWAIT:
			/* Its timer finds no id once it is unpublished. */
			id->state = IB_CM_IDLE;
			break;
		case IB_CM_IDLE:
			break;
		}
		/* Every path ends here in IDLE, or loops once more. */
		WARN_ON(id->state != IB_CM_IDLE);
		return false;
	}
}

/**
 * cm_destroy - leave the protocol's state, unpublish, wait, free
 * @cmid: the id; the caller's (creator's) reference is consumed
 * @err: why (the handler's return value, or 0 for ib_destroy_cm_id())
 */
void cm_destroy(struct cmid *cmid, int err)
{
	enum ib_cm_state old_state;
	struct cm_work *work, *next;

	spin_lock_irq(&cmid->lock);
	old_state = cmid->id.state;
	if (cm_leave_state(cmid, err)) {
		/* One share of a listener: the others keep it. */
		spin_unlock_irq(&cmid->lock);
		cmid_put(cmid);
		return;
	}

	spin_lock(&icm.lock);
	/* A REQ that failed before reaching the consumer. */
	if (cmid->tw) {
		cm_remove_remote(cmid->tw);
		kfree(cmid->tw);
		cmid->tw = NULL;
	}
	if (!RB_EMPTY_NODE(&cmid->sidr_node)) {
		rb_erase(&cmid->sidr_node, &icm.sidr_reqs);
		RB_CLEAR_NODE(&cmid->sidr_node);
	}
	WARN_ON(!RB_EMPTY_NODE(&cmid->listen_node));
	spin_unlock(&icm.lock);
	spin_unlock_irq(&cmid->lock);

	/* Unpublish, then wait for every holder: handlers, sends, lookups. */
	xa_erase(&icm.ids, cm_id_index(cmid->id.local_id));
	cmid_put(cmid);
	while (!wait_for_completion_timeout(&cmid->released,
					    msecs_to_jiffies(CM_DESTROY_WARN_MS)))
		pr_err_ratelimited("ib_cm: destroying id %p (state %d, was %d) still waits for %u references\n",
				   cmid, cmid->id.state, old_state,
				   refcount_read(&cmid->refs));

	list_for_each_entry_safe(work, next, &cmid->pending, entry)
		cm_work_free(work);
	cm_av_destroy(&cmid->av);
	cm_av_destroy(&cmid->alt_av);
	cm_lap_release(cmid);
	kfree(cmid->pdata);
	kfree_rcu(cmid, rcu);
}

/**
 * ib_destroy_cm_id - destroy a communication identifier
 * @cm_id: the id; not from within its own handler (return non-zero there)
 *
 * Sends what its state calls for (REJ, DREQ, DREP), waits until no
 * handler runs for it and nothing holds it, and frees it.
 */
void ib_destroy_cm_id(struct ib_cm_id *cm_id)
{
	cm_destroy(to_cmid(cm_id), 0);
}
EXPORT_SYMBOL(ib_destroy_cm_id);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Events from the iWARP driver to iw_cm, and from iw_cm to the consumer.
 *
 * The driver reports through iw_cm_id.event_handler, possibly in interrupt
 * context: the event is copied into one of the id's pre-allocated slots
 * and queued, so the report never waits and fails only when the slots run
 * out (a listener's backlog is full).  The id's work item then delivers
 * its queue in order on iwcm_wq, an ordered work queue: one event at a
 * time in process context, where the consumer's handler may sleep and call
 * back into iw_cm.  A handler returning non-zero asks for the id to be
 * destroyed.
 */
#define pr_fmt(fmt) "iw_cm: " fmt

#include <linux/slab.h>
#include <rdma/iw_portmap.h>
#include <rdma/rdma_netlink.h>

#include "iwcm_priv.h"

int iwcm_slots_alloc(struct list_head *slots, unsigned int count)
{
	struct iwcm_event_slot *slot;

	while (count--) {
		slot = kmalloc(sizeof(*slot), GFP_KERNEL);
		if (!slot) {
			iwcm_slots_free(slots);
			return -ENOMEM;
		}
		list_add(&slot->entry, slots);
	}
	return 0;
}

void iwcm_slots_free(struct list_head *slots)
{
	struct iwcm_event_slot *slot, *next;

	list_for_each_entry_safe(slot, next, slots, entry) {
		list_del(&slot->entry);
		kfree(slot);
	}
}

/*
 * The private data of a connect request or reply lives in the driver's
 * buffers only during the upcall: those two events carry our own copy.
 */
static bool iwcm_event_owns_pdata(const struct iw_cm_event *event)
{
	return (event->event == IW_CM_EVENT_CONNECT_REQUEST ||
		event->event == IW_CM_EVENT_CONNECT_REPLY) &&
	       event->private_data_len;
}

static void iwcm_event_release(struct iw_cm_event *event)
{
	if (iwcm_event_owns_pdata(event))
		kfree(event->private_data);
}

/* iw_cm_id.event_handler: queues @event; any context. */
int iwcm_event_upcall(struct iw_cm_id *id, struct iw_cm_event *event)
{
	struct iwcm_id_private *priv = to_iwcm(id);
	struct iwcm_event_slot *slot;
	void *pdata = NULL;
	unsigned long flags;

	if (iwcm_event_owns_pdata(event)) {
		pdata = kmemdup(event->private_data, event->private_data_len,
				GFP_ATOMIC);
		if (!pdata)
			return -ENOMEM;
	}

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->dropping) {
		/* Nobody will hear of it: done. */
		spin_unlock_irqrestore(&priv->lock, flags);
		kfree(pdata);
		return 0;
	}
	slot = list_first_entry_or_null(&priv->free_slots,
					struct iwcm_event_slot, entry);
	if (!slot) {
		spin_unlock_irqrestore(&priv->lock, flags);
		kfree(pdata);
		return -ENOMEM;
	}
	slot->event = *event;
	if (pdata)
		slot->event.private_data = pdata;
	list_move_tail(&slot->entry, &priv->event_queue);
	if (!priv->work_queued) {
		priv->work_queued = true;
		iwcm_get(priv);
		queue_work(iwcm_wq, &priv->work);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}

/*
 * The consumer's handler runs with priv->delivering set, so that
 * iw_destroy_cm_id() can wait for it; the worker sets it for the id it
 * delivers to, in the same critical section that checks priv->dropping.
 */
static void iwcm_delivery_done(struct iwcm_id_private *priv)
{
	spin_lock_irq(&priv->lock);
	priv->delivering = NULL;
	spin_unlock_irq(&priv->lock);
	wake_up_all(&priv->connect_wait);
}

/*
 * CONNECT_REQUEST on a listener: a new id in CONN_RECV, with the
 * listener's handler and context, goes to the consumer, which accepts or
 * rejects it now or later.  Whatever fails here rejects the request; the
 * listener is not affected.
 */
static void iwcm_on_connect_request(struct iwcm_id_private *listener,
				    struct iw_cm_event *event)
{
	struct iw_cm_id *lid = &listener->id;
	struct iwcm_id_private *child;
	struct iw_cm_id *cid;
	bool listening;
	LIST_HEAD(slots);
	int ret;

	if (WARN_ONCE(event->status, "iw_cm: connect request with status %d\n",
		      event->status))
		return;

	cid = iw_create_cm_id(lid->device, lid->cm_handler, lid->context);
	/* Without an id there is nothing to reject with: the peer times out. */
	if (IS_ERR(cid))
		return;
	child = to_iwcm(cid);
	cid->provider_data = event->provider_data;
	cid->m_local_addr = event->local_addr;
	cid->m_remote_addr = event->remote_addr;
	cid->local_addr = lid->local_addr;
	/* Through a port mapper, the peer's real address is in its records. */
	if (iwpm_get_remote_info(&lid->m_local_addr, &event->remote_addr,
				 &cid->remote_addr, RDMA_NL_IWCM)) {
		cid->remote_addr = event->remote_addr;
	} else {
		iwcm_fix_wildcard(&lid->m_local_addr, &event->local_addr,
				  &cid->local_addr);
		event->local_addr = cid->local_addr;
		event->remote_addr = cid->remote_addr;
	}
	child->state = IW_CM_STATE_CONN_RECV;

	ret = iwcm_slots_alloc(&slots, IWCM_PASSIVE_SLOTS);

	/* The listener may be on its way out (its destroy waits for us). */
	spin_lock_irq(&listener->lock);
	listening = listener->state == IW_CM_STATE_LISTEN;
	spin_unlock_irq(&listener->lock);
	if (ret || !listening)
		goto reject;

	/* Nobody knows the child yet: no lock needed. */
	list_splice_init(&slots, &child->free_slots);
	child->delivering = current;
	ret = child->id.cm_handler(&child->id, event);
	iwcm_delivery_done(child);
	if (!ret)
		return;
	/*
	 * Accepted, then refused: the driver reports ESTABLISHED to this id,
	 * on this ordered queue, after we return.  Neither a reject nor a
	 * destroy (which waits for that ESTABLISHED) can run here; the
	 * ESTABLISHED handler gives the id up instead.
	 */
	if (test_bit(IWCM_F_CONNECTING, &child->flags)) {
		set_bit(IWCM_F_ABANDONED, &child->flags);
		return;
	}

reject:
	iwcm_slots_free(&slots);
	iw_cm_reject(cid, NULL, 0);
	iw_destroy_cm_id(cid);
}

/* CONNECT_REPLY on the active side: ESTABLISHED, or back to IDLE. */
static int iwcm_on_connect_reply(struct iwcm_id_private *priv,
				 struct iw_cm_event *event)
{
	struct iw_cm_id *id = &priv->id;
	struct ib_qp *qp = NULL;
	int ret;

	spin_lock_irq(&priv->lock);
	if (WARN_ONCE(priv->state != IW_CM_STATE_CONN_SENT,
		      "iw_cm: connect reply in state %d\n", priv->state)) {
		spin_unlock_irq(&priv->lock);
		return 0;
	}
	if (!event->status) {
		/* The driver speaks mapped addresses, the consumer real ones. */
		id->m_local_addr = event->local_addr;
		id->m_remote_addr = event->remote_addr;
		event->local_addr = id->local_addr;
		event->remote_addr = id->remote_addr;
		priv->state = IW_CM_STATE_ESTABLISHED;
	} else {
		/* Rejected, reset or timed out. */
		qp = iwcm_take_qp(priv);
		priv->state = IW_CM_STATE_IDLE;
	}
	/* The handler may disconnect: that must not wait for us. */
	clear_bit(IWCM_F_CONNECTING, &priv->flags);
	spin_unlock_irq(&priv->lock);

	iwcm_release_qp(priv, qp);
	ret = priv->id.cm_handler(&priv->id, event);
	wake_up_all(&priv->connect_wait);
	return ret;
}

/* ESTABLISHED on the passive side, after iw_cm_accept(). */
static int iwcm_on_established(struct iwcm_id_private *priv,
			       struct iw_cm_event *event)
{
	int ret;

	spin_lock_irq(&priv->lock);
	if (WARN_ONCE(priv->state != IW_CM_STATE_CONN_RECV,
		      "iw_cm: established in state %d\n", priv->state)) {
		spin_unlock_irq(&priv->lock);
		return 0;
	}
	priv->state = IW_CM_STATE_ESTABLISHED;
	clear_bit(IWCM_F_CONNECTING, &priv->flags);
	spin_unlock_irq(&priv->lock);

	/* Non-zero: iwcm_event_work() aborts the connection and drops the id. */
	if (test_bit(IWCM_F_ABANDONED, &priv->flags))
		ret = -ECONNABORTED;
	else
		ret = priv->id.cm_handler(&priv->id, event);
	wake_up_all(&priv->connect_wait);
	return ret;
}

/* DISCONNECT: the peer is closing; the consumer hears of the CLOSE. */
static void iwcm_on_disconnect(struct iwcm_id_private *priv)
{
	spin_lock_irq(&priv->lock);
	if (priv->state == IW_CM_STATE_ESTABLISHED)
		priv->state = IW_CM_STATE_CLOSING;
	spin_unlock_irq(&priv->lock);
}

/* CLOSE: the connection is gone (the driver moved the QP to ERR). */
static int iwcm_on_close(struct iwcm_id_private *priv,
			 struct iw_cm_event *event)
{
	bool notify = false;
	struct ib_qp *qp;

	spin_lock_irq(&priv->lock);
	qp = iwcm_take_qp(priv);
	switch (priv->state) {
	case IW_CM_STATE_ESTABLISHED:
	case IW_CM_STATE_CLOSING:
		priv->state = IW_CM_STATE_IDLE;
		notify = true;
		break;
	default:
		WARN_ONCE(1, "iw_cm: close in state %d\n", priv->state);
		break;
	}
	spin_unlock_irq(&priv->lock);

	iwcm_release_qp(priv, qp);
	return notify ? priv->id.cm_handler(&priv->id, event) : 0;
}

/* Handles one event; non-zero: the consumer wants the id destroyed. */
static int iwcm_process(struct iwcm_id_private *priv,
			struct iw_cm_event *event)
{
	switch (event->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		iwcm_on_connect_request(priv, event);
		return 0;
	case IW_CM_EVENT_CONNECT_REPLY:
		return iwcm_on_connect_reply(priv, event);
	case IW_CM_EVENT_ESTABLISHED:
		return iwcm_on_established(priv, event);
	case IW_CM_EVENT_DISCONNECT:
		iwcm_on_disconnect(priv);
		return 0;
	case IW_CM_EVENT_CLOSE:
		return iwcm_on_close(priv, event);
	default:
		WARN_ONCE(1, "iw_cm: unknown event %d\n", event->event);
		return 0;
	}
}

/*
 * The id's work item: delivers its queued events one by one, then drops
 * the reference that queuing it took.  An event queued while we run finds
 * work_queued set and is picked up by this loop.
 */
void iwcm_event_work(struct work_struct *work)
{
	struct iwcm_id_private *priv = container_of(work, struct iwcm_id_private,
						    work);
	struct iwcm_event_slot *slot;
	struct iw_cm_event event;
	bool deliver;
	int ret;

	spin_lock_irq(&priv->lock);
	while ((slot = list_first_entry_or_null(&priv->event_queue,
						struct iwcm_event_slot,
						entry))) {
		event = slot->event;
		list_move(&slot->entry, &priv->free_slots);
		deliver = !priv->dropping;
		if (deliver)
			priv->delivering = current;
		spin_unlock_irq(&priv->lock);

		ret = 0;
		if (deliver) {
			ret = iwcm_process(priv, &event);
			iwcm_delivery_done(priv);
		}
		iwcm_event_release(&event);
		if (ret) {
			/* The consumer gave the id up: its reference goes. */
			iwcm_teardown(priv);
			WARN_ON(iwcm_put(priv));
		}

		spin_lock_irq(&priv->lock);
	}
	priv->work_queued = false;
	spin_unlock_irq(&priv->lock);

	iwcm_put(priv);
}

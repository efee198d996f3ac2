/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iw_cm's private view of an iw_cm_id: the connection state machine, the
 * queue of driver events waiting for the work queue, and the pre-allocated
 * event slots that let the driver's upcall work in interrupt context
 * without allocating.  Shared by the API half (iwcm.c) and the event half
 * (iwcm_event.c) of the module.
 */
#ifndef IWCM_PRIV_H
#define IWCM_PRIV_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

/*
 * States of an iw_cm_id.  The driver learns about a connection through
 * its iw_* verbs; the consumer through its cm_handler.  Transitions:
 *
 *	IDLE -> LISTEN			iw_cm_listen()
 *	IDLE -> CONN_SENT		iw_cm_connect()
 *	(new) -> CONN_RECV		a CONNECT_REQUEST on a listener
 *	CONN_SENT -> ESTABLISHED | IDLE	CONNECT_REPLY, by its status
 *	CONN_RECV -> ESTABLISHED	ESTABLISHED after iw_cm_accept()
 *	CONN_RECV -> IDLE		iw_cm_reject(), failed accept
 *	ESTABLISHED -> CLOSING		iw_cm_disconnect(), DISCONNECT
 *	ESTABLISHED | CLOSING -> IDLE	CLOSE
 *	any -> DESTROYING		iw_destroy_cm_id()
 */
enum iw_cm_state {
	IW_CM_STATE_IDLE,
	IW_CM_STATE_LISTEN,
	IW_CM_STATE_CONN_RECV,
	IW_CM_STATE_CONN_SENT,
	IW_CM_STATE_ESTABLISHED,
	IW_CM_STATE_CLOSING,
	IW_CM_STATE_DESTROYING,
};

/*
 * Bits of iwcm_id_private.flags (atomic bitops; waiters sleep on
 * connect_wait).
 *
 * IWCM_F_CONNECTING: a connect, accept or reject downcall is under way, or
 *	its outcome (CONNECT_REPLY, ESTABLISHED) has not been handled yet.
 *	Disconnect and destroy wait for it to clear.  Connect, accept and
 *	reject claim it with test_and_set_bit(): one of them at a time, and
 *	none once an accept succeeded (the driver will report ESTABLISHED,
 *	which only CONN_RECV may take).
 * IWCM_F_ABANDONED: the listener's handler accepted a request and then
 *	refused it (returned non-zero); the id goes once its ESTABLISHED is
 *	handled, without the consumer hearing of it.
 */
enum {
	IWCM_F_CONNECTING,
	IWCM_F_ABANDONED,
};

/*
 * Event slots an id needs for one connection (the numbers of stock's
 * iw_cm): an active side CONNECT_REPLY, ESTABLISHED, DISCONNECT and CLOSE;
 * a passive side ESTABLISHED, DISCONNECT and CLOSE.  A listener has one
 * per connect request its backlog may hold.
 */
#define IWCM_ACTIVE_SLOTS	4
#define IWCM_PASSIVE_SLOTS	3

/**
 * struct iwcm_event_slot - one driver event, queued for the work queue
 * @entry: on the id's free_slots or event_queue
 * @event: a copy of the driver's event; private data of a CONNECT_REQUEST
 *	or CONNECT_REPLY points to our own copy, freed once it is handled
 */
struct iwcm_event_slot {
	struct list_head entry;
	struct iw_cm_event event;
};

/**
 * struct iwcm_id_private - an iw_cm_id with the state behind it
 * @id: what consumers and drivers see
 * @lock: guards @state, @qp, @free_slots, @event_queue, @work_queued,
 *	@dropping and @delivering; taken with interrupts off (drivers
 *	report events from interrupt context)
 * @state: enum iw_cm_state
 * @qp: the QP of the connection, with a reference from ops.iw_add_ref,
 *	from connect/accept until the connection is closed or fails
 * @free_slots: pre-allocated event slots (stock's numbers: a listener's
 *	backlog, 4 for an active side, 3 for a passive one)
 * @event_queue: events reported by the driver, oldest first
 * @work_queued: @work is queued or running and will look at @event_queue
 *	again; it holds a reference on the id meanwhile
 * @dropping: the id is being destroyed: queued and future events are
 *	dropped without calling the consumer
 * @delivering: the task running the consumer's handler for this id, or
 *	NULL
 * @flags: IWCM_F_* bits
 * @connect_wait: woken when IWCM_F_CONNECTING clears or @delivering ends
 * @refcount: the consumer's reference (until destroy, or until its
 *	handler asked for destruction), the driver's (iw_cm_id.add_ref),
 *	and the queued work's
 * @work: delivers @event_queue, one event at a time, on iwcm_wq
 */
struct iwcm_id_private {
	struct iw_cm_id id;
	spinlock_t lock;	/* see above */
	enum iw_cm_state state;
	struct ib_qp *qp;
	struct list_head free_slots;
	struct list_head event_queue;
	bool work_queued;
	bool dropping;
	struct task_struct *delivering;
	unsigned long flags;
	wait_queue_head_t connect_wait;
	refcount_t refcount;
	struct work_struct work;
};

static inline struct iwcm_id_private *to_iwcm(struct iw_cm_id *id)
{
	return container_of(id, struct iwcm_id_private, id);
}

/* The ordered work queue that delivers every id's events (iwcm_main.c). */
extern struct workqueue_struct *iwcm_wq;
/* Listen backlog used for 0, /proc/sys/net/iw_cm/default_backlog. */
extern int iwcm_default_backlog;

/* iwcm_event.c */
int iwcm_slots_alloc(struct list_head *slots, unsigned int count);
void iwcm_slots_free(struct list_head *slots);
int iwcm_event_upcall(struct iw_cm_id *id, struct iw_cm_event *event);
void iwcm_event_work(struct work_struct *work);

/* iwcm.c */
void iwcm_get(struct iwcm_id_private *priv);
bool iwcm_put(struct iwcm_id_private *priv);
void iwcm_teardown(struct iwcm_id_private *priv);
struct ib_qp *iwcm_take_qp(struct iwcm_id_private *priv);
void iwcm_release_qp(struct iwcm_id_private *priv, struct ib_qp *qp);
bool iwcm_claim_connecting(struct iwcm_id_private *priv);
void iwcm_clear_connecting(struct iwcm_id_private *priv);
void iwcm_fix_wildcard(const struct sockaddr_storage *mapped,
		       const struct sockaddr_storage *actual,
		       struct sockaddr_storage *out);

#endif /* IWCM_PRIV_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The packet queues from the receive path to a QP's responder
 * (resp.pkts) and completer (comp.pkts).  Packets arrive in softirq or,
 * over loopback, in the sender's own context, and the tasks take them
 * in process context or softirq: never in hard interrupt context, so
 * the queue's lock is taken with bottom halves off, not interrupts
 * (cheaper, and under TCG unmasking interrupts ends a translation
 * block: two of these locks are on the way of every packet).
 *
 * Each queue gets a lock class of its own: skb_queue_head_init()'s is
 * shared by every sk_buff_head of the kernel, some of which are taken
 * in hard interrupt context, and lockdep would take ours for those.
 *
 * Owner: the responder and the completer (rxe_resp.c, rxe_comp.c).
 */
#ifndef RXE_PKTQ_H
#define RXE_PKTQ_H

#include <linux/skbuff.h>

#include "rxe_engine.h"
#include "rxe_task.h"

static inline void rxe_pktq_init(struct sk_buff_head *q)
{
	__skb_queue_head_init(q);
	spin_lock_init(&q->lock);
}

/*
 * Queues @skb for @task, unless the task is stopped: the check and the
 * purge of a stopping QP are both under the queue's lock, so nothing is
 * queued after the purge.  False if stopped: @skb is still the
 * caller's.
 */
static inline bool rxe_pktq_add(struct sk_buff_head *q, struct sk_buff *skb,
				const struct rxe_task *task)
{
	bool stopped;

	spin_lock_bh(&q->lock);
	stopped = READ_ONCE(task->stopped);
	if (!stopped)
		__skb_queue_tail(q, skb);
	spin_unlock_bh(&q->lock);
	return !stopped;
}

/* The oldest packet queued, or NULL. */
static inline struct sk_buff *rxe_pktq_take(struct sk_buff_head *q)
{
	struct sk_buff *skb;

	spin_lock_bh(&q->lock);
	skb = __skb_dequeue(q);
	spin_unlock_bh(&q->lock);
	return skb;
}

/* Drops every packet queued, each with its reference on @qp. */
static inline void rxe_pktq_purge(struct sk_buff_head *q, struct rxe_qp *qp)
{
	struct sk_buff *skb;

	while ((skb = rxe_pktq_take(q))) {
		kfree_skb(skb);
		rxe_qp_put(qp);
	}
}

#endif /* RXE_PKTQ_H */

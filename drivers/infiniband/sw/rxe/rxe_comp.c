// SPDX-License-Identifier: GPL-2.0-only
/*
 * The completer (IBTA vol. 1, 9.9): responses to the requester's
 * packets, send completions, retransmission.
 */
#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

/*
 * The packet's QP reference is dropped here if the QP is being
 * destroyed (the task is stopped: rxe_req_stop() has purged or will
 * purge the queue under the same lock), else when it is consumed.
 */
void rxe_comp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb)
{
	unsigned long flags;
	bool dead;

	spin_lock_irqsave(&qp->comp.pkts.lock, flags);
	dead = READ_ONCE(qp->req.task.stopped);
	if (!dead)
		__skb_queue_tail(&qp->comp.pkts, skb);
	spin_unlock_irqrestore(&qp->comp.pkts.lock, flags);

	if (dead) {
		kfree_skb(skb);
		rxe_qp_put(qp);
		return;
	}
	rxe_task_run(&qp->req.task);
}

int rxe_comp_step(struct rxe_qp *qp)
{
	struct sk_buff *skb;

	skb = skb_dequeue(&qp->comp.pkts);
	if (!skb)
		return 1;
	kfree_skb(skb);
	rxe_qp_put(qp);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The requester (IBTA vol. 1, 9.5-9.8 for the sender's side): send WQEs
 * to request packets.
 */
#include <linux/vmalloc.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

int rxe_req_task(struct rxe_qp *qp)
{
	return rxe_comp_step(qp);
}

static void rxe_req_retrans_timer(struct timer_list *t)
{
	struct rxe_qp *qp = from_timer(qp, t, req.retrans_timer);

	set_bit(RXE_REQ_EV_TIMEOUT, &qp->req.events);
	rxe_task_sched(&qp->req.task);
}

static void rxe_req_rnr_timer(struct timer_list *t)
{
	struct rxe_qp *qp = from_timer(qp, t, req.rnr_timer);

	set_bit(RXE_REQ_EV_RNR, &qp->req.events);
	rxe_task_sched(&qp->req.task);
}

int rxe_req_init(struct rxe_qp *qp)
{
	struct rxe_queue *q = qp->sq.queue;

	rxe_task_init(&qp->req.task, qp, rxe_req_task);
	skb_queue_head_init(&qp->comp.pkts);
	spin_lock_init(&qp->req.sq_lock);
	timer_setup(&qp->req.retrans_timer, rxe_req_retrans_timer, 0);
	timer_setup(&qp->req.rnr_timer, rxe_req_rnr_timer, 0);
	qp->req.opcode = -1;

	if (qp->is_user) {
		qp->req.log2_elem = q->log2_elem_size;
		qp->req.shadow = vzalloc(array_size(q->index_mask + 1,
						    BIT(q->log2_elem_size)));
		if (!qp->req.shadow)
			return -ENOMEM;
	}
	return 0;
}

void rxe_req_modify(struct rxe_qp *qp, int mask)
{
	lockdep_assert_held(&qp->lock);
}

void rxe_req_kick(struct rxe_qp *qp)
{
	rxe_task_run(&qp->req.task);
}

/*
 * No run starts after the task is stopped; the timers only schedule the
 * task, so once it is stopped they can be shut down for good.  Packets
 * queued to the completer go with their references; later ones are
 * dropped by rxe_comp_queue_pkt(), which checks the stopped task under
 * the queue's lock.
 */
void rxe_req_stop(struct rxe_qp *qp)
{
	struct sk_buff *skb;

	rxe_task_stop(&qp->req.task);
	del_timer_sync(&qp->req.retrans_timer);
	del_timer_sync(&qp->req.rnr_timer);

	spin_lock_bh(&qp->comp.pkts.lock);
	while ((skb = __skb_dequeue(&qp->comp.pkts))) {
		kfree_skb(skb);
		rxe_qp_put(qp);
	}
	spin_unlock_bh(&qp->comp.pkts.lock);
}

void rxe_req_cleanup(struct rxe_qp *qp)
{
	vfree(qp->req.shadow);
	qp->req.shadow = NULL;
}

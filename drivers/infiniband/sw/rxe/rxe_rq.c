// SPDX-License-Identifier: GPL-2.0-only
/*
 * Receive WQEs: posting them for kernel QPs, and taking them out of a
 * receive queue for the responder.
 *
 * An application writes its receive WQEs into its mapped queue itself,
 * without a system call, and may rewrite a slot at any time: the
 * responder copies a WQE out of the ring once, checks the copy, and
 * never looks at the slot again.  Kernel queues go through the same
 * copy, which costs little and keeps one path.
 *
 * Owner: the responder part.
 */
#include <linux/overflow.h>

#include "rxe.h"
#include "rxe_verbs.h"

/*
 * Writes @wr at the producer end of the kernel queue @q; the caller
 * holds the producer's lock.  -ENOMEM when full, -EINVAL for too many
 * SGEs, as stock answers ib_post_recv().
 */
int rxe_recv_wqe_post(struct rxe_queue *q, u32 max_sge,
		      const struct ib_recv_wr *wr)
{
	struct rxe_recv_wqe *wqe;
	u64 length = 0;
	int i;

	if (unlikely(wr->num_sge < 0 || wr->num_sge > max_sge))
		return -EINVAL;
	if (unlikely(rxe_queue_full(q)))
		return -ENOMEM;

	wqe = rxe_queue_producer_addr(q);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		length += wr->sg_list[i].length;
	}
	if (unlikely(length > U32_MAX))
		return -EINVAL;
	wqe->dma.num_sge = wr->num_sge;
	wqe->dma.length = length;
	wqe->dma.resid = length;

	rxe_queue_advance_producer(q);
	return 0;
}

/*
 * Copies the WQE at the consumer end of @q (not empty) into @wqe, which
 * has room for RXE_MAX_SGE SGEs, and makes the copy consistent whatever
 * the ring held: the SGE count checked against @max_sge, the length
 * recomputed from the SGEs, the cursor at the start.  The caller
 * consumes the slot in either case.  -EINVAL for a malformed WQE.
 */
int rxe_recv_wqe_copy(struct rxe_queue *q, u32 max_sge,
		      struct rxe_recv_wqe *wqe)
{
	const struct rxe_recv_wqe *slot = rxe_queue_consumer_addr(q);
	u32 num_sge = READ_ONCE(slot->dma.num_sge);
	u64 length = 0;
	u32 i;

	wqe->wr_id = READ_ONCE(slot->wr_id);
	if (unlikely(num_sge > max_sge || num_sge > RXE_MAX_SGE)) {
		wqe->dma.num_sge = 0;
		return -EINVAL;
	}

	memcpy(wqe->dma.sge, slot->dma.sge,
	       array_size(num_sge, sizeof(struct rxe_sge)));
	for (i = 0; i < num_sge; i++)
		length += wqe->dma.sge[i].length;

	wqe->dma.num_sge = num_sge;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	if (unlikely(length > U32_MAX)) {
		wqe->dma.num_sge = 0;
		return -EINVAL;
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	return 0;
}

/* The consumer's end of @qp's RQ; the caller orders it with producers. */
static int rxe_rq_take_slot(struct rxe_qp *qp, struct rxe_recv_wqe *wqe)
{
	struct rxe_queue *q = qp->rq.queue;
	int err;

	if (rxe_queue_empty(q))
		return -EAGAIN;
	err = rxe_recv_wqe_copy(q, qp->rq.max_sge, wqe);
	rxe_queue_advance_consumer(q);
	return err;
}

/*
 * The next receive WQE of @qp (its RQ or its SRQ) into @wqe, consumed.
 * -EAGAIN when none is posted, -EINVAL when it was malformed (consumed
 * all the same; @wqe->wr_id tells which).  Called by the responder
 * task only, which is the RQ's only consumer.  A user RQ has one
 * producer too, the application, ordered with us by the indices'
 * acquire and release: no lock.
 */
int rxe_rq_take_wqe(struct rxe_qp *qp, struct rxe_recv_wqe *wqe)
{
	unsigned long flags;
	int err;

	if (qp->ibqp.srq)
		return rxe_srq_take_wqe(to_rsrq(qp->ibqp.srq), wqe);
	if (qp->is_user)
		return rxe_rq_take_slot(qp, wqe);

	spin_lock_irqsave(&qp->resp.rq_lock, flags);
	err = rxe_rq_take_slot(qp, wqe);
	spin_unlock_irqrestore(&qp->resp.rq_lock, flags);
	return err;
}

/*
 * Kernel QPs only: applications post to their mapped queue.  As on
 * stock, a QP takes receives from INIT on (in ERR too: they are flushed
 * at once, which is how ib_drain_rq() learns the queue is empty), and
 * a QP on an SRQ takes none.
 */
int rxe_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->attr.qp_state);
	unsigned long flags;
	int err = 0;

	if (unlikely(qp->is_user || ibqp->srq || state < IB_QPS_INIT)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->resp.rq_lock, flags);
	for (; wr; wr = wr->next) {
		err = rxe_recv_wqe_post(qp->rq.queue, qp->rq.max_sge, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->resp.rq_lock, flags);

	if (state == IB_QPS_ERR)
		rxe_task_sched(&qp->resp.task);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completion queues.  The queue holds union rxe_cqe slots: a user CQ is
 * mapped into the application, which polls it itself; a kernel CQ is
 * polled through poll_cq.  The protocol engine posts with rxe_cq_post().
 */
#include <linux/uaccess.h>

#include "rxe.h"
#include "rxe_verbs.h"

static int rxe_cq_check_size(int cqe)
{
	return cqe > 0 && cqe <= RXE_MAX_CQE ? 0 : -EINVAL;
}

static enum rxe_queue_type rxe_cq_queue_type(struct rxe_cq *cq)
{
	return cq->is_user ? RXE_QUEUE_TO_USER : RXE_QUEUE_KERNEL;
}

/*
 * A queue for @cqe entries, offered to the application in @mi if the CQ
 * is a user one.
 */
static struct rxe_queue *rxe_cq_new_queue(struct rxe_cq *cq, int cqe,
					  struct ib_udata *udata,
					  struct mminfo *mi)
{
	struct rxe_queue *q;
	u32 num = cqe;

	q = rxe_queue_alloc(&num, sizeof(union rxe_cqe),
			    rxe_cq_queue_type(cq));
	if (!q)
		return NULL;
	if (cq->is_user)
		rxe_queue_export(q, &rxe_udata_ucontext(udata)->mmap, mi);
	return q;
}

int rxe_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibcq->device);
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	err = rxe_cq_check_size(attr->cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	if (atomic_inc_return(&rxe->num_cq) > RXE_MAX_CQ) {
		err = -ENOMEM;
		goto err_count;
	}

	cq->is_user = !!udata;
	spin_lock_init(&cq->lock);
	cq->queue = rxe_cq_new_queue(cq, attr->cqe, udata, &resp.mi);
	if (!cq->queue) {
		err = -ENOMEM;
		goto err_count;
	}

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}

	ibcq->cqe = cq->queue->index_mask;
	return 0;

err_queue:
	rxe_queue_free(cq->queue);
	cq->queue = NULL;
err_count:
	atomic_dec(&rxe->num_cq);
	return err;
}

/*
 * The entries still queued move to the new queue; the application maps
 * the new one (rxe_resize_cq_resp) and unmaps the old.  As on stock, the
 * new size must hold them without the rounding up.  Resizes of one CQ
 * may run concurrently (uverbs holds the CQ shared): the lock orders
 * them.
 */
int rxe_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct rxe_queue *new, *old;
	int err;

	if (cq->is_user && (!udata || udata->outlen < sizeof(resp)))
		return -EINVAL;
	err = rxe_cq_check_size(cqe);
	if (err)
		return err;

	new = rxe_cq_new_queue(cq, cqe, udata, &resp.mi);
	if (!new)
		return -ENOMEM;

	if (cq->is_user) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free;
	}

	spin_lock_irq(&cq->lock);
	if (rxe_queue_count(cq->queue) > cqe)
		err = -EINVAL;
	else
		err = rxe_queue_move(new, cq->queue);
	if (err) {
		spin_unlock_irq(&cq->lock);
		goto err_free;
	}
	old = cq->queue;
	cq->queue = new;
	ibcq->cqe = new->index_mask;
	spin_unlock_irq(&cq->lock);

	rxe_queue_free(old);
	return 0;

err_free:
	rxe_queue_free(new);
	return err;
}

/* Nothing posts any more: the QPs using the CQ are gone. */
int rxe_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rxe_cq *cq = to_rcq(ibcq);

	rxe_queue_free(cq->queue);
	cq->queue = NULL;
	atomic_dec(&to_rdev(ibcq->device)->num_cq);
	return 0;
}

/* Kernel CQs only: the application polls its mapped queue itself. */
int rxe_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	unsigned long flags;
	int n;

	if (cq->is_user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries && !rxe_queue_empty(cq->queue); n++) {
		const union rxe_cqe *cqe = rxe_queue_consumer_addr(cq->queue);

		wc[n] = cqe->ibwc;
		rxe_queue_advance_consumer(cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	return n;
}

/*
 * Arms the CQ for the next completion (or next solicited one).  With
 * IB_CQ_REPORT_MISSED_EVENTS, returns 1 if completions are already
 * queued, which would otherwise never raise an event.
 */
int rxe_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	u8 arm = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* A request for every completion overrides one for solicited. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = arm;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    !rxe_queue_empty(cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);

	return ret;
}

static void rxe_cq_overflow(struct rxe_cq *cq)
{
	struct ib_event event = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
}

/*
 * For the protocol engine: queues one completion and raises the
 * completion event if the CQ is armed for it.  -EBUSY when the CQ is
 * full: the CQ is in error, as IBA has it.  Any context.
 */
int rxe_cq_post(struct rxe_cq *cq, const union rxe_cqe *cqe, bool solicited)
{
	unsigned long flags;
	bool notify;

	spin_lock_irqsave(&cq->lock, flags);
	if (rxe_queue_full(cq->queue)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		rxe_cq_overflow(cq);
		return -EBUSY;
	}

	memcpy(rxe_queue_producer_addr(cq->queue), cqe, sizeof(*cqe));
	rxe_queue_advance_producer(cq->queue);

	notify = cq->notify == IB_CQ_NEXT_COMP ||
		 (cq->notify == IB_CQ_SOLICITED && solicited);
	if (notify)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

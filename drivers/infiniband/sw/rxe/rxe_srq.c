// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared receive queues.  A user SRQ's queue is mapped into the
 * application, which posts receives there itself; a resize hands it a
 * new queue through the address in struct rxe_modify_srq_cmd.
 */
#include <linux/uaccess.h>

#include "rxe.h"
#include "rxe_verbs.h"

static int rxe_srq_check_max_wr(u32 max_wr)
{
	return max_wr && max_wr <= RXE_MAX_SRQ_WR ? 0 : -EINVAL;
}

static enum rxe_queue_type rxe_srq_queue_type(const struct rxe_srq *srq)
{
	return srq->is_user ? RXE_QUEUE_FROM_USER : RXE_QUEUE_KERNEL;
}

/* A queue of @max_wr receive WQEs; *@max_wr becomes its capacity. */
static struct rxe_queue *rxe_srq_new_queue(struct rxe_srq *srq, u32 *max_wr)
{
	return rxe_queue_alloc(max_wr, sizeof(struct rxe_recv_wqe) +
			       srq->max_sge * sizeof(struct rxe_sge),
			       rxe_srq_queue_type(srq));
}

int rxe_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibsrq->device);
	struct rxe_srq *srq = to_rsrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct rxe_create_srq_resp resp = {};
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	err = rxe_srq_check_max_wr(attr->max_wr);
	if (err)
		return err;
	if (attr->max_sge > RXE_MAX_SRQ_SGE)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	srq->is_user = !!udata;
	spin_lock_init(&srq->lock);
	/* A receive WQE has room for at least one SGE. */
	srq->max_sge = max_t(u32, attr->max_sge, 1);
	srq->max_wr = attr->max_wr;
	srq->limit = attr->srq_limit;

	err = rxe_index_alloc(&rxe->srq_index, srq, &srq->srq_num,
			      GFP_KERNEL);
	if (err)
		return err;

	srq->queue = rxe_srq_new_queue(srq, &srq->max_wr);
	if (!srq->queue) {
		err = -ENOMEM;
		goto err_free_num;
	}

	if (udata) {
		rxe_queue_export(srq->queue, &rxe_udata_ucontext(udata)->mmap,
				 &resp.mi);
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_queue;
	}

	/*
	 * Stock answers CREATE_SRQ with the max_wr asked for, not the
	 * queue's capacity (QUERY_SRQ gives that): only the SGE count is
	 * written back.
	 */
	attr->max_sge = srq->max_sge;
	return 0;

err_free_queue:
	rxe_queue_free(srq->queue);
	srq->queue = NULL;
err_free_num:
	rxe_index_free(&rxe->srq_index, srq->srq_num);
	return err;
}

/*
 * Gives an application the new queue: it wrote where it wants the
 * struct mminfo in its command.
 */
static int rxe_srq_tell_user(struct rxe_srq *srq, struct rxe_queue *q,
			     struct ib_udata *udata)
{
	struct rxe_modify_srq_cmd cmd;
	struct mminfo mi;
	int err;

	if (udata->inlen < sizeof(cmd))
		return -EINVAL;
	err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
	if (err)
		return err;

	rxe_queue_export(q, &rxe_udata_ucontext(udata)->mmap, &mi);
	if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi, sizeof(mi)))
		return -EFAULT;
	return 0;
}

/* The receives still queued move to the new queue. */
static int rxe_srq_resize(struct rxe_srq *srq, u32 max_wr,
			  struct ib_udata *udata)
{
	struct rxe_queue *new, *old;
	unsigned long flags;
	int err;

	new = rxe_srq_new_queue(srq, &max_wr);
	if (!new)
		return -ENOMEM;

	if (srq->is_user) {
		err = rxe_srq_tell_user(srq, new, udata);
		if (err)
			goto err_free;
	}

	spin_lock_irqsave(&srq->lock, flags);
	err = rxe_queue_move(new, srq->queue);
	if (err) {
		spin_unlock_irqrestore(&srq->lock, flags);
		goto err_free;
	}
	old = srq->queue;
	srq->queue = new;
	srq->max_wr = max_wr;
	spin_unlock_irqrestore(&srq->lock, flags);

	rxe_queue_free(old);
	return 0;

err_free:
	rxe_queue_free(new);
	return err;
}

/*
 * Resize (IB_SRQ_MAX_WR) and arm the limit (IB_SRQ_LIMIT).  The limit
 * counts WQEs left in the queue: it must not exceed the queue size.  As
 * on stock, both checks are against the SRQ as it is, even when one
 * call changes both: no resize below the armed limit, no limit above
 * the current size.
 */
int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	unsigned long flags;
	u32 max_wr, limit;
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	/*
	 * A user SRQ is modified with rxe's command (where to tell the
	 * new queue's mmap info), even for a limit alone: stock refuses a
	 * modify without it.
	 */
	if (srq->is_user &&
	    (!udata || udata->inlen < sizeof(struct rxe_modify_srq_cmd)))
		return -EINVAL;

	spin_lock_irqsave(&srq->lock, flags);
	max_wr = srq->max_wr;
	limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);

	if (mask & IB_SRQ_MAX_WR) {
		err = rxe_srq_check_max_wr(attr->max_wr);
		if (err)
			return err;
		if (attr->max_wr < limit)
			return -EINVAL;
	}
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > max_wr)
		return -EINVAL;

	if (mask & IB_SRQ_MAX_WR) {
		err = rxe_srq_resize(srq, attr->max_wr, udata);
		if (err)
			return err;
	}

	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/* The core destroys an SRQ only once no QP uses it. */
int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	rxe_queue_free(srq->queue);
	srq->queue = NULL;
	rxe_index_free(&to_rdev(ibsrq->device)->srq_index, srq->srq_num);
	return 0;
}

/*
 * Kernel SRQs only: applications post to their mapped queue.  Errors as
 * stock: -EINVAL for too many SGEs, -ENOMEM when full, with *@bad_wr
 * the first WR not posted.
 */
int rxe_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (unlikely(srq->is_user)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = rxe_recv_wqe_post(srq->queue, srq->max_sge, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

/*
 * For the responder of any QP on the SRQ: the next WQE into @wqe,
 * consumed (see rxe_rq_take_wqe()).  When this leaves fewer WQEs than
 * an armed limit, the limit disarms and IB_EVENT_SRQ_LIMIT_REACHED is
 * raised, once, as IBA has it (o10-18.2.1) and stock does; only an SRQ
 * with an event handler is armed for that.
 */
int rxe_srq_take_wqe(struct rxe_srq *srq, struct rxe_recv_wqe *wqe)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	bool limit_reached = false;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&srq->lock, flags);
	if (rxe_queue_empty(srq->queue)) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return -EAGAIN;
	}
	err = rxe_recv_wqe_copy(srq->queue, srq->max_sge, wqe);
	rxe_queue_advance_consumer(srq->queue);

	if (srq->limit && srq->ibsrq.event_handler &&
	    rxe_queue_count(srq->queue) < srq->limit) {
		srq->limit = 0;
		limit_reached = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	/* Handlers may call back into the SRQ: not under its lock. */
	if (limit_reached)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completion queues of kernel users: creation with a polling context and
 * the dispatch of each work completion to its struct ib_cqe.
 *
 * A kernel user posts every WR with wr_cqe pointing at a struct ib_cqe of
 * its own (embedded in its request) and gets its completions back through
 * cqe->done(cq, wc), in the context it chose at ib_alloc_cq() time:
 *
 *	IB_POLL_DIRECT		nobody polls but the user, with
 *				ib_process_cq_direct(); the CQ is never armed.
 *	IB_POLL_SOFTIRQ		the driver's completion event schedules an
 *				irq_poll instance (softirq context).
 *	IB_POLL_WORKQUEUE	the event queues the CQ's work on ib_comp_wq
 *	IB_POLL_UNBOUND_WORKQUEUE or ib_comp_unbound_wq (process context).
 *
 * Re-arming: a poller that ran out of completions before its budget arms
 * the CQ again with IB_CQ_REPORT_MISSED_EVENTS.  A completion that arrived
 * between the last empty poll and the arming would raise no event (the CQ
 * was not armed when it was added), so the driver reports it by returning
 * > 0 and the poller schedules itself once more instead of sleeping on a
 * CQ that is not empty.  A poller that used up its budget does not arm:
 * it reschedules itself, so that one busy CQ does not monopolise the CPU.
 *
 * Serialisation: the driver calls comp_handler at most once per arming,
 * and irq_poll and a work item each run one instance at a time, so one
 * CQ is polled by one context at a time (cq->wc is that poller's).
 * ib_process_cq_direct() polls into a buffer on its own stack: its
 * callers (a drain and the user) may overlap.
 *
 * Adaptive moderation (DIM): on a device that sets use_cq_dim and has
 * ops.modify_cq, a CQ with a polling context gets a struct dim (cq->dim,
 * as stock).  Each poller run feeds its completion count to rdma_dim();
 * when it decides on another profile, its work applies that profile's
 * moderation with ops.modify_cq.  A direct CQ has no poller: no DIM.
 */
#include <linux/dim.h>
#include <linux/list.h>
#include <linux/irq_poll.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "core_priv.h"

/* Work completions polled from the driver in one call. */
#define CQ_POLL_BATCH		16
/* Direct polling uses the stack: a smaller batch. */
#define CQ_POLL_BATCH_DIRECT	8
/* Completions per irq_poll round (the softirq's weight). */
#define CQ_BUDGET_SOFTIRQ	256
/* Completions per work item run before it requeues itself. */
#define CQ_BUDGET_WORKQUEUE	65536

#define CQ_REARM_FLAGS	(IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS)

/*
 * The moderation of DIM profile @ix (0 .. RDMA_DIM_PARAMS_NUM_PROFILES - 1,
 * from least to most moderated): each step doubles either the completion
 * count or the delay, so that the two grow together, from an event per
 * completion to one per 16 completions or 16 us.
 */
static void cq_dim_profile(unsigned int ix, u16 *comps, u16 *usec)
{
	*comps = 1 << ((ix + 1) / 2);
	*usec = 1 << (ix / 2);
}

/* rdma_dim() chose dim->profile_ix: apply it, then measure anew. */
static void cq_dim_work(struct work_struct *work)
{
	struct dim *dim = container_of(work, struct dim, work);
	struct ib_cq *cq = dim->priv;
	u16 comps, usec;

	cq_dim_profile(dim->profile_ix, &comps, &usec);
	dim->state = DIM_START_MEASURE;
	cq->device->ops.modify_cq(cq, comps, usec);
}

/* Gives @cq its DIM if its device asks for it (see the file comment). */
static void cq_dim_init(struct ib_cq *cq)
{
	struct dim *dim;

	if (!cq->device->use_cq_dim || !cq->device->ops.modify_cq ||
	    cq->poll_ctx == IB_POLL_DIRECT)
		return;
	/* Without it the CQ only goes unmoderated, as on any other device. */
	dim = kzalloc(sizeof(*dim), GFP_KERNEL);
	if (!dim)
		return;
	dim->state = DIM_START_MEASURE;
	dim->tune_state = DIM_GOING_RIGHT;
	dim->profile_ix = RDMA_DIM_START_PROFILE;
	dim->priv = cq;
	INIT_WORK(&dim->work, cq_dim_work);
	cq->dim = dim;
}

/* After the poller stopped: nothing feeds rdma_dim() any more. */
static void cq_dim_free(struct ib_cq *cq)
{
	if (!cq->dim)
		return;
	cancel_work_sync(&cq->dim->work);
	kfree(cq->dim);
	cq->dim = NULL;
}

static void cq_dim_sample(struct ib_cq *cq, int done)
{
	if (cq->dim)
		rdma_dim(cq->dim, done);
}

static void cq_dispatch(struct ib_cq *cq, struct ib_wc *wc)
{
	/*
	 * Users of this API post every WR with a wr_cqe.  A WR without one
	 * is lost to its poster; only say so for a successful completion
	 * (a flushed WR without cqe is what a careless drain leaves).
	 */
	if (wc->wr_cqe)
		wc->wr_cqe->done(cq, wc);
	else if (wc->status == IB_WC_SUCCESS)
		ibdev_warn_ratelimited(cq->device,
				       "completion without ib_cqe on a kernel CQ\n");
}

/*
 * Poll up to @budget completions (all there are when @budget < 0) in
 * batches of at most @batch into @wcs, dispatching each.  Returns how many
 * were handled.
 */
static int cq_process(struct ib_cq *cq, int budget, struct ib_wc *wcs,
		      int batch)
{
	int done = 0;

	for (;;) {
		int want = batch, n, i;

		if (budget >= 0)
			want = min(batch, budget - done);
		if (want <= 0)
			break;
		n = ib_poll_cq(cq, want, wcs);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			cq_dispatch(cq, &wcs[i]);
		done += n;
		/* A short batch: the CQ is empty for now. */
		if (n < want)
			break;
	}
	return done;
}

/**
 * ib_process_cq_direct - poll a CQ of polling context IB_POLL_DIRECT
 * @cq: the CQ
 * @budget: most completions to handle; -1 for all there are
 *
 * Runs each completion's ib_cqe done callback in the caller's context.
 * The CQ is not re-armed: a direct CQ raises no events.
 *
 * Return: the number of completions handled.
 */
int ib_process_cq_direct(struct ib_cq *cq, int budget)
{
	struct ib_wc wcs[CQ_POLL_BATCH_DIRECT];

	if (cq->poll_ctx != IB_POLL_DIRECT) {
		ibdev_warn_ratelimited(cq->device,
				       "direct polling of a CQ with a polling context\n");
		return 0;
	}
	return cq_process(cq, budget, wcs, ARRAY_SIZE(wcs));
}
EXPORT_SYMBOL(ib_process_cq_direct);

/*
 * The completion event of a direct CQ.  The core never arms one; a
 * driver raising an event anyway has nothing to wake up here.
 */
static void cq_event_direct(struct ib_cq *cq, void *ctx)
{
}

static int cq_poll_softirq(struct irq_poll *iop, int budget)
{
	struct ib_cq *cq = container_of(iop, struct ib_cq, iop);
	int done;

	done = cq_process(cq, budget, cq->wc, CQ_POLL_BATCH);
	if (done < budget) {
		/* Emptied: back to events, unless one was missed. */
		irq_poll_complete(&cq->iop);
		if (ib_req_notify_cq(cq, CQ_REARM_FLAGS) > 0)
			irq_poll_sched(&cq->iop);
	}
	cq_dim_sample(cq, done);
	return done;
}

static void cq_event_softirq(struct ib_cq *cq, void *ctx)
{
	irq_poll_sched(&cq->iop);
}

static void cq_poll_work(struct work_struct *work)
{
	struct ib_cq *cq = container_of(work, struct ib_cq, work);
	int done;

	done = cq_process(cq, CQ_BUDGET_WORKQUEUE, cq->wc, CQ_POLL_BATCH);
	if (done >= CQ_BUDGET_WORKQUEUE ||
	    ib_req_notify_cq(cq, CQ_REARM_FLAGS) > 0)
		queue_work(cq->comp_wq, &cq->work);
	else
		/* Sampled when the run ends with the CQ armed, as stock. */
		cq_dim_sample(cq, done);
}

static void cq_event_work(struct ib_cq *cq, void *ctx)
{
	queue_work(cq->comp_wq, &cq->work);
}

/*
 * A kernel CQ made by the driver and tracked under @caller's name; its
 * handlers and context are the creator's.
 */
static struct ib_cq *cq_create(struct ib_device *dev,
			       const struct ib_cq_init_attr *attr,
			       ib_comp_handler comp_handler,
			       void (*event_handler)(struct ib_event *, void *),
			       void *cq_context, const char *caller)
{
	struct ib_cq *cq;
	int ret;

	if (!dev->ops.create_cq)
		return ERR_PTR(-EOPNOTSUPP);

	cq = rdma_zalloc_drv_obj(dev, ib_cq);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->device = dev;
	cq->comp_handler = comp_handler;
	cq->event_handler = event_handler;
	cq->cq_context = cq_context;
	cq->cqe = attr->cqe;
	cq->comp_vector = attr->comp_vector;
	atomic_set(&cq->usecnt, 0);
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, caller);

	ret = dev->ops.create_cq(cq, attr, NULL);
	if (ret) {
		rdma_restrack_del(&cq->res);
		kfree(cq);
		return ERR_PTR(ret);
	}
	rdma_restrack_add(&cq->res);
	return cq;
}

/**
 * __ib_create_cq - create a CQ with the user's own completion handler
 * @device: the device
 * @comp_handler: called on the completion events the user asks for with
 *	ib_req_notify_cq(), with @cq_context
 * @event_handler: called on asynchronous CQ events (CQ overflow)
 * @cq_context: the handlers' context
 * @cq_attr: size, completion vector and flags
 * @caller: the owner's name (KBUILD_MODNAME), shown by "rdma res"
 *
 * Return: the CQ (destroy it with ib_destroy_cq()) or ERR_PTR():
 * -EOPNOTSUPP without ops.create_cq, -ENOMEM, or the driver's error.
 */
struct ib_cq *__ib_create_cq(struct ib_device *device,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *, void *),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr,
			     const char *caller)
{
	return cq_create(device, cq_attr, comp_handler, event_handler,
			 cq_context, caller);
}
EXPORT_SYMBOL(__ib_create_cq);

/**
 * __ib_alloc_cq - allocate a CQ whose completions go to struct ib_cqe
 * @dev: the device
 * @private: the CQ's cq_context, for the user
 * @nr_cqe: entries wanted (the driver may make more: cq->cqe)
 * @comp_vector: the completion vector (0 .. num_comp_vectors - 1)
 * @poll_ctx: where the done callbacks run (see the head of this file)
 * @caller: the owner's name (KBUILD_MODNAME), shown by "rdma res"
 *
 * Every WR posted on a QP using this CQ must carry a wr_cqe.  Free the CQ
 * with ib_free_cq() once no QP uses it.
 *
 * Return: the CQ, armed unless @poll_ctx is IB_POLL_DIRECT, or
 * ERR_PTR(): -EINVAL for an unknown polling context, -ENOMEM, or the
 * driver's error.
 */
struct ib_cq *__ib_alloc_cq(struct ib_device *dev, void *private, int nr_cqe,
			    int comp_vector, enum ib_poll_context poll_ctx,
			    const char *caller)
{
	struct ib_cq_init_attr attr = {
		.cqe = nr_cqe,
		.comp_vector = comp_vector,
	};
	ib_comp_handler handler;
	struct ib_wc *wcs;
	struct ib_cq *cq;

	switch (poll_ctx) {
	case IB_POLL_DIRECT:
		handler = cq_event_direct;
		break;
	case IB_POLL_SOFTIRQ:
		handler = cq_event_softirq;
		break;
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		handler = cq_event_work;
		break;
	default:
		return ERR_PTR(-EINVAL);
	}

	wcs = kmalloc_array(CQ_POLL_BATCH, sizeof(*wcs), GFP_KERNEL);
	if (!wcs)
		return ERR_PTR(-ENOMEM);

	cq = cq_create(dev, &attr, handler, NULL, private, caller);
	if (IS_ERR(cq)) {
		kfree(wcs);
		return cq;
	}
	cq->wc = wcs;
	cq->poll_ctx = poll_ctx;
	cq_dim_init(cq);

	switch (poll_ctx) {
	case IB_POLL_DIRECT:
		break;
	case IB_POLL_SOFTIRQ:
		irq_poll_init(&cq->iop, CQ_BUDGET_SOFTIRQ, cq_poll_softirq);
		ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
		break;
	default:
		cq->comp_wq = poll_ctx == IB_POLL_WORKQUEUE ?
			      ib_comp_wq : ib_comp_unbound_wq;
		INIT_WORK(&cq->work, cq_poll_work);
		ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
		break;
	}
	return cq;
}
EXPORT_SYMBOL(__ib_alloc_cq);

/**
 * __ib_alloc_cq_any - allocate a CQ on a completion vector of the core's
 *	choosing
 * @dev: the device
 * @private: the CQ's cq_context
 * @nr_cqe: entries wanted
 * @poll_ctx: where the done callbacks run
 * @caller: the owner's name (KBUILD_MODNAME)
 *
 * Successive calls spread their CQs over the device's vectors (at most
 * one per online CPU), so that several users do not all interrupt one.
 *
 * Return: as __ib_alloc_cq().
 */
struct ib_cq *__ib_alloc_cq_any(struct ib_device *dev, void *private,
				int nr_cqe, enum ib_poll_context poll_ctx,
				const char *caller)
{
	static atomic_t next_vector = ATOMIC_INIT(0);
	int vectors = min_t(int, dev->num_comp_vectors, num_online_cpus());
	int vector = 0;

	if (vectors > 1)
		vector = (unsigned int)atomic_inc_return(&next_vector) %
			 vectors;
	return __ib_alloc_cq(dev, private, nr_cqe, vector, poll_ctx, caller);
}
EXPORT_SYMBOL(__ib_alloc_cq_any);

/**
 * ib_free_cq - free a CQ of __ib_alloc_cq()
 * @cq: the CQ; no QP may use it any more
 *
 * Stops its poller (a running one finishes first), then destroys it.
 */
void ib_free_cq(struct ib_cq *cq)
{
	struct ib_wc *wcs = cq->wc;
	int ret;

	/* Still used by a QP or owned by the pool: the user's bug. */
	if (WARN_ON_ONCE(atomic_read(&cq->usecnt) || cq->shared))
		return;

	switch (cq->poll_ctx) {
	case IB_POLL_SOFTIRQ:
		irq_poll_disable(&cq->iop);
		break;
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		cancel_work_sync(&cq->work);
		break;
	default:
		break;
	}
	cq_dim_free(cq);

	ret = ib_destroy_cq_user(cq, NULL);
	WARN_ONCE(ret, "destroy of a kernel CQ failed: %d\n", ret);
	if (!ret)
		kfree(wcs);
}
EXPORT_SYMBOL(ib_free_cq);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared kernel CQs: ib_cq_pool_get() and ib_cq_pool_put().
 *
 * A ULP that opens a queue per connection and per CPU (nvmet-rdma,
 * ib_isert, ib_srpt, the NFS server's svcrdma) asks the pool for room on
 * a CQ instead of a CQ of its own: many queues then share a few large
 * CQs, one poller and one completion vector each, and the device's CQs
 * are not spent one per connection.
 *
 * The pool is per device and per polling context (dev->cq_pools[], the
 * public fields of struct ib_device).  A pooled CQ is an ordinary kernel
 * CQ of __ib_alloc_cq(), with cq->shared set so that ib_free_cq() refuses
 * it, and cq->cqe_used counting the entries its users claimed; they are
 * made a CQ per completion vector at a time, as stock.  It lives
 * until the device is unregistered: the clients, which hold its users,
 * are gone by then (ib_cq_pool_cleanup()).
 *
 * Locking: dev->cq_pools_lock protects the lists and every pooled CQ's
 * cqe_used.  CQs are made and freed outside it.
 */
#include <linux/cpumask.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/*
 * Entries of a CQ the pool makes, unless one user wants more: room for
 * many queues, so that a host with dozens of connections still shares a
 * handful of CQs, and few enough that the pool does not claim a large
 * part of a small device.
 */
#define CQ_POOL_MIN_CQE		4096

/* The vectors the pool spreads over: those a CPU can take interrupts on. */
static unsigned int cq_pool_vectors(struct ib_device *dev)
{
	return max(min_t(unsigned int, dev->num_comp_vectors,
			 num_online_cpus()), 1U);
}

/* Frees pooled CQs on @cqs, a list no one else sees. */
static void cq_pool_free(struct list_head *cqs)
{
	struct ib_cq *cq, *tmp;

	list_for_each_entry_safe(cq, tmp, cqs, pool_entry) {
		WARN_ON_ONCE(cq->cqe_used);
		list_del(&cq->pool_entry);
		cq->shared = false;
		ib_free_cq(cq);
	}
}

/* Room for @nr_cqe on a CQ of @vector, claimed; NULL when none has it. */
static struct ib_cq *cq_pool_claim(struct ib_device *dev, unsigned int nr_cqe,
				   unsigned int vector,
				   enum ib_poll_context poll_ctx)
{
	struct ib_cq *cq, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&dev->cq_pools_lock, flags);
	list_for_each_entry(cq, &dev->cq_pools[poll_ctx], pool_entry) {
		if (cq->comp_vector == vector &&
		    cq->cqe - cq->cqe_used >= nr_cqe) {
			cq->cqe_used += nr_cqe;
			found = cq;
			break;
		}
	}
	spin_unlock_irqrestore(&dev->cq_pools_lock, flags);
	return found;
}

/**
 * ib_cq_pool_get - room on a shared CQ of the device
 * @dev: the device
 * @nr_cqe: completion entries the caller's queues need
 * @comp_vector_hint: the completion vector wanted (taken modulo the vectors
 *	in use), or negative for the pool to spread the callers over them
 * @poll_ctx: where the completions are handled; not IB_POLL_DIRECT,
 *	since a shared CQ is polled for all its users
 *
 * Every WR posted on a QP using the CQ must carry a wr_cqe.  Give the
 * entries back with ib_cq_pool_put(); never ib_free_cq() the CQ.
 *
 * Return: the CQ, or ERR_PTR(): -EINVAL (with a warning) for
 * IB_POLL_DIRECT or an unknown context, -EINVAL for more entries than a CQ
 * of the device holds; else the error of making a new CQ.
 */
struct ib_cq *ib_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			     int comp_vector_hint,
			     enum ib_poll_context poll_ctx)
{
	static atomic_t next_vector = ATOMIC_INIT(0);
	unsigned int vectors = cq_pool_vectors(dev), vector, size, i;
	struct ib_cq *cq, *new;
	unsigned long flags;
	LIST_HEAD(made);

	/* A caller's bug, reported as stock does. */
	if (WARN_ON_ONCE(poll_ctx > IB_POLL_LAST_POOL_TYPE))
		return ERR_PTR(-EINVAL);
	/* Stock would make CQs for ever: no CQ of the device has room. */
	if (nr_cqe > dev->attrs.max_cqe)
		return ERR_PTR(-EINVAL);

	if (comp_vector_hint < 0)
		vector = (unsigned int)atomic_inc_return(&next_vector) %
			 vectors;
	else
		vector = comp_vector_hint % vectors;

	cq = cq_pool_claim(dev, nr_cqe, vector, poll_ctx);
	if (cq)
		return cq;

	/*
	 * None has room: a new CQ on every vector, as stock, since callers
	 * that open a queue per CPU will want the others next.  The room
	 * is claimed before the CQs are published, so that a concurrent
	 * caller cannot take what this one made.
	 */
	size = min_t(unsigned int, dev->attrs.max_cqe,
		     max_t(unsigned int, nr_cqe, CQ_POOL_MIN_CQE));
	for (i = 0; i < vectors; i++) {
		new = __ib_alloc_cq(dev, NULL, size, i, poll_ctx,
				    KBUILD_MODNAME);
		if (IS_ERR(new)) {
			cq_pool_free(&made);
			return new;
		}
		new->shared = true;
		list_add_tail(&new->pool_entry, &made);
		if (i == vector)
			cq = new;
	}
	cq->cqe_used = nr_cqe;

	spin_lock_irqsave(&dev->cq_pools_lock, flags);
	list_splice_tail(&made, &dev->cq_pools[poll_ctx]);
	spin_unlock_irqrestore(&dev->cq_pools_lock, flags);
	return cq;
}
EXPORT_SYMBOL(ib_cq_pool_get);

/**
 * ib_cq_pool_put - give back entries of a shared CQ
 * @cq: the CQ of ib_cq_pool_get()
 * @nr_cqe: the entries that ib_cq_pool_get() claimed for them
 *
 * The caller's QPs on @cq must be destroyed first.  The CQ stays in the
 * pool for the next caller.
 */
void ib_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe)
{
	struct ib_device *dev = cq->device;
	unsigned long flags;

	spin_lock_irqsave(&dev->cq_pools_lock, flags);
	if (WARN_ON_ONCE(!cq->shared || nr_cqe > cq->cqe_used))
		nr_cqe = cq->cqe_used;
	cq->cqe_used -= nr_cqe;
	spin_unlock_irqrestore(&dev->cq_pools_lock, flags);
}
EXPORT_SYMBOL(ib_cq_pool_put);

/*
 * At unregistration, once the clients are removed: frees the pool's CQs.
 * An entry still claimed is a ULP that did not put it back.
 */
void ib_cq_pool_cleanup(struct ib_device *dev)
{
	LIST_HEAD(cqs);
	unsigned long flags;
	int i;

	spin_lock_irqsave(&dev->cq_pools_lock, flags);
	for (i = 0; i <= IB_POLL_LAST_POOL_TYPE; i++)
		list_splice_init(&dev->cq_pools[i], &cqs);
	spin_unlock_irqrestore(&dev->cq_pools_lock, flags);

	cq_pool_free(&cqs);
}

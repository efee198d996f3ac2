// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-QP pools of fast-registration MRs (<rdma/mr_pool.h>).
 *
 * A ULP that registers memory for every I/O (nvme-rdma, the rdma_rw
 * contexts of the storage targets) allocates its MRs once, when it
 * creates the QP, into a list it owns (qp->rdma_mrs, qp->sig_mrs, or its
 * own), and takes one per I/O from it without sleeping or allocating.
 *
 * Locking: qp->mr_lock (taken with interrupts off: I/O completions return
 * MRs from any context) protects every pool list of the QP and
 * qp->mrs_used, the count of MRs taken and not yet returned.
 *
 * Only public headers here: the exports' CRCs are those of their public
 * declarations alone, as stock's.
 */
#include <linux/list.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>

/**
 * ib_mr_pool_get - take an MR from a pool
 * @qp: the QP the pool belongs to
 * @list: the pool
 *
 * Return: an MR, or NULL when all of them are taken.
 */
struct ib_mr *ib_mr_pool_get(struct ib_qp *qp, struct list_head *list)
{
	struct ib_mr *mr;
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	mr = list_first_entry_or_null(list, struct ib_mr, qp_entry);
	if (mr) {
		list_del(&mr->qp_entry);
		qp->mrs_used++;
	}
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return mr;
}
EXPORT_SYMBOL(ib_mr_pool_get);

/**
 * ib_mr_pool_put - return an MR to its pool
 * @qp: the QP the pool belongs to
 * @list: the pool it was taken from
 * @mr: the MR; its registration must be over (invalidated, or to be
 *	registered again with a new key)
 */
void ib_mr_pool_put(struct ib_qp *qp, struct list_head *list, struct ib_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	list_add(&mr->qp_entry, list);
	qp->mrs_used--;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
}
EXPORT_SYMBOL(ib_mr_pool_put);

/**
 * ib_mr_pool_init - fill a pool with new MRs
 * @qp: the QP whose PD the MRs are allocated in
 * @list: the pool (an initialised list head)
 * @nr: how many MRs
 * @type: IB_MR_TYPE_MEM_REG, IB_MR_TYPE_SG_GAPS or IB_MR_TYPE_INTEGRITY
 * @max_num_sg: pages (data pages for an integrity MR) each MR maps
 * @max_num_meta_sg: protection-information pages, integrity MRs only
 *
 * Return: 0, or the allocation's error, with the pool emptied again.
 */
int ib_mr_pool_init(struct ib_qp *qp, struct list_head *list, int nr,
		    enum ib_mr_type type, u32 max_num_sg, u32 max_num_meta_sg)
{
	struct ib_mr *mr;
	unsigned long flags;
	int i;

	for (i = 0; i < nr; i++) {
		if (type == IB_MR_TYPE_INTEGRITY)
			mr = ib_alloc_mr_integrity(qp->pd, max_num_sg,
						   max_num_meta_sg);
		else
			mr = ib_alloc_mr(qp->pd, type, max_num_sg);
		if (IS_ERR(mr)) {
			ib_mr_pool_destroy(qp, list);
			return PTR_ERR(mr);
		}
		spin_lock_irqsave(&qp->mr_lock, flags);
		list_add_tail(&mr->qp_entry, list);
		spin_unlock_irqrestore(&qp->mr_lock, flags);
	}
	return 0;
}
EXPORT_SYMBOL(ib_mr_pool_init);

/**
 * ib_mr_pool_destroy - free the MRs of a pool
 * @qp: the QP the pool belongs to
 * @list: the pool; MRs still taken from it are not in it, and stay the
 *	caller's to return first
 */
void ib_mr_pool_destroy(struct ib_qp *qp, struct list_head *list)
{
	struct ib_mr *mr;
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	while ((mr = list_first_entry_or_null(list, struct ib_mr, qp_entry))) {
		list_del(&mr->qp_entry);
		/* ib_dereg_mr() sleeps. */
		spin_unlock_irqrestore(&qp->mr_lock, flags);
		ib_dereg_mr(mr);
		spin_lock_irqsave(&qp->mr_lock, flags);
	}
	spin_unlock_irqrestore(&qp->mr_lock, flags);
}
EXPORT_SYMBOL(ib_mr_pool_destroy);

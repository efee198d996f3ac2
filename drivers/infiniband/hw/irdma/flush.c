// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completions of kernel QPs' work posted after they went to error.
 *
 * FLUSH_WQES has the device write one flush entry on a queue; poll then
 * drains that queue from its tail (cq_kern.c).  A work request posted
 * after that entry was consumed would never complete, and the core's
 * drain (ib_drain_qp: to error, then a marker it waits for) and every
 * ULP's teardown wait for exactly such a request.  So posting to a QP in
 * error asks the device for another flush entry on that queue, as
 * libirdma does for user QPs ("reflush").  The command is issued from a
 * work item: posting runs in any context, and the control QP would be
 * polled there.
 */
#include "verbs.h"

#define IRDMA_REFLUSH_SQ	0
#define IRDMA_REFLUSH_RQ	1

static void irdma_reflush_work(struct work_struct *work)
{
	struct irdma_qp *qp = container_of(work, struct irdma_qp, flush_work);
	unsigned long q = xchg(&qp->reflush, 0);

	if (q)
		irdma_qp_flush(qp, q & BIT(IRDMA_REFLUSH_SQ),
			       q & BIT(IRDMA_REFLUSH_RQ));
}

/* After posting to a QP in error: another flush entry for that queue. */
void irdma_qp_reflush(struct irdma_qp *qp, bool sq)
{
	set_bit(sq ? IRDMA_REFLUSH_SQ : IRDMA_REFLUSH_RQ, &qp->reflush);
	queue_work(system_wq, &qp->flush_work);
}

void irdma_qp_flush_init(struct irdma_qp *qp)
{
	INIT_WORK(&qp->flush_work, irdma_reflush_work);
}

/* Before the QP's destruction: no flush command after it. */
void irdma_qp_flush_fini(struct irdma_qp *qp)
{
	cancel_work_sync(&qp->flush_work);
}

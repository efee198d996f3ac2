// SPDX-License-Identifier: GPL-2.0-only
/*
 * Draining a kernel QP: waiting until every WR posted on its send and/or
 * receive queue has completed, so that the user can free what the WRs
 * point at (buffers, MRs, its struct ib_cqe) before destroying the QP.
 *
 * The IBTA way, which needs nothing of the driver but the verbs: move the
 * QP to the error state, where every outstanding WR and every WR posted
 * from then on completes in order with a flush error; post one marker WR
 * carrying a struct ib_cqe of ours; when its completion comes, everything
 * posted before it has completed too.  The marker's cqe lives on the
 * drainer's stack, which is why the wait is unbounded: the frame must not
 * go while the driver can still complete the marker.
 *
 * Completions reach the marker through the CQ's polling context.  A
 * direct CQ has no poller but its user, so the drain polls it itself
 * (the user's other completions are dispatched to their cqes as usual).
 *
 * A driver whose queues cannot be flushed this way provides
 * ops.drain_sq / ops.drain_rq, which are used instead.
 */
#include <linux/completion.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* How often a drain of a direct CQ polls while its marker is pending. */
#define DRAIN_DIRECT_POLL	(HZ / 10)

struct drain_marker {
	struct ib_cqe cqe;
	struct completion done;
};

static void drain_marker_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct drain_marker *m = container_of(wc->wr_cqe, struct drain_marker,
					      cqe);

	complete(&m->done);
}

static int drain_to_error(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		ibdev_warn(qp->device, "drain: QP %u to ERR failed: %d\n",
			   qp->qp_num, ret);
	return ret;
}

static void drain_wait(struct ib_cq *cq, struct drain_marker *m)
{
	if (cq->poll_ctx != IB_POLL_DIRECT) {
		wait_for_completion(&m->done);
		return;
	}
	while (!wait_for_completion_timeout(&m->done, DRAIN_DIRECT_POLL))
		ib_process_cq_direct(cq, -1);
}

static void drain_sq(struct ib_qp *qp)
{
	struct drain_marker m = { .cqe.done = drain_marker_done };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &m.cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	int ret;

	init_completion(&m.done);
	if (drain_to_error(qp))
		return;
	/* A zero-length write: valid for any connected QP, never sent. */
	ret = ib_post_send(qp, &wr.wr, NULL);
	if (ret) {
		ibdev_warn(qp->device, "drain: SQ marker of QP %u: %d\n",
			   qp->qp_num, ret);
		return;
	}
	drain_wait(qp->send_cq, &m);
}

static void drain_rq(struct ib_qp *qp)
{
	struct drain_marker m = { .cqe.done = drain_marker_done };
	struct ib_recv_wr wr = { .wr_cqe = &m.cqe };
	int ret;

	init_completion(&m.done);
	if (drain_to_error(qp))
		return;
	ret = ib_post_recv(qp, &wr, NULL);
	if (ret) {
		ibdev_warn(qp->device, "drain: RQ marker of QP %u: %d\n",
			   qp->qp_num, ret);
		return;
	}
	drain_wait(qp->recv_cq, &m);
}

/**
 * ib_drain_sq - wait until every WR posted on a QP's send queue completed
 * @qp: the QP; its send CQ is one of __ib_alloc_cq(), in any polling
 *	context.  The caller posts nothing on it concurrently.
 *
 * Moves @qp to the error state: it cannot be used for traffic afterwards.
 * Sleeps.
 */
void ib_drain_sq(struct ib_qp *qp)
{
	if (qp->device->ops.drain_sq)
		qp->device->ops.drain_sq(qp);
	else
		drain_sq(qp);
}
EXPORT_SYMBOL(ib_drain_sq);

/**
 * ib_drain_rq - wait until every receive posted on a QP completed
 * @qp: the QP; its receive CQ is one of __ib_alloc_cq()
 *
 * As ib_drain_sq(), for the receive queue.
 */
void ib_drain_rq(struct ib_qp *qp)
{
	if (qp->device->ops.drain_rq)
		qp->device->ops.drain_rq(qp);
	else
		drain_rq(qp);
}
EXPORT_SYMBOL(ib_drain_rq);

/**
 * ib_drain_qp - drain both queues of a QP
 * @qp: the QP
 *
 * The receive queue of a QP on an SRQ belongs to the SRQ, whose receives
 * other QPs may consume: it is not drained.
 */
void ib_drain_qp(struct ib_qp *qp)
{
	ib_drain_sq(qp);
	if (!qp->srq)
		ib_drain_rq(qp);
}
EXPORT_SYMBOL(ib_drain_qp);

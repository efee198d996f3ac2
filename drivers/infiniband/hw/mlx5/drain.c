// SPDX-License-Identifier: GPL-2.0-only
/*
 * Draining kernel QPs (ib_drain_sq(), ib_drain_rq()): the QP to the
 * error state, a marker posted behind everything else, and a wait for
 * the marker's completion, after which no WQE posted before it is the
 * device's any more (the device flushes in order).
 *
 * The driver's own rather than the core's, for a dead device: after
 * mlx5_core's fatal error a post fails with -EIO (a ULP's request must
 * not wait for an answer that cannot come), yet the marker must go in.
 * The CQ's poller then completes it, with a flush of everything before
 * it (cq_kern.c), and the event the device no longer raises is raised
 * here.
 */
#include "mlx5_ib.h"

struct mlx5_ib_drain {
	struct ib_cqe cqe;
	struct completion done;
};

static void mlx5_ib_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mlx5_ib_drain *d = container_of(wc->wr_cqe, struct mlx5_ib_drain,
					       cqe);

	complete(&d->done);
}

/* The marker's completion: the consumer's poller, or ours for a direct CQ. */
static void mlx5_ib_drain_wait(struct ib_cq *cq, struct mlx5_ib_drain *d)
{
	struct mlx5_ib_dev *dev = to_mdev(cq->device);

	if (cq->poll_ctx == IB_POLL_DIRECT) {
		while (!wait_for_completion_timeout(&d->done, HZ / 10))
			ib_process_cq_direct(cq, -1);
		return;
	}
	if (mlx5_ib_fatal(dev))
		mlx5_ib_kcq_fatal(dev);
	wait_for_completion(&d->done);
}

static int mlx5_ib_drain_to_error(struct ib_qp *ibqp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(ibqp, &attr, IB_QP_STATE);
}

void mlx5_ib_drain_sq(struct ib_qp *ibqp)
{
	struct mlx5_ib_drain d = { .cqe.done = mlx5_ib_drain_done };
	struct ib_rdma_wr marker = {
		.wr = {
			.wr_cqe = &d.cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	const struct ib_send_wr *bad;
	int err;

	init_completion(&d.done);
	err = mlx5_ib_drain_to_error(ibqp);
	if (!err)
		err = mlx5_ib_kqp_post_send(to_mqp(ibqp), &marker.wr, &bad, true);
	if (WARN_ONCE(err, "mlx5_ib: QP 0x%x: send queue not drained: %d\n",
		      ibqp->qp_num, err))
		return;
	mlx5_ib_drain_wait(ibqp->send_cq, &d);
}

void mlx5_ib_drain_rq(struct ib_qp *ibqp)
{
	struct mlx5_ib_drain d = { .cqe.done = mlx5_ib_drain_done };
	struct ib_recv_wr marker = { .wr_cqe = &d.cqe };
	const struct ib_recv_wr *bad;
	int err;

	init_completion(&d.done);
	err = mlx5_ib_drain_to_error(ibqp);
	if (!err)
		err = mlx5_ib_kqp_post_recv(to_mqp(ibqp), &marker, &bad, true);
	if (WARN_ONCE(err, "mlx5_ib: QP 0x%x: receive queue not drained: %d\n",
		      ibqp->qp_num, err))
		return;
	mlx5_ib_drain_wait(ibqp->recv_cq, &d);
}

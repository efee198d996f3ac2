// SPDX-License-Identifier: GPL-2.0-only
/*
 * Multicast: a UD QP joins a group with ATTACH_TO_MCG and leaves it with
 * DETACH_FROM_MCG (mlx5_core's commands), for ibv_attach_mcast() and the
 * joins rdma_cm completes.  The device keeps the groups and their QPs,
 * and refuses what it cannot hold (a full table or group) or what is no
 * group of this QP (a detach of a QP that is not attached).
 */
#include "mlx5_ib.h"

int mlx5_ib_mcg_attach(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct mlx5_ib_dev *dev = to_mdev(ibqp->device);

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	return mlx5_ib_cmd_status(dev, mlx5_core_attach_mcg(dev->mdev, gid,
							    to_mqp(ibqp)->qpn));
}

int mlx5_ib_mcg_detach(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct mlx5_ib_dev *dev = to_mdev(ibqp->device);
	int err;

	err = mlx5_core_detach_mcg(dev->mdev, gid, to_mqp(ibqp)->qpn);
	return mlx5_ib_destroy_status(dev, err);
}

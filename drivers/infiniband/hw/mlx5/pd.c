// SPDX-License-Identifier: GPL-2.0-only
/*
 * Protection domains: one device PD each.  User space learns its number
 * (libmlx5 puts it in the mkeys and QPs it describes to the device).
 */
#include "mlx5_ib.h"

int mlx5_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibpd->device);
	struct mlx5_ib_pd *pd = to_mpd(ibpd);
	struct mlx5_ib_alloc_pd_resp resp = {};
	int err;

	err = mlx5_core_alloc_pd(dev->mdev, &pd->pdn);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	if (!udata)
		return 0;

	resp.pdn = pd->pdn;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err) {
		mlx5_core_dealloc_pd(dev->mdev, pd->pdn);
		return err;
	}
	return 0;
}

/*
 * The device may refuse (a dead function answers every command with an
 * error); the PD is gone from the verbs' view all the same.
 */
int mlx5_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	mlx5_core_dealloc_pd(to_mdev(ibpd->device)->mdev, to_mpd(ibpd)->pdn);
	return 0;
}

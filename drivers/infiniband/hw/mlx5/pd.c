// SPDX-License-Identifier: GPL-2.0-only
/*
 * Protection domains: one device PD each.  User space learns its number
 * (libmlx5 puts it in the mkeys and QPs it describes to the device), at
 * allocation and, for a PD imported from another context's file
 * (ibv_import_pd()), from the driver's PD_QUERY method.
 */
#define UVERBS_MODULE_NAME mlx5_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/mlx5_user_ioctl_cmds.h>

#include "mlx5_ib.h"

int mlx5_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibpd->device);
	struct mlx5_ib_pd *pd = to_mpd(ibpd);
	struct mlx5_ib_alloc_pd_resp resp = {};
	int err;

	/* libmlx5 needs the PD number: a response with no room is refused. */
	if (udata && udata->outlen < sizeof(resp))
		return -EFAULT;
	err = mlx5_core_alloc_pd(dev->mdev, &pd->pdn);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	if (!udata)
		return 0;

	resp.pdn = pd->pdn;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
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

static int UVERBS_HANDLER(MLX5_IB_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *ibpd = uverbs_attr_get_obj(attrs,
						 MLX5_IB_ATTR_QUERY_PD_HANDLE);
	u32 pdn = to_mpd(ibpd)->pdn;

	return uverbs_copy_to(attrs, MLX5_IB_ATTR_QUERY_PD_RESP_PDN, &pdn,
			      sizeof(pdn));
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_QUERY_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_PD_RESP_PDN,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

ADD_UVERBS_METHODS(mlx5_ib_pd, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(MLX5_IB_METHOD_PD_QUERY));

const struct uapi_definition mlx5_ib_pd_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &mlx5_ib_pd),
	{}
};

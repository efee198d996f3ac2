// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel calls on MRs of user virtual addresses: ib_reg_user_mr()
 * registers a range of the current process's memory for a kernel user
 * (mlx5's and mlx4's internal MRs, rds' user-buffer MRs), ib_advise_mr()
 * prefetches pages of on-demand-paging MRs.  The driver pins (or, with
 * IB_ACCESS_ON_DEMAND, faults) the pages; the core makes the MR a kernel
 * one: it holds a usecnt of its PD, is tracked under the PD's owner and
 * is freed with ib_dereg_mr().
 */
#include <linux/err.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "core_priv.h"

/**
 * ib_reg_user_mr - register user memory for a kernel user
 * @pd: the protection domain
 * @start: first byte, a virtual address of the current process
 * @length: bytes
 * @virt_addr: the I/O virtual address the MR gives @start
 * @access_flags: IB_ACCESS_*
 *
 * Return: the MR, or ERR_PTR(): -EINVAL for IB_ACCESS_ON_DEMAND on a
 * device without on-demand paging, or the driver's error (its pinning's:
 * -EFAULT, -ENOMEM ...).
 */
struct ib_mr *ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			     u64 virt_addr, int access_flags)
{
	struct ib_mr *mr;

	if ((access_flags & IB_ACCESS_ON_DEMAND) &&
	    !(pd->device->attrs.kernel_cap_flags & IBK_ON_DEMAND_PAGING))
		return ERR_PTR(-EINVAL);

	mr = pd->device->ops.reg_user_mr(pd, start, length, virt_addr,
					 access_flags, NULL);
	if (IS_ERR(mr))
		return mr;

	mr->device = pd->device;
	mr->pd = pd;
	mr->dm = NULL;
	mr->uobject = NULL;
	mr->type = IB_MR_TYPE_USER;
	mr->iova = virt_addr;
	mr->length = length;
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_parent_name(&mr->res, &pd->res);
	rdma_restrack_add(&mr->res);
	return mr;
}
EXPORT_SYMBOL(ib_reg_user_mr);

/**
 * ib_advise_mr - prefetch the pages of on-demand-paging MRs
 * @pd: the protection domain of the MRs
 * @advice: IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH[_WRITE|_NO_FAULT]
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH to wait for the faults
 * @sg_list: the ranges, by lkey
 * @num_sge: entries of @sg_list; none is a success
 *
 * Return: 0, -EOPNOTSUPP when the device has no ODP (rxe), or the
 * driver's error.
 */
int ib_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		 u32 flags, struct ib_sge *sg_list, u32 num_sge)
{
	if (!pd->device->ops.advise_mr)
		return -EOPNOTSUPP;
	if (!num_sge)
		return 0;
	return pd->device->ops.advise_mr(pd, advice, flags, sg_list, num_sge,
					 NULL);
}
EXPORT_SYMBOL(ib_advise_mr);

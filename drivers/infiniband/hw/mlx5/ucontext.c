// SPDX-License-Identifier: GPL-2.0-only
/*
 * User contexts: what libmlx5 learns of the device when it opens it, and
 * the mmap() of the UAR pages it rings doorbells on.
 *
 * Only the dynamic UAR scheme is offered (libmlx5 asks for it with
 * MLX5_LIB_CAP_DYN_UAR since rdma-core 21): the context starts with no
 * UAR; libmlx5 allocates each page it needs with the UAR object's ioctl
 * (uar.c) and maps it at the offset that returns.  A library that asks
 * for the static scheme gets EOPNOTSUPP.
 */
#define UVERBS_MODULE_NAME mlx5_ib
#include <linux/mlx5/transobj.h>
#include <linux/mlx5/vport.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/mlx5_user_ioctl_cmds.h>

#include "mlx5_ib.h"

/* A request shorter than this predates every libmlx5 we serve. */
#define MLX5_IB_UCTX_REQ_MIN offsetofend(struct mlx5_ib_alloc_ucontext_req_v2, \
					 lib_caps)

static int mlx5_ib_uctx_req(struct ib_udata *udata,
			    struct mlx5_ib_alloc_ucontext_req_v2 *req)
{
	int err;

	if (udata->inlen < MLX5_IB_UCTX_REQ_MIN)
		return -EINVAL;
	err = ib_copy_from_udata(req, udata, min(udata->inlen, sizeof(*req)));
	if (err)
		return err;
	if (udata->inlen > sizeof(*req) &&
	    !ib_is_udata_cleared(udata, sizeof(*req),
				 udata->inlen - sizeof(*req)))
		return -EOPNOTSUPP;
	if (req->comp_mask || req->reserved0 || req->reserved1 ||
	    req->reserved2)
		return -EOPNOTSUPP;
	return 0;
}

/* libmlx5's minimal inline header for Ethernet SQs, plus one (0: unset). */
static u8 mlx5_ib_eth_min_inline(struct mlx5_core_dev *mdev)
{
	u8 mode = 0;

	mlx5_query_min_inline(mdev, &mode);
	return mode + 1;
}

/* What libmlx5 learns of the device, at allocation and at import. */
static void mlx5_ib_uctx_resp(struct mlx5_ib_ucontext *ctx,
			      struct mlx5_ib_alloc_ucontext_resp *resp)
{
	struct mlx5_core_dev *mdev = to_mdev(ctx->ibuc.device)->mdev;

	resp->qp_tab_size = 1 << MLX5_CAP_GEN(mdev, log_max_qp);
	resp->cache_line_size = cache_line_size();
	resp->max_sq_desc_sz = MLX5_CAP_GEN(mdev, max_wqe_sz_sq);
	resp->max_rq_desc_sz = MLX5_CAP_GEN(mdev, max_wqe_sz_rq);
	resp->max_send_wqebb = 1 << MLX5_CAP_GEN(mdev, log_max_qp_sz);
	resp->max_recv_wr = 1 << MLX5_CAP_GEN(mdev, log_max_qp_sz);
	resp->max_srq_recv_wr = 1 << MLX5_CAP_GEN(mdev, log_max_srq_sz);
	resp->num_ports = 1;
	resp->cqe_version = ctx->cqe_version;
	/*
	 * libmlx5 creates a RoCE AH through the kernel, which resolves the
	 * destination MAC (the response's dmac), rather than from netlink;
	 * it asks query_device for the driver's part of the answer (the
	 * TSO and RSS caps, main.c) only when told there is one.
	 */
	resp->cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_CREATE_AH |
			      MLX5_USER_CMDS_SUPP_UHW_QUERY_DEVICE;
	resp->eth_min_inline = mlx5_ib_eth_min_inline(mdev);
	/* A UAR is a page (mlx5_ib_probe() made sure). */
	resp->log_uar_size = PAGE_SHIFT;
	resp->num_uars_per_page = 1;
	/* The UAR area is 2^uar_sz MiB. */
	resp->num_dyn_bfregs = (1 << (MLX5_CAP_GEN(mdev, uar_sz) + 20 -
				     PAGE_SHIFT)) * MLX5_NON_FP_BFREGS_PER_UAR;
	/* The free-running clock, read through a mapping of its page. */
	resp->comp_mask |= MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_CORE_CLOCK_OFFSET;
	resp->hca_core_clock_offset =
		offsetof(struct mlx5_init_seg, internal_timer_h) % PAGE_SIZE;
	/* And mlx5_core's conversion of it to time (mult, shift, epoch). */
	if (mdev->clock_info)
		resp->clock_info_versions = BIT(MLX5_IB_CLOCK_INFO_V1);
}

int mlx5_ib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = to_mucontext(ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibuc->device);
	struct mlx5_core_dev *mdev = dev->mdev;
	struct mlx5_ib_alloc_ucontext_resp resp = {};
	struct mlx5_ib_alloc_ucontext_req_v2 req = {};
	int err;

	err = mlx5_ib_uctx_req(udata, &req);
	if (err)
		return err;
	if (req.flags & ~MLX5_IB_ALLOC_UCTX_DEVX)
		return -EOPNOTSUPP;
	/*
	 * DEVX (user-space commands under the context's uid) is not
	 * offered: the device has no user contexts (log_max_uctx 0) and
	 * libmlx5 retries without it.
	 */
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX)
		return -EINVAL;
	if (!(req.lib_caps & MLX5_LIB_CAP_DYN_UAR))
		return -EOPNOTSUPP;
	/*
	 * The bfreg counts belong to the static scheme, but low-latency
	 * bfregs that leave none of the total to the others are refused, as
	 * by Debian's driver (hw_mlx5_bad_input).
	 */
	if (req.total_num_bfregs &&
	    req.num_low_latency_bfregs >= req.total_num_bfregs)
		return -EINVAL;

	mutex_init(&ctx->db_lock);
	INIT_LIST_HEAD(&ctx->db_pages);
	xa_init(&ctx->uars);
	ctx->cqe_version = min_t(u8, req.max_cqe_version,
				 MLX5_CAP_GEN(mdev, cqe_version));

	if (MLX5_CAP_GEN(mdev, log_max_transport_domain)) {
		err = mlx5_core_alloc_transport_domain(mdev, &ctx->tdn);
		if (err)
			return mlx5_ib_cmd_status(dev, err);
	}

	mlx5_ib_uctx_resp(ctx, &resp);
	resp.response_length = min_t(size_t, udata->outlen, sizeof(resp));

	err = ib_copy_to_udata(udata, &resp, resp.response_length);
	if (err)
		goto err_td;
	return 0;

err_td:
	if (MLX5_CAP_GEN(mdev, log_max_transport_domain))
		mlx5_core_dealloc_transport_domain(mdev, ctx->tdn);
	return err;
}

/*
 * Device removal with contexts still open: the core zaps every mapping
 * of theirs (the UAR pages are rdma_user_mmap entries) and destroys
 * their objects through the driver, so nothing of the device stays
 * reachable from user space and removal need not wait for the
 * processes to close their files.  Nothing is left for the driver.
 */
void mlx5_ib_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

void mlx5_ib_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct mlx5_ib_ucontext *ctx = to_mucontext(ibuc);
	struct mlx5_core_dev *mdev = to_mdev(ibuc->device)->mdev;

	/* Every CQ and QP is gone, and with them their doorbell pages. */
	WARN_ON(!list_empty(&ctx->db_pages));
	/* And every UAR object and mapping: the core removed them first. */
	WARN_ON(!xa_empty(&ctx->uars));
	if (MLX5_CAP_GEN(mdev, log_max_transport_domain))
		mlx5_core_dealloc_transport_domain(mdev, ctx->tdn);
}

/*
 * Map a UAR page: write-only from user space's view, uncached, never
 * executable or readable (a UAR read has side effects on real devices).
 */
/*
 * The page of the initialization segment that holds the free-running
 * clock (internal_timer_h/l), read-only: libmlx5 reads completion and
 * query_rt_values timestamps there.  It asks for it at the legacy
 * command offset MLX5_IB_MMAP_CORE_CLOCK << 8, below every UAR entry
 * (uar.c).
 */
static int mlx5_ib_mmap_clock(struct ib_ucontext *ibuc,
			      struct vm_area_struct *vma)
{
	struct mlx5_core_dev *mdev = to_mdev(ibuc->device)->mdev;
	phys_addr_t clock = mdev->iseg_base +
			    offsetof(struct mlx5_init_seg, internal_timer_h);

	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	vma->vm_flags &= ~(VM_MAYWRITE | VM_MAYEXEC);
	return rdma_user_mmap_io(ibuc, vma, PFN_DOWN(clock), PAGE_SIZE,
				 pgprot_noncached(vma->vm_page_prot), NULL);
}

/*
 * mlx5_core's clock_info page (struct mlx5_ib_clock_info, kept current
 * by its PTP clock), read-only: libmlx5 converts device timestamps to
 * nanoseconds with it (mlx5dv_ts_to_ns()).
 */
static int mlx5_ib_mmap_clock_info(struct ib_ucontext *ibuc,
				   struct vm_area_struct *vma)
{
	struct mlx5_core_dev *mdev = to_mdev(ibuc->device)->mdev;

	if (!mdev->clock_info)
		return -EOPNOTSUPP;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	vma->vm_flags &= ~(VM_MAYWRITE | VM_MAYEXEC);
	return rdma_user_mmap_io(ibuc, vma,
				 PFN_DOWN(virt_to_phys(mdev->clock_info)),
				 PAGE_SIZE, PAGE_READONLY, NULL);
}

int mlx5_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct mlx5_ib_mmap_entry *entry;
	int err;

	if (vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_pgoff == MLX5_IB_MMAP_CORE_CLOCK << MLX5_IB_MMAP_CMD_SHIFT)
		return mlx5_ib_mmap_clock(ibuc, vma);
	if (vma->vm_pgoff == (MLX5_IB_MMAP_CLOCK_INFO << MLX5_IB_MMAP_CMD_SHIFT |
			      MLX5_IB_CLOCK_INFO_V1))
		return mlx5_ib_mmap_clock_info(ibuc, vma);
	if (vma->vm_flags & (VM_READ | VM_EXEC))
		return -EPERM;

	rdma_entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = to_mmmap(rdma_entry);

	vma->vm_flags &= ~VM_MAYREAD;
	err = rdma_user_mmap_io(ibuc, vma, PFN_DOWN(entry->address), PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot),
				rdma_entry);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/* The last reference to a UAR's entry: give the UAR back to the device. */
void mlx5_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	mlx5_ib_uar_release(to_mucontext(rdma_entry->ucontext),
			    to_mmmap(rdma_entry));
}

/*
 * ibv_import_device(): libmlx5 rebuilds a context of another process's
 * file from the answer it had at allocation.
 */
int mlx5_ib_query_ucontext(struct ib_ucontext *ibuc,
			   struct uverbs_attr_bundle *attrs)
{
	struct mlx5_ib_alloc_ucontext_resp resp = {};

	mlx5_ib_uctx_resp(to_mucontext(ibuc), &resp);
	return uverbs_copy_to_struct_or_zero(attrs,
					     MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
					     &resp, sizeof(resp));
}

/* The answer as libmlx5 takes it: at least up to dump_fill_mkey. */
#define MLX5_IB_UCTX_RESP \
	UVERBS_ATTR_STRUCT(struct mlx5_ib_alloc_ucontext_resp, dump_fill_mkey)

ADD_UVERBS_ATTRIBUTES_SIMPLE(mlx5_ib_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
						 MLX5_IB_UCTX_RESP, UA_MANDATORY));

const struct uapi_definition mlx5_ib_ucontext_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &mlx5_ib_query_context),
	{}
};

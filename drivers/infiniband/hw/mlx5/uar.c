// SPDX-License-Identifier: GPL-2.0-only
/*
 * The UAR object of the driver's ioctl namespace (MLX5_IB_OBJECT_UAR):
 * one UAR page of the device per object, for libmlx5's doorbells.
 *
 * ALLOC runs ALLOC_UAR and publishes the page as an mmap entry of the
 * context; the object's destruction (DESTROY, close, disassociation)
 * removes the entry, so no new mapping can be made, and the UAR itself
 * goes back to the device when the last mapping of it is gone
 * (mlx5_ib_mmap_free()): a page user space may still write is never
 * handed to another context.
 */
#define UVERBS_MODULE_NAME mlx5_ib
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "mlx5_ib.h"

static int mlx5_ib_uar_cleanup(struct ib_uobject *uobj,
			       enum rdma_remove_reason why,
			       struct uverbs_attr_bundle *attrs)
{
	struct mlx5_ib_mmap_entry *entry = uobj->object;

	rdma_user_mmap_entry_remove(&entry->rdma_entry);
	return 0;
}

static int mlx5_ib_alloc_uar(struct mlx5_ib_dev *dev, u32 *index)
{
	u32 out[MLX5_ST_SZ_DW(alloc_uar_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_uar_in)] = {};
	int err;

	MLX5_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	err = mlx5_cmd_exec_inout(dev->mdev, alloc_uar, in, out);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	*index = MLX5_GET(alloc_uar_out, out, uar);
	return 0;
}

static void mlx5_ib_free_uar(struct mlx5_ib_dev *dev, u32 index)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_uar_in)] = {};

	MLX5_SET(dealloc_uar_in, in, opcode, MLX5_CMD_OP_DEALLOC_UAR);
	MLX5_SET(dealloc_uar_in, in, uar, index);
	mlx5_cmd_exec_in(dev->mdev, dealloc_uar, in);
}

bool mlx5_ib_uar_owned(struct mlx5_ib_ucontext *ctx, u32 index)
{
	return xa_load(&ctx->uars, index);
}

/* The entry's last reference: the UAR goes back to the device. */
void mlx5_ib_uar_release(struct mlx5_ib_ucontext *ctx,
			 struct mlx5_ib_mmap_entry *entry)
{
	xa_erase(&ctx->uars, entry->uar_index);
	mlx5_ib_free_uar(to_mdev(ctx->ibuc.device), entry->uar_index);
	kfree(entry);
}

static int
UVERBS_HANDLER(MLX5_IB_METHOD_UAR_OBJ_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
					MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);
	struct ib_ucontext *ibuc = uobj->context;
	struct mlx5_ib_ucontext *ctx = to_mucontext(ibuc);
	struct mlx5_ib_dev *dev = to_mdev(ibuc->device);
	struct mlx5_ib_mmap_entry *entry;
	u32 type, page_id;
	u32 length = PAGE_SIZE;
	u64 offset;
	int err;

	err = uverbs_get_const(&type, attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE);
	if (err)
		return err;
	/*
	 * NC pages only: write-combining BlueFlame registers (BF) are not
	 * offered (the contexts say bf_reg_size 0) and libmlx5 falls back to
	 * NC; a type of no ABI gets the same errno, as from Debian's driver.
	 */
	if (type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC)
		return -EOPNOTSUPP;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	err = mlx5_ib_alloc_uar(dev, &entry->uar_index);
	if (err)
		goto err_free;
	entry->address = dev->mdev->bar_addr +
			 ((u64)entry->uar_index << PAGE_SHIFT);

	err = xa_insert(&ctx->uars, entry->uar_index, entry, GFP_KERNEL);
	if (err)
		goto err_uar;
	/* Above the legacy command offsets (the clock page's, ucontext.c). */
	err = rdma_user_mmap_entry_insert_range(ibuc, &entry->rdma_entry, length,
						MLX5_IB_MMAP_FIRST_ENTRY, U32_MAX);
	if (err)
		goto err_xa;
	/* From here on the entry frees the UAR (mlx5_ib_mmap_free()). */
	uobj->object = entry;
	uverbs_finalize_uobj_create(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);

	offset = rdma_user_mmap_get_offset(&entry->rdma_entry);
	page_id = entry->uar_index;
	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
			     &offset, sizeof(offset));
	if (err)
		return err;
	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
			     &length, sizeof(length));
	if (err)
		return err;
	return uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
			      &page_id, sizeof(page_id));

err_xa:
	xa_erase(&ctx->uars, entry->uar_index);
err_uar:
	mlx5_ib_free_uar(dev, entry->uar_index);
err_free:
	kfree(entry);
	return err;
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE,
					    MLX5_IB_OBJECT_UAR,
					    UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE,
						 enum mlx5_ib_uapi_uar_alloc_type,
						 UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
						UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(MLX5_IB_METHOD_UAR_OBJ_DESTROY,
				    UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE,
						    MLX5_IB_OBJECT_UAR,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_UAR,
			    UVERBS_TYPE_ALLOC_IDR(mlx5_ib_uar_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_DESTROY));

const struct uapi_definition mlx5_ib_uar_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_UAR),
	{}
};

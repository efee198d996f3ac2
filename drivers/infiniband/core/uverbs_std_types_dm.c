// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: device memory (DM), memory on the device that userspace
 * maps or registers as an MR (MR's DM_MR_REG).  The driver allocates
 * and frees it (ops.alloc_dm, ops.dealloc_dm) and reads its own
 * attributes from the bundle (mlx5's DM type and start offset); an MR
 * on it holds it (dm->usecnt).
 *
 * The object exists on a device only if the driver can free DM: on rxe
 * every method is -EPROTONOSUPPORT, as on stock.
 */

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

static int uverbs_free_dm(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *dm = uobj->object;

	if (atomic_read(&dm->usecnt))
		return -EBUSY;
	return dm->device->ops.dealloc_dm(dm, attrs);
}

const struct uverbs_api_object uverbs_dm_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_dm),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_DM,
};

static int UVERBS_HANDLER(UVERBS_METHOD_DM_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_ALLOC_DM_HANDLE);
	struct ib_device *ib_dev = uverbs_attrs_ib_dev(attrs);
	struct ib_dm_alloc_attr attr = {};
	struct ib_dm *dm;
	int ret;

	if (!ib_dev->ops.alloc_dm)
		return -EOPNOTSUPP;

	ret = uverbs_copy_from(&attr.length, attrs, UVERBS_ATTR_ALLOC_DM_LENGTH);
	if (!ret)
		ret = uverbs_copy_from(&attr.alignment, attrs,
				       UVERBS_ATTR_ALLOC_DM_ALIGNMENT);
	if (ret)
		return ret;

	dm = ib_dev->ops.alloc_dm(ib_dev, attrs->context, &attr, attrs);
	if (IS_ERR(dm))
		return PTR_ERR(dm);
	dm->device = ib_dev;
	dm->length = attr.length;
	dm->uobject = uobj;
	atomic_set(&dm->usecnt, 0);
	uobj->object = dm;
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_DM_ALLOC,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_ALLOC_DM_HANDLE,
					    UVERBS_OBJECT_DM,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_ALLOC_DM_LENGTH,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_ALLOC_DM_ALIGNMENT,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_DM_FREE,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_FREE_DM_HANDLE,
						    UVERBS_OBJECT_DM,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_DM,
			      &UVERBS_METHOD(UVERBS_METHOD_DM_ALLOC),
			      &UVERBS_METHOD(UVERBS_METHOD_DM_FREE));

const struct uapi_definition uverbs_def_obj_dm[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_DM,
				      UAPI_DEF_OBJ_NEEDS_FN(dealloc_dm)),
	{},
};

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl GET_CONTEXT.
 *
 * The same context as write()'s GET_CONTEXT, without the async event fd:
 * userspace allocates those with ASYNC_EVENT_ALLOC.
 */

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

static int get_context_answer(struct uverbs_attr_bundle *attrs)
{
	u64 core_support = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
	u32 num_comp_vectors = attrs->ufile->device->num_comp_vectors;
	int ret;

	/* Both optional: -ENOENT is an answer not asked for. */
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
			     &num_comp_vectors, sizeof(num_comp_vectors));
	if (IS_UVERBS_COPY_ERR(ret))
		return ret;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
			     &core_support, sizeof(core_support));
	return IS_UVERBS_COPY_ERR(ret) ? ret : 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_GET_CONTEXT)(struct uverbs_attr_bundle *attrs)
{
	int ret;

	ret = ib_uverbs_alloc_context_ioctl(attrs, uverbs_attrs_ib_dev(attrs));
	if (ret)
		return ret;

	ret = get_context_answer(attrs);
	if (ret) {
		ib_uverbs_abort_context_ioctl(attrs);
		return ret;
	}
	ib_uverbs_commit_context_ioctl(attrs);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_GET_CONTEXT,
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
						UVERBS_ATTR_TYPE(u32),
						UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
						UVERBS_ATTR_TYPE(u64),
						UA_OPTIONAL),
			    UVERBS_ATTR_UHW());

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_DEVICE,
			      &UVERBS_METHOD(UVERBS_METHOD_GET_CONTEXT));

/* A device without user contexts has no user verbs at all. */
const struct uapi_definition uverbs_def_obj_context[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_DEVICE,
				      UAPI_DEF_OBJ_NEEDS_FN(alloc_ucontext)),
	{},
};

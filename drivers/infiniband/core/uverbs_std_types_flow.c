// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: flow steering objects, FLOW, FLOW_ACTION and COUNTERS.
 *
 * The core has no way to create flows or flow actions through ioctl:
 * drivers add their own create methods to these objects (mlx5's
 * CREATE_FLOW, FLOW_ACTION_CREATE_MODIFY_HEADER, ...), the core gives
 * the uobject types, the destroy methods and counters.  A flow holds
 * its QP (qp->usecnt) and the actions and counters it uses (their
 * usecnt, through struct ib_uflow_resources), so those cannot go first.
 *
 * Each object exists on a device only if the driver can destroy it:
 * elsewhere (rxe) every method is -EPROTONOSUPPORT, as on stock.
 */

#include <linux/slab.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

static int uverbs_free_flow(struct ib_uobject *uobj,
			    enum rdma_remove_reason why,
			    struct uverbs_attr_bundle *attrs)
{
	struct ib_uflow_object *uflow =
		container_of(uobj, struct ib_uflow_object, uobject);
	struct ib_flow *flow = uobj->object;
	struct ib_qp *qp = flow->qp;
	int ret;

	ret = flow->device->ops.destroy_flow(flow);
	if (ret)
		return ret;
	if (qp)
		atomic_dec(&qp->usecnt);
	ib_uverbs_flow_resources_free(uflow->resources);
	return 0;
}

static int uverbs_free_flow_action(struct ib_uobject *uobj,
				   enum rdma_remove_reason why,
				   struct uverbs_attr_bundle *attrs)
{
	struct ib_flow_action *action = uobj->object;

	/* Flows using it hold it. */
	if (atomic_read(&action->usecnt))
		return -EBUSY;
	return action->device->ops.destroy_flow_action(action);
}

static int uverbs_free_counters(struct ib_uobject *uobj,
				enum rdma_remove_reason why,
				struct uverbs_attr_bundle *attrs)
{
	struct ib_counters *counters = uobj->object;
	int ret;

	if (atomic_read(&counters->usecnt))
		return -EBUSY;
	ret = counters->device->ops.destroy_counters(counters);
	if (ret)
		return ret;
	/* The core allocated it (rdma_zalloc_drv_obj), the core frees it. */
	kfree(counters);
	return 0;
}

const struct uverbs_api_object uverbs_flow_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_uflow_object),
						uverbs_free_flow),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_FLOW,
};

const struct uverbs_api_object uverbs_flow_action_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_flow_action),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_FLOW_ACTION,
};

const struct uverbs_api_object uverbs_counters_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_counters),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_COUNTERS,
};

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_FLOW_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_FLOW_HANDLE,
						    UVERBS_OBJECT_FLOW,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_FLOW,
			      &UVERBS_METHOD(UVERBS_METHOD_FLOW_DESTROY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_FLOW_ACTION_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE,
						    UVERBS_OBJECT_FLOW_ACTION,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_FLOW_ACTION,
			      &UVERBS_METHOD(UVERBS_METHOD_FLOW_ACTION_DESTROY));

static int UVERBS_HANDLER(UVERBS_METHOD_COUNTERS_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
	struct ib_device *ib_dev = uverbs_attrs_ib_dev(attrs);
	struct ib_counters *counters;
	int ret;

	/* The object exists when the driver can destroy counters. */
	if (!ib_dev->ops.create_counters)
		return -EOPNOTSUPP;

	counters = rdma_zalloc_drv_obj(ib_dev, ib_counters);
	if (!counters)
		return -ENOMEM;
	counters->device = ib_dev;
	counters->uobject = uobj;
	atomic_set(&counters->usecnt, 0);

	/* The driver reads its own attributes from @attrs. */
	ret = ib_dev->ops.create_counters(counters, attrs);
	if (ret) {
		kfree(counters);
		return ret;
	}
	uobj->object = counters;
	return 0;
}

/*
 * Counters are only bound to hardware once a flow uses them: reading
 * unbound ones is -EINVAL, as on stock.
 */
static int UVERBS_HANDLER(UVERBS_METHOD_COUNTERS_READ)(struct uverbs_attr_bundle *attrs)
{
	struct ib_counters *counters =
		uverbs_attr_get_obj(attrs, UVERBS_ATTR_READ_COUNTERS_HANDLE);
	struct ib_counters_read_attr read_attr = {};
	const struct uverbs_attr *buff;
	int ret;

	if (!counters->device->ops.read_counters)
		return -EOPNOTSUPP;
	if (!atomic_read(&counters->usecnt))
		return -EINVAL;

	ret = uverbs_get_flags32(&read_attr.flags, attrs,
				 UVERBS_ATTR_READ_COUNTERS_FLAGS,
				 IB_UVERBS_READ_COUNTERS_PREFER_CACHED);
	if (ret)
		return ret;

	buff = uverbs_attr_get(attrs, UVERBS_ATTR_READ_COUNTERS_BUFF);
	if (IS_ERR(buff))
		return PTR_ERR(buff);
	read_attr.ncounters = buff->ptr_attr.len / sizeof(u64);
	read_attr.counters_buff =
		uverbs_zalloc(attrs, array_size(read_attr.ncounters,
						sizeof(u64)));
	if (IS_ERR(read_attr.counters_buff))
		return PTR_ERR(read_attr.counters_buff);

	ret = counters->device->ops.read_counters(counters, &read_attr, attrs);
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_READ_COUNTERS_BUFF,
			      read_attr.counters_buff,
			      read_attr.ncounters * sizeof(u64));
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_COUNTERS_CREATE,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_COUNTERS_HANDLE,
					    UVERBS_OBJECT_COUNTERS,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_COUNTERS_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_COUNTERS_HANDLE,
						    UVERBS_OBJECT_COUNTERS,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_COUNTERS_READ,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_READ_COUNTERS_HANDLE,
					    UVERBS_OBJECT_COUNTERS,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_READ_COUNTERS_BUFF,
						UVERBS_ATTR_MIN_SIZE(0),
						UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_READ_COUNTERS_FLAGS,
						 enum ib_uverbs_read_counters_flags));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_COUNTERS,
			      &UVERBS_METHOD(UVERBS_METHOD_COUNTERS_CREATE),
			      &UVERBS_METHOD(UVERBS_METHOD_COUNTERS_DESTROY),
			      &UVERBS_METHOD(UVERBS_METHOD_COUNTERS_READ));

const struct uapi_definition uverbs_def_obj_flow[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_FLOW,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_flow)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_FLOW_ACTION,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_flow_action)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_COUNTERS,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_counters)),
	{},
};

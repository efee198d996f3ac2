// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl method CQ_CREATE.
 *
 * The framework reserves the new handle (HANDLE) and holds the comp
 * channel named for reading; uverbs_create_cq() does the rest, as for
 * the write() command.  Once the CQ exists the framework destroys it,
 * should answering fail.
 */

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs_write.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

/* The flags stock lets through to the driver, which refuses what it lacks. */
#define UVERBS_CQ_CREATE_FLAGS (IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION | \
				IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN)

static int cq_create_params(struct uverbs_attr_bundle *attrs,
			    struct uverbs_cq_create_params *params)
{
	struct ib_uobject *channel;
	int ret;

	ret = uverbs_copy_from(&params->cqe, attrs,
			       UVERBS_ATTR_CREATE_CQ_CQE);
	if (!ret)
		ret = uverbs_copy_from(&params->user_handle, attrs,
				       UVERBS_ATTR_CREATE_CQ_USER_HANDLE);
	if (!ret)
		ret = uverbs_copy_from(&params->comp_vector, attrs,
				       UVERBS_ATTR_CREATE_CQ_COMP_VECTOR);
	if (!ret)
		ret = uverbs_get_flags32(&params->flags, attrs,
					 UVERBS_ATTR_CREATE_CQ_FLAGS,
					 UVERBS_CQ_CREATE_FLAGS);
	if (!ret)
		ret = ib_uverbs_attr_async_file(attrs,
						UVERBS_ATTR_CREATE_CQ_EVENT_FD,
						&params->event_file);
	if (ret)
		return ret;

	channel = uverbs_attr_get_uobject(attrs,
					  UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL);
	params->comp_channel = IS_ERR(channel) ? NULL : channel;
	return 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_CQ_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_CQ_HANDLE);
	struct ib_ucq_object *ucq =
		container_of(uobj, struct ib_ucq_object, uevent.uobject);
	struct uverbs_cq_create_params params = {};
	struct ib_cq *cq;
	int ret;

	ret = cq_create_params(attrs, &params);
	if (ret)
		return ret;

	ret = uverbs_create_cq(attrs, uverbs_attrs_ib_dev(attrs), ucq,
			       &params);
	/* The object holds its own reference. */
	ib_uverbs_async_file_put(params.event_file);
	if (ret)
		return ret;
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_CREATE_CQ_HANDLE);

	cq = uobj->object;
	return uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &cq->cqe,
			      sizeof(cq->cqe));
}

/*
 * EVENT_FD is a raw fd: the async event file of write()'s GET_CONTEXT
 * is no uobject, so the handler finds the event file itself.
 */
DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_CQ_CREATE,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_CQ_HANDLE,
					    UVERBS_OBJECT_CQ,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_CQ_CQE,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_FD(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL,
					   UVERBS_OBJECT_COMP_CHANNEL,
					   UVERBS_ACCESS_READ,
					   UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_CREATE_CQ_FLAGS,
						 enum ib_uverbs_ex_create_cq_flags),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_CQ_RESP_CQE,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_RAW_FD(UVERBS_ATTR_CREATE_CQ_EVENT_FD,
					       UA_OPTIONAL),
			    UVERBS_ATTR_UHW());

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_CQ,
			      &UVERBS_METHOD(UVERBS_METHOD_CQ_CREATE));

const struct uapi_definition uverbs_def_obj_cq[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_CQ,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_cq)),
	{},
};

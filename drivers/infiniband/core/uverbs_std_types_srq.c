// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl method SRQ_CREATE.
 *
 * The framework reserves the new handle and holds the PD, CQ and XRC
 * domain named for reading; uverbs_create_srq() does the rest, as for
 * the write() command.
 */

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs_write.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

static struct ib_uobject *srq_attr_uobj(struct uverbs_attr_bundle *attrs,
					u16 idx)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, idx);

	return IS_ERR(uobj) ? NULL : uobj;
}

static int srq_create_params(struct uverbs_attr_bundle *attrs,
			     struct uverbs_srq_create_params *params)
{
	u32 srq_type;
	int ret;

	ret = uverbs_get_const(&srq_type, attrs, UVERBS_ATTR_CREATE_SRQ_TYPE);
	if (ret)
		return ret;
	/* In stock's order: the CQ, then what the type needs. */
	params->srq_type = srq_type;
	params->cq = srq_attr_uobj(attrs, UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE);
	if (ib_srq_has_cq(params->srq_type) && !params->cq)
		return -ENOENT;
	switch (srq_type) {
	case IB_UVERBS_SRQT_BASIC:
		break;
	case IB_UVERBS_SRQT_XRC:
		params->xrcd = srq_attr_uobj(attrs,
					     UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE);
		if (!params->xrcd)
			return -ENOENT;
		break;
	case IB_UVERBS_SRQT_TM:
		ret = uverbs_copy_from(&params->max_num_tags, attrs,
				       UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS);
		if (ret)
			return ret;
		break;
	default:
		return -EINVAL;
	}

	ret = uverbs_copy_from(&params->user_handle, attrs,
			       UVERBS_ATTR_CREATE_SRQ_USER_HANDLE);
	if (!ret)
		ret = uverbs_copy_from(&params->attr.max_wr, attrs,
				       UVERBS_ATTR_CREATE_SRQ_MAX_WR);
	if (!ret)
		ret = uverbs_copy_from(&params->attr.max_sge, attrs,
				       UVERBS_ATTR_CREATE_SRQ_MAX_SGE);
	if (!ret)
		ret = uverbs_copy_from(&params->attr.srq_limit, attrs,
				       UVERBS_ATTR_CREATE_SRQ_LIMIT);
	if (!ret)
		ret = ib_uverbs_attr_async_file(attrs,
						UVERBS_ATTR_CREATE_SRQ_EVENT_FD,
						&params->event_file);
	if (ret)
		return ret;

	params->pd = srq_attr_uobj(attrs, UVERBS_ATTR_CREATE_SRQ_PD_HANDLE);
	return 0;
}

static int srq_create_answer(struct uverbs_attr_bundle *attrs,
			     const struct uverbs_srq_create_params *params)
{
	int ret;

	ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR,
			     &params->attr.max_wr,
			     sizeof(params->attr.max_wr));
	if (ret)
		return ret;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE,
			     &params->attr.max_sge,
			     sizeof(params->attr.max_sge));
	if (ret || params->srq_type != IB_SRQT_XRC)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM,
			      &params->srqn, sizeof(params->srqn));
}

static int UVERBS_HANDLER(UVERBS_METHOD_SRQ_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_SRQ_HANDLE);
	struct ib_usrq_object *usrq =
		container_of(uobj, struct ib_usrq_object, uevent.uobject);
	struct uverbs_srq_create_params params = {};
	int ret;

	ret = srq_create_params(attrs, &params);
	if (ret)
		return ret;

	ret = uverbs_create_srq(attrs, uverbs_attrs_ib_dev(attrs), usrq,
				&params);
	/* The object holds its own reference. */
	ib_uverbs_async_file_put(params.event_file);
	if (ret)
		return ret;
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_CREATE_SRQ_HANDLE);

	return srq_create_answer(attrs, &params);
}

/*
 * EVENT_FD is a raw fd: the async event file of write()'s GET_CONTEXT
 * is no uobject, so the handler finds the event file itself.  Only an
 * XRC SRQ has a number: RESP_SRQ_NUM is written for it alone.
 */
DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_SRQ_CREATE,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_SRQ_HANDLE,
					    UVERBS_OBJECT_SRQ,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_SRQ_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_CREATE_SRQ_TYPE,
						 enum ib_uverbs_srq_type,
						 UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE,
					    UVERBS_OBJECT_XRCD,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE,
					    UVERBS_OBJECT_CQ,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_SRQ_USER_HANDLE,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_SRQ_MAX_WR,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_SRQ_MAX_SGE,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_SRQ_LIMIT,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS,
					       UVERBS_ATTR_TYPE(u32),
					       UA_OPTIONAL),
			    UVERBS_ATTR_RAW_FD(UVERBS_ATTR_CREATE_SRQ_EVENT_FD,
					       UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM,
						UVERBS_ATTR_TYPE(u32),
						UA_OPTIONAL),
			    UVERBS_ATTR_UHW());

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_SRQ,
			      &UVERBS_METHOD(UVERBS_METHOD_SRQ_CREATE));

const struct uapi_definition uverbs_def_obj_srq[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_SRQ,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_srq)),
	{},
};

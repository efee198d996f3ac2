// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl destroy methods of the core objects.
 *
 * The framework destroys the object the UVERBS_ACCESS_DESTROY attribute
 * names before the handler runs (uverbs_ioctl.c): -EBUSY while other
 * objects use it, -ENOENT for a handle naming nothing.  The handler only
 * answers; for objects that report events, how many were reported, so
 * userspace knows how many to wait for before freeing its side.
 */

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

static struct ib_uevent_object *
destroyed_uevent(const struct uverbs_attr_bundle *attrs, u16 idx)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, idx);

	return container_of(uobj, struct ib_uevent_object, uobject);
}

/* PD, MR, MW, AH: nothing to answer. */

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_PD_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_PD_HANDLE,
						    UVERBS_OBJECT_PD,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_PD,
			      &UVERBS_METHOD(UVERBS_METHOD_PD_DESTROY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_MR_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_MR_HANDLE,
						    UVERBS_OBJECT_MR,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_MR,
			      &UVERBS_METHOD(UVERBS_METHOD_MR_DESTROY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_MW_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_MW_HANDLE,
						    UVERBS_OBJECT_MW,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_MW,
			      &UVERBS_METHOD(UVERBS_METHOD_MW_DESTROY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_AH_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_AH_HANDLE,
						    UVERBS_OBJECT_AH,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_AH,
			      &UVERBS_METHOD(UVERBS_METHOD_AH_DESTROY));

/* CQ: completion events are counted apart from async ones. */

static int UVERBS_HANDLER(UVERBS_METHOD_CQ_DESTROY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uevent_object *uevent =
		destroyed_uevent(attrs, UVERBS_ATTR_DESTROY_CQ_HANDLE);
	struct ib_ucq_object *ucq =
		container_of(uevent, struct ib_ucq_object, uevent);
	struct ib_uverbs_destroy_cq_resp resp = {
		.comp_events_reported = ucq->comp_events_reported,
		.async_events_reported = uevent->events_reported,
	};

	return uverbs_copy_to(attrs, UVERBS_ATTR_DESTROY_CQ_RESP, &resp,
			      sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_CQ_DESTROY,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_CQ_HANDLE,
					    UVERBS_OBJECT_CQ,
					    UVERBS_ACCESS_DESTROY,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_DESTROY_CQ_RESP,
						UVERBS_ATTR_TYPE(struct ib_uverbs_destroy_cq_resp),
						UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_CQ,
			      &UVERBS_METHOD(UVERBS_METHOD_CQ_DESTROY));

/* QP and SRQ: how many async events were reported. */

static int UVERBS_HANDLER(UVERBS_METHOD_QP_DESTROY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uevent_object *uevent =
		destroyed_uevent(attrs, UVERBS_ATTR_DESTROY_QP_HANDLE);
	struct ib_uverbs_destroy_qp_resp resp = {
		.events_reported = uevent->events_reported,
	};

	return uverbs_copy_to(attrs, UVERBS_ATTR_DESTROY_QP_RESP, &resp,
			      sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QP_DESTROY,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_QP_HANDLE,
					    UVERBS_OBJECT_QP,
					    UVERBS_ACCESS_DESTROY,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_DESTROY_QP_RESP,
						UVERBS_ATTR_TYPE(struct ib_uverbs_destroy_qp_resp),
						UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_QP,
			      &UVERBS_METHOD(UVERBS_METHOD_QP_DESTROY));

static int UVERBS_HANDLER(UVERBS_METHOD_SRQ_DESTROY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uevent_object *uevent =
		destroyed_uevent(attrs, UVERBS_ATTR_DESTROY_SRQ_HANDLE);
	struct ib_uverbs_destroy_srq_resp resp = {
		.events_reported = uevent->events_reported,
	};

	return uverbs_copy_to(attrs, UVERBS_ATTR_DESTROY_SRQ_RESP, &resp,
			      sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_SRQ_DESTROY,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_SRQ_HANDLE,
					    UVERBS_OBJECT_SRQ,
					    UVERBS_ACCESS_DESTROY,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_DESTROY_SRQ_RESP,
						UVERBS_ATTR_TYPE(struct ib_uverbs_destroy_srq_resp),
						UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_SRQ,
			      &UVERBS_METHOD(UVERBS_METHOD_SRQ_DESTROY));

/* A device without the destroy op has no such objects. */
const struct uapi_definition uverbs_def_obj_destroy[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_PD,
				      UAPI_DEF_OBJ_NEEDS_FN(dealloc_pd)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_MR,
				      UAPI_DEF_OBJ_NEEDS_FN(dereg_mr)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_MW,
				      UAPI_DEF_OBJ_NEEDS_FN(dealloc_mw)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_AH,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_ah)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_CQ,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_cq)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_QP,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_qp)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_SRQ,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_srq)),
	{},
};

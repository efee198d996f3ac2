// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: work queues (WQ) and their indirection tables (RWQ_IND_TBL),
 * the receive side of RSS.  A WQ holds its PD and CQ (ib_core's wq.c
 * keeps the counts), a table holds its WQs, a QP its table; each refuses
 * to go (-EBUSY) while held.  WQ events go to the async event file the
 * creation named, as for QPs.
 *
 * No method creates a table through ioctl (stock has none either): its
 * type is here so that drivers' methods can name one, and it is freed
 * the way stock's write() command allocates it (the core allocates the
 * table array, the driver object through rdma_zalloc_drv_obj()).
 *
 * Each object exists on a device only if the driver can destroy it: on
 * rxe every method is -EPROTONOSUPPORT, as on stock.
 */

#include <linux/slab.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs.h"
#include "uverbs_write.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

static int uverbs_free_wq(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_uwq_object *uwq =
		container_of(uobj, struct ib_uwq_object, uevent.uobject);
	int ret;

	ret = ib_destroy_wq_user(uobj->object, &attrs->driver_udata);
	if (ret)
		return ret;
	ib_uverbs_uevent_release(&uwq->uevent);
	return 0;
}

static int uverbs_free_rwq_ind_tbl(struct ib_uobject *uobj,
				   enum rdma_remove_reason why,
				   struct uverbs_attr_bundle *attrs)
{
	struct ib_rwq_ind_table *tbl = uobj->object;
	struct ib_wq **wqs = tbl->ind_tbl;
	u32 i, size = 1U << tbl->log_ind_tbl_size;
	int ret;

	/* QPs using it hold it. */
	if (atomic_read(&tbl->usecnt))
		return -EBUSY;
	ret = tbl->device->ops.destroy_rwq_ind_table(tbl);
	if (ret)
		return ret;
	for (i = 0; i < size; i++)
		atomic_dec(&wqs[i]->usecnt);
	kfree(tbl);
	kfree(wqs);
	return 0;
}

const struct uverbs_api_object uverbs_wq_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_uwq_object),
						uverbs_free_wq),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_WQ,
};

const struct uverbs_api_object uverbs_rwq_ind_tbl_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_rwq_ind_tbl),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_RWQ_IND_TBL,
};

static int wq_create_params(struct uverbs_attr_bundle *attrs,
			    struct ib_wq_init_attr *init, u64 *user_handle)
{
	int ret;

	ret = uverbs_get_flags32(&init->create_flags, attrs,
				 UVERBS_ATTR_CREATE_WQ_FLAGS,
				 IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING |
				 IB_UVERBS_WQ_FLAGS_SCATTER_FCS |
				 IB_UVERBS_WQ_FLAGS_DELAY_DROP |
				 IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING);
	if (!ret)
		ret = uverbs_copy_from(&init->max_sge, attrs,
				       UVERBS_ATTR_CREATE_WQ_MAX_SGE);
	if (!ret)
		ret = uverbs_copy_from(&init->max_wr, attrs,
				       UVERBS_ATTR_CREATE_WQ_MAX_WR);
	if (!ret)
		ret = uverbs_copy_from(user_handle, attrs,
				       UVERBS_ATTR_CREATE_WQ_USER_HANDLE);
	if (!ret)
		ret = uverbs_get_const(&init->wq_type, attrs,
				       UVERBS_ATTR_CREATE_WQ_TYPE);
	if (ret)
		return ret;
	/* Receive WQs are the only kind. */
	if (init->wq_type != IB_WQT_RQ)
		return -EINVAL;
	/*
	 * The CQ attribute is optional in the spec, yet a WQ completes on a
	 * CQ: without one, -EINVAL (stock would use the missing CQ).
	 */
	init->cq = uverbs_attr_get_obj(attrs, UVERBS_ATTR_CREATE_WQ_CQ_HANDLE);
	if (IS_ERR(init->cq))
		return -EINVAL;
	return 0;
}

static int wq_create_answer(struct uverbs_attr_bundle *attrs,
			    const struct ib_wq_init_attr *init,
			    const struct ib_wq *wq)
{
	int ret;

	ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR,
			     &init->max_wr, sizeof(init->max_wr));
	if (!ret)
		ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE,
				     &init->max_sge, sizeof(init->max_sge));
	if (!ret)
		ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM,
				     &wq->wq_num, sizeof(wq->wq_num));
	/* WQ_NUM is optional. */
	return IS_UVERBS_COPY_ERR(ret) ? ret : 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_WQ_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_WQ_HANDLE);
	struct ib_uwq_object *uwq =
		container_of(uobj, struct ib_uwq_object, uevent.uobject);
	struct ib_pd *pd = uverbs_attr_get_obj(attrs,
					       UVERBS_ATTR_CREATE_WQ_PD_HANDLE);
	struct ib_uverbs_async_event_file *ev_file;
	struct ib_wq_init_attr init = {};
	u64 user_handle;
	int ret;

	if (!pd->device->ops.create_wq)
		return -EOPNOTSUPP;
	ret = wq_create_params(attrs, &init, &user_handle);
	if (ret)
		return ret;
	ret = ib_uverbs_attr_async_file(attrs, UVERBS_ATTR_CREATE_WQ_EVENT_FD,
					&ev_file);
	if (ret)
		return ret;
	ret = uverbs_create_wq(attrs, uwq, pd, &init, user_handle, ev_file);
	ib_uverbs_async_file_put(ev_file);
	if (ret)
		return ret;
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_CREATE_WQ_HANDLE);

	return wq_create_answer(attrs, &init, uobj->object);
}

static int UVERBS_HANDLER(UVERBS_METHOD_WQ_DESTROY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_DESTROY_WQ_HANDLE);
	struct ib_uwq_object *uwq =
		container_of(uobj, struct ib_uwq_object, uevent.uobject);

	return uverbs_copy_to(attrs, UVERBS_ATTR_DESTROY_WQ_RESP,
			      &uwq->uevent.events_reported,
			      sizeof(uwq->uevent.events_reported));
}

/* EVENT_FD is a raw fd, as for SRQ_CREATE (uverbs_std_types_srq.c). */
DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_WQ_CREATE,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_WQ_HANDLE,
					    UVERBS_OBJECT_WQ,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_WQ_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_CREATE_WQ_TYPE,
						 enum ib_wq_type,
						 UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_WQ_USER_HANDLE,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_WQ_MAX_WR,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_WQ_MAX_SGE,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_CREATE_WQ_FLAGS,
						 enum ib_uverbs_wq_flags,
						 UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_WQ_CQ_HANDLE,
					    UVERBS_OBJECT_CQ,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_RAW_FD(UVERBS_ATTR_CREATE_WQ_EVENT_FD,
					       UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM,
						UVERBS_ATTR_TYPE(u32),
						UA_OPTIONAL),
			    UVERBS_ATTR_UHW());

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_WQ_DESTROY,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_WQ_HANDLE,
					    UVERBS_OBJECT_WQ,
					    UVERBS_ACCESS_DESTROY,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_DESTROY_WQ_RESP,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_WQ,
			      &UVERBS_METHOD(UVERBS_METHOD_WQ_CREATE),
			      &UVERBS_METHOD(UVERBS_METHOD_WQ_DESTROY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_RWQ_IND_TBL_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE,
						    UVERBS_OBJECT_RWQ_IND_TBL,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_RWQ_IND_TBL,
			      &UVERBS_METHOD(UVERBS_METHOD_RWQ_IND_TBL_DESTROY));

const struct uapi_definition uverbs_def_obj_wq[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_WQ,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_wq)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_RWQ_IND_TBL,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_rwq_ind_table)),
	{},
};

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: work queues and their indirection tables through write(),
 * the extended commands CREATE_WQ, MODIFY_WQ, DESTROY_WQ,
 * CREATE_RWQ_IND_TBL and DESTROY_RWQ_IND_TBL (libibverbs' ibv_create_wq()
 * and friends: the receive side of RSS).
 *
 * A WQ holds its PD and CQ (ib_core's wq.c), a table holds its WQs (their
 * usecnt) and a QP its table; none can be destroyed while held (-EBUSY,
 * uverbs_std_types_wq.c frees them).  The core allocates a table's WQ
 * array and, through rdma_zalloc_drv_obj(), the driver's table object;
 * the driver fills it in.
 */

#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs_write.h"

/**
 * uverbs_create_wq() - make the WQ of a new uobject, for either transport
 * @attrs: the call's bundle (its driver_udata goes to the driver)
 * @uwq: the uobject, begun by the caller
 * @pd: its protection domain
 * @init: what was asked, its CQ set; on success the sizes the driver made
 * @user_handle: userspace's cookie for its events
 * @event_file: where its async events go (referenced by the WQ), or NULL
 *
 * Return: 0 with @uwq's object set (from here on, aborting the uobject
 * destroys the WQ), or the driver's errno with nothing left to undo but
 * the uobject itself.
 */
int uverbs_create_wq(struct uverbs_attr_bundle *attrs,
		     struct ib_uwq_object *uwq, struct ib_pd *pd,
		     struct ib_wq_init_attr *init, u64 user_handle,
		     struct ib_uverbs_async_event_file *event_file)
{
	struct ib_uobject *uobj = &uwq->uevent.uobject;
	struct ib_wq *wq;

	init->event_handler = ib_uverbs_wq_event_handler;
	init->wq_context = attrs->ufile;
	/* Set up before the driver can report an event on it. */
	ib_uverbs_uevent_init(&uwq->uevent, event_file);
	uobj->user_handle = user_handle;

	wq = pd->device->ops.create_wq(pd, init, &attrs->driver_udata);
	if (IS_ERR(wq)) {
		ib_uverbs_uevent_release(&uwq->uevent);
		return PTR_ERR(wq);
	}
	wq->device = pd->device;
	wq->pd = pd;
	wq->cq = init->cq;
	wq->uobject = uwq;
	wq->wq_type = init->wq_type;
	wq->event_handler = init->event_handler;
	wq->wq_context = init->wq_context;
	atomic_set(&wq->usecnt, 0);
	atomic_inc(&pd->usecnt);
	atomic_inc(&init->cq->usecnt);
	uobj->object = wq;
	return 0;
}

/* The type and flags are the driver's to judge, as on stock. */
int ib_uverbs_ex_create_wq(struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_create_wq_resp resp = {};
	struct ib_uverbs_ex_create_wq cmd;
	struct ib_uobject *uobj, *pd_uobj, *cq_uobj;
	struct ib_wq_init_attr init = {};
	struct ib_uwq_object *uwq;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask)
		return -EOPNOTSUPP;

	uobj = rdma_alloc_begin_uobject(&uverbs_wq_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uwq = container_of(uobj, struct ib_uwq_object, uevent.uobject);

	ret = uverbs_get_read(&uverbs_pd_object, cmd.pd_handle, attrs,
			      &pd_uobj);
	if (ret)
		goto err_uobj;
	ret = uverbs_get_read(&uverbs_cq_object, cmd.cq_handle, attrs,
			      &cq_uobj);
	if (ret)
		goto err_pd;

	init.cq = cq_uobj->object;
	init.wq_type = cmd.wq_type;
	init.max_wr = cmd.max_wr;
	init.max_sge = cmd.max_sge;
	init.create_flags = cmd.create_flags;
	ret = uverbs_create_wq(attrs, uwq, pd_uobj->object, &init,
			       cmd.user_handle,
			       ib_uverbs_default_async_file(attrs->ufile));
	uverbs_put_read(cq_uobj);
	uverbs_put_read(pd_uobj);
	if (ret)
		goto err_uobj;

	resp.wq_handle = uobj->id;
	resp.max_wr = init.max_wr;
	resp.max_sge = init.max_sge;
	resp.wqn = ((struct ib_wq *)uobj->object)->wq_num;
	resp.response_length = uverbs_response_length(attrs, sizeof(resp));
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_pd:
	uverbs_put_read(pd_uobj);
err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

#define UVERBS_WQ_ATTR_MASK (IB_WQ_STATE | IB_WQ_CUR_STATE | IB_WQ_FLAGS)

/*
 * The states asked (-EINVAL past IB_WQS_ERR); a state left out is the
 * current one, the current one left out is what the core last knew.
 */
int ib_uverbs_ex_modify_wq(struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_modify_wq cmd;
	struct ib_wq_attr wq_attr = {};
	struct ib_uobject *uobj;
	struct ib_wq *wq;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!cmd.attr_mask || cmd.attr_mask & ~UVERBS_WQ_ATTR_MASK)
		return -EINVAL;

	ret = uverbs_get_read(&uverbs_wq_object, cmd.wq_handle, attrs, &uobj);
	if (ret)
		return ret;
	wq = uobj->object;

	ret = -EINVAL;
	if (cmd.attr_mask & IB_WQ_FLAGS) {
		wq_attr.flags = cmd.flags;
		wq_attr.flags_mask = cmd.flags_mask;
	}
	if (cmd.attr_mask & IB_WQ_CUR_STATE) {
		if (cmd.curr_wq_state > IB_WQS_ERR)
			goto out;
		wq_attr.curr_wq_state = cmd.curr_wq_state;
	} else {
		wq_attr.curr_wq_state = wq->state;
	}
	if (cmd.attr_mask & IB_WQ_STATE) {
		if (cmd.wq_state > IB_WQS_ERR)
			goto out;
		wq_attr.wq_state = cmd.wq_state;
	} else {
		wq_attr.wq_state = wq_attr.curr_wq_state;
	}
	ret = wq->device->ops.modify_wq(wq, &wq_attr, cmd.attr_mask,
					&attrs->driver_udata);
out:
	uverbs_put_read(uobj);
	return ret;
}

int ib_uverbs_ex_destroy_wq(struct uverbs_attr_bundle *attrs,
			    struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_destroy_wq_resp resp = {};
	struct ib_uverbs_ex_destroy_wq cmd;
	struct ib_uwq_object *uwq;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask)
		return -EOPNOTSUPP;

	resp.response_length = uverbs_response_length(attrs, sizeof(resp));
	uobj = __uobj_get_destroy(&uverbs_wq_object, cmd.wq_handle, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uwq = container_of(uobj, struct ib_uwq_object, uevent.uobject);
	resp.events_reported = uwq->uevent.events_reported;
	uobj_put_destroy(uobj);

	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* Give back the first @n WQs claimed for a table being made. */
static void rwq_ind_table_put_wqs(struct ib_wq **wqs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		uverbs_put_read(&wqs[i]->uobject->uevent.uobject);
}

/*
 * The WQs the handles name, each claimed for reading (a WQ may appear
 * more than once): the lookup's errno for a bad one.
 */
static int rwq_ind_table_get_wqs(struct uverbs_attr_bundle *attrs,
				 const u32 *handles, struct ib_wq **wqs, u32 n)
{
	struct ib_uobject *uobj;
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = uverbs_get_read(&uverbs_wq_object, handles[i], attrs,
				      &uobj);
		if (ret) {
			rwq_ind_table_put_wqs(wqs, i);
			return ret;
		}
		wqs[i] = uobj->object;
	}
	return 0;
}

/* The table over @wqs (which it owns from here on success) for @uobj. */
static int rwq_ind_table_create(struct uverbs_attr_bundle *attrs,
				struct ib_device *ib_dev,
				struct ib_uobject *uobj, struct ib_wq **wqs,
				u32 log_size)
{
	struct ib_rwq_ind_table_init_attr init = {
		.log_ind_tbl_size = log_size,
		.ind_tbl = wqs,
	};
	struct ib_rwq_ind_table *tbl;
	u32 i;
	int ret;

	tbl = rdma_zalloc_drv_obj(ib_dev, ib_rwq_ind_table);
	if (!tbl)
		return -ENOMEM;
	tbl->device = ib_dev;
	tbl->uobject = uobj;
	tbl->ind_tbl = wqs;
	tbl->log_ind_tbl_size = log_size;
	atomic_set(&tbl->usecnt, 0);

	ret = ib_dev->ops.create_rwq_ind_table(tbl, &init,
					       &attrs->driver_udata);
	if (ret) {
		kfree(tbl);
		return ret;
	}
	for (i = 0; i < 1U << log_size; i++)
		atomic_inc(&wqs[i]->usecnt);
	uobj->object = tbl;
	return 0;
}

/*
 * The request: struct ib_uverbs_ex_create_rwq_ind_table, then
 * 2^log_ind_tbl_size WQ handles (-ENOSPC when short).
 */
int ib_uverbs_ex_create_rwq_ind_table(struct uverbs_attr_bundle *attrs,
				      struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp = {};
	struct ib_uverbs_ex_create_rwq_ind_table cmd;
	struct ib_wq **wqs = NULL;
	struct ib_uobject *uobj;
	u32 *handles;
	u32 n;
	int ret;

	ret = uverbs_request_head(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask)
		return -EOPNOTSUPP;
	if (cmd.log_ind_tbl_size > IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE)
		return -EINVAL;

	n = 1U << cmd.log_ind_tbl_size;
	handles = kcalloc(n, sizeof(*handles), GFP_KERNEL);
	if (!handles)
		return -ENOMEM;
	ret = uverbs_request_part(attrs, sizeof(cmd), handles,
				  n * sizeof(*handles));
	if (!ret)
		ret = uverbs_request_rest(attrs,
					  sizeof(cmd) + n * sizeof(*handles));
	if (ret)
		goto out;

	wqs = kcalloc(n, sizeof(*wqs), GFP_KERNEL);
	if (!wqs) {
		ret = -ENOMEM;
		goto out;
	}
	ret = rwq_ind_table_get_wqs(attrs, handles, wqs, n);
	if (ret)
		goto err_wqs;

	uobj = rdma_alloc_begin_uobject(&uverbs_rwq_ind_tbl_object, attrs);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto err_put;
	}
	ret = rwq_ind_table_create(attrs, ib_dev, uobj, wqs, cmd.log_ind_tbl_size);
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, false);
		goto err_put;
	}
	/* The table holds its WQs by their usecnt now. */
	rwq_ind_table_put_wqs(wqs, n);

	resp.ind_tbl_handle = uobj->id;
	resp.ind_tbl_num = ((struct ib_rwq_ind_table *)uobj->object)->ind_tbl_num;
	resp.response_length = uverbs_response_length(attrs, sizeof(resp));
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		rdma_alloc_abort_uobject(uobj, attrs, true);
	else
		rdma_alloc_commit_uobject(uobj, attrs);
	/* The table's free gives @wqs back. */
	goto out;

err_put:
	rwq_ind_table_put_wqs(wqs, n);
err_wqs:
	kfree(wqs);
out:
	kfree(handles);
	return ret;
}

int ib_uverbs_ex_destroy_rwq_ind_table(struct uverbs_attr_bundle *attrs,
				       struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_destroy_rwq_ind_table cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask)
		return -EOPNOTSUPP;
	return __uobj_perform_destroy(&uverbs_rwq_ind_tbl_object,
				      cmd.ind_tbl_handle, attrs);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: shared receive queues (basic ones: XRC SRQs need an XRC
 * domain, which we do not offer).  An SRQ holds its PD; QPs using it
 * hold it in turn (srq->usecnt).
 */

#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_std_types.h>

#include "core_priv.h"
#include "uverbs_write.h"

/**
 * uverbs_create_srq() - make the SRQ of a new uobject, for either transport
 * @attrs: the call's bundle (its driver_udata goes to the driver)
 * @ib_dev: the live device
 * @usrq: the uobject, begun by the caller
 * @params: what was asked; on success, @params->attr is what the driver
 *	made
 *
 * Return: 0 with @usrq's object set (from here on, aborting the uobject
 * destroys the SRQ), or an errno with nothing left to undo but the
 * uobject itself.
 */
int uverbs_create_srq(struct uverbs_attr_bundle *attrs,
		      struct ib_device *ib_dev, struct ib_usrq_object *usrq,
		      struct uverbs_srq_create_params *params)
{
	struct ib_uobject *uobj = &usrq->uevent.uobject;
	struct ib_pd *pd = params->pd->object;
	struct ib_srq_init_attr init = {};
	struct ib_srq *srq;
	int ret;

	ib_uverbs_uevent_init(&usrq->uevent, params->event_file);
	init.event_handler = ib_uverbs_srq_event_handler;
	init.srq_type = IB_SRQT_BASIC;
	init.attr = params->attr;

	srq = rdma_zalloc_drv_obj(ib_dev, ib_srq);
	if (!srq) {
		ret = -ENOMEM;
		goto err_events;
	}
	srq->device = ib_dev;
	srq->pd = pd;
	srq->uobject = usrq;
	srq->event_handler = init.event_handler;
	srq->srq_type = init.srq_type;
	atomic_set(&srq->usecnt, 0);
	rdma_restrack_new(&srq->res, RDMA_RESTRACK_SRQ);
	rdma_restrack_set_name(&srq->res, NULL);

	ret = ib_dev->ops.create_srq(srq, &init, &attrs->driver_udata);
	if (ret)
		goto err_srq;
	atomic_inc(&pd->usecnt);
	rdma_restrack_add(&srq->res);
	uobj->object = srq;
	uobj->user_handle = params->user_handle;
	/* The driver answers what it really made. */
	params->attr = init.attr;
	return 0;

err_srq:
	rdma_restrack_del(&srq->res);
	kfree(srq);
err_events:
	ib_uverbs_uevent_release(&usrq->uevent);
	return ret;
}

int ib_uverbs_create_srq(struct uverbs_attr_bundle *attrs,
			 struct ib_device *ib_dev)
{
	struct uverbs_srq_create_params params = {
		.event_file = ib_uverbs_default_async_file(attrs->ufile),
	};
	struct ib_uverbs_create_srq_resp resp = {};
	struct ib_uverbs_create_srq cmd;
	struct ib_usrq_object *usrq;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	params.user_handle = cmd.user_handle;
	params.attr.max_wr = cmd.max_wr;
	params.attr.max_sge = cmd.max_sge;
	params.attr.srq_limit = cmd.srq_limit;

	uobj = rdma_alloc_begin_uobject(&uverbs_srq_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	usrq = container_of(uobj, struct ib_usrq_object, uevent.uobject);

	ret = uverbs_get_read(&uverbs_pd_object, cmd.pd_handle, attrs,
			      &params.pd);
	if (ret)
		goto err_uobj;
	ret = uverbs_create_srq(attrs, ib_dev, usrq, &params);
	uverbs_put_read(params.pd);
	if (ret)
		goto err_uobj;

	resp.srq_handle = uobj->id;
	resp.max_wr = params.attr.max_wr;
	resp.max_sge = params.attr.max_sge;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

int ib_uverbs_modify_srq(struct uverbs_attr_bundle *attrs,
			 struct ib_device *ib_dev)
{
	struct ib_uverbs_modify_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	ret = uverbs_get_read(&uverbs_srq_object, cmd.srq_handle, attrs, &uobj);
	if (ret)
		return ret;
	attr.max_wr = cmd.max_wr;
	attr.srq_limit = cmd.srq_limit;
	ret = ib_dev->ops.modify_srq(uobj->object, &attr, cmd.attr_mask,
				     &attrs->driver_udata);
	uverbs_put_read(uobj);
	return ret;
}

int ib_uverbs_query_srq(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_query_srq_resp resp = {};
	struct ib_uverbs_query_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	ret = uverbs_get_read(&uverbs_srq_object, cmd.srq_handle, attrs, &uobj);
	if (ret)
		return ret;
	ret = ib_dev->ops.query_srq(uobj->object, &attr);
	uverbs_put_read(uobj);
	if (ret)
		return ret;

	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srq_limit = attr.srq_limit;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

int ib_uverbs_destroy_srq(struct uverbs_attr_bundle *attrs,
			  struct ib_device *ib_dev)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct ib_uverbs_destroy_srq cmd;
	struct ib_usrq_object *usrq;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = __uobj_get_destroy(&uverbs_srq_object, cmd.srq_handle, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	usrq = container_of(uobj, struct ib_usrq_object, uevent.uobject);
	resp.events_reported = usrq->uevent.events_reported;
	uobj_put_destroy(uobj);

	return uverbs_response(attrs, &resp, sizeof(resp));
}

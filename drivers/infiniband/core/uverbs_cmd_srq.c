// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: shared receive queues.  An SRQ holds its PD, an XRC or tag
 * matching SRQ its CQ, an XRC SRQ its XRC domain (ib_core's usecnts) and
 * the domain handle it was made through (ib_uxrcd_object.refcnt); QPs
 * using it hold it in turn (srq->usecnt).
 */

#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_std_types.h>

#include "core_priv.h"
#include "uverbs_write.h"

/*
 * The objects named must be there (-ENOENT, what stock answers for an
 * ioctl attribute left out): a PD, the CQ of the types that have one,
 * the domain of an XRC SRQ.
 */
static int srq_check_users(const struct uverbs_srq_create_params *params)
{
	if (!params->pd)
		return -ENOENT;
	if (ib_srq_has_cq(params->srq_type) && !params->cq)
		return -ENOENT;
	if (params->srq_type == IB_SRQT_XRC && !params->xrcd)
		return -ENOENT;
	return 0;
}

/**
 * uverbs_create_srq() - make the SRQ of a new uobject, for either transport
 * @attrs: the call's bundle (its driver_udata goes to the driver)
 * @ib_dev: the live device
 * @usrq: the uobject, begun by the caller
 * @params: what was asked; on success, @params->attr is what the driver
 *	made, and @params->srqn an XRC SRQ's number
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
	struct ib_srq_init_attr init = {};
	struct ib_srq *srq;
	int ret;

	ret = srq_check_users(params);
	if (ret)
		return ret;

	ib_uverbs_uevent_init(&usrq->uevent, params->event_file);
	init.event_handler = ib_uverbs_srq_event_handler;
	init.srq_type = params->srq_type;
	init.attr = params->attr;
	if (ib_srq_has_cq(params->srq_type))
		init.ext.cq = params->cq->object;
	if (params->srq_type == IB_SRQT_XRC)
		init.ext.xrc.xrcd = params->xrcd->object;
	if (params->srq_type == IB_SRQT_TM)
		init.ext.tag_matching.max_num_tags = params->max_num_tags;

	/* Takes the usecnts of its PD, CQ and domain; tracked as the PD. */
	srq = ib_create_srq_user(params->pd->object, &init, usrq,
				 &attrs->driver_udata);
	if (IS_ERR(srq)) {
		ib_uverbs_uevent_release(&usrq->uevent);
		return PTR_ERR(srq);
	}
	if (params->srq_type == IB_SRQT_XRC) {
		usrq->uxrcd = container_of(params->xrcd,
					   struct ib_uxrcd_object, uobject);
		atomic_inc(&usrq->uxrcd->refcnt);
		params->srqn = srq->ext.xrc.srq_num;
	}
	uobj->object = srq;
	uobj->user_handle = params->user_handle;
	/* The driver answers what it really made. */
	params->attr = init.attr;
	return 0;
}

/* The objects an SRQ uses, claimed for reading while it is created. */
static void srq_put_refs(struct uverbs_srq_create_params *params)
{
	if (params->pd)
		uverbs_put_read(params->pd);
	if (params->cq)
		uverbs_put_read(params->cq);
	if (params->xrcd)
		uverbs_put_read(params->xrcd);
}

/*
 * In stock's order: the domain (a bad handle is -EINVAL), the CQ, the PD
 * (the lookup's errno).
 */
static int srq_get_refs(struct uverbs_attr_bundle *attrs,
			const struct ib_uverbs_create_xsrq *cmd,
			struct uverbs_srq_create_params *params)
{
	int ret;

	if (cmd->srq_type == IB_SRQT_XRC &&
	    uverbs_get_read(&uverbs_xrcd_object, cmd->xrcd_handle, attrs,
			    &params->xrcd))
		return -EINVAL;
	if (ib_srq_has_cq(cmd->srq_type)) {
		ret = uverbs_get_read(&uverbs_cq_object, cmd->cq_handle, attrs,
				      &params->cq);
		if (ret)
			return ret;
	}
	return uverbs_get_read(&uverbs_pd_object, cmd->pd_handle, attrs,
			       &params->pd);
}

/* Both write() forms, CREATE_SRQ's converted. */
static int create_xsrq(struct uverbs_attr_bundle *attrs,
		       struct ib_device *ib_dev,
		       const struct ib_uverbs_create_xsrq *cmd)
{
	struct uverbs_srq_create_params params = {
		.user_handle = cmd->user_handle,
		.srq_type = cmd->srq_type,
		.attr = {
			.max_wr = cmd->max_wr,
			.max_sge = cmd->max_sge,
			.srq_limit = cmd->srq_limit,
		},
		.max_num_tags = cmd->max_num_tags,
		.event_file = ib_uverbs_default_async_file(attrs->ufile),
	};
	struct ib_uverbs_create_srq_resp resp = {};
	struct ib_usrq_object *usrq;
	struct ib_uobject *uobj;
	int ret;

	uobj = rdma_alloc_begin_uobject(&uverbs_srq_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	usrq = container_of(uobj, struct ib_usrq_object, uevent.uobject);

	ret = srq_get_refs(attrs, cmd, &params);
	if (!ret)
		ret = uverbs_create_srq(attrs, ib_dev, usrq, &params);
	srq_put_refs(&params);
	if (ret)
		goto err_uobj;

	resp.srq_handle = uobj->id;
	resp.max_wr = params.attr.max_wr;
	resp.max_sge = params.attr.max_sge;
	resp.srqn = params.srqn;
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

int ib_uverbs_create_srq(struct uverbs_attr_bundle *attrs,
			 struct ib_device *ib_dev)
{
	struct ib_uverbs_create_xsrq xcmd = {};
	struct ib_uverbs_create_srq cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	xcmd.user_handle = cmd.user_handle;
	xcmd.srq_type = IB_SRQT_BASIC;
	xcmd.pd_handle = cmd.pd_handle;
	xcmd.max_wr = cmd.max_wr;
	xcmd.max_sge = cmd.max_sge;
	xcmd.srq_limit = cmd.srq_limit;
	return create_xsrq(attrs, ib_dev, &xcmd);
}

/* Any type: the driver refuses those it cannot make. */
int ib_uverbs_create_xsrq(struct uverbs_attr_bundle *attrs,
			  struct ib_device *ib_dev)
{
	struct ib_uverbs_create_xsrq cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	return create_xsrq(attrs, ib_dev, &cmd);
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

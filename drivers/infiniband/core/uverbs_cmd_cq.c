// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: completion channels and completion queues.
 *
 * A CQ reports to the async event file of its context and, when created
 * with one, notifies a completion channel: it holds the channel's
 * uobject until destroyed, so closing the channel's fd early is safe.
 */

#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_std_types.h>

#include "core_priv.h"
#include "uverbs_write.h"

int ib_uverbs_create_comp_channel(struct uverbs_attr_bundle *attrs,
				  struct ib_device *ib_dev)
{
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct ib_uverbs_completion_event_file *comp_file;
	struct ib_uverbs_create_comp_channel cmd;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = rdma_alloc_begin_uobject(&uverbs_comp_channel_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	comp_file = container_of(uobj, struct ib_uverbs_completion_event_file,
				 uobj);
	ib_uverbs_init_event_queue(&comp_file->ev_queue);

	resp.fd = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, false);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;
}

/**
 * uverbs_create_cq() - make the CQ of a new uobject, for either transport
 * @attrs: the call's bundle (its driver_udata goes to the driver)
 * @ib_dev: the live device
 * @ucq: the uobject, begun by the caller
 * @params: what was asked
 *
 * Return: 0 with @ucq's object set (from here on, aborting the uobject
 * destroys the CQ), or an errno with nothing left to undo but the
 * uobject itself.
 */
int uverbs_create_cq(struct uverbs_attr_bundle *attrs,
		     struct ib_device *ib_dev, struct ib_ucq_object *ucq,
		     const struct uverbs_cq_create_params *params)
{
	struct ib_uverbs_completion_event_file *comp_file = NULL;
	struct ib_uobject *uobj = &ucq->uevent.uobject;
	struct ib_cq_init_attr attr = {};
	struct ib_cq *cq;
	int ret;

	if (params->comp_vector >= attrs->ufile->device->num_comp_vectors)
		return -EINVAL;

	/* The CQ holds the channel's uobject until it is destroyed. */
	if (params->comp_channel) {
		uverbs_uobject_get(params->comp_channel);
		comp_file = container_of(params->comp_channel,
					 struct ib_uverbs_completion_event_file,
					 uobj);
	}
	ucq->comp_file = comp_file;
	INIT_LIST_HEAD(&ucq->comp_list);
	ib_uverbs_uevent_init(&ucq->uevent, params->event_file);

	cq = rdma_zalloc_drv_obj(ib_dev, ib_cq);
	if (!cq) {
		ret = -ENOMEM;
		goto err_events;
	}
	cq->device = ib_dev;
	cq->uobject = ucq;
	cq->comp_handler = ib_uverbs_comp_handler;
	cq->event_handler = ib_uverbs_cq_event_handler;
	cq->cq_context = comp_file ? &comp_file->ev_queue : NULL;
	cq->cqe = params->cqe;
	atomic_set(&cq->usecnt, 0);
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, NULL);

	attr.cqe = params->cqe;
	attr.comp_vector = params->comp_vector;
	attr.flags = params->flags;
	ret = ib_dev->ops.create_cq(cq, &attr, &attrs->driver_udata);
	if (ret)
		goto err_cq;
	rdma_restrack_add(&cq->res);
	uobj->object = cq;
	uobj->user_handle = params->user_handle;
	return 0;

err_cq:
	rdma_restrack_del(&cq->res);
	kfree(cq);
err_events:
	ib_uverbs_ucq_release(ucq);
	return ret;
}

/*
 * Both write() forms of CREATE_CQ, the legacy one converted: the answer
 * is the extended one, of which the legacy caller has room for the base
 * only.
 */
static int create_cq(struct uverbs_attr_bundle *attrs,
		     struct ib_device *ib_dev,
		     const struct ib_uverbs_ex_create_cq *cmd)
{
	struct uverbs_cq_create_params params = {
		.user_handle = cmd->user_handle,
		.cqe = cmd->cqe,
		.comp_vector = cmd->comp_vector,
		.flags = cmd->flags,
		.event_file = ib_uverbs_default_async_file(attrs->ufile),
	};
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_ucq_object *ucq;
	struct ib_uobject *uobj;
	int ret;

	uobj = rdma_alloc_begin_uobject(&uverbs_cq_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ucq = container_of(uobj, struct ib_ucq_object, uevent.uobject);

	if (cmd->comp_channel >= 0) {
		ret = uverbs_get_read(&uverbs_comp_channel_object,
				      cmd->comp_channel, attrs,
				      &params.comp_channel);
		if (ret)
			goto err_uobj;
	}
	ret = uverbs_create_cq(attrs, ib_dev, ucq, &params);
	if (params.comp_channel)
		uverbs_put_read(params.comp_channel);
	if (ret)
		goto err_uobj;

	resp.base.cq_handle = uobj->id;
	resp.base.cqe = ((struct ib_cq *)uobj->object)->cqe;
	resp.response_length = uverbs_response_length(attrs, sizeof(resp));
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		/* Destroys the CQ and drops the channel through its type. */
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

int ib_uverbs_create_cq(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_create_cq cmd_ex = {};
	struct ib_uverbs_create_cq cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	cmd_ex.user_handle = cmd.user_handle;
	cmd_ex.cqe = cmd.cqe;
	cmd_ex.comp_vector = cmd.comp_vector;
	cmd_ex.comp_channel = cmd.comp_channel;
	return create_cq(attrs, ib_dev, &cmd_ex);
}

int ib_uverbs_ex_create_cq(struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_create_cq cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;
	return create_cq(attrs, ib_dev, &cmd);
}

int ib_uverbs_resize_cq(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_resize_cq_resp resp = {};
	struct ib_uverbs_resize_cq cmd;
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	ret = uverbs_get_read(&uverbs_cq_object, cmd.cq_handle, attrs, &uobj);
	if (ret)
		return ret;
	cq = uobj->object;

	ret = ib_dev->ops.resize_cq(cq, cmd.cqe, &attrs->driver_udata);
	if (!ret) {
		resp.cqe = cq->cqe;
		ret = uverbs_response(attrs, &resp, sizeof(resp));
	}
	uverbs_put_read(uobj);
	return ret;
}

/* Answers how many events userspace read, so it knows what to wait for. */
int ib_uverbs_destroy_cq(struct uverbs_attr_bundle *attrs,
			 struct ib_device *ib_dev)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct ib_uverbs_destroy_cq cmd;
	struct ib_ucq_object *ucq;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = __uobj_get_destroy(&uverbs_cq_object, cmd.cq_handle, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ucq = container_of(uobj, struct ib_ucq_object, uevent.uobject);
	resp.comp_events_reported = ucq->comp_events_reported;
	resp.async_events_reported = ucq->uevent.events_reported;
	uobj_put_destroy(uobj);

	return uverbs_response(attrs, &resp, sizeof(resp));
}

int ib_uverbs_req_notify_cq(struct uverbs_attr_bundle *attrs,
			    struct ib_device *ib_dev)
{
	struct ib_uverbs_req_notify_cq cmd;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	ret = uverbs_get_read(&uverbs_cq_object, cmd.cq_handle, attrs, &uobj);
	if (ret)
		return ret;
	/* A positive answer (completions missed) is not the caller's error. */
	ret = ib_dev->ops.req_notify_cq(uobj->object, cmd.solicited_only ?
					IB_CQ_SOLICITED : IB_CQ_NEXT_COMP);
	uverbs_put_read(uobj);
	return ret < 0 ? ret : 0;
}

/* Completion moderation (ibv_modify_cq()): the only attribute there is. */
int ib_uverbs_ex_modify_cq(struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_modify_cq cmd;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!cmd.attr_mask || cmd.reserved)
		return -EINVAL;
	if (cmd.attr_mask & ~IB_CQ_MODERATE)
		return -EOPNOTSUPP;

	ret = uverbs_get_read(&uverbs_cq_object, cmd.cq_handle, attrs, &uobj);
	if (ret)
		return ret;
	ret = rdma_set_cq_moderation(uobj->object, cmd.attr.cq_count,
				     cmd.attr.cq_period);
	uverbs_put_read(uobj);
	return ret;
}

static void copy_wc_to_uverbs(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp->qp_num;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = wc->wc_flags;
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = ib_lid_cpu16(wc->slid);
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}

/*
 * Up to @ne completions, as many as the response has room for, after
 * a header saying how many.
 */
int ib_uverbs_poll_cq(struct uverbs_attr_bundle *attrs,
		      struct ib_device *ib_dev)
{
	struct ib_uverbs_poll_cq_resp resp = {};
	struct ib_uverbs_poll_cq cmd;
	struct ib_uverbs_wc __user *uwcs;
	struct ib_uobject *uobj;
	struct ib_uverbs_wc uwc;
	struct ib_wc wc;
	size_t room;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	ret = uverbs_get_read(&uverbs_cq_object, cmd.cq_handle, attrs, &uobj);
	if (ret)
		return ret;

	uwcs = attrs->ucore.outbuf + sizeof(resp);
	room = (attrs->ucore.outlen - sizeof(resp)) / sizeof(uwc);
	while (resp.count < cmd.ne && resp.count < room) {
		ret = ib_dev->ops.poll_cq(uobj->object, 1, &wc);
		if (ret < 0)
			goto out;
		if (!ret)
			break;
		memset(&uwc, 0, sizeof(uwc));
		copy_wc_to_uverbs(&uwc, &wc);
		if (copy_to_user(&uwcs[resp.count], &uwc, sizeof(uwc))) {
			ret = -EFAULT;
			goto out;
		}
		resp.count++;
	}
	ret = copy_to_user(attrs->ucore.outbuf, &resp, sizeof(resp)) ?
		-EFAULT : 0;
out:
	uverbs_put_read(uobj);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the write() commands.
 *
 * A write() carries one command: struct ib_uverbs_cmd_hdr, then for the
 * legacy commands the request (its first u64 the address of the
 * response, when the command has one) and the driver's data; for the
 * extended ones (IB_USER_VERBS_CMD_FLAG_EXTENDED) struct
 * ib_uverbs_ex_cmd_hdr, the request and the driver's data, the sizes in
 * 8-byte words and the response address in the extended header.
 *
 * Each command is a table entry giving the sizes of its core request and
 * response: the dispatcher checks the headers against them, splits the
 * buffers into the core part (attrs->ucore) and the driver's part
 * (attrs->driver_udata), and calls the handler inside the SRCU read
 * section that keeps the ib_device.
 */

#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/uaccess.h>
#include <rdma/ib.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "core_priv.h"
#include "uverbs.h"
#include "uverbs_write.h"

/**
 * struct uverbs_write_cmd - one write() command
 * @handler: does the command; @ib_dev is live for its whole run, but for
 *	a destroy after the device went, when it is NULL
 * @req_size: minimum size of the core request (without the headers); for
 *	a legacy command with driver data also where that data begins
 * @resp_size: minimum room for the core response; for a legacy command
 *	with driver data also where the driver's response begins
 * @has_resp: the command answers through a response buffer
 * @has_udata: the driver gets the data after the core request/response
 * @no_ucontext: the command runs before the file has a user context
 * @destroys: a destroy, which still runs once the device is gone
 * @needs_fn: offset in struct ib_device of the op the command needs,
 *	0 for none; a device without it answers -EOPNOTSUPP
 * @needs_fn2: a second one, 0 for none (an XRC domain's commands need
 *	both its ops)
 */
struct uverbs_write_cmd {
	int (*handler)(struct uverbs_attr_bundle *attrs,
		       struct ib_device *ib_dev);
	u16 req_size;
	u16 resp_size;
	u8 has_resp:1;
	u8 has_udata:1;
	u8 no_ucontext:1;
	u8 destroys:1;
	size_t needs_fn;
	size_t needs_fn2;
};

/*
 * Copy the core request into @req (@req_len bytes): a shorter one is
 * zero-extended, a longer one must be zero past what we know, else
 * -EOPNOTSUPP (a newer userspace asking for something we cannot do).
 */
int uverbs_request(struct uverbs_attr_bundle *attrs, void *req,
		   size_t req_len)
{
	size_t len = min(attrs->ucore.inlen, req_len);

	if (copy_from_user(req, attrs->ucore.inbuf, len))
		return -EFAULT;
	memset(req + len, 0, req_len - len);

	if (attrs->ucore.inlen > req_len &&
	    !ib_is_buffer_cleared(attrs->ucore.inbuf + req_len,
				  attrs->ucore.inlen - req_len))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * A command whose core request ends in an array (CREATE_FLOW's specs,
 * CREATE_RWQ_IND_TBL's WQ handles) reads it in parts: the fixed head,
 * which must be all there (-ENOSPC); then the array at its offset, also
 * all there (-ENOSPC); then whatever follows must be zero (-EOPNOTSUPP,
 * as for uverbs_request()).
 */
int uverbs_request_head(struct uverbs_attr_bundle *attrs, void *req,
			size_t req_len)
{
	if (attrs->ucore.inlen < req_len)
		return -ENOSPC;
	if (copy_from_user(req, attrs->ucore.inbuf, req_len))
		return -EFAULT;
	return 0;
}

int uverbs_request_part(struct uverbs_attr_bundle *attrs, size_t offset,
			void *buf, size_t len)
{
	if (offset > attrs->ucore.inlen || len > attrs->ucore.inlen - offset)
		return -ENOSPC;
	if (copy_from_user(buf, attrs->ucore.inbuf + offset, len))
		return -EFAULT;
	return 0;
}

int uverbs_request_rest(struct uverbs_attr_bundle *attrs, size_t offset)
{
	if (offset >= attrs->ucore.inlen)
		return 0;
	if (!ib_is_buffer_cleared(attrs->ucore.inbuf + offset,
				  attrs->ucore.inlen - offset))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Copy the core response: as much of @resp as the caller has room for;
 * room beyond @resp_len is zeroed, so an older kernel's answer reads as
 * "not supported" fields.
 */
int uverbs_response(struct uverbs_attr_bundle *attrs, const void *resp,
		    size_t resp_len)
{
	size_t len = min(attrs->ucore.outlen, resp_len);

	if (copy_to_user(attrs->ucore.outbuf, resp, len))
		return -EFAULT;
	if (attrs->ucore.outlen > len &&
	    clear_user(attrs->ucore.outbuf + len, attrs->ucore.outlen - len))
		return -EFAULT;
	return 0;
}

u32 uverbs_response_length(struct uverbs_attr_bundle *attrs,
			   size_t resp_len)
{
	return min_t(size_t, attrs->ucore.outlen, resp_len);
}

/* ---------------------------------------------------------------- */
/* Commands                                                         */

static int ib_uverbs_get_context(struct uverbs_attr_bundle *attrs,
				 struct ib_device *ib_dev)
{
	struct ib_uverbs_get_context_resp resp = {};
	struct ib_uverbs_get_context cmd;
	struct file *filp;
	int ret;
	int fd;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	filp = ib_uverbs_alloc_context(attrs, ib_dev, &fd);
	if (IS_ERR(filp))
		return PTR_ERR(filp);

	resp.async_fd = fd;
	resp.num_comp_vectors = attrs->ufile->device->num_comp_vectors;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		ib_uverbs_abort_context(attrs, filp, fd);
		return ret;
	}
	ib_uverbs_commit_context(attrs, filp, fd);
	return 0;
}

static void copy_query_dev_fields(struct ib_device *ib_dev,
				  struct ib_uverbs_query_device_resp *resp,
				  const struct ib_device_attr *attr)
{
	resp->fw_ver = attr->fw_ver;
	resp->node_guid = ib_dev->node_guid;
	resp->sys_image_guid = attr->sys_image_guid;
	resp->max_mr_size = attr->max_mr_size;
	resp->page_size_cap = attr->page_size_cap;
	resp->vendor_id = attr->vendor_id;
	resp->vendor_part_id = attr->vendor_part_id;
	resp->hw_ver = attr->hw_ver;
	resp->max_qp = attr->max_qp;
	resp->max_qp_wr = attr->max_qp_wr;
	/* The legacy field has room for the low 32 flags only. */
	resp->device_cap_flags = lower_32_bits(attr->device_cap_flags);
	resp->max_sge = min(attr->max_send_sge, attr->max_recv_sge);
	resp->max_sge_rd = attr->max_sge_rd;
	resp->max_cq = attr->max_cq;
	resp->max_cqe = attr->max_cqe;
	resp->max_mr = attr->max_mr;
	resp->max_pd = attr->max_pd;
	resp->max_qp_rd_atom = attr->max_qp_rd_atom;
	resp->max_ee_rd_atom = attr->max_ee_rd_atom;
	resp->max_res_rd_atom = attr->max_res_rd_atom;
	resp->max_qp_init_rd_atom = attr->max_qp_init_rd_atom;
	resp->max_ee_init_rd_atom = attr->max_ee_init_rd_atom;
	resp->atomic_cap = attr->atomic_cap;
	resp->max_ee = attr->max_ee;
	resp->max_rdd = attr->max_rdd;
	resp->max_mw = attr->max_mw;
	resp->max_raw_ipv6_qp = attr->max_raw_ipv6_qp;
	resp->max_raw_ethy_qp = attr->max_raw_ethy_qp;
	resp->max_mcast_grp = attr->max_mcast_grp;
	resp->max_mcast_qp_attach = attr->max_mcast_qp_attach;
	resp->max_total_mcast_qp_attach = attr->max_total_mcast_qp_attach;
	resp->max_ah = attr->max_ah;
	resp->max_srq = attr->max_srq;
	resp->max_srq_wr = attr->max_srq_wr;
	resp->max_srq_sge = attr->max_srq_sge;
	resp->max_pkeys = attr->max_pkeys;
	resp->local_ca_ack_delay = attr->local_ca_ack_delay;
	resp->phys_port_cnt = min_t(u32, rdma_end_port(ib_dev), U8_MAX);
}

/* The attributes the core cached at registration, as stock answers. */
static int ib_uverbs_query_device(struct uverbs_attr_bundle *attrs,
				  struct ib_device *ib_dev)
{
	struct ib_uverbs_query_device_resp resp = {};
	struct ib_uverbs_query_device cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	copy_query_dev_fields(ib_dev, &resp, &ib_dev->attrs);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

static void copy_query_dev_ex_fields(struct ib_uverbs_ex_query_device_resp *resp,
				     const struct ib_device_attr *attr)
{
	resp->odp_caps.general_caps = attr->odp_caps.general_caps;
	resp->odp_caps.per_transport_caps.rc_odp_caps =
		attr->odp_caps.per_transport_caps.rc_odp_caps;
	resp->odp_caps.per_transport_caps.uc_odp_caps =
		attr->odp_caps.per_transport_caps.uc_odp_caps;
	resp->odp_caps.per_transport_caps.ud_odp_caps =
		attr->odp_caps.per_transport_caps.ud_odp_caps;
	resp->xrc_odp_caps = attr->odp_caps.per_transport_caps.xrc_odp_caps;
	resp->timestamp_mask = attr->timestamp_mask;
	resp->hca_core_clock = attr->hca_core_clock;
	resp->device_cap_flags_ex = attr->device_cap_flags;
	resp->rss_caps.supported_qpts = attr->rss_caps.supported_qpts;
	resp->rss_caps.max_rwq_indirection_tables =
		attr->rss_caps.max_rwq_indirection_tables;
	resp->rss_caps.max_rwq_indirection_table_size =
		attr->rss_caps.max_rwq_indirection_table_size;
	resp->max_wq_type_rq = attr->max_wq_type_rq;
	resp->raw_packet_caps = attr->raw_packet_caps;
	resp->tm_caps.max_rndv_hdr_size = attr->tm_caps.max_rndv_hdr_size;
	resp->tm_caps.max_num_tags = attr->tm_caps.max_num_tags;
	resp->tm_caps.flags = attr->tm_caps.flags;
	resp->tm_caps.max_ops = attr->tm_caps.max_ops;
	resp->tm_caps.max_sge = attr->tm_caps.max_sge;
	resp->cq_moderation_caps.max_cq_moderation_count =
		attr->cq_caps.max_cq_moderation_count;
	resp->cq_moderation_caps.max_cq_moderation_period =
		attr->cq_caps.max_cq_moderation_period;
	resp->max_dm_size = attr->max_dm_size;
}

/* Asks the driver afresh, with the caller's driver data. */
static int ib_uverbs_ex_query_device(struct uverbs_attr_bundle *attrs,
				     struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct ib_uverbs_ex_query_device cmd;
	struct ib_device_attr attr = {};
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;

	ret = ib_dev->ops.query_device(ib_dev, &attr, &attrs->driver_udata);
	if (ret)
		return ret;

	copy_query_dev_fields(ib_dev, &resp.base, &attr);
	copy_query_dev_ex_fields(&resp, &attr);
	/* How much of the answer userspace gets: what it has room for. */
	resp.response_length = uverbs_response_length(attrs, sizeof(resp));
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/*
 * IBA CapabilityMask bit 26 is reported as "IP based GIDs" to userspace,
 * from attr->ip_gids; every other bit passes through.
 */
static u32 uverbs_port_cap_flags(const struct ib_port_attr *attr)
{
	u32 flags = attr->port_cap_flags & ~(u32)IB_UVERBS_PCF_IP_BASED_GIDS;

	if (attr->ip_gids)
		flags |= IB_UVERBS_PCF_IP_BASED_GIDS;
	return flags;
}

void uverbs_copy_port_attr(struct ib_device *ib_dev, u32 port_num,
			   const struct ib_port_attr *attr,
			   struct ib_uverbs_query_port_resp *resp)
{
	resp->state = attr->state;
	resp->max_mtu = attr->max_mtu;
	resp->active_mtu = attr->active_mtu;
	resp->gid_tbl_len = attr->gid_tbl_len;
	resp->port_cap_flags = uverbs_port_cap_flags(attr);
	resp->max_msg_sz = attr->max_msg_sz;
	resp->bad_pkey_cntr = attr->bad_pkey_cntr;
	resp->qkey_viol_cntr = attr->qkey_viol_cntr;
	resp->pkey_tbl_len = attr->pkey_tbl_len;
	/* 16-bit LIDs only; OPA's 32-bit ones do not fit this ABI. */
	resp->lid = (u16)attr->lid;
	resp->sm_lid = (u16)attr->sm_lid;
	resp->lmc = attr->lmc;
	resp->max_vl_num = attr->max_vl_num;
	resp->sm_sl = attr->sm_sl;
	resp->subnet_timeout = attr->subnet_timeout;
	resp->init_type_reply = attr->init_type_reply;
	resp->active_width = attr->active_width;
	resp->active_speed = attr->active_speed;
	resp->phys_state = attr->phys_state;
	resp->link_layer = rdma_port_get_link_layer(ib_dev, port_num);
	if (rdma_is_grh_required(ib_dev, port_num))
		resp->flags |= IB_UVERBS_QPF_GRH_REQUIRED;
}

static int ib_uverbs_query_port(struct uverbs_attr_bundle *attrs,
				struct ib_device *ib_dev)
{
	struct ib_uverbs_query_port_resp resp = {};
	struct ib_uverbs_query_port cmd;
	struct ib_port_attr attr;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	ret = ib_query_port(ib_dev, cmd.port_num, &attr);
	if (ret)
		return ret;

	uverbs_copy_port_attr(ib_dev, cmd.port_num, &attr, &resp);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/*
 * A user PD: the core allocates the driver's object, the driver sets it
 * up with the caller's driver data, and only then is it tracked (rdma
 * res shows it, owned by the calling task) and its handle published.
 */
static int ib_uverbs_alloc_pd(struct uverbs_attr_bundle *attrs,
			      struct ib_device *ib_dev)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ib_uverbs_alloc_pd cmd;
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = rdma_alloc_begin_uobject(&uverbs_pd_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	pd = rdma_zalloc_drv_obj(ib_dev, ib_pd);
	if (!pd) {
		ret = -ENOMEM;
		goto err_uobj;
	}
	pd->device = ib_dev;
	pd->uobject = uobj;
	atomic_set(&pd->usecnt, 0);
	rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
	rdma_restrack_set_name(&pd->res, NULL);

	ret = ib_dev->ops.alloc_pd(pd, &attrs->driver_udata);
	if (ret)
		goto err_pd;
	uobj->object = pd;
	rdma_restrack_add(&pd->res);

	resp.pd_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		/* Destroys the PD through its type. */
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_pd:
	rdma_restrack_del(&pd->res);
	kfree(pd);
err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

static int ib_uverbs_dealloc_pd(struct uverbs_attr_bundle *attrs,
				struct ib_device *ib_dev)
{
	struct ib_uverbs_dealloc_pd cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	return __uobj_perform_destroy(&uverbs_pd_object, cmd.pd_handle, attrs);
}

/* ---------------------------------------------------------------- */
/* Dispatch                                                         */

#define UVERBS_NEEDS_FN(fn) offsetof(struct ib_device, ops.fn)

/*
 * Indexed by command number, sized by the uapi enums: a number in range
 * without a handler is a command we do not implement, which answers
 * -EOPNOTSUPP once its header checks as a legacy one (as stock's).
 */
static const struct uverbs_write_cmd uverbs_write_cmds[IB_USER_VERBS_CMD_OPEN_QP + 1] = {
	[IB_USER_VERBS_CMD_GET_CONTEXT] = {
		.handler = ib_uverbs_get_context,
		.req_size = sizeof(struct ib_uverbs_get_context),
		.resp_size = sizeof(struct ib_uverbs_get_context_resp),
		.has_resp = 1,
		.has_udata = 1,
		.no_ucontext = 1,
		.needs_fn = UVERBS_NEEDS_FN(alloc_ucontext),
	},
	[IB_USER_VERBS_CMD_QUERY_DEVICE] = {
		.handler = ib_uverbs_query_device,
		.req_size = sizeof(struct ib_uverbs_query_device),
		.resp_size = sizeof(struct ib_uverbs_query_device_resp),
		.has_resp = 1,
	},
	[IB_USER_VERBS_CMD_QUERY_PORT] = {
		.handler = ib_uverbs_query_port,
		.req_size = sizeof(struct ib_uverbs_query_port),
		.resp_size = sizeof(struct ib_uverbs_query_port_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(query_port),
	},
	[IB_USER_VERBS_CMD_ALLOC_PD] = {
		.handler = ib_uverbs_alloc_pd,
		.req_size = sizeof(struct ib_uverbs_alloc_pd),
		.resp_size = sizeof(struct ib_uverbs_alloc_pd_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(alloc_pd),
	},
	[IB_USER_VERBS_CMD_DEALLOC_PD] = {
		.handler = ib_uverbs_dealloc_pd,
		.destroys = 1,
		.req_size = sizeof(struct ib_uverbs_dealloc_pd),
		/* Without a context no handle exists: -ENOENT, as stock. */
		.no_ucontext = 1,
		.needs_fn = UVERBS_NEEDS_FN(dealloc_pd),
	},
	[IB_USER_VERBS_CMD_CREATE_AH] = {
		.handler = ib_uverbs_create_ah,
		.req_size = sizeof(struct ib_uverbs_create_ah),
		.resp_size = sizeof(struct ib_uverbs_create_ah_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_user_ah),
	},
	[IB_USER_VERBS_CMD_DESTROY_AH] = {
		.handler = ib_uverbs_destroy_ah,
		.destroys = 1,
		.req_size = sizeof(struct ib_uverbs_destroy_ah),
		.needs_fn = UVERBS_NEEDS_FN(destroy_ah),
	},
	[IB_USER_VERBS_CMD_REG_MR] = {
		.handler = ib_uverbs_reg_mr,
		.req_size = sizeof(struct ib_uverbs_reg_mr),
		.resp_size = sizeof(struct ib_uverbs_reg_mr_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(reg_user_mr),
	},
	[IB_USER_VERBS_CMD_REREG_MR] = {
		.handler = ib_uverbs_rereg_mr,
		.req_size = sizeof(struct ib_uverbs_rereg_mr),
		.resp_size = sizeof(struct ib_uverbs_rereg_mr_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(rereg_user_mr),
	},
	[IB_USER_VERBS_CMD_DEREG_MR] = {
		.handler = ib_uverbs_dereg_mr,
		.destroys = 1,
		.req_size = sizeof(struct ib_uverbs_dereg_mr),
		.needs_fn = UVERBS_NEEDS_FN(dereg_mr),
	},
	[IB_USER_VERBS_CMD_ALLOC_MW] = {
		.handler = ib_uverbs_alloc_mw,
		.req_size = sizeof(struct ib_uverbs_alloc_mw),
		.resp_size = sizeof(struct ib_uverbs_alloc_mw_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(alloc_mw),
	},
	[IB_USER_VERBS_CMD_DEALLOC_MW] = {
		.handler = ib_uverbs_dealloc_mw,
		.destroys = 1,
		.req_size = sizeof(struct ib_uverbs_dealloc_mw),
		.needs_fn = UVERBS_NEEDS_FN(dealloc_mw),
	},
	[IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL] = {
		.handler = ib_uverbs_create_comp_channel,
		.req_size = sizeof(struct ib_uverbs_create_comp_channel),
		.resp_size = sizeof(struct ib_uverbs_create_comp_channel_resp),
		.has_resp = 1,
	},
	[IB_USER_VERBS_CMD_CREATE_CQ] = {
		.handler = ib_uverbs_create_cq,
		.req_size = sizeof(struct ib_uverbs_create_cq),
		.resp_size = sizeof(struct ib_uverbs_create_cq_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_cq),
	},
	[IB_USER_VERBS_CMD_RESIZE_CQ] = {
		.handler = ib_uverbs_resize_cq,
		.req_size = sizeof(struct ib_uverbs_resize_cq),
		.resp_size = sizeof(struct ib_uverbs_resize_cq_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(resize_cq),
	},
	[IB_USER_VERBS_CMD_DESTROY_CQ] = {
		.handler = ib_uverbs_destroy_cq,
		.destroys = 1,
		.req_size = sizeof(struct ib_uverbs_destroy_cq),
		.resp_size = sizeof(struct ib_uverbs_destroy_cq_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(destroy_cq),
	},
	[IB_USER_VERBS_CMD_POLL_CQ] = {
		.handler = ib_uverbs_poll_cq,
		.req_size = sizeof(struct ib_uverbs_poll_cq),
		.resp_size = sizeof(struct ib_uverbs_poll_cq_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(poll_cq),
	},
	[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] = {
		.handler = ib_uverbs_req_notify_cq,
		.req_size = sizeof(struct ib_uverbs_req_notify_cq),
		.needs_fn = UVERBS_NEEDS_FN(req_notify_cq),
	},
	[IB_USER_VERBS_CMD_CREATE_QP] = {
		.handler = ib_uverbs_create_qp,
		.req_size = sizeof(struct ib_uverbs_create_qp),
		.resp_size = sizeof(struct ib_uverbs_create_qp_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_qp),
	},
	[IB_USER_VERBS_CMD_QUERY_QP] = {
		.handler = ib_uverbs_query_qp,
		.req_size = sizeof(struct ib_uverbs_query_qp),
		.resp_size = sizeof(struct ib_uverbs_query_qp_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(query_qp),
	},
	[IB_USER_VERBS_CMD_MODIFY_QP] = {
		.handler = ib_uverbs_modify_qp,
		.req_size = sizeof(struct ib_uverbs_modify_qp),
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(modify_qp),
	},
	[IB_USER_VERBS_CMD_DESTROY_QP] = {
		.handler = ib_uverbs_destroy_qp,
		.destroys = 1,
		.req_size = sizeof(struct ib_uverbs_destroy_qp),
		.resp_size = sizeof(struct ib_uverbs_destroy_qp_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(destroy_qp),
	},
	[IB_USER_VERBS_CMD_POST_SEND] = {
		.handler = ib_uverbs_post_send,
		.req_size = sizeof(struct ib_uverbs_post_send),
		.resp_size = sizeof(struct ib_uverbs_post_send_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(post_send),
	},
	[IB_USER_VERBS_CMD_POST_RECV] = {
		.handler = ib_uverbs_post_recv,
		.req_size = sizeof(struct ib_uverbs_post_recv),
		.resp_size = sizeof(struct ib_uverbs_post_recv_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(post_recv),
	},
	[IB_USER_VERBS_CMD_ATTACH_MCAST] = {
		.handler = ib_uverbs_attach_mcast,
		.req_size = sizeof(struct ib_uverbs_attach_mcast),
		.needs_fn = UVERBS_NEEDS_FN(attach_mcast),
	},
	[IB_USER_VERBS_CMD_DETACH_MCAST] = {
		.handler = ib_uverbs_detach_mcast,
		.req_size = sizeof(struct ib_uverbs_detach_mcast),
		.needs_fn = UVERBS_NEEDS_FN(detach_mcast),
	},
	[IB_USER_VERBS_CMD_CREATE_SRQ] = {
		.handler = ib_uverbs_create_srq,
		.req_size = sizeof(struct ib_uverbs_create_srq),
		.resp_size = sizeof(struct ib_uverbs_create_srq_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_srq),
	},
	[IB_USER_VERBS_CMD_MODIFY_SRQ] = {
		.handler = ib_uverbs_modify_srq,
		.req_size = sizeof(struct ib_uverbs_modify_srq),
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(modify_srq),
	},
	[IB_USER_VERBS_CMD_QUERY_SRQ] = {
		.handler = ib_uverbs_query_srq,
		.req_size = sizeof(struct ib_uverbs_query_srq),
		.resp_size = sizeof(struct ib_uverbs_query_srq_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(query_srq),
	},
	[IB_USER_VERBS_CMD_DESTROY_SRQ] = {
		.handler = ib_uverbs_destroy_srq,
		.destroys = 1,
		.req_size = sizeof(struct ib_uverbs_destroy_srq),
		.resp_size = sizeof(struct ib_uverbs_destroy_srq_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(destroy_srq),
	},
	[IB_USER_VERBS_CMD_POST_SRQ_RECV] = {
		.handler = ib_uverbs_post_srq_recv,
		.req_size = sizeof(struct ib_uverbs_post_srq_recv),
		.resp_size = sizeof(struct ib_uverbs_post_srq_recv_resp),
		.has_resp = 1,
		.needs_fn = UVERBS_NEEDS_FN(post_srq_recv),
	},
	[IB_USER_VERBS_CMD_OPEN_XRCD] = {
		.handler = ib_uverbs_open_xrcd,
		.req_size = sizeof(struct ib_uverbs_open_xrcd),
		.resp_size = sizeof(struct ib_uverbs_open_xrcd_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(alloc_xrcd),
		.needs_fn2 = UVERBS_NEEDS_FN(dealloc_xrcd),
	},
	[IB_USER_VERBS_CMD_CLOSE_XRCD] = {
		.handler = ib_uverbs_close_xrcd,
		.destroys = 1,
		.req_size = sizeof(struct ib_uverbs_close_xrcd),
		/* Without a context no handle exists: -ENOENT, as DEALLOC_PD. */
		.no_ucontext = 1,
		.needs_fn = UVERBS_NEEDS_FN(alloc_xrcd),
		.needs_fn2 = UVERBS_NEEDS_FN(dealloc_xrcd),
	},
	[IB_USER_VERBS_CMD_CREATE_XSRQ] = {
		.handler = ib_uverbs_create_xsrq,
		.req_size = sizeof(struct ib_uverbs_create_xsrq),
		.resp_size = sizeof(struct ib_uverbs_create_srq_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_srq),
	},
	/* Stock lists it with the XRC domain's commands: it needs the same. */
	[IB_USER_VERBS_CMD_OPEN_QP] = {
		.handler = ib_uverbs_open_qp,
		.req_size = sizeof(struct ib_uverbs_open_qp),
		.resp_size = sizeof(struct ib_uverbs_create_qp_resp),
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(alloc_xrcd),
		.needs_fn2 = UVERBS_NEEDS_FN(dealloc_xrcd),
	},
};

static const struct uverbs_write_cmd
uverbs_write_ex_cmds[IB_USER_VERBS_EX_CMD_MODIFY_CQ + 1] = {
	/*
	 * Extended commands of any size, as stock: a shorter request reads
	 * as zeros past its end, the answer is as long as the room for it.
	 */
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = {
		.handler = ib_uverbs_ex_query_device,
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(query_device),
	},
	[IB_USER_VERBS_EX_CMD_CREATE_CQ] = {
		.handler = ib_uverbs_ex_create_cq,
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_cq),
	},
	[IB_USER_VERBS_EX_CMD_CREATE_QP] = {
		.handler = ib_uverbs_ex_create_qp,
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_qp),
	},
	[IB_USER_VERBS_EX_CMD_MODIFY_QP] = {
		.handler = ib_uverbs_ex_modify_qp,
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(modify_qp),
	},
	[IB_USER_VERBS_EX_CMD_CREATE_FLOW] = {
		.handler = ib_uverbs_ex_create_flow,
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_flow),
	},
	[IB_USER_VERBS_EX_CMD_DESTROY_FLOW] = {
		.handler = ib_uverbs_ex_destroy_flow,
		.destroys = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(destroy_flow),
	},
	[IB_USER_VERBS_EX_CMD_CREATE_WQ] = {
		.handler = ib_uverbs_ex_create_wq,
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_wq),
	},
	[IB_USER_VERBS_EX_CMD_MODIFY_WQ] = {
		.handler = ib_uverbs_ex_modify_wq,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(modify_wq),
	},
	[IB_USER_VERBS_EX_CMD_DESTROY_WQ] = {
		.handler = ib_uverbs_ex_destroy_wq,
		.destroys = 1,
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(destroy_wq),
	},
	[IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL] = {
		.handler = ib_uverbs_ex_create_rwq_ind_table,
		.has_resp = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(create_rwq_ind_table),
	},
	[IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL] = {
		.handler = ib_uverbs_ex_destroy_rwq_ind_table,
		.destroys = 1,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(destroy_rwq_ind_table),
	},
	[IB_USER_VERBS_EX_CMD_MODIFY_CQ] = {
		.handler = ib_uverbs_ex_modify_cq,
		.has_udata = 1,
		.needs_fn = UVERBS_NEEDS_FN(modify_cq),
	},
};

static int ib_uverbs_notsupp(struct uverbs_attr_bundle *attrs,
			     struct ib_device *ib_dev)
{
	return -EOPNOTSUPP;
}

static const struct uverbs_write_cmd uverbs_write_notsupp = {
	.handler = ib_uverbs_notsupp,
	.no_ucontext = 1,
};

/*
 * The command @command names: -EINVAL when bits other than the number
 * and the extended flag are set, -EOPNOTSUPP for a number past the
 * table; uverbs_write_notsupp for a hole in it.
 */
static const struct uverbs_write_cmd *uverbs_write_lookup(u32 command)
{
	u32 num = command & IB_USER_VERBS_CMD_COMMAND_MASK;
	const struct uverbs_write_cmd *table = uverbs_write_cmds;
	size_t size = ARRAY_SIZE(uverbs_write_cmds);

	if (command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			IB_USER_VERBS_CMD_COMMAND_MASK))
		return ERR_PTR(-EINVAL);

	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		table = uverbs_write_ex_cmds;
		size = ARRAY_SIZE(uverbs_write_ex_cmds);
	}
	if (num >= size)
		return ERR_PTR(-EOPNOTSUPP);
	num = array_index_nospec(num, size);
	if (!table[num].handler)
		return &uverbs_write_notsupp;
	return &table[num];
}

static bool uverbs_device_has_op(const struct ib_device *ib_dev,
				 size_t offset)
{
	const void *fn;

	if (!offset)
		return true;
	memcpy(&fn, (const u8 *)ib_dev + offset, sizeof(fn));
	return fn;
}

static bool uverbs_device_has_fn(const struct ib_device *ib_dev,
				 const struct uverbs_write_cmd *cmd)
{
	return uverbs_device_has_op(ib_dev, cmd->needs_fn) &&
	       uverbs_device_has_op(ib_dev, cmd->needs_fn2);
}

/*
 * Whether @ib_dev serves @command: it has the op the command needs and,
 * for a legacy command, has it in its uverbs_cmd_mask (ib_core sets the
 * commands every device serves; drivers add the data path ones they do
 * in the kernel).  Stock answers -EOPNOTSUPP otherwise, before looking
 * at the request.
 */
static bool uverbs_cmd_enabled(const struct ib_device *ib_dev,
			       const struct uverbs_write_cmd *cmd, u32 command)
{
	u32 num = command & IB_USER_VERBS_CMD_COMMAND_MASK;

	if (cmd == &uverbs_write_notsupp || !uverbs_device_has_fn(ib_dev, cmd))
		return false;
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		return true;
	return ib_dev->uverbs_cmd_mask & BIT_ULL(num);
}

/*
 * A legacy command: sizes in 4-byte words, the header included in
 * in_words; the response address is the request's first u64.
 */
static int uverbs_parse_legacy(const struct uverbs_write_cmd *cmd,
			       const struct ib_uverbs_cmd_hdr *hdr,
			       const char __user *buf, size_t count,
			       struct uverbs_attr_bundle *attrs)
{
	size_t in_len = count - sizeof(*hdr);
	size_t out_len = hdr->out_words * 4;
	u64 response = 0;

	if (hdr->in_words * 4 != count)
		return -EINVAL;
	if (in_len < cmd->req_size)
		return -ENOSPC;
	if (cmd->has_resp && out_len < cmd->resp_size)
		return -ENOSPC;

	buf += sizeof(*hdr);
	if (cmd->has_resp && get_user(response, (const u64 __user *)buf))
		return -EFAULT;

	if (cmd->has_udata) {
		attrs->driver_udata.inlen = in_len - cmd->req_size;
		if (attrs->driver_udata.inlen)
			attrs->driver_udata.inbuf = buf + cmd->req_size;
		in_len = cmd->req_size;
		if (cmd->has_resp) {
			attrs->driver_udata.outlen = out_len - cmd->resp_size;
			if (attrs->driver_udata.outlen)
				attrs->driver_udata.outbuf =
					u64_to_user_ptr(response +
							cmd->resp_size);
			out_len = cmd->resp_size;
		}
	}
	if (!cmd->has_resp)
		out_len = 0;

	attrs->ucore.inbuf = buf;
	attrs->ucore.inlen = in_len;
	attrs->ucore.outbuf = out_len ? u64_to_user_ptr(response) : NULL;
	attrs->ucore.outlen = out_len;
	if (out_len && !access_ok(attrs->ucore.outbuf, hdr->out_words * 4))
		return -EFAULT;
	return 0;
}

/*
 * An extended command: struct ib_uverbs_ex_cmd_hdr follows, sizes are
 * in 8-byte words without the headers, core and driver parts counted
 * apart, and the response address is in the extended header.
 */
static int uverbs_parse_ex(const struct uverbs_write_cmd *cmd,
			   const struct ib_uverbs_cmd_hdr *hdr,
			   const char __user *buf, size_t count,
			   struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
	size_t out_len = hdr->out_words * 8;
	size_t in_len = hdr->in_words * 8;
	void __user *response;

	if (count < sizeof(*hdr) + sizeof(ex_hdr))
		return -EINVAL;
	buf += sizeof(*hdr);
	if (copy_from_user(&ex_hdr, buf, sizeof(ex_hdr)))
		return -EFAULT;
	buf += sizeof(ex_hdr);
	count -= sizeof(*hdr) + sizeof(ex_hdr);

	if ((hdr->in_words + ex_hdr.provider_in_words) * 8 != count)
		return -EINVAL;
	if (in_len < cmd->req_size)
		return -ENOSPC;
	if (ex_hdr.cmd_hdr_reserved)
		return -EINVAL;

	response = u64_to_user_ptr(ex_hdr.response);
	if (ex_hdr.response) {
		if (!hdr->out_words && !ex_hdr.provider_out_words)
			return -EINVAL;
		if (out_len < cmd->resp_size)
			return -ENOSPC;
		if (!access_ok(response,
			       (hdr->out_words + ex_hdr.provider_out_words) * 8))
			return -EFAULT;
	} else if (hdr->out_words || ex_hdr.provider_out_words) {
		return -EINVAL;
	}

	attrs->ucore.inbuf = buf;
	attrs->ucore.inlen = in_len;
	attrs->ucore.outbuf = response;
	attrs->ucore.outlen = out_len;
	if (ex_hdr.provider_in_words) {
		attrs->driver_udata.inbuf = buf + in_len;
		attrs->driver_udata.inlen = ex_hdr.provider_in_words * 8;
	}
	if (ex_hdr.provider_out_words) {
		attrs->driver_udata.outbuf = response + out_len;
		attrs->driver_udata.outlen = ex_hdr.provider_out_words * 8;
	}
	return 0;
}

/* Runs @cmd on @ib_dev, which the caller keeps live (SRCU). */
static int uverbs_call_cmd(const struct uverbs_write_cmd *cmd,
			   struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	if (!cmd->no_ucontext) {
		attrs->context = ib_uverbs_get_ucontext_file(attrs->ufile);
		if (IS_ERR(attrs->context)) {
			int ret = PTR_ERR(attrs->context);

			attrs->context = NULL;
			return ret;
		}
	}
	return cmd->handler(attrs, ib_dev);
}

/**
 * uverbs_invoke_write() - run a write() command for UVERBS_METHOD_INVOKE_WRITE
 * @attrs: the ioctl's bundle, with ->ufile set and ->ucore and
 *	->driver_udata taken from the CORE_IN/CORE_OUT and UHW_IN/UHW_OUT
 *	attributes (the core request still begins with its response
 *	field, which is ignored: the answer goes to ->ucore.outbuf)
 * @ib_dev: the live device (the caller is inside uverbs_enter_device())
 * @command: the command number, with IB_USER_VERBS_CMD_FLAG_EXTENDED for
 *	an extended one
 *
 * Return: the command's result; -EINVAL for stray bits in @command,
 * -EOPNOTSUPP for a command we do not implement or the device cannot
 * do, -ENOSPC when the core request or response room is shorter than
 * the command needs.
 */
int uverbs_invoke_write(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev, u32 command)
{
	const struct uverbs_write_cmd *cmd;

	cmd = uverbs_write_lookup(command);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (!uverbs_cmd_enabled(ib_dev, cmd, command))
		return -EOPNOTSUPP;
	if (attrs->ucore.inlen < cmd->req_size)
		return -ENOSPC;
	if (cmd->has_resp && attrs->ucore.outlen < cmd->resp_size)
		return -ENOSPC;
	if (!cmd->has_resp) {
		attrs->ucore.outbuf = NULL;
		attrs->ucore.outlen = 0;
	}
	return uverbs_call_cmd(cmd, attrs, ib_dev);
}

/*
 * Once the device is gone only the destroy commands run, as on stock
 * (and as the ioctl destroy methods, uverbs_ioctl.c): userspace cleaning
 * up after IB_EVENT_DEVICE_FATAL destroys what the disassociation
 * already destroyed, which drops the handle and answers the event
 * counts (uverbs_destroy_uobject() refuses any other).  Only after the
 * file's disassociation is done, which clears its context under
 * ucontext_lock; everything else answers -EIO.
 */
static int uverbs_write_disassociated(struct ib_uverbs_file *file,
				      const struct uverbs_write_cmd *cmd,
				      const struct ib_uverbs_cmd_hdr *hdr,
				      const char __user *buf, size_t count,
				      struct uverbs_attr_bundle *attrs)
{
	int ret;

	if (!cmd->destroys || !uverbs_file_disassociated(file))
		return -EIO;

	if (hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		ret = uverbs_parse_ex(cmd, hdr, buf, count, attrs);
	else
		ret = uverbs_parse_legacy(cmd, hdr, buf, count, attrs);
	if (ret)
		return ret;
	attrs->ufile = file;
	return cmd->handler(attrs, NULL);
}

ssize_t ib_uverbs_write(struct file *filp, const char __user *buf,
			size_t count, loff_t *pos)
{
	struct ib_uverbs_file *file = filp->private_data;
	const struct uverbs_write_cmd *cmd;
	struct uverbs_attr_bundle attrs = {};
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_device *ib_dev;
	int srcu_key;
	int ret;

	/*
	 * A command acts for the credentials the file was opened with; a
	 * write() from another context (a setuid program handed the fd as
	 * its stdout, say) must not act for them.
	 */
	if (!ib_safe_file_access(filp)) {
		pr_err_once("ib_uverbs: write() refused: process %d (%s) runs with other credentials than the opener of the file\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}

	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;

	cmd = uverbs_write_lookup(hdr.command);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);

	ib_dev = uverbs_enter_device(file->device, &srcu_key);
	if (!ib_dev) {
		ret = uverbs_write_disassociated(file, cmd, &hdr, buf, count,
						 &attrs);
		goto out;
	}
	if (cmd != &uverbs_write_notsupp &&
	    !uverbs_cmd_enabled(ib_dev, cmd, hdr.command)) {
		ret = -EOPNOTSUPP;
		goto out;
	}

	if ((hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) &&
	    cmd != &uverbs_write_notsupp)
		ret = uverbs_parse_ex(cmd, &hdr, buf, count, &attrs);
	else
		ret = uverbs_parse_legacy(cmd, &hdr, buf, count, &attrs);
	if (ret)
		goto out;

	attrs.ufile = file;
	ret = uverbs_call_cmd(cmd, &attrs, ib_dev);
out:
	uverbs_exit_device(file->device, srcu_key);
	return ret ? ret : count;
}

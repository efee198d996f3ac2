// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: queue pairs and their multicast groups.
 *
 * A QP holds its PD, both CQs (one count per role, even when the same
 * CQ serves both) and its SRQ through their usecnt, so none of them can
 * be destroyed under it.  ib_core's ib_destroy_qp_user() drops them.
 *
 * An XRC target QP is its XRC domain's, not the process's (ib_core's
 * xrc.c): the uobject is a handle of it, like the ones OPEN_QP gives
 * (uverbs_cmd_xrcd.c), and holds the domain handle it was made through
 * (ib_uxrcd_object.refcnt).  It has no PD, CQs or SRQ of its own.
 */

#include <linux/capability.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "core_priv.h"
#include "uverbs_write.h"

/* The attr_mask bits each form of MODIFY_QP knows. */
#define UVERBS_LEGACY_QP_ATTR_MASK	((IB_QP_DEST_QPN << 1) - 1)
#define UVERBS_EX_QP_ATTR_MASK		((IB_QP_RATE_LIMIT << 1) - 1)

/* The create_flags userspace may ask for; the driver refuses the others. */
#define UVERBS_QP_CREATE_FLAGS (IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |	\
				IB_QP_CREATE_CROSS_CHANNEL |		\
				IB_QP_CREATE_MANAGED_SEND |		\
				IB_QP_CREATE_MANAGED_RECV |		\
				IB_QP_CREATE_SCATTER_FCS |		\
				IB_QP_CREATE_CVLAN_STRIPPING |		\
				IB_QP_CREATE_SOURCE_QPN |		\
				IB_QP_CREATE_PCI_WRITE_END_PADDING)

/* The objects a new QP uses, claimed for reading while it is created. */
struct qp_create_refs {
	struct ib_uobject *xrcd;
	struct ib_uobject *pd;
	struct ib_uobject *send_cq;
	struct ib_uobject *recv_cq;
	struct ib_uobject *srq;
	struct ib_uobject *rwq_ind_tbl;
};

static void qp_put_refs(struct qp_create_refs *refs)
{
	if (refs->rwq_ind_tbl)
		uverbs_put_read(refs->rwq_ind_tbl);
	if (refs->srq)
		uverbs_put_read(refs->srq);
	if (refs->recv_cq)
		uverbs_put_read(refs->recv_cq);
	if (refs->send_cq)
		uverbs_put_read(refs->send_cq);
	if (refs->pd)
		uverbs_put_read(refs->pd);
	if (refs->xrcd)
		uverbs_put_read(refs->xrcd);
}

/*
 * Claim what @cmd names: -EINVAL for a handle naming nothing suitable.
 * An XRC target names its domain in pd_handle (a bad one is -EINVAL, as
 * stock), and nothing else.  An XRC initiator has no receive side; the
 * others receive on their recv CQ, the send CQ when both are the same
 * handle.
 */
static int qp_get_refs(struct uverbs_attr_bundle *attrs,
		       const struct ib_uverbs_ex_create_qp *cmd,
		       struct qp_create_refs *refs)
{
	int ret;

	/* An RSS QP receives through its table's WQs: nothing else. */
	if (cmd->comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE) {
		ret = uverbs_get_read(&uverbs_rwq_ind_tbl_object,
				      cmd->rwq_ind_tbl_handle, attrs,
				      &refs->rwq_ind_tbl);
		if (ret)
			return ret;
		if (cmd->max_recv_wr || cmd->max_recv_sge || cmd->is_srq)
			return -EINVAL;
	}
	if (cmd->qp_type == IB_QPT_XRC_TGT)
		return uverbs_get_read(&uverbs_xrcd_object, cmd->pd_handle,
				       attrs, &refs->xrcd) ? -EINVAL : 0;
	if (refs->rwq_ind_tbl) {
		if (cmd->max_send_wr) {
			ret = uverbs_get_read(&uverbs_cq_object,
					      cmd->send_cq_handle, attrs,
					      &refs->send_cq);
			if (ret)
				return ret;
		}
		return uverbs_get_read(&uverbs_pd_object, cmd->pd_handle,
				       attrs, &refs->pd);
	}

	ret = uverbs_get_read(&uverbs_pd_object, cmd->pd_handle, attrs,
			      &refs->pd);
	if (ret)
		return ret;
	ret = uverbs_get_read(&uverbs_cq_object, cmd->send_cq_handle, attrs,
			      &refs->send_cq);
	if (ret)
		return ret;
	if (cmd->qp_type == IB_QPT_XRC_INI)
		return 0;

	if (cmd->recv_cq_handle != cmd->send_cq_handle) {
		ret = uverbs_get_read(&uverbs_cq_object, cmd->recv_cq_handle,
				      attrs, &refs->recv_cq);
		if (ret)
			return ret;
	}
	if (cmd->is_srq)
		return uverbs_get_read(&uverbs_srq_object, cmd->srq_handle,
				       attrs, &refs->srq);
	return 0;
}

/* What stock's write() checks of the type and flags before anything else. */
static int qp_check_request(enum ib_qp_type qp_type, u32 create_flags)
{
	switch (qp_type) {
	case IB_QPT_RAW_PACKET:
		if (!capable(CAP_NET_RAW))
			return -EPERM;
		break;
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
	case IB_QPT_DRIVER:
		break;
	default:
		return -EINVAL;
	}
	if (create_flags & ~UVERBS_QP_CREATE_FLAGS)
		return -EINVAL;
	/* Of any type, as stock: the driver judges the flag. */
	if (create_flags & IB_QP_CREATE_SOURCE_QPN && !capable(CAP_NET_RAW))
		return -EPERM;
	return 0;
}

/*
 * The objects named must be there (-ENOENT, what stock answers for an
 * ioctl attribute left out) and suit the type (-EINVAL): an XRC target
 * names its domain and maybe an XRC SRQ, nothing else; the others a PD,
 * CQs and maybe a basic SRQ (not an XRC initiator), no domain.
 */
static int qp_check_users(const struct uverbs_qp_create_params *params)
{
	const struct ib_srq *srq = params->srq ? params->srq->object : NULL;

	if (params->qp_type == IB_QPT_XRC_TGT) {
		if (params->pd || params->send_cq || params->recv_cq ||
		    params->rwq_ind_tbl)
			return -EINVAL;
		if (!params->xrcd)
			return -ENOENT;
		return srq && srq->srq_type != IB_SRQT_XRC ? -EINVAL : 0;
	}
	if (params->xrcd || (srq && params->qp_type == IB_QPT_XRC_INI))
		return -EINVAL;
	if (params->rwq_ind_tbl) {
		if (params->cap.max_recv_wr || params->cap.max_recv_sge ||
		    params->recv_cq || srq)
			return -EINVAL;
		if (!params->pd)
			return -ENOENT;
		return params->cap.max_send_wr && !params->send_cq ? -ENOENT : 0;
	}
	if (!params->pd || !params->send_cq)
		return -ENOENT;
	if (params->qp_type != IB_QPT_XRC_INI && !params->recv_cq)
		return -ENOENT;
	return srq && srq->srq_type == IB_SRQT_XRC ? -EINVAL : 0;
}

static void qp_init_attr_from_params(struct ib_qp_init_attr *init,
				     const struct uverbs_qp_create_params *params)
{
	init->event_handler = ib_uverbs_qp_event_handler;
	if (params->qp_type == IB_QPT_XRC_TGT)
		init->xrcd = params->xrcd->object;
	/* An RSS QP without a send side ignores the CQ named for it. */
	else if (params->send_cq &&
		 (!params->rwq_ind_tbl || params->cap.max_send_wr))
		init->send_cq = params->send_cq->object;
	if (params->rwq_ind_tbl)
		init->rwq_ind_tbl = params->rwq_ind_tbl->object;
	if (params->recv_cq && params->qp_type != IB_QPT_XRC_INI)
		init->recv_cq = params->recv_cq->object;
	init->srq = params->srq ? params->srq->object : NULL;
	init->cap = params->cap;
	init->sq_sig_type = params->sq_sig_all ? IB_SIGNAL_ALL_WR :
						 IB_SIGNAL_REQ_WR;
	init->qp_type = params->qp_type;
	init->create_flags = params->create_flags;
	init->source_qpn = params->source_qpn;
}

/**
 * uverbs_create_qp() - make the QP of a new uobject, for either transport
 * @attrs: the call's bundle (its driver_udata goes to the driver)
 * @ib_dev: the live device
 * @uqp: the uobject, begun by the caller
 * @params: what was asked; on success, @params->cap is what the driver made
 *
 * Return: 0 with @uqp's object set (from here on, aborting the uobject
 * destroys the QP), or an errno with nothing left to undo but the
 * uobject itself.
 */
int uverbs_create_qp(struct uverbs_attr_bundle *attrs,
		     struct ib_device *ib_dev, struct ib_uqp_object *uqp,
		     struct uverbs_qp_create_params *params)
{
	struct ib_uobject *uobj = &uqp->uevent.uobject;
	struct ib_qp_init_attr init = {};
	struct ib_qp *qp;
	int ret;

	/* The type and flags are the transport's to check: they differ. */
	ret = qp_check_users(params);
	if (ret)
		return ret;

	mutex_init(&uqp->modify_lock);
	mutex_init(&uqp->mcast_lock);
	INIT_LIST_HEAD(&uqp->mcast_list);
	ib_uverbs_uevent_init(&uqp->uevent, params->event_file);
	qp_init_attr_from_params(&init, params);

	/* An XRC target QP is the kernel's: restrack names it ib_uverbs. */
	qp = ib_create_qp_user(ib_dev, params->pd ? params->pd->object : NULL,
			       &init, &attrs->driver_udata, uqp,
			       KBUILD_MODNAME);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto err_events;
	}
	ib_qp_usecnt_inc(qp);
	if (params->xrcd) {
		uqp->uxrcd = container_of(params->xrcd, struct ib_uxrcd_object,
					  uobject);
		atomic_inc(&uqp->uxrcd->refcnt);
	}
	uobj->object = qp;
	uobj->user_handle = params->user_handle;
	params->cap = init.cap;
	return 0;

err_events:
	ib_uverbs_uevent_release(&uqp->uevent);
	mutex_destroy(&uqp->mcast_lock);
	mutex_destroy(&uqp->modify_lock);
	return ret;
}

/* Both write() forms of CREATE_QP, the legacy one converted. */
static int create_qp(struct uverbs_attr_bundle *attrs,
		     struct ib_device *ib_dev,
		     const struct ib_uverbs_ex_create_qp *cmd)
{
	struct uverbs_qp_create_params params = {
		.user_handle = cmd->user_handle,
		.qp_type = cmd->qp_type,
		.create_flags = cmd->create_flags,
		.source_qpn = cmd->source_qpn,
		.sq_sig_all = cmd->sq_sig_all,
		.cap = {
			.max_send_wr = cmd->max_send_wr,
			.max_recv_wr = cmd->max_recv_wr,
			.max_send_sge = cmd->max_send_sge,
			.max_recv_sge = cmd->max_recv_sge,
			.max_inline_data = cmd->max_inline_data,
		},
		.event_file = ib_uverbs_default_async_file(attrs->ufile),
	};
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct qp_create_refs refs = {};
	struct ib_uqp_object *uqp;
	struct ib_uobject *uobj;
	int ret;

	if (cmd->comp_mask & ~IB_UVERBS_CREATE_QP_SUP_COMP_MASK)
		return -EINVAL;
	/* Before any lookup, as stock checks them. */
	ret = qp_check_request(params.qp_type, params.create_flags);
	if (ret)
		return ret;

	uobj = rdma_alloc_begin_uobject(&uverbs_qp_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uqp = container_of(uobj, struct ib_uqp_object, uevent.uobject);

	ret = qp_get_refs(attrs, cmd, &refs);
	if (ret)
		goto err_refs;
	params.xrcd = refs.xrcd;
	params.pd = refs.pd;
	params.send_cq = refs.send_cq;
	if (!refs.rwq_ind_tbl)
		params.recv_cq = refs.recv_cq ?: refs.send_cq;
	params.srq = refs.srq;
	params.rwq_ind_tbl = refs.rwq_ind_tbl;
	ret = uverbs_create_qp(attrs, ib_dev, uqp, &params);
	qp_put_refs(&refs);
	if (ret)
		goto err_uobj;

	resp.base.qp_handle = uobj->id;
	resp.base.qpn = ((struct ib_qp *)uobj->object)->qp_num;
	resp.base.max_send_wr = params.cap.max_send_wr;
	resp.base.max_recv_wr = params.cap.max_recv_wr;
	resp.base.max_send_sge = params.cap.max_send_sge;
	resp.base.max_recv_sge = params.cap.max_recv_sge;
	resp.base.max_inline_data = params.cap.max_inline_data;
	resp.response_length = uverbs_response_length(attrs, sizeof(resp));
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_refs:
	qp_put_refs(&refs);
err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

int ib_uverbs_create_qp(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_create_qp cmd_ex = {};
	struct ib_uverbs_create_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	cmd_ex.user_handle = cmd.user_handle;
	cmd_ex.pd_handle = cmd.pd_handle;
	cmd_ex.send_cq_handle = cmd.send_cq_handle;
	cmd_ex.recv_cq_handle = cmd.recv_cq_handle;
	cmd_ex.srq_handle = cmd.srq_handle;
	cmd_ex.max_send_wr = cmd.max_send_wr;
	cmd_ex.max_recv_wr = cmd.max_recv_wr;
	cmd_ex.max_send_sge = cmd.max_send_sge;
	cmd_ex.max_recv_sge = cmd.max_recv_sge;
	cmd_ex.max_inline_data = cmd.max_inline_data;
	cmd_ex.sq_sig_all = cmd.sq_sig_all;
	cmd_ex.qp_type = cmd.qp_type;
	cmd_ex.is_srq = cmd.is_srq;
	return create_qp(attrs, ib_dev, &cmd_ex);
}

int ib_uverbs_ex_create_qp(struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_create_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	return create_qp(attrs, ib_dev, &cmd);
}

static void copy_ah_attr_to_uverbs(struct ib_uverbs_qp_dest *dest,
				   const struct rdma_ah_attr *ah)
{
	dest->sl = rdma_ah_get_sl(ah);
	dest->src_path_bits = rdma_ah_get_path_bits(ah);
	dest->dlid = rdma_ah_get_dlid(ah);
	dest->static_rate = rdma_ah_get_static_rate(ah);
	dest->is_global = !!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH);
	if (dest->is_global) {
		const struct ib_global_route *grh = rdma_ah_read_grh(ah);

		memcpy(dest->dgid, grh->dgid.raw, sizeof(dest->dgid));
		dest->flow_label = grh->flow_label;
		dest->sgid_index = grh->sgid_index;
		dest->hop_limit = grh->hop_limit;
		dest->traffic_class = grh->traffic_class;
	}
	dest->port_num = rdma_ah_get_port_num(ah);
}

static void copy_qp_attr_to_uverbs(struct ib_uverbs_query_qp_resp *resp,
				   const struct ib_qp_attr *attr,
				   const struct ib_qp_init_attr *init)
{
	resp->qp_state = attr->qp_state;
	resp->cur_qp_state = attr->cur_qp_state;
	resp->path_mtu = attr->path_mtu;
	resp->path_mig_state = attr->path_mig_state;
	resp->qkey = attr->qkey;
	resp->rq_psn = attr->rq_psn;
	resp->sq_psn = attr->sq_psn;
	resp->dest_qp_num = attr->dest_qp_num;
	resp->qp_access_flags = attr->qp_access_flags;
	resp->pkey_index = attr->pkey_index;
	resp->alt_pkey_index = attr->alt_pkey_index;
	resp->sq_draining = attr->sq_draining;
	resp->max_rd_atomic = attr->max_rd_atomic;
	resp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	resp->min_rnr_timer = attr->min_rnr_timer;
	resp->port_num = attr->port_num;
	resp->timeout = attr->timeout;
	resp->retry_cnt = attr->retry_cnt;
	resp->rnr_retry = attr->rnr_retry;
	resp->alt_port_num = attr->alt_port_num;
	resp->alt_timeout = attr->alt_timeout;
	copy_ah_attr_to_uverbs(&resp->dest, &attr->ah_attr);
	copy_ah_attr_to_uverbs(&resp->alt_dest, &attr->alt_ah_attr);

	resp->max_send_wr = init->cap.max_send_wr;
	resp->max_recv_wr = init->cap.max_recv_wr;
	resp->max_send_sge = init->cap.max_send_sge;
	resp->max_recv_sge = init->cap.max_recv_sge;
	resp->max_inline_data = init->cap.max_inline_data;
	resp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
}

int ib_uverbs_query_qp(struct uverbs_attr_bundle *attrs,
		       struct ib_device *ib_dev)
{
	struct ib_uverbs_query_qp_resp resp = {};
	struct ib_uverbs_query_qp cmd;
	struct ib_qp_init_attr *init;
	struct ib_qp_attr *attr;
	struct ib_uobject *uobj;
	struct ib_qp *qp;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	init = kzalloc(sizeof(*init), GFP_KERNEL);
	if (!attr || !init) {
		ret = -ENOMEM;
		goto out;
	}

	ret = uverbs_get_read(&uverbs_qp_object, cmd.qp_handle, attrs, &uobj);
	if (ret)
		goto out;
	qp = uobj->object;
	ret = ib_query_qp(qp, attr, cmd.attr_mask, init);
	uverbs_put_read(uobj);
	if (ret)
		goto out;

	copy_qp_attr_to_uverbs(&resp, attr, init);
	ret = uverbs_response(attrs, &resp, sizeof(resp));
out:
	kfree(init);
	kfree(attr);
	return ret;
}

static void copy_ah_attr_from_uverbs(struct ib_device *ib_dev,
				     struct rdma_ah_attr *ah,
				     const struct ib_uverbs_qp_dest *dest)
{
	ah->type = rdma_ah_find_type(ib_dev, dest->port_num);
	if (dest->is_global) {
		rdma_ah_set_grh(ah, NULL, dest->flow_label, dest->sgid_index,
				dest->hop_limit, dest->traffic_class);
		memcpy(rdma_ah_retrieve_grh(ah)->dgid.raw, dest->dgid,
		       sizeof(dest->dgid));
	} else {
		rdma_ah_set_ah_flags(ah, 0);
	}
	rdma_ah_set_dlid(ah, dest->dlid);
	rdma_ah_set_sl(ah, dest->sl);
	rdma_ah_set_path_bits(ah, dest->src_path_bits);
	rdma_ah_set_static_rate(ah, dest->static_rate);
	rdma_ah_set_port_num(ah, dest->port_num);
}

/* The port numbers a request names must be the device's. */
static int qp_check_modify(struct ib_device *ib_dev,
			   const struct ib_uverbs_modify_qp *cmd)
{
	u32 mask = cmd->attr_mask;

	if ((mask & IB_QP_PORT) && !rdma_is_port_valid(ib_dev, cmd->port_num))
		return -EINVAL;
	if ((mask & IB_QP_AV) &&
	    !rdma_is_port_valid(ib_dev, cmd->dest.port_num))
		return -EINVAL;
	if ((mask & IB_QP_AV) && (mask & IB_QP_PORT) &&
	    cmd->port_num != cmd->dest.port_num)
		return -EINVAL;
	if ((mask & IB_QP_ALT_PATH) &&
	    (!rdma_is_port_valid(ib_dev, cmd->alt_port_num) ||
	     !rdma_is_port_valid(ib_dev, cmd->alt_dest.port_num) ||
	     cmd->alt_port_num != cmd->alt_dest.port_num))
		return -EINVAL;
	if ((mask & IB_QP_CUR_STATE) && cmd->cur_qp_state > IB_QPS_ERR)
		return -EINVAL;
	if ((mask & IB_QP_STATE) && cmd->qp_state > IB_QPS_ERR)
		return -EINVAL;
	/*
	 * A Q_Key with the top bit set is privileged (IBA 10.2.5): QP1's,
	 * 0x80010000, lets a UD QP's datagrams into the GSI QP as MADs of
	 * this host.  As Debian's 6.1: CAP_NET_RAW, unless "rdma system set
	 * privileged-qkey on" opened it to all.
	 */
	if ((mask & IB_QP_QKEY) && (cmd->qkey & IB_QP_SET_QKEY) &&
	    !rdma_nl_get_privileged_qkey() && !capable(CAP_NET_RAW))
		return -EPERM;
	return 0;
}

static void qp_attr_from_cmd(struct ib_device *ib_dev, struct ib_qp_attr *attr,
			     const struct ib_uverbs_ex_modify_qp *cmd)
{
	const struct ib_uverbs_modify_qp *base = &cmd->base;

	attr->qp_state = base->qp_state;
	attr->cur_qp_state = base->cur_qp_state;
	attr->path_mtu = base->path_mtu;
	attr->path_mig_state = base->path_mig_state;
	attr->qkey = base->qkey;
	attr->rq_psn = base->rq_psn;
	attr->sq_psn = base->sq_psn;
	attr->dest_qp_num = base->dest_qp_num;
	attr->qp_access_flags = base->qp_access_flags;
	attr->pkey_index = base->pkey_index;
	attr->alt_pkey_index = base->alt_pkey_index;
	attr->en_sqd_async_notify = base->en_sqd_async_notify;
	attr->max_rd_atomic = base->max_rd_atomic;
	attr->max_dest_rd_atomic = base->max_dest_rd_atomic;
	attr->min_rnr_timer = base->min_rnr_timer;
	attr->port_num = base->port_num;
	attr->timeout = base->timeout;
	attr->retry_cnt = base->retry_cnt;
	attr->rnr_retry = base->rnr_retry;
	attr->alt_port_num = base->alt_port_num;
	attr->alt_timeout = base->alt_timeout;
	attr->rate_limit = cmd->rate_limit;
	if (base->attr_mask & IB_QP_AV)
		copy_ah_attr_from_uverbs(ib_dev, &attr->ah_attr, &base->dest);
	if (base->attr_mask & IB_QP_ALT_PATH)
		copy_ah_attr_from_uverbs(ib_dev, &attr->alt_ah_attr,
					 &base->alt_dest);
}

/* XRC QPs have no use for some attributes; stock drops them silently. */
static int qp_modify_mask(enum ib_qp_type qp_type, u32 mask)
{
	switch (qp_type) {
	case IB_QPT_XRC_INI:
		return mask & ~(IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	case IB_QPT_XRC_TGT:
		return mask & ~(IB_QP_MAX_QP_RD_ATOMIC | IB_QP_RETRY_CNT |
				IB_QP_RNR_RETRY);
	default:
		return mask;
	}
}

/* Both forms of MODIFY_QP; ib_core checks the transition. */
static int modify_qp(struct uverbs_attr_bundle *attrs,
		     struct ib_device *ib_dev,
		     const struct ib_uverbs_ex_modify_qp *cmd)
{
	struct ib_uqp_object *uqp;
	struct ib_uobject *uobj;
	struct ib_qp_attr *attr;
	struct ib_qp *qp;
	int ret;

	ret = qp_check_modify(ib_dev, &cmd->base);
	if (ret)
		return ret;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return -ENOMEM;

	ret = uverbs_get_read(&uverbs_qp_object, cmd->base.qp_handle, attrs,
			      &uobj);
	if (ret)
		goto out;
	qp = uobj->object;
	uqp = container_of(uobj, struct ib_uqp_object, uevent.uobject);

	qp_attr_from_cmd(ib_dev, attr, cmd);
	mutex_lock(&uqp->modify_lock);
	ret = ib_modify_qp_with_udata(qp, attr,
				      qp_modify_mask(qp->qp_type,
						     cmd->base.attr_mask),
				      &attrs->driver_udata);
	mutex_unlock(&uqp->modify_lock);
	uverbs_put_read(uobj);
out:
	kfree(attr);
	return ret;
}

int ib_uverbs_modify_qp(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_modify_qp cmd = {};
	int ret;

	ret = uverbs_request(attrs, &cmd.base, sizeof(cmd.base));
	if (ret)
		return ret;

	if (cmd.base.attr_mask & ~UVERBS_LEGACY_QP_ATTR_MASK)
		return -EOPNOTSUPP;
	return modify_qp(attrs, ib_dev, &cmd);
}

int ib_uverbs_ex_modify_qp(struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct ib_uverbs_ex_modify_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	if (cmd.base.attr_mask & ~UVERBS_EX_QP_ATTR_MASK)
		return -EOPNOTSUPP;
	ret = modify_qp(attrs, ib_dev, &cmd);
	if (ret)
		return ret;

	resp.response_length = uverbs_response_length(attrs, sizeof(resp));
	return uverbs_response(attrs, &resp, sizeof(resp));
}

int ib_uverbs_destroy_qp(struct uverbs_attr_bundle *attrs,
			 struct ib_device *ib_dev)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct ib_uverbs_destroy_qp cmd;
	struct ib_uqp_object *uqp;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = __uobj_get_destroy(&uverbs_qp_object, cmd.qp_handle, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uqp = container_of(uobj, struct ib_uqp_object, uevent.uobject);
	resp.events_reported = uqp->uevent.events_reported;
	uobj_put_destroy(uobj);

	return uverbs_response(attrs, &resp, sizeof(resp));
}

static struct ib_uverbs_mcast_entry *
mcast_find(struct ib_uqp_object *uqp, const union ib_gid *gid, u16 lid)
{
	struct ib_uverbs_mcast_entry *mcast;

	lockdep_assert_held(&uqp->mcast_lock);
	list_for_each_entry(mcast, &uqp->mcast_list, list)
		if (mcast->lid == lid &&
		    !memcmp(mcast->gid.raw, gid->raw, sizeof(gid->raw)))
			return mcast;
	return NULL;
}

/* Attaching a group twice is a success that changes nothing, as stock. */
int ib_uverbs_attach_mcast(struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	struct ib_uverbs_mcast_entry *mcast;
	struct ib_uverbs_attach_mcast cmd;
	struct ib_uqp_object *uqp;
	struct ib_uobject *uobj;
	union ib_gid gid;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	memcpy(gid.raw, cmd.gid, sizeof(gid.raw));

	ret = uverbs_get_read(&uverbs_qp_object, cmd.qp_handle, attrs, &uobj);
	if (ret)
		return ret;
	uqp = container_of(uobj, struct ib_uqp_object, uevent.uobject);

	mutex_lock(&uqp->mcast_lock);
	if (mcast_find(uqp, &gid, cmd.mlid))
		goto out;

	mcast = kmalloc(sizeof(*mcast), GFP_KERNEL);
	if (!mcast) {
		ret = -ENOMEM;
		goto out;
	}
	mcast->gid = gid;
	mcast->lid = cmd.mlid;
	ret = ib_attach_mcast(uobj->object, &gid, cmd.mlid);
	if (ret)
		kfree(mcast);
	else
		list_add_tail(&mcast->list, &uqp->mcast_list);
out:
	mutex_unlock(&uqp->mcast_lock);
	uverbs_put_read(uobj);
	return ret;
}

/* Only a group the QP was attached to: -EINVAL for any other. */
int ib_uverbs_detach_mcast(struct uverbs_attr_bundle *attrs,
			   struct ib_device *ib_dev)
{
	struct ib_uverbs_mcast_entry *mcast;
	struct ib_uverbs_detach_mcast cmd;
	struct ib_uqp_object *uqp;
	struct ib_uobject *uobj;
	union ib_gid gid;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	memcpy(gid.raw, cmd.gid, sizeof(gid.raw));

	ret = uverbs_get_read(&uverbs_qp_object, cmd.qp_handle, attrs, &uobj);
	if (ret)
		return ret;
	uqp = container_of(uobj, struct ib_uqp_object, uevent.uobject);

	mutex_lock(&uqp->mcast_lock);
	mcast = mcast_find(uqp, &gid, cmd.mlid);
	if (!mcast) {
		ret = -EINVAL;
		goto out;
	}
	ret = ib_detach_mcast(uobj->object, &gid, cmd.mlid);
	if (ret)
		goto out;
	list_del(&mcast->list);
	kfree(mcast);
out:
	mutex_unlock(&uqp->mcast_lock);
	uverbs_put_read(uobj);
	return ret;
}

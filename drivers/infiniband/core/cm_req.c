// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connection request (IBTA vol. 1, 12.6.5 and 12.9.5): the REQ sent
 * for ib_send_cm_req(), and a received one matched against duplicates,
 * stale connections and listeners, its paths built back to the sender
 * (on RoCE from the packet's GRH), and handed to the listener's handler
 * on a new id.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/opa_addr.h>

#include "cm_priv.h"
#include "cm_trace.h"

static struct cm_req_msg *cm_work_req(struct cm_work *work)
{
	return (struct cm_req_msg *)work->rwc->recv_buf.mad;
}

/* The LID fields of a path in a REQ: real LIDs only within the subnet. */
static void cm_req_set_lids(struct sa_path_rec *path,
			    struct sa_path_rec *inbound, u32 *local_lid,
			    u32 *remote_lid)
{
	if (path->hop_limit <= 1) {
		*local_lid = be32_to_cpu(sa_path_get_slid(path)) & 0xffff;
		*remote_lid = be32_to_cpu(sa_path_get_dlid(path)) & 0xffff;
		return;
	}
	/* Routed: the far side takes the LIDs from its work completion. */
	*local_lid = inbound ? be16_to_cpu(inbound->ib.dlid) :
			       be16_to_cpu(IB_LID_PERMISSIVE);
	*remote_lid = be16_to_cpu(IB_LID_PERMISSIVE);
}

static void cm_format_req(struct cm_req_msg *req, struct cmid *cmid,
			  struct ib_cm_req_param *param)
{
	struct sa_path_rec *pri = param->primary_path;
	struct sa_path_rec *alt = param->alternate_path;
	u8 ack_delay = cmid->av.port->dev->ack_delay;
	u32 llid, rlid;

	cm_mad_hdr(&req->hdr, CM_REQ_ATTR_ID, cm_tid(cmid),
		   param->ece.attr_mod);
	IBA_SET(CM_REQ_LOCAL_COMM_ID, req, be32_to_cpu(cmid->id.local_id));
	IBA_SET(CM_REQ_SERVICE_ID, req, be64_to_cpu(param->service_id));
	IBA_SET(CM_REQ_LOCAL_CA_GUID, req,
		be64_to_cpu(cmid->id.device->node_guid));
	IBA_SET(CM_REQ_LOCAL_QPN, req, param->qp_num);
	IBA_SET(CM_REQ_INITIATOR_DEPTH, req, param->initiator_depth);
	IBA_SET(CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT, req,
		param->remote_cm_response_timeout);
	cm_req_set_qp_type(req, param->qp_type);
	IBA_SET(CM_REQ_END_TO_END_FLOW_CONTROL, req, param->flow_control);
	IBA_SET(CM_REQ_STARTING_PSN, req, param->starting_psn);
	IBA_SET(CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT, req,
		param->local_cm_response_timeout);
	IBA_SET(CM_REQ_PARTITION_KEY, req, be16_to_cpu(pri->pkey));
	IBA_SET(CM_REQ_PATH_PACKET_PAYLOAD_MTU, req, pri->mtu);
	IBA_SET(CM_REQ_MAX_CM_RETRIES, req, param->max_cm_retries);
	/* An XRC initiator has no responder: these stay 0. */
	if (param->qp_type != IB_QPT_XRC_INI) {
		IBA_SET(CM_REQ_RESPONDER_RESOURCES, req,
			param->responder_resources);
		IBA_SET(CM_REQ_RETRY_COUNT, req, param->retry_count);
		IBA_SET(CM_REQ_RNR_RETRY_COUNT, req, param->rnr_retry_count);
		IBA_SET(CM_REQ_SRQ, req, param->srq);
	}

	*IBA_GET_MEM_PTR(CM_REQ_PRIMARY_LOCAL_PORT_GID, req) = pri->sgid;
	*IBA_GET_MEM_PTR(CM_REQ_PRIMARY_REMOTE_PORT_GID, req) = pri->dgid;
	cm_req_set_lids(pri, param->primary_path_inbound, &llid, &rlid);
	IBA_SET(CM_REQ_PRIMARY_LOCAL_PORT_LID, req, llid);
	IBA_SET(CM_REQ_PRIMARY_REMOTE_PORT_LID, req, rlid);
	IBA_SET(CM_REQ_PRIMARY_FLOW_LABEL, req, be32_to_cpu(pri->flow_label));
	IBA_SET(CM_REQ_PRIMARY_PACKET_RATE, req, pri->rate);
	IBA_SET(CM_REQ_PRIMARY_TRAFFIC_CLASS, req, pri->traffic_class);
	IBA_SET(CM_REQ_PRIMARY_HOP_LIMIT, req, pri->hop_limit);
	IBA_SET(CM_REQ_PRIMARY_SL, req, pri->sl);
	IBA_SET(CM_REQ_PRIMARY_SUBNET_LOCAL, req, pri->hop_limit <= 1);
	IBA_SET(CM_REQ_PRIMARY_LOCAL_ACK_TIMEOUT, req,
		cm_ack_timeout(ack_delay, pri->packet_life_time));

	if (alt) {
		*IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_LOCAL_PORT_GID, req) =
			alt->sgid;
		*IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_REMOTE_PORT_GID, req) =
			alt->dgid;
		cm_req_set_lids(alt, NULL, &llid, &rlid);
		IBA_SET(CM_REQ_ALTERNATE_LOCAL_PORT_LID, req, llid);
		IBA_SET(CM_REQ_ALTERNATE_REMOTE_PORT_LID, req, rlid);
		IBA_SET(CM_REQ_ALTERNATE_FLOW_LABEL, req,
			be32_to_cpu(alt->flow_label));
		IBA_SET(CM_REQ_ALTERNATE_PACKET_RATE, req, alt->rate);
		IBA_SET(CM_REQ_ALTERNATE_TRAFFIC_CLASS, req,
			alt->traffic_class);
		IBA_SET(CM_REQ_ALTERNATE_HOP_LIMIT, req, alt->hop_limit);
		IBA_SET(CM_REQ_ALTERNATE_SL, req, alt->sl);
		IBA_SET(CM_REQ_ALTERNATE_SUBNET_LOCAL, req,
			alt->hop_limit <= 1);
		IBA_SET(CM_REQ_ALTERNATE_LOCAL_ACK_TIMEOUT, req,
			cm_ack_timeout(ack_delay, alt->packet_life_time));
	}
	IBA_SET(CM_REQ_VENDOR_ID, req, param->ece.vendor_id);

	if (param->private_data && param->private_data_len)
		IBA_SET_MEM(CM_REQ_PRIVATE_DATA, req, param->private_data,
			    param->private_data_len);
}

static int cm_check_req_param(struct ib_cm_req_param *param)
{
	struct sa_path_rec *alt = param->alternate_path;

	if (!param->primary_path)
		return -EINVAL;
	if (param->qp_type != IB_QPT_RC && param->qp_type != IB_QPT_UC &&
	    param->qp_type != IB_QPT_XRC_INI)
		return -EINVAL;
	if (param->private_data &&
	    param->private_data_len > IB_CM_REQ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	/* One P_Key and MTU for both paths (the REQ has one of each). */
	if (alt && (alt->pkey != param->primary_path->pkey ||
		    alt->mtu != param->primary_path->mtu))
		return -EINVAL;
	return 0;
}

/**
 * ib_send_cm_req - request a connection
 * @cm_id: an id in IDLE
 * @param: paths, the QP, and what to ask the peer for
 *
 * Return: 0 (the id is in REQ_SENT), or a negative errno.
 */
int ib_send_cm_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *param)
{
	struct cmid *cmid = to_cmid(cm_id);
	struct cm_av av = {}, alt_av = {};
	struct ib_mad_send_buf *msg;
	struct cm_timewait *tw;
	struct cm_req_msg *req;
	unsigned long flags;
	int ret;

	ret = cm_check_req_param(param);
	if (ret)
		return ret;

	tw = cm_timewait_alloc(cm_id->local_id);
	if (!tw)
		return -ENOMEM;
	ret = cm_av_from_path(param->primary_path, param->ppath_sgid_attr, &av);
	if (ret)
		goto err_av;
	if (param->alternate_path) {
		ret = cm_av_from_path(param->alternate_path, NULL, &alt_av);
		if (ret)
			goto err_av;
	}

	spin_lock_irqsave(&cmid->lock, flags);
	if (cm_id->state != IB_CM_IDLE || WARN_ON(cmid->tw)) {
		ret = -EINVAL;
		goto err_unlock;
	}
	cmid->tw = tw;
	cm_id->service_id = param->service_id;
	cmid->timeout_ms = cm_ms(param->primary_path->packet_life_time) * 2 +
			   cm_ms(param->remote_cm_response_timeout);
	cmid->max_cm_retries = param->max_cm_retries;
	cmid->initiator_depth = param->initiator_depth;
	cmid->responder_resources = param->responder_resources;
	cmid->retry_count = param->retry_count;
	cmid->path_mtu = param->primary_path->mtu;
	cmid->pkey = param->primary_path->pkey;
	cmid->qp_type = param->qp_type;
	cm_av_move(&cmid->av, &av);
	if (param->primary_path_outbound)
		cmid->av.dlid_datapath =
			be16_to_cpu(param->primary_path_outbound->ib.dlid);
	if (param->alternate_path)
		cm_av_move(&cmid->alt_av, &alt_av);

	msg = cm_msg_alloc_priv(cmid);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto err_tw;
	}
	req = msg->mad;
	cm_format_req(req, cmid, param);
	cmid->tid = req->hdr.tid;
	msg->timeout_ms = cmid->timeout_ms;
	msg->context[1] = (void *)(unsigned long)IB_CM_REQ_SENT;
	cmid->local_qpn = cpu_to_be32(IBA_GET(CM_REQ_LOCAL_QPN, req));
	/* Our starting PSN is the one we receive with. */
	cmid->rq_psn = cpu_to_be32(IBA_GET(CM_REQ_STARTING_PSN, req));

	trace_icm_send_req(cm_id);
	ret = ib_post_send_mad(msg, NULL);
	if (ret) {
		cm_msg_free_priv(msg);
		goto err_tw;
	}
	cm_id->state = IB_CM_REQ_SENT;
	spin_unlock_irqrestore(&cmid->lock, flags);
	return 0;

err_tw:
	cmid->tw = NULL;
err_unlock:
	spin_unlock_irqrestore(&cmid->lock, flags);
err_av:
	cm_av_destroy(&alt_av);
	cm_av_destroy(&av);
	kfree(tw);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_req);

bool cm_req_has_alt_path(struct cm_req_msg *req)
{
	return IBA_GET(CM_REQ_ALTERNATE_LOCAL_PORT_LID, req) ||
	       ib_is_opa_gid(IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_LOCAL_PORT_GID,
					     req));
}

void cm_path_set_rec_type(struct ib_device *ibdev, u32 port_num,
			  struct sa_path_rec *path, union ib_gid *gid)
{
	if (ib_is_opa_gid(gid) && rdma_cap_opa_ah(ibdev, port_num))
		path->rec_type = SA_PATH_REC_TYPE_OPA;
	else
		path->rec_type = SA_PATH_REC_TYPE_IB;
}

/* The fields of one of a REQ's paths, seen from the passive side. */
struct cm_req_path_fields {
	union ib_gid *local_gid;	/* the sender's: our DGID */
	union ib_gid *remote_gid;
	u32 local_lid, remote_lid;
	u32 flow_label;
	u8 rate, traffic_class, hop_limit, sl, ack_timeout;
};

static void cm_req_path_fields(struct cm_req_msg *req, bool alt,
			       struct cm_req_path_fields *f)
{
	if (!alt) {
		f->local_gid = IBA_GET_MEM_PTR(CM_REQ_PRIMARY_LOCAL_PORT_GID, req);
		f->remote_gid = IBA_GET_MEM_PTR(CM_REQ_PRIMARY_REMOTE_PORT_GID, req);
		f->local_lid = IBA_GET(CM_REQ_PRIMARY_LOCAL_PORT_LID, req);
		f->remote_lid = IBA_GET(CM_REQ_PRIMARY_REMOTE_PORT_LID, req);
		f->flow_label = IBA_GET(CM_REQ_PRIMARY_FLOW_LABEL, req);
		f->rate = IBA_GET(CM_REQ_PRIMARY_PACKET_RATE, req);
		f->traffic_class = IBA_GET(CM_REQ_PRIMARY_TRAFFIC_CLASS, req);
		f->hop_limit = IBA_GET(CM_REQ_PRIMARY_HOP_LIMIT, req);
		f->sl = IBA_GET(CM_REQ_PRIMARY_SL, req);
		f->ack_timeout = IBA_GET(CM_REQ_PRIMARY_LOCAL_ACK_TIMEOUT, req);
	} else {
		f->local_gid = IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_LOCAL_PORT_GID, req);
		f->remote_gid = IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_REMOTE_PORT_GID, req);
		f->local_lid = IBA_GET(CM_REQ_ALTERNATE_LOCAL_PORT_LID, req);
		f->remote_lid = IBA_GET(CM_REQ_ALTERNATE_REMOTE_PORT_LID, req);
		f->flow_label = IBA_GET(CM_REQ_ALTERNATE_FLOW_LABEL, req);
		f->rate = IBA_GET(CM_REQ_ALTERNATE_PACKET_RATE, req);
		f->traffic_class = IBA_GET(CM_REQ_ALTERNATE_TRAFFIC_CLASS, req);
		f->hop_limit = IBA_GET(CM_REQ_ALTERNATE_HOP_LIMIT, req);
		f->sl = IBA_GET(CM_REQ_ALTERNATE_SL, req);
		f->ack_timeout = IBA_GET(CM_REQ_ALTERNATE_LOCAL_ACK_TIMEOUT, req);
	}
}

/*
 * Our path back to the REQ's sender: its rec_type is set by the caller.
 * The primary's DLID is where the REQ came from; the alternate's is what
 * the REQ says.
 */
static void cm_path_from_req(struct cm_req_msg *req, bool alt,
			     struct ib_wc *wc, struct sa_path_rec *path)
{
	struct cm_req_path_fields f;
	u8 life;

	cm_req_path_fields(req, alt, &f);
	path->dgid = *f.local_gid;
	path->sgid = *f.remote_gid;
	path->flow_label = cpu_to_be32(f.flow_label);
	path->hop_limit = f.hop_limit;
	path->traffic_class = f.traffic_class;
	path->reversible = 1;
	path->pkey = cpu_to_be16(IBA_GET(CM_REQ_PARTITION_KEY, req));
	path->sl = f.sl;
	path->mtu_selector = IB_SA_EQ;
	path->mtu = IBA_GET(CM_REQ_PATH_PACKET_PAYLOAD_MTU, req);
	path->rate_selector = IB_SA_EQ;
	path->rate = f.rate;
	/* The REQ's ACK timeout is the life time plus one (rounded up). */
	life = f.ack_timeout;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = life ? life - 1 : 0;
	path->service_id = cpu_to_be64(IBA_GET(CM_REQ_SERVICE_ID, req));
	if (sa_path_is_roce(path))
		path->roce.route_resolved = false;

	if (path->rec_type == SA_PATH_REC_TYPE_OPA) {
		sa_path_set_dlid(path, opa_get_lid_from_gid(f.local_gid));
		sa_path_set_slid(path, opa_get_lid_from_gid(f.remote_gid));
	} else {
		sa_path_set_dlid(path, alt ? f.local_lid : wc->slid);
		sa_path_set_slid(path, f.remote_lid);
	}
}

/*
 * Across subnets the active side knows no LIDs and sends the permissive
 * LID: take them (and the SL) from the work completion instead.
 */
static void cm_req_fix_routed_lids(struct cm_req_msg *req, struct ib_wc *wc)
{
	u16 permissive = be16_to_cpu(IB_LID_PERMISSIVE);

	if (!IBA_GET(CM_REQ_PRIMARY_SUBNET_LOCAL, req)) {
		if (IBA_GET(CM_REQ_PRIMARY_LOCAL_PORT_LID, req) == permissive) {
			IBA_SET(CM_REQ_PRIMARY_LOCAL_PORT_LID, req,
				(u16)wc->slid);
			IBA_SET(CM_REQ_PRIMARY_SL, req, wc->sl);
		}
		if (IBA_GET(CM_REQ_PRIMARY_REMOTE_PORT_LID, req) == permissive)
			IBA_SET(CM_REQ_PRIMARY_REMOTE_PORT_LID, req,
				wc->dlid_path_bits);
	}
	if (!IBA_GET(CM_REQ_ALTERNATE_SUBNET_LOCAL, req)) {
		if (IBA_GET(CM_REQ_ALTERNATE_LOCAL_PORT_LID, req) == permissive) {
			IBA_SET(CM_REQ_ALTERNATE_LOCAL_PORT_LID, req,
				(u16)wc->slid);
			IBA_SET(CM_REQ_ALTERNATE_SL, req, wc->sl);
		}
		if (IBA_GET(CM_REQ_ALTERNATE_REMOTE_PORT_LID, req) == permissive)
			IBA_SET(CM_REQ_ALTERNATE_REMOTE_PORT_LID, req,
				wc->dlid_path_bits);
	}
}

/* The P_Key the REQ's packet carried, from its P_Key index. */
static u16 cm_bth_pkey(struct cm_work *work)
{
	struct ib_device *ibdev = work->port->dev->ibdev;
	u16 pkey_index = work->rwc->wc->pkey_index;
	u16 pkey;

	if (ib_get_cached_pkey(ibdev, work->port->num, pkey_index, &pkey)) {
		dev_warn_ratelimited(&ibdev->dev,
				     "ib_cm: no P_Key at index %u of port %u\n",
				     pkey_index, work->port->num);
		return 0;
	}
	return pkey;
}

/* ULPs compare SGIDs to their own: give them the port's IB GID, not OPA's. */
static void cm_path_opa_sgid_to_ib(struct cm_work *work,
				   struct sa_path_rec *path)
{
	struct ib_device *ibdev = work->port->dev->ibdev;
	union ib_gid gid;

	if (!rdma_cap_opa_ah(ibdev, work->port->num) ||
	    !ib_is_opa_gid(&path->sgid))
		return;
	if (rdma_query_gid(ibdev, work->port->num, 0, &gid))
		dev_warn(&ibdev->dev, "ib_cm: no GID 0 for a REQ's SGID\n");
	else
		path->sgid = gid;
}

static void cm_req_event(struct cm_work *work, struct cmid *cmid,
			 struct cmid *listener)
{
	struct ib_cm_req_event_param *p = &work->ev.param.req_rcvd;
	struct cm_req_msg *req = cm_work_req(work);

	p->listen_id = &listener->id;
	p->bth_pkey = cm_bth_pkey(work);
	p->port = cmid->av.port->num;
	p->primary_path = &work->path[0];
	cm_path_opa_sgid_to_ib(work, p->primary_path);
	if (cm_req_has_alt_path(req)) {
		p->alternate_path = &work->path[1];
		cm_path_opa_sgid_to_ib(work, p->alternate_path);
	} else {
		p->alternate_path = NULL;
	}
	p->ppath_sgid_attr = cmid->av.ah.grh.sgid_attr;
	p->remote_ca_guid = cpu_to_be64(IBA_GET(CM_REQ_LOCAL_CA_GUID, req));
	p->remote_qkey = IBA_GET(CM_REQ_LOCAL_Q_KEY, req);
	p->remote_qpn = IBA_GET(CM_REQ_LOCAL_QPN, req);
	p->qp_type = cm_req_qp_type(req);
	p->starting_psn = IBA_GET(CM_REQ_STARTING_PSN, req);
	/* The sender's view, turned around to ours. */
	p->responder_resources = IBA_GET(CM_REQ_INITIATOR_DEPTH, req);
	p->initiator_depth = IBA_GET(CM_REQ_RESPONDER_RESOURCES, req);
	p->local_cm_response_timeout =
		IBA_GET(CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT, req);
	p->remote_cm_response_timeout =
		IBA_GET(CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT, req);
	p->flow_control = IBA_GET(CM_REQ_END_TO_END_FLOW_CONTROL, req);
	p->retry_count = IBA_GET(CM_REQ_RETRY_COUNT, req);
	p->rnr_retry_count = IBA_GET(CM_REQ_RNR_RETRY_COUNT, req);
	p->srq = IBA_GET(CM_REQ_SRQ, req);
	p->ece.vendor_id = IBA_GET(CM_REQ_VENDOR_ID, req);
	p->ece.attr_mod = be32_to_cpu(req->hdr.attr_mod);
	work->ev.private_data = IBA_GET_MEM_PTR(CM_REQ_PRIVATE_DATA, req);
}

/*
 * A REQ we already have: repeat our MRA if we sent one, tell a peer
 * whose connection is in timewait that it is stale, else ignore it
 * (the REP is retried by the MAD layer on its own).
 */
static void cm_req_duplicate(struct cm_work *work, struct cmid *cmid)
{
	struct ib_mad_send_buf *msg;

	cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_REQ);

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state == IB_CM_REQ_RCVD) {
		/* The consumer has not answered yet. */
		spin_unlock_irq(&cmid->lock);
		return;
	}
	spin_unlock_irq(&cmid->lock);

	if (cm_resp_alloc(work->port, work->rwc, &msg))
		return;

	spin_lock_irq(&cmid->lock);
	switch (cmid->id.state) {
	case IB_CM_MRA_REQ_SENT:
		cm_format_mra(msg->mad, cmid, CM_MSG_RESPONSE_REQ,
			      cmid->service_timeout, cmid->pdata,
			      cmid->pdata_len);
		break;
	case IB_CM_TIMEWAIT:
		cm_format_rej(msg->mad, cmid, IB_CM_REJ_STALE_CONN, NULL, 0,
			      NULL, 0, IB_CM_TIMEWAIT);
		break;
	default:
		spin_unlock_irq(&cmid->lock);
		cm_resp_free(msg);
		return;
	}
	spin_unlock_irq(&cmid->lock);

	trace_icm_send_dup_req(&cmid->id);
	if (ib_post_send_mad(msg, NULL))
		cm_resp_free(msg);
}

/*
 * Enters the new connection in the remote trees and finds its listener.
 * Return: the listener with a reference, or NULL when the REQ was a
 * duplicate, stale, or for nobody (then answered here).
 */
static struct cmid *cm_req_match(struct cm_work *work, struct cmid *cmid)
{
	struct cm_req_msg *req = cm_work_req(work);
	struct cm_timewait *other;
	struct cmid *old, *listener;

	spin_lock_irq(&icm.lock);
	other = cm_insert_remote_id(cmid->tw);
	if (other) {
		old = cmid_acquire(other->ev.local_id, other->ev.remote_id);
		spin_unlock_irq(&icm.lock);
		if (old) {
			cm_req_duplicate(work, old);
			cmid_put(old);
		}
		return NULL;
	}

	other = cm_insert_remote_qpn(cmid->tw);
	if (other) {
		/* The peer's QP is still ours in another connection. */
		cm_remove_remote(cmid->tw);
		old = cmid_acquire(other->ev.local_id, other->ev.remote_id);
		spin_unlock_irq(&icm.lock);
		cm_issue_rej(work->port, work->rwc, IB_CM_REJ_STALE_CONN,
			     CM_MSG_RESPONSE_REQ, NULL, 0);
		if (old) {
			ib_send_cm_dreq(&old->id, NULL, 0);
			cmid_put(old);
		}
		return NULL;
	}

	listener = cm_find_listener(cmid->id.device,
				    cpu_to_be64(IBA_GET(CM_REQ_SERVICE_ID, req)));
	if (!listener) {
		cm_remove_remote(cmid->tw);
		spin_unlock_irq(&icm.lock);
		cm_issue_rej(work->port, work->rwc,
			     IB_CM_REJ_INVALID_SERVICE_ID, CM_MSG_RESPONSE_REQ,
			     NULL, 0);
		return NULL;
	}
	spin_unlock_irq(&icm.lock);
	return listener;
}

/* Our paths back, from the REQ (and on RoCE from the packet's GRH). */
static void cm_req_paths(struct cm_work *work, struct cmid *cmid)
{
	struct cm_req_msg *req = cm_work_req(work);
	const struct ib_global_route *grh = rdma_ah_read_grh(&cmid->av.ah);
	bool alt = cm_req_has_alt_path(req);

	memset(work->path, 0, sizeof(work->path));
	if (cmid->av.ah.type == RDMA_AH_ATTR_TYPE_ROCE) {
		work->path[0].rec_type =
			sa_conv_gid_to_pathrec_type(grh->sgid_attr->gid_type);
	} else {
		cm_req_fix_routed_lids(req, work->rwc->wc);
		cm_path_set_rec_type(work->port->dev->ibdev, work->port->num,
				     &work->path[0],
				     IBA_GET_MEM_PTR(CM_REQ_PRIMARY_LOCAL_PORT_GID,
						     req));
	}
	work->path[1].rec_type = work->path[0].rec_type;

	cm_path_from_req(req, false, work->rwc->wc, &work->path[0]);
	if (alt)
		cm_path_from_req(req, true, work->rwc->wc, &work->path[1]);
	if (cmid->av.ah.type == RDMA_AH_ATTR_TYPE_ROCE)
		sa_path_set_dmac(&work->path[0], cmid->av.ah.roce.dmac);
	/* The hop limit the packet arrived with, not the REQ's. */
	work->path[0].hop_limit = grh->hop_limit;
}

int cm_req_recv(struct cm_work *work)
{
	struct cm_req_msg *req = cm_work_req(work);
	const struct ib_gid_attr *gid_attr;
	struct cmid *cmid, *listener;
	int ret;

	cmid = cmid_alloc(work->port->dev->ibdev, NULL, NULL);
	if (IS_ERR(cmid))
		return PTR_ERR(cmid);

	/* Unpublished: only this thread sees the id until cmid_publish(). */
	cmid->id.remote_id = cpu_to_be32(IBA_GET(CM_REQ_LOCAL_COMM_ID, req));
	cmid->id.service_id = cpu_to_be64(IBA_GET(CM_REQ_SERVICE_ID, req));
	cmid->tid = req->hdr.tid;
	cmid->timeout_ms = cm_ms(IBA_GET(CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT, req));
	cmid->max_cm_retries = IBA_GET(CM_REQ_MAX_CM_RETRIES, req);
	cmid->remote_qpn = cpu_to_be32(IBA_GET(CM_REQ_LOCAL_QPN, req));
	cmid->initiator_depth = IBA_GET(CM_REQ_RESPONDER_RESOURCES, req);
	cmid->responder_resources = IBA_GET(CM_REQ_INITIATOR_DEPTH, req);
	cmid->path_mtu = IBA_GET(CM_REQ_PATH_PACKET_PAYLOAD_MTU, req);
	cmid->pkey = cpu_to_be16(IBA_GET(CM_REQ_PARTITION_KEY, req));
	/* The peer sends from its starting PSN: our send queue's peer. */
	cmid->sq_psn = cpu_to_be32(IBA_GET(CM_REQ_STARTING_PSN, req));
	cmid->retry_count = IBA_GET(CM_REQ_RETRY_COUNT, req);
	cmid->rnr_retry_count = IBA_GET(CM_REQ_RNR_RETRY_COUNT, req);
	cmid->qp_type = cm_req_qp_type(req);

	ret = cm_av_from_wc(work->port, work->rwc, &cmid->av);
	if (ret)
		goto destroy;
	cmid->tw = cm_timewait_alloc(cmid->id.local_id);
	if (!cmid->tw) {
		ret = -ENOMEM;
		goto destroy;
	}
	cmid->tw->ev.remote_id = cmid->id.remote_id;
	cmid->tw->remote_ca_guid =
		cpu_to_be64(IBA_GET(CM_REQ_LOCAL_CA_GUID, req));
	cmid->tw->remote_qpn = cmid->remote_qpn;
	cmid->id.state = IB_CM_REQ_RCVD;

	listener = cm_req_match(work, cmid);
	if (!listener) {
		trace_icm_no_listener_err(&cmid->id);
		cmid->id.state = IB_CM_IDLE;
		ret = -EINVAL;
		goto destroy;
	}

	cm_req_paths(work, cmid);
	gid_attr = cmid->av.ah.grh.sgid_attr;
	/* On success this replaces the AV from the work completion. */
	ret = cm_av_from_path(&work->path[0], gid_attr, &cmid->av);
	if (ret) {
		/* Tell the peer which GID we would have answered from. */
		if (rdma_query_gid(work->port->dev->ibdev, work->port->num, 0,
				   &work->path[0].sgid))
			ib_send_cm_rej(&cmid->id, IB_CM_REJ_INVALID_GID, NULL,
				       0, NULL, 0);
		else
			ib_send_cm_rej(&cmid->id, IB_CM_REJ_INVALID_GID,
				       &work->path[0].sgid,
				       sizeof(work->path[0].sgid), NULL, 0);
		goto rejected;
	}
	if (cmid->av.ah.type == RDMA_AH_ATTR_TYPE_IB)
		cmid->av.dlid_datapath =
			IBA_GET(CM_REQ_PRIMARY_LOCAL_PORT_LID, req);
	if (cm_req_has_alt_path(req)) {
		ret = cm_av_from_path(&work->path[1], NULL, &cmid->alt_av);
		if (ret) {
			ib_send_cm_rej(&cmid->id, IB_CM_REJ_INVALID_ALT_GID,
				       &work->path[0].sgid,
				       sizeof(work->path[0].sgid), NULL, 0);
			goto rejected;
		}
	}

	cmid->id.cm_handler = listener->id.cm_handler;
	cmid->id.context = listener->id.context;
	cm_req_event(work, cmid, listener);

	spin_lock_irq(&cmid->lock);
	cmid_publish(cmid);
	/* The event's reference. */
	refcount_inc(&cmid->refs);
	/*
	 * The id is new: nothing else delivers to it, so the handler runs
	 * now, in this thread, while we still hold the listener it names.
	 */
	cm_deliver_unlock(cmid, work);
	cmid_put(listener);
	return 0;

rejected:
	cmid_put(listener);
destroy:
	ib_destroy_cm_id(&cmid->id);
	return ret;
}


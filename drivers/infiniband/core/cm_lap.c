// SPDX-License-Identifier: GPL-2.0-only
/*
 * Alternate paths (IBTA vol. 1, 12.8): a received LAP proposes one for an
 * established connection, an APR answers ours.  As on the stock kernel,
 * there is no call to send a LAP or an APR, and on RoCE ports both are
 * ignored.  Also ib_cm_notify(): the consumer reports that the QP saw
 * traffic before the RTU (COMM_EST) or migrated to its alternate path.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/opa_addr.h>

#include "cm_priv.h"
#include "cm_trace.h"

/* The proposed path, seen from our side. */
static void cm_path_from_lap(struct cmid *cmid, struct cm_lap_msg *lap,
			     struct sa_path_rec *path)
{
	union ib_gid *local_gid =
		IBA_GET_MEM_PTR(CM_LAP_ALTERNATE_LOCAL_PORT_GID, lap);
	union ib_gid *remote_gid =
		IBA_GET_MEM_PTR(CM_LAP_ALTERNATE_REMOTE_PORT_GID, lap);
	u8 ack_timeout = IBA_GET(CM_LAP_ALTERNATE_LOCAL_ACK_TIMEOUT, lap);

	path->dgid = *local_gid;
	path->sgid = *remote_gid;
	path->flow_label =
		cpu_to_be32(IBA_GET(CM_LAP_ALTERNATE_FLOW_LABEL, lap));
	path->hop_limit = IBA_GET(CM_LAP_ALTERNATE_HOP_LIMIT, lap);
	path->traffic_class = IBA_GET(CM_LAP_ALTERNATE_TRAFFIC_CLASS, lap);
	path->reversible = 1;
	path->pkey = cmid->pkey;
	path->sl = IBA_GET(CM_LAP_ALTERNATE_SL, lap);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = cmid->path_mtu;
	path->rate_selector = IB_SA_EQ;
	path->rate = IBA_GET(CM_LAP_ALTERNATE_PACKET_RATE, lap);
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = ack_timeout ? ack_timeout - 1 : 0;
	if (path->rec_type == SA_PATH_REC_TYPE_OPA) {
		sa_path_set_dlid(path, opa_get_lid_from_gid(local_gid));
		sa_path_set_slid(path, opa_get_lid_from_gid(remote_gid));
	} else {
		sa_path_set_dlid(path,
				 IBA_GET(CM_LAP_ALTERNATE_LOCAL_PORT_LID, lap));
		sa_path_set_slid(path,
				 IBA_GET(CM_LAP_ALTERNATE_REMOTE_PORT_LID, lap));
	}
}

/* Repeats our MRA to a LAP we are still working on. */
static void cm_lap_repeat_mra(struct cm_work *work, struct cmid *cmid)
	__releases(&cmid->lock)
{
	struct ib_mad_send_buf *msg;
	struct cm_mra_msg *mra;

	msg = cm_resp_alloc_no_ah(work->port, work->rwc);
	if (IS_ERR(msg)) {
		spin_unlock_irq(&cmid->lock);
		return;
	}
	mra = msg->mad;
	cm_mad_hdr(&mra->hdr, CM_MRA_ATTR_ID, cmid->tid, 0);
	IBA_SET(CM_MRA_MESSAGE_MRAED, mra, CM_MSG_RESPONSE_OTHER);
	IBA_SET(CM_MRA_LOCAL_COMM_ID, mra, be32_to_cpu(cmid->id.local_id));
	IBA_SET(CM_MRA_REMOTE_COMM_ID, mra, be32_to_cpu(cmid->id.remote_id));
	IBA_SET(CM_MRA_SERVICE_TIMEOUT, mra, cmid->service_timeout);
	if (cmid->pdata && cmid->pdata_len)
		IBA_SET_MEM(CM_MRA_PRIVATE_DATA, mra, cmid->pdata,
			    cmid->pdata_len);
	spin_unlock_irq(&cmid->lock);

	if (cm_resp_add_ah(work->port, work->rwc, msg) ||
	    ib_post_send_mad(msg, NULL))
		cm_resp_free(msg);
}

/* Keeps @ah's GID attribute alive in @slot (see cmid.lap_retired). */
static void cm_lap_retire(const struct ib_gid_attr **slot,
			  struct rdma_ah_attr *ah)
{
	if (*slot)
		rdma_put_gid_attr(*slot);
	*slot = ah->grh.sgid_attr;
	ah->grh.sgid_attr = NULL;
}

void cm_lap_release(struct cmid *cmid)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cmid->lap_retired); i++) {
		if (cmid->lap_retired[i])
			rdma_put_gid_attr(cmid->lap_retired[i]);
		cmid->lap_retired[i] = NULL;
	}
}

/*
 * A LAP we take: answers go where it came from (@ah), the QP's alternate
 * path is the proposed one (@alt_av).  The old GID attributes stay
 * referenced (copies from ib_cm_init_qp_attr() may be in use).
 */
static void cm_lap_set_avs(struct cmid *cmid, struct cm_work *work,
			   struct rdma_ah_attr *ah, struct cm_av *alt_av)
{
	lockdep_assert_held(&cmid->lock);

	cm_lap_retire(&cmid->lap_retired[0], &cmid->av.ah);
	cm_lap_retire(&cmid->lap_retired[1], &cmid->alt_av.ah);
	cm_av_set_port(&cmid->av, work->port);
	cmid->av.pkey_index = work->rwc->wc->pkey_index;
	rdma_move_ah_attr(&cmid->av.ah, ah);
	cm_av_move(&cmid->alt_av, alt_av);
}

int cm_lap_recv(struct cm_work *work)
{
	struct cm_lap_msg *lap = (struct cm_lap_msg *)work->rwc->recv_buf.mad;
	struct ib_device *ibdev = work->port->dev->ibdev;
	struct rdma_ah_attr ah = {};
	struct cm_av alt_av = {};
	struct sa_path_rec *path = &work->path[0];
	struct cmid *cmid;

	/* Not on RoCE (as stock). */
	if (rdma_protocol_roce(ibdev, work->port->num))
		return -EINVAL;

	cmid = cmid_acquire(cpu_to_be32(IBA_GET(CM_LAP_REMOTE_COMM_ID, lap)),
			    cpu_to_be32(IBA_GET(CM_LAP_LOCAL_COMM_ID, lap)));
	if (!cmid)
		return -EINVAL;

	memset(path, 0, sizeof(*path));
	cm_path_set_rec_type(ibdev, work->port->num, path,
			     IBA_GET_MEM_PTR(CM_LAP_ALTERNATE_LOCAL_PORT_GID,
					     lap));
	cm_path_from_lap(cmid, lap, path);
	work->ev.param.lap_rcvd.alternate_path = path;
	work->ev.private_data = IBA_GET_MEM_PTR(CM_LAP_PRIVATE_DATA, lap);

	/* Answers go where the LAP came from; the QP's alternate path. */
	if (ib_init_ah_attr_from_wc(ibdev, work->port->num, work->rwc->wc,
				    work->rwc->recv_buf.grh, &ah))
		goto put;
	if (cm_av_from_path(path, NULL, &alt_av)) {
		rdma_destroy_ah_attr(&ah);
		goto put;
	}

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state != IB_CM_ESTABLISHED)
		goto unlock;
	switch (cmid->id.lap_state) {
	case IB_CM_LAP_UNINIT:
	case IB_CM_LAP_IDLE:
		break;
	case IB_CM_MRA_LAP_SENT:
		cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_LAP);
		cm_lap_repeat_mra(work, cmid);
		goto put;
	case IB_CM_LAP_RCVD:
		cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_LAP);
		goto unlock;
	default:
		goto unlock;
	}
	/* Only a LAP we take changes the address vectors. */
	cm_lap_set_avs(cmid, work, &ah, &alt_av);
	cmid->id.lap_state = IB_CM_LAP_RCVD;
	cmid->tid = lap->hdr.tid;
	cm_deliver_unlock(cmid, work);
	return 0;

unlock:
	spin_unlock_irq(&cmid->lock);
put:
	rdma_destroy_ah_attr(&ah);
	cm_av_destroy(&alt_av);
	cmid_put(cmid);
	return -EINVAL;
}

int cm_apr_recv(struct cm_work *work)
{
	struct cm_apr_msg *apr = (struct cm_apr_msg *)work->rwc->recv_buf.mad;
	struct ib_cm_apr_event_param *p = &work->ev.param.apr_rcvd;
	struct cmid *cmid;

	/* Not on RoCE (as stock). */
	if (rdma_protocol_roce(work->port->dev->ibdev, work->port->num))
		return -EINVAL;

	cmid = cmid_acquire(cpu_to_be32(IBA_GET(CM_APR_REMOTE_COMM_ID, apr)),
			    cpu_to_be32(IBA_GET(CM_APR_LOCAL_COMM_ID, apr)));
	if (!cmid)
		return -EINVAL;

	p->ap_status = IBA_GET(CM_APR_AR_STATUS, apr);
	p->apr_info = IBA_GET_MEM_PTR(CM_APR_ADDITIONAL_INFORMATION, apr);
	p->info_len = IBA_GET(CM_APR_ADDITIONAL_INFORMATION_LENGTH, apr);
	work->ev.private_data = IBA_GET_MEM_PTR(CM_APR_PRIVATE_DATA, apr);

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state != IB_CM_ESTABLISHED ||
	    (cmid->id.lap_state != IB_CM_LAP_SENT &&
	     cmid->id.lap_state != IB_CM_MRA_LAP_RCVD)) {
		spin_unlock_irq(&cmid->lock);
		cmid_put(cmid);
		return -EINVAL;
	}
	cmid->id.lap_state = IB_CM_LAP_IDLE;
	cm_cancel_msg(cmid);
	cm_deliver_unlock(cmid, work);
	return 0;
}

/* ------------------------------------------------------------------ */
/* ib_cm_notify()                                                      */

/*
 * COMM_EST: traffic came before the RTU.  The id is ESTABLISHED now; its
 * handler hears of it from icm.wq, like of a received RTU.
 */
static int cm_notify_established(struct cmid *cmid)
{
	struct cm_work *work;
	struct cm_dev *dev;
	unsigned long flags;
	int ret = 0;

	work = kzalloc(sizeof(*work), GFP_ATOMIC);
	if (!work)
		return -ENOMEM;

	spin_lock_irqsave(&cmid->lock, flags);
	switch (cmid->id.state) {
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cmid->id.state = IB_CM_ESTABLISHED;
		break;
	case IB_CM_ESTABLISHED:
		ret = -EISCONN;
		break;
	default:
		trace_icm_establish_err(&cmid->id);
		ret = -EINVAL;
		break;
	}
	dev = cmid->av.port ? cmid->av.port->dev : NULL;
	if (dev)
		kref_get(&dev->ref);
	spin_unlock_irqrestore(&cmid->lock, flags);
	if (ret)
		goto out;

	/*
	 * No reference on the id: a worker that held one could be the one
	 * to destroy it.  The worker looks it up by its comm IDs instead.
	 */
	INIT_WORK(&work->work, cm_work_run);
	work->local_id = cmid->id.local_id;
	work->remote_id = cmid->id.remote_id;
	work->ev.event = IB_CM_USER_ESTABLISHED;
	ret = dev ? cm_queue_work(dev, work) : -ENODEV;
out:
	if (ret)
		kfree(work);
	if (dev)
		cm_dev_put(dev);
	return ret;
}

/* PATH_MIG: the QP now uses the alternate path; it becomes the primary. */
static int cm_notify_migrated(struct cmid *cmid)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&cmid->lock, flags);
	if (cmid->id.state == IB_CM_ESTABLISHED &&
	    (cmid->id.lap_state == IB_CM_LAP_UNINIT ||
	     cmid->id.lap_state == IB_CM_LAP_IDLE)) {
		cmid->id.lap_state = IB_CM_LAP_IDLE;
		cm_av_set_port(&cmid->av, cmid->alt_av.port);
		cmid->av.pkey_index = cmid->alt_av.pkey_index;
		cmid->av.dlid_datapath = cmid->alt_av.dlid_datapath;
		cmid->av.timeout = cmid->alt_av.timeout;
		rdma_replace_ah_attr(&cmid->av.ah, &cmid->alt_av.ah);
	} else {
		ret = -EINVAL;
	}
	spin_unlock_irqrestore(&cmid->lock, flags);
	return ret;
}

/**
 * ib_cm_notify - tell the CM of a QP event
 * @cm_id: the connection's id
 * @event: IB_EVENT_COMM_EST or IB_EVENT_PATH_MIG
 *
 * Return: 0, -EISCONN for COMM_EST on an established id, -EINVAL for
 * other events or states.
 */
int ib_cm_notify(struct ib_cm_id *cm_id, enum ib_event_type event)
{
	switch (event) {
	case IB_EVENT_COMM_EST:
		return cm_notify_established(to_cmid(cm_id));
	case IB_EVENT_PATH_MIG:
		return cm_notify_migrated(to_cmid(cm_id));
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL(ib_cm_notify);

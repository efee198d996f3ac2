// SPDX-License-Identifier: GPL-2.0-only
/*
 * Disconnection (IBTA vol. 1, 12.9.8.4): DREQ and DREP, and the timewait
 * that follows every connection: for a while after it ends, its QP may
 * still see the peer's packets, and the id stays in TIMEWAIT; then it
 * goes back to IDLE with a TIMEWAIT_EXIT event and may be used again.
 */
#include <linux/slab.h>

#include "cm_priv.h"
#include "cm_trace.h"

static void cm_timewait_expired(struct work_struct *w);

/* A connection's timewait info, before the peer is known. */
struct cm_timewait *cm_timewait_alloc(__be32 local_id)
{
	struct cm_timewait *tw;

	/* Its event is freed with cm_work_free(): the whole tw goes. */
	BUILD_BUG_ON(offsetof(struct cm_timewait, ev) != 0);

	tw = kzalloc(sizeof(*tw), GFP_KERNEL);
	if (!tw)
		return NULL;
	tw->ev.local_id = local_id;
	tw->ev.ev.event = IB_CM_TIMEWAIT_EXIT;
	INIT_DELAYED_WORK(&tw->dwork, cm_timewait_expired);
	INIT_LIST_HEAD(&tw->entry);
	return tw;
}

/**
 * cm_enter_timewait - from a connection to TIMEWAIT
 * @cmid: the id, locked
 *
 * The connection leaves the remote trees; its timewait info goes to the
 * timer, which ends TIMEWAIT after the path's ACK timeout.  On a device
 * going away no timer runs and the info is freed now: the id stays in
 * TIMEWAIT until destroyed.
 */
void cm_enter_timewait(struct cmid *cmid)
{
	struct cm_timewait *tw = cmid->tw;
	struct cm_port *port = cmid->av.port;

	lockdep_assert_held(&cmid->lock);

	cmid->id.state = IB_CM_TIMEWAIT;
	if (WARN_ON_ONCE(!tw))
		return;
	cmid->tw = NULL;

	spin_lock(&icm.lock);
	cm_remove_remote(tw);
	if (port && !port->dev->going_down) {
		tw->dev = port->dev;
		list_add_tail(&tw->entry, &icm.timewait);
		queue_delayed_work(icm.wq, &tw->dwork,
				   msecs_to_jiffies(cm_ms(cmid->av.timeout)));
		tw = NULL;
	}
	spin_unlock(&icm.lock);
	if (tw)
		cm_work_free(&tw->ev);
}

/*
 * Device removal, with going_down just set: the device's timewaits end
 * now (no packet of theirs can come any more), on icm.wq, which the
 * removal flushes next.  Otherwise a timer of up to 2^31 * 4.096 us
 * would keep them, and their ids in TIMEWAIT, long after the device.
 */
void cm_timewait_expire_dev(struct cm_dev *dev)
{
	struct cm_timewait *tw;

	lockdep_assert_held(&icm.lock);

	list_for_each_entry(tw, &icm.timewait, entry)
		if (tw->dev == dev)
			mod_delayed_work(icm.wq, &tw->dwork, 0);
}

/* The timer: the id, if it is still that connection's, goes to IDLE. */
static void cm_timewait_expired(struct work_struct *w)
{
	struct cm_timewait *tw =
		container_of(to_delayed_work(w), struct cm_timewait, dwork);
	struct cmid *cmid;

	spin_lock_irq(&icm.lock);
	list_del(&tw->entry);
	spin_unlock_irq(&icm.lock);

	cmid = cmid_acquire(tw->ev.local_id, tw->ev.remote_id);
	if (!cmid)
		goto free;

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state != IB_CM_TIMEWAIT ||
	    cmid->remote_qpn != tw->remote_qpn) {
		spin_unlock_irq(&cmid->lock);
		cmid_put(cmid);
		goto free;
	}
	cmid->id.state = IB_CM_IDLE;
	cm_deliver_unlock(cmid, &tw->ev);
	return;
free:
	cm_work_free(&tw->ev);
}

/* Module exit, first: no timer fires any more once this returns. */
void cm_timewait_cancel_all(void)
{
	struct cm_timewait *tw;

	spin_lock_irq(&icm.lock);
	list_for_each_entry(tw, &icm.timewait, entry)
		cancel_delayed_work(&tw->dwork);
	spin_unlock_irq(&icm.lock);
}

/*
 * Module exit, last (icm.wq is gone): what the timers did not free.  Every
 * device's removal ended its timewaits, so nothing should be left; say so
 * if something is (cm_loop.sh looks for it).
 */
void cm_timewait_free_all(void)
{
	struct cm_timewait *tw, *next;
	unsigned int left = 0;

	list_for_each_entry_safe(tw, next, &icm.timewait, entry) {
		list_del(&tw->entry);
		cm_work_free(&tw->ev);
		left++;
	}
	if (left)
		pr_err("ib_cm: %u timewait entries outlived their devices\n",
		       left);
}

/* ------------------------------------------------------------------ */
/* DREQ                                                                */

static void cm_format_dreq(struct cm_dreq_msg *dreq, struct cmid *cmid,
			   const void *pdata, u8 pdata_len)
{
	cm_mad_hdr(&dreq->hdr, CM_DREQ_ATTR_ID, cm_tid(cmid), 0);
	IBA_SET(CM_DREQ_LOCAL_COMM_ID, dreq, be32_to_cpu(cmid->id.local_id));
	IBA_SET(CM_DREQ_REMOTE_COMM_ID, dreq, be32_to_cpu(cmid->id.remote_id));
	IBA_SET(CM_DREQ_REMOTE_QPN_EECN, dreq, be32_to_cpu(cmid->remote_qpn));
	if (pdata && pdata_len)
		IBA_SET_MEM(CM_DREQ_PRIVATE_DATA, dreq, pdata, pdata_len);
}

/*
 * From ESTABLISHED to DREQ_SENT; to TIMEWAIT if the DREQ cannot be sent
 * (the connection is over either way).
 */
int cm_dreq_locked(struct cmid *cmid, const void *pdata, u8 pdata_len)
{
	struct ib_mad_send_buf *msg;
	int ret;

	lockdep_assert_held(&cmid->lock);

	if (pdata && pdata_len > IB_CM_DREQ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	if (cmid->id.state != IB_CM_ESTABLISHED) {
		trace_icm_dreq_skipped(&cmid->id);
		return -EINVAL;
	}
	/* A LAP still waiting for its APR is over. */
	if (cmid->id.lap_state == IB_CM_LAP_SENT ||
	    cmid->id.lap_state == IB_CM_MRA_LAP_RCVD)
		cm_cancel_msg(cmid);

	msg = cm_msg_alloc_priv(cmid);
	if (IS_ERR(msg)) {
		cm_enter_timewait(cmid);
		return PTR_ERR(msg);
	}
	cm_format_dreq(msg->mad, cmid, pdata, pdata_len);
	msg->timeout_ms = cmid->timeout_ms;
	msg->context[1] = (void *)(unsigned long)IB_CM_DREQ_SENT;

	trace_icm_send_dreq(&cmid->id);
	ret = ib_post_send_mad(msg, NULL);
	if (ret) {
		cm_enter_timewait(cmid);
		cm_msg_free_priv(msg);
		return ret;
	}
	cmid->id.state = IB_CM_DREQ_SENT;
	return 0;
}

/**
 * ib_send_cm_dreq - disconnect
 * @cm_id: an ESTABLISHED id
 * @private_data: private data (up to IB_CM_DREQ_PRIVATE_DATA_SIZE)
 * @private_data_len: its length
 */
int ib_send_cm_dreq(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	struct cmid *cmid = to_cmid(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&cmid->lock, flags);
	ret = cm_dreq_locked(cmid, private_data, private_data_len);
	spin_unlock_irqrestore(&cmid->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_dreq);

static void cm_format_drep(struct cm_drep_msg *drep, struct cmid *cmid,
			   const void *pdata, u8 pdata_len)
{
	cm_mad_hdr(&drep->hdr, CM_DREP_ATTR_ID, cmid->tid, 0);
	IBA_SET(CM_DREP_LOCAL_COMM_ID, drep, be32_to_cpu(cmid->id.local_id));
	IBA_SET(CM_DREP_REMOTE_COMM_ID, drep, be32_to_cpu(cmid->id.remote_id));
	if (pdata && pdata_len)
		IBA_SET_MEM(CM_DREP_PRIVATE_DATA, drep, pdata, pdata_len);
}

/* A DREQ for a connection we do not know (any more): answer it anyway. */
static void cm_issue_drep(struct cm_port *port, struct ib_mad_recv_wc *rwc)
{
	struct cm_dreq_msg *dreq = (struct cm_dreq_msg *)rwc->recv_buf.mad;
	struct ib_mad_send_buf *msg;
	struct cm_drep_msg *drep;

	if (cm_resp_alloc(port, rwc, &msg))
		return;
	drep = msg->mad;
	cm_mad_hdr(&drep->hdr, CM_DREP_ATTR_ID, dreq->hdr.tid, 0);
	IBA_SET(CM_DREP_REMOTE_COMM_ID, drep,
		IBA_GET(CM_DREQ_LOCAL_COMM_ID, dreq));
	IBA_SET(CM_DREP_LOCAL_COMM_ID, drep,
		IBA_GET(CM_DREQ_REMOTE_COMM_ID, dreq));

	trace_icm_issue_drep(IBA_GET(CM_DREQ_LOCAL_COMM_ID, dreq),
			     IBA_GET(CM_DREQ_REMOTE_COMM_ID, dreq));
	if (ib_post_send_mad(msg, NULL))
		cm_resp_free(msg);
}

int cm_dreq_recv(struct cm_work *work)
{
	struct cm_dreq_msg *dreq = (struct cm_dreq_msg *)work->rwc->recv_buf.mad;
	struct ib_mad_send_buf *msg;
	struct cmid *cmid;

	cmid = cmid_acquire(cpu_to_be32(IBA_GET(CM_DREQ_REMOTE_COMM_ID, dreq)),
			    cpu_to_be32(IBA_GET(CM_DREQ_LOCAL_COMM_ID, dreq)));
	if (!cmid) {
		cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_DREQ);
		cm_issue_drep(work->port, work->rwc);
		trace_icm_no_priv_err(IBA_GET(CM_DREQ_LOCAL_COMM_ID, dreq),
				      IBA_GET(CM_DREQ_REMOTE_COMM_ID, dreq));
		return -EINVAL;
	}

	work->ev.private_data = IBA_GET_MEM_PTR(CM_DREQ_PRIVATE_DATA, dreq);

	spin_lock_irq(&cmid->lock);
	/* For our QP, or for some other connection of the same ids. */
	if (cmid->local_qpn !=
	    cpu_to_be32(IBA_GET(CM_DREQ_REMOTE_QPN_EECN, dreq)))
		goto drop;

	switch (cmid->id.state) {
	case IB_CM_REP_SENT:
	case IB_CM_DREQ_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(cmid);
		break;
	case IB_CM_ESTABLISHED:
		if (cmid->id.lap_state == IB_CM_LAP_SENT ||
		    cmid->id.lap_state == IB_CM_MRA_LAP_RCVD)
			cm_cancel_msg(cmid);
		break;
	case IB_CM_TIMEWAIT:
		/* Our DREP got lost: send it again. */
		cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_DREQ);
		msg = cm_resp_alloc_no_ah(work->port, work->rwc);
		if (IS_ERR(msg))
			goto drop;
		cm_format_drep(msg->mad, cmid, cmid->pdata, cmid->pdata_len);
		spin_unlock_irq(&cmid->lock);

		if (cm_resp_add_ah(work->port, work->rwc, msg) ||
		    ib_post_send_mad(msg, NULL))
			cm_resp_free(msg);
		cmid_put(cmid);
		return -EINVAL;
	case IB_CM_DREQ_RCVD:
		cm_count(work->port, CM_CNT_RX_DUPS, CM_CNT_DREQ);
		goto drop;
	default:
		trace_icm_dreq_unknown_err(&cmid->id);
		goto drop;
	}
	cmid->id.state = IB_CM_DREQ_RCVD;
	cmid->tid = dreq->hdr.tid;
	cm_deliver_unlock(cmid, work);
	return 0;

drop:
	spin_unlock_irq(&cmid->lock);
	cmid_put(cmid);
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* DREP                                                                */

/*
 * From DREQ_RCVD to TIMEWAIT, even when the DREP cannot be sent.  Takes
 * @pdata (kmalloc'ed or NULL): kept to answer repeated DREQs with.
 */
int cm_drep_locked(struct cmid *cmid, void *pdata, u8 pdata_len)
{
	struct ib_mad_send_buf *msg;
	int ret;

	lockdep_assert_held(&cmid->lock);

	if (pdata && pdata_len > IB_CM_DREP_PRIVATE_DATA_SIZE) {
		kfree(pdata);
		return -EINVAL;
	}
	if (cmid->id.state != IB_CM_DREQ_RCVD) {
		trace_icm_send_drep_err(&cmid->id);
		kfree(pdata);
		return -EINVAL;
	}

	cm_set_pdata(cmid, pdata, pdata_len);
	cm_enter_timewait(cmid);

	msg = cm_msg_alloc(cmid);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	cm_format_drep(msg->mad, cmid, pdata, pdata_len);

	trace_icm_send_drep(&cmid->id);
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		cm_msg_free(msg);
	return ret;
}

/**
 * ib_send_cm_drep - answer a disconnect request
 * @cm_id: an id in DREQ_RCVD; it enters TIMEWAIT even if sending fails
 * @private_data: private data (up to IB_CM_DREP_PRIVATE_DATA_SIZE)
 * @private_data_len: its length
 */
int ib_send_cm_drep(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	struct cmid *cmid = to_cmid(cm_id);
	unsigned long flags;
	void *pdata;
	int ret;

	pdata = cm_dup_pdata(private_data, private_data_len);
	if (IS_ERR(pdata))
		return PTR_ERR(pdata);

	spin_lock_irqsave(&cmid->lock, flags);
	ret = cm_drep_locked(cmid, pdata, private_data_len);
	spin_unlock_irqrestore(&cmid->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_drep);

int cm_drep_recv(struct cm_work *work)
{
	struct cm_drep_msg *drep = (struct cm_drep_msg *)work->rwc->recv_buf.mad;
	struct cmid *cmid;

	cmid = cmid_acquire(cpu_to_be32(IBA_GET(CM_DREP_REMOTE_COMM_ID, drep)),
			    cpu_to_be32(IBA_GET(CM_DREP_LOCAL_COMM_ID, drep)));
	if (!cmid)
		return -EINVAL;

	work->ev.private_data = IBA_GET_MEM_PTR(CM_DREP_PRIVATE_DATA, drep);

	spin_lock_irq(&cmid->lock);
	if (cmid->id.state != IB_CM_DREQ_SENT &&
	    cmid->id.state != IB_CM_DREQ_RCVD) {
		spin_unlock_irq(&cmid->lock);
		cmid_put(cmid);
		return -EINVAL;
	}
	cm_enter_timewait(cmid);
	cm_cancel_msg(cmid);
	cm_deliver_unlock(cmid, work);
	return 0;
}

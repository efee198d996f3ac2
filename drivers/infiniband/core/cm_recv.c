// SPDX-License-Identifier: GPL-2.0-only
/*
 * Received CM MADs: counted, queued on icm.wq (the MAD layer's context is
 * not where consumers' handlers should run), then handed to the handler
 * of their message type.  Local events (ib_cm_notify()) take the same way.
 */
#include <linux/slab.h>

#include "cm_priv.h"
#include "cm_trace.h"

/*
 * One row per CM attribute, indexed by attribute ID - 0x10.  A handler
 * returns 0 when it took the work (and frees it, or hands it on to an id),
 * an error when the work is to be freed here.
 */
struct cm_msg_type {
	enum ib_cm_event_type event;
	int (*recv)(struct cm_work *work);
};

static const struct cm_msg_type cm_msg_types[CM_CNT_MSGS] = {
	[CM_CNT_REQ]		= { IB_CM_REQ_RECEIVED, cm_req_recv },
	[CM_CNT_MRA]		= { IB_CM_MRA_RECEIVED, cm_mra_recv },
	[CM_CNT_REJ]		= { IB_CM_REJ_RECEIVED, cm_rej_recv },
	[CM_CNT_REP]		= { IB_CM_REP_RECEIVED, cm_rep_recv },
	[CM_CNT_RTU]		= { IB_CM_RTU_RECEIVED, cm_rtu_recv },
	[CM_CNT_DREQ]		= { IB_CM_DREQ_RECEIVED, cm_dreq_recv },
	[CM_CNT_DREP]		= { IB_CM_DREP_RECEIVED, cm_drep_recv },
	[CM_CNT_SIDR_REQ]	= { IB_CM_SIDR_REQ_RECEIVED, cm_sidr_req_recv },
	[CM_CNT_SIDR_REP]	= { IB_CM_SIDR_REP_RECEIVED, cm_sidr_rep_recv },
	[CM_CNT_LAP]		= { IB_CM_LAP_RECEIVED, cm_lap_recv },
	[CM_CNT_APR]		= { IB_CM_APR_RECEIVED, cm_apr_recv },
};

void cm_work_run(struct work_struct *w)
{
	struct cm_work *work = container_of(w, struct cm_work, work);
	int ret;

	if (work->ev.event == IB_CM_USER_ESTABLISHED) {
		ret = cm_established_recv(work);
	} else if (work->rwc) {
		unsigned int type = be16_to_cpu(work->rwc->recv_buf.mad->mad_hdr.attr_id) -
				    CM_FIRST_ATTR_ID;

		ret = cm_msg_types[type].recv(work);
	} else {
		trace_icm_handler_err(work->ev.event);
		ret = -EINVAL;
	}
	if (ret)
		cm_work_free(work);
}

/**
 * cm_queue_work - run a work on icm.wq unless its device goes away
 * @dev: the device
 * @work: initialised with cm_work_run()
 *
 * Return: 0, or -ENODEV (the work is the caller's again).
 */
int cm_queue_work(struct cm_dev *dev, struct cm_work *work)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&icm.lock, flags);
	if (dev->going_down)
		ret = -ENODEV;
	else
		queue_work(icm.wq, &work->work);
	spin_unlock_irqrestore(&icm.lock, flags);
	return ret;
}

/**
 * cm_recv - the MAD layer's receive handler for every CM agent
 * @agent: the port's agent
 * @send_buf: unused (the CM sends no requests the MAD layer matches)
 * @rwc: the received MAD; ours to free
 */
void cm_recv(struct ib_mad_agent *agent, struct ib_mad_send_buf *send_buf,
	     struct ib_mad_recv_wc *rwc)
{
	struct cm_port *port = agent->context;
	struct cm_work *work;
	unsigned int type;

	type = be16_to_cpu(rwc->recv_buf.mad->mad_hdr.attr_id) -
	       CM_FIRST_ATTR_ID;
	if (type >= CM_CNT_MSGS) {
		ib_free_recv_mad(rwc);
		return;
	}
	cm_count(port, CM_CNT_RX, type);

	work = kzalloc(sizeof(*work), GFP_ATOMIC);
	if (!work) {
		ib_free_recv_mad(rwc);
		return;
	}
	INIT_WORK(&work->work, cm_work_run);
	work->ev.event = cm_msg_types[type].event;
	work->rwc = rwc;
	work->port = port;

	if (cm_queue_work(port->dev, work))
		cm_work_free(work);
}

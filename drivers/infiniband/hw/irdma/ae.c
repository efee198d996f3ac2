// SPDX-License-Identifier: GPL-2.0-only
/*
 * Asynchronous events: the AEQ's entries (eq.c) to the verbs' events
 * of the QP or CQ they name.  Called from the AEQ's tasklet: the lookups
 * hold the object against its destruction (irdma_qp_get(), the CQ's
 * refs) for the handler's call only.
 *
 * Which events mean what (the E810 scoping §2.5; Debian's irdma maps
 * the same codes): a QP's access violations become IB_EVENT_QP_ACCESS_ERR,
 * its malformed or unexpected requests IB_EVENT_QP_REQ_ERR, any other
 * error IB_EVENT_QP_FATAL; a CQ's, IB_EVENT_CQ_ERR.  The device has
 * already flushed the QP's queues (its error entries); the QP's owner
 * moves it to the error state.  Completion of a suspend (SQD) is not an
 * error.
 */
#include "verbs.h"

#define IRDMA_AE_AMP_INVALID_STAG	0x103
#define IRDMA_AE_AMP_RIGHTS_VIOLATION	0x109
#define IRDMA_AE_IB_REMOTE_ACCESS_ERROR	0x20d
#define IRDMA_AE_UDA_XMIT_DGRAM_TOO_LONG 0x132
#define IRDMA_AE_IB_INVALID_REQUEST	0x208
#define IRDMA_AE_WQE_UNEXPECTED_OPCODE	0x20a
#define IRDMA_AE_IB_REMOTE_OP_ERROR	0x20e
#define IRDMA_AE_QP_SUSPEND_COMPLETE	0x900

/* The sources that name a CQ: 0x2, 0x6, 0xa, 0xe (low two bits 10). */
static bool irdma_ae_src_cq(u8 src)
{
	return (src & 0x3) == 0x2;
}

static enum ib_event_type irdma_qp_event_type(u16 ae)
{
	switch (ae) {
	case IRDMA_AE_AMP_INVALID_STAG:
	case IRDMA_AE_AMP_RIGHTS_VIOLATION:
	case IRDMA_AE_IB_REMOTE_ACCESS_ERROR:
		return IB_EVENT_QP_ACCESS_ERR;
	case IRDMA_AE_IB_INVALID_REQUEST:
	case IRDMA_AE_WQE_UNEXPECTED_OPCODE:
	case IRDMA_AE_IB_REMOTE_OP_ERROR:
	case IRDMA_AE_UDA_XMIT_DGRAM_TOO_LONG:
		return IB_EVENT_QP_REQ_ERR;
	default:
		return IB_EVENT_QP_FATAL;
	}
}

static void irdma_cq_async(struct irdma_dev *dev, u32 id)
{
	struct ib_event ev = { .event = IB_EVENT_CQ_ERR };
	struct irdma_cq *cq = irdma_cq_get(dev, id);

	if (!cq)
		return;
	ev.device = cq->ibcq.device;
	ev.element.cq = &cq->ibcq;
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	irdma_cq_put(cq);
}

static void irdma_qp_async(struct irdma_dev *dev, u32 id, u16 ae)
{
	struct ib_event ev = { .event = irdma_qp_event_type(ae) };
	struct irdma_qp *qp;

	qp = irdma_qp_get(dev, id);
	if (!qp)
		return;
	ev.device = qp->ibqp.device;
	ev.element.qp = &qp->ibqp;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	irdma_qp_put(qp);
}

void irdma_async_event(struct irdma_dev *dev, u16 ae_id, u8 src, u32 id,
		       u64 ctx)
{
	dev_dbg(dev->dma, "asynchronous event 0x%x, source 0x%x, object %u\n",
		ae_id, src, id);
	if (ae_id == IRDMA_AE_QP_SUSPEND_COMPLETE)
		return;
	if (irdma_ae_src_cq(src))
		irdma_cq_async(dev, id);
	else
		irdma_qp_async(dev, id, ae_id);
}

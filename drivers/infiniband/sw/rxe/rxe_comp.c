// SPDX-License-Identifier: GPL-2.0-only
/*
 * The completer (IBTA vol. 1, 9.7.5 and 9.9, the requester's side):
 * responses to the requester's packets, send completions, decisions to
 * retransmit.  It runs in the requester's task (see rxe_req.c).
 *
 * A response acknowledges every PSN up to its own: an ACK completes the
 * WQEs whose last PSN it covers (ACKs are coalesced), a READ response
 * or atomic acknowledgment carries its WQE's data, and any response
 * implicitly acknowledges the WQEs before it.  comp_psn is the oldest
 * PSN not acknowledged: whatever the requester sent from there on is
 * what a retransmission sends again.
 */
#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_ibta15.h"
#include "rxe_pktq.h"
#include "rxe_verbs.h"

/* IBTA vol. 1, table 45: RNR NAK timer field to microseconds. */
static const u32 rxe_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * The packet's QP reference is dropped here if the QP is being
 * destroyed (the task is stopped: rxe_req_stop() has purged or will
 * purge the queue, and nothing is queued after: rxe_pktq_add()), else
 * when it is consumed.
 */
void rxe_comp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb)
{
	if (!rxe_pktq_add(&qp->comp.pkts, skb, &qp->req.task)) {
		kfree_skb(skb);
		rxe_qp_put(qp);
		return;
	}
	rxe_task_run(&qp->req.task);
}

static u32 rxe_sq_next(struct rxe_qp *qp, u32 index)
{
	return (index + 1) & qp->sq.queue->index_mask;
}

static enum ib_wc_opcode rxe_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case RXE_WR_OP_ATOMIC_WRITE:
		return (enum ib_wc_opcode)RXE_WC_OP_ATOMIC_WRITE;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/* The send CQE of @wqe, in the format of the QP's consumer. */
static void rxe_comp_make_cqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			      union rxe_cqe *cqe)
{
	bool imm = wqe->wr.opcode == IB_WR_SEND_WITH_IMM ||
		   wqe->wr.opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	bool ok = wqe->status == IB_WC_SUCCESS;

	memset(cqe, 0, sizeof(*cqe));
	if (qp->is_user) {
		struct ib_uverbs_wc *uwc = &cqe->uibwc;

		uwc->wr_id = wqe->wr.wr_id;
		uwc->status = wqe->status;
		uwc->qp_num = qp->ibqp.qp_num;
		uwc->opcode = rxe_wc_opcode(wqe->wr.opcode);
		if (ok) {
			uwc->byte_len = wqe->dma.length;
			uwc->wc_flags = imm ? IB_WC_WITH_IMM : 0;
		}
	} else {
		struct ib_wc *wc = &cqe->ibwc;

		wc->wr_id = wqe->wr.wr_id;
		wc->status = wqe->status;
		wc->qp = &qp->ibqp;
		wc->opcode = rxe_wc_opcode(wqe->wr.opcode);
		if (ok) {
			wc->byte_len = wqe->dma.length;
			wc->wc_flags = imm ? IB_WC_WITH_IMM : 0;
		}
	}
}

/*
 * Completes one WQE (the SQ's oldest) and frees its slot.  The slot is
 * free before the CQE is visible: an application that posts its next
 * WR on seeing the completion, into an SQ that was full (perftest's
 * latency tests keep one WR in a queue of one), must find room.
 */
static void rxe_comp_complete(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	union rxe_cqe cqe;
	bool post;

	if (wqe->has_rd_atomic) {
		wqe->has_rd_atomic = 0;
		qp->req.rd_atomic++;
	}
	/* Errors are always completed (IBA 10.7.2.2). */
	post = qp->sq_sig_type == IB_SIGNAL_ALL_WR ||
	       (wqe->wr.send_flags & IB_SEND_SIGNALED) ||
	       wqe->status != IB_WC_SUCCESS;
	if (post)
		rxe_comp_make_cqe(qp, wqe, &cqe);
	/* As stock: every completed SEND, whatever its status. */
	if (wqe->mask & RXE_WR_SEND)
		rxe_qp_counter_inc(qp, RXE_CNT_RDMA_SEND);
	/* The application may reuse the slot from here: @wqe is gone. */
	rxe_queue_advance_consumer(qp->sq.queue);
	if (post)
		rxe_cq_post(to_rcq(qp->ibqp.send_cq), &cqe, false);
}

/* Completes the WQEs at the head of the SQ that are DONE; how many. */
int rxe_comp_complete_done(struct rxe_qp *qp)
{
	struct rxe_queue *q = qp->sq.queue;
	struct rxe_send_wqe *wqe;
	int n = 0;

	while (q->cons != qp->req.wqe_index) {
		wqe = rxe_sq_wqe(qp, q->cons);
		if (wqe->state != RXE_WQE_DONE)
			break;
		rxe_comp_complete(qp, wqe);
		n++;
	}
	return n;
}

/* ERR: every WQE completes, those not done with IB_WC_WR_FLUSH_ERR. */
void rxe_comp_flush(struct rxe_qp *qp)
{
	struct rxe_req_info *req = &qp->req;
	struct rxe_queue *q = qp->sq.queue;
	struct rxe_send_wqe *wqe;
	u32 prod = rxe_sq_prod(qp);

	while (q->cons != prod) {
		if (qp->is_user && q->cons == req->fetched) {
			rxe_sq_fetch(qp, req->fetched);
			req->fetched = rxe_sq_next(qp, req->fetched);
		}
		wqe = rxe_sq_wqe(qp, q->cons);
		if (wqe->state != RXE_WQE_DONE) {
			wqe->state = RXE_WQE_DONE;
			wqe->status = IB_WC_WR_FLUSH_ERR;
		}
		rxe_comp_complete(qp, wqe);
	}
	req->wqe_index = q->cons;
	req->fetched = q->cons;
	del_timer(&req->retrans_timer);
	del_timer(&req->rnr_timer);
	req->rnr_wait = false;
}

struct rxe_send_wqe *rxe_comp_oldest(struct rxe_qp *qp)
{
	u32 end = qp->req.wqe_index, index;
	struct rxe_send_wqe *wqe;

	if (end != rxe_sq_prod(qp) &&
	    rxe_sq_wqe(qp, end)->state == RXE_WQE_SENDING)
		end = rxe_sq_next(qp, end);
	for (index = qp->sq.queue->cons; index != end;
	     index = rxe_sq_next(qp, index)) {
		wqe = rxe_sq_wqe(qp, index);
		if (wqe->state != RXE_WQE_DONE)
			return wqe;
	}
	return NULL;
}

/*
 * Timeouts that prove spurious lengthen the timer, up to the four times
 * the QP's timeout that IBTA allows: a late answer (a slow or loaded
 * host) is not a loss.  A timeout was spurious when the answer to its
 * probe acknowledges everything outstanding, past what the probe
 * carried (the responder had it all from the first time), or arrives
 * before the probe left.  A lost ACK looks the same; so the timer
 * comes back one step each time a window empties without a timeout
 * (rxe_comp_progress()), and a lossy wire never keeps it long.
 */
#define RXE_TIMEOUT_SHIFT_MAX	2

static void rxe_comp_spurious(struct rxe_req_info *req)
{
	if (req->timeout_shift < RXE_TIMEOUT_SHIFT_MAX)
		req->timeout_shift++;
}

/* The requester sends a probe next, and nothing new until it is answered. */
static void rxe_comp_owe_probe(struct rxe_req_info *req)
{
	req->probe_owed = true;
	req->probing = true;
}

/*
 * Progress past the probe's last PSN answers it.
 *  - Everything acknowledged: the timeout was spurious.
 *  - Up to the probe exactly, with more outstanding: the responder holds
 *    nothing after the probe, which was the hole; the rest goes again at
 *    once.
 *  - Beyond the probe, with more outstanding: the responder had more
 *    than the probe, and either its answers are late or a packet after
 *    them is lost (a burst's last packet, or one whose NAK was lost: the
 *    common case, as ACKs are coalesced and comp_psn lags behind).  A
 *    second probe, at the new comp_psn, tells at once; waiting for the
 *    next timeout instead cost one more timeout per loss.  One such
 *    probe per timeout: each costs a duplicate when the answers are only
 *    late, so a timeout costs at most two.
 */
static void rxe_comp_probe_answered(struct rxe_qp *qp)
{
	struct rxe_req_info *req = &qp->req;
	u32 next = (req->probe_psn + 1) & RXE_BTH_PSN_MASK;
	bool beyond = rxe_psn_cmp(req->comp_psn, next) > 0;

	req->probing = false;
	if (req->comp_psn == req->psn) {
		if (beyond)
			rxe_comp_spurious(req);
		return;
	}
	if (beyond) {
		if (req->reprobe) {
			req->reprobe = false;
			rxe_comp_owe_probe(req);
		}
		return;
	}
	rxe_req_rewind(qp);
	req->in_retry = true;
}

/*
 * Progress: the retry budgets start over, the timer runs on, and comes
 * back one step when the window empties with no timeout in it.
 */
static void rxe_comp_progress(struct rxe_qp *qp, u32 psn)
{
	struct rxe_req_info *req = &qp->req;

	req->comp_psn = psn;
	req->retry_left = READ_ONCE(qp->attr.retry_cnt);
	req->rnr_left = READ_ONCE(qp->attr.rnr_retry);
	req->in_retry = false;
	/* A timeout that fired before this progress is stale. */
	clear_bit(RXE_REQ_EV_TIMEOUT, &req->events);
	if (req->probe_owed) {
		/* Answered before the probe left: it was premature. */
		req->probe_owed = false;
		req->probing = false;
		rxe_comp_spurious(req);
	} else if (req->probing && rxe_psn_cmp(psn, req->probe_psn) > 0) {
		rxe_comp_probe_answered(qp);
	}
	if (req->comp_psn != req->psn) {
		rxe_req_arm_retrans(qp);
		return;
	}
	del_timer(&req->retrans_timer);
	if (!req->window_timed_out && req->timeout_shift)
		req->timeout_shift--;
	req->window_timed_out = false;
}

/* The oldest WQE fails with @status: the QP goes to ERR (flushes). */
static void rxe_comp_fail(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			  enum ib_wc_status status)
{
	wqe->status = status;
	wqe->state = RXE_WQE_DONE;
	rxe_comp_complete_done(qp);
	rxe_qp_error(qp);
}

/*
 * Takes one retry from the budget (retry_cnt 7: always one left); when
 * none is left, @wqe fails with IB_WC_RETRY_EXC_ERR and false is
 * returned.
 */
static bool rxe_comp_take_retry(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_req_info *req = &qp->req;

	if (!req->retry_left) {
		rxe_qp_counter_inc(qp, RXE_CNT_RETRY_EXCEEDED);
		rxe_comp_fail(qp, wqe, IB_WC_RETRY_EXC_ERR);
		return false;
	}
	/*
	 * IBTA gives retry_cnt 7 no special meaning, but stock rxe retries
	 * for ever then, and the rdma-core tools ask for 7: as stock, so
	 * that a slow peer (a debug kernel, a loaded host) never fails a
	 * transfer the stock stack completes.
	 */
	if (req->retry_left != 7)
		req->retry_left--;
	rxe_qp_counter_inc(qp, RXE_CNT_COMP_RETRY);
	return true;
}

/*
 * A gap the responder named (a NAK, a READ response after a hole): sends
 * again from comp_psn, if retries are left.
 */
static void rxe_comp_retry(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe = rxe_comp_oldest(qp);

	if (!wqe || !rxe_comp_take_retry(qp, wqe))
		return;
	qp->req.in_retry = true;
	rxe_req_rewind(qp);
	rxe_req_arm_retrans(qp);
}

/*
 * A timeout: the oldest unacknowledged packet goes again, alone, with
 * AckReq (a probe), and nothing else is sent until progress answers it
 * (rxe_comp_probe_answered()).  Going back N at once sends the whole
 * window again, up to 128 packets, when most often the responder lacks
 * none of them and only its answer is late: on the debug kernel under
 * TCG, 16 QPs sending 64 KiB messages to each other spent nine tenths
 * of their packets on such copies, each making the answers later still,
 * and never caught up.  A lost packet costs one round trip more than
 * going back N would.
 */
static void rxe_comp_timeout(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe = rxe_comp_oldest(qp);
	struct rxe_req_info *req = &qp->req;

	if (!wqe || !rxe_comp_take_retry(qp, wqe))
		return;
	rxe_comp_owe_probe(req);
	req->reprobe = true;
	req->window_timed_out = true;
	rxe_req_arm_retrans(qp);
}

/*
 * Marks DONE the WQEs whose every PSN is before @psn (@psn itself too
 * if @inclusive).  A READ or atomic among them lacks its response: the
 * responses were lost, -EAGAIN.  Stops at the first WQE not covered,
 * and moves comp_psn up to @psn: an acknowledgment covers the packets
 * of a SEND or WRITE before it, but nothing of a READ or atomic, whose
 * PSNs only its own responses, taken in order, acknowledge.  A READ
 * response that overtook the ones before it (two CPUs sending into a
 * veth do that) must leave comp_psn where the data stopped, or it
 * would be taken as the next one and its data land in the wrong place.
 */
static int rxe_comp_ack(struct rxe_qp *qp, u32 psn, bool inclusive)
{
	struct rxe_req_info *req = &qp->req;
	struct rxe_send_wqe *wqe;
	u32 upto = inclusive ? (psn + 1) & RXE_BTH_PSN_MASK : psn;

	while ((wqe = rxe_comp_oldest(qp))) {
		if (wqe->state != RXE_WQE_PENDING ||
		    rxe_psn_cmp(wqe->last_psn, upto) >= 0)
			break;
		if (wqe->mask & RXE_WR_RD_ATOMIC)
			return -EAGAIN;
		wqe->state = RXE_WQE_DONE;
		rxe_comp_complete_done(qp);
	}
	if (wqe && (wqe->mask & RXE_WR_RD_ATOMIC) &&
	    rxe_psn_cmp(upto, wqe->first_psn) > 0)
		upto = wqe->first_psn;
	if (rxe_psn_cmp(upto, req->comp_psn) > 0)
		rxe_comp_progress(qp, upto);
	return 0;
}

/*
 * A READ response or atomic acknowledgment that missed a page of an ODP
 * MR of @wqe (rxe_odp.c): dropped, with what follows it, while the pages
 * are faulted in; then the requester sends again from comp_psn, as
 * after an RNR NAK (rxe_req_odp_done()) but with no retry counted.
 */
static void rxe_comp_odp_miss(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_req_info *req = &qp->req;

	req->rnr_wait = true;
	del_timer(&req->retrans_timer);
	rxe_odp_fault_sgl(&req->odp, &wqe->dma, wqe->dma.cur_sge,
			  wqe->dma.sge_offset);
}

/* A READ response, an ATOMIC WRITE's, or an atomic ACK at comp_psn. */
static void rxe_comp_data(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	struct rxe_pd *pd = to_rpd(qp->ibqp.pd);
	struct rxe_send_wqe *wqe = rxe_comp_oldest(qp);
	struct rxe_dma_pos pos;
	u64 orig;
	int err;

	if (!wqe || rxe_psn_cmp(pkt->psn, wqe->first_psn) < 0 ||
	    rxe_psn_cmp(rxe_pkt_last_psn(pkt), wqe->last_psn) > 0 ||
	    !(wqe->mask & ((pkt->mask & RXE_ATMACK_MASK) ? RXE_WR_ATOMIC :
			   RXE_WR_READ | RXE_WR_ATOMIC_WRITE)))
		return;	/* not what we asked for: ignored */

	if (wqe->mask & RXE_WR_ATOMIC_WRITE) {
		/* Its answer: one READ response, without data. */
		if (pkt->opcode != IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY ||
		    rxe_payload_size(pkt)) {
			rxe_comp_fail(qp, wqe, IB_WC_BAD_RESP_ERR);
			return;
		}
		wqe->state = RXE_WQE_DONE;
		rxe_comp_progress(qp, (pkt->psn + 1) & RXE_BTH_PSN_MASK);
		rxe_comp_complete_done(qp);
		return;
	}

	pos = rxe_dma_get_pos(&wqe->dma);
	if (pkt->mask & RXE_ATMACK_MASK) {
		orig = atmack_orig(pkt);
		err = rxe_copy_sgl(pd, IB_ACCESS_LOCAL_WRITE, &wqe->dma, &orig,
				   sizeof(orig), RXE_TO_MR);
	} else {
		err = rxe_copy_pkt_to_sgl(pd, &wqe->dma, pkt);
	}
	if (err == -EAGAIN && !rxe_odp_fault_error(&qp->req.odp)) {
		/* Placed again in full when it comes again. */
		rxe_dma_set_pos(&wqe->dma, pos);
		rxe_comp_odp_miss(qp, wqe);
		return;
	}
	if (err) {
		rxe_comp_fail(qp, wqe, IB_WC_LOC_PROT_ERR);
		return;
	}
	/*
	 * The last response of a READ that brought less than was asked
	 * for: the rest of the buffer was never written.  IBTA 9.9.2 (a
	 * response of the wrong length): a bad response, not a success.
	 */
	if ((pkt->mask & RXE_READ_MASK) && (pkt->mask & RXE_END_MASK) &&
	    wqe->dma.resid) {
		rxe_comp_fail(qp, wqe, IB_WC_BAD_RESP_ERR);
		return;
	}
	if ((pkt->mask & RXE_ATMACK_MASK) || (pkt->mask & RXE_END_MASK))
		wqe->state = RXE_WQE_DONE;
	rxe_comp_progress(qp, (rxe_pkt_last_psn(pkt) + 1) & RXE_BTH_PSN_MASK);
	rxe_comp_complete_done(qp);
}

static enum ib_wc_status rxe_nak_status(u8 code)
{
	switch (code) {
	case RXE_NAK_REM_ACC_ERR:
		return IB_WC_REM_ACCESS_ERR;
	case RXE_NAK_REM_OP_ERR:
		return IB_WC_REM_OP_ERR;
	case RXE_NAK_INV_RD_REQ:
		return IB_WC_REM_INV_RD_REQ_ERR;
	default:
		return IB_WC_REM_INV_REQ_ERR;
	}
}

static void rxe_comp_rnr(struct rxe_qp *qp, u8 syn)
{
	struct rxe_req_info *req = &qp->req;
	struct rxe_send_wqe *wqe = rxe_comp_oldest(qp);

	rxe_qp_counter_inc(qp, RXE_CNT_RCV_RNR);
	if (!wqe)
		return;
	if (!req->rnr_left) {
		rxe_qp_counter_inc(qp, RXE_CNT_RNR_RETRY_EXCEEDED);
		rxe_comp_fail(qp, wqe, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	/* IBA 9.7.5.2.8: 7 retries for ever. */
	if (req->rnr_left != 7)
		req->rnr_left--;
	req->rnr_wait = true;
	del_timer(&req->retrans_timer);
	mod_timer(&req->rnr_timer, jiffies +
		  max(usecs_to_jiffies(rxe_rnr_usecs[syn & 0x1f]), 1UL));
}

/* One response packet. */
static void rxe_comp_rcv(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	struct rxe_req_info *req = &qp->req;
	struct rxe_send_wqe *wqe;
	u32 psn = pkt->psn;
	u8 syn = RXE_AETH_ACK;

	if (qp->ibqp.qp_type != IB_QPT_RC || req->rnr_wait)
		return;
	/* Older than anything outstanding (a duplicate) or never sent. */
	if (rxe_psn_cmp(psn, req->comp_psn) < 0 ||
	    rxe_psn_cmp(rxe_pkt_last_psn(pkt), req->psn) >= 0)
		return;

	if (pkt->mask & RXE_AETH_MASK)
		syn = aeth_syn(pkt);

	switch (syn & RXE_AETH_TYPE_MASK) {
	case RXE_AETH_ACK:
		if (pkt->mask & (RXE_READ_MASK | RXE_ATMACK_MASK)) {
			/* Implies the ACK of everything before it. */
			if (rxe_comp_ack(qp, psn, false) ||
			    psn != req->comp_psn) {
				/* A response before this one was lost. */
				if (!req->in_retry)
					rxe_comp_retry(qp);
				return;
			}
			rxe_comp_data(qp, pkt);
			return;
		}
		if (rxe_comp_ack(qp, psn, true) && !req->in_retry)
			rxe_comp_retry(qp);
		return;
	case RXE_AETH_RNR_NAK:
		if (rxe_comp_ack(qp, psn, false))
			return;
		rxe_comp_rnr(qp, syn);
		return;
	case RXE_AETH_NAK:
		if (rxe_comp_ack(qp, psn, false))
			return;
		if ((syn & ~RXE_AETH_TYPE_MASK) == RXE_NAK_PSN_SEQ_ERR) {
			rxe_qp_counter_inc(qp, RXE_CNT_RCV_SEQ_ERR);
			if (!req->in_retry)
				rxe_comp_retry(qp);
			return;
		}
		wqe = rxe_comp_oldest(qp);
		if (wqe)
			rxe_comp_fail(qp, wqe,
				      rxe_nak_status(syn & ~RXE_AETH_TYPE_MASK));
		return;
	default:
		return;
	}
}

/* SQD: once nothing is outstanding, IB_EVENT_SQ_DRAINED, once. */
static void rxe_comp_check_drained(struct rxe_qp *qp)
{
	struct rxe_req_info *req = &qp->req;
	struct ib_event ev;

	if (req->drained || qp->sq.queue->cons != req->wqe_index)
		return;
	if (req->wqe_index != rxe_sq_prod(qp) &&
	    rxe_sq_wqe(qp, req->wqe_index)->state == RXE_WQE_SENDING)
		return;

	spin_lock_bh(&qp->lock);
	if (qp->attr.qp_state != IB_QPS_SQD) {
		spin_unlock_bh(&qp->lock);
		return;
	}
	qp->attr.sq_draining = 0;
	spin_unlock_bh(&qp->lock);

	req->drained = true;
	if (qp->ibqp.event_handler) {
		ev.device = qp->ibqp.device;
		ev.element.qp = &qp->ibqp;
		ev.event = IB_EVENT_SQ_DRAINED;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

/* One step of the completer; 0 if it did anything. */
int rxe_comp_step(struct rxe_qp *qp)
{
	struct rxe_req_info *req = &qp->req;
	enum ib_qp_state state = READ_ONCE(qp->attr.qp_state);
	struct sk_buff *skb;

	if (state == IB_QPS_RESET) {
		rxe_pktq_purge(&qp->comp.pkts, qp);
		return 1;
	}
	if (state == IB_QPS_ERR) {
		rxe_pktq_purge(&qp->comp.pkts, qp);
		rxe_comp_flush(qp);
		return 1;
	}

	if (test_and_clear_bit(RXE_REQ_EV_RNR, &req->events)) {
		if (req->rnr_wait) {
			req->rnr_wait = false;
			rxe_req_rewind(qp);
			rxe_req_arm_retrans(qp);
		}
		return 0;
	}
	/*
	 * Responses first: the timer may have fired while the ACKs that
	 * make it stale were queued here, unread (a slow CPU, a long
	 * burst to send).  Their progress clears the timeout; going back
	 * N before reading them would resend a whole window for nothing,
	 * and on a slow enough host every window again.
	 */
	skb = rxe_pktq_take(&qp->comp.pkts);
	if (skb) {
		rxe_comp_rcv(qp, rxe_skb_pkt(skb));
		kfree_skb(skb);
		rxe_qp_put(qp);
		return 0;
	}
	if (test_and_clear_bit(RXE_REQ_EV_TIMEOUT, &req->events)) {
		if (!req->rnr_wait && req->comp_psn != req->psn)
			rxe_comp_timeout(qp);
		return 0;
	}

	if (rxe_comp_complete_done(qp))
		return 0;
	if (state == IB_QPS_SQD)
		rxe_comp_check_drained(qp);
	return 1;
}

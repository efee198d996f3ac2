// SPDX-License-Identifier: GPL-2.0-only
/*
 * The requester (IBTA vol. 1, 9.5-9.8, the sender's side): send WQEs to
 * request packets, local operations in WQE order, the retransmission
 * and RNR timers.
 *
 * The requester and the completer of a QP are one task (rxe_req_task()):
 * both walk the same WQEs (the requester from req.wqe_index, the
 * completer from the SQ's consumer index), and a retransmission moves
 * the requester back under the completer's decision.  Run as one, they
 * need no lock between them and cannot see a WQE half updated; the cost,
 * a response waiting while a packet is built, is nothing next to the
 * copies both do.
 *
 * Indices of the SQ, oldest first:
 *	cons		oldest WQE not completed (completer)
 *	wqe_index	next WQE to send from (requester)
 *	fetched		user QPs: WQEs before it are copied in and checked
 *	prod		next free slot (the poster)
 */
#include <linux/vmalloc.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_ibta15.h"
#include "rxe_pktq.h"
#include "rxe_verbs.h"

/*
 * Sent lately: the responder then expects this QP to answer what it
 * receives soon enough for an ACK to wait for the answer (rxe_xmit.c).
 */
#define RXE_REQ_LATELY		msecs_to_jiffies(10)

static u32 rxe_sq_next(struct rxe_qp *qp, u32 index)
{
	return (index + 1) & qp->sq.queue->index_mask;
}

/*
 * Payload per packet: the path MTU for connected QPs, even above the
 * port's active MTU (IBTA 9.7.3.1.1: FIRST and MIDDLE packets carry
 * exactly the PMTU, the responder checks it; stock sends the same), the
 * port's MTU for datagrams.  Fixed when the QP is modified (as stock),
 * so that a retransmission segments a message as the first
 * transmission did.
 */
static u32 rxe_req_calc_mtu(struct rxe_qp *qp)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	enum ib_mtu mtu = READ_ONCE(rxe->port.attr.active_mtu);

	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
		mtu = qp->attr.path_mtu;
	return ib_mtu_enum_to_int(mtu);
}

u32 rxe_req_mtu(struct rxe_qp *qp)
{
	return READ_ONCE(qp->req.mtu);
}

/*
 * IBTA 9.7.6.1.3: 4.096 us * 2^timeout; 0 is infinite (no timer).  That
 * is the shortest wait: the timer may run up to four times as long, and
 * does so after timeouts that proved spurious (rxe_comp_progress()).
 */
void rxe_req_arm_retrans(struct rxe_qp *qp)
{
	u8 timeout = READ_ONCE(qp->attr.timeout);
	unsigned long j;

	if (!timeout || qp->ibqp.qp_type != IB_QPT_RC)
		return;
	timeout += qp->req.timeout_shift;
	j = nsecs_to_jiffies(4096ULL << min_t(u8, timeout, 31));
	mod_timer(&qp->req.retrans_timer, jiffies + max(j, 1UL));
}

/* Positions @dma @skip bytes into its message, as if sent so far. */
static void rxe_dma_seek(struct rxe_send_wqe *wqe, u32 skip)
{
	struct rxe_dma_info *dma = &wqe->dma;
	u32 room;

	dma->resid = dma->length - min(skip, dma->length);
	dma->cur_sge = 0;
	dma->sge_offset = 0;
	if (wqe->wr.send_flags & IB_SEND_INLINE)
		return;
	skip = dma->length - dma->resid;
	while (skip && dma->cur_sge < dma->num_sge) {
		room = dma->sge[dma->cur_sge].length;
		if (skip < room) {
			dma->sge_offset = skip;
			break;
		}
		skip -= room;
		dma->cur_sge++;
	}
}

/*
 * Sends again from the oldest unacknowledged PSN (comp_psn): each WQE
 * not completed goes back to be sent; the oldest resumes inside its
 * message if the responder has part of it (a NAK for a PSN inside it).
 */
void rxe_req_rewind(struct rxe_qp *qp)
{
	struct rxe_req_info *req = &qp->req;
	u32 end = req->wqe_index, index = qp->sq.queue->cons;
	u32 mtu = rxe_req_mtu(qp);
	struct rxe_send_wqe *wqe;
	bool first = true;

	/* The WQE being sent counts too. */
	if (end != rxe_sq_prod(qp) &&
	    rxe_sq_wqe(qp, end)->state == RXE_WQE_SENDING)
		end = rxe_sq_next(qp, end);

	req->wqe_index = end;
	for (; index != end; index = rxe_sq_next(qp, index)) {
		wqe = rxe_sq_wqe(qp, index);
		if (wqe->state == RXE_WQE_DONE)
			continue;
		if (first) {
			req->wqe_index = index;
			first = false;
		}
		if (wqe->state == RXE_WQE_POSTED)
			continue;
		if (wqe->has_rd_atomic) {
			wqe->has_rd_atomic = 0;
			req->rd_atomic++;
		}
		if (rxe_psn_cmp(req->comp_psn, wqe->first_psn) > 0 &&
		    (wqe->mask & (RXE_WR_SEND | RXE_WR_WRITE))) {
			/* The responder has the packets before comp_psn. */
			rxe_dma_seek(wqe, rxe_psn_dist(req->comp_psn,
						       wqe->first_psn) * mtu);
			wqe->state = RXE_WQE_SENDING;
			continue;
		}
		/* A READ keeps what arrived and asks for the rest. */
		if (!(wqe->mask & RXE_WR_READ) ||
		    rxe_psn_cmp(req->comp_psn, wqe->first_psn) <= 0)
			rxe_dma_seek(wqe, 0);
		wqe->state = RXE_WQE_POSTED;
	}
	req->psn = req->comp_psn;
	req->noack_pkts = 0;
	/* Everything goes again: no probe is owed or awaited. */
	req->probe_owed = false;
	req->probing = false;
}

/* The BTH opcode of the next packet of @wqe. */
static int rxe_req_opcode(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			  bool first, bool last)
{
	u8 t;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		t = IB_OPCODE_RC;
		break;
	case IB_QPT_UC:
		t = IB_OPCODE_UC;
		break;
	default:
		t = IB_OPCODE_UD;
		break;
	}

	switch (wqe->wr.opcode) {
	case IB_WR_SEND:
		if (first)
			return t | (last ? IB_OPCODE_SEND_ONLY :
					   IB_OPCODE_SEND_FIRST);
		return t | (last ? IB_OPCODE_SEND_LAST : IB_OPCODE_SEND_MIDDLE);
	case IB_WR_SEND_WITH_IMM:
		if (first)
			return t | (last ? IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE :
					   IB_OPCODE_SEND_FIRST);
		return t | (last ? IB_OPCODE_SEND_LAST_WITH_IMMEDIATE :
				   IB_OPCODE_SEND_MIDDLE);
	case IB_WR_SEND_WITH_INV:
		if (first)
			return t | (last ? IB_OPCODE_SEND_ONLY_WITH_INVALIDATE :
					   IB_OPCODE_SEND_FIRST);
		return t | (last ? IB_OPCODE_SEND_LAST_WITH_INVALIDATE :
				   IB_OPCODE_SEND_MIDDLE);
	case IB_WR_RDMA_WRITE:
		if (first)
			return t | (last ? IB_OPCODE_RDMA_WRITE_ONLY :
					   IB_OPCODE_RDMA_WRITE_FIRST);
		return t | (last ? IB_OPCODE_RDMA_WRITE_LAST :
				   IB_OPCODE_RDMA_WRITE_MIDDLE);
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (first)
			return t | (last ?
				    IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE :
				    IB_OPCODE_RDMA_WRITE_FIRST);
		return t | (last ? IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE :
				   IB_OPCODE_RDMA_WRITE_MIDDLE);
	case IB_WR_RDMA_READ:
		return t | IB_OPCODE_RDMA_READ_REQUEST;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return t | IB_OPCODE_COMPARE_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return t | IB_OPCODE_FETCH_ADD;
	case RXE_WR_OP_ATOMIC_WRITE:
		return RXE_OPCODE_RC_ATOMIC_WRITE;
	default:
		return -EINVAL;
	}
}

/* A WQE that failed here: completes with @status, the QP goes to ERR. */
static void rxe_req_fail(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			 enum ib_wc_status status)
{
	wqe->status = status;
	wqe->state = RXE_WQE_DONE;
	qp->req.wqe_index = rxe_sq_next(qp, qp->req.wqe_index);
	rxe_counter_inc(to_rdev(qp->ibqp.device), RXE_CNT_SEND_ERR);
	rxe_qp_error(qp);
}

/* LOCAL_INV, REG_MR, BIND_MW: done now, completed in order. */
static void rxe_req_local(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	enum ib_wc_status status = IB_WC_LOC_QP_OP_ERR;
	int err;

	switch (wqe->wr.opcode) {
	case IB_WR_LOCAL_INV:
		err = rxe_invalidate_key(qp, wqe->wr.ex.invalidate_rkey,
					 false);
		break;
	case IB_WR_REG_MR:
		err = rxe_mr_fast_reg(qp, wqe);
		break;
	case IB_WR_BIND_MW:
		err = rxe_mw_bind(qp, wqe);
		status = IB_WC_MW_BIND_ERR;
		break;
	default:
		err = -EINVAL;
	}
	if (err) {
		rxe_req_fail(qp, wqe, status);
		return;
	}
	wqe->state = RXE_WQE_DONE;
	qp->req.wqe_index = rxe_sq_next(qp, qp->req.wqe_index);
}

/*
 * Writes the extension headers the opcode carries; @resid: the bytes of
 * the message not sent before this packet.
 */
static void rxe_req_headers(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			    struct rxe_pkt_info *pkt, u32 resid)
{
	u32 mask = pkt->mask;
	u32 qkey;

	if (mask & RXE_DETH_MASK) {
		qkey = wqe->wr.wr.ud.remote_qkey;
		/* IBA 10.2.5: a Q_Key with the high bit set means the QP's. */
		if (qkey & 0x80000000)
			qkey = READ_ONCE(qp->attr.qkey);
		deth_init(pkt, qkey, qp->ibqp.qp_num);
	}
	if (mask & RXE_RETH_MASK)
		reth_init(pkt, wqe->iova + wqe->dma.length - resid,
			  wqe->wr.wr.rdma.rkey, resid);
	if (mask & RXE_ATMETH_MASK) {
		if (wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP)
			atmeth_init(pkt, wqe->iova, wqe->wr.wr.atomic.rkey,
				    wqe->wr.wr.atomic.swap,
				    wqe->wr.wr.atomic.compare_add);
		else
			atmeth_init(pkt, wqe->iova, wqe->wr.wr.atomic.rkey,
				    wqe->wr.wr.atomic.compare_add, 0);
	}
	if (mask & RXE_IMMDT_MASK)
		immdt_init(pkt, wqe->wr.ex.imm_data);
	if (mask & RXE_IETH_MASK)
		ieth_init(pkt, wqe->wr.ex.invalidate_rkey);
}

static int rxe_req_payload(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			   void *payload, u32 len)
{
	struct rxe_dma_info *dma = &wqe->dma;

	if (!len)
		return 0;
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		memcpy(payload, dma->inline_data + dma->length - dma->resid,
		       len);
		dma->resid -= len;
		return 0;
	}
	return rxe_copy_sgl(to_rpd(qp->ibqp.pd), 0, dma, payload, len,
			    RXE_FROM_MR);
}

/*
 * Whether the payload may go by reference to the pages of the MRs
 * rather than be copied into the packet.  The receiver must read it
 * before the memory can change or go: so only to a QP of this host (the
 * packet is executed there, never sent), and only over RC, whose WQE
 * completes once acknowledged, and the responder acknowledges a packet
 * after copying it out.  A UC or UD WQE completes once sent, and inline
 * data lives in the WQE.  (A WQE flushed while its packets are still
 * queued at the responder lets the application write the memory before
 * they are copied; the page references keep it from being anyone
 * else's memory by then.)
 */
static bool rxe_req_by_ref(struct rxe_qp *qp, const struct rxe_send_wqe *wqe,
			   const struct rxe_av *av, u32 len)
{
	return len && qp->ibqp.qp_type == IB_QPT_RC &&
	       !(wqe->wr.send_flags & IB_SEND_INLINE) && rxe_av_to_self(av);
}

static struct sk_buff *rxe_req_packet_ref(struct rxe_qp *qp,
					  struct rxe_send_wqe *wqe,
					  const struct rxe_av *av, u8 opcode,
					  u32 len, struct rxe_pkt_info *pkt,
					  int *err)
{
	struct rxe_dma_info *dma = &wqe->dma;
	struct rxe_dma_pos pos = rxe_dma_get_pos(dma);
	struct sk_buff *skb;

	skb = rxe_init_packet_ref(qp, av, opcode, len, pkt);
	if (unlikely(!skb))
		return NULL;
	*err = rxe_attach_sgl(to_rpd(qp->ibqp.pd), dma, len, skb);
	if (!*err)
		*err = rxe_end_packet_ref(skb, pkt);
	if (likely(!*err))
		return skb;

	kfree_skb(skb);
	/* Not pinned user pages, or too many: the caller copies. */
	if (rxe_attach_refused(*err))
		rxe_dma_set_pos(dma, pos);
	return NULL;
}

/*
 * The skb of the next packet of @wqe with its @len payload bytes in
 * place, by reference where @ref and it can, else copied; NULL with
 * *@err 0 when out of memory, with *@err set when the scatter list is
 * bad.
 */
static struct sk_buff *rxe_req_packet(struct rxe_qp *qp,
				      struct rxe_send_wqe *wqe,
				      const struct rxe_av *av, u8 opcode,
				      u32 len, struct rxe_pkt_info *pkt,
				      bool ref, int *err)
{
	struct sk_buff *skb;

	*err = 0;
	if (ref && rxe_req_by_ref(qp, wqe, av, len)) {
		skb = rxe_req_packet_ref(qp, wqe, av, opcode, len, pkt, err);
		if (skb || (*err && !rxe_attach_refused(*err)))
			return skb;
		*err = 0;
	}

	skb = rxe_init_packet(qp, av, opcode, len, pkt);
	if (unlikely(!skb))
		return NULL;
	*err = rxe_req_payload(qp, wqe, rxe_payload_addr(pkt), len);
	if (*err) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * What building one packet changes in the requester and its WQE, to be
 * put back when the packet never left: the next attempt then builds the
 * same packet, with the same PSN, instead of leaving a gap that only a
 * retransmission of everything after it would fill.
 */
struct rxe_req_undo {
	u32			psn;
	u32			noack_pkts;
	u32			wqe_index;
	enum rxe_wqe_state	state;
	u32			first_psn;
	u32			last_psn;
	struct rxe_dma_pos	pos;
};

static void rxe_req_save(struct rxe_qp *qp, const struct rxe_send_wqe *wqe,
			 struct rxe_req_undo *undo)
{
	undo->psn = qp->req.psn;
	undo->noack_pkts = qp->req.noack_pkts;
	undo->wqe_index = qp->req.wqe_index;
	undo->state = wqe->state;
	undo->first_psn = wqe->first_psn;
	undo->last_psn = wqe->last_psn;
	undo->pos = rxe_dma_get_pos(&wqe->dma);
}

static void rxe_req_restore(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			    const struct rxe_req_undo *undo)
{
	qp->req.psn = undo->psn;
	qp->req.noack_pkts = undo->noack_pkts;
	qp->req.wqe_index = undo->wqe_index;
	wqe->state = undo->state;
	wqe->first_psn = undo->first_psn;
	wqe->last_psn = undo->last_psn;
	rxe_dma_set_pos(&wqe->dma, undo->pos);
	/* Not started after all: rxe_req_step() takes the credit again. */
	if (undo->state == RXE_WQE_POSTED && wqe->has_rd_atomic) {
		wqe->has_rd_atomic = 0;
		qp->req.rd_atomic++;
	}
}

/*
 * Building a packet of @wqe missed a page of an ODP MR (rxe_odp.c): a
 * fault of the rest of its scatter list from where the packet began
 * (@pos), and the task runs again once it is done;
 * meanwhile the caller puts the WQE back and stops.  -EFAULT instead
 * when the last fault of the send side failed: the packet then fails as
 * it would on a pinned MR.
 */
static int rxe_req_odp_miss(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			    struct rxe_dma_pos pos)
{
	if (rxe_odp_fault_error(&qp->req.odp))
		return -EFAULT;
	rxe_odp_fault_sgl(&qp->req.odp, &wqe->dma, pos.cur_sge,
			  pos.sge_offset);
	return 0;
}

/*
 * The next packet of @wqe from its position: @len payload bytes, whether
 * it is the message's @last, and the PSNs it takes (a READ request takes
 * one per response packet).
 */
static void rxe_req_extent(struct rxe_qp *qp, const struct rxe_send_wqe *wqe,
			   u32 *len, bool *last, u32 *npsn)
{
	u32 mtu = rxe_req_mtu(qp);

	*len = 0;
	*last = true;
	*npsn = 1;
	if (wqe->mask & (RXE_WR_SEND | RXE_WR_WRITE | RXE_WR_ATOMIC_WRITE)) {
		*last = wqe->dma.resid <= mtu;
		*len = min(wqe->dma.resid, mtu);
	} else if (wqe->mask & RXE_WR_READ) {
		*npsn = max_t(u32, DIV_ROUND_UP(wqe->dma.resid, mtu), 1);
	}
}

/*
 * Whether the next packets of @wqe may leave as one burst (rxe_xmit.c,
 * "Bursts"): a SEND or WRITE of more than one packet left, whose
 * payload goes by reference.  If so, *@len, *@last and *@npsn are the
 * burst's: up to RXE_BURST_BYTES, and within the window of PSNs not
 * acknowledged, which a burst fills as its packets would.
 */
static bool rxe_req_burst(struct rxe_qp *qp, const struct rxe_send_wqe *wqe,
			  const struct rxe_av *av, u32 *len, bool *last,
			  u32 *npsn)
{
	struct rxe_req_info *req = &qp->req;
	u32 mtu = rxe_req_mtu(qp);
	u32 resid = wqe->dma.resid;
	u32 unacked = rxe_psn_dist(req->psn, req->comp_psn);
	u32 n;

	if (!(wqe->mask & (RXE_WR_SEND | RXE_WR_WRITE)) || resid <= mtu ||
	    unacked >= RXE_MAX_UNACKED_PSNS ||
	    !rxe_req_by_ref(qp, wqe, av, resid))
		return false;
	n = min3(DIV_ROUND_UP(resid, mtu), RXE_BURST_BYTES / mtu,
		 RXE_MAX_UNACKED_PSNS - unacked);
	if (n < 2)
		return false;
	*len = min(resid, n * mtu);
	*last = *len == resid;
	*npsn = n;
	return true;
}

/*
 * The BTH of @pkt, PSN @psn and AckReq @ack, and the extension headers
 * its opcode carries; @resid: the bytes of the message not sent before.
 */
static void rxe_req_write_headers(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
				  struct rxe_pkt_info *pkt, int opcode,
				  u32 len, bool last, u32 dqpn, bool ack,
				  u32 psn, u32 resid)
{
	bool se = last && (wqe->wr.send_flags & IB_SEND_SOLICITED) &&
		  (pkt->mask & (RXE_SEND_MASK | RXE_IMMDT_MASK));

	pkt->psn = psn;
	bth_init(pkt, opcode, se, -len & 3, IB_DEFAULT_PKEY_FULL, dqpn, ack,
		 psn);
	rxe_req_headers(qp, wqe, pkt, resid);
}

/* Builds and sends the next packet of @wqe. */
static int rxe_req_send_pkt(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_req_info *req = &qp->req;
	bool first = wqe->state == RXE_WQE_POSTED;
	u32 len, npsn, dqpn, resid;
	const struct rxe_av *av;
	struct rxe_av path;
	struct rxe_pkt_info pkt;
	struct sk_buff *skb = NULL;
	struct rxe_req_undo undo;
	bool last, ack, burst, ref = true;
	int opcode, err = 0;

	rxe_req_extent(qp, wqe, &len, &last, &npsn);
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		if (!last) {
			rxe_req_fail(qp, wqe, IB_WC_LOC_LEN_ERR);
			return 0;
		}
		av = &wqe->wr.wr.ud.av;
		dqpn = wqe->wr.wr.ud.remote_qpn;
	} else {
		rxe_qp_path(qp, &path);
		av = &path;
		dqpn = READ_ONCE(qp->attr.dest_qp_num);
	}
	burst = rxe_req_burst(qp, wqe, av, &len, &last, &npsn);

	opcode = rxe_req_opcode(qp, wqe, first, last);
	if (opcode < 0) {
		rxe_req_fail(qp, wqe, IB_WC_LOC_QP_OP_ERR);
		return 0;
	}

	/* Before the payload moves the WQE on. */
	rxe_req_save(qp, wqe, &undo);
	resid = wqe->dma.resid;
	if (burst) {
		skb = rxe_req_packet_ref(qp, wqe, av, opcode, len, &pkt, &err);
		if (!skb && (!err || rxe_attach_refused(err))) {
			/*
			 * Not by reference after all: one packet, which
			 * tries again only if fewer fragments may do (a
			 * kernel MR would refuse it once more).
			 */
			burst = false;
			ref = err != -EOPNOTSUPP;
			err = 0;
			rxe_req_extent(qp, wqe, &len, &last, &npsn);
			opcode = rxe_req_opcode(qp, wqe, first, last);
		}
	}
	if (!skb && !err)
		skb = rxe_req_packet(qp, wqe, av, opcode, len, &pkt, ref,
				     &err);
	if (err == -EAGAIN &&
	    !rxe_req_odp_miss(qp, wqe, undo.pos)) {
		rxe_req_restore(qp, wqe, &undo);
		return 1;
	}
	if (err) {
		rxe_req_fail(qp, wqe, IB_WC_LOC_PROT_ERR);
		return 0;
	}
	if (unlikely(!skb)) {
		rxe_req_restore(qp, wqe, &undo);
		return rxe_xmit_wait_start(&req->xmit_wait);
	}

	/* A payload packet takes one PSN, a burst's packets one each. */
	ack = (pkt.mask & RXE_END_MASK) || !(pkt.mask & RXE_PAYLOAD_MASK) ||
	      (req->noack_pkts += npsn) > RXE_MAX_PKT_PER_ACK;
	if (ack)
		req->noack_pkts = 0;
	rxe_req_write_headers(qp, wqe, &pkt, opcode, len, last, dqpn, ack,
			      req->psn, resid);

	if (first)
		wqe->first_psn = req->psn;
	req->psn = (req->psn + npsn) & RXE_BTH_PSN_MASK;
	if (last) {
		wqe->last_psn = (req->psn - 1) & RXE_BTH_PSN_MASK;
		/* Nothing answers UC and UD: done once sent. */
		wqe->state = qp->ibqp.qp_type == IB_QPT_RC ? RXE_WQE_PENDING :
							     RXE_WQE_DONE;
		req->wqe_index = rxe_sq_next(qp, req->wqe_index);
	} else {
		wqe->state = RXE_WQE_SENDING;
	}

	/*
	 * The timer waits for the response a packet asked for, so a packet
	 * with AckReq starts it again: the time it took to send the
	 * message up to here (paused by a netdev that refused packets, on
	 * a slow host) is not time the response was late.  Started at the
	 * first packet only, it expired within long messages on the debug
	 * kernel, and each retry sent the whole message again, to expire
	 * again.  A lost response is still found: the window and the SQ
	 * bound how long packets keep coming.
	 */
	if (qp->ibqp.qp_type == IB_QPT_RC &&
	    (ack || !timer_pending(&req->retrans_timer)))
		rxe_req_arm_retrans(qp);

	WRITE_ONCE(req->sent_at, jiffies);
	/* May deliver inline (loopback): no lock is held here. */
	if (burst)
		err = rxe_xmit_burst(qp, av, skb, &req->batch, npsn);
	else
		err = rxe_xmit_packet(qp, av, skb, &req->batch);
	if (likely(!err)) {
		rxe_xmit_wait_sent(&req->xmit_wait);
		return 0;
	}
	/* A full queue: the same packet again, a little later. */
	if (err == -EAGAIN) {
		rxe_req_restore(qp, wqe, &undo);
		return rxe_xmit_wait_start(&req->xmit_wait);
	}
	/*
	 * No route, or no netdev any more: nothing will ever reach the
	 * peer.  As stock, the WQE completes with a local QP operation
	 * error and the QP goes to ERR, so that applications see their
	 * WRs end instead of retrying for ever (retry_cnt 7 is infinite).
	 */
	wqe->status = IB_WC_LOC_QP_OP_ERR;
	wqe->state = RXE_WQE_DONE;
	if (!last)
		req->wqe_index = rxe_sq_next(qp, req->wqe_index);
	rxe_qp_error(qp);
	return 0;
}

/* The probed WQE failed here: it completes so, the QP goes to ERR. */
static void rxe_req_probe_fail(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			       enum ib_wc_status status)
{
	wqe->status = status;
	wqe->state = RXE_WQE_DONE;
	qp->req.probing = false;
	rxe_qp_error(qp);
}

/*
 * The probe after a timeout (rxe_comp_timeout()): the packet at comp_psn
 * built again, with AckReq, and the WQE left as it was.  For a SEND or a
 * WRITE that packet; for a READ, the request for what has not arrived
 * (the responder replays it); for an atomic or an ATOMIC WRITE, the
 * request again (the responder answers from its replay cache).
 */
static int rxe_req_send_probe(struct rxe_qp *qp)
{
	struct rxe_req_info *req = &qp->req;
	struct rxe_send_wqe *wqe = rxe_comp_oldest(qp);
	struct rxe_dma_pos pos;
	u32 len, npsn, off, resid;
	struct rxe_req_undo undo;
	struct rxe_pkt_info pkt;
	struct rxe_av path;
	struct sk_buff *skb;
	bool last;
	int opcode, err;

	req->probe_owed = false;
	if (!wqe || wqe->state == RXE_WQE_POSTED) {
		/* Answered meanwhile: nothing sent is unanswered. */
		req->probing = false;
		return 0;
	}

	if (rxe_psn_cmp(req->comp_psn, wqe->first_psn) < 0) {
		/* comp_psn is not in it: no one packet to probe with. */
		rxe_req_rewind(qp);
		return 0;
	}
	off = rxe_psn_dist(req->comp_psn, wqe->first_psn);
	rxe_req_save(qp, wqe, &undo);
	/* A READ's position is already past what arrived (the completer). */
	if (wqe->mask & (RXE_WR_SEND | RXE_WR_WRITE | RXE_WR_ATOMIC_WRITE))
		rxe_dma_seek(wqe, off * rxe_req_mtu(qp));
	pos = rxe_dma_get_pos(&wqe->dma);
	rxe_req_extent(qp, wqe, &len, &last, &npsn);
	opcode = rxe_req_opcode(qp, wqe, !off, last);
	resid = wqe->dma.resid;
	rxe_qp_path(qp, &path);
	skb = rxe_req_packet(qp, wqe, &path, opcode, len, &pkt, true, &err);
	if (skb)
		rxe_req_write_headers(qp, wqe, &pkt, opcode, len, last,
				      READ_ONCE(qp->attr.dest_qp_num), true,
				      req->comp_psn, resid);
	if (err == -EAGAIN && !rxe_req_odp_miss(qp, wqe, pos)) {
		rxe_req_restore(qp, wqe, &undo);
		req->probe_owed = true;
		return 1;
	}
	rxe_req_restore(qp, wqe, &undo);
	if (unlikely(err)) {
		rxe_counter_inc(to_rdev(qp->ibqp.device), RXE_CNT_SEND_ERR);
		rxe_req_probe_fail(qp, wqe, IB_WC_LOC_PROT_ERR);
		return 0;
	}
	if (unlikely(!skb)) {
		req->probe_owed = true;
		return rxe_xmit_wait_start(&req->xmit_wait);
	}

	/* probing stays set from the timeout: nothing new goes meanwhile. */
	req->probe_psn = (req->comp_psn + npsn - 1) & RXE_BTH_PSN_MASK;
	rxe_req_arm_retrans(qp);
	WRITE_ONCE(req->sent_at, jiffies);
	err = rxe_xmit_packet(qp, &path, skb, &req->batch);
	if (likely(!err)) {
		rxe_xmit_wait_sent(&req->xmit_wait);
		return 0;
	}
	if (err == -EAGAIN) {
		req->probe_owed = true;
		return rxe_xmit_wait_start(&req->xmit_wait);
	}
	/* No route, or no netdev any more (see rxe_req_send_pkt()). */
	rxe_req_probe_fail(qp, wqe, IB_WC_LOC_QP_OP_ERR);
	return 0;
}

/* Whether the WQE at wqe_index may start now. */
static bool rxe_req_may_start(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_req_info *req = &qp->req;

	/* IBA 10.8.3.3: after every earlier operation is done. */
	if ((wqe->wr.send_flags & IB_SEND_FENCE) &&
	    req->wqe_index != qp->sq.queue->cons)
		return false;
	if ((wqe->mask & RXE_WR_RD_ATOMIC) && req->rd_atomic <= 0)
		return false;
	if (qp->ibqp.qp_type == IB_QPT_RC &&
	    rxe_psn_dist(req->psn, req->comp_psn) >= RXE_MAX_UNACKED_PSNS)
		return false;
	return true;
}

/* One step of the requester; 0 if it did anything. */
static int rxe_req_step(struct rxe_qp *qp, enum ib_qp_state state)
{
	struct rxe_req_info *req = &qp->req;
	struct rxe_send_wqe *wqe;

	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return 1;
	if (req->rnr_wait || rxe_xmit_waiting(&req->xmit_wait))
		return 1;
	if (req->probe_owed)
		return rxe_req_send_probe(qp);
	/* Nothing new while a probe is out. */
	if (req->probing || req->wqe_index == rxe_sq_prod(qp))
		return 1;

	if (qp->is_user && req->wqe_index == req->fetched) {
		rxe_sq_fetch(qp, req->fetched);
		req->fetched = rxe_sq_next(qp, req->fetched);
	}
	wqe = rxe_sq_wqe(qp, req->wqe_index);

	if (wqe->state == RXE_WQE_DONE) {
		if (wqe->status != IB_WC_SUCCESS) {
			/* Refused when fetched. */
			req->wqe_index = rxe_sq_next(qp, req->wqe_index);
			rxe_counter_inc(to_rdev(qp->ibqp.device),
					RXE_CNT_SEND_ERR);
			rxe_qp_error(qp);
			return 0;
		}
		/* A local operation already done before a rewind. */
		req->wqe_index = rxe_sq_next(qp, req->wqe_index);
		return 0;
	}

	if (wqe->state == RXE_WQE_POSTED) {
		/* SQD: what was started finishes, nothing new starts. */
		if (state == IB_QPS_SQD)
			return 1;
		if (!rxe_req_may_start(qp, wqe))
			return 1;
		if (wqe->mask & RXE_WR_LOCAL) {
			rxe_req_local(qp, wqe);
			return 0;
		}
		if (wqe->mask & RXE_WR_RD_ATOMIC) {
			wqe->has_rd_atomic = 1;
			req->rd_atomic--;
		}
	}
	return rxe_req_send_pkt(qp, wqe);
}

/*
 * The engine's state from the attributes, after modify_qp asked for it
 * (RESET, or RTR to RTS): nothing is in flight then.
 */
static void rxe_req_reinit(struct rxe_qp *qp)
{
	struct rxe_req_info *req = &qp->req;

	lockdep_assert_held(&qp->lock);

	req->wqe_index = qp->sq.queue->cons;
	req->fetched = req->wqe_index;
	req->psn = qp->attr.sq_psn;
	req->comp_psn = req->psn;
	req->noack_pkts = 0;
	req->rd_atomic = qp->attr.max_rd_atomic;
	req->retry_left = qp->attr.retry_cnt;
	req->rnr_left = qp->attr.rnr_retry;
	req->mtu = rxe_req_calc_mtu(qp);
	req->rnr_wait = false;
	req->timeout_shift = 0;
	req->probe_owed = false;
	req->probing = false;
	req->reprobe = false;
	req->window_timed_out = false;
	rxe_xmit_wait_reset(&req->xmit_wait);
	req->drained = false;
	req->events = 0;
	req->need_init = false;
	/* Not lately, whatever jiffies is. */
	WRITE_ONCE(req->sent_at, jiffies - RXE_REQ_LATELY - 1);
}

/* The task of the requester and the completer: see the top comment. */
int rxe_req_task(struct rxe_qp *qp)
{
	enum ib_qp_state state;

	spin_lock_bh(&qp->lock);
	if (qp->req.need_init)
		rxe_req_reinit(qp);
	state = qp->attr.qp_state;
	spin_unlock_bh(&qp->lock);

	if (state == IB_QPS_RESET) {
		/* Responses to a QP reset are stale. */
		rxe_comp_step(qp);
		return 1;
	}
	if (!rxe_comp_step(qp))
		return 0;
	return rxe_req_step(qp, state);
}

/* The end of a run of the task: its packets leave together. */
static void rxe_req_task_end(struct rxe_qp *qp)
{
	/* With the ACK the responder parked for it, if any. */
	rxe_xmit_flush(&qp->req.batch, &qp->resp.park);
}

bool rxe_req_sent_lately(struct rxe_qp *qp)
{
	return time_before(jiffies, READ_ONCE(qp->req.sent_at) +
				    RXE_REQ_LATELY);
}

static void rxe_req_retrans_timer(struct timer_list *t)
{
	struct rxe_qp *qp = from_timer(qp, t, req.retrans_timer);

	set_bit(RXE_REQ_EV_TIMEOUT, &qp->req.events);
	rxe_task_sched(&qp->req.task);
}

static void rxe_req_rnr_timer(struct timer_list *t)
{
	struct rxe_qp *qp = from_timer(qp, t, req.rnr_timer);

	set_bit(RXE_REQ_EV_RNR, &qp->req.events);
	rxe_task_sched(&qp->req.task);
}

/*
 * A fault of the send side is done: the requester goes on, and a
 * completer that missed (rxe_comp_odp_miss()) resends from comp_psn as
 * at the end of an RNR wait.
 */
static void rxe_req_odp_done(struct rxe_qp *qp)
{
	set_bit(RXE_REQ_EV_RNR, &qp->req.events);
	rxe_task_sched(&qp->req.task);
}

int rxe_req_init(struct rxe_qp *qp)
{
	struct rxe_queue *q = qp->sq.queue;

	rxe_task_init(&qp->req.task, qp, rxe_req_task, rxe_req_task_end);
	rxe_pktq_init(&qp->comp.pkts);
	spin_lock_init(&qp->req.sq_lock);
	timer_setup(&qp->req.retrans_timer, rxe_req_retrans_timer, 0);
	timer_setup(&qp->req.rnr_timer, rxe_req_rnr_timer, 0);
	rxe_xmit_wait_init(&qp->req.xmit_wait, &qp->req.task,
			   RXE_XMIT_WAIT_MAX_BACKOFF);
	rxe_odp_fault_init(&qp->req.odp, qp, rxe_req_odp_done);
	qp->req.need_init = true;
	qp->req.sent_at = jiffies - RXE_REQ_LATELY - 1;

	if (qp->is_user) {
		qp->req.log2_elem = q->log2_elem_size;
		qp->req.shadow = rxe_queue_vmalloc(array_size(q->index_mask + 1,
							      BIT(q->log2_elem_size)));
		if (!qp->req.shadow)
			return -ENOMEM;
	}
	return 0;
}

/*
 * After modify_qp stored the attributes, qp->lock held.  The engine
 * starts over on RESET and when the QP first becomes able to send; a
 * change of the retry counts applies from the next response on.
 */
void rxe_req_modify(struct rxe_qp *qp, int mask, enum ib_qp_state old)
{
	enum ib_qp_state state = qp->attr.qp_state;

	lockdep_assert_held(&qp->lock);

	if (mask & IB_QP_PATH_MTU)
		WRITE_ONCE(qp->req.mtu, rxe_req_calc_mtu(qp));
	if (!(mask & IB_QP_STATE))
		return;
	if (state == IB_QPS_RESET ||
	    (state == IB_QPS_RTS && old != IB_QPS_RTS && old != IB_QPS_SQD &&
	     old != IB_QPS_SQE))
		qp->req.need_init = true;
	if (state == IB_QPS_SQD)
		qp->req.drained = false;
}

/* After modify_qp, without the lock: the new state may have work. */
void rxe_req_kick(struct rxe_qp *qp)
{
	rxe_task_run(&qp->req.task);
}

/*
 * No run starts after the task is stopped; the timers only schedule the
 * task, so once it is stopped they can be shut down for good.  Packets
 * queued to the completer go with their references; later ones are
 * dropped by rxe_comp_queue_pkt(), which checks the stopped task under
 * the queue's lock (rxe_pktq_add()).
 */
void rxe_req_stop(struct rxe_qp *qp)
{
	rxe_task_stop(&qp->req.task);
	rxe_odp_fault_stop(&qp->req.odp);
	del_timer_sync(&qp->req.retrans_timer);
	del_timer_sync(&qp->req.rnr_timer);
	rxe_xmit_wait_stop(&qp->req.xmit_wait);

	rxe_pktq_purge(&qp->comp.pkts, qp);
}

void rxe_req_cleanup(struct rxe_qp *qp)
{
	vfree(qp->req.shadow);
	qp->req.shadow = NULL;
}

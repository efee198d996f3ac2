// SPDX-License-Identifier: GPL-2.0-only
/*
 * The responder (IBTA vol. 1, 9.7): executes the requests a QP
 * receives, completes receive WQEs and answers with ACKs, NAKs, READ
 * responses and atomic acknowledgements.
 *
 * The receive path queues each request with a reference on its QP
 * (rxe_resp_queue_pkt()); the QP's responder task takes them in order,
 * one per round, and is the only one to touch the state it keeps in
 * struct rxe_resp_info.  Nothing here holds a spinlock while sending:
 * a response to a QP of this host is delivered, and handled by its
 * completer, within rxe_xmit_packet().  Responses to another host are
 * batched (resp.batch) and leave when the task's run ends.
 *
 * Errors inside are negative errnos; what they become is decided once,
 * by the transport's error handler:
 *
 *	-EAGAIN		no receive WQE: RNR NAK (RC), dropped (UC, UD)
 *	-EINPROGRESS	a page of ODP memory not mapped (rxe_odp.c): no
 *			answer; the packet is held and handled again once
 *			the page is faulted in (rxe_resp_odp_miss())
 *	-EINVAL		invalid request: NAK, QP to ERR (RC)
 *	-ENOSPC		length: as an invalid request (RC)
 *	-EACCES		remote access error: NAK, QP to ERR (RC)
 *	-EIO		remote operation error (bad receive WQE): NAK, ERR
 *	-EOVERFLOW	the receive CQ overflowed: QP to ERR, no answer
 */
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/slab.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_ibta15.h"
#include "rxe_pktq.h"
#include "rxe_verbs.h"

/* Bytes of GRH a UD receive buffer starts with (IBTA 11.4.1.1). */
#define RXE_GRH_BYTES		40

/* The QP's attributes a round of the task works with. */
struct rxe_resp_ctx {
	enum ib_qp_state	state;
	u32			mtu;
	int			access;
	u8			min_rnr_timer;
	u32			dest_qpn;
	unsigned int		num_res;
	/* The path every packet of this round goes by (rxe_qp_path()). */
	struct rxe_av		av;
};

static struct rxe_dev *rxe_resp_dev(struct rxe_qp *qp)
{
	return to_rdev(qp->ibqp.device);
}

/* ---- packets out ---- */

/*
 * The BTH of a response of @opcode in @pkt, and the AETH, if the opcode
 * has one, with @syn and the current MSN.
 */
static void rxe_resp_headers(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			     struct rxe_pkt_info *pkt, u8 opcode, u32 payload,
			     u32 psn, u8 syn)
{
	pkt->psn = psn;
	bth_init(pkt, opcode, false, -payload & 3, IB_DEFAULT_PKEY_FULL,
		 ctx->dest_qpn, false, psn);
	if (pkt->mask & RXE_AETH_MASK)
		aeth_init(pkt, syn, qp->resp.msn);
}

/*
 * A response of @opcode to the QP's peer with room for @payload bytes,
 * its headers written (rxe_resp_headers()).  NULL when out of memory:
 * the requester's retry asks again.
 */
static struct sk_buff *rxe_resp_packet(struct rxe_qp *qp,
				       const struct rxe_resp_ctx *ctx,
				       struct rxe_pkt_info *pkt, u8 opcode,
				       u32 payload, u32 psn, u8 syn)
{
	struct sk_buff *skb;

	skb = rxe_init_packet(qp, &ctx->av, opcode, payload, pkt);
	if (likely(skb))
		rxe_resp_headers(qp, ctx, pkt, opcode, payload, psn, syn);
	return skb;
}

/*
 * Every response leaves after the ACK parked before it, if any; @npsn:
 * the PSNs it stands for (rxe_xmit_burst()).  -EAGAIN when the netdev
 * refused it (see rxe_resp_read_next()).
 */
static int rxe_resp_xmit(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			 struct sk_buff *skb, u16 npsn)
{
	rxe_ack_unpark(&qp->resp.park, &qp->resp.batch);
	return rxe_xmit_burst(qp, &ctx->av, skb, &qp->resp.batch, npsn);
}

/* An ACK or NAK (RC_ACKNOWLEDGE) for @psn; NULL when out of memory. */
static struct sk_buff *rxe_resp_ack_packet(struct rxe_qp *qp,
					   const struct rxe_resp_ctx *ctx,
					   u8 syn, u32 psn)
{
	struct rxe_pkt_info pkt;

	return rxe_resp_packet(qp, ctx, &pkt, IB_OPCODE_RC_ACKNOWLEDGE, 0,
			       psn, syn);
}

/*
 * An ACK the netdev refused is owed: the responder pauses, then sends
 * one for the last PSN executed, which covers it (rxe_responder()).
 * Lost, it would cost the requester a timeout whenever nothing later
 * acknowledged the same PSNs.  NAKs are not owed: the requester's
 * timeout recovers what they would have asked for.
 */
static void rxe_resp_send_ack(struct rxe_qp *qp,
			      const struct rxe_resp_ctx *ctx, u8 syn, u32 psn)
{
	struct sk_buff *skb = rxe_resp_ack_packet(qp, ctx, syn, psn);

	if (skb && rxe_resp_xmit(qp, ctx, skb, 1) == -EAGAIN &&
	    (syn & RXE_AETH_TYPE_MASK) == RXE_AETH_ACK) {
		qp->resp.ack_owed = true;
		rxe_xmit_wait_start(&qp->resp.xmit_wait);
	}
}

/* Sends the ACK owed, after the pause; true while it is still owed. */
static bool rxe_resp_ack_owed(struct rxe_qp *qp,
			      const struct rxe_resp_ctx *ctx)
{
	if (!qp->resp.ack_owed)
		return false;
	qp->resp.ack_owed = false;
	rxe_resp_send_ack(qp, ctx, RXE_AETH_ACK_UNLIMITED,
			  (qp->resp.ack_psn - 1) & RXE_BTH_PSN_MASK);
	return qp->resp.ack_owed;
}

/*
 * Whether the ACK of the message @pkt ends may be parked (rxe_xmit.c,
 * "Parked ACKs"): an RC message that completes a receive WQE, on a QP
 * that sent lately, over a route that batches.  The application learns
 * of such a message from its completion only, so an ACK parked before
 * the completion is posted is there when the reply is sent.  (A WRITE's
 * data may prompt a reply before its ACK could be parked: its ACK goes
 * at once.)
 */
static bool rxe_resp_may_park(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			      const struct rxe_pkt_info *pkt)
{
	return qp->ibqp.qp_type == IB_QPT_RC && (pkt->mask & RXE_COMP_MASK) &&
	       bth_ack(pkt) && rxe_req_sent_lately(qp) &&
	       rxe_xmit_batches(qp, &ctx->av);
}

/* Parks the ACK of the message @pkt ends, once the MSN counts it. */
static void rxe_resp_park_ack(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			      const struct rxe_pkt_info *pkt)
{
	struct sk_buff *skb = rxe_resp_ack_packet(qp, ctx,
						  RXE_AETH_ACK_UNLIMITED,
						  rxe_pkt_last_psn(pkt));

	if (skb)
		rxe_xmit_ack(qp, &ctx->av, skb, &qp->resp.batch,
			     &qp->resp.park);
}

static void rxe_resp_send_atomic_ack(struct rxe_qp *qp,
				     const struct rxe_resp_ctx *ctx, u32 psn,
				     u64 orig)
{
	struct rxe_pkt_info pkt;
	struct sk_buff *skb;

	skb = rxe_resp_packet(qp, ctx, &pkt, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE,
			      0, psn, RXE_AETH_ACK_UNLIMITED);
	if (!skb)
		return;
	atmack_init(&pkt, orig);
	rxe_resp_xmit(qp, ctx, skb, 1);
}

/* The answer to an ATOMIC WRITE: an RDMA READ response without data. */
static void rxe_resp_send_atomic_write_ack(struct rxe_qp *qp,
					   const struct rxe_resp_ctx *ctx,
					   u32 psn)
{
	struct rxe_pkt_info pkt;
	struct sk_buff *skb;

	skb = rxe_resp_packet(qp, ctx, &pkt,
			      IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY, 0, psn,
			      RXE_AETH_ACK_UNLIMITED);
	if (skb)
		rxe_resp_xmit(qp, ctx, skb, 1);
}

/* ---- receive completions ---- */

static bool rxe_resp_pkt_ipv4(const struct rxe_pkt_info *pkt)
{
	return rxe_pkt_skb((struct rxe_pkt_info *)pkt)->protocol ==
	       htons(ETH_P_IP);
}

/*
 * The fields of a successful receive completion, filled as stock does:
 * after byte_len the kernel's ib_wc and the application's ib_uverbs_wc
 * differ, and stock reports a GRH for every transport.
 */
static void rxe_resp_fill_wc(struct rxe_qp *qp, struct rxe_cq *cq,
			     union rxe_cqe *cqe, const struct rxe_pkt_info *pkt,
			     u32 byte_len)
{
	bool write_imm = (pkt->mask & RXE_WRITE_MASK) &&
			 (pkt->mask & RXE_IMMDT_MASK);
	enum ib_wc_opcode opcode = write_imm ? IB_WC_RECV_RDMA_WITH_IMM :
					       IB_WC_RECV;

	if (cq->is_user) {
		struct ib_uverbs_wc *uwc = &cqe->uibwc;

		uwc->opcode = opcode;
		uwc->byte_len = byte_len;
		uwc->wc_flags = IB_WC_GRH;
		if (pkt->mask & RXE_IMMDT_MASK) {
			uwc->wc_flags |= IB_WC_WITH_IMM;
			uwc->ex.imm_data = immdt_imm(pkt);
		}
		if (pkt->mask & RXE_IETH_MASK) {
			uwc->wc_flags |= IB_WC_WITH_INVALIDATE;
			uwc->ex.invalidate_rkey = ieth_rkey(pkt);
		}
		if (pkt->mask & RXE_DETH_MASK)
			uwc->src_qp = deth_sqp(pkt);
		uwc->port_num = qp->attr.port_num;
	} else {
		struct sk_buff *skb = rxe_pkt_skb((struct rxe_pkt_info *)pkt);
		struct ib_wc *wc = &cqe->ibwc;

		wc->opcode = opcode;
		wc->byte_len = byte_len;
		wc->wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = rxe_resp_pkt_ipv4(pkt) ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
		if (skb->dev && is_vlan_dev(skb->dev)) {
			wc->wc_flags |= IB_WC_WITH_VLAN;
			wc->vlan_id = vlan_dev_vlan_id(skb->dev);
		}
		if (pkt->mask & RXE_IMMDT_MASK) {
			wc->wc_flags |= IB_WC_WITH_IMM;
			wc->ex.imm_data = immdt_imm(pkt);
		}
		if (pkt->mask & RXE_IETH_MASK) {
			wc->wc_flags |= IB_WC_WITH_INVALIDATE;
			wc->ex.invalidate_rkey = ieth_rkey(pkt);
		}
		if (pkt->mask & RXE_DETH_MASK)
			wc->src_qp = deth_sqp(pkt);
		wc->port_num = qp->attr.port_num;
	}
}

/*
 * Completes the receive WQE in hand with @status; @pkt is the packet
 * that ends its message (NULL for a flush, which is solicited, as
 * stock has it).  -EOVERFLOW when the CQ is full.
 */
static int rxe_resp_complete(struct rxe_qp *qp, enum ib_wc_status status,
			     const struct rxe_pkt_info *pkt, u32 byte_len)
{
	struct rxe_cq *cq = to_rcq(qp->ibqp.recv_cq);
	struct rxe_recv_wqe *wqe = &qp->resp.wqe.wqe;
	union rxe_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	if (cq->is_user) {
		cqe.uibwc.wr_id = wqe->wr_id;
		cqe.uibwc.status = status;
		cqe.uibwc.qp_num = qp->ibqp.qp_num;
	} else {
		cqe.ibwc.wr_id = wqe->wr_id;
		cqe.ibwc.status = status;
		cqe.ibwc.qp = &qp->ibqp;
	}
	if (status == IB_WC_SUCCESS) {
		rxe_qp_counter_inc(qp, RXE_CNT_RDMA_RECV);
		rxe_resp_fill_wc(qp, cq, &cqe, pkt, byte_len);
	}
	qp->resp.has_wqe = false;

	if (rxe_cq_post(cq, &cqe, pkt ? bth_se(pkt) : true))
		return -EOVERFLOW;
	return 0;
}

/* ---- message state ---- */

/* The receive WQE in hand, or the next one; see rxe_rq_take_wqe(). */
static int rxe_resp_get_wqe(struct rxe_qp *qp)
{
	int err;

	if (qp->resp.has_wqe)
		return 0;
	err = rxe_rq_take_wqe(qp, &qp->resp.wqe.wqe);
	if (err == -EAGAIN)
		return err;
	/* A malformed WQE is in hand too: it completes in error. */
	qp->resp.has_wqe = true;
	return err ? -EIO : 0;
}

/* The WQE of an abandoned message serves the next one from its start. */
static void rxe_resp_rewind_wqe(struct rxe_qp *qp)
{
	struct rxe_dma_info *dma = &qp->resp.wqe.wqe.dma;

	dma->resid = dma->length;
	dma->cur_sge = 0;
	dma->sge_offset = 0;
}

static void rxe_resp_end_read(struct rxe_qp *qp)
{
	memset(&qp->resp.read, 0, sizeof(qp->resp.read));
}

/* Forgets the message in progress; its receive WQE stays in hand. */
static void rxe_resp_abandon_msg(struct rxe_qp *qp)
{
	if (qp->resp.has_wqe)
		rxe_resp_rewind_wqe(qp);
	qp->resp.opcode = -1;
}

/* A message is in progress: its FIRST came, its LAST not yet. */
static u32 rxe_resp_msg_in_progress(const struct rxe_qp *qp)
{
	u32 mask;

	if (qp->resp.opcode < 0)
		return 0;
	mask = rxe_opcode[qp->resp.opcode].mask;
	if (mask & RXE_END_MASK)
		return 0;
	return mask & RXE_WRITE_OR_SEND_MASK;
}

/*
 * The packet fits in the message in progress (IBTA 9.7.4.1.3 and
 * 9.8.3): a FIRST or ONLY starts one only when none is in progress; a
 * MIDDLE or LAST continues one of its own kind.
 */
static bool rxe_resp_op_in_seq(const struct rxe_qp *qp,
			       const struct rxe_pkt_info *pkt)
{
	u32 cur = rxe_resp_msg_in_progress(qp);

	if (pkt->mask & RXE_START_MASK)
		return !cur;
	return cur && (pkt->mask & cur);
}

/*
 * Payload sizes of a SEND or WRITE packet against the path MTU: FIRST
 * and MIDDLE carry the MTU exactly, LAST and ONLY at most that.  A
 * burst carries its packets' payloads: an MTU each before its last,
 * which carries a byte at least (else it would be one packet fewer).
 */
static int rxe_resp_check_length(const struct rxe_resp_ctx *ctx,
				 const struct rxe_pkt_info *pkt)
{
	u32 len = rxe_payload_size(pkt);
	u32 before = (pkt->npsn - 1) * ctx->mtu;

	if (len < before || (pkt->npsn > 1 && len == before))
		return -ENOSPC;
	len -= before;
	if (pkt->mask & RXE_END_MASK)
		return len <= ctx->mtu ? 0 : -ENOSPC;
	return len == ctx->mtu ? 0 : -ENOSPC;
}

/* After a packet executed: what is expected next. */
static void rxe_resp_advance(struct rxe_qp *qp, const struct rxe_pkt_info *pkt)
{
	qp->resp.psn = (rxe_pkt_last_psn(pkt) + 1) & RXE_BTH_PSN_MASK;
	qp->resp.ack_psn = qp->resp.psn;
	qp->resp.opcode = pkt->opcode;
	if (pkt->mask & RXE_END_MASK)
		qp->resp.msn = (qp->resp.msn + 1) & RXE_AETH_MSN_MASK;
}

/* ---- SEND and WRITE ---- */

/* UD: the 40 bytes of GRH first; for IPv4 its last 20 are the header. */
static int rxe_resp_copy_grh(struct rxe_qp *qp, const struct rxe_pkt_info *pkt)
{
	struct sk_buff *skb = rxe_pkt_skb((struct rxe_pkt_info *)pkt);
	u8 grh[RXE_GRH_BYTES] = {};

	if (rxe_resp_pkt_ipv4(pkt))
		memcpy(grh + RXE_GRH_BYTES - sizeof(struct iphdr),
		       skb_network_header(skb), sizeof(struct iphdr));
	else
		memcpy(grh, skb_network_header(skb), sizeof(struct ipv6hdr));

	return rxe_copy_sgl(to_rpd(qp->ibqp.pd), IB_ACCESS_LOCAL_WRITE,
			    &qp->resp.wqe.wqe.dma, grh, sizeof(grh), RXE_TO_MR);
}

/*
 * A fault of [@va, @va + @len) of @rkey after a miss on ODP memory
 * (rxe_odp.c): -EINPROGRESS while it is under way, or the remote access
 * error of the side's last fault, which failed.
 */
static int rxe_resp_odp_fault(struct rxe_qp *qp, u32 rkey, u64 va, u32 len)
{
	struct rxe_odp_range r = {
		.key = rkey, .va = va, .len = len, .remote = true,
	};

	if (rxe_odp_fault_error(&qp->resp.odp))
		return -EACCES;
	rxe_odp_fault_start(&qp->resp.odp, &r, 1);
	return -EINPROGRESS;
}

/*
 * A request missed a page of ODP memory: rxe_resp_odp_fault(), and the
 * packet held (resp.hold) while the fault is under way.  The caller has
 * undone what the packet changed.
 */
static int rxe_resp_odp_miss(struct rxe_qp *qp, u32 rkey, u64 va, u32 len)
{
	int err = rxe_resp_odp_fault(qp, rkey, va, len);

	qp->resp.hold = err == -EINPROGRESS;
	return err;
}

static int rxe_resp_copy_err(int err)
{
	return err == -ENOSPC ? -ENOSPC : -EIO;
}

/*
 * A SEND missed a page of an ODP MR of the receive WQE: the WQE back to
 * where the packet began (@pos), and a fault of the rest of it, held as
 * by rxe_resp_odp_miss(); -EIO (a bad receive WQE) after a fault that
 * failed.
 */
static int rxe_resp_send_odp_miss(struct rxe_qp *qp, struct rxe_dma_pos pos)
{
	struct rxe_dma_info *dma = &qp->resp.wqe.wqe.dma;

	rxe_dma_set_pos(dma, pos);
	if (rxe_odp_fault_error(&qp->resp.odp))
		return -EIO;
	rxe_odp_fault_sgl(&qp->resp.odp, dma, pos.cur_sge, pos.sge_offset);
	qp->resp.hold = true;
	return -EINPROGRESS;
}

static int rxe_resp_send(struct rxe_qp *qp, const struct rxe_pkt_info *pkt)
{
	struct rxe_dma_info *dma = &qp->resp.wqe.wqe.dma;
	struct rxe_dma_pos pos = rxe_dma_get_pos(dma);
	enum ib_qp_type type = qp->ibqp.qp_type;
	int err;

	if (type == IB_QPT_UD || type == IB_QPT_GSI) {
		err = rxe_resp_copy_grh(qp, pkt);
		if (err == -EAGAIN)
			return rxe_resp_send_odp_miss(qp, pos);
		if (err)
			return rxe_resp_copy_err(err);
	}

	err = rxe_copy_pkt_to_sgl(to_rpd(qp->ibqp.pd), dma,
				  (struct rxe_pkt_info *)pkt);
	if (err == -EAGAIN)
		return rxe_resp_send_odp_miss(qp, pos);
	if (err)
		return rxe_resp_copy_err(err);

	if (pkt->mask & RXE_IETH_MASK) {
		err = rxe_invalidate_key(qp, ieth_rkey(pkt), true);
		if (err)
			return -EINVAL;
	}
	return 0;
}

/* Whether @rkey allows @access to all of [@va, @va + @len). */
static int rxe_resp_check_rkey(struct rxe_qp *qp, u32 rkey, u64 va, u32 len,
			       int access)
{
	struct rxe_mr *mr;

	if (!len)
		return 0;
	mr = rxe_rkey_resolve(qp, rkey, &va, len, access);
	if (IS_ERR(mr))
		return -EACCES;
	rxe_mr_put(mr);
	return 0;
}

/*
 * An RDMA WRITE packet.  The first checks the RETH's whole range; each
 * lands where the previous stopped.
 */
static int rxe_resp_write(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			  const struct rxe_pkt_info *pkt)
{
	u32 len = rxe_payload_size(pkt);
	struct rxe_mr *mr;
	u64 addr;
	int err;

	if (pkt->mask & RXE_RETH_MASK) {
		qp->resp.va = reth_va(pkt);
		qp->resp.rkey = reth_rkey(pkt);
		qp->resp.resid = reth_len(pkt);
		qp->resp.length = qp->resp.resid;
		err = rxe_resp_check_rkey(qp, qp->resp.rkey, qp->resp.va,
					  qp->resp.resid,
					  IB_ACCESS_REMOTE_WRITE);
		if (err)
			return err;
	}

	if (len > qp->resp.resid ||
	    ((pkt->mask & RXE_END_MASK) && len != qp->resp.resid))
		return -ENOSPC;
	if (len) {
		/* Resolved for just this packet: no MR stays referenced. */
		addr = qp->resp.va;
		mr = rxe_rkey_resolve(qp, qp->resp.rkey, &addr, len,
				      IB_ACCESS_REMOTE_WRITE);
		if (IS_ERR(mr))
			return -EACCES;
		err = rxe_copy_pkt_to_mr(mr, addr, (struct rxe_pkt_info *)pkt);
		rxe_mr_put(mr);
		if (err == -EAGAIN)
			return rxe_resp_odp_miss(qp, qp->resp.rkey, qp->resp.va,
						 qp->resp.resid);
		if (err)
			return -EACCES;
		qp->resp.va += len;
		qp->resp.resid -= len;
	}
	return 0;
}

/*
 * A SEND or WRITE packet, in sequence, of any transport: executed, and
 * its message completed at its last packet.  With @acked (RC), the ACK
 * of that message may be parked before the completion; *@acked then
 * tells the caller it is.
 */
static int rxe_resp_execute(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			    const struct rxe_pkt_info *pkt, bool *acked)
{
	int err;

	/* A SEND takes its WQE at its FIRST, a WRITE with IMM at its LAST. */
	if (pkt->mask & RXE_RWR_MASK) {
		err = rxe_resp_get_wqe(qp);
		if (err)
			return err;
	} else if ((pkt->mask & RXE_SEND_MASK) && !qp->resp.has_wqe) {
		/* A SEND's later packet whose FIRST found no WQE. */
		return -EINVAL;
	}

	if (pkt->mask & RXE_SEND_MASK)
		err = rxe_resp_send(qp, pkt);
	else
		err = rxe_resp_write(qp, ctx, pkt);
	if (err)
		return err;

	if (pkt->mask & RXE_COMP_MASK) {
		const struct rxe_dma_info *dma = &qp->resp.wqe.wqe.dma;
		u32 byte_len = (pkt->mask & RXE_WRITE_MASK) ?
			       qp->resp.length : dma->length - dma->resid;

		if (acked && rxe_resp_may_park(qp, ctx, pkt)) {
			/*
			 * Before the completion.  Should the CQ overflow,
			 * the QP's error then sends the ACK of a message
			 * placed whole.
			 */
			rxe_resp_advance(qp, pkt);
			rxe_resp_park_ack(qp, ctx, pkt);
			*acked = true;
			return rxe_resp_complete(qp, IB_WC_SUCCESS, pkt,
						 byte_len);
		}
		err = rxe_resp_complete(qp, IB_WC_SUCCESS, pkt, byte_len);
		if (err)
			return err;
	}
	rxe_resp_advance(qp, pkt);
	return 0;
}

/* ---- READ and ATOMIC ---- */

/* The next resource of the ring, for the request of @mask at @first..@last. */
static struct rxe_resp_res *rxe_resp_new_res(struct rxe_qp *qp,
					     const struct rxe_resp_ctx *ctx,
					     u32 mask, u32 first, u32 last)
{
	struct rxe_resp_res *res = &qp->resp.res[qp->resp.res_head];

	qp->resp.res_head = (qp->resp.res_head + 1) % ctx->num_res;
	memset(res, 0, sizeof(*res));
	res->mask = mask;
	res->first_psn = first;
	res->last_psn = last;
	return res;
}

/* The READ or ATOMIC executed whose PSNs include @psn, or NULL. */
static struct rxe_resp_res *rxe_resp_find_res(struct rxe_qp *qp, u32 psn)
{
	unsigned int i;

	for (i = 0; i < qp->resp.num_res; i++) {
		struct rxe_resp_res *res = &qp->resp.res[i];

		if (res->mask && rxe_psn_cmp(psn, res->first_psn) >= 0 &&
		    rxe_psn_cmp(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

/*
 * Starts answering a READ of [@va, @va + @len) from response PSN @psn;
 * -EACCES when the rkey does not allow it.  A READ of ODP memory starts
 * only once all of it is mapped: otherwise rxe_resp_odp_miss()
 * (-EINPROGRESS), not a stream of responses that stops at the first
 * page missing.
 */
static int rxe_resp_start_read(struct rxe_qp *qp, u32 rkey, u64 va, u32 len,
			       u32 psn)
{
	struct rxe_mr *mr;
	u64 addr = va;
	int err;

	if (len) {
		mr = rxe_rkey_resolve(qp, rkey, &addr, len,
				      IB_ACCESS_REMOTE_READ);
		if (IS_ERR(mr))
			return -EACCES;
		err = rxe_odp_mapped(mr, addr, len, false);
		rxe_mr_put(mr);
		if (err)
			return rxe_resp_odp_miss(qp, rkey, va, len);
	}
	qp->resp.read.rkey = rkey;
	qp->resp.read.va = va;
	qp->resp.read.resid = len;
	qp->resp.read.psn = psn;
	qp->resp.read.first = true;
	return 0;
}

static bool rxe_resp_reading(const struct rxe_qp *qp)
{
	return qp->resp.read.first || qp->resp.read.resid;
}

/*
 * The opcode of the READ response carrying the next @payload bytes
 * (IBTA 9.7.5.1.2): FIRST, MIDDLE..., LAST, or ONLY.
 */
static u8 rxe_resp_read_opcode(const struct rxe_resp_read *read, u32 payload)
{
	bool last = payload == read->resid;

	if (read->first)
		return last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
			      IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST;
	return last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
		      IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;
}

/*
 * A READ response with the next *@payload bytes of the READ in place,
 * its headers not written yet; ERR_PTR(-EACCES) when the READ's rkey no
 * longer resolves (its MR deregistered or reregistered since the READ
 * was accepted) or an ODP fault failed, ERR_PTR(-EINPROGRESS) while ODP
 * pages are faulted in, NULL on no memory.  To a QP of this host the
 * bytes go by reference: the requester copies them out before the READ
 * completes, and memory that the responder's side changes meanwhile is
 * a race the application asked for, on any HCA.  Only so may *@payload
 * exceed the MTU (a burst, rxe_xmit.c): copied, it is cut to one MTU.
 */
static struct sk_buff *rxe_resp_read_packet(struct rxe_qp *qp,
					    const struct rxe_resp_ctx *ctx,
					    struct rxe_pkt_info *pkt,
					    u32 *payload)
{
	struct rxe_resp_read *read = &qp->resp.read;
	struct sk_buff *skb = NULL;
	u64 addr = read->va;
	struct rxe_mr *mr;
	int err;

	if (!*payload)
		return rxe_init_packet(qp, &ctx->av,
				       rxe_resp_read_opcode(read, 0), 0, pkt);

	/* Resolved for just this packet: no MR stays referenced. */
	mr = rxe_rkey_resolve(qp, read->rkey, &addr, *payload,
			      IB_ACCESS_REMOTE_READ);
	if (IS_ERR(mr))
		return ERR_PTR(-EACCES);

	if (rxe_av_to_self(&ctx->av)) {
		skb = rxe_init_packet_ref(qp, &ctx->av,
					  rxe_resp_read_opcode(read, *payload),
					  *payload, pkt);
		if (!skb)
			goto out;
		err = rxe_mr_attach(mr, addr, *payload, skb);
		if (!err)
			err = rxe_end_packet_ref(skb, pkt);
		if (!err)
			goto out;
		kfree_skb(skb);
		skb = NULL;
		if (!rxe_attach_refused(err))
			goto out;
	}

	*payload = min(*payload, ctx->mtu);
	skb = rxe_init_packet(qp, &ctx->av, rxe_resp_read_opcode(read, *payload),
			      *payload, pkt);
	if (skb) {
		err = rxe_mr_copy(mr, addr, rxe_payload_addr(pkt), *payload,
				  RXE_FROM_MR);
		if (err) {
			kfree_skb(skb);
			skb = NULL;
		}
		/*
		 * ODP pages unmapped since the READ was accepted: this
		 * response again once they are faulted in (-EINPROGRESS),
		 * or the fault's error.
		 */
		if (err == -EAGAIN)
			skb = ERR_PTR(rxe_resp_odp_fault(qp, read->rkey,
							 read->va,
							 read->resid));
	}
out:
	rxe_mr_put(mr);
	return skb;
}

/*
 * A class C error (IBTA 9.9.3): the NAK @syn at @psn, the message in
 * progress forgotten, the QP to ERR.
 */
static void rxe_resp_fatal_nak(struct rxe_qp *qp,
			       const struct rxe_resp_ctx *ctx, u8 syn, u32 psn)
{
	rxe_resp_send_ack(qp, ctx, syn, psn);
	rxe_resp_abandon_msg(qp);
	rxe_qp_error(qp);
}

/*
 * The memory of the READ in progress can no longer be read: a remote
 * access error (class C) at the PSN of the response that could not be
 * built, which the requester expects next, and the QP goes to ERR, as
 * for a request whose rkey fails (stock rechecks the MR for each
 * response the same way).  Giving up silently instead would leave the
 * requester asking again for ever at retry_cnt 7.
 */
static void rxe_resp_read_fail(struct rxe_qp *qp,
			       const struct rxe_resp_ctx *ctx, u32 psn)
{
	rxe_resp_end_read(qp);
	rxe_resp_fatal_nak(qp, ctx, RXE_AETH_NAK | RXE_NAK_REM_ACC_ERR, psn);
}

/*
 * One READ response packet (IBTA 9.7.5.1.2): FIRST, MIDDLE..., LAST by
 * the path MTU, or ONLY; FIRST, LAST and ONLY carry an AETH.  To a QP of
 * this host, a burst of them (rxe_xmit.c, "Bursts").  When a packet
 * cannot be built for want of memory, the READ is given up: the
 * requester times out and asks again, and the duplicate is answered
 * afresh.  When its memory cannot be read any more, the READ fails
 * (rxe_resp_read_fail()).  A packet the netdev refused is built again
 * after a pause (rxe_xmit.c, "Refused packets").  Returns the
 * responder's step result.
 */
static int rxe_resp_read_next(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx)
{
	struct rxe_resp_read *read = &qp->resp.read;
	struct rxe_resp_read undo = *read;
	struct rxe_pkt_info pkt;
	struct sk_buff *skb;
	u32 payload, npsn;

	payload = min_t(u32, read->resid, rxe_av_to_self(&ctx->av) ?
					  RXE_BURST_BYTES : ctx->mtu);
	skb = rxe_resp_read_packet(qp, ctx, &pkt, &payload);
	if (PTR_ERR_OR_ZERO(skb) == -EINPROGRESS)
		return 1;	/* until the fault's end runs the task */
	if (IS_ERR(skb)) {
		rxe_resp_read_fail(qp, ctx, read->psn);
		return 0;
	}
	if (!skb)
		goto give_up;
	npsn = max_t(u32, DIV_ROUND_UP(payload, ctx->mtu), 1);
	rxe_resp_headers(qp, ctx, &pkt, pkt.opcode, payload, read->psn,
			 RXE_AETH_ACK_UNLIMITED);

	read->first = false;
	read->va += payload;
	read->resid -= payload;
	read->psn = (read->psn + npsn) & RXE_BTH_PSN_MASK;
	if (!read->resid)
		rxe_resp_end_read(qp);

	if (unlikely(rxe_resp_xmit(qp, ctx, skb, npsn) == -EAGAIN)) {
		*read = undo;
		return rxe_xmit_wait_start(&qp->resp.xmit_wait);
	}
	return 0;

give_up:
	rxe_resp_end_read(qp);
	return 0;
}

static int rxe_resp_read(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			 const struct rxe_pkt_info *pkt)
{
	u32 len = reth_len(pkt);
	struct rxe_resp_res *res;
	u32 npkts;
	int err;

	if (!ctx->num_res)
		return -EINVAL;
	/*
	 * IBTA: no message is longer than 2^31 bytes (the requester's own
	 * limit, RXE_MAX_MSG_LEN).  Longer, the count of response packets
	 * would wrap in 32 bits (from 2^32 - mtu up): the READ would
	 * stream while its PSNs were counted as none.
	 */
	if (len > RXE_MAX_MSG_LEN)
		return -EINVAL;
	npkts = len ? DIV_ROUND_UP(len, ctx->mtu) : 1;
	err = rxe_resp_start_read(qp, reth_rkey(pkt), reth_va(pkt), len,
				  pkt->psn);
	if (err)
		return err;

	res = rxe_resp_new_res(qp, ctx, RXE_READ_MASK, pkt->psn,
			       (pkt->psn + npkts - 1) & RXE_BTH_PSN_MASK);
	res->rkey = reth_rkey(pkt);
	res->va = reth_va(pkt);
	res->length = len;

	/* The READ completes here (C9-148): its responses carry the MSN. */
	rxe_resp_advance(qp, pkt);
	qp->resp.psn = (res->last_psn + 1) & RXE_BTH_PSN_MASK;
	qp->resp.ack_psn = qp->resp.psn;
	return 0;
}

/*
 * The 8-byte operation of an ATOMIC or an ATOMIC WRITE (rxe_mr_atomic())
 * on [@va, @va + 8) of @rkey, which must allow @access: 0, or -EINVAL
 * when misaligned, -EACCES when the key does not allow it, and what
 * rxe_resp_odp_miss() returns when its ODP page is not mapped.
 */
static int rxe_resp_mr_atomic(struct rxe_qp *qp, u32 rkey, u64 va,
			      int access, u8 opcode, u64 comp, u64 swap_add,
			      u64 *orig)
{
	struct rxe_mr *mr;
	u64 addr = va;
	int err;

	mr = rxe_rkey_resolve(qp, rkey, &addr, sizeof(u64), access);
	if (IS_ERR(mr))
		return -EACCES;
	err = rxe_mr_atomic(mr, addr, opcode, comp, swap_add, orig);
	rxe_mr_put(mr);
	if (err == -EAGAIN)
		return rxe_resp_odp_miss(qp, rkey, va, sizeof(u64));
	if (err)
		return err == -EINVAL ? -EINVAL : -EACCES;
	return 0;
}

static int rxe_resp_atomic(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			   const struct rxe_pkt_info *pkt)
{
	struct rxe_resp_res *res;
	u64 orig;
	int err;

	if (!ctx->num_res)
		return -EINVAL;
	err = rxe_resp_mr_atomic(qp, atmeth_rkey(pkt), atmeth_va(pkt),
				 IB_ACCESS_REMOTE_ATOMIC, pkt->opcode,
				 atmeth_comp(pkt), atmeth_swap_add(pkt), &orig);
	if (err)
		return err;

	res = rxe_resp_new_res(qp, ctx, RXE_ATOMIC_MASK, pkt->psn, pkt->psn);
	res->orig = orig;

	rxe_resp_advance(qp, pkt);
	rxe_resp_send_atomic_ack(qp, ctx, pkt->psn, orig);
	return 0;
}

/*
 * An ATOMIC WRITE (IBTA 1.5): its 8 bytes placed by one aligned store,
 * which no access through the HCA sees half done, after the WRITEs
 * before it.  It takes a resource as an ATOMIC does: a duplicate is
 * answered again, never placed twice (a WRITE after it may have changed
 * the bytes since).  Its RETH names exactly the 8 bytes it carries.
 */
static int rxe_resp_atomic_write(struct rxe_qp *qp,
				 const struct rxe_resp_ctx *ctx,
				 const struct rxe_pkt_info *pkt)
{
	struct sk_buff *skb = rxe_pkt_skb((struct rxe_pkt_info *)pkt);
	u64 val;
	int err;

	if (!ctx->num_res || reth_len(pkt) != RXE_ATOMIC_WRITE_LEN ||
	    rxe_payload_size(pkt) != RXE_ATOMIC_WRITE_LEN)
		return -EINVAL;
	/* In the linear part or not: skb_copy_bits() reads either. */
	if (skb_copy_bits(skb, (u8 *)rxe_payload_addr(pkt) - skb->data, &val,
			  sizeof(val)))
		return -EINVAL;
	err = rxe_resp_mr_atomic(qp, reth_rkey(pkt), reth_va(pkt),
				 IB_ACCESS_REMOTE_WRITE, pkt->opcode, 0, val,
				 NULL);
	if (err)
		return err;

	rxe_resp_new_res(qp, ctx, RXE_ATOMIC_WRITE_MASK, pkt->psn, pkt->psn);
	rxe_resp_advance(qp, pkt);
	rxe_resp_send_atomic_write_ack(qp, ctx, pkt->psn);
	return 0;
}

/*
 * RC errors of class B (RNR) and C (IBTA 9.9.3): RNR NAKs the packet
 * and waits for the retry; the others complete the receive WQE in hand
 * in error, NAK, and take the QP to ERR.
 */
static void rxe_resp_rc_error(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			      const struct rxe_pkt_info *pkt, int err)
{
	enum ib_wc_status status;
	u8 syn;

	switch (err) {
	case -EINPROGRESS:
		return;
	case -EAGAIN:
		rxe_qp_counter_inc(qp, RXE_CNT_SND_RNR);
		rxe_resp_send_ack(qp, ctx, RXE_AETH_RNR_NAK |
				  (ctx->min_rnr_timer & ~RXE_AETH_TYPE_MASK),
				  pkt->psn);
		return;
	case -EOVERFLOW:
		rxe_resp_abandon_msg(qp);
		rxe_qp_error(qp);
		return;
	case -EACCES:
		syn = RXE_AETH_NAK | RXE_NAK_REM_ACC_ERR;
		status = IB_WC_REM_ACCESS_ERR;
		break;
	case -EIO:
		syn = RXE_AETH_NAK | RXE_NAK_REM_OP_ERR;
		status = IB_WC_LOC_QP_OP_ERR;
		break;
	default:
		syn = RXE_AETH_NAK | RXE_NAK_INVALID_REQ;
		status = IB_WC_REM_INV_REQ_ERR;
		break;
	}

	if (qp->resp.has_wqe)
		rxe_resp_complete(qp, status, pkt, 0);
	rxe_resp_fatal_nak(qp, ctx, syn, pkt->psn);
}

/*
 * A request with a PSN already executed (IBTA 9.7.5.1.1): the requester
 * did not get the answer.  SENDs and WRITEs are acknowledged again up to
 * the last PSN executed (C9-105), once per packet that asks for an ACK:
 * one ACK covers every PSN before it, and a go-back-N retransmission of a
 * long message would otherwise send an ACK per packet, which on a
 * congested link takes the place of the data the requester resends (the
 * in-tree rxe acknowledges every one).  A READ is read again, within what
 * the original asked for; an ATOMIC's saved result, or an ATOMIC WRITE's
 * answer, is sent again, never executed twice.  Anything else, e.g.
 * older than the table, is dropped.
 */
static void rxe_resp_duplicate(struct rxe_qp *qp,
			       const struct rxe_resp_ctx *ctx,
			       const struct rxe_pkt_info *pkt)
{
	struct rxe_resp_res *res;
	int err;

	rxe_qp_counter_inc(qp, RXE_CNT_DUP_REQ);

	if (pkt->mask & RXE_WRITE_OR_SEND_MASK) {
		if (bth_ack(pkt))
			rxe_resp_send_ack(qp, ctx, RXE_AETH_ACK_UNLIMITED,
					  (qp->resp.ack_psn - 1) &
					  RXE_BTH_PSN_MASK);
		return;
	}

	res = rxe_resp_find_res(qp, pkt->psn);
	if (!res || !(res->mask & pkt->mask))
		return;

	if (pkt->mask & RXE_READ_MASK) {
		u64 va = reth_va(pkt);
		u32 len = reth_len(pkt);

		if (reth_rkey(pkt) != res->rkey || va < res->va ||
		    len > res->length || va - res->va > res->length - len)
			return;
		/*
		 * Its MR gone or reregistered since: as a new READ would;
		 * its ODP pages unmapped since: held meanwhile.
		 */
		err = rxe_resp_start_read(qp, res->rkey, va, len, pkt->psn);
		if (err)
			rxe_resp_rc_error(qp, ctx, pkt,
					  err == -EINPROGRESS ? err : -EACCES);
		return;
	}

	if (pkt->psn != res->first_psn)
		return;
	if (pkt->mask & RXE_ATOMIC_WRITE_MASK)
		rxe_resp_send_atomic_write_ack(qp, ctx, pkt->psn);
	else
		rxe_resp_send_atomic_ack(qp, ctx, pkt->psn, res->orig);
}

/* ---- transports ---- */

/*
 * What the QP's access flags let a peer do.  A FLUSH (IBTA 1.5) needs
 * the QP's flush access (IB_ACCESS_FLUSH_GLOBAL or _PERSISTENT), which
 * the 6.1 ABI cannot grant: it is always refused, with the invalid
 * request NAK that upstream's rxe gives a QP without that access.
 */
static bool rxe_resp_rc_allowed(const struct rxe_resp_ctx *ctx,
				const struct rxe_pkt_info *pkt)
{
	if (pkt->mask & RXE_FLUSH_MASK)
		return false;
	if (pkt->mask & RXE_READ_MASK)
		return ctx->access & IB_ACCESS_REMOTE_READ;
	if (pkt->mask & (RXE_WRITE_MASK | RXE_ATOMIC_WRITE_MASK))
		return ctx->access & IB_ACCESS_REMOTE_WRITE;
	if (pkt->mask & RXE_ATOMIC_MASK)
		return ctx->access & IB_ACCESS_REMOTE_ATOMIC;
	return true;
}

static void rxe_resp_rc(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			const struct rxe_pkt_info *pkt)
{
	int diff = rxe_psn_cmp(pkt->psn, qp->resp.psn);
	int err;

	if (diff > 0) {
		/* Class B: one NAK until the expected PSN comes. */
		if (!qp->resp.sent_psn_nak) {
			qp->resp.sent_psn_nak = true;
			rxe_qp_counter_inc(qp, RXE_CNT_OUT_OF_SEQ_REQ);
			rxe_resp_send_ack(qp, ctx, RXE_AETH_NAK |
					  RXE_NAK_PSN_SEQ_ERR, qp->resp.psn);
		}
		return;
	}
	if (diff < 0) {
		rxe_resp_duplicate(qp, ctx, pkt);
		return;
	}
	qp->resp.sent_psn_nak = false;

	if (!rxe_resp_op_in_seq(qp, pkt) || !rxe_resp_rc_allowed(ctx, pkt)) {
		err = -EINVAL;
		goto err;
	}

	if (pkt->mask & RXE_READ_MASK) {
		err = rxe_resp_read(qp, ctx, pkt);
	} else if (pkt->mask & RXE_ATOMIC_MASK) {
		err = rxe_resp_atomic(qp, ctx, pkt);
	} else if (pkt->mask & RXE_ATOMIC_WRITE_MASK) {
		err = rxe_resp_atomic_write(qp, ctx, pkt);
	} else {
		bool acked = false;

		err = rxe_resp_check_length(ctx, pkt);
		if (!err)
			err = rxe_resp_execute(qp, ctx, pkt, &acked);
		/* One ACK per message: the requester asks on its last. */
		if (!err && bth_ack(pkt) && !acked)
			rxe_resp_send_ack(qp, ctx, RXE_AETH_ACK_UNLIMITED,
					  rxe_pkt_last_psn(pkt));
	}
	if (!err)
		return;
err:
	rxe_resp_rc_error(qp, ctx, pkt, err);
}

/*
 * UC (IBTA 9.8.3): no answers.  A sequence error or any failure drops
 * the rest of the message; the next FIRST or ONLY starts afresh.
 */
static void rxe_resp_uc(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			const struct rxe_pkt_info *pkt)
{
	int err;

	if (qp->resp.drop_msg || pkt->psn != qp->resp.psn ||
	    !rxe_resp_op_in_seq(qp, pkt)) {
		rxe_resp_abandon_msg(qp);
		if (!(pkt->mask & RXE_START_MASK)) {
			qp->resp.drop_msg = true;
			return;
		}
	}
	qp->resp.drop_msg = false;

	if ((pkt->mask & RXE_WRITE_MASK) &&
	    !(ctx->access & IB_ACCESS_REMOTE_WRITE))
		err = -EACCES;
	else
		err = rxe_resp_check_length(ctx, pkt);
	if (!err)
		err = rxe_resp_execute(qp, ctx, pkt, NULL);
	if (!err || err == -EINPROGRESS)
		return;

	if (err == -EOVERFLOW) {
		rxe_resp_abandon_msg(qp);
		rxe_qp_error(qp);
		return;
	}
	if (err == -EIO && qp->resp.has_wqe) {
		rxe_resp_complete(qp, IB_WC_LOC_QP_OP_ERR, pkt, 0);
		rxe_resp_abandon_msg(qp);
		rxe_qp_error(qp);
		return;
	}
	rxe_resp_abandon_msg(qp);
	qp->resp.drop_msg = true;
}

/*
 * UD and GSI: single-packet SENDs, Q_Key already checked by the receive
 * path.  A message that finds no WQE or does not fit is dropped.
 */
static void rxe_resp_ud(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			const struct rxe_pkt_info *pkt)
{
	int err;

	err = rxe_resp_execute(qp, ctx, pkt, NULL);
	if (!err || err == -EAGAIN || err == -EINPROGRESS)
		return;
	if (err == -ENOSPC) {
		rxe_resp_rewind_wqe(qp);
		return;
	}
	if (err == -EIO && qp->resp.has_wqe)
		rxe_resp_complete(qp, IB_WC_LOC_QP_OP_ERR, pkt, 0);
	rxe_qp_error(qp);
}

/* ---- the request queue ---- */

static bool rxe_resp_is_rd_atomic(struct sk_buff *skb)
{
	return rxe_skb_pkt(skb)->mask & RXE_RD_ATOMIC_MASK;
}

/*
 * READs and ATOMICs (ATOMIC WRITEs too) that may wait in the queue: the
 * QP's max_dest_rd_atomic (IBTA 9.7.5.1.3: a requester keeps no more
 * outstanding; the one being answered has left the queue).  One at
 * least, so that a READ to a QP that allows none is still NAKed.
 */
static unsigned int rxe_resp_rd_atomic_max(const struct rxe_qp *qp)
{
	return max_t(unsigned int, READ_ONCE(qp->attr.max_dest_rd_atomic), 1);
}

/*
 * Queues @skb for the task: 0, -ESHUTDOWN once the task is stopped (the
 * check and the purge of a stopping QP are both under the queue's lock,
 * so nothing is queued after the purge), or -ENOBUFS when the queue, or
 * its share of READs and ATOMICs, is full.  On error @skb is still the
 * caller's.
 */
static int rxe_resp_enqueue(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct sk_buff_head *q = &qp->resp.pkts;
	bool rd_atomic = rxe_resp_is_rd_atomic(skb);
	int err = 0;

	spin_lock_bh(&q->lock);
	if (READ_ONCE(qp->resp.task.stopped))
		err = -ESHUTDOWN;
	else if (skb_queue_len(q) >= RXE_RESP_MAX_QUEUED ||
		 (rd_atomic && qp->resp.rd_atomic_queued >=
			       rxe_resp_rd_atomic_max(qp)))
		err = -ENOBUFS;
	if (!err) {
		__skb_queue_tail(q, skb);
		qp->resp.rd_atomic_queued += rd_atomic;
	}
	spin_unlock_bh(&q->lock);
	return err;
}

/* The request held for a page fault, else the oldest queued, or NULL. */
static struct sk_buff *rxe_resp_take(struct rxe_qp *qp)
{
	struct sk_buff_head *q = &qp->resp.pkts;
	struct sk_buff *skb = qp->resp.held;

	if (skb) {
		qp->resp.held = NULL;
		return skb;
	}
	spin_lock_bh(&q->lock);
	skb = __skb_dequeue(q);
	if (skb && rxe_resp_is_rd_atomic(skb))
		qp->resp.rd_atomic_queued--;
	spin_unlock_bh(&q->lock);
	return skb;
}

/* Drops every request queued, each with its reference on the QP. */
static void rxe_resp_purge(struct rxe_qp *qp)
{
	struct sk_buff *skb;

	while ((skb = rxe_resp_take(qp))) {
		kfree_skb(skb);
		rxe_qp_put(qp);
	}
}

/* ---- the task ---- */

/* Back to a QP that has received nothing. */
static void rxe_resp_forget(struct rxe_qp *qp)
{
	rxe_resp_end_read(qp);
	rxe_xmit_wait_reset(&qp->resp.xmit_wait);
	qp->resp.ack_owed = false;
	qp->resp.has_wqe = false;
	qp->resp.opcode = -1;
	qp->resp.psn = 0;
	qp->resp.ack_psn = 0;
	qp->resp.msn = 0;
	qp->resp.sent_psn_nak = false;
	qp->resp.drop_msg = false;
	memset(qp->resp.res, 0, RXE_MAX_QP_RD_ATOM * sizeof(*qp->resp.res));
	qp->resp.res_head = 0;
}

/*
 * ERR (IBTA 10.3.1): requests are dropped; the WQE in hand and the
 * receive queue complete with IB_WC_WR_FLUSH_ERR.  An SRQ is not
 * flushed: other QPs use it.  At most one ring's worth per call, so that
 * an application posting as fast as we flush cannot hold the caller
 * (device removal, rxe_qp.c) for ever.
 */
void rxe_resp_flush(struct rxe_qp *qp)
{
	u32 n;
	int err;

	rxe_resp_purge(qp);
	rxe_resp_end_read(qp);
	qp->resp.opcode = -1;

	if (qp->resp.has_wqe &&
	    rxe_resp_complete(qp, IB_WC_WR_FLUSH_ERR, NULL, 0))
		return;
	if (qp->ibqp.srq)
		return;
	for (n = 0; n <= qp->rq.queue->index_mask; n++) {
		err = rxe_rq_take_wqe(qp, &qp->resp.wqe.wqe);
		if (err == -EAGAIN)
			return;
		qp->resp.has_wqe = true;
		if (rxe_resp_complete(qp, IB_WC_WR_FLUSH_ERR, NULL, 0))
			return;
	}
}

/* The attributes for this round, and what modify_qp asked for. */
static void rxe_resp_sync(struct rxe_qp *qp, struct rxe_resp_ctx *ctx)
{
	bool reset, new_psn_set;
	u32 new_psn;

	spin_lock_bh(&qp->lock);
	ctx->state = qp->attr.qp_state;
	ctx->mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	ctx->access = qp->attr.qp_access_flags;
	ctx->min_rnr_timer = qp->attr.min_rnr_timer;
	ctx->dest_qpn = qp->attr.dest_qp_num;
	ctx->num_res = min_t(unsigned int, qp->attr.max_dest_rd_atomic,
			     RXE_MAX_QP_RD_ATOM);
	ctx->av = qp->pri_av;
	reset = qp->resp.reset;
	new_psn_set = qp->resp.new_psn_set;
	new_psn = qp->resp.new_psn;
	qp->resp.reset = false;
	qp->resp.new_psn_set = false;
	spin_unlock_bh(&qp->lock);

	if (reset)
		rxe_resp_forget(qp);
	if (new_psn_set) {
		qp->resp.psn = new_psn;
		qp->resp.ack_psn = new_psn;
		qp->resp.sent_psn_nak = false;
	}
	if (ctx->num_res != qp->resp.num_res) {
		memset(qp->resp.res, 0,
		       RXE_MAX_QP_RD_ATOM * sizeof(*qp->resp.res));
		qp->resp.res_head = 0;
		qp->resp.num_res = ctx->num_res;
	}
}

static void rxe_resp_handle(struct rxe_qp *qp, const struct rxe_resp_ctx *ctx,
			    const struct rxe_pkt_info *pkt)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		rxe_resp_rc(qp, ctx, pkt);
		break;
	case IB_QPT_UC:
		rxe_resp_uc(qp, ctx, pkt);
		break;
	default:
		rxe_resp_ud(qp, ctx, pkt);
		break;
	}
}

/* One request, or one READ response, per round. */
static int rxe_responder(struct rxe_qp *qp)
{
	struct rxe_resp_ctx ctx;
	struct sk_buff *skb;

	rxe_resp_sync(qp, &ctx);

	if (ctx.state == IB_QPS_ERR) {
		/* What it acknowledges was executed: the ACK goes. */
		rxe_ack_unpark(&qp->resp.park, &qp->resp.batch);
		rxe_resp_flush(qp);
		return 1;
	}
	if (ctx.state < IB_QPS_RTR) {
		rxe_ack_unpark(&qp->resp.park, &qp->resp.batch);
		rxe_resp_purge(qp);
		return 1;
	}

	/*
	 * After a refused ACK or READ response, nothing until the pause is
	 * over: the ACK is owed, or the READ, which requests wait behind
	 * as on the wire, is in progress.
	 */
	if (rxe_xmit_waiting(&qp->resp.xmit_wait))
		return 1;
	if (rxe_resp_ack_owed(qp, &ctx))
		return 1;
	if (rxe_resp_reading(qp))
		return rxe_resp_read_next(qp, &ctx);

	skb = rxe_resp_take(qp);
	if (!skb)
		return 1;
	rxe_resp_handle(qp, &ctx, rxe_skb_pkt(skb));
	if (unlikely(qp->resp.hold)) {
		/* Until the fault's end runs the task again (rxe_odp.c). */
		qp->resp.hold = false;
		qp->resp.held = skb;
		return 1;
	}
	kfree_skb(skb);
	rxe_qp_put(qp);
	return 0;
}

/* A fault of the responder's is done: the packet held is handled again. */
static void rxe_resp_odp_done(struct rxe_qp *qp)
{
	rxe_task_sched(&qp->resp.task);
}

/* The end of a run of the task: its packets leave together. */
static void rxe_responder_end(struct rxe_qp *qp)
{
	rxe_xmit_flush(&qp->resp.batch, NULL);
}

/*
 * Once the task is stopped (destroy), nothing is queued any more
 * (rxe_resp_enqueue()), so no packet, and no QP reference, is left
 * behind.
 */
void rxe_resp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb)
{
	/*
	 * A packet from this host that does not end its message: more
	 * follow, and the sender, which hands them over in its own context,
	 * would wait for each copy.  The responder runs as work instead,
	 * beside the sender (rxe_task.c).  Single packets and last ones
	 * are still handled inline, at the latency of a function call.
	 * (Read now: once queued, the packet is the responder's.)
	 */
	bool defer = (rxe_skb_pkt(skb)->mask &
		      (RXE_LOOPBACK_MASK | RXE_END_MASK)) == RXE_LOOPBACK_MASK;
	int err;

	err = rxe_resp_enqueue(qp, skb);
	if (err) {
		if (err == -ENOBUFS)
			rxe_qp_counter_inc(qp, RXE_CNT_RCV_RESP_OVERFLOW);
		kfree_skb(skb);
		rxe_qp_put(qp);
		return;
	}
	if (defer)
		rxe_task_sched(&qp->resp.task);
	else
		rxe_task_run(&qp->resp.task);
}

/* ---- hooks of the QP's lifetime ---- */

int rxe_resp_init(struct rxe_qp *qp)
{
	qp->resp.res = kcalloc(RXE_MAX_QP_RD_ATOM, sizeof(*qp->resp.res),
			       GFP_KERNEL);
	if (!qp->resp.res)
		return -ENOMEM;

	rxe_pktq_init(&qp->resp.pkts);
	spin_lock_init(&qp->resp.rq_lock);
	qp->resp.opcode = -1;
	rxe_ack_park_init(&qp->resp.park, rxe_resp_dev(qp));
	rxe_task_init(&qp->resp.task, qp, rxe_responder, rxe_responder_end);
	rxe_xmit_wait_init(&qp->resp.xmit_wait, &qp->resp.task, 0);
	rxe_odp_fault_init(&qp->resp.odp, qp, rxe_resp_odp_done);
	return 0;
}

void rxe_resp_modify(struct rxe_qp *qp, int mask)
{
	lockdep_assert_held(&qp->lock);

	if (mask & IB_QP_RQ_PSN) {
		qp->resp.new_psn_set = true;
		qp->resp.new_psn = qp->attr.rq_psn;
	}
	if (!(mask & IB_QP_STATE))
		return;

	switch (qp->attr.qp_state) {
	case IB_QPS_RESET:
		qp->resp.reset = true;
		fallthrough;
	case IB_QPS_ERR:
		rxe_task_sched(&qp->resp.task);
		break;
	default:
		break;
	}
}

void rxe_resp_stop(struct rxe_qp *qp)
{
	rxe_task_stop(&qp->resp.task);
	rxe_odp_fault_stop(&qp->resp.odp);
	rxe_xmit_wait_stop(&qp->resp.xmit_wait);
	/* Nothing is queued once the task is stopped (rxe_resp_enqueue()). */
	rxe_resp_purge(qp);
}

void rxe_resp_cleanup(struct rxe_qp *qp)
{
	/* Both tasks are stopped: nothing parks or takes any more. */
	rxe_ack_park_stop(&qp->resp.park);
	kfree(qp->resp.res);
	qp->resp.res = NULL;
}

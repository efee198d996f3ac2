// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queue pairs: creation with their send and receive queues, destruction,
 * and the posting verbs.  RC, UC, UD and the GSI QP (QP1).  Attributes
 * are in rxe_qp_attr.c.
 *
 * The queues of a user QP are mapped into the application, which writes
 * its work requests there itself and rings the doorbell with an empty
 * post_send.
 */
#include <linux/hash.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

/*
 * The QP index is the only way from a number on the wire to a QP: the
 * lookup takes its reference under the index's lock, so that a QP
 * erased from the index (destroy, first thing) is never found again and
 * one found before holds a reference that destroy waits for.  (Not
 * under RCU alone: the core frees the QP's memory as soon as destroy
 * returns, without a grace period.)  Softirq or process context.
 */
struct rxe_qp *rxe_qp_lookup(struct rxe_dev *rxe, u32 qpn)
{
	struct rxe_qp *qp;

	xa_lock_bh(&rxe->qp_index.xa);
	qp = xa_load(&rxe->qp_index.xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_bh(&rxe->qp_index.xa);
	return qp;
}

void rxe_qp_get(struct rxe_qp *qp)
{
	refcount_inc(&qp->ref);
}

void rxe_qp_put(struct rxe_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->ref_done);
}

static int rxe_qp_check_type(const struct ib_qp_init_attr *init,
			     struct ib_udata *udata)
{
	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		return 0;
	case IB_QPT_GSI:
		/* The MAD layer's, on our single port. */
		if (udata || init->port_num != RXE_PORT)
			return -EINVAL;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int rxe_qp_check_caps(const struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;

	if (cap->max_send_wr > RXE_MAX_QP_WR ||
	    cap->max_send_sge > RXE_MAX_SGE ||
	    cap->max_inline_data > RXE_MAX_INLINE_DATA)
		return -EINVAL;

	/* With an SRQ, the receive caps are not ours to check. */
	if (!init->srq && (cap->max_recv_wr > RXE_MAX_QP_WR ||
			   cap->max_recv_sge > RXE_MAX_SGE))
		return -EINVAL;
	return 0;
}

static int rxe_qp_check_init(const struct ib_qp_init_attr *init,
			     struct ib_udata *udata)
{
	int err;

	err = rxe_qp_check_type(init, udata);
	if (err)
		return err;
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	return rxe_qp_check_caps(init);
}

static enum rxe_queue_type rxe_qp_queue_type(const struct rxe_qp *qp)
{
	return qp->is_user ? RXE_QUEUE_FROM_USER : RXE_QUEUE_KERNEL;
}

/*
 * The send WQE carries either the SGEs or the inline data in the same
 * room: each cap grows to what that room holds.  The caller gets them
 * back, but the number of WRs as asked (as stock; query_qp tells the
 * real one).
 */
static int rxe_qp_init_sq(struct rxe_qp *qp, struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	size_t payload;

	payload = max_t(size_t, cap->max_send_sge * sizeof(struct rxe_sge),
			cap->max_inline_data);
	qp->sq.max_sge = payload / sizeof(struct rxe_sge);
	qp->sq.max_inline = payload;
	qp->sq.max_wr = cap->max_send_wr;

	qp->sq.queue = rxe_queue_alloc(&qp->sq.max_wr,
				       sizeof(struct rxe_send_wqe) + payload,
				       rxe_qp_queue_type(qp));
	if (!qp->sq.queue)
		return -ENOMEM;

	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->sq.max_inline;
	return 0;
}

/* No receive queue of its own for a QP on an SRQ. */
static int rxe_qp_init_rq(struct rxe_qp *qp, struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;

	if (init->srq)
		return 0;

	qp->rq.max_sge = cap->max_recv_sge;
	qp->rq.max_wr = cap->max_recv_wr;
	qp->rq.queue = rxe_queue_alloc(&qp->rq.max_wr,
				       sizeof(struct rxe_recv_wqe) +
				       qp->rq.max_sge * sizeof(struct rxe_sge),
				       rxe_qp_queue_type(qp));
	if (!qp->rq.queue)
		return -ENOMEM;
	return 0;
}

static void rxe_qp_free_queues(struct rxe_qp *qp)
{
	rxe_queue_free(qp->rq.queue);
	qp->rq.queue = NULL;
	rxe_queue_free(qp->sq.queue);
	qp->sq.queue = NULL;
}

/*
 * QP1 has its fixed number; the others come from stock's range.  QP1
 * also takes a number of the range, which stays empty: stock's rxe gives
 * its QP1 an index of the range too, so that, with the MAD layer's QP1
 * created first, the first QP of an application is 17 on both stacks.
 */
static int rxe_qp_alloc_num(struct rxe_dev *rxe, struct rxe_qp *qp)
{
	u32 qpn;
	int err;

	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		err = rxe_index_alloc(&rxe->qp_index, NULL, &qp->gsi_slot,
				      GFP_KERNEL);
		if (err)
			return err;
		err = rxe_index_insert(&rxe->qp_index, qp, RXE_GSI_QPN);
		if (err) {
			rxe_index_free(&rxe->qp_index, qp->gsi_slot);
			return err;
		}
		qpn = RXE_GSI_QPN;
	} else {
		err = rxe_index_alloc(&rxe->qp_index, qp, &qpn, GFP_KERNEL);
		if (err)
			return err;
	}

	qp->ibqp.qp_num = qpn;
	/* Spreads the QPs' flows over the peers' receive queues (ECMP). */
	qp->src_port = RXE_ROCE_V2_SPORT_BASE +
		       hash_32(qpn, RXE_ROCE_V2_SPORT_BITS);
	return 0;
}

static void rxe_qp_free_num(struct rxe_dev *rxe, struct rxe_qp *qp)
{
	rxe_index_free(&rxe->qp_index, qp->ibqp.qp_num);
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		rxe_index_free(&rxe->qp_index, qp->gsi_slot);
}

/* Offers the queues for mmap and tells the application where. */
static int rxe_qp_respond(struct rxe_qp *qp, struct ib_udata *udata)
{
	struct rxe_mmap_ctx *ctx = &rxe_udata_ucontext(udata)->mmap;
	struct rxe_create_qp_resp resp = {};

	rxe_queue_export(qp->sq.queue, ctx, &resp.sq_mi);
	if (qp->rq.queue)
		rxe_queue_export(qp->rq.queue, ctx, &resp.rq_mi);

	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

int rxe_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);
	int err;

	err = rxe_qp_check_init(init, udata);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(struct rxe_create_qp_resp))
		return -EINVAL;

	qp->is_user = !!udata;
	qp->sq_sig_type = init->sq_sig_type;
	spin_lock_init(&qp->lock);
	refcount_set(&qp->ref, 1);
	init_completion(&qp->ref_done);

	err = rxe_qp_init_sq(qp, init);
	if (err)
		return err;
	err = rxe_qp_init_rq(qp, init);
	if (err)
		goto err_free_queues;
	err = rxe_req_init(qp);
	if (err)
		goto err_free_queues;
	err = rxe_resp_init(qp);
	if (err)
		goto err_comp_cleanup;
	rxe_qp_init_attr(qp, init);

	/* Last: from here on packets may find the QP. */
	err = rxe_qp_alloc_num(rxe, qp);
	if (err)
		goto err_resp_cleanup;

	if (udata) {
		err = rxe_qp_respond(qp, udata);
		if (err)
			goto err_unpublish;
	}
	return 0;

err_unpublish:
	rxe_qp_free_num(rxe, qp);
	rxe_resp_stop(qp);
	rxe_req_stop(qp);
	rxe_qp_put(qp);
	wait_for_completion(&qp->ref_done);
err_resp_cleanup:
	rxe_resp_cleanup(qp);
err_comp_cleanup:
	rxe_req_cleanup(qp);
err_free_queues:
	rxe_qp_free_queues(qp);
	return err;
}

/*
 * Device removal destroys the QPs of an application that is still
 * running (rxe_disassociate_ucontext()): it may be polling its CQ for
 * the WRs it posted, and no packet will ever complete them now.  Every
 * outstanding send and receive WR completes with IB_WC_WR_FLUSH_ERR, as
 * if the QP had gone to ERR, so that the application learns of it from
 * its CQ (and its completion channel, if armed) before the async
 * DEVICE_FATAL.  The CQ rings stay mapped in the application after the
 * core destroys the CQs (rxe_mmap.c), and the core destroys a QP before
 * the CQs it uses and before the completion channels.
 *
 * The roles are stopped: nothing else walks the queues meanwhile.  A
 * QP in RESET has no WR outstanding.  Only the receives this QP had
 * taken from an SRQ are flushed: the SRQ's own WRs belong to no QP.
 */
static void rxe_qp_flush_removed(struct rxe_qp *qp)
{
	if (READ_ONCE(qp->attr.qp_state) == IB_QPS_RESET)
		return;
	rxe_comp_flush(qp);
	rxe_resp_flush(qp);
}

/* Destroyed because the device goes under a running application. */
static bool rxe_qp_removed(struct rxe_qp *qp, struct ib_udata *udata)
{
	return qp->is_user && udata && rxe_udata_ucontext(udata)->removed;
}

/*
 * The core destroys a QP only once no verb refers to it, but packets,
 * timers and tasks still may: first the QP number is unpublished (no new
 * packet finds the QP), then every role is stopped (no run starts, no
 * timer fires, queued packets are dropped with their references), then
 * we wait for the references still held (a packet in the middle of
 * being handled), and only then does the memory go.  An ordinary
 * destroy completes nothing: the application asked for it.
 */
int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);

	rxe_mcast_detach_qp(qp);
	rxe_qp_free_num(rxe, qp);

	rxe_resp_stop(qp);
	rxe_req_stop(qp);
	if (rxe_qp_removed(qp, udata))
		rxe_qp_flush_removed(qp);

	rxe_qp_put(qp);
	wait_for_completion(&qp->ref_done);

	rxe_resp_cleanup(qp);
	rxe_req_cleanup(qp);
	rxe_qp_free_queues(qp);
	return 0;
}

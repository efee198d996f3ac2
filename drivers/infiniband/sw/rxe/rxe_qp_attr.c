// SPDX-License-Identifier: GPL-2.0-only
/*
 * QP attributes: modify_qp checks a transition and the values it sets,
 * then stores them for query_qp and the protocol engine.  What query_qp
 * returns follows stock: attributes keep their last set value across
 * state changes, cur_qp_state is what the last modify gave, if anything.
 */
#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

/* PSNs and QP numbers are 24-bit on the wire. */
#define RXE_PSN_MASK		0xffffff
#define RXE_QPN_MASK		0xffffff

/* A new QP is in RESET; its path MTU is the smallest until set. */
void rxe_qp_init_attr(struct rxe_qp *qp, const struct ib_qp_init_attr *init)
{
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_256;
	if (init->qp_type == IB_QPT_GSI)
		qp->attr.port_num = init->port_num;
}

/* Values IBA and the device allow, beyond what the transition allows. */
static int rxe_qp_check_values(struct rxe_dev *rxe,
			       const struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != RXE_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= RXE_PORT_PKEY_TBL_LEN)
		return -EINVAL;
	/*
	 * As stock: up to the port's largest MTU, even above the active
	 * one (ibv_*_pingpong -m 4096 on a 1500-byte netdev).
	 */
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > RXE_PORT_MAX_MTU))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > RXE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > RXE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_ALT_PATH) &&
	    (attr->alt_port_num != RXE_PORT ||
	     attr->alt_pkey_index >= RXE_PORT_PKEY_TBL_LEN))
		return -EINVAL;
	return 0;
}

/* A QP back in RESET drops what its queues hold. */
static void rxe_qp_reset_queues(struct rxe_qp *qp)
{
	lockdep_assert_held(&qp->lock);

	rxe_queue_reset(qp->sq.queue);
	if (qp->rq.queue)
		rxe_queue_reset(qp->rq.queue);
}

static void rxe_qp_set_state(struct rxe_qp *qp, enum ib_qp_state state)
{
	lockdep_assert_held(&qp->lock);

	if (state == IB_QPS_RESET)
		rxe_qp_reset_queues(qp);
	/* post_send and the engine read it without the lock. */
	WRITE_ONCE(qp->attr.qp_state, state);
	/* The completer clears it once the SQ is drained. */
	qp->attr.sq_draining = state == IB_QPS_SQD;
}

/*
 * The engine found the QP in error (a failed WQE, retries exhausted, a
 * NAK): ERR as if modified to it; the requester flushes the SQ, the
 * responder its receive queue.  Any context; not with qp->lock held.
 */
void rxe_qp_error(struct rxe_qp *qp)
{
	enum ib_qp_state old;

	spin_lock_bh(&qp->lock);
	old = qp->attr.qp_state;
	if (old == IB_QPS_ERR || old == IB_QPS_RESET) {
		spin_unlock_bh(&qp->lock);
		return;
	}
	rxe_qp_set_state(qp, IB_QPS_ERR);
	rxe_req_modify(qp, IB_QP_STATE, old);
	rxe_resp_modify(qp, IB_QP_STATE);
	spin_unlock_bh(&qp->lock);

	rxe_req_kick(qp);
}

/*
 * One consistent copy of the primary path.  modify_qp rewrites it under
 * qp->lock in SQD while packets are built: a packet sized for IPv4 got
 * IPv6 headers, or one built with its payload by reference for this
 * host went to the wire, when each step read the path afresh.  So one
 * packet uses one copy for its size, its headers and its route.
 */
void rxe_qp_path(struct rxe_qp *qp, struct rxe_av *av)
{
	spin_lock_bh(&qp->lock);
	*av = qp->pri_av;
	spin_unlock_bh(&qp->lock);
}

/* Copies what @mask sets; the values were checked. */
static void rxe_qp_store_attr(struct rxe_qp *qp, const struct ib_qp_attr *attr,
			      int mask)
{
	struct ib_qp_attr *cur = &qp->attr;

	lockdep_assert_held(&qp->lock);

	if (mask & IB_QP_CUR_STATE)
		cur->cur_qp_state = attr->cur_qp_state;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		cur->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_ACCESS_FLAGS)
		cur->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		cur->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		cur->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		cur->qkey = attr->qkey;
	if (mask & IB_QP_PATH_MTU)
		cur->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		cur->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		cur->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		cur->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		cur->rq_psn = attr->rq_psn & RXE_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		cur->sq_psn = attr->sq_psn & RXE_PSN_MASK;
	/* The requester tracks outstanding reads in powers of two. */
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		cur->max_rd_atomic = attr->max_rd_atomic ?
			roundup_pow_of_two(attr->max_rd_atomic) : 0;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		cur->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		cur->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_PATH_MIG_STATE)
		cur->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		cur->dest_qp_num = attr->dest_qp_num & RXE_QPN_MASK;
	if (mask & IB_QP_ALT_PATH) {
		cur->alt_pkey_index = attr->alt_pkey_index;
		cur->alt_port_num = attr->alt_port_num;
		cur->alt_timeout = attr->alt_timeout;
	}
	if (mask & IB_QP_STATE)
		rxe_qp_set_state(qp, attr->qp_state);
}

int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_av pri_av, alt_av;
	enum ib_qp_state cur, new;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	err = rxe_qp_check_values(rxe, attr, mask);
	if (err)
		return err;
	if (mask & IB_QP_AV) {
		err = rxe_av_from_attr(rxe, &pri_av, &attr->ah_attr);
		if (err)
			return err;
	}
	if (mask & IB_QP_ALT_PATH) {
		err = rxe_av_from_attr(rxe, &alt_av, &attr->alt_ah_attr);
		if (err)
			return err;
	}

	spin_lock_bh(&qp->lock);
	/*
	 * The transition is judged from the state the QP is in.  A caller's
	 * cur_qp_state that is not it would pass SQD-only changes (the
	 * path) in RTS, or RTR -> RTS in RTS, which starts the requester
	 * over under WQEs in flight: refused.
	 */
	cur = qp->attr.qp_state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) ||
	    !ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		spin_unlock_bh(&qp->lock);
		return -EINVAL;
	}

	if (mask & IB_QP_AV) {
		bool to_self = rxe_av_to_self(&pri_av);

		qp->pri_av = pri_av;
		/* A peer on this host: see rxe_task.c. */
		rxe_task_set_any_cpu(&qp->req.task, to_self);
		rxe_task_set_any_cpu(&qp->resp.task, to_self);
	}
	if (mask & IB_QP_ALT_PATH)
		qp->alt_av = alt_av;
	rxe_qp_store_attr(qp, attr, mask);
	rxe_req_modify(qp, mask, cur);
	rxe_resp_modify(qp, mask);
	spin_unlock_bh(&qp->lock);

	/* RTS starts sending, ERR flushes: the requester's task does it. */
	if (mask & IB_QP_STATE)
		rxe_req_kick(qp);
	return 0;
}

static void rxe_qp_get_caps(const struct rxe_qp *qp, struct ib_qp_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap->max_send_wr = qp->sq.max_wr;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->sq.max_inline;
	if (qp->rq.queue) {
		cap->max_recv_wr = qp->rq.max_wr;
		cap->max_recv_sge = qp->rq.max_sge;
	}
}

/* Returns every attribute, whatever @mask asks for. */
int rxe_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct rxe_qp *qp = to_rqp(ibqp);

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_type = qp->sq_sig_type;
	rxe_qp_get_caps(qp, &init->cap);

	spin_lock_bh(&qp->lock);
	*attr = qp->attr;
	rxe_av_to_attr(&qp->pri_av, &attr->ah_attr);
	rxe_av_to_attr(&qp->alt_av, &attr->alt_ah_attr);
	spin_unlock_bh(&qp->lock);

	attr->cap = init->cap;
	if (ibqp->qp_type == IB_QPT_GSI)
		init->port_num = attr->port_num;
	return 0;
}

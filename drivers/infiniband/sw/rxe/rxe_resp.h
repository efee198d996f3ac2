/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-QP state of the responder, and the hooks the QP's lifetime calls.
 *
 * Owner: the responder part (rxe_resp.c, rxe_rq.c, rxe_srq.c).
 */
#ifndef RXE_RESP_H
#define RXE_RESP_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "rxe_param.h"
#include "rxe_engine.h"
#include "rxe_odp.h"
#include "rxe_task.h"

struct rxe_qp;
struct rxe_queue;
struct rxe_srq;

/*
 * A READ or ATOMIC (or ATOMIC WRITE) the responder executed, kept so
 * that a duplicate of it (the requester retrying after a lost response)
 * is answered again: a READ by reading the same memory again, an ATOMIC
 * by replaying the result it had, never by executing it twice (IBTA
 * 9.7.5.1.1, C9-148).
 */
struct rxe_resp_res {
	u32		mask;		/* of RXE_RD_ATOMIC_MASK, or 0 */
	u32		first_psn;
	u32		last_psn;
	u32		rkey;
	u64		va;		/* of the original request */
	u32		length;
	u64		orig;		/* ATOMIC: the value returned */
};

/*
 * A READ being answered: one response packet per task round, so that a
 * long READ does not keep the task from other requests forever.  The
 * key is resolved again for each packet: no MR stays referenced between
 * rounds (deregistration waits for references).
 */
struct rxe_resp_read {
	u32		rkey;
	u64		va;
	u32		resid;
	u32		psn;		/* of the next response packet */
	bool		first;		/* no response sent yet */
};

/*
 * Requests queued for one QP's responder, at most (rxe_resp_queue_pkt()).
 * A requester of this stack keeps at most RXE_MAX_UNACKED_PSNS packets
 * unacknowledged; the rest is room for other peers' larger windows.
 * Beyond, a request is dropped and counted (rcvd_resp_overflow_err): the
 * requester sends it again, as after any loss.
 */
#define RXE_RESP_MAX_QUEUED	1024

/* Room for a receive WQE of the largest scatter list. */
union rxe_resp_wqe_buf {
	struct rxe_recv_wqe	wqe;
	u8			buf[sizeof(struct rxe_recv_wqe) +
				    RXE_MAX_SGE * sizeof(struct rxe_sge)];
};

struct rxe_resp_info {
	struct rxe_task		task;
	/*
	 * Requests for the responder, in arrival order: at most
	 * RXE_RESP_MAX_QUEUED, of which at most max_dest_rd_atomic READs
	 * and ATOMICs (rd_atomic_queued, under pkts.lock), so that a peer
	 * cannot queue without bound behind a long READ.
	 */
	struct sk_buff_head	pkts;
	unsigned int		rd_atomic_queued;

	/*
	 * Serialises the producers of a kernel QP's receive queue
	 * (post_recv) and orders them with the responder that consumes
	 * it.  Any context: irqsave.  A user QP's RQ needs none
	 * (rxe_rq_take_wqe()).
	 */
	spinlock_t		rq_lock;

	/*
	 * Set by rxe_resp_modify() and taken by the task, both under
	 * qp->lock: the task picks them up at its next round.
	 */
	bool			new_psn_set;
	u32			new_psn;
	bool			reset;

	/*
	 * The ACK waiting for the requester's next batch (rxe_xmit.c):
	 * parked by the task, taken by it, by the requester's task or by
	 * the park's timer, one atomic exchange each.
	 */
	struct rxe_ack_park	park;

	/* Page faults of ODP MRs the responder missed. */
	struct rxe_odp_fault	odp;

	/*
	 * Everything below belongs to the task, which never runs twice at
	 * once; init, stop and cleanup touch it only while no run can
	 * start.
	 */
	/* Packets of the current run not sent yet (rxe_xmit_packet()). */
	struct rxe_xmit_batch	batch;
	/* After a READ response or an ACK refused: nothing is sent. */
	struct rxe_xmit_wait	xmit_wait;
	bool			ack_owed;	/* an ACK was refused */

	u32			psn;		/* expected PSN */
	u32			ack_psn;	/* after the last one executed */
	u32			msn;
	int			opcode;		/* of the last packet, or -1 */
	bool			sent_psn_nak;	/* one NAK per sequence error */
	/*
	 * A request that missed a page of ODP memory sets hold; the task
	 * then keeps it in held, taken again before anything queued once
	 * the page is faulted in (rxe_odp.c).
	 */
	bool			hold;
	struct sk_buff		*held;
	bool			drop_msg;	/* UC: skip to the next FIRST */
	bool			flushed;	/* QP in ERR, RQ flushed */

	/* The receive WQE of the message in progress, copied once. */
	bool			has_wqe;
	union rxe_resp_wqe_buf	wqe;

	/*
	 * The RDMA WRITE in progress: its RETH is checked whole at the
	 * first packet, each packet's range resolved as it lands.
	 */
	u32			rkey;
	u64			va;
	u32			resid;
	u32			length;		/* of the whole message */

	/* The last max_dest_rd_atomic READs and ATOMICs, a ring. */
	struct rxe_resp_res	*res;		/* RXE_MAX_QP_RD_ATOM */
	unsigned int		num_res;
	unsigned int		res_head;
	struct rxe_resp_read	read;
};

/*
 * Hooks for the QP part (rxe_qp.c, rxe_qp_attr.c):
 *
 * rxe_resp_init()	at create, process context, before the QP number
 *			is published; 0 or -ENOMEM.
 * rxe_resp_modify()	after modify_qp stored the attributes of @mask,
 *			with qp->lock held: picks up rq_psn, and the new
 *			state (ERR flushes the receive queue, RESET
 *			forgets every message in progress).
 * rxe_resp_stop()	at destroy, after the QP number is unpublished:
 *			no run starts afterwards, queued packets are
 *			dropped with their QP references.
 * rxe_resp_cleanup()	at destroy, once every reference is gone: frees
 *			what the responder holds.
 */
int rxe_resp_init(struct rxe_qp *qp);
void rxe_resp_modify(struct rxe_qp *qp, int mask);
void rxe_resp_stop(struct rxe_qp *qp);
void rxe_resp_cleanup(struct rxe_qp *qp);
/*
 * The receive WQE in hand and the RQ complete with IB_WC_WR_FLUSH_ERR:
 * in the task (ERR), or once the task is stopped (device removal).
 */
void rxe_resp_flush(struct rxe_qp *qp);

/* rxe_rq.c: receive WQEs, for the responder. */
int rxe_recv_wqe_post(struct rxe_queue *q, u32 max_sge,
		      const struct ib_recv_wr *wr);
int rxe_recv_wqe_copy(struct rxe_queue *q, u32 max_sge,
		      struct rxe_recv_wqe *wqe);
int rxe_rq_take_wqe(struct rxe_qp *qp, struct rxe_recv_wqe *wqe);

/* rxe_srq.c */
int rxe_srq_take_wqe(struct rxe_srq *srq, struct rxe_recv_wqe *wqe);

#endif /* RXE_RESP_H */

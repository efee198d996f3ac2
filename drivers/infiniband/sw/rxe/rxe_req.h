/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-QP state of the requester and of the completer, and the hooks the
 * QP's lifetime calls.
 *
 * The requester and the completer of a QP run as ONE task (req.task):
 * both walk the same send WQEs, and serialising them removes every race
 * between sending a WQE and completing it (see rxe_req.c).
 *
 * Owner: the requester/completer part (rxe_req.c, rxe_comp.c).
 */
#ifndef RXE_REQ_H
#define RXE_REQ_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "rxe_engine.h"
#include "rxe_odp.h"
#include "rxe_task.h"

struct rxe_qp;
struct rxe_send_wqe;

/* wqe->state of the kernel copy of a send WQE. */
enum rxe_wqe_state {
	RXE_WQE_POSTED,		/* not started */
	RXE_WQE_SENDING,	/* some packets sent */
	RXE_WQE_PENDING,	/* all sent, waiting for the response */
	RXE_WQE_DONE,		/* ready to complete, wqe->status says how */
};

/* wqe->mask: what kind of work a WQE is (set when it is checked). */
enum rxe_wr_mask {
	RXE_WR_SEND	= BIT(0),
	RXE_WR_WRITE	= BIT(1),
	RXE_WR_READ	= BIT(2),
	RXE_WR_ATOMIC	= BIT(3),
	RXE_WR_LOCAL	= BIT(4),	/* LOCAL_INV, REG_MR, BIND_MW */
	RXE_WR_ATOMIC_WRITE = BIT(5),	/* IBTA 1.5, rxe_ibta15.h */
};

/*
 * Work the responder answers from a resource (max_rd_atomic of them
 * outstanding), and that only its own response completes.
 */
#define RXE_WR_RD_ATOMIC	(RXE_WR_READ | RXE_WR_ATOMIC | \
				 RXE_WR_ATOMIC_WRITE)

/* The largest message (IBTA: 2^31 bytes). */
#define RXE_MAX_MSG_LEN		BIT_ULL(31)
/* PSNs sent and not yet acknowledged, at most (a window, as stock). */
#define RXE_MAX_UNACKED_PSNS	128
/* Packets without AckReq in a row, at most (as stock). */
#define RXE_MAX_PKT_PER_ACK	64

/*
 * Everything below is touched only by req.task (one run at a time),
 * except where a field says otherwise.
 */
struct rxe_req_info {
	struct rxe_task		task;

	/* Kernel copies of a user QP's WQEs, one per SQ slot. */
	void			*shadow;
	unsigned int		log2_elem;
	/* User QPs: slots before this one (from sq cons) are copied. */
	u32			fetched;

	/* Next WQE to send from, and the PSN of its next packet. */
	u32			wqe_index;
	u32			psn;
	/* Payload per packet (rxe_req_mtu()). */
	u32			mtu;
	/* Packets sent since the last one with AckReq. */
	u32			noack_pkts;
	/* READ/ATOMIC requests that may still be started. */
	int			rd_atomic;

	/* Oldest PSN not yet acknowledged (completer). */
	u32			comp_psn;
	/* Retries left (retry_cnt, rnr_retry; 7 is infinite for RNR). */
	u8			retry_left;
	u8			rnr_left;
	/* Waiting for the RNR timer: nothing is sent meanwhile. */
	bool			rnr_wait;
	/* After a packet refused or not allocated: nothing is sent. */
	struct rxe_xmit_wait	xmit_wait;
	/* Sending again after a gap; cleared by the next progress. */
	bool			in_retry;
	/*
	 * The retransmit timer runs 2^timeout_shift times the QP's
	 * timeout (rxe_req_arm_retrans()).  After a timeout the requester
	 * probes (rxe_req_send_probe()): probe_owed until the packet at
	 * comp_psn has gone again, with AckReq; probing, with nothing new
	 * sent, until progress passes probe_psn, the probe's last PSN
	 * (rxe_comp_progress()); reprobe while one more probe may follow
	 * (rxe_comp_probe_answered()).  window_timed_out: a timeout since
	 * the window last emptied (the timer comes back a step if not).
	 */
	u8			timeout_shift;
	bool			probe_owed;
	bool			probing;
	bool			reprobe;
	bool			window_timed_out;
	u32			probe_psn;
	/* IB_EVENT_SQ_DRAINED raised for the current SQD. */
	bool			drained;
	/*
	 * Set by modify_qp (under qp->lock) when the engine's state must
	 * start over from the attributes (RESET, RTR to RTS); the task
	 * picks it up under the same lock.
	 */
	bool			need_init;

	/* Packets of the current run not sent yet (rxe_xmit_packet()). */
	struct rxe_xmit_batch	batch;
	/* jiffies at the last packet built; read by the responder. */
	unsigned long		sent_at;

	/* Page faults of ODP MRs the requester or completer missed. */
	struct rxe_odp_fault	odp;

	/*
	 * Set by the timers and the end of a page fault (any context),
	 * consumed by the task.
	 */
	unsigned long		events;
	struct timer_list	retrans_timer;
	struct timer_list	rnr_timer;

	/* Serialises producers of a kernel QP's SQ (post_send). */
	spinlock_t		sq_lock;
};

/* Bits of req.events. */
#define RXE_REQ_EV_TIMEOUT	0
/* The RNR timer fired, or a page fault of the send side is done. */
#define RXE_REQ_EV_RNR		1

struct rxe_comp_info {
	/* Responses (ACKs, READ responses) for the completer. */
	struct sk_buff_head	pkts;
};

/*
 * Hooks for the QP part (rxe_qp.c, rxe_qp_attr.c):
 *
 * rxe_req_init()	at create, process context, before the QP number
 *			is published; 0 or -ENOMEM.
 * rxe_req_modify()	after modify_qp stored the attributes of @mask,
 *			with qp->lock held (picks up PSN, retry counts,
 *			the new state); the caller then rxe_req_kick()s
 *			without the lock.
 * rxe_req_stop()	at destroy, after the QP number is unpublished.
 * rxe_req_cleanup()	at destroy, once every reference is gone.
 */
int rxe_req_init(struct rxe_qp *qp);
void rxe_req_modify(struct rxe_qp *qp, int mask, enum ib_qp_state old);
void rxe_req_kick(struct rxe_qp *qp);
void rxe_req_stop(struct rxe_qp *qp);
void rxe_req_cleanup(struct rxe_qp *qp);

/* rxe_req.c: the task of both roles. */
int rxe_req_task(struct rxe_qp *qp);
u32 rxe_req_mtu(struct rxe_qp *qp);
void rxe_req_rewind(struct rxe_qp *qp);
void rxe_req_arm_retrans(struct rxe_qp *qp);
/* For the responder: whether the requester sent in the last 10 ms. */
bool rxe_req_sent_lately(struct rxe_qp *qp);

/* rxe_comp.c: the completer's part of the task; 0 if it did anything. */
int rxe_comp_step(struct rxe_qp *qp);
/* The oldest WQE not DONE, sent at least in part, or NULL. */
struct rxe_send_wqe *rxe_comp_oldest(struct rxe_qp *qp);
/* Completes the WQEs at the head of the SQ that are DONE. */
int rxe_comp_complete_done(struct rxe_qp *qp);
/*
 * Completes every WQE of the SQ, those not done with IB_WC_WR_FLUSH_ERR:
 * in the task (ERR), or once the task is stopped (device removal).
 */
void rxe_comp_flush(struct rxe_qp *qp);

/* rxe_sq.c */
struct rxe_send_wqe *rxe_sq_wqe(struct rxe_qp *qp, u32 index);
u32 rxe_sq_prod(struct rxe_qp *qp);
int rxe_sq_fetch(struct rxe_qp *qp, u32 index);

/* rxe_qp_attr.c: a QP the engine found in error (IBA 10.3.1). */
void rxe_qp_error(struct rxe_qp *qp);
/* rxe_qp_attr.c: a copy of the primary path, for one packet. */
void rxe_qp_path(struct rxe_qp *qp, struct rxe_av *av);

#endif /* RXE_REQ_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-QP state of the responder, and the hooks the QP's lifetime calls.
 *
 * Owner: the responder part (rxe_resp.c).
 */
#ifndef RXE_RESP_H
#define RXE_RESP_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "rxe_task.h"

struct rxe_qp;

struct rxe_resp_info {
	struct rxe_task		task;
	/* Requests for the responder, in arrival order. */
	struct sk_buff_head	pkts;
};

/*
 * Hooks for the QP part (rxe_qp.c, rxe_qp_attr.c):
 *
 * rxe_resp_init()	at create, process context, before the QP number
 *			is published; 0 or -ENOMEM.
 * rxe_resp_modify()	after modify_qp stored the attributes of @mask,
 *			with qp->lock held: picks up rq_psn, the number
 *			of responder resources, and the new state (ERR
 *			flushes the receive queue, RESET forgets).
 * rxe_resp_stop()	at destroy, after the QP number is unpublished:
 *			no run starts afterwards, queued packets are
 *			dropped with their QP references.
 * rxe_resp_cleanup()	at destroy, once every reference is gone: frees
 *			what the responder holds (MR references, tables).
 */
int rxe_resp_init(struct rxe_qp *qp);
void rxe_resp_modify(struct rxe_qp *qp, int mask);
void rxe_resp_stop(struct rxe_qp *qp);
void rxe_resp_cleanup(struct rxe_qp *qp);

#endif /* RXE_RESP_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-QP state of the requester and of the completer.
 *
 * Owner: the requester/completer part (rxe_req.c, rxe_comp.c).
 */
#ifndef RXE_REQ_H
#define RXE_REQ_H

#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/types.h>

#include "rxe_task.h"

struct rxe_req_info {
	struct rxe_task		task;
};

struct rxe_comp_info {
	struct rxe_task		task;
	/* Responses (ACKs, READ responses) for the completer. */
	struct sk_buff_head	pkts;
};

#endif /* RXE_REQ_H */

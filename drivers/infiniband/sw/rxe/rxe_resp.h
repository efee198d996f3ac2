/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-QP state of the responder.
 *
 * Owner: the responder part (rxe_resp.c).
 */
#ifndef RXE_RESP_H
#define RXE_RESP_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "rxe_task.h"

struct rxe_resp_info {
	struct rxe_task		task;
	/* Requests for the responder, in arrival order. */
	struct sk_buff_head	pkts;
};

#endif /* RXE_RESP_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Receive queues: posting receive work requests of kernel QPs.
 *
 * Owner: the responder part.
 */
#include "rxe.h"
#include "rxe_verbs.h"

/* Applications post receives to their mapped queue, without a syscall. */
int rxe_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

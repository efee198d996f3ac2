// SPDX-License-Identifier: GPL-2.0-only
/*
 * Validation and dispatch of received packets.
 */
#include "rxe.h"
#include "rxe_engine.h"

void rxe_rcv(struct sk_buff *skb)
{
	kfree_skb(skb);
}

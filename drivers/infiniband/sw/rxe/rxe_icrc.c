// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RoCEv2 invariant CRC (ICRC).
 */
#include "rxe.h"
#include "rxe_engine.h"

u32 rxe_icrc(struct sk_buff *skb, const struct rxe_pkt_info *pkt)
{
	return 0;
}

int rxe_icrc_check(struct sk_buff *skb, const struct rxe_pkt_info *pkt)
{
	return -EINVAL;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Validation and dispatch of received packets (IBTA vol. 1, 9.6: the
 * packet header validation every receiver does before the transport
 * checks of its role).  Everything here runs in softirq context, or in
 * the sender's context for a packet looped back by rxe_net.c; nothing
 * sleeps and nothing is allocated except multicast clones.
 *
 * A packet gets here with skb->data at the BTH, skb->len covering BTH to
 * ICRC, the IP header at the network header, and pkt->rxe (held by the
 * caller for the duration of the call) and pkt->mask (loopback or not)
 * set.  Anything wrong drops it silently, as a HCA does; the P_Key and
 * Q_Key violations are counted as stock counts them, and every drop in
 * one of the optional counters by its reason: a bad ICRC; a malformed
 * packet (length, opcode, header version, pad); no QP to take it (no
 * such QPN, QP0, a DGID not of this device, a group with no member);
 * a QP that does not take it (transport, state, peer address, keys).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

/* The destination GID of the packet, from its IP header. */
static void rxe_pkt_dgid(struct sk_buff *skb, union ib_gid *dgid)
{
	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)dgid->raw);
	else
		memcpy(dgid->raw, &ipv6_hdr(skb)->daddr, sizeof(dgid->raw));
}

static bool rxe_gid_is_mcast(const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

/*
 * The packet is addressed to a GID of this device (or to a multicast
 * group).  A loopback packet was routed here by its sender already.
 */
static bool rxe_chk_dgid(struct rxe_dev *rxe, struct sk_buff *skb,
			 const union ib_gid *dgid)
{
	const struct ib_gid_attr *attr;

	if (rxe_gid_is_mcast(dgid))
		return true;

	attr = rdma_find_gid_by_port(&rxe->ib_dev, dgid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, RXE_PORT,
				     skb->dev);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/*
 * The lengths agree with the opcode: its headers are all there, the pad
 * and the ICRC fit after them, and opcodes without payload carry none.
 */
static bool rxe_chk_length(const struct rxe_pkt_info *pkt)
{
	const struct rxe_opcode_info *info = &rxe_opcode[pkt->opcode];
	u32 min = info->length + bth_pad(pkt) + RXE_ICRC_SIZE;

	if (pkt->paylen < min)
		return false;
	if (!(info->mask & RXE_PAYLOAD_MASK) && pkt->paylen != min)
		return false;
	return true;
}

/* The transport of the opcode is that of the QP. */
static bool rxe_chk_transport(const struct rxe_pkt_info *pkt,
			      const struct rxe_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return pkt->mask & RXE_RC_MASK;
	case IB_QPT_UC:
		return pkt->mask & RXE_UC_MASK;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return pkt->mask & RXE_UD_MASK;
	default:
		return false;
	}
}

/*
 * Requests need a responder (RTR and later, not in error); responses an
 * active requester (RTS or draining).  The state is read without the
 * QP's lock: a packet racing a transition is one the transition could
 * as well have found queued, and the roles check again.
 */
static bool rxe_chk_state(const struct rxe_pkt_info *pkt,
			  const struct rxe_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->attr.qp_state);

	if (pkt->mask & RXE_REQ_MASK)
		return state == IB_QPS_RTR || state == IB_QPS_RTS ||
		       state == IB_QPS_SQD || state == IB_QPS_SQE;
	return state == IB_QPS_RTS || state == IB_QPS_SQD;
}

/*
 * A connected QP only takes packets from its peer: the packet's
 * addresses are the QP's path, reversed.
 */
static bool rxe_chk_addr(const struct rxe_pkt_info *pkt,
			 const struct rxe_qp *qp, struct sk_buff *skb)
{
	const struct rxe_av *av = &qp->pri_av;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return true;
	if (pkt->port_num != qp->attr.port_num)
		return false;

	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		return iph->daddr == av->sgid_addr._sockaddr_in.sin_addr.s_addr &&
		       iph->saddr == av->dgid_addr._sockaddr_in.sin_addr.s_addr;
	}
	return ipv6_addr_equal(&ipv6_hdr(skb)->daddr,
			       &av->sgid_addr._sockaddr_in6.sin6_addr) &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->saddr,
			       &av->dgid_addr._sockaddr_in6.sin6_addr);
}

/*
 * P_Key: the port has only the default partition, full member (0xffff),
 * so any key of that partition matches (IBTA 10.9.3).  Q_Key: a UD QP
 * takes its own; the GSI QP only the well-known one.
 */
static bool rxe_chk_keys(struct rxe_dev *rxe, const struct rxe_pkt_info *pkt,
			 const struct rxe_qp *qp)
{
	u32 qkey;

	if ((bth_pkey(pkt) & 0x7fff) != 0x7fff) {
		atomic_inc(&rxe->bad_pkey_cntr);
		return false;
	}

	if (qp->ibqp.qp_type == IB_QPT_GSI)
		qkey = IB_QP1_QKEY;
	else if (qp->ibqp.qp_type == IB_QPT_UD)
		qkey = READ_ONCE(qp->attr.qkey);
	else
		return true;

	if (deth_qkey(pkt) != qkey) {
		atomic_inc(&rxe->qkey_viol_cntr);
		return false;
	}
	return true;
}

static bool rxe_chk_qp(struct rxe_dev *rxe, const struct rxe_pkt_info *pkt,
		       const struct rxe_qp *qp, struct sk_buff *skb)
{
	return rxe_chk_transport(pkt, qp) && rxe_chk_state(pkt, qp) &&
	       rxe_chk_addr(pkt, qp, skb) && rxe_chk_keys(rxe, pkt, qp);
}

/* Hands a packet holding a reference on pkt->qp to its role. */
static void rxe_dispatch(struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = rxe_skb_pkt(skb);

	if (pkt->mask & RXE_REQ_MASK)
		rxe_resp_queue_pkt(pkt->qp, skb);
	else
		rxe_comp_queue_pkt(pkt->qp, skb);
}

/*
 * A UD SEND to a multicast group: a copy for every attached QP that
 * would take it (Q_Key, state); the last one takes the skb itself.
 */
static void rxe_rcv_mcast(struct rxe_dev *rxe, struct sk_buff *skb,
			  const union ib_gid *dgid)
{
	struct rxe_qp *qps[RXE_MAX_MCAST_QP_ATTACH];
	struct rxe_pkt_info *pkt;
	struct sk_buff *copy;
	unsigned int n, i, last;
	bool any = false;

	n = rxe_mcast_get_qps(rxe, dgid, qps, ARRAY_SIZE(qps));

	/* Drop the members that would not take it; find the last one. */
	last = n;
	for (i = 0; i < n; i++) {
		if (!rxe_chk_qp(rxe, rxe_skb_pkt(skb), qps[i], skb)) {
			rxe_qp_put(qps[i]);
			qps[i] = NULL;
			continue;
		}
		last = i;
		any = true;
	}
	if (!any) {
		rxe_counter_inc(rxe, n ? RXE_CNT_RCV_QP_MISMATCH :
				     RXE_CNT_RCV_NO_QP);
		kfree_skb(skb);
		return;
	}

	rxe_counter_inc(rxe, RXE_CNT_RCVD_PKTS);
	for (i = 0; i < n; i++) {
		if (!qps[i])
			continue;
		copy = i == last ? skb : skb_clone(skb, GFP_ATOMIC);
		if (!copy) {
			rxe_qp_put(qps[i]);
			continue;
		}
		pkt = rxe_skb_pkt(copy);
		pkt->qp = qps[i];
		pkt->mask |= RXE_MCAST_MASK;
		rxe_dispatch(copy);
	}
}

void rxe_rcv(struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = rxe_skb_pkt(skb);
	struct rxe_dev *rxe = pkt->rxe;
	bool loopback = pkt->mask & RXE_LOOPBACK_MASK;
	enum rxe_counter why = RXE_CNT_RCV_MALFORMED;
	union ib_gid dgid;
	struct rxe_qp *qp;
	u32 qpn;

	if (unlikely(skb->len < sizeof(struct rxe_bth) + RXE_ICRC_SIZE ||
		     skb->len > U16_MAX))
		goto drop;

	pkt->hdr = skb->data;
	pkt->paylen = skb->len;
	pkt->opcode = bth_opcode(pkt);
	pkt->psn = bth_psn(pkt);
	pkt->port_num = RXE_PORT;
	pkt->qp = NULL;
	pkt->mask = (loopback ? RXE_LOOPBACK_MASK : 0);
	/* Only a packet looped back from this host may be a burst. */
	if (!loopback || !pkt->npsn)
		pkt->npsn = 1;

	if (unlikely(!rxe_opcode_valid(pkt->opcode) ||
		     bth_tver(pkt) != RXE_BTH_TVER))
		goto drop;
	pkt->mask |= rxe_opcode[pkt->opcode].mask;
	if (unlikely(!rxe_chk_length(pkt)))
		goto drop;
	/* Bursts are RC's (rxe_xmit.c); nothing else stands for more. */
	if (unlikely(pkt->npsn != 1 && !(pkt->mask & RXE_RC_MASK)))
		goto drop;

	rxe_pkt_dgid(skb, &dgid);
	if (!loopback) {
		if (unlikely(!rxe_chk_dgid(rxe, skb, &dgid))) {
			why = RXE_CNT_RCV_NO_QP;
			goto drop;
		}
		if (unlikely(rxe_icrc_check(skb, pkt))) {
			why = RXE_CNT_RCV_ICRC_ERR;
			goto drop;
		}
	}

	qpn = bth_qpn(pkt);
	if (qpn == IB_MULTICAST_QPN) {
		/* Only UD SENDs go to groups, and only to group addresses. */
		if (unlikely(!(pkt->mask & RXE_UD_MASK) ||
			     !rxe_gid_is_mcast(&dgid)))
			goto drop;
		rxe_rcv_mcast(rxe, skb, &dgid);
		return;
	}

	/* QP0 (SMI) does not exist on RoCE. */
	why = RXE_CNT_RCV_NO_QP;
	if (unlikely(!qpn))
		goto drop;
	qp = rxe_qp_lookup(rxe, qpn);
	if (unlikely(!qp))
		goto drop;
	if (unlikely(!rxe_chk_qp(rxe, pkt, qp, skb))) {
		rxe_qp_put(qp);
		why = RXE_CNT_RCV_QP_MISMATCH;
		goto drop;
	}

	rxe_qp_counter_add(qp, RXE_CNT_RCVD_PKTS, pkt->npsn);
	pkt->qp = qp;
	rxe_dispatch(skb);
	return;

drop:
	rxe_counter_inc(rxe, why);
	kfree_skb(skb);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building and sending packets.
 *
 * A packet is allocated with room for the link, IP and UDP headers in
 * front of its BTH; rxe_xmit_packet() adds them, looks the route up in
 * the netdev's namespace, computes the ICRC and hands the packet to the
 * IP layer.
 *
 * A packet to an address of this host (in the sender's namespace) never
 * reaches a netdev: it is handed to rxe_rcv() of the rxe device on the
 * netdev owning that address, inline in the sender's context, without
 * an ICRC (nothing can corrupt it).
 *
 * Bursts.  Between two QPs of one rxe device, an RC message's payload
 * goes by reference to the sender's pages (rxe_req_by_ref()), and the
 * cost of a 64 KiB transfer was then its 65 packets, not its bytes: at
 * a path MTU of 1024 it moved at a fifth of memcpy()'s rate, each
 * packet built, received, checked, executed and acknowledged alone
 * (perf.rst).  So such a packet may stand for several: a burst carries
 * the payload of up to RXE_BURST_BYTES of consecutive packets of one
 * message, with the first one's PSN and headers, the opcode of its
 * first and last positions (FIRST and LAST make an ONLY) and
 * pkt->npsn telling the receiver how many PSNs it takes; the responder
 * executes it as those packets in order, and READ responses to such a
 * QP go the same way.  A burst exists only between rxe_xmit_burst()
 * and the receiver: it never reaches a netdev, a capture or a peer, and
 * the wire sees every packet as IBTA has it.
 *
 * Batches.  In a guest, every packet a virtio-net device takes costs a
 * notification of the host, an exit to the hypervisor: a quarter of the
 * kernel's time per packet across two guests (perf.rst).  A driver
 * notifies once for a list of packets handed to it together
 * (netdev_xmit_more()), and GSO is the stack's way of handing it such a
 * list.  So the packets a task run sends to one peer are held back
 * (struct rxe_xmit_batch) and leave, when the run ends, as one
 * UDP_L4 | FRAGLIST super-packet: the first packet is the head and the
 * others, complete with their own IP, UDP, BTH, payload and ICRC, hang
 * off its frag_list.  Software GSO (skb_segment_list()) takes them apart
 * again just before the driver, gives each the head's link header,
 * renumbers the IPv4 identifiers head + k and leaves every other byte as
 * built - the UDP checksum stays 0.  The ICRC covers the identifier, so
 * a member's identifier is set to head + k before its ICRC is computed.
 *
 * Only a netdev without NETIF_F_GSO_FRAGLIST gets batches: it has the
 * super-packet segmented in validate_xmit_skb(), before the packet taps,
 * so a capture sees the packets as they go on the wire.  veth, VLAN and
 * bridge devices would carry the super-packet on whole; they get one
 * packet at a time, as do multicast and packets to this host.
 *
 * Parked ACKs.  In a request-reply exchange (a ping-pong, an RPC) the
 * responder's ACK of a message and the requester's reply to it go to
 * the same peer a moment apart, and each paid a notification of the
 * host and an interrupt at the peer: an RC ping-pong across two guests
 * took 2.2 times as long as a UD one, and its ACKs were most of the
 * difference (perf.rst).  The ACK of a message that completes a
 * receive WQE may therefore wait, in the QP's struct rxe_ack_park, for
 * the requester's next batch to leave with it, or for a timer of
 * RXE_ACK_PARK_NS.  The responder (rxe_resp_may_park()) parks only when
 * its requester has sent lately (the QP talks both ways) and the route
 * batches, and parks before it posts the completion that may prompt the
 * reply.  One ACK waits at most, a newer one goes at once, and any other
 * response goes after the parked ACK.  A parked ACK is superseded or
 * sent, never lost: a QP that is reset, in error or destroyed sends it.
 *
 * Refused packets.  When the netdev refuses a packet (a full queue, or
 * the receive backlog of a veth's peer, which the receive softirq
 * drains later), the requester and the responder's READ put it back and
 * build it again after RXE_XMIT_WAIT_NS (struct rxe_xmit_wait), rather
 * than carry on after a hole: the peer would take every packet after
 * the hole for out of sequence, and only a retransmission of all of
 * them, after a timeout for a READ, would fill it.  The requester's
 * pauses double while nothing it builds gets through, so that a link
 * that refuses for long is left to the peer's answers: where requests
 * and answers share a queue (the one receive backlog of a veth pair in
 * one host), requesters resending every 100 us keep it full and the
 * ACKs out, until the retransmission timers fire.  The responder's
 * pause stays the shortest.  A refused ACK is owed and sent again after
 * the pause (rxe_resp.c).  A whole batch refused, a NAK or an ATOMIC
 * response is lost, as on a wire, and the requester's timeout recovers
 * it.
 */
#include <linux/hrtimer.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_net.h"
#include "rxe_verbs.h"

/*
 * A batch's size, at most: the IP layer writes the super-packet's whole
 * length into the head's IP header before segmentation, so it must fit
 * there; and a run that sends more is long enough to spare a kick.
 */
#define RXE_XMIT_BATCH_BYTES	IP_MAX_MTU
#define RXE_XMIT_BATCH_PKTS	64

/*
 * How long an ACK waits for a reply to leave with: the worst latency it
 * adds to the peer's send completion.  Replies in guests without
 * hardware virtualisation often take more than half a millisecond: RC
 * ping-pong across two of them was 2.3x UD with 500 us, 2.1x with 1 ms
 * and 1.8x with 2 ms (perf.rst).  Short next to the local ACK timeouts
 * applications ask for (14, 67 ms, is ibv_rc_pingpong's and perftest's);
 * a requester whose timeout is shorter may retry once, and the
 * duplicate is answered at once.
 */
#define RXE_ACK_PARK_NS		(2 * NSEC_PER_MSEC)

/*
 * The pause after a refused packet.  Trying again at once, from the
 * softirq that sent, would find a veth peer's backlog as full as it
 * was: the same softirq drains it, later.  After the pause the task
 * runs as work, in process context, where every packet sent lets the
 * softirqs run and drain the backlog (rxe_task.c).
 */
#define RXE_XMIT_WAIT_NS	(100 * NSEC_PER_USEC)

/* Room in front of the BTH for the IP and UDP headers and the link. */
static unsigned int rxe_hdr_room(const struct rxe_av *av,
				 const struct net_device *ndev)
{
	unsigned int ip = av->network_type == RXE_NETWORK_TYPE_IPV6 ?
			  sizeof(struct ipv6hdr) : sizeof(struct iphdr);

	return LL_RESERVED_SPACE(ndev) + ip + sizeof(struct udphdr);
}

/*
 * An skb with @len bytes of head room and data.  The head comes from
 * the page fragment cache, not kmalloc(): a kmalloc()ed head is zeroed
 * whole when the kernel initialises allocations (init_on_alloc, on in
 * Debian's kernel), which cost as much as copying the payload (perf.rst).
 * A fragment keeps its 32 KiB page from being reused while the packet
 * lives, which for rxe's packets, consumed or sent at once, is short.
 */
static struct sk_buff *rxe_alloc_skb(unsigned int len)
{
	unsigned int size = SKB_DATA_ALIGN(len) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb;
	void *data;

	if (size > PAGE_SIZE)
		return alloc_skb(len, GFP_ATOMIC);
	data = netdev_alloc_frag(size);
	if (unlikely(!data))
		return NULL;
	skb = build_skb(data, size);
	if (unlikely(!skb))
		skb_free_frag(data);
	return skb;
}

/*
 * An skb for @qp to @av with @linear bytes from the BTH on in its linear
 * part, left uninitialised, and room in front for the IP and UDP
 * headers.
 */
static struct sk_buff *rxe_alloc_packet(struct rxe_qp *qp,
					const struct rxe_av *av, u8 opcode,
					u32 linear, u32 paylen,
					struct rxe_pkt_info *pkt)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	struct net_device *ndev = rxe->ndev;
	unsigned int room = rxe_hdr_room(av, ndev);
	struct sk_buff *skb;

	skb = rxe_alloc_skb(room + linear + ndev->needed_tailroom);
	if (unlikely(!skb))
		return NULL;

	skb_reserve(skb, room);
	skb->dev = ndev;
	skb->protocol = av->network_type == RXE_NETWORK_TYPE_IPV6 ?
			htons(ETH_P_IPV6) : htons(ETH_P_IP);

	pkt->rxe = rxe;
	pkt->qp = qp;
	pkt->port_num = RXE_PORT;
	pkt->opcode = opcode;
	pkt->mask = rxe_opcode[opcode].mask;
	pkt->paylen = paylen;
	pkt->hdr = skb_put(skb, linear);
	return skb;
}

struct sk_buff *rxe_init_packet(struct rxe_qp *qp, const struct rxe_av *av,
				u8 opcode, u32 len, struct rxe_pkt_info *pkt)
{
	u32 hdrlen = rxe_opcode[opcode].length;
	u32 tail = (-len & 3) + RXE_ICRC_SIZE;
	struct sk_buff *skb;

	skb = rxe_alloc_packet(qp, av, opcode, hdrlen + len + tail,
			       hdrlen + len + tail, pkt);
	if (unlikely(!skb))
		return NULL;
	/* Reserved fields and the pad go out as 0. */
	memset(pkt->hdr, 0, hdrlen);
	memset(pkt->hdr + hdrlen + len, 0, tail);
	return skb;
}

struct sk_buff *rxe_init_packet_ref(struct rxe_qp *qp, const struct rxe_av *av,
				    u8 opcode, u32 len,
				    struct rxe_pkt_info *pkt)
{
	u32 hdrlen = rxe_opcode[opcode].length;
	struct sk_buff *skb;

	skb = rxe_alloc_packet(qp, av, opcode, hdrlen,
			       hdrlen + len + (-len & 3) + RXE_ICRC_SIZE, pkt);
	if (unlikely(!skb))
		return NULL;
	memset(pkt->hdr, 0, hdrlen);
	return skb;
}

/*
 * The pad and the ICRC of a packet whose payload was attached by
 * reference: a fragment of the zero page, which nothing writes, since
 * such a packet is looped back and never gets an ICRC.
 */
int rxe_end_packet_ref(struct sk_buff *skb, const struct rxe_pkt_info *pkt)
{
	u32 tail = pkt->paylen - skb->len;
	struct page *zero = ZERO_PAGE(0);

	if (WARN_ON_ONCE(tail < RXE_ICRC_SIZE || tail > RXE_ICRC_SIZE + 3))
		return -EINVAL;
	if (skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS)
		return -EMSGSIZE;
	get_page(zero);
	skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, zero, 0, tail, tail);
	return 0;
}

bool rxe_av_to_self(const struct rxe_av *av)
{
	if (av->network_type == RXE_NETWORK_TYPE_IPV6)
		return ipv6_addr_equal(&av->sgid_addr._sockaddr_in6.sin6_addr,
				       &av->dgid_addr._sockaddr_in6.sin6_addr);
	return av->sgid_addr._sockaddr_in.sin_addr.s_addr ==
	       av->dgid_addr._sockaddr_in.sin_addr.s_addr;
}

static void rxe_push_udp(struct sk_buff *skb, __be16 sport)
{
	struct udphdr *udph;

	__skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph = udp_hdr(skb);
	udph->source = sport;
	udph->dest = htons(ROCE_V2_UDP_DPORT);
	udph->len = htons(skb->len);
	/* RoCEv2 sends no UDP checksum: the ICRC covers the packet. */
	udph->check = 0;
}

static void rxe_push_ipv4(struct net *net, struct sk_buff *skb,
			  const struct rxe_av *av, __be32 saddr, __be32 daddr)
{
	struct iphdr *iph;

	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = av->grh.traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->grh.hop_limit;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	iph->check = 0;
	__ip_select_ident(net, iph, 1);
	/* What ip_local_out() would do; the loopback needs it too. */
	ip_send_check(iph);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
}

static void rxe_push_ipv6(struct sk_buff *skb, const struct rxe_av *av,
			  const struct in6_addr *saddr,
			  const struct in6_addr *daddr)
{
	struct ipv6hdr *ip6h;

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, av->grh.traffic_class,
		     cpu_to_be32(av->grh.flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->grh.hop_limit;
	ip6h->saddr = *saddr;
	ip6h->daddr = *daddr;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
}

/*
 * Delivers a packet whose IP and UDP headers are complete, standing for
 * @npsn PSNs, to the rxe device on @ndev (the netdev owning the
 * destination address), or to the sender's own device when there is
 * none there (as stock does; its receive path then drops what is not
 * for it).  In the sender's context: the caller holds no spinlock.
 */
static void rxe_loopback(struct rxe_dev *sender, struct net_device *ndev,
			 struct sk_buff *skb, u16 npsn)
{
	struct rxe_dev *found = ndev ? rxe_dev_get_by_ndev(ndev) : NULL;
	/* The sender lives while its QP sends: no reference needed. */
	struct rxe_dev *rxe = found ?: sender;
	struct rxe_pkt_info *pkt = rxe_skb_pkt(skb);

	skb_dst_drop(skb);
	skb->dev = rxe->ndev;
	skb->pkt_type = PACKET_HOST;
	memset(pkt, 0, sizeof(*pkt));
	pkt->rxe = rxe;
	pkt->mask = RXE_LOOPBACK_MASK;
	pkt->npsn = npsn;
	/* The receive path starts at the BTH. */
	__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
	rxe_rcv(skb);
	if (found)
		ib_device_put(&found->ib_dev);
}

/* The UDP payload of a packet with complete headers. */
static unsigned int rxe_udp_paylen(const struct sk_buff *skb)
{
	return ntohs(udp_hdr(skb)->len) - sizeof(struct udphdr);
}

/*
 * Writes the ICRC of a packet with complete headers into its last 4
 * bytes.
 */
static void rxe_put_icrc(struct sk_buff *skb)
{
	u8 *bth = skb_transport_header(skb) + sizeof(struct udphdr);
	struct rxe_pkt_info info = {
		.hdr = bth,
		.paylen = rxe_udp_paylen(skb),
		.opcode = bth[0],
	};
	u32 icrc = rxe_icrc(skb, &info);

	put_unaligned_le32(icrc, bth + info.paylen - RXE_ICRC_SIZE);
}

/*
 * Hands @skb, which carries @npkts packets with complete headers, to the
 * IP layer; counts them in sent_pkts when the netdev took them, in
 * send_err when it refused them.  Consumes @skb.
 */
static int rxe_send(struct rxe_dev *rxe, struct sk_buff *skb,
		    unsigned int npkts)
{
	struct net *net = dev_net(rxe->ndev);
	int err;

	if (skb->protocol == htons(ETH_P_IP))
		err = ip_local_out(net, NULL, skb);
	else
		err = ip6_local_out(net, NULL, skb);

	if (unlikely(net_xmit_eval(err))) {
		atomic64_add(npkts, &rxe->stats_counters[RXE_CNT_SEND_ERR]);
		return -EAGAIN;
	}
	atomic64_add(npkts, &rxe->stats_counters[RXE_CNT_SENT_PKTS]);
	return 0;
}

/* ---- batches ---- */

/* Whether packets on @dst leave in batches (see the top comment). */
static bool rxe_dst_batches(const struct dst_entry *dst)
{
	return !(dst->dev->features & NETIF_F_GSO_FRAGLIST);
}

/*
 * Whether @skb may join the batch: the same netdev, addresses and UDP
 * ports (GSO would rewrite a member's to the head's), no larger than
 * the head (its size is the batch's gso_size), and room left.  Routes
 * are compared by netdev, not by pointer: IPv4 caches one per CPU.
 */
static bool rxe_batch_fits(const struct rxe_xmit_batch *batch,
			   const struct sk_buff *skb)
{
	const struct sk_buff *head = batch->head;

	if (batch->count >= RXE_XMIT_BATCH_PKTS ||
	    head->len + skb->len > RXE_XMIT_BATCH_BYTES)
		return false;
	if (skb_dst(skb)->dev != batch->dst->dev ||
	    skb->protocol != head->protocol ||
	    udp_hdr(skb)->source != udp_hdr(head)->source ||
	    rxe_udp_paylen(skb) > rxe_udp_paylen(head))
		return false;
	if (skb->protocol == htons(ETH_P_IP))
		return ip_hdr(skb)->saddr == ip_hdr(head)->saddr &&
		       ip_hdr(skb)->daddr == ip_hdr(head)->daddr;
	return ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &ipv6_hdr(head)->saddr) &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->daddr, &ipv6_hdr(head)->daddr);
}

/*
 * Appends a routed packet to the batch, which has room for it, and
 * writes its ICRC.
 */
static void rxe_batch_add(struct rxe_xmit_batch *batch, struct rxe_dev *rxe,
			  struct sk_buff *skb)
{
	struct sk_buff *head = batch->head;

	if (!head) {
		rxe_put_icrc(skb);
		batch->head = skb;
		batch->last = NULL;
		batch->rxe = rxe;
		/* Compared only: the head holds the reference. */
		batch->dst = skb_dst(skb);
		batch->count = 1;
		return;
	}

	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *iph = ip_hdr(skb);

		/* What inet_gso_segment() will write: head + k. */
		iph->id = htons(ntohs(ip_hdr(head)->id) + batch->count);
		ip_send_check(iph);
	}
	rxe_put_icrc(skb);
	/* The segments get the head's route. */
	skb_dst_drop(skb);

	if (batch->last)
		batch->last->next = skb;
	else
		skb_shinfo(head)->frag_list = skb;
	batch->last = skb;
	head->len += skb->len;
	head->data_len += skb->len;
	head->truesize += skb->truesize;
	batch->count++;
}

/* Sends what the batch holds, as one packet or one super-packet. */
static void rxe_batch_send(struct rxe_xmit_batch *batch)
{
	struct sk_buff *head = batch->head;
	unsigned int count = batch->count;

	if (!head)
		return;
	batch->head = NULL;
	batch->last = NULL;
	batch->dst = NULL;
	batch->count = 0;

	if (count > 1) {
		struct skb_shared_info *shinfo = skb_shinfo(head);

		shinfo->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
		shinfo->gso_size = rxe_udp_paylen(head);
		shinfo->gso_segs = count;
		/*
		 * No checksum to offload (the UDP checksum is 0, the ICRC
		 * is written): what the GSO path expects of such a packet.
		 */
		head->ip_summed = CHECKSUM_UNNECESSARY;
	}
	rxe_send(batch->rxe, head, count);
}

/* A routed packet into the batch, after what no longer fits with it. */
static void rxe_batch_take(struct rxe_xmit_batch *batch, struct rxe_dev *rxe,
			   struct sk_buff *skb)
{
	if (batch->head && !rxe_batch_fits(batch, skb))
		rxe_batch_send(batch);
	rxe_batch_add(batch, rxe, skb);
	if (batch->count >= RXE_XMIT_BATCH_PKTS)
		rxe_batch_send(batch);
}

/* ---- refused packets ---- */

static enum hrtimer_restart rxe_xmit_wait_expired(struct hrtimer *timer)
{
	struct rxe_xmit_wait *wait = container_of(timer, struct rxe_xmit_wait,
						  timer);

	rxe_task_sched(wait->task);
	return HRTIMER_NORESTART;
}

void rxe_xmit_wait_init(struct rxe_xmit_wait *wait, struct rxe_task *task,
			u8 max_backoff)
{
	hrtimer_init(&wait->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	wait->timer.function = rxe_xmit_wait_expired;
	wait->task = task;
	wait->waiting = false;
	wait->backoff = 0;
	wait->max_backoff = max_backoff;
}

int rxe_xmit_wait_start(struct rxe_xmit_wait *wait)
{
	u64 ns = RXE_XMIT_WAIT_NS << wait->backoff;

	if (wait->backoff < wait->max_backoff)
		wait->backoff++;
	wait->waiting = true;
	hrtimer_start(&wait->timer, ns_to_ktime(ns), HRTIMER_MODE_REL_SOFT);
	return 1;
}

/*
 * The timer is queued until its callback starts, and the callback runs
 * the task after that: a run that finds it no longer queued may go on,
 * and a run that finds it queued is followed by the callback's.
 */
bool rxe_xmit_waiting(struct rxe_xmit_wait *wait)
{
	if (!wait->waiting)
		return false;
	if (hrtimer_is_queued(&wait->timer))
		return true;
	wait->waiting = false;
	return false;
}

void rxe_xmit_wait_stop(struct rxe_xmit_wait *wait)
{
	hrtimer_cancel(&wait->timer);
}

/* ---- parked ACKs ---- */

static enum hrtimer_restart rxe_ack_park_expired(struct hrtimer *timer)
{
	struct rxe_ack_park *park = container_of(timer, struct rxe_ack_park,
						 timer);

	rxe_ack_unpark(park, NULL);
	return HRTIMER_NORESTART;
}

void rxe_ack_park_init(struct rxe_ack_park *park, struct rxe_dev *rxe)
{
	park->skb = NULL;
	park->rxe = rxe;
	hrtimer_init(&park->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	park->timer.function = rxe_ack_park_expired;
}

/*
 * A routed ACK into the park, where it waits for the requester's next
 * batch or for the timer.  One ACK waits at most: with one already
 * there, the newer, which acknowledges both, goes at once instead.
 */
static void rxe_ack_park(struct rxe_ack_park *park,
			 struct rxe_xmit_batch *batch, struct rxe_dev *rxe,
			 struct sk_buff *skb)
{
	struct sk_buff *old = xchg(&park->skb, NULL);

	if (old) {
		kfree_skb(old);
		rxe_batch_take(batch, rxe, skb);
		return;
	}
	/* Only the responder parks: nothing came in meanwhile. */
	WARN_ON_ONCE(xchg(&park->skb, skb));
	hrtimer_start(&park->timer, ns_to_ktime(RXE_ACK_PARK_NS),
		      HRTIMER_MODE_REL_SOFT);
}

void rxe_ack_unpark(struct rxe_ack_park *park, struct rxe_xmit_batch *batch)
{
	struct sk_buff *skb = xchg(&park->skb, NULL);

	if (!skb)
		return;
	if (batch) {
		rxe_batch_take(batch, park->rxe, skb);
		return;
	}
	rxe_put_icrc(skb);
	rxe_send(park->rxe, skb, 1);
}

void rxe_ack_park_stop(struct rxe_ack_park *park)
{
	hrtimer_cancel(&park->timer);
	/*
	 * The message it acknowledges was executed: the peer must hear of
	 * it even if this QP goes right after (a ping-pong's last one).
	 */
	rxe_ack_unpark(park, NULL);
}

void rxe_xmit_flush(struct rxe_xmit_batch *batch, struct rxe_ack_park *park)
{
	if (park && batch->head)
		rxe_ack_unpark(park, batch);
	rxe_batch_send(batch);
}

/* ---- sending ---- */

/*
 * A routed packet: into @batch when the egress netdev segments batches
 * itself (see the top comment) and @may_batch, or into @park (an ACK)
 * then; otherwise sent at once, after whatever the batch holds.
 */
static int rxe_xmit_routed(struct rxe_dev *rxe, struct sk_buff *skb,
			   struct rxe_xmit_batch *batch,
			   struct rxe_ack_park *park, bool may_batch)
{
	if (batch && may_batch && rxe_dst_batches(skb_dst(skb))) {
		if (park)
			rxe_ack_park(park, batch, rxe, skb);
		else
			rxe_batch_take(batch, rxe, skb);
		return 0;
	}

	if (batch) {
		if (park)
			rxe_ack_unpark(park, batch);
		rxe_batch_send(batch);
	}
	rxe_put_icrc(skb);
	return rxe_send(rxe, skb, 1);
}

/*
 * A packet to this host, after whatever the batch holds; a burst counts
 * as the @npsn packets it stands for.
 */
static void rxe_xmit_local(struct rxe_dev *rxe, struct net_device *ndev,
			   struct sk_buff *skb, struct rxe_xmit_batch *batch,
			   u16 npsn)
{
	if (batch)
		rxe_batch_send(batch);
	rxe_loopback(rxe, ndev, skb, npsn);
	atomic64_add(npsn, &rxe->stats_counters[RXE_CNT_SENT_PKTS]);
}

static struct rtable *rxe_route4(struct rxe_dev *rxe, const struct rxe_av *av)
{
	struct flowi4 fl = {
		.flowi4_oif = rxe->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = av->grh.traffic_class & IPTOS_TOS_MASK,
		.saddr = av->sgid_addr._sockaddr_in.sin_addr.s_addr,
		.daddr = av->dgid_addr._sockaddr_in.sin_addr.s_addr,
	};

	return ip_route_output_key(dev_net(rxe->ndev), &fl);
}

static struct dst_entry *rxe_route6(struct rxe_dev *rxe,
				    const struct rxe_av *av)
{
	struct flowi6 fl6 = {
		.flowi6_oif = rxe->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.saddr = av->sgid_addr._sockaddr_in6.sin6_addr,
		.daddr = av->dgid_addr._sockaddr_in6.sin6_addr,
	};

	return ip6_dst_lookup_flow(dev_net(rxe->ndev), NULL, &fl6, NULL);
}

/*
 * The route from @av's source to its destination, bound to the netdev,
 * or an ERR_PTR.  *@local: the destination is an address of this host;
 * *@unicast: it is neither multicast nor broadcast.
 */
static struct dst_entry *rxe_route(struct rxe_dev *rxe, const struct rxe_av *av,
				   bool *local, bool *unicast)
{
	struct dst_entry *dst;
	struct rtable *rt;

	if (av->network_type == RXE_NETWORK_TYPE_IPV6) {
		dst = rxe_route6(rxe, av);
		if (IS_ERR(dst))
			return dst;
		*local = ((struct rt6_info *)dst)->rt6i_flags & RTF_LOCAL;
		*unicast = !ipv6_addr_is_multicast(&av->dgid_addr._sockaddr_in6.sin6_addr);
		return dst;
	}
	rt = rxe_route4(rxe, av);
	if (IS_ERR(rt))
		return ERR_CAST(rt);
	*local = rt->rt_type == RTN_LOCAL;
	*unicast = rt->rt_type == RTN_UNICAST;
	return &rt->dst;
}

/* The netdev owning @av's destination address, held; or NULL. */
static struct net_device *rxe_local_ndev(struct rxe_dev *rxe,
					 const struct rxe_av *av)
{
	struct net *net = dev_net(rxe->ndev);
	struct net_device *ndev;

	rcu_read_lock();
	if (av->network_type == RXE_NETWORK_TYPE_IPV6)
		ndev = ipv6_dev_find(net, &av->dgid_addr._sockaddr_in6.sin6_addr,
				     NULL);
	else
		ndev = __ip_dev_find(net, av->dgid_addr._sockaddr_in.sin_addr.s_addr,
				     false);
	dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}

bool rxe_xmit_batches(struct rxe_qp *qp, const struct rxe_av *av)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	struct dst_entry *dst;
	bool local, unicast, ret;

	if (rxe_av_to_self(av))
		return false;
	dst = rxe_route(rxe, av, &local, &unicast);
	if (IS_ERR(dst))
		return false;
	ret = !local && unicast && rxe_dst_batches(dst);
	dst_release(dst);
	return ret;
}

static int rxe_xmit(struct rxe_qp *qp, const struct rxe_av *av,
		    struct sk_buff *skb, struct rxe_xmit_batch *batch,
		    struct rxe_ack_park *park, u16 npsn)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	struct net_device *local_ndev;
	struct dst_entry *dst;
	bool local, unicast;

	/* A burst is for this device only: never anywhere else. */
	if (WARN_ON_ONCE(npsn != 1 && !rxe_av_to_self(av))) {
		kfree_skb(skb);
		rxe_counter_inc(rxe, RXE_CNT_SEND_ERR);
		return -EINVAL;
	}

	/* rxe_init_packet() left skb->data at the BTH. */
	rxe_push_udp(skb, htons(qp->src_port));
	if (av->network_type == RXE_NETWORK_TYPE_IPV6)
		rxe_push_ipv6(skb, av, &av->sgid_addr._sockaddr_in6.sin6_addr,
			      &av->dgid_addr._sockaddr_in6.sin6_addr);
	else
		rxe_push_ipv4(dev_net(rxe->ndev), skb, av,
			      av->sgid_addr._sockaddr_in.sin_addr.s_addr,
			      av->dgid_addr._sockaddr_in.sin_addr.s_addr);

	/* To ourselves: the common loopback, no route needed. */
	if (rxe_av_to_self(av)) {
		rxe_xmit_local(rxe, rxe->ndev, skb, batch, npsn);
		return 0;
	}

	dst = rxe_route(rxe, av, &local, &unicast);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		rxe_counter_inc(rxe, RXE_CNT_SEND_ERR);
		return PTR_ERR(dst);
	}
	if (local) {
		dst_release(dst);
		local_ndev = rxe_local_ndev(rxe, av);
		rxe_xmit_local(rxe, local_ndev, skb, batch, 1);
		dev_put(local_ndev);
		return 0;
	}

	skb_dst_set(skb, dst);
	return rxe_xmit_routed(rxe, skb, batch, park, unicast);
}

int rxe_xmit_packet(struct rxe_qp *qp, const struct rxe_av *av,
		    struct sk_buff *skb, struct rxe_xmit_batch *batch)
{
	return rxe_xmit(qp, av, skb, batch, NULL, 1);
}

int rxe_xmit_burst(struct rxe_qp *qp, const struct rxe_av *av,
		   struct sk_buff *skb, struct rxe_xmit_batch *batch, u16 npsn)
{
	return rxe_xmit(qp, av, skb, batch, NULL, npsn);
}

void rxe_xmit_ack(struct rxe_qp *qp, const struct rxe_av *av,
		  struct sk_buff *skb, struct rxe_xmit_batch *batch,
		  struct rxe_ack_park *park)
{
	rxe_xmit(qp, av, skb, batch, park, 1);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The network side of rxe.
 *
 * RoCEv2 runs over UDP port 4791.  Every network namespace has its own
 * pair of kernel UDP tunnel sockets (IPv4 and IPv6), opened when the
 * namespace appears (or when the module loads, for the existing ones)
 * and closed when it goes: an rxe device receives in the namespace its
 * netdev lives in, whichever that is.  The sockets only receive; packets
 * are built here and sent straight to the IP layer.
 *
 * A packet to an address of this host (in the sender's namespace) never
 * reaches a netdev: it is handed to rxe_rcv() of the rxe device on the
 * netdev owning that address, inline in the sender's context, without
 * an ICRC (nothing can corrupt it).
 *
 * The netdev notifier keeps each device in step with its netdev: link
 * state, MTU, and unregistration, which takes the rxe device away with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_net.h"
#include "rxe_verbs.h"

/* Any non-zero encap type makes UDP hand packets to encap_rcv. */
#define RXE_UDP_ENCAP_TYPE	1

/*
 * The sockets of one namespace (net_generic()), set by its pernet init
 * and cleared by its pernet exit, never changed in between.  sock6 is
 * NULL when IPv6 is disabled; both are NULL in a namespace where the
 * port was taken (see rxe_net_ns_init()).
 */
struct rxe_net {
	struct socket	*sock4;
	struct socket	*sock6;
};

static unsigned int rxe_net_id __read_mostly;

/*
 * The rxe device bound to @ndev (or to the netdev beneath a VLAN), with
 * a reference; NULL if there is none.  Any context.
 */
static struct rxe_dev *rxe_dev_get_by_ndev(struct net_device *ndev)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev && is_vlan_dev(ndev))
		ibdev = ib_device_get_by_netdev(vlan_dev_real_dev(ndev),
						RDMA_DRIVER_RXE);
	return ibdev ? to_rdev(ibdev) : NULL;
}

/*
 * encap_rcv of every socket, in softirq context, with skb->data at the
 * UDP header and the skb trimmed to the UDP length.  Returning 0 tells
 * UDP that the skb is consumed.
 */
static int rxe_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = rxe_skb_pkt(skb);
	struct rxe_dev *rxe;

	rxe = rxe_dev_get_by_ndev(skb->dev);
	if (!rxe)
		goto drop;
	/* rxe_rcv() wants the transport headers in one piece. */
	if (skb_linearize(skb))
		goto drop_put;

	memset(pkt, 0, sizeof(*pkt));
	pkt->rxe = rxe;
	__skb_pull(skb, sizeof(struct udphdr));
	rxe_rcv(skb);
	ib_device_put(&rxe->ib_dev);
	return 0;

drop_put:
	ib_device_put(&rxe->ib_dev);
drop:
	kfree_skb(skb);
	return 0;
}

static struct socket *rxe_udp_tunnel_open(struct net *net, int family)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = RXE_UDP_ENCAP_TYPE,
		.encap_rcv = rxe_udp_encap_recv,
	};
	struct udp_port_cfg port_cfg = {
		.family = family,
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
		/* Leave IPv4 to the AF_INET socket. */
		.ipv6_v6only = family == AF_INET6,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);

	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static void rxe_net_close(struct rxe_net *rn)
{
	if (rn->sock6) {
		udp_tunnel_sock_release(rn->sock6);
		rn->sock6 = NULL;
	}
	if (rn->sock4) {
		udp_tunnel_sock_release(rn->sock4);
		rn->sock4 = NULL;
	}
}

static int rxe_net_open(struct net *net, struct rxe_net *rn)
{
	struct socket *sock;

	sock = rxe_udp_tunnel_open(net, AF_INET);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	rn->sock4 = sock;

	sock = rxe_udp_tunnel_open(net, AF_INET6);
	if (IS_ERR(sock)) {
		/* IPv6 disabled at boot: RoCEv2 over IPv4 still works. */
		if (PTR_ERR(sock) == -EAFNOSUPPORT)
			return 0;
		rxe_net_close(rn);
		return PTR_ERR(sock);
	}
	rn->sock6 = sock;
	return 0;
}

/*
 * A failure in the initial namespace fails the module load, as on
 * stock; in any other it only leaves that namespace without RoCEv2
 * reception, rather than failing the creation of the namespace (or the
 * module load) because an application holds the port there.
 */
static int __net_init rxe_net_ns_init(struct net *net)
{
	struct rxe_net *rn = net_generic(net, rxe_net_id);
	int err;

	err = rxe_net_open(net, rn);
	if (!err)
		return 0;
	if (net_eq(net, &init_net)) {
		pr_err("cannot open UDP port %d: %d\n", ROCE_V2_UDP_DPORT, err);
		return err;
	}
	pr_warn_ratelimited("cannot open UDP port %d in a namespace: %d\n",
			    ROCE_V2_UDP_DPORT, err);
	return 0;
}

static void __net_exit rxe_net_ns_exit(struct net *net)
{
	rxe_net_close(net_generic(net, rxe_net_id));
}

static struct pernet_operations rxe_net_ops = {
	.init = rxe_net_ns_init,
	.exit = rxe_net_ns_exit,
	.id = &rxe_net_id,
	.size = sizeof(struct rxe_net),
};

/* ---- sending ---- */

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
		return -EOPNOTSUPP;
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
 * Delivers a packet whose IP and UDP headers are complete to the rxe
 * device on @ndev (the netdev owning the destination address), or to
 * the sender's own device when there is none there (as stock does; its
 * receive path then drops what is not for it).  In the sender's
 * context: the caller holds no spinlock.
 */
static void rxe_loopback(struct rxe_dev *sender, struct net_device *ndev,
			 struct sk_buff *skb)
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
	/* The receive path starts at the BTH. */
	__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
	rxe_rcv(skb);
	if (found)
		ib_device_put(&found->ib_dev);
}

/* Writes the ICRC into the last 4 bytes of the packet. */
static void rxe_put_icrc(struct sk_buff *skb, u8 *bth, unsigned int paylen)
{
	struct rxe_pkt_info info = {
		.hdr = bth,
		.paylen = paylen,
		.opcode = bth[0],
	};
	u32 icrc = rxe_icrc(skb, &info);

	put_unaligned_le32(icrc, bth + paylen - RXE_ICRC_SIZE);
}

/*
 * Hands a packet with complete headers to the IP layer; counts it when
 * the netdev took it.  Consumes @skb.
 */
static int rxe_send(struct rxe_dev *rxe, struct net *net, struct sk_buff *skb)
{
	int err;

	if (skb->protocol == htons(ETH_P_IP))
		err = ip_local_out(net, skb->sk, skb);
	else
		err = ip6_local_out(net, skb->sk, skb);

	if (unlikely(net_xmit_eval(err)))
		return -EAGAIN;
	rxe_counter_inc(rxe, RXE_CNT_SENT_PKTS);
	return 0;
}

static int rxe_xmit_ipv4(struct rxe_dev *rxe, struct net *net,
			 const struct rxe_av *av, struct sk_buff *skb,
			 u8 *bth, unsigned int paylen)
{
	__be32 saddr = av->sgid_addr._sockaddr_in.sin_addr.s_addr;
	__be32 daddr = av->dgid_addr._sockaddr_in.sin_addr.s_addr;
	struct net_device *local = NULL;
	struct flowi4 fl = {
		.flowi4_oif = rxe->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = av->grh.traffic_class & IPTOS_TOS_MASK,
		.saddr = saddr,
		.daddr = daddr,
	};
	struct rtable *rt;

	rxe_push_ipv4(net, skb, av, saddr, daddr);

	/* To ourselves: the common loopback, no route needed. */
	if (rxe_av_to_self(av)) {
		rxe_loopback(rxe, rxe->ndev, skb);
		goto sent;
	}

	rt = ip_route_output_key(net, &fl);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	if (rt->rt_type == RTN_LOCAL) {
		ip_rt_put(rt);
		rcu_read_lock();
		local = __ip_dev_find(net, daddr, false);
		dev_hold(local);
		rcu_read_unlock();
		rxe_loopback(rxe, local, skb);
		dev_put(local);
		goto sent;
	}

	skb_dst_set(skb, &rt->dst);
	rxe_put_icrc(skb, bth, paylen);
	return rxe_send(rxe, net, skb);

sent:
	rxe_counter_inc(rxe, RXE_CNT_SENT_PKTS);
	return 0;
}

static int rxe_xmit_ipv6(struct rxe_dev *rxe, struct net *net,
			 const struct rxe_av *av, struct sk_buff *skb,
			 u8 *bth, unsigned int paylen)
{
	const struct in6_addr *saddr = &av->sgid_addr._sockaddr_in6.sin6_addr;
	const struct in6_addr *daddr = &av->dgid_addr._sockaddr_in6.sin6_addr;
	struct net_device *local = NULL;
	struct flowi6 fl6 = {
		.flowi6_oif = rxe->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.saddr = *saddr,
		.daddr = *daddr,
	};
	struct dst_entry *dst;

	rxe_push_ipv6(skb, av, saddr, daddr);

	if (rxe_av_to_self(av)) {
		rxe_loopback(rxe, rxe->ndev, skb);
		goto sent;
	}

	dst = ip6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	if (((struct rt6_info *)dst)->rt6i_flags & RTF_LOCAL) {
		dst_release(dst);
		rcu_read_lock();
		local = ipv6_dev_find(net, daddr, NULL);
		dev_hold(local);
		rcu_read_unlock();
		rxe_loopback(rxe, local, skb);
		dev_put(local);
		goto sent;
	}

	skb_dst_set(skb, dst);
	rxe_put_icrc(skb, bth, paylen);
	return rxe_send(rxe, net, skb);

sent:
	rxe_counter_inc(rxe, RXE_CNT_SENT_PKTS);
	return 0;
}

int rxe_xmit_packet(struct rxe_qp *qp, const struct rxe_av *av,
		    struct sk_buff *skb)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	struct net *net = dev_net(rxe->ndev);
	/* rxe_init_packet() left skb->data at the BTH. */
	unsigned int paylen = skb->len;
	u8 *bth = skb->data;

	rxe_push_udp(skb, htons(qp->src_port));
	if (av->network_type == RXE_NETWORK_TYPE_IPV6)
		return rxe_xmit_ipv6(rxe, net, av, skb, bth, paylen);
	return rxe_xmit_ipv4(rxe, net, av, skb, bth, paylen);
}

static bool rxe_netdev_event_wanted(unsigned long event)
{
	switch (event) {
	case NETDEV_UNREGISTER:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		return true;
	default:
		return false;
	}
}

/* Called with RTNL held, for netdevs of every namespace. */
static int rxe_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;
	struct rxe_dev *rxe;

	if (!rxe_netdev_event_wanted(event))
		return NOTIFY_DONE;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev)
		return NOTIFY_DONE;
	rxe = to_rdev(ibdev);

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Unregistration waits for users of the device and takes
		 * RTNL itself: it cannot run here.  The core's work does it
		 * and drops the netdev references soon after.
		 */
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		rxe_port_update_state(rxe);
		break;
	case NETDEV_CHANGEMTU:
		rxe_port_update_mtu(rxe);
		break;
	}

	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block rxe_netdev_notifier = {
	.notifier_call = rxe_netdev_event,
};

int __init rxe_net_init(void)
{
	int err;

	err = register_pernet_subsys(&rxe_net_ops);
	if (err)
		return err;

	err = register_netdevice_notifier(&rxe_netdev_notifier);
	if (err) {
		pr_err("cannot register the netdev notifier: %d\n", err);
		unregister_pernet_subsys(&rxe_net_ops);
		return err;
	}
	return 0;
}

/* After every rxe device is gone. */
void rxe_net_exit(void)
{
	unregister_netdevice_notifier(&rxe_netdev_notifier);
	unregister_pernet_subsys(&rxe_net_ops);
}

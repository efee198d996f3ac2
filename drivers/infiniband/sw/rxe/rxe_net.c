// SPDX-License-Identifier: GPL-2.0-only
/*
 * The network side of rxe: sockets and netdev events (sending is in
 * rxe_xmit.c).
 *
 * RoCEv2 runs over UDP port 4791.  Every network namespace has its own
 * pair of kernel UDP tunnel sockets (IPv4 and IPv6), opened when the
 * namespace appears (or when the module loads, for the existing ones)
 * and closed when it goes: an rxe device receives in the namespace its
 * netdev lives in, whichever that is.  The sockets only receive; packets
 * are built by rxe_xmit.c and sent straight to the IP layer.
 *
 * The netdev notifier keeps each device in step with its netdev: link
 * state, MTU, and unregistration, which takes the rxe device away with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
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

struct rxe_dev *rxe_dev_get_by_ndev(struct net_device *ndev)
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

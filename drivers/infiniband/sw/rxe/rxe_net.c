// SPDX-License-Identifier: GPL-2.0-only
/*
 * The network side of rxe.
 *
 * RoCEv2 runs over UDP port 4791: one kernel UDP tunnel socket per address
 * family in init_net receives it for every rxe device.  Until the protocol
 * engine exists, received packets are dropped.
 *
 * The netdev notifier keeps each device in step with its netdev: link
 * state, MTU, and unregistration, which takes the rxe device away with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/skbuff.h>
#include <net/ipv6.h>
#include <net/udp_tunnel.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_net.h"

/* Any non-zero encap type makes UDP hand packets to encap_rcv. */
#define RXE_UDP_ENCAP_TYPE	1

/*
 * Set by rxe_net_init() before any device exists and cleared by
 * rxe_net_exit() after the last one is gone; never changes in between.
 * sock6 is NULL when IPv6 is disabled.
 */
static struct socket *rxe_sock4;
static struct socket *rxe_sock6;

/*
 * encap_rcv of both sockets, in softirq context.  Returning 0 tells UDP
 * that the skb is consumed.
 */
static int rxe_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
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

static int __init rxe_sockets_open(void)
{
	struct socket *sock;

	sock = rxe_udp_tunnel_open(&init_net, AF_INET);
	if (IS_ERR(sock)) {
		pr_err("cannot open the IPv4 UDP port %d: %pe\n",
		       ROCE_V2_UDP_DPORT, sock);
		return PTR_ERR(sock);
	}
	rxe_sock4 = sock;

	sock = rxe_udp_tunnel_open(&init_net, AF_INET6);
	if (IS_ERR(sock)) {
		/* IPv6 disabled at boot: RoCEv2 over IPv4 still works. */
		if (PTR_ERR(sock) == -EAFNOSUPPORT) {
			pr_warn("IPv6 is not available, RoCEv2 runs over IPv4 only\n");
			return 0;
		}
		pr_err("cannot open the IPv6 UDP port %d: %pe\n",
		       ROCE_V2_UDP_DPORT, sock);
		udp_tunnel_sock_release(rxe_sock4);
		rxe_sock4 = NULL;
		return PTR_ERR(sock);
	}
	rxe_sock6 = sock;
	return 0;
}

static void rxe_sockets_close(void)
{
	if (rxe_sock6) {
		udp_tunnel_sock_release(rxe_sock6);
		rxe_sock6 = NULL;
	}
	udp_tunnel_sock_release(rxe_sock4);
	rxe_sock4 = NULL;
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

	err = rxe_sockets_open();
	if (err)
		return err;

	err = register_netdevice_notifier(&rxe_netdev_notifier);
	if (err) {
		pr_err("cannot register the netdev notifier: %d\n", err);
		rxe_sockets_close();
		return err;
	}
	return 0;
}

/* After every rxe device is gone. */
void rxe_net_exit(void)
{
	unregister_netdevice_notifier(&rxe_netdev_notifier);
	rxe_sockets_close();
}

struct sk_buff *rxe_init_packet(struct rxe_qp *qp, const struct rxe_av *av,
				int paylen, struct rxe_pkt_info *pkt)
{
	return NULL;
}

int rxe_xmit_packet(struct rxe_qp *qp, const struct rxe_av *av,
		    struct sk_buff *skb)
{
	kfree_skb(skb);
	return -EHOSTUNREACH;
}

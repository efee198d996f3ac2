/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rxe's side of the network stack: the RoCEv2 UDP sockets, the netdev
 * notifier, and helpers reading netdev state.
 */
#ifndef RXE_NET_H
#define RXE_NET_H

#include <linux/init.h>
#include <linux/netdevice.h>

struct rxe_dev;

int __init rxe_net_init(void);
void rxe_net_exit(void);

/*
 * The rxe device bound to @ndev (or to the netdev beneath a VLAN), with
 * a reference; NULL if there is none.  Any context.
 */
struct rxe_dev *rxe_dev_get_by_ndev(struct net_device *ndev);

/* The link is usable: administratively up and with carrier. */
static inline bool rxe_ndev_link_up(const struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

#endif /* RXE_NET_H */

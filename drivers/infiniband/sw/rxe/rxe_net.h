/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rxe's side of the network stack: the RoCEv2 UDP sockets, the netdev
 * notifier, and helpers reading netdev state.
 */
#ifndef RXE_NET_H
#define RXE_NET_H

#include <linux/init.h>
#include <linux/netdevice.h>

int __init rxe_net_init(void);
void rxe_net_exit(void);

/* The link is usable: administratively up and with carrier. */
static inline bool rxe_ndev_link_up(const struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

#endif /* RXE_NET_H */

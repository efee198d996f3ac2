// SPDX-License-Identifier: GPL-2.0-only
/*
 * nldev: the RDMA_NL_NLDEV client of NETLINK_RDMA, the interface of the
 * rdma tool (iproute2) and of libibverbs' device discovery.
 *
 * The device model is not in yet: GET dumps an empty device list, which is
 * what the stock stack answers on a machine without RDMA devices.
 */
#include <linux/module.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

static int nldev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	/* No devices yet: an empty dump ends at once with NLMSG_DONE. */
	return skb->len;
}

static const struct rdma_nl_cbs nldev_cb_table[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = {
		.dump = nldev_get_dumpit,
	},
};

void __init nldev_init(void)
{
	rdma_nl_register(RDMA_NL_NLDEV, nldev_cb_table);
}

void nldev_exit(void)
{
	rdma_nl_unregister(RDMA_NL_NLDEV);
}

MODULE_ALIAS_RDMA_NETLINK(RDMA_NL_NLDEV, 5);

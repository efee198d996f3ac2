// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_core module entry: brings the core's parts up in dependency order and
 * takes them down in reverse.
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

static int __init ib_core_init(void)
{
	int ret;

	ret = rdma_nl_init();
	if (ret)
		return ret;

	/* Clients register last: from here on, messages reach them. */
	nldev_init();
	return 0;
}

static void __exit ib_core_exit(void)
{
	nldev_exit();
	rdma_nl_exit();
}

module_init(ib_core_init);
module_exit(ib_core_exit);

MODULE_DESCRIPTION("RDMA core (oot-rdma)");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
/* socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA) loads us. */
MODULE_ALIAS_NET_PF_PROTO(PF_NETLINK, NETLINK_RDMA);

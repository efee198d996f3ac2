// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_core module entry: brings the core's parts up in dependency order and
 * takes them down in reverse.
 *
 *	module_guard	refuses the distribution's modules of our set
 *			(module_guard.c), before anything can use us
 *	xrc		the locks of shared XRC target QPs (cannot fail)
 *	netlink		the NETLINK_RDMA sockets everything else answers on
 *	devices		class "infiniband", registry, work queues, notifiers
 *	mad		the MAD layer's client, first of all clients (QP1
 *			must exist when ib_cm, ib_umad and rdma_cm add a
 *			device)
 *	roce_gid_mgmt	netdev/inet/inet6 notifiers feeding the GID tables
 *	addr		rdma_resolve_ip()'s work queue and netevent notifier
 *	security	the LSM's policy-change notifier (with
 *			CONFIG_SECURITY_INFINIBAND, security.c)
 *	nldev		the nldev client: from here on, tools reach us
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

static int __init ib_core_init(void)
{
	int ret;

	ret = ib_module_guard_init();
	if (ret)
		return ret;
	ib_xrc_init();

	ret = rdma_nl_init();
	if (ret)
		goto err_guard;

	ret = ib_devices_init();
	if (ret)
		goto err_nl;

	ret = ib_netns_init();
	if (ret)
		goto err_devices;

	ret = ib_mad_init();
	if (ret)
		goto err_netns;

	ret = roce_gid_mgmt_init();
	if (ret)
		goto err_mad;

	ret = rdma_addr_init();
	if (ret)
		goto err_roce;

	ret = ib_security_init();
	if (ret)
		goto err_addr;

	nldev_init();
	return 0;

err_addr:
	rdma_addr_exit();
err_roce:
	roce_gid_mgmt_exit();
err_mad:
	ib_mad_exit();
err_netns:
	ib_netns_exit();
err_devices:
	ib_devices_exit();
err_nl:
	rdma_nl_exit();
err_guard:
	ib_module_guard_exit();
	return ret;
}

static void __exit ib_core_exit(void)
{
	nldev_exit();
	ib_security_exit();
	rdma_addr_exit();
	roce_gid_mgmt_exit();
	ib_mad_exit();
	ib_netns_exit();
	ib_devices_exit();
	rdma_nl_exit();
	ib_module_guard_exit();
}

module_init(ib_core_init);
module_exit(ib_core_exit);

MODULE_DESCRIPTION("RDMA core (oot-rdma)");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
/* socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA) loads us. */
MODULE_ALIAS_NET_PF_PROTO(PF_NETLINK, NETLINK_RDMA);

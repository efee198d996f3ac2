// SPDX-License-Identifier: GPL-2.0-only
/*
 * Netdevs whose data path is the RDMA device's own (enhanced IPoIB):
 * ipoib asks the driver, through ops.rdma_netdev_get_params, how big its
 * private area and how many queues the netdev needs, and for the
 * function that turns the netdev into a struct rdma_netdev.  ipoib
 * falls back to its own UD QP path when the answer is -EOPNOTSUPP, which
 * is what a device without the op (rxe, any RoCE-only device) gives.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

static int rdma_netdev_params(struct ib_device *device, u32 port_num,
			      enum rdma_netdev_t type,
			      struct rdma_netdev_alloc_params *params)
{
	if (!device->ops.rdma_netdev_get_params)
		return -EOPNOTSUPP;
	return device->ops.rdma_netdev_get_params(device, port_num, type,
						  params);
}

/**
 * rdma_alloc_netdev - allocate the netdev of an offloaded ULP
 * @device: the device
 * @port_num: its port
 * @type: the kind (RDMA_NETDEV_IPOIB)
 * @name: name template
 * @name_assign_type: NET_NAME_*
 * @setup: the ULP's setup callback
 *
 * The netdev gets the private size and queue counts of the driver's
 * parameters; rdma_init_netdev() then initialises it.
 *
 * Return: the netdev (free_netdev() it), or ERR_PTR(): -EOPNOTSUPP
 * without the driver op, -ENOMEM, or the driver's error.
 */
struct net_device *rdma_alloc_netdev(struct ib_device *device, u32 port_num,
				     enum rdma_netdev_t type, const char *name,
				     unsigned char name_assign_type,
				     void (*setup)(struct net_device *))
{
	struct rdma_netdev_alloc_params params;
	struct net_device *netdev;
	int ret;

	ret = rdma_netdev_params(device, port_num, type, &params);
	if (ret)
		return ERR_PTR(ret);
	netdev = alloc_netdev_mqs(params.sizeof_priv, name, name_assign_type,
				  setup, params.txqs, params.rxqs);
	return netdev ?: ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL(rdma_alloc_netdev);

/**
 * rdma_init_netdev - let the driver set up a netdev as its rdma_netdev
 * @device: the device
 * @port_num: its port
 * @type: the kind (RDMA_NETDEV_IPOIB)
 * @name: name template (unused: the netdev exists)
 * @name_assign_type: NET_NAME_* (unused)
 * @setup: the ULP's setup callback (unused)
 * @netdev: allocated by the ULP with at least the driver's private size
 *
 * Return: 0, -EOPNOTSUPP without the driver op, or the driver's error.
 */
int rdma_init_netdev(struct ib_device *device, u32 port_num,
		     enum rdma_netdev_t type, const char *name,
		     unsigned char name_assign_type,
		     void (*setup)(struct net_device *),
		     struct net_device *netdev)
{
	struct rdma_netdev_alloc_params params;
	int ret;

	ret = rdma_netdev_params(device, port_num, type, &params);
	if (ret)
		return ret;
	return params.initialize_rdma_netdev(device, port_num, netdev,
					     params.param);
}
EXPORT_SYMBOL(rdma_init_netdev);

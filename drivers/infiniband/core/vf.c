// SPDX-License-Identifier: GPL-2.0-only
/*
 * SR-IOV virtual functions of an RDMA device, for the netdev that
 * represents its port (ipoib's ndo_set_vf_* and ndo_get_vf_*: "ip link
 * set ibN vf ...").  Only the physical function's driver knows its VFs,
 * so each call is its op; a device without one (rxe, any VF itself)
 * answers -EOPNOTSUPP, which rtnetlink passes on to the user.
 */
#include <linux/export.h>
#include <linux/if_link.h>
#include <rdma/ib_verbs.h>

/**
 * ib_set_vf_link_state - force a VF's link up, down, or follow the port
 * @device: the physical function's device
 * @vf: VF number
 * @port: port number
 * @state: IFLA_VF_LINK_STATE_*
 *
 * Return: 0, -EOPNOTSUPP, or the driver's error.
 */
int ib_set_vf_link_state(struct ib_device *device, int vf, u32 port,
			 int state)
{
	if (!device->ops.set_vf_link_state)
		return -EOPNOTSUPP;
	return device->ops.set_vf_link_state(device, vf, port, state);
}
EXPORT_SYMBOL(ib_set_vf_link_state);

/**
 * ib_get_vf_config - what "ip link show" reports of a VF
 * @device: the physical function's device
 * @vf: VF number
 * @port: port number
 * @info: filled in by the driver
 *
 * Return: 0, -EOPNOTSUPP, or the driver's error.
 */
int ib_get_vf_config(struct ib_device *device, int vf, u32 port,
		     struct ifla_vf_info *info)
{
	if (!device->ops.get_vf_config)
		return -EOPNOTSUPP;
	return device->ops.get_vf_config(device, vf, port, info);
}
EXPORT_SYMBOL(ib_get_vf_config);

/**
 * ib_get_vf_stats - a VF's traffic counters
 * @device: the physical function's device
 * @vf: VF number
 * @port: port number
 * @stats: filled in by the driver
 *
 * Return: 0, -EOPNOTSUPP, or the driver's error.
 */
int ib_get_vf_stats(struct ib_device *device, int vf, u32 port,
		    struct ifla_vf_stats *stats)
{
	if (!device->ops.get_vf_stats)
		return -EOPNOTSUPP;
	return device->ops.get_vf_stats(device, vf, port, stats);
}
EXPORT_SYMBOL(ib_get_vf_stats);

/**
 * ib_get_vf_guid - a VF's node and port GUIDs
 * @device: the physical function's device
 * @vf: VF number
 * @port: port number
 * @node_guid: filled in by the driver
 * @port_guid: filled in by the driver
 *
 * Return: 0, -EOPNOTSUPP, or the driver's error.
 */
int ib_get_vf_guid(struct ib_device *device, int vf, u32 port,
		   struct ifla_vf_guid *node_guid,
		   struct ifla_vf_guid *port_guid)
{
	if (!device->ops.get_vf_guid)
		return -EOPNOTSUPP;
	return device->ops.get_vf_guid(device, vf, port, node_guid, port_guid);
}
EXPORT_SYMBOL(ib_get_vf_guid);

/**
 * ib_set_vf_guid - set a VF's node or port GUID
 * @device: the physical function's device
 * @vf: VF number
 * @port: port number
 * @guid: the GUID, in host order
 * @type: IFLA_VF_IB_NODE_GUID or IFLA_VF_IB_PORT_GUID
 *
 * Return: 0, -EOPNOTSUPP, or the driver's error.
 */
int ib_set_vf_guid(struct ib_device *device, int vf, u32 port, u64 guid,
		   int type)
{
	if (!device->ops.set_vf_guid)
		return -EOPNOTSUPP;
	return device->ops.set_vf_guid(device, vf, port, guid, type);
}
EXPORT_SYMBOL(ib_set_vf_guid);

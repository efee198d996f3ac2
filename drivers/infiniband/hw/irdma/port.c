// SPDX-License-Identifier: GPL-2.0-only
/*
 * Port 1: a RoCEv2 port over the function's netdev.  The core keeps the
 * GID table from the netdev's addresses (ib_device_set_netdev; no
 * add_gid: the device sees addresses only in QP and AH contexts), so
 * what is left here is the port's attributes, read from the netdev each
 * time, and its state changes, which ice does not report to an RDMA
 * driver: a netdevice notifier turns the netdev's going up and down
 * into port events.
 */
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "verbs.h"

static bool irdma_port_up(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

int irdma_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr)
{
	struct irdma_dev *dev = to_idev(ibdev);
	struct net_device *ndev = dev->netdev;

	/* The core zeroed *attr. */
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(ndev->mtu));
	attr->lid = 1;
	attr->lmc = 0;
	attr->sm_lid = 0;
	attr->sm_sl = 0;
	if (irdma_port_up(ndev)) {
		attr->state = IB_PORT_ACTIVE;
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	} else {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	}
	attr->gid_tbl_len = 32;
	attr->ip_gids = true;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_REINIT_SUP;
	attr->max_msg_sz = 0x7fffffff;
	attr->pkey_tbl_len = 1;
	attr->bad_pkey_cntr = 0;
	attr->qkey_viol_cntr = 0;
	attr->max_vl_num = 1;
	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

int irdma_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	return 0;
}

enum rdma_link_layer irdma_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int irdma_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		     u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void irdma_port_event(struct irdma_dev *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.element.port_num = IRDMA_PORT,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

static int irdma_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct irdma_dev *dev = container_of(nb, struct irdma_dev, netdev_nb);
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	if (ndev != dev->netdev)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		irdma_port_event(dev, irdma_port_up(ndev) ? IB_EVENT_PORT_ACTIVE :
				 IB_EVENT_PORT_ERR);
		break;
	}
	return NOTIFY_DONE;
}

int irdma_port_events_init(struct irdma_dev *dev)
{
	dev->netdev_nb.notifier_call = irdma_netdev_event;
	return register_netdevice_notifier(&dev->netdev_nb);
}

void irdma_port_events_fini(struct irdma_dev *dev)
{
	unregister_netdevice_notifier(&dev->netdev_nb);
}

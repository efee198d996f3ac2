// SPDX-License-Identifier: GPL-2.0-only
/*
 * The port's GID table in the device.  The core's GID cache decides what
 * each index holds (addresses of the netdev, RoCE v1 and v2); the device
 * needs its own copy with the source MAC and VLAN, because a QP's address
 * path names only an index (src_addr_index) and the device builds the
 * frame's Ethernet, IP and UDP headers from that entry.
 */
#include <linux/if_vlan.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

#include "mlx5_ib.h"

int mlx5_ib_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct mlx5_ib_dev *dev = to_mdev(attr->device);
	u8 version, l3_type;
	u16 vlan_id = 0xffff;
	u8 mac[ETH_ALEN];
	int err;

	switch (attr->gid_type) {
	case IB_GID_TYPE_ROCE:
		version = MLX5_ROCE_VERSION_1;
		break;
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		version = MLX5_ROCE_VERSION_2;
		break;
	default:
		return -EINVAL;
	}
	/* A v2 GID that is an IPv4-mapped address goes out as IPv4. */
	l3_type = ipv6_addr_v4mapped((const struct in6_addr *)&attr->gid) ?
		  MLX5_ROCE_L3_TYPE_IPV4 : MLX5_ROCE_L3_TYPE_IPV6;

	err = rdma_read_gid_l2_fields(attr, &vlan_id, mac);
	if (err)
		return err;

	err = mlx5_core_roce_gid_set(dev->mdev, attr->index, version, l3_type,
				     attr->gid.raw, mac, vlan_id < VLAN_CFI_MASK,
				     vlan_id, attr->port_num);
	return mlx5_ib_cmd_status(dev, err);
}

/* An all-zero entry: the device matches and sends nothing with it. */
int mlx5_ib_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct mlx5_ib_dev *dev = to_mdev(attr->device);
	int err;

	err = mlx5_core_roce_gid_set(dev->mdev, attr->index, 0, 0, NULL, NULL,
				     false, 0, attr->port_num);
	return mlx5_ib_cmd_status(dev, err);
}

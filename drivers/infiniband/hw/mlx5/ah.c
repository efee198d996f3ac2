// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address handles: the address vector (struct mlx5_av) a UD or GSI send
 * WQE carries in its datagram segment, built once per AH.  RoCE only:
 * the destination MAC the core resolved, the GID index to send from (the
 * device builds the IP and UDP headers from that entry of its address
 * table), the destination GID, traffic class, hop limit and flow label,
 * and the UDP source port, which spreads flows as the flow label does.
 */
#include "mlx5_ib.h"

/* grh_gid_fl: a GRH (for RoCE, the IP header) follows from these fields. */
#define MLX5_IB_AV_GRH		BIT(30)
#define MLX5_IB_AV_SGID_SHIFT	20

/* The UDP source port of an AH with no flow label to derive one from. */
static u16 mlx5_ib_ah_sport(struct mlx5_ib_dev *dev, u32 flow_label)
{
	u16 min = MLX5_CAP_ROCE(dev->mdev, r_roce_min_src_udp_port);

	if (flow_label)
		return rdma_flow_label_to_udp_sport(flow_label);
	return min ?: IB_ROCE_UDP_ENCAP_VALID_PORT_MIN;
}

int mlx5_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		      struct ib_udata *udata)
{
	struct rdma_ah_attr *attr = init_attr->ah_attr;
	struct mlx5_ib_dev *dev = to_mdev(ibah->device);
	struct mlx5_ib_create_ah_resp resp = {};
	struct mlx5_ib_ah *ah = to_mah(ibah);
	const struct ib_global_route *grh;
	struct mlx5_av *av = &ah->av;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);

	memset(av, 0, sizeof(*av));
	memcpy(av->rmac, attr->roce.dmac, ETH_ALEN);
	av->udp_sport = cpu_to_be16(mlx5_ib_ah_sport(dev, grh->flow_label));
	av->stat_rate_sl = rdma_ah_get_sl(attr) & 0xf;
	av->tclass = grh->traffic_class;
	av->hop_limit = grh->hop_limit;
	av->grh_gid_fl = cpu_to_be32(MLX5_IB_AV_GRH |
				     grh->sgid_index << MLX5_IB_AV_SGID_SHIFT |
				     (grh->flow_label & 0xfffff));
	memcpy(av->rgid, grh->dgid.raw, sizeof(av->rgid));
	ah->xmit_port = rdma_ah_get_port_num(attr);

	if (!udata || udata->outlen < offsetofend(typeof(resp), dmac))
		return 0;
	resp.response_length = min_t(size_t, udata->outlen, sizeof(resp));
	memcpy(resp.dmac, attr->roce.dmac, ETH_ALEN);
	return ib_copy_to_udata(udata, &resp, resp.response_length);
}

/* Nothing of the device's: the vector lives in the AH alone. */
int mlx5_ib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

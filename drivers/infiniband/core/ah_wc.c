// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address handles that answer a received packet: the MAD layer, ib_cm and
 * SRP targets reply to the sender of a UD/GSI message through an AH made
 * from its work completion and the 40 bytes of network header the
 * receive buffer starts with.
 *
 * On IB the header, when present, is a GRH.  On RoCE it is the packet's
 * IPv6 header (RoCE v2 over IPv6, or RoCE v1's GRH), or for RoCE v2 over
 * IPv4 the IPv4 header in the last 20 of those bytes.  The answer goes
 * from the GID the packet was sent to back to the one it came from,
 * through the GID table entry of the same type (and VLAN) as the
 * received packet; its Ethernet address comes from the neighbour table,
 * as for any RoCE destination (addr.c).
 */
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* The version nibble a GRH or an IPv6 header starts with. */
static unsigned int ip6_version_of(const union rdma_network_hdr *hdr)
{
	return be32_to_cpu(hdr->ibgrh.version_tclass_flow) >> 28;
}

/**
 * ib_get_rdma_header_version - the IP version of a RoCE v2 network header
 * @hdr: the 40 bytes a received packet's buffer starts with
 *
 * An IPv4 header in the last 20 bytes leaves garbage in the first 20,
 * whose version nibble may read 6 by chance: then only a header of five
 * words whose checksum is right is taken for IPv4.
 *
 * Return: 4, 6, or 0 when it is neither.
 */
int ib_get_rdma_header_version(const union rdma_network_hdr *hdr)
{
	struct iphdr ip4;

	/* The receive buffer may be unaligned for the checksum: a copy. */
	memcpy(&ip4, &hdr->roce4grh, sizeof(ip4));

	if (ip6_version_of(hdr) != 6)
		return ip4.version == 4 ? 4 : 0;
	if (ip4.ihl == 5 && !ip_fast_csum(&ip4, ip4.ihl))
		return 4;
	return 6;
}
EXPORT_SYMBOL(ib_get_rdma_header_version);

/**
 * ib_get_gids_from_rdma_hdr - the source and destination GIDs of a header
 * @hdr: the received network header
 * @net_type: what @hdr holds (RDMA_NETWORK_IPV4: an IPv4 header in its
 *	last 20 bytes; IPV6, IB, ROCE_V1: a GRH or IPv6 header)
 * @sgid: the sender's GID (IPv4-mapped for IPv4)
 * @dgid: the GID the packet was sent to
 *
 * Return: 0, or -EINVAL for a NULL GID pointer or another @net_type.
 */
int ib_get_gids_from_rdma_hdr(const union rdma_network_hdr *hdr,
			      enum rdma_network_type net_type,
			      union ib_gid *sgid, union ib_gid *dgid)
{
	if (!sgid || !dgid)
		return -EINVAL;

	switch (net_type) {
	case RDMA_NETWORK_IPV4:
		ipv6_addr_set_v4mapped(hdr->roce4grh.saddr,
				       (struct in6_addr *)sgid);
		ipv6_addr_set_v4mapped(hdr->roce4grh.daddr,
				       (struct in6_addr *)dgid);
		return 0;
	case RDMA_NETWORK_IPV6:
	case RDMA_NETWORK_IB:
	case RDMA_NETWORK_ROCE_V1:
		*sgid = hdr->ibgrh.sgid;
		*dgid = hdr->ibgrh.dgid;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL(ib_get_gids_from_rdma_hdr);

/* What a RoCE packet was, when the driver did not say (no network_hdr_type). */
static enum rdma_network_type net_type_of_grh(const struct ib_grh *grh)
{
	if (ib_get_rdma_header_version((const union rdma_network_hdr *)grh) == 4)
		return RDMA_NETWORK_IPV4;
	/* RoCE v2 over IPv6 is UDP; RoCE v1's GRH names no such header. */
	return grh->next_hdr == IPPROTO_UDP ? RDMA_NETWORK_IPV6 :
					      RDMA_NETWORK_ROCE_V1;
}

struct reply_gid_filter {
	enum ib_gid_type gid_type;
	u16 vlan_id;
};

static bool reply_gid_matches(const union ib_gid *gid,
			      const struct ib_gid_attr *attr, void *context)
{
	const struct reply_gid_filter *want = context;
	u16 vlan_id;

	return attr->gid_type == want->gid_type &&
	       !rdma_read_gid_l2_fields(attr, &vlan_id, NULL) &&
	       vlan_id == want->vlan_id;
}

/* The GRH of the reply: to @sgid, from @sgid_attr, in the received class. */
static void set_reply_grh(struct rdma_ah_attr *ah_attr, union ib_gid *sgid,
			  const struct ib_grh *grh,
			  const struct ib_gid_attr *sgid_attr)
{
	u32 vtf = be32_to_cpu(grh->version_tclass_flow);

	rdma_move_grh_sgid_attr(ah_attr, sgid, vtf & 0xfffff, 0xff,
				(vtf >> 20) & 0xff, sgid_attr);
}

static int roce_ah_attr_from_wc(struct ib_device *device, u32 port_num,
				const struct ib_wc *wc,
				const struct ib_grh *grh,
				enum ib_gid_type gid_type,
				union ib_gid *sgid, const union ib_gid *dgid,
				struct rdma_ah_attr *ah_attr)
{
	struct reply_gid_filter want = {
		.gid_type = gid_type,
		.vlan_id = wc->wc_flags & IB_WC_WITH_VLAN ? wc->vlan_id : 0xffff,
	};
	const struct ib_gid_attr *sgid_attr;
	int ret;

	if (!(wc->wc_flags & IB_WC_GRH))
		return -EPROTOTYPE;

	sgid_attr = rdma_find_gid_by_filter(device, dgid, port_num,
					    reply_gid_matches, &want);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	set_reply_grh(ah_attr, sgid, grh, sgid_attr);

	/* The hop limit then comes from the route back. */
	ret = rdma_resolve_roce_dmac(device, ah_attr);
	if (ret)
		rdma_destroy_ah_attr(ah_attr);
	return ret;
}

static int ib_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			      const struct ib_wc *wc, const struct ib_grh *grh,
			      union ib_gid *sgid, const union ib_gid *dgid,
			      struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *sgid_attr;

	rdma_ah_set_dlid(ah_attr, wc->slid);
	rdma_ah_set_path_bits(ah_attr, wc->dlid_path_bits);
	if (!(wc->wc_flags & IB_WC_GRH))
		return 0;

	/* Sent to the SA's well-known GID: we answer from our first GID. */
	if (dgid->global.interface_id == cpu_to_be64(IB_SA_WELL_KNOWN_GUID))
		sgid_attr = rdma_get_gid_attr(device, port_num, 0);
	else
		sgid_attr = rdma_find_gid_by_port(device, dgid, IB_GID_TYPE_IB,
						  port_num, NULL);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	set_reply_grh(ah_attr, sgid, grh, sgid_attr);
	return 0;
}

/**
 * ib_init_ah_attr_from_wc - the address of the sender of a received packet
 * @device: the device that received it
 * @port_num: its port
 * @wc: the receive completion
 * @grh: the 40 bytes of network header at the start of the receive buffer
 * @ah_attr: filled (uninitialised before)
 *
 * Sleeps (RoCE: neighbour resolution).  On success @ah_attr holds a GID
 * reference when it has a GRH (always on RoCE): rdma_destroy_ah_attr().
 *
 * Return: 0; -EINVAL for a bad port or header type; -EPROTOTYPE for a
 * RoCE completion without GRH; -ENOENT when no GID of ours of the
 * packet's type (and VLAN) is the one it was sent to; the address
 * resolution's error (see rdma_resolve_roce_dmac()).
 */
int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr)
{
	enum rdma_network_type net_type = RDMA_NETWORK_IB;
	union ib_gid sgid, dgid;
	int ret;

	might_sleep();

	memset(ah_attr, 0, sizeof(*ah_attr));
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	ah_attr->type = rdma_ah_find_type(device, port_num);

	if (rdma_cap_eth_ah(device, port_num))
		net_type = wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE ?
			   wc->network_hdr_type : net_type_of_grh(grh);
	ret = ib_get_gids_from_rdma_hdr((const union rdma_network_hdr *)grh,
					net_type, &sgid, &dgid);
	if (ret)
		return ret;

	rdma_ah_set_sl(ah_attr, wc->sl);
	rdma_ah_set_port_num(ah_attr, port_num);

	if (rdma_protocol_roce(device, port_num))
		return roce_ah_attr_from_wc(device, port_num, wc, grh,
					    ib_network_to_gid_type(net_type),
					    &sgid, &dgid, ah_attr);
	return ib_ah_attr_from_wc(device, port_num, wc, grh, &sgid, &dgid,
				  ah_attr);
}
EXPORT_SYMBOL(ib_init_ah_attr_from_wc);

/**
 * ib_create_ah_from_wc - an AH that answers a received packet
 * @pd: the protection domain
 * @wc: the receive completion
 * @grh: the network header at the start of the receive buffer
 * @port_num: the port that received it
 *
 * Return: the AH (rdma_destroy_ah()), or ERR_PTR() with the error of
 * ib_init_ah_attr_from_wc() or rdma_create_ah().
 */
struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num)
{
	struct rdma_ah_attr ah_attr;
	struct ib_ah *ah;
	int ret;

	ret = ib_init_ah_attr_from_wc(pd->device, port_num, wc, grh, &ah_attr);
	if (ret)
		return ERR_PTR(ret);

	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&ah_attr);
	return ah;
}
EXPORT_SYMBOL(ib_create_ah_from_wc);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address handles and the address vectors (struct rxe_av, the uapi's)
 * that AHs and connected QPs send to.  RoCEv2 only: every AV has a GRH,
 * and the destination MAC the core resolved (roce.dmac).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <rdma/ib_addr.h>

#include "rxe.h"
#include "rxe_verbs.h"

static int rxe_av_network_type(const struct ib_global_route *grh)
{
	/* Without the core's GID entry, the address family tells. */
	if (!grh->sgid_attr)
		return ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw) ?
		       RXE_NETWORK_TYPE_IPV4 : RXE_NETWORK_TYPE_IPV6;

	switch (rdma_gid_attr_network_type(grh->sgid_attr)) {
	case RDMA_NETWORK_IPV4:
		return RXE_NETWORK_TYPE_IPV4;
	case RDMA_NETWORK_IPV6:
		return RXE_NETWORK_TYPE_IPV6;
	default:
		/* RoCEv1 or IB GIDs are not in an rxe GID table. */
		return -EINVAL;
	}
}

/* The IP addresses the packets will carry, from the GIDs. */
static void rxe_av_fill_addrs(struct rxe_av *av,
			      const struct ib_global_route *grh)
{
	if (grh->sgid_attr)
		rdma_gid2ip((struct sockaddr *)&av->sgid_addr,
			    &grh->sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&av->dgid_addr, &grh->dgid);
}

/*
 * Builds an AV from what the verbs consumer gave; -EINVAL for anything
 * RoCEv2 on our port cannot send to.
 */
int rxe_av_from_attr(struct rxe_dev *rxe, struct rxe_av *av,
		     const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	int type;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    rdma_ah_get_port_num(attr) != RXE_PORT ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;

	grh = rdma_ah_read_grh(attr);
	if (grh->sgid_index >= RXE_PORT_GID_TBL_LEN)
		return -EINVAL;
	type = rxe_av_network_type(grh);
	if (type < 0)
		return type;

	memset(av, 0, sizeof(*av));
	av->port_num = RXE_PORT;
	av->network_type = type;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	memcpy(av->grh.dgid.raw, grh->dgid.raw, sizeof(av->grh.dgid.raw));
	av->grh.flow_label = grh->flow_label;
	av->grh.sgid_index = grh->sgid_index;
	av->grh.hop_limit = grh->hop_limit;
	av->grh.traffic_class = grh->traffic_class;
	rxe_av_fill_addrs(av, grh);
	return 0;
}

/*
 * The attributes back from an AV.  One never set reads as a RoCE AV
 * with a zero GRH and port 0, as on stock.
 */
void rxe_av_to_attr(const struct rxe_av *av, struct rdma_ah_attr *attr)
{
	union ib_gid dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, av->port_num);
	memcpy(dgid.raw, av->grh.dgid.raw, sizeof(dgid.raw));
	rdma_ah_set_grh(attr, &dgid, av->grh.flow_label, av->grh.sgid_index,
			av->grh.hop_limit, av->grh.traffic_class);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

/*
 * ops.create_ah and ops.create_user_ah.  An application's provider puts
 * the AH number in its UD work requests, if its response has room for
 * it; older ones copy the AV there instead.
 */
int rxe_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibah->device);
	struct rxe_ah *ah = to_rah(ibah);
	struct rxe_create_ah_resp resp = {};
	gfp_t gfp;
	int err;

	err = rxe_av_from_attr(rxe, &ah->av, init->ah_attr);
	if (err)
		return err;

	gfp = (init->flags & RDMA_CREATE_AH_SLEEPABLE) ? GFP_KERNEL :
							 GFP_ATOMIC;
	err = rxe_index_alloc(&rxe->ah_index, ah, &ah->ah_num, gfp);
	if (err)
		return err;

	if (udata && udata->outlen >= sizeof(resp)) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_num;
	}
	return 0;

err_free_num:
	rxe_index_free(&rxe->ah_index, ah->ah_num);
	return err;
}

/*
 * ops.modify_ah (kernel callers: rdma_modify_ah()).  The new AV is built
 * aside and copied in whole; a UD send posted meanwhile may go to either
 * address, as on stock: the caller orders its sends and its modify.
 */
int rxe_modify_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct rxe_av av;
	int err;

	err = rxe_av_from_attr(to_rdev(ibah->device), &av, attr);
	if (err)
		return err;
	to_rah(ibah)->av = av;
	return 0;
}

int rxe_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	rxe_av_to_attr(&to_rah(ibah)->av, attr);
	return 0;
}

int rxe_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct rxe_ah *ah = to_rah(ibah);

	rxe_index_free(&to_rdev(ibah->device)->ah_index, ah->ah_num);
	return 0;
}

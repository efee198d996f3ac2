// SPDX-License-Identifier: GPL-2.0-only
/*
 * SA multicast membership (<rdma/ib_sa.h>): joining and leaving groups
 * through the SA, the group records learnt that way, and address handles
 * made from a member record.
 *
 * Only IB ports join through the SA; rdma_cm joins RoCE groups itself
 * (IGMP/MLD) and only uses ib_init_ah_from_mcmember() here.  There is no
 * IB SA client yet (see sa_path.c): a join on an IB port fails with
 * -EOPNOTSUPP, on any other port with -ENODEV as on the stock kernel,
 * so no membership ever exists and no join callback is ever called.
 */
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/**
 * ib_sa_join_multicast - join a multicast group through the SA
 * @client: a registered SA client
 * @device: the device
 * @port_num: the port that joins
 * @rec: the group and the membership asked for
 * @comp_mask: the fields of @rec that are set
 * @gfp_mask: for the membership's memory
 * @callback: the join's outcome, later
 * @context: stored in the returned membership
 *
 * Return: the membership (ib_sa_free_multicast()), or ERR_PTR(-ENODEV)
 * when @port_num has no SA multicast (any port that is not IB),
 * ERR_PTR(-EOPNOTSUPP) on an IB port (there is no IB SA client).
 */
struct ib_sa_multicast *
ib_sa_join_multicast(struct ib_sa_client *client, struct ib_device *device,
		     u32 port_num, struct ib_sa_mcmember_rec *rec,
		     ib_sa_comp_mask comp_mask, gfp_t gfp_mask,
		     int (*callback)(int status,
				     struct ib_sa_multicast *multicast),
		     void *context)
{
	if (!rdma_is_port_valid(device, port_num) ||
	    !rdma_cap_ib_mcast(device, port_num))
		return ERR_PTR(-ENODEV);
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL(ib_sa_join_multicast);

/**
 * ib_sa_free_multicast - leave a group joined with ib_sa_join_multicast()
 * @multicast: the membership it returned
 *
 * No join ever succeeds, so no caller has a membership to free: being
 * called means a caller passed something that is not one.
 */
void ib_sa_free_multicast(struct ib_sa_multicast *multicast)
{
	WARN_ONCE(1, "%s: %p is no SA membership\n", __func__, multicast);
}
EXPORT_SYMBOL(ib_sa_free_multicast);

/**
 * ib_sa_get_mcmember_rec - the record of a group joined on a port
 * @device: the device
 * @port_num: the port
 * @mgid: the group
 * @rec: receives the group's record
 *
 * Return: 0; -ENODEV when @port_num has no SA multicast; -EADDRNOTAVAIL
 * when the port is in no such group (always, without an IB SA client).
 */
int ib_sa_get_mcmember_rec(struct ib_device *device, u32 port_num,
			   union ib_gid *mgid, struct ib_sa_mcmember_rec *rec)
{
	if (!rdma_is_port_valid(device, port_num) ||
	    !rdma_cap_ib_mcast(device, port_num))
		return -ENODEV;
	return -EADDRNOTAVAIL;
}
EXPORT_SYMBOL(ib_sa_get_mcmember_rec);

/**
 * ib_init_ah_from_mcmember - the address of a multicast group
 * @device: the device
 * @port_num: the port that sends to the group
 * @rec: the group's member record: its port_gid is our source GID
 * @ndev: on RoCE, the netdev that GID must be on (NULL: any); ignored on IB
 * @gid_type: the source GID's type
 * @ah_attr: filled (uninitialised before), with a GRH to the MGID; on
 *	RoCE its dmac is left for the caller
 *
 * Return: 0, and @ah_attr holds a GID reference (rdma_destroy_ah_attr());
 * -EINVAL for a port that is neither IB nor RoCE; -ENOENT when the port
 * has no such GID.
 */
int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     struct ib_sa_mcmember_rec *rec,
			     struct net_device *ndev,
			     enum ib_gid_type gid_type,
			     struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *sgid_attr;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	/* IB GID entries have no netdev to match. */
	if (rdma_protocol_ib(device, port_num))
		ndev = NULL;
	else if (!rdma_protocol_roce(device, port_num))
		return -EINVAL;

	sgid_attr = rdma_find_gid_by_port(device, &rec->port_gid, gid_type,
					  port_num, ndev);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = rdma_ah_find_type(device, port_num);
	rdma_ah_set_dlid(ah_attr, be16_to_cpu(rec->mlid));
	rdma_ah_set_sl(ah_attr, rec->sl);
	rdma_ah_set_port_num(ah_attr, port_num);
	rdma_ah_set_static_rate(ah_attr, rec->rate);
	rdma_move_grh_sgid_attr(ah_attr, &rec->mgid,
				be32_to_cpu(rec->flow_label), rec->hop_limit,
				rec->traffic_class, sgid_attr);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_mcmember);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: address handles.
 *
 * An AH holds its PD and, with a GRH, a reference to its source GID
 * entry (ah->sgid_attr), which ib_core's rdma_destroy_ah_user() drops.
 */

#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs_write.h"

static void ah_attr_from_uverbs(struct ib_device *ib_dev,
				struct rdma_ah_attr *ah,
				const struct ib_uverbs_ah_attr *uah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(ib_dev, uah->port_num);
	rdma_ah_set_dlid(ah, uah->dlid);
	rdma_ah_set_sl(ah, uah->sl);
	rdma_ah_set_path_bits(ah, uah->src_path_bits);
	rdma_ah_set_static_rate(ah, uah->static_rate);
	rdma_ah_set_port_num(ah, uah->port_num);
	if (uah->is_global) {
		rdma_ah_set_grh(ah, NULL, uah->grh.flow_label,
				uah->grh.sgid_index, uah->grh.hop_limit,
				uah->grh.traffic_class);
		memcpy(rdma_ah_retrieve_grh(ah)->dgid.raw, uah->grh.dgid,
		       sizeof(uah->grh.dgid));
	} else {
		rdma_ah_set_ah_flags(ah, 0);
	}
}

/*
 * RoCE frames need the destination MAC.  Multicast and link-local GIDs
 * carry it; for the others it comes from neighbour resolution.
 */
static void ah_resolve_roce_dmac(struct rdma_ah_attr *ah)
{
	struct in6_addr *dgid = (struct in6_addr *)ah->grh.dgid.raw;

	if (rdma_is_multicast_addr(dgid))
		rdma_get_mcast_mac(dgid, ah->roce.dmac);
	else if (rdma_link_local_addr(dgid))
		rdma_get_ll_mac(dgid, ah->roce.dmac);
}

int ib_uverbs_create_ah(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	const struct ib_gid_attr *sgid_attr = NULL;
	struct ib_uverbs_create_ah_resp resp = {};
	struct rdma_ah_init_attr init = {};
	struct ib_uverbs_create_ah cmd;
	struct rdma_ah_attr ah_attr;
	struct ib_uobject *pd_uobj;
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	struct ib_ah *ah;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	if (!rdma_is_port_valid(ib_dev, cmd.attr.port_num))
		return -EINVAL;
	ah_attr_from_uverbs(ib_dev, &ah_attr, &cmd.attr);
	/* RoCE has no LIDs: the GRH is the address. */
	if (ah_attr.type == RDMA_AH_ATTR_TYPE_ROCE &&
	    !(rdma_ah_get_ah_flags(&ah_attr) & IB_AH_GRH))
		return -EINVAL;

	uobj = rdma_alloc_begin_uobject(&uverbs_ah_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	ret = uverbs_get_read(&uverbs_pd_object, cmd.pd_handle, attrs,
			      &pd_uobj);
	if (ret)
		goto err_uobj;
	pd = pd_uobj->object;

	if (rdma_ah_get_ah_flags(&ah_attr) & IB_AH_GRH) {
		sgid_attr = rdma_get_gid_attr(ib_dev, cmd.attr.port_num,
					      cmd.attr.grh.sgid_index);
		if (IS_ERR(sgid_attr)) {
			ret = PTR_ERR(sgid_attr);
			sgid_attr = NULL;
			goto err_pd;
		}
		ah_attr.grh.sgid_attr = sgid_attr;
	}
	if (ah_attr.type == RDMA_AH_ATTR_TYPE_ROCE)
		ah_resolve_roce_dmac(&ah_attr);

	ah = rdma_zalloc_drv_obj(ib_dev, ib_ah);
	if (!ah) {
		ret = -ENOMEM;
		goto err_gid;
	}
	ah->device = ib_dev;
	ah->pd = pd;
	ah->uobject = uobj;
	ah->type = ah_attr.type;
	ah->sgid_attr = sgid_attr;

	init.ah_attr = &ah_attr;
	init.flags = RDMA_CREATE_AH_SLEEPABLE;
	ret = ib_dev->ops.create_user_ah(ah, &init, &attrs->driver_udata);
	if (ret)
		goto err_ah;
	atomic_inc(&pd->usecnt);
	uobj->object = ah;
	uobj->user_handle = cmd.user_handle;
	uverbs_put_read(pd_uobj);

	resp.ah_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_ah:
	kfree(ah);
err_gid:
	if (sgid_attr)
		rdma_put_gid_attr(sgid_attr);
err_pd:
	uverbs_put_read(pd_uobj);
err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

int ib_uverbs_destroy_ah(struct uverbs_attr_bundle *attrs,
			 struct ib_device *ib_dev)
{
	struct ib_uverbs_destroy_ah cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	return __uobj_perform_destroy(&uverbs_ah_object, cmd.ah_handle, attrs);
}

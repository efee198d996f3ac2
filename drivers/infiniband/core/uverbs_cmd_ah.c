// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: address handles.
 *
 * An AH holds its PD and, with a GRH, a reference to its source GID
 * entry (ah->sgid_attr); ib_core's rdma_destroy_ah_user() drops both.
 */

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
 * ib_core makes the AH (rdma_create_user_ah()): it takes the source GID
 * reference and resolves a RoCE destination MAC, as for a kernel AH.
 */
int ib_uverbs_create_ah(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_create_ah_resp resp = {};
	struct ib_uverbs_create_ah cmd;
	struct rdma_ah_attr ah_attr;
	struct ib_uobject *pd_uobj;
	struct ib_uobject *uobj;
	struct ib_ah *ah;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	if (!rdma_is_port_valid(ib_dev, cmd.attr.port_num))
		return -EINVAL;

	uobj = rdma_alloc_begin_uobject(&uverbs_ah_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	ret = uverbs_get_read(&uverbs_pd_object, cmd.pd_handle, attrs,
			      &pd_uobj);
	if (ret)
		goto err_uobj;

	ah_attr_from_uverbs(ib_dev, &ah_attr, &cmd.attr);
	ah = rdma_create_user_ah(pd_uobj->object, &ah_attr,
				 &attrs->driver_udata);
	uverbs_put_read(pd_uobj);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err_uobj;
	}
	ah->uobject = uobj;
	uobj->object = ah;
	uobj->user_handle = cmd.user_handle;

	resp.ah_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

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

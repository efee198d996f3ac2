// SPDX-License-Identifier: GPL-2.0-only
/*
 * mlx5dv's flow API (mlx5dv_create_flow_matcher(), mlx5dv_create_flow()):
 * rules whose match is the device's own fte_match_param, as libmlx5
 * lays it out, rather than the verbs' specs.
 *
 * A matcher (MLX5_IB_OBJECT_FLOW_MATCHER) holds a mask, the criteria
 * sections it enables and a priority; a rule (a UVERBS_OBJECT_FLOW made
 * by MLX5_IB_METHOD_CREATE_FLOW) adds a value under a matcher's mask and
 * sends what matches to a raw packet QP's TIR, or drops it.  Rules are
 * entries of the same bypass namespace tables as the verbs' (flow.c) and
 * hold their matcher and QP while they exist.
 *
 * Receive tables only: the rules of a NIC transmit matcher, the FDB and
 * RDMA tables, DEVX destinations and counters, flow tags, modify-header
 * and reformat actions and the default-miss rule answer EOPNOTSUPP.
 */
#include <rdma/uverbs_std_types.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "mlx5_ib.h"

#define UVERBS_MODULE_NAME mlx5_ib
#include <rdma/uverbs_named_ioctl.h>

/* A match mask or value: up to the device's fte_match_param, zeros after. */
#define MLX5_IB_MATCH_SIZE	UVERBS_ATTR_SIZE(1, MLX5_ST_SZ_BYTES(fte_match_param))

static int mlx5_ib_flow_matcher_cleanup(struct ib_uobject *uobj,
					enum rdma_remove_reason why,
					struct uverbs_attr_bundle *attrs)
{
	struct mlx5_ib_flow_matcher *matcher = uobj->object;

	/* Its rules go first. */
	if (atomic_read(&matcher->usecnt))
		return -EBUSY;
	kfree(matcher);
	return 0;
}

static int
UVERBS_HANDLER(MLX5_IB_METHOD_FLOW_MATCHER_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
					MLX5_IB_ATTR_FLOW_MATCHER_CREATE_HANDLE);
	struct mlx5_ib_flow_matcher *matcher;
	u32 flags, ft_type;
	int err;

	err = uverbs_get_flags32(&flags, attrs,
				 MLX5_IB_ATTR_FLOW_MATCHER_FLOW_FLAGS,
				 IB_FLOW_ATTR_FLAGS_EGRESS);
	if (err)
		return err;
	err = uverbs_get_const_default(&ft_type, attrs,
				       MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE,
				       MLX5_IB_UAPI_FLOW_TABLE_TYPE_NIC_RX);
	if (err)
		return err;
	/*
	 * A matcher of the transmit side is made (it asks nothing of the
	 * device), its rules are refused.
	 */
	if (ft_type == MLX5_IB_UAPI_FLOW_TABLE_TYPE_NIC_TX)
		flags |= IB_FLOW_ATTR_FLAGS_EGRESS;
	else if (ft_type != MLX5_IB_UAPI_FLOW_TABLE_TYPE_NIC_RX)
		return -EOPNOTSUPP;
	if (uverbs_attr_get_enum_id(attrs, MLX5_IB_ATTR_FLOW_MATCHER_FLOW_TYPE) !=
	    MLX5_IB_FLOW_TYPE_NORMAL)
		return -EOPNOTSUPP;

	matcher = kzalloc(sizeof(*matcher), GFP_KERNEL);
	if (!matcher)
		return -ENOMEM;
	matcher->egress = flags & IB_FLOW_ATTR_FLAGS_EGRESS;
	/* A priority with no table fails the matcher's rules (flow.c). */
	err = uverbs_copy_from(&matcher->prio, attrs,
			       MLX5_IB_ATTR_FLOW_MATCHER_FLOW_TYPE);
	if (!err)
		err = uverbs_copy_from(&matcher->criteria_enable, attrs,
				       MLX5_IB_ATTR_FLOW_MATCHER_MATCH_CRITERIA);
	/* libmlx5's mask may be shorter than the device's: zeros after it. */
	if (!err)
		err = uverbs_copy_from_or_zero(&matcher->mask, attrs,
					       MLX5_IB_ATTR_FLOW_MATCHER_MATCH_MASK);
	if (err) {
		kfree(matcher);
		return err;
	}
	atomic_set(&matcher->usecnt, 0);
	uobj->object = matcher;
	return 0;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_CREATE_FLOW)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
					MLX5_IB_ATTR_CREATE_FLOW_HANDLE);
	struct mlx5_ib_dev *dev = to_mdev(uobj->context->device);
	struct mlx5_ib_flow_matcher *matcher;
	struct mlx5_flow_spec *spec;
	struct mlx5_ib_flow *flow;
	struct ib_qp *qp = NULL;
	u32 flags, tirn = 0;
	int err;

	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_CREATE_FLOW_DEST_DEVX) ||
	    uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_CREATE_FLOW_ARR_FLOW_ACTIONS) ||
	    uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_CREATE_FLOW_TAG) ||
	    uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX))
		return -EOPNOTSUPP;
	err = uverbs_get_flags32(&flags, attrs, MLX5_IB_ATTR_CREATE_FLOW_FLAGS,
				 MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DEFAULT_MISS |
				 MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DROP);
	if (err)
		return err;
	if (flags & MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DEFAULT_MISS)
		return -EOPNOTSUPP;

	/* One destination: a raw packet QP's TIR, or the drop. */
	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_CREATE_FLOW_DEST_QP)) {
		qp = uverbs_attr_get_obj(attrs, MLX5_IB_ATTR_CREATE_FLOW_DEST_QP);
		if (flags || qp->qp_type != IB_QPT_RAW_PACKET ||
		    !to_mqp(qp)->raw.tirn)
			return -EINVAL;
		tirn = to_mqp(qp)->raw.tirn;
	} else if (!flags) {
		return -EINVAL;
	}
	matcher = uverbs_attr_get_obj(attrs, MLX5_IB_ATTR_CREATE_FLOW_MATCHER);
	if (matcher->egress)
		return -EOPNOTSUPP;

	spec = kvzalloc(sizeof(*spec), GFP_KERNEL);
	flow = kzalloc(sizeof(*flow), GFP_KERNEL);
	if (!spec || !flow) {
		err = -ENOMEM;
		goto err;
	}
	err = uverbs_copy_from_or_zero(&spec->match_value, attrs,
				       MLX5_IB_ATTR_CREATE_FLOW_MATCH_VALUE);
	if (err)
		goto err;
	memcpy(spec->match_criteria, matcher->mask, sizeof(matcher->mask));
	spec->match_criteria_enable = matcher->criteria_enable;
	err = mlx5_ib_flow_add(dev, flow, matcher->prio, spec, tirn);
	if (err)
		goto err;
	kvfree(spec);

	atomic_inc(&matcher->usecnt);
	flow->matcher = matcher;
	ib_set_flow(uobj, &flow->ibflow, qp, &dev->ib_dev, NULL);
	return 0;

err:
	kfree(flow);
	kvfree(spec);
	return err;
}

/* The priority a NORMAL matcher's rules have; the other types: none. */
static const struct uverbs_attr_spec mlx5_ib_flow_type[] = {
	[MLX5_IB_FLOW_TYPE_NORMAL] = {
		.type = UVERBS_ATTR_TYPE_PTR_IN,
		UVERBS_ATTR_TYPE(u16),
	},
	[MLX5_IB_FLOW_TYPE_SNIFFER] = {
		.type = UVERBS_ATTR_TYPE_PTR_IN,
		UVERBS_ATTR_NO_DATA(),
	},
	[MLX5_IB_FLOW_TYPE_ALL_DEFAULT] = {
		.type = UVERBS_ATTR_TYPE_PTR_IN,
		UVERBS_ATTR_NO_DATA(),
	},
	[MLX5_IB_FLOW_TYPE_MC_DEFAULT] = {
		.type = UVERBS_ATTR_TYPE_PTR_IN,
		UVERBS_ATTR_NO_DATA(),
	},
};

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_FLOW_MATCHER_CREATE,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_FLOW_MATCHER_CREATE_HANDLE,
					    MLX5_IB_OBJECT_FLOW_MATCHER,
					    UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_FLOW_MATCHER_MATCH_MASK,
					       MLX5_IB_MATCH_SIZE, UA_MANDATORY),
			    UVERBS_ATTR_ENUM_IN(MLX5_IB_ATTR_FLOW_MATCHER_FLOW_TYPE,
						mlx5_ib_flow_type, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_FLOW_MATCHER_MATCH_CRITERIA,
					       UVERBS_ATTR_TYPE(u8), UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(MLX5_IB_ATTR_FLOW_MATCHER_FLOW_FLAGS,
						 enum ib_flow_flags, UA_OPTIONAL),
			    UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE,
						 enum mlx5_ib_uapi_flow_table_type,
						 UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(MLX5_IB_METHOD_FLOW_MATCHER_DESTROY,
				    UVERBS_ATTR_IDR(MLX5_IB_ATTR_FLOW_MATCHER_DESTROY_HANDLE,
						    MLX5_IB_OBJECT_FLOW_MATCHER,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_FLOW_MATCHER,
			    UVERBS_TYPE_ALLOC_IDR(mlx5_ib_flow_matcher_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_FLOW_MATCHER_CREATE),
			    &UVERBS_METHOD(MLX5_IB_METHOD_FLOW_MATCHER_DESTROY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_CREATE_FLOW,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_CREATE_FLOW_HANDLE,
					    UVERBS_OBJECT_FLOW,
					    UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_CREATE_FLOW_MATCH_VALUE,
					       MLX5_IB_MATCH_SIZE, UA_MANDATORY),
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_CREATE_FLOW_MATCHER,
					    MLX5_IB_OBJECT_FLOW_MATCHER,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_CREATE_FLOW_DEST_QP,
					    UVERBS_OBJECT_QP,
					    UVERBS_ACCESS_READ, UA_OPTIONAL),
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_CREATE_FLOW_DEST_DEVX,
					    UVERBS_IDR_ANY_OBJECT,
					    UVERBS_ACCESS_READ, UA_OPTIONAL),
			    UVERBS_ATTR_IDRS_ARR(MLX5_IB_ATTR_CREATE_FLOW_ARR_FLOW_ACTIONS,
						 UVERBS_OBJECT_FLOW_ACTION,
						 UVERBS_ACCESS_READ, 1, 8,
						 UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_CREATE_FLOW_TAG,
					       UVERBS_ATTR_TYPE(u32), UA_OPTIONAL),
			    UVERBS_ATTR_IDRS_ARR(MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX,
						 UVERBS_IDR_ANY_OBJECT,
						 UVERBS_ACCESS_READ, 1, 1,
						 UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX_OFFSET,
					       UVERBS_ATTR_MIN_SIZE(sizeof(u32)),
					       UA_OPTIONAL),
			    UVERBS_ATTR_FLAGS_IN(MLX5_IB_ATTR_CREATE_FLOW_FLAGS,
						 enum mlx5_ib_create_flow_flags,
						 UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(MLX5_IB_METHOD_DESTROY_FLOW,
				    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DESTROY_FLOW_HANDLE,
						    UVERBS_OBJECT_FLOW,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

ADD_UVERBS_METHODS(mlx5_ib_fs, UVERBS_OBJECT_FLOW,
		   &UVERBS_METHOD(MLX5_IB_METHOD_CREATE_FLOW),
		   &UVERBS_METHOD(MLX5_IB_METHOD_DESTROY_FLOW));

const struct uapi_definition mlx5_ib_flow_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_FLOW_MATCHER),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_FLOW, &mlx5_ib_fs),
	{}
};

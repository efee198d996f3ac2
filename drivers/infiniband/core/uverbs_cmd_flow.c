// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: flow steering rules through write(), EX_CREATE_FLOW and
 * EX_DESTROY_FLOW (libibverbs' ibv_create_flow(), ibv_destroy_flow()).
 *
 * The request carries the rule as userspace lays it out: struct
 * ib_uverbs_flow_attr, then its specs, each a struct
 * ib_uverbs_flow_spec_hdr followed by a filter's value and mask (two
 * halves of equal size) or an action's fields.  The driver gets the rule
 * as the kernel lays it out: struct ib_flow_attr followed by one union
 * ib_flow_spec member per spec, each as long as its own struct.
 *
 * A rule holds its QP (qp->usecnt) and the flow actions and counters its
 * specs name (struct ib_uflow_resources); freeing the FLOW object
 * (uverbs_std_types_flow.c) lets them go.  Only a process with
 * CAP_NET_RAW steers traffic.
 */

#include <linux/capability.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs_write.h"

/*
 * The most bytes of specs a rule may carry: num_of_specs times the
 * largest spec layout stock's limit counts (filters up to IPv6, the
 * actions; not the tunnel, GRE or MPLS ones, smaller anyway).
 */
#define FLOW_SPEC_MAX_SIZE sizeof(struct ib_uverbs_flow_spec_ipv6)

static_assert(sizeof(struct ib_uverbs_flow_spec_eth) <= FLOW_SPEC_MAX_SIZE);
static_assert(sizeof(struct ib_uverbs_flow_spec_ipv4) <= FLOW_SPEC_MAX_SIZE);
static_assert(sizeof(struct ib_uverbs_flow_spec_esp) <= FLOW_SPEC_MAX_SIZE);
static_assert(sizeof(struct ib_uverbs_flow_spec_tcp_udp) <= FLOW_SPEC_MAX_SIZE);
static_assert(sizeof(struct ib_uverbs_flow_spec_action_count) <=
	      FLOW_SPEC_MAX_SIZE);

/*
 * Where a filter type's value and mask sit in its kernel spec, and how
 * much of the filter the kernel knows (the struct up to its real_sz).
 */
struct flow_filter_layout {
	u16 known;
	u16 spec_size;
	u16 val;
	u16 mask;
};

static const struct flow_filter_layout flow_eth = {
	.known = offsetof(struct ib_flow_eth_filter, real_sz),
	.spec_size = sizeof(struct ib_flow_spec_eth),
	.val = offsetof(struct ib_flow_spec_eth, val),
	.mask = offsetof(struct ib_flow_spec_eth, mask),
};

static const struct flow_filter_layout flow_ipv4 = {
	.known = offsetof(struct ib_flow_ipv4_filter, real_sz),
	.spec_size = sizeof(struct ib_flow_spec_ipv4),
	.val = offsetof(struct ib_flow_spec_ipv4, val),
	.mask = offsetof(struct ib_flow_spec_ipv4, mask),
};

static const struct flow_filter_layout flow_ipv6 = {
	.known = offsetof(struct ib_flow_ipv6_filter, real_sz),
	.spec_size = sizeof(struct ib_flow_spec_ipv6),
	.val = offsetof(struct ib_flow_spec_ipv6, val),
	.mask = offsetof(struct ib_flow_spec_ipv6, mask),
};

static const struct flow_filter_layout flow_tcp_udp = {
	.known = offsetof(struct ib_flow_tcp_udp_filter, real_sz),
	.spec_size = sizeof(struct ib_flow_spec_tcp_udp),
	.val = offsetof(struct ib_flow_spec_tcp_udp, val),
	.mask = offsetof(struct ib_flow_spec_tcp_udp, mask),
};

static const struct flow_filter_layout flow_tunnel = {
	.known = offsetof(struct ib_flow_tunnel_filter, real_sz),
	.spec_size = sizeof(struct ib_flow_spec_tunnel),
	.val = offsetof(struct ib_flow_spec_tunnel, val),
	.mask = offsetof(struct ib_flow_spec_tunnel, mask),
};

static const struct flow_filter_layout flow_esp = {
	.known = offsetof(struct ib_flow_esp_filter, real_sz),
	.spec_size = sizeof(struct ib_flow_spec_esp),
	.val = offsetof(struct ib_flow_spec_esp, val),
	.mask = offsetof(struct ib_flow_spec_esp, mask),
};

static const struct flow_filter_layout flow_gre = {
	.known = offsetof(struct ib_flow_gre_filter, real_sz),
	.spec_size = sizeof(struct ib_flow_spec_gre),
	.val = offsetof(struct ib_flow_spec_gre, val),
	.mask = offsetof(struct ib_flow_spec_gre, mask),
};

static const struct flow_filter_layout flow_mpls = {
	.known = offsetof(struct ib_flow_mpls_filter, real_sz),
	.spec_size = sizeof(struct ib_flow_spec_mpls),
	.val = offsetof(struct ib_flow_spec_mpls, val),
	.mask = offsetof(struct ib_flow_spec_mpls, mask),
};

/* Inner-header variants share their outer type's layout. */
static const struct flow_filter_layout *flow_filter_layout(u32 type)
{
	switch (type & ~IB_FLOW_SPEC_INNER) {
	case IB_FLOW_SPEC_ETH:
		return &flow_eth;
	case IB_FLOW_SPEC_IPV4:
		return &flow_ipv4;
	case IB_FLOW_SPEC_IPV6:
		return &flow_ipv6;
	case IB_FLOW_SPEC_TCP:
	case IB_FLOW_SPEC_UDP:
		return &flow_tcp_udp;
	case IB_FLOW_SPEC_VXLAN_TUNNEL:
		/* A tunnel inside a tunnel is not a thing to match. */
		return type & IB_FLOW_SPEC_INNER ? NULL : &flow_tunnel;
	case IB_FLOW_SPEC_ESP:
		return &flow_esp;
	case IB_FLOW_SPEC_GRE:
		return &flow_gre;
	case IB_FLOW_SPEC_MPLS:
		return &flow_mpls;
	default:
		return NULL;
	}
}

/*
 * A filter spec into @spec: -EINVAL for an unknown type, halves not a
 * multiple of 4 bytes, an empty filter, a mask asking for fields past
 * what the kernel knows (a newer userspace's), or an IPv6 flow label or
 * VXLAN id wider than its field.  A shorter filter (an older
 * userspace's) leaves the rest unmatched.
 */
static int flow_spec_filter(const struct ib_uverbs_flow_spec_hdr *uspec,
			    union ib_flow_spec *spec)
{
	const struct flow_filter_layout *layout;
	const u8 *val, *mask;
	size_t half, len;

	layout = flow_filter_layout(uspec->type);
	if (!layout || uspec->size < sizeof(*uspec))
		return -EINVAL;
	half = (uspec->size - sizeof(*uspec)) / 2;
	if (!half || !IS_ALIGNED(half, 4))
		return -EINVAL;
	val = (const u8 *)uspec->flow_spec_data;
	mask = val + half;
	len = min_t(size_t, half, layout->known);
	if (half > len && memchr_inv(mask + len, 0, half - len))
		return -EINVAL;

	spec->type = uspec->type;
	spec->size = layout->spec_size;
	memcpy((u8 *)spec + layout->val, val, len);
	memcpy((u8 *)spec + layout->mask, mask, len);

	switch (uspec->type & ~IB_FLOW_SPEC_INNER) {
	case IB_FLOW_SPEC_IPV6:
		if (be32_to_cpu(spec->ipv6.val.flow_label) >= BIT(20) ||
		    be32_to_cpu(spec->ipv6.mask.flow_label) >= BIT(20))
			return -EINVAL;
		break;
	case IB_FLOW_SPEC_VXLAN_TUNNEL:
		if (be32_to_cpu(spec->tunnel.val.tunnel_id) >= BIT(24) ||
		    be32_to_cpu(spec->tunnel.mask.tunnel_id) >= BIT(24))
			return -EINVAL;
		break;
	}
	return 0;
}

/*
 * The flow action or counters object a spec names, for the rule to hold
 * (@res gains a use of it): the lookup's errno for a bad handle.
 */
static int flow_spec_object(struct uverbs_attr_bundle *attrs,
			    const struct uverbs_api_object *type, u32 handle,
			    enum ib_flow_spec_type spec_type,
			    struct ib_uflow_resources *res, void **object)
{
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_get_read(type, handle, attrs, &uobj);
	if (ret)
		return ret;
	*object = uobj->object;
	flow_resources_add(res, spec_type, uobj->object);
	uverbs_put_read(uobj);
	return 0;
}

/*
 * An action spec into @spec.  Each must be exactly its struct's size:
 * -EINVAL, but -EOPNOTSUPP for a flow action handle's (stock's answers);
 * -EINVAL for an unknown action.
 */
static int flow_spec_action(struct uverbs_attr_bundle *attrs,
			    const struct ib_uverbs_flow_spec_hdr *uspec,
			    union ib_flow_spec *spec,
			    struct ib_uflow_resources *res)
{
	const struct ib_uverbs_flow_spec_action_handle *handle;
	const struct ib_uverbs_flow_spec_action_count *count;
	const struct ib_uverbs_flow_spec_action_tag *tag;
	void *obj;
	int ret;

	spec->type = uspec->type;
	switch (uspec->type) {
	case IB_FLOW_SPEC_ACTION_TAG:
		if (uspec->size != sizeof(*tag))
			return -EINVAL;
		tag = (const void *)uspec;
		spec->flow_tag.size = sizeof(spec->flow_tag);
		spec->flow_tag.tag_id = tag->tag_id;
		return 0;
	case IB_FLOW_SPEC_ACTION_DROP:
		if (uspec->size != sizeof(struct ib_uverbs_flow_spec_action_drop))
			return -EINVAL;
		spec->drop.size = sizeof(spec->drop);
		return 0;
	case IB_FLOW_SPEC_ACTION_HANDLE:
		if (uspec->size != sizeof(*handle))
			return -EOPNOTSUPP;
		handle = (const void *)uspec;
		ret = flow_spec_object(attrs, &uverbs_flow_action_object,
				       handle->handle, uspec->type, res, &obj);
		if (ret)
			return ret;
		spec->action.size = sizeof(spec->action);
		spec->action.act = obj;
		return 0;
	case IB_FLOW_SPEC_ACTION_COUNT:
		if (uspec->size != sizeof(*count))
			return -EINVAL;
		count = (const void *)uspec;
		ret = flow_spec_object(attrs, &uverbs_counters_object,
				       count->handle, uspec->type, res, &obj);
		if (ret)
			return ret;
		spec->flow_count.size = sizeof(spec->flow_count);
		spec->flow_count.counters = obj;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * The @len bytes of user specs into @attr's flows.  Each user spec lies
 * whole within them; their count must be num_of_specs and their sizes
 * must add up to @len exactly, else -EINVAL.  On failure the objects
 * already added to @res stay there, for the caller to free.
 */
static int flow_specs_convert(struct uverbs_attr_bundle *attrs,
			      const u8 *uspecs, size_t len,
			      struct ib_flow_attr *attr,
			      struct ib_uflow_resources *res)
{
	u8 *spec = (u8 *)attr->flows;
	unsigned int i;
	int ret;

	for (i = 0; i < attr->num_of_specs; i++) {
		const struct ib_uverbs_flow_spec_hdr *uspec = (const void *)uspecs;
		union ib_flow_spec *kspec = (union ib_flow_spec *)spec;

		if (len < sizeof(*uspec) || len < uspec->size)
			return -EINVAL;
		if (uspec->reserved)
			return -EINVAL;
		if (uspec->type >= IB_FLOW_SPEC_ACTION_TAG)
			ret = flow_spec_action(attrs, uspec, kspec, res);
		else
			ret = flow_spec_filter(uspec, kspec);
		if (ret)
			return ret;
		attr->size += kspec->size;
		spec += kspec->size;
		uspecs += uspec->size;
		len -= uspec->size;
	}
	return len ? -EINVAL : 0;
}

/* What stock refuses of the rule's header before anything else. */
static int flow_check_attr(const struct ib_uverbs_flow_attr *uattr)
{
	if (uattr->flags >= IB_FLOW_ATTR_FLAGS_RESERVED)
		return -EINVAL;
	/* The default rules take what nothing else does: no "don't trap". */
	if ((uattr->flags & IB_FLOW_ATTR_FLAGS_DONT_TRAP) &&
	    (uattr->type == IB_FLOW_ATTR_ALL_DEFAULT ||
	     uattr->type == IB_FLOW_ATTR_MC_DEFAULT))
		return -EINVAL;
	if (uattr->num_of_specs > IB_FLOW_SPEC_SUPPORT_LAYERS)
		return -EINVAL;
	if (uattr->size > uattr->num_of_specs * FLOW_SPEC_MAX_SIZE)
		return -EINVAL;
	if (uattr->reserved[0] || uattr->reserved[1])
		return -EINVAL;
	return 0;
}

/*
 * The rule of @cmd for @qp: the kernel form of its specs, the driver's
 * flow, held by @uobj.  The caller has checked @cmd and read its specs.
 */
static int flow_create(struct uverbs_attr_bundle *attrs, struct ib_uobject *uobj,
		       const struct ib_uverbs_create_flow *cmd,
		       const u8 *uspecs, struct ib_qp *qp)
{
	const struct ib_uverbs_flow_attr *uattr = &cmd->flow_attr;
	struct ib_uflow_resources *res;
	struct ib_flow_attr *attr;
	struct ib_flow *flow;
	int ret;

	attr = kzalloc(struct_size(attr, flows, uattr->num_of_specs),
		       GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	res = flow_resources_alloc(uattr->num_of_specs);
	if (!res) {
		ret = -ENOMEM;
		goto out;
	}
	attr->type = uattr->type;
	attr->priority = uattr->priority;
	attr->num_of_specs = uattr->num_of_specs;
	attr->port = uattr->port;
	attr->flags = uattr->flags;
	attr->size = sizeof(*attr);

	ret = flow_specs_convert(attrs, uspecs, uattr->size, attr, res);
	if (ret)
		goto err_res;
	flow = qp->device->ops.create_flow(qp, attr, &attrs->driver_udata);
	if (IS_ERR(flow)) {
		ret = PTR_ERR(flow);
		goto err_res;
	}
	/* The rule holds the QP from here; the uobject's free lets it go. */
	ib_set_flow(uobj, flow, qp, qp->device, res);
	goto out;

err_res:
	ib_uverbs_flow_resources_free(res);
out:
	kfree(attr);
	return ret;
}

int ib_uverbs_ex_create_flow(struct uverbs_attr_bundle *attrs,
			     struct ib_device *ib_dev)
{
	struct ib_uverbs_create_flow_resp resp = {};
	struct ib_uverbs_create_flow cmd;
	struct ib_uobject *uobj, *qp_uobj;
	u8 *uspecs = NULL;
	struct ib_qp *qp;
	int ret;

	ret = uverbs_request_head(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask)
		return -EINVAL;
	if (!capable(CAP_NET_RAW))
		return -EPERM;
	ret = flow_check_attr(&cmd.flow_attr);
	if (ret)
		return ret;
	if (cmd.flow_attr.size) {
		uspecs = kmalloc(cmd.flow_attr.size, GFP_KERNEL);
		if (!uspecs)
			return -ENOMEM;
		ret = uverbs_request_part(attrs, sizeof(cmd), uspecs,
					  cmd.flow_attr.size);
		if (ret)
			goto out;
	}
	ret = uverbs_request_rest(attrs, sizeof(cmd) + cmd.flow_attr.size);
	if (ret)
		goto out;

	uobj = rdma_alloc_begin_uobject(&uverbs_flow_object, attrs);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	if (!rdma_is_port_valid(ib_dev, cmd.flow_attr.port)) {
		ret = -EINVAL;
		goto err_uobj;
	}
	ret = uverbs_get_read(&uverbs_qp_object, cmd.qp_handle, attrs,
			      &qp_uobj);
	if (ret)
		goto err_uobj;
	qp = qp_uobj->object;
	/* Steering delivers packets: to datagram and raw packet QPs. */
	if (qp->qp_type != IB_QPT_UD && qp->qp_type != IB_QPT_RAW_PACKET)
		ret = -EINVAL;
	else
		ret = flow_create(attrs, uobj, &cmd, uspecs, qp);
	uverbs_put_read(qp_uobj);
	if (ret)
		goto err_uobj;

	resp.flow_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		rdma_alloc_abort_uobject(uobj, attrs, true);
	else
		rdma_alloc_commit_uobject(uobj, attrs);
	goto out;

err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
out:
	kfree(uspecs);
	return ret;
}

int ib_uverbs_ex_destroy_flow(struct uverbs_attr_bundle *attrs,
			      struct ib_device *ib_dev)
{
	struct ib_uverbs_destroy_flow cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask)
		return -EINVAL;
	return __uobj_perform_destroy(&uverbs_flow_object, cmd.flow_handle,
				      attrs);
}

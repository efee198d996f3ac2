// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flow steering of the verbs (ibv_create_flow()): a rule that hands a
 * raw packet QP the received frames its specs match.  Each rule is an
 * entry of a flow table of mlx5_core's bypass namespace, which the
 * function's receive steering consults before mlx5e's own tables; the
 * entry forwards to the QP's TIR (qp_raw.c, rss.c), so a matching frame
 * goes to the QP and not to the netdev.
 *
 * The verbs' priority is the namespace's (0 first, up to the sixteen
 * regular priorities it has; above, ENOMEM as from Debian's driver); a
 * table per priority is made with its first rule and goes with its
 * last.  The specs match the outer L2-L4 headers: Ethernet addresses,
 * type and VLAN, IPv4 and IPv6 addresses, protocol, traffic class, hop
 * limit and flow label, TCP and UDP ports.  Tunnel, inner and action
 * specs are refused (EINVAL), as are IPv4 flags, the default and
 * sniffer rule types, DONT_TRAP and egress rules (EOPNOTSUPP), each as
 * Debian's driver answers on the model.  mlx5dv's matchers put their
 * rules in the same tables (flow_matcher.c).
 */
#include <linux/etherdevice.h>
#include <linux/mlx5/fs.h>

#include "mlx5_ib.h"

/* The entries of one priority's table, in automatic groups. */
#define MLX5_IB_FLOW_TABLE_SIZE		BIT(16)
#define MLX5_IB_FLOW_TABLE_GROUPS	8

/*
 * The match's two sides: the criteria (the specs' masks) and the value
 * (their values, masked once all are in), each with its outer headers
 * and "misc" parameters.  A spec's fields go to each side by the same
 * function; what a spec implies (an L3 spec its Ethernet type, an L4
 * spec its IP protocol) is matched in full.
 */
struct mlx5_ib_match {
	void *crit;
	void *val;
	void *misc_crit;
	void *misc_val;
};

#define MLX5_IB_L24(h, field, v)	MLX5_SET(fte_match_set_lyr_2_4, h, field, v)

static void mlx5_ib_match_implied(struct mlx5_ib_match *m, u16 ethertype,
				  u8 proto)
{
	if (ethertype) {
		MLX5_IB_L24(m->crit, ethertype, 0xffff);
		MLX5_IB_L24(m->val, ethertype, ethertype);
	}
	if (proto) {
		MLX5_IB_L24(m->crit, ip_protocol, 0xff);
		MLX5_IB_L24(m->val, ip_protocol, proto);
	}
}

static void mlx5_ib_set_eth(void *h, const struct ib_flow_eth_filter *f)
{
	u16 tci = ntohs(f->vlan_tag);

	ether_addr_copy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h, dmac_47_16),
			f->dst_mac);
	ether_addr_copy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h, smac_47_16),
			f->src_mac);
	MLX5_IB_L24(h, ethertype, ntohs(f->ether_type));
	MLX5_IB_L24(h, first_prio, tci >> 13);
	MLX5_IB_L24(h, first_cfi, (tci >> 12) & 1);
	MLX5_IB_L24(h, first_vid, tci & 0xfff);
}

static void mlx5_ib_set_ipv4(void *h, const struct ib_flow_ipv4_filter *f)
{
	memcpy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h,
			    src_ipv4_src_ipv6.ipv4_layout.ipv4),
	       &f->src_ip, sizeof(f->src_ip));
	memcpy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h,
			    dst_ipv4_dst_ipv6.ipv4_layout.ipv4),
	       &f->dst_ip, sizeof(f->dst_ip));
	MLX5_IB_L24(h, ip_protocol, f->proto);
	MLX5_IB_L24(h, ip_dscp, f->tos >> 2);
	MLX5_IB_L24(h, ip_ecn, f->tos & 3);
	MLX5_IB_L24(h, ttl_hoplimit, f->ttl);
}

static void mlx5_ib_set_ipv6(void *h, void *misc,
			     const struct ib_flow_ipv6_filter *f)
{
	memcpy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h, src_ipv4_src_ipv6),
	       f->src_ip, sizeof(f->src_ip));
	memcpy(MLX5_ADDR_OF(fte_match_set_lyr_2_4, h, dst_ipv4_dst_ipv6),
	       f->dst_ip, sizeof(f->dst_ip));
	MLX5_IB_L24(h, ip_protocol, f->next_hdr);
	MLX5_IB_L24(h, ip_dscp, f->traffic_class >> 2);
	MLX5_IB_L24(h, ip_ecn, f->traffic_class & 3);
	MLX5_IB_L24(h, ttl_hoplimit, f->hop_limit);
	MLX5_SET(fte_match_set_misc, misc, outer_ipv6_flow_label,
		 ntohl(f->flow_label));
}

static void mlx5_ib_set_l4(void *h, bool tcp,
			   const struct ib_flow_tcp_udp_filter *f)
{
	if (tcp) {
		MLX5_IB_L24(h, tcp_sport, ntohs(f->src_port));
		MLX5_IB_L24(h, tcp_dport, ntohs(f->dst_port));
	} else {
		MLX5_IB_L24(h, udp_sport, ntohs(f->src_port));
		MLX5_IB_L24(h, udp_dport, ntohs(f->dst_port));
	}
}

static int mlx5_ib_match_spec(struct mlx5_ib_match *m,
			      const union ib_flow_spec *spec)
{
	bool tcp;

	switch (spec->type) {
	case IB_FLOW_SPEC_ETH:
		mlx5_ib_set_eth(m->crit, &spec->eth.mask);
		mlx5_ib_set_eth(m->val, &spec->eth.val);
		/* A tag to match: the frame has a customer VLAN tag. */
		if (spec->eth.mask.vlan_tag) {
			MLX5_IB_L24(m->crit, cvlan_tag, 1);
			MLX5_IB_L24(m->val, cvlan_tag, 1);
		}
		return 0;
	case IB_FLOW_SPEC_IPV4:
		/* IP flags (fragments) are not matched. */
		if (spec->ipv4.mask.flags)
			return -EOPNOTSUPP;
		mlx5_ib_match_implied(m, ETH_P_IP, 0);
		mlx5_ib_set_ipv4(m->crit, &spec->ipv4.mask);
		mlx5_ib_set_ipv4(m->val, &spec->ipv4.val);
		return 0;
	case IB_FLOW_SPEC_IPV6:
		if (ntohl(spec->ipv6.mask.flow_label) & ~0xfffff)
			return -EINVAL;
		mlx5_ib_match_implied(m, ETH_P_IPV6, 0);
		mlx5_ib_set_ipv6(m->crit, m->misc_crit, &spec->ipv6.mask);
		mlx5_ib_set_ipv6(m->val, m->misc_val, &spec->ipv6.val);
		return 0;
	case IB_FLOW_SPEC_TCP:
	case IB_FLOW_SPEC_UDP:
		tcp = spec->type == IB_FLOW_SPEC_TCP;
		mlx5_ib_match_implied(m, 0, tcp ? IPPROTO_TCP : IPPROTO_UDP);
		mlx5_ib_set_l4(m->crit, tcp, &spec->tcp_udp.mask);
		mlx5_ib_set_l4(m->val, tcp, &spec->tcp_udp.val);
		return 0;
	default:
		/* Tunnels, inner headers, actions: EINVAL, as Debian's. */
		return -EINVAL;
	}
}

/* The specs after @attr into @spec's match. */
static int mlx5_ib_flow_match(const struct ib_flow_attr *attr,
			      struct mlx5_flow_spec *spec)
{
	struct mlx5_ib_match m = {
		.crit = MLX5_ADDR_OF(fte_match_param, spec->match_criteria,
				     outer_headers),
		.val = MLX5_ADDR_OF(fte_match_param, spec->match_value,
				    outer_headers),
		.misc_crit = MLX5_ADDR_OF(fte_match_param, spec->match_criteria,
					  misc_parameters),
		.misc_val = MLX5_ADDR_OF(fte_match_param, spec->match_value,
					 misc_parameters),
	};
	const union ib_flow_spec *ib_spec = attr->flows;
	u8 *val = (u8 *)spec->match_value;
	u8 *crit = (u8 *)spec->match_criteria;
	unsigned int i;
	int err;

	for (i = 0; i < attr->num_of_specs; i++) {
		err = mlx5_ib_match_spec(&m, ib_spec);
		if (err)
			return err;
		ib_spec = (const void *)ib_spec + ib_spec->size;
	}
	/* The value only where the criteria look. */
	for (i = 0; i < sizeof(spec->match_value); i++)
		val[i] &= crit[i];

	if (memchr_inv(m.crit, 0, MLX5_ST_SZ_BYTES(fte_match_set_lyr_2_4)))
		spec->match_criteria_enable |= MLX5_MATCH_OUTER_HEADERS;
	if (memchr_inv(m.misc_crit, 0, MLX5_ST_SZ_BYTES(fte_match_set_misc)))
		spec->match_criteria_enable |= MLX5_MATCH_MISC_PARAMETERS;
	return 0;
}

/* The table of priority @prio, made on first use; under flow_lock. */
static struct mlx5_flow_table *mlx5_ib_flow_table_get(struct mlx5_ib_dev *dev,
						      u16 prio)
{
	struct mlx5_ib_flow_prio *p = &dev->flow_prios[prio];
	struct mlx5_flow_table_attr ft_attr = {};
	struct mlx5_flow_namespace *ns;
	struct mlx5_flow_table *ft;

	lockdep_assert_held(&dev->flow_lock);
	if (p->ft) {
		p->refcount++;
		return p->ft;
	}
	ns = mlx5_get_flow_namespace(dev->mdev, MLX5_FLOW_NAMESPACE_BYPASS);
	if (!ns)
		return ERR_PTR(-EOPNOTSUPP);
	ft_attr.prio = prio;
	ft_attr.max_fte = min_t(u32, MLX5_IB_FLOW_TABLE_SIZE,
				BIT(MLX5_CAP_FLOWTABLE_NIC_RX(dev->mdev,
							      log_max_ft_size)));
	ft_attr.autogroup.max_num_groups = MLX5_IB_FLOW_TABLE_GROUPS;
	ft = mlx5_create_auto_grouped_flow_table(ns, &ft_attr);
	if (IS_ERR(ft))
		return ft;
	p->ft = ft;
	p->refcount = 1;
	return ft;
}

static void mlx5_ib_flow_table_put(struct mlx5_ib_dev *dev, u16 prio)
{
	struct mlx5_ib_flow_prio *p = &dev->flow_prios[prio];

	lockdep_assert_held(&dev->flow_lock);
	if (--p->refcount)
		return;
	mlx5_destroy_flow_table(p->ft);
	p->ft = NULL;
}

/**
 * mlx5_ib_flow_add - put a rule in priority @prio's table
 * @dev: the device
 * @flow: the rule's object, whose handle and priority are set here
 * @prio: the namespace's priority (the sixteen regular ones)
 * @spec: what the rule matches
 * @tirn: the TIR matching frames go to; 0: they are dropped
 *
 * Return: 0 or a negative errno.
 */
int mlx5_ib_flow_add(struct mlx5_ib_dev *dev, struct mlx5_ib_flow *flow,
		     u16 prio, const struct mlx5_flow_spec *spec, u32 tirn)
{
	struct mlx5_flow_act act = {
		.action = tirn ? MLX5_FLOW_CONTEXT_ACTION_FWD_DEST :
				 MLX5_FLOW_CONTEXT_ACTION_DROP,
	};
	struct mlx5_flow_destination dest = {
		.type = MLX5_FLOW_DESTINATION_TYPE_TIR,
		.tir_num = tirn,
	};
	struct mlx5_flow_table *ft;
	int err = 0;

	/* No table for it: ENOMEM, as Debian's driver answers. */
	if (prio >= MLX5_BY_PASS_NUM_REGULAR_PRIOS)
		return -ENOMEM;

	mutex_lock(&dev->flow_lock);
	ft = mlx5_ib_flow_table_get(dev, prio);
	if (IS_ERR(ft)) {
		err = PTR_ERR(ft);
		goto out;
	}
	flow->rule = mlx5_add_flow_rules(ft, spec, &act, tirn ? &dest : NULL,
					 tirn ? 1 : 0);
	if (IS_ERR(flow->rule)) {
		err = PTR_ERR(flow->rule);
		mlx5_ib_flow_table_put(dev, prio);
		goto out;
	}
	flow->prio = prio;
out:
	mutex_unlock(&dev->flow_lock);
	return mlx5_ib_cmd_status(dev, err);
}

struct ib_flow *mlx5_ib_create_flow(struct ib_qp *ibqp,
				    struct ib_flow_attr *attr,
				    struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5_flow_spec *spec;
	struct mlx5_ib_flow *flow;
	int err;

	/* libmlx5 sends no driver data with a flow. */
	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);
	if (attr->type != IB_FLOW_ATTR_NORMAL || attr->flags)
		return ERR_PTR(-EOPNOTSUPP);
	if (attr->port != MLX5_IB_PORT)
		return ERR_PTR(-EINVAL);
	/* Only a raw packet QP has a TIR to steer to. */
	if (ibqp->qp_type != IB_QPT_RAW_PACKET || !to_mqp(ibqp)->raw.tirn)
		return ERR_PTR(-EINVAL);

	spec = kvzalloc(sizeof(*spec), GFP_KERNEL);
	flow = kzalloc(sizeof(*flow), GFP_KERNEL);
	if (!spec || !flow) {
		err = -ENOMEM;
		goto err;
	}
	err = mlx5_ib_flow_match(attr, spec);
	if (err)
		goto err;
	err = mlx5_ib_flow_add(dev, flow, attr->priority, spec,
			       to_mqp(ibqp)->raw.tirn);
	if (err)
		goto err;
	kvfree(spec);
	return &flow->ibflow;

err:
	kfree(flow);
	kvfree(spec);
	return ERR_PTR(err);
}

int mlx5_ib_destroy_flow(struct ib_flow *ibflow)
{
	struct mlx5_ib_dev *dev = to_mdev(ibflow->device);
	struct mlx5_ib_flow *flow = container_of(ibflow, struct mlx5_ib_flow,
						 ibflow);

	mutex_lock(&dev->flow_lock);
	mlx5_del_flow_rules(flow->rule);
	mlx5_ib_flow_table_put(dev, flow->prio);
	mutex_unlock(&dev->flow_lock);
	if (flow->matcher)
		atomic_dec(&flow->matcher->usecnt);
	kfree(flow);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * From IP addresses to an RDMA device, port and path: which device owns
 * a local address (its GID), address resolution through ib_core's
 * rdma_resolve_ip() (route and neighbour tables of the id's namespace),
 * and on RoCE the path record, built locally from the route: GIDs,
 * destination MAC, hop limit, traffic class and SL from the TOS, MTU and
 * rate of the netdev.  There is no SA on RoCE.
 */
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/route.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"

/*
 * The GID of @port that an id with source address @gid/@ndev would use,
 * referenced; or an ERR_PTR.
 */
static const struct ib_gid_attr *
cma_port_gid(struct rdma_id_private *id_priv, struct cma_device *cma_dev,
	     u32 port, const union ib_gid *ip_gid, const union ib_gid *mac_gid)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct ib_device *device = cma_dev->device;
	const struct ib_gid_attr *attr;
	struct net_device *ndev;

	if (!rdma_dev_access_netns(device, id_priv->net))
		return ERR_PTR(-ENODEV);

	if (rdma_protocol_roce(device, port)) {
		ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
		if (!ndev)
			return ERR_PTR(-ENODEV);
		attr = rdma_find_gid_by_port(device, ip_gid,
					     cma_default_gid_type(cma_dev, port),
					     port, ndev);
		dev_put(ndev);
		return attr;
	}
	if (rdma_protocol_iwarp(device, port))
		return rdma_find_gid_by_port(device, mac_gid, IB_GID_TYPE_IB,
					     port, NULL);
	return ERR_PTR(-EOPNOTSUPP);
}

int cma_acquire_dev_by_src_ip(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct ib_gid_attr *attr;
	struct cma_device *cma_dev;
	union ib_gid ip_gid, mac_gid;
	int ret = -ENODEV;
	u32 port;

	if (id_priv->id.ps == RDMA_PS_IPOIB)
		return -EINVAL;

	rdma_ip2gid(cma_src_addr(id_priv), &ip_gid);
	/* iWARP GIDs are the netdev's MAC. */
	memcpy(&mac_gid, dev_addr->src_dev_addr + rdma_addr_gid_offset(dev_addr),
	       sizeof(mac_gid));

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		rdma_for_each_port(cma_dev->device, port) {
			attr = cma_port_gid(id_priv, cma_dev, port, &ip_gid,
					    &mac_gid);
			if (IS_ERR(attr))
				continue;
			id_priv->id.port_num = port;
			dev_addr->sgid_attr = attr;
			cma_attach_to_dev(id_priv, cma_dev);
			ret = 0;
			goto out;
		}
	}
out:
	mutex_unlock(&cma_lock);
	return ret;
}

/*
 * A destination of 0.0.0.0 or :: means this host: take the first device
 * with an active port (the first device at all when none is active).
 */
static int cma_bind_loopback(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_device *cma_dev = NULL, *cur;
	enum ib_port_state state;
	const struct ib_gid_attr *attr;
	u32 port = 0, p;
	u16 pkey;
	int ret;

	mutex_lock(&cma_lock);
	list_for_each_entry(cur, &cma_devices, list) {
		if (!cma_dev) {
			cma_dev = cur;
			port = rdma_start_port(cur->device);
		}
		rdma_for_each_port(cur->device, p) {
			if (!ib_get_cached_port_state(cur->device, p, &state) &&
			    state == IB_PORT_ACTIVE) {
				cma_dev = cur;
				port = p;
				goto found;
			}
		}
	}
	if (!cma_dev) {
		ret = -ENODEV;
		goto out;
	}
found:
	attr = rdma_get_gid_attr(cma_dev->device, port, 0);
	if (IS_ERR(attr)) {
		ret = PTR_ERR(attr);
		goto out;
	}
	ret = ib_get_cached_pkey(cma_dev->device, port, 0, &pkey);
	if (ret) {
		rdma_put_gid_attr(attr);
		goto out;
	}

	dev_addr->dev_type = rdma_protocol_ib(cma_dev->device, port) ?
			     ARPHRD_INFINIBAND : ARPHRD_ETHER;
	rdma_addr_set_sgid(dev_addr, (union ib_gid *)&attr->gid);
	ib_addr_set_pkey(dev_addr, pkey);
	dev_addr->sgid_attr = attr;
	id_priv->id.port_num = port;
	cma_attach_to_dev(id_priv, cma_dev);
	/* Connect to ourselves through the loopback address. */
	if (cma_src_addr(id_priv)->sa_family == AF_INET)
		((struct sockaddr_in *)cma_src_addr(id_priv))->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	else
		ipv6_addr_set(&((struct sockaddr_in6 *)cma_src_addr(id_priv))->sin6_addr,
			      0, 0, 0, htonl(1));
out:
	mutex_unlock(&cma_lock);
	return ret;
}

static int cma_resolve_loopback(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ADDR_RESOLVED };
	union ib_gid gid;
	int ret;

	if (!id_priv->cma_dev) {
		ret = cma_bind_loopback(id_priv);
		if (ret)
			return ret;
	}

	rdma_addr_get_sgid(&id_priv->id.route.addr.dev_addr, &gid);
	rdma_addr_set_dgid(&id_priv->id.route.addr.dev_addr, &gid);
	memcpy(cma_dst_addr(id_priv), cma_src_addr(id_priv),
	       rdma_addr_size(cma_src_addr(id_priv)));
	return cma_queue_event(id_priv, RDMA_CM_ADDR_QUERY,
			       RDMA_CM_ADDR_RESOLVED, &event);
}

/* rdma_resolve_ip()'s answer, from ib_core's workqueue. */
static void cma_addr_handler(int status, struct sockaddr *src_addr,
			     struct rdma_dev_addr *dev_addr, void *context)
{
	struct rdma_id_private *id_priv = context;
	struct rdma_cm_event event = {};
	struct sockaddr *src = cma_src_addr(id_priv);
	__be16 port;

	mutex_lock(&id_priv->handler_mutex);
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED))
		goto out;

	/* The source address chosen by the route; our port stays. */
	port = cma_port(src);
	if (src != src_addr)
		memcpy(src, src_addr, rdma_addr_size(src_addr));
	cma_set_port(src, port);

	if (!status && !id_priv->cma_dev)
		status = cma_acquire_dev_by_src_ip(id_priv);

	if (status) {
		pr_debug_ratelimited("RDMA CM: ADDR_ERROR: failed to resolve IP. status %d\n",
				     status);
		if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
				   RDMA_CM_ADDR_BOUND))
			goto out;
		event.event = RDMA_CM_EVENT_ADDR_ERROR;
		event.status = status;
	} else {
		event.event = RDMA_CM_EVENT_ADDR_RESOLVED;
	}

	if (cma_deliver(id_priv, &event)) {
		cma_destroy_id_unlock(id_priv);
		return;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
}

/* Bind an unbound id to the wildcard address of @dst's family. */
static int cma_autobind(struct rdma_id_private *id_priv,
			struct sockaddr *src, const struct sockaddr *dst)
{
	struct sockaddr_storage zero = {};

	if (src && src->sa_family)
		return cma_bind(id_priv, src);

	zero.ss_family = dst->sa_family;
	if (dst->sa_family == AF_INET6) {
		const struct sockaddr_in6 *dst6 = (const struct sockaddr_in6 *)dst;

		((struct sockaddr_in6 *)&zero)->sin6_scope_id =
			dst6->sin6_scope_id;
		if (ipv6_addr_type(&dst6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			id_priv->id.route.addr.dev_addr.bound_dev_if =
				dst6->sin6_scope_id;
	}
	return cma_bind(id_priv, (struct sockaddr *)&zero);
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr, unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	if (dst_addr->sa_family != AF_INET && dst_addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;

	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY)) {
		ret = cma_autobind(id_priv, src_addr, dst_addr);
		if (ret)
			return ret;
		/*
		 * The bound id is on its device's list from here: the
		 * device's removal may have moved it to DEVICE_REMOVAL
		 * already.  Userspace can time that, so no WARN; stock
		 * answers -EINVAL too.
		 */
		if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND,
				   RDMA_CM_ADDR_QUERY))
			return -EINVAL;
	}

	if (cma_src_addr(id_priv)->sa_family != dst_addr->sa_family) {
		ret = -EINVAL;
		goto err;
	}

	memcpy(cma_dst_addr(id_priv), dst_addr, rdma_addr_size(dst_addr));
	if (cma_any_addr(dst_addr))
		ret = cma_resolve_loopback(id_priv);
	else
		ret = rdma_resolve_ip(cma_src_addr(id_priv), dst_addr,
				      &id->route.addr.dev_addr, timeout_ms,
				      cma_addr_handler, false, id_priv);
	if (ret)
		goto err;
	return 0;

err:
	cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_addr);

/* ---------------------------------------------------------------- */
/* Routes                                                             */

/* The SL of @tos on @ndev: its traffic class map, else the VLAN's. */
static u8 cma_tos_to_sl(struct net_device *ndev, u8 tos)
{
	struct net_device *real = is_vlan_dev(ndev) ? vlan_dev_real_dev(ndev) :
						      ndev;
	int prio = rt_tos2priority(tos);

	if (real->num_tc)
		return netdev_get_prio_tc_map(real, prio);
	if (is_vlan_dev(ndev))
		return (vlan_dev_get_egress_qos_mask(ndev, prio) &
			VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
	return 0;
}

/* The RoCEv2 flow label: a hash of the ports, so flows spread. */
static __be32 cma_roce_flow_label(struct rdma_id_private *id_priv)
{
	u32 hash = (u32)ntohs(cma_port(cma_src_addr(id_priv))) * 31 +
		   ntohs(cma_port(cma_dst_addr(id_priv)));

	if (cma_src_addr(id_priv)->sa_family == AF_INET6) {
		__be32 fl = ((struct sockaddr_in6 *)cma_src_addr(id_priv))->sin6_flowinfo &
			    IPV6_FLOWLABEL_MASK;

		if (fl)
			return cpu_to_be32(be32_to_cpu(fl) & IB_GRH_FLOWLABEL_MASK);
	}
	return cpu_to_be32(hash & IB_GRH_FLOWLABEL_MASK);
}

/*
 * The layer 2 part of a RoCE path: its type from the source GID and the
 * destination MAC.  Returns the GID's netdev, held, or NULL.
 */
static struct net_device *cma_roce_path_l2(struct rdma_id_private *id_priv,
					   struct sa_path_rec *rec)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct ib_gid_attr *attr = dev_addr->sgid_attr;
	struct net_device *ndev;

	if (!attr)
		return NULL;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	if (!ndev)
		return NULL;

	id_priv->gid_type = attr->gid_type;
	rec->rec_type = sa_conv_gid_to_pathrec_type(attr->gid_type);
	rec->roce.route_resolved = true;
	sa_path_set_dmac(rec, dev_addr->dst_dev_addr);
	return ndev;
}

int cma_resolve_iboe_route(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	struct rdma_route *route = &id_priv->id.route;
	struct net_device *ndev;
	struct sa_path_rec *rec;
	u8 tos;
	int ret;

	tos = id_priv->tos_set ? id_priv->tos :
	      cma_default_roce_tos(id_priv->cma_dev, id_priv->id.port_num);

	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;

	ndev = cma_roce_path_l2(id_priv, rec);
	if (!ndev) {
		ret = -ENODEV;
		goto err;
	}

	rdma_ip2gid(cma_src_addr(id_priv), &rec->sgid);
	rdma_ip2gid(cma_dst_addr(id_priv), &rec->dgid);
	rec->hop_limit = route->addr.dev_addr.hoplimit;
	rec->reversible = 1;
	rec->pkey = cpu_to_be16(0xffff);
	rec->mtu_selector = IB_SA_EQ;
	rec->sl = cma_tos_to_sl(ndev, tos);
	rec->traffic_class = tos;
	rec->mtu = iboe_get_mtu(ndev->mtu);
	rec->rate_selector = IB_SA_EQ;
	rec->rate = IB_RATE_PORT_CURRENT;
	rec->packet_life_time_selector = IB_SA_EQ;
	/* An ACK timeout set by the user is the path's round trip. */
	if (id_priv->timeout_set && id_priv->timeout)
		rec->packet_life_time = id_priv->timeout - 1;
	else
		rec->packet_life_time = CMA_IBOE_PACKET_LIFETIME;
	dev_put(ndev);

	if (!rec->mtu) {
		ret = -EINVAL;
		goto err;
	}
	if (rdma_protocol_roce_udp_encap(id_priv->id.device,
					 id_priv->id.port_num))
		rec->flow_label = cma_roce_flow_label(id_priv);

	kfree(route->path_rec);
	route->path_rec = rec;
	route->num_pri_alt_paths = 1;

	ret = cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
			      RDMA_CM_ROUTE_RESOLVED, &event);
	if (ret) {
		route->path_rec = NULL;
		route->num_pri_alt_paths = 0;
		goto err;
	}
	return 0;

err:
	kfree(rec);
	return ret;
}

int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	int ret;

	if (!timeout_ms)
		return -EINVAL;
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY))
		return -EINVAL;

	if (rdma_protocol_roce(id->device, id->port_num))
		ret = cma_resolve_iboe_route(id_priv);
	else if (rdma_protocol_iwarp(id->device, id->port_num))
		/* iWARP needs no path: the TCP connection is the route. */
		ret = cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
				      RDMA_CM_ROUTE_RESOLVED, &event);
	else
		ret = -EOPNOTSUPP;	/* IB path records need the SA */
	if (ret)
		goto err;
	return 0;

err:
	cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY, RDMA_CM_ADDR_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_route);

int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct net_device *ndev;
	struct sa_path_rec *rec;
	int ret;

	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
			   RDMA_CM_ROUTE_RESOLVED))
		return -EINVAL;

	rec = kmemdup(path_rec, sizeof(*path_rec), GFP_KERNEL);
	if (!rec) {
		ret = -ENOMEM;
		goto err;
	}

	if (rdma_protocol_roce(id->device, id->port_num)) {
		ndev = cma_roce_path_l2(id_priv, rec);
		if (!ndev) {
			kfree(rec);
			ret = -ENODEV;
			goto err;
		}
		dev_put(ndev);
	}

	kfree(id->route.path_rec);
	id->route.path_rec = rec;
	id->route.num_pri_alt_paths = 1;
	return 0;

err:
	cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_ADDR_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_set_ib_path);

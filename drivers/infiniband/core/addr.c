// SPDX-License-Identifier: GPL-2.0-only
/*
 * Layer 2 addresses of RoCE destinations.
 *
 * A RoCE path names its destination by GID, which is an IP address (IPv6,
 * or IPv4-mapped); the device needs the Ethernet address to send to.
 * Multicast GIDs map to multicast MACs; RoCE v1 link-local GIDs embed the
 * MAC; everything else goes through the IP stack of the source GID's
 * netdev: route from it, then the neighbour (ARP/ND) of the next hop.
 *
 * The route, address-owner and neighbour steps are shared with
 * rdma_resolve_ip() (addr_resolve.c), which runs them for rdma_cm.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/sched/signal.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* How long to wait for ARP/ND to answer, as the stock kernel does. */
#define NEIGH_WAIT_MS	1000
#define NEIGH_POLL_MS	10

static void multicast_mac(struct in6_addr *dgid, u8 *mac)
{
	if (ipv6_addr_v4mapped(dgid))
		ip_eth_mc_map(dgid->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(dgid, mac);
}

static bool ip_addr_unset(const union rdma_ip_addr *addr)
{
	if (addr->sa.sa_family == AF_INET)
		return addr->in.sin_addr.s_addr == htonl(INADDR_ANY);
	return ipv6_addr_any(&addr->in6.sin6_addr);
}

struct dst_entry *rdma_ip_route(struct net *net, int oif,
				union rdma_ip_addr *src,
				const union rdma_ip_addr *dst)
{
	struct flowi6 fl6 = {};
	struct flowi4 fl4 = {};
	struct dst_entry *route;
	struct rtable *rt;

	switch (dst->sa.sa_family) {
	case AF_INET:
		fl4.daddr = dst->in.sin_addr.s_addr;
		fl4.saddr = src->in.sin_addr.s_addr;
		fl4.flowi4_oif = oif;
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return ERR_CAST(rt);
		route = &rt->dst;
		if (ip_addr_unset(src))
			src->in.sin_addr.s_addr = fl4.saddr;
		return route;
	case AF_INET6:
		fl6.daddr = dst->in6.sin6_addr;
		fl6.saddr = src->in6.sin6_addr;
		fl6.flowi6_oif = oif;
		/* A link-local destination names its link in its scope id. */
		if (!oif && ipv6_addr_type(&fl6.daddr) & IPV6_ADDR_LINKLOCAL)
			fl6.flowi6_oif = dst->in6.sin6_scope_id;
		route = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
		if (!IS_ERR(route) && ip_addr_unset(src))
			src->in6.sin6_addr = fl6.saddr;
		return route;
	default:
		return ERR_PTR(-EAFNOSUPPORT);
	}
}

struct net_device *rdma_ip_owner_rcu(struct net *net, struct net_device *hint,
				     const union rdma_ip_addr *addr)
{
	const struct in6_addr *addr6 = &addr->in6.sin6_addr;
	struct net_device *dev;

	switch (addr->sa.sa_family) {
	case AF_INET:
		return __ip_dev_find(net, addr->in.sin_addr.s_addr, false);
	case AF_INET6:
		if (hint && ipv6_chk_addr(net, addr6, hint, 1))
			return hint;
		for_each_netdev_rcu(net, dev)
			if (ipv6_chk_addr(net, addr6, dev, 1))
				return dev;
		return NULL;
	default:
		return NULL;
	}
}

/* A destination on this host: the MAC of the netdev that has it. */
static int local_mac(struct net_device *ndev, const union rdma_ip_addr *dst,
		     u8 *mac)
{
	struct net_device *owner;
	int ret = -ENODEV;

	rcu_read_lock();
	owner = rdma_ip_owner_rcu(dev_net(ndev), ndev, dst);
	if (owner && owner->addr_len == ETH_ALEN) {
		ether_addr_copy(mac, owner->dev_addr);
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

int rdma_ip_neigh_ha(struct dst_entry *route, const union rdma_ip_addr *dst,
		     u8 *ha)
{
	const void *daddr = dst->sa.sa_family == AF_INET ?
			    (const void *)&dst->in.sin_addr :
			    (const void *)&dst->in6.sin6_addr;
	struct neighbour *neigh;
	int ret = 0;

	neigh = dst_neigh_lookup(route, daddr);
	if (!neigh)
		return -ENOMEM;
	if (READ_ONCE(neigh->nud_state) & NUD_VALID) {
		neigh_ha_snapshot(ha, neigh, neigh->dev);
	} else {
		neigh_event_send(neigh, NULL);
		ret = -EAGAIN;
	}
	neigh_release(neigh);
	return ret;
}

/* The Ethernet address of @route's next hop to @dst (see rdma_ip_neigh_ha). */
static int next_hop_mac(struct dst_entry *route,
			const union rdma_ip_addr *dst, u8 *mac)
{
	char ha[MAX_ADDR_LEN];
	int ret;

	if (route->dev->addr_len != ETH_ALEN)
		return -EINVAL;
	if (route->dev->flags & IFF_NOARP) {
		eth_zero_addr(mac);
		return 0;
	}

	ret = rdma_ip_neigh_ha(route, dst, ha);
	if (!ret)
		ether_addr_copy(mac, ha);
	return ret;
}

/* One try: route from @ndev to @dst, then its next hop's MAC. */
static int resolve_once(struct net_device *ndev, union rdma_ip_addr *src,
			const union rdma_ip_addr *dst, u8 *mac, u8 *hop_limit)
{
	struct dst_entry *route;
	int ret;

	route = rdma_ip_route(dev_net(ndev), ndev->ifindex, src, dst);
	if (IS_ERR(route))
		return PTR_ERR(route);

	if (route->dev->flags & IFF_LOOPBACK)
		ret = local_mac(ndev, dst, mac);
	else
		ret = next_hop_mac(route, dst, mac);
	if (!ret)
		*hop_limit = dst->sa.sa_family == AF_INET ?
			     ip4_dst_hoplimit(route) : ip6_dst_hoplimit(route);
	dst_release(route);
	return ret;
}

/*
 * Each try looks the route up again, not only the neighbour: an address
 * of our own whose duplicate detection is still running has no local
 * route yet, and gets one while we wait (stock's resolver retries the
 * same way).
 */
static int resolve_unicast(const struct ib_gid_attr *sgid_attr,
			   const union ib_gid *dgid, u8 *mac, u8 *hop_limit)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(NEIGH_WAIT_MS);
	union rdma_ip_addr src, dst;
	struct net_device *ndev;
	int ret;

	rdma_gid2ip(&src.sa, &sgid_attr->gid);
	rdma_gid2ip(&dst.sa, dgid);
	if (src.sa.sa_family != dst.sa.sa_family)
		return -EINVAL;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return PTR_ERR(ndev);
	}
	dev_hold(ndev);
	rcu_read_unlock();

	for (;;) {
		ret = resolve_once(ndev, &src, &dst, mac, hop_limit);
		if (ret != -EAGAIN)
			break;
		if (time_after(jiffies, deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		if (msleep_interruptible(NEIGH_POLL_MS) ||
		    signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}
	dev_put(ndev);
	return ret;
}

int rdma_resolve_roce_dmac(struct ib_device *device,
			   struct rdma_ah_attr *ah_attr)
{
	struct ib_global_route *grh = &ah_attr->grh;
	struct in6_addr *dgid = (struct in6_addr *)grh->dgid.raw;

	might_sleep();

	if (!(ah_attr->ah_flags & IB_AH_GRH) || !grh->sgid_attr)
		return -EINVAL;

	if (rdma_is_multicast_addr(dgid)) {
		multicast_mac(dgid, ah_attr->roce.dmac);
		return 0;
	}
	/* RoCE v1 is not routed: its link-local GIDs carry the MAC. */
	if (rdma_link_local_addr(dgid) &&
	    grh->sgid_attr->gid_type == IB_GID_TYPE_ROCE) {
		rdma_get_ll_mac(dgid, ah_attr->roce.dmac);
		return 0;
	}
	return resolve_unicast(grh->sgid_attr, &grh->dgid, ah_attr->roce.dmac,
			       &grh->hop_limit);
}

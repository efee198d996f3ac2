// SPDX-License-Identifier: GPL-2.0-only
/*
 * Port spaces and binding.  Each network namespace has one table per
 * rdma_cm port space (TCP, UDP, IPoIB, IB), indexed by port number; a
 * port's entry lists the ids bound to it.  Binding follows the socket
 * rules: an ephemeral port is picked at random from the namespace's
 * ip_local_port_range, ports below 1024 need CAP_NET_BIND_SERVICE, two
 * ids share a port only with SO_REUSEADDR (never while listening) or
 * when their addresses differ, and AFONLY keeps IPv6 and IPv4 apart.
 *
 * Everything here runs under cma_lock.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <rdma/ib_addr.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"

/**
 * struct cma_bind_list - one port of a port space
 * @owners: the ids bound to it (bind_node)
 * @xa: the table it is in
 * @port: the port number
 */
struct cma_bind_list {
	struct hlist_head owners;
	struct xarray *xa;
	unsigned short port;
};

struct cma_pernet {
	struct xarray tcp_ps;
	struct xarray udp_ps;
	struct xarray ipoib_ps;
	struct xarray ib_ps;
};

static unsigned int cma_pernet_id;

static struct xarray *cma_ps_table(struct net *net,
				   enum rdma_ucm_port_space ps)
{
	struct cma_pernet *pernet = net_generic(net, cma_pernet_id);

	switch (ps) {
	case RDMA_PS_TCP:
		return &pernet->tcp_ps;
	case RDMA_PS_UDP:
		return &pernet->udp_ps;
	case RDMA_PS_IPOIB:
		return &pernet->ipoib_ps;
	case RDMA_PS_IB:
		return &pernet->ib_ps;
	default:
		return NULL;
	}
}

/* ---------------------------------------------------------------- */
/* Addresses                                                          */

bool cma_any_addr(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_zeronet(((struct sockaddr_in *)addr)->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_any(&((struct sockaddr_in6 *)addr)->sin6_addr);
	default:
		return false;
	}
}

bool cma_loopback_addr(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_loopback(((struct sockaddr_in *)addr)->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_loopback(&((struct sockaddr_in6 *)addr)->sin6_addr);
	default:
		return false;
	}
}

/* 0 when both name the same host (the ports are not compared). */
int cma_addr_cmp(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return a->sa_family - b->sa_family;

	switch (a->sa_family) {
	case AF_INET:
		return ((struct sockaddr_in *)a)->sin_addr.s_addr !=
		       ((struct sockaddr_in *)b)->sin_addr.s_addr;
	case AF_INET6:
		if ((ipv6_addr_type(&((struct sockaddr_in6 *)a)->sin6_addr) &
		     IPV6_ADDR_LINKLOCAL) &&
		    ((struct sockaddr_in6 *)a)->sin6_scope_id !=
		    ((struct sockaddr_in6 *)b)->sin6_scope_id)
			return 1;
		return ipv6_addr_cmp(&((struct sockaddr_in6 *)a)->sin6_addr,
				     &((struct sockaddr_in6 *)b)->sin6_addr);
	default:
		return 1;
	}
}

__be16 cma_port(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ((struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((struct sockaddr_in6 *)addr)->sin6_port;
	default:
		return 0;
	}
}

void cma_set_port(struct sockaddr *addr, __be16 port)
{
	switch (addr->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)addr)->sin_port = port;
		break;
	case AF_INET6:
		((struct sockaddr_in6 *)addr)->sin6_port = port;
		break;
	}
}

__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cpu_to_be64(((u64)id->ps << 16) + be16_to_cpu(cma_port(addr)));
}
EXPORT_SYMBOL(rdma_get_service_id);

/* ---------------------------------------------------------------- */
/* Ports                                                              */

static void cma_bind_port(struct cma_bind_list *bind_list,
			  struct rdma_id_private *id_priv)
{
	lockdep_assert_held(&cma_lock);
	cma_set_port(cma_src_addr(id_priv), htons(bind_list->port));
	id_priv->bind_list = bind_list;
	hlist_add_head(&id_priv->bind_node, &bind_list->owners);
}

static int cma_alloc_port(struct xarray *xa, struct rdma_id_private *id_priv,
			  unsigned short port)
{
	struct cma_bind_list *bind_list;
	int ret;

	bind_list = kzalloc(sizeof(*bind_list), GFP_KERNEL);
	if (!bind_list)
		return -ENOMEM;

	bind_list->xa = xa;
	bind_list->port = port;
	ret = xa_insert(xa, port, bind_list, GFP_KERNEL);
	if (ret) {
		kfree(bind_list);
		return ret == -EBUSY ? -EADDRNOTAVAIL : ret;
	}
	cma_bind_port(bind_list, id_priv);
	return 0;
}

/* Could @id_priv share @bind_list's port?  @reuseaddr: its SO_REUSEADDR. */
static int cma_port_conflicts(struct cma_bind_list *bind_list,
			      struct rdma_id_private *id_priv, bool reuseaddr)
{
	struct sockaddr *addr = cma_src_addr(id_priv), *cur_addr;
	struct rdma_id_private *cur;

	lockdep_assert_held(&cma_lock);
	hlist_for_each_entry(cur, &bind_list->owners, bind_node) {
		if (cur == id_priv)
			continue;
		if (reuseaddr && cur->reuseaddr)
			continue;

		cur_addr = cma_src_addr(cur);
		if (id_priv->afonly && cur->afonly &&
		    addr->sa_family != cur_addr->sa_family)
			continue;
		if (cma_any_addr(addr) || cma_any_addr(cur_addr))
			return -EADDRNOTAVAIL;
		if (!cma_addr_cmp(addr, cur_addr))
			return -EADDRINUSE;
	}
	return 0;
}

static int cma_alloc_any_port(struct xarray *xa,
			      struct rdma_id_private *id_priv)
{
	int low, high, remaining;
	unsigned int rover;
	int i;

	inet_get_local_port_range(id_priv->net, &low, &high);
	remaining = high - low + 1;
	rover = get_random_u32_below(remaining) + low;

	for (i = 0; i < remaining; i++) {
		if (!inet_is_local_reserved_port(id_priv->net, rover) &&
		    !xa_load(xa, rover))
			return cma_alloc_port(xa, id_priv, rover);
		if (++rover > high)
			rover = low;
	}
	return -EADDRNOTAVAIL;
}

static int cma_use_port(struct xarray *xa, struct rdma_id_private *id_priv)
{
	unsigned short snum = ntohs(cma_port(cma_src_addr(id_priv)));
	struct cma_bind_list *bind_list;
	int ret;

	if (snum < PROT_SOCK &&
	    !ns_capable(id_priv->net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	bind_list = xa_load(xa, snum);
	if (!bind_list)
		return cma_alloc_port(xa, id_priv, snum);

	ret = cma_port_conflicts(bind_list, id_priv, id_priv->reuseaddr);
	if (!ret)
		cma_bind_port(bind_list, id_priv);
	return ret;
}

static int cma_get_port(struct rdma_id_private *id_priv)
{
	struct xarray *xa = cma_ps_table(id_priv->net, id_priv->id.ps);
	int ret;

	if (!xa)
		return -EPROTONOSUPPORT;

	mutex_lock(&cma_lock);
	if (!cma_port(cma_src_addr(id_priv)))
		ret = cma_alloc_any_port(xa, id_priv);
	else
		ret = cma_use_port(xa, id_priv);
	mutex_unlock(&cma_lock);
	return ret;
}

void cma_release_port(struct rdma_id_private *id_priv)
{
	struct cma_bind_list *bind_list = id_priv->bind_list;

	if (!bind_list)
		return;

	mutex_lock(&cma_lock);
	hlist_del(&id_priv->bind_node);
	id_priv->bind_list = NULL;
	if (hlist_empty(&bind_list->owners)) {
		xa_erase(bind_list->xa, bind_list->port);
		kfree(bind_list);
	}
	mutex_unlock(&cma_lock);
}

int cma_check_listen_port(struct rdma_id_private *id_priv)
{
	int ret;

	lockdep_assert_held(&cma_lock);
	if (!id_priv->reuseaddr)
		return 0;
	/* A listener owns its address: SO_REUSEADDR no longer applies. */
	ret = cma_port_conflicts(id_priv->bind_list, id_priv, false);
	if (!ret)
		id_priv->reuseaddr = false;
	return ret;
}

/* ---------------------------------------------------------------- */
/* Bind                                                               */

/* An IPv6 link-local address names its interface by scope id. */
static int cma_check_linklocal(struct rdma_dev_addr *dev_addr,
			       const struct sockaddr *addr)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;

	if (addr->sa_family != AF_INET6)
		return 0;
	if (ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL) {
		if (!sin6->sin6_scope_id)
			return -EINVAL;
		dev_addr->bound_dev_if = sin6->sin6_scope_id;
	}
	return 0;
}

/*
 * Forget the device an id attached to while binding failed; the id may
 * bind again, so its restrack entry is made ready for another add.
 */
static void cma_unbind_dev(struct rdma_id_private *id_priv)
{
	struct rdma_restrack_entry *res = &id_priv->res;
	struct task_struct *owner = res->task;

	if (owner)
		get_task_struct(owner);
	rdma_restrack_del(res);
	rdma_restrack_new(res, RDMA_RESTRACK_CM_ID);
	res->task = owner;
	cma_release_dev(id_priv);
	id_priv->id.device = NULL;
	id_priv->id.port_num = 0;
}

int cma_bind(struct rdma_id_private *id_priv, const struct sockaddr *addr)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	int ret;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (!cma_comp_exch(id_priv, RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND))
		return -EINVAL;

	ret = cma_check_linklocal(dev_addr, addr);
	if (ret)
		goto err_state;

	memcpy(cma_src_addr(id_priv), addr, rdma_addr_size(addr));
	if (!cma_any_addr(addr)) {
		ret = rdma_translate_ip(addr, dev_addr);
		if (ret)
			goto err_state;
		ret = cma_acquire_dev_by_src_ip(id_priv);
		if (ret)
			goto err_state;
	}

	if (!id_priv->afonly_set) {
		if (addr->sa_family == AF_INET)
			id_priv->afonly = true;
#if IS_ENABLED(CONFIG_IPV6)
		else
			id_priv->afonly = id_priv->net->ipv6.sysctl.bindv6only;
#endif
	}
	cma_dst_addr(id_priv)->sa_family = addr->sa_family;

	ret = cma_get_port(id_priv);
	if (ret)
		goto err_dev;
	return 0;

err_dev:
	if (id_priv->cma_dev)
		cma_unbind_dev(id_priv);
err_state:
	cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_IDLE);
	return ret;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cma_bind(cma_priv(id), addr);
}
EXPORT_SYMBOL(rdma_bind_addr);

/* ---------------------------------------------------------------- */
/* Listener lookup                                                    */

/* Does listener @id_priv take requests for @dst arriving on @ifindex? */
static bool cma_listen_match(struct rdma_id_private *id_priv,
			     const struct sockaddr *dst, int ifindex)
{
	struct sockaddr *addr = cma_src_addr(id_priv);
	int bound = id_priv->id.route.addr.dev_addr.bound_dev_if;

	if (addr->sa_family != dst->sa_family)
		return false;
	if (bound && ifindex && bound != ifindex)
		return false;
	return cma_any_addr(addr) || !cma_addr_cmp(addr, dst);
}

struct rdma_id_private *cma_find_listener(struct net *net,
					  struct ib_device *device,
					  __be64 service_id,
					  const struct sockaddr *dst,
					  int ifindex)
{
	u64 sid = be64_to_cpu(service_id);
	struct rdma_id_private *id_priv, *child, *found = NULL;
	struct cma_bind_list *bind_list;
	struct xarray *xa;

	if ((sid & RDMA_IB_IP_PS_MASK) != RDMA_IB_IP_PS_TCP &&
	    (sid & RDMA_IB_IP_PS_MASK) != RDMA_IB_IP_PS_UDP)
		return NULL;
	xa = cma_ps_table(net, (sid >> 16) & 0xffff);
	if (!xa)
		return NULL;

	mutex_lock(&cma_lock);
	bind_list = xa_load(xa, sid & 0xffff);
	if (!bind_list)
		goto out;

	hlist_for_each_entry(id_priv, &bind_list->owners, bind_node) {
		if (cma_state(id_priv) != RDMA_CM_LISTEN ||
		    !cma_listen_match(id_priv, dst, ifindex))
			continue;
		if (id_priv->cma_dev) {
			if (id_priv->id.device == device) {
				found = id_priv;
				break;
			}
			continue;
		}
		list_for_each_entry(child, &id_priv->listen_children,
				    listen_item) {
			if (child->id.device == device) {
				found = child;
				break;
			}
		}
		if (found)
			break;
	}
	if (found)
		cma_id_get(found);
out:
	mutex_unlock(&cma_lock);
	return found;
}

/* ---------------------------------------------------------------- */

static __net_init int cma_init_net(struct net *net)
{
	struct cma_pernet *pernet = net_generic(net, cma_pernet_id);

	xa_init(&pernet->tcp_ps);
	xa_init(&pernet->udp_ps);
	xa_init(&pernet->ipoib_ps);
	xa_init(&pernet->ib_ps);
	return 0;
}

static void __net_exit cma_exit_net(struct net *net)
{
	struct cma_pernet *pernet = net_generic(net, cma_pernet_id);

	/* Every id holds its namespace: all ports are free by now. */
	WARN_ON(!xa_empty(&pernet->tcp_ps));
	WARN_ON(!xa_empty(&pernet->udp_ps));
	WARN_ON(!xa_empty(&pernet->ipoib_ps));
	WARN_ON(!xa_empty(&pernet->ib_ps));
}

static struct pernet_operations cma_pernet_ops = {
	.init = cma_init_net,
	.exit = cma_exit_net,
	.id = &cma_pernet_id,
	.size = sizeof(struct cma_pernet),
};

int __init cma_ps_init(void)
{
	return register_pernet_subsys(&cma_pernet_ops);
}

void cma_ps_exit(void)
{
	unregister_pernet_subsys(&cma_pernet_ops);
}

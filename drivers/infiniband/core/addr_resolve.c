// SPDX-License-Identifier: GPL-2.0-only
/*
 * IP addresses to RDMA hardware addresses, for rdma_cm: rdma_resolve_ip()
 * and its cancellation, rdma_translate_ip() and the small rdma_dev_addr
 * helpers of <rdma/ib_addr.h>.
 *
 * A resolution runs the steps of addr.c in the network namespace of the
 * caller's rdma_dev_addr: route (which picks the source address when the
 * caller gave none), the source netdev's layer 2 addresses, then the
 * neighbour of the next hop.  The first try runs in the caller's context
 * and a route error is returned from there, as on the stock kernel.
 * Otherwise the request is queued: its own delayed work tries again when
 * the neighbour table reports a valid entry (netevent) and once more at
 * the deadline, and at no other time: a resolution that never completes
 * costs two tries whatever timeout the caller (userspace, through
 * rdma_ucm) chose.  The caller's callback then runs from that work, in
 * process context, with no lock of ours held.
 *
 * A neighbour may become valid while a try runs, before the request is
 * (re)armed for its deadline.  addr_neigh_seq counts the netevents; a
 * try notes it first, and the arming, under addr_reqs_lock as the
 * netevent's count is, retries at once when it moved.
 *
 * Request lifetime
 * ----------------
 * A request is on addr_reqs from the moment it is queued until one of two
 * owners takes it off, under addr_reqs_lock:
 *  - its work, after the callback has returned: it frees the request;
 *  - rdma_addr_cancel(): it waits for the work to be neither pending nor
 *    running (cancel_delayed_work_sync()), then frees it.
 * The work queues itself again only while the request is on the list, so
 * nothing requeues it once an owner took it.  A callback that runs while
 * rdma_addr_cancel() is called has finished when rdma_addr_cancel()
 * returns, and none runs after that.
 */
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/ip6_fib.h>
#include <net/netevent.h>
#include <net/route.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "core_priv.h"

struct addr_req {
	/* On addr_reqs while queued; empty once an owner took it. */
	struct list_head entry;
	struct delayed_work work;
	union rdma_ip_addr src;
	union rdma_ip_addr dst;
	/* The caller's; valid until the callback or the cancel. */
	struct rdma_dev_addr *dev_addr;
	void (*callback)(int status, struct sockaddr *src_addr,
			 struct rdma_dev_addr *addr, void *context);
	void *context;
	unsigned long deadline;
	bool by_gid_attr;
	/* The last try's result: -EAGAIN while the neighbour is awaited. */
	int status;
};

/*
 * Queued requests; the lock also orders every (re)queuing of their work
 * and guards addr_neigh_seq, the count of neighbours that became valid
 * (read without it before a try, compared under it after).
 */
static LIST_HEAD(addr_reqs);
static DEFINE_SPINLOCK(addr_reqs_lock);
static unsigned long addr_neigh_seq;
static struct workqueue_struct *addr_wq;

/* ------------------------------------------------------------------ */
/* rdma_dev_addr helpers                                                */

/**
 * rdma_addr_size - the size of a socket address of an RDMA family
 * @addr: the address
 *
 * Return: sizeof the sockaddr_in, sockaddr_in6 or sockaddr_ib that
 * @addr's family has, 0 for another family.
 */
int rdma_addr_size(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}
EXPORT_SYMBOL(rdma_addr_size);

/* rdma_addr_size(), or 0 when that is more than @limit. */
static int rdma_addr_size_within(const void *addr, size_t limit)
{
	int size = rdma_addr_size(addr);

	return size <= limit ? size : 0;
}

/**
 * rdma_addr_size_in6 - rdma_addr_size() of an address held in a
 *	sockaddr_in6
 * @addr: the address
 *
 * Return: its size, or 0 when its family's address would not fit.
 */
int rdma_addr_size_in6(struct sockaddr_in6 *addr)
{
	return rdma_addr_size_within(addr, sizeof(*addr));
}
EXPORT_SYMBOL(rdma_addr_size_in6);

/**
 * rdma_addr_size_kss - rdma_addr_size() of an address held in a
 *	__kernel_sockaddr_storage
 * @addr: the address
 *
 * Return: its size, or 0 when its family's address would not fit.
 */
int rdma_addr_size_kss(struct __kernel_sockaddr_storage *addr)
{
	return rdma_addr_size_within(addr, sizeof(*addr));
}
EXPORT_SYMBOL(rdma_addr_size_kss);

/**
 * rdma_copy_src_l2_addr - take a netdev's layer 2 identity as the source
 * @dev_addr: filled: dev_type, src_dev_addr, broadcast, bound_dev_if
 * @dev: the netdev
 */
void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev)
{
	dev_addr->dev_type = dev->type;
	memcpy(dev_addr->src_dev_addr, dev->dev_addr, MAX_ADDR_LEN);
	memcpy(dev_addr->broadcast, dev->broadcast, MAX_ADDR_LEN);
	dev_addr->bound_dev_if = dev->ifindex;
}
EXPORT_SYMBOL(rdma_copy_src_l2_addr);

/**
 * rdma_translate_ip - the source identity of a local IP address
 * @addr: the address (AF_INET or AF_INET6)
 * @dev_addr: its net must be set; with bound_dev_if set, that netdev is
 *	taken whatever its addresses, otherwise the one that has @addr
 *
 * Fills @dev_addr as rdma_copy_src_l2_addr() does.
 * Return: 0, -ENODEV when bound_dev_if names no netdev of the namespace,
 * -EADDRNOTAVAIL when no netdev of it has @addr.
 */
int rdma_translate_ip(const struct sockaddr *addr,
		      struct rdma_dev_addr *dev_addr)
{
	struct net_device *dev;
	int ret = 0;

	rcu_read_lock();
	if (dev_addr->bound_dev_if) {
		dev = dev_get_by_index_rcu(dev_addr->net,
					   dev_addr->bound_dev_if);
		if (!dev)
			ret = -ENODEV;
	} else {
		dev = rdma_ip_owner_rcu(dev_addr->net, NULL,
					(const union rdma_ip_addr *)addr);
		if (!dev)
			ret = -EADDRNOTAVAIL;
	}
	if (dev)
		rdma_copy_src_l2_addr(dev_addr, dev);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL(rdma_translate_ip);

/* ------------------------------------------------------------------ */
/* One try                                                              */

static bool route_has_gateway(const struct dst_entry *route, sa_family_t family)
{
	if (family == AF_INET)
		return container_of(route, struct rtable, dst)->rt_uses_gateway;
	return container_of(route, struct rt6_info, dst)->rt6i_flags &
	       RTF_GATEWAY;
}

/*
 * The source side of a resolved route, under RCU: the layer 2 identity
 * of the netdev the packets leave from and the network type.  A route to
 * one of our own addresses leaves through lo, which RDMA cannot use: the
 * netdev that has the destination address stands in for it (the one
 * @oif names, when set) and is its own next hop.
 */
static int addr_set_source_rcu(struct rdma_dev_addr *dev_addr,
			       struct net *net, int oif,
			       const struct dst_entry *route,
			       const union rdma_ip_addr *dst)
{
	struct net_device *ndev = route->dev;

	if (ndev->flags & IFF_LOOPBACK) {
		ndev = rdma_ip_owner_rcu(net, NULL, dst);
		if (ndev && oif)
			ndev = dev_get_by_index_rcu(net, oif);
		if (!ndev)
			return -ENODEV;
		rdma_copy_src_l2_addr(dev_addr, ndev);
		dev_addr->network = RDMA_NETWORK_IB;
		memcpy(dev_addr->dst_dev_addr, dev_addr->src_dev_addr,
		       MAX_ADDR_LEN);
		return 0;
	}

	rdma_copy_src_l2_addr(dev_addr, ndev);
	/*
	 * Behind a router the path can only be RoCE v2 (v1 is not routed);
	 * on the local link it stays "IB", which rdma_cm reads as "the
	 * GID type decides".
	 */
	if (ndev->type != ARPHRD_INFINIBAND &&
	    route_has_gateway(route, dst->sa.sa_family))
		dev_addr->network = dst->sa.sa_family == AF_INET ?
				    RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	else
		dev_addr->network = RDMA_NETWORK_IB;
	return 0;
}

/*
 * Resolve @dst (from @src, filled when unset) into @dev_addr: 0, -EAGAIN
 * while the neighbour is awaited, or the route's or the netdev's error.
 * By GID attribute, the namespace and netdev are those of
 * dev_addr->sgid_attr, and dev_addr's own net and bound_dev_if are left
 * as they were.  Without @want_neigh, only the route and the source side.
 */
static int addr_try(union rdma_ip_addr *src, const union rdma_ip_addr *dst,
		    struct rdma_dev_addr *dev_addr, bool by_gid_attr,
		    bool want_neigh)
{
	int saved_if = dev_addr->bound_dev_if;
	struct dst_entry *route;
	struct net_device *ndev;
	struct net *net;
	int oif, ret;

	rcu_read_lock();
	if (by_gid_attr) {
		ndev = dev_addr->sgid_attr ?
		       rdma_read_gid_attr_ndev_rcu(dev_addr->sgid_attr) :
		       ERR_PTR(-EINVAL);
		if (IS_ERR(ndev)) {
			ret = PTR_ERR(ndev);
			goto out;
		}
		net = dev_net(ndev);
		oif = ndev->ifindex;
	} else {
		net = dev_addr->net;
		oif = dev_addr->bound_dev_if;
		if (!net) {
			ret = -EINVAL;
			goto out;
		}
	}

	route = rdma_ip_route(net, oif, src, dst);
	if (IS_ERR(route)) {
		ret = PTR_ERR(route);
		goto out;
	}
	dev_addr->hoplimit = dst->sa.sa_family == AF_INET ?
			     ip4_dst_hoplimit(route) : ip6_dst_hoplimit(route);

	ret = addr_set_source_rcu(dev_addr, net, oif, route, dst);
	if (!ret && want_neigh && !(route->dev->flags & IFF_LOOPBACK))
		ret = rdma_ip_neigh_ha(route, dst, dev_addr->dst_dev_addr);
	dst_release(route);
	if (by_gid_attr)
		dev_addr->bound_dev_if = saved_if;
out:
	rcu_read_unlock();
	return ret;
}

int rdma_roce_path_route(struct sa_path_rec *rec,
			 const struct ib_gid_attr *sgid_attr)
{
	struct rdma_dev_addr dev_addr = { .sgid_attr = sgid_attr };
	union rdma_ip_addr src, dst;
	int ret;

	might_sleep();

	if (rec->roce.route_resolved)
		return 0;
	if (!sgid_attr || !rcu_access_pointer(sgid_attr->ndev))
		return -EINVAL;
	rdma_gid2ip(&src.sa, &rec->sgid);
	rdma_gid2ip(&dst.sa, &rec->dgid);
	if (src.sa.sa_family != dst.sa.sa_family)
		return -EINVAL;

	ret = addr_try(&src, &dst, &dev_addr, true, false);
	if (ret)
		return ret;
	/* Only RoCE v2 crosses a router. */
	if (dev_addr.network != RDMA_NETWORK_IB &&
	    rec->rec_type != SA_PATH_REC_TYPE_ROCE_V2)
		return -EINVAL;
	rec->roce.route_resolved = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Requests                                                             */

/* Run @req's work at @when, or now if that has passed. */
static void addr_req_arm(struct addr_req *req, unsigned long when)
{
	long delay = (long)(when - jiffies);

	lockdep_assert_held(&addr_reqs_lock);
	mod_delayed_work(addr_wq, &req->work, max(delay, 0L));
}

/*
 * After a try that awaits the neighbour (@seq: addr_neigh_seq before it):
 * the next try runs at the deadline, or now if a neighbour became valid
 * since the try began.  A netevent that comes later rearms it itself.
 */
static void addr_req_wait_neigh(struct addr_req *req, unsigned long seq)
{
	lockdep_assert_held(&addr_reqs_lock);
	addr_req_arm(req, seq != addr_neigh_seq ? jiffies : req->deadline);
}

static void addr_req_work(struct work_struct *work)
{
	struct addr_req *req = container_of(to_delayed_work(work),
					    struct addr_req, work);
	unsigned long seq;
	bool owner;

	if (req->status == -EAGAIN) {
		seq = READ_ONCE(addr_neigh_seq);
		req->status = addr_try(&req->src, &req->dst, req->dev_addr,
				       req->by_gid_attr, true);
		if (req->status && time_after_eq(jiffies, req->deadline)) {
			req->status = -ETIMEDOUT;
		} else if (req->status == -EAGAIN) {
			spin_lock_bh(&addr_reqs_lock);
			if (!list_empty(&req->entry))
				addr_req_wait_neigh(req, seq);
			spin_unlock_bh(&addr_reqs_lock);
			return;
		}
	}

	req->callback(req->status, &req->src.sa, req->dev_addr, req->context);

	spin_lock_bh(&addr_reqs_lock);
	owner = !list_empty(&req->entry);
	if (owner) {
		list_del_init(&req->entry);
		/* A netevent may have queued us again meanwhile. */
		cancel_delayed_work(&req->work);
	}
	spin_unlock_bh(&addr_reqs_lock);
	if (owner)
		kfree(req);
}

/**
 * rdma_resolve_ip - resolve an IP destination to RDMA hardware addresses
 * @src_addr: the source address to use, or NULL (or an unset address) for
 *	the one the route chooses
 * @dst_addr: the destination, of the same family
 * @addr: receives the result; its net must be set; bound_dev_if, when set,
 *	is the netdev to leave through.  Must stay valid until the callback
 *	ran or rdma_addr_cancel(@addr) returned
 * @timeout_ms: how long to wait for the neighbour to answer
 * @callback: called once, from a workqueue, with 0, -ETIMEDOUT (no
 *	neighbour in time) or the error of a later try; src_addr is the
 *	source used
 * @resolve_by_gid_attr: resolve in the namespace and through the netdev
 *	of addr->sgid_attr, leaving addr's net and bound_dev_if unchanged
 * @context: passed to @callback
 *
 * Fills @addr: src_dev_addr, broadcast, dev_type, bound_dev_if (the netdev
 * the route leaves from), dst_dev_addr, network, hoplimit.  A destination
 * that is one of our addresses resolves to the netdev that has it.
 *
 * Return: 0 when @callback will be called; otherwise, with no callback,
 * -EINVAL (families, missing net or GID attribute), -ENOMEM, or the
 * route's error (-ENETUNREACH, -EHOSTUNREACH, ...).
 */
int rdma_resolve_ip(struct sockaddr *src_addr, const struct sockaddr *dst_addr,
		    struct rdma_dev_addr *addr, unsigned long timeout_ms,
		    void (*callback)(int status, struct sockaddr *src_addr,
				     struct rdma_dev_addr *addr, void *context),
		    bool resolve_by_gid_attr, void *context)
{
	sa_family_t family = dst_addr->sa_family;
	struct addr_req *req;
	unsigned long seq;
	int ret;

	might_sleep();

	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	if (src_addr && src_addr->sa_family != family)
		return -EINVAL;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	if (src_addr)
		memcpy(&req->src, src_addr, rdma_addr_size(src_addr));
	else
		req->src.sa.sa_family = family;
	memcpy(&req->dst, dst_addr, rdma_addr_size(dst_addr));
	req->dev_addr = addr;
	req->callback = callback;
	req->context = context;
	req->by_gid_attr = resolve_by_gid_attr;
	INIT_LIST_HEAD(&req->entry);
	INIT_DELAYED_WORK(&req->work, addr_req_work);

	seq = READ_ONCE(addr_neigh_seq);
	req->status = addr_try(&req->src, &req->dst, addr, resolve_by_gid_attr,
			       true);
	if (req->status && req->status != -EAGAIN) {
		ret = req->status;
		kfree(req);
		return ret;
	}
	req->deadline = jiffies + msecs_to_jiffies(timeout_ms);

	spin_lock_bh(&addr_reqs_lock);
	list_add_tail(&req->entry, &addr_reqs);
	if (req->status)
		addr_req_wait_neigh(req, seq);
	else
		addr_req_arm(req, jiffies);
	spin_unlock_bh(&addr_reqs_lock);
	return 0;
}
EXPORT_SYMBOL(rdma_resolve_ip);

/* Take the first queued request for @addr off the list, or NULL. */
static struct addr_req *addr_req_take(struct rdma_dev_addr *addr)
{
	struct addr_req *req;

	spin_lock_bh(&addr_reqs_lock);
	list_for_each_entry(req, &addr_reqs, entry) {
		if (req->dev_addr == addr) {
			list_del_init(&req->entry);
			spin_unlock_bh(&addr_reqs_lock);
			return req;
		}
	}
	spin_unlock_bh(&addr_reqs_lock);
	return NULL;
}

/**
 * rdma_addr_cancel - cancel a resolution
 * @addr: the rdma_dev_addr given to rdma_resolve_ip()
 *
 * Once this returns, no callback of a resolution of @addr is running or
 * will run.  Nothing is done when there is no such resolution (any
 * more).  Sleeps; must not be called from that resolution's callback.
 *
 * There may be two: a request stays queued until its callback has
 * returned, and a callback that ends in an error hands the caller's id
 * back (rdma_cm: ADDR_BOUND) before that, so the caller may have started
 * the next resolution of @addr meanwhile.  Every one is cancelled, the
 * older (whose callback may still be running) first.
 */
void rdma_addr_cancel(struct rdma_dev_addr *addr)
{
	struct addr_req *req;

	while ((req = addr_req_take(addr))) {
		cancel_delayed_work_sync(&req->work);
		kfree(req);
	}
}
EXPORT_SYMBOL(rdma_addr_cancel);

/*
 * A neighbour became valid: whichever request waited for it tries again
 * now.  Called in atomic context.
 */
static int addr_netevent(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct neighbour *neigh = ptr;
	struct addr_req *req;

	if (event != NETEVENT_NEIGH_UPDATE ||
	    !(READ_ONCE(neigh->nud_state) & NUD_VALID))
		return NOTIFY_DONE;

	spin_lock_bh(&addr_reqs_lock);
	WRITE_ONCE(addr_neigh_seq, addr_neigh_seq + 1);
	list_for_each_entry(req, &addr_reqs, entry)
		addr_req_arm(req, jiffies);
	spin_unlock_bh(&addr_reqs_lock);
	return NOTIFY_DONE;
}

static struct notifier_block addr_netevent_nb = {
	.notifier_call = addr_netevent,
};

int __init rdma_addr_init(void)
{
	addr_wq = alloc_workqueue("ib_addr", WQ_UNBOUND, 0);
	if (!addr_wq)
		return -ENOMEM;
	register_netevent_notifier(&addr_netevent_nb);
	return 0;
}

/* Users hold a reference on ib_core: no request can be left. */
void rdma_addr_exit(void)
{
	unregister_netevent_notifier(&addr_netevent_nb);
	destroy_workqueue(addr_wq);
	WARN_ON(!list_empty(&addr_reqs));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * RoCE GIDs, managed by ib_core from the network stack.
 *
 * The GIDs of a RoCE port are derived from its netdev P
 * (ib_device_get_netdev()) and the devices stacked on P (VLANs, bridges,
 * bonds: those of a bond only when P is its active slave or the bond mode
 * has none):
 *	- the default GID of P (of its bond when P is a bond slave):
 *	  fe80::/64 + the EUI-64 of its MAC,
 *	- for P, then each upper device: one GID per IPv4 address
 *	  (::ffff:a.b.c.d) in the order of the address list, then one per
 *	  IPv6 address in the order of the address list,
 * each once per GID type the port supports (RoCE v1, then v2).  An address
 * equal to one already listed on the same netdev (the EUI-64 link-local
 * address is the default GID) is not repeated.  New GIDs take the lowest
 * free index.
 *
 * Rather than applying each notification as a delta, every event that may
 * change a port's GIDs resynchronises that port: it computes the list
 * above from the current state of the netdevs, deletes the GIDs no longer
 * in it and adds the missing ones in order.  Late, reordered or lost
 * notifications cannot leave a stale GID (and with it a netdev
 * reference) behind.  The work runs in process context on an ordered
 * work queue, since the inet6addr chain calls us in atomic context.
 *
 * What the stock 6.1 stack does, measured in the VM with rxe on veth0 (the
 * behaviour implemented here):
 *	- GIDs exist while the netdev is down; link down and up, and loss
 *	  of carrier, change no GID by themselves.  The kernel flushes
 *	  non-permanent IPv6 addresses on down, so those GIDs go; IPv4 GIDs
 *	  and the default GID stay.
 *	- Address add/del adds/removes its GID; the freed index is reused
 *	  by the next address.  Tentative IPv6 addresses (DAD pending) get
 *	  their GID at once.  Deleting a primary IPv4 address also drops
 *	  its secondaries (kernel behaviour), and their GIDs.
 *	- MAC change (up or down): the whole table is rebuilt: default GID
 *	  at 0, then the IPv4 and IPv6 GIDs; the old EUI-64 link-local
 *	  address, no longer equal to the default GID, gets its own GID.
 *	- VLAN and bridge uppers of P: their addresses (including their
 *	  link-local ones) become GIDs with the upper as netdev; they go
 *	  when the upper is deleted or P leaves the bridge.
 *	- Bond slaves (rxe0 on veth0, rxe1 on veth2, both in bond0): the
 *	  default GID of every slave's port has netdev bond0 (the bond's
 *	  link-local address is that GID).  In active-backup mode only the
 *	  active slave's port has bond0's IP GIDs; failover moves them.  In
 *	  balance-rr (no active slave) every slave's port has them.  On
 *	  release the default GID is the slave's own again.
 *	- Loopback (rxe on lo): the default GID fe80::200:ff:fe00:0 and the
 *	  addresses present when the device is created; later events on lo
 *	  are ignored (only ARPHRD_ETHER netdevs are followed): a
 *	  127.0.0.5 added later gets no GID, lo down/up changes nothing.
 *	- ip link del of the netdev: the rxe device goes with every GID.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/bonding.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "core_priv.h"

/* The wanted GIDs of a port, in the order they should take indexes. */
struct roce_gid_set {
	struct ib_device *device;
	u32 port;
	/* The port's netdev, while the set is built. */
	struct net_device *ndev;
	unsigned int n, max;
	struct roce_gid_want {
		union ib_gid gid;
		enum ib_gid_type gid_type;
		/* Referenced (dev_hold) until the set is freed. */
		struct net_device *ndev;
	} want[];
};

/* One netdev or address notification, handled in process context. */
struct roce_netdev_work {
	struct work_struct work;
	unsigned long event;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
};

static struct workqueue_struct *roce_gid_wq;

/*
 * Serialises resynchronisations, so that one computed from older netdev
 * state is never applied after a newer one.  Taken around the
 * compute-and-apply of one port; the GID_CHANGE dispatch (which only
 * queues) may happen inside it, the device registry locks never do.
 */
static DEFINE_MUTEX(roce_sync_lock);

/**
 * roce_gid_type_mask_support - the GID types a port's GIDs come in
 * @ib_dev: the device
 * @port: the port
 *
 * Return: a mask of BIT(enum ib_gid_type): on a RoCE port one bit per
 * RoCE version it speaks (every IP address gets a GID of each), on any
 * other port BIT(IB_GID_TYPE_IB).
 */
unsigned long roce_gid_type_mask_support(struct ib_device *ib_dev, u32 port)
{
	unsigned long mask = 0;

	if (!rdma_protocol_roce(ib_dev, port))
		return BIT(IB_GID_TYPE_IB);
	if (rdma_protocol_roce_eth_encap(ib_dev, port))
		mask |= BIT(IB_GID_TYPE_ROCE);
	if (rdma_protocol_roce_udp_encap(ib_dev, port))
		mask |= BIT(IB_GID_TYPE_ROCE_UDP_ENCAP);
	return mask;
}
EXPORT_SYMBOL(roce_gid_type_mask_support);

static void roce_gid_set_push(struct roce_gid_set *set,
			      const union ib_gid *gid,
			      struct net_device *ndev)
{
	unsigned long types = roce_gid_type_mask_support(set->device,
							 set->port);
	unsigned int i, t;

	for_each_set_bit(t, &types, IB_GID_TYPE_SIZE) {
		for (i = 0; i < set->n; i++)
			if (set->want[i].ndev == ndev &&
			    set->want[i].gid_type == t &&
			    !memcmp(&set->want[i].gid, gid, sizeof(*gid)))
				break;
		if (i < set->n || set->n == set->max)
			continue;

		set->want[set->n].gid = *gid;
		set->want[set->n].gid_type = t;
		set->want[set->n].ndev = ndev;
		dev_hold(ndev);
		set->n++;
	}
}

/* fe80::/64 with the modified EUI-64 of the netdev's MAC. */
static void roce_default_gid(const struct net_device *ndev, union ib_gid *gid)
{
	const u8 *mac = ndev->dev_addr;
	u8 *id = &gid->raw[8];

	memset(gid, 0, sizeof(*gid));
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	id[0] = mac[0] ^ 2;
	id[1] = mac[1];
	id[2] = mac[2];
	id[3] = 0xff;
	id[4] = 0xfe;
	id[5] = mac[3];
	id[6] = mac[4];
	id[7] = mac[5];
}

/* The IP addresses of @ndev, IPv4 first.  Under rcu_read_lock(). */
static void roce_gid_set_add_ips(struct roce_gid_set *set,
				 struct net_device *ndev)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	union ib_gid gid;

	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			ipv6_addr_set_v4mapped(ifa->ifa_address,
					       (struct in6_addr *)&gid);
			roce_gid_set_push(set, &gid, ndev);
		}
	}

#if IS_ENABLED(CONFIG_IPV6)
	{
		struct inet6_ifaddr *ifp;
		struct inet6_dev *idev;

		idev = __in6_dev_get(ndev);
		if (!idev)
			return;
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			memcpy(&gid, &ifp->addr, sizeof(gid));
			roce_gid_set_push(set, &gid, ndev);
		}
		read_unlock_bh(&idev->lock);
	}
#endif
}

/*
 * Whether the addresses of @upper, stacked on the port's netdev @lower,
 * belong to the port.  Those of a bond (or of a VLAN on a bond) do only
 * on the active slave when the bond mode has one, so that a GID is on
 * the port that carries its traffic.  Under rcu_read_lock().
 */
static bool roce_upper_is_ours(struct net_device *upper,
			       struct net_device *lower)
{
	struct net_device *real = upper, *active;

	if (upper->reg_state != NETREG_REGISTERED)
		return false;
	if (is_vlan_dev(upper))
		real = vlan_dev_priv(upper)->real_dev;
	if (real == lower || !netif_is_bond_master(real))
		return true;

	active = bond_option_active_slave_get_rcu(netdev_priv(real));
	return !active || active == lower;
}

static int roce_gid_set_add_upper(struct net_device *upper,
				  struct netdev_nested_priv *priv)
{
	struct roce_gid_set *set = priv->data;

	if (roce_upper_is_ours(upper, set->ndev))
		roce_gid_set_add_ips(set, upper);
	return 0;
}

/*
 * The netdev of the default GID: that of the port, or of the bond it is
 * a slave of, which is where the traffic of the bond's link goes.  Under
 * rcu_read_lock().
 */
static struct net_device *roce_default_gid_ndev(struct net_device *ndev)
{
	struct net_device *master = netdev_master_upper_dev_get_rcu(ndev);

	if (master && netif_is_bond_master(master) &&
	    master->reg_state == NETREG_REGISTERED)
		return master;
	return ndev;
}

/* The wanted GIDs of a port whose netdev is @ndev (may be NULL). */
static struct roce_gid_set *roce_gid_set_build(struct ib_device *device,
					       u32 port,
					       struct net_device *ndev)
{
	struct netdev_nested_priv priv;
	struct net_device *def_ndev;
	struct roce_gid_set *set;
	union ib_gid gid;
	unsigned int max;

	max = device->port_data[port].immutable.gid_tbl_len;
	set = kvzalloc(struct_size(set, want, max), GFP_KERNEL);
	if (!set)
		return NULL;
	set->device = device;
	set->port = port;
	set->max = max;
	set->ndev = ndev;
	priv.data = set;

	rcu_read_lock();
	if (ndev && ndev->reg_state == NETREG_REGISTERED) {
		def_ndev = roce_default_gid_ndev(ndev);
		if (def_ndev->addr_len == ETH_ALEN) {
			roce_default_gid(def_ndev, &gid);
			roce_gid_set_push(set, &gid, def_ndev);
		}
		roce_gid_set_add_ips(set, ndev);
		netdev_walk_all_upper_dev_rcu(ndev, roce_gid_set_add_upper,
					      &priv);
	}
	rcu_read_unlock();
	return set;
}

static void roce_gid_set_free(struct roce_gid_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		dev_put(set->want[i].ndev);
	kvfree(set);
}

static bool roce_gid_unwanted(const struct ib_gid_attr *attr, void *ctx)
{
	const struct roce_gid_set *set = ctx;
	const struct net_device *ndev = rcu_access_pointer(attr->ndev);
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (set->want[i].ndev == ndev &&
		    set->want[i].gid_type == attr->gid_type &&
		    !memcmp(&set->want[i].gid, &attr->gid, sizeof(attr->gid)))
			return false;
	return true;
}

static bool roce_gid_any(const struct ib_gid_attr *attr, void *ctx)
{
	return true;
}

/*
 * Brings the GIDs of one RoCE port in line with its netdev.  @rebuild
 * empties the table first, so that every GID takes its index anew.
 */
static void roce_sync_port(struct ib_device *device, u32 port,
			   struct net_device *ndev, bool rebuild)
{
	struct roce_gid_set *set;
	unsigned int i;
	int ret;

	mutex_lock(&roce_sync_lock);
	set = roce_gid_set_build(device, port, ndev);
	if (!set) {
		mutex_unlock(&roce_sync_lock);
		dev_warn(&device->dev, "port %u: no memory to update GIDs\n",
			 port);
		return;
	}

	if (rebuild)
		ib_cache_gid_del_if(device, port, roce_gid_any, NULL);
	else
		ib_cache_gid_del_if(device, port, roce_gid_unwanted, set);

	for (i = 0; i < set->n; i++) {
		ret = ib_cache_gid_add(device, port, &set->want[i].gid,
				       set->want[i].gid_type,
				       set->want[i].ndev);
		if (ret)
			dev_warn_ratelimited(&device->dev,
					     "port %u: cannot add GID %pI6: %d\n",
					     port, &set->want[i].gid, ret);
	}
	mutex_unlock(&roce_sync_lock);
	roce_gid_set_free(set);
}

void roce_rescan_device(struct ib_device *ib_dev)
{
	struct net_device *ndev;
	u32 port;

	/*
	 * The registration reference keeps a concurrent unregistration
	 * from emptying the tables (ib_cache_cleanup_one()) before we are
	 * done filling them.
	 */
	if (!ib_device_try_get(ib_dev))
		return;

	rdma_for_each_port(ib_dev, port) {
		if (!rdma_protocol_roce(ib_dev, port))
			continue;
		ndev = ib_device_get_netdev(ib_dev, port);
		roce_sync_port(ib_dev, port, ndev, false);
		dev_put(ndev);
	}
	ib_device_put(ib_dev);
}

/**
 * rdma_roce_rescan_device - recompute the RoCE GIDs of a device
 * @ibdev: a registered device
 *
 * For drivers whose port/netdev association changed.
 */
void rdma_roce_rescan_device(struct ib_device *ibdev)
{
	roce_rescan_device(ibdev);
}
EXPORT_SYMBOL(rdma_roce_rescan_device);

/*
 * Resynchronises every RoCE port of @device that the event on @event_ndev
 * may concern: its netdev is @event_ndev or below it, or it has GIDs of
 * @event_ndev (an upper device that went away).
 */
static void roce_sync_device(struct ib_device *device,
			     struct net_device *event_ndev,
			     unsigned long event)
{
	struct net_device *ndev;
	bool concerned;
	u32 port;

	rdma_for_each_port(device, port) {
		if (!rdma_protocol_roce(device, port))
			continue;
		ndev = ib_device_get_netdev(device, port);
		concerned = !event_ndev || ndev == event_ndev;
		if (!concerned && ndev) {
			rcu_read_lock();
			concerned = netdev_has_upper_dev_all_rcu(ndev,
								 event_ndev);
			rcu_read_unlock();
		}
		if (!concerned)
			concerned = ib_cache_gid_uses_ndev(device, port,
							   event_ndev);
		if (concerned)
			roce_sync_port(device, port, ndev,
				       event == NETDEV_CHANGEADDR &&
				       ndev == event_ndev);
		dev_put(ndev);
	}
}

static void roce_netdev_work_fn(struct work_struct *_work)
{
	struct roce_netdev_work *work =
		container_of(_work, struct roce_netdev_work, work);
	struct ib_device *device;
	unsigned long index = 0;

	/*
	 * Every device, whatever the namespaces: a port's GIDs come from
	 * its netdev's upper devices, which may live in other namespaces
	 * than the netdev or the RDMA device (a VLAN moved elsewhere).  In
	 * exclusive mode, filtering by the event's namespace would miss
	 * their changes and leave their GIDs, and the netdev references
	 * those hold, in the table until some unrelated event.
	 */
	while ((device = ib_device_get_next(NULL, &index))) {
		roce_sync_device(device, work->ndev, work->event);
		ib_device_put(device);
		index++;
	}

	netdev_put(work->ndev, &work->ndev_tracker);
	kfree(work);
}

/* Called from notifiers, possibly atomic. */
static void roce_queue_netdev_work(struct net_device *ndev,
				   unsigned long event)
{
	struct roce_netdev_work *work;

	/* Only Ethernet netdevs carry RoCE; stock ignores the others. */
	if (ndev->type != ARPHRD_ETHER)
		return;

	/* On failure the next event of the netdev catches up. */
	work = kzalloc(sizeof(*work), GFP_ATOMIC);
	if (!work)
		return;
	INIT_WORK(&work->work, roce_netdev_work_fn);
	work->event = event;
	work->ndev = ndev;
	netdev_hold(ndev, &work->ndev_tracker, GFP_ATOMIC);
	queue_work(roce_gid_wq, &work->work);
}

static int roce_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UNREGISTER:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGEADDR:
	case NETDEV_CHANGENAME:
	case NETDEV_CHANGEUPPER:
	case NETDEV_BONDING_FAILOVER:
		roce_queue_netdev_work(ndev, event);
		break;
	}
	return NOTIFY_DONE;
}

static int roce_inetaddr_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	const struct in_ifaddr *ifa = ptr;

	if (event == NETDEV_UP || event == NETDEV_DOWN)
		roce_queue_netdev_work(ifa->ifa_dev->dev, event);
	return NOTIFY_DONE;
}

static int roce_inet6addr_event(struct notifier_block *nb, unsigned long event,
				void *ptr)
{
	const struct inet6_ifaddr *ifp = ptr;

	if (event == NETDEV_UP || event == NETDEV_DOWN)
		roce_queue_netdev_work(ifp->idev->dev, event);
	return NOTIFY_DONE;
}

static struct notifier_block roce_netdev_nb = {
	.notifier_call = roce_netdev_event,
};

static struct notifier_block roce_inetaddr_nb = {
	.notifier_call = roce_inetaddr_event,
};

static struct notifier_block roce_inet6addr_nb = {
	.notifier_call = roce_inet6addr_event,
};

int __init roce_gid_mgmt_init(void)
{
	int ret;

	roce_gid_wq = alloc_ordered_workqueue("ib_roce_gid", 0);
	if (!roce_gid_wq)
		return -ENOMEM;

	ret = register_inetaddr_notifier(&roce_inetaddr_nb);
	if (ret)
		goto err_wq;
	ret = register_inet6addr_notifier(&roce_inet6addr_nb);
	if (ret)
		goto err_inet;
	ret = register_netdevice_notifier(&roce_netdev_nb);
	if (ret)
		goto err_inet6;
	return 0;

err_inet6:
	unregister_inet6addr_notifier(&roce_inet6addr_nb);
err_inet:
	unregister_inetaddr_notifier(&roce_inetaddr_nb);
err_wq:
	destroy_workqueue(roce_gid_wq);
	return ret;
}

void roce_gid_mgmt_exit(void)
{
	unregister_netdevice_notifier(&roce_netdev_nb);
	unregister_inet6addr_notifier(&roce_inet6addr_nb);
	unregister_inetaddr_notifier(&roce_inetaddr_nb);
	destroy_workqueue(roce_gid_wq);
	/* cache.c drops netdev references from RCU callbacks. */
	rcu_barrier();
}

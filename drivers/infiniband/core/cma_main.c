// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_cm: the module, and the devices it works on.  Every ib_device that
 * can carry a connection manager (IB/RoCE with ib_cm, iWARP with iw_cm)
 * gets a struct cma_device from our ib_client's add(); remove() tells
 * every id on it with RDMA_CM_EVENT_DEVICE_REMOVAL and waits until they
 * are all gone.  Bonding failovers are reported to the ids bound to the
 * bond as RDMA_CM_EVENT_ADDR_CHANGE.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/bonding.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"
#include "cma_trace.h"

MODULE_AUTHOR("oot-rdma");
MODULE_DESCRIPTION("Generic RDMA CM Agent");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);

/* What it protects: see cma_priv.h. */
DEFINE_MUTEX(cma_lock);
LIST_HEAD(cma_devices);
LIST_HEAD(cma_listen_any);
struct workqueue_struct *cma_wq;

void cma_dev_get(struct cma_device *cma_dev)
{
	refcount_inc(&cma_dev->refcount);
}

void cma_dev_put(struct cma_device *cma_dev)
{
	if (refcount_dec_and_test(&cma_dev->refcount))
		complete(&cma_dev->comp);
}

/* The cma_device of @device, unreferenced; cma_lock held. */
struct cma_device *cma_find_dev(struct ib_device *device)
{
	struct cma_device *cma_dev;

	lockdep_assert_held(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list)
		if (cma_dev->device == device)
			return cma_dev;
	return NULL;
}

/*
 * The id now works on @cma_dev (id.device and id.port_num are set by the
 * caller).  On RoCE the id uses the port's default GID type.
 */
void cma_attach_to_dev(struct rdma_id_private *id_priv,
		       struct cma_device *cma_dev)
{
	lockdep_assert_held(&cma_lock);
	cma_dev_get(cma_dev);
	id_priv->cma_dev = cma_dev;
	id_priv->id.device = cma_dev->device;
	id_priv->id.route.addr.dev_addr.transport =
		rdma_node_get_transport(cma_dev->device->node_type);
	list_add_tail(&id_priv->device_item, &cma_dev->id_list);
	if (id_priv->id.port_num &&
	    rdma_protocol_roce(cma_dev->device, id_priv->id.port_num))
		id_priv->gid_type =
			cma_default_gid_type(cma_dev, id_priv->id.port_num);
	/* Now that the device is known, the entry can be tracked. */
	rdma_restrack_add(&id_priv->res);
	trace_cm_id_attach(id_priv, cma_dev->device);
}

void cma_release_dev(struct rdma_id_private *id_priv)
{
	mutex_lock(&cma_lock);
	list_del_init(&id_priv->device_item);
	cma_dev_put(id_priv->cma_dev);
	id_priv->cma_dev = NULL;
	if (id_priv->id.route.addr.dev_addr.sgid_attr) {
		rdma_put_gid_attr(id_priv->id.route.addr.dev_addr.sgid_attr);
		id_priv->id.route.addr.dev_addr.sgid_attr = NULL;
	}
	mutex_unlock(&cma_lock);
}

int cma_default_gid_type(struct cma_device *cma_dev, u32 port)
{
	return cma_dev->default_gid_type[port - rdma_start_port(cma_dev->device)];
}

u8 cma_default_roce_tos(struct cma_device *cma_dev, u32 port)
{
	return cma_dev->default_roce_tos[port - rdma_start_port(cma_dev->device)];
}

/* ---------------------------------------------------------------- */
/* Accessors for configfs                                             */

struct cma_device *cma_enum_devices_by_ibdev(cma_device_filter filter,
					     void *cookie)
{
	struct cma_device *cma_dev, *found = NULL;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		if (filter(cma_dev->device, cookie)) {
			found = cma_dev;
			cma_dev_get(found);
			break;
		}
	}
	mutex_unlock(&cma_lock);
	return found;
}

struct ib_device *cma_get_ib_dev(struct cma_device *cma_dev)
{
	return cma_dev->device;
}

int cma_get_default_gid_type(struct cma_device *cma_dev, u32 port)
{
	if (!rdma_is_port_valid(cma_dev->device, port))
		return -EINVAL;
	return cma_default_gid_type(cma_dev, port);
}

int cma_set_default_gid_type(struct cma_device *cma_dev, u32 port,
			     enum ib_gid_type default_gid_type)
{
	unsigned long supported;

	if (!rdma_is_port_valid(cma_dev->device, port))
		return -EINVAL;

	supported = roce_gid_type_mask_support(cma_dev->device, port);
	if (default_gid_type == IB_GID_TYPE_IB &&
	    rdma_protocol_roce_eth_encap(cma_dev->device, port))
		default_gid_type = IB_GID_TYPE_ROCE;
	if (!(supported & BIT(default_gid_type)))
		return -EINVAL;

	mutex_lock(&cma_lock);
	cma_dev->default_gid_type[port - rdma_start_port(cma_dev->device)] =
		default_gid_type;
	mutex_unlock(&cma_lock);
	return 0;
}

int cma_get_default_roce_tos(struct cma_device *cma_dev, u32 port)
{
	if (!rdma_is_port_valid(cma_dev->device, port))
		return -EINVAL;
	return cma_default_roce_tos(cma_dev, port);
}

int cma_set_default_roce_tos(struct cma_device *cma_dev, u32 port,
			     u8 default_roce_tos)
{
	if (!rdma_is_port_valid(cma_dev->device, port))
		return -EINVAL;

	mutex_lock(&cma_lock);
	cma_dev->default_roce_tos[port - rdma_start_port(cma_dev->device)] =
		default_roce_tos;
	mutex_unlock(&cma_lock);
	return 0;
}

/* ---------------------------------------------------------------- */
/* The ib_client                                                      */

/* RoCEv2 when the port has it, else the first type it supports. */
static enum ib_gid_type cma_preferred_gid_type(struct ib_device *device,
					       u32 port)
{
	unsigned long supported = roce_gid_type_mask_support(device, port);

	if (supported & BIT(IB_GID_TYPE_ROCE_UDP_ENCAP))
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	if (supported)
		return find_first_bit(&supported, BITS_PER_LONG);
	return IB_GID_TYPE_IB;
}

/* Does any port of @device carry a connection manager? */
static bool cma_supported(struct ib_device *device)
{
	u32 port;

	rdma_for_each_port(device, port)
		if (rdma_cap_ib_cm(device, port) || rdma_cap_iw_cm(device, port))
			return true;
	return false;
}

static int cma_add_one(struct ib_device *device)
{
	struct rdma_id_private *listener, *failed, *tmp;
	struct cma_device *cma_dev;
	LIST_HEAD(failed_list);
	u32 port, n;
	int ret;

	if (!cma_supported(device))
		return -EOPNOTSUPP;

	cma_dev = kzalloc(sizeof(*cma_dev), GFP_KERNEL);
	if (!cma_dev)
		return -ENOMEM;

	n = device->phys_port_cnt;
	cma_dev->default_gid_type = kcalloc(n, sizeof(*cma_dev->default_gid_type),
					    GFP_KERNEL);
	cma_dev->default_roce_tos = kcalloc(n, sizeof(*cma_dev->default_roce_tos),
					    GFP_KERNEL);
	if (!cma_dev->default_gid_type || !cma_dev->default_roce_tos) {
		ret = -ENOMEM;
		goto err_free;
	}

	rdma_for_each_port(device, port)
		cma_dev->default_gid_type[port - rdma_start_port(device)] =
			cma_preferred_gid_type(device, port);

	cma_dev->device = device;
	refcount_set(&cma_dev->refcount, 1);
	init_completion(&cma_dev->comp);
	INIT_LIST_HEAD(&cma_dev->id_list);
	ib_set_client_data(device, &cma_client, cma_dev);

	mutex_lock(&cma_lock);
	list_add_tail(&cma_dev->list, &cma_devices);
	list_for_each_entry(listener, &cma_listen_any, device_item) {
		/* A failure is logged; the listener lives on elsewhere. */
		if (cma_listen_on_dev(listener, cma_dev, &failed) && failed)
			list_add_tail(&failed->listen_item, &failed_list);
	}
	mutex_unlock(&cma_lock);

	list_for_each_entry_safe(failed, tmp, &failed_list, listen_item) {
		list_del_init(&failed->listen_item);
		rdma_destroy_id(&failed->id);
	}
	trace_cm_add_one(device);
	return 0;

err_free:
	kfree(cma_dev->default_roce_tos);
	kfree(cma_dev->default_gid_type);
	kfree(cma_dev);
	return ret;
}

/* Tell @id_priv its device is going, then drop the caller's reference. */
static void cma_send_device_removal_put(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	enum rdma_cm_state state;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	if (state == RDMA_CM_DESTROYING || state == RDMA_CM_DEVICE_REMOVAL) {
		mutex_unlock(&id_priv->handler_mutex);
		cma_id_put(id_priv);
		return;
	}
	cma_exch(id_priv, RDMA_CM_DEVICE_REMOVAL);

	if (id_priv->internal || cma_deliver(id_priv, &event)) {
		cma_id_put(id_priv);
		cma_destroy_id_unlock(id_priv);
		return;
	}
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

static void cma_remove_one(struct ib_device *device, void *client_data)
{
	struct cma_device *cma_dev = client_data;
	struct rdma_id_private *id_priv;

	trace_cm_remove_one(device);

	mutex_lock(&cma_lock);
	list_del(&cma_dev->list);
	while (!list_empty(&cma_dev->id_list)) {
		id_priv = list_first_entry(&cma_dev->id_list,
					   struct rdma_id_private, device_item);
		/*
		 * Off the device's list (the id keeps its cma_dev reference
		 * until destroyed); an internal listener is also taken from
		 * its parent, so only we destroy it.
		 */
		list_del_init(&id_priv->device_item);
		if (id_priv->internal) {
			if (list_empty(&id_priv->listen_item))
				continue;	/* its parent is destroying it */
			list_del_init(&id_priv->listen_item);
		}
		/*
		 * An id whose last reference is gone is being destroyed: its
		 * destroyer waits for that, then releases the device under
		 * cma_lock (so the id is still here while we hold the lock),
		 * and with it the cma_dev reference we wait for below.
		 */
		if (!refcount_inc_not_zero(&id_priv->refcount))
			continue;
		mutex_unlock(&cma_lock);

		cma_send_device_removal_put(id_priv);

		mutex_lock(&cma_lock);
	}
	mutex_unlock(&cma_lock);

	/* Wait for the consumers to destroy their ids. */
	cma_dev_put(cma_dev);
	wait_for_completion(&cma_dev->comp);

	kfree(cma_dev->default_roce_tos);
	kfree(cma_dev->default_gid_type);
	kfree(cma_dev);
}

struct ib_client cma_client = {
	.name = "cma",
	.add = cma_add_one,
	.remove = cma_remove_one,
};

/* ---------------------------------------------------------------- */
/* Bonding failover: the bond's active MAC changed under bound ids.   */

static void cma_netdev_change(struct net_device *ndev,
			      struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ADDR_CHANGE };

	if (dev_addr->bound_dev_if != ndev->ifindex ||
	    dev_net(ndev) != dev_addr->net)
		return;
	if (!memcmp(dev_addr->src_dev_addr, ndev->dev_addr, ndev->addr_len))
		return;

	pr_info("RDMA CM addr change for ndev %s used by id %p\n",
		ndev->name, &id_priv->id);
	cma_queue_event(id_priv, RDMA_CM_IDLE, RDMA_CM_IDLE, &event);
}

static int cma_netdev_callback(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct rdma_id_private *id_priv;
	struct cma_device *cma_dev;

	if (event != NETDEV_BONDING_FAILOVER || !netif_is_bond_master(ndev))
		return NOTIFY_DONE;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list)
		list_for_each_entry(id_priv, &cma_dev->id_list, device_item)
			cma_netdev_change(ndev, id_priv);
	mutex_unlock(&cma_lock);
	return NOTIFY_DONE;
}

static struct notifier_block cma_nb = {
	.notifier_call = cma_netdev_callback,
};

/* ---------------------------------------------------------------- */

static int __init cma_init(void)
{
	int ret;

	ret = ib_core_oot_check(OOT_RDMA_VERSION);
	if (ret)
		return ret;

	cma_wq = alloc_ordered_workqueue("rdma_cm", WQ_MEM_RECLAIM);
	if (!cma_wq)
		return -ENOMEM;

	ret = cma_ps_init();
	if (ret)
		goto err_wq;

	register_netdevice_notifier(&cma_nb);

	ret = ib_register_client(&cma_client);
	if (ret)
		goto err_nb;

	ret = cma_configfs_init();
	if (ret)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&cma_client);
err_nb:
	unregister_netdevice_notifier(&cma_nb);
	cma_ps_exit();
err_wq:
	destroy_workqueue(cma_wq);
	return ret;
}

static void __exit cma_cleanup(void)
{
	cma_configfs_exit();
	ib_unregister_client(&cma_client);
	unregister_netdevice_notifier(&cma_nb);
	cma_ps_exit();
	destroy_workqueue(cma_wq);
}

module_init(cma_init);
module_exit(cma_cleanup);

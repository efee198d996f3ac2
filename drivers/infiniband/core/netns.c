// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA devices and network namespaces.
 *
 * Every ib_device belongs to one namespace, device->coredev.rdma_net
 * (init_net when registered).  What the other namespaces see depends on
 * the mode ("rdma system set netns", module parameter netns_mode):
 *
 * - shared (the default): every device from every namespace.  Sysfs is
 *   namespaced (class "infiniband" tags each device with its rdma_net,
 *   see ib_class), so each other namespace gets a compat device: an
 *   ib_core_device of the same name, with the device's attributes and
 *   ports/ (without the counters), from the device's publication to its
 *   unpublication, and from the namespace's creation to its end.
 * - exclusive: a device only from its own namespace.  "rdma dev set DEV
 *   netns NS" moves it, for drivers that can disassociate their user
 *   contexts; a namespace that ends gives its devices back to init_net.
 *
 * The mode changes only while init_net is the only namespace, so no
 * namespace ever sees both a compat device and a moved device.
 *
 * Locking, outermost first: devices_rwsem (device.c), rdma_nets_rwsem,
 * device->compat_devs_mutex.
 */

#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

bool ib_devices_shared_netns = true;
module_param_named(netns_mode, ib_devices_shared_netns, bool, 0444);
MODULE_PARM_DESC(netns_mode,
		 "Share RDMA devices with all net namespaces (default 1); 0: each device belongs to one net namespace");

/* Per namespace: its index in rdma_nets and in every device's compat_devs. */
struct rdma_dev_net {
	u32 id;
};

static unsigned int rdma_dev_net_id __read_mostly;

/*
 * rdma_nets: every namespace between the start of its init and the start
 * of its exit, by id, as its struct net.  An ending namespace's slot
 * stays reserved (NULL) until its compat devices are gone, so that a new
 * namespace cannot take its id and find them.
 *
 * rdma_nets_rwsem: held for write to change rdma_nets and the mode, for
 * read to add compat devices, which makes "no namespace but init_net"
 * and "no compat device" the same thing for rdma_compatdev_set().
 */
static DEFINE_XARRAY_FLAGS(rdma_nets, XA_FLAGS_ALLOC);
static DECLARE_RWSEM(rdma_nets_rwsem);

bool rdma_dev_access_netns(const struct ib_device *device,
			   const struct net *net)
{
	return READ_ONCE(ib_devices_shared_netns) ||
	       net_eq(read_pnet(&device->coredev.rdma_net), net);
}
EXPORT_SYMBOL(rdma_dev_access_netns);

int rdma_compatdev_set(u8 enable)
{
	bool shared = enable;
	unsigned long id;
	struct net *net;
	int ret = 0;

	down_write(&rdma_nets_rwsem);
	if (ib_devices_shared_netns == shared)
		goto out;

	/*
	 * Neither the compat devices nor the devices moved are changed
	 * here: the mode may only change while no other namespace could
	 * see a difference.
	 */
	xa_for_each(&rdma_nets, id, net) {
		if (!net_eq(net, &init_net)) {
			ret = -EBUSY;
			goto out;
		}
	}
	WRITE_ONCE(ib_devices_shared_netns, shared);
out:
	up_write(&rdma_nets_rwsem);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Compat devices                                                      */

static void compat_dev_release(struct device *dev)
{
	kfree(container_of(dev, struct ib_core_device, dev));
}

/* @device's compat device in @net, whose id is @id, unless it has one. */
static int add_compat_dev(struct ib_device *device, struct net *net, u32 id)
{
	struct ib_core_device *cdev;
	int ret = 0;

	lockdep_assert_held(&rdma_nets_rwsem);

	if (!ib_devices_shared_netns ||
	    net_eq(net, read_pnet(&device->coredev.rdma_net)))
		return 0;

	mutex_lock(&device->compat_devs_mutex);
	/* Both the device and the namespace may have got here first. */
	if (xa_load(&device->compat_devs, id))
		goto out;
	ret = xa_reserve(&device->compat_devs, id, GFP_KERNEL);
	if (ret)
		goto out;

	cdev = kzalloc(sizeof(*cdev), GFP_KERNEL);
	if (!cdev) {
		ret = -ENOMEM;
		goto err_release;
	}
	cdev->dev.parent = device->dev.parent;
	cdev->dev.class = &ib_class;
	cdev->dev.groups = device->groups;
	cdev->dev.release = compat_dev_release;
	device_initialize(&cdev->dev);
	/* rdma_device_to_ibdev() of the shared attributes finds the device. */
	cdev->owner = device;
	INIT_LIST_HEAD(&cdev->port_list);
	write_pnet(&cdev->rdma_net, net);

	ret = dev_set_name(&cdev->dev, "%s", dev_name(&device->dev));
	if (ret)
		goto err_put;
	ret = device_add(&cdev->dev);
	if (ret)
		goto err_put;
	ret = ib_setup_port_attrs(cdev);
	if (ret)
		goto err_del;

	/* The slot is reserved: no allocation, no failure. */
	xa_store(&device->compat_devs, id, cdev, GFP_KERNEL);
	mutex_unlock(&device->compat_devs_mutex);
	return 0;

err_del:
	device_del(&cdev->dev);
err_put:
	put_device(&cdev->dev);
err_release:
	xa_release(&device->compat_devs, id);
out:
	mutex_unlock(&device->compat_devs_mutex);
	return ret;
}

static void remove_compat_dev(struct ib_device *device, u32 id)
{
	struct ib_core_device *cdev;

	mutex_lock(&device->compat_devs_mutex);
	cdev = xa_erase(&device->compat_devs, id);
	mutex_unlock(&device->compat_devs_mutex);
	if (!cdev)
		return;

	ib_free_port_attrs(cdev);
	device_del(&cdev->dev);
	put_device(&cdev->dev);
}

/*
 * @device is being published (enable_device(), devices_rwsem held for
 * read): its compat devices in every namespace there is.
 */
int ib_compat_devs_add(struct ib_device *device)
{
	unsigned long id;
	struct net *net;
	int ret = 0;

	down_read(&rdma_nets_rwsem);
	xa_for_each(&rdma_nets, id, net) {
		ret = add_compat_dev(device, net, id);
		if (ret)
			break;
	}
	up_read(&rdma_nets_rwsem);
	return ret;
}

/*
 * @device was unpublished (disable_device()): no namespace walk adds any
 * more of its compat devices, so all can go.
 */
void ib_compat_devs_remove(struct ib_device *device)
{
	struct ib_core_device *cdev;
	unsigned long id;

	xa_for_each(&device->compat_devs, id, cdev)
		remove_compat_dev(device, id);
}

/* @device was renamed (devices_rwsem held for write): so are they. */
void ib_compat_devs_rename(struct ib_device *device)
{
	struct ib_core_device *cdev;
	unsigned long id;
	int ret;

	mutex_lock(&device->compat_devs_mutex);
	xa_for_each(&device->compat_devs, id, cdev) {
		ret = device_rename(&cdev->dev, dev_name(&device->dev));
		if (ret)
			ibdev_warn(device,
				   "cannot rename its compat device: %d\n",
				   ret);
	}
	mutex_unlock(&device->compat_devs_mutex);
}

/* ------------------------------------------------------------------ */
/* Moving a device                                                     */

/**
 * ib_device_set_netns_put - nldev SET NET_NS_FD: move a device
 * @skb: the request (its sender's capabilities are checked)
 * @device: the device, with the lookup's registration reference, which
 *	    this drops in every case
 * @ns_fd: a file descriptor of the namespace it goes to
 *
 * The device leaves the caller's namespace, where the lookup found it.
 * Every user of the device goes (the clients are removed and added back),
 * and ib_uverbs' files cannot be made to wait for their processes: a
 * driver must be able to disassociate its user contexts.
 */
int ib_device_set_netns_put(struct sk_buff *skb, struct ib_device *device,
			    u32 ns_fd)
{
	struct net *net;
	int ret;

	net = get_net_ns_by_fd(ns_fd);
	if (IS_ERR(net)) {
		ib_device_put(device);
		return PTR_ERR(net);
	}

	if (!netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN)) {
		ret = -EPERM;
		goto out_put;
	}
	if (READ_ONCE(ib_devices_shared_netns) ||
	    !device->ops.disassociate_ucontext) {
		ret = -EOPNOTSUPP;
		goto out_put;
	}

	/* The move waits for every registration reference, ours too. */
	get_device(&device->dev);
	ib_device_put(device);
	ret = ib_device_change_netns(device, sock_net(skb->sk), net);
	put_device(&device->dev);
	put_net(net);
	return ret;

out_put:
	ib_device_put(device);
	put_net(net);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Namespaces coming and going                                         */

struct compat_walk {
	struct net *net;
	u32 id;
	int ret;
};

static void add_compat_dev_walk(struct ib_device *device, void *data)
{
	struct compat_walk *walk = data;

	if (walk->ret)
		return;
	down_read(&rdma_nets_rwsem);
	walk->ret = add_compat_dev(device, walk->net, walk->id);
	up_read(&rdma_nets_rwsem);
}

/*
 * The end of a namespace, or of its init that failed: its compat devices
 * go, and the devices moved into it go back to init_net.
 */
static void rdma_dev_net_forget(struct net *net)
{
	struct rdma_dev_net *rnet = net_generic(net, rdma_dev_net_id);
	struct ib_device *device;
	unsigned long index = 0;

	/* No compat device is added for the namespace from now on. */
	down_write(&rdma_nets_rwsem);
	xa_store(&rdma_nets, rnet->id, NULL, GFP_KERNEL);
	up_write(&rdma_nets_rwsem);

	/* init_net ends only with the module: no device is left. */
	while (!net_eq(net, &init_net) &&
	       (device = ib_device_next_pinned(&index))) {
		remove_compat_dev(device, rnet->id);
		/*
		 * Moved here, it goes back.  The peek spares the others
		 * their unregistration_lock; the move checks again under it.
		 */
		if (net_eq(read_pnet(&device->coredev.rdma_net), net))
			ib_device_change_netns(device, net, &init_net);
		put_device(&device->dev);
		index++;
	}

	down_write(&rdma_nets_rwsem);
	xa_erase(&rdma_nets, rnet->id);
	up_write(&rdma_nets_rwsem);
}

static int __net_init rdma_dev_net_init(struct net *net)
{
	struct rdma_dev_net *rnet = net_generic(net, rdma_dev_net_id);
	struct compat_walk walk = { .net = net };
	int ret;

	down_write(&rdma_nets_rwsem);
	ret = xa_alloc(&rdma_nets, &rnet->id, net, xa_limit_32b, GFP_KERNEL);
	up_write(&rdma_nets_rwsem);
	if (ret)
		return ret;

	if (net_eq(net, &init_net))
		return 0;

	walk.id = rnet->id;
	ib_devices_walk_published(add_compat_dev_walk, &walk);
	if (walk.ret)
		rdma_dev_net_forget(net);
	return walk.ret;
}

static void __net_exit rdma_dev_net_exit(struct net *net)
{
	rdma_dev_net_forget(net);
}

static struct pernet_operations rdma_dev_net_ops = {
	.init = rdma_dev_net_init,
	.exit = rdma_dev_net_exit,
	.id = &rdma_dev_net_id,
	.size = sizeof(struct rdma_dev_net),
};

int __init ib_netns_init(void)
{
	return register_pernet_device(&rdma_dev_net_ops);
}

void ib_netns_exit(void)
{
	unregister_pernet_device(&rdma_dev_net_ops);
	WARN_ON(!xa_empty(&rdma_nets));
}

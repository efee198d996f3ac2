// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ib_core device model: the registry of ib_devices, their lifecycle
 * (allocation, registration, unregistration, release), the clients that
 * attach to every device, the binding of ports to net_devices, port
 * queries, asynchronous events and network-namespace visibility.
 *
 * Lifecycle of an ib_device
 * -------------------------
 * _ib_alloc_device() initialises the embedded struct device; from then on
 * its kobject reference count keeps the memory alive and the last
 * put_device() frees it (ib_device_release(), RCU-deferred because
 * netdev lookups walk port_data under RCU only).
 *
 * ib_register_device() makes the device visible in two steps: it first
 * reserves a name and an index in the registry (unmarked: nobody can look
 * it up yet), builds sysfs and the caches, and only then publishes it by
 * setting DEVICE_REGISTERED together with the registration reference
 * (device->refcount = 1).  Lookups take a reference with
 * ib_device_try_get() only on published devices.
 *
 * Unregistration is the reverse: unpublish (clear the mark), detach the
 * clients in reverse order, drop the registration reference and wait until
 * every ib_device_try_get() holder has let go, then tear down caches,
 * netdev references and sysfs, call ops.dealloc_driver, and only then
 * release the registry entry.  device->unregistration_lock serialises all
 * of this, so the netdev notifier, "rdma link del", module unload and
 * device removal can race freely: the first one unregisters, the others
 * wait for it and find nothing to do.
 *
 * Drivers that set ops.dealloc_driver hand the ib_device over to the core
 * on successful registration: whichever unregistration runs also frees it
 * (ib_dealloc_device()), and the driver must not call ib_dealloc_device()
 * itself afterwards.  Because the registry entry outlives dealloc_driver,
 * ib_unregister_driver() (module unload) returns only once no other
 * unregistration can still call into the driver.
 */
#include <linux/cgroup_rdma.h>
#include <linux/ethtool.h>
#include <linux/hashtable.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* Generic work queue of the RDMA stack, for clients and drivers. */
struct workqueue_struct *ib_wq;
EXPORT_SYMBOL_GPL(ib_wq);

/* CQ polling contexts IB_POLL_WORKQUEUE and IB_POLL_UNBOUND_WORKQUEUE. */
struct workqueue_struct *ib_comp_wq;
EXPORT_SYMBOL_GPL(ib_comp_wq);
struct workqueue_struct *ib_comp_unbound_wq;
EXPORT_SYMBOL_GPL(ib_comp_unbound_wq);

/* Runs ib_unregister_device_queued() requests. */
static struct workqueue_struct *ib_unreg_wq;

/*
 * Runs the dispatches of ib_dispatch_event(), one at a time, in the order
 * they were queued (ordered workqueue).
 */
static struct workqueue_struct *ib_event_wq;

/*
 * The registry.
 *
 * devices: every ib_device between name assignment in
 * ib_register_device() and the end of its unregistration, by
 * device->index.  DEVICE_REGISTERED marks the published ones: only those
 * are found by lookups and get clients.
 *
 * devices_rwsem protects the membership of @devices, the mark, device
 * names (uniqueness, rename) and next_device_index.  It is held for read
 * across the client add/remove loops so that a device cannot be
 * unpublished under a loop that has seen it.
 */
static DEFINE_XARRAY_FLAGS(devices, XA_FLAGS_ALLOC);
static DECLARE_RWSEM(devices_rwsem);
static u32 next_device_index;
#define DEVICE_REGISTERED XA_MARK_1

/*
 * clients: every ib_client between ib_register_client() and the end of
 * ib_unregister_client(), by client->client_id; ids only grow (cyclic
 * allocation), so index order is registration order.  CLIENT_REGISTERED
 * marks the clients new devices get.
 *
 * clients_rwsem protects the membership of @clients, the mark and
 * next_client_id.
 */
static DEFINE_XARRAY_FLAGS(clients, XA_FLAGS_ALLOC);
static DECLARE_RWSEM(clients_rwsem);
static u32 next_client_id;
#define CLIENT_REGISTERED XA_MARK_1

/*
 * device->client_data: the client's data by client_id, NULL allowed (an
 * XA_FLAGS_ALLOC array keeps NULL entries as reserved slots, so marks
 * work on them).  CLIENT_DATA_REGISTERED marks the clients whose add()
 * has completed and whose remove() has not started; it is changed under
 * device->client_data_rwsem held for write, and read under it for read.
 */
#define CLIENT_DATA_REGISTERED XA_MARK_1

/*
 * ndev_hash: ports bound to a net_device (port_data[].netdev non-NULL),
 * hashed by that net_device, for ib_device_get_by_netdev().  Readers walk
 * it under RCU.  ndev_hash_mutex serialises every binding change: it
 * protects the hash and port_data[].netdev (also written under the
 * port's netdev_lock, for readers that prefer it to RCU).  Binding
 * changes may sleep (they wait for RCU readers).
 */
static DEFINE_HASHTABLE(ndev_hash, 5);
static DEFINE_MUTEX(ndev_hash_mutex);

static void free_netdevs(struct ib_device *ib_dev);

/* ------------------------------------------------------------------ */
/* Printing                                                            */

/* printk() whose first argument is the KERN_<LEVEL> prefix. */
static __printf(1, 2) void printk_level_arg(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vprintk(format, args);
	va_end(args);
}

/*
 * "infiniband rxe0: ..." for devices of their own, "<driver> <parent>
 * mlx5_0: ..." for devices with a parent, as the stock stack prints.
 */
static void ibdev_vprintk(const char *level, const struct ib_device *ibdev,
			  const char *format, va_list *args)
{
	const char *name = ibdev ? dev_name(&ibdev->dev) : NULL;
	struct va_format vaf = { .fmt = format, .va = args };

	if (ibdev && ibdev->dev.parent)
		dev_printk(level, ibdev->dev.parent, "%s: %pV",
			   name ?: "(unnamed ib_device)", &vaf);
	else if (name)
		dev_printk(level, &ibdev->dev, "%pV", &vaf);
	else	/* no ib_device, or one not named yet (early registration) */
		printk_level_arg("%s%s: %pV", level,
				 ibdev ? "(unnamed ib_device)" : "(NULL ib_device)",
				 &vaf);
}

void ibdev_printk(const char *level, const struct ib_device *ibdev,
		  const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ibdev_vprintk(level, ibdev, format, &args);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_printk);

void ibdev_emerg(const struct ib_device *ibdev, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ibdev_vprintk(KERN_EMERG, ibdev, format, &args);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_emerg);

void ibdev_alert(const struct ib_device *ibdev, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ibdev_vprintk(KERN_ALERT, ibdev, format, &args);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_alert);

void ibdev_crit(const struct ib_device *ibdev, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ibdev_vprintk(KERN_CRIT, ibdev, format, &args);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_crit);

void ibdev_err(const struct ib_device *ibdev, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ibdev_vprintk(KERN_ERR, ibdev, format, &args);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_err);

void ibdev_warn(const struct ib_device *ibdev, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ibdev_vprintk(KERN_WARNING, ibdev, format, &args);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_warn);

void ibdev_notice(const struct ib_device *ibdev, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ibdev_vprintk(KERN_NOTICE, ibdev, format, &args);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_notice);

void ibdev_info(const struct ib_device *ibdev, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ibdev_vprintk(KERN_INFO, ibdev, format, &args);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_info);

/* ------------------------------------------------------------------ */
/* Allocation and release                                              */

static void ib_device_free_rcu(struct rcu_head *head)
{
	struct ib_device *device = container_of(head, struct ib_device,
						rcu_head);

	kfree(device->port_data);
	kfree(device);
}

/* The struct device release: the last put_device() of the ib_device. */
static void ib_device_release(struct device *dev)
{
	struct ib_device *device = container_of(dev, struct ib_device, dev);

	/* Each copes with what registration did not get to set up. */
	ib_device_release_hw_stats(device);
	rdma_counter_release(device);
	ib_cache_release_one(device);
	rdma_restrack_clean(device);

	xa_destroy(&device->compat_devs);
	xa_destroy(&device->client_data);
	mutex_destroy(&device->compat_devs_mutex);
	mutex_destroy(&device->unregistration_lock);

	/* ib_device_get_by_netdev() may still be looking at port_data. */
	call_rcu(&device->rcu_head, ib_device_free_rcu);
}

static int ib_device_uevent(struct device *dev, struct kobj_uevent_env *env)
{
	return add_uevent_var(env, "NAME=%s", dev_name(dev));
}

/*
 * The devices of the class, and their compat devices, are tagged with
 * their namespace: sysfs shows each in its own (netns.c).
 */
static const void *ib_device_namespace(struct device *dev)
{
	struct ib_core_device *coredev =
		container_of(dev, struct ib_core_device, dev);

	return read_pnet(&coredev->rdma_net);
}

struct class ib_class = {
	.name = "infiniband",
	.dev_uevent = ib_device_uevent,
	.ns_type = &net_ns_type_operations,
	.namespace = ib_device_namespace,
};

static void ib_unregistration_work(struct work_struct *work);

/**
 * _ib_alloc_device - allocate an ib_device embedded in a driver structure
 * @size: size of the driver structure, whose first member is the ib_device
 *
 * Use the ib_alloc_device() macro.  Free with ib_dealloc_device().
 */
struct ib_device *_ib_alloc_device(size_t size)
{
	struct ib_device *device;
	unsigned int i;

	if (WARN_ON(size < sizeof(struct ib_device)))
		return NULL;

	device = kzalloc(size, GFP_KERNEL);
	if (!device)
		return NULL;

	if (rdma_restrack_init(device)) {
		kfree(device);
		return NULL;
	}

	device->groups[0] = &ib_dev_attr_group;
	device->dev.groups = device->groups;
	device->dev.class = &ib_class;
	device->dev.release = ib_device_release;
	device_initialize(&device->dev);

	device->coredev.owner = device;
	INIT_LIST_HEAD(&device->coredev.port_list);
	write_pnet(&device->coredev.rdma_net, &init_net);

	INIT_LIST_HEAD(&device->event_handler_list);
	init_rwsem(&device->event_handler_rwsem);
	spin_lock_init(&device->qp_open_list_lock);
	init_rwsem(&device->client_data_rwsem);
	xa_init_flags(&device->client_data, XA_FLAGS_ALLOC);
	mutex_init(&device->unregistration_lock);
	rwlock_init(&device->cache_lock);

	spin_lock_init(&device->cq_pools_lock);
	for (i = 0; i < ARRAY_SIZE(device->cq_pools); i++)
		INIT_LIST_HEAD(&device->cq_pools[i]);

	init_completion(&device->unreg_completion);
	INIT_WORK(&device->unregistration_work, ib_unregistration_work);

	mutex_init(&device->compat_devs_mutex);
	xa_init(&device->compat_devs);

	return device;
}
EXPORT_SYMBOL(_ib_alloc_device);

/**
 * ib_dealloc_device - free an ib_device
 * @device: a device never registered, or unregistered by the driver
 *
 * Calls ops.dealloc_driver, then drops the allocation's reference; the
 * memory goes when the last reference (sysfs users, pending work) does.
 */
void ib_dealloc_device(struct ib_device *device)
{
	/* Registered devices must be unregistered first. */
	WARN_ON(refcount_read(&device->refcount));

	if (device->ops.dealloc_driver)
		device->ops.dealloc_driver(device);

	/*
	 * Never-registered devices may still hold net_devices: do not let a
	 * late release (sysfs users) keep them from going away.
	 */
	free_netdevs(device);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_dealloc_device);

/*
 * Everything in struct ib_device_ops that ib_set_device_ops() copies
 * when unset, as offsets in struct ib_device: pointers (function
 * pointers, the owner, the attribute groups), then object sizes.  The
 * scalars at its head (driver_id, uverbs_abi_ver, the bitfield) are
 * copied by name.
 *
 * The lists are ours: a member the target's header has and they lack
 * would silently never be installed, so the build checks their count
 * (below; core.rst says why).
 */
#define OPS_SLOT(member) offsetof(struct ib_device, ops.member)
static const size_t ib_ops_pointer_slots[] = {
	OPS_SLOT(owner),
	OPS_SLOT(device_group),
	OPS_SLOT(port_groups),
	OPS_SLOT(add_gid),
	OPS_SLOT(advise_mr),
	OPS_SLOT(alloc_dm),
	OPS_SLOT(alloc_hw_device_stats),
	OPS_SLOT(alloc_hw_port_stats),
	OPS_SLOT(alloc_mr),
	OPS_SLOT(alloc_mr_integrity),
	OPS_SLOT(alloc_mw),
	OPS_SLOT(alloc_pd),
	OPS_SLOT(alloc_rdma_netdev),
	OPS_SLOT(alloc_ucontext),
	OPS_SLOT(alloc_xrcd),
	OPS_SLOT(attach_mcast),
	OPS_SLOT(check_mr_status),
	OPS_SLOT(counter_alloc_stats),
	OPS_SLOT(counter_bind_qp),
	OPS_SLOT(counter_dealloc),
	OPS_SLOT(counter_unbind_qp),
	OPS_SLOT(counter_update_stats),
	OPS_SLOT(create_ah),
	OPS_SLOT(create_counters),
	OPS_SLOT(create_cq),
	OPS_SLOT(create_flow),
	OPS_SLOT(create_qp),
	OPS_SLOT(create_rwq_ind_table),
	OPS_SLOT(create_srq),
	OPS_SLOT(create_user_ah),
	OPS_SLOT(create_wq),
	OPS_SLOT(dealloc_dm),
	OPS_SLOT(dealloc_driver),
	OPS_SLOT(dealloc_mw),
	OPS_SLOT(dealloc_pd),
	OPS_SLOT(dealloc_ucontext),
	OPS_SLOT(dealloc_xrcd),
	OPS_SLOT(del_gid),
	OPS_SLOT(dereg_mr),
	OPS_SLOT(destroy_ah),
	OPS_SLOT(destroy_counters),
	OPS_SLOT(destroy_cq),
	OPS_SLOT(destroy_flow),
	OPS_SLOT(destroy_flow_action),
	OPS_SLOT(destroy_qp),
	OPS_SLOT(destroy_rwq_ind_table),
	OPS_SLOT(destroy_srq),
	OPS_SLOT(destroy_wq),
	OPS_SLOT(detach_mcast),
	OPS_SLOT(disassociate_ucontext),
	OPS_SLOT(drain_rq),
	OPS_SLOT(drain_sq),
	OPS_SLOT(enable_driver),
	OPS_SLOT(fill_res_cm_id_entry),
	OPS_SLOT(fill_res_cq_entry),
	OPS_SLOT(fill_res_cq_entry_raw),
	OPS_SLOT(fill_res_mr_entry),
	OPS_SLOT(fill_res_mr_entry_raw),
	OPS_SLOT(fill_res_qp_entry),
	OPS_SLOT(fill_res_qp_entry_raw),
	OPS_SLOT(fill_stat_mr_entry),
	OPS_SLOT(get_dev_fw_str),
	OPS_SLOT(get_dma_mr),
	OPS_SLOT(get_hw_stats),
	OPS_SLOT(get_link_layer),
	OPS_SLOT(get_netdev),
	OPS_SLOT(get_numa_node),
	OPS_SLOT(get_port_immutable),
	OPS_SLOT(get_vector_affinity),
	OPS_SLOT(get_vf_config),
	OPS_SLOT(get_vf_guid),
	OPS_SLOT(get_vf_stats),
	OPS_SLOT(iw_accept),
	OPS_SLOT(iw_add_ref),
	OPS_SLOT(iw_connect),
	OPS_SLOT(iw_create_listen),
	OPS_SLOT(iw_destroy_listen),
	OPS_SLOT(iw_get_qp),
	OPS_SLOT(iw_reject),
	OPS_SLOT(iw_rem_ref),
	OPS_SLOT(map_mr_sg),
	OPS_SLOT(map_mr_sg_pi),
	OPS_SLOT(mmap),
	OPS_SLOT(mmap_free),
	OPS_SLOT(modify_ah),
	OPS_SLOT(modify_cq),
	OPS_SLOT(modify_device),
	OPS_SLOT(modify_hw_stat),
	OPS_SLOT(modify_port),
	OPS_SLOT(modify_qp),
	OPS_SLOT(modify_srq),
	OPS_SLOT(modify_wq),
	OPS_SLOT(peek_cq),
	OPS_SLOT(poll_cq),
	OPS_SLOT(post_destroy_cq),
	OPS_SLOT(post_recv),
	OPS_SLOT(post_send),
	OPS_SLOT(post_srq_recv),
	OPS_SLOT(pre_destroy_cq),
	OPS_SLOT(process_mad),
	OPS_SLOT(query_ah),
	OPS_SLOT(query_device),
	OPS_SLOT(query_gid),
	OPS_SLOT(query_pkey),
	OPS_SLOT(query_port),
	OPS_SLOT(query_qp),
	OPS_SLOT(query_srq),
	OPS_SLOT(query_ucontext),
	OPS_SLOT(rdma_netdev_get_params),
	OPS_SLOT(read_counters),
	OPS_SLOT(reg_dm_mr),
	OPS_SLOT(reg_user_mr),
	OPS_SLOT(reg_user_mr_dmabuf),
	OPS_SLOT(req_notify_cq),
	OPS_SLOT(rereg_user_mr),
	OPS_SLOT(resize_cq),
	OPS_SLOT(set_vf_guid),
	OPS_SLOT(set_vf_link_state),
};

#define OPS_SIZE_SLOT(ib_struct) OPS_SLOT(size_##ib_struct)
static const size_t ib_ops_size_slots[] = {
	OPS_SIZE_SLOT(ib_ah),
	OPS_SIZE_SLOT(ib_counters),
	OPS_SIZE_SLOT(ib_cq),
	OPS_SIZE_SLOT(ib_mw),
	OPS_SIZE_SLOT(ib_pd),
	OPS_SIZE_SLOT(ib_qp),
	OPS_SIZE_SLOT(ib_rwq_ind_table),
	OPS_SIZE_SLOT(ib_srq),
	OPS_SIZE_SLOT(ib_ucontext),
	OPS_SIZE_SLOT(ib_xrcd),
};

#undef OPS_SIZE_SLOT
#undef OPS_SLOT

/*
 * Past the scalars at its head, struct ib_device_ops is nothing but the
 * listed members: its size is the head's plus one word per entry (but the
 * owner, which is in the head).  Members of a struct do not overlap, so a
 * member the lists lack (a new op of a new kernel) makes it larger and
 * this fails.  Not seen: a new scalar in the head's padding or a new bit
 * of its bitfield (not ops), nor an entry listed twice and another missed
 * (the lists are sorted, so a duplicate shows).
 */
#define OPS_HEAD_SIZE \
	(offsetof(struct ib_device, ops.device_group) - \
	 offsetof(struct ib_device, ops))
static_assert(offsetof(struct ib_device, ops.owner) ==
	      offsetof(struct ib_device, ops));
static_assert(sizeof_field(struct ib_device, ops) ==
	      OPS_HEAD_SIZE + sizeof(void *) *
	      (ARRAY_SIZE(ib_ops_pointer_slots) - 1 +
	       ARRAY_SIZE(ib_ops_size_slots)));
#undef OPS_HEAD_SIZE

/* The same member of a driver's ops table as @slot in struct ib_device. */
static const void *ops_member(const struct ib_device_ops *ops, size_t slot)
{
	return (const void *)ops + slot - offsetof(struct ib_device, ops);
}

/**
 * ib_set_device_ops - install a driver's operations
 * @dev: the device
 * @ops: operations table; only entries still unset in @dev are taken,
 *	 so a driver may layer several tables, the first one winning
 */
void ib_set_device_ops(struct ib_device *dev, const struct ib_device_ops *ops)
{
	unsigned int i;

	if (ops->driver_id != RDMA_DRIVER_UNKNOWN) {
		/* A device belongs to one driver. */
		WARN_ON(dev->ops.driver_id != RDMA_DRIVER_UNKNOWN &&
			dev->ops.driver_id != ops->driver_id);
		dev->ops.driver_id = ops->driver_id;
	}
	if (ops->uverbs_abi_ver && !dev->ops.uverbs_abi_ver)
		dev->ops.uverbs_abi_ver = ops->uverbs_abi_ver;
	if (ops->uverbs_no_driver_id_binding)
		dev->ops.uverbs_no_driver_id_binding = 1;

	for (i = 0; i < ARRAY_SIZE(ib_ops_pointer_slots); i++) {
		void **dst = (void *)dev + ib_ops_pointer_slots[i];
		void * const *src = ops_member(ops, ib_ops_pointer_slots[i]);

		if (*src && !*dst)
			*dst = *src;
	}

	for (i = 0; i < ARRAY_SIZE(ib_ops_size_slots); i++) {
		size_t *dst = (void *)dev + ib_ops_size_slots[i];
		const size_t *src = ops_member(ops, ib_ops_size_slots[i]);

		if (*src && !*dst)
			*dst = *src;
	}
}
EXPORT_SYMBOL(ib_set_device_ops);

/* ------------------------------------------------------------------ */
/* Ports                                                               */

/*
 * port_data is indexed by port number, so it has rdma_end_port() + 1
 * entries (entry 0 unused on CAs).  Drivers may bind netdevs before
 * registering, so this also runs from ib_device_set_netdev(), always from
 * the driver's own (single-threaded) setup.
 */
static int alloc_port_data(struct ib_device *device)
{
	struct ib_port_data *pdata;
	u32 port;

	if (device->port_data)
		return 0;

	/* Port numbers must also fit rdma_for_each_port()'s u32 iterator. */
	if (!device->is_switch &&
	    (!device->phys_port_cnt || device->phys_port_cnt == U32_MAX)) {
		ibdev_warn(device, "invalid port count %u\n",
			   device->phys_port_cnt);
		return -EINVAL;
	}

	pdata = kcalloc(rdma_end_port(device) + 1, sizeof(*pdata), GFP_KERNEL);
	if (!pdata)
		return -ENOMEM;

	device->port_data = pdata;
	rdma_for_each_port(device, port) {
		pdata = &device->port_data[port];
		pdata->ib_dev = device;
		spin_lock_init(&pdata->pkey_list_lock);
		spin_lock_init(&pdata->netdev_lock);
		INIT_LIST_HEAD(&pdata->pkey_list);
		INIT_HLIST_NODE(&pdata->ndev_hash_link);
		mutex_init(&pdata->port_counter.lock);
	}
	return 0;
}

static int setup_port_immutables(struct ib_device *device)
{
	struct ib_port_immutable *immutable;
	u32 port;
	int ret;

	rdma_for_each_port(device, port) {
		immutable = &device->port_data[port].immutable;
		ret = device->ops.get_port_immutable(device, port, immutable);
		if (ret) {
			ibdev_warn(device,
				   "get_port_immutable(%u) failed: %d\n",
				   port, ret);
			return ret;
		}
	}
	return 0;
}

const struct ib_port_immutable *
ib_port_immutable_read(struct ib_device *dev, unsigned int port)
{
	if (!rdma_is_port_valid(dev, port))
		return NULL;
	return &dev->port_data[port].immutable;
}
EXPORT_SYMBOL(ib_port_immutable_read);

static bool node_type_is_ib(u8 node_type)
{
	switch (node_type) {
	case RDMA_NODE_IB_CA:
	case RDMA_NODE_IB_SWITCH:
	case RDMA_NODE_IB_ROUTER:
		return true;
	default:
		return false;
	}
}

/**
 * rdma_node_get_transport - the transport a kind of node speaks
 * @node_type: an enum rdma_node_type
 *
 * Return: iWARP for RNICs, the usNIC transports for usNICs, unspecified
 * for an unspecified node, IB for everything else (IB and RoCE nodes).
 */
__attribute_const__ enum rdma_transport_type
rdma_node_get_transport(unsigned int node_type)
{
	switch (node_type) {
	case RDMA_NODE_RNIC:
		return RDMA_TRANSPORT_IWARP;
	case RDMA_NODE_USNIC:
		return RDMA_TRANSPORT_USNIC;
	case RDMA_NODE_USNIC_UDP:
		return RDMA_TRANSPORT_USNIC_UDP;
	case RDMA_NODE_UNSPECIFIED:
		return RDMA_TRANSPORT_UNSPECIFIED;
	default:
		return RDMA_TRANSPORT_IB;
	}
}
EXPORT_SYMBOL(rdma_node_get_transport);

enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device,
					      u32 port_num)
{
	if (device->ops.get_link_layer)
		return device->ops.get_link_layer(device, port_num);

	if (node_type_is_ib(device->node_type))
		return IB_LINK_LAYER_INFINIBAND;

	switch (device->node_type) {
	case RDMA_NODE_RNIC:
	case RDMA_NODE_USNIC:
	case RDMA_NODE_USNIC_UDP:
		return IB_LINK_LAYER_ETHERNET;
	default:
		return IB_LINK_LAYER_UNSPECIFIED;
	}
}
EXPORT_SYMBOL(rdma_port_get_link_layer);

/**
 * ib_query_port - query a port's attributes
 * @device: the device
 * @port_num: the port
 * @port_attr: filled in (zeroed first)
 *
 * On InfiniBand ports the subnet prefix comes from the GID cache when the
 * driver did not report one; Ethernet ports have no subnet.
 */
int ib_query_port(struct ib_device *device, u32 port_num,
		  struct ib_port_attr *port_attr)
{
	int ret;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	memset(port_attr, 0, sizeof(*port_attr));
	ret = device->ops.query_port(device, port_num, port_attr);
	if (ret || port_attr->subnet_prefix)
		return ret;

	if (rdma_port_get_link_layer(device, port_num) !=
	    IB_LINK_LAYER_INFINIBAND)
		return 0;

	/* Kept by cache.c from GID 0 of the port. */
	ib_get_cached_subnet_prefix(device, port_num,
				    &port_attr->subnet_prefix);
	return 0;
}
EXPORT_SYMBOL(ib_query_port);

int ib_query_pkey(struct ib_device *device, u32 port_num, u16 index,
		  u16 *pkey)
{
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	if (!device->ops.query_pkey)
		return -EOPNOTSUPP;

	return device->ops.query_pkey(device, port_num, index, pkey);
}
EXPORT_SYMBOL(ib_query_pkey);

/**
 * ib_find_pkey - find the index of a P_Key in a port's table
 * @device: the device
 * @port_num: the port
 * @pkey: P_Key to look for; the membership bit is ignored in the match
 * @index: where to store the index
 *
 * A full-membership entry is preferred over a limited one.
 */
int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey, u16 *index)
{
	int limited = -1;
	u16 entry;
	int i, ret;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	for (i = 0; i < device->port_data[port_num].immutable.pkey_tbl_len;
	     i++) {
		ret = ib_query_pkey(device, port_num, i, &entry);
		if (ret)
			return ret;
		if ((entry & 0x7fff) != (pkey & 0x7fff))
			continue;
		if (entry & 0x8000) {
			*index = i;
			return 0;
		}
		if (limited < 0)
			limited = i;
	}

	if (limited < 0)
		return -ENOENT;
	*index = limited;
	return 0;
}
EXPORT_SYMBOL(ib_find_pkey);

/**
 * ib_find_gid - find a GID on the InfiniBand ports of a device
 * @device: the device
 * @gid: the GID
 * @port_num: set to the port it is on
 * @index: set to its index in the port's table (optional)
 *
 * RoCE GIDs are only meaningful with their type and net_device: look them
 * up with rdma_find_gid() instead.
 */
int ib_find_gid(struct ib_device *device, union ib_gid *gid, u32 *port_num,
		u16 *index)
{
	union ib_gid entry;
	u32 port;
	int i;

	rdma_for_each_port(device, port) {
		if (!rdma_protocol_ib(device, port))
			continue;

		for (i = 0; i < device->port_data[port].immutable.gid_tbl_len;
		     i++) {
			if (rdma_query_gid(device, port, i, &entry) ||
			    memcmp(&entry, gid, sizeof(entry)))
				continue;
			*port_num = port;
			if (index)
				*index = i;
			return 0;
		}
	}
	return -ENOENT;
}
EXPORT_SYMBOL(ib_find_gid);

int ib_modify_device(struct ib_device *device, int device_modify_mask,
		     struct ib_device_modify *device_modify)
{
	if (!device->ops.modify_device)
		return -EOPNOTSUPP;

	return device->ops.modify_device(device, device_modify_mask,
					 device_modify);
}
EXPORT_SYMBOL(ib_modify_device);

int ib_modify_port(struct ib_device *device, u32 port_num,
		   int port_modify_mask, struct ib_port_modify *port_modify)
{
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	if (device->ops.modify_port)
		return device->ops.modify_port(device, port_num,
					       port_modify_mask, port_modify);

	/*
	 * RoCE ports have no port capability mask to program; the CM still
	 * announces IB_PORT_CM_SUP on every port, which is fine to accept.
	 */
	if (rdma_protocol_roce(device, port_num) &&
	    !(port_modify->set_port_cap_mask & ~IB_PORT_CM_SUP) &&
	    !(port_modify->clr_port_cap_mask & ~IB_PORT_CM_SUP))
		return 0;

	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_modify_port);

/* @str has room for IB_FW_VERSION_NAME_MAX characters. */
void ib_get_device_fw_str(struct ib_device *device, char *str)
{
	if (device->ops.get_dev_fw_str)
		device->ops.get_dev_fw_str(device, str);
	else
		str[0] = '\0';
}
EXPORT_SYMBOL(ib_get_device_fw_str);

/*
 * The IB speed and width a RoCE port reports for its net_device's link
 * speed (Mb/s): the closest IB rate not above it.
 */
static const struct {
	u32 max_mbps;
	u16 speed;
	u8 width;
} eth_speed_map[] = {
	{ SPEED_1000,	IB_SPEED_SDR,	IB_WIDTH_1X },	/*  2.5 Gb/s */
	{ SPEED_10000,	IB_SPEED_FDR10,	IB_WIDTH_1X },	/* 10   Gb/s */
	{ SPEED_20000,	IB_SPEED_DDR,	IB_WIDTH_4X },	/* 20   Gb/s */
	{ SPEED_25000,	IB_SPEED_EDR,	IB_WIDTH_1X },	/* 25   Gb/s */
	{ SPEED_40000,	IB_SPEED_FDR10,	IB_WIDTH_4X },	/* 40   Gb/s */
	{ U32_MAX,	IB_SPEED_EDR,	IB_WIDTH_4X },	/* 100  Gb/s */
};

/**
 * ib_get_eth_speed - IB speed and width of a RoCE port
 * @dev: the device
 * @port_num: the port
 * @speed: set to an enum ib_port_speed
 * @width: set to an enum ib_port_width
 *
 * Derived from the link speed of the port's net_device; when that is
 * unknown (virtual devices without ethtool link settings), 1 Gb/s is
 * assumed.
 */
int ib_get_eth_speed(struct ib_device *dev, u32 port_num, u16 *speed,
		     u8 *width)
{
	struct ethtool_link_ksettings lksettings;
	struct net_device *netdev;
	u32 mbps = SPEED_1000;
	unsigned int i;
	int ret;

	if (!rdma_is_port_valid(dev, port_num) ||
	    rdma_port_get_link_layer(dev, port_num) != IB_LINK_LAYER_ETHERNET)
		return -EINVAL;

	netdev = ib_device_get_netdev(dev, port_num);
	if (!netdev)
		return -ENODEV;

	rtnl_lock();
	ret = __ethtool_get_link_ksettings(netdev, &lksettings);
	rtnl_unlock();
	dev_put(netdev);

	if (!ret && lksettings.base.speed != (u32)SPEED_UNKNOWN)
		mbps = lksettings.base.speed;

	for (i = 0; i < ARRAY_SIZE(eth_speed_map) - 1; i++)
		if (mbps <= eth_speed_map[i].max_mbps)
			break;
	*speed = eth_speed_map[i].speed;
	*width = eth_speed_map[i].width;
	return 0;
}
EXPORT_SYMBOL(ib_get_eth_speed);

/* ------------------------------------------------------------------ */
/* Events                                                              */

/*
 * Asynchronous events are dispatched in two steps.  ib_dispatch_event()
 * may be called from any context (drivers report port changes from
 * interrupt handlers and under their spinlocks): it only copies the event
 * and queues it on ib_event_wq.  The work then refreshes the port's
 * caches when the event changes them (ib_cache_event_refresh()) and calls
 * the handlers of the device in process context, in registration order,
 * all under device->event_handler_rwsem held for read.  The refresh comes
 * first, as on stock: a handler reads the port state, P_Keys and GIDs the
 * event reports (IPoIB rereads its GID on an event).  The GID table's own
 * GID_CHANGE (ib_dispatch_cache_event()) is queued after the table
 * changed and refreshes nothing.
 *
 * - Order: ib_event_wq is ordered, so handlers see the events in the
 *   order they were dispatched, across all devices.
 * - Handler lifetime: the list is read when the work runs, not when the
 *   event is queued, and ib_unregister_event_handler() takes the rwsem
 *   for write: once it returns, no queued or running dispatch can call
 *   the handler.  Owners unregister their handlers before they go (the
 *   clients in remove(), the cache in ib_cache_cleanup_one()), so nothing
 *   else needs flushing at unregistration.
 * - Device lifetime: each queued event pins the device's memory (the
 *   list and rwsem live in it) with get_device() until its work is done.
 *   Only device and port events belong here: the element's QP, CQ, SRQ
 *   or WQ pointer would not be pinned.
 */
struct ib_event_work {
	struct work_struct work;
	struct ib_event event;
	/* A driver's event: refresh the caches before the handlers see it. */
	bool refresh;
};

void ib_register_event_handler(struct ib_event_handler *event_handler)
{
	struct ib_device *device = event_handler->device;

	down_write(&device->event_handler_rwsem);
	list_add_tail(&event_handler->list, &device->event_handler_list);
	up_write(&device->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_register_event_handler);

/*
 * On return, the handler is not running and will not run again, not even
 * for events dispatched before (see above).  Process context; not from
 * within a handler of the same device.
 */
void ib_unregister_event_handler(struct ib_event_handler *event_handler)
{
	struct ib_device *device = event_handler->device;

	down_write(&device->event_handler_rwsem);
	list_del(&event_handler->list);
	up_write(&device->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_unregister_event_handler);

static void ib_event_work_fn(struct work_struct *_work)
{
	struct ib_event_work *work =
		container_of(_work, struct ib_event_work, work);
	struct ib_device *device = work->event.device;
	struct ib_event_handler *handler;
	struct ib_event copy;

	down_read(&device->event_handler_rwsem);
	if (work->refresh && !ib_cache_event_refresh(&work->event))
		goto out;
	list_for_each_entry(handler, &device->event_handler_list, list) {
		/* Handlers take a mutable event; give each a fresh copy. */
		copy = work->event;
		handler->handler(handler, &copy);
	}
out:
	up_read(&device->event_handler_rwsem);

	put_device(&device->dev);
	kfree(work);
}

static void queue_event(const struct ib_event *event, bool refresh)
{
	struct ib_device *device = event->device;
	struct ib_event_work *work;

	/* A failure is lost, and reported by the allocator itself. */
	work = kmalloc(sizeof(*work), GFP_ATOMIC);
	if (!work)
		return;
	INIT_WORK(&work->work, ib_event_work_fn);
	work->event = *event;
	work->refresh = refresh;
	get_device(&device->dev);
	queue_work(ib_event_wq, &work->work);
}

/**
 * ib_dispatch_event - deliver an asynchronous event to the handlers
 * @event: a device or port event of a device the caller holds; copied
 *
 * Callable from any context, including hard interrupts and under
 * spinlocks: the handlers run later, in process context, in dispatch
 * order (see the comment above struct ib_event_work).
 *
 * The copy is allocated with GFP_ATOMIC.  If that fails the event is
 * dropped (the allocator logs the failure): handlers then miss it, and
 * the port caches stay stale until the next event of the port.
 */
void ib_dispatch_event(const struct ib_event *event)
{
	queue_event(event, true);
}
EXPORT_SYMBOL(ib_dispatch_event);

void ib_dispatch_cache_event(const struct ib_event *event)
{
	queue_event(event, false);
}

/* ------------------------------------------------------------------ */
/* Netdev binding                                                      */

/*
 * Change the net_device bound to a port, keeping ndev_hash in step.
 * Returns the previous one, whose reference now belongs to the caller.
 */
static struct net_device *rebind_port(struct ib_port_data *pdata,
				      struct net_device *ndev)
{
	struct hlist_node *link = &pdata->ndev_hash_link;
	struct net_device *old;

	lockdep_assert_held(&ndev_hash_mutex);

	old = rcu_dereference_protected(pdata->netdev,
					lockdep_is_held(&ndev_hash_mutex));
	if (old == ndev)
		return NULL;

	if (ndev)
		dev_hold(ndev);
	hlist_del_init_rcu(link);
	spin_lock(&pdata->netdev_lock);
	rcu_assign_pointer(pdata->netdev, ndev);
	spin_unlock(&pdata->netdev_lock);
	if (!ndev)
		return old;

	/*
	 * A reader still on this node in its former chain would be carried
	 * into the new one and miss the rest of the former: let it finish.
	 * (A node that was last in its chain, or never hashed, has no next.)
	 */
	if (link->next)
		synchronize_rcu();
	hash_add_rcu(ndev_hash, link, (uintptr_t)ndev);
	return old;
}

/*
 * Drop the reference a port held on @old once no RCU reader can still
 * take one of its own from port_data[].netdev: the net_device may be
 * waiting for its last reference to go away.
 */
static void put_unbound_netdev(struct net_device *old)
{
	if (!old)
		return;
	synchronize_rcu();
	dev_put(old);
}

/**
 * ib_device_set_netdev - bind a port to a net_device
 * @ib_dev: the device (registered or not yet)
 * @ndev: the net_device, or NULL to unbind
 * @port: the port
 *
 * The port holds a reference on @ndev until it is unbound or the device
 * is unregistered.  Process context.
 */
int ib_device_set_netdev(struct ib_device *ib_dev, struct net_device *ndev,
			 unsigned int port)
{
	struct net_device *old;
	int ret;

	if (!rdma_is_port_valid(ib_dev, port))
		return -EINVAL;

	ret = alloc_port_data(ib_dev);
	if (ret)
		return ret;

	mutex_lock(&ndev_hash_mutex);
	old = rebind_port(&ib_dev->port_data[port], ndev);
	mutex_unlock(&ndev_hash_mutex);

	put_unbound_netdev(old);
	return 0;
}
EXPORT_SYMBOL(ib_device_set_netdev);

/*
 * Drop every port's net_device reference: unregistration, and
 * ib_dealloc_device() for devices that never got that far.
 */
static void free_netdevs(struct ib_device *ib_dev)
{
	struct net_device *old;
	u32 port;

	if (!ib_dev->port_data)
		return;

	rdma_for_each_port(ib_dev, port) {
		mutex_lock(&ndev_hash_mutex);
		old = rebind_port(&ib_dev->port_data[port], NULL);
		mutex_unlock(&ndev_hash_mutex);

		put_unbound_netdev(old);
	}
}

/**
 * ib_device_get_netdev - the net_device bound to a port
 * @ib_dev: the device
 * @port: the port
 *
 * Returns it with a reference (dev_put() it), or NULL when the port has
 * none or it is being unregistered.
 */
struct net_device *ib_device_get_netdev(struct ib_device *ib_dev, u32 port)
{
	struct ib_port_data *pdata;
	struct net_device *ndev;

	if (!rdma_is_port_valid(ib_dev, port) || !ib_dev->port_data)
		return NULL;

	if (ib_dev->ops.get_netdev) {
		ndev = ib_dev->ops.get_netdev(ib_dev, port);
	} else {
		pdata = &ib_dev->port_data[port];
		rcu_read_lock();
		ndev = rcu_dereference(pdata->netdev);
		if (ndev)
			dev_hold(ndev);
		rcu_read_unlock();
	}

	/* A dying net_device is as good as none to our users. */
	if (ndev && ndev->reg_state >= NETREG_UNREGISTERING) {
		dev_put(ndev);
		return NULL;
	}
	return ndev;
}

/**
 * ib_device_get_by_netdev - the registered device a net_device is bound to
 * @ndev: the net_device
 * @driver_id: only devices of this driver, or RDMA_DRIVER_UNKNOWN for any
 *
 * Returns the device with a registration reference (ib_device_put()).
 */
struct ib_device *ib_device_get_by_netdev(struct net_device *ndev,
					  enum rdma_driver_id driver_id)
{
	struct ib_device *found = NULL;
	struct ib_port_data *pdata;

	rcu_read_lock();
	hash_for_each_possible_rcu(ndev_hash, pdata, ndev_hash_link,
				   (uintptr_t)ndev) {
		if (rcu_access_pointer(pdata->netdev) != ndev)
			continue;
		if (driver_id != RDMA_DRIVER_UNKNOWN &&
		    pdata->ib_dev->ops.driver_id != driver_id)
			continue;
		if (ib_device_try_get(pdata->ib_dev)) {
			found = pdata->ib_dev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL(ib_device_get_by_netdev);

/* ------------------------------------------------------------------ */
/* Lookups                                                             */

void ib_device_put(struct ib_device *device)
{
	if (refcount_dec_and_test(&device->refcount))
		complete(&device->unreg_completion);
}
EXPORT_SYMBOL(ib_device_put);

/* Any device in the registry, published or not, named @name. */
static struct ib_device *find_device_by_name(const char *name)
{
	struct ib_device *device;
	unsigned long index;

	lockdep_assert_held(&devices_rwsem);

	xa_for_each(&devices, index, device)
		if (!strcmp(name, dev_name(&device->dev)))
			return device;
	return NULL;
}

/**
 * ib_device_get_by_name - find a registered device by name
 * @name: the device name
 * @driver_id: only a device of this driver, or RDMA_DRIVER_UNKNOWN for any
 *
 * Returns the device with a registration reference (ib_device_put()).
 */
struct ib_device *ib_device_get_by_name(const char *name,
					enum rdma_driver_id driver_id)
{
	struct ib_device *device;

	down_read(&devices_rwsem);
	device = find_device_by_name(name);
	if (device &&
	    (!xa_get_mark(&devices, device->index, DEVICE_REGISTERED) ||
	     (driver_id != RDMA_DRIVER_UNKNOWN &&
	      device->ops.driver_id != driver_id) ||
	     !ib_device_try_get(device)))
		device = NULL;
	up_read(&devices_rwsem);
	return device;
}
EXPORT_SYMBOL(ib_device_get_by_name);

struct ib_device *ib_device_get_by_index(const struct net *net, u32 index)
{
	struct ib_device *device;

	down_read(&devices_rwsem);
	device = xa_load(&devices, index);
	if (device &&
	    (!xa_get_mark(&devices, index, DEVICE_REGISTERED) ||
	     !rdma_dev_access_netns(device, net) ||
	     !ib_device_try_get(device)))
		device = NULL;
	up_read(&devices_rwsem);
	return device;
}

struct ib_device *ib_device_get_next(const struct net *net,
				     unsigned long *index)
{
	struct ib_device *device;

	down_read(&devices_rwsem);
	for (device = xa_find(&devices, index, ULONG_MAX, DEVICE_REGISTERED);
	     device;
	     device = xa_find_after(&devices, index, ULONG_MAX,
				    DEVICE_REGISTERED)) {
		if ((!net || rdma_dev_access_netns(device, net)) &&
		    ib_device_try_get(device))
			break;
	}
	up_read(&devices_rwsem);
	return device;
}

/**
 * ib_devices_walk_published - call @fn on every published device
 * @fn: the function; it may sleep, and must not take devices_rwsem
 * @data: its second argument
 *
 * Under devices_rwsem held for read: a device being unpublished waits
 * until @fn has returned for it, and once unpublished is never passed.
 */
void ib_devices_walk_published(void (*fn)(struct ib_device *, void *),
			       void *data)
{
	struct ib_device *device;
	unsigned long index;

	down_read(&devices_rwsem);
	xa_for_each_marked(&devices, index, device, DEVICE_REGISTERED)
		fn(device, data);
	up_read(&devices_rwsem);
}

/**
 * ib_device_next_pinned - iterate over the registry without its lock
 * @index: where to start; set to the device's index
 *
 * Returns the device in the registry (published or not) with the lowest
 * index >= *index, its memory pinned with get_device(), or NULL at the
 * end.  Resume with *index + 1.
 */
struct ib_device *ib_device_next_pinned(unsigned long *index)
{
	struct ib_device *device;

	down_read(&devices_rwsem);
	device = xa_find(&devices, index, ULONG_MAX, XA_PRESENT);
	if (device)
		get_device(&device->dev);
	up_read(&devices_rwsem);
	return device;
}

/* ------------------------------------------------------------------ */
/* Clients                                                             */

static void ib_client_put(struct ib_client *client)
{
	if (refcount_dec_and_test(&client->uses))
		complete(&client->uses_zero);
}

/*
 * Attach @client to @device unless it already is: concurrent client and
 * device registration may both try.  A client whose add() fails simply
 * does not use this device.
 */
static int add_client_context(struct ib_device *device,
			      struct ib_client *client)
{
	int ret = 0;

	if (!device->kverbs_provider && !client->no_kverbs_req)
		return 0;

	down_write(&device->client_data_rwsem);
	if (xa_get_mark(&device->client_data, client->client_id,
			CLIENT_DATA_REGISTERED))
		goto out_unlock;
	/* Held while the client is on the device, see ib_unregister_client(). */
	if (!refcount_inc_not_zero(&client->uses))
		goto out_unlock;

	ret = xa_err(xa_store(&device->client_data, client->client_id, NULL,
			      GFP_KERNEL));
	if (ret)
		goto err_put;

	/*
	 * Readers may go on; writers (a second add, the removal) wait
	 * until add() has finished and the client is marked.
	 */
	downgrade_write(&device->client_data_rwsem);
	if (client->add && client->add(device)) {
		xa_erase(&device->client_data, client->client_id);
		up_read(&device->client_data_rwsem);
		ib_client_put(client);
		return 0;
	}
	xa_set_mark(&device->client_data, client->client_id,
		    CLIENT_DATA_REGISTERED);
	up_read(&device->client_data_rwsem);
	return 0;

err_put:
	ib_client_put(client);
out_unlock:
	up_write(&device->client_data_rwsem);
	return ret;
}

static void remove_client_context(struct ib_device *device,
				  struct ib_client *client)
{
	void *client_data;

	down_write(&device->client_data_rwsem);
	if (!xa_get_mark(&device->client_data, client->client_id,
			 CLIENT_DATA_REGISTERED)) {
		up_write(&device->client_data_rwsem);
		return;
	}
	client_data = xa_load(&device->client_data, client->client_id);
	xa_clear_mark(&device->client_data, client->client_id,
		      CLIENT_DATA_REGISTERED);
	up_write(&device->client_data_rwsem);

	/* ib_get_client_data() keeps working inside remove(). */
	if (client->remove)
		client->remove(device, client_data);

	xa_erase(&device->client_data, client->client_id);
	ib_client_put(client);
}

/* The most recently registered client still attached to @device. */
static struct ib_client *last_client_of(struct ib_device *device)
{
	struct ib_client *client, *last = NULL;
	unsigned long index;

	down_read(&clients_rwsem);
	xa_for_each(&clients, index, client)
		if (xa_get_mark(&device->client_data, index,
				CLIENT_DATA_REGISTERED))
			last = client;
	up_read(&clients_rwsem);
	return last;
}

/*
 * Detach all clients, newest first.  Each attached client holds a use
 * count, so it stays in @clients until we have removed it.
 */
static void remove_clients(struct ib_device *device)
{
	struct ib_client *client;

	while ((client = last_client_of(device)))
		remove_client_context(device, client);
}

/**
 * ib_register_client - register a client of every RDMA device
 * @client: the client; add() is called for every registered device now
 *	    and every device registered later, remove() when either goes
 *
 * Clients are added to a device in registration order and removed in the
 * reverse order.
 */
int ib_register_client(struct ib_client *client)
{
	struct ib_device *device;
	unsigned long index;
	int ret;

	refcount_set(&client->uses, 1);
	init_completion(&client->uses_zero);

	down_write(&clients_rwsem);
	ret = xa_alloc_cyclic(&clients, &client->client_id, client,
			      xa_limit_31b, &next_client_id, GFP_KERNEL);
	if (ret < 0) {
		up_write(&clients_rwsem);
		return ret;
	}
	xa_set_mark(&clients, client->client_id, CLIENT_REGISTERED);
	up_write(&clients_rwsem);

	down_read(&devices_rwsem);
	xa_for_each_marked(&devices, index, device, DEVICE_REGISTERED) {
		ret = add_client_context(device, client);
		if (ret)
			break;
	}
	up_read(&devices_rwsem);

	if (ret) {
		ib_unregister_client(client);
		return ret;
	}
	return 0;
}
EXPORT_SYMBOL(ib_register_client);

/**
 * ib_unregister_client - unregister a client
 * @client: the client
 *
 * On return remove() has been called on every device the client was
 * added to, and no add() or remove() is running.
 */
void ib_unregister_client(struct ib_client *client)
{
	struct ib_device *device;
	unsigned long index;

	/* No new device gets the client once the mark is gone. */
	down_write(&clients_rwsem);
	xa_clear_mark(&clients, client->client_id, CLIENT_REGISTERED);
	up_write(&clients_rwsem);

	/* Devices being unregistered remove the client themselves. */
	down_read(&devices_rwsem);
	xa_for_each_marked(&devices, index, device, DEVICE_REGISTERED)
		remove_client_context(device, client);
	up_read(&devices_rwsem);

	ib_client_put(client);
	wait_for_completion(&client->uses_zero);

	down_write(&clients_rwsem);
	xa_erase(&clients, client->client_id);
	up_write(&clients_rwsem);
}
EXPORT_SYMBOL(ib_unregister_client);

/**
 * ib_set_client_data - set a client's data on a device
 * @device: the device
 * @client: the client, attached to @device (call from add() or while the
 *	    client is registered on the device)
 * @data: what ib_get_client_data() will return
 */
void ib_set_client_data(struct ib_device *device, struct ib_client *client,
			void *data)
{
	/* The slot exists while the client is attached: no allocation. */
	WARN_ON(xa_is_err(xa_store(&device->client_data, client->client_id,
				   data, GFP_KERNEL)));
}
EXPORT_SYMBOL(ib_set_client_data);

/**
 * ib_get_net_dev_by_params - the net_device a client runs over a port
 * @dev: the device
 * @port: the port
 * @pkey: P_Key the net_device uses
 * @gid: a GID the net_device uses
 * @addr: an IP address of the net_device
 *
 * Asks the clients with get_net_dev_by_params() (e.g. IPoIB); returns the
 * net_device with a reference, or NULL.
 */
struct net_device *ib_get_net_dev_by_params(struct ib_device *dev, u32 port,
					    u16 pkey, const union ib_gid *gid,
					    const struct sockaddr *addr)
{
	struct net_device *net_dev = NULL;
	struct ib_client *client;
	unsigned long index;

	if (!rdma_protocol_ib(dev, port))
		return NULL;

	down_read(&clients_rwsem);
	down_read(&dev->client_data_rwsem);
	xa_for_each(&clients, index, client) {
		if (!client->get_net_dev_by_params ||
		    !xa_get_mark(&dev->client_data, index,
				 CLIENT_DATA_REGISTERED))
			continue;
		net_dev = client->get_net_dev_by_params(dev, port, pkey, gid,
							addr,
							xa_load(&dev->client_data,
								index));
		if (net_dev)
			break;
	}
	up_read(&dev->client_data_rwsem);
	up_read(&clients_rwsem);
	return net_dev;
}
EXPORT_SYMBOL(ib_get_net_dev_by_params);

/*
 * The answer names res->cdev, which belongs to the client's data for the
 * device (or to the client itself): the client's remove_one() or its
 * unregistration frees it once it holds client_data_rwsem or
 * clients_rwsem for write.  The reference for the caller is therefore
 * taken while both are still held for read, never after.
 */
static int client_nl_info_hold(int ret, struct ib_client_nl_info *res)
{
	if (ret)
		return ret;
	if (WARN_ON(!res->cdev))
		return -EINVAL;
	get_device(res->cdev);
	return 0;
}

static int __ib_get_client_nl_info(struct ib_device *ibdev,
				   const char *client_name,
				   struct ib_client_nl_info *res)
{
	struct ib_client *client;
	unsigned long index;
	int ret = -ENOENT;

	down_read(&clients_rwsem);
	xa_for_each_marked(&clients, index, client, CLIENT_REGISTERED) {
		if (strcmp(client->name, client_name))
			continue;

		if (!ibdev) {
			if (client->get_global_nl_info)
				ret = client->get_global_nl_info(res);
			else
				ret = -EOPNOTSUPP;
			ret = client_nl_info_hold(ret, res);
			break;
		}

		down_read(&ibdev->client_data_rwsem);
		if (client->get_nl_info &&
		    xa_get_mark(&ibdev->client_data, index,
				CLIENT_DATA_REGISTERED))
			ret = client->get_nl_info(ibdev,
						  xa_load(&ibdev->client_data,
							  index),
						  res);
		else
			ret = -EOPNOTSUPP;
		ret = client_nl_info_hold(ret, res);
		up_read(&ibdev->client_data_rwsem);
		break;
	}
	up_read(&clients_rwsem);
	return ret;
}

int ib_get_client_nl_info(struct ib_device *ibdev, const char *client_name,
			  struct ib_client_nl_info *res)
{
	int ret;

	ret = __ib_get_client_nl_info(ibdev, client_name, res);
	if (ret == -ENOENT) {
		request_module("rdma-client-%s", client_name);
		ret = __ib_get_client_nl_info(ibdev, client_name, res);
	}
	return ret == -ENOENT ? -EOPNOTSUPP : ret;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

/*
 * A usable device name or name template: non-empty, fits name[], not "."
 * or "..", no '/', and '%' only as the single "%d" of a template.
 * Returns the position of "%d", or NULL for a plain name, or an ERR_PTR.
 */
static const char *check_device_name(const char *name)
{
	const char *pct;

	if (!name[0] || strnlen(name, IB_DEVICE_NAME_MAX) == IB_DEVICE_NAME_MAX ||
	    !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/'))
		return ERR_PTR(-EINVAL);

	pct = strchr(name, '%');
	if (pct && (pct[1] != 'd' || strchr(pct + 2, '%')))
		return ERR_PTR(-EINVAL);
	return pct;
}

/* Instantiate a "%d" template with the lowest unused number. */
static int expand_name_template(const char *tmpl, const char *pct,
				char *buf)
{
	unsigned long count = 0, index, n;
	struct ib_device *device;
	int len;

	lockdep_assert_held(&devices_rwsem);

	/* Among count + 1 candidates, one is free. */
	xa_for_each(&devices, index, device)
		count++;

	for (n = 0; n <= count; n++) {
		len = snprintf(buf, IB_DEVICE_NAME_MAX, "%.*s%lu%s",
			       (int)(pct - tmpl), tmpl, n, pct + 2);
		if (len >= IB_DEVICE_NAME_MAX)
			return -EINVAL;
		if (!find_device_by_name(buf))
			return 0;
	}
	return -ENFILE;
}

/*
 * Give the device its name and registry index (unpublished).  An explicit
 * name already in use fails with -ENFILE, as the stock stack does.
 */
static int assign_name_and_index(struct ib_device *device, const char *name)
{
	char buf[IB_DEVICE_NAME_MAX];
	const char *pct;
	int ret;

	pct = check_device_name(name);
	if (IS_ERR(pct))
		return PTR_ERR(pct);

	down_write(&devices_rwsem);
	if (pct) {
		ret = expand_name_template(name, pct, buf);
		if (ret)
			goto out;
	} else {
		if (find_device_by_name(name)) {
			ret = -ENFILE;
			goto out;
		}
		strscpy(buf, name, sizeof(buf));
	}

	ret = dev_set_name(&device->dev, "%s", buf);
	if (ret)
		goto out;
	strscpy(device->name, buf, sizeof(device->name));

	ret = xa_alloc_cyclic(&devices, &device->index, device, xa_limit_31b,
			      &next_device_index, GFP_KERNEL);
	ret = ret < 0 ? ret : 0;
out:
	up_write(&devices_rwsem);
	return ret;
}

static void release_index(struct ib_device *device)
{
	down_write(&devices_rwsem);
	xa_erase(&devices, device->index);
	up_write(&devices_rwsem);
}

int ib_device_rename(struct ib_device *ibdev, const char *name)
{
	struct ib_client *client;
	unsigned long index;
	const char *pct;
	int ret;

	pct = check_device_name(name);
	if (IS_ERR(pct))
		return PTR_ERR(pct);
	if (pct)
		return -EINVAL;

	down_write(&devices_rwsem);
	if (!xa_get_mark(&devices, ibdev->index, DEVICE_REGISTERED)) {
		ret = -ENODEV;
		goto out_unlock;
	}
	if (!strcmp(name, dev_name(&ibdev->dev))) {
		ret = 0;
		goto out_unlock;
	}
	if (find_device_by_name(name)) {
		ret = -EEXIST;
		goto out_unlock;
	}
	ret = device_rename(&ibdev->dev, name);
	if (ret)
		goto out_unlock;
	strscpy(ibdev->name, name, sizeof(ibdev->name));
	ib_compat_devs_rename(ibdev);

	/* Keep the device published while clients hear about it. */
	downgrade_write(&devices_rwsem);
	down_read(&clients_rwsem);
	down_read(&ibdev->client_data_rwsem);
	xa_for_each_marked(&clients, index, client, CLIENT_REGISTERED) {
		if (client->rename &&
		    xa_get_mark(&ibdev->client_data, index,
				CLIENT_DATA_REGISTERED))
			client->rename(ibdev, xa_load(&ibdev->client_data,
						      index));
	}
	up_read(&ibdev->client_data_rwsem);
	up_read(&clients_rwsem);
	up_read(&devices_rwsem);
	return 0;

out_unlock:
	up_write(&devices_rwsem);
	return ret;
}

int ib_device_set_dim(struct ib_device *ibdev, u8 use_dim)
{
	if (use_dim > 1)
		return -EINVAL;
	ibdev->use_cq_dim = use_dim;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Registration                                                        */

static int check_mandatory_ops(struct ib_device *device)
{
#define MANDATORY(name) { offsetof(struct ib_device, ops.name), #name }
	static const struct {
		size_t offset;
		const char *name;
	} mandatory[] = {
		MANDATORY(query_device),
		MANDATORY(query_port),
		MANDATORY(alloc_pd),
		MANDATORY(dealloc_pd),
		MANDATORY(create_qp),
		MANDATORY(modify_qp),
		MANDATORY(destroy_qp),
		MANDATORY(post_send),
		MANDATORY(post_recv),
		MANDATORY(create_cq),
		MANDATORY(destroy_cq),
		MANDATORY(poll_cq),
		MANDATORY(req_notify_cq),
		MANDATORY(get_dma_mr),
		MANDATORY(reg_user_mr),
		MANDATORY(dereg_mr),
		MANDATORY(get_port_immutable),
	};
#undef MANDATORY
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mandatory); i++) {
		if (!*(void **)((void *)device + mandatory[i].offset)) {
			ibdev_warn(device, "driver lacks mandatory op %s\n",
				   mandatory[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

#ifdef CONFIG_INFINIBAND_VIRT_DMA
/**
 * ib_dma_virt_map_sg - "map" a scatterlist for a device without DMA
 * @dev: a device using virtual DMA (ib_uses_virt_dma())
 * @sg: the scatterlist
 * @nents: its number of entries
 *
 * Such devices (software RDMA) reach the memory through the kernel's own
 * mapping, so each entry's DMA address is its kernel virtual address.
 *
 * Return: @nents.
 */
int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg,
		       int nents)
{
	struct scatterlist *entry;
	int i;

	for_each_sg(sg, entry, nents, i) {
		sg_dma_address(entry) = (uintptr_t)sg_virt(entry);
		sg_dma_len(entry) = entry->length;
	}
	return nents;
}
EXPORT_SYMBOL(ib_dma_virt_map_sg);
#endif

/*
 * A NULL @dma_device means the driver does no DMA itself (software
 * devices): the ib_dma_* helpers then work on kernel virtual addresses.
 */
static int setup_dma_device(struct ib_device *device,
			    struct device *dma_device)
{
	if (!dma_device) {
		if (!IS_ENABLED(CONFIG_INFINIBAND_VIRT_DMA))
			return -EINVAL;
		device->dma_device = NULL;
		return 0;
	}

	device->dma_device = dma_device;
	return 0;
}

/*
 * The write() commands ib_uverbs serves for every device, whatever the
 * driver asked for: the driver's uverbs_cmd_mask only adds to them (the
 * data path commands, which most providers do in user space).
 */
static void set_default_uverbs_cmds(struct ib_device *device)
{
	device->uverbs_cmd_mask |=
		BIT_ULL(IB_USER_VERBS_CMD_GET_CONTEXT) |
		BIT_ULL(IB_USER_VERBS_CMD_QUERY_DEVICE) |
		BIT_ULL(IB_USER_VERBS_CMD_QUERY_PORT) |
		BIT_ULL(IB_USER_VERBS_CMD_ALLOC_PD) |
		BIT_ULL(IB_USER_VERBS_CMD_DEALLOC_PD) |
		BIT_ULL(IB_USER_VERBS_CMD_CREATE_AH) |
		BIT_ULL(IB_USER_VERBS_CMD_DESTROY_AH) |
		BIT_ULL(IB_USER_VERBS_CMD_REG_MR) |
		BIT_ULL(IB_USER_VERBS_CMD_REREG_MR) |
		BIT_ULL(IB_USER_VERBS_CMD_DEREG_MR) |
		BIT_ULL(IB_USER_VERBS_CMD_ALLOC_MW) |
		BIT_ULL(IB_USER_VERBS_CMD_DEALLOC_MW) |
		BIT_ULL(IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL) |
		BIT_ULL(IB_USER_VERBS_CMD_CREATE_CQ) |
		BIT_ULL(IB_USER_VERBS_CMD_RESIZE_CQ) |
		BIT_ULL(IB_USER_VERBS_CMD_DESTROY_CQ) |
		BIT_ULL(IB_USER_VERBS_CMD_CREATE_QP) |
		BIT_ULL(IB_USER_VERBS_CMD_QUERY_QP) |
		BIT_ULL(IB_USER_VERBS_CMD_MODIFY_QP) |
		BIT_ULL(IB_USER_VERBS_CMD_DESTROY_QP) |
		BIT_ULL(IB_USER_VERBS_CMD_ATTACH_MCAST) |
		BIT_ULL(IB_USER_VERBS_CMD_DETACH_MCAST) |
		BIT_ULL(IB_USER_VERBS_CMD_CREATE_SRQ) |
		BIT_ULL(IB_USER_VERBS_CMD_MODIFY_SRQ) |
		BIT_ULL(IB_USER_VERBS_CMD_QUERY_SRQ) |
		BIT_ULL(IB_USER_VERBS_CMD_DESTROY_SRQ) |
		BIT_ULL(IB_USER_VERBS_CMD_OPEN_XRCD) |
		BIT_ULL(IB_USER_VERBS_CMD_CLOSE_XRCD) |
		BIT_ULL(IB_USER_VERBS_CMD_CREATE_XSRQ) |
		BIT_ULL(IB_USER_VERBS_CMD_OPEN_QP);
}

static int query_device_attrs(struct ib_device *device)
{
	struct ib_udata uhw = {};
	int ret;

	memset(&device->attrs, 0, sizeof(device->attrs));
	ret = device->ops.query_device(device, &device->attrs, &uhw);
	if (ret)
		ibdev_warn(device, "query_device failed: %d\n", ret);
	return ret;
}

/* Everything a device needs before it gets a name. */
static int setup_device(struct ib_device *device, struct device *dma_device)
{
	int ret;

	ret = check_mandatory_ops(device);
	if (ret)
		return ret;
	device->kverbs_provider = true;

	ret = setup_dma_device(device, dma_device);
	if (ret)
		return ret;

	set_default_uverbs_cmds(device);

	ret = alloc_port_data(device);
	if (ret)
		return ret;

	ret = setup_port_immutables(device);
	if (ret)
		return ret;

	ret = query_device_attrs(device);
	if (ret)
		return ret;

	device->groups[1] = device->ops.device_group;
	return 0;
}

/*
 * Take a published device out of use: unpublish it, remove its clients
 * (their users go: ib_uverbs disassociates its files) and wait until no
 * registration reference is left.  What the device is stays: the common
 * part of an unregistration and of a move to another namespace.
 */
static void disable_device(struct ib_device *device)
{
	lockdep_assert_held(&device->unregistration_lock);

	/*
	 * Unpublish: no new lookups, no new clients; and once this lock
	 * is ours, no namespace walk is adding a compat device (netns.c).
	 */
	down_write(&devices_rwsem);
	xa_clear_mark(&devices, device->index, DEVICE_REGISTERED);
	up_write(&devices_rwsem);

	remove_clients(device);
	/* The clients gave their shared CQs' entries back. */
	ib_cq_pool_cleanup(device);

	/* Drop the registration reference and wait for everybody else's. */
	ib_device_put(device);
	wait_for_completion(&device->unreg_completion);

	ib_compat_devs_remove(device);
}

/*
 * Tear down a published device: the common part of every unregistration
 * and of a registration failing after publication.  The device keeps its
 * registry entry (unpublished): the caller releases it, see
 * __ib_unregister_device().
 */
static void unregister_locked(struct ib_device *device)
{
	lockdep_assert_held(&device->unregistration_lock);

	disable_device(device);

	ib_cache_cleanup_one(device);
	free_netdevs(device);
	ib_free_port_attrs(&device->coredev);
	device_del(&device->dev);
	rdmacg_unregister_device(&device->cg_device);
}

/*
 * Publish the device and attach the clients.  The caller holds
 * unregistration_lock, so a concurrent unregistration waits until we are
 * done (or have undone it).
 */
static int enable_device(struct ib_device *device)
{
	struct ib_client *client;
	unsigned long index;
	int ret = 0;

	lockdep_assert_held(&device->unregistration_lock);

	down_write(&devices_rwsem);
	/* A moved device was disabled, and waited for, before. */
	reinit_completion(&device->unreg_completion);
	refcount_set(&device->refcount, 1);
	xa_set_mark(&devices, device->index, DEVICE_REGISTERED);
	/* Stay published (and readable) until the clients are attached. */
	downgrade_write(&devices_rwsem);

	if (device->ops.enable_driver) {
		ret = device->ops.enable_driver(device);
		if (ret)
			goto out;
	}

	down_read(&clients_rwsem);
	xa_for_each_marked(&clients, index, client, CLIENT_REGISTERED) {
		ret = add_client_context(device, client);
		if (ret)
			break;
	}
	up_read(&clients_rwsem);
	if (!ret)
		ret = ib_compat_devs_add(device);
out:
	up_read(&devices_rwsem);
	return ret;
}

/**
 * ib_register_device - register an RDMA device
 * @device: the device, from ib_alloc_device(), ops and port count set
 * @name: its name, or a template with one "%d" for the lowest free number
 * @dma_device: the device doing DMA, or NULL for software devices
 *
 * On failure the driver still owns @device and frees it with
 * ib_dealloc_device().  On success, see the ownership rule at the top of
 * this file for drivers with ops.dealloc_driver.
 */
int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device)
{
	int ret;

	ret = setup_device(device, dma_device);
	if (ret)
		return ret;

	ret = assign_name_and_index(device, name);
	if (ret)
		return ret;

	ret = ib_cache_setup_one(device);
	if (ret) {
		ibdev_warn(device, "cannot set up the caches: %d\n", ret);
		goto err_index;
	}
	rdma_counter_init(device);

	if (device->ops.alloc_hw_device_stats) {
		ret = ib_setup_device_attrs(device);
		if (ret)
			goto err_cache;
	}

	/* udev hears of the device once it is complete, see below. */
	dev_set_uevent_suppress(&device->dev, true);
	ret = device_add(&device->dev);
	if (ret)
		goto err_cache;

	ret = ib_setup_port_attrs(&device->coredev);
	if (ret) {
		ibdev_warn(device, "cannot create port sysfs: %d\n", ret);
		goto err_del;
	}

	device->cg_device.name = device->name;
	rdmacg_register_device(&device->cg_device);

	mutex_lock(&device->unregistration_lock);
	ret = enable_device(device);
	if (ret) {
		/* Undoes everything above, publication included. */
		unregister_locked(device);
		release_index(device);
		mutex_unlock(&device->unregistration_lock);
		dev_set_uevent_suppress(&device->dev, false);
		return ret;
	}
	/*
	 * Once unlocked, a concurrent unregistration may start: our own
	 * reference makes it wait until we are done below.
	 */
	refcount_inc(&device->refcount);
	mutex_unlock(&device->unregistration_lock);

	dev_set_uevent_suppress(&device->dev, false);
	kobject_uevent(&device->dev.kobj, KOBJ_ADD);

	roce_rescan_device(device);
	ib_device_put(device);
	return 0;

err_del:
	device_del(&device->dev);
err_cache:
	dev_set_uevent_suppress(&device->dev, false);
	ib_cache_cleanup_one(device);
err_index:
	release_index(device);
	return ret;
}
EXPORT_SYMBOL(ib_register_device);

/**
 * ib_device_change_netns - move a registered device to another namespace
 * @device: the device, pinned by the caller with get_device() (and no
 *	    registration reference: the move waits for all of them)
 * @cur: the namespace it must be in
 * @net: where it goes
 *
 * Its users go as in an unregistration (the clients' remove(); ib_uverbs
 * disassociates its files, which is why only drivers that can do that
 * are moved, see netns.c); then it is published again in @net and the
 * clients are added back.  Its sysfs directory follows: device_rename()
 * to its own name re-tags it with the namespace the class reports.
 *
 * Return: 0; -ENODEV when the device is not registered in @cur (any
 * more); the error of the rename, the device then staying in @cur.
 */
int ib_device_change_netns(struct ib_device *device, struct net *cur,
			   struct net *net)
{
	int ret;

	mutex_lock(&device->unregistration_lock);
	down_read(&devices_rwsem);
	ret = xa_load(&devices, device->index) == device &&
	      xa_get_mark(&devices, device->index, DEVICE_REGISTERED) &&
	      net_eq(read_pnet(&device->coredev.rdma_net), cur) ? 0 : -ENODEV;
	up_read(&devices_rwsem);
	if (ret)
		goto out;

	kobject_uevent(&device->dev.kobj, KOBJ_REMOVE);
	disable_device(device);

	write_pnet(&device->coredev.rdma_net, net);
	/* Names are unique across namespaces: ours is free in @net. */
	down_read(&devices_rwsem);
	ret = device_rename(&device->dev, dev_name(&device->dev));
	up_read(&devices_rwsem);
	if (ret) {
		ibdev_warn(device, "cannot move to the namespace: %d\n", ret);
		write_pnet(&device->coredev.rdma_net, cur);
	}

	/*
	 * ops.enable_driver runs again, as on stock.  As at registration, a
	 * failure leaves the device published with the clients that could
	 * attach: the move may be retried.
	 */
	if (enable_device(device))
		ibdev_warn(device, "not all users came back after the move\n");
	kobject_uevent(&device->dev.kobj, KOBJ_ADD);
out:
	mutex_unlock(&device->unregistration_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Unregistration                                                      */

/*
 * Unregister @device unless somebody already did (then wait for them to
 * finish).  The caller pins the memory with get_device().
 *
 * The registry entry goes last, after ops.dealloc_driver has returned,
 * and all of it under unregistration_lock: ib_unregister_driver() finds
 * the device until then and waits here for the lock, so a module unload
 * cannot free the driver's code while another unregistration (rdma link
 * del, the queued work) is still on its way into dealloc_driver.
 */
static void __ib_unregister_device(struct ib_device *device)
{
	bool registered;

	mutex_lock(&device->unregistration_lock);
	down_read(&devices_rwsem);
	registered = xa_get_mark(&devices, device->index, DEVICE_REGISTERED) &&
		     xa_load(&devices, device->index) == device;
	up_read(&devices_rwsem);
	if (registered) {
		unregister_locked(device);
		/*
		 * Ownership passed to the core at registration, see the top.
		 * Not the last put_device(): the caller holds one.
		 */
		if (device->ops.dealloc_driver)
			ib_dealloc_device(device);
		release_index(device);
	}
	mutex_unlock(&device->unregistration_lock);
}

/**
 * ib_unregister_device - unregister a device
 * @device: the device; the caller must not hold a registration reference
 *
 * Waits for users to finish.  A driver without ops.dealloc_driver frees
 * the device with ib_dealloc_device() afterwards.
 */
void ib_unregister_device(struct ib_device *device)
{
	get_device(&device->dev);
	__ib_unregister_device(device);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_unregister_device);

/**
 * ib_unregister_device_and_put - unregister a device found by a lookup
 * @device: the device, with the caller's registration reference, which
 *	    this drops
 */
void ib_unregister_device_and_put(struct ib_device *device)
{
	get_device(&device->dev);
	/* Unregistration waits for registration references: drop ours. */
	ib_device_put(device);
	__ib_unregister_device(device);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_unregister_device_and_put);

static void ib_unregistration_work(struct work_struct *work)
{
	struct ib_device *device = container_of(work, struct ib_device,
						unregistration_work);

	__ib_unregister_device(device);
	put_device(&device->dev);
}

/**
 * ib_unregister_device_queued - unregister a device asynchronously
 * @ib_dev: a registered device whose driver has ops.dealloc_driver
 *
 * For contexts that cannot wait for users of the device (e.g. netdev
 * notifiers under RTNL).  ib_unregister_driver() waits for it.
 */
void ib_unregister_device_queued(struct ib_device *ib_dev)
{
	/* Nobody else could free the device once unregistered. */
	WARN_ON(!ib_dev->ops.dealloc_driver);

	get_device(&ib_dev->dev);
	if (!queue_work(ib_unreg_wq, &ib_dev->unregistration_work))
		put_device(&ib_dev->dev);
}
EXPORT_SYMBOL(ib_unregister_device_queued);

/**
 * ib_unregister_driver - unregister every device of a driver
 * @driver_id: the driver
 *
 * Synchronous: on return no device of the driver is registered, and no
 * unregistration of one (queued or concurrent) is still running: devices
 * stay in the registry until their ops.dealloc_driver has returned, so
 * the walk below also finds (and waits for) those being torn down.
 */
void ib_unregister_driver(enum rdma_driver_id driver_id)
{
	struct ib_device *device;
	unsigned long index;

	down_read(&devices_rwsem);
	xa_for_each(&devices, index, device) {
		if (device->ops.driver_id != driver_id)
			continue;

		get_device(&device->dev);
		up_read(&devices_rwsem);

		/* Also waits for an unregistration already under way. */
		__ib_unregister_device(device);
		put_device(&device->dev);

		down_read(&devices_rwsem);
	}
	up_read(&devices_rwsem);

	flush_workqueue(ib_unreg_wq);
}
EXPORT_SYMBOL(ib_unregister_driver);

/* ------------------------------------------------------------------ */
/* Module init/exit                                                    */

int __init ib_devices_init(void)
{
	int ret = -ENOMEM;

	ib_wq = alloc_workqueue("infiniband", 0, 0);
	if (!ib_wq)
		return ret;

	ib_comp_wq = alloc_workqueue("ib-comp-wq",
				     WQ_HIGHPRI | WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	if (!ib_comp_wq)
		goto err_wq;

	ib_comp_unbound_wq = alloc_workqueue("ib-comp-unb-wq",
					     WQ_UNBOUND | WQ_HIGHPRI |
					     WQ_MEM_RECLAIM | WQ_SYSFS,
					     WQ_UNBOUND_MAX_ACTIVE);
	if (!ib_comp_unbound_wq)
		goto err_comp;

	ib_unreg_wq = alloc_workqueue("ib-unreg-wq", WQ_UNBOUND,
				      WQ_UNBOUND_MAX_ACTIVE);
	if (!ib_unreg_wq)
		goto err_comp_unbound;

	ib_event_wq = alloc_ordered_workqueue("ib-event-wq", 0);
	if (!ib_event_wq)
		goto err_unreg;

	ret = class_register(&ib_class);
	if (ret)
		goto err_event;

	return 0;

err_event:
	destroy_workqueue(ib_event_wq);
err_unreg:
	destroy_workqueue(ib_unreg_wq);
err_comp_unbound:
	destroy_workqueue(ib_comp_unbound_wq);
err_comp:
	destroy_workqueue(ib_comp_wq);
err_wq:
	destroy_workqueue(ib_wq);
	return ret;
}

void ib_devices_exit(void)
{
	/* Pending dispatches hold device references: let them go first. */
	destroy_workqueue(ib_event_wq);
	class_unregister(&ib_class);
	destroy_workqueue(ib_unreg_wq);
	destroy_workqueue(ib_comp_unbound_wq);
	destroy_workqueue(ib_comp_wq);
	destroy_workqueue(ib_wq);
	/* Device memory is freed from RCU callbacks: let them run first. */
	rcu_barrier();
	WARN_ON(!xa_empty(&devices));
	WARN_ON(!xa_empty(&clients));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_cm: the module, its ib_client (a CM class agent on each port's QP1,
 * the port's CM capability bit, the per-port counters in sysfs) and the
 * list of devices that paths are looked up in.
 */
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sysfs.h>

#include "core_priv.h"
#include "cm_priv.h"

MODULE_DESCRIPTION("InfiniBand CM");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);

struct cm_globals icm;

/* ------------------------------------------------------------------ */
/* Reject reasons as text                                              */

static const char *const cm_rej_text[] = {
	[IB_CM_REJ_NO_QP]			= "no QP",
	[IB_CM_REJ_NO_EEC]			= "no EEC",
	[IB_CM_REJ_NO_RESOURCES]		= "no resources",
	[IB_CM_REJ_TIMEOUT]			= "timeout",
	[IB_CM_REJ_UNSUPPORTED]			= "unsupported",
	[IB_CM_REJ_INVALID_COMM_ID]		= "invalid comm ID",
	[IB_CM_REJ_INVALID_COMM_INSTANCE]	= "invalid comm instance",
	[IB_CM_REJ_INVALID_SERVICE_ID]		= "invalid service ID",
	[IB_CM_REJ_INVALID_TRANSPORT_TYPE]	= "invalid transport type",
	[IB_CM_REJ_STALE_CONN]			= "stale conn",
	[IB_CM_REJ_RDC_NOT_EXIST]		= "RDC not exist",
	[IB_CM_REJ_INVALID_GID]			= "invalid GID",
	[IB_CM_REJ_INVALID_LID]			= "invalid LID",
	[IB_CM_REJ_INVALID_SL]			= "invalid SL",
	[IB_CM_REJ_INVALID_TRAFFIC_CLASS]	= "invalid traffic class",
	[IB_CM_REJ_INVALID_HOP_LIMIT]		= "invalid hop limit",
	[IB_CM_REJ_INVALID_PACKET_RATE]		= "invalid packet rate",
	[IB_CM_REJ_INVALID_ALT_GID]		= "invalid alt GID",
	[IB_CM_REJ_INVALID_ALT_LID]		= "invalid alt LID",
	[IB_CM_REJ_INVALID_ALT_SL]		= "invalid alt SL",
	[IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS]	= "invalid alt traffic class",
	[IB_CM_REJ_INVALID_ALT_HOP_LIMIT]	= "invalid alt hop limit",
	[IB_CM_REJ_INVALID_ALT_PACKET_RATE]	= "invalid alt packet rate",
	[IB_CM_REJ_PORT_CM_REDIRECT]		= "port CM redirect",
	[IB_CM_REJ_PORT_REDIRECT]		= "port redirect",
	[IB_CM_REJ_INVALID_MTU]			= "invalid MTU",
	[IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES]	= "insufficient resp resources",
	[IB_CM_REJ_CONSUMER_DEFINED]		= "consumer defined",
	[IB_CM_REJ_INVALID_RNR_RETRY]		= "invalid RNR retry",
	[IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID]	= "duplicate local comm ID",
	[IB_CM_REJ_INVALID_CLASS_VERSION]	= "invalid class version",
	[IB_CM_REJ_INVALID_FLOW_LABEL]		= "invalid flow label",
	[IB_CM_REJ_INVALID_ALT_FLOW_LABEL]	= "invalid alt flow label",
	[IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED]	= "vendor option is not supported",
};

/**
 * ibcm_reject_msg - the text of a REJ reason
 * @reason: the reason of an IB_CM_REJ_RECEIVED event
 *
 * Return: a constant string; "unrecognized reason" for unknown reasons.
 */
const char *__attribute_const__ ibcm_reject_msg(int reason)
{
	if (reason >= 0 && reason < ARRAY_SIZE(cm_rej_text) &&
	    cm_rej_text[reason])
		return cm_rej_text[reason];
	return "unrecognized reason";
}
EXPORT_SYMBOL(ibcm_reject_msg);

/* ------------------------------------------------------------------ */
/* Counters: ports/<N>/cm_{tx_msgs,tx_retries,rx_msgs,rx_duplicates}/   */

struct cm_counter_file {
	struct ib_port_attribute attr;
	u8 group;
	u8 msg;
};

static ssize_t cm_counter_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *attr, char *buf)
{
	struct cm_counter_file *file =
		container_of(attr, struct cm_counter_file, attr);
	struct cm_dev *dev = ib_get_client_data(ibdev, &cm_client);
	struct cm_port *port;

	if (!dev || port_num < 1 || port_num > rdma_end_port(ibdev))
		return -ENODEV;
	port = dev->ports[port_num - 1];
	if (!port)
		return -ENODEV;
	return sysfs_emit(buf, "%ld\n",
			  atomic_long_read(&port->count[file->group][file->msg]));
}

#define CM_COUNTER(_msg, _name) {					\
	.attr = __ATTR(_name, 0444, cm_counter_show, NULL),		\
	.msg = _msg,							\
}

/*
 * One row per group, in enum cm_counter_msg order;
 * cm_counter_groups_init() sets each row's group.
 */
#define CM_COUNTER_ROW {						\
	CM_COUNTER(CM_CNT_REQ, req),					\
	CM_COUNTER(CM_CNT_MRA, mra),					\
	CM_COUNTER(CM_CNT_REJ, rej),					\
	CM_COUNTER(CM_CNT_REP, rep),					\
	CM_COUNTER(CM_CNT_RTU, rtu),					\
	CM_COUNTER(CM_CNT_DREQ, dreq),					\
	CM_COUNTER(CM_CNT_DREP, drep),					\
	CM_COUNTER(CM_CNT_SIDR_REQ, sidr_req),				\
	CM_COUNTER(CM_CNT_SIDR_REP, sidr_rep),				\
	CM_COUNTER(CM_CNT_LAP, lap),					\
	CM_COUNTER(CM_CNT_APR, apr),					\
}

static struct cm_counter_file cm_counter_files[CM_CNT_GROUPS][CM_CNT_MSGS] = {
	[CM_CNT_TX]		= CM_COUNTER_ROW,
	[CM_CNT_TX_RETRIES]	= CM_COUNTER_ROW,
	[CM_CNT_RX]		= CM_COUNTER_ROW,
	[CM_CNT_RX_DUPS]	= CM_COUNTER_ROW,
};

/* Filled from cm_counter_files at init: each group's NULL-ended list. */
static struct attribute *cm_counter_attrs[CM_CNT_GROUPS][CM_CNT_MSGS + 1];

static struct attribute_group cm_counter_dirs[CM_CNT_GROUPS] = {
	[CM_CNT_TX]		= { .name = "cm_tx_msgs" },
	[CM_CNT_TX_RETRIES]	= { .name = "cm_tx_retries" },
	[CM_CNT_RX]		= { .name = "cm_rx_msgs" },
	[CM_CNT_RX_DUPS]	= { .name = "cm_rx_duplicates" },
};

static const struct attribute_group *cm_counter_groups[CM_CNT_GROUPS + 1] = {
	&cm_counter_dirs[CM_CNT_TX],
	&cm_counter_dirs[CM_CNT_TX_RETRIES],
	&cm_counter_dirs[CM_CNT_RX],
	&cm_counter_dirs[CM_CNT_RX_DUPS],
	NULL,
};

static void cm_counter_groups_init(void)
{
	int g, m;

	for (g = 0; g < CM_CNT_GROUPS; g++) {
		for (m = 0; m < CM_CNT_MSGS; m++) {
			cm_counter_files[g][m].group = g;
			cm_counter_attrs[g][m] = &cm_counter_files[g][m].attr.attr;
		}
		cm_counter_dirs[g].attrs = cm_counter_attrs[g];
	}
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */

static void cm_dev_release(struct kref *ref)
{
	struct cm_dev *dev = container_of(ref, struct cm_dev, ref);
	u32 i;

	for (i = 0; i < rdma_end_port(dev->ibdev); i++)
		kfree(dev->ports[i]);
	kfree(dev);
}

void cm_dev_put(struct cm_dev *dev)
{
	kref_put(&dev->ref, cm_dev_release);
}

/**
 * cm_port_get_by_path - the CM port a path leaves from
 * @path: the path; its SGID names the port when @sgid_attr is NULL
 * @sgid_attr: the path's source GID entry, if the caller has it
 *
 * Return: the port with a reference on its device (cm_dev_put()), or
 * NULL if no device of ours has that port with the CM capability.
 */
struct cm_port *cm_port_get_by_path(struct sa_path_rec *path,
				    const struct ib_gid_attr *sgid_attr)
{
	const struct ib_gid_attr *found = NULL, *attr = sgid_attr;
	struct cm_port *port = NULL;
	struct cm_dev *dev;

	read_lock_irq(&icm.dev_lock);
	list_for_each_entry(dev, &icm.devices, entry) {
		if (sgid_attr) {
			if (dev->ibdev != sgid_attr->device)
				continue;
		} else {
			/* No entry: an alternate path, or IB without GRH. */
			found = rdma_find_gid(dev->ibdev, &path->sgid,
					      sa_conv_pathrec_to_gid_type(path),
					      NULL);
			if (IS_ERR(found)) {
				found = NULL;
				continue;
			}
			attr = found;
		}
		if (attr->port_num >= 1 &&
		    attr->port_num <= rdma_end_port(dev->ibdev))
			port = dev->ports[attr->port_num - 1];
		if (port)
			kref_get(&dev->ref);
		break;
	}
	read_unlock_irq(&icm.dev_lock);
	/* Put outside the lock: the last put may free the entry. */
	if (found)
		rdma_put_gid_attr(found);
	return port;
}

static const struct ib_mad_reg_req cm_reg_req = {
	.mgmt_class = IB_MGMT_CLASS_CM,
	.mgmt_class_version = IB_CM_CLASS_VERSION,
};

/* Undoes cm_port_add() for one port. */
static void cm_port_remove(struct cm_dev *dev, struct cm_port *port)
{
	struct ib_port_modify clear_cm = {
		.clr_port_cap_mask = IB_PORT_CM_SUP,
	};
	struct ib_mad_agent *agent;

	ib_modify_port(dev->ibdev, port->num, 0, &clear_cm);
	/*
	 * With going_down set no work is queued any more; once the queued
	 * ones ran, only senders that take agent_lock look at the agent.
	 */
	flush_workqueue(icm.wq);
	write_lock_irq(&dev->agent_lock);
	agent = port->agent;
	port->agent = NULL;
	write_unlock_irq(&dev->agent_lock);
	ib_unregister_mad_agent(agent);
	ib_port_unregister_client_groups(dev->ibdev, port->num,
					 cm_counter_groups);
}

static int cm_port_add(struct cm_dev *dev, u32 num)
{
	struct ib_port_modify set_cm = {
		.set_port_cap_mask = IB_PORT_CM_SUP,
	};
	struct ib_mad_reg_req reg = cm_reg_req;
	struct cm_port *port;
	int ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->dev = dev;
	port->num = num;
	dev->ports[num - 1] = port;

	ret = ib_port_register_client_groups(dev->ibdev, num,
					     cm_counter_groups);
	if (ret)
		goto err_free;

	/* The CM sends and receives Send() only (IBA 12.11). */
	set_bit(IB_MGMT_METHOD_SEND, reg.method_mask);
	port->agent = ib_register_mad_agent(dev->ibdev, num, IB_QPT_GSI, &reg,
					    0, cm_send_done, cm_recv, port, 0);
	if (IS_ERR(port->agent)) {
		ret = PTR_ERR(port->agent);
		port->agent = NULL;
		goto err_groups;
	}

	ret = ib_modify_port(dev->ibdev, num, 0, &set_cm);
	if (ret)
		goto err_agent;
	return 0;

err_agent:
	ib_unregister_mad_agent(port->agent);
err_groups:
	ib_port_unregister_client_groups(dev->ibdev, num, cm_counter_groups);
err_free:
	dev->ports[num - 1] = NULL;
	kfree(port);
	return ret;
}

static int cm_add_one(struct ib_device *ibdev)
{
	struct cm_dev *dev;
	int ports = 0;
	u32 i;
	int ret;

	dev = kzalloc(struct_size(dev, ports, rdma_end_port(ibdev)),
		      GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	kref_init(&dev->ref);
	rwlock_init(&dev->agent_lock);
	dev->ibdev = ibdev;
	dev->ack_delay = ibdev->attrs.local_ca_ack_delay;
	/* Before the counter files appear: their show() looks it up. */
	ib_set_client_data(ibdev, &cm_client, dev);

	rdma_for_each_port(ibdev, i) {
		if (!rdma_cap_ib_cm(ibdev, i))
			continue;
		ret = cm_port_add(dev, i);
		if (ret)
			goto err_ports;
		ports++;
	}
	if (!ports) {
		ret = -EOPNOTSUPP;
		goto err_free;
	}

	write_lock_irq(&icm.dev_lock);
	list_add_tail(&dev->entry, &icm.devices);
	write_unlock_irq(&icm.dev_lock);
	return 0;

err_ports:
	while (--i >= 1)
		if (dev->ports[i - 1])
			cm_port_remove(dev, dev->ports[i - 1]);
err_free:
	ib_set_client_data(ibdev, &cm_client, NULL);
	cm_dev_put(dev);
	return ret;
}

static void cm_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct cm_dev *dev = client_data;
	u32 i;

	write_lock_irq(&icm.dev_lock);
	list_del(&dev->entry);
	write_unlock_irq(&icm.dev_lock);

	spin_lock_irq(&icm.lock);
	dev->going_down = true;
	cm_timewait_expire_dev(dev);
	spin_unlock_irq(&icm.lock);

	rdma_for_each_port(ibdev, i)
		if (dev->ports[i - 1])
			cm_port_remove(dev, dev->ports[i - 1]);

	/* Ids' address vectors may hold the device a while longer. */
	cm_dev_put(dev);
}

struct ib_client cm_client = {
	.name	= "cm",
	.add	= cm_add_one,
	.remove	= cm_remove_one,
};

/* ------------------------------------------------------------------ */
/* Module                                                              */

static int __init ib_cm_init(void)
{
	int ret;

	ret = ib_core_oot_check(OOT_RDMA_VERSION);
	if (ret)
		return ret;

	spin_lock_init(&icm.lock);
	icm.listeners = RB_ROOT;
	icm.remote_ids = RB_ROOT;
	icm.remote_qpns = RB_ROOT;
	icm.sidr_reqs = RB_ROOT;
	INIT_LIST_HEAD(&icm.timewait);
	icm.next_service_id = be64_to_cpu(IB_CM_ASSIGN_SERVICE_ID);
	xa_init_flags(&icm.ids, XA_FLAGS_ALLOC);
	/* Comm IDs on the wire are not guessable from the table index. */
	icm.id_mask = (__force __be32)get_random_u32();
	rwlock_init(&icm.dev_lock);
	INIT_LIST_HEAD(&icm.devices);
	cm_counter_groups_init();

	icm.wq = alloc_workqueue("ib_cm", 0, 1);
	if (!icm.wq)
		return -ENOMEM;

	ret = ib_register_client(&cm_client);
	if (ret) {
		destroy_workqueue(icm.wq);
		return ret;
	}
	return 0;
}

static void __exit ib_cm_exit(void)
{
	cm_timewait_cancel_all();
	ib_unregister_client(&cm_client);
	destroy_workqueue(icm.wq);
	cm_timewait_free_all();
	WARN_ON(!xa_empty(&icm.ids));
}

module_init(ib_cm_init);
module_exit(ib_cm_exit);

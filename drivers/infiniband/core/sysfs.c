// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sysfs view of an ib_device under class "infiniband":
 *
 *	<dev>/node_type, node_guid, sys_image_guid, fw_ver, node_desc
 *	<dev>/hw_counters/		device counters (ops.alloc_hw_device_stats)
 *	<dev>/ports/<N>/		state, rate, lid, ... (struct ib_port)
 *	<dev>/ports/<N>/gids/<i>, pkeys/<i>
 *	<dev>/ports/<N>/gid_attrs/types/<i>, gid_attrs/ndevs/<i>
 *	<dev>/ports/<N>/hw_counters/	port counters (ops.alloc_hw_port_stats)
 *	<dev>/ports/<N>/counters/	PMA counters (ops.process_mad): sysfs_pma.c
 *
 * Lifetimes.  Every file lives in a kobject directory (the device's own,
 * a port's, a port's gid_attrs/).  Removing a directory (device_del(),
 * kobject_del()) waits for the show()/store() calls running in it and
 * makes later calls through still-open files fail with -ENODEV, so the
 * callbacks may use the ib_device and the port freely.  The memory behind
 * the files (attributes, counters) is freed by the owning kobject's
 * release, or for the device's hw_counters/ by the device release.
 */

#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <rdma/ib_cache.h>
#include <rdma/ib_sysfs.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* Longest lifespan a user may set in hw_counters/lifespan, in msecs. */
#define HW_STATS_MAX_LIFESPAN_MS	10000

/*
 * One file of a hw_counters/ directory: a counter, or "lifespan".  The
 * device's directory holds device attributes, a port's holds port
 * attributes; both begin with the struct attribute sysfs sees.
 */
struct hw_stats_file {
	union {
		struct device_attribute dev_attr;
		struct ib_port_attribute port_attr;
	};
	struct hw_stats_device_data *data;
	int index;		/* into data->stats->value[] */
};

/*
 * A hw_counters/ directory (of the device, or of a port: both have this
 * shape): the driver's counters and the attribute group showing them.
 */
struct hw_stats_device_data {
	struct rdma_hw_stats *stats;
	struct attribute_group group;
	struct attribute **attrs;	/* group.attrs, NULL-terminated */
	struct hw_stats_file lifespan;
	struct hw_stats_file counters[];	/* stats->num_counters */
};

/* Files 0..n-1 of gids/, pkeys/, gid_attrs/types/ or gid_attrs/ndevs/. */
struct port_table_file {
	struct ib_port_attribute attr;
	u32 index;
	char name[12];		/* decimal u32 */
};

struct port_table {
	struct attribute_group group;
	struct attribute **attrs;	/* group.attrs, NULL-terminated */
	struct port_table_file files[];
};

/* ports/<N>/gid_attrs/: a kobject of its own, child of the port's. */
struct gid_attrs_dir {
	struct kobject kobj;
	struct ib_port *port;
	struct port_table *types;
	struct port_table *ndevs;
	const struct attribute_group *groups[3];
};

/*
 * ports/<N>/ of one ib_core_device.  Created by ib_setup_port_attrs(),
 * deleted by ib_free_port_attrs(); freed by port_release() with the
 * tables behind its files.  The device's own ports (not those of
 * per-netns compat devices) are also in port_data[N].sysfs, for
 * ib_hw_stats_read() and the client groups.
 */
struct ib_port {
	struct kobject kobj;
	struct ib_device *ibdev;
	u32 port_num;
	struct list_head list;		/* in coredev->port_list */
	struct gid_attrs_dir *gid_attrs;
	struct port_table *gids;
	struct port_table *pkeys;
	struct hw_stats_device_data *hw_stats;	/* NULL without counters */
	/* gids, pkeys, hw_counters, counters (static: sysfs_pma.c's) */
	const struct attribute_group *groups[5];
};

/* ------------------------------------------------------------------ */
/* Device attributes                                                    */

static const char *node_type_name(u8 node_type)
{
	static const char * const names[] = {
		[RDMA_NODE_IB_CA] = "CA",
		[RDMA_NODE_IB_SWITCH] = "switch",
		[RDMA_NODE_IB_ROUTER] = "router",
		[RDMA_NODE_RNIC] = "RNIC",
		[RDMA_NODE_USNIC] = "usNIC",
		[RDMA_NODE_USNIC_UDP] = "usNIC UDP",
		[RDMA_NODE_UNSPECIFIED] = "unspecified",
	};

	if (node_type < ARRAY_SIZE(names) && names[node_type])
		return names[node_type];
	return "<unknown>";
}

static ssize_t node_type_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	struct ib_device *dev = rdma_device_to_ibdev(device);

	return sysfs_emit(buf, "%u: %s\n", dev->node_type,
			  node_type_name(dev->node_type));
}
static DEVICE_ATTR_RO(node_type);

/* A GUID the way IB tools print it: four big-endian 16-bit groups. */
static ssize_t emit_guid(char *buf, __be64 guid)
{
	u64 g = be64_to_cpu(guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (u16)(g >> 48), (u16)(g >> 32), (u16)(g >> 16),
			  (u16)g);
}

static ssize_t node_guid_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	return emit_guid(buf, rdma_device_to_ibdev(device)->node_guid);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t sys_image_guid_show(struct device *device,
				   struct device_attribute *attr, char *buf)
{
	return emit_guid(buf,
			 rdma_device_to_ibdev(device)->attrs.sys_image_guid);
}
static DEVICE_ATTR_RO(sys_image_guid);

static ssize_t fw_ver_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	char fw[IB_FW_VERSION_NAME_MAX];

	ib_get_device_fw_str(rdma_device_to_ibdev(device), fw);
	return sysfs_emit(buf, "%s\n", fw);
}
static DEVICE_ATTR_RO(fw_ver);

/*
 * Serialises node_desc writers, so that the driver's copy and
 * device->node_desc end up with the same description.  Readers take no
 * lock: node_desc is a fixed-size buffer printed with a bounded width,
 * so a reader racing a writer sees a mix of both strings at worst.
 */
static DEFINE_MUTEX(node_desc_lock);

static ssize_t node_desc_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	struct ib_device *dev = rdma_device_to_ibdev(device);

	return sysfs_emit(buf, "%.*s\n", IB_DEVICE_NODE_DESC_MAX,
			  dev->node_desc);
}

/* The bytes written become the description as they are, up to 64. */
static ssize_t node_desc_store(struct device *device,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct ib_device *dev = rdma_device_to_ibdev(device);
	struct ib_device_modify modify = {};
	int ret;

	memcpy(modify.node_desc, buf, min(count, sizeof(modify.node_desc)));

	mutex_lock(&node_desc_lock);
	ret = ib_modify_device(dev, IB_DEVICE_MODIFY_NODE_DESC, &modify);
	if (!ret)
		memcpy(dev->node_desc, modify.node_desc,
		       sizeof(dev->node_desc));
	mutex_unlock(&node_desc_lock);

	return ret ? ret : count;
}
static DEVICE_ATTR_RW(node_desc);

static struct attribute *ib_dev_attrs[] = {
	&dev_attr_node_type.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_sys_image_guid.attr,
	&dev_attr_fw_ver.attr,
	&dev_attr_node_desc.attr,
	NULL
};

const struct attribute_group ib_dev_attr_group = {
	.attrs = ib_dev_attrs,
};

/* ------------------------------------------------------------------ */
/* hw_counters/                                                         */

/*
 * Ask the driver for fresh values of counter @index (num_counters: all of
 * them); a full update restarts the lifespan.
 */
static int hw_stats_fetch(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			  u32 port_num, int index)
{
	int ret;

	lockdep_assert_held(&stats->lock);

	ret = ibdev->ops.get_hw_stats(ibdev, stats, port_num, index);
	if (ret < 0)
		return ret;
	if (ret == stats->num_counters)
		stats->timestamp = jiffies;
	return 0;
}

/* hw_stats_fetch() unless the last full update is younger than lifespan. */
static int hw_stats_refresh(struct ib_device *ibdev,
			    struct rdma_hw_stats *stats, u32 port_num,
			    int index)
{
	lockdep_assert_held(&stats->lock);

	if (time_is_after_jiffies(stats->timestamp + stats->lifespan))
		return 0;
	return hw_stats_fetch(ibdev, stats, port_num, index);
}

static ssize_t hw_stat_emit(struct ib_device *ibdev, u32 port_num,
			    const struct hw_stats_file *file, char *buf)
{
	struct rdma_hw_stats *stats = file->data->stats;
	u64 value = 0;
	int ret;

	mutex_lock(&stats->lock);
	ret = hw_stats_refresh(ibdev, stats, port_num, file->index);
	if (!ret)
		value = stats->value[file->index];
	mutex_unlock(&stats->lock);
	if (ret)
		return ret;

	/* A port's QP counter sets count what the driver's own do not. */
	if (port_num)
		value += rdma_counter_get_hwstat_value(ibdev, port_num,
						       file->index);
	return sysfs_emit(buf, "%llu\n", value);
}

static ssize_t lifespan_emit(const struct hw_stats_file *file, char *buf)
{
	struct rdma_hw_stats *stats = file->data->stats;
	unsigned int msecs;

	mutex_lock(&stats->lock);
	msecs = jiffies_to_msecs(stats->lifespan);
	mutex_unlock(&stats->lock);

	return sysfs_emit(buf, "%u\n", msecs);
}

static ssize_t lifespan_set(const struct hw_stats_file *file,
			    const char *buf, size_t count)
{
	struct rdma_hw_stats *stats = file->data->stats;
	int msecs;
	int ret;

	ret = kstrtoint(buf, 10, &msecs);
	if (ret)
		return ret;
	if (msecs < 0 || msecs > HW_STATS_MAX_LIFESPAN_MS)
		return -EINVAL;

	mutex_lock(&stats->lock);
	stats->lifespan = msecs_to_jiffies(msecs);
	mutex_unlock(&stats->lock);

	return count;
}

static struct hw_stats_file *to_dev_hw_stats_file(struct device_attribute *a)
{
	return container_of(a, struct hw_stats_file, dev_attr);
}

static ssize_t dev_hw_stat_show(struct device *device,
				struct device_attribute *attr, char *buf)
{
	return hw_stat_emit(rdma_device_to_ibdev(device), 0,
			    to_dev_hw_stats_file(attr), buf);
}

static ssize_t dev_lifespan_show(struct device *device,
				 struct device_attribute *attr, char *buf)
{
	return lifespan_emit(to_dev_hw_stats_file(attr), buf);
}

static ssize_t dev_lifespan_store(struct device *device,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	return lifespan_set(to_dev_hw_stats_file(attr), buf, count);
}

static struct hw_stats_file *to_port_hw_stats_file(struct ib_port_attribute *a)
{
	return container_of(a, struct hw_stats_file, port_attr);
}

static ssize_t port_hw_stat_show(struct ib_device *ibdev, u32 port_num,
				 struct ib_port_attribute *attr, char *buf)
{
	return hw_stat_emit(ibdev, port_num, to_port_hw_stats_file(attr), buf);
}

static ssize_t port_lifespan_show(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_attribute *attr, char *buf)
{
	return lifespan_emit(to_port_hw_stats_file(attr), buf);
}

static ssize_t port_lifespan_store(struct ib_device *ibdev, u32 port_num,
				   struct ib_port_attribute *attr,
				   const char *buf, size_t count)
{
	return lifespan_set(to_port_hw_stats_file(attr), buf, count);
}

static void hw_stats_data_free(struct hw_stats_device_data *data)
{
	if (!data)
		return;
	kfree(data->attrs);
	rdma_free_hw_stats_struct(data->stats);
	kfree(data);
}

static void hw_stats_file_init(struct hw_stats_device_data *data,
			       struct hw_stats_file *file, int index,
			       const char *name, bool for_port)
{
	struct attribute *attr = for_port ? &file->port_attr.attr :
					    &file->dev_attr.attr;

	sysfs_attr_init(attr);
	attr->name = name;
	file->data = data;
	file->index = index;

	if (index < data->stats->num_counters) {
		attr->mode = 0444;
		if (for_port)
			file->port_attr.show = port_hw_stat_show;
		else
			file->dev_attr.show = dev_hw_stat_show;
	} else {
		attr->mode = 0644;
		if (for_port) {
			file->port_attr.show = port_lifespan_show;
			file->port_attr.store = port_lifespan_store;
		} else {
			file->dev_attr.show = dev_lifespan_show;
			file->dev_attr.store = dev_lifespan_store;
		}
	}
}

/*
 * hw_counters/ for the counters the driver allocated in @stats (owned by
 * the result from here on, also on failure): one read-only file per
 * counter, named by its descriptor, and "lifespan".  Optional counters
 * (IB_STAT_FLAG_OPTIONAL) get no file, as on the stock kernel: they come
 * and go with "rdma statistic set ... optional-counters" and only netlink
 * shows them.
 */
static struct hw_stats_device_data *
hw_stats_data_alloc(struct rdma_hw_stats *stats, bool for_port)
{
	struct hw_stats_device_data *data;
	int i, n = 0;

	if (!stats)
		return ERR_PTR(-ENOMEM);
	if (stats->num_counters < 0 || (stats->num_counters && !stats->descs)) {
		rdma_free_hw_stats_struct(stats);
		return ERR_PTR(-EINVAL);
	}

	data = kzalloc(struct_size(data, counters, stats->num_counters),
		       GFP_KERNEL);
	if (!data) {
		rdma_free_hw_stats_struct(stats);
		return ERR_PTR(-ENOMEM);
	}
	data->stats = stats;

	/* The counters, lifespan, and the NULL end. */
	data->attrs = kcalloc(stats->num_counters + 2, sizeof(*data->attrs),
			      GFP_KERNEL);
	if (!data->attrs) {
		hw_stats_data_free(data);
		return ERR_PTR(-ENOMEM);
	}

	for (i = 0; i < stats->num_counters; i++) {
		if (stats->descs[i].flags & IB_STAT_FLAG_OPTIONAL)
			continue;
		hw_stats_file_init(data, &data->counters[i], i,
				   stats->descs[i].name, for_port);
		data->attrs[n++] = for_port ?
				   &data->counters[i].port_attr.attr :
				   &data->counters[i].dev_attr.attr;
	}
	hw_stats_file_init(data, &data->lifespan, stats->num_counters,
			   "lifespan", for_port);
	data->attrs[n] = for_port ? &data->lifespan.port_attr.attr :
				    &data->lifespan.dev_attr.attr;

	data->group.name = "hw_counters";
	data->group.attrs = data->attrs;
	return data;
}

int ib_setup_device_attrs(struct ib_device *device)
{
	struct hw_stats_device_data *data;
	unsigned int slot;

	if (!device->ops.alloc_hw_device_stats || !device->ops.get_hw_stats)
		return 0;

	/* groups[0] is ours, then the driver's; the array ends with NULL. */
	for (slot = 1; slot < ARRAY_SIZE(device->groups) - 1; slot++)
		if (!device->groups[slot])
			break;
	if (slot == ARRAY_SIZE(device->groups) - 1)
		return -EINVAL;

	data = hw_stats_data_alloc(device->ops.alloc_hw_device_stats(device),
				   false);
	if (IS_ERR(data))
		return PTR_ERR(data);

	device->hw_stats_data = data;
	device->hw_stats_attr_index = slot;
	device->groups[slot] = &data->group;
	return 0;
}

void ib_device_release_hw_stats(struct ib_device *device)
{
	if (!device->hw_stats_data)
		return;

	device->groups[device->hw_stats_attr_index] = NULL;
	hw_stats_data_free(device->hw_stats_data);
	device->hw_stats_data = NULL;
}

/*
 * The caller holds a registration reference on @ibdev (or is its
 * unregistration), which keeps the ports, and so port_data[].sysfs, in
 * place: ib_free_port_attrs() runs only after the last one is dropped.
 *
 * Netlink readers always get current values: the lifespan only spares
 * the driver when sysfs readers go through a directory file by file.
 */
struct rdma_hw_stats *ib_hw_stats_get(struct ib_device *ibdev, u32 port_num)
{
	struct hw_stats_device_data *data = NULL;

	if (!port_num)
		data = ibdev->hw_stats_data;
	else if (rdma_is_port_valid(ibdev, port_num) &&
		 ibdev->port_data[port_num].sysfs)
		data = ibdev->port_data[port_num].sysfs->hw_stats;
	return data ? data->stats : NULL;
}

int ib_hw_stats_read(struct ib_device *ibdev, u32 port_num,
		     int (*fn)(const struct rdma_hw_stats *stats, void *arg),
		     void *arg)
{
	struct rdma_hw_stats *stats;
	int ret;

	stats = ib_hw_stats_get(ibdev, port_num);
	if (!stats)
		return -EOPNOTSUPP;

	mutex_lock(&stats->lock);
	ret = hw_stats_fetch(ibdev, stats, port_num, stats->num_counters);
	if (!ret)
		ret = fn(stats, arg);
	mutex_unlock(&stats->lock);

	return ret;
}

/* ------------------------------------------------------------------ */
/* Port attributes                                                      */

static ssize_t state_show(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attribute *unused, char *buf)
{
	static const char * const names[] = {
		[IB_PORT_NOP] = "NOP",
		[IB_PORT_DOWN] = "DOWN",
		[IB_PORT_INIT] = "INIT",
		[IB_PORT_ARMED] = "ARMED",
		[IB_PORT_ACTIVE] = "ACTIVE",
		[IB_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER",
	};
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;

	return sysfs_emit(buf, "%u: %s\n", attr.state,
			  attr.state < ARRAY_SIZE(names) ?
			  names[attr.state] : "UNKNOWN");
}
static IB_PORT_ATTR_RO(state);

static ssize_t phys_state_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *unused, char *buf)
{
	static const char * const names[] = {
		[IB_PORT_PHYS_STATE_SLEEP] = "Sleep",
		[IB_PORT_PHYS_STATE_POLLING] = "Polling",
		[IB_PORT_PHYS_STATE_DISABLED] = "Disabled",
		[IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING] =
			"PortConfigurationTraining",
		[IB_PORT_PHYS_STATE_LINK_UP] = "LinkUp",
		[IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY] = "LinkErrorRecovery",
		[IB_PORT_PHYS_STATE_PHY_TEST] = "Phy Test",
	};
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;

	return sysfs_emit(buf, "%u: %s\n", attr.phys_state,
			  attr.phys_state < ARRAY_SIZE(names) &&
			  names[attr.phys_state] ?
			  names[attr.phys_state] : "<unknown>");
}
static IB_PORT_ATTR_RO(phys_state);

/*
 * "<Gb/s> Gb/sec (<lanes>X <speed>)": per-lane signalling rate in tenths
 * of Gb/s times the lane count.  Unknown speeds count as SDR.
 */
static ssize_t rate_show(struct ib_device *ibdev, u32 port_num,
			 struct ib_port_attribute *unused, char *buf)
{
	static const struct {
		u16 speed;
		u16 lane_rate;	/* 0.1 Gb/s */
		const char *name;
	} speeds[] = {
		{ IB_SPEED_SDR, 25, " SDR" },
		{ IB_SPEED_DDR, 50, " DDR" },
		{ IB_SPEED_QDR, 100, " QDR" },
		{ IB_SPEED_FDR10, 100, " FDR10" },
		{ IB_SPEED_FDR, 140, " FDR" },
		{ IB_SPEED_EDR, 250, " EDR" },
		{ IB_SPEED_HDR, 500, " HDR" },
		{ IB_SPEED_NDR, 1000, " NDR" },
	};
	struct ib_port_attr attr;
	unsigned int i, rate;
	int lanes, ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;

	lanes = ib_width_enum_to_int(attr.active_width);
	if (lanes < 0)
		return -EINVAL;

	for (i = ARRAY_SIZE(speeds) - 1; i > 0; i--)
		if (speeds[i].speed == attr.active_speed)
			break;
	rate = speeds[i].lane_rate * lanes;

	return sysfs_emit(buf, "%u%s Gb/sec (%dX%s)\n", rate / 10,
			  rate % 10 ? ".5" : "", lanes, speeds[i].name);
}
static IB_PORT_ATTR_RO(rate);

static ssize_t lid_show(struct ib_device *ibdev, u32 port_num,
			struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	return ret ? ret : sysfs_emit(buf, "0x%x\n", attr.lid);
}
static IB_PORT_ATTR_RO(lid);

static ssize_t lid_mask_count_show(struct ib_device *ibdev, u32 port_num,
				   struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	return ret ? ret : sysfs_emit(buf, "%u\n", attr.lmc);
}
static IB_PORT_ATTR_RO(lid_mask_count);

static ssize_t sm_lid_show(struct ib_device *ibdev, u32 port_num,
			   struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	return ret ? ret : sysfs_emit(buf, "0x%x\n", attr.sm_lid);
}
static IB_PORT_ATTR_RO(sm_lid);

static ssize_t sm_sl_show(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	return ret ? ret : sysfs_emit(buf, "%u\n", attr.sm_sl);
}
static IB_PORT_ATTR_RO(sm_sl);

static ssize_t cap_mask_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	return ret ? ret : sysfs_emit(buf, "0x%08x\n", attr.port_cap_flags);
}
static IB_PORT_ATTR_RO(cap_mask);

static ssize_t link_layer_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *unused, char *buf)
{
	const char *name;

	switch (rdma_port_get_link_layer(ibdev, port_num)) {
	case IB_LINK_LAYER_INFINIBAND:
		name = "InfiniBand";
		break;
	case IB_LINK_LAYER_ETHERNET:
		name = "Ethernet";
		break;
	default:
		name = "Unknown";
		break;
	}
	return sysfs_emit(buf, "%s\n", name);
}
static IB_PORT_ATTR_RO(link_layer);

static struct attribute *port_default_attrs[] = {
	&ib_port_attr_state.attr,
	&ib_port_attr_lid.attr,
	&ib_port_attr_lid_mask_count.attr,
	&ib_port_attr_sm_lid.attr,
	&ib_port_attr_sm_sl.attr,
	&ib_port_attr_cap_mask.attr,
	&ib_port_attr_rate.attr,
	&ib_port_attr_phys_state.attr,
	&ib_port_attr_link_layer.attr,
	NULL
};
ATTRIBUTE_GROUPS(port_default);

/* ------------------------------------------------------------------ */
/* gids/, pkeys/, gid_attrs/                                            */

static u32 port_table_index(struct ib_port_attribute *attr)
{
	return container_of(attr, struct port_table_file, attr)->index;
}

/* Empty and reserved entries read as the zero GID, as they always have. */
static ssize_t gid_show(struct ib_device *ibdev, u32 port_num,
			struct ib_port_attribute *attr, char *buf)
{
	union ib_gid gid;

	if (rdma_query_gid(ibdev, port_num, port_table_index(attr), &gid))
		memset(&gid, 0, sizeof(gid));
	return sysfs_emit(buf, "%pI6\n", gid.raw);
}

static ssize_t pkey_show(struct ib_device *ibdev, u32 port_num,
			 struct ib_port_attribute *attr, char *buf)
{
	u16 pkey;
	int ret;

	ret = ib_get_cached_pkey(ibdev, port_num, port_table_index(attr),
				 &pkey);
	return ret ? ret : sysfs_emit(buf, "0x%04x\n", pkey);
}

/*
 * The GID entry behind a gid_attrs/ file, referenced.  An empty entry
 * reads as -EINVAL (not the cache's -ENODATA), which is what these files
 * have always returned and what user space checks for.
 */
static const struct ib_gid_attr *table_gid_attr(struct ib_device *ibdev,
						u32 port_num,
						struct ib_port_attribute *attr)
{
	const struct ib_gid_attr *gid_attr;

	gid_attr = rdma_get_gid_attr(ibdev, port_num, port_table_index(attr));
	return IS_ERR(gid_attr) ? ERR_PTR(-EINVAL) : gid_attr;
}

static ssize_t gid_type_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *attr, char *buf)
{
	const struct ib_gid_attr *gid_attr;
	const char *name;

	gid_attr = table_gid_attr(ibdev, port_num, attr);
	if (IS_ERR(gid_attr))
		return PTR_ERR(gid_attr);

	name = ib_cache_gid_type_str(gid_attr->gid_type);
	rdma_put_gid_attr(gid_attr);

	return sysfs_emit(buf, "%s\n", name);
}

static ssize_t gid_ndev_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *attr, char *buf)
{
	const struct ib_gid_attr *gid_attr;
	struct net_device *ndev;
	ssize_t ret;

	gid_attr = table_gid_attr(ibdev, port_num, attr);
	if (IS_ERR(gid_attr))
		return PTR_ERR(gid_attr);

	/* No net_device (IB ports, or going away) is -EINVAL here too. */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(gid_attr);
	if (IS_ERR_OR_NULL(ndev))
		ret = -EINVAL;
	else
		ret = sysfs_emit(buf, "%s\n", ndev->name);
	rcu_read_unlock();

	rdma_put_gid_attr(gid_attr);
	return ret;
}

static void port_table_free(struct port_table *table)
{
	if (!table)
		return;
	kvfree(table->attrs);
	kvfree(table);
}

/* Directory @name with read-only files "0".."@len - 1" shown by @show. */
static struct port_table *
port_table_alloc(const char *name, u32 len,
		 ssize_t (*show)(struct ib_device *ibdev, u32 port_num,
				 struct ib_port_attribute *attr, char *buf))
{
	struct port_table *table;
	u32 i;

	table = kvzalloc(struct_size(table, files, len), GFP_KERNEL);
	if (!table)
		return NULL;

	table->attrs = kvcalloc(size_add(len, 1), sizeof(*table->attrs),
				GFP_KERNEL);
	if (!table->attrs) {
		kvfree(table);
		return NULL;
	}

	for (i = 0; i < len; i++) {
		struct port_table_file *file = &table->files[i];

		snprintf(file->name, sizeof(file->name), "%u", i);
		sysfs_attr_init(&file->attr.attr);
		file->attr.attr.name = file->name;
		file->attr.attr.mode = 0444;
		file->attr.show = show;
		file->index = i;
		table->attrs[i] = &file->attr.attr;
	}

	table->group.name = name;
	table->group.attrs = table->attrs;
	return table;
}

/* ------------------------------------------------------------------ */
/* Port and gid_attrs kobjects                                          */

/*
 * Both directories hold ib_port_attribute files about the port: call
 * them with the port's device and number.
 */
static ssize_t port_file_show(struct ib_port *port, struct attribute *attr,
			      char *buf)
{
	struct ib_port_attribute *port_attr =
		container_of(attr, struct ib_port_attribute, attr);

	if (!port_attr->show)
		return -EIO;
	return port_attr->show(port->ibdev, port->port_num, port_attr, buf);
}

static ssize_t port_file_store(struct ib_port *port, struct attribute *attr,
			       const char *buf, size_t count)
{
	struct ib_port_attribute *port_attr =
		container_of(attr, struct ib_port_attribute, attr);

	if (!port_attr->store)
		return -EIO;
	return port_attr->store(port->ibdev, port->port_num, port_attr, buf,
				count);
}

static struct ib_port *to_ib_port(struct kobject *kobj)
{
	return container_of(kobj, struct ib_port, kobj);
}

static ssize_t port_attr_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	return port_file_show(to_ib_port(kobj), attr, buf);
}

static ssize_t port_attr_store(struct kobject *kobj, struct attribute *attr,
			       const char *buf, size_t count)
{
	return port_file_store(to_ib_port(kobj), attr, buf, count);
}

static const struct sysfs_ops port_sysfs_ops = {
	.show = port_attr_show,
	.store = port_attr_store,
};

static void port_release(struct kobject *kobj)
{
	struct ib_port *port = to_ib_port(kobj);

	hw_stats_data_free(port->hw_stats);
	port_table_free(port->pkeys);
	port_table_free(port->gids);
	kfree(port);
}

static const struct kobj_type port_ktype = {
	.release = port_release,
	.sysfs_ops = &port_sysfs_ops,
	.default_groups = port_default_groups,
};

static struct gid_attrs_dir *to_gid_attrs_dir(struct kobject *kobj)
{
	return container_of(kobj, struct gid_attrs_dir, kobj);
}

static ssize_t gid_attrs_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	return port_file_show(to_gid_attrs_dir(kobj)->port, attr, buf);
}

static ssize_t gid_attrs_store(struct kobject *kobj, struct attribute *attr,
			       const char *buf, size_t count)
{
	return port_file_store(to_gid_attrs_dir(kobj)->port, attr, buf, count);
}

static const struct sysfs_ops gid_attrs_sysfs_ops = {
	.show = gid_attrs_show,
	.store = gid_attrs_store,
};

static void gid_attrs_release(struct kobject *kobj)
{
	struct gid_attrs_dir *dir = to_gid_attrs_dir(kobj);

	port_table_free(dir->ndevs);
	port_table_free(dir->types);
	kfree(dir);
}

static const struct kobj_type gid_attrs_ktype = {
	.release = gid_attrs_release,
	.sysfs_ops = &gid_attrs_sysfs_ops,
};

/* ports/<N>/gid_attrs/ with types/ and ndevs/, one file per GID index. */
static int add_gid_attrs(struct ib_port *port, u32 gid_tbl_len)
{
	struct gid_attrs_dir *dir;
	int ret;

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	dir->port = port;
	kobject_init(&dir->kobj, &gid_attrs_ktype);
	/* From here on gid_attrs_release() frees dir. */

	dir->types = port_table_alloc("types", gid_tbl_len, gid_type_show);
	dir->ndevs = port_table_alloc("ndevs", gid_tbl_len, gid_ndev_show);
	if (!dir->types || !dir->ndevs) {
		ret = -ENOMEM;
		goto err_put;
	}
	dir->groups[0] = &dir->ndevs->group;
	dir->groups[1] = &dir->types->group;

	ret = kobject_add(&dir->kobj, &port->kobj, "gid_attrs");
	if (ret)
		goto err_put;
	ret = sysfs_create_groups(&dir->kobj, dir->groups);
	if (ret)
		goto err_del;

	port->gid_attrs = dir;
	return 0;

err_del:
	kobject_del(&dir->kobj);
err_put:
	kobject_put(&dir->kobj);
	return ret;
}

/* Removes the directory with everything in it, waiting for readers. */
static void del_gid_attrs(struct ib_port *port)
{
	kobject_del(&port->gid_attrs->kobj);
	kobject_put(&port->gid_attrs->kobj);
	port->gid_attrs = NULL;
}

/*
 * The tables behind gids/, pkeys/ and (for the device's own ports)
 * hw_counters/ and counters/, listed in port->groups.
 */
static int alloc_port_tables(struct ib_port *port, bool own_port)
{
	struct ib_device *ibdev = port->ibdev;
	const struct ib_port_immutable *immutable =
		&ibdev->port_data[port->port_num].immutable;
	struct hw_stats_device_data *hw_stats;
	struct rdma_hw_stats *stats;
	unsigned int n = 0;

	port->gids = port_table_alloc("gids", immutable->gid_tbl_len,
				      gid_show);
	if (!port->gids)
		return -ENOMEM;
	port->groups[n++] = &port->gids->group;

	if (immutable->pkey_tbl_len) {
		port->pkeys = port_table_alloc("pkeys",
					       immutable->pkey_tbl_len,
					       pkey_show);
		if (!port->pkeys)
			return -ENOMEM;
		port->groups[n++] = &port->pkeys->group;
	}

	if (own_port && ibdev->ops.alloc_hw_port_stats &&
	    ibdev->ops.get_hw_stats) {
		stats = ibdev->ops.alloc_hw_port_stats(ibdev, port->port_num);
		hw_stats = hw_stats_data_alloc(stats, true);
		if (IS_ERR(hw_stats))
			return PTR_ERR(hw_stats);
		port->hw_stats = hw_stats;
		port->groups[n++] = &hw_stats->group;
	}

	/* Asks the driver's PMA which counters it has. */
	if (own_port && ibdev->ops.process_mad)
		port->groups[n++] = ib_pma_counters_group(ibdev,
							  port->port_num);

	return 0;
}

static int add_port(struct ib_core_device *coredev, u32 port_num)
{
	struct ib_device *ibdev = rdma_device_to_ibdev(&coredev->dev);
	/* Per-netns compat devices show the same ports, minus counters. */
	bool own_port = coredev == &ibdev->coredev;
	struct ib_port *port;
	int ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->ibdev = ibdev;
	port->port_num = port_num;
	kobject_init(&port->kobj, &port_ktype);
	/* From here on port_release() frees port and its tables. */

	ret = alloc_port_tables(port, own_port);
	if (ret)
		goto err_put;

	ret = kobject_add(&port->kobj, coredev->ports_kobj, "%u", port_num);
	if (ret)
		goto err_put;
	ret = sysfs_create_groups(&port->kobj, port->groups);
	if (ret)
		goto err_del;
	ret = add_gid_attrs(port, ibdev->port_data[port_num].immutable.gid_tbl_len);
	if (ret)
		goto err_del;
	if (own_port) {
		ret = sysfs_create_groups(&port->kobj, ibdev->ops.port_groups);
		if (ret)
			goto err_gid_attrs;
	}

	list_add_tail(&port->list, &coredev->port_list);
	if (own_port)
		ibdev->port_data[port_num].sysfs = port;
	return 0;

err_gid_attrs:
	del_gid_attrs(port);
err_del:
	/* Takes the groups with the directory. */
	kobject_del(&port->kobj);
err_put:
	kobject_put(&port->kobj);
	return ret;
}

static void del_port(struct ib_core_device *coredev, struct ib_port *port)
{
	struct ib_device *ibdev = port->ibdev;

	list_del(&port->list);
	del_gid_attrs(port);
	/*
	 * Removes the files, client groups included, and waits for the
	 * show()/store() calls in progress; nothing reaches the port after.
	 */
	kobject_del(&port->kobj);
	if (ibdev->port_data[port->port_num].sysfs == port)
		ibdev->port_data[port->port_num].sysfs = NULL;
	kobject_put(&port->kobj);
}

/*
 * coredev->ports_kobj and coredev->port_list belong to this file; both
 * are set up here.
 */
int ib_setup_port_attrs(struct ib_core_device *coredev)
{
	struct ib_device *ibdev = rdma_device_to_ibdev(&coredev->dev);
	u32 port_num;
	int ret;

	INIT_LIST_HEAD(&coredev->port_list);
	coredev->ports_kobj = kobject_create_and_add("ports",
						     &coredev->dev.kobj);
	if (!coredev->ports_kobj)
		return -ENOMEM;

	rdma_for_each_port(ibdev, port_num) {
		ret = add_port(coredev, port_num);
		if (ret)
			goto err_free;
	}
	return 0;

err_free:
	ib_free_port_attrs(coredev);
	return ret;
}

void ib_free_port_attrs(struct ib_core_device *coredev)
{
	struct ib_port *port, *next;

	if (!coredev->ports_kobj)
		return;

	list_for_each_entry_safe_reverse(port, next, &coredev->port_list, list)
		del_port(coredev, port);

	kobject_put(coredev->ports_kobj);
	coredev->ports_kobj = NULL;
}

/* ------------------------------------------------------------------ */
/* For drivers and clients                                              */

/**
 * ib_port_sysfs_get_ibdev_kobj - the port behind a ports/<N>/ kobject
 * @kobj: the kobject of ports/<N>/, as attribute callbacks receive it
 * @port_num: set to N
 *
 * Return: the device the port belongs to.
 */
struct ib_device *ib_port_sysfs_get_ibdev_kobj(struct kobject *kobj,
					       u32 *port_num)
{
	struct ib_port *port = to_ib_port(kobj);

	*port_num = port->port_num;
	return port->ibdev;
}
EXPORT_SYMBOL(ib_port_sysfs_get_ibdev_kobj);

/**
 * ib_port_register_client_groups - add a client's files to ports/<N>/
 * @ibdev: the device, registered
 * @port_num: the port
 * @groups: NULL-terminated groups of struct ib_port_attribute files
 *
 * For a client's add() callback; undo with
 * ib_port_unregister_client_groups() from its remove() callback.
 *
 * Return: 0, or a negative errno.
 */
int ib_port_register_client_groups(struct ib_device *ibdev, u32 port_num,
				   const struct attribute_group **groups)
{
	if (!rdma_is_port_valid(ibdev, port_num) ||
	    !ibdev->port_data[port_num].sysfs)
		return -EINVAL;

	return sysfs_create_groups(&ibdev->port_data[port_num].sysfs->kobj,
				   groups);
}
EXPORT_SYMBOL(ib_port_register_client_groups);

/**
 * ib_port_unregister_client_groups - remove what ib_port_register_client_groups() added
 * @ibdev: the device
 * @port_num: the port
 * @groups: the groups given to ib_port_register_client_groups()
 */
void ib_port_unregister_client_groups(struct ib_device *ibdev, u32 port_num,
				      const struct attribute_group **groups)
{
	if (!rdma_is_port_valid(ibdev, port_num) ||
	    !ibdev->port_data[port_num].sysfs)
		return;

	sysfs_remove_groups(&ibdev->port_data[port_num].sysfs->kobj, groups);
}
EXPORT_SYMBOL(ib_port_unregister_client_groups);

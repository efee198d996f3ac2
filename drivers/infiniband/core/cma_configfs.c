// SPDX-License-Identifier: GPL-2.0-only
/*
 * configfs: /sys/kernel/config/rdma_cm/<device>/ports/<N>/ with
 * default_roce_mode (the GID type new RoCE ids use: "IB/RoCE v1" or
 * "RoCE v2") and default_roce_tos.  "mkdir rdma_cm/<device>" creates a
 * device's directory.  The directories hold the device by name only:
 * every access looks the device up, so a device may go away under them
 * and its files then answer -ENODEV.
 */
#include <linux/configfs.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"

struct cma_cfs_dev;

struct cma_cfs_port {
	struct config_group group;
	struct cma_cfs_dev *dev;
	u32 port_num;
};

struct cma_cfs_dev {
	struct config_group device_group;
	struct config_group ports_group;
	struct cma_cfs_port *ports;
	char name[IB_DEVICE_NAME_MAX];
};

static bool cma_cfs_match_name(struct ib_device *device, void *name)
{
	return !strcmp(dev_name(&device->dev), name);
}

/* The port's cma_device, referenced (cma_dev_put()), or NULL. */
static struct cma_device *cma_cfs_dev_get(struct config_item *item,
					  u32 *port)
{
	struct cma_cfs_port *p = container_of(to_config_group(item),
					      struct cma_cfs_port, group);

	*port = p->port_num;
	return cma_enum_devices_by_ibdev(cma_cfs_match_name, p->dev->name);
}

static ssize_t default_roce_mode_show(struct config_item *item, char *buf)
{
	struct cma_device *cma_dev;
	u32 port;
	int type;

	cma_dev = cma_cfs_dev_get(item, &port);
	if (!cma_dev)
		return -ENODEV;
	type = cma_get_default_gid_type(cma_dev, port);
	cma_dev_put(cma_dev);
	if (type < 0)
		return type;
	return sysfs_emit(buf, "%s\n", ib_cache_gid_type_str(type));
}

static ssize_t default_roce_mode_store(struct config_item *item,
				       const char *buf, size_t count)
{
	struct cma_device *cma_dev;
	u32 port;
	int type, ret;

	type = ib_cache_gid_parse_type_str(buf);
	if (type < 0)
		return -EINVAL;

	cma_dev = cma_cfs_dev_get(item, &port);
	if (!cma_dev)
		return -ENODEV;
	ret = cma_set_default_gid_type(cma_dev, port, type);
	cma_dev_put(cma_dev);
	return ret ?: strnlen(buf, count);
}
CONFIGFS_ATTR(, default_roce_mode);

static ssize_t default_roce_tos_show(struct config_item *item, char *buf)
{
	struct cma_device *cma_dev;
	u32 port;
	int tos;

	cma_dev = cma_cfs_dev_get(item, &port);
	if (!cma_dev)
		return -ENODEV;
	tos = cma_get_default_roce_tos(cma_dev, port);
	cma_dev_put(cma_dev);
	if (tos < 0)
		return tos;
	return sysfs_emit(buf, "%u\n", tos);
}

static ssize_t default_roce_tos_store(struct config_item *item,
				      const char *buf, size_t count)
{
	struct cma_device *cma_dev;
	u32 port;
	u8 tos;
	int ret;

	ret = kstrtou8(buf, 0, &tos);
	if (ret)
		return ret;

	cma_dev = cma_cfs_dev_get(item, &port);
	if (!cma_dev)
		return -ENODEV;
	ret = cma_set_default_roce_tos(cma_dev, port, tos);
	cma_dev_put(cma_dev);
	return ret ?: strnlen(buf, count);
}
CONFIGFS_ATTR(, default_roce_tos);

static struct configfs_attribute *cma_cfs_port_attrs[] = {
	&attr_default_roce_mode,
	&attr_default_roce_tos,
	NULL,
};

static const struct config_item_type cma_cfs_port_type = {
	.ct_attrs = cma_cfs_port_attrs,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type cma_cfs_ports_type = {
	.ct_owner = THIS_MODULE,
};

static void cma_cfs_dev_release(struct config_item *item)
{
	struct cma_cfs_dev *dev = container_of(to_config_group(item),
					       struct cma_cfs_dev,
					       device_group);

	kfree(dev->ports);
	kfree(dev);
}

static struct configfs_item_operations cma_cfs_dev_item_ops = {
	.release = cma_cfs_dev_release,
};

static const struct config_item_type cma_cfs_dev_type = {
	.ct_item_ops = &cma_cfs_dev_item_ops,
	.ct_owner = THIS_MODULE,
};

static struct config_group *cma_cfs_make_dev(struct config_group *group,
					     const char *name)
{
	struct cma_device *cma_dev;
	struct ib_device *ibdev;
	struct cma_cfs_dev *dev;
	u32 i, nports, start;
	int ret;

	cma_dev = cma_enum_devices_by_ibdev(cma_cfs_match_name, (void *)name);
	if (!cma_dev)
		return ERR_PTR(-ENODEV);
	ibdev = cma_get_ib_dev(cma_dev);
	nports = ibdev->phys_port_cnt;
	start = rdma_start_port(ibdev);

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev) {
		ret = -ENOMEM;
		goto err_put;
	}
	dev->ports = kcalloc(nports, sizeof(*dev->ports), GFP_KERNEL);
	if (!dev->ports) {
		ret = -ENOMEM;
		goto err_free;
	}
	strscpy(dev->name, name, sizeof(dev->name));

	config_group_init_type_name(&dev->ports_group, "ports",
				    &cma_cfs_ports_type);
	for (i = 0; i < nports; i++) {
		char port_str[11];

		dev->ports[i].dev = dev;
		dev->ports[i].port_num = start + i;
		snprintf(port_str, sizeof(port_str), "%u", start + i);
		config_group_init_type_name(&dev->ports[i].group, port_str,
					    &cma_cfs_port_type);
		configfs_add_default_group(&dev->ports[i].group,
					   &dev->ports_group);
	}
	config_group_init_type_name(&dev->device_group, name,
				    &cma_cfs_dev_type);
	configfs_add_default_group(&dev->ports_group, &dev->device_group);

	cma_dev_put(cma_dev);
	return &dev->device_group;

err_free:
	kfree(dev);
err_put:
	cma_dev_put(cma_dev);
	return ERR_PTR(ret);
}

static void cma_cfs_drop_dev(struct config_group *group,
			     struct config_item *item)
{
	struct cma_cfs_dev *dev = container_of(to_config_group(item),
					       struct cma_cfs_dev,
					       device_group);

	configfs_remove_default_groups(&dev->ports_group);
	configfs_remove_default_groups(&dev->device_group);
	config_item_put(item);
}

static struct configfs_group_operations cma_cfs_subsys_ops = {
	.make_group = cma_cfs_make_dev,
	.drop_item = cma_cfs_drop_dev,
};

static const struct config_item_type cma_cfs_subsys_type = {
	.ct_group_ops = &cma_cfs_subsys_ops,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem cma_cfs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "rdma_cm",
			.ci_type = &cma_cfs_subsys_type,
		},
	},
};

int __init cma_configfs_init(void)
{
	int ret;

	config_group_init(&cma_cfs_subsys.su_group);
	mutex_init(&cma_cfs_subsys.su_mutex);
	ret = configfs_register_subsystem(&cma_cfs_subsys);
	if (ret)
		mutex_destroy(&cma_cfs_subsys.su_mutex);
	return ret;
}

void cma_configfs_exit(void)
{
	configfs_unregister_subsystem(&cma_cfs_subsys);
	mutex_destroy(&cma_cfs_subsys.su_mutex);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_umad: userspace access to MADs, /dev/infiniband/umadN and issmN.
 *
 * Every port with MAD support (IB, and RoCE ports too) gets a pair of
 * char devices of class "infiniband_mad": umadN to send and receive MADs
 * through MAD agents, issmN for a subnet manager.  The numbers are the
 * ones userspace has always known: major 231, umadN at minor N and issmN
 * at minor 64 + N for the first 64 ports, dynamic regions beyond.
 *
 * Lifetime: the ports live in one umad_device per ib_device, freed when
 * the client and every port device have dropped their reference.  An
 * open file holds its port device.  Removal deletes the char devices,
 * clears port->ib_dev and unregisters the agents of every open file;
 * those files stay valid and answer -EIO until they are closed, so
 * removal never waits for userspace.
 */

#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"
#include "user_mad.h"

MODULE_DESCRIPTION("InfiniBand userspace MAD packet access");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
MODULE_ALIAS_RDMA_CLIENT("umad");
MODULE_ALIAS_RDMA_CLIENT("issm");

#define UMAD_MAJOR		231
#define UMAD_NUM_FIXED_MINOR	64
/* As many ports as ib_core allows (RDMA_MAX_PORTS). */
#define UMAD_MAX_PORTS		8192
#define UMAD_NUM_DYNAMIC_MINOR	(UMAD_MAX_PORTS - UMAD_NUM_FIXED_MINOR)
#define UMAD_CLASS_NAME		"infiniband_mad"

/* umadN at fixed minors 0..63, issmN at 64..127. */
static const dev_t umad_fixed_base = MKDEV(UMAD_MAJOR, 0);
/* umadN beyond 63 in the first half of the region, issmN in the second. */
static dev_t umad_dynamic_base;
static DEFINE_IDA(umad_ida);

static struct ib_client umad_client;

static dev_t umad_devt(int devnum, bool sm)
{
	if (devnum < UMAD_NUM_FIXED_MINOR)
		return umad_fixed_base + devnum +
		       (sm ? UMAD_NUM_FIXED_MINOR : 0);
	return umad_dynamic_base + devnum - UMAD_NUM_FIXED_MINOR +
	       (sm ? UMAD_NUM_DYNAMIC_MINOR : 0);
}

/* ---------------------------------------------------------------- */
/* Class and device attributes                                      */

/*
 * The attribute files are removed before the port forgets its device
 * (device_del() waits for their readers), so ib_dev is set here.
 */
static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct umad_port *port = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", dev_name(&port->ib_dev->dev));
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct umad_port *port = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", port->port_num);
}
static DEVICE_ATTR_RO(port);

static struct attribute *umad_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_port.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umad_dev);

static ssize_t abi_version_show(struct class *class,
				struct class_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_MAD_ABI_VERSION);
}
static CLASS_ATTR_RO(abi_version);

static struct attribute *umad_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umad_class);

/* devtmpfs's default mode (0600), as stock: MADs are for root. */
static char *umad_devnode(struct device *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

static struct class umad_class = {
	.name = UMAD_CLASS_NAME,
	.owner = THIS_MODULE,
	.devnode = umad_devnode,
	.class_groups = umad_class_groups,
	.dev_groups = umad_dev_groups,
};

/* ---------------------------------------------------------------- */
/* Ports                                                             */

static void umad_device_free(struct kref *ref)
{
	kfree(container_of(ref, struct umad_device, ref));
}

static void umad_device_put(struct umad_device *udev)
{
	kref_put(&udev->ref, umad_device_free);
}

static void umad_port_dev_release(struct device *dev)
{
	struct umad_port *port = dev_get_drvdata(dev);

	umad_device_put(port->udev);
}

/*
 * Add one of the port's char devices (umadN or issmN).  It holds a
 * reference to the umad_device from here on; on failure it is dropped
 * with the device.
 */
static int umad_port_cdev_add(struct umad_port *port, struct device *dev,
			      struct cdev *cdev,
			      const struct file_operations *fops,
			      const char *name, bool sm)
{
	int ret;

	device_initialize(dev);
	kref_get(&port->udev->ref);
	dev->class = &umad_class;
	dev->parent = port->ib_dev->dev.parent;
	dev->devt = umad_devt(port->devnum, sm);
	dev->release = umad_port_dev_release;
	dev_set_drvdata(dev, port);
	ret = dev_set_name(dev, "%s%d", name, port->devnum);
	if (ret)
		goto err_put;

	cdev_init(cdev, fops);
	cdev->owner = THIS_MODULE;
	ret = cdev_device_add(cdev, dev);
	if (ret)
		goto err_put;
	return 0;

err_put:
	put_device(dev);
	return ret;
}

static int umad_port_add(struct umad_device *udev, struct umad_port *port,
			 struct ib_device *ib_dev, u32 port_num)
{
	int ret;

	ret = ida_alloc_max(&umad_ida, UMAD_MAX_PORTS - 1, GFP_KERNEL);
	if (ret < 0)
		return ret;
	port->devnum = ret;
	port->udev = udev;
	port->port_num = port_num;
	port->ib_dev = ib_dev;
	sema_init(&port->sm_sem, 1);
	mutex_init(&port->lock);
	INIT_LIST_HEAD(&port->files);

	ret = umad_port_cdev_add(port, &port->dev, &port->cdev, &umad_fops,
				 "umad", false);
	if (ret)
		goto err_ida;
	ret = umad_port_cdev_add(port, &port->sm_dev, &port->sm_cdev,
				 &umad_sm_fops, "issm", true);
	if (ret)
		goto err_umad;
	port->added = true;
	return 0;

err_umad:
	cdev_device_del(&port->cdev, &port->dev);
	put_device(&port->dev);
err_ida:
	ida_free(&umad_ida, port->devnum);
	return ret;
}

/*
 * No new open() once the char devices are gone; the files already open
 * lose their agents and keep only their memory.
 */
static void umad_port_remove(struct umad_port *port)
{
	struct umad_file *file;

	cdev_device_del(&port->sm_cdev, &port->sm_dev);
	cdev_device_del(&port->cdev, &port->dev);

	mutex_lock(&port->lock);
	port->ib_dev = NULL;
	list_for_each_entry(file, &port->files, node)
		umad_file_kill(file);
	mutex_unlock(&port->lock);

	ida_free(&umad_ida, port->devnum);
	put_device(&port->sm_dev);
	put_device(&port->dev);
}

static void umad_remove_ports(struct umad_device *udev)
{
	u32 i;

	for (i = 0; i < udev->num_ports; i++)
		if (udev->ports[i].added)
			umad_port_remove(&udev->ports[i]);
}

/* ---------------------------------------------------------------- */
/* The ib clients                                                    */

static int umad_add_one(struct ib_device *ib_dev)
{
	u32 start = rdma_start_port(ib_dev);
	u32 end = rdma_end_port(ib_dev);
	struct umad_device *udev;
	unsigned int added = 0;
	u32 p;
	int ret;

	udev = kzalloc(struct_size(udev, ports, end - start + 1), GFP_KERNEL);
	if (!udev)
		return -ENOMEM;
	kref_init(&udev->ref);
	udev->start_port = start;
	udev->num_ports = end - start + 1;

	for (p = start; p <= end; p++) {
		if (!rdma_cap_ib_mad(ib_dev, p))
			continue;
		ret = umad_port_add(udev, &udev->ports[p - start], ib_dev, p);
		if (ret)
			goto err;
		added++;
	}
	if (!added) {
		ret = -EOPNOTSUPP;
		goto err;
	}

	ib_set_client_data(ib_dev, &umad_client, udev);
	return 0;

err:
	umad_remove_ports(udev);
	umad_device_put(udev);
	return ret;
}

static void umad_remove_one(struct ib_device *ib_dev, void *client_data)
{
	struct umad_device *udev = client_data;

	umad_remove_ports(udev);
	umad_device_put(udev);
}

/* The port a GET_CHARDEV request names, if it has char devices. */
static struct umad_port *umad_nl_port(struct ib_device *ib_dev,
				      struct umad_device *udev, u32 port_num)
{
	if (!udev)
		return ERR_PTR(-EOPNOTSUPP);
	if (!rdma_is_port_valid(ib_dev, port_num))
		return ERR_PTR(-EINVAL);
	if (!rdma_cap_ib_mad(ib_dev, port_num))
		return ERR_PTR(-EOPNOTSUPP);
	return &udev->ports[port_num - udev->start_port];
}

static int umad_get_nl_info(struct ib_device *ib_dev, void *client_data,
			    struct ib_client_nl_info *res)
{
	struct umad_port *port = umad_nl_port(ib_dev, client_data, res->port);

	if (IS_ERR(port))
		return PTR_ERR(port);
	res->abi = IB_USER_MAD_ABI_VERSION;
	res->cdev = &port->dev;
	return 0;
}

static struct ib_client umad_client = {
	.name = "umad",
	.add = umad_add_one,
	.remove = umad_remove_one,
	.get_nl_info = umad_get_nl_info,
};

/*
 * "issm" exists for GET_CHARDEV only.  It adds nothing to a device, so
 * its client data is NULL and the answer is -EOPNOTSUPP, as on stock.
 */
static int issm_get_nl_info(struct ib_device *ib_dev, void *client_data,
			    struct ib_client_nl_info *res)
{
	struct umad_port *port = umad_nl_port(ib_dev, client_data, res->port);

	if (IS_ERR(port))
		return PTR_ERR(port);
	res->abi = IB_USER_MAD_ABI_VERSION;
	res->cdev = &port->sm_dev;
	return 0;
}

static struct ib_client issm_client = {
	.name = "issm",
	.get_nl_info = issm_get_nl_info,
};

/* ---------------------------------------------------------------- */
/* Module                                                            */

static int __init ib_umad_init(void)
{
	int ret;

	ret = ib_core_oot_check(OOT_RDMA_VERSION);
	if (ret)
		return ret;

	ret = register_chrdev_region(umad_fixed_base,
				     2 * UMAD_NUM_FIXED_MINOR, UMAD_CLASS_NAME);
	if (ret)
		return ret;
	ret = alloc_chrdev_region(&umad_dynamic_base, 0,
				  2 * UMAD_NUM_DYNAMIC_MINOR, UMAD_CLASS_NAME);
	if (ret)
		goto err_fixed;
	ret = class_register(&umad_class);
	if (ret)
		goto err_dynamic;
	ret = ib_register_client(&umad_client);
	if (ret)
		goto err_class;
	ret = ib_register_client(&issm_client);
	if (ret)
		goto err_umad_client;
	return 0;

err_umad_client:
	ib_unregister_client(&umad_client);
err_class:
	class_unregister(&umad_class);
err_dynamic:
	unregister_chrdev_region(umad_dynamic_base, 2 * UMAD_NUM_DYNAMIC_MINOR);
err_fixed:
	unregister_chrdev_region(umad_fixed_base, 2 * UMAD_NUM_FIXED_MINOR);
	return ret;
}

static void __exit ib_umad_exit(void)
{
	ib_unregister_client(&issm_client);
	ib_unregister_client(&umad_client);
	class_unregister(&umad_class);
	unregister_chrdev_region(umad_dynamic_base, 2 * UMAD_NUM_DYNAMIC_MINOR);
	unregister_chrdev_region(umad_fixed_base, 2 * UMAD_NUM_FIXED_MINOR);
	ida_destroy(&umad_ida);
}

module_init(ib_umad_init);
module_exit(ib_umad_exit);

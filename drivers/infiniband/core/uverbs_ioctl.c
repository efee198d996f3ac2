// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: RDMA_VERBS_IOCTL.
 *
 * A call names an object and a method and carries attributes (struct
 * ib_uverbs_ioctl_hdr, include/uapi/rdma/rdma_user_ioctl_cmds.h).
 * Methods are described by the trees of include/rdma/uverbs_ioctl.h
 * (struct uverbs_object_def, uverbs_method_def, uverbs_attr_def): the
 * core's own and each driver's (ib_device->driver_def), looked up by
 * uverbs_find_method().
 *
 * No method exists yet.  Every call with a well-formed header answers
 * -EPROTONOSUPPORT, which libibverbs reads as "this method is not
 * supported": it then uses the write() command or sysfs for the same
 * request.
 */

#include <linux/overflow.h>
#include <linux/uaccess.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/uverbs_ioctl.h>

#include "uverbs.h"

/*
 * The method @method_id of object @object_id on @ib_dev, or NULL when the
 * device has no such method.
 */
static const struct uverbs_method_def *
uverbs_find_method(struct ib_device *ib_dev, u16 object_id, u16 method_id)
{
	return NULL;
}

static long uverbs_ioctl_dispatch(struct ib_uverbs_file *file,
				  const struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_device *dev = file->device;
	struct ib_device *ib_dev;
	int srcu_key;
	long ret;

	ib_dev = uverbs_enter_device(dev, &srcu_key);
	if (!ib_dev) {
		ret = -EIO;
		goto out;
	}

	/* The userspace provider must be the one for this device. */
	if (hdr->driver_id != ib_dev->ops.driver_id) {
		ret = -EINVAL;
		goto out;
	}

	/*
	 * Attribute parsing and the handler call come with the first
	 * method; until then every method is unknown.
	 */
	ret = -EPROTONOSUPPORT;
	if (!uverbs_find_method(ib_dev, hdr->object_id, hdr->method_id))
		goto out;
out:
	uverbs_exit_device(dev, srcu_key);
	return ret;
}

long ib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct ib_uverbs_ioctl_hdr __user *user_hdr = (void __user *)arg;
	struct ib_uverbs_file *file = filp->private_data;
	struct ib_uverbs_ioctl_hdr hdr;

	if (cmd != RDMA_VERBS_IOCTL)
		return -ENOIOCTLCMD;

	if (copy_from_user(&hdr, user_hdr, sizeof(hdr)))
		return -EFAULT;

	/* The whole request is one page at most, attributes included. */
	if (hdr.length > PAGE_SIZE ||
	    hdr.length != struct_size(&hdr, attrs, hdr.num_attrs))
		return -EINVAL;

	/* Set by a newer userspace for something we do not know. */
	if (hdr.reserved1 || hdr.reserved2)
		return -EPROTONOSUPPORT;

	return uverbs_ioctl_dispatch(file, &hdr);
}

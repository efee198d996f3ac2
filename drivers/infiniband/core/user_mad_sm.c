// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_umad: /dev/infiniband/issmN.
 *
 * A subnet manager holds issmN open while it runs: the open sets the
 * port's IsSM capability bit and the close clears it.  One process at a
 * time: a second open waits for the first to close, or fails with EAGAIN
 * under O_NONBLOCK.
 */

#include <linux/fs.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <rdma/ib_verbs.h>

#include "user_mad.h"

static int umad_sm_open(struct inode *inode, struct file *filp)
{
	struct umad_port *port =
		container_of(inode->i_cdev, struct umad_port, sm_cdev);
	struct ib_port_modify set_sm = {
		.set_port_cap_mask = IB_PORT_SM,
	};
	int ret;

	/* Held until close: the semaphore has no owner to check. */
	if (filp->f_flags & O_NONBLOCK) {
		if (down_trylock(&port->sm_sem))
			return -EAGAIN;
	} else if (down_interruptible(&port->sm_sem)) {
		return -ERESTARTSYS;
	}

	mutex_lock(&port->lock);
	if (!port->ib_dev)
		ret = -ENXIO;
	else if (!rdma_dev_access_netns(port->ib_dev, current->nsproxy->net_ns))
		ret = -EPERM;
	else
		ret = ib_modify_port(port->ib_dev, port->port_num, 0, &set_sm);
	mutex_unlock(&port->lock);
	if (ret) {
		up(&port->sm_sem);
		return ret;
	}

	get_device(&port->sm_dev);
	filp->private_data = port;
	return nonseekable_open(inode, filp);
}

static int umad_sm_release(struct inode *inode, struct file *filp)
{
	struct umad_port *port = filp->private_data;
	struct ib_port_modify clear_sm = {
		.clr_port_cap_mask = IB_PORT_SM,
	};
	int ret = 0;

	/* A removed port has no bit left to clear. */
	mutex_lock(&port->lock);
	if (port->ib_dev)
		ret = ib_modify_port(port->ib_dev, port->port_num, 0,
				     &clear_sm);
	mutex_unlock(&port->lock);

	up(&port->sm_sem);
	put_device(&port->sm_dev);
	return ret;
}

const struct file_operations umad_sm_fops = {
	.owner = THIS_MODULE,
	.open = umad_sm_open,
	.release = umad_sm_release,
	.llseek = no_llseek,
};

// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_ucm: the rdma_cm misc device /dev/infiniband/rdma_cm, through
 * which librdmacm drives rdma_cm ids: one command per write(), events
 * read back by the GET_EVENT command and announced by poll().
 *
 * Also the module: the device's abi_version attribute, the sysctl
 * net/rdma_ucm/max_backlog, and the "rdma_cm" ib_client that answers
 * RDMA_NLDEV_CMD_GET_CHARDEV (librdmacm's way to find the device and its
 * ABI version; ib_core loads us by the alias rdma-client-rdma_cm).
 */

#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"
#include "ucma_priv.h"

MODULE_DESCRIPTION("RDMA userspace connection manager access");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
MODULE_ALIAS_RDMA_CLIENT("rdma_cm");

/* Most connect requests a listener may have unread; LISTEN clamps to it. */
unsigned int ucma_max_backlog = 1024;

static struct ctl_table ucma_sysctl[] = {
	{
		.procname	= "max_backlog",
		.data		= &ucma_max_backlog,
		.maxlen		= sizeof(ucma_max_backlog),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	{ }
};

static struct ctl_table_header *ucma_sysctl_header;

typedef int (*ucma_cmd_fn)(struct ucma_file *file, const void __user *in,
			   u16 in_len, u16 out_len);

/* GET_OPTION was never implemented: no handler. */
static const ucma_cmd_fn ucma_cmds[] = {
	[RDMA_USER_CM_CMD_CREATE_ID]	 = ucma_cmd_create_id,
	[RDMA_USER_CM_CMD_DESTROY_ID]	 = ucma_cmd_destroy_id,
	[RDMA_USER_CM_CMD_BIND_IP]	 = ucma_cmd_bind_ip,
	[RDMA_USER_CM_CMD_RESOLVE_IP]	 = ucma_cmd_resolve_ip,
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = ucma_cmd_resolve_route,
	[RDMA_USER_CM_CMD_QUERY_ROUTE]	 = ucma_cmd_query_route,
	[RDMA_USER_CM_CMD_CONNECT]	 = ucma_cmd_connect,
	[RDMA_USER_CM_CMD_LISTEN]	 = ucma_cmd_listen,
	[RDMA_USER_CM_CMD_ACCEPT]	 = ucma_cmd_accept,
	[RDMA_USER_CM_CMD_REJECT]	 = ucma_cmd_reject,
	[RDMA_USER_CM_CMD_DISCONNECT]	 = ucma_cmd_disconnect,
	[RDMA_USER_CM_CMD_INIT_QP_ATTR]	 = ucma_cmd_init_qp_attr,
	[RDMA_USER_CM_CMD_GET_EVENT]	 = ucma_cmd_get_event,
	[RDMA_USER_CM_CMD_GET_OPTION]	 = NULL,
	[RDMA_USER_CM_CMD_SET_OPTION]	 = ucma_cmd_set_option,
	[RDMA_USER_CM_CMD_NOTIFY]	 = ucma_cmd_notify,
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = ucma_cmd_join_ip_mcast,
	[RDMA_USER_CM_CMD_LEAVE_MCAST]	 = ucma_cmd_leave_mcast,
	[RDMA_USER_CM_CMD_MIGRATE_ID]	 = ucma_cmd_migrate_id,
	[RDMA_USER_CM_CMD_QUERY]	 = ucma_cmd_query,
	[RDMA_USER_CM_CMD_BIND]		 = ucma_cmd_bind,
	[RDMA_USER_CM_CMD_RESOLVE_ADDR]	 = ucma_cmd_resolve_addr,
	[RDMA_USER_CM_CMD_JOIN_MCAST]	 = ucma_cmd_join_mcast,
};

static ssize_t ucma_write(struct file *filp, const char __user *buf,
			  size_t len, loff_t *pos)
{
	struct ucma_file *file = filp->private_data;
	struct rdma_ucm_cmd_hdr hdr;
	unsigned int cmd;
	int ret;

	/*
	 * A command acts with the credentials the file was opened with; a
	 * write() from another context (a setuid program given the fd, a
	 * forked child) must not act for them.
	 */
	if (!ib_safe_file_access(filp)) {
		pr_err_once("rdma_ucm: write() refused: process %d (%s) runs with other credentials than the opener of the file\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}

	if (len < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.cmd >= ARRAY_SIZE(ucma_cmds))
		return -EINVAL;
	cmd = array_index_nospec(hdr.cmd, ARRAY_SIZE(ucma_cmds));
	if (sizeof(hdr) + hdr.in > len)
		return -EINVAL;
	if (!ucma_cmds[cmd])
		return -UCMA_ENOTIMPL;

	ret = ucma_cmds[cmd](file, buf + sizeof(hdr), hdr.in, hdr.out);
	return ret ? ret : len;
}

static __poll_t ucma_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ucma_file *file = filp->private_data;

	poll_wait(filp, &file->poll_wait, wait);
	/* A racy peek is enough: a new event wakes the waiters again. */
	return list_empty_careful(&file->events) ? 0 : EPOLLIN | EPOLLRDNORM;
}

/*
 * Kept out of line under its stock name: tools count the opens of the
 * device with a kprobe on it (bpftrace -e 'kprobe:ucma_open { ... }').
 */
static noinline int ucma_open(struct inode *inode, struct file *filp)
{
	struct ucma_file *file;

	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;

	mutex_init(&file->lock);
	INIT_LIST_HEAD(&file->ctxs);
	INIT_LIST_HEAD(&file->events);
	init_waitqueue_head(&file->poll_wait);
	file->filp = filp;
	filp->private_data = file;

	return stream_open(inode, filp);
}

/*
 * The last reference is gone, so no command runs on this file and no
 * MIGRATE_ID can move a context into or out of it: only event handlers
 * race with us, and destroying a context waits for its handler.
 */
static int ucma_release(struct inode *inode, struct file *filp)
{
	struct ucma_file *file = filp->private_data;
	struct ucma_ctx *ctx;

	for (;;) {
		mutex_lock(&file->lock);
		ctx = list_first_entry_or_null(&file->ctxs, struct ucma_ctx,
					       file_entry);
		/* Only we destroy this file's published contexts now. */
		if (ctx && WARN_ON_ONCE(!ucma_ctx_claim_this(ctx))) {
			list_del_init(&ctx->file_entry);
			ctx = ERR_PTR(-EBUSY);
		}
		mutex_unlock(&file->lock);

		if (!ctx)
			break;
		if (!IS_ERR(ctx))
			ucma_ctx_destroy(ctx);
	}

	/* Every event belonged to one of the contexts just destroyed. */
	WARN_ON_ONCE(!list_empty(&file->events));
	mutex_destroy(&file->lock);
	kfree(file);
	return 0;
}

const struct file_operations ucma_fops = {
	.owner		= THIS_MODULE,
	.open		= ucma_open,
	.release	= ucma_release,
	.write		= ucma_write,
	.poll		= ucma_poll,
	.llseek		= no_llseek,
};

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RDMA_USER_CM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *ucma_dev_attrs[] = {
	&dev_attr_abi_version.attr,
	NULL
};
ATTRIBUTE_GROUPS(ucma_dev);

static struct miscdevice ucma_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "rdma_cm",
	.nodename	= "infiniband/rdma_cm",
	.mode		= 0666,
	.fops		= &ucma_fops,
	/* Created with the device, before udev hears of it. */
	.groups		= ucma_dev_groups,
};

static int ucma_get_global_nl_info(struct ib_client_nl_info *res)
{
	res->abi = RDMA_USER_CM_ABI_VERSION;
	res->cdev = ucma_misc.this_device;
	return 0;
}

/* No per-device state: the client exists for GET_CHARDEV. */
static struct ib_client ucma_client = {
	.name = "rdma_cm",
	.get_global_nl_info = ucma_get_global_nl_info,
};

static int __init ucma_init(void)
{
	int ret;

	ret = ib_core_oot_check(OOT_RDMA_VERSION);
	if (ret)
		return ret;

	ret = misc_register(&ucma_misc);
	if (ret)
		return ret;

	ucma_sysctl_header = register_net_sysctl(&init_net, "net/rdma_ucm",
						 ucma_sysctl);
	if (!ucma_sysctl_header) {
		ret = -ENOMEM;
		goto err_misc;
	}

	ret = ib_register_client(&ucma_client);
	if (ret)
		goto err_sysctl;
	return 0;

err_sysctl:
	unregister_net_sysctl_table(ucma_sysctl_header);
err_misc:
	misc_deregister(&ucma_misc);
	return ret;
}

static void __exit ucma_exit(void)
{
	ib_unregister_client(&ucma_client);
	unregister_net_sysctl_table(ucma_sysctl_header);
	misc_deregister(&ucma_misc);
}

module_init(ucma_init);
module_exit(ucma_exit);

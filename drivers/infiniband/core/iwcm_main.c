// SPDX-License-Identifier: GPL-2.0-only
/*
 * iw_cm module entry: the iWARP connection manager (iwcm*.c) and the
 * client of the iWARP port mapper daemon (iwpm*.c), as the in-tree iw_cm.
 *
 *	iwcm_wq			the ordered work queue delivering events
 *	net/iw_cm sysctl	default_backlog, the backlog of listen(0)
 *	NETLINK_RDMA client	RDMA_NL_IWCM: iwpmd's messages
 *
 * Also the reject reason strings of iWARP connections.
 */
#define pr_fmt(fmt) "iw_cm: " fmt

#include <linux/module.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/iw_cm.h>
#include <rdma/iw_portmap.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"
#include "iwcm_priv.h"

MODULE_DESCRIPTION("iWARP connection manager (oot-rdma)");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
/* iwpmd's first message loads us. */
MODULE_ALIAS_RDMA_NETLINK(RDMA_NL_IWCM, 2);

struct workqueue_struct *iwcm_wq;

/* Written as an int (proc_dointvec); listen() refuses values <= 0. */
int iwcm_default_backlog = 256;

static struct ctl_table iwcm_sysctl_table[] = {
	{
		.procname = "default_backlog",
		.data = &iwcm_default_backlog,
		.maxlen = sizeof(iwcm_default_backlog),
		.mode = 0644,
		.proc_handler = proc_dointvec,
	},
	{ }
};

static struct ctl_table_header *iwcm_sysctl;

/* iWARP reports rejections as negative errnos. */
const char *__attribute_const__ iwcm_reject_msg(int reason)
{
	switch (reason) {
	case -ECONNRESET:
		return "reset by remote host";
	case -ECONNREFUSED:
		return "refused by remote application";
	case -ETIMEDOUT:
		return "setup timeout";
	default:
		return "unrecognized reason";
	}
}
EXPORT_SYMBOL(iwcm_reject_msg);

/* The handler of each iwpmd message, by op. */
static int (*const iwpm_handlers[RDMA_NL_IWPM_NUM_OPS])(struct sk_buff *,
						      struct netlink_callback *) = {
	[RDMA_NL_IWPM_REG_PID] = iwpm_register_pid_cb,
	[RDMA_NL_IWPM_ADD_MAPPING] = iwpm_add_mapping_cb,
	[RDMA_NL_IWPM_QUERY_MAPPING] = iwpm_add_and_query_mapping_cb,
	[RDMA_NL_IWPM_REMOTE_INFO] = iwpm_remote_info_cb,
	[RDMA_NL_IWPM_HANDLE_ERR] = iwpm_mapping_error_cb,
	[RDMA_NL_IWPM_MAPINFO] = iwpm_mapping_info_cb,
	[RDMA_NL_IWPM_MAPINFO_NUM] = iwpm_ack_mapping_info_cb,
	[RDMA_NL_IWPM_HELLO] = iwpm_hello_cb,
};

static int iwcm_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned int op = RDMA_NL_GET_OP(cb->nlh->nlmsg_type);

	/* iwpmd lives in the initial namespace; nobody else speaks for it. */
	if (!net_eq(sock_net(skb->sk), &init_net))
		return -EINVAL;
	/*
	 * Only user space speaks for iwpmd, from a port that is not the
	 * kernel's (port 0): our answers go to the sender's nlmsg_pid, and
	 * answering port 0 would feed the kernel's socket its own messages.
	 */
	if (!NETLINK_CB(cb->skb).portid || !cb->nlh->nlmsg_pid ||
	    cb->nlh->nlmsg_pid > INT_MAX)
		return -EINVAL;
	if (op >= RDMA_NL_IWPM_NUM_OPS || !iwpm_handlers[op])
		return -EINVAL;
	return iwpm_handlers[op](skb, cb);
}

/*
 * iwpmd sends its answers and notifications as requests (NLM_F_REQUEST,
 * no NLM_F_DUMP): each is handled at once, with a callback that carries
 * just the message.
 */
static int iwcm_nl_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			struct netlink_ext_ack *extack)
{
	struct netlink_callback cb = {
		.skb = skb,
		.nlh = nlh,
		.extack = extack,
	};

	return iwcm_nl_dump(skb, &cb);
}

static const struct rdma_nl_cbs iwcm_nl_cbs[RDMA_NL_IWPM_NUM_OPS] = {
	[RDMA_NL_IWPM_REG_PID] = { .doit = iwcm_nl_doit, .dump = iwcm_nl_dump },
	[RDMA_NL_IWPM_ADD_MAPPING] = { .doit = iwcm_nl_doit, .dump = iwcm_nl_dump },
	[RDMA_NL_IWPM_QUERY_MAPPING] = { .doit = iwcm_nl_doit, .dump = iwcm_nl_dump },
	[RDMA_NL_IWPM_REMOTE_INFO] = { .doit = iwcm_nl_doit, .dump = iwcm_nl_dump },
	[RDMA_NL_IWPM_HANDLE_ERR] = { .doit = iwcm_nl_doit, .dump = iwcm_nl_dump },
	[RDMA_NL_IWPM_MAPINFO] = { .doit = iwcm_nl_doit, .dump = iwcm_nl_dump },
	[RDMA_NL_IWPM_MAPINFO_NUM] = { .doit = iwcm_nl_doit, .dump = iwcm_nl_dump },
	[RDMA_NL_IWPM_HELLO] = { .doit = iwcm_nl_doit, .dump = iwcm_nl_dump },
};

static int __init iw_cm_init(void)
{
	int ret;

	ret = ib_core_oot_check(OOT_RDMA_VERSION);
	if (ret)
		return ret;

	ret = iwpm_init(RDMA_NL_IWCM);
	if (ret)
		return ret;

	ret = -ENOMEM;
	iwcm_wq = alloc_ordered_workqueue("iw_cm_wq", WQ_MEM_RECLAIM);
	if (!iwcm_wq)
		goto err_iwpm;

	iwcm_sysctl = register_net_sysctl(&init_net, "net/iw_cm",
					  iwcm_sysctl_table);
	if (!iwcm_sysctl)
		goto err_wq;

	rdma_nl_register(RDMA_NL_IWCM, iwcm_nl_cbs);
	return 0;

err_wq:
	destroy_workqueue(iwcm_wq);
err_iwpm:
	iwpm_exit(RDMA_NL_IWCM);
	return ret;
}

static void __exit iw_cm_exit(void)
{
	rdma_nl_unregister(RDMA_NL_IWCM);
	unregister_net_sysctl_table(iwcm_sysctl);
	/* No id is left (each pins the module): the queue is empty. */
	destroy_workqueue(iwcm_wq);
	iwpm_exit(RDMA_NL_IWCM);
}

module_init(iw_cm_init);
module_exit(iw_cm_exit);

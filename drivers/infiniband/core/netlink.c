// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NETLINK_RDMA family.
 *
 * One kernel socket per network namespace receives every message and
 * dispatches it to the client named by the top bits of nlmsg_type
 * (RDMA_NL_GET_CLIENT): iw_cm's port mapper, the local services (ibacm) and
 * nldev, the device interface of the rdma tool and libibverbs.  Clients
 * live in other modules; an unregistered one is loaded on demand through
 * its "rdma-netlink-subsys-N" alias.
 */
#include <linux/module.h>
#include <linux/kmod.h>
#include <linux/rwsem.h>
#include <net/netlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

/*
 * Highest op + 1 of each client, from the uapi enums: a message whose op
 * is past its client's table is refused before the table is indexed.
 */
static const u16 rdma_nl_num_ops[RDMA_NL_NUM_CLIENTS] = {
	[RDMA_NL_IWCM] = RDMA_NL_IWPM_NUM_OPS,
	[RDMA_NL_LS] = RDMA_NL_LS_NUM_OPS,
	[RDMA_NL_NLDEV] = RDMA_NLDEV_NUM_OPS,
};

/**
 * struct rdma_nl_client - one registered client
 * @sem: held for read while a message runs one of @cb_table's callbacks,
 *	for write while the table is set or cleared; so unregistration
 *	waits for the callbacks in flight and the module can go away.
 * @cb_table: the client's callbacks indexed by op; NULL when none.
 */
struct rdma_nl_client {
	struct rw_semaphore sem;
	const struct rdma_nl_cbs *cb_table;
};

static struct rdma_nl_client rdma_nl_clients[RDMA_NL_NUM_CLIENTS];

/* Per-netns state: the kernel end of NETLINK_RDMA in that namespace. */
struct rdma_nl_net {
	struct sock *sk;
};

static unsigned int rdma_nl_net_id __read_mostly;

static struct sock *rdma_nl_sock(struct net *net)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);

	return rnet->sk;
}

static bool rdma_nl_client_valid(unsigned int index)
{
	return index < RDMA_NL_NUM_CLIENTS && rdma_nl_num_ops[index];
}

void rdma_nl_register(unsigned int index, const struct rdma_nl_cbs cb_table[])
{
	struct rdma_nl_client *client;

	if (WARN_ON(!rdma_nl_client_valid(index)))
		return;
	client = &rdma_nl_clients[index];

	down_write(&client->sem);
	WARN_ON(client->cb_table);
	client->cb_table = cb_table;
	up_write(&client->sem);
}
EXPORT_SYMBOL(rdma_nl_register);

void rdma_nl_unregister(unsigned int index)
{
	struct rdma_nl_client *client;

	if (WARN_ON(!rdma_nl_client_valid(index)))
		return;
	client = &rdma_nl_clients[index];

	down_write(&client->sem);
	client->cb_table = NULL;
	up_write(&client->sem);
}
EXPORT_SYMBOL(rdma_nl_unregister);

void *ibnl_put_msg(struct sk_buff *skb, struct nlmsghdr **nlh, int seq,
		   int len, int client, int op, int flags)
{
	*nlh = nlmsg_put(skb, 0, seq, RDMA_NL_GET_TYPE(client, op), len, flags);
	if (!*nlh)
		return NULL;
	return nlmsg_data(*nlh);
}
EXPORT_SYMBOL(ibnl_put_msg);

int ibnl_put_attr(struct sk_buff *skb, struct nlmsghdr *nlh,
		  int len, void *data, int type)
{
	if (nla_put(skb, type, len, data)) {
		nlmsg_cancel(skb, nlh);
		return -EMSGSIZE;
	}
	return 0;
}
EXPORT_SYMBOL(ibnl_put_attr);

int rdma_nl_unicast(struct net *net, struct sk_buff *skb, u32 pid)
{
	int ret;

	ret = netlink_unicast(rdma_nl_sock(net), skb, pid, MSG_DONTWAIT);
	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL(rdma_nl_unicast);

int rdma_nl_unicast_wait(struct net *net, struct sk_buff *skb, __u32 pid)
{
	int ret;

	ret = netlink_unicast(rdma_nl_sock(net), skb, pid, 0);
	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL(rdma_nl_unicast_wait);

int rdma_nl_multicast(struct net *net, struct sk_buff *skb,
		      unsigned int group, gfp_t flags)
{
	return nlmsg_multicast(rdma_nl_sock(net), skb, 0, group, flags);
}
EXPORT_SYMBOL(rdma_nl_multicast);

/* The listeners (ibacm, iwpmd) live in the initial namespace. */
bool rdma_nl_chk_listeners(unsigned int group)
{
	return netlink_has_listeners(rdma_nl_sock(&init_net), group);
}
EXPORT_SYMBOL(rdma_nl_chk_listeners);

/*
 * Responses from daemons (no NLM_F_REQUEST) and every local-services
 * message are handed to the client as they are: LS reuses the NLM_F_ROOT
 * bit as its error flag, so its messages must never be mistaken for dump
 * requests.  Clients that only have .dump get it called inline, with a
 * callback that carries just the message.
 */
static int rdma_nl_deliver_inline(const struct rdma_nl_cbs *cb,
				  struct sk_buff *skb, struct nlmsghdr *nlh,
				  struct netlink_ext_ack *extack)
{
	struct netlink_callback ncb = {
		.skb = skb,
		.nlh = nlh,
		.extack = extack,
	};

	if (cb->doit)
		return cb->doit(skb, nlh, extack);
	if (cb->dump)
		return cb->dump(skb, &ncb);
	return -EINVAL;
}

static int rdma_nl_dispatch(const struct rdma_nl_cbs *cb, unsigned int index,
			    struct sk_buff *skb, struct nlmsghdr *nlh,
			    struct netlink_ext_ack *extack)
{
	if (!(nlh->nlmsg_flags & NLM_F_REQUEST) || index == RDMA_NL_LS)
		return rdma_nl_deliver_inline(cb, skb, nlh, extack);

	/*
	 * iwpmd's messages always go through the dump machinery, as on the
	 * stock kernel: the daemon waits for the NLMSG_DONE that ends them.
	 * iw_cm's callbacks finish in their first call, inside
	 * netlink_dump_start(), so none of them runs after we return.
	 */
	if ((nlh->nlmsg_flags & NLM_F_DUMP) || index == RDMA_NL_IWCM) {
		struct netlink_dump_control ctl = {
			.dump = cb->dump,
			/* Dump callbacks run after we return: pin ib_core. */
			.module = THIS_MODULE,
		};

		if (!cb->dump)
			return -EINVAL;
		return netlink_dump_start(skb->sk, skb, nlh, &ctl);
	}

	if (!cb->doit)
		return -EINVAL;
	return cb->doit(skb, nlh, extack);
}

static int rdma_nl_rcv_msg(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack)
{
	unsigned int index = RDMA_NL_GET_CLIENT(nlh->nlmsg_type);
	unsigned int op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	struct rdma_nl_client *client;
	const struct rdma_nl_cbs *cb;
	int ret;

	if (!rdma_nl_client_valid(index) || op >= rdma_nl_num_ops[index])
		return -EINVAL;
	client = &rdma_nl_clients[index];

	down_read(&client->sem);
	if (!client->cb_table) {
		up_read(&client->sem);
		request_module("rdma-netlink-subsys-%u", index);
		down_read(&client->sem);
	}

	ret = -EINVAL;
	if (!client->cb_table)
		goto out;

	cb = &client->cb_table[op];
	ret = -EPERM;
	if ((cb->flags & RDMA_NL_ADMIN_PERM) &&
	    !netlink_capable(skb, CAP_NET_ADMIN))
		goto out;

	ret = rdma_nl_dispatch(cb, index, skb, nlh, extack);
out:
	up_read(&client->sem);
	return ret;
}

/*
 * Our own walk over the messages of one skb rather than
 * netlink_rcv_skb(): that one skips messages without NLM_F_REQUEST, and
 * daemons answer with exactly those.
 */
static void rdma_nl_rcv(struct sk_buff *skb)
{
	while (skb->len >= nlmsg_total_size(0)) {
		struct netlink_ext_ack extack = {};
		struct nlmsghdr *nlh = nlmsg_hdr(skb);
		u32 msglen;
		int err;

		if (nlh->nlmsg_len < NLMSG_HDRLEN || skb->len < nlh->nlmsg_len)
			return;

		/*
		 * Control messages (NOOP, DONE, ERROR) carry nothing for us
		 * but are acknowledged when asked to be, like any other.
		 */
		err = 0;
		if (nlh->nlmsg_type >= NLMSG_MIN_TYPE)
			err = rdma_nl_rcv_msg(skb, nlh, &extack);
		/* -EINTR: a dump was started; it answers by itself. */
		if (err != -EINTR && (err || (nlh->nlmsg_flags & NLM_F_ACK)))
			netlink_ack(skb, nlh, err, &extack);

		msglen = NLMSG_ALIGN(nlh->nlmsg_len);
		if (msglen > skb->len)
			msglen = skb->len;
		skb_pull(skb, msglen);
	}
}

static int __net_init rdma_nl_net_init(struct net *net)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);
	struct netlink_kernel_cfg cfg = {
		.input = rdma_nl_rcv,
		.groups = RDMA_NL_NUM_GROUPS,
	};

	rnet->sk = netlink_kernel_create(net, NETLINK_RDMA, &cfg);
	return rnet->sk ? 0 : -ENOMEM;
}

static void __net_exit rdma_nl_net_exit(struct net *net)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);

	netlink_kernel_release(rnet->sk);
	rnet->sk = NULL;
}

static struct pernet_operations rdma_nl_net_ops = {
	.init = rdma_nl_net_init,
	.exit = rdma_nl_net_exit,
	.id = &rdma_nl_net_id,
	.size = sizeof(struct rdma_nl_net),
};

int __init rdma_nl_init(void)
{
	unsigned int i;

	for (i = 0; i < RDMA_NL_NUM_CLIENTS; i++)
		init_rwsem(&rdma_nl_clients[i].sem);

	return register_pernet_subsys(&rdma_nl_net_ops);
}

void rdma_nl_exit(void)
{
	unsigned int i;

	/* Every client module holds a reference on us: all are gone. */
	for (i = 0; i < RDMA_NL_NUM_CLIENTS; i++)
		WARN(rdma_nl_clients[i].cb_table,
		     "netlink client %u still registered\n", i);

	unregister_pernet_subsys(&rdma_nl_net_ops);
}

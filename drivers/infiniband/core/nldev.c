// SPDX-License-Identifier: GPL-2.0-only
/*
 * nldev: the RDMA_NL_NLDEV client of NETLINK_RDMA, the interface of the
 * rdma tool (iproute2) and of libibverbs' device discovery.
 *
 * Every request names its device by RDMA_NLDEV_ATTR_DEV_INDEX and, for
 * port operations, its port by RDMA_NLDEV_ATTR_PORT_INDEX; a device that
 * is missing or not visible from the caller's network namespace is
 * -EINVAL, as is a port the device does not have.  Replies start with the
 * device's index and name.  Dumps resume from cb->args[0]: the next device
 * index, port number or object id.
 *
 * Also here: the rdma_link_ops registry behind "rdma link add", and the
 * system-wide settings of "rdma system".
 */
#include <linux/bitmap.h>
#include <linux/module.h>
#include <linux/kdev_t.h>
#include <linux/kmod.h>
#include <linux/pid_namespace.h>
#include <linux/rwsem.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
/* kABI: struct net_generic defined, as stock's file sees it (core.rst) */
#include <net/netns/generic.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "core_priv.h"
#include "cma_priv.h"
#include "uverbs.h"

/* ---------------------------------------------------------------- */
/* System settings                                                  */

/*
 * Whether users without CAP_NET_RAW may give their QPs a privileged Q_Key
 * (top bit set); off by default.  ib_uverbs asks when a Q_Key is set.
 */
static bool privileged_qkey;

/**
 * rdma_nl_get_privileged_qkey() - "rdma system set privileged-qkey" state
 *
 * Return: true when any user may set a privileged Q_Key, false when
 * that takes CAP_NET_RAW.
 */
bool rdma_nl_get_privileged_qkey(void)
{
	return READ_ONCE(privileged_qkey);
}
EXPORT_SYMBOL(rdma_nl_get_privileged_qkey);

/* ---------------------------------------------------------------- */
/* rdma_link_ops: the drivers "rdma link add" can create devices of. */

/*
 * Protects link_ops.  NEWLINK holds it for read across ->newlink(), so
 * rdma_link_unregister() waits for calls in flight before the driver
 * module goes away.
 */
static DECLARE_RWSEM(link_ops_rwsem);
static LIST_HEAD(link_ops);

static const struct rdma_link_ops *link_ops_find(const char *type)
{
	const struct rdma_link_ops *ops;

	lockdep_assert_held(&link_ops_rwsem);

	list_for_each_entry(ops, &link_ops, list)
		if (!strcmp(ops->type, type))
			return ops;
	return NULL;
}

/**
 * rdma_link_register() - let "rdma link add ... type @ops->type" create
 *	devices through @ops->newlink
 * @ops: the driver's link operations; registered once per type
 */
void rdma_link_register(struct rdma_link_ops *ops)
{
	down_write(&link_ops_rwsem);
	if (WARN_ON_ONCE(link_ops_find(ops->type)))
		goto out;
	list_add(&ops->list, &link_ops);
out:
	up_write(&link_ops_rwsem);
}
EXPORT_SYMBOL(rdma_link_register);

/**
 * rdma_link_unregister() - undo rdma_link_register()
 * @ops: the driver's link operations
 *
 * Returns once no NEWLINK runs @ops->newlink any more.
 */
void rdma_link_unregister(struct rdma_link_ops *ops)
{
	down_write(&link_ops_rwsem);
	list_del(&ops->list);
	up_write(&link_ops_rwsem);
}
EXPORT_SYMBOL(rdma_link_unregister);

/* ---------------------------------------------------------------- */
/* Requests and replies                                             */

/*
 * What a request may carry.  Name lengths are the stock stack's: a name
 * one byte too long for its buffer passes and is cut by nla_strscpy(),
 * longer ones fail validation.  Reply-only attributes are listed too, so
 * that nothing the uapi defines reaches a handler unvalidated.
 */
static const struct nla_policy nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				       .len = IB_DEVICE_NAME_MAX },
	[RDMA_NLDEV_ATTR_PORT_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CAP_FLAGS] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_FW_VERSION] = { .type = NLA_NUL_STRING,
					 .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_NODE_GUID] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_SUBNET_PREFIX] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_LID] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_SM_LID] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_LMC] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_STATE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_PHYS_STATE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_SUMMARY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] = {
		.type = NLA_NUL_STRING, .len = RDMA_NLDEV_ATTR_ENTRY_STRLEN },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_QP] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_QP_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_LQPN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RQPN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RQ_PSN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_SQ_PSN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_TYPE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_STATE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_PID] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_KERN_NAME] = { .type = NLA_NUL_STRING,
					    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_RES_CM_ID] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_PS] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_SRC_ADDR] = {
		.len = sizeof(struct __kernel_sockaddr_storage) },
	[RDMA_NLDEV_ATTR_RES_DST_ADDR] = {
		.len = sizeof(struct __kernel_sockaddr_storage) },
	[RDMA_NLDEV_ATTR_RES_CQ] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CQ_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CQE] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_USECNT] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_POLL_CTX] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_MR] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_MR_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_RKEY] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_LKEY] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_IOVA] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_MRLEN] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_PD] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_PD_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_NAME] = { .type = NLA_NUL_STRING,
					.len = IFNAMSIZ },
	[RDMA_NLDEV_ATTR_DRIVER] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_DRIVER_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_DRIVER_STRING] = { .type = NLA_NUL_STRING,
					    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DRIVER_S32] = { .type = NLA_S32 },
	[RDMA_NLDEV_ATTR_DRIVER_U32] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DRIVER_S64] = { .type = NLA_S64 },
	[RDMA_NLDEV_ATTR_DRIVER_U64] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_PDN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CQN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_MRN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CM_IDN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CTXN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_LINK_TYPE] = { .type = NLA_NUL_STRING,
					.len = IFNAMSIZ },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_PROTOCOL] = { .type = NLA_NUL_STRING,
					   .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_NET_NS_FD] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE] = {
		.type = NLA_NUL_STRING,
		.len = RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE },
	[RDMA_NLDEV_ATTR_CHARDEV_NAME] = { .type = NLA_NUL_STRING,
					   .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_CHARDEV_ABI] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_CHARDEV] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_MODE] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_RES] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_COUNTER] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ID] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = {
		.type = NLA_NUL_STRING, .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_DEV_DIM] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_RAW] = { .type = NLA_BINARY },
	[RDMA_NLDEV_ATTR_RES_CTX] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CTX_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQ] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQ_ENTRY] = { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_MIN_RANGE] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_MAX_RANGE] = { .type = NLA_U32 },
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] = { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DRIVER_DETAILS] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_SUBTYPE] = { .type = NLA_NUL_STRING,
					  .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
};

/*
 * The rdma tool and older libraries set attribute flags loosely and send
 * attributes newer than us: parse liberally, as the stock stack does.
 */
static int nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb,
		       struct netlink_ext_ack *extack)
{
	return nlmsg_parse_deprecated(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1,
				      nldev_policy, extack);
}

/* The device a request names, referenced; NULL when there is none. */
static struct ib_device *nldev_get_device(struct sk_buff *skb,
					  struct nlattr **tb)
{
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return NULL;
	return ib_device_get_by_index(sock_net(skb->sk),
				      nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
}

/* A new reply to the request @req received in @skb, with its header. */
static struct sk_buff *nldev_reply_new(struct sk_buff *skb,
				       const struct nlmsghdr *req, u32 cmd,
				       struct nlmsghdr **nlh)
{
	struct sk_buff *msg;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return NULL;

	*nlh = nlmsg_put(msg, NETLINK_CB(skb).portid, req->nlmsg_seq,
			 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, 0);
	if (!*nlh) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int nldev_reply_send(struct sk_buff *skb, struct sk_buff *msg,
			    struct nlmsghdr *nlh)
{
	nlmsg_end(msg, nlh);
	return rdma_nl_unicast(sock_net(skb->sk), msg, NETLINK_CB(skb).portid);
}

/* One message of a dump, answering the request of @cb. */
static struct nlmsghdr *nldev_dump_msg(struct sk_buff *skb,
				       struct netlink_callback *cb, u32 cmd)
{
	return nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, NLM_F_MULTI);
}

static int nldev_put_handle(struct sk_buff *msg, struct ib_device *device)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, device->index) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, dev_name(&device->dev)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Dump one message per device visible from the caller's namespace, each
 * filled by @fill after the handle.
 */
static int nldev_dump_devices(struct sk_buff *skb, struct netlink_callback *cb,
			      u32 cmd,
			      int (*fill)(struct sk_buff *msg,
					  struct ib_device *device, void *arg),
			      void *arg)
{
	unsigned long index = cb->args[0];
	struct ib_device *device;
	struct nlmsghdr *nlh;
	int ret;

	while ((device = ib_device_get_next(sock_net(skb->sk), &index))) {
		nlh = nldev_dump_msg(skb, cb, cmd);
		ret = nlh ? nldev_put_handle(skb, device) : -EMSGSIZE;
		if (!ret)
			ret = fill(skb, device, arg);
		ib_device_put(device);
		if (ret) {
			if (nlh)
				nlmsg_cancel(skb, nlh);
			break;
		}
		nlmsg_end(skb, nlh);
		index++;
	}

	cb->args[0] = index;
	return skb->len;
}

/* ---------------------------------------------------------------- */
/* GET, SET: devices                                                */

static const char *nldev_protocol(struct ib_device *device)
{
	u32 port = rdma_start_port(device);

	/* A device's ports share one protocol; the first port tells. */
	if (rdma_protocol_ib(device, port))
		return "ib";
	if (rdma_protocol_iwarp(device, port))
		return "iw";
	if (rdma_protocol_roce(device, port))
		return "roce";
	if (rdma_protocol_usnic(device, port))
		return "usnic";
	return NULL;
}

static int nldev_fill_dev(struct sk_buff *msg, struct ib_device *device,
			  void *unused)
{
	char fw[IB_FW_VERSION_NAME_MAX] = {};
	const char *protocol;

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, rdma_end_port(device)))
		return -EMSGSIZE;

	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS,
			      device->attrs.device_cap_flags,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;

	ib_get_device_fw_str(device, fw);
	/* Devices without firmware have no version to show. */
	if (fw[0] && nla_put_string(msg, RDMA_NLDEV_ATTR_FW_VERSION, fw))
		return -EMSGSIZE;

	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_NODE_GUID,
			      be64_to_cpu(device->node_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
			      be64_to_cpu(device->attrs.sys_image_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, device->node_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, device->use_cq_dim))
		return -EMSGSIZE;

	protocol = nldev_protocol(device);
	if (protocol &&
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_PROTOCOL, protocol))
		return -EMSGSIZE;
	return 0;
}

static int nldev_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_GET, &rnlh);
	if (!msg) {
		ret = -ENOMEM;
		goto out_put;
	}

	ret = nldev_put_handle(msg, device) ?: nldev_fill_dev(msg, device, NULL);
	if (ret) {
		nlmsg_free(msg);
		goto out_put;
	}
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_put:
	ib_device_put(device);
	return ret;
}

static int nldev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nldev_dump_devices(skb, cb, RDMA_NLDEV_CMD_GET, nldev_fill_dev,
				  NULL);
}

static int nldev_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char name[IB_DEVICE_NAME_MAX];
	struct ib_device *device;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	if (tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
		nla_strscpy(name, tb[RDMA_NLDEV_ATTR_DEV_NAME], sizeof(name));
		ret = ib_device_rename(device, name);
	} else if (tb[RDMA_NLDEV_NET_NS_FD]) {
		/* Drops the reference: the move waits for all of them. */
		return ib_device_set_netns_put(skb, device,
					       nla_get_u32(tb[RDMA_NLDEV_NET_NS_FD]));
	} else if (tb[RDMA_NLDEV_ATTR_DEV_DIM]) {
		ret = ib_device_set_dim(device,
					nla_get_u8(tb[RDMA_NLDEV_ATTR_DEV_DIM]));
	}

	ib_device_put(device);
	return ret;
}

/* ---------------------------------------------------------------- */
/* NEWLINK, DELLINK                                                 */

static int nldev_newlink(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char ibdev_name[IB_DEVICE_NAME_MAX];
	const struct rdma_link_ops *ops;
	char ndev_name[IFNAMSIZ];
	struct net_device *ndev;
	char type[IFNAMSIZ];
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_NAME] || !tb[RDMA_NLDEV_ATTR_LINK_TYPE] ||
	    !tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		return -EINVAL;

	nla_strscpy(ibdev_name, tb[RDMA_NLDEV_ATTR_DEV_NAME],
		    sizeof(ibdev_name));
	/* The name is the device's own: no "%d" templates from users. */
	if (!ibdev_name[0] || strchr(ibdev_name, '%'))
		return -EINVAL;

	nla_strscpy(type, tb[RDMA_NLDEV_ATTR_LINK_TYPE], sizeof(type));
	nla_strscpy(ndev_name, tb[RDMA_NLDEV_ATTR_NDEV_NAME],
		    sizeof(ndev_name));

	ndev = dev_get_by_name(sock_net(skb->sk), ndev_name);
	if (!ndev)
		return -ENODEV;

	down_read(&link_ops_rwsem);
	ops = link_ops_find(type);
	if (!ops) {
		up_read(&link_ops_rwsem);
		request_module("rdma-link-%s", type);
		down_read(&link_ops_rwsem);
		ops = link_ops_find(type);
	}
	ret = ops ? ops->newlink(ibdev_name, ndev) : -EINVAL;
	up_read(&link_ops_rwsem);

	dev_put(ndev);
	return ret;
}

static int nldev_dellink(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	/* Only devices made by "rdma link add" may be removed by users. */
	if (!(device->attrs.kernel_cap_flags & IBK_ALLOW_USER_UNREG)) {
		ib_device_put(device);
		return -EINVAL;
	}

	ib_unregister_device_and_put(device);
	return 0;
}

/* ---------------------------------------------------------------- */
/* PORT_GET                                                         */

/* The netdev is shown only to callers in its namespace. */
static int nldev_fill_port_netdev(struct sk_buff *msg,
				  struct ib_device *device, u32 port,
				  const struct net *net)
{
	struct net_device *ndev;
	int ret = 0;

	ndev = ib_device_get_netdev(device, port);
	if (!ndev)
		return 0;

	if (net_eq(dev_net(ndev), net) &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_NDEV_INDEX, ndev->ifindex) ||
	     nla_put_string(msg, RDMA_NLDEV_ATTR_NDEV_NAME, ndev->name)))
		ret = -EMSGSIZE;

	dev_put(ndev);
	return ret;
}

static int nldev_fill_port(struct sk_buff *msg, struct ib_device *device,
			   u32 port, const struct net *net)
{
	struct ib_port_attr attr;
	u64 cap_flags;
	int ret;

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -EMSGSIZE;

	ret = ib_query_port(device, port, &attr);
	if (ret)
		return ret;

	/* LIDs, the subnet and the CapabilityMask exist on IB ports only. */
	if (rdma_protocol_ib(device, port)) {
		cap_flags = attr.port_cap_flags |
			    (u64)attr.port_cap_flags2 << 32;
		if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS, cap_flags,
				      RDMA_NLDEV_ATTR_PAD) ||
		    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SUBNET_PREFIX,
				      attr.subnet_prefix, RDMA_NLDEV_ATTR_PAD) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_LID, attr.lid) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_SM_LID, attr.sm_lid) ||
		    nla_put_u8(msg, RDMA_NLDEV_ATTR_LMC, attr.lmc))
			return -EMSGSIZE;
	}

	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_STATE, attr.state) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, attr.phys_state))
		return -EMSGSIZE;

	return nldev_fill_port_netdev(msg, device, port, net);
}

static int nldev_port_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (!rdma_is_port_valid(device, port)) {
		ret = -EINVAL;
		goto out_put;
	}

	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_PORT_GET, &rnlh);
	if (!msg) {
		ret = -ENOMEM;
		goto out_put;
	}

	ret = nldev_put_handle(msg, device) ?:
	      nldev_fill_port(msg, device, port, sock_net(skb->sk));
	if (ret) {
		nlmsg_free(msg);
		goto out_put;
	}
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_put:
	ib_device_put(device);
	return ret;
}

static int nldev_port_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *nlh;
	u32 port;
	int ret;

	ret = nldev_parse(cb->nlh, tb, NULL);
	if (ret)
		return ret;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	for (port = max_t(u32, cb->args[0], rdma_start_port(device));
	     port <= rdma_end_port(device); port++) {
		nlh = nldev_dump_msg(skb, cb, RDMA_NLDEV_CMD_PORT_GET);
		ret = nlh ? nldev_put_handle(skb, device) : -EMSGSIZE;
		if (!ret)
			ret = nldev_fill_port(skb, device, port,
					      sock_net(skb->sk));
		if (ret) {
			if (nlh)
				nlmsg_cancel(skb, nlh);
			break;
		}
		nlmsg_end(skb, nlh);
	}

	cb->args[0] = port;
	ib_device_put(device);
	return skb->len;
}

/* ---------------------------------------------------------------- */
/* SYS_GET, SYS_SET                                                 */

static int nldev_sys_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;

	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_SYS_GET, &rnlh);
	if (!msg)
		return -ENOMEM;

	/*
	 * Copy-on-fork: fork() gives the child copies of pinned pages
	 * instead of breaking the parent's registrations (mm does so since
	 * 5.12), so libraries need no madvise(MADV_DONTFORK) workaround.
	 */
	if (nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE,
		       READ_ONCE(ib_devices_shared_netns)) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE,
		       rdma_nl_get_privileged_qkey()) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nldev_reply_send(skb, msg, rnlh);
}

/* Both settings are booleans: anything but 0 and 1 is refused. */
static int nldev_sys_get_bool(struct nlattr *attr, bool *value)
{
	u8 raw = nla_get_u8(attr);

	if (raw > 1)
		return -EINVAL;
	*value = raw;
	return 0;
}

static int nldev_sys_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	bool value;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] &&
	    !tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE])
		return -EINVAL;

	if (tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]) {
		ret = nldev_sys_get_bool(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE],
					 &value);
		if (!ret)
			ret = rdma_compatdev_set(value);
		if (ret)
			return ret;
	}

	if (tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE]) {
		ret = nldev_sys_get_bool(tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE],
					 &value);
		if (ret)
			return ret;
		WRITE_ONCE(privileged_qkey, value);
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* GET_CHARDEV                                                      */

/* After what the client put: the reply has no device handle. */
static int nldev_fill_chardev(struct sk_buff *msg,
			      const struct ib_client_nl_info *info)
{
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV,
			      huge_encode_dev(info->cdev->devt),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, info->abi,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME,
			   dev_name(info->cdev)))
		return -EMSGSIZE;
	return 0;
}

static int nldev_get_chardev(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack)
{
	char client[RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE];
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_client_nl_info info = {};
	struct ib_device *ibdev = NULL;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE])
		return -EINVAL;
	nla_strscpy(client, tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE], sizeof(client));

	/* Without a device, a port means nothing. */
	info.port = -1;
	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		ibdev = nldev_get_device(skb, tb);
		if (!ibdev)
			return -EINVAL;
		if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
			info.port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
			if (!rdma_is_port_valid(ibdev, info.port)) {
				ret = -EINVAL;
				goto out_put;
			}
		}
	} else if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		return -EINVAL;
	}

	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_GET_CHARDEV, &rnlh);
	if (!msg) {
		ret = -ENOMEM;
		goto out_put;
	}

	info.nl_msg = msg;
	ret = ib_get_client_nl_info(ibdev, client, &info);
	if (ret)
		goto out_free;

	ret = nldev_fill_chardev(msg, &info);
	put_device(info.cdev);
	if (ret)
		goto out_free;

	if (ibdev)
		ib_device_put(ibdev);
	return nldev_reply_send(skb, msg, rnlh);

out_free:
	nlmsg_free(msg);
out_put:
	if (ibdev)
		ib_device_put(ibdev);
	return ret;
}

/* ---------------------------------------------------------------- */
/* RES_GET: object counts per type                                  */

/* The summary's types, in the order the tools show them. */
static const enum rdma_restrack_type nldev_summary_types[] = {
	RDMA_RESTRACK_PD, RDMA_RESTRACK_CQ, RDMA_RESTRACK_QP,
	RDMA_RESTRACK_CM_ID, RDMA_RESTRACK_MR, RDMA_RESTRACK_CTX,
	RDMA_RESTRACK_SRQ,
};

static int nldev_fill_summary_entry(struct sk_buff *msg, const char *name,
				    u64 count)
{
	struct nlattr *entry;

	entry = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
	if (!entry)
		return -EMSGSIZE;

	if (nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, name) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, count,
			      RDMA_NLDEV_ATTR_PAD)) {
		nla_nest_cancel(msg, entry);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, entry);
	return 0;
}

/* @arg: bool, also count the driver's internal objects. */
static int nldev_fill_res_summary(struct sk_buff *msg,
				  struct ib_device *device, void *arg)
{
	bool show_details = *(bool *)arg;
	enum rdma_restrack_type type;
	struct nlattr *table;
	unsigned int i;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!table)
		return -EMSGSIZE;

	for (i = 0; i < ARRAY_SIZE(nldev_summary_types); i++) {
		type = nldev_summary_types[i];
		if (nldev_fill_summary_entry(msg, rdma_restrack_type_name(type),
					     rdma_restrack_count(device, type,
								 show_details))) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, table);
	return 0;
}

static bool nldev_show_details(struct nlattr **tb)
{
	return tb[RDMA_NLDEV_ATTR_DRIVER_DETAILS] &&
	       nla_get_u8(tb[RDMA_NLDEV_ATTR_DRIVER_DETAILS]);
}

static int nldev_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	bool show_details;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_RES_GET, &rnlh);
	if (!msg) {
		ret = -ENOMEM;
		goto out_put;
	}

	show_details = nldev_show_details(tb);
	ret = nldev_put_handle(msg, device) ?:
	      nldev_fill_res_summary(msg, device, &show_details);
	if (ret) {
		nlmsg_free(msg);
		goto out_put;
	}
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_put:
	ib_device_put(device);
	return ret;
}

static int nldev_res_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	bool show_details = false;

	/* Dumps of old tools carry no attributes at all; that is fine. */
	if (!nldev_parse(cb->nlh, tb, NULL))
		show_details = nldev_show_details(tb);

	return nldev_dump_devices(skb, cb, RDMA_NLDEV_CMD_RES_GET,
				  nldev_fill_res_summary, &show_details);
}

/* ---------------------------------------------------------------- */
/* RES_*_GET: the tracked objects                                   */

/*
 * Each fill puts one object's attributes.  @admin: the caller has
 * CAP_NET_ADMIN and may see keys.  @port: when nonzero, only objects of
 * that port are wanted; others answer -EAGAIN.
 */
typedef int (*nldev_fill_res_t)(struct sk_buff *msg, bool admin,
				struct rdma_restrack_entry *res, u32 port);

static int nldev_fill_res_owner(struct sk_buff *msg,
				struct rdma_restrack_entry *res)
{
	pid_t pid;

	if (rdma_is_kernel_res(res)) {
		if (res->kern_name &&
		    nla_put_string(msg, RDMA_NLDEV_ATTR_RES_KERN_NAME,
				   res->kern_name))
			return -EMSGSIZE;
		return 0;
	}

	/* Users read the name from /proc/PID/comm; 0 = not in our pid ns. */
	pid = task_pid_vnr(res->task);
	if (pid && nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PID, pid))
		return -EMSGSIZE;
	return 0;
}

static bool nldev_qp_is_connected(const struct ib_qp *qp)
{
	return qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC;
}

/*
 * The QP's current attributes come from the driver.  ib_query_qp() lives
 * with the verbs, which ib_core does not carry yet, so ask the driver
 * directly; it only reads.
 */
static int nldev_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr)
{
	struct ib_qp_init_attr init_attr = {};

	if (!qp->device->ops.query_qp)
		return -EOPNOTSUPP;
	memset(attr, 0, sizeof(*attr));
	return qp->device->ops.query_qp(qp, attr, 0, &init_attr);
}

static int nldev_fill_qp_state(struct sk_buff *msg, struct ib_qp *qp,
			       const struct ib_qp_attr *attr)
{
	bool connected = nldev_qp_is_connected(qp);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp->qp_num))
		return -EMSGSIZE;
	if (connected &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQPN, attr->dest_qp_num) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQ_PSN, attr->rq_psn)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SQ_PSN, attr->sq_psn))
		return -EMSGSIZE;
	if (connected && nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE,
				    attr->path_mig_state))
		return -EMSGSIZE;
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, qp->qp_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE, attr->qp_state))
		return -EMSGSIZE;
	return 0;
}

static int nldev_fill_qp(struct sk_buff *msg, bool admin,
			 struct rdma_restrack_entry *res, u32 port)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);
	struct ib_device *dev = qp->device;
	struct ib_qp_attr attr;
	int ret;

	ret = nldev_query_qp(qp, &attr);
	if (ret)
		return ret;

	if (port && port != attr.port_num)
		return -EAGAIN;
	/* Until the QP is bound to a port it has none to show. */
	if (attr.port_num &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, attr.port_num))
		return -EMSGSIZE;

	ret = nldev_fill_qp_state(msg, qp, &attr);
	if (ret)
		return ret;

	if (!rdma_is_kernel_res(res) && qp->pd &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, qp->pd->res.id))
		return -EMSGSIZE;

	ret = nldev_fill_res_owner(msg, res);
	if (ret)
		return ret;
	return dev->ops.fill_res_qp_entry ?
	       dev->ops.fill_res_qp_entry(msg, qp) : 0;
}

static int nldev_fill_qp_raw(struct sk_buff *msg, bool admin,
			     struct rdma_restrack_entry *res, u32 port)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);

	if (port && port != qp->port)
		return -EAGAIN;
	if (!qp->device->ops.fill_res_qp_entry_raw)
		return -EOPNOTSUPP;
	return qp->device->ops.fill_res_qp_entry_raw(msg, qp);
}

/*
 * A connection manager id: its public part and the state rdma_cm keeps
 * in struct rdma_id_private.  Read without rdma_cm's locks, as stock:
 * each field is a word or an address the id only rewrites while it is
 * not yet connected, so a reader sees a value the id had.
 */
static int nldev_fill_cm_id(struct sk_buff *msg, bool admin,
			    struct rdma_restrack_entry *res, u32 port)
{
	struct rdma_id_private *id_priv =
		container_of(res, struct rdma_id_private, res);
	struct rdma_cm_id *cm_id = &id_priv->id;
	struct rdma_addr *addr = &cm_id->route.addr;
	u32 id_port = READ_ONCE(cm_id->port_num);
	u32 qp_num = READ_ONCE(id_priv->qp_num);

	if (port && port != id_port)
		return -EAGAIN;
	if (id_port && nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, id_port))
		return -EMSGSIZE;
	if (qp_num &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp_num) ||
	     nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, cm_id->qp_type)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PS, cm_id->ps) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE, READ_ONCE(id_priv->state)))
		return -EMSGSIZE;
	if (addr->src_addr.ss_family &&
	    nla_put(msg, RDMA_NLDEV_ATTR_RES_SRC_ADDR, sizeof(addr->src_addr),
		    &addr->src_addr))
		return -EMSGSIZE;
	if (addr->dst_addr.ss_family &&
	    nla_put(msg, RDMA_NLDEV_ATTR_RES_DST_ADDR, sizeof(addr->dst_addr),
		    &addr->dst_addr))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CM_IDN, res->id))
		return -EMSGSIZE;
	if (nldev_fill_res_owner(msg, res))
		return -EMSGSIZE;
	return cm_id->device->ops.fill_res_cm_id_entry ?
	       cm_id->device->ops.fill_res_cm_id_entry(msg, cm_id) : 0;
}

static int nldev_fill_cq(struct sk_buff *msg, bool admin,
			 struct rdma_restrack_entry *res, u32 port)
{
	struct ib_cq *cq = container_of(res, struct ib_cq, res);
	struct ib_device *dev = cq->device;
	int ret;

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQE, cq->cqe) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT,
			      atomic_read(&cq->usecnt), RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;

	/* Only kernel CQs have a polling context. */
	if (rdma_is_kernel_res(res) &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_POLL_CTX, cq->poll_ctx))
		return -EMSGSIZE;

	/* Stock reports moderation for every CQ: "off" for user CQs. */
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, !!cq->dim) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, res->id))
		return -EMSGSIZE;

	if (!rdma_is_kernel_res(res) && cq->uobject &&
	    cq->uobject->uevent.uobject.context &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN,
			cq->uobject->uevent.uobject.context->res.id))
		return -EMSGSIZE;

	ret = nldev_fill_res_owner(msg, res);
	if (ret)
		return ret;
	return dev->ops.fill_res_cq_entry ?
	       dev->ops.fill_res_cq_entry(msg, cq) : 0;
}

static int nldev_fill_cq_raw(struct sk_buff *msg, bool admin,
			     struct rdma_restrack_entry *res, u32 port)
{
	struct ib_cq *cq = container_of(res, struct ib_cq, res);

	if (!cq->device->ops.fill_res_cq_entry_raw)
		return -EOPNOTSUPP;
	return cq->device->ops.fill_res_cq_entry_raw(msg, cq);
}

static int nldev_fill_mr(struct sk_buff *msg, bool admin,
			 struct rdma_restrack_entry *res, u32 port)
{
	struct ib_mr *mr = container_of(res, struct ib_mr, res);
	struct ib_device *dev = mr->device;
	int ret;

	/* Keys grant access to the memory: administrators only. */
	if (admin &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RKEY, mr->rkey) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LKEY, mr->lkey)))
		return -EMSGSIZE;

	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_MRLEN, mr->length,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_MRN, res->id))
		return -EMSGSIZE;

	if (!rdma_is_kernel_res(res) && mr->pd &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, mr->pd->res.id))
		return -EMSGSIZE;

	ret = nldev_fill_res_owner(msg, res);
	if (ret)
		return ret;
	return dev->ops.fill_res_mr_entry ?
	       dev->ops.fill_res_mr_entry(msg, mr) : 0;
}

static int nldev_fill_mr_raw(struct sk_buff *msg, bool admin,
			     struct rdma_restrack_entry *res, u32 port)
{
	struct ib_mr *mr = container_of(res, struct ib_mr, res);

	if (!mr->device->ops.fill_res_mr_entry_raw)
		return -EOPNOTSUPP;
	return mr->device->ops.fill_res_mr_entry_raw(msg, mr);
}

/* "rdma stat mr": the driver's per-MR counters. */
static int nldev_fill_stat_mr(struct sk_buff *msg, bool admin,
			      struct rdma_restrack_entry *res, u32 port)
{
	struct ib_mr *mr = container_of(res, struct ib_mr, res);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_MRN, res->id))
		return -EMSGSIZE;
	return mr->device->ops.fill_stat_mr_entry ?
	       mr->device->ops.fill_stat_mr_entry(msg, mr) : 0;
}

static int nldev_fill_pd(struct sk_buff *msg, bool admin,
			 struct rdma_restrack_entry *res, u32 port)
{
	struct ib_pd *pd = container_of(res, struct ib_pd, res);

	if (admin) {
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY,
				pd->local_dma_lkey))
			return -EMSGSIZE;
		if ((pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY) &&
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY,
				pd->unsafe_global_rkey))
			return -EMSGSIZE;
	}

	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT,
			      atomic_read(&pd->usecnt), RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, res->id))
		return -EMSGSIZE;

	if (!rdma_is_kernel_res(res) && pd->uobject && pd->uobject->context &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN,
			pd->uobject->context->res.id))
		return -EMSGSIZE;

	return nldev_fill_res_owner(msg, res);
}

static int nldev_fill_ctx(struct sk_buff *msg, bool admin,
			  struct rdma_restrack_entry *res, u32 port)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN, res->id))
		return -EMSGSIZE;
	return nldev_fill_res_owner(msg, res);
}

/* One entry of an SRQ's QP list: a QP number or a range of them. */
static int nldev_put_qpn_range(struct sk_buff *msg, u32 first, u32 last)
{
	struct nlattr *entry;

	entry = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	if (!entry)
		return -EMSGSIZE;

	if (first == last) {
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, first))
			goto err;
	} else if (nla_put_u32(msg, RDMA_NLDEV_ATTR_MIN_RANGE, first) ||
		   nla_put_u32(msg, RDMA_NLDEV_ATTR_MAX_RANGE, last)) {
		goto err;
	}
	nla_nest_end(msg, entry);
	return 0;

err:
	nla_nest_cancel(msg, entry);
	return -EMSGSIZE;
}

/*
 * The QPs receiving from @srq, as ranges of consecutive QP numbers; QPs
 * are tracked by QP number, so they come in ascending order.  An SRQ
 * without QPs has the table too, empty, as stock sends it: the rdma
 * tool skips an SRQ whose entry has no QP table.
 */
static int nldev_fill_srq_qps(struct sk_buff *msg, struct ib_srq *srq)
{
	struct rdma_restrack_entry *res;
	u32 qpn, first = 0, last = 0;
	unsigned long id = 0;
	struct nlattr *table;
	bool uses_srq, any = false;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_QP);
	if (!table)
		return -EMSGSIZE;

	while ((res = rdma_restrack_get_next(srq->device, RDMA_RESTRACK_QP,
					     &id))) {
		uses_srq = container_of(res, struct ib_qp, res)->srq == srq;
		qpn = container_of(res, struct ib_qp, res)->qp_num;
		rdma_restrack_put(res);
		id++;

		if (!uses_srq)
			continue;
		if (any && qpn == last + 1) {
			last = qpn;
			continue;
		}
		if (any && nldev_put_qpn_range(msg, first, last))
			goto err;
		first = qpn;
		last = qpn;
		any = true;
	}

	if (any && nldev_put_qpn_range(msg, first, last))
		goto err;
	nla_nest_end(msg, table);
	return 0;

err:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

static int nldev_fill_srq(struct sk_buff *msg, bool admin,
			  struct rdma_restrack_entry *res, u32 port)
{
	struct ib_srq *srq = container_of(res, struct ib_srq, res);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SRQN, res->id) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, srq->srq_type) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, srq->pd->res.id))
		return -EMSGSIZE;

	if (ib_srq_has_cq(srq->srq_type) &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, srq->ext.cq->res.id))
		return -EMSGSIZE;

	if (nldev_fill_srq_qps(msg, srq))
		return -EMSGSIZE;

	return nldev_fill_res_owner(msg, res);
}

/* The QPs bound to @counter, by number (RES_QP of RES_QP_ENTRY). */
static int nldev_fill_counter_qps(struct sk_buff *msg,
				  struct rdma_counter *counter)
{
	struct rdma_restrack_entry *res;
	struct nlattr *table, *entry;
	unsigned long id = 0;
	struct ib_qp *qp;
	int ret = 0;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_RES_QP);
	if (!table)
		return -EMSGSIZE;

	while (!ret &&
	       (res = rdma_restrack_get_next(counter->device,
					     RDMA_RESTRACK_QP, &id))) {
		qp = container_of(res, struct ib_qp, res);
		/* Only compared: the binding may change as we look. */
		if (READ_ONCE(qp->counter) == counter) {
			entry = nla_nest_start(msg, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
			if (!entry ||
			    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN,
					qp->qp_num))
				ret = -EMSGSIZE;
			else
				nla_nest_end(msg, entry);
		}
		rdma_restrack_put(res);
		id++;
	}
	if (ret) {
		nla_nest_cancel(msg, table);
		return ret;
	}
	nla_nest_end(msg, table);
	return 0;
}

/*
 * A STAT_HWCOUNTERS table of @stats' enabled counters, each with the
 * value of @totals (@n values, or NULL) at its index added.
 */
static int nldev_put_hwcounter_table(struct sk_buff *msg,
				     const struct rdma_hw_stats *stats,
				     const u64 *totals, unsigned int n)
{
	struct nlattr *table;
	u64 value;
	int i;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table)
		return -EMSGSIZE;

	for (i = 0; i < stats->num_counters; i++) {
		if (stats->is_disabled && test_bit(i, stats->is_disabled))
			continue;
		value = stats->value[i];
		if (totals && i < n)
			value += totals[i];
		if (rdma_nl_stat_hwcounter_entry(msg, stats->descs[i].name,
						 value)) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, table);
	return 0;
}

/* The counter's values, fresh from the driver. */
static int nldev_fill_counter_values(struct sk_buff *msg,
				     struct rdma_counter *counter)
{
	int ret;

	ret = rdma_counter_query_stats(counter);
	if (ret)
		return ret;

	mutex_lock(&counter->lock);
	ret = nldev_put_hwcounter_table(msg, counter->stats, NULL, 0);
	mutex_unlock(&counter->lock);
	return ret;
}

/*
 * A QP counter set: its port, id, mode, the QP type of an auto counter
 * by type, its owner (the first QP's), values and QPs.
 */
static int nldev_fill_counter(struct sk_buff *msg, bool admin,
			      struct rdma_restrack_entry *res, u32 port)
{
	struct rdma_counter *counter =
		container_of(res, struct rdma_counter, res);
	int ret;

	if (port && port != counter->port)
		return -EAGAIN;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, counter->port) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, counter->id) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_MODE, counter->mode.mode))
		return -EMSGSIZE;
	if (counter->mode.mode == RDMA_COUNTER_MODE_AUTO &&
	    (counter->mode.mask & RDMA_COUNTER_MASK_QP_TYPE) &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE,
		       counter->mode.param.qp_type))
		return -EMSGSIZE;
	ret = nldev_fill_res_owner(msg, res);
	if (!ret)
		ret = nldev_fill_counter_values(msg, counter);
	if (!ret)
		ret = nldev_fill_counter_qps(msg, counter);
	return ret;
}

/**
 * struct nldev_res_kind - how one kind of object is listed
 * @type: the restrack table
 * @cmd: the command of the replies
 * @table_attr: in a dump, the nest of a device's objects
 * @entry_attr: in a dump, the nest of one object
 * @id_attr: selects the object of a doit
 * @per_dev: objects without a port: a port filter is refused
 * @fill: the object's attributes
 */
struct nldev_res_kind {
	enum rdma_restrack_type type;
	u8 cmd;
	u16 table_attr;
	u16 entry_attr;
	u16 id_attr;
	bool per_dev;
	nldev_fill_res_t fill;
};

#define NLDEV_RES(_cmd, _type, _table, _id, _per_dev, _fill)		\
	{								\
		.type = _type, .cmd = _cmd,				\
		.table_attr = _table, .entry_attr = _table##_ENTRY,	\
		.id_attr = _id, .per_dev = _per_dev, .fill = _fill,	\
	}

/* Indexed by the command that lists them. */
static const struct nldev_res_kind nldev_res_kinds[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_RES_QP_GET] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_QP_GET, RDMA_RESTRACK_QP,
			  RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_LQPN, false,
			  nldev_fill_qp),
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_CM_ID_GET, RDMA_RESTRACK_CM_ID,
			  RDMA_NLDEV_ATTR_RES_CM_ID, RDMA_NLDEV_ATTR_RES_CM_IDN, false,
			  nldev_fill_cm_id),
	[RDMA_NLDEV_CMD_RES_CQ_GET] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_RESTRACK_CQ,
			  RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQN, true,
			  nldev_fill_cq),
	[RDMA_NLDEV_CMD_RES_MR_GET] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_MR_GET, RDMA_RESTRACK_MR,
			  RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MRN, true,
			  nldev_fill_mr),
	[RDMA_NLDEV_CMD_RES_PD_GET] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_PD_GET, RDMA_RESTRACK_PD,
			  RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PDN, true,
			  nldev_fill_pd),
	[RDMA_NLDEV_CMD_RES_CTX_GET] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_CTX_GET, RDMA_RESTRACK_CTX,
			  RDMA_NLDEV_ATTR_RES_CTX, RDMA_NLDEV_ATTR_RES_CTXN, true,
			  nldev_fill_ctx),
	[RDMA_NLDEV_CMD_RES_SRQ_GET] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_SRQ_GET, RDMA_RESTRACK_SRQ,
			  RDMA_NLDEV_ATTR_RES_SRQ, RDMA_NLDEV_ATTR_RES_SRQN, true,
			  nldev_fill_srq),
	[RDMA_NLDEV_CMD_RES_QP_GET_RAW] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_QP_GET_RAW, RDMA_RESTRACK_QP,
			  RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_LQPN, false,
			  nldev_fill_qp_raw),
	[RDMA_NLDEV_CMD_RES_CQ_GET_RAW] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_CQ_GET_RAW, RDMA_RESTRACK_CQ,
			  RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQN, true,
			  nldev_fill_cq_raw),
	[RDMA_NLDEV_CMD_RES_MR_GET_RAW] =
		NLDEV_RES(RDMA_NLDEV_CMD_RES_MR_GET_RAW, RDMA_RESTRACK_MR,
			  RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MRN, true,
			  nldev_fill_mr_raw),
};

/* STAT_GET with STAT_RES: the QP counters, or the MRs' counters. */
static const struct nldev_res_kind nldev_stat_counters = {
	.type = RDMA_RESTRACK_COUNTER, .cmd = RDMA_NLDEV_CMD_STAT_GET,
	.table_attr = RDMA_NLDEV_ATTR_STAT_COUNTER,
	.entry_attr = RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY,
	.id_attr = RDMA_NLDEV_ATTR_STAT_COUNTER_ID,
	.fill = nldev_fill_counter,
};

static const struct nldev_res_kind nldev_stat_mrs = {
	.type = RDMA_RESTRACK_MR, .cmd = RDMA_NLDEV_CMD_STAT_GET,
	.table_attr = RDMA_NLDEV_ATTR_RES_MR,
	.entry_attr = RDMA_NLDEV_ATTR_RES_MR_ENTRY,
	.id_attr = RDMA_NLDEV_ATTR_RES_MRN, .per_dev = true,
	.fill = nldev_fill_stat_mr,
};

static const struct nldev_res_kind *nldev_res_kind_of(const struct nlmsghdr *nlh)
{
	return &nldev_res_kinds[RDMA_NL_GET_OP(nlh->nlmsg_type)];
}

/* The optional port filter of a request: 0 for none. */
static int nldev_res_port(const struct nldev_res_kind *kind,
			  struct ib_device *device, struct nlattr **tb,
			  u32 *port)
{
	*port = 0;
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return 0;
	if (kind->per_dev)
		return -EINVAL;
	*port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	return rdma_is_port_valid(device, *port) ? 0 : -EINVAL;
}

static int nldev_res_object_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				 struct netlink_ext_ack *extack,
				 const struct nldev_res_kind *kind)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_restrack_entry *res;
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[kind->id_attr])
		return -EINVAL;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	ret = nldev_res_port(kind, device, tb, &port);
	if (ret)
		goto out_put;

	res = rdma_restrack_get_byid(device, kind->type,
				     nla_get_u32(tb[kind->id_attr]));
	if (IS_ERR(res)) {
		ret = PTR_ERR(res);
		goto out_put;
	}
	msg = nldev_reply_new(skb, nlh, kind->cmd, &rnlh);
	if (!msg) {
		ret = -ENOMEM;
		goto out_res;
	}

	ret = nldev_put_handle(msg, device) ?:
	      kind->fill(msg, netlink_capable(skb, CAP_NET_ADMIN), res, port);
	if (ret) {
		/* Asked for an object of another port: there is none. */
		if (ret == -EAGAIN)
			ret = -ENOENT;
		nlmsg_free(msg);
		goto out_res;
	}

	rdma_restrack_put(res);
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_res:
	rdma_restrack_put(res);
out_put:
	ib_device_put(device);
	return ret;
}

/*
 * Put @device's objects from cb->args[0] on into the open table nest.
 * Return: 0 at the end of the table, -EMSGSIZE when the message is full
 * (resume from cb->args[0]), or a fill error.  *@filled tells whether
 * any object went in.
 */
static int nldev_res_fill_table(struct sk_buff *skb,
				struct netlink_callback *cb,
				const struct nldev_res_kind *kind,
				struct ib_device *device, u32 port,
				bool *filled)
{
	bool admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	unsigned long id = cb->args[0];
	struct rdma_restrack_entry *res;
	struct nlattr *entry;
	int ret = 0;

	while ((res = rdma_restrack_get_next(device, kind->type, &id))) {
		entry = nla_nest_start_noflag(skb, kind->entry_attr);
		ret = entry ? kind->fill(skb, admin, res, port) : -EMSGSIZE;
		rdma_restrack_put(res);
		if (ret) {
			if (entry)
				nla_nest_cancel(skb, entry);
			if (ret != -EAGAIN)
				break;
			ret = 0;
		} else {
			nla_nest_end(skb, entry);
			*filled = true;
		}
		id++;
	}

	cb->args[0] = id;
	return ret;
}

/*
 * One message per call with as many of the device's objects as fit; an
 * empty table ends the dump, so a device without objects answers with
 * no message at all.
 */
static int nldev_res_object_dump(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 const struct nldev_res_kind *kind)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlattr *table;
	struct nlmsghdr *nlh;
	bool filled = false;
	u32 port;
	int ret;

	ret = nldev_parse(cb->nlh, tb, NULL);
	if (ret)
		return ret;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	ret = nldev_res_port(kind, device, tb, &port);
	if (ret)
		goto out_put;

	nlh = nldev_dump_msg(skb, cb, kind->cmd);
	if (!nlh) {
		ret = -EMSGSIZE;
		goto out_put;
	}
	table = NULL;
	if (!nldev_put_handle(skb, device))
		table = nla_nest_start_noflag(skb, kind->table_attr);
	if (!table) {
		ret = -EMSGSIZE;
		goto out_cancel;
	}

	ret = nldev_res_fill_table(skb, cb, kind, device, port, &filled);
	if (ret == -EMSGSIZE && filled)
		ret = 0;
	if (ret || !filled)
		goto out_cancel;

	nla_nest_end(skb, table);
	nlmsg_end(skb, nlh);
	ib_device_put(device);
	return skb->len;

out_cancel:
	nlmsg_cancel(skb, nlh);
out_put:
	ib_device_put(device);
	return ret;
}

static int nldev_res_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	return nldev_res_object_doit(skb, nlh, extack, nldev_res_kind_of(nlh));
}

static int nldev_res_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nldev_res_object_dump(skb, cb, nldev_res_kind_of(cb->nlh));
}

/* ---------------------------------------------------------------- */
/* STAT_*: hardware counters                                        */

/* The device and port a statistics request names, both required. */
static struct ib_device *nldev_stat_port(struct sk_buff *skb,
					 struct nlattr **tb, u32 *port)
{
	struct ib_device *device;

	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return NULL;

	device = nldev_get_device(skb, tb);
	if (!device)
		return NULL;

	*port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (!rdma_is_port_valid(device, *port) ||
	    !device->ops.alloc_hw_port_stats || !device->ops.get_hw_stats) {
		ib_device_put(device);
		return NULL;
	}
	return device;
}

/*
 * The argument of the ib_hw_stats_read() callbacks: the reply, and for
 * STAT_GET what the port's QP counter sets counted (@totals, @n values,
 * or NULL), added to the driver's own counters.
 */
struct nldev_stat_arg {
	struct sk_buff *msg;
	u64 *totals;
	unsigned int n;
};

/* ib_hw_stats_read() callback: every enabled counter and its value. */
static int nldev_put_hwcounters(const struct rdma_hw_stats *stats, void *arg)
{
	struct nldev_stat_arg *a = arg;

	return nldev_put_hwcounter_table(a->msg, stats, a->totals, a->n);
}

/*
 * ib_hw_stats_read() callback: every counter by name and index, and for
 * the optional ones whether they are enabled.
 */
static int nldev_put_counter_status(struct sk_buff *msg,
				    const struct rdma_hw_stats *stats, int i)
{
	bool optional = stats->descs[i].flags & IB_STAT_FLAG_OPTIONAL;
	bool enabled = !stats->is_disabled || !test_bit(i, stats->is_disabled);
	struct nlattr *entry;

	entry = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	if (!entry)
		return -EMSGSIZE;

	if (nla_put_string(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
			   stats->descs[i].name) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, i) ||
	    (optional &&
	     nla_put_u8(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, enabled))) {
		nla_nest_cancel(msg, entry);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, entry);
	return 0;
}

static int nldev_put_counters_status(const struct rdma_hw_stats *stats,
				     void *arg)
{
	struct sk_buff *msg = ((struct nldev_stat_arg *)arg)->msg;
	struct nlattr *table;
	int i;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table)
		return -EMSGSIZE;

	for (i = 0; i < stats->num_counters; i++) {
		if (nldev_put_counter_status(msg, stats, i)) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, table);
	return 0;
}

/* A reply of the device's port counters, built by @put. */
static int nldev_stat_reply(struct sk_buff *skb, struct nlmsghdr *nlh,
			    struct nlattr **tb, u32 cmd,
			    int (*put)(const struct rdma_hw_stats *stats,
				       void *arg))
{
	struct nldev_stat_arg arg = {};
	struct rdma_hw_stats *stats;
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	u32 port;
	int ret;

	device = nldev_stat_port(skb, tb, &port);
	if (!device)
		return -EINVAL;

	/* Before the stats' lock: the counter sets have locks of their own. */
	stats = ib_hw_stats_get(device, port);
	if (cmd == RDMA_NLDEV_CMD_STAT_GET && stats &&
	    device->ops.counter_bind_qp) {
		arg.n = stats->num_counters;
		arg.totals = kcalloc(arg.n, sizeof(*arg.totals), GFP_KERNEL);
		if (!arg.totals) {
			ret = -ENOMEM;
			goto out_put;
		}
		rdma_counter_port_totals(device, port, arg.totals, arg.n);
	}

	arg.msg = nldev_reply_new(skb, nlh, cmd, &rnlh);
	if (!arg.msg) {
		ret = -ENOMEM;
		goto out_put;
	}

	ret = nldev_put_handle(arg.msg, device);
	if (!ret && nla_put_u32(arg.msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		ret = -EMSGSIZE;
	if (!ret)
		ret = ib_hw_stats_read(device, port, put, &arg);
	if (ret) {
		nlmsg_free(arg.msg);
		goto out_put;
	}
	kfree(arg.totals);
	ib_device_put(device);
	return nldev_reply_send(skb, arg.msg, rnlh);

out_put:
	kfree(arg.totals);
	ib_device_put(device);
	return ret;
}

/* "rdma stat qp mode": the port's mode, and in auto mode its criteria. */
static int nldev_stat_qp_mode(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct nlattr **tb)
{
	enum rdma_nl_counter_mode mode;
	enum rdma_nl_counter_mask mask;
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port;
	int ret;

	device = nldev_get_device(skb, tb);
	if (!device)
		return -EINVAL;

	port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	ret = rdma_counter_get_mode(device, port, &mode, &mask);
	if (ret)
		goto out_put;

	ret = -ENOMEM;
	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_STAT_GET, &rnlh);
	if (!msg)
		goto out_put;

	if (nldev_put_handle(msg, device) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_MODE, mode) ||
	    (mode == RDMA_COUNTER_MODE_AUTO &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK, mask))) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto out_put;
	}
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_put:
	ib_device_put(device);
	return ret;
}

static int nldev_stat_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;

	if (!tb[RDMA_NLDEV_ATTR_STAT_RES])
		return nldev_stat_reply(skb, nlh, tb, RDMA_NLDEV_CMD_STAT_GET,
					nldev_put_hwcounters);

	switch (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES])) {
	case RDMA_NLDEV_ATTR_RES_QP:
		if (tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID])
			return nldev_res_object_doit(skb, nlh, extack,
						     &nldev_stat_counters);
		if (!tb[RDMA_NLDEV_ATTR_STAT_MODE])
			return -EINVAL;
		return nldev_stat_qp_mode(skb, nlh, tb);
	case RDMA_NLDEV_ATTR_RES_MR:
		return nldev_res_object_doit(skb, nlh, extack, &nldev_stat_mrs);
	default:
		return -EINVAL;
	}
}

static int nldev_stat_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	int ret;

	ret = nldev_parse(cb->nlh, tb, NULL);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_STAT_RES])
		return -EINVAL;

	switch (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES])) {
	case RDMA_NLDEV_ATTR_RES_QP:
		return nldev_res_object_dump(skb, cb, &nldev_stat_counters);
	case RDMA_NLDEV_ATTR_RES_MR:
		return nldev_res_object_dump(skb, cb, &nldev_stat_mrs);
	default:
		return -EINVAL;
	}
}

static int nldev_stat_get_status_doit(struct sk_buff *skb,
				      struct nlmsghdr *nlh,
				      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;

	return nldev_stat_reply(skb, nlh, tb, RDMA_NLDEV_CMD_STAT_GET_STATUS,
				nldev_put_counters_status);
}

/*
 * "rdma statistic set link DEV/PORT optional-counters A,B": @list holds
 * the indexes (STAT_HWCOUNTER_INDEX, as STAT_GET_STATUS numbers them) of
 * the optional counters to enable; every other optional counter of the
 * port is disabled.  The whole list is checked before anything changes.
 */
static int nldev_stat_set_optional(struct ib_device *device, u32 port,
				   const struct nlattr *list,
				   struct netlink_ext_ack *extack)
{
	struct rdma_hw_stats *stats;
	unsigned long *enable;
	struct nlattr *entry;
	int rem, i, ret = 0;
	u32 index;

	stats = ib_hw_stats_get(device, port);
	if (!stats)
		return -EINVAL;

	/* num_counters and descs are fixed for the container's life. */
	enable = bitmap_zalloc(stats->num_counters, GFP_KERNEL);
	if (!enable)
		return -ENOMEM;

	nla_for_each_nested(entry, list, rem) {
		if (nla_len(entry) != sizeof(u32)) {
			ret = -EINVAL;
			goto out;
		}
		index = nla_get_u32(entry);
		if (index >= stats->num_counters ||
		    !(stats->descs[index].flags & IB_STAT_FLAG_OPTIONAL)) {
			NL_SET_ERR_MSG(extack, "Not an optional counter");
			ret = -EINVAL;
			goto out;
		}
		__set_bit(index, enable);
	}

	for (i = 0; i < stats->num_counters && !ret; i++)
		if (stats->descs[i].flags & IB_STAT_FLAG_OPTIONAL)
			ret = rdma_counter_modify(device, port, i,
						  test_bit(i, enable));
out:
	bitmap_free(enable);
	return ret;
}

/*
 * "rdma statistic qp set link DEV/PORT auto ..." (STAT_MODE auto, with the
 * criteria) and "rdma statistic qp bind" (STAT_MODE manual, a QP number
 * and maybe a counter id).  A binding is answered with the counter's id
 * and the QP number in @msg.
 */
static int nldev_stat_set_mode(struct ib_device *device, u32 port,
			       struct nlattr **tb, struct sk_buff *msg,
			       struct netlink_ext_ack *extack)
{
	u32 qpn, cntn;
	int ret;

	if (!tb[RDMA_NLDEV_ATTR_STAT_RES] ||
	    nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES]) != RDMA_NLDEV_ATTR_RES_QP)
		return -EINVAL;

	switch (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_MODE])) {
	case RDMA_COUNTER_MODE_AUTO:
		if (!tb[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK])
			return -EINVAL;
		return rdma_counter_set_auto_mode(device, port,
			nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK]),
			extack);
	case RDMA_COUNTER_MODE_MANUAL:
		if (!tb[RDMA_NLDEV_ATTR_RES_LQPN])
			return -EINVAL;
		qpn = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]);
		if (tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]) {
			cntn = nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]);
			ret = rdma_counter_bind_qpn(device, port, qpn, cntn);
		} else {
			ret = rdma_counter_bind_qpn_alloc(device, port, qpn,
							  &cntn);
		}
		if (ret)
			return ret;
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, cntn) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qpn)) {
			rdma_counter_unbind_qpn(device, port, qpn, cntn);
			return -EMSGSIZE;
		}
		return 0;
	default:
		return -EINVAL;
	}
}

/* A STAT_SET or STAT_DEL: its device and port, and the reply begun. */
struct nldev_stat_req {
	struct ib_device *device;
	u32 port;
	struct sk_buff *msg;
	struct nlmsghdr *rnlh;
};

/*
 * The device and port @tb names, and a reply of @cmd that starts with
 * them (as stock's).  On error nothing is held.
 */
static int nldev_stat_req_begin(struct sk_buff *skb, struct nlmsghdr *nlh,
				struct nlattr **tb, u32 cmd,
				struct nldev_stat_req *req)
{
	int ret = -EINVAL;

	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;
	req->device = nldev_get_device(skb, tb);
	if (!req->device)
		return -EINVAL;
	req->port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (!rdma_is_port_valid(req->device, req->port))
		goto out_put;

	ret = -ENOMEM;
	req->msg = nldev_reply_new(skb, nlh, cmd, &req->rnlh);
	if (!req->msg)
		goto out_put;
	if (!nldev_put_handle(req->msg, req->device) &&
	    !nla_put_u32(req->msg, RDMA_NLDEV_ATTR_PORT_INDEX, req->port))
		return 0;
	ret = -EMSGSIZE;
	nlmsg_free(req->msg);
out_put:
	ib_device_put(req->device);
	return ret;
}

/* Sends the reply when @ret is 0, else drops it; lets the device go. */
static int nldev_stat_req_end(struct sk_buff *skb, struct nldev_stat_req *req,
			      int ret)
{
	ib_device_put(req->device);
	if (ret) {
		nlmsg_free(req->msg);
		return ret;
	}
	return nldev_reply_send(skb, req->msg, req->rnlh);
}

/*
 * STAT_SET: a port's QP counter mode or binding (STAT_MODE), else which
 * of its optional counters are shown (STAT_HWCOUNTERS).
 */
static int nldev_stat_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nldev_stat_req req;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_STAT_MODE] &&
	    !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return -EINVAL;

	ret = nldev_stat_req_begin(skb, nlh, tb, RDMA_NLDEV_CMD_STAT_SET, &req);
	if (ret)
		return ret;
	if (tb[RDMA_NLDEV_ATTR_STAT_MODE])
		ret = nldev_stat_set_mode(req.device, req.port, tb, req.msg,
					  extack);
	else
		ret = nldev_stat_set_optional(req.device, req.port,
					      tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS],
					      extack);
	return nldev_stat_req_end(skb, &req, ret);
}

/* "rdma statistic qp unbind": a QP let go from its manual counter. */
static int nldev_stat_del_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nldev_stat_req req;
	u32 cntn, qpn;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_STAT_RES] ||
	    !tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID] || !tb[RDMA_NLDEV_ATTR_RES_LQPN])
		return -EINVAL;
	if (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES]) != RDMA_NLDEV_ATTR_RES_QP)
		return -EINVAL;
	cntn = nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]);
	qpn = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]);

	ret = nldev_stat_req_begin(skb, nlh, tb, RDMA_NLDEV_CMD_STAT_DEL, &req);
	if (ret)
		return ret;
	if (nla_put_u32(req.msg, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, cntn) ||
	    nla_put_u32(req.msg, RDMA_NLDEV_ATTR_RES_LQPN, qpn))
		ret = -EMSGSIZE;
	else
		ret = rdma_counter_unbind_qpn(req.device, req.port, qpn, cntn);
	return nldev_stat_req_end(skb, &req, ret);
}

/* ---------------------------------------------------------------- */

static const struct rdma_nl_cbs nldev_cb_table[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = {
		.doit = nldev_get_doit,
		.dump = nldev_get_dumpit,
	},
	[RDMA_NLDEV_CMD_GET_CHARDEV] = {
		.doit = nldev_get_chardev,
	},
	[RDMA_NLDEV_CMD_SET] = {
		.doit = nldev_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_NEWLINK] = {
		.doit = nldev_newlink,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_DELLINK] = {
		.doit = nldev_dellink,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_PORT_GET] = {
		.doit = nldev_port_get_doit,
		.dump = nldev_port_get_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_GET] = {
		.doit = nldev_res_get_doit,
		.dump = nldev_res_get_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_QP_GET] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_CQ_GET] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_MR_GET] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_PD_GET] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_CTX_GET] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
	},
	[RDMA_NLDEV_CMD_SYS_GET] = {
		.doit = nldev_sys_get_doit,
	},
	[RDMA_NLDEV_CMD_SYS_SET] = {
		.doit = nldev_sys_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_STAT_SET] = {
		.doit = nldev_stat_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_STAT_GET] = {
		.doit = nldev_stat_get_doit,
		.dump = nldev_stat_get_dumpit,
	},
	[RDMA_NLDEV_CMD_STAT_DEL] = {
		.doit = nldev_stat_del_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_RES_QP_GET_RAW] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_RES_CQ_GET_RAW] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_RES_MR_GET_RAW] = {
		.doit = nldev_res_doit,
		.dump = nldev_res_dumpit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_STAT_GET_STATUS] = {
		.doit = nldev_stat_get_status_doit,
	},
};

void __init nldev_init(void)
{
	rdma_nl_register(RDMA_NL_NLDEV, nldev_cb_table);
}

void nldev_exit(void)
{
	rdma_nl_unregister(RDMA_NL_NLDEV);
}

/*
 * Helpers for drivers' fill_res_*_entry callbacks: one driver attribute is
 * a name string, an optional print type and the value, inside the
 * RDMA_NLDEV_ATTR_DRIVER nest the driver opened.
 */
static int rdma_nl_put_driver_name(struct sk_buff *msg, const char *name,
				   enum rdma_nldev_print_type print_type)
{
	if (nla_put_string(msg, RDMA_NLDEV_ATTR_DRIVER_STRING, name))
		return -EMSGSIZE;
	if (print_type != RDMA_NLDEV_PRINT_TYPE_UNSPEC &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE, print_type))
		return -EMSGSIZE;
	return 0;
}

static int rdma_nl_put_driver_u32_type(struct sk_buff *msg, const char *name,
				       enum rdma_nldev_print_type print_type,
				       u32 value)
{
	if (rdma_nl_put_driver_name(msg, name, print_type) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_DRIVER_U32, value))
		return -EMSGSIZE;
	return 0;
}

static int rdma_nl_put_driver_u64_type(struct sk_buff *msg, const char *name,
				       enum rdma_nldev_print_type print_type,
				       u64 value)
{
	if (rdma_nl_put_driver_name(msg, name, print_type) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_DRIVER_U64, value,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

int rdma_nl_put_driver_u32(struct sk_buff *msg, const char *name, u32 value)
{
	return rdma_nl_put_driver_u32_type(msg, name,
					   RDMA_NLDEV_PRINT_TYPE_UNSPEC, value);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u32);

int rdma_nl_put_driver_u32_hex(struct sk_buff *msg, const char *name,
			       u32 value)
{
	return rdma_nl_put_driver_u32_type(msg, name, RDMA_NLDEV_PRINT_TYPE_HEX,
					   value);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u32_hex);

int rdma_nl_put_driver_u64(struct sk_buff *msg, const char *name, u64 value)
{
	return rdma_nl_put_driver_u64_type(msg, name,
					   RDMA_NLDEV_PRINT_TYPE_UNSPEC, value);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u64);

int rdma_nl_put_driver_u64_hex(struct sk_buff *msg, const char *name,
			       u64 value)
{
	return rdma_nl_put_driver_u64_type(msg, name, RDMA_NLDEV_PRINT_TYPE_HEX,
					   value);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u64_hex);

int rdma_nl_put_driver_string(struct sk_buff *msg, const char *name,
			      const char *str)
{
	if (rdma_nl_put_driver_name(msg, name, RDMA_NLDEV_PRINT_TYPE_UNSPEC) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DRIVER_STRING, str))
		return -EMSGSIZE;
	return 0;
}
EXPORT_SYMBOL(rdma_nl_put_driver_string);

/**
 * rdma_nl_stat_hwcounter_entry() - one counter of a STAT_HWCOUNTERS nest
 * @msg: the message, inside RDMA_NLDEV_ATTR_STAT_HWCOUNTERS
 * @name: the counter's name
 * @value: its value
 *
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int rdma_nl_stat_hwcounter_entry(struct sk_buff *msg, const char *name,
				 u64 value)
{
	struct nlattr *entry;

	entry = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	if (!entry)
		return -EMSGSIZE;

	if (nla_put_string(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
			   name) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
			      value, RDMA_NLDEV_ATTR_PAD)) {
		nla_nest_cancel(msg, entry);
		return -EMSGSIZE;
	}

	nla_nest_end(msg, entry);
	return 0;
}
EXPORT_SYMBOL(rdma_nl_stat_hwcounter_entry);

MODULE_ALIAS_RDMA_NETLINK(RDMA_NL_NLDEV, 5);

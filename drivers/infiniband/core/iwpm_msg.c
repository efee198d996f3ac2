// SPDX-License-Identifier: GPL-2.0-only
/*
 * The netlink protocol between iw_cm and iwpmd, the iWARP port mapper
 * daemon (rdma-core), on NETLINK_RDMA client RDMA_NL_IWCM.
 *
 * Registration: the first mapping need multicasts REG_PID (group
 * RDMA_NL_GROUP_IWPM) naming the device, its netdev and the "user library"
 * we expect; iwpmd answers with its name and ABI version, and its netlink
 * port becomes the destination of everything else.  If nobody listens to
 * the group, there is no port mapper until iwpmd announces itself (HELLO
 * or MAPINFO, sent when it starts).
 *
 * Mapping: ADD_MAPPING (listeners) and QUERY_MAPPING (active sides, which
 * also learn the peer's mapped address) wait for the answer;
 * REMOVE_MAPPING is sent and forgotten.  iwpmd reports a connecting peer's
 * real address with REMOTE_INFO, and a failed request with HANDLE_ERR.
 *
 * Every request carries, in its SEQ attribute, the nlmsg_seq of the last
 * message iwpmd sent; answers carry in theirs the nlmsg_seq of the
 * request they answer.
 */
#define pr_fmt(fmt) "iw_cm: " fmt

#include <linux/netdevice.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "iwpm_priv.h"

static const char iwpm_ulib_name[IWPM_ULIBNAME_SIZE] = IWPM_ULIB_NAME;

/* Sends a request to iwpmd at @pid and waits for the answer in @req. */
static int iwpm_unicast_and_wait(struct sk_buff *skb, struct nlmsghdr *nlh,
				 struct iwpm_request *req, int pid)
{
	int ret;

	nlmsg_end(skb, nlh);
	ret = rdma_nl_unicast_wait(&init_net, skb, pid);
	if (ret) {
		/* iwpmd is gone: register again next time. */
		iwpm_set_user_pid(IWPM_PID_UNDEFINED);
		return ret;
	}
	return iwpm_request_wait(req);
}

int iwpm_register_pid(struct iwpm_dev_data *pm_msg, u8 nl_client)
{
	struct iwpm_request *req;
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	int ret;

	if ((iwpm_registration(nl_client) & IWPM_REG_VALID) ||
	    iwpm_user_pid() == IWPM_PID_UNAVAILABLE)
		return 0;

	skb = iwpm_new_msg(nl_client, RDMA_NL_IWPM_REG_PID, &nlh);
	if (!skb)
		return -ENOMEM;
	req = iwpm_request_new(nlh->nlmsg_seq, nl_client);
	if (!req) {
		ret = -ENOMEM;
		goto err_skb;
	}
	req->dev = *pm_msg;

	if (nla_put_u32(skb, IWPM_NLA_REG_PID_SEQ, iwpm_echo_seq()) ||
	    nla_put(skb, IWPM_NLA_REG_IF_NAME, IWPM_IFNAME_SIZE,
		    pm_msg->if_name) ||
	    nla_put(skb, IWPM_NLA_REG_IBDEV_NAME, IWPM_DEVNAME_SIZE,
		    pm_msg->dev_name) ||
	    nla_put(skb, IWPM_NLA_REG_ULIB_NAME, IWPM_ULIBNAME_SIZE,
		    iwpm_ulib_name)) {
		ret = -EMSGSIZE;
		goto err_req;
	}
	nlmsg_end(skb, nlh);

	ret = rdma_nl_multicast(&init_net, skb, RDMA_NL_GROUP_IWPM,
				GFP_KERNEL);
	if (ret) {
		/* Nobody listens: no iwpmd until it says hello. */
		pr_debug("no iwpmd (%d)\n", ret);
		iwpm_set_user_pid(IWPM_PID_UNAVAILABLE);
	} else {
		ret = iwpm_request_wait(req);
	}
	iwpm_request_put(req);
	return ret;

err_req:
	iwpm_request_put(req);
err_skb:
	nlmsg_free(skb);
	return ret;
}

/*
 * ADD_MAPPING (@active false) or QUERY_MAPPING (@active true) for
 * @pm_msg; on success the mapped addresses are filled in.
 */
static int iwpm_map(struct iwpm_sa_data *pm_msg, u8 nl_client, bool active)
{
	int pid = iwpm_user_pid();
	struct iwpm_request *req;
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	bool v4_flags;
	int ret;

	if (pid <= 0)
		return 0;
	if (!(iwpm_registration(nl_client) & IWPM_REG_VALID))
		return -EINVAL;
	/* Flags need ABI 4: an older iwpmd cannot honour them. */
	v4_flags = iwpm_ulib_version() > IWPM_UABI_VERSION_MIN;
	if (pm_msg->flags && !v4_flags)
		return -EINVAL;

	skb = iwpm_new_msg(nl_client, active ? RDMA_NL_IWPM_QUERY_MAPPING :
						RDMA_NL_IWPM_ADD_MAPPING,
			   &nlh);
	if (!skb)
		return -ENOMEM;
	req = iwpm_request_new(nlh->nlmsg_seq, nl_client);
	if (!req) {
		nlmsg_free(skb);
		return -ENOMEM;
	}
	req->sa = *pm_msg;

	if (active) {
		ret = nla_put_u32(skb, IWPM_NLA_QUERY_MAPPING_SEQ,
				  iwpm_echo_seq()) ?:
		      nla_put(skb, IWPM_NLA_QUERY_LOCAL_ADDR,
			      sizeof(pm_msg->loc_addr), &pm_msg->loc_addr) ?:
		      nla_put(skb, IWPM_NLA_QUERY_REMOTE_ADDR,
			      sizeof(pm_msg->rem_addr), &pm_msg->rem_addr);
		if (!ret && v4_flags)
			ret = nla_put_u32(skb, IWPM_NLA_QUERY_FLAGS,
					  pm_msg->flags);
	} else {
		ret = nla_put_u32(skb, IWPM_NLA_MANAGE_MAPPING_SEQ,
				  iwpm_echo_seq()) ?:
		      nla_put(skb, IWPM_NLA_MANAGE_ADDR,
			      sizeof(pm_msg->loc_addr), &pm_msg->loc_addr);
		if (!ret && v4_flags)
			ret = nla_put_u32(skb, IWPM_NLA_MANAGE_FLAGS,
					  pm_msg->flags);
	}
	if (ret) {
		nlmsg_free(skb);
		goto out;
	}

	ret = iwpm_unicast_and_wait(skb, nlh, req, pid);
	if (!ret) {
		pm_msg->mapped_loc_addr = req->sa.mapped_loc_addr;
		if (active)
			pm_msg->mapped_rem_addr = req->sa.mapped_rem_addr;
	}
out:
	iwpm_request_put(req);
	return ret;
}

int iwpm_add_mapping(struct iwpm_sa_data *pm_msg, u8 nl_client)
{
	return iwpm_map(pm_msg, nl_client, false);
}

int iwpm_add_and_query_mapping(struct iwpm_sa_data *pm_msg, u8 nl_client)
{
	return iwpm_map(pm_msg, nl_client, true);
}

int iwpm_remove_mapping(struct sockaddr_storage *local_addr, u8 nl_client)
{
	int pid = iwpm_user_pid();
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	int ret;

	if (pid <= 0)
		return 0;
	if (iwpm_registration(nl_client) & IWPM_REG_UNDEF)
		return -EINVAL;

	skb = iwpm_new_msg(nl_client, RDMA_NL_IWPM_REMOVE_MAPPING, &nlh);
	if (!skb)
		return -ENOMEM;
	if (nla_put_u32(skb, IWPM_NLA_MANAGE_MAPPING_SEQ, iwpm_echo_seq()) ||
	    nla_put(skb, IWPM_NLA_MANAGE_ADDR, sizeof(*local_addr),
		    local_addr)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	nlmsg_end(skb, nlh);

	ret = rdma_nl_unicast_wait(&init_net, skb, pid);
	if (ret)
		iwpm_set_user_pid(IWPM_PID_UNDEFINED);
	return ret;
}

/* Answer to REG_PID. */
static const struct nla_policy iwpm_reg_pid_policy[IWPM_NLA_RREG_PID_MAX] = {
	[IWPM_NLA_RREG_PID_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_RREG_IBDEV_NAME] = { .type = NLA_NUL_STRING,
				       .len = IWPM_DEVNAME_SIZE - 1 },
	[IWPM_NLA_RREG_ULIB_NAME] = { .type = NLA_NUL_STRING,
				      .len = IWPM_ULIBNAME_SIZE - 1 },
	[IWPM_NLA_RREG_ULIB_VER] = { .type = NLA_U16 },
	[IWPM_NLA_RREG_PID_ERR] = { .type = NLA_U16 },
};

int iwpm_register_pid_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_RREG_PID_MAX];
	struct iwpm_request *req;
	const char *dev, *lib;
	u16 version;

	if (iwpm_parse(cb->nlh, IWPM_NLA_RREG_PID_MAX, iwpm_reg_pid_policy, tb,
		       "REG_PID answer"))
		return -EINVAL;
	req = iwpm_request_claim(nla_get_u32(tb[IWPM_NLA_RREG_PID_SEQ]));
	if (!req)
		return -EINVAL;

	dev = nla_data(tb[IWPM_NLA_RREG_IBDEV_NAME]);
	lib = nla_data(tb[IWPM_NLA_RREG_ULIB_NAME]);
	version = nla_get_u16(tb[IWPM_NLA_RREG_ULIB_VER]);
	if (strcmp(req->dev.dev_name, dev) || strcmp(iwpm_ulib_name, lib) ||
	    version < IWPM_UABI_VERSION_MIN) {
		pr_info("iwpmd answered for %s, %s, version %u\n", dev, lib,
			version);
		iwpm_request_complete(req, IWPM_USER_LIB_INFO_ERR);
		return 0;
	}

	iwpm_set_user_pid(cb->nlh->nlmsg_pid);
	iwpm_set_ulib_version(version);
	if (version < IWPM_UABI_VERSION)
		pr_warn_once("iwpmd (pid %u) speaks ABI %u, continuing\n",
			     cb->nlh->nlmsg_pid, version);
	iwpm_set_echo_seq(cb->nlh->nlmsg_seq);
	iwpm_set_registration(req->nl_client, IWPM_REG_VALID);
	iwpm_request_complete(req, 0);
	return 0;
}

/* Answer to ADD_MAPPING. */
static const struct nla_policy iwpm_add_policy[IWPM_NLA_RMANAGE_MAPPING_MAX] = {
	[IWPM_NLA_RMANAGE_MAPPING_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_RMANAGE_ADDR] = { .len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RMANAGE_MAPPING_ERR] = { .type = NLA_U16 },
};

int iwpm_add_mapping_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_RMANAGE_MAPPING_MAX];
	const struct sockaddr_storage *local, *mapped;
	struct iwpm_request *req;

	if (iwpm_parse(cb->nlh, IWPM_NLA_RMANAGE_MAPPING_MAX, iwpm_add_policy,
		       tb, "ADD_MAPPING answer"))
		return -EINVAL;
	iwpm_set_echo_seq(cb->nlh->nlmsg_seq);
	req = iwpm_request_claim(nla_get_u32(tb[IWPM_NLA_RMANAGE_MAPPING_SEQ]));
	if (!req)
		return -EINVAL;

	local = nla_data(tb[IWPM_NLA_RMANAGE_ADDR]);
	mapped = nla_data(tb[IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR]);
	if (!iwpm_sockaddr_equal(local, &req->sa.loc_addr) ||
	    mapped->ss_family != local->ss_family) {
		iwpm_request_complete(req, IWPM_USER_LIB_INFO_ERR);
		return 0;
	}
	req->sa.mapped_loc_addr = *mapped;
	iwpm_request_complete(req, 0);
	return 0;
}

/* Answer to QUERY_MAPPING, and REMOTE_INFO. */
static const struct nla_policy iwpm_query_policy[IWPM_NLA_RQUERY_MAPPING_MAX] = {
	[IWPM_NLA_RQUERY_MAPPING_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_RQUERY_LOCAL_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RQUERY_REMOTE_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RQUERY_MAPPED_LOC_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RQUERY_MAPPED_REM_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RQUERY_MAPPING_ERR] = { .type = NLA_U16 },
};

int iwpm_add_and_query_mapping_cb(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	const struct sockaddr_storage *local, *remote, *mapped_loc, *mapped_rem;
	struct nlattr *tb[IWPM_NLA_RQUERY_MAPPING_MAX];
	struct iwpm_request *req;
	u16 err = 0;

	if (iwpm_parse(cb->nlh, IWPM_NLA_RQUERY_MAPPING_MAX, iwpm_query_policy,
		       tb, "QUERY_MAPPING answer"))
		return -EINVAL;
	iwpm_set_echo_seq(cb->nlh->nlmsg_seq);
	req = iwpm_request_claim(nla_get_u32(tb[IWPM_NLA_RQUERY_MAPPING_SEQ]));
	if (!req)
		return -EINVAL;

	local = nla_data(tb[IWPM_NLA_RQUERY_LOCAL_ADDR]);
	remote = nla_data(tb[IWPM_NLA_RQUERY_REMOTE_ADDR]);
	mapped_loc = nla_data(tb[IWPM_NLA_RQUERY_MAPPED_LOC_ADDR]);
	mapped_rem = nla_data(tb[IWPM_NLA_RQUERY_MAPPED_REM_ADDR]);
	/* The peer's port mapper refused: the mapping still comes back. */
	if (nla_get_u16(tb[IWPM_NLA_RQUERY_MAPPING_ERR]) ==
	    IWPM_REMOTE_QUERY_REJECT) {
		pr_info("the peer's port mapper rejected the query (seq %u)\n",
			req->seq);
		err = IWPM_REMOTE_QUERY_REJECT;
	}
	if (!iwpm_sockaddr_equal(local, &req->sa.loc_addr) ||
	    !iwpm_sockaddr_equal(remote, &req->sa.rem_addr) ||
	    mapped_loc->ss_family != local->ss_family ||
	    mapped_rem->ss_family != remote->ss_family) {
		iwpm_request_complete(req, IWPM_USER_LIB_INFO_ERR);
		return 0;
	}
	req->sa.mapped_loc_addr = *mapped_loc;
	req->sa.mapped_rem_addr = *mapped_rem;
	iwpm_request_complete(req, err);
	return 0;
}

int iwpm_remote_info_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct sockaddr_storage *local, *remote, *mapped_loc, *mapped_rem;
	struct nlattr *tb[IWPM_NLA_RQUERY_MAPPING_MAX];

	if (iwpm_parse(cb->nlh, IWPM_NLA_RQUERY_MAPPING_MAX, iwpm_query_policy,
		       tb, "REMOTE_INFO"))
		return -EINVAL;
	iwpm_set_echo_seq(cb->nlh->nlmsg_seq);

	local = nla_data(tb[IWPM_NLA_RQUERY_LOCAL_ADDR]);
	remote = nla_data(tb[IWPM_NLA_RQUERY_REMOTE_ADDR]);
	mapped_loc = nla_data(tb[IWPM_NLA_RQUERY_MAPPED_LOC_ADDR]);
	mapped_rem = nla_data(tb[IWPM_NLA_RQUERY_MAPPED_REM_ADDR]);
	if (mapped_loc->ss_family != local->ss_family ||
	    mapped_rem->ss_family != remote->ss_family)
		return -EINVAL;
	iwpm_add_remote_info(mapped_loc, mapped_rem, remote,
			     RDMA_NL_GET_CLIENT(cb->nlh->nlmsg_type));
	return 0;
}

/* iwpmd (re)started and asks for our mappings. */
static const struct nla_policy iwpm_mapinfo_policy[IWPM_NLA_MAPINFO_REQ_MAX] = {
	[IWPM_NLA_MAPINFO_ULIB_NAME] = { .type = NLA_NUL_STRING,
					 .len = IWPM_ULIBNAME_SIZE - 1 },
	[IWPM_NLA_MAPINFO_ULIB_VER] = { .type = NLA_U16 },
};

int iwpm_mapping_info_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_MAPINFO_REQ_MAX];
	u8 nl_client = RDMA_NL_GET_CLIENT(cb->nlh->nlmsg_type);
	int pid = cb->nlh->nlmsg_pid;
	const char *lib;
	u16 version;

	if (iwpm_parse(cb->nlh, IWPM_NLA_MAPINFO_REQ_MAX, iwpm_mapinfo_policy,
		       tb, "MAPINFO request"))
		return -EINVAL;
	lib = nla_data(tb[IWPM_NLA_MAPINFO_ULIB_NAME]);
	version = nla_get_u16(tb[IWPM_NLA_MAPINFO_ULIB_VER]);
	if (strcmp(iwpm_ulib_name, lib) || version < IWPM_UABI_VERSION_MIN) {
		pr_info("MAPINFO request from %s, version %u\n", lib, version);
		return -EINVAL;
	}

	iwpm_set_registration(nl_client, IWPM_REG_INCOMPL);
	iwpm_set_echo_seq(cb->nlh->nlmsg_seq);
	iwpm_set_user_pid(pid);
	if (iwpm_ulib_version() < IWPM_UABI_VERSION)
		pr_warn_once("iwpmd (pid %d) speaks ABI %u, continuing\n",
			     pid, iwpm_ulib_version());
	if (!iwpm_mapinfo_available())
		return 0;
	return iwpm_send_mapinfo(nl_client, pid);
}

/* iwpmd acknowledges the mapping records it received. */
static const struct nla_policy iwpm_mapinfo_num_policy[IWPM_NLA_MAPINFO_NUM_MAX] = {
	[IWPM_NLA_MAPINFO_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_MAPINFO_SEND_NUM] = { .type = NLA_U32 },
	[IWPM_NLA_MAPINFO_ACK_NUM] = { .type = NLA_U32 },
};

int iwpm_ack_mapping_info_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_MAPINFO_NUM_MAX];
	u32 sent, acked;

	if (iwpm_parse(cb->nlh, IWPM_NLA_MAPINFO_NUM_MAX,
		       iwpm_mapinfo_num_policy, tb, "MAPINFO_NUM ack"))
		return -EINVAL;
	sent = nla_get_u32(tb[IWPM_NLA_MAPINFO_SEND_NUM]);
	acked = nla_get_u32(tb[IWPM_NLA_MAPINFO_ACK_NUM]);
	if (sent != acked)
		pr_info("iwpmd acknowledged %u of %u mappings\n", acked, sent);
	iwpm_set_echo_seq(cb->nlh->nlmsg_seq);
	return 0;
}

/* iwpmd failed a request (or reports an error of its own). */
static const struct nla_policy iwpm_err_policy[IWPM_NLA_ERR_MAX] = {
	[IWPM_NLA_ERR_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_ERR_CODE] = { .type = NLA_U16 },
};

int iwpm_mapping_error_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_ERR_MAX];
	struct iwpm_request *req;
	u32 seq;
	u16 err;

	if (iwpm_parse(cb->nlh, IWPM_NLA_ERR_MAX, iwpm_err_policy, tb,
		       "HANDLE_ERR"))
		return -EINVAL;
	seq = nla_get_u32(tb[IWPM_NLA_ERR_SEQ]);
	err = nla_get_u16(tb[IWPM_NLA_ERR_CODE]);
	pr_info("iwpmd reports error %u for seq %u\n", err, seq);
	/* Not every error answers a request. */
	req = iwpm_request_claim(seq);
	if (!req)
		return 0;
	iwpm_set_echo_seq(cb->nlh->nlmsg_seq);
	iwpm_request_complete(req, err);
	return 0;
}

/* iwpmd started: agree on the ABI version (the lower of the two). */
static const struct nla_policy iwpm_hello_policy[IWPM_NLA_HELLO_MAX] = {
	[IWPM_NLA_HELLO_ABI_VERSION] = { .type = NLA_U16 },
};

int iwpm_hello_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	u8 nl_client = RDMA_NL_GET_CLIENT(cb->nlh->nlmsg_type);
	struct nlattr *tb[IWPM_NLA_HELLO_MAX];
	int pid = cb->nlh->nlmsg_pid;
	u16 version;

	if (iwpm_parse(cb->nlh, IWPM_NLA_HELLO_MAX, iwpm_hello_policy, tb,
		       "HELLO"))
		return -EINVAL;
	version = min_t(u16, IWPM_UABI_VERSION,
			nla_get_u16(tb[IWPM_NLA_HELLO_ABI_VERSION]));

	iwpm_set_registration(nl_client, IWPM_REG_INCOMPL);
	iwpm_set_echo_seq(cb->nlh->nlmsg_seq);
	iwpm_set_ulib_version(version);
	iwpm_set_user_pid(pid);
	return iwpm_send_hello(nl_client, pid, version);
}

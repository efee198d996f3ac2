// SPDX-License-Identifier: GPL-2.0-only
/*
 * The port mapper client's bookkeeping: what we know of iwpmd (its netlink
 * port, the ABI version it speaks, the sequence number it last sent, each
 * netlink client's registration), the requests waiting for its answers,
 * and two tables:
 *
 *	mappings	local address -> mapped address, one per listening or
 *			connecting iw_cm_id that went through iwpmd; handed
 *			back to a restarted iwpmd (MAPINFO)
 *	remote infos	what iwpmd learnt from a connecting peer's port
 *			mapper: (mapped local, mapped remote) -> the peer's
 *			real address; consumed by the connect request
 *
 * Everything here runs in process context: the iw_cm API, iw_cm's work
 * queue and the netlink receive path.
 */
#define pr_fmt(fmt) "iw_cm: " fmt

#include <linux/hashtable.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "iwpm_priv.h"

/*
 * The daemon's state.  Written by the netlink callbacks and by failed
 * sends, read by every request: single words, accessed with
 * READ_ONCE/WRITE_ONCE (as a daemon restart can change them at any
 * moment, a request may use a stale value; it then fails or times out).
 */
static struct {
	int pid;
	u16 version;
	atomic_t echo_seq;
	atomic_t seq;
	u32 reg[RDMA_NL_NUM_CLIENTS];
} iwpm = {
	.pid = IWPM_PID_UNDEFINED,
	.version = IWPM_UABI_VERSION_MIN,
};

int iwpm_user_pid(void)
{
	return READ_ONCE(iwpm.pid);
}

void iwpm_set_user_pid(int pid)
{
	WRITE_ONCE(iwpm.pid, pid);
}

int iwpm_valid_pid(void)
{
	return iwpm_user_pid() > 0;
}

u16 iwpm_ulib_version(void)
{
	return READ_ONCE(iwpm.version);
}

void iwpm_set_ulib_version(u16 version)
{
	WRITE_ONCE(iwpm.version, version);
}

/* The last nlmsg_seq iwpmd sent us: every request carries it back. */
u32 iwpm_echo_seq(void)
{
	return atomic_read(&iwpm.echo_seq);
}

void iwpm_set_echo_seq(u32 seq)
{
	atomic_set(&iwpm.echo_seq, seq);
}

u32 iwpm_next_seq(void)
{
	return atomic_inc_return(&iwpm.seq);
}

u32 iwpm_registration(u8 nl_client)
{
	if (WARN_ON_ONCE(nl_client >= RDMA_NL_NUM_CLIENTS))
		return 0;
	return READ_ONCE(iwpm.reg[nl_client]);
}

void iwpm_set_registration(u8 nl_client, u32 reg)
{
	if (WARN_ON_ONCE(nl_client >= RDMA_NL_NUM_CLIENTS))
		return;
	WRITE_ONCE(iwpm.reg[nl_client], reg);
}

/*
 * Requests waiting for an answer.  An answer claims its request (takes it
 * off the list), so at most one answer completes a request; a waiter that
 * gives up takes it off too, so that a late answer finds nothing.
 */
static LIST_HEAD(iwpm_pending);
static DEFINE_SPINLOCK(iwpm_pending_lock);	/* guards iwpm_pending */

struct iwpm_request *iwpm_request_new(u32 seq, u8 nl_client)
{
	struct iwpm_request *req;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return NULL;
	req->seq = seq;
	req->nl_client = nl_client;
	kref_init(&req->kref);
	init_completion(&req->done);

	spin_lock(&iwpm_pending_lock);
	list_add_tail(&req->entry, &iwpm_pending);
	spin_unlock(&iwpm_pending_lock);
	return req;
}

static void iwpm_request_unlink(struct iwpm_request *req)
{
	spin_lock(&iwpm_pending_lock);
	list_del_init(&req->entry);
	spin_unlock(&iwpm_pending_lock);
}

static void iwpm_request_release(struct kref *kref)
{
	struct iwpm_request *req = container_of(kref, struct iwpm_request,
						kref);

	iwpm_request_unlink(req);
	kfree(req);
}

void iwpm_request_put(struct iwpm_request *req)
{
	kref_put(&req->kref, iwpm_request_release);
}

/* The pending request @seq, now the caller's to complete; or NULL. */
struct iwpm_request *iwpm_request_claim(u32 seq)
{
	struct iwpm_request *req, *found = NULL;

	spin_lock(&iwpm_pending_lock);
	list_for_each_entry(req, &iwpm_pending, entry) {
		if (req->seq == seq) {
			list_del_init(&req->entry);
			kref_get(&req->kref);
			found = req;
			break;
		}
	}
	spin_unlock(&iwpm_pending_lock);
	return found;
}

/* Ends a claimed request with @err (0 or IWPM_*_ERR), dropping the claim. */
void iwpm_request_complete(struct iwpm_request *req, u16 err)
{
	req->err = err;
	complete(&req->done);
	iwpm_request_put(req);
}

/*
 * Waits for the answer.  Returns 0 when iwpmd answered without error
 * (the answer is then in @req), -ETIMEDOUT, or -EINVAL for an answer
 * carrying an error.  The caller still holds its reference.
 */
int iwpm_request_wait(struct iwpm_request *req)
{
	long left;

	left = wait_for_completion_timeout(&req->done, IWPM_NL_TIMEOUT);
	iwpm_request_unlink(req);
	if (!left) {
		pr_info("no answer from iwpmd in %d s (seq %u)\n",
			IWPM_NL_TIMEOUT / HZ, req->seq);
		return -ETIMEDOUT;
	}
	return req->err ? -EINVAL : 0;
}

/*
 * The tables.  Only IPv4 and IPv6 addresses are kept: anything else has
 * no port to map.
 */
#define IWPM_MAPPING_HASH_BITS	9
#define IWPM_REMOTE_HASH_BITS	6

struct iwpm_mapping {
	struct hlist_node node;
	struct sockaddr_storage local;
	struct sockaddr_storage mapped;
	u8 nl_client;
	u32 flags;
};

struct iwpm_remote_info {
	struct hlist_node node;
	struct sockaddr_storage mapped_loc;
	struct sockaddr_storage mapped_rem;
	struct sockaddr_storage remote;
	u8 nl_client;
};

/* Keyed by the local address. */
static DEFINE_HASHTABLE(iwpm_mappings, IWPM_MAPPING_HASH_BITS);
static DEFINE_MUTEX(iwpm_mappings_lock);
/* Keyed by the pair (mapped local, mapped remote). */
static DEFINE_HASHTABLE(iwpm_remote_infos, IWPM_REMOTE_HASH_BITS);
static DEFINE_MUTEX(iwpm_remote_infos_lock);

/* Hash of an IPv4/IPv6 address and port; -EINVAL for other families. */
static int iwpm_sockaddr_hash(const struct sockaddr_storage *ss, u32 *hash)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

	switch (ss->ss_family) {
	case AF_INET:
		*hash = jhash_2words((__force u32)sin->sin_addr.s_addr,
				     (__force u32)sin->sin_port, 0);
		return 0;
	case AF_INET6:
		*hash = jhash(&sin6->sin6_addr, sizeof(sin6->sin6_addr),
			      (__force u32)sin6->sin6_port);
		return 0;
	default:
		return -EINVAL;
	}
}

/* Same family, address and port (IPv4 and IPv6 only). */
bool iwpm_sockaddr_equal(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

	if (a->ss_family != b->ss_family)
		return false;
	switch (a->ss_family) {
	case AF_INET:
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr &&
		       a4->sin_port == b4->sin_port;
	case AF_INET6:
		return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
		       a6->sin6_port == b6->sin6_port;
	default:
		return false;
	}
}

int iwpm_create_mapinfo(struct sockaddr_storage *local_addr,
			struct sockaddr_storage *mapped_addr, u8 nl_client,
			u32 map_flags)
{
	struct iwpm_mapping *map;
	u32 hash;

	if (iwpm_sockaddr_hash(local_addr, &hash) ||
	    mapped_addr->ss_family != local_addr->ss_family)
		return -EINVAL;

	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	map->local = *local_addr;
	map->mapped = *mapped_addr;
	map->nl_client = nl_client;
	map->flags = map_flags;

	mutex_lock(&iwpm_mappings_lock);
	hash_add(iwpm_mappings, &map->node, hash);
	mutex_unlock(&iwpm_mappings_lock);
	return 0;
}

int iwpm_remove_mapinfo(struct sockaddr_storage *local_addr,
			struct sockaddr_storage *mapped_addr)
{
	struct iwpm_mapping *map;
	int ret = -EINVAL;
	u32 hash;

	if (iwpm_sockaddr_hash(local_addr, &hash))
		return -EINVAL;

	mutex_lock(&iwpm_mappings_lock);
	hash_for_each_possible(iwpm_mappings, map, node, hash) {
		if (iwpm_sockaddr_equal(&map->local, local_addr) &&
		    iwpm_sockaddr_equal(&map->mapped, mapped_addr)) {
			hash_del(&map->node);
			kfree(map);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&iwpm_mappings_lock);
	return ret;
}

bool iwpm_mapinfo_available(void)
{
	bool any;

	mutex_lock(&iwpm_mappings_lock);
	any = !hash_empty(iwpm_mappings);
	mutex_unlock(&iwpm_mappings_lock);
	return any;
}

static int iwpm_remote_hash(const struct sockaddr_storage *mapped_loc,
			    const struct sockaddr_storage *mapped_rem, u32 *hash)
{
	u32 loc, rem;

	if (iwpm_sockaddr_hash(mapped_loc, &loc) ||
	    iwpm_sockaddr_hash(mapped_rem, &rem))
		return -EINVAL;
	*hash = jhash_2words(loc, rem, 0);
	return 0;
}

void iwpm_add_remote_info(const struct sockaddr_storage *mapped_loc,
			  const struct sockaddr_storage *mapped_rem,
			  const struct sockaddr_storage *remote, u8 nl_client)
{
	struct iwpm_remote_info *info;
	u32 hash;

	if (iwpm_remote_hash(mapped_loc, mapped_rem, &hash))
		return;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return;
	info->mapped_loc = *mapped_loc;
	info->mapped_rem = *mapped_rem;
	info->remote = *remote;
	info->nl_client = nl_client;

	mutex_lock(&iwpm_remote_infos_lock);
	hash_add(iwpm_remote_infos, &info->node, hash);
	mutex_unlock(&iwpm_remote_infos_lock);
}

int iwpm_get_remote_info(struct sockaddr_storage *mapped_loc_addr,
			 struct sockaddr_storage *mapped_rem_addr,
			 struct sockaddr_storage *remote_addr, u8 nl_client)
{
	struct iwpm_remote_info *info;
	int ret = -EINVAL;
	u32 hash;

	if (iwpm_remote_hash(mapped_loc_addr, mapped_rem_addr, &hash))
		return -EINVAL;

	/* Each record serves one connect request: it is taken out. */
	mutex_lock(&iwpm_remote_infos_lock);
	hash_for_each_possible(iwpm_remote_infos, info, node, hash) {
		if (iwpm_sockaddr_equal(&info->mapped_loc, mapped_loc_addr) &&
		    iwpm_sockaddr_equal(&info->mapped_rem, mapped_rem_addr)) {
			*remote_addr = info->remote;
			hash_del(&info->node);
			kfree(info);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&iwpm_remote_infos_lock);
	return ret;
}

int iwpm_init(u8 nl_client)
{
	iwpm_set_registration(nl_client, IWPM_REG_UNDEF);
	return 0;
}

int iwpm_exit(u8 nl_client)
{
	struct iwpm_remote_info *info;
	struct iwpm_mapping *map;
	struct hlist_node *tmp;
	int bkt;

	mutex_lock(&iwpm_mappings_lock);
	hash_for_each_safe(iwpm_mappings, bkt, tmp, map, node) {
		hash_del(&map->node);
		kfree(map);
	}
	mutex_unlock(&iwpm_mappings_lock);

	mutex_lock(&iwpm_remote_infos_lock);
	hash_for_each_safe(iwpm_remote_infos, bkt, tmp, info, node) {
		hash_del(&info->node);
		kfree(info);
	}
	mutex_unlock(&iwpm_remote_infos_lock);

	iwpm_set_registration(nl_client, IWPM_REG_UNDEF);
	return 0;
}

/*
 * Messages.  A request to iwpmd: NLM_F_REQUEST, a fresh sequence number,
 * room for the largest request (a QUERY_MAPPING: two sockaddr_storage).
 */
#define IWPM_MSG_PAYLOAD	512

struct sk_buff *iwpm_new_msg(u8 nl_client, u32 op, struct nlmsghdr **nlh)
{
	struct sk_buff *skb;

	skb = nlmsg_new(IWPM_MSG_PAYLOAD, GFP_KERNEL);
	if (!skb)
		return NULL;
	if (!ibnl_put_msg(skb, nlh, iwpm_next_seq(), 0, nl_client, op,
			  NLM_F_REQUEST)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/*
 * Parses a message from iwpmd into @tb (attr_max entries): every
 * attribute from 1 to attr_max - 1 must be there.
 */
int iwpm_parse(const struct nlmsghdr *nlh, int attr_max,
	       const struct nla_policy *policy, struct nlattr **tb,
	       const char *what)
{
	int ret, i;

	ret = nlmsg_parse_deprecated(nlh, 0, tb, attr_max - 1, policy, NULL);
	if (!ret) {
		for (i = 1; i < attr_max; i++) {
			if (!tb[i]) {
				ret = -EINVAL;
				break;
			}
		}
	}
	if (ret)
		pr_warn("invalid %s from iwpmd (%d)\n", what, ret);
	return ret;
}

/*
 * The MAPINFO answer: one NLM_F_MULTI message per mapping of @nl_client,
 * in skbs of NLMSG_GOODSIZE each closed by NLMSG_DONE (at most
 * IWPM_MAPINFO_SKB_COUNT of them), then a MAPINFO_NUM message with the
 * count, which iwpmd acknowledges (RDMA_NL_IWPM_MAPINFO_NUM).
 */
#define IWPM_MAPINFO_REC_SIZE \
	nlmsg_total_size(2 * nla_total_size(sizeof(struct sockaddr_storage)) + \
			 nla_total_size(sizeof(u32)))

static int iwpm_put_mapping(struct sk_buff *skb,
			    const struct iwpm_mapping *map, u8 nl_client)
{
	struct nlmsghdr *nlh;

	if (!ibnl_put_msg(skb, &nlh, 0, 0, nl_client, RDMA_NL_IWPM_MAPINFO,
			  NLM_F_MULTI))
		return -EMSGSIZE;
	if (nla_put(skb, IWPM_NLA_MAPINFO_LOCAL_ADDR, sizeof(map->local),
		    &map->local) ||
	    nla_put(skb, IWPM_NLA_MAPINFO_MAPPED_ADDR, sizeof(map->mapped),
		    &map->mapped))
		goto cancel;
	/* ABI 3 daemons know no flags. */
	if (iwpm_ulib_version() > IWPM_UABI_VERSION_MIN &&
	    nla_put_u32(skb, IWPM_NLA_MAPINFO_FLAGS, map->flags))
		goto cancel;
	nlmsg_end(skb, nlh);
	return 0;

cancel:
	nlmsg_cancel(skb, nlh);
	return -EMSGSIZE;
}

/* Closes @skb with NLMSG_DONE and sends it; @skb is consumed. */
static int iwpm_send_done(struct sk_buff *skb, int pid)
{
	if (!nlmsg_put(skb, 0, 0, NLMSG_DONE, 0, NLM_F_MULTI)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	return rdma_nl_unicast(&init_net, skb, pid);
}

static int iwpm_send_mapinfo_num(u8 nl_client, int pid, u32 count)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;

	skb = iwpm_new_msg(nl_client, RDMA_NL_IWPM_MAPINFO_NUM, &nlh);
	if (!skb)
		return -ENOMEM;
	if (nla_put_u32(skb, IWPM_NLA_MAPINFO_SEQ, 0) ||
	    nla_put_u32(skb, IWPM_NLA_MAPINFO_SEND_NUM, count)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	nlmsg_end(skb, nlh);
	return rdma_nl_unicast(&init_net, skb, pid);
}

int iwpm_send_mapinfo(u8 nl_client, int pid)
{
	unsigned int skbs = 1;
	struct iwpm_mapping *map;
	struct sk_buff *skb;
	u32 count = 0;
	int ret = 0;
	int bkt;

	skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;

	/* Sending is non-blocking (MSG_DONTWAIT): fine under the mutex. */
	mutex_lock(&iwpm_mappings_lock);
	hash_for_each(iwpm_mappings, bkt, map, node) {
		if (map->nl_client != nl_client)
			continue;
		/* Full (the record and NLMSG_DONE must fit): send, go on. */
		if (skb_tailroom(skb) <
		    IWPM_MAPINFO_REC_SIZE + nlmsg_total_size(0)) {
			ret = iwpm_send_done(skb, pid);
			skb = NULL;
			if (ret)
				break;
			if (++skbs > IWPM_MAPINFO_SKB_COUNT) {
				ret = -ENOMEM;
				break;
			}
			skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
			if (!skb) {
				ret = -ENOMEM;
				break;
			}
		}
		ret = iwpm_put_mapping(skb, map, nl_client);
		if (ret)
			break;
		count++;
	}
	mutex_unlock(&iwpm_mappings_lock);

	if (ret) {
		pr_warn("cannot send the mappings to iwpmd (%d)\n", ret);
		nlmsg_free(skb);
		return ret;
	}
	ret = iwpm_send_done(skb, pid);
	if (ret)
		return ret;
	return iwpm_send_mapinfo_num(nl_client, pid, count);
}

int iwpm_send_hello(u8 nl_client, int pid, u16 abi_version)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;

	skb = iwpm_new_msg(nl_client, RDMA_NL_IWPM_HELLO, &nlh);
	if (!skb)
		return -ENOMEM;
	if (nla_put_u16(skb, IWPM_NLA_HELLO_ABI_VERSION, abi_version)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	nlmsg_end(skb, nlh);
	return rdma_nl_unicast(&init_net, skb, pid);
}

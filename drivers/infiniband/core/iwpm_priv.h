/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The iWARP port mapper client inside iw_cm: what its two halves share.
 * iwpm_msg.c speaks the netlink protocol of the user-space daemon iwpmd
 * (requests out, answers and notifications in); iwpm_util.c keeps the
 * daemon's registration state, the requests waiting for answers and the
 * two mapping tables.  <rdma/iw_portmap.h> declares the entry points
 * iw_cm itself calls.
 *
 * Without iwpmd (the usual case) every lookup misses and every request
 * returns at once: an address is its own mapping.
 */
#ifndef IWPM_PRIV_H
#define IWPM_PRIV_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <net/netlink.h>
#include <rdma/iw_portmap.h>
#include <rdma/rdma_netlink.h>

/* How long a request waits for iwpmd's answer. */
#define IWPM_NL_TIMEOUT		(10 * HZ)
/* At most this many skbs of mapping records answer one MAPINFO request. */
#define IWPM_MAPINFO_SKB_COUNT	20
/* The name iwpmd must answer with ("user library" in the protocol). */
#define IWPM_ULIB_NAME		"iWarpPortMapperUser"

/* iwpmd's netlink port: > 0 when known, else one of these. */
#define IWPM_PID_UNDEFINED	-1
#define IWPM_PID_UNAVAILABLE	-2	/* nobody listens to the multicast */

/* A netlink client's registration with iwpmd. */
#define IWPM_REG_UNDEF		0x01	/* never registered */
#define IWPM_REG_VALID		0x02	/* REG_PID answered */
#define IWPM_REG_INCOMPL	0x04	/* iwpmd said hello, REG_PID pending */

/**
 * struct iwpm_request - a message to iwpmd that waits for its answer
 * @entry: on the pending list while an answer may still claim it
 * @seq: the nlmsg_seq of the request, echoed in the answer's SEQ attribute
 * @nl_client: the netlink client that sent it (RDMA_NL_IWCM)
 * @kref: the waiter's reference and the answering callback's
 * @done: completed by the answer
 * @err: 0, or the IWPM_* error code of the answer
 * @dev: REG_PID: what was registered (the answer must name the device)
 * @sa: ADD/QUERY_MAPPING: the addresses asked about, and the answer
 *
 * The answer is written here, never into the waiter's memory: a waiter
 * that timed out may be gone by the time a late answer arrives.
 */
struct iwpm_request {
	struct list_head entry;
	u32 seq;
	u8 nl_client;
	struct kref kref;
	struct completion done;
	u16 err;
	union {
		struct iwpm_dev_data dev;
		struct iwpm_sa_data sa;
	};
};

/* iwpm_util.c: daemon state */
int iwpm_user_pid(void);
void iwpm_set_user_pid(int pid);
u16 iwpm_ulib_version(void);
void iwpm_set_ulib_version(u16 version);
u32 iwpm_echo_seq(void);
void iwpm_set_echo_seq(u32 seq);
u32 iwpm_next_seq(void);
u32 iwpm_registration(u8 nl_client);
void iwpm_set_registration(u8 nl_client, u32 reg);

/* iwpm_util.c: requests */
struct iwpm_request *iwpm_request_new(u32 seq, u8 nl_client);
struct iwpm_request *iwpm_request_claim(u32 seq);
void iwpm_request_complete(struct iwpm_request *req, u16 err);
int iwpm_request_wait(struct iwpm_request *req);
void iwpm_request_put(struct iwpm_request *req);

/* iwpm_util.c: tables and messages */
bool iwpm_sockaddr_equal(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *b);
void iwpm_add_remote_info(const struct sockaddr_storage *mapped_loc,
			  const struct sockaddr_storage *mapped_rem,
			  const struct sockaddr_storage *remote, u8 nl_client);
bool iwpm_mapinfo_available(void);
int iwpm_send_mapinfo(u8 nl_client, int pid);
int iwpm_send_hello(u8 nl_client, int pid, u16 abi_version);
struct sk_buff *iwpm_new_msg(u8 nl_client, u32 op, struct nlmsghdr **nlh);
int iwpm_parse(const struct nlmsghdr *nlh, int attr_max,
	       const struct nla_policy *policy, struct nlattr **tb,
	       const char *what);

#endif /* IWPM_PRIV_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address handles.  A UD send names its destination by an index into
 * the device's address vector table (the HMC's FSIAV object); CREATE_AH
 * writes an entry there: source MAC and IP, destination IP, an ARP
 * entry for the next hop's MAC (arp.c), VLAN, traffic class, hop limit
 * and flow label.  DESTROY_AH drops it.
 *
 * Kernel AHs may be made and destroyed in atomic context (ib_cm's and
 * the MAD layer's replies, without RDMA_CREATE_AH_SLEEPABLE): then the
 * index is taken with GFP_ATOMIC and the command is polled.  User AHs
 * (libirdma) get the index back in struct irdma_create_ah_resp; unlike
 * Debian's irdma, equal user AHs are not merged into one entry: each
 * has its own, which costs entries but no shared state.
 *
 * Facts: the E810 scoping §3.7, Debian's irdma (which fields CREATE_AH
 * carries, the VLAN priority, loopback, the 8-byte minimum response),
 * read against our model's decode of the kept WQE (e810-roce-qp.c
 * ah_av): destination IP words 0-1 in q5 and 2-3 in q4, source IP
 * likewise in q7 and q6, each word in host order, an IPv4 address in
 * word 3.
 */
#include <linux/in.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "verbs.h"

/* CREATE_AH and DESTROY_AH. */
#define IRDMA_AH_Q0_SMAC	GENMASK_ULL(63, 16)
#define IRDMA_AH_Q1_VLAN	GENMASK_ULL(15, 0)
#define IRDMA_AH_Q1_TC		GENMASK_ULL(39, 32)
#define IRDMA_AH_Q1_PD_LO	GENMASK_ULL(63, 48)
#define IRDMA_AH_Q2_FLOWLABEL	GENMASK_ULL(19, 0)
#define IRDMA_AH_Q2_PD_HI	GENMASK_ULL(21, 20)
#define IRDMA_AH_Q2_HOPLIMIT	GENMASK_ULL(39, 32)
#define IRDMA_AH_Q2_ARPIDX	GENMASK_ULL(63, 48)
/* An IP address's qwords: words 0 and 1 at Q + 1, words 2 and 3 at Q. */
#define IRDMA_AH_DEST_IP	4
#define IRDMA_AH_SRC_IP		6
#define IRDMA_AH_HDR_IDX	GENMASK_ULL(16, 0)
#define IRDMA_AH_HDR_IPV4	BIT_ULL(59)
#define IRDMA_AH_HDR_VLAN	BIT_ULL(60)
#define IRDMA_AH_HDR_LOOPBACK	BIT_ULL(62)

/* libirdma's response must hold at least ah_id and rsvd (as Debian). */
#define IRDMA_AH_MIN_RESP	offsetofend(struct irdma_create_ah_resp, rsvd)

static void irdma_ah_put_ip(u64 *wqe, unsigned int q, const __be32 *ip)
{
	wqe[q + 1] = irdma_ip_q(ip, 0, 1);
	wqe[q] = irdma_ip_q(ip, 2, 3);
}

/*
 * CREATE_AH for ATTR, but for its index.  Addresses, source MAC and
 * VLAN come from the source GID's entry as for a QP's path
 * (irdma_path_addrs()); the destination MAC becomes an ARP entry.  Any
 * context: nothing here sleeps.
 */
static int irdma_ah_build(struct irdma_dev *dev, struct ib_ah *ibah,
			  const struct rdma_ah_attr *attr,
			  struct irdma_cqp_cmd *cmd)
{
	const struct ib_global_route *grh = &attr->grh;
	u32 pd = to_ipd(ibah->pd)->id;
	struct irdma_path_addrs p;
	struct in6_addr *d6 = (struct in6_addr *)p.dip;
	u8 dmac[ETH_ALEN];
	bool lpbk, mcast;
	u16 vlan;
	u64 hdr = 0;
	int err, arp;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	err = irdma_path_addrs(grh, &p);
	if (err)
		return err;
	vlan = p.vlan;

	/*
	 * Multicast: the group's MAC, whatever the caller resolved (kernel
	 * callers need not have).  The device also loops the frame back,
	 * as Debian asks, for this function's own members of the group;
	 * and a destination that is our own address is only reachable so.
	 */
	ether_addr_copy(dmac, attr->roce.dmac);
	if (p.ipv4) {
		hdr |= IRDMA_AH_HDR_IPV4;
		mcast = ipv4_is_multicast(p.dip[3]);
		if (mcast)
			ip_eth_mc_map(p.dip[3], dmac);
		lpbk = ipv4_is_loopback(p.dip[3]) || p.sip[3] == p.dip[3];
	} else {
		mcast = ipv6_addr_is_multicast(d6);
		if (mcast)
			ipv6_eth_mc_map(d6, dmac);
		lpbk = ipv6_addr_loopback(d6) ||
		       ipv6_addr_equal((struct in6_addr *)p.sip, d6);
	}
	if (mcast || lpbk)
		hdr |= IRDMA_AH_HDR_LOOPBACK;

	/* The tag's priority from the traffic class, as Debian's. */
	if (vlan < VLAN_N_VID) {
		hdr |= IRDMA_AH_HDR_VLAN;
		vlan |= FIELD_PREP(VLAN_PRIO_MASK,
				   rt_tos2priority(grh->traffic_class));
	} else {
		vlan = 0;
	}

	arp = irdma_arp_get(dev, p.dip, dmac);
	if (arp < 0)
		return arp;

	irdma_cqp_cmd_init(cmd, IRDMA_CQP_OP_CREATE_AH, hdr);
	cmd->wqe[0] = FIELD_PREP(IRDMA_AH_Q0_SMAC, ether_addr_to_u64(p.smac));
	cmd->wqe[1] = FIELD_PREP(IRDMA_AH_Q1_VLAN, vlan) |
		      FIELD_PREP(IRDMA_AH_Q1_TC, grh->traffic_class) |
		      FIELD_PREP(IRDMA_AH_Q1_PD_LO, lower_16_bits(pd));
	cmd->wqe[2] = FIELD_PREP(IRDMA_AH_Q2_FLOWLABEL, grh->flow_label) |
		      FIELD_PREP(IRDMA_AH_Q2_PD_HI, pd >> 16) |
		      FIELD_PREP(IRDMA_AH_Q2_HOPLIMIT, grh->hop_limit) |
		      FIELD_PREP(IRDMA_AH_Q2_ARPIDX, arp);
	irdma_ah_put_ip(cmd->wqe, IRDMA_AH_DEST_IP, p.dip);
	irdma_ah_put_ip(cmd->wqe, IRDMA_AH_SRC_IP, p.sip);
	return 0;
}

/*
 * An index in [first, max) of dev->ah_ids, which main.c bounds by the
 * committed FSIAV count, and within the header's 17 bits.  Straight
 * from the IDA rather than irdma_id_get(), which would allocate with
 * GFP_KERNEL: here the caller may be atomic.
 */
static int irdma_ah_id_get(struct irdma_dev *dev, gfp_t gfp)
{
	struct irdma_ids *ids = &dev->ah_ids;
	u32 end = min_t(u32, ids->max, FIELD_MAX(IRDMA_AH_HDR_IDX) + 1);

	return ida_alloc_range(&ids->ida, ids->first, end - 1, gfp);
}

static int irdma_ah_cmd(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd,
			bool sleep)
{
	return sleep ? irdma_cqp_exec(dev, cmd) :
		       irdma_cqp_exec_atomic(dev, cmd);
}

static int irdma_ah_destroy_hw(struct irdma_dev *dev, u32 id, bool sleep)
{
	struct irdma_cqp_cmd cmd;
	int err;

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_DESTROY_AH,
			   FIELD_PREP(IRDMA_AH_HDR_IDX, id));
	err = irdma_ah_cmd(dev, &cmd, sleep);
	/*
	 * An entry the device may still hold is never handed out again:
	 * the index leaks, as does everything once the CQP is dead.
	 */
	if (err)
		dev_dbg(dev->dma, "address handle %u not destroyed: %d\n",
			id, err);
	else
		irdma_id_put(&dev->ah_ids, id);
	return err;
}

/* Kernel (create_ah) and user (create_user_ah: UDATA) address handles. */
int irdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibah->device);
	bool sleep = init->flags & RDMA_CREATE_AH_SLEEPABLE;
	struct irdma_ah *ah = to_iah(ibah);
	struct irdma_create_ah_resp resp = {};
	struct irdma_cqp_cmd cmd;
	int id, err;

	if (udata && udata->outlen < IRDMA_AH_MIN_RESP)
		return -EINVAL;
	err = irdma_ah_build(dev, ibah, init->ah_attr, &cmd);
	if (err)
		return err;
	id = irdma_ah_id_get(dev, sleep ? GFP_KERNEL : GFP_ATOMIC);
	if (id < 0)
		return id;
	cmd.wqe[IRDMA_CQP_HDR] |= FIELD_PREP(IRDMA_AH_HDR_IDX, id);
	err = irdma_ah_cmd(dev, &cmd, sleep);
	if (err) {
		/* Not made, or the CQP is dead and nothing will be. */
		irdma_id_put(&dev->ah_ids, id);
		return err;
	}
	ah->id = id;

	/*
	 * For query_ah.  The core holds the source GID's entry for the
	 * AH's life (ibah->sgid_attr) and rdma_query_ah() wants none back,
	 * its callers never putting one: keep no reference.
	 */
	ah->attr = *init->ah_attr;
	ah->attr.grh.sgid_attr = NULL;

	if (udata) {
		resp.ah_id = id;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err) {
			irdma_ah_destroy_hw(dev, id, sleep);
			return err;
		}
	}
	return 0;
}

/*
 * The core cannot undo a failed destroy (kernel callers WARN), so this
 * always succeeds; a failure only leaks the index.
 */
int irdma_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	irdma_ah_destroy_hw(to_idev(ibah->device), to_iah(ibah)->id,
			    flags & RDMA_DESTROY_AH_SLEEPABLE);
	return 0;
}

int irdma_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_iah(ibah)->attr;
	return 0;
}

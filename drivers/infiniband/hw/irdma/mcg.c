// SPDX-License-Identifier: GPL-2.0-only
/*
 * Multicast groups of UD QPs.  The device keeps a group as one context
 * of eight member entries the driver writes, and is given the whole of
 * it at each change: CREATE_MCAST_GRP at the first member, MODIFY at
 * each join or leave after, DESTROY at the last leave.  The group's
 * command carries its Ethernet multicast MAC and IP address; the device
 * then takes datagrams to that MAC and gives one to each member.
 *
 * The groups are this device's, under @dev->mcg_lock (attach and detach
 * sleep on the control QP).
 *
 * Facts: the E810 scoping (a group holds 8 QPs, IRDMA_MAX_MGS_PER_CTX),
 * Debian's irdma uda_d.h (IRDMA_UDA_CQPSQ_MG_*, IRDMA_UDA_MGCTX_*: the
 * WQE and member entry fields), our model's e810-mcg.c.
 */
#include <net/addrconf.h>
#include <net/ip.h>
#include <rdma/ib_addr.h>

#include "verbs.h"

#define IRDMA_MCG_MAX_QPS	8
#define IRDMA_MCG_MAX		4096	/* group indices the device takes */
#define IRDMA_MCG_HDR_IDX	GENMASK_ULL(12, 0)
#define IRDMA_MCG_HDR_VLAN_VALID BIT_ULL(59)
#define IRDMA_MCG_HDR_IPV4	BIT_ULL(60)
#define IRDMA_MCG_Q1_HMC_FN	GENMASK_ULL(5, 0)
#define IRDMA_MCG_Q2_QS_HANDLE	GENMASK_ULL(9, 0)
#define IRDMA_MCG_Q2_VLAN	GENMASK_ULL(43, 32)
#define IRDMA_MCG_ENT_QP	GENMASK_ULL(17, 0)
#define IRDMA_MCG_ENT_VALID	BIT_ULL(31)
#define IRDMA_CQP_OP_CREATE_MCG	0x26
#define IRDMA_CQP_OP_MODIFY_MCG	0x27
#define IRDMA_CQP_OP_DESTROY_MCG 0x28

struct irdma_mcg {
	struct list_head node;
	union ib_gid gid;
	u32 idx;
	u32 qps[IRDMA_MCG_MAX_QPS];
	unsigned int n;
	struct irdma_dma ctx;		/* the member entries */
};

static int irdma_mcg_cmd(struct irdma_dev *dev, struct irdma_mcg *g, u8 op)
{
	struct irdma_cqp_cmd cmd;
	__le64 *ent = g->ctx.va;
	bool ipv4 = ipv6_addr_v4mapped((struct in6_addr *)g->gid.raw);
	const __be32 *w = (const __be32 *)g->gid.raw;
	u8 mac[ETH_ALEN];
	unsigned int i;

	if (ipv4)
		ip_eth_mc_map(w[3], mac);
	else
		ipv6_eth_mc_map((struct in6_addr *)g->gid.raw, mac);
	memset(ent, 0, IRDMA_MCG_MAX_QPS * sizeof(*ent));
	for (i = 0; i < g->n; i++)
		ent[i] = cpu_to_le64(FIELD_PREP(IRDMA_MCG_ENT_QP, g->qps[i]) |
				     IRDMA_MCG_ENT_VALID);

	irdma_cqp_cmd_init(&cmd, op, FIELD_PREP(IRDMA_MCG_HDR_IDX, g->idx) |
			   (ipv4 ? IRDMA_MCG_HDR_IPV4 : 0));
	cmd.wqe[0] = ether_addr_to_u64(mac);
	cmd.wqe[1] = FIELD_PREP(IRDMA_MCG_Q1_HMC_FN, dev->hmc_fn);
	cmd.wqe[2] = FIELD_PREP(IRDMA_MCG_Q2_QS_HANDLE, dev->ws.qs_handle);
	cmd.wqe[4] = g->ctx.pa;
	if (ipv4) {
		cmd.wqe[6] = be32_to_cpu(w[3]);
	} else {
		cmd.wqe[7] = irdma_ip_q(w, 0, 1);
		cmd.wqe[6] = irdma_ip_q(w, 2, 3);
	}
	return irdma_cqp_exec(dev, &cmd);
}

static struct irdma_mcg *irdma_mcg_find(struct irdma_dev *dev,
					const union ib_gid *gid)
{
	struct irdma_mcg *g;

	lockdep_assert_held(&dev->mcg_lock);
	list_for_each_entry(g, &dev->mcgs, node)
		if (!memcmp(&g->gid, gid, sizeof(*gid)))
			return g;
	return NULL;
}

int irdma_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct irdma_dev *dev = to_idev(ibqp->device);
	struct irdma_mcg *g;
	bool created = false;
	unsigned int i;
	int err, id;

	mutex_lock(&dev->mcg_lock);
	g = irdma_mcg_find(dev, gid);
	if (!g) {
		err = -ENOMEM;
		g = kzalloc(sizeof(*g), GFP_KERNEL);
		if (!g)
			goto unlock;
		id = ida_alloc_max(&dev->mcg_ids, IRDMA_MCG_MAX - 1,
				   GFP_KERNEL);
		if (id < 0 ||
		    irdma_dma_alloc(dev, &g->ctx, IRDMA_MCG_MAX_QPS * 8)) {
			if (id >= 0)
				ida_free(&dev->mcg_ids, id);
			kfree(g);
			goto unlock;
		}
		g->idx = id;
		g->gid = *gid;
		created = true;
	}
	for (i = 0; i < g->n; i++)
		if (g->qps[i] == ibqp->qp_num) {
			err = 0;	/* already a member */
			goto unlock;
		}
	err = -ENOMEM;
	if (g->n == IRDMA_MCG_MAX_QPS)
		goto unlock;
	g->qps[g->n++] = ibqp->qp_num;
	err = irdma_mcg_cmd(dev, g, created ? IRDMA_CQP_OP_CREATE_MCG :
			    IRDMA_CQP_OP_MODIFY_MCG);
	if (err) {
		g->n--;
		if (created) {
			irdma_dma_free(dev, &g->ctx);
			ida_free(&dev->mcg_ids, g->idx);
			kfree(g);
		}
		goto unlock;
	}
	if (created)
		list_add(&g->node, &dev->mcgs);
unlock:
	mutex_unlock(&dev->mcg_lock);
	return err;
}

int irdma_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct irdma_dev *dev = to_idev(ibqp->device);
	struct irdma_mcg *g;
	unsigned int i;
	int err = -EINVAL;

	mutex_lock(&dev->mcg_lock);
	g = irdma_mcg_find(dev, gid);
	if (!g)
		goto unlock;
	for (i = 0; i < g->n && g->qps[i] != ibqp->qp_num; i++)
		;
	if (i == g->n)
		goto unlock;
	g->qps[i] = g->qps[--g->n];
	if (g->n) {
		err = irdma_mcg_cmd(dev, g, IRDMA_CQP_OP_MODIFY_MCG);
		goto unlock;
	}
	err = irdma_mcg_cmd(dev, g, IRDMA_CQP_OP_DESTROY_MCG);
	list_del(&g->node);
	irdma_dma_free(dev, &g->ctx);
	ida_free(&dev->mcg_ids, g->idx);
	kfree(g);
unlock:
	mutex_unlock(&dev->mcg_lock);
	return err;
}

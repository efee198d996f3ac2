// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device's ARP cache: RC QP contexts and address handles name their
 * next hop's MAC by an index into it (MANAGE_ARP).  Entries are kept by
 * IP address, made on first use and rewritten when the MAC a path gives
 * for the address changes; they stay until the device goes (the cache
 * holds as many as the HMC committed, far more than a function's
 * neighbours).  Address handles are made in atomic context (ib_cm's
 * replies), so the table is under a spinlock and its commands polled.
 *
 * The addresses of a path (a QP's, an address handle's) come from here
 * too: both name their next hop's entry by the destination's IP.
 */
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "verbs.h"

int irdma_path_addrs(const struct ib_global_route *grh,
		     struct irdma_path_addrs *a)
{
	const struct ib_gid_attr *sgid = grh->sgid_attr;
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} s, d;
	int err;

	if (!sgid)
		return -EINVAL;
	a->vlan = VLAN_N_VID;
	err = rdma_read_gid_l2_fields(sgid, &a->vlan, a->smac);
	if (err)
		return err;
	rdma_gid2ip(&s.sa, &sgid->gid);
	rdma_gid2ip(&d.sa, &grh->dgid);
	if (s.sa.sa_family != d.sa.sa_family)
		return -EINVAL;
	memset(a->sip, 0, sizeof(a->sip));
	memset(a->dip, 0, sizeof(a->dip));
	a->ipv4 = s.sa.sa_family == AF_INET;
	if (a->ipv4) {
		a->sip[3] = s.in.sin_addr.s_addr;
		a->dip[3] = d.in.sin_addr.s_addr;
	} else {
		memcpy(a->sip, &s.in6.sin6_addr, sizeof(a->sip));
		memcpy(a->dip, &d.in6.sin6_addr, sizeof(a->dip));
	}
	return 0;
}

struct irdma_arp_entry {
	__be32 ip[4];
	u8 mac[ETH_ALEN];
	bool used;
};

static int irdma_arp_write(struct irdma_dev *dev, u32 idx, const u8 *mac)
{
	struct irdma_cqp_cmd cmd;

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_MANAGE_ARP,
			   FIELD_PREP(IRDMA_ARP_HDR_IDX, idx) |
			   IRDMA_ARP_HDR_VALID | IRDMA_ARP_HDR_PERMANENT);
	cmd.wqe[2] = FIELD_PREP(IRDMA_ARP_MAC, ether_addr_to_u64(mac));
	return irdma_cqp_exec_atomic(dev, &cmd);
}

/* The index of IP's entry, with MAC written there; any context. */
int irdma_arp_get(struct irdma_dev *dev, const __be32 *ip, const u8 *mac)
{
	struct irdma_arp_entry *e, *free = NULL;
	unsigned long flags;
	int idx = -ENOMEM;
	u32 i;

	spin_lock_irqsave(&dev->arp_lock, flags);
	/* Entry 0 is reserved. */
	for (i = 1; i < dev->narp; i++) {
		e = &dev->arp[i];
		if (!e->used) {
			free = free ?: e;
			continue;
		}
		if (!memcmp(e->ip, ip, sizeof(e->ip))) {
			idx = i;
			if (!ether_addr_equal(e->mac, mac)) {
				idx = irdma_arp_write(dev, i, mac) ?: i;
				if (idx == i)
					ether_addr_copy(e->mac, mac);
			}
			goto out;
		}
	}
	if (free) {
		i = free - dev->arp;
		idx = irdma_arp_write(dev, i, mac) ?: i;
		if (idx == i) {
			memcpy(free->ip, ip, sizeof(free->ip));
			ether_addr_copy(free->mac, mac);
			free->used = true;
		}
	}
out:
	spin_unlock_irqrestore(&dev->arp_lock, flags);
	return idx;
}

int irdma_arp_init(struct irdma_dev *dev)
{
	spin_lock_init(&dev->arp_lock);
	dev->narp = dev->hmc.obj[IRDMA_HMC_ARP].cnt;
	dev->arp = kvcalloc(dev->narp, sizeof(*dev->arp), GFP_KERNEL);
	return dev->arp ? 0 : -ENOMEM;
}

void irdma_arp_fini(struct irdma_dev *dev)
{
	kvfree(dev->arp);
	dev->arp = NULL;
}

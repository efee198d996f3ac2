// SPDX-License-Identifier: GPL-2.0-only
/*
 * Multicast groups: which UD QPs are attached to which multicast GID.
 * The first attach to a group subscribes the netdev to the group's
 * Ethernet address, the last detach unsubscribes it.  The receive path
 * (rxe_recv.c) finds the members of a group with rxe_mcast_get_qps(), in
 * softirq context: every change to the lists is made under mcg_spin as
 * well as under mcg_lock.
 */
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

struct rxe_mcg {
	struct list_head	list;		/* in rxe->mcg_list */
	union ib_gid		mgid;
	struct list_head	members;	/* of struct rxe_mca */
	unsigned int		num_members;
};

/*
 * One QP's membership of one group.  The core counts every successful
 * attach as a use of the QP, to be undone by a detach: a membership
 * lasts until as many detaches as attaches.
 */
struct rxe_mca {
	struct list_head	list;
	struct rxe_qp		*qp;
	unsigned int		attached;
};

void rxe_mcast_init(struct rxe_dev *rxe)
{
	mutex_init(&rxe->mcg_lock);
	spin_lock_init(&rxe->mcg_spin);
	INIT_LIST_HEAD(&rxe->mcg_list);
}

static void rxe_mcg_mac(const union ib_gid *mgid, u8 *mac)
{
	ipv6_eth_mc_map((const struct in6_addr *)mgid->raw, mac);
}

static struct rxe_mcg *rxe_mcg_find(struct rxe_dev *rxe,
				    const union ib_gid *mgid)
{
	struct rxe_mcg *mcg;

	lockdep_assert_held(&rxe->mcg_lock);

	list_for_each_entry(mcg, &rxe->mcg_list, list)
		if (!memcmp(mcg->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return mcg;
	return NULL;
}

static struct rxe_mcg *rxe_mcg_create(struct rxe_dev *rxe,
				      const union ib_gid *mgid)
{
	u8 mac[ETH_ALEN];
	struct rxe_mcg *mcg;
	int err;

	lockdep_assert_held(&rxe->mcg_lock);

	if (rxe->num_mcg >= RXE_MAX_MCAST_GRP)
		return ERR_PTR(-ENOMEM);

	mcg = kzalloc(sizeof(*mcg), GFP_KERNEL);
	if (!mcg)
		return ERR_PTR(-ENOMEM);

	rxe_mcg_mac(mgid, mac);
	err = dev_mc_add(rxe->ndev, mac);
	if (err) {
		kfree(mcg);
		return ERR_PTR(err);
	}

	mcg->mgid = *mgid;
	INIT_LIST_HEAD(&mcg->members);
	spin_lock_bh(&rxe->mcg_spin);
	list_add_tail(&mcg->list, &rxe->mcg_list);
	spin_unlock_bh(&rxe->mcg_spin);
	rxe->num_mcg++;
	return mcg;
}

static void rxe_mcg_destroy(struct rxe_dev *rxe, struct rxe_mcg *mcg)
{
	u8 mac[ETH_ALEN];

	lockdep_assert_held(&rxe->mcg_lock);

	rxe_mcg_mac(&mcg->mgid, mac);
	dev_mc_del(rxe->ndev, mac);
	spin_lock_bh(&rxe->mcg_spin);
	list_del(&mcg->list);
	spin_unlock_bh(&rxe->mcg_spin);
	rxe->num_mcg--;
	kfree(mcg);
}

static struct rxe_mca *rxe_mca_find(struct rxe_mcg *mcg, struct rxe_qp *qp)
{
	struct rxe_mca *mca;

	list_for_each_entry(mca, &mcg->members, list)
		if (mca->qp == qp)
			return mca;
	return NULL;
}

/* Removes a membership; the group goes with its last member. */
static void rxe_mca_remove(struct rxe_dev *rxe, struct rxe_mcg *mcg,
			   struct rxe_mca *mca)
{
	lockdep_assert_held(&rxe->mcg_lock);

	spin_lock_bh(&rxe->mcg_spin);
	list_del(&mca->list);
	spin_unlock_bh(&rxe->mcg_spin);
	kfree(mca);
	if (!--mcg->num_members)
		rxe_mcg_destroy(rxe, mcg);
}

static int rxe_mcg_add_member(struct rxe_dev *rxe, struct rxe_mcg *mcg,
			      struct rxe_qp *qp)
{
	struct rxe_mca *mca;

	if (mcg->num_members >= RXE_MAX_MCAST_QP_ATTACH)
		return -ENOMEM;

	mca = kzalloc(sizeof(*mca), GFP_KERNEL);
	if (!mca)
		return -ENOMEM;
	mca->qp = qp;
	mca->attached = 1;
	spin_lock_bh(&rxe->mcg_spin);
	list_add_tail(&mca->list, &mcg->members);
	spin_unlock_bh(&rxe->mcg_spin);
	mcg->num_members++;
	return 0;
}

int rxe_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_mca *mca;
	struct rxe_mcg *mcg;
	bool created = false;
	int err = 0;

	mutex_lock(&rxe->mcg_lock);
	mcg = rxe_mcg_find(rxe, gid);
	if (!mcg) {
		mcg = rxe_mcg_create(rxe, gid);
		if (IS_ERR(mcg)) {
			err = PTR_ERR(mcg);
			goto out;
		}
		created = true;
	}

	mca = rxe_mca_find(mcg, qp);
	if (mca) {
		mca->attached++;
		goto out;
	}

	err = rxe_mcg_add_member(rxe, mcg, qp);
	if (err && created)
		rxe_mcg_destroy(rxe, mcg);
out:
	mutex_unlock(&rxe->mcg_lock);
	return err;
}

int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_mcg *mcg;
	struct rxe_mca *mca;
	int err = -EINVAL;

	mutex_lock(&rxe->mcg_lock);
	mcg = rxe_mcg_find(rxe, gid);
	if (!mcg)
		goto out;
	mca = rxe_mca_find(mcg, to_rqp(ibqp));
	if (!mca)
		goto out;

	if (!--mca->attached)
		rxe_mca_remove(rxe, mcg, mca);
	err = 0;
out:
	mutex_unlock(&rxe->mcg_lock);
	return err;
}

/* A QP being destroyed leaves every group it is in. */
void rxe_mcast_detach_qp(struct rxe_qp *qp)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	struct rxe_mcg *mcg, *next;
	struct rxe_mca *mca;

	mutex_lock(&rxe->mcg_lock);
	list_for_each_entry_safe(mcg, next, &rxe->mcg_list, list) {
		mca = rxe_mca_find(mcg, qp);
		if (mca)
			rxe_mca_remove(rxe, mcg, mca);
	}
	mutex_unlock(&rxe->mcg_lock);
}

/*
 * Fills @qps with referenced members of the group @mgid, at most @max;
 * returns how many.  Any context.  A member is referenced while it is
 * still attached, and a QP leaves its groups before its destruction
 * waits for references (rxe_destroy_qp()), so the reference is safe.
 */
unsigned int rxe_mcast_get_qps(struct rxe_dev *rxe, const union ib_gid *mgid,
			       struct rxe_qp **qps, unsigned int max)
{
	struct rxe_mcg *mcg;
	struct rxe_mca *mca;
	unsigned int n = 0;

	spin_lock_bh(&rxe->mcg_spin);
	list_for_each_entry(mcg, &rxe->mcg_list, list) {
		if (memcmp(mcg->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			continue;
		list_for_each_entry(mca, &mcg->members, list) {
			if (n == max)
				break;
			rxe_qp_get(mca->qp);
			qps[n++] = mca->qp;
		}
		break;
	}
	spin_unlock_bh(&rxe->mcg_spin);
	return n;
}

/* The device is being freed: every QP, and so every group, is gone. */
void rxe_mcast_cleanup(struct rxe_dev *rxe)
{
	mutex_destroy(&rxe->mcg_lock);
}

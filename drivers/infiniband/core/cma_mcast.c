// SPDX-License-Identifier: GPL-2.0-only
/*
 * Multicast on RoCE.  There is no SA to join: the group's GID is derived
 * from its IP address (an IPv4-mapped GID for RoCEv2, ff0e::ffff:a.b.c.d
 * for RoCEv1, the address itself for IPv6), the netdev joins the IP group
 * so the switch and the host deliver its traffic (IGMP), and the join
 * completes at once: RDMA_CM_EVENT_MULTICAST_JOIN is delivered from the
 * workqueue with the address handle attributes and Q_Key to send with.
 * IB multicast (SA MCMemberRecords) is not implemented.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"

/**
 * struct cma_multicast - a group an id joined
 * @list: on id_priv->mc_list (mc_lock)
 * @id_priv: the id
 * @context: the consumer's, returned in the events
 * @addr: the group's IP address
 * @join_state: the join state bits (full member, send only ...)
 * @igmp: the netdev joined the IP group, to leave again
 * @work: delivers @event
 * @event: the join's outcome, built at join time
 */
struct cma_multicast {
	struct list_head list;
	struct rdma_id_private *id_priv;
	void *context;
	struct sockaddr_storage addr;
	u8 join_state;
	bool igmp;
	struct work_struct work;
	struct rdma_cm_event event;
};

static void cma_iboe_set_mgid(const struct sockaddr *addr, union ib_gid *mgid,
			      enum ib_gid_type gid_type)
{
	bool v2 = gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP;

	memset(mgid, 0, sizeof(*mgid));
	if (cma_any_addr(addr))
		return;
	if (addr->sa_family == AF_INET6) {
		memcpy(mgid, &((struct sockaddr_in6 *)addr)->sin6_addr,
		       sizeof(*mgid));
		return;
	}
	mgid->raw[0] = v2 ? 0 : 0xff;
	mgid->raw[1] = v2 ? 0 : 0x0e;
	mgid->raw[10] = 0xff;
	mgid->raw[11] = 0xff;
	memcpy(&mgid->raw[12], &((struct sockaddr_in *)addr)->sin_addr.s_addr, 4);
}

/* Join or leave the IPv4 group of @mgid on @ndev. */
static int cma_igmp(struct net_device *ndev, const union ib_gid *mgid,
		    bool join)
{
	struct in_device *in_dev;
	__be32 group;

	memcpy(&group, &mgid->raw[12], sizeof(group));
	rtnl_lock();
	in_dev = __in_dev_get_rtnl(ndev);
	if (in_dev) {
		if (join)
			ip_mc_inc_group(in_dev, group);
		else
			ip_mc_dec_group(in_dev, group);
	}
	rtnl_unlock();
	return in_dev ? 0 : -ENODEV;
}

static void cma_mc_work_handler(struct work_struct *work)
{
	struct cma_multicast *mc = container_of(work, struct cma_multicast, work);
	struct rdma_id_private *id_priv = mc->id_priv;
	enum rdma_cm_state state;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	/*
	 * A nonzero return cannot destroy the id from here: destruction
	 * waits for this work.  Consumers leave the group instead.
	 */
	if (state != RDMA_CM_DESTROYING && state != RDMA_CM_DEVICE_REMOVAL &&
	    cma_deliver(id_priv, &mc->event))
		pr_debug("RDMA CM: multicast event handler returned nonzero\n");
	mutex_unlock(&id_priv->handler_mutex);
}

static void cma_mc_event(struct rdma_id_private *id_priv,
			 struct cma_multicast *mc, struct ib_sa_mcmember_rec *rec,
			 struct net_device *ndev, enum ib_gid_type gid_type)
{
	struct rdma_cm_event *event = &mc->event;

	event->param.ud.private_data = mc->context;
	event->event = RDMA_CM_EVENT_MULTICAST_JOIN;
	if (ib_init_ah_from_mcmember(id_priv->id.device, id_priv->id.port_num,
				     rec, ndev, gid_type,
				     &event->param.ud.ah_attr)) {
		event->event = RDMA_CM_EVENT_MULTICAST_ERROR;
		return;
	}
	event->param.ud.qp_num = 0xFFFFFF;
	event->param.ud.qkey = id_priv->qkey;
}

static int cma_iboe_join(struct rdma_id_private *id_priv,
			 struct cma_multicast *mc)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct sockaddr *addr = (struct sockaddr *)&mc->addr;
	bool send_only = mc->join_state == BIT(SENDONLY_FULLMEMBER_JOIN);
	struct ib_sa_mcmember_rec rec = {};
	enum ib_gid_type gid_type;
	struct net_device *ndev;
	int ret = 0;

	if (cma_any_addr(addr))
		return -EINVAL;

	gid_type = cma_default_gid_type(id_priv->cma_dev, id_priv->id.port_num);
	cma_iboe_set_mgid(addr, &rec.mgid, gid_type);
	rec.pkey = cpu_to_be16(0xffff);
	rec.rate = IB_RATE_PORT_CURRENT;
	rec.hop_limit = 1;

	ndev = dev_addr->bound_dev_if ?
	       dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if) : NULL;
	if (!ndev)
		return -ENODEV;
	rec.mtu = iboe_get_mtu(ndev->mtu);

	if (addr->sa_family == AF_INET) {
		if (gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP) {
			rec.hop_limit = IPV6_DEFAULT_HOPLIMIT;
			if (!send_only) {
				ret = cma_igmp(ndev, &rec.mgid, true);
				mc->igmp = !ret;
			}
		}
	} else if (gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP) {
		ret = -EOPNOTSUPP;	/* MLD for RoCEv2: as stock, not done */
	}
	if (!ret && !rec.mtu)
		ret = -EINVAL;
	if (ret)
		goto out;

	if (!id_priv->qkey)
		cma_set_default_qkey(id_priv);
	rdma_ip2gid(cma_src_addr(id_priv), &rec.port_gid);
	cma_mc_event(id_priv, mc, &rec, ndev, gid_type);
	INIT_WORK(&mc->work, cma_mc_work_handler);
	queue_work(cma_wq, &mc->work);
out:
	dev_put(ndev);
	return ret;
}

static void cma_destroy_mc(struct rdma_id_private *id_priv,
			   struct cma_multicast *mc)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct net_device *ndev;
	union ib_gid mgid;

	cancel_work_sync(&mc->work);
	if (mc->igmp) {
		ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
		if (ndev) {
			cma_iboe_set_mgid((struct sockaddr *)&mc->addr, &mgid,
					  IB_GID_TYPE_ROCE_UDP_ENCAP);
			cma_igmp(ndev, &mgid, false);
			dev_put(ndev);
		}
	}
	if (mc->event.event == RDMA_CM_EVENT_MULTICAST_JOIN)
		rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
	kfree(mc);
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	enum rdma_cm_state state = cma_state(id_priv);
	struct cma_multicast *mc;
	int ret;

	/* Kernel QPs would need attaching here: not supported, as stock. */
	if (WARN_ON(id->qp))
		return -EINVAL;
	if (!id->device ||
	    (state != RDMA_CM_ADDR_BOUND && state != RDMA_CM_ADDR_RESOLVED))
		return -EINVAL;
	if (id->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EINVAL;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;

	memcpy(&mc->addr, addr, rdma_addr_size(addr));
	mc->context = context;
	mc->id_priv = id_priv;
	mc->join_state = join_state;
	INIT_WORK(&mc->work, cma_mc_work_handler);

	if (rdma_protocol_roce(id->device, id->port_num))
		ret = cma_iboe_join(id_priv, mc);
	else
		ret = -EOPNOTSUPP;
	if (ret) {
		kfree(mc);
		return ret;
	}

	spin_lock_irq(&id_priv->mc_lock);
	list_add(&mc->list, &id_priv->mc_list);
	spin_unlock_irq(&id_priv->mc_lock);
	return 0;
}
EXPORT_SYMBOL(rdma_join_multicast);

/*
 * Unlinks and returns @id_priv's group of @addr joined with @context, or,
 * with @any_context, the newest join of @addr (as stock); NULL if none.
 */
static struct cma_multicast *cma_unlink_mc(struct rdma_id_private *id_priv,
					   const struct sockaddr *addr,
					   const void *context,
					   bool any_context)
{
	struct cma_multicast *mc;

	spin_lock_irq(&id_priv->mc_lock);
	list_for_each_entry(mc, &id_priv->mc_list, list) {
		if (memcmp(&mc->addr, addr, rdma_addr_size(addr)))
			continue;
		if (!any_context && mc->context != context)
			continue;
		list_del(&mc->list);
		spin_unlock_irq(&id_priv->mc_lock);
		return mc;
	}
	spin_unlock_irq(&id_priv->mc_lock);
	return NULL;
}

void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct cma_multicast *mc;

	mc = cma_unlink_mc(id_priv, addr, NULL, true);
	if (mc)
		cma_destroy_mc(id_priv, mc);
}
EXPORT_SYMBOL(rdma_leave_multicast);

/**
 * rdma_leave_multicast_context - leave one join of a group
 * @id: the id that joined
 * @addr: the group
 * @context: what that join passed to rdma_join_multicast()
 *
 * An id may join one group more than once (rdma_ucm lets userspace, as
 * stock), each join with a context its events carry.  rdma_leave_multicast()
 * leaves whichever join of @addr is newest, so a caller that frees the
 * context of the join it leaves needs this one: the join left behind would
 * deliver the freed context.  Not in stock 6.1: rdma_ucm's only.
 */
void rdma_leave_multicast_context(struct rdma_cm_id *id,
				  const struct sockaddr *addr,
				  const void *context)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct cma_multicast *mc;

	mc = cma_unlink_mc(id_priv, addr, context, false);
	if (mc)
		cma_destroy_mc(id_priv, mc);
}
EXPORT_SYMBOL(rdma_leave_multicast_context);

void cma_leave_all_mc(struct rdma_id_private *id_priv)
{
	struct cma_multicast *mc;

	spin_lock_irq(&id_priv->mc_lock);
	while (!list_empty(&id_priv->mc_list)) {
		mc = list_first_entry(&id_priv->mc_list, struct cma_multicast,
				      list);
		list_del(&mc->list);
		spin_unlock_irq(&id_priv->mc_lock);
		cma_destroy_mc(id_priv, mc);
		spin_lock_irq(&id_priv->mc_lock);
	}
	spin_unlock_irq(&id_priv->mc_lock);
}

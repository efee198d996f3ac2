// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_rxe module entry, device creation ("rdma link add NAME type rxe
 * netdev NDEV") and the port state the device derives from its netdev.
 *
 * Lifetime of a device: rxe_newlink() allocates and registers it; it goes
 * away through the core only, by "rdma link del" (IBK_ALLOW_USER_UNREG),
 * by its netdev's NETDEV_UNREGISTER (rxe_net.c) or by module removal
 * (ib_unregister_driver()).  Each ends in rxe_dealloc().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "rxe.h"
#include "rxe_net.h"
#include "rxe_task.h"
#include "rxe_verbs.h"

/*
 * Serialises rxe_newlink(), so that the one-device-per-netdev check and
 * the registration that makes the device visible to it are atomic.
 */
static DEFINE_MUTEX(rxe_newlink_lock);

static enum ib_mtu rxe_ndev_mtu_to_ib(unsigned int ndev_mtu)
{
	enum ib_mtu mtu = ib_mtu_int_to_enum((int)ndev_mtu -
					     RXE_ROCE_HDR_OVERHEAD);

	return min(mtu, RXE_PORT_MAX_MTU);
}

/*
 * Follows the netdev's link state; raises IB_EVENT_PORT_ACTIVE or
 * IB_EVENT_PORT_ERR when the port state changes.
 */
void rxe_port_update_state(struct rxe_dev *rxe)
{
	struct rxe_port *port = &rxe->port;
	enum ib_port_state state, old;
	struct ib_event event = {
		.device = &rxe->ib_dev,
		.element.port_num = RXE_PORT,
	};

	ASSERT_RTNL();

	state = rxe_ndev_link_up(rxe->ndev) ? IB_PORT_ACTIVE : IB_PORT_DOWN;

	spin_lock(&port->lock);
	old = port->attr.state;
	port->attr.state = state;
	spin_unlock(&port->lock);

	if (state == old)
		return;

	if (state == IB_PORT_ACTIVE) {
		event.event = IB_EVENT_PORT_ACTIVE;
	} else {
		event.event = IB_EVENT_PORT_ERR;
		rxe_counter_inc(rxe, RXE_CNT_LINK_DOWNED);
	}
	ibdev_dbg(&rxe->ib_dev, "port %s\n",
		  state == IB_PORT_ACTIVE ? "active" : "down");
	ib_dispatch_event(&event);
}

/* The path MTU follows the netdev MTU. */
void rxe_port_update_mtu(struct rxe_dev *rxe)
{
	struct rxe_port *port = &rxe->port;
	enum ib_mtu mtu;

	ASSERT_RTNL();

	mtu = rxe_ndev_mtu_to_ib(rxe->ndev->mtu);

	spin_lock(&port->lock);
	port->attr.active_mtu = mtu;
	spin_unlock(&port->lock);
}

static void rxe_init_device_attr(struct ib_device_attr *attr, __be64 guid)
{
	attr->sys_image_guid = guid;
	attr->vendor_id = RXE_VENDOR_ID;
	attr->max_mr_size = RXE_MAX_MR_SIZE;
	attr->page_size_cap = RXE_PAGE_SIZE_CAP;
	attr->device_cap_flags = RXE_DEVICE_CAP_FLAGS;
	attr->kernel_cap_flags = RXE_KERNEL_CAP_FLAGS;
	attr->odp_caps.general_caps = IB_ODP_SUPPORT;
	attr->odp_caps.per_transport_caps.rc_odp_caps = RXE_ODP_RC_CAPS;
	attr->odp_caps.per_transport_caps.xrc_odp_caps = RXE_ODP_RC_CAPS;
	attr->odp_caps.per_transport_caps.uc_odp_caps = RXE_ODP_UC_UD_CAPS;
	attr->odp_caps.per_transport_caps.ud_odp_caps = RXE_ODP_UC_UD_CAPS;
	attr->max_qp = RXE_MAX_QP;
	attr->max_qp_wr = RXE_MAX_QP_WR;
	attr->max_send_sge = RXE_MAX_SGE;
	attr->max_recv_sge = RXE_MAX_SGE;
	attr->max_sge_rd = RXE_MAX_SGE_RD;
	attr->max_cq = RXE_MAX_CQ;
	attr->max_cqe = RXE_MAX_CQE;
	attr->max_mr = RXE_MAX_MR;
	attr->max_mw = RXE_MAX_MW;
	attr->max_pd = RXE_MAX_PD;
	attr->max_ah = RXE_MAX_AH;
	attr->max_qp_rd_atom = RXE_MAX_QP_RD_ATOM;
	attr->max_qp_init_rd_atom = RXE_MAX_QP_INIT_RD_ATOM;
	attr->max_res_rd_atom = RXE_MAX_RES_RD_ATOM;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_mcast_grp = RXE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = RXE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = RXE_MAX_TOT_MCAST_QP_ATTACH;
	attr->max_srq = RXE_MAX_SRQ;
	attr->max_srq_wr = RXE_MAX_SRQ_WR;
	attr->max_srq_sge = RXE_MAX_SRQ_SGE;
	attr->max_fast_reg_page_list_len = RXE_MAX_FMR_PAGE_LIST_LEN;
	attr->max_pkeys = RXE_MAX_PKEYS;
	attr->local_ca_ack_delay = RXE_LOCAL_CA_ACK_DELAY;
}

/*
 * Before registration, nothing else sees the port yet.  The state read
 * here may be stale by the time the device is registered: rxe_add()
 * refreshes it under RTNL afterwards.
 */
static void rxe_init_port(struct rxe_port *port, struct net_device *ndev)
{
	struct ib_port_attr *attr = &port->attr;

	spin_lock_init(&port->lock);
	attr->state = rxe_ndev_link_up(ndev) ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->max_mtu = RXE_PORT_MAX_MTU;
	attr->active_mtu = rxe_ndev_mtu_to_ib(READ_ONCE(ndev->mtu));
	attr->gid_tbl_len = RXE_PORT_GID_TBL_LEN;
	attr->port_cap_flags = RXE_PORT_CAP_FLAGS;
	attr->max_msg_sz = RXE_PORT_MAX_MSG_SZ;
	attr->pkey_tbl_len = RXE_PORT_PKEY_TBL_LEN;
	attr->max_vl_num = RXE_PORT_MAX_VL_NUM;
}

static void rxe_init_indices(struct rxe_dev *rxe)
{
	rxe_index_space_init(&rxe->qp_index, RXE_MIN_QP_INDEX,
			     RXE_MAX_QP_INDEX - 1, true);
	rxe_index_space_init(&rxe->srq_index, RXE_MIN_SRQ_INDEX,
			     RXE_MAX_SRQ_INDEX, false);
	rxe_index_space_init(&rxe->mr_index, RXE_MIN_MR_INDEX,
			     RXE_MAX_MR_INDEX, false);
	rxe_index_space_init(&rxe->mw_index, RXE_MIN_MW_INDEX,
			     RXE_MAX_MW_INDEX, false);
	rxe_index_space_init(&rxe->ah_index, RXE_MIN_AH_INDEX,
			     RXE_MAX_AH_INDEX, false);
}

static void rxe_destroy_indices(struct rxe_dev *rxe)
{
	rxe_index_space_destroy(&rxe->ah_index);
	rxe_index_space_destroy(&rxe->mw_index);
	rxe_index_space_destroy(&rxe->mr_index);
	rxe_index_space_destroy(&rxe->srq_index);
	rxe_index_space_destroy(&rxe->qp_index);
}

static void rxe_init_device(struct rxe_dev *rxe, struct net_device *ndev)
{
	struct ib_device *dev = &rxe->ib_dev;

	/* The modified EUI-64 of the MAC, as IPv6 derives interface IDs. */
	addrconf_addr_eui48((u8 *)&dev->node_guid, ndev->dev_addr);
	strscpy(dev->node_desc, "rxe", sizeof(dev->node_desc));
	dev->node_type = RDMA_NODE_IB_CA;
	dev->phys_port_cnt = 1;
	dev->num_comp_vectors = num_possible_cpus();
	dev->local_dma_lkey = 0;

	/*
	 * The provider writes work requests to the mapped queues itself:
	 * it needs only the doorbell and CQ arming from the write() ABI.
	 */
	dev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	rxe_init_device_attr(&rxe->attr, dev->node_guid);
	rxe_init_port(&rxe->port, ndev);
	rxe_init_indices(rxe);
	rxe_mcast_init(rxe);
	xa_init_flags(&rxe->counter_sets, XA_FLAGS_ALLOC1);
}

/*
 * ops.dealloc_driver: the core calls it once the device is unregistered
 * (or was never registered), before freeing it.  Every verbs object is
 * gone by then.
 */
void rxe_dealloc(struct ib_device *ibdev)
{
	struct rxe_dev *rxe = to_rdev(ibdev);

	rxe_mcast_cleanup(rxe);
	WARN_ON_ONCE(!xa_empty(&rxe->counter_sets));
	xa_destroy(&rxe->counter_sets);
	rxe_destroy_indices(rxe);
	netdev_put(rxe->ndev, &rxe->ndev_tracker);
}

/*
 * Events between rxe_init_port() and the registration that lets the
 * notifier find the device are lost: catch up with the netdev now.  The
 * device may already be on its way out if its netdev went away.
 */
static void rxe_sync_new_device(struct net_device *ndev)
{
	struct ib_device *ibdev;

	rtnl_lock();
	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (ibdev) {
		rxe_port_update_state(to_rdev(ibdev));
		rxe_port_update_mtu(to_rdev(ibdev));
		ib_device_put(ibdev);
	}
	rtnl_unlock();
}

static int rxe_add(const char *ibdev_name, struct net_device *ndev)
{
	struct rxe_dev *rxe;
	int err;

	lockdep_assert_held(&rxe_newlink_lock);

	rxe = ib_alloc_device(rxe_dev, ib_dev);
	if (!rxe)
		return -ENOMEM;

	/* From here on, ib_dealloc_device() undoes it all via rxe_dealloc(). */
	ib_set_device_ops(&rxe->ib_dev, &rxe_dev_ops);
	netdev_hold(ndev, &rxe->ndev_tracker, GFP_KERNEL);
	rxe->ndev = ndev;

	rxe_init_device(rxe, ndev);

	err = ib_device_set_netdev(&rxe->ib_dev, ndev, RXE_PORT);
	if (err)
		goto err_dealloc;

	err = ib_register_device(&rxe->ib_dev, ibdev_name, NULL);
	if (err)
		goto err_dealloc;

	/* Registered: rxe may be freed by a concurrent unregistration. */
	rxe_sync_new_device(ndev);
	return 0;

err_dealloc:
	ib_dealloc_device(&rxe->ib_dev);
	return err;
}

/* rdma_link_ops.newlink; @ndev is held by the caller. */
static int rxe_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *exists;
	int err;

	/* RoCE on a VLAN runs on its real device with a VLAN-tagged GID. */
	if (is_vlan_dev(ndev)) {
		pr_err("%s is a VLAN device: add rxe on its real device\n",
		       netdev_name(ndev));
		return -EPERM;
	}

	mutex_lock(&rxe_newlink_lock);

	exists = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (exists) {
		pr_err("%s already has the rxe device %s\n",
		       netdev_name(ndev), dev_name(&exists->dev));
		ib_device_put(exists);
		err = -EEXIST;
		goto out;
	}

	err = rxe_add(ibdev_name, ndev);
	if (err)
		pr_err("cannot add %s on %s: %d\n", ibdev_name,
		       netdev_name(ndev), err);

out:
	mutex_unlock(&rxe_newlink_lock);
	return err;
}

static struct rdma_link_ops rxe_link_ops = {
	.type = "rxe",
	.newlink = rxe_newlink,
};

static int __init rxe_module_init(void)
{
	int err;

	err = rxe_task_wq_init();
	if (err)
		return err;

	err = rxe_net_init();
	if (err) {
		rxe_task_wq_exit();
		return err;
	}

	rdma_link_register(&rxe_link_ops);
	return 0;
}

/*
 * Stop creation first (rdma_link_unregister() waits for a newlink in
 * progress), then remove every device while the notifier still runs, so
 * that a netdev unregistering meanwhile never waits on a device nobody
 * would remove; the sockets go last, after every device that could use
 * them.
 */
static void __exit rxe_module_exit(void)
{
	rdma_link_unregister(&rxe_link_ops);
	ib_unregister_driver(RDMA_DRIVER_RXE);
	rxe_net_exit();
	rxe_task_wq_exit();
}

module_init(rxe_module_init);
module_exit(rxe_module_exit);

MODULE_DESCRIPTION("Soft RoCE (RDMA over Converged Ethernet v2) driver (oot-rdma)");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
MODULE_ALIAS_RDMA_LINK("rxe");

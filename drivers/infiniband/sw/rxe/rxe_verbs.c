// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_device_ops of rxe: device and port queries, user contexts, PDs, the
 * parent attribute, and the table of every op; the verbs objects have
 * a file each (rxe_verbs.h).
 */
#include <linux/device.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <rdma/ib_mad.h>

#include "rxe.h"
#include "rxe_net.h"
#include "rxe_verbs.h"

static int rxe_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibdev);

	/* The query carries no driver-specific data either way. */
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	*attr = rxe->attr;
	return 0;
}

static int rxe_modify_device(struct ib_device *ibdev, int mask,
			     struct ib_device_modify *modify)
{
	struct rxe_dev *rxe = to_rdev(ibdev);

	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID |
		     IB_DEVICE_MODIFY_NODE_DESC))
		return -EOPNOTSUPP;

	/*
	 * The core reads its copy of the attributes (ibdev->attrs, taken at
	 * registration) for sysfs and nldev: keep it in step with ours.
	 */
	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID) {
		rxe->attr.sys_image_guid = cpu_to_be64(modify->sys_image_guid);
		ibdev->attrs.sys_image_guid = rxe->attr.sys_image_guid;
	}

	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, modify->node_desc,
		       sizeof(ibdev->node_desc));

	return 0;
}

/*
 * Physical state as IBA defines it for a port that is not active: the
 * link is being trained (netdev up, no carrier) or switched off.
 */
static enum ib_port_phys_state rxe_phys_state(struct rxe_dev *rxe,
					      enum ib_port_state state)
{
	if (state == IB_PORT_ACTIVE)
		return IB_PORT_PHYS_STATE_LINK_UP;
	if (netif_running(rxe->ndev))
		return IB_PORT_PHYS_STATE_POLLING;
	return IB_PORT_PHYS_STATE_DISABLED;
}

static int rxe_query_port(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attr *attr)
{
	struct rxe_dev *rxe = to_rdev(ibdev);
	struct rxe_port *port = &rxe->port;

	spin_lock(&port->lock);
	*attr = port->attr;
	spin_unlock(&port->lock);

	attr->phys_state = rxe_phys_state(rxe, attr->state);

	/*
	 * Takes RTNL: the core never queries ports with RTNL held.  It
	 * fails only once the netdev is unregistering and the device about
	 * to go: the port is down then, its speed moot, and the query still
	 * answers for the caches refreshing on the way out.
	 */
	if (ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

static int rxe_modify_port(struct ib_device *ibdev, u32 port_num, int mask,
			   struct ib_port_modify *modify)
{
	struct rxe_port *port = &to_rdev(ibdev)->port;

	spin_lock(&port->lock);
	port->attr.port_cap_flags |= modify->set_port_cap_mask;
	port->attr.port_cap_flags &= ~modify->clr_port_cap_mask;
	if (mask & IB_PORT_RESET_QKEY_CNTR)
		port->attr.qkey_viol_cntr = 0;
	spin_unlock(&port->lock);

	return 0;
}

static int rxe_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = RXE_PORT_PKEY_TBL_LEN;
	immutable->gid_tbl_len = RXE_PORT_GID_TBL_LEN;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer rxe_get_link_layer(struct ib_device *ibdev,
					       u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/* One P_Key, the default full-membership one. */
static int rxe_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			  u16 *pkey)
{
	if (index >= RXE_PORT_PKEY_TBL_LEN)
		return -EINVAL;

	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/* A user context holds the buffers it may mmap. */
static int rxe_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	rxe_mmap_ctx_init(&to_ruc(ibuc)->mmap);
	return 0;
}

/*
 * Device removal under a live context: nothing to revoke.  What a context
 * maps are the queues' vmalloc'ed pages, which each mapping references
 * itself; once the core has destroyed the objects they are inert memory,
 * never the device's.  Having this op is what lets ib_uverbs remove an
 * rxe device at once instead of waiting for its users to close.
 *
 * The core destroys the context's objects right after this: marked, its
 * QPs flush their outstanding WRs into the CQ rings then (rxe_qp.c), so
 * that an application polling for them ends instead of polling for ever.
 */
static void rxe_disassociate_ucontext(struct ib_ucontext *ibuc)
{
	to_ruc(ibuc)->removed = true;
}

/* Every object of the context, and so every offered buffer, is gone. */
static void rxe_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	mutex_destroy(&to_ruc(ibuc)->mmap.lock);
}

/*
 * A PD only names a protection domain; the objects created on it (MRs,
 * QPs, ...) keep the pointer and check it against each other's.
 */
static int rxe_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rxe_pd *pd = container_of(ibpd, struct rxe_pd, ibpd);

	pd->rxe = container_of(ibpd->device, struct rxe_dev, ib_dev);
	return 0;
}

/* The core only asks once nothing uses the PD any more. */
static int rxe_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

/*
 * "parent": the name of the netdev, which udev rules match to name the
 * device persistently.  Follows renames of the netdev.
 */
static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct rxe_dev *rxe = rdma_device_to_drv_device(device, struct rxe_dev,
							ib_dev);

	return sysfs_emit(buf, "%s\n", netdev_name(rxe->ndev));
}
static DEVICE_ATTR_RO(parent);

static struct attribute *rxe_dev_attrs[] = {
	&dev_attr_parent.attr,
	NULL,
};

static const struct attribute_group rxe_dev_attr_group = {
	.attrs = rxe_dev_attrs,
};

const struct ib_device_ops rxe_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = RXE_UVERBS_ABI_VERSION,
	.device_group = &rxe_dev_attr_group,

	.alloc_hw_port_stats = rxe_alloc_hw_port_stats,
	.alloc_mr = rxe_alloc_mr,
	.alloc_mw = rxe_alloc_mw,
	.alloc_pd = rxe_alloc_pd,
	.alloc_ucontext = rxe_alloc_ucontext,
	.attach_mcast = rxe_attach_mcast,
	.counter_alloc_stats = rxe_counter_alloc_stats,
	.counter_bind_qp = rxe_counter_bind_qp,
	.counter_dealloc = rxe_counter_dealloc,
	.counter_unbind_qp = rxe_counter_unbind_qp,
	.counter_update_stats = rxe_counter_update_stats,
	.create_ah = rxe_create_ah,
	.create_cq = rxe_create_cq,
	.create_qp = rxe_create_qp,
	.create_srq = rxe_create_srq,
	.create_user_ah = rxe_create_ah,
	.dealloc_driver = rxe_dealloc,
	.dealloc_mw = rxe_dealloc_mw,
	.dealloc_pd = rxe_dealloc_pd,
	.dealloc_ucontext = rxe_dealloc_ucontext,
	.dereg_mr = rxe_dereg_mr,
	.destroy_ah = rxe_destroy_ah,
	.destroy_cq = rxe_destroy_cq,
	.destroy_qp = rxe_destroy_qp,
	.destroy_srq = rxe_destroy_srq,
	.disassociate_ucontext = rxe_disassociate_ucontext,
	.detach_mcast = rxe_detach_mcast,
	.get_dma_mr = rxe_get_dma_mr,
	.get_hw_stats = rxe_get_hw_stats,
	.get_link_layer = rxe_get_link_layer,
	.get_port_immutable = rxe_get_port_immutable,
	.map_mr_sg = rxe_map_mr_sg,
	.mmap = rxe_mmap,
	.modify_ah = rxe_modify_ah,
	.modify_device = rxe_modify_device,
	.modify_hw_stat = rxe_modify_hw_stat,
	.modify_port = rxe_modify_port,
	.modify_qp = rxe_modify_qp,
	.modify_srq = rxe_modify_srq,
	.poll_cq = rxe_poll_cq,
	.post_recv = rxe_post_recv,
	.post_send = rxe_post_send,
	.post_srq_recv = rxe_post_srq_recv,
	.query_ah = rxe_query_ah,
	.query_device = rxe_query_device,
	.query_pkey = rxe_query_pkey,
	.query_port = rxe_query_port,
	.query_qp = rxe_query_qp,
	.query_srq = rxe_query_srq,
	.reg_user_mr = rxe_reg_user_mr,
	.rereg_user_mr = rxe_rereg_user_mr,
	.req_notify_cq = rxe_req_notify_cq,
	.resize_cq = rxe_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, rxe_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, rxe_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, rxe_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, rxe_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, rxe_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, rxe_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rxe_ucontext, ibuc),
};

// SPDX-License-Identifier: GPL-2.0-only
/*
 * irdma module entry: the auxiliary driver that binds ice's "ice.roce"
 * device (an E810 function in RoCEv2 mode), and ice's events.
 *
 * At probe it reads and checks what ice alone knows of the function
 * (ice.c), brings the protocol engine up (irdma_pe_up(): the control QP,
 * the HMC, CQ 0, the event queues) and registers the RDMA device; remove
 * undoes it in the reverse order.  Documentation/infiniband/irdma.rst.
 *
 * Lifetime: ice plugs the auxiliary device at its probe and unplugs it at
 * its remove and before every reset, devlink change of RDMA mode or LAG
 * change, plugging it again after; so irdma_probe() and irdma_remove()
 * see every such change, and nothing read at probe outlives its device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <net/addrconf.h>

#include "verbs.h"

MODULE_DESCRIPTION("Intel E810 RDMA driver on ice (oot-rdma)");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);

/*
 * The bound functions, for ice's event handler, which is given the
 * ice_pf and not the auxiliary device.  ice calls it with the auxiliary
 * device's lock held, as the driver core calls probe and remove, so an
 * event never runs beside its own function's probe or remove; the list
 * needs its own lock only against other functions'.
 */
static DEFINE_MUTEX(irdma_pfs_lock);
static LIST_HEAD(irdma_pfs);

static struct irdma_pf *irdma_pf_find(struct ice_pf *pf)
{
	struct irdma_pf *ipf;

	lockdep_assert_held(&irdma_pfs_lock);
	list_for_each_entry(ipf, &irdma_pfs, node)
		if (ipf->ice.pf == pf)
			return ipf;
	return NULL;
}

/*
 * ice's events.  An MTU change needs nothing: query_port reads the
 * netdev's, and QPs keep the path MTU they were given.  Traffic class
 * changes do not concern a device that uses class 0 alone (no DCB yet).
 * A critical error of the PE asks ice for a function reset, which
 * removes and probes us again.
 */
static void irdma_event(struct ice_pf *pf, struct iidc_event *event)
{
	struct irdma_pf *ipf;

	mutex_lock(&irdma_pfs_lock);
	ipf = irdma_pf_find(pf);
	if (ipf) {
		dev_dbg(&ipf->adev->dev, "ice event %*pb, register 0x%x\n",
			IIDC_EVENT_NBITS, event->type, event->reg);
		if (test_bit(IIDC_EVENT_CRIT_ERR, event->type)) {
			dev_warn(&ipf->adev->dev,
				 "critical event 0x%x: resetting the function\n",
				 event->reg);
			irdma_ice_reset(ipf);
		}
	}
	mutex_unlock(&irdma_pfs_lock);
}

int irdma_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibdev);
	struct pci_dev *pdev = to_pci_dev(dev->dma);

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = dev->fw_ver;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = 0x200000000000ULL;
	attr->page_size_cap = SZ_4K | SZ_2M | SZ_1G;
	attr->vendor_id = pdev->vendor;
	attr->vendor_part_id = pdev->device;
	attr->hw_ver = pdev->revision;
	attr->max_qp = dev->max_qp - IRDMA_FIRST_QP;
	attr->max_qp_wr = IRDMA_MAX_QP_WR;
	attr->max_send_sge = IRDMA_MAX_SGE;
	attr->max_recv_sge = IRDMA_MAX_SGE;
	attr->max_sge_rd = IRDMA_MAX_SGE;
	attr->max_cq = dev->max_cq - IRDMA_FIRST_CQ;
	attr->max_cqe = IRDMA_MAX_CQE;
	attr->max_mr = dev->max_mr - 1;
	attr->max_mw = attr->max_mr;
	attr->max_pd = dev->max_pd - IRDMA_FIRST_PD;
	attr->max_qp_rd_atom = IRDMA_MAX_IRD;
	attr->max_qp_init_rd_atom = IRDMA_MAX_ORD;
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->max_pkeys = 1;
	attr->max_ah = dev->max_ah;
	attr->max_mcast_grp = attr->max_qp;
	attr->max_mcast_qp_attach = 8;
	attr->max_total_mcast_qp_attach = attr->max_qp * 8;
	attr->max_fast_reg_page_list_len = 262144;
	attr->timestamp_mask = 0x1ffff;
	attr->device_cap_flags = IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_RC_RNR_NAK_GEN;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

static const struct ib_device_ops irdma_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_IRDMA,
	.uverbs_abi_ver = 5,

	.alloc_hw_port_stats = irdma_alloc_hw_port_stats,
	.alloc_mr = irdma_alloc_mr,
	.alloc_mw = irdma_alloc_mw,
	.alloc_pd = irdma_alloc_pd,
	.alloc_ucontext = irdma_alloc_ucontext,
	.attach_mcast = irdma_attach_mcast,
	.create_ah = irdma_create_ah,
	.create_user_ah = irdma_create_ah,
	.create_cq = irdma_create_cq,
	.create_qp = irdma_create_qp,
	.dealloc_mw = irdma_dealloc_mw,
	.dealloc_pd = irdma_dealloc_pd,
	.dealloc_ucontext = irdma_dealloc_ucontext,
	.dereg_mr = irdma_dereg_mr,
	.destroy_ah = irdma_destroy_ah,
	.destroy_cq = irdma_destroy_cq,
	.destroy_qp = irdma_destroy_qp,
	.detach_mcast = irdma_detach_mcast,
	.disassociate_ucontext = irdma_disassociate_ucontext,
	.get_dma_mr = irdma_get_dma_mr,
	.get_hw_stats = irdma_get_hw_stats,
	.get_link_layer = irdma_get_link_layer,
	.get_port_immutable = irdma_get_port_immutable,
	.map_mr_sg = irdma_map_mr_sg,
	.mmap = irdma_mmap,
	.mmap_free = irdma_mmap_free,
	.modify_qp = irdma_modify_qp,
	.poll_cq = irdma_poll_cq,
	.post_recv = irdma_post_recv,
	.post_send = irdma_post_send,
	.query_device = irdma_query_device,
	.query_ah = irdma_query_ah,
	.query_pkey = irdma_query_pkey,
	.query_port = irdma_query_port,
	.query_qp = irdma_query_qp,
	.reg_user_mr = irdma_reg_user_mr,
	.req_notify_cq = irdma_req_notify_cq,
	.resize_cq = irdma_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, irdma_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, irdma_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, irdma_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, irdma_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, irdma_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, irdma_ucontext, ibuc),
};

/*
 * The protocol engine down, in the reverse of irdma_pe_up(); each step
 * undoes only what was done (a partial bring-up calls it too).
 */
static void irdma_pe_down(struct irdma_dev *dev)
{
	irdma_stats_fini(dev);
	irdma_arp_fini(dev);
	irdma_pble_fini(dev);
	irdma_eqs_destroy(dev);
	irdma_ccq_destroy(dev);
	irdma_hmc_teardown(dev);
	irdma_cqp_destroy(dev);
}

/*
 * The protocol engine up, in the order the device needs: the control
 * QP through registers, the HMC's objects and their memory, CQ 0 for
 * the control QP's completions, then the event queues, the PBLE pool,
 * the ARP cache and the statistics instance.
 */
static int irdma_pe_up(struct irdma_dev *dev)
{
	struct irdma_hmc *hmc = &dev->hmc;
	int err;

	err = irdma_cqp_create(dev);
	if (err)
		return err;
	err = irdma_hmc_setup(dev);
	if (err)
		goto down;
	err = irdma_ids_init(&dev->qp_ids, IRDMA_FIRST_QP,
			     hmc->obj[IRDMA_HMC_QP].cnt) ?:
	      irdma_ids_init(&dev->cq_ids, IRDMA_FIRST_CQ,
			     hmc->obj[IRDMA_HMC_CQ].cnt) ?:
	      irdma_ids_init(&dev->pd_ids, IRDMA_FIRST_PD, dev->max_pd) ?:
	      irdma_ids_init(&dev->mr_ids, 1, dev->max_mr) ?:
	      irdma_ids_init(&dev->ah_ids, 1, dev->max_ah);
	if (err)
		goto down;
	err = irdma_ccq_create(dev);
	if (err)
		goto down;
	err = irdma_query_features(dev);
	if (err)
		goto down;
	err = irdma_eqs_create(dev);
	if (err)
		goto down;
	err = irdma_pble_init(dev);
	if (err)
		goto down;
	err = irdma_arp_init(dev);
	if (err)
		goto down;
	err = irdma_stats_init(dev);
	if (err)
		goto down;
	return 0;

down:
	irdma_pe_down(dev);
	return err;
}

static int irdma_dev_add(struct irdma_pf *ipf)
{
	struct irdma_ice *ice = &ipf->ice;
	struct irdma_dev *dev;
	struct ib_device *ibdev;
	int err;

	dev = ib_alloc_device(irdma_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	dev->pf = ipf;
	dev->hw = ice->hw_addr;
	dev->dma = &ice->pdev->dev;
	dev->netdev = ice->netdev;
	dev->hmc_fn = ice->pf_id;
	dev->vsi = ice->vsi_num;
	xa_init_flags(&dev->cqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_IRQ);
	mutex_init(&dev->ws.lock);
	mutex_init(&dev->mcg_lock);
	INIT_LIST_HEAD(&dev->mcgs);
	ida_init(&dev->mcg_ids);

	err = irdma_pe_up(dev);
	if (err)
		goto dealloc;

	ibdev = &dev->ibdev;
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = dev->nceq;
	ibdev->dev.parent = dev->dma;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, dev->netdev->dev_addr);
	ib_set_device_ops(ibdev, &irdma_dev_ops);
	err = ib_device_set_netdev(ibdev, dev->netdev, IRDMA_PORT);
	if (err)
		goto pe_down;
	/* The PE takes scatter entries of any length. */
	dma_set_max_seg_size(dev->dma, UINT_MAX);
	err = irdma_port_events_init(dev);
	if (err)
		goto pe_down;
	err = ib_register_device(ibdev, "irdma%d", dev->dma);
	if (err)
		goto port_events;
	/* RoCE frames to the VSI go to the PE from now on. */
	err = irdma_ice_vsi_filter(dev, true);
	if (err)
		goto unregister;
	ipf->dev = dev;
	return 0;

unregister:
	ib_unregister_device(ibdev);
port_events:
	irdma_port_events_fini(dev);
pe_down:
	irdma_pe_down(dev);
dealloc:
	ib_dealloc_device(&dev->ibdev);
	return err;
}

static void irdma_dev_remove(struct irdma_pf *ipf)
{
	struct irdma_dev *dev = ipf->dev;

	if (!dev)
		return;
	ipf->dev = NULL;
	irdma_ice_vsi_filter(dev, false);
	ib_unregister_device(&dev->ibdev);
	irdma_port_events_fini(dev);
	irdma_pe_down(dev);
	ib_dealloc_device(&dev->ibdev);
}

static int irdma_probe(struct auxiliary_device *adev,
		       const struct auxiliary_device_id *id)
{
	struct irdma_pf *ipf;
	int err;

	ipf = kzalloc(sizeof(*ipf), GFP_KERNEL);
	if (!ipf)
		return -ENOMEM;
	err = irdma_ice_read(adev, &ipf->ice);
	if (err)
		goto free;
	ipf->adev = adev;
	auxiliary_set_drvdata(adev, ipf);
	dev_info(&adev->dev,
		 "bound %s (function %u, VSI %u, %u MSI-X vectors from entry %u)\n",
		 netdev_name(ipf->ice.netdev), ipf->ice.pf_id,
		 ipf->ice.vsi_num, ipf->ice.nvec, ipf->ice.vec[0].index);
	err = irdma_dev_add(ipf);
	if (err)
		goto free;
	mutex_lock(&irdma_pfs_lock);
	list_add_tail(&ipf->node, &irdma_pfs);
	mutex_unlock(&irdma_pfs_lock);
	return 0;

free:
	kfree(ipf);
	return err;
}

static void irdma_remove(struct auxiliary_device *adev)
{
	struct irdma_pf *ipf = auxiliary_get_drvdata(adev);

	mutex_lock(&irdma_pfs_lock);
	list_del(&ipf->node);
	mutex_unlock(&irdma_pfs_lock);
	irdma_dev_remove(ipf);
	kfree(ipf);
}

static const struct auxiliary_device_id irdma_id_table[] = {
	{ .name = "ice.roce" },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, irdma_id_table);

/*
 * ice finds the event handler from the bound driver by container_of on
 * the auxiliary driver inside this structure (ice_idc.c): it must be
 * registered as this, never as a bare auxiliary_driver.
 */
static struct iidc_auxiliary_drv irdma_drv = {
	.adrv = {
		.id_table = irdma_id_table,
		.probe = irdma_probe,
		.remove = irdma_remove,
	},
	.event_handler = irdma_event,
};

static int __init irdma_init(void)
{
	return auxiliary_driver_register(&irdma_drv.adrv);
}

static void __exit irdma_exit(void)
{
	auxiliary_driver_unregister(&irdma_drv.adrv);
}

module_init(irdma_init);
module_exit(irdma_exit);

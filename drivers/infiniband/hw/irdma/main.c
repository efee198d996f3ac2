// SPDX-License-Identifier: GPL-2.0-only
/*
 * irdma module entry: the auxiliary driver that binds ice's "ice.roce"
 * device (an E810 function in RoCEv2 mode), and ice's events.
 *
 * A preview module, growing in milestones (Documentation/infiniband/
 * irdma.rst).  So far it binds: it reads and checks what ice alone knows
 * of the function (ice.c) and keeps it; the protocol engine and the RDMA
 * device come next.
 *
 * Lifetime: ice plugs the auxiliary device at its probe and unplugs it at
 * its remove and before every reset, devlink change of RDMA mode or LAG
 * change, plugging it again after; so irdma_probe() and irdma_remove()
 * see every such change, and nothing read at probe outlives its device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>

#include "irdma.h"

MODULE_DESCRIPTION("Intel E810 RDMA driver on ice (oot-rdma, preview)");
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

static void irdma_event(struct ice_pf *pf, struct iidc_event *event)
{
	struct irdma_pf *ipf;

	mutex_lock(&irdma_pfs_lock);
	ipf = irdma_pf_find(pf);
	if (ipf)
		dev_dbg(&ipf->adev->dev, "ice event %*pb, register 0x%x\n",
			IIDC_EVENT_NBITS, event->type, event->reg);
	mutex_unlock(&irdma_pfs_lock);
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
	if (err) {
		kfree(ipf);
		return err;
	}
	ipf->adev = adev;
	auxiliary_set_drvdata(adev, ipf);
	mutex_lock(&irdma_pfs_lock);
	list_add_tail(&ipf->node, &irdma_pfs);
	mutex_unlock(&irdma_pfs_lock);

	dev_info(&adev->dev,
		 "bound %s (function %u, VSI %u, %u MSI-X vectors from entry %u): no RDMA device yet (preview)\n",
		 netdev_name(ipf->ice.netdev), ipf->ice.pf_id,
		 ipf->ice.vsi_num, ipf->ice.nvec, ipf->ice.vec[0].index);
	return 0;
}

static void irdma_remove(struct auxiliary_device *adev)
{
	struct irdma_pf *ipf = auxiliary_get_drvdata(adev);

	mutex_lock(&irdma_pfs_lock);
	list_del(&ipf->node);
	mutex_unlock(&irdma_pfs_lock);
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

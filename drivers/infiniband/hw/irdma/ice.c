// SPDX-License-Identifier: GPL-2.0-only
/*
 * What only ice's private structures say: the BAR0 mapping, the PCI
 * function, the HMC function number, the main VSI and its netdev, and the
 * MSI-X vectors ice set aside for RDMA.  <linux/net/intel/iidc.h> gives an
 * auxiliary driver the struct ice_pf pointer and nothing of its insides,
 * so, as Debian's irdma does, this file includes ice's own ice.h, from
 * the target kernel's source (scripts/ice-headers; never in git), and is
 * the only one that does.
 *
 * Their layout is that of the kernel the headers came from: a build
 * against the wrong source would read other fields.  So each value is
 * checked against what public interfaces know of the same function
 * before it is used, and a disagreement refuses the device (-ENODEV)
 * rather than trusting a pointer.
 *
 * Facts: ice.h (struct ice_pf: pdev, hw, vsi, msix_entries,
 * num_rdma_msix, rdma_base_vector; ice_get_main_vsi), ice_type.h
 * (struct ice_hw: hw_addr, pf_id), ice_hw_autogen.h (PF_FUNC_RID),
 * ice_idc.c (ice_plug_aux_dev: the auxiliary device's parent is the PCI
 * function), ice_main.c (ice_probe maps BAR0 with pcim_iomap_regions;
 * ice_init_hw reads pf_id from PF_FUNC_RID).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pci.h>

#include "ice.h"
#include "irdma.h"

static int irdma_ice_mismatch(struct auxiliary_device *adev, const char *what)
{
	dev_warn(&adev->dev,
		 "ice's %s does not match this build of irdma (ice headers of another kernel?): not binding\n",
		 what);
	return -ENODEV;
}

/* The vectors of ice's RDMA range, each checked against the PCI core's. */
static int irdma_ice_vectors(struct auxiliary_device *adev,
			     struct ice_pf *pf, struct irdma_ice *ice)
{
	int table = pci_msix_vec_count(ice->pdev);
	unsigned int i;

	if (!pf->msix_entries || !pf->num_rdma_msix || table <= 0 ||
	    pf->rdma_base_vector + pf->num_rdma_msix > table)
		return irdma_ice_mismatch(adev, "RDMA vector range");
	ice->nvec = min_t(unsigned int, pf->num_rdma_msix, IRDMA_MAX_VECTORS);
	for (i = 0; i < ice->nvec; i++) {
		unsigned int n = pf->rdma_base_vector + i;
		const struct msix_entry *e = &pf->msix_entries[n];

		/* The PCI core indexes a function's vectors by table entry. */
		if (e->entry >= table ||
		    pci_irq_vector(ice->pdev, e->entry) != e->vector)
			return irdma_ice_mismatch(adev, "MSI-X entry");
		ice->vec[i].index = e->entry;
		ice->vec[i].irq = e->vector;
	}
	return 0;
}

int irdma_ice_read(struct auxiliary_device *adev, struct irdma_ice *ice)
{
	struct iidc_auxiliary_dev *iadev =
		container_of(adev, struct iidc_auxiliary_dev, adev);
	struct ice_pf *pf = iadev->pf;
	void __iomem * const *bars;
	struct ice_vsi *vsi;
	u32 rid;

	if (!pf || !adev->dev.parent || !dev_is_pci(adev->dev.parent))
		return irdma_ice_mismatch(adev, "auxiliary device");
	ice->pf = pf;
	ice->pdev = to_pci_dev(adev->dev.parent);
	if (pf->pdev != ice->pdev)
		return irdma_ice_mismatch(adev, "PCI function");

	bars = pcim_iomap_table(ice->pdev);
	if (!bars || !bars[0] || pf->hw.hw_addr != bars[0])
		return irdma_ice_mismatch(adev, "BAR0 mapping");
	ice->hw_addr = pf->hw.hw_addr;

	rid = readl(ice->hw_addr + PF_FUNC_RID);
	if (((rid & PF_FUNC_RID_FUNC_NUM_M) >> PF_FUNC_RID_FUNC_NUM_S) !=
	    pf->hw.pf_id)
		return irdma_ice_mismatch(adev, "function number");
	ice->pf_id = pf->hw.pf_id;

	vsi = ice_get_main_vsi(pf);
	if (!vsi || !vsi->netdev || vsi->netdev->dev.parent != &ice->pdev->dev)
		return irdma_ice_mismatch(adev, "main VSI");
	ice->vsi_num = vsi->vsi_num;
	ice->netdev = vsi->netdev;

	return irdma_ice_vectors(adev, pf, ice);
}

/*
 * ice's exports (iidc.h) for what ice owns: the transmit scheduler's
 * queue set of our work scheduler leaf, and the VSI's RDMA filter.  ice
 * adds the queue set under its main VSI whatever vport_id says, and
 * finds the VSI by vport_id on removal: the VSI's number.
 */
int irdma_ice_add_qset(struct irdma_dev *dev, u16 qs_handle, u32 *teid)
{
	struct iidc_rdma_qset_params qset = {
		.qs_handle = qs_handle,
		.vport_id = dev->vsi,
		.tc = 0,
	};
	int err;

	err = ice_add_rdma_qset(dev->pf->ice.pf, &qset);
	if (err)
		return err;
	*teid = qset.teid;
	return 0;
}

void irdma_ice_del_qset(struct irdma_dev *dev, u16 qs_handle, u32 teid)
{
	struct iidc_rdma_qset_params qset = {
		.qs_handle = qs_handle,
		.vport_id = dev->vsi,
		.teid = teid,
		.tc = 0,
	};

	ice_del_rdma_qset(dev->pf->ice.pf, &qset);
}

int irdma_ice_vsi_filter(struct irdma_dev *dev, bool enable)
{
	return ice_rdma_update_vsi_filter(dev->pf->ice.pf, dev->vsi, enable);
}

/* A function reset (ice's service task): our remove, then our probe. */
void irdma_ice_reset(struct irdma_pf *ipf)
{
	ice_rdma_request_reset(ipf->ice.pf, IIDC_PFR);
}

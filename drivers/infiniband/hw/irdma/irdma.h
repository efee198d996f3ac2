/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Our irdma's own structures.  Nothing here comes from ice's private
 * headers: ice.c copies what the driver needs of them into struct
 * irdma_ice, checked, and the rest of the driver sees only that.
 */
#ifndef OOT_IRDMA_H
#define OOT_IRDMA_H

#include <linux/auxiliary_bus.h>
#include <linux/list.h>
#include <linux/net/intel/iidc.h>
#include <linux/netdevice.h>
#include <linux/pci.h>

/* At most this many MSI-X vectors of ice's range are ours. */
#define IRDMA_MAX_VECTORS	64

/* One MSI-X vector ice set aside for us. */
struct irdma_vector {
	u16 index;		/* in the function's MSI-X table */
	unsigned int irq;	/* Linux IRQ number */
};

/*
 * What ice knows of the function and tells no public interface: read once
 * at probe (irdma_ice_read) and fixed for the auxiliary device's life,
 * since ice unplugs it before any reset or reconfiguration that would
 * change them.
 */
struct irdma_ice {
	struct ice_pf *pf;		/* ice's cookie, for its exports */
	struct pci_dev *pdev;
	u8 __iomem *hw_addr;		/* BAR0, mapped by ice */
	u8 pf_id;			/* HMC function */
	u16 vsi_num;			/* the main VSI's hardware number */
	struct net_device *netdev;	/* the main VSI's */
	unsigned int nvec;
	struct irdma_vector vec[IRDMA_MAX_VECTORS];
};

/*
 * A bound function.  Its list entry, under irdma_pfs_lock in main.c,
 * lets ice's event handler, which is given the ice_pf alone, find it.
 */
struct irdma_pf {
	struct auxiliary_device *adev;
	struct irdma_ice ice;
	struct list_head node;
};

/* ice.c */
int irdma_ice_read(struct auxiliary_device *adev, struct irdma_ice *ice);

#endif /* OOT_IRDMA_H */

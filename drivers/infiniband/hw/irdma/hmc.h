/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What hmc.c shares with pble.c alone: programming the HMC's segment
 * descriptors (SDs).  hmc.c backs the segments of every object but
 * PBLEs; the PBLE pool backs its own on demand and, where the PBLE
 * object starts inside a segment hmc.c backs, uses that one
 * (dev->hmc.sd[], below dev->hmc.nsd).
 */
#ifndef OOT_IRDMA_HMC_H
#define OOT_IRDMA_HMC_H

#include "irdma.h"

/* The most SDs one UPDATE_PE_SDS sets: 3 in the WQE, 8 in a buffer. */
#define IRDMA_HMC_SDS_PER_CMD	11

/* One SD's command and data qwords, as UPDATE_PE_SDS takes them. */
struct irdma_sd_entry {
	u64 cmd;
	u64 data;
};

/*
 * SD @sd (counted from the start of the FPM space; the function's
 * first_sd is added here) is the 2 MiB page at @pa, direct.
 */
void irdma_sd_entry_set(struct irdma_dev *dev, struct irdma_sd_entry *e,
			u32 sd, dma_addr_t pa);
/* SD @sd is invalid. */
void irdma_sd_entry_clear(struct irdma_dev *dev, struct irdma_sd_entry *e,
			  u32 sd);
/*
 * Program @n entries, in as few UPDATE_PE_SDS commands as fit: sleeps.
 * -ENODEV once the CQP is dead or destroyed.
 */
int irdma_hmc_update_sds(struct irdma_dev *dev,
			 const struct irdma_sd_entry *e, unsigned int n);

#endif /* OOT_IRDMA_HMC_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions.  Not there yet (Documentation/infiniband/irdma.rst's
 * milestones): kernel ULPs use the local DMA lkey (STag 0, privileged
 * kernel QPs), which needs no region; user and fast-registered regions
 * come with the STag commands.
 */
#include "verbs.h"

struct ib_mr *irdma_get_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

struct ib_mr *irdma_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 virt, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

int irdma_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return 0;
}

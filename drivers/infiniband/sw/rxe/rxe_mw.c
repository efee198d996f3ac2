// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory windows, types 1 and 2.  Their rkeys are built as MR keys are
 * (rxe_mr.c), from the upper half of the index space; binding is a work
 * request, the protocol engine's.
 */
#include <linux/random.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibmw->device);
	struct rxe_mw *mw = to_rmw(ibmw);
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;

	err = rxe_index_alloc(&rxe->mw_index, mw, &mw->index, GFP_KERNEL);
	if (err)
		return err;

	ibmw->rkey = mw->index << RXE_KEY_INDEX_SHIFT |
		     (get_random_u32() & RXE_KEY_TAG_MASK);
	return 0;
}

int rxe_dealloc_mw(struct ib_mw *ibmw)
{
	struct rxe_mw *mw = to_rmw(ibmw);

	rxe_index_free(&to_rdev(ibmw->device)->mw_index, mw->index);
	return 0;
}

int rxe_mw_bind(struct rxe_qp *qp, const struct rxe_send_wqe *wqe)
{
	return -EINVAL;
}

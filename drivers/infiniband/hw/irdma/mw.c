// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory windows: an STag allocated without a region (ALLOC_STAG without
 * the MR bit), which a bind WQE later points into a region with the
 * bind right; type 1 windows are bound by libirdma's post_send, type 2
 * would be too.  The device checks the rest at the bind.
 *
 * Facts: the E810 scoping (STag fields), Debian's irdma (a type 1
 * window is "wide", and its binds do not check the key), our model's
 * e810-stag.c (ALLOC_STAG and BIND_MW).
 */
#include "verbs.h"

#define IRDMA_MW_Q1_PD			GENMASK_ULL(63, 46)
#define IRDMA_MW_Q2_IDX			GENMASK_ULL(31, 8)
#define IRDMA_MW_HDR_TYPE1		BIT_ULL(42)
#define IRDMA_MW_HDR_MR			BIT_ULL(43)
#define IRDMA_MW_HDR_BIND_ANY_KEY	BIT_ULL(58)

static int irdma_mw_cmd(struct ib_mw *ibmw, u8 op, u64 hdr)
{
	struct irdma_dev *dev = to_idev(ibmw->device);
	struct irdma_cqp_cmd cmd;

	irdma_cqp_cmd_init(&cmd, op, hdr);
	cmd.wqe[1] = FIELD_PREP(IRDMA_MW_Q1_PD, to_ipd(ibmw->pd)->id);
	cmd.wqe[2] = FIELD_PREP(IRDMA_MW_Q2_IDX, to_imw(ibmw)->stag >> 8);
	return irdma_cqp_exec(dev, &cmd);
}

int irdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibmw->device);
	struct irdma_mw *mw = to_imw(ibmw);
	u64 hdr = 0;
	int err;

	err = irdma_stag_new(dev, &mw->stag);
	if (err)
		return err;
	if (ibmw->type == IB_MW_TYPE_1)
		hdr |= IRDMA_MW_HDR_TYPE1 | IRDMA_MW_HDR_BIND_ANY_KEY;
	err = irdma_mw_cmd(ibmw, IRDMA_CQP_OP_ALLOC_STAG, hdr);
	if (err) {
		irdma_stag_free(dev, mw->stag);
		return err;
	}
	ibmw->rkey = mw->stag;
	return 0;
}

int irdma_dealloc_mw(struct ib_mw *ibmw)
{
	struct irdma_dev *dev = to_idev(ibmw->device);
	struct irdma_mw *mw = to_imw(ibmw);
	int err;

	err = irdma_mw_cmd(ibmw, IRDMA_CQP_OP_DEALLOC_STAG, 0);
	/* Unanswered: the device may hold the window yet; keep its index. */
	if (err == -ETIMEDOUT)
		return err;
	irdma_stag_free(dev, mw->stag);
	return 0;
}

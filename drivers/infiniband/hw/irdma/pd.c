// SPDX-License-Identifier: GPL-2.0-only
/*
 * Protection domains: a number the device checks STags and QPs against.
 * The device keeps no PD object; the number goes into QP contexts and
 * STag commands.
 */
#include "verbs.h"

int irdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibpd->device);
	struct irdma_pd *pd = to_ipd(ibpd);
	int id;

	/* libirdma learns the PD's number from the answer: room for it. */
	if (udata && udata->outlen < sizeof(struct irdma_alloc_pd_resp))
		return -EINVAL;
	id = irdma_id_get(&dev->pd_ids);
	if (id < 0)
		return id == -ENOSPC ? -ENOMEM : id;
	pd->id = id;
	if (udata) {
		struct irdma_alloc_pd_resp resp = { .pd_id = id };
		int err;

		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err) {
			irdma_id_put(&dev->pd_ids, id);
			return err;
		}
	}
	return 0;
}

int irdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibpd->device);

	irdma_id_put(&dev->pd_ids, to_ipd(ibpd)->id);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the core's uobject types and how each is destroyed.
 *
 * A type's destroy_object() frees the driver object behind a uobject.
 * For RDMA_REMOVE_DESTROY (userspace asked) it may refuse, leaving all as
 * it was; for any other reason (close, device removal, abort) it must
 * free the object, whatever the driver answers: nobody could retry.
 */

#include <rdma/restrack.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "core_priv.h"
#include "uverbs.h"

static int uverbs_free_pd(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uobj->object;
	int ret;

	/* Objects created on it hold pd->usecnt. */
	if (why == RDMA_REMOVE_DESTROY && atomic_read(&pd->usecnt))
		return -EBUSY;

	ret = pd->device->ops.dealloc_pd(pd, &attrs->driver_udata);
	if (ret && why == RDMA_REMOVE_DESTROY)
		return ret;

	rdma_restrack_del(&pd->res);
	kfree(pd);
	return 0;
}

const struct uverbs_api_object uverbs_pd_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_pd),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_PD,
};

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the core's uobject types and how each is destroyed.
 *
 * A type's destroy_object() frees the driver object behind a uobject, or
 * refuses and changes nothing: -EBUSY while other objects use it, or the
 * driver's error.  That holds for every reason: userspace's destroy gets
 * the refusal; close, removal and abort keep the uobject and retry it
 * once its users are gone (rdma_core.c), for freeing a uobject whose
 * driver object lives on would leave the driver's handlers and the core
 * objects pointing at freed memory.
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

	/*
	 * Objects created on it hold pd->usecnt.  In a cleanup they went
	 * first, unless their driver refused: the PD then waits for them.
	 */
	if (atomic_read(&pd->usecnt))
		return -EBUSY;

	return ib_dealloc_pd_user(pd, &attrs->driver_udata);
}

static int uverbs_free_mr(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	return ib_dereg_mr_user(uobj->object, &attrs->driver_udata);
}

/* MWs have no *_user destroy in ib_core: the driver op, then the PD. */
static int uverbs_free_mw(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_mw *mw = uobj->object;
	struct ib_pd *pd = mw->pd;
	int ret;

	ret = mw->device->ops.dealloc_mw(mw);
	if (ret)
		return ret;
	atomic_dec(&pd->usecnt);
	kfree(mw);
	return 0;
}

static int uverbs_free_ah(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	return rdma_destroy_ah_user(uobj->object, RDMA_DESTROY_AH_SLEEPABLE,
				    &attrs->driver_udata);
}

static int uverbs_free_cq(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_ucq_object *ucq =
		container_of(uobj, struct ib_ucq_object, uevent.uobject);
	struct ib_cq *cq = uobj->object;
	int ret;

	/* QPs using it hold cq->usecnt (ib_destroy_cq_user() checks it). */
	ret = ib_destroy_cq_user(cq, &attrs->driver_udata);
	if (ret)
		return ret;
	/* The driver reports nothing more on it: drop what is queued. */
	ib_uverbs_ucq_release(ucq);
	return 0;
}

static int uverbs_free_srq(struct ib_uobject *uobj, enum rdma_remove_reason why,
			   struct uverbs_attr_bundle *attrs)
{
	struct ib_usrq_object *usrq =
		container_of(uobj, struct ib_usrq_object, uevent.uobject);
	struct ib_srq *srq = uobj->object;
	int ret;

	/* QPs using it hold srq->usecnt (ib_destroy_srq_user() checks it). */
	ret = ib_destroy_srq_user(srq, &attrs->driver_udata);
	if (ret)
		return ret;
	if (usrq->uxrcd)
		atomic_dec(&usrq->uxrcd->refcnt);
	ib_uverbs_uevent_release(&usrq->uevent);
	return 0;
}

/*
 * Leave every multicast group before the QP goes.  A group the driver
 * would not leave stays listed (and keeps qp->usecnt, so the QP cannot
 * go either): the retry of the QP's destroy tries it again.
 */
static int uverbs_qp_detach_all(struct ib_uqp_object *uqp, struct ib_qp *qp)
{
	struct ib_uverbs_mcast_entry *mcast, *tmp;
	int ret = 0;
	int err;

	mutex_lock(&uqp->mcast_lock);
	list_for_each_entry_safe(mcast, tmp, &uqp->mcast_list, list) {
		err = ib_detach_mcast(qp, &mcast->gid, mcast->lid);
		if (err) {
			ret = err;
			continue;
		}
		list_del(&mcast->list);
		kfree(mcast);
	}
	mutex_unlock(&uqp->mcast_lock);
	return ret;
}

static int uverbs_free_qp(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_uqp_object *uqp =
		container_of(uobj, struct ib_uqp_object, uevent.uobject);
	struct ib_qp *qp = uobj->object;
	int ret;

	/*
	 * Userspace detaches its groups first (as stock requires); on
	 * close or removal they go with the QP.
	 */
	if (why == RDMA_REMOVE_DESTROY) {
		if (!list_empty(&uqp->mcast_list))
			return -EBUSY;
	} else {
		ret = uverbs_qp_detach_all(uqp, qp);
		if (ret)
			return ret;
	}

	/* An XRC target's handle: closed, the QP goes with its last one. */
	ret = ib_destroy_qp_user(qp, &attrs->driver_udata);
	if (ret)
		return ret;
	if (uqp->uxrcd)
		atomic_dec(&uqp->uxrcd->refcnt);
	ib_uverbs_uevent_release(&uqp->uevent);
	mutex_destroy(&uqp->mcast_lock);
	mutex_destroy(&uqp->modify_lock);
	return 0;
}

/*
 * A comp channel is destroyed by the file's cleanup or by closing its
 * fd: nothing is queued any more; what is queued stays readable until
 * the fd is closed (CQs may still hold the uobject).
 */
static void uverbs_free_comp_channel(struct ib_uobject *uobj,
				     enum rdma_remove_reason why)
{
	struct ib_uverbs_completion_event_file *comp_file =
		container_of(uobj, struct ib_uverbs_completion_event_file,
			     uobj);

	ib_uverbs_close_event_queue(&comp_file->ev_queue);
}

const struct uverbs_api_object uverbs_pd_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_pd),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_PD,
};

const struct uverbs_api_object uverbs_mr_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_mr),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_MR,
};

const struct uverbs_api_object uverbs_mw_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_mw),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_MW,
};

const struct uverbs_api_object uverbs_ah_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR(uverbs_free_ah),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_AH,
};

const struct uverbs_api_object uverbs_cq_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_ucq_object),
						uverbs_free_cq),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_CQ,
};

const struct uverbs_api_object uverbs_srq_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_usrq_object),
						uverbs_free_srq),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_SRQ,
};

const struct uverbs_api_object uverbs_qp_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_uqp_object),
						uverbs_free_qp),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_QP,
};

const struct uverbs_api_object uverbs_comp_channel_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_FD(sizeof(struct ib_uverbs_completion_event_file),
					    uverbs_free_comp_channel,
					    &uverbs_comp_channel_fops,
					    "[infinibandevent]",
					    O_RDONLY),
	.type_class = &uverbs_fd_class,
	.id = UVERBS_OBJECT_COMP_CHANNEL,
};

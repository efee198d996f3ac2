// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_create_qp_user(): the QPs ib_uverbs makes for user space, the XRC
 * target QPs among them; ib_qp_driver_create(), what they share with
 * the kernel's QPs (ib_create_qp_kernel(), verbs_kern.c).
 *
 * An XRC target QP is not the process's: any process that opened the
 * same XRC domain may open it (ib_open_qp()), and it lives as long as
 * one of them has it open.  So it is made as a kernel QP, owned by
 * @caller, and the creator gets a handle to it like any opener (xrc.c).
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "core_priv.h"

/**
 * ib_qp_driver_create - allocate a QP and have the driver create it
 * @dev: the device
 * @pd: its protection domain (NULL for an XRC target)
 * @attr: the creation attributes, as the driver may change them
 * @udata: the user's command, or NULL for a kernel QP
 * @uobj: the QP's uobject, or NULL
 * @caller: the owner's name for a kernel QP (restrack)
 *
 * What kernel and user QPs share: the core's fields from @attr, the
 * security context on an IB device (security.c), the restrack entry (new,
 * not yet published: the caller adds it once the QP is complete), the
 * driver's create_qp.  No usecnt is taken.
 *
 * Return: the QP or ERR_PTR(): -EOPNOTSUPP without ops.create_qp,
 * -ENOMEM, the security module's error, or the driver's error.
 */
struct ib_qp *ib_qp_driver_create(struct ib_device *dev, struct ib_pd *pd,
				  struct ib_qp_init_attr *attr,
				  struct ib_udata *udata,
				  struct ib_uqp_object *uobj,
				  const char *caller)
{
	struct ib_qp *qp;
	int ret;

	if (!dev->ops.create_qp)
		return ERR_PTR(-EOPNOTSUPP);

	qp = rdma_zalloc_drv_obj_numa(dev, ib_qp);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	qp->device = dev;
	qp->pd = pd;
	qp->uobject = uobj;
	qp->real_qp = qp;
	qp->qp_type = attr->qp_type;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->rwq_ind_tbl = attr->rwq_ind_tbl;
	qp->event_handler = attr->event_handler;
	qp->qp_context = attr->qp_context;
	qp->port = attr->port_num;
	atomic_set(&qp->usecnt, 0);
	spin_lock_init(&qp->mr_lock);
	INIT_LIST_HEAD(&qp->rdma_mrs);
	INIT_LIST_HEAD(&qp->sig_mrs);
	INIT_LIST_HEAD(&qp->open_list);
	/* Before the driver's QP: nothing to undo of it on failure. */
	ret = ib_qp_sec_create(qp);
	if (ret) {
		kfree(qp);
		return ERR_PTR(ret);
	}
	rdma_restrack_new(&qp->res, RDMA_RESTRACK_QP);
	rdma_restrack_set_name(&qp->res, udata ? NULL : caller);

	ret = dev->ops.create_qp(qp, attr, udata);
	if (ret) {
		rdma_restrack_del(&qp->res);
		ib_qp_sec_free(qp);
		kfree(qp);
		return ERR_PTR(ret);
	}
	/* A driver may have changed them in @attr's copy it worked on. */
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	return qp;
}

/* A user QP, or an XRC target's kernel-owned QP, published. */
static struct ib_qp *qp_create(struct ib_device *dev, struct ib_pd *pd,
			       struct ib_qp_init_attr *attr,
			       struct ib_udata *udata,
			       struct ib_uqp_object *uobj, const char *caller)
{
	struct ib_qp *qp;

	qp = ib_qp_driver_create(dev, pd, attr, udata, uobj, caller);
	if (!IS_ERR(qp))
		rdma_restrack_add(&qp->res);
	return qp;
}

/**
 * ib_create_qp_user - create a QP for ib_uverbs
 * @dev: the device
 * @pd: its protection domain (NULL for an XRC target)
 * @attr: type, CQs, SRQ, XRC domain, capacities, event handler and
 *	context; on success cap holds what the driver made
 * @udata: the user's command
 * @uobj: the QP's uobject
 * @caller: owner of an XRC target QP, which is the kernel's
 *
 * The caller then takes the usecnts of the objects the QP uses
 * (ib_qp_usecnt_inc()); an XRC target's handle uses none, its QP holds
 * its XRC domain.
 *
 * Return: the QP (for an XRC target, a handle of it), or ERR_PTR():
 * -EOPNOTSUPP without ops.create_qp, -ENOMEM, or the driver's error.
 */
struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller)
{
	struct ib_qp *qp, *handle;

	if (attr->qp_type != IB_QPT_XRC_TGT)
		return qp_create(dev, pd, attr, udata, uobj, NULL);

	qp = qp_create(dev, pd, attr, NULL, NULL, caller);
	if (IS_ERR(qp))
		return qp;
	handle = ib_xrc_tgt_qp_setup(qp, attr);
	if (IS_ERR(handle)) {
		ib_destroy_qp(qp);
		return handle;
	}
	handle->uobject = uobj;
	return handle;
}
EXPORT_SYMBOL(ib_create_qp_user);

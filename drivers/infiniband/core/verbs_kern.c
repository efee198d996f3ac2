// SPDX-License-Identifier: GPL-2.0-only
/*
 * Creation of the PDs, QPs and SRQs of kernel users (ib_alloc_pd(),
 * ib_create_qp(), ib_create_srq()); they are destroyed by the *_user()
 * calls of verbs.c with a NULL udata, under the object contract written
 * at the head of that file: a new object takes one usecnt on each object
 * it uses, after the driver made it, and is tracked under the kernel
 * user's name (KBUILD_MODNAME of the caller: "rdma res" shows it in
 * brackets) once complete.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <rdma/rw.h>

#include "core_priv.h"

/* ------------------------------------------------------------------ */
/* Protection domains                                                   */

/*
 * The PD's own MR over all of memory (ops.get_dma_mr), for a device whose
 * lkeys need one: its lkey becomes pd->local_dma_lkey and, with
 * IB_PD_UNSAFE_GLOBAL_RKEY, its rkey pd->unsafe_global_rkey.  It is the
 * core's, not the user's: not tracked, no usecnt on the PD, released by
 * ib_dealloc_pd_user().
 */
static int pd_alloc_internal_mr(struct ib_pd *pd, int access)
{
	struct ib_mr *mr;

	mr = pd->device->ops.get_dma_mr(pd, access);
	if (IS_ERR(mr))
		return PTR_ERR(mr);

	mr->device = pd->device;
	mr->pd = pd;
	mr->type = IB_MR_TYPE_DMA;
	mr->uobject = NULL;
	mr->need_inval = false;
	pd->__internal_mr = mr;
	return 0;
}

/**
 * __ib_alloc_pd - allocate a protection domain for a kernel user
 * @device: the device
 * @flags: IB_PD_UNSAFE_GLOBAL_RKEY to get an rkey to all of memory in
 *	pd->unsafe_global_rkey (any peer can then read and write anything:
 *	for trusted setups only, and logged)
 * @caller: the owner's name (KBUILD_MODNAME), shown by "rdma res"
 *
 * pd->local_dma_lkey is an lkey valid for any DMA address of the device,
 * for local access in SGEs: the device's own when it has one
 * (IBK_LOCAL_DMA_LKEY), else that of an MR of the PD over all of memory
 * with local write access.  Free with ib_dealloc_pd().
 *
 * Return: the PD or ERR_PTR(): -EOPNOTSUPP when an MR over all memory is
 * needed and the driver has no get_dma_mr, -ENOMEM, or the driver's
 * error.
 */
struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller)
{
	bool own_lkey = device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY;
	int access = 0;
	struct ib_pd *pd;
	int ret;

	if (!own_lkey)
		access |= IB_ACCESS_LOCAL_WRITE;
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		access |= IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	if (access && !device->ops.get_dma_mr)
		return ERR_PTR(-EOPNOTSUPP);

	pd = rdma_zalloc_drv_obj(device, ib_pd);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->device = device;
	pd->flags = flags;
	atomic_set(&pd->usecnt, 0);
	rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
	rdma_restrack_set_name(&pd->res, caller);

	ret = device->ops.alloc_pd(pd, NULL);
	if (ret)
		goto err_pd;
	rdma_restrack_add(&pd->res);

	if (own_lkey)
		pd->local_dma_lkey = device->local_dma_lkey;
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		pr_warn("%s: enabling unsafe global rkey\n", caller);
	if (access) {
		ret = pd_alloc_internal_mr(pd, access);
		if (ret) {
			ib_dealloc_pd(pd);
			return ERR_PTR(ret);
		}
		if (!own_lkey)
			pd->local_dma_lkey = pd->__internal_mr->lkey;
		if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
			pd->unsafe_global_rkey = pd->__internal_mr->rkey;
	}
	return pd;

err_pd:
	rdma_restrack_del(&pd->res);
	kfree(pd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(__ib_alloc_pd);

/* ------------------------------------------------------------------ */
/* Queue pairs                                                          */

static int qp_check_kernel_attr(struct ib_device *dev,
				const struct ib_qp_init_attr *attr)
{
	/* No XRC domains. */
	if (attr->qp_type == IB_QPT_XRC_TGT || attr->xrcd)
		return -EOPNOTSUPP;
	if ((attr->create_flags & IB_QP_CREATE_INTEGRITY_EN) &&
	    !(dev->attrs.kernel_cap_flags & IBK_INTEGRITY_HANDOVER))
		return -EINVAL;
	if (!attr->send_cq)
		return -EINVAL;
	if (attr->qp_type != IB_QPT_XRC_INI && !attr->recv_cq &&
	    !attr->rwq_ind_tbl)
		return -EINVAL;
	return 0;
}

/**
 * ib_create_qp_kernel - create a QP for a kernel user
 * @pd: its protection domain
 * @qp_init_attr: type, CQs, SRQ, capacities, signalling, event handler
 *	and context, port (special QPs); on success cap holds what the
 *	driver made
 * @caller: the owner's name (KBUILD_MODNAME), shown by "rdma res"
 *
 * The QP holds one usecnt on its PD, on each CQ (twice on one that serves
 * both queues), on its SRQ and on its RWQ indirection table.  Destroy it
 * with ib_destroy_qp().
 *
 * With cap.max_rdma_ctxs (and port_num, the port of the connection), the
 * QP is ready for that many rdma_rw contexts (rw.c): its send queue grows
 * by the entries they take (cap.max_send_wr says so on return) and, where
 * they register memory, qp->rdma_mrs (and with integrity qp->sig_mrs)
 * holds an MR per context, freed with the QP.
 *
 * Return: the QP (in RESET) or ERR_PTR(): -EOPNOTSUPP without
 * ops.create_qp or for XRC targets; -EINVAL for a missing CQ or integrity
 * offload the device lacks; -ENOMEM; or the driver's error (also the
 * allocation's of the MR pools).
 */
struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd,
				  struct ib_qp_init_attr *qp_init_attr,
				  const char *caller)
{
	struct ib_device *dev = pd->device;
	struct ib_qp *qp;
	int ret;

	if (!dev->ops.create_qp)
		return ERR_PTR(-EOPNOTSUPP);
	ret = qp_check_kernel_attr(dev, qp_init_attr);
	if (ret)
		return ERR_PTR(ret);

	if (qp_init_attr->cap.max_rdma_ctxs)
		rdma_rw_init_qp(dev, qp_init_attr);
	qp = ib_qp_driver_create(dev, pd, qp_init_attr, NULL, NULL, caller);
	if (IS_ERR(qp))
		return qp;

	/* What a ULP may put in one WR (rdma_rw uses these). */
	qp->max_write_sge = qp_init_attr->cap.max_send_sge;
	qp->max_read_sge = min_t(u32, qp_init_attr->cap.max_send_sge,
				 dev->attrs.max_sge_rd);
	if (qp_init_attr->create_flags & IB_QP_CREATE_INTEGRITY_EN)
		qp->integrity_en = true;
	ib_qp_usecnt_inc(qp);
	rdma_restrack_add(&qp->res);

	/* The pools last: a failure is undone by the plain destroy. */
	if (qp_init_attr->cap.max_rdma_ctxs) {
		ret = rdma_rw_init_mrs(qp, qp_init_attr);
		if (ret) {
			ib_destroy_qp(qp);
			return ERR_PTR(ret);
		}
	}
	return qp;
}
EXPORT_SYMBOL(ib_create_qp_kernel);

/* ------------------------------------------------------------------ */
/* Shared receive queues                                                */

/**
 * ib_create_srq_user - create an SRQ
 * @pd: its protection domain
 * @srq_init_attr: type, capacities, limit, event handler and context,
 *	the CQ of types that have one; attr holds what the driver made on
 *	success
 * @uobject: the user's object, or NULL for a kernel SRQ
 * @udata: the user's command, or NULL for a kernel SRQ
 *
 * The SRQ holds one usecnt on its PD and on its CQ; it is tracked under
 * its PD's owner.  Destroy it with ib_destroy_srq_user().
 *
 * An XRC SRQ also holds one usecnt on its XRC domain
 * (srq_init_attr->ext.xrc.xrcd), and the driver fills in its number
 * (ext.xrc.srq_num).  A kernel XRC SRQ may name no domain: mlx5_ib's own
 * device resources put theirs in a domain of the driver's, which the core
 * never sees.
 *
 * Return: the SRQ or ERR_PTR(): -EOPNOTSUPP without ops.create_srq,
 * -EINVAL for a missing CQ or a user XRC SRQ without a domain, -ENOMEM,
 * or the driver's error.
 */
struct ib_srq *ib_create_srq_user(struct ib_pd *pd,
				  struct ib_srq_init_attr *srq_init_attr,
				  struct ib_usrq_object *uobject,
				  struct ib_udata *udata)
{
	enum ib_srq_type type = srq_init_attr->srq_type;
	struct ib_device *dev = pd->device;
	struct ib_srq *srq;
	int ret;

	if (!dev->ops.create_srq)
		return ERR_PTR(-EOPNOTSUPP);
	if (ib_srq_has_cq(type) && !srq_init_attr->ext.cq)
		return ERR_PTR(-EINVAL);
	if (type == IB_SRQT_XRC && udata && !srq_init_attr->ext.xrc.xrcd)
		return ERR_PTR(-EINVAL);

	srq = rdma_zalloc_drv_obj(dev, ib_srq);
	if (!srq)
		return ERR_PTR(-ENOMEM);
	srq->device = dev;
	srq->pd = pd;
	srq->uobject = uobject;
	srq->event_handler = srq_init_attr->event_handler;
	srq->srq_context = srq_init_attr->srq_context;
	srq->srq_type = type;
	if (ib_srq_has_cq(type))
		srq->ext.cq = srq_init_attr->ext.cq;
	if (type == IB_SRQT_XRC)
		srq->ext.xrc.xrcd = srq_init_attr->ext.xrc.xrcd;
	atomic_set(&srq->usecnt, 0);
	rdma_restrack_new(&srq->res, RDMA_RESTRACK_SRQ);
	rdma_restrack_parent_name(&srq->res, &pd->res);

	ret = dev->ops.create_srq(srq, srq_init_attr, udata);
	if (ret) {
		rdma_restrack_del(&srq->res);
		kfree(srq);
		return ERR_PTR(ret);
	}

	atomic_inc(&pd->usecnt);
	if (ib_srq_has_cq(type))
		atomic_inc(&srq->ext.cq->usecnt);
	if (type == IB_SRQT_XRC && srq->ext.xrc.xrcd)
		atomic_inc(&srq->ext.xrc.xrcd->usecnt);
	rdma_restrack_add(&srq->res);
	return srq;
}
EXPORT_SYMBOL(ib_create_srq_user);

/**
 * ib_modify_srq - resize an SRQ or set its limit
 * @srq: the SRQ
 * @srq_attr: max_wr (IB_SRQ_MAX_WR) and/or srq_limit (IB_SRQ_LIMIT, which
 *	arms the IB_EVENT_SRQ_LIMIT_REACHED event)
 * @srq_attr_mask: what to change
 *
 * Return: 0, -EOPNOTSUPP without ops.modify_srq, or the driver's error.
 */
int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		  enum ib_srq_attr_mask srq_attr_mask)
{
	if (!srq->device->ops.modify_srq)
		return -EOPNOTSUPP;
	return srq->device->ops.modify_srq(srq, srq_attr, srq_attr_mask, NULL);
}
EXPORT_SYMBOL(ib_modify_srq);

/**
 * ib_query_srq - the current attributes of an SRQ
 * @srq: the SRQ
 * @srq_attr: filled in
 *
 * Return: 0, -EOPNOTSUPP without ops.query_srq, or the driver's error.
 */
int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr)
{
	if (!srq->device->ops.query_srq)
		return -EOPNOTSUPP;
	return srq->device->ops.query_srq(srq, srq_attr);
}
EXPORT_SYMBOL(ib_query_srq);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * XRC domains and the sharing of XRC target QPs (IBTA vol. 1 annex A14).
 *
 * An XRC target QP belongs to its domain, not to a process: every
 * process that opened the domain (through the same inode, ib_uverbs'
 * OPEN_XRCD) may open the QP by number, and it lives until the last
 * handle is gone.  A handle is a struct ib_qp of its own (real_qp points
 * at the QP, qp_num and type copied) that the verbs follow to the real
 * QP; it has its own event handler, and the real QP's events go to every
 * handle.
 *
 * Locking:
 *	xrcd->tgt_qps_rwsem	the domain's QPs (tgt_qps) against the last
 *				handle's close: an open (read) finds the QP
 *				and counts its handle before the last close
 *				(write) can decide to destroy it.
 *	device->qp_open_list_lock  a real QP's open_list (its handles),
 *				irqsave: drivers report QP events from
 *				interrupt context.
 *	real_qp->usecnt		its handles (and multicast attachments):
 *				ib_destroy_qp_user() of the real QP is
 *				-EBUSY while any is open.
 *	xrcd->usecnt		its target QPs and XRC SRQs.
 *	xrc_modify_locks[]	the modifies of a real QP through its handles
 *				(ib_xrc_modify_lock()), ops.modify_qp and the
 *				swap of its path GID references included.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/*
 * Each handle of an XRC target QP is a uobject of its own, with its own
 * modify_lock (struct ib_uqp_object), and a kernel opener has none: so
 * two handles, in two processes, may modify the one real QP at once, and
 * both put its old path GID entry (verbs.c, QP_PATH_MASK).  The real QP
 * is what must be locked, and struct ib_qp (the kernel headers') has no
 * room for a lock: a small table of mutexes, chosen by the real QP's
 * address, serialises them.  Two real QPs may share a mutex, which only
 * orders their modifies; nobody holds two, so one lock class is enough.
 */
#define XRC_MODIFY_LOCK_BITS	5
static struct mutex xrc_modify_locks[1 << XRC_MODIFY_LOCK_BITS];

void __init ib_xrc_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(xrc_modify_locks); i++)
		mutex_init(&xrc_modify_locks[i]);
}

/**
 * ib_xrc_modify_lock - the mutex that orders the modifies of a shared QP
 * @real_qp: the real QP behind the handles (an XRC target)
 *
 * Held by verbs.c across the whole modify of @real_qp through a handle:
 * the driver's modify_qp and the swap of the path GID references.
 *
 * Return: the mutex, the same one for every handle of @real_qp.
 */
struct mutex *ib_xrc_modify_lock(const struct ib_qp *real_qp)
{
	return &xrc_modify_locks[hash_ptr(real_qp, XRC_MODIFY_LOCK_BITS)];
}

/* The real QP's handler: each handle sees the event as its own. */
static void xrc_tgt_qp_event(struct ib_event *event, void *context)
{
	struct ib_qp *real_qp = context;
	struct ib_event ev = *event;
	struct ib_qp *handle;
	unsigned long flags;

	spin_lock_irqsave(&real_qp->device->qp_open_list_lock, flags);
	list_for_each_entry(handle, &real_qp->open_list, open_list) {
		if (!handle->event_handler)
			continue;
		ev.element.qp = handle;
		handle->event_handler(&ev, handle->qp_context);
	}
	spin_unlock_irqrestore(&real_qp->device->qp_open_list_lock, flags);
}

static struct ib_qp *xrc_open_handle(struct ib_qp *real_qp,
				     void (*event_handler)(struct ib_event *,
							   void *),
				     void *qp_context)
{
	struct ib_qp *handle;
	unsigned long flags;
	int ret;

	handle = kzalloc(sizeof(*handle), GFP_KERNEL);
	if (!handle)
		return ERR_PTR(-ENOMEM);
	handle->real_qp = real_qp;
	handle->device = real_qp->device;
	handle->qp_num = real_qp->qp_num;
	handle->qp_type = real_qp->qp_type;
	handle->event_handler = event_handler;
	handle->qp_context = qp_context;
	/* The opener must be allowed the P_Keys the QP uses (security.c). */
	ret = ib_qp_sec_open_handle(handle);
	if (ret) {
		kfree(handle);
		return ERR_PTR(ret);
	}
	atomic_inc(&real_qp->usecnt);

	spin_lock_irqsave(&real_qp->device->qp_open_list_lock, flags);
	list_add(&handle->open_list, &real_qp->open_list);
	spin_unlock_irqrestore(&real_qp->device->qp_open_list_lock, flags);
	return handle;
}

/*
 * From ib_create_qp_user(): @real_qp, just made by the driver, becomes
 * its domain's; the creator gets the first handle.  On failure @real_qp
 * is as it came, for the caller to destroy.
 */
struct ib_qp *ib_xrc_tgt_qp_setup(struct ib_qp *real_qp,
				  struct ib_qp_init_attr *attr)
{
	struct ib_xrcd *xrcd = attr->xrcd;
	struct ib_qp *handle;
	int ret;

	/* Only the handles have handlers and contexts of their own. */
	real_qp->event_handler = xrc_tgt_qp_event;
	real_qp->qp_context = real_qp;
	real_qp->pd = NULL;
	real_qp->send_cq = NULL;
	real_qp->recv_cq = NULL;
	real_qp->srq = NULL;
	real_qp->xrcd = xrcd;

	handle = xrc_open_handle(real_qp, attr->event_handler,
				 attr->qp_context);
	if (IS_ERR(handle))
		return handle;
	ret = xa_insert(&xrcd->tgt_qps, real_qp->qp_num, real_qp, GFP_KERNEL);
	if (ret) {
		ib_close_qp(handle);
		return ERR_PTR(ret);
	}
	atomic_inc(&xrcd->usecnt);
	return handle;
}

/**
 * ib_open_qp - open a handle of an XRC target QP of a domain
 * @xrcd: the domain
 * @qp_open_attr: type (IB_QPT_XRC_TGT), QP number, and the handle's event
 *	handler and context
 *
 * Return: the handle (ib_close_qp() it, or ib_destroy_qp()), or
 * ERR_PTR(): -EINVAL for another type or no such QP in @xrcd, -ENOMEM.
 */
struct ib_qp *ib_open_qp(struct ib_xrcd *xrcd,
			 struct ib_qp_open_attr *qp_open_attr)
{
	struct ib_qp *real_qp, *handle;

	if (qp_open_attr->qp_type != IB_QPT_XRC_TGT)
		return ERR_PTR(-EINVAL);

	down_read(&xrcd->tgt_qps_rwsem);
	real_qp = xa_load(&xrcd->tgt_qps, qp_open_attr->qp_num);
	if (real_qp)
		handle = xrc_open_handle(real_qp, qp_open_attr->event_handler,
					 qp_open_attr->qp_context);
	else
		handle = ERR_PTR(-EINVAL);
	up_read(&xrcd->tgt_qps_rwsem);
	return handle;
}
EXPORT_SYMBOL(ib_open_qp);

/**
 * ib_close_qp - close a handle from ib_open_qp()
 * @qp: the handle; freed
 *
 * The QP itself stays in its domain even without handles (a kernel
 * opener keeps it alive this way); ib_destroy_qp() of a handle closes it
 * and destroys the QP with the last one.  No event reaches the handle
 * once this returns.
 *
 * Return: 0, or -EINVAL for a QP that is not a handle.
 */
int ib_close_qp(struct ib_qp *qp)
{
	struct ib_qp *real_qp = qp->real_qp;
	unsigned long flags;

	if (real_qp == qp)
		return -EINVAL;

	spin_lock_irqsave(&real_qp->device->qp_open_list_lock, flags);
	list_del(&qp->open_list);
	spin_unlock_irqrestore(&real_qp->device->qp_open_list_lock, flags);
	ib_qp_sec_close_handle(qp);
	atomic_dec(&real_qp->usecnt);
	kfree(qp);
	return 0;
}
EXPORT_SYMBOL(ib_close_qp);

/*
 * ib_destroy_qp_user() of a handle: closed, and the QP destroyed with
 * its last handle.  A QP the driver refuses to destroy has already left
 * its domain's list (nobody can open it); it is reported and kept.
 */
int ib_destroy_shared_qp(struct ib_qp *qp)
{
	struct ib_qp *real_qp = qp->real_qp;
	struct ib_xrcd *xrcd = real_qp->xrcd;
	bool last;
	int ret;

	down_write(&xrcd->tgt_qps_rwsem);
	ib_close_qp(qp);
	last = !atomic_read(&real_qp->usecnt);
	if (last)
		xa_erase(&xrcd->tgt_qps, real_qp->qp_num);
	up_write(&xrcd->tgt_qps_rwsem);
	if (!last)
		return 0;

	ret = ib_destroy_qp(real_qp);
	if (WARN_ON(ret))
		return 0;
	atomic_dec(&xrcd->usecnt);
	return 0;
}

/**
 * ib_alloc_xrcd_user - allocate an XRC domain
 * @device: the device
 * @inode: the file that names it for ib_uverbs (shared by every process
 *	that opens it), or NULL
 * @udata: the user's command, or NULL for a kernel domain
 *
 * Return: the domain (ib_dealloc_xrcd_user() it), or ERR_PTR():
 * -EOPNOTSUPP when the device has no XRC (rxe), -ENOMEM, or the driver's
 * error.
 */
struct ib_xrcd *ib_alloc_xrcd_user(struct ib_device *device,
				   struct inode *inode, struct ib_udata *udata)
{
	struct ib_xrcd *xrcd;
	int ret;

	if (!device->ops.alloc_xrcd)
		return ERR_PTR(-EOPNOTSUPP);

	xrcd = rdma_zalloc_drv_obj(device, ib_xrcd);
	if (!xrcd)
		return ERR_PTR(-ENOMEM);
	xrcd->device = device;
	xrcd->inode = inode;
	atomic_set(&xrcd->usecnt, 0);
	init_rwsem(&xrcd->tgt_qps_rwsem);
	xa_init(&xrcd->tgt_qps);

	ret = device->ops.alloc_xrcd(xrcd, udata);
	if (ret) {
		kfree(xrcd);
		return ERR_PTR(ret);
	}
	return xrcd;
}
EXPORT_SYMBOL(ib_alloc_xrcd_user);

/**
 * ib_dealloc_xrcd_user - free an XRC domain
 * @xrcd: the domain
 * @udata: the user's command, or NULL for a kernel domain
 *
 * Return: 0; -EBUSY while target QPs or XRC SRQs use it; or the
 * driver's error (nothing changed then).
 */
int ib_dealloc_xrcd_user(struct ib_xrcd *xrcd, struct ib_udata *udata)
{
	int ret;

	if (atomic_read(&xrcd->usecnt))
		return -EBUSY;
	WARN_ON(!xa_empty(&xrcd->tgt_qps));

	ret = xrcd->device->ops.dealloc_xrcd(xrcd, udata);
	if (ret)
		return ret;
	xa_destroy(&xrcd->tgt_qps);
	kfree(xrcd);
	return 0;
}
EXPORT_SYMBOL(ib_dealloc_xrcd_user);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Work queues (ib_create_wq()): receive queues a driver offers apart from
 * QPs, for RSS (a QP spreads its receives over the WQs of an indirection
 * table).  The driver allocates and frees the WQ itself (ops.create_wq,
 * ops.destroy_wq); the core fills its fields and keeps the usecnts: the
 * WQ holds its PD and its CQ, an indirection table holds the WQ.
 */
#include <linux/err.h>
#include <rdma/ib_verbs.h>

/**
 * ib_create_wq - create a work queue
 * @pd: its protection domain
 * @wq_attr: type, CQ, sizes, flags, event handler and context; on success
 *	max_wr and max_sge hold what the driver made (at least as asked)
 *
 * Return: the WQ (ib_destroy_wq_user() it), or ERR_PTR(): -EOPNOTSUPP
 * when the device has none (rxe), or the driver's error.
 */
struct ib_wq *ib_create_wq(struct ib_pd *pd, struct ib_wq_init_attr *wq_attr)
{
	struct ib_wq *wq;

	if (!pd->device->ops.create_wq)
		return ERR_PTR(-EOPNOTSUPP);

	wq = pd->device->ops.create_wq(pd, wq_attr, NULL);
	if (IS_ERR(wq))
		return wq;
	wq->device = pd->device;
	wq->pd = pd;
	wq->cq = wq_attr->cq;
	wq->uobject = NULL;
	wq->wq_type = wq_attr->wq_type;
	wq->event_handler = wq_attr->event_handler;
	wq->wq_context = wq_attr->wq_context;
	atomic_set(&wq->usecnt, 0);
	atomic_inc(&pd->usecnt);
	atomic_inc(&wq_attr->cq->usecnt);
	return wq;
}
EXPORT_SYMBOL(ib_create_wq);

/**
 * ib_destroy_wq_user - destroy a work queue
 * @wq: the WQ; the driver frees it
 * @udata: the user's command, or NULL for a kernel WQ
 *
 * Return: 0; -EBUSY while an indirection table uses it; or the driver's
 * error (nothing changed then).
 */
int ib_destroy_wq_user(struct ib_wq *wq, struct ib_udata *udata)
{
	struct ib_cq *cq = wq->cq;
	struct ib_pd *pd = wq->pd;
	int ret;

	if (atomic_read(&wq->usecnt))
		return -EBUSY;

	ret = wq->device->ops.destroy_wq(wq, udata);
	if (ret)
		return ret;
	atomic_dec(&pd->usecnt);
	atomic_dec(&cq->usecnt);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_wq_user);

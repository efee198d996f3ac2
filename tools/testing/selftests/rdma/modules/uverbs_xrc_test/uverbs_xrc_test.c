// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module, never part of the default build: a device "uvxrc%d"
 * with XRC domains, XRC SRQs and XRC QPs (rxe has none), so that the
 * selftests (uverbs_xrc.sh) can drive ib_uverbs' XRC commands on both
 * stacks.  Nothing moves: its objects are bookkeeping.
 *
 *	XRC domains	any number
 *	CQs		any size
 *	SRQs		basic and XRC (numbered from 1); tag matching is
 *			-EOPNOTSUPP
 *	QPs		RC, UD, XRC_INI and XRC_TGT, numbered from 2; a
 *			modify records the state (query answers it) and
 *			refuses nothing
 *
 * /sys/module/uverbs_xrc_test/parameters/
 *	live		the driver objects that exist now:
 *			"xrcds cqs srqs qps"
 *	qp_event	write a QP number: the driver reports
 *			IB_EVENT_QP_LAST_WQE_REACHED on that QP, as from its
 *			interrupt handler (-ENOENT for no such QP)
 *	remove		write 1: unregister the device (once)
 */
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "stub_ibdev.h"

struct uvxrc_device {
	struct ib_device ibdev;
};

struct uvxrc_xrcd {
	struct ib_xrcd ibxrcd;
};

struct uvxrc_srq {
	struct ib_srq ibsrq;
	struct ib_srq_attr attr;
};

struct uvxrc_qp {
	struct ib_qp ibqp;
	struct ib_qp_cap cap;
	enum ib_qp_type type;
	int state;
};

enum { LIVE_XRCD, LIVE_CQ, LIVE_SRQ, LIVE_QP, LIVE_N };

static atomic_t uvxrc_live[LIVE_N];
static struct ib_device *uvxrc_dev;
static DEFINE_MUTEX(uvxrc_remove_lock);
static bool uvxrc_removed;
static DEFINE_IDA(uvxrc_srqns);
/* The QPs by number, for qp_event; its lock is taken in IRQ-safe mode. */
static DEFINE_XARRAY_FLAGS(uvxrc_qps, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);

static int uvxrc_query_device(struct ib_device *dev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	attr->max_qp = 64;
	attr->max_qp_wr = 1024;
	attr->max_send_sge = 4;
	attr->max_recv_sge = 4;
	attr->max_cq = 64;
	attr->max_cqe = 4096;
	attr->max_pd = 64;
	attr->max_srq = 64;
	attr->max_srq_wr = 1024;
	attr->max_srq_sge = 4;
	attr->device_cap_flags = IB_DEVICE_XRC;
	return 0;
}

static int uvxrc_alloc_xrcd(struct ib_xrcd *xrcd, struct ib_udata *udata)
{
	atomic_inc(&uvxrc_live[LIVE_XRCD]);
	return 0;
}

static int uvxrc_dealloc_xrcd(struct ib_xrcd *xrcd, struct ib_udata *udata)
{
	atomic_dec(&uvxrc_live[LIVE_XRCD]);
	return 0;
}

static int uvxrc_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			   struct ib_udata *udata)
{
	cq->cqe = attr->cqe;
	atomic_inc(&uvxrc_live[LIVE_CQ]);
	return 0;
}

static int uvxrc_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	atomic_dec(&uvxrc_live[LIVE_CQ]);
	return 0;
}

static int uvxrc_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct uvxrc_srq *srq = container_of(ibsrq, struct uvxrc_srq, ibsrq);
	int srqn;

	switch (init->srq_type) {
	case IB_SRQT_BASIC:
		break;
	case IB_SRQT_XRC:
		srqn = ida_alloc_range(&uvxrc_srqns, 1, 0xffffff, GFP_KERNEL);
		if (srqn < 0)
			return srqn;
		ibsrq->ext.xrc.srq_num = srqn;
		break;
	default:
		return -EOPNOTSUPP;
	}
	srq->attr = init->attr;
	atomic_inc(&uvxrc_live[LIVE_SRQ]);
	return 0;
}

static int uvxrc_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct uvxrc_srq *srq = container_of(ibsrq, struct uvxrc_srq, ibsrq);

	if (mask & IB_SRQ_MAX_WR)
		srq->attr.max_wr = attr->max_wr;
	if (mask & IB_SRQ_LIMIT)
		srq->attr.srq_limit = attr->srq_limit;
	return 0;
}

static int uvxrc_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	*attr = container_of(ibsrq, struct uvxrc_srq, ibsrq)->attr;
	return 0;
}

static int uvxrc_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	if (ibsrq->srq_type == IB_SRQT_XRC)
		ida_free(&uvxrc_srqns, ibsrq->ext.xrc.srq_num);
	atomic_dec(&uvxrc_live[LIVE_SRQ]);
	return 0;
}

static int uvxrc_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad)
{
	return -EOPNOTSUPP;
}

static int uvxrc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct uvxrc_qp *qp = container_of(ibqp, struct uvxrc_qp, ibqp);
	u32 qpn;
	int ret;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UD:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		break;
	default:
		return -EOPNOTSUPP;
	}
	ret = xa_alloc_irq(&uvxrc_qps, &qpn, qp, XA_LIMIT(2, 0xffffff),
			   GFP_KERNEL);
	if (ret)
		return ret;
	ibqp->qp_num = qpn;
	qp->cap = init->cap;
	qp->type = init->qp_type;
	qp->state = IB_QPS_RESET;
	atomic_inc(&uvxrc_live[LIVE_QP]);
	return 0;
}

static int uvxrc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct uvxrc_qp *qp = container_of(ibqp, struct uvxrc_qp, ibqp);

	if (mask & IB_QP_STATE)
		WRITE_ONCE(qp->state, attr->qp_state);
	return 0;
}

static int uvxrc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct uvxrc_qp *qp = container_of(ibqp, struct uvxrc_qp, ibqp);

	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->port_num = 1;
	init->qp_type = qp->type;
	init->cap = qp->cap;
	return 0;
}

static int uvxrc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	xa_erase_irq(&uvxrc_qps, ibqp->qp_num);
	atomic_dec(&uvxrc_live[LIVE_QP]);
	return 0;
}

/* Nothing mapped: nothing to revoke. */
static void uvxrc_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/* The rest of the device: stub_ibdev.h. */
static const struct ib_device_ops uvxrc_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.query_device = uvxrc_query_device,
	.alloc_xrcd = uvxrc_alloc_xrcd,
	.dealloc_xrcd = uvxrc_dealloc_xrcd,
	.create_cq = uvxrc_create_cq,
	.destroy_cq = uvxrc_destroy_cq,
	.create_srq = uvxrc_create_srq,
	.modify_srq = uvxrc_modify_srq,
	.query_srq = uvxrc_query_srq,
	.destroy_srq = uvxrc_destroy_srq,
	.post_srq_recv = uvxrc_post_srq_recv,
	.create_qp = uvxrc_create_qp,
	.modify_qp = uvxrc_modify_qp,
	.query_qp = uvxrc_query_qp,
	.destroy_qp = uvxrc_destroy_qp,
	.disassociate_ucontext = uvxrc_disassociate_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_xrcd, uvxrc_xrcd, ibxrcd),
	INIT_RDMA_OBJ_SIZE(ib_srq, uvxrc_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_qp, uvxrc_qp, ibqp),
};

static int live_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d %d %d %d\n",
			  atomic_read(&uvxrc_live[LIVE_XRCD]),
			  atomic_read(&uvxrc_live[LIVE_CQ]),
			  atomic_read(&uvxrc_live[LIVE_SRQ]),
			  atomic_read(&uvxrc_live[LIVE_QP]));
}

static const struct kernel_param_ops live_ops = {
	.get = live_get,
};
module_param_cb(live, &live_ops, NULL, 0444);

/*
 * As a driver's interrupt handler would: under the table's lock with
 * interrupts off, so the QP cannot be destroyed meanwhile.
 */
static int qp_event_set(const char *val, const struct kernel_param *kp)
{
	struct ib_event ev = { .event = IB_EVENT_QP_LAST_WQE_REACHED };
	struct ib_qp *ibqp;
	unsigned long flags;
	u32 qpn;
	int ret;

	ret = kstrtou32(val, 0, &qpn);
	if (ret)
		return ret;
	xa_lock_irqsave(&uvxrc_qps, flags);
	ibqp = xa_load(&uvxrc_qps, qpn);
	if (ibqp) {
		ev.device = ibqp->device;
		ev.element.qp = ibqp;
		if (ibqp->event_handler)
			ibqp->event_handler(&ev, ibqp->qp_context);
	}
	xa_unlock_irqrestore(&uvxrc_qps, flags);
	return ibqp ? 0 : -ENOENT;
}

static const struct kernel_param_ops qp_event_ops = {
	.set = qp_event_set,
};
module_param_cb(qp_event, &qp_event_ops, NULL, 0200);

static void uvxrc_remove(void)
{
	mutex_lock(&uvxrc_remove_lock);
	if (!uvxrc_removed) {
		ib_unregister_device(uvxrc_dev);
		uvxrc_removed = true;
	}
	mutex_unlock(&uvxrc_remove_lock);
}

static int remove_set(const char *val, const struct kernel_param *kp)
{
	uvxrc_remove();
	return 0;
}

static const struct kernel_param_ops remove_ops = {
	.set = remove_set,
};
module_param_cb(remove, &remove_ops, NULL, 0200);

static int __init uvxrc_init(void)
{
	struct uvxrc_device *dev;
	int ret;

	dev = ib_alloc_device(uvxrc_device, ibdev);
	if (!dev)
		return -ENOMEM;
	uvxrc_dev = &dev->ibdev;
	uvxrc_dev->node_type = RDMA_NODE_IB_CA;
	uvxrc_dev->phys_port_cnt = 1;
	uvxrc_dev->num_comp_vectors = 1;
	ib_set_device_ops(uvxrc_dev, &uvxrc_ops);
	ib_set_device_ops(uvxrc_dev, &stub_ibdev_ops);
	ret = ib_register_device(uvxrc_dev, "uvxrc%d", NULL);
	if (ret)
		ib_dealloc_device(uvxrc_dev);
	return ret;
}

static void __exit uvxrc_exit(void)
{
	uvxrc_remove();
	ib_dealloc_device(uvxrc_dev);
}

module_init(uvxrc_init);
module_exit(uvxrc_exit);

MODULE_DESCRIPTION("oot-rdma selftest: a device with XRC domains, SRQs and QPs");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);

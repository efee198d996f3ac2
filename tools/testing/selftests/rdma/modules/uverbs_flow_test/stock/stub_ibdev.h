/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rest of a fake ib_device for the test-only modules that register
 * one for user space (umap_test, uverbs_ns_test, uverbs_xrc_test): the
 * ops the core requires of a device with user contexts, none of which
 * moves data.  A module sets its own ops first and then these:
 *
 *	ib_set_device_ops(dev, &my_ops);
 *	ib_set_device_ops(dev, &stub_ibdev_ops);
 *
 * ib_set_device_ops() only fills what is still unset, on both stacks,
 * so a module's own op or object size always wins over the stub's.
 *
 * The stubs: a port that is down, PDs and user contexts that are
 * bookkeeping only, no CQ, QP or MR can be made (-EOPNOTSUPP), the
 * destroys and polls of what cannot exist succeed.  Everything is
 * static, for the one source file of a module (as ktap_module.h).
 */
#ifndef RDMA_SELFTESTS_STUB_IBDEV_H
#define RDMA_SELFTESTS_STUB_IBDEV_H

#include <linux/err.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

/* The core allocates the objects at the sizes a driver declares. */
struct stub_ibdev_ucontext {
	struct ib_ucontext ibuc;
};

struct stub_ibdev_pd {
	struct ib_pd ibpd;
};

struct stub_ibdev_cq {
	struct ib_cq ibcq;
};

struct stub_ibdev_qp {
	struct ib_qp ibqp;
};

static int stub_ibdev_query_device(struct ib_device *dev,
				   struct ib_device_attr *attr,
				   struct ib_udata *udata)
{
	return 0;
}

static int stub_ibdev_query_port(struct ib_device *dev, u32 port,
				 struct ib_port_attr *attr)
{
	attr->state = IB_PORT_DOWN;
	attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_1024;
	attr->active_mtu = IB_MTU_1024;
	return 0;
}

static int stub_ibdev_get_port_immutable(struct ib_device *dev, u32 port,
					 struct ib_port_immutable *immutable)
{
	return 0;
}

static int stub_ibdev_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int stub_ibdev_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
				struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int stub_ibdev_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
				int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int stub_ibdev_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

static int stub_ibdev_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
				const struct ib_send_wr **bad)
{
	return -EOPNOTSUPP;
}

static int stub_ibdev_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
				const struct ib_recv_wr **bad)
{
	return -EOPNOTSUPP;
}

static int stub_ibdev_create_cq(struct ib_cq *cq,
				const struct ib_cq_init_attr *attr,
				struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int stub_ibdev_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int stub_ibdev_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

static int stub_ibdev_req_notify_cq(struct ib_cq *cq,
				    enum ib_cq_notify_flags flags)
{
	return 0;
}

static struct ib_mr *stub_ibdev_get_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *stub_ibdev_reg_user_mr(struct ib_pd *pd, u64 start,
					    u64 length, u64 virt, int access,
					    struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int stub_ibdev_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return 0;
}

static int stub_ibdev_alloc_ucontext(struct ib_ucontext *ibuc,
				     struct ib_udata *udata)
{
	return 0;
}

static void stub_ibdev_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

static const struct ib_device_ops stub_ibdev_ops = {
	.owner = THIS_MODULE,
	.uverbs_abi_ver = 1,

	.query_device = stub_ibdev_query_device,
	.query_port = stub_ibdev_query_port,
	.get_port_immutable = stub_ibdev_get_port_immutable,
	.alloc_pd = stub_ibdev_pd,
	.dealloc_pd = stub_ibdev_pd,
	.create_qp = stub_ibdev_create_qp,
	.modify_qp = stub_ibdev_modify_qp,
	.destroy_qp = stub_ibdev_destroy_qp,
	.post_send = stub_ibdev_post_send,
	.post_recv = stub_ibdev_post_recv,
	.create_cq = stub_ibdev_create_cq,
	.destroy_cq = stub_ibdev_destroy_cq,
	.poll_cq = stub_ibdev_poll_cq,
	.req_notify_cq = stub_ibdev_req_notify_cq,
	.get_dma_mr = stub_ibdev_get_dma_mr,
	.reg_user_mr = stub_ibdev_reg_user_mr,
	.dereg_mr = stub_ibdev_dereg_mr,
	.alloc_ucontext = stub_ibdev_alloc_ucontext,
	.dealloc_ucontext = stub_ibdev_dealloc_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, stub_ibdev_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_pd, stub_ibdev_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, stub_ibdev_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, stub_ibdev_qp, ibqp),
};

#endif /* RDMA_SELFTESTS_STUB_IBDEV_H */

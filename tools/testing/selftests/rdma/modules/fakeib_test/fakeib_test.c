// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: a fake device "fakeib%d" with one InfiniBand port
 * (link layer IB, QP0 and QP1, a P_Key table, two GIDs of subnet prefix
 * FIB_PREFIX) and XRC domains and target QPs, which rxe has neither of.
 * It moves no data: its QPs, CQs and AHs are bookkeeping, a send fails
 * with -EIO and no receive ever completes; enough for the MAD layer to
 * open the port and for the verbs to reach the driver.
 *
 * On load it registers the device and runs its cases, printing KTAP into
 * the kernel log with lines prefixed "fakeib_test: " (core_fakeib.sh):
 *  - the port as the core caches it: P_Keys, subnet prefix, GIDs;
 *  - two handles of one XRC target QP (the creator's, and one from
 *    ib_open_qp()) modified with IB_QP_AV from two threads at once, each
 *    with its own source GID (index 0 and 1), xrc_rounds times each.
 *    The driver's modify_qp sleeps modify_delay_us in an AV modify to
 *    widen the window and counts the modifies of the real QP it saw
 *    overlap.  Serialised, none overlaps and the real QP's source GID
 *    reference is the one of the path the driver applied last; not
 *    serialised, both handles put the same old GID entry (its count
 *    drops below the table's own reference: an underflow or a free of a
 *    live entry later).  xrc_same_gid=1 gives both threads GID 0, so
 *    that a stack with the defect can be measured without the damage
 *    (swapping an entry for itself leaves the counts right);
 *  - the verbs and MAD operations the InfiniBand LSM hooks guard, each
 *    with a P_Key of its own so that a tracer of security_ib_pkey_access
 *    tells them apart (FIB_PKEY_*): a UD QP given P_Key index 1, an XRC
 *    target QP given index 2 and opened a second time, a MAD sent on
 *    QP1 with index 3, an agent of QP0 registered, then index 1's P_Key
 *    changed under the UD QP (IB_EVENT_PKEY_CHANGE).  With no policy
 *    denying anything each must succeed.
 * Everything it made but the device is gone when the load returns; the
 * device goes with the module.
 *
 * Only exported API is used, so it builds against either stack.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "core_exports.h"
#include "ktap_module.h"

#define FIB_NR_CASES	5
#define FIB_PORT	1
#define FIB_PREFIX	0xfec0000000000032ULL
#define FIB_PKEY_DEFAULT	0xffff	/* index 0: the MAD QPs' */
#define FIB_PKEY_UD		0x8001	/* index 1: the UD QP's */
#define FIB_PKEY_XRC		0x7fff	/* index 2: the XRC target's */
#define FIB_PKEY_MAD		0x8003	/* index 3: the MAD sent on QP1 */
#define FIB_PKEY_UD_NEW		0x8011	/* index 1 after the change */
#define FIB_PKEY_DENIED		0x8666	/* index 4: what case 4 denies */
#define FIB_NR_PKEYS	5
#define FIB_NR_GIDS	2

static int xrc_rounds = 200;
module_param(xrc_rounds, int, 0444);
MODULE_PARM_DESC(xrc_rounds, "AV modifies per handle in the XRC race (0: none)");
static bool xrc_same_gid;
module_param(xrc_same_gid, bool, 0444);
MODULE_PARM_DESC(xrc_same_gid, "both handles use GID 0: measure without damage");
static int modify_delay_us = 100;
module_param(modify_delay_us, int, 0444);
MODULE_PARM_DESC(modify_delay_us, "the driver's sleep in an AV modify");

struct fib_device {
	struct ib_device ibdev;
};

struct fib_pd {
	struct ib_pd ibpd;
};

struct fib_cq {
	struct ib_cq ibcq;
};

struct fib_ah {
	struct ib_ah ibah;
};

struct fib_xrcd {
	struct ib_xrcd ibxrcd;
};

struct fib_qp {
	struct ib_qp ibqp;
	/* AV modifies in the driver now, and how many found another. */
	atomic_t in_av_modify;
	atomic_t overlaps;
	/* The source GID index of the last AV the driver applied. */
	int last_sgid;
	/* The state the last modify gave it. */
	int state;
};

static struct ib_device *fib_dev;
static DEFINE_IDA(fib_qpns);
static DEFINE_SPINLOCK(fib_pkeys_lock);
static u16 fib_pkeys[FIB_NR_PKEYS] = {
	FIB_PKEY_DEFAULT, FIB_PKEY_UD, FIB_PKEY_XRC, FIB_PKEY_MAD,
	FIB_PKEY_DENIED,
};

static struct fib_qp *to_fib_qp(struct ib_qp *qp)
{
	return container_of(qp, struct fib_qp, ibqp);
}

/* ---------------------------------------------------------------- */
/* The driver                                                         */

static int fib_query_device(struct ib_device *dev,
			    struct ib_device_attr *attr, struct ib_udata *udata)
{
	attr->max_qp = 64;
	attr->max_qp_wr = 1024;
	attr->max_send_sge = 4;
	attr->max_recv_sge = 4;
	attr->max_sge_rd = 4;
	attr->max_cq = 64;
	attr->max_cqe = 4096;
	attr->max_pd = 64;
	attr->max_ah = 64;
	attr->max_pkeys = FIB_NR_PKEYS;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	attr->device_cap_flags = IB_DEVICE_XRC;
	return 0;
}

/* Down: nothing (the SA client, IPoIB) tries to reach a subnet manager. */
static int fib_query_port(struct ib_device *dev, u32 port,
			  struct ib_port_attr *attr)
{
	attr->state = IB_PORT_DOWN;
	attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_2048;
	attr->active_mtu = IB_MTU_2048;
	attr->gid_tbl_len = FIB_NR_GIDS;
	attr->pkey_tbl_len = FIB_NR_PKEYS;
	attr->max_msg_sz = 1 << 20;
	attr->subnet_prefix = FIB_PREFIX;
	return 0;
}

static int fib_get_port_immutable(struct ib_device *dev, u32 port,
				  struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = FIB_NR_PKEYS;
	immutable->gid_tbl_len = FIB_NR_GIDS;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer fib_get_link_layer(struct ib_device *dev,
					       u32 port)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static int fib_query_pkey(struct ib_device *dev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index >= FIB_NR_PKEYS)
		return -EINVAL;
	spin_lock(&fib_pkeys_lock);
	*pkey = fib_pkeys[index];
	spin_unlock(&fib_pkeys_lock);
	return 0;
}

static int fib_query_gid(struct ib_device *dev, u32 port, int index,
			 union ib_gid *gid)
{
	if (index >= FIB_NR_GIDS)
		return -EINVAL;
	gid->global.subnet_prefix = cpu_to_be64(FIB_PREFIX);
	gid->global.interface_id = cpu_to_be64(0x0002c90300000010ULL + index);
	return 0;
}

static int fib_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int fib_xrcd(struct ib_xrcd *xrcd, struct ib_udata *udata)
{
	return 0;
}

static int fib_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	cq->cqe = attr->cqe;
	return 0;
}

static int fib_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int fib_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

static int fib_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int fib_create_ah(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			 struct ib_udata *udata)
{
	return 0;
}

static int fib_destroy_ah(struct ib_ah *ah, u32 flags)
{
	return 0;
}

/* QP0 and QP1 are numbered as the MAD layer expects, the others from 2. */
static int fib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata)
{
	struct fib_qp *qp = to_fib_qp(ibqp);
	int qpn;

	switch (init->qp_type) {
	case IB_QPT_SMI:
		qpn = 0;
		break;
	case IB_QPT_GSI:
		qpn = 1;
		break;
	case IB_QPT_UD:
	case IB_QPT_RC:
	case IB_QPT_XRC_TGT:
		qpn = ida_alloc_range(&fib_qpns, 2, 0xffffff, GFP_KERNEL);
		if (qpn < 0)
			return qpn;
		break;
	default:
		return -EOPNOTSUPP;
	}
	ibqp->qp_num = qpn;
	atomic_set(&qp->in_av_modify, 0);
	atomic_set(&qp->overlaps, 0);
	qp->last_sgid = -1;
	qp->state = IB_QPS_RESET;
	return 0;
}

/* An AV modify takes a while, and tells whether another was under way. */
static int fib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata)
{
	struct fib_qp *qp = to_fib_qp(ibqp);

	if (mask & IB_QP_STATE)
		WRITE_ONCE(qp->state, attr->qp_state);
	if (!(mask & IB_QP_AV))
		return 0;
	if (atomic_inc_return(&qp->in_av_modify) > 1)
		atomic_inc(&qp->overlaps);
	if (modify_delay_us > 0)
		usleep_range(modify_delay_us, 2 * modify_delay_us);
	WRITE_ONCE(qp->last_sgid, attr->ah_attr.grh.sgid_index);
	atomic_dec(&qp->in_av_modify);
	return 0;
}

static int fib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	if (ibqp->qp_num > 1)
		ida_free(&fib_qpns, ibqp->qp_num);
	return 0;
}

/* Nothing is ever sent: the MAD layer gets the error at once. */
static int fib_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad)
{
	if (bad)
		*bad = wr;
	return -EIO;
}

/* Taken and never completed; the MAD layer frees them itself. */
static int fib_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	return 0;
}

/* Mandatory ops; no MRs (the PDs have the local DMA lkey). */
static struct ib_mr *fib_get_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *fib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				     u64 virt, int access,
				     struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int fib_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return 0;
}

static const struct ib_device_ops fib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 1,

	.query_device = fib_query_device,
	.query_port = fib_query_port,
	.get_port_immutable = fib_get_port_immutable,
	.get_link_layer = fib_get_link_layer,
	.query_pkey = fib_query_pkey,
	.query_gid = fib_query_gid,
	.alloc_pd = fib_pd,
	.dealloc_pd = fib_pd,
	.alloc_xrcd = fib_xrcd,
	.dealloc_xrcd = fib_xrcd,
	.create_cq = fib_create_cq,
	.destroy_cq = fib_destroy_cq,
	.poll_cq = fib_poll_cq,
	.req_notify_cq = fib_req_notify_cq,
	.create_ah = fib_create_ah,
	.destroy_ah = fib_destroy_ah,
	.create_qp = fib_create_qp,
	.modify_qp = fib_modify_qp,
	.destroy_qp = fib_destroy_qp,
	.post_send = fib_post_send,
	.post_recv = fib_post_recv,
	.get_dma_mr = fib_get_dma_mr,
	.reg_user_mr = fib_reg_user_mr,
	.dereg_mr = fib_dereg_mr,

	INIT_RDMA_OBJ_SIZE(ib_pd, fib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, fib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_ah, fib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, fib_xrcd, ibxrcd),
	INIT_RDMA_OBJ_SIZE(ib_qp, fib_qp, ibqp),
};

/* ---------------------------------------------------------------- */
/* Case 1: the port                                                   */

static int fib_case_port(void)
{
	u64 prefix = 0;
	u16 pkey = 0;
	union ib_gid gid;
	int ret;

	if (KTAP_BAD(rdma_protocol_ib(fib_dev, FIB_PORT) &&
		     rdma_cap_ib_smi(fib_dev, FIB_PORT),
		     "an IB port with QP0"))
		return -EINVAL;
	ret = ib_get_cached_pkey(fib_dev, FIB_PORT, 1, &pkey);
	if (KTAP_BAD(!ret && pkey == FIB_PKEY_UD, "ret %d pkey %#x", ret, pkey))
		return -EINVAL;
	ib_get_cached_subnet_prefix(fib_dev, FIB_PORT, &prefix);
	if (KTAP_BAD(prefix == FIB_PREFIX, "prefix %#llx", prefix))
		return -EINVAL;
	ret = rdma_query_gid(fib_dev, FIB_PORT, 1, &gid);
	if (KTAP_BAD(!ret && be64_to_cpu(gid.global.interface_id) ==
		     0x0002c90300000011ULL, "ret %d", ret))
		return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------------- */
/* XRC target QPs                                                     */

static struct ib_qp *fib_xrc_tgt_create(struct ib_xrcd *xrcd)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_XRC_TGT,
		.xrcd = xrcd,
	};

	return ib_create_qp_user(fib_dev, NULL, &init, NULL, NULL,
				 KBUILD_MODNAME);
}

static struct ib_qp *fib_xrc_tgt_open(struct ib_xrcd *xrcd, u32 qpn)
{
	struct ib_qp_open_attr open = {
		.qp_num = qpn,
		.qp_type = IB_QPT_XRC_TGT,
	};

	return ib_open_qp(xrcd, &open);
}

/* ---------------------------------------------------------------- */
/* Case 2: two handles of one XRC target QP modify its path at once   */

struct fib_racer {
	struct ib_qp *handle;
	int sgid_index;
	int failed;
	int first_err;
	struct completion done;
};

static void fib_av_attr(struct ib_qp_attr *attr, int sgid_index)
{
	union ib_gid dgid = {};

	memset(attr, 0, sizeof(*attr));
	dgid.global.subnet_prefix = cpu_to_be64(FIB_PREFIX);
	dgid.global.interface_id = cpu_to_be64(0x0002c90300000099ULL);
	attr->ah_attr.type = rdma_ah_find_type(fib_dev, FIB_PORT);
	rdma_ah_set_port_num(&attr->ah_attr, FIB_PORT);
	rdma_ah_set_dlid(&attr->ah_attr, 0x99);
	rdma_ah_set_grh(&attr->ah_attr, &dgid, 0, sgid_index, 1, 0);
}

static int fib_racer_fn(void *arg)
{
	struct fib_racer *r = arg;
	struct ib_qp_attr *attr;
	int i, ret;

	attr = kmalloc(sizeof(*attr), GFP_KERNEL);
	if (attr) {
		for (i = 0; i < xrc_rounds; i++) {
			fib_av_attr(attr, r->sgid_index);
			ret = ib_modify_qp(r->handle, attr, IB_QP_AV);
			if (ret && !r->failed++)
				r->first_err = ret;
		}
		kfree(attr);
	} else {
		r->failed = 1;
		r->first_err = -ENOMEM;
	}
	complete(&r->done);
	return 0;
}

static int fib_xrc_race(struct ib_qp *h1, struct ib_qp *h2)
{
	struct fib_racer racers[2] = {
		{ .handle = h1, .sgid_index = 0 },
		{ .handle = h2, .sgid_index = xrc_same_gid ? 0 : 1 },
	};
	struct ib_qp *real_qp = h1->real_qp;
	struct fib_qp *qp = to_fib_qp(real_qp);
	const struct ib_gid_attr *kept;
	struct task_struct *t;
	int i, started = 0, ret = 0;

	for (i = 0; i < 2; i++) {
		init_completion(&racers[i].done);
		t = kthread_run(fib_racer_fn, &racers[i], "fakeib_xrc%d", i);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		wait_for_completion(&racers[i].done);
	if (ret)
		return ret;

	kept = READ_ONCE(real_qp->av_sgid_attr);
	ktap_diag("xrc: %d modifies by 2 handles, %d overlapped; GID kept %d, last applied %d",
		  2 * xrc_rounds, atomic_read(&qp->overlaps),
		  kept ? (int)kept->index : -1, READ_ONCE(qp->last_sgid));
	for (i = 0; i < 2; i++)
		if (KTAP_BAD(!racers[i].failed, "handle %d: %d modifies failed, first %d",
			     i + 1, racers[i].failed, racers[i].first_err))
			ret = -EINVAL;
	if (KTAP_BAD(!atomic_read(&qp->overlaps),
		     "modifies of one real QP ran in the driver at once"))
		ret = -EINVAL;
	if (KTAP_BAD(kept && kept->index == READ_ONCE(qp->last_sgid),
		     "the reference kept is not the path applied last"))
		ret = -EINVAL;
	return ret;
}

static int fib_case_xrc_race(void)
{
	struct ib_qp *h1, *h2;
	struct ib_xrcd *xrcd;
	int ret;

	xrcd = ib_alloc_xrcd_user(fib_dev, NULL, NULL);
	if (KTAP_BAD(!IS_ERR(xrcd), "%ld", PTR_ERR(xrcd)))
		return PTR_ERR(xrcd);
	h1 = fib_xrc_tgt_create(xrcd);
	if (KTAP_BAD(!IS_ERR(h1), "%ld", PTR_ERR(h1))) {
		ret = PTR_ERR(h1);
		goto out_xrcd;
	}
	h2 = fib_xrc_tgt_open(xrcd, h1->qp_num);
	if (KTAP_BAD(!IS_ERR(h2), "%ld", PTR_ERR(h2))) {
		ret = PTR_ERR(h2);
		goto out_h1;
	}
	if (KTAP_BAD(h1->real_qp == h2->real_qp && h1->real_qp != h1,
		     "two handles of one real QP")) {
		ret = -EINVAL;
		goto out_h2;
	}

	ret = fib_xrc_race(h1, h2);
out_h2:
	ib_destroy_qp(h2);
out_h1:
	ib_destroy_qp(h1);
out_xrcd:
	ib_dealloc_xrcd_user(xrcd, NULL);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Case 3: the operations the InfiniBand LSM hooks guard              */

static int fib_to_init(struct ib_qp *qp, u16 pkey_index, int extra_mask)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = FIB_PORT,
		.pkey_index = pkey_index,
		.qkey = 0x11111111,
	};

	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PORT |
			    IB_QP_PKEY_INDEX | extra_mask);
}

/* The UD QPs' events: the last one's type, and a wake-up. */
struct fib_qp_events {
	int last;
	struct completion fatal;
};

static void fib_qp_event(struct ib_event *event, void *context)
{
	struct fib_qp_events *ev = context;

	WRITE_ONCE(ev->last, event->event);
	if (event->event == IB_EVENT_QP_FATAL)
		complete(&ev->fatal);
}

static struct ib_qp *fib_ud_create(struct ib_pd *pd, struct ib_cq *cq,
				   struct fib_qp_events *ev)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.send_cq = cq,
		.recv_cq = cq,
		.event_handler = fib_qp_event,
		.qp_context = ev,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	ev->last = -1;
	init_completion(&ev->fatal);
	return ib_create_qp(pd, &init);
}

/* A UD QP given P_Key index 1; kept for the P_Key change. */
static struct ib_qp *fib_ud_qp(struct ib_pd *pd, struct ib_cq *cq,
			       struct fib_qp_events *ev)
{
	struct ib_qp *qp;
	int ret;

	qp = fib_ud_create(pd, cq, ev);
	if (KTAP_BAD(!IS_ERR(qp), "UD QP: %ld", PTR_ERR(qp)))
		return qp;
	ret = fib_to_init(qp, 1, IB_QP_QKEY);
	if (KTAP_BAD(!ret, "UD QP to INIT with P_Key index 1: %d", ret)) {
		ib_destroy_qp(qp);
		return ERR_PTR(ret);
	}
	return qp;
}

/* An XRC target QP given P_Key index 2, then opened by a second handle. */
static int fib_xrc_pkey(void)
{
	struct ib_qp *h1, *h2;
	struct ib_xrcd *xrcd;
	int ret;

	xrcd = ib_alloc_xrcd_user(fib_dev, NULL, NULL);
	if (KTAP_BAD(!IS_ERR(xrcd), "%ld", PTR_ERR(xrcd)))
		return PTR_ERR(xrcd);
	h1 = fib_xrc_tgt_create(xrcd);
	if (KTAP_BAD(!IS_ERR(h1), "XRC target: %ld", PTR_ERR(h1))) {
		ret = PTR_ERR(h1);
		goto out_xrcd;
	}
	ret = fib_to_init(h1, 2, IB_QP_ACCESS_FLAGS);
	if (KTAP_BAD(!ret, "XRC target to INIT with P_Key index 2: %d", ret))
		goto out_h1;
	h2 = fib_xrc_tgt_open(xrcd, h1->qp_num);
	if (KTAP_BAD(!IS_ERR(h2), "open: %ld", PTR_ERR(h2))) {
		ret = PTR_ERR(h2);
		goto out_h1;
	}
	ib_destroy_qp(h2);
out_h1:
	ib_destroy_qp(h1);
out_xrcd:
	ib_dealloc_xrcd_user(xrcd, NULL);
	return ret;
}

static void fib_mad_send_handler(struct ib_mad_agent *agent,
				 struct ib_mad_send_wc *wc)
{
	ib_free_send_mad(wc->send_buf);
}

/*
 * A send-only agent of QP1 sends with P_Key index @pkey_index; the LSM
 * lets it through to the driver, which refuses it (-EIO), or not.
 * Return: what ib_post_send_mad() said, or the error of the setup.
 */
static int fib_gsi_post(struct ib_pd *pd, u16 pkey_index)
{
	struct rdma_ah_attr ah_attr = {};
	struct ib_mad_send_buf *msg;
	struct ib_mad_agent *agent;
	struct ib_ah *ah;
	int ret;

	agent = ib_register_mad_agent(fib_dev, FIB_PORT, IB_QPT_GSI, NULL, 0,
				      fib_mad_send_handler, NULL, NULL, 0);
	if (KTAP_BAD(!IS_ERR(agent), "QP1 agent: %ld", PTR_ERR(agent)))
		return PTR_ERR(agent);
	ah_attr.type = rdma_ah_find_type(fib_dev, FIB_PORT);
	rdma_ah_set_port_num(&ah_attr, FIB_PORT);
	rdma_ah_set_dlid(&ah_attr, 0x99);
	ah = rdma_create_ah(pd, &ah_attr, 0);
	if (KTAP_BAD(!IS_ERR(ah), "AH: %ld", PTR_ERR(ah))) {
		ret = PTR_ERR(ah);
		goto out_agent;
	}
	msg = ib_create_send_mad(agent, 1, pkey_index, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (KTAP_BAD(!IS_ERR(msg), "send buffer: %ld", PTR_ERR(msg))) {
		ret = PTR_ERR(msg);
		goto out_ah;
	}
	msg->ah = ah;
	((struct ib_mad_hdr *)msg->mad)->base_version = IB_MGMT_BASE_VERSION;
	((struct ib_mad_hdr *)msg->mad)->mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	((struct ib_mad_hdr *)msg->mad)->class_version = 1;
	((struct ib_mad_hdr *)msg->mad)->method = IB_MGMT_METHOD_GET;
	ret = ib_post_send_mad(msg, NULL);
	ib_free_send_mad(msg);
out_ah:
	rdma_destroy_ah(ah, 0);
out_agent:
	ib_unregister_mad_agent(agent);
	return ret;
}

/* QP1's send with P_Key index 3 reaches the driver (-EIO). */
static int fib_gsi_send(struct ib_pd *pd)
{
	int ret = fib_gsi_post(pd, 3);

	if (KTAP_BAD(ret == -EIO, "post: %d", ret))
		return ret ?: -EINVAL;
	return 0;
}

/* An agent of QP0: the right to manage the subnet through the port. */
static int fib_smi_register(void)
{
	struct ib_mad_agent *agent;

	agent = ib_register_mad_agent(fib_dev, FIB_PORT, IB_QPT_SMI, NULL, 0,
				      fib_mad_send_handler, NULL, NULL, 0);
	if (IS_ERR(agent))
		return PTR_ERR(agent);
	ib_unregister_mad_agent(agent);
	return 0;
}

static int fib_smi_agent(void)
{
	int ret = fib_smi_register();

	if (KTAP_BAD(!ret, "QP0 agent: %d", ret))
		return ret;
	return 0;
}

/*
 * P_Key index @index becomes @pkey; the cache follows, and the event's
 * work checks the QPs after its refresh.
 */
static int fib_pkey_set(u16 index, u16 new_pkey)
{
	struct ib_event event = {
		.device = fib_dev,
		.element.port_num = FIB_PORT,
		.event = IB_EVENT_PKEY_CHANGE,
	};
	u16 pkey = 0;
	int i;

	spin_lock(&fib_pkeys_lock);
	fib_pkeys[index] = new_pkey;
	spin_unlock(&fib_pkeys_lock);
	ib_dispatch_event(&event);
	for (i = 0; i < 100; i++) {
		if (!ib_get_cached_pkey(fib_dev, FIB_PORT, index, &pkey) &&
		    pkey == new_pkey)
			break;
		msleep(20);
	}
	if (KTAP_BAD(pkey == new_pkey, "cached P_Key %#x", pkey))
		return -EINVAL;
	msleep(200);
	return 0;
}

/* Index 1 gets another P_Key under the UD QP. */
static int fib_pkey_change(void)
{
	return fib_pkey_set(1, FIB_PKEY_UD_NEW);
}

static int fib_case_lsm_ops(void)
{
	struct fib_qp_events ev;
	struct ib_qp *ud = NULL;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int ret;

	pd = ib_alloc_pd(fib_dev, 0);
	if (KTAP_BAD(!IS_ERR(pd), "PD: %ld", PTR_ERR(pd)))
		return PTR_ERR(pd);
	cq = ib_alloc_cq(fib_dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (KTAP_BAD(!IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		ret = PTR_ERR(cq);
		goto out_pd;
	}
	ud = fib_ud_qp(pd, cq, &ev);
	if (IS_ERR(ud)) {
		ret = PTR_ERR(ud);
		goto out_cq;
	}
	ret = fib_xrc_pkey();
	if (!ret)
		ret = fib_gsi_send(pd);
	if (!ret)
		ret = fib_smi_agent();
	if (!ret)
		ret = fib_pkey_change();
	ib_destroy_qp(ud);
out_cq:
	ib_free_cq(cq);
out_pd:
	ib_dealloc_pd(pd);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Case 4: a policy that denies                                       */

/*
 * No security module here denies anything, and none can be loaded; so
 * the answers of the hooks themselves are turned into -EACCES, with
 * kretprobes (their handler's registers are the ones the caller gets
 * back): security_ib_pkey_access() for FIB_PKEY_DENIED, and
 * security_ib_endport_manage_subnet() for fakeib0.  A kernel without the
 * hooks (CONFIG_SECURITY_INFINIBAND unset: inline stubs) has nothing to
 * probe, and the case is skipped.
 */
#ifdef CONFIG_KRETPROBES
static int fib_pkey_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(bool *)ri->data =
		(u16)regs_get_kernel_argument(regs, 2) == FIB_PKEY_DENIED;
	return 0;
}

static int fib_smp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const char *name = (const char *)regs_get_kernel_argument(regs, 1);

	*(bool *)ri->data = name && !strcmp(name, dev_name(&fib_dev->dev));
	return 0;
}

static int fib_deny_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (*(bool *)ri->data && !regs_return_value(regs))
		regs_set_return_value(regs, -EACCES);
	return 0;
}

static struct kretprobe fib_deny_pkey = {
	.kp.symbol_name = "security_ib_pkey_access",
	.entry_handler = fib_pkey_entry,
	.handler = fib_deny_ret,
	.data_size = sizeof(bool),
};

static struct kretprobe fib_deny_smp = {
	.kp.symbol_name = "security_ib_endport_manage_subnet",
	.entry_handler = fib_smp_entry,
	.handler = fib_deny_ret,
	.data_size = sizeof(bool),
};

static struct kretprobe *fib_deny_probes[] = {
	&fib_deny_pkey, &fib_deny_smp,
};

static int fib_deny_start(void)
{
	return register_kretprobes(fib_deny_probes,
				   ARRAY_SIZE(fib_deny_probes));
}

static void fib_deny_stop(void)
{
	unregister_kretprobes(fib_deny_probes, ARRAY_SIZE(fib_deny_probes));
}
#else
static int fib_deny_start(void)
{
	return -EOPNOTSUPP;
}

static void fib_deny_stop(void)
{
}
#endif

/* A UD QP refused the denied P_Key, then moved to error when it gets it. */
static int fib_deny_ud(struct ib_pd *pd, struct ib_cq *cq)
{
	struct fib_qp_events ev;
	struct ib_qp *qp;
	int ret;

	qp = fib_ud_create(pd, cq, &ev);
	if (KTAP_BAD(!IS_ERR(qp), "UD QP: %ld", PTR_ERR(qp)))
		return PTR_ERR(qp);
	ret = fib_to_init(qp, 4, IB_QP_QKEY);
	if (KTAP_BAD(ret == -EACCES, "to INIT with the denied P_Key: %d", ret)) {
		ret = -EINVAL;
		goto out;
	}
	ret = fib_to_init(qp, 1, IB_QP_QKEY);
	if (KTAP_BAD(!ret, "to INIT with an allowed P_Key: %d", ret))
		goto out;
	/* Index 1 becomes the denied P_Key under the QP. */
	ret = fib_pkey_set(1, FIB_PKEY_DENIED);
	if (ret)
		goto out;
	wait_for_completion_timeout(&ev.fatal, 5 * HZ);
	if (KTAP_BAD(READ_ONCE(ev.last) == IB_EVENT_QP_FATAL &&
		     READ_ONCE(to_fib_qp(qp)->state) == IB_QPS_ERR,
		     "after the change: last event %d, state %d",
		     READ_ONCE(ev.last), READ_ONCE(to_fib_qp(qp)->state)))
		ret = -EINVAL;
out:
	ib_destroy_qp(qp);
	return ret;
}

/* An XRC target QP refused the denied P_Key through its handle. */
static int fib_deny_xrc(void)
{
	struct ib_xrcd *xrcd;
	struct ib_qp *h;
	int ret;

	xrcd = ib_alloc_xrcd_user(fib_dev, NULL, NULL);
	if (KTAP_BAD(!IS_ERR(xrcd), "%ld", PTR_ERR(xrcd)))
		return PTR_ERR(xrcd);
	h = fib_xrc_tgt_create(xrcd);
	if (KTAP_BAD(!IS_ERR(h), "XRC target: %ld", PTR_ERR(h))) {
		ret = PTR_ERR(h);
		goto out_xrcd;
	}
	ret = fib_to_init(h, 4, IB_QP_ACCESS_FLAGS);
	if (KTAP_BAD(ret == -EACCES, "XRC target to INIT with the denied P_Key: %d",
		     ret))
		ret = -EINVAL;
	else
		ret = 0;
	ib_destroy_qp(h);
out_xrcd:
	ib_dealloc_xrcd_user(xrcd, NULL);
	return ret;
}

static int fib_case_deny(void)
{
	struct ib_pd *pd;
	struct ib_cq *cq;
	int ret, err;

	pd = ib_alloc_pd(fib_dev, 0);
	if (KTAP_BAD(!IS_ERR(pd), "PD: %ld", PTR_ERR(pd)))
		return PTR_ERR(pd);
	cq = ib_alloc_cq(fib_dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (KTAP_BAD(!IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		ret = PTR_ERR(cq);
		goto out_pd;
	}

	ret = fib_deny_ud(pd, cq);
	if (!ret)
		ret = fib_deny_xrc();
	if (!ret) {
		err = fib_gsi_post(pd, 4);
		if (KTAP_BAD(err == -EACCES, "QP1 send with the denied P_Key: %d",
			     err))
			ret = -EINVAL;
	}
	if (!ret) {
		err = fib_smi_register();
		if (KTAP_BAD(err == -EACCES, "QP0 agent: %d", err))
			ret = -EINVAL;
	}

	ib_free_cq(cq);
out_pd:
	ib_dealloc_pd(pd);
	return ret;
}

#define FIB_NO_HOOKS \
	"no security_ib_* hooks in this kernel (CONFIG_SECURITY_INFINIBAND unset)"

/* The hooks deny only during the case: probed, run, unprobed. */
static bool fib_deny_ready;
static const char *fib_deny_why = "not run";

static int fib_case_deny_run(void)
{
	int ret = fib_case_deny();

	fib_deny_stop();
	/* Index 1 as it was before, for what comes later. */
	fib_pkey_set(1, FIB_PKEY_UD_NEW);
	return ret;
}

static void fib_deny_prepare(bool up)
{
	int ret;

	if (!up) {
		fib_deny_why = "no port";
		return;
	}
	ret = fib_deny_start();
	if (ret) {
		if (ret == -EOPNOTSUPP)
			fib_deny_why = "no kretprobes in this kernel";
		else
			fib_deny_why = FIB_NO_HOOKS;
		ktap_diag("register_kretprobes: %d", ret);
		return;
	}
	fib_deny_ready = true;
}

/* ---------------------------------------------------------------- */

static bool deny = true;
module_param(deny, bool, 0444);
MODULE_PARM_DESC(deny, "run case 4, the hooks made to deny (kretprobes)");

static int __init fib_init(void)
{
	struct fib_device *dev;
	bool up;
	int ret;

	dev = ib_alloc_device(fib_device, ibdev);
	if (!dev)
		return -ENOMEM;
	fib_dev = &dev->ibdev;
	fib_dev->node_type = RDMA_NODE_IB_CA;
	fib_dev->phys_port_cnt = 1;
	fib_dev->num_comp_vectors = 1;
	fib_dev->local_dma_lkey = 0x1234;
	ib_set_device_ops(fib_dev, &fib_ops);
	ret = ib_register_device(fib_dev, "fakeib%d", NULL);
	if (ret) {
		ib_dealloc_device(fib_dev);
		return ret;
	}

	ktap_plan(FIB_NR_CASES);
	up = ktap_run("fakeib: an IB port with its P_Keys, subnet prefix and GIDs",
		      fib_case_port, true, NULL);
	ktap_run("fakeib: two XRC handles modify one QP's path: serialised, right reference",
		 fib_case_xrc_race, up && xrc_rounds > 0,
		 up ? "xrc_rounds=0" : "no port");
	ktap_run("fakeib: P_Keys for UD and XRC QPs, XRC open, QP1 send, QP0 agent, P_Key change",
		 fib_case_lsm_ops, up, "no port");
	if (deny)
		fib_deny_prepare(up);
	else
		fib_deny_why = "deny=0";
	ktap_run("fakeib: the hooks deny: modify, QP1 send, QP0 agent EACCES; QP to error",
		 fib_case_deny_run, fib_deny_ready, fib_deny_why);
	ktap_all_ran(FIB_NR_CASES);
	return 0;
}

static void __exit fib_exit(void)
{
	ib_unregister_device(fib_dev);
	ib_dealloc_device(fib_dev);
	ida_destroy(&fib_qpns);
}

module_init(fib_init);
module_exit(fib_exit);

MODULE_DESCRIPTION("oot-rdma selftest: a fake InfiniBand device (XRC, P_Keys, QP0/QP1)");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);

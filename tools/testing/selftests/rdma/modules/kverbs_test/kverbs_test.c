// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: the kernel verbs of ib_core, as a kernel ULP uses them,
 * on an existing rxe device (module parameter dev=, default rxe0).
 *
 * On load it runs its cases once and prints KTAP (version 1) into the
 * kernel log, each line prefixed with "kverbs_test: "; kverbs.sh turns
 * them into its own test lines.  The counts are in the read-only
 * parameters passed and failed.  Everything it made is gone when the load
 * returns.  With hold=1 it runs nothing, makes a PD, a CQ, a QP and an MR
 * and keeps them until it is unloaded (for "rdma res").
 *
 * Two RC QPs, A and B, are connected to each other through the device's
 * own RoCEv2 GID.  Their four CQs use the four polling contexts, so that
 * every context delivers real completions:
 *	A send: IB_POLL_SOFTIRQ		A receive: IB_POLL_UNBOUND_WORKQUEUE
 *	B send: IB_POLL_WORKQUEUE	B receive: IB_POLL_DIRECT
 * Only public API of <rdma/ib_verbs.h> is used: the module builds against
 * the stock ib_core as well as ours.
 *
 * Every struct ib_cqe and buffer a posted WR names is static: a WR that
 * never completes (an engine that does not work) is discarded by the QP's
 * destruction, and nothing it names is freed before that.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>

#include "ktap_module.h"

static char *kt_dev_name = "rxe0";
module_param_named(dev, kt_dev_name, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to test on");
static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "only make objects and keep them until unload");
static bool rw_only;
module_param(rw_only, bool, 0444);
MODULE_PARM_DESC(rw_only, "run only the rdma_rw cases");
static bool force_mr;
module_param(force_mr, bool, 0444);
MODULE_PARM_DESC(force_mr, "ib_core runs with force_mr=1: expect MRs");
static bool stock;
module_param(stock, bool, 0444);
MODULE_PARM_DESC(stock, "the in-tree ib_core: skip what oopses there");
/*
 * Debian's mlx5_ib WARNs (alloc_cacheable_mr) on a user MR whose start
 * and iova are at different page offsets (measured on the modelled
 * ConnectX): hw_mlx5_kverbs skips that case there.
 */
static bool no_odd_offset;
module_param(no_odd_offset, bool, 0444);
MODULE_PARM_DESC(no_odd_offset, "skip ib_reg_user_mr at mismatched page offsets");

/* How long one operation may take in a slow (TCG) guest. */
#define KT_WAIT		(10 * HZ)
#define KT_PORT		1
#define KT_BUF		(2 * PAGE_SIZE)
#define KT_RW_CASES	6
#define KT_NR_CASES	(23 + KT_RW_CASES)

/* A WR's completion: counted, the last one kept. */
struct kt_wait {
	struct ib_cqe cqe;
	struct completion done;
	atomic_t count;
	struct ib_wc wc;
};

static void kt_wait_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_wait *w = container_of(wc->wr_cqe, struct kt_wait, cqe);

	w->wc = *wc;
	atomic_inc(&w->count);
	complete(&w->done);
}

static void kt_wait_init(struct kt_wait *w)
{
	w->cqe.done = kt_wait_done;
	init_completion(&w->done);
	atomic_set(&w->count, 0);
	memset(&w->wc, 0, sizeof(w->wc));
}

static struct {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *scq_a, *rcq_a, *scq_b, *rcq_b;
	struct ib_qp *qa, *qb;
	struct ib_mr *mr;
	bool connected, mr_mapped, mr_registered;
	int gid_index;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	/* A's buffer (source and sink) and B's receive buffer. */
	void *abuf, *bbuf;
	u64 abuf_dma, bbuf_dma;
	/* B's MR: two pages, not contiguous in the address space. */
	struct page *pages[2];
	struct scatterlist sg[2];
	int sg_nents;
	struct kt_wait send, recv, reg, inv, write, read, drain, probe;
} kt;

/* Waits for @n completions in all on @w; a direct CQ is polled here. */
static int kt_wait_for(struct kt_wait *w, int n, struct ib_cq *direct)
{
	unsigned long end = jiffies + KT_WAIT;

	while (atomic_read(&w->count) < n) {
		if (time_after(jiffies, end)) {
			ktap_diag("%d of %d completions in %d s", atomic_read(&w->count),
				  n, KT_WAIT / HZ);
			return -ETIMEDOUT;
		}
		if (direct)
			ib_process_cq_direct(direct, -1);
		wait_for_completion_timeout(&w->done, HZ / 20);
	}
	return 0;
}

static int kt_wc_ok(struct kt_wait *w, enum ib_wc_opcode opcode)
{
	if (KTAP_BAD(w->wc.status == IB_WC_SUCCESS, "status %d (%s)", w->wc.status,
		     ib_wc_status_msg(w->wc.status)))
		return -EINVAL;
	if (KTAP_BAD(w->wc.opcode == opcode, "opcode %d", w->wc.opcode))
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ */

static int kt_pd_local_dma_lkey(void)
{
	struct ib_device *dev = kt.dev;
	bool own = dev->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY;
	struct ib_pd *pd;

	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd)) {
		ktap_diag("ib_alloc_pd: %ld", PTR_ERR(pd));
		return PTR_ERR(pd);
	}
	kt.pd = pd;
	if (KTAP_BAD(pd->device == dev, "wrong"))
		return -EINVAL;
	if (KTAP_BAD(!pd->uobject, "wrong"))
		return -EINVAL;
	if (KTAP_BAD(atomic_read(&pd->usecnt) == 0, "%d", atomic_read(&pd->usecnt)))
		return -EINVAL;
	if (KTAP_BAD(pd->unsafe_global_rkey == 0, "%#x", pd->unsafe_global_rkey))
		return -EINVAL;
	if (own && KTAP_BAD(pd->local_dma_lkey == dev->local_dma_lkey, "%#x",
			    pd->local_dma_lkey))
		return -EINVAL;
	if (!own && KTAP_BAD(pd->__internal_mr &&
			     pd->local_dma_lkey == pd->__internal_mr->lkey,
			     "no internal MR for the lkey"))
		return -EINVAL;
	ktap_diag("local_dma_lkey %#x (%s)", pd->local_dma_lkey,
		  own ? "device's" : "internal MR");
	return 0;
}

static int kt_pd_unsafe_global_rkey(void)
{
	struct ib_pd *pd;
	int ret = 0;

	pd = ib_alloc_pd(kt.dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(pd)) {
		ktap_diag("ib_alloc_pd: %ld", PTR_ERR(pd));
		return PTR_ERR(pd);
	}
	if (!pd->__internal_mr ||
	    pd->unsafe_global_rkey != pd->__internal_mr->rkey ||
	    !(pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY)) {
		ktap_diag("rkey %#x flags %#x", pd->unsafe_global_rkey, pd->flags);
		ret = -EINVAL;
	}
	ib_dealloc_pd(pd);
	return ret;
}

/*
 * ib_reg_user_mr() from the kernel, over a page mapped into the loading
 * process: byte iova + i of the MR is byte start + i, so a start and an
 * iova at different offsets in a page would make an aligned iova a
 * misaligned kernel address, where rxe's 8-byte atomics are not atomic
 * and may run past the page.  uverbs refuses that for applications;
 * ours refuses it for kernel callers too (-EINVAL).  Stock registers it
 * (its result is only reported there).
 */
static int kt_reg_user_mr_offset(void)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	unsigned long addr;
	struct ib_mr *mr;
	long res;
	int ret = 0;

	addr = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (KTAP_BAD(!IS_ERR_VALUE(addr), "vm_mmap: %ld", (long)addr))
		return -ENOMEM;

	mr = ib_reg_user_mr(kt.pd, addr + 8, 64, 0x10008, access);
	if (KTAP_BAD(!IS_ERR(mr), "offsets 8 and 8: %ld", PTR_ERR(mr)))
		ret = -EINVAL;
	else
		ib_dereg_mr(mr);

	mr = ib_reg_user_mr(kt.pd, addr + 8, 64, 0x10004, access);
	res = IS_ERR(mr) ? PTR_ERR(mr) : 0;
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	ktap_diag("start and iova at page offsets 8 and 4: %ld", res);
	if (!stock && KTAP_BAD(res == -EINVAL, "offsets 8 and 4: %ld", res))
		ret = -EINVAL;

	vm_munmap(addr, PAGE_SIZE);
	return ret;
}

static const char *const kt_ctx_names[] = {
	[IB_POLL_SOFTIRQ] = "softirq",
	[IB_POLL_WORKQUEUE] = "workqueue",
	[IB_POLL_UNBOUND_WORKQUEUE] = "unbound workqueue",
	[IB_POLL_DIRECT] = "direct",
};

static int kt_cq_alloc_free(void)
{
	static const enum ib_poll_context ctxs[] = {
		IB_POLL_DIRECT, IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE,
		IB_POLL_UNBOUND_WORKQUEUE,
	};
	struct ib_cq *cq;
	int i;

	for (i = 0; i < ARRAY_SIZE(ctxs); i++) {
		cq = ib_alloc_cq(kt.dev, &kt, 64, 0, ctxs[i]);
		if (IS_ERR(cq)) {
			ktap_diag("%s: %ld", kt_ctx_names[ctxs[i]], PTR_ERR(cq));
			return PTR_ERR(cq);
		}
		if (cq->poll_ctx != ctxs[i] || cq->cqe < 64 ||
		    cq->cq_context != &kt || cq->device != kt.dev ||
		    atomic_read(&cq->usecnt)) {
			ktap_diag("%s: ctx %d cqe %d", kt_ctx_names[ctxs[i]],
				  cq->poll_ctx, cq->cqe);
			ib_free_cq(cq);
			return -EINVAL;
		}
		ib_free_cq(cq);
	}
	cq = ib_alloc_cq_any(kt.dev, NULL, 16, IB_POLL_WORKQUEUE);
	if (IS_ERR(cq)) {
		ktap_diag("ib_alloc_cq_any: %ld", PTR_ERR(cq));
		return PTR_ERR(cq);
	}
	i = cq->comp_vector;
	ib_free_cq(cq);
	if (KTAP_BAD(i >= 0 && i < kt.dev->num_comp_vectors, "vector %d", i))
		return -EINVAL;
	return 0;
}

/*
 * The shared CQs of ib_cq_pool_get(): a second caller on the same vector
 * and context shares the first one's CQ, another context gets another
 * CQ, and ib_cq_pool_put() gives the entries back.  The CQs stay in the
 * pool (kverbs.sh counts them) until the device goes.
 */
static int kt_cq_pool(void)
{
	struct ib_cq *a, *b, *c;
	unsigned int used;
	int ret = -EINVAL;

	a = ib_cq_pool_get(kt.dev, 16, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(a)) {
		ktap_diag("ib_cq_pool_get: %ld", PTR_ERR(a));
		return PTR_ERR(a);
	}
	used = a->cqe_used;
	b = ib_cq_pool_get(kt.dev, 16, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(b)) {
		ktap_diag("second ib_cq_pool_get: %ld", PTR_ERR(b));
		ib_cq_pool_put(a, 16);
		return PTR_ERR(b);
	}
	c = ib_cq_pool_get(kt.dev, 16, -1, IB_POLL_SOFTIRQ);
	if (IS_ERR(c)) {
		ktap_diag("softirq ib_cq_pool_get: %ld", PTR_ERR(c));
		goto put_b;
	}
	ktap_diag("cqe %d used %u vector %u; softirq cqe %d vector %u",
		  a->cqe, a->cqe_used, a->comp_vector, c->cqe, c->comp_vector);
	if (KTAP_BAD(a->shared && c->shared, "not shared") ||
	    KTAP_BAD(b == a, "a second CQ for room the first had") ||
	    KTAP_BAD(a->cqe_used == used + 16, "used %u, %u before",
		     a->cqe_used, used) ||
	    KTAP_BAD(a->poll_ctx == IB_POLL_WORKQUEUE && a->comp_vector == 0,
		     "ctx %d vector %u", a->poll_ctx, a->comp_vector) ||
	    KTAP_BAD(c != a && c->poll_ctx == IB_POLL_SOFTIRQ,
		     "softirq: ctx %d", c->poll_ctx))
		goto put_c;
	ret = 0;
put_c:
	ib_cq_pool_put(c, 16);
put_b:
	ib_cq_pool_put(b, 16);
	ib_cq_pool_put(a, 16);
	if (!ret && KTAP_BAD(a->cqe_used == used - 16, "used %u after put",
			     a->cqe_used))
		ret = -EINVAL;
	return ret;
}

/* ib_sg_to_pages() on made-up DMA addresses: the page list algorithm. */
static u64 kt_pages[4];
static int kt_npages, kt_maxpages;

static int kt_set_page(struct ib_mr *mr, u64 addr)
{
	if (kt_npages >= kt_maxpages)
		return -ENOMEM;
	kt_pages[kt_npages++] = addr;
	return 0;
}

struct kt_sg_case {
	const char *name;
	int nents, maxpages;
	u64 addr[3];
	u32 len[3];
	unsigned int offset;
	/* Expected: */
	int ret, npages;
	u64 pages[4];
	u64 iova, length;
};

static const struct kt_sg_case kt_sg_cases[] = {
	{ "offset first, partial last", 3, 4,
	  { 0x10100, 0x20000, 0x30000 }, { 0xf00, 0x1000, 0x800 }, 0,
	  3, 3, { 0x10000, 0x20000, 0x30000 }, 0x10100, 0x2700 },
	{ "gap after a partial page", 2, 4,
	  { 0x10000, 0x20000 }, { 0x800, 0x1000 }, 0,
	  1, 1, { 0x10000 }, 0x10000, 0x800 },
	{ "contiguous entries merge", 2, 4,
	  { 0x10000, 0x10800 }, { 0x800, 0x1000 }, 0,
	  2, 2, { 0x10000, 0x11000 }, 0x10000, 0x1800 },
	{ "start offset", 1, 4,
	  { 0x10000 }, { 0x2000 }, 0x1800,
	  1, 1, { 0x11000 }, 0x11800, 0x800 },
};

static int kt_sg_case(const struct kt_sg_case *c)
{
	struct scatterlist sg[3];
	unsigned int offset = c->offset;
	struct ib_mr mr = { .page_size = 0x1000 };
	int i, ret;

	sg_init_table(sg, c->nents);
	for (i = 0; i < c->nents; i++) {
		sg_dma_address(&sg[i]) = c->addr[i];
		sg_dma_len(&sg[i]) = c->len[i];
	}
	kt_npages = 0;
	kt_maxpages = c->maxpages;
	ret = ib_sg_to_pages(&mr, sg, c->nents, &offset, kt_set_page);
	if (KTAP_BAD(ret == c->ret && kt_npages == c->npages &&
		     mr.iova == c->iova && mr.length == c->length && offset == 0,
		     "%s: ret %d pages %d iova %#llx length %#llx offset %#x",
		     c->name, ret, kt_npages, mr.iova, mr.length, offset))
		return -EINVAL;
	for (i = 0; i < c->npages; i++)
		if (KTAP_BAD(kt_pages[i] == c->pages[i], "%s: page %d %#llx",
			     c->name, i, kt_pages[i]))
			return -EINVAL;
	return 0;
}

static int kt_sg_to_pages(void)
{
	struct ib_mr mr = { .page_size = 0x1000 };
	struct scatterlist sg;
	unsigned int offset = 0;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(kt_sg_cases); i++) {
		ret = kt_sg_case(&kt_sg_cases[i]);
		if (ret)
			return ret;
	}

	/*
	 * An MR with room for two pages and an entry of three: what is
	 * mapped and where to resume must agree, and no page is lost.
	 */
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = 0x10000;
	sg_dma_len(&sg) = 0x3000;
	kt_npages = 0;
	kt_maxpages = 2;
	ret = ib_sg_to_pages(&mr, &sg, 1, &offset, kt_set_page);
	ktap_diag("full MR: ret %d pages %d length %#llx resume at %#x", ret,
		  kt_npages, mr.length, offset);
	if (KTAP_BAD(ret == 0, "ret %d", ret))
		return -EINVAL;
	if (KTAP_BAD(offset && offset == mr.length && offset < 0x3000 &&
		     offset <= kt_npages * 0x1000, "offset %#x length %#llx",
		     offset, mr.length))
		return -EINVAL;
	return 0;
}

static void kt_qp_event(struct ib_event *ev, void *ctx)
{
	ktap_diag("QP event %d (%s)", ev->event, ib_event_msg(ev->event));
}

static struct ib_qp *kt_create_qp(struct ib_cq *scq, struct ib_cq *rcq)
{
	struct ib_qp_init_attr attr = {
		.event_handler = kt_qp_event,
		.qp_context = &kt,
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 2,
			.max_recv_sge = 2,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(kt.pd, &attr);
}

static int kt_check_qp(struct ib_qp *qp, struct ib_cq *scq, struct ib_cq *rcq)
{
	if (KTAP_BAD(qp->device == kt.dev && qp->pd == kt.pd, "wrong"))
		return -EINVAL;
	if (KTAP_BAD(qp->send_cq == scq && qp->recv_cq == rcq, "wrong"))
		return -EINVAL;
	if (KTAP_BAD(!qp->srq && !qp->uobject && qp->real_qp == qp, "wrong"))
		return -EINVAL;
	if (KTAP_BAD(qp->qp_type == IB_QPT_RC, "%d", qp->qp_type))
		return -EINVAL;
	if (KTAP_BAD(qp->event_handler == kt_qp_event && qp->qp_context == &kt, "wrong"))
		return -EINVAL;
	if (KTAP_BAD(qp->qp_num > 1, "qpn %u", qp->qp_num))
		return -EINVAL;
	return 0;
}

static int kt_qp_create(void)
{
	static const struct {
		struct ib_cq **cq;
		enum ib_poll_context ctx;
	} cqs[] = {
		{ &kt.scq_a, IB_POLL_SOFTIRQ },
		{ &kt.rcq_a, IB_POLL_UNBOUND_WORKQUEUE },
		{ &kt.scq_b, IB_POLL_WORKQUEUE },
		{ &kt.rcq_b, IB_POLL_DIRECT },
	};
	struct ib_qp *qp;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(cqs); i++) {
		*cqs[i].cq = ib_alloc_cq(kt.dev, NULL, 64, 0, cqs[i].ctx);
		if (IS_ERR(*cqs[i].cq)) {
			ret = PTR_ERR(*cqs[i].cq);
			*cqs[i].cq = NULL;
			ktap_diag("CQ %s: %d", kt_ctx_names[cqs[i].ctx], ret);
			return ret;
		}
	}
	qp = kt_create_qp(kt.scq_a, kt.rcq_a);
	if (IS_ERR(qp)) {
		ktap_diag("QP A: %ld", PTR_ERR(qp));
		return PTR_ERR(qp);
	}
	kt.qa = qp;
	qp = kt_create_qp(kt.scq_b, kt.rcq_b);
	if (IS_ERR(qp)) {
		ktap_diag("QP B: %ld", PTR_ERR(qp));
		return PTR_ERR(qp);
	}
	kt.qb = qp;
	ret = kt_check_qp(kt.qa, kt.scq_a, kt.rcq_a) ?:
	      kt_check_qp(kt.qb, kt.scq_b, kt.rcq_b);
	if (ret)
		return ret;
	if (KTAP_BAD(atomic_read(&kt.pd->usecnt) == 2, "pd usecnt %d",
		     atomic_read(&kt.pd->usecnt)))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(cqs); i++)
		if (KTAP_BAD(atomic_read(&(*cqs[i].cq)->usecnt) == 1,
			     "cq %d usecnt %d", i,
			     atomic_read(&(*cqs[i].cq)->usecnt)))
			return -EINVAL;
	return 0;
}

/* The device's RoCEv2 GID, an IPv4 one if there is one, and its MAC. */
/*
 * A pool of three fast-registration MRs on QP A: all three can be taken,
 * a fourth cannot, qp->mrs_used counts them, and they all come back and
 * are freed.  rxe has no integrity MRs: a pool of them fails whole, and
 * ib_check_mr_status() has nothing to ask.
 */
#define KT_POOL_MRS	3

static int kt_mr_pool(void)
{
	struct ib_mr *mrs[KT_POOL_MRS] = {}, *extra;
	struct ib_mr_status status;
	int used = kt.qa->mrs_used;
	LIST_HEAD(pool);
	int ret, i;

	ret = ib_mr_pool_init(kt.qa, &pool, KT_POOL_MRS, IB_MR_TYPE_MEM_REG, 4,
			      0);
	if (ret) {
		ktap_diag("ib_mr_pool_init: %d", ret);
		return ret;
	}
	ret = -EINVAL;
	for (i = 0; i < KT_POOL_MRS; i++) {
		mrs[i] = ib_mr_pool_get(kt.qa, &pool);
		if (KTAP_BAD(mrs[i] && mrs[i]->pd == kt.pd &&
			     mrs[i]->type == IB_MR_TYPE_MEM_REG,
			     "MR %d: %p", i, mrs[i]))
			goto put;
	}
	extra = ib_mr_pool_get(kt.qa, &pool);
	if (KTAP_BAD(!extra, "a fourth MR from a pool of three") ||
	    KTAP_BAD(kt.qa->mrs_used == used + KT_POOL_MRS, "mrs_used %d",
		     kt.qa->mrs_used))
		goto put;
	i = ib_check_mr_status(mrs[0], IB_MR_CHECK_SIG_STATUS, &status);
	if (KTAP_BAD(i == -EOPNOTSUPP, "ib_check_mr_status: %d", i))
		goto put;
	ret = 0;
put:
	for (i = 0; i < KT_POOL_MRS; i++)
		if (mrs[i])
			ib_mr_pool_put(kt.qa, &pool, mrs[i]);
	ib_mr_pool_destroy(kt.qa, &pool);
	if (!ret && (KTAP_BAD(list_empty(&pool), "pool not empty") ||
		     KTAP_BAD(kt.qa->mrs_used == used, "mrs_used %d after",
			      kt.qa->mrs_used)))
		ret = -EINVAL;
	if (ret)
		return ret;

	i = ib_mr_pool_init(kt.qa, &pool, 2, IB_MR_TYPE_INTEGRITY, 4, 1);
	if (KTAP_BAD(i == -EOPNOTSUPP && list_empty(&pool),
		     "integrity pool: %d", i)) {
		ib_mr_pool_destroy(kt.qa, &pool);
		return -EINVAL;
	}
	return 0;
}

static int kt_find_gid(void)
{
	const struct ib_gid_attr *attr, *best = NULL;
	u16 vlan;
	int i, ret;

	for (i = 0; i < 32; i++) {
		attr = rdma_get_gid_attr(kt.dev, KT_PORT, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
			rdma_put_gid_attr(attr);
			continue;
		}
		if (!best) {
			best = attr;
		} else if (ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw) &&
			   !ipv6_addr_v4mapped((struct in6_addr *)best->gid.raw)) {
			rdma_put_gid_attr(best);
			best = attr;
		} else {
			rdma_put_gid_attr(attr);
		}
	}
	if (!best)
		return -ENOENT;
	kt.gid = best->gid;
	kt.gid_index = best->index;
	ret = rdma_read_gid_l2_fields(best, &vlan, kt.mac);
	ktap_diag("GID index %d %pI6 mac %pM", kt.gid_index, kt.gid.raw, kt.mac);
	rdma_put_gid_attr(best);
	return ret;
}

static int kt_to_init(struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = KT_PORT,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
	};
	int ret;

	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		ktap_diag("QP %u to INIT: %d", qp->qp_num, ret);
	return ret;
}

static int kt_modify(struct ib_qp *qp, struct ib_qp *peer)
{
	struct ib_qp_attr attr;
	int ret;

	ret = kt_to_init(qp);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = peer->qp_num;
	attr.rq_psn = 100;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, KT_PORT);
	rdma_ah_set_grh(&attr.ah_attr, &kt.gid, 0, kt.gid_index, 64, 0);
	memcpy(attr.ah_attr.roce.dmac, kt.mac, ETH_ALEN);
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret) {
		ktap_diag("QP %u to RTR: %d", qp->qp_num, ret);
		return ret;
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = 100;
	attr.max_rd_atomic = 1;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			   IB_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		ktap_diag("QP %u to RTS: %d", qp->qp_num, ret);
	return ret;
}

static int kt_qp_connect(void)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int ret;

	ret = kt_find_gid();
	if (ret) {
		ktap_diag("no RoCEv2 GID: %d", ret);
		return ret;
	}
	ret = kt_modify(kt.qa, kt.qb) ?: kt_modify(kt.qb, kt.qa);
	if (ret)
		return ret;
	ret = ib_query_qp(kt.qa, &attr, IB_QP_STATE, &init);
	if (ret) {
		ktap_diag("ib_query_qp: %d", ret);
		return ret;
	}
	if (KTAP_BAD(attr.qp_state == IB_QPS_RTS, "state %d", attr.qp_state))
		return -EINVAL;
	if (KTAP_BAD(kt.qa->port == KT_PORT, "port %u", kt.qa->port))
		return -EINVAL;
	kt.connected = true;
	return 0;
}

static int kt_create_ah(void)
{
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_ROCE };
	int before = atomic_read(&kt.pd->usecnt);
	struct ib_ah *ah;

	rdma_ah_set_port_num(&attr, KT_PORT);
	rdma_ah_set_grh(&attr, &kt.gid, 0, kt.gid_index, 64, 0);
	memcpy(attr.roce.dmac, kt.mac, ETH_ALEN);
	ah = rdma_create_ah(kt.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ktap_diag("rdma_create_ah: %ld", PTR_ERR(ah));
		return PTR_ERR(ah);
	}
	if (ah->device != kt.dev || ah->pd != kt.pd || !ah->sgid_attr ||
	    ah->sgid_attr->index != kt.gid_index ||
	    atomic_read(&kt.pd->usecnt) != before + 1) {
		ktap_diag("ah fields or pd usecnt %d", atomic_read(&kt.pd->usecnt));
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return -EINVAL;
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (KTAP_BAD(atomic_read(&kt.pd->usecnt) == before, "pd usecnt %d",
		     atomic_read(&kt.pd->usecnt)))
		return -EINVAL;
	return 0;
}

static int kt_srq(void)
{
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_BASIC,
		.srq_context = &kt,
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	int before = atomic_read(&kt.pd->usecnt);
	struct ib_srq_attr attr = {};
	struct ib_srq *srq;
	int ret;

	srq = ib_create_srq(kt.pd, &init);
	if (IS_ERR(srq)) {
		ktap_diag("ib_create_srq: %ld", PTR_ERR(srq));
		return PTR_ERR(srq);
	}
	ret = -EINVAL;
	if (srq->pd != kt.pd || srq->device != kt.dev ||
	    srq->srq_context != &kt || srq->srq_type != IB_SRQT_BASIC ||
	    atomic_read(&kt.pd->usecnt) != before + 1) {
		ktap_diag("srq fields or pd usecnt");
		goto out;
	}
	attr.srq_limit = 4;
	ret = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	if (ret) {
		ktap_diag("ib_modify_srq: %d", ret);
		goto out;
	}
	memset(&attr, 0, sizeof(attr));
	ret = ib_query_srq(srq, &attr);
	if (ret || attr.srq_limit != 4 || attr.max_wr < 16) {
		ktap_diag("ib_query_srq: %d limit %u max_wr %u", ret,
			  attr.srq_limit, attr.max_wr);
		ret = -EINVAL;
	}
out:
	ib_destroy_srq(srq);
	if (!ret && atomic_read(&kt.pd->usecnt) != before)
		ret = -EINVAL;
	return ret;
}

static int kt_alloc_mr_map(void)
{
	struct ib_mr *mr;
	int i, n;

	mr = ib_alloc_mr(kt.pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(mr)) {
		ktap_diag("ib_alloc_mr: %ld", PTR_ERR(mr));
		return PTR_ERR(mr);
	}
	kt.mr = mr;
	if (KTAP_BAD(mr->device == kt.dev && mr->pd == kt.pd, "wrong"))
		return -EINVAL;
	if (KTAP_BAD(mr->type == IB_MR_TYPE_MEM_REG && !mr->uobject &&
		     !mr->need_inval, "wrong"))
		return -EINVAL;

	for (i = 0; i < 2; i++) {
		kt.pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!kt.pages[i])
			return -ENOMEM;
	}
	sg_init_table(kt.sg, 2);
	/* The first page from byte 256 on: the MR starts inside a page. */
	sg_set_page(&kt.sg[0], kt.pages[0], PAGE_SIZE - 256, 256);
	sg_set_page(&kt.sg[1], kt.pages[1], PAGE_SIZE, 0);
	kt.sg_nents = ib_dma_map_sg(kt.dev, kt.sg, 2, DMA_BIDIRECTIONAL);
	if (KTAP_BAD(kt.sg_nents == 2, "mapped %d", kt.sg_nents))
		return -EINVAL;

	n = ib_map_mr_sg(mr, kt.sg, 2, NULL, PAGE_SIZE);
	if (KTAP_BAD(n == 2, "ib_map_mr_sg: %d", n))
		return -EINVAL;
	if (KTAP_BAD(mr->iova == sg_dma_address(&kt.sg[0]), "iova %#llx", mr->iova))
		return -EINVAL;
	if (KTAP_BAD(mr->length == 2 * PAGE_SIZE - 256, "length %llu", mr->length))
		return -EINVAL;
	if (KTAP_BAD(mr->page_size == PAGE_SIZE, "page_size %u", mr->page_size))
		return -EINVAL;
	kt.mr_mapped = true;
	return 0;
}

static int kt_map_buffers(void)
{
	kt.abuf = kzalloc(KT_BUF, GFP_KERNEL);
	kt.bbuf = kzalloc(KT_BUF, GFP_KERNEL);
	if (!kt.abuf || !kt.bbuf)
		return -ENOMEM;
	kt.abuf_dma = ib_dma_map_single(kt.dev, kt.abuf, KT_BUF,
					DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(kt.dev, kt.abuf_dma)) {
		kt.abuf_dma = 0;
		return -ENOMEM;
	}
	kt.bbuf_dma = ib_dma_map_single(kt.dev, kt.bbuf, KT_BUF,
					DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(kt.dev, kt.bbuf_dma)) {
		kt.bbuf_dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/* Two SENDs from A into two receives of B, B's direct CQ polled by one. */
static int kt_send_recv(void)
{
	struct ib_sge rsge[2], ssge[2];
	struct ib_recv_wr rwr[2] = {};
	struct ib_send_wr swr[2] = {};
	int i, ret, got = 0, calls = 0;
	unsigned long end;

	ret = kt_map_buffers();
	if (ret)
		return ret;
	kt_wait_init(&kt.recv);
	kt_wait_init(&kt.send);
	for (i = 0; i < 2; i++) {
		memset(kt.abuf + i * 64, 'a' + i, 64);
		rsge[i] = (struct ib_sge){ kt.bbuf_dma + i * 64, 64,
					   kt.pd->local_dma_lkey };
		ssge[i] = (struct ib_sge){ kt.abuf_dma + i * 64, 48 + i,
					   kt.pd->local_dma_lkey };
		rwr[i].wr_cqe = &kt.recv.cqe;
		rwr[i].sg_list = &rsge[i];
		rwr[i].num_sge = 1;
		rwr[i].next = i ? NULL : &rwr[1];
		swr[i].wr_cqe = &kt.send.cqe;
		swr[i].sg_list = &ssge[i];
		swr[i].num_sge = 1;
		swr[i].opcode = IB_WR_SEND;
		swr[i].send_flags = IB_SEND_SIGNALED;
		swr[i].next = i ? NULL : &swr[1];
	}
	ret = ib_post_recv(kt.qb, rwr, NULL);
	if (ret) {
		ktap_diag("ib_post_recv: %d", ret);
		return ret;
	}
	ret = ib_post_send(kt.qa, swr, NULL);
	if (ret) {
		ktap_diag("ib_post_send: %d", ret);
		return ret;
	}
	ret = kt_wait_for(&kt.send, 2, NULL);
	if (ret)
		return ret;
	ret = kt_wc_ok(&kt.send, IB_WC_SEND);
	if (ret)
		return ret;

	/* B's receive CQ is direct: polled here, one completion a call. */
	end = jiffies + KT_WAIT;
	while (got < 2 && time_before(jiffies, end)) {
		ret = ib_process_cq_direct(kt.rcq_b, 1);
		if (KTAP_BAD(ret >= 0 && ret <= 1, "budget 1 gave %d", ret))
			return -EINVAL;
		got += ret;
		calls++;
		if (!ret)
			schedule_timeout_uninterruptible(1);
	}
	if (KTAP_BAD(got == 2 && atomic_read(&kt.recv.count) == 2,
		     "%d receive completions", atomic_read(&kt.recv.count)))
		return -EINVAL;
	ret = kt_wc_ok(&kt.recv, IB_WC_RECV);
	if (ret)
		return ret;
	if (KTAP_BAD(kt.recv.wc.byte_len == 49, "byte_len %u", kt.recv.wc.byte_len))
		return -EINVAL;
	if (KTAP_BAD(kt.recv.wc.qp == kt.qb, "wc qp"))
		return -EINVAL;
	if (KTAP_BAD(!memcmp(kt.bbuf, kt.abuf, 48) &&
		     !memcmp(kt.bbuf + 64, kt.abuf + 64, 49), "data differs"))
		return -EINVAL;
	return 0;
}

static int kt_post_b(struct ib_send_wr *wr, struct kt_wait *w,
		     enum ib_wc_opcode opcode)
{
	int ret;

	kt_wait_init(w);
	wr->wr_cqe = &w->cqe;
	wr->send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(kt.qb, wr, NULL);
	if (ret) {
		ktap_diag("ib_post_send: %d", ret);
		return ret;
	}
	return kt_wait_for(w, 1, NULL) ?: kt_wc_ok(w, opcode);
}

static int kt_reg_mr(void)
{
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.mr = kt.mr,
		.key = kt.mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
	};
	int ret;

	ret = kt_post_b(&wr.wr, &kt.reg, IB_WC_REG_MR);
	if (!ret)
		kt.mr_registered = true;
	return ret;
}

/* A's side of an RDMA WRITE or READ on B's MR, all of it. */
static int kt_rdma(enum ib_wr_opcode opcode, struct kt_wait *w, u64 offset)
{
	struct ib_sge sge = {
		.addr = kt.abuf_dma + offset,
		.length = kt.mr->length,
		.lkey = kt.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &w->cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = opcode,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = kt.mr->iova,
		.rkey = kt.mr->rkey,
	};
	int ret;

	kt_wait_init(w);
	ret = ib_post_send(kt.qa, &wr.wr, NULL);
	if (ret) {
		ktap_diag("ib_post_send: %d", ret);
		return ret;
	}
	return kt_wait_for(w, 1, NULL) ?:
	       kt_wc_ok(w, opcode == IB_WR_RDMA_WRITE ? IB_WC_RDMA_WRITE :
							IB_WC_RDMA_READ);
}

static int kt_rdma_write(void)
{
	u8 *p0 = page_address(kt.pages[0]), *p1 = page_address(kt.pages[1]);
	u32 first = PAGE_SIZE - 256;
	int i, ret;

	for (i = 0; i < kt.mr->length; i++)
		((u8 *)kt.abuf)[i] = i * 7 + 3;
	ret = kt_rdma(IB_WR_RDMA_WRITE, &kt.write, 0);
	if (ret)
		return ret;
	if (KTAP_BAD(!memcmp(p0 + 256, kt.abuf, first) &&
		     !memcmp(p1, kt.abuf + first, PAGE_SIZE),
		     "B's pages differ from what A wrote"))
		return -EINVAL;
	return 0;
}

static int kt_rdma_read(void)
{
	u8 *p0 = page_address(kt.pages[0]), *p1 = page_address(kt.pages[1]);
	u32 first = PAGE_SIZE - 256;
	int ret;

	/* B's pages get a new pattern; A reads it into a zeroed buffer. */
	memset(p0, 0x5a, PAGE_SIZE);
	memset(p1, 0xa5, PAGE_SIZE);
	memset(kt.abuf, 0, KT_BUF);
	ret = kt_rdma(IB_WR_RDMA_READ, &kt.read, 0);
	if (ret)
		return ret;
	if (KTAP_BAD(!memcmp(kt.abuf, p0 + 256, first) &&
		     !memcmp(kt.abuf + first, p1, PAGE_SIZE),
		     "A's buffer differs from B's pages"))
		return -EINVAL;
	return 0;
}

static int kt_local_inv(void)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = kt.mr->rkey,
	};
	int ret;

	ret = kt_post_b(&wr, &kt.inv, IB_WC_LOCAL_INV);
	if (!ret)
		kt.mr_registered = false;
	return ret;
}

/*
 * Whether WRs of a QP in the error state complete (flushed): the drain
 * tests would wait forever otherwise.  A third QP, INIT -> ERR, one
 * receive, a direct CQ polled for a bounded time.
 */
static int kt_flush_probe(void)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_recv_wr wr = {};
	struct ib_cq *cq;
	struct ib_qp *qp;
	int ret;

	cq = ib_alloc_cq(kt.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	qp = kt_create_qp(cq, cq);
	if (IS_ERR(qp)) {
		ib_free_cq(cq);
		return PTR_ERR(qp);
	}
	kt_wait_init(&kt.probe);
	wr.wr_cqe = &kt.probe.cqe;
	/* RESET -> ERR is no transition (IBTA; -EINVAL on stock). */
	ret = kt_to_init(qp);
	if (ret)
		goto out;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret) {
		ktap_diag("INIT to ERR: %d", ret);
		goto out;
	}
	ret = ib_post_recv(qp, &wr, NULL);
	if (ret) {
		ktap_diag("ib_post_recv on an ERR QP: %d", ret);
		goto out;
	}
	ret = kt_wait_for(&kt.probe, 1, cq);
	if (!ret && kt.probe.wc.status != IB_WC_WR_FLUSH_ERR) {
		ktap_diag("status %d", kt.probe.wc.status);
		ret = -EINVAL;
	}
out:
	ib_destroy_qp(qp);
	ib_free_cq(cq);
	return ret;
}

/* Post @n receives on @qp with kt.drain's cqe. */
static int kt_post_drain_recvs(struct ib_qp *qp, int n)
{
	struct ib_recv_wr wr = { .wr_cqe = &kt.drain.cqe };
	int i, ret;

	kt_wait_init(&kt.drain);
	for (i = 0; i < n; i++) {
		ret = ib_post_recv(qp, &wr, NULL);
		if (ret) {
			ktap_diag("ib_post_recv: %d", ret);
			return ret;
		}
	}
	return 0;
}

static int kt_drain_rq(void)
{
	int ret;

	ret = kt_post_drain_recvs(kt.qa, 3);
	if (ret)
		return ret;
	ib_drain_rq(kt.qa);
	/* Everything posted before the marker completed before it. */
	if (KTAP_BAD(atomic_read(&kt.drain.count) == 3, "%d flushed",
		     atomic_read(&kt.drain.count)))
		return -EINVAL;
	if (KTAP_BAD(kt.drain.wc.status == IB_WC_WR_FLUSH_ERR, "status %d",
		     kt.drain.wc.status))
		return -EINVAL;
	return 0;
}

static int kt_drain_sq(void)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int ret;

	ib_drain_sq(kt.qa);
	ret = ib_query_qp(kt.qa, &attr, IB_QP_STATE, &init);
	if (KTAP_BAD(!ret && attr.qp_state == IB_QPS_ERR, "ret %d state %d", ret,
		     attr.qp_state))
		return -EINVAL;
	return 0;
}

static int kt_drain_qp_direct(void)
{
	int ret;

	ret = kt_post_drain_recvs(kt.qb, 4);
	if (ret)
		return ret;
	/* B's receive CQ is direct: the drain polls it itself. */
	ib_drain_qp(kt.qb);
	if (KTAP_BAD(atomic_read(&kt.drain.count) == 4, "%d flushed",
		     atomic_read(&kt.drain.count)))
		return -EINVAL;
	if (KTAP_BAD(kt.drain.wc.status == IB_WC_WR_FLUSH_ERR, "status %d",
		     kt.drain.wc.status))
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * RDMA READ/WRITE contexts (<rdma/rw.h>), as a storage target uses them:
 * QP C moves data to and from memory of QP D's side through D's PD's
 * unsafe global rkey.  The QPs are made with max_rdma_ctxs and two SGEs
 * a WR, so the five pages of the scatterlist take chained WRs.  With
 * force_mr=1 (ib_core loaded with its own force_mr=1) every context
 * registers an MR of C's pool instead.  The expected numbers are
 * stock's, measured on rxe.
 */
#define KT_RW_PAGES	5
#define KT_RW_CTXS	4
#define KT_RW_SEND_WR	8
#define KT_RW_OFFSET	256
#define KT_RW_MSG	64

static struct {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qc, *qd;
	struct page *pages[KT_RW_PAGES];
	struct scatterlist sg[KT_RW_PAGES];
	/* D's side: the RDMA target and the SEND's receive buffer. */
	void *remote, *msg;
	u64 remote_dma, msg_dma;
	struct kt_wait done, send, recv;
} rw;

static int kt_rw_count(struct list_head *list)
{
	struct list_head *pos;
	int n = 0;

	list_for_each(pos, list)
		n++;
	return n;
}

static struct ib_qp *kt_rw_create_qp(void)
{
	struct ib_qp_init_attr attr = {
		.event_handler = kt_qp_event,
		.qp_context = &rw,
		.send_cq = rw.cq,
		.recv_cq = rw.cq,
		.cap = {
			.max_send_wr = KT_RW_SEND_WR,
			.max_recv_wr = 4,
			.max_send_sge = 2,
			.max_recv_sge = 1,
			.max_rdma_ctxs = KT_RW_CTXS,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.port_num = KT_PORT,
	};
	/* Measured on stock: one WR a context, three when registering. */
	u32 want = KT_RW_SEND_WR + (force_mr ? 3 : 1) * KT_RW_CTXS;
	struct ib_qp *qp;

	qp = ib_create_qp(rw.pd, &attr);
	if (IS_ERR(qp)) {
		ktap_diag("ib_create_qp with max_rdma_ctxs: %ld", PTR_ERR(qp));
		return qp;
	}
	ktap_diag("max_send_wr %u, rdma_mrs %d, sig_mrs %d, write/read sge %u/%u",
		  attr.cap.max_send_wr, kt_rw_count(&qp->rdma_mrs),
		  kt_rw_count(&qp->sig_mrs), qp->max_write_sge,
		  qp->max_read_sge);
	if (KTAP_BAD(attr.cap.max_send_wr == want, "max_send_wr %u",
		     attr.cap.max_send_wr) ||
	    KTAP_BAD(kt_rw_count(&qp->rdma_mrs) == (force_mr ? KT_RW_CTXS : 0),
		     "%d MRs", kt_rw_count(&qp->rdma_mrs)) ||
	    KTAP_BAD(list_empty(&qp->sig_mrs), "integrity MRs") ||
	    KTAP_BAD(qp->max_write_sge == 2 && qp->max_read_sge == 2,
		     "write sge %u read sge %u", qp->max_write_sge,
		     qp->max_read_sge)) {
		ib_destroy_qp(qp);
		return ERR_PTR(-EINVAL);
	}
	return qp;
}

static int kt_rw_setup(void)
{
	int i, ret;

	rw.pd = ib_alloc_pd(kt.dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(rw.pd)) {
		ret = PTR_ERR(rw.pd);
		rw.pd = NULL;
		ktap_diag("ib_alloc_pd: %d", ret);
		return ret;
	}
	rw.cq = ib_alloc_cq(kt.dev, NULL, 64, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(rw.cq)) {
		ret = PTR_ERR(rw.cq);
		rw.cq = NULL;
		ktap_diag("ib_alloc_cq: %d", ret);
		return ret;
	}
	for (i = 0; i < KT_RW_PAGES; i++) {
		rw.pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!rw.pages[i])
			return -ENOMEM;
	}
	rw.remote = kzalloc(KT_RW_PAGES * PAGE_SIZE, GFP_KERNEL);
	rw.msg = kzalloc(2 * KT_RW_MSG, GFP_KERNEL);
	if (!rw.remote || !rw.msg)
		return -ENOMEM;
	rw.remote_dma = ib_dma_map_single(kt.dev, rw.remote,
					  KT_RW_PAGES * PAGE_SIZE,
					  DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(kt.dev, rw.remote_dma)) {
		rw.remote_dma = 0;
		return -ENOMEM;
	}
	rw.msg_dma = ib_dma_map_single(kt.dev, rw.msg, 2 * KT_RW_MSG,
				       DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(kt.dev, rw.msg_dma)) {
		rw.msg_dma = 0;
		return -ENOMEM;
	}

	rw.qc = kt_rw_create_qp();
	if (IS_ERR(rw.qc)) {
		ret = PTR_ERR(rw.qc);
		rw.qc = NULL;
		return ret;
	}
	rw.qd = kt_rw_create_qp();
	if (IS_ERR(rw.qd)) {
		ret = PTR_ERR(rw.qd);
		rw.qd = NULL;
		return ret;
	}
	ret = kt_find_gid();
	if (ret) {
		ktap_diag("no RoCEv2 GID: %d", ret);
		return ret;
	}
	return kt_modify(rw.qc, rw.qd) ?: kt_modify(rw.qd, rw.qc);
}

static int kt_rw_factor(void)
{
	static const unsigned int pages[] = { 1, 32, 33, 256, 257 };
	/* Measured on stock rxe: max_sge_rd 32; 256 pages a pooled MR. */
	static const unsigned int sge[] = { 1, 1, 2, 8, 9 };
	static const unsigned int mr[] = { 1, 1, 1, 1, 2 };
	const unsigned int *want = force_mr ? mr : sge;
	unsigned int got, per = force_mr ? 3 : 1;
	int i;

	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		got = rdma_rw_mr_factor(kt.dev, KT_PORT, pages[i]);
		if (KTAP_BAD(got == want[i], "%u pages: factor %u", pages[i],
			     got))
			return -EINVAL;
	}
	got = rdma_rw_max_send_wr(kt.dev, KT_PORT, 10, 0);
	if (KTAP_BAD(got == 10 * per, "max_send_wr for 10: %u", got))
		return -EINVAL;
	got = rdma_rw_max_send_wr(kt.dev, KT_PORT, 10,
				  IB_QP_CREATE_INTEGRITY_EN);
	if (KTAP_BAD(got == 30, "max_send_wr for 10 with integrity: %u", got))
		return -EINVAL;
	got = rdma_rw_max_send_wr(kt.dev, KT_PORT, UINT_MAX / 2, 0);
	if (KTAP_BAD(got == (force_mr ? UINT_MAX : UINT_MAX / 2),
		     "max_send_wr for UINT_MAX / 2: %u", got))
		return -EINVAL;
	return 0;
}

/* Each page its own pattern, from @seed on. */
static void kt_rw_fill(u8 *p, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 13 + i / PAGE_SIZE;
}

static void kt_rw_sg(void)
{
	int i;

	sg_init_table(rw.sg, KT_RW_PAGES);
	for (i = 0; i < KT_RW_PAGES; i++)
		sg_set_page(&rw.sg[i], rw.pages[i], PAGE_SIZE, 0);
}

/* Whether the pages from @offset on hold what the remote buffer holds. */
static bool kt_rw_same(u32 offset)
{
	u8 *remote = rw.remote;
	int i;

	for (i = 0; i < KT_RW_PAGES; i++) {
		u32 skip = i ? 0 : offset;

		if (memcmp(page_address(rw.pages[i]) + skip, remote,
			   PAGE_SIZE - skip))
			return false;
		remote += PAGE_SIZE - skip;
	}
	return true;
}

/*
 * A WRITE of five pages, then a SEND chained after its WRs (as a target
 * answers once the data are there): only the SEND is signalled, and its
 * receive on D completes after the data arrived.
 */
static int kt_rw_write(void)
{
	struct ib_sge rsge = { rw.msg_dma, KT_RW_MSG, rw.pd->local_dma_lkey };
	struct ib_sge ssge = { rw.msg_dma + KT_RW_MSG, 16,
			       rw.pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_cqe = &rw.recv.cqe, .sg_list = &rsge,
				  .num_sge = 1 };
	struct ib_send_wr swr = {
		.wr_cqe = &rw.send.cqe, .sg_list = &ssge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	/* Measured on stock: three WRs of two SGEs; or REG_MR + WRITE. */
	int want = force_mr ? 2 : 3, n = 0, ret, i;
	struct rdma_rw_ctx ctx = {};
	struct ib_send_wr *wr, *first;

	kt_wait_init(&rw.done);
	kt_wait_init(&rw.send);
	kt_wait_init(&rw.recv);
	for (i = 0; i < KT_RW_PAGES; i++)
		kt_rw_fill(page_address(rw.pages[i]), PAGE_SIZE, 'w' + i);
	memset(rw.remote, 0, KT_RW_PAGES * PAGE_SIZE);
	memset(rw.msg + KT_RW_MSG, 's', 16);
	kt_rw_sg();

	ret = rdma_rw_ctx_init(&ctx, rw.qc, KT_PORT, rw.sg, KT_RW_PAGES, 0,
			       rw.remote_dma, rw.pd->unsafe_global_rkey,
			       DMA_TO_DEVICE);
	ktap_diag("WRITE: rdma_rw_ctx_init %d, nr_ops %u", ret, ctx.nr_ops);
	if (ret < 0)
		return ret;
	if (KTAP_BAD(ret == want, "rdma_rw_ctx_init: %d", ret)) {
		ret = -EINVAL;
		goto destroy;
	}
	if (KTAP_BAD(ctx.nr_ops == (force_mr ? 1 : 3), "nr_ops %u",
		     ctx.nr_ops)) {
		ret = -EINVAL;
		goto destroy;
	}

	first = rdma_rw_ctx_wrs(&ctx, rw.qc, KT_PORT, NULL, &swr);
	for (wr = first; wr && wr != &swr; wr = wr->next) {
		n++;
		if (KTAP_BAD(!(wr->send_flags & IB_SEND_SIGNALED),
			     "WR %d signalled", n)) {
			ret = -EINVAL;
			goto destroy;
		}
	}
	if (KTAP_BAD(wr == &swr && n == want, "%d WRs before the SEND%s", n,
		     wr ? "" : ", which is not chained")) {
		ret = -EINVAL;
		goto destroy;
	}

	ret = ib_post_recv(rw.qd, &rwr, NULL);
	if (ret) {
		ktap_diag("ib_post_recv: %d", ret);
		goto destroy;
	}
	ret = ib_post_send(rw.qc, first, NULL);
	if (ret) {
		ktap_diag("ib_post_send: %d", ret);
		goto destroy;
	}
	ret = kt_wait_for(&rw.send, 1, NULL) ?: kt_wc_ok(&rw.send, IB_WC_SEND) ?:
	      kt_wait_for(&rw.recv, 1, NULL) ?: kt_wc_ok(&rw.recv, IB_WC_RECV);
	if (ret)
		goto destroy;
	if (KTAP_BAD(kt_rw_same(0), "D's memory differs from what C wrote") ||
	    KTAP_BAD(!memcmp(rw.msg, rw.msg + KT_RW_MSG, 16), "SEND's data") ||
	    KTAP_BAD(!atomic_read(&rw.done.count), "unsignalled completions"))
		ret = -EINVAL;
destroy:
	rdma_rw_ctx_destroy(&ctx, rw.qc, KT_PORT, rw.sg, KT_RW_PAGES,
			    DMA_TO_DEVICE);
	return ret;
}

/* A READ into the five pages from byte 256 on, by rdma_rw_ctx_post(). */
static int kt_rw_read(void)
{
	/*
	 * Measured on stock: three WRs; registering, the pool's MR comes
	 * back still registered: LOCAL_INV + REG_MR + READ.
	 */
	int ret, want = 3, i;
	struct rdma_rw_ctx ctx = {};

	kt_wait_init(&rw.done);
	kt_rw_fill(rw.remote, KT_RW_PAGES * PAGE_SIZE, 'r');
	for (i = 0; i < KT_RW_PAGES; i++)
		memset(page_address(rw.pages[i]), 0, PAGE_SIZE);
	kt_rw_sg();

	ret = rdma_rw_ctx_init(&ctx, rw.qc, KT_PORT, rw.sg, KT_RW_PAGES,
			       KT_RW_OFFSET, rw.remote_dma,
			       rw.pd->unsafe_global_rkey, DMA_FROM_DEVICE);
	ktap_diag("READ: rdma_rw_ctx_init %d, nr_ops %u", ret, ctx.nr_ops);
	if (ret < 0)
		return ret;
	if (KTAP_BAD(ret == want, "rdma_rw_ctx_init: %d", ret)) {
		ret = -EINVAL;
		goto destroy;
	}
	if (KTAP_BAD(ctx.nr_ops == (force_mr ? 1 : 3), "nr_ops %u",
		     ctx.nr_ops)) {
		ret = -EINVAL;
		goto destroy;
	}
	ret = rdma_rw_ctx_post(&ctx, rw.qc, KT_PORT, &rw.done.cqe, NULL);
	if (ret) {
		ktap_diag("rdma_rw_ctx_post: %d", ret);
		goto destroy;
	}
	ret = kt_wait_for(&rw.done, 1, NULL) ?:
	      kt_wc_ok(&rw.done, IB_WC_RDMA_READ);
	if (ret)
		goto destroy;
	/* Nothing before the offset was written. */
	if (KTAP_BAD(!memchr_inv(page_address(rw.pages[0]), 0, KT_RW_OFFSET),
		     "bytes before the offset") ||
	    KTAP_BAD(kt_rw_same(KT_RW_OFFSET), "C's pages differ from D's memory"))
		ret = -EINVAL;
	/* One completion: the last WR's. */
	schedule_timeout_uninterruptible(HZ / 10);
	if (KTAP_BAD(atomic_read(&rw.done.count) == 1, "%d completions",
		     atomic_read(&rw.done.count)))
		ret = -EINVAL;
destroy:
	rdma_rw_ctx_destroy(&ctx, rw.qc, KT_PORT, rw.sg, KT_RW_PAGES,
			    DMA_FROM_DEVICE);
	return ret;
}

/*
 * Bad input.  Measured on stock rxe: nothing to map is -EIO; a
 * signature context on a QP without integrity finds its pool empty,
 * -EAGAIN.  Stock takes any other direction than the two for a READ
 * (1 WR here, 3 with force_mr: the pool's MR is still registered; on a
 * device with real DMA, DMA_NONE is a BUG() in the DMA mapping), ours
 * refuses it with -EINVAL.  An offset past the data
 * oopses stock (it walks off the list): ours only.
 */
static int kt_rw_bad(void)
{
	static const enum dma_data_direction dirs[] = {
		DMA_BIDIRECTIONAL, DMA_NONE,
	};
	struct ib_sig_attrs sig = {};
	struct rdma_rw_ctx ctx = {};
	int ret, i, bad = 0;

	kt_rw_sg();
	ret = rdma_rw_ctx_init(&ctx, rw.qc, KT_PORT, rw.sg, 0, 0,
			       rw.remote_dma, rw.pd->unsafe_global_rkey,
			       DMA_TO_DEVICE);
	if (KTAP_BAD(ret == -EIO, "sg_cnt 0: %d", ret))
		bad++;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		ret = rdma_rw_ctx_init(&ctx, rw.qc, KT_PORT, rw.sg, 1, 0,
				       rw.remote_dma,
				       rw.pd->unsafe_global_rkey, dirs[i]);
		if (ret > 0)
			rdma_rw_ctx_destroy(&ctx, rw.qc, KT_PORT, rw.sg, 1,
					    dirs[i]);
		if (KTAP_BAD(ret == (!stock ? -EINVAL : force_mr ? 3 : 1),
			     "direction %d: %d", dirs[i], ret))
			bad++;
	}

	ret = rdma_rw_ctx_signature_init(&ctx, rw.qc, KT_PORT, rw.sg, 1, NULL,
					 0, &sig, rw.remote_dma,
					 rw.pd->unsafe_global_rkey,
					 DMA_TO_DEVICE);
	if (ret > 0)
		rdma_rw_ctx_destroy_signature(&ctx, rw.qc, KT_PORT, rw.sg, 1,
					      NULL, 0, DMA_TO_DEVICE);
	if (KTAP_BAD(ret == -EAGAIN, "signature context: %d", ret))
		bad++;

	if (!stock) {
		ret = rdma_rw_ctx_init(&ctx, rw.qc, KT_PORT, rw.sg, 2,
				       2 * PAGE_SIZE, rw.remote_dma,
				       rw.pd->unsafe_global_rkey,
				       DMA_TO_DEVICE);
		if (KTAP_BAD(ret == -EINVAL, "offset past the data: %d", ret))
			bad++;
	}
	if (KTAP_BAD(rw.qc->mrs_used == 0, "%d MRs taken", rw.qc->mrs_used))
		bad++;
	return bad ? -EINVAL : 0;
}

/* The QPs go, and with them the pools: the PD is then unused. */
static int kt_rw_teardown(void)
{
	int i, ret = 0, r;

	if (rw.qc) {
		if (rw.qc->mrs_used) {
			ktap_diag("C: %d MRs taken", rw.qc->mrs_used);
			ret = -EBUSY;
		}
		r = ib_destroy_qp(rw.qc);
		rw.qc = NULL;
		if (r)
			ktap_diag("ib_destroy_qp C: %d", r);
		ret = ret ?: r;
	}
	if (rw.qd) {
		r = ib_destroy_qp(rw.qd);
		rw.qd = NULL;
		if (r)
			ktap_diag("ib_destroy_qp D: %d", r);
		ret = ret ?: r;
	}
	if (rw.cq) {
		ib_free_cq(rw.cq);
		rw.cq = NULL;
	}
	if (rw.remote_dma)
		ib_dma_unmap_single(kt.dev, rw.remote_dma,
				    KT_RW_PAGES * PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (rw.msg_dma)
		ib_dma_unmap_single(kt.dev, rw.msg_dma, 2 * KT_RW_MSG,
				    DMA_BIDIRECTIONAL);
	rw.remote_dma = 0;
	rw.msg_dma = 0;
	kfree(rw.remote);
	kfree(rw.msg);
	rw.remote = NULL;
	rw.msg = NULL;
	for (i = 0; i < KT_RW_PAGES; i++) {
		if (rw.pages[i])
			__free_page(rw.pages[i]);
		rw.pages[i] = NULL;
	}
	if (rw.pd) {
		if (atomic_read(&rw.pd->usecnt)) {
			ktap_diag("PD still used %d times",
				  atomic_read(&rw.pd->usecnt));
			ret = ret ?: -EBUSY;
		} else {
			ib_dealloc_pd(rw.pd);
		}
		rw.pd = NULL;
	}
	return ret;
}

/* The rdma_rw cases: KT_RW_CASES of them. */
static void kt_run_rw(void)
{
	bool up, wrote;

	up = ktap_run("rdma_rw: two RC QPs with max_rdma_ctxs, connected",
		      kt_rw_setup, true, "");
	ktap_run("rdma_rw_mr_factor and rdma_rw_max_send_wr", kt_rw_factor,
		 true, "");
	wrote = ktap_run("rdma_rw WRITE of five pages, a SEND chained after",
			 kt_rw_write, up, "no QPs");
	ktap_run("rdma_rw READ into five pages at an offset, ctx_post",
		 kt_rw_read, up && wrote, "no WRITE");
	ktap_run("rdma_rw_ctx_init refuses bad input", kt_rw_bad, up,
		 "no QPs");
	ktap_result(kt_rw_teardown(), "rdma_rw: QPs, pools, PD freed");
}

/* Everything, in the order a ULP tears down; returns the first error. */
static int kt_teardown(void)
{
	struct ib_cq **cqs[] = { &kt.scq_a, &kt.rcq_a, &kt.scq_b, &kt.rcq_b };
	int i, ret = 0, r;

	if (kt.qa) {
		r = ib_destroy_qp(kt.qa);
		kt.qa = NULL;
		if (r)
			ktap_diag("ib_destroy_qp A: %d", r);
		ret = ret ?: r;
	}
	if (kt.qb) {
		r = ib_destroy_qp(kt.qb);
		kt.qb = NULL;
		if (r)
			ktap_diag("ib_destroy_qp B: %d", r);
		ret = ret ?: r;
	}
	if (kt.mr) {
		r = ib_dereg_mr(kt.mr);
		kt.mr = NULL;
		if (r)
			ktap_diag("ib_dereg_mr: %d", r);
		ret = ret ?: r;
	}
	for (i = 0; i < ARRAY_SIZE(cqs); i++) {
		if (!*cqs[i])
			continue;
		if (atomic_read(&(*cqs[i])->usecnt)) {
			ktap_diag("CQ %d still used", i);
			ret = ret ?: -EBUSY;
		}
		ib_free_cq(*cqs[i]);
		*cqs[i] = NULL;
	}
	if (kt.sg_nents > 0)
		ib_dma_unmap_sg(kt.dev, kt.sg, 2, DMA_BIDIRECTIONAL);
	kt.sg_nents = 0;
	for (i = 0; i < 2; i++) {
		if (kt.pages[i])
			__free_page(kt.pages[i]);
		kt.pages[i] = NULL;
	}
	if (kt.abuf_dma)
		ib_dma_unmap_single(kt.dev, kt.abuf_dma, KT_BUF,
				    DMA_BIDIRECTIONAL);
	if (kt.bbuf_dma)
		ib_dma_unmap_single(kt.dev, kt.bbuf_dma, KT_BUF,
				    DMA_BIDIRECTIONAL);
	kt.abuf_dma = 0;
	kt.bbuf_dma = 0;
	kfree(kt.abuf);
	kfree(kt.bbuf);
	kt.abuf = NULL;
	kt.bbuf = NULL;
	if (kt.pd) {
		if (atomic_read(&kt.pd->usecnt)) {
			ktap_diag("PD still used %d times",
				  atomic_read(&kt.pd->usecnt));
			ret = ret ?: -EBUSY;
		} else {
			ib_dealloc_pd(kt.pd);
		}
		kt.pd = NULL;
	}
	return ret;
}

static void kt_run_all(void)
{
	bool pd, qps, conn, sent, mr, reg, flush;

	ktap_plan(KT_NR_CASES);
	pd = ktap_run("alloc_pd local_dma_lkey", kt_pd_local_dma_lkey, true, "wrong");
	ktap_run("alloc_pd unsafe_global_rkey", kt_pd_unsafe_global_rkey, true,
		 "");
	ktap_run("ib_reg_user_mr: start and iova at other page offsets",
		 kt_reg_user_mr_offset, pd && !no_odd_offset,
		 no_odd_offset ? "no_odd_offset: the driver WARNs" : "no PD");
	ktap_run("alloc_cq and free_cq in every polling context",
		 kt_cq_alloc_free, true, "wrong");
	ktap_run("ib_cq_pool_get shares, ib_cq_pool_put gives back", kt_cq_pool,
		 true, "wrong");
	ktap_run("ib_sg_to_pages page lists", kt_sg_to_pages, true, "wrong");
	qps = ktap_run("create two RC QPs on CQs of four contexts",
		       kt_qp_create, pd, "no PD");
	ktap_run("ib_mr_pool: three MRs taken, none more, all back", kt_mr_pool,
		 qps, "no QPs");
	conn = ktap_run("connect the QPs RESET->INIT->RTR->RTS", kt_qp_connect,
			qps, "no QPs");
	ktap_run("rdma_create_ah for a kernel user", kt_create_ah, conn,
		 "no GID");
	ktap_run("SRQ create, modify limit, query, destroy", kt_srq, pd,
		 "no PD");
	mr = ktap_run("alloc_mr and map_mr_sg of two pages", kt_alloc_mr_map,
		      pd, "no PD");
	sent = ktap_run("SEND/RECV, direct CQ polled with budget 1",
			kt_send_recv, conn, "QPs not connected");
	reg = ktap_run("IB_WR_REG_MR of the MR", kt_reg_mr, sent && mr,
		       "no traffic or no MR");
	ktap_run("RDMA WRITE into the registered MR", kt_rdma_write, reg,
		 "MR not registered");
	ktap_run("RDMA READ from the registered MR", kt_rdma_read, reg,
		 "MR not registered");
	ktap_run("IB_WR_LOCAL_INV of the MR", kt_local_inv, reg,
		 "MR not registered");
	flush = ktap_run("WRs of an ERR QP complete flushed", kt_flush_probe, pd,
			 "no PD");
	ktap_run("drain_rq: three outstanding receives flushed (unbound wq)",
		 kt_drain_rq, qps && flush, "no flush completions");
	ktap_run("drain_sq (softirq CQ)", kt_drain_sq, qps && flush,
		 "no flush completions");
	ktap_run("drain_qp with a direct receive CQ", kt_drain_qp_direct,
		 qps && flush, "no flush completions");
	ktap_result(kt_teardown(), "teardown: QPs, MR, CQs, PD");
	kt_run_rw();
	ktap_all_ran(KT_NR_CASES);
}

/* hold=1: objects for "rdma res", kept until unload. */
static int kt_hold(void)
{
	struct ib_qp *qp;
	int ret;

	kt.pd = ib_alloc_pd(kt.dev, 0);
	if (IS_ERR(kt.pd)) {
		ret = PTR_ERR(kt.pd);
		kt.pd = NULL;
		return ret;
	}
	kt.scq_a = ib_alloc_cq(kt.dev, NULL, 16, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(kt.scq_a)) {
		ret = PTR_ERR(kt.scq_a);
		kt.scq_a = NULL;
		return ret;
	}
	qp = kt_create_qp(kt.scq_a, kt.scq_a);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	kt.qa = qp;
	/* No MR when the driver has no fast registration. */
	kt.mr = ib_alloc_mr(kt.pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(kt.mr)) {
		pr_info("# ib_alloc_mr: %ld\n", PTR_ERR(kt.mr));
		kt.mr = NULL;
	}
	return 0;
}

static int __init kverbs_test_init(void)
{
	int ret = 0;

	kt.dev = ib_device_get_by_name(kt_dev_name, RDMA_DRIVER_UNKNOWN);
	if (!kt.dev) {
		pr_err("no device %s\n", kt_dev_name);
		return -ENODEV;
	}
	if (hold) {
		ret = kt_hold();
		if (ret) {
			kt_teardown();
			ib_device_put(kt.dev);
		}
		return ret;
	}
	if (rw_only) {
		ktap_plan(KT_RW_CASES + 1);
		kt_run_rw();
		ktap_all_ran(KT_RW_CASES + 1);
	} else {
		kt_run_all();
	}
	ib_device_put(kt.dev);
	kt.dev = NULL;
	return 0;
}

static void __exit kverbs_test_exit(void)
{
	if (!kt.dev)
		return;
	kt_teardown();
	ib_device_put(kt.dev);
}

module_init(kverbs_test_init);
module_exit(kverbs_test_exit);
MODULE_DESCRIPTION("Test-only: the kernel verbs of ib_core, KTAP in the log");
MODULE_LICENSE("GPL");

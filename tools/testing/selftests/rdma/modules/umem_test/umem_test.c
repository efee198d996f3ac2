// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: the umems that pin nothing and the flow resources of
 * ib_uverbs, as a hardware driver (mlx5_ib, irdma) uses them.
 *
 * On load it runs its cases once and prints KTAP (version 1) into the
 * kernel log, each line prefixed with "umem_test: "; umem.sh turns them
 * into its own test lines.  The counts are in the read-only parameters
 * passed and failed.  Everything it made is gone when the load returns.
 *
 * rxe supports neither ODP nor dma-buf MRs, so the module stands in for
 * the driver with two ib_devices of its own that are never registered:
 * ib_umem_* only look at the device's DMA device.
 *	virt_dev	no DMA device: virtual DMA (ib_uses_virt_dma()), as
 *			rxe; a DMA address is the page's kernel address, so
 *			the test reads and writes the process's pages
 *			through the ODP umem's dma_list;
 *	dma_dev		a platform device of the module as DMA device, for
 *			the dma-buf attachments (a dma-buf needs a device).
 * The process is the one loading the module (modprobe): the ODP cases
 * vm_mmap() anonymous memory into it, fault it in through the umem, and
 * vm_munmap() part of it to see the invalidation come through the
 * notifier.  The dma-buf cases export a buffer of the module's own
 * (Debian's kernel has no udmabuf) with an fd in the process, in two
 * table entries of two pages each, so that narrowing to a range cuts
 * inside both.
 *
 * Then what drivers call on the tables they map: ib_umem_find_best_pgsz()
 * on a umem whose table the module writes itself (DMA addresses only, as
 * a mapped table), ib_sg_to_pages() on a scatterlist of its own, and the
 * DIM of CQs allocated on a third unregistered device with CQ ops that do
 * nothing.
 *
 * Only public API is used: the module builds against the stock ib_uverbs
 * as well as ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dim.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/fdtable.h>
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pid.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "ktap_module.h"

MODULE_IMPORT_NS(DMA_BUF);

#define UT_NR_CASES	18
/* Pages of the ODP test's mapping. */
#define UT_ODP_PAGES	8
/* The dma-buf: two table entries of two pages each. */
#define UT_BUF_PAGES	4
#define UT_ENTRY_PAGES	2

static bool virt_attach;
module_param(virt_attach, bool, 0444);
MODULE_PARM_DESC(virt_attach,
		 "also try a dma-buf on a device of virtual DMA (stock warns)");

static struct {
	struct platform_device *pdev;
	struct ib_device *virt_dev;
	struct ib_device *dma_dev;
} ut;

/* A byte of page @page of the ODP mapping, as the process wrote it. */
static u8 ut_pattern(unsigned int page, unsigned int round)
{
	return 0x11 * (page + 1) + round;
}

/* ---- flow resources ---- */

static int ut_flow_counts(void)
{
	struct ib_flow_action *action;
	struct ib_uflow_resources *res;
	struct ib_counters *counters;
	int ret = -EINVAL;

	action = kzalloc(sizeof(*action), GFP_KERNEL);
	counters = kzalloc(sizeof(*counters), GFP_KERNEL);
	res = flow_resources_alloc(3);
	if (!action || !counters || !res) {
		ret = -ENOMEM;
		goto out;
	}
	if (KTAP_BAD(res->max == 3 && !res->num && !res->collection_num &&
		     !res->counters_num, "max %zu num %zu", res->max,
		     res->num))
		goto out;

	flow_resources_add(res, IB_FLOW_SPEC_ACTION_HANDLE, action);
	flow_resources_add(res, IB_FLOW_SPEC_ACTION_COUNT, counters);
	flow_resources_add(res, IB_FLOW_SPEC_ACTION_HANDLE, action);
	if (KTAP_BAD(res->num == 3 && res->collection_num == 2 &&
		     res->counters_num == 1, "num %zu collection %zu counters %zu",
		     res->num, res->collection_num, res->counters_num) ||
	    KTAP_BAD(res->collection[0] == action &&
		     res->collection[1] == action &&
		     res->counters[0] == counters, "arrays hold other objects") ||
	    KTAP_BAD(atomic_read(&action->usecnt) == 2 &&
		     atomic_read(&counters->usecnt) == 1,
		     "usecnt action %d counters %d",
		     atomic_read(&action->usecnt),
		     atomic_read(&counters->usecnt)))
		goto out;

	ib_uverbs_flow_resources_free(res);
	res = NULL;
	if (KTAP_BAD(!atomic_read(&action->usecnt) &&
		     !atomic_read(&counters->usecnt),
		     "usecnt after free: action %d counters %d",
		     atomic_read(&action->usecnt),
		     atomic_read(&counters->usecnt)))
		goto out;

	/* A rule without actions, and freeing nothing. */
	res = flow_resources_alloc(0);
	if (KTAP_BAD(res && !res->max, "alloc(0) %p", res))
		goto out;
	ib_uverbs_flow_resources_free(NULL);
	ret = 0;
out:
	ib_uverbs_flow_resources_free(res);
	kfree(counters);
	kfree(action);
	return ret;
}

/* ---- ODP ---- */

/* What the invalidate callback saw. */
static struct {
	int calls;
	unsigned long start, end;
} ut_inval;

/* The driver's part of an invalidation: bump the sequence, unmap. */
static bool ut_odp_invalidate(struct mmu_interval_notifier *mni,
			      const struct mmu_notifier_range *range,
			      unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	ib_umem_odp_unmap_dma_pages(odp, max(range->start, ib_umem_start(odp)),
				    min(range->end, ib_umem_end(odp)));
	mutex_unlock(&odp->umem_mutex);
	ut_inval.calls++;
	ut_inval.start = range->start;
	ut_inval.end = range->end;
	return true;
}

static const struct mmu_interval_notifier_ops ut_odp_ops = {
	.invalidate = ut_odp_invalidate,
};

/* The process's mapping and the umem on it, shared by the ODP cases. */
static struct {
	unsigned long addr;
	struct ib_umem_odp *odp;
} uo;

/* Page @page of the mapping through the umem: its virtual DMA address. */
static u8 *ut_odp_page(unsigned int page)
{
	dma_addr_t dma = uo.odp->dma_list[page];

	return (u8 *)(uintptr_t)(dma & ODP_DMA_ADDR_MASK);
}

/* Fills page @page of the mapping from the process's side. */
static int ut_user_fill(unsigned int page, u8 byte)
{
	char __user *p = (char __user *)(uo.addr + page * PAGE_SIZE);
	unsigned long i;

	for (i = 0; i < PAGE_SIZE; i += 64)
		if (put_user(byte, p + i))
			return -EFAULT;
	return 0;
}

static int ut_odp_bad_ranges(void)
{
	struct ib_umem_odp *odp;
	int access = IB_ACCESS_ON_DEMAND | IB_ACCESS_LOCAL_WRITE;

	odp = ib_umem_odp_get(ut.virt_dev, 0x10000, 0, access, &ut_odp_ops);
	if (KTAP_BAD(PTR_ERR(odp) == -EINVAL, "size 0: %ld", PTR_ERR(odp)))
		goto bad;
	odp = ib_umem_odp_get(ut.virt_dev, ULONG_MAX - PAGE_SIZE, 2 * PAGE_SIZE,
			      access, &ut_odp_ops);
	if (KTAP_BAD(PTR_ERR(odp) == -EOVERFLOW, "wrapping: %ld",
		     PTR_ERR(odp)))
		goto bad;
	odp = ib_umem_odp_alloc_implicit(ut.virt_dev,
					 access | IB_ACCESS_HUGETLB);
	if (KTAP_BAD(PTR_ERR(odp) == -EINVAL, "implicit hugetlb: %ld",
		     PTR_ERR(odp)))
		goto bad;
	return 0;
bad:
	if (!IS_ERR(odp))
		ib_umem_odp_release(odp);
	return -EINVAL;
}

static int ut_odp_get(void)
{
	int access = IB_ACCESS_ON_DEMAND | IB_ACCESS_LOCAL_WRITE;
	struct ib_umem *umem;
	struct pid *tgid;
	bool ours;

	uo.addr = vm_mmap(NULL, 0, UT_ODP_PAGES * PAGE_SIZE,
			  PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE,
			  0);
	if (KTAP_BAD(!IS_ERR_VALUE(uo.addr), "vm_mmap: %ld", (long)uo.addr)) {
		uo.addr = 0;
		return -ENOMEM;
	}
	/* Not page aligned at either end: the umem rounds out. */
	uo.odp = ib_umem_odp_get(ut.virt_dev, uo.addr + 100,
				 UT_ODP_PAGES * PAGE_SIZE - 200, access,
				 &ut_odp_ops);
	if (KTAP_BAD(!IS_ERR(uo.odp), "ib_umem_odp_get: %ld",
		     PTR_ERR(uo.odp))) {
		uo.odp = NULL;
		return -EINVAL;
	}
	umem = &uo.odp->umem;
	tgid = get_task_pid(current->group_leader, PIDTYPE_PID);
	ours = uo.odp->tgid == tgid;
	put_pid(tgid);
	if (KTAP_BAD(umem->is_odp && !umem->is_dmabuf && umem->writable &&
		     umem->ibdev == ut.virt_dev &&
		     umem->owning_mm == current->mm &&
		     umem->address == uo.addr + 100 && !umem->iova &&
		     umem->length == UT_ODP_PAGES * PAGE_SIZE - 200,
		     "umem fields") ||
	    KTAP_BAD(ib_umem_start(uo.odp) == uo.addr &&
		     ib_umem_end(uo.odp) == uo.addr +
		     UT_ODP_PAGES * PAGE_SIZE &&
		     ib_umem_odp_num_pages(uo.odp) == UT_ODP_PAGES,
		     "range %lx-%lx of mapping %lx", ib_umem_start(uo.odp),
		     ib_umem_end(uo.odp), uo.addr) ||
	    KTAP_BAD(uo.odp->page_shift == PAGE_SHIFT && !uo.odp->npages &&
		     !uo.odp->is_implicit_odp && uo.odp->pfn_list &&
		     uo.odp->dma_list && ours, "odp fields") ||
	    KTAP_BAD(!uo.odp->dma_list[0] &&
		     !uo.odp->dma_list[UT_ODP_PAGES - 1], "mapped already") ||
	    KTAP_BAD(ib_umem_find_best_pgsz(umem, PAGE_SIZE | SZ_2M,
					    uo.addr) == PAGE_SIZE &&
		     !ib_umem_find_best_pgsz(umem, SZ_2M, uo.addr),
		     "best page size"))
		return -EINVAL;
	return 0;
}

/* Pages 1 to 3 faulted in for writing, mapped and locked. */
static int ut_odp_fault(void)
{
	u64 rw = ODP_READ_ALLOWED_BIT | ODP_WRITE_ALLOWED_BIT;
	unsigned int i;
	bool locked;
	int ret;

	for (i = 1; i <= 3; i++)
		if (ut_user_fill(i, ut_pattern(i, 0)))
			return -EFAULT;

	ret = ib_umem_odp_map_dma_and_lock(uo.odp, uo.addr + PAGE_SIZE + 10,
					   3 * PAGE_SIZE - 20, rw, true);
	if (KTAP_BAD(ret == 3, "map_dma_and_lock: %d", ret))
		return ret < 0 ? ret : -EINVAL;
	locked = mutex_is_locked(&uo.odp->umem_mutex);
	mutex_unlock(&uo.odp->umem_mutex);
	if (KTAP_BAD(locked, "umem_mutex not held") ||
	    KTAP_BAD(uo.odp->npages == 3, "npages %d", uo.odp->npages) ||
	    KTAP_BAD(!uo.odp->dma_list[0] && !uo.odp->dma_list[4],
		     "pages 0 and 4 mapped"))
		return -EINVAL;
	for (i = 1; i <= 3; i++) {
		unsigned long pfn = uo.odp->pfn_list[i];

		if (KTAP_BAD((uo.odp->dma_list[i] & rw) == rw,
			     "page %u dma %pad", i, &uo.odp->dma_list[i]) ||
		    KTAP_BAD((pfn & HMM_PFN_VALID) && (pfn & HMM_PFN_WRITE),
			     "page %u pfn %lx", i, pfn) ||
		    KTAP_BAD(ut_odp_page(i) ==
			     page_address(hmm_pfn_to_page(pfn)),
			     "page %u: DMA address is not the page's", i))
			return -EINVAL;
	}
	return 0;
}

/* The device's view and the process's are the same pages, both ways. */
static int ut_odp_contents(void)
{
	u8 __user *p = (u8 __user *)(uo.addr + 2 * PAGE_SIZE + 128);
	unsigned int i;
	u8 byte;

	for (i = 1; i <= 3; i++)
		if (KTAP_BAD(ut_odp_page(i)[0] == ut_pattern(i, 0) &&
			     ut_odp_page(i)[PAGE_SIZE - 64] == ut_pattern(i, 0),
			     "page %u holds %#x", i, ut_odp_page(i)[0]))
			return -EINVAL;
	/* "DMA" into page 2: the process reads it. */
	ut_odp_page(2)[128] = 0xa5;
	if (get_user(byte, p))
		return -EFAULT;
	if (KTAP_BAD(byte == 0xa5, "the process reads %#x", byte))
		return -EINVAL;
	return 0;
}

/* Without faulting, only present pages are mapped, with their PTE's access. */
static int ut_odp_prefetch(void)
{
	int ret;

	ret = ib_umem_odp_map_dma_and_lock(uo.odp, uo.addr,
					   UT_ODP_PAGES * PAGE_SIZE,
					   ODP_READ_ALLOWED_BIT, false);
	if (KTAP_BAD(ret == UT_ODP_PAGES, "map_dma_and_lock: %d", ret))
		return ret < 0 ? ret : -EINVAL;
	mutex_unlock(&uo.odp->umem_mutex);
	if (KTAP_BAD(uo.odp->npages == 3, "npages %d", uo.odp->npages) ||
	    KTAP_BAD(!uo.odp->dma_list[0] && !uo.odp->dma_list[7],
		     "absent pages mapped") ||
	    KTAP_BAD(uo.odp->dma_list[1] & ODP_WRITE_ALLOWED_BIT,
		     "a writable PTE lost its write access"))
		return -EINVAL;
	return 0;
}

/* munmap() of page 2: the notifier runs, the driver's callback unmaps it. */
static int ut_odp_invalidate_munmap(void)
{
	int calls = ut_inval.calls;
	int ret;

	ret = vm_munmap(uo.addr + 2 * PAGE_SIZE, PAGE_SIZE);
	if (KTAP_BAD(!ret, "vm_munmap: %d", ret))
		return ret;
	if (KTAP_BAD(ut_inval.calls > calls, "no invalidation") ||
	    KTAP_BAD(ut_inval.start <= uo.addr + 2 * PAGE_SIZE &&
		     ut_inval.end >= uo.addr + 3 * PAGE_SIZE,
		     "invalidated %lx-%lx", ut_inval.start, ut_inval.end) ||
	    KTAP_BAD(!uo.odp->dma_list[2], "page 2 still mapped") ||
	    KTAP_BAD(uo.odp->dma_list[1] && uo.odp->dma_list[3],
		     "pages 1 and 3 unmapped") ||
	    KTAP_BAD(uo.odp->npages == 2, "npages %d", uo.odp->npages))
		return -EINVAL;

	/* Nothing there to fault: an error, and the mutex is not held. */
	ret = ib_umem_odp_map_dma_and_lock(uo.odp, uo.addr + 2 * PAGE_SIZE,
					   PAGE_SIZE, ODP_READ_ALLOWED_BIT,
					   true);
	if (ret >= 0)
		mutex_unlock(&uo.odp->umem_mutex);
	if (KTAP_BAD(ret == -EFAULT, "fault on the hole: %d", ret) ||
	    KTAP_BAD(!mutex_is_locked(&uo.odp->umem_mutex),
		     "umem_mutex held after an error"))
		return -EINVAL;
	return 0;
}

/* Memory mapped again in the hole: the next fault maps the new page. */
static int ut_odp_refault(void)
{
	unsigned long addr;
	int ret;

	addr = vm_mmap(NULL, uo.addr + 2 * PAGE_SIZE, PAGE_SIZE,
		       PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED, 0);
	if (KTAP_BAD(addr == uo.addr + 2 * PAGE_SIZE, "vm_mmap: %lx", addr))
		return -ENOMEM;
	if (ut_user_fill(2, ut_pattern(2, 1)))
		return -EFAULT;
	ret = ib_umem_odp_map_dma_and_lock(uo.odp, uo.addr + 2 * PAGE_SIZE,
					   1, ODP_READ_ALLOWED_BIT, true);
	if (KTAP_BAD(ret == 1, "map_dma_and_lock: %d", ret))
		return ret < 0 ? ret : -EINVAL;
	mutex_unlock(&uo.odp->umem_mutex);
	if (KTAP_BAD((uo.odp->dma_list[2] & (ODP_READ_ALLOWED_BIT |
					     ODP_WRITE_ALLOWED_BIT)) ==
		     ODP_READ_ALLOWED_BIT, "access bits %pad",
		     &uo.odp->dma_list[2]) ||
	    KTAP_BAD(ut_odp_page(2)[0] == ut_pattern(2, 1),
		     "the page holds %#x", ut_odp_page(2)[0]) ||
	    KTAP_BAD(uo.odp->npages == 3, "npages %d", uo.odp->npages))
		return -EINVAL;
	return 0;
}

/* ib_umem_release() of an ODP umem removes its notifier. */
static int ut_odp_release(void)
{
	int calls;
	int ret;

	ib_umem_release(&uo.odp->umem);
	uo.odp = NULL;
	calls = ut_inval.calls;
	ret = vm_munmap(uo.addr, UT_ODP_PAGES * PAGE_SIZE);
	uo.addr = 0;
	if (KTAP_BAD(!ret, "vm_munmap: %d", ret) ||
	    KTAP_BAD(ut_inval.calls == calls, "invalidated after release"))
		return -EINVAL;
	return 0;
}

/* An implicit umem and a child of it, on a mapping of their own. */
static int ut_odp_implicit(void)
{
	int access = IB_ACCESS_ON_DEMAND | IB_ACCESS_LOCAL_WRITE;
	struct ib_umem_odp *root, *child = NULL;
	unsigned long addr;
	int ret = -EINVAL;

	addr = vm_mmap(NULL, 0, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(addr))
		return -ENOMEM;
	root = ib_umem_odp_alloc_implicit(ut.virt_dev, access);
	if (KTAP_BAD(!IS_ERR(root), "alloc_implicit: %ld", PTR_ERR(root))) {
		root = NULL;
		goto out;
	}
	if (KTAP_BAD(root->is_implicit_odp && root->umem.is_odp &&
		     root->umem.writable && !root->pfn_list &&
		     !root->dma_list && root->umem.owning_mm == current->mm &&
		     root->page_shift == PAGE_SHIFT, "implicit fields"))
		goto out;

	child = ib_umem_odp_alloc_child(root, addr + PAGE_SIZE, 2 * PAGE_SIZE,
					&ut_odp_ops);
	if (KTAP_BAD(!IS_ERR(child), "alloc_child: %ld", PTR_ERR(child))) {
		child = NULL;
		goto out;
	}
	if (KTAP_BAD(!child->is_implicit_odp && child->umem.is_odp &&
		     child->tgid == root->tgid &&
		     child->umem.owning_mm == root->umem.owning_mm &&
		     ib_umem_start(child) == addr + PAGE_SIZE &&
		     ib_umem_odp_num_pages(child) == 2, "child fields"))
		goto out;

	ret = ib_umem_odp_map_dma_and_lock(child, addr + PAGE_SIZE,
					   2 * PAGE_SIZE,
					   ODP_READ_ALLOWED_BIT |
					   ODP_WRITE_ALLOWED_BIT, true);
	if (ret >= 0)
		mutex_unlock(&child->umem_mutex);
	if (KTAP_BAD(ret == 2 && child->npages == 2,
		     "map_dma_and_lock: %d, npages %d", ret, child->npages)) {
		ret = -EINVAL;
		goto out;
	}
	ret = 0;
out:
	if (child)
		ib_umem_odp_release(child);
	if (root)
		ib_umem_release(&root->umem);
	vm_munmap(addr, 4 * PAGE_SIZE);
	return ret;
}

/* ---- dma-buf: the exporter ---- */

static struct {
	struct page *pages;
	struct dma_buf *dmabuf;
	int fd;
	/* The DMA addresses of the entries as mapped, and their lengths. */
	dma_addr_t dma[UT_BUF_PAGES / UT_ENTRY_PAGES];
	struct sg_table *mapped;
	int attaches, detaches, maps, unmaps, pins, unpins;
} ub;

static int ut_buf_attach(struct dma_buf *dmabuf,
			 struct dma_buf_attachment *attach)
{
	ub.attaches++;
	return 0;
}

static void ut_buf_detach(struct dma_buf *dmabuf,
			  struct dma_buf_attachment *attach)
{
	ub.detaches++;
}

static int ut_buf_pin(struct dma_buf_attachment *attach)
{
	ub.pins++;
	return 0;
}

static void ut_buf_unpin(struct dma_buf_attachment *attach)
{
	ub.unpins++;
}

static struct sg_table *ut_buf_map(struct dma_buf_attachment *attach,
				   enum dma_data_direction dir)
{
	unsigned int n = UT_BUF_PAGES / UT_ENTRY_PAGES;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, n, GFP_KERNEL);
	if (ret)
		goto err_free;
	for_each_sgtable_sg(sgt, sg, i)
		sg_set_page(sg, ub.pages + i * UT_ENTRY_PAGES,
			    UT_ENTRY_PAGES * PAGE_SIZE, 0);
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret)
		goto err_table;
	for_each_sgtable_dma_sg(sgt, sg, i)
		if (i < n)
			ub.dma[i] = sg_dma_address(sg);
	ub.mapped = sgt;
	ub.maps++;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void ut_buf_unmap(struct dma_buf_attachment *attach,
			 struct sg_table *sgt, enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
	ub.mapped = NULL;
	ub.unmaps++;
}

static void ut_buf_release(struct dma_buf *dmabuf)
{
	__free_pages(dmabuf->priv, get_order(UT_BUF_PAGES * PAGE_SIZE));
}

static const struct dma_buf_ops ut_buf_ops = {
	.attach = ut_buf_attach,
	.detach = ut_buf_detach,
	.pin = ut_buf_pin,
	.unpin = ut_buf_unpin,
	.map_dma_buf = ut_buf_map,
	.unmap_dma_buf = ut_buf_unmap,
	.release = ut_buf_release,
};

/* The buffer, with an fd of the loading process. */
static int ut_buf_export(void)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);

	ub.pages = alloc_pages(GFP_KERNEL | __GFP_ZERO,
			       get_order(UT_BUF_PAGES * PAGE_SIZE));
	if (!ub.pages)
		return -ENOMEM;
	info.ops = &ut_buf_ops;
	info.size = UT_BUF_PAGES * PAGE_SIZE;
	info.flags = O_RDWR;
	info.priv = ub.pages;
	ub.dmabuf = dma_buf_export(&info);
	if (IS_ERR(ub.dmabuf)) {
		__free_pages(ub.pages, get_order(UT_BUF_PAGES * PAGE_SIZE));
		return PTR_ERR(ub.dmabuf);
	}
	/* The buffer is the dma-buf's now: its release frees the pages. */
	ub.fd = dma_buf_fd(ub.dmabuf, O_CLOEXEC);
	if (ub.fd < 0) {
		dma_buf_put(ub.dmabuf);
		return ub.fd;
	}
	return 0;
}

/* Closing the fd drops the last reference but ours. */
static void ut_buf_close(void)
{
	if (!ub.dmabuf)
		return;
	close_fd(ub.fd);
	ub.dmabuf = NULL;
}

/* ---- dma-buf: the importer (the driver) ---- */

static int ut_move_notifies;

static void ut_umem_move_notify(struct dma_buf_attachment *attach)
{
	struct ib_umem_dmabuf *umem_dmabuf = attach->importer_priv;

	ut_move_notifies++;
	ib_umem_dmabuf_unmap_pages(umem_dmabuf);
}

static const struct dma_buf_attach_ops ut_umem_attach_ops = {
	.allow_peer2peer = true,
	.move_notify = ut_umem_move_notify,
};

static const struct dma_buf_attach_ops ut_no_move_ops = {
	.allow_peer2peer = true,
};

/* The range of the dma-buf cases: pages 1 and 2, from 100 bytes in. */
#define UT_OFFSET	(PAGE_SIZE + 100)
#define UT_SIZE		(PAGE_SIZE)

static int ut_dmabuf_bad_input(void)
{
	struct ib_umem_dmabuf *u;

	u = ib_umem_dmabuf_get(ut.dma_dev, 0, PAGE_SIZE, -1, 0,
			       &ut_umem_attach_ops);
	if (KTAP_BAD(PTR_ERR(u) == -EBADF, "fd -1: %ld", PTR_ERR(u)))
		goto bad;
	u = ib_umem_dmabuf_get(ut.dma_dev, PAGE_SIZE, UT_BUF_PAGES * PAGE_SIZE,
			       ub.fd, 0, &ut_umem_attach_ops);
	if (KTAP_BAD(PTR_ERR(u) == -EINVAL, "beyond the buffer: %ld",
		     PTR_ERR(u)))
		goto bad;
	u = ib_umem_dmabuf_get(ut.dma_dev, 0, 0, ub.fd, 0,
			       &ut_umem_attach_ops);
	if (KTAP_BAD(PTR_ERR(u) == -EINVAL, "size 0: %ld", PTR_ERR(u)))
		goto bad;
	u = ib_umem_dmabuf_get(ut.dma_dev, 0, PAGE_SIZE, ub.fd, 0,
			       &ut_no_move_ops);
	if (KTAP_BAD(PTR_ERR(u) == -EINVAL, "no move_notify: %ld",
		     PTR_ERR(u)))
		goto bad;
	if (KTAP_BAD(!ub.attaches, "attached %d times", ub.attaches))
		return -EINVAL;
	return 0;
bad:
	if (!IS_ERR(u))
		ib_umem_release(&u->umem);
	return -EINVAL;
}

/*
 * A device of virtual DMA has no DMA device to attach: refused with
 * EINVAL.  Stock gets there through a WARN_ON in dma_buf_attach(), which
 * fails the VM run: umem_odp_dmabuf.sh asks for the case on ours only.
 */
static int ut_dmabuf_virt_dev(void)
{
	struct ib_umem_dmabuf *u;

	u = ib_umem_dmabuf_get(ut.virt_dev, 0, PAGE_SIZE, ub.fd, 0,
			       &ut_umem_attach_ops);
	if (KTAP_BAD(PTR_ERR(u) == -EINVAL, "virtual DMA: %ld",
		     PTR_ERR(u))) {
		if (!IS_ERR(u))
			ib_umem_release(&u->umem);
		return -EINVAL;
	}
	return 0;
}

/* The umem's table is pages 1 and 2: the tail of entry 0, head of 1. */
static int ut_dmabuf_check_table(struct ib_umem_dmabuf *u)
{
	struct sg_table *sgt = &u->umem.sgt_append.sgt;
	struct scatterlist *sg = sgt->sgl;

	if (KTAP_BAD(u->sgt && sgt->nents == 2 && sg,
		     "sgt %p nents %u", u->sgt, sgt->nents) ||
	    KTAP_BAD(sg_dma_address(sg) == ub.dma[0] + PAGE_SIZE &&
		     sg_dma_len(sg) == PAGE_SIZE,
		     "first entry %pad+%u, exporter's at %pad",
		     &sg_dma_address(sg), sg_dma_len(sg), &ub.dma[0]))
		return -EINVAL;
	sg = sg_next(sg);
	if (KTAP_BAD(sg_dma_address(sg) == ub.dma[1] &&
		     sg_dma_len(sg) == PAGE_SIZE,
		     "last entry %pad+%u, exporter's at %pad",
		     &sg_dma_address(sg), sg_dma_len(sg), &ub.dma[1]) ||
	    KTAP_BAD(ib_umem_find_best_pgsz(&u->umem, PAGE_SIZE | SZ_2M,
					    UT_OFFSET) == PAGE_SIZE &&
		     u->umem.iova == UT_OFFSET, "best page size") ||
	    KTAP_BAD(ib_umem_offset(&u->umem) == 100 &&
		     ib_umem_num_dma_blocks(&u->umem, PAGE_SIZE) == 2,
		     "offset %d blocks %zu", ib_umem_offset(&u->umem),
		     ib_umem_num_dma_blocks(&u->umem, PAGE_SIZE)) ||
	    KTAP_BAD(u->first_sg_offset == PAGE_SIZE &&
		     u->last_sg_trim == PAGE_SIZE,
		     "first_sg_offset %lu last_sg_trim %lu",
		     u->first_sg_offset, u->last_sg_trim))
		return -EINVAL;
	return 0;
}

/* Dynamic: attach, map under the lock, move, map again, release. */
static int ut_dmabuf_dynamic(void)
{
	long refs = file_count(ub.dmabuf->file);
	struct ib_umem_dmabuf *u;
	struct dma_resv *resv = ub.dmabuf->resv;
	int attaches = ub.attaches;
	int ret = -EINVAL;

	u = ib_umem_dmabuf_get(ut.dma_dev, UT_OFFSET, UT_SIZE, ub.fd,
			       IB_ACCESS_LOCAL_WRITE, &ut_umem_attach_ops);
	if (KTAP_BAD(!IS_ERR(u), "ib_umem_dmabuf_get: %ld", PTR_ERR(u)))
		return -EINVAL;
	if (KTAP_BAD(u->umem.is_dmabuf && !u->umem.is_odp &&
		     u->umem.writable && u->umem.ibdev == ut.dma_dev &&
		     u->umem.address == UT_OFFSET &&
		     u->umem.length == UT_SIZE && !u->pinned &&
		     !u->umem.iova, "umem fields") ||
	    KTAP_BAD(u->attach && u->attach->importer_priv == u &&
		     u->attach->dmabuf == ub.dmabuf &&
		     ub.attaches == attaches + 1, "attachment") ||
	    KTAP_BAD(!u->sgt && !ub.maps, "mapped at once"))
		goto out;

	dma_resv_lock(resv, NULL);
	ret = ib_umem_dmabuf_map_pages(u);
	if (KTAP_BAD(!ret, "map_pages: %d", ret))
		goto unlock;
	ret = -EINVAL;
	if (ut_dmabuf_check_table(u))
		goto unlock;

	/* The exporter moves the buffer: the driver unmaps. */
	dma_buf_move_notify(ub.dmabuf);
	if (KTAP_BAD(ut_move_notifies == 1 && !u->sgt && ub.unmaps == 1,
		     "move_notify %d sgt %p unmaps %d", ut_move_notifies,
		     u->sgt, ub.unmaps))
		goto unlock;
	ret = ib_umem_dmabuf_map_pages(u);
	if (KTAP_BAD(!ret && ub.maps == 2, "map again: %d, maps %d", ret,
		     ub.maps) || ut_dmabuf_check_table(u)) {
		ret = -EINVAL;
		goto unlock;
	}
	ret = 0;
unlock:
	dma_resv_unlock(resv);
out:
	ib_umem_release(&u->umem);
	if (KTAP_BAD(!ub.mapped && ub.detaches == ub.attaches,
		     "after release: mapped %p, %d attaches %d detaches",
		     ub.mapped, ub.attaches, ub.detaches) ||
	    KTAP_BAD(file_count(ub.dmabuf->file) == refs,
		     "buffer references %ld, %ld before",
		     file_count(ub.dmabuf->file), refs))
		return -EINVAL;
	return ret;
}

/* Pinned: pinned and mapped at once, until release. */
static int ut_dmabuf_pinned(void)
{
	struct ib_umem_dmabuf *u;
	int ret = -EINVAL;

	ub.pins = 0;
	ub.unpins = 0;
	ub.maps = 0;
	ub.unmaps = 0;
	u = ib_umem_dmabuf_get_pinned(ut.dma_dev, UT_OFFSET, UT_SIZE, ub.fd,
				      0);
	if (KTAP_BAD(!IS_ERR(u), "ib_umem_dmabuf_get_pinned: %ld",
		     PTR_ERR(u)))
		return -EINVAL;
	if (KTAP_BAD(u->pinned && !u->umem.writable && ub.pins >= 1 &&
		     ub.maps == 1, "pinned %d pins %d maps %d", u->pinned,
		     ub.pins, ub.maps) ||
	    ut_dmabuf_check_table(u))
		goto out;
	ret = 0;
out:
	ib_umem_release(&u->umem);
	/* 6.1 without CONFIG_DMABUF_MOVE_NOTIFY: each map pins too. */
	if (KTAP_BAD(ub.unmaps == 1 && ub.unpins == ub.pins && !ub.mapped,
		     "after release: unmaps %d, %d pins %d unpins",
		     ub.unmaps, ub.pins, ub.unpins))
		return -EINVAL;
	return ret;
}

/* ---- page sizes, page lists and CQ moderation for drivers ---- */

/* A umem of @n DMA entries of SZ_64K, as the table of a pinned buffer. */
#define UT_SG_LEN	SZ_64K
#define UT_SG_ENTRIES	(SZ_2M / UT_SG_LEN)
#define UT_VIRT		0x7f0000000000ULL

/*
 * Entry i at @dma + i * UT_SG_LEN, but entries from @gap_at on @gap bytes
 * further: a hole in DMA space there.
 */
static struct ib_umem *ut_sg_umem(dma_addr_t dma, unsigned int gap_at,
				  dma_addr_t gap)
{
	struct ib_umem *umem = kzalloc(sizeof(*umem), GFP_KERNEL);
	struct scatterlist *sg;
	unsigned int i;

	if (!umem)
		return NULL;
	if (sg_alloc_table(&umem->sgt_append.sgt, UT_SG_ENTRIES, GFP_KERNEL)) {
		kfree(umem);
		return NULL;
	}
	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, i) {
		sg_dma_address(sg) = dma + i * UT_SG_LEN +
				     (i >= gap_at ? gap : 0);
		sg_dma_len(sg) = UT_SG_LEN;
	}
	umem->address = UT_VIRT;
	umem->length = SZ_2M;
	return umem;
}

static void ut_sg_umem_free(struct ib_umem *umem)
{
	sg_free_table(&umem->sgt_append.sgt);
	kfree(umem);
}

/*
 * A 2 MiB buffer that is one DMA-contiguous range, split in 64 KiB
 * entries (a huge page under a device's maximum segment size): the entries
 * are one block, and a driver offering 2 MiB pages gets them.  With a hole
 * in the middle, the halves are two blocks and 64 KiB is the most.
 */
static int ut_best_pgsz(void)
{
	unsigned long bitmap = SZ_4K | SZ_64K | SZ_2M;
	unsigned long contig, holed;
	struct ib_umem *umem;

	umem = ut_sg_umem(0x40000000, UT_SG_ENTRIES, 0);
	if (!umem)
		return -ENOMEM;
	contig = ib_umem_find_best_pgsz(umem, bitmap, UT_VIRT);
	ut_sg_umem_free(umem);

	umem = ut_sg_umem(0x40000000, UT_SG_ENTRIES / 2, SZ_64K);
	if (!umem)
		return -ENOMEM;
	holed = ib_umem_find_best_pgsz(umem, bitmap, UT_VIRT);
	ut_sg_umem_free(umem);

	ktap_diag("best page size: contiguous %#lx, with a hole %#lx",
		  contig, holed);
	if (KTAP_BAD(contig == SZ_2M, "contiguous: %#lx", contig) ||
	    KTAP_BAD(holed == SZ_64K, "with a hole: %#lx", holed))
		return -EINVAL;
	return 0;
}

static int ut_set_page(struct ib_mr *mr, u64 addr)
{
	return 0;
}

/* Two DMA entries of 8 KiB: an offset must lie in the first one. */
static int ut_sg_offset(void)
{
	struct ib_mr mr = { .page_size = SZ_4K };
	struct scatterlist sgl[2];
	unsigned int offset;
	int past, none, inside;

	sg_init_table(sgl, 2);
	sg_dma_address(&sgl[0]) = 0x40000000;
	sg_dma_len(&sgl[0]) = SZ_8K;
	sg_dma_address(&sgl[1]) = 0x40000000 + SZ_8K;
	sg_dma_len(&sgl[1]) = SZ_8K;

	offset = SZ_8K + 1;
	past = ib_sg_to_pages(&mr, sgl, 2, &offset, ut_set_page);
	offset = 0;
	none = ib_sg_to_pages(&mr, sgl, 0, &offset, ut_set_page);
	offset = SZ_4K;
	inside = ib_sg_to_pages(&mr, sgl, 2, &offset, ut_set_page);
	ktap_diag("ib_sg_to_pages: past entry 0 %d, no entries %d, at 4K %d (length %llu)",
		  past, none, inside, mr.length);
	if (KTAP_BAD(past == -EINVAL, "past the first entry: %d", past) ||
	    KTAP_BAD(none == -EINVAL, "no entries: %d", none) ||
	    KTAP_BAD(inside == 2 && mr.length == SZ_16K - SZ_4K,
		     "offset 4K: %d, length %llu", inside, mr.length))
		return -EINVAL;
	return 0;
}

struct ut_cq {
	struct ib_cq ibcq;
};

static int ut_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			struct ib_udata *udata)
{
	return 0;
}

static int ut_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int ut_poll_cq(struct ib_cq *cq, int num, struct ib_wc *wc)
{
	return 0;
}

static int ut_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int ut_modify_cq(struct ib_cq *cq, u16 count, u16 period)
{
	return 0;
}

static const struct ib_device_ops ut_cq_ops = {
	.create_cq = ut_create_cq,
	.destroy_cq = ut_destroy_cq,
	.poll_cq = ut_poll_cq,
	.req_notify_cq = ut_req_notify_cq,
	.modify_cq = ut_modify_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, ut_cq, ibcq),
};

/* Whether a CQ of @poll_ctx on @dev gets a DIM; < 0 on failure. */
static int ut_cq_has_dim(struct ib_device *dev, enum ib_poll_context poll_ctx)
{
	struct ib_cq *cq;
	int dim;

	cq = ib_alloc_cq(dev, NULL, 16, 0, poll_ctx);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	dim = cq->dim && cq->dim->priv == cq;
	ib_free_cq(cq);
	return dim;
}

/*
 * A device that sets use_cq_dim (and has modify_cq) gets adaptive
 * moderation on its polled CQs, not on a direct one; one that does not
 * set it, none.
 */
static int ut_cq_dim(void)
{
	struct ib_device *dev = _ib_alloc_device(sizeof(struct ib_device));
	int wq, softirq, direct, off;

	if (!dev)
		return -ENOMEM;
	ib_set_device_ops(dev, &ut_cq_ops);
	dev->use_cq_dim = 1;
	wq = ut_cq_has_dim(dev, IB_POLL_WORKQUEUE);
	softirq = ut_cq_has_dim(dev, IB_POLL_SOFTIRQ);
	direct = ut_cq_has_dim(dev, IB_POLL_DIRECT);
	dev->use_cq_dim = 0;
	off = ut_cq_has_dim(dev, IB_POLL_WORKQUEUE);
	ib_dealloc_device(dev);

	ktap_diag("DIM: workqueue %d, softirq %d, direct %d, device without use_cq_dim %d",
		  wq, softirq, direct, off);
	if (KTAP_BAD(wq == 1 && softirq == 1, "polled CQs: %d %d", wq,
		     softirq) ||
	    KTAP_BAD(!direct && !off, "direct %d, without use_cq_dim %d",
		     direct, off))
		return -EINVAL;
	return 0;
}

/* ---- setup ---- */

static int ut_setup(void)
{
	struct platform_device_info info = {
		.name = KBUILD_MODNAME,
		.id = PLATFORM_DEVID_NONE,
		.dma_mask = DMA_BIT_MASK(64),
	};

	ut.pdev = platform_device_register_full(&info);
	if (IS_ERR(ut.pdev))
		return PTR_ERR(ut.pdev);
	ut.virt_dev = _ib_alloc_device(sizeof(struct ib_device));
	ut.dma_dev = _ib_alloc_device(sizeof(struct ib_device));
	if (!ut.virt_dev || !ut.dma_dev)
		return -ENOMEM;
	ut.dma_dev->dma_device = &ut.pdev->dev;
	return 0;
}

static void ut_teardown(void)
{
	if (uo.odp)
		ib_umem_release(&uo.odp->umem);
	if (uo.addr)
		vm_munmap(uo.addr, UT_ODP_PAGES * PAGE_SIZE);
	ut_buf_close();
	if (ut.dma_dev)
		ib_dealloc_device(ut.dma_dev);
	if (ut.virt_dev)
		ib_dealloc_device(ut.virt_dev);
	if (!IS_ERR_OR_NULL(ut.pdev))
		platform_device_unregister(ut.pdev);
}

static int __init umem_test_init(void)
{
	bool ready, odp, buf;

	ktap_plan(UT_NR_CASES);
	ready = !ut_setup();
	if (!ready)
		ktap_diag("setup failed");

	ktap_run("flow resources: alloc, add and free keep the counts and uses",
		 ut_flow_counts, true, "");

	ktap_run("odp: bad ranges and implicit hugetlb are refused",
		 ut_odp_bad_ranges, ready, "no devices");
	odp = ktap_run("odp: ib_umem_odp_get fills the public fields",
		       ut_odp_get, ready, "no devices");
	odp = ktap_run("odp: a fault maps the pages, umem_mutex held",
		       ut_odp_fault, odp, "no ODP umem") && odp;
	ktap_run("odp: the device's and the process's view are the same pages",
		 ut_odp_contents, odp, "nothing mapped");
	ktap_run("odp: a prefetch maps only present pages",
		 ut_odp_prefetch, odp, "nothing mapped");
	odp = ktap_run("odp: munmap invalidates through the notifier",
		       ut_odp_invalidate_munmap, odp, "nothing mapped") && odp;
	ktap_run("odp: memory mapped again is faulted in anew",
		 ut_odp_refault, odp, "no invalidation");
	ktap_run("odp: release removes the notifier", ut_odp_release,
		 uo.odp, "no ODP umem");
	ktap_run("odp: an implicit umem's child maps its range",
		 ut_odp_implicit, ready, "no devices");

	buf = ready && !ut_buf_export();
	if (ready && !buf)
		ktap_diag("exporting a dma-buf failed");
	ktap_run("dmabuf: bad input is refused", ut_dmabuf_bad_input, buf,
		 "no dma-buf");
	ktap_run("dmabuf: a device of virtual DMA is refused",
		 ut_dmabuf_virt_dev, buf && virt_attach,
		 buf ? "stock warns (virt_attach=0)" : "no dma-buf");
	ktap_run("dmabuf: dynamic attach, map, move_notify, map again, release",
		 ut_dmabuf_dynamic, buf, "no dma-buf");
	ktap_run("dmabuf: pinned umem mapped at once until release",
		 ut_dmabuf_pinned, buf, "no dma-buf");

	ktap_run("umem: the best page size merges DMA-contiguous entries",
		 ut_best_pgsz, true, "");
	ktap_run("ib_sg_to_pages: an offset past the first entry is EINVAL",
		 ut_sg_offset, true, "");
	ktap_run("cq: use_cq_dim gives polled CQs their DIM", ut_cq_dim, true,
		 "");

	ut_teardown();
	ktap_all_ran(UT_NR_CASES);
	return 0;
}
module_init(umem_test_init);

static void __exit umem_test_exit(void)
{
}
module_exit(umem_test_exit);

MODULE_DESCRIPTION("Test-only: ODP and dma-buf umems, flow resources");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * On-demand paging umems (struct ib_umem_odp, <rdma/ib_umem_odp.h>): a
 * range of a process's address space that the device reaches without
 * pinning it.  The driver maps pages into the device when the device
 * faults on them (ib_umem_odp_map_dma_and_lock()), and an mmu interval
 * notifier on the range tells it when the CPU page tables change, so
 * that it unmaps them from the device (its invalidate callback calls
 * ib_umem_odp_unmap_dma_pages()) before the pages go away.
 *
 * Nothing is pinned, so nothing is charged to pinned_vm: the core mm may
 * reclaim, migrate or unmap the pages at any time, after invalidating.
 *
 * The public struct is shared with the drivers, which read it:
 *	pfn_list	one hmm pfn per PAGE_SIZE page of the range, written
 *			by hmm_range_fault();
 *	dma_list	one DMA address per 1 << page_shift block, with the
 *			block's access in its low bits (ODP_READ_ALLOWED_BIT,
 *			ODP_WRITE_ALLOWED_BIT); 0 when not mapped;
 *	npages		how many dma_list entries are mapped;
 *	umem_mutex	guards dma_list, npages and the notifier's sequence:
 *			a mapping is only published under it after checking
 *			that no invalidation ran since the pfns were read,
 *			and the driver's invalidate callback takes it to
 *			bump the sequence and unmap;
 *	notifier	its interval is the range rounded out to page_shift
 *			(ib_umem_start(), ib_umem_end());
 *	tgid		the owning process, whose mm is faulted in.
 * umem.iova stays 0, as on stock, until the driver picks its page size
 * with ib_umem_find_best_pgsz().
 *
 * An implicit umem (ib_umem_odp_alloc_implicit()) stands for the whole
 * address space of the process: it has no range, lists or notifier, only
 * the mm and process its children (ib_umem_odp_alloc_child()) share.
 *
 * Every ODP umem holds owning_mm with mmgrab() until it is released, so
 * the mm outlives the umem even after the process exits.
 */
#include <linux/hmm.h>
#include <linux/hugetlb.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

/*
 * Sets up the range of a non-implicit umem whose address, length and
 * page_shift are set: the pfn and DMA lists and the notifier on the range
 * rounded out to page_shift.  The caller holds a reference on owning_mm's
 * users (mmget), as mmu_interval_notifier_insert() needs.
 */
static int umem_odp_init_range(struct ib_umem_odp *umem_odp,
			       const struct mmu_interval_notifier_ops *ops)
{
	struct ib_umem *umem = &umem_odp->umem;
	unsigned long block = BIT(umem_odp->page_shift);
	unsigned long start, end;
	int ret;

	if (!umem->length)
		return -EINVAL;
	if (check_add_overflow(umem->address, (unsigned long)umem->length,
			       &end))
		return -EOVERFLOW;
	start = ALIGN_DOWN(umem->address, block);
	end = ALIGN(end, block);
	/* Rounding up past the top of the address space wraps to 0. */
	if (end <= start)
		return -EOVERFLOW;

	umem_odp->pfn_list = kvcalloc((end - start) >> PAGE_SHIFT,
				      sizeof(*umem_odp->pfn_list),
				      GFP_KERNEL | __GFP_NOWARN);
	umem_odp->dma_list = kvcalloc((end - start) >> umem_odp->page_shift,
				      sizeof(*umem_odp->dma_list),
				      GFP_KERNEL | __GFP_NOWARN);
	if (!umem_odp->pfn_list || !umem_odp->dma_list) {
		ret = -ENOMEM;
		goto err_free;
	}

	ret = mmu_interval_notifier_insert(&umem_odp->notifier,
					   umem->owning_mm, start, end - start,
					   ops);
	if (ret)
		goto err_free;
	return 0;

err_free:
	kvfree(umem_odp->dma_list);
	kvfree(umem_odp->pfn_list);
	umem_odp->dma_list = NULL;
	umem_odp->pfn_list = NULL;
	return ret;
}

/*
 * A new ODP umem of @device in @mm, owned by process @tgid (a reference
 * the umem takes over); address, length and page_shift are the caller's.
 */
static struct ib_umem_odp *umem_odp_alloc(struct ib_device *device,
					  struct mm_struct *mm,
					  struct pid *tgid, bool writable)
{
	struct ib_umem_odp *umem_odp;

	umem_odp = kzalloc(sizeof(*umem_odp), GFP_KERNEL);
	if (!umem_odp) {
		put_pid(tgid);
		return NULL;
	}
	umem_odp->umem.ibdev = device;
	umem_odp->umem.owning_mm = mm;
	umem_odp->umem.writable = writable;
	umem_odp->umem.is_odp = 1;
	umem_odp->page_shift = PAGE_SHIFT;
	umem_odp->tgid = tgid;
	mutex_init(&umem_odp->umem_mutex);
	mmgrab(mm);
	return umem_odp;
}

/* Frees what umem_odp_alloc() made, before any range was set up. */
static void umem_odp_free(struct ib_umem_odp *umem_odp)
{
	mutex_destroy(&umem_odp->umem_mutex);
	put_pid(umem_odp->tgid);
	mmdrop(umem_odp->umem.owning_mm);
	kfree(umem_odp);
}

/**
 * ib_umem_odp_alloc_implicit - an ODP umem for the whole address space
 * @device: the device
 * @access: IB_ACCESS_* flags of the implicit MR (IB_ACCESS_HUGETLB is
 *	refused: children are mapped page by page)
 *
 * The parent of the children the driver makes with
 * ib_umem_odp_alloc_child() for the parts of the address space the device
 * touches.  It has no range and is never mapped.
 *
 * Return: the umem, or ERR_PTR(-EINVAL) (hugetlb access, no mm) or
 * ERR_PTR(-ENOMEM).
 */
struct ib_umem_odp *ib_umem_odp_alloc_implicit(struct ib_device *device,
					       int access)
{
	struct ib_umem_odp *umem_odp;

	if ((access & IB_ACCESS_HUGETLB) || !current->mm)
		return ERR_PTR(-EINVAL);

	umem_odp = umem_odp_alloc(device, current->mm,
				  get_task_pid(current->group_leader,
					       PIDTYPE_PID),
				  ib_access_writable(access));
	if (!umem_odp)
		return ERR_PTR(-ENOMEM);
	umem_odp->is_implicit_odp = 1;
	return umem_odp;
}
EXPORT_SYMBOL(ib_umem_odp_alloc_implicit);

/**
 * ib_umem_odp_alloc_child - an ODP umem for a range under an implicit one
 * @root_umem: the implicit parent; the caller keeps it alive meanwhile
 * @addr: start of the range in the parent's address space
 * @size: length of the range in bytes
 * @ops: the notifier's ops (the driver's invalidate callback)
 *
 * May be called from any context that can sleep (a page fault work item):
 * the range is in the parent's mm, not the current process's.
 *
 * Return: the umem, or ERR_PTR(): -EINVAL for a parent that is not
 * implicit or an empty range, -EOVERFLOW for one that wraps, -EFAULT when
 * the mm has no users any more, -ENOMEM.
 */
struct ib_umem_odp *
ib_umem_odp_alloc_child(struct ib_umem_odp *root_umem, unsigned long addr,
			size_t size,
			const struct mmu_interval_notifier_ops *ops)
{
	struct mm_struct *mm = root_umem->umem.owning_mm;
	struct ib_umem_odp *umem_odp;
	int ret;

	if (WARN_ON(!root_umem->is_implicit_odp))
		return ERR_PTR(-EINVAL);

	umem_odp = umem_odp_alloc(root_umem->umem.ibdev, mm,
				  get_pid(root_umem->tgid),
				  root_umem->umem.writable);
	if (!umem_odp)
		return ERR_PTR(-ENOMEM);
	umem_odp->umem.address = addr;
	umem_odp->umem.length = size;

	/* The notifier needs a live mm; the parent only holds mm_count. */
	if (!mmget_not_zero(mm)) {
		ret = -EFAULT;
		goto err_free;
	}
	ret = umem_odp_init_range(umem_odp, ops);
	mmput(mm);
	if (ret)
		goto err_free;
	return umem_odp;

err_free:
	umem_odp_free(umem_odp);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_umem_odp_alloc_child);

/**
 * ib_umem_odp_get - an ODP umem for a range of the current process
 * @device: the device
 * @addr: user virtual address of the range
 * @size: length of the range in bytes
 * @access: IB_ACCESS_* flags; IB_ACCESS_ON_DEMAND is required, and
 *	IB_ACCESS_HUGETLB maps the range in huge-page blocks
 * @ops: the notifier's ops (the driver's invalidate callback)
 *
 * Nothing is faulted in or mapped yet.
 *
 * Return: the umem, or ERR_PTR(): -EINVAL without IB_ACCESS_ON_DEMAND,
 * for an empty range or without an mm, -EOVERFLOW for a range that wraps,
 * -ENOMEM, or the notifier's error.
 */
struct ib_umem_odp *ib_umem_odp_get(struct ib_device *device,
				    unsigned long addr, size_t size, int access,
				    const struct mmu_interval_notifier_ops *ops)
{
	struct ib_umem_odp *umem_odp;
	int ret;

	if (WARN_ON_ONCE(!(access & IB_ACCESS_ON_DEMAND)) || !current->mm)
		return ERR_PTR(-EINVAL);

	umem_odp = umem_odp_alloc(device, current->mm,
				  get_task_pid(current->group_leader,
					       PIDTYPE_PID),
				  ib_access_writable(access));
	if (!umem_odp)
		return ERR_PTR(-ENOMEM);
	umem_odp->umem.address = addr;
	umem_odp->umem.length = size;
#ifdef CONFIG_HUGETLB_PAGE
	if (access & IB_ACCESS_HUGETLB)
		umem_odp->page_shift = HPAGE_SHIFT;
#endif

	ret = umem_odp_init_range(umem_odp, ops);
	if (ret) {
		umem_odp_free(umem_odp);
		return ERR_PTR(ret);
	}
	return umem_odp;
}
EXPORT_SYMBOL(ib_umem_odp_get);

/**
 * ib_umem_odp_release - unmap and free an ODP umem
 * @umem_odp: the umem
 *
 * The device must no longer use it.  Waits for an invalidation running on
 * the range to finish (mmu_interval_notifier_remove()).
 */
void ib_umem_odp_release(struct ib_umem_odp *umem_odp)
{
	if (!umem_odp->is_implicit_odp) {
		mutex_lock(&umem_odp->umem_mutex);
		ib_umem_odp_unmap_dma_pages(umem_odp, ib_umem_start(umem_odp),
					    ib_umem_end(umem_odp));
		mutex_unlock(&umem_odp->umem_mutex);
		mmu_interval_notifier_remove(&umem_odp->notifier);
		kvfree(umem_odp->dma_list);
		kvfree(umem_odp->pfn_list);
	}
	umem_odp_free(umem_odp);
}
EXPORT_SYMBOL(ib_umem_odp_release);

/*
 * Maps block @idx of the umem, whose first page is @page, with @access
 * (ODP_*_ALLOWED_BIT).  A block still mapped went through no invalidation
 * since, so it is the same page: only its access changes (a read-only
 * block becoming writable after a write fault).
 */
static int umem_odp_map_block(struct ib_umem_odp *umem_odp, unsigned long idx,
			      struct page *page, u64 access)
{
	struct ib_device *dev = umem_odp->umem.ibdev;
	dma_addr_t *entry = &umem_odp->dma_list[idx];
	dma_addr_t dma;

	lockdep_assert_held(&umem_odp->umem_mutex);

	if (*entry) {
		*entry = (*entry & ODP_DMA_ADDR_MASK) | access;
		return 0;
	}
	dma = ib_dma_map_page(dev, page, 0, BIT(umem_odp->page_shift),
			      DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, dma))
		return -EFAULT;
	*entry = dma | access;
	umem_odp->npages++;
	return 0;
}

/*
 * Publishes the pfns hmm_range_fault() read for @range into dma_list.
 * With @fault every pfn is valid and mapped with @access_mask; without, a
 * page not present is left alone and a present one is mapped with the
 * access its page table entry gives.
 *
 * Return: the number of blocks walked, or a negative errno.
 */
static int umem_odp_publish(struct ib_umem_odp *umem_odp,
			    struct hmm_range *range, u64 access_mask,
			    bool fault)
{
	unsigned int shift = umem_odp->page_shift;
	unsigned long first = (range->start - ib_umem_start(umem_odp)) >> shift;
	unsigned long blocks = (range->end - range->start) >> shift;
	unsigned long per_block = BIT(shift - PAGE_SHIFT);
	unsigned long i;
	int ret;

	for (i = 0; i < blocks; i++) {
		unsigned long pfn = range->hmm_pfns[i * per_block];
		u64 access = access_mask;

		if (!fault) {
			if (!(pfn & HMM_PFN_VALID))
				continue;
			access = ODP_READ_ALLOWED_BIT;
			if (pfn & HMM_PFN_WRITE)
				access |= ODP_WRITE_ALLOWED_BIT;
		} else if (WARN_ON(!(pfn & HMM_PFN_VALID) ||
				   (pfn & HMM_PFN_ERROR))) {
			return -EFAULT;
		}
		/* A block may not be larger than the page that backs it. */
		if (hmm_pfn_to_map_order(pfn) + PAGE_SHIFT < shift) {
			ibdev_dbg(umem_odp->umem.ibdev,
				  "ODP block of 2^%u bytes on a page of order %u\n",
				  shift, hmm_pfn_to_map_order(pfn));
			return -EINVAL;
		}
		ret = umem_odp_map_block(umem_odp, first + i,
					 hmm_pfn_to_page(pfn), access);
		if (ret)
			return ret;
	}
	return blocks;
}

/**
 * ib_umem_odp_map_dma_and_lock - fault in and map part of an ODP umem
 * @umem_odp: the umem (not implicit)
 * @start_offset: user virtual address where the part starts (despite the
 *	name, an address inside [ib_umem_start(), ib_umem_end()))
 * @bcnt: bytes from there; the part is rounded out to page_shift blocks
 * @access_mask: ODP_READ_ALLOWED_BIT, with ODP_WRITE_ALLOWED_BIT to fault
 *	in for writing
 * @fault: fault in pages not present; without it only the present ones
 *	are mapped (prefetch), each with the access its PTE gives
 *
 * Reads the owning process's page tables with hmm_range_fault() and, under
 * umem_mutex, retries from the start if an invalidation ran meanwhile;
 * otherwise maps the blocks into dma_list.  On success umem_mutex stays
 * held, so that the driver can write its device page table before an
 * invalidation can unmap the pages again; the driver unlocks it.
 *
 * Return: the number of blocks of the part, with umem_mutex held; or, not
 * held, -EINVAL for an empty @access_mask or a process or mm that is gone,
 * -EFAULT for a part outside the umem or a page the device may not reach,
 * hmm_range_fault()'s error (-EBUSY after HMM_RANGE_DEFAULT_TIMEOUT of
 * retries).
 */
int ib_umem_odp_map_dma_and_lock(struct ib_umem_odp *umem_odp, u64 start_offset,
				 u64 bcnt, u64 access_mask, bool fault)
{
	struct mm_struct *mm = umem_odp->umem.owning_mm;
	unsigned long block = BIT(umem_odp->page_shift);
	struct hmm_range range = {};
	struct task_struct *owner;
	unsigned long deadline;
	u64 end;
	int ret;

	if (!access_mask)
		return -EINVAL;
	if (check_add_overflow(start_offset, bcnt, &end) ||
	    start_offset < ib_umem_start(umem_odp) ||
	    end > ib_umem_end(umem_odp))
		return -EFAULT;

	/* The mm may outlive the process; then there is nobody to fault. */
	owner = get_pid_task(umem_odp->tgid, PIDTYPE_PID);
	if (!owner)
		return -EINVAL;
	if (!mmget_not_zero(mm)) {
		ret = -EINVAL;
		goto out_task;
	}

	range.notifier = &umem_odp->notifier;
	range.start = ALIGN_DOWN(start_offset, block);
	range.end = ALIGN(end, block);
	range.hmm_pfns = umem_odp->pfn_list +
			 ((range.start - ib_umem_start(umem_odp)) >> PAGE_SHIFT);
	if (fault) {
		range.default_flags = HMM_PFN_REQ_FAULT;
		if (access_mask & ODP_WRITE_ALLOWED_BIT)
			range.default_flags |= HMM_PFN_REQ_WRITE;
	}
	deadline = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);

	for (;;) {
		range.notifier_seq = mmu_interval_read_begin(range.notifier);
		mmap_read_lock(mm);
		ret = hmm_range_fault(&range);
		mmap_read_unlock(mm);
		if (ret == -EBUSY && time_before(jiffies, deadline))
			continue;
		if (ret)
			goto out_mm;

		mutex_lock(&umem_odp->umem_mutex);
		/* An invalidation since the read: the pfns may be stale. */
		if (!mmu_interval_read_retry(range.notifier,
					     range.notifier_seq))
			break;
		mutex_unlock(&umem_odp->umem_mutex);
	}

	ret = umem_odp_publish(umem_odp, &range, access_mask, fault);
	if (ret < 0)
		mutex_unlock(&umem_odp->umem_mutex);

out_mm:
	/* Maybe the last user: mmput_async() does not tear it down here. */
	mmput_async(mm);
out_task:
	put_task_struct(owner);
	return ret;
}
EXPORT_SYMBOL(ib_umem_odp_map_dma_and_lock);

/**
 * ib_umem_odp_unmap_dma_pages - unmap the blocks of a range of an ODP umem
 * @umem_odp: the umem; the caller holds umem_mutex
 * @start_offset: user virtual address where the range starts
 * @bound: user virtual address where it ends (exclusive)
 *
 * The range is clipped to the umem.  Blocks mapped writable have their
 * (head) pages marked dirty: the device may have written them.  The driver
 * must have removed the blocks from the device first.
 */
void ib_umem_odp_unmap_dma_pages(struct ib_umem_odp *umem_odp, u64 start_offset,
				 u64 bound)
{
	struct ib_device *dev = umem_odp->umem.ibdev;
	unsigned int shift = umem_odp->page_shift;
	u64 start = max_t(u64, start_offset, ib_umem_start(umem_odp));
	u64 end = min_t(u64, bound, ib_umem_end(umem_odp));
	struct page *page;
	u64 addr;

	lockdep_assert_held(&umem_odp->umem_mutex);

	for (addr = ALIGN_DOWN(start, BIT(shift)); addr < end;
	     addr += BIT(shift)) {
		u64 off = addr - ib_umem_start(umem_odp);
		dma_addr_t entry = umem_odp->dma_list[off >> shift];

		if (!entry)
			continue;
		ib_dma_unmap_page(dev, entry & ODP_DMA_ADDR_MASK, BIT(shift),
				  DMA_BIDIRECTIONAL);
		/*
		 * The page may not be locked (notifiers run either way);
		 * umem_mutex keeps the mapping from being torn down under us.
		 */
		if (entry & ODP_WRITE_ALLOWED_BIT) {
			page = hmm_pfn_to_page(umem_odp->pfn_list[off >>
								  PAGE_SHIFT]);
			set_page_dirty(compound_head(page));
		}
		umem_odp->dma_list[off >> shift] = 0;
		umem_odp->npages--;
	}
}
EXPORT_SYMBOL(ib_umem_odp_unmap_dma_pages);

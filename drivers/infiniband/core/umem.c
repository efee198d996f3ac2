// SPDX-License-Identifier: GPL-2.0-only
/*
 * User memory for RDMA (struct ib_umem): a range of a process's address
 * space pinned for the lifetime of an MR, CQ or queue buffer, described by
 * a scatter-gather table and mapped for the device's DMA.
 *
 * Every pinned page is charged to the owning mm's pinned_vm, against
 * RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK, until the umem is
 * released; the umem holds the mm (mmgrab) so it can uncharge it even when
 * it is released from another context after the process exited.
 *
 * The scatter-gather table always covers whole pages: the first entry
 * starts at offset 0 of the first page and ib_umem_offset() gives where
 * the user's range begins in it, which is what the inline iterators and
 * ib_umem_dma_offset() in <rdma/ib_umem.h> assume.
 */
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

/* Pages pinned (and charged) for @umem: fixed by address and length. */
static unsigned long umem_pinned_pages(const struct ib_umem *umem)
{
	return DIV_ROUND_UP(offset_in_page(umem->address) + umem->length,
			    PAGE_SIZE);
}

static int umem_charge(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

static void umem_uncharge(struct mm_struct *mm, unsigned long npages)
{
	atomic64_sub(npages, &mm->pinned_vm);
}

/* Unpin every page of the table, marking them dirty if @dirty. */
static void umem_unpin_pages(struct ib_umem *umem, bool dirty)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, i)
		unpin_user_page_range_dirty_lock(sg_page(sg),
						 DIV_ROUND_UP(sg->length,
							      PAGE_SIZE),
						 dirty);
}

/*
 * Pin @npages pages from @umem->address, a page-array page worth at a
 * time, appending each batch to the table.  On failure the pages pinned
 * so far are in the table (the caller unpins them).
 */
static int umem_pin_pages(struct ib_umem *umem, unsigned long npages,
			  unsigned int gup_flags)
{
	const unsigned long batch_max = PAGE_SIZE / sizeof(struct page *);
	unsigned int max_seg = ib_dma_max_seg_size(umem->ibdev);
	unsigned long start = umem->address & PAGE_MASK;
	struct page **pages;
	int ret = 0;

	pages = (struct page **)__get_free_page(GFP_KERNEL);
	if (!pages)
		return -ENOMEM;

	while (npages) {
		unsigned long batch = min(npages, batch_max);
		int pinned;

		cond_resched();
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		pinned = pin_user_pages_fast(start, batch, gup_flags, pages);
		if (pinned <= 0) {
			ret = pinned ? pinned : -EFAULT;
			break;
		}

		ret = sg_alloc_append_table_from_pages(&umem->sgt_append, pages,
						       pinned, 0,
						       (unsigned long)pinned <<
						       PAGE_SHIFT, max_seg,
						       npages - pinned,
						       GFP_KERNEL);
		if (ret) {
			unpin_user_pages(pages, pinned);
			break;
		}
		start += (unsigned long)pinned << PAGE_SHIFT;
		npages -= pinned;
	}

	free_page((unsigned long)pages);
	return ret;
}

/**
 * ib_umem_get - pin and DMA-map a range of the current process's memory
 * @device: the device that will access the memory
 * @addr: user virtual address of the range
 * @size: length of the range in bytes
 * @access: IB_ACCESS_* flags; the umem is writable, and its pages are
 *	marked dirty on release, when the device may write them
 *	(ib_access_writable())
 *
 * Return: the umem, or ERR_PTR(): -EINVAL for an empty range or one that
 * wraps around the address space, -EOPNOTSUPP for IB_ACCESS_ON_DEMAND,
 * -EPERM when the process may not lock memory at all, -ENOMEM beyond
 * RLIMIT_MEMLOCK or out of memory, -EFAULT (or pin_user_pages_fast()'s
 * error) when the range is not mapped as required, -EINTR on a fatal
 * signal, -EIO when the DMA mapping fails.
 */
struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access)
{
	unsigned int gup_flags = FOLL_LONGTERM | FOLL_WRITE;
	struct ib_umem *umem;
	unsigned long npages;
	unsigned long end;
	int ret;

	if (access & IB_ACCESS_ON_DEMAND)
		return ERR_PTR(-EOPNOTSUPP);
	if (!size || check_add_overflow(addr, (unsigned long)size, &end) ||
	    PAGE_ALIGN(end) < end)
		return ERR_PTR(-EINVAL);
	if (!can_do_mlock())
		return ERR_PTR(-EPERM);

	umem = kzalloc(sizeof(*umem), GFP_KERNEL);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	umem->ibdev = device;
	umem->address = addr;
	umem->iova = addr;
	umem->length = size;
	umem->writable = ib_access_writable(access);
	umem->owning_mm = current->mm;
	mmgrab(umem->owning_mm);

	npages = umem_pinned_pages(umem);
	ret = umem_charge(umem->owning_mm, npages);
	if (ret)
		goto err_mm;

	/*
	 * Every pin is a write pin, as on the 6.1 stock kernel: 6.1 does not
	 * break COW for a read-only long-term pin of a page that is not
	 * anonymous, so one would take whatever the page table maps now (the
	 * shared zero page of memory never written, the page cache of a
	 * private file mapping) and the device would keep reading it after
	 * the process has written its own copy.  A write fault gives the
	 * process its own page first, so the pinned page is the one it goes
	 * on using.  FOLL_FORCE lets a read-only umem pin memory the process
	 * may not write (a PROT_READ private mapping) the way ptrace does: a
	 * private copy, never a write to a shared mapping (GUP refuses that
	 * with -EFAULT).
	 */
	if (!umem->writable)
		gup_flags |= FOLL_FORCE;

	ret = umem_pin_pages(umem, npages, gup_flags);
	if (ret)
		goto err_unpin;

	ret = ib_dma_map_sgtable_attrs(device, &umem->sgt_append.sgt,
				       DMA_BIDIRECTIONAL,
				       (access & IB_ACCESS_RELAXED_ORDERING) ?
				       DMA_ATTR_WEAK_ORDERING : 0);
	if (ret)
		goto err_unpin;
	return umem;

err_unpin:
	umem_unpin_pages(umem, false);
	sg_free_append_table(&umem->sgt_append);
	umem_uncharge(umem->owning_mm, npages);
err_mm:
	mmdrop(umem->owning_mm);
	kfree(umem);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_umem_get);

/**
 * ib_umem_release - unmap, unpin and free a umem
 * @umem: the umem, or NULL (nothing to do)
 *
 * A umem from ib_umem_get(): the pages are marked dirty if the umem was
 * writable; the mm's pinned_vm is uncharged.  A dma-buf or ODP umem goes
 * to its own release (umem_dmabuf.c, umem_odp.c): drivers release every
 * kind through here.  May be called from any process context.
 */
void ib_umem_release(struct ib_umem *umem)
{
	if (!umem)
		return;
	if (umem->is_dmabuf) {
		ib_umem_dmabuf_release(to_ib_umem_dmabuf(umem));
		return;
	}
	if (umem->is_odp) {
		ib_umem_odp_release(to_ib_umem_odp(umem));
		return;
	}

	ib_dma_unmap_sgtable_attrs(umem->ibdev, &umem->sgt_append.sgt,
				   DMA_BIDIRECTIONAL, 0);
	/* The device may have written to any page it could write to. */
	umem_unpin_pages(umem, umem->writable);
	sg_free_append_table(&umem->sgt_append);
	umem_uncharge(umem->owning_mm, umem_pinned_pages(umem));
	mmdrop(umem->owning_mm);
	kfree(umem);
}
EXPORT_SYMBOL(ib_umem_release);

/**
 * ib_umem_copy_from - copy bytes out of a umem
 * @dst: kernel destination buffer
 * @umem: the umem
 * @offset: offset in the user's range (from umem->address)
 * @length: bytes to copy
 *
 * Return: 0, or -EINVAL when [@offset, @offset + @length) is not inside
 * the umem.
 */
int ib_umem_copy_from(void *dst, struct ib_umem *umem, size_t offset,
		      size_t length)
{
	struct sg_table *sgt = &umem->sgt_append.sgt;
	size_t end;

	if (check_add_overflow(offset, length, &end) || end > umem->length)
		return -EINVAL;

	if (sg_pcopy_to_buffer(sgt->sgl, sgt->orig_nents, dst, length,
			       offset + ib_umem_offset(umem)) != length)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL(ib_umem_copy_from);

/**
 * ib_umem_find_best_pgsz - largest device page size able to map a umem
 * @umem: the umem
 * @pgsz_bitmap: page sizes the device supports (bit n = 2^n bytes); must
 *	include PAGE_SIZE or a smaller size
 * @virt: the I/O virtual address the device will use for the umem's
 *	start; stored in umem->iova
 *
 * The entries are taken in runs of DMA-contiguous ones: a run is one
 * block however the table split it (by the device's maximum segment size,
 * say), so a huge page mapped in 64 KiB entries still fits a 2 MiB page.
 * A page size fits when every boundary between runs lands on a multiple
 * of it in the IOVA, the IOVA and the DMA address agree below it at the
 * start of every run, and it is not larger than needed to cover the IOVA
 * range.  An ODP umem has no table yet: only its own block size
 * (1 << page_shift) fits it.
 *
 * Return: the page size, or 0 when none in @pgsz_bitmap fits.
 */
unsigned long ib_umem_find_best_pgsz(struct ib_umem *umem,
				     unsigned long pgsz_bitmap, u64 virt)
{
	struct sg_table *sgt = &umem->sgt_append.sgt;
	unsigned long offset = ib_umem_offset(umem);
	unsigned long misalign = 0;
	dma_addr_t run_end = 0;
	struct scatterlist *sg;
	unsigned long covering;
	u64 iova = virt;
	unsigned int i;
	u64 last;

	/* An ODP umem has no table: it is mapped in blocks of page_shift. */
	if (umem->is_odp) {
		unsigned long block = BIT(to_ib_umem_odp(umem)->page_shift);

		umem->iova = virt;
		return (pgsz_bitmap & block) ? block : 0;
	}

	if (WARN_ON(!(pgsz_bitmap & GENMASK(PAGE_SHIFT, 0))))
		return 0;

	umem->iova = virt;
	/* An IOVA range that wraps has no page size (stock: 0 too). */
	if (check_add_overflow((u64)umem->length - 1, virt, &last))
		return 0;

	/*
	 * Pages larger than the smallest one that covers the whole IOVA
	 * range on its own would only add padding.
	 */
	covering = pgsz_bitmap &
		   GENMASK(BITS_PER_LONG - 1, bits_per(last ^ virt));
	if (covering)
		pgsz_bitmap &= GENMASK(__ffs(covering), 0);

	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t dma = sg_dma_address(sg);

		/* A new run: a page starts here, at its IOVA. */
		if (i == 0 || dma != run_end) {
			misalign |= (dma + offset) ^ iova;
			if (i)
				misalign |= iova;
		}
		run_end = dma + sg_dma_len(sg);
		iova += sg_dma_len(sg) - offset;
		offset = 0;
	}

	if (misalign)
		pgsz_bitmap &= GENMASK(__ffs(misalign), 0);
	return pgsz_bitmap ? rounddown_pow_of_two(pgsz_bitmap) : 0;
}
EXPORT_SYMBOL(ib_umem_find_best_pgsz);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * On-demand paging MRs (IB_ACCESS_ON_DEMAND): a range of a process's
 * memory that rxe reaches without pinning it.  The core's ib_umem_odp
 * (umem_odp.c) holds the range, faults pages in (hmm) and keeps one
 * entry per block in dma_list: for rxe, whose DMA addresses are kernel
 * addresses (virt DMA), the block's kernel address with its access in
 * the low bits, 0 when not mapped.  An mmu interval notifier tells us
 * when the process's page tables change, and we unmap the blocks before
 * the pages can go.
 *
 * The engine runs in softirq context too: it never faults.  It copies
 * under mr->lock, from blocks that are mapped, and returns -EAGAIN when
 * one is not; the role that missed then asks for a fault
 * (rxe_odp_fault_start()), which runs in a work item, and
 *  - the responder holds the request (or the READ response it was
 *    building) and handles it again when the fault is done, the
 *    requests behind it waiting in its queue: no answer on the wire,
 *    so no request is lost on UC and UD either;
 *  - the requester leaves the WQE where it stood and goes on when the
 *    fault is done;
 *  - the completer drops the READ response or atomic acknowledgment it
 *    could not place and, when the fault is done, sends again from the
 *    oldest PSN not acknowledged, as after an RNR NAK.
 * A fault that fails (the range no longer mapped in the process, the
 * process gone) turns the next miss of the side into the error an
 * unmapped page of a pinned MR would give.
 *
 * Locking.  odp->umem_mutex (the core's) serialises the faults'
 * publishing of blocks and the invalidations.  mr->lock guards the
 * data path's reading of dma_list against the invalidation's unmapping:
 * the invalidation marks its range (odp_inval_start/end) under mr->lock,
 * so that a copy either finished before or sees the mark, unmaps under
 * umem_mutex alone (setting pages dirty may take locks of its own), and
 * clears the mark.  A fault publishes entries under umem_mutex only: an
 * entry becomes valid with one store, and a reader that sees it may use
 * it until the next invalidation, which waits for mr->lock.
 *
 * Only explicit ODP: the implicit MR of the whole address space is
 * refused (-EOPNOTSUPP), and the device does not report it.
 */
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <rdma/ib_umem_odp.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_odp.h"
#include "rxe_verbs.h"

/* One fault faults at most this much of a range: the rest on a later miss. */
#define RXE_ODP_FAULT_MAX	SZ_8M

static struct ib_umem_odp *rxe_mr_odp(struct rxe_mr *mr)
{
	return to_ib_umem_odp(mr->umem);
}

/* The process's address of byte @iova of @mr (the range is checked). */
static u64 rxe_odp_user_va(struct rxe_mr *mr, u64 iova)
{
	return mr->umem->address + (iova - mr->iova);
}

static bool rxe_odp_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	unsigned long start, end;
	struct rxe_mr *mr;

	/* umem_mutex sleeps; the caller retries what it could not do. */
	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max(range->start, ib_umem_start(odp));
	end = min(range->end, ib_umem_end(odp));
	if (start >= end)
		goto out;
	/* NULL until the registration is far enough to map anything. */
	mr = odp->private;
	if (mr) {
		/* Whole blocks: those are what the unmapping takes away. */
		spin_lock_bh(&mr->lock);
		mr->odp_inval_start = ALIGN_DOWN(start, BIT(odp->page_shift));
		mr->odp_inval_end = ALIGN(end, BIT(odp->page_shift));
		spin_unlock_bh(&mr->lock);
	}
	ib_umem_odp_unmap_dma_pages(odp, start, end);
	if (mr) {
		spin_lock_bh(&mr->lock);
		mr->odp_inval_start = 0;
		mr->odp_inval_end = 0;
		spin_unlock_bh(&mr->lock);
	}
out:
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops rxe_odp_mni_ops = {
	.invalidate = rxe_odp_invalidate,
};

struct ib_mr *rxe_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 iova, int access)
{
	struct rxe_dev *rxe = to_rdev(ibpd->device);
	struct ib_umem_odp *odp;
	struct rxe_mr *mr;

	/* The implicit MR: the whole address space. */
	if (!start && length == U64_MAX)
		return ERR_PTR(-EOPNOTSUPP);
	/* Byte iova + i is byte start + i, in the same block (atomics). */
	if (offset_in_page(start) != offset_in_page(iova))
		return ERR_PTR(-EINVAL);

	odp = ib_umem_odp_get(ibpd->device, start, length, access,
			      &rxe_odp_mni_ops);
	if (IS_ERR(odp))
		return ERR_CAST(odp);

	mr = rxe_mr_alloc(ibpd, RXE_MR_ODP, access);
	if (IS_ERR(mr)) {
		ib_umem_odp_release(odp);
		return ERR_CAST(mr);
	}
	mr->umem = &odp->umem;
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = BIT(odp->page_shift);

	mutex_lock(&odp->umem_mutex);
	odp->private = mr;
	mutex_unlock(&odp->umem_mutex);

	rxe_mr_publish(rxe, mr);
	return &mr->ibmr;
}

/*
 * The kernel address of byte @iova of ODP @mr, mapped (for writing with
 * @write), or NULL.  Valid until mr->lock is dropped, within the block.
 */
void *rxe_odp_addr(struct rxe_mr *mr, u64 iova, bool write)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	unsigned int shift = odp->page_shift;
	u64 need = ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
	u64 va = rxe_odp_user_va(mr, iova);
	dma_addr_t entry;

	lockdep_assert_held(&mr->lock);

	if (va >= mr->odp_inval_start && va < mr->odp_inval_end)
		return NULL;
	entry = READ_ONCE(odp->dma_list[(va - ib_umem_start(odp)) >> shift]);
	if ((entry & need) != need)
		return NULL;
	return (void *)(uintptr_t)(entry & ODP_DMA_ADDR_MASK) +
	       (va & (BIT(shift) - 1));
}

/* Whether every block of the range is mapped; under mr->lock. */
static bool rxe_odp_range_mapped(struct rxe_mr *mr, u64 iova, u32 len,
				 bool write)
{
	unsigned long block = BIT(rxe_mr_odp(mr)->page_shift);
	u64 at;

	for (at = iova; at < iova + len; at = ALIGN_DOWN(at, block) + block)
		if (!rxe_odp_addr(mr, at, write))
			return false;
	return true;
}

int rxe_odp_mapped(struct rxe_mr *mr, u64 iova, u32 len, bool write)
{
	int err = 0;

	if (mr->kind != RXE_MR_ODP)
		return 0;
	spin_lock_bh(&mr->lock);
	if (rxe_mr_in_range(mr, iova, len) &&
	    !rxe_odp_range_mapped(mr, iova, len, write))
		err = -EAGAIN;
	spin_unlock_bh(&mr->lock);
	return err;
}

int rxe_odp_copy(struct rxe_mr *mr, u64 iova, void *addr, u32 len,
		 bool to_mr)
{
	unsigned long block = BIT(rxe_mr_odp(mr)->page_shift);
	u64 at, end = iova + len;
	unsigned int n;
	int err = 0;
	void *va;

	spin_lock_bh(&mr->lock);
	if (mr->state != RXE_MR_VALID || !rxe_mr_in_range(mr, iova, len)) {
		err = -EFAULT;
		goto out;
	}
	/* All of it first: a miss leaves nothing half copied. */
	if (!rxe_odp_range_mapped(mr, iova, len, to_mr)) {
		err = -EAGAIN;
		goto out;
	}
	for (at = iova; at < end; at += n) {
		va = rxe_odp_addr(mr, at, to_mr);
		n = min_t(u64, end - at, block - (at & (block - 1)));
		if (to_mr)
			memcpy(va, addr, n);
		else
			memcpy(addr, va, n);
		addr += n;
	}
out:
	spin_unlock_bh(&mr->lock);
	return err;
}

/* Faults in [@iova, @iova + @len) of ODP @mr.  Process context. */
static int rxe_odp_fault_mr(struct rxe_mr *mr, u64 iova, u32 len)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	u64 access = ODP_READ_ALLOWED_BIT;
	int ret;

	if (!rxe_mr_in_range(mr, iova, len))
		return -EFAULT;
	/*
	 * Writable if the MR is, whatever this miss needed: a block mapped
	 * again for reading only would lose its write bit, and with it the
	 * dirtying of a page written through it before.
	 */
	if (mr->umem->writable)
		access |= ODP_WRITE_ALLOWED_BIT;
	ret = ib_umem_odp_map_dma_and_lock(odp, rxe_odp_user_va(mr, iova),
					   min_t(u32, len, RXE_ODP_FAULT_MAX),
					   access, true);
	if (ret < 0)
		return ret;
	mutex_unlock(&odp->umem_mutex);
	return 0;
}

/* Faults in one range of the side's QP; a range not of an ODP MR is left. */
static int rxe_odp_fault_range(struct rxe_odp_fault *f,
			       const struct rxe_odp_range *r)
{
	struct rxe_qp *qp = f->qp;
	u64 va = r->va;
	struct rxe_mr *mr;
	int err = 0;

	if (!r->len)
		return 0;
	if (r->remote)
		mr = rxe_rkey_resolve(qp, r->key, &va, r->len, 0);
	else
		mr = rxe_mr_lookup_lkey(to_rpd(qp->ibqp.pd), r->key, 0);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	if (mr->kind == RXE_MR_ODP)
		err = rxe_odp_fault_mr(mr, va, r->len);
	rxe_mr_put(mr);
	return err;
}

static void rxe_odp_fault_work(struct work_struct *work)
{
	struct rxe_odp_fault *f = container_of(work, struct rxe_odp_fault,
					       work);
	struct rxe_qp *qp = f->qp;
	unsigned int i;
	int err = 0;

	for (i = 0; i < f->nr && !err; i++)
		err = rxe_odp_fault_range(f, &f->ranges[i]);
	if (err)
		ibdev_dbg(qp->ibqp.device, "QP %u: ODP fault: %d\n",
			  qp->ibqp.qp_num, err);
	WRITE_ONCE(f->err, err);
	/* The ranges and err are ours until the bit is clear. */
	clear_bit_unlock(RXE_ODP_FAULT_BUSY, &f->flags);
	if (f->done)
		f->done(qp);
	rxe_qp_put(qp);
}

void rxe_odp_fault_init(struct rxe_odp_fault *f, struct rxe_qp *qp,
			void (*done)(struct rxe_qp *qp))
{
	INIT_WORK(&f->work, rxe_odp_fault_work);
	f->qp = qp;
	f->done = done;
}

void rxe_odp_fault_start(struct rxe_odp_fault *f,
			 const struct rxe_odp_range *ranges, unsigned int nr)
{
	if (test_and_set_bit_lock(RXE_ODP_FAULT_BUSY, &f->flags))
		return;
	f->nr = min_t(unsigned int, nr, ARRAY_SIZE(f->ranges));
	memcpy(f->ranges, ranges, f->nr * sizeof(*ranges));
	f->err = 0;
	rxe_qp_get(f->qp);
	queue_work(system_unbound_wq, &f->work);
}

void rxe_odp_fault_sgl(struct rxe_odp_fault *f,
		       const struct rxe_dma_info *dma, u32 cur_sge,
		       u32 sge_offset)
{
	struct rxe_odp_range ranges[RXE_MAX_SGE];
	u32 i, off = sge_offset;
	unsigned int nr = 0;

	for (i = cur_sge; i < dma->num_sge && nr < RXE_MAX_SGE; i++) {
		const struct rxe_sge *sge = &dma->sge[i];

		if (sge->length > off) {
			ranges[nr].key = sge->lkey;
			ranges[nr].va = sge->addr + off;
			ranges[nr].len = sge->length - off;
			ranges[nr].remote = false;
			nr++;
		}
		off = 0;
	}
	rxe_odp_fault_start(f, ranges, nr);
}

int rxe_odp_fault_error(struct rxe_odp_fault *f)
{
	if (test_bit(RXE_ODP_FAULT_BUSY, &f->flags))
		return 0;
	return xchg(&f->err, 0);
}

void rxe_odp_fault_stop(struct rxe_odp_fault *f)
{
	/* Pending: its QP reference goes with it.  Running: waited for. */
	if (cancel_work_sync(&f->work))
		rxe_qp_put(f->qp);
}

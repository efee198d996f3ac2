// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions.  A key is the MR's index shifted left by 8, ORed with
 * a random 8-bit tag: a key of a freed MR is unlikely to match the MR
 * that reuses the index.  The rkey is the lkey when remote access is
 * granted, 0 otherwise.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

#define RXE_REMOTE_ACCESS	(IB_ACCESS_REMOTE_READ |	\
				 IB_ACCESS_REMOTE_WRITE |	\
				 IB_ACCESS_REMOTE_ATOMIC)

static struct rxe_mr *rxe_mr_alloc(struct rxe_dev *rxe, enum rxe_mr_kind kind,
				   int access)
{
	struct rxe_mr *mr;
	u32 key;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	err = rxe_index_alloc(&rxe->mr_index, mr, &mr->index, GFP_KERNEL);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}

	mr->ibmr.device = &rxe->ib_dev;
	mr->kind = kind;
	mr->access = access;
	key = mr->index << RXE_KEY_INDEX_SHIFT |
	      (get_random_u32() & RXE_KEY_TAG_MASK);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = (access & RXE_REMOTE_ACCESS) ? key : 0;
	return mr;
}

static void rxe_mr_free(struct rxe_dev *rxe, struct rxe_mr *mr)
{
	rxe_index_free(&rxe->mr_index, mr->index);
	kfree(mr);
}

/* All of memory, for kernel ULPs. */
struct ib_mr *rxe_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct rxe_mr *mr;

	mr = rxe_mr_alloc(to_rdev(ibpd->device), RXE_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	return &mr->ibmr;
}

struct ib_mr *rxe_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibpd->device);
	struct ib_umem *umem;
	struct rxe_mr *mr;
	int err;

	/* Remote write or atomic without local write, unknown flags. */
	err = ib_check_mr_access(ibpd->device, access);
	if (err)
		return ERR_PTR(err);
	if (!length)
		return ERR_PTR(-EINVAL);

	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);

	mr = rxe_mr_alloc(rxe, RXE_MR_USER, access);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}

	mr->umem = umem;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	return &mr->ibmr;
}

int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	ib_umem_release(mr->umem);
	rxe_mr_free(to_rdev(ibmr->device), mr);
	return 0;
}

struct rxe_mr *rxe_mr_lookup_lkey(struct rxe_pd *pd, u32 lkey, int access)
{
	return ERR_PTR(-EINVAL);
}

struct rxe_mr *rxe_rkey_resolve(struct rxe_qp *qp, u32 rkey, u64 va, u32 len,
				int access)
{
	return ERR_PTR(-EINVAL);
}

void rxe_mr_get(struct rxe_mr *mr)
{
}

void rxe_mr_put(struct rxe_mr *mr)
{
}

int rxe_mr_copy(struct rxe_mr *mr, u64 iova, void *addr, u32 len,
		enum rxe_copy_dir dir)
{
	return -EFAULT;
}

int rxe_copy_sgl(struct rxe_pd *pd, int access, struct rxe_dma_info *dma,
		 void *addr, u32 len, enum rxe_copy_dir dir)
{
	return -EINVAL;
}

int rxe_mr_atomic(struct rxe_mr *mr, u64 iova, u8 opcode, u64 comp,
		  u64 swap_add, u64 *orig)
{
	return -EINVAL;
}

int rxe_mr_fast_reg(struct rxe_qp *qp, const struct rxe_send_wqe *wqe)
{
	return -EINVAL;
}

int rxe_invalidate_key(struct rxe_qp *qp, u32 key, bool remote)
{
	return -EINVAL;
}

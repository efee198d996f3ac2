// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions, and the memory side of the protocol engine: keys to
 * MRs, bounds, copies, atomics, fast registration and invalidation.
 *
 * A key is the MR's index shifted left by 8, ORed with an 8-bit tag
 * (random at creation; the consumer's own for fast registration): a
 * key of a freed MR is unlikely to match the MR that reuses the index.
 * The rkey is the lkey when remote access is granted, 0 otherwise.
 *
 * Birth: the index is reserved empty and the MR published there only
 * once it is complete (rxe_mr_publish()): a packet with a guessed key
 * never finds an MR whose pages or bounds are still being set.
 *
 * Lifetime: the data path looks an MR up by index under the xarray's
 * lock and takes a reference there; deregistration removes the index
 * under the same lock, so no new reference can start, then drops its
 * own and waits for the others before the pages and the MR go.  Nothing
 * may therefore keep an MR reference for longer than the handling of a
 * packet or a work request.
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_pack.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_ibta15.h"
#include "rxe_odp.h"
#include "rxe_verbs.h"

#define RXE_REMOTE_ACCESS	(IB_ACCESS_REMOTE_READ |	\
				 IB_ACCESS_REMOTE_WRITE |	\
				 IB_ACCESS_REMOTE_ATOMIC)

static u32 rxe_key_index(u32 key)
{
	return key >> RXE_KEY_INDEX_SHIFT;
}

struct rxe_mr *rxe_mr_alloc(struct ib_pd *ibpd, enum rxe_mr_kind kind,
			    int access)
{
	struct rxe_dev *rxe = to_rdev(ibpd->device);
	struct rxe_mr *mr;
	u32 key;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	refcount_set(&mr->ref, 1);
	init_completion(&mr->ref_done);
	spin_lock_init(&mr->lock);
	atomic_set(&mr->num_mw, 0);
	mr->ibmr.device = &rxe->ib_dev;
	/* The core sets it too, but only after the key is published. */
	mr->ibmr.pd = ibpd;
	mr->kind = kind;
	mr->access = access;
	mr->state = kind == RXE_MR_FAST ? RXE_MR_FREE : RXE_MR_VALID;

	/* Reserved empty: rxe_mr_publish() stores the MR once complete. */
	err = rxe_index_alloc(&rxe->mr_index, NULL, &mr->index, GFP_KERNEL);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}

	key = mr->index << RXE_KEY_INDEX_SHIFT |
	      (get_random_u32() & RXE_KEY_TAG_MASK);
	mr->lkey = key;
	/* A fast-reg MR gets its access with each registration. */
	mr->rkey = (kind == RXE_MR_FAST || (access & RXE_REMOTE_ACCESS)) ?
		   key : 0;
	WRITE_ONCE(mr->ibmr.lkey, mr->lkey);
	WRITE_ONCE(mr->ibmr.rkey, mr->rkey);
	return mr;
}

/* The data path may find @mr from now on: it must be complete. */
void rxe_mr_publish(struct rxe_dev *rxe, struct rxe_mr *mr)
{
	rxe_index_publish(&rxe->mr_index, mr->index, mr);
}

/*
 * Unpublishes @mr and waits until no packet or WQE uses it.  The
 * memory of struct rxe_mr outlives a grace period: a lookup that found
 * it just before, under RCU alone, may still try for a reference
 * (rxe_mr_get_by_key()).
 */
static void rxe_mr_free(struct rxe_dev *rxe, struct rxe_mr *mr)
{
	rxe_index_free(&rxe->mr_index, mr->index);
	rxe_mr_put(mr);
	wait_for_completion(&mr->ref_done);

	ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->buf);
	kfree_rcu(mr, rcu);
}

/*
 * A window is being bound to @mr: counts it, unless deregistration has
 * begun (rxe_dereg_mr()).  False then: the bind fails.
 */
bool rxe_mr_bind_mw(struct rxe_mr *mr)
{
	return atomic_inc_unless_negative(&mr->num_mw);
}

void rxe_mr_get(struct rxe_mr *mr)
{
	refcount_inc(&mr->ref);
}

void rxe_mr_put(struct rxe_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->ref_done);
}

/*
 * A referenced MR by the index of @key, or NULL.  Any context, and no
 * lock: every key of every packet and WQE comes here.  An MR found as
 * it is being deregistered is still memory (rxe_mr_free() frees it
 * after a grace period); its count, zero once deregistration no longer
 * waits for it, then refuses the reference.
 */
static struct rxe_mr *rxe_mr_get_by_key(struct rxe_dev *rxe, u32 key)
{
	struct rxe_mr *mr;

	rcu_read_lock();
	mr = xa_load(&rxe->mr_index.xa, rxe_key_index(key));
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/* All of memory, for kernel ULPs. */
struct ib_mr *rxe_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct rxe_mr *mr;

	mr = rxe_mr_alloc(ibpd, RXE_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	rxe_mr_publish(to_rdev(ibpd->device), mr);
	return &mr->ibmr;
}

/* The pinned pages of @umem, in order, for kmap_local_page(). */
static int rxe_mr_fill_pages(struct rxe_mr *mr, struct ib_umem *umem)
{
	struct sg_page_iter iter;
	unsigned int n = ib_umem_num_pages(umem), i = 0;

	mr->pages = kvmalloc_array(n, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;

	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (i == n)
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	if (i != n)
		return -EFAULT;
	mr->npages = n;
	mr->page_shift = PAGE_SHIFT;
	mr->page_off = ib_umem_offset(umem);
	return 0;
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
	if (!length || iova + length < iova)
		return ERR_PTR(-EINVAL);
	if (access & IB_ACCESS_ON_DEMAND)
		return rxe_odp_reg_user_mr(ibpd, start, length, iova, access);
	/*
	 * Byte iova + i is byte start + i (rxe_mr_fill_pages()): with the
	 * same offset in a page, an aligned iova is an aligned kernel
	 * address (atomics).  uverbs checks this; in-kernel callers of
	 * ib_reg_user_mr() come here unchecked.
	 */
	if (offset_in_page(start) != offset_in_page(iova))
		return ERR_PTR(-EINVAL);

	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);

	mr = rxe_mr_alloc(ibpd, RXE_MR_USER, access);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}

	mr->umem = umem;
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	err = rxe_mr_fill_pages(mr, umem);
	if (err) {
		rxe_mr_free(rxe, mr);
		return ERR_PTR(err);
	}
	rxe_mr_publish(rxe, mr);
	return &mr->ibmr;
}

int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	/*
	 * IBTA 10.6.7.2.6: not while memory windows are bound to it.  One
	 * step, against rxe_mr_bind_mw(): a bind that looked the MR up
	 * before this unpublishes it then fails, instead of leaving a
	 * window holding a reference that rxe_mr_free() waits for, with
	 * no way left to unbind it (the task would wait for ever).
	 */
	int bound = atomic_cmpxchg(&mr->num_mw, 0, RXE_MR_NUM_MW_DEAD);

	/* Dead already: replaced by a REREG_MR (rxe_rereg_user_mr()). */
	if (bound && bound != RXE_MR_NUM_MW_DEAD)
		return -EBUSY;

	rxe_mr_free(to_rdev(ibmr->device), mr);
	return 0;
}

/*
 * REREG_MR (IBTA 11.2.8.6, "Reregister Memory Region").  Not while a
 * window is bound to the MR.  A new PD or new access applies in place,
 * under mr->lock, where each key's lookup checks them (a packet already
 * past its check finishes as it began): the keys stay, but for the rkey
 * that remote access grants or takes away.  A new translation, or write
 * access to pages pinned read-only, needs other pinned pages: a new MR,
 * with new keys, that the core puts behind the handle before it
 * deregisters this one, which waits out every packet still using the
 * old pages.  Dead meanwhile (RXE_MR_NUM_MW_DEAD), this one binds no
 * window.  Returns NULL when done in place.
 */
struct ib_mr *rxe_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 iova, int access,
				struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rxe_mr *mr = to_rmr(ibmr);
	struct ib_pd *pd = flags & IB_MR_REREG_PD ? ibpd : ibmr->pd;
	struct ib_mr *new;
	int err = 0;

	if (mr->kind != RXE_MR_USER)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;

	if ((flags & IB_MR_REREG_TRANS) ||
	    (ib_access_writable(access) && !mr->umem->writable)) {
		if (!(flags & IB_MR_REREG_TRANS)) {
			start = mr->umem->address;
			length = mr->length;
			iova = mr->iova;
		}
		if (atomic_cmpxchg(&mr->num_mw, 0, RXE_MR_NUM_MW_DEAD))
			return ERR_PTR(-EBUSY);
		new = rxe_reg_user_mr(pd, start, length, iova, access, udata);
		if (IS_ERR(new))
			atomic_set(&mr->num_mw, 0);
		return new;
	}

	spin_lock_bh(&mr->lock);
	if (atomic_read(&mr->num_mw)) {
		err = -EBUSY;
	} else {
		mr->access = access;
		mr->rkey = access & RXE_REMOTE_ACCESS ? mr->lkey : 0;
		WRITE_ONCE(mr->ibmr.rkey, mr->rkey);
		mr->ibmr.pd = pd;
	}
	spin_unlock_bh(&mr->lock);
	return err ? ERR_PTR(err) : NULL;
}

/* For kernel ULPs: an MR whose pages each I/O sets (IB_WR_REG_MR). */
struct ib_mr *rxe_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct rxe_dev *rxe = to_rdev(ibpd->device);
	struct rxe_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > rxe->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	mr = rxe_mr_alloc(ibpd, RXE_MR_FAST, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	mr->buf = kcalloc(max_num_sg, sizeof(*mr->buf), GFP_KERNEL);
	if (!mr->buf) {
		rxe_mr_free(rxe, mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	rxe_mr_publish(rxe, mr);
	return &mr->ibmr;
}

static int rxe_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->buf[mr->npages++] = addr;
	return 0;
}

/*
 * The page list of the next registration, from a scatterlist the ULP
 * mapped with the device's (virtual) DMA: its addresses are kernel
 * virtual addresses.  The registration itself (rxe_mr_fast_reg()) takes
 * iova, length and page size as this leaves them in the ib_mr.
 */
int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	spin_lock_bh(&mr->lock);
	mr->npages = 0;
	spin_unlock_bh(&mr->lock);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, rxe_mr_set_page);
}

/*
 * [@iova, @iova + @len) lies inside the MR, computed without overflow.
 * A DMA MR spans all of memory.
 */
bool rxe_mr_in_range(const struct rxe_mr *mr, u64 iova, u64 len)
{
	u64 off;

	if (mr->kind == RXE_MR_DMA)
		return iova + len >= iova;
	if (iova < mr->iova)
		return false;
	off = iova - mr->iova;
	return off <= mr->length && len <= mr->length - off;
}

static bool rxe_mr_access_ok(const struct rxe_mr *mr, int access)
{
	return (mr->access & access) == access;
}

struct rxe_mr *rxe_mr_lookup_lkey(struct rxe_pd *pd, u32 lkey, int access)
{
	struct rxe_mr *mr;
	int err = -EINVAL;

	mr = rxe_mr_get_by_key(pd->rxe, lkey);
	if (!mr)
		return ERR_PTR(-EINVAL);

	spin_lock_bh(&mr->lock);
	if (mr->lkey != lkey || mr->ibmr.pd != &pd->ibpd ||
	    mr->state != RXE_MR_VALID)
		goto err;
	err = -EACCES;
	if (!rxe_mr_access_ok(mr, access))
		goto err;
	spin_unlock_bh(&mr->lock);
	return mr;

err:
	spin_unlock_bh(&mr->lock);
	rxe_mr_put(mr);
	return ERR_PTR(err);
}

/* Checks a referenced MR for a remote key; 0 or a negative errno. */
static int rxe_mr_check_remote(struct rxe_mr *mr, struct ib_pd *pd, u32 rkey,
			       u64 va, u32 len, int access)
{
	int err = -EINVAL;

	spin_lock_bh(&mr->lock);
	if (!rkey || mr->rkey != rkey || mr->ibmr.pd != pd ||
	    mr->state != RXE_MR_VALID)
		goto out;
	err = -EACCES;
	if (!rxe_mr_access_ok(mr, access))
		goto out;
	err = rxe_mr_in_range(mr, va, len) ? 0 : -ERANGE;
out:
	spin_unlock_bh(&mr->lock);
	return err;
}

struct rxe_mr *rxe_rkey_resolve(struct rxe_qp *qp, u32 rkey, u64 *va, u32 len,
				int access)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	u32 index = rxe_key_index(rkey);
	struct rxe_mr *mr;
	int err;

	if (index >= RXE_MIN_MW_INDEX)
		return rxe_mw_resolve(qp, rkey, va, len, access);

	mr = rxe_mr_get_by_key(rxe, rkey);
	if (!mr)
		return ERR_PTR(-EINVAL);
	err = rxe_mr_check_remote(mr, qp->ibqp.pd, rkey, *va, len, access);
	if (err) {
		rxe_mr_put(mr);
		return ERR_PTR(err);
	}
	return mr;
}

/*
 * The kernel address of byte @off (from the start of the first page or
 * block) of a user or fast-reg MR, and how many bytes follow it in the
 * same page or block; NULL past the page list.  A user page is mapped
 * with kmap_local_page(): unmap with rxe_mr_unmap().
 */
static void *rxe_mr_map(struct rxe_mr *mr, u64 off, unsigned int *avail)
{
	u64 idx = off >> mr->page_shift;
	unsigned int in = off & ((1ULL << mr->page_shift) - 1);

	if (idx >= mr->npages)
		return NULL;
	*avail = (1U << mr->page_shift) - in;
	if (mr->kind == RXE_MR_USER)
		return kmap_local_page(mr->pages[idx]) + in;
	return (void *)(uintptr_t)mr->buf[idx] + in;
}

static void rxe_mr_unmap(struct rxe_mr *mr, void *va)
{
	if (mr->kind == RXE_MR_USER)
		kunmap_local(va);
}

static void rxe_copy(void *mem, void *addr, u32 len, enum rxe_copy_dir dir)
{
	if (dir == RXE_TO_MR)
		memcpy(mem, addr, len);
	else
		memcpy(addr, mem, len);
}

/* Copies through the pages; the range has been checked. */
static int rxe_mr_copy_pages(struct rxe_mr *mr, u64 iova, void *addr, u32 len,
			     enum rxe_copy_dir dir)
{
	u64 off = iova - mr->iova + mr->page_off;
	unsigned int avail, n;
	void *va;

	while (len) {
		va = rxe_mr_map(mr, off, &avail);
		if (!va)
			return -EFAULT;
		n = min(len, avail);
		rxe_copy(va, addr, n, dir);
		rxe_mr_unmap(mr, va);
		off += n;
		addr += n;
		len -= n;
	}
	return 0;
}

int rxe_mr_copy(struct rxe_mr *mr, u64 iova, void *addr, u32 len,
		enum rxe_copy_dir dir)
{
	int err;

	if (!len)
		return 0;

	switch (mr->kind) {
	case RXE_MR_DMA:
		rxe_copy((void *)(uintptr_t)iova, addr, len, dir);
		return 0;
	case RXE_MR_USER:
		/* Fixed for the MR's life: no lock. */
		if (!rxe_mr_in_range(mr, iova, len))
			return -EFAULT;
		return rxe_mr_copy_pages(mr, iova, addr, len, dir);
	case RXE_MR_ODP:
		return rxe_odp_copy(mr, iova, addr, len, dir == RXE_TO_MR);
	default:
		/* A registration must not change the pages under us. */
		spin_lock_bh(&mr->lock);
		err = -EFAULT;
		if (mr->state == RXE_MR_VALID && rxe_mr_in_range(mr, iova, len))
			err = rxe_mr_copy_pages(mr, iova, addr, len, dir);
		spin_unlock_bh(&mr->lock);
		return err;
	}
}

/* The SGE of @dma to go on from (exhausted ones skipped); NULL at the end. */
static struct rxe_sge *rxe_sgl_cur(struct rxe_dma_info *dma)
{
	while (dma->cur_sge < dma->num_sge) {
		if (dma->sge_offset < dma->sge[dma->cur_sge].length)
			return &dma->sge[dma->cur_sge];
		dma->cur_sge++;
		dma->sge_offset = 0;
	}
	return NULL;
}

static void rxe_sgl_advance(struct rxe_dma_info *dma, u32 n)
{
	dma->sge_offset += n;
	dma->resid -= min(dma->resid, n);
}

/*
 * The next run of at most @len bytes of @dma's scatter list that lies in
 * one SGE: its MR (referenced, its lkey resolved in @pd for @access), its
 * address in *@iova and its length in *@n.  ERR_PTR(-ENOSPC) past the
 * list.  The caller moves on with rxe_sgl_advance(dma, *@n).
 */
static struct rxe_mr *rxe_sgl_next(struct rxe_pd *pd, int access,
				   struct rxe_dma_info *dma, u32 len,
				   u64 *iova, u32 *n)
{
	struct rxe_sge *sge = rxe_sgl_cur(dma);

	if (!sge)
		return ERR_PTR(-ENOSPC);
	*n = min(len, sge->length - dma->sge_offset);
	*iova = sge->addr + dma->sge_offset;
	return rxe_mr_lookup_lkey(pd, sge->lkey, access);
}

int rxe_copy_sgl(struct rxe_pd *pd, int access, struct rxe_dma_info *dma,
		 void *addr, u32 len, enum rxe_copy_dir dir)
{
	struct rxe_mr *mr;
	u64 iova;
	u32 n;
	int err;

	while (len) {
		mr = rxe_sgl_next(pd, access, dma, len, &iova, &n);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		err = rxe_mr_copy(mr, iova, addr, n, dir);
		rxe_mr_put(mr);
		if (err)
			return err;
		rxe_sgl_advance(dma, n);
		addr += n;
		len -= n;
	}
	return 0;
}

int rxe_mr_attach(struct rxe_mr *mr, u64 iova, u32 len, struct sk_buff *skb)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	u64 off = iova - mr->iova + mr->page_off;
	unsigned int in, n;
	struct page *page;

	/* A user MR's pages are fixed for its life: no lock. */
	if (mr->kind != RXE_MR_USER)
		return -EOPNOTSUPP;
	if (!rxe_mr_in_range(mr, iova, len))
		return -EFAULT;

	while (len) {
		if ((off >> PAGE_SHIFT) >= mr->npages)
			return -EFAULT;
		/* One fragment is kept for rxe_end_packet_ref(). */
		if (shinfo->nr_frags >= MAX_SKB_FRAGS - 1)
			return -EMSGSIZE;
		page = mr->pages[off >> PAGE_SHIFT];
		in = offset_in_page(off);
		n = min_t(u32, len, PAGE_SIZE - in);
		get_page(page);
		skb_add_rx_frag(skb, shinfo->nr_frags, page, in, n, n);
		off += n;
		len -= n;
	}
	return 0;
}

int rxe_attach_sgl(struct rxe_pd *pd, struct rxe_dma_info *dma, u32 len,
		   struct sk_buff *skb)
{
	struct rxe_mr *mr;
	u64 iova;
	u32 n;
	int err;

	while (len) {
		mr = rxe_sgl_next(pd, 0, dma, len, &iova, &n);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		err = rxe_mr_attach(mr, iova, n, skb);
		rxe_mr_put(mr);
		if (err)
			return err;
		rxe_sgl_advance(dma, n);
		len -= n;
	}
	return 0;
}

/* Where a piece of a received payload goes (rxe_pkt_for_each_piece()). */
struct rxe_pkt_sink {
	struct rxe_pd		*pd;
	struct rxe_dma_info	*dma;	/* through a scatter list, or */
	struct rxe_mr		*mr;	/* into a range of an MR */
	u64			iova;
};

static int rxe_pkt_sink_piece(struct rxe_pkt_sink *sink, void *addr, u32 len)
{
	int err;

	if (!len)
		return 0;
	if (sink->dma)
		return rxe_copy_sgl(sink->pd, IB_ACCESS_LOCAL_WRITE, sink->dma,
				    addr, len, RXE_TO_MR);
	err = rxe_mr_copy(sink->mr, sink->iova, addr, len, RXE_TO_MR);
	sink->iova += len;
	return err;
}

/*
 * Hands the payload of @pkt to @sink piece by piece, in order: what is in
 * the linear part (all of it, unless sent by reference), then the page
 * fragments, each page mapped for its copy.
 */
static int rxe_pkt_to_sink(struct rxe_pkt_info *pkt, struct rxe_pkt_sink *sink)
{
	struct sk_buff *skb = rxe_pkt_skb(pkt);
	u8 *start = rxe_payload_addr(pkt);
	u32 left = rxe_payload_size(pkt);
	u32 n, p_off, p_len, done;
	const skb_frag_t *frag;
	struct page *p;
	void *va;
	int i, err;

	n = min_t(u32, left, skb_tail_pointer(skb) - start);
	err = rxe_pkt_sink_piece(sink, start, n);
	if (err)
		return err;
	left -= n;

	for (i = 0; left && i < skb_shinfo(skb)->nr_frags; i++) {
		frag = &skb_shinfo(skb)->frags[i];
		n = min(left, skb_frag_size(frag));
		skb_frag_foreach_page(frag, skb_frag_off(frag), n, p, p_off,
				      p_len, done) {
			va = kmap_local_page(p);
			err = rxe_pkt_sink_piece(sink, va + p_off, p_len);
			kunmap_local(va);
			if (err)
				return err;
		}
		left -= n;
	}
	/* rxe_rcv() checked the lengths: the payload is all there. */
	return left ? -EFAULT : 0;
}

int rxe_copy_pkt_to_sgl(struct rxe_pd *pd, struct rxe_dma_info *dma,
			struct rxe_pkt_info *pkt)
{
	struct rxe_pkt_sink sink = { .pd = pd, .dma = dma };

	return rxe_pkt_to_sink(pkt, &sink);
}

int rxe_copy_pkt_to_mr(struct rxe_mr *mr, u64 iova, struct rxe_pkt_info *pkt)
{
	struct rxe_pkt_sink sink = { .mr = mr, .iova = iova };

	return rxe_pkt_to_sink(pkt, &sink);
}

/*
 * IBTA atomics are 8 bytes, aligned, atomic with respect to every other
 * access through the HCA (here: every CPU), in host byte order in
 * memory.  An ATOMIC WRITE (IBTA 1.5, @opcode RXE_OPCODE_RC_ATOMIC_WRITE)
 * stores @swap_add as it came, bytes in wire order, and returns nothing
 * in *@orig.
 */
int rxe_mr_atomic(struct rxe_mr *mr, u64 iova, u8 opcode, u64 comp,
		  u64 swap_add, u64 *orig)
{
	unsigned int avail;
	int err = -EFAULT;
	u64 *va;

	if (iova & 7)
		return -EINVAL;

	spin_lock_bh(&mr->lock);
	if (mr->state != RXE_MR_VALID || !rxe_mr_in_range(mr, iova, 8))
		goto out;

	if (mr->kind == RXE_MR_DMA) {
		va = (u64 *)(uintptr_t)iova;
	} else if (mr->kind == RXE_MR_ODP) {
		va = rxe_odp_addr(mr, iova, true);
		if (!va) {
			err = -EAGAIN;
			goto out;
		}
	} else {
		va = rxe_mr_map(mr, iova - mr->iova + mr->page_off, &avail);
	}
	if (!va)
		goto out;

	/*
	 * The kernel address too: the iova's alignment carries over only
	 * if the MR's pages or blocks start aligned, which nothing but
	 * the registration's rules ensures.  Misaligned, the operation
	 * would not be atomic (a split lock) and could run past the page
	 * or block mapped.  Aligned 8 bytes never straddle one.
	 */
	if ((uintptr_t)va & 7) {
		rxe_mr_unmap(mr, va);
		err = -EINVAL;
		goto out;
	}
	/* The RC opcode, or the operation alone: the low 5 bits. */
	if (opcode == RXE_OPCODE_RC_ATOMIC_WRITE)
		/* Seen whole, and after every WRITE placed before it. */
		atomic64_set_release((atomic64_t *)va, swap_add);
	else if ((opcode & 0x1f) == IB_OPCODE_COMPARE_SWAP)
		*orig = cmpxchg64(va, comp, swap_add);
	else
		*orig = atomic64_fetch_add(swap_add, (atomic64_t *)va);
	rxe_mr_unmap(mr, va);
	err = 0;
out:
	spin_unlock_bh(&mr->lock);
	return err;
}

/*
 * IB_WR_REG_MR: registers the page list map_mr_sg left in the MR under
 * the WQE's key (only its tag may differ from the MR's) and access.
 * IBTA 10.6.3.2: only an MR not currently registered, of the QP's PD.
 */
int rxe_mr_fast_reg(struct rxe_qp *qp, const struct rxe_send_wqe *wqe)
{
	struct rxe_mr *mr = to_rmr(wqe->wr.wr.reg.mr);
	u32 key = wqe->wr.wr.reg.key;
	int access = wqe->wr.wr.reg.access;
	int err = -EINVAL;

	if (mr->kind != RXE_MR_FAST || mr->ibmr.pd != qp->ibqp.pd ||
	    mr->ibmr.device != qp->ibqp.device)
		return -EINVAL;

	spin_lock_bh(&mr->lock);
	if (mr->state != RXE_MR_FREE ||
	    rxe_key_index(key) != rxe_key_index(mr->ibmr.lkey))
		goto out;
	if (!mr->ibmr.page_size || !is_power_of_2(mr->ibmr.page_size))
		goto out;

	mr->access = access;
	mr->iova = mr->ibmr.iova;
	mr->length = mr->ibmr.length;
	mr->page_shift = ilog2(mr->ibmr.page_size);
	mr->page_off = mr->ibmr.iova & (mr->ibmr.page_size - 1);
	mr->lkey = key;
	mr->rkey = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->state = RXE_MR_VALID;
	err = 0;
out:
	spin_unlock_bh(&mr->lock);
	return err;
}

static int rxe_mr_invalidate(struct rxe_qp *qp, u32 key, bool remote)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	struct rxe_mr *mr;
	int err = -EINVAL;

	mr = rxe_mr_get_by_key(rxe, key);
	if (!mr)
		return -EINVAL;

	spin_lock_bh(&mr->lock);
	if ((remote ? mr->rkey : mr->lkey) != key ||
	    mr->ibmr.pd != qp->ibqp.pd || mr->kind != RXE_MR_FAST ||
	    atomic_read(&mr->num_mw) > 0)
		goto out;
	mr->state = RXE_MR_FREE;
	err = 0;
out:
	spin_unlock_bh(&mr->lock);
	rxe_mr_put(mr);
	return err;
}

/* IB_WR_LOCAL_INV, or a SEND with invalidate (@remote). */
int rxe_invalidate_key(struct rxe_qp *qp, u32 key, bool remote)
{
	if (rxe_key_index(key) >= RXE_MIN_MW_INDEX)
		return rxe_mw_invalidate(qp, key, remote);
	return rxe_mr_invalidate(qp, key, remote);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * User CQs: libirdma allocates the ring and its 64-byte shadow area,
 * registers each as a memory region of type CQ (mr.c pins them), then
 * creates the CQ naming both by address; the ring size it asks for is
 * already the device's (twice the entries plus one, for extended
 * entries).  libirdma polls and arms the CQ itself, through its memory
 * and the doorbell page; the kernel only creates and destroys it.
 *
 * The device writes up to size entries of 32 bytes into the ring: the
 * registration must hold them all, or it would write past the pinned
 * pages.
 *
 * Resizing (libirdma's CQ_RESIZE feature) gives the device a new ring,
 * registered the same way; libirdma drains the old one itself and takes
 * the new ring's size from the CQ's cqe, which is therefore the ring's
 * size in entries, as libirdma asked for it.
 *
 * Facts: include/uapi/rdma/irdma-abi.h (irdma_create_cq_req/resp),
 * rdma-core's providers/irdma (ucreate_cq: the two registrations, the
 * size it passes), the E810 scoping §3.3-§3.4.
 */
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

#define IRDMA_HW_PAGE		SZ_4K

/* A registered page's bus address, with VA's offset in the page. */
static dma_addr_t irdma_ring_mem_addr(struct irdma_ring_mem *m, u32 page,
				      u64 va)
{
	return m->pages[page] + (va & (IRDMA_HW_PAGE - 1));
}

/* RING, at VA, for SIZE entries: is it large enough and well placed? */
static bool irdma_cq_ring_ok(struct irdma_ring_mem *ring, u64 va, u32 size)
{
	if ((u64)size * IRDMA_CQE_SIZE > (u64)ring->cq_pages * IRDMA_HW_PAGE ||
	    va & (IRDMA_CQE_SIZE - 1))
		return false;
	/* Listed pages are whole: the ring starts at the first's start. */
	return ring->cq_pages == 1 ||
	       (ring->pble.n && !(va & (IRDMA_HW_PAGE - 1)));
}

static void irdma_cq_set_ring(struct irdma_cq *cq, struct irdma_ring_mem *ring,
			      u64 va, u32 size)
{
	cq->uring = ring;
	cq->size = size;
	/* One page, or many listed in PBLEs (level 1). */
	cq->virt = ring->cq_pages > 1;
	cq->first_pble = cq->virt ? ring->pble.idx : 0;
	cq->ring_pa = cq->virt ? 0 : irdma_ring_mem_addr(ring, 0, va);
}

int irdma_user_cq_create(struct irdma_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	struct irdma_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct irdma_ucontext, ibuc);
	struct irdma_create_cq_req req = {};
	struct irdma_ring_mem *ring, *shadow;
	int err;

	if (udata->inlen < offsetofend(struct irdma_create_cq_req, user_cq_buf) ||
	    udata->outlen < sizeof(struct irdma_create_cq_resp))
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, min(sizeof(req), udata->inlen));
	if (err)
		return err;

	ring = irdma_ring_mem_take(uc, IRDMA_MEMREG_TYPE_CQ, req.user_cq_buf);
	if (!ring)
		return -EPROTO;
	err = -EINVAL;
	if (!irdma_cq_ring_ok(ring, req.user_cq_buf, attr->cqe))
		goto put_ring;

	shadow = irdma_ring_mem_take(uc, IRDMA_MEMREG_TYPE_CQ,
				     req.user_shadow_area);
	if (!shadow) {
		err = -EPROTO;
		goto put_ring;
	}
	if (req.user_shadow_area & (IRDMA_SHADOW_SIZE - 1) ||
	    (req.user_shadow_area & (IRDMA_HW_PAGE - 1)) + IRDMA_SHADOW_SIZE >
	    IRDMA_HW_PAGE)
		goto put_shadow;

	irdma_cq_set_ring(cq, ring, req.user_cq_buf, attr->cqe);
	cq->ushadow = shadow;
	cq->shadow_pa = irdma_ring_mem_addr(shadow, 0, req.user_shadow_area);
	return 0;

put_shadow:
	irdma_ring_mem_put(shadow);
put_ring:
	irdma_ring_mem_put(ring);
	return err;
}

void irdma_user_cq_free(struct irdma_cq *cq)
{
	irdma_ring_mem_put(cq->ushadow);
	irdma_ring_mem_put(cq->uring);
	cq->ushadow = NULL;
	cq->uring = NULL;
}

int irdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibcq->device);
	struct irdma_cq *cq = to_icq(ibcq);
	struct irdma_resize_cq_req req = {};
	struct irdma_ring_mem *ring, *old = cq->uring;
	struct irdma_ucontext *uc;
	int err;

	/* Kernel CQs are sized for their consumers once. */
	if (!udata || !cq->uring)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > IRDMA_MAX_CQ_RING ||
	    udata->inlen < sizeof(req))
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, sizeof(req));
	if (err)
		return err;
	uc = rdma_udata_to_drv_context(udata, struct irdma_ucontext, ibuc);
	ring = irdma_ring_mem_take(uc, IRDMA_MEMREG_TYPE_CQ,
				   req.user_cq_buffer);
	if (!ring)
		return -EPROTO;
	if (!irdma_cq_ring_ok(ring, req.user_cq_buffer, cqe)) {
		irdma_ring_mem_put(ring);
		return -EINVAL;
	}
	irdma_cq_set_ring(cq, ring, req.user_cq_buffer, cqe);
	err = irdma_cq_hw(dev, cq, IRDMA_CQP_OP_MODIFY_CQ, IRDMA_CQ_HDR_RESIZE);
	if (err) {
		/* The device still writes the old ring; the old size is cqe. */
		irdma_cq_set_ring(cq, old, old->va, ibcq->cqe);
		irdma_ring_mem_put(ring);
		return err;
	}
	/* The device writes the new ring only: the old one may go. */
	irdma_ring_mem_put(old);
	ibcq->cqe = cqe;
	return 0;
}

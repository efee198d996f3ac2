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
	if ((u64)attr->cqe * IRDMA_CQE_SIZE >
	    (u64)ring->cq_pages * IRDMA_HW_PAGE ||
	    req.user_cq_buf & (IRDMA_CQE_SIZE - 1))
		goto put_ring;
	/* Listed pages are whole: the ring starts at the first's start. */
	if (ring->cq_pages > 1 &&
	    (!ring->pble.n || req.user_cq_buf & (IRDMA_HW_PAGE - 1)))
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

	cq->uring = ring;
	cq->ushadow = shadow;
	cq->size = attr->cqe;
	/* One page, or many listed in PBLEs (level 1). */
	if (ring->cq_pages > 1) {
		cq->virt = true;
		cq->first_pble = ring->pble.idx;
	} else {
		cq->ring_pa = irdma_ring_mem_addr(ring, 0, req.user_cq_buf);
	}
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

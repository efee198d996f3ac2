// SPDX-License-Identifier: GPL-2.0-only
/*
 * User contexts: what libirdma learns of the device (its limits and
 * features, ABI 5), and the one page of BAR0 it may map, the PE's user
 * doorbell page, where it rings its QPs' send queues (the QP's number
 * at +0) and arms its CQs (the CQ's number at +64).  Nothing else of
 * BAR0 is ever mapped to user space.
 *
 * libirdma 44 sends the 8-byte request and takes the 64-byte answer;
 * newer ones add a comp_mask asking for "raw attributes" (create_qp
 * then takes work request counts rather than ring depths).  A 16-byte
 * answer is the i40iw layout of generation 1, which this device is not.
 *
 * Facts: include/uapi/rdma/irdma-abi.h; the E810 scoping §3.1-§3.2.
 */
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

#define IRDMA_FEATURE_RTS_AE		BIT_ULL(0)
#define IRDMA_FEATURE_CQ_RESIZE		BIT_ULL(1)
#define IRDMA_MIN_USER_VER		4
#define IRDMA_LEGACY_RESP_LEN		16
#define IRDMA_MAX_SQ_CHUNK		8
#define IRDMA_MIN_CQ_SIZE		1
#define IRDMA_MAX_CQ_SIZE		1048575
#define IRDMA_HW_REV_GEN2		2

struct irdma_db_entry {
	struct rdma_user_mmap_entry rdma;
	phys_addr_t addr;
};

int irdma_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibuc->device);
	struct irdma_ucontext *uc = to_iuc(ibuc);
	struct irdma_alloc_ucontext_resp resp = {};
	struct irdma_alloc_ucontext_req req = {};
	struct irdma_db_entry *db;
	int err;

	if (udata->inlen < offsetofend(struct irdma_alloc_ucontext_req,
				       rsvd8) ||
	    udata->outlen < IRDMA_LEGACY_RESP_LEN)
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, min(sizeof(req), udata->inlen));
	if (err)
		return err;
	if (req.userspace_ver < IRDMA_MIN_USER_VER ||
	    req.userspace_ver > IRDMA_ABI_VER)
		return -EINVAL;
	/* Generation 1's answer: libirdma would drive this as an X722. */
	if (udata->outlen == IRDMA_LEGACY_RESP_LEN)
		return -EOPNOTSUPP;
	if (udata->inlen >= offsetofend(struct irdma_alloc_ucontext_req,
					comp_mask))
		uc->raw_attrs = req.comp_mask & IRDMA_ALLOC_UCTX_USE_RAW_ATTR;

	spin_lock_init(&uc->regs_lock);
	INIT_LIST_HEAD(&uc->qp_regs);
	INIT_LIST_HEAD(&uc->cq_regs);

	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!db)
		return -ENOMEM;
	db->addr = pci_resource_start(to_pci_dev(dev->dma), 0) +
		   IRDMA_DB_PAGE_OFFSET;
	err = rdma_user_mmap_entry_insert(ibuc, &db->rdma, PAGE_SIZE);
	if (err) {
		kfree(db);
		return err;
	}
	uc->db = &db->rdma;

	resp.max_pds = dev->max_pd;
	resp.max_qps = dev->max_qp;
	resp.wq_size = IRDMA_MAX_QP_WR * 2;
	resp.kernel_ver = req.userspace_ver;
	resp.feature_flags = IRDMA_FEATURE_RTS_AE | IRDMA_FEATURE_CQ_RESIZE;
	resp.db_mmap_key = rdma_user_mmap_get_offset(uc->db);
	resp.max_hw_wq_frags = IRDMA_MAX_SGE;
	resp.max_hw_read_sges = IRDMA_MAX_SGE;
	resp.max_hw_inline = IRDMA_MAX_INLINE;
	resp.max_hw_rq_quanta = IRDMA_MAX_WQ_QUANTA;
	resp.max_hw_wq_quanta = IRDMA_MAX_WQ_QUANTA;
	resp.min_hw_cq_size = IRDMA_MIN_CQ_SIZE;
	resp.max_hw_cq_size = IRDMA_MAX_CQ_SIZE;
	resp.max_hw_sq_chunk = IRDMA_MAX_SQ_CHUNK;
	resp.hw_rev = IRDMA_HW_REV_GEN2;
	resp.comp_mask = IRDMA_ALLOC_UCTX_USE_RAW_ATTR;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err) {
		rdma_user_mmap_entry_remove(uc->db);
		uc->db = NULL;
	}
	return err;
}

void irdma_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct irdma_ucontext *uc = to_iuc(ibuc);

	irdma_ring_mem_release_all(uc);
	rdma_user_mmap_entry_remove(uc->db);
}

/* The doorbell page, uncached; the only thing a context maps. */
int irdma_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e;
	struct irdma_db_entry *db;
	int err;

	e = rdma_user_mmap_entry_get(ibuc, vma);
	if (!e)
		return -EINVAL;
	db = container_of(e, struct irdma_db_entry, rdma);
	err = rdma_user_mmap_io(ibuc, vma, PHYS_PFN(db->addr), PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot), e);
	rdma_user_mmap_entry_put(e);
	return err;
}

void irdma_mmap_free(struct rdma_user_mmap_entry *e)
{
	kfree(container_of(e, struct irdma_db_entry, rdma));
}

/*
 * Nothing of a context lives in the device beyond its QPs and CQs, which
 * the core destroys; its mapping is zapped by the core.
 */
void irdma_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

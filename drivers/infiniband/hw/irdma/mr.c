// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions, and the pinned rings of user QPs and CQs.
 *
 * A region is an STag the device knows (lkey and rkey are both the
 * STag): user regions are registered whole at once by REG_MR, kernel
 * ULPs' fast-registration regions are reserved by ALLOC_STAG and mapped
 * later by a FAST_REG WQE (wr.c) from the PBLEs irdma_map_mr_sg() fills;
 * DEALLOC_STAG frees either.
 *
 * An STag is 32 bits: the key in 7:0, the index in the bits above it,
 * as many as the device's MR object count needs but at least 14 (the
 * device masks the index with that many bits; so does the model), and a
 * random "driver key" above the index, which the device checks with the
 * key.  Index 0 is never allocated (dev->mr_ids starts at 1).
 *
 * libirdma registers its QP and CQ rings as regions of type QP or CQ:
 * no STag, no device command.  mr.c pins them and lists their 4 KiB
 * pages (struct irdma_ring_mem) on the user context, where create_qp
 * and create_cq find them by address.  A ring is referenced by its
 * region until it is deregistered, and by the QP or CQ that took it off
 * the list until that is destroyed; the pages stay pinned while either
 * holds it.  The last reference may be dropped by either, always in
 * process context (unpinning and the PBLE pool sleep).
 *
 * Locking: a ring's @node and @listed are under its context's
 * regs_lock (process context only, so a plain spinlock); everything
 * else of a region or a ring is written before it is published and
 * read-only after.
 *
 * Facts: Debian's irdma verbs.c (irdma_reg_user_mr, irdma_handle_q_mem,
 * irdma_hwreg_mr, irdma_alloc_mr, irdma_set_page, irdma_dereg_mr,
 * irdma_reg_phys_mr, irdma_create_stag, irdma_get_mr_access), ctrl.c
 * (irdma_sc_alloc_stag, irdma_sc_mr_reg_non_shared,
 * irdma_sc_dealloc_stag), hw.c (mr_stagmask); rdma-core's
 * providers/irdma (the ring registrations); our model's e810-stag.c;
 * the E810 scoping §3.3, §3.8 and §5.
 */
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/iter.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

/* STag commands (ALLOC_STAG, REG_MR, DEALLOC_STAG): fields by qword. */
#define IRDMA_STAG_LEN			GENMASK_ULL(45, 0)	/* q1 */
#define IRDMA_STAG_PD			GENMASK_ULL(63, 46)	/* q1 */
#define IRDMA_STAG_KEY			GENMASK_ULL(7, 0)	/* q2 */
#define IRDMA_STAG_IDX			GENMASK_ULL(31, 8)	/* q2 */
#define IRDMA_STAG_PA			4	/* REG_MR, LPBL 0: the page */
#define IRDMA_STAG_FIRST_PBLE		GENMASK_ULL(27, 0)	/* q6 */
#define IRDMA_STAG_HDR_MR		BIT_ULL(43)
#define IRDMA_STAG_HDR_LPBL		GENMASK_ULL(45, 44)
#define IRDMA_STAG_HDR_PAGE_SIZE	GENMASK_ULL(47, 46)
#define IRDMA_STAG_HDR_RIGHTS		GENMASK_ULL(52, 48)
#define IRDMA_STAG_HDR_REMOTE		BIT_ULL(53)
#define IRDMA_STAG_HDR_VA_BASED		BIT_ULL(59)

/* LPBL: one page (or pages contiguous from it), a PBLE list. */
#define IRDMA_LPBL_NONE			0
#define IRDMA_LPBL_LEVEL1		1

#define IRDMA_STAG_MIN_IDX_BITS		14
#define IRDMA_STAG_MAX_IDX_BITS		24
#define IRDMA_MAX_MR_SIZE		0x200000000000ULL
/* The most PBLEs one run holds: a segment's (pble.c). */
#define IRDMA_MAX_PBLE_RUN		(IRDMA_HMC_SD_SIZE / sizeof(__le64))
#define IRDMA_MAX_FMR_PAGES		262144
#define IRDMA_RING_PAGE			SZ_4K

/*
 * The lkey and rkey of a ring registration, which has no STag: index 0,
 * which no region ever gets, with key 0xff so that it is not the local
 * DMA lkey (STag 0) either.  The device refuses it as an unknown STag.
 */
#define IRDMA_RING_MR_KEY		0xffu

/* The page size codes of STag commands and FAST_REG WQEs. */
int irdma_page_size_code(u64 size)
{
	switch (size) {
	case SZ_4K:
		return 0;
	case SZ_2M:
		return 1;
	case SZ_1G:
		return 2;
	}
	return -EINVAL;
}

/* Local read always: the device's rights have no "no access". */
u8 irdma_mr_rights(int access)
{
	u8 rights = IRDMA_ACC_LOCAL_READ;

	if (access & IB_ACCESS_LOCAL_WRITE)
		rights |= IRDMA_ACC_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		rights |= IRDMA_ACC_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_WRITE)
		rights |= IRDMA_ACC_REMOTE_WRITE;
	if (access & IB_ACCESS_MW_BIND)
		rights |= IRDMA_ACC_BIND_WINDOW;
	return rights;
}

static unsigned int irdma_stag_idx_bits(struct irdma_dev *dev)
{
	return clamp_t(unsigned int, order_base_2(dev->max_mr),
		       IRDMA_STAG_MIN_IDX_BITS, IRDMA_STAG_MAX_IDX_BITS);
}

/* A new STag: a free index, a random driver key and key. */
int irdma_stag_new(struct irdma_dev *dev, u32 *stag)
{
	unsigned int bits = irdma_stag_idx_bits(dev);
	u32 rnd = get_random_u32();
	int idx;

	idx = irdma_id_get(&dev->mr_ids);
	if (idx < 0)
		return idx == -ENOSPC ? -ENOMEM : idx;
	/* Only if the device had more MRs than 24 index bits name. */
	if (WARN_ON_ONCE((u32)idx >> bits)) {
		irdma_id_put(&dev->mr_ids, idx);
		return -ENOMEM;
	}
	*stag = (rnd & ~GENMASK(bits + 7, 0)) | (u32)idx << 8 |
		(rnd & IRDMA_STAG_KEY);
	return 0;
}

void irdma_stag_free(struct irdma_dev *dev, u32 stag)
{
	irdma_id_put(&dev->mr_ids,
		     (stag >> 8) & (BIT(irdma_stag_idx_bits(dev)) - 1));
}

/*
 * Run an STag command.  *ANSWERED tells whether the device completed it
 * (with or without an error): if not, it may have been run or may be
 * run still, and whatever the STag maps must stay as it is.
 */
static int irdma_stag_exec(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd,
			   bool *answered)
{
	int err = irdma_cqp_exec(dev, cmd);

	*answered = READ_ONCE(cmd->done);
	return err;
}

/*
 * REG_MR of MR's STag: VA-based at mr->iova unless ACCESS asks for a
 * zero-based region (then the device takes the first byte's offset in
 * its page); its pages are mr->pble's, or from mr->pa on if it has none.
 */
static int irdma_mr_reg_hw(struct irdma_dev *dev, struct irdma_mr *mr,
			   u32 pd, int access, bool *answered)
{
	u64 pgsz = BIT_ULL(mr->page_shift);
	bool zero_based = access & IB_ZERO_BASED;
	u8 rights = irdma_mr_rights(access);
	struct irdma_cqp_cmd cmd;
	u64 hdr;

	hdr = IRDMA_STAG_HDR_MR |
	      FIELD_PREP(IRDMA_STAG_HDR_LPBL, mr->pble.n ? IRDMA_LPBL_LEVEL1 :
						       IRDMA_LPBL_NONE) |
	      FIELD_PREP(IRDMA_STAG_HDR_PAGE_SIZE,
			 irdma_page_size_code(pgsz)) |
	      FIELD_PREP(IRDMA_STAG_HDR_RIGHTS, rights);
	if (rights & (IRDMA_ACC_REMOTE_READ | IRDMA_ACC_REMOTE_WRITE))
		hdr |= IRDMA_STAG_HDR_REMOTE;
	if (!zero_based)
		hdr |= IRDMA_STAG_HDR_VA_BASED;
	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_REG_MR, hdr);
	cmd.wqe[0] = zero_based ? mr->iova & (pgsz - 1) : mr->iova;
	cmd.wqe[1] = FIELD_PREP(IRDMA_STAG_LEN, mr->len) |
		     FIELD_PREP(IRDMA_STAG_PD, pd);
	cmd.wqe[2] = FIELD_PREP(IRDMA_STAG_IDX, mr->stag >> 8) |
		     FIELD_PREP(IRDMA_STAG_KEY, mr->stag);
	if (mr->pble.n)
		cmd.wqe[6] = FIELD_PREP(IRDMA_STAG_FIRST_PBLE, mr->pble.idx);
	else
		cmd.wqe[IRDMA_STAG_PA] = mr->pa;
	return irdma_stag_exec(dev, &cmd, answered);
}

/* DEALLOC_STAG: the index (with the driver key) names it; not the key. */
static int irdma_mr_dealloc_hw(struct irdma_dev *dev, struct irdma_mr *mr,
			       bool *answered)
{
	struct irdma_cqp_cmd cmd;

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_DEALLOC_STAG, IRDMA_STAG_HDR_MR);
	cmd.wqe[1] = FIELD_PREP(IRDMA_STAG_PD, to_ipd(mr->ibmr.pd)->id);
	cmd.wqe[2] = FIELD_PREP(IRDMA_STAG_IDX, mr->stag >> 8);
	return irdma_stag_exec(dev, &cmd, answered);
}

/*
 * Give MR a new STag and register it.  If the device never answered,
 * it may map the memory yet: the caller must leave it pinned (and the
 * STag allocated).
 */
static int irdma_mr_register(struct irdma_dev *dev, struct irdma_mr *mr,
			     struct ib_pd *pd, int access, bool *leak)
{
	bool answered;
	int err;

	*leak = false;
	err = irdma_stag_new(dev, &mr->stag);
	if (err)
		return err;
	err = irdma_mr_reg_hw(dev, mr, to_ipd(pd)->id, access, &answered);
	if (!err) {
		mr->ibmr.lkey = mr->stag;
		mr->ibmr.rkey = mr->stag;
		return 0;
	}
	/*
	 * Unanswered, -ETIMEDOUT may have been posted and may run yet;
	 * any other error unanswered was never posted.
	 */
	if (!answered && err == -ETIMEDOUT) {
		dev_warn(dev->dma, "REG_MR of STag 0x%x lost: its memory stays pinned\n",
			 mr->stag);
		*leak = true;
		return err;
	}
	irdma_stag_free(dev, mr->stag);
	return err;
}

/*
 * Whether UMEM's blocks of PGSZ are one contiguous run of bus addresses,
 * which the device takes as its first page's address alone (LPBL 0);
 * *FIRST is the first block's address either way.
 */
static bool irdma_umem_contiguous(struct ib_umem *umem, unsigned long pgsz,
				  dma_addr_t *first)
{
	struct ib_block_iter it;
	dma_addr_t next = 0;
	bool any = false;

	rdma_umem_for_each_dma_block(umem, &it, pgsz) {
		dma_addr_t a = rdma_block_iter_dma_address(&it);

		if (!any) {
			*first = a;
			any = true;
		} else if (a != next) {
			return false;
		}
		next = a + pgsz;
	}
	return true;
}

/* A user region of type MEM: an STag over the pinned pages. */
static struct ib_mr *irdma_reg_user_mem(struct ib_pd *pd, u64 start,
					u64 length, u64 virt, int access)
{
	struct irdma_dev *dev = to_idev(pd->device);
	struct ib_block_iter it;
	struct ib_umem *umem;
	struct irdma_mr *mr;
	unsigned long pgsz;
	size_t nblocks;
	bool leak;
	u32 i = 0;
	int err;

	umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	/* The device's page sizes; 0: VIRT's offset fits none. */
	pgsz = ib_umem_find_best_pgsz(umem, SZ_4K | SZ_2M | SZ_1G, virt);
	if (!pgsz) {
		err = -EOPNOTSUPP;
		goto release;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto release;
	}
	mr->umem = umem;
	mr->iova = virt;
	mr->len = length;
	mr->page_shift = __ffs(pgsz);
	mr->ibmr.pd = pd;
	mr->ibmr.device = pd->device;
	mr->ibmr.iova = virt;
	mr->ibmr.length = length;

	nblocks = ib_umem_num_dma_blocks(umem, pgsz);
	if (!irdma_umem_contiguous(umem, pgsz, &mr->pa)) {
		/* Level 1 only: one run of PBLEs (pble.c). */
		if (nblocks > IRDMA_MAX_PBLE_RUN) {
			err = -ENOMEM;
			goto free_mr;
		}
		err = irdma_pble_get(dev, nblocks, &mr->pble);
		if (err)
			goto free_mr;
		rdma_umem_for_each_dma_block(umem, &it, pgsz)
			mr->pble.va[i++] =
				cpu_to_le64(rdma_block_iter_dma_address(&it));
		mr->npages = nblocks;
	}

	err = irdma_mr_register(dev, mr, pd, access, &leak);
	if (err) {
		if (leak)
			return ERR_PTR(err);
		goto put_pble;
	}
	return &mr->ibmr;

put_pble:
	irdma_pble_put(dev, &mr->pble);
free_mr:
	kfree(mr);
release:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

static void irdma_ring_mem_release(struct kref *ref)
{
	struct irdma_ring_mem *m = container_of(ref, struct irdma_ring_mem,
						ref);

	irdma_pble_put(m->dev, &m->pble);
	kvfree(m->pages);
	ib_umem_release(m->umem);
	kfree(m);
}

/* Process context only: the last put unpins and frees PBLEs. */
void irdma_ring_mem_put(struct irdma_ring_mem *m)
{
	might_sleep();
	if (m)
		kref_put(&m->ref, irdma_ring_mem_release);
}

static struct list_head *irdma_ring_list(struct irdma_ucontext *uc, u16 type)
{
	switch (type) {
	case IRDMA_MEMREG_TYPE_QP:
		return &uc->qp_regs;
	case IRDMA_MEMREG_TYPE_CQ:
		return &uc->cq_regs;
	}
	return NULL;
}

struct irdma_ring_mem *irdma_ring_mem_take(struct irdma_ucontext *uc,
					   u16 type, u64 va)
{
	struct list_head *list = irdma_ring_list(uc, type);
	struct irdma_ring_mem *m, *found = NULL;

	if (!list)
		return NULL;
	spin_lock(&uc->regs_lock);
	list_for_each_entry(m, list, node) {
		if (m->va != va)
			continue;
		/* Listed: its region's reference is still held. */
		list_del_init(&m->node);
		m->listed = false;
		kref_get(&m->ref);
		found = m;
		break;
	}
	spin_unlock(&uc->regs_lock);
	return found;
}

static void irdma_ring_mem_unlist(struct irdma_ucontext *uc,
				  struct irdma_ring_mem *m)
{
	spin_lock(&uc->regs_lock);
	if (m->listed) {
		list_del_init(&m->node);
		m->listed = false;
	}
	spin_unlock(&uc->regs_lock);
}

/*
 * The context goes after its regions, whose deregistration unlists
 * their rings: anything still listed belongs to a region the core
 * failed to destroy, whose reference is never dropped.  Unlisting keeps
 * the freed context out of its reach.
 */
void irdma_ring_mem_release_all(struct irdma_ucontext *uc)
{
	struct irdma_ring_mem *m, *next;

	spin_lock(&uc->regs_lock);
	list_for_each_entry_safe(m, next, &uc->qp_regs, node) {
		list_del_init(&m->node);
		m->listed = false;
	}
	list_for_each_entry_safe(m, next, &uc->cq_regs, node) {
		list_del_init(&m->node);
		m->listed = false;
	}
	spin_unlock(&uc->regs_lock);
}

/* REQ's page counts against the NPAGES 4 KiB pages registered. */
static bool irdma_ring_req_ok(const struct irdma_mem_reg_req *req,
			      size_t npages)
{
	if (req->reg_type == IRDMA_MEMREG_TYPE_QP)
		/* SQ pages, RQ pages, then the shadow area's page. */
		return req->sq_pages && req->rq_pages &&
		       (size_t)req->sq_pages + req->rq_pages + 1 <= npages;
	return req->cq_pages && req->cq_pages <= npages;
}

/* The ring of UMEM at VA: its pages' addresses, and PBLEs if several. */
static int irdma_ring_mem_new(struct irdma_dev *dev, struct ib_umem *umem,
			      u64 va, const struct irdma_mem_reg_req *req,
			      struct irdma_ring_mem **out)
{
	size_t npages = ib_umem_num_dma_blocks(umem, IRDMA_RING_PAGE);
	struct irdma_ring_mem *m;
	struct ib_block_iter it;
	u32 i = 0;
	int err;

	/* Rings are level 1 only: at most one run of PBLEs. */
	if (npages > IRDMA_MAX_PBLE_RUN || !irdma_ring_req_ok(req, npages))
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->pages = kvcalloc(npages, sizeof(*m->pages), GFP_KERNEL);
	if (!m->pages) {
		err = -ENOMEM;
		goto free;
	}
	rdma_umem_for_each_dma_block(umem, &it, IRDMA_RING_PAGE)
		m->pages[i++] = rdma_block_iter_dma_address(&it);
	if (npages > 1) {
		err = irdma_pble_get(dev, npages, &m->pble);
		if (err)
			goto free_pages;
		for (i = 0; i < npages; i++)
			m->pble.va[i] = cpu_to_le64(m->pages[i]);
	}
	kref_init(&m->ref);
	m->dev = dev;
	m->umem = umem;
	m->va = va;
	m->type = req->reg_type;
	m->sq_pages = req->sq_pages;
	m->rq_pages = req->rq_pages;
	m->cq_pages = req->cq_pages;
	m->npages = npages;
	INIT_LIST_HEAD(&m->node);
	*out = m;
	return 0;

free_pages:
	kvfree(m->pages);
free:
	kfree(m);
	return err;
}

/*
 * A user region of type QP or CQ: libirdma's rings, pinned and listed
 * for create_qp or create_cq; nothing in the device.
 */
static struct ib_mr *irdma_reg_user_ring(struct ib_pd *pd, u64 start,
					 u64 length, u64 virt, int access,
					 const struct irdma_mem_reg_req *req,
					 struct ib_udata *udata)
{
	struct irdma_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct irdma_ucontext, ibuc);
	struct irdma_dev *dev = to_idev(pd->device);
	struct irdma_ring_mem *m;
	struct ib_umem *umem;
	struct irdma_mr *mr;
	int err;

	/* The QP or CQ names its rings by the address they are pinned at. */
	if (start != virt)
		return ERR_PTR(-EINVAL);
	/*
	 * The device writes rings whatever the region's rights say: pin
	 * them writable, which fails on memory the user may not write.
	 */
	umem = ib_umem_get(pd->device, start, length,
			   access | IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto release;
	}
	err = irdma_ring_mem_new(dev, umem, virt, req, &m);
	if (err)
		goto free_mr;

	mr->ring = m;
	mr->stag = IRDMA_RING_MR_KEY;
	mr->ibmr.lkey = IRDMA_RING_MR_KEY;
	mr->ibmr.rkey = IRDMA_RING_MR_KEY;
	mr->ibmr.pd = pd;
	mr->ibmr.device = pd->device;
	mr->ibmr.iova = virt;
	mr->ibmr.length = length;
	spin_lock(&uc->regs_lock);
	list_add_tail(&m->node, irdma_ring_list(uc, m->type));
	m->listed = true;
	spin_unlock(&uc->regs_lock);
	return &mr->ibmr;

free_mr:
	kfree(mr);
release:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

struct ib_mr *irdma_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 virt, int access, struct ib_udata *udata)
{
	struct irdma_mem_reg_req req = {};	/* MEM for in-kernel callers */
	int err;

	if (udata) {
		if (udata->inlen < sizeof(req))
			return ERR_PTR(-EINVAL);
		err = ib_copy_from_udata(&req, udata, sizeof(req));
		if (err)
			return ERR_PTR(err);
	}
	if (!length || length > IRDMA_MAX_MR_SIZE || virt + length < virt)
		return ERR_PTR(-EINVAL);

	switch (req.reg_type) {
	case IRDMA_MEMREG_TYPE_MEM:
		return irdma_reg_user_mem(pd, start, length, virt, access);
	case IRDMA_MEMREG_TYPE_QP:
	case IRDMA_MEMREG_TYPE_CQ:
		if (!udata)
			return ERR_PTR(-EINVAL);
		return irdma_reg_user_ring(pd, start, length, virt, access,
					   &req, udata);
	}
	return ERR_PTR(-EINVAL);
}

/*
 * The PD's "all memory" region (only for IB_PD_UNSAFE_GLOBAL_RKEY: the
 * local DMA lkey serves everything else).  Debian registers 0 bytes at
 * bus address 0, which the model reads as a region of nothing; REG_MR
 * can say it plainly instead: with no PBLEs the device takes the pages
 * as contiguous from the address given (as Debian relies on for a
 * contiguous user region), so bus address 0 on, as long as the length
 * field allows (64 TiB), VA-based at 0: an address is a bus address.
 */
struct ib_mr *irdma_get_dma_mr(struct ib_pd *pd, int access)
{
	struct irdma_dev *dev = to_idev(pd->device);
	struct irdma_mr *mr;
	bool leak;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->len = IRDMA_STAG_LEN;
	mr->page_shift = ilog2(SZ_4K);
	mr->ibmr.pd = pd;
	mr->ibmr.device = pd->device;
	mr->ibmr.length = mr->len;
	err = irdma_mr_register(dev, mr, pd, access & ~IB_ZERO_BASED, &leak);
	if (err) {
		if (!leak)
			kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/*
 * A fast-registration region: its STag reserved (ALLOC_STAG, invalid
 * until a FAST_REG WQE maps it) and a run of MAX_NUM_SG PBLEs for the
 * pages irdma_map_mr_sg() maps.  The device lets a FAST_REG map at most
 * the length given here, whatever an earlier one mapped.
 */
struct ib_mr *irdma_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct irdma_dev *dev = to_idev(pd->device);
	struct irdma_cqp_cmd cmd;
	struct irdma_mr *mr;
	bool answered;
	int code, err;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > IRDMA_MAX_FMR_PAGES)
		return ERR_PTR(-EINVAL);
	/* ULPs' pages are of PAGE_SIZE at allocation (they may map larger). */
	code = irdma_page_size_code(PAGE_SIZE);
	if (code < 0)
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = irdma_pble_get(dev, max_num_sg, &mr->pble);
	if (err)
		goto free_mr;
	err = irdma_stag_new(dev, &mr->stag);
	if (err)
		goto put_pble;

	/* No rights yet: FAST_REG gives them; remote access may come. */
	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_ALLOC_STAG,
			   IRDMA_STAG_HDR_MR | IRDMA_STAG_HDR_REMOTE |
			   FIELD_PREP(IRDMA_STAG_HDR_PAGE_SIZE, code));
	cmd.wqe[1] = FIELD_PREP(IRDMA_STAG_LEN, (u64)max_num_sg * PAGE_SIZE) |
		     FIELD_PREP(IRDMA_STAG_PD, to_ipd(pd)->id);
	cmd.wqe[2] = FIELD_PREP(IRDMA_STAG_IDX, mr->stag >> 8);
	err = irdma_stag_exec(dev, &cmd, &answered);
	/*
	 * Unanswered, the STag may exist in the device, but maps nothing
	 * until a FAST_REG, which nobody will post: freeing is safe.
	 */
	if (err)
		goto free_stag;

	mr->max_pages = max_num_sg;
	/* The PBLEs are little-endian: only irdma_set_page() writes them. */
	mr->pages = mr->pble.va;
	mr->page_shift = PAGE_SHIFT;
	mr->ibmr.pd = pd;
	mr->ibmr.device = pd->device;
	mr->ibmr.lkey = mr->stag;
	mr->ibmr.rkey = mr->stag;
	return &mr->ibmr;

free_stag:
	irdma_stag_free(dev, mr->stag);
put_pble:
	irdma_pble_put(dev, &mr->pble);
free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

static int irdma_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct irdma_mr *mr = to_imr(ibmr);

	if (unlikely(mr->npages >= mr->max_pages))
		return -ENOMEM;
	mr->pble.va[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/*
 * Map SG into the region's PBLEs for the FAST_REG WQE that follows
 * (wr.c's IB_WR_REG_MR), which takes from the region:
 *  - mr->pble.idx: the first PBLE (level 1), mr->pble.va[0] the first
 *    page's address (for level 0, when mr->npages is 1);
 *  - mr->npages: the pages mapped, each of 1 << mr->page_shift bytes
 *    (ibmr->page_size, as the ULP asked; 4 KiB, 2 MiB or 1 GiB);
 *  - mr->iova: the first byte's address (VA-based), and its offset in
 *    the first page (mr->iova & (page size - 1));
 *  - mr->len: the bytes mapped, at most the allocated max_pages *
 *    PAGE_SIZE (ALLOC_STAG's length: the device refuses more).
 * The PBLEs must not change under a valid registration: the ULP
 * invalidates before mapping again, as the verbs require.
 */
int irdma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct irdma_mr *mr = to_imr(ibmr);
	int n;

	if (irdma_page_size_code(ibmr->page_size) < 0)
		return -EINVAL;
	mr->npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, irdma_set_page);
	if (n <= 0)
		return n;
	if (ibmr->length > (u64)mr->max_pages * PAGE_SIZE)
		return -EINVAL;
	mr->page_shift = ilog2(ibmr->page_size);
	mr->iova = ibmr->iova;
	mr->len = ibmr->length;
	return n;
}

/* The context a user region was registered in. */
static struct irdma_ucontext *irdma_mr_ucontext(struct ib_mr *ibmr,
						struct ib_udata *udata)
{
	struct irdma_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct irdma_ucontext, ibuc);

	if (!uc && ibmr->uobject)
		uc = to_iuc(ibmr->uobject->context);
	return uc;
}

int irdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibmr->device);
	struct irdma_mr *mr = to_imr(ibmr);
	struct irdma_ucontext *uc;
	bool answered;
	int err;

	if (mr->ring) {
		uc = irdma_mr_ucontext(ibmr, udata);
		/* Without its context a listed ring cannot leave the list. */
		if (WARN_ON_ONCE(!uc))
			return -EINVAL;
		irdma_ring_mem_unlist(uc, mr->ring);
		irdma_ring_mem_put(mr->ring);
		kfree(mr);
		return 0;
	}

	err = irdma_mr_dealloc_hw(dev, mr, &answered);
	if (err && !answered) {
		/*
		 * Timed out, or never posted (the CQP is dead): the STag may
		 * still map the pages and PBLEs, which a peer could reach
		 * through the rkey.  Keep them all; the core may try again,
		 * or leaves the region be.
		 */
		dev_warn(dev->dma, "STag 0x%x not deallocated (%d): kept\n",
			 mr->stag, err);
		return err;
	}
	/*
	 * The device answered: with no memory windows (none are offered)
	 * to hold it, an error means it has no such STag, now or ever.
	 */
	if (err)
		dev_warn(dev->dma, "DEALLOC_STAG 0x%x failed (%d)\n", mr->stag,
			 err);
	irdma_pble_put(dev, &mr->pble);
	ib_umem_release(mr->umem);
	irdma_stag_free(dev, mr->stag);
	kfree(mr);
	return 0;
}

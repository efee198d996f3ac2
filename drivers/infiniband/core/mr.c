// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fast-registration MRs of kernel users: allocation and the mapping of a
 * DMA-mapped scatterlist into the MR's page list; integrity MRs, which a
 * device that offloads T10-PI signatures maps data and protection
 * information into.
 *
 * The user allocates an MR able to hold max_num_sg pages once, then for
 * each I/O maps its scatterlist into it (ib_map_mr_sg(), which sets
 * mr->iova, mr->length and mr->page_size and has the driver record the
 * pages) and posts an IB_WR_REG_MR; the peer then uses mr->rkey and
 * mr->iova until the user invalidates the key (IB_WR_LOCAL_INV, or a
 * SEND_WITH_INV from the peer) and bumps it with ib_update_fast_reg_key().
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "core_priv.h"

/*
 * The core's fields of a kernel MR the driver made: it holds a usecnt of
 * its PD and is tracked under the PD's owner.
 */
static void mr_init_kernel(struct ib_mr *mr, struct ib_pd *pd,
			   enum ib_mr_type type, struct ib_sig_attrs *sig_attrs)
{
	mr->device = pd->device;
	mr->pd = pd;
	mr->dm = NULL;
	mr->uobject = NULL;
	mr->sig_attrs = sig_attrs;
	mr->type = type;
	mr->need_inval = false;
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_parent_name(&mr->res, &pd->res);
	rdma_restrack_add(&mr->res);
}

/**
 * ib_alloc_mr - allocate an MR for fast registration
 * @pd: its protection domain (the MR holds one usecnt)
 * @mr_type: IB_MR_TYPE_MEM_REG or IB_MR_TYPE_SG_GAPS (the latter when
 *	the device says IBK_SG_GAPS_REG); integrity MRs come from
 *	ib_alloc_mr_integrity()
 * @max_num_sg: the most pages (SG_GAPS: SG entries) it will be mapped with
 *
 * The MR is tracked under its PD's owner and freed with ib_dereg_mr().
 *
 * Return: the MR, or ERR_PTR(): -EOPNOTSUPP without ops.alloc_mr or for
 * SG_GAPS on a device without them, -EINVAL for an integrity MR, or the
 * driver's error.
 */
struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			  u32 max_num_sg)
{
	struct ib_device *dev = pd->device;
	struct ib_mr *mr;

	if (!dev->ops.alloc_mr)
		return ERR_PTR(-EOPNOTSUPP);
	if (mr_type == IB_MR_TYPE_INTEGRITY)
		return ERR_PTR(-EINVAL);
	if (mr_type == IB_MR_TYPE_SG_GAPS &&
	    !(dev->attrs.kernel_cap_flags & IBK_SG_GAPS_REG))
		return ERR_PTR(-EOPNOTSUPP);

	mr = dev->ops.alloc_mr(pd, mr_type, max_num_sg);
	if (IS_ERR(mr))
		return mr;

	mr_init_kernel(mr, pd, mr_type, NULL);
	return mr;
}
EXPORT_SYMBOL(ib_alloc_mr);

/**
 * ib_alloc_mr_integrity - allocate an MR for data and its protection
 *	information (T10-PI), for signature offload
 * @pd: its protection domain (the MR holds one usecnt)
 * @max_num_data_sg: the most data pages it will be mapped with
 * @max_num_meta_sg: the most protection-information pages
 *
 * Map it with ib_map_mr_sg_pi(), check it after the I/O with
 * ib_check_mr_status(); free it with ib_dereg_mr().
 *
 * Return: the MR, or ERR_PTR(): -EOPNOTSUPP on a device without
 * integrity MRs (rxe has none), -EINVAL without protection pages,
 * -ENOMEM, or the driver's error.
 */
struct ib_mr *ib_alloc_mr_integrity(struct ib_pd *pd, u32 max_num_data_sg,
				    u32 max_num_meta_sg)
{
	struct ib_device *dev = pd->device;
	struct ib_sig_attrs *sig_attrs;
	struct ib_mr *mr;

	if (!dev->ops.alloc_mr_integrity || !dev->ops.map_mr_sg_pi ||
	    !(dev->attrs.kernel_cap_flags & IBK_INTEGRITY_HANDOVER))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_meta_sg)
		return ERR_PTR(-EINVAL);

	/* The signature attributes of each I/O go here; freed at dereg. */
	sig_attrs = kzalloc(sizeof(*sig_attrs), GFP_KERNEL);
	if (!sig_attrs)
		return ERR_PTR(-ENOMEM);

	mr = dev->ops.alloc_mr_integrity(pd, max_num_data_sg, max_num_meta_sg);
	if (IS_ERR(mr)) {
		kfree(sig_attrs);
		return mr;
	}

	mr_init_kernel(mr, pd, IB_MR_TYPE_INTEGRITY, sig_attrs);
	return mr;
}
EXPORT_SYMBOL(ib_alloc_mr_integrity);

/**
 * ib_map_mr_sg_pi - map data and protection-information scatterlists
 *	into an integrity MR
 * @mr: an MR of ib_alloc_mr_integrity()
 * @data_sg: the DMA-mapped data
 * @data_sg_nents: its entries
 * @data_sg_offset: the byte offset into the first data entry, or NULL
 * @meta_sg: the DMA-mapped protection information, or NULL
 * @meta_sg_nents: its entries
 * @meta_sg_offset: the byte offset into the first of them, or NULL
 * @page_size: the page size of the mapping
 *
 * Return: 0, or the driver's error; -EOPNOTSUPP for another kind of MR
 * or a device without integrity MRs.
 */
int ib_map_mr_sg_pi(struct ib_mr *mr, struct scatterlist *data_sg,
		    int data_sg_nents, unsigned int *data_sg_offset,
		    struct scatterlist *meta_sg, int meta_sg_nents,
		    unsigned int *meta_sg_offset, unsigned int page_size)
{
	if (unlikely(!mr->device->ops.map_mr_sg_pi ||
		     mr->type != IB_MR_TYPE_INTEGRITY))
		return -EOPNOTSUPP;

	mr->page_size = page_size;
	return mr->device->ops.map_mr_sg_pi(mr, data_sg, data_sg_nents,
					    data_sg_offset, meta_sg,
					    meta_sg_nents, meta_sg_offset);
}
EXPORT_SYMBOL(ib_map_mr_sg_pi);

/**
 * ib_check_mr_status - the status of an MR after its I/O
 * @mr: the MR
 * @check_mask: what to check (IB_MR_CHECK_SIG_STATUS: signature errors,
 *	integrity MRs only)
 * @mr_status: filled with what was found
 *
 * Return: 0, -EOPNOTSUPP on a device that cannot tell, -EINVAL for a
 * signature check of an MR without signature attributes, or the
 * driver's error.
 */
int ib_check_mr_status(struct ib_mr *mr, u32 check_mask,
		       struct ib_mr_status *mr_status)
{
	if (!mr->device->ops.check_mr_status)
		return -EOPNOTSUPP;
	if ((check_mask & IB_MR_CHECK_SIG_STATUS) && !mr->sig_attrs)
		return -EINVAL;
	return mr->device->ops.check_mr_status(mr, check_mask, mr_status);
}
EXPORT_SYMBOL(ib_check_mr_status);

/**
 * ib_map_mr_sg - map a DMA-mapped scatterlist into a fast-registration MR
 * @mr: the MR, not registered at the moment
 * @sg: the scatterlist, mapped for @mr->device's DMA device
 * @sg_nents: its number of entries
 * @sg_offset: where to start in @sg's first entry (NULL: at 0); on return,
 *	where to resume in the first entry not fully mapped (0 when all
 *	were)
 * @page_size: the MR's page size, one the device supports
 *
 * The mapped range must be a list of whole pages of @page_size: only the
 * first entry may start inside a page and only the last may end inside
 * one; an entry that continues its predecessor byte for byte is merged
 * into it.  Mapping stops at the first entry that breaks the rule, and
 * when the MR has no room for more pages.  Sets mr->iova (the first
 * entry's address plus offset), mr->length and mr->page_size; the key is
 * registered by posting IB_WR_REG_MR.
 *
 * Return: the number of entries mapped in full, or the driver's error;
 * -EOPNOTSUPP without ops.map_mr_sg.
 */
int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size)
{
	if (!mr->device->ops.map_mr_sg)
		return -EOPNOTSUPP;

	mr->page_size = page_size;
	return mr->device->ops.map_mr_sg(mr, sg, sg_nents, sg_offset);
}
EXPORT_SYMBOL(ib_map_mr_sg);

/*
 * Record the pages of [@start, @end) from @page on with @set_page.
 * Returns the first address not covered: @end, or where the MR was full.
 */
static u64 sg_set_pages(struct ib_mr *mr, u64 page, u64 start, u64 end,
			int (*set_page)(struct ib_mr *, u64), int *err)
{
	for (; page < end; page += mr->page_size) {
		*err = set_page(mr, page);
		if (*err < 0)
			return max(page, start);
	}
	return end;
}

/**
 * ib_sg_to_pages - split a scatterlist into the pages of an MR
 * @mr: the MR; mr->page_size is the page size (ib_map_mr_sg() set it)
 * @sgl: the DMA-mapped scatterlist
 * @sg_nents: its number of entries
 * @sg_offset_p: start offset into the first entry (NULL: 0); on return,
 *	the offset into the first entry not fully mapped, or 0
 * @set_page: the driver's callback storing one page address; < 0 when
 *	the MR is full
 *
 * For drivers' ops.map_mr_sg.  Each page address handed to @set_page is
 * aligned to mr->page_size.  Entry i > 0 joins the mapping when it
 * starts where entry i - 1 ended (it then continues in that page), or
 * when both that end and its start are page aligned (a new page);
 * otherwise there would be a hole in the MR's address range, and mapping
 * stops before it.  mr->iova is where the first byte is, mr->length the
 * bytes mapped.
 *
 * Return: the number of entries mapped in full (an entry mapped in part
 * is where *@sg_offset_p resumes); the @set_page error when not a byte
 * could be mapped; -EINVAL for no entries or an offset past the first
 * entry (stock's errno: the offset may not reach into later entries).
 */
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset_p,
		   int (*set_page)(struct ib_mr *, u64))
{
	u64 mask = ~((u64)mr->page_size - 1);
	unsigned int offset = sg_offset_p ? *sg_offset_p : 0;
	u64 prev_end = 0;
	struct scatterlist *sg;
	int i, err = 0;

	if (sg_nents <= 0 || offset > sg_dma_len(sgl))
		return -EINVAL;
	mr->iova = sg_dma_address(sgl) + offset;
	mr->length = 0;

	for_each_sg(sgl, sg, sg_nents, i) {
		u64 start = sg_dma_address(sg) + offset;
		u64 end = start + sg_dma_len(sg) - offset;
		u64 page, reached;

		if (i && start == prev_end) {
			/* Contiguous: the pages up to prev_end are set. */
			page = ALIGN(prev_end, mr->page_size);
		} else if (!i || !((prev_end | start) & ~mask)) {
			page = start & mask;
		} else {
			break;
		}

		reached = sg_set_pages(mr, page, start, end, set_page, &err);
		mr->length += reached - start;
		if (reached < end) {
			/* Full: the rest of this entry is for the next MR. */
			if (sg_offset_p)
				*sg_offset_p = offset + (reached - start);
			return (i || reached > start) ? i : err;
		}
		prev_end = end;
		offset = 0;
	}

	if (sg_offset_p)
		*sg_offset_p = 0;
	return i;
}
EXPORT_SYMBOL(ib_sg_to_pages);

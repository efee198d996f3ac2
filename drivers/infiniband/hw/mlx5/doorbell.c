// SPDX-License-Identifier: GPL-2.0-only
/*
 * Doorbell records of user CQs and QPs.  libmlx5 carves them out of its
 * own pages (several records per page) and names each by its user
 * address; the device needs a DMA address.  Each page is pinned once per
 * context and stays pinned while any record of it is in use.
 */
#include "mlx5_ib.h"

int mlx5_ib_db_map_user(struct mlx5_ib_ucontext *ctx, unsigned long virt,
			struct mlx5_ib_user_db *db)
{
	unsigned long page_virt = virt & PAGE_MASK;
	struct mlx5_ib_user_db_page *page;
	int err = 0;

	/* A record is 8 bytes, naturally aligned: never across pages. */
	if (virt & 7)
		return -EINVAL;

	mutex_lock(&ctx->db_lock);
	list_for_each_entry(page, &ctx->db_pages, list)
		if (page->user_virt == page_virt)
			goto found;

	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page) {
		err = -ENOMEM;
		goto out;
	}
	page->user_virt = page_virt;
	page->umem = ib_umem_get(ctx->ibuc.device, page_virt, PAGE_SIZE, 0);
	if (IS_ERR(page->umem)) {
		err = PTR_ERR(page->umem);
		kfree(page);
		goto out;
	}
	list_add(&page->list, &ctx->db_pages);

found:
	page->refcnt++;
	db->page = page;
	db->dma = sg_dma_address(page->umem->sgt_append.sgt.sgl) +
		  (virt & ~PAGE_MASK);
out:
	mutex_unlock(&ctx->db_lock);
	return err;
}

void mlx5_ib_db_unmap_user(struct mlx5_ib_ucontext *ctx,
			   struct mlx5_ib_user_db *db)
{
	struct mlx5_ib_user_db_page *page = db->page;

	mutex_lock(&ctx->db_lock);
	if (!--page->refcnt) {
		list_del(&page->list);
		ib_umem_release(page->umem);
		kfree(page);
	}
	mutex_unlock(&ctx->db_lock);
	db->page = NULL;
}

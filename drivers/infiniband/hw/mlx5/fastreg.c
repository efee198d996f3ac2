// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fast registration for kernel ULPs: ib_alloc_mr() makes a free MTT key
 * that UMR may change (umr_en), with room for its page list;
 * ib_map_mr_sg() writes the list (big-endian addresses, read and write
 * enabled) into a DMA-mapped buffer; IB_WR_REG_MR is a UMR WQE that
 * gives the key that list, its range, rights and new variant byte and
 * enables it, and IB_WR_LOCAL_INV a UMR WQE that makes it free again.
 *
 * A UMR WQE: the control segment (opcode UMR, the key in its immediate
 * dword), the UMR control segment (the translation's size in octwords,
 * the mask of the key's fields it sets), the key's context in the
 * layout of CREATE_MKEY's, then a data segment pointing at the page
 * list, read through the PD's DMA key.  The list is read as 64-byte
 * blocks of 8 entries, so it is kept padded with zeroes to one.
 */
#include "mlx5_ib.h"
#include "wr.h"

/* The entries of a UMR translation block. */
#define MLX5_IB_XLT_ALIGN	(MLX5_UMR_MTT_ALIGNMENT / sizeof(u64))

/* The page sizes a key's log_page_size holds (4 KiB to 1 GiB). */
#define MLX5_IB_FR_MIN_SHIFT	12
#define MLX5_IB_FR_MAX_SHIFT	30

/* The rights a registration may grant. */
#define MLX5_IB_FR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)

/* What REG_MR sets of the key; everything else stays as created. */
#define MLX5_IB_REG_MASK	(MLX5_MKEY_MASK_LEN | MLX5_MKEY_MASK_PAGE_SIZE | \
				 MLX5_MKEY_MASK_START_ADDR | \
				 MLX5_MKEY_MASK_EN_RINVAL | MLX5_MKEY_MASK_KEY | \
				 MLX5_MKEY_MASK_LR | MLX5_MKEY_MASK_LW | \
				 MLX5_MKEY_MASK_RR | MLX5_MKEY_MASK_RW | \
				 MLX5_MKEY_MASK_A | MLX5_MKEY_MASK_FREE)

static size_t mlx5_ib_fr_list_bytes(struct mlx5_ib_mr *mr)
{
	return mr->max_pages * sizeof(*mr->pages);
}

struct ib_mr *mlx5_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg)
{
	struct mlx5_ib_dev *dev = to_mdev(ibpd->device);
	struct device *dma = dev->mdev->device;
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	struct mlx5_ib_mr *mr;
	int err;

	/* Gapped lists (KLM keys) and integrity (signature keys) are not offered. */
	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg ||
	    max_num_sg > BIT(MLX5_CAP_GEN(dev->mdev, log_max_klm_list_size)))
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = ALIGN(max_num_sg, MLX5_IB_XLT_ALIGN);
	mr->pages = kzalloc(mlx5_ib_fr_list_bytes(mr), GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->pages_dma = dma_map_single(dma, mr->pages, mlx5_ib_fr_list_bytes(mr),
				       DMA_TO_DEVICE);
	if (dma_mapping_error(dma, mr->pages_dma)) {
		err = -ENOMEM;
		goto err_pages;
	}

	mlx5_ib_set_mkc(mkc, to_mpd(ibpd)->pdn, 0, MLX5_MKC_ACCESS_MODE_MTT);
	MLX5_SET(mkc, mkc, free, 1);
	MLX5_SET(mkc, mkc, umr_en, 1);
	MLX5_SET(mkc, mkc, log_page_size, PAGE_SHIFT);
	MLX5_SET(mkc, mkc, translations_octword_size, mr->max_pages / 2);
	err = mlx5_core_create_mkey(dev->mdev, &mr->mkey, in, sizeof(in));
	err = mlx5_ib_cmd_status(dev, err);
	if (err)
		goto err_map;
	mlx5_ib_mr_publish(mr);
	return &mr->ibmr;

err_map:
	dma_unmap_single(dma, mr->pages_dma, mlx5_ib_fr_list_bytes(mr),
			 DMA_TO_DEVICE);
err_pages:
	kfree(mr->pages);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* After DESTROY_MKEY: the device reads the list no more. */
void mlx5_ib_fr_free(struct mlx5_ib_dev *dev, struct mlx5_ib_mr *mr)
{
	dma_unmap_single(dev->mdev->device, mr->pages_dma,
			 mlx5_ib_fr_list_bytes(mr), DMA_TO_DEVICE);
	kfree(mr->pages);
}

static int mlx5_ib_fr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mlx5_ib_mr *mr = to_mmr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_be64(addr | MLX5_EN_RD | MLX5_EN_WR);
	return 0;
}

int mlx5_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		      unsigned int *sg_offset)
{
	struct mlx5_ib_mr *mr = to_mmr(ibmr);
	struct device *dma = to_mdev(ibmr->device)->mdev->device;
	u32 end;
	int n;

	if (!mr->pages)
		return -EINVAL;
	dma_sync_single_for_cpu(dma, mr->pages_dma, mlx5_ib_fr_list_bytes(mr),
				DMA_TO_DEVICE);
	mr->npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mlx5_ib_fr_set_page);
	end = ALIGN(mr->npages, MLX5_IB_XLT_ALIGN);
	memset(&mr->pages[mr->npages], 0,
	       (end - mr->npages) * sizeof(*mr->pages));
	dma_sync_single_for_device(dma, mr->pages_dma, mlx5_ib_fr_list_bytes(mr),
				   DMA_TO_DEVICE);
	return n;
}

/**
 * mlx5_ib_wqe_reg_mr - the UMR segments of an IB_WR_REG_MR
 * @w: the WQE, its control segment written
 * @pd: the QP's PD, whose DMA key reads the page list
 * @reg: the work request
 *
 * Return: 0, or -EINVAL for a request the key cannot take.
 */
int mlx5_ib_wqe_reg_mr(struct mlx5_ib_wqe *w, struct ib_pd *pd,
		       const struct ib_reg_wr *reg)
{
	struct mlx5_ib_mr *mr = to_mmr(reg->mr);
	u32 octs = ALIGN(mr->npages, MLX5_IB_XLT_ALIGN) / 2;
	struct mlx5_wqe_umr_ctrl_seg umr = {};
	u32 mkc[MLX5_ST_SZ_DW(mkc)] = {};
	unsigned int shift;
	struct ib_sge list;

	if (!mr->pages || (reg->access & ~MLX5_IB_FR_ACCESS) ||
	    (reg->key & ~0xffu) != (mr->mkey & ~0xffu) ||
	    !is_power_of_2(reg->mr->page_size))
		return -EINVAL;
	shift = ilog2(reg->mr->page_size);
	if (shift < MLX5_IB_FR_MIN_SHIFT || shift > MLX5_IB_FR_MAX_SHIFT)
		return -EINVAL;

	umr.xlt_octowords = cpu_to_be16(octs);
	umr.mkey_mask = cpu_to_be64(MLX5_IB_REG_MASK);
	mlx5_ib_wqe_put(w, &umr, sizeof(umr));

	MLX5_SET(mkc, mkc, free, 0);
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, lw, !!(reg->access & IB_ACCESS_LOCAL_WRITE));
	MLX5_SET(mkc, mkc, rr, !!(reg->access & IB_ACCESS_REMOTE_READ));
	MLX5_SET(mkc, mkc, rw, !!(reg->access & IB_ACCESS_REMOTE_WRITE));
	MLX5_SET(mkc, mkc, a, !!(reg->access & IB_ACCESS_REMOTE_ATOMIC));
	/* A peer's SEND with invalidate may free it, as ULPs expect. */
	MLX5_SET(mkc, mkc, en_rinval, 1);
	MLX5_SET(mkc, mkc, mkey_7_0, reg->key & 0xff);
	MLX5_SET(mkc, mkc, log_page_size, shift);
	MLX5_SET64(mkc, mkc, start_addr, reg->mr->iova);
	MLX5_SET64(mkc, mkc, len, reg->mr->length);
	mlx5_ib_wqe_put(w, mkc, sizeof(mkc));

	if (octs) {
		list.addr = mr->pages_dma;
		list.length = octs * MLX5_IB_DS;
		list.lkey = pd->local_dma_lkey;
		mlx5_ib_wqe_dseg(mlx5_ib_wqe_ds(w), &list);
	}
	return 0;
}

/* The UMR segments of an IB_WR_LOCAL_INV: the key becomes free. */
void mlx5_ib_wqe_local_inv(struct mlx5_ib_wqe *w)
{
	struct mlx5_wqe_umr_ctrl_seg umr = {};
	u32 mkc[MLX5_ST_SZ_DW(mkc)] = {};

	umr.mkey_mask = cpu_to_be64(MLX5_MKEY_MASK_FREE);
	mlx5_ib_wqe_put(w, &umr, sizeof(umr));
	MLX5_SET(mkc, mkc, free, 1);
	mlx5_ib_wqe_put(w, mkc, sizeof(mkc));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * User buffers as the device sees them: the page list of a CQ's or QP's
 * ring (PAS) or of a memory region (MTT), in the largest blocks the
 * buffer's layout allows.
 *
 * The rings' contexts say where in its first block a ring starts only
 * in 64ths of the block, so a block may be no larger than the alignment
 * of the buffer's user address: a 4 KiB-aligned buffer that happens to
 * sit at the second half of a physically contiguous 8 KiB stays in
 * 4 KiB blocks, and one inside a page is given in 4 KiB blocks with its
 * offset.
 */
#include "mlx5_ib.h"

/**
 * mlx5_ib_buf_pgsz - the block size of a ring's page list
 * @umem: the pinned ring
 * @bitmap: the block sizes the context can express
 * @va: the ring's user address
 * @page_offset: where the ring starts in its first block, in 64ths of
 *		 the block (the contexts' page_offset)
 *
 * A ring at a block boundary gets the largest block its address and
 * layout allow.  One that starts inside a page (libmlx5's allocators
 * of a parent domain may hand out any 64-byte aligned memory) is given
 * in 4 KiB blocks, its offset in 64-byte units.
 *
 * Return: the block size, or 0 when none fits (@va not 64-byte aligned).
 */
unsigned long mlx5_ib_buf_pgsz(struct ib_umem *umem, unsigned long bitmap,
			       u64 va, u32 *page_offset)
{
	unsigned long aligned = bitmap;

	*page_offset = 0;
	if (va)
		aligned &= GENMASK_ULL(__ffs64(va), 0);
	/* The core WARNs at a bitmap without a page size. */
	if (aligned & GENMASK_ULL(PAGE_SHIFT, 0))
		return ib_umem_find_best_pgsz(umem, aligned, va);

	if ((va & (SZ_64 - 1)) || !(bitmap & SZ_4K) ||
	    !(SZ_4K & GENMASK_ULL(PAGE_SHIFT, 0)))
		return 0;
	*page_offset = (va & (SZ_4K - 1)) / SZ_64;
	return ib_umem_find_best_pgsz(umem, SZ_4K, va);
}

/* Write @umem's blocks of @pgsz bytes to @pas, big endian. */
void mlx5_ib_buf_fill_pas(struct ib_umem *umem, unsigned long pgsz, __be64 *pas)
{
	struct ib_block_iter biter;
	size_t i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz)
		pas[i++] = cpu_to_be64(rdma_block_iter_dma_address(&biter));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * User buffers as the device sees them: the page list of a CQ's or QP's
 * ring (PAS) or of a memory region (MTT), in the largest blocks the
 * buffer's layout allows.
 *
 * The rings' contexts have no offset into the first block, so a block
 * may be no larger than the alignment of the buffer's user address: a
 * 4 KiB-aligned buffer that happens to sit at the second half of a
 * physically contiguous 8 KiB stays in 4 KiB blocks.
 */
#include "mlx5_ib.h"

/**
 * mlx5_ib_buf_pgsz - the block size of a ring's page list
 * @umem: the pinned ring
 * @bitmap: the block sizes the context can express
 * @va: the ring's user address
 *
 * Return: the block size, or 0 when none fits (@va not 4 KiB aligned).
 */
unsigned long mlx5_ib_buf_pgsz(struct ib_umem *umem, unsigned long bitmap,
			       u64 va)
{
	if (va)
		bitmap &= GENMASK_ULL(__ffs64(va), 0);
	return ib_umem_find_best_pgsz(umem, bitmap, va);
}

/* Write @umem's blocks of @pgsz bytes to @pas, big endian. */
void mlx5_ib_buf_fill_pas(struct ib_umem *umem, unsigned long pgsz, __be64 *pas)
{
	struct ib_block_iter biter;
	size_t i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz)
		pas[i++] = cpu_to_be64(rdma_block_iter_dma_address(&biter));
}

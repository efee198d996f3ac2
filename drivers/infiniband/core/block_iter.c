// SPDX-License-Identifier: GPL-2.0-only
/*
 * Iteration over a DMA-mapped scatterlist in blocks of a page size the
 * device supports (<rdma/iter.h>: rdma_for_each_block(),
 * rdma_umem_for_each_dma_block()), for drivers that fill their own page
 * tables (mlx5, irdma, efa, ...).
 *
 * Each step yields the block that holds the current position: its DMA
 * address (rdma_block_iter_dma_address() aligns it down), then moves the
 * position to the start of the next block, skipping the rest of the
 * entries that end inside this one.  A DMA-contiguous run of entries
 * thus gives each block once, and a block-aligned entry start begins a
 * new block.  The umem variant counts the blocks itself (__sg_numblocks),
 * since the last entry may extend past the umem.
 */
#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/string.h>
#include <rdma/iter.h>

/**
 * __rdma_block_iter_start - start iterating over @sglist in @pgsz blocks
 * @biter: the iterator
 * @sglist: DMA-mapped scatterlist
 * @nents: its mapped entries
 * @pgsz: block size, a power of two
 */
void __rdma_block_iter_start(struct ib_block_iter *biter,
			     struct scatterlist *sglist, unsigned int nents,
			     unsigned long pgsz)
{
	memset(biter, 0, sizeof(*biter));
	biter->__sg = sglist;
	biter->__sg_nents = nents;
	biter->__pg_bit = __fls(pgsz);
}
EXPORT_SYMBOL(__rdma_block_iter_start);

/**
 * __rdma_block_iter_next - step to the next block
 * @biter: the iterator
 *
 * Return: true with the block in @biter, false at the end.
 */
bool __rdma_block_iter_next(struct ib_block_iter *biter)
{
	dma_addr_t block = BIT_ULL(biter->__pg_bit);
	dma_addr_t to_next, rest;

	if (!biter->__sg || !biter->__sg_nents)
		return false;

	biter->__dma_addr = sg_dma_address(biter->__sg) + biter->__sg_advance;
	to_next = block - (biter->__dma_addr & (block - 1));

	/* Consume whole entries that end before the next block starts. */
	for (;;) {
		rest = sg_dma_len(biter->__sg) - biter->__sg_advance;
		if (rest > to_next) {
			biter->__sg_advance += to_next;
			break;
		}
		to_next -= rest;
		biter->__sg_advance = 0;
		biter->__sg = sg_next(biter->__sg);
		if (!--biter->__sg_nents || !biter->__sg)
			break;
	}
	return true;
}
EXPORT_SYMBOL(__rdma_block_iter_next);

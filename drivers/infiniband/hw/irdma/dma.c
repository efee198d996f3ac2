// SPDX-License-Identifier: GPL-2.0-only
/*
 * Small things every part of irdma uses: coherent buffers the device
 * reads and writes, the rings it writes entries into (CQs, CEQs, the
 * AEQ), and the resource numbers it knows objects by.
 */
#include "irdma.h"

int irdma_dma_alloc(struct irdma_dev *dev, struct irdma_dma *m, size_t size)
{
	m->size = size;
	m->va = dma_alloc_coherent(dev->dma, size, &m->pa, GFP_KERNEL);
	return m->va ? 0 : -ENOMEM;
}

void irdma_dma_free(struct irdma_dev *dev, struct irdma_dma *m)
{
	if (m->va)
		dma_free_coherent(dev->dma, m->size, m->va, m->pa);
	m->va = NULL;
}

int irdma_ring_alloc(struct irdma_dev *dev, struct irdma_ring *r, u32 size,
		     u32 stride)
{
	r->size = size;
	r->stride = stride;
	r->head = 0;
	r->polarity = true;
	return irdma_dma_alloc(dev, &r->mem, (size_t)size * stride);
}

void irdma_ring_free(struct irdma_dev *dev, struct irdma_ring *r)
{
	irdma_dma_free(dev, &r->mem);
}

/*
 * The device writes an entry's valid qword last: once it reads valid,
 * dma_rmb() orders the reads of the rest after it.
 */
__le64 *irdma_ring_peek(struct irdma_ring *r, unsigned int valid_qword)
{
	__le64 *e = r->mem.va + (size_t)r->head * r->stride;

	if (!!(le64_to_cpu(READ_ONCE(e[valid_qword])) & BIT_ULL(63)) !=
	    r->polarity)
		return NULL;
	dma_rmb();
	return e;
}

void irdma_ring_advance(struct irdma_ring *r)
{
	if (++r->head == r->size) {
		r->head = 0;
		r->polarity = !r->polarity;
	}
}

int irdma_ids_init(struct irdma_ids *ids, u32 first, u32 max)
{
	if (first >= max)
		return -ENOSPC;
	ida_init(&ids->ida);
	ids->first = first;
	ids->max = max;
	return 0;
}

int irdma_id_get(struct irdma_ids *ids)
{
	return ida_alloc_range(&ids->ida, ids->first, ids->max - 1,
			       GFP_KERNEL);
}

void irdma_id_put(struct irdma_ids *ids, u32 id)
{
	ida_free(&ids->ida, id);
}

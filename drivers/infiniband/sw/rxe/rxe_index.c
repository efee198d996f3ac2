// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-kind index allocation for rxe objects (see rxe_index.h).  The
 * xarray maps each index to its object, for the protocol engine to look
 * up keys and numbers found in packets and work requests.
 *
 * AHs come and go in any context (rdma_create_ah() without
 * RDMA_CREATE_AH_SLEEPABLE, rdma_destroy_ah() from completion handlers):
 * the xarray lock is taken with interrupts off, for every kind alike.
 */
#include "rxe_index.h"

void rxe_index_space_init(struct rxe_index_space *space, u32 min, u32 max)
{
	xa_init_flags(&space->xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	space->range = XA_LIMIT(min, max);
	space->next = min;
}

/* Every object is gone by now: the device is being freed. */
void rxe_index_space_destroy(struct rxe_index_space *space)
{
	xa_destroy(&space->xa);
}

/*
 * Returns 0 and the new index in @index, or -ENOMEM, also when the range
 * is exhausted: the device is out of objects of this kind.  With a @gfp
 * that may sleep, the caller must have interrupts enabled: the xarray
 * then drops its lock to allocate.
 */
int rxe_index_alloc(struct rxe_index_space *space, void *object, u32 *index,
		    gfp_t gfp)
{
	unsigned long flags;
	int err;

	xa_lock_irqsave(&space->xa, flags);
	err = __xa_alloc_cyclic(&space->xa, index, object, space->range,
				&space->next, gfp);
	xa_unlock_irqrestore(&space->xa, flags);

	if (err == -EBUSY)
		return -ENOMEM;
	/* 1 only says that the allocation wrapped around. */
	return err < 0 ? err : 0;
}

/*
 * Claims the fixed @index, outside the allocation range (QP1): -EBUSY if
 * already taken.  Process context.
 */
int rxe_index_insert(struct rxe_index_space *space, void *object, u32 index)
{
	return xa_insert_irq(&space->xa, index, object, GFP_KERNEL);
}

void rxe_index_free(struct rxe_index_space *space, u32 index)
{
	unsigned long flags;

	xa_lock_irqsave(&space->xa, flags);
	__xa_erase(&space->xa, index);
	xa_unlock_irqrestore(&space->xa, flags);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-kind index allocation for rxe objects (see rxe_index.h).  The
 * xarray maps each index to its object, for the protocol engine to look
 * up keys and numbers found in packets and work requests.
 */
#include "rxe_index.h"

void rxe_index_space_init(struct rxe_index_space *space, u32 min, u32 max)
{
	xa_init_flags(&space->xa, XA_FLAGS_ALLOC);
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
 * is exhausted: the device is out of objects of this kind.
 */
int rxe_index_alloc(struct rxe_index_space *space, void *object, u32 *index,
		    gfp_t gfp)
{
	int err;

	err = xa_alloc_cyclic(&space->xa, index, object, space->range,
			      &space->next, gfp);
	if (err == -EBUSY)
		return -ENOMEM;
	/* 1 only says that the allocation wrapped around. */
	return err < 0 ? err : 0;
}

void rxe_index_free(struct rxe_index_space *space, u32 index)
{
	xa_erase(&space->xa, index);
}

/*
 * Claims the fixed @index, outside the allocation range (QP1): -EBUSY if
 * already taken.
 */
int rxe_index_insert(struct rxe_index_space *space, void *object, u32 index)
{
	return xa_insert(&space->xa, index, object, GFP_KERNEL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-kind index allocation for rxe objects (see rxe_index.h).  The
 * xarray maps each index to its object, for the protocol engine to look
 * up keys and numbers found in packets and work requests.
 *
 * AHs come and go in any context (rdma_create_ah() without
 * RDMA_CREATE_AH_SLEEPABLE, rdma_destroy_ah() from completion handlers):
 * their xarray lock is taken with interrupts off.  The QP index is
 * changed in process context only and read by the receive path, in
 * softirq or a sender's context, once for every packet: its lock is
 * taken with bottom halves off, which costs less than masking
 * interrupts (under TCG, unmasking them ends a translation block).
 */
#include "rxe_index.h"

void rxe_index_space_init(struct rxe_index_space *space, u32 min, u32 max,
			  bool bh)
{
	xa_init_flags(&space->xa, XA_FLAGS_ALLOC |
		      (bh ? XA_FLAGS_LOCK_BH : XA_FLAGS_LOCK_IRQ));
	space->range = XA_LIMIT(min, max);
	space->next = min;
	space->bh = bh;
}

static void rxe_index_lock(struct rxe_index_space *space,
			   unsigned long *flags)
	__acquires(&space->xa.xa_lock)
{
	if (space->bh)
		xa_lock_bh(&space->xa);
	else
		xa_lock_irqsave(&space->xa, *flags);
}

static void rxe_index_unlock(struct rxe_index_space *space,
			     unsigned long flags)
	__releases(&space->xa.xa_lock)
{
	if (space->bh)
		xa_unlock_bh(&space->xa);
	else
		xa_unlock_irqrestore(&space->xa, flags);
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
	unsigned long flags = 0;
	int err;

	rxe_index_lock(space, &flags);
	err = __xa_alloc_cyclic(&space->xa, index, object, space->range,
				&space->next, gfp);
	rxe_index_unlock(space, flags);

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
	if (space->bh)
		return xa_insert_bh(&space->xa, index, object, GFP_KERNEL);
	return xa_insert_irq(&space->xa, index, object, GFP_KERNEL);
}

/*
 * Makes @object the one at @index, reserved by rxe_index_alloc() with a
 * NULL object (lookups find nothing there meanwhile).  The store is a
 * release (rcu_assign_pointer()): a lookup that finds @object (an
 * acquire, through the pointer, rcu_dereference()) also sees everything
 * written to it before.  The slot exists: nothing is allocated.
 */
void rxe_index_publish(struct rxe_index_space *space, u32 index, void *object)
{
	unsigned long flags = 0;

	rxe_index_lock(space, &flags);
	__xa_store(&space->xa, index, object, GFP_ATOMIC);
	rxe_index_unlock(space, flags);
}

void rxe_index_free(struct rxe_index_space *space, u32 index)
{
	unsigned long flags = 0;

	rxe_index_lock(space, &flags);
	__xa_erase(&space->xa, index);
	rxe_index_unlock(space, flags);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Numbers that name rxe objects on the wire or to userspace: QP numbers,
 * SRQ numbers, the index part of memory keys, AH numbers.  Each kind is
 * allocated from its own range, cyclically, as stock rxe does, so that a
 * number just freed is not reused at once by a new object a stale peer
 * could mistake for the old one.
 */
#ifndef RXE_INDEX_H
#define RXE_INDEX_H

#include <linux/types.h>
#include <linux/xarray.h>

struct rxe_index_space {
	/*
	 * The xarray's own lock serialises allocation and freeing; taken
	 * with bottom halves off if @bh, else with interrupts off.
	 */
	struct xarray	xa;
	struct xa_limit	range;
	u32		next;
	bool		bh;
};

/*
 * @bh: the kind is created and destroyed in process context only, and
 * looked up at most from softirq (rxe_index.c).
 */
void rxe_index_space_init(struct rxe_index_space *space, u32 min, u32 max,
			  bool bh);
void rxe_index_space_destroy(struct rxe_index_space *space);
int rxe_index_alloc(struct rxe_index_space *space, void *object, u32 *index,
		    gfp_t gfp);
int rxe_index_insert(struct rxe_index_space *space, void *object, u32 index);
void rxe_index_publish(struct rxe_index_space *space, u32 index, void *object);
void rxe_index_free(struct rxe_index_space *space, u32 index);

#endif /* RXE_INDEX_H */

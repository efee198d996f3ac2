/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Handing kernel buffers (the shared queues) to userspace.  Creating an
 * object offers each of its buffers at an offset of the uverbs file,
 * which the response carries in a struct mminfo; the application then
 * mmaps the file at that offset, once.
 */
#ifndef RXE_MMAP_H
#define RXE_MMAP_H

#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

/* Per user context: the buffers offered and not mapped yet. */
struct rxe_mmap_ctx {
	/* Nests inside mmap_lock (rxe_mmap() runs under it). */
	struct mutex		lock;
	/* Protected by lock: */
	struct list_head	pending;
	u64			next_offset;
};

/* One buffer on offer, embedded in the object that owns the buffer. */
struct rxe_mmap_entry {
	struct list_head	list;	/* in pending, or empty */
	u64			offset;
	size_t			size;
	void			*buf;	/* vmalloc()ed, whole pages zeroed */
};

void rxe_mmap_ctx_init(struct rxe_mmap_ctx *ctx);
void rxe_mmap_offer(struct rxe_mmap_ctx *ctx, struct rxe_mmap_entry *entry,
		    void *buf, size_t size, struct mminfo *mi);
void rxe_mmap_withdraw(struct rxe_mmap_ctx *ctx, struct rxe_mmap_entry *entry);
int rxe_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);

#endif /* RXE_MMAP_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ring buffers of rxe: completion queues and the send, receive and
 * shared receive queues.  The layout is the uapi's struct rxe_queue_buf:
 * element size, index mask, the producer and consumer indices each in
 * its own cache line, then 2^n slots, one always left empty so that
 * full and empty differ.  Indices are kept masked.
 *
 * The queues of user objects are mapped into the application, which
 * then owns one end: it consumes a CQ and produces to an SQ, RQ or SRQ.
 * Everything in the buffer is writable by userspace, so the kernel keeps
 * its own copy of the index it owns and masks the one it reads.
 */
#ifndef RXE_QUEUE_H
#define RXE_QUEUE_H

#include <linux/types.h>
#include <rdma/rdma_user_rxe.h>

#include "rxe_mmap.h"

enum rxe_queue_type {
	RXE_QUEUE_KERNEL,	/* both ends in the kernel */
	RXE_QUEUE_TO_USER,	/* kernel produces, userspace consumes */
	RXE_QUEUE_FROM_USER,	/* userspace produces, kernel consumes */
};

struct rxe_queue {
	struct rxe_queue_buf	*buf;	/* rxe_queue_vmalloc() */
	size_t			buf_size;
	unsigned int		log2_elem_size;
	u32			index_mask;
	enum rxe_queue_type	type;

	/* The kernel's copies of the indices it owns (see above). */
	u32			prod;
	u32			cons;

	/* For user queues: where the buffer is offered for mmap. */
	struct rxe_mmap_ctx	*mmap_ctx;
	struct rxe_mmap_entry	mmap_entry;
};

struct rxe_queue *rxe_queue_alloc(u32 *num_elem, size_t elem_size,
				  enum rxe_queue_type type);
void rxe_queue_free(struct rxe_queue *q);
/* Zeroed pages for a queue or its copy, charged to the caller's memcg. */
void *rxe_queue_vmalloc(size_t size);
void rxe_queue_export(struct rxe_queue *q, struct rxe_mmap_ctx *ctx,
		      struct mminfo *mi);
int rxe_queue_move(struct rxe_queue *dst, struct rxe_queue *src);
void rxe_queue_reset(struct rxe_queue *q);

u32 rxe_queue_count(const struct rxe_queue *q);

static inline bool rxe_queue_empty(const struct rxe_queue *q)
{
	return rxe_queue_count(q) == 0;
}

static inline bool rxe_queue_full(const struct rxe_queue *q)
{
	return rxe_queue_count(q) == q->index_mask;
}

static inline void *rxe_queue_addr(const struct rxe_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) <<
			       q->log2_elem_size);
}

/* For the producer when it is the kernel; the caller checked !full. */
static inline void *rxe_queue_producer_addr(const struct rxe_queue *q)
{
	return rxe_queue_addr(q, q->prod);
}

void rxe_queue_advance_producer(struct rxe_queue *q);

/* For the consumer when it is the kernel; the caller checked !empty. */
static inline void *rxe_queue_consumer_addr(const struct rxe_queue *q)
{
	return rxe_queue_addr(q, q->cons);
}

void rxe_queue_advance_consumer(struct rxe_queue *q);

#endif /* RXE_QUEUE_H */

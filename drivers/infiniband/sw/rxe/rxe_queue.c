// SPDX-License-Identifier: GPL-2.0-only
/*
 * rxe's shared ring buffers (see rxe_queue.h).  The caller serialises
 * the kernel's side of each queue: the object's lock.
 */
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rxe_queue.h"

/* More slots than this and the u32 indices could not address them. */
#define RXE_QUEUE_MAX_SLOTS	BIT(31)

static bool rxe_queue_kernel_produces(const struct rxe_queue *q)
{
	return q->type != RXE_QUEUE_FROM_USER;
}

static bool rxe_queue_kernel_consumes(const struct rxe_queue *q)
{
	return q->type != RXE_QUEUE_TO_USER;
}

static u32 rxe_queue_prod(const struct rxe_queue *q)
{
	if (rxe_queue_kernel_produces(q))
		return q->prod;
	/* Pairs with userspace's release store after writing the slot. */
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}

static u32 rxe_queue_cons(const struct rxe_queue *q)
{
	if (rxe_queue_kernel_consumes(q))
		return q->cons;
	/* Pairs with userspace's release store after reading the slot. */
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

/* Makes the slots produced so far visible before the index that says so. */
static void rxe_queue_publish_prod(struct rxe_queue *q)
{
	/* Pairs with the consumer's acquire load of the index. */
	smp_store_release(&q->buf->producer_index, q->prod);
}

/* Lets the producer reuse the slots consumed, once done reading them. */
static void rxe_queue_publish_cons(struct rxe_queue *q)
{
	/* Pairs with the producer's acquire load of the index. */
	smp_store_release(&q->buf->consumer_index, q->cons);
}

u32 rxe_queue_count(const struct rxe_queue *q)
{
	return (rxe_queue_prod(q) - rxe_queue_cons(q)) & q->index_mask;
}

/*
 * Queue memory is charged to the memory cgroup of the task creating the
 * object: a QP of RXE_MAX_QP_WR WRs is hundreds of MiB (and as much
 * again for the requester's shadow copy, rxe_req_init()), which a
 * process held to memory.max got from outside its cgroup.  At the limit
 * the create fails with ENOMEM rather than the cgroup's OOM killer
 * running (__GFP_RETRY_MAYFAIL).  Zeroed whole pages, as userspace maps
 * them (rxe_mmap(), which maps them itself: vmalloc_user() cannot
 * charge).
 */
void *rxe_queue_vmalloc(size_t size)
{
	return __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
			 __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
}

/*
 * A queue for at least *@num_elem elements of @elem_size bytes; on
 * return *@num_elem holds its real capacity, 2^n - 1.  The caller checked
 * *@num_elem against the device limits.
 */
struct rxe_queue *rxe_queue_alloc(u32 *num_elem, size_t elem_size,
				  enum rxe_queue_type type)
{
	struct rxe_queue *q;
	size_t data_size;
	u32 num_slots;

	if (*num_elem >= RXE_QUEUE_MAX_SLOTS || !elem_size ||
	    elem_size > SZ_1M)
		return NULL;
	num_slots = roundup_pow_of_two(*num_elem + 1);
	elem_size = roundup_pow_of_two(elem_size);

	data_size = array_size(num_slots, elem_size);
	/* struct mminfo gives userspace the size in 32 bits. */
	if (data_size > U32_MAX - PAGE_SIZE - sizeof(*q->buf))
		return NULL;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return NULL;

	q->buf_size = sizeof(*q->buf) + data_size;
	q->buf = rxe_queue_vmalloc(q->buf_size);
	if (!q->buf) {
		kfree(q);
		return NULL;
	}

	q->type = type;
	q->log2_elem_size = order_base_2(elem_size);
	q->index_mask = num_slots - 1;
	INIT_LIST_HEAD(&q->mmap_entry.list);

	/* What userspace reads to walk the queue. */
	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->index_mask;

	*num_elem = num_slots - 1;
	return q;
}

/* Existing mappings keep their pages (see rxe_mmap.c). */
void rxe_queue_free(struct rxe_queue *q)
{
	if (!q)
		return;
	if (q->mmap_ctx)
		rxe_mmap_withdraw(q->mmap_ctx, &q->mmap_entry);
	vfree(q->buf);
	kfree(q);
}

/* Offers a user queue's buffer for mmap; @mi goes to userspace. */
void rxe_queue_export(struct rxe_queue *q, struct rxe_mmap_ctx *ctx,
		      struct mminfo *mi)
{
	q->mmap_ctx = ctx;
	rxe_mmap_offer(ctx, &q->mmap_entry, q->buf, q->buf_size, mi);
}

/*
 * Resizing: moves the elements queued in @src, oldest first, to the
 * empty queue @dst of the same type.  -EINVAL if they do not fit.
 */
int rxe_queue_move(struct rxe_queue *dst, struct rxe_queue *src)
{
	size_t elem_size = min(BIT(dst->log2_elem_size),
			       BIT(src->log2_elem_size));
	u32 count = rxe_queue_count(src);
	u32 cons = rxe_queue_cons(src);
	u32 i;

	if (count > dst->index_mask)
		return -EINVAL;

	for (i = 0; i < count; i++)
		memcpy(rxe_queue_addr(dst, i), rxe_queue_addr(src, cons + i),
		       elem_size);

	dst->prod = count;
	dst->cons = 0;
	rxe_queue_publish_prod(dst);
	rxe_queue_publish_cons(dst);
	return 0;
}

/*
 * Drops what is queued: a QP back in RESET.  The kernel moves only the
 * indices it owns; for a user queue, that means consuming up to where
 * the application has produced.
 */
void rxe_queue_reset(struct rxe_queue *q)
{
	switch (q->type) {
	case RXE_QUEUE_KERNEL:
		q->prod = 0;
		q->cons = 0;
		rxe_queue_publish_prod(q);
		rxe_queue_publish_cons(q);
		break;
	case RXE_QUEUE_FROM_USER:
		q->cons = rxe_queue_prod(q);
		rxe_queue_publish_cons(q);
		break;
	case RXE_QUEUE_TO_USER:
		/* Only the consumer may drop what was produced. */
		break;
	}
}

void rxe_queue_advance_producer(struct rxe_queue *q)
{
	q->prod = (q->prod + 1) & q->index_mask;
	rxe_queue_publish_prod(q);
}

void rxe_queue_advance_consumer(struct rxe_queue *q)
{
	q->cons = (q->cons + 1) & q->index_mask;
	rxe_queue_publish_cons(q);
}

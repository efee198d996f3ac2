// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmap of rxe's shared queues (see rxe_mmap.h).
 *
 * Lifetime: remap_vmalloc_range() takes a reference on every page it
 * maps, so a mapping keeps its pages after the owner vfree()s the
 * buffer (object destroyed, queue resized, device gone).  The mapping
 * therefore needs no vm_operations of ours, and nothing of rxe is
 * reachable from a VMA: the module may go while applications still hold
 * mappings of dead queues.
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "rxe_mmap.h"
#include "rxe_verbs.h"

void rxe_mmap_ctx_init(struct rxe_mmap_ctx *ctx)
{
	mutex_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->pending);
	/* Offset 0 is never handed out: it would look like "none". */
	ctx->next_offset = PAGE_SIZE;
}

/*
 * Offers @size bytes at @buf for mmap and tells userspace where, in @mi.
 * Offsets grow monotonically: a stale offset never maps a newer buffer.
 * The size is given in whole pages, as stock does: vmalloc_user() zeroed
 * the tail of the last page.
 */
void rxe_mmap_offer(struct rxe_mmap_ctx *ctx, struct rxe_mmap_entry *entry,
		    void *buf, size_t size, struct mminfo *mi)
{
	entry->buf = buf;
	entry->size = PAGE_ALIGN(size);

	mutex_lock(&ctx->lock);
	entry->offset = ctx->next_offset;
	ctx->next_offset += entry->size;
	list_add_tail(&entry->list, &ctx->pending);
	mutex_unlock(&ctx->lock);

	mi->offset = entry->offset;
	mi->size = entry->size;
	mi->pad = 0;
}

/* The owner frees the buffer: it is no longer on offer, if still. */
void rxe_mmap_withdraw(struct rxe_mmap_ctx *ctx, struct rxe_mmap_entry *entry)
{
	mutex_lock(&ctx->lock);
	list_del_init(&entry->list);
	mutex_unlock(&ctx->lock);
}

static struct rxe_mmap_entry *rxe_mmap_find(struct rxe_mmap_ctx *ctx,
					    u64 offset)
{
	struct rxe_mmap_entry *entry;

	lockdep_assert_held(&ctx->lock);

	list_for_each_entry(entry, &ctx->pending, list)
		if (entry->offset == offset)
			return entry;
	return NULL;
}

/*
 * ops.mmap.  Maps the whole buffer offered at the VMA's offset, or a
 * prefix of it; never more than the buffer (-EINVAL), and each offer
 * only once.
 */
int rxe_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rxe_mmap_ctx *ctx = &to_ruc(ibuc)->mmap;
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct rxe_mmap_entry *entry;
	int err;

	mutex_lock(&ctx->lock);
	entry = rxe_mmap_find(ctx, offset);
	if (!entry) {
		err = -EINVAL;
		goto out;
	}
	if (len > entry->size) {
		err = -EINVAL;
		goto out;
	}

	err = remap_vmalloc_range(vma, entry->buf, 0);
	if (!err)
		list_del_init(&entry->list);
out:
	mutex_unlock(&ctx->lock);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmap of rxe's shared queues (see rxe_mmap.h).
 *
 * Lifetime: vm_insert_page() takes a reference on every page it maps,
 * so a mapping keeps its pages after the owner vfree()s the
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
 * The size is given in whole pages, as stock does: the buffer's pages
 * were zeroed whole (rxe_queue_vmalloc()).
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
 * The first pages of the vmalloc()ed @buf into @vma, as many as it
 * spans.  remap_vmalloc_range() would, but only for vmalloc_user()
 * memory, which is not charged to the memory cgroup (rxe_queue.c).
 */
static int rxe_mmap_pages(struct vm_area_struct *vma, void *buf)
{
	unsigned long addr;
	int err;

	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		err = vm_insert_page(vma, addr, vmalloc_to_page(buf));
		if (err)
			return err;
		buf += PAGE_SIZE;
	}
	return 0;
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

	err = rxe_mmap_pages(vma, entry->buf);
	if (!err)
		list_del_init(&entry->list);
out:
	mutex_unlock(&ctx->lock);
	return err;
}

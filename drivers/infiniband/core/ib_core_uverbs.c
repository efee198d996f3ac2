// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmap() offsets a driver hands out to user space (struct
 * rdma_user_mmap_entry), and mapping device memory into a VMA.
 *
 * A driver inserts an entry covering DIV_ROUND_UP(length, PAGE_SIZE)
 * consecutive page offsets of its user context, returns
 * rdma_user_mmap_get_offset() to user space, and on mmap() of that offset
 * looks the entry up again (rdma_user_mmap_entry_get()) to learn what to
 * map.
 *
 * Entries in ucontext->mmap_xa
 * ----------------------------
 * Every page offset an entry covers indexes the entry in the xarray.  The
 * xarray lock protects the index and entry->driver_removed.  An entry
 * leaves the xarray, under that lock, before it can be freed (by its kref
 * release before the driver's mmap_free(), or by a failed insertion before
 * the driver gets it back): so an entry found while holding the lock may
 * be dereferenced, even if its count already dropped to zero
 * (kref_get_unless_zero() then refuses it).
 *
 * References: the insertion holds one, dropped by
 * rdma_user_mmap_entry_remove(); each successful lookup holds one until
 * rdma_user_mmap_entry_put(); each VMA set up by rdma_user_mmap_io()
 * holds one until it is unmapped, or until removal revokes it (ib_uverbs,
 * before the user context goes: the entry points into the context).
 *
 * Inserters search for a free range under the lock, then claim the range
 * page by page with xa_insert() (which may sleep, so without the lock):
 * a concurrent inserter that got there first makes xa_insert() fail with
 * -EBUSY and the claim is undone and retried.  While it is being claimed
 * an entry is marked driver_removed, so lookups never return a partially
 * inserted entry.
 */
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "uverbs.h"

/* Erase @entry's page offsets below @end_pgoff from the xarray. */
static void mmap_entry_erase(struct rdma_user_mmap_entry *entry,
			     unsigned long end_pgoff)
{
	struct xarray *xa = &entry->ucontext->mmap_xa;
	unsigned long pgoff;

	lockdep_assert_held(&xa->xa_lock);

	for (pgoff = entry->start_pgoff; pgoff < end_pgoff; pgoff++)
		__xa_erase(xa, pgoff);
}

static void mmap_entry_release(struct kref *kref)
{
	struct rdma_user_mmap_entry *entry =
		container_of(kref, struct rdma_user_mmap_entry, ref);
	struct ib_ucontext *ucontext = entry->ucontext;

	xa_lock(&ucontext->mmap_xa);
	mmap_entry_erase(entry, entry->start_pgoff + entry->npages);
	xa_unlock(&ucontext->mmap_xa);

	if (ucontext->device->ops.mmap_free)
		ucontext->device->ops.mmap_free(entry);
}

/**
 * rdma_user_mmap_entry_put - drop a reference to an mmap entry
 * @entry: the entry, from rdma_user_mmap_entry_get() or _get_pgoff()
 *
 * The last reference erases the entry from its context and calls the
 * driver's ops.mmap_free() on it.
 */
void rdma_user_mmap_entry_put(struct rdma_user_mmap_entry *entry)
{
	kref_put(&entry->ref, mmap_entry_release);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_put);

/**
 * rdma_user_mmap_entry_remove - withdraw an entry the driver inserted
 * @entry: the entry, or NULL (nothing to do)
 *
 * New lookups no longer find it; it is freed (ops.mmap_free()) once the
 * VMAs mapping it are gone and every lookup reference is put.
 */
void rdma_user_mmap_entry_remove(struct rdma_user_mmap_entry *entry)
{
	if (!entry)
		return;

	xa_lock(&entry->ucontext->mmap_xa);
	entry->driver_removed = true;
	xa_unlock(&entry->ucontext->mmap_xa);

	rdma_user_mmap_entry_put(entry);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_remove);

/**
 * rdma_user_mmap_entry_get_pgoff - look an entry up by its first page offset
 * @ucontext: the user context
 * @pgoff: page offset of the entry's start (offset >> PAGE_SHIFT)
 *
 * Return: the entry with a reference (rdma_user_mmap_entry_put() it), or
 * NULL when no inserted, not removed entry starts at @pgoff.
 */
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get_pgoff(struct ib_ucontext *ucontext,
			       unsigned long pgoff)
{
	struct rdma_user_mmap_entry *entry;

	xa_lock(&ucontext->mmap_xa);
	entry = xa_load(&ucontext->mmap_xa, pgoff);
	if (entry && (entry->start_pgoff != pgoff || entry->driver_removed ||
		      !kref_get_unless_zero(&entry->ref)))
		entry = NULL;
	xa_unlock(&ucontext->mmap_xa);

	return entry;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_get_pgoff);

/**
 * rdma_user_mmap_entry_get - the entry a VMA maps
 * @ucontext: the user context
 * @vma: the VMA being set up by ops.mmap()
 *
 * Return: the entry starting at @vma's offset with a reference, or NULL
 * when there is none or the VMA's size is not exactly the entry's.
 */
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get(struct ib_ucontext *ucontext,
			 struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;

	entry = rdma_user_mmap_entry_get_pgoff(ucontext, vma->vm_pgoff);
	if (entry && vma_pages(vma) != entry->npages) {
		rdma_user_mmap_entry_put(entry);
		return NULL;
	}
	return entry;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_get);

/*
 * The first free range of @npages page offsets in [@start, @max_pgoff],
 * searched under the xarray lock; false when there is none.
 */
static bool mmap_find_free_range(struct xarray *xa, unsigned long *start,
				 unsigned long npages, unsigned long max_pgoff)
{
	struct rdma_user_mmap_entry *found;
	unsigned long index;
	bool ret = false;

	xa_lock(xa);
	while (*start <= max_pgoff && npages - 1 <= max_pgoff - *start) {
		index = *start;
		found = xa_find(xa, &index, *start + npages - 1, XA_PRESENT);
		if (!found) {
			ret = true;
			break;
		}
		/* Skip the whole entry in the way (alive: see the top). */
		*start = found->start_pgoff + found->npages;
	}
	xa_unlock(xa);
	return ret;
}

/*
 * Index @entry at each of its page offsets; on failure (-EBUSY: raced
 * with another inserter, -ENOMEM) none of them is left.
 */
static int mmap_entry_claim(struct rdma_user_mmap_entry *entry)
{
	struct xarray *xa = &entry->ucontext->mmap_xa;
	unsigned long pgoff;
	int ret;

	for (pgoff = entry->start_pgoff;
	     pgoff < entry->start_pgoff + entry->npages; pgoff++) {
		ret = xa_insert(xa, pgoff, entry, GFP_KERNEL);
		if (ret) {
			xa_lock(xa);
			mmap_entry_erase(entry, pgoff);
			xa_unlock(xa);
			return ret;
		}
	}
	return 0;
}

/**
 * rdma_user_mmap_entry_insert_range - give an entry mmap() offsets
 * @ucontext: the user context the offsets belong to
 * @entry: the driver's entry (embedded in its own structure)
 * @length: bytes the entry maps
 * @min_pgoff: lowest page offset it may start at
 * @max_pgoff: highest page offset it may cover
 *
 * The entry gets the lowest free range of DIV_ROUND_UP(@length, PAGE_SIZE)
 * page offsets within the bounds, and a reference that
 * rdma_user_mmap_entry_remove() drops.
 *
 * Return: 0; -EINVAL for a zero @length; -ENOMEM when no range is free
 * or out of memory.
 */
int rdma_user_mmap_entry_insert_range(struct ib_ucontext *ucontext,
				      struct rdma_user_mmap_entry *entry,
				      size_t length, u32 min_pgoff,
				      u32 max_pgoff)
{
	unsigned long start = min_pgoff;
	int ret;

	if (!length)
		return -EINVAL;

	kref_init(&entry->ref);
	entry->ucontext = ucontext;
	/* DIV_ROUND_UP() could wrap around. */
	entry->npages = (length >> PAGE_SHIFT) + !!offset_in_page(length);
	/* Not found by lookups until fully inserted. */
	entry->driver_removed = true;

	do {
		if (!mmap_find_free_range(&ucontext->mmap_xa, &start,
					  entry->npages, max_pgoff))
			return -ENOMEM;
		entry->start_pgoff = start;
		ret = mmap_entry_claim(entry);
	} while (ret == -EBUSY);
	if (ret)
		return ret;

	xa_lock(&ucontext->mmap_xa);
	entry->driver_removed = false;
	xa_unlock(&ucontext->mmap_xa);
	return 0;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_insert_range);

/**
 * rdma_user_mmap_entry_insert - give an entry mmap() offsets anywhere
 * @ucontext: the user context
 * @entry: the driver's entry
 * @length: bytes the entry maps
 *
 * As rdma_user_mmap_entry_insert_range() over every page offset.
 */
int rdma_user_mmap_entry_insert(struct ib_ucontext *ucontext,
				struct rdma_user_mmap_entry *entry,
				size_t length)
{
	return rdma_user_mmap_entry_insert_range(ucontext, entry, length, 0,
						 U32_MAX);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_insert);

/* Track @vma on @ufile, with a reference to @entry (may be NULL). */
static void rdma_umap_track(struct rdma_umap_priv *umap, struct vm_area_struct *vma,
			    struct ib_uverbs_file *ufile,
			    struct rdma_user_mmap_entry *entry)
{
	lockdep_assert_held(&ufile->umap_lock);

	umap->vma = vma;
	umap->ufile = ufile;
	umap->entry = entry;
	if (entry)
		kref_get(&entry->ref);
	list_add(&umap->list, &ufile->umaps);
	vma->vm_private_data = umap;
}

/**
 * rdma_umap_priv_init - track a VMA of a uverbs file for revocation
 * @priv: allocated by the caller, freed by the VMA's close
 * @vma: the VMA, of the uverbs file whose mmap() is running
 * @entry: the entry it maps, which it holds a reference to, or NULL
 *
 * Until the VMA closes, device removal can zap it and drop @entry.  The
 * VMA's vm_ops are the caller's to set (rdma_user_mmap_io() sets ours).
 */
void rdma_umap_priv_init(struct rdma_umap_priv *priv,
			 struct vm_area_struct *vma,
			 struct rdma_user_mmap_entry *entry)
{
	struct ib_uverbs_file *ufile = vma->vm_file->private_data;

	mutex_lock(&ufile->umap_lock);
	rdma_umap_track(priv, vma, ufile, entry);
	mutex_unlock(&ufile->umap_lock);
}
EXPORT_SYMBOL(rdma_umap_priv_init);

/*
 * A VMA split off one of ours (or moved by mremap()) is tracked and holds
 * the entry as well; one split off a revoked VMA stays revoked.  Under
 * the mm's mmap lock, which removal takes to revoke: the source cannot be
 * revoked meanwhile, unless its mm is exiting (no split then).
 */
static void rdma_umap_open(struct vm_area_struct *vma)
{
	struct rdma_umap_priv *from = vma->vm_private_data;
	struct ib_uverbs_file *ufile;
	struct rdma_umap_priv *umap;

	if (!from)
		return;
	ufile = from->ufile;

	umap = kzalloc(sizeof(*umap), GFP_KERNEL);
	if (!umap) {
		/* Untracked, removal could not revoke it: no pages now. */
		vma->vm_private_data = NULL;
		zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
		return;
	}

	mutex_lock(&ufile->umap_lock);
	if (list_empty(&from->list)) {
		umap->vma = vma;
		umap->ufile = ufile;
		INIT_LIST_HEAD(&umap->list);
		vma->vm_private_data = umap;
	} else {
		rdma_umap_track(umap, vma, ufile, from->entry);
	}
	mutex_unlock(&ufile->umap_lock);
}

/*
 * The entry is put under umap_lock: once removal has walked the list, no
 * VMA can drop a reference into a context being freed.
 */
static void rdma_umap_close(struct vm_area_struct *vma)
{
	struct rdma_umap_priv *umap = vma->vm_private_data;
	struct ib_uverbs_file *ufile;

	if (!umap)
		return;
	ufile = umap->ufile;

	mutex_lock(&ufile->umap_lock);
	list_del(&umap->list);
	if (umap->entry)
		rdma_user_mmap_entry_put(umap->entry);
	mutex_unlock(&ufile->umap_lock);
	kfree(umap);
}

/*
 * Only a revoked VMA faults (rdma_user_mmap_io() fills the rest, and
 * MADV_DONTNEED refuses a PFN map): it gets a harmless page instead of
 * the device's, so the process lives on to read IB_EVENT_DEVICE_FATAL
 * from its async event file.  A VMA that cannot be written, even after
 * mprotect(), gets the zero page; any other VMA of the file gets the
 * file's one zeroed page, allocated on the first such fault.  The VMA
 * is shared, so nothing copies the page on write.
 */
static vm_fault_t rdma_umap_fault(struct vm_fault *vmf)
{
	struct rdma_umap_priv *umap = vmf->vma->vm_private_data;
	struct ib_uverbs_file *ufile;
	vm_fault_t ret = 0;

	/* Split off while out of memory: untracked, never given a page. */
	if (!umap)
		return VM_FAULT_SIGBUS;

	if (!(vmf->vma->vm_flags & (VM_WRITE | VM_MAYWRITE))) {
		vmf->page = ZERO_PAGE(vmf->address);
		get_page(vmf->page);
		return 0;
	}

	ufile = umap->ufile;
	mutex_lock(&ufile->umap_lock);
	if (!ufile->disassociate_page)
		ufile->disassociate_page = alloc_page(vmf->gfp_mask |
						      __GFP_ZERO);
	if (ufile->disassociate_page) {
		vmf->page = ufile->disassociate_page;
		get_page(vmf->page);
	} else {
		ret = VM_FAULT_SIGBUS;
	}
	mutex_unlock(&ufile->umap_lock);
	return ret;
}

static const struct vm_operations_struct rdma_umap_ops = {
	.open = rdma_umap_open,
	.close = rdma_umap_close,
	.fault = rdma_umap_fault,
};

/**
 * rdma_user_mmap_io - map device memory into a VMA, from ops.mmap()
 * @ucontext: the user context being mapped
 * @vma: the VMA, which must be shared and exactly @size bytes
 * @pfn: first page frame of the device memory
 * @size: bytes to map
 * @prot: page protection (e.g. pgprot_noncached(vma->vm_page_prot))
 * @entry: the entry the VMA maps, or NULL; the VMA takes a reference
 *
 * A child inherits the mapping across fork() (tracked like the parent's);
 * it cannot grow.  When the device is removed, ib_uverbs zaps it and
 * drops its reference to @entry, before the context goes; later accesses
 * fault in a zeroed page (rdma_umap_fault()).
 *
 * Return: 0; -EINVAL for a private VMA or a size mismatch; -ENOMEM; -EAGAIN
 * when the page tables cannot be set up.
 */
int rdma_user_mmap_io(struct ib_ucontext *ucontext, struct vm_area_struct *vma,
		      unsigned long pfn, unsigned long size, pgprot_t prot,
		      struct rdma_user_mmap_entry *entry)
{
	struct ib_uverbs_file *ufile = ucontext->ufile;
	struct rdma_umap_priv *umap;

	if (vma->vm_end - vma->vm_start != size)
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/* Called from the mmap() of the context's own file only. */
	if (WARN_ON(!vma->vm_file || vma->vm_file->private_data != ufile))
		return -EINVAL;

	umap = kzalloc(sizeof(*umap), GFP_KERNEL);
	if (!umap)
		return -ENOMEM;

	/* io_remap_pfn_range() makes it VM_IO | VM_PFNMAP | VM_DONTEXPAND. */
	vma->vm_page_prot = prot;
	if (io_remap_pfn_range(vma, vma->vm_start, pfn, size, prot)) {
		kfree(umap);
		return -EAGAIN;
	}

	vma->vm_ops = &rdma_umap_ops;
	rdma_umap_priv_init(umap, vma, entry);
	return 0;
}
EXPORT_SYMBOL(rdma_user_mmap_io);

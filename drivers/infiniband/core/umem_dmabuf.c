// SPDX-License-Identifier: GPL-2.0-only
/*
 * umems backed by a dma-buf (struct ib_umem_dmabuf, <rdma/ib_umem.h>):
 * a byte range [offset, offset + size) of a buffer another driver (a GPU,
 * udmabuf) exports, which the RDMA device reaches through a dma-buf
 * attachment of its DMA device instead of pinned user pages.
 *
 * Nothing is pinned or charged to a process here: the exporter owns the
 * memory.  Two shapes, as on the stock kernel:
 *
 * - dynamic (ib_umem_dmabuf_get()): the exporter may move the buffer.  It
 *   tells the driver through the @ops->move_notify it passed, with the
 *   buffer's reservation lock held; the driver then stops using the
 *   mapping and calls ib_umem_dmabuf_unmap_pages(), and maps it again with
 *   ib_umem_dmabuf_map_pages() (also under the reservation lock) when it
 *   next needs it;
 * - pinned (ib_umem_dmabuf_get_pinned()): the exporter is asked never to
 *   move the buffer, and the umem is mapped for its whole life, like one
 *   of ib_umem_get().
 *
 * Mapped, the umem's sgt_append.sgt is the part of the exporter's table
 * that covers the range's pages: its first entry is advanced to the
 * page of the start and its last one trimmed at the page after the end,
 * in place, so that ib_umem_find_best_pgsz() and the block iterators work
 * on it as on any umem.  first_sg/first_sg_offset and last_sg/last_sg_trim
 * record the edits, to undo them before the table goes back to the
 * exporter.  umem.address is the offset in the buffer, so that
 * ib_umem_offset() is where the range starts in its first page; umem.iova
 * stays 0, as on stock, until the driver sets it through
 * ib_umem_find_best_pgsz().
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

MODULE_IMPORT_NS(DMA_BUF);

static struct dma_resv *umem_dmabuf_resv(struct ib_umem_dmabuf *umem_dmabuf)
{
	return umem_dmabuf->attach->dmabuf->resv;
}

/*
 * Narrows the exporter's table @sgt to the pages of the umem's range and
 * makes it the umem's table.  Bytes of the buffer are counted along the
 * DMA entries: entry boundaries need not fall on the range's pages.
 */
static void umem_dmabuf_narrow(struct ib_umem_dmabuf *umem_dmabuf,
			       struct sg_table *sgt)
{
	struct ib_umem *umem = &umem_dmabuf->umem;
	unsigned long first = ALIGN_DOWN(umem->address, PAGE_SIZE);
	unsigned long end = ALIGN(umem->address + umem->length, PAGE_SIZE);
	unsigned long pos = 0;
	unsigned int used = 0;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		unsigned long len = sg_dma_len(sg);

		if (pos + len <= first) {
			pos += len;
			continue;
		}
		if (!used) {
			/* The entry holding the range's first page. */
			umem_dmabuf->first_sg = sg;
			umem_dmabuf->first_sg_offset = first - pos;
			sg_dma_address(sg) += first - pos;
			sg_dma_len(sg) -= first - pos;
			len -= first - pos;
			pos = first;
		}
		used++;
		if (pos + len >= end) {
			/* The entry holding the range's last page. */
			umem_dmabuf->last_sg = sg;
			umem_dmabuf->last_sg_trim = pos + len - end;
			sg_dma_len(sg) -= pos + len - end;
			break;
		}
		pos += len;
	}

	umem->sgt_append.sgt.sgl = umem_dmabuf->first_sg;
	umem->sgt_append.sgt.nents = used;
	umem_dmabuf->sgt = sgt;
}

/* Gives the exporter's table back the entries umem_dmabuf_narrow() cut. */
static void umem_dmabuf_widen(struct ib_umem_dmabuf *umem_dmabuf)
{
	struct scatterlist *first = umem_dmabuf->first_sg;
	struct scatterlist *last = umem_dmabuf->last_sg;

	if (first) {
		sg_dma_address(first) -= umem_dmabuf->first_sg_offset;
		sg_dma_len(first) += umem_dmabuf->first_sg_offset;
	}
	if (last)
		sg_dma_len(last) += umem_dmabuf->last_sg_trim;
	umem_dmabuf->first_sg = NULL;
	umem_dmabuf->first_sg_offset = 0;
	umem_dmabuf->last_sg = NULL;
	umem_dmabuf->last_sg_trim = 0;
	umem_dmabuf->umem.sgt_append.sgt.sgl = NULL;
	umem_dmabuf->umem.sgt_append.sgt.nents = 0;
}

/**
 * ib_umem_dmabuf_map_pages - map the umem's range for the device
 * @umem_dmabuf: the umem; the caller holds its buffer's reservation lock
 *	(dma_resv_lock(umem_dmabuf->attach->dmabuf->resv))
 *
 * Maps the attachment (if it is not mapped already) and makes the umem's
 * table cover the range, then waits for the exporter's kernel fences: the
 * pages may still be moving into place when the mapping exists.
 *
 * Return: 0, the exporter's error, -ETIMEDOUT or -ERESTARTSYS-like waits'
 * errors when the fences do not signal.
 */
int ib_umem_dmabuf_map_pages(struct ib_umem_dmabuf *umem_dmabuf)
{
	struct dma_resv *resv = umem_dmabuf_resv(umem_dmabuf);
	struct sg_table *sgt;
	long left;

	dma_resv_assert_held(resv);

	if (!umem_dmabuf->sgt) {
		sgt = dma_buf_map_attachment(umem_dmabuf->attach,
					     DMA_BIDIRECTIONAL);
		if (IS_ERR(sgt))
			return PTR_ERR(sgt);
		umem_dmabuf_narrow(umem_dmabuf, sgt);
	}

	left = dma_resv_wait_timeout(resv, DMA_RESV_USAGE_KERNEL, false,
				     MAX_SCHEDULE_TIMEOUT);
	if (left < 0)
		return left;
	return left ? 0 : -ETIMEDOUT;
}
EXPORT_SYMBOL(ib_umem_dmabuf_map_pages);

/**
 * ib_umem_dmabuf_unmap_pages - give the umem's mapping back to the exporter
 * @umem_dmabuf: the umem; the caller holds its buffer's reservation lock
 *
 * The device must no longer use the umem's table.  Nothing to do when it
 * is not mapped.
 */
void ib_umem_dmabuf_unmap_pages(struct ib_umem_dmabuf *umem_dmabuf)
{
	dma_resv_assert_held(umem_dmabuf_resv(umem_dmabuf));

	if (!umem_dmabuf->sgt)
		return;
	umem_dmabuf_widen(umem_dmabuf);
	dma_buf_unmap_attachment(umem_dmabuf->attach, umem_dmabuf->sgt,
				 DMA_BIDIRECTIONAL);
	umem_dmabuf->sgt = NULL;
}
EXPORT_SYMBOL(ib_umem_dmabuf_unmap_pages);

/**
 * ib_umem_dmabuf_get - attach a device to a byte range of a dma-buf
 * @device: the device; its DMA device is what attaches
 * @offset: where the range starts in the buffer
 * @size: length of the range in bytes
 * @fd: a dma-buf file descriptor of the current process
 * @access: IB_ACCESS_* flags (writable as ib_access_writable())
 * @ops: the driver's attach ops; move_notify is required
 *
 * The umem is not mapped yet: see ib_umem_dmabuf_map_pages().  It holds a
 * reference to the buffer until ib_umem_release().
 *
 * Return: the umem, or ERR_PTR(): -EINVAL for an empty range, one beyond
 * the buffer's size, no move_notify or a device without a DMA device
 * (virtual DMA); -EBADF/-EINVAL from dma_buf_get()
 * for a bad fd; -ENOMEM; the attachment's error.
 */
struct ib_umem_dmabuf *ib_umem_dmabuf_get(struct ib_device *device,
					  unsigned long offset, size_t size,
					  int fd, int access,
					  const struct dma_buf_attach_ops *ops)
{
	struct ib_umem_dmabuf *umem_dmabuf;
	struct dma_buf_attachment *attach;
	struct dma_buf *dmabuf;
	unsigned long end;
	int ret;

	if (!size || check_add_overflow(offset, (unsigned long)size, &end) ||
	    PAGE_ALIGN(end) < end)
		return ERR_PTR(-EINVAL);
	if (!ops || !ops->move_notify)
		return ERR_PTR(-EINVAL);

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return ERR_CAST(dmabuf);
	/*
	 * A device of virtual DMA (rxe) has no DMA device to attach, and
	 * dma_buf_dynamic_attach() would warn: the same answer, quietly.
	 */
	if (end > dmabuf->size || !device->dma_device) {
		ret = -EINVAL;
		goto err_put;
	}

	umem_dmabuf = kzalloc(sizeof(*umem_dmabuf), GFP_KERNEL);
	if (!umem_dmabuf) {
		ret = -ENOMEM;
		goto err_put;
	}
	umem_dmabuf->umem.ibdev = device;
	umem_dmabuf->umem.address = offset;
	umem_dmabuf->umem.length = size;
	umem_dmabuf->umem.writable = ib_access_writable(access);
	umem_dmabuf->umem.is_dmabuf = 1;

	/* The exporter calls @ops with the umem as importer_priv. */
	attach = dma_buf_dynamic_attach(dmabuf, device->dma_device, ops,
					umem_dmabuf);
	if (IS_ERR(attach)) {
		ret = PTR_ERR(attach);
		kfree(umem_dmabuf);
		goto err_put;
	}
	umem_dmabuf->attach = attach;
	return umem_dmabuf;

err_put:
	dma_buf_put(dmabuf);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_umem_dmabuf_get);

/* A pinned buffer does not move: a notification is the exporter's bug. */
static void umem_dmabuf_pinned_move_notify(struct dma_buf_attachment *attach)
{
	struct ib_umem_dmabuf *umem_dmabuf = attach->importer_priv;

	ibdev_warn_ratelimited(umem_dmabuf->umem.ibdev,
			       "dma-buf exporter moved a pinned buffer\n");
}

static const struct dma_buf_attach_ops umem_dmabuf_pinned_ops = {
	/* Peer-to-peer DMA needs no struct page: the device may use it. */
	.allow_peer2peer = true,
	.move_notify = umem_dmabuf_pinned_move_notify,
};

/**
 * ib_umem_dmabuf_get_pinned - attach, pin and map a byte range of a dma-buf
 * @device: the device
 * @offset: where the range starts in the buffer
 * @size: length of the range in bytes
 * @fd: a dma-buf file descriptor of the current process
 * @access: IB_ACCESS_* flags
 *
 * For drivers that cannot handle a buffer that moves: the umem is mapped
 * until ib_umem_release().
 *
 * Return: the umem, or ERR_PTR() as ib_umem_dmabuf_get(), or the error of
 * pinning or mapping.
 */
struct ib_umem_dmabuf *ib_umem_dmabuf_get_pinned(struct ib_device *device,
						 unsigned long offset,
						 size_t size, int fd,
						 int access)
{
	struct ib_umem_dmabuf *umem_dmabuf;
	struct dma_resv *resv;
	int ret;

	umem_dmabuf = ib_umem_dmabuf_get(device, offset, size, fd, access,
					 &umem_dmabuf_pinned_ops);
	if (IS_ERR(umem_dmabuf))
		return umem_dmabuf;

	resv = umem_dmabuf_resv(umem_dmabuf);
	dma_resv_lock(resv, NULL);
	ret = dma_buf_pin(umem_dmabuf->attach);
	if (!ret) {
		umem_dmabuf->pinned = 1;
		ret = ib_umem_dmabuf_map_pages(umem_dmabuf);
	}
	dma_resv_unlock(resv);
	if (ret) {
		/* Unmaps and unpins whatever was done. */
		ib_umem_release(&umem_dmabuf->umem);
		return ERR_PTR(ret);
	}
	return umem_dmabuf;
}
EXPORT_SYMBOL(ib_umem_dmabuf_get_pinned);

/**
 * ib_umem_dmabuf_release - unmap, unpin, detach and free a dma-buf umem
 * @umem_dmabuf: the umem
 *
 * ib_umem_release() calls it for a dma-buf umem; the driver must have
 * stopped using the mapping.
 */
void ib_umem_dmabuf_release(struct ib_umem_dmabuf *umem_dmabuf)
{
	struct dma_buf *dmabuf = umem_dmabuf->attach->dmabuf;

	dma_resv_lock(dmabuf->resv, NULL);
	ib_umem_dmabuf_unmap_pages(umem_dmabuf);
	if (umem_dmabuf->pinned)
		dma_buf_unpin(umem_dmabuf->attach);
	dma_resv_unlock(dmabuf->resv);

	dma_buf_detach(dmabuf, umem_dmabuf->attach);
	dma_buf_put(dmabuf);
	kfree(umem_dmabuf);
}

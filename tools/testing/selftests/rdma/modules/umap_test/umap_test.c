// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module, never part of the default build: a device "umap%d"
 * with no data path whose user contexts offer UMAP_PAGES pages through
 * an mmap entry at offset 0, mapped with rdma_user_mmap_io() as a
 * hardware driver maps its doorbells, so that the selftests can remove a
 * device under such mappings (uverbs_umap.sh).  The first page starts
 * with UMAP_MAGIC.
 *
 * Its PDs and MRs are bookkeeping only (an MR pins nothing): enough for
 * REREG_MR to move an MR between PDs in place, as hardware drivers do,
 * while "rdma res show mr" reads it (uverbs_rereg.sh).  Its
 * fill_res_mr_entry() reads the MR's PD as a driver would, sleeping
 * between loading the pointer and using it: a PD freed meanwhile shows
 * as a changed PD number (slub poison) and is counted.
 *
 * /sys/module/umap_test/parameters/
 *	remove		write 1: unregister the device (once)
 *	mmap_freed	entries whose mmap_free() ran
 *	stale_pd	MR dumps that saw their PD change under them
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "stub_ibdev.h"

#define UMAP_MAGIC "umap-page"
#define UMAP_PAGES 2
#define UMAP_ORDER 1	/* of UMAP_PAGES, for alloc_pages() */

struct umap_ucontext {
	struct ib_ucontext ibuc;
	struct rdma_user_mmap_entry *entry;
};

struct umap_device {
	struct ib_device ibdev;
};

static struct ib_device *umap_dev;
static struct page *umap_page;
static DEFINE_MUTEX(umap_remove_lock);
static bool umap_removed;
static atomic_t umap_freed = ATOMIC_INIT(0);
static atomic_t umap_stale_pd = ATOMIC_INIT(0);

static struct ib_mr *umap_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				      u64 virt, int access,
				      struct ib_udata *udata)
{
	struct ib_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->lkey = 0x100;
	mr->rkey = 0x100;
	return mr;
}

/* In place: the core moves the MR to @pd. */
static struct ib_mr *umap_rereg_user_mr(struct ib_mr *mr, int flags,
					u64 start, u64 length, u64 virt,
					int access, struct ib_pd *pd,
					struct ib_udata *udata)
{
	return NULL;
}

static int umap_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	kfree(mr);
	return 0;
}

/*
 * A reader that keeps the PD pointer across a sleep: the core must not
 * let the PD go while a dump holds the MR.
 */
static int umap_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *mr)
{
	struct ib_pd *pd = READ_ONCE(mr->pd);
	u32 pdn;

	if (!pd)
		return 0;
	pdn = READ_ONCE(pd->res.id);
	msleep(20);
	if (READ_ONCE(pd->res.id) != pdn)
		atomic_inc(&umap_stale_pd);
	return 0;
}

/* The context's one entry: page offset 0, the first free. */
static int umap_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct umap_ucontext *uc = container_of(ibuc, struct umap_ucontext, ibuc);
	struct rdma_user_mmap_entry *entry;
	int ret;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	ret = rdma_user_mmap_entry_insert(ibuc, entry, UMAP_PAGES * PAGE_SIZE);
	if (ret) {
		kfree(entry);
		return ret;
	}
	uc->entry = entry;
	return 0;
}

static void umap_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct umap_ucontext *uc = container_of(ibuc, struct umap_ucontext, ibuc);

	rdma_user_mmap_entry_remove(uc->entry);
}

static int umap_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	int ret;

	entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!entry)
		return -EINVAL;
	ret = rdma_user_mmap_io(ibuc, vma, page_to_pfn(umap_page),
				UMAP_PAGES * PAGE_SIZE, vma->vm_page_prot,
				entry);
	rdma_user_mmap_entry_put(entry);
	return ret;
}

static void umap_mmap_free(struct rdma_user_mmap_entry *entry)
{
	kfree(entry);
	atomic_inc(&umap_freed);
}

/* The rest of the device: stub_ibdev.h. */
static const struct ib_device_ops umap_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.reg_user_mr = umap_reg_user_mr,
	.rereg_user_mr = umap_rereg_user_mr,
	.dereg_mr = umap_dereg_mr,
	.fill_res_mr_entry = umap_fill_res_mr_entry,
	.alloc_ucontext = umap_alloc_ucontext,
	.dealloc_ucontext = umap_dealloc_ucontext,
	.mmap = umap_mmap,
	.mmap_free = umap_mmap_free,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, umap_ucontext, ibuc),
};

/*
 * Like a driver that revokes what it maps: only the core's
 * rdma_user_mmap_io() mappings, which ib_uverbs zaps itself.
 */
static void umap_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static const struct ib_device_ops umap_disassociate_ops = {
	.disassociate_ucontext = umap_disassociate_ucontext,
};

/* 0: a driver without disassociate_ucontext (removal waits for users). */
static bool disassociate = true;
module_param(disassociate, bool, 0444);

static void umap_remove(void)
{
	mutex_lock(&umap_remove_lock);
	if (!umap_removed) {
		ib_unregister_device(umap_dev);
		umap_removed = true;
	}
	mutex_unlock(&umap_remove_lock);
}

static int remove_set(const char *val, const struct kernel_param *kp)
{
	umap_remove();
	return 0;
}

static const struct kernel_param_ops remove_ops = {
	.set = remove_set,
};
module_param_cb(remove, &remove_ops, NULL, 0200);

static int freed_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&umap_freed));
}

static const struct kernel_param_ops freed_ops = {
	.get = freed_get,
};
module_param_cb(mmap_freed, &freed_ops, NULL, 0444);

static int stale_pd_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&umap_stale_pd));
}

static const struct kernel_param_ops stale_pd_ops = {
	.get = stale_pd_get,
};
module_param_cb(stale_pd, &stale_pd_ops, NULL, 0444);

static int __init umap_init(void)
{
	struct umap_device *dev;
	int ret;

	umap_page = alloc_pages(GFP_KERNEL | __GFP_ZERO, UMAP_ORDER);
	if (!umap_page)
		return -ENOMEM;
	memcpy(page_address(umap_page), UMAP_MAGIC, sizeof(UMAP_MAGIC));

	dev = ib_alloc_device(umap_device, ibdev);
	if (!dev) {
		ret = -ENOMEM;
		goto err_page;
	}
	umap_dev = &dev->ibdev;
	umap_dev->node_type = RDMA_NODE_IB_CA;
	umap_dev->phys_port_cnt = 1;
	umap_dev->num_comp_vectors = 1;
	ib_set_device_ops(umap_dev, &umap_ops);
	if (disassociate)
		ib_set_device_ops(umap_dev, &umap_disassociate_ops);
	ib_set_device_ops(umap_dev, &stub_ibdev_ops);
	ret = ib_register_device(umap_dev, "umap%d", NULL);
	if (ret)
		goto err_dev;
	return 0;

err_dev:
	ib_dealloc_device(umap_dev);
err_page:
	__free_pages(umap_page, UMAP_ORDER);
	return ret;
}

static void __exit umap_exit(void)
{
	umap_remove();
	ib_dealloc_device(umap_dev);
	__free_pages(umap_page, UMAP_ORDER);
}

module_init(umap_init);
module_exit(umap_exit);

MODULE_DESCRIPTION("oot-rdma selftest: a device mapping a page with rdma_user_mmap_io()");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the user verbs char devices /dev/infiniband/uverbsN.
 *
 * Every ib_device with user verbs gets a char device of class
 * "infiniband_verbs".  A file opened on it holds the uverbs device, never
 * the ib_device: removal clears the ib_device pointer, waits for the
 * syscalls in flight (SRCU) and frees every user context, so unregistering
 * a device never waits for userspace.  Files left open then answer -EIO
 * and are freed when closed.
 */

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/ib.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include "core_priv.h"
#include "uverbs.h"

MODULE_DESCRIPTION("InfiniBand userspace verbs access");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
MODULE_ALIAS_RDMA_CLIENT("uverbs");

/*
 * The first 32 devices get the fixed numbers userspace has always known
 * (major 231, minors 192..223); the others come from a dynamic region.
 */
#define IB_UVERBS_MAJOR			231
#define IB_UVERBS_BASE_MINOR		192
#define IB_UVERBS_NUM_FIXED_MINOR	32
#define IB_UVERBS_MAX_DEVICES		1024
#define IB_UVERBS_NAME			"infiniband_verbs"

static dev_t uverbs_fixed_base = MKDEV(IB_UVERBS_MAJOR, IB_UVERBS_BASE_MINOR);
static dev_t uverbs_dynamic_base;
static DEFINE_IDA(uverbs_ida);

static struct ib_client uverbs_client;

/* ---------------------------------------------------------------- */
/* User contexts                                                    */

/*
 * Frees @ucontext; @driver_owned: the driver's alloc_ucontext() succeeded,
 * so its dealloc_ucontext() runs, after the context left restrack (no
 * "rdma res" reader sees it half destroyed).
 */
static void ucontext_free(struct ib_ucontext *ucontext, bool driver_owned)
{
	rdma_restrack_del(&ucontext->res);
	if (driver_owned)
		ucontext->device->ops.dealloc_ucontext(ucontext);
	ib_rdmacg_uncharge(&ucontext->cg_obj, ucontext->device,
			   RDMACG_RESOURCE_HCA_HANDLE);
	xa_destroy(&ucontext->mmap_xa);
	kfree(ucontext);
}

/*
 * The first half of GET_CONTEXT: a new context in @attrs->context, with
 * ucontext_lock held on success until ucontext_publish() or
 * ucontext_unwind().
 */
static int ucontext_begin(struct uverbs_attr_bundle *attrs,
			  struct ib_device *ib_dev)
{
	struct ib_uverbs_file *file = attrs->ufile;
	struct ib_ucontext *ucontext;
	int ret;

	mutex_lock(&file->ucontext_lock);
	if (file->ucontext) {
		mutex_unlock(&file->ucontext_lock);
		return -EINVAL;
	}

	/* The process's memory cgroup pays for what it makes us hold. */
	ucontext = rdma_zalloc_drv_obj_gfp(ib_dev, ib_ucontext,
					   GFP_KERNEL_ACCOUNT);
	if (!ucontext) {
		mutex_unlock(&file->ucontext_lock);
		return -ENOMEM;
	}
	/* Over the cgroup's hca_handle limit: -EAGAIN, as stock. */
	ret = ib_rdmacg_try_charge(&ucontext->cg_obj, ib_dev,
				   RDMACG_RESOURCE_HCA_HANDLE);
	if (ret) {
		kfree(ucontext);
		mutex_unlock(&file->ucontext_lock);
		return ret;
	}
	ucontext->device = ib_dev;
	ucontext->ufile = file;
	xa_init_flags(&ucontext->mmap_xa, XA_FLAGS_ALLOC);
	rdma_restrack_new(&ucontext->res, RDMA_RESTRACK_CTX);
	rdma_restrack_set_name(&ucontext->res, NULL);
	attrs->context = ucontext;
	return 0;
}

static void ucontext_unwind(struct uverbs_attr_bundle *attrs,
			    bool driver_owned)
{
	struct ib_uverbs_file *file = attrs->ufile;

	lockdep_assert_held(&file->ucontext_lock);

	ucontext_free(attrs->context, driver_owned);
	attrs->context = NULL;
	mutex_unlock(&file->ucontext_lock);
}

static void ucontext_publish(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *file = attrs->ufile;

	lockdep_assert_held(&file->ucontext_lock);

	rdma_restrack_add(&attrs->context->res);
	/* Pairs with ib_uverbs_get_ucontext_file(): readers see it set up. */
	smp_store_release(&file->ucontext, attrs->context);
	mutex_unlock(&file->ucontext_lock);
}

struct file *ib_uverbs_alloc_context(struct uverbs_attr_bundle *attrs,
				     struct ib_device *ib_dev, int *fd)
{
	struct ib_uverbs_file *file = attrs->ufile;
	struct ib_uverbs_async_event_file *ev_file;
	struct file *filp;
	int ret;

	ret = ucontext_begin(attrs, ib_dev);
	if (ret)
		return ERR_PTR(ret);

	*fd = get_unused_fd_flags(O_CLOEXEC);
	if (*fd < 0) {
		ret = *fd;
		goto err_ucontext;
	}
	/* The new file holds one reference to ev_file, we the other. */
	ev_file = ib_uverbs_async_file_create(ib_dev, &filp);
	if (IS_ERR(ev_file)) {
		ret = PTR_ERR(ev_file);
		goto err_fd;
	}
	file->async_file = ev_file;

	ret = ib_dev->ops.alloc_ucontext(attrs->context, &attrs->driver_udata);
	if (ret)
		goto err_filp;

	/* Keeps ucontext_lock until commit or abort. */
	return filp;

err_filp:
	file->async_file = NULL;
	ib_uverbs_async_file_put(ev_file);
	/* Its release drops the file's reference. */
	fput(filp);
err_fd:
	put_unused_fd(*fd);
err_ucontext:
	ucontext_unwind(attrs, false);
	return ERR_PTR(ret);
}

void ib_uverbs_abort_context(struct uverbs_attr_bundle *attrs,
			     struct file *filp, int fd)
{
	struct ib_uverbs_file *file = attrs->ufile;

	lockdep_assert_held(&file->ucontext_lock);

	ib_uverbs_async_file_put(file->async_file);
	file->async_file = NULL;
	fput(filp);
	put_unused_fd(fd);
	ucontext_unwind(attrs, true);
}

void ib_uverbs_commit_context(struct uverbs_attr_bundle *attrs,
			      struct file *filp, int fd)
{
	struct ib_uverbs_file *file = attrs->ufile;

	lockdep_assert_held(&file->ucontext_lock);

	ib_uverbs_async_file_start(file->async_file);
	ucontext_publish(attrs);
	fd_install(fd, filp);
}

int ib_uverbs_alloc_context_ioctl(struct uverbs_attr_bundle *attrs,
				  struct ib_device *ib_dev)
{
	int ret;

	ret = ucontext_begin(attrs, ib_dev);
	if (ret)
		return ret;
	ret = ib_dev->ops.alloc_ucontext(attrs->context, &attrs->driver_udata);
	if (ret)
		ucontext_unwind(attrs, false);
	return ret;
}

void ib_uverbs_abort_context_ioctl(struct uverbs_attr_bundle *attrs)
{
	ucontext_unwind(attrs, true);
}

void ib_uverbs_commit_context_ioctl(struct uverbs_attr_bundle *attrs)
{
	ucontext_publish(attrs);
}

/**
 * ib_uverbs_get_ucontext_file() - the user context of a uverbs file
 * @ufile: the file of the syscall in progress
 *
 * Return: the context; ERR_PTR(-EIO) once the device is gone,
 * ERR_PTR(-EINVAL) before GET_CONTEXT.  Valid until the syscall, which
 * holds disassociate_srcu, returns.
 */
struct ib_ucontext *ib_uverbs_get_ucontext_file(struct ib_uverbs_file *ufile)
{
	struct ib_ucontext *ucontext;

	if (!rcu_access_pointer(ufile->device->ib_dev))
		return ERR_PTR(-EIO);
	/* Pairs with ib_uverbs_commit_context(). */
	ucontext = smp_load_acquire(&ufile->ucontext);
	return ucontext ? ucontext : ERR_PTR(-EINVAL);
}
EXPORT_SYMBOL(ib_uverbs_get_ucontext_file);

/**
 * uverbs_file_disassociated() - whether the device's removal is done with a file
 * @ufile: a file whose device is gone (outside disassociate_srcu)
 *
 * The disassociation clears the file's context under ucontext_lock once
 * every object of it is destroyed: after that, and only then, the
 * destroys that drop the handles it kept may run.
 */
bool uverbs_file_disassociated(struct ib_uverbs_file *ufile)
{
	bool gone;

	mutex_lock(&ufile->ucontext_lock);
	gone = !ufile->ucontext;
	mutex_unlock(&ufile->ucontext_lock);
	return gone;
}

/* Revoke @umap: nothing left to zap, or zapped; its entry goes now. */
static void umap_revoke(struct rdma_umap_priv *umap)
{
	lockdep_assert_held(&umap->ufile->umap_lock);

	list_del_init(&umap->list);
	if (umap->entry)
		rdma_user_mmap_entry_put(umap->entry);
	umap->entry = NULL;
}

/*
 * Device removal: zap every VMA rdma_user_mmap_io() set up on @ufile, so
 * nothing reaches the device memory any more (later accesses fault in a
 * zeroed page, rdma_umap_fault()), and drop their entries while the context they point into still
 * exists.  Zapping takes the mm's mmap lock, outside umap_lock, held for
 * writing so that no munmap() is tearing down the same page tables; the
 * mm is pinned meanwhile.  An mm already exiting is not zapped (nothing
 * runs in it, and its own teardown removes the pages); its VMAs only lose
 * their entries.  No VMA is added meanwhile: mmap() answers -EIO after
 * removal, and a fork() copying one of these VMAs holds the mmap lock of
 * the parent's mm and of the child's: its copy is tracked before this
 * gets to either, or copies a revoked VMA and stays revoked.
 */
static void ufile_revoke_mmaps(struct ib_uverbs_file *ufile)
{
	struct rdma_umap_priv *umap, *next;
	struct mm_struct *mm;

	for (;;) {
		mutex_lock(&ufile->umap_lock);
		umap = list_first_entry_or_null(&ufile->umaps,
						struct rdma_umap_priv, list);
		if (!umap) {
			mutex_unlock(&ufile->umap_lock);
			return;
		}
		/* The VMA, so its mm, lives while it is on the list. */
		mm = umap->vma->vm_mm;
		if (!mmget_not_zero(mm)) {
			umap_revoke(umap);
			mutex_unlock(&ufile->umap_lock);
			continue;
		}
		mutex_unlock(&ufile->umap_lock);

		mmap_write_lock(mm);
		mutex_lock(&ufile->umap_lock);
		list_for_each_entry_safe(umap, next, &ufile->umaps, list) {
			struct vm_area_struct *vma = umap->vma;

			if (vma->vm_mm != mm)
				continue;
			zap_vma_ptes(vma, vma->vm_start,
				     vma->vm_end - vma->vm_start);
			umap_revoke(umap);
		}
		mutex_unlock(&ufile->umap_lock);
		mmap_write_unlock(mm);
		mmput(mm);
	}
}

/*
 * Free the driver's objects and context of @file, if any.  The caller guarantees that
 * no syscall of @file uses it: release() (the last one), or remove()
 * after clearing ib_dev and waiting for disassociate_srcu.  Under
 * lists_mutex, which keeps remove() from finishing, so the ib_device is
 * still there.
 */
static void ufile_destroy_ucontext(struct ib_uverbs_file *file,
				   enum rdma_remove_reason why)
{
	struct ib_ucontext *ucontext;

	lockdep_assert_held(&file->device->lists_mutex);
	mutex_lock(&file->ucontext_lock);
	ucontext = file->ucontext;
	if (ucontext) {
		struct ib_device *ib_dev = ucontext->device;
		bool all_gone;

		/* The ioctl path may have made none. */
		ib_uverbs_async_file_stop(file->async_file);
		/*
		 * What userspace still maps of the device is revoked first,
		 * so nothing reaches the hardware once it is gone: the core's
		 * rdma_user_mmap_io() mappings, then the driver's own.  On
		 * close no VMA is left: each holds the file.
		 */
		if (why == RDMA_REMOVE_DRIVER_REMOVE) {
			ufile_revoke_mmaps(file);
			if (ib_dev->ops.disassociate_ucontext)
				ib_dev->ops.disassociate_ucontext(ucontext);
		}
		/*
		 * Objects before the context they belong to.  Objects the
		 * driver refused to destroy still use it: it is leaked with
		 * them (see uverbs_destroy_ufile_uobjects()).
		 */
		all_gone = uverbs_destroy_ufile_uobjects(file, why);
		WRITE_ONCE(file->ucontext, NULL);
		if (all_gone)
			ucontext_free(ucontext, true);
	}
	mutex_unlock(&file->ucontext_lock);
}

static void ib_uverbs_release_file(struct kref *ref)
{
	struct ib_uverbs_file *file =
		container_of(ref, struct ib_uverbs_file, ref);
	struct ib_uverbs_device *dev = file->device;

	xa_destroy(&file->idr);
	if (file->async_file)
		ib_uverbs_async_file_put(file->async_file);
	/* No VMA holds the file: what maps the page holds its own ref. */
	if (file->disassociate_page)
		__free_page(file->disassociate_page);
	mutex_destroy(&file->umap_lock);
	mutex_destroy(&file->ucontext_lock);
	kfree(file);
	put_device(&dev->dev);
}

void ib_uverbs_file_put(struct ib_uverbs_file *file)
{
	kref_put(&file->ref, ib_uverbs_release_file);
}

/* ---------------------------------------------------------------- */
/* uverbsN file operations                                          */

static int ib_uverbs_open(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_device *dev =
		container_of(inode->i_cdev, struct ib_uverbs_device, cdev);
	struct ib_uverbs_file *file;
	struct ib_device *ib_dev;
	int srcu_key;
	int ret;

	file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);
	if (!file)
		return -ENOMEM;
	kref_init(&file->ref);
	mutex_init(&file->ucontext_lock);
	xa_init_flags(&file->idr, XA_FLAGS_ALLOC);
	spin_lock_init(&file->uobjects_lock);
	INIT_LIST_HEAD(&file->uobjects);
	mutex_init(&file->umap_lock);
	INIT_LIST_HEAD(&file->umaps);

	/*
	 * The cdev keeps dev's memory while we are in open(); a live ib_dev
	 * seen under the SRCU read lock means remove() has not walked the
	 * file list yet, so it will see this file.
	 */
	ib_dev = uverbs_enter_device(dev, &srcu_key);
	if (!ib_dev) {
		ret = -EIO;
		goto err_unlock;
	}

	/* The node is in every namespace's /dev; the device may not be. */
	if (!rdma_dev_access_netns(ib_dev, current->nsproxy->net_ns)) {
		ret = -EPERM;
		goto err_unlock;
	}

	/*
	 * A driver that cannot revoke what a context maps and holds keeps
	 * its contexts until their files close, and removal waits for that:
	 * its module stays while a file is open, so that rmmod answers
	 * EBUSY instead of blocking.
	 */
	if (!ib_dev->ops.disassociate_ucontext) {
		if (!try_module_get(ib_dev->ops.owner)) {
			ret = -ENODEV;
			goto err_unlock;
		}
		file->driver_owner = ib_dev->ops.owner;
	}

	get_device(&dev->dev);
	file->device = dev;
	mutex_lock(&dev->lists_mutex);
	list_add_tail(&file->list, &dev->files);
	mutex_unlock(&dev->lists_mutex);
	uverbs_exit_device(dev, srcu_key);

	filp->private_data = file;
	return stream_open(inode, filp);

err_unlock:
	uverbs_exit_device(dev, srcu_key);
	kfree(file);
	return ret;
}

static int ib_uverbs_close(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_file *file = filp->private_data;
	struct ib_uverbs_device *dev = file->device;

	/*
	 * Under lists_mutex, remove() either already freed our context or
	 * has not walked the list yet, and then the ib_device lives until
	 * it has: freeing the context here is safe either way.
	 */
	mutex_lock(&dev->lists_mutex);
	list_del(&file->list);
	ufile_destroy_ucontext(file, RDMA_REMOVE_CLOSE);
	if (list_empty(&dev->files))
		wake_up(&dev->files_empty);
	mutex_unlock(&dev->lists_mutex);
	/* What userspace left undestroyed after a disassociation. */
	uverbs_drop_disassociated(file);
	/* The driver is done with this file: its context went above. */
	module_put(file->driver_owner);

	/* Comp channels still open keep it until they are closed. */
	ib_uverbs_file_put(file);
	return 0;
}

/*
 * Userspace maps what the driver offers (queues, doorbells) at offsets
 * the driver answered in its create commands; the driver checks them.
 */
static int ib_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ib_uverbs_file *file = filp->private_data;
	struct ib_uverbs_device *dev = file->device;
	struct ib_ucontext *ucontext;
	struct ib_device *ib_dev;
	int srcu_key;
	int ret;

	ib_dev = uverbs_enter_device(dev, &srcu_key);
	if (!ib_dev) {
		ret = -EIO;
		goto out;
	}
	ucontext = ib_uverbs_get_ucontext_file(file);
	if (IS_ERR(ucontext)) {
		ret = PTR_ERR(ucontext);
		goto out;
	}
	if (!ib_dev->ops.mmap) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = ib_dev->ops.mmap(ucontext, vma);
out:
	uverbs_exit_device(dev, srcu_key);
	return ret;
}

static const struct file_operations uverbs_fops = {
	.owner = THIS_MODULE,
	.open = ib_uverbs_open,
	.release = ib_uverbs_close,
	.write = ib_uverbs_write,
	.mmap = ib_uverbs_mmap,
	.unlocked_ioctl = ib_uverbs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

/* ---------------------------------------------------------------- */
/* Class and device attributes                                      */

static char *uverbs_devnode(struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

static ssize_t abi_version_show(struct class *class,
				struct class_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_VERBS_ABI_VERSION);
}
static CLASS_ATTR_RO(abi_version);

static struct attribute *uverbs_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uverbs_class);

static struct class uverbs_class = {
	.name = IB_UVERBS_NAME,
	.owner = THIS_MODULE,
	.devnode = uverbs_devnode,
	.class_groups = uverbs_class_groups,
};

/*
 * Device attributes read the ib_device under the SRCU read lock;
 * -ENODEV once it is gone (the files stay until device_del()).
 */
static ssize_t ibdev_show(struct device *device, struct device_attribute *attr,
			  char *buf)
{
	struct ib_uverbs_device *dev =
		container_of(device, struct ib_uverbs_device, dev);
	struct ib_device *ib_dev;
	int srcu_key;
	int ret = -ENODEV;

	ib_dev = uverbs_enter_device(dev, &srcu_key);
	if (ib_dev)
		ret = sysfs_emit(buf, "%s\n", dev_name(&ib_dev->dev));
	uverbs_exit_device(dev, srcu_key);
	return ret;
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t abi_version_dev_show(struct device *device,
				    struct device_attribute *attr, char *buf)
{
	struct ib_uverbs_device *dev =
		container_of(device, struct ib_uverbs_device, dev);
	struct ib_device *ib_dev;
	int srcu_key;
	int ret = -ENODEV;

	ib_dev = uverbs_enter_device(dev, &srcu_key);
	if (ib_dev)
		ret = sysfs_emit(buf, "%u\n", ib_dev->ops.uverbs_abi_ver);
	uverbs_exit_device(dev, srcu_key);
	return ret;
}

/* Same file name as the class attribute, hence the explicit macro. */
static struct device_attribute dev_attr_abi_version =
	__ATTR(abi_version, 0444, abi_version_dev_show, NULL);

static struct attribute *uverbs_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uverbs_dev);

/* ---------------------------------------------------------------- */
/* The ib client                                                    */

static void uverbs_dev_release(struct device *device)
{
	struct ib_uverbs_device *dev =
		container_of(device, struct ib_uverbs_device, dev);

	WARN_ON(!list_empty(&dev->files));
	uverbs_uapi_types_free(&dev->uapi_objs);
	uverbs_xrcd_table_free(dev);
	cleanup_srcu_struct(&dev->disassociate_srcu);
	mutex_destroy(&dev->lists_mutex);
	kfree(dev);
}

static dev_t uverbs_devt(int devnum)
{
	if (devnum < IB_UVERBS_NUM_FIXED_MINOR)
		return uverbs_fixed_base + devnum;
	return uverbs_dynamic_base + devnum - IB_UVERBS_NUM_FIXED_MINOR;
}

static int ib_uverbs_add_one(struct ib_device *ib_dev)
{
	struct ib_uverbs_device *dev;
	int devnum;
	int ret;

	/* Devices for kernel users only have no char device. */
	if (!ib_dev->ops.alloc_ucontext)
		return -EOPNOTSUPP;

	devnum = ida_alloc_max(&uverbs_ida, IB_UVERBS_MAX_DEVICES - 1,
			       GFP_KERNEL);
	if (devnum < 0)
		return -ENOMEM;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev) {
		ida_free(&uverbs_ida, devnum);
		return -ENOMEM;
	}
	dev->devnum = devnum;
	dev->num_comp_vectors = ib_dev->num_comp_vectors;
	ret = init_srcu_struct(&dev->disassociate_srcu);
	if (ret) {
		ida_free(&uverbs_ida, devnum);
		kfree(dev);
		return ret;
	}
	mutex_init(&dev->lists_mutex);
	INIT_LIST_HEAD(&dev->files);
	init_waitqueue_head(&dev->files_empty);
	rcu_assign_pointer(dev->ib_dev, ib_dev);
	uverbs_xrcd_table_init(dev);
	xa_init(&dev->uapi_objs);
	ret = uverbs_uapi_types_build(ib_dev, &dev->uapi_objs);
	if (ret) {
		uverbs_xrcd_table_free(dev);
		cleanup_srcu_struct(&dev->disassociate_srcu);
		mutex_destroy(&dev->lists_mutex);
		ida_free(&uverbs_ida, devnum);
		kfree(dev);
		return ret;
	}

	/* From here on, the release frees everything above but the number. */
	device_initialize(&dev->dev);
	dev->dev.class = &uverbs_class;
	dev->dev.parent = ib_dev->dev.parent;
	dev->dev.groups = uverbs_dev_groups;
	dev->dev.release = uverbs_dev_release;
	dev->dev.devt = uverbs_devt(devnum);
	ret = dev_set_name(&dev->dev, "uverbs%d", devnum);
	if (ret)
		goto err_put;

	cdev_init(&dev->cdev, &uverbs_fops);
	dev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&dev->cdev, &dev->dev);
	if (ret)
		goto err_put;

	ib_set_client_data(ib_dev, &uverbs_client, dev);
	return 0;

err_put:
	ida_free(&uverbs_ida, devnum);
	put_device(&dev->dev);
	return ret;
}

/*
 * Detach every open file from the device: no syscall uses it any more
 * (the caller waited for disassociate_srcu), so free the driver contexts
 * now and tell each context's owner the device is gone.
 */
static void uverbs_disassociate_files(struct ib_uverbs_device *dev)
{
	struct ib_uverbs_file *file;

	mutex_lock(&dev->lists_mutex);
	list_for_each_entry(file, &dev->files, list) {
		ufile_destroy_ucontext(file, RDMA_REMOVE_DRIVER_REMOVE);
		if (file->async_file)
			ib_uverbs_async_file_last(file->async_file,
						  IB_EVENT_DEVICE_FATAL);
	}
	mutex_unlock(&dev->lists_mutex);
}

static bool files_empty(struct ib_uverbs_device *dev)
{
	bool empty;

	mutex_lock(&dev->lists_mutex);
	empty = list_empty(&dev->files);
	mutex_unlock(&dev->lists_mutex);
	return empty;
}

/*
 * Waits until no file of @dev is open.  files_empty() takes a mutex, so
 * it must not run as wait_event()'s condition, which is evaluated in a
 * sleeping task state ("do not call blocking ops when !TASK_RUNNING" on
 * the debug kernel): wait_woken() evaluates it running, and a wake-up
 * between the check and the sleep is not lost.
 */
static void uverbs_wait_files_empty(struct ib_uverbs_device *dev)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);

	add_wait_queue(&dev->files_empty, &wait);
	while (!files_empty(dev))
		wait_woken(&wait, TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
	remove_wait_queue(&dev->files_empty, &wait);
}

static void ib_uverbs_remove_one(struct ib_device *ib_dev, void *client_data)
{
	struct ib_uverbs_device *dev = client_data;
	bool wait_clients;

	/* No new open(); the files already open stay valid. */
	cdev_device_del(&dev->cdev, &dev->dev);
	/*
	 * The number is free for the next device, as on stock: a device
	 * that comes back (moved to another namespace) while files of its
	 * old self are open is uverbsN again.
	 */
	ida_free(&uverbs_ida, dev->devnum);

	/*
	 * Contexts are torn down under their files only when the driver can
	 * revoke what they map (disassociate_ucontext); otherwise removal
	 * waits for the files to close, as on stock, and the open files
	 * hold the driver's module meanwhile.  The files keep working until
	 * then.  An open() already past the cdev when it went may add a
	 * file after the first wait: the SRCU grace period below lets it
	 * finish, and the second wait covers it (it answers EIO by then).
	 */
	wait_clients = !ib_dev->ops.disassociate_ucontext;
	if (wait_clients)
		uverbs_wait_files_empty(dev);

	rcu_assign_pointer(dev->ib_dev, NULL);
	synchronize_srcu(&dev->disassociate_srcu);
	if (wait_clients)
		uverbs_wait_files_empty(dev);
	uverbs_disassociate_files(dev);

	put_device(&dev->dev);
}

static int ib_uverbs_get_nl_info(struct ib_device *ib_dev, void *client_data,
				 struct ib_client_nl_info *res)
{
	struct ib_uverbs_device *dev = client_data;
	int ret;

	if (res->port != (unsigned int)-1)
		return -EINVAL;

	res->abi = ib_dev->ops.uverbs_abi_ver;
	res->cdev = &dev->dev;

	/* The provider userspace loads for this device. */
	if (ib_dev->ops.driver_id != RDMA_DRIVER_UNKNOWN) {
		ret = nla_put_u32(res->nl_msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
				  ib_dev->ops.driver_id);
		if (ret)
			return ret;
	}
	return 0;
}

static struct ib_client uverbs_client = {
	.name = "uverbs",
	.no_kverbs_req = true,
	.add = ib_uverbs_add_one,
	.remove = ib_uverbs_remove_one,
	.get_nl_info = ib_uverbs_get_nl_info,
};

/* ---------------------------------------------------------------- */
/* Module                                                           */

static int __init ib_uverbs_init(void)
{
	int ret;

	ret = ib_core_oot_check(OOT_RDMA_VERSION);
	if (ret)
		return ret;

	ret = register_chrdev_region(uverbs_fixed_base,
				     IB_UVERBS_NUM_FIXED_MINOR, IB_UVERBS_NAME);
	if (ret)
		return ret;

	ret = alloc_chrdev_region(&uverbs_dynamic_base, 0,
				  IB_UVERBS_MAX_DEVICES -
				  IB_UVERBS_NUM_FIXED_MINOR, IB_UVERBS_NAME);
	if (ret)
		goto err_fixed;

	ret = class_register(&uverbs_class);
	if (ret)
		goto err_dynamic;

	ret = ib_register_client(&uverbs_client);
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_unregister(&uverbs_class);
err_dynamic:
	unregister_chrdev_region(uverbs_dynamic_base,
				 IB_UVERBS_MAX_DEVICES - IB_UVERBS_NUM_FIXED_MINOR);
err_fixed:
	unregister_chrdev_region(uverbs_fixed_base, IB_UVERBS_NUM_FIXED_MINOR);
	return ret;
}

static void __exit ib_uverbs_exit(void)
{
	ib_unregister_client(&uverbs_client);
	class_unregister(&uverbs_class);
	unregister_chrdev_region(uverbs_dynamic_base,
				 IB_UVERBS_MAX_DEVICES - IB_UVERBS_NUM_FIXED_MINOR);
	unregister_chrdev_region(uverbs_fixed_base, IB_UVERBS_NUM_FIXED_MINOR);
	ida_destroy(&uverbs_ida);
}

module_init(ib_uverbs_init);
module_exit(ib_uverbs_exit);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: XRC domains, their uobject type and the domains shared by
 * inode.
 *
 * OPEN_XRCD (uverbs_cmd_xrcd.c) with fd -1 makes a domain of the calling
 * process alone; with the fd of a file it opens the domain that file
 * names on this uverbs device, made by the first opener (O_CREAT), so
 * that processes sharing the file share the domain, its XRC SRQs and its
 * XRC target QPs.  Such a domain is listed in the device's table by the
 * file's inode (held with igrab() while listed), and its usecnt counts
 * its openers besides its target QPs and XRC SRQs (which ib_core counts):
 * each opener's close drops one, and the close that finds no user left
 * frees the domain and unlists it.  A handle cannot be closed while QPs
 * or SRQs made through it exist (ib_uxrcd_object.refcnt, -EBUSY), so the
 * last opener's close finds the domain unused: a target QP lives as long
 * as one of its handles, and every handle holds the domain handle it was
 * made through.
 *
 * Locking: the device's xrcd_lock protects the table and orders the
 * opener counts against a lookup (uverbs.h).  The other counts change
 * without it (ib_core's atomics): they cannot reach zero under an
 * opener.
 */

#include <linux/fs.h>
#include <linux/slab.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "uverbs.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

/* One domain named by a file, in ib_uverbs_device.xrcd_table. */
struct uverbs_xrcd_entry {
	struct hlist_node node;
	/* Held (igrab()) while listed. */
	struct inode *inode;
	struct ib_xrcd *xrcd;
};

void uverbs_xrcd_table_init(struct ib_uverbs_device *dev)
{
	mutex_init(&dev->xrcd_lock);
	hash_init(dev->xrcd_table);
}

/*
 * The uverbs device is freed: its files are gone and every domain with
 * them, but for one the driver refused to free (leaked with its files'
 * contexts, rdma_core.c): only the entry and its inode go here.
 */
void uverbs_xrcd_table_free(struct ib_uverbs_device *dev)
{
	struct uverbs_xrcd_entry *entry;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(dev->xrcd_table, bkt, tmp, entry, node) {
		hash_del(&entry->node);
		iput(entry->inode);
		kfree(entry);
	}
	mutex_destroy(&dev->xrcd_lock);
}

static struct uverbs_xrcd_entry *xrcd_entry(struct ib_uverbs_device *dev,
					    struct inode *inode)
{
	struct uverbs_xrcd_entry *entry;

	lockdep_assert_held(&dev->xrcd_lock);
	hash_for_each_possible(dev->xrcd_table, entry, node,
			       (unsigned long)inode)
		if (entry->inode == inode)
			return entry;
	return NULL;
}

struct ib_xrcd *uverbs_xrcd_table_find(struct ib_uverbs_device *dev,
				       struct inode *inode)
{
	struct uverbs_xrcd_entry *entry = xrcd_entry(dev, inode);

	return entry ? entry->xrcd : NULL;
}

int uverbs_xrcd_table_add(struct ib_uverbs_device *dev, struct inode *inode,
			  struct ib_xrcd *xrcd)
{
	struct uverbs_xrcd_entry *entry;

	lockdep_assert_held(&dev->xrcd_lock);
	entry = kmalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->inode = igrab(inode);
	if (!entry->inode) {
		/* Being evicted: no process can name it any more. */
		kfree(entry);
		return -ENOENT;
	}
	entry->xrcd = xrcd;
	hash_add(dev->xrcd_table, &entry->node, (unsigned long)inode);
	return 0;
}

static void xrcd_table_del(struct ib_uverbs_device *dev, struct inode *inode)
{
	struct uverbs_xrcd_entry *entry = xrcd_entry(dev, inode);

	if (WARN_ON(!entry))
		return;
	hash_del(&entry->node);
	iput(entry->inode);
	kfree(entry);
}

/*
 * Close a handle of @xrcd: a domain shared by inode loses an opener and
 * is freed with its last one; a private one is freed.  Its XRC target
 * QPs and SRQs hold its usecnt (ib_dealloc_xrcd_user() is -EBUSY under
 * them).  On failure nothing changed.
 */
static int xrcd_close(struct ib_uverbs_device *dev, struct ib_xrcd *xrcd,
		      struct ib_udata *udata)
{
	struct inode *inode = xrcd->inode;
	int ret;

	lockdep_assert_held(&dev->xrcd_lock);
	if (inode && !atomic_dec_and_test(&xrcd->usecnt))
		return 0;

	ret = ib_dealloc_xrcd_user(xrcd, udata);
	if (ret) {
		if (inode)
			atomic_inc(&xrcd->usecnt);
		return ret;
	}
	if (inode)
		xrcd_table_del(dev, inode);
	return 0;
}

static int uverbs_free_xrcd(struct ib_uobject *uobj,
			    enum rdma_remove_reason why,
			    struct uverbs_attr_bundle *attrs)
{
	struct ib_uxrcd_object *uxrcd =
		container_of(uobj, struct ib_uxrcd_object, uobject);
	struct ib_uverbs_device *dev = attrs->ufile->device;
	int ret;

	/* Its QPs and SRQs go first (they are "users", rdma_core.c). */
	if (atomic_read(&uxrcd->refcnt))
		return -EBUSY;

	mutex_lock(&dev->xrcd_lock);
	ret = xrcd_close(dev, uobj->object, &attrs->driver_udata);
	mutex_unlock(&dev->xrcd_lock);
	return ret;
}

const struct uverbs_api_object uverbs_xrcd_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_uxrcd_object),
						uverbs_free_xrcd),
	.type_class = &uverbs_idr_class,
	.id = UVERBS_OBJECT_XRCD,
};

/* The ioctl destroy: the framework destroyed it, nothing to answer. */
DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_XRCD_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_XRCD_HANDLE,
						    UVERBS_OBJECT_XRCD,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_XRCD,
			      &UVERBS_METHOD(UVERBS_METHOD_XRCD_DESTROY));

/* As stock: only a device that can make and free domains has them. */
const struct uapi_definition uverbs_def_obj_xrcd[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_XRCD,
				      UAPI_DEF_OBJ_NEEDS_FN(alloc_xrcd),
				      UAPI_DEF_OBJ_NEEDS_FN(dealloc_xrcd)),
	{},
};

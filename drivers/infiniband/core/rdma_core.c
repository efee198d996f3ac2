// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: user objects (struct ib_uobject).
 *
 * Every verbs object a process creates through a uverbs file is a uobject
 * in that file's handle table, an allocating xarray indexed by the handle
 * userspace names it by.  Its life:
 *
 *	alloc_begin	handle reserved (the slot reads NULL), the uobject
 *			owned exclusively by its creator (usecnt == -1)
 *	alloc_commit	published: the slot points to it, lookups find it
 *	alloc_abort	handle released, nothing was ever visible
 *	lookup		a reference plus a shared (usecnt > 0) or exclusive
 *			(usecnt == -1) claim; a conflicting claim is -EBUSY,
 *			a missing handle -ENOENT, one of another type -EINVAL
 *			(the errnos stock answers)
 *	destroy		under an exclusive claim: the type frees the driver
 *			object, then the handle goes; the uobject itself is
 *			freed with its last reference, after an RCU grace
 *			period (lookups find it under rcu_read_lock() only)
 *
 * Cleanup of a whole file (close, or device disassociation) runs when no
 * syscall of the file can be in progress, and destroys what is left in
 * dependency order (uobj_destroy_order()), newest first within an order,
 * retrying what the driver refused (uverbs_destroy_ufile_uobjects()).
 *
 * Disassociation keeps the handles, as stock does: each destroyed
 * handle-table uobject stays in the table with no object and no context
 * (idr_disassociate()), so that userspace cleaning up after
 * IB_EVENT_DEVICE_FATAL can still destroy it, which succeeds and answers
 * its event counts (uverbs_ioctl.c); close drops what is left
 * (uverbs_drop_disassociated()).
 */

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>
/* kABI: struct net_generic defined, as stock's file sees it (core.rst) */
#include <net/netns/generic.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "core_priv.h"
#include "uverbs.h"

static void uverbs_uobject_free(struct kref *ref)
{
	struct ib_uobject *uobj = container_of(ref, struct ib_uobject, ref);

	ib_uverbs_file_put(uobj->ufile);
	kfree_rcu(uobj, rcu);
}

void uverbs_uobject_put(struct ib_uobject *uobject)
{
	kref_put(&uobject->ref, uverbs_uobject_free);
}
EXPORT_SYMBOL(uverbs_uobject_put);

/*
 * When a type's objects go in a whole-file cleanup: lower orders first.
 * An object is destroyed before any object it uses (a QP before its CQs,
 * everything before its PD); within an order, newest first.
 */
enum uverbs_destroy_order {
	/* Nothing refers to them: QP, MW, flows. */
	UVERBS_DESTROY_ORDER_USERS,
	/* Referred to by the above: CQ, SRQ, MR, AH, WQ. */
	UVERBS_DESTROY_ORDER_SHARED,
	/* Referred to by almost everything; XRC domains by their QPs and SRQs. */
	UVERBS_DESTROY_ORDER_PD,
	/* Event channels: CQs hold them, their fds may stay open. */
	UVERBS_DESTROY_ORDER_FD,
	UVERBS_NUM_DESTROY_ORDERS
};

static enum uverbs_destroy_order
uobj_destroy_order(const struct uverbs_api_object *obj)
{
	if (obj->type_attrs->type_class == &uverbs_fd_class)
		return UVERBS_DESTROY_ORDER_FD;
	switch (obj->id) {
	case UVERBS_OBJECT_PD:
	case UVERBS_OBJECT_XRCD:
		return UVERBS_DESTROY_ORDER_PD;
	case UVERBS_OBJECT_CQ:
	case UVERBS_OBJECT_SRQ:
	case UVERBS_OBJECT_MR:
	case UVERBS_OBJECT_AH:
	case UVERBS_OBJECT_WQ:
		return UVERBS_DESTROY_ORDER_SHARED;
	default:
		return UVERBS_DESTROY_ORDER_USERS;
	}
}

static const struct uverbs_obj_type_class *
uobj_class(const struct uverbs_api_object *obj)
{
	return obj->type_attrs->type_class;
}

/* ---------------------------------------------------------------- */
/* The handle-table class                                           */

/* A new uobject of @obj's type, exclusively its creator's; holds the file. */
static struct ib_uobject *uobj_new(const struct uverbs_api_object *obj,
				   struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;

	/* Memory the process makes us hold: its memory cgroup's. */
	uobj = kzalloc(obj->type_attrs->obj_size, GFP_KERNEL_ACCOUNT);
	if (!uobj)
		return NULL;
	kref_get(&attrs->ufile->ref);
	uobj->ufile = attrs->ufile;
	uobj->context = attrs->context;
	uobj->uapi_object = obj;
	INIT_LIST_HEAD(&uobj->list);
	kref_init(&uobj->ref);
	/* Its creator's until commit. */
	atomic_set(&uobj->usecnt, -1);
	return uobj;
}

/*
 * A handle-table uobject is charged one HCA_OBJECT from alloc_begin until
 * its handle goes (abort, or destroy once the driver object is gone).
 */
static void idr_uncharge(struct ib_uobject *uobj)
{
	ib_rdmacg_uncharge(&uobj->cg_obj, uobj->context->device,
			   RDMACG_RESOURCE_HCA_OBJECT);
}

static struct ib_uobject *idr_alloc_begin(const struct uverbs_api_object *obj,
					  struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;
	u32 id;
	int ret;

	uobj = uobj_new(obj, attrs);
	if (!uobj)
		return ERR_PTR(-ENOMEM);

	/* Over the cgroup's hca_object limit: -EAGAIN, as stock. */
	ret = ib_rdmacg_try_charge(&uobj->cg_obj, attrs->context->device,
				   RDMACG_RESOURCE_HCA_OBJECT);
	if (ret)
		goto err_put;

	/* Storing NULL reserves the handle: lookups see an empty slot. */
	ret = xa_alloc(&attrs->ufile->idr, &id, NULL, xa_limit_31b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_uncharge;
	uobj->id = id;
	return uobj;

err_uncharge:
	idr_uncharge(uobj);
err_put:
	uverbs_uobject_put(uobj);
	return ERR_PTR(ret);
}

/* The reference from alloc_begin becomes the handle table's. */
static void idr_alloc_commit(struct ib_uobject *uobj)
{
	xa_store(&uobj->ufile->idr, uobj->id, uobj, GFP_KERNEL);
}

static void idr_alloc_abort(struct ib_uobject *uobj)
{
	xa_erase(&uobj->ufile->idr, uobj->id);
	idr_uncharge(uobj);
}

static struct ib_uobject *idr_lookup_get(const struct uverbs_api_object *obj,
					 struct ib_uverbs_file *ufile, s64 id,
					 enum rdma_lookup_mode mode)
{
	struct ib_uobject *uobj;

	/* Handles are 31-bit: anything larger names nothing. */
	if (id < 0 || id > U32_MAX)
		return ERR_PTR(-EINVAL);
	if (id > INT_MAX)
		return ERR_PTR(-ENOENT);

	rcu_read_lock();
	uobj = xa_load(&ufile->idr, id);
	if (uobj && !kref_get_unless_zero(&uobj->ref))
		uobj = NULL;
	rcu_read_unlock();
	return uobj ? uobj : ERR_PTR(-ENOENT);
}

static void idr_lookup_put(struct ib_uobject *uobj, enum rdma_lookup_mode mode)
{
}

static int idr_destroy_hw(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	const struct uverbs_obj_idr_type *idr_type =
		container_of(uobj->uapi_object->type_attrs,
			     struct uverbs_obj_idr_type, type);

	return idr_type->destroy_object(uobj, why, attrs);
}

/*
 * The driver object is gone: drops the handle table's reference.  A
 * disassociated uobject (no context) was uncharged then.
 */
static void idr_remove_handle(struct ib_uobject *uobj)
{
	xa_erase(&uobj->ufile->idr, uobj->id);
	if (uobj->context)
		idr_uncharge(uobj);
	uverbs_uobject_put(uobj);
}

/*
 * The device is going and the driver object is gone: the handle stays,
 * for a later destroy to find, but nothing may lead to the device or to
 * the context, which go next.
 */
static void idr_disassociate(struct ib_uobject *uobj)
{
	idr_uncharge(uobj);
	uobj->context = NULL;
}

const struct uverbs_obj_type_class uverbs_idr_class = {
	.alloc_begin = idr_alloc_begin,
	.alloc_commit = idr_alloc_commit,
	.alloc_abort = idr_alloc_abort,
	.lookup_get = idr_lookup_get,
	.lookup_put = idr_lookup_put,
	.destroy_hw = idr_destroy_hw,
	.remove_handle = idr_remove_handle,
};
EXPORT_SYMBOL(uverbs_idr_class);

/* ---------------------------------------------------------------- */
/* The fd class                                                     */

/*
 * An fd uobject (a comp channel) is an anon inode file: its handle is
 * the fd, ->object the file.  The file holds a reference to the uobject
 * from creation to its release; the one from alloc_begin is the
 * uobject list's, as for a handle.  The uobject is destroyed by
 * whichever comes first, the file's cleanup or the release of the fd
 * (uverbs_uobject_fd_release()), the other finds it destroyed.
 */

static const struct uverbs_obj_fd_type *
fd_type_of(const struct uverbs_api_object *obj)
{
	return container_of(obj->type_attrs, struct uverbs_obj_fd_type, type);
}

static struct ib_uobject *fd_alloc_begin(const struct uverbs_api_object *obj,
					 struct uverbs_attr_bundle *attrs)
{
	const struct uverbs_obj_fd_type *fd_type = fd_type_of(obj);
	struct ib_uobject *uobj;
	struct file *filp;
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return ERR_PTR(fd);

	uobj = uobj_new(obj, attrs);
	if (!uobj) {
		put_unused_fd(fd);
		return ERR_PTR(-ENOMEM);
	}

	/* The file's reference. */
	kref_get(&uobj->ref);
	filp = anon_inode_getfile(fd_type->name, fd_type->fops, uobj,
				  fd_type->flags);
	if (IS_ERR(filp)) {
		uverbs_uobject_put(uobj);
		uverbs_uobject_put(uobj);
		put_unused_fd(fd);
		return ERR_CAST(filp);
	}
	uobj->id = fd;
	uobj->object = filp;
	return uobj;
}

static void fd_alloc_commit(struct ib_uobject *uobj)
{
	fd_install(uobj->id, uobj->object);
}

/* Its release finds it never committed and just drops its reference. */
static void fd_alloc_abort(struct ib_uobject *uobj)
{
	struct file *filp = uobj->object;

	uobj->object = NULL;
	fput(filp);
	put_unused_fd(uobj->id);
}

/*
 * The uobject behind fd @id, referenced: a file of another type, or of
 * another uverbs file, is -EBADF.  The fd may be closed as soon as we
 * let go of the file; the uobject stays valid memory, at worst already
 * destroyed, which for an event channel only means it reports nothing.
 */
static struct ib_uobject *fd_lookup_get(const struct uverbs_api_object *obj,
					struct ib_uverbs_file *ufile, s64 id,
					enum rdma_lookup_mode mode)
{
	struct ib_uobject *uobj;
	struct file *filp;

	if (mode != UVERBS_LOOKUP_READ)
		return ERR_PTR(-EOPNOTSUPP);
	if (id < 0 || id > INT_MAX)
		return ERR_PTR(-EBADF);

	filp = fget(id);
	if (!filp)
		return ERR_PTR(-EBADF);
	uobj = filp->private_data;
	if (filp->f_op != fd_type_of(obj)->fops || uobj->ufile != ufile)
		uobj = ERR_PTR(-EBADF);
	else
		uverbs_uobject_get(uobj);
	fput(filp);
	return uobj;
}

static void fd_lookup_put(struct ib_uobject *uobj, enum rdma_lookup_mode mode)
{
}

static int fd_destroy_hw(struct ib_uobject *uobj, enum rdma_remove_reason why,
			 struct uverbs_attr_bundle *attrs)
{
	fd_type_of(uobj->uapi_object)->destroy_object(uobj, why);
	return 0;
}

/* The file keeps its reference until released. */
static void fd_remove_handle(struct ib_uobject *uobj)
{
	uverbs_uobject_put(uobj);
}

const struct uverbs_obj_type_class uverbs_fd_class = {
	.alloc_begin = fd_alloc_begin,
	.alloc_commit = fd_alloc_commit,
	.alloc_abort = fd_alloc_abort,
	.lookup_get = fd_lookup_get,
	.lookup_put = fd_lookup_put,
	.destroy_hw = fd_destroy_hw,
	.remove_handle = fd_remove_handle,
};
EXPORT_SYMBOL(uverbs_fd_class);

/* ---------------------------------------------------------------- */
/* Claims                                                           */

static int uobj_claim(struct ib_uobject *uobj, enum rdma_lookup_mode mode)
{
	if (mode == UVERBS_LOOKUP_READ)
		return atomic_fetch_add_unless(&uobj->usecnt, 1, -1) == -1 ?
			-EBUSY : 0;
	return atomic_cmpxchg(&uobj->usecnt, 0, -1) ? -EBUSY : 0;
}

/*
 * A destroyed uobject keeps its exclusive claim forever, so a lookup that
 * found it just before its handle went can never use its object.
 */
static void uobj_release_claim(struct ib_uobject *uobj,
			       enum rdma_lookup_mode mode)
{
	if (mode == UVERBS_LOOKUP_READ)
		atomic_dec(&uobj->usecnt);
	else if (uobj->object)
		atomic_set(&uobj->usecnt, 0);
}

/**
 * rdma_lookup_get_uobject() - find a uobject by handle and claim it
 * @obj: the type the handle must name
 * @ufile: the file whose handle table to search
 * @id: the handle
 * @mode: shared (READ) or exclusive (WRITE, DESTROY) claim
 * @attrs: the call's bundle, or NULL
 *
 * Return: the uobject, referenced and claimed, to be given back with
 * rdma_lookup_put_uobject(); ERR_PTR(-ENOENT) for a handle that names
 * nothing (never created, destroyed, or still being created),
 * ERR_PTR(-EINVAL) for one naming an object of another type,
 * ERR_PTR(-EBUSY) when a conflicting claim is held.
 */
struct ib_uobject *rdma_lookup_get_uobject(const struct uverbs_api_object *obj,
					   struct ib_uverbs_file *ufile, s64 id,
					   enum rdma_lookup_mode mode,
					   struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;
	int ret;

	uobj = uobj_class(obj)->lookup_get(obj, ufile, id, mode);
	if (IS_ERR(uobj))
		return uobj;

	if (uobj->uapi_object != obj) {
		ret = -EINVAL;
		goto err_put;
	}
	ret = uobj_claim(uobj, mode);
	if (ret)
		goto err_put;
	return uobj;

err_put:
	/*
	 * The class that found it: a uobject of another type may be a
	 * driver's, whose type (in the driver's module) may be gone with
	 * the device.
	 */
	uobj_class(obj)->lookup_put(uobj, mode);
	uverbs_uobject_put(uobj);
	return ERR_PTR(ret);
}

void rdma_lookup_put_uobject(struct ib_uobject *uobj,
			     enum rdma_lookup_mode mode)
{
	uobj_class(uobj->uapi_object)->lookup_put(uobj, mode);
	uobj_release_claim(uobj, mode);
	uverbs_uobject_put(uobj);
}

/* ---------------------------------------------------------------- */
/* Creation                                                         */

/**
 * rdma_alloc_begin_uobject() - start creating a uobject
 * @obj: its type
 * @attrs: the call's bundle; the new uobject belongs to its file and
 *	context
 *
 * Return: the uobject, with its handle reserved and nothing visible yet,
 * or an ERR_PTR (-EINVAL when @attrs has no context).  The caller sets
 * ->object, then commits or aborts.
 */
struct ib_uobject *rdma_alloc_begin_uobject(const struct uverbs_api_object *obj,
					    struct uverbs_attr_bundle *attrs)
{
	/* Objects belong to a context: none before GET_CONTEXT. */
	if (!attrs->context)
		return ERR_PTR(-EINVAL);
	return uobj_class(obj)->alloc_begin(obj, attrs);
}

/**
 * rdma_alloc_commit_uobject() - publish a uobject once fully created
 * @uobj: from rdma_alloc_begin_uobject()
 * @attrs: the call's bundle
 *
 * From here on lookups find it and cleanup destroys it.
 */
void rdma_alloc_commit_uobject(struct ib_uobject *uobj,
			       struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = uobj->ufile;

	spin_lock(&ufile->uobjects_lock);
	list_add_tail(&uobj->list, &ufile->uobjects);
	spin_unlock(&ufile->uobjects_lock);

	/* Released before publishing: the first lookup may claim it. */
	atomic_set(&uobj->usecnt, 0);
	uobj_class(uobj->uapi_object)->alloc_commit(uobj);
}

/**
 * rdma_alloc_abort_uobject() - undo rdma_alloc_begin_uobject()
 * @uobj: never committed
 * @attrs: the call's bundle
 * @hw_obj_valid: @uobj->object exists and the type must destroy it
 *
 * Should the driver refuse to destroy the object, the uobject is kept
 * for the file's cleanup to retry, on the file's list but never
 * published: its handle stays reserved (lookups find nothing) and its
 * creator's exclusive claim stays.
 */
void rdma_alloc_abort_uobject(struct ib_uobject *uobj,
			      struct uverbs_attr_bundle *attrs,
			      bool hw_obj_valid)
{
	const struct uverbs_obj_type_class *class = uobj_class(uobj->uapi_object);
	struct ib_uverbs_file *ufile = uobj->ufile;

	if (hw_obj_valid && class->destroy_hw(uobj, RDMA_REMOVE_ABORT, attrs)) {
		/* alloc_begin's reference becomes the list's. */
		spin_lock(&ufile->uobjects_lock);
		list_add_tail(&uobj->list, &ufile->uobjects);
		spin_unlock(&ufile->uobjects_lock);
		return;
	}
	class->alloc_abort(uobj);
	uverbs_uobject_put(uobj);
}

/* ---------------------------------------------------------------- */
/* Destruction                                                      */

/*
 * Destroy @uobj's object and drop its handle.  The caller holds an
 * exclusive claim, or runs the file's cleanup.  The type may refuse
 * (-EBUSY while other objects use it, or the driver's error), leaving
 * everything as it was: the uobject still owns the driver object, whose
 * handlers still point to it.  On disassociation a handle-table uobject
 * keeps its handle; its destroy later finds no object and only drops it.
 */
static int uverbs_destroy_uobject(struct ib_uobject *uobj,
				  enum rdma_remove_reason why,
				  struct uverbs_attr_bundle *attrs)
{
	const struct uverbs_obj_type_class *class = uobj_class(uobj->uapi_object);
	struct ib_uverbs_file *ufile = uobj->ufile;
	int ret;

	/*
	 * Userspace's destroy once the device is gone (the file's context
	 * with it), by write() or ioctl: only what the disassociation
	 * destroyed may go; a driver object it could not destroy is the
	 * driver's still.  A live file keeps its context while a command
	 * runs, and a file without one has no objects.
	 */
	if (why == RDMA_REMOVE_DESTROY && uobj->object &&
	    !READ_ONCE(ufile->ucontext))
		return -EIO;
	if (uobj->object) {
		ret = class->destroy_hw(uobj, why, attrs);
		if (ret)
			return ret;
		uobj->object = NULL;
	}

	spin_lock(&ufile->uobjects_lock);
	list_del_init(&uobj->list);
	spin_unlock(&ufile->uobjects_lock);

	if (why == RDMA_REMOVE_DRIVER_REMOVE && class == &uverbs_idr_class)
		idr_disassociate(uobj);
	else
		class->remove_handle(uobj);
	return 0;
}

/**
 * uverbs_destroy_claimed_uobject() - destroy a uobject claimed for it
 * @uobj: looked up with UVERBS_LOOKUP_DESTROY by the caller
 * @attrs: the call's bundle
 *
 * For the ioctl path, which claims its objects while parsing attributes:
 * destroying the uobject it holds, rather than looking its handle up
 * again, cannot hit a newer object that reused a freed handle.
 *
 * Return: 0 with the object gone, the uobject still referenced and
 * claimed (put it with rdma_lookup_put_uobject(..., DESTROY)); or the
 * type's refusal (-EBUSY while in use), everything as it was.
 */
int uverbs_destroy_claimed_uobject(struct ib_uobject *uobj,
				   struct uverbs_attr_bundle *attrs)
{
	return uverbs_destroy_uobject(uobj, RDMA_REMOVE_DESTROY, attrs);
}

/**
 * __uobj_get_destroy() - claim a uobject and destroy its object
 * @obj: the type the handle must name
 * @id: the handle
 * @attrs: the call's bundle
 *
 * Return: the uobject, still referenced (its fields stay readable, e.g.
 * for event counts in the answer) until uobj_put_destroy(); or an
 * ERR_PTR: -ENOENT for a handle naming nothing, -EINVAL for one of
 * another type, -EBUSY when in use.
 */
struct ib_uobject *__uobj_get_destroy(const struct uverbs_api_object *obj,
				      u32 id, struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;
	int ret;

	uobj = rdma_lookup_get_uobject(obj, attrs->ufile, id,
				       UVERBS_LOOKUP_DESTROY, attrs);
	if (IS_ERR(uobj))
		return uobj;

	ret = uverbs_destroy_uobject(uobj, RDMA_REMOVE_DESTROY, attrs);
	if (ret) {
		rdma_lookup_put_uobject(uobj, UVERBS_LOOKUP_DESTROY);
		return ERR_PTR(ret);
	}
	return uobj;
}

/**
 * __uobj_perform_destroy() - destroy the object a handle names
 * @obj: the type the handle must name
 * @id: the handle
 * @attrs: the call's bundle
 *
 * Return: 0, -ENOENT for a handle naming nothing, -EINVAL for one of
 * another type, -EBUSY when in use.
 */
int __uobj_perform_destroy(const struct uverbs_api_object *obj, u32 id,
			   struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;

	uobj = __uobj_get_destroy(obj, id, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uobj_put_destroy(uobj);
	return 0;
}

/**
 * uverbs_uobject_fd_release() - release() of an fd uobject's file
 * @inode: its inode
 * @filp: the file, whose private_data is the uobject
 *
 * Destroys the uobject unless the uverbs file's cleanup did (both under
 * ucontext_lock), then drops the file's reference to it.
 *
 * Return: 0
 */
int uverbs_uobject_fd_release(struct inode *inode, struct file *filp)
{
	struct ib_uobject *uobj = filp->private_data;
	struct ib_uverbs_file *ufile = uobj->ufile;

	mutex_lock(&ufile->ucontext_lock);
	/* Committed and not destroyed yet: still on the file's list. */
	if (!list_empty(&uobj->list)) {
		struct uverbs_attr_bundle attrs = {
			.ufile = ufile,
			.context = uobj->context,
		};

		uverbs_destroy_uobject(uobj, RDMA_REMOVE_CLOSE, &attrs);
	}
	mutex_unlock(&ufile->ucontext_lock);

	uverbs_uobject_put(uobj);
	return 0;
}
EXPORT_SYMBOL(uverbs_uobject_fd_release);

/* ---------------------------------------------------------------- */
/* Whole-file cleanup                                               */

/*
 * Destroy the uobjects of @order, newest first (children before parents).
 * Returns how many the driver refused: they stay on the list.
 */
static unsigned int uverbs_cleanup_order(struct ib_uverbs_file *ufile,
					 enum rdma_remove_reason why,
					 struct uverbs_attr_bundle *attrs,
					 enum uverbs_destroy_order order)
{
	struct ib_uobject *uobj, *tmp;
	unsigned int refused = 0;

	list_for_each_entry_safe_reverse(uobj, tmp, &ufile->uobjects, list) {
		if (uobj_destroy_order(uobj->uapi_object) != order)
			continue;
		if (uverbs_destroy_uobject(uobj, why, attrs))
			refused++;
	}
	return refused;
}

/**
 * uverbs_destroy_ufile_uobjects() - destroy every uobject of a file
 * @ufile: the file
 * @why: RDMA_REMOVE_CLOSE or RDMA_REMOVE_DRIVER_REMOVE
 *
 * No syscall of @ufile may run (release(), or disassociation after the
 * SRCU wait) and its ib_device must still be registered.
 *
 * A destroy the driver refuses is retried after the others, since an
 * object may refuse only because something that uses it is still there
 * (a PD under a QP whose destroy failed, a QP still attached to a group):
 * passes in dependency order repeat while they make progress.  What the
 * driver still refuses then cannot be freed safely: the driver object
 * lives on, and its handlers and the core objects it uses point to the
 * uobject and to the context.  Those uobjects stay on the list, holding
 * the file, and the caller must keep the context: a deliberate leak,
 * reported once per cleanup, rather than memory the driver still uses.
 * No driver of ours refuses today (rxe's destroys cannot fail).
 *
 * Return: true when every uobject is gone, false when some were kept.
 */
bool uverbs_destroy_ufile_uobjects(struct ib_uverbs_file *ufile,
				   enum rdma_remove_reason why)
{
	struct uverbs_attr_bundle attrs = { .ufile = ufile };
	unsigned int refused = UINT_MAX, before;
	enum uverbs_destroy_order order;

	lockdep_assert_held(&ufile->device->lists_mutex);
	lockdep_assert_held(&ufile->ucontext_lock);

	attrs.context = ufile->ucontext;
	/* What a pass left is what it refused: stop when that stops shrinking. */
	do {
		before = refused;
		refused = 0;
		for (order = 0; order < UVERBS_NUM_DESTROY_ORDERS; order++)
			refused += uverbs_cleanup_order(ufile, why, &attrs,
							order);
	} while (refused && refused < before);

	if (!refused)
		return true;
	ibdev_warn(attrs.context->device,
		   "ib_uverbs: the driver refused to destroy %u objects; leaking them with their context\n",
		   refused);
	return false;
}

/**
 * uverbs_drop_disassociated() - drop the handles disassociation kept
 * @ufile: the file, being closed
 *
 * What userspace did not destroy after the device went: each is a
 * handle-table uobject with no object, holding the file.  Once the file's
 * cleanup ran, the table holds nothing else but what the driver refused
 * to destroy, which stays (uverbs_destroy_ufile_uobjects()).
 */
void uverbs_drop_disassociated(struct ib_uverbs_file *ufile)
{
	struct ib_uobject *uobj;
	unsigned long id;

	xa_for_each(&ufile->idr, id, uobj) {
		if (uobj->object)
			continue;
		xa_erase(&ufile->idr, id);
		uverbs_uobject_put(uobj);
	}
}

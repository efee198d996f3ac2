// SPDX-License-Identifier: GPL-2.0-only
/*
 * Resource tracking: every PD, CQ, QP, MR, SRQ, user context and counter of
 * a device, so that "rdma res" can list them and a device release can tell
 * which ones were leaked.
 *
 * Lifetime of an entry (struct rdma_restrack_entry, embedded in the object):
 *
 *	rdma_restrack_new()		kref = 1, nothing published
 *	rdma_restrack_set_name()	owner: the calling task or a kernel name
 *	rdma_restrack_add()		id reserved, then the entry published
 *	rdma_restrack_get/put()		readers pin a published entry
 *	rdma_restrack_begin_del()	hidden, readers waited for, id kept
 *	rdma_restrack_abort_del()	visible again (the destroy failed)
 *	rdma_restrack_commit_del()	the id freed (the destroy succeeded)
 *	rdma_restrack_del()		unpublished, then waits for the readers
 *	rdma_restrack_sync()		readers of the old state waited for
 *
 * An entry is visible to readers only once the object is complete, and
 * after rdma_restrack_begin_del() or rdma_restrack_del() returns no reader
 * can hold it any more.  Readers (nldev) look at the object, at the
 * parents it uses (its PD, CQ ...) and into the driver (query_qp,
 * fill_res_*): an object is unpublished before the driver destroys it,
 * and its parents are let go only after that, so whatever a reader can
 * reach is alive while the reader holds the entry.
 *
 * The table's own reference is the kref's initial one: an entry whose
 * kref reads zero while still valid is unpublished (only its destroyer
 * can be looking at it then).
 */
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>
#include <rdma/restrack.h>

#include "core_priv.h"
#include "cma_priv.h"

/**
 * struct rdma_restrack_root - the tracked objects of one type of a device
 * @xa: published entries by id.  An allocating xarray whose own lock
 *	serialises id reservation, publication and removal, and is held by
 *	readers while they take a reference on an entry they found.  A
 *	reserved id holds a zero entry, which lookups and walks skip.
 * @next_id: where the next cyclic id allocation starts; under @xa's lock.
 */
struct rdma_restrack_root {
	struct xarray xa;
	u32 next_id;
};

static const char *const rdma_restrack_names[RDMA_RESTRACK_MAX] = {
	[RDMA_RESTRACK_PD] = "pd",
	[RDMA_RESTRACK_CQ] = "cq",
	[RDMA_RESTRACK_QP] = "qp",
	[RDMA_RESTRACK_CM_ID] = "cm_id",
	[RDMA_RESTRACK_MR] = "mr",
	[RDMA_RESTRACK_CTX] = "ctx",
	[RDMA_RESTRACK_COUNTER] = "counter",
	[RDMA_RESTRACK_SRQ] = "srq",
};

const char *rdma_restrack_type_name(enum rdma_restrack_type type)
{
	return type < RDMA_RESTRACK_MAX ? rdma_restrack_names[type] : NULL;
}

int rdma_restrack_init(struct ib_device *dev)
{
	struct rdma_restrack_root *roots;
	int i;

	roots = kcalloc(RDMA_RESTRACK_MAX, sizeof(*roots), GFP_KERNEL);
	if (!roots)
		return -ENOMEM;

	for (i = 0; i < RDMA_RESTRACK_MAX; i++)
		xa_init_flags(&roots[i].xa, XA_FLAGS_ALLOC);
	dev->res = roots;
	return 0;
}

static const char *rdma_restrack_owner(const struct rdma_restrack_entry *res)
{
	if (rdma_is_kernel_res(res))
		return res->kern_name ?: "(kernel)";
	return res->task ? res->task->comm : "(exited)";
}

static void rdma_restrack_report_leaks(struct ib_device *dev,
				       enum rdma_restrack_type type)
{
	struct rdma_restrack_root *rt = &dev->res[type];
	struct rdma_restrack_entry *res;
	unsigned long id;

	ibdev_err(dev, "restrack: %s objects still tracked at release:\n",
		  rdma_restrack_names[type]);
	xa_for_each(&rt->xa, id, res)
		ibdev_err(dev, "restrack:   %s %lu owned by %s\n",
			  rdma_restrack_names[type], id,
			  rdma_restrack_owner(res));
}

/*
 * From the device release: every object should be gone.  Leaked ones are
 * reported; they cannot be freed from here (their owners do that), but
 * the tables are.
 */
void rdma_restrack_clean(struct ib_device *dev)
{
	struct rdma_restrack_root *roots = dev->res;
	int i;

	if (!roots)
		return;

	for (i = 0; i < RDMA_RESTRACK_MAX; i++) {
		if (!xa_empty(&roots[i].xa))
			rdma_restrack_report_leaks(dev, i);
		xa_destroy(&roots[i].xa);
	}
	kfree(roots);
	dev->res = NULL;
}

/*
 * The device of a tracked object.  A connection manager ID keeps its
 * entry in rdma_cm's private structure (cma_priv.h): rdma_cm adds it
 * once the id has a device and deletes it before the id lets go of it.
 */
static struct ib_device *rdma_restrack_dev(struct rdma_restrack_entry *res)
{
	switch (res->type) {
	case RDMA_RESTRACK_PD:
		return container_of(res, struct ib_pd, res)->device;
	case RDMA_RESTRACK_CQ:
		return container_of(res, struct ib_cq, res)->device;
	case RDMA_RESTRACK_QP:
		return container_of(res, struct ib_qp, res)->device;
	case RDMA_RESTRACK_MR:
		return container_of(res, struct ib_mr, res)->device;
	case RDMA_RESTRACK_CTX:
		return container_of(res, struct ib_ucontext, res)->device;
	case RDMA_RESTRACK_COUNTER:
		return container_of(res, struct rdma_counter, res)->device;
	case RDMA_RESTRACK_SRQ:
		return container_of(res, struct ib_srq, res)->device;
	case RDMA_RESTRACK_CM_ID:
		return container_of(res, struct rdma_id_private, res)->id.device;
	default:
		return NULL;
	}
}

/**
 * rdma_restrack_count() - number of tracked objects of a type
 * @dev: the device
 * @type: which objects
 * @show_details: also count driver-internal objects (marked RESTRACK_DD)
 *
 * Return: the number of published objects.
 */
int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type,
			bool show_details)
{
	struct rdma_restrack_root *rt = &dev->res[type];
	struct rdma_restrack_entry *res;
	unsigned long id;
	int count = 0;

	xa_lock(&rt->xa);
	xa_for_each(&rt->xa, id, res) {
		if (!show_details && xa_get_mark(&rt->xa, id, RESTRACK_DD))
			continue;
		count++;
	}
	xa_unlock(&rt->xa);
	return count;
}
EXPORT_SYMBOL(rdma_restrack_count);

static void rdma_restrack_attach_task(struct rdma_restrack_entry *res,
				      struct task_struct *task)
{
	if (WARN_ON_ONCE(!task))
		return;

	if (res->task)
		put_task_struct(res->task);
	get_task_struct(task);
	res->task = task;
	res->user = true;
}

/**
 * rdma_restrack_new() - initialise an entry before its object is tracked
 * @res: the entry, zeroed with its object
 * @type: the object's type
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type)
{
	kref_init(&res->kref);
	init_completion(&res->comp);
	res->type = type;
}
EXPORT_SYMBOL(rdma_restrack_new);

/**
 * rdma_restrack_set_name() - record the owner of an entry
 * @res: the entry
 * @caller: name of the kernel user (KBUILD_MODNAME) for a kernel object;
 *	NULL for a user object, which then belongs to the current task.
 */
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller)
{
	if (caller) {
		res->kern_name = caller;
		return;
	}
	rdma_restrack_attach_task(res, current);
}
EXPORT_SYMBOL(rdma_restrack_set_name);

/**
 * rdma_restrack_parent_name() - give an entry the owner of another one
 * @dst: the entry to name
 * @parent: the entry whose owner it inherits (e.g. a QP's PD)
 */
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent)
{
	if (rdma_is_kernel_res(parent))
		dst->kern_name = parent->kern_name;
	else
		rdma_restrack_attach_task(dst, parent->task);
}
EXPORT_SYMBOL(rdma_restrack_parent_name);

/*
 * Reserve the entry's id without publishing it.  QPs are known by their
 * QP number (the special QPs 0 and 1 exist once per port, so the port
 * goes in the top byte) and counters by their counter id, so lookups by
 * those numbers find them; everything else gets the next free id.
 */
static int rdma_restrack_reserve(struct rdma_restrack_root *rt,
				 struct rdma_restrack_entry *res)
{
	struct rdma_counter *counter;
	struct ib_qp *qp;
	int ret;

	switch (res->type) {
	case RDMA_RESTRACK_QP:
		qp = container_of(res, struct ib_qp, res);
		if (qp->qp_num >> 24 || qp->port >> 8)
			return -ERANGE;
		res->id = qp->qp_num;
		if (qp->qp_type == IB_QPT_SMI || qp->qp_type == IB_QPT_GSI)
			res->id |= qp->port << 24;
		return xa_insert(&rt->xa, res->id, NULL, GFP_KERNEL);
	case RDMA_RESTRACK_COUNTER:
		counter = container_of(res, struct rdma_counter, res);
		res->id = counter->id;
		return xa_insert(&rt->xa, res->id, NULL, GFP_KERNEL);
	default:
		ret = xa_alloc_cyclic(&rt->xa, &res->id, NULL, xa_limit_32b,
				      &rt->next_id, GFP_KERNEL);
		return ret < 0 ? ret : 0;
	}
}

static bool rdma_restrack_is_driver_detail(struct rdma_restrack_entry *res)
{
	return res->type == RDMA_RESTRACK_QP &&
	       container_of(res, struct ib_qp, res)->qp_type >= IB_QPT_DRIVER;
}

/**
 * rdma_restrack_add() - start tracking a fully initialised object
 * @res: its entry, after rdma_restrack_new() and rdma_restrack_set_name()
 *
 * Tracking is best effort: when no id can be had the object works
 * untracked and rdma_restrack_del() knows it.
 */
void rdma_restrack_add(struct rdma_restrack_entry *res)
{
	struct ib_device *dev = rdma_restrack_dev(res);
	struct rdma_restrack_root *rt;
	int ret;

	if (!dev)
		return;

	if (res->no_track) {
		res->valid = true;
		return;
	}

	rt = &dev->res[res->type];
	ret = rdma_restrack_reserve(rt, res);
	if (ret) {
		ibdev_warn(dev, "restrack: %s not tracked: %d\n",
			   rdma_restrack_names[res->type], ret);
		res->id = 0;
		return;
	}

	res->valid = true;
	/* Publish: the reserved slot exists, so this store cannot fail. */
	xa_lock(&rt->xa);
	__xa_store(&rt->xa, res->id, res, GFP_ATOMIC);
	if (rdma_restrack_is_driver_detail(res))
		__xa_set_mark(&rt->xa, res->id, RESTRACK_DD);
	xa_unlock(&rt->xa);
}
EXPORT_SYMBOL(rdma_restrack_add);

static void rdma_restrack_release(struct kref *kref)
{
	struct rdma_restrack_entry *res =
		container_of(kref, struct rdma_restrack_entry, kref);

	if (res->task) {
		put_task_struct(res->task);
		res->task = NULL;
	}
	complete(&res->comp);
}

/**
 * rdma_restrack_get() - pin an entry found in a table
 * @res: the entry
 *
 * Return: nonzero when pinned; 0 when the entry is already being deleted.
 */
int rdma_restrack_get(struct rdma_restrack_entry *res)
{
	return kref_get_unless_zero(&res->kref);
}
EXPORT_SYMBOL(rdma_restrack_get);

/**
 * rdma_restrack_put() - unpin an entry
 * @res: the entry
 *
 * Return: 1 when this was the last reference.
 */
int rdma_restrack_put(struct rdma_restrack_entry *res)
{
	return kref_put(&res->kref, rdma_restrack_release);
}
EXPORT_SYMBOL(rdma_restrack_put);

static struct rdma_restrack_root *
rdma_restrack_root(struct rdma_restrack_entry *res)
{
	return &rdma_restrack_dev(res)->res[res->type];
}

/**
 * rdma_restrack_begin_del() - hide an object from readers before its destroy
 * @res: its entry
 *
 * The entry leaves the walks and lookups, but its id stays reserved, so
 * rdma_restrack_abort_del() can show it again under the same id.  Returns
 * once no reader holds it.  The owner task stays attached.  Nothing for
 * an entry that is not published.
 */
void rdma_restrack_begin_del(struct rdma_restrack_entry *res)
{
	struct rdma_restrack_root *rt;
	struct task_struct *task;

	if (!res->valid || !kref_read(&res->kref))
		return;

	if (!res->no_track) {
		rt = rdma_restrack_root(res);
		/* NULL in an allocating xarray: a zero entry, the id kept. */
		xa_lock(&rt->xa);
		__xa_store(&rt->xa, res->id, NULL, GFP_ATOMIC);
		xa_unlock(&rt->xa);
	}

	/* The release drops the owner; keep it for a republish. */
	task = res->task;
	if (task)
		get_task_struct(task);
	rdma_restrack_put(res);
	wait_for_completion(&res->comp);
	res->task = task;
}
EXPORT_SYMBOL(rdma_restrack_begin_del);

/**
 * rdma_restrack_abort_del() - show an unpublished object again
 * @res: its entry, after rdma_restrack_begin_del()
 *
 * For a destroy the driver refused: the object lives on, as it was.
 */
void rdma_restrack_abort_del(struct rdma_restrack_entry *res)
{
	struct rdma_restrack_root *rt;

	if (!res->valid || kref_read(&res->kref))
		return;

	kref_init(&res->kref);
	reinit_completion(&res->comp);
	if (res->no_track)
		return;

	rt = rdma_restrack_root(res);
	/* The id is still reserved: this store cannot fail. */
	xa_lock(&rt->xa);
	__xa_store(&rt->xa, res->id, res, GFP_ATOMIC);
	if (rdma_restrack_is_driver_detail(res))
		__xa_set_mark(&rt->xa, res->id, RESTRACK_DD);
	xa_unlock(&rt->xa);
}
EXPORT_SYMBOL(rdma_restrack_abort_del);

/**
 * rdma_restrack_leftover() - what an unpublished entry still holds
 * @res: the entry, after rdma_restrack_begin_del()
 * @left: filled in: its reserved id and owner
 *
 * For an object whose destroy frees it with its entry (an MR's
 * dereg_mr): rdma_restrack_free_leftover() then does the rest of
 * rdma_restrack_del() from @left.  @res itself is not changed, so a failed
 * destroy can still republish it.
 */
void rdma_restrack_leftover(struct rdma_restrack_entry *res,
			    struct rdma_restrack_leftover *left)
{
	left->xa = NULL;
	left->id = res->id;
	left->task = res->task;
	if (res->valid && !res->no_track)
		left->xa = &rdma_restrack_root(res)->xa;
}

/**
 * rdma_restrack_free_leftover() - free an entry whose object is gone
 * @left: from rdma_restrack_leftover()
 */
void rdma_restrack_free_leftover(struct rdma_restrack_leftover *left)
{
	if (left->xa)
		xa_erase(left->xa, left->id);
	if (left->task)
		put_task_struct(left->task);
}

/**
 * rdma_restrack_del() - stop tracking an object
 * @res: its entry, published or already unpublished
 *
 * Unpublishes the entry if it still is, waits until no reader holds it,
 * then frees its id.
 */
void rdma_restrack_del(struct rdma_restrack_entry *res)
{
	if (res->valid) {
		rdma_restrack_begin_del(res);
		if (!res->no_track)
			xa_erase(&rdma_restrack_root(res)->xa, res->id);
		res->valid = false;
	}

	/* Nobody else can hold the entry now. */
	if (res->task) {
		put_task_struct(res->task);
		res->task = NULL;
	}
}
EXPORT_SYMBOL(rdma_restrack_del);

/**
 * rdma_restrack_commit_del() - free the id of an object destroyed
 * @res: its entry, after rdma_restrack_begin_del() and a successful destroy
 *
 * What rdma_restrack_del() does to an entry that is no longer published.
 */
void rdma_restrack_commit_del(struct rdma_restrack_entry *res)
{
	rdma_restrack_del(res);
}
EXPORT_SYMBOL(rdma_restrack_commit_del);

/**
 * rdma_restrack_sync() - wait out readers of an object about to change
 * @res: its entry
 *
 * For a change of a field nldev reads without a lock (an MR's PD after a
 * rereg): once this returns, every reader that may have seen the old
 * value is gone, and the object is listed again under the same id.  The
 * caller excludes a concurrent delete.
 */
void rdma_restrack_sync(struct rdma_restrack_entry *res)
{
	if (!res->valid || res->no_track)
		return;
	rdma_restrack_begin_del(res);
	rdma_restrack_abort_del(res);
}
EXPORT_SYMBOL(rdma_restrack_sync);

/**
 * rdma_restrack_get_byid() - find and pin a tracked object by its id
 * @dev: the device
 * @type: the object type
 * @id: the id (for a QP its QP number)
 *
 * Return: the pinned entry (rdma_restrack_put() it) or ERR_PTR(-ENOENT).
 */
struct rdma_restrack_entry *rdma_restrack_get_byid(struct ib_device *dev,
						   enum rdma_restrack_type type,
						   u32 id)
{
	struct rdma_restrack_root *rt = &dev->res[type];
	struct rdma_restrack_entry *res;

	xa_lock(&rt->xa);
	res = xa_load(&rt->xa, id);
	if (!res || !rdma_restrack_get(res))
		res = ERR_PTR(-ENOENT);
	xa_unlock(&rt->xa);
	return res;
}
EXPORT_SYMBOL(rdma_restrack_get_byid);

/**
 * rdma_restrack_get_next() - iterate over the visible objects of a type
 * @dev: the device
 * @type: the object type
 * @id: in: the lowest id wanted; out: the id of the entry returned
 *
 * Every object is listed, whichever PID namespace its owner is in: the
 * objects belong to a device and a file, not to a task, and would vanish
 * from view when the task that created them exits (the stock stack
 * dropped PID namespace filtering for that reason).
 *
 * Return: the pinned entry with the lowest id >= *@id, or NULL at the end.
 */
struct rdma_restrack_entry *
rdma_restrack_get_next(struct ib_device *dev, enum rdma_restrack_type type,
		       unsigned long *id)
{
	struct rdma_restrack_root *rt = &dev->res[type];
	struct rdma_restrack_entry *res, *found = NULL;
	unsigned long index;

	xa_lock(&rt->xa);
	xa_for_each_start(&rt->xa, index, res, *id) {
		if (rdma_restrack_get(res)) {
			found = res;
			*id = index;
			break;
		}
	}
	xa_unlock(&rt->xa);
	return found;
}

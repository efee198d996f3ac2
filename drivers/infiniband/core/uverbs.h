/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Declarations private to ib_uverbs.
 *
 * Who owns what:
 *	uverbs_main.c	module, class "infiniband_verbs", char devices, the
 *			ib client, file operations (mmap included), user
 *			contexts, device disassociation
 *	uverbs_event.c	event files: the async one, comp channels, and the
 *			handlers that feed them
 *	uverbs_cmd.c	write() and extended write() commands: the
 *			dispatcher, device, context and PD commands
 *	uverbs_cmd_{mr,cq,qp,wr,srq,ah,xrcd}.c  the other write()
 *			commands, by object (uverbs_write.h)
 *	uverbs_ioctl.c	RDMA_VERBS_IOCTL: parsing attributes into a bundle,
 *			running the method, the bundle accessors
 *	uverbs_uapi.c	the ioctl method trees: finding a device's method
 *	uverbs_uapi_types.c  the objects of a device's ioctl API, their
 *			uobject types (the driver's included) and support
 *	uverbs_std_types_device.c, uverbs_ioctl_destroy.c  ioctl methods
 *	uverbs_std_types_{cq,qp,srq}.c  ioctl create methods, sharing the
 *			write() commands' creation (uverbs_write.h)
 *	uverbs_std_types_{mr,dm,flow,wq}.c  objects and methods only the
 *			ioctl path has: MR queries and registrations, DM,
 *			flows, flow actions, counters, WQs and their tables
 *	uverbs_std_types_{context,async_fd}.c  ioctl GET_CONTEXT and the
 *			async event fds it leaves to ASYNC_EVENT_ALLOC
 *	rdma_core.c	uobjects: handle table and fd classes, lookups,
 *			create/destroy, whole-file cleanup
 *	uverbs_std_types.c the core's uobject types and their destroy
 *	uverbs_std_types_xrcd.c  XRC domains: their type, the table of
 *			domains shared by inode, the ioctl destroy
 */
#ifndef OOT_RDMA_UVERBS_H
#define OOT_RDMA_UVERBS_H

#include <linux/cdev.h>
#include <linux/cgroup_rdma.h>
#include <linux/device.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * One per ib_device that has user verbs (ops.alloc_ucontext): the char
 * device uverbsN.  @dev's refcount keeps the structure: the client holds
 * one reference from add() to remove(), every open file one more, so it
 * outlives the ib_device when files stay open after removal.
 */
struct ib_uverbs_device {
	struct device dev;
	struct cdev cdev;
	int devnum;
	u32 num_comp_vectors;

	/*
	 * The ib_device, NULL once removal started.  Readers are the file
	 * operations, under disassociate_srcu: remove() clears it and then
	 * waits for them, so no call still uses the device afterwards.
	 */
	struct ib_device __rcu *ib_dev;
	struct srcu_struct disassociate_srcu;

	/* Protects @files. */
	struct mutex lists_mutex;
	/* Every open file (ib_uverbs_file.list). */
	struct list_head files;
	/*
	 * Woken when @files becomes empty: removal of a device whose driver
	 * cannot disassociate contexts waits there (see remove_one()).
	 */
	wait_queue_head_t files_empty;

	/*
	 * The objects of the ioctl API, struct uverbs_uapi_obj by object
	 * id: built when the device is added, constant until freed with
	 * @dev (uverbs_uapi_types.c).  Uobjects point to the types in it.
	 */
	struct xarray uapi_objs;

	/*
	 * The XRC domains named by a file (OPEN_XRCD with an fd): struct
	 * uverbs_xrcd_entry, hashed by the file's inode, so that every
	 * process opening that file on this device shares one domain
	 * (uverbs_std_types_xrcd.c).  @xrcd_lock protects @xrcd_table and
	 * the openers counted in those domains' usecnt: an OPEN_XRCD that
	 * finds a domain against the last close, which frees it.  It nests
	 * inside a file's ucontext_lock (a cleanup closes domains).
	 */
	struct mutex xrcd_lock;
	DECLARE_HASHTABLE(xrcd_table, 4);
};

/*
 * Every operation that uses @dev->ib_dev runs between these two:
 * uverbs_enter_device() returns the ib_device, or NULL once removal has
 * disassociated it; the SRCU read lock is held in both cases and
 * uverbs_exit_device() drops it.  remove() clears ib_dev and then waits
 * for every operation entered before.
 */
static inline struct ib_device *
uverbs_enter_device(struct ib_uverbs_device *dev, int *srcu_key)
{
	*srcu_key = srcu_read_lock(&dev->disassociate_srcu);
	return srcu_dereference(dev->ib_dev, &dev->disassociate_srcu);
}

static inline void uverbs_exit_device(struct ib_uverbs_device *dev,
				      int srcu_key)
{
	srcu_read_unlock(&dev->disassociate_srcu, srcu_key);
}

/*
 * An event waiting in a queue until read(): a comp channel's
 * (ib_uverbs_comp_event_desc) or an async event file's
 * (ib_uverbs_async_event_desc).  An event about an object is also on
 * that object's list (@obj_list), so destroying the object drops the
 * events it left unread; reading it counts it in *@counter, which the
 * object's destroy answers.  Both lists and *@counter are protected by
 * the lock of the queue the event is in.
 */
struct ib_uverbs_event {
	union {
		struct ib_uverbs_async_event_desc async;
		struct ib_uverbs_comp_event_desc comp;
	} desc;
	struct list_head list;
	struct list_head obj_list;
	u32 *counter;
};

/* What an event fd reads from (uverbs_event.c). */
struct ib_uverbs_event_queue {
	/* Protects all below and the events' obj_list and counter. */
	spinlock_t lock;
	struct list_head event_list;
	wait_queue_head_t poll_wait;
	struct fasync_struct *async_queue;
	/* Set when no event can follow any more. */
	bool is_closed;
};

/*
 * The queue behind an async event fd.  The anon inode file holds one
 * reference, the ib_uverbs_file that created it another (it is where
 * events are queued), every object reporting to it one more.
 */
struct ib_uverbs_async_event_file {
	struct kref ref;
	struct ib_uverbs_event_queue ev_queue;
	/* Port and device events, registered while the context exists. */
	struct ib_event_handler event_handler;
	/* Under the ucontext_lock of the ib_uverbs_file that made it. */
	bool handler_registered;
};

/*
 * An async event fd made by ASYNC_EVENT_ALLOC: an fd uobject
 * (uverbs_fd_class) whose file reads @ev_file.  Holds a reference to
 * @ev_file, set by the method, dropped when the file is released.
 */
struct ib_uverbs_async_event_uobj {
	struct ib_uobject uobj;
	struct ib_uverbs_async_event_file *ev_file;
};

/* A completion channel: an fd uobject (uverbs_fd_class) with its queue. */
struct ib_uverbs_completion_event_file {
	struct ib_uobject uobj;
	struct ib_uverbs_event_queue ev_queue;
};

/* One per open() of uverbsN. */
struct ib_uverbs_file {
	/*
	 * Held by the open file and by every uobject: an fd uobject (a
	 * comp channel) may outlive the file.  The last put frees it.
	 */
	struct kref ref;
	struct ib_uverbs_device *device;
	/*
	 * The driver's module, held while the file is open when the driver
	 * has no disassociate_ucontext (NULL otherwise): its contexts can
	 * only go with the file, so its module must not go first.
	 */
	struct module *driver_owner;
	/* In device->files, under device->lists_mutex. */
	struct list_head list;

	/*
	 * Serialises creating and destroying the user context.  @ucontext
	 * is published (smp_store_release) only when fully set up, and is
	 * only freed after every syscall that could see it is over: by
	 * release(), or by remove() after waiting for disassociate_srcu.
	 */
	struct mutex ucontext_lock;
	struct ib_ucontext *ucontext;
	/*
	 * Where objects report by default: made with the context by
	 * write()'s GET_CONTEXT, or the first ASYNC_EVENT_ALLOC of the
	 * ioctl path (set once, under ucontext_lock; read with
	 * ib_uverbs_default_async_file()).  Referenced until the file is
	 * freed.
	 */
	struct ib_uverbs_async_event_file *async_file;

	/*
	 * The uobjects: @idr maps handles to them (its own lock; a slot
	 * reads NULL while the object is being created), @uobjects lists
	 * the committed ones in creation order.
	 */
	struct xarray idr;
	/* Protects @uobjects. */
	spinlock_t uobjects_lock;
	struct list_head uobjects;

	/*
	 * The VMAs rdma_user_mmap_io() set up on this file (struct
	 * rdma_umap_priv.list), so that removal can revoke them.
	 * @umap_lock protects @umaps and each one's entry; it nests in the
	 * mmap lock of the VMAs' mm (mmap() and the vm_ops run under it).
	 * @disassociate_page, under @umap_lock, is the zeroed page the
	 * revoked writable VMAs fault in (allocated on the first fault,
	 * freed with the file).
	 */
	struct mutex umap_lock;
	struct list_head umaps;
	struct page *disassociate_page;
};

/*
 * One VMA set up by rdma_user_mmap_io() (ib_core_uverbs.c), its
 * vm_private_data.  On @ufile->umaps until the VMA closes or removal
 * revokes it (then list_del_init()ed, its page tables zapped and @entry
 * put, while the user context still exists: the entry points into it).
 * The VMA's file keeps @ufile until the VMA closes.
 */
struct rdma_umap_priv {
	struct list_head list;
	struct vm_area_struct *vma;
	struct ib_uverbs_file *ufile;
	/* Holds a reference, or NULL; under ufile->umap_lock. */
	struct rdma_user_mmap_entry *entry;
};

/* Exported by ib_core (ib_core_uverbs.c), stock's prototype. */
void rdma_umap_priv_init(struct rdma_umap_priv *priv,
			 struct vm_area_struct *vma,
			 struct rdma_user_mmap_entry *entry);

/*
 * The uobjects of the types that report events: the event file their
 * async events go to and how many were reported (destroy answers it, so
 * userspace knows how many events to wait for before freeing its side).
 */
struct ib_uevent_object {
	struct ib_uobject uobject;
	/* Referenced; NULL when events are not reported. */
	struct ib_uverbs_async_event_file *event_file;
	/* Its unread events (ib_uverbs_event.obj_list), under event_file's lock. */
	struct list_head event_list;
	u32 events_reported;
};

struct ib_ucq_object {
	struct ib_uevent_object uevent;
	/* The comp channel (its uobject referenced), or NULL. */
	struct ib_uverbs_completion_event_file *comp_file;
	/* Unread completion events, under comp_file's queue lock. */
	struct list_head comp_list;
	/* Completion events are counted apart (RESP of CQ destroy). */
	u32 comp_events_reported;
};

/*
 * An XRC domain's handle.  A process has one per OPEN_XRCD, several may
 * name one domain (shared by inode).
 */
struct ib_uxrcd_object {
	struct ib_uobject uobject;
	/*
	 * The QPs (XRC targets, created or opened) and XRC SRQs made
	 * through this handle: it cannot be closed under them (-EBUSY).
	 */
	atomic_t refcnt;
};

struct ib_uqp_object {
	struct ib_uevent_object uevent;
	/* An XRC target's handle: the domain handle it was made through. */
	struct ib_uxrcd_object *uxrcd;
	/*
	 * Serialises MODIFY_QP of this QP: the handle is held shared, and
	 * ib_core leaves ordering the modifies that swap a QP's path
	 * references to its caller (see QP_PATH_MASK in verbs.c).  It
	 * orders this handle only: the handles of one XRC target QP are
	 * serialised on their real QP by ib_core (xrc.c).
	 */
	struct mutex modify_lock;
	/*
	 * Multicast groups attached (struct ib_uverbs_mcast_entry), under
	 * @mcast_lock.
	 */
	struct mutex mcast_lock;
	struct list_head mcast_list;
};

/* One multicast group a QP is attached to. */
struct ib_uverbs_mcast_entry {
	struct list_head list;
	union ib_gid gid;
	u16 lid;
};

struct ib_usrq_object {
	struct ib_uevent_object uevent;
	/* An XRC SRQ: the domain handle it was made through. */
	struct ib_uxrcd_object *uxrcd;
};

/* ib_wq.uobject: <rdma/ib_verbs.h> names it, the core defines it. */
struct ib_uwq_object {
	struct ib_uevent_object uevent;
};

/* uverbs_std_types*.c: the core's uobject types, by UVERBS_OBJECT_* id. */
extern const struct uverbs_api_object uverbs_pd_object;
extern const struct uverbs_api_object uverbs_mr_object;
extern const struct uverbs_api_object uverbs_mw_object;
extern const struct uverbs_api_object uverbs_cq_object;
extern const struct uverbs_api_object uverbs_qp_object;
extern const struct uverbs_api_object uverbs_srq_object;
extern const struct uverbs_api_object uverbs_ah_object;
extern const struct uverbs_api_object uverbs_comp_channel_object;
extern const struct uverbs_api_object uverbs_async_event_object;
extern const struct uverbs_api_object uverbs_flow_object;
extern const struct uverbs_api_object uverbs_flow_action_object;
extern const struct uverbs_api_object uverbs_counters_object;
extern const struct uverbs_api_object uverbs_dm_object;
extern const struct uverbs_api_object uverbs_wq_object;
extern const struct uverbs_api_object uverbs_rwq_ind_tbl_object;
extern const struct uverbs_api_object uverbs_xrcd_object;

/* uverbs_std_types_xrcd.c: the per-device table of shared domains. */
void uverbs_xrcd_table_init(struct ib_uverbs_device *dev);
void uverbs_xrcd_table_free(struct ib_uverbs_device *dev);
/*
 * The domain @inode names on @dev, or NULL; under dev->xrcd_lock.  A
 * new domain is added with uverbs_xrcd_table_add(), which holds @inode.
 */
struct ib_xrcd *uverbs_xrcd_table_find(struct ib_uverbs_device *dev,
				       struct inode *inode);
int uverbs_xrcd_table_add(struct ib_uverbs_device *dev, struct inode *inode,
			  struct ib_xrcd *xrcd);

/* uverbs_main.c */

/* The device is gone and its removal is done with @ufile. */
bool uverbs_file_disassociated(struct ib_uverbs_file *ufile);

/*
 * GET_CONTEXT for uverbs_cmd.c: allocates the driver's context for
 * @attrs->ufile with @attrs->driver_udata, and an async event file.
 * Returns the new file (with its fd reserved in *@fd, not yet
 * installed: the caller installs it with fd_install() once its answer
 * reached userspace, or undoes everything with
 * ib_uverbs_abort_context()).  -EINVAL when the file already has a
 * context, else the driver's or an allocation's errno.
 */
struct file *ib_uverbs_alloc_context(struct uverbs_attr_bundle *attrs,
				     struct ib_device *ib_dev, int *fd);
void ib_uverbs_abort_context(struct uverbs_attr_bundle *attrs,
			     struct file *filp, int fd);
/* Publishes the context made by ib_uverbs_alloc_context(). */
void ib_uverbs_commit_context(struct uverbs_attr_bundle *attrs,
			      struct file *filp, int fd);
/*
 * The same for the ioctl GET_CONTEXT, which makes no async event file
 * (userspace asks ASYNC_EVENT_ALLOC for them): 0 with the context in
 * @attrs->context and ucontext_lock held until commit or abort.
 */
int ib_uverbs_alloc_context_ioctl(struct uverbs_attr_bundle *attrs,
				  struct ib_device *ib_dev);
void ib_uverbs_abort_context_ioctl(struct uverbs_attr_bundle *attrs);
void ib_uverbs_commit_context_ioctl(struct uverbs_attr_bundle *attrs);

/* Drops a reference taken on @file (ib_uverbs_file.ref). */
void ib_uverbs_file_put(struct ib_uverbs_file *file);

/* uverbs_event.c */

void ib_uverbs_init_event_queue(struct ib_uverbs_event_queue *ev_queue);
void ib_uverbs_close_event_queue(struct ib_uverbs_event_queue *ev_queue);

struct ib_uverbs_async_event_file *
ib_uverbs_async_file_alloc(struct ib_device *ib_dev);
struct ib_uverbs_async_event_file *
ib_uverbs_async_file_create(struct ib_device *ib_dev, struct file **filp);
struct ib_uverbs_async_event_file *
ib_uverbs_default_async_file(struct ib_uverbs_file *ufile);
void ib_uverbs_set_default_async_file(struct ib_uverbs_file *ufile,
				      struct ib_uverbs_async_event_file *ev_file);
void ib_uverbs_async_file_put(struct ib_uverbs_async_event_file *ev_file);
int ib_uverbs_async_file_of_fd(struct ib_uverbs_file *ufile, int fd,
			       struct ib_uverbs_async_event_file **ev_file);
int ib_uverbs_attr_async_file(const struct uverbs_attr_bundle *attrs,
			      u16 idx,
			      struct ib_uverbs_async_event_file **ev_file);
void ib_uverbs_async_file_start(struct ib_uverbs_async_event_file *ev_file);
void ib_uverbs_async_file_stop(struct ib_uverbs_async_event_file *ev_file);
void ib_uverbs_async_file_last(struct ib_uverbs_async_event_file *ev_file,
			       u32 event_type);

void ib_uverbs_uevent_init(struct ib_uevent_object *uevent,
			   struct ib_uverbs_async_event_file *ev_file);
void ib_uverbs_uevent_release(struct ib_uevent_object *uevent);
void ib_uverbs_ucq_release(struct ib_ucq_object *ucq);

/* The handlers of user objects: events go to their uevent's file. */
void ib_uverbs_comp_handler(struct ib_cq *cq, void *cq_context);
void ib_uverbs_cq_event_handler(struct ib_event *event, void *context);
void ib_uverbs_qp_event_handler(struct ib_event *event, void *context);
void ib_uverbs_srq_event_handler(struct ib_event *event, void *context);
void ib_uverbs_wq_event_handler(struct ib_event *event, void *context);

extern const struct file_operations uverbs_comp_channel_fops;
extern const struct file_operations uverbs_async_event_fops;

/*
 * The rdma cgroup controller's limits (rdma.max), charged with ib_core's
 * ib_rdmacg_try_charge()/ib_rdmacg_uncharge(): a user context is one
 * HCA_HANDLE, every handle-table uobject (not an fd: comp channels and
 * async event fds are free, as on stock) one HCA_OBJECT.  Charged to the
 * cgroup of the task creating it, which @cg_obj remembers (with a
 * reference) for the uncharge, and uncharged once the driver object is
 * gone, whoever destroys it: so rdma.current is what the device really
 * holds for the cgroup.  Over the limit the charge fails with -EAGAIN.
 * The device stays registered with the controller until every user
 * context is gone (ib_uverbs' remove() runs before
 * rdmacg_unregister_device()).
 */

/* rdma_core.c */

/*
 * False when the driver refused to destroy some of them: they are kept,
 * and the caller must not free the context they belong to.
 */
bool uverbs_destroy_ufile_uobjects(struct ib_uverbs_file *ufile,
				   enum rdma_remove_reason why);
/*
 * Destroy @uobj, claimed with UVERBS_LOOKUP_DESTROY by the caller: 0 (the
 * claim and reference stay for rdma_lookup_put_uobject()), or the type's
 * refusal with nothing changed.
 */
int uverbs_destroy_claimed_uobject(struct ib_uobject *uobj,
				   struct uverbs_attr_bundle *attrs);
/* On close: drops the handles a disassociation kept for userspace. */
void uverbs_drop_disassociated(struct ib_uverbs_file *ufile);

/* uverbs_cmd.c */

/* write() on uverbsN; takes disassociate_srcu itself. */
ssize_t ib_uverbs_write(struct file *filp, const char __user *buf,
			size_t count, loff_t *pos);
int uverbs_invoke_write(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev, u32 command);
/* The QUERY_PORT answer both transports give, from @attr. */
void uverbs_copy_port_attr(struct ib_device *ib_dev, u32 port_num,
			   const struct ib_port_attr *attr,
			   struct ib_uverbs_query_port_resp *resp);

/* uverbs_ioctl.c */

/* RDMA_VERBS_IOCTL; takes disassociate_srcu itself. */
long ib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
/* The live device of the ioctl method @attrs belongs to. */
struct ib_device *uverbs_attrs_ib_dev(const struct uverbs_attr_bundle *attrs);
/*
 * Point @udata at the PTR_IN @attr_in and PTR_OUT @attr_out of @attrs
 * (either may be absent: an empty buffer).
 */
void uverbs_fill_udata(struct uverbs_attr_bundle *attrs,
		       struct ib_udata *udata, unsigned int attr_in,
		       unsigned int attr_out);
/* Tell userspace that the PTR_OUT attribute @idx was written. */
int uverbs_set_valid_output(const struct uverbs_attr_bundle *attrs, u16 idx);

/* uverbs_uapi.c: the ioctl method trees */

/*
 * One ioctl method as a device offers it: the definitions of the core
 * and of the driver (ib_device->driver_def) for the same object and
 * method merged.  Specs are indexed like uverbs_attr_bundle.attrs[]:
 * by uapi_bkey_attr(uapi_key_attr(attr_id)).
 */
struct uverbs_ioctl_method {
	int (*handler)(struct uverbs_attr_bundle *attrs);
	const struct uverbs_attr_spec *specs[UVERBS_API_ATTR_BKEY_LEN];
	/*
	 * The uobject type of each IDR, FD and IDRS_ARRAY attribute; NULL
	 * when the object is not on the device (naming it is -EINVAL) or
	 * when the bit in @any_obj is set (UVERBS_IDR_ANY_OBJECT).
	 */
	const struct uverbs_api_object *objs[UVERBS_API_ATTR_BKEY_LEN];
	DECLARE_BITMAP(any_obj, UVERBS_API_ATTR_BKEY_LEN);
	DECLARE_BITMAP(mandatory, UVERBS_API_ATTR_BKEY_LEN);
	/* One past the highest bkey that has a spec. */
	unsigned int num_bkeys;
	/* The attribute with UVERBS_ACCESS_DESTROY, or -1. */
	int destroy_bkey;
	/* It takes driver data (UVERBS_ATTR_UHW). */
	bool has_udata;
};

int uverbs_uapi_get_method(struct ib_uverbs_device *udev,
			   struct ib_device *ib_dev, u16 object_id,
			   u16 method_id, struct uverbs_ioctl_method *method);

/* The core's definitions, all of them (uverbs_uapi.c). */
extern const struct uapi_definition uverbs_core_api[];
/* UAPI_DEF_CHAIN nesting both walks follow; deeper is a broken definition. */
#define UAPI_MAX_CHAIN_DEPTH 4

/* uverbs_uapi_types.c: one per object of a device's ioctl API. */
struct uverbs_uapi_obj {
	/*
	 * Its uobject type: the core's static one, the driver's wrapped in
	 * memory of the entry, NULL for an object that has none (DEVICE).
	 */
	const struct uverbs_api_object *type;
	/* An IS_SUPPORTED entry refused it: it does not exist. */
	bool disabled;
};

int uverbs_uapi_types_build(struct ib_device *ib_dev, struct xarray *objs);
void uverbs_uapi_types_free(struct xarray *objs);
const struct uverbs_uapi_obj *uverbs_uapi_object(struct xarray *objs, u16 id);

/* The core's definitions, one list per file (uverbs_std_types_*.c). */
extern const struct uapi_definition uverbs_def_obj_device[];
extern const struct uapi_definition uverbs_def_obj_destroy[];
extern const struct uapi_definition uverbs_def_obj_context[];
extern const struct uapi_definition uverbs_def_obj_async_fd[];
extern const struct uapi_definition uverbs_def_obj_cq[];
extern const struct uapi_definition uverbs_def_obj_qp[];
extern const struct uapi_definition uverbs_def_obj_srq[];
extern const struct uapi_definition uverbs_def_obj_mr[];
extern const struct uapi_definition uverbs_def_obj_dm[];
extern const struct uapi_definition uverbs_def_obj_flow[];
extern const struct uapi_definition uverbs_def_obj_wq[];
extern const struct uapi_definition uverbs_def_obj_xrcd[];

#endif /* OOT_RDMA_UVERBS_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: event files.
 *
 * Two kinds of fds deliver events to userspace, both reading from a
 * struct ib_uverbs_event_queue, one whole event per read():
 *
 *	async event file  made with the context (GET_CONTEXT answers its
 *			  fd): QP/CQ/SRQ events, port events, and
 *			  DEVICE_FATAL when the device goes away
 *	completion channel an fd uobject (CREATE_COMP_CHANNEL): one event
 *			  each time a CQ using it gets a completion
 *			  notification
 *
 * Handlers run in any context, the driver's interrupt or softirq
 * included: queueing never sleeps (GFP_ATOMIC, an event dropped when
 * memory is short, as a notification can be).
 */

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_types.h>

#include "uverbs.h"

/* ---------------------------------------------------------------- */
/* Event queues                                                     */

void ib_uverbs_init_event_queue(struct ib_uverbs_event_queue *ev_queue)
{
	spin_lock_init(&ev_queue->lock);
	INIT_LIST_HEAD(&ev_queue->event_list);
	init_waitqueue_head(&ev_queue->poll_wait);
	ev_queue->async_queue = NULL;
	ev_queue->is_closed = false;
}

static void event_unlink(struct ib_uverbs_event *event)
{
	list_del(&event->list);
	if (event->counter)
		list_del(&event->obj_list);
}

/*
 * Queue @event (allocated by the caller) unless the queue is closed:
 * then free it.  @obj_list, when not NULL, is the list of the object
 * the event is about, @counter what counts it once read.
 */
static void event_queue_add(struct ib_uverbs_event_queue *ev_queue,
			    struct ib_uverbs_event *event,
			    struct list_head *obj_list, u32 *counter)
{
	unsigned long flags;

	spin_lock_irqsave(&ev_queue->lock, flags);
	if (ev_queue->is_closed) {
		spin_unlock_irqrestore(&ev_queue->lock, flags);
		kfree(event);
		return;
	}
	event->counter = counter;
	list_add_tail(&event->list, &ev_queue->event_list);
	if (counter)
		list_add_tail(&event->obj_list, obj_list);
	spin_unlock_irqrestore(&ev_queue->lock, flags);

	wake_up_interruptible(&ev_queue->poll_wait);
	kill_fasync(&ev_queue->async_queue, SIGIO, POLL_IN);
}

/* Nothing more is queued; readers that find it empty get -EIO. */
void ib_uverbs_close_event_queue(struct ib_uverbs_event_queue *ev_queue)
{
	spin_lock_irq(&ev_queue->lock);
	ev_queue->is_closed = true;
	spin_unlock_irq(&ev_queue->lock);
	wake_up_interruptible(&ev_queue->poll_wait);
	kill_fasync(&ev_queue->async_queue, SIGIO, POLL_IN);
}

/* Close @ev_queue and free what nobody will read any more. */
static void event_queue_drain(struct ib_uverbs_event_queue *ev_queue)
{
	struct ib_uverbs_event *event, *tmp;

	spin_lock_irq(&ev_queue->lock);
	ev_queue->is_closed = true;
	list_for_each_entry_safe(event, tmp, &ev_queue->event_list, list) {
		event_unlink(event);
		kfree(event);
	}
	spin_unlock_irq(&ev_queue->lock);
}

/*
 * Drop the unread events of one object from @ev_queue (its @obj_list
 * links them): the object is gone, nobody could match them.
 */
static void event_queue_forget(struct ib_uverbs_event_queue *ev_queue,
			       struct list_head *obj_list)
{
	struct ib_uverbs_event *event, *tmp;

	spin_lock_irq(&ev_queue->lock);
	list_for_each_entry_safe(event, tmp, obj_list, obj_list) {
		event_unlink(event);
		kfree(event);
	}
	spin_unlock_irq(&ev_queue->lock);
}

static bool event_queue_readable(struct ib_uverbs_event_queue *ev_queue)
{
	bool ret;

	spin_lock_irq(&ev_queue->lock);
	ret = !list_empty(&ev_queue->event_list) || ev_queue->is_closed;
	spin_unlock_irq(&ev_queue->lock);
	return ret;
}

/*
 * One event per read(), of @desc_size bytes.  Waits for one first
 * (-EAGAIN without one under O_NONBLOCK); a buffer too small is
 * -EINVAL and leaves it queued; -EIO once the queue is closed and
 * empty.  Reading an event counts it for the object it is about.
 */
static ssize_t event_queue_read(struct ib_uverbs_event_queue *ev_queue,
				struct file *filp, char __user *buf,
				size_t count, size_t desc_size)
{
	struct ib_uverbs_event *event;
	ssize_t ret;

	spin_lock_irq(&ev_queue->lock);
	while (list_empty(&ev_queue->event_list)) {
		if (ev_queue->is_closed) {
			spin_unlock_irq(&ev_queue->lock);
			return -EIO;
		}
		spin_unlock_irq(&ev_queue->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(ev_queue->poll_wait,
					     event_queue_readable(ev_queue)))
			return -ERESTARTSYS;
		spin_lock_irq(&ev_queue->lock);
	}
	if (count < desc_size) {
		spin_unlock_irq(&ev_queue->lock);
		return -EINVAL;
	}
	event = list_first_entry(&ev_queue->event_list, struct ib_uverbs_event,
				 list);
	if (event->counter)
		++*event->counter;
	event_unlink(event);
	spin_unlock_irq(&ev_queue->lock);

	ret = copy_to_user(buf, &event->desc, desc_size) ? -EFAULT : desc_size;
	kfree(event);
	return ret;
}

static __poll_t event_queue_poll(struct ib_uverbs_event_queue *ev_queue,
				 struct file *filp,
				 struct poll_table_struct *wait)
{
	__poll_t mask = 0;

	poll_wait(filp, &ev_queue->poll_wait, wait);
	spin_lock_irq(&ev_queue->lock);
	if (!list_empty(&ev_queue->event_list))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (ev_queue->is_closed)
		mask = EPOLLERR;
	spin_unlock_irq(&ev_queue->lock);
	return mask;
}

/* ---------------------------------------------------------------- */
/* Async event file                                                 */

static void async_file_free(struct kref *ref)
{
	struct ib_uverbs_async_event_file *ev_file =
		container_of(ref, struct ib_uverbs_async_event_file, ref);

	event_queue_drain(&ev_file->ev_queue);
	kfree(ev_file);
}

void ib_uverbs_async_file_put(struct ib_uverbs_async_event_file *ev_file)
{
	if (ev_file)
		kref_put(&ev_file->ref, async_file_free);
}

/**
 * ib_uverbs_default_async_file() - where a file's objects report by default
 * @ufile: the uverbs file
 *
 * Return: the async event file made with the context (write()) or the
 * first one ASYNC_EVENT_ALLOC made (ioctl), held by @ufile until it is
 * freed; NULL before either.
 */
struct ib_uverbs_async_event_file *
ib_uverbs_default_async_file(struct ib_uverbs_file *ufile)
{
	/* Pairs with ib_uverbs_set_default_async_file(). */
	return smp_load_acquire(&ufile->async_file);
}

/**
 * ib_uverbs_set_default_async_file() - make @ev_file @ufile's default
 * @ufile: the uverbs file
 * @ev_file: an async event file of its; referenced here if it becomes
 *	the default
 *
 * The first one stays: later ones only get the events of the objects
 * that name them, and port events.
 */
void ib_uverbs_set_default_async_file(struct ib_uverbs_file *ufile,
				      struct ib_uverbs_async_event_file *ev_file)
{
	lockdep_assert_held(&ufile->ucontext_lock);

	if (ufile->async_file)
		return;
	kref_get(&ev_file->ref);
	/* Readers see it initialised. */
	smp_store_release(&ufile->async_file, ev_file);
}

/*
 * Queue an event about @element (a user handle, or a port number)
 * unless the file is closed.  @obj_list and @counter as for
 * event_queue_add().
 */
static void async_file_queue(struct ib_uverbs_async_event_file *ev_file,
			     u64 element, u32 event_type,
			     struct list_head *obj_list, u32 *counter)
{
	struct ib_uverbs_event *event;

	event = kzalloc(sizeof(*event), GFP_ATOMIC);
	if (!event)
		return;
	event->desc.async.element = element;
	event->desc.async.event_type = event_type;
	event_queue_add(&ev_file->ev_queue, event, obj_list, counter);
}

/* The device is gone: @event_type is the last event the file gives. */
void ib_uverbs_async_file_last(struct ib_uverbs_async_event_file *ev_file,
			       u32 event_type)
{
	async_file_queue(ev_file, 0, event_type, NULL, NULL);
	ib_uverbs_close_event_queue(&ev_file->ev_queue);
}

static ssize_t async_file_read(struct file *filp, char __user *buf,
			       size_t count, loff_t *pos)
{
	struct ib_uverbs_async_event_file *ev_file = filp->private_data;

	return event_queue_read(&ev_file->ev_queue, filp, buf, count,
				sizeof(struct ib_uverbs_async_event_desc));
}

static __poll_t async_file_poll(struct file *filp,
				struct poll_table_struct *wait)
{
	struct ib_uverbs_async_event_file *ev_file = filp->private_data;

	return event_queue_poll(&ev_file->ev_queue, filp, wait);
}

static int async_file_fasync(int fd, struct file *filp, int on)
{
	struct ib_uverbs_async_event_file *ev_file = filp->private_data;

	return fasync_helper(fd, filp, on, &ev_file->ev_queue.async_queue);
}

static int async_file_release(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_async_event_file *ev_file = filp->private_data;

	event_queue_drain(&ev_file->ev_queue);
	ib_uverbs_async_file_put(ev_file);
	return 0;
}

static const struct file_operations async_event_fops = {
	.owner = THIS_MODULE,
	.read = async_file_read,
	.poll = async_file_poll,
	.fasync = async_file_fasync,
	.release = async_file_release,
	.llseek = no_llseek,
};

/* The event file behind an async event fd of @ufile's, or NULL. */
static struct ib_uverbs_async_event_file *
async_file_of_filp(struct ib_uverbs_file *ufile, struct file *filp)
{
	struct ib_uverbs_async_event_uobj *aobj;

	/* write()'s GET_CONTEXT made it: only the context's can be ours. */
	if (filp->f_op == &async_event_fops)
		return filp->private_data == ib_uverbs_default_async_file(ufile) ?
			       filp->private_data : NULL;
	if (filp->f_op != &uverbs_async_event_fops)
		return NULL;
	aobj = container_of(filp->private_data,
			    struct ib_uverbs_async_event_uobj, uobj);
	return aobj->uobj.ufile == ufile ? aobj->ev_file : NULL;
}

/**
 * ib_uverbs_async_file_of_fd() - the async event file an ioctl names
 * @ufile: the uverbs file of the call
 * @fd: the fd userspace names it by
 * @ev_file: set to the event file, referenced
 *
 * Return: 0, or -EBADF when @fd is no async event fd of @ufile.
 */
int ib_uverbs_async_file_of_fd(struct ib_uverbs_file *ufile, int fd,
			       struct ib_uverbs_async_event_file **ev_file)
{
	struct file *filp;

	filp = fget(fd);
	if (!filp)
		return -EBADF;
	*ev_file = async_file_of_filp(ufile, filp);
	/* The file holds it until fput(). */
	if (*ev_file)
		kref_get(&(*ev_file)->ref);
	fput(filp);
	return *ev_file ? 0 : -EBADF;
}

/**
 * ib_uverbs_attr_async_file() - where a new object's async events go
 * @attrs: the bundle of an ioctl creating it
 * @idx: its EVENT_FD attribute (a RAW_FD)
 * @ev_file: set to the event file the attribute names, or by default
 *	the context's (NULL when it has none yet); referenced, put with
 *	ib_uverbs_async_file_put()
 *
 * Return: 0, or the errno of a bad fd.
 */
int ib_uverbs_attr_async_file(const struct uverbs_attr_bundle *attrs,
			      u16 idx,
			      struct ib_uverbs_async_event_file **ev_file)
{
	int fd;

	if (!uverbs_attr_is_valid(attrs, idx)) {
		*ev_file = ib_uverbs_default_async_file(attrs->ufile);
		if (*ev_file)
			kref_get(&(*ev_file)->ref);
		return 0;
	}
	if (uverbs_get_raw_fd(&fd, attrs, idx) || fd < 0)
		return -EBADF;
	return ib_uverbs_async_file_of_fd(attrs->ufile, fd, ev_file);
}

/*
 * Port and device events (ib_dispatch_event()): the element is the
 * port number, as stock reports it.
 */
static void async_file_port_event(struct ib_event_handler *handler,
				  struct ib_event *event)
{
	struct ib_uverbs_async_event_file *ev_file =
		container_of(handler, struct ib_uverbs_async_event_file,
			     event_handler);

	async_file_queue(ev_file, event->element.port_num, event->event,
			 NULL, NULL);
}

/**
 * ib_uverbs_async_file_alloc() - the queue of a new async event fd
 * @ib_dev: the device whose port events it will report
 *
 * Return: the event file with one reference, for its creator; or NULL.
 * Port events start with ib_uverbs_async_file_start().
 */
struct ib_uverbs_async_event_file *
ib_uverbs_async_file_alloc(struct ib_device *ib_dev)
{
	struct ib_uverbs_async_event_file *ev_file;

	ev_file = kzalloc(sizeof(*ev_file), GFP_KERNEL);
	if (!ev_file)
		return NULL;
	kref_init(&ev_file->ref);
	ib_uverbs_init_event_queue(&ev_file->ev_queue);
	INIT_IB_EVENT_HANDLER(&ev_file->event_handler, ib_dev,
			      async_file_port_event);
	return ev_file;
}

/**
 * ib_uverbs_async_file_create() - a new async event file of write()'s
 *	GET_CONTEXT
 * @ib_dev: the device whose port events it will report
 * @filp: set to its file, which holds one reference
 *
 * Return: the event file with one more reference, for its creator; or
 * an ERR_PTR.  Port events start with ib_uverbs_async_file_start().
 */
struct ib_uverbs_async_event_file *
ib_uverbs_async_file_create(struct ib_device *ib_dev, struct file **filp)
{
	struct ib_uverbs_async_event_file *ev_file;

	ev_file = ib_uverbs_async_file_alloc(ib_dev);
	if (!ev_file)
		return ERR_PTR(-ENOMEM);

	*filp = anon_inode_getfile("[infinibandevent]", &async_event_fops,
				   ev_file, O_RDONLY);
	if (IS_ERR(*filp)) {
		struct file *err = *filp;

		kfree(ev_file);
		return ERR_CAST(err);
	}
	kref_get(&ev_file->ref);
	return ev_file;
}

/* Both under the ucontext_lock of the uverbs file that made @ev_file. */
void ib_uverbs_async_file_start(struct ib_uverbs_async_event_file *ev_file)
{
	ib_register_event_handler(&ev_file->event_handler);
	ev_file->handler_registered = true;
}

/*
 * Before the device goes: no port event is reported any more.  Safe to
 * repeat: the default async fd of the ioctl path is stopped both as a
 * uobject and as the context's.
 */
void ib_uverbs_async_file_stop(struct ib_uverbs_async_event_file *ev_file)
{
	if (!ev_file || !ev_file->handler_registered)
		return;
	ib_unregister_event_handler(&ev_file->event_handler);
	ev_file->handler_registered = false;
}

/*
 * The async event fds of ASYNC_EVENT_ALLOC: fd uobjects
 * (uverbs_async_event_object) reading their event file.
 */

static struct ib_uverbs_async_event_file *async_uobj_file(struct file *filp)
{
	struct ib_uobject *uobj = filp->private_data;

	return container_of(uobj, struct ib_uverbs_async_event_uobj,
			    uobj)->ev_file;
}

static ssize_t async_uobj_read(struct file *filp, char __user *buf,
			       size_t count, loff_t *pos)
{
	return event_queue_read(&async_uobj_file(filp)->ev_queue, filp, buf,
				count,
				sizeof(struct ib_uverbs_async_event_desc));
}

static __poll_t async_uobj_poll(struct file *filp,
				struct poll_table_struct *wait)
{
	return event_queue_poll(&async_uobj_file(filp)->ev_queue, filp, wait);
}

static int async_uobj_fasync(int fd, struct file *filp, int on)
{
	return fasync_helper(fd, filp, on,
			     &async_uobj_file(filp)->ev_queue.async_queue);
}

/*
 * Its port events stop here at the latest: a uobject aborted before
 * commit is never destroyed.  What is queued goes; objects reporting
 * to it keep the event file until they are destroyed.
 */
static int async_uobj_release(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_async_event_file *ev_file = async_uobj_file(filp);
	struct ib_uobject *uobj = filp->private_data;
	struct ib_uverbs_file *ufile = uobj->ufile;
	int ret;

	if (ev_file) {
		mutex_lock(&ufile->ucontext_lock);
		ib_uverbs_async_file_stop(ev_file);
		mutex_unlock(&ufile->ucontext_lock);
		event_queue_drain(&ev_file->ev_queue);
	}
	ret = uverbs_uobject_fd_release(inode, filp);
	ib_uverbs_async_file_put(ev_file);
	return ret;
}

const struct file_operations uverbs_async_event_fops = {
	.owner = THIS_MODULE,
	.read = async_uobj_read,
	.poll = async_uobj_poll,
	.fasync = async_uobj_fasync,
	.release = async_uobj_release,
	.llseek = no_llseek,
};

/* ---------------------------------------------------------------- */
/* Object events                                                    */

static void uevent_queue(struct ib_uevent_object *uevent, u32 event_type)
{
	if (!uevent || !uevent->event_file)
		return;
	async_file_queue(uevent->event_file, uevent->uobject.user_handle,
			 event_type, &uevent->event_list,
			 &uevent->events_reported);
}

/* event_handler of user QPs; qp_context is unused. */
void ib_uverbs_qp_event_handler(struct ib_event *event, void *context)
{
	struct ib_qp *qp = event->element.qp;
	/* An opened XRC handle gets its uobject after it is listed. */
	struct ib_uqp_object *uqp = READ_ONCE(qp->uobject);

	uevent_queue(uqp ? &uqp->uevent : NULL, event->event);
}

void ib_uverbs_cq_event_handler(struct ib_event *event, void *context)
{
	struct ib_cq *cq = event->element.cq;

	uevent_queue(cq->uobject ? &cq->uobject->uevent : NULL, event->event);
}

void ib_uverbs_srq_event_handler(struct ib_event *event, void *context)
{
	struct ib_srq *srq = event->element.srq;

	uevent_queue(srq->uobject ? &srq->uobject->uevent : NULL,
		     event->event);
}

void ib_uverbs_wq_event_handler(struct ib_event *event, void *context)
{
	struct ib_wq *wq = event->element.wq;

	uevent_queue(wq->uobject ? &wq->uobject->uevent : NULL, event->event);
}

/**
 * ib_uverbs_uevent_init() - set up the event reporting of a new object
 * @uevent: the object's uevent part
 * @ev_file: where its events go, or NULL; referenced here
 */
void ib_uverbs_uevent_init(struct ib_uevent_object *uevent,
			   struct ib_uverbs_async_event_file *ev_file)
{
	INIT_LIST_HEAD(&uevent->event_list);
	uevent->events_reported = 0;
	uevent->event_file = ev_file;
	if (ev_file)
		kref_get(&ev_file->ref);
}

/*
 * The object is destroyed (the driver reports nothing on it any more):
 * drop its unread events; events_reported stays for the answer.
 */
void ib_uverbs_uevent_release(struct ib_uevent_object *uevent)
{
	struct ib_uverbs_async_event_file *ev_file = uevent->event_file;

	if (!ev_file)
		return;
	event_queue_forget(&ev_file->ev_queue, &uevent->event_list);
	uevent->event_file = NULL;
	ib_uverbs_async_file_put(ev_file);
}

/* ---------------------------------------------------------------- */
/* Completion channels                                              */

/*
 * comp_handler of user CQs: one event per notification, for the
 * channel the CQ was created with (@cq_context is its queue).
 */
void ib_uverbs_comp_handler(struct ib_cq *cq, void *cq_context)
{
	struct ib_uverbs_event_queue *ev_queue = cq_context;
	struct ib_ucq_object *ucq = cq->uobject;
	struct ib_uverbs_event *event;

	if (!ev_queue || !ucq)
		return;

	event = kzalloc(sizeof(*event), GFP_ATOMIC);
	if (!event)
		return;
	event->desc.comp.cq_handle = ucq->uevent.uobject.user_handle;
	event_queue_add(ev_queue, event, &ucq->comp_list,
			&ucq->comp_events_reported);
}

/*
 * The CQ is destroyed: drop its unread completion events and its
 * reference to the channel.
 */
void ib_uverbs_ucq_release(struct ib_ucq_object *ucq)
{
	struct ib_uverbs_completion_event_file *comp_file = ucq->comp_file;

	if (comp_file) {
		event_queue_forget(&comp_file->ev_queue, &ucq->comp_list);
		ucq->comp_file = NULL;
		uverbs_uobject_put(&comp_file->uobj);
	}
	ib_uverbs_uevent_release(&ucq->uevent);
}

static struct ib_uverbs_completion_event_file *comp_file_of(struct file *filp)
{
	struct ib_uobject *uobj = filp->private_data;

	return container_of(uobj, struct ib_uverbs_completion_event_file,
			    uobj);
}

static ssize_t comp_channel_read(struct file *filp, char __user *buf,
				 size_t count, loff_t *pos)
{
	return event_queue_read(&comp_file_of(filp)->ev_queue, filp, buf,
				count, sizeof(struct ib_uverbs_comp_event_desc));
}

static __poll_t comp_channel_poll(struct file *filp,
				  struct poll_table_struct *wait)
{
	return event_queue_poll(&comp_file_of(filp)->ev_queue, filp, wait);
}

static int comp_channel_fasync(int fd, struct file *filp, int on)
{
	return fasync_helper(fd, filp, on,
			     &comp_file_of(filp)->ev_queue.async_queue);
}

/*
 * The channel's uobject may live on (CQs hold it): close its queue and
 * free what is queued, then let the uobject go.
 */
static int comp_channel_release(struct inode *inode, struct file *filp)
{
	event_queue_drain(&comp_file_of(filp)->ev_queue);
	return uverbs_uobject_fd_release(inode, filp);
}

const struct file_operations uverbs_comp_channel_fops = {
	.owner = THIS_MODULE,
	.read = comp_channel_read,
	.poll = comp_channel_poll,
	.fasync = comp_channel_fasync,
	.release = comp_channel_release,
	.llseek = no_llseek,
};

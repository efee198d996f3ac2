// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_ucm: rdma_cm events into the file's queue, and GET_EVENT, the
 * blocking (or O_NONBLOCK) read of that queue.
 *
 * A CONNECT_REQUEST brings a new cm_id: it gets a context whose handle the
 * event carries, but the context stays unpublished, on no file, owned by
 * the event, until userspace reads the event.  So a listener destroyed
 * (or closed) with requests unread destroys their contexts with them, and
 * a listener moved by MIGRATE_ID takes them along with its events.
 */

#include <linux/pagemap.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_marshall.h>

#include "ucma_priv.h"

static void ucma_conn_param_to_user(struct rdma_ucm_conn_param *dst,
				    const struct rdma_conn_param *src)
{
	if (src->private_data_len)
		memcpy(dst->private_data, src->private_data,
		       src->private_data_len);
	dst->private_data_len = src->private_data_len;
	dst->qp_num = src->qp_num;
	dst->srq = src->srq;
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
}

static void ucma_ud_param_to_user(struct ib_device *device,
				  struct rdma_ucm_ud_param *dst,
				  struct rdma_ud_param *src,
				  bool has_private_data)
{
	if (has_private_data && src->private_data_len) {
		memcpy(dst->private_data, src->private_data,
		       src->private_data_len);
		dst->private_data_len = src->private_data_len;
	}
	ib_copy_ah_attr_to_user(device, &dst->ah_attr, &src->ah_attr);
	dst->qp_num = src->qp_num;
	dst->qkey = src->qkey;
}

/*
 * The event as userspace will read it, reported on @ctx; @cm_id is the id
 * it happened on (the new one, for a connect request).
 */
static struct ucma_event *ucma_event_build(struct ucma_ctx *ctx,
					   struct rdma_cm_id *cm_id,
					   struct rdma_cm_event *event)
{
	struct ucma_event *ev;
	bool is_mc;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return NULL;

	ev->ctx = ctx;
	is_mc = event->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
		event->event == RDMA_CM_EVENT_MULTICAST_ERROR;
	if (is_mc) {
		/* rdma_join_multicast() was given the group as context. */
		ev->mc = (struct ucma_mc *)event->param.ud.private_data;
		ev->resp.uid = ev->mc->uid;
		ev->resp.id = ev->mc->handle;
	} else {
		ev->resp.uid = ctx->uid;
		ev->resp.id = ctx->handle;
	}
	ev->resp.event = event->event;
	ev->resp.status = event->status;

	if (cm_id->qp_type == IB_QPT_UD)
		ucma_ud_param_to_user(cm_id->device, &ev->resp.param.ud,
				      &event->param.ud, !is_mc);
	else
		ucma_conn_param_to_user(&ev->resp.param.conn,
					&event->param.conn);

	ev->resp.ece.vendor_id = event->ece.vendor_id;
	ev->resp.ece.attr_mod = event->ece.attr_mod;
	return ev;
}

static void ucma_event_queue(struct ucma_file *file, struct ucma_event *ev)
{
	mutex_lock(&file->lock);
	list_add_tail(&ev->entry, &file->events);
	mutex_unlock(&file->lock);
	wake_up_interruptible(&file->poll_wait);
}

/*
 * Under @listener's handler lock.  A non-zero return makes rdma_cm destroy
 * the new @cm_id, which we then never touched.
 */
static int ucma_on_connect_request(struct ucma_ctx *listener,
				   struct rdma_cm_id *cm_id,
				   struct rdma_cm_event *event)
{
	struct ucma_event *ev;
	struct ucma_ctx *ctx;

	/* Refused once max_backlog requests wait unread. */
	if (!atomic_add_unless(&listener->backlog, -1, 0))
		return -ENOMEM;

	ctx = ucma_ctx_alloc(NULL);
	if (!ctx)
		goto err_backlog;

	ev = ucma_event_build(listener, cm_id, event);
	if (!ev)
		goto err_ctx;
	ev->new_ctx = ctx;
	ev->resp.id = ctx->handle;

	ucma_ctx_attach(ctx, cm_id);
	cm_id->context = ctx;
	ucma_event_queue(listener->file, ev);
	return 0;

err_ctx:
	ucma_ctx_free_unused(ctx);
err_backlog:
	atomic_inc(&listener->backlog);
	return -ENOMEM;
}

/* The rdma_cm event handler of every id we create; under its handler lock. */
int ucma_event_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *event)
{
	struct ucma_ctx *ctx = cm_id->context;
	struct ucma_event *ev;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ucma_on_connect_request(ctx, cm_id, event);

	/*
	 * A new connection's context reports nothing until it is accepted
	 * (uid still 0): userspace does not know it yet, and a failed
	 * connection makes the accept fail anyway.
	 */
	if (ctx->uid) {
		ev = ucma_event_build(ctx, cm_id, event);
		if (ev)
			ucma_event_queue(ctx->file, ev);
	}

	/* The device goes: its cm_id must be destroyed, but not from here. */
	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		ucma_ctx_schedule_retire(ctx);
	return 0;
}

/* A new connection's context joins @file when its request is read. */
static void ucma_adopt_new_ctx(struct ucma_file *file, struct ucma_ctx *ctx)
{
	lockdep_assert_held(&file->lock);

	ctx->file = file;
	ucma_ctx_publish(ctx);
}

/*
 * Waits for an event on @file; returns 0 with file->lock held and an
 * event queued, or an errno without the lock.
 */
static int ucma_lock_nonempty(struct ucma_file *file)
{
	mutex_lock(&file->lock);
	while (list_empty(&file->events)) {
		mutex_unlock(&file->lock);
		if (file->filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->poll_wait,
					     !list_empty(&file->events)))
			return -ERESTARTSYS;
		mutex_lock(&file->lock);
	}
	return 0;
}

/* @ev was delivered: off the queue, counted, its new context adopted. */
static void ucma_event_consume(struct ucma_file *file, struct ucma_event *ev)
{
	lockdep_assert_held(&file->lock);

	list_del(&ev->entry);
	ev->ctx->events_reported++;
	if (ev->mc)
		ev->mc->events_reported++;
	if (ev->new_ctx) {
		atomic_inc(&ev->ctx->backlog);
		ucma_adopt_new_ctx(file, ev->new_ctx);
	}
}

/*
 * The first event is copied out and consumed under file->lock, so that
 * one that cannot be delivered stays queued, as on stock.  But every
 * rdma_cm handler of the file's ids takes file->lock, under its handler
 * lock, on rdma_cm's and ib_cm's shared work queues: a copy that waits
 * for userspace (a userfaultfd or FUSE page) must not hold it, or
 * connection management stops for every consumer.  So the copy under the
 * lock never faults; a page that is not there is faulted in with the
 * lock dropped, and the copy retried on whatever event is first then.
 */
int ucma_cmd_get_event(struct ucma_file *file, const void __user *in,
		       u16 in_len, u16 out_len)
{
	struct rdma_ucm_get_event cmd;
	struct ucma_event *ev;
	void __user *uresp;
	size_t len;
	int ret;

	/* Old 32-bit librdmacm knows neither the tail padding nor the ECE. */
	if (out_len < offsetof(struct rdma_ucm_event_resp, reserved))
		return -ENOSPC;
	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	uresp = u64_to_user_ptr(cmd.response);
	len = min_t(size_t, out_len, sizeof(ev->resp));

	for (;;) {
		ret = ucma_lock_nonempty(file);
		if (ret)
			return ret;
		ev = list_first_entry(&file->events, struct ucma_event, entry);
		if (!copy_to_user_nofault(uresp, &ev->resp, len))
			break;
		mutex_unlock(&file->lock);

		if (fault_in_writeable(uresp, len))
			return -EFAULT;
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	ucma_event_consume(file, ev);
	mutex_unlock(&file->lock);

	kfree(ev);
	return 0;
}

/**
 * ucma_flush_ctx_events - unlink a dying context from its file
 * @ctx: the context, claimed and without a cm_id
 *
 * Drops its unread events, destroying the contexts of the connect
 * requests among them.  @ctx's cm_id is gone, so no event comes any more.
 *
 * Return: the number of its events userspace read.
 */
int ucma_flush_ctx_events(struct ucma_ctx *ctx)
{
	struct ucma_file *file = ctx->file;
	struct ucma_event *ev, *next;
	LIST_HEAD(dropped);
	int reported;

	/* A request's context never read: on no file, with no events. */
	if (!file)
		return 0;

	mutex_lock(&file->lock);
	list_for_each_entry_safe(ev, next, &file->events, entry)
		if (ev->ctx == ctx)
			list_move_tail(&ev->entry, &dropped);
	list_del_init(&ctx->file_entry);
	reported = ctx->events_reported;
	mutex_unlock(&file->lock);

	/* Outside file->lock: destroying a cm_id waits for its handler. */
	list_for_each_entry_safe(ev, next, &dropped, entry) {
		if (ev->new_ctx && !WARN_ON_ONCE(!ucma_ctx_claim_this(ev->new_ctx)))
			ucma_ctx_destroy(ev->new_ctx);
		kfree(ev);
	}
	return reported;
}

/* Drops the unread events of a group being left; @mc->ctx is held. */
void ucma_flush_mc_events(struct ucma_mc *mc)
{
	struct ucma_ctx *ctx = mc->ctx;
	struct ucma_event *ev, *next;

	/* The handler lock keeps ctx->file and holds off new events. */
	rdma_lock_handler(ctx->cm_id);
	mutex_lock(&ctx->file->lock);
	list_for_each_entry_safe(ev, next, &ctx->file->events, entry) {
		if (ev->mc != mc)
			continue;
		list_del(&ev->entry);
		kfree(ev);
	}
	mutex_unlock(&ctx->file->lock);
	rdma_unlock_handler(ctx->cm_id);
}

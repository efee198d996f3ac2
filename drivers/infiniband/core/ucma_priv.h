/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_ucm: what its files share.  Userspace (librdmacm) drives rdma_cm
 * ids through write() commands on /dev/infiniband/rdma_cm and reads their
 * events back through the same file.
 *
 * Who owns what:
 *	ucma_main.c	module, misc device, sysctl, netlink client, the file
 *			(open, release, write dispatch, poll)
 *	ucma_ctx.c	the id table: contexts, their lifetime, lookup
 *	ucma_event.c	rdma_cm events into the file's queue, GET_EVENT
 *	ucma_cmd.c	commands on one id: create, destroy, bind, resolve,
 *			connect, listen, accept, ..., MIGRATE_ID
 *	ucma_query.c	QUERY_ROUTE and QUERY (ADDR, PATH, GID)
 *	ucma_mcast.c	multicast joins and leaves
 *
 * Locking, outermost first:
 *	ctx->cmd_lock			(one rdma_cm call on the id at a time)
 *	rdma_lock_handler(cm_id)	(rdma_cm's handler lock of an id; our
 *					 event handler runs under it)
 *	file->lock			(the file's contexts and events)
 *	xa_lock(&ucma_ctx_table), xa_lock(&ucma_mc_table)  (spinlocks)
 *
 * rdma_cm delivers a CONNECT_REQUEST for a new id while holding the
 * handler lock of the listener we created, also when a wildcard
 * listener's per-device child took the request (it takes its parent's
 * too), so the listener's ->file is stable there as well.
 *
 * Every handler takes file->lock, under its handler lock, on work queues
 * that all rdma_cm consumers share: nothing that may wait for userspace
 * (a copy to or from it that faults) runs under file->lock or a handler
 * lock.  GET_EVENT copies under file->lock only without faulting.
 */
#ifndef OOT_RDMA_UCMA_PRIV_H
#define OOT_RDMA_UCMA_PRIV_H

#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_user_cm.h>

/**
 * struct ucma_file - one open of /dev/infiniband/rdma_cm
 * @lock: guards @ctxs, @events, and the events_reported counters of the
 *	contexts and multicast groups of this file
 * @ctxs: the published contexts whose ->file is this file
 * @events: events not yet read, oldest first; each event's ctx has this
 *	file as ->file (MIGRATE_ID moves a context's events with it)
 * @poll_wait: woken when an event is queued
 * @filp: the struct file, for its O_NONBLOCK flag
 */
struct ucma_file {
	/* see above */
	struct mutex lock;
	struct list_head ctxs;
	struct list_head events;
	wait_queue_head_t poll_wait;
	struct file *filp;
};

/**
 * struct ucma_ctx - one rdma_cm id of userspace, named by its handle
 * @handle: its index in ucma_ctx_table, the "id" of the commands.  Handles
 *	are unique over all files: a command naming another file's handle
 *	gets -EINVAL, a free one -ENOENT (as on stock)
 * @users: one reference held by the live cm_id (dropped by
 *	ucma_ctx_retire()), one per command working on it; lookups take one
 *	only while it is not zero
 * @idle: completed when @users drops to zero
 * @dying: set, under the table's lock, by whoever claimed the context's
 *	destruction; nothing queues @retire_work after that
 * @file: the file it belongs to; changed only under the table's lock and
 *	the cm_id's handler lock (MIGRATE_ID), so either keeps it stable.
 *	NULL on the context of a new connection until its CONNECT_REQUEST
 *	is read: until then it is on no file's lists, its event owns it
 * @cm_id: the rdma_cm id; NULL once retired (see ucma_ctx_retire()).  Read
 *	it only with a reference in @users, or on the context's own
 *	destruction path
 * @cmd_lock: serialises the commands that call into rdma_cm for @cm_id
 * @uid: userspace's cookie returned in events; 0 means "not accepted yet"
 *	on a context born from a connect request, whose events are dropped
 * @events_reported: events of this context read by userspace
 *	(file->lock)
 * @backlog: connect requests a listener may still queue unread
 * @file_entry: in file->ctxs while published
 * @mcs: its multicast groups (xa_lock(&ucma_mc_table))
 * @retire_work: destroys the cm_id after DEVICE_REMOVAL
 */
struct ucma_ctx {
	u32 handle;
	refcount_t users;
	struct completion idle;
	bool dying;
	struct ucma_file *file;
	struct rdma_cm_id *cm_id;
	/* see above */
	struct mutex cmd_lock;
	u64 uid;
	int events_reported;
	atomic_t backlog;
	struct list_head file_entry;
	struct list_head mcs;
	struct work_struct retire_work;
};

/**
 * struct ucma_mc - one multicast group joined through a context
 * @handle: its index in ucma_mc_table (handles of their own, as stock)
 * @ctx: the context that joined; the group lives no longer than it
 * @uid: userspace's cookie for the group's events
 * @events_reported: events of this group read (ctx->file->lock)
 * @join_state: BIT() of the IB join state asked for
 * @ctx_entry: in ctx->mcs (xa_lock(&ucma_mc_table))
 * @addr: the group's address, as given to rdma_join_multicast()
 */
struct ucma_mc {
	u32 handle;
	struct ucma_ctx *ctx;
	u64 uid;
	int events_reported;
	u8 join_state;
	struct list_head ctx_entry;
	struct sockaddr_storage addr;
};

/**
 * struct ucma_event - an event waiting in file->events
 * @ctx: the context it is reported on (the listener, for a connect request)
 * @new_ctx: for CONNECT_REQUEST, the context of the new connection: it is
 *	owned by this event, unpublished, until the event is read
 * @mc: for the multicast events, the group
 * @entry: in file->events
 * @resp: what GET_EVENT copies out
 */
struct ucma_event {
	struct ucma_ctx *ctx;
	struct ucma_ctx *new_ctx;
	struct ucma_mc *mc;
	struct list_head entry;
	struct rdma_ucm_event_resp resp;
};

/*
 * Stock's errno for what rdma_ucm does not implement: GET_OPTION, option
 * levels and names, QUERY options.  Part of the ABI (librdmacm takes it
 * as "not supported"), hence not EOPNOTSUPP.
 */
#define UCMA_ENOTIMPL	ENOSYS

extern struct xarray ucma_ctx_table;
extern struct xarray ucma_mc_table;
extern const struct file_operations ucma_fops;
extern unsigned int ucma_max_backlog;

/* ucma_ctx.c */
struct ucma_ctx *ucma_ctx_alloc(struct ucma_file *file);
void ucma_ctx_free_unused(struct ucma_ctx *ctx);
void ucma_ctx_attach(struct ucma_ctx *ctx, struct rdma_cm_id *cm_id);
void ucma_ctx_publish(struct ucma_ctx *ctx);
struct ucma_ctx *ucma_ctx_get(struct ucma_file *file, u32 handle);
struct ucma_ctx *ucma_ctx_get_bound(struct ucma_file *file, u32 handle);
void ucma_ctx_put(struct ucma_ctx *ctx);
struct ucma_ctx *ucma_ctx_lock(struct ucma_file *file, u32 handle);
struct ucma_ctx *ucma_ctx_lock_bound(struct ucma_file *file, u32 handle);
void ucma_ctx_unlock(struct ucma_ctx *ctx);
struct ucma_ctx *ucma_ctx_lock_cmd(struct ucma_file *file,
				   const void __user *in, void *cmd, size_t size,
				   const u32 *id, bool bound);
struct ucma_ctx *ucma_ctx_claim(struct ucma_file *file, u32 handle);
bool ucma_ctx_claim_this(struct ucma_ctx *ctx);
int ucma_ctx_destroy(struct ucma_ctx *ctx);
void ucma_ctx_schedule_retire(struct ucma_ctx *ctx);

/* ucma_event.c */
int ucma_event_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *event);
int ucma_flush_ctx_events(struct ucma_ctx *ctx);
void ucma_flush_mc_events(struct ucma_mc *mc);
int ucma_cmd_get_event(struct ucma_file *file, const void __user *in,
		       u16 in_len, u16 out_len);

/* ucma_cmd.c */
int ucma_cmd_create_id(struct ucma_file *file, const void __user *in,
		       u16 in_len, u16 out_len);
int ucma_cmd_destroy_id(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len);
int ucma_cmd_bind_ip(struct ucma_file *file, const void __user *in,
		     u16 in_len, u16 out_len);
int ucma_cmd_bind(struct ucma_file *file, const void __user *in,
		  u16 in_len, u16 out_len);
int ucma_cmd_resolve_ip(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len);
int ucma_cmd_resolve_addr(struct ucma_file *file, const void __user *in,
			  u16 in_len, u16 out_len);
int ucma_cmd_resolve_route(struct ucma_file *file, const void __user *in,
			   u16 in_len, u16 out_len);
int ucma_cmd_connect(struct ucma_file *file, const void __user *in,
		     u16 in_len, u16 out_len);
int ucma_cmd_listen(struct ucma_file *file, const void __user *in,
		    u16 in_len, u16 out_len);
int ucma_cmd_accept(struct ucma_file *file, const void __user *in,
		    u16 in_len, u16 out_len);
int ucma_cmd_reject(struct ucma_file *file, const void __user *in,
		    u16 in_len, u16 out_len);
int ucma_cmd_disconnect(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len);
int ucma_cmd_init_qp_attr(struct ucma_file *file, const void __user *in,
			  u16 in_len, u16 out_len);
int ucma_cmd_set_option(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len);
int ucma_cmd_notify(struct ucma_file *file, const void __user *in,
		    u16 in_len, u16 out_len);
int ucma_cmd_migrate_id(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len);

/* ucma_query.c */
int ucma_cmd_query_route(struct ucma_file *file, const void __user *in,
			 u16 in_len, u16 out_len);
int ucma_cmd_query(struct ucma_file *file, const void __user *in,
		   u16 in_len, u16 out_len);

/* ucma_mcast.c */
int ucma_cmd_join_ip_mcast(struct ucma_file *file, const void __user *in,
			   u16 in_len, u16 out_len);
int ucma_cmd_join_mcast(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len);
int ucma_cmd_leave_mcast(struct ucma_file *file, const void __user *in,
			 u16 in_len, u16 out_len);
void ucma_mc_free_all(struct ucma_ctx *ctx);

#endif /* OOT_RDMA_UCMA_PRIV_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_ucm: the commands on one id, from CREATE_ID to MIGRATE_ID.
 *
 * Each handler gets the command's request at @in and the sizes userspace
 * gave in its header.  Requests of a fixed size are read whole whatever
 * @in_len says, as on stock (write() checked that the header's "in" fits
 * the buffer, not that it covers the request); the extensible ones,
 * CONNECT and ACCEPT, read what @in_len covers past a minimum.  Responses
 * go to the address in the request, at most @out_len bytes.
 *
 * The checks run in stock's order, so bad input gets stock's errno.
 */

#include <linux/file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_marshall.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm_ib.h>

#include "ucma_priv.h"

static int ucma_qp_type_of(const struct rdma_ucm_create_id *cmd,
			   enum ib_qp_type *qp_type)
{
	switch (cmd->ps) {
	case RDMA_PS_TCP:
		*qp_type = IB_QPT_RC;
		return 0;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		*qp_type = IB_QPT_UD;
		return 0;
	case RDMA_PS_IB:
		/* AF_IB ids say which QP type they connect. */
		*qp_type = cmd->qp_type;
		return 0;
	default:
		return -EINVAL;
	}
}

int ucma_cmd_create_id(struct ucma_file *file, const void __user *in,
		       u16 in_len, u16 out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct rdma_ucm_create_id cmd;
	enum ib_qp_type qp_type;
	struct rdma_cm_id *cm_id;
	struct ucma_ctx *ctx;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	ret = ucma_qp_type_of(&cmd, &qp_type);
	if (ret)
		return ret;

	ctx = ucma_ctx_alloc(file);
	if (!ctx)
		return -ENOMEM;
	ctx->uid = cmd.uid;

	cm_id = rdma_create_user_id(ucma_event_handler, ctx, cmd.ps, qp_type);
	if (IS_ERR(cm_id)) {
		ucma_ctx_free_unused(ctx);
		return PTR_ERR(cm_id);
	}
	ucma_ctx_attach(ctx, cm_id);

	resp.id = ctx->handle;
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp))) {
		/* Never published: nobody else can have claimed it. */
		ucma_ctx_claim_this(ctx);
		ucma_ctx_destroy(ctx);
		return -EFAULT;
	}

	mutex_lock(&file->lock);
	ucma_ctx_publish(ctx);
	mutex_unlock(&file->lock);
	return 0;
}

int ucma_cmd_destroy_id(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct ucma_ctx *ctx;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;

	ctx = ucma_ctx_claim(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	/* Destroyed even if the answer cannot be delivered, as stock. */
	resp.events_reported = ucma_ctx_destroy(ctx);
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

static int ucma_bind_to(struct ucma_file *file, u32 handle,
			struct sockaddr *addr)
{
	struct ucma_ctx *ctx = ucma_ctx_lock(file, handle);
	int ret;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_bind_addr(ctx->cm_id, addr);
	ucma_ctx_unlock(ctx);
	return ret;
}

int ucma_cmd_bind_ip(struct ucma_file *file, const void __user *in,
		     u16 in_len, u16 out_len)
{
	struct rdma_ucm_bind_ip cmd;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	if (!rdma_addr_size_in6(&cmd.addr))
		return -EINVAL;

	return ucma_bind_to(file, cmd.id, (struct sockaddr *)&cmd.addr);
}

int ucma_cmd_bind(struct ucma_file *file, const void __user *in,
		  u16 in_len, u16 out_len)
{
	struct rdma_ucm_bind cmd;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	if (cmd.reserved || !cmd.addr_size ||
	    cmd.addr_size != rdma_addr_size_kss(&cmd.addr))
		return -EINVAL;

	return ucma_bind_to(file, cmd.id, (struct sockaddr *)&cmd.addr);
}

static int ucma_resolve_to(struct ucma_file *file, u32 handle,
			   struct sockaddr *src, struct sockaddr *dst,
			   u32 timeout_ms)
{
	struct ucma_ctx *ctx = ucma_ctx_lock(file, handle);
	int ret;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_resolve_addr(ctx->cm_id, src, dst, timeout_ms);
	ucma_ctx_unlock(ctx);
	return ret;
}

int ucma_cmd_resolve_ip(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len)
{
	struct rdma_ucm_resolve_ip cmd;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	/* No source family: rdma_cm picks the source. */
	if ((cmd.src_addr.sin6_family && !rdma_addr_size_in6(&cmd.src_addr)) ||
	    !rdma_addr_size_in6(&cmd.dst_addr))
		return -EINVAL;

	return ucma_resolve_to(file, cmd.id, (struct sockaddr *)&cmd.src_addr,
			       (struct sockaddr *)&cmd.dst_addr,
			       cmd.timeout_ms);
}

int ucma_cmd_resolve_addr(struct ucma_file *file, const void __user *in,
			  u16 in_len, u16 out_len)
{
	struct rdma_ucm_resolve_addr cmd;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	if (cmd.reserved ||
	    (cmd.src_size && cmd.src_size != rdma_addr_size_kss(&cmd.src_addr)) ||
	    !cmd.dst_size || cmd.dst_size != rdma_addr_size_kss(&cmd.dst_addr))
		return -EINVAL;

	return ucma_resolve_to(file, cmd.id, (struct sockaddr *)&cmd.src_addr,
			       (struct sockaddr *)&cmd.dst_addr,
			       cmd.timeout_ms);
}

int ucma_cmd_resolve_route(struct ucma_file *file, const void __user *in,
			   u16 in_len, u16 out_len)
{
	struct rdma_ucm_resolve_route cmd;
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_ctx_lock_cmd(file, in, &cmd, sizeof(cmd), &cmd.id, true);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_resolve_route(ctx->cm_id, cmd.timeout_ms);
	ucma_ctx_unlock(ctx);
	return ret;
}

static void ucma_conn_param_from_user(struct rdma_cm_id *cm_id,
				      struct rdma_conn_param *dst,
				      const struct rdma_ucm_conn_param *src)
{
	dst->private_data = src->private_data;
	dst->private_data_len = src->private_data_len;
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
	dst->srq = src->srq;
	dst->qp_num = src->qp_num & 0xffffff;	/* a QPN is 24 bits */
	/* Only AF_IB ids choose their Q_Key. */
	dst->qkey = cm_id->route.addr.src_addr.ss_family == AF_IB ?
		    src->qkey : 0;
}

/*
 * CONNECT and ACCEPT grew an ECE at their end: a request that stops
 * before it is an older librdmacm's and reads as one with a zero ECE; one
 * that stops earlier is invalid.
 */
static_assert(offsetofend(struct rdma_ucm_connect, ece) ==
	      sizeof(struct rdma_ucm_connect));
static_assert(offsetofend(struct rdma_ucm_accept, ece) ==
	      sizeof(struct rdma_ucm_accept));

static int ucma_copy_ece_request(void *cmd, size_t size,
				 const void __user *in, u16 in_len)
{
	struct rdma_ucm_ece *ece = cmd + size - sizeof(*ece);

	if (in_len < size - sizeof(*ece))
		return -EINVAL;
	if (copy_from_user(cmd, in, min_t(size_t, in_len, size)))
		return -EFAULT;
	if (in_len < size)
		memset(ece, 0, sizeof(*ece));
	return 0;
}

int ucma_cmd_connect(struct ucma_file *file, const void __user *in,
		     u16 in_len, u16 out_len)
{
	struct rdma_conn_param conn_param = {};
	struct rdma_ucm_connect cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_ece_request(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	if (!cmd.conn_param.valid)
		return -EINVAL;

	ctx = ucma_ctx_lock_bound(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ucma_conn_param_from_user(ctx->cm_id, &conn_param, &cmd.conn_param);
	ret = rdma_connect_ece(ctx->cm_id, &conn_param, &cmd.ece);
	ucma_ctx_unlock(ctx);
	return ret;
}

int ucma_cmd_listen(struct ucma_file *file, const void __user *in,
		    u16 in_len, u16 out_len)
{
	unsigned int max_backlog = READ_ONCE(ucma_max_backlog);
	struct rdma_ucm_listen cmd;
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_ctx_lock_cmd(file, in, &cmd, sizeof(cmd), &cmd.id, false);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* 0 or too much means "as much as allowed", as stock. */
	if (!cmd.backlog || cmd.backlog > max_backlog)
		cmd.backlog = max_backlog;
	atomic_set(&ctx->backlog, cmd.backlog);
	ret = rdma_listen(ctx->cm_id, cmd.backlog);
	ucma_ctx_unlock(ctx);
	return ret;
}

int ucma_cmd_accept(struct ucma_file *file, const void __user *in,
		    u16 in_len, u16 out_len)
{
	struct rdma_conn_param conn_param = {};
	struct rdma_ucm_accept cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_ece_request(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;

	ctx = ucma_ctx_lock_bound(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (cmd.conn_param.valid)
		ucma_conn_param_from_user(ctx->cm_id, &conn_param,
					  &cmd.conn_param);
	/*
	 * Under the handler lock, so that the events after the accept see
	 * the uid that makes them reported.
	 */
	rdma_lock_handler(ctx->cm_id);
	ret = rdma_accept_ece(ctx->cm_id,
			      cmd.conn_param.valid ? &conn_param : NULL,
			      &cmd.ece);
	if (!ret && cmd.conn_param.valid)
		ctx->uid = cmd.uid;
	rdma_unlock_handler(ctx->cm_id);
	ucma_ctx_unlock(ctx);
	return ret;
}

int ucma_cmd_reject(struct ucma_file *file, const void __user *in,
		    u16 in_len, u16 out_len)
{
	struct rdma_ucm_reject cmd;
	struct ucma_ctx *ctx;
	int ret;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;

	/* Userspace may only reject as the consumer, or refuse an ECE. */
	if (!cmd.reason)
		cmd.reason = IB_CM_REJ_CONSUMER_DEFINED;
	if (cmd.reason != IB_CM_REJ_CONSUMER_DEFINED &&
	    cmd.reason != IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED)
		return -EINVAL;

	ctx = ucma_ctx_lock_bound(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_reject(ctx->cm_id, cmd.private_data, cmd.private_data_len,
			  cmd.reason);
	ucma_ctx_unlock(ctx);
	return ret;
}

int ucma_cmd_disconnect(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len)
{
	struct rdma_ucm_disconnect cmd;
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_ctx_lock_cmd(file, in, &cmd, sizeof(cmd), &cmd.id, true);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_disconnect(ctx->cm_id);
	ucma_ctx_unlock(ctx);
	return ret;
}

int ucma_cmd_init_qp_attr(struct ucma_file *file, const void __user *in,
			  u16 in_len, u16 out_len)
{
	struct rdma_ucm_init_qp_attr cmd;
	struct ib_uverbs_qp_attr resp = {};
	struct ib_qp_attr qp_attr = {};
	struct ucma_ctx *ctx;
	int mask = 0;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	if (cmd.qp_state > IB_QPS_ERR)
		return -EINVAL;
	qp_attr.qp_state = cmd.qp_state;

	ctx = ucma_ctx_lock_bound(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_init_qp_attr(ctx->cm_id, &qp_attr, &mask);
	if (!ret)
		ib_copy_qp_attr_to_user(ctx->cm_id->device, &resp, &qp_attr);
	ucma_ctx_unlock(ctx);
	if (ret)
		return ret;

	resp.qp_attr_mask = mask;
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

/* RDMA_OPTION_ID: under ctx->cmd_lock. */
static int ucma_set_id_option(struct ucma_ctx *ctx, u32 optname,
			      const void *optval, size_t optlen)
{
	lockdep_assert_held(&ctx->cmd_lock);

	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (optlen != sizeof(u8))
			return -EINVAL;
		rdma_set_service_type(ctx->cm_id, *(const u8 *)optval);
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		if (optlen != sizeof(int))
			return -EINVAL;
		return rdma_set_reuseaddr(ctx->cm_id, !!*(const int *)optval);
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			return -EINVAL;
		return rdma_set_afonly(ctx->cm_id, !!*(const int *)optval);
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(u8))
			return -EINVAL;
		return rdma_set_ack_timeout(ctx->cm_id, *(const u8 *)optval);
	default:
		return -UCMA_ENOTIMPL;
	}
}

/*
 * RDMA_OPTION_IB_PATH: userspace resolved the route itself (ibacm, say)
 * and hands over path records; the first primary, bidirectional, GMP one
 * becomes the id's route, reported as ROUTE_RESOLVED.  Under
 * ctx->cmd_lock: a BIND that fails detaches the device it attached, so
 * cm_id->device is only stable under it.
 */
static int ucma_set_ib_path(struct ucma_ctx *ctx,
			    struct ib_path_rec_data *recs, size_t optlen)
{
	const u32 wanted = IB_PATH_GMP | IB_PATH_PRIMARY |
			   IB_PATH_BIDIRECTIONAL;
	struct ib_path_rec_data *rec = NULL;
	struct rdma_cm_id *cm_id = ctx->cm_id;
	struct rdma_cm_event event = {};
	struct sa_path_rec path = {};
	size_t i, n;
	int ret;

	lockdep_assert_held(&ctx->cmd_lock);

	if (optlen % sizeof(*recs))
		return -EINVAL;
	n = optlen / sizeof(*recs);
	for (i = 0; i < n && !rec; i++)
		if (recs[i].flags == wanted)
			rec = &recs[i];
	if (!rec)
		return -EINVAL;
	if (!cm_id->device)
		return -EINVAL;

	path.rec_type = SA_PATH_REC_TYPE_IB;
	ib_sa_unpack_path(rec->path_rec, &path);

	if (rdma_cap_opa_ah(cm_id->device, cm_id->port_num)) {
		struct sa_path_rec opa;

		sa_convert_path_ib_to_opa(&opa, &path);
		ret = rdma_set_ib_path(cm_id, &opa);
	} else {
		ret = rdma_set_ib_path(cm_id, &path);
	}
	if (ret)
		return ret;

	event.event = RDMA_CM_EVENT_ROUTE_RESOLVED;
	rdma_lock_handler(cm_id);
	ret = ucma_event_handler(cm_id, &event);
	rdma_unlock_handler(cm_id);
	return ret;
}

int ucma_cmd_set_option(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len)
{
	struct rdma_ucm_set_option cmd;
	struct ucma_ctx *ctx;
	void *optval;
	int ret;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	if (cmd.optlen > KMALLOC_MAX_SIZE)
		return -EINVAL;

	ctx = ucma_ctx_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	optval = memdup_user(u64_to_user_ptr(cmd.optval), cmd.optlen);
	if (IS_ERR(optval)) {
		ret = PTR_ERR(optval);
		goto out;
	}

	mutex_lock(&ctx->cmd_lock);
	switch (cmd.level) {
	case RDMA_OPTION_ID:
		ret = ucma_set_id_option(ctx, cmd.optname, optval, cmd.optlen);
		break;
	case RDMA_OPTION_IB:
		ret = cmd.optname == RDMA_OPTION_IB_PATH ?
		      ucma_set_ib_path(ctx, optval, cmd.optlen) : -UCMA_ENOTIMPL;
		break;
	default:
		ret = -UCMA_ENOTIMPL;
		break;
	}
	mutex_unlock(&ctx->cmd_lock);
	kfree(optval);
out:
	ucma_ctx_put(ctx);
	return ret;
}

int ucma_cmd_notify(struct ucma_file *file, const void __user *in,
		    u16 in_len, u16 out_len)
{
	struct rdma_ucm_notify cmd;
	struct ucma_ctx *ctx;
	int ret = -EINVAL;

	ctx = ucma_ctx_lock_cmd(file, in, &cmd, sizeof(cmd), &cmd.id, false);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (ctx->cm_id->device)
		ret = rdma_notify(ctx->cm_id, (enum ib_event_type)cmd.event);
	ucma_ctx_unlock(ctx);
	return ret;
}

/*
 * Moves @ctx from @from to @to, with its unread events (and the contexts
 * of the connect requests among them).  Under the cm_id's handler lock,
 * so no event of the context is queued meanwhile.
 *
 * Return: its events read so far on @from, or -ENOENT if it is being
 * destroyed.
 */
static int ucma_move_ctx(struct ucma_ctx *ctx, struct ucma_file *from,
			 struct ucma_file *to)
{
	struct ucma_event *ev, *next;
	LIST_HEAD(moving);
	bool ours;
	int reported;

	/* Re-checked under the lock: a claim may have come since the get. */
	xa_lock(&ucma_ctx_table);
	ours = xa_load(&ucma_ctx_table, ctx->handle) == ctx &&
	       ctx->file == from;
	if (ours)
		ctx->file = to;
	xa_unlock(&ucma_ctx_table);
	if (!ours)
		return -ENOENT;

	mutex_lock(&from->lock);
	list_del(&ctx->file_entry);
	list_for_each_entry_safe(ev, next, &from->events, entry)
		if (ev->ctx == ctx)
			list_move_tail(&ev->entry, &moving);
	reported = ctx->events_reported;
	mutex_unlock(&from->lock);

	/* @from and @to may be the same file: two sections, not nested. */
	mutex_lock(&to->lock);
	list_add_tail(&ctx->file_entry, &to->ctxs);
	list_splice_tail(&moving, &to->events);
	mutex_unlock(&to->lock);
	wake_up_interruptible(&to->poll_wait);
	return reported;
}

int ucma_cmd_migrate_id(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len)
{
	struct rdma_ucm_migrate_resp resp = {};
	struct rdma_ucm_migrate_id cmd;
	struct ucma_file *from;
	struct ucma_ctx *ctx;
	struct fd f;
	int ret;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;

	/* Our reference on the old file keeps it from being released. */
	f = fdget(cmd.fd);
	if (!f.file)
		return -ENOENT;
	if (f.file->f_op != &ucma_fops) {
		ret = -EINVAL;
		goto out_fd;
	}
	from = f.file->private_data;

	ctx = ucma_ctx_get(from, cmd.id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_fd;
	}

	rdma_lock_handler(ctx->cm_id);
	ret = ucma_move_ctx(ctx, from, file);
	rdma_unlock_handler(ctx->cm_id);
	if (ret < 0)
		goto out_put;

	resp.events_reported = ret;
	ret = 0;
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		ret = -EFAULT;
out_put:
	ucma_ctx_put(ctx);
out_fd:
	fdput(f);
	return ret;
}

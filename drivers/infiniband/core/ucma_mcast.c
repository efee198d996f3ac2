// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_ucm: multicast groups joined through an id.
 *
 * A group has a handle of its own in ucma_mc_table (LEAVE_MCAST names it,
 * its events carry it).  It is reserved before the join and published
 * after the answer reached userspace; its events may come before that.
 * A group lives no longer than its context: ucma_ctx_destroy() frees the
 * groups left, after the cm_id (which leaves them) is gone.
 */

#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"	/* rdma_leave_multicast_context() */
#include "ucma_priv.h"

/* Handle -> published group.  Its lock also guards every ctx->mcs. */
DEFINE_XARRAY_ALLOC(ucma_mc_table);

/* Unlinks @mc from its context and frees its handle, not @mc itself. */
static void ucma_mc_unlink(struct ucma_mc *mc)
{
	xa_lock(&ucma_mc_table);
	list_del(&mc->ctx_entry);
	__xa_erase(&ucma_mc_table, mc->handle);
	xa_unlock(&ucma_mc_table);
}

static int ucma_join(struct ucma_file *file, struct rdma_ucm_join_mcast *cmd,
		     u16 out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct sockaddr *addr = (struct sockaddr *)&cmd->addr;
	struct ucma_ctx *ctx;
	struct ucma_mc *mc;
	u8 join_state;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (cmd->addr_size != rdma_addr_size(addr))
		return -EINVAL;

	switch (cmd->join_flags) {
	case RDMA_MC_JOIN_FLAG_FULLMEMBER:
		join_state = BIT(FULLMEMBER_JOIN);
		break;
	case RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER:
		join_state = BIT(SENDONLY_FULLMEMBER_JOIN);
		break;
	default:
		return -EINVAL;
	}

	ctx = ucma_ctx_get_bound(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc) {
		ret = -ENOMEM;
		goto err_put;
	}
	mc->ctx = ctx;
	mc->uid = cmd->uid;
	mc->join_state = join_state;
	memcpy(&mc->addr, addr, cmd->addr_size);

	xa_lock(&ucma_mc_table);
	ret = __xa_alloc(&ucma_mc_table, &mc->handle, NULL, xa_limit_32b,
			 GFP_KERNEL);
	if (!ret)
		list_add_tail(&mc->ctx_entry, &ctx->mcs);
	xa_unlock(&ucma_mc_table);
	if (ret) {
		ret = -ENOMEM;
		goto err_free;
	}

	mutex_lock(&ctx->cmd_lock);
	ret = rdma_join_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr,
				  join_state, mc);
	if (ret) {
		mutex_unlock(&ctx->cmd_lock);
		goto err_unlink;
	}

	resp.id = mc->handle;
	if (copy_to_user(u64_to_user_ptr(cmd->response), &resp,
			 sizeof(resp))) {
		ret = -EFAULT;
		rdma_leave_multicast_context(ctx->cm_id,
					     (struct sockaddr *)&mc->addr, mc);
		mutex_unlock(&ctx->cmd_lock);
		ucma_flush_mc_events(mc);
		goto err_unlink;
	}
	mutex_unlock(&ctx->cmd_lock);

	xa_store(&ucma_mc_table, mc->handle, mc, GFP_KERNEL);
	ucma_ctx_put(ctx);
	return 0;

err_unlink:
	ucma_mc_unlink(mc);
err_free:
	kfree(mc);
err_put:
	ucma_ctx_put(ctx);
	return ret;
}

int ucma_cmd_join_ip_mcast(struct ucma_file *file, const void __user *in,
			   u16 in_len, u16 out_len)
{
	struct rdma_ucm_join_ip_mcast cmd;
	struct rdma_ucm_join_mcast join = {};

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;

	join.addr_size = rdma_addr_size_in6(&cmd.addr);
	if (!join.addr_size)
		return -EINVAL;
	join.response = cmd.response;
	join.uid = cmd.uid;
	join.id = cmd.id;
	join.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	memcpy(&join.addr, &cmd.addr, join.addr_size);

	return ucma_join(file, &join, out_len);
}

int ucma_cmd_join_mcast(struct ucma_file *file, const void __user *in,
			u16 in_len, u16 out_len)
{
	struct rdma_ucm_join_mcast cmd;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	if (!rdma_addr_size_kss(&cmd.addr))
		return -EINVAL;

	return ucma_join(file, &cmd, out_len);
}

/*
 * The published group @handle of @file, unpublished and unlinked, with a
 * reference on its context.
 */
static struct ucma_mc *ucma_mc_take(struct ucma_file *file, u32 handle)
{
	struct ucma_mc *mc;

	xa_lock(&ucma_mc_table);
	mc = xa_load(&ucma_mc_table, handle);
	if (!mc)
		mc = ERR_PTR(-ENOENT);
	else if (READ_ONCE(mc->ctx->file) != file)
		mc = ERR_PTR(-EINVAL);
	else if (!refcount_inc_not_zero(&mc->ctx->users))
		mc = ERR_PTR(-ENXIO);
	if (!IS_ERR(mc)) {
		list_del(&mc->ctx_entry);
		__xa_erase(&ucma_mc_table, mc->handle);
	}
	xa_unlock(&ucma_mc_table);
	return mc;
}

int ucma_cmd_leave_mcast(struct ucma_file *file, const void __user *in,
			 u16 in_len, u16 out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct ucma_ctx *ctx;
	struct ucma_mc *mc;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;

	mc = ucma_mc_take(file, cmd.id);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	ctx = mc->ctx;

	mutex_lock(&ctx->cmd_lock);
	/* This join exactly: another of the group keeps its own @mc. */
	rdma_leave_multicast_context(ctx->cm_id, (struct sockaddr *)&mc->addr,
				     mc);
	mutex_unlock(&ctx->cmd_lock);
	ucma_flush_mc_events(mc);
	ucma_ctx_put(ctx);

	resp.events_reported = mc->events_reported;
	kfree(mc);
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

/*
 * The groups of a context being destroyed; its cm_id is gone, and with
 * no reference left, LEAVE_MCAST cannot take one of them any more.
 */
void ucma_mc_free_all(struct ucma_ctx *ctx)
{
	struct ucma_mc *mc, *next;

	xa_lock(&ucma_mc_table);
	list_for_each_entry_safe(mc, next, &ctx->mcs, ctx_entry) {
		list_del(&mc->ctx_entry);
		__xa_erase(&ucma_mc_table, mc->handle);
		kfree(mc);
	}
	xa_unlock(&ucma_mc_table);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_ucm: the table of contexts (the ids userspace names in commands)
 * and their lifetime.
 *
 * A handle is reserved in ucma_ctx_table (a NULL entry, which lookups do
 * not see) when the context is allocated, and the context is published
 * only once it has its cm_id.  Destruction is claimed under the table's
 * lock (ctx->dying, the entry back to reserved), so exactly one path
 * destroys a context; it then drops the cm_id's own reference, waits for
 * the commands still holding one, destroys the cm_id (which waits for its
 * event handler) and only then frees the events, groups and handle.
 *
 * DEVICE_REMOVAL cannot destroy the cm_id from inside its own handler:
 * retire_work does it later, leaving the context published but unusable
 * (lookups fail with -ENXIO) until userspace destroys it.
 */

#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ucma_priv.h"

/* Handle -> published context; see the top of the file. */
DEFINE_XARRAY_ALLOC(ucma_ctx_table);

static void ucma_ctx_retire(struct ucma_ctx *ctx)
{
	ucma_ctx_put(ctx);		/* the cm_id's own reference */
	wait_for_completion(&ctx->idle);
	/* Waits for a handler in flight; no event comes after it. */
	rdma_destroy_id(ctx->cm_id);
	ctx->cm_id = NULL;
}

static void ucma_ctx_retire_work(struct work_struct *work)
{
	ucma_ctx_retire(container_of(work, struct ucma_ctx, retire_work));
}

/**
 * ucma_ctx_alloc - a context with a reserved handle, not yet visible
 * @file: its file, NULL for a new connection's (see struct ucma_ctx)
 */
struct ucma_ctx *ucma_ctx_alloc(struct ucma_file *file)
{
	struct ucma_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;

	init_completion(&ctx->idle);
	mutex_init(&ctx->cmd_lock);
	INIT_LIST_HEAD(&ctx->file_entry);
	INIT_LIST_HEAD(&ctx->mcs);
	INIT_WORK(&ctx->retire_work, ucma_ctx_retire_work);
	ctx->file = file;

	if (xa_alloc(&ucma_ctx_table, &ctx->handle, NULL, xa_limit_32b,
		     GFP_KERNEL)) {
		kfree(ctx);
		return NULL;
	}
	return ctx;
}

/* Undoes ucma_ctx_alloc() of a context that never got a cm_id. */
void ucma_ctx_free_unused(struct ucma_ctx *ctx)
{
	xa_erase(&ucma_ctx_table, ctx->handle);
	mutex_destroy(&ctx->cmd_lock);
	kfree(ctx);
}

/* Gives @ctx its cm_id, and with it the reference the cm_id holds. */
void ucma_ctx_attach(struct ucma_ctx *ctx, struct rdma_cm_id *cm_id)
{
	refcount_set(&ctx->users, 1);
	ctx->cm_id = cm_id;
}

/* Makes @ctx visible to lookups, as one of ctx->file's contexts. */
void ucma_ctx_publish(struct ucma_ctx *ctx)
{
	lockdep_assert_held(&ctx->file->lock);

	list_add_tail(&ctx->file_entry, &ctx->file->ctxs);
	/* The slot is reserved: storing into it allocates nothing. */
	xa_store(&ucma_ctx_table, ctx->handle, ctx, GFP_KERNEL);
}

static struct ucma_ctx *ucma_ctx_find(struct ucma_file *file, u32 handle)
{
	struct ucma_ctx *ctx;

	lockdep_assert_held(&ucma_ctx_table.xa_lock);

	ctx = xa_load(&ucma_ctx_table, handle);
	if (!ctx)
		return ERR_PTR(-ENOENT);
	if (ctx->file != file)
		return ERR_PTR(-EINVAL);
	return ctx;
}

/**
 * ucma_ctx_get - the context @handle of @file, with a reference
 * @file: the file the command came on
 * @handle: the id the command names
 *
 * Errors as stock: -ENOENT for no such handle, -EINVAL for another
 * file's, -ENXIO for one whose cm_id went with its device.
 */
struct ucma_ctx *ucma_ctx_get(struct ucma_file *file, u32 handle)
{
	struct ucma_ctx *ctx;

	xa_lock(&ucma_ctx_table);
	ctx = ucma_ctx_find(file, handle);
	if (!IS_ERR(ctx) && !refcount_inc_not_zero(&ctx->users))
		ctx = ERR_PTR(-ENXIO);
	xa_unlock(&ucma_ctx_table);
	return ctx;
}

/* ucma_ctx_get() of a context whose cm_id has a device (is bound). */
struct ucma_ctx *ucma_ctx_get_bound(struct ucma_file *file, u32 handle)
{
	struct ucma_ctx *ctx = ucma_ctx_get(file, handle);

	if (!IS_ERR(ctx) && !ctx->cm_id->device) {
		ucma_ctx_put(ctx);
		return ERR_PTR(-EINVAL);
	}
	return ctx;
}

void ucma_ctx_put(struct ucma_ctx *ctx)
{
	if (refcount_dec_and_test(&ctx->users))
		complete(&ctx->idle);
}

/*
 * What most commands do before they call rdma_cm on an id: look its
 * context up (with the errnos of ucma_ctx_get()) and take its cmd_lock.
 * ucma_ctx_unlock() undoes either.
 */
static struct ucma_ctx *ucma_ctx_lock_got(struct ucma_ctx *ctx)
{
	if (!IS_ERR(ctx))
		mutex_lock(&ctx->cmd_lock);
	return ctx;
}

/* ucma_ctx_get() with ctx->cmd_lock held. */
struct ucma_ctx *ucma_ctx_lock(struct ucma_file *file, u32 handle)
{
	return ucma_ctx_lock_got(ucma_ctx_get(file, handle));
}

/* ucma_ctx_get_bound() with ctx->cmd_lock held. */
struct ucma_ctx *ucma_ctx_lock_bound(struct ucma_file *file, u32 handle)
{
	return ucma_ctx_lock_got(ucma_ctx_get_bound(file, handle));
}

void ucma_ctx_unlock(struct ucma_ctx *ctx)
{
	mutex_unlock(&ctx->cmd_lock);
	ucma_ctx_put(ctx);
}

/**
 * ucma_ctx_lock_cmd - read a command's request, lock the id it names
 * @file: the file the command came on
 * @in: the request in userspace
 * @cmd: where to read it
 * @size: its size
 * @id: the field of @cmd that names the context
 * @bound: whether the context must be bound, as for ucma_ctx_lock_bound()
 *
 * For the commands with nothing to check in their request before the
 * lookup: -EFAULT comes first, then the lookup's errnos, as stock.
 */
struct ucma_ctx *ucma_ctx_lock_cmd(struct ucma_file *file,
				   const void __user *in, void *cmd, size_t size,
				   const u32 *id, bool bound)
{
	if (copy_from_user(cmd, in, size))
		return ERR_PTR(-EFAULT);
	return bound ? ucma_ctx_lock_bound(file, *id) : ucma_ctx_lock(file, *id);
}

static void ucma_ctx_unpublish(struct ucma_ctx *ctx)
{
	lockdep_assert_held(&ucma_ctx_table.xa_lock);

	ctx->dying = true;
	/* Back to reserved: the handle is not reused before the free. */
	__xa_store(&ucma_ctx_table, ctx->handle, NULL, GFP_ATOMIC);
}

/**
 * ucma_ctx_claim - take the context @handle of @file for destruction
 * @file: the file the command came on
 * @handle: the id the command names
 *
 * On success the caller must ucma_ctx_destroy() it.  A context being
 * destroyed is no longer published, so a second claim gets -ENOENT.
 */
struct ucma_ctx *ucma_ctx_claim(struct ucma_file *file, u32 handle)
{
	struct ucma_ctx *ctx;

	xa_lock(&ucma_ctx_table);
	ctx = ucma_ctx_find(file, handle);
	if (!IS_ERR(ctx))
		ucma_ctx_unpublish(ctx);
	xa_unlock(&ucma_ctx_table);
	return ctx;
}

/*
 * Claims @ctx, which the caller knows about by other means than its handle
 * (its file's list, its connect request, a failed creation).  False if
 * someone else already did.
 */
bool ucma_ctx_claim_this(struct ucma_ctx *ctx)
{
	bool claimed;

	xa_lock(&ucma_ctx_table);
	claimed = !ctx->dying;
	if (claimed)
		ucma_ctx_unpublish(ctx);
	xa_unlock(&ucma_ctx_table);
	return claimed;
}

/* From the event handler on DEVICE_REMOVAL (under the handler lock). */
void ucma_ctx_schedule_retire(struct ucma_ctx *ctx)
{
	xa_lock(&ucma_ctx_table);
	/* A claimed context is destroyed by its claimer, cm_id included. */
	if (!ctx->dying)
		queue_work(system_unbound_wq, &ctx->retire_work);
	xa_unlock(&ucma_ctx_table);
}

/**
 * ucma_ctx_destroy - destroy a claimed context
 * @ctx: the context; freed on return
 *
 * Return: the number of its events userspace read, for DESTROY_ID.
 */
int ucma_ctx_destroy(struct ucma_ctx *ctx)
{
	int reported;

	/*
	 * No retire_work is queued once dying is set; after this one is
	 * cancelled or done, the cm_id is either still ours or gone.
	 */
	cancel_work_sync(&ctx->retire_work);
	if (ctx->cm_id)
		ucma_ctx_retire(ctx);

	reported = ucma_flush_ctx_events(ctx);
	ucma_mc_free_all(ctx);

	xa_erase(&ucma_ctx_table, ctx->handle);
	mutex_destroy(&ctx->cmd_lock);
	kfree(ctx);
	return reported;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the objects a device offers through ioctl, and their types.
 *
 * Every object named by the core's definitions (uverbs_uapi.c) or by the
 * driver's (ib_device->driver_def) gets one entry here, built when the
 * device's char device is added and freed with it: the object's uobject
 * type, and whether an IS_SUPPORTED entry disabled it on this device.
 *
 * Why built once rather than found on each call like the methods: a
 * uobject points to its type (ib_uobject->uapi_object) for as long as it
 * lives, and a driver's type is only a struct uverbs_obj_type in the
 * driver's .rodata: the struct uverbs_api_object wrapping it needs memory
 * that outlives every uobject of the device's files, which the char
 * device (struct ib_uverbs_device, kept by its open files) has.  And
 * stock decides IS_SUPPORTED once, at registration: a driver whose
 * answer changes later (mlx5's DEVX after a firmware reset) keeps the
 * answer it gave then, here too.
 *
 * The core's own objects keep their static types (uverbs_std_types*.c),
 * so that a uobject made by ioctl is the same type as one made by write().
 * Driver types must be of the handle-table or fd class, as on stock: a
 * handle-table uobject can be destroyed on disassociation, and an fd
 * type's file_operations.owner keeps the driver while its file is open.
 */

#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "uverbs.h"

/* The core's uobject types, by UVERBS_OBJECT_* id. */
static const struct uverbs_api_object *const uverbs_core_types[] = {
	[UVERBS_OBJECT_PD] = &uverbs_pd_object,
	[UVERBS_OBJECT_COMP_CHANNEL] = &uverbs_comp_channel_object,
	[UVERBS_OBJECT_CQ] = &uverbs_cq_object,
	[UVERBS_OBJECT_QP] = &uverbs_qp_object,
	[UVERBS_OBJECT_SRQ] = &uverbs_srq_object,
	[UVERBS_OBJECT_AH] = &uverbs_ah_object,
	[UVERBS_OBJECT_MR] = &uverbs_mr_object,
	[UVERBS_OBJECT_MW] = &uverbs_mw_object,
	[UVERBS_OBJECT_FLOW] = &uverbs_flow_object,
	[UVERBS_OBJECT_WQ] = &uverbs_wq_object,
	[UVERBS_OBJECT_RWQ_IND_TBL] = &uverbs_rwq_ind_tbl_object,
	[UVERBS_OBJECT_FLOW_ACTION] = &uverbs_flow_action_object,
	[UVERBS_OBJECT_DM] = &uverbs_dm_object,
	[UVERBS_OBJECT_COUNTERS] = &uverbs_counters_object,
	[UVERBS_OBJECT_ASYNC_EVENT] = &uverbs_async_event_object,
	[UVERBS_OBJECT_XRCD] = &uverbs_xrcd_object,
};

static const struct uverbs_api_object *uapi_core_type(u16 object_id)
{
	if (object_id >= ARRAY_SIZE(uverbs_core_types))
		return NULL;
	return uverbs_core_types[object_id];
}

static bool uapi_device_has_fn(struct ib_device *ib_dev, size_t ops_offset)
{
	const void *fn;

	if (ops_offset > sizeof(ib_dev->ops) - sizeof(fn))
		return false;
	memcpy(&fn, (const u8 *)&ib_dev->ops + ops_offset, sizeof(fn));
	return fn;
}

/* An entry and the memory of a driver's type. */
struct uapi_obj_alloc {
	struct uverbs_uapi_obj obj;
	struct uverbs_api_object own;
};

/* What one walk over a definition list builds. */
struct uapi_types_build {
	struct ib_device *ib_dev;
	struct xarray *objs;
	int err;
};

static struct uverbs_uapi_obj *uapi_obj_get(struct uapi_types_build *b,
					    u16 object_id)
{
	struct uapi_obj_alloc *alloc = xa_load(b->objs, object_id);
	int ret;

	if (alloc)
		return &alloc->obj;
	alloc = kzalloc(sizeof(*alloc), GFP_KERNEL);
	if (!alloc) {
		b->err = -ENOMEM;
		return NULL;
	}
	alloc->obj.type = uapi_core_type(object_id);
	ret = xa_err(xa_store(b->objs, object_id, alloc, GFP_KERNEL));
	if (ret) {
		kfree(alloc);
		b->err = ret;
		return NULL;
	}
	return &alloc->obj;
}

/* A driver's object brings its type; a core object has its own. */
static void uapi_obj_set_type(struct uapi_types_build *b,
			      struct uverbs_uapi_obj *obj, u16 object_id,
			      const struct uverbs_obj_type *type_attrs)
{
	struct uverbs_api_object *own;

	if (obj->type) {
		ibdev_warn(b->ib_dev,
			   "ib_uverbs: object %#x has two types; the first stands\n",
			   object_id);
		return;
	}
	if (type_attrs->type_class != &uverbs_idr_class &&
	    type_attrs->type_class != &uverbs_fd_class) {
		ibdev_warn(b->ib_dev,
			   "ib_uverbs: object %#x has a type of an unknown class; disabled\n",
			   object_id);
		obj->disabled = true;
		return;
	}
	own = &container_of(obj, struct uapi_obj_alloc, obj)->own;
	own->id = object_id;
	own->type_attrs = type_attrs;
	own->type_class = type_attrs->type_class;
	obj->type = own;
}

/*
 * Object scope only: method scope qualifies write() commands, which
 * uverbs_cmd.c dispatches itself, as stock's ioctl methods have none.
 */
static void uapi_obj_check_supported(struct uapi_types_build *b,
				     struct uverbs_uapi_obj *obj,
				     const struct uapi_definition *def)
{
	bool supported;

	if (def->scope != UAPI_SCOPE_OBJECT || !obj)
		return;
	if (def->kind == UAPI_DEF_IS_SUPPORTED_FUNC)
		supported = def->func_is_supported(b->ib_dev);
	else
		supported = uapi_device_has_fn(b->ib_dev, def->needs_fn_offset);
	if (!supported)
		obj->disabled = true;
}

static void uapi_types_walk(struct uapi_types_build *b,
			    const struct uapi_definition *def,
			    unsigned int depth)
{
	/* The object the IS_SUPPORTED entries being read are about. */
	struct uverbs_uapi_obj *cur = NULL;
	u16 id;

	if (!def)
		return;
	if (depth > UAPI_MAX_CHAIN_DEPTH) {
		ibdev_warn(b->ib_dev, "ib_uverbs: definitions nested too deep\n");
		return;
	}

	for (; def->kind != UAPI_DEF_END && !b->err; def++) {
		switch (def->kind) {
		case UAPI_DEF_CHAIN:
			uapi_types_walk(b, def->chain, depth + 1);
			cur = NULL;
			break;
		case UAPI_DEF_OBJECT_START:
			cur = uapi_obj_get(b, def->object_start.object_id);
			break;
		case UAPI_DEF_CHAIN_OBJ_TREE:
			id = def->object_start.object_id;
			cur = uapi_obj_get(b, id);
			if (cur && def->chain_obj_tree->type_attrs)
				uapi_obj_set_type(b, cur, id,
						  def->chain_obj_tree->type_attrs);
			break;
		case UAPI_DEF_IS_SUPPORTED_FUNC:
		case UAPI_DEF_IS_SUPPORTED_DEV_FN:
			uapi_obj_check_supported(b, cur, def);
			break;
		case UAPI_DEF_WRITE:
			/* write() commands: uverbs_cmd.c's own table. */
			break;
		default:
			/* Written for a newer core: trust nothing of it. */
			if (cur)
				cur->disabled = true;
			break;
		}
	}
}

/**
 * uverbs_uapi_object() - an object the device has
 * @objs: the device's objects, from uverbs_uapi_types_build()
 * @id: UVERBS_OBJECT_* or a driver's object id
 *
 * Return: the object, or NULL when the device lacks it or an
 * IS_SUPPORTED entry disabled it.
 */
const struct uverbs_uapi_obj *uverbs_uapi_object(struct xarray *objs, u16 id)
{
	const struct uverbs_uapi_obj *obj = xa_load(objs, id);

	return obj && !obj->disabled ? obj : NULL;
}

void uverbs_uapi_types_free(struct xarray *objs)
{
	struct uapi_obj_alloc *alloc;
	unsigned long id;

	xa_for_each(objs, id, alloc)
		kfree(alloc);
	xa_destroy(objs);
}

/**
 * uverbs_uapi_types_build() - the objects of a device's ioctl API
 * @ib_dev: the device, being added to ib_uverbs
 * @objs: an empty xarray, filled with a struct uverbs_uapi_obj per object
 *	id; the caller frees it with uverbs_uapi_types_free()
 *
 * Return: 0 or -ENOMEM.
 */
int uverbs_uapi_types_build(struct ib_device *ib_dev, struct xarray *objs)
{
	struct uapi_types_build b = { .ib_dev = ib_dev, .objs = objs };

	uapi_types_walk(&b, uverbs_core_api, 0);
	uapi_types_walk(&b, ib_dev->driver_def, 0);
	if (b.err)
		uverbs_uapi_types_free(objs);
	return b.err;
}

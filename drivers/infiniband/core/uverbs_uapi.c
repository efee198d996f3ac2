// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl method trees.
 *
 * Methods are defined by static tables (include/rdma/uverbs_ioctl.h): a
 * list of struct uapi_definition entries naming objects, each object a
 * struct uverbs_object_def with its methods and their attribute specs.
 * The core has one list (uverbs_core_api below), a driver may have
 * another (ib_device->driver_def) that adds objects of its namespace
 * (ids with UVERBS_ID_NS_MASK bits), adds methods to the core's objects,
 * adds driver-namespace attributes to the core's methods, and restricts
 * objects to devices that support them (IS_SUPPORTED entries).
 *
 * Two halves, for two lifetimes:
 *	uverbs_uapi_types.c  the objects, once per device when it is added:
 *			their uobject types (uobjects point to them as long
 *			as they live) and stock's IS_SUPPORTED verdicts
 *	here		the methods, merged from both lists for one (object,
 *			method) pair on each call, under the SRCU read lock
 *			that keeps the device and its driver
 * The lists are a few dozen entries long and constant, so a walk costs
 * less than the driver call it precedes, and no method table has to be
 * built, kept in step with the driver or torn down with it.
 *
 * The answers are stock's (whose ib_uverbs builds a radix tree when
 * the device is added and prunes it; the same rules here, per call):
 *	-EPROTONOSUPPORT for an unknown object or method, an object an
 *	IS_SUPPORTED entry disabled (all its methods, the driver's added
 *	ones too), and a method whose mandatory handle attribute names an
 *	object the device lacks or disabled (MR's DM_MR_REG on rxe).  An
 *	optional such attribute stays, and naming a handle in it is -EINVAL.
 *	Method-scope IS_SUPPORTED entries are for write() commands only.
 * Where stock refuses a whole broken definition (two handlers for one
 * method, two NEW or DESTROY handles, a driver type of another class)
 * and registers no uverbs device, here the broken method or object is
 * unavailable and the rest works.
 */

#include <linux/bitmap.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "uverbs.h"

const struct uapi_definition uverbs_core_api[] = {
	UAPI_DEF_CHAIN(uverbs_def_obj_device),
	UAPI_DEF_CHAIN(uverbs_def_obj_destroy),
	UAPI_DEF_CHAIN(uverbs_def_obj_context),
	UAPI_DEF_CHAIN(uverbs_def_obj_async_fd),
	/*
	 * No methods, but CQ_CREATE names it: an object without a
	 * definition would not exist.  Gated as on stock.
	 */
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_COMP_CHANNEL,
			      UAPI_DEF_OBJ_NEEDS_FN(dealloc_pd)),
	UAPI_DEF_CHAIN(uverbs_def_obj_cq),
	UAPI_DEF_CHAIN(uverbs_def_obj_qp),
	UAPI_DEF_CHAIN(uverbs_def_obj_srq),
	UAPI_DEF_CHAIN(uverbs_def_obj_mr),
	UAPI_DEF_CHAIN(uverbs_def_obj_dm),
	UAPI_DEF_CHAIN(uverbs_def_obj_flow),
	UAPI_DEF_CHAIN(uverbs_def_obj_wq),
	UAPI_DEF_CHAIN(uverbs_def_obj_xrcd),
	{},
};

/* What one walk over the definitions is looking for and has found. */
struct uapi_lookup {
	/* The device's objects (uverbs_uapi_types.c). */
	struct xarray *objs;
	u16 object_id;
	u16 method_id;
	/* The definitions are inconsistent or name what we cannot do. */
	bool unusable;
	/* An attribute creates or destroys a uobject. */
	bool single_uobj;
	struct uverbs_ioctl_method *method;
};

/*
 * The uobject type a handle attribute names.  As on stock, a method
 * whose mandatory handle names an object the device lacks (never
 * defined, or disabled by IS_SUPPORTED) does not exist; an optional one
 * stays, and naming it fails with -EINVAL (a NULL type, which is also
 * what an object without a type gives).  UVERBS_IDR_ANY_OBJECT names
 * any handle-table object.
 */
static void uapi_merge_attr_obj(struct uapi_lookup *lookup, u32 bkey,
				const struct uverbs_attr_spec *spec,
				u16 obj_type, u8 access)
{
	struct uverbs_ioctl_method *method = lookup->method;
	const struct uverbs_uapi_obj *obj;

	if (obj_type == UVERBS_IDR_ANY_OBJECT) {
		/* There is no type to create a new object of. */
		if (access == UVERBS_ACCESS_NEW)
			lookup->unusable = true;
		__set_bit(bkey, method->any_obj);
		return;
	}
	obj = uverbs_uapi_object(lookup->objs, obj_type);
	if (obj) {
		method->objs[bkey] = obj->type;
		return;
	}
	if (spec->mandatory)
		lookup->unusable = true;
}

/*
 * Stock's definition rules: one NEW or DESTROY per method, mandatory,
 * never in an array.  A definition breaking them is refused.
 */
static void uapi_merge_attr_access(struct uapi_lookup *lookup, u32 bkey,
				   const struct uverbs_attr_spec *spec,
				   u8 access)
{
	if (access != UVERBS_ACCESS_NEW && access != UVERBS_ACCESS_DESTROY)
		return;
	if (lookup->single_uobj || !spec->mandatory ||
	    spec->type == UVERBS_ATTR_TYPE_IDRS_ARRAY)
		lookup->unusable = true;
	lookup->single_uobj = true;
	if (access == UVERBS_ACCESS_DESTROY)
		lookup->method->destroy_bkey = bkey;
}

static void uapi_merge_attr(struct uapi_lookup *lookup,
			    const struct uverbs_attr_def *def)
{
	struct uverbs_ioctl_method *method = lookup->method;
	const struct uverbs_attr_spec *spec = &def->attr;
	u32 key = uapi_key_attr(def->id);
	u32 bkey;

	if (key == UVERBS_API_KEY_ERR) {
		lookup->unusable = true;
		return;
	}
	bkey = uapi_bkey_attr(key);
	/* Two definitions of one attribute: the first stands. */
	if (method->specs[bkey])
		return;

	switch (spec->type) {
	case UVERBS_ATTR_TYPE_IDR:
	case UVERBS_ATTR_TYPE_FD:
		uapi_merge_attr_obj(lookup, bkey, spec, spec->u.obj.obj_type,
				    spec->u.obj.access);
		uapi_merge_attr_access(lookup, bkey, spec, spec->u.obj.access);
		break;
	case UVERBS_ATTR_TYPE_IDRS_ARRAY:
		uapi_merge_attr_obj(lookup, bkey, spec,
				    spec->u2.objs_arr.obj_type,
				    spec->u2.objs_arr.access);
		uapi_merge_attr_access(lookup, bkey, spec,
				       spec->u2.objs_arr.access);
		break;
	default:
		break;
	}

	method->specs[bkey] = spec;
	if (spec->mandatory)
		__set_bit(bkey, method->mandatory);
	if (spec->is_udata)
		method->has_udata = true;
	method->num_bkeys = max(method->num_bkeys, bkey + 1);
}

static void uapi_merge_method(struct uapi_lookup *lookup,
			      const struct uverbs_method_def *def)
{
	size_t i;

	/* Stock skips a method without an attribute list. */
	if (!def->attrs)
		return;
	if (def->handler) {
		/* A second handler for one method is a broken definition. */
		if (lookup->method->handler)
			lookup->unusable = true;
		lookup->method->handler = def->handler;
	}
	for (i = 0; i < def->num_attrs; i++)
		if ((*def->attrs)[i])
			uapi_merge_attr(lookup, (*def->attrs)[i]);
}

static void uapi_merge_object(struct uapi_lookup *lookup,
			      const struct uverbs_object_def *def)
{
	size_t i;

	if (!def || !def->methods)
		return;
	for (i = 0; i < def->num_methods; i++) {
		const struct uverbs_method_def *method = (*def->methods)[i];

		if (method && method->id == lookup->method_id)
			uapi_merge_method(lookup, method);
	}
}

/* Whether and how the object is supported is uverbs_uapi_types.c's. */
static void uapi_walk(struct uapi_lookup *lookup,
		      const struct uapi_definition *def, unsigned int depth)
{
	if (!def)
		return;
	if (depth > UAPI_MAX_CHAIN_DEPTH) {
		lookup->unusable = true;
		return;
	}

	for (; def->kind != UAPI_DEF_END; def++) {
		switch (def->kind) {
		case UAPI_DEF_CHAIN:
			uapi_walk(lookup, def->chain, depth + 1);
			break;
		case UAPI_DEF_CHAIN_OBJ_TREE:
			if (def->object_start.object_id == lookup->object_id)
				uapi_merge_object(lookup, def->chain_obj_tree);
			break;
		default:
			break;
		}
	}
}

/**
 * uverbs_uapi_get_method() - the ioctl method a device offers
 * @udev: the device's char device, with its objects
 * @ib_dev: the live device, or NULL once it is gone
 * @object_id: UVERBS_OBJECT_* or a driver's object id
 * @method_id: the method within the object
 * @method: filled with the merged definition
 *
 * Return: 0, or -EPROTONOSUPPORT when @ib_dev has no such usable method
 * (its object unknown or disabled on the device included), as on stock:
 * the answer that makes userspace fall back to a write() command.
 */
int uverbs_uapi_get_method(struct ib_uverbs_device *udev,
			   struct ib_device *ib_dev, u16 object_id,
			   u16 method_id, struct uverbs_ioctl_method *method)
{
	struct uapi_lookup lookup = {
		.objs = &udev->uapi_objs,
		.object_id = object_id,
		.method_id = method_id,
		.method = method,
	};

	memset(method, 0, sizeof(*method));
	method->destroy_bkey = -1;

	if (!uverbs_uapi_object(&udev->uapi_objs, object_id))
		return -EPROTONOSUPPORT;

	uapi_walk(&lookup, uverbs_core_api, 0);
	/* None once the device is gone: the core's methods only. */
	if (ib_dev)
		uapi_walk(&lookup, ib_dev->driver_def, 0);

	if (lookup.unusable || !method->handler)
		return -EPROTONOSUPPORT;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl method trees.
 *
 * Methods are defined by static tables (include/rdma/uverbs_ioctl.h): a
 * list of struct uapi_definition entries naming objects, each object a
 * struct uverbs_object_def with its methods and their attribute specs.
 * The core has one list (uverbs_core_api below), a driver may have
 * another (ib_device->driver_def) that adds objects, adds methods to the
 * core's objects, adds (driver-namespace) attributes to the core's
 * methods, and restricts objects to devices that support them.
 *
 * uverbs_uapi_get_method() merges both lists for one (object, method)
 * pair each time it is called.  The lists are a few dozen entries long
 * and constant, so a walk costs less than the driver call it precedes,
 * and nothing derived from them has to live with the device or be
 * rebuilt when a driver module goes: the walk runs under the SRCU read
 * lock that keeps the device and its driver.
 */

#include <linux/bitmap.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "uverbs.h"

/* UAPI_DEF_CHAIN nesting we follow; deeper is a broken definition. */
#define UAPI_MAX_CHAIN_DEPTH 4

static const struct uapi_definition uverbs_core_api[] = {
	UAPI_DEF_CHAIN(uverbs_def_obj_device),
	UAPI_DEF_CHAIN(uverbs_def_obj_destroy),
	UAPI_DEF_CHAIN(uverbs_def_obj_context),
	UAPI_DEF_CHAIN(uverbs_def_obj_async_fd),
	UAPI_DEF_CHAIN(uverbs_def_obj_cq),
	UAPI_DEF_CHAIN(uverbs_def_obj_qp),
	UAPI_DEF_CHAIN(uverbs_def_obj_srq),
	{},
};

/*
 * The uobject types of the core's objects, by UVERBS_OBJECT_* id.  Types
 * of driver objects (namespace ids) and UVERBS_IDR_ANY_OBJECT are not
 * supported yet: a method whose attributes name one is unavailable.
 */
static const struct uverbs_api_object *const uverbs_core_objects[] = {
	[UVERBS_OBJECT_PD] = &uverbs_pd_object,
	[UVERBS_OBJECT_COMP_CHANNEL] = &uverbs_comp_channel_object,
	[UVERBS_OBJECT_CQ] = &uverbs_cq_object,
	[UVERBS_OBJECT_QP] = &uverbs_qp_object,
	[UVERBS_OBJECT_SRQ] = &uverbs_srq_object,
	[UVERBS_OBJECT_AH] = &uverbs_ah_object,
	[UVERBS_OBJECT_MR] = &uverbs_mr_object,
	[UVERBS_OBJECT_MW] = &uverbs_mw_object,
	[UVERBS_OBJECT_ASYNC_EVENT] = &uverbs_async_event_object,
};

static const struct uverbs_api_object *uapi_object_type(u16 object_id)
{
	if (object_id >= ARRAY_SIZE(uverbs_core_objects))
		return NULL;
	return uverbs_core_objects[object_id];
}

/* What one walk over the definitions is looking for and has found. */
struct uapi_lookup {
	struct ib_device *ib_dev;
	u16 object_id;
	u16 method_id;
	bool object_found;
	/* An IS_SUPPORTED entry refused the object on this device. */
	bool object_disabled;
	/* The definitions are inconsistent or name what we cannot do. */
	bool unusable;
	struct uverbs_ioctl_method *method;
};

static bool uapi_device_has_fn(struct ib_device *ib_dev, size_t ops_offset)
{
	const void *fn;

	if (ops_offset > sizeof(ib_dev->ops) - sizeof(fn))
		return false;
	memcpy(&fn, (const u8 *)&ib_dev->ops + ops_offset, sizeof(fn));
	return fn;
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
		method->objs[bkey] = uapi_object_type(spec->u.obj.obj_type);
		if (!method->objs[bkey])
			lookup->unusable = true;
		if (spec->u.obj.access == UVERBS_ACCESS_DESTROY) {
			/* Only one object can go per call. */
			if (method->destroy_bkey >= 0)
				lookup->unusable = true;
			method->destroy_bkey = bkey;
		}
		break;
	case UVERBS_ATTR_TYPE_IDRS_ARRAY:
		method->objs[bkey] = uapi_object_type(spec->u2.objs_arr.obj_type);
		if (!method->objs[bkey])
			lookup->unusable = true;
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

	if (!def)
		return;
	for (i = 0; i < def->num_methods; i++) {
		const struct uverbs_method_def *method = (*def->methods)[i];

		if (method && method->id == lookup->method_id)
			uapi_merge_method(lookup, method);
	}
}

/*
 * Whether the object is supported on the device.  Only object scope is
 * about ioctl methods: method scope qualifies write() commands, which
 * uverbs_cmd.c dispatches itself.
 */
static void uapi_check_supported(struct uapi_lookup *lookup,
				 const struct uapi_definition *def)
{
	bool supported;

	if (def->scope != UAPI_SCOPE_OBJECT)
		return;
	if (def->kind == UAPI_DEF_IS_SUPPORTED_FUNC)
		supported = def->func_is_supported(lookup->ib_dev);
	else
		supported = uapi_device_has_fn(lookup->ib_dev,
					       def->needs_fn_offset);
	if (!supported)
		lookup->object_disabled = true;
}

static void uapi_walk(struct uapi_lookup *lookup,
		      const struct uapi_definition *def, unsigned int depth)
{
	/* Whether the entries being read describe the object looked for. */
	bool ours = false;

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
			ours = false;
			break;
		case UAPI_DEF_OBJECT_START:
			ours = def->object_start.object_id == lookup->object_id;
			lookup->object_found |= ours;
			break;
		case UAPI_DEF_CHAIN_OBJ_TREE:
			ours = def->object_start.object_id == lookup->object_id;
			lookup->object_found |= ours;
			if (ours)
				uapi_merge_object(lookup, def->chain_obj_tree);
			break;
		case UAPI_DEF_IS_SUPPORTED_FUNC:
		case UAPI_DEF_IS_SUPPORTED_DEV_FN:
			if (ours)
				uapi_check_supported(lookup, def);
			break;
		case UAPI_DEF_WRITE:
			/* write() commands: uverbs_cmd.c's own table. */
			break;
		default:
			/* Written for a newer core: trust nothing of it. */
			if (ours)
				lookup->unusable = true;
			break;
		}
	}
}

/**
 * uverbs_uapi_get_method() - the ioctl method a device offers
 * @ib_dev: the live device
 * @object_id: UVERBS_OBJECT_* or a driver's object id
 * @method_id: the method within the object
 * @method: filled with the merged definition
 *
 * Return: 0, or -EPROTONOSUPPORT when @ib_dev has no such usable method:
 * the answer that makes userspace fall back to a write() command.
 */
int uverbs_uapi_get_method(struct ib_device *ib_dev, u16 object_id,
			   u16 method_id, struct uverbs_ioctl_method *method)
{
	struct uapi_lookup lookup = {
		.ib_dev = ib_dev,
		.object_id = object_id,
		.method_id = method_id,
		.method = method,
	};

	memset(method, 0, sizeof(*method));
	method->destroy_bkey = -1;

	uapi_walk(&lookup, uverbs_core_api, 0);
	uapi_walk(&lookup, ib_dev->driver_def, 0);

	if (!lookup.object_found || lookup.object_disabled ||
	    lookup.unusable || !method->handler)
		return -EPROTONOSUPPORT;
	return 0;
}

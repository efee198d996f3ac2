// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: RDMA_VERBS_IOCTL.
 *
 * A call names an object and a method and carries attributes (struct
 * ib_uverbs_ioctl_hdr, include/uapi/rdma/rdma_user_ioctl_cmds.h).  The
 * method's definition (uverbs_uapi.c) gives a spec per attribute id; the
 * attributes are checked against their specs into a struct
 * uverbs_attr_bundle, indexed as the accessors of
 * include/rdma/uverbs_ioctl.h expect, then the handler runs, then the
 * uobjects the attributes named are committed or released.  Handles of
 * driver objects are looked up like the core's, through the types the
 * device's objects have (uverbs_uapi_types.c); UVERBS_IDR_ANY_OBJECT
 * takes a handle of any type in the handle table (mlx5's DEVX methods).
 *
 * The errnos userspace relies on:
 *	-EPROTONOSUPPORT  no such object or method on this device (see
 *			  uverbs_uapi.c), or an unknown attribute flagged
 *			  UVERBS_ATTR_F_MANDATORY (libibverbs then falls
 *			  back to the write() command); never anything else
 *	-EINVAL		  malformed header or attribute, a mandatory
 *			  attribute missing, a size out of the spec, a
 *			  handle of another type or of an object type the
 *			  device does not have
 *	-EOPNOTSUPP	  data past what the kernel knows is not zero, an
 *			  enum value it does not know
 */

#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "uverbs.h"

/* Memory from _uverbs_alloc(), freed when the call ends. */
struct uverbs_call_alloc {
	struct list_head list;
	u8 data[] __aligned(8);
};

/*
 * One call in progress.  Private to this file; handlers see @bundle,
 * which must stay last (its attrs[] is sized to the method).
 */
struct uverbs_call {
	struct ib_device *ib_dev;
	/* The attributes as userspace wrote them, and a copy of them. */
	struct ib_uverbs_attr __user *user_attrs;
	struct ib_uverbs_attr *uattrs;
	struct uverbs_ioctl_method method;
	/* Attributes holding uobjects to commit or release at the end. */
	DECLARE_BITMAP(uobj_held, UVERBS_API_ATTR_BKEY_LEN);
	/* NEW objects whose driver object exists (uverbs_finalize_uobj_create). */
	DECLARE_BITMAP(hw_obj_valid, UVERBS_API_ATTR_BKEY_LEN);
	struct list_head allocs;
	struct uverbs_attr_bundle bundle;
};

static struct uverbs_call *to_call(const struct uverbs_attr_bundle *bundle)
{
	return container_of(bundle, struct uverbs_call, bundle);
}

static u32 attr_bkey(u16 attr_id)
{
	return uapi_bkey_attr(uapi_key_attr(attr_id));
}

static enum rdma_lookup_mode lookup_mode(u8 access)
{
	switch (access) {
	case UVERBS_ACCESS_READ:
		return UVERBS_LOOKUP_READ;
	case UVERBS_ACCESS_DESTROY:
		return UVERBS_LOOKUP_DESTROY;
	default:
		return UVERBS_LOOKUP_WRITE;
	}
}

/* ---------------------------------------------------------------- */
/* Accessors for handlers                                           */

struct ib_device *uverbs_attrs_ib_dev(const struct uverbs_attr_bundle *attrs)
{
	return to_call(attrs)->ib_dev;
}

/**
 * uverbs_set_valid_output() - mark a PTR_OUT attribute as written
 * @attrs: the call's bundle
 * @idx: the attribute id
 *
 * Sets UVERBS_ATTR_F_VALID_OUTPUT in the caller's copy of the attribute,
 * which tells userspace (and valgrind) the buffer holds an answer.
 *
 * Return: 0, -ENOENT when the attribute is absent, -EFAULT.
 */
int uverbs_set_valid_output(const struct uverbs_attr_bundle *attrs, u16 idx)
{
	const struct uverbs_attr *attr = uverbs_attr_get(attrs, idx);
	struct uverbs_call *call = to_call(attrs);
	u16 i;

	if (IS_ERR(attr))
		return PTR_ERR(attr);
	i = attr->ptr_attr.uattr_idx;
	if (put_user(call->uattrs[i].flags | UVERBS_ATTR_F_VALID_OUTPUT,
		     &call->user_attrs[i].flags))
		return -EFAULT;
	return 0;
}

/**
 * uverbs_copy_to() - answer through a PTR_OUT attribute
 * @bundle: the call's bundle
 * @idx: the attribute id
 * @from: the answer
 * @size: its size; a shorter buffer gets its first bytes
 *
 * Return: 0, -ENOENT when the attribute is absent, -EFAULT.
 */
int uverbs_copy_to(const struct uverbs_attr_bundle *bundle, size_t idx,
		   const void *from, size_t size)
{
	const struct uverbs_attr *attr = uverbs_attr_get(bundle, idx);
	size_t len;

	if (IS_ERR(attr))
		return PTR_ERR(attr);

	len = min_t(size_t, attr->ptr_attr.len, size);
	if (copy_to_user(u64_to_user_ptr(attr->ptr_attr.data), from, len))
		return -EFAULT;
	return uverbs_set_valid_output(bundle, idx);
}
EXPORT_SYMBOL(uverbs_copy_to);

/**
 * uverbs_copy_to_struct_or_zero() - answer a struct, zeroing the rest
 * @bundle: the call's bundle
 * @idx: the attribute id
 * @from: the answer
 * @size: its size; room past it is cleared, so an older kernel's answer
 *	reads as "not supported" fields
 *
 * Return: 0, -ENOENT when the attribute is absent, -EFAULT.
 */
int uverbs_copy_to_struct_or_zero(const struct uverbs_attr_bundle *bundle,
				  size_t idx, const void *from, size_t size)
{
	const struct uverbs_attr *attr = uverbs_attr_get(bundle, idx);

	if (IS_ERR(attr))
		return PTR_ERR(attr);

	if (attr->ptr_attr.len > size &&
	    clear_user(u64_to_user_ptr(attr->ptr_attr.data) + size,
		       attr->ptr_attr.len - size))
		return -EFAULT;
	return uverbs_copy_to(bundle, idx, from, size);
}
EXPORT_SYMBOL(uverbs_copy_to_struct_or_zero);

/**
 * uverbs_get_flags64() - read a UVERBS_ATTR_FLAGS_IN attribute
 * @to: the flags; 0 when the attribute is absent
 * @attrs_bundle: the call's bundle
 * @idx: the attribute id
 * @allowed_bits: the flags the caller knows
 *
 * Return: 0, or -EINVAL for a flag outside @allowed_bits.
 */
int uverbs_get_flags64(u64 *to, const struct uverbs_attr_bundle *attrs_bundle,
		       size_t idx, u64 allowed_bits)
{
	const struct uverbs_attr *attr = uverbs_attr_get(attrs_bundle, idx);
	u64 flags;

	*to = 0;
	if (IS_ERR(attr))
		return PTR_ERR(attr) == -ENOENT ? 0 : PTR_ERR(attr);

	/* The spec lets userspace pass a u32 or a u64, both inline. */
	switch (attr->ptr_attr.len) {
	case sizeof(u64):
		flags = attr->ptr_attr.data;
		break;
	case sizeof(u32): {
		u32 flags32;

		memcpy(&flags32, &attr->ptr_attr.data, sizeof(flags32));
		flags = flags32;
		break;
	}
	default:
		return -EINVAL;
	}

	if (flags & ~allowed_bits)
		return -EINVAL;
	*to = flags;
	return 0;
}
EXPORT_SYMBOL(uverbs_get_flags64);

int uverbs_get_flags32(u32 *to, const struct uverbs_attr_bundle *attrs_bundle,
		       size_t idx, u64 allowed_bits)
{
	u64 flags;
	int ret;

	ret = uverbs_get_flags64(&flags, attrs_bundle, idx,
				 allowed_bits & U32_MAX);
	if (ret)
		return ret;
	*to = flags;
	return 0;
}
EXPORT_SYMBOL(uverbs_get_flags32);

/**
 * _uverbs_get_const_signed() - read a UVERBS_ATTR_CONST_IN attribute
 * @to: the value
 * @attrs_bundle: the call's bundle
 * @idx: the attribute id
 * @lower_bound: the smallest value the caller's type holds
 * @upper_bound: the largest
 * @def_val: the value of an absent attribute, NULL if it must be present
 *
 * Return: 0, -EINVAL for a value out of bounds, -ENOENT when absent.
 */
int _uverbs_get_const_signed(s64 *to,
			     const struct uverbs_attr_bundle *attrs_bundle,
			     size_t idx, s64 lower_bound, u64 upper_bound,
			     s64 *def_val)
{
	const struct uverbs_attr *attr = uverbs_attr_get(attrs_bundle, idx);
	s64 value;

	if (IS_ERR(attr)) {
		if (PTR_ERR(attr) != -ENOENT || !def_val)
			return PTR_ERR(attr);
		*to = *def_val;
		return 0;
	}

	value = attr->ptr_attr.data;
	if (value < lower_bound || (value > 0 && (u64)value > upper_bound))
		return -EINVAL;
	*to = value;
	return 0;
}
EXPORT_SYMBOL(_uverbs_get_const_signed);

int _uverbs_get_const_unsigned(u64 *to,
			       const struct uverbs_attr_bundle *attrs_bundle,
			       size_t idx, u64 upper_bound, u64 *def_val)
{
	const struct uverbs_attr *attr = uverbs_attr_get(attrs_bundle, idx);

	if (IS_ERR(attr)) {
		if (PTR_ERR(attr) != -ENOENT || !def_val)
			return PTR_ERR(attr);
		*to = *def_val;
		return 0;
	}

	if (attr->ptr_attr.data > upper_bound)
		return -EINVAL;
	*to = attr->ptr_attr.data;
	return 0;
}
EXPORT_SYMBOL(_uverbs_get_const_unsigned);

/**
 * _uverbs_alloc() - memory that lives as long as the call
 * @bundle: the call's bundle
 * @size: bytes wanted
 * @flags: GFP flags
 *
 * Return: the memory, freed by the framework when the method returns;
 * ERR_PTR(-ENOMEM) or ERR_PTR(-EOVERFLOW).
 */
__malloc void *_uverbs_alloc(struct uverbs_attr_bundle *bundle, size_t size,
			     gfp_t flags)
{
	struct uverbs_call *call = to_call(bundle);
	struct uverbs_call_alloc *alloc;
	size_t bytes;

	if (check_add_overflow(sizeof(*alloc), size, &bytes))
		return ERR_PTR(-EOVERFLOW);
	alloc = kvmalloc(bytes, flags);
	if (!alloc)
		return ERR_PTR(-ENOMEM);
	list_add(&alloc->list, &call->allocs);
	return alloc->data;
}
EXPORT_SYMBOL(_uverbs_alloc);

/**
 * uverbs_finalize_uobj_create() - the driver object of a NEW attribute exists
 * @attrs_bundle: the call's bundle
 * @idx: the UVERBS_ACCESS_NEW attribute id
 *
 * From here on, should the method still fail, the framework destroys the
 * object through its type instead of merely dropping the handle.
 */
void uverbs_finalize_uobj_create(const struct uverbs_attr_bundle *attrs_bundle,
				 u16 idx)
{
	__set_bit(attr_bkey(idx), to_call(attrs_bundle)->hw_obj_valid);
}
EXPORT_SYMBOL(uverbs_finalize_uobj_create);

/* For methods whose whole job is the framework's destroy. */
int uverbs_destroy_def_handler(struct uverbs_attr_bundle *attrs)
{
	return 0;
}
EXPORT_SYMBOL(uverbs_destroy_def_handler);

void uverbs_fill_udata(struct uverbs_attr_bundle *attrs,
		       struct ib_udata *udata, unsigned int attr_in,
		       unsigned int attr_out)
{
	const struct uverbs_attr *in = uverbs_attr_get(attrs, attr_in);
	const struct uverbs_attr *out = uverbs_attr_get(attrs, attr_out);
	struct uverbs_call *call = to_call(attrs);

	memset(udata, 0, sizeof(*udata));
	if (!IS_ERR(in)) {
		udata->inlen = in->ptr_attr.len;
		/*
		 * Short input sits in the attribute itself; the driver
		 * reads udata with copy_from_user(), so give it the
		 * attribute in the caller's memory.
		 */
		if (uverbs_attr_ptr_is_inline(in))
			udata->inbuf =
				&call->user_attrs[in->ptr_attr.uattr_idx].data;
		else
			udata->inbuf = u64_to_user_ptr(in->ptr_attr.data);
	}
	if (!IS_ERR(out)) {
		udata->outlen = out->ptr_attr.len;
		udata->outbuf = u64_to_user_ptr(out->ptr_attr.data);
	}
}

/* ---------------------------------------------------------------- */
/* Parsing                                                          */

/* Whether the bytes of @uattr past @from are zero. */
static bool uattr_tail_cleared(const struct ib_uverbs_attr *uattr, u16 from)
{
	if (uattr->len <= sizeof(uattr->data))
		return !memchr_inv((const u8 *)&uattr->data + from, 0,
				   uattr->len - from);
	return ib_is_buffer_cleared(u64_to_user_ptr(uattr->data) + from,
				    uattr->len - from);
}

static int process_ptr(struct uverbs_call *call,
		       const struct uverbs_attr_spec *spec,
		       const struct ib_uverbs_attr *uattr,
		       struct uverbs_attr *attr)
{
	/* Longer than we know: allowed when the rest is zero. */
	if (uattr->len > spec->u.ptr.len && spec->zero_trailing &&
	    spec->type == UVERBS_ATTR_TYPE_PTR_IN &&
	    !uattr_tail_cleared(uattr, spec->u.ptr.len))
		return -EOPNOTSUPP;
	if (uattr->len < spec->u.ptr.min_len ||
	    (uattr->len > spec->u.ptr.len && !spec->zero_trailing))
		return -EINVAL;

	attr->ptr_attr.len = uattr->len;
	attr->ptr_attr.uattr_idx = uattr - call->uattrs;

	if (spec->alloc_and_copy && !uverbs_attr_ptr_is_inline(attr)) {
		void *buf = uverbs_alloc(&call->bundle, uattr->len);

		if (IS_ERR(buf))
			return PTR_ERR(buf);
		if (copy_from_user(buf, u64_to_user_ptr(uattr->data),
				   uattr->len))
			return -EFAULT;
		attr->ptr_attr.ptr = buf;
	} else {
		attr->ptr_attr.data = uattr->data;
	}
	return 0;
}

static int process_enum(struct uverbs_call *call,
			const struct uverbs_attr_spec *spec,
			const struct ib_uverbs_attr *uattr,
			struct uverbs_attr *attr)
{
	u8 elem = uattr->attr_data.enum_data.elem_id;
	const struct uverbs_attr_spec *elem_spec;

	if (uattr->attr_data.enum_data.reserved)
		return -EINVAL;
	if (elem >= spec->u.enum_def.num_elems)
		return -EOPNOTSUPP;
	elem_spec = &spec->u2.enum_def.ids[elem];
	/* The only kind of enum member the definitions have. */
	if (elem_spec->type != UVERBS_ATTR_TYPE_PTR_IN)
		return -EOPNOTSUPP;

	attr->ptr_attr.enum_id = elem;
	return process_ptr(call, elem_spec, uattr, attr);
}

static int process_new_uobj(struct uverbs_call *call,
			    const struct uverbs_api_object *obj,
			    const struct ib_uverbs_attr *uattr,
			    struct uverbs_obj_attr *o_attr)
{
	struct ib_uobject *uobj;
	s64 id;

	uobj = rdma_alloc_begin_uobject(obj, &call->bundle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	o_attr->uobject = uobj;

	/* The new handle, answered in the attribute itself. */
	id = uobj->id;
	if (put_user(id, &call->user_attrs[uattr - call->uattrs].data_s64))
		return -EFAULT;
	return 0;
}

/*
 * The uobject handle @id of attribute @bkey names, referenced and claimed.
 * For UVERBS_IDR_ANY_OBJECT, whatever handle-table object it is: its type
 * is read under RCU (uobjects are freed after a grace period), and the
 * lookup checks it again, so a handle reused meanwhile by an object of
 * another type fails as -EINVAL rather than giving the wrong object.
 */
static struct ib_uobject *lookup_uobj(struct uverbs_call *call, u32 bkey,
				      s64 id, enum rdma_lookup_mode mode)
{
	const struct uverbs_api_object *obj = call->method.objs[bkey];
	struct ib_uobject *uobj;

	if (test_bit(bkey, call->method.any_obj)) {
		if (id < 0)
			return ERR_PTR(-EINVAL);
		rcu_read_lock();
		uobj = xa_load(&call->bundle.ufile->idr, id);
		obj = uobj ? READ_ONCE(uobj->uapi_object) : NULL;
		rcu_read_unlock();
		if (!obj)
			return ERR_PTR(-ENOENT);
	} else if (!obj) {
		/* An object the device does not have, as stock answers. */
		return ERR_PTR(-EINVAL);
	}
	return rdma_lookup_get_uobject(obj, call->bundle.ufile, id, mode,
				       &call->bundle);
}

/* IDR and FD attributes: the object is looked up (or reserved) now. */
static int process_uobj(struct uverbs_call *call, u32 bkey,
			const struct uverbs_attr_spec *spec,
			const struct ib_uverbs_attr *uattr,
			struct uverbs_attr *attr)
{
	const struct uverbs_api_object *obj = call->method.objs[bkey];
	struct uverbs_obj_attr *o_attr = &attr->obj_attr;
	struct ib_uobject *uobj;
	int ret;

	if (uattr->attr_data.reserved || uattr->len)
		return -EINVAL;

	switch (spec->u.obj.access) {
	case UVERBS_ACCESS_NEW:
		if (!obj)
			return -EINVAL;
		ret = process_new_uobj(call, obj, uattr, o_attr);
		/* Aborted with the rest, even if only half done. */
		if (o_attr->uobject)
			__set_bit(bkey, call->uobj_held);
		return ret;
	default:
		/*
		 * A DESTROY one too: looked up now, so a bad handle fails
		 * as early as any other attribute; destroy_uobj() destroys
		 * it once every attribute is known good.
		 */
		uobj = lookup_uobj(call, bkey, uattr->data_s64,
				   lookup_mode(spec->u.obj.access));
		if (IS_ERR(uobj))
			return PTR_ERR(uobj);
		o_attr->uobject = uobj;
		__set_bit(bkey, call->uobj_held);
		return 0;
	}
}

static void put_uobj_array(struct uverbs_objs_arr_attr *arr,
			   enum rdma_lookup_mode mode)
{
	while (arr->len)
		rdma_lookup_put_uobject(arr->uobjects[--arr->len], mode);
}

/* A u32 array of handles, each looked up with the same access. */
static int process_uobj_array(struct uverbs_call *call, u32 bkey,
			      const struct uverbs_attr_spec *spec,
			      const struct ib_uverbs_attr *uattr,
			      struct uverbs_attr *attr)
{
	enum rdma_lookup_mode mode = lookup_mode(spec->u2.objs_arr.access);
	struct uverbs_objs_arr_attr *arr = &attr->objs_arr_attr;
	size_t count = uattr->len / sizeof(u32);
	u32 *ids;
	size_t i;

	if (uattr->attr_data.reserved || uattr->len % sizeof(u32) ||
	    count < spec->u2.objs_arr.min_len ||
	    count > spec->u2.objs_arr.max_len)
		return -EINVAL;

	arr->uobjects = uverbs_kcalloc(&call->bundle, count,
				       sizeof(*arr->uobjects));
	if (IS_ERR(arr->uobjects))
		return PTR_ERR(arr->uobjects);
	ids = uverbs_kcalloc(&call->bundle, count, sizeof(*ids));
	if (IS_ERR(ids))
		return PTR_ERR(ids);
	if (uattr->len <= sizeof(uattr->data))
		memcpy(ids, &uattr->data, uattr->len);
	else if (copy_from_user(ids, u64_to_user_ptr(uattr->data), uattr->len))
		return -EFAULT;

	for (i = 0; i < count; i++) {
		struct ib_uobject *uobj;

		uobj = lookup_uobj(call, bkey, ids[i], mode);
		if (IS_ERR(uobj)) {
			put_uobj_array(arr, mode);
			return PTR_ERR(uobj);
		}
		arr->uobjects[arr->len++] = uobj;
	}
	__set_bit(bkey, call->uobj_held);
	return 0;
}

static int process_raw_fd(const struct ib_uverbs_attr *uattr,
			  struct uverbs_attr *attr)
{
	if (uattr->attr_data.reserved || uattr->len)
		return -EINVAL;
	if (uattr->data_s64 < INT_MIN || uattr->data_s64 > INT_MAX)
		return -EINVAL;
	/* Read back with uverbs_get_raw_fd(), a signed const. */
	attr->ptr_attr.data = uattr->data;
	return 0;
}

static int process_attr(struct uverbs_call *call, u32 bkey,
			const struct ib_uverbs_attr *uattr)
{
	const struct uverbs_attr_spec *spec = call->method.specs[bkey];
	struct uverbs_attr *attr = &call->bundle.attrs[bkey];

	switch (spec->type) {
	case UVERBS_ATTR_TYPE_PTR_IN:
	case UVERBS_ATTR_TYPE_PTR_OUT:
		if (uattr->attr_data.reserved)
			return -EINVAL;
		return process_ptr(call, spec, uattr, attr);
	case UVERBS_ATTR_TYPE_ENUM_IN:
		return process_enum(call, spec, uattr, attr);
	case UVERBS_ATTR_TYPE_IDR:
	case UVERBS_ATTR_TYPE_FD:
		return process_uobj(call, bkey, spec, uattr, attr);
	case UVERBS_ATTR_TYPE_IDRS_ARRAY:
		return process_uobj_array(call, bkey, spec, uattr, attr);
	case UVERBS_ATTR_TYPE_RAW_FD:
		return process_raw_fd(uattr, attr);
	default:
		return -EOPNOTSUPP;
	}
}

static int parse_attrs(struct uverbs_call *call, u16 num_attrs)
{
	struct uverbs_attr_bundle *bundle = &call->bundle;
	u16 i;
	int ret;

	for (i = 0; i < num_attrs; i++) {
		const struct ib_uverbs_attr *uattr = &call->uattrs[i];
		u32 key = uapi_key_attr(uattr->attr_id);
		u32 bkey = uapi_bkey_attr(key);

		if (key == UVERBS_API_KEY_ERR || bkey >= call->method.num_bkeys ||
		    !call->method.specs[bkey]) {
			/* Unknown: the caller says whether it may be skipped. */
			if (uattr->flags & UVERBS_ATTR_F_MANDATORY)
				return -EPROTONOSUPPORT;
			continue;
		}
		if (test_bit(bkey, bundle->attr_present))
			return -EINVAL;

		ret = process_attr(call, bkey, uattr);
		if (ret)
			return ret;
		__set_bit(bkey, bundle->attr_present);
	}

	if (!bitmap_subset(call->method.mandatory, bundle->attr_present,
			   UVERBS_API_ATTR_BKEY_LEN))
		return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Running                                                          */

/* Commit (@success) or undo what the attributes' uobjects hold. */
static void finalize_uobjs(struct uverbs_call *call, bool success)
{
	unsigned int bkey;

	for_each_set_bit(bkey, call->uobj_held, UVERBS_API_ATTR_BKEY_LEN) {
		const struct uverbs_attr_spec *spec = call->method.specs[bkey];
		struct uverbs_attr *attr = &call->bundle.attrs[bkey];
		struct ib_uobject *uobj = attr->obj_attr.uobject;

		if (spec->type == UVERBS_ATTR_TYPE_IDRS_ARRAY) {
			put_uobj_array(&attr->objs_arr_attr,
				       lookup_mode(spec->u2.objs_arr.access));
			continue;
		}

		switch (spec->u.obj.access) {
		case UVERBS_ACCESS_NEW:
			if (success)
				rdma_alloc_commit_uobject(uobj, &call->bundle);
			else
				rdma_alloc_abort_uobject(uobj, &call->bundle,
							 test_bit(bkey, call->hw_obj_valid));
			break;
		case UVERBS_ACCESS_DESTROY:
			uobj_put_destroy(uobj);
			break;
		default:
			rdma_lookup_put_uobject(uobj,
						lookup_mode(spec->u.obj.access));
			break;
		}
	}
}

/*
 * The object a DESTROY attribute names goes before the handler runs:
 * the handler answers from the uobject, which stays readable until
 * finalize_uobjs() puts it.
 *
 * It is destroyed under the exclusive claim parse_attrs() took, never
 * looked up again by handle: a handle freed and reused meanwhile cannot
 * make us destroy the newer object.
 */
static int destroy_uobj(struct uverbs_call *call)
{
	int bkey = call->method.destroy_bkey;
	struct uverbs_obj_attr *o_attr;

	if (bkey < 0 || !test_bit(bkey, call->bundle.attr_present))
		return 0;
	o_attr = &call->bundle.attrs[bkey].obj_attr;
	/* Claimed while parsing: put back by the finalisation either way. */
	return uverbs_destroy_claimed_uobject(o_attr->uobject, &call->bundle);
}

static int run_method(struct uverbs_call *call, u16 num_attrs)
{
	struct uverbs_attr_bundle *bundle = &call->bundle;
	int ret;

	ret = parse_attrs(call, num_attrs);
	if (ret)
		goto out;

	if (call->method.has_udata)
		uverbs_fill_udata(bundle, &bundle->driver_udata,
				  UVERBS_ATTR_UHW_IN, UVERBS_ATTR_UHW_OUT);

	ret = destroy_uobj(call);
	if (ret)
		goto out;

	ret = call->method.handler(bundle);
	/*
	 * -EPROTONOSUPPORT would make userspace believe the method does
	 * not exist and stop trying it: not a handler's answer.
	 */
	if (ret == -EPROTONOSUPPORT)
		ret = -EINVAL;

	/* Drivers answer through udata without telling us: assume they did. */
	if (!ret && call->method.has_udata &&
	    uverbs_attr_is_valid(bundle, UVERBS_ATTR_UHW_OUT))
		ret = uverbs_set_valid_output(bundle, UVERBS_ATTR_UHW_OUT);
out:
	finalize_uobjs(call, !ret);
	return ret;
}

static void free_call(struct uverbs_call *call)
{
	struct uverbs_call_alloc *alloc, *tmp;

	list_for_each_entry_safe(alloc, tmp, &call->allocs, list)
		kvfree(alloc);
	kfree(call->uattrs);
	kfree(call);
}

/*
 * Set up @call for the method the header names, with @ib_dev live.
 * Return: 0, or the errno of the call.
 */
static int prepare_call(struct uverbs_call *call,
			const struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_ucontext *ucontext;
	int ret;

	/* The userspace provider must be the one for this device. */
	if (hdr->driver_id != call->ib_dev->ops.driver_id)
		return -EINVAL;

	ret = uverbs_uapi_get_method(call->bundle.ufile->device, call->ib_dev,
				     hdr->object_id,
				     hdr->method_id, &call->method);
	if (ret)
		return ret;

	/* Objects can only be created in a context; none is fine here. */
	ucontext = ib_uverbs_get_ucontext_file(call->bundle.ufile);
	call->bundle.context = IS_ERR(ucontext) ? NULL : ucontext;

	if (!hdr->num_attrs)
		return 0;
	call->uattrs = memdup_user(call->user_attrs,
				   array_size(hdr->num_attrs,
					      sizeof(*call->user_attrs)));
	if (IS_ERR(call->uattrs)) {
		ret = PTR_ERR(call->uattrs);
		call->uattrs = NULL;
		return ret;
	}
	return 0;
}

/*
 * Once the device is gone, the destroy methods of the core objects still
 * run, as on stock: userspace cleaning up after IB_EVENT_DEVICE_FATAL
 * (libibverbs fails a destroy that answers EIO, and keeps its side of
 * the object) destroys what the disassociation already did, which drops
 * the handle and answers the event counts.  Everything else answers EIO.
 * The context is gone, and the driver's definitions with it; the check
 * of ucontext under its lock orders this after the disassociation of
 * the file, which clears it once every object is destroyed.
 */
static int prepare_disassociated_call(struct uverbs_call *call,
				      const struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_file *file = call->bundle.ufile;
	int ret;

	if (!uverbs_file_disassociated(file))
		return -EIO;

	ret = uverbs_uapi_get_method(file->device, NULL, hdr->object_id,
				     hdr->method_id, &call->method);
	if (ret || call->method.destroy_bkey < 0)
		return -EIO;

	if (!hdr->num_attrs)
		return 0;
	call->uattrs = memdup_user(call->user_attrs,
				   array_size(hdr->num_attrs,
					      sizeof(*call->user_attrs)));
	if (IS_ERR(call->uattrs)) {
		ret = PTR_ERR(call->uattrs);
		call->uattrs = NULL;
		return ret;
	}
	return 0;
}

static long uverbs_ioctl_dispatch(struct ib_uverbs_file *file,
				  const struct ib_uverbs_ioctl_hdr *hdr,
				  struct ib_uverbs_attr __user *user_attrs)
{
	struct uverbs_call *call;
	int srcu_key;
	long ret;

	/* Room for every attribute a method can have: about 1 KiB. */
	call = kzalloc(struct_size(call, bundle.attrs,
				   UVERBS_API_ATTR_BKEY_LEN), GFP_KERNEL);
	if (!call)
		return -ENOMEM;
	call->user_attrs = user_attrs;
	call->bundle.ufile = file;
	INIT_LIST_HEAD(&call->allocs);

	call->ib_dev = uverbs_enter_device(file->device, &srcu_key);
	if (call->ib_dev)
		ret = prepare_call(call, hdr);
	else
		ret = prepare_disassociated_call(call, hdr);
	if (!ret)
		ret = run_method(call, hdr->num_attrs);
	uverbs_exit_device(file->device, srcu_key);

	free_call(call);
	return ret;
}

long ib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct ib_uverbs_ioctl_hdr __user *user_hdr = (void __user *)arg;
	struct ib_uverbs_file *file = filp->private_data;
	struct ib_uverbs_ioctl_hdr hdr;

	if (cmd != RDMA_VERBS_IOCTL)
		return -ENOIOCTLCMD;

	if (copy_from_user(&hdr, user_hdr, sizeof(hdr)))
		return -EFAULT;

	/* The whole request is one page at most, attributes included. */
	if (hdr.length > PAGE_SIZE ||
	    hdr.length != struct_size(&hdr, attrs, hdr.num_attrs))
		return -EINVAL;

	/* Set by a newer userspace for something we do not know. */
	if (hdr.reserved1 || hdr.reserved2)
		return -EPROTONOSUPPORT;

	return uverbs_ioctl_dispatch(file, &hdr, user_hdr->attrs);
}

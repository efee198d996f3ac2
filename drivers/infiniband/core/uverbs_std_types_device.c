// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl methods of UVERBS_OBJECT_DEVICE.
 *
 * INVOKE_WRITE carries any write() command: libibverbs probes it when it
 * opens a device and, finding it, sends every legacy command this way.
 * QUERY_PORT, QUERY_GID_TABLE and QUERY_GID_ENTRY answer what the
 * write() command or sysfs would, in the richer ioctl structures.
 * QUERY_CONTEXT repeats what GET_CONTEXT answered, on devices whose
 * driver has query_ucontext.  GET_CONTEXT (with
 * its companion ASYNC_EVENT_ALLOC) and INFO_HANDLES are not here:
 * userspace falls back to the write() command, or does without.
 */

#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_verbs.h>

#include "uverbs.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

/* ---------------------------------------------------------------- */
/* INVOKE_WRITE                                                     */

/*
 * The command's core request and response are CORE_IN and CORE_OUT, the
 * driver's data UHW_IN and UHW_OUT (already in driver_udata).  A legacy
 * request still begins with its response address, which is ignored.
 * Without CORE_IN the request is empty: libibverbs probes the method
 * that way and expects -ENOSPC from the command, as stock answers.
 */
static int UVERBS_HANDLER(UVERBS_METHOD_INVOKE_WRITE)(struct uverbs_attr_bundle *attrs)
{
	u32 command;
	int ret;

	ret = uverbs_get_const(&command, attrs, UVERBS_ATTR_WRITE_CMD);
	if (ret)
		return ret;

	uverbs_fill_udata(attrs, &attrs->ucore, UVERBS_ATTR_CORE_IN,
			  UVERBS_ATTR_CORE_OUT);
	ret = uverbs_invoke_write(attrs, uverbs_attrs_ib_dev(attrs), command);
	if (ret)
		return ret;

	/* The command wrote its answer straight to the buffer. */
	if (attrs->ucore.outlen)
		return uverbs_set_valid_output(attrs, UVERBS_ATTR_CORE_OUT);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_INVOKE_WRITE,
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_WRITE_CMD,
						 enum ib_uverbs_write_cmds,
						 UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CORE_IN,
					       UVERBS_ATTR_MIN_SIZE(sizeof(u32)),
					       UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CORE_OUT,
						UVERBS_ATTR_MIN_SIZE(0),
						UA_OPTIONAL),
			    UVERBS_ATTR_UHW());

/* ---------------------------------------------------------------- */
/* QUERY_PORT                                                       */

static struct ib_device *
uverbs_context_device(const struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ucontext = ib_uverbs_get_ucontext(attrs);

	if (IS_ERR(ucontext))
		return ERR_CAST(ucontext);
	return ucontext->device;
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_PORT)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_port_resp_ex resp = {};
	struct ib_port_attr attr;
	struct ib_device *ib_dev;
	u8 port_num;
	int ret;

	ib_dev = uverbs_context_device(attrs);
	if (IS_ERR(ib_dev))
		return PTR_ERR(ib_dev);
	if (!ib_dev->ops.query_port)
		return -EOPNOTSUPP;

	ret = uverbs_get_const(&port_num, attrs,
			       UVERBS_ATTR_QUERY_PORT_PORT_NUM);
	if (ret)
		return ret;

	ret = ib_query_port(ib_dev, port_num, &attr);
	if (ret)
		return ret;

	uverbs_copy_port_attr(ib_dev, port_num, &attr, &resp.legacy_resp);
	resp.port_cap_flags2 = attr.port_cap_flags2;
	return uverbs_copy_to_struct_or_zero(attrs, UVERBS_ATTR_QUERY_PORT_RESP,
					     &resp, sizeof(resp));
}

/* The whole answer is known: a longer buffer gets zeros past it. */
#define QUERY_PORT_RESP_SPEC \
	UVERBS_ATTR_STRUCT(struct ib_uverbs_query_port_resp_ex, reserved)

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QUERY_PORT,
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_QUERY_PORT_PORT_NUM,
						 u8,
						 UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_PORT_RESP,
						QUERY_PORT_RESP_SPEC,
						UA_MANDATORY));

/* ---------------------------------------------------------------- */
/* QUERY_CONTEXT                                                    */

/*
 * What GET_CONTEXT answered, for a process that got the context another
 * way (ibv_import_device()), plus the driver's own attributes.  As on
 * stock, a driver without query_ucontext (rxe) answers -EOPNOTSUPP.
 * Optional MR access bits are accepted by REG_MR (ib_check_mr_access()),
 * so that support is reported.
 */
static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_CONTEXT)(struct uverbs_attr_bundle *attrs)
{
	u64 core_support = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
	struct ib_ucontext *ucontext;
	u32 num_comp_vectors;
	int ret;

	ucontext = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(ucontext))
		return PTR_ERR(ucontext);
	/* Only drivers with something of their own to say answer it. */
	if (!ucontext->device->ops.query_ucontext)
		return -EOPNOTSUPP;

	num_comp_vectors = attrs->ufile->device->num_comp_vectors;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
			     &num_comp_vectors, sizeof(num_comp_vectors));
	if (IS_UVERBS_COPY_ERR(ret))
		return ret;

	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
			     &core_support, sizeof(core_support));
	if (IS_UVERBS_COPY_ERR(ret))
		return ret;

	/* The driver answers its own attributes of the method. */
	return ucontext->device->ops.query_ucontext(ucontext, attrs);
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QUERY_CONTEXT,
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
						UVERBS_ATTR_TYPE(u32),
						UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
						UVERBS_ATTR_TYPE(u64),
						UA_OPTIONAL));

/* ---------------------------------------------------------------- */
/* QUERY_GID_TABLE, QUERY_GID_ENTRY                                 */

/*
 * Answer @num entries in userspace's entry size: a longer entry gets
 * zeros past ours, a shorter one our first bytes (the fields it knows).
 */
static int copy_gid_entries(struct uverbs_attr_bundle *attrs,
			    const struct ib_uverbs_gid_entry *entries,
			    size_t num, size_t user_entry_size)
{
	const struct uverbs_attr *attr;
	u8 __user *dst;
	size_t i;

	if (user_entry_size == sizeof(*entries))
		return uverbs_copy_to(attrs,
				      UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
				      entries, array_size(num, sizeof(*entries)));

	attr = uverbs_attr_get(attrs, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	dst = u64_to_user_ptr(attr->ptr_attr.data);
	for (i = 0; i < num; i++, dst += user_entry_size) {
		size_t len = min(user_entry_size, sizeof(*entries));

		if (copy_to_user(dst, &entries[i], len))
			return -EFAULT;
		if (user_entry_size > len &&
		    clear_user(dst + len, user_entry_size - len))
			return -EFAULT;
	}
	return uverbs_set_valid_output(attrs,
				       UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES);
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_GID_TABLE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_gid_entry *entries;
	struct ib_device *ib_dev;
	size_t user_entry_size;
	ssize_t num_entries;
	int max_entries;
	u64 num_answered;
	u32 flags;
	int ret;

	ret = uverbs_get_flags32(&flags, attrs,
				 UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0);
	if (ret)
		return ret;

	ret = uverbs_get_const(&user_entry_size, attrs,
			       UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE);
	if (ret)
		return ret;
	if (!user_entry_size)
		return -EINVAL;

	max_entries = uverbs_attr_ptr_get_array_size(attrs,
						     UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
						     user_entry_size);
	if (max_entries <= 0)
		return max_entries ?: -EINVAL;

	ib_dev = uverbs_context_device(attrs);
	if (IS_ERR(ib_dev))
		return PTR_ERR(ib_dev);

	entries = uverbs_kcalloc(attrs, max_entries, sizeof(*entries));
	if (IS_ERR(entries))
		return PTR_ERR(entries);

	num_entries = rdma_query_gid_table(ib_dev, entries, max_entries);
	if (num_entries < 0)
		return num_entries;

	ret = copy_gid_entries(attrs, entries, num_entries, user_entry_size);
	if (ret)
		return ret;

	num_answered = num_entries;
	return uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
			      &num_answered, sizeof(num_answered));
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QUERY_GID_TABLE,
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
						 u64,
						 UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS,
						 u32,
						 UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
						UVERBS_ATTR_MIN_SIZE(0),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
						UVERBS_ATTR_TYPE(u64),
						UA_MANDATORY));

static u32 uverbs_gid_type(enum ib_gid_type type)
{
	switch (type) {
	case IB_GID_TYPE_ROCE:
		return IB_UVERBS_GID_TYPE_ROCE_V1;
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		return IB_UVERBS_GID_TYPE_ROCE_V2;
	default:
		return IB_UVERBS_GID_TYPE_IB;
	}
}

/* The netdev a GID belongs to; 0 for a GID without one (IB). */
static int gid_netdev_ifindex(const struct ib_gid_attr *gid_attr, u32 *ifindex)
{
	struct net_device *ndev;
	int ret = 0;

	*ifindex = 0;
	if (!rdma_protocol_roce(gid_attr->device, gid_attr->port_num))
		return 0;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(gid_attr);
	if (IS_ERR(ndev))
		ret = PTR_ERR(ndev);
	else
		*ifindex = ndev->ifindex;
	rcu_read_unlock();
	return ret;
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_GID_ENTRY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_gid_entry entry = {};
	const struct ib_gid_attr *gid_attr;
	struct ib_device *ib_dev;
	u32 gid_index;
	u32 port_num;
	u32 flags;
	int ret;

	ret = uverbs_get_flags32(&flags, attrs,
				 UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0);
	if (ret)
		return ret;
	ret = uverbs_get_const(&port_num, attrs,
			       UVERBS_ATTR_QUERY_GID_ENTRY_PORT);
	if (ret)
		return ret;
	ret = uverbs_get_const(&gid_index, attrs,
			       UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX);
	if (ret)
		return ret;

	ib_dev = uverbs_context_device(attrs);
	if (IS_ERR(ib_dev))
		return PTR_ERR(ib_dev);
	if (!rdma_is_port_valid(ib_dev, port_num) || gid_index > INT_MAX)
		return -EINVAL;

	gid_attr = rdma_get_gid_attr(ib_dev, port_num, gid_index);
	if (IS_ERR(gid_attr))
		return PTR_ERR(gid_attr);

	memcpy(entry.gid, gid_attr->gid.raw, sizeof(entry.gid));
	entry.gid_index = gid_attr->index;
	entry.port_num = gid_attr->port_num;
	entry.gid_type = uverbs_gid_type(gid_attr->gid_type);
	ret = gid_netdev_ifindex(gid_attr, &entry.netdev_ifindex);
	rdma_put_gid_attr(gid_attr);
	if (ret)
		return ret;

	return uverbs_copy_to_struct_or_zero(attrs,
					     UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
					     &entry, sizeof(entry));
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QUERY_GID_ENTRY,
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_QUERY_GID_ENTRY_PORT,
						 u32,
						 UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX,
						 u32,
						 UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS,
						 u32,
						 UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
						UVERBS_ATTR_STRUCT(struct ib_uverbs_gid_entry,
								   netdev_ifindex),
						UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_DEVICE,
			      &UVERBS_METHOD(UVERBS_METHOD_INVOKE_WRITE),
			      &UVERBS_METHOD(UVERBS_METHOD_QUERY_PORT),
			      &UVERBS_METHOD(UVERBS_METHOD_QUERY_CONTEXT),
			      &UVERBS_METHOD(UVERBS_METHOD_QUERY_GID_TABLE),
			      &UVERBS_METHOD(UVERBS_METHOD_QUERY_GID_ENTRY));

const struct uapi_definition uverbs_def_obj_device[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_DEVICE),
	{},
};

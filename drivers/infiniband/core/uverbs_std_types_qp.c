// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl method QP_CREATE.
 *
 * The framework reserves the new handle and holds the XRC domain, PD,
 * CQs and SRQ named for reading; uverbs_create_qp() does the rest, as
 * for the write() command.  Receive WQ indirection tables are not taken
 * here, so their attribute is not defined: userspace falls back to the
 * write() command when it needs them.
 */

#include <linux/capability.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs_write.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

/* The flags of the ioctl form; the same bits as IB_QP_CREATE_*, but one. */
#define UVERBS_QP_CREATE_IOCTL_FLAGS				\
	(IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |		\
	 IB_UVERBS_QP_CREATE_SCATTER_FCS |			\
	 IB_UVERBS_QP_CREATE_CVLAN_STRIPPING |			\
	 IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING |		\
	 IB_UVERBS_QP_CREATE_SQ_SIG_ALL)

static struct ib_uobject *qp_attr_uobj(struct uverbs_attr_bundle *attrs,
				       u16 idx)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, idx);

	return IS_ERR(uobj) ? NULL : uobj;
}

/* The types stock's ioctl creates. */
static int qp_check_type(enum ib_qp_type qp_type)
{
	switch (qp_type) {
	case IB_QPT_RAW_PACKET:
		return capable(CAP_NET_RAW) ? 0 : -EPERM;
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
	case IB_QPT_DRIVER:
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * As stock's ioctl answers: creation flags are for UD and raw packet
 * QPs (any for driver QPs), the Ethernet ones for raw packet QPs only.
 */
static int qp_check_flags(enum ib_qp_type qp_type, u32 create_flags)
{
	if (!create_flags || qp_type == IB_QPT_DRIVER)
		return 0;
	if (qp_type != IB_QPT_UD && qp_type != IB_QPT_RAW_PACKET)
		return -EINVAL;
	if (create_flags & (IB_QP_CREATE_SCATTER_FCS |
			    IB_QP_CREATE_CVLAN_STRIPPING) &&
	    qp_type != IB_QPT_RAW_PACKET)
		return -EINVAL;
	return 0;
}

static int qp_create_flags(struct uverbs_attr_bundle *attrs,
			   struct uverbs_qp_create_params *params)
{
	u32 flags;
	int ret;

	ret = uverbs_get_flags32(&flags, attrs, UVERBS_ATTR_CREATE_QP_FLAGS,
				 UVERBS_QP_CREATE_IOCTL_FLAGS);
	if (ret)
		return ret;
	/* Not a creation flag of the QP: how it signals. */
	params->sq_sig_all = flags & IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	params->create_flags = flags & ~IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	ret = qp_check_flags(params->qp_type, params->create_flags);
	if (ret)
		return ret;

	/*
	 * A source QPN is its own attribute here.  It lets the QP send as
	 * another QP number (as IPoIB does), so it takes CAP_NET_RAW as on the
	 * write() command: refused before the driver sees the request,
	 * whatever it would answer of the flag.  Stock 6.1's ioctl lacks
	 * this check and passes the request to the driver.
	 */
	if (uverbs_attr_is_valid(attrs, UVERBS_ATTR_CREATE_QP_SOURCE_QPN)) {
		if (!capable(CAP_NET_RAW))
			return -EPERM;
		ret = uverbs_copy_from(&params->source_qpn, attrs,
				       UVERBS_ATTR_CREATE_QP_SOURCE_QPN);
		if (ret)
			return ret;
		params->create_flags |= IB_QP_CREATE_SOURCE_QPN;
	}
	return 0;
}

static int qp_create_params(struct uverbs_attr_bundle *attrs,
			    struct uverbs_qp_create_params *params)
{
	struct ib_uverbs_qp_cap cap;
	u32 qp_type;
	int ret;

	/* IB_UVERBS_QPT_* are the IB_QPT_* values. */
	ret = uverbs_get_const(&qp_type, attrs, UVERBS_ATTR_CREATE_QP_TYPE);
	params->qp_type = qp_type;
	if (!ret)
		ret = qp_check_type(params->qp_type);
	if (!ret)
		ret = uverbs_copy_from(&params->user_handle, attrs,
				       UVERBS_ATTR_CREATE_QP_USER_HANDLE);
	if (!ret)
		ret = uverbs_copy_from(&cap, attrs,
				       UVERBS_ATTR_CREATE_QP_CAP);
	if (!ret)
		ret = qp_create_flags(attrs, params);
	if (!ret)
		ret = ib_uverbs_attr_async_file(attrs,
						UVERBS_ATTR_CREATE_QP_EVENT_FD,
						&params->event_file);
	if (ret)
		return ret;

	params->cap.max_send_wr = cap.max_send_wr;
	params->cap.max_recv_wr = cap.max_recv_wr;
	params->cap.max_send_sge = cap.max_send_sge;
	params->cap.max_recv_sge = cap.max_recv_sge;
	params->cap.max_inline_data = cap.max_inline_data;

	params->xrcd = qp_attr_uobj(attrs, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE);
	params->pd = qp_attr_uobj(attrs, UVERBS_ATTR_CREATE_QP_PD_HANDLE);
	params->send_cq = qp_attr_uobj(attrs,
				       UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE);
	params->recv_cq = qp_attr_uobj(attrs,
				       UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE);
	params->srq = qp_attr_uobj(attrs, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE);
	params->rwq_ind_tbl =
		qp_attr_uobj(attrs, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE);
	return 0;
}

static int qp_create_answer(struct uverbs_attr_bundle *attrs,
			    const struct uverbs_qp_create_params *params,
			    const struct ib_qp *qp)
{
	struct ib_uverbs_qp_cap cap = {
		.max_send_wr = params->cap.max_send_wr,
		.max_recv_wr = params->cap.max_recv_wr,
		.max_send_sge = params->cap.max_send_sge,
		.max_recv_sge = params->cap.max_recv_sge,
		.max_inline_data = params->cap.max_inline_data,
	};
	int ret;

	ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_QP_RESP_CAP, &cap,
			     sizeof(cap));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM,
			      &qp->qp_num, sizeof(qp->qp_num));
}

static int UVERBS_HANDLER(UVERBS_METHOD_QP_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_QP_HANDLE);
	struct ib_uqp_object *uqp =
		container_of(uobj, struct ib_uqp_object, uevent.uobject);
	struct uverbs_qp_create_params params = {};
	int ret;

	ret = qp_create_params(attrs, &params);
	if (ret)
		return ret;

	ret = uverbs_create_qp(attrs, uverbs_attrs_ib_dev(attrs), uqp,
			       &params);
	/* The object holds its own reference. */
	ib_uverbs_async_file_put(params.event_file);
	if (ret)
		return ret;
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_CREATE_QP_HANDLE);

	return qp_create_answer(attrs, &params, uobj->object);
}

/*
 * EVENT_FD is a raw fd: the async event file of write()'s GET_CONTEXT
 * is no uobject, so the handler finds the event file itself.
 */
DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QP_CREATE,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_QP_HANDLE,
					    UVERBS_OBJECT_QP,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_QP_XRCD_HANDLE,
					    UVERBS_OBJECT_XRCD,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_QP_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE,
					    UVERBS_OBJECT_SRQ,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE,
					    UVERBS_OBJECT_CQ,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE,
					    UVERBS_OBJECT_CQ,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE,
					    UVERBS_OBJECT_RWQ_IND_TBL,
					    UVERBS_ACCESS_READ,
					    UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_QP_USER_HANDLE,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_QP_CAP,
					       UVERBS_ATTR_STRUCT(struct ib_uverbs_qp_cap,
								  max_inline_data),
					       UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_CREATE_QP_TYPE,
						 enum ib_uverbs_qp_type,
						 UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_CREATE_QP_FLAGS,
						 enum ib_uverbs_qp_create_flags,
						 UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_QP_SOURCE_QPN,
					       UVERBS_ATTR_TYPE(u32),
					       UA_OPTIONAL),
			    UVERBS_ATTR_RAW_FD(UVERBS_ATTR_CREATE_QP_EVENT_FD,
					       UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_QP_RESP_CAP,
						UVERBS_ATTR_STRUCT(struct ib_uverbs_qp_cap,
								   max_inline_data),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_UHW());

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_QP,
			      &UVERBS_METHOD(UVERBS_METHOD_QP_CREATE));

const struct uapi_definition uverbs_def_obj_qp[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_QP,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_qp)),
	{},
};

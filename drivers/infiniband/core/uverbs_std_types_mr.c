// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the ioctl methods of MRs besides destroy
 * (uverbs_ioctl_destroy.c): QUERY_MR, ADVISE_MR, and the registrations
 * write() has no command for, of device memory (DM_MR_REG) and of a
 * dma-buf (REG_DMABUF_MR).
 *
 * The methods exist wherever MRs do; one whose driver op is missing
 * answers -EOPNOTSUPP once its attributes are good, as on stock (rxe has
 * neither advise_mr nor reg_user_mr_dmabuf).  DM_MR_REG needs a DM
 * handle, so it does not exist where DM does not (-EPROTONOSUPPORT).
 *
 * A new MR holds its PD (and its DM), as one made by write() does.
 */

#include <linux/mm.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_std_types.h>

#include "core_priv.h"
#include "uverbs.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

/* The restrack entry and uses of an MR a driver just made for @uobj. */
static void mr_created(struct ib_mr *mr, struct ib_pd *pd,
		       struct ib_uobject *uobj, enum ib_mr_type type)
{
	mr->device = pd->device;
	mr->pd = pd;
	mr->type = type;
	mr->uobject = uobj;
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_set_name(&mr->res, NULL);
	rdma_restrack_add(&mr->res);
	uobj->object = mr;
}

static int mr_answer_keys(struct uverbs_attr_bundle *attrs, struct ib_mr *mr,
			  u16 lkey_idx, u16 rkey_idx)
{
	int ret;

	ret = uverbs_copy_to(attrs, lkey_idx, &mr->lkey, sizeof(mr->lkey));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, rkey_idx, &mr->rkey, sizeof(mr->rkey));
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_MR)(struct uverbs_attr_bundle *attrs)
{
	struct ib_mr *mr = uverbs_attr_get_obj(attrs, UVERBS_ATTR_QUERY_MR_HANDLE);
	int ret;

	ret = mr_answer_keys(attrs, mr, UVERBS_ATTR_QUERY_MR_RESP_LKEY,
			     UVERBS_ATTR_QUERY_MR_RESP_RKEY);
	if (!ret)
		ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_MR_RESP_LENGTH,
				     &mr->length, sizeof(mr->length));
	if (ret)
		return ret;
	/* Optional: absent is no error. */
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_MR_RESP_IOVA, &mr->iova,
			     sizeof(mr->iova));
	return IS_UVERBS_COPY_ERR(ret) ? ret : 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_ADVISE_MR)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uverbs_attr_get_obj(attrs,
					       UVERBS_ATTR_ADVISE_MR_PD_HANDLE);
	enum ib_uverbs_advise_mr_advice advice;
	struct ib_device *ib_dev = pd->device;
	struct ib_sge *sg_list;
	int num_sge;
	u32 flags;
	int ret;

	if (!ib_dev->ops.advise_mr)
		return -EOPNOTSUPP;

	ret = uverbs_get_const(&advice, attrs, UVERBS_ATTR_ADVISE_MR_ADVICE);
	if (ret)
		return ret;
	ret = uverbs_get_flags32(&flags, attrs, UVERBS_ATTR_ADVISE_MR_FLAGS,
				 IB_UVERBS_ADVISE_MR_FLAG_FLUSH);
	if (ret)
		return ret;

	/* struct ib_uverbs_sge and struct ib_sge are the same layout. */
	num_sge = uverbs_attr_ptr_get_array_size(attrs,
						 UVERBS_ATTR_ADVISE_MR_SGE_LIST,
						 sizeof(struct ib_sge));
	if (num_sge <= 0)
		return num_sge;
	sg_list = uverbs_attr_get_alloced_ptr(attrs,
					      UVERBS_ATTR_ADVISE_MR_SGE_LIST);
	return ib_dev->ops.advise_mr(pd, advice, flags, sg_list, num_sge,
				     attrs);
}

static int UVERBS_HANDLER(UVERBS_METHOD_DM_MR_REG)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_REG_DM_MR_HANDLE);
	struct ib_dm *dm = uverbs_attr_get_obj(attrs,
					       UVERBS_ATTR_REG_DM_MR_DM_HANDLE);
	struct ib_pd *pd = uverbs_attr_get_obj(attrs,
					       UVERBS_ATTR_REG_DM_MR_PD_HANDLE);
	struct ib_device *ib_dev = pd->device;
	struct ib_dm_mr_attr attr = {};
	struct ib_mr *mr;
	int ret;

	if (!ib_dev->ops.reg_dm_mr)
		return -EOPNOTSUPP;

	ret = uverbs_copy_from(&attr.offset, attrs,
			       UVERBS_ATTR_REG_DM_MR_OFFSET);
	if (!ret)
		ret = uverbs_copy_from(&attr.length, attrs,
				       UVERBS_ATTR_REG_DM_MR_LENGTH);
	if (!ret)
		ret = uverbs_get_flags32(&attr.access_flags, attrs,
					 UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS,
					 IB_ACCESS_SUPPORTED);
	if (ret)
		return ret;

	/* Device memory has no user address: zero-based only. */
	if (!(attr.access_flags & IB_ZERO_BASED))
		return -EINVAL;
	ret = ib_check_mr_access(ib_dev, attr.access_flags);
	if (ret)
		return ret;
	if (attr.offset > dm->length || attr.length > dm->length ||
	    attr.length > dm->length - attr.offset)
		return -EINVAL;

	mr = ib_dev->ops.reg_dm_mr(pd, dm, &attr, attrs);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	mr->dm = dm;
	atomic_inc(&dm->usecnt);
	mr_created(mr, pd, uobj, IB_MR_TYPE_DM);
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_REG_DM_MR_HANDLE);

	return mr_answer_keys(attrs, mr, UVERBS_ATTR_REG_DM_MR_RESP_LKEY,
			      UVERBS_ATTR_REG_DM_MR_RESP_RKEY);
}

static int UVERBS_HANDLER(UVERBS_METHOD_REG_DMABUF_MR)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
	struct ib_pd *pd = uverbs_attr_get_obj(attrs,
					       UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE);
	struct ib_device *ib_dev = pd->device;
	u64 offset, length, iova;
	u32 fd, access_flags;
	struct ib_mr *mr;
	int ret;

	if (!ib_dev->ops.reg_user_mr_dmabuf)
		return -EOPNOTSUPP;

	ret = uverbs_copy_from(&offset, attrs, UVERBS_ATTR_REG_DMABUF_MR_OFFSET);
	if (!ret)
		ret = uverbs_copy_from(&length, attrs,
				       UVERBS_ATTR_REG_DMABUF_MR_LENGTH);
	if (!ret)
		ret = uverbs_copy_from(&iova, attrs,
				       UVERBS_ATTR_REG_DMABUF_MR_IOVA);
	if (ret)
		return ret;
	/* The HCA address must sit at the same offset in its page. */
	if ((offset & ~PAGE_MASK) != (iova & ~PAGE_MASK))
		return -EINVAL;

	ret = uverbs_copy_from(&fd, attrs, UVERBS_ATTR_REG_DMABUF_MR_FD);
	if (!ret)
		ret = uverbs_get_flags32(&access_flags, attrs,
					 UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS,
					 IB_ACCESS_LOCAL_WRITE |
					 IB_ACCESS_REMOTE_READ |
					 IB_ACCESS_REMOTE_WRITE |
					 IB_ACCESS_REMOTE_ATOMIC |
					 IB_ACCESS_RELAXED_ORDERING);
	if (ret)
		return ret;
	ret = ib_check_mr_access(ib_dev, access_flags);
	if (ret)
		return ret;

	mr = ib_dev->ops.reg_user_mr_dmabuf(pd, offset, length, iova, fd,
					    access_flags,
					    &attrs->driver_udata);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	mr_created(mr, pd, uobj, IB_MR_TYPE_USER);
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_REG_DMABUF_MR_HANDLE);

	return mr_answer_keys(attrs, mr, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY,
			      UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY);
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QUERY_MR,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_QUERY_MR_HANDLE,
					    UVERBS_OBJECT_MR,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_MR_RESP_RKEY,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_MR_RESP_LKEY,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_MR_RESP_LENGTH,
						UVERBS_ATTR_TYPE(u64),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_MR_RESP_IOVA,
						UVERBS_ATTR_TYPE(u64),
						UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_ADVISE_MR,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_ADVISE_MR_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_ADVISE_MR_ADVICE,
						 enum ib_uverbs_advise_mr_advice,
						 UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_ADVISE_MR_FLAGS,
						 enum ib_uverbs_advise_mr_flag,
						 UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_ADVISE_MR_SGE_LIST,
					       UVERBS_ATTR_MIN_SIZE(sizeof(struct ib_uverbs_sge)),
					       UA_MANDATORY,
					       UA_ALLOC_AND_COPY));

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_DM_MR_REG,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_REG_DM_MR_HANDLE,
					    UVERBS_OBJECT_MR,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_REG_DM_MR_OFFSET,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_REG_DM_MR_LENGTH,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_REG_DM_MR_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS,
						 enum ib_access_flags),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_REG_DM_MR_DM_HANDLE,
					    UVERBS_OBJECT_DM,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_REG_DM_MR_RESP_LKEY,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_REG_DM_MR_RESP_RKEY,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_REG_DMABUF_MR,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_REG_DMABUF_MR_HANDLE,
					    UVERBS_OBJECT_MR,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_REG_DMABUF_MR_OFFSET,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_REG_DMABUF_MR_LENGTH,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_REG_DMABUF_MR_IOVA,
					       UVERBS_ATTR_TYPE(u64),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_REG_DMABUF_MR_FD,
					       UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS,
						 enum ib_access_flags),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_MR,
			      &UVERBS_METHOD(UVERBS_METHOD_QUERY_MR),
			      &UVERBS_METHOD(UVERBS_METHOD_ADVISE_MR),
			      &UVERBS_METHOD(UVERBS_METHOD_DM_MR_REG),
			      &UVERBS_METHOD(UVERBS_METHOD_REG_DMABUF_MR));

/* Gated with MR_DESTROY's tree (uverbs_ioctl_destroy.c), by dereg_mr. */
const struct uapi_definition uverbs_def_obj_mr[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_MR,
				      UAPI_DEF_OBJ_NEEDS_FN(dereg_mr)),
	{},
};

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: memory regions and memory windows.
 *
 * The driver allocates an MR itself (reg_user_mr pins the user memory);
 * an MW is allocated by the core for the driver to set up.  Both hold
 * their PD (pd->usecnt) until destroyed.
 */

#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_std_types.h>

#include "core_priv.h"
#include "uverbs_write.h"

int ib_uverbs_reg_mr(struct uverbs_attr_bundle *attrs, struct ib_device *ib_dev)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uverbs_reg_mr cmd;
	struct ib_uobject *pd_uobj;
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	struct ib_mr *mr;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	/* The HCA address must sit at the same offset in its page. */
	if ((cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK))
		return -EINVAL;
	ret = ib_check_mr_access(ib_dev, cmd.access_flags);
	if (ret)
		return ret;

	uobj = rdma_alloc_begin_uobject(&uverbs_mr_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	ret = uverbs_get_read(&uverbs_pd_object, cmd.pd_handle, attrs,
			      &pd_uobj);
	if (ret)
		goto err_uobj;
	pd = pd_uobj->object;

	mr = ib_dev->ops.reg_user_mr(pd, cmd.start, cmd.length, cmd.hca_va,
				     cmd.access_flags, &attrs->driver_udata);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto err_pd;
	}
	mr->device = ib_dev;
	mr->pd = pd;
	mr->type = IB_MR_TYPE_USER;
	mr->dm = NULL;
	mr->sig_attrs = NULL;
	mr->uobject = uobj;
	mr->iova = cmd.hca_va;
	mr->length = cmd.length;
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_set_name(&mr->res, NULL);
	rdma_restrack_add(&mr->res);
	uobj->object = mr;
	uverbs_put_read(pd_uobj);

	resp.mr_handle = uobj->id;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_pd:
	uverbs_put_read(pd_uobj);
err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

/*
 * An MR reregistered in place moves to @new_pd.  A reader of "rdma res"
 * may hold the MR and have loaded mr->pd (nldev, the driver's
 * fill_res_mr_entry): the old PD's count drops only once every such
 * reader is gone, or a DEALLOC_PD racing with the dump would free the PD
 * under it.  The caller holds the MR's uobject for writing, which keeps
 * out a concurrent destroy, as rdma_restrack_sync() requires, and
 * @new_pd's uobject, which keeps it alive until its count is taken.
 */
static void rereg_mr_move_pd(struct ib_mr *mr, struct ib_pd *orig_pd,
			     struct ib_pd *new_pd)
{
	atomic_inc(&new_pd->usecnt);
	WRITE_ONCE(mr->pd, new_pd);
	rdma_restrack_sync(&mr->res);
	atomic_dec(&orig_pd->usecnt);
}

/* Only drivers with rereg_user_mr get here (the table requires it). */
int ib_uverbs_rereg_mr(struct uverbs_attr_bundle *attrs,
		       struct ib_device *ib_dev)
{
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct ib_uobject *pd_uobj = NULL;
	struct ib_uverbs_rereg_mr cmd;
	struct ib_uobject *uobj;
	struct ib_pd *new_pd = NULL;
	struct ib_pd *orig_pd;
	struct ib_mr *new_mr;
	struct ib_mr *mr;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	if (!cmd.flags || (cmd.flags & ~IB_MR_REREG_SUPPORTED))
		return -EINVAL;
	if ((cmd.flags & IB_MR_REREG_TRANS) &&
	    (cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK))
		return -EINVAL;

	uobj = rdma_lookup_get_uobject(&uverbs_mr_object, attrs->ufile,
				       cmd.mr_handle, UVERBS_LOOKUP_WRITE,
				       attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	mr = uobj->object;

	if (cmd.flags & IB_MR_REREG_ACCESS) {
		ret = ib_check_mr_access(ib_dev, cmd.access_flags);
		if (ret)
			goto out;
	}
	if (cmd.flags & IB_MR_REREG_PD) {
		ret = uverbs_get_read(&uverbs_pd_object, cmd.pd_handle, attrs,
				      &pd_uobj);
		if (ret)
			goto out;
		new_pd = pd_uobj->object;
	}

	/*
	 * The PD whose use count the MR holds, before the driver may point
	 * mr->pd at the new one: the count moves from this one.
	 */
	orig_pd = mr->pd;
	new_mr = ib_dev->ops.rereg_user_mr(mr, cmd.flags, cmd.start,
					   cmd.length, cmd.hca_va,
					   cmd.access_flags, new_pd,
					   &attrs->driver_udata);
	if (IS_ERR(new_mr)) {
		/*
		 * The count stays where it was: so does the pointer, and no
		 * reader keeps the PD that holds no count for it.
		 */
		if (mr->pd != orig_pd) {
			WRITE_ONCE(mr->pd, orig_pd);
			rdma_restrack_sync(&mr->res);
		}
		ret = PTR_ERR(new_mr);
		goto out;
	}
	if (new_mr) {
		/*
		 * The driver made a new MR: the handle moves to it and the
		 * old one goes, as if deregistered.
		 */
		new_mr->device = ib_dev;
		new_mr->pd = new_pd ? new_pd : orig_pd;
		new_mr->type = IB_MR_TYPE_USER;
		new_mr->uobject = uobj;
		new_mr->iova = cmd.flags & IB_MR_REREG_TRANS ? cmd.hca_va :
			       mr->iova;
		new_mr->length = cmd.flags & IB_MR_REREG_TRANS ? cmd.length :
				 mr->length;
		atomic_inc(&new_mr->pd->usecnt);
		rdma_restrack_new(&new_mr->res, RDMA_RESTRACK_MR);
		rdma_restrack_set_name(&new_mr->res, NULL);
		rdma_restrack_add(&new_mr->res);
		uobj->object = new_mr;
		/* Its deregistration drops the count it held. */
		mr->pd = orig_pd;
		ib_dereg_mr_user(mr, NULL);
		mr = new_mr;
	} else {
		if (cmd.flags & IB_MR_REREG_PD)
			rereg_mr_move_pd(mr, orig_pd, new_pd);
		if (cmd.flags & IB_MR_REREG_TRANS) {
			mr->iova = cmd.hca_va;
			mr->length = cmd.length;
		}
	}

	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
out:
	if (pd_uobj)
		uverbs_put_read(pd_uobj);
	rdma_lookup_put_uobject(uobj, UVERBS_LOOKUP_WRITE);
	return ret;
}

int ib_uverbs_dereg_mr(struct uverbs_attr_bundle *attrs,
		       struct ib_device *ib_dev)
{
	struct ib_uverbs_dereg_mr cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	return __uobj_perform_destroy(&uverbs_mr_object, cmd.mr_handle, attrs);
}

int ib_uverbs_alloc_mw(struct uverbs_attr_bundle *attrs,
		       struct ib_device *ib_dev)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ib_uverbs_alloc_mw cmd;
	struct ib_uobject *pd_uobj;
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	struct ib_mw *mw;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	if (cmd.mw_type != IB_MW_TYPE_1 && cmd.mw_type != IB_MW_TYPE_2)
		return -EINVAL;

	uobj = rdma_alloc_begin_uobject(&uverbs_mw_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	ret = uverbs_get_read(&uverbs_pd_object, cmd.pd_handle, attrs,
			      &pd_uobj);
	if (ret)
		goto err_uobj;
	pd = pd_uobj->object;

	mw = rdma_zalloc_drv_obj(ib_dev, ib_mw);
	if (!mw) {
		ret = -ENOMEM;
		goto err_pd;
	}
	mw->device = ib_dev;
	mw->pd = pd;
	mw->uobject = uobj;
	mw->type = cmd.mw_type;

	ret = ib_dev->ops.alloc_mw(mw, &attrs->driver_udata);
	if (ret)
		goto err_mw;
	atomic_inc(&pd->usecnt);
	uobj->object = mw;
	uverbs_put_read(pd_uobj);

	resp.mw_handle = uobj->id;
	resp.rkey = mw->rkey;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_mw:
	kfree(mw);
err_pd:
	uverbs_put_read(pd_uobj);
err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

int ib_uverbs_dealloc_mw(struct uverbs_attr_bundle *attrs,
			 struct ib_device *ib_dev)
{
	struct ib_uverbs_dealloc_mw cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	return __uobj_perform_destroy(&uverbs_mw_object, cmd.mw_handle, attrs);
}

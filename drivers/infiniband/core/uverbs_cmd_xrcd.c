// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: the write() commands of XRC domains, OPEN_XRCD and
 * CLOSE_XRCD, and OPEN_QP, which opens a handle of a domain's XRC target
 * QP by number (libibverbs' ibv_open_xrcd(), ibv_close_xrcd(),
 * ibv_open_qp()).  How domains are shared: uverbs_std_types_xrcd.c.
 */

#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "core_priv.h"
#include "uverbs_write.h"

/*
 * The domain the request names, under the device's xrcd_lock: *@xrcd is
 * NULL for a new one (fd -1, or a file no domain was made for yet, with
 * O_CREAT).  Errnos as stock: -EBADF for a bad fd, -EAGAIN for a file
 * without a domain and no O_CREAT, -EINVAL for one with a domain and
 * O_EXCL.
 */
static int xrcd_lookup(struct ib_uverbs_device *udev,
		       const struct ib_uverbs_open_xrcd *cmd,
		       struct inode *inode, struct ib_xrcd **xrcd)
{
	lockdep_assert_held(&udev->xrcd_lock);
	*xrcd = NULL;
	if (!inode)
		return 0;
	*xrcd = uverbs_xrcd_table_find(udev, inode);
	if (!*xrcd && !(cmd->oflags & O_CREAT))
		return -EAGAIN;
	if (*xrcd && (cmd->oflags & O_EXCL))
		return -EINVAL;
	return 0;
}

/*
 * A new domain, listed under @inode when it has one: on failure nothing
 * is left of it.
 */
static struct ib_xrcd *xrcd_new(struct uverbs_attr_bundle *attrs,
				struct ib_device *ib_dev, struct inode *inode)
{
	struct ib_uverbs_device *udev = attrs->ufile->device;
	struct ib_xrcd *xrcd;
	int ret;

	xrcd = ib_alloc_xrcd_user(ib_dev, inode, &attrs->driver_udata);
	if (IS_ERR(xrcd) || !inode)
		return xrcd;
	ret = uverbs_xrcd_table_add(udev, inode, xrcd);
	if (ret) {
		/* The driver's answer went nowhere: it gets no more data. */
		attrs->driver_udata.inlen = 0;
		attrs->driver_udata.outlen = 0;
		WARN_ON(ib_dealloc_xrcd_user(xrcd, &attrs->driver_udata));
		return ERR_PTR(ret);
	}
	return xrcd;
}

int ib_uverbs_open_xrcd(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_device *udev = attrs->ufile->device;
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ib_uverbs_open_xrcd cmd;
	struct ib_uxrcd_object *uxrcd;
	struct inode *inode = NULL;
	struct ib_uobject *uobj;
	struct ib_xrcd *xrcd;
	struct fd f = {};
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	if (cmd.fd != -1) {
		f = fdget(cmd.fd);
		if (!f.file)
			return -EBADF;
		inode = file_inode(f.file);
	}

	/* The lookup and the new opener's count, against the last close. */
	mutex_lock(&udev->xrcd_lock);
	ret = xrcd_lookup(udev, &cmd, inode, &xrcd);
	if (ret)
		goto out_unlock;

	uobj = rdma_alloc_begin_uobject(&uverbs_xrcd_object, attrs);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out_unlock;
	}
	uxrcd = container_of(uobj, struct ib_uxrcd_object, uobject);
	atomic_set(&uxrcd->refcnt, 0);

	if (!xrcd) {
		xrcd = xrcd_new(attrs, ib_dev, inode);
		if (IS_ERR(xrcd)) {
			ret = PTR_ERR(xrcd);
			rdma_alloc_abort_uobject(uobj, attrs, false);
			goto out_unlock;
		}
	}
	/* Openers of a shared domain are counted: its last close frees it. */
	if (inode)
		atomic_inc(&xrcd->usecnt);
	uobj->object = xrcd;
	mutex_unlock(&udev->xrcd_lock);
	fdput(f);

	resp.xrcd_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		/* Closes it again, through its type (takes xrcd_lock). */
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

out_unlock:
	mutex_unlock(&udev->xrcd_lock);
	fdput(f);
	return ret;
}

int ib_uverbs_close_xrcd(struct uverbs_attr_bundle *attrs,
			 struct ib_device *ib_dev)
{
	struct ib_uverbs_close_xrcd cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	return __uobj_perform_destroy(&uverbs_xrcd_object, cmd.xrcd_handle,
				      attrs);
}

/*
 * A new handle of the XRC target QP number @cmd->qpn of a domain this
 * file opened.  Its events go to the file's default async event file,
 * like those of the handle that created the QP (stock sends an opened
 * handle's events nowhere: uverbs.rst).  Errnos as stock: -EINVAL for a
 * handle naming no domain, for a type other than XRC_TGT and for a QP
 * number the domain has no target QP of.
 */
int ib_uverbs_open_qp(struct uverbs_attr_bundle *attrs,
		      struct ib_device *ib_dev)
{
	struct ib_qp_open_attr open_attr = {
		.event_handler = ib_uverbs_qp_event_handler,
	};
	struct ib_uverbs_create_qp_resp resp = {};
	struct ib_uverbs_open_qp cmd;
	struct ib_uobject *xrcd_uobj;
	struct ib_uqp_object *uqp;
	struct ib_uobject *uobj;
	struct ib_qp *qp;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = rdma_alloc_begin_uobject(&uverbs_qp_object, attrs);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uqp = container_of(uobj, struct ib_uqp_object, uevent.uobject);

	if (uverbs_get_read(&uverbs_xrcd_object, cmd.pd_handle, attrs,
			    &xrcd_uobj)) {
		ret = -EINVAL;
		goto err_uobj;
	}

	mutex_init(&uqp->modify_lock);
	mutex_init(&uqp->mcast_lock);
	INIT_LIST_HEAD(&uqp->mcast_list);
	ib_uverbs_uevent_init(&uqp->uevent,
			      ib_uverbs_default_async_file(attrs->ufile));
	open_attr.qp_num = cmd.qpn;
	open_attr.qp_type = cmd.qp_type;
	qp = ib_open_qp(xrcd_uobj->object, &open_attr);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		uverbs_put_read(xrcd_uobj);
		goto err_events;
	}
	/* Until here its events went nowhere (the handler finds no uobject). */
	WRITE_ONCE(qp->uobject, uqp);
	uqp->uxrcd = container_of(xrcd_uobj, struct ib_uxrcd_object, uobject);
	atomic_inc(&uqp->uxrcd->refcnt);
	uverbs_put_read(xrcd_uobj);
	uobj->object = qp;
	uobj->user_handle = cmd.user_handle;

	resp.qpn = qp->qp_num;
	resp.qp_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		/* Closes the handle through its type. */
		rdma_alloc_abort_uobject(uobj, attrs, true);
		return ret;
	}
	rdma_alloc_commit_uobject(uobj, attrs);
	return 0;

err_events:
	ib_uverbs_uevent_release(&uqp->uevent);
	mutex_destroy(&uqp->mcast_lock);
	mutex_destroy(&uqp->modify_lock);
err_uobj:
	rdma_alloc_abort_uobject(uobj, attrs, false);
	return ret;
}

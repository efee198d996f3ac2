// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: posting work requests through write().
 *
 * A request carries a fixed header, @wr_count work requests of
 * @wqe_size bytes each (at least the size we know, so an older kernel
 * reads a newer userspace's), then @sge_count scatter/gather entries
 * that the work requests take in order.  Every count and size is the
 * caller's: each is checked against what the request really holds
 * before anything is read.  Providers with their own queues in shared
 * memory (rxe) only ring a doorbell: POST_SEND with no work request.
 */

#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_std_types.h>

#include "uverbs_write.h"

/* Where the work requests and the SGEs of a post request are. */
struct uverbs_wr_layout {
	const void __user *wqes;
	const struct ib_uverbs_sge __user *sges;
	u32 wr_count;
	u32 wqe_size;
	u32 sge_count;
	/* SGEs handed out so far. */
	u32 sge_used;
};

/*
 * Check that the request holds @wr_count entries of @wqe_size bytes
 * and @sge_count SGEs after its @hdr_size byte header.  As stock: an
 * entry size below @min_wqe_size is -EINVAL, a request shorter than
 * its counts say -ENOSPC.
 */
static int uverbs_wr_layout(struct uverbs_attr_bundle *attrs, size_t hdr_size,
			    u32 wr_count, u32 wqe_size, u32 sge_count,
			    size_t min_wqe_size,
			    struct uverbs_wr_layout *layout)
{
	size_t wqes_len, sges_len, total;

	if (wqe_size < min_wqe_size)
		return -EINVAL;
	if (check_mul_overflow((size_t)wr_count, (size_t)wqe_size, &wqes_len) ||
	    check_mul_overflow((size_t)sge_count,
			       sizeof(struct ib_uverbs_sge), &sges_len) ||
	    check_add_overflow(hdr_size, wqes_len, &total) ||
	    check_add_overflow(total, sges_len, &total) ||
	    total > attrs->ucore.inlen)
		return -ENOSPC;

	layout->wqes = attrs->ucore.inbuf + hdr_size;
	layout->sges = attrs->ucore.inbuf + hdr_size + wqes_len;
	layout->wr_count = wr_count;
	layout->wqe_size = wqe_size;
	layout->sge_count = sge_count;
	layout->sge_used = 0;
	return 0;
}

/* Copy the first @len bytes of work request @i. */
static int uverbs_wr_read(const struct uverbs_wr_layout *layout, u32 i,
			  void *wr, size_t len)
{
	const void __user *src = layout->wqes + (size_t)i * layout->wqe_size;

	return copy_from_user(wr, src, len) ? -EFAULT : 0;
}

/*
 * Take the next @num_sge SGEs of the request into @sg_list: -EINVAL
 * when the request does not hold that many more.
 */
static int uverbs_wr_sges(struct uverbs_wr_layout *layout, u32 num_sge,
			  struct ib_sge *sg_list)
{
	struct ib_uverbs_sge usge;
	u32 i;

	if (num_sge > layout->sge_count - layout->sge_used)
		return -EINVAL;
	for (i = 0; i < num_sge; i++) {
		if (copy_from_user(&usge, &layout->sges[layout->sge_used + i],
				   sizeof(usge)))
			return -EFAULT;
		sg_list[i].addr = usge.addr;
		sg_list[i].length = usge.length;
		sg_list[i].lkey = usge.lkey;
	}
	layout->sge_used += num_sge;
	return 0;
}

/*
 * A work request of @wr_size bytes (its opcode's struct) followed by its
 * SGE array, in one allocation freed with kfree().
 */
static void *uverbs_wr_alloc(size_t wr_size, u32 num_sge,
			     struct ib_sge **sg_list)
{
	size_t sge_off = ALIGN(wr_size, sizeof(struct ib_sge));
	void *wr;

	wr = kzalloc(size_add(sge_off, array_size(num_sge,
						  sizeof(struct ib_sge))),
		     GFP_KERNEL);
	if (wr)
		*sg_list = wr + sge_off;
	return wr;
}

/* ---------------------------------------------------------------- */
/* Send                                                             */

static void send_wrs_free(struct ib_send_wr *wr, bool is_ud)
{
	struct ib_send_wr *next;

	for (; wr; wr = next) {
		next = wr->next;
		if (is_ud && ud_wr(wr)->ah)
			uverbs_put_read(ud_wr(wr)->ah->uobject);
		kfree(wr);
	}
}

/* The opcode's part of a send work request on a connected QP. */
static struct ib_send_wr *send_wr_alloc(const struct ib_uverbs_send_wr *uwr,
					struct ib_sge **sg_list)
{
	struct ib_atomic_wr *atomic;
	struct ib_rdma_wr *rdma;

	switch (uwr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		rdma = uverbs_wr_alloc(sizeof(*rdma), uwr->num_sge, sg_list);
		if (!rdma)
			return ERR_PTR(-ENOMEM);
		rdma->remote_addr = uwr->wr.rdma.remote_addr;
		rdma->rkey = uwr->wr.rdma.rkey;
		return &rdma->wr;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		atomic = uverbs_wr_alloc(sizeof(*atomic), uwr->num_sge,
					 sg_list);
		if (!atomic)
			return ERR_PTR(-ENOMEM);
		atomic->remote_addr = uwr->wr.atomic.remote_addr;
		atomic->compare_add = uwr->wr.atomic.compare_add;
		atomic->swap = uwr->wr.atomic.swap;
		atomic->rkey = uwr->wr.atomic.rkey;
		return &atomic->wr;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		return uverbs_wr_alloc(sizeof(struct ib_send_wr),
				       uwr->num_sge, sg_list) ?:
		       ERR_PTR(-ENOMEM);
	default:
		return ERR_PTR(-EINVAL);
	}
}

/* UD QPs only send, to an AH of the caller's, held until posted. */
static struct ib_send_wr *ud_wr_alloc(struct uverbs_attr_bundle *attrs,
				      const struct ib_uverbs_send_wr *uwr,
				      struct ib_sge **sg_list)
{
	struct ib_uobject *ah_uobj;
	struct ib_ud_wr *ud;
	int ret;

	if (uwr->opcode != IB_WR_SEND && uwr->opcode != IB_WR_SEND_WITH_IMM)
		return ERR_PTR(-EINVAL);

	ret = uverbs_get_read(&uverbs_ah_object, uwr->wr.ud.ah, attrs,
			      &ah_uobj);
	if (ret)
		return ERR_PTR(ret);
	ud = uverbs_wr_alloc(sizeof(*ud), uwr->num_sge, sg_list);
	if (!ud) {
		uverbs_put_read(ah_uobj);
		return ERR_PTR(-ENOMEM);
	}
	ud->ah = ah_uobj->object;
	ud->remote_qpn = uwr->wr.ud.remote_qpn;
	ud->remote_qkey = uwr->wr.ud.remote_qkey;
	return &ud->wr;
}

static struct ib_send_wr *send_wr_parse(struct uverbs_attr_bundle *attrs,
					struct uverbs_wr_layout *layout, u32 i,
					bool is_ud)
{
	struct ib_uverbs_send_wr uwr;
	struct ib_send_wr *wr;
	struct ib_sge *sg_list;
	int ret;

	ret = uverbs_wr_read(layout, i, &uwr, sizeof(uwr));
	if (ret)
		return ERR_PTR(ret);
	if (uwr.num_sge > layout->sge_count - layout->sge_used)
		return ERR_PTR(-EINVAL);

	wr = is_ud ? ud_wr_alloc(attrs, &uwr, &sg_list) :
		     send_wr_alloc(&uwr, &sg_list);
	if (IS_ERR(wr))
		return wr;

	wr->wr_id = uwr.wr_id;
	wr->opcode = uwr.opcode;
	wr->send_flags = uwr.send_flags;
	if (uwr.opcode == IB_WR_SEND_WITH_IMM ||
	    uwr.opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wr->ex.imm_data = uwr.ex.imm_data;
	else if (uwr.opcode == IB_WR_SEND_WITH_INV ||
		 uwr.opcode == IB_WR_LOCAL_INV)
		wr->ex.invalidate_rkey = uwr.ex.invalidate_rkey;
	wr->num_sge = uwr.num_sge;
	wr->sg_list = uwr.num_sge ? sg_list : NULL;

	ret = uverbs_wr_sges(layout, uwr.num_sge, sg_list);
	if (ret) {
		send_wrs_free(wr, is_ud);
		return ERR_PTR(ret);
	}
	return wr;
}

/* 1-based position of @bad in @list, as userspace expects it. */
static u32 wr_position(const void *list, const void *bad,
		       const void *(*next)(const void *))
{
	u32 pos = 0;

	for (; list; list = next(list)) {
		pos++;
		if (list == bad)
			break;
	}
	return pos;
}

static const void *send_wr_next(const void *wr)
{
	return ((const struct ib_send_wr *)wr)->next;
}

static const void *recv_wr_next(const void *wr)
{
	return ((const struct ib_recv_wr *)wr)->next;
}

int ib_uverbs_post_send(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_post_send_resp resp = {};
	const struct ib_send_wr *bad_wr = NULL;
	struct ib_send_wr *wrs = NULL, **tail = &wrs;
	struct uverbs_wr_layout layout;
	struct ib_uverbs_post_send cmd;
	struct ib_uobject *uobj;
	struct ib_qp *qp;
	bool is_ud;
	int ret;
	u32 i;

	if (copy_from_user(&cmd, attrs->ucore.inbuf, sizeof(cmd)))
		return -EFAULT;
	ret = uverbs_wr_layout(attrs, sizeof(cmd), cmd.wr_count, cmd.wqe_size,
			       cmd.sge_count, sizeof(struct ib_uverbs_send_wr),
			       &layout);
	if (ret)
		return ret;

	ret = uverbs_get_read(&uverbs_qp_object, cmd.qp_handle, attrs, &uobj);
	if (ret)
		return ret;
	qp = uobj->object;
	is_ud = qp->qp_type == IB_QPT_UD;

	for (i = 0; i < cmd.wr_count; i++) {
		struct ib_send_wr *wr = send_wr_parse(attrs, &layout, i, is_ud);

		if (IS_ERR(wr)) {
			ret = PTR_ERR(wr);
			goto out;
		}
		*tail = wr;
		tail = &wr->next;
	}

	/* No work request: the doorbell of a provider posting in memory. */
	ret = qp->device->ops.post_send(qp->real_qp, wrs, &bad_wr);
	if (ret)
		resp.bad_wr = wr_position(wrs, bad_wr, send_wr_next);
	if (copy_to_user(attrs->ucore.outbuf, &resp, sizeof(resp)))
		ret = -EFAULT;
out:
	send_wrs_free(wrs, is_ud);
	uverbs_put_read(uobj);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Receive                                                          */

static void recv_wrs_free(struct ib_recv_wr *wr)
{
	struct ib_recv_wr *next;

	for (; wr; wr = next) {
		next = wr->next;
		kfree(wr);
	}
}

/* The receive work requests of a POST_RECV or POST_SRQ_RECV. */
static struct ib_recv_wr *recv_wrs_parse(struct uverbs_attr_bundle *attrs,
					 const struct ib_uverbs_post_recv *cmd)
{
	struct ib_recv_wr *wrs = NULL, **tail = &wrs;
	struct uverbs_wr_layout layout;
	struct ib_uverbs_recv_wr uwr;
	struct ib_recv_wr *wr;
	struct ib_sge *sg_list;
	int ret;
	u32 i;

	ret = uverbs_wr_layout(attrs, sizeof(*cmd), cmd->wr_count,
			       cmd->wqe_size, cmd->sge_count,
			       sizeof(struct ib_uverbs_recv_wr), &layout);
	if (ret)
		return ERR_PTR(ret);

	for (i = 0; i < cmd->wr_count; i++) {
		ret = uverbs_wr_read(&layout, i, &uwr, sizeof(uwr));
		if (ret)
			goto err;
		if (uwr.num_sge > layout.sge_count - layout.sge_used) {
			ret = -EINVAL;
			goto err;
		}
		wr = uverbs_wr_alloc(sizeof(*wr), uwr.num_sge, &sg_list);
		if (!wr) {
			ret = -ENOMEM;
			goto err;
		}
		*tail = wr;
		tail = &wr->next;
		wr->wr_id = uwr.wr_id;
		wr->num_sge = uwr.num_sge;
		wr->sg_list = uwr.num_sge ? sg_list : NULL;
		ret = uverbs_wr_sges(&layout, uwr.num_sge, sg_list);
		if (ret)
			goto err;
	}
	return wrs;

err:
	recv_wrs_free(wrs);
	return ERR_PTR(ret);
}

int ib_uverbs_post_recv(struct uverbs_attr_bundle *attrs,
			struct ib_device *ib_dev)
{
	struct ib_uverbs_post_recv_resp resp = {};
	const struct ib_recv_wr *bad_wr = NULL;
	struct ib_uverbs_post_recv cmd;
	struct ib_uobject *uobj;
	struct ib_recv_wr *wrs;
	struct ib_qp *qp;
	int ret;

	if (copy_from_user(&cmd, attrs->ucore.inbuf, sizeof(cmd)))
		return -EFAULT;
	wrs = recv_wrs_parse(attrs, &cmd);
	if (IS_ERR(wrs))
		return PTR_ERR(wrs);

	ret = uverbs_get_read(&uverbs_qp_object, cmd.qp_handle, attrs, &uobj);
	if (ret)
		goto out;
	qp = uobj->object;
	ret = qp->device->ops.post_recv(qp->real_qp, wrs, &bad_wr);
	uverbs_put_read(uobj);
	if (ret)
		resp.bad_wr = wr_position(wrs, bad_wr, recv_wr_next);
	if (copy_to_user(attrs->ucore.outbuf, &resp, sizeof(resp)))
		ret = -EFAULT;
out:
	recv_wrs_free(wrs);
	return ret;
}

int ib_uverbs_post_srq_recv(struct uverbs_attr_bundle *attrs,
			    struct ib_device *ib_dev)
{
	struct ib_uverbs_post_srq_recv_resp resp = {};
	const struct ib_recv_wr *bad_wr = NULL;
	struct ib_uverbs_post_recv cmd;
	struct ib_uobject *uobj;
	struct ib_recv_wr *wrs;
	struct ib_srq *srq;
	int ret;

	/* Same layout as POST_RECV, an SRQ handle instead of a QP's. */
	BUILD_BUG_ON(sizeof(struct ib_uverbs_post_srq_recv) != sizeof(cmd));
	if (copy_from_user(&cmd, attrs->ucore.inbuf, sizeof(cmd)))
		return -EFAULT;
	wrs = recv_wrs_parse(attrs, &cmd);
	if (IS_ERR(wrs))
		return PTR_ERR(wrs);

	ret = uverbs_get_read(&uverbs_srq_object, cmd.qp_handle, attrs, &uobj);
	if (ret)
		goto out;
	srq = uobj->object;
	ret = srq->device->ops.post_srq_recv(srq, wrs, &bad_wr);
	uverbs_put_read(uobj);
	if (ret)
		resp.bad_wr = wr_position(wrs, bad_wr, recv_wr_next);
	if (copy_to_user(attrs->ucore.outbuf, &resp, sizeof(resp)))
		ret = -EFAULT;
out:
	recv_wrs_free(wrs);
	return ret;
}

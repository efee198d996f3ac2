// SPDX-License-Identifier: GPL-2.0-only
/*
 * QPs: their numbers, rings and the 256-byte context the device copies
 * at every create and modify.  RC and UD QPs; the GSI QP is the
 * device's QP 1, a UD QP the device knows by that number.
 *
 * A kernel QP's send queue, receive queue and shadow area share one
 * coherent buffer.  Sizes are in 32-byte quanta: a send WQE takes 1 to
 * 8, so the queue has room for max_send_wr WQEs of the largest size the
 * QP's SGE and inline limits allow (1 << shift quanta), plus the quanta
 * the device reserves; receive WQEs are all 1 << rq_shift quanta.
 *
 * Kernel QPs are privileged (STag 0 is the local DMA lkey) and may fast
 * register; the completion context is the QP's number, which poll never
 * trusts as a pointer.  User QPs never get the privileged or fast-reg
 * bits: with them, STag 0 would let user space reach any memory.
 *
 * Facts: the E810 scoping §3.5 (sizes, shifts, the context's fields,
 * CREATE/MODIFY/DESTROY_QP's header), our model's context decode.
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

/* What a user QP may post (irdma-abi's create_qp answer, qp_caps). */
#define IRDMA_QP_CAP_WRITE_IMM	BIT(0)
#define IRDMA_QP_CAP_SEND_IMM	BIT(1)
#define IRDMA_QP_CAP_ROCE	BIT(2)

/* How many quanta a WQE of SGE fragments or INLINE bytes takes, log2. */
static u32 irdma_wqe_shift(u32 sge, u32 inline_len)
{
	if (sge <= 1 && inline_len <= 8)
		return 0;
	if (sge < 4 && inline_len <= 39)
		return 1;
	if (sge < 8 && inline_len <= IRDMA_MAX_INLINE)
		return 2;
	return 3;
}

/* A queue's depth in quanta: WR WQEs of 1 << SHIFT quanta, RSVD more. */
static int irdma_wq_depth(u32 wr, u32 shift, u32 rsvd, u32 *depth)
{
	u64 d = roundup_pow_of_two(((u64)wr << shift) + rsvd);

	d = max_t(u64, d, 8u << shift);
	if (d > IRDMA_MAX_WQ_QUANTA)
		return -EINVAL;
	*depth = d;
	return 0;
}

static void irdma_wq_free(struct irdma_wq *wq)
{
	kvfree(wq->wrid);
	kvfree(wq->nq);
	kvfree(wq->op);
	kvfree(wq->len);
}

static int irdma_wq_alloc(struct irdma_wq *wq, u32 slots, bool sq)
{
	spin_lock_init(&wq->lock);
	wq->polarity = true;
	wq->flush_first = true;
	wq->wrid = kvcalloc(slots, sizeof(*wq->wrid), GFP_KERNEL);
	if (sq) {
		wq->nq = kvcalloc(slots, sizeof(*wq->nq), GFP_KERNEL);
		wq->op = kvcalloc(slots, sizeof(*wq->op), GFP_KERNEL);
		wq->len = kvcalloc(slots, sizeof(*wq->len), GFP_KERNEL);
		if (!wq->nq || !wq->op || !wq->len)
			goto nomem;
	}
	if (wq->wrid)
		return 0;
nomem:
	irdma_wq_free(wq);
	return -ENOMEM;
}

static int irdma_qp_kernel_rings(struct irdma_dev *dev, struct irdma_qp *qp,
				 struct ib_qp_init_attr *attr)
{
	struct ib_qp_cap *cap = &attr->cap;
	u32 sq_depth, rq_depth, rq_shift;
	size_t sq_bytes, rq_bytes;
	int err;

	if (cap->max_send_sge > IRDMA_MAX_SGE ||
	    cap->max_recv_sge > IRDMA_MAX_SGE ||
	    cap->max_inline_data > IRDMA_MAX_INLINE ||
	    cap->max_send_wr > IRDMA_MAX_QP_WR ||
	    cap->max_recv_wr > IRDMA_MAX_QP_WR)
		return -EINVAL;
	/* An immediate takes fragment 0's place: one more than asked. */
	qp->sq_shift = irdma_wqe_shift(cap->max_send_sge + 1,
				       cap->max_inline_data);
	rq_shift = irdma_wqe_shift(cap->max_recv_sge, 0);
	err = irdma_wq_depth(cap->max_send_wr, qp->sq_shift, IRDMA_SQ_RSVD,
			     &sq_depth) ?:
	      irdma_wq_depth(cap->max_recv_wr, rq_shift, IRDMA_RQ_RSVD,
			     &rq_depth);
	if (err)
		return err;

	sq_bytes = (size_t)sq_depth * IRDMA_QP_QUANTUM;
	rq_bytes = (size_t)rq_depth * IRDMA_QP_QUANTUM;
	err = irdma_dma_alloc(dev, &qp->q, sq_bytes + rq_bytes +
			      IRDMA_QP_SHADOW_SIZE);
	if (err)
		return err;
	memset(qp->q.va, 0, qp->q.size);
	qp->sq.base = qp->q.va;
	qp->sq.quanta = sq_depth;
	qp->rq.base = qp->q.va + sq_bytes;
	qp->rq.shift = rq_shift;
	qp->rq.quanta = rq_depth >> rq_shift;
	qp->shadow = qp->q.va + sq_bytes + rq_bytes;
	qp->sq_addr = qp->q.pa;
	qp->rq_addr = qp->q.pa + sq_bytes;
	qp->shadow_pa = qp->q.pa + sq_bytes + rq_bytes;
	err = irdma_wq_alloc(&qp->sq, qp->sq.quanta, true);
	if (err)
		goto free_q;
	err = irdma_wq_alloc(&qp->rq, qp->rq.quanta, false);
	if (err)
		goto free_sq;

	cap->max_send_wr = (sq_depth - IRDMA_SQ_RSVD) >> qp->sq_shift;
	cap->max_recv_wr = (rq_depth - IRDMA_RQ_RSVD) >> rq_shift;
	qp->max_inline = cap->max_inline_data;
	qp->cap = *cap;
	return 0;

free_sq:
	irdma_wq_free(&qp->sq);
free_q:
	irdma_dma_free(dev, &qp->q);
	return err;
}

static void irdma_qp_kernel_free(struct irdma_dev *dev, struct irdma_qp *qp)
{
	if (qp->uring) {
		irdma_ring_mem_put(qp->uring);
		qp->uring = NULL;
		return;
	}
	irdma_wq_free(&qp->rq);
	irdma_wq_free(&qp->sq);
	irdma_dma_free(dev, &qp->q);
}

/*
 * A user QP's rings, in libirdma's registration (type QP): the SQ's
 * pages, the RQ's, then the shadow area's.  libirdma 44 sizes the rings
 * itself and sends their depths shifted down as the WR counts ("legacy":
 * the kernel takes them as given); a context with raw attributes sends
 * WR counts, sized here as for kernel QPs.  Either way the rings must
 * lie within the registered pages, as the device writes there.
 */
static int irdma_qp_user_rings(struct irdma_qp *qp,
			       struct ib_qp_init_attr *attr,
			       struct ib_udata *udata,
			       struct irdma_create_qp_req *req)
{
	struct irdma_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct irdma_ucontext, ibuc);
	struct ib_qp_cap *cap = &attr->cap;
	u32 sq_depth, rq_depth, rq_shift, sq_size, rq_size;
	struct irdma_ring_mem *m;
	int err;

	if (cap->max_send_sge > IRDMA_MAX_SGE ||
	    cap->max_recv_sge > IRDMA_MAX_SGE ||
	    cap->max_inline_data > IRDMA_MAX_INLINE)
		return -EINVAL;
	qp->sq_shift = irdma_wqe_shift(cap->max_send_sge + 1,
				       cap->max_inline_data);
	rq_shift = irdma_wqe_shift(cap->max_recv_sge, 0);
	if (uc->raw_attrs) {
		if (cap->max_send_wr > IRDMA_MAX_QP_WR ||
		    cap->max_recv_wr > IRDMA_MAX_QP_WR)
			return -EINVAL;
		err = irdma_wq_depth(cap->max_send_wr, qp->sq_shift,
				     IRDMA_SQ_RSVD, &sq_depth) ?:
		      irdma_wq_depth(cap->max_recv_wr, rq_shift, IRDMA_RQ_RSVD,
				     &rq_depth);
		if (err)
			return err;
		sq_size = sq_depth >> qp->sq_shift;
		rq_size = rq_depth >> rq_shift;
	} else {
		sq_size = cap->max_send_wr;
		rq_size = cap->max_recv_wr;
		if (!sq_size || !rq_size ||
		    sq_size > IRDMA_MAX_WQ_QUANTA >> qp->sq_shift ||
		    rq_size > IRDMA_MAX_WQ_QUANTA >> rq_shift)
			return -EINVAL;
		sq_depth = sq_size << qp->sq_shift;
		rq_depth = rq_size << rq_shift;
	}
	/* The device's ring sizes are powers of two, 8 quanta at least. */
	if (!is_power_of_2(sq_depth) || !is_power_of_2(rq_depth) ||
	    sq_depth < 8 || rq_depth < 8)
		return -EINVAL;

	m = irdma_ring_mem_take(uc, IRDMA_MEMREG_TYPE_QP, req->user_wqe_bufs);
	if (!m)
		return -ENODATA;
	err = -EINVAL;
	if ((u64)sq_depth * IRDMA_QP_QUANTUM > (u64)m->sq_pages * SZ_4K ||
	    (u64)rq_depth * IRDMA_QP_QUANTUM > (u64)m->rq_pages * SZ_4K ||
	    req->user_wqe_bufs & (SZ_4K - 1) || !m->pble.n)
		goto put;
	qp->uring = m;
	qp->virt = true;
	qp->sq_addr = m->pble.idx;
	qp->rq_addr = m->pble.idx + m->sq_pages;
	qp->shadow_pa = m->pages[m->sq_pages + m->rq_pages];
	qp->sq.quanta = sq_depth;
	qp->rq.shift = rq_shift;
	qp->rq.quanta = rq_depth >> rq_shift;
	qp->compl_ctx = req->user_compl_ctx;
	qp->user = true;
	qp->cap = *cap;
	qp->cap.max_send_wr = sq_size;
	qp->cap.max_recv_wr = rq_size;
	qp->max_inline = cap->max_inline_data;
	return 0;
put:
	irdma_ring_mem_put(m);
	return err;
}

static int irdma_qp_user_resp(struct irdma_qp *qp, struct ib_udata *udata)
{
	struct irdma_create_qp_resp resp = {
		.qp_id = qp->id,
		.actual_sq_size = qp->cap.max_send_wr,
		.actual_rq_size = qp->cap.max_recv_wr,
		.qp_caps = IRDMA_QP_CAP_SEND_IMM | IRDMA_QP_CAP_ROCE,
	};

	if (qp->hw_type == IRDMA_QP_TYPE_ROCE_RC)
		resp.qp_caps |= IRDMA_QP_CAP_WRITE_IMM;
	/* Push pages are never offered: no push mode. */
	return ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
}

/* The device's size code of a ring of QUANTA quanta: 4 << code. */
static u32 irdma_wq_code(u32 quanta)
{
	return ilog2(quanta) - 2;
}

/*
 * The responder's read table: 4, 16, 64, 128 or 256 entries (codes 0 to
 * 4), the smallest that holds twice IRD.
 */
static u32 irdma_ird_code(u8 ird)
{
	u32 n = ird ? roundup_pow_of_two(2 * ird) : 4;

	if (n >= 256)
		return 4;
	if (n == 128)
		return 3;
	if (n >= 32)
		return 2;
	if (n >= 8)
		return 1;
	return 0;
}

static void irdma_qp_ctx_fill(struct irdma_dev *dev, struct irdma_qp *qp)
{
	struct irdma_pd *pd = to_ipd(qp->ibqp.pd);
	bool kernel = !qp->user;
	__le64 *c = qp->ctx.va;
	u64 q;

	memset(c, 0, IRDMA_QP_CTX_SIZE);
	q = FIELD_PREP(IRDMA_QPC_Q0_RQWQESIZE, qp->rq.shift) |
	    FIELD_PREP(IRDMA_QPC_Q0_PDIDXHI, pd->id >> 16);
	if (qp->ipv4)
		q |= IRDMA_QPC_Q0_IPV4;
	if (qp->vlan < VLAN_N_VID)
		q |= IRDMA_QPC_Q0_INSERTVLAN;
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		q |= IRDMA_QPC_Q0_ISQP1;
	c[0] = cpu_to_le64(q);
	c[1] = cpu_to_le64(qp->sq_addr);
	c[2] = cpu_to_le64(qp->rq_addr);
	c[3] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q3_TTL, qp->ttl) |
			   FIELD_PREP(IRDMA_QPC_Q3_RQSIZE,
				      irdma_wq_code(qp->rq.quanta <<
						    qp->rq.shift)) |
			   FIELD_PREP(IRDMA_QPC_Q3_SQSIZE,
				      irdma_wq_code(qp->sq.quanta)) |
			   FIELD_PREP(IRDMA_QPC_Q3_TOS, qp->tos) |
			   FIELD_PREP(IRDMA_QPC_Q3_SRCPORT, qp->sport));
	c[IRDMA_QPC_DEST_IP] = cpu_to_le64(irdma_ip_q(qp->dip, 2, 3));
	c[IRDMA_QPC_DEST_IP + 1] = cpu_to_le64(irdma_ip_q(qp->dip, 0, 1));
	c[6] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q6_MSS, qp->pmtu) |
			   FIELD_PREP(IRDMA_QPC_Q6_VLAN,
				      qp->vlan < VLAN_N_VID ? qp->vlan : 0) |
			   FIELD_PREP(IRDMA_QPC_Q6_ARPIDX, qp->arp_idx));
	c[7] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q7_FLOWLABEL, qp->flow_label) |
			   FIELD_PREP(IRDMA_QPC_Q7_PKEY, IB_DEFAULT_PKEY_FULL) |
			   FIELD_PREP(IRDMA_QPC_Q7_PDIDX, pd->id & 0xffff));
	c[8] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q8_DESTQP, qp->dest_qpn) |
			   FIELD_PREP(IRDMA_QPC_Q8_QKEY, qp->qkey));
	c[10] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q10_SQPSN, qp->sq_psn));
	c[11] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q11_EPSN, qp->rq_psn));
	c[16] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q16_RETRY, qp->retry_cnt) |
			    FIELD_PREP(IRDMA_QPC_Q16_RNRRETRY, qp->rnr_retry));
	c[17] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q17_TXCQ,
				       to_icq(qp->ibqp.send_cq)->id) |
			    FIELD_PREP(IRDMA_QPC_Q17_RXCQ,
				       to_icq(qp->ibqp.recv_cq)->id));
	c[19] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q19_MAC,
				       ether_addr_to_u64(qp->smac)));
	q = FIELD_PREP(IRDMA_QPC_Q20_ORD, qp->ord) |
	    FIELD_PREP(IRDMA_QPC_Q20_IRDSIZE, irdma_ird_code(qp->ird));
	if (qp->access & IB_ACCESS_REMOTE_WRITE)
		q |= IRDMA_QPC_Q20_WRRDRSP;
	if (qp->access & IB_ACCESS_REMOTE_READ)
		q |= IRDMA_QPC_Q20_RDEN;
	if (qp->access & IB_ACCESS_MW_BIND)
		q |= IRDMA_QPC_Q20_BINDEN;
	if (kernel)
		q |= IRDMA_QPC_Q20_PRIVEN | IRDMA_QPC_Q20_FASTREGEN |
		     IRDMA_QPC_Q20_UDPRIVCQEN;
	c[20] = cpu_to_le64(q);
	c[IRDMA_QPC_COMPL_CTX] = cpu_to_le64(qp->compl_ctx);
	c[22] = cpu_to_le64(FIELD_PREP(IRDMA_QPC_Q22_QSHANDLE,
				       dev->ws.qs_handle));
	c[IRDMA_QPC_LOCAL_IP] = cpu_to_le64(irdma_ip_q(qp->sip, 2, 3));
	c[IRDMA_QPC_LOCAL_IP + 1] = cpu_to_le64(irdma_ip_q(qp->sip, 0, 1));
}

/*
 * CREATE_QP, MODIFY_QP (to NEXT_STATE, with EXTRA_HDR's flags) or
 * DESTROY_QP, with the context rebuilt from the QP's attributes.
 */
int irdma_qp_hw_cmd(struct irdma_qp *qp, u8 opcode, u8 next_state,
		    u64 extra_hdr)
{
	struct irdma_dev *dev = to_idev(qp->ibqp.device);
	struct irdma_cqp_cmd cmd;

	if (opcode != IRDMA_CQP_OP_DESTROY_QP)
		irdma_qp_ctx_fill(dev, qp);
	irdma_cqp_cmd_init(&cmd, opcode, FIELD_PREP(IRDMA_QP_HDR_ID, qp->id) |
			   FIELD_PREP(IRDMA_QP_HDR_TYPE, qp->hw_type) |
			   FIELD_PREP(IRDMA_QP_HDR_NEXT_STATE, next_state) |
			   extra_hdr);
	cmd.wqe[2] = qp->ctx.pa;
	cmd.wqe[5] = qp->shadow_pa;
	if (qp->virt)
		cmd.wqe[IRDMA_CQP_HDR] |= IRDMA_QP_HDR_VQ;
	/* Ask the device to write the whole context it has been given. */
	if (opcode != IRDMA_CQP_OP_DESTROY_QP)
		cmd.wqe[IRDMA_CQP_HDR] |= IRDMA_QP_HDR_ORDVALID |
			IRDMA_QP_HDR_TOECTXVALID | IRDMA_QP_HDR_CACHEDVARVALID |
			IRDMA_QP_HDR_CQNUMVALID | IRDMA_QP_HDR_MACVALID;
	return irdma_cqp_exec(dev, &cmd);
}

/* A QP by number, held against its destruction (async events). */
struct irdma_qp *irdma_qp_get(struct irdma_dev *dev, u32 id)
{
	struct irdma_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&dev->qps, flags);
	qp = xa_load(&dev->qps, id);
	if (qp)
		refcount_inc(&qp->refs);
	xa_unlock_irqrestore(&dev->qps, flags);
	return qp;
}

void irdma_qp_put(struct irdma_qp *qp)
{
	if (refcount_dec_and_test(&qp->refs))
		complete(&qp->free);
}

int irdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		    struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibqp->device);
	struct irdma_create_qp_req req = {};
	struct irdma_qp *qp = to_iqp(ibqp);
	int id, err;

	if (udata) {
		if (udata->inlen < offsetofend(struct irdma_create_qp_req,
					       user_compl_ctx) ||
		    udata->outlen < offsetofend(struct irdma_create_qp_resp,
						rsvd))
			return -EINVAL;
		err = ib_copy_from_udata(&req, udata,
					 min(sizeof(req), udata->inlen));
		if (err)
			return err;
		if (attr->qp_type == IB_QPT_GSI)
			return -EINVAL;
	}
	if (attr->create_flags || attr->srq)
		return -EOPNOTSUPP;
	switch (attr->qp_type) {
	case IB_QPT_RC:
		qp->hw_type = IRDMA_QP_TYPE_ROCE_RC;
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		qp->hw_type = IRDMA_QP_TYPE_ROCE_UD;
		break;
	default:
		return -EOPNOTSUPP;
	}

	if (attr->qp_type == IB_QPT_GSI) {
		id = IRDMA_GSI_QPN;
	} else {
		id = irdma_id_get(&dev->qp_ids);
		if (id < 0)
			return id == -ENOSPC ? -ENOMEM : id;
	}
	qp->id = id;
	qp->compl_ctx = id;
	qp->state = IB_QPS_RESET;
	qp->hw_state = IRDMA_HW_QPS_INVALID;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	mutex_init(&qp->mutex);
	irdma_qp_flush_init(qp);
	qp->vlan = VLAN_N_VID;		/* none */
	qp->pmtu = 1024;
	qp->ttl = 64;
	qp->ird = IRDMA_MAX_IRD;
	qp->ord = 1;
	ether_addr_copy(qp->smac, dev->netdev->dev_addr);
	refcount_set(&qp->refs, 1);
	init_completion(&qp->free);

	err = irdma_dma_alloc(dev, &qp->ctx, IRDMA_QP_CTX_SIZE);
	if (err)
		goto put_id;
	err = udata ? irdma_qp_user_rings(qp, attr, udata, &req) :
		      irdma_qp_kernel_rings(dev, qp, attr);
	if (err)
		goto free_ctx;
	err = irdma_ws_get(dev);
	if (err)
		goto free_rings;
	qp->ws = true;
	err = irdma_qp_hw_cmd(qp, IRDMA_CQP_OP_CREATE_QP, IRDMA_HW_QPS_IDLE, 0);
	if (err)
		goto put_ws;
	err = xa_err(xa_store_irq(&dev->qps, qp->id, qp, GFP_KERNEL));
	if (err)
		goto destroy;
	qp->ibqp.qp_num = qp->id;
	if (udata) {
		err = irdma_qp_user_resp(qp, udata);
		if (err)
			goto erase;
		attr->cap = qp->cap;
	}
	return 0;

erase:
	xa_erase_irq(&dev->qps, qp->id);
destroy:
	irdma_qp_hw_cmd(qp, IRDMA_CQP_OP_DESTROY_QP, 0, 0);
put_ws:
	irdma_ws_put(dev);
free_rings:
	irdma_qp_kernel_free(dev, qp);
free_ctx:
	irdma_dma_free(dev, &qp->ctx);
put_id:
	if (qp->id != IRDMA_GSI_QPN)
		irdma_id_put(&dev->qp_ids, qp->id);
	return err;
}

int irdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibqp->device);
	struct irdma_qp *qp = to_iqp(ibqp);
	int err;

	xa_erase_irq(&dev->qps, qp->id);
	irdma_qp_put(qp);
	wait_for_completion(&qp->free);
	irdma_qp_flush_fini(qp);
	err = irdma_qp_hw_cmd(qp, IRDMA_CQP_OP_DESTROY_QP, 0, 0);
	if (err)
		ibdev_warn(ibqp->device, "QP %u not destroyed (%d)\n", qp->id,
			   err);
	/* Its entries left in the CQs are nobody's now. */
	irdma_cq_clean(to_icq(ibqp->send_cq), qp->id);
	if (ibqp->recv_cq != ibqp->send_cq)
		irdma_cq_clean(to_icq(ibqp->recv_cq), qp->id);
	if (qp->ws)
		irdma_ws_put(dev);
	irdma_qp_kernel_free(dev, qp);
	irdma_dma_free(dev, &qp->ctx);
	if (qp->id != IRDMA_GSI_QPN)
		irdma_id_put(&dev->qp_ids, qp->id);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel QPs' work requests: send WQEs of 1 to 8 quanta of 32 bytes,
 * receive WQEs of 1 << rq_shift quanta, written into the rings, the
 * header (qword 3) last behind dma_wmb().
 *
 * Generation 2 puts a valid bit in the last qword of every quantum, not
 * only the header's: fragments after the first go in 16-byte slots from
 * byte 32, so an even fragment count is padded with an empty slot that
 * carries the bit; inline data fills bytes 8..15 of the first quantum
 * and 0..30 of the next ones, byte 31 holding the bit.  An immediate
 * takes fragment 0's place (qword 0) and the fragments move one slot.
 * No WQE crosses an 8-quantum boundary: one-quantum NOPs pad the gap,
 * so none crosses the ring's end either.
 *
 * Facts: the E810 scoping §3.6, our model's WQE decoder.
 */
#include "verbs.h"

#define IRDMA_WQE_VALID		BIT_ULL(63)
#define IRDMA_WQE_SIGNALED	BIT_ULL(62)
#define IRDMA_WQE_LOCAL_FENCE	BIT_ULL(61)
#define IRDMA_WQE_READ_FENCE	BIT_ULL(60)
#define IRDMA_WQE_INLINE	BIT_ULL(57)
#define IRDMA_WQE_INLINE_LEN	GENMASK_ULL(55, 48)
#define IRDMA_WQE_IMM		BIT_ULL(47)
#define IRDMA_WQE_ADDFRAG	GENMASK_ULL(41, 38)
#define IRDMA_WQE_OPCODE	GENMASK_ULL(37, 32)
#define IRDMA_WQE_STAG		GENMASK_ULL(31, 0)
#define IRDMA_WQE_AH		GENMASK_ULL(16, 0)
#define IRDMA_FRAG_LEN		GENMASK_ULL(62, 32)
#define IRDMA_FRAG_STAG		GENMASK_ULL(31, 0)
#define IRDMA_WQE_UD_QKEY	GENMASK_ULL(31, 0)	/* q2 */
#define IRDMA_WQE_UD_QPN	GENMASK_ULL(55, 32)	/* q2 */
#define IRDMA_SQ_MAX_QUANTA	8

enum irdma_wqe_op {
	IRDMA_OP_WRITE = 0x00,
	IRDMA_OP_READ = 0x01,
	IRDMA_OP_SEND = 0x03,
	IRDMA_OP_SEND_INV = 0x04,
	IRDMA_OP_SEND_SOL = 0x05,
	IRDMA_OP_SEND_SOL_INV = 0x06,
	IRDMA_OP_FAST_REG = 0x09,
	IRDMA_OP_LOCAL_INV = 0x0a,
	IRDMA_OP_NOP = 0x0c,
};

/* FAST_REG: the first PBLE split over q1 11:0 (27:16) and q2 63:48. */
#define IRDMA_FR_Q1_PBLE_HI	GENMASK_ULL(11, 0)
#define IRDMA_FR_Q2_PBLE_LO	GENMASK_ULL(63, 48)
#define IRDMA_FR_Q2_LEN		GENMASK_ULL(40, 0)
#define IRDMA_FR_HDR_LPBL	GENMASK_ULL(45, 44)
#define IRDMA_FR_HDR_PAGE_SIZE	GENMASK_ULL(47, 46)
#define IRDMA_FR_HDR_RIGHTS	GENMASK_ULL(52, 48)
#define IRDMA_FR_HDR_VA_BASED	BIT_ULL(53)

static __le64 *irdma_quantum(struct irdma_wq *wq, u32 idx)
{
	return wq->base + (size_t)idx * (IRDMA_QP_QUANTUM / 8);
}

static void irdma_set_frag(__le64 *slot, const struct ib_sge *sge, bool pol)
{
	u64 v = pol ? IRDMA_WQE_VALID : 0;

	if (sge) {
		slot[0] = cpu_to_le64(sge->addr);
		v |= FIELD_PREP(IRDMA_FRAG_LEN, sge->length) |
		     FIELD_PREP(IRDMA_FRAG_STAG, sge->lkey);
	} else {
		slot[0] = 0;
	}
	/* The slot's second qword ends a quantum only at odd slots. */
	slot[1] = cpu_to_le64(v);
}

/* Quanta for NFRAG fragments: the first in the header quantum. */
static u32 irdma_frag_quanta(u32 nfrag)
{
	return nfrag / 2 + 1;
}

/* Quanta for LEN inline bytes: 8 in the first quantum, 31 in others. */
static u32 irdma_inline_quanta(u32 len)
{
	return len <= 8 ? 1 : DIV_ROUND_UP(len - 8, 31) + 1;
}

/* Fragments of WR, fragment 0 in slot START (0, or 1 after an immediate). */
static void irdma_write_frags(__le64 *wqe, const struct ib_sge *sg, int n,
			      unsigned int start, bool pol)
{
	unsigned int slot = start;
	int i;

	if (!n && !start) {
		irdma_set_frag(wqe, NULL, pol);
		return;
	}
	for (i = 0; i < n; i++, slot++)
		irdma_set_frag(wqe + (slot ? 2 + 2 * slot : 0), &sg[i], pol);
	/* Slots after 0 pair into quanta: an odd one left gets its mate. */
	if (slot > 1 && !(slot & 1))
		irdma_set_frag(wqe + 2 + 2 * slot, NULL, pol);
}

/* Copy the inline payload of WR into the quanta from FIRST. */
static void irdma_write_inline(struct irdma_wq *wq, u32 first,
			       const struct ib_send_wr *wr, bool pol)
{
	u8 *q = (u8 *)irdma_quantum(wq, first) + 8;
	u32 room = 8, off = 0, quantum = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const u8 *src = (const u8 *)(uintptr_t)wr->sg_list[i].addr;
		u32 len = wr->sg_list[i].length;

		while (len) {
			u32 n;

			if (!room) {
				/* The next quantum: 31 bytes, then its valid byte. */
				quantum++;
				q = (u8 *)irdma_quantum(wq, first + quantum);
				q[31] = pol ? 0x80 : 0;
				off = 0;
				room = 31;
			}
			n = min(len, room);
			memcpy(q + off, src, n);
			src += n;
			len -= n;
			off += n;
			room -= n;
		}
	}
}

static int irdma_send_op(const struct ib_send_wr *wr, u8 *op, u8 *wc_op)
{
	bool sol = wr->send_flags & IB_SEND_SOLICITED;

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		*op = sol ? IRDMA_OP_SEND_SOL : IRDMA_OP_SEND;
		*wc_op = IB_WC_SEND;
		return 0;
	case IB_WR_SEND_WITH_INV:
		*op = sol ? IRDMA_OP_SEND_SOL_INV : IRDMA_OP_SEND_INV;
		*wc_op = IB_WC_SEND;
		return 0;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*op = IRDMA_OP_WRITE;
		*wc_op = IB_WC_RDMA_WRITE;
		return 0;
	case IB_WR_RDMA_READ:
		*op = IRDMA_OP_READ;
		*wc_op = IB_WC_RDMA_READ;
		return 0;
	case IB_WR_REG_MR:
		*op = IRDMA_OP_FAST_REG;
		*wc_op = IB_WC_REG_MR;
		return 0;
	case IB_WR_LOCAL_INV:
		*op = IRDMA_OP_LOCAL_INV;
		*wc_op = IB_WC_LOCAL_INV;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Pad to the next 8-quantum boundary when N quanta would cross it. */
static void irdma_sq_pad(struct irdma_wq *wq, u32 n)
{
	while ((wq->head % IRDMA_SQ_MAX_QUANTA) + n > IRDMA_SQ_MAX_QUANTA) {
		__le64 *q = irdma_quantum(wq, wq->head);

		q[0] = 0;
		q[1] = 0;
		q[2] = 0;
		dma_wmb();
		q[3] = cpu_to_le64(FIELD_PREP(IRDMA_WQE_OPCODE, IRDMA_OP_NOP) |
				   (wq->polarity ? IRDMA_WQE_VALID : 0));
		wq->nq[wq->head] = 1;
		wq->op[wq->head] = 0;
		wq->len[wq->head] = 0;
		wq->wrid[wq->head] = 0;
		if (++wq->head == wq->quanta) {
			wq->head = 0;
			wq->polarity = !wq->polarity;
		}
	}
}

static u32 irdma_wq_used(struct irdma_wq *wq)
{
	return (wq->head + wq->quanta - READ_ONCE(wq->tail)) % wq->quanta;
}

/* Record a WQE of N quanta at the head and move the head past it. */
static void irdma_sq_commit(struct irdma_wq *wq, const struct ib_send_wr *wr,
			    u32 n, u8 wc_op, u32 len)
{
	u32 first = wq->head;

	wq->wrid[first] = wr->wr_id;
	wq->nq[first] = n;
	wq->op[first] = wc_op;
	wq->len[first] = len;
	wq->head += n;
	if (wq->head >= wq->quanta) {
		wq->head -= wq->quanta;
		wq->polarity = !wq->polarity;
	}
}

/*
 * FAST_REG (IB_WR_REG_MR: the pages map_mr_sg put in the region's PBLEs,
 * level 1) and LOCAL_INV: one quantum each, done by the device in SQ
 * order.  A registration fences the WQEs before it, as Debian's does.
 */
static int irdma_post_local(struct irdma_qp *qp, const struct ib_send_wr *wr,
			    u8 op, u8 wc_op)
{
	struct irdma_wq *wq = &qp->sq;
	u64 hdr = FIELD_PREP(IRDMA_WQE_OPCODE, op);
	__le64 *wqe;

	if (qp->user || qp->hw_type != IRDMA_QP_TYPE_ROCE_RC)
		return -EINVAL;
	if (irdma_wq_used(wq) + IRDMA_SQ_MAX_QUANTA >= wq->quanta - 1)
		return -ENOMEM;
	irdma_sq_pad(wq, 1);
	wqe = irdma_quantum(wq, wq->head);
	memset(wqe, 0, IRDMA_QP_QUANTUM);
	if (op == IRDMA_OP_FAST_REG) {
		const struct ib_reg_wr *reg = reg_wr(wr);
		struct irdma_mr *mr = to_imr(reg->mr);
		u32 pble = mr->pble.idx;

		if (!mr->pble.n || !mr->npages)
			return -EINVAL;
		wqe[0] = cpu_to_le64(mr->ibmr.iova);
		wqe[1] = cpu_to_le64(FIELD_PREP(IRDMA_FR_Q1_PBLE_HI, pble >> 16));
		wqe[2] = cpu_to_le64(FIELD_PREP(IRDMA_FR_Q2_LEN,
						mr->ibmr.length) |
				     FIELD_PREP(IRDMA_FR_Q2_PBLE_LO,
						pble & 0xffff));
		hdr |= FIELD_PREP(IRDMA_WQE_STAG, reg->key) |
		       FIELD_PREP(IRDMA_FR_HDR_LPBL, 1) |
		       FIELD_PREP(IRDMA_FR_HDR_PAGE_SIZE,
				  irdma_page_size_code(mr->ibmr.page_size)) |
		       FIELD_PREP(IRDMA_FR_HDR_RIGHTS,
				  irdma_mr_rights(reg->access)) |
		       IRDMA_FR_HDR_VA_BASED | IRDMA_WQE_LOCAL_FENCE;
	} else {
		/* The STag to invalidate, where fragment 0's would be. */
		wqe[1] = cpu_to_le64(FIELD_PREP(IRDMA_FRAG_STAG,
						wr->ex.invalidate_rkey));
	}
	if (wr->send_flags & IB_SEND_SIGNALED || qp->sq_sig_all)
		hdr |= IRDMA_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_FENCE)
		hdr |= IRDMA_WQE_READ_FENCE;
	if (wq->polarity)
		hdr |= IRDMA_WQE_VALID;
	dma_wmb();
	wqe[3] = cpu_to_le64(hdr);
	irdma_sq_commit(wq, wr, 1, wc_op, 0);
	return 0;
}

static int irdma_post_one_send(struct irdma_qp *qp, const struct ib_send_wr *wr)
{
	struct irdma_wq *wq = &qp->sq;
	bool imm = wr->opcode == IB_WR_SEND_WITH_IMM ||
		   wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	bool inl = wr->send_flags & IB_SEND_INLINE && wr->opcode != IB_WR_RDMA_READ;
	u32 len = 0, n, pad, first;
	u8 op, wc_op;
	__le64 *wqe;
	u64 hdr, q2 = 0;
	int i;

	if (irdma_send_op(wr, &op, &wc_op))
		return -EINVAL;
	if (op == IRDMA_OP_FAST_REG || op == IRDMA_OP_LOCAL_INV)
		return irdma_post_local(qp, wr, op, wc_op);
	if (qp->hw_type == IRDMA_QP_TYPE_ROCE_UD &&
	    wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (wr->num_sge > qp->cap.max_send_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (inl) {
		if (len > qp->max_inline)
			return -EINVAL;
		n = irdma_inline_quanta(len);
	} else {
		n = irdma_frag_quanta(wr->num_sge + imm);
	}
	pad = (wq->head % IRDMA_SQ_MAX_QUANTA) + n > IRDMA_SQ_MAX_QUANTA ?
	      IRDMA_SQ_MAX_QUANTA - wq->head % IRDMA_SQ_MAX_QUANTA : 0;
	if (irdma_wq_used(wq) + pad + n >= wq->quanta - 1)
		return -ENOMEM;
	irdma_sq_pad(wq, n);

	first = wq->head;
	wqe = irdma_quantum(wq, first);
	memset(wqe, 0, (size_t)n * IRDMA_QP_QUANTUM);
	hdr = FIELD_PREP(IRDMA_WQE_OPCODE, op);
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		q2 = rdma_wr(wr)->remote_addr;
		hdr |= FIELD_PREP(IRDMA_WQE_STAG, rdma_wr(wr)->rkey);
		break;
	case IB_WR_SEND_WITH_INV:
		hdr |= FIELD_PREP(IRDMA_WQE_STAG, wr->ex.invalidate_rkey);
		break;
	default:
		if (qp->hw_type != IRDMA_QP_TYPE_ROCE_UD)
			break;
		hdr |= FIELD_PREP(IRDMA_WQE_AH, to_iah(ud_wr(wr)->ah)->id);
		q2 = FIELD_PREP(IRDMA_WQE_UD_QKEY, ud_wr(wr)->remote_qkey) |
		     FIELD_PREP(IRDMA_WQE_UD_QPN, ud_wr(wr)->remote_qpn);
		break;
	}
	if (imm) {
		wqe[0] = cpu_to_le64(be32_to_cpu(wr->ex.imm_data));
		hdr |= IRDMA_WQE_IMM;
	}
	if (inl) {
		irdma_write_inline(wq, first, wr, wq->polarity);
		hdr |= IRDMA_WQE_INLINE | FIELD_PREP(IRDMA_WQE_INLINE_LEN, len);
	} else {
		irdma_write_frags(wqe, wr->sg_list, wr->num_sge, imm,
				  wq->polarity);
		if (wr->num_sge + imm > 1)
			hdr |= FIELD_PREP(IRDMA_WQE_ADDFRAG,
					  wr->num_sge + imm - 1);
	}
	wqe[2] = cpu_to_le64(q2);
	if (wr->send_flags & IB_SEND_SIGNALED || qp->sq_sig_all)
		hdr |= IRDMA_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_FENCE)
		hdr |= IRDMA_WQE_READ_FENCE;
	if (wq->polarity)
		hdr |= IRDMA_WQE_VALID;
	dma_wmb();
	wqe[3] = cpu_to_le64(hdr);
	irdma_sq_commit(wq, wr, n, wc_op, len);
	return 0;
}

int irdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad)
{
	struct irdma_dev *dev = to_idev(ibqp->device);
	struct irdma_qp *qp = to_iqp(ibqp);
	unsigned long flags;
	bool any = false;
	int err = 0;

	/* A user QP's rings are libirdma's (uverbs' POST_SEND command). */
	if (qp->user) {
		*bad = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		err = irdma_post_one_send(qp, wr);
		if (err) {
			*bad = wr;
			break;
		}
		any = true;
	}
	if (any) {
		/* The WQEs before the doorbell the device acts on. */
		wmb();
		irdma_wr32(dev, IRDMA_PFPE_WQEALLOC, qp->id);
		if (READ_ONCE(qp->hw_state) == IRDMA_HW_QPS_ERROR)
			irdma_qp_reflush(qp, true);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return err;
}

int irdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad)
{
	struct irdma_qp *qp = to_iqp(ibqp);
	struct irdma_wq *wq = &qp->rq;
	unsigned long flags;
	__le64 *wqe;
	u64 hdr;
	int err = 0;

	if (qp->user) {
		*bad = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&wq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge > qp->cap.max_recv_sge)
			err = -EINVAL;
		else if ((wq->head + 1) % wq->quanta == READ_ONCE(wq->tail))
			err = -ENOMEM;
		if (err) {
			*bad = wr;
			break;
		}
		wqe = wq->base + ((size_t)wq->head << wq->shift) *
		      (IRDMA_QP_QUANTUM / 8);
		memset(wqe, 0, IRDMA_QP_QUANTUM << wq->shift);
		irdma_write_frags(wqe, wr->sg_list, wr->num_sge, 0,
				  wq->polarity);
		wqe[2] = 0;
		hdr = wq->polarity ? IRDMA_WQE_VALID : 0;
		if (wr->num_sge > 1)
			hdr |= FIELD_PREP(IRDMA_WQE_ADDFRAG, wr->num_sge - 1);
		dma_wmb();
		wqe[3] = cpu_to_le64(hdr);
		wq->wrid[wq->head] = wr->wr_id;
		if (++wq->head == wq->quanta) {
			wq->head = 0;
			wq->polarity = !wq->polarity;
		}
		if (READ_ONCE(qp->hw_state) == IRDMA_HW_QPS_ERROR)
			irdma_qp_reflush(qp, false);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Send queue entries: posting work requests of kernel QPs, fetching
 * those of user QPs out of the shared ring, and checking both.
 *
 * A kernel QP's ring is kernel memory: post_send builds the WQE in its
 * slot and the requester uses it there.  A user QP's ring is mapped into
 * the application, which can rewrite a slot at any time: the requester
 * copies each WQE once into req.shadow, checks the copy, and never
 * reads the slot again (rxe_engine.h).
 */
#include <linux/overflow.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_ibta15.h"
#include "rxe_verbs.h"

/* The kernel copy of the WQE in SQ slot @index. */
struct rxe_send_wqe *rxe_sq_wqe(struct rxe_qp *qp, u32 index)
{
	struct rxe_queue *q = qp->sq.queue;

	if (!qp->is_user)
		return rxe_queue_addr(q, index);
	return qp->req.shadow + ((size_t)(index & q->index_mask) <<
				 qp->req.log2_elem);
}

/* The producer index as seen by the requester (acquire, for user QPs). */
u32 rxe_sq_prod(struct rxe_qp *qp)
{
	struct rxe_queue *q = qp->sq.queue;
	unsigned long flags;
	u32 prod;

	if (qp->is_user)
		return (q->cons + rxe_queue_count(q)) & q->index_mask;

	spin_lock_irqsave(&qp->req.sq_lock, flags);
	prod = q->prod;
	spin_unlock_irqrestore(&qp->req.sq_lock, flags);
	return prod;
}

/* What each WR opcode is, and on which QP types it may be posted. */
static u32 rxe_wr_mask(enum ib_qp_type type, u32 opcode, bool user)
{
	bool rc = type == IB_QPT_RC;
	bool conn = rc || type == IB_QPT_UC;

	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return RXE_WR_SEND;
	case IB_WR_SEND_WITH_INV:
		return rc ? RXE_WR_SEND : 0;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return conn ? RXE_WR_WRITE : 0;
	case IB_WR_RDMA_READ:
		return rc ? RXE_WR_READ : 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return rc ? RXE_WR_ATOMIC : 0;
	case RXE_WR_OP_ATOMIC_WRITE:
		/* 6.1's kernel ULPs have no name for it. */
		return rc && user ? RXE_WR_ATOMIC_WRITE : 0;
	case IB_WR_LOCAL_INV:
		return RXE_WR_LOCAL;
	case IB_WR_REG_MR:
		/* Carries a struct ib_mr pointer: kernel callers only. */
		return user ? 0 : RXE_WR_LOCAL;
	case IB_WR_BIND_MW:
		return conn ? RXE_WR_LOCAL : 0;
	default:
		return 0;
	}
}

/*
 * Checks a WQE in kernel memory and sets what the engine keeps in it:
 * length, progress, mask, state.  The application's values of those are
 * ignored.  -EINVAL for anything the QP cannot carry.
 */
static int rxe_sq_check_wqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_dma_info *dma = &wqe->dma;
	u64 length = 0;
	u32 i;

	wqe->mask = rxe_wr_mask(qp->ibqp.qp_type, wqe->wr.opcode, qp->is_user);
	if (!wqe->mask)
		return -EINVAL;

	if (wqe->mask & RXE_WR_ATOMIC_WRITE) {
		/*
		 * librxe puts the 8 bytes where inline data goes: sent as
		 * inline data is, from the WQE.  Refused if the slot has
		 * no room for them (no SGE, no inline data, and a WQE size
		 * that is a power of 2).
		 */
		if (BIT(qp->sq.queue->log2_elem_size) <
		    sizeof(*wqe) + RXE_ATOMIC_WRITE_LEN)
			return -EINVAL;
		wqe->wr.send_flags |= IB_SEND_INLINE;
		dma->length = RXE_ATOMIC_WRITE_LEN;
		dma->num_sge = 0;
		length = dma->length;
	} else if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (!(wqe->mask & (RXE_WR_SEND | RXE_WR_WRITE)) ||
		    dma->length > qp->sq.max_inline)
			return -EINVAL;
		length = dma->length;
		dma->num_sge = 0;
	} else {
		if (dma->num_sge > qp->sq.max_sge)
			return -EINVAL;
		for (i = 0; i < dma->num_sge; i++)
			length += dma->sge[i].length;
		/* At most num_sge * U32_MAX: no u64 overflow. */
		if (length > RXE_MAX_MSG_LEN)
			return -EINVAL;
	}
	if ((wqe->mask & RXE_WR_ATOMIC) && length < sizeof(u64))
		return -EINVAL;

	switch (wqe->wr.opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case RXE_WR_OP_ATOMIC_WRITE:
		wqe->iova = wqe->wr.wr.rdma.remote_addr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->iova = wqe->wr.wr.atomic.remote_addr;
		break;
	default:
		wqe->iova = 0;
	}

	dma->length = length;
	dma->resid = length;
	dma->cur_sge = 0;
	dma->sge_offset = 0;
	wqe->status = IB_WC_SUCCESS;
	wqe->state = RXE_WQE_POSTED;
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->has_rd_atomic = 0;
	return 0;
}

/*
 * Older providers copy the AV itself into the WQE (ah_num 0), addresses
 * and all: an application could send from any source address, or from
 * its destination, which takes the path to this host that no GID or
 * ICRC check sees (rxe_xmit.c) and delivers a forged GRH.  Only the
 * destination and the GRH fields are taken from it; the source is the
 * GID table's entry at its sgid_index, the AV built again as create_ah
 * builds one.  -EINVAL for an entry that is not there, or a destination
 * of the other family.
 */
static int rxe_sq_legacy_av(struct rxe_qp *qp, struct rxe_av *av)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	const struct ib_gid_attr *sgid_attr;
	struct rdma_ah_attr attr = {};
	union ib_gid dgid;
	bool v4, src_v4;
	int err;

	sgid_attr = rdma_get_gid_attr(&rxe->ib_dev, RXE_PORT,
				      av->grh.sgid_index);
	if (IS_ERR(sgid_attr))
		return -EINVAL;

	memcpy(dgid.raw, av->grh.dgid.raw, sizeof(dgid.raw));
	v4 = ipv6_addr_v4mapped((const struct in6_addr *)dgid.raw);
	attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr, RXE_PORT);
	rdma_ah_set_grh(&attr, &dgid, av->grh.flow_label, av->grh.sgid_index,
			av->grh.hop_limit, av->grh.traffic_class);
	attr.grh.sgid_attr = sgid_attr;
	memcpy(attr.roce.dmac, av->dmac, ETH_ALEN);
	err = rxe_av_from_attr(rxe, av, &attr);
	/* The source's family, from its GID entry, must be the destination's. */
	src_v4 = av->network_type == RXE_NETWORK_TYPE_IPV4;
	if (!err && v4 != src_v4)
		err = -EINVAL;
	rdma_put_gid_attr(sgid_attr);
	return err;
}

/* A user UD WQE names its AH by number: its AV into the copy. */
static int rxe_sq_resolve_ah(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	u32 ah_num = wqe->wr.wr.ud.ah_num;
	struct rxe_ah *ah;
	unsigned long flags;
	int err = 0;

	if (!ah_num)
		return rxe_sq_legacy_av(qp, &wqe->wr.wr.ud.av);

	/* The AH cannot be freed while its number is found. */
	xa_lock_irqsave(&rxe->ah_index.xa, flags);
	ah = xa_load(&rxe->ah_index.xa, ah_num);
	if (ah && ah->ibah.pd == qp->ibqp.pd)
		wqe->wr.wr.ud.av = ah->av;
	else
		err = -EINVAL;
	xa_unlock_irqrestore(&rxe->ah_index.xa, flags);
	return err;
}

/*
 * Copies the user WQE of slot @index into its shadow, once, and checks
 * it.  A WQE that fails is still copied (its wr_id completes with an
 * error): the result says whether it may be executed.
 */
int rxe_sq_fetch(struct rxe_qp *qp, u32 index)
{
	struct rxe_queue *q = qp->sq.queue;
	struct rxe_send_wqe *wqe = rxe_sq_wqe(qp, index);
	int err;

	memcpy(wqe, rxe_queue_addr(q, index), BIT(q->log2_elem_size));
	/* num_sge is checked against max_sge before any SGE is read. */
	err = rxe_sq_check_wqe(qp, wqe);
	if (!err && (qp->ibqp.qp_type == IB_QPT_UD ||
		     qp->ibqp.qp_type == IB_QPT_GSI))
		err = rxe_sq_resolve_ah(qp, wqe);
	if (err) {
		wqe->state = RXE_WQE_DONE;
		wqe->status = IB_WC_LOC_QP_OP_ERR;
	}
	return err;
}

static int rxe_sq_build_sgl(struct rxe_qp *qp, const struct ib_send_wr *wr,
			    struct rxe_send_wqe *wqe)
{
	struct rxe_dma_info *dma = &wqe->dma;
	u64 length = 0;
	u8 *p;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return -EINVAL;

	if (!(wr->send_flags & IB_SEND_INLINE)) {
		for (i = 0; i < wr->num_sge; i++) {
			dma->sge[i].addr = wr->sg_list[i].addr;
			dma->sge[i].length = wr->sg_list[i].length;
			dma->sge[i].lkey = wr->sg_list[i].lkey;
		}
		dma->num_sge = wr->num_sge;
		return 0;
	}

	/* Inline: kernel virtual addresses, copied now. */
	for (i = 0; i < wr->num_sge; i++) {
		length += wr->sg_list[i].length;
		if (length > qp->sq.max_inline)
			return -EINVAL;
	}
	p = dma->inline_data;
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		p += wr->sg_list[i].length;
	}
	dma->length = length;
	return 0;
}

/* Builds the WQE of one kernel WR in its slot; checked as a user one. */
static int rxe_sq_build_wqe(struct rxe_qp *qp, const struct ib_send_wr *wr,
			    struct rxe_send_wqe *wqe)
{
	int err;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->wr.ex.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		wqe->wr.wr.reg.mr = reg_wr(wr)->mr;
		wqe->wr.wr.reg.key = reg_wr(wr)->key;
		wqe->wr.wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}

	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		if (!ud_wr(wr)->ah)
			return -EINVAL;
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		wqe->wr.wr.ud.av = to_rah(ud_wr(wr)->ah)->av;
	}

	err = rxe_sq_build_sgl(qp, wr, wqe);
	if (err)
		return err;
	return rxe_sq_check_wqe(qp, wqe);
}

/* Kernel QPs: each WR into a slot of the ring, then the requester. */
static int rxe_sq_post_kernel(struct rxe_qp *qp, const struct ib_send_wr *wr,
			      const struct ib_send_wr **bad_wr)
{
	struct rxe_queue *q = qp->sq.queue;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->req.sq_lock, flags);
	for (; wr; wr = wr->next) {
		if (rxe_queue_full(q)) {
			err = -ENOMEM;
			break;
		}
		err = rxe_sq_build_wqe(qp, wr, rxe_queue_producer_addr(q));
		if (err)
			break;
		rxe_queue_advance_producer(q);
	}
	spin_unlock_irqrestore(&qp->req.sq_lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * For a user QP, @wr is NULL: the doorbell, the work requests are in
 * the mapped ring already.  As on stock, a QP sends from RTS on (and
 * flushes in SQD, SQE and ERR): before that, -EINVAL.
 *
 * The requester runs inline, for latency; not from hard interrupt
 * context (a ULP may post from there), where it is queued instead.
 */
int rxe_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	int err = 0;

	if (READ_ONCE(qp->attr.qp_state) < IB_QPS_RTS) {
		*bad_wr = wr;
		return -EINVAL;
	}

	if (!qp->is_user)
		err = rxe_sq_post_kernel(qp, wr, bad_wr);

	if (in_hardirq() || irqs_disabled())
		rxe_task_sched(&qp->req.task);
	else
		rxe_task_run(&qp->req.task);
	return err;
}

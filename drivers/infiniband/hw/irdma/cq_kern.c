// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel CQs: a ring of 32-byte entries the device writes, its 64-byte
 * shadow area (our head, for the device; the arming word), polled here
 * into work completions, and armed through PFPE_CQARM.
 *
 * A CQE names its QP by number and its WQE by index; the QP's queues
 * (verbs.h struct irdma_wq) give the wr_id.  Unsignaled sends complete
 * silently before the next signaled one.  An error CQE (major 1, a
 * flush) comes once per queue: the whole queue is drained from its tail,
 * the first WR with the CQE's status, the rest flushed.  When the caller's
 * array runs out mid-drain the CQE stays at the head and the next poll
 * goes on from the queue's tail.
 *
 * An entry may take two slots ("extended": immediate data, a UD
 * sender's MAC and VLAN): the second slot carries its own valid bit.
 *
 * Facts: the E810 scoping §3.4 (CREATE_CQ's fields, the shadow area,
 * the CQE and its extended slot, error codes), our model's CQE writer.
 */
#include "verbs.h"

/* CQE fields beyond what the CCQ uses (hw.h). */
#define IRDMA_CQE_BYTES		GENMASK_ULL(31, 0)	/* q0 */
#define IRDMA_CQE_QPN		GENMASK_ULL(55, 32)	/* q2 */
#define IRDMA_CQE_SRC_QP	GENMASK_ULL(31, 0)	/* q2 */
#define IRDMA_CQE_SQ		BIT_ULL(62)		/* q3 */
#define IRDMA_CQE_OPCODE	GENMASK_ULL(61, 56)
#define IRDMA_CQE_IPV4_OR_INV	BIT_ULL(53)
#define IRDMA_CQE_EXT		BIT_ULL(50)
/* The extended slot. */
#define IRDMA_CQE_X_SMAC	GENMASK_ULL(47, 0)	/* q2 */
#define IRDMA_CQE_X_VLAN	GENMASK_ULL(63, 48)	/* q2 */
#define IRDMA_CQE_X_IMM_VALID	BIT_ULL(62)		/* q3 */
#define IRDMA_CQE_X_SMAC_VALID	BIT_ULL(61)
#define IRDMA_CQE_X_VLAN_VALID	BIT_ULL(60)
#define IRDMA_CQE_MAJOR_FLUSH	1
/* Receive opcodes (the BTH's) that carry an RDMA WRITE's immediate. */
#define IRDMA_BTH_WRITE_LAST_IMM	0x09
#define IRDMA_BTH_WRITE_ONLY_IMM	0x0b

static enum ib_wc_status irdma_flush_status(u16 minor)
{
	static const enum ib_wc_status map[] = {
		[1] = IB_WC_WR_FLUSH_ERR,
		[2] = IB_WC_LOC_PROT_ERR,
		[3] = IB_WC_REM_ACCESS_ERR,
		[4] = IB_WC_LOC_QP_OP_ERR,
		[5] = IB_WC_REM_OP_ERR,
		[6] = IB_WC_LOC_LEN_ERR,
		[7] = IB_WC_FATAL_ERR,
		[8] = IB_WC_RETRY_EXC_ERR,
		[9] = IB_WC_MW_BIND_ERR,
		[10] = IB_WC_REM_INV_REQ_ERR,
	};

	return minor < ARRAY_SIZE(map) && map[minor] ? map[minor] :
	       IB_WC_GENERAL_ERR;
}

/* One completion of the WQE at WQ's tail; the tail moves past it. */
static void irdma_wq_pop(struct irdma_qp *qp, struct irdma_wq *wq, bool sq,
			 struct ib_wc *wc, enum ib_wc_status status)
{
	u32 t = wq->tail;

	memset(wc, 0, sizeof(*wc));
	wc->qp = &qp->ibqp;
	wc->wr_id = wq->wrid[t];
	wc->status = status;
	if (sq) {
		wc->opcode = wq->op[t];
		wc->byte_len = wq->len[t];
		wq->tail = (t + wq->nq[t]) % wq->quanta;
	} else {
		wc->opcode = IB_WC_RECV;
		wq->tail = (t + 1) % wq->quanta;
	}
}

static bool irdma_wq_empty(struct irdma_wq *wq)
{
	return wq->tail == READ_ONCE(wq->head);
}

/*
 * Drain WQ after its flush CQE into WC: returns how many written; *done
 * when the queue is empty (the CQE may go).
 */
static int irdma_wq_drain(struct irdma_qp *qp, struct irdma_wq *wq, bool sq,
			  struct ib_wc *wc, int n, enum ib_wc_status status,
			  bool *done)
{
	int k = 0;

	while (k < n && !irdma_wq_empty(wq)) {
		irdma_wq_pop(qp, wq, sq, &wc[k++], wq->flush_first ?
			     status : IB_WC_WR_FLUSH_ERR);
		wq->flush_first = false;
	}
	*done = irdma_wq_empty(wq);
	if (*done)
		wq->flush_first = true;
	return k;
}

/* The extended slot after the head, if the device wrote it. */
static __le64 *irdma_cq_ext(struct irdma_cq *cq)
{
	struct irdma_ring *r = &cq->ring;
	u32 idx = r->head + 1;
	bool pol = r->polarity;
	__le64 *e;

	if (idx == r->size) {
		idx = 0;
		pol = !pol;
	}
	e = r->mem.va + (size_t)idx * IRDMA_CQE_SIZE;
	if (!!(le64_to_cpu(READ_ONCE(e[3])) & IRDMA_CQE_VALID) != pol)
		return NULL;
	dma_rmb();
	return e;
}

static void irdma_cq_consume(struct irdma_cq *cq, bool ext)
{
	irdma_ring_advance(&cq->ring);
	if (ext)
		irdma_ring_advance(&cq->ring);
}

static void irdma_recv_wc(struct irdma_qp *qp, const __le64 *cqe,
			  const __le64 *x, struct ib_wc *wc)
{
	u64 q3 = le64_to_cpu(cqe[3]);
	u8 op = FIELD_GET(IRDMA_CQE_OPCODE, q3);

	wc->byte_len = FIELD_GET(IRDMA_CQE_BYTES, le64_to_cpu(cqe[0]));
	if (op == IRDMA_BTH_WRITE_LAST_IMM || op == IRDMA_BTH_WRITE_ONLY_IMM)
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
	if (x) {
		u64 x2 = le64_to_cpu(x[2]), x3 = le64_to_cpu(x[3]);

		if (x3 & IRDMA_CQE_X_IMM_VALID) {
			wc->ex.imm_data = cpu_to_be32((u32)le64_to_cpu(x[0]));
			wc->wc_flags |= IB_WC_WITH_IMM;
		}
		if (x3 & IRDMA_CQE_X_SMAC_VALID) {
			u64_to_ether_addr(FIELD_GET(IRDMA_CQE_X_SMAC, x2),
					  wc->smac);
			wc->wc_flags |= IB_WC_WITH_SMAC;
		}
		if (x3 & IRDMA_CQE_X_VLAN_VALID) {
			wc->vlan_id = FIELD_GET(IRDMA_CQE_X_VLAN, x2) &
				      VLAN_VID_MASK;
			wc->wc_flags |= IB_WC_WITH_VLAN;
		}
	}
	if (qp->hw_type == IRDMA_QP_TYPE_ROCE_UD) {
		wc->src_qp = FIELD_GET(IRDMA_CQE_SRC_QP, le64_to_cpu(cqe[2]));
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = q3 & IRDMA_CQE_IPV4_OR_INV ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	} else if (q3 & IRDMA_CQE_IPV4_OR_INV) {
		wc->ex.invalidate_rkey = FIELD_GET(IRDMA_CQE_SRC_QP,
						   le64_to_cpu(cqe[2]));
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	wc->pkey_index = 0;
	wc->port_num = IRDMA_PORT;
}

/*
 * The CQE at the head into WC (room for N): how many completions it
 * gave; *consume whether it is done with.
 */
static int irdma_cq_one(struct irdma_cq *cq, const __le64 *cqe,
			const __le64 *x, struct ib_wc *wc, int n,
			bool *consume)
{
	struct irdma_dev *dev = to_idev(cq->ibcq.device);
	u64 q3 = le64_to_cpu(cqe[3]);
	u32 qpn = FIELD_GET(IRDMA_CQE_QPN, le64_to_cpu(cqe[2]));
	u32 idx = FIELD_GET(IRDMA_CQE_WQEIDX, q3);
	bool sq = q3 & IRDMA_CQE_SQ;
	struct irdma_qp *qp;
	struct irdma_wq *wq;
	int k = 0;

	*consume = true;
	/* A destroyed QP's leftovers (irdma_cq_clean) name no QP. */
	if (!le64_to_cpu(cqe[1]))
		return 0;
	qp = xa_load(&dev->qps, qpn);
	if (!qp)
		return 0;
	wq = sq ? &qp->sq : &qp->rq;

	if (q3 & IRDMA_CQE_ERROR &&
	    FIELD_GET(IRDMA_CQE_MAJOR, q3) == IRDMA_CQE_MAJOR_FLUSH)
		return irdma_wq_drain(qp, wq, sq, wc, n,
				      irdma_flush_status(FIELD_GET(IRDMA_CQE_MINOR,
								   q3)),
				      consume);

	if (sq) {
		if (idx >= wq->quanta)
			return 0;
		/* Unsignaled WRs before this one are done. */
		while (!irdma_wq_empty(wq) && wq->tail != idx)
			wq->tail = (wq->tail + wq->nq[wq->tail]) % wq->quanta;
		if (irdma_wq_empty(wq))
			return 0;
		irdma_wq_pop(qp, wq, true, &wc[k++], q3 & IRDMA_CQE_ERROR ?
			     IB_WC_GENERAL_ERR : IB_WC_SUCCESS);
		return k;
	}
	idx >>= wq->shift;
	if (idx >= wq->quanta || irdma_wq_empty(wq) || wq->tail != idx)
		return 0;
	irdma_wq_pop(qp, wq, false, &wc[k], q3 & IRDMA_CQE_ERROR ?
		     IB_WC_GENERAL_ERR : IB_WC_SUCCESS);
	irdma_recv_wc(qp, cqe, x, &wc[k]);
	return k + 1;
}

int irdma_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	struct irdma_cq *cq = to_icq(ibcq);
	unsigned long flags;
	bool consume, ext;
	__le64 *cqe, *x;
	int k = 0;

	/* A user CQ is libirdma's to poll (uverbs' POLL_CQ command). */
	if (cq->uring)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	while (k < n && (cqe = irdma_ring_peek(&cq->ring, 3))) {
		ext = le64_to_cpu(cqe[3]) & IRDMA_CQE_EXT;
		x = NULL;
		if (ext) {
			x = irdma_cq_ext(cq);
			if (!x)
				break;	/* the device is writing it */
		}
		k += irdma_cq_one(cq, cqe, x, wc + k, n - k, &consume);
		if (!consume)
			break;
		irdma_cq_consume(cq, ext);
	}
	/* Our head, for the device's overflow check. */
	WRITE_ONCE(((__le64 *)cq->shadow.va)[0],
		   cpu_to_le64(FIELD_PREP(IRDMA_SHADOW_CQ_HEAD, cq->ring.head)));
	spin_unlock_irqrestore(&cq->lock, flags);
	return k;
}

int irdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct irdma_cq *cq = to_icq(ibcq);
	struct irdma_dev *dev = to_idev(ibcq->device);
	__le64 *shadow = cq->shadow.va;
	unsigned long irqflags;
	int missed = 0;
	u64 arm;

	/* A user CQ is armed by libirdma, in its own shadow area. */
	if (cq->uring)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, irqflags);
	cq->arm_seq++;
	/* Solicited entries always wake; "next" any entry too. */
	arm = FIELD_PREP(IRDMA_SHADOW_ARM_SEQ, cq->arm_seq) |
	      IRDMA_SHADOW_ARM_NEXT_SE |
	      FIELD_PREP(IRDMA_SHADOW_ARM_CQ, cq->id);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		arm |= IRDMA_SHADOW_ARM_NEXT;
	WRITE_ONCE(shadow[4], cpu_to_le64(arm));
	/* The device reads the word when the doorbell rings. */
	dma_wmb();
	irdma_wr32(dev, IRDMA_PFPE_CQARM, cq->id);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS &&
	    irdma_ring_peek(&cq->ring, 3))
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/* A CQ by number, held against its destruction (the EQs' events). */
struct irdma_cq *irdma_cq_get(struct irdma_dev *dev, u32 id)
{
	struct irdma_cq *cq;
	unsigned long flags;

	xa_lock_irqsave(&dev->cqs, flags);
	cq = xa_load(&dev->cqs, id);
	if (cq)
		refcount_inc(&cq->refs);
	xa_unlock_irqrestore(&dev->cqs, flags);
	return cq;
}

void irdma_cq_put(struct irdma_cq *cq)
{
	if (refcount_dec_and_test(&cq->refs))
		complete(&cq->free);
}

/* From the CEQ's tasklet: CQ CQ_ID's event (irdma.h). */
void irdma_cq_event(struct irdma_dev *dev, u32 cq_id)
{
	struct irdma_cq *cq = irdma_cq_get(dev, cq_id);

	if (!cq)
		return;
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	irdma_cq_put(cq);
}

/*
 * Entries QP QPN left in CQ before its destruction: their completion
 * context is cleared, which irdma_cq_one() skips, so a later QP of the
 * same number is not given them.
 */
void irdma_cq_clean(struct irdma_cq *cq, u32 qpn)
{
	struct irdma_ring *r = &cq->ring;
	unsigned long flags;
	u32 idx, i;
	bool pol;

	/* libirdma cleans its own CQs of a destroyed QP's entries. */
	if (cq->uring)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	idx = r->head;
	pol = r->polarity;
	for (i = 0; i < r->size; i++) {
		__le64 *e = r->mem.va + (size_t)idx * IRDMA_CQE_SIZE;
		u64 q3 = le64_to_cpu(READ_ONCE(e[3]));

		if (!!(q3 & IRDMA_CQE_VALID) != pol)
			break;
		dma_rmb();
		if (FIELD_GET(IRDMA_CQE_QPN, le64_to_cpu(e[2])) == qpn)
			e[1] = 0;
		if (++idx == r->size) {
			idx = 0;
			pol = !pol;
		}
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

int irdma_cq_hw(struct irdma_dev *dev, struct irdma_cq *cq, u8 opcode,
		u64 extra_hdr)
{
	struct irdma_cqp_cmd cmd;
	u64 hdr = extra_hdr | FIELD_PREP(IRDMA_CQ_HDR_ID, cq->id) |
		  FIELD_PREP(IRDMA_CQ_HDR_CEQ, cq->ceq) |
		  IRDMA_CQ_HDR_CEQ_VALID | IRDMA_CQ_HDR_CEQE_MASK |
		  IRDMA_CQ_HDR_CHKOVERFLOW;

	if (cq->virt)
		hdr |= IRDMA_CQ_HDR_VIRTMAP | FIELD_PREP(IRDMA_CQ_HDR_LPBL, 1);
	irdma_cqp_cmd_init(&cmd, opcode, hdr);
	cmd.wqe[0] = FIELD_PREP(IRDMA_CQ_SIZE, cq->size);
	/* The CEQ's entries carry this back: the CQ's number. */
	cmd.wqe[1] = FIELD_PREP(IRDMA_CQ_CTX, cq->id);
	cmd.wqe[4] = cq->virt ? 0 : cq->ring_pa;
	cmd.wqe[5] = cq->shadow_pa;
	cmd.wqe[6] = cq->virt ? FIELD_PREP(IRDMA_CQ_FIRST_PBLE,
					   cq->first_pble) : 0;
	cmd.wqe[7] = FIELD_PREP(IRDMA_CQ_VSI, dev->vsi);
	return irdma_cqp_exec(dev, &cmd);
}

static int irdma_kernel_cq_create(struct irdma_dev *dev, struct irdma_cq *cq,
				  const struct ib_cq_init_attr *attr)
{
	/* Two slots an entry at most (extended entries), and one spare. */
	u32 slots = max_t(u32, (attr->cqe + 1) * 2, 4);
	int err;

	err = irdma_ring_alloc(dev, &cq->ring, slots, IRDMA_CQE_SIZE);
	if (err)
		return err;
	err = irdma_dma_alloc(dev, &cq->shadow, IRDMA_SHADOW_SIZE);
	if (err) {
		irdma_ring_free(dev, &cq->ring);
		return err;
	}
	memset(cq->shadow.va, 0, IRDMA_SHADOW_SIZE);
	cq->size = slots;
	cq->ring_pa = cq->ring.mem.pa;
	cq->shadow_pa = cq->shadow.pa;
	return 0;
}

static void irdma_cq_mem_free(struct irdma_dev *dev, struct irdma_cq *cq)
{
	if (cq->uring) {
		irdma_user_cq_free(cq);
		return;
	}
	irdma_dma_free(dev, &cq->shadow);
	irdma_ring_free(dev, &cq->ring);
}

int irdma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibcq->device);
	struct irdma_cq *cq = to_icq(ibcq);
	int id, err;

	/* Completion timestamps: accepted and not given, as Debian's. */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > IRDMA_MAX_CQ_RING ||
	    (!udata && attr->cqe > IRDMA_MAX_CQE))
		return -EINVAL;
	if (attr->comp_vector >= dev->nceq)
		return -EINVAL;
	cq->ceq = attr->comp_vector;

	id = irdma_id_get(&dev->cq_ids);
	if (id < 0)
		return id == -ENOSPC ? -ENOMEM : id;
	cq->id = id;
	spin_lock_init(&cq->lock);
	refcount_set(&cq->refs, 1);
	init_completion(&cq->free);
	err = udata ? irdma_user_cq_create(cq, attr, udata) :
		      irdma_kernel_cq_create(dev, cq, attr);
	if (err)
		goto put_id;
	err = irdma_cq_hw(dev, cq, IRDMA_CQP_OP_CREATE_CQ, 0);
	if (err)
		goto free_mem;
	err = xa_err(xa_store_irq(&dev->cqs, cq->id, cq, GFP_KERNEL));
	if (err)
		goto destroy;
	if (udata) {
		struct irdma_create_cq_resp resp = {
			.cq_id = cq->id,
			.cq_size = cq->size,
		};

		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err)
			goto erase;
	}
	ibcq->cqe = attr->cqe;
	return 0;

erase:
	xa_erase_irq(&dev->cqs, cq->id);
destroy:
	irdma_cq_hw(dev, cq, IRDMA_CQP_OP_DESTROY_CQ, 0);
free_mem:
	irdma_cq_mem_free(dev, cq);
put_id:
	irdma_id_put(&dev->cq_ids, cq->id);
	return err;
}

int irdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct irdma_dev *dev = to_idev(ibcq->device);
	struct irdma_cq *cq = to_icq(ibcq);
	int err;

	/* No new event: wait for the one being delivered, if any. */
	xa_erase_irq(&dev->cqs, cq->id);
	irdma_cq_put(cq);
	wait_for_completion(&cq->free);
	err = irdma_cq_hw(dev, cq, IRDMA_CQP_OP_DESTROY_CQ, 0);
	if (err)
		ibdev_warn(ibcq->device, "CQ %u not destroyed (%d)\n", cq->id,
			   err);
	irdma_cq_mem_free(dev, cq);
	irdma_id_put(&dev->cq_ids, cq->id);
	return 0;
}

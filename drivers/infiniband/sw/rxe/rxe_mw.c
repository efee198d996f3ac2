// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory windows, types 1 and 2 (IBTA vol. 1, 10.6.7).  Their rkeys are
 * built as MR keys are (rxe_mr.c), from the upper half of the index
 * space, which is how rxe_rkey_resolve() tells them apart.  Binding and
 * invalidation are work requests, executed by the send queue in order
 * (rxe_mw_bind(), rxe_invalidate_key()).
 *
 * A bound window holds a reference on its MR and counts in the MR's
 * num_mw, which keeps the MR from being deregistered; a bind and a
 * deregistration decide on num_mw in one atomic step each
 * (rxe_mr_bind_mw(), rxe_dereg_mr()), so one of them fails.  Lookups by the
 * data path take the window under the index's lock and its own, and
 * return a reference on the MR beneath: the window itself is never
 * referenced beyond that, since deallocation unpublishes it first.
 */
#include <linux/random.h>

#include "rxe.h"
#include "rxe_engine.h"
#include "rxe_verbs.h"

#define RXE_MW_ACCESS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC)
/*
 * Local rights mean nothing for a window, which only grants remote
 * access, but applications pass them in a bind (rdma-core's own tests
 * bind with local write, as in-tree rxe accepts): they are ignored.
 */
#define RXE_MW_ACCESS_IGNORED	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND)
/* What a bound window keeps of the bind's flags. */
#define RXE_MW_BOUND_FLAGS	(RXE_MW_ACCESS | IB_ZERO_BASED)

int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibmw->device);
	struct rxe_mw *mw = to_rmw(ibmw);
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;

	spin_lock_init(&mw->lock);
	mw->state = RXE_MW_FREE;
	/* The key before the index: a lookup may find it at once. */
	ibmw->rkey = get_random_u32() & RXE_KEY_TAG_MASK;
	err = rxe_index_alloc(&rxe->mw_index, mw, &mw->index, GFP_KERNEL);
	if (err)
		return err;

	spin_lock_bh(&mw->lock);
	ibmw->rkey |= mw->index << RXE_KEY_INDEX_SHIFT;
	spin_unlock_bh(&mw->lock);
	return 0;
}

/* Under mw->lock: the window forgets its MR. */
static void rxe_mw_unbind(struct rxe_mw *mw)
{
	struct rxe_mr *mr = mw->mr;

	lockdep_assert_held(&mw->lock);

	mw->state = RXE_MW_FREE;
	mw->mr = NULL;
	mw->addr = 0;
	mw->length = 0;
	mw->access = 0;
	if (mr) {
		atomic_dec(&mr->num_mw);
		rxe_mr_put(mr);
	}
}

int rxe_dealloc_mw(struct ib_mw *ibmw)
{
	struct rxe_mw *mw = to_rmw(ibmw);

	/* After this no lookup finds the window; one in flight is done. */
	rxe_index_free(&to_rdev(ibmw->device)->mw_index, mw->index);

	spin_lock_bh(&mw->lock);
	rxe_mw_unbind(mw);
	spin_unlock_bh(&mw->lock);
	return 0;
}

/*
 * The window of @rkey's index, locked.  The index's lock is held across,
 * so that deallocation (which unpublishes first) cannot free the window
 * meanwhile; mw->lock is then taken with interrupts off, as everywhere
 * it nests in the index's lock.
 */
static struct rxe_mw *rxe_mw_lock(struct rxe_dev *rxe, u32 rkey,
				  unsigned long *flags)
	__acquires(&rxe->mw_index.xa.xa_lock)
{
	struct rxe_mw *mw;

	xa_lock_irqsave(&rxe->mw_index.xa, *flags);
	mw = xa_load(&rxe->mw_index.xa, rkey >> RXE_KEY_INDEX_SHIFT);
	return mw;
}

static void rxe_mw_unlock(struct rxe_dev *rxe, unsigned long flags)
	__releases(&rxe->mw_index.xa.xa_lock)
{
	xa_unlock_irqrestore(&rxe->mw_index.xa, flags);
}

/*
 * Under mw->lock: the MR beneath a window serving the request, and in
 * *@va the address in it.  A zero-based window's addresses start at 0,
 * its first byte being the MR's at mw->addr; any other window's are
 * the MR's own.
 */
static struct rxe_mr *rxe_mw_resolve_locked(struct rxe_mw *mw,
					    struct rxe_qp *qp, u32 rkey,
					    u64 *va, u32 len, int access)
{
	u64 base = (mw->access & IB_ZERO_BASED) ? 0 : mw->addr;
	u64 off;

	lockdep_assert_held(&mw->lock);

	if (mw->ibmw.rkey != rkey || mw->state != RXE_MW_VALID ||
	    mw->ibmw.pd != qp->ibqp.pd)
		return ERR_PTR(-EINVAL);
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->qpn != qp->ibqp.qp_num)
		return ERR_PTR(-EINVAL);
	if ((mw->access & access) != access)
		return ERR_PTR(-EACCES);
	if (*va < base)
		return ERR_PTR(-ERANGE);
	off = *va - base;
	if (off > mw->length || len > mw->length - off)
		return ERR_PTR(-ERANGE);

	*va = mw->addr + off;
	rxe_mr_get(mw->mr);
	return mw->mr;
}

/*
 * The part of rxe_rkey_resolve() for windows: a window of the QP's PD
 * (type 2: bound through this QP), allowing @access, covering the range.
 */
struct rxe_mr *rxe_mw_resolve(struct rxe_qp *qp, u32 rkey, u64 *va, u32 len,
			      int access)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	struct rxe_mr *mr = ERR_PTR(-EINVAL);
	unsigned long flags;
	struct rxe_mw *mw;

	mw = rxe_mw_lock(rxe, rkey, &flags);
	if (mw) {
		spin_lock(&mw->lock);
		mr = rxe_mw_resolve_locked(mw, qp, rkey, va, len, access);
		spin_unlock(&mw->lock);
	}
	rxe_mw_unlock(rxe, flags);
	return mr;
}

/*
 * The checks of a bind (IBTA 10.6.7.2.5, C10-71 to C10-80): a window
 * of the QP's PD, free if of type 2; the new rkey keeps the index; zero
 * based only if of type 2 (o10-36.2.2); an MR of the same PD that allows
 * binding (and local write when the window grants remote write or
 * atomic); the range inside the MR, zero based or not (the window's
 * first byte is the MR's at the bind's address either way).
 */
static int rxe_mw_check_bind(struct rxe_qp *qp, struct rxe_mw *mw,
			     struct rxe_mr *mr, const struct rxe_send_wqe *wqe)
{
	u64 addr = wqe->wr.wr.mw.addr, length = wqe->wr.wr.mw.length;
	int access = wqe->wr.wr.mw.access;

	lockdep_assert_held(&mw->lock);

	if (mw->ibmw.pd != qp->ibqp.pd)
		return -EINVAL;
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->state != RXE_MW_FREE)
		return -EINVAL;
	if ((wqe->wr.wr.mw.rkey >> RXE_KEY_INDEX_SHIFT) != mw->index)
		return -EINVAL;
	if ((access & IB_ZERO_BASED) && mw->ibmw.type != IB_MW_TYPE_2)
		return -EINVAL;
	if (access & ~(RXE_MW_BOUND_FLAGS | RXE_MW_ACCESS_IGNORED))
		return -EINVAL;

	/* Type 1 with length 0: an unbind, whatever MR the WQE names. */
	if (mw->ibmw.type == IB_MW_TYPE_1 && !length)
		return 0;
	if (!mr)
		return -EINVAL;

	if (mr->ibmr.pd != qp->ibqp.pd)
		return -EINVAL;
	if (!(mr->access & IB_ACCESS_MW_BIND))
		return -EACCES;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	if (addr < mr->iova || addr - mr->iova > mr->length ||
	    length > mr->length - (addr - mr->iova))
		return -ERANGE;
	return 0;
}

/*
 * Under mw->lock: binds @mw as the WQE says.  Returns 1 if the window
 * took over @mr's reference, 0 if it did not need it (an unbind of a
 * type 1 window), or an error.
 */
static int rxe_mw_bind_locked(struct rxe_qp *qp, struct rxe_mw *mw,
			      struct rxe_mr *mr, const struct rxe_send_wqe *wqe)
{
	bool unbind = mw->ibmw.type == IB_MW_TYPE_1 && !wqe->wr.wr.mw.length;
	int err;

	if (mw->ibmw.rkey != wqe->wr.wr.mw.mw_rkey)
		return -EINVAL;
	/*
	 * The MR's PD and access checked, and the window counted in its
	 * num_mw, in one step under mr->lock: a REREG_MR changes them only
	 * while no window is bound (rxe_rereg_user_mr()).  Before anything
	 * changes here: the MR may be on its way out.
	 */
	if (mr) {
		spin_lock(&mr->lock);
		err = rxe_mw_check_bind(qp, mw, mr, wqe);
		if (!err && !unbind && !rxe_mr_bind_mw(mr))
			err = -EINVAL;
		spin_unlock(&mr->lock);
	} else {
		/* Only a type 1 unbind goes on without an MR. */
		err = rxe_mw_check_bind(qp, mw, NULL, wqe);
	}
	if (err)
		return err;

	if (unbind) {
		rxe_mw_unbind(mw);
		mw->ibmw.rkey = wqe->wr.wr.mw.rkey;
		return 0;
	}

	rxe_mw_unbind(mw);
	mw->ibmw.rkey = wqe->wr.wr.mw.rkey;
	mw->mr = mr;
	mw->addr = wqe->wr.wr.mw.addr;
	mw->length = wqe->wr.wr.mw.length;
	mw->access = wqe->wr.wr.mw.access & RXE_MW_BOUND_FLAGS;
	mw->qpn = qp->ibqp.qp_num;
	mw->state = RXE_MW_VALID;
	return 1;
}

int rxe_mw_bind(struct rxe_qp *qp, const struct rxe_send_wqe *wqe)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	u32 lkey = wqe->wr.wr.mw.mr_lkey;
	struct rxe_mr *mr = NULL;
	unsigned long flags;
	struct rxe_mw *mw;
	int err = -EINVAL;

	if (lkey || wqe->wr.wr.mw.length) {
		mr = rxe_mr_lookup_lkey(to_rpd(qp->ibqp.pd), lkey, 0);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
	}

	mw = rxe_mw_lock(rxe, wqe->wr.wr.mw.mw_rkey, &flags);
	if (mw) {
		spin_lock(&mw->lock);
		err = rxe_mw_bind_locked(qp, mw, mr, wqe);
		spin_unlock(&mw->lock);
	}
	rxe_mw_unlock(rxe, flags);

	/* The window keeps the lookup's reference if it took it. */
	if (err != 1 && mr)
		rxe_mr_put(mr);
	return min(err, 0);
}

/*
 * Invalidation of a type 2 window (type 1 windows are unbound by a
 * bind of length 0, never invalidated: IBTA 10.6.7.2.6): by a local
 * WQE, or by a SEND with invalidate from the QP the window serves.
 */
static int rxe_mw_invalidate_locked(struct rxe_qp *qp, struct rxe_mw *mw,
				    u32 rkey, bool remote)
{
	lockdep_assert_held(&mw->lock);

	if (mw->ibmw.rkey != rkey || mw->ibmw.type != IB_MW_TYPE_2 ||
	    mw->ibmw.pd != qp->ibqp.pd || mw->state != RXE_MW_VALID)
		return -EINVAL;
	if (remote && mw->qpn != qp->ibqp.qp_num)
		return -EINVAL;
	rxe_mw_unbind(mw);
	return 0;
}

int rxe_mw_invalidate(struct rxe_qp *qp, u32 rkey, bool remote)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	unsigned long flags;
	struct rxe_mw *mw;
	int err = -EINVAL;

	mw = rxe_mw_lock(rxe, rkey, &flags);
	if (mw) {
		spin_lock(&mw->lock);
		err = rxe_mw_invalidate_locked(qp, mw, rkey, remote);
		spin_unlock(&mw->lock);
	}
	rxe_mw_unlock(rxe, flags);
	return err;
}

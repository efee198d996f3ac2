/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * On-demand paging MRs (IB_ACCESS_ON_DEMAND) and the page faults the
 * engine raises on them.  See rxe_odp.c.
 *
 * Owner: rxe_odp.c.
 */
#ifndef RXE_ODP_H
#define RXE_ODP_H

#include <linux/types.h>
#include <linux/workqueue.h>

#include "rxe_param.h"

struct ib_mr;
struct ib_pd;
struct rxe_mr;
struct rxe_qp;
struct rxe_dma_info;

/* A range the engine wants faulted in: by key, as the WQE or packet had it. */
struct rxe_odp_range {
	u32			key;
	u32			len;
	u64			va;
	bool			remote;		/* an rkey, or an lkey of the PD */
};

/*
 * One side of a QP's page faults (the send side: requester and
 * completer; the receive side: the responder).  At most one fault of a
 * side is under way (RXE_ODP_FAULT_BUSY); a side that misses a page
 * while one is starts none and tries again when asked to.
 *
 * The data path fills it (rxe_odp_fault_start()) while the bit is
 * clear, the work reads it while the bit is set; @err is written by
 * the work before it clears the bit and read by the data path.
 */
struct rxe_odp_fault {
	struct work_struct	work;
	struct rxe_qp		*qp;
	unsigned long		flags;
	/* The last fault's result, 0 once taken (rxe_odp_fault_error()). */
	int			err;
	unsigned int		nr;
	struct rxe_odp_range	ranges[RXE_MAX_SGE];
	/* Run by the work after the fault, with a QP reference held. */
	void			(*done)(struct rxe_qp *qp);
};

#define RXE_ODP_FAULT_BUSY	0

/* Registration of an ODP MR (rxe_reg_user_mr() passes them here). */
struct ib_mr *rxe_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 iova, int access);

/*
 * The data path on an ODP MR, under mr->lock, never sleeping: -EAGAIN
 * when a page is not mapped (for writing, if @write), nothing copied.
 */
int rxe_odp_copy(struct rxe_mr *mr, u64 iova, void *addr, u32 len,
		 bool to_mr);
/* Whether all of the range is mapped: 0 or -EAGAIN; 0 for other kinds. */
int rxe_odp_mapped(struct rxe_mr *mr, u64 iova, u32 len, bool write);
void *rxe_odp_addr(struct rxe_mr *mr, u64 iova, bool write);

void rxe_odp_fault_init(struct rxe_odp_fault *f, struct rxe_qp *qp,
			void (*done)(struct rxe_qp *qp));
/*
 * Faults in @nr ranges in process context, then calls f->done: unless a
 * fault of the side is under way.  Any context.
 */
void rxe_odp_fault_start(struct rxe_odp_fault *f,
			 const struct rxe_odp_range *ranges, unsigned int nr);
/* The scatter list of @dma from SGE @cur_sge, @sge_offset in, by lkey. */
void rxe_odp_fault_sgl(struct rxe_odp_fault *f,
		       const struct rxe_dma_info *dma, u32 cur_sge,
		       u32 sge_offset);
/*
 * The error of the side's last fault, once: a miss after a fault that
 * failed is that error, not another try.  0 while one is under way.
 */
int rxe_odp_fault_error(struct rxe_odp_fault *f);
/* No fault runs after this returns (QP destroy, after the task stops). */
void rxe_odp_fault_stop(struct rxe_odp_fault *f);

#endif /* RXE_ODP_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The verbs objects of rxe.  The core allocates them (MRs excepted) at
 * the size INIT_RDMA_OBJ_SIZE() gives in rxe_dev_ops, with the ib_*
 * object first, and fills the core's fields before the create op.
 *
 *	rxe_cq.c	CQs			rxe_mr.c	MRs
 *	rxe_qp.c	QP create/destroy	rxe_mw.c	MWs
 *	rxe_qp_attr.c	QP modify/query		rxe_ah.c	AHs, address vectors
 *	rxe_srq.c	SRQs			rxe_mcast.c	multicast groups
 */
#ifndef RXE_VERBS_H
#define RXE_VERBS_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/uverbs_ioctl.h>

#include "rxe.h"
#include "rxe_mmap.h"
#include "rxe_queue.h"
#include "rxe_req.h"
#include "rxe_resp.h"

struct rxe_dev;

struct rxe_ucontext {
	struct ib_ucontext	ibuc;
	struct rxe_mmap_ctx	mmap;
	/*
	 * The device is going under the context (disassociate_ucontext):
	 * its QPs flush their WQEs when the core destroys them.  Written
	 * and read under the core's ucontext_lock, by removal only.
	 */
	bool			removed;
};

static inline struct rxe_ucontext *to_ruc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct rxe_ucontext, ibuc);
}

struct rxe_pd {
	struct ib_pd		ibpd;
	struct rxe_dev		*rxe;
};

struct rxe_ah {
	struct ib_ah		ibah;
	struct rxe_av		av;
	u32			ah_num;
};

/* A CQE as the kernel ULP and the application each read it. */
union rxe_cqe {
	struct ib_wc		ibwc;
	struct ib_uverbs_wc	uibwc;
};

struct rxe_cq {
	struct ib_cq		ibcq;
	bool			is_user;
	/*
	 * Protects the kernel's side of the queue, the queue pointer
	 * itself (resize replaces it) and notify.  Taken in any context.
	 */
	spinlock_t		lock;
	struct rxe_queue	*queue;
	/* IB_CQ_SOLICITED or IB_CQ_NEXT_COMP while armed, else 0. */
	u8			notify;
};

struct rxe_srq {
	struct ib_srq		ibsrq;
	bool			is_user;
	u32			srq_num;
	/* Protects the queue pointer (resize), its kernel side, attrs. */
	spinlock_t		lock;
	struct rxe_queue	*queue;
	u32			max_wr;
	u32			max_sge;
	/* Armed limit: the SRQ_LIMIT_REACHED event is raised once. */
	u32			limit;
};

struct rxe_sq {
	struct rxe_queue	*queue;
	u32			max_wr;
	u32			max_sge;
	u32			max_inline;
};

struct rxe_rq {
	struct rxe_queue	*queue;	/* NULL with an SRQ */
	u32			max_wr;
	u32			max_sge;
};

struct rxe_qp {
	struct ib_qp		ibqp;
	/*
	 * References: one of the QP's own from create to destroy, one per
	 * packet or lookup holding it (rxe_qp_get()).  Destroy drops its
	 * own and waits for ref_done before anything goes.
	 */
	refcount_t		ref;
	struct completion	ref_done;
	bool			is_user;
	enum ib_sig_type	sq_sig_type;
	/* RoCEv2 UDP source port, from the QP number. */
	u16			src_port;
	/* QP1's number of the range, kept empty (rxe_qp_alloc_num()). */
	u32			gsi_slot;
	/*
	 * The counter set the QP counts in, NULL for the port's counters
	 * (rxe_qp_counter_inc()).  Written by the core's (serialised)
	 * binding and unbinding; read by the protocol engine under RCU.
	 */
	struct rxe_counter_set __rcu *counter_set;

	/*
	 * Protects attr, the address vectors and the kernel's side of the
	 * queues.  modify_qp and query_qp run in process context; the
	 * protocol engine will take it from softirq: _bh.  The engine
	 * builds each packet from one copy of pri_av taken under it
	 * (rxe_qp_path()), never from pri_av itself.
	 */
	spinlock_t		lock;
	/* Every attribute query_qp returns, as last modified. */
	struct ib_qp_attr	attr;
	struct rxe_av		pri_av;
	struct rxe_av		alt_av;

	struct rxe_sq		sq;
	struct rxe_rq		rq;

	/* The protocol engine's state of each role. */
	struct rxe_req_info	req;
	struct rxe_comp_info	comp;
	struct rxe_resp_info	resp;
};

/*
 * Counts @index for @qp: in its counter set when it is bound to one
 * ("rdma statistic qp"), else in the port's counters, so that the core's
 * port totals (port + sets) count each event once.  A set is freed an
 * RCU grace period after its counter goes (rxe_counter_dealloc()).
 */
static inline void rxe_qp_counter_add(struct rxe_qp *qp,
				      enum rxe_counter index, u32 n)
{
	struct rxe_counter_set *set;

	rcu_read_lock();
	set = rcu_dereference(qp->counter_set);
	if (set)
		atomic64_add(n, &set->value[index]);
	else
		atomic64_add(n, &to_rdev(qp->ibqp.device)->stats_counters[index]);
	rcu_read_unlock();
}

static inline void rxe_qp_counter_inc(struct rxe_qp *qp,
				      enum rxe_counter index)
{
	rxe_qp_counter_add(qp, index, 1);
}

/* rxe_mr.c: the part of a key that names the MR or MW. */
#define RXE_KEY_INDEX_SHIFT	8
#define RXE_KEY_TAG_MASK	0xff
/* rxe_mr.num_mw of an MR being deregistered. */
#define RXE_MR_NUM_MW_DEAD	(-1)

enum rxe_mr_kind {
	RXE_MR_DMA,		/* all of kernel memory, for ULPs */
	RXE_MR_USER,		/* pinned user pages */
	RXE_MR_FAST,		/* ib_alloc_mr(): pages set by map_mr_sg */
	RXE_MR_ODP,		/* user memory paged on demand (rxe_odp.c) */
};

enum rxe_mr_state {
	RXE_MR_FREE,		/* a fast-reg MR not registered (yet) */
	RXE_MR_VALID,
};

/*
 * A memory region.  The data path finds it by the index of a key
 * (rxe->mr_index, under RCU) and takes a reference; deregistration
 * unpublishes the index, then waits for the references before the
 * pages go, and the MR a grace period later.
 */
struct rxe_mr {
	struct ib_mr		ibmr;
	enum rxe_mr_kind	kind;
	u32			index;
	refcount_t		ref;
	struct completion	ref_done;

	/*
	 * Protects state, access, the keys, iova/length and the page list
	 * of a fast-reg MR, which the send queue changes (fast_reg, local
	 * invalidate) while packets use the MR; access, rkey and ibmr.pd
	 * of a user MR, which REREG_MR changes (rxe_rereg_user_mr()), and
	 * a window's bind counts in num_mw under it.  Taken in any context.
	 * Fixed for the other kinds.
	 */
	spinlock_t		lock;
	enum rxe_mr_state	state;
	int			access;
	/*
	 * The keys the MR answers to.  ibmr.lkey/rkey are the ULP's: it
	 * advances them (ib_update_fast_reg_key()) when it posts the REG_MR
	 * that makes them valid, maybe behind a LOCAL_INV of the old key
	 * (rdma_rw posts both at once).
	 */
	u32			lkey;
	u32			rkey;
	u64			iova;
	u64			length;
	/*
	 * Bound memory windows: while any, the MR stays registered.
	 * RXE_MR_NUM_MW_DEAD once deregistration has begun: no window
	 * binds any more (rxe_mr_bind_mw()).
	 */
	atomic_t		num_mw;

	struct ib_umem		*umem;	/* RXE_MR_USER, RXE_MR_ODP */
	/*
	 * RXE_MR_ODP: the blocks of the process's range an invalidation is
	 * unmapping, none when equal; under lock (rxe_odp.c).
	 */
	u64			odp_inval_start;
	u64			odp_inval_end;
	/*
	 * RXE_MR_USER: the pinned pages, byte iova + i at page_off + i of
	 * pages[]; RXE_MR_FAST: kernel addresses of page_size blocks.
	 */
	struct page		**pages;
	u64			*buf;
	unsigned int		npages;
	unsigned int		max_pages;	/* RXE_MR_FAST capacity */
	unsigned int		page_shift;
	unsigned int		page_off;
	struct rcu_head		rcu;
};

enum rxe_mw_state {
	RXE_MW_FREE,		/* unbound */
	RXE_MW_VALID,		/* bound to mr */
};

/*
 * A memory window.  Found by the index of its rkey as MRs are; every
 * field below lock may change by a bind or an invalidation while
 * packets use the window.
 */
struct rxe_mw {
	struct ib_mw		ibmw;
	u32			index;
	/* Protects everything below; taken in any context. */
	spinlock_t		lock;
	enum rxe_mw_state	state;
	struct rxe_mr		*mr;	/* referenced while bound */
	int			access;
	u64			addr;
	u64			length;
	/* Type 2: the QP it was bound through, the only one it serves. */
	u32			qpn;
};

static inline struct rxe_pd *to_rpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct rxe_pd, ibpd);
}

static inline struct rxe_cq *to_rcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct rxe_cq, ibcq);
}

static inline struct rxe_qp *to_rqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct rxe_qp, ibqp);
}

static inline struct rxe_srq *to_rsrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct rxe_srq, ibsrq);
}

static inline struct rxe_ah *to_rah(struct ib_ah *ibah)
{
	return container_of(ibah, struct rxe_ah, ibah);
}

static inline struct rxe_mr *to_rmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct rxe_mr, ibmr);
}

static inline struct rxe_mw *to_rmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct rxe_mw, ibmw);
}

/* The user context of a create op's udata, NULL for kernel callers. */
static inline struct rxe_ucontext *rxe_udata_ucontext(struct ib_udata *udata)
{
	return rdma_udata_to_drv_context(udata, struct rxe_ucontext, ibuc);
}

/* rxe_cq.c */
int rxe_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
int rxe_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int rxe_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int rxe_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int rxe_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int rxe_cq_post(struct rxe_cq *cq, const union rxe_cqe *cqe, bool solicited);

/* rxe_qp.c */
int rxe_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int rxe_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int rxe_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);

/* rxe_qp_attr.c */
void rxe_qp_init_attr(struct rxe_qp *qp, const struct ib_qp_init_attr *init);
int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int rxe_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);

/* rxe_srq.c */
int rxe_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int rxe_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

/* rxe_mr.c */
struct ib_mr *rxe_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *rxe_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *rxe_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 iova, int access,
				struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *rxe_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
/* rxe_mr.c, for the kinds registered elsewhere (rxe_odp.c) */
struct rxe_mr *rxe_mr_alloc(struct ib_pd *ibpd, enum rxe_mr_kind kind,
			    int access);
void rxe_mr_publish(struct rxe_dev *rxe, struct rxe_mr *mr);
bool rxe_mr_in_range(const struct rxe_mr *mr, u64 iova, u64 len);

/* rxe_mw.c */
int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int rxe_dealloc_mw(struct ib_mw *ibmw);
struct rxe_mr *rxe_mw_resolve(struct rxe_qp *qp, u32 rkey, u64 *va, u32 len,
			      int access);
int rxe_mw_invalidate(struct rxe_qp *qp, u32 rkey, bool remote);

/* rxe_ah.c */
int rxe_av_from_attr(struct rxe_dev *rxe, struct rxe_av *av,
		     const struct rdma_ah_attr *attr);
void rxe_av_to_attr(const struct rxe_av *av, struct rdma_ah_attr *attr);
int rxe_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata);
int rxe_modify_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int rxe_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int rxe_destroy_ah(struct ib_ah *ibah, u32 flags);

/* rxe_mcast.c */
int rxe_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void rxe_mcast_detach_qp(struct rxe_qp *qp);
unsigned int rxe_mcast_get_qps(struct rxe_dev *rxe, const union ib_gid *mgid,
			       struct rxe_qp **qps, unsigned int max);
void rxe_mcast_init(struct rxe_dev *rxe);
void rxe_mcast_cleanup(struct rxe_dev *rxe);

extern const struct ib_device_ops rxe_dev_ops;

#endif /* RXE_VERBS_H */

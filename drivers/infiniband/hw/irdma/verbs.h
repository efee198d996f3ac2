/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * irdma's verbs objects: what each holds beside its device-side twin
 * (a PD number, a CQ or QP id and its rings), and the verbs each file
 * implements.
 */
#ifndef OOT_IRDMA_VERBS_H
#define OOT_IRDMA_VERBS_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/if_vlan.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "irdma.h"

/* The one port of an E810 function's RDMA device. */
#define IRDMA_PORT		1
/* The MAD layer's QP1 is always the device's QP 1. */
#define IRDMA_GSI_QPN		1
/* Resource numbers the device reserves: 0..2 of QPs, CQs, PDs. */
#define IRDMA_FIRST_QP		3
#define IRDMA_FIRST_CQ		3
#define IRDMA_FIRST_PD		3
#define IRDMA_MAX_PDS		262144
#define IRDMA_MAX_SGE		13
#define IRDMA_MAX_INLINE	101
#define IRDMA_MAX_CQE		1048574
#define IRDMA_MAX_CQ_RING	((1u << 21) - 1)
/* Send and receive queue depths, in quanta. */
#define IRDMA_MAX_WQ_QUANTA	32768
#define IRDMA_SQ_RSVD		258
#define IRDMA_RQ_RSVD		1
#define IRDMA_MAX_QP_WR		((IRDMA_MAX_WQ_QUANTA - IRDMA_SQ_RSVD) >> 3)
#define IRDMA_MAX_IRD		127
#define IRDMA_MAX_ORD		255

struct irdma_pd {
	struct ib_pd ibpd;
	u32 id;
};

static inline struct irdma_pd *to_ipd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct irdma_pd, ibpd);
}

/*
 * A CQ.  @lock protects the ring's head and the arming sequence; the
 * CQ's QPs' queues are looked up under it (their wr_ids).  @refs counts
 * the CQ's table entry and each event being delivered (eq.c's tasklet):
 * destroy waits for @free after removing the entry.
 */
struct irdma_cq {
	struct ib_cq ibcq;
	u32 id;
	u32 ceq;
	spinlock_t lock;		/* see above */
	struct irdma_ring ring;		/* 32-byte entries */
	struct irdma_dma shadow;
	u8 arm_seq;
	refcount_t refs;
	struct completion free;
};

static inline struct irdma_cq *to_icq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct irdma_cq, ibcq);
}

/*
 * A work queue of a kernel QP: a ring of 32-byte quanta in @qp->q.
 * @head is where the next WQE goes (under @lock, by post), @tail the
 * oldest not completed (under the CQ's lock, by poll); per WQE, by the
 * quantum (SQ) or slot (RQ) it starts at: @wrid its wr_id, and for the
 * SQ @nq its quanta, @op its completion's opcode, @len its length.
 */
struct irdma_wq {
	__le64 *base;
	u32 quanta;		/* SQ: quanta; RQ: slots */
	u32 shift;		/* RQ: a slot is 1 << shift quanta */
	u32 head, tail;
	bool polarity;
	bool flush_first;	/* the next drained WR takes the CQE's status */
	u64 *wrid;
	u8 *nq;
	u8 *op;
	u32 *len;
	spinlock_t lock;		/* see above */
};

/*
 * A QP.  Kernel QPs' rings, context and shadow area are in @q; the
 * context is rebuilt into @ctx at each command from the attributes kept
 * here (the device copies it whole at create and modify).  @refs and
 * @free as for the CQ, for asynchronous events.
 */
struct irdma_qp {
	struct ib_qp ibqp;
	u32 id;
	u8 hw_type;			/* IRDMA_QP_TYPE_ROCE_* */
	struct mutex mutex;		/* modify, query: the fields below */
	enum ib_qp_state state;
	u8 hw_state;			/* enum irdma_hw_qp_state */
	struct ib_qp_cap cap;
	bool sq_sig_all;
	struct irdma_dma ctx;
	struct irdma_dma q;		/* SQ, RQ, shadow area */
	struct irdma_wq sq, rq;
	u32 sq_shift;
	u32 max_inline;
	u64 compl_ctx;			/* the CQEs' and AEQEs' */
	__le64 *shadow;
	bool ws;			/* holds the work scheduler tree */

	/* The attributes the context is built from. */
	u32 qkey;
	u32 dest_qpn;
	u32 sq_psn, rq_psn;
	u32 pmtu;			/* bytes */
	u8 retry_cnt, rnr_retry;
	u8 ord, ird;
	int access;
	u16 arp_idx;
	bool av_valid;
	bool ipv4;
	u8 ttl, tos;
	u16 vlan;
	u32 flow_label;
	u16 sport;
	u8 smac[ETH_ALEN];
	__be32 sip[4], dip[4];

	refcount_t refs;
	struct completion free;
};

static inline struct irdma_qp *to_iqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct irdma_qp, ibqp);
}

/* main.c */
int irdma_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata);

/* port.c */
int irdma_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr);
int irdma_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer irdma_get_link_layer(struct ib_device *ibdev,
					  u32 port);
int irdma_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		     u16 *pkey);
int irdma_port_events_init(struct irdma_dev *dev);
void irdma_port_events_fini(struct irdma_dev *dev);

/* pd.c */
int irdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int irdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* mr.c */
struct ib_mr *irdma_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *irdma_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 virt, int access, struct ib_udata *udata);
int irdma_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);

/* cq_kern.c */
int irdma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int irdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int irdma_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc);
int irdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void irdma_cq_clean(struct irdma_cq *cq, u32 qpn);

/* qp.c */
int irdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		    struct ib_udata *udata);
int irdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int irdma_qp_hw_cmd(struct irdma_qp *qp, u8 opcode, u8 next_state,
		    u64 extra_hdr);
void irdma_qp_put(struct irdma_qp *qp);
struct irdma_qp *irdma_qp_get(struct irdma_dev *dev, u32 id);

/* qp_modify.c */
int irdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int mask, struct ib_udata *udata);
int irdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);

/* wr.c */
int irdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad);
int irdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad);

/* arp.c */
int irdma_arp_get(struct irdma_dev *dev, const __be32 *ip, const u8 *mac);
int irdma_arp_init(struct irdma_dev *dev);
void irdma_arp_fini(struct irdma_dev *dev);

/* ws.c */
int irdma_ws_get(struct irdma_dev *dev);
void irdma_ws_put(struct irdma_dev *dev);

#endif /* OOT_IRDMA_VERBS_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * irdma's verbs objects: what each holds beside its device-side twin
 * (a PD number, a CQ or QP id and its rings), and the verbs each file
 * implements.
 */
#ifndef OOT_IRDMA_VERBS_H
#define OOT_IRDMA_VERBS_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/if_vlan.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/irdma-abi.h>

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
	struct irdma_ring ring;		/* 32-byte entries (kernel CQs) */
	struct irdma_dma shadow;
	u8 arm_seq;

	/* What CREATE_CQ tells the device. */
	u32 size;			/* entries */
	u64 ring_pa;			/* contiguous ring, or */
	u32 first_pble;			/* ... its pages' PBLEs (virt) */
	bool virt;
	dma_addr_t shadow_pa;

	/* A user CQ's ring and shadow area, pinned (libirdma's). */
	struct irdma_ring_mem *uring, *ushadow;
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
	bool user;			/* never privileged */
	struct irdma_ring_mem *uring;	/* a user QP's rings (libirdma's) */
	u64 sq_addr, rq_addr;		/* PAs, or first PBLEs if virt */
	bool virt;
	dma_addr_t shadow_pa;
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

	/* Flushes asked by posts to a QP in error (flush.c). */
	unsigned long reflush;
	struct work_struct flush_work;

	refcount_t refs;
	struct completion free;
};

static inline struct irdma_qp *to_iqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct irdma_qp, ibqp);
}

/*
 * A user context: its doorbell page mapping, and the registrations of
 * its QPs' and CQs' rings (libirdma registers them as memory regions of
 * type QP or CQ before creating the QP or CQ, which finds them by
 * address), under @regs_lock.
 */
struct irdma_ucontext {
	struct ib_ucontext ibuc;
	struct rdma_user_mmap_entry *db;
	bool raw_attrs;			/* create_qp takes WR counts */
	spinlock_t regs_lock;		/* qp_regs, cq_regs */
	struct list_head qp_regs;
	struct list_head cq_regs;
};

static inline struct irdma_ucontext *to_iuc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct irdma_ucontext, ibuc);
}

/*
 * Pinned user memory holding a user QP's or CQ's rings (mr.c): pages of
 * 4 KiB, listed in PBLEs (level 1) when there are more than the device
 * takes by address.  Created by reg_user_mr of type QP or CQ and put on
 * the context's list; a QP or CQ takes it off the list with a reference
 * (irdma_ring_mem_take), so that deregistering the region while the QP
 * or CQ lives leaves the memory pinned until both are gone.
 */
struct irdma_ring_mem {
	struct kref ref;
	struct irdma_dev *dev;
	struct ib_umem *umem;
	u64 va;
	u16 type;			/* IRDMA_MEMREG_TYPE_QP or _CQ */
	u16 sq_pages, rq_pages, cq_pages;
	u32 npages;
	dma_addr_t *pages;		/* each 4 KiB page's address */
	struct irdma_pble pble;		/* n == 0: none */
	struct list_head node;		/* on the context's list */
	bool listed;
};

/*
 * A memory region: an STag (lkey and rkey) with its translation, or,
 * for libirdma's ring registrations, only @ring.
 */
struct irdma_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	u32 stag;
	u64 iova;
	u64 len;
	u32 npages;
	u32 page_shift;
	struct irdma_pble pble;		/* n == 0: pages contiguous from @pa */
	dma_addr_t pa;
	__le64 *pages;			/* fast registration: its PBLEs */
	u32 max_pages;
	struct irdma_ring_mem *ring;	/* type QP or CQ */
};

static inline struct irdma_mr *to_imr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct irdma_mr, ibmr);
}

/* A memory window: its STag (rkey) only. */
struct irdma_mw {
	struct ib_mw ibmw;
	u32 stag;
};

static inline struct irdma_mw *to_imw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct irdma_mw, ibmw);
}

/* An address handle: its index in the device's table (FSIAV). */
struct irdma_ah {
	struct ib_ah ibah;
	u32 id;
	struct rdma_ah_attr attr;
};

static inline struct irdma_ah *to_iah(struct ib_ah *ibah)
{
	return container_of(ibah, struct irdma_ah, ibah);
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
struct ib_mr *irdma_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			     u32 max_num_sg);
int irdma_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
/*
 * The ring registration of TYPE at VA in context UC, taken off its list
 * with a reference; NULL when there is none.
 */
struct irdma_ring_mem *irdma_ring_mem_take(struct irdma_ucontext *uc,
					   u16 type, u64 va);
void irdma_ring_mem_put(struct irdma_ring_mem *m);
/* The device's rights for IB access flags; its page size code (<0: none). */
u8 irdma_mr_rights(int access);
int irdma_page_size_code(u64 size);
int irdma_stag_new(struct irdma_dev *dev, u32 *stag);
void irdma_stag_free(struct irdma_dev *dev, u32 stag);
/* Drop the context's registrations no QP or CQ took (context teardown). */
void irdma_ring_mem_release_all(struct irdma_ucontext *uc);

/* mw.c */
int irdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int irdma_dealloc_mw(struct ib_mw *ibmw);

/* ah.c */
int irdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *attr,
		    struct ib_udata *udata);
int irdma_destroy_ah(struct ib_ah *ibah, u32 flags);
int irdma_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);

/* cq_kern.c */
int irdma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int irdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int irdma_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc);
int irdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void irdma_cq_clean(struct irdma_cq *cq, u32 qpn);
struct irdma_cq *irdma_cq_get(struct irdma_dev *dev, u32 id);
void irdma_cq_put(struct irdma_cq *cq);
int irdma_cq_hw(struct irdma_dev *dev, struct irdma_cq *cq, u8 opcode,
		u64 extra_hdr);

/* cq.c */
int irdma_user_cq_create(struct irdma_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata);
void irdma_user_cq_free(struct irdma_cq *cq);
int irdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);

/* ucontext.c */
int irdma_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void irdma_dealloc_ucontext(struct ib_ucontext *ibuc);
int irdma_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void irdma_mmap_free(struct rdma_user_mmap_entry *e);
void irdma_disassociate_ucontext(struct ib_ucontext *ibuc);

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

/* flush.c */
void irdma_qp_reflush(struct irdma_qp *qp, bool sq);
void irdma_qp_flush_init(struct irdma_qp *qp);
void irdma_qp_flush_fini(struct irdma_qp *qp);
int irdma_qp_flush(struct irdma_qp *qp, bool sq, bool rq);

/* wr.c */
int irdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad);
int irdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad);

/*
 * A path's addresses (arp.c): the source GID entry's IP, MAC and VLAN
 * (VLAN_N_VID: none), the destination GID's IP; IPv4 in word 3, the
 * other words 0, as QP contexts and address handles take them.
 */
struct irdma_path_addrs {
	__be32 sip[4], dip[4];
	bool ipv4;
	u16 vlan;
	u8 smac[ETH_ALEN];
};

/* The words of IP in one of the device's qwords: HI's above LO's. */
static inline u64 irdma_ip_q(const __be32 *ip, unsigned int hi,
			     unsigned int lo)
{
	return (u64)be32_to_cpu(ip[hi]) << 32 | be32_to_cpu(ip[lo]);
}

/* arp.c */
int irdma_path_addrs(const struct ib_global_route *grh,
		     struct irdma_path_addrs *a);
int irdma_arp_get(struct irdma_dev *dev, const __be32 *ip, const u8 *mac);
int irdma_arp_init(struct irdma_dev *dev);
void irdma_arp_fini(struct irdma_dev *dev);

/* stats.c */
int irdma_stats_init(struct irdma_dev *dev);
void irdma_stats_fini(struct irdma_dev *dev);
struct rdma_hw_stats *irdma_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int irdma_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);

/* mcg.c */
int irdma_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int irdma_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* ws.c */
int irdma_ws_get(struct irdma_dev *dev);
void irdma_ws_put(struct irdma_dev *dev);

#endif /* OOT_IRDMA_VERBS_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5_ib: the RDMA device of a ConnectX function, on Debian's mlx5_core.
 *
 * mlx5_core owns the PCI function, its command interface, its EQs and
 * their interrupts, and hands us an auxiliary device ("mlx5_core.rdma").
 * Everything here talks to the device through mlx5_core's exported API
 * and the command layouts of the public <linux/mlx5/mlx5_ifc.h>.  The
 * objects below are ours; their device-side twins (PDs, CQs, QPs, mkeys,
 * UARs) are created and destroyed with the PRM's commands.
 */
#ifndef MLX5_IB_H
#define MLX5_IB_H

#include <linux/auxiliary_bus.h>
#include <linux/mlx5/cq.h>
#include <linux/mlx5/driver.h>
#include <linux/mlx5/fs.h>
#include <linux/mlx5/qp.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/mlx5-abi.h>

/* What the command layouts call a device page: 4 KiB, whatever the CPU's. */
#define MLX5_IB_ADAPTER_PAGE_SHIFT	12

/* The one physical port of the functions we drive (no multiport yet). */
#define MLX5_IB_PORT			1

/*
 * struct mlx5_ib_dev - one RDMA device over one mlx5_core function
 *
 * The function's Ethernet netdev (mlx5e) is learnt from netdev
 * notifications and bound to port 1 with ib_device_set_netdev() for the
 * core's GID table; the port queries read it from @netdev.
 */
struct mlx5_ib_dev {
	struct ib_device ib_dev;
	struct mlx5_core_dev *mdev;

	/* mlx5_core's firmware events: port change, fatal error. */
	struct notifier_block mdev_events;
	/* QP and SRQ asynchronous events (EQE types 0x1-0x14). */
	struct mlx5_nb qp_events;
	struct notifier_block netdev_events;

	spinlock_t netdev_lock;		/* protects netdev */
	struct net_device *netdev;	/* held (dev_hold) */

	/*
	 * QPs by number, for the asynchronous events of the EQ, which
	 * arrive in atomic context: xa_lock protects the lookup and the
	 * reference taken under it (mlx5_ib_qp.refcount).
	 */
	struct xarray qps;

	/*
	 * The kernel CQs, for the events a fatal error owes their
	 * consumers, which kcq_work raises (cq_kern.c): under kcq_lock,
	 * taken in any context.
	 */
	spinlock_t kcq_lock;
	struct list_head kcqs;
	struct work_struct kcq_work;

	/* The memory registration QP that changes user keys (umr.c). */
	struct mlx5_ib_umr *umr;

	/*
	 * The flow tables of the verbs' steering rules, by priority, each
	 * with the rules in it (flow.c); under flow_lock.
	 */
	struct mutex flow_lock;
	struct mlx5_ib_flow_prio {
		struct mlx5_flow_table *ft;
		unsigned int refcount;
	} flow_prios[MLX5_BY_PASS_NUM_REGULAR_PRIOS];

	/* Port 1's Q counter set, named by every QP (counters.c); 0: none. */
	u16 q_counter;

	/* The domain and PD of XRC QPs that have none (xrc.c). */
	struct {
		u32 pdn;
		u32 xrcdn;
		bool valid;
	} devr;
};

static inline struct mlx5_ib_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mlx5_ib_dev, ib_dev);
}

/*
 * A user page of doorbell records, pinned while any CQ or QP of the
 * context uses one of its records.  libmlx5 packs several records into
 * each page; the device reads and writes them by DMA address.
 */
struct mlx5_ib_user_db_page {
	struct list_head list;		/* in mlx5_ib_ucontext.db_pages */
	struct ib_umem *umem;
	unsigned long user_virt;	/* page aligned */
	unsigned int refcnt;		/* under mlx5_ib_ucontext.db_lock */
};

/* A doorbell record in use: its page and the device's address of it. */
struct mlx5_ib_user_db {
	struct mlx5_ib_user_db_page *page;
	dma_addr_t dma;
};

struct mlx5_ib_ucontext {
	struct ib_ucontext ibuc;
	u32 tdn;			/* the context's transport domain */
	u8 cqe_version;			/* what libmlx5 asked for, 0 or 1 */

	struct mutex db_lock;		/* protects db_pages and their refcnt */
	struct list_head db_pages;

	/*
	 * The UAR pages the context holds, by device index, from ALLOC
	 * until the last mapping goes (mlx5_ib_mmap_free()): the pages its
	 * CQs and QPs may name.  The xarray's own lock.
	 */
	struct xarray uars;
};

static inline struct mlx5_ib_ucontext *to_mucontext(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct mlx5_ib_ucontext, ibuc);
}

/*
 * What an mmap() offset of a context stands for: a UAR page (doorbells
 * and the CQ arm register), non-cached.  The entry lives while its
 * ioctl object or any mapping of it does; the last of them frees the
 * UAR (mlx5_ib_mmap_free()).
 */
struct mlx5_ib_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	u32 uar_index;
	u64 address;			/* physical address in BAR0 */
};

/*
 * mmap offsets (pages): libmlx5's legacy commands (in bits 15:8, such as
 * the clock page's) lie below the first offset of an entry.
 */
#define MLX5_IB_MMAP_CMD_SHIFT		8
#define MLX5_IB_MMAP_FIRST_ENTRY	BIT(16)

static inline struct mlx5_ib_mmap_entry *
to_mmmap(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct mlx5_ib_mmap_entry, rdma_entry);
}

struct mlx5_ib_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

static inline struct mlx5_ib_xrcd *to_mxrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct mlx5_ib_xrcd, ibxrcd);
}

struct mlx5_ib_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct mlx5_ib_pd *to_mpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct mlx5_ib_pd, ibpd);
}

struct mlx5_ib_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;		/* NULL for DMA MRs */
	u32 mkey;
	int access;			/* a user MR's, for rereg */

	/*
	 * Fast registration (fastreg.c): the page list a REG_MR's UMR
	 * reads, @max_pages entries (a whole number of 8-entry blocks)
	 * mapped for the device, the first @npages of ib_map_mr_sg()'s.
	 * The ULP serialises mapping and posting per MR.
	 */
	__be64 *pages;
	dma_addr_t pages_dma;
	u32 npages;
	u32 max_pages;
};

static inline struct mlx5_ib_mr *to_mmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mlx5_ib_mr, ibmr);
}

/*
 * A CQ of user space or of the kernel.
 *
 * User space: the ring (@umem) and doorbell record (@db) are libmlx5's
 * memory, which the device writes and libmlx5 polls; the kernel only
 * creates, resizes and destroys the CQ and forwards its events.
 *
 * Kernel (the ULPs', the MAD layer's): the ring is @buf, 64-byte CQEs
 * reached through @fbc, the record @kdb ([0] consumer index, [1] arm),
 * and mlx5_ib_poll_cq() turns CQEs into work completions (cq_kern.c).
 */
struct mlx5_ib_cq {
	struct ib_cq ibcq;
	struct mlx5_core_cq mcq;

	struct ib_umem *umem;		/* changed by resize, under resize_lock */
	struct mlx5_ib_user_db db;
	struct mutex resize_lock;	/* serialises a user CQ's resizes */

	struct mlx5_frag_buf buf;
	struct mlx5_frag_buf_ctrl fbc;
	struct mlx5_db kdb;
	/*
	 * Protects mcq.cons_index and the CQEs from it to the device's
	 * producer: polling, the missed-event check of arming, and the
	 * cleaning out of a destroyed or reset QP's CQEs.  Taken with
	 * interrupts off (ib_poll_cq() may be called from any context);
	 * nests inside a QP's queue locks nowhere.
	 */
	spinlock_t lock;
	bool kernel;
	struct list_head kcq_entry;	/* in mlx5_ib_dev.kcqs */
	/* Armed since its last event: the next one is owed (atomic bit). */
	unsigned long armed;
};

static inline struct mlx5_ib_cq *to_mcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mlx5_ib_cq, ibcq);
}

static inline struct mlx5_ib_cq *to_mibcq(struct mlx5_core_cq *mcq)
{
	return container_of(mcq, struct mlx5_ib_cq, mcq);
}

/* A WQE of an SRQ's list starts with the link to the next. */
#define MLX5_IB_SRQ_NEXT_SEG		sizeof(struct mlx5_wqe_srq_next_seg)

/*
 * A basic SRQ: an RMP of the device (srq.c).  A user SRQ's list and
 * record are libmlx5's (@umem, @db); a kernel SRQ's are ours
 * (srq_kern.c), with the bookkeeping of its free list.
 */
struct mlx5_ib_srq {
	struct ib_srq ibsrq;
	u32 srqn;			/* the RMP's number */
	struct ib_umem *umem;
	struct mlx5_ib_user_db db;
	u32 max_wr;
	u32 max_sge;

	struct mutex lock;		/* serialises modify_srq, protects limit */
	u32 limit;

	bool xrc;			/* an XRC SRQ, not an RMP */
	bool kernel;
	struct mlx5_frag_buf buf;
	struct mlx5_frag_buf_ctrl fbc;
	struct mlx5_db kdb;
	u64 *wrid;			/* by WQE index */
	/*
	 * The free WQEs are a list from @head, the next to post, to
	 * @tail, which is never posted: a completed WQE is linked after
	 * it, and the device reads a WQE's link only once posted.
	 * @counter is what was posted, for the record.  Taken by posting
	 * and by the poller of a CQ (inside its CQ's lock).
	 */
	spinlock_t list_lock;
	u16 head;
	u16 tail;
	u16 counter;
};

static inline struct mlx5_ib_srq *to_msrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct mlx5_ib_srq, ibsrq);
}

/*
 * One work queue of a kernel QP: a ring of @cnt slots (WQEs of the RQ,
 * 64-byte basic blocks of the SQ) in the QP's buffer, and what the
 * completions need to know of what was posted.
 *
 * @head is what was posted, @tail what completed, both free-running;
 * @lock serialises posting against itself (the poller moves @tail under
 * its CQ's lock: a poster reads it to see room, never more than stale).
 */
struct mlx5_ib_wq {
	struct mlx5_frag_buf_ctrl fbc;
	spinlock_t lock;		/* serialises posting */
	u32 head;
	u32 tail;
	u32 cnt;
	u32 max_gs;			/* data segments a WQE holds */
	u64 *wrid;			/* by slot (SQ: a WQE's first block) */
	/* SQ only, by a WQE's first block: */
	u32 *next;			/* head after the WQE */
	u8 *wc_op;			/* enum ib_wc_opcode */
};

/*
 * A work queue of the Ethernet side over a user ring (eth_wq.c): an RQ
 * or SQ object of the device.  @state is what it was last moved to,
 * changed only under its owner's serialisation (modify_qp, modify_wq).
 */
struct mlx5_ib_eth_wq {
	struct ib_umem *umem;
	u32 num;			/* the RQ's or SQ's number */
	u8 state;			/* MLX5_RQC_STATE_* = MLX5_SQC_STATE_* */
};

/* What such a queue is made of. */
struct mlx5_ib_eth_wq_attr {
	u64 buf_addr;			/* the ring, in the caller's memory */
	u32 wqe_count;			/* a power of two */
	u32 wqe_shift;			/* the stride (SQ: 6, basic blocks) */
	dma_addr_t dbr;			/* the doorbell record */
	u32 pdn;
	u32 cqn;
	u32 uidx;			/* the user index its CQEs carry */
	u32 uar_page;			/* SQ: the UAR it is rung on */
	u32 tisn;			/* SQ: the TIS it sends through */
	bool cvlan_strip;		/* RQ */
	bool scatter_fcs;		/* RQ */
};

/* An indirection table of WQs: an RQ table of the device (wq.c). */
struct mlx5_ib_rwq_ind_table {
	struct ib_rwq_ind_table ibtbl;
	u32 rqtn;
};

static inline struct mlx5_ib_rwq_ind_table *
to_mrwq_ind_table(struct ib_rwq_ind_table *ibtbl)
{
	return container_of(ibtbl, struct mlx5_ib_rwq_ind_table, ibtbl);
}

/*
 * What a kernel QP has beyond a user one: its buffer (RQ then SQ, as
 * for libmlx5), doorbell record, the UAR register its SQ is rung on,
 * and the rings' bookkeeping (qp_kern.c, wr.c).
 */
struct mlx5_ib_kqp {
	struct mlx5_frag_buf buf;
	struct mlx5_db db;
	struct mlx5_sq_bfreg bfreg;
	struct mlx5_ib_wq sq;
	struct mlx5_ib_wq rq;
	u32 sq_max_bbs;			/* blocks of the largest WQE */
	u32 max_inline;
	bool sig_all;
};

/*
 * A QP of user space (RC, UC, UD) or of the kernel (those and GSI): one
 * buffer holds the RQ then the SQ; the kernel moves the QP through its
 * states with the PRM's transition commands, which carry the QP context.
 * User space posts to its rings itself; a kernel QP has @k.
 *
 * @refcount lets the EQ's event handler use the QP outside the xarray's
 * lock; destroy unpublishes the QP, drops its reference and waits on
 * @free for the handler's.  A poller of a kernel CQ finds the QP in the
 * xarray under its CQ's lock, which destroy takes after unpublishing
 * (mlx5_ib_kcq_clean()).
 */
struct mlx5_ib_qp {
	struct ib_qp ibqp;
	u32 qpn;
	struct ib_umem *umem;
	struct mlx5_ib_user_db db;
	struct mlx5_ib_kqp *k;
	bool reg_umr;			/* the driver's own UMR QP (umr.c) */

	/* What the creator asked for, which query_qp answers. */
	struct ib_qp_cap cap;

	/*
	 * The state the device was last moved to, and the attributes it
	 * was given; changed only by modify_qp, which the core serialises
	 * per QP.
	 */
	enum ib_qp_state state;
	struct ib_qp_attr attr;		/* what query_qp answers, but the state */

	refcount_t refcount;
	struct completion free;

	/*
	 * A raw packet QP is no QP of the device (qp_raw.c): an SQ sending
	 * through a TIS of the context's transport domain and an RQ behind
	 * a TIR, which flow steering rules name (flow.c).  An RSS QP is a
	 * TIR only, hashing over its indirection table's WQs (rss.c).
	 */
	struct {
		struct mlx5_ib_eth_wq sq;
		struct mlx5_ib_eth_wq rq;
		u32 tisn;
		u32 tirn;
	} raw;
};

static inline struct mlx5_ib_qp *to_mqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mlx5_ib_qp, ibqp);
}

/* main.c */

/* The fields an RSS QP may hash: outer IPv4/IPv6 addresses, TCP/UDP ports. */
#define MLX5_IB_RSS_HASH_FIELDS	(MLX5_RX_HASH_SRC_IPV4 | MLX5_RX_HASH_DST_IPV4 | \
				 MLX5_RX_HASH_SRC_IPV6 | MLX5_RX_HASH_DST_IPV6 | \
				 MLX5_RX_HASH_SRC_PORT_TCP | \
				 MLX5_RX_HASH_DST_PORT_TCP | \
				 MLX5_RX_HASH_SRC_PORT_UDP | \
				 MLX5_RX_HASH_DST_PORT_UDP)

int mlx5_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			 struct ib_udata *uhw);
int mlx5_ib_cmd_status(struct mlx5_ib_dev *dev, int err);
int mlx5_ib_destroy_status(struct mlx5_ib_dev *dev, int err);

/* port.c */
int mlx5_ib_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *props);
int mlx5_ib_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable);
enum rdma_link_layer mlx5_ib_link_layer(struct ib_device *ibdev, u32 port);
int mlx5_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		       u16 *pkey);
struct net_device *mlx5_ib_get_netdev(struct ib_device *ibdev, u32 port);
int mlx5_ib_netdev_init(struct mlx5_ib_dev *dev);
extern const struct uapi_definition mlx5_ib_port_defs[];
void mlx5_ib_netdev_cleanup(struct mlx5_ib_dev *dev);
void mlx5_ib_port_mtu(struct mlx5_ib_dev *dev, enum ib_mtu *max,
		      enum ib_mtu *active);

/* gid.c */
int mlx5_ib_add_gid(const struct ib_gid_attr *attr, void **context);
int mlx5_ib_del_gid(const struct ib_gid_attr *attr, void **context);

/* ucontext.c */
int mlx5_ib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void mlx5_ib_dealloc_ucontext(struct ib_ucontext *ibuc);
void mlx5_ib_disassociate_ucontext(struct ib_ucontext *ibuc);
int mlx5_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void mlx5_ib_mmap_free(struct rdma_user_mmap_entry *entry);
int mlx5_ib_query_ucontext(struct ib_ucontext *ibuc,
			   struct uverbs_attr_bundle *attrs);
extern const struct uapi_definition mlx5_ib_ucontext_defs[];

/* sysfs.c */
extern const struct attribute_group mlx5_ib_dev_attr_group;
void mlx5_ib_get_dev_fw_str(struct ib_device *ibdev, char *str);

/* uar.c */
extern const struct uapi_definition mlx5_ib_uar_defs[];
bool mlx5_ib_uar_owned(struct mlx5_ib_ucontext *ctx, u32 index);
void mlx5_ib_uar_release(struct mlx5_ib_ucontext *ctx,
			 struct mlx5_ib_mmap_entry *entry);

/* buf.c */

/* Ring pages (CQ, QP, SRQ): 4 KiB up to what a 5-bit log_page_size holds. */
#define MLX5_IB_RING_PGSZ_BITMAP	GENMASK_ULL(MLX5_IB_ADAPTER_PAGE_SHIFT + 31, \
						    MLX5_IB_ADAPTER_PAGE_SHIFT)

unsigned long mlx5_ib_buf_pgsz(struct ib_umem *umem, unsigned long bitmap,
			       u64 va, u32 *page_offset);
void mlx5_ib_buf_fill_pas(struct ib_umem *umem, unsigned long pgsz, __be64 *pas);

/* doorbell.c */
int mlx5_ib_db_map_user(struct mlx5_ib_ucontext *ctx, unsigned long virt,
			struct mlx5_ib_user_db *db);
void mlx5_ib_db_unmap_user(struct mlx5_ib_ucontext *ctx,
			   struct mlx5_ib_user_db *db);

/* pd.c */
int mlx5_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mlx5_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
extern const struct uapi_definition mlx5_ib_pd_defs[];

/* mr.c */
struct ib_mr *mlx5_ib_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mlx5_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata);
int mlx5_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *mlx5_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				    u64 length, u64 virt_addr, int access,
				    struct ib_pd *pd, struct ib_udata *udata);
void mlx5_ib_set_mkc(void *mkc, u32 pdn, int access, u8 mode);
void mlx5_ib_mr_publish(struct mlx5_ib_mr *mr);

/* fastreg.c */
struct ib_mr *mlx5_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg);
int mlx5_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		      unsigned int *sg_offset);
void mlx5_ib_fr_free(struct mlx5_ib_dev *dev, struct mlx5_ib_mr *mr);

/* cq.c */
int mlx5_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata);
int mlx5_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mlx5_ib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period);
int mlx5_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mlx5_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mlx5_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void mlx5_ib_cq_comp(struct mlx5_core_cq *mcq, struct mlx5_eqe *eqe);
void mlx5_ib_cq_event(struct mlx5_core_cq *mcq, enum mlx5_event type);

/* cq_kern.c */
int mlx5_ib_create_kernel_cq(struct mlx5_ib_dev *dev, struct mlx5_ib_cq *cq,
			     unsigned int entries, int eqn);
void mlx5_ib_destroy_kernel_cq(struct mlx5_ib_dev *dev, struct mlx5_ib_cq *cq);
int mlx5_ib_kcq_poll(struct mlx5_ib_cq *cq, int num_entries, struct ib_wc *wc);
int mlx5_ib_kcq_arm(struct mlx5_ib_cq *cq, enum ib_cq_notify_flags flags);
void mlx5_ib_kcq_clean(struct mlx5_ib_cq *cq, u32 qpn);
bool mlx5_ib_fatal(struct mlx5_ib_dev *dev);
void mlx5_ib_kcq_init(struct mlx5_ib_dev *dev);
void mlx5_ib_kcq_cleanup(struct mlx5_ib_dev *dev);
void mlx5_ib_kcq_fatal(struct mlx5_ib_dev *dev);

/* srq.c */
int mlx5_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		       struct ib_udata *udata);
int mlx5_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mlx5_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mlx5_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
void mlx5_ib_srq_created(struct mlx5_ib_srq *srq, struct ib_srq_attr *attr,
			 u32 entries, u32 wqe_shift);
int mlx5_ib_srq_geometry(struct mlx5_ib_dev *dev, const struct ib_srq_attr *attr,
			 u32 *entries, u32 *wqe_shift);
int mlx5_ib_create_rmp(struct mlx5_ib_dev *dev, struct mlx5_ib_srq *srq,
		       u32 pdn, u32 entries, u32 wqe_shift, u32 limit, u64 va,
		       dma_addr_t dbr);
int mlx5_ib_destroy_rmp(struct mlx5_ib_dev *dev, u32 rmpn);

/* srq_kern.c */
int mlx5_ib_create_kernel_srq(struct mlx5_ib_dev *dev, struct mlx5_ib_srq *srq,
			      struct ib_srq_init_attr *attr, u32 entries,
			      u32 wqe_shift);
void mlx5_ib_destroy_kernel_srq(struct mlx5_ib_dev *dev, struct mlx5_ib_srq *srq);
int mlx5_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
u64 mlx5_ib_srq_complete(struct mlx5_ib_srq *srq, u16 index);

/* qp.c */

/* The SQ's basic block, the unit of its WQEs. */
#define MLX5_IB_SQ_STRIDE_SHIFT		6

/* The QP flags mlx5-abi.h defines: SIGNATURE (bit 0) .. DCI_STREAM (11). */
#define MLX5_IB_QP_FLAGS_ABI	GENMASK(11, 0)

int mlx5_ib_qp_req_copy(struct ib_udata *udata, struct mlx5_ib_create_qp *req);
int mlx5_ib_qp_uidx(struct mlx5_ib_ucontext *ctx, u32 uidx, u32 *out);
int mlx5_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		      struct ib_udata *udata);
int mlx5_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mlx5_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr);
int mlx5_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
int mlx5_ib_qp_event_init(struct mlx5_ib_dev *dev);
void mlx5_ib_qp_put(struct mlx5_ib_qp *qp);
u8 mlx5_ib_qp_st(enum ib_qp_type type);
int mlx5_ib_destroy_qp_cmd(struct mlx5_ib_dev *dev, u32 qpn);
void mlx5_ib_qp_event_cleanup(struct mlx5_ib_dev *dev);

/* eth_wq.c */
int mlx5_ib_create_eth_rq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			  const struct mlx5_ib_eth_wq_attr *attr);
int mlx5_ib_create_eth_sq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			  const struct mlx5_ib_eth_wq_attr *attr);
int mlx5_ib_modify_eth_wq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			  bool sq, u8 state);
int mlx5_ib_query_eth_wq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			 bool sq, u8 *state);
int mlx5_ib_destroy_eth_wq(struct mlx5_ib_dev *dev, struct mlx5_ib_eth_wq *wq,
			   bool sq);

/* qp_raw.c */
int mlx5_ib_create_raw_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			  struct ib_qp_init_attr *attr, struct ib_udata *udata);
int mlx5_ib_destroy_raw_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			   struct mlx5_ib_ucontext *ctx);
int mlx5_ib_modify_raw_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			  enum ib_qp_state new);
int mlx5_ib_query_raw_qp_state(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			       enum ib_qp_state *state);
u8 mlx5_ib_tir_self_lb(u32 flags);
int mlx5_ib_create_tir(struct mlx5_ib_dev *dev, u32 *in, u32 *tirn);
int mlx5_ib_destroy_tir(struct mlx5_ib_dev *dev, u32 tirn);

/* flow.c, flow_matcher.c */

/*
 * mlx5dv's flow matcher: the mask, criteria and priority its rules
 * share.  @usecnt counts its rules, which keep it from being destroyed.
 */
struct mlx5_ib_flow_matcher {
	u8 mask[MLX5_ST_SZ_BYTES(fte_match_param)];
	u8 criteria_enable;
	u16 prio;
	bool egress;			/* NIC transmit: its rules refused */
	atomic_t usecnt;
};

/* A steering rule, of the verbs' or of a matcher. */
struct mlx5_ib_flow {
	struct ib_flow ibflow;
	struct mlx5_flow_handle *rule;
	u16 prio;
	struct mlx5_ib_flow_matcher *matcher;	/* NULL: the verbs' */
};

int mlx5_ib_flow_add(struct mlx5_ib_dev *dev, struct mlx5_ib_flow *flow,
		     u16 prio, const struct mlx5_flow_spec *spec, u32 tirn);
extern const struct uapi_definition mlx5_ib_flow_defs[];
struct ib_flow *mlx5_ib_create_flow(struct ib_qp *ibqp,
				    struct ib_flow_attr *attr,
				    struct ib_udata *udata);
int mlx5_ib_destroy_flow(struct ib_flow *ibflow);

/* wq.c */
struct ib_wq *mlx5_ib_create_wq(struct ib_pd *pd,
				struct ib_wq_init_attr *init_attr,
				struct ib_udata *udata);
int mlx5_ib_destroy_wq(struct ib_wq *ibwq, struct ib_udata *udata);
int mlx5_ib_modify_wq(struct ib_wq *ibwq, struct ib_wq_attr *attr,
		      u32 attr_mask, struct ib_udata *udata);
int mlx5_ib_create_rwq_ind_table(struct ib_rwq_ind_table *ibtbl,
				 struct ib_rwq_ind_table_init_attr *init_attr,
				 struct ib_udata *udata);
int mlx5_ib_destroy_rwq_ind_table(struct ib_rwq_ind_table *ibtbl);

/* rss.c */
int mlx5_ib_create_rss_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			  struct ib_qp_init_attr *attr, struct ib_udata *udata);

/* qp_kern.c */
int mlx5_ib_create_kernel_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			     struct ib_qp_init_attr *attr);
void mlx5_ib_destroy_kernel_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp);
void mlx5_ib_kqp_reset(struct mlx5_ib_qp *qp);

/* wr.c */
int mlx5_ib_kqp_post_send(struct mlx5_ib_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr, bool drain);
int mlx5_ib_kqp_post_recv(struct mlx5_ib_qp *qp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr, bool drain);

/* drain.c */
void mlx5_ib_drain_sq(struct ib_qp *ibqp);
void mlx5_ib_drain_rq(struct ib_qp *ibqp);

/* xrc.c */
int mlx5_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int mlx5_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int mlx5_ib_devr_init(struct mlx5_ib_dev *dev);
void mlx5_ib_devr_cleanup(struct mlx5_ib_dev *dev);
int mlx5_ib_create_xrc_srq(struct mlx5_ib_dev *dev, struct mlx5_ib_srq *srq,
			   struct ib_srq_init_attr *attr, u32 entries,
			   u32 wqe_shift, u32 uidx, u64 va);
int mlx5_ib_destroy_xrc_srq(struct mlx5_ib_dev *dev, u32 srqn);
int mlx5_ib_arm_xrc_srq(struct mlx5_ib_dev *dev, u32 srqn, u32 limit);
int mlx5_ib_create_xrc_tgt(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			   struct ib_qp_init_attr *attr);

/* counters.c */
int mlx5_ib_counters_init(struct mlx5_ib_dev *dev);
void mlx5_ib_counters_cleanup(struct mlx5_ib_dev *dev);
struct rdma_hw_stats *
mlx5_ib_alloc_hw_port_stats(struct ib_device *ibdev, u32 port_num);
int mlx5_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index);

/* pma.c */
int mlx5_ib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
			const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			const struct ib_mad *in_mad, struct ib_mad *out_mad,
			size_t *out_mad_size, u16 *out_mad_pkey_index);

/* umr.c */
int mlx5_ib_umr_init(struct mlx5_ib_dev *dev);
void mlx5_ib_umr_cleanup(struct mlx5_ib_dev *dev);
int mlx5_ib_umr_rereg(struct mlx5_ib_dev *dev, struct mlx5_ib_mr *mr,
		      int access, u32 pdn);

/* mcg.c */
int mlx5_ib_mcg_attach(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int mlx5_ib_mcg_detach(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* ah.c */
int mlx5_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		      struct ib_udata *udata);
int mlx5_ib_destroy_ah(struct ib_ah *ibah, u32 flags);

/* qp_modify.c */
int mlx5_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		      int attr_mask, struct ib_udata *udata);
int mlx5_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int attr_mask, struct ib_qp_init_attr *init_attr);

#endif /* MLX5_IB_H */

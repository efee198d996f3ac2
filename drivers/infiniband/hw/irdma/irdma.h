/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Our irdma's own structures.  Nothing here comes from ice's private
 * headers: ice.c copies what the driver needs of them into struct
 * irdma_ice, checked, and the rest of the driver sees only that.
 */
#ifndef OOT_IRDMA_H
#define OOT_IRDMA_H

#include <linux/auxiliary_bus.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net/intel/iidc.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "hw.h"

/* At most this many MSI-X vectors of ice's range are ours. */
#define IRDMA_MAX_VECTORS	64

/* One MSI-X vector ice set aside for us. */
struct irdma_vector {
	u16 index;		/* in the function's MSI-X table */
	unsigned int irq;	/* Linux IRQ number */
};

/*
 * What ice knows of the function and tells no public interface: read once
 * at probe (irdma_ice_read) and fixed for the auxiliary device's life,
 * since ice unplugs it before any reset or reconfiguration that would
 * change them.
 */
struct irdma_ice {
	struct ice_pf *pf;		/* ice's cookie, for its exports */
	struct pci_dev *pdev;
	u8 __iomem *hw_addr;		/* BAR0, mapped by ice */
	u8 pf_id;			/* HMC function */
	u16 vsi_num;			/* the main VSI's hardware number */
	struct net_device *netdev;	/* the main VSI's */
	unsigned int nvec;
	struct irdma_vector vec[IRDMA_MAX_VECTORS];
};

/* A coherent DMA buffer the device reads or writes. */
struct irdma_dma {
	void *va;
	dma_addr_t pa;
	size_t size;
};

/*
 * A CQP command: the WQE's eight qwords as the caller builds them (the
 * header, wqe[IRDMA_CQP_HDR], without its valid bit, which the CQP
 * sets), and what the device answers.  The caller owns it; the CQP holds
 * it only between irdma_cqp_exec*() posting it and returning.
 */
struct irdma_cqp_cmd {
	u64 wqe[8];
	u32 status;		/* major << 16 | minor; 0: done, no error */
	u32 ret;		/* the command's return value */
	bool done;
};

/*
 * A ring the device writes: a CQ's (the CCQ's among them), a CEQ's or
 * the AEQ's.  @head is the next entry the driver reads, @polarity the
 * valid bit it expects there (1 on the first pass, flipped at each
 * wrap).
 */
struct irdma_ring {
	struct irdma_dma mem;
	u32 size;		/* entries */
	u32 stride;		/* bytes each */
	u32 head;
	bool polarity;
};

/*
 * The control QP and its completion queue, CQ 0 (the CCQ): cqp.c.
 * @lock protects the SQ (@head, @polarity, @cmds, @busy) and the CCQ's
 * ring; it is taken from any context (a command may be issued and polled
 * from atomic context), so with interrupts off.
 */
struct irdma_cqp {
	spinlock_t lock;		/* see above */
	struct irdma_dma ctx;		/* the 64-byte host context */
	struct irdma_dma sq;
	u32 size;			/* WQEs */
	u32 head;			/* the next WQE the driver writes */
	bool polarity;
	u32 busy;			/* WQEs posted, not completed */
	struct irdma_cqp_cmd **cmds;	/* by WQE index; NULL: abandoned */
	bool ccq_up;			/* completions come on the CCQ */
	struct irdma_ring ccq;
	struct irdma_dma ccq_shadow;
	bool dead;			/* a command timed out: no more */
};

/*
 * The HMC's object types, in the order of the FPM buffers (hmc.c).
 */
enum irdma_hmc_type {
	IRDMA_HMC_QP, IRDMA_HMC_CQ, IRDMA_HMC_RSVD, IRDMA_HMC_HTE,
	IRDMA_HMC_ARP, IRDMA_HMC_APBVT, IRDMA_HMC_MR, IRDMA_HMC_XF,
	IRDMA_HMC_XFFL, IRDMA_HMC_Q1, IRDMA_HMC_Q1FL, IRDMA_HMC_TIMER,
	IRDMA_HMC_FSIMC, IRDMA_HMC_FSIAV, IRDMA_HMC_PBLE, IRDMA_HMC_RRF,
	IRDMA_HMC_RRFFL, IRDMA_HMC_HDR, IRDMA_HMC_MD, IRDMA_HMC_OOISC,
	IRDMA_HMC_OOISCFFL,
	IRDMA_HMC_NUM_TYPES
};

struct irdma_hmc_obj {
	u32 max;		/* what the device offers */
	u32 cnt;		/* what we committed */
	u64 size;		/* bytes each */
	u64 base;		/* FPM address, from the commit */
};

#define IRDMA_HMC_MAX_SDS	64

/*
 * The HMC (hmc.c): object counts and bases, and the segments backing
 * them.  Segments below @pble_sd back every object but PBLEs, each one
 * 2 MiB page (direct); the PBLE pool (pble.c) adds its own above.
 */
struct irdma_hmc {
	struct irdma_hmc_obj obj[IRDMA_HMC_NUM_TYPES];
	u32 first_sd;
	u32 max_sds;
	u32 max_ceqs;		/* from the FPM query */
	u32 nsd;		/* direct segments backing the objects */
	struct irdma_dma sd[IRDMA_HMC_MAX_SDS];
};

/* An event queue: a CEQ (of completions) or the AEQ (eq.c). */
struct irdma_eq {
	struct irdma_dev *dev;
	struct irdma_ring ring;
	u32 id;			/* CEQ number; 0 for the AEQ */
	u16 msix;		/* its MSI-X table index */
	unsigned int irq;
	bool up;		/* created in the device */
	bool irq_on;
	struct tasklet_struct tasklet;
	char name[32];
};

#define IRDMA_MAX_CEQS		32
struct irdma_pble_pool;
struct irdma_arp_entry;

/* Resource numbers the device knows objects by. */
struct irdma_ids {
	struct ida ida;
	u32 first, max;		/* allocate in [first, max) */
};

/*
 * The work scheduler's tree of this function (ws.c): a root, the VSI's
 * node under it, and the leaf of traffic class 0, whose queue set ice
 * adds to its own scheduler.  Made with the first QP, removed with the
 * last; under @lock.
 */
struct irdma_ws {
	struct mutex lock;		/* see above */
	unsigned int users;
	u16 vsi_node;
	u16 leaf;
	u16 qs_handle;
	u32 teid;		/* ice's node for the queue set */
};

/*
 * The port's hardware counters (stats.c): @lock serializes gathers, and
 * protects @last and @total.
 */
#define IRDMA_NSTATS	46
struct irdma_stats {
	struct mutex lock;		/* see above */
	struct irdma_dma buf;		/* GATHER_STATS writes it */
	u32 inst;			/* the statistics instance, while @buf is */
	u64 last[IRDMA_NSTATS];		/* each counter at the last gather */
	u64 total[IRDMA_NSTATS];	/* since irdma_stats_init() */
	struct delayed_work work;	/* a gather a minute */
};

/*
 * An RDMA device: one E810 function's PE.  Made at probe, registered
 * when the PE is up; the ib_device's refcount owns it (dealloc_driver
 * tears the PE down).
 */
struct irdma_dev {
	struct ib_device ibdev;
	struct irdma_pf *pf;
	u8 __iomem *hw;			/* BAR0 */
	struct device *dma;		/* the PCI function */
	struct net_device *netdev;
	u8 hmc_fn;
	u16 vsi;

	struct irdma_cqp cqp;
	struct irdma_hmc hmc;
	struct irdma_pble_pool *pble;	/* pble.c's */
	struct irdma_eq aeq;
	struct irdma_eq ceq[IRDMA_MAX_CEQS];
	unsigned int nceq;
	struct irdma_ws ws;
	struct notifier_block netdev_nb;	/* port.c */

	u64 fw_ver;
	u32 max_qp, max_cq, max_mr, max_pd, max_ah;
	struct irdma_ids qp_ids, cq_ids, pd_ids, mr_ids, ah_ids, arp_ids;

	/* The ARP cache the device takes destination MACs from (arp.c). */
	spinlock_t arp_lock;
	struct irdma_arp_entry *arp;
	u32 narp;

	/* Multicast groups (mcg.c). */
	struct mutex mcg_lock;		/* mcgs, the groups' members */
	struct list_head mcgs;
	struct ida mcg_ids;

	/* CQs and QPs by number, for the events the EQs carry. */
	struct xarray cqs;
	struct xarray qps;

	struct irdma_stats stats;
};

static inline struct irdma_dev *to_idev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct irdma_dev, ibdev);
}

static inline u32 irdma_rd32(struct irdma_dev *dev, u32 reg)
{
	return readl(dev->hw + reg);
}

static inline void irdma_wr32(struct irdma_dev *dev, u32 reg, u32 val)
{
	writel(val, dev->hw + reg);
}

/*
 * A bound function.  Its list entry, under irdma_pfs_lock in main.c,
 * lets ice's event handler, which is given the ice_pf alone, find it.
 */
struct irdma_pf {
	struct auxiliary_device *adev;
	struct irdma_ice ice;
	struct irdma_dev *dev;		/* registered; NULL before and after */
	struct list_head node;
};

/* ice.c */
int irdma_ice_read(struct auxiliary_device *adev, struct irdma_ice *ice);
int irdma_ice_add_qset(struct irdma_dev *dev, u16 qs_handle, u32 *teid);
void irdma_ice_del_qset(struct irdma_dev *dev, u16 qs_handle, u32 teid);
int irdma_ice_vsi_filter(struct irdma_dev *dev, bool enable);
void irdma_ice_reset(struct irdma_pf *ipf);

/* dma.c */
int irdma_dma_alloc(struct irdma_dev *dev, struct irdma_dma *m, size_t size);
void irdma_dma_free(struct irdma_dev *dev, struct irdma_dma *m);
int irdma_ring_alloc(struct irdma_dev *dev, struct irdma_ring *r, u32 size,
		     u32 stride);
void irdma_ring_free(struct irdma_dev *dev, struct irdma_ring *r);
/* The entry at the ring's head if the device wrote it, else NULL. */
__le64 *irdma_ring_peek(struct irdma_ring *r, unsigned int valid_qword);
void irdma_ring_advance(struct irdma_ring *r);
int irdma_ids_init(struct irdma_ids *ids, u32 first, u32 max);
int irdma_id_get(struct irdma_ids *ids);
void irdma_id_put(struct irdma_ids *ids, u32 id);

/* cqp.c */
int irdma_cqp_create(struct irdma_dev *dev);
void irdma_cqp_destroy(struct irdma_dev *dev);
int irdma_ccq_create(struct irdma_dev *dev);
void irdma_ccq_destroy(struct irdma_dev *dev);
/* Run a command and wait for it: sleeps. */
int irdma_cqp_exec(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd);
/* The same from atomic context: polls for up to a second. */
int irdma_cqp_exec_atomic(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd);
void irdma_cqp_cmd_init(struct irdma_cqp_cmd *cmd, u8 opcode, u64 hdr);
int irdma_query_features(struct irdma_dev *dev);

/* hmc.c */
int irdma_hmc_setup(struct irdma_dev *dev);
void irdma_hmc_teardown(struct irdma_dev *dev);

/*
 * pble.c: runs of PBLEs (level 1: each a 4 KiB page's address) in the
 * HMC's PBLE object, backed on demand.  A run lies in one segment, so
 * its entries are contiguous at @va too.
 */
struct irdma_pble {
	u32 idx;		/* the first PBLE's index */
	u32 n;
	__le64 *va;
};

int irdma_pble_init(struct irdma_dev *dev);
void irdma_pble_fini(struct irdma_dev *dev);
int irdma_pble_get(struct irdma_dev *dev, u32 n, struct irdma_pble *p);
void irdma_pble_put(struct irdma_dev *dev, struct irdma_pble *p);

/* eq.c */
int irdma_eqs_create(struct irdma_dev *dev);
void irdma_eqs_destroy(struct irdma_dev *dev);
/* Hooks eq.c calls: a CQ's completion event, an asynchronous event. */
void irdma_cq_event(struct irdma_dev *dev, u32 cq_id);
void irdma_async_event(struct irdma_dev *dev, u16 ae_id, u8 src, u32 id,
		       u64 ctx);

#endif /* OOT_IRDMA_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the protocol engine (PE), the part irdma drives.  Its
 * state and the interfaces between its files:
 *
 *   e810-pe.c      registers, the control QP (CQP): its creation through
 *                  registers, its work queue, completions, dispatch
 *   e810-hmc.c     the host memory cache: object counts and bases (FPM),
 *                  the segment descriptor table, FPM address to guest
 *                  memory, PBLEs
 *   e810-pe-cq.c   completion queues (the CQP's own, CCQ, among them),
 *                  the completion and asynchronous event queues, arming,
 *                  interrupts
 *   e810-pe-qp.c   QPs: their contexts
 *   e810-pe-misc.c the smaller commands: features, the work scheduler,
 *                  ARP, address handles, and those the model takes
 *                  without acting on them
 *   e810-pe-stats.c statistics: instances, the counters, GATHER_STATS
 *   e810-stag.c    STags: memory regions, their keys, memory access
 *   e810-roce.c    the RoCE data path's glue to the RoCEv2 engine
 *                  (hw/roce): timers, frames, loopback, memory, CQEs
 *   e810-roce-qp.c the data path's QPs: context decode, the SQ walk and
 *                  its doorbells, WQE fetch, address handles
 *   e810-roce-wqe.c, e810-roce-cqe.c  the WQE and CQE formats
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#ifndef HW_E810_PE_H
#define HW_E810_PE_H

#include "e810.h"

/* A CQP work queue entry: 64 bytes, the header at byte 24. */
#define E810_CQP_WQE_SIZE       64
#define E810_CQP_WQE_HDR        24
#define E810_CQP_HDR_OPCODE(h)  extract64(h, 32, 6)
#define E810_CQP_HDR_VALID      BIT_ULL(63)

/* CQP opcodes (the header's bits 37:32). */
#define E810_CQP_CREATE_QP              0x00
#define E810_CQP_MODIFY_QP              0x01
#define E810_CQP_DESTROY_QP             0x02
#define E810_CQP_CREATE_CQ              0x03
#define E810_CQP_MODIFY_CQ              0x04
#define E810_CQP_DESTROY_CQ             0x05
#define E810_CQP_ALLOC_STAG             0x09
#define E810_CQP_REG_MR                 0x0a
#define E810_CQP_QUERY_STAG             0x0b
#define E810_CQP_REG_SMR                0x0c
#define E810_CQP_DEALLOC_STAG           0x0d
#define E810_CQP_MANAGE_LOC_MAC         0x0e
#define E810_CQP_MANAGE_ARP             0x0f
#define E810_CQP_MANAGE_VF_PBLE_BP      0x10
#define E810_CQP_MANAGE_PUSH_PAGES      0x11
#define E810_CQP_QUERY_RDMA_FEATURES    0x12
#define E810_CQP_UPLOAD_CONTEXT         0x13
#define E810_CQP_ALLOC_LOC_MAC_ENTRY    0x14
#define E810_CQP_MANAGE_HMC_PM_FUNC     0x15
#define E810_CQP_CREATE_CEQ             0x16
#define E810_CQP_DESTROY_CEQ            0x18
#define E810_CQP_CREATE_AEQ             0x19
#define E810_CQP_DESTROY_AEQ            0x1b
#define E810_CQP_CREATE_AH              0x1c
#define E810_CQP_MODIFY_AH              0x1d
#define E810_CQP_DESTROY_AH             0x1e
#define E810_CQP_UPDATE_PE_SDS          0x1f
#define E810_CQP_QUERY_FPM_VAL          0x20
#define E810_CQP_COMMIT_FPM_VAL         0x21
#define E810_CQP_FLUSH_WQES             0x22
#define E810_CQP_MANAGE_APBVT           0x23
#define E810_CQP_NOP                    0x24
#define E810_CQP_MANAGE_QHASH           0x25
#define E810_CQP_CREATE_MCAST_GRP       0x26
#define E810_CQP_MODIFY_MCAST_GRP       0x27
#define E810_CQP_DESTROY_MCAST_GRP      0x28
#define E810_CQP_SUSPEND_QP             0x29
#define E810_CQP_RESUME_QP              0x2a
#define E810_CQP_SHMC_PAGES_ALLOCATED   0x2b
#define E810_CQP_WORK_SCHED_NODE        0x2c
#define E810_CQP_MANAGE_STATS           0x2d
#define E810_CQP_GATHER_STATS           0x2e
#define E810_CQP_UP_MAP                 0x2f

/*
 * A command's completion status: major code in bits 31:16, minor in
 * 15:0, as the CCQ's entry and PFPE_CQPERRCODES carry them.  0 is
 * success; the model's errors use major 0xffff (irdma reports any
 * other pair than the few it knows as an error of the command).
 */
#define E810_PE_ERR(minor)      (0xffff0000u | (minor))
#define E810_PE_ERR_INVAL       E810_PE_ERR(0x0001)    /* bad field */
#define E810_PE_ERR_STATE       E810_PE_ERR(0x0002)    /* wrong order */
#define E810_PE_ERR_NOMEM       E810_PE_ERR(0x0003)    /* no resource */
#define E810_PE_ERR_DMA         E810_PE_ERR(0x0004)    /* guest memory */
#define E810_PE_ERR_UNSUPP      E810_PE_ERR(0x0005)    /* not modelled */

/* What the model offers irdma (QUERY_FPM_VAL; e810-hmc.c sizes it). */
#define E810_PE_MAX_QPS         1024
#define E810_PE_MAX_CQS         2048
#define E810_PE_MAX_CEQS        32
#define E810_PE_MAX_ARP         1024
#define E810_MCG_MAX_QPS        8       /* IRDMA_MAX_MGS_PER_CTX */
#define E810_PE_MAX_SDS         16      /* 2 MiB each: 32 MiB of HMC */
#define E810_PE_STATS_INST      128

/* The HMC object types, in irdma's order (its FPM buffers follow it). */
enum {
    E810_HMC_QP, E810_HMC_CQ, E810_HMC_RSVD, E810_HMC_HTE, E810_HMC_ARP,
    E810_HMC_APBVT, E810_HMC_MR, E810_HMC_XF, E810_HMC_XFFL, E810_HMC_Q1,
    E810_HMC_Q1FL, E810_HMC_TIMER, E810_HMC_FSIMC, E810_HMC_FSIAV,
    E810_HMC_PBLE, E810_HMC_RRF, E810_HMC_RRFFL, E810_HMC_HDR, E810_HMC_MD,
    E810_HMC_OOISC, E810_HMC_OOISCFFL,
    E810_HMC_NUM_OBJ
};

typedef struct E810HmcObj {
    uint32_t max_cnt;   /* what the model offers */
    uint32_t cnt;       /* what the driver committed */
    uint64_t size;      /* bytes per object */
    uint64_t base;      /* FPM address, from COMMIT_FPM_VAL */
} E810HmcObj;

/* One segment descriptor: 2 MiB of FPM space. */
typedef struct E810HmcSd {
    bool valid;
    bool direct;        /* one 2 MiB page; else a page of 512 PDs */
    uint64_t pa;        /* that page, or the PD page */
} E810HmcSd;

/*
 * A ring the device writes (a CQ, a CEQ, the AEQ): in guest memory
 * either contiguous at pa or described by PBLEs (virtual: level 1, a
 * list of pages, or level 2, a list of lists), of size entries of
 * stride bytes; head is the next entry the device writes, polarity the
 * valid bit it writes there (1 on the first pass, flipped at each wrap).
 */
typedef struct E810PeRing {
    uint64_t pa;
    bool virt;
    uint8_t pbl_level;
    uint32_t first_pble;
    uint32_t size;
    uint32_t stride;
    uint32_t head;
    bool polarity;
} E810PeRing;

typedef struct E810PeCq {
    uint64_t ctx;           /* the driver's completion context */
    E810PeRing ring;
    uint64_t shadow_pa;     /* arming and the driver's head */
    uint16_t ceq;
    bool ceq_valid;
    bool ceqe_mask;         /* ENCEQEMASK: CEQEs only when armed */
    bool armed;
    bool armed_se;          /* notify on a solicited entry only */
} E810PeCq;

typedef struct E810PeEq {
    bool valid;
    E810PeRing ring;
} E810PeEq;

/* An ARP entry's valid bit, above its MAC (first byte in bits 47:40). */
#define E810_PE_ARP_VALID       BIT_ULL(48)

/* A QP: its type and state and the context the driver last gave. */
#define E810_PE_QP_CTX_SIZE     256
typedef struct E810RoceQp E810RoceQp;
typedef struct E810Roce E810Roce;

typedef struct E810PeQp {
    uint8_t type;
    uint8_t state;
    bool virt;              /* SQ and RQ addresses are PBLE indices */
    uint64_t ctx_pa;
    uint64_t shadow_pa;
    uint8_t ctx[E810_PE_QP_CTX_SIZE];
    E810RoceQp *roce;       /* its data path (e810-roce-qp.c) */
} E810PeQp;

/* What the PE counted since its reset (e810-pe-stats.c). */
typedef struct E810PeIpStats {
    uint64_t rx_octets, rx_pkts, rx_mc_octets, rx_mc_pkts;
    uint64_t tx_octets, tx_pkts, tx_mc_octets, tx_mc_pkts;
} E810PeIpStats;

typedef struct E810PeStats {
    E810PeIpStats ip[2];            /* IPv4, IPv6 */
    uint64_t udp_rx_pkts, udp_tx_pkts;
    uint64_t rx_sends, rx_writes, rx_reads;
    uint64_t tx_sends, tx_writes, tx_reads;
} E810PeStats;

struct E810Pe {
    /* The CQP (e810-pe.c). */
    uint32_t ccqp_high;
    uint32_t ccqp_low;
    uint32_t ccqp_status;
    uint32_t cqp_tail_reg;      /* PFPE_CQPTAIL */
    uint32_t cqp_errcodes;      /* PFPE_CQPERRCODES */
    bool cqp_up;
    bool cqp_busy;              /* a doorbell is being served */
    uint64_t cqp_sq_pa;
    uint32_t cqp_sq_size;
    uint32_t cqp_tail;
    bool cqp_polarity;
    uint64_t cqp_compl_ctx;     /* the CCQ's entries carry it */

    /* The HMC (e810-hmc.c). */
    E810HmcObj obj[E810_HMC_NUM_OBJ];
    bool fpm_committed;
    E810HmcSd sd[E810_PE_MAX_SDS];

    /* Queues (e810-pe-cq.c); CQ 0 is the CQP's. */
    E810PeCq *cq[E810_PE_MAX_CQS];
    E810PeEq ceq[E810_PE_MAX_CEQS];
    uint32_t ceq_ctl[E810_PE_MAX_CEQS];     /* GLINT_CEQCTL */
    E810PeEq aeq;
    uint32_t aeq_ctl;                       /* PFINT_AEQCTL */

    /* QPs (e810-pe-qp.c). */
    E810PeQp *qp[E810_PE_MAX_QPS];

    /* Statistics (e810-pe-stats.c). */
    DECLARE_BITMAP(stats_inst, E810_PE_STATS_INST);
    E810PeStats stats;

    /* The rest (e810-pe-misc.c). */
    uint64_t arp[E810_PE_MAX_ARP];          /* MAC | E810_PE_ARP_VALID */
    GHashTable *stags;                      /* STag index -> E810Stag */
    GHashTable *ahs;                        /* AH index -> WQE copy */
    GHashTable *mcgs;                       /* group index -> E810Mcg */

    E810Roce *roce;                         /* the data path */
};

/*
 * A command handler: WQE is the 64-byte entry (little-endian), RET the
 * value the completion carries back (op_ret_val).  Returns 0 or an
 * E810_PE_ERR_* status.
 */
typedef uint32_t (*E810PeOpFn)(E810State *s, E810Pe *pe, const uint8_t *wqe,
                               uint32_t *ret);

typedef struct E810PeOp {
    uint8_t opcode;
    const char *name;
    E810PeOpFn fn;
} E810PeOp;

/* Each file's commands, ending with an entry whose fn is NULL. */
extern const E810PeOp e810_hmc_ops[];
extern const E810PeOp e810_pe_cq_ops[];
extern const E810PeOp e810_pe_qp_ops[];
extern const E810PeOp e810_pe_misc_ops[];
extern const E810PeOp e810_pe_stats_ops[];
extern const E810PeOp e810_stag_ops[];
extern const E810PeOp e810_mcg_ops[];

static inline uint64_t e810_wqe_q(const uint8_t *wqe, unsigned int qword)
{
    return ldq_le_p(wqe + qword * 8);
}

static inline uint64_t e810_wqe_hdr(const uint8_t *wqe)
{
    return ldq_le_p(wqe + E810_CQP_WQE_HDR);
}

/* e810-hmc.c: FPM address space to guest memory (false: unmapped). */
bool e810_hmc_read(E810State *s, uint64_t fpm, void *buf, size_t len);
bool e810_hmc_write(E810State *s, uint64_t fpm, const void *buf, size_t len);
/* PBLE IDX (an index into the PBLE object), false when out of range. */
bool e810_hmc_pble(E810State *s, uint32_t idx, uint64_t *val);
/* Whether the committed count of object TYPE covers index IDX. */
bool e810_hmc_has(E810Pe *pe, unsigned int type, uint32_t idx);
void e810_hmc_reset(E810Pe *pe);

/* e810-pe-cq.c */
/* Guest address of byte OFF of ring R (false: not mapped). */
bool e810_pe_ring_addr(E810State *s, const E810PeRing *r, uint64_t off,
                       uint64_t *pa);
/*
 * Write a completion (32 bytes; its valid bit is set here) to CQ CQID
 * and notify if the CQ is armed.  SOLICITED: the completion may wake a
 * CQ armed for solicited completions only.
 */
bool e810_pe_cq_post(E810State *s, uint32_t cqid, const uint8_t *cqe,
                     bool solicited);
/*
 * The same for a completion of N (1 or 2) consecutive 32-byte slots,
 * CQE holding them all: the later slot is written first, the first
 * slot's valid quadword last (the driver polls that one).
 */
bool e810_pe_cq_post_n(E810State *s, uint32_t cqid, const uint8_t *cqe,
                       unsigned int n, bool solicited);
/* An asynchronous event: compl ctx and the AEQE's second qword. */
bool e810_pe_aeq_post(E810State *s, uint64_t ctx, uint64_t info);
/* PFPE_CQARM, or the user doorbell page's CQ-arm word: arm CQ CQID. */
void e810_pe_cq_arm(E810State *s, uint32_t cqid);
void e810_pe_cq_reset(E810Pe *pe);

/* e810-pe-qp.c */
void e810_pe_qp_reset(E810Pe *pe);

/* e810-pe-misc.c */
void e810_pe_misc_reset(E810Pe *pe);

/* e810-pe-stats.c: count a RoCEv2 frame the PE sent (TX) or received. */
void e810_pe_stats_frame(E810Pe *pe, const uint8_t *frame, size_t len,
                         bool tx);
void e810_pe_stats_reset(E810Pe *pe);

/*
 * e810-mcg.c: the members of the group of MGID (16 bytes, IPv4 as
 * ::ffff:a.b.c.d), at most MAX QP ids into QPS, their number; whether
 * a group with members has MAC as its address.
 */
unsigned int e810_mcg_qps(E810State *s, const uint8_t *mgid, uint32_t *qps,
                          unsigned int max);
bool e810_mcg_mac(E810State *s, const uint8_t *mac);

/* e810-roce.c: the data path's engine, loopback queue. */
void e810_roce_realize(E810State *s);
void e810_roce_unrealize(E810State *s);
void e810_roce_reset(E810State *s);

/*
 * e810-roce-qp.c: a QP's data path, made at CREATE_QP, told of each
 * MODIFY_QP (after the context copy), gone at DESTROY_QP or reset.
 */
void e810_roce_qp_create(E810State *s, uint32_t id, E810PeQp *qp);
void e810_roce_qp_modify(E810State *s, uint32_t id, E810PeQp *qp);
void e810_roce_qp_free(E810PeQp *qp);
/*
 * FLUSH_WQES: one flush CQE for each queue asked (SQ, RQ), with the
 * codes given (major << 16 | minor): irdma drains that queue from its
 * own tail, and ignores one that finds it empty.
 */
void e810_roce_qp_flush(E810State *s, E810PeQp *qp, bool sq, bool rq,
                        uint32_t sq_code, uint32_t rq_code);
/* PFPE_WQEALLOC or the user doorbell page: QP QPID posted send WQEs. */
void e810_roce_sq_doorbell(E810State *s, uint32_t qpid);

#endif /* HW_E810_PE_H */

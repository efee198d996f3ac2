/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device-independent RoCEv2 engine: the transport of RC, UC, UD and
 * GSI (QP1) queue pairs on the wire, shared by the device models'
 * front ends (the mlx5 model, later the E810 one).
 *
 * The engine owns the transport: PSNs, segmentation by path MTU, the
 * headers (Ethernet, 802.1Q, IPv4 or IPv6, UDP 4791, BTH and the
 * extension headers) and the ICRC, ACKs and NAKs, retransmission, RNR
 * waits, the responder's replay resources, completion order and
 * statuses, the flush of a QP in error.
 *
 * A front end owns everything of its device: WQE, CQE and context
 * formats, doorbells, memory keys and DMA, events and interrupts.  It
 * talks to the engine through RoceOps (below) and a few calls:
 *
 *   roce_engine_init()     once per device
 *   roce_qp_init()         at QP creation, on a RoceQP it embeds
 *   roce_qp_modify()       on every state change, with the attributes
 *                          decoded from its QP context
 *   roce_qp_sq_doorbell()  when the guest posted send WQEs
 *   roce_qp_rq_doorbell()  when the guest posted receive WQEs (only a
 *                          QP in error needs it: they are flushed)
 *   roce_qp_process()      when the engine asked for it (ops->schedule)
 *   roce_qp_timer()        when the QP's timer (ops->timer_mod) fires
 *   roce_engine_rx()       with every RoCEv2 frame for the device
 *
 * Nothing here depends on QEMU: the same files build into QEMU and into
 * a host test program (tools/qemu/tests/roce_engine_test.sh).  Every
 * call runs to completion and is not reentrant per engine: in QEMU, all
 * of them run under the BQL, in the main loop.
 *
 * Documentation/infiniband/roce-engine.rst has the design.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#ifndef HW_ROCE_H
#define HW_ROCE_H

#define ROCE_UDP_PORT           4791
#define ROCE_GSI_QKEY           0x80010000u
#define ROCE_GRH_LEN            40
/* A UD datagram to this destination QPN goes to a multicast group. */
#define ROCE_MCAST_QPN          0xffffffu
/* The QPs of one group a datagram is delivered to, at most. */
#define ROCE_MCAST_MAX          64

/* Limits of what a front end may hand over. */
#define ROCE_MAX_SGE            32
#define ROCE_MAX_INLINE         1024
#define ROCE_MAX_MTU            4096
#define ROCE_MAX_MSG            (1u << 31)
/* The responder's READ/ATOMIC resources (max_dest_rd_atomic). */
#define ROCE_MAX_RD_ATOMIC      16
/* Send WQEs started and not yet completed, at most. */
#define ROCE_SQ_SLOTS           128
/* PSNs sent and not acknowledged, at most (as rxe). */
#define ROCE_MAX_UNACKED_PSNS   128
/* Packets without AckReq in a row, at most (as rxe). */
#define ROCE_MAX_PKT_PER_ACK    64
/* Packets a QP sends per roce_qp_process() round. */
#define ROCE_BUDGET             64
/* Ethernet + 802.1Q + IPv6 + UDP + BTH + the longest extension + ICRC. */
#define ROCE_MAX_HDR            (18 + 40 + 8 + 12 + 28 + 4)
#define ROCE_FRAME_MAX          (ROCE_MAX_HDR + ROCE_MAX_MTU + 4 + 4)

typedef struct RoceEngine RoceEngine;
typedef struct RoceQP RoceQP;

typedef enum RoceQPType {
    ROCE_QPT_RC,
    ROCE_QPT_UC,
    ROCE_QPT_UD,
    ROCE_QPT_GSI,               /* QP1: UD, DETH source QP 1 */
} RoceQPType;

typedef enum RoceQPState {
    ROCE_QPS_RESET,
    ROCE_QPS_INIT,
    ROCE_QPS_RTR,
    ROCE_QPS_RTS,
    ROCE_QPS_SQD,               /* sends what it started, starts nothing */
    ROCE_QPS_SQE,               /* UC/UD send queue error */
    ROCE_QPS_ERR,
} RoceQPState;

/* What a peer may do to this QP's memory (attr.access). */
#define ROCE_ACCESS_REMOTE_WRITE    (1u << 0)
#define ROCE_ACCESS_REMOTE_READ     (1u << 1)
#define ROCE_ACCESS_REMOTE_ATOMIC   (1u << 2)

/*
 * A path: where a QP's (or a UD WR's) packets go, and from where.  The
 * GIDs are 16 bytes either way; with ipv6 false, bytes 12..15 are the
 * IPv4 addresses (an IPv4-mapped GID, ::ffff:a.b.c.d).
 */
typedef struct RoceAV {
    uint8_t smac[6];
    uint8_t dmac[6];
    bool ipv6;
    bool vlan_valid;
    uint16_t vlan;              /* TCI: PCP << 13 | VID */
    uint8_t sgid[16];
    uint8_t dgid[16];
    uint16_t udp_sport;         /* 0: the engine picks one per QP */
    uint8_t hop_limit;          /* 0: 64 */
    uint8_t tclass;
    uint32_t flow_label;
} RoceAV;

/*
 * The transport attributes of a QP, decoded by the front end from its
 * context: all of them on every roce_qp_modify().
 */
typedef struct RoceQPAttr {
    RoceQPState state;
    RoceQPType type;
    uint32_t qpn;               /* on the wire (GSI: any, 1 is sent) */
    uint32_t dest_qpn;          /* RC, UC */
    uint32_t sq_psn;            /* taken entering RTS from RTR */
    uint32_t rq_psn;            /* taken entering RTR */
    uint32_t pmtu;              /* bytes: 256, 512, 1024, 2048 or 4096 */
    uint32_t qkey;              /* UD */
    uint32_t access;            /* ROCE_ACCESS_* */
    uint16_t pkey;              /* 0: 0xffff */
    uint8_t retry_cnt;          /* 0..7 */
    uint8_t rnr_retry;          /* 0..7, 7: for ever */
    uint8_t timeout;            /* 4.096 us << timeout, 0: no timer */
    uint8_t min_rnr_timer;      /* IBTA's 5-bit code, sent in RNR NAKs */
    uint8_t max_rd_atomic;      /* READ/ATOMIC outstanding as requester */
    uint8_t max_dest_rd_atomic; /* ... as responder (resources kept) */
    RoceAV av;                  /* RC, UC: the path */
    /*
     * RC only: an XRC initiator (requests carry the XRCETH of each
     * WR's xrc_srqn, it takes responses alone) or target (it takes
     * requests alone, each received into the XRC SRQ its XRCETH
     * names: ops->take_recv reads RoceQP.xrc_srqn).  Both use the XRC
     * opcodes (transport 101b) on the wire.
     */
    uint8_t xrc;                /* ROCE_XRC_* */
} RoceQPAttr;

#define ROCE_XRC_NONE       0
#define ROCE_XRC_INI        1
#define ROCE_XRC_TGT        2

typedef struct RoceSGE {
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
} RoceSGE;

typedef enum RoceWROpcode {
    ROCE_WR_SEND,
    ROCE_WR_SEND_IMM,
    ROCE_WR_SEND_INV,
    ROCE_WR_WRITE,
    ROCE_WR_WRITE_IMM,
    ROCE_WR_READ,
    ROCE_WR_CMP_SWP,
    ROCE_WR_FETCH_ADD,
    /*
     * Work the front end does itself (NOP, LOCAL_INV, REG_MR, BIND_MW),
     * in order with the rest: ops->local_op when its turn comes.
     */
    ROCE_WR_LOCAL,
} RoceWROpcode;

#define ROCE_WR_SIGNALED    (1u << 0)
#define ROCE_WR_FENCE       (1u << 1)
#define ROCE_WR_SOLICITED   (1u << 2)
#define ROCE_WR_INLINE      (1u << 3)   /* payload in inline_data */

/* A send WQE, decoded by the front end (ops->fetch_send). */
typedef struct RoceSendWR {
    uint64_t wr_id;             /* the front end's, returned as is */
    RoceWROpcode opcode;
    uint32_t flags;             /* ROCE_WR_* */
    uint32_t imm;               /* immediate data, as on the wire */
    uint32_t invalidate_rkey;   /* SEND_INV */
    uint64_t remote_addr;       /* WRITE, READ, atomics */
    uint32_t rkey;
    uint64_t compare_add;       /* CMP_SWP: compare; FETCH_ADD: add */
    uint64_t swap;              /* CMP_SWP */
    /* UD and GSI */
    RoceAV av;
    uint32_t remote_qpn;
    uint32_t remote_qkey;       /* bit 31 set: the QP's qkey */
    uint32_t xrc_srqn;          /* XRC initiator: the target's SRQ */
    uint32_t num_sge;
    RoceSGE sge[ROCE_MAX_SGE];
    uint32_t inline_len;
    uint8_t inline_data[ROCE_MAX_INLINE];
} RoceSendWR;

/* A receive WQE, from the QP's RQ or its SRQ (ops->take_recv). */
typedef struct RoceRecvWR {
    uint64_t wr_id;
    uint32_t num_sge;
    RoceSGE sge[ROCE_MAX_SGE];
} RoceRecvWR;

/* Completion statuses: the values of enum ibv_wc_status. */
typedef enum RoceWCStatus {
    ROCE_WC_SUCCESS = 0,
    ROCE_WC_LOC_LEN_ERR = 1,
    ROCE_WC_LOC_QP_OP_ERR = 2,
    ROCE_WC_LOC_PROT_ERR = 4,
    ROCE_WC_WR_FLUSH_ERR = 5,
    ROCE_WC_BAD_RESP_ERR = 7,
    ROCE_WC_LOC_ACCESS_ERR = 8,
    ROCE_WC_REM_INV_REQ_ERR = 9,
    ROCE_WC_REM_ACCESS_ERR = 10,
    ROCE_WC_REM_OP_ERR = 11,
    ROCE_WC_RETRY_EXC_ERR = 12,
    ROCE_WC_RNR_RETRY_EXC_ERR = 13,
    ROCE_WC_GENERAL_ERR = 21,
} RoceWCStatus;

/* Completion opcodes: the values of enum ibv_wc_opcode. */
typedef enum RoceWCOpcode {
    ROCE_WC_SEND = 0,
    ROCE_WC_RDMA_WRITE = 1,
    ROCE_WC_RDMA_READ = 2,
    ROCE_WC_COMP_SWAP = 3,
    ROCE_WC_FETCH_ADD = 4,
    ROCE_WC_LOCAL = 5,          /* ROCE_WR_LOCAL (the front end knows) */
    ROCE_WC_RECV = 128,
    ROCE_WC_RECV_RDMA_WITH_IMM = 129,
} RoceWCOpcode;

#define ROCE_WC_WITH_IMM    (1u << 0)
#define ROCE_WC_WITH_INV    (1u << 1)
#define ROCE_WC_GRH         (1u << 2)   /* UD: the GRH was scattered */
#define ROCE_WC_IPV6        (1u << 3)   /* UD: an IPv6 packet */
#define ROCE_WC_VLAN        (1u << 4)
#define ROCE_WC_SOLICITED   (1u << 5)   /* receive: the message's SE bit */

typedef struct RoceCompletion {
    bool recv;                  /* of the receive queue (or SRQ) */
    uint32_t index;             /* send: the WQE's SQ index */
    uint64_t wr_id;
    RoceWCStatus status;
    RoceWCOpcode opcode;
    uint32_t byte_len;
    uint32_t flags;             /* ROCE_WC_* */
    uint32_t imm;               /* as on the wire */
    uint32_t inv_rkey;
    uint32_t src_qp;            /* UD */
    uint16_t vlan;
    uint8_t smac[6];
} RoceCompletion;

/* What a memory access is for (ops->dma). */
typedef enum RoceMemOp {
    ROCE_MEM_GATHER,            /* local, by lkey: a send's payload */
    ROCE_MEM_SCATTER,           /* local, by lkey: receive, READ data */
    ROCE_MEM_REMOTE_READ,       /* by rkey, for a peer's READ */
    ROCE_MEM_REMOTE_WRITE,      /* by rkey, for a peer's WRITE */
} RoceMemOp;

/* The front end's answers to a memory access. */
#define ROCE_MEM_OK         0
#define ROCE_MEM_EKEY       (-1)    /* no such key, or another PD's */
#define ROCE_MEM_EACCESS    (-2)    /* the key does not allow it */
#define ROCE_MEM_ERANGE     (-3)    /* outside the key's range */
#define ROCE_MEM_EIO        (-4)    /* DMA failed */

typedef struct RoceOps {
    /* Time, in ns of any monotonic clock (QEMU: QEMU_CLOCK_VIRTUAL). */
    int64_t (*now_ns)(void *opaque);
    /* The QP's one timer: fire roce_qp_timer() at expire_ns, or never. */
    void (*timer_mod)(void *opaque, RoceQP *qp, int64_t expire_ns);
    void (*timer_del)(void *opaque, RoceQP *qp);
    /* Call roce_qp_process(qp) soon, not from within this call. */
    void (*schedule)(void *opaque, RoceQP *qp);
    /* Send one whole Ethernet frame (no FCS); copy it: it is reused. */
    void (*tx)(void *opaque, RoceQP *qp, const uint8_t *frame, size_t len);
    /* The QP with this number on the wire (1: the GSI QP), or NULL. */
    RoceQP *(*lookup_qp)(void *opaque, uint32_t qpn);
    /*
     * The QPs attached to multicast group @mgid (16 bytes; an IPv4
     * group as ::ffff:a.b.c.d), for a datagram to ROCE_MCAST_QPN: up to
     * @max of them into @qps, their number.  NULL: no multicast (such
     * datagrams are dropped).
     */
    unsigned int (*lookup_mcast)(void *opaque, const uint8_t *mgid,
                                 RoceQP **qps, unsigned int max);
    /*
     * The send WQE at @index (a counter, modulo 2^32, below the
     * producer of roce_qp_sq_doorbell()), decoded.  The engine may
     * fetch a WQE more than once (retransmission) and only up to
     * ROCE_SQ_SLOTS past its oldest uncompleted one.  0, or the status
     * to complete it with (ROCE_WC_LOC_QP_OP_ERR for a WQE that makes
     * no sense): the QP then goes to error.
     */
    int (*fetch_send)(void *opaque, RoceQP *qp, uint32_t index,
                      RoceSendWR *wr);
    /*
     * Take the next receive WQE of the QP's RQ, or of its SRQ: 1 and
     * *wr, 0 when there is none (RNR), or a negative value for a broken
     * queue.  With @flush, only the QP's own RQ (never an SRQ), for a
     * QP in error.
     */
    int (*take_recv)(void *opaque, RoceQP *qp, RoceRecvWR *wr, bool flush);
    /*
     * Check and move memory: @len bytes at @addr under @key for @op,
     * to or from @buf.  buf NULL: only check that the whole range is
     * allowed.  ROCE_MEM_OK or a ROCE_MEM_E* code.
     */
    int (*dma)(void *opaque, RoceQP *qp, RoceMemOp op, uint32_t key,
               uint64_t addr, void *buf, size_t len);
    /*
     * A peer's atomic on 8 aligned bytes (host byte order) under @rkey:
     * CMP_SWP (@cmp_swp) or FETCH_ADD; *orig the value before.
     */
    int (*atomic)(void *opaque, RoceQP *qp, uint32_t rkey, uint64_t va,
                  bool cmp_swp, uint64_t swap_add, uint64_t compare,
                  uint64_t *orig);
    /* A peer's SEND_INV: invalidate @rkey; 0 or ROCE_MEM_E*. */
    int (*invalidate)(void *opaque, RoceQP *qp, uint32_t rkey);
    /* ROCE_WR_LOCAL's work: 0, or the status to complete it with. */
    int (*local_op)(void *opaque, RoceQP *qp, const RoceSendWR *wr);
    /* A completion, in order per queue (send or receive). */
    void (*complete)(void *opaque, RoceQP *qp, const RoceCompletion *c);
    /* The engine moved the QP to ROCE_QPS_ERR (an error, not modify). */
    void (*qp_error)(void *opaque, RoceQP *qp);
} RoceOps;

/* Counters, per engine, for tests and tracing. */
typedef struct RoceStats {
    uint64_t tx_packets;
    uint64_t rx_packets;
    uint64_t rx_dropped;        /* malformed, bad ICRC, no QP, wrong state */
    uint64_t rx_bad_icrc;
    uint64_t rx_malformed;
    uint64_t rx_no_qp;
    uint64_t retransmits;       /* go-back-N restarts */
    uint64_t timeouts;
    uint64_t seq_naks_sent;
    uint64_t seq_naks_rcvd;
    uint64_t rnr_naks_sent;
    uint64_t rnr_naks_rcvd;
    uint64_t dup_requests;
    uint64_t ud_no_recv;
    uint64_t rx_mcast;          /* multicast datagrams, once per QP */
} RoceStats;

struct RoceEngine {
    const RoceOps *ops;
    void *opaque;
    RoceStats stats;
    /* The frame being built (roce-wire.c). */
    size_t frame_ip;
    size_t frame_len;
    uint8_t frame[ROCE_FRAME_MAX];
};

/* A send WQE the engine started, until its completion. */
typedef struct RoceReqSlot {
    uint64_t wr_id;
    uint32_t first_psn;
    uint32_t last_psn;
    uint32_t len;
    uint8_t opcode;             /* RoceWROpcode */
    uint8_t state;              /* ROCE_SLOT_* (roce-int.h) */
    uint8_t status;             /* RoceWCStatus, when done */
    bool signaled;
} RoceReqSlot;

/* A READ or ATOMIC the responder executed, kept for its duplicates. */
typedef struct RoceRespRes {
    bool valid;
    bool atomic;
    uint32_t first_psn;
    uint32_t last_psn;
    uint32_t rkey;
    uint64_t va;
    uint32_t len;
    uint64_t orig;
} RoceRespRes;

/*
 * A QP's transport state.  The front end embeds it in its own QP and
 * only reads it (attr for its QUERY_QP, sq_ci for the SQ's consumer).
 */
struct RoceQP {
    RoceEngine *eng;
    void *opaque;               /* the front end's */
    RoceQPAttr attr;
    uint16_t sport;             /* UDP source port in use */

    /* Requester and completer. */
    uint32_t sq_pi;             /* producer: WQEs posted */
    uint32_t sq_ci;             /* oldest WQE not completed */
    uint32_t sq_hi;             /* next WQE never started */
    uint32_t req_idx;           /* WQE the next packet is of */
    uint32_t req_off;           /* its bytes sent before */
    uint32_t req_psn;           /* PSN of the next packet */
    uint32_t comp_psn;          /* oldest PSN not acknowledged */
    uint32_t psn_hi;            /* after the highest PSN sent */
    uint32_t noack;             /* packets since the last AckReq */
    uint8_t retry_left;
    uint8_t rnr_left;
    bool in_retry;
    bool rnr_wait;
    bool retrans_armed;
    bool scheduled;
    int64_t rnr_deadline;
    int64_t retrans_deadline;
    RoceReqSlot slot[ROCE_SQ_SLOTS];
    bool cur_valid;             /* cur holds WQE cur_idx */
    uint32_t cur_idx;
    RoceSendWR cur;

    /* Responder. */
    uint32_t epsn;              /* expected PSN */
    uint32_t msn;
    bool nak_sent;              /* one PSN sequence NAK per gap */
    bool in_send;               /* a multi-packet SEND in progress */
    bool in_write;              /* a multi-packet WRITE in progress */
    bool uc_drop;               /* UC: skip to the next FIRST/ONLY */
    bool has_rwr;
    uint32_t recv_off;          /* bytes scattered into rwr */
    RoceRecvWR rwr;
    uint64_t w_va;
    uint32_t w_rkey;
    uint32_t w_resid;
    uint32_t w_len;
    RoceRespRes res[ROCE_MAX_RD_ATOMIC];
    unsigned int res_head;
    /* A READ being answered (roce_qp_process() continues it). */
    bool rd_active;
    uint32_t rd_rkey;
    uint64_t rd_va;
    uint32_t rd_resid;
    uint32_t rd_psn;
    bool rd_first;
    /* XRC target: the XRC SRQ the request in hand names (its XRCETH). */
    uint32_t xrc_srqn;
};

void roce_engine_init(RoceEngine *e, const RoceOps *ops, void *opaque);
/* A frame from the wire (no FCS), for any QP of the device. */
void roce_engine_rx(RoceEngine *e, const uint8_t *frame, size_t len);

void roce_qp_init(RoceQP *qp, RoceEngine *e, void *opaque);
/*
 * The QP's attributes after a modify: the engine acts on the state
 * change (RESET forgets everything, ERR flushes, RTR takes rq_psn, RTS
 * from RTR takes sq_psn).  The front end checks the transition.
 */
void roce_qp_modify(RoceQP *qp, const RoceQPAttr *attr);
/* Before the front end frees the QP: cancels the timer. */
void roce_qp_destroy(RoceQP *qp);
void roce_qp_sq_doorbell(RoceQP *qp, uint32_t sq_pi);
void roce_qp_rq_doorbell(RoceQP *qp);
void roce_qp_process(RoceQP *qp);
void roce_qp_timer(RoceQP *qp);

/* The ICRC of a RoCEv2 packet: @ip at its IP header, @len up to the ICRC. */
uint32_t roce_icrc(const uint8_t *ip, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model (ConnectX-4 Lx, 15b3:1015): the device's state and
 * the interfaces between its parts.
 *
 *   mlx5.c      PCI function, BAR0 (initialization segment, health
 *               buffer, timers), MSI-X, reset
 *   mlx5-cmd.c  the command queue: slots, mailbox chains, dispatch
 *   mlx5-hca.c  the commands of bring-up and teardown, capabilities,
 *               access registers
 *   mlx5-eq.c   event queues: CREATE/DESTROY_EQ, EQEs, their doorbells
 *               and interrupts, command completion events
 *   mlx5-vsc.c  the vendor-specific PCI capability (a gateway)
 *   mlx5-reg.c  the access registers
 *   mlx5-stats.c  the port's traffic counters
 *   mlx5-vport.c the NIC vport context and state, the link, counters
 *   mlx5-obj.c  PDs, transport domains, TIS, TIR, RQT
 *   mlx5-mkey.c memory keys (PA, MTT) and the DMA through them
 *   mlx5-umr.c  UMR WQEs: fast registration, invalidation, the kernel's
 *               memory registration QP
 *   mlx5-cq.c   completion queues, their doorbells and events
 *   mlx5-wq.c   SQs and RQs, the send doorbell
 *   mlx5-flow.c flow tables, groups and entries
 *   mlx5-srq.c  XRC domains, SRQs, XRC SRQs and RMPs (shared receive
 *               queues)
 *   mlx5-qp.c   QPs: their contexts and state machine
 *   mlx5-gid.c  the RoCE address (GID) table
 *   mlx5-mcg.c  multicast groups: the UD QPs attached to a GID
 *   mlx5-roce.c the RoCE front end: the RoCEv2 engine (hw/roce/), its
 *               timers, bottom halves, loopback and memory accesses
 *   mlx5-roce-wqe.c  send, receive and SRQ WQEs decoded for the engine
 *   mlx5-roce-cqe.c  the engine's completions as CQEs
 *
 * Everything the guest writes is untrusted: a bad command gets an error
 * status, never an access outside what the guest mapped.
 */

#ifndef HW_MLX5_H
#define HW_MLX5_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qom/object.h"

#define TYPE_MLX5 "mlx5"
OBJECT_DECLARE_SIMPLE_TYPE(MLX5State, MLX5)

/* The RoCE front end's state (mlx5-roce.h). */
typedef struct MLX5Roce MLX5Roce;
typedef struct MLX5RoceQP MLX5RoceQP;

#define MLX5_VENDOR_ID              0x15b3
#define MLX5_DEVICE_ID_CX4LX        0x1015

#define MLX5_BAR0_SIZE              (32 * MiB)
#define MLX5_MSIX_BAR               2
#define MLX5_MSIX_VECTORS           64

/* Offsets in BAR0 of the initialization segment's registers. */
#define MLX5_ISEG_FW_REV            0x000
#define MLX5_ISEG_CMDIF_REV_FW_SUB  0x004
#define MLX5_ISEG_CMDQ_ADDR_H       0x010
#define MLX5_ISEG_CMDQ_ADDR_L_SZ    0x014
#define MLX5_ISEG_CMD_DBELL         0x018
#define MLX5_ISEG_INITIALIZING      0x1fc
#define MLX5_ISEG_HEALTH            0x200
#define MLX5_ISEG_HEALTH_END        0x240
#define MLX5_ISEG_CMD_EXEC_TO       0xff8
#define MLX5_ISEG_CMD_Q_INIT_TO     0xffc
#define MLX5_ISEG_TIMER_H           0x1000
#define MLX5_ISEG_TIMER_L           0x1004
#define MLX5_ISEG_HEALTH_COUNTER    0x1010

/*
 * The model's own, in PCIe extended configuration space, where no
 * capability list reaches (x-fault-inject only): see mlx5.c.
 */
#define MLX5_CFG_X_FATAL            0x400

/* Health buffer fields, from its start. */
#define MLX5_HEALTH_FW_VER          0x30
#define MLX5_HEALTH_HW_ID           0x34
#define MLX5_HEALTH_SYND            0x3c    /* irisc index, synd, ext synd */

/* cmdq_addr_l_sz bits 10:8, the state of the NIC interface */
#define MLX5_NIC_IFC_DISABLED       1

/*
 * The firmware we claim: 14 is ConnectX-4 Lx's major number, the rest is
 * ours.  The command interface revision must be 5 for the driver.
 */
#define MLX5_FW_MAJOR               14
#define MLX5_FW_MINOR               99
#define MLX5_FW_SUBMINOR            34
#define MLX5_CMDIF_REV              5

/* The command queue: 32 slots (log 5) of 64 bytes (log 6) in one page. */
#define MLX5_CMDQ_LOG_SIZE          5
#define MLX5_CMDQ_LOG_STRIDE        6
#define MLX5_CMDQ_SLOTS             (1 << MLX5_CMDQ_LOG_SIZE)

/*
 * The UARs the driver may allocate: BAR0 pages from 4 on (the
 * initialization segment covers pages 0-2).
 */
#define MLX5_UAR_FIRST              4
#define MLX5_UAR_COUNT              256

typedef enum MLX5HcaState {
    MLX5_HCA_DISABLED,          /* after reset, and DISABLE_HCA */
    MLX5_HCA_ENABLED,           /* ENABLE_HCA, and TEARDOWN_HCA */
    MLX5_HCA_INITIALIZED,       /* INIT_HCA */
} MLX5HcaState;

/* Event queues (mlx5-eq.c). */
#define MLX5_MAX_EQS                64          /* log_max_eq 6 */
#define MLX5_EQ_COUNTER_MASK        0xffffff
#define MLX5_EVENT_CMD              0x0a

typedef struct MLX5EQ {
    bool valid;
    bool armed;
    uint8_t log_size;           /* of the ring, in entries */
    uint8_t log_page_size;      /* of its pages, over 4 KiB */
    uint16_t intr;              /* MSI-X vector */
    uint32_t uar;               /* the UAR page of its doorbell */
    uint32_t prod;              /* next entry the device writes */
    uint32_t cons;              /* from the driver's doorbell */
    uint64_t mask[4];           /* event types it takes */
    uint64_t *pas;              /* its pages' addresses */
} MLX5EQ;

/* A capability group: what the guest reads as maximum and current. */
#define MLX5_CAP_BYTES              0x1000
typedef struct MLX5Cap {
    uint8_t max[MLX5_CAP_BYTES];
    uint8_t cur[MLX5_CAP_BYTES];
} MLX5Cap;

/* The capability groups QUERY_HCA_CAP answers for (op_mod bits 15:1). */
#define MLX5_CAP_GENERAL            0x0
#define MLX5_CAP_ETH                0x1
#define MLX5_CAP_ATOMIC             0x3
#define MLX5_CAP_ROCE               0x4
#define MLX5_CAP_FLOW_TABLE         0x7
#define MLX5_CAP_GROUPS             8

/* Plain objects (mlx5-obj.c). */
enum {
    MLX5_OBJ_PD,
    MLX5_OBJ_TD,
    MLX5_OBJ_TIS,
    MLX5_OBJ_TIR,
    MLX5_OBJ_RQT,
    MLX5_OBJ_TYPES,
};
#define MLX5_MAX_OBJS               256
#define MLX5_MAX_RQT_SIZE           256     /* log_max_rqt_size 8 */

typedef struct MLX5Obj {
    bool valid;
    uint32_t len;
    uint8_t *ctx;               /* the context it was created with */
} MLX5Obj;

/*
 * Memory keys (mlx5-mkey.c): index << 8 | variant.  Indexes from 2 (key
 * 0x100 is the PRM's invalid key).  The translation entries are bounded
 * per key (1 GiB in 4 KiB pages) and over all keys (8 MiB of host
 * memory), as the guest sizes them.  2^14 keys: with UMR on, mlx5_ib
 * fills its key cache at load (about 6100 free keys) before any user.
 */
#define MLX5_MAX_MKEYS              16384   /* log_max_mkey 14 */
#define MLX5_LOG_MAX_MKEYS          14
#define MLX5_MKEY_FIRST             2
#define MLX5_MKEY_MAX_MTT           (1u << 18)
#define MLX5_MKEY_MTT_BUDGET        (1u << 20)

/* Access rights of a key (the mkc's lr, lw, rr, rw, a). */
#define MLX5_MKEY_LR                (1u << 0)
#define MLX5_MKEY_LW                (1u << 1)
#define MLX5_MKEY_RR                (1u << 2)
#define MLX5_MKEY_RW                (1u << 3)
#define MLX5_MKEY_A                 (1u << 4)

typedef struct MLX5MKey {
    bool valid;
    bool pa;                    /* PA mode: addresses are bus addresses */
    bool length64;              /* no range: all of the address space */
    bool umr_en;                /* a UMR may change it */
    bool free;                  /* no access until a UMR enables it */
    bool rinval;                /* a peer's SEND_INV may free it */
    uint8_t variant;            /* the key's low byte */
    uint8_t access;             /* MLX5_MKEY_* */
    uint8_t relaxed;            /* relaxed ordering: write << 1 | read */
    uint8_t log_page_size;      /* MTT: of a page, in bytes */
    uint32_t pd;
    uint64_t start;             /* MTT: the virtual address of byte 0 */
    uint64_t len;
    uint32_t octs;              /* translations_octword_size, created */
    uint32_t cap;               /* MTT: entries a UMR may write */
    uint32_t nmtt;              /* entries held (a UMR grows them) */
    uint64_t *mtt;              /* page i's bus address, from start's */
} MLX5MKey;

/* Completion queues (mlx5-cq.c). */
#define MLX5_MAX_CQS                1024    /* log_max_cq 10 */
#define MLX5_CQ_COUNTER_MASK        0xffffff

typedef struct MLX5CQ {
    bool valid;
    bool armed;
    bool cqe_128;
    uint8_t log_size;
    uint8_t log_page_size;
    uint8_t page_offset;        /* in 64ths of a page */
    uint16_t period;
    uint16_t max_count;
    uint32_t uar;
    uint32_t eqn;
    uint32_t pi;                /* next CQE the device writes */
    uint64_t dbr;
    uint64_t *pas;
} MLX5CQ;

/* Send and receive queues (mlx5-wq.c). */
#define MLX5_WQ_SQ                  0
#define MLX5_WQ_RQ                  1
#define MLX5_MAX_WQS                256

typedef struct MLX5WQ {
    bool valid;
    uint8_t state;
    uint8_t log_sz;
    uint8_t log_stride;
    uint8_t log_pg_sz;
    uint8_t page_offset;        /* in 64ths of a page */
    uint16_t cc;                /* the device's consumer counter */
    uint32_t pd;
    uint32_t cqn;
    uint32_t uar;
    uint32_t tisn;              /* SQ: its TIS (0: none) */
    uint64_t dbr;
    uint64_t *pas;
    uint8_t *ctx;               /* the sqc or rqc it was created with */
} MLX5WQ;

/* Flow steering (mlx5-flow.c). */
#define MLX5_MAX_FTS                64
#define MLX5_MAX_FGS                256
#define MLX5_FT_MAX_LEVEL           63

typedef struct MLX5FlowTable {
    bool valid;
    uint8_t level;
    uint8_t log_size;
    uint8_t miss_action;
    uint32_t miss_id;
    GHashTable *fte;            /* index -> its flow context */
} MLX5FlowTable;

typedef struct MLX5FlowGroup {
    bool valid;
    uint8_t criteria_enable;
    uint32_t table;
    uint32_t start;
    uint32_t end;
    uint8_t criteria[512];
} MLX5FlowGroup;

#define MLX5_MAX_Q_COUNTERS         64

/*
 * Shared receive queues (mlx5-srq.c): the three kinds share one number
 * space, as the driver keeps them in one table and a QP names any.
 */
#define MLX5_MAX_XRCDS              256     /* log_max_xrcd 8 */
#define MLX5_MAX_SRQS               256     /* log_max_srq 8 */

typedef enum MLX5SRQKind {
    MLX5_SRQ_BASIC,             /* CREATE_SRQ (ISSI 0) */
    MLX5_SRQ_XRC,               /* CREATE_XRC_SRQ */
    MLX5_SRQ_RMP,               /* CREATE_RMP (ISSI 1's basic SRQ) */
} MLX5SRQKind;

typedef struct MLX5SRQ {
    bool valid;
    bool err;                   /* the PRM's ERROR (RMP: ERR) state */
    MLX5SRQKind kind;
    uint8_t log_size;           /* of the ring, in WQEs */
    uint8_t log_stride;         /* of a WQE, in bytes */
    uint8_t log_page_size;      /* over 4 KiB */
    uint8_t page_offset;        /* in 64ths of a page */
    uint16_t lwm;               /* limit: an event below it, when armed */
    uint32_t pd;
    uint32_t xrcd;              /* XRC and basic SRQs */
    uint32_t cqn;               /* XRC and basic SRQs */
    uint32_t user_index;        /* XRC SRQs: the CQE's srqn_uidx */
    uint64_t dbr;               /* the record: its counter */
    uint32_t npas;
    uint64_t *pas;
    uint32_t head;              /* the next WQE the device takes */
    uint32_t cc;                /* WQEs it took */
} MLX5SRQ;

/*
 * The RoCE address table (mlx5-gid.c): what SET_ROCE_ADDRESS wrote at
 * an index; an entry with a zero address is empty.
 */
#define MLX5_GID_TABLE_SIZE         256

typedef struct MLX5Gid {
    bool valid;
    bool vlan_valid;
    uint16_t vlan_id;
    uint8_t version;            /* the PRM's: 2 is RoCE v2 */
    uint8_t l3_type;            /* 0 IPv4, 1 IPv6 */
    uint8_t mac[6];
    uint8_t gid[16];
} MLX5Gid;

/*
 * QPs (mlx5-qp.c).  Their numbers start at MLX5_QPN_BASE, clear of the
 * SQ numbers that share the send doorbell, of 0 and 1 (QP0/QP1 on the
 * wire) and of each other's; a QP is found as qpn - MLX5_QPN_BASE.
 */
#define MLX5_MAX_QPS                1024    /* log_max_qp 10 */
#define MLX5_QPN_BASE               0x400

/* An address path (the PRM's ads) as RoCE uses it. */
typedef struct MLX5QPPath {
    bool grh;
    uint8_t port;               /* vhca_port_num: 1 */
    uint16_t pkey_index;
    uint8_t src_addr_index;     /* the GID table's entry to send from */
    uint8_t hop_limit;
    uint8_t tclass;
    uint32_t flow_label;
    uint16_t udp_sport;         /* RoCE v2's UDP source port */
    uint8_t eth_prio;
    uint8_t dscp;
    uint8_t ecn;
    uint8_t ack_timeout;
    uint8_t stat_rate;
    uint8_t rmac[6];
    uint8_t rgid[16];
} MLX5QPPath;

typedef struct MLX5QP {
    bool valid;
    uint8_t st;                 /* service type: RC, UC, UD, XRC, QP1, UMR */
    uint8_t state;              /* RST, INIT, RTR, RTS, SQER, SQD, ERR */
    uint8_t rq_type;            /* its own RQ, an SRQ, none */
    bool no_sq;
    bool rlky;                  /* reserved lkey allowed (kernel QPs) */
    bool block_lb_mc;           /* its multicast never loops back */
    bool fre;                   /* fast registration */
    bool rre, rwe, rae;         /* remote read, write, atomic enabled */
    uint8_t atomic_mode;
    uint8_t mtu;                /* the IB MTU code: 1 (256) to 5 (4096) */
    uint8_t log_msg_max;
    uint8_t log_rq_size;
    uint8_t log_rq_stride;      /* of an RQ WQE, in bytes */
    uint8_t log_sq_size;        /* in 64-byte basic blocks */
    uint8_t log_page_size;
    uint8_t page_offset;        /* in 64ths of a page */
    uint8_t log_sra_max;        /* outstanding RDMA READ/atomics, as sender */
    uint8_t log_rra_max;        /* and as responder */
    uint8_t retry_count;
    uint8_t rnr_retry;
    uint8_t min_rnr_nak;
    uint8_t log_ack_req_freq;
    uint8_t counter_set_id;
    uint32_t pd;
    uint32_t uar;
    uint32_t user_index;
    uint32_t cqn_snd;
    uint32_t cqn_rcv;
    uint32_t srqn;
    uint32_t xrcd;
    uint32_t remote_qpn;
    uint32_t q_key;
    uint32_t next_send_psn;
    uint32_t next_rcv_psn;
    uint64_t dbr;               /* [0] RQ counter, [1] SQ counter */
    MLX5QPPath path;
    uint32_t npas;
    uint64_t *pas;              /* RQ first, then the SQ */
    MLX5RoceQP *roce;           /* RC, UC, UD, QP1: the engine's QP */
} MLX5QP;

/* Traffic counters of one direction, by destination class (mlx5-stats.c). */
enum { MLX5_RX, MLX5_TX };
enum {
    MLX5_FRAME_UCAST,
    MLX5_FRAME_MCAST,
    MLX5_FRAME_BCAST,
    MLX5_FRAME_CLASSES
};
typedef struct MLX5PortCounters {
    uint64_t frames[MLX5_FRAME_CLASSES];
    uint64_t octets[MLX5_FRAME_CLASSES];
} MLX5PortCounters;

/*
 * Multicast groups (mlx5-mcg.c): log_max_mcg and max_qp_mcg of the
 * capabilities.  A group with no QP is a free entry.
 */
#define MLX5_LOG_MAX_MCG            8
#define MLX5_MAX_MCGS               (1 << MLX5_LOG_MAX_MCG)
#define MLX5_MAX_QP_MCG             32

typedef struct MLX5Mcg {
    uint8_t gid[16];
    uint32_t nqps;
    uint32_t qpn[MLX5_MAX_QP_MCG];
} MLX5Mcg;

struct MLX5State {
    PCIDevice parent_obj;

    MemoryRegion bar0;
    MemoryRegion msix_bar;

    /* Command queue */
    uint32_t cmdq_addr_h;
    uint32_t cmdq_addr_l;       /* bits 31:12 only */
    uint64_t cmdq_base;         /* of the doorbells being run */
    uint32_t cmd_pending;       /* doorbell bits not yet run */
    QEMUBH *cmd_bh;

    /*
     * A fatal error raised through MLX5_CFG_X_FATAL (x-fault-inject
     * only): its health syndrome, 0 when there is none.  Set, the
     * firmware is down until the driver starts over.
     */
    bool fault_inject;
    uint8_t fatal_synd;

    /* Function state */
    MLX5HcaState hca_state;
    uint16_t issi;
    uint8_t host_endianness;
    MLX5Cap caps[MLX5_CAP_GROUPS];
    DECLARE_BITMAP(uars, MLX5_UAR_COUNT);
    MLX5EQ eqs[MLX5_MAX_EQS];
    uint32_t uar_db[MLX5_UAR_COUNT];    /* first dword of a CQ doorbell */

    /* The vendor-specific capability */
    uint8_t vsc_off;
    uint32_t vsc_ctrl;
    uint32_t vsc_counter;
    uint32_t vsc_sem;
    uint32_t vsc_addr;
    uint32_t vsc_data;

    /* Port and vport */
    NICConf conf;
    NICState *nic;
    bool port_admin_up;
    uint16_t port_mtu;
    uint16_t vport_mtu;
    bool vport_roce_en;
    uint8_t vport_promisc;
    DECLARE_BITMAP(q_counters, MLX5_MAX_Q_COUNTERS);
    bool pause_tx;              /* PFCC pptx, pprx: global pause */
    bool pause_rx;
    MLX5PortCounters port_counters[2];  /* PPCNT's: cleared by clr */
    MLX5PortCounters vport_counters[2]; /* QUERY_VPORT_COUNTER's */

    /* Objects */
    MLX5Obj objs[MLX5_OBJ_TYPES][MLX5_MAX_OBJS];
    MLX5MKey mkeys[MLX5_MAX_MKEYS];
    uint32_t mkey_mtts;         /* translation entries of all keys */
    MLX5CQ cqs[MLX5_MAX_CQS];
    MLX5WQ wqs[2][MLX5_MAX_WQS];
    MLX5FlowTable fts[MLX5_MAX_FTS];
    MLX5FlowGroup fgs[MLX5_MAX_FGS];
    uint32_t ft_root;
    DECLARE_BITMAP(xrcds, MLX5_MAX_XRCDS);
    MLX5SRQ srqs[MLX5_MAX_SRQS];
    MLX5QP qps[MLX5_MAX_QPS];
    MLX5Gid gids[MLX5_GID_TABLE_SIZE];
    MLX5Mcg mcgs[MLX5_MAX_MCGS];
    MLX5Roce *roce;
};

/* mlx5-cmd.c */
void mlx5_cmd_doorbell(MLX5State *s, uint32_t slots);
void mlx5_cmd_reset(MLX5State *s);
void mlx5_cmd_realize(MLX5State *s);
void mlx5_cmd_unrealize(MLX5State *s);

/*
 * A command's input and output, both in host memory.  The handler reads
 * at most inlen bytes of in and writes at most outlen bytes of out
 * (zeroed); it returns the command status (MLX5_CMD_STAT_*) and sets
 * *syndrome when that is not OK.
 */
typedef struct MLX5Cmd {
    const uint8_t *in;
    uint32_t inlen;
    uint8_t *out;
    uint32_t outlen;
    uint16_t opcode;
    uint16_t op_mod;
    uint32_t syndrome;
} MLX5Cmd;

/* Command status, the first byte of every output (PRM names). */
enum {
    MLX5_CMD_STAT_OK                = 0x0,
    MLX5_CMD_STAT_INT_ERR           = 0x1,
    MLX5_CMD_STAT_BAD_OP_ERR        = 0x2,
    MLX5_CMD_STAT_BAD_PARAM_ERR     = 0x3,
    MLX5_CMD_STAT_BAD_SYS_STATE_ERR = 0x4,
    MLX5_CMD_STAT_BAD_RES_ERR       = 0x5,
    MLX5_CMD_STAT_LIM_ERR           = 0x8,
    MLX5_CMD_STAT_BAD_RES_STATE_ERR = 0x9,
    MLX5_CMD_STAT_BAD_QP_STATE_ERR  = 0x10,
    MLX5_CMD_STAT_BAD_INP_LEN_ERR   = 0x50,
    MLX5_CMD_STAT_BAD_OUTP_LEN_ERR  = 0x51,
};

static inline int mlx5_cmd_fail(MLX5Cmd *cmd, int status, uint32_t syndrome)
{
    cmd->syndrome = syndrome;
    return status;
}

/* The input and output hold at least in and out bytes. */
static inline int mlx5_cmd_len_ok(MLX5Cmd *cmd, size_t in, size_t out)
{
    if (cmd->inlen < in) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR, 0x6d780002);
    }
    if (cmd->outlen < out) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, 0x6d780003);
    }
    return MLX5_CMD_STAT_OK;
}

/* The name_in and name_out layouts of mlx5_ifc.h (mlx5-ifc.h). */
#define MLX5_CMD_LEN(cmd, op) \
    mlx5_cmd_len_ok((cmd), MLX5_ST_SZ_BYTES(op##_in), \
                    MLX5_ST_SZ_BYTES(op##_out))

/*
 * mlx5-pas.c: a ring's page list at @off of the input, @npas pages of
 * 4 KiB << @log_page: checked (all there, each aligned), copied (the
 * queue's, g_free), and the bus address of byte @off of the ring.
 */
int mlx5_pas_check(MLX5Cmd *cmd, size_t off, uint64_t npas,
                   unsigned int log_page);
uint64_t *mlx5_pas_copy(MLX5Cmd *cmd, size_t off, uint64_t npas);
dma_addr_t mlx5_pas_addr(const uint64_t *pas, unsigned int log_page,
                         uint64_t off);

/* mlx5-eq.c */
int mlx5_cmd_create_eq(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_destroy_eq(MLX5State *s, MLX5Cmd *cmd);
void mlx5_eq_doorbell(MLX5State *s, unsigned int uar, hwaddr off,
                      uint32_t val);
uint64_t mlx5_eq_cmd_listeners(MLX5State *s);
void mlx5_eq_cmd_done(MLX5State *s, uint64_t listeners, unsigned int slot);
void mlx5_eq_reset(MLX5State *s);
bool mlx5_eq_valid(MLX5State *s, uint32_t eqn);
void mlx5_eq_post_to(MLX5State *s, uint32_t eqn, uint8_t type,
                     uint8_t subtype, const uint8_t *data);
void mlx5_eq_event(MLX5State *s, uint8_t type, uint8_t subtype,
                   const uint8_t *data);

/* mlx5-vsc.c */
int mlx5_vsc_init(MLX5State *s, Error **errp);
void mlx5_vsc_reset(MLX5State *s);
bool mlx5_vsc_read(MLX5State *s, uint32_t addr, int len, uint32_t *val);
bool mlx5_vsc_write(MLX5State *s, uint32_t addr, uint32_t val, int len);

/* mlx5-reg.c */
int mlx5_cmd_access_reg(MLX5State *s, MLX5Cmd *cmd);

/*
 * mlx5-stats.c: count a frame that crossed the wire (dir MLX5_RX or
 * MLX5_TX); fill PPCNT group @grp's counter set and QUERY_VPORT_COUNTER's
 * output, each clearing its view after the read with @clear.
 */
void mlx5_stats_count(MLX5State *s, int dir, const uint8_t *frame,
                      size_t len);
void mlx5_stats_ppcnt(MLX5State *s, unsigned int grp, bool clear,
                      uint8_t *set);
void mlx5_stats_vport(MLX5State *s, bool clear, uint8_t *out);

/* mlx5-vport.c */
void mlx5_vport_reset(MLX5State *s);
void mlx5_vport_set_link(MLX5State *s, bool up);
int mlx5_cmd_query_nic_vport_context(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_modify_nic_vport_context(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_query_vport_state(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_query_vport_counter(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_query_hca_vport_pkey(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_alloc_q_counter(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_dealloc_q_counter(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_query_q_counter(MLX5State *s, MLX5Cmd *cmd);

/* mlx5-obj.c: -1 for an opcode not its own */
int mlx5_obj_exec(MLX5State *s, MLX5Cmd *cmd);
MLX5Obj *mlx5_obj_get(MLX5State *s, unsigned int type, uint32_t id);
void mlx5_obj_reset(MLX5State *s);

/* mlx5-mkey.c: -1 for an opcode not its own */
int mlx5_mkey_exec(MLX5State *s, MLX5Cmd *cmd);
MLX5MKey *mlx5_mkey_get(MLX5State *s, uint32_t index);
bool mlx5_mkey_pd_busy(MLX5State *s, uint32_t pdn);
void mlx5_mkey_reset(MLX5State *s);
bool mlx5_mkey_mtt_grow(MLX5State *s, MLX5MKey *k, uint64_t n);
int mlx5_mkey_invalidate(MLX5State *s, uint32_t pdn, uint32_t key);

/* mlx5_mkey_dma()'s @pdn for the memory registration QP: any PD. */
#define MLX5_MKEY_ANY_PD            UINT32_MAX

/*
 * mlx5_mkey_dma()'s answers, one per check, in the order they are made.
 * The RoCE front end maps them to the engine's: EKEY and EPD to
 * ROCE_MEM_EKEY, EACCESS, ERANGE and EIO to their namesakes.
 */
enum {
    MLX5_MKEY_OK                = 0,
    MLX5_MKEY_EKEY              = -1,   /* no such key, variant; free */
    MLX5_MKEY_EPD               = -2,   /* the key is another PD's */
    MLX5_MKEY_EACCESS           = -3,   /* it does not grant that access */
    MLX5_MKEY_ERANGE            = -4,   /* outside its range */
    MLX5_MKEY_EIO               = -5,   /* a page is not guest memory */
};

/*
 * Move @len bytes at @va under @key to (DMA_DIRECTION_FROM_DEVICE) or
 * from (DMA_DIRECTION_TO_DEVICE) @buf, for a queue of PD @pdn that needs
 * @access (MLX5_MKEY_*).  @buf NULL: the checks alone, for the whole
 * range.  A DMA error may leave part of a write done, as on hardware.
 */
int mlx5_mkey_dma(MLX5State *s, uint32_t pdn, uint32_t key,
                  unsigned int access, uint64_t va, void *buf, uint64_t len,
                  DMADirection dir);

/* mlx5-cq.c */
int mlx5_cmd_create_cq(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_destroy_cq(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_modify_cq(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_query_cq(MLX5State *s, MLX5Cmd *cmd);
MLX5CQ *mlx5_cq_get(MLX5State *s, uint32_t cqn);
bool mlx5_cq_post(MLX5State *s, uint32_t cqn, uint8_t *cqe);
void mlx5_cq_doorbell(MLX5State *s, unsigned int uar, uint32_t arm,
                      uint32_t cqn);
void mlx5_cq_reset(MLX5State *s);

/* mlx5-wq.c: -1 for an opcode not its own */
int mlx5_wq_exec(MLX5State *s, MLX5Cmd *cmd);
MLX5WQ *mlx5_wq_get(MLX5State *s, unsigned int type, uint32_t n);
dma_addr_t mlx5_wq_addr(MLX5WQ *wq, uint32_t idx, uint32_t off);
MemTxResult mlx5_wq_read(MLX5State *s, MLX5WQ *wq, uint32_t idx, void *buf,
                         uint32_t len);
bool mlx5_wq_cq_busy(MLX5State *s, uint32_t cqn);
void mlx5_sq_doorbell(MLX5State *s, unsigned int uar, uint32_t qpn_ds);
void mlx5_wq_reset(MLX5State *s);

/* mlx5-flow.c: -1 for an opcode not its own */
int mlx5_flow_exec(MLX5State *s, MLX5Cmd *cmd);
MLX5FlowTable *mlx5_ft_get(MLX5State *s, uint32_t id);
void mlx5_flow_reset(MLX5State *s);

/*
 * mlx5-steer.c: the TIRs a frame's match parameters lead to (an entry
 * may forward to several destinations), at most @max of them, each
 * once, in @tirs: how many.
 */
#define MLX5_STEER_MAX_TIRS         32
unsigned int mlx5_steer(MLX5State *s, const uint8_t *param, uint32_t *tirs,
                        unsigned int max);

/* mlx5-pkt.c: a frame as the device parses it */
typedef struct MLX5Pkt {
    uint16_t ethertype;         /* after the VLAN tags */
    uint16_t tci;               /* of the first tag */
    bool cvlan;
    bool svlan;
    bool frag;
    uint8_t ip_version;         /* 4, 6, or 0: not IP */
    uint8_t proto;
    size_t l3;                  /* offsets in the frame */
    size_t ip_end;              /* the IP packet's end, within the frame */
    size_t l4;                  /* 0: no TCP or UDP header */
    size_t l4_hlen;
} MLX5Pkt;

void mlx5_pkt_parse(const uint8_t *f, size_t len, MLX5Pkt *p);
void mlx5_pkt_csum(uint8_t *f, const MLX5Pkt *p, bool l3, bool l4);
uint16_t mlx5_pkt_rx_sum(const uint8_t *f, size_t len, const MLX5Pkt *p);

/* mlx5-tx.c: an Ethernet SEND or LSO WQE; 0 or a CQE error syndrome */
int mlx5_tx_wqe(MLX5State *s, MLX5WQ *wq, uint16_t idx, unsigned int op,
                unsigned int ds);

/* mlx5-rx.c */
ssize_t mlx5_rx_frame(MLX5State *s, const uint8_t *buf, size_t len);
/*
 * A frame an SQ of transport domain @td transmitted, looped back into
 * receive steering (local loopback).
 */
void mlx5_rx_loopback(MLX5State *s, const uint8_t *buf, size_t len,
                      uint32_t td);

/* mlx5-srq.c: -1 for an opcode not its own */
int mlx5_srq_exec(MLX5State *s, MLX5Cmd *cmd);
MLX5SRQ *mlx5_srq_get(MLX5State *s, uint32_t srqn);
bool mlx5_xrcd_valid(MLX5State *s, uint32_t xrcd);
bool mlx5_srq_cq_busy(MLX5State *s, uint32_t cqn);
void mlx5_srq_reset(MLX5State *s);

/* mlx5-qp.c: -1 for an opcode not its own */
int mlx5_qp_exec(MLX5State *s, MLX5Cmd *cmd);
MLX5QP *mlx5_qp_get(MLX5State *s, uint32_t qpn);
bool mlx5_qp_cq_busy(MLX5State *s, uint32_t cqn);
bool mlx5_qp_srq_busy(MLX5State *s, uint32_t srqn);
bool mlx5_qp_xrcd_busy(MLX5State *s, uint32_t xrcd);
void mlx5_qp_doorbell(MLX5State *s, unsigned int uar, uint32_t qpn);
void mlx5_qp_reset(MLX5State *s);

/* mlx5-gid.c: -1 for an opcode not its own */
int mlx5_gid_exec(MLX5State *s, MLX5Cmd *cmd);
const MLX5Gid *mlx5_gid_get(MLX5State *s, uint32_t index);
void mlx5_gid_reset(MLX5State *s);

/* mlx5-mcg.c: -1 for an opcode not its own */
int mlx5_mcg_exec(MLX5State *s, MLX5Cmd *cmd);
/* The QPs attached to group @gid, up to @max: how many. */
unsigned int mlx5_mcg_qps(MLX5State *s, const uint8_t *gid, uint32_t *qpns,
                          unsigned int max);
void mlx5_mcg_qp_gone(MLX5State *s, uint32_t qpn);
void mlx5_mcg_reset(MLX5State *s);

/* mlx5-roce.c: the RoCE front end */
void mlx5_roce_realize(MLX5State *s);
void mlx5_roce_unrealize(MLX5State *s);
void mlx5_roce_reset(MLX5State *s);
void mlx5_roce_qp_create(MLX5State *s, MLX5QP *qp, uint32_t qpn);
void mlx5_roce_qp_destroy(MLX5State *s, MLX5QP *qp);
void mlx5_roce_qp_modify(MLX5State *s, MLX5QP *qp, uint32_t qpn);
void mlx5_roce_qp_doorbell(MLX5State *s, MLX5QP *qp);
/* A RoCEv2 frame to one of our GIDs: taken (true), else the NIC's. */
bool mlx5_roce_rx(MLX5State *s, const uint8_t *f, size_t len,
                  const MLX5Pkt *p);

/* A UAR page the driver allocated (ALLOC_UAR). */
static inline bool mlx5_uar_valid(MLX5State *s, uint32_t uar)
{
    return uar >= MLX5_UAR_FIRST && uar < MLX5_UAR_FIRST + MLX5_UAR_COUNT &&
           test_bit(uar - MLX5_UAR_FIRST, s->uars);
}

/* A Q counter set the driver allocated (ALLOC_Q_COUNTER). */
static inline bool mlx5_q_counter_valid(MLX5State *s, uint32_t id)
{
    return id && id < MLX5_MAX_Q_COUNTERS && test_bit(id, s->q_counters);
}

/* mlx5-hca.c */
int mlx5_hca_exec(MLX5State *s, MLX5Cmd *cmd);
void mlx5_hca_reset(MLX5State *s);
const char *mlx5_cmd_name(uint16_t opcode);

/*
 * Syndromes of the errors the model reports.  Real firmware has its own
 * numbers, which the driver only prints; ours say which check failed.
 */
enum {
    MLX5_SYND_BAD_OPCODE        = 0x6d780001,
    MLX5_SYND_IN_SHORT          = 0x6d780002,
    MLX5_SYND_OUT_SHORT         = 0x6d780003,
    MLX5_SYND_STATE             = 0x6d780004,
    MLX5_SYND_BAD_OP_MOD        = 0x6d780005,
    MLX5_SYND_BAD_PARAM         = 0x6d780006,
    MLX5_SYND_BAD_REGISTER      = 0x6d780007,
    MLX5_SYND_NO_PAGES          = 0x6d780008,
    MLX5_SYND_NO_RESOURCE       = 0x6d780009,
    MLX5_SYND_IN_USE            = 0x6d78000a,   /* named by another object */
    MLX5_SYND_QP_STATE          = 0x6d78000b,   /* from another state */
    MLX5_SYND_NO_OBJECT         = 0x6d78000c,   /* the number names nothing */
    MLX5_SYND_MKEY_MODE         = 0x6d78000d,   /* not PA or MTT (KLM, KSM) */
    MLX5_SYND_MKEY_FREE         = 0x6d78000e,   /* a key for UMR to enable */
    MLX5_SYND_MKEY_FEATURE      = 0x6d78000f,   /* BSF, ATS, umem, pg, qpn */
    MLX5_SYND_MKEY_RANGE        = 0x6d780010,   /* wraps; page size */
    MLX5_SYND_MKEY_MTT_SIZE     = 0x6d780011,   /* entries vs octwords */
    MLX5_SYND_MKEY_MTT_ALIGN    = 0x6d780012,   /* an entry off its page */
};

/* A field of the input the model cannot take. */
static inline int mlx5_cmd_bad_param(MLX5Cmd *cmd)
{
    return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                         MLX5_SYND_BAD_PARAM);
}

/* CQE error syndromes (the PRM's) and opcodes */
enum {
    MLX5_CQE_SYND_LOCAL_LENGTH  = 0x01,
    MLX5_CQE_SYND_LOCAL_QP_OP   = 0x02,
    MLX5_CQE_SYND_LOCAL_PROT    = 0x04,
    MLX5_CQE_OP_REQ             = 0x0,
    MLX5_CQE_OP_RESP_SEND       = 0x2,
    MLX5_CQE_OP_REQ_ERR         = 0xd,
    MLX5_CQE_OP_RESP_ERR        = 0xe,
};

/* The offsets in a 64-byte CQE that the model writes */
#define MLX5_CQE_CHECK_SUM          20
#define MLX5_CQE_HDS_IP_EXT         28
#define MLX5_CQE_L4_L3_HDR_TYPE     29
#define MLX5_CQE_SRQN               32
#define MLX5_CQE_BYTE_CNT           44
#define MLX5_CQE_SYNDROME           55
#define MLX5_CQE_SOP_DROP_QPN       56
#define MLX5_CQE_WQE_COUNTER        60
#define MLX5_CQE_OP_OWN             63

#endif

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
 *
 * Everything the guest writes is untrusted: a bad command gets an error
 * status, never an access outside what the guest mapped.
 */

#ifndef HW_MLX5_H
#define HW_MLX5_H

#include "hw/pci/pci.h"
#include "qom/object.h"

#define TYPE_MLX5 "mlx5"
OBJECT_DECLARE_SIMPLE_TYPE(MLX5State, MLX5)

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

/* Health buffer fields, from its start. */
#define MLX5_HEALTH_FW_VER          0x30
#define MLX5_HEALTH_HW_ID           0x34

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
#define MLX5_CAP_GROUPS             1

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

    /* Function state */
    MLX5HcaState hca_state;
    uint16_t issi;
    uint8_t host_endianness;
    MLX5Cap caps[MLX5_CAP_GROUPS];
    DECLARE_BITMAP(uars, MLX5_UAR_COUNT);
    MLX5EQ eqs[MLX5_MAX_EQS];
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
    MLX5_CMD_STAT_BAD_INP_LEN_ERR   = 0x50,
    MLX5_CMD_STAT_BAD_OUTP_LEN_ERR  = 0x51,
};

/* mlx5-eq.c */
int mlx5_cmd_create_eq(MLX5State *s, MLX5Cmd *cmd);
int mlx5_cmd_destroy_eq(MLX5State *s, MLX5Cmd *cmd);
void mlx5_eq_doorbell(MLX5State *s, unsigned int uar, hwaddr off,
                      uint32_t val);
uint64_t mlx5_eq_cmd_listeners(MLX5State *s);
void mlx5_eq_cmd_done(MLX5State *s, uint64_t listeners, unsigned int slot);
void mlx5_eq_reset(MLX5State *s);

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
};

#endif

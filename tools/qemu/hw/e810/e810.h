/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model (Intel Ethernet E810-XXV, 8086:159b): the device's
 * state and the interfaces between its parts.
 *
 *   e810.c       PCI function, BAR0's register file, reset
 *   e810-irq.c   MSI-X, the interrupt dynamic control registers and the
 *                other-interrupt cause register (OICR)
 *   e810-aq.c    the admin queue and the mailbox: rings, descriptors,
 *                indirect buffers, dispatch, events
 *   e810-fw.c    firmware-level commands: versions, capabilities,
 *                resources, the MAC address
 *   e810-nvm.c   the NVM: its image, the commands that read it, its
 *                registers
 *   e810-ddp.c   the DDP package: download, info
 *   e810-sched.c the transmit scheduler tree
 *   e810-sw.c    switch, VSIs, switch rules, RSS; where a received frame
 *                goes
 *   e810-phy.c   PHY, link and MAC configuration, link events
 *   e810-lan.c   LAN queues: contexts, descriptors, transmit and receive
 *   e810-pe*.c   the RDMA protocol engine irdma drives (see e810-pe.h),
 *   e810-hmc.c   its host memory cache
 *
 * Registers are little-endian dwords.  Everything the guest writes is
 * untrusted: a bad command gets an error status, never an access outside
 * what the guest mapped.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#ifndef HW_E810_H
#define HW_E810_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qom/object.h"

#define TYPE_E810 "e810"
OBJECT_DECLARE_SIMPLE_TYPE(E810State, E810)

#define E810_VENDOR_ID          0x8086
#define E810_DEVICE_ID_XXV_SFP  0x159b

/*
 * BAR0 holds every register; irdma's user doorbell page sits 64 KiB
 * below its 8 MiB mark and the PE's registers above 0x500000.
 */
#define E810_BAR0_SIZE          (128 * MiB)
#define E810_MSIX_BAR           3
#define E810_MSIX_VECTORS       64

/* Queues of the one PF (RX and TX each), and VSIs. */
#define E810_NUM_QUEUES         64
#define E810_NUM_VSI            16

/*
 * Subsystem state, each private to its file (allocated by its realize
 * function, freed by its unrealize one).
 */
typedef struct E810CtlQ E810CtlQ;
typedef struct E810Fw E810Fw;
typedef struct E810Nvm E810Nvm;
typedef struct E810Ddp E810Ddp;
typedef struct E810Sched E810Sched;
typedef struct E810Sw E810Sw;
typedef struct E810Phy E810Phy;
typedef struct E810Lan E810Lan;
typedef struct E810Pe E810Pe;

struct E810State {
    PCIDevice parent_obj;

    MemoryRegion bar0;
    MemoryRegion msix_bar;

    NICConf conf;
    NICState *nic;

    /*
     * Registers no part claims: a write is kept and read back (the
     * driver's interrupt and filter configuration, statistics at 0).
     */
    GHashTable *regs;

    /* PFGEN_CTRL.PFSWR and friends: a PF reset in progress. */
    bool pf_reset;

    /* Interrupts (e810-irq.c): per vector, GLINT_DYN_CTL. */
    uint32_t dyn_ctl[E810_MSIX_VECTORS];
    bool irq_pending[E810_MSIX_VECTORS];
    uint32_t oicr;          /* PFINT_OICR: causes not yet read */
    uint32_t oicr_ena;      /* PFINT_OICR_ENA */
    uint32_t oicr_ctl;      /* PFINT_OICR_CTL */
    uint32_t fw_ctl;        /* PFINT_FW_CTL: admin queue events */
    uint32_t mbx_ctl;       /* PFINT_MBX_CTL */

    E810CtlQ *aq;           /* admin queue */
    E810CtlQ *mbx;          /* PF-VF mailbox (no VFs: stays idle) */
    E810Fw *fw;
    E810Nvm *nvm;
    E810Ddp *ddp;
    E810Sched *sched;
    E810Sw *sw;
    E810Phy *phy;
    E810Lan *lan;
    E810Pe *pe;             /* the RDMA protocol engine (e810-pe*.c) */
};

/* Register offsets used by more than one part. */
#define E810_PF_FUNC_RID        0x0009e880
#define E810_PFGEN_CTRL         0x00091000
#define E810_PFGEN_CTRL_PFSWR   BIT(0)
#define E810_GLGEN_RSTAT        0x000b8188
#define E810_GLNVM_ULD          0x000b6008

/* Interrupt registers (e810-irq.c). */
#define E810_GLINT_DYN_CTL(v)   (0x00160000 + (v) * 4)
#define E810_GLINT_DYN_CTL_INTENA       BIT(0)
#define E810_GLINT_DYN_CTL_CLEARPBA     BIT(1)
#define E810_GLINT_DYN_CTL_SWINT_TRIG   BIT(2)
#define E810_GLINT_DYN_CTL_WB_ON_ITR    BIT(30)
#define E810_GLINT_DYN_CTL_INTENA_MSK   BIT(31)
#define E810_PFINT_OICR         0x0016ca00
#define E810_PFINT_OICR_CTL     0x0016ca80
#define E810_PFINT_OICR_ENA     0x0016c900
#define E810_PFINT_FW_CTL       0x0016c800
#define E810_PFINT_MBX_CTL      0x0016b280
/* The *_CTL registers: MSI-X index, cause enable. */
#define E810_INT_CTL_MSIX_INDX(v)       ((v) & 0x7ff)
#define E810_INT_CTL_CAUSE_ENA          BIT(30)

/* OICR causes the model raises. */
#define E810_OICR_HMC_ERR       BIT(26)
#define E810_OICR_PE_CRITERR    BIT(28)
#define E810_OICR_SWINT         BIT(31)

/*
 * Admin queue commands (e810-aq.c).  A descriptor is 32 bytes, its
 * fields little-endian: flags, opcode, datalen, retval, two cookie
 * dwords, then 16 bytes of parameters (for an indirect command, the
 * last 8 of them are the buffer's address, high dword first).
 */
#define E810_AQ_DESC_SIZE       32
#define E810_AQ_FLAGS           0
#define E810_AQ_OPCODE          2
#define E810_AQ_DATALEN         4
#define E810_AQ_RETVAL          6
#define E810_AQ_COOKIE_H        8
#define E810_AQ_COOKIE_L        12
#define E810_AQ_PARAMS          16
#define E810_AQ_ADDR_H          24
#define E810_AQ_ADDR_L          28

#define E810_AQ_FLAG_DD         BIT(0)
#define E810_AQ_FLAG_CMP        BIT(1)
#define E810_AQ_FLAG_ERR        BIT(2)
#define E810_AQ_FLAG_LB         BIT(9)      /* buffer larger than 512 bytes */
#define E810_AQ_FLAG_RD         BIT(10)     /* buffer holds input */
#define E810_AQ_FLAG_BUF        BIT(12)     /* indirect */
#define E810_AQ_FLAG_SI         BIT(13)     /* no interrupt */

/* Completion codes (retval). */
#define E810_AQ_RC_OK           0
#define E810_AQ_RC_EPERM        1
#define E810_AQ_RC_ENOENT       2
#define E810_AQ_RC_EIO          5
#define E810_AQ_RC_ENOMEM       9
#define E810_AQ_RC_EBUSY        12
#define E810_AQ_RC_EEXIST       13
#define E810_AQ_RC_EINVAL       14
#define E810_AQ_RC_ENOSPC       16
#define E810_AQ_RC_ENOSYS       17
#define E810_AQ_RC_EMODE        21

/* The largest indirect buffer the model takes (the driver's is 4 KiB). */
#define E810_AQ_MAX_BUF         4096

/*
 * One command as a handler sees it.  desc is the descriptor, written
 * back to the ring after the handler (flags DD and CMP, and ERR when the
 * handler's status is not OK, are set by e810-aq.c; the handler may
 * change the parameters).  buf is the indirect buffer: buf_len bytes,
 * read from the guest when the descriptor says RD, zeroed otherwise.
 * A handler that answers data sets out_len (at most buf_len): that many
 * bytes are written back and become the descriptor's datalen.  Without
 * a buffer, buf is NULL and buf_len 0.
 */
typedef struct E810Cmd {
    uint8_t desc[E810_AQ_DESC_SIZE];
    uint16_t opcode;
    uint8_t *buf;
    uint16_t buf_len;
    uint16_t out_len;
} E810Cmd;

/* A handler returns an E810_AQ_RC_* status. */
typedef uint16_t (*E810AqHandler)(E810State *s, E810Cmd *c);

typedef struct E810AqOp {
    uint16_t opcode;
    const char *name;
    E810AqHandler fn;
} E810AqOp;

/* Each part's commands, ending with an entry whose fn is NULL. */
extern const E810AqOp e810_fw_ops[];
extern const E810AqOp e810_nvm_ops[];
extern const E810AqOp e810_ddp_ops[];
extern const E810AqOp e810_sched_ops[];
extern const E810AqOp e810_sw_ops[];
extern const E810AqOp e810_phy_ops[];
extern const E810AqOp e810_lan_ops[];

/* Little-endian fields of a descriptor or buffer, bounds left to the caller. */
static inline uint16_t e810_get16(const uint8_t *p, size_t off)
{
    return lduw_le_p(p + off);
}

static inline uint32_t e810_get32(const uint8_t *p, size_t off)
{
    return ldl_le_p(p + off);
}

static inline uint64_t e810_get64(const uint8_t *p, size_t off)
{
    return ldq_le_p(p + off);
}

static inline void e810_put16(uint8_t *p, size_t off, uint16_t v)
{
    stw_le_p(p + off, v);
}

static inline void e810_put32(uint8_t *p, size_t off, uint32_t v)
{
    stl_le_p(p + off, v);
}

static inline void e810_put64(uint8_t *p, size_t off, uint64_t v)
{
    stq_le_p(p + off, v);
}

/* A descriptor's parameter at byte OFF of the 16 (0-15). */
static inline uint8_t *e810_cmd_param(E810Cmd *c, size_t off)
{
    return c->desc + E810_AQ_PARAMS + off;
}

/*
 * e810-aq.c: an event on the admin receive queue (a link status change,
 * say): a descriptor with OPCODE, the 16 parameter bytes PARAMS (NULL:
 * zeros) and LEN bytes of DATA in the driver's next posted buffer.
 * Dropped, with the queue's overflow bit set, when no buffer is posted.
 */
void e810_aq_event(E810State *s, uint16_t opcode, const uint8_t *params,
                   const void *data, uint16_t len);

/* e810-irq.c: raise the interrupt of MSI-X vector VEC (queues, PE). */
void e810_irq_raise(E810State *s, unsigned int vec);
/* Raise an OICR cause (E810_OICR_*), when PFINT_OICR_ENA has it. */
void e810_oicr_raise(E810State *s, uint32_t cause);
/* The admin queue's event interrupt (PFINT_FW_CTL). */
void e810_irq_fw(E810State *s);
bool e810_irq_reg_read(E810State *s, hwaddr addr, uint32_t *val);
bool e810_irq_reg_write(E810State *s, hwaddr addr, uint32_t val);
void e810_irq_reset(E810State *s);

/*
 * Each part: realize (allocate its state), unrealize, reset (PF reset:
 * forget everything the driver made), and the registers it owns (true
 * when ADDR is one of them).
 */
void e810_aq_realize(E810State *s);
void e810_aq_unrealize(E810State *s);
void e810_aq_reset(E810State *s);
bool e810_aq_reg_read(E810State *s, hwaddr addr, uint32_t *val);
bool e810_aq_reg_write(E810State *s, hwaddr addr, uint32_t val);

void e810_fw_realize(E810State *s);
void e810_fw_unrealize(E810State *s);
void e810_fw_reset(E810State *s);

void e810_nvm_realize(E810State *s);
void e810_nvm_unrealize(E810State *s);
void e810_nvm_reset(E810State *s);
bool e810_nvm_reg_read(E810State *s, hwaddr addr, uint32_t *val);

void e810_ddp_realize(E810State *s);
void e810_ddp_unrealize(E810State *s);
void e810_ddp_reset(E810State *s);

void e810_sched_realize(E810State *s);
void e810_sched_unrealize(E810State *s);
void e810_sched_reset(E810State *s);
/*
 * A leaf (a LAN TX queue's or an RDMA queue set's node) under PARENT:
 * its TEID, or 0 when PARENT is no node that takes leaves or the tree is
 * full.  e810_sched_del_leaf() frees one; false when TEID is no leaf.
 */
uint32_t e810_sched_add_leaf(E810State *s, uint32_t parent);
bool e810_sched_del_leaf(E810State *s, uint32_t teid);
/*
 * An RDMA queue set's leaf, as "disable TX queues" (0x0C31) names it:
 * by its parent and its ID (bit 15 of the queue ID said "queue set").
 */
bool e810_sched_del_qset(E810State *s, uint32_t parent, uint16_t qset_id);

void e810_sw_realize(E810State *s);
void e810_sw_unrealize(E810State *s);
void e810_sw_reset(E810State *s);
/*
 * Where a received frame goes: the PF RX queue (absolute index) of the
 * VSI whose rules accept it, and its RSS hash; false: dropped.
 */
bool e810_sw_rx_dest(E810State *s, const uint8_t *frame, size_t len,
                     uint16_t *queue, uint32_t *hash);

void e810_phy_realize(E810State *s);
void e810_phy_unrealize(E810State *s);
void e810_phy_reset(E810State *s);
/* The link as the PHY reports it (the netdev's peer up, the PHY on). */
bool e810_phy_link_up(E810State *s);
/* The backend's link changed (NetClientInfo.link_status_changed). */
void e810_phy_link_changed(E810State *s);

void e810_lan_realize(E810State *s);
void e810_lan_unrealize(E810State *s);
void e810_lan_reset(E810State *s);
bool e810_lan_reg_read(E810State *s, hwaddr addr, uint32_t *val);
bool e810_lan_reg_write(E810State *s, hwaddr addr, uint32_t val);
/* The netdev's receive path. */
bool e810_lan_can_receive(E810State *s);
ssize_t e810_lan_receive(E810State *s, const uint8_t *buf, size_t len);

/*
 * The RDMA protocol engine (e810-pe.c and the files e810-pe.h lists):
 * its registers, the control QP, HMC, queues and QP contexts.
 */
void e810_pe_realize(E810State *s);
void e810_pe_unrealize(E810State *s);
void e810_pe_reset(E810State *s);
bool e810_pe_reg_read(E810State *s, hwaddr addr, uint32_t *val);
bool e810_pe_reg_write(E810State *s, hwaddr addr, uint32_t val);
/*
 * e810-roce.c: a frame from the wire for the PE (RoCEv2 to the port's
 * MAC address), taken; false: the LAN's.
 */
bool e810_roce_rx(E810State *s, const uint8_t *buf, size_t len);

/* DMA to and from guest memory (false: the access failed). */
bool e810_dma_read(E810State *s, uint64_t addr, void *buf, size_t len);
bool e810_dma_write(E810State *s, uint64_t addr, const void *buf, size_t len);

/* The port's MAC address (from the netdev's properties). */
void e810_mac_addr(E810State *s, uint8_t mac[6]);

#endif /* HW_E810_H */

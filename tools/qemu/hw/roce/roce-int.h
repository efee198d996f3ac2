/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The RoCEv2 engine's insides, shared by its files:
 *
 *   roce-wire.c  opcodes, headers, ICRC: building and parsing frames
 *   roce-qp.c    QP life (modify, flush), receive demultiplexing, timers
 *   roce-req.c   requester and completer
 *   roce-resp.c  responder
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#ifndef HW_ROCE_INT_H
#define HW_ROCE_INT_H

#include "roce.h"

#define ROCE_MIN(a, b)      ((a) < (b) ? (a) : (b))
#define ROCE_PSN_MASK       0xffffffu
#define ROCE_MSN_MASK       0xffffffu

#define ROCE_BTH_LEN        12
#define ROCE_RETH_LEN       16
#define ROCE_AETH_LEN       4
#define ROCE_ATMETH_LEN     28
#define ROCE_ATMACK_LEN     8
#define ROCE_IMM_LEN        4
#define ROCE_IETH_LEN       4
#define ROCE_DETH_LEN       8
#define ROCE_XRCETH_LEN     4
#define ROCE_ICRC_LEN       4

/* BTH opcodes (IBTA vol. 1 9.2): transport in the top three bits. */
#define ROCE_OP_RC          0x00
#define ROCE_OP_UC          0x20
#define ROCE_OP_UD          0x60
#define ROCE_OP_XRC         0xa0
#define ROCE_OP_SEND_FIRST          0x00
#define ROCE_OP_SEND_MIDDLE         0x01
#define ROCE_OP_SEND_LAST           0x02
#define ROCE_OP_SEND_LAST_IMM       0x03
#define ROCE_OP_SEND_ONLY           0x04
#define ROCE_OP_SEND_ONLY_IMM       0x05
#define ROCE_OP_WRITE_FIRST         0x06
#define ROCE_OP_WRITE_MIDDLE        0x07
#define ROCE_OP_WRITE_LAST          0x08
#define ROCE_OP_WRITE_LAST_IMM      0x09
#define ROCE_OP_WRITE_ONLY          0x0a
#define ROCE_OP_WRITE_ONLY_IMM      0x0b
#define ROCE_OP_READ_REQUEST        0x0c
#define ROCE_OP_READ_RESP_FIRST     0x0d
#define ROCE_OP_READ_RESP_MIDDLE    0x0e
#define ROCE_OP_READ_RESP_LAST      0x0f
#define ROCE_OP_READ_RESP_ONLY      0x10
#define ROCE_OP_ACK                 0x11
#define ROCE_OP_ATOMIC_ACK          0x12
#define ROCE_OP_CMP_SWP             0x13
#define ROCE_OP_FETCH_ADD           0x14
#define ROCE_OP_SEND_LAST_INV       0x16
#define ROCE_OP_SEND_ONLY_INV       0x17

/* What an opcode is and carries (roce_opcode_flags()). */
enum {
    ROCE_F_VALID    = 1u << 0,
    ROCE_F_FIRST    = 1u << 1,
    ROCE_F_MIDDLE   = 1u << 2,
    ROCE_F_LAST     = 1u << 3,
    ROCE_F_PAYLOAD  = 1u << 4,
    ROCE_F_SEND     = 1u << 5,
    ROCE_F_WRITE    = 1u << 6,
    ROCE_F_READ     = 1u << 7,      /* READ request */
    ROCE_F_ATOMIC   = 1u << 8,      /* CMP_SWP, FETCH_ADD */
    ROCE_F_RRESP    = 1u << 9,      /* READ response */
    ROCE_F_ACK      = 1u << 10,
    ROCE_F_ATMACK   = 1u << 11,
    ROCE_F_RETH     = 1u << 12,
    ROCE_F_AETH     = 1u << 13,
    ROCE_F_ATMETH   = 1u << 14,
    ROCE_F_IMM      = 1u << 15,
    ROCE_F_IETH     = 1u << 16,
    ROCE_F_DETH     = 1u << 17,
    ROCE_F_XRCETH   = 1u << 18,     /* XRC requests */
};
#define ROCE_F_ONLY     (ROCE_F_FIRST | ROCE_F_LAST)
#define ROCE_F_RESPONSE (ROCE_F_RRESP | ROCE_F_ACK | ROCE_F_ATMACK)

/* AETH syndromes (IBTA vol. 1 9.7.5.1.1). */
#define ROCE_AETH_TYPE_MASK     0xe0
#define ROCE_AETH_ACK           0x00
#define ROCE_AETH_RNR_NAK       0x20
#define ROCE_AETH_NAK           0x60
#define ROCE_AETH_ACK_UNLIMITED 0x1f
#define ROCE_NAK_PSN_SEQ        0
#define ROCE_NAK_INVALID_REQ    1
#define ROCE_NAK_REM_ACCESS     2
#define ROCE_NAK_REM_OP         3
#define ROCE_NAK_INV_RD_REQ     4

/* RoceReqSlot.state */
enum {
    ROCE_SLOT_SENDING,          /* some packets may remain */
    ROCE_SLOT_PENDING,          /* all sent, waiting for the answer */
    ROCE_SLOT_DONE,             /* status says how */
};

/* A packet: built by the engine (fields to write) or parsed from a frame. */
typedef struct RocePkt {
    uint8_t opcode;
    uint32_t flags;             /* ROCE_F_* of the opcode */
    bool se;
    bool ackreq;
    uint8_t pad;
    uint16_t pkey;
    uint32_t dqpn;
    uint32_t psn;
    /* RETH */
    uint64_t va;
    uint32_t rkey;
    uint32_t dma_len;
    /* AETH */
    uint8_t syn;
    uint32_t msn;
    /* AtomicETH (va, rkey above) and AtomicAckETH */
    uint64_t swap_add;
    uint64_t compare;
    uint64_t orig;
    uint32_t imm;
    uint32_t ieth_rkey;
    /* DETH */
    uint32_t qkey;
    uint32_t sqpn;
    /* XRCETH */
    uint32_t xrc_srqn;
    /* Payload, between the headers and the pad. */
    const uint8_t *payload;
    uint32_t paylen;
    /* Parsed frames only: where they came from. */
    bool ipv6;
    bool vlan_valid;
    uint16_t vlan;
    uint8_t smac[6];
    uint8_t sgid[16];
    uint8_t dgid[16];           /* IPv4: ::ffff:a.b.c.d */
    const uint8_t *ip;          /* the IP header, for the GRH */
    size_t iplen;               /* 20 or 40 */
} RocePkt;

static inline uint16_t roce_get_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t roce_get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t roce_get_be64(const uint8_t *p)
{
    return (uint64_t)roce_get_be32(p) << 32 | roce_get_be32(p + 4);
}

static inline void roce_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static inline void roce_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

static inline void roce_put_be64(uint8_t *p, uint64_t v)
{
    roce_put_be32(p, v >> 32);
    roce_put_be32(p + 4, v);
}

/* PSNs are 24 bits: only the sign of roce_psn_cmp() means anything. */
static inline int32_t roce_psn_cmp(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << 8);
}

static inline uint32_t roce_psn_dist(uint32_t a, uint32_t b)
{
    return (a - b) & ROCE_PSN_MASK;
}

static inline uint32_t roce_psn_add(uint32_t a, uint32_t n)
{
    return (a + n) & ROCE_PSN_MASK;
}

/* The transport bits of an RC QP's opcodes: RC, or XRC. */
static inline uint8_t roce_rc_transport(const RoceQP *qp)
{
    return qp->attr.xrc ? ROCE_OP_XRC : ROCE_OP_RC;
}

static inline bool roce_qp_is_ud(const RoceQP *qp)
{
    return qp->attr.type == ROCE_QPT_UD || qp->attr.type == ROCE_QPT_GSI;
}

/* Packets a message of @len bytes takes at @mtu: at least one. */
static inline uint32_t roce_npkts(uint32_t len, uint32_t mtu)
{
    return len ? (uint32_t)(((uint64_t)len + mtu - 1) / mtu) : 1;
}

/* roce-wire.c */
uint32_t roce_opcode_flags(uint8_t opcode);
uint32_t roce_hdr_len(uint32_t flags);
/*
 * Start a frame to @av in the engine's buffer with @pkt's headers and
 * room for @paylen payload bytes: returns where the payload goes.
 * roce_frame_send() then pads, computes the ICRC and transmits.
 */
uint8_t *roce_frame_begin(RoceQP *qp, const RoceAV *av, RocePkt *pkt,
                          uint32_t paylen);
void roce_frame_send(RoceQP *qp);
/* 0 and *pkt, or -1: not a RoCEv2 packet this engine accepts. */
int roce_parse(RoceEngine *e, const uint8_t *frame, size_t len,
               RocePkt *pkt);

/* roce-qp.c */
void roce_qp_set_error(RoceQP *qp);
void roce_qp_update_timer(RoceQP *qp);
int64_t roce_now(RoceQP *qp);
void roce_complete(RoceQP *qp, const RoceCompletion *c);
/*
 * Move @len bytes between @buf and the scatter/gather list @sge, from
 * byte @off of the list on: 0, -1 when ops->dma refused, -2 when the
 * list is shorter than @off + @len.
 */
int roce_sge_copy(RoceQP *qp, const RoceSGE *sge, uint32_t num,
                  uint32_t off, uint8_t *buf, uint32_t len, RoceMemOp op);
uint64_t roce_sge_len(const RoceSGE *sge, uint32_t num);

/* roce-req.c */
void roce_req_reset(RoceQP *qp);
void roce_req_run(RoceQP *qp);
void roce_req_rx(RoceQP *qp, const RocePkt *pkt);
void roce_req_timer(RoceQP *qp, int64_t now);
void roce_req_flush(RoceQP *qp);

/* roce-resp.c */
void roce_resp_reset(RoceQP *qp);
void roce_resp_rx(RoceQP *qp, const RocePkt *pkt);
bool roce_resp_run(RoceQP *qp, unsigned int budget);
void roce_resp_flush(RoceQP *qp);

#endif

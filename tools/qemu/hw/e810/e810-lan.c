/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model: the LAN queues of the PF, receive and transmit.
 *
 * Receive queues are set up through registers: the queue context in
 * eight QRX_CONTEXT dwords (ring base in 128-byte units, length, data
 * buffer size in 128-byte units, descriptor size, CRC strip, largest
 * frame), QRXFLXP_CNTXT (the descriptor profile: ice asks for the flex
 * NIC one, RXDID 2), QRX_CTRL (QENA_STAT follows QENA_REQ at once; the
 * context is taken at that moment) and QRX_TAIL, the driver's tail.  A
 * received frame goes to the queue the switch picks (e810-sw.c); it
 * fills one or more posted buffers, each descriptor written back in the
 * 32-byte flex NIC layout, and the queue's interrupt (QINT_RQCTL) fires.
 *
 * Transmit queues are created by the admin command "add TX LAN queues"
 * (0x0C30), whose buffer carries each queue's packed context and whose
 * leaf in the scheduler tree is made here (e810_sched_add_leaf()); they
 * go away with "disable TX queues" (0x0C31).  The doorbell QTX_COMM_DBELL
 * takes the new tail: data descriptors (and context descriptors for TSO)
 * are walked from the head, each packet gathered into a host buffer, its
 * checksums filled in or cut into TSO segments, and sent to the wire
 * only.  A descriptor that asked for a report (RS) gets its type set to
 * "done", and the queue's interrupt (QINT_TQCTL) fires.
 *
 * Everything here is bounded by the ring lengths the guest programmed
 * (at most 8191), the model's E810_NUM_QUEUES and a largest frame; a
 * guest that programs garbage loses frames, nothing else.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "qemu/crc32c.h"
#include "net/net.h"
#include "net/eth.h"
#include "net/checksum.h"
#include "e810.h"

/* Register arrays: the hardware has 2048 entries, the model 64 queues. */
#define E810_LAN_HW_QUEUES          2048
#define E810_QRX_CONTEXT_BASE       0x00280000  /* (i, q): i * 0x2000 */
#define E810_QRX_CONTEXT_DWORDS     8
#define E810_QRX_CTRL_BASE          0x00120000
#define E810_QRX_CTRL_QENA_REQ      BIT(0)
#define E810_QRX_CTRL_QENA_STAT     BIT(2)
#define E810_QRX_TAIL_BASE          0x00290000
#define E810_QRX_TAIL_MASK          0x1fff
#define E810_QRXFLXP_CNTXT_BASE     0x00480000
#define E810_QRXFLXP_RXDID(v)       ((v) & 0x3f)
#define E810_QINT_RQCTL_BASE        0x00150000
#define E810_QINT_TQCTL_BASE        0x00140000
#define E810_QTX_COMM_DBELL_BASE    0x002c0000
#define E810_QTX_COMM_HEAD_BASE     0x000e0000

/* A field of a packed little-endian queue context: first bit, width. */
typedef struct E810CtxField {
    uint16_t lsb;
    uint16_t width;
} E810CtxField;

/* The receive queue context: 32 bytes in QRX_CONTEXT(0..7). */
static const E810CtxField rxctx_head = { 0, 13 };
static const E810CtxField rxctx_base = { 32, 57 };      /* 128-byte units */
static const E810CtxField rxctx_qlen = { 89, 13 };
static const E810CtxField rxctx_dbuf = { 102, 7 };      /* 128-byte units */
static const E810CtxField rxctx_dtype = { 114, 2 };     /* 0: no split */
static const E810CtxField rxctx_dsize = { 116, 1 };     /* 1: 32 bytes */
static const E810CtxField rxctx_crcstrip = { 117, 1 };
static const E810CtxField rxctx_rxmax = { 174, 14 };

/* The transmit queue context: 22 packed bytes in the 0x0C30 buffer. */
static const E810CtxField txctx_base = { 0, 57 };       /* 128-byte units */
static const E810CtxField txctx_qlen = { 135, 13 };
#define E810_TXCTX_SIZE             22

/*
 * 0x0C30's buffer: per group the parent TEID and a count, per queue its
 * id, the TEID we answer, the context and a scheduler element.
 */
#define E810_AQC_ADD_TXQS           0x0c30
#define E810_AQC_DIS_TXQS           0x0c31
#define E810_ADD_TXQ_GRP_HDR        8
#define E810_ADD_TXQ_GRP_PARENT     0
#define E810_ADD_TXQ_GRP_NUM        4
#define E810_ADD_TXQ_SIZE           48
#define E810_ADD_TXQ_ID             0
#define E810_ADD_TXQ_TEID           4
#define E810_ADD_TXQ_CTX            8
/*
 * 0x0C31's buffer: parent TEID, count, then 16-bit queue ids (bit 15:
 * an RDMA queue set), padded to a dword.
 */
#define E810_DIS_TXQ_HDR            6
#define E810_DIS_TXQ_NUM            4
#define E810_DIS_TXQ_RDMA_QSET      BIT(15)
#define E810_DIS_TXQ_ID_MASK        0x7fff

/* Receive descriptors: read format (buffer address) and flex write-back. */
#define E810_RXD_PKT_ADDR           0
#define E810_RXD_WB_RXDID           0
#define E810_RXD_WB_PTYPE           2
#define E810_RXD_WB_PKT_LEN         4
#define E810_RXD_WB_STATUS0         8
#define E810_RXD_WB_RSS_HASH        12
#define E810_RXD_ST0_DD             BIT(0)
#define E810_RXD_ST0_EOF            BIT(1)
#define E810_RXD_ST0_L3L4P          BIT(3)
#define E810_RXD_ST0_XSUM_IPE       BIT(4)
#define E810_RXD_ST0_XSUM_L4E       BIT(5)
#define E810_RXD_ST0_RXE            BIT(10)
#define E810_RXD_ST0_RSS_VALID      BIT(12)
#define E810_RXD_MAX_SIZE           32
#define E810_RXDID_FLEX_NIC         2

/* Packet types of the flex descriptor (the DDP's default table). */
#define E810_PTYPE_L2               1
#define E810_PTYPE_IPV4_FRAG        22
#define E810_PTYPE_IPV4             23
#define E810_PTYPE_IPV4_UDP         24
#define E810_PTYPE_IPV4_TCP         26
#define E810_PTYPE_IPV4_SCTP        27
#define E810_PTYPE_IPV4_ICMP        28
#define E810_PTYPE_IPV6_FRAG        88
#define E810_PTYPE_IPV6             89
#define E810_PTYPE_IPV6_UDP         90
#define E810_PTYPE_IPV6_TCP         92
#define E810_PTYPE_IPV6_SCTP        93
#define E810_PTYPE_IPV6_ICMP        94

/* Transmit descriptors: 16 bytes, the type in qword 1's low nibble. */
#define E810_TXD_SIZE               16
#define E810_TXD_DTYPE(qw1)         ((qw1) & 0xf)
#define E810_TXD_DTYPE_DATA         0x0
#define E810_TXD_DTYPE_CTX          0x1
#define E810_TXD_DTYPE_DONE         0xf
#define E810_TXD_CMD(qw1)           (((qw1) >> 4) & 0xfff)
#define E810_TXD_OFFSET(qw1)        (((qw1) >> 16) & 0x3ffff)
#define E810_TXD_BUF_SIZE(qw1)      (((qw1) >> 34) & 0x3fff)
#define E810_TXD_L2TAG1(qw1)        ((uint16_t)((qw1) >> 48))
#define E810_TXD_CMD_EOP            BIT(0)
#define E810_TXD_CMD_RS             BIT(1)
#define E810_TXD_CMD_IL2TAG1        BIT(3)
#define E810_TXD_CMD_IIPT(cmd)      (((cmd) >> 5) & 3)
#define E810_TXD_CMD_L4T(cmd)       (((cmd) >> 8) & 3)
#define E810_TXD_IIPT_IPV6          1
#define E810_TXD_IIPT_IPV4          2
#define E810_TXD_IIPT_IPV4_CSUM     3
#define E810_TXD_L4T_TCP            1
#define E810_TXD_L4T_SCTP           2
#define E810_TXD_L4T_UDP            3
#define E810_TXD_MACLEN(off)        (((off) & 0x7f) * 2)
#define E810_TXD_IPLEN(off)         ((((off) >> 7) & 0x7f) * 4)
#define E810_TXD_L4LEN(off)         ((((off) >> 14) & 0xf) * 4)
/* Context descriptor: tunnelling in qword 0, TSO in qword 1. */
#define E810_TXCD_CMD(qw1)          (((qw1) >> 4) & 0x7f)
#define E810_TXCD_CMD_TSO           BIT(0)
#define E810_TXCD_CMD_IL2TAG2       BIT(2)
#define E810_TXCD_TSO_LEN(qw1)      (((qw1) >> 30) & 0x3ffff)
#define E810_TXCD_MSS(qw1)          (((qw1) >> 50) & 0x3fff)
#define E810_TXCD_TUNNEL(qw0)       ((uint32_t)(qw0))
#define E810_TXCD_MIN_MSS           64

/* The largest frame the MAC takes (ICE_AQ_SET_MAC_FRAME_SIZE_MAX). */
#define E810_LAN_MAX_FRAME          9728
/* A frame spans at most this many receive buffers (ice: rxmax <= 5 x). */
#define E810_RX_MAX_CHAIN           5
/* A TSO packet: 18 bits of payload and the headers in front. */
#define E810_TX_MAX_PACKET          (256 * KiB + 512)
#define E810_TX_MAX_HDR             256

#define VLAN_TPID_8021Q             0x8100

typedef struct E810LanRxq {
    uint32_t ctx[E810_QRX_CONTEXT_DWORDS];
    uint32_t ctrl;              /* QRX_CTRL as the driver reads it */
    uint32_t flxp;              /* QRXFLXP_CNTXT */
    uint32_t tail;              /* QRX_TAIL */
    uint32_t irq_ctl;           /* QINT_RQCTL */
    /* Taken from the context when the queue is enabled. */
    bool enabled;
    uint64_t base;
    uint32_t len;
    uint32_t head;
    uint32_t buf_size;
    uint32_t desc_size;
    uint32_t max_frame;
    bool crc_strip;
} E810LanRxq;

typedef struct E810LanTxq {
    bool enabled;               /* added by 0x0C30 */
    uint32_t teid;              /* its scheduler leaf */
    uint64_t base;
    uint32_t len;
    uint32_t head;
    uint32_t tail;              /* the last doorbell */
    uint32_t irq_ctl;           /* QINT_TQCTL */
} E810LanTxq;

struct E810Lan {
    E810LanRxq rxq[E810_NUM_QUEUES];
    E810LanTxq txq[E810_NUM_QUEUES];
    uint8_t *tx_pkt;            /* one packet, gathered */
    uint8_t *tx_seg;            /* one TSO segment */
    uint8_t *rx_fcs;            /* a frame with its FCS, no CRC strip */
};

/* What a packet's descriptors asked for. */
typedef struct E810TxPkt {
    size_t len;
    bool bad;                   /* dropped: too long or unreadable */
    bool have_data;
    uint32_t cmd;               /* the data descriptors' command */
    uint32_t offset;            /* MACLEN, IPLEN, L4LEN */
    uint16_t l2tag1;
    bool have_ctx;
    uint64_t ctx_qw0;
    uint64_t ctx_qw1;
} E810TxPkt;

/* A received frame's layers, as the parser saw them. */
typedef struct E810RxInfo {
    uint16_t ptype;
    uint16_t status0;
} E810RxInfo;

/* Field F of the packed context CTX (CTX_LEN bytes). */
static uint64_t lan_ctx_field(const uint8_t *ctx, size_t ctx_len,
                              E810CtxField f)
{
    uint64_t v = 0;
    unsigned int i;

    for (i = 0; i < f.width; i++) {
        unsigned int bit = f.lsb + i;

        if (bit / 8 >= ctx_len) {
            break;
        }
        if (ctx[bit / 8] & (1u << (bit % 8))) {
            v |= 1ull << i;
        }
    }
    return v;
}

/* Queue number Q of a register array at BASE (4 bytes an entry). */
static bool lan_reg_index(hwaddr addr, hwaddr base, unsigned int *q)
{
    if (addr < base || addr >= base + E810_LAN_HW_QUEUES * 4 || addr & 3) {
        return false;
    }
    *q = (addr - base) / 4;
    return true;
}

static void lan_queue_irq(E810State *s, uint32_t irq_ctl)
{
    unsigned int vec = E810_INT_CTL_MSIX_INDX(irq_ctl);

    if (!(irq_ctl & E810_INT_CTL_CAUSE_ENA)) {
        return;
    }
    if (vec >= E810_MSIX_VECTORS) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: queue interrupt on vector %u "
                      "past the %u MSI-X vectors\n", vec, E810_MSIX_VECTORS);
        return;
    }
    e810_irq_raise(s, vec);
}

static void lan_flush_rx(E810State *s)
{
    if (s->nic) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
}

/* ---- Receive ---- */

/* Descriptors the driver has posted and the device not yet used. */
static uint32_t rxq_free(const E810LanRxq *q)
{
    if (!q->enabled || q->tail >= q->len) {
        return 0;
    }
    return (q->tail + q->len - q->head) % q->len;
}

/*
 * QENA_REQ set: take the context.  A context the model cannot use
 * leaves the queue enabled as the driver sees it but dropping frames,
 * which is what a real queue with a broken context does.
 */
static void rxq_enable(E810LanRxq *q, unsigned int qi)
{
    uint8_t ctx[E810_QRX_CONTEXT_DWORDS * 4];
    size_t n = sizeof(ctx);
    int i;

    for (i = 0; i < E810_QRX_CONTEXT_DWORDS; i++) {
        stl_le_p(ctx + i * 4, q->ctx[i]);
    }
    q->base = lan_ctx_field(ctx, n, rxctx_base) << 7;
    q->len = lan_ctx_field(ctx, n, rxctx_qlen);
    q->head = lan_ctx_field(ctx, n, rxctx_head);
    q->buf_size = lan_ctx_field(ctx, n, rxctx_dbuf) << 7;
    q->desc_size = lan_ctx_field(ctx, n, rxctx_dsize) ? 32 : 16;
    q->crc_strip = lan_ctx_field(ctx, n, rxctx_crcstrip);
    q->max_frame = lan_ctx_field(ctx, n, rxctx_rxmax);
    q->enabled = true;

    if (q->len < 2 || q->head >= q->len || !q->buf_size || !q->max_frame) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: RX queue %u enabled with a "
                      "bad context (length %u, head %u, buffer %u, max "
                      "frame %u): it drops frames\n", qi, q->len, q->head,
                      q->buf_size, q->max_frame);
        q->len = 0;
    }
    if (lan_ctx_field(ctx, n, rxctx_dtype)) {
        qemu_log_mask(LOG_UNIMP, "e810: RX queue %u: header split not "
                      "modelled, frames go to the data buffers\n", qi);
    }
    if (E810_QRXFLXP_RXDID(q->flxp) != E810_RXDID_FLEX_NIC) {
        qemu_log_mask(LOG_UNIMP, "e810: RX queue %u: descriptor profile %u "
                      "not modelled, writing the flex NIC layout\n", qi,
                      E810_QRXFLXP_RXDID(q->flxp));
    }
}

static void rxq_write_ctrl(E810State *s, E810LanRxq *q, unsigned int qi,
                           uint32_t val)
{
    bool ena = val & E810_QRX_CTRL_QENA_REQ;

    if (ena && !q->enabled) {
        rxq_enable(q, qi);
    } else if (!ena) {
        q->enabled = false;
    }
    q->ctrl = val & ~E810_QRX_CTRL_QENA_STAT;
    if (ena) {
        q->ctrl |= E810_QRX_CTRL_QENA_STAT;
        lan_flush_rx(s);
    }
}

static uint32_t sum16(const uint8_t *p, size_t len)
{
    return net_checksum_add(len, (uint8_t *)p);
}

/* True when the TCP/UDP checksum of L4 (L4LEN bytes) is right. */
static bool rx_l4_csum_ok(const uint8_t *addrs, size_t addr_len,
                          uint8_t proto, const uint8_t *l4, size_t l4len)
{
    uint32_t sum = sum16(addrs, addr_len) + proto + l4len;

    sum += sum16(l4, l4len);
    return net_checksum_finish(sum) == 0;
}

static bool rx_sctp_csum_ok(const uint8_t *l4, size_t l4len)
{
    static const uint8_t zero[4];
    uint32_t crc;

    if (l4len < 12) {
        return false;
    }
    crc = crc32c(0xffffffff, l4, 8);
    crc = crc32c(~crc, zero, 4);
    crc = crc32c(~crc, l4 + 12, l4len - 12);
    return crc == ldl_le_p(l4 + 8);
}

/* The L4 part: packet type and checksum of TCP, UDP, SCTP, ICMP. */
static void rx_parse_l4(E810RxInfo *ri, const uint8_t *addrs,
                        size_t addr_len, uint8_t proto, const uint8_t *l4,
                        size_t l4len, bool v6)
{
    bool ok = true;

    switch (proto) {
    case IP_PROTO_TCP:
        ri->ptype = v6 ? E810_PTYPE_IPV6_TCP : E810_PTYPE_IPV4_TCP;
        ok = l4len >= 20 && rx_l4_csum_ok(addrs, addr_len, proto, l4, l4len);
        break;
    case IP_PROTO_UDP:
        ri->ptype = v6 ? E810_PTYPE_IPV6_UDP : E810_PTYPE_IPV4_UDP;
        ok = l4len >= 8 &&
             ((!v6 && !lduw_be_p(l4 + 6)) ||
              rx_l4_csum_ok(addrs, addr_len, proto, l4, l4len));
        break;
    case 132:   /* SCTP */
        ri->ptype = v6 ? E810_PTYPE_IPV6_SCTP : E810_PTYPE_IPV4_SCTP;
        ok = rx_sctp_csum_ok(l4, l4len);
        break;
    case 1:     /* ICMP */
    case 58:    /* ICMPv6 */
        ri->ptype = v6 ? E810_PTYPE_IPV6_ICMP : E810_PTYPE_IPV4_ICMP;
        break;
    default:
        break;
    }
    if (!ok) {
        ri->status0 |= E810_RXD_ST0_XSUM_L4E;
    }
}

static void rx_parse_ipv4(E810RxInfo *ri, const uint8_t *ip, size_t len)
{
    size_t ihl, tot;
    uint16_t frag;

    if (len < 20 || (ip[0] >> 4) != 4) {
        return;
    }
    ihl = (ip[0] & 0xf) * 4;
    tot = lduw_be_p(ip + 2);
    if (ihl < 20 || ihl > tot || tot > len) {
        return;
    }
    ri->ptype = E810_PTYPE_IPV4;
    ri->status0 |= E810_RXD_ST0_L3L4P;
    if (net_raw_checksum((uint8_t *)ip, ihl)) {
        ri->status0 |= E810_RXD_ST0_XSUM_IPE;
    }
    frag = lduw_be_p(ip + 6);
    if (frag & 0x3fff) {            /* MF or an offset */
        ri->ptype = E810_PTYPE_IPV4_FRAG;
        return;
    }
    rx_parse_l4(ri, ip + 12, 8, ip[9], ip + ihl, tot - ihl, false);
}

static void rx_parse_ipv6(E810RxInfo *ri, const uint8_t *ip, size_t len)
{
    size_t plen;

    if (len < 40 || (ip[0] >> 4) != 6) {
        return;
    }
    plen = lduw_be_p(ip + 4);
    if (plen > len - 40) {
        return;
    }
    ri->ptype = E810_PTYPE_IPV6;
    ri->status0 |= E810_RXD_ST0_L3L4P;
    if (ip[6] == 44) {              /* fragment header */
        ri->ptype = E810_PTYPE_IPV6_FRAG;
        return;
    }
    /* Extension headers are not walked: the frame stays "IPv6, other". */
    rx_parse_l4(ri, ip + 8, 32, ip[6], ip + 40, plen, true);
}

/* Packet type, L3/L4 checksum status: what ice's RX path reads. */
static void rx_parse(E810RxInfo *ri, const uint8_t *f, size_t len)
{
    size_t off = 12;
    uint16_t type = 0;
    int tags;

    ri->ptype = E810_PTYPE_L2;
    ri->status0 = 0;
    for (tags = 0; tags < 3; tags++) {
        if (off + 2 > len) {
            return;
        }
        type = lduw_be_p(f + off);
        if (type != 0x8100 && type != 0x88a8 && type != 0x9100) {
            break;
        }
        off += 4;
    }
    off += 2;
    if (type == ETH_P_IP) {
        rx_parse_ipv4(ri, f + off, len - off);
    } else if (type == ETH_P_IPV6) {
        rx_parse_ipv6(ri, f + off, len - off);
    }
}

/* Write back descriptor IDX of Q: one buffer of LEN bytes of a frame. */
static bool rx_write_desc(E810State *s, E810LanRxq *q, uint32_t idx,
                          const E810RxInfo *ri, uint32_t hash, size_t len,
                          bool eof)
{
    uint8_t d[E810_RXD_MAX_SIZE] = { 0 };
    uint16_t st = ri->status0 | E810_RXD_ST0_DD | E810_RXD_ST0_RSS_VALID;

    if (eof) {
        st |= E810_RXD_ST0_EOF;
    }
    d[E810_RXD_WB_RXDID] = E810_QRXFLXP_RXDID(q->flxp);
    e810_put16(d, E810_RXD_WB_PTYPE, ri->ptype & 0x3ff);
    e810_put16(d, E810_RXD_WB_PKT_LEN, len & 0x3fff);
    e810_put16(d, E810_RXD_WB_STATUS0, st);
    e810_put32(d, E810_RXD_WB_RSS_HASH, hash);
    return e810_dma_write(s, q->base + (uint64_t)idx * q->desc_size, d,
                          q->desc_size);
}

/* Place FRAME in the posted buffers of Q; false: not enough of them. */
static bool rx_deliver(E810State *s, E810LanRxq *q, const uint8_t *frame,
                       size_t len, uint32_t hash)
{
    uint32_t nbufs = DIV_ROUND_UP(len, q->buf_size);
    E810RxInfo ri;
    size_t off = 0;
    uint32_t i;

    if (rxq_free(q) < nbufs) {
        return false;
    }
    rx_parse(&ri, frame, len);
    for (i = 0; i < nbufs; i++) {
        size_t n = MIN(q->buf_size, len - off);
        uint8_t rd[8] = { 0 };
        uint64_t dbuf;

        if (!e810_dma_read(s, q->base + (uint64_t)q->head * q->desc_size,
                           rd, sizeof(rd))) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: RX descriptor %u not "
                          "readable\n", q->head);
            ri.status0 |= E810_RXD_ST0_RXE;
        }
        dbuf = ldq_le_p(rd);
        if (!(ri.status0 & E810_RXD_ST0_RXE) &&
            !e810_dma_write(s, dbuf, frame + off, n)) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: RX buffer 0x%" PRIx64
                          " not writable\n", dbuf);
            /* The driver drops a frame whose last descriptor has RXE. */
            ri.status0 |= E810_RXD_ST0_RXE;
        }
        rx_write_desc(s, q, q->head, &ri, hash, n, i == nbufs - 1);
        q->head = (q->head + 1) % q->len;
        off += n;
    }
    return true;
}

bool e810_lan_can_receive(E810State *s)
{
    E810Lan *lan = s->lan;
    bool any_enabled = false;
    unsigned int i;

    if (!lan) {
        return false;
    }
    for (i = 0; i < E810_NUM_QUEUES; i++) {
        if (rxq_free(&lan->rxq[i])) {
            return true;
        }
        any_enabled |= lan->rxq[i].enabled;
    }
    /*
     * No queue enabled (the port is down): the frame is dropped on the
     * floor as by the hardware, rather than held by QEMU until ifup.
     */
    return !any_enabled;
}

ssize_t e810_lan_receive(E810State *s, const uint8_t *buf, size_t len)
{
    E810Lan *lan = s->lan;
    const uint8_t *frame = buf;
    size_t flen = len;
    E810LanRxq *q;
    uint16_t qi;
    uint32_t hash = 0;

    if (!lan || !e810_sw_rx_dest(s, buf, len, &qi, &hash)) {
        return len;
    }
    if (qi >= E810_NUM_QUEUES) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: frame steered to RX queue %u "
                      "past the model's %u\n", qi, E810_NUM_QUEUES);
        return len;
    }
    q = &lan->rxq[qi];
    if (!q->enabled || !q->len || len > E810_LAN_MAX_FRAME ||
        len > q->max_frame) {
        return len;
    }
    if (!q->crc_strip) {
        /* The driver wants the FCS at the end (ethtool rx-fcs). */
        memcpy(lan->rx_fcs, buf, len);
        stl_le_p(lan->rx_fcs + len, ~net_crc32_le(buf, len));
        frame = lan->rx_fcs;
        flen = len + 4;
    }
    if (DIV_ROUND_UP(flen, q->buf_size) > E810_RX_MAX_CHAIN) {
        return len;
    }
    if (!rx_deliver(s, q, frame, flen, hash)) {
        /* No buffers posted yet: QEMU holds it until QRX_TAIL moves. */
        return 0;
    }
    lan_queue_irq(s, q->irq_ctl);
    return len;
}

/* ---- Transmit ---- */

static uint64_t txq_desc_addr(const E810LanTxq *q, uint32_t idx)
{
    return q->base + (uint64_t)idx * E810_TXD_SIZE;
}

/* The L4 checksum of L4 (LEN bytes): TCP or UDP ones-complement, SCTP CRC. */
static void tx_l4_csum(uint8_t *l4, size_t len, unsigned int l4t,
                       bool add_len)
{
    uint32_t sum;
    uint16_t c;
    size_t at;

    if (l4t == E810_TXD_L4T_SCTP) {
        if (len >= 12) {
            stl_le_p(l4 + 8, 0);
            stl_le_p(l4 + 8, crc32c(0xffffffff, l4, len));
        }
        return;
    }
    at = l4t == E810_TXD_L4T_TCP ? 16 : 6;
    if (len < at + 2) {
        return;
    }
    /* The field holds the pseudo header's sum; for TSO without length. */
    sum = sum16(l4, len) + (add_len ? len : 0);
    c = net_checksum_finish(sum);
    if (l4t == E810_TXD_L4T_UDP && !c) {
        c = 0xffff;
    }
    stw_be_p(l4 + at, c);
}

static void tx_ipv4_csum(uint8_t *ip, size_t iplen)
{
    stw_be_p(ip + 10, 0);
    stw_be_p(ip + 10, net_raw_checksum(ip, iplen));
}

/* The frame to the wire, with the VLAN tag the descriptor asked for. */
static void tx_wire(E810State *s, const E810TxPkt *p, uint8_t *f,
                    size_t len)
{
    uint8_t tag[4];
    struct iovec iov[3];

    if (!s->nic) {
        return;
    }
    if (!(p->cmd & E810_TXD_CMD_IL2TAG1) || len < 12) {
        qemu_send_packet(qemu_get_queue(s->nic), f, len);
        return;
    }
    stw_be_p(tag, VLAN_TPID_8021Q);
    stw_be_p(tag + 2, p->l2tag1);
    iov[0] = (struct iovec) { .iov_base = f, .iov_len = 12 };
    iov[1] = (struct iovec) { .iov_base = tag, .iov_len = sizeof(tag) };
    iov[2] = (struct iovec) { .iov_base = f + 12, .iov_len = len - 12 };
    qemu_sendv_packet(qemu_get_queue(s->nic), iov, 3);
}

/* Checksum offload of one (non-TSO) packet, as its descriptor asked. */
static void tx_offload_csum(const E810TxPkt *p, uint8_t *f, size_t len)
{
    unsigned int iipt = E810_TXD_CMD_IIPT(p->cmd);
    unsigned int l4t = E810_TXD_CMD_L4T(p->cmd);
    size_t maclen = E810_TXD_MACLEN(p->offset);
    size_t iplen = E810_TXD_IPLEN(p->offset);

    if (!iipt && !l4t) {
        return;
    }
    if (maclen + iplen > len || (iipt == E810_TXD_IIPT_IPV4_CSUM &&
                                 iplen < 20)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TX offsets (MAC %zu, IP %zu) "
                      "past a %zu-byte frame\n", maclen, iplen, len);
        return;
    }
    if (iipt == E810_TXD_IIPT_IPV4_CSUM) {
        tx_ipv4_csum(f + maclen, iplen);
    }
    if (l4t) {
        tx_l4_csum(f + maclen + iplen, len - maclen - iplen, l4t, false);
    }
}

/*
 * TSO: the payload behind MAC+IP+L4 headers cut in MSS pieces; each
 * segment gets its IP length (and IPv4 id), TCP sequence and flags or
 * UDP length, and its checksums.  ice zeroes the IPv4 length and
 * checksum and leaves the pseudo header's sum without the length in
 * the L4 checksum field (ice_txrx.c:ice_tso).
 */
static void tx_tso(E810State *s, const E810TxPkt *p, uint8_t *f,
                   size_t len)
{
    unsigned int iipt = E810_TXD_CMD_IIPT(p->cmd);
    unsigned int l4t = E810_TXD_CMD_L4T(p->cmd);
    size_t maclen = E810_TXD_MACLEN(p->offset);
    size_t iplen = E810_TXD_IPLEN(p->offset);
    size_t l4len = E810_TXD_L4LEN(p->offset);
    size_t hdr = maclen + iplen + l4len;
    size_t mss = E810_TXCD_MSS(p->ctx_qw1);
    uint8_t *seg = s->lan->tx_seg;
    uint32_t seq = 0;
    uint16_t id = 0;
    size_t off, n;
    unsigned int i;

    if ((l4t != E810_TXD_L4T_TCP && l4t != E810_TXD_L4T_UDP) || !iipt ||
        mss < E810_TXCD_MIN_MSS || hdr > E810_TX_MAX_HDR || hdr >= len ||
        hdr + mss > E810_LAN_MAX_FRAME ||
        (l4t == E810_TXD_L4T_TCP && l4len < 20) ||
        (l4t == E810_TXD_L4T_UDP && l4len != 8) ||
        (iipt == E810_TXD_IIPT_IPV6 ? iplen < 40 : iplen < 20)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TSO with L4 type %u, IP type "
                      "%u, headers %zu, MSS %zu of a %zu-byte packet: "
                      "dropped\n", l4t, iipt, hdr, mss, len);
        return;
    }
    if (E810_TXCD_TSO_LEN(p->ctx_qw1) != len - hdr) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TSO length %u, the packet "
                      "has %zu bytes of payload\n",
                      (unsigned int)E810_TXCD_TSO_LEN(p->ctx_qw1), len - hdr);
    }
    if (l4t == E810_TXD_L4T_TCP) {
        seq = ldl_be_p(f + maclen + iplen + 4);
    }
    if (iipt != E810_TXD_IIPT_IPV6) {
        id = lduw_be_p(f + maclen + 4);
    }
    for (off = hdr, i = 0; off < len; off += n, i++) {
        uint8_t *ip = seg + maclen, *l4 = ip + iplen;

        n = MIN(mss, len - off);
        memcpy(seg, f, hdr);
        memcpy(seg + hdr, f + off, n);
        if (iipt == E810_TXD_IIPT_IPV6) {
            stw_be_p(ip + 4, iplen - 40 + l4len + n);
        } else {
            stw_be_p(ip + 2, iplen + l4len + n);
            stw_be_p(ip + 4, id + i);
            if (iipt == E810_TXD_IIPT_IPV4_CSUM) {
                tx_ipv4_csum(ip, iplen);
            }
        }
        if (l4t == E810_TXD_L4T_TCP) {
            stl_be_p(l4 + 4, seq + (off - hdr));
            if (off + n < len) {
                l4[13] &= ~0x09;        /* FIN, PSH: the last segment's */
            }
            if (i) {
                l4[13] &= ~0x80;        /* CWR: the first segment's */
            }
        } else {
            stw_be_p(l4 + 4, l4len + n);
        }
        tx_l4_csum(l4, l4len + n, l4t, true);
        tx_wire(s, p, seg, hdr + n);
    }
}

static void tx_send(E810State *s, const E810TxPkt *p)
{
    uint8_t *f = s->lan->tx_pkt;
    bool tso = p->have_ctx && (E810_TXCD_CMD(p->ctx_qw1) & E810_TXCD_CMD_TSO);

    if (p->bad || !p->len) {
        return;
    }
    if (p->have_ctx && E810_TXCD_TUNNEL(p->ctx_qw0)) {
        /* Tunnel offloads (outer IP, UDP/GRE) are not modelled. */
        qemu_log_mask(LOG_UNIMP, "e810: TX tunnel offload not modelled: "
                      "packet sent without offloads\n");
        if (!tso && p->len <= E810_LAN_MAX_FRAME) {
            tx_wire(s, p, f, p->len);
        }
        return;
    }
    if (p->have_ctx && (E810_TXCD_CMD(p->ctx_qw1) & E810_TXCD_CMD_IL2TAG2)) {
        qemu_log_mask(LOG_UNIMP, "e810: TX L2TAG2 insertion not "
                      "modelled\n");
    }
    if (tso) {
        tx_tso(s, p, f, p->len);
        return;
    }
    if (p->len > E810_LAN_MAX_FRAME) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TX frame of %zu bytes "
                      "dropped\n", p->len);
        return;
    }
    tx_offload_csum(p, f, p->len);
    tx_wire(s, p, f, p->len);
}

/* A data descriptor: its buffer appended to the packet. */
static void tx_take_data(E810State *s, E810TxPkt *p, uint64_t qw0,
                         uint64_t qw1)
{
    size_t size = E810_TXD_BUF_SIZE(qw1);

    if (!p->have_data) {
        p->have_data = true;
        p->cmd = E810_TXD_CMD(qw1);
        p->offset = E810_TXD_OFFSET(qw1);
        p->l2tag1 = E810_TXD_L2TAG1(qw1);
    }
    if (p->bad) {
        return;
    }
    if (p->len + size > E810_TX_MAX_PACKET) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TX packet over %u bytes "
                      "dropped\n", (unsigned int)E810_TX_MAX_PACKET);
        p->bad = true;
        return;
    }
    if (size && !e810_dma_read(s, qw0, s->lan->tx_pkt + p->len, size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TX buffer 0x%" PRIx64
                      " not readable\n", qw0);
        p->bad = true;
        return;
    }
    p->len += size;
}

/*
 * The descriptors of one packet from Q's head: their count (up to and
 * with the one that has EOP), or 0 when the tail comes first (the
 * driver has not finished the packet: wait for the next doorbell).
 */
static uint32_t tx_gather(E810State *s, E810LanTxq *q, E810TxPkt *p)
{
    uint32_t idx = q->head, n = 0;

    while (idx != q->tail && n < q->len) {
        uint8_t d[E810_TXD_SIZE];
        uint64_t qw0, qw1;

        n++;
        if (!e810_dma_read(s, txq_desc_addr(q, idx), d, sizeof(d))) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: TX descriptor %u not "
                          "readable\n", idx);
            p->bad = true;
            return n;
        }
        qw0 = ldq_le_p(d);
        qw1 = ldq_le_p(d + 8);
        idx = (idx + 1) % q->len;
        switch (E810_TXD_DTYPE(qw1)) {
        case E810_TXD_DTYPE_DATA:
            tx_take_data(s, p, qw0, qw1);
            if (E810_TXD_CMD(qw1) & E810_TXD_CMD_EOP) {
                return n;
            }
            break;
        case E810_TXD_DTYPE_CTX:
            if (p->have_data) {
                qemu_log_mask(LOG_GUEST_ERROR, "e810: TX context "
                              "descriptor inside a packet\n");
                p->bad = true;
            }
            p->have_ctx = true;
            p->ctx_qw0 = qw0;
            p->ctx_qw1 = qw1;
            break;
        default:
            /* Flow director programming (type 8) has no model. */
            qemu_log_mask(LOG_UNIMP, "e810: TX descriptor type %u not "
                          "modelled\n", (unsigned int)E810_TXD_DTYPE(qw1));
            p->bad = true;
            break;
        }
    }
    return 0;
}

/* Report the descriptors of a sent packet that asked for it (RS). */
static void tx_report(E810State *s, E810LanTxq *q, uint32_t first,
                      uint32_t count)
{
    uint32_t i, idx;

    for (i = 0, idx = first; i < count; i++, idx = (idx + 1) % q->len) {
        uint64_t addr = txq_desc_addr(q, idx) + 8;
        uint8_t b[8];
        uint64_t qw1;

        if (!e810_dma_read(s, addr, b, sizeof(b))) {
            continue;
        }
        qw1 = ldq_le_p(b);
        if (E810_TXD_DTYPE(qw1) != E810_TXD_DTYPE_DATA ||
            !(E810_TXD_CMD(qw1) & E810_TXD_CMD_RS)) {
            continue;
        }
        /* ice_clean_tx_irq: the type nibble reads DESC_DONE. */
        stq_le_p(b, qw1 | E810_TXD_DTYPE_DONE);
        e810_dma_write(s, addr, b, sizeof(b));
    }
}

/* Send what lies between Q's head and its tail. */
static void txq_run(E810State *s, E810LanTxq *q)
{
    uint32_t budget = q->len;
    bool done = false;

    while (q->head != q->tail && budget) {
        E810TxPkt p = { 0 };
        uint32_t n = tx_gather(s, q, &p);

        if (!n) {
            break;
        }
        tx_send(s, &p);
        tx_report(s, q, q->head, n);
        q->head = (q->head + n) % q->len;
        budget -= MIN(n, budget);
        done = true;
    }
    if (done) {
        lan_queue_irq(s, q->irq_ctl);
    }
}

static void txq_doorbell(E810State *s, unsigned int qi, uint32_t val)
{
    E810LanTxq *q = &s->lan->txq[qi];

    if (!q->enabled) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: doorbell of TX queue %u, "
                      "which is not enabled\n", qi);
        return;
    }
    if (val >= q->len) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TX queue %u tail %u past its "
                      "%u descriptors\n", qi, val, q->len);
        return;
    }
    q->tail = val;
    txq_run(s, q);
}

/* ---- Admin queue commands ---- */

/* One queue of 0x0C30: its context taken, its leaf made under PARENT. */
static uint16_t add_txq(E810State *s, uint8_t *e, uint32_t parent)
{
    E810Lan *lan = s->lan;
    uint16_t qi = e810_get16(e, E810_ADD_TXQ_ID);
    const uint8_t *ctx = e + E810_ADD_TXQ_CTX;
    E810LanTxq *q;
    uint32_t teid;

    if (qi >= E810_NUM_QUEUES) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: add TX queue %u past the "
                      "model's %u\n", qi, E810_NUM_QUEUES);
        return E810_AQ_RC_EINVAL;
    }
    q = &lan->txq[qi];
    if (q->enabled) {
        /*
         * The driver disables a queue before adding it again; if its
         * disable got lost, the new context wins.
         */
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TX queue %u added twice\n",
                      qi);
        e810_sched_del_leaf(s, q->teid);
        q->enabled = false;
    }
    teid = e810_sched_add_leaf(s, parent);
    if (!teid) {
        return E810_AQ_RC_ENOSPC;
    }
    /* Everything but the interrupt mapping, which is a register's. */
    memset(q, 0, offsetof(E810LanTxq, irq_ctl));
    q->base = lan_ctx_field(ctx, E810_TXCTX_SIZE, txctx_base) << 7;
    q->len = lan_ctx_field(ctx, E810_TXCTX_SIZE, txctx_qlen);
    q->teid = teid;
    q->enabled = true;
    if (q->len < 2) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: TX queue %u of %u "
                      "descriptors: it sends nothing\n", qi, q->len);
    }
    e810_put32(e, E810_ADD_TXQ_TEID, teid);
    return E810_AQ_RC_OK;
}

/* Undo the queues a failed 0x0C30 added before the failing one. */
static void add_txqs_undo(E810State *s, const uint8_t *buf, size_t end)
{
    size_t off = 0;

    while (off + E810_ADD_TXQ_GRP_HDR <= end) {
        unsigned int n = buf[off + E810_ADD_TXQ_GRP_NUM], j;

        off += E810_ADD_TXQ_GRP_HDR;
        for (j = 0; j < n && off + E810_ADD_TXQ_SIZE <= end; j++) {
            uint16_t qi = e810_get16(buf + off, E810_ADD_TXQ_ID);

            if (qi < E810_NUM_QUEUES && s->lan->txq[qi].enabled) {
                e810_sched_del_leaf(s, s->lan->txq[qi].teid);
                s->lan->txq[qi].enabled = false;
            }
            off += E810_ADD_TXQ_SIZE;
        }
    }
}

/* The whole buffer must be exactly the groups the descriptor counts. */
static bool add_txqs_size_ok(const E810Cmd *c, unsigned int groups)
{
    size_t off = 0;
    unsigned int g;

    for (g = 0; g < groups; g++) {
        if (off + E810_ADD_TXQ_GRP_HDR > c->buf_len) {
            return false;
        }
        off += E810_ADD_TXQ_GRP_HDR +
               (size_t)c->buf[off + E810_ADD_TXQ_GRP_NUM] * E810_ADD_TXQ_SIZE;
    }
    return off == c->buf_len;
}

static uint16_t aq_add_txqs(E810State *s, E810Cmd *c)
{
    unsigned int groups = *e810_cmd_param(c, 0), g, j;
    size_t off = 0;

    if (!c->buf || !groups || !add_txqs_size_ok(c, groups)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: add TX queues: %u groups do "
                      "not fill the %u-byte buffer\n", groups, c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    for (g = 0; g < groups; g++) {
        uint32_t parent = e810_get32(c->buf, off + E810_ADD_TXQ_GRP_PARENT);
        unsigned int n = c->buf[off + E810_ADD_TXQ_GRP_NUM];

        off += E810_ADD_TXQ_GRP_HDR;
        for (j = 0; j < n; j++, off += E810_ADD_TXQ_SIZE) {
            uint16_t rc = add_txq(s, c->buf + off, parent);

            if (rc != E810_AQ_RC_OK) {
                add_txqs_undo(s, c->buf, off);
                return rc;
            }
        }
    }
    /* ice reads each queue's TEID back from the buffer. */
    c->out_len = c->buf_len;
    return E810_AQ_RC_OK;
}

static void dis_txq(E810State *s, uint32_t parent, uint16_t id)
{
    unsigned int qi = id & E810_DIS_TXQ_ID_MASK;
    E810LanTxq *q;

    if (id & E810_DIS_TXQ_RDMA_QSET) {
        /* An RDMA queue set's leaf (ice_dis_vsi_rdma_qset), from 0x0C33. */
        if (!e810_sched_del_qset(s, parent, qi)) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: disable of RDMA queue "
                          "set %u under 0x%x, which has none\n", qi, parent);
        }
        return;
    }
    if (qi >= E810_NUM_QUEUES || !s->lan->txq[qi].enabled) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: disable of TX queue %u, "
                      "which is not enabled\n", qi);
        return;
    }
    q = &s->lan->txq[qi];
    e810_sched_del_leaf(s, q->teid);
    q->enabled = false;
    q->teid = 0;
    q->head = q->tail = 0;
}

static uint16_t aq_dis_txqs(E810State *s, E810Cmd *c)
{
    unsigned int groups = *e810_cmd_param(c, 1), g, j;
    size_t off = 0;

    /* Without a buffer: a VM/VF reset flow; there are no VFs. */
    if (!c->buf || !groups) {
        return E810_AQ_RC_OK;
    }
    /* First the layout, so that a bad buffer changes nothing. */
    for (g = 0; g < groups; g++) {
        unsigned int n;

        if (off + E810_DIS_TXQ_HDR > c->buf_len) {
            return E810_AQ_RC_EINVAL;
        }
        n = c->buf[off + E810_DIS_TXQ_NUM];
        off += E810_DIS_TXQ_HDR + n * 2 + (n % 2 ? 0 : 2);
    }
    if (off != c->buf_len) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: disable TX queues: %u groups "
                      "do not fill the %u-byte buffer\n", groups,
                      c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    for (g = 0, off = 0; g < groups; g++) {
        unsigned int n = c->buf[off + E810_DIS_TXQ_NUM];

        for (j = 0; j < n; j++) {
            dis_txq(s, e810_get32(c->buf, off),
                    e810_get16(c->buf, off + E810_DIS_TXQ_HDR + j * 2));
        }
        off += E810_DIS_TXQ_HDR + n * 2 + (n % 2 ? 0 : 2);
    }
    return E810_AQ_RC_OK;
}

const E810AqOp e810_lan_ops[] = {
    { E810_AQC_ADD_TXQS, "add_txqs", aq_add_txqs },
    { E810_AQC_DIS_TXQS, "dis_txqs", aq_dis_txqs },
    { 0, NULL, NULL },
};

/* ---- Registers ---- */

bool e810_lan_reg_read(E810State *s, hwaddr addr, uint32_t *val)
{
    E810Lan *lan = s->lan;
    unsigned int q;

    *val = 0;
    if (addr >= E810_QRX_CONTEXT_BASE &&
        addr < E810_QRX_CONTEXT_BASE + E810_QRX_CONTEXT_DWORDS * 0x2000) {
        unsigned int i = (addr - E810_QRX_CONTEXT_BASE) / 0x2000;

        q = ((addr - E810_QRX_CONTEXT_BASE) % 0x2000) / 4;
        if (q < E810_NUM_QUEUES && !(addr & 3)) {
            *val = lan->rxq[q].ctx[i];
        }
        return true;
    }
    if (lan_reg_index(addr, E810_QRX_CTRL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            *val = lan->rxq[q].ctrl;
        }
    } else if (lan_reg_index(addr, E810_QRX_TAIL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            *val = lan->rxq[q].tail;
        }
    } else if (lan_reg_index(addr, E810_QRXFLXP_CNTXT_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            *val = lan->rxq[q].flxp;
        }
    } else if (lan_reg_index(addr, E810_QINT_RQCTL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            *val = lan->rxq[q].irq_ctl;
        }
    } else if (lan_reg_index(addr, E810_QINT_TQCTL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            *val = lan->txq[q].irq_ctl;
        }
    } else if (lan_reg_index(addr, E810_QTX_COMM_HEAD_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            *val = lan->txq[q].head;
        }
    } else if (!lan_reg_index(addr, E810_QTX_COMM_DBELL_BASE, &q)) {
        return false;
    }
    return true;
}

static bool lan_reg_write_rx(E810State *s, hwaddr addr, uint32_t val)
{
    E810Lan *lan = s->lan;
    unsigned int q;

    if (addr >= E810_QRX_CONTEXT_BASE &&
        addr < E810_QRX_CONTEXT_BASE + E810_QRX_CONTEXT_DWORDS * 0x2000) {
        unsigned int i = (addr - E810_QRX_CONTEXT_BASE) / 0x2000;

        q = ((addr - E810_QRX_CONTEXT_BASE) % 0x2000) / 4;
        if (q < E810_NUM_QUEUES && !(addr & 3)) {
            lan->rxq[q].ctx[i] = val;
        }
        return true;
    }
    if (lan_reg_index(addr, E810_QRX_CTRL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            rxq_write_ctrl(s, &lan->rxq[q], q, val);
        }
    } else if (lan_reg_index(addr, E810_QRX_TAIL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            lan->rxq[q].tail = val & E810_QRX_TAIL_MASK;
            lan_flush_rx(s);
        }
    } else if (lan_reg_index(addr, E810_QRXFLXP_CNTXT_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            lan->rxq[q].flxp = val;
        }
    } else if (lan_reg_index(addr, E810_QINT_RQCTL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            lan->rxq[q].irq_ctl = val;
        }
    } else {
        return false;
    }
    return true;
}

bool e810_lan_reg_write(E810State *s, hwaddr addr, uint32_t val)
{
    E810Lan *lan = s->lan;
    unsigned int q;

    if (lan_reg_write_rx(s, addr, val)) {
        return true;
    }
    if (lan_reg_index(addr, E810_QINT_TQCTL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            lan->txq[q].irq_ctl = val;
        }
    } else if (lan_reg_index(addr, E810_QTX_COMM_DBELL_BASE, &q)) {
        if (q < E810_NUM_QUEUES) {
            txq_doorbell(s, q, val);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: doorbell of TX queue %u "
                          "past the model's %u\n", q, E810_NUM_QUEUES);
        }
    } else if (!lan_reg_index(addr, E810_QTX_COMM_HEAD_BASE, &q)) {
        return false;
    }
    return true;
}

/* ---- Life cycle ---- */

void e810_lan_realize(E810State *s)
{
    s->lan = g_new0(E810Lan, 1);
    s->lan->tx_pkt = g_malloc(E810_TX_MAX_PACKET);
    s->lan->tx_seg = g_malloc(E810_LAN_MAX_FRAME);
    s->lan->rx_fcs = g_malloc(E810_LAN_MAX_FRAME + 4);
}

void e810_lan_unrealize(E810State *s)
{
    if (!s->lan) {
        return;
    }
    g_free(s->lan->tx_pkt);
    g_free(s->lan->tx_seg);
    g_free(s->lan->rx_fcs);
    g_free(s->lan);
    s->lan = NULL;
}

/*
 * A PF reset forgets every queue and its interrupt mapping.  The
 * scheduler forgets its leaves in its own reset, so none is freed here.
 */
void e810_lan_reset(E810State *s)
{
    E810Lan *lan = s->lan;

    if (!lan) {
        return;
    }
    memset(lan->rxq, 0, sizeof(lan->rxq));
    memset(lan->txq, 0, sizeof(lan->txq));
}

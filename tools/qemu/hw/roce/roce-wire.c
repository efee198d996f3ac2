/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoCEv2 engine: packets on the wire.
 *
 *   Ethernet [802.1Q] IPv4|IPv6 UDP(4791) BTH [DETH] [RETH] [AETH]
 *   [AtomicETH|AtomicAckETH] [ImmDt] [IETH] payload pad(0..3) ICRC
 *
 * Which extension headers follow the BTH is a property of the opcode
 * (IBTA vol. 1 9.2, table 38).  Received frames are untrusted: every
 * offset is checked against the frame's length and the IP and UDP
 * lengths before anything is read.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "roce-osdep.h"
#include "roce-int.h"

#define ETH_HLEN            14
#define ETH_P_IP            0x0800
#define ETH_P_IPV6          0x86dd
#define ETH_P_8021Q         0x8100
#define IP4_HLEN            20
#define IP6_HLEN            40
#define UDP_HLEN            8
#define IPPROTO_UDP_NUM     17

/* The flags of the operation in an opcode's low five bits. */
static uint32_t roce_op5_flags(uint8_t op)
{
    const uint32_t s = ROCE_F_SEND | ROCE_F_PAYLOAD;
    const uint32_t w = ROCE_F_WRITE | ROCE_F_PAYLOAD;
    const uint32_t r = ROCE_F_RRESP | ROCE_F_PAYLOAD;

    switch (op) {
    case ROCE_OP_SEND_FIRST:
        return s | ROCE_F_FIRST;
    case ROCE_OP_SEND_MIDDLE:
        return s | ROCE_F_MIDDLE;
    case ROCE_OP_SEND_LAST:
        return s | ROCE_F_LAST;
    case ROCE_OP_SEND_LAST_IMM:
        return s | ROCE_F_LAST | ROCE_F_IMM;
    case ROCE_OP_SEND_ONLY:
        return s | ROCE_F_ONLY;
    case ROCE_OP_SEND_ONLY_IMM:
        return s | ROCE_F_ONLY | ROCE_F_IMM;
    case ROCE_OP_WRITE_FIRST:
        return w | ROCE_F_FIRST | ROCE_F_RETH;
    case ROCE_OP_WRITE_MIDDLE:
        return w | ROCE_F_MIDDLE;
    case ROCE_OP_WRITE_LAST:
        return w | ROCE_F_LAST;
    case ROCE_OP_WRITE_LAST_IMM:
        return w | ROCE_F_LAST | ROCE_F_IMM;
    case ROCE_OP_WRITE_ONLY:
        return w | ROCE_F_ONLY | ROCE_F_RETH;
    case ROCE_OP_WRITE_ONLY_IMM:
        return w | ROCE_F_ONLY | ROCE_F_RETH | ROCE_F_IMM;
    case ROCE_OP_READ_REQUEST:
        return ROCE_F_READ | ROCE_F_ONLY | ROCE_F_RETH;
    case ROCE_OP_READ_RESP_FIRST:
        return r | ROCE_F_FIRST | ROCE_F_AETH;
    case ROCE_OP_READ_RESP_MIDDLE:
        return r | ROCE_F_MIDDLE;
    case ROCE_OP_READ_RESP_LAST:
        return r | ROCE_F_LAST | ROCE_F_AETH;
    case ROCE_OP_READ_RESP_ONLY:
        return r | ROCE_F_ONLY | ROCE_F_AETH;
    case ROCE_OP_ACK:
        return ROCE_F_ACK | ROCE_F_ONLY | ROCE_F_AETH;
    case ROCE_OP_ATOMIC_ACK:
        return ROCE_F_ATMACK | ROCE_F_ONLY | ROCE_F_AETH;
    case ROCE_OP_CMP_SWP:
    case ROCE_OP_FETCH_ADD:
        return ROCE_F_ATOMIC | ROCE_F_ONLY | ROCE_F_ATMETH;
    case ROCE_OP_SEND_LAST_INV:
        return s | ROCE_F_LAST | ROCE_F_IETH;
    case ROCE_OP_SEND_ONLY_INV:
        return s | ROCE_F_ONLY | ROCE_F_IETH;
    default:
        return 0;
    }
}

uint32_t roce_opcode_flags(uint8_t opcode)
{
    uint8_t op = opcode & 0x1f;
    uint32_t f;

    switch (opcode & 0xe0) {
    case ROCE_OP_RC:
        f = roce_op5_flags(op);
        break;
    case ROCE_OP_UC:
        /* SENDs and WRITEs only. */
        f = op <= ROCE_OP_WRITE_ONLY_IMM ? roce_op5_flags(op) : 0;
        break;
    case ROCE_OP_UD:
        f = op == ROCE_OP_SEND_ONLY || op == ROCE_OP_SEND_ONLY_IMM ?
            roce_op5_flags(op) | ROCE_F_DETH : 0;
        break;
    case ROCE_OP_XRC:
        /* RC's operations; requests name their SRQ (XRCETH). */
        f = roce_op5_flags(op);
        if (f && !(f & ROCE_F_RESPONSE)) {
            f |= ROCE_F_XRCETH;
        }
        break;
    default:
        return 0;
    }
    return f ? f | ROCE_F_VALID : 0;
}

/* BTH and extension headers. */
uint32_t roce_hdr_len(uint32_t flags)
{
    uint32_t len = ROCE_BTH_LEN;

    if (flags & ROCE_F_DETH) {
        len += ROCE_DETH_LEN;
    }
    if (flags & ROCE_F_XRCETH) {
        len += ROCE_XRCETH_LEN;
    }
    if (flags & ROCE_F_RETH) {
        len += ROCE_RETH_LEN;
    }
    if (flags & ROCE_F_AETH) {
        len += ROCE_AETH_LEN;
    }
    if (flags & ROCE_F_ATMETH) {
        len += ROCE_ATMETH_LEN;
    }
    if (flags & ROCE_F_ATMACK) {
        len += ROCE_ATMACK_LEN;
    }
    if (flags & ROCE_F_IMM) {
        len += ROCE_IMM_LEN;
    }
    if (flags & ROCE_F_IETH) {
        len += ROCE_IETH_LEN;
    }
    return len;
}

/* ---- ICRC ---- */

static uint32_t roce_crc_table[256];
static bool roce_crc_ready;

static void roce_crc_init(void)
{
    uint32_t i, j, c;

    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++) {
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        }
        roce_crc_table[i] = c;
    }
    roce_crc_ready = true;
}

/* CRC32 (IEEE 802.3, reflected) without the final complement. */
static uint32_t roce_crc32(uint32_t crc, const uint8_t *p, size_t len)
{
    while (len--) {
        crc = roce_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    }
    return crc;
}

/*
 * IBTA vol. 1 annex A17.3.3: the CRC32 over 8 bytes of ones (for the
 * LRH RoCEv2 has not), the IP header with the fields routers change
 * masked to ones (IPv4: TOS, TTL, header checksum; IPv6: traffic class,
 * flow label, hop limit), the UDP header with its checksum masked, the
 * BTH with its FECN/BECN/reserved byte masked, then everything up to
 * the ICRC.  Sent least significant byte first.  IPv4 headers have no
 * options here (roce_parse() refuses them).
 */
uint32_t roce_icrc(const uint8_t *ip, size_t len)
{
    static const uint8_t ones[8] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
    };
    uint8_t h[IP6_HLEN + UDP_HLEN + ROCE_BTH_LEN];
    size_t iplen = (ip[0] >> 4) == 6 ? IP6_HLEN : IP4_HLEN;
    size_t hl = iplen + UDP_HLEN + ROCE_BTH_LEN;
    uint32_t crc;

    if (!roce_crc_ready) {
        roce_crc_init();
    }
    memcpy(h, ip, hl);
    if (iplen == IP6_HLEN) {
        h[0] |= 0x0f;
        h[1] = h[2] = h[3] = 0xff;
        h[7] = 0xff;
    } else {
        h[1] = 0xff;
        h[8] = 0xff;
        h[10] = h[11] = 0xff;
    }
    h[iplen + 6] = h[iplen + 7] = 0xff;
    h[iplen + UDP_HLEN + 4] = 0xff;

    crc = roce_crc32(0xffffffffu, ones, sizeof(ones));
    crc = roce_crc32(crc, h, hl);
    crc = roce_crc32(crc, ip + hl, len - hl);
    return ~crc;
}

/* ---- building ---- */

static uint16_t roce_csum_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

static uint32_t roce_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i += 2) {
        sum += roce_get_be16(p + i);
    }
    if (len & 1) {
        sum += p[len - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

uint8_t *roce_frame_begin(RoceQP *qp, const RoceAV *av, RocePkt *pkt,
                          uint32_t paylen)
{
    RoceEngine *e = qp->eng;
    uint8_t *f = e->frame;
    uint32_t flags = roce_opcode_flags(pkt->opcode);
    uint32_t hl = roce_hdr_len(flags);
    uint32_t pad = -paylen & 3;
    uint32_t udplen = UDP_HLEN + hl + paylen + pad + ROCE_ICRC_LEN;
    size_t off = 12;
    uint8_t *ip, *b;

    memcpy(f, av->dmac, 6);
    memcpy(f + 6, av->smac, 6);
    if (av->vlan_valid) {
        roce_put_be16(f + off, ETH_P_8021Q);
        roce_put_be16(f + off + 2, av->vlan);
        off += 4;
    }
    roce_put_be16(f + off, av->ipv6 ? ETH_P_IPV6 : ETH_P_IP);
    off += 2;
    e->frame_ip = off;
    ip = f + off;
    if (av->ipv6) {
        roce_put_be32(ip, 6u << 28 | (uint32_t)av->tclass << 20 |
                      (av->flow_label & 0xfffff));
        roce_put_be16(ip + 4, udplen);
        ip[6] = IPPROTO_UDP_NUM;
        ip[7] = av->hop_limit ? av->hop_limit : 64;
        memcpy(ip + 8, av->sgid, 16);
        memcpy(ip + 24, av->dgid, 16);
        off += IP6_HLEN;
    } else {
        ip[0] = 0x45;
        ip[1] = av->tclass;
        roce_put_be16(ip + 2, IP4_HLEN + udplen);
        roce_put_be16(ip + 4, 0);
        roce_put_be16(ip + 6, 0x4000);          /* DF */
        ip[8] = av->hop_limit ? av->hop_limit : 64;
        ip[9] = IPPROTO_UDP_NUM;
        roce_put_be16(ip + 10, 0);
        memcpy(ip + 12, av->sgid + 12, 4);
        memcpy(ip + 16, av->dgid + 12, 4);
        roce_put_be16(ip + 10, roce_csum_fold(roce_csum_add(0, ip,
                                                            IP4_HLEN)));
        off += IP4_HLEN;
    }
    roce_put_be16(f + off, qp->sport);
    roce_put_be16(f + off + 2, ROCE_UDP_PORT);
    roce_put_be16(f + off + 4, udplen);
    roce_put_be16(f + off + 6, 0);
    off += UDP_HLEN;

    b = f + off;
    b[0] = pkt->opcode;
    b[1] = (pkt->se ? 0x80 : 0) | pad << 4;
    roce_put_be16(b + 2, pkt->pkey);
    roce_put_be32(b + 4, pkt->dqpn & 0xffffff);
    roce_put_be32(b + 8, (pkt->ackreq ? 0x80000000u : 0) |
                  (pkt->psn & ROCE_PSN_MASK));
    b += ROCE_BTH_LEN;
    if (flags & ROCE_F_DETH) {
        roce_put_be32(b, pkt->qkey);
        roce_put_be32(b + 4, pkt->sqpn & 0xffffff);
        b += ROCE_DETH_LEN;
    }
    if (flags & ROCE_F_XRCETH) {
        roce_put_be32(b, pkt->xrc_srqn & 0xffffff);
        b += ROCE_XRCETH_LEN;
    }
    if (flags & ROCE_F_RETH) {
        roce_put_be64(b, pkt->va);
        roce_put_be32(b + 8, pkt->rkey);
        roce_put_be32(b + 12, pkt->dma_len);
        b += ROCE_RETH_LEN;
    }
    if (flags & ROCE_F_AETH) {
        roce_put_be32(b, (uint32_t)pkt->syn << 24 |
                      (pkt->msn & ROCE_MSN_MASK));
        b += ROCE_AETH_LEN;
    }
    if (flags & ROCE_F_ATMETH) {
        roce_put_be64(b, pkt->va);
        roce_put_be32(b + 8, pkt->rkey);
        roce_put_be64(b + 12, pkt->swap_add);
        roce_put_be64(b + 20, pkt->compare);
        b += ROCE_ATMETH_LEN;
    }
    if (flags & ROCE_F_ATMACK) {
        roce_put_be64(b, pkt->orig);
        b += ROCE_ATMACK_LEN;
    }
    if (flags & ROCE_F_IMM) {
        roce_put_be32(b, pkt->imm);
        b += ROCE_IMM_LEN;
    }
    if (flags & ROCE_F_IETH) {
        roce_put_be32(b, pkt->ieth_rkey);
        b += ROCE_IETH_LEN;
    }
    memset(b + paylen, 0, pad);
    e->frame_len = (size_t)(b - f) + paylen + pad + ROCE_ICRC_LEN;
    return b;
}

void roce_frame_send(RoceQP *qp)
{
    RoceEngine *e = qp->eng;
    uint8_t *ip = e->frame + e->frame_ip;
    size_t iplen = e->frame_len - e->frame_ip;
    uint32_t icrc = roce_icrc(ip, iplen - ROCE_ICRC_LEN);
    uint8_t *p = ip + iplen - ROCE_ICRC_LEN;

    p[0] = icrc;
    p[1] = icrc >> 8;
    p[2] = icrc >> 16;
    p[3] = icrc >> 24;
    if ((ip[0] >> 4) == 6) {
        /* IPv6 requires the UDP checksum (RFC 8200 8.1). */
        uint8_t *udp = ip + IP6_HLEN;
        uint32_t udplen = iplen - IP6_HLEN;
        uint32_t sum = roce_csum_add(0, ip + 8, 32);
        uint16_t c;

        sum += udplen + IPPROTO_UDP_NUM;
        sum = roce_csum_add(sum, udp, udplen);
        c = roce_csum_fold(sum);
        roce_put_be16(udp + 6, c ? c : 0xffff);
    }
    e->stats.tx_packets++;
    e->ops->tx(e->opaque, qp, e->frame, e->frame_len);
}

/* ---- parsing ---- */

int roce_parse(RoceEngine *e, const uint8_t *f, size_t len, RocePkt *pkt)
{
    size_t off = 12, iplen, avail, udplen, hl;
    const uint8_t *ip, *udp, *b, *end;
    uint16_t etype;
    uint32_t icrc, flags;

    memset(pkt, 0, sizeof(*pkt));
    if (len < ETH_HLEN) {
        return -1;
    }
    memcpy(pkt->smac, f + 6, 6);
    etype = roce_get_be16(f + off);
    if (etype == ETH_P_8021Q) {
        if (len < ETH_HLEN + 4) {
            return -1;
        }
        pkt->vlan_valid = true;
        pkt->vlan = roce_get_be16(f + off + 2);
        off += 4;
        etype = roce_get_be16(f + off);
    }
    off += 2;
    ip = f + off;
    avail = len - off;
    if (etype == ETH_P_IP) {
        if (avail < IP4_HLEN || ip[0] != 0x45 || ip[9] != IPPROTO_UDP_NUM ||
            (roce_get_be16(ip + 6) & 0x3fff) != 0 ||
            roce_csum_fold(roce_csum_add(0, ip, IP4_HLEN)) != 0) {
            return -1;
        }
        iplen = IP4_HLEN;
        avail = roce_get_be16(ip + 2);
        if (avail > len - off || avail < IP4_HLEN) {
            return -1;
        }
        memcpy(pkt->sgid + 10, "\xff\xff", 2);
        memcpy(pkt->sgid + 12, ip + 12, 4);
        memcpy(pkt->dgid + 10, "\xff\xff", 2);
        memcpy(pkt->dgid + 12, ip + 16, 4);
    } else if (etype == ETH_P_IPV6) {
        if (avail < IP6_HLEN || (ip[0] >> 4) != 6 ||
            ip[6] != IPPROTO_UDP_NUM) {
            return -1;
        }
        iplen = IP6_HLEN;
        avail = IP6_HLEN + (size_t)roce_get_be16(ip + 4);
        if (avail > len - off) {
            return -1;
        }
        pkt->ipv6 = true;
        memcpy(pkt->sgid, ip + 8, 16);
        memcpy(pkt->dgid, ip + 24, 16);
    } else {
        return -1;
    }
    pkt->ip = ip;
    pkt->iplen = iplen;

    /* avail: the IP packet's length, within the frame. */
    udp = ip + iplen;
    udplen = avail - iplen;
    if (udplen < UDP_HLEN + ROCE_BTH_LEN + ROCE_ICRC_LEN ||
        roce_get_be16(udp + 2) != ROCE_UDP_PORT ||
        roce_get_be16(udp + 4) != udplen) {
        return -1;
    }
    b = udp + UDP_HLEN;
    end = udp + udplen - ROCE_ICRC_LEN;

    pkt->opcode = b[0];
    flags = roce_opcode_flags(b[0]);
    if (!flags || (b[1] & 0x0f) != 0) {     /* TVer 0 */
        return -1;
    }
    pkt->flags = flags;
    pkt->se = b[1] & 0x80;
    pkt->pad = (b[1] >> 4) & 3;
    pkt->pkey = roce_get_be16(b + 2);
    pkt->dqpn = roce_get_be32(b + 4) & 0xffffff;
    pkt->ackreq = b[8] & 0x80;
    pkt->psn = roce_get_be32(b + 8) & ROCE_PSN_MASK;

    hl = roce_hdr_len(flags);
    if ((size_t)(end - b) < hl + pkt->pad) {
        return -1;
    }
    pkt->payload = b + hl;
    pkt->paylen = (uint32_t)((size_t)(end - b) - hl - pkt->pad);
    if (!(flags & ROCE_F_PAYLOAD) && (pkt->paylen || pkt->pad)) {
        return -1;
    }
    if (pkt->paylen > ROCE_MAX_MTU) {
        return -1;
    }

    icrc = (uint32_t)end[0] | (uint32_t)end[1] << 8 |
           (uint32_t)end[2] << 16 | (uint32_t)end[3] << 24;
    if (icrc != roce_icrc(ip, (size_t)(end - ip))) {
        e->stats.rx_bad_icrc++;
        return -1;
    }

    b += ROCE_BTH_LEN;
    if (flags & ROCE_F_DETH) {
        pkt->qkey = roce_get_be32(b);
        pkt->sqpn = roce_get_be32(b + 4) & 0xffffff;
        b += ROCE_DETH_LEN;
    }
    if (flags & ROCE_F_XRCETH) {
        pkt->xrc_srqn = roce_get_be32(b) & 0xffffff;
        b += ROCE_XRCETH_LEN;
    }
    if (flags & ROCE_F_RETH) {
        pkt->va = roce_get_be64(b);
        pkt->rkey = roce_get_be32(b + 8);
        pkt->dma_len = roce_get_be32(b + 12);
        b += ROCE_RETH_LEN;
    }
    if (flags & ROCE_F_AETH) {
        pkt->syn = b[0];
        pkt->msn = roce_get_be32(b) & ROCE_MSN_MASK;
        b += ROCE_AETH_LEN;
    }
    if (flags & ROCE_F_ATMETH) {
        pkt->va = roce_get_be64(b);
        pkt->rkey = roce_get_be32(b + 8);
        pkt->swap_add = roce_get_be64(b + 12);
        pkt->compare = roce_get_be64(b + 20);
        b += ROCE_ATMETH_LEN;
    }
    if (flags & ROCE_F_ATMACK) {
        pkt->orig = roce_get_be64(b);
        b += ROCE_ATMACK_LEN;
    }
    if (flags & ROCE_F_IMM) {
        pkt->imm = roce_get_be32(b);
        b += ROCE_IMM_LEN;
    }
    if (flags & ROCE_F_IETH) {
        pkt->ieth_rkey = roce_get_be32(b);
    }
    return 0;
}

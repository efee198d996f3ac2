/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: what the device reads of an Ethernet frame, for
 * both directions.  Transmit computes the checksums the driver asks for
 * and cuts large sends into segments; receive matches the frame against
 * the flow tables and reports its checksum in the CQE.
 *
 * A frame is parsed as far as the device needs: up to two VLAN tags,
 * IPv4 (with options) or IPv6 (the fixed header only: an extension
 * header's number is the protocol), then TCP or UDP.  Every offset is
 * checked against the frame's length, which the guest chose.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "net/checksum.h"
#include "net/eth.h"
#include "mlx5.h"

void mlx5_pkt_parse(const uint8_t *f, size_t len, MLX5Pkt *p)
{
    size_t off = 12;
    int tags;

    memset(p, 0, sizeof(*p));
    if (len < ETH_HLEN) {
        return;
    }
    p->ethertype = lduw_be_p(f + off);
    for (tags = 0; tags < 2 && off + 8 <= len &&
         (p->ethertype == ETH_P_VLAN || p->ethertype == ETH_P_DVLAN);
         tags++) {
        if (!tags) {
            p->cvlan = p->ethertype == ETH_P_VLAN;
            p->svlan = p->ethertype == ETH_P_DVLAN;
            p->tci = lduw_be_p(f + off + 2);
        }
        off += 4;
        p->ethertype = lduw_be_p(f + off);
    }
    off += 2;
    p->l3 = off;
    if (p->ethertype == ETH_P_IP && off + 20 <= len &&
        f[off] >> 4 == 4 && (f[off] & 0xf) >= 5 &&
        off + (f[off] & 0xf) * 4 <= len) {
        p->ip_version = 4;
        p->proto = f[off + 9];
        p->frag = lduw_be_p(f + off + 6) & 0x3fff;
        p->ip_end = MIN(len, off + lduw_be_p(f + off + 2));
        off += (f[off] & 0xf) * 4;
        if (lduw_be_p(f + p->l3 + 6) & 0x1fff) {
            return;     /* not the first fragment: no L4 header */
        }
    } else if (p->ethertype == ETH_P_IPV6 && off + 40 <= len &&
               f[off] >> 4 == 6) {
        p->ip_version = 6;
        p->proto = f[off + 6];
        p->frag = p->proto == IP6_FRAGMENT;
        p->ip_end = MIN(len, off + 40 + lduw_be_p(f + off + 4));
        off += 40;
    } else {
        return;
    }
    if ((p->proto == IP_PROTO_TCP && off + 20 <= p->ip_end &&
         off + (f[off + 12] >> 4) * 4 <= p->ip_end &&
         f[off + 12] >> 4 >= 5) ||
        (p->proto == IP_PROTO_UDP && off + 8 <= p->ip_end)) {
        p->l4 = off;
        p->l4_hlen = p->proto == IP_PROTO_TCP ? (f[off + 12] >> 4) * 4 : 8;
    }
}

/* The sum of the pseudo-header and the L4 bytes, its field zeroed. */
static uint16_t pkt_l4_csum(uint8_t *f, const MLX5Pkt *p, size_t field)
{
    size_t l4len = p->ip_end - p->l4;
    uint32_t sum;
    uint8_t ph[4];

    stw_be_p(f + field, 0);
    if (p->ip_version == 4) {
        sum = net_checksum_add(8, f + p->l3 + 12);
    } else {
        sum = net_checksum_add(32, f + p->l3 + 8);
    }
    stw_be_p(ph, p->proto);
    stw_be_p(ph + 2, l4len);
    sum += net_checksum_add(4, ph);
    sum += net_checksum_add(l4len, f + p->l4);
    return net_checksum_finish_nozero(sum);
}

void mlx5_pkt_csum(uint8_t *f, const MLX5Pkt *p, bool l3, bool l4)
{
    size_t field;

    if (l3 && p->ip_version == 4) {
        size_t ihl = (f[p->l3] & 0xf) * 4;

        stw_be_p(f + p->l3 + 10, 0);
        stw_be_p(f + p->l3 + 10, net_raw_checksum(f + p->l3, ihl));
    }
    if (!l4 || !p->l4) {
        return;
    }
    field = p->l4 + (p->proto == IP_PROTO_TCP ? 16 : 6);
    stw_be_p(f + field, pkt_l4_csum(f, p, field));
}

uint16_t mlx5_pkt_rx_sum(const uint8_t *f, size_t len, const MLX5Pkt *p)
{
    uint32_t sum;

    if (!p->ip_version) {
        return 0;
    }
    /* The ones' complement sum, folded, not inverted: from L3 on. */
    sum = net_checksum_add(len - p->l3, (uint8_t *)f + p->l3);
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the PE's statistics.
 *
 *  - MANAGE_STATS allocates and frees statistics instances (the
 *    completion returns the instance; 0 stays the function's own).
 *  - GATHER_STATS writes the counters to the 1 KiB buffer the WQE names,
 *    in the layout gen 2 irdma reads: 32-bit counters that wrap at 2^32,
 *    64-bit ones at 2^48.
 *  - The counters are the function's (every instance reads the same,
 *    the model has one function): every RoCEv2 frame the PE sends or
 *    receives (from the wire or looped back), its IP octets and packets
 *    by family, multicast among them, UDP packets, and the requests it
 *    carries: RDMA READ requests, RDMA WRITE and SEND messages (each
 *    counted once, at its first or only packet), of any transport.  What
 *    the model cannot see stays 0: TCP (RoCE only), fragments, truncated
 *    or discarded IP, routes, VLAN errors, ECN and CNPs, memory window
 *    binds and invalidations.
 *  - A PF reset clears them.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/bitmap.h"
#include "net/eth.h"
#include "e810.h"
#include "e810-pe.h"

#define E810_STATS_ALLOC        BIT_ULL(62)
#define E810_STATS_INST(h)      extract64(h, 0, 7)
#define E810_GATHER_STATS_SIZE  1024

/* Byte offsets of the gather buffer's 64-bit counters. */
enum {
    GS_IP4RXOCTS = 8, GS_IP4RXPKTS = 16, GS_IP4RXMCOCTS = 40,
    GS_IP4RXMCPKTS = 48, GS_IP6RXOCTS = 56, GS_IP6RXPKTS = 64,
    GS_IP6RXMCOCTS = 88, GS_IP6RXMCPKTS = 96, GS_IP4TXOCTS = 104,
    GS_IP4TXPKTS = 112, GS_IP4TXMCOCTS = 128, GS_IP4TXMCPKTS = 136,
    GS_IP6TXOCTS = 144, GS_IP6TXPKTS = 152, GS_IP6TXMCOCTS = 168,
    GS_IP6TXMCPKTS = 176, GS_UDPRXPKTS = 224, GS_UDPTXPKTS = 232,
    GS_RDMARXWRS = 240, GS_RDMARXRDS = 248, GS_RDMARXSNDS = 256,
    GS_RDMATXWRS = 264, GS_RDMATXRDS = 272, GS_RDMATXSNDS = 280,
};
#define GS_48_BITS              MAKE_64BIT_MASK(0, 48)

/* BTH opcodes, within any transport (the low five bits). */
#define BTH_SEND_FIRST          0x00
#define BTH_SEND_ONLY           0x04
#define BTH_SEND_ONLY_IMM       0x05
#define BTH_WRITE_FIRST         0x06
#define BTH_WRITE_ONLY          0x0a
#define BTH_WRITE_ONLY_IMM      0x0b
#define BTH_READ_REQUEST        0x0c
#define BTH_SEND_ONLY_INV       0x17
#define BTH_OP(op)              ((op) & 0x1f)
#define BTH_CNP                 0x81

static uint32_t e810_pe_manage_stats(E810State *s, E810Pe *pe,
                                     const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe);
    unsigned long idx;

    if (!(hdr & E810_STATS_ALLOC)) {
        clear_bit(E810_STATS_INST(hdr), pe->stats_inst);
        return 0;
    }
    idx = find_next_zero_bit(pe->stats_inst, E810_PE_STATS_INST, 1);
    if (idx >= E810_PE_STATS_INST) {
        return E810_PE_ERR_NOMEM;
    }
    set_bit(idx, pe->stats_inst);
    *ret = idx;
    return 0;
}

static void gs_put(uint8_t *buf, unsigned int off, uint64_t v)
{
    stq_le_p(buf + off, v & GS_48_BITS);
}

static uint32_t e810_pe_gather_stats(E810State *s, E810Pe *pe,
                                     const uint8_t *wqe, uint32_t *ret)
{
    g_autofree uint8_t *buf = g_malloc0(E810_GATHER_STATS_SIZE);
    const E810PeStats *st = &pe->stats;

    gs_put(buf, GS_IP4RXOCTS, st->ip[0].rx_octets);
    gs_put(buf, GS_IP4RXPKTS, st->ip[0].rx_pkts);
    gs_put(buf, GS_IP4RXMCOCTS, st->ip[0].rx_mc_octets);
    gs_put(buf, GS_IP4RXMCPKTS, st->ip[0].rx_mc_pkts);
    gs_put(buf, GS_IP4TXOCTS, st->ip[0].tx_octets);
    gs_put(buf, GS_IP4TXPKTS, st->ip[0].tx_pkts);
    gs_put(buf, GS_IP4TXMCOCTS, st->ip[0].tx_mc_octets);
    gs_put(buf, GS_IP4TXMCPKTS, st->ip[0].tx_mc_pkts);
    gs_put(buf, GS_IP6RXOCTS, st->ip[1].rx_octets);
    gs_put(buf, GS_IP6RXPKTS, st->ip[1].rx_pkts);
    gs_put(buf, GS_IP6RXMCOCTS, st->ip[1].rx_mc_octets);
    gs_put(buf, GS_IP6RXMCPKTS, st->ip[1].rx_mc_pkts);
    gs_put(buf, GS_IP6TXOCTS, st->ip[1].tx_octets);
    gs_put(buf, GS_IP6TXPKTS, st->ip[1].tx_pkts);
    gs_put(buf, GS_IP6TXMCOCTS, st->ip[1].tx_mc_octets);
    gs_put(buf, GS_IP6TXMCPKTS, st->ip[1].tx_mc_pkts);
    gs_put(buf, GS_UDPRXPKTS, st->udp_rx_pkts);
    gs_put(buf, GS_UDPTXPKTS, st->udp_tx_pkts);
    gs_put(buf, GS_RDMARXWRS, st->rx_writes);
    gs_put(buf, GS_RDMARXRDS, st->rx_reads);
    gs_put(buf, GS_RDMARXSNDS, st->rx_sends);
    gs_put(buf, GS_RDMATXWRS, st->tx_writes);
    gs_put(buf, GS_RDMATXRDS, st->tx_reads);
    gs_put(buf, GS_RDMATXSNDS, st->tx_sends);
    if (!e810_dma_write(s, e810_wqe_q(wqe, 4), buf, E810_GATHER_STATS_SIZE)) {
        return E810_PE_ERR_DMA;
    }
    return 0;
}

/* The request a BTH opcode starts, counted once a message. */
static void e810_pe_stats_request(E810PeStats *st, uint8_t op, bool tx)
{
    uint64_t *sends = tx ? &st->tx_sends : &st->rx_sends;
    uint64_t *writes = tx ? &st->tx_writes : &st->rx_writes;
    uint64_t *reads = tx ? &st->tx_reads : &st->rx_reads;

    if (op == BTH_CNP) {
        return;
    }
    switch (BTH_OP(op)) {
    case BTH_SEND_FIRST:
    case BTH_SEND_ONLY:
    case BTH_SEND_ONLY_IMM:
    case BTH_SEND_ONLY_INV:
        (*sends)++;
        break;
    case BTH_WRITE_FIRST:
    case BTH_WRITE_ONLY:
    case BTH_WRITE_ONLY_IMM:
        (*writes)++;
        break;
    case BTH_READ_REQUEST:
        (*reads)++;
        break;
    }
}

void e810_pe_stats_frame(E810Pe *pe, const uint8_t *f, size_t len, bool tx)
{
    E810PeStats *st = &pe->stats;
    E810PeIpStats *ip;
    size_t l3 = ETH_HLEN, l4;
    uint32_t octets;
    uint16_t type;
    bool mc;

    if (len < ETH_HLEN) {
        return;
    }
    mc = f[0] & 1;
    type = lduw_be_p(f + 12);
    if (type == ETH_P_VLAN) {
        if (len < ETH_HLEN + 4) {
            return;
        }
        type = lduw_be_p(f + 16);
        l3 += 4;
    }
    if (type == ETH_P_IP && len >= l3 + 20) {
        ip = &st->ip[0];
        octets = lduw_be_p(f + l3 + 2);
        l4 = l3 + (f[l3] & 0xf) * 4;
    } else if (type == ETH_P_IPV6 && len >= l3 + 40) {
        ip = &st->ip[1];
        octets = 40 + lduw_be_p(f + l3 + 4);
        l4 = l3 + 40;
    } else {
        return;
    }
    if (tx) {
        ip->tx_pkts++;
        ip->tx_octets += octets;
        ip->tx_mc_pkts += mc;
        ip->tx_mc_octets += mc ? octets : 0;
        st->udp_tx_pkts++;
    } else {
        ip->rx_pkts++;
        ip->rx_octets += octets;
        ip->rx_mc_pkts += mc;
        ip->rx_mc_octets += mc ? octets : 0;
        st->udp_rx_pkts++;
    }
    /* The BTH follows the UDP header. */
    if (len >= l4 + 8 + 1) {
        e810_pe_stats_request(st, f[l4 + 8], tx);
    }
}

void e810_pe_stats_reset(E810Pe *pe)
{
    bitmap_zero(pe->stats_inst, E810_PE_STATS_INST);
    memset(&pe->stats, 0, sizeof(pe->stats));
}

const E810PeOp e810_pe_stats_ops[] = {
    { E810_CQP_MANAGE_STATS, "manage_stats", e810_pe_manage_stats },
    { E810_CQP_GATHER_STATS, "gather_stats", e810_pe_gather_stats },
    { 0, NULL, NULL }
};

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: Ethernet transmit, one SEND or LSO WQE at a time.
 *
 * After the control segment comes the Ethernet segment: checksum flags
 * (bit 6 the IPv4 header's, bit 7 TCP's or UDP's), the MSS of an LSO,
 * and the frame's first bytes inline (the driver always inlines at
 * least the L2 header) or, with bit 15 of the size, a VLAN tag to
 * insert.  Data segments follow (byte count, memory key, address), or
 * inline data segments (bit 31 of the count).  The frame is gathered
 * into a host buffer of bounded size through the driver's memory key
 * (mlx5_mkey_dma(): the SQ's PD, local read); the checksums are
 * computed, an LSO cut into segments of MSS bytes with their headers
 * fixed up, and each frame goes to the netdev backend and to local
 * loopback (mlx5_rx_loopback(), with the transport domain of the SQ's
 * TIS).
 *
 * Errors are the PRM's CQE syndromes: a segment past the WQE or a frame
 * too large, local length; a key that does not cover the buffer, is
 * another PD's or does not grant local read, or a buffer that is not
 * guest memory, local protection.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "sysemu/dma.h"
#include "net/net.h"
#include "net/eth.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define TX_WQE_MAX          (63 * 16)           /* ds is 6 bits */
#define TX_FRAME_MAX        (64 * KiB + 1024)   /* max_lso_cap 16 */
#define ETH_SEG             16
#define ETH_CS_L3           BIT(6)
#define ETH_CS_L4           BIT(7)
#define ETH_INSERT_VLAN     0x8000
#define DSEG_INLINE         BIT(31)
#define OP_LSO              0x0e

/*
 * A frame to the wire, and back into receive steering when local
 * loopback takes it (mlx5-rx.c); @td: the sending SQ's transport domain.
 */
static void tx_send(MLX5State *s, const uint8_t *f, size_t len, uint32_t td)
{
    if (s->nic) {
        mlx5_stats_count(s, MLX5_TX, f, len);
        qemu_send_packet(qemu_get_queue(s->nic), f, len);
    }
    mlx5_rx_loopback(s, f, len, td);
}

/* An LSO: segments of mss bytes of the TCP or UDP payload. */
static int tx_lso(MLX5State *s, uint8_t *f, size_t len, unsigned int mss,
                  uint32_t td)
{
    g_autofree uint8_t *seg = NULL;
    MLX5Pkt p;
    size_t hl, off, n;
    uint32_t seq = 0;
    uint16_t id = 0;
    unsigned int i;

    mlx5_pkt_parse(f, len, &p);
    if (!p.l4 || !mss || p.frag) {
        return MLX5_CQE_SYND_LOCAL_QP_OP;
    }
    hl = p.l4 + p.l4_hlen;
    if (p.proto == IP_PROTO_TCP) {
        seq = ldl_be_p(f + p.l4 + 4);
    }
    if (p.ip_version == 4) {
        id = lduw_be_p(f + p.l3 + 4);
    }
    seg = g_malloc(hl + mss);
    for (off = hl, i = 0; off < len || i == 0; off += n, i++) {
        MLX5Pkt sp;

        n = MIN(mss, len - off);
        memcpy(seg, f, hl);
        memcpy(seg + hl, f + off, n);
        if (p.ip_version == 4) {
            stw_be_p(seg + p.l3 + 2, hl + n - p.l3);
            stw_be_p(seg + p.l3 + 4, id + i);
        } else {
            stw_be_p(seg + p.l3 + 4, hl + n - p.l3 - 40);
        }
        if (p.proto == IP_PROTO_TCP) {
            stl_be_p(seg + p.l4 + 4, seq + (off - hl));
            if (off + n < len) {
                seg[p.l4 + 13] &= ~0x09;        /* FIN, PSH: the last */
            }
            if (i) {
                seg[p.l4 + 13] &= ~0x80;        /* CWR: the first */
            }
        } else {
            stw_be_p(seg + p.l4 + 4, hl + n - p.l4);
        }
        mlx5_pkt_parse(seg, hl + n, &sp);
        mlx5_pkt_csum(seg, &sp, true, true);
        tx_send(s, seg, hl + n, td);
    }
    return 0;
}

int mlx5_tx_wqe(MLX5State *s, MLX5WQ *wq, uint16_t idx, unsigned int op,
                unsigned int ds)
{
    g_autofree uint8_t *f = g_malloc(TX_FRAME_MAX);
    uint8_t wqe[TX_WQE_MAX];
    size_t wlen = ds * 16, off, len = 0;
    unsigned int b, cs, mss, ihs;
    MLX5Obj *tis = mlx5_obj_get(s, MLX5_OBJ_TIS, wq->tisn);
    uint32_t td = tis ? MLX5_GET(tisc, tis->ctx, transport_domain) : 0;
    MLX5Pkt p;

    /* The WQE, basic block by basic block: the ring may wrap. */
    for (b = 0; b * 64 < wlen; b++) {
        if (pci_dma_read(PCI_DEVICE(s), mlx5_wq_addr(wq, idx + b, 0),
                         wqe + b * 64, MIN(64, wlen - b * 64)) != MEMTX_OK) {
            return MLX5_CQE_SYND_LOCAL_QP_OP;
        }
    }
    if (wlen < 16 + ETH_SEG) {
        return MLX5_CQE_SYND_LOCAL_LENGTH;
    }
    cs = wqe[16 + 4];
    mss = lduw_be_p(wqe + 16 + 6);
    ihs = lduw_be_p(wqe + 16 + 12);
    off = 16 + ETH_SEG;
    if (ihs & ETH_INSERT_VLAN) {
        ihs = 0;
    } else if (ihs) {
        /* Inline headers: from the segment's last 2 bytes on. */
        if (ihs > 2) {
            off += ROUND_UP(ihs - 2, 16);
        }
        if (off > wlen) {
            return MLX5_CQE_SYND_LOCAL_LENGTH;
        }
        memcpy(f, wqe + 16 + 14, ihs);
        len = ihs;
    }
    for (; off + 16 <= wlen; off += 16) {
        uint32_t bc = ldl_be_p(wqe + off);
        uint32_t lkey = ldl_be_p(wqe + off + 4);
        uint64_t addr = ldq_be_p(wqe + off + 8);

        if (bc & DSEG_INLINE) {
            bc &= 0x3ff;
            if (off + 4 + bc > wlen || len + bc > TX_FRAME_MAX) {
                return MLX5_CQE_SYND_LOCAL_LENGTH;
            }
            memcpy(f + len, wqe + off + 4, bc);
            len += bc;
            off += ROUND_UP(4 + bc, 16) - 16;
            continue;
        }
        if (!bc || bc > TX_FRAME_MAX - len) {
            return MLX5_CQE_SYND_LOCAL_LENGTH;
        }
        if (mlx5_mkey_dma(s, wq->pd, lkey, MLX5_MKEY_LR, addr, f + len, bc,
                          DMA_DIRECTION_TO_DEVICE)) {
            return MLX5_CQE_SYND_LOCAL_PROT;
        }
        len += bc;
    }
    if (!ihs && lduw_be_p(wqe + 16 + 12) & ETH_INSERT_VLAN) {
        if (len < 12 || len + 4 > TX_FRAME_MAX) {
            return MLX5_CQE_SYND_LOCAL_LENGTH;
        }
        memmove(f + 16, f + 12, len - 12);
        stw_be_p(f + 12, ETH_P_VLAN);
        memcpy(f + 14, wqe + 16 + 14, 2);
        len += 4;
    }
    trace_mlx5_tx(wq - s->wqs[MLX5_WQ_SQ] + 1, idx, len, cs, mss);
    if (len < ETH_HLEN) {
        return MLX5_CQE_SYND_LOCAL_LENGTH;
    }
    if (op == OP_LSO) {
        return tx_lso(s, f, len, mss, td);
    }
    mlx5_pkt_parse(f, len, &p);
    mlx5_pkt_csum(f, &p, cs & ETH_CS_L3, cs & ETH_CS_L4);
    tx_send(s, f, len, td);
    return 0;
}

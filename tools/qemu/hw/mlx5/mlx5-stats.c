/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the port's traffic counters.
 *
 * Every frame that crosses the model's wire is counted once, by
 * direction and by destination class (unicast, multicast, broadcast):
 * what mlx5_core's netdev sends (mlx5-tx.c), what the RoCE engine puts
 * on the wire (mlx5-roce.c; its loopback frames stay inside the device
 * and are not), and every frame the wire brings, steered or dropped.
 * The driver reads them through PPCNT (mlx5-reg.c: the IEEE 802.3,
 * RFC 2863 and RFC 2819 groups; other groups read as zeros) and
 * QUERY_VPORT_COUNTER, which `ethtool -S` shows as *_phy and *_vport
 * counters.  Both views count the same frames (the function is the
 * port's only vport, and the model counts a frame no steering entry
 * takes too), and each has its own clear-on-read (PPCNT's `clr',
 * QUERY_VPORT_COUNTER's `clear').  Errors and discards stay zero: the
 * model's wire has no bad frames.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "net/eth.h"
#include "mlx5.h"
#include "mlx5-ifc.h"

/* PPCNT groups (PRM "Ethernet Counter Groups"). */
#define GRP_IEEE_802_3          0x0
#define GRP_RFC_2863            0x1
#define GRP_RFC_2819            0x2

static unsigned int frame_class(const uint8_t *frame)
{
    if (is_broadcast_ether_addr(frame)) {
        return MLX5_FRAME_BCAST;
    }
    return is_multicast_ether_addr(frame) ? MLX5_FRAME_MCAST :
                                            MLX5_FRAME_UCAST;
}

void mlx5_stats_count(MLX5State *s, int dir, const uint8_t *frame,
                      size_t len)
{
    unsigned int class;

    if (len < ETH_HLEN) {
        return;
    }
    class = frame_class(frame);
    s->port_counters[dir].frames[class]++;
    s->port_counters[dir].octets[class] += len;
    s->vport_counters[dir].frames[class]++;
    s->vport_counters[dir].octets[class] += len;
}

static uint64_t total(const uint64_t *per_class)
{
    return per_class[MLX5_FRAME_UCAST] + per_class[MLX5_FRAME_MCAST] +
           per_class[MLX5_FRAME_BCAST];
}

/* The high and low dwords of a 64-bit PRM counter named NAME. */
#define SET_HL(typ, p, name, v) do { \
        MLX5_SET(typ, p, name##_high, (uint64_t)(v) >> 32); \
        MLX5_SET(typ, p, name##_low, (uint32_t)(v)); \
    } while (0)
#define SET_8023(name, v) SET_HL(eth_802_3_cntrs_grp_data_layout, set, name, v)
#define SET_2863(name, v) SET_HL(eth_2863_cntrs_grp_data_layout, set, name, v)
#define SET_2819(name, v) SET_HL(eth_2819_cntrs_grp_data_layout, set, name, v)

static void grp_802_3(MLX5State *s, uint8_t *set)
{
    const MLX5PortCounters *rx = &s->port_counters[MLX5_RX];
    const MLX5PortCounters *tx = &s->port_counters[MLX5_TX];

    SET_8023(a_frames_transmitted_ok, total(tx->frames));
    SET_8023(a_frames_received_ok, total(rx->frames));
    SET_8023(a_octets_transmitted_ok, total(tx->octets));
    SET_8023(a_octets_received_ok, total(rx->octets));
    SET_8023(a_multicast_frames_xmitted_ok, tx->frames[MLX5_FRAME_MCAST]);
    SET_8023(a_broadcast_frames_xmitted_ok, tx->frames[MLX5_FRAME_BCAST]);
    SET_8023(a_multicast_frames_received_ok, rx->frames[MLX5_FRAME_MCAST]);
    SET_8023(a_broadcast_frames_received_ok, rx->frames[MLX5_FRAME_BCAST]);
}

static void grp_2863(MLX5State *s, uint8_t *set)
{
    const MLX5PortCounters *rx = &s->port_counters[MLX5_RX];
    const MLX5PortCounters *tx = &s->port_counters[MLX5_TX];

    SET_2863(if_in_octets, total(rx->octets));
    SET_2863(if_in_ucast_pkts, rx->frames[MLX5_FRAME_UCAST]);
    SET_2863(if_in_multicast_pkts, rx->frames[MLX5_FRAME_MCAST]);
    SET_2863(if_in_broadcast_pkts, rx->frames[MLX5_FRAME_BCAST]);
    SET_2863(if_out_octets, total(tx->octets));
    SET_2863(if_out_ucast_pkts, tx->frames[MLX5_FRAME_UCAST]);
    SET_2863(if_out_multicast_pkts, tx->frames[MLX5_FRAME_MCAST]);
    SET_2863(if_out_broadcast_pkts, tx->frames[MLX5_FRAME_BCAST]);
}

/* RFC 2819 (RMON) counts what the port receives. */
static void grp_2819(MLX5State *s, uint8_t *set)
{
    const MLX5PortCounters *rx = &s->port_counters[MLX5_RX];

    SET_2819(ether_stats_octets, total(rx->octets));
    SET_2819(ether_stats_pkts, total(rx->frames));
    SET_2819(ether_stats_broadcast_pkts, rx->frames[MLX5_FRAME_BCAST]);
    SET_2819(ether_stats_multicast_pkts, rx->frames[MLX5_FRAME_MCAST]);
}

void mlx5_stats_ppcnt(MLX5State *s, unsigned int grp, bool clear,
                      uint8_t *set)
{
    switch (grp) {
    case GRP_IEEE_802_3:
        grp_802_3(s, set);
        break;
    case GRP_RFC_2863:
        grp_2863(s, set);
        break;
    case GRP_RFC_2819:
        grp_2819(s, set);
        break;
    default:
        return;
    }
    if (clear) {
        memset(s->port_counters, 0, sizeof(s->port_counters));
    }
}

void mlx5_stats_vport(MLX5State *s, bool clear, uint8_t *out)
{
    static const struct {
        int dir, class;
        size_t off;     /* of the traffic_counter, in bits */
    } map[] = {
#define M(dir, class, fld) \
        { dir, class, MLX5_BIT_OFF(query_vport_counter_out, fld) }
        M(MLX5_RX, MLX5_FRAME_UCAST, received_eth_unicast),
        M(MLX5_RX, MLX5_FRAME_MCAST, received_eth_multicast),
        M(MLX5_RX, MLX5_FRAME_BCAST, received_eth_broadcast),
        M(MLX5_TX, MLX5_FRAME_UCAST, transmitted_eth_unicast),
        M(MLX5_TX, MLX5_FRAME_MCAST, transmitted_eth_multicast),
        M(MLX5_TX, MLX5_FRAME_BCAST, transmitted_eth_broadcast),
#undef M
    };
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(map); i++) {
        const MLX5PortCounters *c = &s->vport_counters[map[i].dir];
        uint8_t *tc = out + map[i].off / 8;

        MLX5_SET64(traffic_counter, tc, packets, c->frames[map[i].class]);
        MLX5_SET64(traffic_counter, tc, octets, c->octets[map[i].class]);
    }
    if (clear) {
        memset(s->vport_counters, 0, sizeof(s->vport_counters));
    }
}

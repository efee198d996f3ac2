/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the NIC vport (the function's own; there are no
 * others) and the port's link.
 *
 * The NIC vport context holds the MAC address (the device's `mac'
 * property), the MTU, RoCE enable, the promiscuous flags and the
 * GUIDs (EUI-64 from the MAC).  Its state is the link's: up while the
 * port's administrative status (PAOS, mlx5-reg.c) is up, as a cable
 * always plugged in would have it; every change posts a port change
 * event, on which the driver queries the state again.  The vport's
 * counters are the port's (mlx5-stats.c); Q counters read as zeros.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define EVENT_PORT_CHANGE       0x09
#define PORT_CHANGE_DOWN        1
#define PORT_CHANGE_ACTIVE      4
#define VPORT_STATE_DOWN        0
#define VPORT_STATE_UP          1
#define VPORT_ADMIN_AUTO        2
#define NIC_MAX_MTU             (9216 + 22)

void mlx5_vport_reset(MLX5State *s)
{
    s->port_admin_up = false;
    /* Global pause on, as a ConnectX port comes out of reset. */
    s->pause_tx = true;
    s->pause_rx = true;
    s->port_mtu = 1500 + 22;
    s->vport_mtu = 1500 + 22;
    s->vport_roce_en = false;
    s->vport_promisc = 0;
    bitmap_zero(s->q_counters, MLX5_MAX_Q_COUNTERS);
}

void mlx5_vport_set_link(MLX5State *s, bool up)
{
    uint8_t data[28] = { 0 };

    if (s->port_admin_up == up) {
        return;
    }
    s->port_admin_up = up;
    trace_mlx5_link(up);
    /* port number in bits 7:4 of the data's ninth byte */
    data[8] = 1 << 4;
    mlx5_eq_event(s, EVENT_PORT_CHANGE,
                  up ? PORT_CHANGE_ACTIVE : PORT_CHANGE_DOWN, data);
}

static uint64_t vport_guid(MLX5State *s)
{
    const uint8_t *m = s->conf.macaddr.a;

    /* EUI-64 of the MAC, universal/local bit flipped. */
    return (uint64_t)(m[0] ^ 2) << 56 | (uint64_t)m[1] << 48 |
           (uint64_t)m[2] << 40 | 0xfffeULL << 24 |
           (uint64_t)m[3] << 16 | m[4] << 8 | m[5];
}

static bool vport_own(const uint8_t *in, size_t off_other, size_t off_num)
{
    return !mlx5_get_bits(in, off_other, 1) && !mlx5_get_bits(in, off_num, 16);
}

int mlx5_cmd_query_nic_vport_context(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, query_nic_vport_context);
    const uint8_t *m = s->conf.macaddr.a;
    uint8_t *ctx;

    if (st) {
        return st;
    }
    if (!vport_own(cmd->in,
                   MLX5_BIT_OFF(query_nic_vport_context_in, other_vport),
                   MLX5_BIT_OFF(query_nic_vport_context_in, vport_number))) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    ctx = MLX5_ADDR_OF(query_nic_vport_context_out, cmd->out,
                       nic_vport_context);
    MLX5_SET(nic_vport_context, ctx, roce_en, s->vport_roce_en);
    MLX5_SET(nic_vport_context, ctx, mtu, s->vport_mtu);
    MLX5_SET64(nic_vport_context, ctx, system_image_guid, vport_guid(s));
    MLX5_SET64(nic_vport_context, ctx, port_guid, vport_guid(s));
    MLX5_SET64(nic_vport_context, ctx, node_guid, vport_guid(s));
    MLX5_SET(nic_vport_context, ctx, promisc_uc, !!(s->vport_promisc & 4));
    MLX5_SET(nic_vport_context, ctx, promisc_mc, !!(s->vport_promisc & 2));
    MLX5_SET(nic_vport_context, ctx, promisc_all, !!(s->vport_promisc & 1));
    /* The list asked for, which the model keeps empty. */
    MLX5_SET(nic_vport_context, ctx, allowed_list_type,
             MLX5_GET(query_nic_vport_context_in, cmd->in, allowed_list_type));
    MLX5_SET(nic_vport_context, ctx, allowed_list_size, 0);
    ctx = MLX5_ADDR_OF(nic_vport_context, ctx, permanent_address);
    MLX5_SET(mac_address_layout, ctx, mac_addr_47_32, m[0] << 8 | m[1]);
    MLX5_SET(mac_address_layout, ctx, mac_addr_31_0,
             ldl_be_p(m + 2));
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_modify_nic_vport_context(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, modify_nic_vport_context);
    const uint8_t *sel, *ctx;
    uint32_t mtu;

    if (st) {
        return st;
    }
    if (!vport_own(cmd->in,
                   MLX5_BIT_OFF(modify_nic_vport_context_in, other_vport),
                   MLX5_BIT_OFF(modify_nic_vport_context_in, vport_number))) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    sel = MLX5_ADDR_OF(modify_nic_vport_context_in, cmd->in, field_select);
    ctx = MLX5_ADDR_OF(modify_nic_vport_context_in, cmd->in,
                       nic_vport_context);
    /* The GUIDs and the permanent address are the device's own. */
    if (MLX5_GET(modify_nic_vport_field_select, sel, node_guid) ||
        MLX5_GET(modify_nic_vport_field_select, sel, port_guid) ||
        MLX5_GET(modify_nic_vport_field_select, sel, permanent_address) ||
        MLX5_GET(modify_nic_vport_field_select, sel, affiliation)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    mtu = MLX5_GET(nic_vport_context, ctx, mtu);
    if (MLX5_GET(modify_nic_vport_field_select, sel, mtu) &&
        (mtu < 68 || mtu > NIC_MAX_MTU)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    if (MLX5_GET(modify_nic_vport_field_select, sel, addresses_list) &&
        MLX5_GET(nic_vport_context, ctx, allowed_list_size) >
        cmd->inlen / 8) {
        /* More addresses than the command holds. */
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
                             MLX5_SYND_IN_SHORT);
    }
    if (MLX5_GET(modify_nic_vport_field_select, sel, mtu)) {
        s->vport_mtu = mtu;
    }
    if (MLX5_GET(modify_nic_vport_field_select, sel, roce_en)) {
        s->vport_roce_en = MLX5_GET(nic_vport_context, ctx, roce_en);
    }
    if (MLX5_GET(modify_nic_vport_field_select, sel, promisc)) {
        s->vport_promisc = MLX5_GET(nic_vport_context, ctx, promisc_uc) << 2 |
                           MLX5_GET(nic_vport_context, ctx, promisc_mc) << 1 |
                           MLX5_GET(nic_vport_context, ctx, promisc_all);
    }
    /*
     * The address lists filter nothing in the model: the driver's own
     * L2 flow table does that.  Local loopback and events: accepted.
     */
    trace_mlx5_vport_modify(s->vport_mtu, s->vport_roce_en, s->vport_promisc);
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_query_vport_state(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, query_vport_state);

    if (st) {
        return st;
    }
    if (cmd->op_mod != MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT &&
        cmd->op_mod != MLX5_VPORT_STATE_OP_MOD_UPLINK) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_OP_MOD);
    }
    if (!vport_own(cmd->in, MLX5_BIT_OFF(query_vport_state_in, other_vport),
                   MLX5_BIT_OFF(query_vport_state_in, vport_number))) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    MLX5_SET(query_vport_state_out, cmd->out, admin_state, VPORT_ADMIN_AUTO);
    MLX5_SET(query_vport_state_out, cmd->out, state,
             s->port_admin_up ? VPORT_STATE_UP : VPORT_STATE_DOWN);
    return MLX5_CMD_STAT_OK;
}

/*
 * The port's P_Key table, which RoCE has too: 128 entries
 * (pkey_table_size 0), the default full-membership key at index 0 and
 * nothing else.  Index 0xffff asks for the whole table.
 */
#define VPORT_PKEYS             128
#define VPORT_PKEY_ALL          0xffff
#define VPORT_PKEY_DEFAULT      0xffff

int mlx5_cmd_query_hca_vport_pkey(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, query_hca_vport_pkey);
    size_t hdr = MLX5_ST_SZ_BYTES(query_hca_vport_pkey_out);
    size_t one = MLX5_ST_SZ_BYTES(pkey);
    unsigned int index, n, i;

    if (st) {
        return st;
    }
    index = MLX5_GET(query_hca_vport_pkey_in, cmd->in, pkey_index);
    if (MLX5_GET(query_hca_vport_pkey_in, cmd->in, other_vport) ||
        MLX5_GET(query_hca_vport_pkey_in, cmd->in, port_num) > 1 ||
        (index >= VPORT_PKEYS && index != VPORT_PKEY_ALL)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    n = index == VPORT_PKEY_ALL ? VPORT_PKEYS : 1;
    if (cmd->outlen < hdr + n * one) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
                             MLX5_SYND_OUT_SHORT);
    }
    for (i = 0; i < n; i++) {
        if (index == 0 || (n > 1 && i == 0)) {
            MLX5_SET(pkey, cmd->out + hdr + i * one, pkey,
                     VPORT_PKEY_DEFAULT);
        }
    }
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_query_vport_counter(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, query_vport_counter);

    if (st) {
        return st;
    }
    if (!vport_own(cmd->in, MLX5_BIT_OFF(query_vport_counter_in, other_vport),
                   MLX5_BIT_OFF(query_vport_counter_in, vport_number))) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    mlx5_stats_vport(s, MLX5_GET(query_vport_counter_in, cmd->in, clear),
                     cmd->out);
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_alloc_q_counter(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, alloc_q_counter);
    unsigned long i;

    if (st) {
        return st;
    }
    /* Counter set 0 is not handed out. */
    i = find_next_zero_bit(s->q_counters, MLX5_MAX_Q_COUNTERS, 1);
    if (i >= MLX5_MAX_Q_COUNTERS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    set_bit(i, s->q_counters);
    MLX5_SET(alloc_q_counter_out, cmd->out, counter_set_id, i);
    return MLX5_CMD_STAT_OK;
}

static int q_counter_check(MLX5State *s, MLX5Cmd *cmd, unsigned int id)
{
    if (!id || id >= MLX5_MAX_Q_COUNTERS || !test_bit(id, s->q_counters)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_dealloc_q_counter(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, dealloc_q_counter);
    unsigned int id;

    if (st) {
        return st;
    }
    id = MLX5_GET(dealloc_q_counter_in, cmd->in, counter_set_id);
    st = q_counter_check(s, cmd, id);
    if (!st) {
        clear_bit(id, s->q_counters);
    }
    return st;
}

int mlx5_cmd_query_q_counter(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, query_q_counter);

    if (st) {
        return st;
    }
    /* Zeros. */
    return q_counter_check(s, cmd,
                           MLX5_GET(query_q_counter_in, cmd->in,
                                    counter_set_id));
}

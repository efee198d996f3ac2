/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the RoCE address table (the port's GIDs).
 *
 * SET_ROCE_ADDRESS writes an entry: the GID, the source MAC, a VLAN,
 * the RoCE version and the L3 type of the address; the driver writes
 * one for each GID the RDMA core adds (the MAC's link-local address,
 * then the netdev's IPv4 and IPv6 addresses) and an all-zero one when
 * it deletes a GID.  QUERY_ROCE_ADDRESS reads an entry back.  A QP's
 * address path (and a UD WQE's address vector) names its source by
 * index here (src_addr_index); the RoCE front end (mlx5-roce.c) takes
 * the received RoCE v2 frames whose destination IP is an entry's.
 *
 * The model offers RoCE v2 alone (the roce_version capability), so a
 * v1 entry is refused; an index past the table is BAD_PARAM.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define ROCE_VERSION_2          2
#define ROCE_L3_IPV4            0
#define ROCE_L3_IPV6            1

const MLX5Gid *mlx5_gid_get(MLX5State *s, uint32_t index)
{
    if (index >= MLX5_GID_TABLE_SIZE || !s->gids[index].valid) {
        return NULL;
    }
    return &s->gids[index];
}

void mlx5_gid_reset(MLX5State *s)
{
    memset(s->gids, 0, sizeof(s->gids));
}

/* Port 1, the only one: 0 stands for it too (no vhca ports). */
static bool gid_port_ok(unsigned int port)
{
    return port <= 1;
}

static int cmd_set_roce_address(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, set_roce_address);
    const uint8_t *a = MLX5_ADDR_OF(set_roce_address_in, cmd->in,
                                    roce_address);
    const uint8_t *l3 = MLX5_ADDR_OF(roce_addr_layout, a, source_l3_address);
    uint32_t index;
    MLX5Gid g = { 0 };
    static const uint8_t zero[16];

    if (st) {
        return st;
    }
    index = MLX5_GET(set_roce_address_in, cmd->in, roce_address_index);
    if (index >= MLX5_GID_TABLE_SIZE ||
        !gid_port_ok(MLX5_GET(set_roce_address_in, cmd->in, vhca_port_num))) {
        return mlx5_cmd_bad_param(cmd);
    }
    memcpy(g.gid, l3, sizeof(g.gid));
    g.valid = memcmp(g.gid, zero, sizeof(g.gid)) != 0;
    if (g.valid) {
        g.version = MLX5_GET(roce_addr_layout, a, roce_version);
        g.l3_type = MLX5_GET(roce_addr_layout, a, roce_l3_type);
        g.vlan_valid = MLX5_GET(roce_addr_layout, a, vlan_valid);
        g.vlan_id = g.vlan_valid ? MLX5_GET(roce_addr_layout, a, vlan_id) : 0;
        stw_be_p(g.mac, MLX5_GET(roce_addr_layout, a, source_mac_47_32));
        stl_be_p(g.mac + 2, MLX5_GET(roce_addr_layout, a, source_mac_31_0));
        if (g.version != ROCE_VERSION_2 ||
            (g.l3_type != ROCE_L3_IPV4 && g.l3_type != ROCE_L3_IPV6)) {
            return mlx5_cmd_bad_param(cmd);
        }
    }
    trace_mlx5_gid_set(index, g.valid, g.version, g.l3_type, g.vlan_id);
    s->gids[index] = g;
    return MLX5_CMD_STAT_OK;
}

static int cmd_query_roce_address(MLX5State *s, MLX5Cmd *cmd)
{
    int st = MLX5_CMD_LEN(cmd, query_roce_address);
    uint8_t *a = MLX5_ADDR_OF(query_roce_address_out, cmd->out,
                              roce_address);
    uint32_t index;
    const MLX5Gid *g;

    if (st) {
        return st;
    }
    index = MLX5_GET(query_roce_address_in, cmd->in, roce_address_index);
    if (index >= MLX5_GID_TABLE_SIZE ||
        !gid_port_ok(MLX5_GET(query_roce_address_in, cmd->in,
                              vhca_port_num))) {
        return mlx5_cmd_bad_param(cmd);
    }
    g = &s->gids[index];
    /* An empty entry reads as zeros. */
    if (g->valid) {
        memcpy(MLX5_ADDR_OF(roce_addr_layout, a, source_l3_address), g->gid,
               sizeof(g->gid));
        MLX5_SET(roce_addr_layout, a, vlan_valid, g->vlan_valid);
        MLX5_SET(roce_addr_layout, a, vlan_id, g->vlan_id);
        MLX5_SET(roce_addr_layout, a, source_mac_47_32, lduw_be_p(g->mac));
        MLX5_SET(roce_addr_layout, a, source_mac_31_0, ldl_be_p(g->mac + 2));
        MLX5_SET(roce_addr_layout, a, roce_version, g->version);
        MLX5_SET(roce_addr_layout, a, roce_l3_type, g->l3_type);
    }
    return MLX5_CMD_STAT_OK;
}

int mlx5_gid_exec(MLX5State *s, MLX5Cmd *cmd)
{
    switch (cmd->opcode) {
    case MLX5_CMD_OP_SET_ROCE_ADDRESS:
        return cmd_set_roce_address(s, cmd);
    case MLX5_CMD_OP_QUERY_ROCE_ADDRESS:
        return cmd_query_roce_address(s, cmd);
    default:
        return -1;
    }
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the commands of bring-up and teardown, the
 * capabilities and the access registers.
 *
 * The function goes DISABLED -> ENABLE_HCA -> ENABLED -> INIT_HCA ->
 * INITIALIZED and back through TEARDOWN_HCA and DISABLE_HCA.  The model
 * asks for no pages (QUERY_PAGES answers 0), so MANAGE_PAGES only ever
 * carries empty lists.  Capabilities are those of a ConnectX-4 Lx in
 * Ethernet mode less what the model does not implement yet; a cap that
 * is 0 keeps the driver away from a feature, which is how the model
 * grows one feature at a time.  Any opcode not handled here gets
 * BAD_OP and a trace line (mlx5_cmd_unknown).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

/* Values of the PRM the public header does not define. */
#define MLX5_PORT_TYPE_ETH          1
#define MLX5_IEEE_VENDOR_ID         0x0002c9
#define MLX5_BOARD_ID               "OOT0000000001"

static const struct {
    uint16_t opcode;
    const char *name;
} mlx5_cmd_names[] = {
    { MLX5_CMD_OP_QUERY_HCA_CAP, "QUERY_HCA_CAP" },
    { MLX5_CMD_OP_QUERY_ADAPTER, "QUERY_ADAPTER" },
    { MLX5_CMD_OP_INIT_HCA, "INIT_HCA" },
    { MLX5_CMD_OP_TEARDOWN_HCA, "TEARDOWN_HCA" },
    { MLX5_CMD_OP_ENABLE_HCA, "ENABLE_HCA" },
    { MLX5_CMD_OP_DISABLE_HCA, "DISABLE_HCA" },
    { MLX5_CMD_OP_QUERY_PAGES, "QUERY_PAGES" },
    { MLX5_CMD_OP_MANAGE_PAGES, "MANAGE_PAGES" },
    { MLX5_CMD_OP_SET_HCA_CAP, "SET_HCA_CAP" },
    { MLX5_CMD_OP_QUERY_ISSI, "QUERY_ISSI" },
    { MLX5_CMD_OP_SET_ISSI, "SET_ISSI" },
    { MLX5_CMD_OP_SET_DRIVER_VERSION, "SET_DRIVER_VERSION" },
    { MLX5_CMD_OP_CREATE_EQ, "CREATE_EQ" },
    { MLX5_CMD_OP_DESTROY_EQ, "DESTROY_EQ" },
    { MLX5_CMD_OP_ALLOC_UAR, "ALLOC_UAR" },
    { MLX5_CMD_OP_DEALLOC_UAR, "DEALLOC_UAR" },
    { MLX5_CMD_OP_ACCESS_REG, "ACCESS_REG" },
    { MLX5_CMD_OP_QUERY_VPORT_STATE, "QUERY_VPORT_STATE" },
    { MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, "QUERY_NIC_VPORT_CONTEXT" },
    { MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, "MODIFY_NIC_VPORT_CONTEXT" },
    { MLX5_CMD_OP_QUERY_VPORT_COUNTER, "QUERY_VPORT_COUNTER" },
    { MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY, "QUERY_HCA_VPORT_PKEY" },
    { MLX5_CMD_OP_ALLOC_Q_COUNTER, "ALLOC_Q_COUNTER" },
    { MLX5_CMD_OP_DEALLOC_Q_COUNTER, "DEALLOC_Q_COUNTER" },
    { MLX5_CMD_OP_QUERY_Q_COUNTER, "QUERY_Q_COUNTER" },
    { MLX5_CMD_OP_ALLOC_PD, "ALLOC_PD" },
    { MLX5_CMD_OP_DEALLOC_PD, "DEALLOC_PD" },
    { MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, "ALLOC_TRANSPORT_DOMAIN" },
    { MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, "DEALLOC_TRANSPORT_DOMAIN" },
    { MLX5_CMD_OP_CREATE_MKEY, "CREATE_MKEY" },
    { MLX5_CMD_OP_DESTROY_MKEY, "DESTROY_MKEY" },
    { MLX5_CMD_OP_QUERY_MKEY, "QUERY_MKEY" },
    { MLX5_CMD_OP_CREATE_TIS, "CREATE_TIS" },
    { MLX5_CMD_OP_MODIFY_TIS, "MODIFY_TIS" },
    { MLX5_CMD_OP_DESTROY_TIS, "DESTROY_TIS" },
    { MLX5_CMD_OP_CREATE_TIR, "CREATE_TIR" },
    { MLX5_CMD_OP_MODIFY_TIR, "MODIFY_TIR" },
    { MLX5_CMD_OP_DESTROY_TIR, "DESTROY_TIR" },
    { MLX5_CMD_OP_CREATE_RQT, "CREATE_RQT" },
    { MLX5_CMD_OP_MODIFY_RQT, "MODIFY_RQT" },
    { MLX5_CMD_OP_DESTROY_RQT, "DESTROY_RQT" },
    { MLX5_CMD_OP_CREATE_CQ, "CREATE_CQ" },
    { MLX5_CMD_OP_DESTROY_CQ, "DESTROY_CQ" },
    { MLX5_CMD_OP_QUERY_CQ, "QUERY_CQ" },
    { MLX5_CMD_OP_MODIFY_CQ, "MODIFY_CQ" },
    { MLX5_CMD_OP_CREATE_SQ, "CREATE_SQ" },
    { MLX5_CMD_OP_MODIFY_SQ, "MODIFY_SQ" },
    { MLX5_CMD_OP_QUERY_SQ, "QUERY_SQ" },
    { MLX5_CMD_OP_DESTROY_SQ, "DESTROY_SQ" },
    { MLX5_CMD_OP_CREATE_RQ, "CREATE_RQ" },
    { MLX5_CMD_OP_MODIFY_RQ, "MODIFY_RQ" },
    { MLX5_CMD_OP_QUERY_RQ, "QUERY_RQ" },
    { MLX5_CMD_OP_DESTROY_RQ, "DESTROY_RQ" },
    { MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, "SET_FLOW_TABLE_ROOT" },
    { MLX5_CMD_OP_CREATE_FLOW_TABLE, "CREATE_FLOW_TABLE" },
    { MLX5_CMD_OP_DESTROY_FLOW_TABLE, "DESTROY_FLOW_TABLE" },
    { MLX5_CMD_OP_MODIFY_FLOW_TABLE, "MODIFY_FLOW_TABLE" },
    { MLX5_CMD_OP_CREATE_FLOW_GROUP, "CREATE_FLOW_GROUP" },
    { MLX5_CMD_OP_DESTROY_FLOW_GROUP, "DESTROY_FLOW_GROUP" },
    { MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, "SET_FLOW_TABLE_ENTRY" },
    { MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY, "DELETE_FLOW_TABLE_ENTRY" },
    { MLX5_CMD_OP_ALLOC_XRCD, "ALLOC_XRCD" },
    { MLX5_CMD_OP_DEALLOC_XRCD, "DEALLOC_XRCD" },
    { MLX5_CMD_OP_CREATE_SRQ, "CREATE_SRQ" },
    { MLX5_CMD_OP_DESTROY_SRQ, "DESTROY_SRQ" },
    { MLX5_CMD_OP_QUERY_SRQ, "QUERY_SRQ" },
    { MLX5_CMD_OP_ARM_RQ, "ARM_RQ" },
    { MLX5_CMD_OP_CREATE_XRC_SRQ, "CREATE_XRC_SRQ" },
    { MLX5_CMD_OP_DESTROY_XRC_SRQ, "DESTROY_XRC_SRQ" },
    { MLX5_CMD_OP_QUERY_XRC_SRQ, "QUERY_XRC_SRQ" },
    { MLX5_CMD_OP_ARM_XRC_SRQ, "ARM_XRC_SRQ" },
    { MLX5_CMD_OP_CREATE_RMP, "CREATE_RMP" },
    { MLX5_CMD_OP_MODIFY_RMP, "MODIFY_RMP" },
    { MLX5_CMD_OP_DESTROY_RMP, "DESTROY_RMP" },
    { MLX5_CMD_OP_QUERY_RMP, "QUERY_RMP" },
    { MLX5_CMD_OP_CREATE_QP, "CREATE_QP" },
    { MLX5_CMD_OP_DESTROY_QP, "DESTROY_QP" },
    { MLX5_CMD_OP_RST2INIT_QP, "RST2INIT_QP" },
    { MLX5_CMD_OP_INIT2RTR_QP, "INIT2RTR_QP" },
    { MLX5_CMD_OP_RTR2RTS_QP, "RTR2RTS_QP" },
    { MLX5_CMD_OP_RTS2RTS_QP, "RTS2RTS_QP" },
    { MLX5_CMD_OP_SQERR2RTS_QP, "SQERR2RTS_QP" },
    { MLX5_CMD_OP_2ERR_QP, "2ERR_QP" },
    { MLX5_CMD_OP_2RST_QP, "2RST_QP" },
    { MLX5_CMD_OP_QUERY_QP, "QUERY_QP" },
    { MLX5_CMD_OP_SQD_RTS_QP, "SQD_RTS_QP" },
    { MLX5_CMD_OP_INIT2INIT_QP, "INIT2INIT_QP" },
    { MLX5_CMD_OP_SET_ROCE_ADDRESS, "SET_ROCE_ADDRESS" },
    { MLX5_CMD_OP_QUERY_ROCE_ADDRESS, "QUERY_ROCE_ADDRESS" },
    { MLX5_CMD_OP_ATTACH_TO_MCG, "ATTACH_TO_MCG" },
    { MLX5_CMD_OP_DETACH_FROM_MCG, "DETACH_FROM_MCG" },
};

const char *mlx5_cmd_name(uint16_t opcode)
{
    int i;

    for (i = 0; i < ARRAY_SIZE(mlx5_cmd_names); i++) {
        if (mlx5_cmd_names[i].opcode == opcode) {
            return mlx5_cmd_names[i].name;
        }
    }
    return "?";
}

/* The GENERAL capabilities: what the model answers for maximum. */
static void mlx5_caps_general(uint8_t *c)
{
    MLX5_SET(cmd_hca_cap, c, port_type, MLX5_PORT_TYPE_ETH);
    MLX5_SET(cmd_hca_cap, c, num_ports, 1);
    MLX5_SET(cmd_hca_cap, c, log_max_qp, 10);
    MLX5_SET(cmd_hca_cap, c, log_max_qp_sz, 15);
    MLX5_SET(cmd_hca_cap, c, log_max_cq, 10);
    MLX5_SET(cmd_hca_cap, c, log_max_cq_sz, 22);
    MLX5_SET(cmd_hca_cap, c, log_max_eq, 6);
    MLX5_SET(cmd_hca_cap, c, log_max_eq_sz, 22);
    MLX5_SET(cmd_hca_cap, c, log_max_srq, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_srq_sz, 15);
    MLX5_SET(cmd_hca_cap, c, log_max_mkey, MLX5_LOG_MAX_MKEYS);
    MLX5_SET(cmd_hca_cap, c, log_max_pd, 16);
    MLX5_SET(cmd_hca_cap, c, log_max_xrcd, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_transport_domain, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_msg, 30);
    MLX5_SET(cmd_hca_cap, c, log_pg_sz, 12);
    MLX5_SET(cmd_hca_cap, c, max_wqe_sz_sq, 1024);
    MLX5_SET(cmd_hca_cap, c, max_wqe_sz_rq, 512);
    MLX5_SET(cmd_hca_cap, c, cqe_version, 1);
    /*
     * BlueFlame registers of 512 bytes, as ConnectX-4 Lx has: the driver
     * puts a UAR page's four kernel doorbells at 0x800 + n * 512 (each
     * alternating between its halves); with 0 they would be at 0x801 to
     * 0x803, unaligned, and the GSI QP's doorbell would never arrive.
     */
    MLX5_SET(cmd_hca_cap, c, log_bf_reg_size, 9);
    /*
     * RDMA (mlx5_ib): RoCE, XRC (which the driver requires: its device
     * resources are two XRC domains and an XRC SRQ), 8-byte atomics, a
     * Q counter a port (the model's 64 sets), 16 outstanding RDMA READs
     * and atomics each way.  UMR changes a key's translation, size and
     * rights (mlx5-umr.c): the driver then offers fast registration
     * (IB_DEVICE_MEM_MGT_EXTENSIONS, which NFS and NVMe over RDMA need)
     * of up to 2^12 pages a key, and registers user memory through its
     * key cache, filled at load by CREATE_MKEY of free keys.
     */
    MLX5_SET(cmd_hca_cap, c, roce, 1);
    MLX5_SET(cmd_hca_cap, c, xrc, 1);
    MLX5_SET(cmd_hca_cap, c, atomic, 1);
    MLX5_SET(cmd_hca_cap, c, max_qp_cnt, MLX5_MAX_Q_COUNTERS - 1);
    MLX5_SET(cmd_hca_cap, c, log_max_ra_req_qp, 4);
    MLX5_SET(cmd_hca_cap, c, log_max_ra_res_qp, 4);
    MLX5_SET(cmd_hca_cap, c, umr_modify_entity_size_disabled, 0);
    MLX5_SET(cmd_hca_cap, c, log_max_klm_list_size, 12);
    /*
     * Multicast groups of UD QPs (mlx5-mcg.c), and a QP may keep its
     * own multicast from looping back (IB_QP_CREATE_BLOCK_MULTICAST_
     * LOOPBACK, which the driver refuses without block_lb_mc).
     */
    MLX5_SET(cmd_hca_cap, c, log_max_mcg, MLX5_LOG_MAX_MCG);
    MLX5_SET(cmd_hca_cap, c, max_qp_mcg, MLX5_MAX_QP_MCG);
    MLX5_SET(cmd_hca_cap, c, block_lb_mc, 1);
    /*
     * The port's performance counters come from QUERY_VPORT_COUNTER
     * and PPCNT (zeros), not from MAD_IFC, which the model lacks.
     */
    MLX5_SET(cmd_hca_cap, c, vport_counters, 1);
    /* The Ethernet function (mlx5e): offloads and NIC flow tables. */
    MLX5_SET(cmd_hca_cap, c, eth_net_offloads, 1);
    MLX5_SET(cmd_hca_cap, c, nic_flow_table, 1);
    MLX5_SET(cmd_hca_cap, c, cq_moderation, 1);
    MLX5_SET(cmd_hca_cap, c, cq_resize, 1);
    MLX5_SET(cmd_hca_cap, c, log_max_rq, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_sq, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_tir, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_tis, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_rqt, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_rqt_size, 8);
    MLX5_SET(cmd_hca_cap, c, log_max_tis_per_sq, 0);
    MLX5_SET(cmd_hca_cap, c, log_max_wq_sz, 16);
    /* Address lists: accepted, not kept (the L2 flow table filters). */
    MLX5_SET(cmd_hca_cap, c, log_max_current_uc_list, 7);
    MLX5_SET(cmd_hca_cap, c, log_max_current_mc_list, 7);
    /* The internal timer counts nanoseconds of the virtual clock. */
    MLX5_SET(cmd_hca_cap, c, device_frequency_khz, 1000000);
    /* 0: 128 P_Keys; no signatures on commands (settable, must be 0). */
    MLX5_SET(cmd_hca_cap, c, pkey_table_size, 0);
    MLX5_SET(cmd_hca_cap, c, cmdif_checksum, 0);
}

/* The Ethernet offloads the model offers (the driver needs these four). */
static void mlx5_caps_eth(uint8_t *c)
{
    MLX5_SET(per_protocol_networking_offload_caps, c, csum_cap, 1);
    MLX5_SET(per_protocol_networking_offload_caps, c, vlan_cap, 1);
    MLX5_SET(per_protocol_networking_offload_caps, c, max_lso_cap, 16);
    MLX5_SET(per_protocol_networking_offload_caps, c, rss_ind_tbl_cap, 8);
    MLX5_SET(per_protocol_networking_offload_caps, c, self_lb_en_modifiable,
             1);
    /* 1: the driver inlines the L2 header of every frame. */
    MLX5_SET(per_protocol_networking_offload_caps, c, wqe_inline_mode, 1);
}

/* RoCE v2 over IPv4 and IPv6, the port's GID table. */
static void mlx5_caps_roce(uint8_t *c)
{
    MLX5_SET(roce_cap, c, roce_version, 1 << 2);           /* v2 */
    MLX5_SET(roce_cap, c, l3_type, 1 << 1 | 1 << 2);       /* IPv4, IPv6 */
    MLX5_SET(roce_cap, c, r_roce_dest_udp_port, 4791);
    MLX5_SET(roce_cap, c, r_roce_min_src_udp_port, 0xc000);
    MLX5_SET(roce_cap, c, r_roce_max_src_udp_port, 0xffff);
    MLX5_SET(roce_cap, c, roce_address_table_size, MLX5_GID_TABLE_SIZE);
}

/*
 * Compare-and-swap and fetch-and-add of 8 bytes on QPs; the responder
 * may take them in host byte order (mode 1), which the driver sets:
 * without it, it reports no atomics on a little-endian host.
 */
static void mlx5_caps_atomic(uint8_t *c)
{
    MLX5_SET(atomic_caps, c, supported_atomic_req_8B_endianness_mode_1, 1);
    MLX5_SET(atomic_caps, c, atomic_operations, 1 << 0 | 1 << 1);
    MLX5_SET(atomic_caps, c, atomic_size_qp, 1 << 3);
}

/* NIC receive flow tables, chained; no transmit tables. */
static void mlx5_caps_flow_table(uint8_t *c)
{
    uint8_t *rx = MLX5_ADDR_OF(flow_table_nic_cap, c,
                               flow_table_properties_nic_receive);

    MLX5_SET(flow_table_prop_layout, rx, ft_support, 1);
    MLX5_SET(flow_table_prop_layout, rx, flow_modify_en, 1);
    MLX5_SET(flow_table_prop_layout, rx, modify_root, 1);
    MLX5_SET(flow_table_prop_layout, rx, identified_miss_table_mode, 1);
    MLX5_SET(flow_table_prop_layout, rx, flow_table_modify, 1);
    MLX5_SET(flow_table_prop_layout, rx, ignore_flow_level, 1);
    MLX5_SET(flow_table_prop_layout, rx, log_max_ft_size, 16);
    MLX5_SET(flow_table_prop_layout, rx, max_ft_level, MLX5_FT_MAX_LEVEL);
    MLX5_SET(flow_table_prop_layout, rx, log_max_ft_num, 6);
    MLX5_SET(flow_table_prop_layout, rx, log_max_destination, 5);
    MLX5_SET(flow_table_prop_layout, rx, log_max_flow, 16);
}

static void mlx5_objects_reset(MLX5State *s)
{
    mlx5_mcg_reset(s);
    mlx5_qp_reset(s);
    mlx5_srq_reset(s);
    mlx5_gid_reset(s);
    mlx5_flow_reset(s);
    mlx5_wq_reset(s);
    mlx5_cq_reset(s);
    mlx5_mkey_reset(s);
    mlx5_obj_reset(s);
    mlx5_vport_reset(s);
    mlx5_eq_reset(s);
}

void mlx5_hca_reset(MLX5State *s)
{
    int i;

    s->hca_state = MLX5_HCA_DISABLED;
    s->issi = 0;
    s->host_endianness = 0;
    memset(s->caps, 0, sizeof(s->caps));
    mlx5_caps_general(s->caps[MLX5_CAP_GENERAL].max);
    mlx5_caps_eth(s->caps[MLX5_CAP_ETH].max);
    mlx5_caps_flow_table(s->caps[MLX5_CAP_FLOW_TABLE].max);
    mlx5_caps_roce(s->caps[MLX5_CAP_ROCE].max);
    mlx5_caps_atomic(s->caps[MLX5_CAP_ATOMIC].max);
    for (i = 0; i < MLX5_CAP_GROUPS; i++) {
        memcpy(s->caps[i].cur, s->caps[i].max, MLX5_CAP_BYTES);
    }
    bitmap_zero(s->uars, MLX5_UAR_COUNT);
    mlx5_objects_reset(s);
}

static int cmd_fail(MLX5Cmd *cmd, int status, uint32_t syndrome)
{
    cmd->syndrome = syndrome;
    return status;
}

/* The input and output hold at least in and out bytes. */
static int cmd_len_ok(MLX5Cmd *cmd, size_t in, size_t out)
{
    if (cmd->inlen < in) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR, MLX5_SYND_IN_SHORT);
    }
    if (cmd->outlen < out) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
                        MLX5_SYND_OUT_SHORT);
    }
    return MLX5_CMD_STAT_OK;
}

#define CMD_LEN(cmd, op) \
    cmd_len_ok((cmd), MLX5_ST_SZ_BYTES(op##_in), MLX5_ST_SZ_BYTES(op##_out))

static int cmd_state(MLX5Cmd *cmd, bool ok)
{
    return ok ? MLX5_CMD_STAT_OK :
        cmd_fail(cmd, MLX5_CMD_STAT_BAD_SYS_STATE_ERR, MLX5_SYND_STATE);
}

static int cmd_enable_hca(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, enable_hca);

    if (st) {
        return st;
    }
    /* A PF without VFs: only function 0 is ours. */
    if (MLX5_GET(enable_hca_in, cmd->in, function_id)) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PARAM);
    }
    if (s->hca_state == MLX5_HCA_DISABLED) {
        s->hca_state = MLX5_HCA_ENABLED;
    }
    return MLX5_CMD_STAT_OK;
}

static int cmd_disable_hca(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, disable_hca);

    if (st) {
        return st;
    }
    if (MLX5_GET(disable_hca_in, cmd->in, function_id)) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PARAM);
    }
    /* Everything the function had goes with it. */
    mlx5_hca_reset(s);
    return MLX5_CMD_STAT_OK;
}

static int cmd_query_issi(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, query_issi);

    if (st) {
        return st;
    }
    MLX5_SET(query_issi_out, cmd->out, current_issi, s->issi);
    /* ISSI 0 and 1. */
    MLX5_SET(query_issi_out, cmd->out, supported_issi_dw0, 0x3);
    return MLX5_CMD_STAT_OK;
}

static int cmd_set_issi(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, set_issi);
    uint32_t issi;

    if (st) {
        return st;
    }
    issi = MLX5_GET(set_issi_in, cmd->in, current_issi);
    if (issi > 1) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PARAM);
    }
    s->issi = issi;
    return MLX5_CMD_STAT_OK;
}

static int cmd_query_pages(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, query_pages);

    if (st) {
        return st;
    }
    switch (cmd->op_mod) {
    case MLX5_QUERY_PAGES_IN_OP_MOD_BOOT_PAGES:
    case MLX5_QUERY_PAGES_IN_OP_MOD_INIT_PAGES:
    case MLX5_QUERY_PAGES_IN_OP_MOD_REGULAR_PAGES:
        break;
    default:
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
    }
    /* The model keeps its state in QEMU: it never needs host pages. */
    MLX5_SET(query_pages_out, cmd->out, function_id, 0);
    MLX5_SET(query_pages_out, cmd->out, num_pages, 0);
    return MLX5_CMD_STAT_OK;
}

static int cmd_manage_pages(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, manage_pages);

    if (st) {
        return st;
    }
    switch (cmd->op_mod) {
    case MLX5_MANAGE_PAGES_IN_OP_MOD_ALLOCATION_FAIL:
    case MLX5_MANAGE_PAGES_IN_OP_MOD_ALLOCATION_SUCCESS:
        /* Only empty gifts: the model asked for none. */
        if (MLX5_GET(manage_pages_in, cmd->in, input_num_entries)) {
            return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                            MLX5_SYND_NO_PAGES);
        }
        return MLX5_CMD_STAT_OK;
    case MLX5_MANAGE_PAGES_IN_OP_MOD_HCA_RETURN_PAGES:
        /* Nothing held, nothing returned. */
        MLX5_SET(manage_pages_out, cmd->out, output_num_entries, 0);
        return MLX5_CMD_STAT_OK;
    default:
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
    }
}

static int cmd_query_hca_cap(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, query_hca_cap);
    unsigned int type = cmd->op_mod >> 1;
    bool cur = cmd->op_mod & 1;
    MLX5Cap *cap;

    if (st) {
        return st;
    }
    trace_mlx5_query_hca_cap(type, cur);
    if (MLX5_GET(query_hca_cap_in, cmd->in, other_function)) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PARAM);
    }
    if (type != MLX5_CAP_GENERAL && type != MLX5_CAP_ETH &&
        type != MLX5_CAP_FLOW_TABLE && type != MLX5_CAP_ROCE &&
        type != MLX5_CAP_ATOMIC) {
        /* A group the model does not have: no cap bit points at it. */
        trace_mlx5_query_hca_cap_unknown(type);
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
    }
    cap = &s->caps[type];
    QEMU_BUILD_BUG_ON(sizeof(union mlx5_ifc_hca_cap_union_bits) / 8 !=
                      MLX5_CAP_BYTES);
    memcpy(MLX5_ADDR_OF(query_hca_cap_out, cmd->out, capability),
           cur ? cap->cur : cap->max, MLX5_CAP_BYTES);
    return MLX5_CMD_STAT_OK;
}

static int cmd_set_hca_cap(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, set_hca_cap);
    const uint8_t *in;
    uint8_t *cur, *max;

    if (st) {
        return st;
    }
    if (s->hca_state != MLX5_HCA_ENABLED) {
        /* Capabilities are set between ENABLE_HCA and INIT_HCA. */
        return cmd_state(cmd, false);
    }
    if (MLX5_GET(set_hca_cap_in, cmd->in, other_function)) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PARAM);
    }
    in = MLX5_ADDR_OF(set_hca_cap_in, cmd->in, capability);
    if (cmd->op_mod >> 1 == MLX5_CAP_ATOMIC) {
        /* The responder's byte order: 0 big-endian, 1 the host's. */
        unsigned int mode = MLX5_GET(atomic_caps, in,
                                     atomic_req_8B_endianness_mode);

        if (mode > 1) {
            return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                            MLX5_SYND_BAD_PARAM);
        }
        MLX5_SET(atomic_caps, s->caps[MLX5_CAP_ATOMIC].cur,
                 atomic_req_8B_endianness_mode, mode);
        return MLX5_CMD_STAT_OK;
    }
    if (cmd->op_mod >> 1 != MLX5_CAP_GENERAL) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
    }
    cur = s->caps[MLX5_CAP_GENERAL].cur;
    max = s->caps[MLX5_CAP_GENERAL].max;

    /*
     * The settable fields; the others keep their values whatever the
     * driver sends (it sends back what it read, with its changes).
     */
    if (MLX5_GET(cmd_hca_cap, in, log_max_qp) >
        MLX5_GET(cmd_hca_cap, max, log_max_qp) ||
        MLX5_GET(cmd_hca_cap, in, cmdif_checksum) ||
        MLX5_GET(cmd_hca_cap, in, pkey_table_size) >
        MLX5_GET(cmd_hca_cap, max, pkey_table_size)) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PARAM);
    }
    MLX5_SET(cmd_hca_cap, cur, log_max_qp,
             MLX5_GET(cmd_hca_cap, in, log_max_qp));
    MLX5_SET(cmd_hca_cap, cur, pkey_table_size,
             MLX5_GET(cmd_hca_cap, in, pkey_table_size));
    MLX5_SET(cmd_hca_cap, cur, log_uar_page_sz,
             MLX5_GET(cmd_hca_cap, in, log_uar_page_sz));
    return MLX5_CMD_STAT_OK;
}

static int cmd_init_hca(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, init_hca);

    if (st) {
        return st;
    }
    st = cmd_state(cmd, s->hca_state == MLX5_HCA_ENABLED);
    if (!st) {
        s->hca_state = MLX5_HCA_INITIALIZED;
    }
    return st;
}

static int cmd_teardown_hca(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, teardown_hca);

    if (st) {
        return st;
    }
    switch (MLX5_GET(teardown_hca_in, cmd->in, profile)) {
    case MLX5_TEARDOWN_HCA_IN_PROFILE_GRACEFUL_CLOSE:
    case MLX5_TEARDOWN_HCA_IN_PROFILE_FORCE_CLOSE:
        break;
    default:
        /* Fast teardown is not offered (cap fast_teardown is 0). */
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PARAM);
    }
    st = cmd_state(cmd, s->hca_state == MLX5_HCA_INITIALIZED);
    if (!st) {
        s->hca_state = MLX5_HCA_ENABLED;
        bitmap_zero(s->uars, MLX5_UAR_COUNT);
        mlx5_objects_reset(s);
        /* state 0: the force close succeeded. */
        MLX5_SET(teardown_hca_out, cmd->out, state, 0);
    }
    return st;
}

static int cmd_query_adapter(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, query_adapter);
    uint8_t *blk;

    if (st) {
        return st;
    }
    blk = MLX5_ADDR_OF(query_adapter_out, cmd->out, query_adapter_struct);
    MLX5_SET(query_adapter_param_block, blk, ieee_vendor_id,
             MLX5_IEEE_VENDOR_ID);
    MLX5_SET(query_adapter_param_block, blk, vsd_vendor_id, MLX5_VENDOR_ID);
    /* The PSID, which the driver shows as the board id. */
    QEMU_BUILD_BUG_ON(sizeof(MLX5_BOARD_ID) >
                      MLX5_BIT_SZ(query_adapter_param_block, vsd_contd_psid));
    memcpy(MLX5_ADDR_OF(query_adapter_param_block, blk, vsd_contd_psid),
           MLX5_BOARD_ID, sizeof(MLX5_BOARD_ID));
    return MLX5_CMD_STAT_OK;
}

static int cmd_alloc_uar(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, alloc_uar);
    unsigned long i;

    if (st) {
        return st;
    }
    i = find_first_zero_bit(s->uars, MLX5_UAR_COUNT);
    if (i >= MLX5_UAR_COUNT) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_PARAM);
    }
    set_bit(i, s->uars);
    MLX5_SET(alloc_uar_out, cmd->out, uar, MLX5_UAR_FIRST + i);
    return MLX5_CMD_STAT_OK;
}

static int cmd_dealloc_uar(MLX5State *s, MLX5Cmd *cmd)
{
    int st = CMD_LEN(cmd, dealloc_uar);
    uint32_t uar;

    if (st) {
        return st;
    }
    uar = MLX5_GET(dealloc_uar_in, cmd->in, uar);
    if (uar < MLX5_UAR_FIRST || uar >= MLX5_UAR_FIRST + MLX5_UAR_COUNT ||
        !test_bit(uar - MLX5_UAR_FIRST, s->uars)) {
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_PARAM);
    }
    clear_bit(uar - MLX5_UAR_FIRST, s->uars);
    return MLX5_CMD_STAT_OK;
}

int mlx5_hca_exec(MLX5State *s, MLX5Cmd *cmd)
{
    bool enabled = s->hca_state != MLX5_HCA_DISABLED;
    bool inited = s->hca_state == MLX5_HCA_INITIALIZED;

    switch (cmd->opcode) {
    case MLX5_CMD_OP_ENABLE_HCA:
        return cmd_enable_hca(s, cmd);
    case MLX5_CMD_OP_DISABLE_HCA:
        return cmd_disable_hca(s, cmd);
    case MLX5_CMD_OP_QUERY_ISSI:
        return cmd_state(cmd, enabled) ?: cmd_query_issi(s, cmd);
    case MLX5_CMD_OP_SET_ISSI:
        return cmd_state(cmd, enabled) ?: cmd_set_issi(s, cmd);
    case MLX5_CMD_OP_QUERY_PAGES:
        return cmd_state(cmd, enabled) ?: cmd_query_pages(s, cmd);
    case MLX5_CMD_OP_MANAGE_PAGES:
        return cmd_state(cmd, enabled) ?: cmd_manage_pages(s, cmd);
    case MLX5_CMD_OP_ACCESS_REG:
        return cmd_state(cmd, enabled) ?: mlx5_cmd_access_reg(s, cmd);
    case MLX5_CMD_OP_QUERY_HCA_CAP:
        return cmd_state(cmd, enabled) ?: cmd_query_hca_cap(s, cmd);
    case MLX5_CMD_OP_SET_HCA_CAP:
        return cmd_state(cmd, enabled) ?: cmd_set_hca_cap(s, cmd);
    case MLX5_CMD_OP_INIT_HCA:
        return cmd_init_hca(s, cmd);
    case MLX5_CMD_OP_TEARDOWN_HCA:
        return cmd_teardown_hca(s, cmd);
    case MLX5_CMD_OP_QUERY_ADAPTER:
        return cmd_state(cmd, inited) ?: cmd_query_adapter(s, cmd);
    case MLX5_CMD_OP_ALLOC_UAR:
        return cmd_state(cmd, inited) ?: cmd_alloc_uar(s, cmd);
    case MLX5_CMD_OP_DEALLOC_UAR:
        return cmd_state(cmd, inited) ?: cmd_dealloc_uar(s, cmd);
    case MLX5_CMD_OP_CREATE_EQ:
        return cmd_state(cmd, inited) ?: mlx5_cmd_create_eq(s, cmd);
    case MLX5_CMD_OP_DESTROY_EQ:
        return cmd_state(cmd, inited) ?: mlx5_cmd_destroy_eq(s, cmd);
    case MLX5_CMD_OP_QUERY_VPORT_STATE:
        return cmd_state(cmd, inited) ?: mlx5_cmd_query_vport_state(s, cmd);
    case MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT:
        return cmd_state(cmd, inited) ?:
               mlx5_cmd_query_nic_vport_context(s, cmd);
    case MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT:
        return cmd_state(cmd, inited) ?:
               mlx5_cmd_modify_nic_vport_context(s, cmd);
    case MLX5_CMD_OP_QUERY_VPORT_COUNTER:
        return cmd_state(cmd, inited) ?: mlx5_cmd_query_vport_counter(s, cmd);
    case MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY:
        return cmd_state(cmd, inited) ?:
               mlx5_cmd_query_hca_vport_pkey(s, cmd);
    case MLX5_CMD_OP_ALLOC_Q_COUNTER:
        return cmd_state(cmd, inited) ?: mlx5_cmd_alloc_q_counter(s, cmd);
    case MLX5_CMD_OP_DEALLOC_Q_COUNTER:
        return cmd_state(cmd, inited) ?: mlx5_cmd_dealloc_q_counter(s, cmd);
    case MLX5_CMD_OP_QUERY_Q_COUNTER:
        return cmd_state(cmd, inited) ?: mlx5_cmd_query_q_counter(s, cmd);
    case MLX5_CMD_OP_CREATE_CQ:
        return cmd_state(cmd, inited) ?: mlx5_cmd_create_cq(s, cmd);
    case MLX5_CMD_OP_DESTROY_CQ:
        return cmd_state(cmd, inited) ?: mlx5_cmd_destroy_cq(s, cmd);
    case MLX5_CMD_OP_MODIFY_CQ:
        return cmd_state(cmd, inited) ?: mlx5_cmd_modify_cq(s, cmd);
    case MLX5_CMD_OP_QUERY_CQ:
        return cmd_state(cmd, inited) ?: mlx5_cmd_query_cq(s, cmd);
    default:
        if (inited) {
            int st = mlx5_obj_exec(s, cmd);

            if (st < 0) {
                st = mlx5_mkey_exec(s, cmd);
            }
            if (st < 0) {
                st = mlx5_wq_exec(s, cmd);
            }
            if (st < 0) {
                st = mlx5_flow_exec(s, cmd);
            }
            if (st < 0) {
                st = mlx5_srq_exec(s, cmd);
            }
            if (st < 0) {
                st = mlx5_qp_exec(s, cmd);
            }
            if (st < 0) {
                st = mlx5_gid_exec(s, cmd);
            }
            if (st < 0) {
                st = mlx5_mcg_exec(s, cmd);
            }
            if (st >= 0) {
                return st;
            }
        }
        trace_mlx5_cmd_unknown(cmd->opcode, cmd->op_mod);
        return cmd_fail(cmd, MLX5_CMD_STAT_BAD_OP_ERR, MLX5_SYND_BAD_OPCODE);
    }
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the access registers (ACCESS_REG).
 *
 * ACCESS_REG reads (op_mod 1) or writes (op_mod 0) one register whose
 * contents follow the command's header both ways.  The model has the
 * registers the driver uses at probe and when the netdev goes up:
 *
 *   HOST_ENDIANNESS  the host's byte order, written once
 *   NODE_DESC        the node description, read by mlx5_ib
 *   PTYS             the port's protocols and speed: Ethernet, 10GBASE-CR
 *   PAOS             the port's administrative and operational status;
 *                    the link follows the administrative status
 *                    (mlx5-vport.c posts the port change event)
 *   PMTU             maximum, administrative and operational MTU
 *   PFCC             flow control: global pause, no PFC; the settings are
 *                    kept and read back, the wire never pauses
 *   PPCNT            port counters (mlx5-stats.c)
 *
 * Any other register is BAD_PARAM and a trace line.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

/* Register ids and values of the PRM the public header does not hold. */
#define REG_PMTU                0x5003
#define REG_PTYS                0x5004
#define REG_PAOS                0x5006
#define REG_PFCC                0x5007
#define REG_PPCNT               0x5008
#define REG_NODE_DESC           0x6001
#define REG_HOST_ENDIANNESS     0x7004
#define REG_HOST_ENDIANNESS_SZ  16
#define REG_NODE_DESC_SZ        64

#define REG_WRITE               0
#define REG_READ                1

#define PTYS_EN                 BIT(2)
#define PTYS_10GBASE_CR         BIT(12)     /* MLX5E_10GBASE_CR */
#define PAOS_UP                 1
#define PAOS_DOWN               2

#define NODE_DESC               "oot-rdma mlx5 model"

/* Largest frame the port takes: 9216 bytes of MTU and L2 overhead. */
#define PORT_MAX_MTU            (9216 + 22)

static int reg_fail(MLX5Cmd *cmd, int status, uint32_t syndrome)
{
    cmd->syndrome = syndrome;
    return status;
}

static int reg_host_endianness(MLX5State *s, MLX5Cmd *cmd,
                               const uint8_t *in, uint8_t *out)
{
    /* he, the first byte: 0 little-endian, 0x80 big-endian host. */
    if (cmd->op_mod == REG_WRITE) {
        s->host_endianness = in[0] & 0x80;
    }
    out[0] = s->host_endianness;
    return MLX5_CMD_STAT_OK;
}

static int reg_node_desc(MLX5State *s, MLX5Cmd *cmd,
                         const uint8_t *in, uint8_t *out)
{
    QEMU_BUILD_BUG_ON(sizeof(NODE_DESC) > REG_NODE_DESC_SZ);
    if (cmd->op_mod == REG_WRITE) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                        MLX5_SYND_BAD_OP_MOD);
    }
    memcpy(out, NODE_DESC, sizeof(NODE_DESC));
    return MLX5_CMD_STAT_OK;
}

static bool reg_port_ok(unsigned int local_port)
{
    /* Port 1, the only one; 0 stands for it too. */
    return local_port <= 1;
}

static int reg_ptys(MLX5State *s, MLX5Cmd *cmd, const uint8_t *in,
                    uint8_t *out)
{
    unsigned int mask = MLX5_GET(ptys_reg, in, proto_mask);

    if (!reg_port_ok(MLX5_GET(ptys_reg, in, local_port)) ||
        !(mask & PTYS_EN)) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                        MLX5_SYND_BAD_PARAM);
    }
    if (cmd->op_mod == REG_WRITE) {
        /* The one speed is always advertised: accept it, change nothing. */
        return MLX5_CMD_STAT_OK;
    }
    MLX5_SET(ptys_reg, out, local_port, MLX5_GET(ptys_reg, in, local_port));
    MLX5_SET(ptys_reg, out, proto_mask, PTYS_EN);
    MLX5_SET(ptys_reg, out, eth_proto_capability, PTYS_10GBASE_CR);
    MLX5_SET(ptys_reg, out, eth_proto_admin, PTYS_10GBASE_CR);
    MLX5_SET(ptys_reg, out, eth_proto_oper,
             s->port_admin_up ? PTYS_10GBASE_CR : 0);
    return MLX5_CMD_STAT_OK;
}

static int reg_paos(MLX5State *s, MLX5Cmd *cmd, const uint8_t *in,
                    uint8_t *out)
{
    unsigned int admin = MLX5_GET(paos_reg, in, admin_status);

    if (!reg_port_ok(MLX5_GET(paos_reg, in, local_port))) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                        MLX5_SYND_BAD_PARAM);
    }
    if (cmd->op_mod == REG_WRITE && MLX5_GET(paos_reg, in, ase)) {
        if (admin != PAOS_UP && admin != PAOS_DOWN) {
            return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                            MLX5_SYND_BAD_PARAM);
        }
        mlx5_vport_set_link(s, admin == PAOS_UP);
    }
    MLX5_SET(paos_reg, out, local_port, MLX5_GET(paos_reg, in, local_port));
    MLX5_SET(paos_reg, out, admin_status,
             s->port_admin_up ? PAOS_UP : PAOS_DOWN);
    MLX5_SET(paos_reg, out, oper_status,
             s->port_admin_up ? PAOS_UP : PAOS_DOWN);
    return MLX5_CMD_STAT_OK;
}

static int reg_pmtu(MLX5State *s, MLX5Cmd *cmd, const uint8_t *in,
                    uint8_t *out)
{
    if (!reg_port_ok(MLX5_GET(pmtu_reg, in, local_port))) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                        MLX5_SYND_BAD_PARAM);
    }
    if (cmd->op_mod == REG_WRITE) {
        uint32_t mtu = MLX5_GET(pmtu_reg, in, admin_mtu);

        if (mtu < 68 || mtu > PORT_MAX_MTU) {
            return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                            MLX5_SYND_BAD_PARAM);
        }
        s->port_mtu = mtu;
    }
    MLX5_SET(pmtu_reg, out, local_port, MLX5_GET(pmtu_reg, in, local_port));
    MLX5_SET(pmtu_reg, out, max_mtu, PORT_MAX_MTU);
    MLX5_SET(pmtu_reg, out, admin_mtu, s->port_mtu);
    MLX5_SET(pmtu_reg, out, oper_mtu, s->port_mtu);
    return MLX5_CMD_STAT_OK;
}

static int reg_ppcnt(MLX5State *s, MLX5Cmd *cmd, const uint8_t *in,
                     uint8_t *out)
{
    if (!reg_port_ok(MLX5_GET(ppcnt_reg, in, local_port))) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                        MLX5_SYND_BAD_PARAM);
    }
    MLX5_SET(ppcnt_reg, out, local_port, MLX5_GET(ppcnt_reg, in, local_port));
    MLX5_SET(ppcnt_reg, out, grp, MLX5_GET(ppcnt_reg, in, grp));
    MLX5_SET(ppcnt_reg, out, prio_tc, MLX5_GET(ppcnt_reg, in, prio_tc));
    mlx5_stats_ppcnt(s, MLX5_GET(ppcnt_reg, in, grp),
                     MLX5_GET(ppcnt_reg, in, clr),
                     MLX5_ADDR_OF(ppcnt_reg, out, counter_set));
    return MLX5_CMD_STAT_OK;
}

/*
 * Global pause only: a write that asks for per-priority flow control
 * (pfctx, pfcrx) is refused, as by a port without PFC; the pause
 * settings are kept for the next read.
 */
static int reg_pfcc(MLX5State *s, MLX5Cmd *cmd, const uint8_t *in,
                    uint8_t *out)
{
    if (!reg_port_ok(MLX5_GET(pfcc_reg, in, local_port))) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                        MLX5_SYND_BAD_PARAM);
    }
    if (cmd->op_mod == REG_WRITE) {
        if (MLX5_GET(pfcc_reg, in, pfctx) || MLX5_GET(pfcc_reg, in, pfcrx)) {
            return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                            MLX5_SYND_BAD_PARAM);
        }
        s->pause_tx = MLX5_GET(pfcc_reg, in, pptx);
        s->pause_rx = MLX5_GET(pfcc_reg, in, pprx);
    }
    MLX5_SET(pfcc_reg, out, local_port, MLX5_GET(pfcc_reg, in, local_port));
    MLX5_SET(pfcc_reg, out, pptx, s->pause_tx);
    MLX5_SET(pfcc_reg, out, pprx, s->pause_rx);
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_access_reg(MLX5State *s, MLX5Cmd *cmd)
{
    size_t hdr_in = MLX5_ST_SZ_BYTES(access_register_in);
    size_t hdr_out = MLX5_ST_SZ_BYTES(access_register_out);
    const uint8_t *in = cmd->in + hdr_in;
    uint8_t *out = cmd->out + hdr_out;
    size_t sz;
    uint16_t reg;

    if (cmd->inlen < hdr_in) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
                        MLX5_SYND_IN_SHORT);
    }
    if (cmd->outlen < hdr_out) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
                        MLX5_SYND_OUT_SHORT);
    }
    reg = MLX5_GET(access_register_in, cmd->in, register_id);
    trace_mlx5_access_reg(reg, cmd->op_mod);
    if (cmd->op_mod != REG_WRITE && cmd->op_mod != REG_READ) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                        MLX5_SYND_BAD_OP_MOD);
    }

    switch (reg) {
    case REG_HOST_ENDIANNESS:
        sz = REG_HOST_ENDIANNESS_SZ;
        break;
    case REG_NODE_DESC:
        sz = REG_NODE_DESC_SZ;
        break;
    case REG_PTYS:
        sz = MLX5_ST_SZ_BYTES(ptys_reg);
        break;
    case REG_PAOS:
        sz = MLX5_ST_SZ_BYTES(paos_reg);
        break;
    case REG_PMTU:
        sz = MLX5_ST_SZ_BYTES(pmtu_reg);
        break;
    case REG_PPCNT:
        sz = MLX5_ST_SZ_BYTES(ppcnt_reg);
        break;
    case REG_PFCC:
        sz = MLX5_ST_SZ_BYTES(pfcc_reg);
        break;
    default:
        trace_mlx5_access_reg_unknown(reg);
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                        MLX5_SYND_BAD_REGISTER);
    }
    /* The register whole, both ways. */
    if (cmd->inlen - hdr_in < sz) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
                        MLX5_SYND_IN_SHORT);
    }
    if (cmd->outlen - hdr_out < sz) {
        return reg_fail(cmd, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
                        MLX5_SYND_OUT_SHORT);
    }

    switch (reg) {
    case REG_HOST_ENDIANNESS:
        return reg_host_endianness(s, cmd, in, out);
    case REG_NODE_DESC:
        return reg_node_desc(s, cmd, in, out);
    case REG_PTYS:
        return reg_ptys(s, cmd, in, out);
    case REG_PAOS:
        return reg_paos(s, cmd, in, out);
    case REG_PMTU:
        return reg_pmtu(s, cmd, in, out);
    case REG_PFCC:
        return reg_pfcc(s, cmd, in, out);
    default:
        return reg_ppcnt(s, cmd, in, out);
    }
}

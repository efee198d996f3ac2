/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: multicast groups, the UD QPs attached to a GID.
 *
 * ATTACH_TO_MCG adds a QP to the group of a multicast GID (the group is
 * made by its first QP), DETACH_FROM_MCG takes it out (the group goes
 * with its last).  mlx5_ib sends them for ibv_attach_mcast() and
 * ibv_detach_mcast(), which librdmacm calls when a join completes and
 * at leave; on RoCE an IPv4 group is the mapped GID ::ffff:a.b.c.d.
 * The RoCE front end (mlx5-roce.c) hands the engine the QPs of a
 * datagram's group, for frames from the wire and for those a QP of
 * this device sends to a group (the loopback, unless the sending QP
 * blocks it with block_lb_mc).
 *
 * Bounds, as the capabilities say: MLX5_MAX_MCGS groups (log_max_mcg),
 * MLX5_MAX_QP_MCG QPs in one (max_qp_mcg); beyond either, LIM_ERR.  A
 * QP number that names no QP is BAD_RES; a QP that is not UD, a GID
 * that is not multicast (ff00::/8, or ::ffff:224.0.0.0/100), a QP
 * attached to the group already or a detach of a QP that is not are
 * BAD_PARAM, each with a syndrome of ours (below).  A QP destroyed
 * while attached leaves its groups: its number, reused, must not
 * receive what the old QP joined.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define QP_ST_UD                0x2

/* Our syndromes of these commands (the others are mlx5.h's). */
enum {
    MLX5_SYND_MCG_QP_TYPE       = 0x6d780020,   /* not a UD QP */
    MLX5_SYND_MCG_GID           = 0x6d780021,   /* not a multicast GID */
    MLX5_SYND_MCG_ATTACHED      = 0x6d780022,   /* attached already */
    MLX5_SYND_MCG_NOT_ATTACHED  = 0x6d780023,   /* detach: not attached */
    MLX5_SYND_MCG_FULL          = 0x6d780024,   /* max_qp_mcg QPs in it */
};

void mlx5_mcg_reset(MLX5State *s)
{
    memset(s->mcgs, 0, sizeof(s->mcgs));
}

/* A multicast GID: IPv6's ff00::/8, or an IPv4 group mapped. */
static bool mcg_gid_ok(const uint8_t *gid)
{
    static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

    return gid[0] == 0xff ||
           (!memcmp(gid, v4mapped, 12) && (gid[12] & 0xf0) == 0xe0);
}

static MLX5Mcg *mcg_find(MLX5State *s, const uint8_t *gid)
{
    int i;

    for (i = 0; i < MLX5_MAX_MCGS; i++) {
        if (s->mcgs[i].nqps && !memcmp(s->mcgs[i].gid, gid, 16)) {
            return &s->mcgs[i];
        }
    }
    return NULL;
}

/* The QP's slot in the group, or -1. */
static int mcg_slot(const MLX5Mcg *g, uint32_t qpn)
{
    uint32_t i;

    for (i = 0; i < g->nqps; i++) {
        if (g->qpn[i] == qpn) {
            return i;
        }
    }
    return -1;
}

static void mcg_remove(MLX5Mcg *g, int slot)
{
    g->qpn[slot] = g->qpn[--g->nqps];
}

unsigned int mlx5_mcg_qps(MLX5State *s, const uint8_t *gid, uint32_t *qpns,
                          unsigned int max)
{
    const MLX5Mcg *g = mcg_find(s, gid);
    unsigned int n;

    if (!g) {
        return 0;
    }
    n = MIN(g->nqps, max);
    memcpy(qpns, g->qpn, n * sizeof(*qpns));
    return n;
}

void mlx5_mcg_qp_gone(MLX5State *s, uint32_t qpn)
{
    int i;

    for (i = 0; i < MLX5_MAX_MCGS; i++) {
        MLX5Mcg *g = &s->mcgs[i];
        int slot = mcg_slot(g, qpn);

        if (slot >= 0) {
            mcg_remove(g, slot);
        }
    }
}

/*
 * The QP and the GID of either command (the two layouts are the same,
 * build-checked in mlx5_mcg_exec()): 0, or the status to answer.
 */
static int mcg_args(MLX5State *s, MLX5Cmd *cmd, uint32_t *qpn,
                    const uint8_t **gid)
{
    int st = MLX5_CMD_LEN(cmd, attach_to_mcg);
    MLX5QP *qp;

    if (st) {
        return st;
    }
    *qpn = MLX5_GET(attach_to_mcg_in, cmd->in, qpn);
    *gid = MLX5_ADDR_OF(attach_to_mcg_in, cmd->in, multicast_gid);
    qp = mlx5_qp_get(s, *qpn);
    if (!qp) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_NO_OBJECT);
    }
    if (qp->st != QP_ST_UD) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_MCG_QP_TYPE);
    }
    if (!mcg_gid_ok(*gid)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_MCG_GID);
    }
    return MLX5_CMD_STAT_OK;
}

static int cmd_attach_to_mcg(MLX5State *s, MLX5Cmd *cmd)
{
    const uint8_t *gid;
    uint32_t qpn;
    MLX5Mcg *g;
    int i, st = mcg_args(s, cmd, &qpn, &gid);

    if (st) {
        return st;
    }
    g = mcg_find(s, gid);
    if (g && mcg_slot(g, qpn) >= 0) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_MCG_ATTACHED);
    }
    if (g && g->nqps == MLX5_MAX_QP_MCG) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_MCG_FULL);
    }
    if (!g) {
        for (i = 0; i < MLX5_MAX_MCGS && s->mcgs[i].nqps; i++) {
            continue;
        }
        if (i == MLX5_MAX_MCGS) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                                 MLX5_SYND_NO_RESOURCE);
        }
        g = &s->mcgs[i];
        memcpy(g->gid, gid, 16);
    }
    g->qpn[g->nqps++] = qpn;
    trace_mlx5_mcg(qpn, true, g - s->mcgs, g->nqps);
    return MLX5_CMD_STAT_OK;
}

static int cmd_detach_from_mcg(MLX5State *s, MLX5Cmd *cmd)
{
    const uint8_t *gid;
    uint32_t qpn;
    MLX5Mcg *g;
    int slot, st = mcg_args(s, cmd, &qpn, &gid);

    if (st) {
        return st;
    }
    g = mcg_find(s, gid);
    slot = g ? mcg_slot(g, qpn) : -1;
    if (slot < 0) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                             MLX5_SYND_MCG_NOT_ATTACHED);
    }
    mcg_remove(g, slot);
    trace_mlx5_mcg(qpn, false, g - s->mcgs, g->nqps);
    return MLX5_CMD_STAT_OK;
}

int mlx5_mcg_exec(MLX5State *s, MLX5Cmd *cmd)
{
    QEMU_BUILD_BUG_ON(MLX5_BIT_OFF(attach_to_mcg_in, qpn) !=
                      MLX5_BIT_OFF(detach_from_mcg_in, qpn) ||
                      MLX5_BIT_OFF(attach_to_mcg_in, multicast_gid) !=
                      MLX5_BIT_OFF(detach_from_mcg_in, multicast_gid) ||
                      MLX5_ST_SZ_BYTES(attach_to_mcg_in) !=
                      MLX5_ST_SZ_BYTES(detach_from_mcg_in) ||
                      MLX5_ST_SZ_BYTES(attach_to_mcg_out) !=
                      MLX5_ST_SZ_BYTES(detach_from_mcg_out));

    switch (cmd->opcode) {
    case MLX5_CMD_OP_ATTACH_TO_MCG:
        return cmd_attach_to_mcg(s, cmd);
    case MLX5_CMD_OP_DETACH_FROM_MCG:
        return cmd_detach_from_mcg(s, cmd);
    default:
        return -1;
    }
}

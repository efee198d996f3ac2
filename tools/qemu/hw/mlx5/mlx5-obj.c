/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the plain objects, kept by number with their
 * context: protection domains, transport domains, TISes, TIRs and RQ
 * tables (memory keys are mlx5-mkey.c's).
 *
 * An object's number is its slot + 1 (0 is never handed out, so a
 * zeroed field never names one).  Each create checks the objects its
 * context names; a destroy of an object that does not exist is BAD_RES.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

static const char *const obj_names[MLX5_OBJ_TYPES] = {
    [MLX5_OBJ_PD] = "pd",
    [MLX5_OBJ_TD] = "td",
    [MLX5_OBJ_TIS] = "tis",
    [MLX5_OBJ_TIR] = "tir",
    [MLX5_OBJ_RQT] = "rqt",
};

MLX5Obj *mlx5_obj_get(MLX5State *s, unsigned int type, uint32_t id)
{
    MLX5Obj *o;

    if (!id || id > MLX5_MAX_OBJS) {
        return NULL;
    }
    o = &s->objs[type][id - 1];
    return o->valid ? o : NULL;
}

/* A new object holding len bytes of ctx; its number in *id. */
static int obj_new(MLX5State *s, MLX5Cmd *cmd, unsigned int type,
                   const uint8_t *ctx, size_t len, uint32_t *id)
{
    unsigned int i;

    for (i = 0; i < MLX5_MAX_OBJS; i++) {
        MLX5Obj *o = &s->objs[type][i];

        if (!o->valid) {
            o->valid = true;
            o->ctx = g_memdup2(ctx, len);
            o->len = len;
            *id = i + 1;
            trace_mlx5_obj_create(obj_names[type], *id);
            return MLX5_CMD_STAT_OK;
        }
    }
    return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_RESOURCE);
}

static int obj_del(MLX5State *s, MLX5Cmd *cmd, unsigned int type,
                   uint32_t id)
{
    MLX5Obj *o = mlx5_obj_get(s, type, id);

    if (!o) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_BAD_PARAM);
    }
    trace_mlx5_obj_destroy(obj_names[type], id);
    g_free(o->ctx);
    memset(o, 0, sizeof(*o));
    return MLX5_CMD_STAT_OK;
}

void mlx5_obj_reset(MLX5State *s)
{
    unsigned int t, i;

    for (t = 0; t < MLX5_OBJ_TYPES; t++) {
        for (i = 0; i < MLX5_MAX_OBJS; i++) {
            g_free(s->objs[t][i].ctx);
        }
    }
    memset(s->objs, 0, sizeof(s->objs));
}

/* Check an RQ table's context; its length in *len. */
static int obj_rqt(MLX5State *s, MLX5Cmd *cmd, const uint8_t *rqtc,
                   size_t room, uint32_t max, size_t *len)
{
    uint32_t n = MLX5_GET(rqtc, rqtc, rqt_actual_size);
    const uint8_t *list = MLX5_ADDR_OF(rqtc, rqtc, rq_num);
    uint32_t i;

    if (!n || n > max || max > MLX5_MAX_RQT_SIZE) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (room < MLX5_ST_SZ_BYTES(rqtc) + n * 4) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
                             MLX5_SYND_IN_SHORT);
    }
    for (i = 0; i < n; i++) {
        if (!mlx5_wq_get(s, MLX5_WQ_RQ, ldl_be_p(list + i * 4) & 0xffffff)) {
            return mlx5_cmd_bad_param(cmd);
        }
    }
    *len = MLX5_ST_SZ_BYTES(rqtc) + n * 4;
    return MLX5_CMD_STAT_OK;
}

int mlx5_obj_exec(MLX5State *s, MLX5Cmd *cmd)
{
    const uint8_t *ctx;
    uint32_t id = 0;
    size_t off, len = 0;
    int st;

    switch (cmd->opcode) {
    case MLX5_CMD_OP_ALLOC_PD:
        st = MLX5_CMD_LEN(cmd, alloc_pd) ?:
             obj_new(s, cmd, MLX5_OBJ_PD, NULL, 0, &id);
        if (!st) {
            MLX5_SET(alloc_pd_out, cmd->out, pd, id);
        }
        return st;
    case MLX5_CMD_OP_DEALLOC_PD:
        st = MLX5_CMD_LEN(cmd, dealloc_pd);
        if (st) {
            return st;
        }
        id = MLX5_GET(dealloc_pd_in, cmd->in, pd);
        /*
         * A key keeps its PD: a new PD of the same number must not
         * inherit another's memory.  Both drivers destroy their keys
         * first (ib_core holds the PD for each MR).
         */
        if (mlx5_obj_get(s, MLX5_OBJ_PD, id) && mlx5_mkey_pd_busy(s, id)) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                                 MLX5_SYND_IN_USE);
        }
        return obj_del(s, cmd, MLX5_OBJ_PD, id);
    case MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
        st = MLX5_CMD_LEN(cmd, alloc_transport_domain) ?:
             obj_new(s, cmd, MLX5_OBJ_TD, NULL, 0, &id);
        if (!st) {
            MLX5_SET(alloc_transport_domain_out, cmd->out, transport_domain,
                     id);
        }
        return st;
    case MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN:
        return MLX5_CMD_LEN(cmd, dealloc_transport_domain) ?:
               obj_del(s, cmd, MLX5_OBJ_TD,
                       MLX5_GET(dealloc_transport_domain_in, cmd->in,
                                transport_domain));
    case MLX5_CMD_OP_CREATE_TIS:
        st = MLX5_CMD_LEN(cmd, create_tis);
        if (st) {
            return st;
        }
        ctx = MLX5_ADDR_OF(create_tis_in, cmd->in, ctx);
        if (!mlx5_obj_get(s, MLX5_OBJ_TD,
                          MLX5_GET(tisc, ctx, transport_domain))) {
            return mlx5_cmd_bad_param(cmd);
        }
        st = obj_new(s, cmd, MLX5_OBJ_TIS, ctx, MLX5_ST_SZ_BYTES(tisc), &id);
        if (!st) {
            MLX5_SET(create_tis_out, cmd->out, tisn, id);
        }
        return st;
    case MLX5_CMD_OP_MODIFY_TIS:
        st = MLX5_CMD_LEN(cmd, modify_tis);
        if (st) {
            return st;
        }
        /* prio and LAG affinity: nothing the model uses. */
        return mlx5_obj_get(s, MLX5_OBJ_TIS,
                            MLX5_GET(modify_tis_in, cmd->in, tisn)) ?
               MLX5_CMD_STAT_OK :
               mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_BAD_PARAM);
    case MLX5_CMD_OP_DESTROY_TIS:
        return MLX5_CMD_LEN(cmd, destroy_tis) ?:
               obj_del(s, cmd, MLX5_OBJ_TIS,
                       MLX5_GET(destroy_tis_in, cmd->in, tisn));
    case MLX5_CMD_OP_MODIFY_TIR: {
        MLX5Obj *o;

        st = MLX5_CMD_LEN(cmd, modify_tir);
        if (st) {
            return st;
        }
        o = mlx5_obj_get(s, MLX5_OBJ_TIR,
                         MLX5_GET(modify_tir_in, cmd->in, tirn));
        if (!o) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                                 MLX5_SYND_BAD_PARAM);
        }
        /*
         * Only the fields of the bitmask are meant; of them the model
         * keeps self loopback blocking (the rest, LRO and the hash, it
         * does not use yet).
         */
        ctx = MLX5_ADDR_OF(modify_tir_in, cmd->in, ctx);
        if (MLX5_GET(modify_tir_bitmask, MLX5_ADDR_OF(modify_tir_in, cmd->in,
                                                      bitmask),
                     self_lb_en)) {
            MLX5_SET(tirc, o->ctx, self_lb_block,
                     MLX5_GET(tirc, ctx, self_lb_block));
        }
        return MLX5_CMD_STAT_OK;
    }
    case MLX5_CMD_OP_CREATE_TIR:
        st = MLX5_CMD_LEN(cmd, create_tir);
        if (st) {
            return st;
        }
        off = MLX5_BYTE_OFF(create_tir_in, ctx);
        ctx = cmd->in + off;
        /* Dispatch to one RQ (0) or through an RQ table (1). */
        if (!mlx5_obj_get(s, MLX5_OBJ_TD,
                          MLX5_GET(tirc, ctx, transport_domain)) ||
            (MLX5_GET(tirc, ctx, disp_type) == 0 &&
             !mlx5_wq_get(s, MLX5_WQ_RQ, MLX5_GET(tirc, ctx, inline_rqn))) ||
            (MLX5_GET(tirc, ctx, disp_type) == 1 &&
             !mlx5_obj_get(s, MLX5_OBJ_RQT,
                           MLX5_GET(tirc, ctx, indirect_table))) ||
            MLX5_GET(tirc, ctx, disp_type) > 1) {
            return mlx5_cmd_bad_param(cmd);
        }
        st = obj_new(s, cmd, MLX5_OBJ_TIR, ctx, MLX5_ST_SZ_BYTES(tirc), &id);
        if (!st) {
            MLX5_SET(create_tir_out, cmd->out, tirn, id);
        }
        return st;
    case MLX5_CMD_OP_DESTROY_TIR:
        return MLX5_CMD_LEN(cmd, destroy_tir) ?:
               obj_del(s, cmd, MLX5_OBJ_TIR,
                       MLX5_GET(destroy_tir_in, cmd->in, tirn));
    case MLX5_CMD_OP_CREATE_RQT:
        st = MLX5_CMD_LEN(cmd, create_rqt);
        if (st) {
            return st;
        }
        off = MLX5_BYTE_OFF(create_rqt_in, rqt_context);
        ctx = cmd->in + off;
        st = obj_rqt(s, cmd, ctx, cmd->inlen - off,
                     MLX5_GET(rqtc, ctx, rqt_max_size), &len) ?:
             obj_new(s, cmd, MLX5_OBJ_RQT, ctx, len, &id);
        if (!st) {
            MLX5_SET(create_rqt_out, cmd->out, rqtn, id);
        }
        return st;
    case MLX5_CMD_OP_MODIFY_RQT: {
        MLX5Obj *o;

        st = MLX5_CMD_LEN(cmd, modify_rqt);
        if (st) {
            return st;
        }
        o = mlx5_obj_get(s, MLX5_OBJ_RQT,
                         MLX5_GET(modify_rqt_in, cmd->in, rqtn));
        if (!o) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                                 MLX5_SYND_BAD_PARAM);
        }
        if (!MLX5_GET(rqt_bitmask, MLX5_ADDR_OF(modify_rqt_in, cmd->in,
                                                bitmask), rqn_list)) {
            return MLX5_CMD_STAT_OK;
        }
        off = MLX5_BYTE_OFF(modify_rqt_in, ctx);
        ctx = cmd->in + off;
        /* The size the table was created with bounds the new list. */
        st = obj_rqt(s, cmd, ctx, cmd->inlen - off,
                     MLX5_GET(rqtc, o->ctx, rqt_max_size), &len);
        if (!st) {
            uint32_t max = MLX5_GET(rqtc, o->ctx, rqt_max_size);

            g_free(o->ctx);
            o->ctx = g_memdup2(ctx, len);
            o->len = len;
            MLX5_SET(rqtc, o->ctx, rqt_max_size, max);
        }
        return st;
    }
    case MLX5_CMD_OP_DESTROY_RQT:
        return MLX5_CMD_LEN(cmd, destroy_rqt) ?:
               obj_del(s, cmd, MLX5_OBJ_RQT,
                       MLX5_GET(destroy_rqt_in, cmd->in, rqtn));
    default:
        return -1;
    }
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: flow steering (the firmware's tables: the driver
 * never owns them in software, the caps offer no sw_owner).
 *
 * NIC receive tables only (the caps offer no transmit tables): a table
 * has a level, 2^log_size entries and a miss behaviour (drop, or go to
 * another table of a deeper level); groups cover index ranges of one
 * table with one match criteria; an entry sits in a group, with a match
 * value, an action (allow, drop, forward) and destinations (TIRs or
 * deeper tables).  SET_FLOW_TABLE_ROOT picks the table where receive
 * starts.  The model stores all of it, checked; matching packets
 * against it comes with the receive path.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define FT_LOG_MAX_SIZE         16          /* log_max_ft_size */
#define FT_MAX_DESTS            32          /* log_max_destination 5 */
#define FT_ACTION_ALLOW         0x1
#define FT_ACTION_DROP          0x2
#define FT_ACTION_FWD           0x4
#define FT_MISS_DEF             0
#define FT_MISS_FWD             1

static int bad_res(MLX5Cmd *cmd)
{
    return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_PARAM);
}

MLX5FlowTable *mlx5_ft_get(MLX5State *s, uint32_t id)
{
    if (!id || id > MLX5_MAX_FTS || !s->fts[id - 1].valid) {
        return NULL;
    }
    return &s->fts[id - 1];
}

static MLX5FlowGroup *fg_get(MLX5State *s, uint32_t id)
{
    if (!id || id > MLX5_MAX_FGS || !s->fgs[id - 1].valid) {
        return NULL;
    }
    return &s->fgs[id - 1];
}

static void ft_free(MLX5FlowTable *ft)
{
    if (ft->fte) {
        g_hash_table_destroy(ft->fte);
    }
    memset(ft, 0, sizeof(*ft));
}

void mlx5_flow_reset(MLX5State *s)
{
    int i;

    for (i = 0; i < MLX5_MAX_FTS; i++) {
        ft_free(&s->fts[i]);
    }
    memset(s->fgs, 0, sizeof(s->fgs));
    s->ft_root = 0;
}

/* NIC RX, this function's own vport: the first dwords of every input. */
static bool ft_own_rx(const uint8_t *in)
{
    return !MLX5_GET(destroy_flow_table_in, in, other_vport) &&
           !MLX5_GET(destroy_flow_table_in, in, vport_number) &&
           MLX5_GET(destroy_flow_table_in, in, table_type) ==
           MLX5_FLOW_TABLE_TYPE_NIC_RX;
}

/* A miss to table next from table ft: it must be deeper. */
static bool ft_miss_ok(MLX5State *s, const uint8_t *ftc, unsigned int level)
{
    MLX5FlowTable *next;

    switch (MLX5_GET(flow_table_context, ftc, table_miss_action)) {
    case FT_MISS_DEF:
        return true;
    case FT_MISS_FWD:
        next = mlx5_ft_get(s, MLX5_GET(flow_table_context, ftc,
                                       table_miss_id));
        return next && next->level > level;
    default:
        return false;
    }
}

static int ft_create(MLX5State *s, MLX5Cmd *cmd)
{
    const uint8_t *ftc = MLX5_ADDR_OF(create_flow_table_in, cmd->in,
                                      flow_table_context);
    unsigned int level = MLX5_GET(flow_table_context, ftc, level);
    unsigned int log_size = MLX5_GET(flow_table_context, ftc, log_size);
    MLX5FlowTable *ft;
    int i;

    if (!ft_own_rx(cmd->in) || level > MLX5_FT_MAX_LEVEL ||
        log_size > FT_LOG_MAX_SIZE ||
        MLX5_GET(flow_table_context, ftc, sw_owner) ||
        MLX5_GET(flow_table_context, ftc, reformat_en) ||
        MLX5_GET(flow_table_context, ftc, decap_en) ||
        MLX5_GET(flow_table_context, ftc, termination_table) ||
        !ft_miss_ok(s, ftc, level)) {
        return mlx5_cmd_bad_param(cmd);
    }
    for (i = 0; i < MLX5_MAX_FTS && s->fts[i].valid; i++) {
        continue;
    }
    if (i == MLX5_MAX_FTS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    ft = &s->fts[i];
    ft->valid = true;
    ft->level = level;
    ft->log_size = log_size;
    ft->miss_action = MLX5_GET(flow_table_context, ftc, table_miss_action);
    ft->miss_id = MLX5_GET(flow_table_context, ftc, table_miss_id);
    ft->fte = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    trace_mlx5_ft_create(i + 1, level, log_size);
    MLX5_SET(create_flow_table_out, cmd->out, table_id, i + 1);
    return MLX5_CMD_STAT_OK;
}

static int ft_destroy(MLX5State *s, MLX5Cmd *cmd)
{
    uint32_t id = MLX5_GET(destroy_flow_table_in, cmd->in, table_id);
    MLX5FlowTable *ft = mlx5_ft_get(s, id);
    int i;

    if (!ft_own_rx(cmd->in)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (!ft) {
        return bad_res(cmd);
    }
    if (g_hash_table_size(ft->fte)) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                             MLX5_SYND_STATE);
    }
    for (i = 0; i < MLX5_MAX_FGS; i++) {
        if (s->fgs[i].valid && s->fgs[i].table == id) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                                 MLX5_SYND_STATE);
        }
    }
    /*
     * The root may go (receive then drops); a miss that pointed here
     * becomes a drop too.
     */
    if (s->ft_root == id) {
        s->ft_root = 0;
    }
    for (i = 0; i < MLX5_MAX_FTS; i++) {
        if (s->fts[i].valid && s->fts[i].miss_action == FT_MISS_FWD &&
            s->fts[i].miss_id == id) {
            s->fts[i].miss_action = FT_MISS_DEF;
        }
    }
    trace_mlx5_ft_destroy(id);
    ft_free(ft);
    return MLX5_CMD_STAT_OK;
}

static int ft_modify(MLX5State *s, MLX5Cmd *cmd)
{
    const uint8_t *ftc = MLX5_ADDR_OF(modify_flow_table_in, cmd->in,
                                      flow_table_context);
    MLX5FlowTable *ft = mlx5_ft_get(s, MLX5_GET(modify_flow_table_in,
                                                cmd->in, table_id));
    unsigned int sel = MLX5_GET(modify_flow_table_in, cmd->in,
                                modify_field_select);

    if (!ft_own_rx(cmd->in) || sel != MLX5_MODIFY_FLOW_TABLE_MISS_TABLE_ID) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (!ft) {
        return bad_res(cmd);
    }
    if (!ft_miss_ok(s, ftc, ft->level)) {
        return mlx5_cmd_bad_param(cmd);
    }
    ft->miss_action = MLX5_GET(flow_table_context, ftc, table_miss_action);
    ft->miss_id = MLX5_GET(flow_table_context, ftc, table_miss_id);
    return MLX5_CMD_STAT_OK;
}

static int ft_set_root(MLX5State *s, MLX5Cmd *cmd)
{
    uint32_t id = MLX5_GET(set_flow_table_root_in, cmd->in, table_id);

    if (!ft_own_rx(cmd->in) ||
        MLX5_GET(set_flow_table_root_in, cmd->in, table_of_other_vport) ||
        MLX5_GET(set_flow_table_root_in, cmd->in, underlay_qpn)) {
        return mlx5_cmd_bad_param(cmd);
    }
    /* Table 0: no root, receive drops everything. */
    if (id && !mlx5_ft_get(s, id)) {
        return bad_res(cmd);
    }
    trace_mlx5_ft_root(id);
    s->ft_root = id;
    return MLX5_CMD_STAT_OK;
}

static int fg_create(MLX5State *s, MLX5Cmd *cmd)
{
    uint32_t table = MLX5_GET(create_flow_group_in, cmd->in, table_id);
    uint32_t start = MLX5_GET(create_flow_group_in, cmd->in,
                              start_flow_index);
    uint32_t end = MLX5_GET(create_flow_group_in, cmd->in, end_flow_index);
    MLX5FlowTable *ft = mlx5_ft_get(s, table);
    MLX5FlowGroup *fg;
    int i;

    if (!ft_own_rx(cmd->in) ||
        MLX5_GET(create_flow_group_in, cmd->in, group_type)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (!ft) {
        return bad_res(cmd);
    }
    if (start > end || end >= 1u << ft->log_size) {
        return mlx5_cmd_bad_param(cmd);
    }
    /* Groups of a table do not overlap. */
    for (i = 0; i < MLX5_MAX_FGS; i++) {
        if (s->fgs[i].valid && s->fgs[i].table == table &&
            start <= s->fgs[i].end && s->fgs[i].start <= end) {
            return mlx5_cmd_bad_param(cmd);
        }
    }
    for (i = 0; i < MLX5_MAX_FGS && s->fgs[i].valid; i++) {
        continue;
    }
    if (i == MLX5_MAX_FGS) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR,
                             MLX5_SYND_NO_RESOURCE);
    }
    fg = &s->fgs[i];
    fg->valid = true;
    fg->table = table;
    fg->start = start;
    fg->end = end;
    fg->criteria_enable = MLX5_GET(create_flow_group_in, cmd->in,
                                   match_criteria_enable);
    QEMU_BUILD_BUG_ON(sizeof(fg->criteria) !=
                      MLX5_ST_SZ_BYTES(fte_match_param));
    memcpy(fg->criteria, MLX5_ADDR_OF(create_flow_group_in, cmd->in,
                                      match_criteria),
           sizeof(fg->criteria));
    trace_mlx5_fg_create(i + 1, table, start, end);
    MLX5_SET(create_flow_group_out, cmd->out, group_id, i + 1);
    return MLX5_CMD_STAT_OK;
}

static int fg_destroy(MLX5State *s, MLX5Cmd *cmd)
{
    uint32_t id = MLX5_GET(destroy_flow_group_in, cmd->in, group_id);
    MLX5FlowGroup *fg = fg_get(s, id);
    MLX5FlowTable *ft;
    GHashTableIter it;
    gpointer key;

    if (!ft_own_rx(cmd->in)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (!fg || fg->table != MLX5_GET(destroy_flow_group_in, cmd->in,
                                     table_id)) {
        return bad_res(cmd);
    }
    ft = mlx5_ft_get(s, fg->table);
    g_hash_table_iter_init(&it, ft->fte);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        uint32_t idx = GPOINTER_TO_UINT(key);

        if (idx >= fg->start && idx <= fg->end) {
            return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                                 MLX5_SYND_STATE);
        }
    }
    memset(fg, 0, sizeof(*fg));
    return MLX5_CMD_STAT_OK;
}

static int fte_set(MLX5State *s, MLX5Cmd *cmd)
{
    uint32_t table = MLX5_GET(set_fte_in, cmd->in, table_id);
    uint32_t idx = MLX5_GET(set_fte_in, cmd->in, flow_index);
    const uint8_t *fc = MLX5_ADDR_OF(set_fte_in, cmd->in, flow_context);
    const uint8_t *dst = MLX5_ADDR_OF(flow_context, fc, destination);
    uint32_t action = MLX5_GET(flow_context, fc, action);
    uint32_t ndest = MLX5_GET(flow_context, fc, destination_list_size);
    MLX5FlowTable *ft = mlx5_ft_get(s, table);
    MLX5FlowGroup *fg;
    size_t len;
    uint32_t i;

    if (!ft_own_rx(cmd->in)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (!ft) {
        return bad_res(cmd);
    }
    fg = fg_get(s, MLX5_GET(flow_context, fc, group_id));
    if (!fg || fg->table != table || idx < fg->start || idx > fg->end) {
        return mlx5_cmd_bad_param(cmd);
    }
    /* op_mod 0 adds, 1 modifies: the entry must be free or there. */
    if (cmd->op_mod > 1 ||
        (cmd->op_mod == 0) == g_hash_table_contains(ft->fte,
                                                    GUINT_TO_POINTER(idx))) {
        return mlx5_cmd_bad_param(cmd);
    }
    /* allow, drop or forward; no counters, reformat, header rewrite */
    if (!action || (action & ~(FT_ACTION_ALLOW | FT_ACTION_DROP |
                               FT_ACTION_FWD)) ||
        ((action & FT_ACTION_FWD) != 0) != (ndest != 0) ||
        ndest > FT_MAX_DESTS ||
        MLX5_GET(flow_context, fc, flow_counter_list_size) ||
        MLX5_GET(flow_context, fc, extended_destination)) {
        return mlx5_cmd_bad_param(cmd);
    }
    len = dst - cmd->in + ndest * MLX5_ST_SZ_BYTES(dest_format_struct);
    if (cmd->inlen < len) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
                             MLX5_SYND_IN_SHORT);
    }
    for (i = 0; i < ndest; i++) {
        const uint8_t *d = dst + i * MLX5_ST_SZ_BYTES(dest_format_struct);
        uint32_t id = MLX5_GET(dest_format_struct, d, destination_id);
        MLX5FlowTable *next;

        switch (MLX5_GET(dest_format_struct, d, destination_type)) {
        case MLX5_IFC_FLOW_DESTINATION_TYPE_TIR:
            if (!mlx5_obj_get(s, MLX5_OBJ_TIR, id)) {
                return mlx5_cmd_bad_param(cmd);
            }
            break;
        case MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE:
            next = mlx5_ft_get(s, id);
            if (!next || (next->level <= ft->level &&
                          !MLX5_GET(set_fte_in, cmd->in,
                                    ignore_flow_level))) {
                return mlx5_cmd_bad_param(cmd);
            }
            break;
        default:
            return mlx5_cmd_bad_param(cmd);
        }
    }
    trace_mlx5_fte_set(table, idx, action, ndest);
    g_hash_table_replace(ft->fte, GUINT_TO_POINTER(idx),
                         g_memdup2(fc, len - (fc - cmd->in)));
    return MLX5_CMD_STAT_OK;
}

static int fte_delete(MLX5State *s, MLX5Cmd *cmd)
{
    MLX5FlowTable *ft = mlx5_ft_get(s, MLX5_GET(delete_fte_in, cmd->in,
                                                table_id));
    uint32_t idx = MLX5_GET(delete_fte_in, cmd->in, flow_index);

    if (!ft_own_rx(cmd->in)) {
        return mlx5_cmd_bad_param(cmd);
    }
    if (!ft || !g_hash_table_remove(ft->fte, GUINT_TO_POINTER(idx))) {
        return bad_res(cmd);
    }
    return MLX5_CMD_STAT_OK;
}

int mlx5_flow_exec(MLX5State *s, MLX5Cmd *cmd)
{
    switch (cmd->opcode) {
    case MLX5_CMD_OP_CREATE_FLOW_TABLE:
        return MLX5_CMD_LEN(cmd, create_flow_table) ?: ft_create(s, cmd);
    case MLX5_CMD_OP_DESTROY_FLOW_TABLE:
        return MLX5_CMD_LEN(cmd, destroy_flow_table) ?: ft_destroy(s, cmd);
    case MLX5_CMD_OP_MODIFY_FLOW_TABLE:
        return MLX5_CMD_LEN(cmd, modify_flow_table) ?: ft_modify(s, cmd);
    case MLX5_CMD_OP_SET_FLOW_TABLE_ROOT:
        return MLX5_CMD_LEN(cmd, set_flow_table_root) ?: ft_set_root(s, cmd);
    case MLX5_CMD_OP_CREATE_FLOW_GROUP:
        return MLX5_CMD_LEN(cmd, create_flow_group) ?: fg_create(s, cmd);
    case MLX5_CMD_OP_DESTROY_FLOW_GROUP:
        return MLX5_CMD_LEN(cmd, destroy_flow_group) ?: fg_destroy(s, cmd);
    case MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY:
        return MLX5_CMD_LEN(cmd, set_fte) ?: fte_set(s, cmd);
    case MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY:
        return MLX5_CMD_LEN(cmd, delete_fte) ?: fte_delete(s, cmd);
    default:
        return -1;
    }
}

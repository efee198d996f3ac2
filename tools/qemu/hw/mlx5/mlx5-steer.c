/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: receive steering through the flow tables the
 * driver installed (mlx5-flow.c keeps them).
 *
 * Receive starts at the root table.  In a table, an entry matches when
 * the frame's match parameters (an fte_match_param the device fills from
 * the frame) equal the entry's value under its group's criteria mask, in
 * the sections the group enables; of the matching entries the lowest
 * index wins.  Its action: drop; forward to each of its destinations,
 * a TIR (a copy of the frame ends there) or another table (a copy goes
 * on there), as the driver asks when two rules of one match share an
 * entry (mlx5_ib's DONT_TRAP: its QP's TIR and the next priority's
 * table); allow alone goes on as a miss.  A miss follows the table's
 * miss table, or drops.  A walk enters each table at most once, so no
 * loop the guest builds (a table destroyed and its number reused at a
 * lower level, ignore_flow_level) keeps the device, and a TIR two paths
 * reach gets one copy.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "mlx5.h"
#include "mlx5-ifc.h"

#define FT_ACTION_DROP          0x2
#define FT_ACTION_FWD           0x4
#define FT_MISS_FWD             1
#define MATCH_SECTION           64      /* bytes, one criteria bit each */
#define MATCH_SECTIONS          (MLX5_ST_SZ_BYTES(fte_match_param) / \
                                 MATCH_SECTION)

static bool steer_match(const MLX5FlowGroup *fg, const uint8_t *value,
                        const uint8_t *param)
{
    unsigned int sec, i;

    for (sec = 0; sec < MATCH_SECTIONS; sec++) {
        if (!(fg->criteria_enable & BIT(sec))) {
            continue;
        }
        for (i = sec * MATCH_SECTION; i < (sec + 1) * MATCH_SECTION; i++) {
            if ((param[i] ^ value[i]) & fg->criteria[i]) {
                return false;
            }
        }
    }
    return true;
}

/* The flow context of the table's matching entry of lowest index. */
static const uint8_t *steer_table(MLX5State *s, MLX5FlowTable *ft,
                                  uint32_t id, const uint8_t *param)
{
    const uint8_t *best = NULL;
    uint32_t best_idx = UINT32_MAX;
    GHashTableIter it;
    gpointer key, fc;

    g_hash_table_iter_init(&it, ft->fte);
    while (g_hash_table_iter_next(&it, &key, &fc)) {
        uint32_t idx = GPOINTER_TO_UINT(key);
        uint32_t gid = MLX5_GET(flow_context, fc, group_id);
        const MLX5FlowGroup *fg;

        if (idx >= best_idx || !gid || gid > MLX5_MAX_FGS) {
            continue;
        }
        fg = &s->fgs[gid - 1];
        if (!fg->valid || fg->table != id) {
            continue;
        }
        if (steer_match(fg, MLX5_ADDR_OF(flow_context, fc, match_value),
                        param)) {
            best = fc;
            best_idx = idx;
        }
    }
    return best;
}

unsigned int mlx5_steer(MLX5State *s, const uint8_t *param, uint32_t *tirs,
                        unsigned int max)
{
    DECLARE_BITMAP(seen, MLX5_MAX_FTS + 1);
    uint32_t todo[MLX5_MAX_FTS];
    unsigned int ntodo = 0, n = 0;

    bitmap_zero(seen, MLX5_MAX_FTS + 1);
#define STEER_PUSH(t) do {                                              \
        uint32_t t_ = (t);                                              \
        if (t_ && t_ <= MLX5_MAX_FTS && !test_and_set_bit(t_, seen)) {  \
            todo[ntodo++] = t_;                                         \
        }                                                               \
    } while (0)

    STEER_PUSH(s->ft_root);
    while (ntodo) {
        uint32_t id = todo[--ntodo];
        MLX5FlowTable *ft = mlx5_ft_get(s, id);
        const uint8_t *fc;
        uint32_t action, ndest, i, j;

        if (!ft) {
            continue;
        }
        fc = steer_table(s, ft, id, param);
        action = fc ? MLX5_GET(flow_context, fc, action) : 0;
        if (action & FT_ACTION_DROP) {
            continue;
        }
        ndest = (action & FT_ACTION_FWD) ?
                MLX5_GET(flow_context, fc, destination_list_size) : 0;
        if (!ndest) {
            STEER_PUSH(ft->miss_action == FT_MISS_FWD ? ft->miss_id : 0);
            continue;
        }
        /* mlx5-flow.c stored the ndest destinations (at most 32). */
        for (i = 0; i < ndest; i++) {
            const uint8_t *d = MLX5_ADDR_OF(flow_context, fc, destination) +
                               i * MLX5_ST_SZ_BYTES(dest_format_struct);
            uint32_t did = MLX5_GET(dest_format_struct, d, destination_id);

            switch (MLX5_GET(dest_format_struct, d, destination_type)) {
            case MLX5_IFC_FLOW_DESTINATION_TYPE_TIR:
                for (j = 0; j < n && tirs[j] != did; j++) {
                    continue;
                }
                if (j == n && n < max) {
                    tirs[n++] = did;
                }
                break;
            case MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE:
                STEER_PUSH(did);
                break;
            }
        }
    }
#undef STEER_PUSH
    return n;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the page lists (PAS) of rings.
 *
 * A command creating an EQ, CQ, SQ or RQ ends with the bus addresses of
 * the ring's pages, 4 KiB << log_page_size each; the ring's entries run
 * through them in order.  The list is the guest's: it must be all there
 * and every page aligned to its size before the queue takes a copy.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "mlx5.h"

int mlx5_pas_check(MLX5Cmd *cmd, size_t off, uint64_t npas,
                   unsigned int log_page)
{
    uint64_t i;

    if (cmd->inlen < off || (cmd->inlen - off) / 8 < npas) {
        return mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
                             MLX5_SYND_IN_SHORT);
    }
    for (i = 0; i < npas; i++) {
        if (ldq_be_p(cmd->in + off + i * 8) & ((4096ULL << log_page) - 1)) {
            return mlx5_cmd_bad_param(cmd);
        }
    }
    return MLX5_CMD_STAT_OK;
}

uint64_t *mlx5_pas_copy(MLX5Cmd *cmd, size_t off, uint64_t npas)
{
    uint64_t *pas = g_new(uint64_t, npas);
    uint64_t i;

    for (i = 0; i < npas; i++) {
        pas[i] = ldq_be_p(cmd->in + off + i * 8);
    }
    return pas;
}

dma_addr_t mlx5_pas_addr(const uint64_t *pas, unsigned int log_page,
                         uint64_t off)
{
    unsigned int shift = 12 + log_page;

    return pas[off >> shift] + (off & ((1ULL << shift) - 1));
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the command queue.
 *
 * The driver gives the device one page of 32 command slots of 64 bytes
 * (the initialization segment's cmdq address registers).  A slot holds
 * the command's length and first 16 input bytes, a pointer to a chain of
 * input mailboxes for the rest, the same for the output, a token, and
 * status_own: bit 0 is the ownership bit (1: the device's), bits 7:1 the
 * delivery status.  A mailbox is 576 bytes: 512 of data, then the next
 * mailbox's address, its number in the chain and the token.
 *
 * A doorbell write names slots by bit.  For each, the device reads the
 * slot, gathers the input, runs the command, scatters the output and
 * hands the slot back by clearing the ownership bit, last.  The driver
 * polls that bit until it has a command EQ; from then on each completion
 * is also an EQE on that EQ (mlx5-eq.c).
 *
 * Every value here comes from the guest and is checked: the lengths are
 * bounded, so are the chains (their block numbers and tokens must match,
 * a chain is never followed further than the length needs), and a DMA
 * that fails ends the command with a delivery error.  No guest value
 * sizes an allocation beyond MLX5_CMD_MAX_LEN.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

/* The slot (struct mlx5_cmd_layout of include/linux/mlx5/device.h). */
#define LAY_TYPE            0x00
#define LAY_INLEN           0x04
#define LAY_IN_PTR          0x08
#define LAY_IN              0x10
#define LAY_OUT             0x20
#define LAY_OUT_PTR         0x30
#define LAY_OUTLEN          0x38
#define LAY_TOKEN           0x3c
#define LAY_STATUS_OWN      0x3f
#define LAY_SIZE            0x40

#define CMD_INLINE          16          /* in[] and out[] of the slot */
#define CMD_XPORT_PCI       7           /* the only slot type */

/* A mailbox (struct mlx5_cmd_prot_block). */
#define MB_DATA             512
#define MB_NEXT             0x230
#define MB_BLOCK_NUM        0x238
#define MB_TOKEN            0x23d
#define MB_SIZE             0x240

/*
 * The longest command either way: 16 bytes inline and 8192 mailboxes,
 * 4 MiB (a MANAGE_PAGES of 512k pages, an MTT list of 2 GiB).
 */
#define CMD_MAX_BLOCKS      8192
#define CMD_MAX_LEN         (CMD_INLINE + CMD_MAX_BLOCKS * MB_DATA)

/* Delivery status, bits 7:1 of status_own. */
enum {
    DELIV_OK                = 0x0,
    DELIV_TOKEN_ERR         = 0x2,
    DELIV_BAD_BLOCK_NUM     = 0x3,
    DELIV_OUT_PTR_ERR       = 0x4,
    DELIV_IN_PTR_ERR        = 0x5,
    DELIV_IN_LENGTH_ERR     = 0x7,
    DELIV_OUT_LENGTH_ERR    = 0x8,
    DELIV_BAD_DESCRIPTOR    = 0x10,
};

static unsigned int cmd_blocks(uint32_t len)
{
    return len > CMD_INLINE ? DIV_ROUND_UP(len - CMD_INLINE, MB_DATA) : 0;
}

/*
 * Walk the mailbox chain at ptr for len bytes of a command: check each
 * block's number and token.  With addrs, note each block's address there
 * (the output's); with data, copy the blocks' data into it (the input).
 */
static int cmd_walk_chain(MLX5State *s, dma_addr_t ptr, uint32_t len,
                          uint8_t token, dma_addr_t *addrs, uint8_t *data,
                          int ptr_err)
{
    PCIDevice *d = PCI_DEVICE(s);
    unsigned int i, n = cmd_blocks(len);
    uint8_t mb[MB_SIZE];

    for (i = 0; i < n; i++) {
        if (!ptr || (ptr & 7)) {
            return ptr_err;
        }
        if (pci_dma_read(d, ptr, mb, MB_SIZE) != MEMTX_OK) {
            return ptr_err;
        }
        if (ldl_be_p(mb + MB_BLOCK_NUM) != i) {
            return DELIV_BAD_BLOCK_NUM;
        }
        if (mb[MB_TOKEN] != token) {
            return DELIV_TOKEN_ERR;
        }
        if (addrs) {
            addrs[i] = ptr;
        }
        if (data) {
            memcpy(data + i * MB_DATA, mb,
                   MIN(MB_DATA, len - CMD_INLINE - i * MB_DATA));
        }
        ptr = ldq_be_p(mb + MB_NEXT);
    }
    return DELIV_OK;
}

/* Run one slot; returns the delivery status. */
static int cmd_deliver(MLX5State *s, unsigned int slot, uint8_t *lay)
{
    PCIDevice *d = PCI_DEVICE(s);
    uint32_t inlen = ldl_be_p(lay + LAY_INLEN);
    uint32_t outlen = ldl_be_p(lay + LAY_OUTLEN);
    uint8_t token = lay[LAY_TOKEN];
    g_autofree uint8_t *in = NULL;
    g_autofree uint8_t *out = NULL;
    g_autofree dma_addr_t *out_addrs = NULL;
    MLX5Cmd cmd = { 0 };
    unsigned int i;
    int deliv, status;

    if (lay[LAY_TYPE] != CMD_XPORT_PCI) {
        return DELIV_BAD_DESCRIPTOR;
    }
    /* Both ends carry at least the header: opcode/op_mod, status/syndrome. */
    if (inlen < 8 || inlen > CMD_MAX_LEN) {
        return DELIV_IN_LENGTH_ERR;
    }
    if (outlen < 8 || outlen > CMD_MAX_LEN) {
        return DELIV_OUT_LENGTH_ERR;
    }

    in = g_malloc0(inlen);
    memcpy(in, lay + LAY_IN, MIN(inlen, CMD_INLINE));
    deliv = cmd_walk_chain(s, ldq_be_p(lay + LAY_IN_PTR), inlen, token,
                           NULL, in + CMD_INLINE, DELIV_IN_PTR_ERR);
    if (deliv != DELIV_OK) {
        return deliv;
    }

    /*
     * The output chain is checked before the command runs, so a command
     * with effects never runs when its answer cannot be delivered.
     */
    out = g_malloc0(outlen);
    out_addrs = g_new(dma_addr_t, cmd_blocks(outlen) + 1);
    deliv = cmd_walk_chain(s, ldq_be_p(lay + LAY_OUT_PTR), outlen, token,
                           out_addrs, NULL, DELIV_OUT_PTR_ERR);
    if (deliv != DELIV_OK) {
        return deliv;
    }

    cmd.in = in;
    cmd.inlen = inlen;
    cmd.out = out;
    cmd.outlen = outlen;
    cmd.opcode = lduw_be_p(in);
    cmd.op_mod = lduw_be_p(in + 6);
    trace_mlx5_cmd_exec(slot, cmd.opcode, mlx5_cmd_name(cmd.opcode),
                        cmd.op_mod, inlen, outlen);
    status = mlx5_hca_exec(s, &cmd);
    /* A failed command's output is its status and syndrome alone. */
    if (status != MLX5_CMD_STAT_OK) {
        memset(out, 0, outlen);
        stl_be_p(out + 4, cmd.syndrome);
    }
    out[0] = status;
    trace_mlx5_cmd_done(slot, cmd.opcode, mlx5_cmd_name(cmd.opcode), status,
                        status != MLX5_CMD_STAT_OK ? cmd.syndrome : 0);

    for (i = 0; i < cmd_blocks(outlen); i++) {
        if (pci_dma_write(d, out_addrs[i], out + CMD_INLINE + i * MB_DATA,
                          MIN(MB_DATA, outlen - CMD_INLINE - i * MB_DATA))
            != MEMTX_OK) {
            return DELIV_OUT_PTR_ERR;
        }
    }
    if (pci_dma_write(d, s->cmdq_base + slot * LAY_SIZE + LAY_OUT, out,
                      MIN(outlen, CMD_INLINE)) != MEMTX_OK) {
        return DELIV_OUT_PTR_ERR;
    }
    return DELIV_OK;
}

static void cmd_run_slot(MLX5State *s, unsigned int slot)
{
    PCIDevice *d = PCI_DEVICE(s);
    dma_addr_t addr = s->cmdq_base + slot * LAY_SIZE;
    uint8_t lay[LAY_SIZE];
    uint8_t status_own;
    uint64_t listeners;
    int deliv;

    if (pci_dma_read(d, addr, lay, sizeof(lay)) != MEMTX_OK) {
        /* Nowhere to report it: the slot itself is not guest memory. */
        trace_mlx5_cmd_bad_slot(slot, addr);
        return;
    }
    if (!(lay[LAY_STATUS_OWN] & 1)) {
        /* Rung for a slot the driver did not hand over. */
        trace_mlx5_cmd_not_owned(slot);
        return;
    }
    listeners = mlx5_eq_cmd_listeners(s);
    deliv = cmd_deliver(s, slot, lay);
    if (deliv != DELIV_OK) {
        trace_mlx5_cmd_delivery_error(slot, deliv);
    }

    /* The output is in place before the slot goes back to the driver. */
    smp_wmb();
    status_own = deliv << 1;
    pci_dma_write(d, addr + LAY_STATUS_OWN, &status_own, 1);
    /* In event mode the driver waits for this, not for the bit. */
    mlx5_eq_cmd_done(s, listeners, slot);
}

static void mlx5_cmd_bh(void *opaque)
{
    MLX5State *s = opaque;
    uint32_t pending = s->cmd_pending;
    unsigned int slot;

    s->cmd_pending = 0;
    s->cmdq_base = (uint64_t)s->cmdq_addr_h << 32 | s->cmdq_addr_l;
    for (slot = 0; slot < MLX5_CMDQ_SLOTS; slot++) {
        if (pending & (1u << slot)) {
            cmd_run_slot(s, slot);
        }
    }
}

void mlx5_cmd_doorbell(MLX5State *s, uint32_t slots)
{
    trace_mlx5_cmd_doorbell(slots);
    if (!s->cmdq_addr_h && !s->cmdq_addr_l) {
        /* No queue yet: a driver would not ring; nothing to run. */
        return;
    }
    s->cmd_pending |= slots;
    qemu_bh_schedule(s->cmd_bh);
}

void mlx5_cmd_reset(MLX5State *s)
{
    qemu_bh_cancel(s->cmd_bh);
    s->cmd_pending = 0;
}

void mlx5_cmd_realize(MLX5State *s)
{
    s->cmd_bh = qemu_bh_new_guarded(mlx5_cmd_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);
}

void mlx5_cmd_unrealize(MLX5State *s)
{
    qemu_bh_delete(s->cmd_bh);
}

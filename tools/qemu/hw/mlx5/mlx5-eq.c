/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: event queues.
 *
 * An EQ is a ring of 64-byte EQEs in guest memory, given page by page
 * (CREATE_EQ's pas list).  The device writes an EQE at its producer
 * index with the owner bit set to the parity of the ring's passes (the
 * driver starts every entry at 1, and takes an entry whose owner bit
 * matches the parity of its own consumer index), then, if the EQ is
 * armed, disarms it and raises its MSI-X vector.  The driver reports its
 * consumer index through the EQ doorbell of its UAR page: offset 0x40
 * arms the EQ, 0x48 does not; the value is eqn << 24 | consumer index.
 *
 * Command completions: once an EQ that subscribes to command events
 * exists, every command that completes posts an EQE of type 0x0a naming
 * its slot; the command that creates or destroys that EQ does not (the
 * driver polls across both).
 *
 * Every CREATE_EQ field is checked against what the model offers; a
 * ring must be covered by the pages the command carries.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "hw/pci/msix.h"
#include "sysemu/dma.h"
#include "mlx5.h"
#include "mlx5-ifc.h"
#include "trace.h"

#define EQE_SIZE            64
#define EQE_TYPE            1
#define EQE_SUBTYPE         3
#define EQE_DATA            0x20
#define EQE_OWNER           0x3f

#define EQ_DB_ARM           0x40
#define EQ_DB_NOARM         0x48

/* The largest ring the model takes: 2^22 entries (log_max_eq_sz). */
#define EQ_LOG_MAX_SIZE     22
#define EQ_LOG_MAX_PAGE     18          /* pages of up to 1 GiB */

static bool eq_wants(MLX5EQ *eq, unsigned int type)
{
    return eq->mask[type / 64] & (1ULL << (type % 64));
}

static dma_addr_t eq_entry_addr(MLX5EQ *eq, uint32_t idx)
{
    return mlx5_pas_addr(eq->pas, eq->log_page_size,
                         (uint64_t)idx * EQE_SIZE);
}

static uint32_t eq_used(MLX5EQ *eq)
{
    return (eq->prod - eq->cons) & MLX5_EQ_COUNTER_MASK;
}

static void eq_notify(MLX5State *s, MLX5EQ *eq)
{
    if (eq->armed && eq_used(eq)) {
        eq->armed = false;
        trace_mlx5_eq_irq(eq - s->eqs, eq->intr);
        msix_notify(PCI_DEVICE(s), eq->intr);
    }
}

/* Post one EQE (type, subtype, and 28 bytes of data) to EQ eqn. */
static void eq_post(MLX5State *s, unsigned int eqn, uint8_t type,
                    uint8_t subtype, const uint8_t *data)
{
    MLX5EQ *eq = &s->eqs[eqn];
    uint32_t nent = 1u << eq->log_size;
    uint8_t eqe[EQE_SIZE] = { 0 };
    dma_addr_t addr;

    if (eq_used(eq) >= nent) {
        /* The driver did not keep up: the entry is lost. */
        trace_mlx5_eq_overrun(eqn);
        return;
    }
    addr = eq_entry_addr(eq, eq->prod & (nent - 1));
    eqe[EQE_TYPE] = type;
    eqe[EQE_SUBTYPE] = subtype;
    memcpy(eqe + EQE_DATA, data, 28);
    pci_dma_write(PCI_DEVICE(s), addr, eqe, EQE_OWNER);
    /* The entry is whole before the driver can take it. */
    smp_wmb();
    eqe[EQE_OWNER] = (eq->prod >> eq->log_size) & 1;
    pci_dma_write(PCI_DEVICE(s), addr + EQE_OWNER, eqe + EQE_OWNER, 1);
    trace_mlx5_eq_post(eqn, type, eq->prod);
    eq->prod = (eq->prod + 1) & MLX5_EQ_COUNTER_MASK;
    eq_notify(s, eq);
}

uint64_t mlx5_eq_cmd_listeners(MLX5State *s)
{
    uint64_t eqs = 0;
    int i;

    for (i = 0; i < MLX5_MAX_EQS; i++) {
        if (s->eqs[i].valid && eq_wants(&s->eqs[i], MLX5_EVENT_CMD)) {
            eqs |= 1ULL << i;
        }
    }
    return eqs;
}

void mlx5_eq_cmd_done(MLX5State *s, uint64_t listeners, unsigned int slot)
{
    uint8_t data[28] = { 0 };
    int i;

    stl_be_p(data, 1u << slot);
    /* Those that listened before the command and still do. */
    listeners &= mlx5_eq_cmd_listeners(s);
    for (i = 0; i < MLX5_MAX_EQS; i++) {
        if (listeners & (1ULL << i)) {
            eq_post(s, i, MLX5_EVENT_CMD, 0, data);
        }
    }
}

bool mlx5_eq_valid(MLX5State *s, uint32_t eqn)
{
    return eqn < MLX5_MAX_EQS && s->eqs[eqn].valid;
}

/* A completion event: to the CQ's EQ, whatever its event mask. */
void mlx5_eq_post_to(MLX5State *s, uint32_t eqn, uint8_t type,
                     uint8_t subtype, const uint8_t *data)
{
    if (mlx5_eq_valid(s, eqn)) {
        eq_post(s, eqn, type, subtype, data);
    }
}

/* An asynchronous event: to every EQ that takes its type. */
void mlx5_eq_event(MLX5State *s, uint8_t type, uint8_t subtype,
                   const uint8_t *data)
{
    int i;

    for (i = 0; i < MLX5_MAX_EQS; i++) {
        if (s->eqs[i].valid && eq_wants(&s->eqs[i], type)) {
            eq_post(s, i, type, subtype, data);
        }
    }
}

void mlx5_eq_doorbell(MLX5State *s, unsigned int uar, hwaddr off,
                      uint32_t val)
{
    unsigned int eqn = val >> 24;
    MLX5EQ *eq;

    if (off != EQ_DB_ARM && off != EQ_DB_NOARM) {
        return;
    }
    if (eqn >= MLX5_MAX_EQS || !s->eqs[eqn].valid ||
        s->eqs[eqn].uar != uar) {
        trace_mlx5_eq_bad_doorbell(uar, val);
        return;
    }
    eq = &s->eqs[eqn];
    eq->cons = val & MLX5_EQ_COUNTER_MASK;
    trace_mlx5_eq_doorbell(eqn, eq->cons, off == EQ_DB_ARM);
    if (off == EQ_DB_ARM) {
        eq->armed = true;
        /* Entries the driver has not consumed yet: interrupt again. */
        eq_notify(s, eq);
    }
}

static void eq_free(MLX5EQ *eq)
{
    g_free(eq->pas);
    memset(eq, 0, sizeof(*eq));
}

void mlx5_eq_reset(MLX5State *s)
{
    int i;

    for (i = 0; i < MLX5_MAX_EQS; i++) {
        eq_free(&s->eqs[i]);
    }
}

int mlx5_cmd_create_eq(MLX5State *s, MLX5Cmd *cmd)
{
    size_t hdr = MLX5_ST_SZ_BYTES(create_eq_in);
    const uint8_t *eqc = MLX5_ADDR_OF(create_eq_in, cmd->in,
                                      eq_context_entry);
    const uint8_t *mask = MLX5_ADDR_OF(create_eq_in, cmd->in,
                                       event_bitmask);
    unsigned int log_size, log_page, intr, uar, i, eqn;
    uint64_t npas;
    MLX5EQ *eq;
    int st;

    if (cmd->inlen < hdr) {
        cmd->syndrome = MLX5_SYND_IN_SHORT;
        return MLX5_CMD_STAT_BAD_INP_LEN_ERR;
    }
    if (cmd->outlen < MLX5_ST_SZ_BYTES(create_eq_out)) {
        cmd->syndrome = MLX5_SYND_OUT_SHORT;
        return MLX5_CMD_STAT_BAD_OUTP_LEN_ERR;
    }
    log_size = MLX5_GET(eqc, eqc, log_eq_size);
    log_page = MLX5_GET(eqc, eqc, log_page_size);
    intr = MLX5_GET(eqc, eqc, intr);
    uar = MLX5_GET(eqc, eqc, uar_page);
    if (log_size > EQ_LOG_MAX_SIZE || log_page > EQ_LOG_MAX_PAGE ||
        intr >= MLX5_MSIX_VECTORS || MLX5_GET(eqc, eqc, page_offset) ||
        uar < MLX5_UAR_FIRST || uar >= MLX5_UAR_FIRST + MLX5_UAR_COUNT ||
        !test_bit(uar - MLX5_UAR_FIRST, s->uars)) {
        cmd->syndrome = MLX5_SYND_BAD_PARAM;
        return MLX5_CMD_STAT_BAD_PARAM_ERR;
    }
    /* The ring's pages must all be in the command. */
    npas = DIV_ROUND_UP((uint64_t)EQE_SIZE << log_size,
                        (uint64_t)4096 << log_page);
    st = mlx5_pas_check(cmd, hdr, npas, log_page);
    if (st) {
        return st;
    }
    for (eqn = 0; eqn < MLX5_MAX_EQS; eqn++) {
        if (!s->eqs[eqn].valid) {
            break;
        }
    }
    if (eqn == MLX5_MAX_EQS) {
        cmd->syndrome = MLX5_SYND_NO_RESOURCE;
        return MLX5_CMD_STAT_LIM_ERR;
    }

    eq = &s->eqs[eqn];
    eq->valid = true;
    eq->log_size = log_size;
    eq->log_page_size = log_page;
    eq->intr = intr;
    eq->uar = uar;
    for (i = 0; i < 4; i++) {
        eq->mask[i] = ldq_be_p(mask + i * 8);
    }
    eq->pas = mlx5_pas_copy(cmd, hdr, npas);
    /* Created disarmed: the driver arms it with its first doorbell. */
    trace_mlx5_eq_create(eqn, log_size, intr, uar, eq->mask[0]);
    MLX5_SET(create_eq_out, cmd->out, eq_number, eqn);
    return MLX5_CMD_STAT_OK;
}

int mlx5_cmd_destroy_eq(MLX5State *s, MLX5Cmd *cmd)
{
    unsigned int eqn;

    if (cmd->inlen < MLX5_ST_SZ_BYTES(destroy_eq_in)) {
        cmd->syndrome = MLX5_SYND_IN_SHORT;
        return MLX5_CMD_STAT_BAD_INP_LEN_ERR;
    }
    if (cmd->outlen < MLX5_ST_SZ_BYTES(destroy_eq_out)) {
        cmd->syndrome = MLX5_SYND_OUT_SHORT;
        return MLX5_CMD_STAT_BAD_OUTP_LEN_ERR;
    }
    eqn = MLX5_GET(destroy_eq_in, cmd->in, eq_number);
    if (eqn >= MLX5_MAX_EQS || !s->eqs[eqn].valid) {
        cmd->syndrome = MLX5_SYND_BAD_PARAM;
        return MLX5_CMD_STAT_BAD_RES_ERR;
    }
    trace_mlx5_eq_destroy(eqn);
    eq_free(&s->eqs[eqn]);
    return MLX5_CMD_STAT_OK;
}

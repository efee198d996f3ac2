/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: interrupts.  Every cause (a queue's, the admin queue's,
 * the OICR's, later the PE's) lands on an MSI-X vector, gated by that
 * vector's GLINT_DYN_CTL register:
 *
 *  - INTENA enables the vector.  The device masks it again when it
 *    fires (automask: ice leaves GLINT_CTL.DIS_AUTOMASK clear), and the
 *    driver enables it once it has handled the cause (ice's NAPI poll
 *    end, its misc handler's end).  A cause that comes while the vector
 *    is masked stays pending and fires on the next enable.
 *  - INTENA_MSK in a write keeps INTENA as it was: ice writes it with
 *    WB_ON_ITR and with the software ITR index only.
 *  - SWINT_TRIG fires the vector from software (ice kicks NAPI so).
 *  - CLEARPBA clears the vector's bit in the MSI-X pending bit array
 *    (set while the vector is masked in the MSI-X table), not a cause
 *    latched while INTENA was clear: ice and irdma re-enable with
 *    INTENA | CLEARPBA once they have polled their queues, and a cause
 *    that came between that poll and the write must still fire, or
 *    its completion event is lost (irdma's CEQ: rping and the
 *    event-driven ping-pongs stalled until a timeout).
 *
 * The ITR intervals are kept but not honoured: a model that delays
 * interrupts only slows TCG guests.
 *
 * PFINT_OICR collects the other causes and clears on read;
 * PFINT_OICR_ENA selects which of them interrupt, PFINT_OICR_CTL and
 * PFINT_FW_CTL route the OICR and the admin queue to a vector (ice puts
 * both on its misc vector).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/msix.h"
#include "e810.h"

static void e810_irq_fire(E810State *s, unsigned int vec)
{
    s->irq_pending[vec] = false;
    s->dyn_ctl[vec] &= ~E810_GLINT_DYN_CTL_INTENA;
    msix_notify(PCI_DEVICE(s), vec);
}

void e810_irq_raise(E810State *s, unsigned int vec)
{
    if (vec >= E810_MSIX_VECTORS) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: interrupt to vector %u\n", vec);
        return;
    }
    if (s->dyn_ctl[vec] & E810_GLINT_DYN_CTL_INTENA) {
        e810_irq_fire(s, vec);
    } else {
        s->irq_pending[vec] = true;
    }
}

/* A cause routed by a *_CTL register (MSI-X index, cause enable). */
static void e810_irq_ctl(E810State *s, uint32_t ctl)
{
    if (ctl & E810_INT_CTL_CAUSE_ENA) {
        e810_irq_raise(s, E810_INT_CTL_MSIX_INDX(ctl));
    }
}

void e810_oicr_raise(E810State *s, uint32_t cause)
{
    s->oicr |= cause;
    if (s->oicr_ena & cause) {
        e810_irq_ctl(s, s->oicr_ctl);
    }
}

void e810_irq_fw(E810State *s)
{
    e810_irq_ctl(s, s->fw_ctl);
}

static void e810_dyn_ctl_write(E810State *s, unsigned int vec, uint32_t val)
{
    uint32_t old = s->dyn_ctl[vec];
    uint32_t keep = E810_GLINT_DYN_CTL_INTENA;

    if (!(val & E810_GLINT_DYN_CTL_INTENA_MSK)) {
        keep = 0;
    }
    /* The trigger and clear bits act; they are never stored. */
    s->dyn_ctl[vec] = (old & keep) |
                      (val & ~(keep | E810_GLINT_DYN_CTL_SWINT_TRIG |
                               E810_GLINT_DYN_CTL_CLEARPBA |
                               E810_GLINT_DYN_CTL_INTENA_MSK));
    if (val & E810_GLINT_DYN_CTL_CLEARPBA) {
        msix_clr_pending(PCI_DEVICE(s), vec);
    }
    if (val & E810_GLINT_DYN_CTL_SWINT_TRIG) {
        s->irq_pending[vec] = true;
    }
    if (s->irq_pending[vec] && (s->dyn_ctl[vec] & E810_GLINT_DYN_CTL_INTENA)) {
        e810_irq_fire(s, vec);
    }
}

bool e810_irq_reg_read(E810State *s, hwaddr addr, uint32_t *val)
{
    if (addr >= E810_GLINT_DYN_CTL(0) &&
        addr < E810_GLINT_DYN_CTL(E810_MSIX_VECTORS)) {
        *val = s->dyn_ctl[(addr - E810_GLINT_DYN_CTL(0)) / 4];
        return true;
    }
    switch (addr) {
    case E810_PFINT_OICR:
        /* Read to clear. */
        *val = s->oicr;
        s->oicr = 0;
        return true;
    case E810_PFINT_OICR_ENA:
        *val = s->oicr_ena;
        return true;
    case E810_PFINT_OICR_CTL:
        *val = s->oicr_ctl;
        return true;
    case E810_PFINT_FW_CTL:
        *val = s->fw_ctl;
        return true;
    case E810_PFINT_MBX_CTL:
        *val = s->mbx_ctl;
        return true;
    }
    return false;
}

bool e810_irq_reg_write(E810State *s, hwaddr addr, uint32_t val)
{
    if (addr >= E810_GLINT_DYN_CTL(0) &&
        addr < E810_GLINT_DYN_CTL(E810_MSIX_VECTORS)) {
        e810_dyn_ctl_write(s, (addr - E810_GLINT_DYN_CTL(0)) / 4, val);
        return true;
    }
    switch (addr) {
    case E810_PFINT_OICR:
        /* Read-only; ice never writes it. */
        return true;
    case E810_PFINT_OICR_ENA:
        s->oicr_ena = val;
        if (s->oicr & val) {
            e810_irq_ctl(s, s->oicr_ctl);
        }
        return true;
    case E810_PFINT_OICR_CTL:
        s->oicr_ctl = val;
        return true;
    case E810_PFINT_FW_CTL:
        s->fw_ctl = val;
        return true;
    case E810_PFINT_MBX_CTL:
        s->mbx_ctl = val;
        return true;
    }
    return false;
}

void e810_irq_reset(E810State *s)
{
    memset(s->dyn_ctl, 0, sizeof(s->dyn_ctl));
    memset(s->irq_pending, 0, sizeof(s->irq_pending));
    s->oicr = 0;
    s->oicr_ena = 0;
    s->oicr_ctl = 0;
    s->fw_ctl = 0;
    s->mbx_ctl = 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the vendor-specific PCI capability.
 *
 * The driver looks for it at probe (without one it logs "Failed to get
 * valid vendor specific ID") and uses it as a gateway into the device's
 * internal spaces, for crash dumps and firmware reset.  Its dwords, from
 * the capability's start:
 *
 *   0x04  control: the space to open (bits 15:0), and back from the
 *         device whether it is supported (status, bits 31:29) and
 *         whether the address register holds its size (bit 28)
 *   0x08  counter: a new value each read, for the semaphore
 *   0x0c  semaphore: 0 when free; a write of a counter value takes it
 *         when free, a write of 0 frees it
 *   0x10  address (bits 29:0), syndrome (bit 30), flag (bit 31): the
 *         driver writes an address with flag 1 to write the data
 *         register there, with flag 0 to read; the device flips the flag
 *         when done
 *   0x14  data
 *
 * The model has no internal space to show: every space reads back as
 * unsupported (status 0), which makes the crash dump a no-op, and a
 * gateway access completes at once with the syndrome bit set and data 0.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "mlx5.h"
#include "trace.h"

#define VSC_SIZE            0x18
#define VSC_CTRL            0x04
#define VSC_COUNTER         0x08
#define VSC_SEMAPHORE       0x0c
#define VSC_ADDR            0x10
#define VSC_DATA            0x14

#define VSC_SPACE_MASK      0xffff
#define VSC_ADDR_MASK       0x3fffffff
#define VSC_ADDR_SYND       BIT(30)
#define VSC_ADDR_FLAG       BIT(31)

int mlx5_vsc_init(MLX5State *s, Error **errp)
{
    PCIDevice *pci_dev = PCI_DEVICE(s);
    int off;

    off = pci_add_capability(pci_dev, PCI_CAP_ID_VNDR, 0, VSC_SIZE, errp);
    if (off < 0) {
        return off;
    }
    s->vsc_off = off;
    /* A vendor capability's third byte is its length. */
    pci_dev->config[off + PCI_CAP_FLAGS] = VSC_SIZE;
    return 0;
}

void mlx5_vsc_reset(MLX5State *s)
{
    s->vsc_ctrl = 0;
    s->vsc_counter = 0;
    s->vsc_sem = 0;
    s->vsc_addr = 0;
    s->vsc_data = 0;
}

/* The dword at off of the capability, or false if off is not one. */
static bool vsc_reg(MLX5State *s, uint32_t addr, int len, uint32_t *off)
{
    if (!s->vsc_off || addr < s->vsc_off + VSC_CTRL ||
        addr >= s->vsc_off + VSC_SIZE) {
        return false;
    }
    /* The driver uses whole dwords; anything else is config space. */
    if (len != 4 || (addr & 3)) {
        return false;
    }
    *off = addr - s->vsc_off;
    return true;
}

bool mlx5_vsc_read(MLX5State *s, uint32_t addr, int len, uint32_t *val)
{
    uint32_t off;

    if (!vsc_reg(s, addr, len, &off)) {
        return false;
    }
    switch (off) {
    case VSC_CTRL:
        /* The space asked for, status 0: not supported. */
        *val = s->vsc_ctrl & VSC_SPACE_MASK;
        break;
    case VSC_COUNTER:
        /* Never 0, which would read as a free semaphore. */
        if (++s->vsc_counter == 0) {
            s->vsc_counter = 1;
        }
        *val = s->vsc_counter;
        break;
    case VSC_SEMAPHORE:
        *val = s->vsc_sem;
        break;
    case VSC_ADDR:
        *val = s->vsc_addr;
        break;
    default:
        *val = s->vsc_data;
        break;
    }
    trace_mlx5_vsc_read(off, *val);
    return true;
}

bool mlx5_vsc_write(MLX5State *s, uint32_t addr, uint32_t val, int len)
{
    uint32_t off;

    if (!vsc_reg(s, addr, len, &off)) {
        return false;
    }
    trace_mlx5_vsc_write(off, val);
    switch (off) {
    case VSC_CTRL:
        s->vsc_ctrl = val & VSC_SPACE_MASK;
        break;
    case VSC_COUNTER:
        break;
    case VSC_SEMAPHORE:
        if (!val) {
            s->vsc_sem = 0;
        } else if (!s->vsc_sem) {
            s->vsc_sem = val;
        }
        break;
    case VSC_ADDR:
        /*
         * No space is open: the access is over at once, flipped flag and
         * the syndrome bit; a read returns 0.
         */
        if (val & VSC_ADDR_FLAG) {
            s->vsc_addr = (val & VSC_ADDR_MASK) | VSC_ADDR_SYND;
        } else {
            s->vsc_data = 0;
            s->vsc_addr = (val & VSC_ADDR_MASK) | VSC_ADDR_SYND |
                          VSC_ADDR_FLAG;
        }
        break;
    default:
        s->vsc_data = val;
        break;
    }
    return true;
}

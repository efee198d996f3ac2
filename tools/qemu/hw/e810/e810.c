/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model: the PCI function, BAR0's register file, resets.
 *
 * BAR0 (64-bit, 128 MiB) holds every register as a little-endian
 * dword.  A register belongs to the part that gives it meaning (the
 * control queues, interrupts, NVM, LAN queues: their *_reg_read/write
 * functions); the few that describe the device as a whole are here.
 * Every other register the driver writes is kept and read back as
 * written, and reads as 0 until then: configuration the model does not
 * act on (filters, ITR granularity, statistics' registers, which
 * therefore count nothing).
 *
 * The device comes out of reset at once: GLGEN_RSTAT says no reset in
 * progress, GLNVM_ULD that every unit (the PE included, which irdma
 * waits for) has loaded, and a PF software reset (PFGEN_CTRL.PFSWR)
 * completes inside the write that asks for it, forgetting what the
 * driver made (control queues, VSIs, scheduler nodes, LAN queues).
 *
 * MSI-X lives in BAR3, as on the real device.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "sysemu/dma.h"
#include "e810.h"
#include "trace.h"

/* Every unit's "load done" bit in GLNVM_ULD, the PE's (bit 10) included. */
#define E810_GLNVM_ULD_ALL      0x0000073b
#define E810_PFPM_WUS           0x0009db80

bool e810_dma_read(E810State *s, uint64_t addr, void *buf, size_t len)
{
    return pci_dma_read(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK;
}

bool e810_dma_write(E810State *s, uint64_t addr, const void *buf, size_t len)
{
    return pci_dma_write(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK;
}

void e810_mac_addr(E810State *s, uint8_t mac[6])
{
    memcpy(mac, s->conf.macaddr.a, 6);
}

/* A PF reset: the driver's objects go, the PCI function stays. */
static void e810_pf_reset(E810State *s)
{
    e810_pe_reset(s);
    e810_lan_reset(s);
    e810_sw_reset(s);
    e810_sched_reset(s);
    e810_ddp_reset(s);
    e810_phy_reset(s);
    e810_nvm_reset(s);
    e810_fw_reset(s);
    e810_aq_reset(s);
    e810_irq_reset(s);
    g_hash_table_remove_all(s->regs);
    /*
     * Frames QEMU held while a LAN ring was full would stay held (and
     * the netdev would read no more) until the ring moved, which a reset
     * ring never does: they go now, to no queue, as the hardware drops
     * them, and the wire is read again.
     */
    if (s->nic) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
}

static bool e810_dev_reg_read(E810State *s, hwaddr addr, uint32_t *val)
{
    switch (addr) {
    case E810_PF_FUNC_RID:
        /* PF 0, bus-device-function as the driver sees it: 0. */
        *val = 0;
        return true;
    case E810_PFGEN_CTRL:
        /* PFSWR clears when the reset is done: it always is. */
        *val = 0;
        return true;
    case E810_GLGEN_RSTAT:
        /* DEVSTATE 0: no reset in progress. */
        *val = 0;
        return true;
    case E810_GLNVM_ULD:
        *val = E810_GLNVM_ULD_ALL;
        return true;
    case E810_PFPM_WUS:
        /* No wake-up event: powered on, never woken. */
        *val = 0;
        return true;
    }
    return false;
}

static bool e810_dev_reg_write(E810State *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case E810_PFGEN_CTRL:
        if (val & E810_PFGEN_CTRL_PFSWR) {
            trace_e810_reset();
            e810_pf_reset(s);
        }
        return true;
    case E810_PF_FUNC_RID:
    case E810_GLGEN_RSTAT:
    case E810_GLNVM_ULD:
    case E810_PFPM_WUS:
        /* Read-only, or status the driver clears (nothing to clear). */
        return true;
    }
    return false;
}

static uint32_t e810_reg_read(E810State *s, hwaddr addr)
{
    uint32_t val;

    if (e810_dev_reg_read(s, addr, &val) ||
        e810_aq_reg_read(s, addr, &val) ||
        e810_irq_reg_read(s, addr, &val) ||
        e810_nvm_reg_read(s, addr, &val) ||
        e810_lan_reg_read(s, addr, &val) ||
        e810_pe_reg_read(s, addr, &val)) {
        return val;
    }
    return GPOINTER_TO_UINT(g_hash_table_lookup(s->regs,
                                                GUINT_TO_POINTER(addr)));
}

static void e810_reg_write(E810State *s, hwaddr addr, uint32_t val)
{
    if (e810_dev_reg_write(s, addr, val) ||
        e810_aq_reg_write(s, addr, val) ||
        e810_irq_reg_write(s, addr, val) ||
        e810_lan_reg_write(s, addr, val) ||
        e810_pe_reg_write(s, addr, val)) {
        return;
    }
    /*
     * Kept for reading back.  The table is bounded by what a driver
     * can name: 32 Mi dwords of BAR0 at most, a few hundred in practice.
     */
    if (val) {
        g_hash_table_insert(s->regs, GUINT_TO_POINTER(addr),
                            GUINT_TO_POINTER(val));
    } else {
        g_hash_table_remove(s->regs, GUINT_TO_POINTER(addr));
    }
}

static uint64_t e810_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
    E810State *s = opaque;
    uint32_t val;

    /* Dword registers; a narrower read takes its bytes of the dword. */
    val = e810_reg_read(s, addr & ~3ULL);
    trace_e810_bar0_read(addr, val);
    return extract32(val, (addr & 3) * 8, MIN(size, 4) * 8);
}

static void e810_bar0_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    E810State *s = opaque;

    trace_e810_bar0_write(addr, val);
    if (size != 4 || (addr & 3)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: %u-byte write at 0x%" HWADDR_PRIx "\n",
                      size, addr);
        return;
    }
    e810_reg_write(s, addr, val);
}

static const MemoryRegionOps e810_bar0_ops = {
    .read = e810_bar0_read,
    .write = e810_bar0_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

static bool e810_nc_can_receive(NetClientState *nc)
{
    return e810_lan_can_receive(qemu_get_nic_opaque(nc));
}

static ssize_t e810_nc_receive(NetClientState *nc, const uint8_t *buf,
                               size_t len)
{
    E810State *s = qemu_get_nic_opaque(nc);

    /* RoCEv2 to the port's address is the PE's, not the LAN queues'. */
    if (e810_roce_rx(s, buf, len)) {
        return len;
    }
    return e810_lan_receive(s, buf, len);
}

static void e810_nc_link_changed(NetClientState *nc)
{
    e810_phy_link_changed(qemu_get_nic_opaque(nc));
}

static NetClientInfo e810_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = e810_nc_can_receive,
    .receive = e810_nc_receive,
    .link_status_changed = e810_nc_link_changed,
};

static void e810_realize(PCIDevice *pci_dev, Error **errp)
{
    E810State *s = E810(pci_dev);
    DeviceState *dev = DEVICE(pci_dev);
    int ret;

    pci_dev->config[PCI_INTERRUPT_PIN] = 1;
    memory_region_init_io(&s->bar0, OBJECT(s), &e810_bar0_ops, s,
                          "e810-bar0", E810_BAR0_SIZE);
    pci_register_bar(pci_dev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);
    if (msix_init_exclusive_bar(pci_dev, E810_MSIX_VECTORS, E810_MSIX_BAR,
                                errp)) {
        return;
    }
    if (pci_bus_is_express(pci_get_bus(pci_dev))) {
        ret = pcie_endpoint_cap_init(pci_dev, 0xe0);
        if (ret < 0) {
            error_setg(errp, "e810: cannot add the PCIe capability");
            msix_uninit_exclusive_bar(pci_dev);
            return;
        }
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&e810_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);

    s->regs = g_hash_table_new(NULL, NULL);
    e810_aq_realize(s);
    e810_fw_realize(s);
    e810_nvm_realize(s);
    e810_ddp_realize(s);
    e810_sched_realize(s);
    e810_sw_realize(s);
    e810_phy_realize(s);
    e810_lan_realize(s);
    e810_pe_realize(s);
}

static void e810_exit(PCIDevice *pci_dev)
{
    E810State *s = E810(pci_dev);

    e810_pe_unrealize(s);
    e810_lan_unrealize(s);
    e810_phy_unrealize(s);
    e810_sw_unrealize(s);
    e810_sched_unrealize(s);
    e810_ddp_unrealize(s);
    e810_nvm_unrealize(s);
    e810_fw_unrealize(s);
    e810_aq_unrealize(s);
    g_hash_table_destroy(s->regs);
    qemu_del_nic(s->nic);
    msix_unuse_all_vectors(pci_dev);
    msix_uninit_exclusive_bar(pci_dev);
}

static void e810_reset(DeviceState *dev)
{
    E810State *s = E810(dev);
    int i;

    trace_e810_reset();
    e810_pf_reset(s);
    msix_reset(PCI_DEVICE(s));
    for (i = 0; i < E810_MSIX_VECTORS; i++) {
        msix_vector_use(PCI_DEVICE(s), i);
    }
}

static Property e810_properties[] = {
    DEFINE_NIC_PROPERTIES(E810State, conf),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription vmstate_e810 = {
    .name = "e810",
    .unmigratable = 1,
};

static void e810_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = e810_realize;
    pc->exit = e810_exit;
    pc->vendor_id = E810_VENDOR_ID;
    pc->device_id = E810_DEVICE_ID_XXV_SFP;
    pc->subsystem_vendor_id = E810_VENDOR_ID;
    pc->subsystem_id = 0;
    pc->revision = 2;
    pc->class_id = PCI_CLASS_NETWORK_ETHERNET;
    dc->desc = "Intel Ethernet E810-XXV (ice, irdma) model";
    dc->vmsd = &vmstate_e810;
    dc->reset = e810_reset;
    device_class_set_props(dc, e810_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo e810_info = {
    .name = TYPE_E810,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(E810State),
    .class_init = e810_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void e810_register_types(void)
{
    type_register_static(&e810_info);
}

type_init(e810_register_types)

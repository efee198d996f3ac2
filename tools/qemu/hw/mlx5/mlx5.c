/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the PCI function, BAR0's initialization segment,
 * the health buffer and timers, MSI-X.
 *
 * BAR0 (64-bit, prefetchable, 32 MiB) starts with the initialization
 * segment: firmware revision, command interface revision, the command
 * queue's address and doorbell, the `initializing' flag, the health
 * buffer, the free-running timer and the health counter.  All registers
 * are big-endian dwords.  UAR pages follow from page 4 on, with the
 * doorbells of EQs, CQs and send queues (mlx5_uar_write()).
 *
 * A test can make the firmware die (x-fault-inject=on only): a dword
 * written to MLX5_CFG_X_FATAL, a word of extended configuration space
 * outside every capability, whose low byte, when not 0, is the health
 * syndrome of a fatal error.  Configuration space, not BAR0: a root
 * process may write it through sysfs while mlx5_core owns the BAR
 * (IO_STRICT_DEVMEM refuses to map a driver's registers).  The device
 * forgets every object at once, as a crashed firmware would, runs no
 * command, and shows the NIC interface disabled with the syndrome in
 * the health buffer, which mlx5_core's health poll takes for a fatal
 * error (NIC_DISABLED).  Its recovery reloads the driver, whose next
 * command queue address starts the firmware again.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "mlx5.h"
#include "trace.h"

static uint64_t mlx5_clock_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static uint32_t mlx5_iseg_read(MLX5State *s, hwaddr addr)
{
    switch (addr) {
    case MLX5_ISEG_FW_REV:
        return MLX5_FW_MINOR << 16 | MLX5_FW_MAJOR;
    case MLX5_ISEG_CMDIF_REV_FW_SUB:
        return MLX5_CMDIF_REV << 16 | MLX5_FW_SUBMINOR;
    case MLX5_ISEG_CMDQ_ADDR_H:
        return s->cmdq_addr_h;
    case MLX5_ISEG_CMDQ_ADDR_L_SZ:
        /* nic_ifc (bits 10:8): 0, fully up, or disabled by a fatal error. */
        return s->cmdq_addr_l | MLX5_CMDQ_LOG_SIZE << 4 | MLX5_CMDQ_LOG_STRIDE |
               (s->fatal_synd ? MLX5_NIC_IFC_DISABLED << 8 : 0);
    case MLX5_ISEG_CMD_DBELL:
        return 0;
    case MLX5_ISEG_INITIALIZING:
        /* Bit 31 clear: firmware initialization is over. */
        return 0;
    case MLX5_ISEG_HEALTH + MLX5_HEALTH_SYND:
        return s->fatal_synd << 16;
    case MLX5_ISEG_HEALTH + MLX5_HEALTH_FW_VER:
        return MLX5_FW_MAJOR << 24 | MLX5_FW_MINOR << 16 | MLX5_FW_SUBMINOR;
    case MLX5_ISEG_CMD_EXEC_TO:
    case MLX5_ISEG_CMD_Q_INIT_TO:
        /* 0: the driver keeps its own default timeouts. */
        return 0;
    case MLX5_ISEG_TIMER_H:
        return mlx5_clock_ns() >> 32;
    case MLX5_ISEG_TIMER_L:
        return (uint32_t)mlx5_clock_ns();
    case MLX5_ISEG_HEALTH_COUNTER:
        /*
         * Firmware's heartbeat: the driver wants a change between two of
         * its polls (2 s apart).  One tick a millisecond of the guest's
         * time, so a stopped guest sees no missed beat.
         */
        return mlx5_clock_ns() / SCALE_MS;
    default:
        /* Reserved words and the rest of the health buffer (syndrome 0). */
        return 0;
    }
}

static uint64_t mlx5_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
    MLX5State *s = opaque;
    uint32_t dw = 0;

    if (addr < MLX5_ISEG_HEALTH_COUNTER + 4) {
        dw = mlx5_iseg_read(s, addr & ~3ULL);
    }
    trace_mlx5_bar0_read(addr, size, dw);
    /*
     * The registers are big-endian dwords and the region is declared
     * little-endian: a dword read returns the bytes in memory order.
     * Smaller reads take their bytes out of that dword.
     */
    dw = bswap32(dw);
    return extract32(dw, (addr & 3) * 8, MIN(size, 4) * 8);
}

/*
 * A UAR page: EQ doorbells at 0x40/0x48, the CQ doorbell at 0x20 (a
 * 64-bit write: arm word, then CQ number), send doorbells at the start
 * of each 256-byte half of the four BlueFlame registers from 0x800
 * (64 bits: the WQE's first control qword, the SQ number in its second
 * dword).  QEMU splits the 64-bit writes into dwords in address order.
 * The rest of a BlueFlame write (a whole WQE copied to the register)
 * is ignored: the model reads WQEs from memory.
 */
static void mlx5_uar_write(MLX5State *s, unsigned int page, hwaddr off,
                           uint32_t dw)
{
    unsigned int slot = page - MLX5_UAR_FIRST;

    switch (off) {
    case 0x20:
        s->uar_db[slot] = dw;
        return;
    case 0x24:
        mlx5_cq_doorbell(s, page, s->uar_db[slot], dw);
        return;
    case 0x40:
    case 0x48:
        mlx5_eq_doorbell(s, page, off, dw);
        return;
    }
    if (off >= 0x800 && (off & 0xff) == 4) {
        mlx5_sq_doorbell(s, page, dw);
    }
}

/* The firmware dies with health syndrome @synd: see the top of the file. */
static void mlx5_fatal(MLX5State *s, uint8_t synd)
{
    trace_mlx5_fatal(synd);
    s->fatal_synd = synd;
    mlx5_cmd_reset(s);
    mlx5_hca_reset(s);
}

static void mlx5_bar0_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    MLX5State *s = opaque;
    uint32_t dw;

    trace_mlx5_bar0_write(addr, size, val);
    if (size != 4 || (addr & 3)) {
        /* The driver writes the segment's registers as whole dwords. */
        return;
    }
    dw = bswap32(val);
    switch (addr) {
    case MLX5_ISEG_CMDQ_ADDR_H:
        s->cmdq_addr_h = dw;
        break;
    case MLX5_ISEG_CMDQ_ADDR_L_SZ:
        /*
         * The queue is page aligned; the size bits are read-only.  The
         * driver starting over after a fatal error: firmware is back.
         */
        s->cmdq_addr_l = dw & ~0xfffu;
        if (s->fatal_synd) {
            trace_mlx5_fatal_cleared(s->fatal_synd);
            s->fatal_synd = 0;
        }
        break;
    case MLX5_ISEG_CMD_DBELL:
        if (!s->fatal_synd) {
            mlx5_cmd_doorbell(s, dw);
        }
        break;
    default:
        if (addr >= MLX5_UAR_FIRST * 4096ULL &&
            addr < (MLX5_UAR_FIRST + MLX5_UAR_COUNT) * 4096ULL) {
            mlx5_uar_write(s, addr / 4096, addr % 4096, dw);
        }
        break;
    }
}

static const MemoryRegionOps mlx5_bar0_ops = {
    .read = mlx5_bar0_read,
    .write = mlx5_bar0_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
};

static ssize_t mlx5_net_receive(NetClientState *nc, const uint8_t *buf,
                                size_t size)
{
    return mlx5_rx_frame(qemu_get_nic_opaque(nc), buf, size);
}

static NetClientInfo mlx5_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = mlx5_net_receive,
};

static void mlx5_realize(PCIDevice *pci_dev, Error **errp)
{
    MLX5State *s = MLX5(pci_dev);
    int i, ret;

    pci_config_set_interrupt_pin(pci_dev->config, 1);

    memory_region_init_io(&s->bar0, OBJECT(s), &mlx5_bar0_ops, s,
                          "mlx5-bar0", MLX5_BAR0_SIZE);
    pci_register_bar(pci_dev, 0,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->bar0);

    /* The driver needs MSI-X (no INTx or MSI fallback). */
    ret = msix_init_exclusive_bar(pci_dev, MLX5_MSIX_VECTORS, MLX5_MSIX_BAR,
                                  errp);
    if (ret) {
        return;
    }
    for (i = 0; i < MLX5_MSIX_VECTORS; i++) {
        msix_vector_use(pci_dev, i);
    }

    ret = mlx5_vsc_init(s, errp);
    if (ret < 0) {
        msix_uninit_exclusive_bar(pci_dev);
        return;
    }
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&mlx5_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), DEVICE(s)->id,
                          &DEVICE(s)->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);

    if (pci_bus_is_express(pci_get_bus(pci_dev))) {
        ret = pcie_endpoint_cap_init(pci_dev, 0x80);
        if (ret < 0) {
            error_setg(errp, "mlx5: cannot add the PCIe capability");
            qemu_del_nic(s->nic);
            msix_uninit_exclusive_bar(pci_dev);
            return;
        }
    }

    mlx5_roce_realize(s);
    mlx5_cmd_realize(s);
    mlx5_hca_reset(s);
}

static void mlx5_exit(PCIDevice *pci_dev)
{
    MLX5State *s = MLX5(pci_dev);

    mlx5_cmd_unrealize(s);
    mlx5_hca_reset(s);
    mlx5_roce_unrealize(s);
    qemu_del_nic(s->nic);
    msix_unuse_all_vectors(pci_dev);
    msix_uninit_exclusive_bar(pci_dev);
}

static void mlx5_reset(DeviceState *dev)
{
    MLX5State *s = MLX5(dev);
    int i;

    trace_mlx5_reset();
    s->cmdq_addr_h = 0;
    s->cmdq_addr_l = 0;
    s->fatal_synd = 0;
    mlx5_cmd_reset(s);
    mlx5_hca_reset(s);
    mlx5_vsc_reset(s);
    msix_reset(PCI_DEVICE(s));
    for (i = 0; i < MLX5_MSIX_VECTORS; i++) {
        msix_vector_use(PCI_DEVICE(s), i);
    }
}

static uint32_t mlx5_config_read(PCIDevice *pci_dev, uint32_t addr, int len)
{
    uint32_t val;

    if (mlx5_vsc_read(MLX5(pci_dev), addr, len, &val)) {
        return val;
    }
    return pci_default_read_config(pci_dev, addr, len);
}

static void mlx5_config_write(PCIDevice *pci_dev, uint32_t addr,
                              uint32_t val, int len)
{
    MLX5State *s = MLX5(pci_dev);

    if (addr == MLX5_CFG_X_FATAL && len == 4) {
        if (s->fault_inject && (val & 0xff) && !s->fatal_synd) {
            mlx5_fatal(s, val & 0xff);
        }
        return;
    }
    if (!mlx5_vsc_write(MLX5(pci_dev), addr, val, len)) {
        pci_default_write_config(pci_dev, addr, val, len);
    }
}

static Property mlx5_properties[] = {
    DEFINE_NIC_PROPERTIES(MLX5State, conf),
    DEFINE_PROP_BOOL("x-fault-inject", MLX5State, fault_inject, false),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription vmstate_mlx5 = {
    .name = "mlx5",
    .unmigratable = 1,
};

static void mlx5_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = mlx5_realize;
    pc->exit = mlx5_exit;
    pc->config_read = mlx5_config_read;
    pc->config_write = mlx5_config_write;
    pc->vendor_id = MLX5_VENDOR_ID;
    pc->device_id = MLX5_DEVICE_ID_CX4LX;
    pc->subsystem_vendor_id = MLX5_VENDOR_ID;
    pc->subsystem_id = 0;
    pc->revision = 0;
    pc->class_id = PCI_CLASS_NETWORK_ETHERNET;
    dc->desc = "Mellanox ConnectX-4 Lx (mlx5) model";
    dc->vmsd = &vmstate_mlx5;
    dc->reset = mlx5_reset;
    device_class_set_props(dc, mlx5_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo mlx5_info = {
    .name = TYPE_MLX5,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(MLX5State),
    .class_init = mlx5_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void mlx5_register_types(void)
{
    type_register_static(&mlx5_info);
}

type_init(mlx5_register_types)

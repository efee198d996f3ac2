// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: four fake devices of two ports each whose
 * process_mad is a performance management agent (PMA) with canned
 * counters, for the core's ports/<N>/counters/ (core_pma.sh):
 *
 *	pmaext0		ClassPortInfo: EXT_WIDTH and EXT_WIDTH_NOIETF (the
 *			first wins), ALLPORTSELECT, XMIT_WAIT
 *	pmanoietf0	ClassPortInfo: EXT_WIDTH_NOIETF, XMIT_WAIT
 *	pmabasic0	ClassPortInfo: ALLPORTSELECT, XMIT_WAIT (neither width)
 *	pmafail0	no answer: IB_MAD_RESULT_FAILURE on port 1, SUCCESS
 *			without REPLY on port 2
 *
 * Every device answers PortCounters and PortCountersExtended alike, so
 * that the value a file shows tells which attribute it came from.  Each
 * field holds a value of its own, near the top of its width, that also
 * depends on the port the request's PortSelect names (pma_value() in
 * core_pma.sh computes the same): a request whose PortSelect is not the
 * port it was sent to, or that is not a PerfMgmt Get of version 1, is
 * refused and counted in bad_mads.  Reserved bytes are filled with ones.
 * delta (writable) is added to port_xmit_data of both attributes, to
 * show that a read asks again; mads counts the requests answered.
 *
 * The devices go with the module.  Only exported API is used, so it
 * builds against either stack.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_verbs.h>

#include "stub_ibdev.h"

#define PMAT_PORTS	2

static ulong delta;
module_param(delta, ulong, 0644);
MODULE_PARM_DESC(delta, "added to port_xmit_data of both attributes");

static atomic_t mads = ATOMIC_INIT(0);
module_param_named(mads, mads.counter, int, 0444);
MODULE_PARM_DESC(mads, "PerfMgmt Gets answered");

static atomic_t bad_mads = ATOMIC_INIT(0);
module_param_named(bad_mads, bad_mads.counter, int, 0444);
MODULE_PARM_DESC(bad_mads, "requests refused as malformed");

struct pmat_kind {
	const char *name;	/* ib_register_device() pattern */
	__be16 caps;		/* ClassPortInfo CapabilityMask */
	bool fail;		/* never a reply */
};

static const struct pmat_kind pmat_kinds[] = {
	{ "pmaext%d", IB_PMA_CLASS_CAP_EXT_WIDTH |
		      IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF |
		      IB_PMA_CLASS_CAP_ALLPORTSELECT |
		      IB_PMA_CLASS_CAP_XMIT_WAIT },
	{ "pmanoietf%d", IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF |
			 IB_PMA_CLASS_CAP_XMIT_WAIT },
	{ "pmabasic%d", IB_PMA_CLASS_CAP_ALLPORTSELECT |
			IB_PMA_CLASS_CAP_XMIT_WAIT },
	{ "pmafail%d", 0, true },
};

struct pmat_device {
	struct ib_device ibdev;
	const struct pmat_kind *kind;
};

static struct pmat_device *pmat_devs[ARRAY_SIZE(pmat_kinds)];

static struct pmat_device *to_pmat(struct ib_device *ibdev)
{
	return container_of(ibdev, struct pmat_device, ibdev);
}

/* The driver's side of core_pma.sh's pma_value(). */
static void pmat_fill_counters(struct ib_pma_portcounters *pc, u8 p)
{
	memset(pc, 0xff, sizeof(*pc));
	pc->port_select = p;
	pc->counter_select = 0;
	pc->symbol_error_counter = cpu_to_be16(0xfe00 + p);
	pc->link_error_recovery_counter = 0xa0 + p;
	pc->link_downed_counter = 0xb0 + p;
	pc->port_rcv_errors = cpu_to_be16(0x1200 + p);
	pc->port_rcv_remphys_errors = cpu_to_be16(0x2300 + p);
	pc->port_rcv_switch_relay_errors = cpu_to_be16(0x3400 + p);
	pc->port_xmit_discards = cpu_to_be16(0x4500 + p);
	pc->port_xmit_constraint_errors = 0xc0 + p;
	pc->port_rcv_constraint_errors = 0xd0 + p;
	/* LocalLinkIntegrityErrors 7:4, ExcessiveBufferOverrunErrors 3:0 */
	pc->link_overrun_errors = ((8 + p) << 4) | (15 - p);
	pc->vl15_dropped = cpu_to_be16(0x5600 + p);
	pc->port_xmit_data = cpu_to_be32(0xf0000000u + p + (u32)delta);
	pc->port_rcv_data = cpu_to_be32(0xe0000000u + p);
	pc->port_xmit_packets = cpu_to_be32(0xd0000000u + p);
	pc->port_rcv_packets = cpu_to_be32(0xc0000000u + p);
	pc->port_xmit_wait = cpu_to_be32(0xb0000000u + p);
}

static void pmat_fill_counters_ext(struct ib_pma_portcounters_ext *pcx, u8 p)
{
	memset(pcx, 0xff, sizeof(*pcx));
	pcx->port_select = p;
	pcx->counter_select = 0;
	pcx->port_xmit_data = cpu_to_be64(0x0123456789abcd00ull + p + delta);
	pcx->port_rcv_data = cpu_to_be64(0xfedcba9876543200ull + p);
	pcx->port_xmit_packets = cpu_to_be64(0x1111111111111100ull + p);
	pcx->port_rcv_packets = cpu_to_be64(0x2222222222222200ull + p);
	pcx->port_unicast_xmit_packets = cpu_to_be64(0x3333333333333300ull + p);
	pcx->port_unicast_rcv_packets = cpu_to_be64(0x4444444444444400ull + p);
	pcx->port_multicast_xmit_packets =
		cpu_to_be64(0x5555555555555500ull + p);
	pcx->port_multicast_rcv_packets =
		cpu_to_be64(0x6666666666666600ull + p);
}

static int pmat_process_mad(struct ib_device *ibdev, int flags, u32 port_num,
			    const struct ib_wc *in_wc,
			    const struct ib_grh *in_grh,
			    const struct ib_mad *in, struct ib_mad *out,
			    size_t *out_size, u16 *out_pkey_index)
{
	const struct pmat_kind *kind = to_pmat(ibdev)->kind;
	const struct ib_pma_mad *req = (const struct ib_pma_mad *)in;
	struct ib_pma_mad *ans = (struct ib_pma_mad *)out;
	const struct ib_mad_hdr *hdr = &in->mad_hdr;
	struct ib_class_port_info *cpi;
	u8 port_select = req->data[1];

	if (hdr->base_version != IB_MGMT_BASE_VERSION ||
	    hdr->mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    hdr->class_version != 1 || hdr->method != IB_MGMT_METHOD_GET ||
	    !(flags & IB_MAD_IGNORE_MKEY) || in_wc || in_grh ||
	    *out_size < sizeof(*out) || port_num < 1 ||
	    port_num > PMAT_PORTS) {
		atomic_inc(&bad_mads);
		return IB_MAD_RESULT_FAILURE;
	}
	if (hdr->attr_id != IB_PMA_CLASS_PORT_INFO &&
	    port_select != port_num) {
		atomic_inc(&bad_mads);
		return IB_MAD_RESULT_FAILURE;
	}

	if (kind->fail)
		return port_num == 1 ? IB_MAD_RESULT_FAILURE :
				       IB_MAD_RESULT_SUCCESS;

	ans->mad_hdr = *hdr;
	ans->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	switch (be16_to_cpu(hdr->attr_id)) {
	case 0x0001:	/* ClassPortInfo */
		cpi = (struct ib_class_port_info *)ans->data;
		memset(cpi, 0xff, sizeof(*cpi));
		cpi->base_version = IB_MGMT_BASE_VERSION;
		cpi->class_version = 1;
		cpi->capability_mask = kind->caps;
		break;
	case 0x0012:	/* PortCounters */
		pmat_fill_counters((struct ib_pma_portcounters *)ans->data,
				   port_select);
		break;
	case 0x001d:	/* PortCountersExtended */
		pmat_fill_counters_ext((struct ib_pma_portcounters_ext *)
				       ans->data, port_select);
		break;
	default:
		atomic_inc(&bad_mads);
		return IB_MAD_RESULT_FAILURE;
	}
	atomic_inc(&mads);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

static const struct ib_device_ops pmat_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.process_mad = pmat_process_mad,
};

static void pmat_remove_all(void)
{
	int i;

	for (i = ARRAY_SIZE(pmat_devs) - 1; i >= 0; i--) {
		if (!pmat_devs[i])
			continue;
		ib_unregister_device(&pmat_devs[i]->ibdev);
		ib_dealloc_device(&pmat_devs[i]->ibdev);
		pmat_devs[i] = NULL;
	}
}

static int __init pmat_init(void)
{
	struct pmat_device *dev;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(pmat_kinds); i++) {
		dev = ib_alloc_device(pmat_device, ibdev);
		if (!dev) {
			ret = -ENOMEM;
			goto err;
		}
		dev->kind = &pmat_kinds[i];
		dev->ibdev.node_type = RDMA_NODE_IB_CA;
		dev->ibdev.phys_port_cnt = PMAT_PORTS;
		dev->ibdev.num_comp_vectors = 1;
		ib_set_device_ops(&dev->ibdev, &pmat_ops);
		ib_set_device_ops(&dev->ibdev, &stub_ibdev_ops);
		ret = ib_register_device(&dev->ibdev, pmat_kinds[i].name, NULL);
		if (ret) {
			pr_err("cannot register %s: %d\n", pmat_kinds[i].name,
			       ret);
			ib_dealloc_device(&dev->ibdev);
			goto err;
		}
		pmat_devs[i] = dev;
	}
	return 0;

err:
	pmat_remove_all();
	return ret;
}

static void __exit pmat_exit(void)
{
	pmat_remove_all();
}

module_init(pmat_init);
module_exit(pmat_exit);

MODULE_DESCRIPTION("oot-rdma selftest: fake PMAs behind ports/<N>/counters/");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);

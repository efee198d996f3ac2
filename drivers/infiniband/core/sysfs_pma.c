// SPDX-License-Identifier: GPL-2.0-only
/*
 * ports/<N>/counters/: the port's performance management (PMA) counters,
 * for a device that answers MADs itself (ops.process_mad).
 *
 * Nothing is kept: each read hands the driver a PerfMgmt Get of the
 * attribute holding the counter (PortCounters, or PortCountersExtended
 * for the 64-bit ones) and prints the field from its answer, raw, in the
 * attribute's units (the data counters count 4-octet words).  Which
 * files a port has is decided once, when the port appears, by the
 * capability mask of the PMA's ClassPortInfo:
 *
 *	IB_PMA_CLASS_CAP_EXT_WIDTH		the extended group: the data
 *		and packet counters from PortCountersExtended, and its
 *		unicast_* and multicast_* ones
 *	IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF	the same without unicast_*
 *		and multicast_*
 *	neither, or no answer			the PortCounters group
 *
 * The files are static, in one table, and shared by every port; the
 * three groups are views of it that differ in the files they show.
 * sysfs.c adds the port's group to its directory and removes it with the
 * directory, which waits for the reads in progress.
 */

#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <asm/unaligned.h>

#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_sysfs.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* The groups a file is in (pma_file.groups), by ClassPortInfo. */
enum {
	PMA_IN_BASIC = BIT(0),		/* neither width capability */
	PMA_IN_NOIETF = BIT(1),		/* IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF */
	PMA_IN_EXT = BIT(2),		/* IB_PMA_CLASS_CAP_EXT_WIDTH */
	PMA_IN_ALL = PMA_IN_BASIC | PMA_IN_NOIETF | PMA_IN_EXT,
};

/*
 * One file: a field of a PMA attribute.  @offset is in bytes from the
 * start of the attribute's data, @width in bits (4, 8, 16, 32 or 64);
 * a 4-bit field sits @shift bits up in its byte.
 */
struct pma_file {
	struct ib_port_attribute attr;
	__be16 attr_id;
	u8 offset;
	u8 width;
	u8 shift;
	u8 groups;
};

static ssize_t pma_show(struct ib_device *ibdev, u32 port_num,
			struct ib_port_attribute *attr, char *buf);

#define PMA_FILE(_name, _attr_id, _offset, _width, _shift, _groups)	\
	{								\
		.attr = {						\
			.attr = { .name = _name, .mode = 0444 },	\
			.show = pma_show,				\
		},							\
		.attr_id = _attr_id,					\
		.offset = _offset,					\
		.width = _width,					\
		.shift = _shift,					\
		.groups = _groups,					\
	}

/* A field of PortCounters, of PortCountersExtended. */
#define PMA_PC(_name, _field, _width, _groups)				\
	PMA_FILE(_name, IB_PMA_PORT_COUNTERS,				\
		 offsetof(struct ib_pma_portcounters, _field), _width, 0, \
		 _groups)
#define PMA_PCX(_name, _field, _groups)					\
	PMA_FILE(_name, IB_PMA_PORT_COUNTERS_EXT,			\
		 offsetof(struct ib_pma_portcounters_ext, _field), 64, 0, \
		 _groups)

/* LocalLinkIntegrityErrors is bits 7:4 of the byte, the other 3:0. */
#define PMA_LINK_OVERRUN offsetof(struct ib_pma_portcounters, link_overrun_errors)

/*
 * Every file of every group.  A name appears twice where the extended
 * groups take the counter from PortCountersExtended: a group shows one
 * of the two (pma_visible()).
 */
static struct pma_file pma_files[] = {
	PMA_PC("symbol_error", symbol_error_counter, 16, PMA_IN_ALL),
	PMA_PC("link_error_recovery", link_error_recovery_counter, 8,
	       PMA_IN_ALL),
	PMA_PC("link_downed", link_downed_counter, 8, PMA_IN_ALL),
	PMA_PC("port_rcv_errors", port_rcv_errors, 16, PMA_IN_ALL),
	PMA_PC("port_rcv_remote_physical_errors", port_rcv_remphys_errors, 16,
	       PMA_IN_ALL),
	PMA_PC("port_rcv_switch_relay_errors", port_rcv_switch_relay_errors,
	       16, PMA_IN_ALL),
	PMA_PC("port_xmit_discards", port_xmit_discards, 16, PMA_IN_ALL),
	PMA_PC("port_xmit_constraint_errors", port_xmit_constraint_errors, 8,
	       PMA_IN_ALL),
	PMA_PC("port_rcv_constraint_errors", port_rcv_constraint_errors, 8,
	       PMA_IN_ALL),
	PMA_FILE("local_link_integrity_errors", IB_PMA_PORT_COUNTERS,
		 PMA_LINK_OVERRUN, 4, 4, PMA_IN_ALL),
	PMA_FILE("excessive_buffer_overrun_errors", IB_PMA_PORT_COUNTERS,
		 PMA_LINK_OVERRUN, 4, 0, PMA_IN_ALL),
	PMA_PC("VL15_dropped", vl15_dropped, 16, PMA_IN_ALL),
	PMA_PC("port_xmit_wait", port_xmit_wait, 32, PMA_IN_ALL),

	PMA_PC("port_xmit_data", port_xmit_data, 32, PMA_IN_BASIC),
	PMA_PC("port_rcv_data", port_rcv_data, 32, PMA_IN_BASIC),
	PMA_PC("port_xmit_packets", port_xmit_packets, 32, PMA_IN_BASIC),
	PMA_PC("port_rcv_packets", port_rcv_packets, 32, PMA_IN_BASIC),

	PMA_PCX("port_xmit_data", port_xmit_data, PMA_IN_NOIETF | PMA_IN_EXT),
	PMA_PCX("port_rcv_data", port_rcv_data, PMA_IN_NOIETF | PMA_IN_EXT),
	PMA_PCX("port_xmit_packets", port_xmit_packets,
		PMA_IN_NOIETF | PMA_IN_EXT),
	PMA_PCX("port_rcv_packets", port_rcv_packets,
		PMA_IN_NOIETF | PMA_IN_EXT),
	PMA_PCX("unicast_xmit_packets", port_unicast_xmit_packets, PMA_IN_EXT),
	PMA_PCX("unicast_rcv_packets", port_unicast_rcv_packets, PMA_IN_EXT),
	PMA_PCX("multicast_xmit_packets", port_multicast_xmit_packets,
		PMA_IN_EXT),
	PMA_PCX("multicast_rcv_packets", port_multicast_rcv_packets,
		PMA_IN_EXT),
};

/*
 * pma_files' attributes, NULL-terminated: filled in by the first
 * ib_pma_counters_group() under pma_attrs_lock, constant from then on.
 */
static struct attribute *pma_attrs[ARRAY_SIZE(pma_files) + 1];
static DEFINE_MUTEX(pma_attrs_lock);

static void pma_attrs_fill(void)
{
	unsigned int i;

	mutex_lock(&pma_attrs_lock);
	if (!pma_attrs[0])
		for (i = 0; i < ARRAY_SIZE(pma_files); i++)
			pma_attrs[i] = &pma_files[i].attr.attr;
	mutex_unlock(&pma_attrs_lock);
}

static struct pma_file *to_pma_file(struct attribute *attr)
{
	return container_of(attr, struct pma_file, attr.attr);
}

static umode_t pma_visible(struct attribute *attr, u8 group)
{
	return to_pma_file(attr)->groups & group ? attr->mode : 0;
}

static umode_t pma_basic_visible(struct kobject *kobj, struct attribute *attr,
				 int n)
{
	return pma_visible(attr, PMA_IN_BASIC);
}

static umode_t pma_noietf_visible(struct kobject *kobj,
				  struct attribute *attr, int n)
{
	return pma_visible(attr, PMA_IN_NOIETF);
}

static umode_t pma_ext_visible(struct kobject *kobj, struct attribute *attr,
			       int n)
{
	return pma_visible(attr, PMA_IN_EXT);
}

static const struct attribute_group pma_basic_group = {
	.name = "counters",
	.attrs = pma_attrs,
	.is_visible = pma_basic_visible,
};

static const struct attribute_group pma_noietf_group = {
	.name = "counters",
	.attrs = pma_attrs,
	.is_visible = pma_noietf_visible,
};

static const struct attribute_group pma_ext_group = {
	.name = "counters",
	.attrs = pma_attrs,
	.is_visible = pma_ext_visible,
};

/* A PerfMgmt MAD, as process_mad() takes it and as its fields lie. */
union pma_mad {
	struct ib_mad mad;
	struct ib_pma_mad pma;
};

/* A request and the driver's answer. */
struct pma_exchange {
	union pma_mad in;
	union pma_mad out;
};

/*
 * Sends a PerfMgmt Get of @attr_id about @port_num through the driver.
 * Returns the exchange, for the answer in out.pma (kfree() it), or an
 * ERR_PTR: -EINVAL for any answer but a reply, as these files have
 * always returned.
 */
static struct pma_exchange *pma_get(struct ib_device *ibdev, u32 port_num,
				    __be16 attr_id)
{
	struct pma_exchange *x;
	size_t out_size = sizeof(x->out.mad);
	u16 out_pkey_index = 0;
	struct ib_mad_hdr *hdr;
	int ret;

	BUILD_BUG_ON(sizeof(struct ib_pma_mad) != sizeof(struct ib_mad));

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return ERR_PTR(-ENOMEM);

	hdr = &x->in.mad.mad_hdr;
	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	hdr->class_version = 1;
	hdr->method = IB_MGMT_METHOD_GET;
	hdr->attr_id = attr_id;
	/* PortCounters and PortCountersExtended name the port. */
	if (attr_id != IB_PMA_CLASS_PORT_INFO)
		x->in.pma.data[offsetof(struct ib_pma_portcounters,
					port_select)] = port_num;

	ret = ibdev->ops.process_mad(ibdev, IB_MAD_IGNORE_MKEY, port_num,
				     NULL, NULL, &x->in.mad, &x->out.mad,
				     &out_size, &out_pkey_index);
	if ((ret & (IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)) !=
	    (IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)) {
		kfree(x);
		return ERR_PTR(-EINVAL);
	}
	return x;
}

static u64 pma_field(const struct pma_file *file, const u8 *data)
{
	const u8 *p = data + file->offset;

	switch (file->width) {
	case 4:
		return (*p >> file->shift) & 0xf;
	case 8:
		return *p;
	case 16:
		return get_unaligned_be16(p);
	case 32:
		return get_unaligned_be32(p);
	default:
		return get_unaligned_be64(p);
	}
}

static ssize_t pma_show(struct ib_device *ibdev, u32 port_num,
			struct ib_port_attribute *attr, char *buf)
{
	const struct pma_file *file = container_of(attr, struct pma_file, attr);
	struct pma_exchange *x;
	u64 value;

	x = pma_get(ibdev, port_num, file->attr_id);
	if (IS_ERR(x))
		return PTR_ERR(x);
	value = pma_field(file, x->out.pma.data);
	kfree(x);

	return sysfs_emit(buf, "%llu\n", value);
}

const struct attribute_group *ib_pma_counters_group(struct ib_device *ibdev,
						    u32 port_num)
{
	const struct ib_class_port_info *cpi;
	struct pma_exchange *x;
	__be16 caps;

	pma_attrs_fill();

	x = pma_get(ibdev, port_num, IB_PMA_CLASS_PORT_INFO);
	if (IS_ERR(x))
		return &pma_basic_group;
	cpi = (const struct ib_class_port_info *)x->out.pma.data;
	caps = cpi->capability_mask;
	kfree(x);

	if (caps & IB_PMA_CLASS_CAP_EXT_WIDTH)
		return &pma_ext_group;
	if (caps & IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF)
		return &pma_noietf_group;
	return &pma_basic_group;
}

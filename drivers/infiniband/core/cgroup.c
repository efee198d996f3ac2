// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rdma cgroup controller's accounting of a device's user objects
 * (rdma.max, rdma.current): ib_uverbs charges a user context one
 * HCA_HANDLE and every handle-table uobject one HCA_OBJECT (uverbs.h says
 * when).  The device is registered with the controller by ib_core
 * (device.c), so the charges are ib_core's as well, as on stock: a
 * driver's own user objects can be charged against the same limits.
 */
#include <linux/cgroup_rdma.h>
#include <linux/export.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/**
 * ib_rdmacg_try_charge - charge one resource to the current task's cgroup
 * @cg_obj: remembers the cgroup (with a reference) for the uncharge
 * @device: the device, registered with the controller
 * @resource_index: RDMACG_RESOURCE_HCA_HANDLE or _HCA_OBJECT
 *
 * Return: 0, or -EAGAIN when the cgroup (or an ancestor) is at its limit.
 */
int ib_rdmacg_try_charge(struct ib_rdmacg_object *cg_obj,
			 struct ib_device *device,
			 enum rdmacg_resource_type resource_index)
{
	return rdmacg_try_charge(&cg_obj->cg, &device->cg_device,
				 resource_index);
}
EXPORT_SYMBOL(ib_rdmacg_try_charge);

/**
 * ib_rdmacg_uncharge - give back what ib_rdmacg_try_charge() took
 * @cg_obj: as charged
 * @device: the device
 * @resource_index: as charged
 */
void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
			struct ib_device *device,
			enum rdmacg_resource_type resource_index)
{
	rdmacg_uncharge(cg_obj->cg, &device->cg_device, resource_index);
}
EXPORT_SYMBOL(ib_rdmacg_uncharge);

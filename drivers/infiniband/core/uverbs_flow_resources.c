// SPDX-License-Identifier: GPL-2.0-only
/*
 * The objects a flow steering rule refers to (struct ib_uflow_resources,
 * <rdma/uverbs_std_types.h>): flow actions and counters that a driver's
 * create-flow method attaches to the rule.  Each one added gains a use
 * (its usecnt), so that it cannot be destroyed while the rule exists; the
 * uses are dropped when the rule's uobject frees the resources.
 *
 * The driver sizes the set once, by the number of specs of the rule, and
 * adds at most that many objects: the struct and both arrays are one
 * allocation.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_std_types.h>

/**
 * flow_resources_alloc - room for the objects of a rule of @num_specs specs
 * @num_specs: the most objects flow_resources_add() may add
 *
 * Return: the empty set, or NULL when out of memory.
 */
struct ib_uflow_resources *flow_resources_alloc(size_t num_specs)
{
	struct ib_uflow_resources *res;
	size_t array = size_mul(num_specs, sizeof(void *));

	res = kzalloc(size_add(sizeof(*res), size_mul(array, 2)), GFP_KERNEL);
	if (!res)
		return NULL;
	res->max = num_specs;
	/* Both arrays follow the struct; each can hold every spec. */
	res->counters = (struct ib_counters **)(res + 1);
	res->collection = (struct ib_flow_action **)(res->counters +
						     num_specs);
	return res;
}
EXPORT_SYMBOL(flow_resources_alloc);

/**
 * flow_resources_add - let a rule hold a flow action or a counters object
 * @uflow_res: the rule's set, from flow_resources_alloc()
 * @type: IB_FLOW_SPEC_ACTION_HANDLE (@ibobj is a struct ib_flow_action)
 *	or IB_FLOW_SPEC_ACTION_COUNT (@ibobj is a struct ib_counters)
 * @ibobj: the object; it gains a use until the set is freed
 *
 * Adding more objects than the set was sized for, or of another type, is
 * a driver bug: it warns and adds nothing.
 */
void flow_resources_add(struct ib_uflow_resources *uflow_res,
			enum ib_flow_spec_type type, void *ibobj)
{
	if (WARN_ON_ONCE(uflow_res->num >= uflow_res->max))
		return;

	switch (type) {
	case IB_FLOW_SPEC_ACTION_HANDLE: {
		struct ib_flow_action *action = ibobj;

		atomic_inc(&action->usecnt);
		uflow_res->collection[uflow_res->collection_num++] = action;
		break;
	}
	case IB_FLOW_SPEC_ACTION_COUNT: {
		struct ib_counters *counters = ibobj;

		atomic_inc(&counters->usecnt);
		uflow_res->counters[uflow_res->counters_num++] = counters;
		break;
	}
	default:
		WARN_ONCE(1, "flow resource of spec type %#x\n", type);
		return;
	}
	uflow_res->num++;
}
EXPORT_SYMBOL(flow_resources_add);

/**
 * ib_uverbs_flow_resources_free - drop the uses of a rule's objects
 * @uflow_res: the set, or NULL (nothing to do)
 *
 * Called once the rule is gone from the device.
 */
void ib_uverbs_flow_resources_free(struct ib_uflow_resources *uflow_res)
{
	size_t i;

	if (!uflow_res)
		return;
	for (i = 0; i < uflow_res->collection_num; i++)
		atomic_dec(&uflow_res->collection[i]->usecnt);
	for (i = 0; i < uflow_res->counters_num; i++)
		atomic_dec(&uflow_res->counters[i]->usecnt);
	kfree(uflow_res);
}
EXPORT_SYMBOL(ib_uverbs_flow_resources_free);

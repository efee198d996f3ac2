// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hardware statistics containers that drivers allocate from their
 * alloc_hw_device_stats/alloc_hw_port_stats callbacks and that sysfs.c
 * and nldev.c read.
 */

#include <linux/bitmap.h>
#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "core_priv.h"

/**
 * rdma_alloc_hw_stats_struct - allocate a hardware counters container
 * @descs: the driver's static descriptors, one per counter
 * @num_counters: number of counters (and of @descs entries)
 * @lifespan: how long a refresh stays valid, in milliseconds; a negative
 *	value (cast to unsigned long) selects RDMA_HW_STATS_DEFAULT_LIFESPAN
 *
 * Every counter starts enabled and zero, and the container is stale, so
 * the first reader asks the driver.  Free with rdma_free_hw_stats_struct().
 *
 * Return: the container, or NULL when out of memory.
 */
struct rdma_hw_stats *rdma_alloc_hw_stats_struct(const struct rdma_stat_desc *descs,
						 int num_counters,
						 unsigned long lifespan)
{
	struct rdma_hw_stats *stats;

	if (num_counters < 0)
		return NULL;

	stats = kzalloc(struct_size(stats, value, num_counters), GFP_KERNEL);
	if (!stats)
		return NULL;

	stats->is_disabled = bitmap_zalloc(num_counters, GFP_KERNEL);
	if (!stats->is_disabled) {
		kfree(stats);
		return NULL;
	}

	if ((long)lifespan < 0)
		lifespan = RDMA_HW_STATS_DEFAULT_LIFESPAN;

	mutex_init(&stats->lock);
	stats->descs = descs;
	stats->num_counters = num_counters;
	stats->lifespan = msecs_to_jiffies(min_t(unsigned long, lifespan, UINT_MAX));
	/* Stale from the start: the first read refreshes. */
	stats->timestamp = jiffies - stats->lifespan - 1;

	return stats;
}
EXPORT_SYMBOL(rdma_alloc_hw_stats_struct);

/**
 * rdma_free_hw_stats_struct - free a container from rdma_alloc_hw_stats_struct()
 * @stats: the container; NULL is allowed
 */
void rdma_free_hw_stats_struct(struct rdma_hw_stats *stats)
{
	if (!stats)
		return;

	mutex_destroy(&stats->lock);
	bitmap_free(stats->is_disabled);
	kfree(stats);
}
EXPORT_SYMBOL(rdma_free_hw_stats_struct);

/**
 * rdma_counter_modify - enable or disable an optional port counter
 * @dev: the device
 * @port: its port
 * @index: the counter, an IB_STAT_FLAG_OPTIONAL one
 * @enable: whether "rdma statistic show" is to report it
 *
 * The driver learns of the change first (ops.modify_hw_stat) and may
 * refuse it; only then does the counter's bit in is_disabled follow, so
 * readers never report a counter the driver did not agree to keep.
 * Asking for the state a counter already has is a no-op.
 *
 * Return: 0, -EOPNOTSUPP when the driver cannot switch counters, -EINVAL
 * for a port without counters or a counter that is not optional, or the
 * driver's error.
 */
int rdma_counter_modify(struct ib_device *dev, u32 port, unsigned int index,
			bool enable)
{
	struct rdma_hw_stats *stats;
	int ret = 0;

	if (!dev->ops.modify_hw_stat)
		return -EOPNOTSUPP;

	stats = ib_hw_stats_get(dev, port);
	if (!stats || index >= stats->num_counters ||
	    !(stats->descs[index].flags & IB_STAT_FLAG_OPTIONAL))
		return -EINVAL;

	mutex_lock(&stats->lock);
	if (test_bit(index, stats->is_disabled) == enable) {
		ret = dev->ops.modify_hw_stat(dev, port, index, enable);
		if (!ret)
			assign_bit(index, stats->is_disabled, !enable);
	}
	mutex_unlock(&stats->lock);
	return ret;
}

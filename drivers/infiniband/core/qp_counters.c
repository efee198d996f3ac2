// SPDX-License-Identifier: GPL-2.0-only
/*
 * QP counters: a driver with per-QP counters (ops.counter_bind_qp and its
 * siblings) lets "rdma statistic qp" bind QPs to counter sets, each a
 * struct rdma_counter of one port that counts the traffic of the QPs
 * bound to it.  A port is in one of three modes:
 *
 *  - none: no QP is bound unless asked, and asking makes it manual;
 *  - auto: a user QP is bound as it moves to INIT on the port, to the
 *    counter of the QPs like it (same type, same process, as the port's
 *    mask says), allocated with the first of them;
 *  - manual: "rdma statistic qp bind" bound a QP by number to a new
 *    counter or a given one; "unbind" lets it go.  The port goes back to
 *    none with its last manual counter.
 *
 * A counter lives while QPs are bound to it (counter->kref, one reference
 * a QP).  What it counted outlives it: at its release its values are
 * added to the port's history (port_counter->hstats, in the port's
 * counter layout), and a port's counters as sysfs and nldev show them are
 * the driver's own plus every live counter's plus that history
 * (rdma_counter_get_hwstat_value()).  So a driver counts a bound QP's
 * traffic in the QP's counter only, as hardware with counter sets does.
 *
 * Locking: one mutex a device, the port_counter.lock of its first port
 * (counters_lock()), guards every port's mode and num_counters, the
 * history values and every bind, unbind, allocation and release; every
 * qp->counter of the device is written under it.  Two readers peek
 * without it and check again under it: a port's mode as a QP reaches
 * INIT, a QP's counter as it is destroyed (WRITE_ONCE/READ_ONCE); nldev
 * only compares qp->counter with the counter it lists.  One lock, not one a port, because a
 * QP's port can change under a modify while it is bound: the QP and its
 * counter never need to agree on which lock to take.  counter->lock
 * serialises refreshing counter->stats (rdma_counter_query_stats());
 * nldev readers pin a counter's restrack entry, and its release
 * unpublishes it first and waits for them (rdma_restrack_del()).
 */
#include <linux/kref.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "core_priv.h"

#define COUNTER_AUTO_MASKS	(RDMA_COUNTER_MASK_QP_TYPE | RDMA_COUNTER_MASK_PID)

static struct rdma_port_counter *port_counter(struct ib_device *dev, u32 port)
{
	return &dev->port_data[port].port_counter;
}

/* See the top: the device's one lock for all its counters. */
static struct mutex *counters_lock(struct ib_device *dev)
{
	return &port_counter(dev, rdma_start_port(dev))->lock;
}

/* The driver has counter sets, and the port got its history container. */
static bool counters_on(struct ib_device *dev, u32 port)
{
	return dev->ops.counter_bind_qp && dev->ops.counter_unbind_qp &&
	       dev->ops.counter_alloc_stats && dev->ops.counter_dealloc &&
	       rdma_is_port_valid(dev, port) &&
	       port_counter(dev, port)->hstats;
}

/**
 * rdma_counter_init - set the ports of a device to be registered
 * @dev: the device, its port_data allocated
 *
 * Every port starts in mode none; a driver with counter sets gets a
 * history container a port, in the layout of its port counters.  A port
 * whose container cannot be had has no QP counters (its requests are
 * answered EOPNOTSUPP): registration does not fail for them.
 */
void rdma_counter_init(struct ib_device *dev)
{
	struct rdma_port_counter *pc;
	u32 port;

	rdma_for_each_port(dev, port) {
		pc = port_counter(dev, port);
		pc->mode.mode = RDMA_COUNTER_MODE_NONE;
		pc->mode.mask = 0;
		if (pc->hstats || !dev->ops.counter_bind_qp ||
		    !dev->ops.alloc_hw_port_stats)
			continue;
		pc->hstats = dev->ops.alloc_hw_port_stats(dev, port);
		if (!pc->hstats)
			ibdev_warn(dev, "port %u: no QP counters\n", port);
	}
}

/**
 * rdma_counter_release - free what rdma_counter_init() allocated
 * @dev: the device, being released (no counter is left)
 */
void rdma_counter_release(struct ib_device *dev)
{
	struct rdma_port_counter *pc;
	u32 port;

	if (!dev->port_data)
		return;
	rdma_for_each_port(dev, port) {
		pc = port_counter(dev, port);
		WARN_ON_ONCE(pc->num_counters);
		rdma_free_hw_stats_struct(pc->hstats);
		pc->hstats = NULL;
	}
}

/**
 * rdma_counter_query_stats - refresh a counter's values from the driver
 * @counter: a pinned or bound counter
 *
 * Return: 0, or the driver's error (the values are then the last ones).
 */
int rdma_counter_query_stats(struct rdma_counter *counter)
{
	struct ib_device *dev = counter->device;
	int ret;

	if (!dev->ops.counter_update_stats)
		return -EINVAL;

	mutex_lock(&counter->lock);
	ret = dev->ops.counter_update_stats(counter);
	mutex_unlock(&counter->lock);
	return ret;
}

/* Add @stats' values to @totals, as many as both have of @n. */
static void stats_add(u64 *totals, unsigned int n,
		      const struct rdma_hw_stats *stats)
{
	unsigned int i;

	for (i = 0; i < min_t(unsigned int, n, stats->num_counters); i++)
		totals[i] += stats->value[i];
}

/*
 * Add the port's live counters and its history to @totals, @n values in
 * the port counters' layout.
 */
static void counters_add_totals(struct ib_device *dev, u32 port, u64 *totals,
				unsigned int n)
{
	struct rdma_restrack_entry *res;
	struct rdma_counter *counter;
	unsigned long id = 0;

	lockdep_assert_held(counters_lock(dev));

	stats_add(totals, n, port_counter(dev, port)->hstats);
	while ((res = rdma_restrack_get_next(dev, RDMA_RESTRACK_COUNTER, &id))) {
		counter = container_of(res, struct rdma_counter, res);
		if (counter->port == port && !rdma_counter_query_stats(counter))
			stats_add(totals, n, counter->stats);
		rdma_restrack_put(res);
		id++;
	}
}

/**
 * rdma_counter_port_totals - what the port's counter sets counted
 * @dev: the device
 * @port: the port
 * @totals: @n values in the layout of the port's counters, added to
 * @n: how many
 *
 * Cheap for a device or port without QP counters: nothing is added.
 */
void rdma_counter_port_totals(struct ib_device *dev, u32 port, u64 *totals,
			      unsigned int n)
{
	if (!counters_on(dev, port))
		return;

	mutex_lock(counters_lock(dev));
	counters_add_totals(dev, port, totals, n);
	mutex_unlock(counters_lock(dev));
}

/**
 * rdma_counter_get_hwstat_value - one counter of the port's counter sets
 * @dev: the device
 * @port: the port
 * @index: the counter, in the port counters' layout
 *
 * Return: the sum over the live counters and the history of the port.
 */
u64 rdma_counter_get_hwstat_value(struct ib_device *dev, u32 port, u32 index)
{
	u64 *totals, value = 0;

	if (!counters_on(dev, port) ||
	    index >= port_counter(dev, port)->hstats->num_counters)
		return 0;

	totals = kcalloc(index + 1, sizeof(*totals), GFP_KERNEL);
	if (!totals)
		return 0;
	rdma_counter_port_totals(dev, port, totals, index + 1);
	value = totals[index];
	kfree(totals);
	return value;
}

/**
 * rdma_counter_get_mode - a port's mode
 * @dev: the device
 * @port: the port
 * @mode: its mode
 * @mask: in auto mode, the criteria; else 0
 *
 * Return: 0, or -EINVAL for a port that does not exist.
 */
int rdma_counter_get_mode(struct ib_device *dev, u32 port,
			  enum rdma_nl_counter_mode *mode,
			  enum rdma_nl_counter_mask *mask)
{
	struct rdma_port_counter *pc;

	if (!rdma_is_port_valid(dev, port))
		return -EINVAL;

	pc = port_counter(dev, port);
	mutex_lock(counters_lock(dev));
	*mode = pc->mode.mode;
	*mask = pc->mode.mask;
	mutex_unlock(counters_lock(dev));
	return 0;
}

/**
 * rdma_counter_set_auto_mode - switch a port's auto mode on or off
 * @dev: the device
 * @port: the port
 * @mask: the criteria of auto mode (RDMA_COUNTER_MASK_*), 0 for off
 * @extack: why not
 *
 * Auto mode can only be switched on (or its criteria changed) while the
 * port has no counter: the QPs already bound were bound by other rules.
 * Switching it off leaves the QPs bound as they are.
 *
 * Return: 0; -EOPNOTSUPP without QP counters; -EINVAL for an unknown
 * criterion; -EBUSY while counters exist.
 */
int rdma_counter_set_auto_mode(struct ib_device *dev, u32 port,
			       enum rdma_nl_counter_mask mask,
			       struct netlink_ext_ack *extack)
{
	struct rdma_port_counter *pc;
	int ret = 0;

	if (!counters_on(dev, port)) {
		NL_SET_ERR_MSG(extack, "The device has no QP counters");
		return -EOPNOTSUPP;
	}
	if (mask & ~COUNTER_AUTO_MASKS) {
		NL_SET_ERR_MSG(extack, "Unknown auto mode criterion");
		return -EINVAL;
	}

	pc = port_counter(dev, port);
	mutex_lock(counters_lock(dev));
	if (!mask) {
		if (pc->mode.mode == RDMA_COUNTER_MODE_AUTO) {
			WRITE_ONCE(pc->mode.mode, RDMA_COUNTER_MODE_NONE);
			pc->mode.mask = 0;
		}
	} else if (pc->num_counters) {
		NL_SET_ERR_MSG(extack,
			       "Auto mode cannot change while QPs are bound");
		ret = -EBUSY;
	} else {
		WRITE_ONCE(pc->mode.mode, RDMA_COUNTER_MODE_AUTO);
		pc->mode.mask = mask;
	}
	mutex_unlock(counters_lock(dev));
	return ret;
}

/*
 * Drops what counter_alloc() set up, the driver's counter included; the
 * caller has deleted its restrack entry.
 */
static void counter_free(struct rdma_counter *counter)
{
	struct ib_device *dev = counter->device;
	struct rdma_port_counter *pc = port_counter(dev, counter->port);

	lockdep_assert_held(counters_lock(dev));

	if (counter->id)
		dev->ops.counter_dealloc(counter);
	rdma_free_hw_stats_struct(counter->stats);
	mutex_destroy(&counter->lock);
	kfree(counter);

	if (!--pc->num_counters && pc->mode.mode == RDMA_COUNTER_MODE_MANUAL)
		WRITE_ONCE(pc->mode.mode, RDMA_COUNTER_MODE_NONE);
}

/* The last QP let go: its values go to the port's history, then it goes. */
static void counter_release(struct kref *kref)
{
	struct rdma_counter *counter =
		container_of(kref, struct rdma_counter, kref);
	struct rdma_hw_stats *history =
		port_counter(counter->device, counter->port)->hstats;

	/* Hidden from readers first, so none adds it on top of history. */
	rdma_restrack_del(&counter->res);
	if (!rdma_counter_query_stats(counter))
		stats_add(history->value, history->num_counters,
			  counter->stats);
	counter_free(counter);
}

/* A counter of @port for QPs like @qp, not bound to any QP yet. */
static struct rdma_counter *counter_alloc(struct ib_qp *qp, u32 port,
					  enum rdma_nl_counter_mode mode,
					  enum rdma_nl_counter_mask mask)
{
	struct ib_device *dev = qp->device;
	struct rdma_counter *counter;

	lockdep_assert_held(counters_lock(dev));

	counter = kzalloc(sizeof(*counter), GFP_KERNEL);
	if (!counter)
		return NULL;

	counter->device = dev;
	counter->port = port;
	counter->mode.mode = mode;
	counter->mode.mask = mask;
	counter->mode.param.qp_type = qp->qp_type;
	kref_init(&counter->kref);
	mutex_init(&counter->lock);
	rdma_restrack_new(&counter->res, RDMA_RESTRACK_COUNTER);
	rdma_restrack_parent_name(&counter->res, &qp->res);

	counter->stats = dev->ops.counter_alloc_stats(counter);
	if (!counter->stats) {
		rdma_restrack_del(&counter->res);
		mutex_destroy(&counter->lock);
		kfree(counter);
		return NULL;
	}
	port_counter(dev, port)->num_counters++;
	return counter;
}

/*
 * Bind @qp to @counter.  A new counter (no id yet) gets its id from the
 * driver here and is published then; on failure it is freed.
 */
static int counter_bind(struct rdma_counter *counter, struct ib_qp *qp)
{
	struct ib_device *dev = qp->device;
	bool new = !counter->id;
	int ret;

	lockdep_assert_held(counters_lock(dev));

	ret = dev->ops.counter_bind_qp(counter, qp);
	if (ret) {
		if (new) {
			rdma_restrack_del(&counter->res);
			counter_free(counter);
		}
		return ret;
	}
	if (new)
		rdma_restrack_add(&counter->res);
	else
		kref_get(&counter->kref);
	WRITE_ONCE(qp->counter, counter);
	return 0;
}

/*
 * Unbind @qp from its counter.  The driver may refuse; with @force (the
 * QP is going away) the counter lets go of the QP all the same.
 */
static int counter_unbind(struct ib_qp *qp, bool force)
{
	struct rdma_counter *counter = qp->counter;
	int ret;

	lockdep_assert_held(counters_lock(qp->device));

	ret = qp->device->ops.counter_unbind_qp(qp);
	if (ret && !force)
		return ret;
	WRITE_ONCE(qp->counter, NULL);
	kref_put(&counter->kref, counter_release);
	return 0;
}

static bool same_process(struct task_struct *a, struct task_struct *b)
{
	return a && b && task_tgid_nr(a) == task_tgid_nr(b);
}

/* A counter of auto mode on @port whose criteria @qp meets, pinned. */
static struct rdma_counter *counter_find_auto(struct ib_qp *qp, u32 port)
{
	struct ib_device *dev = qp->device;
	struct rdma_restrack_entry *res;
	struct rdma_counter *counter;
	unsigned long id = 0;

	lockdep_assert_held(counters_lock(dev));

	while ((res = rdma_restrack_get_next(dev, RDMA_RESTRACK_COUNTER, &id))) {
		counter = container_of(res, struct rdma_counter, res);
		if (counter->port == port &&
		    counter->mode.mode == RDMA_COUNTER_MODE_AUTO &&
		    (!(counter->mode.mask & RDMA_COUNTER_MASK_QP_TYPE) ||
		     counter->mode.param.qp_type == qp->qp_type) &&
		    (!(counter->mode.mask & RDMA_COUNTER_MASK_PID) ||
		     same_process(counter->res.task, qp->res.task)))
			return counter;
		rdma_restrack_put(res);
		id++;
	}
	return NULL;
}

/**
 * rdma_counter_bind_qp_auto - bind a QP that moves to INIT, in auto mode
 * @qp: a QP being modified to INIT
 * @port: the port it is put on
 *
 * Only user QPs are bound: a kernel ULP's QPs are not an application's
 * to count.  Nothing is done unless @port is in auto mode.
 *
 * Return: 0 (bound or not to be), or the error of the binding.
 */
int rdma_counter_bind_qp_auto(struct ib_qp *qp, u32 port)
{
	struct ib_device *dev = qp->device;
	struct rdma_port_counter *pc;
	struct rdma_counter *counter;
	int ret = 0;

	if (!counters_on(dev, port) || !qp->uobject)
		return 0;
	pc = port_counter(dev, port);
	/* Unlocked peek: ports are rarely in auto mode, QPs often made. */
	if (READ_ONCE(pc->mode.mode) != RDMA_COUNTER_MODE_AUTO)
		return 0;

	mutex_lock(counters_lock(dev));
	if (pc->mode.mode != RDMA_COUNTER_MODE_AUTO || qp->counter)
		goto out;

	counter = counter_find_auto(qp, port);
	if (counter) {
		ret = counter_bind(counter, qp);
		rdma_restrack_put(&counter->res);
		goto out;
	}
	counter = counter_alloc(qp, port, RDMA_COUNTER_MODE_AUTO,
				pc->mode.mask);
	ret = counter ? counter_bind(counter, qp) : -ENOMEM;
out:
	mutex_unlock(counters_lock(dev));
	return ret;
}

/**
 * rdma_counter_unbind_qp - let a QP go from its counter
 * @qp: the QP
 * @force: the QP is being destroyed: a driver's refusal is overruled
 *
 * Return: 0 (also for a QP bound to nothing), or the driver's error.
 */
int rdma_counter_unbind_qp(struct ib_qp *qp, bool force)
{
	struct ib_device *dev = qp->device;
	int ret = 0;

	if (!READ_ONCE(qp->counter))
		return 0;

	mutex_lock(counters_lock(dev));
	if (qp->counter)
		ret = counter_unbind(qp, force);
	mutex_unlock(counters_lock(dev));
	return ret;
}

/*
 * The user QP @qpn on @port, pinned: kernel QPs and QPs not on the port
 * (not yet in INIT) cannot be bound; nothing can without counter sets.
 */
static struct ib_qp *counter_get_qp(struct ib_device *dev, u32 port, u32 qpn)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *qp;

	if (!counters_on(dev, port))
		return ERR_PTR(-EOPNOTSUPP);
	res = rdma_restrack_get_byid(dev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return ERR_CAST(res);

	qp = container_of(res, struct ib_qp, res);
	if (!qp->uobject || qp->port != port) {
		rdma_restrack_put(res);
		return ERR_PTR(-EINVAL);
	}
	return qp;
}

/* Manual binding on @port: refused while the port binds automatically. */
static int counter_manual_ok(struct ib_device *dev, u32 port)
{
	lockdep_assert_held(counters_lock(dev));

	return port_counter(dev, port)->mode.mode == RDMA_COUNTER_MODE_AUTO ?
	       -EINVAL : 0;
}

/**
 * rdma_counter_bind_qpn - bind a QP by number to a given manual counter
 * @dev: the device
 * @port: the port of the counter and the QP
 * @qp_num: the QP
 * @counter_id: the counter
 *
 * Return: 0; -EOPNOTSUPP without QP counters; -ENOENT for no such QP or
 * counter; -EINVAL for a kernel QP, a QP or counter of another port, an
 * auto counter or a port in auto mode; -EBUSY for a QP already bound; or
 * the driver's error.
 */
int rdma_counter_bind_qpn(struct ib_device *dev, u32 port, u32 qp_num,
			  u32 counter_id)
{
	struct rdma_restrack_entry *res;
	struct rdma_counter *counter;
	struct ib_qp *qp;
	int ret;

	qp = counter_get_qp(dev, port, qp_num);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	res = rdma_restrack_get_byid(dev, RDMA_RESTRACK_COUNTER, counter_id);
	if (IS_ERR(res)) {
		ret = PTR_ERR(res);
		goto out_qp;
	}
	counter = container_of(res, struct rdma_counter, res);

	mutex_lock(counters_lock(dev));
	ret = counter_manual_ok(dev, port);
	if (!ret && (counter->port != port ||
		     counter->mode.mode != RDMA_COUNTER_MODE_MANUAL))
		ret = -EINVAL;
	if (!ret && qp->counter)
		ret = -EBUSY;
	if (!ret)
		ret = counter_bind(counter, qp);
	mutex_unlock(counters_lock(dev));

	rdma_restrack_put(res);
out_qp:
	rdma_restrack_put(&qp->res);
	return ret;
}

/**
 * rdma_counter_bind_qpn_alloc - bind a QP by number to a new counter
 * @dev: the device
 * @port: the port of the QP
 * @qp_num: the QP
 * @counter_id: the new counter's id
 *
 * The port becomes manual if it was in mode none.
 *
 * Return: as rdma_counter_bind_qpn(), or -ENOMEM.
 */
int rdma_counter_bind_qpn_alloc(struct ib_device *dev, u32 port,
				u32 qp_num, u32 *counter_id)
{
	struct rdma_counter *counter;
	struct ib_qp *qp;
	int ret;

	qp = counter_get_qp(dev, port, qp_num);
	if (IS_ERR(qp))
		return PTR_ERR(qp);

	mutex_lock(counters_lock(dev));
	ret = counter_manual_ok(dev, port);
	if (!ret && qp->counter)
		ret = -EBUSY;
	if (ret)
		goto out;

	counter = counter_alloc(qp, port, RDMA_COUNTER_MODE_MANUAL, 0);
	ret = counter ? counter_bind(counter, qp) : -ENOMEM;
	if (!ret) {
		WRITE_ONCE(port_counter(dev, port)->mode.mode,
			   RDMA_COUNTER_MODE_MANUAL);
		*counter_id = counter->id;
	}
out:
	mutex_unlock(counters_lock(dev));
	rdma_restrack_put(&qp->res);
	return ret;
}

/**
 * rdma_counter_unbind_qpn - let a QP go from a manual counter, by number
 * @dev: the device
 * @port: the port of the QP
 * @qp_num: the QP
 * @counter_id: the counter it must be bound to
 *
 * Return: 0; -EOPNOTSUPP without QP counters; -ENOENT for no such QP;
 * -EINVAL for a QP not bound to that counter, or bound automatically; or
 * the driver's error.
 */
int rdma_counter_unbind_qpn(struct ib_device *dev, u32 port, u32 qp_num,
			    u32 counter_id)
{
	struct rdma_counter *counter;
	struct ib_qp *qp;
	int ret = -EINVAL;

	qp = counter_get_qp(dev, port, qp_num);
	if (IS_ERR(qp))
		return PTR_ERR(qp);

	mutex_lock(counters_lock(dev));
	counter = qp->counter;
	if (counter && counter->id == counter_id && counter->port == port &&
	    counter->mode.mode == RDMA_COUNTER_MODE_MANUAL)
		ret = counter_unbind(qp, false);
	mutex_unlock(counters_lock(dev));

	rdma_restrack_put(&qp->res);
	return ret;
}

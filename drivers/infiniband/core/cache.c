// SPDX-License-Identifier: GPL-2.0-only
/*
 * GID tables and the P_Key / port attribute caches.
 *
 * Every port has a GID table of immutable.gid_tbl_len slots.  A slot holds
 * a refcounted entry whose public part is the struct ib_gid_attr that
 * consumers get from rdma_get_gid_attr() and friends.  The table owns one
 * reference while the GID is valid; every holder owns one more.  Deleting
 * a GID makes it invisible to lookups at once and drops its netdev
 * reference, but a held attr stays readable until its last put.
 *
 * On RoCE ports the slot of a deleted but still held entry stays reserved
 * (and the driver's add_gid() context alive) until the last put: QPs and
 * AHs refer to hardware GIDs by index, so the index must not be reused
 * under them.  On other ports the slot is free at once.
 *
 * The last put of a deleted entry may come from any context and races
 * with the table's reclaim work: it only queues that work, which frees
 * the entry (and its slot) under the table's lock.  A put never frees
 * and never reads the entry after its decrement.
 *
 * RoCE GIDs come from roce_gid_mgmt.c through ib_cache_gid_add() and
 * ib_cache_gid_del_if(); GIDs of other ports, P_Keys, port state, LMC and
 * subnet prefix are read from the driver at setup and refreshed when the
 * driver reports a port event, before any handler sees the event.
 */
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_cache.h>

#include "core_priv.h"

/* All-zero GID: an empty slot reads as this. */
union ib_gid zgid;
EXPORT_SYMBOL(zgid);

/*
 * The netdev reference of a GID entry.  It lives apart from the entry so
 * that it can be dropped an RCU grace period after the entry stops
 * publishing it, whatever the entry's own lifetime.
 */
struct ib_gid_ndev_ref {
	struct rcu_head rcu;
	struct net_device *ndev;
	netdevice_tracker tracker;
};

struct ib_gid_entry {
	/* One for the table while valid, one per rdma_get_gid_attr() & co. */
	refcount_t ref;
	struct ib_gid_table *table;
	/* Our netdev reference; NULL once deleted.  Under table->lock. */
	struct ib_gid_ndev_ref *ndev_ref;
	/* The driver's add_gid() context; set when added to the hardware. */
	void *context;
	bool in_hw;
	/*
	 * Visible to lookups.  Cleared on delete; written under table->lock
	 * and the device's cache_lock, read under either.
	 */
	bool valid;
	/*
	 * On table->dead from its delete until it is freed.  Under
	 * table->lock.
	 */
	struct list_head dead_link;
	struct ib_gid_attr attr;
};

struct ib_gid_table {
	struct ib_device *device;
	u32 port;
	/*
	 * Serialises the writers of this table: adds, deletes and slot
	 * reclaims, and with them the driver's add_gid()/del_gid() calls.
	 */
	struct mutex lock;
	/*
	 * Deleted entries not freed yet: still held, or their last put's
	 * reclaim still to run.  Under lock.  A RoCE entry among them also
	 * keeps its slot (see the file comment).
	 */
	struct list_head dead;
	/* Frees the deleted entries whose last user is gone, and their slots. */
	struct work_struct reclaim_work;
	/*
	 * The event work refreshes this port's caches (ib_cache_event_refresh()).
	 * From the end of setup to the start of cleanup; written under
	 * device->event_handler_rwsem for write, read under it for read.
	 */
	bool live;
	int sz;
	/*
	 * Slots.  Written under lock and device->cache_lock (write);
	 * readers take either.
	 */
	struct ib_gid_entry *entries[];
};

struct ib_pkey_cache {
	int table_len;
	u16 table[];
};

static struct ib_gid_table *gid_table(struct ib_device *device, u32 port)
{
	if (!rdma_is_port_valid(device, port) || !device->port_data)
		return NULL;
	return device->port_data[port].cache.gid;
}

static struct ib_gid_entry *to_gid_entry(const struct ib_gid_attr *attr)
{
	return container_of(attr, struct ib_gid_entry, attr);
}

/* Keep the slot of a deleted, still held entry? See the file comment. */
static bool gid_slot_outlives_delete(const struct ib_gid_table *table)
{
	return rdma_protocol_roce(table->device, table->port);
}

static void gid_ndev_ref_free(struct rcu_head *head)
{
	struct ib_gid_ndev_ref *ref = container_of(head, typeof(*ref), rcu);

	netdev_put(ref->ndev, &ref->tracker);
	kfree(ref);
}

/*
 * Frees a deleted entry whose last reference is gone, and its slot if it
 * still holds it.
 */
static void gid_entry_free_locked(struct ib_gid_table *table,
				  struct ib_gid_entry *entry)
{
	struct ib_device *device = table->device;
	int ix = entry->attr.index;

	lockdep_assert_held(&table->lock);

	/*
	 * The entry leaves the table whatever the driver answers.  A failure
	 * is only logged for debugging (stock logs nothing): its usual cause
	 * is hardware already gone, a device unregistering after a fatal
	 * error or a surprise removal, where a warning per GID says nothing.
	 */
	if (entry->in_hw && device->ops.del_gid(&entry->attr, &entry->context))
		dev_dbg(&device->dev, "port %u: failed to remove GID %d from the hardware\n",
			table->port, ix);

	write_lock_irq(&device->cache_lock);
	if (table->entries[ix] == entry)
		table->entries[ix] = NULL;
	write_unlock_irq(&device->cache_lock);
	list_del(&entry->dead_link);
	kfree(entry);
}

static void gid_table_reclaim_work(struct work_struct *work)
{
	struct ib_gid_table *table =
		container_of(work, struct ib_gid_table, reclaim_work);
	struct ib_gid_entry *entry, *next;

	mutex_lock(&table->lock);
	list_for_each_entry_safe(entry, next, &table->dead, dead_link) {
		/* A zero count is final: deleted entries cannot be found. */
		if (!refcount_read(&entry->ref))
			gid_entry_free_locked(table, entry);
	}
	mutex_unlock(&table->lock);
}

/*
 * Drops a reference; the last one may come from atomic context.  Only a
 * deleted entry can lose its last reference (a valid one has the
 * table's), and the reclaim work frees a deleted entry as soon as its
 * count reads zero, possibly before refcount_dec_and_test() has even
 * returned here.  So the table is read before the decrement, nothing of
 * the entry after it, and the free is always left to the work.
 */
static void gid_entry_put(struct ib_gid_entry *entry)
{
	struct ib_gid_table *table = entry->table;

	if (refcount_dec_and_test(&entry->ref))
		queue_work(system_wq, &table->reclaim_work);
}

/*
 * Removes a valid entry from lookups, releases its netdev and drops the
 * table's reference.  Returns with the entry possibly freed.
 */
static void gid_entry_del_locked(struct ib_gid_table *table,
				 struct ib_gid_entry *entry)
{
	struct ib_device *device = table->device;
	int ix = entry->attr.index;

	lockdep_assert_held(&table->lock);

	write_lock_irq(&device->cache_lock);
	WRITE_ONCE(entry->valid, false);
	if (!gid_slot_outlives_delete(table))
		table->entries[ix] = NULL;
	write_unlock_irq(&device->cache_lock);
	/* Before the table's reference goes: the reclaim looks here. */
	list_add_tail(&entry->dead_link, &table->dead);

	if (entry->ndev_ref) {
		RCU_INIT_POINTER(entry->attr.ndev, NULL);
		call_rcu(&entry->ndev_ref->rcu, gid_ndev_ref_free);
		entry->ndev_ref = NULL;
	}

	/* The reclaim waits for table->lock: freeing here is safe. */
	if (refcount_dec_and_test(&entry->ref))
		gid_entry_free_locked(table, entry);
}

/* Lowest slot that is neither valid nor reserved; -ENOSPC if none. */
static int gid_table_free_slot(const struct ib_gid_table *table)
{
	int ix;

	for (ix = 0; ix < table->sz; ix++)
		if (!table->entries[ix])
			return ix;
	return -ENOSPC;
}

static bool gid_entry_matches(const struct ib_gid_entry *entry,
			      const union ib_gid *gid,
			      enum ib_gid_type gid_type,
			      const struct net_device *ndev)
{
	if (!entry || !entry->valid || entry->attr.gid_type != gid_type ||
	    memcmp(&entry->attr.gid, gid, sizeof(*gid)))
		return false;
	return !ndev || rcu_access_pointer(entry->attr.ndev) == ndev;
}

/* Allocates, publishes and (if the driver has a GID table) programs. */
static int gid_table_add_locked(struct ib_gid_table *table, int ix,
				const union ib_gid *gid,
				enum ib_gid_type gid_type,
				struct net_device *ndev)
{
	struct ib_device *device = table->device;
	struct ib_gid_entry *entry;
	int ret;

	lockdep_assert_held(&table->lock);

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	refcount_set(&entry->ref, 1);
	entry->table = table;
	entry->attr.device = device;
	entry->attr.port_num = table->port;
	entry->attr.index = ix;
	entry->attr.gid = *gid;
	entry->attr.gid_type = gid_type;

	if (ndev) {
		entry->ndev_ref = kzalloc(sizeof(*entry->ndev_ref), GFP_KERNEL);
		if (!entry->ndev_ref) {
			ret = -ENOMEM;
			goto err_entry;
		}
		entry->ndev_ref->ndev = ndev;
		netdev_hold(ndev, &entry->ndev_ref->tracker, GFP_KERNEL);
		RCU_INIT_POINTER(entry->attr.ndev, ndev);
	}

	if (rdma_cap_roce_gid_table(device, table->port)) {
		ret = device->ops.add_gid(&entry->attr, &entry->context);
		if (ret)
			goto err_ndev;
		entry->in_hw = true;
	}

	write_lock_irq(&device->cache_lock);
	WRITE_ONCE(entry->valid, true);
	table->entries[ix] = entry;
	write_unlock_irq(&device->cache_lock);
	return 0;

err_ndev:
	if (entry->ndev_ref) {
		netdev_put(ndev, &entry->ndev_ref->tracker);
		kfree(entry->ndev_ref);
	}
err_entry:
	kfree(entry);
	return ret;
}

/*
 * The table changed: tell the handlers, after the change (they read the
 * table).  Not a driver event, so nothing is refreshed from the driver.
 */
static void gid_change_event(struct ib_device *device, u32 port)
{
	struct ib_event event = {
		.device = device,
		.event = IB_EVENT_GID_CHANGE,
		.element.port_num = port,
	};

	ib_dispatch_cache_event(&event);
}

/**
 * ib_cache_gid_add - add a RoCE GID unless it is already in the table
 * @device: the device
 * @port: a RoCE port of @device
 * @gid: the GID
 * @gid_type: its type
 * @ndev: the netdev it belongs to; referenced while the GID is in the table
 *
 * Takes the lowest free index.  Dispatches IB_EVENT_GID_CHANGE when the
 * table changed.  Return: 0 when the GID is in the table, -EINVAL for a
 * port without table, -ENOSPC when the table is full, or the driver's
 * add_gid() error.
 */
int ib_cache_gid_add(struct ib_device *device, u32 port,
		     const union ib_gid *gid, enum ib_gid_type gid_type,
		     struct net_device *ndev)
{
	struct ib_gid_table *table = gid_table(device, port);
	bool added = false;
	int ix, ret = 0;

	if (!table)
		return -EINVAL;

	mutex_lock(&table->lock);
	for (ix = 0; ix < table->sz; ix++)
		if (gid_entry_matches(table->entries[ix], gid, gid_type, ndev))
			goto unlock;

	ix = gid_table_free_slot(table);
	if (ix < 0) {
		ret = ix;
		goto unlock;
	}
	ret = gid_table_add_locked(table, ix, gid, gid_type, ndev);
	added = !ret;
unlock:
	mutex_unlock(&table->lock);

	if (added)
		gid_change_event(device, port);
	return ret;
}

/**
 * ib_cache_gid_del_if - delete the GIDs of a port that @del selects
 * @device: the device
 * @port: the port
 * @del: called with each valid GID (table lock held, may not sleep long)
 * @ctx: passed to @del
 *
 * Dispatches IB_EVENT_GID_CHANGE when the table changed.
 */
void ib_cache_gid_del_if(struct ib_device *device, u32 port,
			 bool (*del)(const struct ib_gid_attr *attr, void *ctx),
			 void *ctx)
{
	struct ib_gid_table *table = gid_table(device, port);
	struct ib_gid_entry *entry;
	bool changed = false;
	int ix;

	if (!table)
		return;

	mutex_lock(&table->lock);
	for (ix = 0; ix < table->sz; ix++) {
		entry = table->entries[ix];
		if (entry && entry->valid && del(&entry->attr, ctx)) {
			gid_entry_del_locked(table, entry);
			changed = true;
		}
	}
	mutex_unlock(&table->lock);

	if (changed)
		gid_change_event(device, port);
}

/**
 * ib_cache_gid_uses_ndev - whether a valid GID of the port belongs to @ndev
 * @device: the device
 * @port: the port
 * @ndev: the netdev
 */
bool ib_cache_gid_uses_ndev(struct ib_device *device, u32 port,
			    const struct net_device *ndev)
{
	struct ib_gid_table *table = gid_table(device, port);
	struct ib_gid_entry *entry;
	unsigned long flags;
	bool found = false;
	int ix;

	if (!table)
		return false;

	read_lock_irqsave(&device->cache_lock, flags);
	for (ix = 0; ix < table->sz && !found; ix++) {
		entry = table->entries[ix];
		found = entry && entry->valid &&
			rcu_access_pointer(entry->attr.ndev) == ndev;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return found;
}

/* ---- GID type names ------------------------------------------------- */

/*
 * The names sysfs (gid_attrs/types/<i>) and rdma_cm's configfs
 * (default_roce_mode) use.  IB and RoCE v1 share a name because they share
 * a value (IB_GID_TYPE_ROCE == IB_GID_TYPE_IB), which user space has
 * always read as "IB/RoCE v1".
 */
static const char *const gid_type_names[IB_GID_TYPE_SIZE] = {
	[IB_GID_TYPE_IB] = "IB/RoCE v1",
	[IB_GID_TYPE_ROCE_UDP_ENCAP] = "RoCE v2",
};

/**
 * ib_cache_gid_type_str - the name of a GID type
 * @gid_type: the type
 *
 * Return: the name, or "Invalid GID type" for a value without one.
 */
const char *ib_cache_gid_type_str(enum ib_gid_type gid_type)
{
	if ((unsigned int)gid_type < ARRAY_SIZE(gid_type_names) &&
	    gid_type_names[gid_type])
		return gid_type_names[gid_type];
	return "Invalid GID type";
}
EXPORT_SYMBOL(ib_cache_gid_type_str);

/**
 * ib_cache_gid_parse_type_str - the GID type a name stands for
 * @buf: the name, as written to a sysfs or configfs file (one trailing
 *	newline is ignored)
 *
 * Return: the type (IB_GID_TYPE_IB for "IB/RoCE v1"), or -EINVAL when
 * @buf is no type's exact name.
 */
int ib_cache_gid_parse_type_str(const char *buf)
{
	size_t len = strlen(buf);
	unsigned int type;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len)
		return -EINVAL;

	for (type = 0; type < ARRAY_SIZE(gid_type_names); type++) {
		const char *name = gid_type_names[type];

		if (name && strlen(name) == len && !memcmp(buf, name, len))
			return type;
	}
	return -EINVAL;
}
EXPORT_SYMBOL(ib_cache_gid_parse_type_str);

/* ---- GID lookups ---------------------------------------------------- */

bool rdma_is_zero_gid(const union ib_gid *gid)
{
	return !memcmp(gid, &zgid, sizeof(*gid));
}
EXPORT_SYMBOL(rdma_is_zero_gid);

/**
 * rdma_query_gid - read the GID at @index of a port
 * @device: the device
 * @port_num: the port
 * @index: the GID index
 * @gid: where to store it
 *
 * Return: 0, -EINVAL for an iWARP or invalid port or an index out of the
 * table, -ENOENT for an empty slot.
 */
int rdma_query_gid(struct ib_device *device, u32 port_num, int index,
		   union ib_gid *gid)
{
	struct ib_gid_table *table = gid_table(device, port_num);
	struct ib_gid_entry *entry;
	unsigned long flags;
	int ret = -ENOENT;

	if (!table || rdma_protocol_iwarp(device, port_num) || index < 0 ||
	    index >= table->sz)
		return -EINVAL;

	read_lock_irqsave(&device->cache_lock, flags);
	entry = table->entries[index];
	if (entry && entry->valid) {
		*gid = entry->attr.gid;
		ret = 0;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_query_gid);

/**
 * rdma_read_gid_hw_context - the driver's add_gid() context of a GID
 * @attr: a GID attribute the caller holds
 */
void *rdma_read_gid_hw_context(const struct ib_gid_attr *attr)
{
	return to_gid_entry(attr)->context;
}
EXPORT_SYMBOL(rdma_read_gid_hw_context);

/* Holds and returns the first valid entry @match accepts, or NULL. */
static const struct ib_gid_attr *
gid_table_find(struct ib_gid_table *table,
	       bool (*match)(const struct ib_gid_entry *entry, void *arg),
	       void *arg)
{
	struct ib_device *device = table->device;
	const struct ib_gid_attr *attr = NULL;
	struct ib_gid_entry *entry;
	unsigned long flags;
	int ix;

	read_lock_irqsave(&device->cache_lock, flags);
	for (ix = 0; ix < table->sz; ix++) {
		entry = table->entries[ix];
		if (entry && entry->valid && match(entry, arg)) {
			refcount_inc(&entry->ref);
			attr = &entry->attr;
			break;
		}
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return attr;
}

struct gid_find_key {
	const union ib_gid *gid;
	enum ib_gid_type gid_type;
	const struct net_device *ndev;
};

static bool gid_match_key(const struct ib_gid_entry *entry, void *arg)
{
	const struct gid_find_key *key = arg;

	return gid_entry_matches(entry, key->gid, key->gid_type, key->ndev);
}

/**
 * rdma_find_gid_by_port - find a GID on one port
 * @ib_dev: the device
 * @gid: the GID
 * @gid_type: its type
 * @port: the port
 * @ndev: its netdev, or NULL for any
 *
 * Return: the held attribute (put with rdma_put_gid_attr()), or
 * ERR_PTR(-ENOENT) when not found, the port being invalid included.
 */
const struct ib_gid_attr *rdma_find_gid_by_port(struct ib_device *ib_dev,
						const union ib_gid *gid,
						enum ib_gid_type gid_type,
						u32 port,
						struct net_device *ndev)
{
	struct ib_gid_table *table = gid_table(ib_dev, port);
	struct gid_find_key key = {
		.gid = gid, .gid_type = gid_type, .ndev = ndev,
	};
	const struct ib_gid_attr *attr;

	if (!table)
		return ERR_PTR(-ENOENT);

	attr = gid_table_find(table, gid_match_key, &key);
	return attr ?: ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL(rdma_find_gid_by_port);

/**
 * rdma_find_gid - find a GID on any port of a device
 * @device: the device
 * @gid: the GID
 * @gid_type: its type
 * @ndev: its netdev, or NULL for any
 *
 * Return: the held attribute, or ERR_PTR(-ENOENT).
 */
const struct ib_gid_attr *rdma_find_gid(struct ib_device *device,
					const union ib_gid *gid,
					enum ib_gid_type gid_type,
					struct net_device *ndev)
{
	const struct ib_gid_attr *attr;
	u32 port;

	rdma_for_each_port(device, port) {
		attr = rdma_find_gid_by_port(device, gid, gid_type, port, ndev);
		if (!IS_ERR(attr))
			return attr;
	}
	return ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL(rdma_find_gid);

struct gid_filter_key {
	const union ib_gid *gid;
	bool (*filter)(const union ib_gid *gid,
		       const struct ib_gid_attr *attr, void *context);
	void *context;
};

static bool gid_match_filter(const struct ib_gid_entry *entry, void *arg)
{
	const struct gid_filter_key *key = arg;

	return !memcmp(&entry->attr.gid, key->gid, sizeof(*key->gid)) &&
	       key->filter(key->gid, &entry->attr, key->context);
}

/**
 * rdma_find_gid_by_filter - find a GID on a port with a caller's filter
 * @device: the device
 * @gid: the GID
 * @port_num: the port
 * @filter: accepts or rejects each entry carrying @gid; called with the
 *	cache lock held for reading, interrupts off: must not sleep
 * @context: passed to @filter
 *
 * Return: the held attribute, or ERR_PTR(-EINVAL) for an invalid port,
 * ERR_PTR(-ENOENT) when not found.
 */
const struct ib_gid_attr *
rdma_find_gid_by_filter(struct ib_device *device, const union ib_gid *gid,
			u32 port_num,
			bool (*filter)(const union ib_gid *gid,
				       const struct ib_gid_attr *attr,
				       void *context),
			void *context)
{
	struct ib_gid_table *table = gid_table(device, port_num);
	struct gid_filter_key key = {
		.gid = gid, .filter = filter, .context = context,
	};
	const struct ib_gid_attr *attr;

	if (!table)
		return ERR_PTR(-EINVAL);

	attr = gid_table_find(table, gid_match_filter, &key);
	return attr ?: ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL(rdma_find_gid_by_filter);

/**
 * rdma_get_gid_attr - hold the GID attribute at @index of a port
 * @device: the device
 * @port_num: the port
 * @index: the GID index
 *
 * Return: the held attribute (put with rdma_put_gid_attr()); it stays
 * readable after the GID is deleted.  ERR_PTR(-EINVAL) for an invalid
 * port or index, ERR_PTR(-ENODATA) for an empty slot.
 */
const struct ib_gid_attr *rdma_get_gid_attr(struct ib_device *device,
					    u32 port_num, int index)
{
	struct ib_gid_table *table = gid_table(device, port_num);
	const struct ib_gid_attr *attr = ERR_PTR(-ENODATA);
	struct ib_gid_entry *entry;
	unsigned long flags;

	if (!table || index < 0 || index >= table->sz)
		return ERR_PTR(-EINVAL);

	read_lock_irqsave(&device->cache_lock, flags);
	entry = table->entries[index];
	if (entry && entry->valid) {
		refcount_inc(&entry->ref);
		attr = &entry->attr;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return attr;
}
EXPORT_SYMBOL(rdma_get_gid_attr);

/**
 * rdma_hold_gid_attr - take another reference on a held GID attribute
 * @attr: the attribute; the caller already holds it
 */
void rdma_hold_gid_attr(const struct ib_gid_attr *attr)
{
	refcount_inc(&to_gid_entry(attr)->ref);
}
EXPORT_SYMBOL(rdma_hold_gid_attr);

/**
 * rdma_put_gid_attr - release a GID attribute; callable in atomic context
 * @attr: the attribute
 */
void rdma_put_gid_attr(const struct ib_gid_attr *attr)
{
	gid_entry_put(to_gid_entry(attr));
}
EXPORT_SYMBOL(rdma_put_gid_attr);

/**
 * rdma_read_gid_attr_ndev_rcu - the netdev of a GID attribute
 * @attr: a held attribute
 *
 * Call under rcu_read_lock(); the netdev is valid until the unlock.
 * Return: the netdev, ERR_PTR(-EINVAL) when the GID was deleted meanwhile,
 * ERR_PTR(-ENODEV) when it has none.
 */
struct net_device *rdma_read_gid_attr_ndev_rcu(const struct ib_gid_attr *attr)
{
	struct ib_gid_entry *entry = to_gid_entry(attr);
	struct net_device *ndev;

	if (!READ_ONCE(entry->valid))
		return ERR_PTR(-EINVAL);
	ndev = rcu_dereference(entry->attr.ndev);
	return ndev ?: ERR_PTR(-ENODEV);
}
EXPORT_SYMBOL(rdma_read_gid_attr_ndev_rcu);

static int vlan_id_of_lower(struct net_device *lower,
			    struct netdev_nested_priv *priv)
{
	u16 *vlan_id = priv->data;

	if (!is_vlan_dev(lower))
		return 0;
	*vlan_id = vlan_dev_vlan_id(lower);
	return 1;
}

/**
 * rdma_read_gid_l2_fields - the VLAN id and source MAC of a RoCE GID
 * @attr: a held attribute
 * @vlan_id: where to store the VLAN id (0xffff without VLAN), or NULL
 * @smac: where to store the netdev's MAC, or NULL
 *
 * The VLAN id is that of the netdev or, for a device stacked on a VLAN
 * (macvlan over vlan, ...), of the nearest lower VLAN device.  Valid for
 * an entry being added (the driver's add_gid) as for a held one.
 * Return: 0, or -ENODEV when the GID has no netdev.
 */
int rdma_read_gid_l2_fields(const struct ib_gid_attr *attr,
			    u16 *vlan_id, u8 *smac)
{
	struct netdev_nested_priv priv = { .data = vlan_id };
	struct net_device *ndev;

	/*
	 * Not rdma_read_gid_attr_ndev_rcu(): a driver's add_gid asks for
	 * these while the entry is being added, before it is valid (mlx5_ib
	 * programs the MAC and VLAN of each GID it is given), as on stock.
	 */
	rcu_read_lock();
	ndev = rcu_dereference(attr->ndev);
	if (!ndev) {
		rcu_read_unlock();
		return -ENODEV;
	}
	if (smac)
		ether_addr_copy(smac, ndev->dev_addr);
	if (vlan_id) {
		*vlan_id = 0xffff;
		if (is_vlan_dev(ndev))
			*vlan_id = vlan_dev_vlan_id(ndev);
		else
			netdev_walk_all_lower_dev_rcu(ndev, vlan_id_of_lower,
						      &priv);
	}
	rcu_read_unlock();
	return 0;
}
EXPORT_SYMBOL(rdma_read_gid_l2_fields);

/**
 * rdma_query_gid_table - every valid GID of a device, for uverbs
 * @device: the device
 * @entries: the output array
 * @max_entries: its length
 *
 * Return: the number of entries written, or -EINVAL when they do not fit.
 */
ssize_t rdma_query_gid_table(struct ib_device *device,
			     struct ib_uverbs_gid_entry *entries,
			     size_t max_entries)
{
	struct ib_uverbs_gid_entry *out = entries;
	struct ib_gid_table *table;
	struct ib_gid_entry *entry;
	struct net_device *ndev;
	unsigned long flags;
	ssize_t ret = 0;
	u32 port;
	int ix;

	rdma_for_each_port(device, port) {
		table = gid_table(device, port);
		if (!table)
			continue;
		read_lock_irqsave(&device->cache_lock, flags);
		for (ix = 0; ix < table->sz; ix++) {
			entry = table->entries[ix];
			if (!entry || !entry->valid)
				continue;
			if (ret == max_entries) {
				read_unlock_irqrestore(&device->cache_lock,
						       flags);
				return -EINVAL;
			}
			memcpy(out->gid, &entry->attr.gid, sizeof(out->gid));
			out->gid_index = ix;
			out->port_num = port;
			out->gid_type = entry->attr.gid_type;
			rcu_read_lock();
			ndev = rcu_dereference(entry->attr.ndev);
			out->netdev_ifindex = ndev ? ndev->ifindex : 0;
			rcu_read_unlock();
			out++;
			ret++;
		}
		read_unlock_irqrestore(&device->cache_lock, flags);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_query_gid_table);

/* ---- P_Key, port state, LMC ----------------------------------------- */

/**
 * ib_get_cached_pkey - the P_Key at @index of a port
 * @device: the device
 * @port_num: the port
 * @index: the P_Key index
 * @pkey: where to store it
 *
 * Return: 0, or -EINVAL for an invalid port or index.
 */
int ib_get_cached_pkey(struct ib_device *device, u32 port_num, int index,
		       u16 *pkey)
{
	struct ib_pkey_cache *cache;
	unsigned long flags;
	int ret = -EINVAL;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	read_lock_irqsave(&device->cache_lock, flags);
	cache = device->port_data[port_num].cache.pkey;
	if (cache && index >= 0 && index < cache->table_len) {
		*pkey = cache->table[index];
		ret = 0;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_pkey);

/*
 * Index of @pkey in the port's cache; U16_MAX and -ENOENT when absent.
 * Inexactly, the membership bit (bit 15) is ignored.
 */
static int find_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey,
			    bool exact, u16 *index)
{
	struct ib_pkey_cache *cache;
	int i, partial = -1, ret = -ENOENT;
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	read_lock_irqsave(&device->cache_lock, flags);
	cache = device->port_data[port_num].cache.pkey;
	for (i = 0; cache && i < cache->table_len; i++) {
		if (cache->table[i] == pkey) {
			*index = i;
			ret = 0;
			break;
		}
		if (!exact && partial < 0 &&
		    (cache->table[i] & 0x7fff) == (pkey & 0x7fff))
			partial = i;
	}
	if (ret && partial >= 0) {
		*index = partial;
		ret = 0;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	/* Like stock, leave no stale index behind on a miss. */
	if (ret)
		*index = U16_MAX;
	return ret;
}

/**
 * ib_find_cached_pkey - the index of a P_Key, ignoring the membership bit
 * @device: the device
 * @port_num: the port
 * @pkey: the P_Key
 * @index: where to store its index
 *
 * Return: 0, -EINVAL for an invalid port, -ENOENT when absent.
 */
int ib_find_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey,
			u16 *index)
{
	u16 full = pkey | 0x8000;
	int ret;

	/* A full-member entry wins over a limited one. */
	ret = find_cached_pkey(device, port_num, full, true, index);
	if (ret == -ENOENT)
		ret = find_cached_pkey(device, port_num, pkey, false, index);
	return ret;
}
EXPORT_SYMBOL(ib_find_cached_pkey);

/**
 * ib_find_exact_cached_pkey - the index of exactly this P_Key
 * @device: the device
 * @port_num: the port
 * @pkey: the P_Key
 * @index: where to store its index
 *
 * Return: 0, -EINVAL for an invalid port, -ENOENT when absent.
 */
int ib_find_exact_cached_pkey(struct ib_device *device, u32 port_num,
			      u16 pkey, u16 *index)
{
	return find_cached_pkey(device, port_num, pkey, true, index);
}
EXPORT_SYMBOL(ib_find_exact_cached_pkey);

/**
 * ib_get_cached_lmc - the LMC of a port
 * @device: the device
 * @port_num: the port
 * @lmc: where to store it
 *
 * Return: 0, or -EINVAL for an invalid port.
 */
int ib_get_cached_lmc(struct ib_device *device, u32 port_num, u8 *lmc)
{
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	read_lock_irqsave(&device->cache_lock, flags);
	*lmc = device->port_data[port_num].cache.lmc;
	read_unlock_irqrestore(&device->cache_lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_get_cached_lmc);

/**
 * ib_get_cached_subnet_prefix - the subnet prefix of a port
 * @device: the device
 * @port_num: the port
 * @sn_pfx: where to store it, in host order; 0 for an invalid port
 *
 * The prefix of the port's GID 0, as the cache last read it (IB ports;
 * 0 on RoCE and iWARP ports, whose GIDs have no common prefix).
 */
void ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				 u64 *sn_pfx)
{
	unsigned long flags;

	if (WARN_ON_ONCE(!rdma_is_port_valid(device, port_num))) {
		*sn_pfx = 0;
		return;
	}
	read_lock_irqsave(&device->cache_lock, flags);
	*sn_pfx = device->port_data[port_num].cache.subnet_prefix;
	read_unlock_irqrestore(&device->cache_lock, flags);
}
EXPORT_SYMBOL(ib_get_cached_subnet_prefix);

/**
 * ib_get_cached_port_state - the state of a port
 * @device: the device
 * @port_num: the port
 * @port_active: where to store it
 *
 * Return: 0, or -EINVAL for an invalid port.
 */
int ib_get_cached_port_state(struct ib_device *device, u32 port_num,
			     enum ib_port_state *port_active)
{
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	read_lock_irqsave(&device->cache_lock, flags);
	*port_active = device->port_data[port_num].cache.port_state;
	read_unlock_irqrestore(&device->cache_lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_get_cached_port_state);

/* ---- Refresh from the driver ---------------------------------------- */

static struct ib_pkey_cache *pkey_cache_read(struct ib_device *device,
					     u32 port)
{
	int i, len = device->port_data[port].immutable.pkey_tbl_len;
	struct ib_pkey_cache *cache;

	if (!device->ops.query_pkey)
		len = 0;
	cache = kzalloc(struct_size(cache, table, len), GFP_KERNEL);
	if (!cache)
		return ERR_PTR(-ENOMEM);
	cache->table_len = len;

	for (i = 0; i < len; i++) {
		int ret = device->ops.query_pkey(device, port, i,
						 &cache->table[i]);

		if (ret) {
			kfree(cache);
			return ERR_PTR(ret);
		}
	}
	return cache;
}

/*
 * Non-RoCE ports: mirror the driver's GIDs.  Zero GIDs are empty slots;
 * a changed GID is a new entry, so holders of the old one keep theirs.
 */
static int gid_table_read_hw(struct ib_gid_table *table)
{
	struct ib_device *device = table->device;
	struct ib_gid_entry *entry;
	union ib_gid gid;
	int ix, ret = 0;

	if (!device->ops.query_gid)
		return 0;

	mutex_lock(&table->lock);
	for (ix = 0; ix < table->sz; ix++) {
		ret = device->ops.query_gid(device, table->port, ix, &gid);
		if (ret)
			break;
		entry = table->entries[ix];
		if (entry && !memcmp(&entry->attr.gid, &gid, sizeof(gid)))
			continue;
		if (entry)
			gid_entry_del_locked(table, entry);
		if (rdma_is_zero_gid(&gid))
			continue;
		ret = gid_table_add_locked(table, ix, &gid, IB_GID_TYPE_IB,
					   NULL);
		if (ret)
			break;
	}
	mutex_unlock(&table->lock);
	return ret;
}

static int port_cache_update(struct ib_gid_table *table)
{
	struct ib_device *device = table->device;
	struct ib_port_cache *cache = &device->port_data[table->port].cache;
	struct ib_pkey_cache *pkeys, *old;
	struct ib_port_attr attr = {};
	union ib_gid gid0;
	int ret;

	ret = ib_query_port(device, table->port, &attr);
	if (ret)
		return ret;

	if (!rdma_protocol_roce(device, table->port)) {
		ret = gid_table_read_hw(table);
		if (ret)
			return ret;
	}
	/* ib_query_port() falls back on this for IB ports: keep GID 0's. */
	if (!attr.subnet_prefix && rdma_protocol_ib(device, table->port) &&
	    !rdma_query_gid(device, table->port, 0, &gid0))
		attr.subnet_prefix = be64_to_cpu(gid0.global.subnet_prefix);

	pkeys = pkey_cache_read(device, table->port);
	if (IS_ERR(pkeys))
		return PTR_ERR(pkeys);

	write_lock_irq(&device->cache_lock);
	old = cache->pkey;
	cache->pkey = pkeys;
	cache->lmc = attr.lmc;
	cache->port_state = attr.state;
	cache->subnet_prefix = attr.subnet_prefix;
	write_unlock_irq(&device->cache_lock);

	kfree(old);
	return 0;
}

/*
 * Port events of the driver that change what the cache holds.  A GID_CHANGE
 * of a RoCE port reports a change the core made itself (roce_gid_mgmt.c):
 * its GIDs are not the driver's, but the port attributes are refreshed all
 * the same, as stock does.
 */
static bool port_cache_event(enum ib_event_type type)
{
	switch (type) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		return true;
	default:
		return false;
	}
}

/**
 * ib_cache_event_refresh - refresh the port's caches before a driver event
 * @event: the event, as the driver dispatched it
 *
 * Called by the event work before the handlers see @event, so that a
 * handler reads the state the event reports (a client's PORT_ACTIVE
 * handler finds the port active in the cache, IPoIB the new GID).
 *
 * Return: whether the handlers should see @event.  As on stock they do
 * not when the refresh failed (the cache would contradict the event) nor
 * for a driver's GID_CHANGE: the GID table reports its own changes.
 */
bool ib_cache_event_refresh(const struct ib_event *event)
{
	struct ib_device *device = event->device;
	u32 port = event->element.port_num;
	struct ib_gid_table *table;
	int ret;

	lockdep_assert_held(&device->event_handler_rwsem);
	if (!port_cache_event(event->event))
		return true;
	if (!rdma_is_port_valid(device, port))
		return false;
	table = gid_table(device, port);
	/* Before setup or after cleanup: nothing cached to refresh. */
	if (!table || !table->live)
		return true;

	ret = port_cache_update(table);
	if (ret) {
		dev_warn(&device->dev, "port %u: cache refresh failed: %d\n",
			 port, ret);
		return false;
	}
	/* New P_Keys or subnet prefix: the port's QPs are checked again. */
	if (event->event == IB_EVENT_PKEY_CHANGE ||
	    event->event == IB_EVENT_GID_CHANGE)
		ib_security_port_changed(device, port);
	return event->event != IB_EVENT_GID_CHANGE;
}

/* ---- Setup and teardown --------------------------------------------- */

static struct ib_gid_table *gid_table_alloc(struct ib_device *device,
					    u32 port)
{
	int sz = device->port_data[port].immutable.gid_tbl_len;
	struct ib_gid_table *table;

	table = kzalloc(struct_size(table, entries, sz), GFP_KERNEL);
	if (!table)
		return NULL;
	table->device = device;
	table->port = port;
	table->sz = sz;
	mutex_init(&table->lock);
	INIT_LIST_HEAD(&table->dead);
	INIT_WORK(&table->reclaim_work, gid_table_reclaim_work);
	return table;
}

/* Deletes every valid GID; held ones stay readable until put. */
static void gid_table_flush(struct ib_gid_table *table)
{
	struct ib_gid_entry *entry;
	int ix;

	mutex_lock(&table->lock);
	for (ix = 0; ix < table->sz; ix++) {
		entry = table->entries[ix];
		if (entry && entry->valid)
			gid_entry_del_locked(table, entry);
	}
	mutex_unlock(&table->lock);
}

static void port_cache_free(struct ib_device *device, u32 port)
{
	struct ib_port_cache *cache = &device->port_data[port].cache;
	struct ib_gid_table *table = cache->gid;
	int ix;

	kfree(cache->pkey);
	cache->pkey = NULL;
	if (!table)
		return;

	/* The event work finds the table under the rwsem: detach it first. */
	down_write(&device->event_handler_rwsem);
	table->live = false;
	cache->gid = NULL;
	up_write(&device->event_handler_rwsem);

	gid_table_flush(table);
	cancel_work_sync(&table->reclaim_work);
	gid_table_reclaim_work(&table->reclaim_work);
	/* Every user puts its GID attrs before the device goes. */
	for (ix = 0; ix < table->sz; ix++)
		WARN_ON(table->entries[ix]);
	WARN_ON(!list_empty(&table->dead));
	kfree(table);
}

/* Starts or stops the event work's refreshes (ib_cache_event_refresh()). */
static void ib_cache_set_live(struct ib_device *device, bool live)
{
	struct ib_gid_table *table;
	u32 port;

	down_write(&device->event_handler_rwsem);
	rdma_for_each_port(device, port) {
		table = gid_table(device, port);
		if (table)
			table->live = live;
	}
	up_write(&device->event_handler_rwsem);
}

int ib_cache_setup_one(struct ib_device *device)
{
	struct ib_gid_table *table;
	u32 port;
	int ret;

	rdma_for_each_port(device, port) {
		table = gid_table_alloc(device, port);
		if (!table) {
			ret = -ENOMEM;
			goto err;
		}
		device->port_data[port].cache.gid = table;
		ret = port_cache_update(table);
		if (ret)
			goto err;
	}

	ib_cache_set_live(device, true);
	return 0;

err:
	ib_cache_release_one(device);
	return ret;
}

void ib_cache_cleanup_one(struct ib_device *device)
{
	struct ib_gid_table *table;
	u32 port;

	/* Once this returns, no event work refreshes the caches. */
	ib_cache_set_live(device, false);
	rdma_for_each_port(device, port) {
		table = gid_table(device, port);
		if (!table)
			continue;
		gid_table_flush(table);
		flush_work(&table->reclaim_work);
	}
}

void ib_cache_release_one(struct ib_device *device)
{
	u32 port;

	if (!device->port_data)
		return;

	rdma_for_each_port(device, port)
		port_cache_free(device, port);
}

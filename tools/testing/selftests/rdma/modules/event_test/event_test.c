// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: what a client's event handler finds in ib_core's port
 * caches when a port event reaches it, on an rxe device (dev=, default
 * rxe0) over the netdev netdev=.
 *
 * On load it flaps the netdev rounds= times and changes its MAC, then
 * prints KTAP (version 1) into the kernel log, each line prefixed with
 * "event_test: "; core_events.sh turns them into its own cases.
 *
 * A driver's PORT_ERR or PORT_ACTIVE must reach the handlers after the
 * cache has been refreshed from the driver: a handler that reads the
 * cached port state (ib_get_cached_port_state(), as ULPs do) must find
 * what the event reports.  A GID_CHANGE of a RoCE port must come after the
 * table changed: the handler of the last one finds the new default GID
 * (the MAC's link-local GID) in the cache.
 *
 * Only public API is used: the module builds against the stock ib_core as
 * well as ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "ktap_module.h"

static char *et_dev_name = "rxe0";
module_param_named(dev, et_dev_name, charp, 0444);
MODULE_PARM_DESC(dev, "the rxe device to test on");
static char *et_ndev_name;
module_param_named(netdev, et_ndev_name, charp, 0444);
MODULE_PARM_DESC(netdev, "the netdev of the device's port 1");
static int rounds = 4;
module_param(rounds, int, 0444);
MODULE_PARM_DESC(rounds, "link flaps");

#define ET_PORT		1
/* How long one change may take in a slow (TCG) guest. */
#define ET_WAIT		(10 * HZ)
/* Time for duplicates of an event (rxe reports UP and CHANGE) to pass. */
#define ET_SETTLE_MS	300
#define ET_NR_CASES	4

/*
 * What the handler saw of one kind of event.  Written by the handler
 * (ib_core's event work, one at a time), read by the init thread after
 * the completion or after the handler is unregistered.
 */
struct et_seen {
	struct completion done;
	int events;
	/* Events whose handler found the cache contradicting them. */
	int stale;
	int last_state;
};

static struct {
	struct ib_device *dev;
	struct net_device *ndev;
	struct ib_event_handler handler;
	struct et_seen err, active, gid;
	/* The default GID of the new MAC; set before the MAC changes. */
	union ib_gid new_gid;
	bool gid_armed;
	/* Whether the last GID_CHANGE handler found new_gid cached. */
	bool last_gid_found;
} et;

static bool et_gid_cached(struct ib_device *dev, const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid(dev, gid, IB_GID_TYPE_ROCE_UDP_ENCAP, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

static void et_port_event(struct et_seen *seen, struct ib_device *dev,
			  bool active)
{
	enum ib_port_state state;
	bool cached_active;

	if (ib_get_cached_port_state(dev, ET_PORT, &state))
		state = IB_PORT_NOP;
	seen->last_state = state;
	cached_active = state == IB_PORT_ACTIVE;
	if (cached_active != active)
		seen->stale++;
	seen->events++;
	complete(&seen->done);
}

static void et_event(struct ib_event_handler *handler, struct ib_event *ev)
{
	if (ev->element.port_num != ET_PORT)
		return;
	switch (ev->event) {
	case IB_EVENT_PORT_ACTIVE:
		et_port_event(&et.active, ev->device, true);
		break;
	case IB_EVENT_PORT_ERR:
		et_port_event(&et.err, ev->device, false);
		break;
	case IB_EVENT_GID_CHANGE:
		if (!READ_ONCE(et.gid_armed))
			break;
		et.last_gid_found = et_gid_cached(ev->device, &et.new_gid);
		et.gid.events++;
		complete(&et.gid.done);
		break;
	default:
		break;
	}
}

static int et_set_up(bool up)
{
	unsigned int flags;
	int ret;

	rtnl_lock();
	flags = dev_get_flags(et.ndev);
	flags = up ? flags | IFF_UP : flags & ~IFF_UP;
	ret = dev_change_flags(et.ndev, flags, NULL);
	rtnl_unlock();
	return ret;
}

/* Waits for an event of @seen and the port state @state behind it. */
static int et_wait_port(struct et_seen *seen, enum ib_port_state state)
{
	struct ib_port_attr attr;
	unsigned long end = jiffies + ET_WAIT;

	if (!wait_for_completion_timeout(&seen->done, ET_WAIT))
		return -ETIMEDOUT;
	do {
		if (!ib_query_port(et.dev, ET_PORT, &attr) &&
		    attr.state == state) {
			msleep(ET_SETTLE_MS);
			return 0;
		}
		msleep(20);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

/* One flap: down, then up again, each awaited. */
static int et_flap(void)
{
	int ret;

	reinit_completion(&et.err.done);
	ret = et_set_up(false);
	if (KTAP_BAD(!ret, "link down: %d", ret))
		return ret;
	ret = et_wait_port(&et.err, IB_PORT_DOWN);
	if (KTAP_BAD(!ret, "no PORT_ERR, or the port stays up: %d", ret))
		return ret;
	reinit_completion(&et.active.done);
	ret = et_set_up(true);
	if (KTAP_BAD(!ret, "link up: %d", ret))
		return ret;
	ret = et_wait_port(&et.active, IB_PORT_ACTIVE);
	if (KTAP_BAD(!ret, "no PORT_ACTIVE, or the port stays down: %d", ret))
		return ret;
	return 0;
}

static int et_case_flaps(void)
{
	int i, ret;

	for (i = 0; i < rounds; i++) {
		ret = et_flap();
		if (ret)
			return ret;
	}
	return 0;
}

static int et_check_seen(struct et_seen *seen, const char *what)
{
	ktap_diag("%s: %d events, %d found the cache stale, last cached state %d",
		  what, seen->events, seen->stale, seen->last_state);
	if (KTAP_BAD(seen->events >= rounds, "%s: %d events", what,
		     seen->events))
		return -EINVAL;
	if (KTAP_BAD(!seen->stale, "%s: %d of %d handlers read a stale state",
		     what, seen->stale, seen->events))
		return -EINVAL;
	return 0;
}

static int et_case_err(void)
{
	return et_check_seen(&et.err, "PORT_ERR");
}

static int et_case_active(void)
{
	return et_check_seen(&et.active, "PORT_ACTIVE");
}

static int et_set_mac(const u8 *mac)
{
	struct sockaddr sa = { .sa_family = et.ndev->type };
	int ret;

	memcpy(sa.sa_data, mac, ETH_ALEN);
	rtnl_lock();
	ret = dev_set_mac_address(et.ndev, &sa, NULL);
	rtnl_unlock();
	return ret;
}

/* The link-local GID of @mac: fe80::/64 with the MAC's EUI-64. */
static void et_mac_gid(const u8 *mac, union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	gid->raw[8] = mac[0] ^ 2;
	gid->raw[9] = mac[1];
	gid->raw[10] = mac[2];
	gid->raw[11] = 0xff;
	gid->raw[12] = 0xfe;
	gid->raw[13] = mac[3];
	gid->raw[14] = mac[4];
	gid->raw[15] = mac[5];
}

static int et_case_gid(void)
{
	unsigned long end = jiffies + ET_WAIT;
	u8 old_mac[ETH_ALEN], mac[ETH_ALEN];
	int ret, err;

	ether_addr_copy(old_mac, et.ndev->dev_addr);
	ether_addr_copy(mac, old_mac);
	mac[5] ^= 0x5a;
	et_mac_gid(mac, &et.new_gid);
	reinit_completion(&et.gid.done);
	WRITE_ONCE(et.gid_armed, true);
	ret = et_set_mac(mac);
	if (KTAP_BAD(!ret, "MAC change: %d", ret))
		goto out;
	ret = -ETIMEDOUT;
	while (!et_gid_cached(et.dev, &et.new_gid) && time_before(jiffies, end))
		msleep(20);
	if (KTAP_BAD(et_gid_cached(et.dev, &et.new_gid),
		     "the new MAC's GID never came"))
		goto out;
	if (KTAP_BAD(wait_for_completion_timeout(&et.gid.done, ET_WAIT),
		     "no GID_CHANGE"))
		goto out;
	msleep(ET_SETTLE_MS);
	ret = 0;
	ktap_diag("GID_CHANGE: %d events, the last found the new GID: %d",
		  et.gid.events, et.last_gid_found);
	if (KTAP_BAD(et.last_gid_found,
		     "the last GID_CHANGE handler missed the new GID"))
		ret = -EINVAL;
out:
	WRITE_ONCE(et.gid_armed, false);
	err = et_set_mac(old_mac);
	if (KTAP_BAD(!err, "MAC restore: %d", err))
		ret = ret ?: err;
	return ret;
}

static void et_seen_init(struct et_seen *seen)
{
	init_completion(&seen->done);
	seen->last_state = -1;
}

static int __init event_test_init(void)
{
	bool flapped;

	if (!et_ndev_name) {
		pr_err("netdev= is required\n");
		return -EINVAL;
	}
	et.dev = ib_device_get_by_name(et_dev_name, RDMA_DRIVER_UNKNOWN);
	if (!et.dev) {
		pr_err("no device %s\n", et_dev_name);
		return -ENODEV;
	}
	et.ndev = dev_get_by_name(&init_net, et_ndev_name);
	if (!et.ndev) {
		pr_err("no netdev %s\n", et_ndev_name);
		ib_device_put(et.dev);
		return -ENODEV;
	}
	et_seen_init(&et.err);
	et_seen_init(&et.active);
	et_seen_init(&et.gid);
	INIT_IB_EVENT_HANDLER(&et.handler, et.dev, et_event);
	ib_register_event_handler(&et.handler);

	ktap_plan(ET_NR_CASES);
	flapped = ktap_run("link flaps: each PORT_ERR and PORT_ACTIVE comes",
			   et_case_flaps, true, "");
	ktap_run("PORT_ERR handlers find the port down in the cache",
		 et_case_err, flapped, "the flaps failed");
	ktap_run("PORT_ACTIVE handlers find the port active in the cache",
		 et_case_active, flapped, "the flaps failed");
	ktap_run("the last GID_CHANGE handler finds the new GID in the cache",
		 et_case_gid, true, "");
	pr_info("# Totals: pass:%d fail:%d\n", passed, failed);

	ib_unregister_event_handler(&et.handler);
	dev_put(et.ndev);
	ib_device_put(et.dev);
	return 0;
}

static void __exit event_test_exit(void)
{
}

module_init(event_test_init);
module_exit(event_test_exit);
MODULE_DESCRIPTION("Test-only: port caches seen from event handlers, KTAP in the log");
MODULE_LICENSE("GPL");

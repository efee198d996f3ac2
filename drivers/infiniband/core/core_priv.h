/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Declarations private to ib_core: the contracts between its files, never
 * seen by other modules.  What other modules see is the kernel's
 * include/rdma/, which we implement and never edit.
 *
 * Who owns what:
 *	main.c		module init/exit order
 *	module_guard.c	refuses the distribution's modules of our set
 *	netlink.c	NETLINK_RDMA sockets and client dispatch
 *	device.c	device registry, lifecycle, clients, netdev binding,
 *			events, port queries
 *	netns.c		devices and network namespaces: the mode, compat
 *			devices, moving a device
 *	cache.c		GID tables and P_Key/port-state caches
 *	roce_gid_mgmt.c	RoCE GIDs from netdev/inet/inet6 notifiers
 *	restrack.c	resource tracking (rdma_restrack_*)
 *	counters.c	hw_stats allocation helpers
 *	qp_counters.c	QP counter sets: auto and manual binding of QPs
 *	nldev.c		RDMA_NL_NLDEV client, rdma_link_ops registry, the
 *			attributes drivers add to its messages
 *	sysfs.c		class "infiniband" attributes, ports/, hw_counters/
 *	sysfs_pma.c	ports/<N>/counters/: PMA Gets through process_mad
 *	verbs.c		verbs on objects: QP modify/query/destroy and
 *			usecnts, AHs, multicast, CQ resize/moderation,
 *			*_user() destruction
 *	verbs_kern.c	kernel users' PDs, QPs and SRQs
 *	cq.c		kernel CQs, their polling contexts, ib_cqe dispatch
 *	cq_pool.c	shared kernel CQs (ib_cq_pool_get/put)
 *	mr.c		fast-registration and integrity MRs, sg to pages
 *	mr_pool.c	per-QP MR pools (ib_mr_pool_*)
 *	drain.c		ib_drain_sq/rq/qp
 *	verbs_msg.c	names of events and completion statuses
 *	ib_core_uverbs.c mmap entries of user contexts
 *	addr.c		RoCE destination MAC resolution; route, address
 *			owner and neighbour helpers
 *	addr_resolve.c	rdma_resolve_ip() and the rdma_dev_addr helpers
 *	ah_wc.c		address handles that answer a received packet
 *	sa_path.c	SA clients, path records, AHs from paths
 *	sa_mcast.c	SA multicast membership, AHs from member records
 *	mad*.c		the MAD layer (QP0/QP1, agents, sends), mad_priv.h
 *	sa_guidinfo.c	SA GuidInfoRecord queries (none without an IB SA)
 *	xrc.c		XRC domains, shared XRC target QPs (ib_open_qp)
 *	qp_user.c	ib_create_qp_user(), ib_uverbs' QPs, and the QP
 *			creation they share with kernel QPs
 *	wq.c		work queues
 *	mr_user.c	kernel MRs of user memory, ib_advise_mr()
 *	block_iter.c	DMA block iteration (rdma/iter.h)
 *	rdma_netdev.c	rdma_alloc_netdev(), rdma_init_netdev()
 *	vf.c		SR-IOV VF ops
 *	cgroup.c	rdma cgroup charges
 *	packer.c	ib_pack()/ib_unpack()
 *	ud_header.c	UD headers (ib_ud_header_*)
 *	rate.c		static rates (ib_rate_to_mult() ...)
 */
#ifndef OOT_RDMA_CORE_PRIV_H
#define OOT_RDMA_CORE_PRIV_H

#include <linux/init.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

struct netlink_callback;
struct ib_uqp_object;

/* ---------------------------------------------------------------- */
/* module_guard.c: refuses the distribution's modules of our set.     */

int __init ib_module_guard_init(void);
void ib_module_guard_exit(void);
int ib_core_oot_check(const char *version);

/* ---------------------------------------------------------------- */
/* netlink.c: the NETLINK_RDMA family, one kernel socket per netns.   */

int __init rdma_nl_init(void);
void rdma_nl_exit(void);

/* ---------------------------------------------------------------- */
/* device.c                                                           */

int __init ib_devices_init(void);
void ib_devices_exit(void);

/*
 * Device class "infiniband"; every registered ib_device is a member
 * (device->dev.class).  Registered by ib_devices_init().
 */
extern struct class ib_class;

/*
 * Lookups for nldev and sysfs.  Each returns the device with a
 * registration reference (ib_device_try_get()), which the caller drops
 * with ib_device_put(); NULL when there is no such registered device or
 * it is not visible from @net (rdma_dev_access_netns()).
 */
struct ib_device *ib_device_get_by_index(const struct net *net, u32 index);

/*
 * Iterator for dumps: the registered device visible from @net (from any
 * namespace: NULL) with the lowest index >= *index, referenced as above;
 * *index is set to its index.  Resume with *index + 1.  NULL at the end.
 */
struct ib_device *ib_device_get_next(const struct net *net,
				     unsigned long *index);

/*
 * Rename a registered device.  -EINVAL for an invalid name (empty, too
 * long, contains '%' or '/'), -EEXIST when the name is taken; clients'
 * rename callbacks run after the change.  Takes the registry locks.
 */
int ib_device_rename(struct ib_device *ibdev, const char *name);

/* nldev SET DEV_DIM: ibdev->use_cq_dim, for devices that support it. */
int ib_device_set_dim(struct ib_device *ibdev, u8 use_dim);

/*
 * The net_device bound to @port (ops.get_netdev or ib_device_set_netdev()),
 * with a reference the caller drops with dev_put(); NULL when there is
 * none or it is being unregistered.
 */
struct net_device *ib_device_get_netdev(struct ib_device *ib_dev, u32 port);

/*
 * What a client reports for GET_CHARDEV: its char device @cdev (which
 * ib_get_client_nl_info() returns with a reference held: put_device() it),
 * the ABI version @abi, and @port when the answer is per port.  @nl_msg is
 * the reply being built, for clients that add attributes of their own.
 */
struct ib_client_nl_info {
	struct sk_buff *nl_msg;
	struct device *cdev;
	unsigned int port;
	u64 abi;
};

/*
 * GET_CHARDEV: ask the client named @client_name for its char device on
 * @ibdev (per-device clients, .get_nl_info), or globally when @ibdev is
 * NULL (.get_global_nl_info).  Loads "rdma-client-<name>" on demand.
 * -EOPNOTSUPP when no such client answers.
 */
int ib_get_client_nl_info(struct ib_device *ibdev, const char *client_name,
			  struct ib_client_nl_info *res);

/*
 * Walks for netns.c.  ib_devices_walk_published() calls @fn on every
 * published device under devices_rwsem held for read (a device being
 * unpublished waits for it).  ib_device_next_pinned() returns the device
 * in the registry with the lowest index >= *index, published or not,
 * pinned with get_device(), and no lock held; resume with *index + 1.
 */
void ib_devices_walk_published(void (*fn)(struct ib_device *, void *),
			       void *data);
struct ib_device *ib_device_next_pinned(unsigned long *index);

/*
 * Move a registered device from @cur to @net (see device.c); the caller
 * pins it with get_device() and holds no registration reference.
 */
int ib_device_change_netns(struct ib_device *device, struct net *cur,
			   struct net *net);

/* ---------------------------------------------------------------- */
/* netns.c: devices and network namespaces.                           */

int __init ib_netns_init(void);
void ib_netns_exit(void);

/*
 * Network-namespace mode of "rdma system": true (default, module param
 * netns_mode=1) = devices are visible from every netns; false =
 * exclusive, each device only in its own netns.  Changing it is
 * rdma_compatdev_set(); -EBUSY while net namespaces other than
 * init_net exist.
 */
extern bool ib_devices_shared_netns;
int rdma_compatdev_set(u8 enable);

/*
 * A device's compat devices (shared mode: one in each namespace but its
 * own).  _add() when it is published (devices_rwsem held for read),
 * _remove() once it is unpublished, _rename() after a rename
 * (devices_rwsem held for write).
 */
int ib_compat_devs_add(struct ib_device *device);
void ib_compat_devs_remove(struct ib_device *device);
void ib_compat_devs_rename(struct ib_device *device);

/*
 * nldev SET NET_NS_FD: move @device, found in the requester's namespace
 * with a registration reference that this drops, to the namespace of
 * @ns_fd.  -EPERM without CAP_NET_ADMIN over it; -EOPNOTSUPP in shared
 * mode or when the driver cannot disassociate user contexts.
 */
int ib_device_set_netns_put(struct sk_buff *skb, struct ib_device *device,
			    u32 ns_fd);

/* ---------------------------------------------------------------- */
/* cache.c and roce_gid_mgmt.c                                        */

/*
 * Called by ib_register_device() after port_data and immutables are set
 * up and before the device is visible: allocates every port's GID table
 * and P_Key cache and fills the caches from the driver (port state, LMC,
 * subnet prefix, P_Keys; for non-RoCE ports also GIDs).  From then on the
 * event work refreshes them (ib_cache_event_refresh()).  Undone by
 * ib_cache_release_one().
 */
int ib_cache_setup_one(struct ib_device *device);

/*
 * Called by unregistration once no client uses the device: removes every
 * GID (dropping their netdev references; gid_attrs still held by users
 * stay valid until put) and stops the event work's refreshes.
 */
void ib_cache_cleanup_one(struct ib_device *device);

/*
 * For device.c's event work, under device->event_handler_rwsem (read),
 * before the handlers run: refreshes the port's caches from the driver
 * when @event changes them; returns whether the handlers should see it
 * (not when the refresh failed, nor a driver's GID_CHANGE: as stock).
 */
bool ib_cache_event_refresh(const struct ib_event *event);

/*
 * Queues @event for the handlers like ib_dispatch_event() but without the
 * refresh: the GID table's own IB_EVENT_GID_CHANGE, after the change.
 */
void ib_dispatch_cache_event(const struct ib_event *event);

/* Called from the device release: frees the tables. */
void ib_cache_release_one(struct ib_device *device);

/* The port's cached subnet prefix (host order).  Exported, as stock. */
void ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				 u64 *sn_pfx);

/*
 * RoCE GIDs of a newly registered device: called by device.c once the
 * device is registered and findable (ib_device_get_by_netdev()).
 * Installs the default GID and one GID per IP address of each port's
 * netdev.  Same as the exported rdma_roce_rescan_device().
 */
void roce_rescan_device(struct ib_device *ib_dev);

int __init roce_gid_mgmt_init(void);
void roce_gid_mgmt_exit(void);

/*
 * RoCE GID table updates, for roce_gid_mgmt.c.  Both take the port's
 * table lock (so they sleep) and dispatch IB_EVENT_GID_CHANGE when the
 * table changed.
 *
 * ib_cache_gid_add(): adds @gid of @gid_type on @ndev (referenced while
 * in the table) at the lowest free index, unless that exact GID is
 * already there (then 0).  -EINVAL for a port without table, -ENOSPC
 * when full, or the driver's add_gid() error.
 *
 * ib_cache_gid_del_if(): deletes every GID of the port for which @del
 * returns true; @del runs under the table lock and must not sleep long.
 *
 * ib_cache_gid_uses_ndev(): whether a GID of the port belongs to @ndev.
 */
int ib_cache_gid_add(struct ib_device *device, u32 port,
		     const union ib_gid *gid, enum ib_gid_type gid_type,
		     struct net_device *ndev);
void ib_cache_gid_del_if(struct ib_device *device, u32 port,
			 bool (*del)(const struct ib_gid_attr *attr, void *ctx),
			 void *ctx);
bool ib_cache_gid_uses_ndev(struct ib_device *device, u32 port,
			    const struct net_device *ndev);

/* ---------------------------------------------------------------- */
/* addr.c: layer 2 addresses of RoCE destinations                      */

/*
 * Fill ah_attr->roce.dmac for the destination GID of @ah_attr, whose
 * grh.sgid_attr is set: the mapped MAC of a multicast GID; the MAC in a
 * link-local GID for RoCE v1; otherwise the neighbour of the destination
 * IP through the route from the source GID's netdev (the MAC of the local
 * netdev owning it for a local destination), waiting up to a second for
 * it to resolve; grh.hop_limit then comes from the route.  Sleeps.
 * -ENETUNREACH/-EHOSTUNREACH (route), -ENODEV (source GID without
 * netdev), -ETIMEDOUT (no neighbour), -EINTR (signal).
 */
int rdma_resolve_roce_dmac(struct ib_device *device,
			   struct rdma_ah_attr *ah_attr);

/* An IPv4 or IPv6 socket address; sa.sa_family says which. */
union rdma_ip_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

/*
 * The route in @net from @src to @dst, leaving through @oif (0: any; for
 * a link-local IPv6 @dst, 0 means its scope id).  An unset @src (any
 * address) gets the source the route chose.  Returns the route, held
 * (dst_release()), or ERR_PTR(): -ENETUNREACH, -EHOSTUNREACH, -EINVAL
 * for a @src that is not ours, -EAFNOSUPPORT for another family.
 * Callable under RCU.
 */
struct dst_entry *rdma_ip_route(struct net *net, int oif,
				union rdma_ip_addr *src,
				const union rdma_ip_addr *dst);

/*
 * The netdev of @net that has the address @addr, @hint tried first (may
 * be NULL); NULL when none has.  Under rcu_read_lock(), which covers the
 * use of the result.
 */
struct net_device *rdma_ip_owner_rcu(struct net *net, struct net_device *hint,
				     const union rdma_ip_addr *addr);

/*
 * The hardware address (MAX_ADDR_LEN bytes at @ha) of @route's next hop
 * to @dst, from the neighbour table.  -EAGAIN when the neighbour is not
 * (yet) valid: resolution has then been asked for, and the netevent
 * NETEVENT_NEIGH_UPDATE says when it answered.  -ENOMEM.  Atomic.
 */
int rdma_ip_neigh_ha(struct dst_entry *route, const union rdma_ip_addr *dst,
		     u8 *ha);

/*
 * Whether a RoCE path record can be used from @sgid_attr: the route from
 * its SGID to its DGID exists, through the GID's netdev and namespace,
 * and crosses a router only for RoCE v2.  Marks @rec route_resolved (and
 * then trusts that mark).  -EINVAL (no GID attribute or netdev, mixed
 * families, a routed RoCE v1 path) or the route's error.  Sleeps.
 */
struct sa_path_rec;
int rdma_roce_path_route(struct sa_path_rec *rec,
			 const struct ib_gid_attr *sgid_attr);

/* addr_resolve.c: from ib_core's init and exit. */
int __init rdma_addr_init(void);
void rdma_addr_exit(void);

/* ---------------------------------------------------------------- */
/* Exported for rdma_cm, which (as on the stock kernel) includes this */
/* header for them.                                                   */

struct rdma_dev_addr;

/* addr_resolve.c: @dev's type, MAC, broadcast address and ifindex. */
void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev);

const char *ib_cache_gid_type_str(enum ib_gid_type gid_type);
int ib_cache_gid_parse_type_str(const char *buf);
unsigned long roce_gid_type_mask_support(struct ib_device *ib_dev, u32 port);

/* ---------------------------------------------------------------- */
/* cq_pool.c                                                          */

/* At unregistration, after the clients: frees the pool's CQs. */
void ib_cq_pool_cleanup(struct ib_device *dev);

/* ---------------------------------------------------------------- */
/* restrack.c                                                         */

/* From _ib_alloc_device() / the device release. */
int rdma_restrack_init(struct ib_device *dev);
void rdma_restrack_clean(struct ib_device *dev);

/*
 * Tracking an object (exported for ib_uverbs and rdma_cm): new() when the
 * object is allocated, set_name() or parent_name() for its owner, add()
 * once it is fully created (it becomes visible then), del() before it is
 * destroyed (unpublishes it and waits for readers).  CM_ID entries live in
 * rdma_cm's struct rdma_id_private (cma_priv.h), which restrack.c and
 * nldev.c read.
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent);
void rdma_restrack_add(struct rdma_restrack_entry *res);
void rdma_restrack_del(struct rdma_restrack_entry *res);

/*
 * For the *_user() destroys (verbs.c): begin_del() hides the object and
 * waits for readers, before the driver destroys it; abort_del() shows it
 * again when the driver refused; commit_del() (or del()) then frees the
 * id.  sync() waits out the readers of an object about to change.  The
 * names and prototypes are stock's (its private restrack.h); exported.
 */
void rdma_restrack_begin_del(struct rdma_restrack_entry *res);
void rdma_restrack_abort_del(struct rdma_restrack_entry *res);
void rdma_restrack_commit_del(struct rdma_restrack_entry *res);
void rdma_restrack_sync(struct rdma_restrack_entry *res);

/*
 * What rdma_restrack_del() still frees of an unpublished entry, for an
 * object its driver frees together with the entry (an MR): taken before
 * the destroy, freed after it succeeded.
 */
struct rdma_restrack_leftover {
	struct xarray *xa;		/* holding the reserved id, or NULL */
	u32 id;
	struct task_struct *task;	/* the owner's reference, or NULL */
};

void rdma_restrack_leftover(struct rdma_restrack_entry *res,
			    struct rdma_restrack_leftover *left);
void rdma_restrack_free_leftover(struct rdma_restrack_leftover *left);

/* For nldev: names ("pd", "qp", ...) and iteration. */
const char *rdma_restrack_type_name(enum rdma_restrack_type type);
struct rdma_restrack_entry *
rdma_restrack_get_next(struct ib_device *dev, enum rdma_restrack_type type,
		       unsigned long *id);

/* ---------------------------------------------------------------- */
/* qp_counters.c (the rest is rdma/rdma_counter.h's)                  */

/*
 * Add what the port's QP counter sets counted (live ones and those
 * released) to @totals, @n values in the layout of the port's counters:
 * sysfs and nldev show a port's counters as the driver's own plus these.
 */
void rdma_counter_port_totals(struct ib_device *dev, u32 port, u64 *totals,
			      unsigned int n);

/* ---------------------------------------------------------------- */
/* mad.c: the MAD layer's ib_client, registered before any other.     */

int __init ib_mad_init(void);
void ib_mad_exit(void);

/* ---------------------------------------------------------------- */
/* nldev.c                                                            */

void __init nldev_init(void);
void nldev_exit(void);

/* SYS_SET PRIVILEGED_QKEY_MODE, for ib_uverbs (exported). */
bool rdma_nl_get_privileged_qkey(void);

/* ---------------------------------------------------------------- */
/* sysfs.c                                                            */

/*
 * Device attributes (node_type, node_guid, sys_image_guid, fw_ver,
 * node_desc): device.c puts it in device->groups[0] before device_add().
 */
extern const struct attribute_group ib_dev_attr_group;

/*
 * hw_counters/ of the device: called before device_add() when the
 * driver has ops.alloc_hw_device_stats; sets device->groups[2] (or the
 * first free slot after the driver's device_group) and
 * device->hw_stats_attr_index.  Freed by ib_device_release_hw_stats().
 */
int ib_setup_device_attrs(struct ib_device *device);
void ib_device_release_hw_stats(struct ib_device *device);

/*
 * ports/<N>/ with every attribute, gids/, gid_attrs/, pkeys/,
 * hw_counters/ and the driver's port_groups: after device_add(), before
 * clients are added; removed before device_del().
 */
int ib_setup_port_attrs(struct ib_core_device *coredev);
void ib_free_port_attrs(struct ib_core_device *coredev);

/*
 * sysfs_pma.c: ports/<N>/counters/ of a device with ops.process_mad, the
 * group its PMA's ClassPortInfo asks for (static, shared by all ports;
 * each read of a file is a PMA Get through ops.process_mad).  Sleeps.
 */
const struct attribute_group *ib_pma_counters_group(struct ib_device *ibdev,
						    u32 port_num);

/*
 * Hardware counters of a port (@port_num >= 1) or of the device
 * (@port_num == 0), as sysfs hw_counters/ shows them and nldev STAT_GET
 * reports them: refreshes them from the driver (ops.get_hw_stats) and
 * calls @fn with them, under the lock that serialises readers (so @fn
 * must not sleep long and must not call back into this).  Returns @fn's
 * result; -EOPNOTSUPP when there are no such counters.  The storage is
 * sysfs.c's, allocated with the port/device attributes.
 */
int ib_hw_stats_read(struct ib_device *ibdev, u32 port_num,
		     int (*fn)(const struct rdma_hw_stats *stats, void *arg),
		     void *arg);

/*
 * The same counters' container, for changing which optional counters are
 * enabled (rdma_counter_modify(), under stats->lock); NULL when there are
 * no such counters.  Same lifetime rule as ib_hw_stats_read().
 */
struct rdma_hw_stats *ib_hw_stats_get(struct ib_device *ibdev, u32 port_num);

/*
 * Files of a client (ib_cm's counters) in ports/<N>/ of a registered
 * device: from its add() callback, removed from its remove() callback.
 * The files are struct ib_port_attribute.  Exported.
 */
int ib_port_register_client_groups(struct ib_device *ibdev, u32 port_num,
				   const struct attribute_group **groups);
void ib_port_unregister_client_groups(struct ib_device *ibdev, u32 port_num,
				      const struct attribute_group **groups);

/*
 * verbs.c: the usecnts a QP holds on the objects it uses (PD, CQs, SRQ,
 * RWQ indirection table), taken by its creator once the driver made it
 * and dropped by ib_destroy_qp_user().  Exported, stock's prototypes.
 */
void ib_qp_usecnt_inc(struct ib_qp *qp);
void ib_qp_usecnt_dec(struct ib_qp *qp);

/*
 * qp_user.c: a QP for ib_uverbs (@udata, @uobj), or for XRC targets a
 * kernel-owned QP (@caller) and the first handle of it (xrc.c).  The
 * caller then takes the usecnts (ib_qp_usecnt_inc()).  Exported, stock's
 * prototype.
 */
struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller);
/* qp_user.c: what every QP's creation shares, kernel QPs' too. */
struct ib_qp *ib_qp_driver_create(struct ib_device *dev, struct ib_pd *pd,
				  struct ib_qp_init_attr *attr,
				  struct ib_udata *udata,
				  struct ib_uqp_object *uobj,
				  const char *caller);

/*
 * xrc.c: XRC target QPs are shared through handles (ib_open_qp()); the
 * real QP lives in its XRC domain's tgt_qps until its last handle goes.
 * ib_xrc_tgt_qp_setup() turns a new XRC target QP into that and returns
 * its first handle; ib_destroy_shared_qp() closes a handle and destroys
 * the real QP with the last one (0 always, as stock).
 */
struct ib_qp *ib_xrc_tgt_qp_setup(struct ib_qp *real_qp,
				  struct ib_qp_init_attr *attr);
int ib_destroy_shared_qp(struct ib_qp *qp);
/*
 * xrc.c: the modifies of a real XRC target QP through its handles are
 * serialised on ib_xrc_modify_lock(real_qp); ib_xrc_init() sets the
 * locks up when ib_core loads.
 */
void ib_xrc_init(void);
struct mutex *ib_xrc_modify_lock(const struct ib_qp *real_qp);

/*
 * security.c: the InfiniBand LSM hooks (P_Key access of QPs and MAD
 * agents, subnet management through QP0), with CONFIG_SECURITY_INFINIBAND
 * only; see its header comment.  Without it no QP or agent has a
 * security context and the modify is the driver's alone.
 */
struct ib_mad_agent;

#ifdef CONFIG_SECURITY_INFINIBAND
int ib_security_init(void);
void ib_security_exit(void);
int ib_qp_sec_create(struct ib_qp *qp);
void ib_qp_sec_free(struct ib_qp *qp);
int ib_qp_sec_open_handle(struct ib_qp *handle);
void ib_qp_sec_close_handle(struct ib_qp *handle);
int ib_qp_sec_modify(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata);
void ib_qp_sec_destroy_begin(struct ib_qp_security *sec);
void ib_qp_sec_destroy_abort(struct ib_qp_security *sec);
void ib_qp_sec_destroy_end(struct ib_qp_security *sec);
void ib_security_port_changed(struct ib_device *device, u32 port);
int ib_mad_agent_sec_setup(struct ib_mad_agent *agent);
void ib_mad_agent_sec_cleanup(struct ib_mad_agent *agent);
int ib_mad_agent_sec_check(struct ib_mad_agent *agent, u16 pkey_index);
#else
static inline int ib_security_init(void)
{
	return 0;
}

static inline void ib_security_exit(void)
{
}

static inline int ib_qp_sec_create(struct ib_qp *qp)
{
	return 0;
}

static inline void ib_qp_sec_free(struct ib_qp *qp)
{
}

static inline int ib_qp_sec_open_handle(struct ib_qp *handle)
{
	return 0;
}

static inline void ib_qp_sec_close_handle(struct ib_qp *handle)
{
}

static inline int ib_qp_sec_modify(struct ib_qp *qp, struct ib_qp_attr *attr,
				   int mask, struct ib_udata *udata)
{
	return qp->device->ops.modify_qp(qp, attr, mask, udata);
}

static inline void ib_qp_sec_destroy_begin(struct ib_qp_security *sec)
{
}

static inline void ib_qp_sec_destroy_abort(struct ib_qp_security *sec)
{
}

static inline void ib_qp_sec_destroy_end(struct ib_qp_security *sec)
{
}

static inline void ib_security_port_changed(struct ib_device *device,
					    u32 port)
{
}

static inline int ib_mad_agent_sec_setup(struct ib_mad_agent *agent)
{
	return 0;
}

static inline void ib_mad_agent_sec_cleanup(struct ib_mad_agent *agent)
{
}

static inline int ib_mad_agent_sec_check(struct ib_mad_agent *agent,
					 u16 pkey_index)
{
	return 0;
}
#endif

/*
 * cgroup.c: charges to the rdma cgroup controller (rdma.max) of objects
 * of @device, which device.c registers with it.  Exported, stock's
 * prototypes (its core_priv.h).  -EAGAIN over the limit.
 */
int ib_rdmacg_try_charge(struct ib_rdmacg_object *cg_obj,
			 struct ib_device *device,
			 enum rdmacg_resource_type resource_index);
void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
			struct ib_device *device,
			enum rdmacg_resource_type resource_index);

#endif /* OOT_RDMA_CORE_PRIV_H */

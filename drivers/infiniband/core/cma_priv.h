/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_cm's private declarations: the id structure behind every
 * struct rdma_cm_id, the per-device state, and the contracts between
 * the module's files.
 *
 * ib_core's resource tracking (restrack.c, nldev.c) includes this header
 * too: a cm_id's restrack entry lives in struct rdma_id_private, and
 * "rdma res show cm_id" reads the fields marked "nldev" below without
 * any rdma_cm lock (they are single words; a torn snapshot only shows a
 * stale value).  ib_core never calls into rdma_cm, so it loads without it.
 *
 * Who owns what:
 *	cma_main.c	module init/exit, cma_device list (ib_client),
 *			device removal, netdev/neighbour notifiers
 *	cma_id.c	id lifecycle, state, events, handler lock, options,
 *			QPs, restrack, message tables
 *	cma_ps.c	port spaces, bind, listener lookup
 *	cma_addr.c	address and route resolution
 *	cma_conn.c	listen/connect/accept/reject/disconnect over ib_cm
 *	cma_ud.c	UD ids: SIDR request/reply
 *	cma_mcast.c	multicast join/leave (RoCE)
 *	cma_iw.c	iWARP through iw_cm
 *	cma_configfs.c	rdma_cm/<dev>/ports/N/ defaults
 *	cma_trace.[ch]	the rdma_cma tracepoints
 */
#ifndef OOT_RDMA_CMA_PRIV_H
#define OOT_RDMA_CMA_PRIV_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

#include "core_priv.h"

/*
 * ib_core exports that are private to the RDMA core (stock declares them
 * in core_priv.h); ib_core's cache.c and roce_gid_mgmt.c define them.
 */
const char *ib_cache_gid_type_str(enum ib_gid_type gid_type);
int ib_cache_gid_parse_type_str(const char *buf);
unsigned long roce_gid_type_mask_support(struct ib_device *ib_dev, u32 port);
/* addr.c: the netdev's own L2 addresses into @dev_addr. */
void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev);

/* The states of an id, as the stock enum (nldev reports them by value). */
enum rdma_cm_state {
	RDMA_CM_IDLE,
	RDMA_CM_ADDR_QUERY,
	RDMA_CM_ADDR_RESOLVED,
	RDMA_CM_ROUTE_QUERY,
	RDMA_CM_ROUTE_RESOLVED,
	RDMA_CM_CONNECT,
	RDMA_CM_DISCONNECT,
	RDMA_CM_ADDR_BOUND,
	RDMA_CM_LISTEN,
	RDMA_CM_DEVICE_REMOVAL,
	RDMA_CM_DESTROYING
};

struct cma_device;
struct cma_bind_list;
struct ib_cm_event;
struct ib_cm_id;
struct iw_cm_id;

/**
 * struct rdma_id_private - an rdma_cm id
 * @id: what the consumer sees (nldev: device, port_num, ps, qp_type,
 *	route.addr.src_addr/dst_addr)
 * @res: restrack entry, type RDMA_RESTRACK_CM_ID (nldev)
 * @state: the state machine (nldev).  Written under @lock; a change to
 *	or from RDMA_CM_CONNECT, or to RDMA_CM_DESTROYING or
 *	RDMA_CM_DEVICE_REMOVAL, also holds @handler_mutex, so a handler that
 *	holds the mutex sees a stable "am I still connected/listening/alive".
 * @qp_num: QP number bound to the id, 0 for none (nldev)
 * @lock: protects @state
 * @handler_mutex: serialises event delivery and the calls that must not
 *	race with it (rdma_accept, rdma_lock_handler); never held across
 *	destroying another id's ib_cm/iw_cm id of the same id
 * @refcount: the creator's reference plus one per pending work item,
 *	lookup or in-flight callback; @comp completes at zero
 * @net: the id's network namespace (a reference), also in dev_addr.net
 * @cma_dev: the device the id is attached to (cma_lock), or NULL
 * @device_item: on cma_dev->id_list, or on cma_listen_any when the id is
 *	a device-less listener (cma_lock)
 * @listen_children: a wildcard listener's internal per-device listeners
 *	(cma_lock); @listen_item: a child's place in its parent's list
 * @parent: an internal listener's wildcard parent (holds a reference)
 * @bind_list: the port the id owns in its port space (cma_lock);
 *	@bind_node: its place among the port's owners
 * @mc_list: joined multicast groups (@mc_lock)
 * @qp_mutex: serialises id->qp use against rdma_destroy_qp()
 * @cm_ib / @cm_iw: the ib_cm or iw_cm id of a connecting/listening id
 * @backlog: rdma_listen()'s backlog
 * @timeout_ms: the UD SIDR timeout
 * @seq_num: our starting PSN
 * @qkey: the UD/multicast Q_Key
 * @tos, @tos_set, @timeout, @timeout_set, @min_rnr_timer,
 * @min_rnr_timer_set, @reuseaddr, @afonly, @afonly_set: options
 * @gid_type: the GID type used on RoCE
 * @internal: an internal listener (never seen by a consumer)
 * @ece: the ECE options of the last request/reply
 * @net_work: neighbour-change work, see cma_main.c
 */
struct rdma_id_private {
	struct rdma_cm_id id;
	struct rdma_restrack_entry res;
	enum rdma_cm_state state;
	u32 qp_num;

	spinlock_t lock;		/* see @state */
	struct mutex handler_mutex;	/* see above */
	refcount_t refcount;
	struct completion comp;

	struct net *net;
	struct cma_device *cma_dev;
	struct list_head device_item;
	struct list_head listen_children;
	struct list_head listen_item;
	struct rdma_id_private *parent;
	struct cma_bind_list *bind_list;
	struct hlist_node bind_node;

	spinlock_t mc_lock;		/* @mc_list */
	struct list_head mc_list;
	struct mutex qp_mutex;		/* id.qp against rdma_destroy_qp() */

	struct ib_cm_id *cm_ib;
	struct iw_cm_id *cm_iw;

	int backlog;
	int timeout_ms;
	u32 seq_num;
	u32 qkey;
	u8 tos;
	u8 timeout;
	u8 min_rnr_timer;
	u8 srq;
	bool tos_set;
	bool timeout_set;
	bool min_rnr_timer_set;
	bool reuseaddr;
	bool afonly;
	bool afonly_set;
	bool internal;
	enum ib_gid_type gid_type;
	struct rdma_ucm_ece ece;
};

static inline struct rdma_id_private *cma_priv(struct rdma_cm_id *id)
{
	return container_of(id, struct rdma_id_private, id);
}

static inline struct sockaddr *cma_src_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.src_addr;
}

static inline struct sockaddr *cma_dst_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.dst_addr;
}

/*
 * The first 36 bytes of the private data of a REQ or SIDR REQ on an IP
 * port space: who is connecting to what (the service ID holds only the
 * destination port).  Wire format, as stock.
 */
union cma_ip_addr {
	struct in6_addr ip6;
	struct {
		__be32 pad[3];
		__be32 addr;
	} ip4;
};

struct cma_hdr {
	u8 cma_version;		/* CMA_VERSION */
	u8 ip_version;		/* in bits 7:4 */
	__be16 port;		/* the source port */
	union cma_ip_addr src_addr;
	union cma_ip_addr dst_addr;
};

#define CMA_VERSION 0x00

/* ib_cm timers and retries of our requests, as stock. */
#define CMA_CM_RESPONSE_TIMEOUT 20
#define CMA_MAX_CM_RETRIES 15
#define CMA_CM_MRA_SETTING (IB_CM_MRA_FLAG_DELAY | 24)
#define CMA_IBOE_PACKET_LIFETIME 18

/* ---------------------------------------------------------------- */
/* cma_main.c                                                         */

/*
 * struct cma_device - rdma_cm's state of one ib_device
 * @list: on cma_devices (cma_lock)
 * @device: the device
 * @refcount: the list's reference plus one per attached id and per
 *	configfs user; @comp completes at zero
 * @id_list: ids attached to the device (cma_lock)
 * @default_gid_type, @default_roce_tos: per port (index port - first
 *	port), configfs defaults; written under cma_lock
 */
struct cma_device {
	struct list_head list;
	struct ib_device *device;
	refcount_t refcount;
	struct completion comp;
	struct list_head id_list;
	enum ib_gid_type *default_gid_type;
	u8 *default_roce_tos;
};

/*
 * cma_lock: the device list, every device's id_list, the wildcard
 * listeners (cma_listen_any), the listeners' children and the port
 * spaces.  Taken before any id's handler_mutex is released from
 * a walk; never held while calling a consumer.
 */
extern struct mutex cma_lock;
extern struct list_head cma_devices;
extern struct list_head cma_listen_any;
extern struct workqueue_struct *cma_wq;
extern struct ib_client cma_client;

void cma_dev_get(struct cma_device *cma_dev);
void cma_dev_put(struct cma_device *cma_dev);

/* Attach an id to a device and port (cma_lock held), with @sgid_attr. */
void cma_attach_to_dev(struct rdma_id_private *id_priv,
		       struct cma_device *cma_dev);
void cma_release_dev(struct rdma_id_private *id_priv);
struct cma_device *cma_find_dev(struct ib_device *device);

int cma_default_gid_type(struct cma_device *cma_dev, u32 port);
u8 cma_default_roce_tos(struct cma_device *cma_dev, u32 port);

/* configfs access (cma_configfs.c) */
typedef bool (*cma_device_filter)(struct ib_device *device, void *cookie);
struct cma_device *cma_enum_devices_by_ibdev(cma_device_filter filter,
					     void *cookie);
int cma_get_default_gid_type(struct cma_device *cma_dev, u32 port);
int cma_set_default_gid_type(struct cma_device *cma_dev, u32 port,
			     enum ib_gid_type default_gid_type);
int cma_get_default_roce_tos(struct cma_device *cma_dev, u32 port);
int cma_set_default_roce_tos(struct cma_device *cma_dev, u32 port,
			     u8 default_roce_tos);
struct ib_device *cma_get_ib_dev(struct cma_device *cma_dev);

/* ---------------------------------------------------------------- */
/* cma_id.c                                                           */

struct rdma_id_private *cma_create_id(struct net *net,
				      rdma_cm_event_handler handler,
				      void *context,
				      enum rdma_ucm_port_space ps,
				      enum ib_qp_type qp_type,
				      struct rdma_id_private *parent);
void cma_id_get(struct rdma_id_private *id_priv);
void cma_id_put(struct rdma_id_private *id_priv);

/*
 * Destroy an id whose handler_mutex the caller holds (for example from
 * an event handler that returned nonzero); releases the mutex.
 */
void cma_destroy_id_unlock(struct rdma_id_private *id_priv);

enum rdma_cm_state cma_state(struct rdma_id_private *id_priv);
bool cma_comp_exch(struct rdma_id_private *id_priv, enum rdma_cm_state comp,
		   enum rdma_cm_state exch);
enum rdma_cm_state cma_exch(struct rdma_id_private *id_priv,
			    enum rdma_cm_state exch);

/*
 * Call the consumer's handler; handler_mutex held.  Nonzero: the
 * consumer wants the id destroyed.
 */
int cma_deliver(struct rdma_id_private *id_priv, struct rdma_cm_event *event);

/*
 * Deliver @event from process context later, unless the id is
 * destroyed first; when @from is not RDMA_CM_IDLE, only if the state
 * moves @from -> @to at delivery.  The event is copied.
 */
int cma_queue_event(struct rdma_id_private *id_priv,
		    enum rdma_cm_state from, enum rdma_cm_state to,
		    const struct rdma_cm_event *event);

/* QP transitions driven by the connection protocol. */
int cma_modify_qp_rtr(struct rdma_id_private *id_priv,
		      struct rdma_conn_param *conn_param);
int cma_modify_qp_rts(struct rdma_id_private *id_priv,
		      struct rdma_conn_param *conn_param);
int cma_modify_qp_err(struct rdma_id_private *id_priv);

int cma_set_qkey(struct rdma_id_private *id_priv, u32 qkey);
int cma_set_default_qkey(struct rdma_id_private *id_priv);

/* A wildcard listener stops: its children go (handler_mutex not held). */
void cma_cancel_listens(struct rdma_id_private *id_priv);

/*
 * The handler_mutex subclasses of a connect request, which holds up to
 * three: the listener it reached, that listener's wildcard parent (the
 * consumer's listener) and the new id, in this order.
 */
enum {
	CMA_LOCK_LISTENER,
	CMA_LOCK_OWNER,
	CMA_LOCK_CONN,
};

struct rdma_id_private *cma_lock_listener(struct rdma_id_private *listener);
void cma_unlock_listener(struct rdma_id_private *listener);
bool cma_listener_listens(struct rdma_id_private *listener);

/* ---------------------------------------------------------------- */
/* cma_ps.c                                                           */

int __init cma_ps_init(void);
void cma_ps_exit(void);

bool cma_any_addr(const struct sockaddr *addr);
bool cma_loopback_addr(const struct sockaddr *addr);
int cma_addr_cmp(const struct sockaddr *a, const struct sockaddr *b);
__be16 cma_port(const struct sockaddr *addr);
void cma_set_port(struct sockaddr *addr, __be16 port);

/* Bind to @addr (port 0: an ephemeral one); state moves IDLE -> BOUND. */
int cma_bind(struct rdma_id_private *id_priv, const struct sockaddr *addr);
void cma_release_port(struct rdma_id_private *id_priv);
/* rdma_listen(): the port may be listened on (cma_lock held). */
int cma_check_listen_port(struct rdma_id_private *id_priv);

/*
 * The listener on @device of the IP port space and port of @service_id,
 * in @net, taking a request for address @dst that came in on netdev
 * @ifindex: a bound listener, or a wildcard listener's child for
 * @device.  Referenced (cma_id_put()); NULL when there is none.
 */
struct rdma_id_private *cma_find_listener(struct net *net,
					  struct ib_device *device,
					  __be64 service_id,
					  const struct sockaddr *dst,
					  int ifindex);

/* ---------------------------------------------------------------- */
/* cma_addr.c                                                         */

/*
 * Bind the id to the device and port whose GID table holds the id's
 * source address; cma_lock not held.
 */
int cma_acquire_dev_by_src_ip(struct rdma_id_private *id_priv);
int cma_resolve_iboe_route(struct rdma_id_private *id_priv);

/* ---------------------------------------------------------------- */
/* cma_conn.c, cma_ud.c, cma_iw.c, cma_mcast.c                        */

int cma_ib_listen(struct rdma_id_private *id_priv);
/*
 * Give wildcard listener @id_priv a child listening on @cma_dev
 * (cma_lock held).  On failure *@to_destroy may be a half-made child,
 * off every list but its device's, to destroy once cma_lock is dropped.
 */
int cma_listen_on_dev(struct rdma_id_private *id_priv,
		      struct cma_device *cma_dev,
		      struct rdma_id_private **to_destroy);
int cma_ib_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param);
int cma_ib_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param);
void cma_format_hdr(struct cma_hdr *hdr, struct rdma_id_private *id_priv);
int cma_hdr_addrs(const struct cma_hdr *hdr, __be16 dst_port,
		  struct sockaddr *src, struct sockaddr *dst);
int cma_ib_req_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev);

int cma_sidr_connect(struct rdma_id_private *id_priv,
		     struct rdma_conn_param *conn_param);
int cma_sidr_rep(struct rdma_id_private *id_priv, int status, u32 qkey,
		 const void *data, u8 len);

int cma_iw_listen(struct rdma_id_private *id_priv, int backlog);
int cma_iw_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param);
int cma_iw_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param);

void cma_leave_all_mc(struct rdma_id_private *id_priv);
/* Exported for rdma_ucm, which includes this header for it alone. */
void rdma_leave_multicast_context(struct rdma_cm_id *id,
				  const struct sockaddr *addr,
				  const void *context);

/* ---------------------------------------------------------------- */
/* cma_configfs.c                                                     */

#if IS_ENABLED(CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS)
int __init cma_configfs_init(void);
void cma_configfs_exit(void);
#else
static inline int cma_configfs_init(void) { return 0; }
static inline void cma_configfs_exit(void) { }
#endif

#endif /* OOT_RDMA_CMA_PRIV_H */

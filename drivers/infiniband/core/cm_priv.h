/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_cm's private declarations: the objects of the IB connection manager
 * (IBTA vol. 1, ch. 12) and the contracts between its files.
 *
 * Who owns what:
 *	cm_main.c	module init/exit, the ib_client (one MAD agent per
 *			port), the devices list, counters in sysfs
 *	cm_id.c		ids: local ID table, lookups, listen tree, remote
 *			trees, event delivery, destroy
 *	cm_mad.c	MAD buffers, address vectors, send completions and
 *			their timeouts
 *	cm_recv.c	received MADs: counting, queueing, dispatch
 *	cm_req.c	connection requests: REQ sent and received
 *	cm_conn.c	the rest of connection setup: MRA, REJ, REP, RTU
 *	cm_disc.c	disconnection: DREQ, DREP, timewait
 *	cm_sidr.c	service ID resolution: SIDR_REQ, SIDR_REP
 *	cm_lap.c	alternate paths (LAP, APR) and ib_cm_notify()
 *	cm_qp_attr.c	ib_cm_init_qp_attr()
 *	cm_trace.c	the ib_cma tracepoints (cm_trace.h)
 *
 * Locking, outermost first:
 *	cmid->lock	one id's state and everything marked (L) below
 *	icm.lock	the listen and remote trees, the timewait list, every
 *			cm_dev's going_down; taken inside cmid->lock, never
 *			the other way round
 *	cm_dev->agent_lock  cm_port.agent against the device's removal
 * icm.dev_lock (the devices list) nests inside none of them.  Handlers of
 * consumers run with none of our locks held.
 */
#ifndef OOT_RDMA_CM_PRIV_H
#define OOT_RDMA_CM_PRIV_H

#include <linux/kref.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>

#include "cm_msgs.h"

/* Counters: one per message type in each of four groups, as in sysfs. */
enum cm_counter_msg {
	CM_CNT_REQ,
	CM_CNT_MRA,
	CM_CNT_REJ,
	CM_CNT_REP,
	CM_CNT_RTU,
	CM_CNT_DREQ,
	CM_CNT_DREP,
	CM_CNT_SIDR_REQ,
	CM_CNT_SIDR_REP,
	CM_CNT_LAP,
	CM_CNT_APR,
	CM_CNT_MSGS
};

enum cm_counter_group {
	CM_CNT_TX,		/* cm_tx_msgs: sends, retries included */
	CM_CNT_TX_RETRIES,	/* cm_tx_retries */
	CM_CNT_RX,		/* cm_rx_msgs */
	CM_CNT_RX_DUPS,		/* cm_rx_duplicates */
	CM_CNT_GROUPS
};

struct cm_dev;

/* A port of a device with the CM capability. */
struct cm_port {
	struct cm_dev *dev;
	/* The CM class agent on QP1; NULL once the device goes away. */
	struct ib_mad_agent *agent;
	u32 num;
	atomic_long_t count[CM_CNT_GROUPS][CM_CNT_MSGS];
};

/*
 * A device, from the ib_client's add() to the last address vector that
 * names one of its ports (each holds a reference).
 */
struct cm_dev {
	struct kref ref;
	struct list_head entry;		/* icm.devices, under icm.dev_lock */
	struct ib_device *ibdev;
	rwlock_t agent_lock;		/* ports[]->agent vs. removal */
	u8 ack_delay;			/* the CA's local ack delay */
	bool going_down;		/* under icm.lock: queue no more work */
	struct cm_port *ports[];	/* [port - 1]; NULL without CM */
};

/* Where an id's messages (and its QP's packets) go. */
struct cm_av {
	struct cm_port *port;		/* holds a reference on port->dev */
	struct rdma_ah_attr ah;
	u16 pkey_index;
	u16 dlid_datapath;		/* IB: DLID of the data path */
	u8 timeout;			/* local ACK timeout, IBA exponent */
};

/*
 * An event on its way to an id's handler: a received MAD (rwc), a local
 * event (USER_ESTABLISHED, looked up by local_id/remote_id in the worker)
 * or the end of a timewait.  Received MADs first run as @work on icm.wq.
 */
struct cm_work {
	struct work_struct work;
	struct list_head entry;		/* cmid->pending */
	struct cm_port *port;
	struct ib_mad_recv_wc *rwc;
	__be32 local_id;
	__be32 remote_id;
	struct ib_cm_event ev;
	struct sa_path_rec path[2];	/* a REQ's or a LAP's paths */
};

/*
 * What a connection leaves behind: its place in the remote trees (to spot
 * duplicate REQ/REP and stale connections) and, once the id enters
 * timewait, the timer that takes it back to IDLE.  The id owns it until
 * then; afterwards the timer does, and frees it.
 */
struct cm_timewait {
	struct cm_work ev;		/* TIMEWAIT_EXIT; must stay first */
	struct delayed_work dwork;
	struct list_head entry;		/* icm.timewait, under icm.lock */
	struct rb_node by_remote_id;	/* icm.remote_ids, under icm.lock */
	struct rb_node by_remote_qpn;	/* icm.remote_qpns, under icm.lock */
	struct cm_dev *dev;		/* no reference: only compared */
	__be64 remote_ca_guid;
	__be32 remote_qpn;
	bool in_remote_ids;
	bool in_remote_qpns;
};

/* The CM's side of an ib_cm_id. */
struct cmid {
	struct ib_cm_id id;		/* state, remote_id: (L) */
	spinlock_t lock;
	/*
	 * The creator holds one reference until ib_destroy_cm_id(); every
	 * queued event, send buffer and lookup holds one more.  Destroy
	 * waits for @released, then frees after an RCU grace period (for
	 * lockless lookups in icm.ids).
	 */
	refcount_t refs;
	struct completion released;
	struct rcu_head rcu;

	struct rb_node listen_node;	/* icm.listeners, under icm.lock */
	int listen_shares;		/* under icm.lock */
	struct rb_node sidr_node;	/* icm.sidr_reqs, under icm.lock */
	u32 sidr_slid;

	/* (L) from here on. */
	struct ib_mad_send_buf *msg;	/* the send awaiting an answer */
	struct cm_timewait *tw;
	struct cm_av av;
	struct cm_av alt_av;
	/*
	 * The GID attributes a LAP took off @av and @alt_av.
	 * ib_cm_init_qp_attr() hands out copies of the address vectors
	 * without references of their own (as stock; its callers never
	 * release them), so a consumer between that call and ib_modify_qp()
	 * may still use them: they live until the id is destroyed or the
	 * next LAP.  A connection takes one LAP at most (LAP_RCVD has no way
	 * out), so two slots do.
	 */
	const struct ib_gid_attr *lap_retired[2];
	void *pdata;			/* resent with a duplicate's answer */
	u8 pdata_len;
	__be64 tid;
	__be32 local_qpn;
	__be32 remote_qpn;
	enum ib_qp_type qp_type;
	__be32 sq_psn;			/* the peer's starting PSN */
	__be32 rq_psn;			/* ours, as we advertised it */
	int timeout_ms;
	enum ib_mtu path_mtu;
	__be16 pkey;
	u8 max_cm_retries;
	u8 responder_resources;
	u8 initiator_depth;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 service_timeout;
	u8 target_ack_delay;

	/* Events for the handler while it runs for an earlier one. */
	struct list_head pending;
	bool delivering;
};

static inline struct cmid *to_cmid(struct ib_cm_id *id)
{
	return container_of(id, struct cmid, id);
}

/* Stops the id's send that waits for an answer, if there is one. */
static inline void cm_cancel_msg(struct cmid *cmid)
{
	lockdep_assert_held(&cmid->lock);
	if (cmid->msg)
		ib_cancel_mad(cmid->msg);
}

/* Waits @timeout_ms more for the answer to it (after an MRA). */
static inline int cm_extend_msg(struct cmid *cmid, int timeout_ms)
{
	lockdep_assert_held(&cmid->lock);
	return cmid->msg ? ib_modify_mad(cmid->msg, timeout_ms) : -EINVAL;
}

/* The module's global state (cm_main.c). */
struct cm_globals {
	spinlock_t lock;		/* see "Locking" at the top */
	struct rb_root listeners;	/* by (device, service ID) */
	struct rb_root remote_ids;	/* by (remote comm ID, CA GUID) */
	struct rb_root remote_qpns;	/* by (remote QPN, CA GUID) */
	struct rb_root sidr_reqs;	/* by (request ID, SLID) */
	struct list_head timewait;
	u64 next_service_id;		/* IB_CM_ASSIGN_SERVICE_ID's */

	/* Local comm IDs: index ^ id_mask, handed out cyclically. */
	struct xarray ids;
	u32 next_id;
	__be32 id_mask;

	rwlock_t dev_lock;
	struct list_head devices;

	/* Received MADs and local events, one at a time. */
	struct workqueue_struct *wq;
};

extern struct cm_globals icm;
extern struct ib_client cm_client;

/* cm_main.c */
struct cm_port *cm_port_get_by_path(struct sa_path_rec *path,
				    const struct ib_gid_attr *sgid_attr);
void cm_dev_put(struct cm_dev *dev);

/* cm_id.c */
struct cmid *cmid_alloc(struct ib_device *device, ib_cm_handler handler,
			void *context);
void cmid_publish(struct cmid *cmid);
struct cmid *cmid_acquire(__be32 local_id, __be32 remote_id);
void cmid_put(struct cmid *cmid);
void cm_destroy(struct cmid *cmid, int err);
struct cmid *cm_find_listener(struct ib_device *device, __be64 service_id);
struct cm_timewait *cm_insert_remote_id(struct cm_timewait *tw);
struct cm_timewait *cm_insert_remote_qpn(struct cm_timewait *tw);
void cm_remove_remote(struct cm_timewait *tw);
struct cmid *cm_acquire_by_remote_id(__be64 remote_ca_guid, __be32 remote_id);
struct cmid *cm_insert_sidr(struct cmid *cmid);
void cm_deliver_unlock(struct cmid *cmid, struct cm_work *work)
	__releases(&cmid->lock);
void cm_work_free(struct cm_work *work);

/* cm_mad.c */
/*
 * The CM's time fields on the wire (response timeouts, service timeout,
 * local ACK timeout) are 5-bit exponents, so 31 is the longest time the
 * IBA can express.  Larger inputs come from a path record's 6-bit packet
 * life time (+ 1, from user space through rdma_ucm's IB_PATH option) or
 * a kernel consumer's u8: they mean "as long as possible" and are
 * clamped, which also keeps the shift below 31 bits.
 */
#define CM_MAX_IBA_TIME	31

static inline int cm_ms(u8 iba_time)
{
	/* 4.096 us * 2^t, rounded to a power of two of milliseconds */
	return 1 << max_t(int, min_t(int, iba_time, CM_MAX_IBA_TIME) - 8, 0);
}

u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time);
void *cm_dup_pdata(const void *pdata, u8 len);
void cm_set_pdata(struct cmid *cmid, void *pdata, u8 len);
struct ib_mad_send_buf *cm_msg_alloc(struct cmid *cmid);
struct ib_mad_send_buf *cm_msg_alloc_priv(struct cmid *cmid);
void cm_msg_free(struct ib_mad_send_buf *msg);
void cm_msg_free_priv(struct ib_mad_send_buf *msg);
int cm_resp_alloc(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		  struct ib_mad_send_buf **msg);
struct ib_mad_send_buf *cm_resp_alloc_no_ah(struct cm_port *port,
					    struct ib_mad_recv_wc *rwc);
int cm_resp_add_ah(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		   struct ib_mad_send_buf *msg);
void cm_resp_free(struct ib_mad_send_buf *msg);
void cm_av_set_port(struct cm_av *av, struct cm_port *port);
int cm_av_from_wc(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		  struct cm_av *av);
int cm_av_from_path(struct sa_path_rec *path,
		    const struct ib_gid_attr *sgid_attr, struct cm_av *av);
void cm_av_move(struct cm_av *dest, struct cm_av *src);
void cm_av_destroy(struct cm_av *av);
__be64 cm_tid(struct cmid *cmid);
void cm_mad_hdr(struct ib_mad_hdr *hdr, __be16 attr_id, __be64 tid,
		u32 attr_mod);
void cm_count(struct cm_port *port, enum cm_counter_group group,
	      enum cm_counter_msg msg);
int cm_issue_rej(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		 enum ib_cm_rej_reason reason, enum cm_msg_response rejected,
		 void *ari, u8 ari_length);
void cm_send_done(struct ib_mad_agent *agent,
		  struct ib_mad_send_wc *send_wc);

/* cm_recv.c */
void cm_recv(struct ib_mad_agent *agent, struct ib_mad_send_buf *send_buf,
	     struct ib_mad_recv_wc *rwc);
void cm_work_run(struct work_struct *w);
int cm_queue_work(struct cm_dev *dev, struct cm_work *work);

/* cm_req.c */
int cm_req_recv(struct cm_work *work);
bool cm_req_has_alt_path(struct cm_req_msg *req);
void cm_path_set_rec_type(struct ib_device *ibdev, u32 port_num,
			  struct sa_path_rec *path, union ib_gid *gid);

/* cm_conn.c */
int cm_mra_recv(struct cm_work *work);
int cm_rej_recv(struct cm_work *work);
int cm_rep_recv(struct cm_work *work);
int cm_rtu_recv(struct cm_work *work);
int cm_established_recv(struct cm_work *work);
int cm_rej_locked(struct cmid *cmid, enum ib_cm_rej_reason reason,
		  void *ari, u8 ari_length, const void *pdata, u8 pdata_len);
void cm_reset_to_idle(struct cmid *cmid);
void cm_format_mra(struct cm_mra_msg *mra, struct cmid *cmid,
		   enum cm_msg_response mraed, u8 service_timeout,
		   const void *pdata, u8 pdata_len);
void cm_format_rej(struct cm_rej_msg *rej, struct cmid *cmid,
		   enum ib_cm_rej_reason reason, void *ari, u8 ari_length,
		   const void *pdata, u8 pdata_len, enum ib_cm_state state);

/* cm_disc.c */
int cm_dreq_recv(struct cm_work *work);
int cm_drep_recv(struct cm_work *work);
int cm_dreq_locked(struct cmid *cmid, const void *pdata, u8 pdata_len);
int cm_drep_locked(struct cmid *cmid, void *pdata, u8 pdata_len);
void cm_enter_timewait(struct cmid *cmid);
struct cm_timewait *cm_timewait_alloc(__be32 local_id);
void cm_timewait_expire_dev(struct cm_dev *dev);
void cm_timewait_cancel_all(void);
void cm_timewait_free_all(void);

/* cm_sidr.c */
int cm_sidr_req_recv(struct cm_work *work);
int cm_sidr_rep_recv(struct cm_work *work);
int cm_sidr_rep_locked(struct cmid *cmid, struct ib_cm_sidr_rep_param *param);

/* cm_lap.c */
int cm_lap_recv(struct cm_work *work);
void cm_lap_release(struct cmid *cmid);
int cm_apr_recv(struct cm_work *work);

#endif /* OOT_RDMA_CM_PRIV_H */

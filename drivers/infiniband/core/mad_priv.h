/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MAD layer of ib_core (include/rdma/ib_mad.h): structures shared by
 * its files.
 *
 *	mad.c		per port: the PD, CQ, special QPs (QP1 always, QP0
 *			only where the port has an SMI) and their receive
 *			rings; validation and dispatch of received MADs;
 *			the "mad" ib_client
 *	mad_agent.c	agents: registration by class, version, OUI and
 *			method, the TID-high-word table, lookup of the agent
 *			a received MAD belongs to, unregistration
 *	mad_send.c	send buffers, posting with the QP's send ring and
 *			its overflow list, send completions, matching of
 *			responses to requests, timeouts, retries and
 *			cancellation
 *	mad_unclaimed.c	the answer to a Get or Set that no agent takes
 *
 * Lifetimes.  A port lives from the client's add() to its remove(); the
 * clients that use it (ib_cm, ib_umad, rdma_cm) register later and are
 * removed earlier, and unregister their agents in their own remove().
 * An agent lives from ib_register_mad_agent() until the last of these
 * drops its reference: the registration itself, each send buffer not yet
 * freed, each posted send until its send_handler returned, each received
 * MAD until its recv_handler returned.  ib_unregister_mad_agent() drops
 * the registration's and waits for the others.
 *
 * RMPP: not implemented in the kernel (on RoCE no class needs it; only
 * the IB SA does).  Agents asking for kernel RMPP are refused with
 * -EOPNOTSUPP; agents doing RMPP themselves (IB_MAD_USER_RMPP, ib_umad)
 * get their segments like any other MAD.
 */
#ifndef OOT_RDMA_MAD_PRIV_H
#define OOT_RDMA_MAD_PRIV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_mad.h>

/* qps[] of a port, by the QP type's special number. */
enum {
	MAD_QP_SMI = 0,
	MAD_QP_GSI = 1,
	MAD_NR_QPS,
};

/* Class versions an agent may register (IBA allows 0..0x82 here). */
#define MAD_MAX_CLASS_VERSION	0x83
/* Management classes below this, and the directed-route SMP class. */
#define MAD_MAX_CLASS		0x50

/*
 * The work requests a QP holds, send or receive.  lock protects posted
 * and count (and the send ring's overflow list); taken from the CQ's
 * handler and from posters in any context, so with interrupts off.
 */
struct mad_ring {
	spinlock_t lock;		/* see above */
	struct list_head posted;
	int count;
	int depth;
};

struct mad_port;
struct mad_agent_priv;

/* A special QP of a port. */
struct mad_qp {
	struct mad_port *port;
	struct ib_qp *qp;		/* NULL: the port has no such QP */
	struct mad_ring send;
	/* Sends waiting for room in the send ring, under send.lock. */
	struct list_head overflow;
	struct mad_ring recv;
	/*
	 * The send-only agent that answers unclaimed requests
	 * (mad_unclaimed.c).  Set and cleared by the "mad" client's add()
	 * and remove() only; read under RCU.
	 */
	struct mad_agent_priv __rcu *answerer;
};

/*
 * The MAD layer of one port.
 *
 * reg_mutex serialises changes of @classes, which maps mad_class_key()
 * to a struct mad_class; receive lookups read it under RCU only.
 */
struct mad_port {
	struct list_head list;		/* in mad_ports, see mad.c */
	struct ib_device *device;
	u32 port_num;
	struct ib_pd *pd;
	struct ib_cq *cq;
	/* Ordered: agents' timeouts and retries. */
	struct workqueue_struct *wq;
	struct mad_qp qps[MAD_NR_QPS];

	struct mutex reg_mutex;		/* changes of @classes */
	struct xarray classes;
	/* Agents registered: closing waits for them to go. */
	atomic_t users;

	/* Received MADs dropped: malformed, or nobody's and unanswered. */
	atomic_long_t dropped;
};

/*
 * The agents registered for the methods of one management class,
 * version and (vendor classes of range 2) OUI.  agent[] slots change
 * under the port's reg_mutex and are read under RCU; freed after a grace
 * period.
 */
struct mad_methods {
	struct hlist_node node;		/* in mad_class.ouis */
	struct rcu_head rcu;
	u8 oui[3];
	struct mad_agent_priv __rcu *agent[IB_MGMT_MAX_METHODS];
};

/* All registrations for one (class version, class): one per OUI. */
struct mad_class {
	struct hlist_head ouis;
	struct rcu_head rcu;
};

static inline unsigned long mad_class_key(u8 class_version, u8 mgmt_class)
{
	return (unsigned long)class_version << 8 | mgmt_class;
}

struct mad_agent_priv {
	struct ib_mad_agent agent;
	struct mad_qp *mqp;
	struct ib_mad_reg_req *reg_req;	/* NULL: send-only */

	/*
	 * lock protects @sends, @waits and every send's state
	 * (struct mad_send: agent_entry, refs, status, timeout, retries).
	 * Taken from CQ handlers, work items and posters in any context.
	 *
	 * sends: posted, the WR not completed yet (also retries).
	 * waits: WR completed, a response awaited; sorted by deadline.
	 */
	spinlock_t lock;
	struct list_head sends;
	struct list_head waits;
	struct delayed_work timeout_work;

	refcount_t refs;
	struct completion unused;	/* refs reached zero */
	struct rcu_head rcu;
};

static inline struct mad_agent_priv *to_mad_agent(struct ib_mad_agent *agent)
{
	return container_of(agent, struct mad_agent_priv, agent);
}

static inline void mad_agent_get(struct mad_agent_priv *priv)
{
	refcount_inc(&priv->refs);
}

static inline void mad_agent_put(struct mad_agent_priv *priv)
{
	if (refcount_dec_and_test(&priv->refs))
		complete(&priv->unused);
}

/*
 * A send buffer and its work request.  The MAD (hdr_len + data_len +
 * padding, IB_MGMT_MAD_SIZE in all) follows the structure.
 *
 * refs, under agent->lock: 1 while the WR is posted, 1 while a response
 * is awaited (timeout > 0); the send completes to the agent's
 * send_handler when it drops to 0, with @status if that is not success.
 */
struct mad_send {
	struct ib_mad_send_buf send_buf;
	struct mad_agent_priv *agent;
	struct list_head agent_entry;	/* sends or waits of the agent */
	struct list_head ring_entry;	/* posted or overflow of the ring */
	struct ib_cqe cqe;
	struct ib_ud_wr wr;
	struct ib_sge sge;
	__be64 tid;
	/* Before the WR completes: relative, jiffies; after: the deadline. */
	unsigned long timeout;
	int retries_left;
	int refs;
	enum ib_wc_status status;
	u8 mad[] __aligned(8);
};

/*
 * A receive buffer: its ib_mad_recv_wc for the agent, then the area the
 * QP writes: 40 bytes of GRH (for RoCE v2 over IPv4 the IPv4 header in
 * its last 20), then the MAD.
 */
struct mad_recv {
	struct list_head ring_entry;
	struct ib_cqe cqe;
	struct mad_qp *mqp;
	u64 dma;
	struct ib_wc wc;
	struct ib_mad_recv_wc recv_wc;
	struct ib_grh grh;
	u8 mad[IB_MGMT_MAD_SIZE];
};

/* mad.c */
struct mad_port *mad_port_hold(struct ib_device *device, u32 port_num);
void mad_port_release(struct mad_port *port);
int mad_gids_of_recv(const struct ib_mad_recv_wc *recv_wc,
		     union ib_gid *sgid, union ib_gid *dgid);

/* mad_agent.c */
struct mad_agent_priv *mad_agent_find(struct mad_qp *mqp,
				      const struct ib_mad_hdr *hdr);

/* mad_send.c */
int mad_send_post(struct mad_send *send);
struct mad_send *mad_send_claim_response(struct mad_agent_priv *priv,
					 const struct ib_mad_recv_wc *recv_wc);
void mad_send_complete(struct mad_send *send, enum ib_wc_status status,
		       u32 vendor_err);
void mad_send_cancel_all(struct mad_agent_priv *priv);
void mad_timeout_work(struct work_struct *work);

/* mad_unclaimed.c */
bool mad_unclaimed_answer(struct mad_qp *mqp,
			  const struct ib_mad_recv_wc *recv_wc);
int mad_unclaimed_open(struct mad_port *port);
void mad_unclaimed_close(struct mad_port *port);

#endif /* OOT_RDMA_MAD_PRIV_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: the iw_cm API (<rdma/iw_cm.h>), as a kernel consumer
 * like rdma_cm uses it.
 *
 * On load it runs its cases once and prints KTAP (version 1) into the
 * kernel log, each line prefixed with "iwcm_test: "; iwcm_api.sh turns
 * them into its own test lines.  The counts are in the read-only
 * parameters passed and failed.  Everything it made is gone when the load
 * returns.
 *
 * There is no iWARP hardware in the test guests, so the module brings its
 * own: "fiw", a fake iWARP device (an ib_device never registered, with
 * the iw_* verbs and modify_qp) that loops every connect back to a
 * listener of the same device, the way an RNIC's firmware would connect
 * two local endpoints.  Its events reach iw_cm with interrupts off, as
 * from a NIC's interrupt handler.  Its QPs are bare struct ib_qp that only
 * count the references iw_cm takes (iw_add_ref/iw_rem_ref) and record the
 * state modify_qp moves them to; moving a connected QP to SQD or ERR
 * closes the connection (DISCONNECT if graceful, then CLOSE on both ends).
 *
 * The argument checks run on a device without iWARP verbs: the one named
 * by dev= if there is one (rxe0 in iwcm_api.sh), else a second bare fake.
 * Listening or connecting there returns EOPNOTSUPP on our iw_cm but
 * dereferences a NULL verb in the stock one: only with noiw_ops=1.
 *
 * Only the public API of <rdma/iw_cm.h> and <rdma/ib_verbs.h> is used: the
 * module builds against the stock stack as well as ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "ktap_module.h"

static char *it_dev_name = "";
module_param_named(dev, it_dev_name, charp, 0444);
MODULE_PARM_DESC(dev, "a device without iWARP verbs for the argument checks");
static bool noiw_ops;
module_param(noiw_ops, bool, 0444);
MODULE_PARM_DESC(noiw_ops, "listen/connect on a device without iw verbs");
static int default_backlog = 256;
module_param(default_backlog, int, 0444);
MODULE_PARM_DESC(default_backlog, "/proc/sys/net/iw_cm/default_backlog");
/*
 * The in-tree iw_cm allocates an id's work entries again on each listen
 * and connect, before it looks at the state, and trips
 * BUG_ON(!list_empty(work_free_list)) in alloc_work_entries() (6.1,
 * measured: iwcm.c:172) when an id listens twice or connects again after
 * a refusal.  On it the shell test sets reuse=0 and those steps are left
 * out.
 */
static bool reuse = true;
module_param(reuse, bool, 0444);
MODULE_PARM_DESC(reuse, "listen twice, connect again after a refusal (the in-tree iw_cm BUG()s)");
/*
 * The in-tree iw_cm lets a reject (or a second accept) follow a successful
 * accept: the id goes back to IDLE, and the ESTABLISHED the driver then
 * reports trips BUG_ON(state != CONN_RECV) in cm_conn_est_handler() (6.1,
 * iwcm.c:867); a refused CONNECT_REPLY after a successful one trips the
 * one in cm_conn_rep_handler() (iwcm.c:896).  On it the shell test sets
 * after_accept=0 and those cases are skipped.
 */
static bool after_accept = true;
module_param(after_accept, bool, 0444);
MODULE_PARM_DESC(after_accept, "reject or refuse after a successful accept (the in-tree iw_cm BUG()s)");

/* How long an event may take in a slow (TCG) guest. */
#define IT_WAIT		(10 * HZ)
#define IT_NR_CASES	19
#define IT_PDATA_MAX	32
#define IT_MAX_EVENTS	16
#define FIW_NR_QPS	8

/* ------------------------------------------------------------------ */
/* The fake iWARP device                                               */

struct fiw_conn;

struct fiw_qp {
	struct ib_qp ibqp;
	atomic_t refs;			/* iw_add_ref minus iw_rem_ref */
	enum ib_qp_state modified;	/* the last state modify_qp set */
	struct fiw_conn *conn;		/* under fiw.lock */
};

struct fiw_listener {
	struct list_head entry;
	struct iw_cm_id *id;		/* with a driver reference */
	__be16 port;
};

/* One connection, from the connect request until it is closed. */
struct fiw_conn {
	struct list_head entry;
	struct iw_cm_id *active;	/* with a driver reference */
	struct iw_cm_id *passive;	/* from accept on, with one too */
	struct fiw_qp *aqp, *pqp;
	struct sockaddr_storage active_addr, passive_addr;
	u8 pdata[IT_PDATA_MAX];
	u8 pdata_len;
};

struct fiw_dev {
	struct ib_device ibdev;
};

static struct {
	struct ib_device *iw;		/* with the iw_* verbs */
	struct ib_device *plain;	/* without */
	struct mutex lock;		/* guards the lists and qp->conn */
	struct list_head listeners;
	struct list_head conns;
	struct fiw_qp qps[FIW_NR_QPS];
	int last_backlog;
	/*
	 * With defer_accept, an accept only records its events; they are
	 * reported by fiw_fire_accept(), as by an RNIC that completes the
	 * MPA exchange later.  deferred holds a reference of its own.
	 */
	bool defer_accept;
	struct iw_cm_id *deferred;
	struct fiw_conn *deferred_conn;
	struct sockaddr_storage deferred_local, deferred_remote;
	atomic_t rejects;
	atomic_t destroy_listens;
} fiw;

static struct fiw_qp *fiw_qp_of(int qpn)
{
	if (qpn < 1 || qpn >= FIW_NR_QPS)
		return NULL;
	return &fiw.qps[qpn];
}

static struct fiw_qp *to_fiw_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct fiw_qp, ibqp);
}

static __be16 it_port(const struct sockaddr_storage *ss)
{
	return ((const struct sockaddr_in *)ss)->sin_port;
}

/* Reports an event to iw_cm as a NIC's interrupt handler would. */
static int fiw_upcall(struct iw_cm_id *id, enum iw_cm_event_type type,
		      int status, const struct sockaddr_storage *local,
		      const struct sockaddr_storage *remote, const void *pdata,
		      u8 pdata_len, void *provider_data)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.local_addr = *local,
		.remote_addr = *remote,
		.private_data = (void *)pdata,
		.private_data_len = pdata_len,
		.provider_data = provider_data,
		.ird = 4,
		.ord = 2,
	};
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = id->event_handler(id, &ev);
	local_irq_restore(flags);
	return ret;
}

static void fiw_conn_free(struct fiw_conn *conn)
{
	if (conn->active)
		conn->active->rem_ref(conn->active);
	if (conn->passive)
		conn->passive->rem_ref(conn->passive);
	kfree(conn);
}

static struct ib_qp *fiw_get_qp(struct ib_device *dev, int qpn)
{
	struct fiw_qp *qp = fiw_qp_of(qpn);

	return qp ? &qp->ibqp : NULL;
}

static void fiw_add_ref(struct ib_qp *ibqp)
{
	atomic_inc(&to_fiw_qp(ibqp)->refs);
}

static void fiw_rem_ref(struct ib_qp *ibqp)
{
	atomic_dec(&to_fiw_qp(ibqp)->refs);
}

static int fiw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct fiw_listener *l;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->id = id;
	l->port = it_port(&id->m_local_addr);
	id->add_ref(id);

	mutex_lock(&fiw.lock);
	list_add(&l->entry, &fiw.listeners);
	fiw.last_backlog = backlog;
	mutex_unlock(&fiw.lock);
	return 0;
}

static int fiw_destroy_listen(struct iw_cm_id *id)
{
	struct fiw_listener *l, *found = NULL;

	mutex_lock(&fiw.lock);
	list_for_each_entry(l, &fiw.listeners, entry) {
		if (l->id == id) {
			list_del(&l->entry);
			found = l;
			break;
		}
	}
	mutex_unlock(&fiw.lock);
	atomic_inc(&fiw.destroy_listens);
	if (!found)
		return -EINVAL;
	id->rem_ref(id);
	kfree(found);
	return 0;
}

static int fiw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct fiw_listener *l, *found = NULL;
	struct fiw_conn *conn;
	int ret;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	conn->active = id;
	id->add_ref(id);
	conn->aqp = fiw_qp_of(param->qpn);
	conn->active_addr = id->m_local_addr;
	conn->passive_addr = id->m_remote_addr;
	conn->pdata_len = min_t(u16, param->private_data_len, IT_PDATA_MAX);
	memcpy(conn->pdata, param->private_data, conn->pdata_len);
	id->provider_data = conn;

	mutex_lock(&fiw.lock);
	list_for_each_entry(l, &fiw.listeners, entry) {
		if (l->port == it_port(&conn->passive_addr)) {
			found = l;
			break;
		}
	}
	if (!found) {
		mutex_unlock(&fiw.lock);
		/* Nobody listens: the peer refuses. */
		fiw_upcall(id, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
			   &conn->active_addr, &conn->passive_addr, NULL, 0,
			   NULL);
		fiw_conn_free(conn);
		return 0;
	}
	list_add(&conn->entry, &fiw.conns);
	ret = fiw_upcall(found->id, IW_CM_EVENT_CONNECT_REQUEST, 0,
			 &conn->passive_addr, &conn->active_addr, conn->pdata,
			 conn->pdata_len, conn);
	if (ret)
		list_del(&conn->entry);
	mutex_unlock(&fiw.lock);
	if (ret)
		fiw_conn_free(conn);
	return ret;
}

static int fiw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct fiw_conn *conn = id->provider_data;

	mutex_lock(&fiw.lock);
	conn->passive = id;
	id->add_ref(id);
	conn->pqp = fiw_qp_of(param->qpn);
	conn->aqp->conn = conn;
	conn->pqp->conn = conn;
	if (fiw.defer_accept && !fiw.deferred) {
		id->add_ref(id);
		fiw.deferred = id;
		fiw.deferred_conn = conn;
		fiw.deferred_local = conn->passive_addr;
		fiw.deferred_remote = conn->active_addr;
		mutex_unlock(&fiw.lock);
		return 0;
	}
	fiw_upcall(id, IW_CM_EVENT_ESTABLISHED, 0, &conn->passive_addr,
		   &conn->active_addr, NULL, 0, NULL);
	fiw_upcall(conn->active, IW_CM_EVENT_CONNECT_REPLY, 0,
		   &conn->active_addr, &conn->passive_addr,
		   param->private_data, param->private_data_len, NULL);
	mutex_unlock(&fiw.lock);
	return 0;
}

static int fiw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len)
{
	struct fiw_conn *conn = id->provider_data;

	atomic_inc(&fiw.rejects);
	mutex_lock(&fiw.lock);
	list_del(&conn->entry);
	/* A reject after an accept (only an old iw_cm lets it through). */
	if (conn->aqp && conn->aqp->conn == conn)
		conn->aqp->conn = NULL;
	if (conn->pqp && conn->pqp->conn == conn)
		conn->pqp->conn = NULL;
	if (fiw.deferred_conn == conn)
		fiw.deferred_conn = NULL;
	mutex_unlock(&fiw.lock);
	fiw_upcall(conn->active, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
		   &conn->active_addr, &conn->passive_addr, pdata, pdata_len,
		   NULL);
	fiw_conn_free(conn);
	return 0;
}

/*
 * Reports what a deferred accept held back: ESTABLISHED to the passive id
 * (whatever iw_cm let happen to it meanwhile), and, if the connection is
 * still there, the CONNECT_REPLY to the active one.
 */
static void fiw_fire_accept(void)
{
	struct fiw_conn *conn;
	struct iw_cm_id *id;

	mutex_lock(&fiw.lock);
	id = fiw.deferred;
	conn = fiw.deferred_conn;
	fiw.deferred = NULL;
	fiw.deferred_conn = NULL;
	fiw.defer_accept = false;
	if (id)
		fiw_upcall(id, IW_CM_EVENT_ESTABLISHED, 0, &fiw.deferred_local,
			   &fiw.deferred_remote, NULL, 0, NULL);
	if (conn)
		fiw_upcall(conn->active, IW_CM_EVENT_CONNECT_REPLY, 0,
			   &conn->active_addr, &conn->passive_addr, NULL, 0,
			   NULL);
	mutex_unlock(&fiw.lock);
	if (id)
		id->rem_ref(id);
}

/* SQD closes gracefully, ERR abruptly: both ends hear of it. */
static int fiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int attr_mask, struct ib_udata *udata)
{
	struct fiw_qp *qp = to_fiw_qp(ibqp);
	struct fiw_conn *conn;
	bool graceful;

	if (!(attr_mask & IB_QP_STATE))
		return 0;
	graceful = attr->qp_state == IB_QPS_SQD;

	mutex_lock(&fiw.lock);
	qp->modified = attr->qp_state;
	conn = qp->conn;
	if (!conn || (!graceful && attr->qp_state != IB_QPS_ERR)) {
		mutex_unlock(&fiw.lock);
		return 0;
	}
	list_del(&conn->entry);
	conn->aqp->conn = NULL;
	conn->pqp->conn = NULL;
	if (graceful) {
		fiw_upcall(conn->active, IW_CM_EVENT_DISCONNECT, 0,
			   &conn->active_addr, &conn->passive_addr, NULL, 0,
			   NULL);
		fiw_upcall(conn->passive, IW_CM_EVENT_DISCONNECT, 0,
			   &conn->passive_addr, &conn->active_addr, NULL, 0,
			   NULL);
	}
	fiw_upcall(conn->active, IW_CM_EVENT_CLOSE, 0, &conn->active_addr,
		   &conn->passive_addr, NULL, 0, NULL);
	fiw_upcall(conn->passive, IW_CM_EVENT_CLOSE, 0, &conn->passive_addr,
		   &conn->active_addr, NULL, 0, NULL);
	mutex_unlock(&fiw.lock);
	fiw_conn_free(conn);
	return 0;
}

static const struct ib_device_ops fiw_ops = {
	.owner = THIS_MODULE,
	.iw_accept = fiw_accept,
	.iw_add_ref = fiw_add_ref,
	.iw_connect = fiw_connect,
	.iw_create_listen = fiw_create_listen,
	.iw_destroy_listen = fiw_destroy_listen,
	.iw_get_qp = fiw_get_qp,
	.iw_reject = fiw_reject,
	.iw_rem_ref = fiw_rem_ref,
	.modify_qp = fiw_modify_qp,
};

/*
 * A bare ib_device with a name and port_data for port 0 (the stock
 * ib_modify_qp() looks at the QP's port, 0 here, before calling the
 * driver).
 */
static struct ib_device *fiw_alloc(const char *name, bool iw)
{
	struct fiw_dev *fdev;

	fdev = ib_alloc_device(fiw_dev, ibdev);
	if (!fdev)
		return NULL;
	fdev->ibdev.node_type = iw ? RDMA_NODE_RNIC : RDMA_NODE_IB_CA;
	fdev->ibdev.phys_port_cnt = 1;
	fdev->ibdev.port_data = kcalloc(2, sizeof(*fdev->ibdev.port_data),
					GFP_KERNEL);
	if (!fdev->ibdev.port_data || dev_set_name(&fdev->ibdev.dev, name)) {
		kfree(fdev->ibdev.port_data);
		fdev->ibdev.port_data = NULL;
		ib_dealloc_device(&fdev->ibdev);
		return NULL;
	}
	if (iw)
		ib_set_device_ops(&fdev->ibdev, &fiw_ops);
	return &fdev->ibdev;
}

static void fiw_free(struct ib_device *dev)
{
	if (!dev)
		return;
	/* Ours, not the core's: the core frees what registration made. */
	kfree(dev->port_data);
	dev->port_data = NULL;
	ib_dealloc_device(dev);
}

static int fiw_init(void)
{
	int i;

	mutex_init(&fiw.lock);
	INIT_LIST_HEAD(&fiw.listeners);
	INIT_LIST_HEAD(&fiw.conns);
	fiw.iw = fiw_alloc("iwcm_test_iw", true);
	fiw.plain = fiw_alloc("iwcm_test_plain", false);
	if (!fiw.iw || !fiw.plain) {
		fiw_free(fiw.iw);
		fiw_free(fiw.plain);
		return -ENOMEM;
	}
	for (i = 0; i < FIW_NR_QPS; i++) {
		fiw.qps[i].ibqp.device = fiw.iw;
		fiw.qps[i].ibqp.real_qp = &fiw.qps[i].ibqp;
		fiw.qps[i].ibqp.qp_num = i;
		fiw.qps[i].ibqp.qp_type = IB_QPT_RC;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The consumer                                                        */

struct it_event {
	struct iw_cm_id *id;
	enum iw_cm_event_type type;
	int status;
	struct sockaddr_storage local, remote;
	u8 pdata[IT_PDATA_MAX];
	u8 pdata_len;
	u8 ird, ord;
};

/* One consumer: what its handler saw, and how it answers. */
struct it_ctx {
	spinlock_t lock;		/* guards n and ev */
	wait_queue_head_t wq;
	int n;
	struct it_event ev[IT_MAX_EVENTS];
	int req_ret;			/* CONNECT_REQUEST's return value */
	int reply_ret;			/* CONNECT_REPLY's */
	int req_accept_qpn;		/* CONNECT_REQUEST accepts on it first */
	int req_accept_ret;		/* and what that accept returned */
	struct completion *block;	/* CONNECT_REQUEST waits for it */
	struct completion in_handler;
};

static void it_ctx_init(struct it_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	spin_lock_init(&ctx->lock);
	init_waitqueue_head(&ctx->wq);
	init_completion(&ctx->in_handler);
}

static int it_handler(struct iw_cm_id *id, struct iw_cm_event *event)
{
	struct it_ctx *ctx = id->context;
	struct it_event *e = NULL;

	spin_lock(&ctx->lock);
	if (ctx->n < IT_MAX_EVENTS)
		e = &ctx->ev[ctx->n];
	if (e) {
		e->id = id;
		e->type = event->event;
		e->status = event->status;
		e->local = event->local_addr;
		e->remote = event->remote_addr;
		e->pdata_len = min_t(u8, event->private_data_len,
				     IT_PDATA_MAX);
		if (event->private_data)
			memcpy(e->pdata, event->private_data, e->pdata_len);
		e->ird = event->ird;
		e->ord = event->ord;
	}
	ctx->n++;
	spin_unlock(&ctx->lock);
	wake_up_all(&ctx->wq);

	switch (event->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		if (ctx->block) {
			complete(&ctx->in_handler);
			wait_for_completion(ctx->block);
		}
		if (ctx->req_accept_qpn) {
			struct iw_cm_conn_param param = {
				.qpn = ctx->req_accept_qpn,
			};

			ctx->req_accept_ret = iw_cm_accept(id, &param);
		}
		return ctx->req_ret;
	case IW_CM_EVENT_CONNECT_REPLY:
		return ctx->reply_ret;
	default:
		return 0;
	}
}

static int it_count(struct it_ctx *ctx)
{
	int n;

	spin_lock(&ctx->lock);
	n = ctx->n;
	spin_unlock(&ctx->lock);
	return n;
}

/* Waits until @ctx has seen @n events; the @i-th (0-based) or NULL. */
static struct it_event *it_wait(struct it_ctx *ctx, int n, int i)
{
	if (!wait_event_timeout(ctx->wq, it_count(ctx) >= n, IT_WAIT))
		return NULL;
	return i < IT_MAX_EVENTS ? &ctx->ev[i] : NULL;
}

static void it_addr(struct sockaddr_storage *ss, u8 host, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0x0a0a0000 | host);	/* 10.10.0.x */
	sin->sin_port = htons(port);
}

static bool it_addr_eq(const struct sockaddr_storage *a,
		       const struct sockaddr_storage *b)
{
	const struct sockaddr_in *x = (const struct sockaddr_in *)a;
	const struct sockaddr_in *y = (const struct sockaddr_in *)b;

	return x->sin_family == y->sin_family &&
	       x->sin_addr.s_addr == y->sin_addr.s_addr &&
	       x->sin_port == y->sin_port;
}

/* ------------------------------------------------------------------ */
/* The cases                                                           */

#define IT_LPORT	4791
#define IT_QP_A		1
#define IT_QP_P		2

static struct ib_device *it_noiw;	/* the device without iw verbs */
static struct it_ctx ctx_l, ctx_a;	/* the listener's, the active's */

static int it_reject_msg(void)
{
	static const struct {
		int reason;
		const char *msg;
	} cases[] = {
		{ -ECONNRESET, "reset by remote host" },
		{ -ECONNREFUSED, "refused by remote application" },
		{ -ETIMEDOUT, "setup timeout" },
		{ 0, "unrecognized reason" },
		{ -EINVAL, "unrecognized reason" },
		{ ECONNREFUSED, "unrecognized reason" },
		{ INT_MIN, "unrecognized reason" },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *msg = iwcm_reject_msg(cases[i].reason);

		if (KTAP_BAD(!strcmp(msg, cases[i].msg), "%d: \"%s\"",
			     cases[i].reason, msg))
			return -EINVAL;
	}
	return 0;
}

static int it_create_destroy(void)
{
	struct ib_qp_attr attr = {};
	struct iw_cm_id *id;
	int mask = -1, ret;

	id = iw_create_cm_id(it_noiw, it_handler, &ctx_a);
	if (KTAP_BAD(!IS_ERR(id), "%ld", PTR_ERR(id)))
		return -EINVAL;
	ret = -EINVAL;
	if (KTAP_BAD(id->device == it_noiw && id->context == &ctx_a &&
		     id->cm_handler == it_handler, "fields not set") ||
	    KTAP_BAD(id->event_handler && id->add_ref && id->rem_ref,
		     "no driver callbacks"))
		goto out;

	attr.qp_state = IB_QPS_INIT;
	if (KTAP_BAD(!iw_cm_init_qp_attr(id, &attr, &mask) &&
		     mask == (IB_QP_STATE | IB_QP_ACCESS_FLAGS) &&
		     attr.qp_access_flags == (IB_ACCESS_REMOTE_WRITE |
					      IB_ACCESS_REMOTE_READ),
		     "INIT: mask %#x flags %#x", mask, attr.qp_access_flags))
		goto out;
	attr.qp_state = IB_QPS_RTR;
	mask = -1;
	if (KTAP_BAD(!iw_cm_init_qp_attr(id, &attr, &mask) &&
		     mask == (IB_QP_STATE | IB_QP_ACCESS_FLAGS),
		     "RTR: mask %#x", mask))
		goto out;
	attr.qp_state = IB_QPS_RTS;
	mask = -1;
	if (KTAP_BAD(!iw_cm_init_qp_attr(id, &attr, &mask) && mask == 0,
		     "RTS: mask %#x", mask))
		goto out;
	attr.qp_state = IB_QPS_RESET;
	if (KTAP_BAD(iw_cm_init_qp_attr(id, &attr, &mask) == -EINVAL, "RESET"))
		goto out;
	attr.qp_state = IB_QPS_ERR;
	if (KTAP_BAD(iw_cm_init_qp_attr(id, &attr, &mask) == -EINVAL, "ERR"))
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(id);
	return ret;
}

static int it_idle_calls(void)
{
	struct iw_cm_conn_param param = { .qpn = IT_QP_A };
	struct iw_cm_id *id;
	int ret = -EINVAL;

	id = iw_create_cm_id(it_noiw, it_handler, &ctx_a);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (KTAP_BAD(iw_cm_accept(id, &param) == -EINVAL, "accept") ||
	    KTAP_BAD(iw_cm_reject(id, "x", 1) == -EINVAL, "reject") ||
	    KTAP_BAD(iw_cm_disconnect(id, 0) == 0, "disconnect") ||
	    KTAP_BAD(iw_cm_disconnect(id, 1) == 0, "abrupt disconnect"))
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(id);
	return KTAP_BAD(it_count(&ctx_a) == 0, "%d events", it_count(&ctx_a)) ?
	       -EINVAL : ret;
}

static int it_noiw_listen_connect(void)
{
	struct iw_cm_conn_param param = { .qpn = IT_QP_A };
	struct iw_cm_id *id;
	int ret = -EINVAL;
	int r;

	id = iw_create_cm_id(it_noiw, it_handler, &ctx_a);
	if (IS_ERR(id))
		return PTR_ERR(id);
	it_addr(&id->local_addr, 1, IT_LPORT);
	r = iw_cm_listen(id, 4);
	if (KTAP_BAD(r == -EOPNOTSUPP, "listen: %d", r))
		goto out;
	it_addr(&id->remote_addr, 2, IT_LPORT);
	r = iw_cm_connect(id, &param);
	if (KTAP_BAD(r == -EOPNOTSUPP, "connect: %d", r))
		goto out;
	/* Nothing changed: the id is still idle. */
	r = iw_cm_disconnect(id, 0);
	if (KTAP_BAD(r == 0, "disconnect: %d", r))
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(id);
	return ret;
}

static int it_listen(void)
{
	struct iw_cm_id *a, *b;
	int ret = -EINVAL, r;
	int destroyed = atomic_read(&fiw.destroy_listens);

	a = iw_create_cm_id(fiw.iw, it_handler, &ctx_l);
	if (IS_ERR(a))
		return PTR_ERR(a);
	b = iw_create_cm_id(fiw.iw, it_handler, &ctx_l);
	if (IS_ERR(b)) {
		iw_destroy_cm_id(a);
		return PTR_ERR(b);
	}
	it_addr(&a->local_addr, 1, IT_LPORT + 1);
	it_addr(&b->local_addr, 1, IT_LPORT + 2);

	r = iw_cm_listen(a, 4);
	if (KTAP_BAD(!r && fiw.last_backlog == 4, "listen: %d, backlog %d", r,
		     fiw.last_backlog))
		goto out;
	/* Without a port mapper, the mapped address is the address. */
	if (KTAP_BAD(it_addr_eq(&a->m_local_addr, &a->local_addr),
		     "m_local_addr %pISpc", &a->m_local_addr))
		goto out;
	if (reuse) {
		r = iw_cm_listen(a, 4);
		if (KTAP_BAD(r == -EINVAL, "second listen: %d", r))
			goto out;
	} else {
		pr_info("# second listen left out (reuse=0)\n");
	}
	r = iw_cm_listen(b, 0);
	if (KTAP_BAD(!r && fiw.last_backlog == default_backlog,
		     "listen(0): %d, backlog %d", r, fiw.last_backlog))
		goto out;
	r = iw_cm_disconnect(a, 0);
	if (KTAP_BAD(r == -EINVAL, "disconnect of a listener: %d", r))
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(a);
	iw_destroy_cm_id(b);
	if (KTAP_BAD(atomic_read(&fiw.destroy_listens) == destroyed + 2,
		     "%d destroy_listen calls",
		     atomic_read(&fiw.destroy_listens) - destroyed) ||
	    KTAP_BAD(list_empty(&fiw.listeners), "listeners left"))
		return -EINVAL;
	return ret;
}

/* The listener every connection case uses, on IT_LPORT. */
static struct iw_cm_id *it_listener;

static struct iw_cm_id *it_active(u16 port)
{
	struct iw_cm_id *id;

	id = iw_create_cm_id(fiw.iw, it_handler, &ctx_a);
	if (IS_ERR(id)) {
		pr_info("# iw_create_cm_id: %ld\n", PTR_ERR(id));
		return NULL;
	}
	it_addr(&id->local_addr, 2, 40000 + port);
	it_addr(&id->remote_addr, 1, IT_LPORT);
	return id;
}

static int it_connect(struct iw_cm_id *id, int qpn, const char *pdata)
{
	struct iw_cm_conn_param param = {
		.private_data = pdata,
		.private_data_len = pdata ? strlen(pdata) + 1 : 0,
		.ird = 4,
		.ord = 2,
		.qpn = qpn,
	};

	return iw_cm_connect(id, &param);
}

static int it_refused(void)
{
	struct iw_cm_id *a;
	struct it_event *e;
	int ret = -EINVAL, r;

	a = it_active(1);
	if (!a)
		return -ENOMEM;
	it_addr(&a->remote_addr, 1, IT_LPORT + 9);	/* nobody there */
	r = it_connect(a, IT_QP_A, "hello");
	if (KTAP_BAD(!r, "connect: %d", r))
		goto out;
	e = it_wait(&ctx_a, 1, 0);
	if (KTAP_BAD(e, "no event") ||
	    KTAP_BAD(e->id == a && e->type == IW_CM_EVENT_CONNECT_REPLY &&
		     e->status == -ECONNREFUSED, "event %d status %d", e->type,
		     e->status) ||
	    KTAP_BAD(atomic_read(&fiw.qps[IT_QP_A].refs) == 0, "QP refs %d",
		     atomic_read(&fiw.qps[IT_QP_A].refs)))
		goto out;
	/* Back to idle: it may connect again. */
	if (!reuse) {
		pr_info("# second connect left out (reuse=0)\n");
		ret = 0;
		goto out;
	}
	r = it_connect(a, IT_QP_A, NULL);
	if (KTAP_BAD(!r, "second connect: %d", r) ||
	    KTAP_BAD(it_wait(&ctx_a, 2, 1), "no second event"))
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(a);
	return ret;
}

/*
 * Connects @a to the listener and accepts: the passive id, or NULL.
 * @a's addresses are read before the connect: a handler that returns
 * non-zero on CONNECT_REPLY (it_reply_destroys()) has iw_cm free @a
 * once it returns, while the reply is still being checked here.
 */
static struct iw_cm_id *it_establish(struct iw_cm_id *a, int *nl, int *na)
{
	struct sockaddr_storage a_local = a->local_addr;
	struct sockaddr_storage a_remote = a->remote_addr;
	struct iw_cm_conn_param param = {
		.private_data = "world",
		.private_data_len = 6,
		.ird = 2,
		.ord = 4,
		.qpn = IT_QP_P,
	};
	struct iw_cm_id *p;
	struct it_event *e;
	int r;

	r = it_connect(a, IT_QP_A, "hello");
	if (KTAP_BAD(!r, "connect: %d", r))
		return NULL;
	e = it_wait(&ctx_l, *nl + 1, *nl);
	if (KTAP_BAD(e && e->type == IW_CM_EVENT_CONNECT_REQUEST, "no request"))
		return NULL;
	(*nl)++;
	p = e->id;
	/* Not a new id of ours: nothing of it to destroy. */
	if (KTAP_BAD(p != it_listener && p->device == fiw.iw &&
		     p->context == &ctx_l, "the new id"))
		return NULL;
	if (KTAP_BAD(!e->status && e->pdata_len == 6 &&
		     !memcmp(e->pdata, "hello", 6), "request: %d, %u bytes",
		     e->status, e->pdata_len) ||
	    KTAP_BAD(it_addr_eq(&e->local, &a_remote) &&
		     it_addr_eq(&e->remote, &a_local),
		     "request %pISpc -> %pISpc", &e->remote, &e->local) ||
	    KTAP_BAD(it_addr_eq(&p->remote_addr, &a_local) &&
		     it_addr_eq(&p->local_addr, &it_listener->local_addr),
		     "new id %pISpc -> %pISpc", &p->remote_addr, &p->local_addr))
		goto fail;

	r = iw_cm_accept(p, &param);
	if (KTAP_BAD(!r, "accept: %d", r))
		goto fail;
	e = it_wait(&ctx_a, *na + 1, *na);
	if (KTAP_BAD(e && e->id == a && e->type == IW_CM_EVENT_CONNECT_REPLY &&
		     !e->status, "reply") ||
	    KTAP_BAD(e->pdata_len == 6 && !memcmp(e->pdata, "world", 6),
		     "reply: %u bytes", e->pdata_len) ||
	    KTAP_BAD(it_addr_eq(&e->local, &a_local) &&
		     it_addr_eq(&e->remote, &a_remote),
		     "reply %pISpc -> %pISpc", &e->local, &e->remote))
		goto fail;
	(*na)++;
	e = it_wait(&ctx_l, *nl + 1, *nl);
	if (KTAP_BAD(e && e->id == p && e->type == IW_CM_EVENT_ESTABLISHED &&
		     !e->status, "no ESTABLISHED"))
		goto fail;
	(*nl)++;
	return p;

fail:
	/* Whatever state it is in, the passive id must not outlive the case. */
	iw_destroy_cm_id(p);
	return NULL;
}

/* Both ends of an established connection hold their QP. */
static int it_qp_refs_held(void)
{
	if (KTAP_BAD(atomic_read(&fiw.qps[IT_QP_A].refs) == 1 &&
		     atomic_read(&fiw.qps[IT_QP_P].refs) == 1,
		     "QP refs %d %d", atomic_read(&fiw.qps[IT_QP_A].refs),
		     atomic_read(&fiw.qps[IT_QP_P].refs)))
		return -EINVAL;
	return 0;
}

static int it_qp_refs_zero(void)
{
	if (KTAP_BAD(atomic_read(&fiw.qps[IT_QP_A].refs) == 0 &&
		     atomic_read(&fiw.qps[IT_QP_P].refs) == 0,
		     "QP refs %d %d", atomic_read(&fiw.qps[IT_QP_A].refs),
		     atomic_read(&fiw.qps[IT_QP_P].refs)))
		return -EINVAL;
	return 0;
}

static int it_connect_accept_disconnect(void)
{
	int nl = it_count(&ctx_l), na = it_count(&ctx_a);
	struct iw_cm_id *a, *p = NULL;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS };
	struct it_event *e;
	int ret = -EINVAL, r, mask;

	a = it_active(2);
	if (!a)
		return -ENOMEM;
	p = it_establish(a, &nl, &na);
	if (!p || it_qp_refs_held())
		goto out;
	if (KTAP_BAD(!iw_cm_init_qp_attr(a, &attr, &mask) && !mask,
		     "init_qp_attr when established"))
		goto out;

	/* Graceful: the QP goes to SQD, both ends see CLOSE. */
	r = iw_cm_disconnect(a, 0);
	if (KTAP_BAD(!r, "disconnect: %d", r) ||
	    KTAP_BAD(fiw.qps[IT_QP_A].modified == IB_QPS_SQD, "QP state %d",
		     fiw.qps[IT_QP_A].modified))
		goto out;
	e = it_wait(&ctx_a, na + 1, na);
	if (KTAP_BAD(e && e->id == a && e->type == IW_CM_EVENT_CLOSE,
		     "no CLOSE on the active side"))
		goto out;
	e = it_wait(&ctx_l, nl + 1, nl);
	if (KTAP_BAD(e && e->id == p && e->type == IW_CM_EVENT_CLOSE,
		     "no CLOSE on the passive side"))
		goto out;
	if (it_qp_refs_zero())
		goto out;
	/* Closed: disconnecting again is a no-op. */
	r = iw_cm_disconnect(a, 1);
	if (KTAP_BAD(!r, "second disconnect: %d", r) ||
	    KTAP_BAD(it_count(&ctx_a) == na + 1 && it_count(&ctx_l) == nl + 1,
		     "events after CLOSE"))
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(a);
	if (p)
		iw_destroy_cm_id(p);
	return ret;
}

static int it_reject(void)
{
	int nl = it_count(&ctx_l), na = it_count(&ctx_a);
	int rejects = atomic_read(&fiw.rejects);
	struct iw_cm_id *a, *p = NULL;
	struct it_event *e;
	int ret = -EINVAL, r;

	a = it_active(3);
	if (!a)
		return -ENOMEM;
	r = it_connect(a, IT_QP_A, "hello");
	if (KTAP_BAD(!r, "connect: %d", r))
		goto out;
	e = it_wait(&ctx_l, nl + 1, nl);
	if (KTAP_BAD(e && e->type == IW_CM_EVENT_CONNECT_REQUEST, "no request"))
		goto out;
	p = e->id;
	r = iw_cm_reject(p, "no", 3);
	if (KTAP_BAD(!r, "reject: %d", r))
		goto out;
	e = it_wait(&ctx_a, na + 1, na);
	if (KTAP_BAD(e && e->id == a && e->type == IW_CM_EVENT_CONNECT_REPLY &&
		     e->status == -ECONNREFUSED, "no refusal") ||
	    KTAP_BAD(e->pdata_len == 3 && !memcmp(e->pdata, "no", 3),
		     "refusal: %u bytes", e->pdata_len) ||
	    it_qp_refs_zero())
		goto out;
	r = iw_cm_reject(p, NULL, 0);
	if (KTAP_BAD(r == -EINVAL, "second reject: %d", r))
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(a);
	if (p)
		iw_destroy_cm_id(p);
	/* The rejected id was idle: destroying it rejects nothing more. */
	if (KTAP_BAD(atomic_read(&fiw.rejects) == rejects + 1, "%d rejects",
		     atomic_read(&fiw.rejects) - rejects))
		return -EINVAL;
	return ret;
}

static int it_handler_refuses(void)
{
	int nl = it_count(&ctx_l), na = it_count(&ctx_a);
	int rejects = atomic_read(&fiw.rejects);
	struct iw_cm_id *a;
	struct it_event *e;
	int ret = -EINVAL, r;

	a = it_active(4);
	if (!a)
		return -ENOMEM;
	ctx_l.req_ret = -ECONNREFUSED;
	r = it_connect(a, IT_QP_A, NULL);
	if (KTAP_BAD(!r, "connect: %d", r))
		goto out;
	e = it_wait(&ctx_a, na + 1, na);
	if (KTAP_BAD(e && e->type == IW_CM_EVENT_CONNECT_REPLY &&
		     e->status == -ECONNREFUSED, "no refusal") ||
	    KTAP_BAD(it_count(&ctx_l) == nl + 1, "%d listener events",
		     it_count(&ctx_l) - nl) ||
	    KTAP_BAD(atomic_read(&fiw.rejects) == rejects + 1, "%d rejects",
		     atomic_read(&fiw.rejects) - rejects) ||
	    it_qp_refs_zero())
		goto out;
	ret = 0;
out:
	ctx_l.req_ret = 0;
	iw_destroy_cm_id(a);
	return ret;
}

static int it_destroy_established(void)
{
	int nl = it_count(&ctx_l), na = it_count(&ctx_a);
	struct iw_cm_id *a, *p;
	struct it_event *e;
	int ret = -EINVAL;

	a = it_active(5);
	if (!a)
		return -ENOMEM;
	p = it_establish(a, &nl, &na);
	if (!p || it_qp_refs_held()) {
		iw_destroy_cm_id(a);
		if (p)
			iw_destroy_cm_id(p);
		return -EINVAL;
	}
	/* Abrupt: the QP goes to ERR, the peer sees CLOSE, we see nothing. */
	iw_destroy_cm_id(a);
	if (KTAP_BAD(fiw.qps[IT_QP_A].modified == IB_QPS_ERR, "QP state %d",
		     fiw.qps[IT_QP_A].modified))
		goto out;
	e = it_wait(&ctx_l, nl + 1, nl);
	if (KTAP_BAD(e && e->id == p && e->type == IW_CM_EVENT_CLOSE,
		     "no CLOSE on the passive side") ||
	    KTAP_BAD(it_count(&ctx_a) == na, "%d events after destroy",
		     it_count(&ctx_a) - na) ||
	    it_qp_refs_zero())
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(p);
	return ret;
}

static int it_destroy_unaccepted(void)
{
	int nl = it_count(&ctx_l), na = it_count(&ctx_a);
	int rejects = atomic_read(&fiw.rejects);
	struct iw_cm_id *a;
	struct it_event *e;
	int ret = -EINVAL, r;

	a = it_active(6);
	if (!a)
		return -ENOMEM;
	r = it_connect(a, IT_QP_A, NULL);
	if (KTAP_BAD(!r, "connect: %d", r))
		goto out;
	e = it_wait(&ctx_l, nl + 1, nl);
	if (KTAP_BAD(e && e->type == IW_CM_EVENT_CONNECT_REQUEST, "no request"))
		goto out;
	/* Never accepted: destroying it rejects the request. */
	iw_destroy_cm_id(e->id);
	e = it_wait(&ctx_a, na + 1, na);
	if (KTAP_BAD(atomic_read(&fiw.rejects) == rejects + 1, "%d rejects",
		     atomic_read(&fiw.rejects) - rejects) ||
	    KTAP_BAD(e && e->type == IW_CM_EVENT_CONNECT_REPLY &&
		     e->status == -ECONNREFUSED, "no refusal"))
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(a);
	return ret;
}

static int it_reply_destroys(void)
{
	int nl = it_count(&ctx_l), na = it_count(&ctx_a);
	struct iw_cm_id *a, *p;
	struct it_event *e;
	int ret = -EINVAL;

	a = it_active(7);
	if (!a)
		return -ENOMEM;
	/* The active handler gives its id up on the (successful) reply. */
	ctx_a.reply_ret = -ECONNABORTED;
	p = it_establish(a, &nl, &na);
	ctx_a.reply_ret = 0;
	if (!p)
		return -EINVAL;	/* a is gone, or leaks: nothing to do */
	e = it_wait(&ctx_l, nl + 1, nl);
	if (KTAP_BAD(e && e->id == p && e->type == IW_CM_EVENT_CLOSE,
		     "no CLOSE on the passive side") ||
	    KTAP_BAD(fiw.qps[IT_QP_A].modified == IB_QPS_ERR, "QP state %d",
		     fiw.qps[IT_QP_A].modified) ||
	    it_qp_refs_zero())
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(p);
	return ret;
}

/*
 * An accepted request may no longer be rejected or accepted again: its
 * ESTABLISHED is on its way (from user space: rdma_ucm's ACCEPT, then
 * REJECT, on an iWARP device).
 */
static int it_accept_then_reject(void)
{
	int nl = it_count(&ctx_l), na = it_count(&ctx_a);
	int rejects = atomic_read(&fiw.rejects);
	struct iw_cm_conn_param param = { .qpn = IT_QP_P };
	struct iw_cm_id *a, *p = NULL;
	struct it_event *e;
	int ret = -EINVAL, r;

	a = it_active(8);
	if (!a)
		return -ENOMEM;
	r = it_connect(a, IT_QP_A, NULL);
	if (KTAP_BAD(!r, "connect: %d", r))
		goto out;
	e = it_wait(&ctx_l, nl + 1, nl);
	if (KTAP_BAD(e && e->type == IW_CM_EVENT_CONNECT_REQUEST, "no request"))
		goto out;
	p = e->id;
	nl++;
	fiw.defer_accept = true;
	r = iw_cm_accept(p, &param);
	if (KTAP_BAD(!r, "accept: %d", r))
		goto fire;
	r = iw_cm_reject(p, NULL, 0);
	if (KTAP_BAD(r == -EINVAL, "reject after accept: %d", r))
		goto fire;
	r = iw_cm_accept(p, &param);
	if (KTAP_BAD(r == -EINVAL, "second accept: %d", r))
		goto fire;
	ret = 0;
fire:
	/* The driver reports the accept's outcome. */
	fiw_fire_accept();
	if (ret)
		goto out;
	ret = -EINVAL;
	e = it_wait(&ctx_l, nl + 1, nl);
	if (KTAP_BAD(e && e->id == p && e->type == IW_CM_EVENT_ESTABLISHED,
		     "no ESTABLISHED"))
		goto out;
	e = it_wait(&ctx_a, na + 1, na);
	if (KTAP_BAD(e && e->id == a && e->type == IW_CM_EVENT_CONNECT_REPLY &&
		     !e->status, "no reply") ||
	    KTAP_BAD(atomic_read(&fiw.rejects) == rejects, "%d rejects",
		     atomic_read(&fiw.rejects) - rejects) ||
	    it_qp_refs_held())
		goto out;
	ret = 0;
out:
	iw_destroy_cm_id(a);
	if (p)
		iw_destroy_cm_id(p);
	return ret;
}

/*
 * A listener's handler that accepts and then returns non-zero: the
 * connection is aborted once established, the new id destroyed, and
 * nothing waits for an event that cannot come.
 */
static int it_accept_then_refuse(void)
{
	int nl = it_count(&ctx_l), na = it_count(&ctx_a);
	struct iw_cm_id *a;
	struct it_event *e;
	int ret = -EINVAL, r;

	a = it_active(9);
	if (!a)
		return -ENOMEM;
	ctx_l.req_accept_qpn = IT_QP_P;
	ctx_l.req_ret = -ECONNREFUSED;
	r = it_connect(a, IT_QP_A, NULL);
	if (KTAP_BAD(!r, "connect: %d", r))
		goto out;
	/* The reply, then the CLOSE of the abort. */
	e = it_wait(&ctx_a, na + 2, na + 1);
	if (KTAP_BAD(e, "%d events on the active side",
		     it_count(&ctx_a) - na) ||
	    KTAP_BAD(ctx_a.ev[na].type == IW_CM_EVENT_CONNECT_REPLY &&
		     !ctx_a.ev[na].status, "reply %d status %d",
		     ctx_a.ev[na].type, ctx_a.ev[na].status) ||
	    KTAP_BAD(e->type == IW_CM_EVENT_CLOSE, "event %d, not CLOSE",
		     e->type) ||
	    KTAP_BAD(!ctx_l.req_accept_ret, "accept: %d",
		     ctx_l.req_accept_ret) ||
	    KTAP_BAD(fiw.qps[IT_QP_P].modified == IB_QPS_ERR, "QP state %d",
		     fiw.qps[IT_QP_P].modified))
		goto out;
	/* Only the request reached the listener's handler. */
	msleep(50);
	if (KTAP_BAD(it_count(&ctx_l) == nl + 1, "%d listener events",
		     it_count(&ctx_l) - nl) ||
	    it_qp_refs_zero())
		goto out;
	ret = 0;
out:
	ctx_l.req_accept_qpn = 0;
	ctx_l.req_ret = 0;
	iw_destroy_cm_id(a);
	return ret;
}

static int it_backlog_full(void)
{
	struct iw_cm_id *l, *a[3] = {};
	int nl, na = it_count(&ctx_a);
	struct completion block;
	struct it_ctx *ctx;
	int ret = -EINVAL, r, i;

	/* A listener of its own, backlog 1, whose handler blocks. */
	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	it_ctx_init(ctx);
	init_completion(&block);
	ctx->block = &block;
	ctx->req_ret = -ECONNREFUSED;
	l = iw_create_cm_id(fiw.iw, it_handler, ctx);
	if (IS_ERR(l)) {
		kfree(ctx);
		return PTR_ERR(l);
	}
	it_addr(&l->local_addr, 1, IT_LPORT + 3);
	r = iw_cm_listen(l, 1);
	if (KTAP_BAD(!r, "listen: %d", r)) {
		complete_all(&block);
		goto out;
	}
	for (i = 0; i < 3; i++) {
		a[i] = it_active(10 + i);
		if (!a[i]) {
			complete_all(&block);
			goto out;
		}
		it_addr(&a[i]->remote_addr, 1, IT_LPORT + 3);
	}

	/* The first request is taken out and blocks the handler... */
	r = it_connect(a[0], IT_QP_A, NULL);
	if (KTAP_BAD(!r, "connect 1: %d", r) ||
	    KTAP_BAD(wait_for_completion_timeout(&ctx->in_handler, IT_WAIT),
		     "no request")) {
		complete_all(&block);
		goto out;
	}
	/* ... the second takes the only slot, the third finds none. */
	r = it_connect(a[1], IT_QP_A + 2, NULL);
	if (KTAP_BAD(!r, "connect 2: %d", r)) {
		complete_all(&block);
		goto out;
	}
	r = it_connect(a[2], IT_QP_A + 4, NULL);
	complete_all(&block);
	if (KTAP_BAD(r == -ENOMEM, "connect 3: %d", r))
		goto out;

	/* Both requests refused by the handler; the third id is idle. */
	nl = 2;
	if (KTAP_BAD(it_wait(ctx, nl, 0), "%d requests", it_count(ctx)) ||
	    KTAP_BAD(it_wait(&ctx_a, na + 2, na), "%d replies",
		     it_count(&ctx_a) - na))
		goto out;
	for (i = 1; i < 6; i++) {
		if (KTAP_BAD(atomic_read(&fiw.qps[i].refs) == 0, "QP %d refs %d",
			     i, atomic_read(&fiw.qps[i].refs)))
			goto out;
	}
	ret = 0;
out:
	for (i = 0; i < 3; i++)
		if (a[i])
			iw_destroy_cm_id(a[i]);
	iw_destroy_cm_id(l);
	kfree(ctx);
	return ret;
}

struct it_destroyer {
	struct iw_cm_id *id;
	struct completion done;
};

static int it_destroy_thread(void *arg)
{
	struct it_destroyer *d = arg;

	iw_destroy_cm_id(d->id);
	complete_all(&d->done);
	return 0;
}

static int it_destroy_waits(void)
{
	struct it_destroyer d = {};
	struct task_struct *t = NULL;
	struct completion block;
	struct iw_cm_id *a;
	struct it_ctx *ctx;
	int ret = -EINVAL, r;
	bool early;

	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	it_ctx_init(ctx);
	init_completion(&block);
	init_completion(&d.done);
	ctx->block = &block;
	ctx->req_ret = -ECONNREFUSED;
	d.id = iw_create_cm_id(fiw.iw, it_handler, ctx);
	if (IS_ERR(d.id)) {
		kfree(ctx);
		return PTR_ERR(d.id);
	}
	it_addr(&d.id->local_addr, 1, IT_LPORT + 4);
	a = it_active(20);
	if (!a || KTAP_BAD(!iw_cm_listen(d.id, 2), "listen")) {
		iw_destroy_cm_id(d.id);
		goto out_a;
	}
	it_addr(&a->remote_addr, 1, IT_LPORT + 4);
	r = it_connect(a, IT_QP_A, NULL);
	if (KTAP_BAD(!r, "connect: %d", r) ||
	    KTAP_BAD(wait_for_completion_timeout(&ctx->in_handler, IT_WAIT),
		     "no request")) {
		complete_all(&block);
		iw_destroy_cm_id(d.id);
		goto out_a;
	}

	/* The listener's handler is running: destroy must wait for it. */
	t = kthread_run(it_destroy_thread, &d, "iwcm_test_destroy");
	if (IS_ERR(t)) {
		t = NULL;
		complete_all(&block);
		iw_destroy_cm_id(d.id);
		goto out_a;
	}
	early = wait_for_completion_timeout(&d.done, HZ / 5);
	complete_all(&block);
	if (KTAP_BAD(!early, "destroy returned while the handler ran") ||
	    KTAP_BAD(wait_for_completion_timeout(&d.done, IT_WAIT),
		     "destroy never returned"))
		goto out_a;
	ret = 0;
out_a:
	if (a)
		iw_destroy_cm_id(a);
	/* The destroy (and its thread) must be over before ctx goes. */
	if (t)
		wait_for_completion(&d.done);
	kfree(ctx);
	return ret;
}

static int it_all_released(void)
{
	int i;

	for (i = 0; i < FIW_NR_QPS; i++)
		if (KTAP_BAD(atomic_read(&fiw.qps[i].refs) == 0, "QP %d: %d", i,
			     atomic_read(&fiw.qps[i].refs)))
			return -EINVAL;
	mutex_lock(&fiw.lock);
	i = list_empty(&fiw.listeners) && list_empty(&fiw.conns);
	mutex_unlock(&fiw.lock);
	return KTAP_BAD(i, "listeners or connections left") ? -EINVAL : 0;
}

static int it_listen_main(void)
{
	int r;

	it_listener = iw_create_cm_id(fiw.iw, it_handler, &ctx_l);
	if (IS_ERR(it_listener)) {
		r = PTR_ERR(it_listener);
		it_listener = NULL;
		return r;
	}
	it_addr(&it_listener->local_addr, 1, IT_LPORT);
	r = iw_cm_listen(it_listener, 8);
	if (KTAP_BAD(!r, "listen: %d", r)) {
		iw_destroy_cm_id(it_listener);
		it_listener = NULL;
		return r;
	}
	return 0;
}

static void it_run_all(void)
{
	bool lis;

	ktap_plan(IT_NR_CASES);
	ktap_run("iwcm_reject_msg gives stock's strings", it_reject_msg, true,
		 "");
	ktap_run("create, init_qp_attr and destroy on a device without iw verbs",
		 it_create_destroy, true, "");
	ktap_run("accept, reject and disconnect of an idle id", it_idle_calls,
		 true, "");
	ktap_run("listen and connect without iw verbs fail with EOPNOTSUPP",
		 it_noiw_listen_connect, noiw_ops,
		 "the stock iw_cm calls the missing verb");
	ktap_run("listen: backlog, a second listen, listen(0), destroy",
		 it_listen, true, "");
	lis = ktap_run("listen on the fake iWARP device", it_listen_main, true,
		       "");
	ktap_run("connect to a closed port: CONNECT_REPLY ECONNREFUSED",
		 it_refused, true, "");
	ktap_run("connect, request, accept, established; graceful disconnect",
		 it_connect_accept_disconnect, lis, "no listener");
	ktap_run("reject with private data", it_reject, lis, "no listener");
	ktap_run("a handler refusing a request: rejected, the new id destroyed",
		 it_handler_refuses, lis, "no listener");
	ktap_run("destroying an established id aborts the connection",
		 it_destroy_established, lis, "no listener");
	ktap_run("destroying an unaccepted id rejects the request",
		 it_destroy_unaccepted, lis, "no listener");
	ktap_run("a handler returning non-zero on CONNECT_REPLY destroys its id",
		 it_reply_destroys, lis, "no listener");
	ktap_run("after an accept, reject and a second accept fail with EINVAL",
		 it_accept_then_reject, lis && after_accept,
		 lis ? "the in-tree iw_cm BUG()s on the ESTABLISHED" :
		 "no listener");
	ktap_run("a handler accepting, then refusing: aborted once established",
		 it_accept_then_refuse, lis && after_accept,
		 lis ? "the in-tree iw_cm BUG()s on the CONNECT_REPLY" :
		 "no listener");
	ktap_run("a full backlog: the driver's event fails with ENOMEM",
		 it_backlog_full, true, "");
	ktap_run("destroying a listener waits for its running handler",
		 it_destroy_waits, true, "");
	if (it_listener) {
		iw_destroy_cm_id(it_listener);
		it_listener = NULL;
	}
	ktap_run("every QP and id reference the driver saw is back",
		 it_all_released, true, "");
	ktap_all_ran(IT_NR_CASES);
}

static int __init iwcm_test_init(void)
{
	struct ib_device *named = NULL;
	int ret;

	ret = fiw_init();
	if (ret)
		return ret;
	it_ctx_init(&ctx_l);
	it_ctx_init(&ctx_a);
	if (*it_dev_name) {
		named = ib_device_get_by_name(it_dev_name, RDMA_DRIVER_UNKNOWN);
		if (!named)
			pr_info("# no device %s: using iwcm_test_plain\n",
				it_dev_name);
	}
	it_noiw = named ?: fiw.plain;

	it_run_all();

	if (named)
		ib_device_put(named);
	fiw_free(fiw.iw);
	fiw_free(fiw.plain);
	return 0;
}

static void __exit iwcm_test_exit(void)
{
}

module_init(iwcm_test_init);
module_exit(iwcm_test_exit);
MODULE_DESCRIPTION("Test-only: the iw_cm API on a fake iWARP device, KTAP in the log");
MODULE_LICENSE("GPL");

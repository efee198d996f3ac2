// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: ib_cm as a kernel ULP uses it, on one existing rxe
 * device (module parameter dev=, default rxe0), talking to itself through
 * the device's own RoCEv2 GID.
 *
 * On load it runs its cases once and prints KTAP (version 1) into the
 * kernel log, each line prefixed with "cm_test: "; cm_loop.sh turns them
 * into its own test lines.  The counts are in the read-only parameters
 * passed and failed.  Everything it made is gone when the load returns.
 *
 * The active side's ids are made here; the passive side's come with
 * IB_CM_REQ_RECEIVED / IB_CM_SIDR_REQ_RECEIVED on a listener.  Every id's
 * context is a struct ct_ep that records its events; the cases wait for
 * them from the loading thread, and answer from there (or, for the many
 * connections case, from the handler itself).
 *
 * Only public API (<rdma/ib_cm.h>, <rdma/ib_verbs.h>) is used: the module
 * builds against the stock ib_cm as well as ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>

#include "ktap_module.h"

static char *ct_dev_name = "rxe0";
module_param_named(dev, ct_dev_name, charp, 0444);
/*
 * The in-tree ib_cm shifts by the raw packet life time and response
 * timeout (cm_convert_to_ms(), 6.1): cm_loop.sh measures that on it and
 * then sets huge_timeouts=0.
 */
static bool huge_timeouts = true;
module_param(huge_timeouts, bool, 0444);
MODULE_PARM_DESC(huge_timeouts, "REQ with times beyond 31 (the in-tree ib_cm retries in ms)");
MODULE_PARM_DESC(dev, "the RDMA device to test on");

#define CT_PORT		1
/* How long an expected event may take in a slow (TCG) guest. */
#define CT_WAIT		(15 * HZ)
/* How long to watch for an event that must not come. */
#define CT_QUIET	(HZ / 2)
#define CT_MANY		32
#define CT_NR_CASES	19
/* Service IDs of the cases: none of them is IB_CM_ASSIGN_SERVICE_ID's. */
#define CT_SID(n)	cpu_to_be64(0x0000000000c37000ULL + (n))
#define CT_EVENTS	(IB_CM_SIDR_REP_RECEIVED + 1)
#define CT_RING		16

/* One recorded event. */
struct ct_ev {
	enum ib_cm_event_type type;
	struct ib_cm_id *id;
	struct ib_cm_id *listen_id;
	int status;		/* rej reason, send status, SIDR status */
	u32 qpn;		/* remote_qpn, SIDR qpn */
	u32 psn;		/* starting_psn; SIDR qkey; MRA timeout */
	__be64 service_id;
	u8 pdata[8];
};

/* An endpoint: the context of one id (or of a listener's children). */
struct ct_ep {
	const char *name;
	spinlock_t lock;		/* ring, head, tail */
	wait_queue_head_t wq;
	struct ct_ev ring[CT_RING];
	unsigned int head, tail;
	atomic_t count[CT_EVENTS];
	/* The id of its latest REQ/SIDR_REQ (passive side), or ours. */
	struct ib_cm_id *id;
	/*
	 * Every id a listener handed to it, so that none outlives its case
	 * (a repeated REQ may bring a new one): ct_destroy() takes one out,
	 * ct_ep_release() destroys the rest.
	 */
	struct ib_cm_id *ids[CT_MANY];
	atomic_t nr_ids;
	/* Listener: whose context a request's new id gets (else its own). */
	struct ct_ep *child;
	/* The handler returns non-zero (destroy) for this event type. */
	int destroy_on;
	/* Many connections: answer from the handler. */
	bool automatic;
	u32 auto_qpn;
};

static struct {
	struct ib_device *dev;
	const struct ib_gid_attr *gid_attr;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	struct ib_pd *pd;
	struct ib_cq *cq_a, *cq_b;
	struct ib_qp *qa, *qb;
	void *buf_a, *buf_b;
	u64 dma_a, dma_b;
} ct;

/* The endpoints of the cases after the first connection (one at a time). */
static struct ct_ep ct_eps[3];

/* ------------------------------------------------------------------ */
/* Endpoints and the handler                                           */

static void ct_ep_init(struct ct_ep *ep, const char *name)
{
	int i;

	memset(ep, 0, sizeof(*ep));
	ep->name = name;
	spin_lock_init(&ep->lock);
	init_waitqueue_head(&ep->wq);
	for (i = 0; i < CT_EVENTS; i++)
		atomic_set(&ep->count[i], 0);
	atomic_set(&ep->nr_ids, 0);
	ep->destroy_on = -1;
}

static void ct_record(struct ct_ep *ep, struct ib_cm_id *id,
		      const struct ib_cm_event *e)
{
	struct ct_ev ev = { .type = e->event, .id = id };
	/* Only a received message has data: stock leaves it unset else. */
	bool pdata = true;

	switch (e->event) {
	case IB_CM_REQ_RECEIVED:
		ev.listen_id = e->param.req_rcvd.listen_id;
		ev.qpn = e->param.req_rcvd.remote_qpn;
		ev.psn = e->param.req_rcvd.starting_psn;
		ev.service_id = id->service_id;
		break;
	case IB_CM_REP_RECEIVED:
		ev.qpn = e->param.rep_rcvd.remote_qpn;
		ev.psn = e->param.rep_rcvd.starting_psn;
		break;
	case IB_CM_REJ_RECEIVED:
		ev.status = e->param.rej_rcvd.reason;
		break;
	case IB_CM_MRA_RECEIVED:
		ev.psn = e->param.mra_rcvd.service_timeout;
		break;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
	case IB_CM_LAP_ERROR:
	case IB_CM_SIDR_REQ_ERROR:
		ev.status = e->param.send_status;
		pdata = false;
		break;
	case IB_CM_USER_ESTABLISHED:
	case IB_CM_TIMEWAIT_EXIT:
		pdata = false;
		break;
	case IB_CM_SIDR_REQ_RECEIVED:
		ev.listen_id = e->param.sidr_req_rcvd.listen_id;
		ev.service_id = e->param.sidr_req_rcvd.service_id;
		break;
	case IB_CM_SIDR_REP_RECEIVED:
		ev.status = e->param.sidr_rep_rcvd.status;
		ev.qpn = e->param.sidr_rep_rcvd.qpn;
		ev.psn = e->param.sidr_rep_rcvd.qkey;
		break;
	default:
		break;
	}
	if (pdata && e->private_data)
		memcpy(ev.pdata, e->private_data, sizeof(ev.pdata));

	spin_lock(&ep->lock);
	if (ep->head - ep->tail < CT_RING)
		ep->ring[ep->head++ % CT_RING] = ev;
	spin_unlock(&ep->lock);
	if (e->event < CT_EVENTS)
		atomic_inc(&ep->count[e->event]);
	wake_up_all(&ep->wq);
}

/* Many connections: the passive side accepts, the active side confirms. */
static void ct_answer(struct ib_cm_id *id, const struct ib_cm_event *e,
		      struct ct_ep *ep, int n)
{
	struct ib_cm_rep_param rep = {
		.starting_psn = 0x100,
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
	};

	switch (e->event) {
	case IB_CM_REQ_RECEIVED:
		rep.qp_num = ep->auto_qpn + n;
		ib_send_cm_rep(id, &rep);
		break;
	case IB_CM_REP_RECEIVED:
		ib_send_cm_rtu(id, NULL, 0);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		break;
	default:
		break;
	}
}

static int ct_handler(struct ib_cm_id *id, const struct ib_cm_event *e)
{
	struct ct_ep *ep = id->context;
	int n = 0;

	if (e->event == IB_CM_REQ_RECEIVED ||
	    e->event == IB_CM_SIDR_REQ_RECEIVED) {
		/* A new id: it gets the listener's child endpoint. */
		if (ep->child)
			ep = ep->child;
		id->context = ep;
		if (e->event == ep->destroy_on) {
			ep->id = NULL;
		} else {
			n = atomic_inc_return(&ep->nr_ids) - 1;
			if (n < CT_MANY)
				WRITE_ONCE(ep->ids[n], id);
			else
				ktap_diag("%s: more than %d ids", ep->name,
					  CT_MANY);
			ep->id = id;
		}
	}
	if (ep->automatic)
		ct_answer(id, e, ep, n);
	ct_record(ep, id, e);
	return e->event == ep->destroy_on;
}

/* Waits for the next event of @ep and checks its type. */
static int ct_expect(struct ct_ep *ep, enum ib_cm_event_type type,
		     struct ct_ev *out)
{
	struct ct_ev ev;
	long left;

	left = wait_event_timeout(ep->wq, READ_ONCE(ep->head) != ep->tail,
				  CT_WAIT);
	if (!left) {
		ktap_diag("%s: no event in %d s (wanted %d)", ep->name,
			  CT_WAIT / HZ, type);
		return -ETIMEDOUT;
	}
	spin_lock(&ep->lock);
	ev = ep->ring[ep->tail++ % CT_RING];
	spin_unlock(&ep->lock);
	if (out)
		*out = ev;
	if (KTAP_BAD(ev.type == type, "%s: event %d, wanted %d (status %d)",
		     ep->name, ev.type, type, ev.status))
		return -EINVAL;
	return 0;
}

/* No event comes for @ep for a while. */
static int ct_quiet(struct ct_ep *ep)
{
	wait_event_timeout(ep->wq, READ_ONCE(ep->head) != ep->tail, CT_QUIET);
	if (KTAP_BAD(ep->head == ep->tail, "%s: unexpected event %d", ep->name,
		     ep->ring[ep->tail % CT_RING].type))
		return -EINVAL;
	return 0;
}

static int ct_wait_count(struct ct_ep *ep, enum ib_cm_event_type type, int n)
{
	if (!wait_event_timeout(ep->wq, atomic_read(&ep->count[type]) >= n,
				CT_WAIT)) {
		ktap_diag("%s: %d of %d events %d", ep->name,
			  atomic_read(&ep->count[type]), n, type);
		return -ETIMEDOUT;
	}
	return 0;
}

static struct ib_cm_id *ct_create(struct ct_ep *ep)
{
	struct ib_cm_id *id = ib_create_cm_id(ct.dev, ct_handler, ep);

	if (IS_ERR(id)) {
		ktap_diag("ib_create_cm_id: %ld", PTR_ERR(id));
		return NULL;
	}
	ep->id = id;
	return id;
}

static void ct_destroy(struct ib_cm_id **idp)
{
	struct ib_cm_id *id = *idp;
	struct ct_ep *ep;
	int i, n;

	*idp = NULL;
	if (IS_ERR_OR_NULL(id))
		return;
	ep = id->context;
	n = min(atomic_read(&ep->nr_ids), CT_MANY);
	for (i = 0; i < n; i++)
		cmpxchg(&ep->ids[i], id, NULL);
	ib_destroy_cm_id(id);
}

/* Destroys the ids a listener handed to @ep: call with the listener gone. */
static void ct_ep_release(struct ct_ep *ep)
{
	struct ib_cm_id *id;
	int i, n;

	n = min(atomic_read(&ep->nr_ids), CT_MANY);
	for (i = 0; i < n; i++) {
		id = xchg(&ep->ids[i], NULL);
		if (id)
			ib_destroy_cm_id(id);
	}
	ep->id = NULL;
}

/* ------------------------------------------------------------------ */
/* Paths and requests                                                  */

/* The device's RoCEv2 GID (an IPv4 one if there is one) and its MAC. */
static int ct_find_gid(void)
{
	const struct ib_gid_attr *attr, *best = NULL;
	u16 vlan;
	int i;

	for (i = 0; i < 32; i++) {
		attr = rdma_get_gid_attr(ct.dev, CT_PORT, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP ||
		    (best && !ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw))) {
			rdma_put_gid_attr(attr);
			continue;
		}
		if (best)
			rdma_put_gid_attr(best);
		best = attr;
	}
	if (!best)
		return -ENOENT;
	ct.gid_attr = best;
	ct.gid = best->gid;
	return rdma_read_gid_l2_fields(best, &vlan, ct.mac);
}

/* A resolved RoCEv2 path from the device to itself. */
static void ct_path(struct sa_path_rec *path)
{
	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	path->sgid = ct.gid;
	path->dgid = ct.gid;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu = IB_MTU_1024;
	path->mtu_selector = IB_SA_EQ;
	path->rate = IB_RATE_10_GBPS;
	path->rate_selector = IB_SA_EQ;
	path->hop_limit = 64;
	path->packet_life_time = 10;
	path->packet_life_time_selector = IB_SA_EQ;
	path->reversible = 1;
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, ct.mac);
}

static const u8 ct_req_pdata[8] = "req-pd!";
static const u8 ct_rep_pdata[8] = "rep-pd!";

struct ct_req {
	struct sa_path_rec path;
	struct ib_cm_req_param p;
};

static void ct_req_init(struct ct_req *r, __be64 sid, u32 qpn, u32 psn)
{
	ct_path(&r->path);
	memset(&r->p, 0, sizeof(r->p));
	r->p.primary_path = &r->path;
	r->p.ppath_sgid_attr = ct.gid_attr;
	r->p.service_id = sid;
	r->p.qp_num = qpn;
	r->p.qp_type = IB_QPT_RC;
	r->p.starting_psn = psn;
	r->p.private_data = ct_req_pdata;
	r->p.private_data_len = sizeof(ct_req_pdata);
	r->p.responder_resources = 1;
	r->p.initiator_depth = 1;
	/* 4 s per try: slow guests answer in time. */
	r->p.remote_cm_response_timeout = 20;
	r->p.local_cm_response_timeout = 20;
	r->p.flow_control = 1;
	r->p.retry_count = 7;
	r->p.rnr_retry_count = 7;
	r->p.max_cm_retries = 3;
}

static void ct_rep_init(struct ib_cm_rep_param *rep, u32 qpn, u32 psn)
{
	memset(rep, 0, sizeof(*rep));
	rep->qp_num = qpn;
	rep->starting_psn = psn;
	rep->private_data = ct_rep_pdata;
	rep->private_data_len = sizeof(ct_rep_pdata);
	rep->responder_resources = 1;
	rep->initiator_depth = 1;
	rep->rnr_retry_count = 7;
}

/* ------------------------------------------------------------------ */
/* QPs                                                                 */

static int ct_qps_create(void)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			.max_send_wr = 8,
			.max_recv_wr = 8,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};

	ct.pd = ib_alloc_pd(ct.dev, 0);
	if (IS_ERR(ct.pd))
		return PTR_ERR(ct.pd);
	ct.cq_a = ib_alloc_cq(ct.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(ct.cq_a))
		return PTR_ERR(ct.cq_a);
	ct.cq_b = ib_alloc_cq(ct.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(ct.cq_b))
		return PTR_ERR(ct.cq_b);
	attr.send_cq = ct.cq_a;
	attr.recv_cq = ct.cq_a;
	ct.qa = ib_create_qp(ct.pd, &attr);
	if (IS_ERR(ct.qa))
		return PTR_ERR(ct.qa);
	attr.send_cq = ct.cq_b;
	attr.recv_cq = ct.cq_b;
	ct.qb = ib_create_qp(ct.pd, &attr);
	if (IS_ERR(ct.qb))
		return PTR_ERR(ct.qb);

	ct.buf_a = kzalloc(PAGE_SIZE, GFP_KERNEL);
	ct.buf_b = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!ct.buf_a || !ct.buf_b)
		return -ENOMEM;
	ct.dma_a = ib_dma_map_single(ct.dev, ct.buf_a, PAGE_SIZE,
				     DMA_BIDIRECTIONAL);
	ct.dma_b = ib_dma_map_single(ct.dev, ct.buf_b, PAGE_SIZE,
				     DMA_BIDIRECTIONAL);
	return 0;
}

static void ct_qps_destroy(void)
{
	if (ct.dma_a)
		ib_dma_unmap_single(ct.dev, ct.dma_a, PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	if (ct.dma_b)
		ib_dma_unmap_single(ct.dev, ct.dma_b, PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	kfree(ct.buf_a);
	kfree(ct.buf_b);
	if (!IS_ERR_OR_NULL(ct.qa))
		ib_destroy_qp(ct.qa);
	if (!IS_ERR_OR_NULL(ct.qb))
		ib_destroy_qp(ct.qb);
	if (!IS_ERR_OR_NULL(ct.cq_a))
		ib_free_cq(ct.cq_a);
	if (!IS_ERR_OR_NULL(ct.cq_b))
		ib_free_cq(ct.cq_b);
	if (!IS_ERR_OR_NULL(ct.pd))
		ib_dealloc_pd(ct.pd);
	ct.pd = NULL;
	ct.cq_a = NULL;
	ct.cq_b = NULL;
	ct.qa = NULL;
	ct.qb = NULL;
	ct.buf_a = NULL;
	ct.buf_b = NULL;
	ct.dma_a = 0;
	ct.dma_b = 0;
}

/* The QP to @state with what ib_cm_init_qp_attr() says; attr returned. */
static int ct_modify(struct ib_cm_id *id, struct ib_qp *qp,
		     enum ib_qp_state state, struct ib_qp_attr *attr)
{
	int mask = 0, ret;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = state;
	ret = ib_cm_init_qp_attr(id, attr, &mask);
	if (ret) {
		ktap_diag("ib_cm_init_qp_attr(%d): %d", state, ret);
		return ret;
	}
	ret = ib_modify_qp(qp, attr, mask);
	if (ret)
		ktap_diag("ib_modify_qp(QP %u, %d, mask %#x): %d", qp->qp_num,
			  state, mask, ret);
	return ret;
}

static int ct_post_recv(struct ib_qp *qp, u64 dma)
{
	struct ib_sge sge = {
		.addr = dma, .length = 64, .lkey = ct.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(qp, &wr, NULL);
}

static int ct_post_send(struct ib_qp *qp, u64 dma)
{
	struct ib_sge sge = {
		.addr = dma, .length = 64, .lkey = ct.pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	return ib_post_send(qp, &wr, NULL);
}

/* Polls @cq until @n successful completions. */
static int ct_poll(struct ib_cq *cq, int n)
{
	unsigned long end = jiffies + CT_WAIT;
	struct ib_wc wc;

	while (n > 0) {
		if (ib_poll_cq(cq, 1, &wc) == 1) {
			if (KTAP_BAD(wc.status == IB_WC_SUCCESS, "wc status %d (%s)",
				     wc.status, ib_wc_status_msg(wc.status)))
				return -EIO;
			n--;
			continue;
		}
		if (time_after(jiffies, end)) {
			ktap_diag("%d completions missing", n);
			return -ETIMEDOUT;
		}
		usleep_range(1000, 2000);
	}
	return 0;
}

/* One message from @from's buffer into @to's. */
static int ct_transfer(struct ib_qp *from, u64 from_dma, void *from_buf,
		       struct ib_cq *from_cq, struct ib_qp *to, u64 to_dma,
		       void *to_buf, struct ib_cq *to_cq, u8 pattern)
{
	int ret;

	memset(from_buf, pattern, 64);
	memset(to_buf, 0, 64);
	ib_dma_sync_single_for_device(ct.dev, from_dma, 64, DMA_BIDIRECTIONAL);
	ret = ct_post_recv(to, to_dma) ?: ct_post_send(from, from_dma);
	if (ret) {
		ktap_diag("post: %d", ret);
		return ret;
	}
	ret = ct_poll(from_cq, 1) ?: ct_poll(to_cq, 1);
	if (ret)
		return ret;
	ib_dma_sync_single_for_cpu(ct.dev, to_dma, 64, DMA_BIDIRECTIONAL);
	if (KTAP_BAD(!memchr_inv(to_buf, pattern, 64), "data differs"))
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */

static int ct_ids_and_listen(void)
{
	struct ct_ep ep;
	struct ib_cm_id *a = NULL, *b = NULL, *s1, *s2, *s3;
	int ret = -EINVAL;

	ct_ep_init(&ep, "listen");
	a = ct_create(&ep);
	b = ct_create(&ep);
	if (!a || !b)
		goto out;
	if (KTAP_BAD(a->state == IB_CM_IDLE && a->local_id != b->local_id &&
		     a->remote_cm_qpn == 1 && a->device == ct.dev,
		     "state %d ids %#x %#x", a->state, be32_to_cpu(a->local_id),
		     be32_to_cpu(b->local_id)))
		goto out;
	ret = ib_cm_listen(a, CT_SID(1));
	if (KTAP_BAD(!ret && a->state == IB_CM_LISTEN, "listen: %d", ret))
		goto out;
	ret = ib_cm_listen(b, CT_SID(1));
	if (KTAP_BAD(ret == -EBUSY, "second listen: %d", ret))
		goto fail;
	ret = ib_cm_listen(a, CT_SID(2));
	if (KTAP_BAD(ret == -EINVAL, "listen twice: %d", ret))
		goto fail;
	/* IB_CM_ASSIGN_SERVICE_ID hands out IDs in its own range. */
	ret = ib_cm_listen(b, IB_CM_ASSIGN_SERVICE_ID);
	if (KTAP_BAD(!ret && (b->service_id & IB_SERVICE_ID_AGN_MASK) ==
			   IB_CM_ASSIGN_SERVICE_ID, "assign: %d %#llx", ret,
		     be64_to_cpu(b->service_id)))
		goto fail;
	ct_destroy(&b);
	b = ct_create(&ep);
	if (!b)
		goto out;
	ret = ib_cm_listen(b, IB_CM_ASSIGN_SERVICE_ID | cpu_to_be64(5));
	if (KTAP_BAD(ret == -EINVAL, "reserved service ID: %d", ret))
		goto fail;

	/* insert_listen: one id per handler and service ID, shared. */
	s1 = ib_cm_insert_listen(ct.dev, ct_handler, CT_SID(3));
	if (KTAP_BAD(!IS_ERR(s1), "insert_listen: %ld", PTR_ERR(s1)))
		goto fail;
	s2 = ib_cm_insert_listen(ct.dev, ct_handler, CT_SID(3));
	s3 = ib_cm_insert_listen(ct.dev, ct_handler, CT_SID(1));
	ret = 0;
	if (KTAP_BAD(s2 == s1, "not shared: %p %p", s1, s2) ||
	    KTAP_BAD(IS_ERR(s3) && PTR_ERR(s3) == -EINVAL,
		     "shared a consumer's listener: %ld", PTR_ERR(s3)))
		ret = -EINVAL;
	if (!IS_ERR(s2))
		ib_destroy_cm_id(s2);
	if (!IS_ERR(s3))
		ib_destroy_cm_id(s3);
	/* Still listening after one of the two shares went. */
	if (KTAP_BAD(s1->state == IB_CM_LISTEN, "state %d", s1->state))
		ret = -EINVAL;
	ib_destroy_cm_id(s1);
	goto out;
fail:
	ret = -EINVAL;
out:
	ct_destroy(&a);
	ct_destroy(&b);
	return ret;
}

static int ct_reject_msgs(void)
{
	if (KTAP_BAD(!strcmp(ibcm_reject_msg(IB_CM_REJ_CONSUMER_DEFINED),
			     "consumer defined"), "%s",
		     ibcm_reject_msg(IB_CM_REJ_CONSUMER_DEFINED)) ||
	    KTAP_BAD(!strcmp(ibcm_reject_msg(IB_CM_REJ_INVALID_SERVICE_ID),
			     "invalid service ID"), "%s",
		     ibcm_reject_msg(IB_CM_REJ_INVALID_SERVICE_ID)) ||
	    KTAP_BAD(!strcmp(ibcm_reject_msg(34), "unrecognized reason"), "%s",
		     ibcm_reject_msg(34)) ||
	    KTAP_BAD(!strcmp(ibcm_reject_msg(-1), "unrecognized reason"), "%s",
		     ibcm_reject_msg(-1)))
		return -EINVAL;
	return 0;
}

static int ct_bad_calls(void)
{
	static const u8 big[IB_CM_REQ_PRIVATE_DATA_SIZE + 1];
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };
	/* Off the stack: a KASAN build's frame would pass 2 KiB. */
	struct {
		struct ct_req r;
		struct ct_ep ep;
	} *b;
	struct ib_cm_id *id;
	int mask, ret = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ct_ep_init(&b->ep, "bad");
	id = ct_create(&b->ep);
	if (!id) {
		kfree(b);
		return -ENOMEM;
	}
	ct_req_init(&b->r, CT_SID(9), 0x1001, 1);
	b->r.p.private_data = big;
	b->r.p.private_data_len = sizeof(big);
	if (KTAP_BAD(ib_send_cm_req(id, &b->r.p) == -EINVAL,
		     "oversized REQ data"))
		ret = -EINVAL;
	ct_req_init(&b->r, CT_SID(9), 0x1001, 1);
	b->r.p.qp_type = IB_QPT_UD;
	if (KTAP_BAD(ib_send_cm_req(id, &b->r.p) == -EINVAL, "UD REQ"))
		ret = -EINVAL;
	if (KTAP_BAD(ib_cm_init_qp_attr(id, &attr, &mask) == -EINVAL,
		     "RTR attrs of an IDLE id"))
		ret = -EINVAL;
	if (KTAP_BAD(ib_send_cm_rtu(id, NULL, 0) == -EINVAL, "RTU in IDLE") ||
	    KTAP_BAD(ib_send_cm_dreq(id, NULL, 0) == -EINVAL, "DREQ in IDLE") ||
	    KTAP_BAD(ib_send_cm_drep(id, NULL, 0) == -EINVAL, "DREP in IDLE") ||
	    KTAP_BAD(ib_send_cm_mra(id, 10, NULL, 0) == -EINVAL, "MRA in IDLE") ||
	    KTAP_BAD(ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				    NULL, 0) == -EINVAL, "REJ in IDLE") ||
	    KTAP_BAD(ib_cm_notify(id, IB_EVENT_COMM_EST) == -EINVAL,
		     "COMM_EST in IDLE") ||
	    KTAP_BAD(ib_cm_notify(id, IB_EVENT_QP_FATAL) == -EINVAL,
		     "notify QP_FATAL") ||
	    KTAP_BAD(id->state == IB_CM_IDLE, "state %d", id->state))
		ret = -EINVAL;
	ct_destroy(&id);
	kfree(b);
	return ret;
}

/* The connection of the QP cases: A (active) and P (passive, on L). */
static struct ct_ep ct_l, ct_a, ct_p;
static struct ib_cm_id *ct_lid, *ct_aid;

static int ct_connect_qps(void)
{
	struct ib_cm_rep_param rep;
	struct ib_qp_attr attr;
	struct ct_req r;
	struct ct_ev ev;
	int ret;

	ct_ep_init(&ct_l, "listener");
	ct_ep_init(&ct_a, "active");
	ct_ep_init(&ct_p, "passive");
	ct_l.child = &ct_p;
	ct_lid = ct_create(&ct_l);
	ct_aid = ct_create(&ct_a);
	if (!ct_lid || !ct_aid)
		return -ENOMEM;
	ret = ib_cm_listen(ct_lid, CT_SID(10));
	if (ret)
		return ret;

	ct_req_init(&r, CT_SID(10), ct.qa->qp_num, 0x1234);
	ret = ib_send_cm_req(ct_aid, &r.p);
	if (KTAP_BAD(!ret && ct_aid->state == IB_CM_REQ_SENT, "REQ: %d", ret))
		return -EINVAL;
	/* The active QP may go to INIT once the REQ is out. */
	ret = ct_modify(ct_aid, ct.qa, IB_QPS_INIT, &attr);
	if (ret)
		return ret;

	ret = ct_expect(&ct_p, IB_CM_REQ_RECEIVED, &ev);
	if (ret)
		return ret;
	if (KTAP_BAD(ev.listen_id == ct_lid && ev.qpn == ct.qa->qp_num &&
		     ev.psn == 0x1234 && ev.service_id == CT_SID(10) &&
		     !memcmp(ev.pdata, ct_req_pdata, sizeof(ev.pdata)),
		     "listen %p/%p qpn %#x psn %#x", ev.listen_id, ct_lid,
		     ev.qpn, ev.psn) ||
	    KTAP_BAD(ct_p.id && ct_p.id->state == IB_CM_REQ_RCVD &&
		     ct_p.id->remote_id == ct_aid->local_id,
		     "passive id state %d", ct_p.id ? ct_p.id->state : -1))
		return -EINVAL;

	/*
	 * A starting PSN is what its sender's receive queue expects: the
	 * passive side's is known once its REP is out.
	 */
	ret = ct_modify(ct_p.id, ct.qb, IB_QPS_INIT, &attr);
	if (ret)
		return ret;
	ct_rep_init(&rep, ct.qb->qp_num, 0x5678);
	ret = ib_send_cm_rep(ct_p.id, &rep);
	if (KTAP_BAD(!ret && ct_p.id->state == IB_CM_REP_SENT, "REP: %d", ret))
		return -EINVAL;
	ret = ct_modify(ct_p.id, ct.qb, IB_QPS_RTR, &attr);
	if (ret)
		return ret;
	if (KTAP_BAD(attr.rq_psn == 0x5678 && attr.dest_qp_num == ct.qa->qp_num,
		     "passive rq_psn %#x dest %#x", attr.rq_psn,
		     attr.dest_qp_num))
		return -EINVAL;
	ret = ct_modify(ct_p.id, ct.qb, IB_QPS_RTS, &attr);
	if (ret)
		return ret;
	if (KTAP_BAD(attr.sq_psn == 0x1234, "passive sq_psn %#x", attr.sq_psn))
		return -EINVAL;

	ret = ct_expect(&ct_a, IB_CM_REP_RECEIVED, &ev);
	if (ret)
		return ret;
	if (KTAP_BAD(ev.qpn == ct.qb->qp_num && ev.psn == 0x5678 &&
		     !memcmp(ev.pdata, ct_rep_pdata, sizeof(ev.pdata)) &&
		     ct_aid->state == IB_CM_REP_RCVD &&
		     ct_aid->remote_id == ct_p.id->local_id,
		     "qpn %#x psn %#x state %d", ev.qpn, ev.psn, ct_aid->state))
		return -EINVAL;
	ret = ct_modify(ct_aid, ct.qa, IB_QPS_RTR, &attr);
	if (ret)
		return ret;
	/* Our receive queue starts at what our REQ advertised. */
	if (KTAP_BAD(attr.rq_psn == 0x1234 && attr.dest_qp_num == ct.qb->qp_num,
		     "active rq_psn %#x dest %#x", attr.rq_psn,
		     attr.dest_qp_num))
		return -EINVAL;
	ret = ct_modify(ct_aid, ct.qa, IB_QPS_RTS, &attr);
	if (ret)
		return ret;
	if (KTAP_BAD(attr.sq_psn == 0x5678, "active sq_psn %#x", attr.sq_psn))
		return -EINVAL;
	ret = ib_send_cm_rtu(ct_aid, NULL, 0);
	if (KTAP_BAD(!ret && ct_aid->state == IB_CM_ESTABLISHED, "RTU: %d", ret))
		return -EINVAL;
	ret = ct_expect(&ct_p, IB_CM_RTU_RECEIVED, NULL);
	if (ret)
		return ret;
	if (KTAP_BAD(ct_p.id->state == IB_CM_ESTABLISHED, "passive state %d",
		     ct_p.id->state))
		return -EINVAL;
	return 0;
}

/*
 * The PSN checks above are the stock ib_cm's semantics (measured: this
 * case passes on --stock): each side's rq_psn is the starting PSN it
 * advertised, its sq_psn the one the peer advertised.
 */

static int ct_data(void)
{
	return ct_transfer(ct.qa, ct.dma_a, ct.buf_a, ct.cq_a, ct.qb,
			   ct.dma_b, ct.buf_b, ct.cq_b, 0xa5) ?:
	       ct_transfer(ct.qb, ct.dma_b, ct.buf_b, ct.cq_b, ct.qa,
			   ct.dma_a, ct.buf_a, ct.cq_a, 0x5a);
}

static int ct_disconnect(void)
{
	int ret;

	ret = ib_send_cm_dreq(ct_aid, NULL, 0);
	if (KTAP_BAD(!ret && ct_aid->state == IB_CM_DREQ_SENT, "DREQ: %d", ret))
		return -EINVAL;
	ret = ct_expect(&ct_p, IB_CM_DREQ_RECEIVED, NULL);
	if (ret)
		return ret;
	if (KTAP_BAD(ct_p.id->state == IB_CM_DREQ_RCVD, "state %d",
		     ct_p.id->state))
		return -EINVAL;
	ret = ib_send_cm_drep(ct_p.id, NULL, 0);
	if (KTAP_BAD(!ret && ct_p.id->state == IB_CM_TIMEWAIT, "DREP: %d", ret))
		return -EINVAL;
	ret = ct_expect(&ct_a, IB_CM_DREP_RECEIVED, NULL);
	if (ret)
		return ret;
	/* (Or already out of it: a timewait lasts only ~128 ms here.) */
	if (KTAP_BAD(ct_aid->state == IB_CM_TIMEWAIT ||
		     ct_aid->state == IB_CM_IDLE, "state %d", ct_aid->state))
		return -EINVAL;
	/* Both leave timewait on their own, back to IDLE. */
	ret = ct_expect(&ct_a, IB_CM_TIMEWAIT_EXIT, NULL) ?:
	      ct_expect(&ct_p, IB_CM_TIMEWAIT_EXIT, NULL);
	if (ret)
		return ret;
	if (KTAP_BAD(ct_aid->state == IB_CM_IDLE && ct_p.id->state == IB_CM_IDLE,
		     "states %d %d", ct_aid->state, ct_p.id->state))
		return -EINVAL;
	ct_destroy(&ct_p.id);
	return 0;
}

/*
 * After timewait the active id sends a REQ again, and the passive side
 * sees it.  As on stock, the id keeps the remote ID of its first
 * connection, so the REJ or REP answering this REQ (which name no remote
 * ID yet) would not find it: it gives up instead, and its REJ (timeout)
 * reaches the passive side.  A new id is then refused, with a reason and
 * data.
 */
static int ct_reuse_and_reject(void)
{
	static const u8 why[8] = "go away";
	struct ct_req r;
	struct ct_ev ev;
	int ret;

	ct_req_init(&r, CT_SID(10), ct.qa->qp_num + 1000, 0x42);
	ret = ib_send_cm_req(ct_aid, &r.p);
	if (KTAP_BAD(!ret && ct_aid->state == IB_CM_REQ_SENT,
		     "REQ on a reused id: %d", ret))
		return -EINVAL;
	ret = ct_expect(&ct_p, IB_CM_REQ_RECEIVED, &ev);
	if (ret)
		return ret;
	if (KTAP_BAD(ev.qpn == ct.qa->qp_num + 1000 && ev.psn == 0x42 &&
		     ct_p.id->remote_id == ct_aid->local_id &&
		     ct_p.id->state == IB_CM_REQ_RCVD, "qpn %#x psn %#x state %d",
		     ev.qpn, ev.psn, ct_p.id->state))
		return -EINVAL;
	ct_destroy(&ct_aid);
	ret = ct_expect(&ct_p, IB_CM_REJ_RECEIVED, &ev);
	if (ret)
		return ret;
	if (KTAP_BAD(ev.status == IB_CM_REJ_TIMEOUT &&
		     ct_p.id->state == IB_CM_IDLE, "reason %d state %d",
		     ev.status, ct_p.id->state))
		return -EINVAL;
	ct_destroy(&ct_p.id);

	ct_aid = ct_create(&ct_a);
	if (!ct_aid)
		return -ENOMEM;
	ct_req_init(&r, CT_SID(10), ct.qa->qp_num + 1001, 0x43);
	ret = ib_send_cm_req(ct_aid, &r.p);
	if (KTAP_BAD(!ret, "REQ on a new id: %d", ret))
		return -EINVAL;
	ret = ct_expect(&ct_p, IB_CM_REQ_RECEIVED, NULL);
	if (ret)
		return ret;
	ret = ib_send_cm_rej(ct_p.id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			     why, sizeof(why));
	if (KTAP_BAD(!ret && ct_p.id->state == IB_CM_IDLE, "REJ: %d", ret))
		return -EINVAL;
	ret = ct_expect(&ct_a, IB_CM_REJ_RECEIVED, &ev);
	if (ret)
		return ret;
	if (KTAP_BAD(ev.status == IB_CM_REJ_CONSUMER_DEFINED &&
		     !memcmp(ev.pdata, why, sizeof(why)) &&
		     ct_aid->state == IB_CM_IDLE, "reason %d state %d",
		     ev.status, ct_aid->state))
		return -EINVAL;
	ct_destroy(&ct_p.id);
	return 0;
}

static int ct_no_listener(void)
{
	struct ct_req r;
	struct ct_ev ev;
	int ret;

	if (KTAP_BAD(ct_aid, "no active id"))
		return -EINVAL;
	ct_req_init(&r, CT_SID(11), 0x2001, 1);
	ret = ib_send_cm_req(ct_aid, &r.p);
	if (KTAP_BAD(!ret, "REQ: %d", ret))
		return -EINVAL;
	ret = ct_expect(&ct_a, IB_CM_REJ_RECEIVED, &ev);
	if (ret)
		return ret;
	if (KTAP_BAD(ev.status == IB_CM_REJ_INVALID_SERVICE_ID &&
		     ct_aid->state == IB_CM_IDLE, "reason %d state %d", ev.status,
		     ct_aid->state))
		return -EINVAL;
	return 0;
}

/* The passive side never answers: the REQ is retried, then it times out. */
static int ct_timeout(void)
{
	struct ct_ep *l = &ct_eps[0], *p = &ct_eps[1], *a = &ct_eps[2];
	struct ib_cm_id *lid, *aid;
	struct ct_req r;
	struct ct_ev ev;
	int ret = -EINVAL;

	ct_ep_init(l, "t-listener");
	ct_ep_init(p, "t-passive");
	ct_ep_init(a, "t-active");
	l->child = p;
	lid = ct_create(l);
	aid = ct_create(a);
	if (!lid || !aid)
		goto out;
	if (ib_cm_listen(lid, CT_SID(12)))
		goto out;
	ct_req_init(&r, CT_SID(12), 0x3001, 1);
	/* 4.096 us * 2^14 = 64 ms per try, two retries. */
	r.p.remote_cm_response_timeout = 14;
	r.p.max_cm_retries = 2;
	if (ib_send_cm_req(aid, &r.p))
		goto out;
	if (ct_expect(p, IB_CM_REQ_RECEIVED, NULL))
		goto out;
	/* The listener goes; the request it passed on stays unanswered. */
	ct_destroy(&lid);
	if (ct_expect(a, IB_CM_REQ_ERROR, &ev))
		goto out;
	if (KTAP_BAD(ev.status == IB_WC_RESP_TIMEOUT_ERR &&
		     aid->state == IB_CM_IDLE, "status %d state %d", ev.status,
		     aid->state))
		goto out;
	/* The repeats reached the passive id, which has no answer yet. */
	if (KTAP_BAD(p->id && p->id->state == IB_CM_REQ_RCVD, "passive state %d",
		     p->id ? p->id->state : -1) || ct_quiet(p))
		goto out;
	ret = 0;
out:
	/* The passive id's REJ finds no active id: nothing happens. */
	ct_destroy(&lid);
	ct_destroy(&aid);
	ct_ep_release(p);
	return ret;
}

/*
 * Times beyond the IBA's 5-bit exponents mean "as long as possible": a
 * path's packet life time of 40 (6 bits; user space sets up to 63
 * through rdma_ucm's IB_PATH option) and a remote response timeout of 40
 * must not wrap the CM's millisecond shift around to a few milliseconds
 * (1 << 32 is 1 on x86).  Unanswered, such a REQ and, after an MRA with
 * service timeout 0, its extended wait are not retried within CT_QUIET.
 */
static int ct_huge_timeouts(void)
{
	struct ct_ep *l = &ct_eps[0], *p = &ct_eps[1], *a = &ct_eps[2];
	struct ib_cm_id *lid, *aid;
	struct ct_req r;
	int ret = -EINVAL;

	ct_ep_init(l, "h-listener");
	ct_ep_init(p, "h-passive");
	ct_ep_init(a, "h-active");
	l->child = p;
	lid = ct_create(l);
	aid = ct_create(a);
	if (!lid || !aid || ib_cm_listen(lid, CT_SID(14)))
		goto out;
	ct_req_init(&r, CT_SID(14), 0x5001, 1);
	r.path.packet_life_time = 40;
	r.p.remote_cm_response_timeout = 40;
	r.p.max_cm_retries = 2;
	ret = ib_send_cm_req(aid, &r.p);
	if (KTAP_BAD(!ret, "REQ: %d", ret) ||
	    ct_expect(p, IB_CM_REQ_RECEIVED, NULL))
		goto fail;
	/* Unanswered: no REQ_ERROR, no repeat of the REQ. */
	if (ct_quiet(a) || ct_quiet(p))
		goto fail;
	if (KTAP_BAD(aid->state == IB_CM_REQ_SENT, "active state %d",
		     aid->state))
		goto fail;
	ret = ib_send_cm_mra(p->id, 0, NULL, 0);
	if (KTAP_BAD(!ret, "MRA: %d", ret) ||
	    ct_expect(a, IB_CM_MRA_RECEIVED, NULL))
		goto fail;
	/* The MRA's wait: service timeout plus the path's, still long. */
	if (ct_quiet(a) || ct_quiet(p))
		goto fail;
	if (KTAP_BAD(aid->state == IB_CM_MRA_REQ_RCVD, "active state %d",
		     aid->state))
		goto fail;
	ret = 0;
	goto out;
fail:
	ret = -EINVAL;
out:
	ct_destroy(&lid);
	ct_destroy(&aid);
	ct_ep_release(p);
	return ret;
}

/*
 * A connection over a path with packet life time 30: its timewait lasts
 * 2^31 * 4.096 us (2.4 hours).  Both ids are destroyed in TIMEWAIT; their
 * timewait entries stay queued on their timers.  cm_loop.sh then removes
 * rxe0 and unloads ib_cm, which reports entries that outlived the device.
 */
static int ct_long_timewait(void)
{
	struct ct_ep *l = &ct_eps[0], *p = &ct_eps[1], *a = &ct_eps[2];
	struct ib_cm_id *lid, *aid;
	struct ib_cm_rep_param rep;
	struct ct_req r;
	int ret = -EINVAL;

	ct_ep_init(l, "w-listener");
	ct_ep_init(p, "w-passive");
	ct_ep_init(a, "w-active");
	l->child = p;
	lid = ct_create(l);
	aid = ct_create(a);
	if (!lid || !aid || ib_cm_listen(lid, CT_SID(15)))
		goto out;
	ct_req_init(&r, CT_SID(15), 0x6001, 1);
	r.path.packet_life_time = 30;
	ct_rep_init(&rep, 0x6002, 2);
	if (ib_send_cm_req(aid, &r.p) ||
	    ct_expect(p, IB_CM_REQ_RECEIVED, NULL) ||
	    ib_send_cm_rep(p->id, &rep) ||
	    ct_expect(a, IB_CM_REP_RECEIVED, NULL) ||
	    ib_send_cm_rtu(aid, NULL, 0) ||
	    ct_expect(p, IB_CM_RTU_RECEIVED, NULL) ||
	    ib_send_cm_dreq(aid, NULL, 0) ||
	    ct_expect(p, IB_CM_DREQ_RECEIVED, NULL) ||
	    ib_send_cm_drep(p->id, NULL, 0) ||
	    ct_expect(a, IB_CM_DREP_RECEIVED, NULL))
		goto fail;
	if (ct_quiet(a) || ct_quiet(p) ||
	    KTAP_BAD(aid->state == IB_CM_TIMEWAIT &&
		     p->id->state == IB_CM_TIMEWAIT, "states %d %d",
		     aid->state, p->id->state))
		goto fail;
	ret = 0;
	goto out;
fail:
	ret = -EINVAL;
out:
	ct_destroy(&lid);
	ct_destroy(&aid);
	ct_ep_release(p);
	return ret;
}

/*
 * MRA, then REP; COMM_EST before the RTU (the late RTU is no event);
 * a disconnect from the passive side.
 */
static int ct_mra_and_comm_est(void)
{
	struct ct_ep *l = &ct_eps[0], *p = &ct_eps[1], *a = &ct_eps[2];
	struct ib_cm_id *lid, *aid;
	struct ib_cm_rep_param rep;
	struct ct_req r;
	struct ct_ev ev;
	int ret = -EINVAL;

	ct_ep_init(l, "m-listener");
	ct_ep_init(p, "m-passive");
	ct_ep_init(a, "m-active");
	l->child = p;
	lid = ct_create(l);
	aid = ct_create(a);
	if (!lid || !aid || ib_cm_listen(lid, CT_SID(13)))
		goto out;
	ct_req_init(&r, CT_SID(13), 0x4001, 1);
	if (ib_send_cm_req(aid, &r.p) || ct_expect(p, IB_CM_REQ_RECEIVED, NULL))
		goto out;
	ret = ib_send_cm_mra(p->id, 18, NULL, 0);
	if (KTAP_BAD(!ret && p->id->state == IB_CM_MRA_REQ_SENT, "MRA: %d", ret))
		goto fail;
	if (ct_expect(a, IB_CM_MRA_RECEIVED, &ev))
		goto fail;
	if (KTAP_BAD(ev.psn == 18 && aid->state == IB_CM_MRA_REQ_RCVD,
		     "timeout %u state %d", ev.psn, aid->state))
		goto fail;
	ct_rep_init(&rep, 0x4002, 2);
	if (ib_send_cm_rep(p->id, &rep) || ct_expect(a, IB_CM_REP_RECEIVED, NULL))
		goto fail;
	ret = ib_cm_notify(p->id, IB_EVENT_COMM_EST);
	if (KTAP_BAD(!ret && p->id->state == IB_CM_ESTABLISHED, "COMM_EST: %d",
		     ret))
		goto fail;
	if (ct_expect(p, IB_CM_USER_ESTABLISHED, NULL))
		goto fail;
	ret = ib_cm_notify(p->id, IB_EVENT_COMM_EST);
	if (KTAP_BAD(ret == -EISCONN, "second COMM_EST: %d", ret))
		goto fail;
	if (ib_send_cm_rtu(aid, NULL, 0) || ct_quiet(p))
		goto fail;
	/* This time the passive side disconnects. */
	ret = ib_send_cm_dreq(p->id, NULL, 0);
	if (KTAP_BAD(!ret, "passive DREQ: %d", ret))
		goto fail;
	if (ct_expect(a, IB_CM_DREQ_RECEIVED, NULL) ||
	    ib_send_cm_drep(aid, NULL, 0) ||
	    ct_expect(p, IB_CM_DREP_RECEIVED, NULL) ||
	    ct_expect(a, IB_CM_TIMEWAIT_EXIT, NULL) ||
	    ct_expect(p, IB_CM_TIMEWAIT_EXIT, NULL))
		goto fail;
	ret = 0;
	goto out;
fail:
	ret = -EINVAL;
out:
	ct_destroy(&lid);
	ct_destroy(&aid);
	ct_ep_release(p);
	return ret;
}

static int ct_sidr(void)
{
	static const u8 ask[8] = "sidr-q", answer[8] = "sidr-a";
	struct ct_ep *l = &ct_eps[0], *p = &ct_eps[1], *a = &ct_eps[2];
	struct ib_cm_id *lid, *aid;
	struct sa_path_rec path;
	struct ib_cm_sidr_req_param req = {
		.path = &path,
		.timeout_ms = 2000,
		.private_data = ask,
		.private_data_len = sizeof(ask),
		.max_cm_retries = 3,
	};
	struct ib_cm_sidr_rep_param rep = {
		.qp_num = 0x123,
		.qkey = 0x11111111,
		.status = IB_SIDR_SUCCESS,
		.private_data = answer,
		.private_data_len = sizeof(answer),
	};
	struct ct_ev ev;
	int ret = -EINVAL;

	ct_path(&path);
	req.sgid_attr = ct.gid_attr;
	ct_ep_init(l, "s-listener");
	ct_ep_init(p, "s-passive");
	ct_ep_init(a, "s-active");
	l->child = p;
	lid = ct_create(l);
	aid = ct_create(a);
	if (!lid || !aid || ib_cm_listen(lid, CT_SID(14)))
		goto out;

	req.service_id = CT_SID(14);
	ret = ib_send_cm_sidr_req(aid, &req);
	if (KTAP_BAD(!ret && aid->state == IB_CM_SIDR_REQ_SENT, "SIDR_REQ: %d",
		     ret))
		goto fail;
	if (ct_expect(p, IB_CM_SIDR_REQ_RECEIVED, &ev))
		goto fail;
	if (KTAP_BAD(ev.listen_id == lid && ev.service_id == CT_SID(14) &&
		     !memcmp(ev.pdata, ask, sizeof(ask)) &&
		     p->id->state == IB_CM_SIDR_REQ_RCVD, "listen %p/%p state %d",
		     ev.listen_id, lid, p->id->state))
		goto fail;
	ret = ib_send_cm_sidr_rep(p->id, &rep);
	if (KTAP_BAD(!ret && p->id->state == IB_CM_IDLE, "SIDR_REP: %d", ret))
		goto fail;
	if (ct_expect(a, IB_CM_SIDR_REP_RECEIVED, &ev))
		goto fail;
	if (KTAP_BAD(ev.status == IB_SIDR_SUCCESS && ev.qpn == 0x123 &&
		     ev.psn == 0x11111111 && !memcmp(ev.pdata, answer, sizeof(answer)) &&
		     aid->state == IB_CM_IDLE, "status %d qpn %#x qkey %#x",
		     ev.status, ev.qpn, ev.psn))
		goto fail;

	/* Nobody serves this one. */
	req.service_id = CT_SID(15);
	if (ib_send_cm_sidr_req(aid, &req) ||
	    ct_expect(a, IB_CM_SIDR_REP_RECEIVED, &ev))
		goto fail;
	if (KTAP_BAD(ev.status == IB_SIDR_UNSUPPORTED, "status %d", ev.status))
		goto fail;
	ret = 0;
	goto out;
fail:
	ret = -EINVAL;
out:
	ct_destroy(&lid);
	ct_destroy(&aid);
	ct_ep_release(p);
	return ret;
}

/*
 * A connection brought to @state (passive side's point of view for the
 * states it has), then one side destroyed: what the other side sees.
 */
enum ct_stage { CT_AT_REQ_SENT, CT_AT_REQ_RCVD, CT_AT_REP_SENT,
		CT_AT_ESTABLISHED, CT_AT_DREQ_RCVD, CT_AT_TIMEWAIT };

static int ct_destroy_at(enum ct_stage stage, u32 qpn)
{
	struct ct_ep *l = &ct_eps[0], *p = &ct_eps[1], *a = &ct_eps[2];
	struct ib_cm_id *lid, *aid;
	struct ib_cm_rep_param rep;
	struct ct_req r;
	struct ct_ev ev;
	int ret = -EINVAL;

	ct_ep_init(l, "d-listener");
	ct_ep_init(p, "d-passive");
	ct_ep_init(a, "d-active");
	l->child = p;
	lid = ct_create(l);
	aid = ct_create(a);
	if (!lid || !aid || ib_cm_listen(lid, CT_SID(16)))
		goto out;
	ct_req_init(&r, CT_SID(16), qpn, 1);
	if (ib_send_cm_req(aid, &r.p))
		goto out;
	if (stage == CT_AT_REQ_SENT) {
		/* The active side gives up: a REJ (timeout) reaches P. */
		ct_destroy(&aid);
		if (ct_expect(p, IB_CM_REQ_RECEIVED, NULL) ||
		    ct_expect(p, IB_CM_REJ_RECEIVED, &ev))
			goto out;
		ret = KTAP_BAD(ev.status == IB_CM_REJ_TIMEOUT, "reason %d",
			       ev.status) ? -EINVAL : 0;
		goto out;
	}
	if (ct_expect(p, IB_CM_REQ_RECEIVED, NULL))
		goto out;
	if (stage == CT_AT_REQ_RCVD) {
		ct_destroy(&p->id);
		if (ct_expect(a, IB_CM_REJ_RECEIVED, &ev))
			goto out;
		ret = KTAP_BAD(ev.status == IB_CM_REJ_CONSUMER_DEFINED,
			       "reason %d", ev.status) ? -EINVAL : 0;
		goto out;
	}
	ct_rep_init(&rep, qpn + 1, 2);
	if (ib_send_cm_rep(p->id, &rep) || ct_expect(a, IB_CM_REP_RECEIVED, NULL))
		goto out;
	if (stage == CT_AT_REP_SENT) {
		ct_destroy(&p->id);
		if (ct_expect(a, IB_CM_REJ_RECEIVED, &ev))
			goto out;
		ret = KTAP_BAD(ev.status == IB_CM_REJ_CONSUMER_DEFINED &&
			       (aid->state == IB_CM_TIMEWAIT ||
				aid->state == IB_CM_IDLE), "reason %d state %d",
			       ev.status, aid->state) ? -EINVAL : 0;
		goto out;
	}
	if (ib_send_cm_rtu(aid, NULL, 0) || ct_expect(p, IB_CM_RTU_RECEIVED, NULL))
		goto out;
	if (stage == CT_AT_ESTABLISHED) {
		/* Destroying a connected id disconnects it. */
		ct_destroy(&aid);
		if (ct_expect(p, IB_CM_DREQ_RECEIVED, NULL))
			goto out;
		ret = ib_send_cm_drep(p->id, NULL, 0);
		goto out;
	}
	if (ib_send_cm_dreq(aid, NULL, 0) ||
	    ct_expect(p, IB_CM_DREQ_RECEIVED, NULL))
		goto out;
	if (stage == CT_AT_DREQ_RCVD) {
		/* Destroying in DREQ_RCVD answers with a DREP. */
		ct_destroy(&p->id);
		ret = ct_expect(a, IB_CM_DREP_RECEIVED, NULL);
		goto out;
	}
	if (ib_send_cm_drep(p->id, NULL, 0) ||
	    ct_expect(a, IB_CM_DREP_RECEIVED, NULL))
		goto out;
	/* CT_AT_TIMEWAIT: destroyed there (the active side may be out). */
	ret = KTAP_BAD(p->id->state == IB_CM_TIMEWAIT &&
		       (aid->state == IB_CM_TIMEWAIT || aid->state == IB_CM_IDLE),
		       "states %d %d", aid->state, p->id->state) ? -EINVAL : 0;
out:
	ct_destroy(&lid);
	ct_destroy(&aid);
	ct_ep_release(p);
	return ret;
}

static int ct_destroy_each_state(void)
{
	static const char *const names[] = {
		"REQ_SENT", "REQ_RCVD", "REP_SENT", "ESTABLISHED",
		"DREQ_RCVD", "TIMEWAIT",
	};
	int stage, ret, bad = 0;

	for (stage = CT_AT_REQ_SENT; stage <= CT_AT_TIMEWAIT; stage++) {
		ret = ct_destroy_at(stage, 0x5000 + 0x10 * stage);
		if (ret) {
			ktap_diag("destroy in %s: %d", names[stage], ret);
			bad = ret;
		}
	}
	return bad;
}

/* The handler's non-zero return destroys the new id: a REJ for the peer. */
static int ct_handler_destroys(void)
{
	struct ct_ep *l = &ct_eps[0], *p = &ct_eps[1], *a = &ct_eps[2];
	struct ib_cm_id *lid, *aid;
	struct ct_req r;
	struct ct_ev ev;
	int ret = -EINVAL;

	ct_ep_init(l, "h-listener");
	ct_ep_init(p, "h-passive");
	ct_ep_init(a, "h-active");
	l->child = p;
	p->destroy_on = IB_CM_REQ_RECEIVED;
	lid = ct_create(l);
	aid = ct_create(a);
	if (!lid || !aid || ib_cm_listen(lid, CT_SID(17)))
		goto out;
	ct_req_init(&r, CT_SID(17), 0x6001, 1);
	if (ib_send_cm_req(aid, &r.p) || ct_expect(p, IB_CM_REQ_RECEIVED, NULL) ||
	    ct_expect(a, IB_CM_REJ_RECEIVED, &ev))
		goto out;
	ret = KTAP_BAD(ev.status == IB_CM_REJ_CONSUMER_DEFINED, "reason %d",
		       ev.status) ? -EINVAL : 0;
out:
	ct_destroy(&lid);
	ct_destroy(&aid);
	ct_ep_release(p);
	return ret;
}

/* CT_MANY connections at once, answered from the handlers, then closed. */
static int ct_many(void)
{
	struct ct_ep *l = &ct_eps[0], *p = &ct_eps[1], *a = &ct_eps[2];
	struct ib_cm_id *lid = NULL, *aids[CT_MANY] = {};
	struct ct_req r;
	int i, ret = -EINVAL;

	ct_ep_init(l, "n-listener");
	ct_ep_init(p, "n-passive");
	ct_ep_init(a, "n-active");
	l->child = p;
	p->automatic = true;
	p->auto_qpn = 0x8000;
	a->automatic = true;
	lid = ct_create(l);
	if (!lid || ib_cm_listen(lid, CT_SID(18)))
		goto out;
	for (i = 0; i < CT_MANY; i++) {
		aids[i] = ct_create(a);
		ct_req_init(&r, CT_SID(18), 0x7000 + i, i);
		if (!aids[i] || ib_send_cm_req(aids[i], &r.p)) {
			ktap_diag("connection %d: no REQ", i);
			goto out;
		}
	}
	if (ct_wait_count(p, IB_CM_RTU_RECEIVED, CT_MANY))
		goto out;
	for (i = 0; i < CT_MANY; i++)
		if (KTAP_BAD(aids[i]->state == IB_CM_ESTABLISHED, "%d: state %d",
			     i, aids[i]->state))
			goto out;
	for (i = 0; i < CT_MANY; i++)
		ib_send_cm_dreq(aids[i], NULL, 0);
	if (ct_wait_count(a, IB_CM_DREP_RECEIVED, CT_MANY))
		goto out;
	ret = 0;
out:
	for (i = 0; i < CT_MANY; i++)
		ct_destroy(&aids[i]);
	ct_destroy(&lid);
	ct_ep_release(p);
	return ret;
}

/* ------------------------------------------------------------------ */

static void ct_run_all(void)
{
	bool gid, qps, conn, est;

	ktap_plan(CT_NR_CASES);
	gid = !ct_find_gid();
	ktap_result(gid ? 0 : -ENOENT, "the device has a RoCEv2 GID");
	if (gid)
		ktap_diag("GID %pI6 mac %pM", ct.gid.raw, ct.mac);
	ktap_run("ids, listen, assigned and shared service IDs",
		 ct_ids_and_listen, true, "");
	ktap_run("ibcm_reject_msg", ct_reject_msgs, true, "");
	ktap_run("calls in the wrong state or with bad parameters fail",
		 ct_bad_calls, gid, "no GID");
	qps = ktap_run("PD, CQs and two RC QPs", ct_qps_create, gid, "no GID");
	conn = ktap_run("REQ/REP/RTU, QPs to RTS with ib_cm_init_qp_attr",
			ct_connect_qps, qps, "no QPs");
	ktap_run("SEND both ways over the connection", ct_data, conn,
		 "not connected");
	est = ktap_run("DREQ/DREP, timewait, TIMEWAIT_EXIT", ct_disconnect, conn,
		       "not connected");
	ktap_run("an id reused after timewait sends a REQ; REJ with reason and data",
		 ct_reuse_and_reject, est, "no timewait exit");
	ktap_run("REQ to a service nobody listens on: REJ invalid service ID",
		 ct_no_listener, conn, "no active id");
	ct_destroy(&ct_lid);
	ct_destroy(&ct_aid);
	ct_ep_release(&ct_p);
	ct_qps_destroy();
	ktap_run("REQ unanswered, listener gone: retries, then REQ_ERROR",
		 ct_timeout, gid, "no GID");
	ktap_run("MRA, COMM_EST before RTU, DREQ from the passive side",
		 ct_mra_and_comm_est, gid, "no GID");
	ktap_run("packet life time and response timeout beyond 31: no early retry",
		 ct_huge_timeouts, gid && huge_timeouts,
		 gid ? "the in-tree ib_cm times out in milliseconds" : "no GID");
	ktap_run("a connection with a 2.4-hour timewait, ids destroyed in TIMEWAIT",
		 ct_long_timewait, gid, "no GID");
	ktap_run("SIDR_REQ/SIDR_REP, and to an unserved service ID", ct_sidr,
		 gid, "no GID");
	ktap_run("destroy in REQ_SENT, REQ_RCVD, REP_SENT, ESTABLISHED, DREQ_RCVD, TIMEWAIT",
		 ct_destroy_each_state, gid, "no GID");
	ktap_run("a handler's non-zero return destroys its id",
		 ct_handler_destroys, gid, "no GID");
	ktap_run("many connections at once, answered from handlers", ct_many,
		 gid, "no GID");
	ktap_all_ran(CT_NR_CASES);
}

static int __init cm_test_init(void)
{
	ct.dev = ib_device_get_by_name(ct_dev_name, RDMA_DRIVER_UNKNOWN);
	if (!ct.dev) {
		pr_err("no device %s\n", ct_dev_name);
		return -ENODEV;
	}
	ct_run_all();
	if (ct.gid_attr)
		rdma_put_gid_attr(ct.gid_attr);
	ib_device_put(ct.dev);
	memset(&ct, 0, sizeof(ct));
	return 0;
}

static void __exit cm_test_exit(void)
{
}

module_init(cm_test_init);
module_exit(cm_test_exit);
MODULE_DESCRIPTION("Test-only: ib_cm's kernel API, KTAP in the log");
MODULE_LICENSE("GPL");

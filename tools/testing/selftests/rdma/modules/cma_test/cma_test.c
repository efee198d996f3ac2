// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: rdma_cm as a kernel ULP uses it, client and server on
 * one RoCE device, over an IPv4 address of its netdev (module parameter
 * addr=, default 10.200.0.1).
 *
 * On load it runs its cases once and prints KTAP (version 1) into the
 * kernel log, each line prefixed with "cma_test: "; cma.sh turns them into
 * its own test lines.  The counts are in the read-only parameters passed
 * and failed.  Everything it made is gone when the load returns.  With
 * hold=1 it only leaves a listener and a connected pair until it is
 * unloaded (for "rdma res show cm_id").
 *
 * Cases: listen; resolve address and route; connect with private data
 * and accept (the CONNECT_REQUEST carries the data, both sides reach
 * ESTABLISHED); an RC SEND over the connection; disconnect (both sides
 * DISCONNECTED); reject with private data (REJECTED, consumer reject
 * data); connect to a port nobody listens on; a UC and an XRC REQ to the
 * RC listener are rejected before it sees them; UD: SIDR resolution (the
 * reply gives the server's QP number and Q_Key) and a UD SEND with the
 * address handle it returned.
 *
 * Only the exported API of <rdma/rdma_cm.h> and <rdma/ib_verbs.h> is
 * used: the module builds against the stock modules as well as ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "ktap_module.h"

static char *ct_addr = "10.200.0.1";
module_param_named(addr, ct_addr, charp, 0444);
MODULE_PARM_DESC(addr, "an IPv4 address of the RoCE device's netdev");
static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "only make a listener and a connection, keep them");

#define CT_WAIT		(10 * HZ)
#define CT_PORT		18515
#define CT_UD_PORT	18516
#define CT_DEAD_PORT	18517
#define CT_NR_CASES	13
#define CT_MSG		64
#define CT_NEVENTS	16

/* An id of ours and the events it received, in order. */
struct ct_event {
	enum rdma_cm_event_type type;
	int status;
	u8 data[CT_MSG];
	u8 data_len;
	u32 qp_num;
	u32 qkey;
	struct rdma_ah_attr ah_attr;	/* UD: a reference of ours */
	bool has_ah;
};

struct ct_id {
	struct rdma_cm_id *id;
	spinlock_t lock;	/* ev[], nev */
	wait_queue_head_t wq;
	struct ct_event ev[CT_NEVENTS];
	int nev;		/* received */
	int next;		/* consumed */
	/* Listeners: what to do with a request, and the ids they made. */
	bool reject;
	struct ct_id *child;
	/* Verbs of a connection. */
	struct ib_pd *pd;
	struct ib_cq *cq;
	void *buf;
	u64 dma;
};

static struct ct_id *ct_alloc(void)
{
	struct ct_id *ct = kzalloc(sizeof(*ct), GFP_KERNEL);

	if (ct) {
		spin_lock_init(&ct->lock);
		init_waitqueue_head(&ct->wq);
	}
	return ct;
}

static void ct_record(struct ct_id *ct, struct rdma_cm_event *event)
{
	struct ct_event *ev;
	const void *data = NULL;
	u8 len = 0;

	spin_lock(&ct->lock);
	if (ct->nev == CT_NEVENTS) {
		spin_unlock(&ct->lock);
		return;
	}
	ev = &ct->ev[ct->nev];
	ev->type = event->event;
	ev->status = event->status;
	if (event->event == RDMA_CM_EVENT_REJECTED) {
		data = rdma_consumer_reject_data(ct->id, event, &len);
	} else if (ct->id->qp_type == IB_QPT_UD) {
		data = event->param.ud.private_data;
		len = event->param.ud.private_data_len;
		ev->qp_num = event->param.ud.qp_num;
		ev->qkey = event->param.ud.qkey;
		if (event->event == RDMA_CM_EVENT_ESTABLISHED) {
			rdma_copy_ah_attr(&ev->ah_attr, &event->param.ud.ah_attr);
			ev->has_ah = true;
		}
	} else {
		data = event->param.conn.private_data;
		len = event->param.conn.private_data_len;
		ev->qp_num = event->param.conn.qp_num;
	}
	if (data) {
		ev->data_len = min_t(u8, len, CT_MSG);
		memcpy(ev->data, data, ev->data_len);
	}
	ct->nev++;
	spin_unlock(&ct->lock);
	wake_up(&ct->wq);
}

static int ct_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	struct ct_id *ct = id->context, *child;

	if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		ct_record(ct, event);
		return 0;
	}

	/* A request to a listener: a new id, which gets a ct_id of its own. */
	child = ct_alloc();
	if (!child)
		return -ENOMEM;
	child->id = id;
	id->context = child;
	ct_record(child, event);
	if (ct->reject) {
		/* From the handler, as ULPs do; the id stays ours. */
		rdma_reject(id, "go away", 8, IB_CM_REJ_CONSUMER_DEFINED);
	}
	ct->child = child;
	wake_up(&ct->wq);
	return 0;
}

/* Wait for the next event of @ct; it must be @type (status 0 unless
 * @any_status).  Returns it, or NULL.
 */
static struct ct_event *ct_expect(struct ct_id *ct,
				  enum rdma_cm_event_type type,
				  bool any_status)
{
	struct ct_event *ev;

	if (!wait_event_timeout(ct->wq, READ_ONCE(ct->nev) > ct->next,
				CT_WAIT)) {
		ktap_diag("no event, waiting for %s", rdma_event_msg(type));
		return NULL;
	}
	ev = &ct->ev[ct->next++];
	if (ev->type != type || (!any_status && ev->status)) {
		ktap_diag("event %s status %d, expected %s",
			  rdma_event_msg(ev->type), ev->status,
			  rdma_event_msg(type));
		return NULL;
	}
	return ev;
}

static struct ct_id *ct_create(enum rdma_ucm_port_space ps,
			       enum ib_qp_type qpt)
{
	struct ct_id *ct = ct_alloc();

	if (!ct)
		return NULL;
	ct->id = rdma_create_id(&init_net, ct_handler, ct, ps, qpt);
	if (IS_ERR(ct->id)) {
		ktap_diag("rdma_create_id: %ld", PTR_ERR(ct->id));
		kfree(ct);
		return NULL;
	}
	return ct;
}

static void ct_destroy(struct ct_id *ct)
{
	int i;

	if (!ct)
		return;
	if (ct->id) {
		if (ct->id->qp)
			rdma_destroy_qp(ct->id);
		rdma_destroy_id(ct->id);
	}
	if (ct->buf) {
		ib_dma_unmap_single(ct->pd->device, ct->dma, CT_MSG,
				    DMA_BIDIRECTIONAL);
		kfree(ct->buf);
	}
	if (ct->cq)
		ib_free_cq(ct->cq);
	if (ct->pd)
		ib_dealloc_pd(ct->pd);
	for (i = 0; i < ct->nev; i++)
		if (ct->ev[i].has_ah)
			rdma_destroy_ah_attr(&ct->ev[i].ah_attr);
	kfree(ct);
}

static int ct_sockaddr(struct sockaddr_in *sin, u16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (!in4_pton(ct_addr, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	return 0;
}

/* A PD, a CQ polled directly, a buffer, and a QP of the id's type. */
static int ct_make_qp(struct ct_id *ct)
{
	struct ib_qp_init_attr attr = {};
	struct ib_device *dev = ct->id->device;
	int ret;

	ct->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(ct->pd)) {
		ret = PTR_ERR(ct->pd);
		ct->pd = NULL;
		return ret;
	}
	ct->cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(ct->cq)) {
		ret = PTR_ERR(ct->cq);
		ct->cq = NULL;
		return ret;
	}
	ct->buf = kzalloc(CT_MSG + 40, GFP_KERNEL);
	if (!ct->buf)
		return -ENOMEM;
	ct->dma = ib_dma_map_single(dev, ct->buf, CT_MSG + 40,
				    DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, ct->dma)) {
		kfree(ct->buf);
		ct->buf = NULL;
		return -ENOMEM;
	}

	attr.send_cq = ct->cq;
	attr.recv_cq = ct->cq;
	attr.qp_type = ct->id->qp_type;
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	ret = rdma_create_qp(ct->id, ct->pd, &attr);
	if (ret)
		ktap_diag("rdma_create_qp: %d", ret);
	return ret;
}

/* One completion of ct's CQ within CT_WAIT; its status and opcode. */
static int ct_poll(struct ct_id *ct, struct ib_wc *wc)
{
	unsigned long end = jiffies + CT_WAIT;

	while (time_before(jiffies, end)) {
		if (ib_poll_cq(ct->cq, 1, wc) == 1)
			return wc->status == IB_WC_SUCCESS ? 0 : -EIO;
		usleep_range(500, 1000);
	}
	ktap_diag("no completion");
	return -ETIMEDOUT;
}

static int ct_post_recv(struct ct_id *ct, u32 len)
{
	struct ib_sge sge = {
		.addr = ct->dma, .length = len, .lkey = ct->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(ct->id->qp, &wr, NULL);
}

/* ---------------------------------------------------------------- */
/* The cases                                                          */

static struct {
	struct ct_id *listener, *client, *server;
	struct ct_id *ud_listener, *ud_client;
} ct;

static int ct_listen(void)
{
	struct sockaddr_in sin;
	int ret;

	ct.listener = ct_create(RDMA_PS_TCP, IB_QPT_RC);
	if (!ct.listener)
		return -ENOMEM;
	ret = ct_sockaddr(&sin, CT_PORT);
	if (ret)
		return ret;
	ret = rdma_bind_addr(ct.listener->id, (struct sockaddr *)&sin);
	if (ret) {
		ktap_diag("rdma_bind_addr: %d", ret);
		return ret;
	}
	if (!ct.listener->id->device) {
		ktap_diag("bound to an address, but no device");
		return -ENODEV;
	}
	ret = rdma_listen(ct.listener->id, 8);
	if (ret)
		ktap_diag("rdma_listen: %d", ret);
	return ret;
}

/* A new client id of @ps/@qpt resolved to ct_addr:@port. */
static struct ct_id *ct_resolve(enum rdma_ucm_port_space ps,
				enum ib_qp_type qpt, u16 port)
{
	struct sockaddr_in sin;
	struct ct_id *c;
	int ret;

	c = ct_create(ps, qpt);
	if (!c || ct_sockaddr(&sin, port))
		goto err;
	ret = rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&sin, 2000);
	if (ret) {
		ktap_diag("rdma_resolve_addr: %d", ret);
		goto err;
	}
	if (!ct_expect(c, RDMA_CM_EVENT_ADDR_RESOLVED, false))
		goto err;
	ret = rdma_resolve_route(c->id, 2000);
	if (ret) {
		ktap_diag("rdma_resolve_route: %d", ret);
		goto err;
	}
	if (!ct_expect(c, RDMA_CM_EVENT_ROUTE_RESOLVED, false))
		goto err;
	return c;
err:
	ct_destroy(c);
	return NULL;
}

static int ct_resolve_case(void)
{
	ct.client = ct_resolve(RDMA_PS_TCP, IB_QPT_RC, CT_PORT);
	if (!ct.client)
		return -EINVAL;
	if (ct.client->id->device != ct.listener->id->device) {
		ktap_diag("client and listener on different devices");
		return -EINVAL;
	}
	return 0;
}

/* Wait for @listener to hand over a new id. */
static struct ct_id *ct_wait_child(struct ct_id *listener)
{
	struct ct_id *child;

	if (!wait_event_timeout(listener->wq, READ_ONCE(listener->child),
				CT_WAIT)) {
		ktap_diag("no connect request");
		return NULL;
	}
	child = listener->child;
	listener->child = NULL;
	return child;
}

static int ct_connect(void)
{
	struct rdma_conn_param param = {
		.private_data = "hello, server",
		.private_data_len = 14,
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct ct_event *ev;
	int ret;

	ret = ct_make_qp(ct.client);
	if (ret)
		return ret;
	ret = rdma_connect(ct.client->id, &param);
	if (ret) {
		ktap_diag("rdma_connect: %d", ret);
		return ret;
	}

	ct.server = ct_wait_child(ct.listener);
	if (!ct.server)
		return -ETIMEDOUT;
	ev = ct_expect(ct.server, RDMA_CM_EVENT_CONNECT_REQUEST, false);
	if (!ev)
		return -EINVAL;
	if (ev->data_len < 14 || memcmp(ev->data, "hello, server", 14)) {
		ktap_diag("request private data: %*ph", ev->data_len, ev->data);
		return -EINVAL;
	}
	if (ev->qp_num != ct.client->id->qp->qp_num) {
		ktap_diag("request QP %u, client QP %u", ev->qp_num,
			  ct.client->id->qp->qp_num);
		return -EINVAL;
	}

	ret = ct_make_qp(ct.server);
	if (ret)
		return ret;
	/* Receive before the peer can send. */
	ret = ct_post_recv(ct.server, CT_MSG);
	if (ret)
		return ret;
	param.private_data = "welcome";
	param.private_data_len = 8;
	rdma_lock_handler(ct.server->id);
	ret = rdma_accept(ct.server->id, &param);
	rdma_unlock_handler(ct.server->id);
	if (ret) {
		ktap_diag("rdma_accept: %d", ret);
		return ret;
	}

	ev = ct_expect(ct.client, RDMA_CM_EVENT_ESTABLISHED, false);
	if (!ev)
		return -EINVAL;
	if (ev->data_len < 8 || memcmp(ev->data, "welcome", 8)) {
		ktap_diag("reply private data: %*ph", ev->data_len, ev->data);
		return -EINVAL;
	}
	if (!ct_expect(ct.server, RDMA_CM_EVENT_ESTABLISHED, false))
		return -EINVAL;
	return 0;
}

static int ct_send(void)
{
	struct ib_sge sge = {
		.addr = ct.client->dma, .length = CT_MSG,
		.lkey = ct.client->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_wc wc;
	int ret;

	memset(ct.client->buf, 0x5a, CT_MSG);
	ret = ib_post_send(ct.client->id->qp, &wr, NULL);
	if (ret) {
		ktap_diag("ib_post_send: %d", ret);
		return ret;
	}
	ret = ct_poll(ct.client, &wc);
	if (ret)
		return ret;
	ret = ct_poll(ct.server, &wc);
	if (ret)
		return ret;
	if (wc.opcode != IB_WC_RECV || wc.byte_len != CT_MSG ||
	    memchr_inv(ct.server->buf, 0x5a, CT_MSG)) {
		ktap_diag("received opcode %d, %u bytes", wc.opcode, wc.byte_len);
		return -EINVAL;
	}
	return 0;
}

static int ct_disconnect(void)
{
	int ret;

	ret = rdma_disconnect(ct.client->id);
	if (ret) {
		ktap_diag("rdma_disconnect: %d", ret);
		return ret;
	}
	if (!ct_expect(ct.server, RDMA_CM_EVENT_DISCONNECTED, false))
		return -EINVAL;
	/* The server answers the DREQ. */
	rdma_disconnect(ct.server->id);
	if (!ct_expect(ct.client, RDMA_CM_EVENT_DISCONNECTED, false))
		return -EINVAL;
	return 0;
}

static int ct_reject(void)
{
	struct rdma_conn_param param = { .retry_count = 7 };
	struct ct_event *ev;
	struct ct_id *c, *s = NULL;
	int ret = -EINVAL;

	c = ct_resolve(RDMA_PS_TCP, IB_QPT_RC, CT_PORT);
	if (!c)
		return -EINVAL;
	ct.listener->reject = true;
	param.qp_num = 0x123;	/* no QP: the consumer names one */
	ret = rdma_connect(c->id, &param);
	if (ret) {
		ktap_diag("rdma_connect: %d", ret);
		goto out;
	}
	s = ct_wait_child(ct.listener);
	ret = -EINVAL;
	ev = ct_expect(c, RDMA_CM_EVENT_REJECTED, true);
	if (!ev)
		goto out;
	if (ev->status != IB_CM_REJ_CONSUMER_DEFINED) {
		ktap_diag("reject status %d", ev->status);
		goto out;
	}
	if (ev->data_len < 8 || memcmp(ev->data, "go away", 8)) {
		ktap_diag("reject data: %*ph", ev->data_len, ev->data);
		goto out;
	}
	ret = 0;
out:
	ct.listener->reject = false;
	ct_destroy(s);
	ct_destroy(c);
	return ret;
}

/*
 * Nobody listens on the port: the peer's CM rejects the service ID.
 * TODO(measure on stock): REJECTED with status 8
 * (IB_CM_REJ_INVALID_SERVICE_ID) is what rping shows on stock.
 */
#define CT_DEAD_PORT_EVENT	RDMA_CM_EVENT_REJECTED
#define CT_DEAD_PORT_STATUS	IB_CM_REJ_INVALID_SERVICE_ID

static int ct_unlistened(void)
{
	struct rdma_conn_param param = { .retry_count = 7, .qp_num = 0x123 };
	struct ct_event *ev;
	struct ct_id *c;
	int ret;

	c = ct_resolve(RDMA_PS_TCP, IB_QPT_RC, CT_DEAD_PORT);
	if (!c)
		return -EINVAL;
	ret = rdma_connect(c->id, &param);
	if (ret) {
		ktap_diag("rdma_connect: %d", ret);
		goto out;
	}
	ev = ct_expect(c, CT_DEAD_PORT_EVENT, true);
	ret = -EINVAL;
	if (!ev)
		goto out;
	if (ev->status != CT_DEAD_PORT_STATUS)
		ktap_diag("status %d, expected %d", ev->status,
			  CT_DEAD_PORT_STATUS);
	else
		ret = 0;
out:
	ct_destroy(c);
	return ret;
}

/*
 * A REQ whose QP type is not the listener's: stock's rdma_cm refuses it
 * before the listener's ULP sees it, and ib_cm rejects it
 * (measured on stock: REJECTED, status 28, IB_CM_REJ_CONSUMER_DEFINED).
 * @qpt UC or XRC_INI (an XRC REQ, XRC_TGT at the listener) at the RC
 * listener of CT_PORT, in the TCP port space.
 */
#define CT_WRONG_QPT_STATUS	IB_CM_REJ_CONSUMER_DEFINED

static int ct_wrong_qp_type(enum ib_qp_type qpt)
{
	struct rdma_conn_param param = { .retry_count = 7, .qp_num = 0x123 };
	struct ct_event *ev;
	struct ct_id *c;
	int ret = -EINVAL;

	c = ct_resolve(RDMA_PS_TCP, qpt, CT_PORT);
	if (!c)
		return -EINVAL;
	ct.listener->child = NULL;
	ret = rdma_connect(c->id, &param);
	if (ret) {
		ktap_diag("rdma_connect: %d", ret);
		goto out;
	}
	ev = ct_expect(c, RDMA_CM_EVENT_REJECTED, true);
	ret = -EINVAL;
	if (!ev)
		goto out;
	if (ev->status != CT_WRONG_QPT_STATUS) {
		ktap_diag("reject status %d, expected %d", ev->status,
			  CT_WRONG_QPT_STATUS);
		goto out;
	}
	ret = 0;
out:
	if (ct.listener->child) {
		ktap_diag("the listener got a CONNECT_REQUEST of QP type %d",
			  qpt);
		ct_destroy(ct.listener->child);
		ct.listener->child = NULL;
		ret = -EINVAL;
	}
	ct_destroy(c);
	return ret;
}

static int ct_ud_resolve(void)
{
	struct rdma_conn_param param = {
		.private_data = "ud hello", .private_data_len = 9,
	};
	struct sockaddr_in sin;
	struct ct_event *ev;
	int ret;

	ct.ud_listener = ct_create(RDMA_PS_UDP, IB_QPT_UD);
	if (!ct.ud_listener || ct_sockaddr(&sin, CT_UD_PORT))
		return -EINVAL;
	ret = rdma_bind_addr(ct.ud_listener->id, (struct sockaddr *)&sin) ?:
	      rdma_listen(ct.ud_listener->id, 8);
	if (ret) {
		ktap_diag("UD bind/listen: %d", ret);
		return ret;
	}

	ct.ud_client = ct_resolve(RDMA_PS_UDP, IB_QPT_UD, CT_UD_PORT);
	if (!ct.ud_client)
		return -EINVAL;
	ret = ct_make_qp(ct.ud_client);
	if (ret)
		return ret;
	ret = rdma_connect(ct.ud_client->id, &param);
	if (ret) {
		ktap_diag("rdma_connect (SIDR): %d", ret);
		return ret;
	}

	ct.server = NULL;
	ct.ud_listener->child = NULL;
	ct.ud_listener->reject = false;
	{
		struct ct_id *s = ct_wait_child(ct.ud_listener);

		if (!s)
			return -ETIMEDOUT;
		ev = ct_expect(s, RDMA_CM_EVENT_CONNECT_REQUEST, false);
		if (!ev || ev->data_len < 9 || memcmp(ev->data, "ud hello", 9)) {
			ktap_diag("SIDR request data wrong or missing");
			ct_destroy(s);
			return -EINVAL;
		}
		ct.server = s;
	}
	ret = ct_make_qp(ct.server);
	if (ret)
		return ret;
	ret = ct_post_recv(ct.server, CT_MSG + 40);
	if (ret)
		return ret;

	param.private_data = NULL;
	param.private_data_len = 0;
	param.qp_num = ct.server->id->qp->qp_num;
	rdma_lock_handler(ct.server->id);
	ret = rdma_accept(ct.server->id, &param);
	rdma_unlock_handler(ct.server->id);
	if (ret) {
		ktap_diag("rdma_accept (SIDR): %d", ret);
		return ret;
	}

	ev = ct_expect(ct.ud_client, RDMA_CM_EVENT_ESTABLISHED, false);
	if (!ev)
		return -EINVAL;
	if (ev->qp_num != ct.server->id->qp->qp_num || ev->qkey != RDMA_UDP_QKEY) {
		ktap_diag("SIDR reply: QP %u Q_Key %#x, expected %u %#x",
			  ev->qp_num, ev->qkey, ct.server->id->qp->qp_num,
			  RDMA_UDP_QKEY);
		return -EINVAL;
	}
	return 0;
}

static int ct_ud_send(void)
{
	struct ct_event *ev = &ct.ud_client->ev[ct.ud_client->next - 1];
	struct ib_sge sge = {
		.addr = ct.ud_client->dma, .length = CT_MSG,
		.lkey = ct.ud_client->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.sg_list = &sge, .num_sge = 1, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_qpn = ev->qp_num,
		.remote_qkey = ev->qkey,
	};
	struct ib_wc wc;
	struct ib_ah *ah;
	int ret;

	if (!ev->has_ah)
		return -EINVAL;
	ah = rdma_create_ah(ct.ud_client->pd, &ev->ah_attr,
			    RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ktap_diag("rdma_create_ah: %ld", PTR_ERR(ah));
		return PTR_ERR(ah);
	}
	wr.ah = ah;
	memset(ct.ud_client->buf, 0xa5, CT_MSG);
	ret = ib_post_send(ct.ud_client->id->qp, &wr.wr, NULL);
	if (!ret)
		ret = ct_poll(ct.ud_client, &wc);
	if (!ret)
		ret = ct_poll(ct.server, &wc);
	/* A UD receive starts with the 40 bytes of the GRH. */
	if (!ret && (wc.byte_len != CT_MSG + 40 ||
		     memchr_inv(ct.server->buf + 40, 0xa5, CT_MSG))) {
		ktap_diag("UD receive: %u bytes", wc.byte_len);
		ret = -EINVAL;
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return ret;
}

static void ct_teardown(void)
{
	ct_destroy(ct.ud_client);
	ct_destroy(ct.ud_listener);
	ct_destroy(ct.client);
	ct_destroy(ct.server);
	ct_destroy(ct.listener);
	memset(&ct, 0, sizeof(ct));
}

static void ct_run(void)
{
	bool up;

	ktap_plan(CT_NR_CASES);

	ktap_result(ct_listen(), "rdma_bind_addr and rdma_listen on the address");
	ktap_result(ct_resolve_case(),
		    "rdma_resolve_addr and rdma_resolve_route reach the listener's device");
	up = ct.client && !ct_connect();
	ktap_result(!up, "connect with private data, accept, ESTABLISHED on both sides");
	ktap_result(up ? ct_send() : -EINVAL, "an RC SEND over the connection");
	ktap_result(up ? ct_disconnect() : -EINVAL,
		    "rdma_disconnect: DISCONNECTED on both sides");
	ct_destroy(ct.server);
	ct.server = NULL;
	ktap_result(ct.listener ? ct_reject() : -EINVAL,
		    "reject with private data: REJECTED, consumer reject data");
	ktap_result(ct_unlistened(), "connect to a port nobody listens on");
	ktap_result(ct.listener ? ct_wrong_qp_type(IB_QPT_UC) : -EINVAL,
		    "a UC REQ to the RC listener: REJECTED, no CONNECT_REQUEST");
	ktap_result(ct.listener ? ct_wrong_qp_type(IB_QPT_XRC_INI) : -EINVAL,
		    "an XRC REQ to the RC listener: REJECTED, no CONNECT_REQUEST");
	up = !ct_ud_resolve();
	ktap_result(!up, "UD: SIDR gives the server's QP number and Q_Key");
	ktap_result(up ? ct_ud_send() : -EINVAL,
		    "UD: a SEND with the address handle of the SIDR reply");
	ct_destroy(ct.server);
	ct.server = NULL;

	/* After teardown nothing of ours is left on the device. */
	ct_teardown();
	ktap_result(0, "every id destroyed");
	ktap_result(passed == ktap_n ? 0 : -EINVAL, "all cases passed");
	pr_info("# passed %d failed %d\n", passed, failed);
}

/* hold=1: a listener and a connected pair for "rdma res show cm_id". */
static int ct_hold(void)
{
	int ret;

	ret = ct_listen();
	if (!ret)
		ret = ct_resolve_case();
	if (!ret)
		ret = ct_connect();
	if (ret)
		ct_teardown();
	return ret;
}

static int __init ct_init(void)
{
	if (hold)
		return ct_hold();
	ct_run();
	return 0;
}

static void __exit ct_exit(void)
{
	ct_teardown();
}

module_init(ct_init);
module_exit(ct_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test-only module: rdma_cm on one RoCE device");
MODULE_AUTHOR("oot-rdma");

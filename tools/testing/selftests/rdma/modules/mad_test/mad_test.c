// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: the MAD layer of ib_core (include/rdma/ib_mad.h), as
 * ib_cm and ib_umad use it, on port 1 of an existing RoCE device (module
 * parameter dev=, default rxe0).
 *
 * On load it runs its cases once and prints KTAP (version 1) into the
 * kernel log, each line prefixed with "mad_test: "; mad_loop.sh turns
 * them into its own test lines.  Everything it made is gone when the
 * load returns.
 *
 * Two agents on QP1: a requester that only sends (no registration
 * request) and a responder registered for GET of a vendor class (range 2,
 * a made-up OUI).  MADs go to the device's own GID 0 (the link-local
 * RoCE v2 GID) through the wire path of the driver, which loops them
 * back.  MADs meant for nobody use method REPORT: stock answers an
 * unclaimed GET or SET itself (case "unclaimed GET").
 *
 * Only public API is used: the module builds against the stock ib_core
 * as well as ours.  Every request and buffer a posted MAD names is
 * static, so that a MAD layer that never completes one cannot make us
 * touch freed memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/module.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "ktap_module.h"

static char *mt_dev_name = "rxe0";
module_param_named(dev, mt_dev_name, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to test on");

#define MT_PORT		1
#define MT_GID_INDEX	0
/* How long one exchange may take in a slow (TCG) guest. */
#define MT_WAIT		(10 * HZ)
#define MT_NR_CASES	14

#define MT_CLASS	(IB_MGMT_CLASS_VENDOR_RANGE2_START + 0x0b)
#define MT_CLASS_VERSION 1
static const u8 mt_oui[3] = { 0x4f, 0x4f, 0x54 };
static const u8 mt_nobody_oui[3] = { 0x4e, 0x4f, 0x31 };
static const u8 mt_zero_oui[3];
/* A class nobody registers, for the unclaimed GET. */
#define MT_FREE_CLASS	(IB_MGMT_CLASS_VENDOR_RANGE2_START + 0x0c)

/* Sends a case posts at most (more than the send queue's 128). */
#define MT_BURST	200

/* One posted MAD and what became of it. */
struct mt_req {
	struct ib_mad_send_buf *buf;
	struct completion sent;		/* send_handler ran */
	struct completion answered;	/* recv_handler got the response */
	enum ib_wc_status status;
	int retries;
	bool got_response;		/* recv_handler ran, before answered */
	bool answered_first;		/* the response came before sent */
	struct task_struct *handler_task;
	u8 resp_method;
	__be16 resp_status;
	__be64 resp_tid;
};

static struct {
	struct ib_device *dev;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	struct ib_mad_agent *requester, *responder;
	struct ib_ah *ah;
	u32 next_tid;
	struct mt_req reqs[8];
	/* The burst: completions counted. */
	atomic_t burst_done, burst_ok;
	struct completion burst_all;
	/* What the responder saw of the last request. */
	struct completion responder_got;
	u32 seen_src_qp;
	int seen_wc_flags;
	union ib_gid seen_sgid;
	atomic_t responder_sends;
} mt;

static int mt_wait(struct completion *c, const char *what)
{
	if (wait_for_completion_timeout(c, MT_WAIT))
		return 0;
	ktap_diag("no %s in %d s", what, MT_WAIT / HZ);
	return -ETIMEDOUT;
}

/* ------------------------------------------------------------------ */
/* Handlers                                                             */

static void mt_requester_send(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	struct mt_req *req = wc->send_buf->context[0];

	if (!req) {		/* a burst send */
		if (wc->status == IB_WC_SUCCESS)
			atomic_inc(&mt.burst_ok);
		ib_free_send_mad(wc->send_buf);
		if (atomic_inc_return(&mt.burst_done) == MT_BURST)
			complete(&mt.burst_all);
		return;
	}
	req->status = wc->status;
	req->retries = wc->send_buf->retries;
	req->handler_task = current;
	/*
	 * Not completion_done(&req->answered): the case may have consumed
	 * that completion already when the send completes after the
	 * response, which it may (its WR can complete after the response
	 * arrived).
	 */
	req->answered_first = READ_ONCE(req->got_response);
	/* Freed here, as ULPs do: unregistration waits for every buffer. */
	ib_free_send_mad(wc->send_buf);
	req->buf = NULL;
	complete(&req->sent);
}

static void mt_requester_recv(struct ib_mad_agent *agent,
			      struct ib_mad_send_buf *send_buf,
			      struct ib_mad_recv_wc *recv_wc)
{
	const struct ib_mad_hdr *hdr = &recv_wc->recv_buf.mad->mad_hdr;
	struct mt_req *req = send_buf ? send_buf->context[0] : NULL;

	if (req) {
		req->resp_method = hdr->method;
		req->resp_status = hdr->status;
		req->resp_tid = hdr->tid;
		WRITE_ONCE(req->got_response, true);
		complete(&req->answered);
	} else {
		ktap_diag("requester: unexpected MAD method 0x%x", hdr->method);
	}
	ib_free_recv_mad(recv_wc);
}

/* The source GID of a received MAD: its GRH, or the IPv4 header in it. */
static void mt_recv_sgid(const struct ib_mad_recv_wc *recv_wc,
			 union ib_gid *sgid)
{
	const struct ib_wc *wc = recv_wc->wc;
	const struct iphdr *ip4;

	if ((wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) &&
	    wc->network_hdr_type == RDMA_NETWORK_IPV4) {
		ip4 = (const void *)((const u8 *)recv_wc->recv_buf.grh + 20);
		ipv6_addr_set_v4mapped(ip4->saddr, (struct in6_addr *)sgid->raw);
	} else {
		*sgid = recv_wc->recv_buf.grh->sgid;
	}
}

static void mt_responder_send(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		ktap_diag("responder: GetResp completed with %s",
			  ib_wc_status_msg(wc->status));
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

/* Answers a GET with a GetResp carrying the same TID and data. */
static void mt_responder_recv(struct ib_mad_agent *agent,
			      struct ib_mad_send_buf *send_buf,
			      struct ib_mad_recv_wc *recv_wc)
{
	const struct ib_wc *wc = recv_wc->wc;
	struct ib_mad_send_buf *resp;
	struct ib_mad_hdr *hdr;
	struct ib_ah *ah;
	int ret;

	mt.seen_src_qp = wc->src_qp;
	mt.seen_wc_flags = wc->wc_flags;
	mt_recv_sgid(recv_wc, &mt.seen_sgid);

	ah = ib_create_ah_from_wc(agent->qp->pd, wc, recv_wc->recv_buf.grh,
				  agent->port_num);
	if (IS_ERR(ah)) {
		ktap_diag("responder: no AH to the sender: %ld", PTR_ERR(ah));
		goto out;
	}
	resp = ib_create_send_mad(agent, wc->src_qp, wc->pkey_index, 0,
				  IB_MGMT_VENDOR_HDR, IB_MGMT_VENDOR_DATA,
				  GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(resp)) {
		ktap_diag("responder: ib_create_send_mad: %ld", PTR_ERR(resp));
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		goto out;
	}
	memcpy(resp->mad, recv_wc->recv_buf.mad, IB_MGMT_MAD_SIZE);
	hdr = resp->mad;
	hdr->method = IB_MGMT_METHOD_GET_RESP;
	resp->ah = ah;
	ret = ib_post_send_mad(resp, NULL);
	if (ret) {
		ktap_diag("responder: ib_post_send_mad: %d", ret);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(resp);
		goto out;
	}
	atomic_inc(&mt.responder_sends);
out:
	ib_free_recv_mad(recv_wc);
	complete(&mt.responder_got);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

static int mt_make_ah(void)
{
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_ROCE };
	const struct ib_gid_attr *gid_attr;
	u16 vlan;
	int ret;

	gid_attr = rdma_get_gid_attr(mt.dev, MT_PORT, MT_GID_INDEX);
	if (IS_ERR(gid_attr))
		return PTR_ERR(gid_attr);
	mt.gid = gid_attr->gid;
	ret = rdma_read_gid_l2_fields(gid_attr, &vlan, mt.mac);
	ktap_diag("GID %d %pI6 type %d mac %pM", MT_GID_INDEX, mt.gid.raw,
		  gid_attr->gid_type, mt.mac);
	rdma_put_gid_attr(gid_attr);
	if (ret)
		return ret;

	rdma_ah_set_port_num(&attr, MT_PORT);
	rdma_ah_set_grh(&attr, &mt.gid, 0, MT_GID_INDEX, 64, 0);
	memcpy(attr.roce.dmac, mt.mac, ETH_ALEN);
	mt.ah = rdma_create_ah(mt.requester->qp->pd, &attr,
			       RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(mt.ah)) {
		ret = PTR_ERR(mt.ah);
		mt.ah = NULL;
		return ret;
	}
	return 0;
}

/*
 * A request of @agent (the requester) to @mgmt_class/@oui with @method,
 * awaiting a response for @timeout_ms (0: none) @retries times again.
 */
static struct ib_mad_send_buf *mt_new_mad(struct mt_req *req, u8 mgmt_class,
					  const u8 *oui, u8 method,
					  int timeout_ms, int retries)
{
	struct ib_mad_send_buf *buf;
	struct ib_vendor_mad *mad;

	buf = ib_create_send_mad(mt.requester, 1, 0, 0, IB_MGMT_VENDOR_HDR,
				 IB_MGMT_VENDOR_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		return buf;
	mad = buf->mad;
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = mgmt_class;
	mad->mad_hdr.class_version = MT_CLASS_VERSION;
	mad->mad_hdr.method = method;
	mad->mad_hdr.attr_id = cpu_to_be16(0xff00);
	mad->mad_hdr.tid = cpu_to_be64((u64)mt.requester->hi_tid << 32 |
				       ++mt.next_tid);
	memcpy(mad->oui, oui, sizeof(mad->oui));
	memset(mad->data, 0x5a, sizeof(mad->data));
	buf->ah = mt.ah;
	buf->timeout_ms = timeout_ms;
	buf->retries = retries;
	buf->context[0] = req;
	if (req) {
		memset(req, 0, sizeof(*req));
		init_completion(&req->sent);
		init_completion(&req->answered);
		req->buf = buf;
	}
	return buf;
}

/* Posts one request; on failure it is freed and req->sent completed. */
static int mt_post(struct mt_req *req, u8 mgmt_class, const u8 *oui,
		   u8 method, int timeout_ms, int retries)
{
	struct ib_mad_send_buf *buf;
	int ret;

	buf = mt_new_mad(req, mgmt_class, oui, method, timeout_ms, retries);
	if (IS_ERR(buf)) {
		ktap_diag("ib_create_send_mad: %ld", PTR_ERR(buf));
		return PTR_ERR(buf);
	}
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		ktap_diag("ib_post_send_mad: %d", ret);
		ib_free_send_mad(buf);
		req->buf = NULL;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Cases                                                                */

static int mt_register_requester(void)
{
	mt.requester = ib_register_mad_agent(mt.dev, MT_PORT, IB_QPT_GSI,
					     NULL, 0, mt_requester_send,
					     mt_requester_recv, NULL, 0);
	if (IS_ERR(mt.requester)) {
		ktap_diag("ib_register_mad_agent: %ld", PTR_ERR(mt.requester));
		mt.requester = NULL;
		return -EINVAL;
	}
	ktap_diag("requester hi_tid %u qp %u", mt.requester->hi_tid,
		  mt.requester->qp->qp_num);
	if (KTAP_BAD(mt.requester->qp->qp_num == 1, "qpn %u",
		     mt.requester->qp->qp_num) ||
	    KTAP_BAD(mt.requester->port_num == MT_PORT, "%u",
		     mt.requester->port_num) ||
	    KTAP_BAD(mt.requester->device == mt.dev, "another device"))
		return -EINVAL;
	return mt_make_ah();
}

static void mt_reg_req(struct ib_mad_reg_req *req, u8 mgmt_class,
		       const u8 *oui, u8 method)
{
	memset(req, 0, sizeof(*req));
	req->mgmt_class = mgmt_class;
	req->mgmt_class_version = MT_CLASS_VERSION;
	memcpy(req->oui, oui, sizeof(req->oui));
	set_bit(method, req->method_mask);
}

static int mt_register_responder(void)
{
	struct ib_mad_reg_req req;

	mt_reg_req(&req, MT_CLASS, mt_oui, IB_MGMT_METHOD_GET);
	mt.responder = ib_register_mad_agent(mt.dev, MT_PORT, IB_QPT_GSI,
					     &req, 0, mt_responder_send,
					     mt_responder_recv, NULL, 0);
	if (IS_ERR(mt.responder)) {
		ktap_diag("ib_register_mad_agent: %ld", PTR_ERR(mt.responder));
		mt.responder = NULL;
		return -EINVAL;
	}
	return 0;
}

/* The same method again: refused; another method or OUI: accepted. */
static int mt_register_overlap(void)
{
	struct ib_mad_reg_req req;
	struct ib_mad_agent *agent;
	int ret = 0;

	mt_reg_req(&req, MT_CLASS, mt_oui, IB_MGMT_METHOD_GET);
	set_bit(IB_MGMT_METHOD_SET, req.method_mask);
	agent = ib_register_mad_agent(mt.dev, MT_PORT, IB_QPT_GSI, &req, 0,
				      mt_responder_send, mt_responder_recv,
				      NULL, 0);
	if (KTAP_BAD(PTR_ERR(agent) == -EINVAL, "%ld", PTR_ERR(agent)))
		ret = -EINVAL;
	if (!IS_ERR(agent))
		ib_unregister_mad_agent(agent);

	mt_reg_req(&req, MT_CLASS, mt_nobody_oui, IB_MGMT_METHOD_GET);
	agent = ib_register_mad_agent(mt.dev, MT_PORT, IB_QPT_GSI, &req, 0,
				      mt_responder_send, mt_responder_recv,
				      NULL, 0);
	if (KTAP_BAD(!IS_ERR(agent), "other OUI: %ld", PTR_ERR(agent)))
		return -EINVAL;
	ib_unregister_mad_agent(agent);
	return ret;
}

/* Bad registrations and send buffers are refused with stock's errno. */
static int mt_bad_input(void)
{
	struct ib_mad_reg_req req;
	struct ib_mad_agent *agent;
	struct ib_mad_send_buf *buf;
	int ret = 0;

	/* No QP0 on RoCE. */
	agent = ib_register_mad_agent(mt.dev, MT_PORT, IB_QPT_SMI, NULL, 0,
				      mt_requester_send, NULL, NULL, 0);
	if (KTAP_BAD(PTR_ERR(agent) == -EPROTONOSUPPORT, "SMI: %ld",
		     PTR_ERR(agent)))
		ret = -EINVAL;
	/* A vendor class of range 2 without OUI. */
	mt_reg_req(&req, MT_CLASS, mt_zero_oui, IB_MGMT_METHOD_GET);
	agent = ib_register_mad_agent(mt.dev, MT_PORT, IB_QPT_GSI, &req, 0,
				      mt_requester_send, mt_requester_recv,
				      NULL, 0);
	if (KTAP_BAD(PTR_ERR(agent) == -EINVAL, "no OUI: %ld", PTR_ERR(agent)))
		ret = -EINVAL;
	/* A send-only agent needs a send_handler. */
	agent = ib_register_mad_agent(mt.dev, MT_PORT, IB_QPT_GSI, NULL, 0,
				      NULL, NULL, NULL, 0);
	if (KTAP_BAD(PTR_ERR(agent) == -EINVAL, "no handler: %ld",
		     PTR_ERR(agent)))
		ret = -EINVAL;
	/* More than one MAD without RMPP. */
	buf = ib_create_send_mad(mt.requester, 1, 0, 0, IB_MGMT_MAD_HDR, 300,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (KTAP_BAD(PTR_ERR(buf) == -EINVAL, "300 bytes: %ld", PTR_ERR(buf)))
		ret = -EINVAL;
	buf = ib_create_send_mad(mt.requester, 1, 0, 1, IB_MGMT_VENDOR_HDR,
				 100, GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (KTAP_BAD(PTR_ERR(buf) == -EINVAL, "rmpp_active: %ld",
		     PTR_ERR(buf)))
		ret = -EINVAL;
	if (KTAP_BAD(ib_modify_mad(NULL, 0) == -EINVAL, "no send buffer"))
		ret = -EINVAL;
	return ret;
}

/* GET to our own GID: the responder answers, matched to the request. */
static int mt_get_answered(void)
{
	struct mt_req *req = &mt.reqs[0];
	__be64 tid;
	int ret;

	reinit_completion(&mt.responder_got);
	ret = mt_post(req, MT_CLASS, mt_oui, IB_MGMT_METHOD_GET, 2000, 3);
	if (ret)
		return ret;
	tid = ((struct ib_mad_hdr *)req->buf->mad)->tid;
	if (mt_wait(&req->answered, "response") || mt_wait(&req->sent, "send completion"))
		return -ETIMEDOUT;
	ktap_diag("status %s retries %d", ib_wc_status_msg(req->status),
		  req->retries);
	if (KTAP_BAD(req->status == IB_WC_SUCCESS, "%s",
		     ib_wc_status_msg(req->status)) ||
	    KTAP_BAD(req->resp_method == IB_MGMT_METHOD_GET_RESP, "0x%x",
		     req->resp_method) ||
	    KTAP_BAD(req->resp_tid == tid, "%llx", be64_to_cpu(req->resp_tid)) ||
	    KTAP_BAD(req->answered_first, "send completed before the response"))
		return -EINVAL;
	return 0;
}

/* What the responder got: from QP1, with GRH, from our GID. */
static int mt_request_seen(void)
{
	if (mt_wait(&mt.responder_got, "request at the responder"))
		return -ETIMEDOUT;
	ktap_diag("src_qp %u wc_flags 0x%x sgid %pI6", mt.seen_src_qp,
		  mt.seen_wc_flags, mt.seen_sgid.raw);
	if (KTAP_BAD(mt.seen_src_qp == 1, "%u", mt.seen_src_qp) ||
	    KTAP_BAD(mt.seen_wc_flags & IB_WC_GRH, "0x%x", mt.seen_wc_flags) ||
	    KTAP_BAD(!memcmp(mt.seen_sgid.raw, mt.gid.raw, 16), "%pI6",
		     mt.seen_sgid.raw))
		return -EINVAL;
	return 0;
}

/* REPORT to nobody, 100 ms, 2 retries: three sends, then a timeout. */
static int mt_timeout(void)
{
	struct mt_req *req = &mt.reqs[1];
	unsigned long start = jiffies;
	unsigned int ms;
	int ret;

	ret = mt_post(req, MT_CLASS, mt_nobody_oui, IB_MGMT_METHOD_REPORT,
		      100, 2);
	if (ret)
		return ret;
	if (mt_wait(&req->sent, "send completion"))
		return -ETIMEDOUT;
	ms = jiffies_to_msecs(jiffies - start);
	ktap_diag("status %s retries %d after %u ms",
		  ib_wc_status_msg(req->status), req->retries, ms);
	if (KTAP_BAD(req->status == IB_WC_RESP_TIMEOUT_ERR, "%s",
		     ib_wc_status_msg(req->status)) ||
	    KTAP_BAD(req->retries == 2, "%d", req->retries) ||
	    KTAP_BAD(ms >= 300, "%u ms", ms) ||
	    KTAP_BAD(!completion_done(&req->answered), "answered"))
		return -EINVAL;
	return 0;
}

/* Cancel (ib_modify_mad 0) of @req: flushed, from another context. */
static int mt_check_cancelled(struct mt_req *req)
{
	struct ib_mad_send_buf *buf = req->buf;
	int ret;

	ret = ib_modify_mad(buf, 0);
	if (KTAP_BAD(!ret, "%d", ret))
		return -EINVAL;
	if (mt_wait(&req->sent, "send completion"))
		return -ETIMEDOUT;
	if (KTAP_BAD(req->status == IB_WC_WR_FLUSH_ERR, "%s",
		     ib_wc_status_msg(req->status)) ||
	    KTAP_BAD(req->handler_task != current, "send_handler ran in ib_modify_mad"))
		return -EINVAL;
	return 0;
}

static int mt_cancel_waiting(void)
{
	struct mt_req *req = &mt.reqs[2];
	int ret;

	ret = mt_post(req, MT_CLASS, mt_nobody_oui, IB_MGMT_METHOD_REPORT,
		      10000, 0);
	if (ret)
		return ret;
	/* Sent by now: it waits for its response. */
	msleep(200);
	return mt_check_cancelled(req);
}

static int mt_cancel_posted(void)
{
	struct mt_req *req = &mt.reqs[3];
	int ret;

	ret = mt_post(req, MT_CLASS, mt_nobody_oui, IB_MGMT_METHOD_REPORT,
		      10000, 0);
	if (ret)
		return ret;
	return mt_check_cancelled(req);
}

/* MT_BURST sends in one chain, more than the send queue holds. */
static int mt_burst(void)
{
	struct ib_mad_send_buf *first = NULL, *buf, *bad = NULL;
	int i, ret;

	atomic_set(&mt.burst_done, 0);
	atomic_set(&mt.burst_ok, 0);
	init_completion(&mt.burst_all);
	for (i = 0; i < MT_BURST; i++) {
		buf = mt_new_mad(NULL, MT_CLASS, mt_nobody_oui,
				 IB_MGMT_METHOD_REPORT, 0, 0);
		if (IS_ERR(buf)) {
			ret = PTR_ERR(buf);
			goto err;
		}
		buf->next = first;
		first = buf;
	}
	ret = ib_post_send_mad(first, &bad);
	if (KTAP_BAD(!ret, "%d", ret)) {
		first = bad;
		goto err;
	}
	if (mt_wait(&mt.burst_all, "completion of every send")) {
		ktap_diag("%d of %d completed", atomic_read(&mt.burst_done),
			  MT_BURST);
		return -ETIMEDOUT;
	}
	if (KTAP_BAD(atomic_read(&mt.burst_ok) == MT_BURST, "%d",
		     atomic_read(&mt.burst_ok)))
		return -EINVAL;
	return 0;

err:
	/* Those not posted are still ours. */
	while (first) {
		buf = first->next;
		ib_free_send_mad(first);
		first = buf;
	}
	return ret ?: -EINVAL;
}

/* Stock answers an unclaimed GET itself: GetResp, status 0x000c. */
static int mt_unclaimed_get(void)
{
	struct mt_req *req = &mt.reqs[4];
	int ret;

	ret = mt_post(req, MT_FREE_CLASS, mt_oui, IB_MGMT_METHOD_GET, 1000, 0);
	if (ret)
		return ret;
	if (mt_wait(&req->sent, "send completion"))
		return -ETIMEDOUT;
	ktap_diag("status %s response method 0x%x status 0x%x",
		  ib_wc_status_msg(req->status), req->resp_method,
		  be16_to_cpu(req->resp_status));
	if (KTAP_BAD(req->status == IB_WC_SUCCESS, "%s",
		     ib_wc_status_msg(req->status)) ||
	    KTAP_BAD(req->resp_method == IB_MGMT_METHOD_GET_RESP, "0x%x",
		     req->resp_method) ||
	    KTAP_BAD(be16_to_cpu(req->resp_status) ==
		     IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB, "0x%x",
		     be16_to_cpu(req->resp_status)))
		return -EINVAL;
	return 0;
}

/* Unregistering with three sends awaiting responses flushes them. */
static int mt_unregister_busy(void)
{
	int i, ret;

	for (i = 5; i < 8; i++) {
		ret = mt_post(&mt.reqs[i], MT_CLASS, mt_nobody_oui,
			      IB_MGMT_METHOD_REPORT, 10000, 3);
		if (ret)
			return ret;
	}
	msleep(100);
	ib_unregister_mad_agent(mt.requester);
	mt.requester = NULL;
	for (i = 5; i < 8; i++) {
		/* Done before the unregistration returned. */
		if (KTAP_BAD(completion_done(&mt.reqs[i].sent), "send %d", i) ||
		    KTAP_BAD(mt.reqs[i].status == IB_WC_WR_FLUSH_ERR, "%s",
			     ib_wc_status_msg(mt.reqs[i].status)))
			return -EINVAL;
	}
	return 0;
}

static int mt_unregister_responder(void)
{
	ib_unregister_mad_agent(mt.responder);
	mt.responder = NULL;
	return 0;
}

static void mt_run_all(void)
{
	bool req, resp, got;

	ktap_plan(MT_NR_CASES);
	req = ktap_run("register a send-only agent on QP1 and an AH to GID 0",
		       mt_register_requester, true, "");
	resp = ktap_run("register a responder for GET of a vendor class",
			mt_register_responder, true, "");
	ktap_run("a registration overlapping its method gets -EINVAL",
		 mt_register_overlap, resp, "no responder");
	ktap_run("bad registrations and send buffers get stock's errno",
		 mt_bad_input, req, "no requester");
	got = ktap_run("GET to our GID: GetResp matched to it, then SUCCESS",
		       mt_get_answered, req && resp, "no agents");
	ktap_run("the responder got it on QP1 with our GID in the GRH",
		 mt_request_seen, got, "no exchange");
	ktap_run("REPORT to nobody: RESP_TIMEOUT_ERR after 2 retries",
		 mt_timeout, req, "no requester");
	ktap_run("ib_modify_mad(0) of a waiting send: WR_FLUSH_ERR, later",
		 mt_cancel_waiting, req, "no requester");
	ktap_run("ib_modify_mad(0) right after posting: WR_FLUSH_ERR, later",
		 mt_cancel_posted, req, "no requester");
	ktap_run("200 chained sends (send queue 128) all complete",
		 mt_burst, req, "no requester");
	ktap_run("an unclaimed GET is answered: GetResp status 0x000c",
		 mt_unclaimed_get, req, "no requester");
	ktap_run("unregistering with sends outstanding flushes them",
		 mt_unregister_busy, req, "no requester");
	ktap_run("unregister the responder", mt_unregister_responder, resp,
		 "no responder");
	ktap_all_ran(MT_NR_CASES);
}

static void mt_teardown(void)
{
	if (mt.requester)
		ib_unregister_mad_agent(mt.requester);
	if (mt.responder)
		ib_unregister_mad_agent(mt.responder);
	if (mt.ah)
		rdma_destroy_ah(mt.ah, RDMA_DESTROY_AH_SLEEPABLE);
}

static int __init mad_test_init(void)
{
	mt.dev = ib_device_get_by_name(mt_dev_name, RDMA_DRIVER_UNKNOWN);
	if (!mt.dev) {
		pr_err("no device %s\n", mt_dev_name);
		return -ENODEV;
	}
	init_completion(&mt.responder_got);
	mt_run_all();
	mt_teardown();
	ib_device_put(mt.dev);
	return 0;
}

static void __exit mad_test_exit(void)
{
}

module_init(mad_test_init);
module_exit(mad_test_exit);
MODULE_DESCRIPTION("Test-only: the MAD layer of ib_core, KTAP in the log");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MAD layer's own answer to a request nobody takes: a Get or Set of
 * a class, version, OUI or method that no agent registered for (and that
 * no driver consumed: ours have no process_mad) is answered, as on
 * stock, with the request itself turned into a GetResp of status 0x000c
 * ("unsupported method/attribute"), so that the requester need not wait
 * for its timeout.  Other methods (Send, Report, Trap, responses) are
 * dropped silently, as stock does.
 *
 * The answers leave through a send-only agent that each special QP of a
 * port registers like any other (struct mad_qp.answerer), so that they
 * take the normal send path and the port waits for them when it closes.
 */
#include <rdma/ib_verbs.h>

#include "core_priv.h"
#include "mad_priv.h"

/* An answer is done: its AH and buffer go. */
static void mad_answer_sent(struct ib_mad_agent *agent,
			    struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

/*
 * The answerer of @mqp, referenced, or NULL once it is going away.  Its
 * memory outlives the RCU read side (ib_unregister_mad_agent() frees it
 * after a grace period); its references keep it registered.
 */
static struct mad_agent_priv *mad_answerer_get(struct mad_qp *mqp)
{
	struct mad_agent_priv *priv;

	rcu_read_lock();
	priv = rcu_dereference(mqp->answerer);
	if (priv && !refcount_inc_not_zero(&priv->refs))
		priv = NULL;
	rcu_read_unlock();
	return priv;
}

static bool mad_wants_answer(const struct ib_mad_hdr *hdr)
{
	/* Directed-route SMPs would need the SMI, which we do not have. */
	return (hdr->method == IB_MGMT_METHOD_GET ||
		hdr->method == IB_MGMT_METHOD_SET) &&
	       hdr->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
}

/**
 * mad_unclaimed_answer - answer a valid request that no agent took
 * @mqp: the QP it came on
 * @recv_wc: the request, with its completion and GRH; left untouched
 *
 * Context: process (the port's CQ work): the AH may need to resolve.
 * Return: true when an answer was posted; false when the MAD needs none
 * or it could not be sent (the requester then times out).
 */
bool mad_unclaimed_answer(struct mad_qp *mqp,
			  const struct ib_mad_recv_wc *recv_wc)
{
	const struct ib_mad_hdr *req = &recv_wc->recv_buf.mad->mad_hdr;
	const struct ib_wc *wc = recv_wc->wc;
	struct ib_device *device = mqp->port->device;
	struct ib_mad_send_buf *send_buf;
	struct mad_agent_priv *priv;
	struct ib_mad_hdr *resp;
	struct ib_ah *ah;
	int ret;

	if (!mad_wants_answer(req))
		return false;
	priv = mad_answerer_get(mqp);
	if (!priv)
		return false;

	ah = ib_create_ah_from_wc(mqp->qp->pd, wc, recv_wc->recv_buf.grh,
				  mqp->port->port_num);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err_put;
	}
	send_buf = ib_create_send_mad(&priv->agent, wc->src_qp,
				      wc->pkey_index, 0, IB_MGMT_MAD_HDR,
				      IB_MGMT_MAD_DATA, GFP_KERNEL,
				      IB_MGMT_BASE_VERSION);
	if (IS_ERR(send_buf)) {
		ret = PTR_ERR(send_buf);
		goto err_ah;
	}
	/* The whole request comes back: TID, attribute, data and all. */
	memcpy(send_buf->mad, recv_wc->recv_buf.mad, IB_MGMT_MAD_SIZE);
	resp = send_buf->mad;
	resp->method = IB_MGMT_METHOD_GET_RESP;
	resp->status = cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	send_buf->ah = ah;
	ret = ib_post_send_mad(send_buf, NULL);
	if (ret)
		goto err_send;
	/* The send holds the agent now. */
	mad_agent_put(priv);
	return true;

err_send:
	ib_free_send_mad(send_buf);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
err_put:
	mad_agent_put(priv);
	dev_dbg_ratelimited(&device->dev,
			    "MAD QP%u: cannot answer an unclaimed request: %d\n",
			    mqp->qp->qp_num, ret);
	return false;
}

/**
 * mad_unclaimed_open - register the answerers of a port's special QPs
 * @port: the port, listed already (agents register on listed ports only)
 *
 * Return: 0 or the error of registering; none is left registered then.
 */
int mad_unclaimed_open(struct mad_port *port)
{
	struct ib_mad_agent *agent;
	int i;

	for (i = 0; i < MAD_NR_QPS; i++) {
		if (!port->qps[i].qp)
			continue;
		agent = ib_register_mad_agent(port->device, port->port_num,
					      i == MAD_QP_SMI ? IB_QPT_SMI :
								IB_QPT_GSI,
					      NULL, 0, mad_answer_sent, NULL,
					      NULL, 0);
		if (IS_ERR(agent)) {
			mad_unclaimed_close(port);
			return PTR_ERR(agent);
		}
		rcu_assign_pointer(port->qps[i].answerer, to_mad_agent(agent));
	}
	return 0;
}

/**
 * mad_unclaimed_close - unregister the answerers of a port
 * @port: the port
 *
 * Answers being made when this starts are sent, and waited for, by the
 * unregistration; later requests get none.
 */
void mad_unclaimed_close(struct mad_port *port)
{
	struct mad_agent_priv *priv;
	int i;

	for (i = 0; i < MAD_NR_QPS; i++) {
		/* Only the client's add() and remove() change it. */
		priv = rcu_replace_pointer(port->qps[i].answerer, NULL, true);
		if (priv)
			ib_unregister_mad_agent(&priv->agent);
	}
}

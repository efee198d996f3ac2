// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MAD layer's ports: on every port with rdma_cap_ib_mad() a PD, a CQ,
 * the GSI QP (QP1) and, where the port has an SMI, QP0, brought to RTS
 * with a ring of receive buffers; received MADs are validated here and
 * handed to the agent they belong to (mad_agent.c), responses through
 * the request they answer (mad_send.c); a Get or Set that belongs to
 * nobody is answered (mad_unclaimed.c).
 *
 * The "mad" ib_client creates and destroys the ports.  ib_core registers
 * it before any other client, so it is added to a device first and
 * removed last: ib_cm, ib_umad and rdma_cm find the ports in their add()
 * and are gone, with their agents, before a port is closed.
 */
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"
#include "mad_priv.h"

/* Queue depths, as stock: module parameters, clamped at load. */
#define MAD_QUEUE_MIN		64
#define MAD_QUEUE_MAX		8192

static int mad_send_depth = 128;
module_param_named(send_queue_size, mad_send_depth, int, 0444);
MODULE_PARM_DESC(send_queue_size, "Size of send queue in number of work requests");
static int mad_recv_depth = 512;
module_param_named(recv_queue_size, mad_recv_depth, int, 0444);
MODULE_PARM_DESC(recv_queue_size, "Size of receive queue in number of work requests");

/* Work requests of the special QPs: one SGE each way. */
#define MAD_SEND_MAX_SGE	2
#define MAD_RECV_MAX_SGE	1

/* What the QP writes into a receive buffer: the GRH area and the MAD. */
#define MAD_RECV_DMA_LEN	(sizeof(struct ib_grh) + IB_MGMT_MAD_SIZE)
static_assert(offsetof(struct mad_recv, mad) ==
	      offsetof(struct mad_recv, grh) + sizeof(struct ib_grh));

/*
 * Every open port.  mad_ports_rwsem protects the list; agent registration
 * holds it for read from the lookup until the port counts the new agent
 * (mad_port_hold()), so a port leaves the list before it waits for its
 * agents to go.
 */
static LIST_HEAD(mad_ports);
static DECLARE_RWSEM(mad_ports_rwsem);

static struct mad_port *mad_port_find(struct ib_device *device, u32 port_num)
{
	struct mad_port *port;

	lockdep_assert_held(&mad_ports_rwsem);

	list_for_each_entry(port, &mad_ports, list)
		if (port->device == device && port->port_num == port_num)
			return port;
	return NULL;
}

/**
 * mad_port_hold - the MAD port of a device's port, for a new agent
 * @device: the device
 * @port_num: the port
 *
 * The port stays open until mad_port_release(): closing waits for it.
 * NULL when the port has no MAD layer (or is closing).
 */
struct mad_port *mad_port_hold(struct ib_device *device, u32 port_num)
{
	struct mad_port *port;

	down_read(&mad_ports_rwsem);
	port = mad_port_find(device, port_num);
	if (port)
		atomic_inc(&port->users);
	up_read(&mad_ports_rwsem);
	return port;
}

void mad_port_release(struct mad_port *port)
{
	if (atomic_dec_and_test(&port->users))
		wake_up_var(&port->users);
}

/* ------------------------------------------------------------------ */
/* Receive ring                                                         */

static void mad_recv_done(struct ib_cq *cq, struct ib_wc *wc);

static struct mad_recv *mad_recv_alloc(struct mad_qp *mqp)
{
	struct mad_recv *recv = kzalloc(sizeof(*recv), GFP_KERNEL);

	if (!recv)
		return NULL;
	recv->mqp = mqp;
	recv->cqe.done = mad_recv_done;
	return recv;
}

/*
 * Posts @recv unless the ring is full (-ENOSPC) or the QP refuses it.
 * Posting happens under the ring's lock, so that closing the port (which
 * sets the depth to 0 under it) knows no post is under way.
 */
static int mad_recv_post(struct mad_qp *mqp, struct mad_recv *recv)
{
	struct ib_device *device = mqp->port->device;
	struct ib_sge sge;
	struct ib_recv_wr wr = {
		.wr_cqe = &recv->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	unsigned long flags;
	int ret;

	recv->dma = ib_dma_map_single(device, &recv->grh, MAD_RECV_DMA_LEN,
				      DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(device, recv->dma))
		return -ENOMEM;
	sge.addr = recv->dma;
	sge.length = MAD_RECV_DMA_LEN;
	sge.lkey = mqp->port->pd->local_dma_lkey;

	spin_lock_irqsave(&mqp->recv.lock, flags);
	if (mqp->recv.count >= mqp->recv.depth) {
		ret = -ENOSPC;
	} else {
		ret = ib_post_recv(mqp->qp, &wr, NULL);
		if (!ret) {
			list_add_tail(&recv->ring_entry, &mqp->recv.posted);
			mqp->recv.count++;
		}
	}
	spin_unlock_irqrestore(&mqp->recv.lock, flags);

	if (ret)
		ib_dma_unmap_single(device, recv->dma, MAD_RECV_DMA_LEN,
				    DMA_FROM_DEVICE);
	return ret;
}

/*
 * Fills the ring up to its depth, starting with @spare if given (a
 * buffer whose MAD nobody took).  A failure other than a full ring is
 * reported; the ring is topped up again at the next receive.
 */
static int mad_recv_fill(struct mad_qp *mqp, struct mad_recv *spare)
{
	struct mad_recv *recv;
	int ret;

	for (;;) {
		if (spare) {
			recv = spare;
			spare = NULL;
			memset(recv, 0, sizeof(*recv));
			recv->mqp = mqp;
			recv->cqe.done = mad_recv_done;
		} else {
			recv = mad_recv_alloc(mqp);
			if (!recv)
				return -ENOMEM;
		}
		ret = mad_recv_post(mqp, recv);
		if (ret) {
			kfree(recv);
			return ret == -ENOSPC ? 0 : ret;
		}
	}
}

/* Takes @recv, completed, off the ring. */
static void mad_recv_unlink(struct mad_qp *mqp, struct mad_recv *recv)
{
	unsigned long flags;

	spin_lock_irqsave(&mqp->recv.lock, flags);
	list_del(&recv->ring_entry);
	mqp->recv.count--;
	spin_unlock_irqrestore(&mqp->recv.lock, flags);
	ib_dma_unmap_single(mqp->port->device, recv->dma, MAD_RECV_DMA_LEN,
			    DMA_FROM_DEVICE);
}

/* ------------------------------------------------------------------ */
/* Received MADs                                                        */

/**
 * mad_gids_of_recv - source and destination GID of a received MAD
 * @recv_wc: the MAD
 * @sgid: its source GID
 * @dgid: its destination GID
 *
 * From its GRH, or for RoCE v2 over IPv4 from the IPv4 header the device
 * wrote into the last 20 bytes of the GRH area (as IPv4-mapped GIDs).
 * -ENOENT when the MAD came without GRH.
 */
int mad_gids_of_recv(const struct ib_mad_recv_wc *recv_wc,
		     union ib_gid *sgid, union ib_gid *dgid)
{
	const struct ib_wc *wc = recv_wc->wc;
	const struct ib_grh *grh = recv_wc->recv_buf.grh;
	const struct iphdr *ip4;

	if (!grh || !(wc->wc_flags & IB_WC_GRH))
		return -ENOENT;
	if ((wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) &&
	    wc->network_hdr_type == RDMA_NETWORK_IPV4) {
		ip4 = (const void *)((const u8 *)grh + sizeof(*grh) -
				     sizeof(*ip4));
		ipv6_addr_set_v4mapped(ip4->saddr, (struct in6_addr *)sgid->raw);
		ipv6_addr_set_v4mapped(ip4->daddr, (struct in6_addr *)dgid->raw);
		return 0;
	}
	*sgid = grh->sgid;
	*dgid = grh->dgid;
	return 0;
}

/*
 * Whether a MAD may be handled at all (as stock): a base version we
 * speak, subnet management classes only on QP0 and the others only on
 * QP1, and CM MADs other than ClassPortInfo only with method Send.
 */
static bool mad_recv_valid(const struct mad_qp *mqp,
			   const struct ib_mad_recv_wc *recv_wc)
{
	const struct ib_mad_hdr *hdr = &recv_wc->recv_buf.mad->mad_hdr;
	bool on_qp0 = mqp->qp->qp_num == 0;

	if (recv_wc->wc->byte_len < sizeof(struct ib_grh) + IB_MGMT_MAD_HDR)
		return false;
	if (hdr->base_version != IB_MGMT_BASE_VERSION)
		return false;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	    hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		return on_qp0;
	if (hdr->mgmt_class == IB_MGMT_CLASS_CM &&
	    hdr->attr_id != IB_MGMT_CLASSPORTINFO_ATTR_ID &&
	    hdr->method != IB_MGMT_METHOD_SEND)
		return false;
	return !on_qp0;
}

/* An RMPP segment that an agent doing RMPP itself takes without request. */
static bool mad_is_user_rmpp_segment(const struct mad_agent_priv *priv,
				     const struct ib_mad_recv_wc *recv_wc)
{
	struct ib_rmpp_mad *rmpp = (struct ib_rmpp_mad *)recv_wc->recv_buf.mad;

	return priv->agent.rmpp_version &&
	       (priv->agent.flags & IB_MAD_USER_RMPP) &&
	       ib_is_mad_class_rmpp(rmpp->mad_hdr.mgmt_class) &&
	       (ib_get_rmpp_flags(&rmpp->rmpp_hdr) & IB_MGMT_RMPP_FLAG_ACTIVE);
}

/*
 * Gives @recv to @priv, whose reference we hold.  A response goes with
 * the request it answers, which then completes (after the response, as
 * stock); one that answers nothing of ours is dropped.
 */
static void mad_recv_deliver(struct mad_agent_priv *priv,
			     struct mad_recv *recv)
{
	struct ib_mad_recv_wc *recv_wc = &recv->recv_wc;
	struct mad_port *port = priv->mqp->port;
	struct mad_send *send;

	INIT_LIST_HEAD(&recv_wc->rmpp_list);
	list_add(&recv_wc->recv_buf.list, &recv_wc->rmpp_list);

	/* What the LSM does not let the agent receive is dropped. */
	if (ib_mad_agent_sec_check(&priv->agent, recv_wc->wc->pkey_index)) {
		atomic_long_inc(&port->dropped);
		ib_free_recv_mad(recv_wc);
	} else if (!ib_response_mad(&recv_wc->recv_buf.mad->mad_hdr)) {
		priv->agent.recv_handler(&priv->agent, NULL, recv_wc);
	} else {
		send = mad_send_claim_response(priv, recv_wc);
		if (send) {
			priv->agent.recv_handler(&priv->agent, &send->send_buf,
						 recv_wc);
			mad_send_complete(send, IB_WC_SUCCESS, 0);
		} else if (mad_is_user_rmpp_segment(priv, recv_wc)) {
			priv->agent.recv_handler(&priv->agent, NULL, recv_wc);
		} else {
			atomic_long_inc(&port->dropped);
			ib_free_recv_mad(recv_wc);
		}
	}
	mad_agent_put(priv);
}

static void mad_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mad_recv *recv = container_of(wc->wr_cqe, struct mad_recv, cqe);
	struct mad_qp *mqp = recv->mqp;
	struct mad_port *port = mqp->port;
	struct ib_mad_recv_wc *recv_wc = &recv->recv_wc;
	struct mad_agent_priv *priv;
	bool valid;

	mad_recv_unlink(mqp, recv);
	if (wc->status != IB_WC_SUCCESS) {
		/* The QP is in error (or being destroyed): no reposting. */
		kfree(recv);
		return;
	}

	recv->wc = *wc;
	recv_wc->wc = &recv->wc;
	recv_wc->recv_buf.grh = &recv->grh;
	recv_wc->recv_buf.mad = (struct ib_mad *)recv->mad;
	recv_wc->mad_len = IB_MGMT_MAD_SIZE;
	recv_wc->mad_seg_size = IB_MGMT_MAD_SIZE;

	priv = NULL;
	valid = mad_recv_valid(mqp, recv_wc);
	if (valid)
		priv = mad_agent_find(mqp, &recv_wc->recv_buf.mad->mad_hdr);
	if (priv) {
		/* The agent owns the buffer now (ib_free_recv_mad()). */
		mad_recv_deliver(priv, recv);
		recv = NULL;
	} else if (!valid || !mad_unclaimed_answer(mqp, recv_wc)) {
		atomic_long_inc(&port->dropped);
	}

	if (mad_recv_fill(mqp, recv))
		dev_err_ratelimited(&port->device->dev,
				    "MAD QP%u: cannot post receives\n",
				    mqp->qp->qp_num);
}

/**
 * ib_free_recv_mad - give back the buffers of a received MAD
 * @mad_recv_wc: what the agent's recv_handler got
 */
void ib_free_recv_mad(struct ib_mad_recv_wc *mad_recv_wc)
{
	struct ib_mad_recv_buf *buf, *tmp;
	struct ib_mad_recv_wc *seg_wc;
	LIST_HEAD(bufs);

	/* The list runs through the buffers themselves: detach it first. */
	list_splice_init(&mad_recv_wc->rmpp_list, &bufs);
	list_for_each_entry_safe(buf, tmp, &bufs, list) {
		seg_wc = container_of(buf, struct ib_mad_recv_wc, recv_buf);
		kfree(container_of(seg_wc, struct mad_recv, recv_wc));
	}
}
EXPORT_SYMBOL(ib_free_recv_mad);

/* ------------------------------------------------------------------ */
/* Ports                                                                */

static void mad_qp_event(struct ib_event *event, void *context)
{
	struct mad_qp *mqp = context;

	dev_err(&mqp->port->device->dev, "MAD QP%u: fatal event %s (%d)\n",
		mqp->qp->qp_num, ib_event_msg(event->event), event->event);
}

static void mad_ring_init(struct mad_ring *ring, int depth)
{
	spin_lock_init(&ring->lock);
	INIT_LIST_HEAD(&ring->posted);
	ring->count = 0;
	ring->depth = depth;
}

static int mad_qp_create(struct mad_port *port, int index,
			 enum ib_qp_type type)
{
	struct mad_qp *mqp = &port->qps[index];
	struct ib_qp_init_attr init = {
		.event_handler = mad_qp_event,
		.qp_context = mqp,
		.send_cq = port->cq,
		.recv_cq = port->cq,
		.cap = {
			.max_send_wr = mad_send_depth,
			.max_recv_wr = mad_recv_depth,
			.max_send_sge = MAD_SEND_MAX_SGE,
			.max_recv_sge = MAD_RECV_MAX_SGE,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = type,
		.port_num = port->port_num,
	};
	struct ib_qp *qp;

	qp = ib_create_qp(port->pd, &init);
	if (IS_ERR(qp)) {
		dev_err(&port->device->dev, "cannot create MAD QP%d: %ld\n",
			index, PTR_ERR(qp));
		return PTR_ERR(qp);
	}
	mqp->qp = qp;
	return 0;
}

/* RESET -> INIT (P_Key index, Q_Key) -> RTR -> RTS. */
static int mad_qp_start(struct mad_qp *mqp, u16 pkey_index)
{
	struct ib_qp *qp = mqp->qp;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = pkey_index,
		.qkey = qp->qp_num ? IB_QP1_QKEY : 0,
	};
	int ret;

	ret = ib_modify_qp(qp, &attr,
			   IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_QKEY);
	if (ret)
		goto err;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		goto err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	if (ret)
		goto err;
	return 0;

err:
	dev_err(&mqp->port->device->dev,
		"cannot bring MAD QP%u to state %d: %d\n", qp->qp_num,
		attr.qp_state, ret);
	return ret;
}

/* Frees the receive buffers the QP still held; the CQ is gone. */
static void mad_recv_ring_clear(struct mad_qp *mqp)
{
	struct mad_recv *recv, *tmp;

	list_for_each_entry_safe(recv, tmp, &mqp->recv.posted, ring_entry) {
		list_del(&recv->ring_entry);
		ib_dma_unmap_single(mqp->port->device, recv->dma,
				    MAD_RECV_DMA_LEN, DMA_FROM_DEVICE);
		kfree(recv);
	}
	mqp->recv.count = 0;
}

/*
 * Stops posting receives: after this no post is under way or will be
 * made (mad_recv_post() checks the depth under the same lock).
 */
static void mad_recv_ring_stop(struct mad_qp *mqp)
{
	unsigned long flags;

	spin_lock_irqsave(&mqp->recv.lock, flags);
	mqp->recv.depth = 0;
	spin_unlock_irqrestore(&mqp->recv.lock, flags);
}

/* Undoes mad_port_open() from its QPs on; the port is not listed. */
static void mad_port_free(struct mad_port *port)
{
	int i;

	if (port->wq)
		destroy_workqueue(port->wq);
	for (i = MAD_NR_QPS - 1; i >= 0; i--) {
		if (!port->qps[i].qp)
			continue;
		mad_recv_ring_stop(&port->qps[i]);
		ib_destroy_qp(port->qps[i].qp);
	}
	/* No completion handler runs after this. */
	ib_free_cq(port->cq);
	for (i = 0; i < MAD_NR_QPS; i++) {
		if (!port->qps[i].qp)
			continue;
		WARN_ON(!list_empty(&port->qps[i].send.posted) ||
			!list_empty(&port->qps[i].overflow));
		mad_recv_ring_clear(&port->qps[i]);
	}
	ib_dealloc_pd(port->pd);
	WARN_ON(!xa_empty(&port->classes));
	xa_destroy(&port->classes);
	kfree(port);
}

static void mad_port_close(struct mad_port *port);

static int mad_port_open(struct ib_device *device, u32 port_num)
{
	bool has_smi = rdma_cap_ib_smi(device, port_num);
	struct mad_port *port;
	u16 pkey_index;
	int cq_size, i, ret;

	/* OPA MADs (2 KiB, base version 0x80) are not supported. */
	if (rdma_cap_opa_mad(device, port_num) ||
	    rdma_max_mad_size(device, port_num) < IB_MGMT_MAD_SIZE) {
		dev_info(&device->dev, "port %u: MAD size not supported\n",
			 port_num);
		return -EOPNOTSUPP;
	}

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->device = device;
	port->port_num = port_num;
	mutex_init(&port->reg_mutex);
	xa_init(&port->classes);
	atomic_set(&port->users, 0);
	atomic_long_set(&port->dropped, 0);
	for (i = 0; i < MAD_NR_QPS; i++) {
		port->qps[i].port = port;
		mad_ring_init(&port->qps[i].send, mad_send_depth);
		mad_ring_init(&port->qps[i].recv, mad_recv_depth);
		INIT_LIST_HEAD(&port->qps[i].overflow);
	}

	port->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(port->pd)) {
		ret = PTR_ERR(port->pd);
		goto err_free;
	}
	cq_size = (mad_send_depth + mad_recv_depth) * (has_smi ? 2 : 1);
	port->cq = ib_alloc_cq(device, port, cq_size, 0,
			       IB_POLL_UNBOUND_WORKQUEUE);
	if (IS_ERR(port->cq)) {
		ret = PTR_ERR(port->cq);
		goto err_pd;
	}

	/* From here on mad_port_free() undoes what was done. */
	if (has_smi) {
		ret = mad_qp_create(port, MAD_QP_SMI, IB_QPT_SMI);
		if (ret)
			goto err_port;
	}
	ret = mad_qp_create(port, MAD_QP_GSI, IB_QPT_GSI);
	if (ret)
		goto err_port;

	port->wq = alloc_ordered_workqueue("ib_mad%u", WQ_MEM_RECLAIM,
					   port_num);
	if (!port->wq) {
		ret = -ENOMEM;
		goto err_port;
	}

	/* Any P_Key index does for QP1; the full default one if there is. */
	if (ib_find_pkey(device, port_num, IB_DEFAULT_PKEY_FULL, &pkey_index))
		pkey_index = 0;
	for (i = 0; i < MAD_NR_QPS; i++) {
		if (!port->qps[i].qp)
			continue;
		ret = mad_qp_start(&port->qps[i], pkey_index);
		if (ret)
			goto err_port;
		ret = mad_recv_fill(&port->qps[i], NULL);
		if (ret) {
			dev_err(&device->dev, "MAD QP%d: cannot post receives: %d\n",
				i, ret);
			goto err_port;
		}
	}

	down_write(&mad_ports_rwsem);
	list_add_tail(&port->list, &mad_ports);
	up_write(&mad_ports_rwsem);

	/* Its agents register on the listed port, like anybody's. */
	ret = mad_unclaimed_open(port);
	if (ret) {
		dev_err(&device->dev, "port %u: cannot register the MAD answerer: %d\n",
			port_num, ret);
		mad_port_close(port);
		return ret;
	}
	return 0;

err_port:
	mad_port_free(port);
	return ret;
err_pd:
	ib_dealloc_pd(port->pd);
err_free:
	xa_destroy(&port->classes);
	kfree(port);
	return ret;
}

/*
 * Unlists the port, waits for the agents still registered on it (their
 * owners unregister them in their own remove(), which runs before ours)
 * and tears it down.
 */
static void mad_port_close(struct mad_port *port)
{
	down_write(&mad_ports_rwsem);
	list_del(&port->list);
	up_write(&mad_ports_rwsem);

	/* Our own agents first; the others' owners are gone already. */
	mad_unclaimed_close(port);
	if (atomic_read(&port->users))
		dev_warn(&port->device->dev,
			 "port %u: waiting for %d MAD agents to unregister\n",
			 port->port_num, atomic_read(&port->users));
	wait_var_event(&port->users, !atomic_read(&port->users));
	mad_port_free(port);
}

static void mad_close_device(struct ib_device *device)
{
	struct mad_port *port;
	u32 p;

	rdma_for_each_port(device, p) {
		down_read(&mad_ports_rwsem);
		port = mad_port_find(device, p);
		up_read(&mad_ports_rwsem);
		/* Only this client's add() and remove() change the list. */
		if (port)
			mad_port_close(port);
	}
}

static int mad_add_device(struct ib_device *device)
{
	unsigned int opened = 0;
	u32 p;
	int ret;

	rdma_for_each_port(device, p) {
		if (!rdma_cap_ib_mad(device, p))
			continue;
		ret = mad_port_open(device, p);
		if (ret == -EOPNOTSUPP)
			continue;
		if (ret) {
			dev_err(&device->dev, "cannot open MAD port %u: %d\n",
				p, ret);
			mad_close_device(device);
			return ret;
		}
		opened++;
	}
	return opened ? 0 : -EOPNOTSUPP;
}

static void mad_remove_device(struct ib_device *device, void *client_data)
{
	mad_close_device(device);
}

static struct ib_client mad_client = {
	.name = "mad",
	.add = mad_add_device,
	.remove = mad_remove_device,
};

/* Before any other client of ib_core (see the head of this file). */
int __init ib_mad_init(void)
{
	mad_send_depth = clamp(mad_send_depth, MAD_QUEUE_MIN, MAD_QUEUE_MAX);
	mad_recv_depth = clamp(mad_recv_depth, MAD_QUEUE_MIN, MAD_QUEUE_MAX);
	return ib_register_client(&mad_client);
}

void ib_mad_exit(void)
{
	ib_unregister_client(&mad_client);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_umad: the MAD agents of a umadN file.
 *
 * REGISTER_AGENT and REGISTER_AGENT2 register an agent with the MAD layer
 * for the file; its id is the slot of file->agents userspace then names
 * in the MADs it writes and reads.  The agent's handlers turn received
 * MADs and sends that got no response into umad_packets on the file's
 * receive list, for read().
 */

#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "user_mad.h"

/* ---------------------------------------------------------------- */
/* The receive list                                                  */

/* The id of @agent in @file, or -1: not (or no longer) registered there. */
static int agent_id_of(struct umad_file *file, struct ib_mad_agent *agent)
{
	int id;

	lockdep_assert_held(&file->lock);

	if (file->dead)
		return -1;
	for (id = 0; id < UMAD_MAX_AGENTS; id++)
		if (file->agents[id] == agent)
			return id;
	return -1;
}

/**
 * umad_queue_packet() - hand a MAD of @agent to read()
 * @file: the file @agent belongs to
 * @agent: the agent the MAD came for
 * @packet: the MAD; its header gets the agent's id, and a received one
 *	its length in the file's header format
 * @received: a received MAD, dropped when the list is too long
 *
 * Return: 0, or -ENOENT when @agent is no longer the file's (unregistered
 * meanwhile) and -ENOBUFS when the list is full: the caller frees it.
 */
int umad_queue_packet(struct umad_file *file, struct ib_mad_agent *agent,
		      struct umad_packet *packet, bool received)
{
	int ret = 0;
	int id;

	mutex_lock(&file->lock);
	if (received && file->recv_count > UMAD_MAX_RECV_QUEUED) {
		ret = -ENOBUFS;
		goto out;
	}
	id = agent_id_of(file, agent);
	if (id < 0) {
		ret = -ENOENT;
		goto out;
	}
	packet->umad.hdr.id = id;
	/* The format is fixed before the agent is published. */
	if (received)
		packet->umad.hdr.length = umad_hdr_size(file) + packet->length;
	list_add_tail(&packet->node, &file->recv_list);
	file->recv_count++;
	wake_up_interruptible(&file->recv_wait);
out:
	mutex_unlock(&file->lock);
	return ret;
}

void umad_send_dequeue(struct umad_file *file, struct umad_packet *packet)
{
	spin_lock(&file->send_lock);
	list_del(&packet->node);
	spin_unlock(&file->send_lock);
}

/* ---------------------------------------------------------------- */
/* MAD layer handlers                                                */

/*
 * A send completed: its buffer and address handle go.  A request that
 * got no response in time comes back to userspace as its own MAD header
 * with status ETIMEDOUT; every other outcome is silent, as on stock.
 */
static void umad_send_done(struct ib_mad_agent *agent,
			   struct ib_mad_send_wc *send_wc)
{
	struct umad_file *file = agent->context;
	struct umad_packet *packet = send_wc->send_buf->context[0];

	umad_send_dequeue(file, packet);
	rdma_destroy_ah(packet->msg->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(packet->msg);
	packet->msg = NULL;

	if (send_wc->status == IB_WC_RESP_TIMEOUT_ERR) {
		packet->length = IB_MGMT_MAD_HDR;
		packet->umad.hdr.status = ETIMEDOUT;
		if (!umad_queue_packet(file, agent, packet, false))
			return;
	}
	kfree(packet);
}

/* The GRH fields of the header read() returns for a MAD that had one. */
static int umad_fill_grh(struct ib_mad_agent *agent,
			 struct ib_mad_recv_wc *recv_wc,
			 struct ib_user_mad_hdr *hdr)
{
	const struct ib_global_route *grh;
	struct rdma_ah_attr ah_attr;
	int ret;

	ret = ib_init_ah_attr_from_wc(agent->device, agent->port_num,
				      recv_wc->wc, recv_wc->recv_buf.grh,
				      &ah_attr);
	if (ret)
		return ret;

	grh = rdma_ah_read_grh(&ah_attr);
	hdr->gid_index = grh->sgid_index;
	hdr->hop_limit = grh->hop_limit;
	hdr->traffic_class = grh->traffic_class;
	memcpy(hdr->gid, grh->dgid.raw, sizeof(hdr->gid));
	hdr->flow_label = cpu_to_be32(grh->flow_label);
	rdma_destroy_ah_attr(&ah_attr);
	return 0;
}

/*
 * A MAD arrived for @agent: a response to one of its sends (@send_buf) or
 * an unsolicited MAD of a class and method it registered for.  Either way
 * it waits on the receive list, and @recv_wc is ours until read().
 */
static void umad_recv(struct ib_mad_agent *agent,
		      struct ib_mad_send_buf *send_buf,
		      struct ib_mad_recv_wc *recv_wc)
{
	struct umad_file *file = agent->context;
	struct ib_wc *wc = recv_wc->wc;
	struct ib_user_mad_hdr *hdr;
	struct umad_packet *packet;

	if (wc->status != IB_WC_SUCCESS)
		goto drop;

	packet = kzalloc(sizeof(*packet), GFP_KERNEL);
	if (!packet)
		goto drop;
	packet->recv_wc = recv_wc;
	packet->length = recv_wc->mad_len;

	hdr = &packet->umad.hdr;
	hdr->qpn = cpu_to_be32(wc->src_qp);
	/* LIDs beyond 16 bits (OPA) are not reported here, as on stock. */
	hdr->lid = cpu_to_be16(lower_16_bits(wc->slid));
	hdr->sl = wc->sl;
	hdr->path_bits = wc->dlid_path_bits;
	hdr->pkey_index = wc->pkey_index;
	hdr->grh_present = !!(wc->wc_flags & IB_WC_GRH);
	if (hdr->grh_present && umad_fill_grh(agent, recv_wc, hdr))
		goto free;

	if (umad_queue_packet(file, agent, packet, true))
		goto free;
	return;

free:
	kfree(packet);
drop:
	ib_free_recv_mad(recv_wc);
}

/* ---------------------------------------------------------------- */
/* Registration                                                      */

/**
 * struct umad_reg - a registration request, from either ioctl
 * @qpn: 0 (SMI) or 1 (GSI)
 * @flags: IB_USER_MAD_REG_FLAGS_CAP flags
 * @rmpp_version: the RMPP version, 0 for none
 * @oui: a vendor class's OUI, in the low 24 bits
 * @req: the class, version and method mask; unused when its mgmt_class
 *	is 0 (the agent only sends, and receives responses)
 */
struct umad_reg {
	u32 qpn;
	u32 flags;
	u8 rmpp_version;
	u32 oui;
	struct ib_mad_reg_req req;
};

/* The lowest free agent id, or -1. */
static int agent_id_free(struct umad_file *file)
{
	int id;

	lockdep_assert_held(&file->lock);

	for (id = 0; id < UMAD_MAX_AGENTS; id++)
		if (!file->agents[id])
			return id;
	return -1;
}

/*
 * The method mask of REGISTER_AGENT is an array of longs; a 32-bit
 * process wrote it as pairs of 32-bit words, least significant first.
 */
static void method_mask_from_compat(unsigned long *mask, const void *user)
{
	const u32 *words = user;
	int i;

	for (i = 0; i < BITS_TO_LONGS(IB_MGMT_MAX_METHODS); i++)
		mask[i] = words[2 * i] | (u64)words[2 * i + 1] << 32;
}

/* REGISTER_AGENT's request, as @reg; @compat: from a 32-bit process. */
static int parse_reg_req(struct umad_reg *reg, const void __user *arg,
			 bool compat)
{
	struct ib_user_mad_reg_req ureq;

	if (copy_from_user(&ureq, arg, sizeof(ureq)))
		return -EFAULT;

	reg->qpn = ureq.qpn;
	reg->rmpp_version = ureq.rmpp_version;
	reg->req.mgmt_class = ureq.mgmt_class;
	reg->req.mgmt_class_version = ureq.mgmt_class_version;
	reg->oui = ureq.oui[0] << 16 | ureq.oui[1] << 8 | ureq.oui[2];
	if (compat)
		method_mask_from_compat(reg->req.method_mask,
					ureq.method_mask);
	else
		memcpy(reg->req.method_mask, ureq.method_mask,
		       sizeof(reg->req.method_mask));
	return 0;
}

/* REGISTER_AGENT2's request, as @reg. */
static int parse_reg_req2(struct umad_reg *reg, const void __user *arg)
{
	struct ib_user_mad_reg_req2 ureq;

	if (copy_from_user(&ureq, arg, sizeof(ureq)))
		return -EFAULT;

	reg->qpn = ureq.qpn;
	reg->flags = ureq.flags;
	reg->rmpp_version = ureq.rmpp_version;
	reg->req.mgmt_class = ureq.mgmt_class;
	reg->req.mgmt_class_version = ureq.mgmt_class_version;
	reg->oui = ureq.oui;
	BUILD_BUG_ON(sizeof(reg->req.method_mask) != sizeof(ureq.method_mask));
	memcpy(reg->req.method_mask, ureq.method_mask,
	       sizeof(reg->req.method_mask));
	return 0;
}

/*
 * Register the agent @reg asks for and publish it under the lowest free
 * id, which goes to userspace at @arg's id.  Called with both locks held;
 * the checks and their errnos come in stock's order.  An agent that
 * registered but whose id could not be written back is returned in
 * *@stale, for the caller to unregister once file->lock is dropped (its
 * handlers take it).  On success the file's header format is fixed; a
 * REGISTER_AGENT2 file uses the P_Key one.
 */
static int umad_register(struct umad_file *file, void __user *arg,
			 enum umad_reg_abi abi, struct ib_mad_agent **stale)
{
	struct umad_port *port = file->port;
	bool v2 = abi == UMAD_REG_V2;
	struct ib_mad_agent *agent;
	struct umad_reg reg = {};
	u32 __user *id_out = arg;
	int ret;
	int id;

	lockdep_assert_held(&port->lock);
	lockdep_assert_held(&file->lock);

	BUILD_BUG_ON(offsetof(struct ib_user_mad_reg_req, id) != 0 ||
		     offsetof(struct ib_user_mad_reg_req2, id) != 0);

	if (!port->ib_dev)
		return -EPIPE;
	ret = v2 ? parse_reg_req2(&reg, arg) :
		   parse_reg_req(&reg, arg, abi == UMAD_REG_V1_COMPAT);
	if (ret)
		return ret;
	if (reg.qpn != 0 && reg.qpn != 1) {
		dev_dbg(&port->dev, "no MAD agent for QP %u\n", reg.qpn);
		return -EINVAL;
	}
	/* Unknown flags: the supported ones are written back instead. */
	if (reg.flags & ~IB_USER_MAD_REG_FLAGS_CAP) {
		u32 __user *flags_out =
			arg + offsetof(struct ib_user_mad_reg_req2, flags);

		dev_dbg(&port->dev, "unknown registration flags 0x%x\n",
			reg.flags);
		if (put_user((u32)IB_USER_MAD_REG_FLAGS_CAP, flags_out))
			return -EFAULT;
		return -EINVAL;
	}

	id = agent_id_free(file);
	if (id < 0) {
		dev_dbg(&port->dev, "all %d agent ids in use\n",
			UMAD_MAX_AGENTS);
		return -ENOMEM;
	}
	if (reg.req.mgmt_class && (reg.oui & 0xff000000))
		return -EINVAL;
	reg.req.oui[0] = reg.oui >> 16;
	reg.req.oui[1] = reg.oui >> 8;
	reg.req.oui[2] = reg.oui;

	agent = ib_register_mad_agent(port->ib_dev, port->port_num,
				      reg.qpn ? IB_QPT_GSI : IB_QPT_SMI,
				      reg.req.mgmt_class ? &reg.req : NULL,
				      reg.rmpp_version, umad_send_done,
				      umad_recv, file, reg.flags);
	if (IS_ERR(agent))
		return PTR_ERR(agent);

	if (put_user(id, id_out)) {
		*stale = agent;
		return -EFAULT;
	}

	if (!file->hdr_fixed) {
		file->hdr_fixed = true;
		if (v2)
			file->pkey_hdr = true;
		else if (!file->pkey_hdr)
			dev_warn_ratelimited(&port->dev,
					     "%s registers a MAD agent without P_Key index support (IB_USER_MAD_ENABLE_PKEY)\n",
					     current->comm);
	}
	file->agents[id] = agent;
	return 0;
}

/**
 * umad_ioctl_register() - IB_USER_MAD_REGISTER_AGENT or _AGENT2
 * @file: the file the agent is for
 * @arg: struct ib_user_mad_reg_req or _req2; the id comes back in it
 * @abi: which of the two, and for REGISTER_AGENT the caller's word size
 *
 * Return: 0, or the errno stock gives.
 */
long umad_ioctl_register(struct umad_file *file, void __user *arg,
			 enum umad_reg_abi abi)
{
	struct umad_port *port = file->port;
	struct ib_mad_agent *stale = NULL;
	int ret;

	mutex_lock(&port->lock);
	mutex_lock(&file->lock);
	ret = umad_register(file, arg, abi, &stale);
	mutex_unlock(&file->lock);
	if (stale)
		ib_unregister_mad_agent(stale);
	mutex_unlock(&port->lock);
	return ret;
}

/*
 * IB_USER_MAD_UNREGISTER_AGENT: the id is free once the agent is gone;
 * its MADs already on the receive list stay there for read().
 */
long umad_ioctl_unregister(struct umad_file *file, u32 __user *arg)
{
	struct umad_port *port = file->port;
	struct ib_mad_agent *agent;
	u32 id;

	if (get_user(id, arg))
		return -EFAULT;
	if (id >= UMAD_MAX_AGENTS)
		return -EINVAL;
	id = array_index_nospec(id, UMAD_MAX_AGENTS);

	mutex_lock(&port->lock);
	mutex_lock(&file->lock);
	agent = file->dead ? NULL : file->agents[id];
	file->agents[id] = NULL;
	mutex_unlock(&file->lock);

	/* Waits for its handlers, which take file->lock. */
	if (agent)
		ib_unregister_mad_agent(agent);
	mutex_unlock(&port->lock);

	return agent ? 0 : -EINVAL;
}

/**
 * umad_agents_release() - unregister every agent of @file, for good
 * @file: a file whose port is being removed, or which is being closed
 *
 * Afterwards no handler runs for @file and none will: read() and write()
 * answer -EIO.  Called under port->lock, so that no registration races.
 */
void umad_agents_release(struct umad_file *file)
{
	struct ib_mad_agent *agents[UMAD_MAX_AGENTS];
	int id;

	lockdep_assert_held(&file->port->lock);

	mutex_lock(&file->lock);
	file->dead = true;
	memcpy(agents, file->agents, sizeof(agents));
	memset(file->agents, 0, sizeof(file->agents));
	wake_up_interruptible(&file->recv_wait);
	mutex_unlock(&file->lock);

	for (id = 0; id < UMAD_MAX_AGENTS; id++)
		if (agents[id])
			ib_unregister_mad_agent(agents[id]);
}

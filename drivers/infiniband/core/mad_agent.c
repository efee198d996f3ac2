// SPDX-License-Identifier: GPL-2.0-only
/*
 * MAD agents: registration (ib_register_mad_agent()), the tables that
 * route received MADs to them, and unregistration.
 *
 * An unsolicited MAD (a request) goes to the agent registered on its
 * port for its class version, management class, method and, for vendor
 * classes of range 2 (0x30..0x4f), OUI: per port an xarray by (version,
 * class) of struct mad_class, holding one struct mad_methods per OUI.
 * A response goes to the agent whose hi_tid is the high 32 bits of its
 * TID: a global xarray by hi_tid.  Both are read under RCU by the
 * receive path, which takes a reference on the agent it finds.
 *
 * hi_tid values are allocated cyclically in 1..2^24-1, as stock (the top
 * byte is left to drivers that tag MADs in it).
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"
#include "mad_priv.h"

static DEFINE_XARRAY_ALLOC1(mad_agents_by_tid);
static u32 mad_next_hi_tid;
#define MAD_HI_TID_LIMIT	XA_LIMIT(0, (1 << 24) - 1)

/* ------------------------------------------------------------------ */
/* Facts about classes and MADs                                         */

static bool mad_is_vendor2_class(u8 mgmt_class)
{
	return mgmt_class >= IB_MGMT_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= IB_MGMT_CLASS_VENDOR_RANGE2_END;
}

/**
 * ib_response_mad - whether a MAD answers a request or a trap
 * @hdr: its common header
 *
 * The response bit of the method, TrapRepress, and for the baseboard
 * management class the response bit of the attribute modifier.
 */
int ib_response_mad(const struct ib_mad_hdr *hdr)
{
	return (hdr->method & IB_MGMT_METHOD_RESP) ||
	       hdr->method == IB_MGMT_METHOD_TRAP_REPRESS ||
	       (hdr->mgmt_class == IB_MGMT_CLASS_BM &&
		(hdr->attr_mod & IB_BM_ATTR_MOD_RESP));
}
EXPORT_SYMBOL(ib_response_mad);

/**
 * ib_is_mad_class_rmpp - whether a management class uses RMPP
 * @mgmt_class: the class
 */
int ib_is_mad_class_rmpp(u8 mgmt_class)
{
	switch (mgmt_class) {
	case IB_MGMT_CLASS_SUBN_ADM:
	case IB_MGMT_CLASS_DEVICE_MGMT:
	case IB_MGMT_CLASS_DEVICE_ADM:
	case IB_MGMT_CLASS_BIS:
		return 1;
	default:
		return mad_is_vendor2_class(mgmt_class);
	}
}
EXPORT_SYMBOL(ib_is_mad_class_rmpp);

/**
 * ib_get_mad_data_offset - where the data of a class's MADs starts
 * @mgmt_class: the class
 *
 * After the common header and the class's own headers.
 */
int ib_get_mad_data_offset(u8 mgmt_class)
{
	switch (mgmt_class) {
	case IB_MGMT_CLASS_SUBN_ADM:
		return IB_MGMT_SA_HDR;
	case IB_MGMT_CLASS_DEVICE_MGMT:
	case IB_MGMT_CLASS_DEVICE_ADM:
	case IB_MGMT_CLASS_BIS:
		return IB_MGMT_DEVICE_HDR;
	default:
		return mad_is_vendor2_class(mgmt_class) ? IB_MGMT_VENDOR_HDR :
							  IB_MGMT_MAD_HDR;
	}
}
EXPORT_SYMBOL(ib_get_mad_data_offset);

/**
 * ib_mad_kernel_rmpp_agent - whether the MAD layer does RMPP for an agent
 * @agent: the agent
 *
 * True for an agent with an RMPP version that did not ask to do RMPP
 * itself; this MAD layer registers no such agent (see mad_priv.h).
 */
int ib_mad_kernel_rmpp_agent(const struct ib_mad_agent *agent)
{
	return agent->rmpp_version && !(agent->flags & IB_MAD_USER_RMPP);
}
EXPORT_SYMBOL(ib_mad_kernel_rmpp_agent);

/* ------------------------------------------------------------------ */
/* Routing tables                                                       */

static const u8 mad_no_oui[3];

/* The OUI a registration or a received MAD is routed by. */
static const u8 *mad_route_oui(u8 mgmt_class, const u8 *oui)
{
	return mad_is_vendor2_class(mgmt_class) ? oui : mad_no_oui;
}

/* Under RCU or the port's reg_mutex. */
static struct mad_methods *mad_class_find_oui(struct mad_port *port,
					      struct mad_class *cls,
					      const u8 *oui)
{
	struct mad_methods *methods;

	hlist_for_each_entry_rcu(methods, &cls->ouis, node,
				 lockdep_is_held(&port->reg_mutex))
		if (!memcmp(methods->oui, oui, sizeof(methods->oui)))
			return methods;
	return NULL;
}

static bool mad_methods_empty(struct mad_methods *methods,
			      struct mad_port *port)
{
	int i;

	for (i = 0; i < IB_MGMT_MAX_METHODS; i++)
		if (rcu_dereference_protected(methods->agent[i],
					      lockdep_is_held(&port->reg_mutex)))
			return false;
	return true;
}

/*
 * Routes the methods of @priv's registration to it.  -EINVAL when one of
 * them already has an agent for this class, version (and OUI), as stock.
 */
static int mad_routes_add(struct mad_port *port, struct mad_agent_priv *priv)
{
	const struct ib_mad_reg_req *req = priv->reg_req;
	unsigned long key = mad_class_key(req->mgmt_class_version,
					  req->mgmt_class);
	const u8 *oui = mad_route_oui(req->mgmt_class, req->oui);
	struct mad_methods *methods, *new_methods = NULL;
	struct mad_class *cls, *new_cls = NULL;
	int i, ret;

	lockdep_assert_held(&port->reg_mutex);

	cls = xa_load(&port->classes, key);
	if (!cls) {
		new_cls = kzalloc(sizeof(*new_cls), GFP_KERNEL);
		if (!new_cls)
			return -ENOMEM;
		INIT_HLIST_HEAD(&new_cls->ouis);
		cls = new_cls;
	}
	methods = mad_class_find_oui(port, cls, oui);
	if (methods) {
		for_each_set_bit(i, req->method_mask, IB_MGMT_MAX_METHODS) {
			if (rcu_access_pointer(methods->agent[i])) {
				dev_dbg_ratelimited(&port->device->dev,
						    "MAD class 0x%x version %u: method 0x%x in use\n",
						    req->mgmt_class,
						    req->mgmt_class_version, i);
				ret = -EINVAL;
				goto err;
			}
		}
	} else {
		new_methods = kzalloc(sizeof(*new_methods), GFP_KERNEL);
		if (!new_methods) {
			ret = -ENOMEM;
			goto err;
		}
		memcpy(new_methods->oui, oui, sizeof(new_methods->oui));
		methods = new_methods;
	}
	if (new_cls) {
		ret = xa_err(xa_store(&port->classes, key, new_cls,
				      GFP_KERNEL));
		if (ret)
			goto err;
	}

	for_each_set_bit(i, req->method_mask, IB_MGMT_MAX_METHODS)
		rcu_assign_pointer(methods->agent[i], priv);
	if (new_methods)
		hlist_add_head_rcu(&new_methods->node, &cls->ouis);
	return 0;

err:
	kfree(new_methods);
	kfree(new_cls);
	return ret;
}

/* Undoes mad_routes_add(); freed tables go after a grace period. */
static void mad_routes_del(struct mad_port *port, struct mad_agent_priv *priv)
{
	const struct ib_mad_reg_req *req = priv->reg_req;
	unsigned long key = mad_class_key(req->mgmt_class_version,
					  req->mgmt_class);
	struct mad_methods *methods;
	struct mad_class *cls;
	int i;

	lockdep_assert_held(&port->reg_mutex);

	cls = xa_load(&port->classes, key);
	if (WARN_ON(!cls))
		return;
	methods = mad_class_find_oui(port, cls,
				     mad_route_oui(req->mgmt_class, req->oui));
	if (WARN_ON(!methods))
		return;
	for (i = 0; i < IB_MGMT_MAX_METHODS; i++)
		if (rcu_access_pointer(methods->agent[i]) == priv)
			RCU_INIT_POINTER(methods->agent[i], NULL);
	if (!mad_methods_empty(methods, port))
		return;
	hlist_del_rcu(&methods->node);
	kfree_rcu(methods, rcu);
	if (!hlist_empty(&cls->ouis))
		return;
	xa_erase(&port->classes, key);
	kfree_rcu(cls, rcu);
}

/**
 * mad_agent_find - the agent a received MAD goes to, referenced
 * @mqp: the QP it came on
 * @hdr: its header
 *
 * NULL when there is none, or it takes no MADs (send-only).
 */
struct mad_agent_priv *mad_agent_find(struct mad_qp *mqp,
				      const struct ib_mad_hdr *hdr)
{
	const struct ib_vendor_mad *vendor = (const void *)hdr;
	struct mad_agent_priv *priv = NULL;
	struct mad_methods *methods;
	struct mad_class *cls;

	rcu_read_lock();
	if (ib_response_mad(hdr)) {
		priv = xa_load(&mad_agents_by_tid,
			       be64_to_cpu(hdr->tid) >> 32);
		/* Another port's agent did not send what this answers. */
		if (priv && priv->mqp != mqp)
			priv = NULL;
	} else if (hdr->class_version < MAD_MAX_CLASS_VERSION) {
		cls = xa_load(&mqp->port->classes,
			      mad_class_key(hdr->class_version,
					    hdr->mgmt_class));
		methods = cls ? mad_class_find_oui(mqp->port, cls,
				mad_route_oui(hdr->mgmt_class, vendor->oui)) :
				NULL;
		if (methods)
			priv = rcu_dereference(methods->agent[hdr->method &
						~IB_MGMT_METHOD_RESP]);
	}
	if (priv && (!priv->agent.recv_handler ||
		     !refcount_inc_not_zero(&priv->refs)))
		priv = NULL;
	rcu_read_unlock();
	return priv;
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */

/* The checks of stock, with its errno; the port is looked up later. */
static int mad_check_registration(struct ib_device *device, u32 port_num,
				  enum ib_qp_type qp_type,
				  const struct ib_mad_reg_req *req,
				  u8 rmpp_version,
				  ib_mad_send_handler send_handler,
				  ib_mad_recv_handler recv_handler,
				  u32 flags)
{
	bool sm_class, on_qp0;

	if (!rdma_is_port_valid(device, port_num))
		return -ENODEV;
	if ((qp_type == IB_QPT_SMI && !rdma_cap_ib_smi(device, port_num)) ||
	    (qp_type == IB_QPT_GSI && !rdma_cap_ib_cm(device, port_num)))
		return -EPROTONOSUPPORT;
	if (qp_type != IB_QPT_SMI && qp_type != IB_QPT_GSI)
		return -EINVAL;
	if (rmpp_version && rmpp_version != IB_MGMT_RMPP_VERSION)
		return -EINVAL;

	if (!req) {
		/* Send-only: responses only, and no RMPP of its own. */
		if (!send_handler || (flags & IB_MAD_USER_RMPP))
			return -EINVAL;
		return 0;
	}
	if (req->mgmt_class_version >= MAD_MAX_CLASS_VERSION || !recv_handler)
		return -EINVAL;
	/* Class 0 is reserved; above 0x4f only directed-route SMPs. */
	if (!req->mgmt_class ||
	    (req->mgmt_class >= MAD_MAX_CLASS &&
	     req->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE))
		return -EINVAL;
	if (mad_is_vendor2_class(req->mgmt_class) &&
	    !memcmp(req->oui, mad_no_oui, sizeof(req->oui)))
		return -EINVAL;
	if (rmpp_version && !ib_is_mad_class_rmpp(req->mgmt_class))
		return -EINVAL;
	/* Subnet management on QP0, everything else on QP1. */
	sm_class = req->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
		   req->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	on_qp0 = qp_type == IB_QPT_SMI;
	if (sm_class != on_qp0)
		return -EINVAL;
	return 0;
}

/**
 * ib_register_mad_agent - register to send and receive MADs on a port
 * @device: the device
 * @port_num: the port
 * @qp_type: IB_QPT_GSI (QP1) or IB_QPT_SMI (QP0, IB ports only)
 * @mad_reg_req: the unsolicited MADs wanted: class, version, OUI (vendor
 *	classes 0x30..0x4f), methods; NULL for an agent that only sends
 *	(and gets the responses to what it sent)
 * @rmpp_version: 0, or IB_MGMT_RMPP_VERSION for an agent that does RMPP
 *	itself (with IB_MAD_USER_RMPP in @registration_flags)
 * @send_handler: called once per posted send when it is done
 * @recv_handler: called with each received MAD (required with
 *	@mad_reg_req, and to get responses)
 * @context: the agent's context
 * @registration_flags: IB_MAD_USER_RMPP
 *
 * Context: process.
 * Return: the agent, or ERR_PTR(): -EPROTONOSUPPORT when the port has no
 * such QP; -ENODEV for a port without MAD layer; -EINVAL for a bad
 * request or when one of its methods is another agent's already;
 * -EOPNOTSUPP for RMPP done by the MAD layer (not implemented); -ENOMEM;
 * the security module's error (-EACCES: QP0 of an IB port, no right to
 * manage the subnet; security.c).
 */
struct ib_mad_agent *ib_register_mad_agent(struct ib_device *device,
					   u32 port_num,
					   enum ib_qp_type qp_type,
					   struct ib_mad_reg_req *mad_reg_req,
					   u8 rmpp_version,
					   ib_mad_send_handler send_handler,
					   ib_mad_recv_handler recv_handler,
					   void *context,
					   u32 registration_flags)
{
	struct mad_agent_priv *priv;
	struct mad_port *port;
	struct mad_qp *mqp;
	int ret;

	ret = mad_check_registration(device, port_num, qp_type, mad_reg_req,
				     rmpp_version, send_handler, recv_handler,
				     registration_flags);
	if (ret) {
		dev_dbg_ratelimited(&device->dev,
				    "MAD agent registration refused: %d\n", ret);
		return ERR_PTR(ret);
	}
	if (rmpp_version && !(registration_flags & IB_MAD_USER_RMPP))
		return ERR_PTR(-EOPNOTSUPP);

	port = mad_port_hold(device, port_num);
	if (!port)
		return ERR_PTR(-ENODEV);
	mqp = &port->qps[qp_type == IB_QPT_SMI ? MAD_QP_SMI : MAD_QP_GSI];
	if (!mqp->qp) {
		ret = -EPROTONOSUPPORT;
		goto err_port;
	}

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv) {
		ret = -ENOMEM;
		goto err_port;
	}
	if (mad_reg_req) {
		priv->reg_req = kmemdup(mad_reg_req, sizeof(*mad_reg_req),
					GFP_KERNEL);
		if (!priv->reg_req) {
			ret = -ENOMEM;
			goto err_priv;
		}
	}
	priv->mqp = mqp;
	priv->agent.device = device;
	priv->agent.qp = mqp->qp;
	priv->agent.recv_handler = recv_handler;
	priv->agent.send_handler = send_handler;
	priv->agent.context = context;
	priv->agent.flags = registration_flags;
	priv->agent.port_num = port_num;
	priv->agent.rmpp_version = rmpp_version;
	INIT_LIST_HEAD(&priv->agent.mad_agent_sec_list);
	spin_lock_init(&priv->lock);
	INIT_LIST_HEAD(&priv->sends);
	INIT_LIST_HEAD(&priv->waits);
	INIT_DELAYED_WORK(&priv->timeout_work, mad_timeout_work);
	refcount_set(&priv->refs, 1);
	init_completion(&priv->unused);

	/* On IB ports: its LSM blob, and QP0's right to manage the subnet. */
	ret = ib_mad_agent_sec_setup(&priv->agent);
	if (ret)
		goto err_req;

	/* Reserved now, published once the routes are in. */
	ret = xa_alloc_cyclic(&mad_agents_by_tid, &priv->agent.hi_tid, NULL,
			      MAD_HI_TID_LIMIT, &mad_next_hi_tid, GFP_KERNEL);
	if (ret < 0)
		goto err_sec;

	if (mad_reg_req) {
		mutex_lock(&port->reg_mutex);
		ret = mad_routes_add(port, priv);
		mutex_unlock(&port->reg_mutex);
		if (ret)
			goto err_tid;
	}
	xa_store(&mad_agents_by_tid, priv->agent.hi_tid, priv, GFP_KERNEL);
	return &priv->agent;

err_tid:
	xa_erase(&mad_agents_by_tid, priv->agent.hi_tid);
err_sec:
	ib_mad_agent_sec_cleanup(&priv->agent);
err_req:
	kfree(priv->reg_req);
err_priv:
	kfree(priv);
err_port:
	mad_port_release(port);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_register_mad_agent);

/**
 * ib_unregister_mad_agent - unregister an agent
 * @mad_agent: the agent
 *
 * Its outstanding sends complete to its send_handler with
 * IB_WC_WR_FLUSH_ERR; it gets no more MADs.  Returns once no handler of
 * the agent runs any more and every send buffer it created was freed.
 *
 * Context: process; not from the agent's own handlers.
 */
void ib_unregister_mad_agent(struct ib_mad_agent *mad_agent)
{
	struct mad_agent_priv *priv = to_mad_agent(mad_agent);
	struct mad_port *port = priv->mqp->port;

	/* Responses find no request from now on. */
	mad_send_cancel_all(priv);

	if (priv->reg_req) {
		mutex_lock(&port->reg_mutex);
		mad_routes_del(port, priv);
		mutex_unlock(&port->reg_mutex);
	}
	xa_erase(&mad_agents_by_tid, priv->agent.hi_tid);

	/*
	 * Nothing re-arms the timeout once every send is flushed (only a
	 * send still in good standing waits for a response).
	 */
	cancel_delayed_work_sync(&priv->timeout_work);

	mad_agent_put(priv);
	wait_for_completion(&priv->unused);

	ib_mad_agent_sec_cleanup(&priv->agent);
	kfree(priv->reg_req);
	mad_port_release(port);
	/* The receive path may still look at it under RCU. */
	kfree_rcu(priv, rcu);
}
EXPORT_SYMBOL(ib_unregister_mad_agent);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verbs ib_core implements on top of a driver's ops for objects that
 * ib_uverbs (or, later, a kernel user) created: the QP state machine check,
 * modify/query of QPs and the usecnts they hold, address handles (create,
 * modify, query) and their attributes, multicast attachment, CQ resize and
 * moderation, and the destruction of PDs, CQs, QPs, SRQs, MRs and AHs.
 *
 * Object contract with the creator
 * --------------------------------
 * The creator allocates CQs, QPs and SRQs (rdma_zalloc_drv_obj()), fills
 * their core fields, calls the driver, then takes one usecnt on each
 * object the new one uses (a QP: its PD, send CQ, receive CQ and SRQ, one
 * per role even when both CQs are the same; an SRQ: its PD, and its CQ
 * for types that have one; an MR, MW or AH: its PD) and adds it to
 * restrack.  The *_user() destroy calls below undo exactly that, in the
 * reverse order: the object leaves restrack first (unpublished, readers
 * waited for), then the driver destroys it, and only then are the usecnts
 * on its parents dropped.  nldev, holding a published object, reads its
 * parents (a QP's PD id) and asks the driver about it (query_qp,
 * fill_res_*): a parent must not be freeable, nor the object destroyed,
 * while it is published.  They free what the creator allocated (an MR is
 * freed by the driver's dereg_mr).  When the driver fails the object is
 * published again, nothing else is changed and its errno is returned.
 * Refusing to destroy an object still in use is the caller's business;
 * the checks here only protect the core's own invariants.
 */
#include <linux/errno.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <rdma/rw.h>

#include "core_priv.h"

/* ------------------------------------------------------------------ */
/* The QP state machine                                                */

/*
 * What a transition accepts, per QP type: the attributes that must be
 * in the mask and those that may be.  IB_QP_STATE is always allowed.
 */
struct qp_transition {
	bool valid;
	enum ib_qp_attr_mask required[IB_QPT_MAX];
	enum ib_qp_attr_mask optional[IB_QPT_MAX];
};

/* Attribute sets the IBTA tables repeat for several QP types. */
#define QP_CONN_INIT	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
#define QP_DGRAM_INIT	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY)
#define QP_SPECIAL_INIT	(IB_QP_PKEY_INDEX | IB_QP_QKEY)
#define QP_RTR_PATH	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
			 IB_QP_RQ_PSN)
#define QP_RTR_RESPONDER (IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define QP_RTS_REQUESTER (IB_QP_TIMEOUT | IB_QP_RETRY_CNT | \
			  IB_QP_RNR_RETRY | IB_QP_SQ_PSN | \
			  IB_QP_MAX_QP_RD_ATOMIC)
#define QP_UC_REARM	(IB_QP_CUR_STATE | IB_QP_ALT_PATH | \
			 IB_QP_ACCESS_FLAGS | IB_QP_PATH_MIG_STATE)
#define QP_RC_REARM	(QP_UC_REARM | IB_QP_MIN_RNR_TIMER)
#define QP_DGRAM_REARM	(IB_QP_CUR_STATE | IB_QP_QKEY)

/*
 * The IBTA QP state diagram with, per type, the attribute masks of each
 * transition (IBTA vol. 1, "Modify QP" attribute tables, and its XRC and
 * raw Ethernet annexes).  Any state may go to RESET, and any but RESET
 * to ERR, with no other attribute; SQE (send queue error) only arises for
 * UD and UC QPs.
 */
static const struct qp_transition qp_transitions[IB_QPS_ERR + 1][IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_INIT] = {
			.valid = true,
			.required = {
				[IB_QPT_UD] = QP_DGRAM_INIT,
				[IB_QPT_UC] = QP_CONN_INIT,
				[IB_QPT_RC] = QP_CONN_INIT,
				[IB_QPT_XRC_INI] = QP_CONN_INIT,
				[IB_QPT_XRC_TGT] = QP_CONN_INIT,
				[IB_QPT_SMI] = QP_SPECIAL_INIT,
				[IB_QPT_GSI] = QP_SPECIAL_INIT,
				[IB_QPT_RAW_PACKET] = IB_QP_PORT,
			},
		},
	},
	[IB_QPS_INIT] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_INIT] = {
			.valid = true,
			.optional = {
				[IB_QPT_UD] = QP_DGRAM_INIT,
				[IB_QPT_UC] = QP_CONN_INIT,
				[IB_QPT_RC] = QP_CONN_INIT,
				[IB_QPT_XRC_INI] = QP_CONN_INIT,
				[IB_QPT_XRC_TGT] = QP_CONN_INIT,
				[IB_QPT_SMI] = QP_SPECIAL_INIT,
				[IB_QPT_GSI] = QP_SPECIAL_INIT,
			},
		},
		[IB_QPS_RTR] = {
			.valid = true,
			.required = {
				[IB_QPT_UC] = QP_RTR_PATH,
				[IB_QPT_RC] = QP_RTR_PATH | QP_RTR_RESPONDER,
				[IB_QPT_XRC_INI] = QP_RTR_PATH,
				[IB_QPT_XRC_TGT] = QP_RTR_PATH |
						   QP_RTR_RESPONDER,
			},
			.optional = {
				[IB_QPT_UD] = QP_SPECIAL_INIT,
				[IB_QPT_UC] = IB_QP_ALT_PATH |
					      IB_QP_ACCESS_FLAGS |
					      IB_QP_PKEY_INDEX,
				[IB_QPT_RC] = IB_QP_ALT_PATH |
					      IB_QP_ACCESS_FLAGS |
					      IB_QP_PKEY_INDEX,
				[IB_QPT_XRC_INI] = IB_QP_ALT_PATH |
						   IB_QP_ACCESS_FLAGS |
						   IB_QP_PKEY_INDEX,
				[IB_QPT_XRC_TGT] = IB_QP_ALT_PATH |
						   IB_QP_ACCESS_FLAGS |
						   IB_QP_PKEY_INDEX,
				[IB_QPT_SMI] = QP_SPECIAL_INIT,
				[IB_QPT_GSI] = QP_SPECIAL_INIT,
			},
		},
	},
	[IB_QPS_RTR] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.required = {
				[IB_QPT_UD] = IB_QP_SQ_PSN,
				[IB_QPT_UC] = IB_QP_SQ_PSN,
				[IB_QPT_RC] = QP_RTS_REQUESTER,
				[IB_QPT_XRC_INI] = QP_RTS_REQUESTER,
				[IB_QPT_XRC_TGT] = IB_QP_TIMEOUT |
						   IB_QP_SQ_PSN,
				[IB_QPT_SMI] = IB_QP_SQ_PSN,
				[IB_QPT_GSI] = IB_QP_SQ_PSN,
			},
			.optional = {
				[IB_QPT_UD] = QP_DGRAM_REARM,
				[IB_QPT_UC] = QP_UC_REARM,
				[IB_QPT_RC] = QP_RC_REARM,
				[IB_QPT_XRC_INI] = QP_UC_REARM,
				[IB_QPT_XRC_TGT] = QP_RC_REARM,
				[IB_QPT_SMI] = QP_DGRAM_REARM,
				[IB_QPT_GSI] = QP_DGRAM_REARM,
				[IB_QPT_RAW_PACKET] = IB_QP_RATE_LIMIT,
			},
		},
	},
	[IB_QPS_RTS] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.optional = {
				[IB_QPT_UD] = QP_DGRAM_REARM,
				[IB_QPT_UC] = QP_UC_REARM,
				[IB_QPT_RC] = QP_RC_REARM,
				[IB_QPT_XRC_INI] = QP_UC_REARM,
				[IB_QPT_XRC_TGT] = QP_RC_REARM,
				[IB_QPT_SMI] = QP_DGRAM_REARM,
				[IB_QPT_GSI] = QP_DGRAM_REARM,
				[IB_QPT_RAW_PACKET] = IB_QP_RATE_LIMIT,
			},
		},
		[IB_QPS_SQD] = {
			.valid = true,
			.optional = {
				[IB_QPT_UD] = IB_QP_EN_SQD_ASYNC_NOTIFY,
				[IB_QPT_UC] = IB_QP_EN_SQD_ASYNC_NOTIFY,
				[IB_QPT_RC] = IB_QP_EN_SQD_ASYNC_NOTIFY,
				[IB_QPT_XRC_INI] = IB_QP_EN_SQD_ASYNC_NOTIFY,
				[IB_QPT_XRC_TGT] = IB_QP_EN_SQD_ASYNC_NOTIFY,
				[IB_QPT_SMI] = IB_QP_EN_SQD_ASYNC_NOTIFY,
				[IB_QPT_GSI] = IB_QP_EN_SQD_ASYNC_NOTIFY,
			},
		},
	},
	[IB_QPS_SQD] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.optional = {
				[IB_QPT_UD] = QP_DGRAM_REARM,
				[IB_QPT_UC] = QP_UC_REARM,
				[IB_QPT_RC] = QP_RC_REARM,
				[IB_QPT_XRC_INI] = QP_UC_REARM,
				[IB_QPT_XRC_TGT] = QP_RC_REARM,
				[IB_QPT_SMI] = QP_DGRAM_REARM,
				[IB_QPT_GSI] = QP_DGRAM_REARM,
			},
		},
		[IB_QPS_SQD] = {
			.valid = true,
			.optional = {
				[IB_QPT_UD] = QP_SPECIAL_INIT,
				[IB_QPT_UC] = IB_QP_AV | IB_QP_ALT_PATH |
					      IB_QP_ACCESS_FLAGS |
					      IB_QP_PKEY_INDEX |
					      IB_QP_PATH_MIG_STATE,
				[IB_QPT_RC] = IB_QP_PORT | IB_QP_AV |
					      IB_QP_TIMEOUT |
					      IB_QP_RETRY_CNT |
					      IB_QP_RNR_RETRY |
					      IB_QP_MAX_QP_RD_ATOMIC |
					      IB_QP_MAX_DEST_RD_ATOMIC |
					      IB_QP_ALT_PATH |
					      IB_QP_ACCESS_FLAGS |
					      IB_QP_PKEY_INDEX |
					      IB_QP_MIN_RNR_TIMER |
					      IB_QP_PATH_MIG_STATE,
				[IB_QPT_XRC_INI] = IB_QP_PORT | IB_QP_AV |
						   IB_QP_TIMEOUT |
						   IB_QP_RETRY_CNT |
						   IB_QP_RNR_RETRY |
						   IB_QP_MAX_QP_RD_ATOMIC |
						   IB_QP_ALT_PATH |
						   IB_QP_ACCESS_FLAGS |
						   IB_QP_PKEY_INDEX |
						   IB_QP_PATH_MIG_STATE,
				[IB_QPT_XRC_TGT] = IB_QP_PORT | IB_QP_AV |
						   IB_QP_TIMEOUT |
						   IB_QP_MAX_DEST_RD_ATOMIC |
						   IB_QP_ALT_PATH |
						   IB_QP_ACCESS_FLAGS |
						   IB_QP_PKEY_INDEX |
						   IB_QP_MIN_RNR_TIMER |
						   IB_QP_PATH_MIG_STATE,
				[IB_QPT_SMI] = QP_SPECIAL_INIT,
				[IB_QPT_GSI] = QP_SPECIAL_INIT,
			},
		},
	},
	[IB_QPS_SQE] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.optional = {
				[IB_QPT_UD] = QP_DGRAM_REARM,
				[IB_QPT_UC] = IB_QP_CUR_STATE |
					      IB_QP_ACCESS_FLAGS,
				[IB_QPT_SMI] = QP_DGRAM_REARM,
				[IB_QPT_GSI] = QP_DGRAM_REARM,
			},
		},
	},
	[IB_QPS_ERR] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
	},
};

/**
 * ib_modify_qp_is_ok - check a QP state transition and its attribute mask
 * @cur_state: the QP's current state (or the one the caller asserts)
 * @next_state: the state asked for (the current one when the mask has no
 *	IB_QP_STATE)
 * @type: the QP type
 * @mask: the attributes the caller supplies
 *
 * Return: true when the IBTA allows the transition, @mask holds every
 * attribute it requires for @type and nothing it does not allow.
 * IB_QP_CUR_STATE is only meaningful from RTR, RTS, SQD and SQE.
 */
bool ib_modify_qp_is_ok(enum ib_qp_state cur_state, enum ib_qp_state next_state,
			enum ib_qp_type type, enum ib_qp_attr_mask mask)
{
	const struct qp_transition *transition;
	enum ib_qp_attr_mask required, allowed;

	if ((unsigned int)cur_state > IB_QPS_ERR ||
	    (unsigned int)next_state > IB_QPS_ERR ||
	    (unsigned int)type >= IB_QPT_MAX)
		return false;

	if ((mask & IB_QP_CUR_STATE) && cur_state != IB_QPS_RTR &&
	    cur_state != IB_QPS_RTS && cur_state != IB_QPS_SQD &&
	    cur_state != IB_QPS_SQE)
		return false;

	transition = &qp_transitions[cur_state][next_state];
	if (!transition->valid)
		return false;

	required = transition->required[type];
	allowed = required | transition->optional[type] | IB_QP_STATE;
	return (mask & required) == required && !(mask & ~allowed);
}
EXPORT_SYMBOL(ib_modify_qp_is_ok);

/* ------------------------------------------------------------------ */
/* Address handle attributes and their source GID reference            */

/**
 * rdma_destroy_ah_attr - drop the source GID reference of an AH attribute
 * @ah_attr: the attribute; its grh.sgid_attr is put and cleared
 */
void rdma_destroy_ah_attr(struct rdma_ah_attr *ah_attr)
{
	if (!ah_attr->grh.sgid_attr)
		return;
	rdma_put_gid_attr(ah_attr->grh.sgid_attr);
	ah_attr->grh.sgid_attr = NULL;
}
EXPORT_SYMBOL(rdma_destroy_ah_attr);

/**
 * rdma_copy_ah_attr - copy an AH attribute, with its own GID reference
 * @dest: uninitialised destination
 * @src: the attribute to copy
 */
void rdma_copy_ah_attr(struct rdma_ah_attr *dest,
		       const struct rdma_ah_attr *src)
{
	*dest = *src;
	if (dest->grh.sgid_attr)
		rdma_hold_gid_attr(dest->grh.sgid_attr);
}
EXPORT_SYMBOL(rdma_copy_ah_attr);

/**
 * rdma_replace_ah_attr - overwrite an AH attribute with a copy of another
 * @old: initialised attribute; its GID reference is dropped
 * @new: the attribute to copy (its GID reference is taken again)
 */
void rdma_replace_ah_attr(struct rdma_ah_attr *old,
			  const struct rdma_ah_attr *new)
{
	rdma_destroy_ah_attr(old);
	rdma_copy_ah_attr(old, new);
}
EXPORT_SYMBOL(rdma_replace_ah_attr);

/**
 * rdma_move_ah_attr - move an AH attribute, GID reference included
 * @dest: initialised attribute; its GID reference is dropped
 * @src: the attribute moved; left without GID reference
 */
void rdma_move_ah_attr(struct rdma_ah_attr *dest, struct rdma_ah_attr *src)
{
	rdma_destroy_ah_attr(dest);
	*dest = *src;
	src->grh.sgid_attr = NULL;
}
EXPORT_SYMBOL(rdma_move_ah_attr);

/**
 * rdma_move_grh_sgid_attr - set an AH attribute's GRH, giving it a GID
 * @attr: the attribute (its previous GID reference, if any, is not put)
 * @dgid: the destination GID
 * @flow_label: the flow label
 * @hop_limit: the hop limit
 * @traffic_class: the traffic class
 * @sgid_attr: a held source GID entry; the caller's reference moves into
 *	@attr (drop it with rdma_destroy_ah_attr())
 *
 * Sets IB_AH_GRH and grh.sgid_index from @sgid_attr.
 */
void rdma_move_grh_sgid_attr(struct rdma_ah_attr *attr, union ib_gid *dgid,
			     u32 flow_label, u8 hop_limit, u8 traffic_class,
			     const struct ib_gid_attr *sgid_attr)
{
	rdma_ah_set_grh(attr, dgid, flow_label, sgid_attr->index, hop_limit,
			traffic_class);
	attr->grh.sgid_attr = sgid_attr;
}
EXPORT_SYMBOL(rdma_move_grh_sgid_attr);

static int check_ah_attr(struct ib_device *device,
			 const struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *sgid_attr = ah_attr->grh.sgid_attr;
	u32 port = rdma_ah_get_port_num(ah_attr);

	if (!rdma_is_port_valid(device, port))
		return -EINVAL;
	/* RoCE addresses are IP addresses: there is no route without GRH. */
	if ((ah_attr->type == RDMA_AH_ATTR_TYPE_ROCE ||
	     rdma_is_grh_required(device, port)) &&
	    !(ah_attr->ah_flags & IB_AH_GRH))
		return -EINVAL;
	if (sgid_attr && (sgid_attr->index != ah_attr->grh.sgid_index ||
			  sgid_attr->port_num != port))
		return -EINVAL;
	return 0;
}

/*
 * Give @ah_attr the reference to its source GID entry that drivers expect
 * in grh.sgid_attr, looked up from the port and sgid_index the user gave,
 * unless the caller already provided one.  *@saved keeps what was there,
 * for put_sgid_attr() once the driver is done.  -EINVAL for a bad port or
 * a missing GRH, or rdma_get_gid_attr()'s error for an empty GID slot.
 */
static int get_sgid_attr(struct ib_device *device,
			 struct rdma_ah_attr *ah_attr,
			 const struct ib_gid_attr **saved)
{
	const struct ib_gid_attr *sgid_attr;
	int ret;

	*saved = ah_attr->grh.sgid_attr;

	ret = check_ah_attr(device, ah_attr);
	if (ret)
		return ret;
	if (!(ah_attr->ah_flags & IB_AH_GRH) || ah_attr->grh.sgid_attr)
		return 0;

	sgid_attr = rdma_get_gid_attr(device, rdma_ah_get_port_num(ah_attr),
				      ah_attr->grh.sgid_index);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	ah_attr->grh.sgid_attr = sgid_attr;
	return 0;
}

static void put_sgid_attr(struct rdma_ah_attr *ah_attr,
			  const struct ib_gid_attr *saved)
{
	if (ah_attr->grh.sgid_attr == saved)
		return;
	rdma_destroy_ah_attr(ah_attr);
	ah_attr->grh.sgid_attr = saved;
}

/* A reference of its own to @ah_attr's source GID, for an object. */
static const struct ib_gid_attr *hold_sgid_attr(struct rdma_ah_attr *ah_attr)
{
	if (!(ah_attr->ah_flags & IB_AH_GRH) || !ah_attr->grh.sgid_attr)
		return NULL;
	rdma_hold_gid_attr(ah_attr->grh.sgid_attr);
	return ah_attr->grh.sgid_attr;
}

/* ------------------------------------------------------------------ */
/* Address handles                                                      */

/*
 * An AH from the driver's create_user_ah (@udata) or create_ah (kernel):
 * it holds a reference to its source GID entry and one usecnt of @pd.
 * The destination MAC of a RoCE address is resolved here (@resolve_dmac)
 * for addresses from user space, which ib_umad passes without @udata;
 * kernel callers come with it resolved (rdma_cm, ib_init_ah_attr_from_wc()).
 */
static struct ib_ah *create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			       u32 flags, bool resolve_dmac,
			       struct ib_udata *udata)
{
	struct rdma_ah_init_attr init_attr = {
		.ah_attr = ah_attr,
		.flags = flags,
	};
	struct ib_device *device = pd->device;
	const struct ib_gid_attr *saved;
	struct ib_ah *ah;
	int ret;

	if (udata ? !device->ops.create_user_ah : !device->ops.create_ah)
		return ERR_PTR(-EOPNOTSUPP);

	ret = get_sgid_attr(device, ah_attr, &saved);
	if (ret)
		return ERR_PTR(ret);

	if (resolve_dmac && ah_attr->type == RDMA_AH_ATTR_TYPE_ROCE) {
		ret = rdma_resolve_roce_dmac(device, ah_attr);
		if (ret)
			goto out;
	}

	ah = rdma_zalloc_drv_obj_gfp(device, ib_ah,
				     (flags & RDMA_CREATE_AH_SLEEPABLE) ?
				     GFP_KERNEL : GFP_ATOMIC);
	if (!ah) {
		ret = -ENOMEM;
		goto out;
	}
	ah->device = device;
	ah->pd = pd;
	ah->type = ah_attr->type;
	ah->sgid_attr = hold_sgid_attr(ah_attr);

	if (udata)
		ret = device->ops.create_user_ah(ah, &init_attr, udata);
	else
		ret = device->ops.create_ah(ah, &init_attr, NULL);
	if (ret) {
		if (ah->sgid_attr)
			rdma_put_gid_attr(ah->sgid_attr);
		kfree(ah);
		goto out;
	}
	atomic_inc(&pd->usecnt);
out:
	put_sgid_attr(ah_attr, saved);
	return ret ? ERR_PTR(ret) : ah;
}

/**
 * rdma_create_user_ah - create an address handle for user space
 * @pd: the protection domain
 * @ah_attr: the address, with type set (rdma_ah_find_type()); for RoCE its
 *	destination MAC is resolved into ah_attr->roce.dmac
 * @udata: the driver's part of the command; NULL for an address user space
 *	gave a kernel object (ib_umad's MADs): the driver's create_ah makes it
 *
 * The AH holds a reference to its source GID entry and one usecnt of @pd.
 *
 * Return: the AH, or ERR_PTR(): -EINVAL for a bad port, a RoCE address
 * without GRH or a GID reference that does not match; the GID lookup's
 * error for an empty source GID slot; the address resolution's error
 * (addr.c); -EOPNOTSUPP when the driver has no create_user_ah (create_ah
 * without @udata); -ENOMEM; or the driver's error.
 */
struct ib_ah *rdma_create_user_ah(struct ib_pd *pd,
				  struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata)
{
	return create_ah(pd, ah_attr, RDMA_CREATE_AH_SLEEPABLE, true, udata);
}
EXPORT_SYMBOL(rdma_create_user_ah);

/**
 * rdma_create_ah - create an address handle for a kernel user
 * @pd: the protection domain
 * @ah_attr: the address, with type set; a RoCE address comes with its
 *	destination MAC in ah_attr->roce.dmac
 * @flags: RDMA_CREATE_AH_SLEEPABLE when the caller may sleep
 *
 * Return: as rdma_create_user_ah(), with -EOPNOTSUPP when the driver has
 * no create_ah.  Destroy it with rdma_destroy_ah().
 */
struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			     u32 flags)
{
	might_sleep_if(flags & RDMA_CREATE_AH_SLEEPABLE);
	return create_ah(pd, ah_attr, flags, false, NULL);
}
EXPORT_SYMBOL(rdma_create_ah);

/**
 * rdma_destroy_ah_user - destroy an address handle
 * @ah: the AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE when the caller may sleep
 * @udata: the user's command, or NULL for a kernel AH
 *
 * Return: 0, or the driver's error (nothing changed then).
 */
int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata)
{
	const struct ib_gid_attr *sgid_attr = ah->sgid_attr;
	struct ib_pd *pd = ah->pd;
	int ret;

	might_sleep_if(flags & RDMA_DESTROY_AH_SLEEPABLE);

	ret = ah->device->ops.destroy_ah(ah, flags);
	if (ret)
		return ret;

	atomic_dec(&pd->usecnt);
	if (sgid_attr)
		rdma_put_gid_attr(sgid_attr);
	kfree(ah);
	return 0;
}
EXPORT_SYMBOL(rdma_destroy_ah_user);

/**
 * rdma_modify_ah - change the address of an address handle
 * @ah: the AH
 * @ah_attr: the new address, of the AH's type
 *
 * The AH's source GID reference follows the new address once the driver
 * accepted it; on failure the AH keeps the old one.
 *
 * Return: 0; -EINVAL for another address type, a bad port, a missing GRH
 * or an empty source GID slot; -EOPNOTSUPP when the driver cannot modify
 * AHs (rxe); or the driver's error.
 */
int rdma_modify_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *saved, *old;
	int ret;

	if (ah->type != ah_attr->type)
		return -EINVAL;
	ret = get_sgid_attr(ah->device, ah_attr, &saved);
	if (ret)
		return ret;

	if (!ah->device->ops.modify_ah) {
		ret = -EOPNOTSUPP;
	} else {
		ret = ah->device->ops.modify_ah(ah, ah_attr);
		if (!ret) {
			old = ah->sgid_attr;
			ah->sgid_attr = hold_sgid_attr(ah_attr);
			if (old)
				rdma_put_gid_attr(old);
		}
	}
	put_sgid_attr(ah_attr, saved);
	return ret;
}
EXPORT_SYMBOL(rdma_modify_ah);

/**
 * rdma_query_ah - the address of an address handle
 * @ah: the AH
 * @ah_attr: filled in by the driver; holds no GID reference
 *	(grh.sgid_attr is NULL)
 *
 * Return: 0, -EOPNOTSUPP when the driver cannot tell, or its error.
 */
int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	ah_attr->grh.sgid_attr = NULL;
	if (!ah->device->ops.query_ah)
		return -EOPNOTSUPP;
	return ah->device->ops.query_ah(ah, ah_attr);
}
EXPORT_SYMBOL(rdma_query_ah);

/* ------------------------------------------------------------------ */
/* Queue pairs                                                          */

static bool qp_type_is_connected(const struct ib_qp *qp)
{
	return qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC ||
	       qp->qp_type == IB_QPT_XRC_INI || qp->qp_type == IB_QPT_XRC_TGT;
}

/* PSNs are 24 bits on the wire; the IB/RoCE drivers expect no more. */
static void mask_psns(struct ib_qp_attr *attr, int attr_mask)
{
	if (attr_mask & IB_QP_RQ_PSN)
		attr->rq_psn &= 0xffffff;
	if (attr_mask & IB_QP_SQ_PSN)
		attr->sq_psn &= 0xffffff;
}

/*
 * qp->av_sgid_attr and qp->alt_path_sgid_attr each hold one reference to
 * the GID entry the driver was last given for that path; a modify with
 * IB_QP_AV or IB_QP_ALT_PATH puts the old one and holds the new one.
 *
 * Locking: the modifies of one QP that carry QP_PATH_MASK must be
 * serialised.  Two of them at once would both put the same old entry,
 * dropping a reference they do not own (and freeing a GID entry the table
 * still uses), and the reference kept could differ from the path the
 * driver applied last.  Who serialises:
 *  - a kernel ULP owns its QP and orders its own modifies, as on stock;
 *  - ib_uverbs, which holds a QP shared for MODIFY_QP, takes the QP's
 *    modify_lock (struct ib_uqp_object), which orders the commands of
 *    one handle;
 *  - the handles of an XRC target QP (each its own uobject, in any
 *    process, or a kernel opener's) all modify one real QP: modify_qp_of()
 *    takes ib_xrc_modify_lock() of the real QP (xrc.c) around the whole
 *    modify, the driver's op included.
 * Otherwise no core lock is held across ops.modify_qp, because a driver's
 * modify may itself modify other QPs (a GSI QP built on hidden QPs).
 * IB_QP_PORT is in the mask because qp->port is written with the
 * references.
 */
#define QP_PATH_MASK	(IB_QP_AV | IB_QP_ALT_PATH | IB_QP_PORT)

/* @attr's paths become the QP's references; see QP_PATH_MASK. */
static void qp_swap_path_refs(struct ib_qp *qp, struct ib_qp_attr *attr,
			      int attr_mask)
{
	if (attr_mask & IB_QP_PORT)
		qp->port = attr->port_num;
	if (attr_mask & IB_QP_AV) {
		if (qp->av_sgid_attr)
			rdma_put_gid_attr(qp->av_sgid_attr);
		qp->av_sgid_attr = hold_sgid_attr(&attr->ah_attr);
	}
	if (attr_mask & IB_QP_ALT_PATH) {
		if (qp->alt_path_sgid_attr)
			rdma_put_gid_attr(qp->alt_path_sgid_attr);
		qp->alt_path_sgid_attr = hold_sgid_attr(&attr->alt_ah_attr);
	}
}

/*
 * Modify @qp: the source GID references of the primary (and alternate)
 * path go into the attributes for the driver and, on success, into the
 * QP (av_sgid_attr, alt_path_sgid_attr) in place of the old ones.  A user
 * RoCE primary path also gets its destination MAC resolved here; kernel
 * callers pass it resolved.
 */
static int modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int attr_mask,
		     struct ib_udata *udata)
{
	u32 port = (attr_mask & IB_QP_PORT) ? attr->port_num : qp->port;
	struct ib_device *device = qp->device;
	const struct ib_gid_attr *saved_av = NULL, *saved_alt = NULL;
	bool bind;
	int ret;

	if (!device->ops.modify_qp)
		return -EOPNOTSUPP;

	attr->xmit_slave = NULL;
	if (attr_mask & IB_QP_AV) {
		ret = get_sgid_attr(device, &attr->ah_attr, &saved_av);
		if (ret)
			return ret;
	}
	if (attr_mask & IB_QP_ALT_PATH) {
		ret = get_sgid_attr(device, &attr->alt_ah_attr, &saved_alt);
		if (ret)
			goto out_av;
		/* Alternate paths (APM) exist on InfiniBand links only. */
		if (!rdma_is_port_valid(device, port) ||
		    !rdma_protocol_ib(device, port) ||
		    !rdma_protocol_ib(device, attr->alt_ah_attr.port_num)) {
			ret = -EINVAL;
			goto out;
		}
	}

	if (udata && (attr_mask & IB_QP_AV) &&
	    attr->ah_attr.type == RDMA_AH_ATTR_TYPE_ROCE &&
	    qp_type_is_connected(qp)) {
		ret = rdma_resolve_roce_dmac(device, &attr->ah_attr);
		if (ret)
			goto out;
	}

	if (rdma_is_port_valid(device, port) && rdma_ib_or_roce(device, port))
		mask_psns(attr, attr_mask);

	/*
	 * A user QP put on a port in auto counter mode is bound as it
	 * enters INIT, before the driver's modify: a driver may apply the
	 * binding there.  A failed modify leaves it unbound.
	 */
	bind = !qp->counter && (attr_mask & IB_QP_STATE) &&
	       attr->qp_state == IB_QPS_INIT && (attr_mask & IB_QP_PORT);
	if (bind) {
		ret = rdma_counter_bind_qp_auto(qp, attr->port_num);
		if (ret)
			goto out;
	}

	/* The driver's modify, under the P_Key checks of an IB QP. */
	ret = ib_qp_sec_modify(qp, attr, attr_mask, udata);
	if (!ret && (attr_mask & QP_PATH_MASK))
		qp_swap_path_refs(qp, attr, attr_mask);
	if (ret && bind)
		rdma_counter_unbind_qp(qp, true);

out:
	if (attr_mask & IB_QP_ALT_PATH)
		put_sgid_attr(&attr->alt_ah_attr, saved_alt);
out_av:
	if (attr_mask & IB_QP_AV)
		put_sgid_attr(&attr->ah_attr, saved_av);
	return ret;
}

/*
 * Modify the QP behind @qp: itself, or for a handle of a shared XRC
 * target QP the real QP, serialised with its other handles' modifies
 * (see QP_PATH_MASK).
 */
static int modify_qp_of(struct ib_qp *qp, struct ib_qp_attr *attr,
			int attr_mask, struct ib_udata *udata)
{
	struct ib_qp *real_qp = qp->real_qp;
	struct mutex *lock;	/* the real QP's, shared by its handles */
	int ret;

	if (real_qp == qp)
		return modify_qp(qp, attr, attr_mask, udata);

	lock = ib_xrc_modify_lock(real_qp);
	mutex_lock(lock);
	ret = modify_qp(real_qp, attr, attr_mask, udata);
	mutex_unlock(lock);
	return ret;
}

/**
 * ib_modify_qp_with_udata - modify a QP for user space
 * @ib_qp: the QP
 * @attr: the attributes in @attr_mask; a primary path (IB_QP_AV) must have
 *	ah_attr.type set (rdma_ah_find_type()); for RoCE on a connected QP
 *	its destination MAC is resolved into ah_attr.roce.dmac
 * @attr_mask: IB_QP_* attributes to change
 * @udata: the driver's part of the command
 *
 * Return: 0; -EINVAL for a bad port, a RoCE path without GRH, a GID
 * reference not matching its index, or an alternate path on a non-IB
 * port; the GID lookup's error (-ENOENT, -EINVAL) for an empty source GID
 * slot; the resolution's error for a RoCE destination (addr.c);
 * -EOPNOTSUPP without ops.modify_qp; or the driver's error.
 */
int ib_modify_qp_with_udata(struct ib_qp *ib_qp, struct ib_qp_attr *attr,
			    int attr_mask, struct ib_udata *udata)
{
	return modify_qp_of(ib_qp, attr, attr_mask, udata);
}
EXPORT_SYMBOL(ib_modify_qp_with_udata);

/**
 * ib_modify_qp - modify a kernel QP
 * @qp: the QP
 * @qp_attr: the attributes; RoCE paths come with their MAC resolved
 * @qp_attr_mask: IB_QP_* attributes to change
 *
 * Return: as ib_modify_qp_with_udata().
 */
int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		 int qp_attr_mask)
{
	return modify_qp_of(qp, qp_attr, qp_attr_mask, NULL);
}
EXPORT_SYMBOL(ib_modify_qp);

/**
 * ib_query_qp - current attributes of a QP, from the driver
 * @qp: the QP
 * @qp_attr: filled in; its paths come without GID references
 * @qp_attr_mask: the attributes wanted (drivers may fill more)
 * @qp_init_attr: filled in with the creation attributes
 *
 * Return: 0, -EOPNOTSUPP without ops.query_qp, or the driver's error.
 */
int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr)
{
	qp_attr->ah_attr.grh.sgid_attr = NULL;
	qp_attr->alt_ah_attr.grh.sgid_attr = NULL;

	if (!qp->device->ops.query_qp)
		return -EOPNOTSUPP;
	return qp->device->ops.query_qp(qp->real_qp, qp_attr, qp_attr_mask,
					qp_init_attr);
}
EXPORT_SYMBOL(ib_query_qp);

/**
 * ib_qp_usecnt_inc - hold the objects a QP uses
 * @qp: made by the driver, its core fields set
 *
 * One usecnt on each of its PD, send CQ, receive CQ (twice on a CQ that
 * serves both), SRQ and RWQ indirection table that it has, so none of
 * them can be destroyed before it.  The creator calls it once the driver
 * made the QP; ib_destroy_qp_user() undoes it with ib_qp_usecnt_dec().
 */
void ib_qp_usecnt_inc(struct ib_qp *qp)
{
	if (qp->pd)
		atomic_inc(&qp->pd->usecnt);
	if (qp->send_cq)
		atomic_inc(&qp->send_cq->usecnt);
	if (qp->recv_cq)
		atomic_inc(&qp->recv_cq->usecnt);
	if (qp->srq)
		atomic_inc(&qp->srq->usecnt);
	if (qp->rwq_ind_tbl)
		atomic_inc(&qp->rwq_ind_tbl->usecnt);
}
EXPORT_SYMBOL(ib_qp_usecnt_inc);

/**
 * ib_qp_usecnt_dec - let go of what ib_qp_usecnt_inc() held
 * @qp: the QP, whose driver object is gone or never was
 */
void ib_qp_usecnt_dec(struct ib_qp *qp)
{
	if (qp->rwq_ind_tbl)
		atomic_dec(&qp->rwq_ind_tbl->usecnt);
	if (qp->srq)
		atomic_dec(&qp->srq->usecnt);
	if (qp->recv_cq)
		atomic_dec(&qp->recv_cq->usecnt);
	if (qp->send_cq)
		atomic_dec(&qp->send_cq->usecnt);
	if (qp->pd)
		atomic_dec(&qp->pd->usecnt);
}
EXPORT_SYMBOL(ib_qp_usecnt_dec);

/**
 * ib_destroy_qp_user - destroy a QP
 * @qp: the QP
 * @udata: the user's command, or NULL for a kernel QP
 *
 * A handle from ib_open_qp() (or ib_create_qp_user() of an XRC target) is
 * closed, and the XRC target QP destroyed with its last handle.
 *
 * Return: 0; -EBUSY while multicast groups are attached or handles are
 * open (qp->usecnt); or the driver's error (nothing changed then).
 */
int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata)
{
	const struct ib_gid_attr *alt_sgid_attr = qp->alt_path_sgid_attr;
	const struct ib_gid_attr *av_sgid_attr = qp->av_sgid_attr;
	struct ib_qp_security *sec = qp->qp_sec;
	int ret;

	if (atomic_read(&qp->usecnt))
		return -EBUSY;
	/* A handle of a shared XRC target QP (ib_open_qp()): closed. */
	if (qp->real_qp != qp)
		return ib_destroy_shared_qp(qp);

	rdma_restrack_begin_del(&qp->res);
	/*
	 * Its counter lets go of it first (and goes with its last QP): a
	 * QP the driver then refuses to destroy stays unbound.
	 */
	rdma_counter_unbind_qp(qp, true);
	/* No P_Key recheck moves it to error once the driver's is gone. */
	ib_qp_sec_destroy_begin(sec);
	ret = qp->device->ops.destroy_qp(qp, udata);
	if (ret) {
		ib_qp_sec_destroy_abort(sec);
		rdma_restrack_abort_del(&qp->res);
		return ret;
	}
	rdma_restrack_del(&qp->res);

	/*
	 * The pools of rdma_rw contexts (rw.c), once the QP can no longer
	 * use their MRs; one still taken is its taker's, and leaks.
	 */
	WARN_ON_ONCE(qp->mrs_used > 0);
	if (!qp->uobject)
		rdma_rw_cleanup_mrs(qp);
	if (alt_sgid_attr)
		rdma_put_gid_attr(alt_sgid_attr);
	if (av_sgid_attr)
		rdma_put_gid_attr(av_sgid_attr);
	ib_qp_usecnt_dec(qp);
	ib_qp_sec_destroy_end(sec);
	kfree(qp);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_qp_user);

/* ------------------------------------------------------------------ */
/* Multicast                                                            */

/*
 * On InfiniBand a multicast group is joined with a multicast LID; RoCE
 * ignores the LID.  A QP is on one port once it left RESET (qp->port);
 * before that, any non-IB port of the device makes the LID irrelevant.
 */
static bool mcast_lid_is_valid(struct ib_qp *qp, u16 lid)
{
	bool any_eth = false;
	u32 port;

	if (qp->port && rdma_is_port_valid(qp->device, qp->port)) {
		any_eth = rdma_port_get_link_layer(qp->device, qp->port) !=
			  IB_LINK_LAYER_INFINIBAND;
	} else {
		rdma_for_each_port(qp->device, port)
			if (rdma_port_get_link_layer(qp->device, port) !=
			    IB_LINK_LAYER_INFINIBAND)
				any_eth = true;
	}
	if (any_eth)
		return true;
	return lid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	       lid != be16_to_cpu(IB_LID_PERMISSIVE);
}

static int check_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	if (qp->qp_type != IB_QPT_UD ||
	    !rdma_is_multicast_addr((struct in6_addr *)gid->raw) ||
	    !mcast_lid_is_valid(qp, lid))
		return -EINVAL;
	return 0;
}

/**
 * ib_attach_mcast - attach a UD QP to a multicast group
 * @qp: the QP; each attachment holds one qp->usecnt
 * @gid: the group's multicast GID
 * @lid: its multicast LID (ignored on RoCE)
 *
 * Return: 0; -EOPNOTSUPP when the driver has no multicast; -EINVAL for a
 * non-UD QP, a non-multicast GID or an invalid LID; or the driver's error.
 */
int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	int ret;

	if (!qp->device->ops.attach_mcast)
		return -EOPNOTSUPP;
	ret = check_mcast(qp, gid, lid);
	if (ret)
		return ret;

	ret = qp->device->ops.attach_mcast(qp, gid, lid);
	if (!ret)
		atomic_inc(&qp->usecnt);
	return ret;
}
EXPORT_SYMBOL(ib_attach_mcast);

/**
 * ib_detach_mcast - detach a UD QP from a multicast group
 * @qp: the QP
 * @gid: the group's multicast GID
 * @lid: its multicast LID (ignored on RoCE)
 *
 * Return: as ib_attach_mcast(); the driver's error when not attached.
 */
int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	int ret;

	if (!qp->device->ops.detach_mcast)
		return -EOPNOTSUPP;
	ret = check_mcast(qp, gid, lid);
	if (ret)
		return ret;

	ret = qp->device->ops.detach_mcast(qp, gid, lid);
	if (!ret)
		atomic_dec(&qp->usecnt);
	return ret;
}
EXPORT_SYMBOL(ib_detach_mcast);

/* ------------------------------------------------------------------ */
/* Destruction of the other objects                                     */

/**
 * ib_destroy_cq_user - destroy a CQ
 * @cq: the CQ
 * @udata: the user's command, or NULL for a kernel CQ
 *
 * Return: 0; -EBUSY while QPs or SRQs use it; -EOPNOTSUPP for a CQ of the
 * shared pool (returned with ib_cq_pool_put()); or the driver's error.
 */
int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata)
{
	int ret;

	if (cq->shared)
		return -EOPNOTSUPP;
	if (atomic_read(&cq->usecnt))
		return -EBUSY;

	rdma_restrack_begin_del(&cq->res);
	ret = cq->device->ops.destroy_cq(cq, udata);
	if (ret) {
		rdma_restrack_abort_del(&cq->res);
		return ret;
	}

	rdma_restrack_del(&cq->res);
	kfree(cq);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_cq_user);

/**
 * ib_resize_cq - change the number of entries of a kernel CQ
 * @cq: the CQ
 * @cqe: the entries wanted; the driver may give more (cq->cqe)
 *
 * Return: 0; -EOPNOTSUPP for a CQ of the shared pool or a driver that
 * cannot resize; or the driver's error (-EINVAL for fewer entries than
 * the CQ holds, say).
 */
int ib_resize_cq(struct ib_cq *cq, int cqe)
{
	if (cq->shared || !cq->device->ops.resize_cq)
		return -EOPNOTSUPP;
	return cq->device->ops.resize_cq(cq, cqe, NULL);
}
EXPORT_SYMBOL(ib_resize_cq);

/**
 * rdma_set_cq_moderation - coalesce completion events of a CQ
 * @cq: the CQ
 * @cq_count: completions before an event
 * @cq_period: microseconds before an event
 *
 * Return: 0; -EOPNOTSUPP for a CQ of the shared pool (its users would
 * disagree) or a driver without moderation (rxe); or the driver's error.
 */
int rdma_set_cq_moderation(struct ib_cq *cq, u16 cq_count, u16 cq_period)
{
	if (cq->shared || !cq->device->ops.modify_cq)
		return -EOPNOTSUPP;
	return cq->device->ops.modify_cq(cq, cq_count, cq_period);
}
EXPORT_SYMBOL(rdma_set_cq_moderation);

/**
 * ib_destroy_srq_user - destroy an SRQ
 * @srq: the SRQ
 * @udata: the user's command, or NULL for a kernel SRQ
 *
 * Drops the usecnt it holds on its PD, on its CQ for types with one, and
 * on its XRC domain for XRC SRQs.
 *
 * Return: 0; -EBUSY while QPs use it; or the driver's error.
 */
int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata)
{
	enum ib_srq_type type = srq->srq_type;
	struct ib_xrcd *xrcd = NULL;
	struct ib_cq *cq = NULL;
	struct ib_pd *pd = srq->pd;
	int ret;

	if (atomic_read(&srq->usecnt))
		return -EBUSY;
	if (type == IB_SRQT_XRC)
		xrcd = srq->ext.xrc.xrcd;
	if (ib_srq_has_cq(type))
		cq = srq->ext.cq;

	rdma_restrack_begin_del(&srq->res);
	ret = srq->device->ops.destroy_srq(srq, udata);
	if (ret) {
		rdma_restrack_abort_del(&srq->res);
		return ret;
	}
	rdma_restrack_del(&srq->res);

	atomic_dec(&pd->usecnt);
	if (xrcd)
		atomic_dec(&xrcd->usecnt);
	if (cq)
		atomic_dec(&cq->usecnt);
	kfree(srq);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_srq_user);

/**
 * ib_dereg_mr_user - deregister (and free) an MR
 * @mr: the MR; the driver's dereg_mr frees it
 * @udata: the user's command, or NULL for a kernel MR
 *
 * The MR leaves restrack first, as it is gone once the driver succeeds;
 * when the driver fails (e.g. memory windows still bound) it is listed
 * again, under the same id.
 *
 * Return: 0 or the driver's error.
 */
int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata)
{
	struct ib_sig_attrs *sig_attrs = mr->sig_attrs;
	struct rdma_restrack_leftover left;
	struct ib_pd *pd = mr->pd;
	struct ib_dm *dm = mr->dm;
	int ret;

	rdma_restrack_begin_del(&mr->res);
	/* The driver frees the MR with its entry. */
	rdma_restrack_leftover(&mr->res, &left);
	ret = mr->device->ops.dereg_mr(mr, udata);
	if (ret) {
		rdma_restrack_abort_del(&mr->res);
		return ret;
	}
	rdma_restrack_free_leftover(&left);

	atomic_dec(&pd->usecnt);
	if (dm)
		atomic_dec(&dm->usecnt);
	kfree(sig_attrs);
	return 0;
}
EXPORT_SYMBOL(ib_dereg_mr_user);

/**
 * ib_dealloc_pd_user - free a PD
 * @pd: the PD, no longer used by any object (the caller checks usecnt)
 * @udata: the user's command, or NULL for a kernel PD
 *
 * A kernel PD's internal MR (pd->local_dma_lkey) is deregistered first.
 *
 * Return: 0 or the driver's error (nothing changed then).
 */
int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata)
{
	int ret;

	/* __ib_alloc_pd()'s MR over all of memory goes with the PD. */
	if (pd->__internal_mr) {
		ret = pd->device->ops.dereg_mr(pd->__internal_mr, NULL);
		if (ret)
			return ret;
		pd->__internal_mr = NULL;
	}

	rdma_restrack_begin_del(&pd->res);
	ret = pd->device->ops.dealloc_pd(pd, udata);
	if (ret) {
		rdma_restrack_abort_del(&pd->res);
		return ret;
	}

	rdma_restrack_del(&pd->res);
	kfree(pd);
	return 0;
}
EXPORT_SYMBOL(ib_dealloc_pd_user);

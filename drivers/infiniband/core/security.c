// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LSM hooks of InfiniBand (security_ib_*), built only with
 * CONFIG_SECURITY_INFINIBAND; without it core_priv.h has the stubs.
 *
 * What a security module decides (SELinux's infiniband_pkey and
 * infiniband_endport classes):
 *  - whether a QP may use a P_Key on a subnet (security_ib_pkey_access()
 *    with the subnet prefix and the P_Key value of a port's P_Key index),
 *    asked when a modify gives a QP its port and P_Key index or an
 *    alternate path (-EACCES or the module's errno fails the modify),
 *    when a process opens a handle of a shared XRC target QP (each
 *    handle is a holder of its own), and again for every QP of a port
 *    when the port's P_Key table or GIDs change or the policy changes:
 *    a QP no longer allowed is moved to the error state and its holders
 *    get IB_EVENT_QP_FATAL;
 *  - whether a MAD agent may send or receive a MAD with a P_Key index
 *    (QP1, security_ib_pkey_access() again), and whether an agent of QP0
 *    may manage the subnet through the port at all
 *    (security_ib_endport_manage_subnet(), asked when it registers and
 *    again when the policy changes; a send is then -EACCES and a receive
 *    dropped).
 * Each QP, XRC handle and MAD agent has a blob of its own, taken in its
 * creator's context (security_ib_alloc_security()) and given back when
 * it goes (security_ib_free_security()).
 *
 * Only InfiniBand ports are concerned: a QP gets its struct
 * ib_qp_security only on a device with an IB port, and a MAD agent only
 * on an IB port.  RoCE and iWARP devices (rxe) never reach this file.
 * Special QPs (QP0, QP1, the drivers' own types) are the MAD layer's and
 * are checked through its agents instead.
 *
 * Data and locking:
 *	qp_sec->mutex		a real QP's ports_pkeys (its main and
 *				alternate port/P_Key index, struct
 *				ib_ports_pkeys), its shared_qp_list (the
 *				ib_qp_security of its XRC handles) and
 *				`destroying`; held across the driver's
 *				modify_qp of a modify that changes them, and
 *				while a QP is moved to the error state.
 *	port_data[p].pkey_list_lock  the port's pkey_list of struct
 *				ib_pkey_qps, one per P_Key index in use, each
 *				with the listed ib_port_pkey of the QPs
 *				using it (state IB_PORT_PKEY_LISTED).  A
 *				setting is listed before it is checked, so
 *				that a change of the port meanwhile finds it.
 *	qp_sec->error_list_count  pins: how many rechecks (port changes,
 *				policy changes) hold the ib_qp_security
 *				after they let go of the list lock; the
 *				QP's destroy waits for none to be left.
 *	mad_agents_lock		mad_agents, the agents of QP0 whose
 *				smp_allowed a policy change recomputes.
 * Lock order: the XRC modify lock (xrc.c), then qp_sec->mutex, then
 * pkey_list_lock.  A recheck takes pkey_list_lock alone, then each QP's
 * mutex in turn; moving a QP to the error state modifies its state only,
 * which takes neither again.
 */
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* The QPs of one port using one P_Key index; see the locking above. */
struct ib_pkey_qps {
	struct list_head port_entry;	/* in port_data[].pkey_list */
	struct list_head qps;		/* of struct ib_port_pkey.qp_list */
	u16 pkey_index;
};

static LIST_HEAD(mad_agents);
static DEFINE_MUTEX(mad_agents_lock);

/* ------------------------------------------------------------------ */
/* Settings and the questions asked about them                          */

static bool device_has_ib_port(struct ib_device *device)
{
	u32 port;

	rdma_for_each_port(device, port)
		if (rdma_protocol_ib(device, port))
			return true;
	return false;
}

/* QP0, QP1 and the drivers' own types: the MAD layer's business. */
static bool qp_is_special(const struct ib_qp *qp)
{
	return qp->qp_type == IB_QPT_SMI || qp->qp_type == IB_QPT_GSI ||
	       qp->qp_type >= IB_QPT_RESERVED1;
}

/* May @blob use the P_Key at @index of @port, on the port's subnet? */
static int pkey_index_allowed(struct ib_device *device, u32 port, u16 index,
			      void *blob)
{
	u64 subnet_prefix;
	u16 pkey;
	int ret;

	ret = ib_get_cached_pkey(device, port, index, &pkey);
	if (ret)
		return ret;
	ib_get_cached_subnet_prefix(device, port, &subnet_prefix);
	return security_ib_pkey_access(blob, subnet_prefix, pkey);
}

static int setting_allowed(const struct ib_port_pkey *pp, void *blob)
{
	if (pp->state == IB_PORT_PKEY_NOT_VALID)
		return 0;
	return pkey_index_allowed(pp->sec->dev, pp->port_num, pp->pkey_index,
				  blob);
}

/* Both paths of @pps, for one holder's @blob. */
static int settings_allowed(const struct ib_ports_pkeys *pps, void *blob)
{
	int ret;

	if (!pps)
		return 0;
	ret = setting_allowed(&pps->main, blob);
	if (!ret)
		ret = setting_allowed(&pps->alt, blob);
	return ret;
}

/* @pps for every holder of the real QP of @sec: itself and its handles. */
static int settings_allowed_all(const struct ib_ports_pkeys *pps,
				struct ib_qp_security *sec)
{
	struct ib_qp_security *handle;
	int ret;

	lockdep_assert_held(&sec->mutex);
	ret = settings_allowed(pps, sec->security);
	list_for_each_entry(handle, &sec->shared_qp_list, shared_qp_list) {
		if (ret)
			break;
		ret = settings_allowed(pps, handle->security);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* The ports' lists of settings in use                                  */

static struct ib_pkey_qps *pkey_qps_find(struct ib_port_data *pdata,
					 u16 index)
{
	struct ib_pkey_qps *users;

	lockdep_assert_held(&pdata->pkey_list_lock);
	list_for_each_entry(users, &pdata->pkey_list, port_entry)
		if (users->pkey_index == index)
			return users;
	return NULL;
}

/* A valid setting joins its port's list (an index's first user adds it). */
static int setting_list(struct ib_port_pkey *pp)
{
	struct ib_port_data *pdata;
	struct ib_pkey_qps *users, *fresh = NULL;

	if (pp->state != IB_PORT_PKEY_VALID)
		return 0;
	pdata = &pp->sec->dev->port_data[pp->port_num];
	for (;;) {
		spin_lock(&pdata->pkey_list_lock);
		users = pkey_qps_find(pdata, pp->pkey_index);
		if (!users && fresh) {
			users = fresh;
			fresh = NULL;
			list_add(&users->port_entry, &pdata->pkey_list);
		}
		if (users) {
			list_add_tail(&pp->qp_list, &users->qps);
			pp->state = IB_PORT_PKEY_LISTED;
		}
		spin_unlock(&pdata->pkey_list_lock);
		if (users)
			break;
		/* Allocated unlocked, the lookup done again. */
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh)
			return -ENOMEM;
		fresh->pkey_index = pp->pkey_index;
		INIT_LIST_HEAD(&fresh->qps);
	}
	kfree(fresh);
	return 0;
}

/* A listed setting leaves its port's list (its index's last user too). */
static void setting_unlist(struct ib_port_pkey *pp)
{
	struct ib_port_data *pdata;
	struct ib_pkey_qps *users, *unused = NULL;

	if (pp->state != IB_PORT_PKEY_LISTED)
		return;
	pdata = &pp->sec->dev->port_data[pp->port_num];
	spin_lock(&pdata->pkey_list_lock);
	list_del(&pp->qp_list);
	pp->state = IB_PORT_PKEY_VALID;
	users = pkey_qps_find(pdata, pp->pkey_index);
	if (users && list_empty(&users->qps)) {
		list_del(&users->port_entry);
		unused = users;
	}
	spin_unlock(&pdata->pkey_list_lock);
	kfree(unused);
}

static int settings_list(struct ib_ports_pkeys *pps)
{
	int ret;

	ret = setting_list(&pps->main);
	if (!ret)
		ret = setting_list(&pps->alt);
	return ret;
}

static void settings_unlist(struct ib_ports_pkeys *pps)
{
	if (!pps)
		return;
	setting_unlist(&pps->main);
	setting_unlist(&pps->alt);
}

/* ------------------------------------------------------------------ */
/* QPs                                                                  */

/*
 * The settings a modify would leave the QP with: each path's port and
 * P_Key index from @attr where @mask gives them, else the QP's.  The
 * primary path is checked once both its port and its index are known;
 * the alternate path once given.
 */
static struct ib_ports_pkeys *settings_after(struct ib_qp_security *sec,
					     const struct ib_qp_attr *attr,
					     int mask)
{
	const struct ib_ports_pkeys *old = sec->ports_pkeys;
	struct ib_ports_pkeys *pps;

	pps = kzalloc(sizeof(*pps), GFP_KERNEL);
	if (!pps)
		return ERR_PTR(-ENOMEM);
	if (old) {
		pps->main.port_num = old->main.port_num;
		pps->main.pkey_index = old->main.pkey_index;
		if (old->main.state != IB_PORT_PKEY_NOT_VALID)
			pps->main.state = IB_PORT_PKEY_VALID;
		pps->alt.port_num = old->alt.port_num;
		pps->alt.pkey_index = old->alt.pkey_index;
		if (old->alt.state != IB_PORT_PKEY_NOT_VALID)
			pps->alt.state = IB_PORT_PKEY_VALID;
	}
	if (mask & IB_QP_PORT)
		pps->main.port_num = attr->port_num;
	if (mask & IB_QP_PKEY_INDEX)
		pps->main.pkey_index = attr->pkey_index;
	if ((mask & IB_QP_PORT) && (mask & IB_QP_PKEY_INDEX))
		pps->main.state = IB_PORT_PKEY_VALID;
	if (mask & IB_QP_ALT_PATH) {
		pps->alt.port_num = attr->alt_port_num;
		pps->alt.pkey_index = attr->alt_pkey_index;
		pps->alt.state = IB_PORT_PKEY_VALID;
	}
	pps->main.sec = sec;
	pps->alt.sec = sec;

	/* The lists are per port: a bad port is refused before them. */
	if ((pps->main.state != IB_PORT_PKEY_NOT_VALID &&
	     !rdma_is_port_valid(sec->dev, pps->main.port_num)) ||
	    (pps->alt.state != IB_PORT_PKEY_NOT_VALID &&
	     !rdma_is_port_valid(sec->dev, pps->alt.port_num))) {
		kfree(pps);
		return ERR_PTR(-EINVAL);
	}
	return pps;
}

static struct ib_qp_security *qp_sec_alloc(struct ib_qp *qp)
{
	struct ib_qp_security *sec;
	int ret;

	sec = kzalloc(sizeof(*sec), GFP_KERNEL);
	if (!sec)
		return ERR_PTR(-ENOMEM);
	ret = security_ib_alloc_security(&sec->security);
	if (ret) {
		kfree(sec);
		return ERR_PTR(ret);
	}
	sec->qp = qp;
	sec->dev = qp->device;
	mutex_init(&sec->mutex);
	INIT_LIST_HEAD(&sec->shared_qp_list);
	atomic_set(&sec->error_list_count, 0);
	return sec;
}

static void qp_sec_free(struct ib_qp_security *sec)
{
	security_ib_free_security(sec->security);
	kfree(sec->ports_pkeys);
	mutex_destroy(&sec->mutex);
	kfree(sec);
}

/**
 * ib_qp_sec_create - a new QP's security context
 * @qp: the QP, allocated, before the driver creates it
 *
 * Return: 0 (qp->qp_sec NULL on a device without IB port), -ENOMEM, or
 * the security module's error for the blob.
 */
int ib_qp_sec_create(struct ib_qp *qp)
{
	struct ib_qp_security *sec;

	if (!device_has_ib_port(qp->device))
		return 0;
	sec = qp_sec_alloc(qp);
	if (IS_ERR(sec))
		return PTR_ERR(sec);
	qp->qp_sec = sec;
	return 0;
}

/**
 * ib_qp_sec_free - free the security context of a QP the driver never made
 * @qp: the QP
 */
void ib_qp_sec_free(struct ib_qp *qp)
{
	if (!qp->qp_sec)
		return;
	qp_sec_free(qp->qp_sec);
	qp->qp_sec = NULL;
}

/**
 * ib_qp_sec_open_handle - the security context of an XRC handle
 * @handle: the new handle, its real_qp and device set
 *
 * The opener's blob must be allowed what the real QP uses now; the
 * handle then joins the holders checked on every later change.
 *
 * Return: 0, -ENOMEM, or the security module's error (-EACCES).
 */
int ib_qp_sec_open_handle(struct ib_qp *handle)
{
	struct ib_qp_security *real_sec = handle->real_qp->qp_sec;
	struct ib_qp_security *sec;
	int ret;

	if (!real_sec)
		return 0;
	sec = qp_sec_alloc(handle);
	if (IS_ERR(sec))
		return PTR_ERR(sec);

	mutex_lock(&real_sec->mutex);
	ret = settings_allowed(real_sec->ports_pkeys, sec->security);
	if (!ret)
		list_add_tail(&sec->shared_qp_list, &real_sec->shared_qp_list);
	mutex_unlock(&real_sec->mutex);
	if (ret) {
		qp_sec_free(sec);
		return ret;
	}
	handle->qp_sec = sec;
	return 0;
}

/**
 * ib_qp_sec_close_handle - drop the security context of an XRC handle
 * @handle: the handle being closed
 */
void ib_qp_sec_close_handle(struct ib_qp *handle)
{
	struct ib_qp_security *real_sec = handle->real_qp->qp_sec;
	struct ib_qp_security *sec = handle->qp_sec;

	if (!sec)
		return;
	mutex_lock(&real_sec->mutex);
	list_del(&sec->shared_qp_list);
	mutex_unlock(&real_sec->mutex);
	qp_sec_free(sec);
	handle->qp_sec = NULL;
}

/**
 * ib_qp_sec_modify - the driver's modify_qp, under the P_Key checks
 * @qp: a real QP
 * @attr: the attributes
 * @mask: IB_QP_* attributes to change
 * @udata: the user's command, or NULL
 *
 * A modify that changes the port, the P_Key index or the alternate path
 * of an IB QP that is not special has its new settings listed, then
 * checked for every holder of the QP, then applied by the driver; the
 * settings that lose (the old ones on success, the new on failure)
 * leave the lists.
 *
 * Return: the driver's result; or -EACCES (the security module's errno)
 * when a holder may not use a new P_Key, -EINVAL for a bad port or
 * P_Key index, -ENOMEM.
 */
int ib_qp_sec_modify(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata)
{
	struct ib_qp_security *sec = qp->qp_sec;
	struct ib_ports_pkeys *pps, *loser;
	int ret;

	if (!sec || qp_is_special(qp) ||
	    !(mask & (IB_QP_PORT | IB_QP_PKEY_INDEX | IB_QP_ALT_PATH)))
		return qp->device->ops.modify_qp(qp, attr, mask, udata);

	mutex_lock(&sec->mutex);
	pps = settings_after(sec, attr, mask);
	if (IS_ERR(pps)) {
		ret = PTR_ERR(pps);
		goto out;
	}
	ret = settings_list(pps);
	if (!ret)
		ret = settings_allowed_all(pps, sec);
	if (!ret)
		ret = qp->device->ops.modify_qp(qp, attr, mask, udata);
	if (ret) {
		loser = pps;
	} else {
		loser = sec->ports_pkeys;
		sec->ports_pkeys = pps;
	}
	settings_unlist(loser);
	kfree(loser);
out:
	mutex_unlock(&sec->mutex);
	return ret;
}

/*
 * A QP that a holder may no longer use is moved to the error state; its
 * handler hears IB_EVENT_QP_FATAL (an XRC target's handler passes it to
 * every handle).  Not one being destroyed: its driver object may be gone.
 */
static void qp_sec_to_error(struct ib_qp_security *sec)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_qp *qp = sec->qp;
	struct ib_event event = {
		.device = qp->device,
		.element.qp = qp,
		.event = IB_EVENT_QP_FATAL,
	};

	lockdep_assert_held(&sec->mutex);
	if (sec->destroying)
		return;
	ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (qp->event_handler)
		qp->event_handler(&event, qp->qp_context);
}

/**
 * ib_qp_sec_destroy_begin - a QP's destroy starts
 * @sec: its security context, or NULL
 *
 * Its settings leave the lists, and a recheck holding it leaves it be.
 */
void ib_qp_sec_destroy_begin(struct ib_qp_security *sec)
{
	if (!sec)
		return;
	mutex_lock(&sec->mutex);
	settings_unlist(sec->ports_pkeys);
	sec->destroying = true;
	mutex_unlock(&sec->mutex);
}

/**
 * ib_qp_sec_destroy_abort - the driver refused to destroy the QP
 * @sec: its security context, or NULL
 *
 * The QP lives on: its settings are listed again and, the port having
 * possibly changed meanwhile, checked again.
 */
void ib_qp_sec_destroy_abort(struct ib_qp_security *sec)
{
	if (!sec)
		return;
	mutex_lock(&sec->mutex);
	sec->destroying = false;
	if (sec->ports_pkeys &&
	    (settings_list(sec->ports_pkeys) ||
	     settings_allowed_all(sec->ports_pkeys, sec)))
		qp_sec_to_error(sec);
	mutex_unlock(&sec->mutex);
}

/**
 * ib_qp_sec_destroy_end - the QP is destroyed: free its context
 * @sec: its security context, or NULL
 *
 * Waits for the rechecks that still hold it (they skip it).
 */
void ib_qp_sec_destroy_end(struct ib_qp_security *sec)
{
	if (!sec)
		return;
	wait_var_event(&sec->error_list_count,
		       !atomic_read(&sec->error_list_count));
	qp_sec_free(sec);
}

/* ------------------------------------------------------------------ */
/* Rechecks: a port changed, or the policy                             */

/* The pinned QPs of a recheck, to be checked out of the list lock. */
struct qp_sec_batch {
	struct ib_qp_security **secs;
	unsigned int n, size;
};

/*
 * Pins every QP listed on @port into @batch, if they fit.
 * Return: 0, or how many there are when they do not (none pinned).
 */
static unsigned int port_pin_qps(struct ib_device *device, u32 port,
				 struct qp_sec_batch *batch)
{
	struct ib_port_data *pdata = &device->port_data[port];
	struct ib_pkey_qps *users;
	struct ib_port_pkey *pp;
	unsigned int count = 0;

	spin_lock(&pdata->pkey_list_lock);
	list_for_each_entry(users, &pdata->pkey_list, port_entry)
		list_for_each_entry(pp, &users->qps, qp_list)
			count++;
	if (count > batch->size)
		goto out;
	count = 0;
	list_for_each_entry(users, &pdata->pkey_list, port_entry) {
		list_for_each_entry(pp, &users->qps, qp_list) {
			atomic_inc(&pp->sec->error_list_count);
			batch->secs[batch->n++] = pp->sec;
		}
	}
out:
	spin_unlock(&pdata->pkey_list_lock);
	return count;
}

static void qp_sec_unpin(struct ib_qp_security *sec)
{
	if (atomic_dec_and_test(&sec->error_list_count))
		wake_up_var(&sec->error_list_count);
}

static int sec_cmp(const void *a, const void *b)
{
	const struct ib_qp_security *x = *(const struct ib_qp_security **)a;
	const struct ib_qp_security *y = *(const struct ib_qp_security **)b;

	return x < y ? -1 : x > y;
}

/*
 * Each pinned QP checked as it is now, once (a QP whose two paths, or
 * whose old and new settings in a modify, are on the port is pinned
 * twice), and unpinned.
 */
static void batch_check(struct qp_sec_batch *batch)
{
	struct ib_qp_security *sec;
	unsigned int i;

	sort(batch->secs, batch->n, sizeof(*batch->secs), sec_cmp, NULL);
	for (i = 0; i < batch->n; i++) {
		sec = batch->secs[i];
		if (i && sec == batch->secs[i - 1]) {
			qp_sec_unpin(sec);
			continue;
		}
		mutex_lock(&sec->mutex);
		if (!sec->destroying &&
		    settings_allowed_all(sec->ports_pkeys, sec))
			qp_sec_to_error(sec);
		mutex_unlock(&sec->mutex);
		qp_sec_unpin(sec);
	}
	batch->n = 0;
}

/**
 * ib_security_port_changed - check a port's QPs again
 * @device: the device
 * @port: a port whose P_Key table, GIDs (subnet prefix) or policy changed
 *
 * Every QP using a P_Key index of @port is checked with the cache as it
 * is now; the ones no longer allowed go to the error state.
 *
 * Context: process; the port's cache already refreshed.
 */
void ib_security_port_changed(struct ib_device *device, u32 port)
{
	struct qp_sec_batch batch = {};
	struct ib_qp_security **bigger;
	unsigned int needed;

	/* Sized unlocked: more QPs may come meanwhile, then again. */
	while ((needed = port_pin_qps(device, port, &batch))) {
		bigger = krealloc_array(batch.secs, needed + 16,
					sizeof(*batch.secs), GFP_KERNEL);
		if (!bigger) {
			dev_err(&device->dev,
				"port %u: no memory to check its QPs' P_Keys\n",
				port);
			break;
		}
		batch.secs = bigger;
		batch.size = needed + 16;
	}
	batch_check(&batch);
	kfree(batch.secs);
}

/* ------------------------------------------------------------------ */
/* MAD agents                                                           */

static int smp_access(struct ib_mad_agent *agent)
{
	return security_ib_endport_manage_subnet(agent->security,
						 dev_name(&agent->device->dev),
						 agent->port_num);
}

/**
 * ib_mad_agent_sec_setup - a new agent's security context
 * @agent: the agent, its device, port and QP set, not yet published
 *
 * On an IB port the agent gets its blob; an agent of QP0 must also be
 * allowed to manage the subnet through the port.
 *
 * Return: 0, or the security module's error (-EACCES), -ENOMEM.
 */
int ib_mad_agent_sec_setup(struct ib_mad_agent *agent)
{
	int ret;

	if (!rdma_protocol_ib(agent->device, agent->port_num))
		return 0;
	ret = security_ib_alloc_security(&agent->security);
	if (ret)
		return ret;
	if (agent->qp->qp_type != IB_QPT_SMI)
		return 0;

	mutex_lock(&mad_agents_lock);
	ret = smp_access(agent);
	if (!ret) {
		WRITE_ONCE(agent->smp_allowed, true);
		list_add_tail(&agent->mad_agent_sec_list, &mad_agents);
	}
	mutex_unlock(&mad_agents_lock);
	if (ret)
		security_ib_free_security(agent->security);
	return ret;
}

/**
 * ib_mad_agent_sec_cleanup - drop an agent's security context
 * @agent: the agent, unpublished
 */
void ib_mad_agent_sec_cleanup(struct ib_mad_agent *agent)
{
	if (!rdma_protocol_ib(agent->device, agent->port_num))
		return;
	if (agent->qp->qp_type == IB_QPT_SMI) {
		mutex_lock(&mad_agents_lock);
		list_del(&agent->mad_agent_sec_list);
		mutex_unlock(&mad_agents_lock);
	}
	security_ib_free_security(agent->security);
}

/**
 * ib_mad_agent_sec_check - may the agent send or receive this MAD?
 * @agent: the agent
 * @pkey_index: the P_Key index of the send WR or of the received MAD
 *
 * Context: any (the security modules answer without sleeping).
 * Return: 0, or -EACCES (QP0: no subnet management) or the security
 * module's error for the P_Key (QP1).
 */
int ib_mad_agent_sec_check(struct ib_mad_agent *agent, u16 pkey_index)
{
	if (!rdma_protocol_ib(agent->device, agent->port_num))
		return 0;
	if (agent->qp->qp_type == IB_QPT_SMI)
		return READ_ONCE(agent->smp_allowed) ? 0 : -EACCES;
	return pkey_index_allowed(agent->device, agent->port_num, pkey_index,
				  agent->security);
}

/* ------------------------------------------------------------------ */
/* Policy changes                                                       */

static void policy_recheck_ports(struct work_struct *work)
{
	struct ib_device *device;
	unsigned long index = 0;
	u32 port;

	while ((device = ib_device_get_next(NULL, &index))) {
		rdma_for_each_port(device, port)
			ib_security_port_changed(device, port);
		ib_device_put(device);
		index++;
	}
}

static DECLARE_WORK(policy_work, policy_recheck_ports);

static int policy_changed(struct notifier_block *nb, unsigned long event,
			  void *data)
{
	struct ib_mad_agent *agent;

	if (event != LSM_POLICY_CHANGE)
		return NOTIFY_DONE;

	mutex_lock(&mad_agents_lock);
	list_for_each_entry(agent, &mad_agents, mad_agent_sec_list)
		WRITE_ONCE(agent->smp_allowed, !smp_access(agent));
	mutex_unlock(&mad_agents_lock);
	/* The QPs out of the notifier's chain: they modify and wait. */
	schedule_work(&policy_work);
	return NOTIFY_OK;
}

static struct notifier_block policy_nb = {
	.notifier_call = policy_changed,
};

int __init ib_security_init(void)
{
	return register_blocking_lsm_notifier(&policy_nb);
}

void ib_security_exit(void)
{
	unregister_blocking_lsm_notifier(&policy_nb);
	cancel_work_sync(&policy_work);
}

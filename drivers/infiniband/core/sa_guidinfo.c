// SPDX-License-Identifier: GPL-2.0-only
/*
 * GuidInfoRecord queries of the SA (IBTA vol. 1 15.2.5.18), which mlx4
 * uses to register the alias GUIDs of its virtual functions.  Like path
 * record queries (sa_path.c) they need an IB SA client, which this core
 * does not have: they fail at once, with the same errnos, and the
 * callback is never called.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

/**
 * ib_sa_guid_info_rec_query - get, set or delete alias GUIDs at the SA
 * @client: a registered client
 * @device: the device
 * @port_num: the port whose SA is asked
 * @rec: the record's fields (those in @comp_mask)
 * @comp_mask: IB_SA_GUIDINFO_REC_* of the fields that are set
 * @method: IB_MGMT_METHOD_GET, IB_MGMT_METHOD_SET or IB_SA_METHOD_DELETE
 * @timeout_ms: how long to wait for the answer
 * @gfp_mask: for the query's memory
 * @callback: the answer, later
 * @context: for @callback
 * @sa_query: the query, for ib_sa_cancel_query()
 *
 * Return: the query id (>= 0), or -ENODEV when @port_num has no SA (any
 * port that is not IB), -EINVAL for another method, -EOPNOTSUPP on an IB
 * port (there is no IB SA client).  On error @callback is never called.
 */
int ib_sa_guid_info_rec_query(struct ib_sa_client *client,
			      struct ib_device *device, u32 port_num,
			      struct ib_sa_guidinfo_rec *rec,
			      ib_sa_comp_mask comp_mask, u8 method,
			      unsigned long timeout_ms, gfp_t gfp_mask,
			      void (*callback)(int status,
					       struct ib_sa_guidinfo_rec *resp,
					       void *context),
			      void *context, struct ib_sa_query **sa_query)
{
	if (!rdma_is_port_valid(device, port_num) ||
	    !rdma_cap_ib_sa(device, port_num))
		return -ENODEV;
	if (method != IB_MGMT_METHOD_GET && method != IB_MGMT_METHOD_SET &&
	    method != IB_SA_METHOD_DELETE)
		return -EINVAL;
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_sa_guid_info_rec_query);

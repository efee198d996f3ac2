// SPDX-License-Identifier: GPL-2.0-only
/*
 * The subnet administrator (SA) client API of <rdma/ib_sa.h>: client
 * registration, path record queries and their cancellation, the path
 * record's wire format, and address handles made from path records.
 *
 * Only IB ports have an SA.  RoCE ports never query one: rdma_cm builds
 * their path records itself from the IP route, and ib_cm sends them
 * packed in its REQ.  This ib_core has no IB SA client yet (no device
 * it drives has an IB port): a query on an IB port fails with
 * -EOPNOTSUPP, on any other port with -ENODEV as on the stock kernel
 * (whose SA client does not attach to ports without an SA).  So no query
 * ever exists, ib_sa_cancel_query() has nothing to cancel and no callback
 * is ever called.
 */
#include <linux/completion.h>
#include <asm/unaligned.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* ------------------------------------------------------------------ */
/* Clients                                                              */

/*
 * A client holds one reference on itself from registration until its
 * unregistration; each query it owns would hold one more, so that
 * unregistering waits for its queries' callbacks to be over.
 */
static void sa_client_put(struct ib_sa_client *client)
{
	if (atomic_dec_and_test(&client->users))
		complete(&client->comp);
}

/**
 * ib_sa_register_client - make an SA client usable for queries
 * @client: the caller's (typically static) client
 */
void ib_sa_register_client(struct ib_sa_client *client)
{
	atomic_set(&client->users, 1);
	init_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_register_client);

/**
 * ib_sa_unregister_client - retire an SA client
 * @client: a registered client
 *
 * Returns once no query of @client is left, nor any of its callbacks
 * running.  Sleeps.
 */
void ib_sa_unregister_client(struct ib_sa_client *client)
{
	sa_client_put(client);
	wait_for_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_unregister_client);

/* ------------------------------------------------------------------ */
/* Path record queries                                                  */

/**
 * ib_sa_path_rec_get - ask the SA for path records
 * @client: a registered client
 * @device: the device
 * @port_num: the port whose SA is asked
 * @rec: the query's fields (those in @comp_mask), of an IB or OPA type
 * @comp_mask: IB_SA_PATH_REC_* of the fields that are set
 * @timeout_ms: how long to wait for the answer
 * @gfp_mask: for the query's memory
 * @callback: the answer, later
 * @context: for @callback
 * @query: the query, for ib_sa_cancel_query()
 *
 * Return: the query id (>= 0), or -ENODEV when @port_num has no SA (any
 * port that is not IB), -EINVAL for a RoCE path record, -EOPNOTSUPP on
 * an IB port (there is no IB SA client).  On error @callback is never
 * called.
 */
int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					int num_prs, void *context),
		       void *context, struct ib_sa_query **query)
{
	if (!rdma_is_port_valid(device, port_num) ||
	    !rdma_cap_ib_sa(device, port_num))
		return -ENODEV;
	if (rec->rec_type != SA_PATH_REC_TYPE_IB &&
	    rec->rec_type != SA_PATH_REC_TYPE_OPA)
		return -EINVAL;
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_sa_path_rec_get);

/**
 * ib_sa_cancel_query - cancel an SA query
 * @id: the id ib_sa_path_rec_get() returned
 * @query: the query it returned
 *
 * Nothing is done when the query already completed, or @id and @query do
 * not name the same query; which, without an IB SA client, is always.
 */
void ib_sa_cancel_query(int id, struct ib_sa_query *query)
{
}
EXPORT_SYMBOL(ib_sa_cancel_query);

/* ------------------------------------------------------------------ */
/* The PathRecord attribute on the wire                                 */

/*
 * IBTA vol. 1, 15.2.5.16: 64 bytes, big endian.  Bytes 0-43 are the
 * service id, DGID, SGID, DLID and SLID in that order; then four words
 * of packed fields (bit 31 is a word's first bit on the wire), and 6
 * reserved bytes.
 */
#define PR_SERVICE_ID	0
#define PR_DGID		8
#define PR_SGID		24
#define PR_DLID		40
#define PR_SLID		42
#define PR_WORD_FLOW	44	/* RawTraffic:1 rsvd:3 FlowLabel:20 HopLimit:8 */
#define PR_WORD_CLASS	48	/* TClass:8 Reversible:1 NumbPath:7 P_Key:16 */
#define PR_WORD_QOS	52	/* QoSClass:12 SL:4 MTUSel:2 MTU:6 RateSel:2 Rate:6 */
#define PR_WORD_PLT	56	/* PLTSel:2 PLT:6 Preference:8 rsvd:16 */
#define PR_SIZE		64

/* The @width-bit field of @word whose lowest bit is bit @shift. */
static u32 pr_field(u32 word, unsigned int shift, unsigned int width)
{
	return (word >> shift) & GENMASK(width - 1, 0);
}

static u32 pr_put(u32 value, unsigned int shift, unsigned int width)
{
	return (value & GENMASK(width - 1, 0)) << shift;
}

/**
 * ib_sa_unpack_path - read a PathRecord attribute
 * @attribute: the 64 bytes of the attribute
 * @rec: receives every field of the record (the IB LIDs and raw traffic
 *	bit in rec->ib); its rec_type and flags are left as they were
 */
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec)
{
	const u8 *p = attribute;
	u32 w;

	memcpy(&rec->service_id, p + PR_SERVICE_ID, sizeof(rec->service_id));
	memcpy(rec->dgid.raw, p + PR_DGID, sizeof(rec->dgid));
	memcpy(rec->sgid.raw, p + PR_SGID, sizeof(rec->sgid));
	memcpy(&rec->ib.dlid, p + PR_DLID, sizeof(rec->ib.dlid));
	memcpy(&rec->ib.slid, p + PR_SLID, sizeof(rec->ib.slid));

	w = get_unaligned_be32(p + PR_WORD_FLOW);
	rec->ib.raw_traffic = pr_field(w, 31, 1);
	rec->flow_label = cpu_to_be32(pr_field(w, 8, 20));
	rec->hop_limit = pr_field(w, 0, 8);

	w = get_unaligned_be32(p + PR_WORD_CLASS);
	rec->traffic_class = pr_field(w, 24, 8);
	rec->reversible = pr_field(w, 23, 1);
	rec->numb_path = pr_field(w, 16, 7);
	rec->pkey = cpu_to_be16(pr_field(w, 0, 16));

	w = get_unaligned_be32(p + PR_WORD_QOS);
	rec->qos_class = cpu_to_be16(pr_field(w, 20, 12));
	rec->sl = pr_field(w, 16, 4);
	rec->mtu_selector = pr_field(w, 14, 2);
	rec->mtu = pr_field(w, 8, 6);
	rec->rate_selector = pr_field(w, 6, 2);
	rec->rate = pr_field(w, 0, 6);

	w = get_unaligned_be32(p + PR_WORD_PLT);
	rec->packet_life_time_selector = pr_field(w, 30, 2);
	rec->packet_life_time = pr_field(w, 24, 6);
	rec->preference = pr_field(w, 16, 8);
}
EXPORT_SYMBOL(ib_sa_unpack_path);

/**
 * ib_sa_pack_path - write a PathRecord attribute
 * @rec: the record (the IB LIDs and raw traffic bit from rec->ib);
 *	fields wider than their wire field are truncated
 * @attribute: receives the 64 bytes, reserved bits zero
 */
void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute)
{
	u8 *p = attribute;

	memset(p, 0, PR_SIZE);
	memcpy(p + PR_SERVICE_ID, &rec->service_id, sizeof(rec->service_id));
	memcpy(p + PR_DGID, rec->dgid.raw, sizeof(rec->dgid));
	memcpy(p + PR_SGID, rec->sgid.raw, sizeof(rec->sgid));
	memcpy(p + PR_DLID, &rec->ib.dlid, sizeof(rec->ib.dlid));
	memcpy(p + PR_SLID, &rec->ib.slid, sizeof(rec->ib.slid));

	put_unaligned_be32(pr_put(rec->ib.raw_traffic, 31, 1) |
			   pr_put(be32_to_cpu(rec->flow_label), 8, 20) |
			   pr_put(rec->hop_limit, 0, 8),
			   p + PR_WORD_FLOW);
	put_unaligned_be32(pr_put(rec->traffic_class, 24, 8) |
			   pr_put(rec->reversible, 23, 1) |
			   pr_put(rec->numb_path, 16, 7) |
			   pr_put(be16_to_cpu(rec->pkey), 0, 16),
			   p + PR_WORD_CLASS);
	put_unaligned_be32(pr_put(be16_to_cpu(rec->qos_class), 20, 12) |
			   pr_put(rec->sl, 16, 4) |
			   pr_put(rec->mtu_selector, 14, 2) |
			   pr_put(rec->mtu, 8, 6) |
			   pr_put(rec->rate_selector, 6, 2) |
			   pr_put(rec->rate, 0, 6),
			   p + PR_WORD_QOS);
	put_unaligned_be32(pr_put(rec->packet_life_time_selector, 30, 2) |
			   pr_put(rec->packet_life_time, 24, 6) |
			   pr_put(rec->preference, 16, 8),
			   p + PR_WORD_PLT);
}
EXPORT_SYMBOL(ib_sa_pack_path);

/* ------------------------------------------------------------------ */
/* Address handles from path records                                    */

/*
 * The LID bits a port adds to its base LID: the SA's port info would say
 * (LMC); without an SA, all seven.
 */
#define SA_SRC_PATH_MASK	0x7f

/**
 * ib_init_ah_attr_from_path - the address a path record describes
 * @device: the device
 * @port_num: the port the path leaves from
 * @rec: the path record; for RoCE, its dmac is the destination's and
 *	it is marked route_resolved once its route was checked
 * @ah_attr: filled (uninitialised before)
 * @gid_attr: the source GID entry to use, or NULL to look @rec's SGID up
 *	(RoCE needs it, unless @rec is already route_resolved)
 *
 * On success @ah_attr holds a GID reference when it has a GRH (always on
 * RoCE; on IB when the path has a hop limit): rdma_destroy_ah_attr().
 *
 * Return: 0; -EINVAL for a bad port, or see rdma_roce_path_route();
 * -ENOENT when the SGID is not in the port's table.
 */
int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr,
			      const struct ib_gid_attr *gid_attr)
{
	bool roce = sa_path_is_roce(rec);
	int ret;

	memset(ah_attr, 0, sizeof(*ah_attr));
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	ah_attr->type = rdma_ah_find_type(device, port_num);
	rdma_ah_set_sl(ah_attr, rec->sl);
	rdma_ah_set_port_num(ah_attr, port_num);
	rdma_ah_set_static_rate(ah_attr, rec->rate);

	if (roce) {
		ret = rdma_roce_path_route(rec, gid_attr);
		if (ret)
			return ret;
		memcpy(ah_attr->roce.dmac, sa_path_get_dmac(rec), ETH_ALEN);
	} else {
		u32 dlid = be32_to_cpu(sa_path_get_dlid(rec));

		rdma_ah_set_dlid(ah_attr, dlid);
		if (sa_path_is_opa(rec) &&
		    dlid == be16_to_cpu(IB_LID_PERMISSIVE))
			rdma_ah_set_make_grd(ah_attr, true);
		rdma_ah_set_path_bits(ah_attr,
				      be32_to_cpu(sa_path_get_slid(rec)) &
				      SA_SRC_PATH_MASK);
	}

	if (!roce && !rec->hop_limit)
		return 0;

	if (gid_attr)
		rdma_hold_gid_attr(gid_attr);
	else
		gid_attr = rdma_find_gid_by_port(device, &rec->sgid,
						 sa_conv_pathrec_to_gid_type(rec),
						 port_num, NULL);
	if (IS_ERR(gid_attr))
		return PTR_ERR(gid_attr);
	rdma_move_grh_sgid_attr(ah_attr, &rec->dgid,
				be32_to_cpu(rec->flow_label), rec->hop_limit,
				rec->traffic_class, gid_attr);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_attr_from_path);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel attributes copied into their user ABI layouts (<rdma/ib_marshall.h>),
 * for rdma_ucm: the QP attributes of INIT_QP_ATTR, the AH attributes in
 * them, and the path records of QUERY_ROUTE and QUERY(PATH).  The layouts
 * are those of uapi <rdma/ib_user_verbs.h> and <rdma/ib_user_sa.h>.
 */
#include <rdma/ib_marshall.h>
#include <rdma/opa_addr.h>

/* The subnet prefix an OPA GID gets when the port cannot be asked. */
#define OPA_FALLBACK_GID_PREFIX	0xfe80000000000000ULL

/*
 * An OPA address with an extended (32-bit) LID, as IB user space can
 * take it: a GRH to the GID that embeds the LID.  -EINVAL when the
 * port's subnet prefix cannot be read; @ib is then not to be used.
 */
static int opa_ah_attr_to_ib(struct ib_device *device,
			     struct rdma_ah_attr *ib,
			     const struct rdma_ah_attr *opa)
{
	struct ib_port_attr port_attr;
	u64 prefix = OPA_FALLBACK_GID_PREFIX;
	int ret;

	*ib = *opa;
	ib->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_grh(ib, NULL, 0, 0, 1, 0);
	ret = ib_query_port(device, rdma_ah_get_port_num(opa), &port_attr);
	if (!ret)
		prefix = port_attr.subnet_prefix;
	rdma_ah_set_subnet_prefix(ib, cpu_to_be64(prefix));
	rdma_ah_set_interface_id(ib, OPA_MAKE_ID(rdma_ah_get_dlid(opa)));
	return ret ? -EINVAL : 0;
}

/**
 * ib_copy_ah_attr_to_user - an AH attribute in the user ABI layout
 * @device: the device it belongs to
 * @dst: the whole struct is written (the GRH zero when there is none)
 * @ah_attr: the attribute
 */
void ib_copy_ah_attr_to_user(struct ib_device *device,
			     struct ib_uverbs_ah_attr *dst,
			     struct rdma_ah_attr *ah_attr)
{
	const struct rdma_ah_attr *src = ah_attr;
	struct rdma_ah_attr ib_attr;

	if (ah_attr->type == RDMA_AH_ATTR_TYPE_OPA &&
	    rdma_ah_get_dlid(ah_attr) > be16_to_cpu(IB_LID_PERMISSIVE) &&
	    !opa_ah_attr_to_ib(device, &ib_attr, ah_attr))
		src = &ib_attr;

	memset(dst, 0, sizeof(*dst));
	dst->dlid = rdma_ah_get_dlid(src);
	dst->sl = rdma_ah_get_sl(src);
	dst->src_path_bits = rdma_ah_get_path_bits(src);
	dst->static_rate = rdma_ah_get_static_rate(src);
	dst->is_global = !!(rdma_ah_get_ah_flags(src) & IB_AH_GRH);
	dst->port_num = rdma_ah_get_port_num(src);
	if (dst->is_global) {
		const struct ib_global_route *grh = rdma_ah_read_grh(src);

		memcpy(dst->grh.dgid, grh->dgid.raw, sizeof(dst->grh.dgid));
		dst->grh.flow_label = grh->flow_label;
		dst->grh.sgid_index = grh->sgid_index;
		dst->grh.hop_limit = grh->hop_limit;
		dst->grh.traffic_class = grh->traffic_class;
	}
}
EXPORT_SYMBOL(ib_copy_ah_attr_to_user);

/**
 * ib_copy_qp_attr_to_user - QP attributes in the user ABI layout
 * @device: the device of the QP
 * @dst: every field but qp_attr_mask is written (the caller's, which
 *	says which attributes mean something)
 * @src: the attributes
 */
void ib_copy_qp_attr_to_user(struct ib_device *device,
			     struct ib_uverbs_qp_attr *dst,
			     struct ib_qp_attr *src)
{
	dst->qp_state = src->qp_state;
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;

	ib_copy_ah_attr_to_user(device, &dst->ah_attr, &src->ah_attr);
	ib_copy_ah_attr_to_user(device, &dst->alt_ah_attr, &src->alt_ah_attr);

	dst->max_send_wr = src->cap.max_send_wr;
	dst->max_recv_wr = src->cap.max_recv_wr;
	dst->max_send_sge = src->cap.max_send_sge;
	dst->max_recv_sge = src->cap.max_recv_sge;
	dst->max_inline_data = src->cap.max_inline_data;

	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
	memset(dst->reserved, 0, sizeof(dst->reserved));
}
EXPORT_SYMBOL(ib_copy_qp_attr_to_user);

/**
 * ib_copy_path_rec_to_user - a path record in the user ABI layout
 * @dst: the whole struct is written
 * @src: the record; an OPA one is given as its IB equivalent, a RoCE one
 *	without LIDs
 */
void ib_copy_path_rec_to_user(struct ib_user_path_rec *dst,
			      struct sa_path_rec *src)
{
	struct sa_path_rec ib_rec;

	if (src->rec_type == SA_PATH_REC_TYPE_OPA) {
		sa_convert_path_opa_to_ib(&ib_rec, src);
		src = &ib_rec;
	}

	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	/* The LIDs are 16 bits on IB, and none on RoCE. */
	dst->dlid = htons(be32_to_cpu(sa_path_get_dlid(src)));
	dst->slid = htons(be32_to_cpu(sa_path_get_slid(src)));
	dst->raw_traffic = sa_path_get_raw_traffic(src);
	dst->flow_label = src->flow_label;
	dst->reversible = src->reversible;
	dst->mtu = src->mtu;
	dst->pkey = src->pkey;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->numb_path = src->numb_path;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}
EXPORT_SYMBOL(ib_copy_path_rec_to_user);

/**
 * ib_copy_path_rec_from_user - a path record from the user ABI layout
 * @dst: the whole record is written: an OPA record when either GID is an
 *	OPA GID (the LIDs then come from the GIDs), an IB one otherwise
 * @src: the user's record
 */
void ib_copy_path_rec_from_user(struct sa_path_rec *dst,
				struct ib_user_path_rec *src)
{
	const union ib_gid *sgid = (const union ib_gid *)src->sgid;
	const union ib_gid *dgid = (const union ib_gid *)src->dgid;
	u32 slid, dlid;

	memset(dst, 0, sizeof(*dst));
	if (ib_is_opa_gid(sgid) || ib_is_opa_gid(dgid)) {
		dst->rec_type = SA_PATH_REC_TYPE_OPA;
		slid = opa_get_lid_from_gid(sgid);
		dlid = opa_get_lid_from_gid(dgid);
	} else {
		dst->rec_type = SA_PATH_REC_TYPE_IB;
		slid = ntohs(src->slid);
		dlid = ntohs(src->dlid);
	}
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid));
	sa_path_set_dlid(dst, dlid);
	sa_path_set_slid(dst, slid);
	sa_path_set_raw_traffic(dst, src->raw_traffic);
	dst->flow_label = src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}
EXPORT_SYMBOL(ib_copy_path_rec_from_user);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * RSS QPs: raw packet QPs created over an indirection table of WQs
 * (wq.c), which receive nothing themselves.  Such a QP is one TIR of the
 * context's transport domain that hashes each frame a flow steering
 * rule sends it (flow.c) and hands it to the table's WQ the hash picks.
 *
 * libmlx5's request names the hash: Toeplitz with a 40-byte key, over
 * the source and destination addresses of one IP version and the ports
 * of one of TCP and UDP (MLX5_IB_RSS_HASH_FIELDS), and IPsec's SPI.  No fields at all is
 * a TIR that does not hash, which only a table of one WQ makes sense of.
 * Nothing of the QP's verbs states reaches the device: its WQs have
 * their own.
 */
#include "mlx5_ib.h"

/* The Toeplitz key of a TIR (rx_hash_toeplitz_key). */
#define MLX5_IB_RSS_KEY_LEN	40

#define MLX5_IB_RSS_IPV4	(MLX5_RX_HASH_SRC_IPV4 | MLX5_RX_HASH_DST_IPV4)
#define MLX5_IB_RSS_IPV6	(MLX5_RX_HASH_SRC_IPV6 | MLX5_RX_HASH_DST_IPV6)
#define MLX5_IB_RSS_TCP		(MLX5_RX_HASH_SRC_PORT_TCP | \
				 MLX5_RX_HASH_DST_PORT_TCP)
#define MLX5_IB_RSS_UDP		(MLX5_RX_HASH_SRC_PORT_UDP | \
				 MLX5_RX_HASH_DST_PORT_UDP)

/* The flags of the request an RSS QP accepts. */
#define MLX5_IB_RSS_QP_FLAGS	(MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC | \
				 MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC)

static int mlx5_ib_rss_req(struct ib_udata *udata, struct ib_qp_init_attr *attr,
			   struct mlx5_ib_create_qp_rss *req)
{
	u64 fields;
	int err;

	if (udata->inlen < offsetofend(struct mlx5_ib_create_qp_rss, flags))
		return -EINVAL;
	err = ib_copy_from_udata(req, udata, min(udata->inlen, sizeof(*req)));
	if (err)
		return err;
	if (udata->inlen > sizeof(*req) &&
	    !ib_is_udata_cleared(udata, sizeof(*req), udata->inlen - sizeof(*req)))
		return -EOPNOTSUPP;
	if (req->comp_mask || memchr_inv(req->reserved, 0, sizeof(req->reserved)))
		return -EOPNOTSUPP;
	if (req->flags & ~MLX5_IB_QP_FLAGS_ABI)
		return -EINVAL;
	if (req->flags & ~MLX5_IB_RSS_QP_FLAGS)
		return -EOPNOTSUPP;
	/* An RSS QP has no queue a creation flag could be about. */
	if (attr->create_flags)
		return -EINVAL;

	/* The SPI of IPsec packets may join the hash too (not reported). */
	fields = req->rx_hash_fields_mask;
	if (fields & ~(u64)(MLX5_IB_RSS_HASH_FIELDS | MLX5_RX_HASH_IPSEC_SPI))
		return -EOPNOTSUPP;
	if (!fields)
		return attr->rwq_ind_tbl->log_ind_tbl_size ? -EINVAL : 0;
	if (req->rx_hash_function != MLX5_RX_HASH_FUNC_TOEPLITZ)
		return -EOPNOTSUPP;
	if (req->rx_key_len != MLX5_IB_RSS_KEY_LEN)
		return -EINVAL;
	/* One IP version and one L4 protocol per TIR. */
	if (((fields & MLX5_IB_RSS_IPV4) && (fields & MLX5_IB_RSS_IPV6)) ||
	    ((fields & MLX5_IB_RSS_TCP) && (fields & MLX5_IB_RSS_UDP)))
		return -EINVAL;
	return 0;
}

/* The TIR's outer field selector for @fields. */
static void mlx5_ib_rss_selector(void *sel, u64 fields)
{
	u32 selected = 0;

	MLX5_SET(rx_hash_field_select, sel, l3_prot_type,
		 fields & MLX5_IB_RSS_IPV6 ? MLX5_L3_PROT_TYPE_IPV6 :
					     MLX5_L3_PROT_TYPE_IPV4);
	MLX5_SET(rx_hash_field_select, sel, l4_prot_type,
		 fields & MLX5_IB_RSS_UDP ? MLX5_L4_PROT_TYPE_UDP :
					    MLX5_L4_PROT_TYPE_TCP);
	if (fields & (MLX5_RX_HASH_SRC_IPV4 | MLX5_RX_HASH_SRC_IPV6))
		selected |= MLX5_HASH_FIELD_SEL_SRC_IP;
	if (fields & (MLX5_RX_HASH_DST_IPV4 | MLX5_RX_HASH_DST_IPV6))
		selected |= MLX5_HASH_FIELD_SEL_DST_IP;
	if (fields & (MLX5_RX_HASH_SRC_PORT_TCP | MLX5_RX_HASH_SRC_PORT_UDP))
		selected |= MLX5_HASH_FIELD_SEL_L4_SPORT;
	if (fields & (MLX5_RX_HASH_DST_PORT_TCP | MLX5_RX_HASH_DST_PORT_UDP))
		selected |= MLX5_HASH_FIELD_SEL_L4_DPORT;
	if (fields & MLX5_RX_HASH_IPSEC_SPI)
		selected |= MLX5_HASH_FIELD_SEL_IPSEC_SPI;
	MLX5_SET(rx_hash_field_select, sel, selected_fields, selected);
}

int mlx5_ib_create_rss_qp(struct mlx5_ib_dev *dev, struct mlx5_ib_qp *qp,
			  struct ib_qp_init_attr *attr, struct ib_udata *udata)
{
	struct mlx5_ib_ucontext *ctx = rdma_udata_to_drv_context(udata,
					struct mlx5_ib_ucontext, ibuc);
	u32 in[MLX5_ST_SZ_DW(create_tir_in)] = {};
	void *tirc = MLX5_ADDR_OF(create_tir_in, in, ctx);
	struct mlx5_ib_create_qp_resp resp = {};
	struct mlx5_ib_create_qp_rss req = {};
	int err;

	if (!MLX5_CAP_ETH(dev->mdev, rss_ind_tbl_cap))
		return -EOPNOTSUPP;
	err = mlx5_ib_rss_req(udata, attr, &req);
	if (err)
		return err;

	MLX5_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	MLX5_SET(tirc, tirc, indirect_table,
		 to_mrwq_ind_table(attr->rwq_ind_tbl)->rqtn);
	MLX5_SET(tirc, tirc, transport_domain, ctx->tdn);
	MLX5_SET(tirc, tirc, self_lb_block, mlx5_ib_tir_self_lb(req.flags));
	if (req.rx_hash_fields_mask) {
		MLX5_SET(tirc, tirc, rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
		memcpy(MLX5_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key),
		       req.rx_hash_key, MLX5_IB_RSS_KEY_LEN);
		mlx5_ib_rss_selector(MLX5_ADDR_OF(tirc, tirc,
						  rx_hash_field_selector_outer),
				     req.rx_hash_fields_mask);
	}
	err = mlx5_ib_create_tir(dev, in, &qp->raw.tirn);
	if (err)
		return err;

	resp.tirn = qp->raw.tirn;
	resp.comp_mask = MLX5_IB_CREATE_QP_RESP_MASK_TIRN;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err) {
		mlx5_ib_destroy_tir(dev, qp->raw.tirn);
		qp->raw.tirn = 0;
		return err;
	}
	/* No queue of its own, so no number: its WQs have theirs. */
	qp->cap = (struct ib_qp_cap){};
	qp->state = IB_QPS_RESET;
	return 0;
}

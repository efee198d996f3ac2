// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_ucm: what userspace asks about an id.  QUERY_ROUTE is the legacy
 * query (sockaddr_in6 addresses and up to two path records); QUERY
 * answers ADDR (addresses and the device, which librdmacm matches to an
 * ibv_context by node GUID and device index), PATH (packed path records)
 * and GID (the addresses as AF_IB, GIDs and service IDs).
 *
 * Responses shorter than ours are accepted down to the field before
 * ibdev_index, which older librdmacm did not know, and cut to @out_len.
 */

#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_marshall.h>
#include <rdma/ib_sa.h>

#include "ucma_priv.h"

/* The path records of @route, or what stands for them when it has none. */
static void ucma_route_paths(struct rdma_ucm_query_route_resp *resp,
			     struct rdma_cm_id *cm_id)
{
	struct rdma_route *route = &cm_id->route;
	struct ib_user_path_rec *first = &resp->ib_route[0];
	struct rdma_dev_addr *dev_addr = &route->addr.dev_addr;
	u32 port = cm_id->port_num;
	int i;

	if (rdma_protocol_iwarp(cm_id->device, port)) {
		rdma_addr_get_dgid(dev_addr, (union ib_gid *)first->dgid);
		rdma_addr_get_sgid(dev_addr, (union ib_gid *)first->sgid);
		return;
	}
	if (!rdma_cap_ib_sa(cm_id->device, port) &&
	    !rdma_protocol_roce(cm_id->device, port))
		return;

	resp->num_paths = route->num_pri_alt_paths;
	if (resp->num_paths > 2)	/* ib_route[] has room for two */
		return;
	for (i = 0; i < resp->num_paths; i++)
		ib_copy_path_rec_to_user(&resp->ib_route[i],
					 &route->path_rec[i]);
	if (resp->num_paths)
		return;

	/* No path yet: the GIDs (and P_Key) the route would use. */
	if (rdma_cap_ib_sa(cm_id->device, port)) {
		rdma_addr_get_dgid(dev_addr, (union ib_gid *)first->dgid);
		rdma_addr_get_sgid(dev_addr, (union ib_gid *)first->sgid);
		first->pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	} else {
		rdma_ip2gid((struct sockaddr *)&route->addr.dst_addr,
			    (union ib_gid *)first->dgid);
		rdma_ip2gid((struct sockaddr *)&route->addr.src_addr,
			    (union ib_gid *)first->sgid);
		first->pkey = cpu_to_be16(0xffff);
	}
}

/* An IPv4 or IPv6 address into the legacy sockaddr_in6 slot. */
static void ucma_copy_in6_slot(struct sockaddr_in6 *dst,
			       const struct sockaddr_storage *src)
{
	memcpy(dst, src, src->ss_family == AF_INET ?
	       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
}

int ucma_cmd_query_route(struct ucma_file *file, const void __user *in,
			 u16 in_len, u16 out_len)
{
	struct rdma_ucm_query_route_resp resp;
	struct rdma_ucm_query cmd;
	struct rdma_cm_id *cm_id;
	struct ucma_ctx *ctx;

	if (out_len < offsetof(typeof(resp), ibdev_index))
		return -ENOSPC;
	ctx = ucma_ctx_lock_cmd(file, in, &cmd, sizeof(cmd), &cmd.id, false);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	cm_id = ctx->cm_id;

	memset(&resp, 0, sizeof(resp));
	ucma_copy_in6_slot(&resp.src_addr, &cm_id->route.addr.src_addr);
	ucma_copy_in6_slot(&resp.dst_addr, &cm_id->route.addr.dst_addr);
	if (cm_id->device) {
		resp.node_guid = (__force __u64)cm_id->device->node_guid;
		resp.ibdev_index = cm_id->device->index;
		resp.port_num = cm_id->port_num;
		ucma_route_paths(&resp, cm_id);
	}
	ucma_ctx_unlock(ctx);

	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp,
			 min_t(size_t, out_len, sizeof(resp))))
		return -EFAULT;
	return 0;
}

static void ucma_addr_resp_device(struct rdma_ucm_query_addr_resp *resp,
				  struct rdma_cm_id *cm_id)
{
	__be16 pkey;

	if (!cm_id->device)
		return;
	resp->node_guid = (__force __u64)cm_id->device->node_guid;
	resp->ibdev_index = cm_id->device->index;
	resp->port_num = cm_id->port_num;
	pkey = cpu_to_be16(ib_addr_get_pkey(&cm_id->route.addr.dev_addr));
	resp->pkey = (__force __u16)pkey;
}

static int ucma_query_addr(struct ucma_ctx *ctx, void __user *out,
			   u16 out_len)
{
	struct rdma_ucm_query_addr_resp resp = {};
	struct rdma_addr *addr = &ctx->cm_id->route.addr;

	if (out_len < offsetof(typeof(resp), ibdev_index))
		return -ENOSPC;

	resp.src_size = rdma_addr_size((struct sockaddr *)&addr->src_addr);
	memcpy(&resp.src_addr, &addr->src_addr, resp.src_size);
	resp.dst_size = rdma_addr_size((struct sockaddr *)&addr->dst_addr);
	memcpy(&resp.dst_addr, &addr->dst_addr, resp.dst_size);
	ucma_addr_resp_device(&resp, ctx->cm_id);

	if (copy_to_user(out, &resp, min_t(size_t, out_len, sizeof(resp))))
		return -EFAULT;
	return 0;
}

static int ucma_query_path(struct ucma_ctx *ctx, void __user *out,
			   u16 out_len)
{
	struct rdma_route *route = &ctx->cm_id->route;
	struct rdma_ucm_query_path_resp *resp;
	u32 room, i;
	int ret = 0;

	if (out_len < sizeof(*resp))
		return -ENOSPC;

	resp = kzalloc(out_len, GFP_KERNEL);
	if (!resp)
		return -ENOMEM;

	/* As many of the route's records as fit, the count says all. */
	resp->num_paths = route->num_pri_alt_paths;
	room = (out_len - sizeof(*resp)) / sizeof(resp->path_data[0]);
	for (i = 0; i < resp->num_paths && i < room; i++) {
		struct ib_path_rec_data *data = &resp->path_data[i];
		struct sa_path_rec *rec = &route->path_rec[i];

		data->flags = IB_PATH_GMP | IB_PATH_PRIMARY |
			      IB_PATH_BIDIRECTIONAL;
		if (rec->rec_type == SA_PATH_REC_TYPE_OPA) {
			struct sa_path_rec ib;

			sa_convert_path_opa_to_ib(&ib, rec);
			ib_sa_pack_path(&ib, data->path_rec);
		} else {
			ib_sa_pack_path(rec, data->path_rec);
		}
	}

	if (copy_to_user(out, resp, struct_size(resp, path_data, i)))
		ret = -EFAULT;
	kfree(resp);
	return ret;
}

/* One end of the id as AF_IB: itself if it is one, else its GID. */
static void ucma_gid_end(struct rdma_cm_id *cm_id, struct sockaddr_ib *dst,
			 struct sockaddr_storage *src, __be16 pkey,
			 bool is_src)
{
	if (src->ss_family == AF_IB) {
		memcpy(dst, src, sizeof(*dst));
		return;
	}
	dst->sib_family = AF_IB;
	dst->sib_pkey = pkey;
	rdma_read_gids(cm_id,
		       is_src ? (union ib_gid *)&dst->sib_addr : NULL,
		       is_src ? NULL : (union ib_gid *)&dst->sib_addr);
	dst->sib_sid = rdma_get_service_id(cm_id, (struct sockaddr *)src);
}

static int ucma_query_gid(struct ucma_ctx *ctx, void __user *out,
			  u16 out_len)
{
	struct rdma_ucm_query_addr_resp resp = {};
	struct rdma_cm_id *cm_id = ctx->cm_id;
	__be16 pkey;

	if (out_len < offsetof(typeof(resp), ibdev_index))
		return -ENOSPC;

	ucma_addr_resp_device(&resp, cm_id);
	pkey = (__force __be16)resp.pkey;

	resp.src_size = sizeof(struct sockaddr_ib);
	ucma_gid_end(cm_id, (struct sockaddr_ib *)&resp.src_addr,
		     &cm_id->route.addr.src_addr, pkey, true);
	resp.dst_size = sizeof(struct sockaddr_ib);
	ucma_gid_end(cm_id, (struct sockaddr_ib *)&resp.dst_addr,
		     &cm_id->route.addr.dst_addr, pkey, false);

	if (copy_to_user(out, &resp, min_t(size_t, out_len, sizeof(resp))))
		return -EFAULT;
	return 0;
}

int ucma_cmd_query(struct ucma_file *file, const void __user *in,
		   u16 in_len, u16 out_len)
{
	struct rdma_ucm_query cmd;
	struct ucma_ctx *ctx;
	void __user *out;
	int ret;

	ctx = ucma_ctx_lock_cmd(file, in, &cmd, sizeof(cmd), &cmd.id, false);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	out = u64_to_user_ptr(cmd.response);
	switch (cmd.option) {
	case RDMA_USER_CM_QUERY_ADDR:
		ret = ucma_query_addr(ctx, out, out_len);
		break;
	case RDMA_USER_CM_QUERY_PATH:
		ret = ucma_query_path(ctx, out, out_len);
		break;
	case RDMA_USER_CM_QUERY_GID:
		ret = ucma_query_gid(ctx, out, out_len);
		break;
	default:
		ret = -UCMA_ENOTIMPL;
		break;
	}
	ucma_ctx_unlock(ctx);
	return ret;
}

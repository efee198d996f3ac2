/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_uverbs: what the write() command handlers share.
 *
 * The dispatcher (uverbs_cmd.c) has split the command: @attrs->ucore is
 * the core request and response, @attrs->driver_udata the driver's.  A
 * handler reads and answers only through them (the ioctl path builds
 * them from its attributes), runs with the ib_device live and, unless
 * its table entry says otherwise, with @attrs->context set.
 */
#ifndef OOT_RDMA_UVERBS_WRITE_H
#define OOT_RDMA_UVERBS_WRITE_H

#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_types.h>

#include "uverbs.h"

/* uverbs_cmd.c */
int uverbs_request(struct uverbs_attr_bundle *attrs, void *req,
		   size_t req_len);
int uverbs_response(struct uverbs_attr_bundle *attrs, const void *resp,
		    size_t resp_len);
/* A core request in parts: the fixed head, an array at @offset, the rest. */
int uverbs_request_head(struct uverbs_attr_bundle *attrs, void *req,
			size_t req_len);
int uverbs_request_part(struct uverbs_attr_bundle *attrs, size_t offset,
			void *buf, size_t len);
int uverbs_request_rest(struct uverbs_attr_bundle *attrs, size_t offset);
/* How much of an extended answer of @resp_len bytes userspace has room for. */
u32 uverbs_response_length(struct uverbs_attr_bundle *attrs,
			   size_t resp_len);

/*
 * Claim the object a handle names for reading, into *@uobj (NULL on
 * failure).  Return: 0, -ENOENT for a handle naming nothing, -EINVAL
 * for one of another type or of a type the device lacks (an SRQ handle
 * on a device without SRQs: stock finds no type to look in), -EBADF
 * for an fd that is no such object (as stock answers).  Given back with
 * uverbs_put_read().
 */
static inline int uverbs_get_read(const struct uverbs_api_object *obj,
				  s64 handle, struct uverbs_attr_bundle *attrs,
				  struct ib_uobject **uobj)
{
	if (!uverbs_uapi_object(&attrs->ufile->device->uapi_objs, obj->id)) {
		*uobj = NULL;
		return -EINVAL;
	}
	*uobj = rdma_lookup_get_uobject(obj, attrs->ufile, handle,
					UVERBS_LOOKUP_READ, attrs);
	if (IS_ERR(*uobj)) {
		int ret = PTR_ERR(*uobj);

		*uobj = NULL;
		return ret;
	}
	return 0;
}

static inline void uverbs_put_read(struct ib_uobject *uobj)
{
	rdma_lookup_put_uobject(uobj, UVERBS_LOOKUP_READ);
}

#define UVERBS_WRITE_HANDLER(name)					\
	int name(struct uverbs_attr_bundle *attrs, struct ib_device *ib_dev)

/* uverbs_cmd_mr.c */
UVERBS_WRITE_HANDLER(ib_uverbs_reg_mr);
UVERBS_WRITE_HANDLER(ib_uverbs_rereg_mr);
UVERBS_WRITE_HANDLER(ib_uverbs_dereg_mr);
UVERBS_WRITE_HANDLER(ib_uverbs_alloc_mw);
UVERBS_WRITE_HANDLER(ib_uverbs_dealloc_mw);

/*
 * What CREATE_CQ asks, from either transport.  @comp_channel is claimed
 * for reading by the caller until uverbs_create_cq() returns.
 */
struct uverbs_cq_create_params {
	u64 user_handle;
	u32 cqe;
	u32 comp_vector;
	/* IB_UVERBS_CQ_FLAGS_*, for the driver to accept or refuse. */
	u32 flags;
	struct ib_uobject *comp_channel;
	/* Where its async events go (referenced by the CQ). */
	struct ib_uverbs_async_event_file *event_file;
};

int uverbs_create_cq(struct uverbs_attr_bundle *attrs,
		     struct ib_device *ib_dev, struct ib_ucq_object *ucq,
		     const struct uverbs_cq_create_params *params);

/* uverbs_cmd_cq.c */
UVERBS_WRITE_HANDLER(ib_uverbs_create_comp_channel);
UVERBS_WRITE_HANDLER(ib_uverbs_create_cq);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_create_cq);
UVERBS_WRITE_HANDLER(ib_uverbs_resize_cq);
UVERBS_WRITE_HANDLER(ib_uverbs_destroy_cq);
UVERBS_WRITE_HANDLER(ib_uverbs_req_notify_cq);
UVERBS_WRITE_HANDLER(ib_uverbs_poll_cq);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_modify_cq);

/*
 * What CREATE_QP asks, from either transport.  The objects are claimed
 * for reading by the caller until uverbs_create_qp() returns; @recv_cq
 * is unused for an XRC initiator.
 */
struct uverbs_qp_create_params {
	u64 user_handle;
	enum ib_qp_type qp_type;
	/* IB_QP_CREATE_* */
	u32 create_flags;
	u32 source_qpn;
	bool sq_sig_all;
	struct ib_qp_cap cap;
	/* An XRC target's domain; it names no PD, CQ or SRQ (write()). */
	struct ib_uobject *xrcd;
	struct ib_uobject *pd;
	struct ib_uobject *send_cq;
	struct ib_uobject *recv_cq;
	struct ib_uobject *srq;
	/*
	 * An RSS QP's receive WQ indirection table: it then has no receive
	 * side of its own, and a send side only if max_send_wr asks one.
	 */
	struct ib_uobject *rwq_ind_tbl;
	/* Where its async events go (referenced by the QP). */
	struct ib_uverbs_async_event_file *event_file;
};

int uverbs_create_qp(struct uverbs_attr_bundle *attrs,
		     struct ib_device *ib_dev, struct ib_uqp_object *uqp,
		     struct uverbs_qp_create_params *params);

/* uverbs_cmd_qp.c */
UVERBS_WRITE_HANDLER(ib_uverbs_create_qp);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_create_qp);
UVERBS_WRITE_HANDLER(ib_uverbs_query_qp);
UVERBS_WRITE_HANDLER(ib_uverbs_modify_qp);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_modify_qp);
UVERBS_WRITE_HANDLER(ib_uverbs_destroy_qp);
UVERBS_WRITE_HANDLER(ib_uverbs_attach_mcast);
UVERBS_WRITE_HANDLER(ib_uverbs_detach_mcast);

/* uverbs_cmd_xrcd.c */
UVERBS_WRITE_HANDLER(ib_uverbs_open_xrcd);
UVERBS_WRITE_HANDLER(ib_uverbs_close_xrcd);
UVERBS_WRITE_HANDLER(ib_uverbs_open_qp);

/* uverbs_cmd_wr.c */
UVERBS_WRITE_HANDLER(ib_uverbs_post_send);
UVERBS_WRITE_HANDLER(ib_uverbs_post_recv);
UVERBS_WRITE_HANDLER(ib_uverbs_post_srq_recv);

/*
 * What CREATE_SRQ and CREATE_XSRQ ask, from either transport.  The
 * objects are claimed for reading by the caller until
 * uverbs_create_srq() returns.
 */
struct uverbs_srq_create_params {
	u64 user_handle;
	enum ib_srq_type srq_type;
	struct ib_srq_attr attr;
	/* Tag matching SRQs: how many tags. */
	u32 max_num_tags;
	struct ib_uobject *pd;
	/* XRC and tag matching SRQs complete on it. */
	struct ib_uobject *cq;
	/* An XRC SRQ's domain. */
	struct ib_uobject *xrcd;
	/* Answered: an XRC SRQ's number. */
	u32 srqn;
	/* Where its async events go (referenced by the SRQ). */
	struct ib_uverbs_async_event_file *event_file;
};

int uverbs_create_srq(struct uverbs_attr_bundle *attrs,
		      struct ib_device *ib_dev, struct ib_usrq_object *usrq,
		      struct uverbs_srq_create_params *params);

/* uverbs_cmd_srq.c */
UVERBS_WRITE_HANDLER(ib_uverbs_create_srq);
UVERBS_WRITE_HANDLER(ib_uverbs_create_xsrq);
UVERBS_WRITE_HANDLER(ib_uverbs_modify_srq);
UVERBS_WRITE_HANDLER(ib_uverbs_query_srq);
UVERBS_WRITE_HANDLER(ib_uverbs_destroy_srq);

/* uverbs_cmd_flow.c */
UVERBS_WRITE_HANDLER(ib_uverbs_ex_create_flow);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_destroy_flow);

/*
 * What CREATE_WQ asks, from either transport: @init with its type,
 * sizes, flags and CQ (claimed for reading by the caller until
 * uverbs_create_wq() returns, as @pd); on success the sizes the driver
 * made.
 */
int uverbs_create_wq(struct uverbs_attr_bundle *attrs,
		     struct ib_uwq_object *uwq, struct ib_pd *pd,
		     struct ib_wq_init_attr *init, u64 user_handle,
		     struct ib_uverbs_async_event_file *event_file);

/* uverbs_cmd_wq.c */
UVERBS_WRITE_HANDLER(ib_uverbs_ex_create_wq);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_modify_wq);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_destroy_wq);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_create_rwq_ind_table);
UVERBS_WRITE_HANDLER(ib_uverbs_ex_destroy_rwq_ind_table);

/* uverbs_cmd_ah.c */
UVERBS_WRITE_HANDLER(ib_uverbs_create_ah);
UVERBS_WRITE_HANDLER(ib_uverbs_destroy_ah);

#endif /* OOT_RDMA_UVERBS_WRITE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CM's wire format (IBTA vol. 1, 12.6).  Every field's place and width
 * is the kernel's <rdma/ibta_vol1_c12.h> (struct cm_*_msg, read and written
 * with IBA_GET/IBA_SET); this file only adds the encodings that are more
 * than one field: the transport type of a REQ, the QPN of a REP, and the
 * "message rejected/MRAed" code of REJ and MRA.
 */
#ifndef OOT_RDMA_CM_MSGS_H
#define OOT_RDMA_CM_MSGS_H

#include <rdma/ibta_vol1_c12.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_cm.h>

/* CM class version 2 (IBA 1.2 and later). */
#define IB_CM_CLASS_VERSION	2

/* Attribute IDs 0x10 (REQ) .. 0x1A (APR) index the per-message tables. */
#define CM_FIRST_ATTR_ID	0x0010

/* Which message a REJ rejects or an MRA acknowledges (Table 107/108). */
enum cm_msg_response {
	CM_MSG_RESPONSE_REQ	= 0,
	CM_MSG_RESPONSE_REP	= 1,
	CM_MSG_RESPONSE_OTHER	= 2,
};

/* REQ Transport Service Type and, for 3, Extended Transport Type. */
enum {
	CM_TRANSPORT_RC		= 0,
	CM_TRANSPORT_UC		= 1,
	CM_TRANSPORT_EXTENDED	= 3,
	CM_EXT_TRANSPORT_XRC	= 1,
};

/* The QP type a REQ asks the passive side for (0 for none we know). */
static inline enum ib_qp_type cm_req_qp_type(struct cm_req_msg *req)
{
	switch (IBA_GET(CM_REQ_TRANSPORT_SERVICE_TYPE, req)) {
	case CM_TRANSPORT_RC:
		return IB_QPT_RC;
	case CM_TRANSPORT_UC:
		return IB_QPT_UC;
	case CM_TRANSPORT_EXTENDED:
		if (IBA_GET(CM_REQ_EXTENDED_TRANSPORT_TYPE, req) ==
		    CM_EXT_TRANSPORT_XRC)
			return IB_QPT_XRC_TGT;
		return 0;
	default:
		return 0;
	}
}

/* The active side's QP type, as the REQ encodes it. */
static inline void cm_req_set_qp_type(struct cm_req_msg *req,
				      enum ib_qp_type qp_type)
{
	if (qp_type == IB_QPT_UC) {
		IBA_SET(CM_REQ_TRANSPORT_SERVICE_TYPE, req, CM_TRANSPORT_UC);
	} else if (qp_type == IB_QPT_XRC_INI) {
		IBA_SET(CM_REQ_TRANSPORT_SERVICE_TYPE, req,
			CM_TRANSPORT_EXTENDED);
		IBA_SET(CM_REQ_EXTENDED_TRANSPORT_TYPE, req,
			CM_EXT_TRANSPORT_XRC);
	} else {
		IBA_SET(CM_REQ_TRANSPORT_SERVICE_TYPE, req, CM_TRANSPORT_RC);
	}
}

/*
 * The peer's QP number in a REP: an XRC target answers an XRC initiator
 * with its number in the EE context field (IBA 14.6.3.2).
 */
static inline __be32 cm_rep_qpn(struct cm_rep_msg *rep,
				enum ib_qp_type local_qp_type)
{
	if (local_qp_type == IB_QPT_XRC_INI)
		return cpu_to_be32(IBA_GET(CM_REP_LOCAL_EE_CONTEXT_NUMBER, rep));
	return cpu_to_be32(IBA_GET(CM_REP_LOCAL_QPN, rep));
}

#endif /* OOT_RDMA_CM_MSGS_H */

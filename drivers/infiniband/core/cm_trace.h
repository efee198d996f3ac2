/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_cm's tracepoints.  Users script against them (perf, bpftrace), so
 * the system (ib_cma), the event names and the fields with their types
 * are the stock kernel's; the definitions here are our own.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_cma

#if !defined(OOT_RDMA_CM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define OOT_RDMA_CM_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_cm.h>
#include <trace/misc/rdma.h>

/* Enum values in the print formats, for user-space parsers. */
TRACE_DEFINE_ENUM(IB_CM_IDLE);
TRACE_DEFINE_ENUM(IB_CM_LISTEN);
TRACE_DEFINE_ENUM(IB_CM_REQ_SENT);
TRACE_DEFINE_ENUM(IB_CM_REQ_RCVD);
TRACE_DEFINE_ENUM(IB_CM_MRA_REQ_SENT);
TRACE_DEFINE_ENUM(IB_CM_MRA_REQ_RCVD);
TRACE_DEFINE_ENUM(IB_CM_REP_SENT);
TRACE_DEFINE_ENUM(IB_CM_REP_RCVD);
TRACE_DEFINE_ENUM(IB_CM_MRA_REP_SENT);
TRACE_DEFINE_ENUM(IB_CM_MRA_REP_RCVD);
TRACE_DEFINE_ENUM(IB_CM_ESTABLISHED);
TRACE_DEFINE_ENUM(IB_CM_DREQ_SENT);
TRACE_DEFINE_ENUM(IB_CM_DREQ_RCVD);
TRACE_DEFINE_ENUM(IB_CM_TIMEWAIT);
TRACE_DEFINE_ENUM(IB_CM_SIDR_REQ_SENT);
TRACE_DEFINE_ENUM(IB_CM_SIDR_REQ_RCVD);

TRACE_DEFINE_ENUM(IB_CM_LAP_UNINIT);
TRACE_DEFINE_ENUM(IB_CM_LAP_IDLE);
TRACE_DEFINE_ENUM(IB_CM_LAP_SENT);
TRACE_DEFINE_ENUM(IB_CM_LAP_RCVD);
TRACE_DEFINE_ENUM(IB_CM_MRA_LAP_SENT);
TRACE_DEFINE_ENUM(IB_CM_MRA_LAP_RCVD);

TRACE_DEFINE_ENUM(IB_CM_REJ_NO_QP);
TRACE_DEFINE_ENUM(IB_CM_REJ_NO_EEC);
TRACE_DEFINE_ENUM(IB_CM_REJ_NO_RESOURCES);
TRACE_DEFINE_ENUM(IB_CM_REJ_TIMEOUT);
TRACE_DEFINE_ENUM(IB_CM_REJ_UNSUPPORTED);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_COMM_ID);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_COMM_INSTANCE);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_SERVICE_ID);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_TRANSPORT_TYPE);
TRACE_DEFINE_ENUM(IB_CM_REJ_STALE_CONN);
TRACE_DEFINE_ENUM(IB_CM_REJ_RDC_NOT_EXIST);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_GID);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_LID);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_SL);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_TRAFFIC_CLASS);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_HOP_LIMIT);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_PACKET_RATE);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_ALT_GID);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_ALT_LID);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_ALT_SL);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_ALT_HOP_LIMIT);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_ALT_PACKET_RATE);
TRACE_DEFINE_ENUM(IB_CM_REJ_PORT_CM_REDIRECT);
TRACE_DEFINE_ENUM(IB_CM_REJ_PORT_REDIRECT);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_MTU);
TRACE_DEFINE_ENUM(IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES);
TRACE_DEFINE_ENUM(IB_CM_REJ_CONSUMER_DEFINED);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_RNR_RETRY);
TRACE_DEFINE_ENUM(IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_CLASS_VERSION);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_FLOW_LABEL);
TRACE_DEFINE_ENUM(IB_CM_REJ_INVALID_ALT_FLOW_LABEL);
TRACE_DEFINE_ENUM(IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED);

#define cm_tr_state(x) __print_symbolic(x, \
	{ IB_CM_IDLE, "IDLE" }, \
	{ IB_CM_LISTEN, "LISTEN" }, \
	{ IB_CM_REQ_SENT, "REQ_SENT" }, \
	{ IB_CM_REQ_RCVD, "REQ_RCVD" }, \
	{ IB_CM_MRA_REQ_SENT, "MRA_REQ_SENT" }, \
	{ IB_CM_MRA_REQ_RCVD, "MRA_REQ_RCVD" }, \
	{ IB_CM_REP_SENT, "REP_SENT" }, \
	{ IB_CM_REP_RCVD, "REP_RCVD" }, \
	{ IB_CM_MRA_REP_SENT, "MRA_REP_SENT" }, \
	{ IB_CM_MRA_REP_RCVD, "MRA_REP_RCVD" }, \
	{ IB_CM_ESTABLISHED, "ESTABLISHED" }, \
	{ IB_CM_DREQ_SENT, "DREQ_SENT" }, \
	{ IB_CM_DREQ_RCVD, "DREQ_RCVD" }, \
	{ IB_CM_TIMEWAIT, "TIMEWAIT" }, \
	{ IB_CM_SIDR_REQ_SENT, "SIDR_REQ_SENT" }, \
	{ IB_CM_SIDR_REQ_RCVD, "SIDR_REQ_RCVD" })

#define cm_tr_lap_state(x) __print_symbolic(x, \
	{ IB_CM_LAP_UNINIT, "LAP_UNINIT" }, \
	{ IB_CM_LAP_IDLE, "LAP_IDLE" }, \
	{ IB_CM_LAP_SENT, "LAP_SENT" }, \
	{ IB_CM_LAP_RCVD, "LAP_RCVD" }, \
	{ IB_CM_MRA_LAP_SENT, "MRA_LAP_SENT" }, \
	{ IB_CM_MRA_LAP_RCVD, "MRA_LAP_RCVD" })

#define cm_tr_rej_reason(x) __print_symbolic(x, \
	{ IB_CM_REJ_NO_QP, "REJ_NO_QP" }, \
	{ IB_CM_REJ_NO_EEC, "REJ_NO_EEC" }, \
	{ IB_CM_REJ_NO_RESOURCES, "REJ_NO_RESOURCES" }, \
	{ IB_CM_REJ_TIMEOUT, "REJ_TIMEOUT" }, \
	{ IB_CM_REJ_UNSUPPORTED, "REJ_UNSUPPORTED" }, \
	{ IB_CM_REJ_INVALID_COMM_ID, "REJ_INVALID_COMM_ID" }, \
	{ IB_CM_REJ_INVALID_COMM_INSTANCE, "REJ_INVALID_COMM_INSTANCE" }, \
	{ IB_CM_REJ_INVALID_SERVICE_ID, "REJ_INVALID_SERVICE_ID" }, \
	{ IB_CM_REJ_INVALID_TRANSPORT_TYPE, "REJ_INVALID_TRANSPORT_TYPE" }, \
	{ IB_CM_REJ_STALE_CONN, "REJ_STALE_CONN" }, \
	{ IB_CM_REJ_RDC_NOT_EXIST, "REJ_RDC_NOT_EXIST" }, \
	{ IB_CM_REJ_INVALID_GID, "REJ_INVALID_GID" }, \
	{ IB_CM_REJ_INVALID_LID, "REJ_INVALID_LID" }, \
	{ IB_CM_REJ_INVALID_SL, "REJ_INVALID_SL" }, \
	{ IB_CM_REJ_INVALID_TRAFFIC_CLASS, "REJ_INVALID_TRAFFIC_CLASS" }, \
	{ IB_CM_REJ_INVALID_HOP_LIMIT, "REJ_INVALID_HOP_LIMIT" }, \
	{ IB_CM_REJ_INVALID_PACKET_RATE, "REJ_INVALID_PACKET_RATE" }, \
	{ IB_CM_REJ_INVALID_ALT_GID, "REJ_INVALID_ALT_GID" }, \
	{ IB_CM_REJ_INVALID_ALT_LID, "REJ_INVALID_ALT_LID" }, \
	{ IB_CM_REJ_INVALID_ALT_SL, "REJ_INVALID_ALT_SL" }, \
	{ IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS, "REJ_INVALID_ALT_TRAFFIC_CLASS" }, \
	{ IB_CM_REJ_INVALID_ALT_HOP_LIMIT, "REJ_INVALID_ALT_HOP_LIMIT" }, \
	{ IB_CM_REJ_INVALID_ALT_PACKET_RATE, "REJ_INVALID_ALT_PACKET_RATE" }, \
	{ IB_CM_REJ_PORT_CM_REDIRECT, "REJ_PORT_CM_REDIRECT" }, \
	{ IB_CM_REJ_PORT_REDIRECT, "REJ_PORT_REDIRECT" }, \
	{ IB_CM_REJ_INVALID_MTU, "REJ_INVALID_MTU" }, \
	{ IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES, "REJ_INSUFFICIENT_RESP_RESOURCES" }, \
	{ IB_CM_REJ_CONSUMER_DEFINED, "REJ_CONSUMER_DEFINED" }, \
	{ IB_CM_REJ_INVALID_RNR_RETRY, "REJ_INVALID_RNR_RETRY" }, \
	{ IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID, "REJ_DUPLICATE_LOCAL_COMM_ID" }, \
	{ IB_CM_REJ_INVALID_CLASS_VERSION, "REJ_INVALID_CLASS_VERSION" }, \
	{ IB_CM_REJ_INVALID_FLOW_LABEL, "REJ_INVALID_FLOW_LABEL" }, \
	{ IB_CM_REJ_INVALID_ALT_FLOW_LABEL, "REJ_INVALID_ALT_FLOW_LABEL" }, \
	{ IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED, "REJ_VENDOR_OPTION_NOT_SUPPORTED" })

#ifndef OOT_RDMA_CM_TRACE_HELPERS
#define OOT_RDMA_CM_TRACE_HELPERS
/* An id as the events on it record it, as it is when they happen. */
static inline void cm_trace_id(const void **id, u32 *local_id, u32 *remote_id,
			       unsigned long *state,
			       const struct ib_cm_id *cm_id)
{
	*id = cm_id;
	*local_id = be32_to_cpu(cm_id->local_id);
	*remote_id = be32_to_cpu(cm_id->remote_id);
	*state = cm_id->state;
}
#endif

#define CM_TR_ID_ASSIGN(id)						\
	cm_trace_id(&__entry->cm_id, &__entry->local_id,		\
		    &__entry->remote_id, &__entry->state, id)

/*
 * The output of every event that records both communication IDs starts
 * with them, then has the event's own @fmt and @args.
 */
#define CM_TR_COMM_ID_PRINTK(fmt, args...)				\
	TP_printk("local_id=%u remote_id=%u" fmt, __entry->local_id,	\
		  __entry->remote_id, ##args)

DECLARE_EVENT_CLASS(icm_id_class,
		    TP_PROTO(const struct ib_cm_id *cm_id),
		    TP_ARGS(cm_id),
		    TP_STRUCT__entry(__field(const void *, cm_id)
				     __field(unsigned int, local_id)
				     __field(unsigned int, remote_id)
				     __field(unsigned long, state)
				     __field(unsigned long, lap_state)),
		    TP_fast_assign(CM_TR_ID_ASSIGN(cm_id);
				   __entry->lap_state = cm_id->lap_state;),
		    CM_TR_COMM_ID_PRINTK(" state=%s lap_state=%s",
					 cm_tr_state(__entry->state),
					 cm_tr_lap_state(__entry->lap_state))
);

#define CM_TR_ID_EVENT(name)						\
	DEFINE_EVENT(icm_id_class, name,				\
		     TP_PROTO(const struct ib_cm_id *cm_id),		\
		     TP_ARGS(cm_id))

/* Messages an id sends. */
CM_TR_ID_EVENT(icm_send_req);
CM_TR_ID_EVENT(icm_send_rep);
CM_TR_ID_EVENT(icm_send_dup_req);
CM_TR_ID_EVENT(icm_send_dup_rep);
CM_TR_ID_EVENT(icm_send_rtu);
CM_TR_ID_EVENT(icm_send_mra);
CM_TR_ID_EVENT(icm_send_sidr_req);
CM_TR_ID_EVENT(icm_send_sidr_rep);
CM_TR_ID_EVENT(icm_send_dreq);
CM_TR_ID_EVENT(icm_send_drep);

/* Requests and messages refused in the id's state. */
CM_TR_ID_EVENT(icm_send_cm_rtu_err);
CM_TR_ID_EVENT(icm_establish_err);
CM_TR_ID_EVENT(icm_no_listener_err);
CM_TR_ID_EVENT(icm_send_drep_err);
CM_TR_ID_EVENT(icm_dreq_unknown_err);
CM_TR_ID_EVENT(icm_send_unknown_rej_err);
CM_TR_ID_EVENT(icm_rej_unknown_err);
CM_TR_ID_EVENT(icm_send_mra_unknown_err);
CM_TR_ID_EVENT(icm_mra_unknown_err);
CM_TR_ID_EVENT(icm_qp_init_err);
CM_TR_ID_EVENT(icm_qp_rtr_err);
CM_TR_ID_EVENT(icm_qp_rts_err);
CM_TR_ID_EVENT(icm_dreq_skipped);

TRACE_EVENT(icm_send_rej,
	    TP_PROTO(const struct ib_cm_id *cm_id,
		     enum ib_cm_rej_reason reason),
	    TP_ARGS(cm_id, reason),
	    TP_STRUCT__entry(__field(const void *, cm_id)
			     __field(u32, local_id)
			     __field(u32, remote_id)
			     __field(unsigned long, state)
			     __field(unsigned long, reason)),
	    TP_fast_assign(CM_TR_ID_ASSIGN(cm_id);
			   __entry->reason = reason;),
	    CM_TR_COMM_ID_PRINTK(" state=%s reason=%s",
				 cm_tr_state(__entry->state),
				 cm_tr_rej_reason(__entry->reason))
);

/* Answers sent without an id, by the comm IDs of what they answer. */
DECLARE_EVENT_CLASS(icm_local_class,
		    TP_PROTO(unsigned int local_id, unsigned int remote_id),
		    TP_ARGS(local_id, remote_id),
		    TP_STRUCT__entry(__field(unsigned int, local_id)
				     __field(unsigned int, remote_id)),
		    TP_fast_assign(__entry->local_id = local_id;
				   __entry->remote_id = remote_id;),
		    CM_TR_COMM_ID_PRINTK("")
);

#define CM_TR_LOCAL_EVENT(name)						\
	DEFINE_EVENT(icm_local_class, name,				\
		     TP_PROTO(unsigned int local_id, unsigned int remote_id), \
		     TP_ARGS(local_id, remote_id))

CM_TR_LOCAL_EVENT(icm_issue_rej);
CM_TR_LOCAL_EVENT(icm_issue_drep);
CM_TR_LOCAL_EVENT(icm_staleconn_err);
CM_TR_LOCAL_EVENT(icm_no_priv_err);

DECLARE_EVENT_CLASS(icm_remote_class,
		    TP_PROTO(u32 remote_id),
		    TP_ARGS(remote_id),
		    TP_STRUCT__entry(__field(u32, remote_id)),
		    TP_fast_assign(__entry->remote_id = remote_id;),
		    TP_printk("remote_id=%u", __entry->remote_id)
);

#define CM_TR_REMOTE_EVENT(name)					\
	DEFINE_EVENT(icm_remote_class, name,				\
		     TP_PROTO(u32 remote_id),				\
		     TP_ARGS(remote_id))

CM_TR_REMOTE_EVENT(icm_remote_no_priv_err);
CM_TR_REMOTE_EVENT(icm_insert_failed_err);

TRACE_EVENT(icm_send_rep_err,
	    TP_PROTO(__be32 local_id, enum ib_cm_state state),
	    TP_ARGS(local_id, state),
	    TP_STRUCT__entry(__field(unsigned int, local_id)
			     __field(unsigned long, state)),
	    TP_fast_assign(__entry->local_id = be32_to_cpu(local_id);
			   __entry->state = state;),
	    TP_printk("local_id=%u state=%s", __entry->local_id,
		      cm_tr_state(__entry->state))
);

TRACE_EVENT(icm_rep_unknown_err,
	    TP_PROTO(unsigned int local_id, unsigned int remote_id,
		     enum ib_cm_state state),
	    TP_ARGS(local_id, remote_id, state),
	    TP_STRUCT__entry(__field(unsigned int, local_id)
			     __field(unsigned int, remote_id)
			     __field(unsigned long, state)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->remote_id = remote_id;
			   __entry->state = state;),
	    CM_TR_COMM_ID_PRINTK(" state=%s", cm_tr_state(__entry->state))
);

TRACE_EVENT(icm_handler_err,
	    TP_PROTO(enum ib_cm_event_type event),
	    TP_ARGS(event),
	    TP_STRUCT__entry(__field(unsigned long, event)),
	    TP_fast_assign(__entry->event = event;),
	    TP_printk("unhandled event=%s",
		      rdma_show_ib_cm_event(__entry->event))
);

TRACE_EVENT(icm_mad_send_err,
	    TP_PROTO(enum ib_cm_state state, enum ib_wc_status wc_status),
	    TP_ARGS(state, wc_status),
	    TP_STRUCT__entry(__field(unsigned long, state)
			     __field(unsigned long, wc_status)),
	    TP_fast_assign(__entry->state = state;
			   __entry->wc_status = wc_status;),
	    TP_printk("state=%s completion status=%s",
		      cm_tr_state(__entry->state),
		      rdma_show_wc_status(__entry->wc_status))
);

#endif /* OOT_RDMA_CM_TRACE_H */

/* Out of tree: cm_trace.o is built with -I$(src) (see Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cm_trace

#include <trace/define_trace.h>

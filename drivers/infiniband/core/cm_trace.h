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

/* Symbolic names for the output, exported for user-space parsers. */
#define CM_TR_STATES(E, L)						\
	E(IDLE) E(LISTEN) E(REQ_SENT) E(REQ_RCVD) E(MRA_REQ_SENT)	\
	E(MRA_REQ_RCVD) E(REP_SENT) E(REP_RCVD) E(MRA_REP_SENT)		\
	E(MRA_REP_RCVD) E(ESTABLISHED) E(DREQ_SENT) E(DREQ_RCVD)	\
	E(TIMEWAIT) E(SIDR_REQ_SENT) L(SIDR_REQ_RCVD)

#define CM_TR_LAP_STATES(E, L)						\
	E(LAP_UNINIT) E(LAP_IDLE) E(LAP_SENT) E(LAP_RCVD)		\
	E(MRA_LAP_SENT) L(MRA_LAP_RCVD)

#define CM_TR_REJ_REASONS(E, L)						\
	E(REJ_NO_QP) E(REJ_NO_EEC) E(REJ_NO_RESOURCES) E(REJ_TIMEOUT)	\
	E(REJ_UNSUPPORTED) E(REJ_INVALID_COMM_ID)			\
	E(REJ_INVALID_COMM_INSTANCE) E(REJ_INVALID_SERVICE_ID)		\
	E(REJ_INVALID_TRANSPORT_TYPE) E(REJ_STALE_CONN)			\
	E(REJ_RDC_NOT_EXIST) E(REJ_INVALID_GID) E(REJ_INVALID_LID)	\
	E(REJ_INVALID_SL) E(REJ_INVALID_TRAFFIC_CLASS)			\
	E(REJ_INVALID_HOP_LIMIT) E(REJ_INVALID_PACKET_RATE)		\
	E(REJ_INVALID_ALT_GID) E(REJ_INVALID_ALT_LID)			\
	E(REJ_INVALID_ALT_SL) E(REJ_INVALID_ALT_TRAFFIC_CLASS)		\
	E(REJ_INVALID_ALT_HOP_LIMIT) E(REJ_INVALID_ALT_PACKET_RATE)	\
	E(REJ_PORT_CM_REDIRECT) E(REJ_PORT_REDIRECT)			\
	E(REJ_INVALID_MTU) E(REJ_INSUFFICIENT_RESP_RESOURCES)		\
	E(REJ_CONSUMER_DEFINED) E(REJ_INVALID_RNR_RETRY)		\
	E(REJ_DUPLICATE_LOCAL_COMM_ID) E(REJ_INVALID_CLASS_VERSION)	\
	E(REJ_INVALID_FLOW_LABEL) E(REJ_INVALID_ALT_FLOW_LABEL)		\
	L(REJ_VENDOR_OPTION_NOT_SUPPORTED)

#define CM_TR_DEFINE(x)		TRACE_DEFINE_ENUM(IB_CM_##x);
#define CM_TR_SYM(x)		{ IB_CM_##x, #x },
#define CM_TR_SYM_LAST(x)	{ IB_CM_##x, #x }

CM_TR_STATES(CM_TR_DEFINE, CM_TR_DEFINE)
CM_TR_LAP_STATES(CM_TR_DEFINE, CM_TR_DEFINE)
CM_TR_REJ_REASONS(CM_TR_DEFINE, CM_TR_DEFINE)

#define cm_tr_state(x) \
	__print_symbolic(x, CM_TR_STATES(CM_TR_SYM, CM_TR_SYM_LAST))
#define cm_tr_lap_state(x) \
	__print_symbolic(x, CM_TR_LAP_STATES(CM_TR_SYM, CM_TR_SYM_LAST))
#define cm_tr_rej_reason(x) \
	__print_symbolic(x, CM_TR_REJ_REASONS(CM_TR_SYM, CM_TR_SYM_LAST))

/* An id, as it is when the event happens. */
DECLARE_EVENT_CLASS(icm_id_class,
	TP_PROTO(const struct ib_cm_id *cm_id),
	TP_ARGS(cm_id),
	TP_STRUCT__entry(
		__field(const void *, cm_id)
		__field(unsigned int, local_id)
		__field(unsigned int, remote_id)
		__field(unsigned long, state)
		__field(unsigned long, lap_state)
	),
	TP_fast_assign(
		__entry->cm_id = cm_id;
		__entry->local_id = be32_to_cpu(cm_id->local_id);
		__entry->remote_id = be32_to_cpu(cm_id->remote_id);
		__entry->state = cm_id->state;
		__entry->lap_state = cm_id->lap_state;
	),
	TP_printk("local_id=%u remote_id=%u state=%s lap_state=%s",
		  __entry->local_id, __entry->remote_id,
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

/* Requests refused in the id's state. */
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
	TP_PROTO(const struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason),
	TP_ARGS(cm_id, reason),
	TP_STRUCT__entry(
		__field(const void *, cm_id)
		__field(u32, local_id)
		__field(u32, remote_id)
		__field(unsigned long, state)
		__field(unsigned long, reason)
	),
	TP_fast_assign(
		__entry->cm_id = cm_id;
		__entry->local_id = be32_to_cpu(cm_id->local_id);
		__entry->remote_id = be32_to_cpu(cm_id->remote_id);
		__entry->state = cm_id->state;
		__entry->reason = reason;
	),
	TP_printk("local_id=%u remote_id=%u state=%s reason=%s",
		  __entry->local_id, __entry->remote_id,
		  cm_tr_state(__entry->state),
		  cm_tr_rej_reason(__entry->reason))
);

/* Answers sent without an id, from the comm IDs of what they answer. */
DECLARE_EVENT_CLASS(icm_local_class,
	TP_PROTO(unsigned int local_id, unsigned int remote_id),
	TP_ARGS(local_id, remote_id),
	TP_STRUCT__entry(
		__field(unsigned int, local_id)
		__field(unsigned int, remote_id)
	),
	TP_fast_assign(
		__entry->local_id = local_id;
		__entry->remote_id = remote_id;
	),
	TP_printk("local_id=%u remote_id=%u",
		  __entry->local_id, __entry->remote_id)
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
	TP_STRUCT__entry(
		__field(u32, remote_id)
	),
	TP_fast_assign(
		__entry->remote_id = remote_id;
	),
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
	TP_STRUCT__entry(
		__field(unsigned int, local_id)
		__field(unsigned long, state)
	),
	TP_fast_assign(
		__entry->local_id = be32_to_cpu(local_id);
		__entry->state = state;
	),
	TP_printk("local_id=%u state=%s", __entry->local_id,
		  cm_tr_state(__entry->state))
);

TRACE_EVENT(icm_rep_unknown_err,
	TP_PROTO(unsigned int local_id, unsigned int remote_id,
		 enum ib_cm_state state),
	TP_ARGS(local_id, remote_id, state),
	TP_STRUCT__entry(
		__field(unsigned int, local_id)
		__field(unsigned int, remote_id)
		__field(unsigned long, state)
	),
	TP_fast_assign(
		__entry->local_id = local_id;
		__entry->remote_id = remote_id;
		__entry->state = state;
	),
	TP_printk("local_id=%u remote_id=%u state=%s", __entry->local_id,
		  __entry->remote_id, cm_tr_state(__entry->state))
);

TRACE_EVENT(icm_handler_err,
	TP_PROTO(enum ib_cm_event_type event),
	TP_ARGS(event),
	TP_STRUCT__entry(
		__field(unsigned long, event)
	),
	TP_fast_assign(
		__entry->event = event;
	),
	TP_printk("unhandled event=%s", rdma_show_ib_cm_event(__entry->event))
);

TRACE_EVENT(icm_mad_send_err,
	TP_PROTO(enum ib_cm_state state, enum ib_wc_status wc_status),
	TP_ARGS(state, wc_status),
	TP_STRUCT__entry(
		__field(unsigned long, state)
		__field(unsigned long, wc_status)
	),
	TP_fast_assign(
		__entry->state = state;
		__entry->wc_status = wc_status;
	),
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

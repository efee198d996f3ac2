/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rdma_cma tracepoints: the same events, fields and output as the
 * stock module's, so scripts written against them keep working.  Each
 * event names the id by its restrack id (cm.id) and its addresses.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdma_cma

#if !defined(OOT_RDMA_CMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define OOT_RDMA_CMA_TRACE_H

#include <linux/tracepoint.h>
#include <trace/misc/rdma.h>

#ifndef OOT_RDMA_CMA_TRACE_HELPERS
#define OOT_RDMA_CMA_TRACE_HELPERS
/* The id's source and destination, as the events record them. */
static inline void cma_trace_addrs(unsigned char *src, unsigned char *dst,
				   const struct rdma_id_private *id_priv)
{
	memcpy(src, &id_priv->id.route.addr.src_addr,
	       sizeof(struct sockaddr_in6));
	memcpy(dst, &id_priv->id.route.addr.dst_addr,
	       sizeof(struct sockaddr_in6));
}

/* The id as most events record it: restrack id, ToS and addresses. */
static inline void cma_trace_id(u32 *cm_id, u32 *tos, unsigned char *src,
				unsigned char *dst,
				const struct rdma_id_private *id_priv)
{
	*cm_id = id_priv->res.id;
	*tos = id_priv->tos;
	cma_trace_addrs(src, dst, id_priv);
}
#endif

/*
 * What most events record of the id: its restrack id and ToS first in
 * the record, then the event's own @fields, its addresses last; in the
 * output all four first, then the event's own @fmt and @args.
 */
#define CMA_ID_ENTRY(fields...)						\
	TP_STRUCT__entry(__field(u32, cm_id)				\
			 __field(u32, tos)				\
			 fields						\
			 __array(unsigned char, srcaddr,		\
				 sizeof(struct sockaddr_in6))		\
			 __array(unsigned char, dstaddr,		\
				 sizeof(struct sockaddr_in6)))
#define CMA_ID_ASSIGN(id_priv)						\
	cma_trace_id(&__entry->cm_id, &__entry->tos, __entry->srcaddr,	\
		     __entry->dstaddr, id_priv)
#define CMA_ID_PRINTK(fmt, args...)					\
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u" fmt,		\
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,	\
		  __entry->tos, ##args)

DECLARE_EVENT_CLASS(cma_fsm_class,
		    TP_PROTO(const struct rdma_id_private *id_priv),
		    TP_ARGS(id_priv),
		    CMA_ID_ENTRY(),
		    TP_fast_assign(CMA_ID_ASSIGN(id_priv)),
		    CMA_ID_PRINTK("")
);

#define CMA_FSM_EVENT(name)						\
	DEFINE_EVENT(cma_fsm_class, cm_##name,				\
		     TP_PROTO(const struct rdma_id_private *id_priv),	\
		     TP_ARGS(id_priv))

CMA_FSM_EVENT(send_rtu);
CMA_FSM_EVENT(send_rej);
CMA_FSM_EVENT(send_mra);
CMA_FSM_EVENT(send_sidr_req);
CMA_FSM_EVENT(send_sidr_rep);
CMA_FSM_EVENT(disconnect);
CMA_FSM_EVENT(sent_drep);
CMA_FSM_EVENT(sent_dreq);
CMA_FSM_EVENT(id_destroy);

/* No ToS in this one's record, as on stock. */
TRACE_EVENT(cm_id_attach,
	    TP_PROTO(const struct rdma_id_private *id_priv,
		     const struct ib_device *device),
	    TP_ARGS(id_priv, device),
	    TP_STRUCT__entry(__field(u32, cm_id)
			     __array(unsigned char, srcaddr,
				     sizeof(struct sockaddr_in6))
			     __array(unsigned char, dstaddr,
				     sizeof(struct sockaddr_in6))
			     __string(devname, device->name)),
	    TP_fast_assign(__entry->cm_id = id_priv->res.id;
			   cma_trace_addrs(__entry->srcaddr, __entry->dstaddr,
					   id_priv);
			   __assign_str(devname, device->name)),
	    TP_printk("cm.id=%u src=%pISpc dst=%pISpc device=%s",
		      __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		      __get_str(devname))
);

DECLARE_EVENT_CLASS(cma_qp_class,
		    TP_PROTO(const struct rdma_id_private *id_priv),
		    TP_ARGS(id_priv),
		    CMA_ID_ENTRY(__field(u32, qp_num)),
		    TP_fast_assign(CMA_ID_ASSIGN(id_priv);
				   __entry->qp_num = id_priv->qp_num),
		    CMA_ID_PRINTK(" qp_num=%u", __entry->qp_num)
);

#define CMA_QP_EVENT(name)						\
	DEFINE_EVENT(cma_qp_class, cm_##name,				\
		     TP_PROTO(const struct rdma_id_private *id_priv),	\
		     TP_ARGS(id_priv))

CMA_QP_EVENT(send_req);
CMA_QP_EVENT(send_rep);
CMA_QP_EVENT(qp_destroy);

/* enum ib_qp_type, for the format's readers and the output. */
TRACE_DEFINE_ENUM(IB_QPT_SMI);
TRACE_DEFINE_ENUM(IB_QPT_GSI);
TRACE_DEFINE_ENUM(IB_QPT_RC);
TRACE_DEFINE_ENUM(IB_QPT_UC);
TRACE_DEFINE_ENUM(IB_QPT_UD);
TRACE_DEFINE_ENUM(IB_QPT_RAW_IPV6);
TRACE_DEFINE_ENUM(IB_QPT_RAW_ETHERTYPE);
TRACE_DEFINE_ENUM(IB_QPT_RAW_PACKET);
TRACE_DEFINE_ENUM(IB_QPT_XRC_INI);
TRACE_DEFINE_ENUM(IB_QPT_XRC_TGT);

#define cma_show_qp_type(x)						\
	__print_symbolic(x, { IB_QPT_SMI, "SMI" }, { IB_QPT_GSI, "GSI" }, \
			 { IB_QPT_RC, "RC" }, { IB_QPT_UC, "UC" },	\
			 { IB_QPT_UD, "UD" },				\
			 { IB_QPT_RAW_IPV6, "RAW_IPV6" },		\
			 { IB_QPT_RAW_ETHERTYPE, "RAW_ETHERTYPE" },	\
			 { IB_QPT_RAW_PACKET, "RAW_PACKET" },		\
			 { IB_QPT_XRC_INI, "XRC_INI" },			\
			 { IB_QPT_XRC_TGT, "XRC_TGT" })

/* The PD sits between the id and its ToS in the record, as on stock. */
TRACE_EVENT(cm_qp_create,
	    TP_PROTO(const struct rdma_id_private *id_priv,
		     const struct ib_pd *pd,
		     const struct ib_qp_init_attr *qp_init_attr, int rc),
	    TP_ARGS(id_priv, pd, qp_init_attr, rc),
	    TP_STRUCT__entry(__field(u32, cm_id)
			     __field(u32, pd_id)
			     __field(u32, tos)
			     __field(u32, qp_num)
			     __field(u32, send_wr)
			     __field(u32, recv_wr)
			     __field(int, rc)
			     __field(unsigned long, qp_type)
			     __array(unsigned char, srcaddr,
				     sizeof(struct sockaddr_in6))
			     __array(unsigned char, dstaddr,
				     sizeof(struct sockaddr_in6))),
	    TP_fast_assign(CMA_ID_ASSIGN(id_priv);
			   __entry->pd_id = pd->res.id;
			   __entry->send_wr = qp_init_attr->cap.max_send_wr;
			   __entry->recv_wr = qp_init_attr->cap.max_recv_wr;
			   __entry->rc = rc;
			   __entry->qp_num = rc ? 0 : id_priv->qp_num;
			   __entry->qp_type = rc ? 0 : id_priv->id.qp_type),
	    CMA_ID_PRINTK(" pd.id=%u qp_type=%s send_wr=%u recv_wr=%u qp_num=%u rc=%d",
			  __entry->pd_id, cma_show_qp_type(__entry->qp_type),
			  __entry->send_wr, __entry->recv_wr, __entry->qp_num,
			  __entry->rc)
);

TRACE_EVENT(cm_req_handler,
	    TP_PROTO(const struct rdma_id_private *id_priv, int event),
	    TP_ARGS(id_priv, event),
	    CMA_ID_ENTRY(__field(unsigned long, event)),
	    TP_fast_assign(CMA_ID_ASSIGN(id_priv);
			   __entry->event = event),
	    CMA_ID_PRINTK(" %s (%lu)", rdma_show_ib_cm_event(__entry->event),
			  __entry->event)
);

TRACE_EVENT(cm_event_handler,
	    TP_PROTO(const struct rdma_id_private *id_priv,
		     const struct rdma_cm_event *event),
	    TP_ARGS(id_priv, event),
	    CMA_ID_ENTRY(__field(unsigned long, event)
			 __field(int, status)),
	    TP_fast_assign(CMA_ID_ASSIGN(id_priv);
			   __entry->event = event->event;
			   __entry->status = event->status),
	    CMA_ID_PRINTK(" %s (%lu/%d)", rdma_show_cm_event(__entry->event),
			  __entry->event, __entry->status)
);

TRACE_EVENT(cm_event_done,
	    TP_PROTO(const struct rdma_id_private *id_priv,
		     const struct rdma_cm_event *event, int result),
	    TP_ARGS(id_priv, event, result),
	    CMA_ID_ENTRY(__field(unsigned long, event)
			 __field(int, result)),
	    TP_fast_assign(CMA_ID_ASSIGN(id_priv);
			   __entry->event = event->event;
			   __entry->result = result),
	    CMA_ID_PRINTK(" %s consumer returns %d",
			  rdma_show_cm_event(__entry->event), __entry->result)
);

DECLARE_EVENT_CLASS(cma_client_class,
		    TP_PROTO(const struct ib_device *device),
		    TP_ARGS(device),
		    TP_STRUCT__entry(__string(name, device->name)),
		    TP_fast_assign(__assign_str(name, device->name)),
		    TP_printk("device name=%s", __get_str(name))
);

#define CMA_CLIENT_EVENT(name)						\
	DEFINE_EVENT(cma_client_class, cm_##name,			\
		     TP_PROTO(const struct ib_device *device),		\
		     TP_ARGS(device))

CMA_CLIENT_EVENT(add_one);
CMA_CLIENT_EVENT(remove_one);

#endif /* OOT_RDMA_CMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE cma_trace

#include <trace/define_trace.h>

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rdma_cma trace events. Names, fields and output are those of the
 * in-tree rdma_cm (the user-visible interface: `trace-cmd record -e
 * rdma_cma` and perf scripts read them), so that tools written for the
 * in-tree CM read ours. The IB CM events (send_req, send_rtu, ...) are
 * defined for the IB path; the iWARP path fires the same ones in-tree
 * does: attach, qp create/destroy, event handler/done, id destroy,
 * device add/remove.
 *
 * Laid out as kernel trace headers are (checkpatch's alignment and
 * "line ends with (" checks do not fit TRACE_EVENT() and are not followed).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdma_cma

#if !defined(_TRACE_ORCM_RDMA_CMA_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ORCM_RDMA_CMA_H

#include <linux/tracepoint.h>
#include <trace/misc/rdma.h>
#include <openrdma/compat.h>

#include "cma_priv.h"

#ifndef ORCM_TRACE_HELPERS
#define ORCM_TRACE_HELPERS
/* The addresses every id event carries: sockaddr_in6 holds either family. */
static inline void orcm_trace_addrs(unsigned char *src, unsigned char *dst,
				    const struct rdma_id_private *id_priv)
{
	memcpy(src, &id_priv->id.route.addr.src_addr,
	       sizeof(struct sockaddr_in6));
	memcpy(dst, &id_priv->id.route.addr.dst_addr,
	       sizeof(struct sockaddr_in6));
}
#endif

DECLARE_EVENT_CLASS(cma_fsm_class,
	TP_PROTO(const struct rdma_id_private *id_priv),
	TP_ARGS(id_priv),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__array(unsigned char, srcaddr, sizeof(struct sockaddr_in6))
		__array(unsigned char, dstaddr, sizeof(struct sockaddr_in6))
	),
	TP_fast_assign(
		__entry->cm_id = id_priv->res.id;
		__entry->tos = id_priv->tos;
		orcm_trace_addrs(__entry->srcaddr, __entry->dstaddr, id_priv);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos)
);

#define ORCM_FSM_EVENT(name)						\
	DEFINE_EVENT(cma_fsm_class, cm_##name,				\
		     TP_PROTO(const struct rdma_id_private *id_priv),	\
		     TP_ARGS(id_priv))

ORCM_FSM_EVENT(send_rtu);
ORCM_FSM_EVENT(send_rej);
ORCM_FSM_EVENT(send_mra);
ORCM_FSM_EVENT(send_sidr_req);
ORCM_FSM_EVENT(send_sidr_rep);
ORCM_FSM_EVENT(disconnect);
ORCM_FSM_EVENT(sent_drep);
ORCM_FSM_EVENT(sent_dreq);
ORCM_FSM_EVENT(id_destroy);

TRACE_EVENT(cm_id_attach,
	TP_PROTO(const struct rdma_id_private *id_priv,
		 const struct ib_device *device),
	TP_ARGS(id_priv, device),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__array(unsigned char, srcaddr, sizeof(struct sockaddr_in6))
		__array(unsigned char, dstaddr, sizeof(struct sockaddr_in6))
		__string(devname, device->name)
	),
	TP_fast_assign(
		__entry->cm_id = id_priv->res.id;
		orcm_trace_addrs(__entry->srcaddr, __entry->dstaddr, id_priv);
		orcm_assign_str(devname, device->name);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc device=%s",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __get_str(devname))
);

DECLARE_EVENT_CLASS(cma_qp_class,
	TP_PROTO(const struct rdma_id_private *id_priv),
	TP_ARGS(id_priv),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__field(u32, qp_num)
		__array(unsigned char, srcaddr, sizeof(struct sockaddr_in6))
		__array(unsigned char, dstaddr, sizeof(struct sockaddr_in6))
	),
	TP_fast_assign(
		__entry->cm_id = id_priv->res.id;
		__entry->tos = id_priv->tos;
		__entry->qp_num = id_priv->qp_num;
		orcm_trace_addrs(__entry->srcaddr, __entry->dstaddr, id_priv);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u qp_num=%u",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, __entry->qp_num)
);

#define ORCM_QP_EVENT(name)						\
	DEFINE_EVENT(cma_qp_class, cm_##name,				\
		     TP_PROTO(const struct rdma_id_private *id_priv),	\
		     TP_ARGS(id_priv))

ORCM_QP_EVENT(send_req);
ORCM_QP_EVENT(send_rep);
ORCM_QP_EVENT(qp_destroy);

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

#define orcm_show_qp_type(x)						\
	__print_symbolic(x, { IB_QPT_SMI, "SMI" }, { IB_QPT_GSI, "GSI" }, \
			 { IB_QPT_RC, "RC" }, { IB_QPT_UC, "UC" },	\
			 { IB_QPT_UD, "UD" },				\
			 { IB_QPT_RAW_IPV6, "RAW_IPV6" },		\
			 { IB_QPT_RAW_ETHERTYPE, "RAW_ETHERTYPE" },	\
			 { IB_QPT_RAW_PACKET, "RAW_PACKET" },		\
			 { IB_QPT_XRC_INI, "XRC_INI" },			\
			 { IB_QPT_XRC_TGT, "XRC_TGT" })

TRACE_EVENT(cm_qp_create,
	TP_PROTO(const struct rdma_id_private *id_priv,
		 const struct ib_pd *pd,
		 const struct ib_qp_init_attr *qp_init_attr, int rc),
	TP_ARGS(id_priv, pd, qp_init_attr, rc),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, pd_id)
		__field(u32, tos)
		__field(u32, qp_num)
		__field(u32, send_wr)
		__field(u32, recv_wr)
		__field(int, rc)
		__field(unsigned long, qp_type)
		__array(unsigned char, srcaddr, sizeof(struct sockaddr_in6))
		__array(unsigned char, dstaddr, sizeof(struct sockaddr_in6))
	),
	TP_fast_assign(
		__entry->cm_id = id_priv->res.id;
		__entry->pd_id = pd->res.id;
		__entry->tos = id_priv->tos;
		__entry->send_wr = qp_init_attr->cap.max_send_wr;
		__entry->recv_wr = qp_init_attr->cap.max_recv_wr;
		__entry->rc = rc;
		__entry->qp_num = rc ? 0 : id_priv->qp_num;
		__entry->qp_type = rc ? 0 : id_priv->id.qp_type;
		orcm_trace_addrs(__entry->srcaddr, __entry->dstaddr, id_priv);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u pd.id=%u qp_type=%s send_wr=%u recv_wr=%u qp_num=%u rc=%d",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, __entry->pd_id,
		  orcm_show_qp_type(__entry->qp_type), __entry->send_wr,
		  __entry->recv_wr, __entry->qp_num, __entry->rc)
);

TRACE_EVENT(cm_req_handler,
	TP_PROTO(const struct rdma_id_private *id_priv, int event),
	TP_ARGS(id_priv, event),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__field(unsigned long, event)
		__array(unsigned char, srcaddr, sizeof(struct sockaddr_in6))
		__array(unsigned char, dstaddr, sizeof(struct sockaddr_in6))
	),
	TP_fast_assign(
		__entry->cm_id = id_priv->res.id;
		__entry->tos = id_priv->tos;
		__entry->event = event;
		orcm_trace_addrs(__entry->srcaddr, __entry->dstaddr, id_priv);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s (%lu)",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, rdma_show_ib_cm_event(__entry->event),
		  __entry->event)
);

TRACE_EVENT(cm_event_handler,
	TP_PROTO(const struct rdma_id_private *id_priv,
		 const struct rdma_cm_event *event),
	TP_ARGS(id_priv, event),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__field(unsigned long, event)
		__field(int, status)
		__array(unsigned char, srcaddr, sizeof(struct sockaddr_in6))
		__array(unsigned char, dstaddr, sizeof(struct sockaddr_in6))
	),
	TP_fast_assign(
		__entry->cm_id = id_priv->res.id;
		__entry->tos = id_priv->tos;
		__entry->event = event->event;
		__entry->status = event->status;
		orcm_trace_addrs(__entry->srcaddr, __entry->dstaddr, id_priv);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s (%lu/%d)",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, rdma_show_cm_event(__entry->event),
		  __entry->event, __entry->status)
);

TRACE_EVENT(cm_event_done,
	TP_PROTO(const struct rdma_id_private *id_priv,
		 const struct rdma_cm_event *event, int result),
	TP_ARGS(id_priv, event, result),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__field(unsigned long, event)
		__field(int, result)
		__array(unsigned char, srcaddr, sizeof(struct sockaddr_in6))
		__array(unsigned char, dstaddr, sizeof(struct sockaddr_in6))
	),
	TP_fast_assign(
		__entry->cm_id = id_priv->res.id;
		__entry->tos = id_priv->tos;
		__entry->event = event->event;
		__entry->result = result;
		orcm_trace_addrs(__entry->srcaddr, __entry->dstaddr, id_priv);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s consumer returns %d",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, rdma_show_cm_event(__entry->event),
		  __entry->result)
);

DECLARE_EVENT_CLASS(cma_client_class,
	TP_PROTO(const struct ib_device *device),
	TP_ARGS(device),
	TP_STRUCT__entry(
		__string(name, device->name)
	),
	TP_fast_assign(
		orcm_assign_str(name, device->name);
	),
	TP_printk("device name=%s", __get_str(name))
);

DEFINE_EVENT(cma_client_class, cm_add_one,
	     TP_PROTO(const struct ib_device *device), TP_ARGS(device));
DEFINE_EVENT(cma_client_class, cm_remove_one,
	     TP_PROTO(const struct ib_device *device), TP_ARGS(device));

#endif /* _TRACE_ORCM_RDMA_CMA_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

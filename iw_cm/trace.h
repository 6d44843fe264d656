/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iw_cm trace events (ours; the in-tree iw_cm has none): each provider
 * upcall as it is queued (or refused), and each delivery to the user's
 * cm_handler with what it returned. `trace-cmd record -e iw_cm`.
 *
 * Laid out as kernel trace headers are (checkpatch's alignment and
 * "line ends with (" checks do not fit TRACE_EVENT() and are not followed).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM iw_cm

#if !defined(_TRACE_ORCM_IW_CM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ORCM_IW_CM_H

#include <linux/tracepoint.h>
#include <rdma/iw_cm.h>

TRACE_DEFINE_ENUM(IW_CM_EVENT_CONNECT_REQUEST);
TRACE_DEFINE_ENUM(IW_CM_EVENT_CONNECT_REPLY);
TRACE_DEFINE_ENUM(IW_CM_EVENT_ESTABLISHED);
TRACE_DEFINE_ENUM(IW_CM_EVENT_DISCONNECT);
TRACE_DEFINE_ENUM(IW_CM_EVENT_CLOSE);

#define iwcm_show_event(x)						\
	__print_symbolic(x,						\
			 { IW_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST" }, \
			 { IW_CM_EVENT_CONNECT_REPLY, "CONNECT_REPLY" },	\
			 { IW_CM_EVENT_ESTABLISHED, "ESTABLISHED" },	\
			 { IW_CM_EVENT_DISCONNECT, "DISCONNECT" },	\
			 { IW_CM_EVENT_CLOSE, "CLOSE" })

TRACE_EVENT(iwcm_upcall,
	TP_PROTO(const struct iw_cm_id *id, const struct iw_cm_event *ev,
		 int queued),
	TP_ARGS(id, ev, queued),
	TP_STRUCT__entry(
		__field(const void *, id)
		__field(unsigned long, event)
		__field(int, status)
		__field(u32, pd_len)
		__field(u32, ird)
		__field(u32, ord)
		__field(int, queued)
		__array(unsigned char, laddr, sizeof(struct sockaddr_in6))
		__array(unsigned char, raddr, sizeof(struct sockaddr_in6))
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->event = ev->event;
		__entry->status = ev->status;
		__entry->pd_len = ev->private_data_len;
		__entry->ird = ev->ird;
		__entry->ord = ev->ord;
		__entry->queued = queued;
		memcpy(__entry->laddr, &ev->local_addr,
		       sizeof(struct sockaddr_in6));
		memcpy(__entry->raddr, &ev->remote_addr,
		       sizeof(struct sockaddr_in6));
	),
	TP_printk("id=%p %s status=%d local=%pISpc remote=%pISpc pd_len=%u ird=%u ord=%u queued=%d",
		  __entry->id, iwcm_show_event(__entry->event),
		  __entry->status, __entry->laddr, __entry->raddr,
		  __entry->pd_len, __entry->ird, __entry->ord,
		  __entry->queued)
);

TRACE_EVENT(iwcm_deliver,
	TP_PROTO(const struct iw_cm_id *id, const struct iw_cm_event *ev,
		 int ret),
	TP_ARGS(id, ev, ret),
	TP_STRUCT__entry(
		__field(const void *, id)
		__field(unsigned long, event)
		__field(int, status)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->event = ev->event;
		__entry->status = ev->status;
		__entry->ret = ret;
	),
	TP_printk("id=%p %s status=%d handler returns %d", __entry->id,
		  iwcm_show_event(__entry->event), __entry->status,
		  __entry->ret)
);

#endif /* _TRACE_ORCM_IW_CM_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

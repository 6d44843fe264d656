/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ib_cma trace events of the IB CM. Names, fields and output are the
 * in-tree ib_cm's (the user-visible interface: `trace-cmd record -e
 * ib_cma`, perf and bpftrace scripts read them), so tools written for the
 * in-tree CM read ours. Which of them fire, and where, is in docs/ib_cm.md.
 *
 * Laid out as kernel trace headers are (checkpatch's alignment and
 * "line ends with (" checks do not fit TRACE_EVENT() and are not followed;
 * nor do its "complex macro" and "trailing semicolon" ones fit the EM()
 * lists, which expand to statements in one pass and to initialisers in
 * the other).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_cma

#if !defined(_TRACE_ORCM_IB_CMA_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ORCM_IB_CMA_H

#include <linux/tracepoint.h>
#include <rdma/ib_cm.h>
#include <trace/misc/rdma.h>

/* Symbolic names of enum ib_cm_state, enum ib_cm_lap_state and the REJ reasons. */
#define ORCM_CM_STATES							\
	EM(IDLE) EM(LISTEN) EM(REQ_SENT) EM(REQ_RCVD)			\
	EM(MRA_REQ_SENT) EM(MRA_REQ_RCVD) EM(REP_SENT) EM(REP_RCVD)	\
	EM(MRA_REP_SENT) EM(MRA_REP_RCVD) EM(ESTABLISHED)		\
	EM(DREQ_SENT) EM(DREQ_RCVD) EM(TIMEWAIT) EM(SIDR_REQ_SENT)	\
	EM_END(SIDR_REQ_RCVD)

#define ORCM_CM_LAP_STATES						\
	EM(LAP_UNINIT) EM(LAP_IDLE) EM(LAP_SENT) EM(LAP_RCVD)		\
	EM(MRA_LAP_SENT) EM_END(MRA_LAP_RCVD)

#define ORCM_CM_REJ_REASONS						\
	EM(REJ_NO_QP) EM(REJ_NO_EEC) EM(REJ_NO_RESOURCES)		\
	EM(REJ_TIMEOUT) EM(REJ_UNSUPPORTED) EM(REJ_INVALID_COMM_ID)	\
	EM(REJ_INVALID_COMM_INSTANCE) EM(REJ_INVALID_SERVICE_ID)	\
	EM(REJ_INVALID_TRANSPORT_TYPE) EM(REJ_STALE_CONN)		\
	EM(REJ_RDC_NOT_EXIST) EM(REJ_INVALID_GID) EM(REJ_INVALID_LID)	\
	EM(REJ_INVALID_SL) EM(REJ_INVALID_TRAFFIC_CLASS)		\
	EM(REJ_INVALID_HOP_LIMIT) EM(REJ_INVALID_PACKET_RATE)		\
	EM(REJ_INVALID_ALT_GID) EM(REJ_INVALID_ALT_LID)			\
	EM(REJ_INVALID_ALT_SL) EM(REJ_INVALID_ALT_TRAFFIC_CLASS)	\
	EM(REJ_INVALID_ALT_HOP_LIMIT) EM(REJ_INVALID_ALT_PACKET_RATE)	\
	EM(REJ_PORT_CM_REDIRECT) EM(REJ_PORT_REDIRECT)			\
	EM(REJ_INVALID_MTU) EM(REJ_INSUFFICIENT_RESP_RESOURCES)		\
	EM(REJ_CONSUMER_DEFINED) EM(REJ_INVALID_RNR_RETRY)		\
	EM(REJ_DUPLICATE_LOCAL_COMM_ID) EM(REJ_INVALID_CLASS_VERSION)	\
	EM(REJ_INVALID_FLOW_LABEL) EM(REJ_INVALID_ALT_FLOW_LABEL)	\
	EM_END(REJ_VENDOR_OPTION_NOT_SUPPORTED)

/* First pass: the enum values, for user space to resolve the names. */
#undef EM
#undef EM_END
#define EM(x)	TRACE_DEFINE_ENUM(IB_CM_##x);
#define EM_END(x)	TRACE_DEFINE_ENUM(IB_CM_##x);

ORCM_CM_STATES
ORCM_CM_LAP_STATES
ORCM_CM_REJ_REASONS

/* Second pass: { value, "NAME" } pairs for __print_symbolic(). */
#undef EM
#undef EM_END
#define EM(x)	{ IB_CM_##x, #x },
#define EM_END(x)	{ IB_CM_##x, #x }

#define orcm_show_cm_state(x)	__print_symbolic(x, ORCM_CM_STATES)
#define orcm_show_lap_state(x)	__print_symbolic(x, ORCM_CM_LAP_STATES)
#define orcm_show_rej_reason(x)	__print_symbolic(x, ORCM_CM_REJ_REASONS)

/* An id: its comm ids and states. */
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
		  orcm_show_cm_state(__entry->state),
		  orcm_show_lap_state(__entry->lap_state))
);

#define ORCM_ID_EVENT(name)						\
	DEFINE_EVENT(icm_id_class, icm_##name,				\
		     TP_PROTO(const struct ib_cm_id *cm_id),		\
		     TP_ARGS(cm_id))

/* A message about to be sent by an id (state: before the send). */
ORCM_ID_EVENT(send_req);
ORCM_ID_EVENT(send_rep);
ORCM_ID_EVENT(send_dup_req);
ORCM_ID_EVENT(send_dup_rep);
ORCM_ID_EVENT(send_rtu);
ORCM_ID_EVENT(send_mra);
ORCM_ID_EVENT(send_sidr_req);
ORCM_ID_EVENT(send_sidr_rep);
ORCM_ID_EVENT(send_dreq);
ORCM_ID_EVENT(send_drep);

/* A call or a message that the id's state does not allow. */
ORCM_ID_EVENT(send_cm_rtu_err);
ORCM_ID_EVENT(establish_err);
ORCM_ID_EVENT(no_listener_err);
ORCM_ID_EVENT(send_drep_err);
ORCM_ID_EVENT(dreq_unknown_err);
ORCM_ID_EVENT(send_unknown_rej_err);
ORCM_ID_EVENT(rej_unknown_err);
ORCM_ID_EVENT(send_mra_unknown_err);
ORCM_ID_EVENT(mra_unknown_err);
ORCM_ID_EVENT(qp_init_err);
ORCM_ID_EVENT(qp_rtr_err);
ORCM_ID_EVENT(qp_rts_err);
ORCM_ID_EVENT(dreq_skipped);

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
		  orcm_show_cm_state(__entry->state),
		  orcm_show_rej_reason(__entry->reason))
);

/* A received message's comm ids (host order), no id of ours. */
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

#define ORCM_LOCAL_EVENT(name)						\
	DEFINE_EVENT(icm_local_class, icm_##name,			\
		     TP_PROTO(unsigned int local_id, unsigned int remote_id), \
		     TP_ARGS(local_id, remote_id))

ORCM_LOCAL_EVENT(issue_rej);
ORCM_LOCAL_EVENT(issue_drep);
ORCM_LOCAL_EVENT(staleconn_err);
ORCM_LOCAL_EVENT(no_priv_err);

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

DEFINE_EVENT(icm_remote_class, icm_remote_no_priv_err,
	     TP_PROTO(u32 remote_id), TP_ARGS(remote_id));
DEFINE_EVENT(icm_remote_class, icm_insert_failed_err,
	     TP_PROTO(u32 remote_id), TP_ARGS(remote_id));

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
		  orcm_show_cm_state(__entry->state))
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
	TP_printk("local_id=%u remote_id=%u state=%s",
		  __entry->local_id, __entry->remote_id,
		  orcm_show_cm_state(__entry->state))
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
		  orcm_show_cm_state(__entry->state),
		  rdma_show_wc_status(__entry->wc_status))
);

#endif /* _TRACE_ORCM_IB_CMA_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

// SPDX-License-Identifier: GPL-2.0
/*
 * Rejecting: ib_send_cm_rej() in the states of connection setup, REJs we
 * send on our own (no listener, stale connection, destroy), a received
 * REJ, and the reject reason strings of ibcm_reject_msg().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <linux/module.h>
#include <linux/slab.h>

#include "cm_priv.h"
#include "trace.h"

/*
 * The texts are the in-tree ones: ULPs print them in their logs
 * ("Connect rejected: status 28 (consumer defined)"), and a log must read
 * the same whichever CM runs.
 */
static const char *const cm_rej_reasons[] = {
	[IB_CM_REJ_NO_QP]			= "no QP",
	[IB_CM_REJ_NO_EEC]			= "no EEC",
	[IB_CM_REJ_NO_RESOURCES]		= "no resources",
	[IB_CM_REJ_TIMEOUT]			= "timeout",
	[IB_CM_REJ_UNSUPPORTED]			= "unsupported",
	[IB_CM_REJ_INVALID_COMM_ID]		= "invalid comm ID",
	[IB_CM_REJ_INVALID_COMM_INSTANCE]	= "invalid comm instance",
	[IB_CM_REJ_INVALID_SERVICE_ID]		= "invalid service ID",
	[IB_CM_REJ_INVALID_TRANSPORT_TYPE]	= "invalid transport type",
	[IB_CM_REJ_STALE_CONN]			= "stale conn",
	[IB_CM_REJ_RDC_NOT_EXIST]		= "RDC not exist",
	[IB_CM_REJ_INVALID_GID]			= "invalid GID",
	[IB_CM_REJ_INVALID_LID]			= "invalid LID",
	[IB_CM_REJ_INVALID_SL]			= "invalid SL",
	[IB_CM_REJ_INVALID_TRAFFIC_CLASS]	= "invalid traffic class",
	[IB_CM_REJ_INVALID_HOP_LIMIT]		= "invalid hop limit",
	[IB_CM_REJ_INVALID_PACKET_RATE]		= "invalid packet rate",
	[IB_CM_REJ_INVALID_ALT_GID]		= "invalid alt GID",
	[IB_CM_REJ_INVALID_ALT_LID]		= "invalid alt LID",
	[IB_CM_REJ_INVALID_ALT_SL]		= "invalid alt SL",
	[IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS]	= "invalid alt traffic class",
	[IB_CM_REJ_INVALID_ALT_HOP_LIMIT]	= "invalid alt hop limit",
	[IB_CM_REJ_INVALID_ALT_PACKET_RATE]	= "invalid alt packet rate",
	[IB_CM_REJ_PORT_CM_REDIRECT]		= "port CM redirect",
	[IB_CM_REJ_PORT_REDIRECT]		= "port redirect",
	[IB_CM_REJ_INVALID_MTU]			= "invalid MTU",
	[IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES]	= "insufficient resp resources",
	[IB_CM_REJ_CONSUMER_DEFINED]		= "consumer defined",
	[IB_CM_REJ_INVALID_RNR_RETRY]		= "invalid RNR retry",
	[IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID]	= "duplicate local comm ID",
	[IB_CM_REJ_INVALID_CLASS_VERSION]	= "invalid class version",
	[IB_CM_REJ_INVALID_FLOW_LABEL]		= "invalid flow label",
	[IB_CM_REJ_INVALID_ALT_FLOW_LABEL]	= "invalid alt flow label",
	[IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED]	= "vendor option is not supported",
};

/**
 * ibcm_reject_msg - a string for an IB CM reject reason
 * @reason: the REJECTED event's status
 */
const char *__attribute_const__ ibcm_reject_msg(int reason)
{
	if (reason >= 0 && reason < ARRAY_SIZE(cm_rej_reasons) &&
	    cm_rej_reasons[reason])
		return cm_rej_reasons[reason];
	return "unrecognized reason";
}
EXPORT_SYMBOL(ibcm_reject_msg);

/* Send a REJ for the connection of @priv (locked); the state is left. */
int cm_send_rej_locked(struct cm_id_priv *priv, enum ib_cm_rej_reason reason,
		       const void *ari, u8 ari_length,
		       const void *private_data, u8 private_data_len)
{
	struct cm_msg *msg;
	int ret;

	lockdep_assert_held(&priv->lock);
	trace_icm_send_rej(&priv->id, reason);
	msg = kzalloc(sizeof(*msg), GFP_ATOMIC);
	if (!msg)
		return -ENOMEM;
	msg->attr_id = CM_REJ_ATTR_ID;
	msg->tid = priv->tid;
	msg->rej.local_comm_id = priv->id.local_id;
	msg->rej.remote_comm_id = priv->id.remote_id;
	switch (priv->id.state) {
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
		msg->rej.msg_rejected = CM_MSG_REQ;
		break;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		msg->rej.msg_rejected = CM_MSG_REP;
		break;
	default:
		msg->rej.msg_rejected = CM_MSG_OTHER;
		break;
	}
	msg->rej.reason = reason;
	msg->rej.ari_length = ari_length;
	if (ari_length)
		memcpy(msg->rej.ari, ari, ari_length);
	if (private_data_len)
		memcpy(msg->rej.private_data, private_data, private_data_len);
	ret = cm_send(priv, msg, 0, 0, false);
	kfree(msg);
	return ret;
}

/**
 * ib_send_cm_rej - reject a connection being set up
 * @cm_id: the id, between REQ and RTU
 * @reason: the reject reason
 * @ari: additional rejection information, up to IB_CM_REJ_ARI_LENGTH
 * @ari_length: its length
 * @private_data: up to IB_CM_REJ_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 */
int ib_send_cm_rej(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason,
		   void *ari, u8 ari_length, const void *private_data,
		   u8 private_data_len)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	bool idle = false;
	int ret;

	if (ari_length > IB_CM_REJ_ARI_LENGTH ||
	    private_data_len > IB_CM_REJ_PRIVATE_DATA_SIZE ||
	    (ari_length && !ari) || (private_data_len && !private_data))
		return -EINVAL;
	spin_lock(&priv->lock);
	switch (cm_id->state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(priv);
		ret = cm_send_rej_locked(priv, reason, ari, ari_length,
					 private_data, private_data_len);
		cm_id->state = IB_CM_IDLE;
		idle = true;
		break;
	default:
		trace_icm_send_rej(cm_id, reason);
		trace_icm_send_unknown_rej_err(cm_id);
		ret = -EINVAL;
		break;
	}
	spin_unlock(&priv->lock);
	/* Idle whether or not the REJ left (-ENETDOWN): no longer the peer's. */
	if (idle)
		cm_unlink_remote(priv);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rej);

/* REJ a received REQ that no id takes, addressed from the completion. */
void cm_reject_from_wc_ari(struct cm_port *port, struct ib_mad_recv_wc *wc,
			   const struct cm_msg *rcvd,
			   enum ib_cm_rej_reason reason,
			   const void *ari, u8 ari_length)
{
	struct cm_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);

	if (!msg)
		return;
	msg->attr_id = CM_REJ_ATTR_ID;
	msg->tid = rcvd->tid;
	msg->rej.remote_comm_id = rcvd->req.local_comm_id;
	msg->rej.msg_rejected = CM_MSG_REQ;
	msg->rej.reason = reason;
	ari_length = min_t(u8, ari_length, IB_CM_REJ_ARI_LENGTH);
	msg->rej.ari_length = ari_length;
	if (ari_length)
		memcpy(msg->rej.ari, ari, ari_length);
	/* The received message's first two words, as the in-tree event. */
	trace_icm_issue_rej(be32_to_cpu(rcvd->req.local_comm_id), 0);
	cm_send_reply_from_wc(port, wc, msg);
	kfree(msg);
}

void cm_reject_from_wc(struct cm_port *port, struct ib_mad_recv_wc *wc,
		       const struct cm_msg *rcvd, enum ib_cm_rej_reason reason)
{
	cm_reject_from_wc_ari(port, wc, rcvd, reason, NULL, 0);
}

/*
 * Does @rej belong to the connection of @priv (found by the REJ's remote
 * comm id, or for a TIMEOUT by its local comm id and ARI)? A REJ of our REQ
 * may come before the peer told us its comm id, and from a peer that made
 * no id at all (its local comm id 0 then), so it is taken only while we
 * know no remote comm id. Any other REJ must carry the remote comm id we
 * know: otherwise one learnt local comm id (they are a cyclic index XOR one
 * random value) would let anyone on the subnet tear down its neighbours.
 * This is the in-tree CM's rule.
 */
static bool cm_rej_is_ours(struct cm_id_priv *priv,
			   const struct cm_rej_info *rej)
{
	lockdep_assert_held(&priv->lock);
	if (rej->msg_rejected == CM_MSG_REQ)
		return !priv->id.remote_id;
	return priv->id.remote_id == rej->local_comm_id;
}

void cm_recv_rej(struct cm_port *port, struct cm_msg *msg)
{
	const struct cm_rej_info *rej = &msg->rej;
	struct cm_event_elem *elem;
	struct cm_id_priv *priv;
	bool timewait = false;
	__be64 guid;

	if (!rej->remote_comm_id && rej->reason == IB_CM_REJ_TIMEOUT &&
	    rej->ari_length >= sizeof(guid)) {
		/*
		 * An active side that gave up on its REQ before it learnt our
		 * id: found by its id and the CA GUID its ARI carries.
		 */
		memcpy(&guid, rej->ari, sizeof(guid));
		priv = cm_lookup_remote(rej->local_comm_id, guid);
	} else {
		priv = cm_lookup_local(rej->remote_comm_id);
	}
	if (!priv) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		return;
	}
	elem = cm_event_alloc(IB_CM_REJ_RECEIVED, GFP_KERNEL);
	if (!elem) {
		cm_count(CM_CNT_RX_NOMEM);
		goto out;
	}
	spin_lock(&priv->lock);
	if (!cm_rej_is_ours(priv, rej))
		goto bad;
	switch (priv->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(priv);
		priv->id.state = IB_CM_IDLE;
		break;
	case IB_CM_ESTABLISHED:
		/* After a LAP, in-tree ignores a REJ: so do we. */
		if (rej->reason != IB_CM_REJ_STALE_CONN ||
		    priv->id.lap_state != IB_CM_LAP_UNINIT)
			goto bad;
		cm_enter_timewait(priv);
		timewait = true;
		break;
	default:
		goto bad;
	}
	spin_unlock(&priv->lock);
	if (!timewait)
		cm_unlink_remote(priv);

	elem->ev.param.rej_rcvd.reason = rej->reason;
	memcpy(elem->info, rej->ari, IB_CM_REJ_ARI_LENGTH);
	elem->ev.param.rej_rcvd.ari = elem->info;
	elem->ev.param.rej_rcvd.ari_length = rej->ari_length;
	memcpy(elem->data, rej->private_data, IB_CM_REJ_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	cm_queue_event(priv, elem);
	goto out;
bad:
	trace_icm_rej_unknown_err(&priv->id);
	spin_unlock(&priv->lock);
	cm_count(CM_CNT_RX_BAD_STATE);
	kfree(elem);
out:
	cm_put(priv);
}

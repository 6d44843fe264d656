// SPDX-License-Identifier: GPL-2.0
/*
 * Message receipt acknowledgements: ib_send_cm_mra() (now, or with
 * IB_CM_MRA_FLAG_DELAY only when the peer repeats its message), a
 * received MRA extending the wait for our REQ or REP; an MRA of a LAP
 * (lap.c) too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <linux/module.h>
#include <linux/slab.h>

#include "cm_priv.h"
#include "trace.h"

/**
 * ib_send_cm_mra - acknowledge a REQ or REP whose answer takes time
 * @cm_id: an id in REQ_RCVD or REP_RCVD, or established with a LAP received
 * @service_timeout: bits 0-4, the time we need (IBA time); with
 *	IB_CM_MRA_FLAG_DELAY the MRA is sent only if the peer resends
 * @private_data: up to IB_CM_MRA_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 */
int ib_send_cm_mra(struct ib_cm_id *cm_id, u8 service_timeout,
		   const void *private_data, u8 private_data_len)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	enum ib_cm_state next;
	struct cm_msg *msg;
	int ret = 0;

	if (private_data_len > IB_CM_MRA_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	spin_lock(&priv->lock);
	switch (cm_id->state) {
	case IB_CM_REQ_RCVD:
		msg->mra.msg_mraed = CM_MSG_REQ;
		next = IB_CM_MRA_REQ_SENT;
		break;
	case IB_CM_REP_RCVD:
		msg->mra.msg_mraed = CM_MSG_REP;
		next = IB_CM_MRA_REP_SENT;
		break;
	case IB_CM_ESTABLISHED:
		if (cm_id->lap_state == IB_CM_LAP_RCVD) {
			msg->mra.msg_mraed = CM_MSG_OTHER;
			next = IB_CM_ESTABLISHED;
			break;
		}
		fallthrough;
	default:
		trace_icm_send_mra_unknown_err(cm_id);
		ret = -EINVAL;
		goto out;
	}
	msg->attr_id = CM_MRA_ATTR_ID;
	msg->tid = priv->tid;
	msg->mra.local_comm_id = cm_id->local_id;
	msg->mra.remote_comm_id = cm_id->remote_id;
	msg->mra.service_timeout = service_timeout & 0x1f;
	if (private_data_len)
		memcpy(msg->mra.private_data, private_data, private_data_len);

	if (next == IB_CM_ESTABLISHED) {	/* of a LAP: lap.c */
		if (!(service_timeout & IB_CM_MRA_FLAG_DELAY))
			trace_icm_send_mra(cm_id);
		ret = cm_send_lap_mra(priv, msg,
				      service_timeout & IB_CM_MRA_FLAG_DELAY);
		goto out;
	}
	cm_id->state = next;
	if (service_timeout & IB_CM_MRA_FLAG_DELAY) {
		/* Kept, and sent only for a duplicate of the peer's message. */
		if (!priv->last_mad)
			priv->last_mad = kmalloc(CM_MAD_SIZE, GFP_ATOMIC);
		if (priv->last_mad) {
			cm_msg_build(priv->last_mad, msg);
			priv->mra_delayed = true;
		}
	} else {
		trace_icm_send_mra(cm_id);
		ret = cm_send(priv, msg, 0, 0, true);
		if (ret)
			cm_id->state = next == IB_CM_MRA_REQ_SENT ?
				       IB_CM_REQ_RCVD : IB_CM_REP_RCVD;
	}
out:
	spin_unlock(&priv->lock);
	kfree(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_mra);

void cm_recv_mra(struct cm_port *port, struct cm_msg *msg)
{
	const struct cm_mra_info *mra = &msg->mra;
	struct cm_event_elem *elem;
	struct cm_id_priv *priv;

	priv = cm_lookup_local(mra->remote_comm_id);
	if (!priv) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		return;
	}
	elem = cm_event_alloc(IB_CM_MRA_RECEIVED, GFP_KERNEL);
	if (!elem) {
		cm_count(CM_CNT_RX_NOMEM);
		goto out;
	}
	spin_lock(&priv->lock);
	/* (A REQ still waiting for its slot was never sent: not MRA'd.) */
	if (mra->msg_mraed == CM_MSG_REQ &&
	    priv->id.state == IB_CM_REQ_SENT && !priv->paced_req) {
		priv->id.state = IB_CM_MRA_REQ_RCVD;
	} else if (mra->msg_mraed == CM_MSG_REP &&
		   priv->id.state == IB_CM_REP_SENT &&
		   priv->id.remote_id == mra->local_comm_id) {
		priv->id.state = IB_CM_MRA_REP_RCVD;
	} else {
		if (priv->id.state == IB_CM_MRA_REQ_RCVD ||
		    priv->id.state == IB_CM_MRA_REP_RCVD) {
			cm_count(CM_CNT_RX_DUPLICATE);
			cm_port_count(port, CM_GRP_RX_DUP, CM_MRA_ATTR_ID, 1);
		} else {
			cm_count(CM_CNT_RX_BAD_STATE);
		}
		trace_icm_mra_unknown_err(&priv->id);
		spin_unlock(&priv->lock);
		kfree(elem);
		goto out;
	}
	/* The peer needs longer: wait that long for its answer. */
	if (priv->msg && !priv->msg_cancelled)
		ib_modify_mad(priv->msg,
			      cm_msg_timeout_ms(priv->packet_life_time,
						mra->service_timeout));
	spin_unlock(&priv->lock);

	elem->ev.param.mra_rcvd.service_timeout = mra->service_timeout;
	memcpy(elem->data, mra->private_data, IB_CM_MRA_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	cm_queue_event(priv, elem);
out:
	cm_put(priv);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Disconnecting: DREQ (with retries; a timeout still ends in timewait),
 * DREP, simultaneous DREQs, a DREQ in timewait or for a connection we do
 * not have (both answered with a DREP), and the timewait that ends with
 * IB_CM_TIMEWAIT_EXIT (id.c runs its timer).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <linux/module.h>
#include <linux/slab.h>

#include "cm_priv.h"
#include "trace.h"

/* @wait: retry until the DREP comes; else fire and forget (destroy). */
int cm_send_dreq_locked(struct cm_id_priv *priv, const void *private_data,
			u8 private_data_len, bool wait)
{
	struct cm_msg *msg;
	int ret;

	lockdep_assert_held(&priv->lock);
	msg = kzalloc(sizeof(*msg), GFP_ATOMIC);
	if (!msg)
		return -ENOMEM;
	priv->tid = cm_new_tid(priv->port);
	msg->attr_id = CM_DREQ_ATTR_ID;
	msg->tid = priv->tid;
	msg->disc.local_comm_id = priv->id.local_id;
	msg->disc.remote_comm_id = priv->id.remote_id;
	msg->disc.remote_qpn = priv->remote_qpn;
	if (private_data_len)
		memcpy(msg->disc.private_data, private_data, private_data_len);
	trace_icm_send_dreq(&priv->id);
	priv->id.state = IB_CM_DREQ_SENT;
	ret = cm_send(priv, msg,
		      wait ? cm_wait_ms(priv) : 0,
		      priv->max_cm_retries, false);
	kfree(msg);
	return ret;
}

/**
 * ib_send_cm_dreq - start disconnecting an established connection
 * @cm_id: an established id
 * @private_data: up to IB_CM_DREQ_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 *
 * Return: 0; -EINVAL if not established. If the DREQ cannot be sent the
 * id enters timewait anyway and the error is returned, as in-tree; unlike
 * in-tree, IB_CM_DREQ_ERROR then follows, as for a DREQ lost on the wire,
 * so that a consumer waiting for its disconnect to end (rdma_cm's
 * DISCONNECTED, then TIMEWAIT_EXIT) is not left waiting forever.
 */
int ib_send_cm_dreq(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	int ret;

	if (private_data_len > IB_CM_DREQ_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock(&priv->lock);
	if (cm_id->state != IB_CM_ESTABLISHED) {
		trace_icm_dreq_skipped(cm_id);
		spin_unlock(&priv->lock);
		return -EINVAL;
	}
	ret = cm_send_dreq_locked(priv, private_data, private_data_len, true);
	if (ret) {
		cm_enter_timewait(priv);
		cm_notify_timeout_locked(priv, IB_CM_DREQ_ERROR);
	}
	spin_unlock(&priv->lock);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_dreq);

/*
 * A DREP answering the DREQ whose TID the id holds; no state change.
 * @again: it answers a repeated DREQ (counted as a retry, as in-tree).
 */
static int cm_send_drep_msg(struct cm_id_priv *priv, const void *private_data,
			    u8 private_data_len, bool again)
{
	struct cm_msg *msg;
	int ret;

	lockdep_assert_held(&priv->lock);
	msg = kzalloc(sizeof(*msg), GFP_ATOMIC);
	if (!msg)
		return -ENOMEM;
	msg->attr_id = CM_DREP_ATTR_ID;
	msg->tid = priv->tid;
	msg->disc.local_comm_id = priv->id.local_id;
	msg->disc.remote_comm_id = priv->id.remote_id;
	if (private_data_len)
		memcpy(msg->disc.private_data, private_data, private_data_len);
	ret = again ? cm_send_again(priv, msg) : cm_send(priv, msg, 0, 0, false);
	kfree(msg);
	return ret;
}

int cm_send_drep_locked(struct cm_id_priv *priv, const void *private_data,
			u8 private_data_len)
{
	int ret = cm_send_drep_msg(priv, private_data, private_data_len, false);

	cm_enter_timewait(priv);
	/* In timewait, as the in-tree event shows it. */
	trace_icm_send_drep(&priv->id);
	return ret;
}

/**
 * ib_send_cm_drep - answer a DREQ; the id enters timewait in any case
 * @cm_id: an id in DREQ_RCVD
 * @private_data: up to IB_CM_DREP_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 */
int ib_send_cm_drep(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	int ret;

	if (private_data_len > IB_CM_DREP_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock(&priv->lock);
	if (cm_id->state != IB_CM_DREQ_RCVD) {
		trace_icm_send_drep_err(cm_id);
		ret = -EINVAL;
	} else {
		ret = cm_send_drep_locked(priv, private_data, private_data_len);
	}
	spin_unlock(&priv->lock);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_drep);

/*
 * A DREQ for a connection we do not have (long gone, or never ours): a DREP
 * built from the work completion and owned by no id, so that the peer's
 * disconnect completes at once instead of retrying into its timeout. The
 * in-tree CM answers so too.
 */
static void cm_drep_from_wc(struct cm_port *port, struct ib_mad_recv_wc *wc,
			    const struct cm_msg *rcvd)
{
	struct cm_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);

	if (!msg)
		return;
	msg->attr_id = CM_DREP_ATTR_ID;
	msg->tid = rcvd->tid;
	msg->disc.local_comm_id = rcvd->disc.remote_comm_id;
	msg->disc.remote_comm_id = rcvd->disc.local_comm_id;
	trace_icm_issue_drep(be32_to_cpu(rcvd->disc.local_comm_id),
			     be32_to_cpu(rcvd->disc.remote_comm_id));
	cm_send_reply_from_wc(port, wc, msg);
	kfree(msg);
}

void cm_recv_dreq(struct cm_port *port, struct ib_mad_recv_wc *wc,
		  struct cm_msg *msg)
{
	const struct cm_disc_info *dreq = &msg->disc;
	struct cm_event_elem *elem;
	struct cm_id_priv *priv;

	priv = cm_lookup_local(dreq->remote_comm_id);
	if (priv && READ_ONCE(priv->id.remote_id) != dreq->local_comm_id) {
		cm_put(priv);
		priv = NULL;
	}
	if (!priv) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		/* Counted as a duplicate: the DREQ of a connection gone. */
		cm_port_count(port, CM_GRP_RX_DUP, CM_DREQ_ATTR_ID, 1);
		cm_drep_from_wc(port, wc, msg);
		trace_icm_no_priv_err(be32_to_cpu(dreq->local_comm_id),
				      be32_to_cpu(dreq->remote_comm_id));
		return;
	}
	elem = cm_event_alloc(IB_CM_DREQ_RECEIVED, GFP_KERNEL);
	if (!elem) {
		cm_count(CM_CNT_RX_NOMEM);
		goto out;
	}
	spin_lock(&priv->lock);
	if (priv->id.remote_id != dreq->local_comm_id ||
	    priv->local_qpn != dreq->remote_qpn)
		goto bad;
	switch (priv->id.state) {
	case IB_CM_REP_SENT:		/* the RTU was lost */
	case IB_CM_MRA_REP_RCVD:
	case IB_CM_ESTABLISHED:
		cm_cancel_msg(priv);
		priv->tid = msg->tid;
		priv->id.state = IB_CM_DREQ_RCVD;
		break;
	case IB_CM_DREQ_SENT:		/* both sides disconnect */
		cm_cancel_msg(priv);
		priv->tid = msg->tid;
		priv->id.state = IB_CM_DREQ_RCVD;
		cm_send_drep_locked(priv, NULL, 0);
		break;
	case IB_CM_TIMEWAIT:		/* our DREP was lost, or DREQs crossed */
		cm_count(CM_CNT_RX_DUPLICATE);
		cm_port_count(port, CM_GRP_RX_DUP, CM_DREQ_ATTR_ID, 1);
		priv->tid = msg->tid;
		cm_send_drep_msg(priv, NULL, 0, true);
		spin_unlock(&priv->lock);
		kfree(elem);
		goto out;
	case IB_CM_DREQ_RCVD:		/* the user has not answered yet */
		cm_port_count(port, CM_GRP_RX_DUP, CM_DREQ_ATTR_ID, 1);
		goto bad;
	default:
		trace_icm_dreq_unknown_err(&priv->id);
		goto bad;
	}
	spin_unlock(&priv->lock);
	memcpy(elem->data, dreq->private_data, IB_CM_DREQ_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	cm_queue_event(priv, elem);
	goto out;
bad:
	spin_unlock(&priv->lock);
	cm_count(CM_CNT_RX_BAD_STATE);
	kfree(elem);
out:
	cm_put(priv);
}

void cm_recv_drep(struct cm_port *port, struct cm_msg *msg)
{
	struct cm_event_elem *elem;
	struct cm_id_priv *priv;

	priv = cm_lookup_local(msg->disc.remote_comm_id);
	if (!priv) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		return;
	}
	elem = cm_event_alloc(IB_CM_DREP_RECEIVED, GFP_KERNEL);
	if (!elem) {
		cm_count(CM_CNT_RX_NOMEM);
		goto out;
	}
	spin_lock(&priv->lock);
	if (priv->id.remote_id != msg->disc.local_comm_id ||
	    priv->id.state != IB_CM_DREQ_SENT) {
		spin_unlock(&priv->lock);
		cm_count(CM_CNT_RX_BAD_STATE);
		kfree(elem);
		goto out;
	}
	cm_enter_timewait(priv);
	spin_unlock(&priv->lock);
	memcpy(elem->data, msg->disc.private_data,
	       IB_CM_DREP_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	cm_queue_event(priv, elem);
out:
	cm_put(priv);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Establishing a connection: the REP (passive side), the RTU (active
 * side), a duplicate REP (resend our MRA or RTU), and establishment by
 * the first receive on the passive QP (ib_cm_notify(IB_EVENT_COMM_EST)).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <linux/module.h>
#include <linux/slab.h>

#include "cm_priv.h"
#include "trace.h"

/**
 * ib_send_cm_rep - accept a connection request
 * @cm_id: an id in REQ_RCVD or MRA_REQ_SENT
 * @param: the reply
 */
int ib_send_cm_rep(struct ib_cm_id *cm_id, struct ib_cm_rep_param *param)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	struct cm_rep_info *rep;
	enum ib_cm_state prev;
	struct cm_msg *msg;
	int ret;

	if (param->private_data_len > IB_CM_REP_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	spin_lock(&priv->lock);
	if (cm_id->state != IB_CM_REQ_RCVD &&
	    cm_id->state != IB_CM_MRA_REQ_SENT) {
		trace_icm_send_rep_err(cm_id->local_id, cm_id->state);
		ret = -EINVAL;
		goto out;
	}
	msg->attr_id = CM_REP_ATTR_ID;
	msg->attr_mod = cpu_to_be32(param->ece.attr_mod);
	msg->tid = priv->tid;
	rep = &msg->rep;
	rep->local_comm_id = cm_id->local_id;
	rep->remote_comm_id = cm_id->remote_id;
	rep->local_qpn = param->qp_num;
	rep->starting_psn = param->starting_psn;
	rep->vendor_id = param->ece.vendor_id & 0xffffff;
	rep->responder_resources = param->responder_resources;
	rep->initiator_depth = param->initiator_depth;
	rep->target_ack_delay = priv->cm_dev->ack_delay;
	rep->failover_accepted = param->failover_accepted;
	rep->flow_control = param->flow_control;
	rep->rnr_retry_count = param->rnr_retry_count;
	rep->srq = param->srq;
	rep->local_ca_guid = priv->cm_dev->ca_guid;
	if (param->private_data_len)
		memcpy(rep->private_data, param->private_data,
		       param->private_data_len);

	priv->local_qpn = param->qp_num;
	priv->rq_psn = param->starting_psn;
	priv->responder_resources = param->responder_resources;
	priv->initiator_depth = param->initiator_depth;
	trace_icm_send_rep(cm_id);
	prev = cm_id->state;		/* REQ_RCVD or MRA_REQ_SENT */
	cm_id->state = IB_CM_REP_SENT;
	ret = cm_send(priv, msg, cm_wait_ms(priv), priv->max_cm_retries, true);
	if (ret)
		cm_id->state = prev;
out:
	spin_unlock(&priv->lock);
	kfree(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rep);

/* A REP we have answered already: resend the answer. */
static bool cm_dup_rep(struct cm_id_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	switch (priv->id.state) {
	case IB_CM_MRA_REP_SENT:	/* our MRA, delayed or lost */
	case IB_CM_ESTABLISHED:		/* our RTU, lost */
		cm_count(CM_CNT_RX_DUPLICATE);
		trace_icm_send_dup_rep(&priv->id);
		cm_resend_last(priv);
		return true;
	default:
		return false;
	}
}

void cm_recv_rep(struct cm_port *port, struct cm_msg *msg)
{
	const struct cm_rep_info *rep = &msg->rep;
	struct ib_cm_rep_event_param *p;
	struct cm_id_priv *priv, *cur;
	struct cm_event_elem *elem;

	priv = cm_lookup_local(rep->remote_comm_id);
	if (!priv) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		trace_icm_remote_no_priv_err(be32_to_cpu(rep->remote_comm_id));
		return;
	}
	elem = cm_event_alloc(IB_CM_REP_RECEIVED, GFP_KERNEL);
	if (!elem) {
		cm_count(CM_CNT_RX_NOMEM);
		goto out;
	}
	spin_lock(&priv->lock);
	/* (A REQ still waiting for its slot was never sent: no answer yet.) */
	if ((priv->id.state != IB_CM_REQ_SENT &&
	     priv->id.state != IB_CM_MRA_REQ_RCVD) || priv->paced_req) {
		if (priv->id.remote_id == rep->local_comm_id) {
			/* The in-tree CM counts every REP it has seen. */
			cm_port_count(port, CM_GRP_RX_DUP, CM_REP_ATTR_ID, 1);
			if (!cm_dup_rep(priv))
				cm_count(CM_CNT_RX_BAD_STATE);
			trace_icm_remote_no_priv_err(be32_to_cpu(rep->remote_comm_id));
		} else {
			cm_count(CM_CNT_RX_BAD_STATE);
			trace_icm_rep_unknown_err(be32_to_cpu(rep->local_comm_id),
						  be32_to_cpu(rep->remote_comm_id),
						  priv->id.state);
		}
		spin_unlock(&priv->lock);
		kfree(elem);
		goto out;
	}
	cm_cancel_msg(priv);
	priv->id.remote_id = rep->local_comm_id;
	priv->remote_ca_guid = rep->local_ca_guid;
	priv->remote_qpn = rep->local_qpn;
	priv->sq_psn = rep->starting_psn;
	priv->initiator_depth = rep->responder_resources;
	priv->responder_resources = rep->initiator_depth;
	priv->rnr_retry_count = rep->rnr_retry_count;
	/* The round trip of each path plus the peer's ACK delay. */
	priv->local_ack_timeout = cm_ack_timeout(rep->target_ack_delay,
						 priv->local_ack_timeout - 1);
	if (priv->alt.valid)
		priv->alt.ack_timeout =
			cm_ack_timeout(rep->target_ack_delay,
				       priv->alt.ack_timeout - 1);
	priv->id.state = IB_CM_REP_RCVD;
	spin_unlock(&priv->lock);

	cur = cm_insert_remote_id(priv);
	if (cur) {
		trace_icm_insert_failed_err(be32_to_cpu(rep->remote_comm_id));
	} else if (priv->qp_type != IB_QPT_XRC_INI) {
		cur = cm_insert_remote_qpn(priv);
		if (cur)
			trace_icm_staleconn_err(be32_to_cpu(rep->local_comm_id),
						be32_to_cpu(rep->remote_comm_id));
	}
	if (cur) {
		/* The peer's QP (or comm id) is in another connection of ours. */
		cm_count(CM_CNT_RX_STALE);
		cm_put(cur);
		spin_lock(&priv->lock);
		if (priv->id.state == IB_CM_REP_RCVD) {
			cm_send_rej_locked(priv, IB_CM_REJ_STALE_CONN, NULL, 0,
					   NULL, 0);
			priv->id.state = IB_CM_IDLE;
		}
		spin_unlock(&priv->lock);
		cm_unlink_remote(priv);
		elem->ev.event = IB_CM_REJ_RECEIVED;
		elem->ev.param.rej_rcvd.reason = IB_CM_REJ_STALE_CONN;
		elem->ev.private_data = elem->data;
		cm_queue_event(priv, elem);
		goto out;
	}

	p = &elem->ev.param.rep_rcvd;
	p->remote_ca_guid = rep->local_ca_guid;
	p->remote_qkey = rep->local_qkey;
	p->remote_qpn = rep->local_qpn;
	p->starting_psn = rep->starting_psn;
	/* From the receiver's side, as for a REQ (req.c). */
	p->responder_resources = rep->initiator_depth;
	p->initiator_depth = rep->responder_resources;
	p->target_ack_delay = rep->target_ack_delay;
	p->failover_accepted = rep->failover_accepted;
	p->flow_control = rep->flow_control;
	p->rnr_retry_count = rep->rnr_retry_count;
	p->srq = rep->srq;
	p->ece.vendor_id = rep->vendor_id;
	p->ece.attr_mod = be32_to_cpu(msg->attr_mod);
	memcpy(elem->data, rep->private_data, IB_CM_REP_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	cm_queue_event(priv, elem);
out:
	cm_put(priv);
}

/**
 * ib_send_cm_rtu - complete the connection (active side)
 * @cm_id: an id in REP_RCVD or MRA_REP_SENT
 * @private_data: up to IB_CM_RTU_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 */
int ib_send_cm_rtu(struct ib_cm_id *cm_id, const void *private_data,
		   u8 private_data_len)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	struct cm_msg *msg;
	int ret;

	if (private_data_len > IB_CM_RTU_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	spin_lock(&priv->lock);
	if (cm_id->state != IB_CM_REP_RCVD &&
	    cm_id->state != IB_CM_MRA_REP_SENT) {
		trace_icm_send_cm_rtu_err(cm_id);
		ret = -EINVAL;
		goto out;
	}
	msg->attr_id = CM_RTU_ATTR_ID;
	msg->tid = priv->tid;
	msg->disc.local_comm_id = cm_id->local_id;
	msg->disc.remote_comm_id = cm_id->remote_id;
	if (private_data_len)
		memcpy(msg->disc.private_data, private_data, private_data_len);
	trace_icm_send_rtu(cm_id);
	cm_id->state = IB_CM_ESTABLISHED;
	ret = cm_send(priv, msg, 0, 0, true);
	if (ret)
		cm_id->state = IB_CM_REP_RCVD;
out:
	spin_unlock(&priv->lock);
	kfree(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rtu);

void cm_recv_rtu(struct cm_port *port, struct cm_msg *msg)
{
	struct cm_id_priv *priv;
	struct cm_event_elem *elem;

	priv = cm_lookup_local(msg->disc.remote_comm_id);
	if (!priv) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		return;
	}
	elem = cm_event_alloc(IB_CM_RTU_RECEIVED, GFP_KERNEL);
	if (!elem) {
		cm_count(CM_CNT_RX_NOMEM);
		goto out;
	}
	spin_lock(&priv->lock);
	if (priv->id.remote_id != msg->disc.local_comm_id ||
	    (priv->id.state != IB_CM_REP_SENT &&
	     priv->id.state != IB_CM_MRA_REP_RCVD)) {
		/* Ours, but too late (established by the first receive). */
		if (priv->id.remote_id == msg->disc.local_comm_id)
			cm_port_count(port, CM_GRP_RX_DUP, CM_RTU_ATTR_ID, 1);
		cm_count(CM_CNT_RX_BAD_STATE);
		spin_unlock(&priv->lock);
		kfree(elem);
		goto out;
	}
	cm_cancel_msg(priv);
	priv->id.state = IB_CM_ESTABLISHED;
	spin_unlock(&priv->lock);
	memcpy(elem->data, msg->disc.private_data,
	       IB_CM_RTU_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	cm_queue_event(priv, elem);
out:
	cm_put(priv);
}

/* From the id's work: ib_cm_notify(IB_EVENT_COMM_EST) came before the RTU. */
void cm_establish(struct cm_id_priv *priv)
{
	struct cm_event_elem *elem = cm_event_alloc(IB_CM_USER_ESTABLISHED,
						    GFP_KERNEL);

	spin_lock(&priv->lock);
	if (!elem || priv->destroying ||
	    (priv->id.state != IB_CM_REP_SENT &&
	     priv->id.state != IB_CM_MRA_REP_RCVD)) {
		spin_unlock(&priv->lock);
		kfree(elem);
		return;
	}
	cm_cancel_msg(priv);
	priv->id.state = IB_CM_ESTABLISHED;
	list_add_tail(&elem->entry, &priv->events);
	spin_unlock(&priv->lock);
}

/**
 * ib_cm_notify - a communication event the consumer saw on its QP
 * @cm_id: the id
 * @event: IB_EVENT_COMM_EST (a receive before the RTU) or
 *	IB_EVENT_PATH_MIG (the QP moved to its alternate path: the id's
 *	MADs and QP attributes follow; lap.c)
 *
 * Any context: from an interrupt or softirq the transition happens in the
 * id's work (the id's lock is never taken there); a migration asked for
 * from a task happens before the return, as in-tree.
 */
int ib_cm_notify(struct ib_cm_id *cm_id, enum ib_event_type event)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	enum ib_cm_state state = READ_ONCE(cm_id->state);

	switch (event) {
	case IB_EVENT_COMM_EST:
		if (state == IB_CM_ESTABLISHED)
			return -EISCONN;
		if (state != IB_CM_REP_SENT && state != IB_CM_MRA_REP_RCVD) {
			trace_icm_establish_err(cm_id);
			return -EINVAL;
		}
		set_bit(CM_FLAG_NOTIFY_EST, &priv->flags);
		cm_get(priv);
		if (!queue_work(cm.wq, &priv->work))
			refcount_dec(&priv->refcount);
		return 0;
	case IB_EVENT_PATH_MIG:
		if (in_task())
			return cm_migrate(priv);
		if (state != IB_CM_ESTABLISHED ||
		    (READ_ONCE(cm_id->lap_state) != IB_CM_LAP_UNINIT &&
		     READ_ONCE(cm_id->lap_state) != IB_CM_LAP_IDLE))
			return -EINVAL;
		set_bit(CM_FLAG_NOTIFY_MIG, &priv->flags);
		cm_get(priv);
		if (!queue_work(cm.wq, &priv->work))
			refcount_dec(&priv->refcount);
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL(ib_cm_notify);

// SPDX-License-Identifier: GPL-2.0
/*
 * Service ID resolution (UD): SIDR_REQ with retries on the active side,
 * and on the passive side a new id per request (duplicates are
 * recognised by request id and sender GID), the SIDR_REP, and a
 * SIDR_REP "unsupported" for a request no listener takes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"
#include "trace.h"

/**
 * ib_send_cm_sidr_req - resolve a service id to a UD QP
 * @cm_id: an idle id
 * @param: the path (RoCE: with its sgid attribute), service id, timeout
 */
int ib_send_cm_sidr_req(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_req_param *param)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	struct cm_msg *msg;
	int ret;

	if (!param->path ||
	    param->private_data_len > IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	if (READ_ONCE(cm_id->state) != IB_CM_IDLE || priv->has_av)
		return -EINVAL;
	msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = cm_set_av_from_path(priv, param->path, param->sgid_attr);
	if (ret)
		goto out;

	spin_lock(&priv->lock);
	if (cm_id->state != IB_CM_IDLE) {
		ret = -EINVAL;
		goto out_unlock;
	}
	cm_id->service_id = param->service_id;
	priv->tid = cm_new_tid(priv->port);
	priv->max_cm_retries = param->max_cm_retries;
	msg->attr_id = CM_SIDR_REQ_ATTR_ID;
	msg->tid = priv->tid;
	msg->sidr_req.request_id = cm_id->local_id;
	msg->sidr_req.pkey = be16_to_cpu(param->path->pkey);
	msg->sidr_req.service_id = param->service_id;
	if (param->private_data_len)
		memcpy(msg->sidr_req.private_data, param->private_data,
		       param->private_data_len);
	trace_icm_send_sidr_req(cm_id);
	cm_id->state = IB_CM_SIDR_REQ_SENT;
	ret = cm_send(priv, msg, param->timeout_ms ? : 1,
		      param->max_cm_retries, false);
	if (ret)
		cm_id->state = IB_CM_IDLE;
out_unlock:
	spin_unlock(&priv->lock);
out:
	kfree(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_req);

static void cm_sidr_reply_unsupported(struct cm_port *port,
				      struct ib_mad_recv_wc *wc,
				      const struct cm_msg *rcvd)
{
	struct cm_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);

	if (!msg)
		return;
	msg->attr_id = CM_SIDR_REP_ATTR_ID;
	msg->tid = rcvd->tid;
	msg->sidr_rep.request_id = rcvd->sidr_req.request_id;
	msg->sidr_rep.status = IB_SIDR_UNSUPPORTED;
	msg->sidr_rep.service_id = rcvd->sidr_req.service_id;
	/*
	 * In-tree answers from an id made for the request, and traces it so;
	 * ours makes none: an id of the moment, local_id 0.
	 */
	if (trace_icm_send_sidr_rep_enabled()) {
		struct ib_cm_id tmp = {
			.remote_id = rcvd->sidr_req.request_id,
			.state = IB_CM_SIDR_REQ_RCVD,
		};

		trace_icm_send_sidr_rep(&tmp);
	}
	cm_send_reply_from_wc(port, wc, msg);
	kfree(msg);
}

/* A key for the sender of a SIDR_REQ: its GID's interface id, or LID. */
static __be64 cm_sidr_sender_key(const struct rdma_ah_attr *ah)
{
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH)
		return ah->grh.dgid.global.interface_id ^
		       ah->grh.dgid.global.subnet_prefix;
	return cpu_to_be64(rdma_ah_get_dlid(ah));
}

void cm_recv_sidr_req(struct cm_port *port, struct ib_mad_recv_wc *wc,
		      struct cm_msg *msg)
{
	struct ib_device *dev = port->cm_dev->ib_dev;
	const struct cm_sidr_req_info *req = &msg->sidr_req;
	struct ib_cm_sidr_req_event_param *p;
	struct cm_id_priv *listen, *priv, *cur;
	struct cm_event_elem *elem;
	u16 bth_pkey = 0;

	listen = cm_find_listener(dev, req->service_id);
	if (!listen) {
		cm_count(CM_CNT_RX_NO_LISTENER);
		cm_sidr_reply_unsupported(port, wc, msg);
		return;
	}
	elem = cm_event_alloc(IB_CM_SIDR_REQ_RECEIVED, GFP_KERNEL);
	priv = cm_id_alloc(dev, listen->id.cm_handler, listen->id.context);
	if (!elem || IS_ERR(priv)) {
		cm_count(CM_CNT_RX_NOMEM);
		if (!IS_ERR(priv))
			cm_discard_new(priv);
		goto err;
	}
	if (cm_set_av_from_wc(priv, port, wc)) {
		cm_count(CM_CNT_RX_MALFORMED);
		goto err_id;
	}
	priv->id.service_id = req->service_id;
	priv->id.remote_id = req->request_id;
	priv->remote_ca_guid = cm_sidr_sender_key(&priv->ah_attr);
	priv->tid = msg->tid;
	cur = cm_insert_remote_id(priv);
	if (cur) {
		cm_count(CM_CNT_RX_DUPLICATE);
		cm_port_count(port, CM_GRP_RX_DUP, CM_SIDR_REQ_ATTR_ID, 1);
		cm_put(cur);
		goto err_id;
	}
	spin_lock(&priv->lock);
	priv->id.state = IB_CM_SIDR_REQ_RCVD;
	spin_unlock(&priv->lock);

	ib_get_cached_pkey(dev, port->port_num, wc->wc->pkey_index, &bth_pkey);
	p = &elem->ev.param.sidr_req_rcvd;
	p->service_id = req->service_id;
	p->sgid_attr = priv->ah_attr.grh.sgid_attr;
	p->bth_pkey = bth_pkey;
	p->port = port->port_num;
	p->pkey = req->pkey;
	memcpy(elem->data, req->private_data,
	       IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	elem->listen = listen;
	cm_queue_event(priv, elem);
	return;

err_id:
	cm_discard_new(priv);
err:
	kfree(elem);
	cm_put(listen);
}

int cm_send_sidr_rep_locked(struct cm_id_priv *priv,
			    struct ib_cm_sidr_rep_param *param)
{
	struct cm_msg *msg;
	int ret;

	lockdep_assert_held(&priv->lock);
	msg = kzalloc(sizeof(*msg), GFP_ATOMIC);
	if (!msg)
		return -ENOMEM;
	msg->attr_id = CM_SIDR_REP_ATTR_ID;
	msg->tid = priv->tid;
	msg->sidr_rep.request_id = priv->id.remote_id;
	msg->sidr_rep.status = param->status;
	msg->sidr_rep.qpn = param->qp_num;
	msg->sidr_rep.qkey = param->qkey;
	msg->sidr_rep.service_id = priv->id.service_id;
	msg->sidr_rep.vendor_id = param->ece.vendor_id & 0xffffff;
	msg->sidr_rep.info_length = param->info_length;
	if (param->info_length)
		memcpy(msg->sidr_rep.info, param->info, param->info_length);
	if (param->private_data_len)
		memcpy(msg->sidr_rep.private_data, param->private_data,
		       param->private_data_len);
	trace_icm_send_sidr_rep(&priv->id);
	ret = cm_send(priv, msg, 0, 0, false);
	priv->id.state = IB_CM_IDLE;
	kfree(msg);
	return ret;
}

/**
 * ib_send_cm_sidr_rep - answer a SIDR_REQ
 * @cm_id: an id in SIDR_REQ_RCVD
 * @param: the status, QP number and Q_Key, information, private data
 */
int ib_send_cm_sidr_rep(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_rep_param *param)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	int ret;

	if (param->info_length > IB_CM_SIDR_REP_INFO_LENGTH ||
	    param->private_data_len > IB_CM_SIDR_REP_PRIVATE_DATA_SIZE ||
	    (param->info_length && !param->info) ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	spin_lock(&priv->lock);
	if (cm_id->state == IB_CM_SIDR_REQ_RCVD)
		ret = cm_send_sidr_rep_locked(priv, param);
	else
		ret = -EINVAL;
	spin_unlock(&priv->lock);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_rep);

void cm_recv_sidr_rep(struct cm_port *port, struct cm_msg *msg)
{
	const struct cm_sidr_rep_info *rep = &msg->sidr_rep;
	struct ib_cm_sidr_rep_event_param *p;
	struct cm_event_elem *elem;
	struct cm_id_priv *priv;

	priv = cm_lookup_local(rep->request_id);
	if (!priv) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		return;
	}
	elem = cm_event_alloc(IB_CM_SIDR_REP_RECEIVED, GFP_KERNEL);
	if (!elem) {
		cm_count(CM_CNT_RX_NOMEM);
		goto out;
	}
	spin_lock(&priv->lock);
	if (priv->id.state != IB_CM_SIDR_REQ_SENT) {
		spin_unlock(&priv->lock);
		cm_count(CM_CNT_RX_BAD_STATE);
		kfree(elem);
		goto out;
	}
	cm_cancel_msg(priv);
	priv->id.state = IB_CM_IDLE;
	spin_unlock(&priv->lock);

	p = &elem->ev.param.sidr_rep_rcvd;
	p->status = rep->status;
	p->qkey = rep->qkey;
	p->qpn = rep->qpn;
	memcpy(elem->info, rep->info, IB_CM_SIDR_REP_INFO_LENGTH);
	p->info = elem->info;
	p->info_len = rep->info_length;
	p->sgid_attr = priv->ah_attr.grh.sgid_attr;
	memcpy(elem->data, rep->private_data,
	       IB_CM_SIDR_REP_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	cm_queue_event(priv, elem);
out:
	cm_put(priv);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The connection request: ib_send_cm_req() on the active side; on the
 * passive side, a received REQ is checked for duplicates (resend our MRA
 * or REP) and stale connections (REJ STALE_CONN), matched to a listener
 * (REJ INVALID_SERVICE_ID if none), given a new id whose address vector is
 * built from the REQ and the work completion (RoCE: GIDs, the MAC of the
 * sender, the sgid attribute the REQ arrived on), and delivered as
 * IB_CM_REQ_RECEIVED with the primary path (and, IB, the alternate one,
 * loaded: lap.c) as the passive side sees them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"
#include "trace.h"

static u8 cm_transport_of(enum ib_qp_type qp_type, u8 *ext)
{
	*ext = 0;
	switch (qp_type) {
	case IB_QPT_UC:
		return CM_TRANSPORT_UC;
	case IB_QPT_XRC_INI:
		*ext = CM_EXT_TRANSPORT_XRC;
		return CM_TRANSPORT_EXT;
	default:
		return CM_TRANSPORT_RC;
	}
}

static enum ib_qp_type cm_qp_type_of(const struct cm_req_info *req)
{
	switch (req->transport_type) {
	case CM_TRANSPORT_UC:
		return IB_QPT_UC;
	case CM_TRANSPORT_EXT:
		return IB_QPT_XRC_TGT;
	default:
		return IB_QPT_RC;
	}
}

/**
 * ib_send_cm_req - send a connection request
 * @cm_id: an idle id
 * @param: the request; the primary path (RoCE: with its sgid attribute)
 *
 * Return: 0, or -EINVAL (id not idle, bad parameters), -ENODEV, ...
 */
int ib_send_cm_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *param)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	struct sa_path_rec *path = param->primary_path;
	struct cm_req_info *req;
	struct cm_msg *msg;
	u8 ack_timeout;
	int ret;

	if (!path || param->private_data_len > IB_CM_REQ_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	if (param->qp_type != IB_QPT_RC && param->qp_type != IB_QPT_UC &&
	    param->qp_type != IB_QPT_XRC_INI)
		return -EINVAL;
	if (READ_ONCE(cm_id->state) != IB_CM_IDLE || priv->has_av)
		return -EINVAL;
	msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	/*
	 * The QP's ACK timeouts until the REP tells the peer's ACK delay:
	 * the round trip alone (rep.c adds the delay), as in-tree. The
	 * alternate path first: one it refuses leaves the id as it was.
	 */
	if (param->alternate_path) {
		ret = cm_alt_load(priv, param->alternate_path,
				  min_t(u8, param->alternate_path->packet_life_time + 1,
					31));
		if (ret)
			goto out;
	}
	ret = cm_set_av_from_path(priv, path, param->ppath_sgid_attr);
	if (ret)
		goto out;

	ack_timeout = cm_ack_timeout(priv->cm_dev->ack_delay,
				     path->packet_life_time);
	spin_lock(&priv->lock);
	if (cm_id->state != IB_CM_IDLE) {
		ret = -EINVAL;
		goto out_unlock;
	}
	cm_id->service_id = param->service_id;
	priv->tid = cm_new_tid(priv->port);
	priv->local_qpn = param->qp_num;
	priv->qp_type = param->qp_type;
	priv->rq_psn = param->starting_psn;
	priv->responder_resources = param->responder_resources;
	priv->initiator_depth = param->initiator_depth;
	priv->retry_count = param->retry_count;
	priv->rnr_retry_count = param->rnr_retry_count;
	priv->local_ack_timeout = min_t(u8, path->packet_life_time + 1, 31);
	priv->max_cm_retries = param->max_cm_retries;
	priv->remote_cm_response_timeout = param->remote_cm_response_timeout;
	priv->local_cm_response_timeout = param->local_cm_response_timeout;

	msg->attr_id = CM_REQ_ATTR_ID;
	msg->attr_mod = cpu_to_be32(param->ece.attr_mod);
	msg->tid = priv->tid;
	req = &msg->req;
	req->local_comm_id = cm_id->local_id;
	req->vendor_id = param->ece.vendor_id & 0xffffff;
	req->service_id = param->service_id;
	req->local_ca_guid = priv->cm_dev->ca_guid;
	req->local_qpn = param->qp_num;
	req->responder_resources = param->responder_resources;
	req->initiator_depth = param->initiator_depth;
	req->remote_cm_response_timeout = param->remote_cm_response_timeout;
	req->transport_type = cm_transport_of(param->qp_type,
					      &req->ext_transport_type);
	req->flow_control = param->flow_control;
	req->starting_psn = param->starting_psn;
	req->local_cm_response_timeout = param->local_cm_response_timeout;
	req->retry_count = param->retry_count;
	req->pkey = be16_to_cpu(path->pkey);
	req->path_mtu = path->mtu;
	req->rnr_retry_count = param->rnr_retry_count;
	req->max_cm_retries = param->max_cm_retries;
	req->srq = param->srq;
	cm_path_to_info(&req->primary, path, ack_timeout);
	if (param->alternate_path)
		cm_path_to_info(&req->alternate, param->alternate_path,
				cm_ack_timeout(priv->cm_dev->ack_delay,
					       param->alternate_path->packet_life_time));
	if (param->private_data_len)
		memcpy(req->private_data, param->private_data,
		       param->private_data_len);

	trace_icm_send_req(cm_id);
	cm_id->state = IB_CM_REQ_SENT;
	ret = cm_pace_req_locked(priv, msg,
				 cm_msg_timeout_ms(path->packet_life_time,
						   param->remote_cm_response_timeout),
				 param->max_cm_retries);
	if (ret)
		cm_id->state = IB_CM_IDLE;
out_unlock:
	spin_unlock(&priv->lock);
out:
	kfree(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_req);

/* A REQ we have seen: answer as our state says, else ignore it. */
static void cm_dup_req(struct cm_port *port, struct cm_id_priv *priv)
{
	cm_count(CM_CNT_RX_DUPLICATE);
	cm_port_count(port, CM_GRP_RX_DUP, CM_REQ_ATTR_ID, 1);
	spin_lock(&priv->lock);
	switch (priv->id.state) {
	case IB_CM_MRA_REQ_SENT:	/* our MRA, delayed or lost */
	case IB_CM_REP_SENT:		/* our REP, lost */
	case IB_CM_MRA_REP_RCVD:
		trace_icm_send_dup_req(&priv->id);
		cm_resend_last(priv);
		break;
	case IB_CM_TIMEWAIT:
		trace_icm_send_dup_req(&priv->id);
		cm_send_rej_locked(priv, IB_CM_REJ_STALE_CONN, NULL, 0,
				   NULL, 0);
		break;
	default:
		break;
	}
	spin_unlock(&priv->lock);
}

/*
 * The in-tree CM makes an id for every REQ before it looks for a listener
 * and traces icm_no_listener_err with it when the REQ ends there (no
 * listener, a duplicate, a stale connection). We make none: the event
 * carries an id of the moment, local_id 0, as that id would show itself.
 */
static void cm_trace_no_listener(const struct cm_req_info *req)
{
	struct ib_cm_id tmp = {
		.remote_id = req->local_comm_id,
		.state = IB_CM_REQ_RCVD,
	};

	if (trace_icm_no_listener_err_enabled())
		trace_icm_no_listener_err(&tmp);
}

/*
 * The primary path as the passive side sees it: its SGID is ours; on RoCE
 * the destination MAC and the GID type come from the work completion's AV.
 */
void cm_path_from_req(struct sa_path_rec *path, const struct cm_req_info *req,
		      const struct rdma_ah_attr *wc_ah, bool roce)
{
	const struct ib_gid_attr *sgid_attr = wc_ah->grh.sgid_attr;

	memset(path, 0, sizeof(*path));
	if (roce) {
		path->rec_type = sgid_attr &&
			sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ?
			SA_PATH_REC_TYPE_ROCE_V2 : SA_PATH_REC_TYPE_ROCE_V1;
		sa_path_set_dmac(path, (u8 *)wc_ah->roce.dmac);
		path->roce.route_resolved = true;
	} else {
		path->rec_type = SA_PATH_REC_TYPE_IB;
		sa_path_set_slid(path, be16_to_cpu(req->primary.remote_lid));
		sa_path_set_dlid(path, be16_to_cpu(req->primary.local_lid));
	}
	path->service_id = req->service_id;
	path->sgid = req->primary.remote_gid;
	path->dgid = req->primary.local_gid;
	path->flow_label = cpu_to_be32(req->primary.flow_label);
	path->hop_limit = req->primary.hop_limit;
	path->traffic_class = req->primary.traffic_class;
	path->reversible = 1;
	path->pkey = cpu_to_be16(req->pkey);
	path->sl = req->primary.sl;
	path->mtu_selector = IB_SA_EQ;
	path->mtu = req->path_mtu;
	path->rate_selector = IB_SA_EQ;
	path->rate = req->primary.packet_rate;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = req->primary.local_ack_timeout ?
				 req->primary.local_ack_timeout - 1 : 0;
	path->preference = 0;
}
EXPORT_SYMBOL_IF_KUNIT(cm_path_from_req);

static void cm_fill_req_event(struct cm_event_elem *elem,
			      struct cm_id_priv *priv, struct cm_port *port,
			      struct ib_mad_recv_wc *wc, const struct cm_msg *msg,
			      const struct sa_path_rec *path, bool alt)
{
	struct ib_cm_req_event_param *p = &elem->ev.param.req_rcvd;
	const struct cm_req_info *req = &msg->req;
	u16 pkey = 0;

	ib_get_cached_pkey(priv->id.device, port->port_num,
			   wc->wc->pkey_index, &pkey);
	elem->path[0] = *path;
	p->bth_pkey = pkey;
	p->port = port->port_num;
	p->primary_path = &elem->path[0];
	p->alternate_path = alt ? &elem->path[1] : NULL;
	p->ppath_sgid_attr = priv->ah_attr.grh.sgid_attr;
	p->remote_ca_guid = req->local_ca_guid;
	p->remote_qkey = req->local_qkey;
	p->remote_qpn = req->local_qpn;
	p->qp_type = priv->qp_type;
	p->starting_psn = req->starting_psn;
	/*
	 * From the receiver's side, as the in-tree CM reports them: what
	 * the peer may read from us is our responder resources.
	 */
	p->responder_resources = req->initiator_depth;
	p->initiator_depth = req->responder_resources;
	p->local_cm_response_timeout = req->local_cm_response_timeout;
	p->flow_control = req->flow_control;
	p->remote_cm_response_timeout = req->remote_cm_response_timeout;
	p->retry_count = req->retry_count;
	p->rnr_retry_count = req->rnr_retry_count;
	p->srq = req->srq;
	p->ece.vendor_id = req->vendor_id;
	p->ece.attr_mod = be32_to_cpu(msg->attr_mod);
	memcpy(elem->data, req->private_data, IB_CM_REQ_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
}

/*
 * A REQ from a remote QP that is still in a connection of ours (@cur): the
 * REQ is rejected as stale by a REJ built from the work completion, owned
 * by no id, so that nothing here waits for a send that only this context
 * could complete; the old connection is disconnected, as the IBA's stale
 * connection rule asks and the in-tree CM does.
 */
static void cm_reject_stale(struct cm_port *port, struct ib_mad_recv_wc *wc,
			    const struct cm_msg *msg, struct cm_id_priv *cur)
{
	cm_count(CM_CNT_RX_STALE);
	cm_reject_from_wc(port, wc, msg, IB_CM_REJ_STALE_CONN);
	ib_send_cm_dreq(&cur->id, NULL, 0);
	cm_put(cur);
}

void cm_recv_req(struct cm_port *port, struct ib_mad_recv_wc *wc,
		 struct cm_msg *msg)
{
	struct ib_device *dev = port->cm_dev->ib_dev;
	const struct cm_req_info *req = &msg->req;
	struct cm_id_priv *listen, *priv, *cur;
	struct cm_event_elem *elem;
	struct rdma_ah_attr wc_ah;
	struct sa_path_rec path;
	bool alt = false;
	int ret;

	cur = cm_lookup_remote(req->local_comm_id, req->local_ca_guid);
	if (cur) {
		cm_dup_req(port, cur);
		cm_put(cur);
		cm_trace_no_listener(req);
		return;
	}
	listen = cm_find_listener(dev, req->service_id);
	if (!listen) {
		cm_count(CM_CNT_RX_NO_LISTENER);
		cm_reject_from_wc(port, wc, msg, IB_CM_REJ_INVALID_SERVICE_ID);
		cm_trace_no_listener(req);
		return;
	}
	elem = cm_event_alloc(IB_CM_REQ_RECEIVED, GFP_KERNEL);
	priv = cm_id_alloc(dev, listen->id.cm_handler, listen->id.context);
	if (!elem || IS_ERR(priv)) {
		cm_count(CM_CNT_RX_NOMEM);
		goto err_alloc;
	}
	ret = ib_init_ah_attr_from_wc(dev, port->port_num, wc->wc,
				      wc->recv_buf.grh, &wc_ah);
	if (ret) {
		cm_count(CM_CNT_RX_MALFORMED);
		goto err_id;
	}
	cm_path_from_req(&path, req, &wc_ah,
			 rdma_protocol_roce(dev, port->port_num));
	ret = cm_set_av_from_path(priv, &path,
				  rdma_ah_get_ah_flags(&wc_ah) & IB_AH_GRH ?
				  wc_ah.grh.sgid_attr : NULL);
	rdma_destroy_ah_attr(&wc_ah);
	if (ret) {
		cm_count(CM_CNT_RX_MALFORMED);
		goto err_id;
	}
	/*
	 * An alternate path (IB: its LID is not 0), ours to load as in-tree;
	 * one we cannot use is rejected, the ARI our primary SGID.
	 */
	if (!rdma_protocol_roce(dev, port->port_num) &&
	    req->alternate.local_lid) {
		cm_path_from_alt_info(&elem->path[1], &req->alternate,
				      req->pkey, req->path_mtu);
		elem->path[1].service_id = req->service_id;
		if (cm_alt_load(priv, &elem->path[1],
				elem->path[1].packet_life_time + 1)) {
			cm_reject_from_wc_ari(port, wc, msg,
					      IB_CM_REJ_INVALID_ALT_GID,
					      &path.sgid, sizeof(path.sgid));
			goto err_id;
		}
		alt = true;
	}

	priv->id.service_id = req->service_id;
	priv->id.remote_id = req->local_comm_id;
	priv->remote_ca_guid = req->local_ca_guid;
	priv->remote_qpn = req->local_qpn;
	priv->tid = msg->tid;
	priv->qp_type = cm_qp_type_of(req);
	priv->sq_psn = req->starting_psn;
	priv->responder_resources = req->initiator_depth;
	priv->initiator_depth = req->responder_resources;
	priv->retry_count = req->retry_count;
	priv->rnr_retry_count = req->rnr_retry_count;
	/* The path's packet life time (its ACK timeout less one) plus one. */
	priv->local_ack_timeout = max_t(u8, req->primary.local_ack_timeout, 1);
	priv->max_cm_retries = req->max_cm_retries;
	priv->remote_cm_response_timeout = req->local_cm_response_timeout;
	priv->local_cm_response_timeout = req->remote_cm_response_timeout;
	priv->passive = true;

	cur = cm_insert_remote_id(priv);
	if (cur) {		/* the same REQ, raced in */
		cm_dup_req(port, cur);
		cm_put(cur);
		cm_trace_no_listener(req);
		goto err_id;
	}
	spin_lock(&priv->lock);
	priv->id.state = IB_CM_REQ_RCVD;
	spin_unlock(&priv->lock);
	if (priv->qp_type != IB_QPT_XRC_TGT) {
		cur = cm_insert_remote_qpn(priv);
		if (cur) {
			cm_reject_stale(port, wc, msg, cur);
			cm_trace_no_listener(req);
			goto err_id;
		}
	}

	cm_fill_req_event(elem, priv, port, wc, msg, &path, alt);
	elem->listen = listen;	/* the event holds the listener */
	cm_queue_event(priv, elem);
	return;

err_id:
	cm_discard_new(priv);
	priv = NULL;
err_alloc:
	if (!IS_ERR_OR_NULL(priv))
		cm_discard_new(priv);
	kfree(elem);
	cm_put(listen);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Dispatch to the iWARP connection manager (iw_cm) for ports with
 * rdma_cap_iw_cm(), and translation of its events.
 *
 * iw_cm calls the handlers below from process context, one event at a time
 * per iw_cm_id, and not after iw_destroy_cm_id() has returned. A non-zero
 * return tells iw_cm to destroy its iw_cm_id.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/slab.h>
#include <openrdma/iw_host.h>

#include "cma_priv.h"

VISIBLE_IF_KUNIT int cma_iw_handler(struct iw_cm_id *iw_id,
				    struct iw_cm_event *iw_ev)
{
	struct rdma_id_private *id_priv = iw_id->context;
	struct rdma_cm_event ev = {};
	int ret = 0;

	mutex_lock(&id_priv->handler_mutex);
	if (cma_state(id_priv) != RDMA_CM_CONNECT &&
	    cma_state(id_priv) != RDMA_CM_DISCONNECT)
		goto out;

	switch (iw_ev->event) {
	case IW_CM_EVENT_CLOSE:
		/*
		 * As in-tree, the id stays in CONNECT (what `rdma res show
		 * cm_id` reports) until it is destroyed: iWARP has no
		 * disconnect handshake for the CM to track.
		 */
		ev.event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	case IW_CM_EVENT_CONNECT_REPLY:
		memcpy(cma_src_addr(id_priv), &iw_ev->local_addr,
		       sizeof(iw_ev->local_addr));
		memcpy(cma_dst_addr(id_priv), &iw_ev->remote_addr,
		       sizeof(iw_ev->remote_addr));
		switch (iw_ev->status) {
		case 0:
			ev.event = RDMA_CM_EVENT_ESTABLISHED;
			ev.param.conn.initiator_depth = iw_ev->ird;
			ev.param.conn.responder_resources = iw_ev->ord;
			break;
		case -ECONNRESET:
		case -ECONNREFUSED:
			ev.event = RDMA_CM_EVENT_REJECTED;
			break;
		case -ETIMEDOUT:
			ev.event = RDMA_CM_EVENT_UNREACHABLE;
			break;
		default:
			ev.event = RDMA_CM_EVENT_CONNECT_ERROR;
			break;
		}
		break;
	case IW_CM_EVENT_ESTABLISHED:
		/* Host-stack CM: the connection died before the RTR. */
		if (iw_ev->status) {
			ev.event = RDMA_CM_EVENT_CONNECT_ERROR;
			break;
		}
		ev.event = RDMA_CM_EVENT_ESTABLISHED;
		ev.param.conn.initiator_depth = iw_ev->ird;
		ev.param.conn.responder_resources = iw_ev->ord;
		break;
	default:
		/* DISCONNECT: the CLOSE that follows is what consumers see. */
		goto out;
	}
	ev.status = iw_ev->status;
	ev.param.conn.private_data = iw_ev->private_data;
	ev.param.conn.private_data_len = iw_ev->private_data_len;

	ret = cma_deliver(id_priv, &ev);
	if (ret) {
		/* iw_cm destroys its id when we return non-zero. */
		id_priv->cm_id.iw = NULL;
		cma_destroy_handler_locked(id_priv);
		return ret;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cma_iw_handler);

/*
 * A connection request reached the listener @listen_id (the id itself or
 * the internal per-device listener of a wildcard one): make the new id and
 * hand it to the consumer.
 */
static int cma_iw_conn_request(struct iw_cm_id *iw_id,
			       struct iw_cm_event *iw_ev)
{
	struct rdma_id_private *listen_id = iw_id->context;
	struct rdma_id_private *owner = listen_id->parent ?: listen_id;
	struct rdma_id_private *conn_id;
	struct rdma_cm_event ev = {};
	int ret;

	if (iw_ev->event != IW_CM_EVENT_CONNECT_REQUEST)
		return 0;

	/*
	 * A per-device child pins its parent (@owner), whose destroy
	 * destroys the child, and so waits for this call to return.
	 */
	mutex_lock(&listen_id->handler_mutex);
	if (cma_state(listen_id) != RDMA_CM_LISTEN ||
	    cma_state(owner) != RDMA_CM_LISTEN) {
		ret = -ECONNABORTED;
		goto out_unlock;
	}

	conn_id = cma_id_alloc(cma_net(listen_id), owner->id.event_handler,
			       owner->id.context, owner->id.ps,
			       owner->id.qp_type, owner);
	if (!conn_id) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	mutex_lock_nested(&conn_id->handler_mutex, SINGLE_DEPTH_NESTING);
	conn_id->state = RDMA_CM_CONNECT;
	memcpy(cma_src_addr(conn_id), &iw_ev->local_addr,
	       sizeof(iw_ev->local_addr));
	memcpy(cma_dst_addr(conn_id), &iw_ev->remote_addr,
	       sizeof(iw_ev->remote_addr));

	ret = cma_addr_translate(cma_src_addr(conn_id),
				 &conn_id->id.route.addr.dev_addr);
	if (ret)
		goto err_conn;

	/*
	 * The listener, pinned by its handler_mutex, keeps its device. A
	 * wildcard listener's per-device child has no port (listen.c).
	 */
	ret = listen_id->cma_dev ?
	      cma_attach_dev_live(conn_id, listen_id->cma_dev,
				  listen_id->id.port_num ?:
				  cma_first_cm_port(listen_id->id.device)) :
	      -ENODEV;
	if (ret)
		goto err_conn;

	iw_id->context = conn_id;
	iw_id->cm_handler = cma_iw_handler;
	conn_id->cm_id.iw = iw_id;
	cma_track_iw_start(conn_id);

	ev.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	ev.param.conn.private_data = iw_ev->private_data;
	ev.param.conn.private_data_len = iw_ev->private_data_len;
	ev.param.conn.initiator_depth = iw_ev->ird;
	ev.param.conn.responder_resources = iw_ev->ord;

	ret = cma_deliver(conn_id, &ev);
	if (ret) {
		/* iw_cm destroys @iw_id and rejects when we return non-zero. */
		conn_id->cm_id.iw = NULL;
		mutex_unlock(&listen_id->handler_mutex);
		cma_destroy_handler_locked(conn_id);
		return ret;
	}
	mutex_unlock(&conn_id->handler_mutex);
	mutex_unlock(&listen_id->handler_mutex);
	return 0;

err_conn:
	mutex_unlock(&conn_id->handler_mutex);
	mutex_unlock(&listen_id->handler_mutex);
	rdma_destroy_id(&conn_id->id);
	return ret;

out_unlock:
	mutex_unlock(&listen_id->handler_mutex);
	return ret;
}

static struct iw_cm_id *cma_iw_create(struct rdma_id_private *id_priv,
				      iw_cm_handler handler)
{
	struct iw_cm_id *iw_id;

	iw_id = iw_create_cm_id(id_priv->id.device, handler, id_priv);
	if (IS_ERR(iw_id))
		return iw_id;
	mutex_lock(&id_priv->qp_mutex);
	iw_id->tos = id_priv->tos;
	iw_id->tos_set = id_priv->tos_set;
	mutex_unlock(&id_priv->qp_mutex);
	iw_id->afonly = id_priv->afonly;
	/* The host-stack CM makes its sockets in the id's namespace. */
	orcm_iw_cm_set_net(iw_id, cma_net(id_priv));
	memcpy(&iw_id->local_addr, cma_src_addr(id_priv),
	       sizeof(iw_id->local_addr));
	return iw_id;
}

int cma_iw_listen(struct rdma_id_private *id_priv, int backlog)
{
	struct iw_cm_id *iw_id;
	int ret;

	iw_id = cma_iw_create(id_priv, cma_iw_conn_request);
	if (IS_ERR(iw_id))
		return PTR_ERR(iw_id);
	id_priv->cm_id.iw = iw_id;

	ret = iw_cm_listen(iw_id, backlog);
	if (ret) {
		id_priv->cm_id.iw = NULL;
		iw_destroy_cm_id(iw_id);
	}
	return ret;
}

/*
 * Move a QP that the CM created (rdma_create_qp()) to RTR before the
 * driver takes it over; user QPs are moved by their owner.
 */
static int cma_qp_to_rtr(struct rdma_id_private *id_priv)
{
	struct ib_qp_attr attr;
	int mask, ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (!id_priv->id.qp)
		goto out;
	attr.qp_state = IB_QPS_RTR;
	ret = cma_init_qp_attr_locked(id_priv, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(id_priv->id.qp, &attr, mask);
out:
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

static void cma_iw_param(struct rdma_id_private *id_priv,
			 const struct rdma_conn_param *conn_param,
			 struct iw_cm_conn_param *iw_param)
{
	iw_param->ord = conn_param->initiator_depth;
	iw_param->ird = conn_param->responder_resources;
	iw_param->private_data = conn_param->private_data;
	iw_param->private_data_len = conn_param->private_data_len;
	iw_param->qpn = id_priv->id.qp ? id_priv->qp_num : conn_param->qp_num;
}

int cma_iw_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param)
{
	struct iw_cm_conn_param iw_param;
	struct iw_cm_id *iw_id;
	int ret;

	iw_id = cma_iw_create(id_priv, cma_iw_handler);
	if (IS_ERR(iw_id))
		return PTR_ERR(iw_id);
	memcpy(&iw_id->remote_addr, cma_dst_addr(id_priv),
	       sizeof(iw_id->remote_addr));
	id_priv->cm_id.iw = iw_id;
	cma_track_iw_start(id_priv);

	ret = cma_qp_to_rtr(id_priv);
	if (ret)
		goto err;

	cma_iw_param(id_priv, conn_param, &iw_param);
	ret = iw_cm_connect(iw_id, &iw_param);
	if (ret)
		goto err;
	return 0;
err:
	id_priv->cm_id.iw = NULL;
	iw_destroy_cm_id(iw_id);
	return ret;
}

int cma_iw_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param)
{
	struct iw_cm_conn_param iw_param;
	int ret;

	if (!conn_param)
		return -EINVAL;
	ret = cma_qp_to_rtr(id_priv);
	if (ret)
		return ret;
	cma_iw_param(id_priv, conn_param, &iw_param);
	return iw_cm_accept(id_priv->cm_id.iw, &iw_param);
}

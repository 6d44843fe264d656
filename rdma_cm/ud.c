// SPDX-License-Identifier: GPL-2.0
/*
 * UD ids (RDMA_PS_UDP, RDMA_PS_IPOIB, UD ids of RDMA_PS_IB) on IB/RoCE
 * ports: rdma_connect() resolves the peer's QP number and Q_Key with a
 * SIDR_REQ through ib_cm; the peer's rdma_accept() or rdma_reject()
 * answers with a SIDR_REP. The active side then gets ESTABLISHED with the
 * address handle attributes, QP number and Q_Key it sends with.
 *
 * The same rules as ib.c: handlers run one at a time per cm_id, under the
 * id's handler_mutex; a non-zero return makes ib_cm destroy the cm_id.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"
#include "ib.h"
#include "mcast.h"
#include "path_cache.h"
#include "trace.h"

/* Per try: 4.096 s, as long as a connected request may wait. */
#define CMA_UD_SIDR_TIMEOUT_MS	4096
#define CMA_UD_MAX_CM_RETRIES	15

/*
 * Settle the id's Q_Key: @qkey if not 0 (it must agree with one already
 * set), else the port space's default. Written once, under qp_mutex.
 */
int cma_ud_set_qkey(struct rdma_id_private *id_priv, u32 qkey)
{
	lockdep_assert_held(&id_priv->qp_mutex);
	if (id_priv->qkey)
		return qkey && qkey != id_priv->qkey ? -EINVAL : 0;
	if (qkey) {
		id_priv->qkey = qkey;
		return 0;
	}
	switch (id_priv->id.ps) {
	case RDMA_PS_UDP:
	case RDMA_PS_IB:
		id_priv->qkey = RDMA_UDP_QKEY;
		return 0;
	default:
		/* IPoIB: the broadcast group's Q_Key, as in-tree. */
		return cma_ib_bcast_qkey(id_priv, &id_priv->qkey);
	}
}

/* Events of a UD id's cm_id (its SIDR_REQ, or the request it answers). */
int cma_ud_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ib_ev)
{
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct ib_cm_sidr_rep_event_param *rep;
	struct rdma_cm_event ev = {};
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	if (cma_state(id_priv) != RDMA_CM_CONNECT)
		goto out;

	switch (ib_ev->event) {
	case IB_CM_SIDR_REQ_ERROR:
		/* No answer: a cached path may be stale (path_cache.c). */
		cma_pc_conn_failed(id_priv);
		ev.event = RDMA_CM_EVENT_UNREACHABLE;
		ev.status = -ETIMEDOUT;
		break;
	case IB_CM_SIDR_REP_RECEIVED:
		rep = &ib_ev->param.sidr_rep_rcvd;
		ev.param.ud.private_data = ib_ev->private_data;
		ev.param.ud.private_data_len = IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
		if (rep->status != IB_SIDR_SUCCESS) {
			/* Perhaps from whoever has a stale path's LID now. */
			cma_pc_conn_failed(id_priv);
			/* As in-tree: the SIDR status, positive. */
			ev.event = RDMA_CM_EVENT_UNREACHABLE;
			ev.status = rep->status;
			break;
		}
		mutex_lock(&id_priv->qp_mutex);
		ret = cma_ud_set_qkey(id_priv, rep->qkey);
		mutex_unlock(&id_priv->qp_mutex);
		if (!ret && !id_priv->id.route.path_rec)
			ret = -EINVAL;
		if (!ret)
			ret = ib_init_ah_attr_from_path(id_priv->id.device,
							id_priv->id.port_num,
							id_priv->id.route.path_rec,
							&ev.param.ud.ah_attr,
							rep->sgid_attr ?:
							dev_addr->sgid_attr);
		if (ret) {
			ev.event = RDMA_CM_EVENT_UNREACHABLE;
			ev.status = ret;
			break;
		}
		ev.event = RDMA_CM_EVENT_ESTABLISHED;
		ev.param.ud.qp_num = rep->qpn;
		ev.param.ud.qkey = rep->qkey;
		break;
	default:
		goto out;
	}

	ret = cma_deliver(id_priv, &ev);
	rdma_destroy_ah_attr(&ev.param.ud.ah_attr);
	if (ret) {
		/* ib_cm destroys @cm_id when we return non-zero. */
		id_priv->cm_id.ib = NULL;
		cma_destroy_handler_locked(id_priv);
		return ret;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

int cma_ud_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param)
{
	struct rdma_route *route = &id_priv->id.route;
	struct ib_cm_sidr_req_param req = {};
	struct ib_cm_id *cm_id;
	u8 *pd;
	u8 len;
	int ret;

	if (!route->path_rec)
		return -EINVAL;
	pd = cma_ib_req_pdata(id_priv, conn_param, &len);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	cm_id = ib_create_cm_id(id_priv->id.device, cma_ud_handler, id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out_free;
	}
	id_priv->cm_id.ib = cm_id;
	id_priv->cm_is_ib = true;

	req.path = route->path_rec;
	req.sgid_attr = route->addr.dev_addr.sgid_attr;
	req.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	req.timeout_ms = CMA_UD_SIDR_TIMEOUT_MS;
	req.private_data = pd;
	req.private_data_len = len;
	req.max_cm_retries = CMA_UD_MAX_CM_RETRIES;
	trace_cm_send_sidr_req(id_priv);
	ret = ib_send_cm_sidr_req(cm_id, &req);
	if (ret) {
		/* Nothing was sent: no event can be under way. */
		id_priv->cm_id.ib = NULL;
		ib_destroy_cm_id(cm_id);
	}
out_free:
	kfree(pd);
	return ret;
}

/* Answer a SIDR_REQ: accept (our QP number and Q_Key) or refuse. */
int cma_ud_reply(struct rdma_id_private *id_priv,
		 enum ib_cm_sidr_status status, u32 qkey,
		 const void *pd, u8 pd_len)
{
	struct ib_cm_sidr_rep_param rep = {};
	int ret;

	if (status == IB_SIDR_SUCCESS) {
		mutex_lock(&id_priv->qp_mutex);
		ret = cma_ud_set_qkey(id_priv, qkey);
		mutex_unlock(&id_priv->qp_mutex);
		if (ret)
			return ret;
		rep.qp_num = id_priv->qp_num;
		rep.qkey = id_priv->qkey;
		rep.ece.vendor_id = id_priv->ece.vendor_id;
		rep.ece.attr_mod = id_priv->ece.attr_mod;
	}
	rep.status = status;
	rep.private_data = pd;
	rep.private_data_len = pd_len;
	trace_cm_send_sidr_rep(id_priv);
	ret = ib_send_cm_sidr_rep(id_priv->cm_id.ib, &rep);
	if (!ret)
		id_priv->ib_replied = true;
	return ret;
}

/* A UD QP that rdma_create_qp() made goes straight to RTS. */
int cma_ud_qp_to_rts(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask, ret;

	mutex_lock(&id_priv->qp_mutex);
	ret = cma_init_qp_attr_locked(id_priv, &attr, &mask);
	mutex_unlock(&id_priv->qp_mutex);
	if (ret)
		return ret;
	ret = ib_modify_qp(qp, &attr, mask);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

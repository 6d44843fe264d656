// SPDX-License-Identifier: GPL-2.0
/*
 * ib_cm_init_qp_attr(): the attributes and masks that move a connected
 * QP to INIT, RTR and RTS, from what the REQ/REP exchange agreed (address
 * vector incl. the RoCE destination MAC and sgid attribute, MTU, PSNs,
 * RDMA read depths, timeouts and retry counts), and the alternate path
 * (lap.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <linux/module.h>

#include "cm_priv.h"
#include "trace.h"

static bool cm_has_connection(enum ib_cm_state state)
{
	switch (state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
	case IB_CM_ESTABLISHED:
		return true;
	default:
		return false;
	}
}

static void cm_init_attr(struct cm_id_priv *priv, struct ib_qp_attr *attr,
			 int *mask)
{
	*mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX |
		IB_QP_PORT;
	attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	if (priv->responder_resources && priv->qp_type != IB_QPT_UC)
		attr->qp_access_flags |= IB_ACCESS_REMOTE_READ |
					 IB_ACCESS_REMOTE_ATOMIC;
	attr->pkey_index = priv->pkey_index;
	attr->port_num = priv->port->port_num;
}

static void cm_rtr_attr(struct cm_id_priv *priv, struct ib_qp_attr *attr,
			int *mask)
{
	*mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
		IB_QP_RQ_PSN;
	/* A borrowed copy: the sgid attribute stays the id's. */
	attr->ah_attr = priv->ah_attr;
	attr->path_mtu = priv->path_mtu;
	attr->dest_qp_num = priv->remote_qpn;
	attr->rq_psn = priv->rq_psn;
	if (priv->qp_type == IB_QPT_RC || priv->qp_type == IB_QPT_XRC_TGT) {
		*mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
		attr->max_dest_rd_atomic = priv->responder_resources;
		attr->min_rnr_timer = 0;
	}
}

static void cm_rts_attr(struct cm_id_priv *priv, struct ib_qp_attr *attr,
			int *mask)
{
	*mask = IB_QP_STATE | IB_QP_SQ_PSN;
	attr->sq_psn = priv->sq_psn;
	switch (priv->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_XRC_INI:
		*mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			 IB_QP_MAX_QP_RD_ATOMIC;
		attr->timeout = priv->local_ack_timeout;
		attr->retry_cnt = priv->retry_count;
		attr->rnr_retry = priv->rnr_retry_count;
		attr->max_rd_atomic = priv->initiator_depth;
		break;
	case IB_QPT_XRC_TGT:
		*mask |= IB_QP_TIMEOUT;
		attr->timeout = priv->local_ack_timeout;
		break;
	default:
		break;
	}
}

/**
 * ib_cm_init_qp_attr - QP attributes for a transition of the id's QP
 * @cm_id: a connection's id
 * @qp_attr: qp_state in: IB_QPS_INIT, IB_QPS_RTR or IB_QPS_RTS
 * @qp_attr_mask: out: the attributes set
 *
 * Return: 0, or -EINVAL for another state or an id without a connection.
 */
int ib_cm_init_qp_attr(struct ib_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	int ret = 0;

	spin_lock(&priv->lock);
	if (!cm_has_connection(cm_id->state) || !priv->has_av) {
		ret = -EINVAL;
		goto out;
	}
	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
		cm_init_attr(priv, qp_attr, qp_attr_mask);
		break;
	case IB_QPS_RTR:
		if (cm_id->state == IB_CM_REQ_SENT ||
		    cm_id->state == IB_CM_MRA_REQ_RCVD)
			ret = -EINVAL;	/* no REP yet: no remote QPN */
		else
			cm_rtr_attr(priv, qp_attr, qp_attr_mask);
		if (!ret)
			cm_alt_qp_attr(priv, qp_attr, qp_attr_mask,
				       IB_QPS_RTR);
		break;
	case IB_QPS_RTS:
		if (cm_id->state == IB_CM_REQ_SENT ||
		    cm_id->state == IB_CM_MRA_REQ_RCVD)
			ret = -EINVAL;
		else
			cm_rts_attr(priv, qp_attr, qp_attr_mask);
		if (!ret)
			cm_alt_qp_attr(priv, qp_attr, qp_attr_mask,
				       IB_QPS_RTS);
		break;
	default:
		ret = -EINVAL;
		break;
	}
out:
	if (ret) {
		/* The id's state allows no such transition. */
		if (qp_attr->qp_state == IB_QPS_INIT)
			trace_icm_qp_init_err(cm_id);
		else if (qp_attr->qp_state == IB_QPS_RTR)
			trace_icm_qp_rtr_err(cm_id);
		else if (qp_attr->qp_state == IB_QPS_RTS)
			trace_icm_qp_rts_err(cm_id);
	}
	spin_unlock(&priv->lock);
	return ret;
}
EXPORT_SYMBOL(ib_cm_init_qp_attr);

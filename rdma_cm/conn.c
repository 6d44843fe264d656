// SPDX-License-Identifier: GPL-2.0
/*
 * Connection calls: connect, accept, reject, disconnect, notify. Each picks
 * the transport by the capability of the id's port.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>

#include "cma_priv.h"

static bool cma_is_iw(struct rdma_id_private *id_priv)
{
	return id_priv->id.device &&
	       rdma_cap_iw_cm(id_priv->id.device, id_priv->id.port_num);
}

/*
 * Largest private data a consumer may pass. IB CM messages carry fixed-size
 * private data, and a connect request spends CMA_IB_HDR_LEN of it on the
 * rdma_cm header; MPA carries up to 512 bytes, more than the u8 length of
 * struct rdma_conn_param can express.
 */
#define CMA_IB_HDR_LEN		36
#define CMA_IB_REQ_PD_MAX	92
#define CMA_IB_REP_PD_MAX	196
#define CMA_IB_REJ_PD_MAX	148
#define CMA_IW_PD_MAX		512

VISIBLE_IF_KUNIT int cma_private_data_max(bool iwarp, enum cma_pd_op op)
{
	if (iwarp)
		return CMA_IW_PD_MAX;
	switch (op) {
	case CMA_PD_CONNECT:
		return CMA_IB_REQ_PD_MAX - CMA_IB_HDR_LEN;
	case CMA_PD_ACCEPT:
		return CMA_IB_REP_PD_MAX;
	case CMA_PD_REJECT:
		return CMA_IB_REJ_PD_MAX;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_private_data_max);

static int cma_check_private_data(struct rdma_id_private *id_priv,
				  const void *data, unsigned int len,
				  enum cma_pd_op op)
{
	if (len && !data)
		return -EINVAL;
	if (len > cma_private_data_max(cma_is_iw(id_priv), op))
		return -EINVAL;
	return 0;
}

int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	if (!conn_param)
		return -EINVAL;
	ret = cma_check_private_data(id_priv, conn_param->private_data,
				     conn_param->private_data_len,
				     CMA_PD_CONNECT);
	if (ret)
		return ret;
	if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT))
		return -EINVAL;

	if (!id->qp) {
		id_priv->qp_num = conn_param->qp_num;
		id_priv->srq = conn_param->srq;
	}

	if (cma_is_iw(id_priv))
		ret = cma_iw_connect(id_priv, conn_param);
	else
		ret = -EPROTONOSUPPORT;
	if (ret)
		goto err_state;
	return 0;

err_state:
	cma_comp_exch(id_priv, RDMA_CM_CONNECT, RDMA_CM_ROUTE_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_connect_locked);

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	ret = rdma_connect_locked(id, conn_param);
	mutex_unlock(&id_priv->handler_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_connect);

int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	id_priv->ece.vendor_id = ece->vendor_id;
	id_priv->ece.attr_mod = ece->attr_mod;
	return rdma_connect(id, conn_param);
}
EXPORT_SYMBOL(rdma_connect_ece);

/* Move the id's QP, if the CM owns one, to ERROR. */
static void cma_qp_to_err(struct rdma_id_private *id_priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->id.qp)
		ib_modify_qp(id_priv->id.qp, &attr, IB_QP_STATE);
	mutex_unlock(&id_priv->qp_mutex);
}

/* Called with the id's handler_mutex held (from its handler, or locked). */
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	if (cma_state(id_priv) != RDMA_CM_CONNECT)
		return -EINVAL;
	if (conn_param) {
		ret = cma_check_private_data(id_priv, conn_param->private_data,
					     conn_param->private_data_len,
					     CMA_PD_ACCEPT);
		if (ret)
			return ret;
	}

	if (!id->qp && conn_param) {
		id_priv->qp_num = conn_param->qp_num;
		id_priv->srq = conn_param->srq;
	}

	if (cma_is_iw(id_priv) && id_priv->cm_id.iw)
		ret = cma_iw_accept(id_priv, conn_param);
	else
		ret = -EPROTONOSUPPORT;
	if (ret)
		goto reject;
	return 0;

reject:
	/* The QP must not carry traffic of a connection we refuse. */
	cma_qp_to_err(id_priv);
	rdma_reject(id, NULL, 0, 0);
	return ret;
}
EXPORT_SYMBOL(rdma_accept);

int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	id_priv->ece.vendor_id = ece->vendor_id;
	id_priv->ece.attr_mod = ece->attr_mod;
	return rdma_accept(id, conn_param);
}
EXPORT_SYMBOL(rdma_accept_ece);

int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	if (!id_priv->cm_id.iw)
		return -EINVAL;
	ret = cma_check_private_data(id_priv, private_data, private_data_len,
				     CMA_PD_REJECT);
	if (ret)
		return ret;
	if (!cma_is_iw(id_priv))
		return -EPROTONOSUPPORT;
	return iw_cm_reject(id_priv->cm_id.iw, private_data, private_data_len);
}
EXPORT_SYMBOL(rdma_reject);

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (!id_priv->cm_id.iw)
		return -EINVAL;
	if (!cma_is_iw(id_priv))
		return -EPROTONOSUPPORT;
	return iw_cm_disconnect(id_priv->cm_id.iw, 0);
}
EXPORT_SYMBOL(rdma_disconnect);

int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (!id_priv->cm_id.iw)
		return -EINVAL;
	/* iWARP connections need no hint from QP events. */
	return 0;
}
EXPORT_SYMBOL(rdma_notify);

const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	/* iWARP reports a consumer's reject as -ECONNREFUSED. */
	if (cma_is_iw(id_priv) && ev->status == -ECONNREFUSED &&
	    ev->param.conn.private_data_len) {
		*data_len = ev->param.conn.private_data_len;
		return ev->param.conn.private_data;
	}
	*data_len = 0;
	return NULL;
}
EXPORT_SYMBOL(rdma_consumer_reject_data);

struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	return cma_is_iw(id_priv) ? id_priv->cm_id.iw : NULL;
}
EXPORT_SYMBOL(rdma_iw_cm_id);

// SPDX-License-Identifier: GPL-2.0
/*
 * Connection calls: connect, accept, reject, disconnect, notify. Each picks
 * the transport by the capability of the id's port.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>

#include "cma_priv.h"
#include "ib.h"

static bool cma_is_iw(struct rdma_id_private *id_priv)
{
	return id_priv->id.device &&
	       rdma_is_port_valid(id_priv->id.device, id_priv->id.port_num) &&
	       rdma_cap_iw_cm(id_priv->id.device, id_priv->id.port_num);
}

static bool cma_is_ib(struct rdma_id_private *id_priv)
{
	return id_priv->id.device &&
	       rdma_is_port_valid(id_priv->id.device, id_priv->id.port_num) &&
	       rdma_cap_ib_cm(id_priv->id.device, id_priv->id.port_num);
}

/*
 * Largest private data a consumer may pass. IB CM messages carry fixed-size
 * private data, and a connect request spends CMA_IB_HDR_LEN of it on the
 * rdma_cm header; MPA carries up to 512 bytes, more than the u8 length of
 * struct rdma_conn_param can express.
 */
#define CMA_IB_REQ_PD_MAX	92
#define CMA_IB_REP_PD_MAX	196
#define CMA_IB_REJ_PD_MAX	148
#define CMA_IW_PD_MAX		512
#define CMA_UD_REQ_PD_MAX	216
#define CMA_UD_REP_PD_MAX	136

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
	int max = cma_private_data_max(cma_is_iw(id_priv), op);

	if (len && !data)
		return -EINVAL;
	/* AF_IB requests carry no rdma_cm header: all of it is theirs. */
	if (op == CMA_PD_CONNECT && !cma_is_iw(id_priv) &&
	    !cma_ib_hdr_len(id_priv))
		max = CMA_IB_REQ_PD_MAX;
	/* UD ids carry theirs in SIDR_REQ and SIDR_REP. */
	if (cma_is_ib(id_priv) && id_priv->id.qp_type == IB_QPT_UD)
		max = op == CMA_PD_CONNECT ?
		      CMA_UD_REQ_PD_MAX - cma_ib_hdr_len(id_priv) :
		      CMA_UD_REP_PD_MAX;
	if (len > max)
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
	else if (cma_is_ib(id_priv) && id->qp_type == IB_QPT_UD)
		ret = cma_ud_connect(id_priv, conn_param);
	else if (cma_is_ib(id_priv))
		ret = cma_ib_connect(id_priv, conn_param);
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

	if (cma_is_iw(id_priv) && cma_has_iw_cm(id_priv))
		ret = cma_iw_accept(id_priv, conn_param);
	else if (cma_is_ib(id_priv) && cma_has_ib_cm(id_priv))
		ret = cma_ib_accept(id_priv, conn_param);
	else
		ret = -EPROTONOSUPPORT;
	if (ret)
		goto reject;
	return 0;

reject:
	/* The QP must not carry traffic of a connection we refuse. */
	cma_qp_to_err(id_priv);
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
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
	if (cma_is_ib(id_priv) && cma_has_ib_cm(id_priv))
		return cma_ib_reject(id_priv, private_data, private_data_len,
				     reason);
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
	if (cma_is_ib(id_priv) && cma_has_ib_cm(id_priv))
		return cma_ib_disconnect(id_priv);
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
	/*
	 * IB: the first receive on a passive QP (IB_EVENT_COMM_EST) stands
	 * for a lost RTU. iWARP connections need no hint from QP events.
	 */
	if (cma_has_ib_cm(id_priv) && cma_state(id_priv) == RDMA_CM_CONNECT)
		return ib_cm_notify(id_priv->cm_id.ib, event);
	return 0;
}
EXPORT_SYMBOL(rdma_notify);

const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	/*
	 * iWARP reports a consumer's reject as -ECONNREFUSED, IB as the REJ
	 * reason IB_CM_REJ_CONSUMER_DEFINED.
	 */
	if (((cma_is_iw(id_priv) && ev->status == -ECONNREFUSED) ||
	     (cma_is_ib(id_priv) && ev->status == IB_CM_REJ_CONSUMER_DEFINED)) &&
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

// SPDX-License-Identifier: GPL-2.0
/*
 * QPs owned by an id: rdma_create_qp(), rdma_destroy_qp() and the QP
 * attributes a consumer needs for each state (rdma_init_qp_attr()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "cma_priv.h"
#include "ib.h"
#include "trace.h"

/* rdma_init_qp_attr() with the id's qp_mutex held (iw.c, ib.c, ud.c). */
int cma_init_qp_attr_locked(struct rdma_id_private *id_priv,
			    struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct rdma_cm_id *id = &id_priv->id;
	int ret;

	lockdep_assert_held(&id_priv->qp_mutex);
	if (!id->device || !rdma_is_port_valid(id->device, id->port_num))
		return -EINVAL;
	if (rdma_cap_ib_cm(id->device, id->port_num))
		return cma_ib_init_qp_attr(id_priv, qp_attr, qp_attr_mask);
	if (!rdma_cap_iw_cm(id->device, id->port_num))
		return -EPROTONOSUPPORT;

	if (cma_has_iw_cm(id_priv)) {
		ret = iw_cm_init_qp_attr(id_priv->cm_id.iw, qp_attr,
					 qp_attr_mask);
		if (ret)
			return ret;
	} else {
		/* No connection yet: the QP may only be moved to INIT. */
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
	}
	qp_attr->port_num = id->port_num;
	*qp_attr_mask |= IB_QP_PORT;
	return 0;
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	mutex_lock(&id_priv->qp_mutex);
	ret = cma_init_qp_attr_locked(id_priv, qp_attr, qp_attr_mask);
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_init_qp_attr);

/* Move the id's QP, if the CM owns one, to ERROR. */
void cma_qp_to_err(struct rdma_id_private *id_priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->id.qp)
		ib_modify_qp(id_priv->id.qp, &attr, IB_QP_STATE);
	mutex_unlock(&id_priv->qp_mutex);
}

/* A new connected-mode QP goes to INIT with the attributes of its id. */
static int cma_qp_to_init(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask, ret;

	ret = rdma_init_qp_attr(&id_priv->id, &attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(qp, &attr, mask);
}

int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct ib_qp *qp;
	int ret;

	if (!id->device || !pd || pd->device != id->device)
		return -EINVAL;

	qp_init_attr->port_num = id->port_num;
	qp = ib_create_qp(pd, qp_init_attr);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto out_trace;
	}

	if (qp->qp_type == IB_QPT_UD)
		ret = cma_ud_qp_to_rts(id_priv, qp);
	else
		ret = cma_qp_to_init(id_priv, qp);
	if (ret)
		goto err_destroy;

	mutex_lock(&id_priv->qp_mutex);
	id->qp = qp;
	id_priv->qp_num = qp->qp_num;
	id_priv->srq = !!qp->srq;
	mutex_unlock(&id_priv->qp_mutex);
	trace_cm_qp_create(id_priv, pd, qp_init_attr, 0);
	return 0;

err_destroy:
	ib_destroy_qp(qp);
out_trace:
	trace_cm_qp_create(id_priv, pd, qp_init_attr, ret);
	return ret;
}
EXPORT_SYMBOL(rdma_create_qp);

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	trace_cm_qp_destroy(id_priv);
	mutex_lock(&id_priv->qp_mutex);
	ib_destroy_qp(id->qp);
	id->qp = NULL;
	mutex_unlock(&id_priv->qp_mutex);
}
EXPORT_SYMBOL(rdma_destroy_qp);

// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: the connection API (downcalls into the provider).
 *
 * State changes made here, under priv->lock:
 *   listen:     IDLE -> LISTEN (back to IDLE if iw_create_listen fails)
 *   connect:    IDLE -> CONN_SENT; CONNECT_REPLY (event.c) ends it
 *   accept:     CONN_RECV stays until ESTABLISHED (event.c)
 *   reject:     CONN_RECV -> IDLE
 *   disconnect: ESTABLISHED -> CLOSING; CLOSE (event.c) -> IDLE
 * priv->in_progress marks a downcall, or the provider's answer to it, as
 * outstanding; a second call and iw_destroy_cm_id() wait or fail on it.
 * No provider op and no ib_modify_qp() is called with priv->lock held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

/*
 * No <openrdma/symvers.h> here, on purpose: the in-tree iwcm.c sees only
 * public headers, so struct rdma_restrack_root is UNKNOWN to genksyms
 * there. Defining it (as symvers.h does) changes the CRC of every export
 * that reaches struct ib_device; without it all nine CRCs match the
 * distro kernel's (checked against Debian 6.12.117 Module.symvers).
 */
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "iwcm.h"
#include "iwpm.h"

/* A device iw_cm can drive: an iWARP provider with the whole CM op set. */
bool iwcm_dev_has_iw_ops(const struct ib_device *dev)
{
	const struct ib_device_ops *ops = &dev->ops;

	return ops->iw_connect && ops->iw_accept && ops->iw_reject &&
	       ops->iw_create_listen && ops->iw_destroy_listen &&
	       ops->iw_add_ref && ops->iw_rem_ref && ops->iw_get_qp;
}

int iwcm_modify_qp_state(struct ib_qp *qp, enum ib_qp_state qp_state)
{
	struct ib_qp_attr attr = { .qp_state = qp_state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

static int iwcm_check_conn_param(const struct iw_cm_conn_param *param)
{
	if (!param)
		return -EINVAL;
	if (param->private_data_len > IWCM_MAX_PRIVATE_DATA)
		return -EINVAL;
	if (param->private_data_len && !param->private_data)
		return -EINVAL;
	return 0;
}

/* Look the QP up and take our reference on it. */
static struct ib_qp *iwcm_qp_get(struct ib_device *dev, u32 qpn)
{
	struct ib_qp *qp;

	qp = dev->ops.iw_get_qp(dev, qpn);
	if (qp)
		dev->ops.iw_add_ref(qp);
	return qp;
}

/* Start a downcall: the id must be in @state with nothing outstanding. */
static int iwcm_claim(struct iwcm_id_priv *priv, enum iwcm_state state)
{
	int ret = 0;

	spin_lock_irq(&priv->lock);
	if (priv->state != state || priv->in_progress || priv->destroyed)
		ret = -EINVAL;
	else
		priv->in_progress = true;
	spin_unlock_irq(&priv->lock);
	return ret;
}

/*
 * End a failed downcall: go back to @state if the id is still in @from
 * and hand back the QP reference for the caller to drop.
 */
static struct ib_qp *iwcm_unclaim(struct iwcm_id_priv *priv,
				  enum iwcm_state from, enum iwcm_state state)
{
	struct ib_qp *qp = NULL;

	spin_lock_irq(&priv->lock);
	if (priv->state == from) {
		priv->state = state;
		qp = priv->qp;
		priv->qp = NULL;
	}
	priv->in_progress = false;
	spin_unlock_irq(&priv->lock);
	wake_up_all(&priv->waitq);
	return qp;
}

static int iwcm_reply_buf(struct iwcm_id_priv *priv)
{
	u8 *buf;

	if (READ_ONCE(priv->reply_pd))
		return 0;
	buf = kmalloc(U8_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	spin_lock_irq(&priv->lock);
	if (!priv->reply_pd)
		swap(priv->reply_pd, buf);
	spin_unlock_irq(&priv->lock);
	kfree(buf);
	return 0;
}

/**
 * iw_cm_listen - listen on the id's local_addr
 * @cm_id: an idle id
 * @backlog: passed to the provider; 0 means the default_backlog parameter
 *
 * Return: 0, -EINVAL (bad state or backlog), -EOPNOTSUPP (no iWARP ops),
 * -ENOMEM or the provider's error.
 */
int iw_cm_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	int ret;

	if (backlog < 0)
		return -EINVAL;
	if (!backlog)
		backlog = clamp_t(unsigned int,
				  READ_ONCE(iwcm_default_backlog), 1, INT_MAX);
	if (!iwcm_dev_has_iw_ops(dev))
		return -EOPNOTSUPP;
	ret = iwcm_pool_fill(priv, min(backlog, IWCM_LISTEN_PREFILL));
	if (ret)
		return ret;
	ret = iwcm_claim(priv, IWCM_IDLE);
	if (ret)
		return ret;

	ret = iwpm_map_listen(priv);	/* sets m_local_addr, m_remote_addr */
	if (ret) {
		iwcm_unclaim(priv, IWCM_IDLE, IWCM_IDLE);
		return ret;
	}
	spin_lock_irq(&priv->lock);
	priv->max_elems = min(backlog, IWCM_LISTEN_ELEMS_MAX);
	priv->state = IWCM_LISTEN;
	spin_unlock_irq(&priv->lock);

	ret = dev->ops.iw_create_listen(cm_id, backlog);
	if (ret)
		iwpm_unmap(priv);
	iwcm_unclaim(priv, IWCM_LISTEN, ret ? IWCM_IDLE : IWCM_LISTEN);
	return ret;
}
EXPORT_SYMBOL(iw_cm_listen);

/**
 * iw_cm_reject - refuse the connection request that made @cm_id
 * @cm_id: an id from a CONNECT_REQUEST, not accepted
 * @private_data: sent to the peer in the MPA reject
 * @private_data_len: its length (a u8 is always within MPA's 512)
 *
 * Return: 0 or a negative errno. No event follows.
 */
int iw_cm_reject(struct iw_cm_id *cm_id, const void *private_data,
		 u8 private_data_len)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	int ret;

	if (private_data_len && !private_data)
		return -EINVAL;
	if (!iwcm_dev_has_iw_ops(dev))
		return -EOPNOTSUPP;
	ret = iwcm_claim(priv, IWCM_CONN_RECV);
	if (ret)
		return ret;
	spin_lock_irq(&priv->lock);
	priv->state = IWCM_IDLE;
	spin_unlock_irq(&priv->lock);

	ret = dev->ops.iw_reject(cm_id, private_data, private_data_len);
	iwcm_unclaim(priv, IWCM_IDLE, IWCM_IDLE);
	return ret;
}
EXPORT_SYMBOL(iw_cm_reject);

/**
 * iw_cm_accept - accept the connection request that made @cm_id
 * @cm_id: an id from a CONNECT_REQUEST
 * @iw_param: QP number, IRD/ORD and private data for the MPA reply
 *
 * ESTABLISHED follows, possibly before this returns.
 * Return: 0, -EINVAL (bad state, parameters or QP), -EOPNOTSUPP, or the
 * provider's error (the id is then idle and no event follows).
 */
int iw_cm_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	struct ib_qp *qp;
	int ret;

	ret = iwcm_check_conn_param(iw_param);
	if (ret)
		return ret;
	if (!iwcm_dev_has_iw_ops(dev))
		return -EOPNOTSUPP;
	ret = iwcm_claim(priv, IWCM_CONN_RECV);
	if (ret)
		return ret;

	qp = iwcm_qp_get(dev, iw_param->qpn);
	if (!qp) {
		ret = -EINVAL;
		goto out_unclaim;
	}
	spin_lock_irq(&priv->lock);
	priv->qp = qp;
	spin_unlock_irq(&priv->lock);

	ret = dev->ops.iw_accept(cm_id, iw_param);
	if (!ret)
		return 0;	/* in_progress ends with ESTABLISHED */

	qp = iwcm_unclaim(priv, IWCM_CONN_RECV, IWCM_IDLE);
	if (qp)
		dev->ops.iw_rem_ref(qp);
	return ret;

out_unclaim:
	iwcm_unclaim(priv, IWCM_CONN_RECV, IWCM_CONN_RECV);
	return ret;
}
EXPORT_SYMBOL(iw_cm_accept);

/**
 * iw_cm_connect - connect to the id's remote_addr
 * @cm_id: an idle id
 * @iw_param: QP number, IRD/ORD and private data for the MPA request
 *
 * CONNECT_REPLY follows, possibly before this returns.
 * Return: 0, -EINVAL (bad state, parameters or QP), -EOPNOTSUPP, -ENOMEM
 * or the provider's error (the id is then idle and no event follows).
 */
int iw_cm_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	struct ib_qp *qp;
	int ret;

	ret = iwcm_check_conn_param(iw_param);
	if (ret)
		return ret;
	if (!iwcm_dev_has_iw_ops(dev))
		return -EOPNOTSUPP;
	ret = iwcm_pool_fill(priv, IWCM_ACTIVE_ELEMS);
	if (ret)
		return ret;
	ret = iwcm_reply_buf(priv);
	if (ret)
		return ret;
	ret = iwcm_claim(priv, IWCM_IDLE);
	if (ret)
		return ret;

	qp = iwcm_qp_get(dev, iw_param->qpn);
	if (!qp) {
		ret = -EINVAL;
		goto out_unclaim;
	}
	ret = iwpm_map_connect(priv);	/* sets m_local_addr, m_remote_addr */
	if (ret) {
		dev->ops.iw_rem_ref(qp);
		goto out_unclaim;
	}
	spin_lock_irq(&priv->lock);
	priv->qp = qp;
	priv->state = IWCM_CONN_SENT;
	spin_unlock_irq(&priv->lock);

	ret = dev->ops.iw_connect(cm_id, iw_param);
	if (!ret)
		return 0;	/* in_progress ends with CONNECT_REPLY */

	qp = iwcm_unclaim(priv, IWCM_CONN_SENT, IWCM_IDLE);
	if (qp)
		dev->ops.iw_rem_ref(qp);
	return ret;

out_unclaim:
	iwcm_unclaim(priv, IWCM_IDLE, IWCM_IDLE);
	return ret;
}
EXPORT_SYMBOL(iw_cm_connect);

/**
 * iw_cm_disconnect - close the connection
 * @cm_id: the id
 * @abrupt: 0: graceful close (QP to SQD); else reset (QP to ERR)
 *
 * Waits for an outstanding connect or accept to be answered first. CLOSE
 * follows. An abrupt disconnect of a closing id resets it. Disconnecting
 * an idle or unaccepted id does nothing.
 * Return: 0, or -EINVAL for a listener.
 */
int iw_cm_disconnect(struct iw_cm_id *cm_id, int abrupt)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	struct ib_qp *qp = NULL;
	int ret = 0;

	spin_lock_irq(&priv->lock);
	wait_event_lock_irq(priv->waitq,
			    !priv->in_progress || iwcm_in_worker(),
			    priv->lock);
	switch (priv->state) {
	case IWCM_ESTABLISHED:
		priv->state = IWCM_CLOSING;
		qp = priv->qp;
		break;
	case IWCM_CLOSING:
		if (abrupt)
			qp = priv->qp;
		break;
	case IWCM_CONN_SENT:
	case IWCM_CONN_RECV:
		/* Outstanding only in the worker, which cannot wait: abort. */
		if (priv->in_progress) {
			qp = priv->qp;
			abrupt = 1;
		}
		break;
	case IWCM_IDLE:
		break;
	case IWCM_LISTEN:
	case IWCM_DESTROYING:
		ret = -EINVAL;
		break;
	}
	if (qp)
		dev->ops.iw_add_ref(qp);	/* a CLOSE may drop ours now */
	spin_unlock_irq(&priv->lock);

	if (qp) {
		/* May fail when the peer got there first; that is fine. */
		iwcm_modify_qp_state(qp, abrupt ? IB_QPS_ERR : IB_QPS_SQD);
		dev->ops.iw_rem_ref(qp);
	}
	return ret;
}
EXPORT_SYMBOL(iw_cm_disconnect);

/**
 * iw_cm_init_qp_attr - QP attributes for a transition of the id's QP
 * @cm_id: the id
 * @qp_attr: qp_state selects the transition; access flags are filled in
 * @qp_attr_mask: set to the attributes filled in
 *
 * INIT and RTR: remote read and write access. RTS: nothing (the provider
 * moves the QP to RTS itself). Any context.
 * Return: 0, or -EINVAL for other QP states or ids that are listening,
 * closing or destroyed.
 */
int iw_cm_init_qp_attr(struct iw_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	enum iwcm_state state;
	unsigned long flags;

	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
	case IB_QPS_RTR:
	case IB_QPS_RTS:
		break;
	default:
		return -EINVAL;
	}

	spin_lock_irqsave(&priv->lock, flags);
	state = priv->state;
	spin_unlock_irqrestore(&priv->lock, flags);
	switch (state) {
	case IWCM_IDLE:
	case IWCM_CONN_SENT:
	case IWCM_CONN_RECV:
	case IWCM_ESTABLISHED:
		break;
	default:
		return -EINVAL;
	}

	if (qp_attr->qp_state == IB_QPS_RTS) {
		*qp_attr_mask = 0;
	} else {
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
		qp_attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE |
					   IB_ACCESS_REMOTE_READ;
	}
	return 0;
}
EXPORT_SYMBOL(iw_cm_init_qp_attr);

// SPDX-License-Identifier: GPL-2.0
/*
 * Pacing REQs per port (issue 40): at most req_window REQs of a port wait
 * for their answer at a time; a REQ beyond that waits here, in the order
 * the connects came, and is sent when an earlier one is answered, rejected
 * or timed out. After a link flap every ULP reconnects at once, and with
 * the path records cached (rdma_cm's path cache) nothing spaces the REQs
 * out: a thousand of them reach the peer's QP1 together, its receive queue
 * (ib_mad's recv_queue_size, 512) overflows, and every MAD lost costs a
 * response timeout (4.3 s by default) before its resend. The in-tree CM
 * paces nothing. A REQ's timeout starts when it is sent, so a REQ that
 * waited loses none of its tries.
 *
 * req_window 0 (the default) sends every REQ at once, as in-tree.
 *
 * Locking: cm_port.pace_lock (inside cm_id_priv.lock, never held across a
 * send) protects the port's count and queue and each id's place in it;
 * the REQ an id keeps while it waits (cm_id_priv.paced_req) is the id's
 * lock's. The queue holds a reference on each id in it; the work that
 * sends from it holds one on the port's device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "cm_priv.h"

VISIBLE_IF_KUNIT unsigned int cm_req_window;
EXPORT_SYMBOL_IF_KUNIT(cm_req_window);

static void cm_pace_kick(struct cm_port *port)
{
	kref_get(&port->cm_dev->kref);
	if (!queue_work(cm.wq, &port->pace_work))
		cm_device_put(port->cm_dev);
}

/**
 * cm_pace_window_changed - apply a new req_window to the REQs waiting now
 *
 * Every port's queue is looked at again: a wider window, or 0, sends its
 * REQs without waiting for an answer to free a slot. At module load (the
 * parameter given to modprobe) no device is there yet.
 */
VISIBLE_IF_KUNIT void cm_pace_window_changed(void)
{
	struct cm_device *cm_dev;
	u32 p;

	spin_lock(&cm.lock);
	list_for_each_entry(cm_dev, &cm.devices, entry) {
		if (cm_dev->going_away)
			continue;
		for (p = 0; p < cm_dev->num_ports; p++)
			if (cm_dev->port[p])
				cm_pace_kick(cm_dev->port[p]);
	}
	spin_unlock(&cm.lock);
}
EXPORT_SYMBOL_IF_KUNIT(cm_pace_window_changed);

static int cm_req_window_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret)
		cm_pace_window_changed();
	return ret;
}

static const struct kernel_param_ops cm_req_window_ops = {
	.set = cm_req_window_set,
	.get = param_get_uint,
};
module_param_cb(req_window, &cm_req_window_ops, &cm_req_window, 0644);
MODULE_PARM_DESC(req_window,
		 "REQs of a port that wait for their answer at a time; more wait in order until one is answered or times out (0: no limit, as in-tree; the default)");

/**
 * cm_pace_done - a paced REQ of @port is answered, timed out or unsent
 * @port: the port it left from
 *
 * Gives its slot back and sends the next waiting REQ (from cm.wq: the
 * caller may hold an id's lock). Any context that may take a spinlock.
 */
void cm_pace_done(struct cm_port *port)
{
	bool kick;

	spin_lock(&port->pace_lock);
	if (!WARN_ON_ONCE(!port->req_inflight))
		port->req_inflight--;
	kick = !list_empty(&port->req_wait);
	spin_unlock(&port->pace_lock);
	if (kick)
		cm_pace_kick(port);
}
EXPORT_SYMBOL_IF_KUNIT(cm_pace_done);

/**
 * cm_pace_req_locked - send @priv's REQ now, or queue it for a slot
 * @priv: the id, locked, in REQ_SENT
 * @msg: the REQ
 * @timeout_ms: its wait for an answer before each resend
 * @retries: its resends
 *
 * Return: 0 when sent or queued (the id holds a copy); the send's error.
 */
int cm_pace_req_locked(struct cm_id_priv *priv, const struct cm_msg *msg,
		       unsigned int timeout_ms, int retries)
{
	unsigned int window = READ_ONCE(cm_req_window);
	struct cm_port *port = priv->port;
	bool kick;
	int ret;

	lockdep_assert_held(&priv->lock);
	spin_lock(&port->pace_lock);
	/* Never ahead of a REQ still waiting, whatever the window is now. */
	if (list_empty(&port->req_wait)) {
		if (!window) {
			spin_unlock(&port->pace_lock);
			return cm_send(priv, msg, timeout_ms, retries, false);
		}
		if (port->req_inflight < window) {
			port->req_inflight++;
			spin_unlock(&port->pace_lock);
			ret = cm_send_flags(priv, msg, timeout_ms, retries,
					    false, CM_SEND_PACED);
			if (ret)
				cm_pace_done(port);
			return ret;
		}
	}
	priv->paced_req = kmemdup(msg, sizeof(*msg), GFP_ATOMIC);
	if (!priv->paced_req) {
		spin_unlock(&port->pace_lock);
		return -ENOMEM;
	}
	priv->paced_timeout_ms = timeout_ms;
	priv->paced_retries = retries;
	cm_get(priv);
	list_add_tail(&priv->pace_entry, &port->req_wait);
	/* A slot free (the window changed while REQs waited): send now. */
	kick = !window || port->req_inflight < window;
	spin_unlock(&port->pace_lock);
	cm_count(CM_CNT_TX_REQ_PACED);
	if (kick)
		cm_pace_kick(port);
	return 0;
}

/*
 * Send the REQs the free slots allow, oldest first. A REQ whose id moved
 * on while it waited (destroyed) is dropped; one that cannot be sent ends
 * its connect as a REQ out of retries would (REQ_ERROR, no memory needed).
 */
static void cm_pace_work(struct work_struct *work)
{
	struct cm_port *port = container_of(work, struct cm_port, pace_work);
	struct cm_id_priv *priv;
	struct cm_msg *msg;
	unsigned int window;
	int ret;

	for (;;) {
		window = READ_ONCE(cm_req_window);
		spin_lock(&port->pace_lock);
		priv = list_first_entry_or_null(&port->req_wait,
						struct cm_id_priv, pace_entry);
		if (!priv || (window && port->req_inflight >= window)) {
			spin_unlock(&port->pace_lock);
			break;
		}
		list_del_init(&priv->pace_entry);	/* its reference: ours */
		port->req_inflight++;
		spin_unlock(&port->pace_lock);

		spin_lock(&priv->lock);
		msg = priv->paced_req;
		priv->paced_req = NULL;
		ret = -ECANCELED;
		if (msg && priv->id.state == IB_CM_REQ_SENT &&
		    !priv->destroying) {
			ret = cm_send_flags(priv, msg, priv->paced_timeout_ms,
					    priv->paced_retries, false,
					    CM_SEND_PACED);
			if (ret) {
				priv->id.state = IB_CM_IDLE;
				cm_notify_timeout_locked(priv,
							 IB_CM_REQ_ERROR);
			}
		}
		spin_unlock(&priv->lock);
		kfree(msg);
		if (ret) {
			spin_lock(&port->pace_lock);
			port->req_inflight--;
			spin_unlock(&port->pace_lock);
		}
		cm_put(priv);
	}
	cm_device_put(port->cm_dev);
}

/**
 * cm_pace_forget - take @priv out of its port's queue (its destroy)
 * @priv: the id, not locked
 */
void cm_pace_forget(struct cm_id_priv *priv)
{
	struct cm_port *port = priv->port;
	bool queued;

	if (!port)
		return;
	spin_lock(&port->pace_lock);
	queued = !list_empty(&priv->pace_entry);
	list_del_init(&priv->pace_entry);
	spin_unlock(&port->pace_lock);
	if (!queued)
		return;
	spin_lock(&priv->lock);
	kfree(priv->paced_req);
	priv->paced_req = NULL;
	spin_unlock(&priv->lock);
	cm_put(priv);
}

/**
 * cm_pace_port_init - an empty queue for a new port
 * @port: the port
 */
void cm_pace_port_init(struct cm_port *port)
{
	spin_lock_init(&port->pace_lock);
	INIT_LIST_HEAD(&port->req_wait);
	INIT_WORK(&port->pace_work, cm_pace_work);
}
EXPORT_SYMBOL_IF_KUNIT(cm_pace_port_init);

#if IS_ENABLED(CONFIG_KUNIT)
/* The port's count of paced REQs out and of REQs waiting. */
void cm_pace_read(struct cm_port *port, unsigned int *inflight,
		  unsigned int *waiting)
{
	struct cm_id_priv *priv;

	*waiting = 0;
	spin_lock(&port->pace_lock);
	*inflight = port->req_inflight;
	list_for_each_entry(priv, &port->req_wait, pace_entry)
		(*waiting)++;
	spin_unlock(&port->pace_lock);
}
EXPORT_SYMBOL_IF_KUNIT(cm_pace_read);

int cm_pace_req(struct cm_id_priv *priv, const struct cm_msg *msg,
		unsigned int timeout_ms, int retries)
{
	int ret;

	spin_lock(&priv->lock);
	ret = cm_pace_req_locked(priv, msg, timeout_ms, retries);
	spin_unlock(&priv->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cm_pace_req);
#endif

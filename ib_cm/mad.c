// SPDX-License-Identifier: GPL-2.0
/*
 * ib_cm MAD I/O: address vectors of ids, sending CM MADs (with the MAD
 * layer's retries for those that wait for an answer), stateless replies
 * built from a received work completion, the send completion handler
 * (timeouts become REQ/REP/DREQ/SIDR_REQ errors) and the receive handler,
 * which parses and validates every MAD before dispatching it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"
#include "trace.h"

/* An IBA time value (4.096 us * 2^t) in milliseconds, at least 1. */
unsigned int cm_time_ms(u8 iba_time)
{
	if (iba_time > 31)
		iba_time = 31;
	return iba_time <= 8 ? 1 : 1U << (iba_time - 8);
}
EXPORT_SYMBOL_IF_KUNIT(cm_time_ms);

/*
 * How long to wait for the answer to a message: the round trip (twice
 * the packet life time) plus the time the peer said it may take.
 */
unsigned int cm_msg_timeout_ms(u8 packet_life_time, u8 response_timeout)
{
	return 2 * cm_time_ms(packet_life_time) + cm_time_ms(response_timeout);
}
EXPORT_SYMBOL_IF_KUNIT(cm_msg_timeout_ms);

/*
 * How long @priv's REP or DREQ waits for its answer before a resend, as
 * in-tree: the active side, which knows the path, the round trip plus the
 * peer's CM response timeout (as for its REQ); the passive side only the
 * CM response timeout the REQ gave for the active side (the "local CM
 * response timeout" of the REQ, our remote one), as in-tree's
 * cm_req_handler() sets it. A lost REP or passive DREQ thus costs what it
 * costs in-tree, not twice the packet life time more.
 */
unsigned int cm_wait_ms(const struct cm_id_priv *priv)
{
	if (priv->passive)
		return cm_time_ms(priv->remote_cm_response_timeout);
	return cm_msg_timeout_ms(priv->packet_life_time,
				 priv->remote_cm_response_timeout);
}
EXPORT_SYMBOL_IF_KUNIT(cm_wait_ms);

__be64 cm_new_tid(struct cm_port *port)
{
	static atomic_t tid_lo = ATOMIC_INIT(0);
	u32 hi = 0;

	spin_lock(&port->agent_lock);
	if (port->agent)
		hi = port->agent->hi_tid;
	spin_unlock(&port->agent_lock);
	return cpu_to_be64((u64)hi << 32 | (u32)atomic_inc_return(&tid_lo));
}

/**
 * cm_av_init - the address vector of @path on @cm_dev
 * @cm_dev: the id's device
 * @path: the path (IB without @sgid_attr: its SGID names the port)
 * @sgid_attr: RoCE: the path's source GID entry, else NULL
 * @av: filled on success; cm_av_destroy() undoes it
 *
 * Process context. Return: 0, or -errno (SGID or P_Key not the device's,
 * no CM on the port, no MAD agent, the AH refused).
 */
int cm_av_init(struct cm_device *cm_dev, struct sa_path_rec *path,
	       const struct ib_gid_attr *sgid_attr, struct cm_av *av)
{
	struct ib_device *dev = cm_dev->ib_dev;
	struct ib_mad_agent *agent;
	u32 p;
	int ret;

	memset(av, 0, sizeof(*av));
	if (sgid_attr) {
		p = sgid_attr->port_num;
	} else {
		/* IB: the port whose GID table holds the path's SGID. */
		const struct ib_gid_attr *attr;

		attr = rdma_find_gid(dev, &path->sgid, IB_GID_TYPE_IB, NULL);
		if (IS_ERR(attr))
			return PTR_ERR(attr);
		p = attr->port_num;
		rdma_put_gid_attr(attr);
	}
	av->port = cm_port_of(cm_dev, p);
	if (!av->port)
		return -EINVAL;
	ret = ib_find_cached_pkey(dev, p, be16_to_cpu(path->pkey),
				  &av->pkey_index);
	if (ret)
		return ret;
	ret = ib_init_ah_attr_from_path(dev, p, path, &av->ah_attr, sgid_attr);
	if (ret)
		return ret;
	spin_lock(&av->port->agent_lock);
	agent = av->port->agent;
	spin_unlock(&av->port->agent_lock);
	if (!agent) {
		ret = -ENODEV;
		goto err;
	}
	/* The agent's PD outlives us: ib_mad closes the port after us. */
	av->mad_ah = rdma_create_ah(agent->qp->pd, &av->ah_attr,
				    RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(av->mad_ah)) {
		ret = PTR_ERR(av->mad_ah);
		av->mad_ah = NULL;
		goto err;
	}
	return 0;
err:
	rdma_destroy_ah_attr(&av->ah_attr);
	return ret;
}

/* Process context: the AH may be destroyed. */
void cm_av_destroy(struct cm_av *av)
{
	if (av->mad_ah)
		rdma_destroy_ah(av->mad_ah, RDMA_DESTROY_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&av->ah_attr);
}

/*
 * Give @priv its address vector (data path and MADs) from @path. Process
 * context, before the id is used by the receive path.
 */
int cm_set_av_from_path(struct cm_id_priv *priv, struct sa_path_rec *path,
			const struct ib_gid_attr *sgid_attr)
{
	struct cm_av av;
	int ret;

	ret = cm_av_init(priv->cm_dev, path, sgid_attr, &av);
	if (ret)
		return ret;
	priv->port = av.port;
	priv->pkey_index = av.pkey_index;
	priv->ah_attr = av.ah_attr;		/* the reference moves */
	priv->mad_ah = av.mad_ah;
	priv->has_av = true;
	priv->packet_life_time = path->packet_life_time;
	priv->path_mtu = path->mtu;
	return 0;
}

/* Address @priv back to the sender of a received MAD (SIDR). */
int cm_set_av_from_wc(struct cm_id_priv *priv, struct cm_port *port,
		      struct ib_mad_recv_wc *wc)
{
	struct ib_mad_agent *agent;
	struct ib_ah *ah;
	int ret;

	ret = ib_init_ah_attr_from_wc(priv->id.device, port->port_num, wc->wc,
				      wc->recv_buf.grh, &priv->ah_attr);
	if (ret)
		return ret;
	priv->has_av = true;
	priv->port = port;
	priv->pkey_index = wc->wc->pkey_index;
	spin_lock(&port->agent_lock);
	agent = port->agent;
	spin_unlock(&port->agent_lock);
	if (!agent)
		return -ENODEV;
	ah = rdma_create_ah(agent->qp->pd, &priv->ah_attr,
			    RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	priv->mad_ah = ah;
	return 0;
}

static struct ib_mad_send_buf *cm_alloc_msg(struct cm_port *port,
					    u16 pkey_index,
					    const struct cm_msg *msg)
{
	struct ib_mad_send_buf *buf;

	lockdep_assert_held(&port->agent_lock);
	if (!port->agent)
		return ERR_PTR(-ENODEV);
	buf = ib_create_send_mad(port->agent, 1, pkey_index, 0,
				 IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA,
				 GFP_ATOMIC, IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		return buf;
	cm_msg_build(buf->mad, msg);
	return buf;
}

/*
 * Whether @ah sends from a RoCE GID whose netdev is administratively down
 * (a link flap, `ip link set dev down`): rxe finds no route for such a
 * send, fails it and moves the port's QP1 to the error state, where it
 * stays (ib_mad recovers QP1 from SQE only), so that no MAD leaves the
 * port again until the device is added anew (tests/e2e/rxe-gsi-flush.sh).
 * Nothing can reach the wire through a down netdev anyway: such a send is
 * refused, and the caller sees -ENETDOWN (a connect, an accept) or a lost
 * MAD (an answer, a resend). IB has no netdev here. Any context.
 */
VISIBLE_IF_KUNIT bool cm_ah_netdev_down(const struct ib_gid_attr *attr)
{
	struct net_device *ndev;
	bool down;

	if (!attr || !rdma_protocol_roce(attr->device, attr->port_num))
		return false;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	down = !IS_ERR(ndev) && !(READ_ONCE(ndev->flags) & IFF_UP);
	rcu_read_unlock();
	return down;
}
EXPORT_SYMBOL_IF_KUNIT(cm_ah_netdev_down);

static int cm_post(struct ib_mad_send_buf *buf)
{
	int ret;

	if (cm_ah_netdev_down(buf->ah->sgid_attr)) {
		cm_count(CM_CNT_TX_NETDEV_DOWN);
		ib_free_send_mad(buf);
		return -ENETDOWN;
	}
	ret = ib_post_send_mad(buf, NULL);

	if (ret) {
		cm_count(CM_CNT_TX_ERR);
		ib_free_send_mad(buf);
	} else {
		cm_count(CM_CNT_TX);
	}
	return ret;
}

/*
 * Whether the source GID entry of @priv's address vector left the GID
 * table (RoCE: the entry of an address deleted, or deleted and added again
 * at another index, as a bond's MAC change does to every GID of the bond).
 * The id's AH, made once, still names the entry's old index, which now
 * holds nothing or another GID: rxe fails such a send in its requester and
 * leaves the port's QP1 in error for good, so that no MAD of any id leaves
 * the port again. In-tree makes an AH per MAD, and ib_core refuses one whose
 * RoCE v2 source GID entry is gone (rdma_lag_get_ah_roce_slave()); here the
 * send is refused instead. Any context; priv->lock held by the caller.
 */
VISIBLE_IF_KUNIT bool cm_av_sgid_gone(const struct ib_gid_attr *attr)
{
	if (!attr || !rdma_protocol_roce(attr->device, attr->port_num))
		return false;
	/* Or about to go: see gid_doom.c. */
	return cm_gid_entry_gone(attr) || cm_gid_doomed(attr);
}
EXPORT_SYMBOL_IF_KUNIT(cm_av_sgid_gone);

/* cm_send() with context flags (CM_SEND_RESEND, CM_SEND_PACED). */
int cm_send_flags(struct cm_id_priv *priv, const struct cm_msg *msg,
		  unsigned int timeout_ms, int retries, bool keep,
		  unsigned long flags)
{
	struct ib_mad_send_buf *buf;
	int ret;

	lockdep_assert_held(&priv->lock);
	if (!priv->mad_ah)
		return -EINVAL;
	if (cm_av_sgid_gone(priv->ah_attr.grh.sgid_attr)) {
		cm_count(CM_CNT_TX_ERR);
		return -ENETUNREACH;
	}
	spin_lock(&priv->port->agent_lock);
	buf = cm_alloc_msg(priv->port, priv->pkey_index, msg);
	spin_unlock(&priv->port->agent_lock);
	if (IS_ERR(buf)) {
		cm_count(CM_CNT_TX_ERR);
		return PTR_ERR(buf);
	}
	buf->ah = priv->mad_ah;
	buf->timeout_ms = timeout_ms;
	buf->retries = timeout_ms ? retries : 0;
	buf->context[0] = priv;
	buf->context[1] = (void *)((uintptr_t)priv->id.state | flags);
	cm_get(priv);
	ret = cm_post(buf);
	if (ret) {
		refcount_dec(&priv->refcount);	/* ours still holds one */
		return ret;
	}
	/*
	 * Only a message that left replaces the one kept: the send handler
	 * frees @buf under priv->lock, which the caller holds.
	 */
	if (keep) {
		if (!priv->last_mad)
			priv->last_mad = kmalloc(CM_MAD_SIZE, GFP_ATOMIC);
		if (priv->last_mad)
			memcpy(priv->last_mad, buf->mad, CM_MAD_SIZE);
		priv->mra_delayed = false;
	}
	if (timeout_ms) {
		cm_cancel_msg(priv);
		priv->msg = buf;
		priv->msg_stale = false;
		priv->msg_cancelled = false;
	}
	return 0;
}

/**
 * cm_send - send @msg to the id's peer
 * @priv: the id, locked, with its address vector set
 * @msg: what to send
 * @timeout_ms: 0 for a message that waits for nothing; else the time to
 *	wait for its answer before each of @retries resends, and the id's
 *	@msg until it is answered, cancelled or timed out
 * @retries: resends
 * @keep: keep a copy in @last_mad, resent for a duplicate request
 */
int cm_send(struct cm_id_priv *priv, const struct cm_msg *msg,
	    unsigned int timeout_ms, int retries, bool keep)
{
	return cm_send_flags(priv, msg, timeout_ms, retries, keep, 0);
}

/* Send @msg, which answers a duplicate of the peer's message, once. */
int cm_send_again(struct cm_id_priv *priv, const struct cm_msg *msg)
{
	return cm_send_flags(priv, msg, 0, 0, false, CM_SEND_RESEND);
}

/* Send @mad, a MAD built before (a kept reply), once more. */
int cm_send_built(struct cm_id_priv *priv, const void *mad)
{
	struct ib_mad_send_buf *buf;
	struct cm_msg none = {};

	lockdep_assert_held(&priv->lock);
	if (!priv->mad_ah)
		return -ENOENT;
	if (cm_av_sgid_gone(priv->ah_attr.grh.sgid_attr)) {
		cm_count(CM_CNT_TX_ERR);
		return -ENETUNREACH;
	}
	spin_lock(&priv->port->agent_lock);
	buf = cm_alloc_msg(priv->port, priv->pkey_index, &none);
	spin_unlock(&priv->port->agent_lock);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	memcpy(buf->mad, mad, CM_MAD_SIZE);
	buf->ah = priv->mad_ah;
	buf->context[0] = priv;
	buf->context[1] = (void *)((uintptr_t)priv->id.state | CM_SEND_RESEND);
	cm_get(priv);
	if (cm_post(buf)) {
		refcount_dec(&priv->refcount);
		return -EIO;
	}
	return 0;
}

/* Send the kept copy of our last REP, MRA, RTU or DREP once more. */
int cm_resend_last(struct cm_id_priv *priv)
{
	int ret;

	lockdep_assert_held(&priv->lock);
	if (!priv->last_mad)
		return -ENOENT;
	ret = cm_send_built(priv, priv->last_mad);
	if (!ret)
		priv->mra_delayed = false;
	return ret;
}

/*
 * Answer a received MAD without an id (REJ to a REQ nobody takes, APR to
 * a LAP): address it from the work completion.
 */
void cm_send_reply_from_wc(struct cm_port *port, struct ib_mad_recv_wc *wc,
			   const struct cm_msg *msg)
{
	struct ib_mad_send_buf *buf;
	struct ib_mad_agent *agent;
	struct ib_ah *ah;

	/* Called from the agent's receive handler: the agent stays. */
	spin_lock(&port->agent_lock);
	agent = port->agent;
	spin_unlock(&port->agent_lock);
	if (!agent)
		return;
	ah = ib_create_ah_from_wc(agent->qp->pd, wc->wc, wc->recv_buf.grh,
				  port->port_num);
	if (IS_ERR(ah)) {
		cm_count(CM_CNT_TX_ERR);
		return;
	}
	if (cm_av_sgid_gone(ah->sgid_attr)) {	/* as for an id's sends */
		cm_count(CM_CNT_TX_ERR);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return;
	}
	spin_lock(&port->agent_lock);
	buf = cm_alloc_msg(port, wc->wc->pkey_index, msg);
	spin_unlock(&port->agent_lock);
	if (IS_ERR(buf)) {
		cm_count(CM_CNT_TX_ERR);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return;
	}
	buf->ah = ah;
	buf->context[0] = NULL;
	buf->context[1] = ah;		/* destroyed by the send handler */
	if (cm_post(buf))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

/**
 * cm_send_done_timed_out - end @priv's wait for an answer to @buf
 * @priv: the id that sent @buf
 * @buf: a send that completed
 * @status: its completion status
 * @state: in: the id's state when it was sent; out: the state to time out
 *
 * Return: whether the completion is the timeout of the message the id
 * waits an answer for, in the state it was sent in (or its MRAed twin): a
 * send error, or a flush the CM did not ask for. The CM forgets a send it
 * cancels (cm_cancel_msg(); or marks it when the cancel found it on the
 * QP: then no completion of it is a timeout), so a flush of the send still
 * awaited comes from the QP (in error: rxe moves QP1 there when a send
 * finds no route, as during a link flap, and nothing brings it back) or
 * from a cancel because its source GID left (cm_cancel_stale_sends()).
 * In-tree frees a flushed send silently and its id waits for good; here
 * the consumer gets the timeout it would get had the send been lost
 * (docs/ib_cm.md). The flushes of a port going away are not timeouts: the
 * caller passes IB_WC_SUCCESS for those. An answer, a cancel or a message
 * the id no longer waits for is no timeout.
 */
VISIBLE_IF_KUNIT bool cm_send_done_timed_out(struct cm_id_priv *priv,
					     struct ib_mad_send_buf *buf,
					     enum ib_wc_status status,
					     enum ib_cm_state *state)
{
	bool timed_out = status != IB_WC_SUCCESS;

	spin_lock(&priv->lock);
	if (priv->msg != buf) {
		timed_out = false;
	} else {
		if (priv->msg_cancelled)
			timed_out = false;	/* answered or moot */
		priv->msg = NULL;
		priv->msg_stale = false;
		priv->msg_cancelled = false;
		/* An MRA moved us on, but it is the same request waiting. */
		if (priv->id.state != *state &&
		    !(*state == IB_CM_REQ_SENT &&
		      priv->id.state == IB_CM_MRA_REQ_RCVD) &&
		    !(*state == IB_CM_REP_SENT &&
		      priv->id.state == IB_CM_MRA_REP_RCVD))
			timed_out = false;
		*state = priv->id.state;
	}
	spin_unlock(&priv->lock);
	return timed_out;
}
EXPORT_SYMBOL_IF_KUNIT(cm_send_done_timed_out);

/* Whether @agent is still its port's (cm_remove_port() clears it first). */
static bool cm_port_agent_live(struct ib_mad_agent *agent)
{
	struct cm_port *port = agent->context;
	bool live;

	spin_lock(&port->agent_lock);
	live = port->agent == agent;
	spin_unlock(&port->agent_lock);
	return live;
}

void cm_send_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_wc *send_wc)
{
	struct ib_mad_send_buf *buf = send_wc->send_buf;
	struct cm_id_priv *priv = buf->context[0];
	enum ib_wc_status status;
	enum ib_cm_state state;
	__be16 attr_id;
	bool timed_out;

	cm_count_sent(agent->context, buf);
	if (!priv) {
		rdma_destroy_ah(buf->context[1], RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(buf);
		return;
	}
	state = (uintptr_t)buf->context[1] & CM_SEND_STATE_MASK;
	if ((uintptr_t)buf->context[1] & CM_SEND_PACED)
		cm_pace_done(agent->context);
	attr_id = ((struct ib_mad_hdr *)buf->mad)->attr_id;
	status = send_wc->status;
	if (status == IB_WC_WR_FLUSH_ERR && !cm_port_agent_live(agent))
		status = IB_WC_SUCCESS;	/* the port goes: no timeout */
	timed_out = cm_send_done_timed_out(priv, buf, status, &state);
	ib_free_send_mad(buf);
	if (timed_out) {
		trace_icm_mad_send_err(state, status);
		if (status == IB_WC_WR_FLUSH_ERR)
			cm_count(CM_CNT_TX_FLUSHED);
		cm_count(CM_CNT_TIMEOUT);
		cm_send_timeout(priv, state, attr_id);
	}
	cm_put(priv);
}

/**
 * cm_send_is_stale - whether @priv's waiting send lost its source GID
 * @priv: an id, locked
 * @cm_dev: the device whose GID table changed
 *
 * ib_mad resends a message that waits for an answer through the AH it was
 * sent with, which names the source GID's index (see cm_av_sgid_gone()):
 * once the entry left the table, a resend would put the port's QP1 in
 * error on rxe. Such a send must be cancelled, once, and its flush then
 * ends it as a timeout (a DREQ's: timewait, as in-tree when ib_core
 * refuses the AH of a new message).
 *
 * Return: true if the caller must cancel @priv->msg.
 */
VISIBLE_IF_KUNIT bool cm_send_is_stale(struct cm_id_priv *priv,
				       struct cm_device *cm_dev)
{
	lockdep_assert_held(&priv->lock);
	if (!priv->msg || priv->msg_stale || priv->cm_dev != cm_dev)
		return false;
	return cm_av_sgid_gone(priv->ah_attr.grh.sgid_attr);
}
EXPORT_SYMBOL_IF_KUNIT(cm_send_is_stale);

/**
 * cm_cancel_stale_sends - cancel the waiting sends of @cm_dev's ids whose
 *	source GID entry left the table
 * @cm_dev: the device
 *
 * One id at a time, each found and referenced under cm.lock and checked
 * under its own lock (which is outside cm.lock). A send that is on the QP
 * just now cannot be cancelled (ib_modify_mad() finds only sends waiting
 * for their answer): it is counted, and the caller tries again shortly.
 * Process context, no lock held; costs a walk of the ids.
 *
 * Return: the number of stale sends that could not be cancelled yet.
 */
unsigned int cm_cancel_stale_sends(struct cm_device *cm_dev)
{
	unsigned int busy = 0;
	struct cm_id_priv *priv;
	unsigned long index = 0;

	for (;;) {
		spin_lock(&cm.lock);
		priv = xa_find(&cm.local_ids, &index, U32_MAX, XA_PRESENT);
		if (priv)
			cm_get(priv);
		spin_unlock(&cm.lock);
		if (!priv)
			break;
		spin_lock(&priv->lock);
		if (cm_send_is_stale(priv, cm_dev)) {
			/* The completion needs our lock: it sees the mark. */
			if (!ib_modify_mad(priv->msg, 0)) {
				priv->msg_stale = true;
				cm_count(CM_CNT_TX_STALE);
			} else {
				busy++;
			}
		}
		spin_unlock(&priv->lock);
		cm_put(priv);
		if (index == U32_MAX)
			break;
		index++;
	}
	return busy;
}

/* Our request ran out of retries: tell the user, as the state says. */
void cm_send_timeout(struct cm_id_priv *priv, enum ib_cm_state state,
		     __be16 attr_id)
{
	enum ib_cm_event_type type;
	struct cm_event_elem *elem;

	switch (state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		type = IB_CM_REQ_ERROR;
		break;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		type = IB_CM_REP_ERROR;
		break;
	case IB_CM_DREQ_SENT:
		type = IB_CM_DREQ_ERROR;
		break;
	case IB_CM_SIDR_REQ_SENT:
		type = IB_CM_SIDR_REQ_ERROR;
		break;
	default:
		return;
	}
	elem = cm_event_alloc(type, GFP_KERNEL);
	spin_lock(&priv->lock);
	if (priv->id.state != state || priv->destroying) {
		spin_unlock(&priv->lock);
		kfree(elem);
		return;
	}
	if (type == IB_CM_DREQ_ERROR)
		cm_enter_timewait(priv);
	else
		priv->id.state = IB_CM_IDLE;
	/*
	 * The state moved on: the consumer must hear it even with no
	 * memory for an event (in-tree delivers a timeout from the stack),
	 * or its connect or disconnect would wait forever.
	 */
	if (!elem)
		cm_notify_timeout_locked(priv, type);
	spin_unlock(&priv->lock);
	if (type != IB_CM_DREQ_ERROR)
		cm_unlink_remote(priv);
	if (elem) {
		elem->ev.param.send_status = IB_WC_RESP_TIMEOUT_ERR;
		cm_queue_event(priv, elem);
	}
}
EXPORT_SYMBOL_IF_KUNIT(cm_send_timeout);

/* Dispatch one parsed MAD. */
void cm_recv_msg(struct cm_port *port, struct ib_mad_recv_wc *wc,
		 struct cm_msg *msg)
{
	switch (be16_to_cpu(msg->attr_id)) {
	case 0x10:
		cm_recv_req(port, wc, msg);
		break;
	case 0x11:
		cm_recv_mra(port, msg);
		break;
	case 0x12:
		cm_recv_rej(port, msg);
		break;
	case 0x13:
		cm_recv_rep(port, msg);
		break;
	case 0x14:
		cm_recv_rtu(port, msg);
		break;
	case 0x15:
		cm_recv_dreq(port, wc, msg);
		break;
	case 0x16:
		cm_recv_drep(port, msg);
		break;
	case 0x17:
		cm_recv_sidr_req(port, wc, msg);
		break;
	case 0x18:
		cm_recv_sidr_rep(port, msg);
		break;
	case 0x19:
		cm_recv_lap(port, wc, msg);
		break;
	default:	/* APR: we never send a LAP */
		cm_count(CM_CNT_RX_LAP_APR);
		break;
	}
}

/**
 * cm_recv_buf - parse, validate and dispatch one received CM MAD
 * @port: the port it came in on
 * @wc: its receive completion (NULL only for MADs that cannot need it:
 *	the bad-input test feeds malformed MADs and unknown comm ids here)
 * @buf: the MAD
 * @len: its length
 *
 * Whatever is dropped is counted (debugfs ib_cm/counters).
 */
void cm_recv_buf(struct cm_port *port, struct ib_mad_recv_wc *wc,
		 const void *buf, size_t len)
{
	struct cm_msg *msg;
	int ret;

	cm_count(CM_CNT_RX);
	/* Counted per message type whatever becomes of it, as in-tree. */
	if (buf && len >= sizeof(struct ib_mad_hdr))
		cm_port_count(port, CM_GRP_RX,
			      ((const struct ib_mad_hdr *)buf)->attr_id, 1);
	msg = kmalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg) {
		cm_count(CM_CNT_RX_NOMEM);
		return;
	}
	ret = cm_msg_parse(buf, len, msg);
	if (ret == -ENOMSG) {
		cm_count(CM_CNT_RX_UNKNOWN_ATTR);
	} else if (ret) {
		cm_count(CM_CNT_RX_MALFORMED);
		pr_debug("dropped a malformed %s: %d\n",
			 cm_attr_name(msg->attr_id), ret);
	} else {
		cm_recv_msg(port, wc, msg);
	}
	kfree(msg);
}
EXPORT_SYMBOL_IF_KUNIT(cm_recv_buf);

void cm_recv_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_buf *send_buf,
		     struct ib_mad_recv_wc *recv_wc)
{
	cm_recv_buf(agent->context, recv_wc, recv_wc->recv_buf.mad,
		    recv_wc->mad_len);
	ib_free_recv_mad(recv_wc);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_cm ids: allocation, references, the id tables (local comm ids,
 * remote comm ids, remote QPNs), event delivery to the user's cm_handler
 * and destruction from any state.
 *
 * Events are queued on the id and delivered by its work item on cm.wq:
 * one handler call at a time per id, in order. A handler that returns
 * non-zero has its id destroyed right after it returns. ib_destroy_cm_id()
 * sends what the protocol asks for in the id's state (REJ, DREQ, DREP,
 * SIDR_REP), stops event delivery, waits for a handler in flight and for
 * the last reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <kunit/visibility.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "cm_priv.h"

static void cm_work_handler(struct work_struct *work);
static void cm_timewait_handler(struct work_struct *work);

struct cm_id_priv *cm_id_alloc(struct ib_device *device,
			       ib_cm_handler handler, void *context)
{
	struct cm_id_priv *priv;
	u32 index;
	int ret;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	priv->cm_dev = cm_device_get_by_ib(device);
	if (!priv->cm_dev) {
		kfree(priv);
		return ERR_PTR(-ENODEV);
	}
	priv->id.device = device;
	priv->id.cm_handler = handler;
	priv->id.context = context;
	priv->id.state = IB_CM_IDLE;
	priv->id.remote_cm_qpn = 1;
	refcount_set(&priv->refcount, 1);
	init_completion(&priv->done);
	spin_lock_init(&priv->lock);
	INIT_LIST_HEAD(&priv->events);
	INIT_LIST_HEAD(&priv->listen_entry);
	INIT_LIST_HEAD(&priv->old_avs);
	INIT_LIST_HEAD(&priv->pace_entry);
	INIT_WORK(&priv->work, cm_work_handler);
	INIT_DELAYED_WORK(&priv->timewait_work, cm_timewait_handler);

	ret = xa_alloc_cyclic(&cm.local_ids, &index, priv, xa_limit_32b,
			      &cm.local_id_next, GFP_KERNEL);
	if (ret < 0) {
		cm_device_put(priv->cm_dev);
		kfree(priv);
		return ERR_PTR(ret);
	}
	priv->local_index = index;
	atomic_long_inc(&cm.nr_ids);
	priv->id.local_id = cpu_to_be32(index ^ cm.local_id_xor);
	return priv;
}

void cm_get(struct cm_id_priv *priv)
{
	refcount_inc(&priv->refcount);
}

static void cm_release(struct cm_id_priv *priv)
{
	cm_alt_release(priv);
	if (priv->mad_ah)
		rdma_destroy_ah(priv->mad_ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (priv->has_av)
		rdma_destroy_ah_attr(&priv->ah_attr);
	kfree(priv->last_mad);
	kfree(priv->lap_mra);
	kfree(priv->paced_req);
	cm_device_put(priv->cm_dev);
	kfree(priv);
	atomic_long_dec(&cm.nr_ids);
}

/* Process context: the last put may destroy an AH. */
void cm_put(struct cm_id_priv *priv)
{
	if (!refcount_dec_and_test(&priv->refcount))
		return;
	if (priv->free_on_last_put)
		cm_release(priv);
	else
		complete(&priv->done);
}
EXPORT_SYMBOL_IF_KUNIT(cm_put);

/* A reference on the id whose local comm id is @local_id, or NULL. */
struct cm_id_priv *cm_lookup_local(__be32 local_id)
{
	struct cm_id_priv *priv;

	spin_lock(&cm.lock);
	priv = xa_load(&cm.local_ids, be32_to_cpu(local_id) ^ cm.local_id_xor);
	if (priv && priv->id.local_id == local_id)
		cm_get(priv);
	else
		priv = NULL;
	spin_unlock(&cm.lock);
	return priv;
}

static u32 cm_remote_key(u32 a, __be64 guid)
{
	return jhash_3words(a, (u32)be64_to_cpu(guid),
			    (u32)(be64_to_cpu(guid) >> 32), 0);
}

/* A reference on the id connected to (@remote_id, @guid), or NULL. */
struct cm_id_priv *cm_lookup_remote(__be32 remote_id, __be64 guid)
{
	u32 key = cm_remote_key((__force u32)remote_id, guid);
	struct cm_id_priv *priv;

	spin_lock(&cm.lock);
	hash_for_each_possible(cm.remote_ids, priv, remote_id_node, key) {
		if (priv->id.remote_id == remote_id &&
		    priv->remote_ca_guid == guid) {
			cm_get(priv);
			spin_unlock(&cm.lock);
			return priv;
		}
	}
	spin_unlock(&cm.lock);
	return NULL;
}

/*
 * Enter @priv under (id.remote_id, remote_ca_guid). Return NULL, or a
 * reference on the id already there (a duplicate request).
 */
struct cm_id_priv *cm_insert_remote_id(struct cm_id_priv *priv)
{
	u32 key = cm_remote_key((__force u32)priv->id.remote_id,
				priv->remote_ca_guid);
	struct cm_id_priv *cur;

	/* Not once cm_destroy() has unlinked it: it would stay behind. */
	spin_lock(&priv->lock);
	if (priv->destroying) {
		spin_unlock(&priv->lock);
		return NULL;
	}
	spin_lock(&cm.lock);
	hash_for_each_possible(cm.remote_ids, cur, remote_id_node, key) {
		if (cur->id.remote_id == priv->id.remote_id &&
		    cur->remote_ca_guid == priv->remote_ca_guid) {
			cm_get(cur);
			spin_unlock(&cm.lock);
			spin_unlock(&priv->lock);
			return cur;
		}
	}
	hash_add(cm.remote_ids, &priv->remote_id_node, key);
	priv->in_remote_ids = true;
	spin_unlock(&cm.lock);
	spin_unlock(&priv->lock);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(cm_insert_remote_id);

/*
 * Enter @priv under (remote_qpn, remote_ca_guid): a QP is in one
 * connection at a time. Return NULL, or a reference on the id that
 * already holds that remote QP (the new connection is stale).
 */
struct cm_id_priv *cm_insert_remote_qpn(struct cm_id_priv *priv)
{
	u32 key = cm_remote_key(priv->remote_qpn, priv->remote_ca_guid);
	struct cm_id_priv *cur;

	spin_lock(&priv->lock);
	if (priv->destroying) {
		spin_unlock(&priv->lock);
		return NULL;
	}
	spin_lock(&cm.lock);
	hash_for_each_possible(cm.remote_qpns, cur, remote_qpn_node, key) {
		if (cur->remote_qpn == priv->remote_qpn &&
		    cur->remote_ca_guid == priv->remote_ca_guid) {
			cm_get(cur);
			spin_unlock(&cm.lock);
			spin_unlock(&priv->lock);
			return cur;
		}
	}
	hash_add(cm.remote_qpns, &priv->remote_qpn_node, key);
	priv->in_remote_qpns = true;
	spin_unlock(&cm.lock);
	spin_unlock(&priv->lock);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(cm_insert_remote_qpn);

void cm_unlink_remote(struct cm_id_priv *priv)
{
	spin_lock(&cm.lock);
	if (priv->in_remote_ids) {
		hash_del(&priv->remote_id_node);
		priv->in_remote_ids = false;
	}
	if (priv->in_remote_qpns) {
		hash_del(&priv->remote_qpn_node);
		priv->in_remote_qpns = false;
	}
	spin_unlock(&cm.lock);
}

struct cm_event_elem *cm_event_alloc(enum ib_cm_event_type type, gfp_t gfp)
{
	struct cm_event_elem *elem = kzalloc(sizeof(*elem), gfp);

	if (elem)
		elem->ev.event = type;
	return elem;
}

void cm_event_free(struct cm_event_elem *elem)
{
	if (elem->listen)
		cm_put(elem->listen);
	kfree(elem);
}

/* Run the id's work item (its events and notify flags), holding a reference. */
static void cm_kick(struct cm_id_priv *priv)
{
	cm_get(priv);
	if (!queue_work(cm.wq, &priv->work))
		cm_put(priv);
}

/* Hand @elem to the id's handler (or drop it once the id is going away). */
void cm_queue_event(struct cm_id_priv *priv, struct cm_event_elem *elem)
{
	bool drop;

	spin_lock(&priv->lock);
	drop = priv->destroying;
	if (!drop)
		list_add_tail(&elem->entry, &priv->events);
	spin_unlock(&priv->lock);
	if (drop) {
		cm_event_free(elem);
		return;
	}
	cm_kick(priv);
}

/**
 * cm_notify_timeout_locked - deliver @type (a REQ, REP, DREQ or SIDR_REQ
 *	error) without an event allocation
 * @priv: the id, locked
 * @type: the event
 *
 * For a state change the consumer must hear of even when there is no
 * memory for an event: a send that timed out with none, and a DREQ that
 * could not be sent at all (the peer hears no more of it than of a DREQ
 * lost on the wire, and the consumer's disconnect must end). The id's work
 * delivers it from the stack once the events queued before it are out.
 */
void cm_notify_timeout_locked(struct cm_id_priv *priv,
			      enum ib_cm_event_type type)
{
	lockdep_assert_held(&priv->lock);
	priv->timeout_type = type;
	set_bit(CM_FLAG_NOTIFY_TIMEOUT, &priv->flags);
	cm_kick(priv);
}

/*
 * An event needing no private data, delivered from the stack (an error
 * of cm_notify_timeout_locked(), or the end of timewait), unless the id
 * is going away. Returns the handler's verdict.
 */
static int cm_deliver_bare(struct cm_id_priv *priv, bool timewait)
{
	struct ib_cm_event ev = {};
	bool destroying;

	spin_lock(&priv->lock);
	destroying = priv->destroying;
	if (timewait) {
		ev.event = IB_CM_TIMEWAIT_EXIT;
	} else {
		ev.event = priv->timeout_type;
		ev.param.send_status = IB_WC_RESP_TIMEOUT_ERR;
	}
	spin_unlock(&priv->lock);
	if (destroying)
		return 0;
	return priv->id.cm_handler(&priv->id, &ev);
}

static void cm_work_handler(struct work_struct *work)
{
	struct cm_id_priv *priv = container_of(work, struct cm_id_priv, work);
	struct cm_event_elem *elem;
	int ret;

	for (;;) {
		if (test_and_clear_bit(CM_FLAG_NOTIFY_EST, &priv->flags))
			cm_establish(priv);
		if (test_and_clear_bit(CM_FLAG_NOTIFY_MIG, &priv->flags))
			cm_migrate(priv);
		spin_lock(&priv->lock);
		elem = list_first_entry_or_null(&priv->events,
						struct cm_event_elem, entry);
		if (elem && !priv->destroying)
			list_del(&elem->entry);
		else
			elem = NULL;
		spin_unlock(&priv->lock);
		if (!elem) {
			/* A DREQ's error comes before its timewait's end. */
			if (test_and_clear_bit(CM_FLAG_NOTIFY_TIMEOUT,
					       &priv->flags))
				ret = cm_deliver_bare(priv, false);
			else if (test_and_clear_bit(CM_FLAG_NOTIFY_TIMEWAIT,
						    &priv->flags))
				ret = cm_deliver_bare(priv, true);
			else
				break;
			if (ret) {
				cm_destroy(priv, true);
				break;
			}
			continue;
		}
		if (elem->listen && elem->ev.event == IB_CM_SIDR_REQ_RECEIVED)
			elem->ev.param.sidr_req_rcvd.listen_id =
				&elem->listen->id;
		else if (elem->listen)
			elem->ev.param.req_rcvd.listen_id = &elem->listen->id;
		ret = priv->id.cm_handler(&priv->id, &elem->ev);
		cm_event_free(elem);
		if (ret) {
			cm_destroy(priv, true);
			break;
		}
	}
	cm_put(priv);
}

/*
 * The send waiting for an answer is answered or moot: stop its retries.
 * Cancelled, it is forgotten, so that its completion (the cancel's flush)
 * is no timeout. ib_mad finds only a send that waits for its timeout: one
 * on the QP just now (its first post, a resend) is kept, marked, so that
 * the next cancel (a new send, timewait, the destroy) tries again, and its
 * completion is no timeout either.
 */
void cm_cancel_msg(struct cm_id_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	if (!priv->msg)
		return;
	if (ib_modify_mad(priv->msg, 0)) {
		priv->msg_cancelled = true;
		return;
	}
	priv->msg = NULL;
	priv->msg_stale = false;
	priv->msg_cancelled = false;
}

/*
 * The QP's local ACK timeout, as in-tree, whose timewait is its address
 * vector's timeout: the packet life time + 1 of the path (the passive side:
 * the REQ's local ACK timeout), the ACK timeout with the REP's target ACK
 * delay on the active side once the REP came.
 */
static unsigned int cm_timewait_ms(struct cm_id_priv *priv)
{
	return cm_time_ms(priv->local_ack_timeout);
}

/*
 * Enter TIMEWAIT: IB_CM_TIMEWAIT_EXIT follows when it has elapsed. The
 * connection gives up its remote comm id and remote QP at once, as in-tree:
 * a peer that reuses that QP number (a re-created device starts its QPNs
 * again) may connect again during our timewait; only a live connection
 * makes its REQ stale.
 */
void cm_enter_timewait(struct cm_id_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	cm_cancel_msg(priv);
	cm_unlink_remote(priv);
	priv->id.state = IB_CM_TIMEWAIT;
	cm_get(priv);
	if (!mod_delayed_work(cm.wq, &priv->timewait_work,
			      msecs_to_jiffies(cm_timewait_ms(priv))))
		return;
	/* It was pending already and keeps its reference. */
	refcount_dec(&priv->refcount);
}

static void cm_timewait_handler(struct work_struct *work)
{
	struct cm_id_priv *priv = container_of(to_delayed_work(work),
					       struct cm_id_priv,
					       timewait_work);
	bool ended = false;

	/*
	 * The end of timewait needs no memory (as in-tree, whose work for it
	 * exists from the start): a consumer that releases its resources on
	 * TIMEWAIT_EXIT (ib_srpt, ipoib's CM) must not lose it.
	 */
	spin_lock(&priv->lock);
	if (priv->id.state == IB_CM_TIMEWAIT && !priv->destroying) {
		priv->id.state = IB_CM_IDLE;
		set_bit(CM_FLAG_NOTIFY_TIMEWAIT, &priv->flags);
		ended = true;
	}
	spin_unlock(&priv->lock);
	cm_unlink_remote(priv);
	if (ended)
		cm_kick(priv);
	cm_put(priv);
}

/* What the protocol asks for when the user lets go of an id in its state. */
static void cm_destroy_protocol(struct cm_id_priv *priv)
{
	struct ib_cm_sidr_rep_param sidr = { .status = IB_SIDR_REJECT };
	__be64 guid = priv->cm_dev->ca_guid;

	lockdep_assert_held(&priv->lock);
	switch (priv->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		if (priv->paced_req)	/* still waiting: the peer never saw it */
			break;
		cm_cancel_msg(priv);
		cm_send_rej_locked(priv, IB_CM_REJ_TIMEOUT, &guid,
				   sizeof(guid), NULL, 0);
		break;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(priv);
		cm_send_rej_locked(priv, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				   NULL, 0);
		break;
	case IB_CM_ESTABLISHED:
		cm_send_dreq_locked(priv, NULL, 0, false);
		break;
	case IB_CM_DREQ_RCVD:
		cm_send_drep_locked(priv, NULL, 0);
		break;
	case IB_CM_SIDR_REQ_RCVD:
		cm_send_sidr_rep_locked(priv, &sidr);
		break;
	default:
		cm_cancel_msg(priv);
		break;
	}
	cm_cancel_msg(priv);
	priv->id.state = IB_CM_IDLE;
}

/**
 * cm_destroy - let go of the user's reference on an id
 * @priv: the id
 * @from_handler: called from the id's own work item (its handler returned
 *	non-zero), or for an id no handler has seen (cm_discard_new()): the
 *	id is freed by its last reference, not waited for
 */
void cm_destroy(struct cm_id_priv *priv, bool from_handler)
{
	struct cm_event_elem *elem, *tmp;
	LIST_HEAD(events);

	/*
	 * A shared listener goes when its last user lets go; it leaves the
	 * list under the same lock, so ib_cm_insert_listen() cannot pick it
	 * up on its way out.
	 */
	spin_lock(&cm.lock);
	if (priv->listening) {
		if (priv->listen_sharecount > 1) {
			priv->listen_sharecount--;
			spin_unlock(&cm.lock);
			return;
		}
		list_del_init(&priv->listen_entry);
		priv->listening = false;
	}
	spin_unlock(&cm.lock);

	spin_lock(&priv->lock);
	priv->destroying = true;
	cm_destroy_protocol(priv);
	list_splice_init(&priv->events, &events);
	spin_unlock(&priv->lock);
	cm_pace_forget(priv);

	spin_lock(&cm.lock);
	xa_erase(&cm.local_ids, priv->local_index);
	spin_unlock(&cm.lock);
	cm_unlink_remote(priv);
	if (cancel_delayed_work_sync(&priv->timewait_work))
		cm_put(priv);
	/*
	 * A queued work item gives its reference back here; one that is
	 * running keeps it until its handler call returns, and the wait for
	 * @done below waits for that. No flush: the work items of all ids
	 * are one lockdep class, so flushing would make every lock our
	 * caller holds depend on every id's handler, and handlers take locks
	 * (IPoIB-CM destroys its ids on a workqueue it destroys under RTNL;
	 * rdma_cm's listen handler takes ib_core's client_data_rwsem, under
	 * which IPoIB registers its netdevs).
	 */
	if (!from_handler && cancel_work(&priv->work))
		cm_put(priv);
	list_for_each_entry_safe(elem, tmp, &events, entry)
		cm_event_free(elem);

	if (from_handler) {
		priv->free_on_last_put = true;
		cm_put(priv);
		return;
	}
	cm_put(priv);
	wait_for_completion(&priv->done);
	cm_release(priv);
}

/**
 * cm_discard_new - take down an id the receive path made and never exposed
 * @priv: the id; no handler has seen it, no work of its is queued
 *
 * Called from the MAD layer's receive context, which is also the context
 * that completes the id's sends: so it never waits. The id goes idle without
 * protocol traffic and is freed by its last reference, whenever a send of
 * its completes.
 */
void cm_discard_new(struct cm_id_priv *priv)
{
	spin_lock(&priv->lock);
	priv->id.state = IB_CM_IDLE;
	spin_unlock(&priv->lock);
	cm_destroy(priv, true);
}

/**
 * ib_create_cm_id - allocate a communication identifier
 * @device: the device all its communication goes through
 * @cm_handler: called with each event of the id
 * @context: user context, in cm_id->context
 *
 * Return: the id, or ERR_PTR(-ENODEV) for a device without an IB CM
 * port, ERR_PTR(-ENOMEM).
 */
struct ib_cm_id *ib_create_cm_id(struct ib_device *device,
				 ib_cm_handler cm_handler,
				 void *context)
{
	struct cm_id_priv *priv = cm_id_alloc(device, cm_handler, context);

	return IS_ERR(priv) ? ERR_CAST(priv) : &priv->id;
}
EXPORT_SYMBOL(ib_create_cm_id);

/**
 * ib_destroy_cm_id - destroy a communication identifier
 * @cm_id: the id; not from inside its own handler (return non-zero there)
 *
 * Sends what the protocol requires in the id's state, then waits for a
 * handler call in flight and for the id's last reference.
 */
void ib_destroy_cm_id(struct ib_cm_id *cm_id)
{
	cm_destroy(to_priv(cm_id), false);
}
EXPORT_SYMBOL(ib_destroy_cm_id);

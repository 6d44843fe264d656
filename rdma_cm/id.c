// SPDX-License-Identifier: GPL-2.0
/*
 * Id lifecycle: allocation, references, state changes, event delivery and
 * destruction.
 *
 * An id holds one reference for itself (dropped by destroy) plus one for
 * every piece of asynchronous work in flight (event work, address
 * resolution). Destroy waits for the count to reach zero before it frees.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "cma_priv.h"
#include "ib.h"
#include "mcast.h"
#include "ps.h"
#include "trace.h"

bool cma_comp_exch(struct rdma_id_private *id_priv, enum rdma_cm_state comp,
		   enum rdma_cm_state exch)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&id_priv->lock, flags);
	ok = id_priv->state == comp;
	if (ok)
		WRITE_ONCE(id_priv->state, exch);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ok;
}

enum rdma_cm_state cma_exch(struct rdma_id_private *id_priv,
			    enum rdma_cm_state exch)
{
	enum rdma_cm_state old;
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	old = id_priv->state;
	WRITE_ONCE(id_priv->state, exch);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return old;
}

enum rdma_cm_state cma_state(struct rdma_id_private *id_priv)
{
	return READ_ONCE(id_priv->state);
}
EXPORT_SYMBOL_IF_KUNIT(cma_state);

void cma_id_get(struct rdma_id_private *id_priv)
{
	refcount_inc(&id_priv->refcount);
}

void cma_id_put(struct rdma_id_private *id_priv)
{
	if (refcount_dec_and_test(&id_priv->refcount))
		complete(&id_priv->comp);
}

static void cma_work_handler(struct work_struct *work);

/*
 * Lockdep: a listening id's handler_mutex is taken before the handler_mutex
 * of an id its requests create (cma_iw_conn_request(), cma_ib_req()), never
 * after. Listeners get a class of their own, so that a consumer that takes
 * one of its locks in a connection's handler and destroys a listener under
 * that lock (nvmet: nvmet_config_sem) is not reported as a cycle: none can
 * close, as a connection's handler never waits for a listener.
 */
#ifdef CONFIG_LOCKDEP
static struct lock_class_key cma_listen_handler_key;
#endif

void cma_lockdep_listener(struct rdma_id_private *id_priv)
{
#ifdef CONFIG_LOCKDEP
	/* Re-keying a held lock would confuse lockdep: only an idle one. */
	if (!lockdep_is_held(&id_priv->handler_mutex))
		lockdep_set_class(&id_priv->handler_mutex,
				  &cma_listen_handler_key);
#endif
}

struct rdma_id_private *cma_id_alloc(struct net *net,
				     rdma_cm_event_handler event_handler,
				     void *context,
				     enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type,
				     struct rdma_id_private *parent)
{
	struct rdma_id_private *id_priv;

	id_priv = kzalloc(sizeof(*id_priv), GFP_KERNEL);
	if (!id_priv)
		return NULL;

	id_priv->id.context = context;
	id_priv->id.event_handler = event_handler;
	id_priv->id.ps = ps;
	id_priv->id.qp_type = qp_type;
	id_priv->id.route.addr.dev_addr.net = get_net(net);
	id_priv->state = RDMA_CM_IDLE;
	id_priv->tos_set = false;
	id_priv->timeout_set = false;
	id_priv->min_rnr_timer_set = false;
	id_priv->gid_type = IB_GID_TYPE_IB;
	/* The starting PSN of its connections: 24 bits. */
	id_priv->seq_num = get_random_u32() & 0xffffff;
	spin_lock_init(&id_priv->lock);
	mutex_init(&id_priv->qp_mutex);
	mutex_init(&id_priv->handler_mutex);
	init_completion(&id_priv->comp);
	refcount_set(&id_priv->refcount, 1);
	INIT_LIST_HEAD(&id_priv->device_item);
	INIT_LIST_HEAD(&id_priv->listen_list);
	INIT_LIST_HEAD(&id_priv->id_list_entry);
	INIT_LIST_HEAD(&id_priv->mc_list);
	spin_lock_init(&id_priv->mc_lock);
	INIT_WORK(&id_priv->work, cma_work_handler);
	cma_track_init_id(id_priv);
	rdma_restrack_new(&id_priv->res, RDMA_RESTRACK_CM_ID);
	if (parent) {
		id_priv->afonly = parent->afonly;
		mutex_lock(&parent->qp_mutex);
		id_priv->tos = parent->tos;
		id_priv->tos_set = parent->tos_set;
		id_priv->timeout = parent->timeout;
		id_priv->timeout_set = parent->timeout_set;
		id_priv->min_rnr_timer = parent->min_rnr_timer;
		id_priv->min_rnr_timer_set = parent->min_rnr_timer_set;
		mutex_unlock(&parent->qp_mutex);
		rdma_restrack_parent_name(&id_priv->res, &parent->res);
	}
	cma_ids_inc();
	return id_priv;
}

struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller)
{
	struct rdma_id_private *id_priv;

	id_priv = cma_id_alloc(net, event_handler, context, ps, qp_type, NULL);
	if (!id_priv)
		return ERR_PTR(-ENOMEM);
	rdma_restrack_set_name(&id_priv->res, caller);
	return &id_priv->id;
}
EXPORT_SYMBOL(__rdma_create_kernel_id);

struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	struct rdma_id_private *id_priv;

	id_priv = cma_id_alloc(current->nsproxy->net_ns, event_handler,
			       context, ps, qp_type, NULL);
	if (!id_priv)
		return ERR_PTR(-ENOMEM);
	rdma_restrack_set_name(&id_priv->res, NULL);
	return &id_priv->id;
}
EXPORT_SYMBOL(rdma_create_user_id);

/*
 * Calls the consumer's handler. The caller holds handler_mutex and has
 * checked that the id is not being destroyed. A non-zero return tells the
 * caller to destroy the id; so does a handler that called rdma_destroy_id()
 * on its own id (see there).
 */
int cma_deliver(struct rdma_id_private *id_priv, struct rdma_cm_event *ev)
{
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	trace_cm_event_handler(id_priv, ev);
	WRITE_ONCE(id_priv->handler_task, current);
	ret = id_priv->id.event_handler(&id_priv->id, ev);
	WRITE_ONCE(id_priv->handler_task, NULL);
	trace_cm_event_done(id_priv, ev, ret);
	WARN_ON_ONCE(ret && id_priv->internal_id);
	if (id_priv->destroy_in_handler && !ret)
		ret = -ECONNABORTED;
	return ret;
}

/*
 * The work behind cma_queue_event(): moves the id from work_old to
 * work_new and, if that succeeded, delivers work_event. A non-zero return
 * from the consumer destroys the id, as for every event.
 */
static void cma_work_handler(struct work_struct *work)
{
	struct rdma_id_private *id_priv =
		container_of(work, struct rdma_id_private, work);
	enum rdma_cm_state old = id_priv->work_old, new = id_priv->work_new;
	struct rdma_cm_event ev = id_priv->work_event;

	/*
	 * Copied before the state moves: the next step's event may be
	 * queued as soon as it has (the consumer resolving the route from
	 * this handler, an SA answer), and rewrites these fields while the
	 * handler still reads its event.
	 */
	mutex_lock(&id_priv->handler_mutex);
	if (!cma_comp_exch(id_priv, old, new))
		goto out_unlock;
	if (cma_deliver(id_priv, &ev)) {
		cma_id_put(id_priv);	/* the work's; the id's own remains */
		cma_destroy_handler_locked(id_priv);
		return;
	}
out_unlock:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

/*
 * Deliver @ev from process context after the state moves from @old to @new.
 * At most one such event is outstanding per id: it is only used for steps
 * the consumer starts one at a time (AF_IB address and route resolution),
 * and the next is queued only once the state has moved, maybe while the
 * previous event's handler still runs (cma_work_handler() copies first).
 */
void cma_queue_event(struct rdma_id_private *id_priv,
		     enum rdma_cm_state old, enum rdma_cm_state new,
		     const struct rdma_cm_event *ev)
{
	id_priv->work_old = old;
	id_priv->work_new = new;
	id_priv->work_event = *ev;
	cma_id_get(id_priv);
	if (!queue_work(cma_wq, &id_priv->work))
		cma_id_put(id_priv);
}

static void cma_release(struct rdma_id_private *id_priv,
			enum rdma_cm_state old_state)
{
	cma_resolve_stop(id_priv);
	if (old_state == RDMA_CM_LISTEN)
		cma_cancel_listens(id_priv);
	cma_mc_leave_all(id_priv);
	/*
	 * A path query in flight (its waiter holds a reference), whatever
	 * the state: DEVICE_REMOVAL may have replaced ROUTE_QUERY, and the
	 * removal waits for this destroy, which would otherwise wait for the
	 * SA's answer or the route timeout the consumer chose. A no-op for
	 * an id that waits for none (path_cache.c reads under its lock).
	 */
	cma_ib_cancel_route(id_priv);

	/* Not from a handler of that cm_id: both calls wait for them. */
	if (cma_has_ib_cm(id_priv))
		ib_destroy_cm_id(id_priv->cm_id.ib);
	else if (cma_has_iw_cm(id_priv))
		iw_destroy_cm_id(id_priv->cm_id.iw);
	id_priv->cm_id.iw = NULL;

	/*
	 * Off the device's id list and the tracking index while the id's
	 * own reference still stands: cma_remove_one() and the network
	 * notifiers take references only on listed ids.
	 */
	cma_unlink_dev(id_priv);
	cma_track_unlink(id_priv);
	/* Drop the id's own reference and wait out work in flight. */
	cma_id_put(id_priv);
	wait_for_completion(&id_priv->comp);

	cma_ps_unbind(id_priv);
	rdma_restrack_del(&id_priv->res);
	cma_detach_dev(id_priv);
	if (id_priv->parent)
		cma_id_put(id_priv->parent);
	if (id_priv->id.route.addr.dev_addr.sgid_attr)
		rdma_put_gid_attr(id_priv->id.route.addr.dev_addr.sgid_attr);
	kfree(id_priv->id.route.path_rec);
	kfree(id_priv->id.route.path_rec_inbound);
	kfree(id_priv->id.route.path_rec_outbound);
	put_net(cma_net(id_priv));
	kfree(id_priv);
	cma_ids_dec();
}

/*
 * Replace the id's source GID table reference by @attr (may be NULL), whose
 * reference the id takes over; cma_release() drops the last one.
 */
void cma_set_sgid_attr(struct rdma_id_private *id_priv,
		       const struct ib_gid_attr *attr)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

	if (dev_addr->sgid_attr)
		rdma_put_gid_attr(dev_addr->sgid_attr);
	dev_addr->sgid_attr = attr;
}

/*
 * Destroy an id whose handler_mutex the caller holds (a consumer handler
 * returned non-zero, or rdma_destroy_id()). Marking the id DESTROYING under
 * handler_mutex guarantees that no handler runs now and none starts later.
 */
void cma_destroy_handler_locked(struct rdma_id_private *id_priv)
{
	enum rdma_cm_state old_state;

	lockdep_assert_held(&id_priv->handler_mutex);
	old_state = cma_exch(id_priv, RDMA_CM_DESTROYING);
	mutex_unlock(&id_priv->handler_mutex);
	trace_cm_id_destroy(id_priv);
	cma_release(id_priv, old_state);
}

/*
 * The handler of @id may not destroy @id (it returns non-zero instead), and
 * in-tree deadlocks on its own handler_mutex when one does. rdma_ucm does,
 * when it cannot allocate the CONNECT_REQUEST event of a new id
 * (ucma_connect_event_handler()): a failed kmalloc hung the CM for good.
 * Ours marks the id and lets the delivery destroy it once the handler
 * returns, exactly once, as for a non-zero return; the caller must not
 * touch @id again either way. handler_task is only ever equal to current
 * in the task that set it, so the unlocked read cannot match by a race.
 */
void rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (READ_ONCE(id_priv->handler_task) == current) {
		lockdep_assert_held(&id_priv->handler_mutex);
		id_priv->destroy_in_handler = true;
		return;
	}
	mutex_lock(&id_priv->handler_mutex);
	cma_destroy_handler_locked(id_priv);
}
EXPORT_SYMBOL(rdma_destroy_id);

void rdma_lock_handler(struct rdma_cm_id *id)
{
	mutex_lock(&to_id_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_lock_handler);

void rdma_unlock_handler(struct rdma_cm_id *id)
{
	mutex_unlock(&to_id_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_unlock_handler);

struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res)
{
	return &container_of(res, struct rdma_id_private, res)->id;
}
EXPORT_SYMBOL(rdma_res_to_id);

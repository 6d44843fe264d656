// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: ids, their references, their event pool, destroy.
 *
 * Lifetime: an id is freed when its last reference goes (see the comment
 * on iwcm_id_priv.refcount). iw_destroy_cm_id() drops only the user's
 * reference, so the memory outlives it while the provider still holds
 * add_ref()s or events are still queued; from then on the id only
 * finishes its provider business and never calls the cm_handler again.
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
#include <linux/sched.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "iwcm.h"
#include "iwpm.h"

static bool iwcm_elem_inline(struct iwcm_id_priv *priv,
			     struct iwcm_elem *elem)
{
	return elem >= priv->inline_elems &&
	       elem < priv->inline_elems + IWCM_INLINE_ELEMS;
}

/* An element of the id's own, if one is left; counted. Lock held. */
static struct iwcm_elem *iwcm_elem_take_inline(struct iwcm_id_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	if (priv->inline_used == IWCM_INLINE_ELEMS)
		return NULL;
	priv->nr_elems++;
	return &priv->inline_elems[priv->inline_used++];
}

static void iwcm_free(struct iwcm_id_priv *priv)
{
	struct iwcm_elem *elem, *tmp;

	WARN_ON_ONCE(!list_empty(&priv->pending));
	list_for_each_entry_safe(elem, tmp, &priv->free_elems, entry) {
		list_del(&elem->entry);
		if (!iwcm_elem_inline(priv, elem))
			kfree(elem);
	}
	kfree(priv->reply_pd);
	iwcm_host_put_net(priv);
	mutex_destroy(&priv->track_mutex);
	kfree(priv);
}

void iwcm_get(struct iwcm_id_priv *priv)
{
	refcount_inc(&priv->refcount);
}

/* Any context: the final free only calls kfree(). */
void iwcm_put(struct iwcm_id_priv *priv)
{
	if (refcount_dec_and_test(&priv->refcount))
		iwcm_free(priv);
}

/* iw_cm_id.add_ref/rem_ref: the provider pins the id while it may upcall. */
static void iwcm_provider_add_ref(struct iw_cm_id *id)
{
	iwcm_get(to_iwcm(id));
}

static void iwcm_provider_rem_ref(struct iw_cm_id *id)
{
	iwcm_put(to_iwcm(id));
}

struct iwcm_id_priv *iwcm_alloc_id(struct ib_device *device,
				   iw_cm_handler cm_handler, void *context,
				   gfp_t gfp)
{
	struct iwcm_id_priv *priv;

	priv = kzalloc(sizeof(*priv), gfp);
	if (!priv)
		return NULL;
	priv->id.device = device;
	priv->id.cm_handler = cm_handler;
	priv->id.context = context;
	priv->id.event_handler = iwcm_provider_event;
	priv->id.add_ref = iwcm_provider_add_ref;
	priv->id.rem_ref = iwcm_provider_rem_ref;
	refcount_set(&priv->refcount, 1);
	init_waitqueue_head(&priv->waitq);
	spin_lock_init(&priv->lock);
	priv->state = IWCM_IDLE;
	priv->max_elems = IWCM_CONN_ELEMS_MAX;
	INIT_LIST_HEAD(&priv->pending);
	INIT_LIST_HEAD(&priv->free_elems);
	iwcm_event_init_id(priv);
	iwcm_track_init_id(priv);
	return priv;
}

/**
 * iw_create_cm_id - create an iWARP CM id
 * @device: the RNIC the id will use
 * @cm_handler: called, from iw_cm's workqueue, with each event
 * @context: stored in the id for the caller
 *
 * Return: the new id in state idle, or an ERR_PTR().
 */
struct iw_cm_id *iw_create_cm_id(struct ib_device *device,
				 iw_cm_handler cm_handler, void *context)
{
	struct iwcm_id_priv *priv;

	if (!device || !cm_handler)
		return ERR_PTR(-EINVAL);
	priv = iwcm_alloc_id(device, cm_handler, context, GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	return &priv->id;
}
EXPORT_SYMBOL(iw_create_cm_id);

/*
 * Top the pool up to @nr elements (process context): the id's own
 * elements first, then allocated ones. Elements go back to the pool after
 * their event is processed; allocated ones are freed with the id.
 */
int iwcm_pool_fill(struct iwcm_id_priv *priv, unsigned int nr)
{
	struct iwcm_elem *elem;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&priv->lock, flags);
		if (priv->nr_elems >= nr) {
			spin_unlock_irqrestore(&priv->lock, flags);
			return 0;
		}
		elem = iwcm_elem_take_inline(priv);
		if (elem) {
			list_add(&elem->entry, &priv->free_elems);
			spin_unlock_irqrestore(&priv->lock, flags);
			continue;
		}
		spin_unlock_irqrestore(&priv->lock, flags);

		elem = kzalloc(sizeof(*elem), GFP_KERNEL);
		if (!elem)
			return -ENOMEM;

		spin_lock_irqsave(&priv->lock, flags);
		list_add(&elem->entry, &priv->free_elems);
		priv->nr_elems++;
		spin_unlock_irqrestore(&priv->lock, flags);
	}
}

/*
 * Take an element: from the pool, else GFP_ATOMIC while the id owns fewer
 * than its max_elems; NULL beyond. Caller holds the lock.
 */
struct iwcm_elem *iwcm_pool_get(struct iwcm_id_priv *priv)
{
	struct iwcm_elem *elem;

	lockdep_assert_held(&priv->lock);
	elem = list_first_entry_or_null(&priv->free_elems, struct iwcm_elem,
					entry);
	if (elem) {
		list_del(&elem->entry);
		return elem;
	}
	if (priv->nr_elems >= priv->max_elems) {
		priv->refused++;
		return NULL;
	}
	elem = iwcm_elem_take_inline(priv);
	if (elem)
		return elem;
	elem = kzalloc(sizeof(*elem), GFP_ATOMIC);
	if (elem)
		priv->nr_elems++;
	return elem;
}

/* Give an element back, freeing what its event owned. Any context. */
void iwcm_pool_put(struct iwcm_id_priv *priv, struct iwcm_elem *elem)
{
	unsigned long flags;

	kfree(elem->pd_alloc);
	memset(elem, 0, sizeof(*elem));
	spin_lock_irqsave(&priv->lock, flags);
	list_add(&elem->entry, &priv->free_elems);
	spin_unlock_irqrestore(&priv->lock, flags);
}

/*
 * True when destroy may go on: no cm_handler for this id runs in another
 * task, and no downcall answer is awaited -- unless we are the worker,
 * which must not wait for an answer only it can process.
 */
static bool iwcm_destroy_may_proceed(struct iwcm_id_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	if (priv->handler_task && priv->handler_task != current)
		return false;
	return !priv->in_progress || iwcm_in_worker();
}

/*
 * Release the user's reference: tell the provider what it needs to hear
 * for the state the id is in, drop our QP reference and make sure the
 * cm_handler is never called again. Process context, may sleep: it waits
 * for a cm_handler of this id running in another task, and (outside the
 * worker) for the answer to an outstanding connect or accept, so the
 * caller must not hold a lock its cm_handler takes.
 *
 * @from_worker: the worker destroys the id because its cm_handler asked
 * to; the user may have raced it with iw_destroy_cm_id(), which is fine.
 */
void iwcm_destroy(struct iwcm_id_priv *priv, bool from_worker)
{
	struct ib_device *dev = priv->id.device;
	enum iwcm_state old;
	struct ib_qp *qp;

	spin_lock_irq(&priv->lock);
	if (priv->destroyed) {
		spin_unlock_irq(&priv->lock);
		WARN(!from_worker, "iw_cm: id %p destroyed twice\n", priv);
		return;
	}
	priv->destroyed = true;
	spin_unlock_irq(&priv->lock);
	/* No path callback for the id once its user let it go. */
	iwcm_track_stop(priv);
	spin_lock_irq(&priv->lock);
	wait_event_lock_irq(priv->waitq, iwcm_destroy_may_proceed(priv),
			    priv->lock);
	old = priv->state;
	priv->state = IWCM_DESTROYING;
	qp = priv->qp;
	priv->qp = NULL;
	spin_unlock_irq(&priv->lock);

	switch (old) {
	case IWCM_LISTEN:
		dev->ops.iw_destroy_listen(&priv->id);
		break;
	case IWCM_CONN_RECV:
		/* A QP means an accept is still in flight (worker only). */
		if (qp)
			iwcm_modify_qp_state(qp, IB_QPS_ERR);
		else
			dev->ops.iw_reject(&priv->id, NULL, 0);
		break;
	case IWCM_CONN_SENT:	/* reached only from the worker */
	case IWCM_ESTABLISHED:
		/* Abrupt close; the provider still sends CLOSE, ignored. */
		iwcm_modify_qp_state(qp, IB_QPS_ERR);
		break;
	case IWCM_IDLE:
	case IWCM_CLOSING:
	case IWCM_DESTROYING:
		break;
	}
	if (qp)
		dev->ops.iw_rem_ref(qp);
	iwpm_unmap(priv);
	iwcm_put(priv);
}

/**
 * iw_destroy_cm_id - release an iWARP CM id
 * @cm_id: the id; it must not be used after this returns
 *
 * A listener stops listening, a connected id is reset, an unanswered
 * connection request is rejected. Once this returns the cm_handler is not
 * called again for @cm_id. May sleep (see iwcm_destroy()).
 */
void iw_destroy_cm_id(struct iw_cm_id *cm_id)
{
	iwcm_destroy(to_iwcm(cm_id), false);
}
EXPORT_SYMBOL(iw_destroy_cm_id);

#if IS_ENABLED(CONFIG_KUNIT)
enum iwcm_state iwcm_id_state(struct iw_cm_id *id)
{
	struct iwcm_id_priv *priv = to_iwcm(id);
	enum iwcm_state state;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	state = priv->state;
	spin_unlock_irqrestore(&priv->lock, flags);
	return state;
}
EXPORT_SYMBOL_IF_KUNIT(iwcm_id_state);

unsigned int iwcm_id_refcount(struct iw_cm_id *id)
{
	return refcount_read(&to_iwcm(id)->refcount);
}
EXPORT_SYMBOL_IF_KUNIT(iwcm_id_refcount);
#endif

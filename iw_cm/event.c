// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: provider events.
 *
 * The provider calls iw_cm_id.event_handler (iwcm_provider_event()) in
 * whatever context it is in: a socket callback in softirq, its own
 * workqueue with its locks held, or synchronously from inside one of our
 * downcalls (siw upcalls ESTABLISHED from within iw_accept). So the upcall
 * only copies the event -- into a pre-allocated element, with GFP_ATOMIC
 * copies of the private data -- appends it to the id's pending list and
 * queues the id's work. Each id has one work item that drains its list,
 * so events of one id are handled in the order the provider sent them;
 * iwcm_wq is ordered, so there is one handler call at a time overall.
 *
 * The worker applies each event to the id's state and then calls the
 * user's cm_handler, unless the id has been destroyed. A non-zero return
 * from the cm_handler destroys the id (for CONNECT_REQUEST: the new id).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "iwcm.h"
#include "iwpm.h"
#include "trace.h"

static struct workqueue_struct *iwcm_wq;

/*
 * The task running iwcm_wq's current work item, NULL between items.
 * iwcm_wq is ordered, so only that task writes it while it is set; a
 * task comparing it with current can only find itself.
 */
static struct task_struct *iwcm_worker;

bool iwcm_in_worker(void)
{
	return READ_ONCE(iwcm_worker) == current;
}

/*
 * Call the user's cm_handler for an event of @priv (the listener, for a
 * CONNECT_REQUEST; @target is then the new id). Returns the handler's
 * value; *delivered is false when @priv was destroyed and nothing was
 * called.
 */
static int iwcm_deliver(struct iwcm_id_priv *priv, struct iw_cm_id *target,
			struct iw_cm_event *event, bool *delivered)
{
	int ret;

	spin_lock_irq(&priv->lock);
	*delivered = !priv->destroyed;
	if (!*delivered) {
		spin_unlock_irq(&priv->lock);
		pr_debug("id %p destroyed: dropping event %d\n", priv,
			 event->event);
		return 0;
	}
	priv->handler_task = current;
	spin_unlock_irq(&priv->lock);

	ret = priv->id.cm_handler(target, event);
	trace_iwcm_deliver(target, event, ret);

	spin_lock_irq(&priv->lock);
	priv->handler_task = NULL;
	spin_unlock_irq(&priv->lock);
	wake_up_all(&priv->waitq);
	return ret;
}

/*
 * CONNECT_REQUEST on a listener: the new id was made by the upcall and
 * is in CONN_RECV. Hand it to the listener's cm_handler; if the listener
 * is going away, or the handler refuses, destroy the new id, which
 * rejects the connection.
 *
 * CVE-2024-42285 (in-tree freed the new id's context, rdma_cm's conn_id,
 * while work of the new id could still call the handler with it): the
 * listener is pinned by its queued work's reference and the new id by
 * ours; neither is called once iwcm_destroy() has set @destroyed, which
 * iwcm_deliver() checks under @lock, and iwcm_destroy() waits for a
 * handler running in another task (@handler_task). When the handler
 * refuses, rdma_cm has already freed the context it gave the new id; the
 * new id's own events wait on the ordered iwcm_wq behind this work, so
 * iwcm_destroy() below marks it before any of them can be handled.
 */
static void iwcm_on_connect_request(struct iwcm_id_priv *listener,
				    struct iwcm_elem *elem)
{
	struct iwcm_id_priv *child = elem->child;
	bool listening, delivered;
	int ret;

	elem->child = NULL;
	spin_lock_irq(&listener->lock);
	listening = listener->state == IWCM_LISTEN;
	spin_unlock_irq(&listener->lock);
	if (!listening)
		goto refuse;
	if (iwcm_pool_fill(child, IWCM_PASSIVE_ELEMS))
		goto refuse;

	iwpm_conn_request(listener, child, &elem->event);
	/* Pinned: the handler may destroy the new id before it returns. */
	iwcm_get(child);
	ret = iwcm_deliver(listener, &child->id, &elem->event, &delivered);
	if (!delivered || ret)
		iwcm_destroy(child, true);
	iwcm_put(child);
	return;

refuse:
	iwcm_destroy(child, true);
}

/* Active side: the answer to iw_connect(). */
static bool iwcm_on_connect_reply(struct iwcm_id_priv *priv,
				  struct iw_cm_event *event,
				  struct ib_qp **put_qp)
{
	bool notify = false;

	spin_lock_irq(&priv->lock);
	switch (priv->state) {
	case IWCM_CONN_SENT:
		priv->in_progress = false;
		notify = true;
		if (event->status) {
			priv->state = IWCM_IDLE;
			*put_qp = priv->qp;
			priv->qp = NULL;
			break;
		}
		priv->state = IWCM_ESTABLISHED;
		/* The provider's view of the addresses; the user sees its own. */
		priv->id.m_local_addr = event->local_addr;
		priv->id.m_remote_addr = event->remote_addr;
		event->local_addr = priv->id.local_addr;
		event->remote_addr = priv->id.remote_addr;
		break;
	case IWCM_DESTROYING:
		priv->in_progress = false;
		break;
	default:
		pr_warn_ratelimited("CONNECT_REPLY in state %d ignored\n",
				    priv->state);
		break;
	}
	spin_unlock_irq(&priv->lock);
	wake_up_all(&priv->waitq);
	return notify;
}

/*
 * Passive side: the connection accepted with iw_accept() is up, or, with a
 * negative status, failed before it was (the host CM's responder whose
 * connection died before the peer-to-peer RTR): the id goes back to idle
 * and gives up its QP, and no CLOSE follows.
 */
static bool iwcm_on_established(struct iwcm_id_priv *priv, int status,
				struct ib_qp **put_qp)
{
	bool notify = false;

	spin_lock_irq(&priv->lock);
	switch (priv->state) {
	case IWCM_CONN_RECV:
		if (!priv->in_progress) {
			pr_warn_ratelimited("ESTABLISHED before accept ignored\n");
			break;
		}
		priv->in_progress = false;
		notify = true;
		if (status) {
			priv->state = IWCM_IDLE;
			*put_qp = priv->qp;
			priv->qp = NULL;
			break;
		}
		priv->state = IWCM_ESTABLISHED;
		break;
	case IWCM_DESTROYING:
		priv->in_progress = false;
		break;
	default:
		pr_warn_ratelimited("ESTABLISHED in state %d ignored\n",
				    priv->state);
		break;
	}
	spin_unlock_irq(&priv->lock);
	wake_up_all(&priv->waitq);
	return notify;
}

/*
 * The peer started closing. Like the in-tree iw_cm this only moves the id
 * to CLOSING; the user hears of it with the CLOSE that follows.
 */
static void iwcm_on_disconnect(struct iwcm_id_priv *priv)
{
	spin_lock_irq(&priv->lock);
	if (priv->state == IWCM_ESTABLISHED)
		priv->state = IWCM_CLOSING;
	spin_unlock_irq(&priv->lock);
}

/* The connection is gone and the provider is done with the QP. */
static bool iwcm_on_close(struct iwcm_id_priv *priv, struct ib_qp **put_qp)
{
	bool notify = false;

	spin_lock_irq(&priv->lock);
	switch (priv->state) {
	case IWCM_ESTABLISHED:
	case IWCM_CLOSING:
		priv->state = IWCM_IDLE;
		notify = true;
		fallthrough;
	case IWCM_DESTROYING:
		*put_qp = priv->qp;
		priv->qp = NULL;
		break;
	default:
		pr_warn_ratelimited("CLOSE in state %d ignored\n", priv->state);
		break;
	}
	spin_unlock_irq(&priv->lock);
	return notify;
}

static void iwcm_process(struct iwcm_id_priv *priv, struct iwcm_elem *elem)
{
	struct iw_cm_event *event = &elem->event;
	struct ib_qp *put_qp = NULL;
	bool notify = false, delivered;
	int ret;

	switch (event->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		iwcm_on_connect_request(priv, elem);
		return;
	case IW_CM_EVENT_CONNECT_REPLY:
		notify = iwcm_on_connect_reply(priv, event, &put_qp);
		break;
	case IW_CM_EVENT_ESTABLISHED:
		notify = iwcm_on_established(priv, event->status, &put_qp);
		break;
	case IW_CM_EVENT_DISCONNECT:
		iwcm_on_disconnect(priv);
		break;
	case IW_CM_EVENT_CLOSE:
		notify = iwcm_on_close(priv, &put_qp);
		break;
	}
	if (put_qp)
		priv->id.device->ops.iw_rem_ref(put_qp);
	if (!notify)
		return;
	ret = iwcm_deliver(priv, &priv->id, event, &delivered);
	if (ret)
		iwcm_destroy(priv, true);
}

static void iwcm_work_fn(struct work_struct *work)
{
	struct iwcm_id_priv *priv = container_of(work, struct iwcm_id_priv,
						 work);
	struct iwcm_elem *elem;

	WRITE_ONCE(iwcm_worker, current);
	for (;;) {
		spin_lock_irq(&priv->lock);
		elem = list_first_entry_or_null(&priv->pending,
						struct iwcm_elem, entry);
		if (!elem) {
			priv->work_queued = false;
			spin_unlock_irq(&priv->lock);
			break;
		}
		list_del(&elem->entry);
		spin_unlock_irq(&priv->lock);

		iwcm_process(priv, elem);
		iwcm_pool_put(priv, elem);
	}
	WRITE_ONCE(iwcm_worker, NULL);
	/* The queued-work reference; may free priv and with it @work. */
	iwcm_put(priv);
}

void iwcm_event_init_id(struct iwcm_id_priv *priv)
{
	INIT_WORK(&priv->work, iwcm_work_fn);
}

/* Make the id a CONNECT_REQUEST creates. Atomic context. */
static struct iwcm_id_priv *iwcm_new_child(struct iwcm_id_priv *listener,
					   const struct iw_cm_event *event)
{
	struct iwcm_id_priv *child;

	child = iwcm_alloc_id(listener->id.device, listener->id.cm_handler,
			      listener->id.context, GFP_ATOMIC);
	if (!child)
		return NULL;
	child->id.provider_data = event->provider_data;
	child->id.local_addr = event->local_addr;
	child->id.remote_addr = event->remote_addr;
	child->id.m_local_addr = event->local_addr;
	child->id.m_remote_addr = event->remote_addr;
	child->state = IWCM_CONN_RECV;
	return child;
}

/*
 * Fill @elem from @event; on failure nothing is left allocated. The
 * CONNECT_REPLY data goes into the buffer iw_cm_connect() set aside.
 */
static int iwcm_copy_event(struct iwcm_id_priv *priv, struct iwcm_elem *elem,
			   const struct iw_cm_event *event)
{
	lockdep_assert_held(&priv->lock);
	elem->event = *event;
	elem->event.private_data = NULL;
	elem->event.private_data_len = 0;

	switch (event->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		if (priv->state != IWCM_LISTEN || priv->destroyed)
			return -ECONNREFUSED;
		elem->child = iwcm_new_child(priv, event);
		if (!elem->child)
			return -ENOMEM;
		break;
	case IW_CM_EVENT_CONNECT_REPLY:
		break;
	default:
		return 0;	/* only requests and replies carry data */
	}
	if (!event->private_data_len || !event->private_data)
		return 0;

	if (event->event == IW_CM_EVENT_CONNECT_REPLY && priv->reply_pd) {
		memcpy(priv->reply_pd, event->private_data,
		       event->private_data_len);
		elem->event.private_data = priv->reply_pd;
	} else {
		elem->pd_alloc = kmemdup(event->private_data,
					 event->private_data_len, GFP_ATOMIC);
		if (!elem->pd_alloc)
			goto nomem;
		elem->event.private_data = elem->pd_alloc;
	}
	elem->event.private_data_len = event->private_data_len;
	return 0;

nomem:
	if (elem->child) {
		iwcm_put(elem->child);
		elem->child = NULL;
	}
	return -ENOMEM;
}

/**
 * iwcm_provider_event - iw_cm_id.event_handler, called by the provider
 * @id: the id the event is for (the listener, for CONNECT_REQUEST)
 * @event: the event; neither it nor its private data is kept
 *
 * Any context. Return: 0 if queued; -ENOMEM, or -ECONNREFUSED for a
 * connection request to an id that no longer listens: the provider then
 * still owns the request and must refuse it itself.
 */
int iwcm_provider_event(struct iw_cm_id *id, struct iw_cm_event *event)
{
	struct iwcm_id_priv *priv = to_iwcm(id);
	struct iwcm_elem *elem;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&priv->lock, flags);
	elem = iwcm_pool_get(priv);
	if (!elem) {
		ret = -ENOMEM;
		goto out;
	}
	ret = iwcm_copy_event(priv, elem, event);
	if (ret) {
		list_add(&elem->entry, &priv->free_elems);
		goto out;
	}
	list_add_tail(&elem->entry, &priv->pending);
	if (!priv->work_queued) {
		priv->work_queued = true;
		iwcm_get(priv);
		queue_work(iwcm_wq, &priv->work);
	}
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	trace_iwcm_upcall(id, event, ret);
	return ret;
}

int iwcm_event_init(void)
{
	iwcm_wq = alloc_ordered_workqueue("iw_cm_wq", WQ_MEM_RECLAIM);
	return iwcm_wq ? 0 : -ENOMEM;
}

void iwcm_event_exit(void)
{
	destroy_workqueue(iwcm_wq);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Wait until every event queued so far has been processed. */
void iwcm_flush_events(void)
{
	flush_workqueue(iwcm_wq);
}
EXPORT_SYMBOL_IF_KUNIT(iwcm_flush_events);
#endif

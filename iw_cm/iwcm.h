/* SPDX-License-Identifier: GPL-2.0 */
/*
 * openrdma-cm iw_cm: private definitions shared by the files of iw_cm.ko.
 *
 * Contexts, in short (the details are next to the code):
 *  - the exported API runs in process context and may sleep, except
 *    iw_cm_init_qp_attr() and iwcm_reject_msg();
 *  - the provider calls iw_cm_id.event_handler, .add_ref and .rem_ref in
 *    any context (softirq, with provider locks held, or from inside one of
 *    our own downcalls), so those only take priv->lock and never sleep;
 *  - every call of a user's cm_handler happens in the worker of iwcm_wq,
 *    an ordered workqueue: one handler call at a time, module wide.
 */
#ifndef _OPENRDMA_IWCM_H
#define _OPENRDMA_IWCM_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <openrdma/offload_track.h>
#include <rdma/iw_cm.h>

/*
 * Event elements inside the id itself, used before any is allocated: a
 * connection's id needs no allocation for its events.
 */
#define IWCM_INLINE_ELEMS	4

/* MPA (RFC 5044) carries at most 512 bytes of private data. */
#define IWCM_MAX_PRIVATE_DATA	512

/* Event elements kept ready per id, so that upcalls need not allocate. */
#define IWCM_ACTIVE_ELEMS	4	/* CONNECT_REPLY, DISCONNECT, CLOSE, spare */
#define IWCM_PASSIVE_ELEMS	3	/* ESTABLISHED, DISCONNECT, CLOSE */
#define IWCM_LISTEN_ELEMS_MAX	1024	/* cap on the backlog's elements */
/*
 * Elements a listener gets up front; more are allocated (GFP_ATOMIC) as
 * requests arrive, up to its backlog, and kept for the next burst. So an
 * idle listener costs a few elements, not its backlog (in-tree preallocates
 * the whole backlog: 256 entries per listener by default).
 */
#define IWCM_LISTEN_PREFILL	8
/*
 * Cap on the elements of a connection's id: its events are few (a reply or
 * establishment, a disconnect, a close), so a provider that upcalls more
 * has gone wrong, and gets -ENOMEM rather than unbounded memory.
 */
#define IWCM_CONN_ELEMS_MAX	16

enum iwcm_state {
	IWCM_IDLE,		/* not bound to a connection */
	IWCM_LISTEN,		/* iw_create_listen() done */
	IWCM_CONN_RECV,		/* passive: request seen, not yet established */
	IWCM_CONN_SENT,		/* active: iw_connect() done, awaiting reply */
	IWCM_ESTABLISHED,	/* connected, QP in use */
	IWCM_CLOSING,		/* disconnect started by either side */
	IWCM_DESTROYING,	/* user released the id; awaiting last ref */
};

/* A provider event, copied out of the upcall and queued for the worker. */
struct iwcm_elem {
	struct list_head entry;		/* on priv->pending or priv->free_elems */
	struct iw_cm_event event;	/* copy; private_data points at a copy */
	void *pd_alloc;			/* private data to kfree, or NULL */
	struct iwcm_id_priv *child;	/* CONNECT_REQUEST: the new id */
};

struct iwcm_id_priv {
	struct iw_cm_id id;		/* handed to user and provider */

	/*
	 * One reference for the user (dropped by iw_destroy_cm_id() or when
	 * the cm_handler asks for destruction), one per provider add_ref(),
	 * and one while @work is queued or running. The last put frees.
	 */
	refcount_t refcount;
	struct work_struct work;	/* drains @pending on iwcm_wq */
	wait_queue_head_t waitq;	/* @handler_task or @in_progress cleared */

	/*
	 * @lock protects every field below. It is taken with interrupts
	 * disabled (upcalls may come from softirq), is never nested with
	 * another id's lock, and is never held across a provider op,
	 * ib_modify_qp(), a cm_handler call or a sleeping allocation.
	 */
	spinlock_t lock;
	enum iwcm_state state;
	struct ib_qp *qp;		/* holds an iw_add_ref() while set */
	/*
	 * A listen/connect/accept downcall, or the CONNECT_REPLY or
	 * ESTABLISHED answering it, is outstanding: destroy and disconnect
	 * wait for it (unless called from the worker, which the answer needs).
	 */
	bool in_progress;
	bool destroyed;			/* user ref gone; no more cm_handler */
	bool work_queued;		/* @work queued, holding a reference */
	struct task_struct *handler_task; /* inside cm_handler for this id */
	struct list_head pending;	/* iwcm_elem, oldest first */
	struct list_head free_elems;	/* iwcm_elem pool */
	unsigned int nr_elems;		/* elements owned, pending or free */
	/*
	 * Most elements the id may own. A listener's is its backlog: each
	 * queued CONNECT_REQUEST holds one until the user's handler has run,
	 * so a flood beyond the backlog is refused (-ENOMEM to the provider,
	 * which refuses the connection), never met with more GFP_ATOMIC.
	 */
	unsigned int max_elems;
	unsigned long refused;		/* upcalls refused for want of one */
	u8 *reply_pd;			/* U8_MAX bytes for CONNECT_REPLY data */
	/*
	 * The namespace of the host CM's sockets (orcm_iw_cm_set_net(),
	 * holding a reference), or NULL: the caller's. Set by the id's
	 * owner before iw_cm_connect()/iw_cm_listen(), read by the host CM
	 * in those calls: owner-serialised, no lock.
	 */
	struct net *net;
	/* Port mapping (iwpm_map.c); set and cleared while claimed or dying. */
	struct iwpm_mapping *pm;
	/*
	 * A passive id's share of its listener's kernel-mode reservation
	 * (iwpm_conn_request()), so that the host port stays held for the
	 * connection: a later listener on that port shares it rather than
	 * colliding with the connection's socket. Set once in the
	 * listener's work, put by iwpm_unmap().
	 */
	struct iwpm_resv *pm_conn_resv;
	/*
	 * Path tracking (track.c): @track_mutex protects the three below
	 * and is held across the subscriber's callbacks.
	 */
	struct mutex track_mutex;
	struct orcm_track_sub *track_sub;	/* the driver's, or NULL */
	struct orcm_track_path track_path;	/* as rdma_cm last pushed it */
	bool track_dead;			/* iw_destroy_cm_id() called */
	unsigned int inline_used;	/* of @inline_elems, in the pool */
	struct iwcm_elem inline_elems[IWCM_INLINE_ELEMS];
};

static inline struct iwcm_id_priv *to_iwcm(struct iw_cm_id *id)
{
	return container_of(id, struct iwcm_id_priv, id);
}

/* main.c */
extern unsigned int iwcm_default_backlog;

/* id.c */
struct iwcm_id_priv *iwcm_alloc_id(struct ib_device *device,
				   iw_cm_handler cm_handler, void *context,
				   gfp_t gfp);
void iwcm_get(struct iwcm_id_priv *priv);
void iwcm_put(struct iwcm_id_priv *priv);
int iwcm_pool_fill(struct iwcm_id_priv *priv, unsigned int nr);
struct iwcm_elem *iwcm_pool_get(struct iwcm_id_priv *priv);
void iwcm_pool_put(struct iwcm_id_priv *priv, struct iwcm_elem *elem);
void iwcm_destroy(struct iwcm_id_priv *priv, bool from_worker);

/* track.c */
void iwcm_track_init_id(struct iwcm_id_priv *priv);
void iwcm_track_stop(struct iwcm_id_priv *priv);

/* conn.c */
bool iwcm_dev_has_iw_ops(const struct ib_device *dev);
int iwcm_modify_qp_state(struct ib_qp *qp, enum ib_qp_state qp_state);

/* host.c */
void iwcm_host_put_net(struct iwcm_id_priv *priv);
struct net *iwcm_id_net(struct iw_cm_id *cm_id);
int iwcm_host_init(void);
void iwcm_host_exit(void);

/* event.c */
int iwcm_event_init(void);
void iwcm_event_exit(void);
bool iwcm_in_worker(void);
void iwcm_event_init_id(struct iwcm_id_priv *priv);
int iwcm_provider_event(struct iw_cm_id *id, struct iw_cm_event *event);

#if IS_ENABLED(CONFIG_KUNIT)
/* Test hooks, exported only to KUnit tests. */
enum iwcm_state iwcm_id_state(struct iw_cm_id *id);
unsigned int iwcm_id_refcount(struct iw_cm_id *id);
void iwcm_flush_events(void);
#endif

#endif /* _OPENRDMA_IWCM_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of the connection manager core.
 */
#ifndef _RDMA_CM_CMA_PRIV_H
#define _RDMA_CM_CMA_PRIV_H

#include "abi.h"

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "addr.h"
#include "track.h"

struct cma_resolve_req;

/*
 * The states of an id. Stock ib_core (nldev) prints this value, so the
 * order is the 6.12 one and must not change.
 */
enum rdma_cm_state {
	RDMA_CM_IDLE,
	RDMA_CM_ADDR_QUERY,
	RDMA_CM_ADDR_RESOLVED,
	RDMA_CM_ROUTE_QUERY,
	RDMA_CM_ROUTE_RESOLVED,
	RDMA_CM_CONNECT,
	RDMA_CM_DISCONNECT,
	RDMA_CM_ADDR_BOUND,
	RDMA_CM_LISTEN,
	RDMA_CM_DEVICE_REMOVAL,
	RDMA_CM_DESTROYING
};

/*
 * Per-port defaults that configfs sets (configfs.c): the GID type (an enum
 * ib_gid_type), the ToS of RoCE connections, and the CM response timeout
 * and retry count of IB/RoCE connections (cm_timers.c; CMA_CM_UNSET: the
 * namespace's value). Single bytes, read and written with
 * READ_ONCE()/WRITE_ONCE(), no lock.
 */
struct cma_port_cfg {
	u8			gid_type;
	u8			roce_tos;
	u8			cm_response_timeout;
	u8			cm_max_retries;
};

/* The CM's reply timeout and retries (cm_timers.c); defaults are in-tree's. */
#define CMA_CM_DEFAULT_TIMEOUT	20	/* 4.096 us * 2^20: about 4.3 s */
#define CMA_CM_DEFAULT_RETRIES	15
#define CMA_CM_TIMEOUT_MAX	31	/* the REQ's 5-bit field */
#define CMA_CM_RETRIES_MAX	15	/* the REQ's 4-bit field */
#define CMA_CM_UNSET		0xff

/* An RDMA device known to the CM (one per ib_device, ib_client data). */
struct cma_device {
	struct list_head	list;		/* on cma_dev_list, cma_lock */
	struct ib_device	*device;
	/*
	 * @id_lock protects @id_list and the @device_item of the ids on it;
	 * @removing is written under cma_lock and @id_lock, so either one
	 * reads it. It nests inside cma_lock and takes nothing itself: an id
	 * of a connection joins and leaves its device without cma_lock.
	 */
	spinlock_t		id_lock;
	struct list_head	id_list;	/* bound ids, @id_lock */
	refcount_t		refcount;
	struct completion	comp;		/* refcount reached zero */
	bool			removing;	/* cma_lock and @id_lock */
	/* Port events for the path cache (IB SA ports only). */
	struct ib_event_handler	event_handler;
	bool			has_event_handler;
	struct cma_port_cfg	port_cfg[];	/* [port - rdma_start_port] */
};

/*
 * One id. Stock ib_core reads the members from @id to @ece (restrack and
 * `rdma res show cm_id` do container_of() on @res), so that part keeps the
 * 6.12 member order and types; members we do not use stay as padding.
 * Our own members follow @ece.
 *
 * Locking:
 * - @lock (spinlock) protects @state.
 * - @handler_mutex serialises calls of id.event_handler with each other,
 *   with rdma_destroy_id() and with the consumer's rdma_lock_handler().
 * - @qp_mutex protects id.qp and the option fields that share bytes with
 *   bitfields: @tos, @tos_set, @timeout, @timeout_set, @min_rnr_timer,
 *   @min_rnr_timer_set.
 * - the port space lock protects @bind_list and @node.
 *
 * References (@refcount): one is the id's own, dropped by the destroy path
 * (cma_release()); every piece of asynchronous work in flight holds one
 * (queued event work, address resolution, a DEVICE_REMOVAL delivery), and
 * every per-device child of a wildcard listener holds one on its parent
 * (@parent). cma_release() waits for the count to reach zero before it
 * frees; so a reference may only be taken while the id's own is known to
 * be held (for a device's id list: the id is on it).
 *
 * The lists an id sits on, each with one owner (under cma_lock, but
 * cma_dev->id_list, which is under cma_dev->id_lock):
 * - @device_item on cma_dev->id_list: linked by cma_attach_dev() or
 *   cma_attach_dev_live(); unlinked
 *   by cma_unlink_dev() from cma_release() *before* the id's own reference
 *   is dropped (so cma_remove_one() never finds an id whose count may be
 *   zero), or by cma_remove_one() when it takes the id in hand. The device
 *   reference it stands for is dropped by cma_release() (cma_detach_dev()).
 * - @listen_any_item on cma_listen_any (a wildcard listener, no device):
 *   linked by rdma_listen(), unlinked by cma_cancel_listens() only.
 * - @listen_item on the parent's @listen_list (a per-device child):
 *   linked by cma_listen_on_dev(). Whoever unlinks a child destroys it,
 *   always through rdma_destroy_id(): cma_cancel_listens() (the parent
 *   stops listening), cma_remove_one() (its device goes away), or
 *   cma_destroy_doomed() (the device refused to listen); the others then
 *   leave it alone.
 */
struct rdma_id_private {
	struct rdma_cm_id	id;

	void			*bind_list;	/* struct cma_bind *, ps.c */
	struct hlist_node	node;		/* on the bind's owners */
	/*
	 * The two never coexist (in-tree's "corrupted list in rdma_listen"):
	 * @listen_any_item is linked only by rdma_listen() of an id without
	 * a device, once cma_comp_exch(ADDR_BOUND, LISTEN) has let it alone
	 * through; an id not born with a device (a child, a connection)
	 * gets one only in IDLE->ADDR_BOUND (bind, itself won by
	 * cma_comp_exch()) or ADDR_QUERY (cma_addr_done() checks it under
	 * handler_mutex), states a listener never returns to until
	 * cma_cancel_listens() has unlinked it. A second
	 * rdma_listen() or a resolve on a listener fails its cma_comp_exch()
	 * before it writes anything, and a device added meanwhile links only
	 * children, under the same cma_lock as rdma_listen()'s walk.
	 */
	union {
		struct list_head device_item;	/* on cma_dev->id_list */
		struct list_head listen_any_item; /* on cma_listen_any */
	};
	union {
		struct list_head listen_item;	/* child: on parent's list */
		struct list_head listen_list;	/* parent: its children */
	};
	struct list_head	id_list_entry;	/* unused */
	struct cma_device	*cma_dev;
	struct list_head	mc_list;	/* struct cma_mc, @mc_lock */

	int			internal_id;	/* per-device child listener */
	enum rdma_cm_state	state;
	spinlock_t		lock;		/* protects @state */
	struct mutex		qp_mutex;	/* protects id.qp */

	struct completion	comp;		/* @refcount reached zero */
	refcount_t		refcount;
	struct mutex		handler_mutex;	/* serialises events */

	int			backlog;
	int			timeout_ms;
	void			*query;		/* path cache waiter, path_cache.c */
	int			query_id;
	union {
		struct ib_cm_id	*ib;
		struct iw_cm_id	*iw;
	} cm_id;

	u32			seq_num;
	u32			qkey;
	u32			qp_num;
	u32			options;
	u8			srq;
	u8			tos;
	u8			tos_set:1;
	u8			timeout_set:1;
	u8			min_rnr_timer_set:1;
	u8			reuseaddr;
	u8			afonly;
	u8			timeout;
	u8			min_rnr_timer;
	u8			used_resolve_ip;
	enum ib_gid_type	gid_type;

	struct rdma_restrack_entry res;
	struct rdma_ucm_ece	ece;

	/* ---- members below are ours ---- */
	/*
	 * The address resolution in flight (resolve.c), allocated for it and
	 * freed by whoever takes it from here (xchg()): its completion,
	 * or the id's release (which cancels it first). NULL otherwise, so a
	 * resolved id does not carry the resolver's state.
	 *
	 * CVE-2021-47391 (in-tree reused one embedded request, which a new
	 * rdma_resolve_addr() could queue again before the old one was off
	 * the resolver's list): here every resolution has a request of its
	 * own, and cma_addr_done() takes and frees its request before it
	 * moves the id out of ADDR_QUERY, which the next rdma_resolve_addr()
	 * needs (cma_comp_exch(ADDR_BOUND, ADDR_QUERY)), and the resolver no
	 * longer touches a request once its done has been called (addr.h).
	 * Nor does a resolve that loses that cma_comp_exch() write anything:
	 * the source address is written only after winning IDLE->ADDR_BOUND
	 * (the bind), the destination after ADDR_BOUND->ADDR_QUERY.
	 */
	struct cma_resolve_req	*addr_req;
	struct work_struct	work;		/* cma_work_handler */
	struct rdma_cm_event	work_event;	/* event @work delivers */
	enum rdma_cm_state	work_old, work_new; /* state change of @work */
	/* A per-device child's wildcard listener; holds a reference on it. */
	struct rdma_id_private	*parent;
	bool			afonly_set;
	/*
	 * 1 while addr_req holds a reference; cleared by whoever drops it:
	 * the atomic_xchg() of cma_addr_done() or of cma_resolve_stop(), so
	 * exactly one of them drops it, and the other drops nothing.
	 */
	atomic_t		addr_busy;
	/*
	 * @cm_id holds an ib_cm_id (ib.c, ud.c), not an iw_cm_id; set with
	 * @cm_id, under handler_mutex or before the id is published.
	 */
	bool			cm_is_ib;
	/* A passive IB id answered the request (REP); handler_mutex. */
	bool			ib_replied;
	/*
	 * route.path_rec[0] came from the path cache (path_cache.c): a
	 * connect through it that fails drops the record. Written with the
	 * route (ROUTE_QUERY, or rdma_set_ib_path()'s ADDR_RESOLVED ->
	 * ROUTE_RESOLVED), read under handler_mutex in CONNECT.
	 */
	bool			pc_route;
	/*
	 * The CM reply timeout and retries a kernel ULP set on this id
	 * (orcm_rdma_set_cm_timers(), cm_timers.c), each stored as value + 1:
	 * 0, as an id is allocated, is unset (the port's or namespace's).
	 * Single bytes, READ_ONCE()/WRITE_ONCE(), no lock.
	 */
	u8			cm_timeout_id;
	u8			cm_retries_id;
	/*
	 * The task running the id's handler, and whether that handler called
	 * rdma_destroy_id() on its own id (cma_deliver(), rdma_destroy_id());
	 * both written under handler_mutex by its holder.
	 */
	struct task_struct	*handler_task;
	bool			destroy_in_handler;
	spinlock_t		mc_lock;	/* protects @mc_list */
	/* Network changes under the id (track.c, track.h). */
	struct cma_track	track;
};

extern struct mutex cma_lock;
extern struct workqueue_struct *cma_wq;

static inline struct rdma_id_private *to_id_priv(struct rdma_cm_id *id)
{
	return container_of(id, struct rdma_id_private, id);
}

static inline struct sockaddr *cma_src_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.src_addr;
}

static inline struct sockaddr *cma_dst_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.dst_addr;
}

static inline struct net *cma_net(struct rdma_id_private *id_priv)
{
	return id_priv->id.route.addr.dev_addr.net;
}

/* Address helpers (addr_util.c). */
bool cma_any_addr(const struct sockaddr *addr);
bool cma_loopback_addr(const struct sockaddr *addr);
bool cma_zero_addr(const struct sockaddr *addr);
int cma_addr_cmp(const struct sockaddr *a, const struct sockaddr *b);
__be16 cma_port(const struct sockaddr *addr);
void cma_set_port(struct sockaddr *addr, __be16 port);
int cma_addr_len(const struct sockaddr *addr);

/* Id state and references (id.c). */
bool cma_comp_exch(struct rdma_id_private *id_priv, enum rdma_cm_state comp,
		   enum rdma_cm_state exch);
enum rdma_cm_state cma_exch(struct rdma_id_private *id_priv,
			    enum rdma_cm_state exch);
enum rdma_cm_state cma_state(struct rdma_id_private *id_priv);
void cma_id_get(struct rdma_id_private *id_priv);
void cma_id_put(struct rdma_id_private *id_priv);
struct rdma_id_private *cma_id_alloc(struct net *net,
				     rdma_cm_event_handler event_handler,
				     void *context,
				     enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type,
				     struct rdma_id_private *parent);
void cma_destroy_handler_locked(struct rdma_id_private *id_priv);
void cma_set_sgid_attr(struct rdma_id_private *id_priv,
		       const struct ib_gid_attr *attr);
void cma_lockdep_listener(struct rdma_id_private *id_priv);
int cma_deliver(struct rdma_id_private *id_priv, struct rdma_cm_event *ev);
void cma_queue_event(struct rdma_id_private *id_priv,
		     enum rdma_cm_state old, enum rdma_cm_state new,
		     const struct rdma_cm_event *ev);

/* Address resolution (resolve.c): stop the one in flight, if any. */
void cma_resolve_stop(struct rdma_id_private *id_priv);

/* Devices (device.c). */
void cma_attach_dev(struct rdma_id_private *id_priv,
		    struct cma_device *cma_dev, u32 port);
int cma_attach_dev_live(struct rdma_id_private *id_priv,
			struct cma_device *cma_dev, u32 port);
void cma_unlink_dev(struct rdma_id_private *id_priv);
void cma_detach_dev(struct rdma_id_private *id_priv);
int cma_acquire_dev_by_addr(struct rdma_id_private *id_priv);
#if IS_ENABLED(CONFIG_KUNIT)
bool cma_ib_port_serves(struct ib_device *device, u32 port,
			const struct net_device *bound);
#endif
void cma_dev_get(struct cma_device *cma_dev);
void cma_dev_put(struct cma_device *cma_dev);
struct cma_device *cma_get_dev_by_name(const char *name);
unsigned long cma_gid_types(struct ib_device *device, u32 port);
extern struct list_head cma_dev_list;
extern struct ib_client cma_client;
int cma_device_init(void);
int cma_timers_init(void);
void cma_timers_exit(void);
u8 cma_cm_response_timeout(const struct rdma_id_private *id_priv);
u8 cma_cm_max_retries(const struct rdma_id_private *id_priv);
int cma_cm_timer_parse(const char *buf, u8 max);
#if IS_ENABLED(CONFIG_KUNIT)
void cma_cm_timers_set_net(struct net *net, u8 timeout, u8 retries);
#endif
void cma_device_exit(void);

/* Listening (listen.c). */
int cma_listen_on_dev(struct rdma_id_private *id_priv,
		      struct cma_device *cma_dev, struct list_head *doomed);
void cma_destroy_doomed(struct list_head *doomed);
u32 cma_first_cm_port(struct ib_device *device);
void cma_cancel_listens(struct rdma_id_private *id_priv);
extern struct list_head cma_listen_any;

/* /sys/kernel/config/rdma_cm (configfs.c). */
#if IS_ENABLED(CONFIG_CONFIGFS_FS)
int cma_configfs_init(void);
void cma_configfs_exit(void);
#else
static inline int cma_configfs_init(void) { return 0; }
static inline void cma_configfs_exit(void) { }
#endif

/*
 * Live ids, for the leak checks of the tests, and IB requests dropped as
 * malformed (debugfs.c).
 */
void cma_ids_inc(void);
void cma_ids_dec(void);
long cma_ids_live(void);
void cma_ib_req_dropped(void);
long cma_ib_req_dropped_count(void);
void cma_debugfs_init(void);
void cma_debugfs_exit(void);

/* QPs (qp.c). */
int cma_init_qp_attr_locked(struct rdma_id_private *id_priv,
			    struct ib_qp_attr *qp_attr, int *qp_attr_mask);
void cma_qp_to_err(struct rdma_id_private *id_priv);

/* Connection calls (conn.c). */
enum cma_pd_op { CMA_PD_CONNECT, CMA_PD_ACCEPT, CMA_PD_REJECT };
#if IS_ENABLED(CONFIG_KUNIT)
int cma_private_data_max(bool iwarp, enum cma_pd_op op);
#endif

/* Is @id_priv's cm_id an ib_cm_id / an iw_cm_id? */
static inline bool cma_has_ib_cm(struct rdma_id_private *id_priv)
{
	return id_priv->cm_id.ib && id_priv->cm_is_ib;
}

static inline bool cma_has_iw_cm(struct rdma_id_private *id_priv)
{
	return id_priv->cm_id.iw && !id_priv->cm_is_ib;
}

/* iWARP glue (iw.c). */
#if IS_ENABLED(CONFIG_KUNIT)
int cma_iw_handler(struct iw_cm_id *iw_id, struct iw_cm_event *iw_ev);
#endif
int cma_iw_listen(struct rdma_id_private *id_priv, int backlog);
int cma_iw_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param);
int cma_iw_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param);

#endif /* _RDMA_CM_CMA_PRIV_H */

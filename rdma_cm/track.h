/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracking of network changes under ids (track.c): the index from netdev,
 * neighbour and local address to the ids that depend on them, the
 * notifiers, and the per-id work that turns events into ULP events and a
 * re-validated snapshot of the id's path.
 */
#ifndef _RDMA_CM_TRACK_H
#define _RDMA_CM_TRACK_H

#include <linux/atomic.h>
#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct rdma_id_private;
struct cma_track_ent;

/* What an id is indexed by. */
enum cma_track_kind {
	CMA_TRACK_DEV,		/* (netns, dev_addr.bound_dev_if) */
	CMA_TRACK_NEIGH,	/* (netns, bound_dev_if, destination IP) */
	CMA_TRACK_ADDR,		/* (netns, source IP) */
	CMA_TRACK_ROUTE,	/* (netns): an iWARP id's route, FIB events */
	CMA_TRACK_NKINDS
};

/* Pending work of an id: bits of cma_track.pending. */
enum cma_track_ev {
	CMA_TRACK_EV_ADDR_CHANGE,	/* ULP: RDMA_CM_EVENT_ADDR_CHANGE */
	CMA_TRACK_EV_UNREACHABLE,	/* ULP: RDMA_CM_EVENT_UNREACHABLE */
	CMA_TRACK_EV_REVALIDATE,	/* re-read netdev, route, neighbour */
	CMA_TRACK_EV_ADDR_GONE,		/* the source address was removed */
	CMA_TRACK_EV_MAX
};

/*
 * The path of an id as the last re-validation saw it (struct
 * cma_track.snap). Written by the id's track work only, under the id's
 * handler_mutex; read under the same mutex.
 */
struct cma_track_snap {
	u32		mtu;		/* of the output netdev */
	int		oif;		/* output netdev of the route, 0: none */
	struct in6_addr	nh_ip;		/* next hop, IPv4 v4-mapped; 0: none */
	u8		nh_mac[ETH_ALEN]; /* next hop's MAC, 0 if unresolved */
	bool		link_up;	/* bound netdev up and running */
	bool		addr_gone;	/* the source address was removed */
	bool		route_ok;	/* a route to the destination exists */
	u32		updates;	/* re-validations that changed something */
};

struct cma_track_link {
	struct list_head	item;	/* on ent->ids; cma_track_lock */
	struct cma_track_ent	*ent;	/* NULL: not indexed by this kind */
};

/* Embedded in struct rdma_id_private. */
struct cma_track {
	struct cma_track_link	link[CMA_TRACK_NKINDS];
	unsigned long		pending;	/* BIT(enum cma_track_ev) */
	/*
	 * ktime_get_ns() of the oldest notifier event the work has not
	 * taken yet (0: none); set by cma_track_kick(), taken by the work.
	 */
	atomic64_t		ev_time;
	struct work_struct	work;		/* cma_track_work() */
	/*
	 * Indexed by neighbour for its path only (an iWARP id, for the
	 * offload interface): a MAC change re-validates, no UNREACHABLE.
	 * Such an id's neighbour key is its next hop (snap.nh_ip), and it
	 * is indexed by route (FIB changes in its netns). Set before the id
	 * is indexed by neighbour; read by notifiers.
	 */
	bool			neigh_path_only;
	struct cma_track_snap	snap;
};

/*
 * What a FIB event may have changed (track_fib.c): the routes to @addr/@plen
 * of @family (IPv4 as v4-mapped, @plen counted over the 128 bits), or
 * every route (@all).
 */
struct cma_track_prefix {
	struct in6_addr	addr;
	u8		family;
	u8		plen;
	bool		all;
};

void cma_track_init_id(struct rdma_id_private *id_priv);
/* Index by netdev and source address: after the id is bound to a device. */
void cma_track_attach(struct rdma_id_private *id_priv);
/* Index by neighbour: after a RoCE route is resolved (as in-tree). */
void cma_track_route(struct rdma_id_private *id_priv);
/*
 * An iWARP id got its iw_cm_id (connect, or an incoming connection):
 * re-validate and hand the path to iw_cm for an offloaded RNIC's
 * subscription (include/openrdma/offload_track.h). handler_mutex held.
 */
void cma_track_iw_start(struct rdma_id_private *id_priv);
/* Take the id out of the index: before its own reference is dropped. */
void cma_track_unlink(struct rdma_id_private *id_priv);

int cma_track_init(void);
void cma_track_exit(void);

struct net;
/* Re-validate @net's route-tracked ids under @p; @when_ns: the event. */
void cma_track_route_event(const struct net *net,
			   const struct cma_track_prefix *p, u64 when_ns);
/* Queue @work on the tracking workqueue (drained by cma_track_exit()). */
void cma_track_queue(struct work_struct *work);
int cma_track_fib_init(void);
void cma_track_fib_exit(void);
struct dentry;
/* /sys/kernel/debug/rdma_cm/track: counters and the latest work's timing. */
void cma_track_debugfs(struct dentry *dir);

#if IS_ENABLED(CONFIG_KUNIT)
struct neighbour;
struct net_device;
/* Internals for tests/kunit/cma_track_kunit.c. */
void cma_track_index(struct rdma_id_private *id_priv, enum cma_track_kind k);
bool cma_track_indexed(struct rdma_id_private *id_priv, enum cma_track_kind k);
long cma_track_visits(void);
long cma_track_kicks(void);
void cma_track_flush(void);
void cma_track_snapshot(struct rdma_id_private *id_priv,
			struct cma_track_snap *snap);
void cma_track_addr_event(unsigned long event, struct net_device *ndev,
			  int family, const void *ip);
#endif

#endif /* _RDMA_CM_TRACK_H */

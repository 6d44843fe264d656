// SPDX-License-Identifier: GPL-2.0
/*
 * Tracking network changes under ids: netdevice, netevent and inet/inet6
 * address notifiers, an index from what changed to the ids that depend on
 * it, and per-id work that delivers the ULP events and keeps a snapshot of
 * the id's path (netdev MTU and state, route, next hop MAC).
 *
 * The index. An id is linked, per kind (enum cma_track_kind), to one entry
 * of a hash table keyed by the exact thing it depends on: its netdev
 * (netns, ifindex), its destination's neighbour (netns, ifindex, IP; as
 * in-tree, the destination IP, which is the next hop on a directly
 * connected path) and its source address (netns, IP). An entry holds the
 * list of its ids, so an event looks up one entry and walks only the ids
 * on it: ids on other netdevs, neighbours or addresses cost at most a
 * collision in the bucket's entry chain, never a visit.
 *
 * Which ids: every id bound to a device whose address names a netdev
 * (dev_addr.bound_dev_if) is indexed by netdev and, with a specified source
 * address, by address, from cma_attach_dev*() on; per-device children of a
 * wildcard listener are not (they have no netdev). A RoCE id is indexed by
 * neighbour once its route is resolved, as in-tree adds it to its tree.
 * Every link is removed by cma_release() before the id's own reference is
 * dropped, so whoever finds an id in the index under cma_track_lock may take
 * a reference on it.
 *
 * Context. Notifiers run in atomic context (netevent, inet6addr) or under
 * RTNL (netdevice, inetaddr); under cma_track_lock they only compare and
 * mark: a bit in the id's @pending and its work queued (with a reference)
 * on cma_track_wq. The work runs in process context, takes the id's
 * handler_mutex, and does nothing to an id that is DESTROYING or in
 * DEVICE_REMOVAL; so no event races the ULP's handler or follows
 * rdma_destroy_id() (which sets DESTROYING under handler_mutex and then
 * waits for the work's reference). Module exit unregisters the notifiers
 * before destroying the workqueue, which drains it. The queue is not the
 * ordered cma_wq: a handler that destroys its id from a cma_wq work would
 * wait for a track work queued behind itself.
 *
 * Routes: most route changes that matter to a connection come with an
 * event we already get: the output netdev going down, up, away or into a
 * bond, an address added or removed, a redirect, a new neighbour. On each
 * of those the work re-runs the resolver's route and neighbour lookup for
 * the dependent ids (CMA_TRACK_EV_REVALIDATE) and records what changed. A
 * route replaced with no such event (`ip route replace` alone) is seen
 * through the FIB notifier (track_fib.c), for the ids that need it: iWARP
 * ids with a connection (CMA_TRACK_ROUTE), whose offloaded RNIC holds the
 * next hop. A FIB event names a prefix, and maps to ids only by a compare
 * against each id's destination, so the index cannot narrow it below the
 * namespace; RoCE ids (whose next hop is their neighbour entry) and ids
 * without a connection are not on that list. In-tree tracks no route.
 * An iWARP id's neighbour key is its next hop (the gateway on a routed
 * path), re-keyed when a re-validation finds another one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/hashtable.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <openrdma/offload_track.h>

#include "cma_priv.h"
#include "track.h"

#define CMA_TRACK_HASH_BITS	10

struct cma_track_key {
	const struct net	*net;
	int			ifindex;	/* 0 for CMA_TRACK_ADDR */
	u8			kind;		/* enum cma_track_kind */
	u8			family;		/* AF_INET, AF_INET6; 0 for DEV */
	u16			pad;
	union {
		__be32		v4;
		struct in6_addr	v6;
	} ip;
};

/* One key and the ids that depend on it; cma_track_lock. */
struct cma_track_ent {
	struct hlist_node	node;		/* in cma_track_table */
	struct cma_track_key	key;
	struct list_head	ids;		/* cma_track_link.item */
};

/*
 * cma_track_lock protects cma_track_table, every entry and every id's
 * track.link[]. Taken from any context (netevent may come from softirq),
 * hence irqsave; nothing is called with it held but cma_id_get()/put()
 * and queue_work().
 */
static DEFINE_SPINLOCK(cma_track_lock);
static DEFINE_HASHTABLE(cma_track_table, CMA_TRACK_HASH_BITS);
static struct workqueue_struct *cma_track_wq;
/* Ids looked at by notifiers (for the tests: cost of an event). */
static atomic_long_t cma_track_visit_count;
/* Events marked on ids (for the tests: which ids an event reached). */
static atomic_long_t cma_track_kick_count;
/*
 * The latest run of an id's work behind a timed event: from the event to
 * the work's start (queueing and scheduling), and the work's own run
 * (re-validation and the driver's callback). Written by the works, read by
 * debugfs; racy snapshots.
 */
static atomic64_t cma_track_last_delay_ns = ATOMIC64_INIT(-1);
static atomic64_t cma_track_last_run_ns = ATOMIC64_INIT(-1);

static u32 cma_track_hash(const struct cma_track_key *key)
{
	return jhash(key, sizeof(*key), 0);
}

/* Fill @key's address from @sa; false for a family we do not track. */
static bool cma_track_key_ip(struct cma_track_key *key,
			     const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		key->family = AF_INET;
		key->ip.v4 = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
		return true;
	case AF_INET6:
		key->family = AF_INET6;
		key->ip.v6 = ((const struct sockaddr_in6 *)sa)->sin6_addr;
		return true;
	default:
		return false;
	}
}

/* Fill @key's address from @a (IPv4 v4-mapped). */
static bool cma_track_key_in6(struct cma_track_key *key,
			      const struct in6_addr *a)
{
	if (ipv6_addr_v4mapped(a)) {
		key->family = AF_INET;
		key->ip.v4 = a->s6_addr32[3];
	} else {
		key->family = AF_INET6;
		key->ip.v6 = *a;
	}
	return true;
}

/* The key of @id_priv for @kind; false if it has none. */
static bool cma_track_id_key(struct rdma_id_private *id_priv,
			     enum cma_track_kind kind,
			     struct cma_track_key *key)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

	memset(key, 0, sizeof(*key));
	key->net = cma_net(id_priv);
	key->kind = kind;
	switch (kind) {
	case CMA_TRACK_DEV:
		key->ifindex = dev_addr->bound_dev_if;
		return key->ifindex;
	case CMA_TRACK_NEIGH:
		key->ifindex = dev_addr->bound_dev_if;
		if (!key->ifindex)
			return false;
		/* handler_mutex held: an iWARP id's snapshot (see track.h) */
		if (id_priv->track.neigh_path_only &&
		    !ipv6_addr_any(&id_priv->track.snap.nh_ip))
			return cma_track_key_in6(key, &id_priv->track.snap.nh_ip);
		return cma_track_key_ip(key, cma_dst_addr(id_priv));
	case CMA_TRACK_ADDR:
		return !cma_any_addr(cma_src_addr(id_priv)) &&
		       cma_track_key_ip(key, cma_src_addr(id_priv));
	case CMA_TRACK_ROUTE:
		return true;
	default:
		return false;
	}
}

static struct cma_track_ent *cma_track_find(const struct cma_track_key *key)
{
	struct cma_track_ent *ent;

	lockdep_assert_held(&cma_track_lock);
	hash_for_each_possible(cma_track_table, ent, node, cma_track_hash(key))
		if (!memcmp(&ent->key, key, sizeof(*key)))
			return ent;
	return NULL;
}

static void cma_track_work(struct work_struct *work);

void cma_track_init_id(struct rdma_id_private *id_priv)
{
	struct cma_track *t = &id_priv->track;
	int k;

	for (k = 0; k < CMA_TRACK_NKINDS; k++)
		INIT_LIST_HEAD(&t->link[k].item);
	INIT_WORK(&t->work, cma_track_work);
	atomic64_set(&t->ev_time, 0);
}

VISIBLE_IF_KUNIT void cma_track_index(struct rdma_id_private *id_priv,
				      enum cma_track_kind kind)
{
	struct cma_track_link *link = &id_priv->track.link[kind];
	struct cma_track_ent *ent, *new = NULL;
	struct cma_track_key key;
	unsigned long flags;

	if (!cma_track_id_key(id_priv, kind, &key))
		return;
	/*
	 * Most ids share their key with others (a netdev): allocate an entry
	 * only when the key has none. Without memory the id is not tracked;
	 * nothing else fails.
	 */
	for (;;) {
		spin_lock_irqsave(&cma_track_lock, flags);
		if (link->ent)
			break;
		ent = cma_track_find(&key);
		if (!ent && new) {
			ent = new;
			new = NULL;
			ent->key = key;
			INIT_LIST_HEAD(&ent->ids);
			hash_add(cma_track_table, &ent->node,
				 cma_track_hash(&key));
		}
		if (ent) {
			list_add_tail(&link->item, &ent->ids);
			link->ent = ent;
			break;
		}
		spin_unlock_irqrestore(&cma_track_lock, flags);
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new)
			return;
	}
	spin_unlock_irqrestore(&cma_track_lock, flags);
	kfree(new);
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_index);

#if IS_ENABLED(CONFIG_KUNIT)
VISIBLE_IF_KUNIT bool cma_track_indexed(struct rdma_id_private *id_priv,
					enum cma_track_kind kind)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&cma_track_lock, flags);
	ret = id_priv->track.link[kind].ent;
	spin_unlock_irqrestore(&cma_track_lock, flags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_indexed);

VISIBLE_IF_KUNIT long cma_track_visits(void)
{
	return atomic_long_read(&cma_track_visit_count);
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_visits);

VISIBLE_IF_KUNIT long cma_track_kicks(void)
{
	return atomic_long_read(&cma_track_kick_count);
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_kicks);

VISIBLE_IF_KUNIT void cma_track_flush(void)
{
	flush_workqueue(cma_track_wq);
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_flush);

VISIBLE_IF_KUNIT void cma_track_snapshot(struct rdma_id_private *id_priv,
					 struct cma_track_snap *snap)
{
	mutex_lock(&id_priv->handler_mutex);
	*snap = id_priv->track.snap;
	mutex_unlock(&id_priv->handler_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_snapshot);
#endif

/*
 * The snapshot an id starts with, from what its address resolution or bind
 * found; cheap (no route lookup): incoming connections come through here.
 * Before the id is indexed, so its work cannot run yet.
 */
static void cma_track_snap_init(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_track_snap *s = &id_priv->track.snap;
	struct net_device *ndev;

	memset(s, 0, sizeof(*s));
	rcu_read_lock();
	ndev = dev_get_by_index_rcu(cma_net(id_priv), dev_addr->bound_dev_if);
	if (ndev) {
		s->mtu = READ_ONCE(ndev->mtu);
		s->link_up = netif_running(ndev) && netif_carrier_ok(ndev);
	}
	rcu_read_unlock();
	s->oif = dev_addr->bound_dev_if;
	s->route_ok = true;
	memcpy(s->nh_mac, dev_addr->dst_dev_addr, ETH_ALEN);
}

void cma_track_attach(struct rdma_id_private *id_priv)
{
	if (id_priv->internal_id || !id_priv->id.route.addr.dev_addr.bound_dev_if)
		return;
	cma_track_snap_init(id_priv);
	cma_track_index(id_priv, CMA_TRACK_DEV);
	cma_track_index(id_priv, CMA_TRACK_ADDR);
}

void cma_track_route(struct rdma_id_private *id_priv)
{
	cma_track_index(id_priv, CMA_TRACK_NEIGH);
}

static void cma_track_unindex_locked(struct rdma_id_private *id_priv,
				     enum cma_track_kind kind)
{
	struct cma_track_link *link = &id_priv->track.link[kind];

	lockdep_assert_held(&cma_track_lock);
	if (!link->ent)
		return;
	list_del_init(&link->item);
	if (list_empty(&link->ent->ids)) {
		hash_del(&link->ent->node);
		kfree(link->ent);
	}
	link->ent = NULL;
}

void cma_track_unlink(struct rdma_id_private *id_priv)
{
	unsigned long flags;
	int k;

	spin_lock_irqsave(&cma_track_lock, flags);
	for (k = 0; k < CMA_TRACK_NKINDS; k++)
		cma_track_unindex_locked(id_priv, k);
	spin_unlock_irqrestore(&cma_track_lock, flags);
}

/* An iWARP id's next hop changed: index it by the new one. */
static void cma_track_reindex_neigh(struct rdma_id_private *id_priv)
{
	unsigned long flags;

	lockdep_assert_held(&id_priv->handler_mutex);
	spin_lock_irqsave(&cma_track_lock, flags);
	cma_track_unindex_locked(id_priv, CMA_TRACK_NEIGH);
	spin_unlock_irqrestore(&cma_track_lock, flags);
	cma_track_index(id_priv, CMA_TRACK_NEIGH);
}

/*
 * Mark @ev on an id found in the index and queue its work; @when_ns: the
 * time of the event behind it.
 */
static void cma_track_kick_at(struct rdma_id_private *id_priv,
			      enum cma_track_ev ev, u64 when_ns)
{
	lockdep_assert_held(&cma_track_lock);
	atomic_long_inc(&cma_track_kick_count);
	/* The oldest event not yet taken: the start of the latency. */
	atomic64_cmpxchg(&id_priv->track.ev_time, 0, when_ns);
	set_bit(ev, &id_priv->track.pending);
	cma_id_get(id_priv);
	if (!queue_work(cma_track_wq, &id_priv->track.work))
		cma_id_put(id_priv);
}

static void cma_track_kick(struct rdma_id_private *id_priv,
			   enum cma_track_ev ev)
{
	cma_track_kick_at(id_priv, ev, ktime_get_ns());
}

/*
 * Call @fn on every id indexed under @key. Atomic context allowed;
 * @fn runs under cma_track_lock.
 */
static void cma_track_for_key(const struct cma_track_key *key,
			      void (*fn)(struct rdma_id_private *id_priv,
					 const void *arg),
			      const void *arg)
{
	struct rdma_id_private *id_priv;
	struct cma_track_link *link;
	struct cma_track_ent *ent;
	unsigned long flags;

	spin_lock_irqsave(&cma_track_lock, flags);
	ent = cma_track_find(key);
	if (ent) {
		list_for_each_entry(link, &ent->ids, item) {
			id_priv = container_of(link - key->kind,
					       struct rdma_id_private,
					       track.link[0]);
			atomic_long_inc(&cma_track_visit_count);
			fn(id_priv, arg);
		}
	}
	spin_unlock_irqrestore(&cma_track_lock, flags);
}

static void cma_track_revalidate_fn(struct rdma_id_private *id_priv,
				    const void *arg)
{
	cma_track_kick(id_priv, CMA_TRACK_EV_REVALIDATE);
}

struct cma_track_route_arg {
	const struct cma_track_prefix	*p;
	u64				when_ns;
};

/* An id indexed by route whose destination the changed prefix covers. */
static void cma_track_route_fn(struct rdma_id_private *id_priv,
			       const void *arg)
{
	const struct cma_track_route_arg *a = arg;
	const struct sockaddr *dst = cma_dst_addr(id_priv);
	const struct sockaddr_in *sin = (const struct sockaddr_in *)dst;
	struct in6_addr d;

	if (!a->p->all) {
		if (dst->sa_family != a->p->family)
			return;
		if (dst->sa_family == AF_INET)
			ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, &d);
		else
			d = ((const struct sockaddr_in6 *)dst)->sin6_addr;
		if (!ipv6_prefix_equal(&d, &a->p->addr, a->p->plen))
			return;
	}
	cma_track_kick_at(id_priv, CMA_TRACK_EV_REVALIDATE, a->when_ns);
}

void cma_track_queue(struct work_struct *work)
{
	queue_work(cma_track_wq, work);
}

void cma_track_route_event(const struct net *net,
			   const struct cma_track_prefix *p, u64 when_ns)
{
	struct cma_track_route_arg arg = { .p = p, .when_ns = when_ns };
	struct cma_track_key key;

	memset(&key, 0, sizeof(key));
	key.net = net;
	key.kind = CMA_TRACK_ROUTE;
	cma_track_for_key(&key, cma_track_route_fn, &arg);
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_route_event);

static void cma_track_addr_gone_fn(struct rdma_id_private *id_priv,
				   const void *arg)
{
	cma_track_kick(id_priv, CMA_TRACK_EV_ADDR_GONE);
}

static void cma_track_dev_key(struct cma_track_key *key,
			      const struct net_device *ndev)
{
	memset(key, 0, sizeof(*key));
	key->net = dev_net(ndev);
	key->ifindex = ndev->ifindex;
	key->kind = CMA_TRACK_DEV;
}

static void cma_track_dev_revalidate(const struct net_device *ndev)
{
	struct cma_track_key key;

	cma_track_dev_key(&key, ndev);
	cma_track_for_key(&key, cma_track_revalidate_fn, NULL);
}

/*
 * As in-tree: after a bond's failover, an id bound to the bond whose
 * source MAC is not the bond's (new) MAC gets ADDR_CHANGE. The id's MAC is
 * not updated, so a later failover back to it delivers nothing.
 */
static void cma_track_failover_fn(struct rdma_id_private *id_priv,
				  const void *arg)
{
	const struct net_device *ndev = arg;

	cma_track_kick(id_priv, CMA_TRACK_EV_REVALIDATE);
	if (!memcmp(id_priv->id.route.addr.dev_addr.src_dev_addr,
		    ndev->dev_addr, ndev->addr_len))
		return;
	pr_info_ratelimited("address change on %s under id %p\n",
			    ndev->name, &id_priv->id);
	cma_track_kick(id_priv, CMA_TRACK_EV_ADDR_CHANGE);
}

static int cma_track_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct netdev_notifier_changeupper_info *up;
	struct cma_track_key key;

	switch (event) {
	case NETDEV_BONDING_FAILOVER:
		if (!netif_is_bond_master(ndev))
			break;
		cma_track_dev_key(&key, ndev);
		cma_track_for_key(&key, cma_track_failover_fn, ndev);
		break;
	case NETDEV_CHANGEUPPER:
		up = ptr;
		cma_track_dev_revalidate(ndev);
		cma_track_dev_revalidate(up->upper_dev);
		break;
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGEADDR:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_UNREGISTER:
		cma_track_dev_revalidate(ndev);
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

/* Neighbour update: the id's destination MAC as the notifier saw it. */
struct cma_track_neigh_arg {
	const u8	*ha;
	unsigned int	len;
};

/*
 * As in-tree: a RoCE id whose destination's neighbour now has another MAC
 * than the one its route was resolved with gets UNREACHABLE (-ETIMEDOUT).
 */
static void cma_track_neigh_fn(struct rdma_id_private *id_priv,
			       const void *arg)
{
	const struct cma_track_neigh_arg *a = arg;

	if (id_priv->track.neigh_path_only) {
		/* iWARP: the offload interface's next hop, no ULP event. */
		cma_track_kick(id_priv, CMA_TRACK_EV_REVALIDATE);
		return;
	}
	if (!memcmp(id_priv->id.route.addr.dev_addr.dst_dev_addr, a->ha,
		    a->len))
		return;
	cma_track_kick(id_priv, CMA_TRACK_EV_REVALIDATE);
	cma_track_kick(id_priv, CMA_TRACK_EV_UNREACHABLE);
}

static bool cma_track_neigh_key(struct cma_track_key *key,
				const struct neighbour *n, const void *ip)
{
	memset(key, 0, sizeof(*key));
	key->net = dev_net(n->dev);
	key->ifindex = n->dev->ifindex;
	key->kind = CMA_TRACK_NEIGH;
	key->family = n->tbl->family;
	if (key->family == AF_INET)
		memcpy(&key->ip.v4, ip, sizeof(key->ip.v4));
	else if (key->family == AF_INET6)
		memcpy(&key->ip.v6, ip, sizeof(key->ip.v6));
	else
		return false;
	return true;
}

static void cma_track_neigh_update(struct neighbour *n)
{
	struct cma_track_neigh_arg arg;
	struct cma_track_key key;
	u8 ha[MAX_ADDR_LEN];

	if (!cma_track_neigh_key(&key, n, n->primary_key) ||
	    n->dev->addr_len > MAX_ADDR_LEN)
		return;
	neigh_ha_snapshot(ha, n, n->dev);
	arg.ha = ha;
	arg.len = n->dev->addr_len;
	cma_track_for_key(&key, cma_track_neigh_fn, &arg);
}

static int cma_track_netevent(struct notifier_block *nb, unsigned long event,
			      void *ctx)
{
	struct netevent_redirect *redir;
	struct cma_track_key key;

	switch (event) {
	case NETEVENT_NEIGH_UPDATE:
		/* Pending address resolutions first (addr.c). */
		cma_addr_neigh_event(ctx);
		cma_track_neigh_update(ctx);
		break;
	case NETEVENT_REDIRECT:
		/* IPv6 only in 6.12: the destination's route changed. */
		redir = ctx;
		if (!redir->neigh || !redir->old || !redir->old->dev)
			break;
		if (!cma_track_neigh_key(&key, redir->neigh, redir->daddr))
			break;
		key.ifindex = redir->old->dev->ifindex;
		cma_track_for_key(&key, cma_track_revalidate_fn, NULL);
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

/*
 * A local address added or removed. Removed: the ids whose source it was
 * (CMA_TRACK_EV_ADDR_GONE). Added: the ids on its netdev re-validate (a new
 * connected route may take their traffic).
 */
VISIBLE_IF_KUNIT void cma_track_addr_event(unsigned long event,
					   struct net_device *ndev,
					   int family, const void *ip)
{
	struct cma_track_key key;

	if (event == NETDEV_UP) {
		cma_track_dev_revalidate(ndev);
		return;
	}
	if (event != NETDEV_DOWN)
		return;
	memset(&key, 0, sizeof(key));
	key.net = dev_net(ndev);
	key.kind = CMA_TRACK_ADDR;
	key.family = family;
	if (family == AF_INET)
		memcpy(&key.ip.v4, ip, sizeof(key.ip.v4));
	else
		memcpy(&key.ip.v6, ip, sizeof(key.ip.v6));
	cma_track_for_key(&key, cma_track_addr_gone_fn, NULL);
	cma_track_dev_revalidate(ndev);
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_addr_event);

static int cma_track_inetaddr(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct in_ifaddr *ifa = ptr;

	cma_track_addr_event(event, ifa->ifa_dev->dev, AF_INET,
			     &ifa->ifa_local);
	return NOTIFY_DONE;
}

static int cma_track_inet6addr(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct inet6_ifaddr *ifa = ptr;

	cma_track_addr_event(event, ifa->idev->dev, AF_INET6, &ifa->addr);
	return NOTIFY_DONE;
}

/*
 * Re-read what the id's path depends on; count a change. Process context,
 * handler_mutex held (the snapshot's lock).
 */
static void cma_track_revalidate(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_track_snap *old = &id_priv->track.snap;
	struct cma_track_snap s = *old;
	struct cma_addr_res *res;
	struct net_device *ndev;
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	s.mtu = 0;
	s.link_up = false;
	ndev = dev_get_by_index(cma_net(id_priv), dev_addr->bound_dev_if);
	if (ndev) {
		s.mtu = READ_ONCE(ndev->mtu);
		s.link_up = netif_running(ndev) && netif_carrier_ok(ndev);
		dev_put(ndev);
	}

	if (cma_dst_addr(id_priv)->sa_family == AF_INET ||
	    cma_dst_addr(id_priv)->sa_family == AF_INET6) {
		res = kzalloc(sizeof(*res), GFP_KERNEL);
		if (!res)
			return;
		ret = cma_addr_lookup(cma_net(id_priv), cma_src_addr(id_priv),
				      cma_dst_addr(id_priv), res);
		s.route_ok = ret >= 0;
		s.oif = s.route_ok ? res->ifindex : 0;
		if (s.route_ok)
			s.nh_ip = res->nh_ip;
		else
			memset(&s.nh_ip, 0, sizeof(s.nh_ip));
		if (ret)
			eth_zero_addr(s.nh_mac);
		else
			memcpy(s.nh_mac, res->dst_ha, ETH_ALEN);
		kfree(res);
	}

	s.updates = old->updates;
	if (memcmp(&s, old, sizeof(s))) {
		bool nh_moved = !ipv6_addr_equal(&s.nh_ip, &old->nh_ip);

		s.updates++;
		*old = s;
		if (nh_moved && id_priv->track.neigh_path_only)
			cma_track_reindex_neigh(id_priv);
	}
}

/*
 * The snapshot to iw_cm, which tells the driver subscribed to the id's
 * iw_cm_id what changed (iw_cm/track.c). handler_mutex held: the snapshot's
 * lock, and the id is not DESTROYING, so its iw_cm_id is alive.
 */
static void cma_track_push(struct rdma_id_private *id_priv, u64 when_ns)
{
	const struct cma_track_snap *s = &id_priv->track.snap;
	struct orcm_track_path path = {
		.mtu = s->mtu,
		.oif = s->oif,
		.nh_ip = s->nh_ip,
		.link_up = s->link_up,
		.route_ok = s->route_ok,
		.addr_present = !s->addr_gone,
		.updates = s->updates,
		.event_time = ns_to_ktime(when_ns),
	};

	lockdep_assert_held(&id_priv->handler_mutex);
	if (!cma_has_iw_cm(id_priv) || id_priv->internal_id ||
	    !id_priv->id.route.addr.dev_addr.bound_dev_if)
		return;
	memcpy(path.nh_mac, s->nh_mac, ETH_ALEN);
	orcm_iw_track_update(id_priv->cm_id.iw, &path);
}

void cma_track_iw_start(struct rdma_id_private *id_priv)
{
	lockdep_assert_held(&id_priv->handler_mutex);
	if (!cma_has_iw_cm(id_priv) || id_priv->internal_id ||
	    !id_priv->id.route.addr.dev_addr.bound_dev_if)
		return;
	/*
	 * Its next hop too, which in-tree tracks for RoCE ids only, keyed by
	 * the next hop the re-validation finds; and its route.
	 */
	id_priv->track.neigh_path_only = true;
	cma_track_revalidate(id_priv);
	cma_track_index(id_priv, CMA_TRACK_NEIGH);
	cma_track_index(id_priv, CMA_TRACK_ROUTE);
	cma_track_push(id_priv, 0);
}
EXPORT_SYMBOL_IF_KUNIT(cma_track_iw_start);

static bool cma_track_deliver(struct rdma_id_private *id_priv,
			      enum rdma_cm_event_type type, int status)
{
	struct rdma_cm_event ev = { .event = type, .status = status };

	return cma_deliver(id_priv, &ev);
}

static void cma_track_work(struct work_struct *work)
{
	struct rdma_id_private *id_priv =
		container_of(work, struct rdma_id_private, track.work);
	unsigned long pending = xchg(&id_priv->track.pending, 0);
	u64 when = atomic64_xchg(&id_priv->track.ev_time, 0);
	u64 start = ktime_get_ns();
	enum rdma_cm_state state;

	if (when)
		atomic64_set(&cma_track_last_delay_ns, start - when);
	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	if (state == RDMA_CM_DESTROYING || state == RDMA_CM_DEVICE_REMOVAL)
		goto out_unlock;

	if (pending & BIT(CMA_TRACK_EV_ADDR_GONE))
		id_priv->track.snap.addr_gone = true;
	if (pending & (BIT(CMA_TRACK_EV_REVALIDATE) |
		       BIT(CMA_TRACK_EV_ADDR_GONE))) {
		cma_track_revalidate(id_priv);
		cma_track_push(id_priv, when);
		if (when)
			atomic64_set(&cma_track_last_run_ns,
				     ktime_get_ns() - start);
	}

	if ((pending & BIT(CMA_TRACK_EV_ADDR_CHANGE) &&
	     cma_track_deliver(id_priv, RDMA_CM_EVENT_ADDR_CHANGE, 0)) ||
	    (pending & BIT(CMA_TRACK_EV_UNREACHABLE) &&
	     cma_track_deliver(id_priv, RDMA_CM_EVENT_UNREACHABLE,
			       -ETIMEDOUT))) {
		/*
		 * The consumer asked for the id's end, as for any event. The
		 * release waits for every reference: one that a notifier took
		 * by queueing this work again while it runs would wait for
		 * us. So: out of the index (no more kicks), drop a queued
		 * rerun with its reference, then our own.
		 */
		cma_track_unlink(id_priv);
		if (cancel_work(&id_priv->track.work))
			cma_id_put(id_priv);
		cma_id_put(id_priv);	/* the work's; the id's own remains */
		cma_destroy_handler_locked(id_priv);
		return;
	}
out_unlock:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

static int cma_track_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "kicks %ld\nvisits %ld\nlast_delay_ns %lld\nlast_run_ns %lld\n",
		   atomic_long_read(&cma_track_kick_count),
		   atomic_long_read(&cma_track_visit_count),
		   (long long)atomic64_read(&cma_track_last_delay_ns),
		   (long long)atomic64_read(&cma_track_last_run_ns));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cma_track);

void cma_track_debugfs(struct dentry *dir)
{
	debugfs_create_file("track", 0444, dir, NULL, &cma_track_fops);
}

static struct notifier_block cma_track_netdev_nb = {
	.notifier_call = cma_track_netdev_event,
};

static struct notifier_block cma_track_netevent_nb = {
	.notifier_call = cma_track_netevent,
};

static struct notifier_block cma_track_inetaddr_nb = {
	.notifier_call = cma_track_inetaddr,
};

static struct notifier_block cma_track_inet6addr_nb = {
	.notifier_call = cma_track_inet6addr,
};

int cma_track_init(void)
{
	int ret;

	/*
	 * MEM_RECLAIM: storage ULPs reconnect on these events. HIGHPRI: an
	 * offloaded RNIC keeps sending FPDUs of the old size until its
	 * callback runs, and a normal-priority worker waits behind busy
	 * pollers (a CQ-polling ULP thread) for a scheduler tick or more; the
	 * work is rare and short (a lookup and a few callbacks per id).
	 */
	cma_track_wq = alloc_workqueue("rdma_cm_track",
				       WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_HIGHPRI,
				       0);
	if (!cma_track_wq)
		return -ENOMEM;
	ret = register_netdevice_notifier(&cma_track_netdev_nb);
	if (ret)
		goto err_wq;
	ret = register_netevent_notifier(&cma_track_netevent_nb);
	if (ret)
		goto err_netdev;
	ret = register_inetaddr_notifier(&cma_track_inetaddr_nb);
	if (ret)
		goto err_netevent;
	if (IS_ENABLED(CONFIG_IPV6)) {
		ret = register_inet6addr_notifier(&cma_track_inet6addr_nb);
		if (ret)
			goto err_inet;
	}
	ret = cma_track_fib_init();
	if (ret)
		goto err_inet6;
	return 0;

err_inet6:
	if (IS_ENABLED(CONFIG_IPV6))
		unregister_inet6addr_notifier(&cma_track_inet6addr_nb);
err_inet:
	unregister_inetaddr_notifier(&cma_track_inetaddr_nb);
err_netevent:
	unregister_netevent_notifier(&cma_track_netevent_nb);
err_netdev:
	unregister_netdevice_notifier(&cma_track_netdev_nb);
err_wq:
	destroy_workqueue(cma_track_wq);
	return ret;
}

void cma_track_exit(void)
{
	/* No notifier runs after these return; then drain the work. */
	cma_track_fib_exit();
	if (IS_ENABLED(CONFIG_IPV6))
		unregister_inet6addr_notifier(&cma_track_inet6addr_nb);
	unregister_inetaddr_notifier(&cma_track_inetaddr_nb);
	unregister_netevent_notifier(&cma_track_netevent_nb);
	unregister_netdevice_notifier(&cma_track_netdev_nb);
	destroy_workqueue(cma_track_wq);
	WARN_ON(!hash_empty(cma_track_table));
}

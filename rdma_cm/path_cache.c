// SPDX-License-Identifier: GPL-2.0
/*
 * A path record cache for InfiniBand route resolution, shared by every id.
 *
 * In-tree asks the subnet administrator once per rdma_resolve_route(); a
 * thousand connects to one destination are a thousand SA queries. Here a
 * record is kept per key (device, port, SGID, DGID, P_Key, traffic class
 * when the id set one, service id: what the query asks for, so what the SA
 * may answer differently), for path_cache_ttl_ms (default 5 minutes; 0
 * turns the cache off and every resolution queries, as in-tree). Concurrent
 * misses of one key are one query: the first makes the entry PENDING and
 * starts the query, later ones wait on it.
 *
 * Bounds (any local user can make keys: a fresh service id, ToS or
 * destination per resolution): at most path_cache_max_entries entries in
 * all and path_cache_max_per_device per device, queries in flight
 * included. A miss that would pass a cap first evicts the oldest kept
 * record (of the device, or of all); when every entry is a query in
 * flight, the miss queries without caching, as in-tree. A clock (one
 * delayed work) frees records when their lifetime ends, whether or not
 * anyone looks them up again. Entries and waiters are charged to the
 * memory cgroup of the task that asked (GFP_KERNEL_ACCOUNT).
 *
 * Deadlines: the query of an entry runs with its first asker's timeout. A
 * later asker with the same timeout or a shorter one waits for it; if its
 * own deadline comes first it is on cma_pc_timed, and the clock fails it
 * with -ETIMEDOUT (what the SA client reports for a query that timed out)
 * then, so nobody waits longer than asked. An asker with a longer timeout
 * is not made to give up sooner than it asked: its own query takes the
 * key, and the shorter one answers its waiters without being kept.
 *
 * Invalidation: the port events after which a record may be wrong (LID,
 * SM, client reregister, P_Key table, GID table, port error) drop the
 * port's entries at once; an entry whose query is in flight then delivers
 * its answer to its waiters but is not kept. A connect through a cached
 * record that fails (REQ or SIDR_REQ timeout, REJ, SIDR_REP with an error
 * status: cma_pc_conn_failed()) drops every record of that device and port
 * with the path's SGID, DGID and P_Key, so that the next resolution asks
 * the SA again. A change of the remote port that no connect has yet run
 * into is seen only when the record expires (the TTL is the bound).
 *
 * Locking: cma_pc_lock (a spinlock; the SA callback may run in a context
 * that cannot sleep) protects the table, every entry, the per-device
 * counts, the LRU lists, cma_pc_timed and the waiter lists, and an id's
 * @query while it points to a waiter. A waiter holds a reference on its
 * id; whoever unlinks it (the answer, the clock at its deadline, or the
 * id's destroy through cma_pc_cancel()) clears the id's @query under the
 * lock and frees the waiter. Counters in /sys/kernel/debug/rdma_cm/path_cache.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/rbtree.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"
#include "ib.h"
#include "path_cache.h"

static unsigned int path_cache_ttl_ms = 300000;
module_param(path_cache_ttl_ms, uint, 0644);
MODULE_PARM_DESC(path_cache_ttl_ms,
		 "lifetime of a cached InfiniBand path record in ms (0: no cache, one SA query per route resolution)");

static unsigned int path_cache_max_entries = 4096;
module_param(path_cache_max_entries, uint, 0644);
MODULE_PARM_DESC(path_cache_max_entries,
		 "most InfiniBand path records cached or queried at once, all devices (the oldest record makes room; 0: no cache)");

static unsigned int path_cache_max_per_device = 1024;
module_param(path_cache_max_per_device, uint, 0644);
MODULE_PARM_DESC(path_cache_max_per_device,
		 "most InfiniBand path records cached or queried at once per device (the device's oldest record makes room)");

#define CMA_PC_HASH_BITS	8

struct cma_pc_key {
	struct ib_device	*device;
	u32			port;
	union ib_gid		sgid;
	union ib_gid		dgid;
	__be16			pkey;
	u8			tclass;
	u8			tclass_set;
	__be64			sid;
};

enum cma_pc_state { CMA_PC_PENDING, CMA_PC_VALID };

/* The hashed entries of one device; freed with its last entry. */
struct cma_pc_dev {
	struct list_head	node;		/* on cma_pc_devs */
	struct ib_device	*device;	/* a key, never dereferenced */
	unsigned int		entries;
	struct list_head	lru;		/* its VALID entries, oldest first */
};

struct cma_pc_ent {
	struct hlist_node	node;		/* while @hashed */
	struct cma_pc_dev	*dev;		/* while @hashed */
	struct list_head	lru;		/* VALID and @hashed: cma_pc_lru */
	struct list_head	dev_lru;	/* likewise: @dev->lru */
	struct cma_pc_key	key;
	enum cma_pc_state	state;
	bool			hashed;
	struct sa_path_rec	rec;		/* CMA_PC_VALID */
	unsigned long		expires;	/* jiffies, CMA_PC_VALID */
	unsigned long		deadline;	/* jiffies, the query's timeout */
	unsigned long		timeout_ms;	/* the query's */
	struct list_head	waiters;	/* CMA_PC_PENDING */
};

/* An id waiting for the answer of an entry's query. */
struct cma_pc_waiter {
	struct list_head	node;
	struct rb_node		timed;		/* on cma_pc_timed if @on_clock */
	bool			on_clock;
	unsigned long		deadline;	/* jiffies */
	struct rdma_id_private	*id_priv;
};

/* Start an SA PathRecord query (KUnit answers them itself). */
static int cma_pc_sa_query(struct ib_device *device, u32 port,
			   struct sa_path_rec *query, ib_sa_comp_mask mask,
			   unsigned long timeout_ms, cma_pc_done_fn done,
			   void *context)
{
	struct ib_sa_query *sa_query;

	return ib_sa_path_rec_get(&cma_sa_client, device, port, query, mask,
				  timeout_ms, GFP_KERNEL, done, context,
				  &sa_query);
}

static cma_pc_query_fn cma_pc_query = cma_pc_sa_query;

#if IS_ENABLED(CONFIG_KUNIT)
/* KUnit: start queries with @fn (NULL: the SA's) and keep for @ttl_ms. */
void cma_pc_test_hooks(cma_pc_query_fn fn, unsigned int ttl_ms)
{
	cma_pc_query = fn ?: cma_pc_sa_query;
	WRITE_ONCE(path_cache_ttl_ms, ttl_ms);
}
EXPORT_SYMBOL_IF_KUNIT(cma_pc_test_hooks);

/* KUnit: the caps, as the module parameters set them. */
void cma_pc_test_caps(unsigned int max, unsigned int max_per_device)
{
	WRITE_ONCE(path_cache_max_entries, max);
	WRITE_ONCE(path_cache_max_per_device, max_per_device);
}
EXPORT_SYMBOL_IF_KUNIT(cma_pc_test_caps);
#endif

static void cma_pc_tick(struct work_struct *work);

static DEFINE_SPINLOCK(cma_pc_lock);
static DEFINE_HASHTABLE(cma_pc_table, CMA_PC_HASH_BITS);	/* cma_pc_lock */
static struct cma_pc_stats cma_pc_stats;	/* cma_pc_lock */
static LIST_HEAD(cma_pc_devs);			/* cma_pc_lock */
static LIST_HEAD(cma_pc_lru);	/* cma_pc_lock; VALID entries, oldest first */
static struct rb_root cma_pc_timed = RB_ROOT;	/* cma_pc_lock; by deadline */
/* Frees expired records and fails waiters at their deadlines. */
static DECLARE_DELAYED_WORK(cma_pc_clock, cma_pc_tick);

static u32 cma_pc_hash(const struct cma_pc_key *key)
{
	return jhash(key, sizeof(*key), 0);
}

static void cma_pc_key_fill(struct cma_pc_key *key,
			    struct rdma_id_private *id_priv,
			    const struct sa_path_rec *query,
			    ib_sa_comp_mask mask)
{
	memset(key, 0, sizeof(*key));
	key->device = id_priv->id.device;
	key->port = id_priv->id.port_num;
	key->sgid = query->sgid;
	key->dgid = query->dgid;
	key->pkey = query->pkey;
	key->sid = query->service_id;
	if (mask & IB_SA_PATH_REC_TRAFFIC_CLASS) {
		key->tclass = query->traffic_class;
		key->tclass_set = 1;
	}
}

static struct cma_pc_ent *cma_pc_find(const struct cma_pc_key *key)
{
	struct cma_pc_ent *ent;

	lockdep_assert_held(&cma_pc_lock);
	hash_for_each_possible(cma_pc_table, ent, node, cma_pc_hash(key))
		if (!memcmp(&ent->key, key, sizeof(*key)))
			return ent;
	return NULL;
}

static void cma_pc_unhash(struct cma_pc_ent *ent)
{
	struct cma_pc_dev *dev = ent->dev;

	lockdep_assert_held(&cma_pc_lock);
	if (!ent->hashed)
		return;
	hash_del(&ent->node);
	if (ent->state == CMA_PC_VALID) {
		list_del(&ent->lru);
		list_del(&ent->dev_lru);
	}
	ent->hashed = false;
	ent->dev = NULL;
	cma_pc_stats.entries--;
	if (!--dev->entries) {
		list_del(&dev->node);
		kfree(dev);
	}
}

static struct cma_pc_dev *cma_pc_dev_find(struct ib_device *device)
{
	struct cma_pc_dev *dev;

	lockdep_assert_held(&cma_pc_lock);
	list_for_each_entry(dev, &cma_pc_devs, node)
		if (dev->device == device)
			return dev;
	return NULL;
}

/* Drop the oldest kept record of @lru (a device's if @dev); false: none. */
static bool cma_pc_evict(struct list_head *lru, bool dev)
{
	struct cma_pc_ent *ent;

	lockdep_assert_held(&cma_pc_lock);
	if (list_empty(lru))
		return false;
	ent = dev ? list_first_entry(lru, struct cma_pc_ent, dev_lru) :
		    list_first_entry(lru, struct cma_pc_ent, lru);
	cma_pc_unhash(ent);
	kfree(ent);
	cma_pc_stats.evicted++;
	return true;
}

/*
 * Make room for one more entry of @device within both caps, evicting the
 * oldest kept records. Its cma_pc_dev (@spare if it has none yet, which
 * is then taken: *@spare is cleared), or NULL when the caps are full of
 * queries in flight: the caller queries without caching.
 */
static struct cma_pc_dev *cma_pc_make_room(struct ib_device *device,
					   struct cma_pc_dev **spare)
{
	unsigned int max_dev = READ_ONCE(path_cache_max_per_device);
	unsigned int max = READ_ONCE(path_cache_max_entries);
	struct cma_pc_dev *dev;
	bool last;

	lockdep_assert_held(&cma_pc_lock);
	if (!max || !max_dev)
		return NULL;
	dev = cma_pc_dev_find(device);
	while (dev && dev->entries >= max_dev) {
		last = dev->entries == 1;	/* its eviction frees @dev */
		if (!cma_pc_evict(&dev->lru, true))
			return NULL;
		if (last)
			dev = NULL;
	}
	while (cma_pc_stats.entries >= max) {
		if (!cma_pc_evict(&cma_pc_lru, false))
			return NULL;
		dev = NULL;		/* may be gone: look it up again */
	}
	dev = dev ?: cma_pc_dev_find(device);
	if (!dev) {
		dev = *spare;
		*spare = NULL;
		dev->device = device;
		INIT_LIST_HEAD(&dev->lru);
		list_add_tail(&dev->node, &cma_pc_devs);
	}
	return dev;
}

/* Arm the clock for the next expiry or waiter deadline, if any. */
static void cma_pc_arm(void)
{
	unsigned long next = 0, now = jiffies;
	struct cma_pc_waiter *w;
	struct cma_pc_ent *ent;
	struct rb_node *rb;
	bool any = false;

	lockdep_assert_held(&cma_pc_lock);
	ent = list_first_entry_or_null(&cma_pc_lru, struct cma_pc_ent, lru);
	if (ent) {
		next = ent->expires;
		any = true;
	}
	rb = rb_first(&cma_pc_timed);
	if (rb) {
		w = rb_entry(rb, struct cma_pc_waiter, timed);
		if (!any || time_before(w->deadline, next))
			next = w->deadline;
		any = true;
	}
	if (any)
		mod_delayed_work(system_wq, &cma_pc_clock,
				 time_after(next, now) ? next - now : 0);
}

/* Keep @w's own deadline: the clock fails it then. */
static void cma_pc_timed_add(struct cma_pc_waiter *w)
{
	struct rb_node **p = &cma_pc_timed.rb_node, *parent = NULL;

	lockdep_assert_held(&cma_pc_lock);
	while (*p) {
		struct cma_pc_waiter *o;

		parent = *p;
		o = rb_entry(parent, struct cma_pc_waiter, timed);
		p = time_before(w->deadline, o->deadline) ?
			&parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&w->timed, parent, p);
	rb_insert_color(&w->timed, &cma_pc_timed);
	w->on_clock = true;
	cma_pc_arm();
}

/* @w no longer waits: off its entry's list and the clock. */
static void cma_pc_waiter_unlink(struct cma_pc_waiter *w)
{
	lockdep_assert_held(&cma_pc_lock);
	list_del_init(&w->node);
	if (w->on_clock) {
		rb_erase(&w->timed, &cma_pc_timed);
		w->on_clock = false;
	}
	w->id_priv->query = NULL;
}

/* The route of @id_priv (in ROUTE_QUERY) is @rec, or it failed. */
static void cma_pc_deliver(struct rdma_id_private *id_priv, int status,
			   const struct sa_path_rec *rec)
{
	struct rdma_route *route = &id_priv->id.route;
	struct rdma_cm_event ev = {};

	if (!status) {
		/* The id is in ROUTE_QUERY: nobody else touches the route. */
		route->path_rec[0] = *rec;
		route->num_pri_alt_paths = 1;
		id_priv->pc_route = true;
		ev.event = RDMA_CM_EVENT_ROUTE_RESOLVED;
		cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
				RDMA_CM_ROUTE_RESOLVED, &ev);
	} else {
		ev.event = RDMA_CM_EVENT_ROUTE_ERROR;
		ev.status = status;
		cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
				RDMA_CM_ADDR_RESOLVED, &ev);
	}
}

/* Hand every waiter of @ent the answer; the lock is dropped meanwhile. */
static void cma_pc_answer(struct cma_pc_ent *ent, int status,
			  const struct sa_path_rec *rec, unsigned long flags)
	__releases(&cma_pc_lock)
{
	struct cma_pc_waiter *w, *tmp;
	LIST_HEAD(waiters);

	lockdep_assert_held(&cma_pc_lock);
	list_for_each_entry_safe(w, tmp, &ent->waiters, node) {
		cma_pc_waiter_unlink(w);
		list_add_tail(&w->node, &waiters);
	}
	spin_unlock_irqrestore(&cma_pc_lock, flags);

	list_for_each_entry_safe(w, tmp, &waiters, node) {
		cma_pc_deliver(w->id_priv, status, rec);
		cma_id_put(w->id_priv);
		kfree(w);
	}
}

/* The SA's answer to an entry's query. Any context. */
static void cma_pc_done(int status, struct sa_path_rec *resp,
			orcm_num_prs_t num_prs, void *context)
{
	struct cma_pc_ent *ent = context;
	unsigned long flags;
	bool keep;

	if (!status && (!resp || !num_prs))
		status = -EHOSTUNREACH;
	spin_lock_irqsave(&cma_pc_lock, flags);
	keep = !status && ent->hashed && READ_ONCE(path_cache_ttl_ms);
	if (keep) {
		ent->rec = *resp;
		ent->expires = jiffies +
			       msecs_to_jiffies(READ_ONCE(path_cache_ttl_ms));
		ent->state = CMA_PC_VALID;
		list_add_tail(&ent->lru, &cma_pc_lru);
		list_add_tail(&ent->dev_lru, &ent->dev->lru);
		cma_pc_arm();
	} else {
		cma_pc_unhash(ent);
	}
	cma_pc_answer(ent, status, resp, flags);
	if (!keep)
		kfree(ent);
}

/*
 * Resolve the route of @id_priv (in ROUTE_QUERY, its path_rec array
 * allocated) for @query/@mask within @timeout_ms: from the cache, from a
 * query in flight, or by a new SA query. 0: its ROUTE_RESOLVED or
 * ROUTE_ERROR will come; or the error of a query that could not be
 * started (no event then).
 */
int cma_pc_resolve(struct rdma_id_private *id_priv, struct sa_path_rec *query,
		   ib_sa_comp_mask mask, unsigned long timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	struct cma_pc_ent *ent, *fresh;
	struct cma_pc_dev *dev, *spare;
	struct cma_pc_waiter *w;
	struct cma_pc_key key;
	struct sa_path_rec rec;
	unsigned long flags;
	bool cache;
	int ret;

	cma_pc_key_fill(&key, id_priv, query, mask);
	/* Charged to the asker's memory cgroup: it makes the key. */
	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	spare = kzalloc(sizeof(*spare), GFP_KERNEL_ACCOUNT);
	if (!w || !fresh || !spare) {
		ret = -ENOMEM;
		goto out_free;
	}
	w->id_priv = id_priv;
	w->deadline = deadline;
	INIT_LIST_HEAD(&w->node);

	cache = READ_ONCE(path_cache_ttl_ms);
	spin_lock_irqsave(&cma_pc_lock, flags);
	ent = cache ? cma_pc_find(&key) : NULL;
	if (ent && ent->state == CMA_PC_VALID &&
	    time_after_eq(jiffies, ent->expires)) {
		cma_pc_unhash(ent);
		kfree(ent);
		cma_pc_stats.expired++;
		ent = NULL;
	}
	if (ent && ent->state == CMA_PC_PENDING && timeout_ms > ent->timeout_ms) {
		/* Its query may give up before this asker would. */
		cma_pc_unhash(ent);
		ent = NULL;
	}
	if (ent && ent->state == CMA_PC_VALID) {
		cma_pc_stats.hits++;
		rec = ent->rec;
		spin_unlock_irqrestore(&cma_pc_lock, flags);
		cma_pc_deliver(id_priv, 0, &rec);
		ret = 0;
		goto out_free;
	}
	cma_id_get(id_priv);		/* the waiter's */
	id_priv->query = w;
	if (ent) {
		/* A query for this key is in flight: wait for its answer. */
		cma_pc_stats.coalesced++;
		list_add_tail(&w->node, &ent->waiters);
		/* Its timeout ends before the query's: the clock keeps it. */
		if (time_before(w->deadline, ent->deadline))
			cma_pc_timed_add(w);
		spin_unlock_irqrestore(&cma_pc_lock, flags);
		w = NULL;
		ret = 0;
		goto out_free;
	}
	cma_pc_stats.misses++;
	ent = fresh;
	fresh = NULL;
	ent->key = key;
	ent->state = CMA_PC_PENDING;
	ent->deadline = deadline;
	ent->timeout_ms = timeout_ms;
	INIT_LIST_HEAD(&ent->waiters);
	list_add_tail(&w->node, &ent->waiters);
	/*
	 * Without a cache, or with the caps full of queries in flight, an
	 * entry of its own that nobody else finds.
	 */
	dev = cache ? cma_pc_make_room(key.device, &spare) : NULL;
	if (cache && !dev)
		cma_pc_stats.uncached++;
	if (dev) {
		hash_add(cma_pc_table, &ent->node, cma_pc_hash(&key));
		ent->hashed = true;
		ent->dev = dev;
		dev->entries++;
		cma_pc_stats.entries++;
	}
	cma_pc_stats.queries++;
	spin_unlock_irqrestore(&cma_pc_lock, flags);
	kfree(spare);

	ret = cma_pc_query(key.device, key.port, query, mask, timeout_ms,
			   cma_pc_done, ent);
	if (ret >= 0)
		return 0;

	/*
	 * Not started: our own waiter goes without an event (only the
	 * query's answer, which never comes, or our own destroy, which
	 * cannot run during our call, unlink it); the others fail.
	 */
	spin_lock_irqsave(&cma_pc_lock, flags);
	cma_pc_waiter_unlink(w);
	cma_pc_unhash(ent);
	cma_pc_answer(ent, ret, NULL, flags);
	kfree(ent);
	kfree(w);
	cma_id_put(id_priv);
	return ret;

out_free:
	kfree(spare);
	kfree(fresh);
	kfree(w);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cma_pc_resolve);

/*
 * The destroy path of an id in ROUTE_QUERY: it stops waiting (no event
 * for it; a query in flight goes on for the others and the cache).
 */
void cma_pc_cancel(struct rdma_id_private *id_priv)
{
	struct cma_pc_waiter *w;
	unsigned long flags;

	spin_lock_irqsave(&cma_pc_lock, flags);
	w = id_priv->query;
	if (w)
		cma_pc_waiter_unlink(w);
	spin_unlock_irqrestore(&cma_pc_lock, flags);
	if (!w)
		return;
	kfree(w);
	cma_id_put(id_priv);
}
EXPORT_SYMBOL_IF_KUNIT(cma_pc_cancel);

/*
 * Drop the entries of @port of @device (every port if @port is 0; every
 * device if @device is NULL): a query in flight still answers its waiters,
 * and is not kept.
 */
void cma_pc_invalidate(struct ib_device *device, u32 port)
{
	struct cma_pc_ent *ent;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	spin_lock_irqsave(&cma_pc_lock, flags);
	hash_for_each_safe(cma_pc_table, bkt, tmp, ent, node) {
		if (device && (ent->key.device != device ||
			       (port && ent->key.port != port)))
			continue;
		cma_pc_unhash(ent);
		cma_pc_stats.invalidated++;
		if (ent->state == CMA_PC_VALID)
			kfree(ent);
	}
	spin_unlock_irqrestore(&cma_pc_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(cma_pc_invalidate);

/*
 * A connect through the cached path @rec of port @port of @device failed:
 * drop every kept record of that port with the path's SGID, DGID and
 * P_Key (whatever the service id or traffic class: the remote port they
 * lead to did not answer as the path said), so that the next resolution
 * asks the SA again.
 */
static void cma_pc_drop_path(struct ib_device *device, u32 port,
			     const struct sa_path_rec *rec)
{
	struct cma_pc_ent *ent, *tmp;
	struct cma_pc_dev *dev;
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&cma_pc_lock, flags);
	dev = cma_pc_dev_find(device);
	if (!dev)
		goto out;
	list_for_each_entry_safe(ent, tmp, &dev->lru, dev_lru) {
		if (ent->key.port != port || ent->key.pkey != rec->pkey ||
		    memcmp(&ent->key.dgid, &rec->dgid, sizeof(rec->dgid)) ||
		    memcmp(&ent->key.sgid, &rec->sgid, sizeof(rec->sgid)))
			continue;
		last = dev->entries == 1;	/* @dev goes with it */
		cma_pc_unhash(ent);
		kfree(ent);
		cma_pc_stats.failed++;
		if (last)
			break;
	}
out:
	spin_unlock_irqrestore(&cma_pc_lock, flags);
}

/*
 * A connect of @id_priv failed in a way that may mean its path is wrong
 * (no answer to its REQ or SIDR_REQ, a REJ, an error SIDR_REP). If its
 * route came from the cache, the record goes. The caller holds the id's
 * handler_mutex: the route does not change under it.
 */
void cma_pc_conn_failed(struct rdma_id_private *id_priv)
{
	struct rdma_route *route = &id_priv->id.route;

	lockdep_assert_held(&id_priv->handler_mutex);
	if (!id_priv->pc_route || !route->path_rec)
		return;
	cma_pc_drop_path(id_priv->id.device, id_priv->id.port_num,
			 &route->path_rec[0]);
}
EXPORT_SYMBOL_IF_KUNIT(cma_pc_conn_failed);

/* The clock: free expired records, fail waiters at their deadlines. */
static void cma_pc_tick(struct work_struct *work)
{
	struct cma_pc_waiter *w, *tmp;
	struct cma_pc_ent *ent;
	unsigned long flags;
	struct rb_node *rb;
	LIST_HEAD(late);

	spin_lock_irqsave(&cma_pc_lock, flags);
	while ((ent = list_first_entry_or_null(&cma_pc_lru,
					       struct cma_pc_ent, lru))) {
		if (time_before(jiffies, ent->expires))
			break;
		cma_pc_unhash(ent);
		kfree(ent);
		cma_pc_stats.expired++;
	}
	while ((rb = rb_first(&cma_pc_timed))) {
		w = rb_entry(rb, struct cma_pc_waiter, timed);
		if (time_before(jiffies, w->deadline))
			break;
		cma_pc_waiter_unlink(w);
		list_add_tail(&w->node, &late);
		cma_pc_stats.timed_out++;
	}
	cma_pc_arm();
	spin_unlock_irqrestore(&cma_pc_lock, flags);

	list_for_each_entry_safe(w, tmp, &late, node) {
		cma_pc_deliver(w->id_priv, -ETIMEDOUT, NULL);
		cma_id_put(w->id_priv);
		kfree(w);
	}
}

/* A port event after which a cached path may be wrong. */
void cma_pc_event(struct ib_event_handler *handler, struct ib_event *event)
{
	switch (event->event) {
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_PORT_ERR:
		cma_pc_invalidate(event->device, event->element.port_num);
		break;
	default:
		break;
	}
}

void cma_pc_read_stats(struct cma_pc_stats *stats)
{
	unsigned long flags;

	spin_lock_irqsave(&cma_pc_lock, flags);
	*stats = cma_pc_stats;
	spin_unlock_irqrestore(&cma_pc_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(cma_pc_read_stats);

static int cma_pc_show(struct seq_file *m, void *unused)
{
	struct cma_pc_stats s;

	cma_pc_read_stats(&s);
	seq_printf(m, "ttl_ms %u\nentries %lu\nqueries %lu\nmisses %lu\nhits %lu\ncoalesced %lu\nexpired %lu\ninvalidated %lu\n",
		   READ_ONCE(path_cache_ttl_ms), s.entries, s.queries,
		   s.misses, s.hits, s.coalesced, s.expired, s.invalidated);
	seq_printf(m, "max_entries %u\nmax_per_device %u\nevicted %lu\nuncached %lu\nfailed %lu\ntimed_out %lu\n",
		   READ_ONCE(path_cache_max_entries),
		   READ_ONCE(path_cache_max_per_device), s.evicted,
		   s.uncached, s.failed, s.timed_out);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cma_pc);

void cma_pc_debugfs(struct dentry *dir)
{
	debugfs_create_file("path_cache", 0444, dir, NULL, &cma_pc_fops);
}

/* Module exit, after every device left: the SA client waited for queries. */
void cma_pc_exit(void)
{
	cma_pc_invalidate(NULL, 0);
	cancel_delayed_work_sync(&cma_pc_clock);
}

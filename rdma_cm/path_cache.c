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
 * Invalidation: the port events after which a record may be wrong (LID,
 * SM, client reregister, P_Key table, GID table, port error) drop the
 * port's entries at once; an entry whose query is in flight then delivers
 * its answer to its waiters but is not kept. Expired entries are dropped
 * when looked up.
 *
 * Locking: cma_pc_lock (a spinlock; the SA callback may run in a context
 * that cannot sleep) protects the table, every entry and the waiter lists,
 * and an id's @query while it points to a waiter. A waiter holds a
 * reference on its id; whoever unlinks it (the answer, or the id's destroy
 * through cma_pc_cancel()) clears the id's @query under the lock and frees
 * the waiter. Counters in /sys/kernel/debug/rdma_cm/path_cache.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"
#include "ib.h"
#include "path_cache.h"

static unsigned int path_cache_ttl_ms = 300000;
module_param(path_cache_ttl_ms, uint, 0644);
MODULE_PARM_DESC(path_cache_ttl_ms,
		 "lifetime of a cached InfiniBand path record in ms (0: no cache, one SA query per route resolution)");

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

struct cma_pc_ent {
	struct hlist_node	node;		/* while @hashed */
	struct cma_pc_key	key;
	enum cma_pc_state	state;
	bool			hashed;
	struct sa_path_rec	rec;		/* CMA_PC_VALID */
	unsigned long		expires;	/* jiffies, CMA_PC_VALID */
	struct list_head	waiters;	/* CMA_PC_PENDING */
};

/* An id waiting for the answer of an entry's query. */
struct cma_pc_waiter {
	struct list_head	node;
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
#endif

static DEFINE_SPINLOCK(cma_pc_lock);
static DEFINE_HASHTABLE(cma_pc_table, CMA_PC_HASH_BITS);
static struct cma_pc_stats cma_pc_stats;	/* cma_pc_lock */

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
	lockdep_assert_held(&cma_pc_lock);
	if (!ent->hashed)
		return;
	hash_del(&ent->node);
	ent->hashed = false;
	cma_pc_stats.entries--;
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
	list_splice_init(&ent->waiters, &waiters);
	list_for_each_entry(w, &waiters, node)
		w->id_priv->query = NULL;
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
	} else {
		cma_pc_unhash(ent);
	}
	cma_pc_answer(ent, status, resp, flags);
	if (!keep)
		kfree(ent);
}

/*
 * Resolve the route of @id_priv (in ROUTE_QUERY, its path_rec array
 * allocated) for @query/@mask: from the cache, from a query in flight, or
 * by a new SA query. 0: its ROUTE_RESOLVED or ROUTE_ERROR will come; or
 * the error of a query that could not be started (no event then).
 */
int cma_pc_resolve(struct rdma_id_private *id_priv, struct sa_path_rec *query,
		   ib_sa_comp_mask mask, unsigned long timeout_ms)
{
	struct cma_pc_ent *ent, *fresh;
	struct cma_pc_waiter *w;
	struct cma_pc_key key;
	struct sa_path_rec rec;
	unsigned long flags;
	bool cache;
	int ret;

	cma_pc_key_fill(&key, id_priv, query, mask);
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!w || !fresh) {
		kfree(w);
		kfree(fresh);
		return -ENOMEM;
	}
	w->id_priv = id_priv;

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
	if (ent && ent->state == CMA_PC_VALID) {
		cma_pc_stats.hits++;
		rec = ent->rec;
		spin_unlock_irqrestore(&cma_pc_lock, flags);
		kfree(w);
		kfree(fresh);
		cma_pc_deliver(id_priv, 0, &rec);
		return 0;
	}
	cma_id_get(id_priv);		/* the waiter's */
	id_priv->query = w;
	if (ent) {
		/* A query for this key is in flight: wait for its answer. */
		cma_pc_stats.coalesced++;
		list_add_tail(&w->node, &ent->waiters);
		spin_unlock_irqrestore(&cma_pc_lock, flags);
		kfree(fresh);
		return 0;
	}
	cma_pc_stats.misses++;
	ent = fresh;
	ent->key = key;
	ent->state = CMA_PC_PENDING;
	INIT_LIST_HEAD(&ent->waiters);
	list_add_tail(&w->node, &ent->waiters);
	/* Without a cache, an entry of its own that nobody else finds. */
	if (cache) {
		hash_add(cma_pc_table, &ent->node, cma_pc_hash(&key));
		ent->hashed = true;
		cma_pc_stats.entries++;
	}
	cma_pc_stats.queries++;
	spin_unlock_irqrestore(&cma_pc_lock, flags);

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
	list_del(&w->node);
	id_priv->query = NULL;
	cma_pc_unhash(ent);
	cma_pc_answer(ent, ret, NULL, flags);
	kfree(ent);
	kfree(w);
	cma_id_put(id_priv);
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
	if (w) {
		list_del(&w->node);
		id_priv->query = NULL;
	}
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
}

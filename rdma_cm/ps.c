// SPDX-License-Identifier: GPL-2.0
/*
 * Port spaces.
 *
 * Every network namespace has four port spaces (TCP, UDP, IB, IPOIB). Each
 * is a map from port number to a bind record; the record lists the ids that
 * own the port. A record exists exactly as long as it has an owner, so a
 * port is in use iff the map holds it.
 *
 * The rules are the in-tree CM's, because callers see them (the parity
 * suite compares): two owners of one port may coexist when both asked for
 * reuseaddr and neither listens, when both are afonly and of different
 * families, or when their addresses are both specific and differ (an IPv4
 * address and an IPv6 one always differ, v4-mapped or not). A conflict with
 * a wildcard or loopback address is -EADDRNOTAVAIL, one of two equal
 * specific addresses -EADDRINUSE.
 *
 * An ephemeral port (bind to port 0) is a free port of the namespace's
 * range or, as in-tree, a used one whose owners all differ from the new id
 * in destination port, source or destination address: ids with distinct
 * 4-tuples share ports, so a namespace runs out of them much later.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/capability.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "cma_priv.h"
#include "ib.h"
#include "ps.h"

enum {
	CMA_PS_TCP,
	CMA_PS_UDP,
	CMA_PS_IB,
	CMA_PS_IPOIB,
	CMA_PS_COUNT
};

/*
 * cma_ps_mutex protects every port space map (insertions and removals; the
 * xarray's own lock only makes each single operation atomic), every bind
 * record, and the bind_list and node members of every id.
 */
static DEFINE_MUTEX(cma_ps_mutex);

/* The port spaces of one namespace (its net_generic storage). */
struct cma_ps_net {
	struct xarray		map[CMA_PS_COUNT];	/* port -> cma_bind */
	u16			last_eph;	/* not handed out twice in a row */
};

/* One bound port of one port space. */
struct cma_bind {
	struct xarray		*map;		/* the map that holds us */
	struct hlist_head	owners;		/* rdma_id_private.node */
	u16			port;
};

static unsigned int cma_ps_net_id __read_mostly;

static int cma_ps_index(enum rdma_ucm_port_space ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return CMA_PS_TCP;
	case RDMA_PS_UDP:
		return CMA_PS_UDP;
	case RDMA_PS_IB:
		return CMA_PS_IB;
	case RDMA_PS_IPOIB:
		return CMA_PS_IPOIB;
	}
	return -1;
}

static bool cma_ps_listening(struct rdma_id_private *id_priv)
{
	return READ_ONCE(id_priv->state) == RDMA_CM_LISTEN;
}

/* A wildcard or loopback address: what in-tree calls "any". */
static bool cma_ps_wild(const struct sockaddr *sa)
{
	return cma_any_addr(sa) || cma_loopback_addr(sa);
}

/*
 * Does @id_priv (listening if @listen) conflict with another owner of
 * @bind? See the rules at the top. Returns 0, -EADDRNOTAVAIL or
 * -EADDRINUSE.
 */
static int cma_ps_conflicts(struct cma_bind *bind,
			    struct rdma_id_private *id_priv, bool listen)
{
	const struct sockaddr *sa = cma_src_addr(id_priv);
	struct rdma_id_private *cur;

	lockdep_assert_held(&cma_ps_mutex);

	hlist_for_each_entry(cur, &bind->owners, node) {
		const struct sockaddr *sc = cma_src_addr(cur);

		if (cur == id_priv)
			continue;
		if (!listen && !cma_ps_listening(cur) &&
		    READ_ONCE(id_priv->reuseaddr) && READ_ONCE(cur->reuseaddr))
			continue;
		if (READ_ONCE(id_priv->afonly) && READ_ONCE(cur->afonly) &&
		    sa->sa_family != sc->sa_family)
			continue;
		if (cma_ps_wild(sa) || cma_ps_wild(sc))
			return -EADDRNOTAVAIL;
		if (!cma_addr_cmp(sa, sc))
			return -EADDRINUSE;
	}
	return 0;
}

/*
 * May @id_priv take the used ephemeral port of @bind? Only if every owner
 * differs from it in destination port, source address or destination
 * address (unknown ones, wildcards, do not differ).
 */
static bool cma_ps_tuple_unique(struct cma_bind *bind,
				struct rdma_id_private *id_priv)
{
	const struct sockaddr *src = cma_src_addr(id_priv);
	const struct sockaddr *dst = cma_dst_addr(id_priv);
	struct rdma_id_private *cur;

	lockdep_assert_held(&cma_ps_mutex);

	hlist_for_each_entry(cur, &bind->owners, node) {
		const struct sockaddr *csrc = cma_src_addr(cur);
		const struct sockaddr *cdst = cma_dst_addr(cur);

		if (cur == id_priv)
			continue;
		if (cma_port(dst) && cma_port(cdst) &&
		    cma_port(dst) != cma_port(cdst))
			continue;
		if (!cma_ps_wild(src) && !cma_ps_wild(csrc) &&
		    cma_addr_cmp(src, csrc))
			continue;
		if (!cma_ps_wild(dst) && !cma_ps_wild(cdst) &&
		    cma_addr_cmp(dst, cdst))
			continue;
		return false;
	}
	return true;
}

static void cma_ps_attach(struct cma_bind *bind,
			  struct rdma_id_private *id_priv)
{
	lockdep_assert_held(&cma_ps_mutex);

	hlist_add_head(&id_priv->node, &bind->owners);
	id_priv->bind_list = bind;
}

/* A new, ownerless record for @port in @map. */
static struct cma_bind *cma_ps_new_bind(struct xarray *map, u16 port)
{
	struct cma_bind *bind;
	int ret;

	lockdep_assert_held(&cma_ps_mutex);

	bind = kzalloc(sizeof(*bind), GFP_KERNEL);
	if (!bind)
		return ERR_PTR(-ENOMEM);
	bind->map = map;
	bind->port = port;
	INIT_HLIST_HEAD(&bind->owners);

	ret = xa_insert(map, port, bind, GFP_KERNEL);
	if (ret)
		goto err_free;
	return bind;

err_free:
	kfree(bind);
	return ERR_PTR(ret == -EBUSY ? -EADDRINUSE : ret);
}

static int cma_ps_bind_port(struct xarray *map,
			    struct rdma_id_private *id_priv, u16 port)
{
	struct cma_bind *bind;
	int ret;

	lockdep_assert_held(&cma_ps_mutex);

	bind = xa_load(map, port);
	if (bind) {
		ret = cma_ps_conflicts(bind, id_priv,
				       cma_ps_listening(id_priv));
		if (ret)
			return ret;
	} else {
		bind = cma_ps_new_bind(map, port);
		if (IS_ERR(bind))
			return PTR_ERR(bind);
	}
	cma_ps_attach(bind, id_priv);
	return 0;
}

/*
 * Pick a port in [pol->low, pol->high], starting at a random offset and
 * skipping the namespace's reserved ports (net.ipv4.ip_local_reserved_ports)
 * and, as in-tree, the port handed out last: a free one, or a used one that
 * the 4-tuples allow to share (cma_ps_tuple_unique()).
 */
static int cma_ps_bind_any(struct cma_ps_net *pn, struct xarray *map,
			   struct rdma_id_private *id_priv,
			   const struct cma_ps_policy *pol)
{
	struct net *net = cma_net(id_priv);
	int low = max(pol->low, 1);
	int high = min_t(int, pol->high, U16_MAX);
	struct cma_bind *bind;
	u32 range, offset, i;
	u16 port;

	lockdep_assert_held(&cma_ps_mutex);

	if (high < low)
		return -EADDRNOTAVAIL;
	range = high - low + 1;
	offset = get_random_u32_below(range);

	for (i = 0; i < range; i++) {
		port = low + (offset + i) % range;
		if (port == pn->last_eph || inet_is_local_reserved_port(net, port))
			continue;

		bind = xa_load(map, port);
		if (!bind) {
			bind = cma_ps_new_bind(map, port);
			if (IS_ERR(bind))
				return PTR_ERR(bind);
		} else if (!cma_ps_tuple_unique(bind, id_priv)) {
			continue;
		}
		cma_set_port(cma_src_addr(id_priv), htons(port));
		cma_ps_attach(bind, id_priv);
		pn->last_eph = port;
		return 0;
	}
	return -EADDRNOTAVAIL;
}

VISIBLE_IF_KUNIT int cma_ps_bind_table(struct cma_ps_net *pn,
				       struct rdma_id_private *id_priv,
				       const struct cma_ps_policy *pol)
{
	enum rdma_ucm_port_space ps = id_priv->id.ps;
	struct xarray *map;
	int idx, ret;
	u16 port;

	/* An AF_IB id's service id names its port space (afib.c). */
	if (cma_src_addr(id_priv)->sa_family == AF_IB)
		ps = cma_afib_select_ps(ps, (struct sockaddr_ib *)
					    cma_src_addr(id_priv));
	idx = cma_ps_index(ps);
	if (idx < 0)
		return -EPROTONOSUPPORT;
	map = &pn->map[idx];

	port = ntohs(cma_port(cma_src_addr(id_priv)));
	if (port && inet_port_requires_bind_service(cma_net(id_priv), port) &&
	    !pol->may_bind_service)
		return -EACCES;

	mutex_lock(&cma_ps_mutex);
	if (id_priv->bind_list) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (port)
		ret = cma_ps_bind_port(map, id_priv, port);
	else
		ret = cma_ps_bind_any(pn, map, id_priv, pol);
out_unlock:
	mutex_unlock(&cma_ps_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ps_bind_table);

int cma_ps_bind(struct rdma_id_private *id_priv)
{
	struct net *net = cma_net(id_priv);
	struct cma_ps_policy pol = {};
	u16 port;

	if (cma_ps_index(id_priv->id.ps) < 0)
		return -EPROTONOSUPPORT;
	/* Before reading the port: an AF_IB service id is rewritten there. */
	if (cma_src_addr(id_priv)->sa_family == AF_IB &&
	    !cma_afib_select_ps(id_priv->id.ps, (struct sockaddr_ib *)
						cma_src_addr(id_priv)))
		return -EPROTONOSUPPORT;

	inet_get_local_port_range(net, &pol.low, &pol.high);
	port = ntohs(cma_port(cma_src_addr(id_priv)));
	/* Ask only when needed: a denial is audited. */
	if (port && inet_port_requires_bind_service(net, port))
		pol.may_bind_service = ns_capable(net->user_ns,
						  CAP_NET_BIND_SERVICE);

	return cma_ps_bind_table(net_generic(net, cma_ps_net_id), id_priv,
				 &pol);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ps_bind);

int cma_ps_check_listen(struct rdma_id_private *id_priv)
{
	struct cma_bind *bind;
	int ret = 0;

	mutex_lock(&cma_ps_mutex);
	bind = id_priv->bind_list;
	if (!bind)
		ret = -EINVAL;
	else
		ret = cma_ps_conflicts(bind, id_priv, true);
	mutex_unlock(&cma_ps_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ps_check_listen);

void cma_ps_unbind(struct rdma_id_private *id_priv)
{
	struct cma_bind *bind;

	mutex_lock(&cma_ps_mutex);
	bind = id_priv->bind_list;
	if (!bind)
		goto out_unlock;

	hlist_del_init(&id_priv->node);
	id_priv->bind_list = NULL;
	if (hlist_empty(&bind->owners)) {
		xa_erase(bind->map, bind->port);
		kfree(bind);
	}
out_unlock:
	mutex_unlock(&cma_ps_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ps_unbind);

struct rdma_id_private *cma_ps_find(struct net *net,
				    enum rdma_ucm_port_space ps, u16 port,
				    bool (*match)(struct rdma_id_private *,
						  void *),
				    void *arg)
{
	struct rdma_id_private *cur, *found = NULL;
	struct cma_ps_net *pn;
	struct cma_bind *bind;
	int idx;

	idx = cma_ps_index(ps);
	if (idx < 0)
		return NULL;
	pn = net_generic(net, cma_ps_net_id);

	mutex_lock(&cma_ps_mutex);
	bind = xa_load(&pn->map[idx], port);
	if (!bind)
		goto out_unlock;
	hlist_for_each_entry(cur, &bind->owners, node) {
		/* An owner being released has no reference left to share. */
		if (match(cur, arg) && refcount_inc_not_zero(&cur->refcount)) {
			found = cur;
			break;
		}
	}
out_unlock:
	mutex_unlock(&cma_ps_mutex);
	return found;
}

static void cma_ps_table_setup(struct cma_ps_net *pn)
{
	int i;

	for (i = 0; i < CMA_PS_COUNT; i++)
		xa_init(&pn->map[i]);
}

/*
 * Empty the table; returns how many records were left (a leak: every owner
 * holds a reference on the namespace). Their owners are detached so that
 * cma_ps_unbind() on them is a no-op instead of a use after free.
 */
static unsigned int cma_ps_table_teardown(struct cma_ps_net *pn)
{
	struct rdma_id_private *owner;
	struct hlist_node *tmp;
	struct cma_bind *bind;
	unsigned int left = 0;
	unsigned long port;
	int i;

	mutex_lock(&cma_ps_mutex);
	for (i = 0; i < CMA_PS_COUNT; i++) {
		xa_for_each(&pn->map[i], port, bind) {
			hlist_for_each_entry_safe(owner, tmp, &bind->owners,
						  node) {
				hlist_del_init(&owner->node);
				owner->bind_list = NULL;
			}
			xa_erase(&pn->map[i], port);
			kfree(bind);
			left++;
		}
		xa_destroy(&pn->map[i]);
	}
	mutex_unlock(&cma_ps_mutex);
	return left;
}

#if IS_ENABLED(CONFIG_KUNIT)
struct cma_ps_net *cma_ps_table_alloc(void)
{
	struct cma_ps_net *pn;

	pn = kzalloc(sizeof(*pn), GFP_KERNEL);
	if (pn)
		cma_ps_table_setup(pn);
	return pn;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ps_table_alloc);

unsigned int cma_ps_table_free(struct cma_ps_net *pn)
{
	unsigned int left = cma_ps_table_teardown(pn);

	kfree(pn);
	return left;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ps_table_free);
#endif

static int __net_init cma_ps_net_init(struct net *net)
{
	cma_ps_table_setup(net_generic(net, cma_ps_net_id));
	return 0;
}

static void __net_exit cma_ps_net_exit(struct net *net)
{
	unsigned int left;

	left = cma_ps_table_teardown(net_generic(net, cma_ps_net_id));
	WARN(left, "%s: %u bound port(s) left in an exiting namespace\n",
	     KBUILD_MODNAME, left);
}

static struct pernet_operations cma_ps_net_ops = {
	.init	= cma_ps_net_init,
	.exit	= cma_ps_net_exit,
	.id	= &cma_ps_net_id,
	.size	= sizeof(struct cma_ps_net),
};

int cma_ps_init(void)
{
	return register_pernet_subsys(&cma_ps_net_ops);
}

void cma_ps_exit(void)
{
	unregister_pernet_subsys(&cma_ps_net_ops);
}

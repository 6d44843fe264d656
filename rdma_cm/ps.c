// SPDX-License-Identifier: GPL-2.0
/*
 * Port spaces.
 *
 * Every network namespace has four port spaces (TCP, UDP, IB, IPOIB). Each
 * is a map from port number to a bind record; the record lists the ids that
 * own the port. A record exists exactly as long as it has an owner, so a
 * port is in use iff the map holds it.
 *
 * Two owners of one port may coexist if their source addresses do not
 * overlap, or if both asked for reuseaddr and neither listens. An IPv6 id
 * bound to the any address without afonly also claims the IPv4 any address
 * (dual stack); an IPv6 id bound to a v4-mapped address without afonly
 * claims that IPv4 address.
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

/*
 * Which part of the IPv4 and of the IPv6 address space an IP source address
 * claims. CMA_CLAIM_NONE is 0 so that a zeroed claim claims nothing.
 */
enum cma_claim_scope {
	CMA_CLAIM_NONE,
	CMA_CLAIM_ANY,
	CMA_CLAIM_ADDR,
};

struct cma_claim {
	enum cma_claim_scope	v4;
	enum cma_claim_scope	v6;
	__be32			v4_addr;	/* if v4 == CMA_CLAIM_ADDR */
};

static bool cma_ps_is_ip(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET || sa->sa_family == AF_INET6;
}

static void cma_ps_claim(struct rdma_id_private *id_priv, struct cma_claim *c)
{
	const struct sockaddr *sa = cma_src_addr(id_priv);
	const struct sockaddr_in6 *sin6;
	bool afonly;

	memset(c, 0, sizeof(*c));
	if (sa->sa_family == AF_INET) {
		c->v4 = cma_any_addr(sa) ? CMA_CLAIM_ANY : CMA_CLAIM_ADDR;
		c->v4_addr = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
		return;
	}

	sin6 = (const struct sockaddr_in6 *)sa;
	afonly = READ_ONCE(id_priv->afonly);
	if (cma_any_addr(sa)) {
		c->v6 = CMA_CLAIM_ANY;
		if (!afonly)
			c->v4 = CMA_CLAIM_ANY;
	} else if (!afonly && ipv6_addr_v4mapped(&sin6->sin6_addr)) {
		c->v4_addr = sin6->sin6_addr.s6_addr32[3];
		c->v4 = CMA_CLAIM_ADDR;
		if (ipv4_is_zeronet(c->v4_addr))
			c->v4 = CMA_CLAIM_ANY;
	} else {
		c->v6 = CMA_CLAIM_ADDR;
	}
}

/* Do the source addresses of @a and @b overlap? */
static bool cma_ps_overlap(struct rdma_id_private *a, struct rdma_id_private *b)
{
	const struct sockaddr *sa = cma_src_addr(a);
	const struct sockaddr *sb = cma_src_addr(b);
	struct cma_claim ca, cb;

	/* Other families (AF_IB): an any address covers everything. */
	if (!cma_ps_is_ip(sa) || !cma_ps_is_ip(sb))
		return cma_any_addr(sa) || cma_any_addr(sb) ||
		       (sa->sa_family == sb->sa_family &&
			!cma_addr_cmp(sa, sb));

	cma_ps_claim(a, &ca);
	cma_ps_claim(b, &cb);
	if (ca.v4 && cb.v4 &&
	    (ca.v4 == CMA_CLAIM_ANY || cb.v4 == CMA_CLAIM_ANY ||
	     ca.v4_addr == cb.v4_addr))
		return true;
	/* Only AF_INET6 addresses claim IPv6 addresses. */
	if (ca.v6 && cb.v6 &&
	    (ca.v6 == CMA_CLAIM_ANY || cb.v6 == CMA_CLAIM_ANY ||
	     !cma_addr_cmp(sa, sb)))
		return true;
	return false;
}

static bool cma_ps_listening(struct rdma_id_private *id_priv)
{
	return READ_ONCE(id_priv->state) == RDMA_CM_LISTEN;
}

/* A wildcard or loopback address: what in-tree calls "any". */
static bool cma_ps_wild(struct rdma_id_private *id_priv)
{
	const struct sockaddr *sa = cma_src_addr(id_priv);

	return cma_any_addr(sa) || cma_loopback_addr(sa);
}

/*
 * Does @id_priv (listening if @listen) conflict with another owner of
 * @bind? Owners whose addresses overlap may share the port only when both
 * asked for reuseaddr and neither listens. Returns 0, or as in-tree
 * -EADDRNOTAVAIL when either address of the conflict is a wildcard (or
 * loopback) one, -EADDRINUSE when both are specific.
 */
static int cma_ps_conflicts(struct cma_bind *bind,
			    struct rdma_id_private *id_priv, bool listen)
{
	struct rdma_id_private *cur;

	lockdep_assert_held(&cma_ps_mutex);

	hlist_for_each_entry(cur, &bind->owners, node) {
		if (cur == id_priv || !cma_ps_overlap(id_priv, cur))
			continue;
		if (listen || cma_ps_listening(cur) ||
		    !READ_ONCE(id_priv->reuseaddr) || !READ_ONCE(cur->reuseaddr))
			return cma_ps_wild(id_priv) || cma_ps_wild(cur) ?
			       -EADDRNOTAVAIL : -EADDRINUSE;
	}
	return 0;
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
 * Pick a free port in [pol->low, pol->high], starting at a random offset,
 * skipping the namespace's reserved ports (net.ipv4.ip_local_reserved_ports).
 */
static int cma_ps_bind_any(struct xarray *map,
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
		if (inet_is_local_reserved_port(net, port) ||
		    xa_load(map, port))
			continue;

		bind = cma_ps_new_bind(map, port);
		if (IS_ERR(bind))
			return PTR_ERR(bind);
		cma_set_port(cma_src_addr(id_priv), htons(port));
		cma_ps_attach(bind, id_priv);
		return 0;
	}
	return -EADDRNOTAVAIL;
}

VISIBLE_IF_KUNIT int cma_ps_bind_table(struct cma_ps_net *pn,
				       struct rdma_id_private *id_priv,
				       const struct cma_ps_policy *pol)
{
	struct xarray *map;
	int idx, ret;
	u16 port;

	idx = cma_ps_index(id_priv->id.ps);
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
		ret = cma_ps_bind_any(map, id_priv, pol);
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

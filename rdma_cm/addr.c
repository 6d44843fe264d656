// SPDX-License-Identifier: GPL-2.0
/*
 * IP address resolver of the connection manager.
 *
 * A request (struct cma_addr_req, embedded in the caller's object) is
 * resolved in two steps that both run the same attempt, cma_addr_attempt():
 * the route lookup with source selection, the netdev the route leaves
 * through, and the neighbour's hardware address. cma_addr_resolve() runs it
 * once in the caller's context to report argument and route errors
 * synchronously (as in-tree rdma_resolve_addr() does) without sending
 * anything, then queues the request's work at once. The work runs the
 * attempt again, this time starting neighbour resolution (ARP/ND) when the
 * neighbour is not valid, and either completes the request or re-arms
 * itself: immediately when a NETEVENT_NEIGH_UPDATE (track.c's notifier calls
 * cma_addr_neigh_event()) reports a valid neighbour
 * with the same key, else after a fallback retry interval (50 ms, doubling
 * up to 1 s), until the deadline (-ETIMEDOUT).
 *
 * Pending requests sit in a small hash table keyed by the neighbour they wait
 * for, so a neighbour update only kicks the requests that wait for it.
 * Nothing is held while a request waits: the table lock is only taken to
 * link, unlink, re-arm or kick.
 *
 * Completion and cancellation race for the request by unlinking it from the
 * table under cma_addr_lock: whoever unlinks it owns the outcome. The work
 * only re-arms itself, and the notifier only kicks, requests that are still
 * linked, under the same lock; so once a request is unlinked nothing queues
 * its work again. The work that completes a request also drops a kick that
 * came while it ran (cancel_delayed_work() under the lock), so after @done
 * the resolver never touches the request. cma_addr_cancel() unlinks, then
 * waits with cancel_delayed_work_sync(): that drops a queued run and waits
 * for a running one, including a @done that the work had already claimed.
 * Only the caller's own object is involved: no allocation, no reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "cma_priv.h"

#include <linux/bug.h>
#include <linux/if_arp.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>
#include <net/addrconf.h>
#include <net/dst.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/xfrm.h>

#include "addr.h"

#define CMA_ADDR_RETRY_MIN_MS	50
#define CMA_ADDR_RETRY_MAX_MS	1000
#define CMA_ADDR_HASH_BITS	8
#define CMA_ADDR_HASH_SIZE	BIT(CMA_ADDR_HASH_BITS)

/* An attempt's outcome besides 0 (done) and a negative errno (failed). */
#define CMA_ADDR_WAIT		1

/*
 * cma_addr_lock (taken from process and softirq context, hence _bh)
 * protects cma_addr_table[] (the lists and every request's ->entry and
 * ->nh_hash) and orders re-arming a request's work against unlinking it.
 * Never held while calling out of the resolver or doing a lookup.
 */
static DEFINE_SPINLOCK(cma_addr_lock);
static struct list_head cma_addr_table[CMA_ADDR_HASH_SIZE];

/* Set up by cma_addr_init(), destroyed by cma_addr_exit(). */
static struct workqueue_struct *cma_addr_wq;

union cma_addr_ip {
	__be32		v4;
	struct in6_addr	v6;
};

/* The checked inputs of one attempt. */
struct cma_addr_in {
	struct net		*net;
	sa_family_t		family;
	bool			src_set;	/* a specified source */
	int			oif;		/* 0 or the interface to use */
	union cma_addr_ip	saddr;
	union cma_addr_ip	daddr;
};

/* What one attempt found; copied to the caller's storage on success. */
static u32 cma_addr_neigh_hash(const struct neighbour *n)
{
	return jhash(n->primary_key, n->tbl->key_len, n->dev->ifindex);
}

static struct list_head *cma_addr_bucket(u32 nh_hash)
{
	return &cma_addr_table[nh_hash & (CMA_ADDR_HASH_SIZE - 1)];
}

/* Linked = started and neither completed nor cancelled. */
static bool cma_addr_linked(const struct cma_addr_req *req)
{
	lockdep_assert_held(&cma_addr_lock);
	return !list_empty(&req->entry);
}

/*
 * The delay before the next fallback retry of a request that waits for its
 * neighbour: the current interval (which then doubles, up to the maximum),
 * but never past @deadline; 0 once @deadline has passed.
 */
VISIBLE_IF_KUNIT unsigned long cma_addr_retry_delay(unsigned long now,
						    unsigned long deadline,
						    unsigned int *interval_ms)
{
	unsigned long delay = msecs_to_jiffies(*interval_ms);

	*interval_ms = clamp_t(unsigned int, *interval_ms * 2,
			       CMA_ADDR_RETRY_MIN_MS, CMA_ADDR_RETRY_MAX_MS);
	if (time_after_eq(now, deadline))
		return 0;
	return min(delay, deadline - now);
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_retry_delay);

/* Whether @req is started and has neither completed nor been cancelled. */
VISIBLE_IF_KUNIT bool cma_addr_req_pending(struct cma_addr_req *req)
{
	bool pending;

	if (!req->work.work.func)
		return false;
	spin_lock_bh(&cma_addr_lock);
	pending = cma_addr_linked(req);
	spin_unlock_bh(&cma_addr_lock);
	return pending;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_req_pending);

static void cma_addr_copy_ha(unsigned char *to, const unsigned char *from,
			     unsigned int len)
{
	len = min_t(unsigned int, len, MAX_ADDR_LEN);
	if (len)
		memcpy(to, from, len);
	memset(to + len, 0, MAX_ADDR_LEN - len);
}

/* Source side of @dev: type, index, own and broadcast hardware address. */
static void cma_addr_fill_dev(struct cma_addr_res *res,
			      const struct net_device *dev)
{
	res->dev_type = dev->type;
	res->ifindex = dev->ifindex;
	cma_addr_copy_ha(res->src_ha, dev->dev_addr, dev->addr_len);
	cma_addr_copy_ha(res->bcast, dev->broadcast, dev->addr_len);
}

/*
 * An IPv6 address that needs a scope (link-local unicast, link- or
 * interface-local multicast) takes it from @scope_id or the interface
 * already chosen in *@oif; the two must agree.
 */
static int cma_addr_scope6(const struct in6_addr *addr, u32 scope_id, int *oif)
{
	if (!__ipv6_addr_needs_scope_id(ipv6_addr_type(addr)))
		return 0;
	if (scope_id) {
		if (*oif && *oif != (int)scope_id)
			return -EINVAL;
		*oif = scope_id;
	}
	return *oif ? 0 : -EINVAL;
}

static int cma_addr_parse4(const struct sockaddr *src,
			   const struct sockaddr *dst, struct cma_addr_in *in)
{
	const struct sockaddr_in *src4 = (const struct sockaddr_in *)src;
	const struct sockaddr_in *dst4 = (const struct sockaddr_in *)dst;
	bool local;

	/* An any destination is this host; the route says how (loopback). */
	in->daddr.v4 = cma_any_addr(dst) ? 0 : dst4->sin_addr.s_addr;
	if (!src || cma_zero_addr(src))
		return 0;

	in->src_set = true;
	in->saddr.v4 = src4->sin_addr.s_addr;
	rcu_read_lock();
	local = __ip_dev_find(in->net, in->saddr.v4, false);
	rcu_read_unlock();
	return local ? 0 : -EADDRNOTAVAIL;
}

static int cma_addr_parse6(const struct sockaddr *src,
			   const struct sockaddr *dst, struct cma_addr_in *in)
{
	const struct sockaddr_in6 *src6 = (const struct sockaddr_in6 *)src;
	const struct sockaddr_in6 *dst6 = (const struct sockaddr_in6 *)dst;
	struct net_device *sdev = NULL;
	int ret = 0;

	if (!IS_ENABLED(CONFIG_IPV6))
		return -EAFNOSUPPORT;

	/* As connect(2) does, an any destination is ::1. */
	in->daddr.v6 = ipv6_addr_any(&dst6->sin6_addr) ? in6addr_loopback :
							  dst6->sin6_addr;
	ret = cma_addr_scope6(&in->daddr.v6, dst6->sin6_scope_id, &in->oif);
	if (ret || !src || cma_zero_addr(src))
		return ret;

	in->src_set = true;
	in->saddr.v6 = src6->sin6_addr;
	ret = cma_addr_scope6(&in->saddr.v6, src6->sin6_scope_id, &in->oif);
	if (ret)
		return ret;

	rcu_read_lock();
	if (__ipv6_addr_needs_scope_id(ipv6_addr_type(&in->saddr.v6))) {
		sdev = dev_get_by_index_rcu(in->net, in->oif);
		if (!sdev) {
			ret = -ENODEV;
			goto out;
		}
	}
	if (!ipv6_dev_find(in->net, &in->saddr.v6, sdev))
		ret = -EADDRNOTAVAIL;
out:
	rcu_read_unlock();
	return ret;
}

/*
 * Check the arguments and gather the inputs of an attempt. The caller's
 * storage does not change while the request runs, so this gives the same
 * inputs every time, except that a specified source may have been removed.
 */
static int cma_addr_parse(const struct sockaddr *src,
			  const struct sockaddr *dst,
			  const struct rdma_dev_addr *dev_addr,
			  struct cma_addr_in *in)
{
	memset(in, 0, sizeof(*in));
	if (!dev_addr->net)
		return -EINVAL;
	in->net = dev_addr->net;
	in->oif = dev_addr->bound_dev_if;
	in->family = dst->sa_family;

	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (src && src->sa_family && src->sa_family != dst->sa_family)
		return -EINVAL;

	if (dst->sa_family == AF_INET)
		return cma_addr_parse4(src, dst, in);
	return cma_addr_parse6(src, dst, in);
}

static int cma_addr_route4(const struct cma_addr_in *in,
			   struct cma_addr_res *res, struct dst_entry **dstp,
			   union cma_addr_ip *daddr, bool *gateway)
{
	struct flowi4 fl4 = {
		.daddr = in->daddr.v4,
		.saddr = in->src_set ? in->saddr.v4 : 0,
		.flowi4_oif = in->oif,
		.flowi4_uid = sock_net_uid(in->net, NULL),
	};
	struct rtable *rt;

	rt = ip_route_output_key(in->net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (!fl4.saddr) {
		ip_rt_put(rt);
		return -EADDRNOTAVAIL;
	}

	res->src.v4.sin_family = AF_INET;
	res->src.v4.sin_addr.s_addr = fl4.saddr;
	res->hoplimit = ip4_dst_hoplimit(&rt->dst);
	*gateway = rt->rt_uses_gateway;
	if (rt->rt_gw_family == AF_INET6)
		res->nh_ip = rt->rt_gw6;
	else
		ipv6_addr_set_v4mapped(rt->rt_gw_family == AF_INET ?
				       rt->rt_gw4 : fl4.daddr, &res->nh_ip);
	/* The route's destination: an any address became a local one. */
	daddr->v4 = fl4.daddr;
	*dstp = &rt->dst;
	return 0;
}

static int cma_addr_route6(const struct cma_addr_in *in,
			   struct cma_addr_res *res, struct dst_entry **dstp,
			   union cma_addr_ip *daddr, bool *gateway)
{
	struct flowi6 fl6 = {
		.daddr = in->daddr.v6,
		.flowi6_oif = in->oif,
		.flowi6_uid = sock_net_uid(in->net, NULL),
	};
	const struct dst_entry *path;
	struct dst_entry *dst;

	if (in->src_set)
		fl6.saddr = in->saddr.v6;
	/* Selects the source into fl6.saddr when it is any. */
	dst = ipv6_stub->ipv6_dst_lookup_flow(in->net, NULL, &fl6, NULL);
	if (IS_ERR(dst))
		return PTR_ERR(dst);

	res->src.v6.sin6_family = AF_INET6;
	res->src.v6.sin6_addr = fl6.saddr;
	res->hoplimit = ip6_dst_hoplimit(dst);
	/* With an IPsec bundle, the route proper is the bundle's path. */
	path = xfrm_dst_path(dst);
	*gateway = dst_rt6_info(path)->rt6i_flags & RTF_GATEWAY;
	res->nh_ip = *rt6_nexthop(dst_rt6_info(path), &fl6.daddr);
	daddr->v6 = fl6.daddr;
	*dstp = dst;
	return 0;
}

/*
 * For a route through the loopback device: the netdev that owns the
 * destination address (so that two RDMA devices on two netdevs of one
 * namespace reach each other), the interface the caller or the address's
 * scope chose if any, the loopback netdev itself for 127/8 and ::1.
 */
static struct net_device *cma_addr_local_dev_rcu(const struct cma_addr_in *in,
						 const union cma_addr_ip *daddr)
{
	if (in->oif)
		return dev_get_by_index_rcu(in->net, in->oif);
	if (in->family == AF_INET)
		return __ip_dev_find(in->net, daddr->v4, false);
	if (IS_ENABLED(CONFIG_IPV6))
		return ipv6_dev_find(in->net, &daddr->v6, NULL);
	return NULL;
}

/*
 * The neighbour's hardware address into res->dst_ha. Returns 0 when the
 * neighbour is valid (a NOARP neighbour always is: the kernel fills it in,
 * or a static entry does), CMA_ADDR_WAIT when not yet, after starting its
 * resolution if @kick. An IFF_NOARP netdev without a neighbour table
 * entry gets its broadcast address.
 */
static int cma_addr_neigh(struct dst_entry *dst, struct net_device *dev,
			  const union cma_addr_ip *daddr,
			  struct cma_addr_res *res, bool kick)
{
	struct neighbour *n = NULL;
	int ret = CMA_ADDR_WAIT;

	if (dst->ops->neigh_lookup)
		n = dst_neigh_lookup(dst, daddr);
	if (!n) {
		if (!(dev->flags & IFF_NOARP))
			return CMA_ADDR_WAIT;
		memcpy(res->dst_ha, res->bcast, MAX_ADDR_LEN);
		return 0;
	}

	res->nh_hash = cma_addr_neigh_hash(n);
	read_lock_bh(&n->lock);
	if (n->nud_state & NUD_VALID) {
		if (n->dev->addr_len <= MAX_ADDR_LEN) {
			neigh_ha_snapshot(res->dst_ha, n, n->dev);
			ret = 0;
		} else {
			ret = -EINVAL;
		}
	}
	read_unlock_bh(&n->lock);

	if (ret == CMA_ADDR_WAIT && kick)
		neigh_event_send(n, NULL);
	neigh_release(n);
	return ret;
}

/*
 * One resolution attempt for @req into @res: 0 (resolved), CMA_ADDR_WAIT
 * (the neighbour is not valid yet) or a negative errno. Does not write the
 * caller's storage. Any context that may take a _bh lock.
 */
static int cma_addr_attempt(const struct cma_addr_req *req,
			    struct cma_addr_res *res, bool kick)
{
	struct net_device *dev, *local;
	union cma_addr_ip daddr = {};
	struct cma_addr_in in;
	struct dst_entry *dst;
	bool gateway = false;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = cma_addr_parse(req->src, req->dst, req->dev_addr, &in);
	if (ret)
		return ret;

	rcu_read_lock();
	if (in.family == AF_INET)
		ret = cma_addr_route4(&in, res, &dst, &daddr, &gateway);
	else
		ret = cma_addr_route6(&in, res, &dst, &daddr, &gateway);
	if (ret)
		goto out_unlock;

	/* dst holds the netdev; RCU keeps it while we read it. */
	dev = READ_ONCE(dst->dev);
	if (dev->flags & IFF_LOOPBACK) {
		local = cma_addr_local_dev_rcu(&in, &daddr);
		cma_addr_fill_dev(res, local ? local : dev);
		memcpy(res->dst_ha, res->src_ha, MAX_ADDR_LEN);
		gateway = false;
	} else {
		cma_addr_fill_dev(res, dev);
		ret = cma_addr_neigh(dst, dev, &daddr, res, kick);
	}

	/*
	 * As in-tree: a routed (gatewayed) path on a non-IB netdev is a
	 * RoCEv2-only path; otherwise the port's default GID type applies.
	 */
	if (gateway && res->dev_type != ARPHRD_INFINIBAND)
		res->network = in.family == AF_INET ? RDMA_NETWORK_IPV4 :
						      RDMA_NETWORK_IPV6;
	else
		res->network = RDMA_NETWORK_IB;

	if (in.family == AF_INET6 &&
	    __ipv6_addr_needs_scope_id(ipv6_addr_type(&res->src.v6.sin6_addr)))
		res->src.v6.sin6_scope_id = in.oif ? in.oif : dev->ifindex;

	dst_release(dst);
out_unlock:
	rcu_read_unlock();
	return ret;
}

/* Write a successful result to the caller's storage. */
static void cma_addr_commit(struct cma_addr_req *req,
			    const struct cma_addr_res *res)
{
	struct rdma_dev_addr *dev_addr = req->dev_addr;
	struct sockaddr *src = req->src;

	memcpy(dev_addr->src_dev_addr, res->src_ha, MAX_ADDR_LEN);
	memcpy(dev_addr->dst_dev_addr, res->dst_ha, MAX_ADDR_LEN);
	memcpy(dev_addr->broadcast, res->bcast, MAX_ADDR_LEN);
	dev_addr->dev_type = res->dev_type;
	dev_addr->bound_dev_if = res->ifindex;
	dev_addr->network = res->network;
	dev_addr->hoplimit = res->hoplimit;

	if (!src || !cma_zero_addr(src))
		return;

	/* Unspecified source: the selected one, with the caller's port. */
	BUILD_BUG_ON(offsetof(struct sockaddr_in, sin_port) !=
		     offsetof(struct sockaddr_in6, sin6_port));
	if (res->src.v4.sin_family == AF_INET) {
		struct sockaddr_in *src4 = (struct sockaddr_in *)src;

		src4->sin_family = AF_INET;
		src4->sin_addr = res->src.v4.sin_addr;
	} else {
		struct sockaddr_in6 *src6 = (struct sockaddr_in6 *)src;

		if (src6->sin6_family != AF_INET6)
			src6->sin6_flowinfo = 0;
		src6->sin6_family = AF_INET6;
		src6->sin6_addr = res->src.v6.sin6_addr;
		src6->sin6_scope_id = res->src.v6.sin6_scope_id;
	}
}

static void cma_addr_work(struct work_struct *work)
{
	struct cma_addr_req *req = container_of(to_delayed_work(work),
						struct cma_addr_req, work);
	struct cma_addr_res res;
	unsigned long delay;
	int ret;

	/*
	 * @req is valid here: it is linked, or a cancel that unlinked it
	 * is waiting for this run in cancel_delayed_work_sync().
	 */
	if (req->resolved)
		res = req->res;
	ret = req->resolved ? 0 : cma_addr_attempt(req, &res, true);

	spin_lock_bh(&cma_addr_lock);
	if (!cma_addr_linked(req)) {
		/* Cancelled; the canceller owns it. */
		spin_unlock_bh(&cma_addr_lock);
		return;
	}
	if (ret == CMA_ADDR_WAIT && time_before(jiffies, req->deadline)) {
		if (req->nh_hash != res.nh_hash) {
			req->nh_hash = res.nh_hash;
			list_move_tail(&req->entry,
				       cma_addr_bucket(res.nh_hash));
		}
		delay = cma_addr_retry_delay(jiffies, req->deadline,
					     &req->retry_ms);
		/* Keeps a kick (delay 0) that came while we ran. */
		queue_delayed_work(cma_addr_wq, &req->work, delay);
		spin_unlock_bh(&cma_addr_lock);
		return;
	}
	/* Ours to complete: unlink and drop a kick queued meanwhile. */
	list_del_init(&req->entry);
	cancel_delayed_work(&req->work);
	spin_unlock_bh(&cma_addr_lock);

	if (ret == CMA_ADDR_WAIT)
		ret = -ETIMEDOUT;
	if (!ret)
		cma_addr_commit(req, &res);
	req->status = ret;
	/* Last access to @req: @done may free or restart it. */
	req->done(req, ret);
}

int cma_addr_resolve(struct cma_addr_req *req, struct sockaddr *src,
		     const struct sockaddr *dst, struct rdma_dev_addr *dev_addr,
		     unsigned long timeout_ms, cma_addr_done_t done)
{
	struct cma_addr_res res;
	int ret;

	if (!req || !dst || !dev_addr || !done)
		return -EINVAL;
	if (WARN_ON_ONCE(!cma_addr_wq))
		return -ENODEV;

	if (!req->work.work.func) {
		/* First use of a zeroed request. */
		INIT_LIST_HEAD(&req->entry);
		INIT_DELAYED_WORK(&req->work, cma_addr_work);
	} else if (cma_addr_req_pending(req)) {
		return -EBUSY;
	}

	/* Not linked and no run queued: the work does not read these. */
	req->src = src;
	req->dst = dst;
	req->dev_addr = dev_addr;
	req->done = done;
	req->status = 0;
	req->deadline = jiffies + msecs_to_jiffies(timeout_ms);
	req->retry_ms = CMA_ADDR_RETRY_MIN_MS;
	req->resolved = false;

	/* Argument and route errors are the caller's, synchronously. */
	ret = cma_addr_attempt(req, &res, false);
	if (ret < 0)
		return ret;
	/*
	 * Resolved at once (a local or a known neighbour): as in-tree, the
	 * work only reports this answer instead of resolving a second time.
	 */
	if (!ret) {
		req->res = res;
		req->resolved = true;
	}

	/* The work resolves (and starts ARP/ND) once linked: no lost event. */
	spin_lock_bh(&cma_addr_lock);
	req->nh_hash = res.nh_hash;
	list_add_tail(&req->entry, cma_addr_bucket(res.nh_hash));
	queue_delayed_work(cma_addr_wq, &req->work, 0);
	spin_unlock_bh(&cma_addr_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_resolve);

void cma_addr_cancel(struct cma_addr_req *req)
{
	/* Never started: a zeroed request has no work function yet. */
	if (!req->work.work.func)
		return;

	spin_lock_bh(&cma_addr_lock);
	if (cma_addr_linked(req))
		list_del_init(&req->entry);
	if (current_work() == &req->work.work) {
		/*
		 * From @req's own @done: that run is the last one. Drop a
		 * run queued by a restart from within @done; waiting for
		 * ourselves would deadlock.
		 */
		cancel_delayed_work(&req->work);
		spin_unlock_bh(&cma_addr_lock);
		return;
	}
	spin_unlock_bh(&cma_addr_lock);

	/* Unlinked: nobody queues it again. Drop a queued run, wait for a
	 * running one (and the @done it may have claimed).
	 */
	cancel_delayed_work_sync(&req->work);
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_cancel);

int cma_addr_translate(const struct sockaddr *addr,
		       struct rdma_dev_addr *dev_addr)
{
	const struct sockaddr_in6 *addr6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *addr4 = (const struct sockaddr_in *)addr;
	struct net_device *dev = NULL, *sdev = NULL;
	struct net *net = dev_addr->net;
	int oif = dev_addr->bound_dev_if;
	struct cma_addr_res res;
	int ret = 0;

	if (!net)
		return -EINVAL;
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (cma_any_addr(addr))
		return -EADDRNOTAVAIL;
	if (addr->sa_family == AF_INET6) {
		if (!IS_ENABLED(CONFIG_IPV6))
			return -EAFNOSUPPORT;
		ret = cma_addr_scope6(&addr6->sin6_addr, addr6->sin6_scope_id,
				      &oif);
		if (ret)
			return ret;
	}

	rcu_read_lock();
	if (oif) {
		sdev = dev_get_by_index_rcu(net, oif);
		if (!sdev) {
			ret = -ENODEV;
			goto out_unlock;
		}
	}
	if (addr->sa_family == AF_INET) {
		dev = __ip_dev_find(net, addr4->sin_addr.s_addr, false);
	} else {
		/* A link-local address must be on its scope's netdev. */
		int type = ipv6_addr_type(&addr6->sin6_addr);

		dev = ipv6_dev_find(net, &addr6->sin6_addr,
				    __ipv6_addr_needs_scope_id(type) ? sdev : NULL);
	}
	if (!dev) {
		ret = -EADDRNOTAVAIL;
		goto out_unlock;
	}
	/* As in-tree, a preset interface wins over the address's owner. */
	cma_addr_fill_dev(&res, sdev ? sdev : dev);
out_unlock:
	rcu_read_unlock();
	if (ret)
		return ret;

	dev_addr->dev_type = res.dev_type;
	dev_addr->bound_dev_if = res.ifindex;
	memcpy(dev_addr->src_dev_addr, res.src_ha, MAX_ADDR_LEN);
	memcpy(dev_addr->broadcast, res.bcast, MAX_ADDR_LEN);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_translate);

/*
 * A neighbour update (track.c owns the netevent notifier): kick the
 * requests that wait for that neighbour. Any context.
 */
void cma_addr_neigh_event(struct neighbour *n)
{
	struct cma_addr_req *req;
	struct list_head *head;
	u32 nh_hash;

	if (!(READ_ONCE(n->nud_state) & NUD_VALID))
		return;

	nh_hash = cma_addr_neigh_hash(n);
	head = cma_addr_bucket(nh_hash);
	spin_lock_bh(&cma_addr_lock);
	list_for_each_entry(req, head, entry)
		if (req->nh_hash == nh_hash)
			mod_delayed_work(cma_addr_wq, &req->work, 0);
	spin_unlock_bh(&cma_addr_lock);
}

int cma_addr_lookup(struct net *net, const struct sockaddr *src,
		    const struct sockaddr *dst, struct cma_addr_res *res)
{
	struct rdma_dev_addr *dev_addr;
	struct cma_addr_req *req;
	int ret;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	dev_addr = kzalloc(sizeof(*dev_addr), GFP_KERNEL);
	if (!req || !dev_addr) {
		ret = -ENOMEM;
		goto out;
	}
	dev_addr->net = net;
	req->src = (struct sockaddr *)src;
	req->dst = dst;
	req->dev_addr = dev_addr;
	ret = cma_addr_attempt(req, res, false);
out:
	kfree(dev_addr);
	kfree(req);
	return ret;
}

int cma_addr_init(void)
{
	unsigned int i;

	for (i = 0; i < CMA_ADDR_HASH_SIZE; i++)
		INIT_LIST_HEAD(&cma_addr_table[i]);

	/*
	 * Unbound: one slow @done does not hold up the others; a work item
	 * never runs concurrently with itself. MEM_RECLAIM: storage ULPs
	 * (NFS, iSER, NVMe) reconnect through here under memory pressure.
	 */
	cma_addr_wq = alloc_workqueue("rdma_cm_addr",
				      WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!cma_addr_wq)
		return -ENOMEM;
	return 0;
}

void cma_addr_exit(void)
{
	struct cma_addr_req *req;
	unsigned int i;

	/* cma_track_exit() unregistered the notifier: no kick is running. */
	/* Every user should have cancelled; stop leftovers without done(). */
	for (i = 0; i < CMA_ADDR_HASH_SIZE; i++) {
		for (;;) {
			spin_lock_bh(&cma_addr_lock);
			req = list_first_entry_or_null(&cma_addr_table[i],
						       struct cma_addr_req,
						       entry);
			if (req)
				list_del_init(&req->entry);
			spin_unlock_bh(&cma_addr_lock);
			if (!req)
				break;
			WARN_ONCE(1, "address resolution still pending at exit\n");
			cancel_delayed_work_sync(&req->work);
		}
	}

	destroy_workqueue(cma_addr_wq);
	cma_addr_wq = NULL;
}

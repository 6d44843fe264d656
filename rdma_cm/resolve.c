// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bind_addr(), rdma_resolve_addr() and rdma_resolve_route().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "cma_priv.h"
#include "ib.h"
#include "ps.h"

/*
 * Whether binding to @addr binds a device. As in-tree, neither the wildcard
 * nor a loopback address does: an id bound to 127.0.0.1 or ::1 listens on
 * every device, and resolving a loopback destination takes the first
 * active device (cma_acquire_dev_by_addr()).
 */
static bool cma_has_dev_addr(const struct sockaddr *addr)
{
	return !cma_any_addr(addr) && !cma_loopback_addr(addr);
}

static bool cma_family_ok(const struct sockaddr *addr)
{
	return addr->sa_family == AF_INET || addr->sa_family == AF_INET6 ||
	       addr->sa_family == AF_IB;
}

static bool cma_afib(const struct sockaddr *addr)
{
	return addr->sa_family == AF_IB;
}

/* Default afonly of an id bound to @addr, unless the consumer set it. */
static void cma_default_afonly(struct rdma_id_private *id_priv,
			       const struct sockaddr *addr)
{
	if (id_priv->afonly_set)
		return;
	if (addr->sa_family == AF_INET)
		id_priv->afonly = 1;
#if IS_ENABLED(CONFIG_IPV6)
	else if (addr->sa_family == AF_INET6)
		id_priv->afonly = READ_ONCE(cma_net(id_priv)->ipv6.sysctl.bindv6only);
#endif
}

/*
 * Bind @id_priv to @addr. The destination is @dst (rdma_resolve_addr()
 * binding an IDLE id) or the unspecified address of @addr's family: a port
 * handed out for port 0 may be shared by ids whose 4-tuples differ (ps.c).
 */
static int cma_bind_addr_dst(struct rdma_id_private *id_priv,
			     struct sockaddr *addr,
			     const struct sockaddr *dst)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct sockaddr *id_dst = cma_dst_addr(id_priv);
	int len, ret;

	if (!cma_family_ok(addr))
		return -EAFNOSUPPORT;
	len = cma_addr_len(addr);
	if (!len)
		return -EAFNOSUPPORT;
	if (!cma_comp_exch(id_priv, RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND))
		return -EINVAL;

	memset(cma_src_addr(id_priv), 0, sizeof(id_priv->id.route.addr.src_addr));
	memcpy(cma_src_addr(id_priv), addr, len);
	memset(id_dst, 0, sizeof(id_priv->id.route.addr.dst_addr));
	if (dst)
		memcpy(id_dst, dst, cma_addr_len(dst));
	id_dst->sa_family = addr->sa_family;
	if (cma_has_dev_addr(addr) && cma_afib(addr)) {
		/* A GID: the IB port that has it (afib.c), no resolution. */
		cma_afib_translate((struct sockaddr_ib *)addr, dev_addr);
		ret = cma_afib_bind_dev(id_priv, false);
		if (ret)
			goto err_state;
	} else if (cma_has_dev_addr(addr)) {
		ret = cma_addr_translate(addr, dev_addr);
		if (ret)
			goto err_state;
	}
	cma_default_afonly(id_priv, addr);

	ret = cma_ps_bind(id_priv);
	if (ret)
		goto err_state;

	/* Last, as binding to a device cannot be undone quietly (restrack). */
	if (cma_has_dev_addr(addr)) {
		ret = cma_afib(addr) ? cma_afib_bind_dev(id_priv, true) :
				       cma_acquire_dev_by_addr(id_priv);
		if (ret)
			goto err_unbind;
	}
	return 0;

err_unbind:
	cma_ps_unbind(id_priv);
err_state:
	/* As in-tree, the id keeps the address it was refused (IDLE). */
	cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_IDLE);
	return ret;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cma_bind_addr_dst(to_id_priv(id), addr, NULL);
}
EXPORT_SYMBOL(rdma_bind_addr);

/* Bind an IDLE id to @src, or to the any address of @dst's family. */
static int cma_bind_for_resolve(struct rdma_id_private *id_priv,
				struct sockaddr *src,
				const struct sockaddr *dst)
{
	struct sockaddr_storage any = {};

	if (src && src->sa_family)
		return cma_bind_addr_dst(id_priv, src, dst);

	any.ss_family = dst->sa_family;
	if (dst->sa_family == AF_INET6) {
		const struct sockaddr_in6 *d6 = (const void *)dst;
		struct sockaddr_in6 *a6 = (void *)&any;

		if (ipv6_addr_type(&d6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			a6->sin6_scope_id = d6->sin6_scope_id;
	} else if (cma_afib(dst)) {
		/* As in-tree: the destination's P_Key is the source's. */
		((struct sockaddr_ib *)&any)->sib_pkey =
			((const struct sockaddr_ib *)dst)->sib_pkey;
	}
	return cma_bind_addr_dst(id_priv, (struct sockaddr *)&any, dst);
}

/* One address resolution of an id: the resolver's request and its id. */
struct cma_resolve_req {
	struct cma_addr_req	req;
	struct rdma_id_private	*id_priv;
};

/* Take @id_priv's resolution request, if it has one: the taker frees it. */
static struct cma_resolve_req *cma_take_addr_req(struct rdma_id_private *id_priv)
{
	return xchg(&id_priv->addr_req, NULL);
}

/*
 * The id's release: cancel the resolution in flight (waiting for a running
 * cma_addr_done()), then drop the reference that cma_addr_done() would
 * have dropped, unless it claimed it first.
 */
void cma_resolve_stop(struct rdma_id_private *id_priv)
{
	struct cma_resolve_req *r = cma_take_addr_req(id_priv);

	if (r) {
		cma_addr_cancel(&r->req);
		kfree(r);
	}
	if (atomic_xchg(&id_priv->addr_busy, 0))
		cma_id_put(id_priv);
}

static void cma_addr_done(struct cma_addr_req *req, int status)
{
	struct cma_resolve_req *r = container_of(req, struct cma_resolve_req,
						 req);
	struct rdma_id_private *id_priv = r->id_priv;
	struct rdma_cm_event ev = {};

	/*
	 * We now own the reference that the request held; or the id's
	 * release does, and it frees the request once we return.
	 */
	if (!atomic_xchg(&id_priv->addr_busy, 0))
		return;
	/* The resolver is done with @req; unless the release took it. */
	kfree(cma_take_addr_req(id_priv));

	mutex_lock(&id_priv->handler_mutex);
	/*
	 * The state first, as for every event: rdma_destroy_id() and
	 * DEVICE_REMOVAL move the id out of ADDR_QUERY under handler_mutex,
	 * and cma_release() then takes it off its device's list and the
	 * tracking index and drops its own reference. A device bound after
	 * that (we may have claimed the request just before destroy came)
	 * would put a dying id back on both: cma_remove_one() and the
	 * notifiers would take references on it after it is freed (in-tree:
	 * syzbot's use-after-free in addr_handler). Held in ADDR_QUERY, the
	 * id cannot start its release until we unlock.
	 */
	if (cma_state(id_priv) != RDMA_CM_ADDR_QUERY)
		goto out_unlock;
	if (!status)
		status = cma_acquire_dev_by_addr(id_priv);
	if (!status && !rdma_cap_iw_cm(id_priv->id.device,
				       id_priv->id.port_num) &&
	    !rdma_cap_ib_cm(id_priv->id.device, id_priv->id.port_num))
		status = -EPROTONOSUPPORT;
	if (!status)
		status = cma_roce_set_sgid(id_priv);
	if (!status)
		status = cma_ib_set_sgid(id_priv);

	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY,
			   status ? RDMA_CM_ADDR_BOUND : RDMA_CM_ADDR_RESOLVED))
		goto out_unlock;

	ev.event = status ? RDMA_CM_EVENT_ADDR_ERROR :
			    RDMA_CM_EVENT_ADDR_RESOLVED;
	ev.status = status;
	if (cma_deliver(id_priv, &ev)) {
		cma_id_put(id_priv);	/* the request's; the id's remains */
		cma_destroy_handler_locked(id_priv);
		return;
	}
out_unlock:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr, unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct cma_resolve_req *r;
	int len, ret;

	if (!dst_addr || !cma_family_ok(dst_addr))
		return -EAFNOSUPPORT;
	len = cma_addr_len(dst_addr);

	/*
	 * As in-tree, an IDLE id is bound first, to @src_addr even when its
	 * family is not @dst_addr's: the mismatch is refused below, bound.
	 */
	if (cma_state(id_priv) == RDMA_CM_IDLE) {
		ret = cma_bind_for_resolve(id_priv, src_addr, dst_addr);
		if (ret)
			return ret;
	}
	if (cma_src_addr(id_priv)->sa_family != dst_addr->sa_family)
		return -EINVAL;
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY))
		return -EINVAL;

	memset(cma_dst_addr(id_priv), 0, sizeof(id->route.addr.dst_addr));
	memcpy(cma_dst_addr(id_priv), dst_addr, len);
	id_priv->timeout_ms = timeout_ms;

	/* A GID is resolved without ARP; the event comes from cma_wq. */
	if (cma_afib(dst_addr)) {
		ret = cma_afib_resolve_addr(id_priv);
		if (ret)
			goto err_query;
		return 0;
	}

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		ret = -ENOMEM;
		goto err_query;
	}
	r->id_priv = id_priv;
	WARN_ON_ONCE(xchg(&id_priv->addr_req, r));

	cma_id_get(id_priv);
	atomic_set(&id_priv->addr_busy, 1);
	ret = cma_addr_resolve(&r->req, cma_src_addr(id_priv),
			       cma_dst_addr(id_priv), &id->route.addr.dev_addr,
			       timeout_ms, cma_addr_done);
	if (!ret)
		return 0;
	/* Not started: cma_addr_done() will not run (the cancel is a no-op). */
	cma_resolve_stop(id_priv);
err_query:
	memset(cma_dst_addr(id_priv), 0, sizeof(id->route.addr.dst_addr));
	cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_addr);

int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	int ret;

	/* As in-tree, a zero timeout is refused whatever the transport. */
	if (!timeout_ms)
		return -EINVAL;
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY))
		return -EINVAL;

	if (rdma_cap_iw_cm(id->device, id->port_num)) {
		/* iWARP: the host's IP route is the route. */
		cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
				RDMA_CM_ROUTE_RESOLVED, &ev);
		return 0;
	}
	if (rdma_protocol_roce(id->device, id->port_num))
		ret = cma_roce_resolve_route(id_priv);
	else if (rdma_cap_ib_sa(id->device, id->port_num))
		ret = cma_ib_resolve_route(id_priv, timeout_ms);
	else
		ret = -EPROTONOSUPPORT;
	if (ret)
		cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
			      RDMA_CM_ADDR_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_route);

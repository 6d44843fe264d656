/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IP address resolution for the connection manager: route lookup, source
 * address selection and neighbour (ARP/ND) resolution, asynchronous, with a
 * deadline and synchronous cancellation.
 */
#ifndef _RDMA_CM_ADDR_H
#define _RDMA_CM_ADDR_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/workqueue.h>
#include <rdma/ib_addr.h>

struct cma_addr_req;

/*
 * Called once per started request, from process context (the resolver's
 * workqueue), with none of the resolver's locks held and never with a lock
 * of the caller held. Not called after cma_addr_cancel() returns. @done may
 * free @req (the resolver does not touch @req after calling it) and may call
 * cma_addr_cancel() or cma_addr_resolve() on @req.
 */
typedef void (*cma_addr_done_t)(struct cma_addr_req *req, int status);

/*
 * One resolution. The caller embeds it in its own object, zeroed before
 * first use (kzalloc), and may reuse it once @done has run or after
 * cma_addr_cancel(). The caller serialises cma_addr_resolve() and
 * cma_addr_cancel() on the same request.
 */
/* One resolution's answer (addr.c). */
struct cma_addr_res {
	union {
		struct sockaddr_in	v4;
		struct sockaddr_in6	v6;
	} src;				/* selected source address */
	unsigned char		src_ha[MAX_ADDR_LEN];
	unsigned char		dst_ha[MAX_ADDR_LEN];
	unsigned char		bcast[MAX_ADDR_LEN];
	unsigned short		dev_type;
	int			ifindex;
	/* next hop: gateway or destination; IPv4 v4-mapped (track.c) */
	struct in6_addr		nh_ip;
	enum rdma_network_type	network;
	int			hoplimit;
	u32			nh_hash;	/* the neighbour's key */
};

struct cma_addr_req {
	/* On a pending-list bucket while started and not yet completed or
	 * cancelled; cma_addr_lock (addr.c).
	 */
	struct list_head	entry;
	struct delayed_work	work;
	struct sockaddr		*src;		/* in/out, caller's storage */
	const struct sockaddr	*dst;		/* caller's storage */
	struct rdma_dev_addr	*dev_addr;	/* out; ->net set by caller */
	unsigned long		deadline;	/* jiffies */
	cma_addr_done_t		done;
	int			status;		/* what @done was given */
	/* Private to addr.c. */
	u32			nh_hash;	/* neighbour waited for; cma_addr_lock */
	/* Next fallback retry interval: set before the work is queued, then
	 * written only by the work, which never runs concurrently with itself.
	 */
	unsigned int		retry_ms;
	/* The first attempt, in cma_addr_resolve(), resolved into @res:
	 * the work only commits it. Set before the work is queued.
	 */
	bool			resolved;
	struct cma_addr_res	res;
};

/*
 * Resolve @dst from the namespace dev_addr->net (a reference the caller
 * holds until @done has run or the request is cancelled).
 *
 * @src may be NULL, AF_UNSPEC (sa_family 0) or the any address of @dst's
 * family: the source the route selects is then written into *@src on
 * success (family and address; the port is kept; for a link-local IPv6
 * source sin6_scope_id is set to the interface). *@src must then have room
 * for a sockaddr of @dst's family (a sockaddr_storage does). A specified
 * @src must be a local address in the namespace and is used as the source;
 * it is not written. @src and @dst must stay valid and unchanged until
 * @done has run or the request is cancelled. An any address as @dst means
 * this host, as for connect(2) (127.0.0.1 or ::1).
 *
 * dev_addr->bound_dev_if, when not 0, constrains the route to that
 * interface; the scope id of a link-local @dst or @src does the same (a
 * link-local address needs one of them). On success, and only then,
 * @dev_addr holds the netdev to use: bound_dev_if, dev_type, src_dev_addr,
 * broadcast, dst_dev_addr (the neighbour's hardware address; for a route
 * through the loopback device, the netdev owning the destination address and
 * dst_dev_addr = src_dev_addr), network (RDMA_NETWORK_IPV4/IPV6 when the
 * route uses a gateway on a non-IB netdev, else RDMA_NETWORK_IB, as in-tree)
 * and hoplimit (from the route). transport, net and sgid_attr are untouched.
 * Before @done, neither *@src nor *@dev_addr is written.
 *
 * Returns 0 when the request is started: @done then reports 0, a route error
 * found while waiting, or -ETIMEDOUT once @timeout_ms has passed without a
 * valid neighbour. Returns a negative errno, and @done will not be called,
 * when the request cannot start: -EINVAL (bad arguments, family mismatch,
 * link-local address without scope), -EAFNOSUPPORT (@dst not AF_INET or
 * AF_INET6), -EADDRNOTAVAIL (specified @src not local, or no source address),
 * -EBUSY (@req already started), or the route lookup's error (-ENETUNREACH,
 * -EHOSTUNREACH, -ENODEV, ...), which in-tree rdma_resolve_addr() also
 * returns synchronously. Process context; does not sleep.
 */
int cma_addr_resolve(struct cma_addr_req *req, struct sockaddr *src,
		     const struct sockaddr *dst, struct rdma_dev_addr *dev_addr,
		     unsigned long timeout_ms, cma_addr_done_t done);

/*
 * Stops @req. On return @done is neither running nor going to run (when
 * called from @req's own @done, it returns at once: that @done is the last).
 * A no-op for a request that never started (zeroed), failed to start or has
 * completed. Sleeps: call it without locks that @done takes.
 */
void cma_addr_cancel(struct cma_addr_req *req);

/*
 * Fill @dev_addr (bound_dev_if, dev_type, src_dev_addr, broadcast) for the
 * local address @addr in dev_addr->net: the netdev owning it, or the netdev
 * dev_addr->bound_dev_if when that is preset. -EADDRNOTAVAIL if @addr is not
 * a local address (an any address is not), -EINVAL for a link-local IPv6
 * address without a scope id or bound_dev_if, -ENODEV if the interface is
 * gone, -EAFNOSUPPORT for a family other than AF_INET/AF_INET6.
 */
int cma_addr_translate(const struct sockaddr *addr,
		       struct rdma_dev_addr *dev_addr);

/*
 * A NETEVENT_NEIGH_UPDATE for @n (track.c owns the notifier): requests that
 * wait for @n retry at once if it is valid. Any context that may take a _bh
 * lock.
 */
struct neighbour;
void cma_addr_neigh_event(struct neighbour *n);

/*
 * One route and neighbour lookup from @src (a local address, or any) to
 * @dst in @net, with no neighbour resolution started: 0 with @res filled,
 * 1 (the neighbour is not valid; @res has the route), or a negative errno
 * (no route, @src not local). Process context.
 */
int cma_addr_lookup(struct net *net, const struct sockaddr *src,
		    const struct sockaddr *dst, struct cma_addr_res *res);

/* Module init/exit: the workqueue. */
int cma_addr_init(void);
void cma_addr_exit(void);

#if IS_ENABLED(CONFIG_KUNIT)
/* Internals exported for tests/kunit/cma_addr_kunit.c only. */
unsigned long cma_addr_retry_delay(unsigned long now, unsigned long deadline,
				   unsigned int *interval_ms);
bool cma_addr_req_pending(struct cma_addr_req *req);
#endif

#endif /* _RDMA_CM_ADDR_H */

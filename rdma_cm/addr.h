/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IP address resolution for the connection manager: route lookup, source
 * address selection and neighbour (ARP/ND) resolution, asynchronous, with a
 * deadline and synchronous cancellation.
 */
#ifndef _RDMA_CM_ADDR_H
#define _RDMA_CM_ADDR_H

#include <linux/socket.h>
#include <linux/workqueue.h>
#include <rdma/ib_addr.h>

struct cma_addr_req;

/*
 * Called once per started request, from process context (a workqueue), never
 * with a lock of the caller held. Not called after cma_addr_cancel() returns.
 */
typedef void (*cma_addr_done_t)(struct cma_addr_req *req, int status);

struct cma_addr_req {
	/* On the resolver's pending list, under its lock. */
	struct list_head	entry;
	struct delayed_work	work;
	struct sockaddr		*src;		/* in/out, caller's storage */
	const struct sockaddr	*dst;		/* caller's storage */
	struct rdma_dev_addr	*dev_addr;	/* out; ->net set by caller */
	unsigned long		deadline;	/* jiffies */
	cma_addr_done_t		done;
	int			status;
};

/*
 * Resolve @dst from the namespace dev_addr->net. An unspecified @src (any
 * address, same family as @dst) is replaced with the source the route
 * selects; a specified one must be a local address. On success @dev_addr
 * holds the outgoing netdev (bound_dev_if, dev_type, src/dst/broadcast
 * hardware addresses, network type, hop limit). Returns 0 when the request
 * is queued (@done reports the result) or a negative errno.
 */
int cma_addr_resolve(struct cma_addr_req *req, struct sockaddr *src,
		     const struct sockaddr *dst, struct rdma_dev_addr *dev_addr,
		     unsigned long timeout_ms, cma_addr_done_t done);

/* Stops @req. On return @done is neither running nor going to run. */
void cma_addr_cancel(struct cma_addr_req *req);

/*
 * Fill @dev_addr (bound_dev_if, dev_type, src_dev_addr, broadcast) for the
 * local address @addr in dev_addr->net. -EADDRNOTAVAIL if it is not local.
 */
int cma_addr_translate(const struct sockaddr *addr,
		       struct rdma_dev_addr *dev_addr);

int cma_addr_init(void);
void cma_addr_exit(void);

#endif /* _RDMA_CM_ADDR_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The InfiniBand path record cache (path_cache.c).
 */
#ifndef _RDMA_CM_PATH_CACHE_H
#define _RDMA_CM_PATH_CACHE_H

#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <openrdma/compat.h>

struct dentry;
struct rdma_id_private;

/* Counters, as /sys/kernel/debug/rdma_cm/path_cache shows them. */
struct cma_pc_stats {
	unsigned long	entries;	/* kept or in flight now */
	unsigned long	queries;	/* SA queries started */
	unsigned long	misses;
	unsigned long	hits;
	unsigned long	coalesced;	/* waited for a query in flight */
	unsigned long	expired;
	unsigned long	invalidated;	/* dropped by a port event */
	unsigned long	evicted;	/* dropped to make room (the caps) */
	unsigned long	uncached;	/* queried without caching: caps full */
	unsigned long	failed;		/* dropped after a connect failed */
	unsigned long	timed_out;	/* waiters failed at their own deadline */
};

typedef void (*cma_pc_done_fn)(int status, struct sa_path_rec *resp,
			       orcm_num_prs_t num_prs, void *context);
typedef int (*cma_pc_query_fn)(struct ib_device *device, u32 port,
			       struct sa_path_rec *query, ib_sa_comp_mask mask,
			       unsigned long timeout_ms, cma_pc_done_fn done,
			       void *context);

int cma_pc_resolve(struct rdma_id_private *id_priv, struct sa_path_rec *query,
		   ib_sa_comp_mask mask, unsigned long timeout_ms);
void cma_pc_cancel(struct rdma_id_private *id_priv);
void cma_pc_conn_failed(struct rdma_id_private *id_priv);
void cma_pc_event(struct ib_event_handler *handler, struct ib_event *event);
void cma_pc_read_stats(struct cma_pc_stats *stats);
void cma_pc_debugfs(struct dentry *dir);
void cma_pc_invalidate(struct ib_device *device, u32 port);
void cma_pc_exit(void);

#if IS_ENABLED(CONFIG_KUNIT)
void cma_pc_test_hooks(cma_pc_query_fn fn, unsigned int ttl_ms);
void cma_pc_test_caps(unsigned int max, unsigned int max_per_device);
#endif

#endif /* _RDMA_CM_PATH_CACHE_H */

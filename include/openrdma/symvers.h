/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types that the in-tree rdma_cm, iw_cm and ib_cm translation units see, so
 * that genksyms computes the same symbol CRCs for our exports.
 *
 * genksyms hashes every type reachable from an exported prototype as the
 * exporting file sees it: a struct that is only declared hashes as UNKNOWN.
 * The in-tree build sees struct rdma_restrack_root (private to ib_core,
 * reachable through struct ib_device), struct trace_eval_map (reachable
 * through struct module) and, for ib_cm, struct net_generic. Include this
 * header first in every file that exports a symbol. The restrack_root
 * definition below is the one ib_core is built with; it must not change
 * while the target kernel is 6.12.
 */
#ifndef _OPENRDMA_SYMVERS_H
#define _OPENRDMA_SYMVERS_H

#include <linux/tracepoint.h>
#include <linux/xarray.h>
#include <net/netns/generic.h>
#include <rdma/restrack.h>

struct rdma_restrack_root {
	struct xarray xa;
	u32 next_id;
};

/*
 * Exported by ib_core (restrack.c) but declared only in its private
 * header: the prototypes are the ABI of those exports.
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent);
void rdma_restrack_add(struct rdma_restrack_entry *res);
void rdma_restrack_del(struct rdma_restrack_entry *res);

#endif /* _OPENRDMA_SYMVERS_H */

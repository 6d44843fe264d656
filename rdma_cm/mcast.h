/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast joins of UD ids (mcast.c).
 */
#ifndef _RDMA_CM_MCAST_H
#define _RDMA_CM_MCAST_H

#include <rdma/ib_verbs.h>

struct rdma_id_private;

/* Leave every group @id_priv joined; the destroy path, no locks held. */
void cma_mc_leave_all(struct rdma_id_private *id_priv);

#if IS_ENABLED(CONFIG_KUNIT)
void cma_mc_mgid(const struct sockaddr *addr, enum ib_gid_type gid_type,
		 union ib_gid *mgid);
#endif

#endif /* _RDMA_CM_MCAST_H */

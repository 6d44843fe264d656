// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast. iWARP has none; IB and RoCE multicast land with the IB path
 * (a later issue) and report that clearly until then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "cma_priv.h"

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (!id->device)
		return -EINVAL;
	if (cma_state(id_priv) != RDMA_CM_ADDR_BOUND &&
	    cma_state(id_priv) != RDMA_CM_ADDR_RESOLVED)
		return -EINVAL;
	/* The in-tree stack says -ENOSYS for iWARP; that errno is reserved. */
	if (rdma_cap_iw_cm(id->device, id->port_num))
		return -EOPNOTSUPP;
	return -EPROTONOSUPPORT;
}
EXPORT_SYMBOL(rdma_join_multicast);

void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	/* Nothing can have been joined (see rdma_join_multicast()). */
}
EXPORT_SYMBOL(rdma_leave_multicast);

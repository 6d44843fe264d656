// SPDX-License-Identifier: GPL-2.0
/*
 * Human-readable names of events and reject reasons.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "cma_priv.h"

static const char * const cma_events[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED]	= "address resolved",
	[RDMA_CM_EVENT_ADDR_ERROR]	= "address error",
	[RDMA_CM_EVENT_ROUTE_RESOLVED]	= "route resolved",
	[RDMA_CM_EVENT_ROUTE_ERROR]	= "route error",
	[RDMA_CM_EVENT_CONNECT_REQUEST]	= "connect request",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "connect response",
	[RDMA_CM_EVENT_CONNECT_ERROR]	= "connect error",
	[RDMA_CM_EVENT_UNREACHABLE]	= "unreachable",
	[RDMA_CM_EVENT_REJECTED]	= "rejected",
	[RDMA_CM_EVENT_ESTABLISHED]	= "established",
	[RDMA_CM_EVENT_DISCONNECTED]	= "disconnected",
	[RDMA_CM_EVENT_DEVICE_REMOVAL]	= "device removal",
	[RDMA_CM_EVENT_MULTICAST_JOIN]	= "multicast join",
	[RDMA_CM_EVENT_MULTICAST_ERROR]	= "multicast error",
	[RDMA_CM_EVENT_ADDR_CHANGE]	= "address change",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT]	= "timewait exit",
};

const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event)
{
	size_t index = event;

	return (index < ARRAY_SIZE(cma_events) && cma_events[index]) ?
		cma_events[index] : "unrecognized event";
}
EXPORT_SYMBOL(rdma_event_msg);

const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason)
{
	if (id->device && rdma_is_port_valid(id->device, id->port_num) &&
	    rdma_cap_iw_cm(id->device, id->port_num))
		return iwcm_reject_msg(reason);
	if (id->device && rdma_is_port_valid(id->device, id->port_num) &&
	    rdma_cap_ib_cm(id->device, id->port_num))
		return ibcm_reject_msg(reason);
	return "unrecognized transport";
}
EXPORT_SYMBOL(rdma_reject_msg);

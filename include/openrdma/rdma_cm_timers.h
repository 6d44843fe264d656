/* SPDX-License-Identifier: GPL-2.0 */
/*
 * openrdma-cm's rdma_cm: the CM reply timeout and retry count of one id,
 * for kernel ULPs (not in-tree). An administrator sets them per namespace
 * (sysctl net.rdma_cm.cm_response_timeout, cm_max_retries) and per port
 * (configfs rdma_cm/<dev>/ports/<n>/); a ULP sets them for its own ids,
 * which wins over both. IB and RoCE connections: the values go into the
 * REQ and time the REQ, the REP and the DREQ. docs/knobs.md.
 */
#ifndef _OPENRDMA_RDMA_CM_TIMERS_H
#define _OPENRDMA_RDMA_CM_TIMERS_H

struct rdma_cm_id;

/* -1: the port's value if set, else the namespace's. */
#define ORCM_CM_TIMER_DEFAULT	(-1)

int orcm_rdma_set_cm_timers(struct rdma_cm_id *id, int response_timeout,
			    int max_retries);

#endif /* _OPENRDMA_RDMA_CM_TIMERS_H */
